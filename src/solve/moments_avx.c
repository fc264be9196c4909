/* The per-frame moments' kernels with 256-bit vectors (solve_internal.h states their
 * contract), built with -mavx on x86-64 (src/solve/CMakeLists.txt defines SINEW_SOLVE_AVX
 * there); moments.c calls them only on CPUs that have AVX. The same multiplications and
 * additions in the same order as the portable loops of moments.c, no fused multiply-add, so
 * every path gives the same bits. Other targets compile this file to nothing. */
#include "solve_internal.h"
#if defined(SOLVE_AVX)
#include <immintrin.h>
#include <string.h>

void solve_block_targets_avx(const uint32_t *constraints, uint32_t count, const sinew_vec3 *y,
                             const double r[3], double *out, double part[32])
{
    const __m256d ref = _mm256_setr_pd(r[0], r[1], r[2], 0.0);
    /* four partial sums of (d, d*d), constraint k into k mod 4 */
    __m256d sum[4], sq[4];
    for (int p = 0; p < 4; p++) {
        sum[p] = _mm256_loadu_pd(&part[8 * p]);
        sq[p] = _mm256_loadu_pd(&part[8 * p + 4]);
    }
    uint32_t k = 0;
    if (count >= 4 && constraints[count - 1] - constraints[0] == count - 1) {
        /* consecutive vertices (every weighted vertex a constraint, the usual case): four
         * targets are twelve floats in a row, converted four at a time straight into out's
         * layout, about (r0 r1 r2 r0), (r1 r2 r0 r1), (r2 r0 r1 r2). Float e = 3 k + a of a
         * quad lands in lane e mod 4 of vector e / 4: the same partial sum (k mod 4, axis a)
         * as one constraint at a time, in the same order, so the same bits. */
        const float *f = &y[constraints[0]].x;
        const __m256d r0 = _mm256_setr_pd(r[0], r[1], r[2], r[0]),
                      r1 = _mm256_setr_pd(r[1], r[2], r[0], r[1]),
                      r2 = _mm256_setr_pd(r[2], r[0], r[1], r[2]);
        double lane[2][12];
        for (int e = 0; e < 12; e++) { /* float e of a quad: constraint e / 3, axis e % 3 */
            lane[0][e] = part[8 * (e / 3) + e % 3];
            lane[1][e] = part[8 * (e / 3) + 4 + e % 3];
        }
        __m256d s0 = _mm256_loadu_pd(&lane[0][0]), s1 = _mm256_loadu_pd(&lane[0][4]),
                s2 = _mm256_loadu_pd(&lane[0][8]), q0 = _mm256_loadu_pd(&lane[1][0]),
                q1 = _mm256_loadu_pd(&lane[1][4]), q2 = _mm256_loadu_pd(&lane[1][8]);
        for (; k + 4 <= count; k += 4) {
            if (k + SOLVE_PREFETCH_TARGETS < count)
                _mm_prefetch((const char *)&f[3 * (k + SOLVE_PREFETCH_TARGETS)], _MM_HINT_T0);
            const __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(&f[3 * k])), r0);
            const __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(&f[3 * k + 4])), r1);
            const __m256d d2 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(&f[3 * k + 8])), r2);
            _mm256_storeu_pd(&out[3 * k], d0);
            _mm256_storeu_pd(&out[3 * k + 4], d1);
            _mm256_storeu_pd(&out[3 * k + 8], d2);
            s0 = _mm256_add_pd(s0, d0), s1 = _mm256_add_pd(s1, d1), s2 = _mm256_add_pd(s2, d2);
            q0 = _mm256_add_pd(q0, _mm256_mul_pd(d0, d0));
            q1 = _mm256_add_pd(q1, _mm256_mul_pd(d1, d1));
            q2 = _mm256_add_pd(q2, _mm256_mul_pd(d2, d2));
        }
        _mm256_storeu_pd(&lane[0][0], s0), _mm256_storeu_pd(&lane[0][4], s1);
        _mm256_storeu_pd(&lane[0][8], s2), _mm256_storeu_pd(&lane[1][0], q0);
        _mm256_storeu_pd(&lane[1][4], q1), _mm256_storeu_pd(&lane[1][8], q2);
        for (int e = 0; e < 12; e++) {
            part[8 * (e / 3) + e % 3] = lane[0][e];
            part[8 * (e / 3) + 4 + e % 3] = lane[1][e];
        }
        for (int p = 0; p < 4; p++) {
            sum[p] = _mm256_loadu_pd(&part[8 * p]);
            sq[p] = _mm256_loadu_pd(&part[8 * p + 4]);
        }
    }
    for (; k + 4 <= count; k += 4) {
        if (k + SOLVE_PREFETCH_TARGETS < count)
            _mm_prefetch((const char *)&y[constraints[k + SOLVE_PREFETCH_TARGETS]], _MM_HINT_T0);
        for (int p = 0; p < 4; p++) {
            const sinew_vec3 *q = &y[constraints[k + (uint32_t)p]];
            /* (x, y, z, 0) from an 8-byte and a 4-byte load: no read past the vertex
             * (_mm_loadl_epi64 takes any alignment; a float vector is 4-byte aligned) */
            const __m128 xy =
                _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)&q->x));
            const __m128 v = _mm_movelh_ps(xy, _mm_load_ss(&q->z));
            const __m256d d = _mm256_sub_pd(_mm256_cvtps_pd(v), ref);
            _mm256_storeu_pd(&out[3 * (k + (uint32_t)p)], d); /* lane 3 is the next one's x */
            sum[p] = _mm256_add_pd(sum[p], d);
            sq[p] = _mm256_add_pd(sq[p], _mm256_mul_pd(d, d));
        }
    }
    for (int p = 0; k < count; k++, p++) {
        const sinew_vec3 *q = &y[constraints[k]];
        const __m128 xy = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)&q->x));
        const __m128 v = _mm_movelh_ps(xy, _mm_load_ss(&q->z));
        const __m256d d = _mm256_sub_pd(_mm256_cvtps_pd(v), ref);
        _mm256_storeu_pd(&out[3 * k], d);
        sum[p] = _mm256_add_pd(sum[p], d);
        sq[p] = _mm256_add_pd(sq[p], _mm256_mul_pd(d, d));
    }
    for (int p = 0; p < 4; p++) {
        _mm256_storeu_pd(&part[8 * p], sum[p]);
        _mm256_storeu_pd(&part[8 * p + 4], sq[p]);
    }
}

