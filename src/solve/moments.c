/* Per-frame moments so that a sweep costs nothing per vertex (Dem Bones, Le and Deng 2012/
 * 2014): uuT_jk = sum_i w_ij w_ik u~ u~^T once per rig for every pair of bones that share a
 * vertex, vuT_j = sum_i w_ij v~ u~^T once per frame, with u~ = (u, 1) the bind position and
 * v~ the target. Then for bone j with the others fixed,
 *   sum_i w_ij q_i u~^T = vuT_j - sum_{k != j} M_k uuT_jk,  q_i = y_i - sum_{k != j} w_ik M_k u~,
 * and the squared error is sum_jk <M_j uuT_jk, M_k> - 2 sum_j <M_j, vuT_j> + sum_i |y_i|^2.
 * Everything is accumulated in double; targets are taken about their centroid so the error
 * identity keeps its digits when the creature walks far from the origin. */
#include "solve_internal.h"

#include <math.h>
#include <string.h>

#define MAX_PAIR_JOINTS 4096u /* the dense pair table is joint_count^2 int32 */

/* The per-frame pass reads each block of SOLVE_BLOCK consecutive constraint vertices' targets
 * once, in order, into block_target (24 bytes a vertex, 98 KB: it stays in a core's L2, 512 KB
 * to 2 MB on current x86 and ARM), and then each of the block's groups reads its items: the
 * items' bind positions and weights are stored in the order they are read, so the pass streams
 * through memory without gathering through weight indices, and a group's twelve sums per joint
 * stay in registers. Measured on bench_solve (a) and (b): 1,024, 4,096 and 16,384 vertices a
 * block gave the same moments within 3%, 16,384 a creation 0.7 ms slower on (b) (the grouping
 * scratch is cleared per block); much smaller blocks split the groups (their setup shows),
 * much larger ones outgrow L2; item_slot (16 bits) caps it at 65,536. */
_Static_assert(SOLVE_BLOCK <= 65536u, "item_slot is 16 bits");
_Static_assert(SINEW_MAX_INFLUENCES <= 2 * SOLVE_GROUP_JOINTS, "a vertex makes at most two items");

/* Open addressing over the keys of one block's groups: at least twice the most groups a block
 * can have (two items per vertex), a power of two. */
#define GROUP_HASH (4u * SOLVE_BLOCK)

/* Vertex v's influences as the solve counts them: the slots with a positive weight on a joint
 * of the skin, two slots naming one joint merged (w_ij is their sum, exact in double), in
 * increasing joint order. Returns their number. The one definition every sum here uses. */
static uint32_t vertex_influences(const sinew_mesh *mesh, uint32_t v, uint32_t J,
                                  uint16_t joint[SINEW_MAX_INFLUENCES],
                                  double weight[SINEW_MAX_INFLUENCES])
{
    const uint16_t *jt = &mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
    const float *wt = &mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES];
    uint32_t n = 0;
    for (int p = 0; p < SINEW_MAX_INFLUENCES; p++) {
        if (!(wt[p] > 0) || jt[p] >= J) continue;
        uint32_t at = n;
        while (at > 0 && joint[at - 1] > jt[p])
            at--;
        if (at > 0 && joint[at - 1] == jt[p]) {
            weight[at - 1] += wt[p];
            continue;
        }
        for (uint32_t q = n; q > at; q--) {
            joint[q] = joint[q - 1];
            weight[q] = weight[q - 1];
        }
        joint[at] = jt[p];
        weight[at] = wt[p];
        n++;
    }
    return n;
}

/* Vertex v's slots with a positive weight on a joint of the skin: a vertex the solve fits has
 * at least one (then vertex_influences finds at least one influence), and their number bounds
 * its influences. Cheap: no merging. */
static uint32_t weighted_slots(const sinew_mesh *mesh, uint32_t v, uint32_t J)
{
    const uint16_t *jt = &mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
    const float *wt = &mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES];
    uint32_t n = 0;
    for (int p = 0; p < SINEW_MAX_INFLUENCES; p++)
        n += wt[p] > 0 && jt[p] < J;
    return n;
}

