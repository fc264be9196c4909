/* Maximum flow (push-relabel, below), for the cheapest ring of skin that
 * separates a tail from its body (crease.c). Capacities are doubles; an arc with less than
 * FLOW_EPSILON of the largest finite capacity left counts as saturated. Arcs are added in
 * pairs and packed by tail before the flow runs, each knowing its reverse. */
#include "rig_internal.h"

#include <string.h>

#define FLOW_EPSILON 1e-9

sinew_result rig_flow_init(rig_flow *f, const sinew_allocator *alloc, uint32_t nodes, uint32_t arcs,
                           sinew_error *err)
{
    memset(f, 0, sizeof *f);
    f->alloc = *alloc;
    f->node_count = nodes;
    f->arc_capacity = 2 * arcs;
    const size_t n = (size_t)nodes + 1, e = (size_t)f->arc_capacity + 1;
    f->start = sinew_alloc(alloc, n + 1, sizeof *f->start);
    f->it = sinew_alloc(alloc, n, sizeof *f->it);
    f->label = sinew_alloc(alloc, n, sizeof *f->label);
    f->excess = sinew_alloc(alloc, n, sizeof *f->excess);
    f->queue = sinew_alloc(alloc, 2 * n, sizeof *f->queue);
    f->from = sinew_alloc(alloc, e, sizeof *f->from);
    f->to = sinew_alloc(alloc, e, sizeof *f->to);
    f->reverse = sinew_alloc(alloc, e, sizeof *f->reverse);
    f->cap = sinew_alloc(alloc, e, sizeof *f->cap);
    if (!f->start || !f->it || !f->label || !f->excess || !f->queue || !f->from || !f->to ||
        !f->reverse || !f->cap) {
        rig_flow_free(f);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "creases: out of memory");
    }
    return SINEW_OK;
}

void rig_flow_free(rig_flow *f)
{
    sinew_free(&f->alloc, f->start);
    sinew_free(&f->alloc, f->it);
    sinew_free(&f->alloc, f->label);
    sinew_free(&f->alloc, f->excess);
    sinew_free(&f->alloc, f->queue);
    sinew_free(&f->alloc, f->from);
    sinew_free(&f->alloc, f->to);
    sinew_free(&f->alloc, f->reverse);
    sinew_free(&f->alloc, f->cap);
    sinew_free(&f->alloc, f->slot);
    memset(f, 0, sizeof *f);
}

uint32_t rig_flow_arc(rig_flow *f, uint32_t u, uint32_t v, double cap)
{
    if (f->packed || f->arc_count + 2 > f->arc_capacity) return RIG_NONE; /* caller's count */
    const uint32_t e = f->arc_count;
    f->from[e] = u, f->to[e] = v, f->cap[e] = cap;
    f->from[e + 1] = v, f->to[e + 1] = u, f->cap[e + 1] = 0;
    f->arc_count += 2;
    if (cap < RIG_FLOW_INFINITE) {
        f->finite += cap;
        if (cap > f->largest) f->largest = cap;
    }
    return e;
}

/* Packs the arcs by tail (a counting sort): start[u] .. start[u + 1] are u's, and
 * reverse[e] is e's partner. */
static sinew_result pack(rig_flow *f)
{
    const uint32_t n = f->node_count, m = f->arc_count;
    uint32_t *slot = f->slot = sinew_alloc(&f->alloc, (size_t)m + 1, sizeof *slot);
    uint32_t *to = sinew_alloc(&f->alloc, (size_t)m + 1, sizeof *to);
    double *cap = sinew_alloc(&f->alloc, (size_t)m + 1, sizeof *cap);
    if (!slot || !to || !cap) {
        sinew_free(&f->alloc, to);
        sinew_free(&f->alloc, cap);
        return SINEW_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t e = 0; e < m; e++)
        f->start[f->from[e] + 1]++;
    for (uint32_t u = 0; u < n; u++)
        f->start[u + 1] += f->start[u];
    for (uint32_t u = 0; u < n; u++)
        f->it[u] = f->start[u];
    for (uint32_t e = 0; e < m; e++)
        slot[e] = f->it[f->from[e]]++;
    for (uint32_t e = 0; e < m; e++) {
        to[slot[e]] = f->to[e];
        cap[slot[e]] = f->cap[e];
        f->reverse[slot[e]] = slot[e ^ 1];
    }
    memcpy(f->to, to, m * sizeof *to);
    memcpy(f->cap, cap, m * sizeof *cap);
    sinew_free(&f->alloc, to);
    sinew_free(&f->alloc, cap);
    return SINEW_OK;
}

/* Exact distances to t over arcs with capacity left (global relabelling): label[v] is the
 * fewest arcs from v to t, node_count where t cannot be reached. */
