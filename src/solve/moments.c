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

/* SSE2 is in every x86-64 CPU: the per-frame pass uses it for two columns at once (the
 * compilers at -O2 left that loop scalar, with spills). Elsewhere the plain C loop. */
#if defined(__SSE2__) && !defined(SINEW_SOLVE_PORTABLE)
#define SOLVE_SSE2 1
#include <emmintrin.h>
#else
#define SOLVE_SSE2 0
#endif

#define MAX_PAIR_JOINTS 4096u /* the dense pair table is joint_count^2 int32 */

/* Constraint vertices per block of the per-frame pass: the block's targets and bind
 * positions (24 bytes a vertex, 98 KB) stay in a core's L2 (512 KB on the machine measured,
 * 256 KB to 2 MB on current x86 and ARM) while each of its joints' segments reads them, so
 * the pass reads every target once from memory instead of once per influence. Fewer than
 * ~1,000 makes the segments short (their setup shows); above ~20,000 a block outgrows L2. */
#define SOLVE_BLOCK 4096u

static float vertex_weight_sum(const sinew_mesh *mesh, uint32_t v)
{
    float s = 0;
    for (int k = 0; k < SINEW_MAX_INFLUENCES; k++)
        s += mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES + k];
    return s;
}

/* The influences of constraint vertices [c0, c1), grouped by joint and in constraint order
 * within a joint: writes their segments to `seg` and entries from position *e on (*e
 * advanced past them), and adds each entry to entry_sum. Returns the number of segments.
 * `count` is J zeroed counters, left zeroed. Counting and filling a block back to back reads
 * its influences from cache the second time. */
static uint32_t block_entries(sinew_solver *s, uint32_t c0, uint32_t c1, uint32_t *count,
                              solve_segment *seg, uint32_t *e)
{
    const sinew_mesh *mesh = &s->rig->mesh;
    const uint32_t J = s->joint_count;
    for (uint32_t c = c0; c < c1; c++) {
        const uint32_t v = s->constraints[c];
        for (int p = 0; p < SINEW_MAX_INFLUENCES; p++) {
            const size_t i = (size_t)v * SINEW_MAX_INFLUENCES + (size_t)p;
            if (mesh->influence_weights[i] > 0 && mesh->influence_joints[i] < J)
                count[mesh->influence_joints[i]]++;
        }
    }
    uint32_t n = 0;
    for (uint32_t j = 0; j < J; j++) {
        if (!count[j]) continue;
        seg[n] = (solve_segment){j, *e, *e};
        *e += count[j];
        count[j] = n++; /* from here on: the joint's segment */
    }
    for (uint32_t c = c0; c < c1; c++) {
        const uint32_t v = s->constraints[c];
        for (int p = 0; p < SINEW_MAX_INFLUENCES; p++) {
            const size_t i = (size_t)v * SINEW_MAX_INFLUENCES + (size_t)p;
            const uint16_t j = mesh->influence_joints[i];
            if (!(mesh->influence_weights[i] > 0) || j >= J) continue;
            const uint32_t k = count[j];
            s->entry_vertex[seg[k].end] = v;
            s->entry_weight[seg[k].end] = mesh->influence_weights[i];
            seg[k].end++;
            const double w = mesh->influence_weights[i];
            const sinew_vec3 u = mesh->positions[v];
            double *sum = &s->entry_sum[(size_t)j * 4];
            sum[0] += w * u.x, sum[1] += w * u.y, sum[2] += w * u.z, sum[3] += w;
        }
    }
    for (uint32_t k = 0; k < n; k++)
        count[seg[k].joint] = 0;
    return n;
}

/* Blocks of SOLVE_BLOCK constraint vertices, each block's entries grouped by joint. A block
 * has at most one segment per joint and per entry, which bounds the segment table. */