/* One item while a block is grouped: its vertex, its position in the block, its joints and
 * weights, and its block-local group. */
typedef struct block_item {
    uint32_t vertex, group;
    uint16_t slot, joints;
    uint16_t joint[SOLVE_GROUP_JOINTS];
    double weight[SOLVE_GROUP_JOINTS];
} block_item;

typedef struct block_scratch {
    block_item *item;    /* 2 * SOLVE_BLOCK */
    uint32_t *order;     /* 2 * SOLVE_BLOCK: items by group, in constraint order within one */
    uint64_t *key;       /* 2 * SOLVE_BLOCK: a local group's joints packed */
    uint32_t *count;     /* 2 * SOLVE_BLOCK: items per local group, then their first place */
    uint32_t *first;     /* 2 * SOLVE_BLOCK: a local group's first item */
    uint32_t *hash;      /* GROUP_HASH: local group + 1, 0 for free */
    uint32_t group_room; /* groups allocated in s->group */
    uint32_t pair_room;  /* pairs allocated in s->pairs */
    int32_t *pair_of;    /* joint_count^2: pair index of joints (j, k), j <= k, or -1 */
} block_scratch;

/* The index of the pair of joints j <= k, numbered as they first come; -1 out of memory. */
static int32_t pair_index(sinew_solver *s, block_scratch *t, uint32_t j, uint32_t k)
{
    int32_t *p = &t->pair_of[(size_t)j * s->joint_count + k];
    if (*p >= 0) return *p;
    if (s->pair_count == t->pair_room) {
        const uint32_t room = t->pair_room ? 2 * t->pair_room : 64;
        solve_pair *grown = sinew_realloc(&s->alloc, s->pairs, t->pair_room, room, sizeof *grown);
        if (!grown) return -1;
        s->pairs = grown;
        t->pair_room = room;
    }
    s->pairs[s->pair_count] = (solve_pair){.j = j, .k = k};
    *p = (int32_t)s->pair_count++;
    return *p;
}

/* The joints of an item packed into one key: 12 bits a joint (the skin has at most
 * MAX_PAIR_JOINTS), and the count above them. */
static uint64_t item_key(const block_item *it)
{
    uint64_t key = it->joints;
    for (int k = 0; k < SOLVE_GROUP_JOINTS; k++)
        key = key << 12 | (k < it->joints ? it->joint[k] : 0u);
    return key;
}

static void add_upper(double *uut, double f, const double uu[10])
{
    for (int r = 0, i = 0; r < 4; r++)
        for (int c = r; c < 4; c++)
            uut[r * 4 + c] += f * uu[i++];
}

void solve_group_rig_sums(const solve_group *g, const float *item_bind, const double *item_weight,
                          double uut[SOLVE_GROUP_PAIRS][12], double sum[SOLVE_GROUP_JOINTS][4])
{
    const uint32_t n = g->joints;
    memset(uut, 0, SOLVE_GROUP_PAIRS * sizeof *uut);
    memset(sum, 0, SOLVE_GROUP_JOINTS * sizeof *sum);
    const double *w = &item_weight[g->weights];
    for (uint32_t i = g->begin; i < g->end; i++, w += n) {
        const float *b = &item_bind[(size_t)i * 4];
        double uu[12];
        solve_upper_uut(b, uu);
        for (uint32_t p = 0, pq = 0; p < n; p++) {
            for (int c = 0; c < 4; c++)
                sum[p][c] += w[p] * b[c];
            for (uint32_t q = p; q < n; q++, pq++) {
                const double f = w[p] * w[q];
                for (int t = 0; t < 12; t++)
                    uut[pq][t] += f * uu[t];
            }
        }
    }
}