static inline void add_rows(double *o, __m256d x, __m256d y, __m256d z)
{
    _mm256_storeu_pd(&o[0], _mm256_add_pd(_mm256_loadu_pd(&o[0]), x));
    _mm256_storeu_pd(&o[4], _mm256_add_pd(_mm256_loadu_pd(&o[4]), y));
    _mm256_storeu_pd(&o[8], _mm256_add_pd(_mm256_loadu_pd(&o[8]), z));
}

/* Joints k and k + 1 of a group of n (two = 1: joint k alone): rows x, y, z of each joint's
 * sums in named registers (an array of them went to the stack, and every item then waited on
 * a store), the four columns of u~ in each. */
static void joint_pair(const solve_group *g, const uint16_t *item_slot, const float *item_bind,
                       const double *item_weight, const double *block_target, double *vut,
                       uint32_t k, int two, const char *ahead, uint32_t ahead_lines)
{
    const uint32_t n = g->joints;
    __m256d ax = _mm256_setzero_pd(), ay = ax, az = ax, bx = ax, by = ax, bz = ax;
    const double *w = &item_weight[g->weights + k];
    for (uint32_t i = g->begin; i < g->end; i++, w += n) {
        const uint32_t e = i - g->begin;
        if (e < 4 * ahead_lines && (e & 3) == 0) /* a line of the next block every 4 items */
            _mm_prefetch(ahead + 16 * (size_t)e, _MM_HINT_T1);
        if (i + SOLVE_PREFETCH_ITEMS < g->end) {
            _mm_prefetch((const char *)&item_bind[(size_t)(i + SOLVE_PREFETCH_ITEMS) * 4],
                         _MM_HINT_T0);
            _mm_prefetch((const char *)&w[n * SOLVE_PREFETCH_ITEMS], _MM_HINT_T0);
        }
        const __m256d u = _mm256_cvtps_pd(_mm_loadu_ps(&item_bind[(size_t)i * 4]));
        const double *y = &block_target[3 * (size_t)item_slot[i]];
        const __m256d yx = _mm256_broadcast_sd(&y[0]), yy = _mm256_broadcast_sd(&y[1]),
                      yz = _mm256_broadcast_sd(&y[2]);
        const __m256d wa = _mm256_mul_pd(_mm256_broadcast_sd(&w[0]), u);
        ax = _mm256_add_pd(ax, _mm256_mul_pd(yx, wa));
        ay = _mm256_add_pd(ay, _mm256_mul_pd(yy, wa));
        az = _mm256_add_pd(az, _mm256_mul_pd(yz, wa));
        if (two) {
            const __m256d wb = _mm256_mul_pd(_mm256_broadcast_sd(&w[1]), u);
            bx = _mm256_add_pd(bx, _mm256_mul_pd(yx, wb));
            by = _mm256_add_pd(by, _mm256_mul_pd(yy, wb));
            bz = _mm256_add_pd(bz, _mm256_mul_pd(yz, wb));
        }
    }
    add_rows(&vut[(size_t)g->joint[k] * 12], ax, ay, az);
    if (two) add_rows(&vut[(size_t)g->joint[k + 1] * 12], bx, by, bz);
}

