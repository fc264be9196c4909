/* Connected pieces of far skin (seed 000, "Partes conectadas de pele distante" and "Onde ela
 * se conecta?"). Exporters split vertices at UV and hard-normal seams, so the face graph alone
 * breaks a tail into dozens of islands: vertices are welded by position first
 * (sinew_mesh.weld), connectivity runs on the welded graph, and results are written back to
 * every original vertex. The collar of a piece is the ring of near vertices adjacent to it
 * (or, for a lobe split off a bigger piece, of the other lobes' vertices adjacent to it). */
#include "rig_internal.h"

#include <stdlib.h>
#include <string.h>

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void uf_union(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a == b) return;
    /* The smaller index becomes the root: deterministic labels. */
    if (a < b)
        parent[b] = a;
    else
        parent[a] = b;
}

sinew_result rig_build_graph(sinew_rig_analysis *a, const sinew_model *m, sinew_error *err)
{
    const uint32_t nv = m->mesh.vertex_count, nt = m->mesh.triangle_count;
    const uint32_t *tri = m->mesh.triangles;
    const uint32_t *weld = a->weld;
    a->adj_start = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *a->adj_start);
    a->adj = sinew_alloc(&a->alloc, 6 * (size_t)nt + 1, sizeof *a->adj);
    a->shell = sinew_alloc(&a->alloc, nv, sizeof *a->shell);
    if (!a->adj_start || !a->adj || !a->shell)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "mesh graph: out of memory");
    for (uint32_t t = 0; t < nt; t++)
        for (int e = 0; e < 3; e++) {
            uint32_t u = tri[3 * t + e], w = tri[3 * t + (e + 1) % 3];
            if (u >= nv || w >= nv) continue;
            u = weld[u];
            w = weld[w];
            if (u == w) continue;
            a->adj_start[u + 1]++;
            a->adj_start[w + 1]++;
        }
    for (uint32_t v = 0; v < nv; v++)
        a->adj_start[v + 1] += a->adj_start[v];
    uint32_t *cursor = a->shell; /* borrowed, overwritten below */
    for (uint32_t v = 0; v < nv; v++)
        cursor[v] = a->adj_start[v];
    for (uint32_t t = 0; t < nt; t++)
        for (int e = 0; e < 3; e++) {
            uint32_t u = tri[3 * t + e], w = tri[3 * t + (e + 1) % 3];
            if (u >= nv || w >= nv) continue;
            u = weld[u];
            w = weld[w];
            if (u == w) continue;
            a->adj[cursor[u]++] = w;
            a->adj[cursor[w]++] = u;
        }
    /* Shells: connected components of the whole welded mesh. */
    for (uint32_t v = 0; v < nv; v++)
        a->shell[v] = v;
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t k = a->adj_start[v]; k < a->adj_start[v + 1]; k++)
            uf_union(a->shell, v, a->adj[k]);
    for (uint32_t v = 0; v < nv; v++)
        a->shell[v] = uf_find(a->shell, v);
    return SINEW_OK;
}