void solve_group_rig_moments(const sinew_solver *s, int simd, const solve_group *g,
                             double uut[SOLVE_GROUP_PAIRS][12], double sum[SOLVE_GROUP_JOINTS][4])
{
#if defined(SOLVE_AVX)
    if (simd) {
        solve_group_rig_sums_avx(g, s->item_bind, s->item_weight, uut, sum);
        return;
    }
#endif
    (void)simd;
    solve_group_rig_sums(g, s->item_bind, s->item_weight, uut, sum);
}

/* A finished group's share of the rig moments: uuT of every pair of its joints and sum w u~
 * of each, summed over the group first (so that the sums wait on nothing but registers). */
static void add_group_rig_moments(sinew_solver *s, const solve_group *g, const int32_t *pair_of)
{
    const uint32_t n = g->joints, J = s->joint_count;
    double uut[SOLVE_GROUP_PAIRS][12], sum[SOLVE_GROUP_JOINTS][4];
    solve_group_rig_moments(s, s->simd, g, uut, sum);
    for (uint32_t p = 0, pq = 0; p < n; p++) {
        for (int c = 0; c < 4; c++)
            s->entry_sum[(size_t)g->joint[p] * 4 + (size_t)c] += sum[p][c];
        for (uint32_t q = p; q < n; q++, pq++) {
            double *t = s->pairs[pair_of[(size_t)g->joint[p] * J + g->joint[q]]].uut;
            for (int r = 0, i = 0; r < 4; r++)
                for (int c = r; c < 4; c++)
                    t[r * 4 + c] += uut[pq][i++];
        }
    }
}

/* Constraint vertices [c0, c1), one block: their items grouped by joints, groups in the order
 * their first item comes, items in constraint order within a group, appended to the solver's
 * groups and items from *items and *weights on (both advanced). The uuT of pairs of joints
 * that fall in two items of one vertex (more than SOLVE_GROUP_JOINTS influences) are summed
 * here; every other pair's and entry_sum by add_group_rig_moments. */