static sinew_result build_segments(sinew_solver *s, uint32_t entries)
{
    const sinew_allocator *a = &s->alloc;
    const uint32_t C = s->constraint_count, J = s->joint_count;
    const uint32_t B = (C + SOLVE_BLOCK - 1) / SOLVE_BLOCK;
    const size_t most = (size_t)B * J < entries ? (size_t)B * J : entries;
    uint32_t *count = sinew_alloc(a, J, sizeof(uint32_t));
    s->block_count = B;
    s->block_seg = sinew_alloc(a, (size_t)B + 1, sizeof(uint32_t));
    s->seg = sinew_alloc(a, most ? most : 1, sizeof(solve_segment));
    s->entry_vertex = sinew_alloc(a, entries ? entries : 1, sizeof(uint32_t));
    s->entry_weight = sinew_alloc(a, entries ? entries : 1, sizeof(float));
    s->entry_sum = sinew_alloc(a, (size_t)J * 4, sizeof(double));
    if (!count || !s->block_seg || !s->seg || !s->entry_vertex || !s->entry_weight ||
        !s->entry_sum) {
        sinew_free(a, count);
        return SINEW_ERR_OUT_OF_MEMORY;
    }
    uint32_t e = 0;
    for (uint32_t b = 0; b < B; b++) {
        const uint32_t c1 = b + 1 < B ? (b + 1) * SOLVE_BLOCK : C;
        s->block_seg[b + 1] = s->block_seg[b] + block_entries(s, b * SOLVE_BLOCK, c1, count,
                                                              &s->seg[s->block_seg[b]], &e);
    }
    sinew_free(a, count);
    return SINEW_OK;
}

sinew_result solve_build_moments(sinew_solver *s, sinew_error *err)
{
    const sinew_model *rig = s->rig;
    const sinew_mesh *mesh = &rig->mesh;
    const sinew_allocator *a = &s->alloc;
    const uint32_t J = s->joint_count, V = mesh->vertex_count;
    if (J > MAX_PAIR_JOINTS)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "solve: %u joints in the skin; at most %u are supported", J,
                               MAX_PAIR_JOINTS);

    /* Constraint vertices: all weighted vertices, or an even subsample of them. */
    uint32_t weighted = 0;
    for (uint32_t v = 0; v < V; v++)
        if (vertex_weight_sum(mesh, v) > 0) weighted++;
    if (weighted == 0)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "solve: the rig's mesh has no weighted vertex");
    uint32_t C = weighted;
    if (s->opt.max_vertices > 0 && s->opt.max_vertices < C) C = s->opt.max_vertices;
    s->constraints = sinew_alloc(a, C, sizeof(uint32_t));
    if (!s->constraints)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    {
        /* k-th pick is weighted vertex floor(k * weighted / C): deterministic and even. */
        uint32_t n = 0, w = 0;
        for (uint32_t v = 0; v < V && n < C; v++) {
            if (!(vertex_weight_sum(mesh, v) > 0)) continue;
            if ((uint64_t)w * C >= (uint64_t)n * weighted) s->constraints[n++] = v;
            w++;
        }
        C = n;
    }
    s->constraint_count = C;

    /* Pairs of joints that share a vertex, numbered through a dense table. */
    int32_t *pair_of = sinew_alloc(a, (size_t)J * J, sizeof(int32_t));
    if (!pair_of) {
        sinew_free(a, pair_of);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    for (size_t i = 0; i < (size_t)J * J; i++)
        pair_of[i] = -1;
    uint32_t entries = 0, pairs = 0;
    for (uint32_t c = 0; c < C; c++) {
        const uint32_t v = s->constraints[c];
        const uint16_t *jt = &mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        const float *wt = &mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES];
        for (int p = 0; p < SINEW_MAX_INFLUENCES; p++) {
            if (!(wt[p] > 0) || jt[p] >= J) continue;
            entries++;
            for (int q = p; q < SINEW_MAX_INFLUENCES; q++) {
                if (!(wt[q] > 0) || jt[q] >= J) continue;
                uint32_t j = jt[p] < jt[q] ? jt[p] : jt[q], k = jt[p] < jt[q] ? jt[q] : jt[p];
                if (pair_of[(size_t)j * J + k] < 0) pair_of[(size_t)j * J + k] = (int32_t)pairs++;
            }
        }
    }
    if (build_segments(s, entries) != SINEW_OK) {
        sinew_free(a, pair_of);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    s->pairs = sinew_alloc(a, pairs ? pairs : 1, sizeof(solve_pair));
    s->pair_count = pairs;
    if (!s->pairs) {
        sinew_free(a, pair_of);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    for (uint32_t j = 0; j < J; j++)
        for (uint32_t k = j; k < J; k++) {
            int32_t p = pair_of[(size_t)j * J + k];
            if (p >= 0) {
                s->pairs[p].j = j;
                s->pairs[p].k = k;
            }
        }
    for (uint32_t c = 0; c < C; c++) {
        const uint32_t v = s->constraints[c];
        const uint16_t *jt = &mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        const float *wt = &mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES];
        const sinew_vec3 pos = mesh->positions[v];
        const double u[4] = {pos.x, pos.y, pos.z, 1};
        /* uu~^T is symmetric: its upper triangle (10 of 16, row by row) is summed here and
         * mirrored once every vertex is in, each entry the same sum as the full matrix's */
        double uu[10];
        for (int r = 0, i = 0; r < 4; r++)
            for (int col = r; col < 4; col++)
                uu[i++] = u[r] * u[col];
        for (int p = 0; p < SINEW_MAX_INFLUENCES; p++) {
            if (!(wt[p] > 0) || jt[p] >= J) continue;
            for (int q = p; q < SINEW_MAX_INFLUENCES; q++) {
                if (!(wt[q] > 0) || jt[q] >= J) continue;
                uint32_t j = jt[p] < jt[q] ? jt[p] : jt[q], k = jt[p] < jt[q] ? jt[q] : jt[p];
                solve_pair *pr = &s->pairs[pair_of[(size_t)j * J + k]];
                const double ww = (double)wt[p] * (double)wt[q];
                /* two slots naming the same joint still count as w_ij = sum of both */
                const double f = (q != p && jt[p] == jt[q]) ? 2 * ww : ww;
                double *t = pr->uut; /* constant offsets: the compiler pairs them */
                t[0] += f * uu[0], t[1] += f * uu[1], t[2] += f * uu[2], t[3] += f * uu[3];
                t[5] += f * uu[4], t[6] += f * uu[5], t[7] += f * uu[6];
                t[10] += f * uu[7], t[11] += f * uu[8], t[15] += f * uu[9];
            }
        }
    }
    for (uint32_t p = 0; p < pairs; p++)
        for (int r = 1; r < 4; r++)
            for (int col = 0; col < r; col++)
                s->pairs[p].uut[r * 4 + col] = s->pairs[p].uut[col * 4 + r];
    sinew_free(a, pair_of);

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

#if SOLVE_SSE2
/* (x, y) of a float vector as two doubles, from one 8-byte load. */
static inline __m128d load_xy(const sinew_vec3 *p)
{
    return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)p)));
}
#endif