sinew_result rig_find_pieces(sinew_rig_analysis *a, const sinew_model *m, sinew_error *err)
{
    const uint32_t nv = m->mesh.vertex_count;
    const uint32_t *weld = a->weld;
    uint32_t *uf = sinew_alloc(&a->alloc, nv, sizeof *uf);
    a->rep_piece = sinew_alloc(&a->alloc, nv, sizeof *a->rep_piece);
    if (!uf || !a->rep_piece) {
        sinew_free(&a->alloc, uf);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "far pieces: out of memory");
    }
    for (uint32_t v = 0; v < nv; v++)
        uf[v] = v;
    for (uint32_t v = 0; v < nv; v++) {
        if (weld[v] != v || !a->far[v]) continue;
        for (uint32_t k = a->adj_start[v]; k < a->adj_start[v + 1]; k++)
            if (a->far[a->adj[k]] && a->lobe[a->adj[k]] == a->lobe[v]) uf_union(uf, v, a->adj[k]);
    }
    /* Labels in order of each piece's smallest vertex index. */
    uint32_t count = 0;
    for (uint32_t v = 0; v < nv; v++) {
        a->rep_piece[v] = RIG_NONE;
        if (weld[v] != v || !a->far[v]) continue;
        uint32_t root = uf_find(uf, v);
        if (root == v)
            a->rep_piece[v] = count++;
        else
            a->rep_piece[v] = a->rep_piece[root]; /* root < v: labelled already */
    }
    a->far_piece_count = count;
    /* Collars, CSR by piece: near representatives adjacent to the piece, each once. */
    a->collar_start = sinew_alloc(&a->alloc, (size_t)count + 1, sizeof *a->collar_start);
    a->root_of = sinew_alloc(&a->alloc, (size_t)count + 1, sizeof *a->root_of);
    uint32_t *stamp = uf; /* reused: last piece + 1 that listed this vertex */
    memset(stamp, 0, (size_t)nv * sizeof *stamp);
    if (!a->collar_start || !a->root_of) {
        sinew_free(&a->alloc, uf);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "far pieces: out of memory");
    }
    for (uint32_t p = 0; p < count; p++)
        a->root_of[p] = p;
    /* Pass 1 counts, pass 2 fills; both visit (piece, neighbour) pairs in vertex order, so a
     * per-piece stamp would need the vertices grouped by piece: group them first. */
    uint32_t *order = sinew_alloc(&a->alloc, nv + 1, sizeof *order);
    uint32_t *start = sinew_alloc(&a->alloc, (size_t)count + 1, sizeof *start);
    if (!order || !start) {
        sinew_free(&a->alloc, uf);
        sinew_free(&a->alloc, order);
        sinew_free(&a->alloc, start);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "far pieces: out of memory");
    }
    for (uint32_t v = 0; v < nv; v++)
        if (a->rep_piece[v] != RIG_NONE) start[a->rep_piece[v] + 1]++;
    for (uint32_t p = 0; p < count; p++)
        start[p + 1] += start[p];
    {
        uint32_t *fill = a->collar_start; /* borrowed cursor */
        for (uint32_t p = 0; p < count; p++)
            fill[p] = start[p];
        for (uint32_t v = 0; v < nv; v++)
            if (a->rep_piece[v] != RIG_NONE) order[fill[a->rep_piece[v]]++] = v;
    }
    uint32_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        memset(stamp, 0, (size_t)nv * sizeof *stamp);
        total = 0;
        for (uint32_t p = 0; p < count; p++) {
            if (pass == 1) a->collar_start[p] = total;
            for (uint32_t i = start[p]; i < start[p + 1]; i++) {
                uint32_t v = order[i];
                for (uint32_t k = a->adj_start[v]; k < a->adj_start[v + 1]; k++) {
                    uint32_t w = a->adj[k];
                    if (a->rep_piece[w] == p || stamp[w] == p + 1) continue;
                    stamp[w] = p + 1;
                    if (pass == 1) a->collar[total] = w;
                    total++;
                }
            }
        }
        if (pass == 0) {
            a->collar = sinew_alloc(&a->alloc, (size_t)total + 1, sizeof *a->collar);
            if (!a->collar) {
                sinew_free(&a->alloc, uf);
                sinew_free(&a->alloc, order);
                sinew_free(&a->alloc, start);
                return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "collars: out of memory");
            }
        }
    }
    a->collar_start[count] = total;
    sinew_free(&a->alloc, uf);
    sinew_free(&a->alloc, order);
    sinew_free(&a->alloc, start);
    return SINEW_OK;
}

/* Cell key of a position on a grid of spacing `cell`. */
static uint64_t cell_key(int64_t x, int64_t y, int64_t z)
{
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)y * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
    h ^= (uint64_t)z * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
    return h;
}

sinew_result rig_weld_tolerant(sinew_rig_analysis *a, const sinew_model *m, float tol,
                               sinew_error *err)
{
    const uint32_t nv = m->mesh.vertex_count;
    const sinew_vec3 *p = m->mesh.positions;
    uint32_t *weld = sinew_alloc(&a->alloc, nv + 1, sizeof *weld);
    uint32_t size = 16;
    while (size < 2 * nv)
        size *= 2;
    uint32_t *head = sinew_alloc(&a->alloc, size, sizeof *head);
    uint32_t *next = sinew_alloc(&a->alloc, nv + 1, sizeof *next);
    int64_t *cell = sinew_alloc(&a->alloc, 3 * (size_t)nv + 1, sizeof *cell);
    if (!weld || !head || !next || !cell) {
        sinew_free(&a->alloc, weld);
        sinew_free(&a->alloc, head);
        sinew_free(&a->alloc, next);
        sinew_free(&a->alloc, cell);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "weld: out of memory");
    }
    if (!(tol > 0)) tol = 1e-30f;
    const double inv = 1.0 / tol;
    for (uint32_t i = 0; i < size; i++)
        head[i] = RIG_NONE;
    for (uint32_t v = 0; v < nv; v++) {
        weld[v] = v;
        cell[3 * v] = (int64_t)floor(p[v].x * inv);
        cell[3 * v + 1] = (int64_t)floor(p[v].y * inv);
        cell[3 * v + 2] = (int64_t)floor(p[v].z * inv);
    }
    /* Visit vertices in index order; each looks for earlier vertices in the 27 cells around
     * it (hash buckets may mix cells: positions are compared, so that is harmless). */
    for (uint32_t v = 0; v < nv; v++) {
        /* Exact duplicates (seams) follow their representative: only it visits the grid. */
        if (m->mesh.weld && m->mesh.weld[v] < v) {
            uf_union(weld, v, m->mesh.weld[v]);
            continue;
        }
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    uint64_t k =
                        cell_key(cell[3 * v] + dx, cell[3 * v + 1] + dy, cell[3 * v + 2] + dz) &
                        (size - 1);
                    for (uint32_t w = head[k]; w != RIG_NONE; w = next[w])
                        if (cell[3 * w] == cell[3 * v] + dx &&
                            cell[3 * w + 1] == cell[3 * v + 1] + dy &&
                            cell[3 * w + 2] == cell[3 * v + 2] + dz &&
                            sinew_vec3_distance(p[v], p[w]) <= tol)
                            uf_union(weld, v, w);
                }
        uint64_t k = cell_key(cell[3 * v], cell[3 * v + 1], cell[3 * v + 2]) & (size - 1);
        next[v] = head[k];
        head[k] = v;
    }
    for (uint32_t v = 0; v < nv; v++)
        weld[v] = uf_find(weld, v);
    sinew_free(&a->alloc, head);
    sinew_free(&a->alloc, next);
    sinew_free(&a->alloc, cell);
    sinew_free(&a->alloc, a->owned_weld);
    a->weld = a->owned_weld = weld;
    return SINEW_OK;
}