static sinew_result build_block(sinew_solver *s, block_scratch *t, uint32_t c0, uint32_t c1,
                                uint32_t *items, uint32_t *weights)
{
    const sinew_mesh *mesh = &s->rig->mesh;
    const uint32_t J = s->joint_count;
    uint32_t count = 0, groups = 0;
    uint64_t last_key = UINT64_MAX; /* neighbouring vertices mostly share their joints */
    uint32_t last_group = 0;
    for (uint32_t c = c0; c < c1; c++) {
        const uint32_t v = s->constraints[c];
        uint16_t jt[SINEW_MAX_INFLUENCES];
        double wt[SINEW_MAX_INFLUENCES];
        const uint32_t n = vertex_influences(mesh, v, J, jt, wt);
        for (uint32_t k0 = 0; k0 < n; k0 += SOLVE_GROUP_JOINTS) {
            block_item *it = &t->item[count++];
            it->vertex = v;
            it->slot = (uint16_t)(c - c0);
            it->joints = (uint16_t)(n - k0 < SOLVE_GROUP_JOINTS ? n - k0 : SOLVE_GROUP_JOINTS);
            for (uint32_t k = 0; k < it->joints; k++) {
                it->joint[k] = jt[k0 + k];
                it->weight[k] = wt[k0 + k];
            }
            /* pairs across this item and the vertex's later ones */
            if (n > SOLVE_GROUP_JOINTS) {
                double uu[12];
                const sinew_vec3 u = mesh->positions[v];
                const float b[4] = {u.x, u.y, u.z, 1.0f};
                solve_upper_uut(b, uu);
                for (uint32_t p = k0; p < k0 + it->joints; p++)
                    for (uint32_t q = k0 + it->joints; q < n; q++) {
                        const int32_t pair = pair_index(s, t, jt[p], jt[q]);
                        if (pair < 0) return SINEW_ERR_OUT_OF_MEMORY;
                        add_upper(s->pairs[pair].uut, wt[p] * wt[q], uu);
                    }
            }
            const uint64_t key = item_key(it);
            if (key != last_key) {
                uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (GROUP_HASH - 1);
                while (t->hash[h] && t->key[t->hash[h] - 1] != key)
                    h = (h + 1) & (GROUP_HASH - 1);
                if (!t->hash[h]) { /* a new group: its pairs numbered */
                    t->hash[h] = ++groups;
                    t->key[groups - 1] = key;
                    t->count[groups - 1] = 0;
                    t->first[groups - 1] = count - 1;
                    for (uint32_t p = 0; p < it->joints; p++)
                        for (uint32_t q = p; q < it->joints; q++)
                            if (pair_index(s, t, it->joint[p], it->joint[q]) < 0)
                                return SINEW_ERR_OUT_OF_MEMORY;
                }
                last_key = key;
                last_group = t->hash[h] - 1;
            }
            it->group = last_group;
            t->count[it->group]++;
        }
    }
    /* counting sort by group, stable */
    for (uint32_t g = 0, at = 0; g < groups; g++) {
        const uint32_t n = t->count[g];
        t->count[g] = at;
        at += n;
    }
    for (uint32_t i = 0; i < count; i++)
        t->order[t->count[t->item[i].group]++] = i;
    if (s->block_group[s->block_count] + groups > t->group_room) {
        uint32_t room = t->group_room ? t->group_room : 64;
        while (room < s->block_group[s->block_count] + groups)
            room *= 2;
        solve_group *grown = sinew_realloc(&s->alloc, s->group, t->group_room, room, sizeof *grown);
        if (!grown) return SINEW_ERR_OUT_OF_MEMORY;
        s->group = grown;
        t->group_room = room;
    }
    solve_group *out = &s->group[s->block_group[s->block_count]];
    for (uint32_t g = 0, at = 0; g < groups; g++) {
        const block_item *head = &t->item[t->first[g]];
        out[g].joints = head->joints;
        for (uint32_t k = 0; k < head->joints; k++)
            out[g].joint[k] = head->joint[k];
        out[g].begin = *items;
        out[g].weights = *weights;
        for (; at < t->count[g]; at++) {
            const block_item *it = &t->item[t->order[at]];
            const sinew_vec3 u = mesh->positions[it->vertex];
            float *b = &s->item_bind[(size_t)*items * 4];
            b[0] = u.x, b[1] = u.y, b[2] = u.z, b[3] = 1.0f;
            s->item_slot[*items] = it->slot;
            for (uint32_t k = 0; k < it->joints; k++)
                s->item_weight[(*weights)++] = it->weight[k];
            (*items)++;
        }
        out[g].end = *items;
        add_group_rig_moments(s, &out[g], t->pair_of);
    }
    memset(t->hash, 0, GROUP_HASH * sizeof *t->hash); /* for the next block */
    s->block_group[s->block_count + 1] = s->block_group[s->block_count] + groups;
    s->block_count++;
    return SINEW_OK;
}

/* Blocks of SOLVE_BLOCK constraint vertices, each grouped by build_block, with the rig
 * moments they carry and the pairs they number. `items` and `weights` bound the items' and
 * their weights' counts. */