/* One segment's entries added to o = vuT_j (3x4) about the reference point r: the twelve
 * sums stay in registers while the entries stream by. Both paths do the same multiplications
 * and additions in the same order (the SSE2 one two columns at a time), so they agree to the
 * bit. */
static void segment_moments(const sinew_solver *s, const solve_segment *g, const sinew_vec3 *y,
                            const double r[3], double *o)
{
    const sinew_vec3 *u = s->rig->mesh.positions;
    const uint32_t *vertex = s->entry_vertex;
    const float *weight = s->entry_weight;
#if SOLVE_SSE2
    /* rows x, y, z of the target; columns (0, 1) and (2, 3) of u~ */
    __m128d x01 = _mm_loadu_pd(&o[0]), x23 = _mm_loadu_pd(&o[2]), y01 = _mm_loadu_pd(&o[4]),
            y23 = _mm_loadu_pd(&o[6]), z01 = _mm_loadu_pd(&o[8]), z23 = _mm_loadu_pd(&o[10]);
    /* u23 = (u_z, 1) is made from `one`'s high half */
    const __m128d dxy = _mm_set_pd(r[1], r[0]), dz = _mm_set_sd(r[2]), one = _mm_set_pd(1.0, 0.0);
    for (uint32_t e = g->begin; e < g->end; e++) {
        const sinew_vec3 *p = &y[vertex[e]], *b = &u[vertex[e]];
        const __m128d w = _mm_set1_pd(weight[e]);
        const __m128d pxy = _mm_mul_pd(_mm_sub_pd(load_xy(p), dxy), w);
        const __m128d pz = _mm_mul_sd(_mm_sub_sd(_mm_cvtss_sd(dz, _mm_load_ss(&p->z)), dz), w);
        const __m128d px = _mm_unpacklo_pd(pxy, pxy), py = _mm_unpackhi_pd(pxy, pxy),
                      pzz = _mm_unpacklo_pd(pz, pz);
        const __m128d u01 = load_xy(b), u23 = _mm_cvtss_sd(one, _mm_load_ss(&b->z));
        x01 = _mm_add_pd(x01, _mm_mul_pd(px, u01));
        x23 = _mm_add_pd(x23, _mm_mul_pd(px, u23));
        y01 = _mm_add_pd(y01, _mm_mul_pd(py, u01));
        y23 = _mm_add_pd(y23, _mm_mul_pd(py, u23));
        z01 = _mm_add_pd(z01, _mm_mul_pd(pzz, u01));
        z23 = _mm_add_pd(z23, _mm_mul_pd(pzz, u23));
    }
    _mm_storeu_pd(&o[0], x01), _mm_storeu_pd(&o[2], x23);
    _mm_storeu_pd(&o[4], y01), _mm_storeu_pd(&o[6], y23);
    _mm_storeu_pd(&o[8], z01), _mm_storeu_pd(&o[10], z23);
#else
    double acc[12];
    memcpy(acc, o, sizeof acc);
    for (uint32_t e = g->begin; e < g->end; e++) {
        const sinew_vec3 p = y[vertex[e]], b = u[vertex[e]];
        const double w = weight[e];
        const double q[3] = {(p.x - r[0]) * w, (p.y - r[1]) * w, (p.z - r[2]) * w};
        const double ub[4] = {b.x, b.y, b.z, 1};
        for (int i = 0; i < 3; i++)
            for (int c = 0; c < 4; c++)
                acc[i * 4 + c] += q[i] * ub[c];
    }
    memcpy(o, acc, sizeof acc);
#endif
}

