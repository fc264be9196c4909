/* The per-frame moments of one segment with 256-bit vectors (a row of four sums per
 * instruction), built with -mavx on x86-64 (src/solve/CMakeLists.txt defines SINEW_SOLVE_AVX
 * there); moments.c calls it only on CPUs that have AVX. The same multiplications and
 * additions in the same order as its SSE2 and plain loops, no fused multiply-add, so every
 * path gives the same bits. Other targets compile this file to nothing. */
#include "solve_internal.h"
#if defined(SOLVE_AVX)
#include <immintrin.h>

void solve_segment_moments_avx(const sinew_vec3 *u, const sinew_vec3 *y, const uint32_t *vertex,
                               const float *weight, uint32_t begin, uint32_t end, const double r[3],
                               double *o)
{
    /* rows x, y, z of the target times the four columns of u~ */
    __m256d ax = _mm256_loadu_pd(&o[0]), ay = _mm256_loadu_pd(&o[4]), az = _mm256_loadu_pd(&o[8]);
    for (uint32_t e = begin; e < end; e++) {
        const sinew_vec3 p = y[vertex[e]], b = u[vertex[e]];
        const double w = weight[e];
        const double px = (p.x - r[0]) * w, py = (p.y - r[1]) * w, pz = (p.z - r[2]) * w;
        const __m256d ub = _mm256_cvtps_pd(_mm_setr_ps(b.x, b.y, b.z, 1.0f));
        ax = _mm256_add_pd(ax, _mm256_mul_pd(_mm256_set1_pd(px), ub));
        ay = _mm256_add_pd(ay, _mm256_mul_pd(_mm256_set1_pd(py), ub));
        az = _mm256_add_pd(az, _mm256_mul_pd(_mm256_set1_pd(pz), ub));
    }
    _mm256_storeu_pd(&o[0], ax);
    _mm256_storeu_pd(&o[4], ay);
    _mm256_storeu_pd(&o[8], az);
}
#else
typedef int solve_moments_avx_not_built; /* ISO C wants a declaration in every translation unit */
#endif