static sinew_result build_groups(sinew_solver *s, uint32_t items, uint32_t weights)
{
    const sinew_allocator *a = &s->alloc;
    const uint32_t C = s->constraint_count, J = s->joint_count;
    const uint32_t B = (C + SOLVE_BLOCK - 1) / SOLVE_BLOCK;
    const uint32_t most = 2 * SOLVE_BLOCK; /* items of one block */
    block_scratch t = {0};
    t.item = sinew_alloc(a, most, sizeof *t.item);
    t.order = sinew_alloc(a, most, sizeof *t.order);
    t.key = sinew_alloc(a, most, sizeof *t.key);
    t.count = sinew_alloc(a, most, sizeof *t.count);
    t.first = sinew_alloc(a, most, sizeof *t.first);
    t.hash = sinew_alloc(a, GROUP_HASH, sizeof *t.hash);
    t.pair_of = sinew_alloc(a, (size_t)J * J, sizeof *t.pair_of);
    s->block_group = sinew_alloc(a, (size_t)B + 1, sizeof(uint32_t));
    s->item_slot = sinew_alloc(a, items ? items : 1, sizeof(uint16_t));
    s->item_bind = sinew_alloc(a, (size_t)(items ? items : 1) * 4, sizeof(float));
    s->item_weight = sinew_alloc(a, weights ? weights : 1, sizeof(double));
    s->entry_sum = sinew_alloc(a, (size_t)J * 4, sizeof(double));
    s->block_target =
        sinew_alloc(a, 3 * (size_t)(C < SOLVE_BLOCK ? C : SOLVE_BLOCK) + 1, sizeof(double));
    sinew_result r = SINEW_ERR_OUT_OF_MEMORY;
    if (t.item && t.order && t.key && t.count && t.first && t.hash && t.pair_of && s->block_group &&
        s->item_slot && s->item_bind && s->item_weight && s->entry_sum && s->block_target) {
        for (size_t i = 0; i < (size_t)J * J; i++)
            t.pair_of[i] = -1;
        uint32_t at_item = 0, at_weight = 0;
        r = SINEW_OK;
        for (uint32_t b = 0; b < B && r == SINEW_OK; b++) {
            const uint32_t c1 = b + 1 < B ? (b + 1) * SOLVE_BLOCK : C;
            r = build_block(s, &t, b * SOLVE_BLOCK, c1, &at_item, &at_weight);
        }
    }
    sinew_free(a, t.item);
    sinew_free(a, t.order);
    sinew_free(a, t.key);
    sinew_free(a, t.count);
    sinew_free(a, t.first);
    sinew_free(a, t.hash);
    sinew_free(a, t.pair_of);
    return r;
}

uint32_t sinew_solve_fitted_vertices(const sinew_model *rig, const sinew_solve_options *options)
{
    if (!rig || !rig->mesh.influence_joints || !rig->mesh.influence_weights) return 0;
    uint32_t weighted = 0;
    for (uint32_t v = 0; v < rig->mesh.vertex_count; v++) {
        weighted += weighted_slots(&rig->mesh, v, rig->skin.joint_count) > 0;
    }
    const uint32_t most = options ? options->max_vertices : 0;
    return most > 0 && most < weighted ? most : weighted;
}

sinew_result solve_build_moments(sinew_solver *s, double *influence, sinew_error *err)
{
    const sinew_model *rig = s->rig;
    const sinew_mesh *mesh = &rig->mesh;
    const sinew_allocator *a = &s->alloc;
    const uint32_t J = s->joint_count, V = mesh->vertex_count;
    if (J > MAX_PAIR_JOINTS)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "solve: %u joints in the skin; at most %u are supported", J,
                               MAX_PAIR_JOINTS);

    /* Constraint vertices: all weighted vertices (weighted_slots), or an even subsample of them
     * (the k-th pick is weighted vertex floor(k * weighted / C): deterministic and even), kept
     * in place in the list of the weighted ones, with their weighted slots (which bound the
     * groups' items and weights: a joint named in two slots of a vertex makes one weight). */
    s->constraints = sinew_alloc(a, V, sizeof(uint32_t));
    uint8_t *slots = sinew_alloc(a, V, 1);
    if (!s->constraints || !slots) {
        sinew_free(a, slots);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    uint32_t weighted = 0;
    for (uint32_t v = 0; v < V; v++) {
        const uint32_t n = weighted_slots(mesh, v, J);
        if (!n) continue;
        slots[weighted] = (uint8_t)n;
        s->constraints[weighted++] = v;
    }
    if (weighted == 0) {
        sinew_free(a, slots);
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "solve: the rig's mesh has no weighted vertex");
    }
    uint32_t C = weighted;
    if (s->opt.max_vertices > 0 && s->opt.max_vertices < C) C = s->opt.max_vertices;
    uint32_t items = 0, weights = 0;
    {
        uint32_t n = 0;
        for (uint32_t w = 0; w < weighted && n < C; w++)
            if ((uint64_t)w * C >= (uint64_t)n * weighted) {
                s->constraints[n++] = s->constraints[w];
                items += (slots[w] + SOLVE_GROUP_JOINTS - 1) / SOLVE_GROUP_JOINTS;
                weights += slots[w];
            }
        C = n;
    }
    sinew_free(a, slots);
    s->constraint_count = C;