static void relabel_all(rig_flow *f, uint32_t t, double eps)
{
    const uint32_t n = f->node_count;
    for (uint32_t v = 0; v < n; v++)
        f->label[v] = n;
    uint32_t head = 0, tail = 0;
    f->label[t] = 0;
    f->queue[tail++] = t;
    while (head < tail) {
        const uint32_t v = f->queue[head++];
        for (uint32_t e = f->start[v]; e < f->start[v + 1]; e++) {
            const uint32_t u = f->to[e];
            if (f->label[u] == n && f->cap[f->reverse[e]] > eps) {
                f->label[u] = f->label[v] + 1;
                f->queue[tail++] = u;
            }
        }
    }
}

/* Push-relabel, first phase only (A. V. Goldberg and R. E. Tarjan, "A new approach to the
 * maximum-flow problem", 1988): the minimum cut is known once no excess can reach t. FIFO
 * order, exact labels again after every n relabels (B. V. Cherkassky and A. V. Goldberg, "On
 * implementing the push-relabel method for the maximum flow problem", 1997). Starts from
 * exact labels and every node with excess that can reach t active. */
static void discharge(rig_flow *f, uint32_t s, uint32_t t, double eps)
{
    const uint32_t n = f->node_count;
    uint32_t *active = f->queue + n; /* a ring of n: each node is in it at most once */
    uint32_t head = 0, count = 0, relabels = 0;
    relabel_all(f, t, eps);
    f->label[s] = n; /* nothing flows back into s: a path from it to t stays impossible */
    for (uint32_t v = 0; v < n; v++) {
        f->it[v] = f->start[v];
        if (v != s && v != t && f->excess[v] > eps && f->label[v] < n) active[count++] = v;
    }
    while (count) {
        const uint32_t u = active[head];
        head = (head + 1) % n, count--;
        while (f->excess[u] > eps && f->label[u] < n) {
            const uint32_t end = f->start[u + 1];
            uint32_t e = f->it[u];
            while (e < end && !(f->cap[e] > eps && f->label[u] == f->label[f->to[e]] + 1))
                e++;
            f->it[u] = e;
            if (e == end) { /* relabel: one above the lowest neighbour with room */
                uint32_t low = n;
                for (uint32_t k = f->start[u]; k < end; k++)
                    if (f->cap[k] > eps && f->label[f->to[k]] + 1 < low)
                        low = f->label[f->to[k]] + 1;
                f->label[u] = low;
                f->it[u] = f->start[u];
                if (++relabels % n == 0) {
                    relabel_all(f, t, eps);
                    f->label[s] = n;
                    for (uint32_t v = 0; v < n; v++)
                        f->it[v] = f->start[v];
                }
                continue;
            }
            const uint32_t v = f->to[e];
            const double push = f->excess[u] < f->cap[e] ? f->excess[u] : f->cap[e];
            f->cap[e] -= push;
            f->cap[f->reverse[e]] += push;
            f->excess[u] -= push;
            if (f->excess[v] <= eps && v != t && v != s && f->label[v] < n)
                active[(head + count++) % n] = v;
            f->excess[v] += push;
        }
    }
    relabel_all(f, t, eps); /* what can still reach t is the sink's side */
}

double rig_flow_max(rig_flow *f, uint32_t s, uint32_t t)
{
    const double eps = FLOW_EPSILON * f->largest;
    if (!f->packed) {
        if (pack(f) != SINEW_OK) return -1;
        f->packed = 1;
        /* An uncut arc costs more than every finite arc together (as added: raising one
         * later does not pass that), so excess stays finite and a flow that reaches it has no
         * finite cut. */
        f->uncut = 2 * f->finite + 1;
        for (uint32_t e = 0; e < f->arc_count; e++)
            if (f->cap[e] >= RIG_FLOW_INFINITE) f->cap[e] = f->uncut;
        for (uint32_t e = f->start[s]; e < f->start[s + 1]; e++) { /* saturate s's arcs */
            const double push = f->cap[e];
            f->cap[e] -= push;
            f->cap[f->reverse[e]] += push;
            f->excess[f->to[e]] += push;
            f->excess[s] -= push;
        }
    }
    discharge(f, s, t, eps);
    return f->excess[t] >= f->uncut ? RIG_FLOW_INFINITE : f->excess[t];
}

void rig_flow_set(rig_flow *f, uint32_t arc, double cap)
{
    if (arc >= f->arc_count) return; /* not an arc rig_flow_arc added */
    if (!f->packed) {
        f->cap[arc] = cap;
        return;
    }
    const uint32_t e = f->slot[arc]; /* its flow is what its reverse holds */
    const double flow = f->cap[f->reverse[e]];
    if (cap >= flow) f->cap[e] = cap - flow;
}

int rig_flow_source_side(const rig_flow *f, uint32_t v)
{
    return f->label[v] >= f->node_count;
}
