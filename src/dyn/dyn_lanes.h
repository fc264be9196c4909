/* The spring-chain step (after Sidorkin, "Animating tails the auto-rigger never gave a bone":
 * step three, and what the mouse taught us), for DYN_W chains of one rig at once. This is the
 * only copy of the step's physics: sinew_dyn_step_run runs it at DYN_W = 1 (plain floats,
 * dyn_lanes1.c), sinew_dyn_step_run_many at 4 or 8 (GNU vectors, dyn_lanes4.c / dyn_lanes8.c),
 * branches turned into per-lane selects. A template: a translation unit defines DYN_W (1, 4
 * or 8) and DYN_LANES_FN (the function's name, declared in dyn_internal.h) and includes this
 * file once.
 * Per link i, root to tip, in world space with Y up:
 *   T_i  = h_i + l_i rot(R_parent q^rest_i, b_i)          rest target from the parent's
 *                                                          current (simulated) frame
 *   p'' = w^2 (T - p) - 2 zeta w p' + g                    semi-implicit Euler
 *   q_i  = swing(H^-1 r_i, H^-1 d_i)                       bend in the common hips frame
 *   q*_i = slerp(q_i, slerp(q_{i-1}^old, q_{i+1}^old, 1/2), 1 - exp(-k dt))   coupling
 *   q^lim = slerp(I, q*, theta_max / theta) if theta > theta_max               elastic limit
 *   then the same kind of cone about the link's bind direction (bind_limit, the skin's bend)
 *   then the forward plane at the tail root and the floor (sphere/plane intersection,
 *   u = (F - h_y) / l clamped, F = g0 + rho) override the limit; the particle is put back
 *   on its rope sphere without feeding the correction into the velocity; the radial
 *   velocity, the velocity into the limit or plane and, in contact, the downward velocity
 *   are removed, and sliding decays by exp(-gamma dt).
 * The rotation of link i is the swing from its rest direction to its final direction.
 *
 * Why lanes: the per-link work of one chain is a long dependency chain (each link needs its
 * parent's rotation), so a single chain leaves most of the CPU idle, and the formulas are
 * the same for every chain of a rig. dyn_lanes4.c builds the 4-wide version for any target
 * with GNU vectors (SSE on x86, generic vectors elsewhere, e.g. WebAssembly); dyn_lanes8.c
 * the 8-wide one with AVX2, which sinew_dyn_step_run_many picks at run time when the CPU has
 * it. Every width computes the same IEEE operations per lane (no FP contraction), so neither
 * the width nor the entry point changes a bit of the result. */
#include "dyn_internal.h"
#include "dyn_math.h"

#include <string.h>

#if DYN_W != 1 && DYN_W != 4 && DYN_W != 8
#error "DYN_W must be 1, 4 or 8"
#endif
#if DYN_W > 1 && !defined(DYN_VECTORS)
#error "the 4- and 8-lane steps need GNU vector extensions (DYN_VECTORS)"
#endif
#if DYN_W == 8 && defined(__AVX__)
#define DYN_AVX 1 /* 256-bit intrinsics */
#elif DYN_W == 4 && defined(__SSE__)
#define DYN_SSE 1 /* 128-bit intrinsics */
#endif
#if defined(DYN_AVX) || defined(DYN_SSE)
#include <immintrin.h>
#endif

/* Every helper is inlined: a Q4 of 8 lanes is 128 bytes, which a call would pass through
 * memory (callgrind: Q4swing left out of line cost ~10% of the step). */
#if defined(__GNUC__)
#define LANE static inline __attribute__((always_inline))
#else
#define LANE static inline
#endif

#if DYN_W == 1
/* One lane: plain floats, ISO C. A mask is 0 or 1; AT(v, k) is the lane k of v. */
typedef float vf;
typedef int vm;
#define AT(v, k) (v)
LANE vf splat(float a)
{
    return a;
}
LANE vf vsel(vm m, vf a, vf b)
{
    return m ? a : b;
}
LANE vm vm_not(vm m)
{
    return !m;
}
LANE vf vsqrt(vf a)
{
    return sqrtf(a);
}
LANE int lane_bits(vm m)
{
    return m != 0;
}
LANE vf vabs(vf a)
{
    return fabsf(a);
}
#else
/* DYN_W lanes in GNU vectors. A mask is all ones or all zeros per lane. */
typedef float vf __attribute__((vector_size(4 * DYN_W)));
typedef int32_t vm __attribute__((vector_size(4 * DYN_W)));
#define AT(v, k) (v)[k]
LANE vf splat(float a)
{
#if defined(DYN_AVX)
    return (vf)_mm256_set1_ps(a);
#elif defined(DYN_SSE)
    return (vf)_mm_set1_ps(a);
#else
    vf r;
    for (int k = 0; k < DYN_W; k++)
        r[k] = a;
    return r;
#endif
}
LANE vf vsel(vm m, vf a, vf b)
{
    return (vf)((m & (vm)a) | (~m & (vm)b));
}
LANE vm vm_not(vm m)
{
    return ~m;
}
LANE vf vsqrt(vf a) /* IEEE sqrt: the same bits as sqrtf per lane */
{
#if defined(DYN_AVX)
    return (vf)_mm256_sqrt_ps((__m256)a);
#elif defined(DYN_SSE)
    return (vf)_mm_sqrt_ps((__m128)a);
#else
    vf r;
    for (int k = 0; k < DYN_W; k++)
        r[k] = sqrtf(a[k]);
    return r;
#endif
}
/* Whether any / every lane of a mask is set: one movemask instead of DYN_W lane extracts.
 * The lane function uses them to skip work no lane needs (rare branches: the bend limit,
 * plane, floor, antiparallel swings, degenerate normalisations); the results are the same
 * bits, the work is less: callgrind on `bench_dyn 500 20` went from 128.1M to 95.4M
 * instructions with the other changes of that pass (precomputed rest/bind directions and
 * step constants, one gather per bend, SSE transposes, frames built once). */