#if defined(SOLVE_AVX)
    s->simd = __builtin_cpu_supports("avx");
#endif
    if (build_groups(s, items, weights) != SINEW_OK)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    const uint32_t pairs = s->pair_count;
    /* uuT is symmetric: its upper triangle was summed, the lower is its mirror */
    for (uint32_t p = 0; p < pairs; p++)
        for (int r = 1; r < 4; r++)
            for (int col = 0; col < r; col++)
                s->pairs[p].uut[r * 4 + col] = s->pairs[p].uut[col * 4 + r];
    /* Influence: the constraints' weights were summed with their groups; the vertices left
     * out (unweighted, or not in the subsample) add theirs. */
    for (uint32_t j = 0; j < J; j++)
        influence[j] = s->entry_sum[(size_t)j * 4 + 3];
    for (uint32_t v = 0, c = 0; v < V; v++) {
        if (c < C && s->constraints[c] == v) {
            c++;
            continue;
        }
        uint16_t jt[SINEW_MAX_INFLUENCES];
        double wt[SINEW_MAX_INFLUENCES];
        const uint32_t n = vertex_influences(mesh, v, J, jt, wt);
        for (uint32_t k = 0; k < n; k++)
            influence[jt[k]] += wt[k];
    }

    /* Neighbour lists: for joint j every pair containing it, and its own pair. */
    s->nbr_start = sinew_alloc(a, (size_t)J + 1, sizeof(uint32_t));
    s->nbr_joint = sinew_alloc(a, (size_t)pairs * 2 + 1, sizeof(uint32_t));
    s->nbr_pair = sinew_alloc(a, (size_t)pairs * 2 + 1, sizeof(uint32_t));
    s->self_pair = sinew_alloc(a, J, sizeof(uint32_t));
    s->init_uut = sinew_alloc(a, (size_t)J * 16, sizeof(double));
    if (!s->nbr_start || !s->nbr_joint || !s->nbr_pair || !s->self_pair || !s->init_uut)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    for (uint32_t j = 0; j < J; j++)
        s->self_pair[j] = UINT32_MAX;
    for (uint32_t p = 0; p < pairs; p++) {
        s->nbr_start[s->pairs[p].j + 1]++;
        if (s->pairs[p].k != s->pairs[p].j) s->nbr_start[s->pairs[p].k + 1]++;
    }
    for (uint32_t j = 0; j < J; j++)
        s->nbr_start[j + 1] += s->nbr_start[j];
    uint32_t *pos = sinew_alloc(a, J, sizeof(uint32_t));
    if (!pos) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    for (uint32_t p = 0; p < pairs; p++) {
        const uint32_t j = s->pairs[p].j, k = s->pairs[p].k;
        uint32_t e = s->nbr_start[j] + pos[j]++;
        s->nbr_joint[e] = k;
        s->nbr_pair[e] = p;
        if (k == j) {
            s->self_pair[j] = p;
        } else {
            e = s->nbr_start[k] + pos[k]++;
            s->nbr_joint[e] = j;
            s->nbr_pair[e] = p;
        }
        for (int i = 0; i < 16; i++) {
            s->init_uut[(size_t)j * 16 + i] += s->pairs[p].uut[i];
            if (k != j) s->init_uut[(size_t)k * 16 + i] += s->pairs[p].uut[i];
        }
    }
    sinew_free(a, pos);
    return SINEW_OK;
}