int solve_frame_moments(sinew_solver *s, const sinew_vec3 *y)
{
    const uint32_t C = s->constraint_count, J = s->joint_count;
    /* One pass over the targets, block by block: a block's targets and bind positions (see
     * SOLVE_BLOCK) stay in cache while the centroid sums and then every joint's segment read
     * them. The centroid d is known only at the end, so everything is summed about the
     * first constraint's target r (a point on the body: the sums carry the body's size, not
     * its distance from the origin) and moved to d after:
     *   sum w (y - d) u~^T = sum w (y - r) u~^T - (d - r) (sum w u~)^T,
     *   sum |y - d|^2 = sum |y - r|^2 - C |d - r|^2. */
    const sinew_vec3 y0 = y[s->constraints[0]];
    const double r[3] = {y0.x, y0.y, y0.z};
    double sx = 0, sy = 0, sz = 0, ss = 0;
#if defined(SOLVE_AVX)
    const int avx = __builtin_cpu_supports("avx");
#endif
    memset(s->vut, 0, (size_t)J * 12 * sizeof *s->vut);
    for (uint32_t b = 0; b < s->block_count; b++) {
        const uint32_t c1 = b + 1 < s->block_count ? (b + 1) * SOLVE_BLOCK : C;
        for (uint32_t c = b * SOLVE_BLOCK; c < c1; c++) {
            const sinew_vec3 p = y[s->constraints[c]];
            const double dx = p.x - r[0], dy = p.y - r[1], dz = p.z - r[2];
            sx += dx;
            sy += dy;
            sz += dz;
            ss += dx * dx + dy * dy + dz * dz;
        }
        for (uint32_t g = s->block_seg[b]; g < s->block_seg[b + 1]; g++) {
            double *o = &s->vut[(size_t)s->seg[g].joint * 12];
#if defined(SOLVE_AVX)
            if (avx) {
                solve_segment_moments_avx(s->rig->mesh.positions, y, s->entry_vertex,
                                          s->entry_weight, s->seg[g].begin, s->seg[g].end, r, o);
                continue;
            }
#endif
            segment_moments(s, &s->seg[g], y, r, o);
        }
    }
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