LANE int lane_bits(vm m)
{
#if defined(DYN_AVX)
    return _mm256_movemask_ps((__m256)m);
#elif defined(DYN_SSE)
    return _mm_movemask_ps((__m128)m);
#else
    int bits = 0;
    for (int k = 0; k < DYN_W; k++)
        bits |= (m[k] != 0) << k;
    return bits;
#endif
}
LANE vf vabs(vf a)
{
    vm mag;
    for (int k = 0; k < DYN_W; k++)
        mag[k] = 0x7fffffff;
    return (vf)((vm)a & mag);
}
#endif
typedef struct V3 { /* DYN_W vec3s, one per lane */
    vf x, y, z;
} V3;
typedef struct Q4 { /* DYN_W quaternions */
    vf x, y, z, w;
} Q4;
LANE V3 V3sel(vm m, V3 a, V3 b)
{
    return (V3){vsel(m, a.x, b.x), vsel(m, a.y, b.y), vsel(m, a.z, b.z)};
}
LANE Q4 Q4sel(vm m, Q4 a, Q4 b)
{
    return (Q4){vsel(m, a.x, b.x), vsel(m, a.y, b.y), vsel(m, a.z, b.z), vsel(m, a.w, b.w)};
}
LANE int any_lane(vm m)
{
    return lane_bits(m) != 0;
}
LANE int all_lanes(vm m)
{
    return lane_bits(m) == (1 << DYN_W) - 1;
}
LANE vf vmin(vf a, vf b)
{
    return vsel(b < a, b, a);
}
/* t clamped to [0, 1]: (t > 1 ? 1 : t), then (0 > that ? 0 : it), in min/max instructions
 * where there are (which take the second operand on NaN, as the selects do) */