void solve_block_targets(const uint32_t *constraints, uint32_t count, const sinew_vec3 *y,
                         const double r[3], double *out, double part[32])
{
    for (uint32_t k = 0; k < count; k++) {
        const sinew_vec3 p = y[constraints[k]];
        const double d[3] = {(double)p.x - r[0], (double)p.y - r[1], (double)p.z - r[2]};
        double *sum = &part[8 * (k & 3)];
        for (int a = 0; a < 3; a++) {
            out[3 * k + a] = d[a];
            sum[a] += d[a];
            sum[4 + a] += d[a] * d[a];
        }
    }
}

void solve_group_moments(const solve_group *g, const uint16_t *item_slot, const float *item_bind,
                         const double *item_weight, const double *block_target, double *vut)
{
    const uint32_t n = g->joints;
    double acc[SOLVE_GROUP_JOINTS][12];
    memset(acc, 0, sizeof acc);
    const double *w = &item_weight[g->weights];
    for (uint32_t i = g->begin; i < g->end; i++, w += n) {
        const float *b = &item_bind[(size_t)i * 4];
        const double u[4] = {b[0], b[1], b[2], b[3]};
        const double *y = &block_target[3 * (size_t)item_slot[i]];
        for (uint32_t k = 0; k < n; k++) {
            const double wu[4] = {w[k] * u[0], w[k] * u[1], w[k] * u[2], w[k] * u[3]};
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 4; c++)
                    acc[k][r * 4 + c] += y[r] * wu[c];
        }
    }
    for (uint32_t k = 0; k < n; k++)
        for (int e = 0; e < 12; e++)
            vut[(size_t)g->joint[k] * 12 + (size_t)e] += acc[k][e];
}

int solve_frame_moments(sinew_solver *s, const sinew_vec3 *y)
{
    const uint32_t C = s->constraint_count, J = s->joint_count;
    /* One pass over the targets, block by block: a block's targets (see SOLVE_BLOCK) are read
     * once into block_target, summed for the centroid, and then read by the block's groups.
     * The centroid d is known only at the end, so everything is summed about the first
     * constraint's target r (a point on the body: the sums carry the body's size, not its
     * distance from the origin, and y - r is exact in double) and moved to d after:
     *   sum w (y - d) u~^T = sum w (y - r) u~^T - (d - r) (sum w u~)^T,
     *   sum |y - d|^2 = sum |y - r|^2 - C |d - r|^2. */
    const sinew_vec3 y0 = y[s->constraints[0]];
    const double r[3] = {y0.x, y0.y, y0.z};
    double part[32] = {0};
    memset(s->vut, 0, (size_t)J * 12 * sizeof *s->vut);
    for (uint32_t b = 0; b < s->block_count; b++) {
        const uint32_t c0 = b * SOLVE_BLOCK, c1 = b + 1 < s->block_count ? c0 + SOLVE_BLOCK : C;
        const uint32_t g0 = s->block_group[b], g1 = s->block_group[b + 1];
#if defined(SOLVE_AVX)
        if (s->simd) {
            solve_block_targets_avx(&s->constraints[c0], c1 - c0, y, r, s->block_target, part);
            /* the next block's targets are asked for while this block's groups compute (the
             * groups are arithmetic, the targets' first read waits on memory), each group
             * its share of the lines by its items; consecutive vertices only */
            const char *next = NULL;
            uint32_t lines = 0;
            if (b + 1 < s->block_count) {
                const uint32_t n0 = c1, n1 = b + 2 < s->block_count ? c1 + SOLVE_BLOCK : C;
                if (s->constraints[n1 - 1] - s->constraints[n0] == n1 - 1 - n0) {
                    next = (const char *)&y[s->constraints[n0]];
                    lines = (uint32_t)(((size_t)(n1 - n0) * sizeof *y + 63) / 64);
                }
            }
            const uint32_t i0 = g0 < g1 ? s->group[g0].begin : 0,
                           items = g0 < g1 ? s->group[g1 - 1].end - i0 : 1;
            for (uint32_t g = g0; g < g1; g++) {
                const uint32_t from =
                                   (uint32_t)((uint64_t)lines * (s->group[g].begin - i0) / items),
                               to = (uint32_t)((uint64_t)lines * (s->group[g].end - i0) / items);
                solve_group_moments_avx(&s->group[g], s->item_slot, s->item_bind, s->item_weight,
                                        s->block_target, s->vut,
                                        next ? next + 64 * (size_t)from : NULL, to - from);
            }
            continue;
        }
#endif
        solve_block_targets(&s->constraints[c0], c1 - c0, y, r, s->block_target, part);
        for (uint32_t g = g0; g < g1; g++)
            solve_group_moments(&s->group[g], s->item_slot, s->item_bind, s->item_weight,
                                s->block_target, s->vut);
    }
    double sum[8];
    for (int a = 0; a < 8; a++)
        sum[a] = (part[a] + part[8 + a]) + (part[16 + a] + part[24 + a]);
    const double sx = sum[0], sy = sum[1], sz = sum[2], ss = (sum[4] + sum[5]) + sum[6];
    if (!isfinite(sx) || !isfinite(sy) || !isfinite(sz) || !isfinite(ss)) return 0;
    const double m[3] = {sx / C, sy / C, sz / C};
    for (int i = 0; i < 3; i++)
        s->centre[i] = r[i] + m[i];
    s->yy = ss - (sx * m[0] + sy * m[1] + sz * m[2]);
    for (uint32_t j = 0; j < J; j++)
        for (int i = 0; i < 3; i++)
            for (int c = 0; c < 4; c++)
                s->vut[(size_t)j * 12 + (size_t)(i * 4 + c)] -=
                    m[i] * s->entry_sum[(size_t)j * 4 + (size_t)c];
    return 1;
}