typedef struct by_distance {
    float d;
    uint32_t v;
} by_distance;

static int cmp_desc(const void *x, const void *y)
{
    const by_distance *a = x, *b = y;
    if (a->d != b->d) return a->d < b->d ? 1 : -1;
    return (a->v > b->v) - (a->v < b->v);
}

sinew_result rig_split_lobes(sinew_rig_analysis *a, const sinew_model *m, const float *dist,
                             const uint8_t *split, float persistence, sinew_error *err)
{
    const uint32_t nv = m->mesh.vertex_count;
    uint32_t n = 0;
    for (uint32_t v = 0; v < nv; v++)
        if (a->weld[v] == v && a->rep_piece[v] != RIG_NONE && split[a->rep_piece[v]]) n++;
    by_distance *order = sinew_alloc(&a->alloc, (size_t)n + 1, sizeof *order);
    uint32_t *label = sinew_alloc(&a->alloc, nv, sizeof *label);
    uint32_t *uf = sinew_alloc(&a->alloc, nv, sizeof *uf); /* over lobe seeds (rep ids) */
    if (!order || !label || !uf) {
        sinew_free(&a->alloc, order);
        sinew_free(&a->alloc, label);
        sinew_free(&a->alloc, uf);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "lobes: out of memory");
    }
    n = 0;
    for (uint32_t v = 0; v < nv; v++) {
        label[v] = RIG_NONE;
        uf[v] = v;
        if (a->weld[v] == v && a->rep_piece[v] != RIG_NONE && split[a->rep_piece[v]])
            order[n++] = (by_distance){dist[v], v};
    }
    qsort(order, n, sizeof *order, cmp_desc);
    /* A lobe is named by its peak vertex; peak height is dist[peak]. */
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t v = order[i].v;
        const float dv = order[i].d;
        uint32_t best = RIG_NONE;
        float best_d = -1;
        for (uint32_t k = a->adj_start[v]; k < a->adj_start[v + 1]; k++) {
            uint32_t w = a->adj[k];
            if (label[w] == RIG_NONE || a->rep_piece[w] != a->rep_piece[v]) continue;
            if (dist[w] > best_d) best_d = dist[w], best = w;
        }
        if (best == RIG_NONE) {
            label[v] = v; /* a new peak */
            continue;
        }
        uint32_t mine = uf_find(uf, label[best]);
        for (uint32_t k = a->adj_start[v]; k < a->adj_start[v + 1]; k++) {
            uint32_t w = a->adj[k];
            if (label[w] == RIG_NONE || a->rep_piece[w] != a->rep_piece[v]) continue;
            uint32_t other = uf_find(uf, label[w]);
            if (other == mine) continue;
            /* Saddle at dv: the lower peak merges unless it stands out. */
            uint32_t lo = dist[other] < dist[mine] ? other : mine;
            uint32_t hi = lo == other ? mine : other;
            if (dist[lo] - dv < persistence) {
                uf[lo] = hi;
                mine = uf_find(uf, mine);
            }
        }
        label[v] = mine;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = order[i].v;
        a->lobe[v] = uf_find(uf, label[v]) + 1;
    }
    for (uint32_t v = 0; v < nv; v++)
        a->lobe[v] = a->lobe[a->weld[v]];
    sinew_free(&a->alloc, order);
    sinew_free(&a->alloc, label);
    sinew_free(&a->alloc, uf);
    return SINEW_OK;
}