void solve_group_moments_avx(const solve_group *g, const uint16_t *item_slot,
                             const float *item_bind, const double *item_weight,
                             const double *block_target, double *vut, const char *ahead,
                             uint32_t ahead_lines)
{
    /* two joints a pass: their twelve sums, u~, the target and w u~ fill the 16 registers;
     * the first pass asks for the lines ahead */
    for (uint32_t k = 0; k < g->joints; k += 2) {
        const uint32_t lines = k == 0 ? ahead_lines : 0;
        if (k + 1 < g->joints)
            joint_pair(g, item_slot, item_bind, item_weight, block_target, vut, k, 1, ahead, lines);
        else
            joint_pair(g, item_slot, item_bind, item_weight, block_target, vut, k, 0, ahead, lines);
    }
}

/* Up to three pairs' and two joints' rig sums in one pass over the group's items (named
 * registers: 9 sums of pairs, 2 of joints, u~'s products and the bind position fill 15). */
static void rig_pass(const solve_group *g, const float *item_bind, const double *item_weight,
                     const uint32_t pair[3][2], uint32_t pairs, const uint32_t joint[2],
                     uint32_t joints, double uut[SOLVE_GROUP_PAIRS][12],
                     double sum[SOLVE_GROUP_JOINTS][4], const uint32_t pq[3])
{
    const uint32_t n = g->joints;
    const __m256d zero = _mm256_setzero_pd();
    __m256d a0 = zero, a1 = zero, a2 = zero, b0 = zero, b1 = zero, b2 = zero, c0 = zero, c1 = zero,
            c2 = zero, sa = zero, sb = zero;
    const double *w = &item_weight[g->weights];
    for (uint32_t i = g->begin; i < g->end; i++, w += n) {
        const float *b = &item_bind[(size_t)i * 4];
        /* solve_upper_uut's products in registers (through memory, each item waited for its
         * stores): u0 (u0 u1 u2 u3), (u1 u1 u1 u2) (u1 u2 u3 u2), (u2 u3 0 0) (u3 u3 0 0) */
        const __m256d u = _mm256_cvtps_pd(_mm_loadu_ps(b));
        const __m256d lo = _mm256_permute2f128_pd(u, u, 0x00),
                      hi = _mm256_permute2f128_pd(u, u, 0x11);
        const __m256d s0 = _mm256_permute_pd(lo, 0x0), s1 = _mm256_permute_pd(lo, 0xF),
                      s2 = _mm256_permute_pd(hi, 0x0);
        const __m256d t23 = _mm256_permute2f128_pd(u, u, 0x81);
        const __m256d u0 = _mm256_mul_pd(s0, u);
        const __m256d u1 =
            _mm256_mul_pd(_mm256_blend_pd(s1, s2, 0x8), _mm256_shuffle_pd(u, s2, 0x5));
        const __m256d u2 = _mm256_mul_pd(t23, _mm256_permute_pd(t23, 0xF));
        if (pairs > 0) {
            const __m256d e = _mm256_set1_pd(w[pair[0][0]] * w[pair[0][1]]);
            a0 = _mm256_add_pd(a0, _mm256_mul_pd(e, u0));
            a1 = _mm256_add_pd(a1, _mm256_mul_pd(e, u1));
            a2 = _mm256_add_pd(a2, _mm256_mul_pd(e, u2));
        }
        if (pairs > 1) {
            const __m256d e = _mm256_set1_pd(w[pair[1][0]] * w[pair[1][1]]);
            b0 = _mm256_add_pd(b0, _mm256_mul_pd(e, u0));
            b1 = _mm256_add_pd(b1, _mm256_mul_pd(e, u1));
            b2 = _mm256_add_pd(b2, _mm256_mul_pd(e, u2));
        }
        if (pairs > 2) {
            const __m256d e = _mm256_set1_pd(w[pair[2][0]] * w[pair[2][1]]);
            c0 = _mm256_add_pd(c0, _mm256_mul_pd(e, u0));
            c1 = _mm256_add_pd(c1, _mm256_mul_pd(e, u1));
            c2 = _mm256_add_pd(c2, _mm256_mul_pd(e, u2));
        }
        if (joints > 0) {
            sa = _mm256_add_pd(sa, _mm256_mul_pd(_mm256_broadcast_sd(&w[joint[0]]), u));
            if (joints > 1)
                sb = _mm256_add_pd(sb, _mm256_mul_pd(_mm256_broadcast_sd(&w[joint[1]]), u));
        }
    }
    const __m256d acc[3][3] = {{a0, a1, a2}, {b0, b1, b2}, {c0, c1, c2}};
    for (uint32_t k = 0; k < pairs; k++)
        for (int t = 0; t < 3; t++)
            _mm256_storeu_pd(&uut[pq[k]][4 * t], acc[k][t]);
    if (joints > 0) _mm256_storeu_pd(sum[joint[0]], sa);
    if (joints > 1) _mm256_storeu_pd(sum[joint[1]], sb);
}