/* T = M U (3x4 times symmetric 4x4) */
static void mul_mu(const double *M, const double *U, double *T)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            T[r * 4 + c] = M[r * 4 + 0] * U[0 * 4 + c] + M[r * 4 + 1] * U[1 * 4 + c] +
                           M[r * 4 + 2] * U[2 * 4 + c] + M[r * 4 + 3] * U[3 * 4 + c];
}

double solve_error_from_moments(const sinew_solver *s)
{
    double e = s->yy;
    for (uint32_t p = 0; p < s->pair_count; p++) {
        const solve_pair *pr = &s->pairs[p];
        double T[12];
        mul_mu(s->cur[pr->j].m, pr->uut, T);
        double d = 0;
        for (int i = 0; i < 12; i++)
            d += T[i] * s->cur[pr->k].m[i];
        e += pr->j == pr->k ? d : 2 * d;
    }
    for (uint32_t j = 0; j < s->joint_count; j++) {
        if (s->self_pair[j] == UINT32_MAX) continue;
        double d = 0;
        for (int i = 0; i < 12; i++)
            d += s->cur[j].m[i] * s->vut[(size_t)j * 12 + i];
        e -= 2 * d;
    }
    return e > 0 ? e : 0;
}

void solve_bone_residual(const sinew_solver *s, uint32_t j, double A[12])
{
    memcpy(A, &s->vut[(size_t)j * 12], 12 * sizeof(double));
    for (uint32_t e = s->nbr_start[j]; e < s->nbr_start[j + 1]; e++) {
        const uint32_t k = s->nbr_joint[e];
        if (k == j) continue;
        const double *M = s->cur[k].m, *U = s->pairs[s->nbr_pair[e]].uut;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                A[r * 4 + c] -= M[r * 4 + 0] * U[0 * 4 + c] + M[r * 4 + 1] * U[1 * 4 + c] +
                                M[r * 4 + 2] * U[2 * 4 + c] + M[r * 4 + 3] * U[3 * 4 + c];
    }
}