LANE vf vclamp01(vf t)
{
#if defined(DYN_AVX)
    return (vf)_mm256_max_ps(_mm256_setzero_ps(), _mm256_min_ps(_mm256_set1_ps(1.0f), (__m256)t));
#elif defined(DYN_SSE)
    return (vf)_mm_max_ps(_mm_setzero_ps(), _mm_min_ps(_mm_set1_ps(1.0f), (__m128)t));
#else
    const vf zero = splat(0.0f), one = splat(1.0f);
    t = vsel(t > one, one, t);
    return vsel(zero > t, zero, t);
#endif
}
LANE V3 V3add(V3 a, V3 b)
{
    return (V3){a.x + b.x, a.y + b.y, a.z + b.z};
}
LANE V3 V3sub(V3 a, V3 b)
{
    return (V3){a.x - b.x, a.y - b.y, a.z - b.z};
}
LANE V3 V3scale(V3 a, vf s)
{
    return (V3){a.x * s, a.y * s, a.z * s};
}
LANE V3 V3madd(V3 a, V3 b, vf s)
{
    return (V3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s};
}
LANE vf V3dot(V3 a, V3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
LANE V3 V3cross(V3 a, V3 b)
{
    return (V3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
LANE V3 V3splat(sinew_vec3 a)
{
    return (V3){splat(a.x), splat(a.y), splat(a.z)};
}
LANE V3 V3normalize_or(V3 a, V3 fallback)
{
    vf len = vsqrt(V3dot(a, a));
    vm ok = len > splat(1e-12f);
    if (all_lanes(ok)) return V3scale(a, splat(1.0f) / len); /* the usual case: no selects */
    vf inv = splat(1.0f) / vsel(ok, len, splat(1.0f));
    return V3sel(ok, V3scale(a, inv), fallback);
}
LANE Q4 Q4normalize(Q4 q)
{
    vf len = vsqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    vm ok = len > splat(1e-12f);
    if (all_lanes(ok)) { /* the usual case: no selects */
        vf s = splat(1.0f) / len;
        return (Q4){q.x * s, q.y * s, q.z * s, q.w * s};
    }
    vf s = splat(1.0f) / vsel(ok, len, splat(1.0f));
    Q4 n = {q.x * s, q.y * s, q.z * s, q.w * s};
    return Q4sel(ok, n, (Q4){splat(0), splat(0), splat(0), splat(1)});
}
LANE Q4 Q4mul(Q4 a, Q4 b)
{
    return (Q4){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
LANE Q4 Q4conj(Q4 q)
{
    return (Q4){-q.x, -q.y, -q.z, q.w};
}
LANE vf Q4dot(Q4 a, Q4 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
LANE V3 Q4rotate(Q4 q, V3 v)
{
    V3 u = {q.x, q.y, q.z};
    V3 t = V3scale(V3cross(u, v), splat(2.0f));
    return V3add(V3add(v, V3scale(t, q.w)), V3cross(u, t));
}
LANE Q4 Q4swing(V3 a, V3 b)
{
    vf d = V3dot(a, b);
    vm opposite = d < splat(-0.999999f);
    V3 c = V3cross(a, b);
    Q4 q = Q4normalize((Q4){c.x, c.y, c.z, splat(1.0f) + d});
    /* antiparallel: pi about an axis perpendicular to a. Rare, so only built when a lane
     * needs it (three swings per link). */
    if (!any_lane(opposite)) return q;
    V3 axis = V3cross(V3splat(sinew_vec3_make(1, 0, 0)), a);
    V3 axis2 = V3cross(V3splat(sinew_vec3_make(0, 1, 0)), a);
    axis = V3sel(V3dot(axis, axis) < splat(1e-8f), axis2, axis);
    axis = V3normalize_or(axis, V3splat(sinew_vec3_make(0, 0, 1)));
    return Q4sel(opposite, (Q4){axis.x, axis.y, axis.z, splat(0)}, q);
}
LANE Q4 Q4mid(Q4 a, Q4 b)
{
    vm flip = Q4dot(a, b) < splat(0.0f);
    vf s = vsel(flip, splat(-1.0f), splat(1.0f));
    return Q4normalize((Q4){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s, a.w + b.w * s});
}
/* slerp(a, b, t) for unit quaternions by polynomial-corrected nlerp (A. Kapoulkine,
 * "Approximating slerp", 2015): the interpolation parameter is bent so that nlerp follows
 * slerp's constant angular speed, to about 1e-4 of the angle, with no trigonometry. Used in
 * the per-link coupling, where it is the cost that matters. */
LANE Q4 Q4slerp_fast(Q4 a, Q4 b, float t)
{
    vf c = Q4dot(a, b), d = vabs(c);
    vf A = splat(1.0904f) + d * (splat(-3.2452f) + d * (splat(3.55645f) - d * splat(1.43519f)));
    vf B = splat(0.848013f) + d * (splat(-1.06021f) + d * splat(0.215638f));
    vf k = A * splat((t - 0.5f) * (t - 0.5f)) + B;
    vf ot = splat(t) + splat(t * (t - 0.5f) * (t - 1.0f)) * k;
    vf ka = splat(1.0f) - ot, kb = vsel(c < splat(0.0f), -ot, ot);
    return Q4normalize(
        (Q4){a.x * ka + b.x * kb, a.y * ka + b.y * kb, a.z * ka + b.z * kb, a.w * ka + b.w * kb});
}
typedef struct R3 {
    V3 r0, r1, r2;
} R3;
LANE V3 R3apply(const R3 *m, V3 v)
{
    return (V3){V3dot(m->r0, v), V3dot(m->r1, v), V3dot(m->r2, v)};
}
LANE V3 R3apply_inverse(const R3 *m, V3 v)
{
    return V3add(V3add(V3scale(m->r0, v.x), V3scale(m->r1, v.y)), V3scale(m->r2, v.z));
}
/* the unit vector nearest to d with component u along unit n (on_circle, per lane) */
LANE V3 V3on_circle(V3 d, V3 n, vf u, V3 fallback)
{
    u = vsel(u > splat(1.0f), splat(1.0f), vsel(u < splat(-1.0f), splat(-1.0f), u));
    V3 t = V3madd(d, n, -V3dot(d, n));
    const vf tl = vsqrt(V3dot(t, t));
    const vm ok = tl > splat(1e-6f);
    if (all_lanes(ok)) {
        /* the usual case, d not along n: what the selects below give, V3normalize_or's
         * length being tl, without the fallbacks' two square roots (the capsules' contact
         * calls this up to three times per link; bench_dyn 200 chains x 6000 frames, five
         * runs interleaved: capsules +5.1..5.2 -> +4.8..5.1 ns per joint-step beside none) */
        t = V3scale(t, splat(1.0f) / tl);
    } else {
        V3 tf = V3madd(fallback, n, -V3dot(fallback, n));
        V3 any = V3cross(n, V3sel(vabs(n.x) < splat(0.9f), V3splat(sinew_vec3_make(1, 0, 0)),
                                  V3splat(sinew_vec3_make(0, 1, 0))));
        vf fl = vsqrt(V3dot(tf, tf));
        t = V3sel(ok, t, V3sel(fl > splat(1e-6f), tf, any));
        t = V3normalize_or(t, any);
    }
    vf s = vsqrt(vsel(splat(1.0f) - u * u > splat(0.0f), splat(1.0f) - u * u, splat(0.0f)));
    return V3add(V3scale(t, s), V3scale(n, u));
}

/* Quaternions are 4 floats: a 4x4 transpose of whole-quaternion loads/stores replaces 16
 * lane inserts or extracts per four lanes (bits unchanged). */
#if defined(DYN_AVX) || defined(DYN_SSE)
LANE void load4x4(sinew_quat *const *a, uint32_t i, __m128 r[4])
{
    for (int k = 0; k < 4; k++)
        r[k] = _mm_loadu_ps(&a[k][i].x);
    _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
}
LANE void store4x4(sinew_quat *const *a, uint32_t i, __m128 r0, __m128 r1, __m128 r2, __m128 r3)
{
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(&a[0][i].x, r0);
    _mm_storeu_ps(&a[1][i].x, r1);
    _mm_storeu_ps(&a[2][i].x, r2);
    _mm_storeu_ps(&a[3][i].x, r3);
}
#endif
LANE Q4 gather4(sinew_quat *const *a, uint32_t i)
{
#if defined(DYN_AVX)
    __m128 lo[4], hi[4];
    load4x4(a, i, lo);
    load4x4(a + 4, i, hi);
    return (Q4){(vf)_mm256_set_m128(hi[0], lo[0]), (vf)_mm256_set_m128(hi[1], lo[1]),
                (vf)_mm256_set_m128(hi[2], lo[2]), (vf)_mm256_set_m128(hi[3], lo[3])};
#elif defined(DYN_SSE)
    __m128 r[4];
    load4x4(a, i, r);
    return (Q4){(vf)r[0], (vf)r[1], (vf)r[2], (vf)r[3]};
#else
    Q4 q;
    for (int k = 0; k < DYN_W; k++) {
        AT(q.x, k) = a[k][i].x;
        AT(q.y, k) = a[k][i].y;
        AT(q.z, k) = a[k][i].z;
        AT(q.w, k) = a[k][i].w;
    }
    return q;
#endif
}
LANE void scatter4(sinew_quat *const *a, uint32_t i, Q4 q)
{
#if defined(DYN_AVX)
    store4x4(a, i, _mm256_castps256_ps128((__m256)q.x), _mm256_castps256_ps128((__m256)q.y),
             _mm256_castps256_ps128((__m256)q.z), _mm256_castps256_ps128((__m256)q.w));
    store4x4(a + 4, i, _mm256_extractf128_ps((__m256)q.x, 1), _mm256_extractf128_ps((__m256)q.y, 1),
             _mm256_extractf128_ps((__m256)q.z, 1), _mm256_extractf128_ps((__m256)q.w, 1));
#elif defined(DYN_SSE)
    store4x4(a, i, (__m128)q.x, (__m128)q.y, (__m128)q.z, (__m128)q.w);
#else
    for (int k = 0; k < DYN_W; k++)
        a[k][i] = sinew_quat_make(AT(q.x, k), AT(q.y, k), AT(q.z, k), AT(q.w, k));
#endif
}
/* The particles: p[i] and v[i] of every lane. A vec3 is 3 floats, so the transposes above
 * move 4: the 4th is the next float of the state (p[i + 1].x, v[i + 1].x, or for the last
 * link v[0].x and bend[0].x, which the state layout puts right after p and v), read at the
 * gather, carried in `next` and written back unchanged at the scatter. Nothing writes those
 * floats in between (lanes have distinct states), so the trick is exact, and it replaces 24
 * lane inserts or extracts per four lanes. */
LANE V3 gather3(sinew_vec3 *const *a, uint32_t i, vf *next)
{
#if defined(DYN_AVX) || defined(DYN_SSE)
    sinew_quat *at[DYN_W];
    for (int k = 0; k < DYN_W; k++)
        at[k] = (sinew_quat *)(void *)&a[k][i];
    Q4 t = gather4(at, 0);
    *next = t.w;
    return (V3){t.x, t.y, t.z};
#else
    V3 r = {splat(0.0f), splat(0.0f), splat(0.0f)};
    for (int k = 0; k < DYN_W; k++) {
        AT(r.x, k) = a[k][i].x;
        AT(r.y, k) = a[k][i].y;
        AT(r.z, k) = a[k][i].z;
    }
    *next = splat(0.0f);
    return r;
#endif
}
LANE void scatter3(sinew_vec3 *const *a, uint32_t i, V3 v, vf next)
{
#if defined(DYN_AVX) || defined(DYN_SSE)
    sinew_quat *at[DYN_W];
    for (int k = 0; k < DYN_W; k++)
        at[k] = (sinew_quat *)(void *)&a[k][i];
    scatter4(at, 0, (Q4){v.x, v.y, v.z, next});
#else
    (void)next;
    for (int k = 0; k < DYN_W; k++)
        a[k][i] = sinew_vec3_make(AT(v.x, k), AT(v.y, k), AT(v.z, k));
#endif
}
LANE Q4 Q4splat(sinew_quat q)
{
    return (Q4){splat(q.x), splat(q.y), splat(q.z), splat(q.w)};
}

/* One substep of length h (0: constraints only) for DYN_W chains of one rig: lane k's
 * particles, velocities and bends are the 10 n floats at chain[k] (a state's committed
 * arrays or its scratch copy, same layout), its parent at frame f[k], its idle sway sway[k]
 * when sway is not NULL, its drivers' turn of the root's rest drive[k] when drive is not
 * NULL; local rotations into out[k] when out is not NULL; the memory of the next batch's
 * jobs asked for, a few per link, when ahead is not NULL. */
void DYN_LANES_FN(const sinew_dyn_rig *rig, float *const *chain, const dyn_frame *f,
                  const sinew_quat *sway, const sinew_quat *drive, const dyn_capsule_pose *caps,
                  float h, int floor_on, float floor_y, sinew_quat *const *out,
                  const dyn_ahead *ahead)
{
    const sinew_dyn_params *prm = &rig->params;
    const uint32_t n = rig->joint_count;
    sinew_vec3 *p[DYN_W], *v[DYN_W];
    sinew_quat *bend[DYN_W];
    R3 Hm;
    V3 fwd, back_h, head;
    vf scale;
    for (int k = 0; k < DYN_W; k++) {
        p[k] = (sinew_vec3 *)(void *)chain[k];
        v[k] = (sinew_vec3 *)(void *)(chain[k] + 3u * n);
        bend[k] = (sinew_quat *)(void *)(chain[k] + 6u * n);
        sinew_quat H = sinew_quat_normalize(sinew_quat_mul(f[k].rotation, rig->parent_bind_inv));
        rot3 m = rot3_from_quat(H);
        AT(Hm.r0.x, k) = m.r0.x, AT(Hm.r0.y, k) = m.r0.y, AT(Hm.r0.z, k) = m.r0.z;
        AT(Hm.r1.x, k) = m.r1.x, AT(Hm.r1.y, k) = m.r1.y, AT(Hm.r1.z, k) = m.r1.z;
        AT(Hm.r2.x, k) = m.r2.x, AT(Hm.r2.y, k) = m.r2.y, AT(Hm.r2.z, k) = m.r2.z;
        sinew_vec3 fw = sinew_quat_rotate(H, sinew_vec3_make(0, 0, 1));
        sinew_vec3 bh =
            sinew_vec3_normalize_or(sinew_vec3_make(-fw.x, 0, -fw.z), sinew_vec3_make(0, 0, -1));
        sinew_vec3 hd = sinew_vec3_madd(
            f[k].position, sinew_quat_rotate(f[k].rotation, rig->links[0].head), f[k].scale);
        AT(fwd.x, k) = fw.x, AT(fwd.y, k) = fw.y, AT(fwd.z, k) = fw.z;
        AT(back_h.x, k) = bh.x, AT(back_h.y, k) = bh.y, AT(back_h.z, k) = bh.z;
        AT(head.x, k) = hd.x, AT(head.y, k) = hd.y, AT(head.z, k) = hd.z;
        AT(scale, k) = f[k].scale;
    }
    /* The capsules of every lane at this substep: an end, the axis and 1 / its squared
     * length (0 for a sphere), gathered once for all links. */
    const uint32_t nc = caps ? rig->capsule_count : 0u;
    V3 cap_a[SINEW_DYN_MAX_CAPSULES], cap_ab[SINEW_DYN_MAX_CAPSULES];
    vf cap_inv[SINEW_DYN_MAX_CAPSULES];
    const vf pscale = scale, pscale2 = scale * scale; /* parent units to world: the contact
                                                          radii's unit */
    for (uint32_t c = 0; c < nc; c++) {
        /* gather3 reads a fourth float after each end: b.x after a, the next pose's a.x (or
         * the padding pose the callers' arrays end with) after b */
        sinew_vec3 *ends_a[DYN_W], *ends_b[DYN_W];
        for (int k = 0; k < DYN_W; k++) {
            dyn_capsule_pose *cp = (dyn_capsule_pose *)(uintptr_t)&caps[(size_t)k * nc + c];
            ends_a[k] = &cp->a;
            ends_b[k] = &cp->b;
        }
        vf unused;
        cap_a[c] = gather3(ends_a, 0, &unused);
        cap_ab[c] = V3sub(gather3(ends_b, 0, &unused), cap_a[c]);
        const vf ab2 = V3dot(cap_ab[c], cap_ab[c]);
        const vm line = ab2 > splat(1e-30f);
        cap_inv[c] = vsel(line, splat(1.0f) / vsel(line, ab2, splat(1.0f)), splat(0.0f));
    }
    /* the full step h = max_step has its decays precomputed in the rig (the same bits) */
    const int full = h == prm->max_step;
    const float alpha =
        (n > 1 && !(prm->disable & SINEW_DYN_NO_COUPLING) && h > 0.0f)
            ? (full ? rig->step_alpha
                    : 1.0f - (float)dyn_exp_neg(-(double)prm->coupling_rate * (double)h))
            : 0.0f;
    const int limit_on = !(prm->disable & SINEW_DYN_NO_LIMIT);
    const int plane_on = !(prm->disable & SINEW_DYN_NO_FORWARD_PLANE);
    const vf decay =
        splat(full ? rig->step_decay : (float)dyn_exp_neg((double)(-prm->contact_damping * h)));
    const vf gy = splat(-prm->gravity), hv = splat(h), zero = splat(0.0f), one = splat(1.0f);
    const vf inv_h = splat(h > 0.0f ? 1.0f / h : 0.0f); /* the coupling's velocity cap, h > 0 */
    const V3 ey = V3splat(sinew_vec3_make(0, 1, 0));
    const V3 root = head;
    /* Orientations are tracked in the hips frame (H^-1 world): there the chain parent's
     * frame is its constant bind rotation, bends are compared as the article asks, and local
     * rotations come out without H. Positions stay in world (gravity, floor). */
    Q4 ph = Q4splat(sinew_quat_conjugate(rig->parent_bind_inv)); /* parent, hips frame */
    Q4 prev_old = Q4splat(sinew_quat_identity()); /* q_{i-1}^old; the hips' support at i=0 */
    const Q4 ident = prev_old;
    const vm none = {0}, all = vm_not(none);
    /* the snapshot of link i, gathered once: link i-1 already read it as its next neighbour */
    Q4 cur_old = gather4(bend, 0);
    /* Idle sway: every link's rest frame turned by the lane's sway in the hips frame, about
     * the link's head (the limits and coupling then count from the moving rest). */
    Q4 turn = ident;
    for (int k = 0; sway && k < DYN_W; k++) {
        AT(turn.x, k) = sway[k].x, AT(turn.y, k) = sway[k].y;
        AT(turn.z, k) = sway[k].z, AT(turn.w, k) = sway[k].w;
    }
    /* Rest drivers: the root link's rest frame (and its bind cone) turned by the lane's
     * drive in the hips frame, about the root's head; every link below hangs from it. */
    Q4 driven = ident;
    for (int k = 0; drive && k < DYN_W; k++) {
        AT(driven.x, k) = drive[k].x, AT(driven.y, k) = drive[k].y;
        AT(driven.z, k) = drive[k].z, AT(driven.w, k) = drive[k].w;
    }

    for (uint32_t i = 0; i < n; i++) {
        /* The next batch's jobs, spread over the links (link i asks for jobs i m / n to
         * (i + 1) m / n - 1 of m). Asked for all at once before the batch, a batch's ~130
         * lines with capsules (8 chains of 8 joints, 4 capsules) wait for the few misses
         * the core can have in flight, and the prefetch loop waits with them instead of the
         * step computing while they arrive. bench_dyn 10,000 chains x 120 frames on a
         * 2-core EPYC, perf: with all at once, the capsules' end rows still missed when
         * capsules_now read them (~7 ns per joint-step) and the prefetch loop stalled; six
         * runs interleaved with that build, the machine shared: capsules +21.4..+24.5 ->
         * +7.0..+8.6 ns per joint-step beside none, none 49.3-56.9 -> 39.8-44.9 ns (the
         * same bits) */
        for (uint32_t k = ahead ? i * ahead->count / n : 0u;
             ahead && k < (i + 1u) * ahead->count / n; k++)
            dyn_prefetch_job(&ahead->jobs[k]);
        const dyn_link *L = &rig->links[i];
        scale = scale * splat(L->own_scale);
        const vf len = scale * splat(L->length);
        Q4 rrest = Q4mul(ph, Q4splat(L->rest));     /* rest frame, hips space */
        V3 rh = Q4rotate(ph, V3splat(L->rest_dir)); /* rest direction: rot(ph rest, dir) */
        if (drive && i == 0) { /* skipped without drivers: the bits are the step's without */
            rrest = Q4mul(driven, rrest);
            rh = Q4rotate(driven, rh);
        }
        if (sway) { /* skipped without idle sway: the bits are the step's without it */
            rrest = Q4mul(turn, rrest);
            rh = Q4rotate(turn, rh);
        }
        const V3 rdir = R3apply(&Hm, rh); /* ... and world */
        vf p_next, v_next;
        V3 pi = gather3(p, i, &p_next), vi = gather3(v, i, &v_next);

        /* Damped spring toward the rest target, semi-implicit Euler. */
        V3 target = V3madd(head, rdir, len);
        V3 acc = V3sub(V3scale(V3sub(target, pi), splat(L->omega2)),
                       V3scale(vi, splat(L->two_zeta_omega)));
        acc.y += gy;
        vi = V3madd(vi, acc, hv);
        pi = V3madd(pi, vi, hv);
        V3 d = V3normalize_or(V3sub(pi, head), rdir);

        /* Bend in the common hips frame, coupled to the neighbours' snapshots. */
        Q4 qb = Q4swing(rh, R3apply_inverse(&Hm, d));
        const Q4 old = cur_old;
        const Q4 next_old = i + 1 < n ? gather4(bend, i + 1) : old; /* not yet overwritten */
        if (alpha > 0.0f) {
            Q4 target_q;
            if (i == 0)
                target_q = Q4mid(ident, next_old);
            else if (i + 1 == n)
                target_q = prev_old;
            else
                target_q = Q4mid(prev_old, next_old);
            qb = Q4slerp_fast(qb, target_q, alpha);
        }
        prev_old = old;
        cur_old = next_old;

        /* Elastic bend limit: slerp(I, q, theta_max / theta) keeps the axis, sets the angle. */
        vm limited = none;
        V3 dc = d; /* where the particle pushes: the velocity toward it is removed when
                      coupling or the limit holds the link elsewhere */
        if (limit_on) limited = vabs(qb.w) < splat(rig->cos_half_limit);
        if (any_lane(limited)) { /* built only when needed */
            vf sgn = vsel(qb.w < zero, splat(-1.0f), one);
            V3 axis = V3normalize_or((V3){qb.x * sgn, qb.y * sgn, qb.z * sgn},
                                     V3splat(sinew_vec3_make(1, 0, 0)));
            dc = V3sel(limited, R3apply(&Hm, Q4rotate(qb, rh)), d);
            Q4 ql = {axis.x * splat(rig->sin_half_limit), axis.y * splat(rig->sin_half_limit),
                     axis.z * splat(rig->sin_half_limit), splat(rig->cos_half_limit)};
            qb = Q4sel(limited, ql, qb);
        }
        V3 dfin_h = Q4rotate(qb, rh);
        /* Bind cone: the bend from BIND (what deforms the skin) is kept within bind_limit,
         * along the same great circle, on top of the limit from the rest direction above. */
        if (limit_on) {
            V3 bh = Q4rotate(ph, V3splat(L->bind_dir));
            if (drive && i == 0) bh = Q4rotate(driven, bh);
            /* outside the cone when the angle from bind is over it: a dot product decides,
             * the swing is built only then */
            vm over = V3dot(bh, dfin_h) < splat(L->cos_bind);
            if (any_lane(over)) {
                Q4 qk = Q4swing(bh, dfin_h);
                vf sgn = vsel(qk.w < zero, splat(-1.0f), one);
                V3 axis = V3normalize_or((V3){qk.x * sgn, qk.y * sgn, qk.z * sgn},
                                         V3splat(sinew_vec3_make(1, 0, 0)));
                Q4 qc = {axis.x * splat(L->sin_half_bind), axis.y * splat(L->sin_half_bind),
                         axis.z * splat(L->sin_half_bind), splat(L->cos_half_bind)};
                dfin_h = V3sel(over, Q4rotate(qc, bh), dfin_h);
                limited = limited | over;
            }
        }
        V3 dfin = R3apply(&Hm, dfin_h);

        /* Forward plane through the tail root: (h + l d - root) . fwd <= 0. */
        vm plane_hit = none;
        if (plane_on) {
            vf umax = -V3dot(V3sub(head, root), fwd) / len;
            plane_hit = V3dot(dfin, fwd) > umax;
            if (any_lane(plane_hit))
                dfin = V3sel(plane_hit, V3on_circle(dfin, fwd, umax, rdir), dfin);
        }
        /* Body capsules: a particle inside capsule c (nearer its axis than the link's
         * contact radius R) goes to the nearest direction on its rope sphere outside the
         * sphere of radius R about the axis point q nearest to it: with e = q - head, the
         * directions d with d . e/|e| <= (l^2 + |e|^2 - R^2) / (2 l |e|), the circle the two
         * spheres meet in, the forward plane's kind of constraint. Moving the particle moves
         * q, so the capsules are swept again while the last sweep moved one, three sweeps at
         * most (a tail whipped into a post, tests/dyn/test_dyn_capsule.c: deepest 0.9% of
         * the radius after two sweeps, 0.005% after three, 0 after four; a sweep after the
         * first runs only when the one before moved a lane). A link whose head is inside the
         * capsule itself (its radius without the link's skin: a tail's root in the torso)
         * cannot leave it along its rope and ignores it; a head outside the capsule but
         * within R (the root ring of a tail against the hip) turns the link straight away
         * from q when no direction clears R (u clamped to -1). Contact overrides the bend
         * limits, as the floor's does. */
        vm touch = none;
        V3 touch_n = ey; /* outward normal of the last capsule touched, per lane */
        int sweeps = nc ? 3 : 0;
        if (sweeps) {
            /* The first sweep's tests at the tip as it is, for all capsules with one branch:
             * most links touch nothing, and the sweeps below, which start with the same
             * tests, run only when a lane is inside one (the same bits; bench_dyn 10,000
             * chains, four runs each: capsules ~+7.0 -> ~+6.5 ns per joint-step beside none;
             * there a lane is inside a capsule at ~10% of links) */
            const V3 tip = V3madd(head, dfin, len);
            vm near = none;
            for (uint32_t c = 0; c < nc; c++) {
                const vf R2 = pscale2 * splat(rig->contact2[i][c]);
                const vf t = vclamp01(V3dot(V3sub(tip, cap_a[c]), cap_ab[c]) * cap_inv[c]);
                const V3 off = V3sub(tip, V3madd(cap_a[c], cap_ab[c], t));
                near = near | (V3dot(off, off) < R2);
            }
            if (!any_lane(near)) sweeps = 0;
        }
        for (int sweep = 0; sweep < sweeps; sweep++) {
            vm moved = none;
            V3 tip = V3madd(head, dfin, len);
            for (uint32_t c = 0; c < nc; c++) {
                const vf R2 = pscale2 * splat(rig->contact2[i][c]);
                const vf t = vclamp01(V3dot(V3sub(tip, cap_a[c]), cap_ab[c]) * cap_inv[c]);
                const V3 q = V3madd(cap_a[c], cap_ab[c], t);
                const V3 off = V3sub(tip, q);
                vm in = V3dot(off, off) < R2;
                if (!any_lane(in)) continue;
                const V3 e = V3sub(q, head);
                const vf e2 = V3dot(e, e), rb = pscale * splat(rig->capsule_radius[c]);
                in = in & (e2 > rb * rb);
                if (!any_lane(in)) continue;
                const vf el = vsqrt(vsel(in, e2, one));
                const V3 n_in = V3scale(e, one / el);
                const vf umax = (len * len + e2 - R2) / (splat(2.0f) * len * el);
                const V3 cand = V3on_circle(dfin, n_in, umax, rdir);
                dfin = V3sel(in, cand, dfin);
                tip = V3madd(head, dfin, len);
                touch_n =
                    V3sel(in, V3normalize_or(V3sub(tip, q), V3scale(n_in, splat(-1.0f))), touch_n);
                moved = moved | in;
            }
            touch = touch | moved;
            if (!any_lane(moved)) break;
        }
        /* Floor: the sphere/plane intersection, u clamped (never stretch the bone or lift
         * the body); contact overrides the bend limit. */
        vm contact = none;
        if (floor_on) {
            contact = head.y + len * dfin.y < splat(floor_y);
            if (any_lane(contact)) {
                vf u = (splat(floor_y) - head.y) / len;
                u = vsel(u > one, one, vsel(u < -one, -one, u));
                V3 t = {dfin.x, zero, dfin.z};
                V3 tr = {rdir.x, zero, rdir.z};
                t = V3sel(V3dot(t, t) < splat(1e-12f), tr, t);
                t = V3sel(V3dot(t, t) < splat(1e-12f), back_h, t);
                t = V3normalize_or(t, back_h);
                vf s = vsqrt(one - u * u);
                V3 cand = V3madd(V3scale(t, s), ey, u);
                if (plane_on) { /* keep the allowed (rear) part of the contact circle */
                    vm bad = V3dot(V3madd(V3sub(head, root), cand, len), fwd) > zero;
                    vf tf = V3dot(t, back_h);
                    vm fix = bad & (tf < zero);
                    V3 t2 = V3normalize_or(V3madd(t, back_h, -tf), back_h);
                    t = V3sel(fix, t2, t);
                    cand = V3sel(bad, V3madd(V3scale(t, s), ey, u), cand);
                }
                dfin = V3sel(contact, cand, dfin);
            }
        }
        if (any_lane(plane_hit | contact | touch)) /* skipped when no lane moved dfin */
            dfin_h = V3sel(plane_hit | contact | touch, R3apply_inverse(&Hm, dfin), dfin_h);
        pi = V3madd(head, dfin, len);

        /* Velocity: the rope drops its radial part (the correction is never fed back). */
        V3 vn = V3madd(vi, dfin, -V3dot(vi, dfin));
        if (limit_on || alpha > 0.0f) {
            /* The push toward where the particle wanted to be, across the rope: w, the part
             * of dc across dfin; c |w|^2 is the velocity along w. Against the bend limit it
             * all goes, as in the article. Against coupling only what would undo this
             * substep's correction goes (len |w| / h along w / |w|, so c <= len / h):
             * removing more makes the chain stick like dry friction, with no single cycle
             * for a looping clip to settle on. */
            vm use = (alpha > 0.0f ? all : limited) & vm_not(contact | touch);
            V3 w = V3madd(dc, dfin, -V3dot(dc, dfin));
            vf ww = V3dot(w, w), into = V3dot(vn, w);
            vm rm = use & (ww > splat(1e-18f)) & (into > zero);
            if (any_lane(rm)) {
                vf c = into / vsel(rm, ww, one);
                if (alpha > 0.0f) c = vsel(limited, c, vmin(c, len * inv_h)); /* alpha: h > 0 */
                vn = V3sel(rm, V3madd(vn, w, -c), vn);
            }
        }
        if (any_lane(plane_hit)) {
            vf into = V3dot(vn, fwd);
            vn = V3sel(plane_hit & (into > zero), V3madd(vn, fwd, -into), vn);
        }
        if (any_lane(touch)) {
            /* Velocity into the capsule goes: its normal's part across the rope. */
            const V3 nt = V3madd(touch_n, dfin, -V3dot(touch_n, dfin));
            const vf nn = V3dot(nt, nt), into = V3dot(vn, nt);
            const vm rm = touch & (nn > splat(1e-12f)) & (into < zero);
            if (any_lane(rm)) vn = V3sel(rm, V3madd(vn, nt, -into / vsel(rm, nn, one)), vn);
        }
        if (any_lane(contact)) {
            /* Downward contact velocity goes: on the rope sphere "down" is along the
             * meridian through dfin, so remove that part before the world-y clamp (else the
             * projection keeps killing a ghost velocity that never decays). */
            V3 up = V3madd(ey, dfin, -dfin.y);
            vf uu = V3dot(up, up), down = V3dot(vn, up);
            vm rm = contact & (uu > splat(1e-12f)) & (down < zero);
            V3 c1 = V3sel(rm, V3madd(vn, up, -down / vsel(rm, uu, one)), vn);
            c1.y = vsel(c1.y < zero, zero, c1.y);
            c1 = V3scale(c1, decay);
            vn = V3sel(contact, c1, vn);
        }
        scatter3(p, i, pi, p_next);
        scatter3(v, i, vn, v_next);

        /* The link's rotation: the swing from its rest direction to where it points (twist
         * free, as in the article), kept as the bend snapshot for the neighbours' next
         * coupling. */
        Q4 sw = Q4swing(rh, dfin_h);
        scatter4(bend, i, sw);
        Q4 g = Q4mul(sw, rrest); /* unit to rounding; ph restarts each substep */
        if (out) scatter4(out, i, Q4mul(Q4conj(ph), g)); /* unit: both are */
        ph = g;
        head = pi; /* the next link's head is this link's tip */
    }
}
