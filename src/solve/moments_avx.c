/* The per-frame moments' kernels with 256-bit vectors (solve_internal.h states their
 * contract), built with -mavx on x86-64 (src/solve/CMakeLists.txt defines SINEW_SOLVE_AVX
 * there); moments.c calls them only on CPUs that have AVX. The same multiplications and
 * additions in the same order as the portable loops of moments.c, no fused multiply-add, so
 * every path gives the same bits. Other targets compile this file to nothing. */
#include "solve_internal.h"
#if defined(SOLVE_AVX)
#include <immintrin.h>

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
    for (; k + 4 <= count; k += 4) {
        if (k + SOLVE_PREFETCH_TARGETS < count)
            _mm_prefetch((const char *)&y[constraints[k + SOLVE_PREFETCH_TARGETS]], _MM_HINT_T0);
        for (int p = 0; p < 4; p++) {
            const sinew_vec3 *q = &y[constraints[k + (uint32_t)p]];
            /* (x, y, z, 0) from an 8-byte and a 4-byte load: no read past the vertex */
            const __m128 xy = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)&q->x));
            const __m128 v = _mm_movelh_ps(xy, _mm_load_ss(&q->z));
            const __m256d d = _mm256_sub_pd(_mm256_cvtps_pd(v), ref);
            _mm256_storeu_pd(&out[3 * (k + (uint32_t)p)], d); /* lane 3 is the next one's x */
            sum[p] = _mm256_add_pd(sum[p], d);
            sq[p] = _mm256_add_pd(sq[p], _mm256_mul_pd(d, d));
        }
    }
    for (int p = 0; k < count; k++, p++) {
        const sinew_vec3 *q = &y[constraints[k]];
        const __m128 xy = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)&q->x));
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

/* One group with n joints (a constant once inlined): rows x, y, z of the sums of joint k in
 * acc[k][0..2], each row the four columns of u~. */
static inline __attribute__((always_inline)) void
group_moments(const solve_group *g, const uint16_t *item_slot, const float *item_bind,
              const double *item_weight, const double *block_target, double *vut, const uint32_t n)
{
    __m256d acc[SOLVE_GROUP_JOINTS][3];
    for (uint32_t k = 0; k < n; k++)
        acc[k][0] = acc[k][1] = acc[k][2] = _mm256_setzero_pd();
    const double *w = &item_weight[g->weights];
    for (uint32_t i = g->begin; i < g->end; i++, w += n) {
        if (i + SOLVE_PREFETCH_ITEMS < g->end) {
            _mm_prefetch((const char *)&item_bind[(size_t)(i + SOLVE_PREFETCH_ITEMS) * 4],
                         _MM_HINT_T0);
            _mm_prefetch((const char *)&w[n * SOLVE_PREFETCH_ITEMS], _MM_HINT_T0);
        }
        const __m256d u = _mm256_cvtps_pd(_mm_loadu_ps(&item_bind[(size_t)i * 4]));
        const double *y = &block_target[3 * (size_t)item_slot[i]];
        const __m256d yx = _mm256_broadcast_sd(&y[0]), yy = _mm256_broadcast_sd(&y[1]),
                      yz = _mm256_broadcast_sd(&y[2]);
        for (uint32_t k = 0; k < n; k++) {
            const __m256d wu = _mm256_mul_pd(_mm256_broadcast_sd(&w[k]), u);
            acc[k][0] = _mm256_add_pd(acc[k][0], _mm256_mul_pd(yx, wu));
            acc[k][1] = _mm256_add_pd(acc[k][1], _mm256_mul_pd(yy, wu));
            acc[k][2] = _mm256_add_pd(acc[k][2], _mm256_mul_pd(yz, wu));
        }
    }
    for (uint32_t k = 0; k < n; k++) {
        double *o = &vut[(size_t)g->joint[k] * 12];
        for (int row = 0; row < 3; row++)
            _mm256_storeu_pd(&o[4 * row], _mm256_add_pd(_mm256_loadu_pd(&o[4 * row]), acc[k][row]));
    }
}

void solve_group_moments_avx(const solve_group *g, const uint16_t *item_slot,
                             const float *item_bind, const double *item_weight,
                             const double *block_target, double *vut)
{
    switch (g->joints) {
    case 1:
        group_moments(g, item_slot, item_bind, item_weight, block_target, vut, 1);
        break;
    case 2:
        group_moments(g, item_slot, item_bind, item_weight, block_target, vut, 2);
        break;
    case 3:
        group_moments(g, item_slot, item_bind, item_weight, block_target, vut, 3);
        break;
    default:
        group_moments(g, item_slot, item_bind, item_weight, block_target, vut, 4);
        break;
    }
}
#else
typedef int solve_moments_avx_not_built; /* ISO C wants a declaration in every translation unit */
#endif