void solve_group_rig_sums_avx(const solve_group *g, const float *item_bind,
                              const double *item_weight, double uut[SOLVE_GROUP_PAIRS][12],
                              double sum[SOLVE_GROUP_JOINTS][4])
{
    /* the pairs in solve_group_rig_sums' order, three a pass; the joints' sums two a pass */
    uint32_t all[SOLVE_GROUP_PAIRS][2], count = 0;
    for (uint32_t p = 0; p < g->joints; p++)
        for (uint32_t q = p; q < g->joints; q++, count++)
            all[count][0] = p, all[count][1] = q;
    for (uint32_t k = 0, j = 0; k < count || j < g->joints; k += 3, j += 2) {
        const uint32_t pairs = k < count ? (count - k < 3 ? count - k : 3) : 0;
        const uint32_t joints = j < g->joints ? (g->joints - j < 2 ? g->joints - j : 2) : 0;
        const uint32_t pair[3][2] = {
            {pairs > 0 ? all[k][0] : 0, pairs > 0 ? all[k][1] : 0},
            {pairs > 1 ? all[k + 1][0] : 0, pairs > 1 ? all[k + 1][1] : 0},
            {pairs > 2 ? all[k + 2][0] : 0, pairs > 2 ? all[k + 2][1] : 0}};
        const uint32_t joint[2] = {j, j + 1}, pq[3] = {k, k + 1, k + 2};
        rig_pass(g, item_bind, item_weight, pair, pairs, joint, joints, uut, sum, pq);
    }
    for (uint32_t k = count; k < SOLVE_GROUP_PAIRS; k++)
        memset(uut[k], 0, sizeof uut[k]);
    for (uint32_t j = g->joints; j < SOLVE_GROUP_JOINTS; j++)
        memset(sum[j], 0, sizeof sum[j]);
}
#else
typedef int solve_moments_avx_not_built; /* ISO C wants a declaration in every translation unit */
#endif
