/* sinew math: vec3, quat, mat4 and rigid transforms, by value, header-only.
 * Column-major 4x4 (m[col * 4 + row]); quaternions x, y, z, w; right-handed; Y up.
 * Everything here is allocation-free and safe for per-frame code. */
#ifndef SINEW_MATH_H
#define SINEW_MATH_H

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SINEW_PI 3.14159265358979323846

typedef struct sinew_vec3 {
    float x, y, z;
} sinew_vec3;

typedef struct sinew_quat {
    float x, y, z, w;
} sinew_quat;

typedef struct sinew_mat4 {
    float m[16]; /* column-major: m[col * 4 + row] */
} sinew_mat4;

/* A node's local transform as glTF stores it: translation, rotation, scale (applied S, R, T). */
typedef struct sinew_transform {
    sinew_vec3 translation;
    sinew_quat rotation;
    sinew_vec3 scale;
} sinew_transform;

/* ---- vec3 ---- */
static inline sinew_vec3 sinew_vec3_make(float x, float y, float z)
{
    sinew_vec3 v = {x, y, z};
    return v;
}
static inline sinew_vec3 sinew_vec3_add(sinew_vec3 a, sinew_vec3 b)
{
    return sinew_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline sinew_vec3 sinew_vec3_sub(sinew_vec3 a, sinew_vec3 b)
{
    return sinew_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline sinew_vec3 sinew_vec3_scale(sinew_vec3 a, float s)
{
    return sinew_vec3_make(a.x * s, a.y * s, a.z * s);
}
/* a + b * s */
static inline sinew_vec3 sinew_vec3_madd(sinew_vec3 a, sinew_vec3 b, float s)
{
    return sinew_vec3_make(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s);
}
static inline float sinew_vec3_dot(sinew_vec3 a, sinew_vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline sinew_vec3 sinew_vec3_cross(sinew_vec3 a, sinew_vec3 b)
{
    return sinew_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline float sinew_vec3_length(sinew_vec3 a)
{
    return sqrtf(sinew_vec3_dot(a, a));
}
static inline float sinew_vec3_distance(sinew_vec3 a, sinew_vec3 b)
{
    return sinew_vec3_length(sinew_vec3_sub(a, b));
}
/* Unit vector along `a`, or `fallback` when `a` is (nearly) zero. */
static inline sinew_vec3 sinew_vec3_normalize_or(sinew_vec3 a, sinew_vec3 fallback)
{
    float len = sinew_vec3_length(a);
    return len > 1e-12f ? sinew_vec3_scale(a, 1.0f / len) : fallback;
}
static inline sinew_vec3 sinew_vec3_lerp(sinew_vec3 a, sinew_vec3 b, float t)
{
    return sinew_vec3_make(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}

/* ---- quaternions ---- */
static inline sinew_quat sinew_quat_make(float x, float y, float z, float w)
{
    sinew_quat q = {x, y, z, w};
    return q;
}
static inline sinew_quat sinew_quat_identity(void)
{
    return sinew_quat_make(0, 0, 0, 1);
}
static inline float sinew_quat_dot(sinew_quat a, sinew_quat b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
/* Unit quaternion along `q`; identity when `q` is (nearly) zero. */
static inline sinew_quat sinew_quat_normalize(sinew_quat q)
{
    float len = sqrtf(sinew_quat_dot(q, q));
    if (!(len > 1e-12f)) return sinew_quat_identity();
    float s = 1.0f / len;
    return sinew_quat_make(q.x * s, q.y * s, q.z * s, q.w * s);
}
static inline sinew_quat sinew_quat_conjugate(sinew_quat q)
{
    return sinew_quat_make(-q.x, -q.y, -q.z, q.w);
}
/* a * b: rotate by b first, then a. */
static inline sinew_quat sinew_quat_mul(sinew_quat a, sinew_quat b)
{
    return sinew_quat_make(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                           a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                           a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                           a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
static inline sinew_vec3 sinew_quat_rotate(sinew_quat q, sinew_vec3 v)
{
    /* v' = v + 2w (u x v) + 2 u x (u x v), u = q.xyz */
    sinew_vec3 u = sinew_vec3_make(q.x, q.y, q.z);
    sinew_vec3 t = sinew_vec3_scale(sinew_vec3_cross(u, v), 2.0f);
    return sinew_vec3_add(sinew_vec3_add(v, sinew_vec3_scale(t, q.w)), sinew_vec3_cross(u, t));
}
static inline sinew_quat sinew_quat_from_axis_angle(sinew_vec3 unit_axis, float radians)
{
    float s = sinf(radians * 0.5f);
    return sinew_quat_make(unit_axis.x * s, unit_axis.y * s, unit_axis.z * s, cosf(radians * 0.5f));
}
/* Smallest rotation angle of a unit quaternion, in [0, pi] (2 acos(clamp(|w|))). */
static inline float sinew_quat_angle(sinew_quat q)
{
    float w = fabsf(q.w);
    return 2.0f * acosf(w > 1.0f ? 1.0f : w);
}
/* Shortest-path spherical interpolation; t = 0 gives a, t = 1 gives b (or -b). */
static inline sinew_quat sinew_quat_slerp(sinew_quat a, sinew_quat b, float t)
{
    float c = sinew_quat_dot(a, b);
    if (c < 0.0f) {
        c = -c;
        b = sinew_quat_make(-b.x, -b.y, -b.z, -b.w);
    }
    float ka, kb;
    if (c > 0.9995f) { /* nearly parallel: lerp then normalise */
        ka = 1.0f - t;
        kb = t;
    } else {
        float th = acosf(c), s = sinf(th);
        ka = sinf((1.0f - t) * th) / s;
        kb = sinf(t * th) / s;
    }
    return sinew_quat_normalize(sinew_quat_make(a.x * ka + b.x * kb, a.y * ka + b.y * kb,
                                                a.z * ka + b.z * kb, a.w * ka + b.w * kb));
}
/* The shortest unit quaternion taking unit vector a onto unit vector b (the twist-free swing). */
static inline sinew_quat sinew_quat_swing(sinew_vec3 a, sinew_vec3 b)
{
    float d = sinew_vec3_dot(a, b);
    if (d < -0.999999f) { /* opposite: rotate pi about any axis perpendicular to a */
        sinew_vec3 axis = sinew_vec3_cross(sinew_vec3_make(1, 0, 0), a);
        if (sinew_vec3_dot(axis, axis) < 1e-8f)
            axis = sinew_vec3_cross(sinew_vec3_make(0, 1, 0), a);
        axis = sinew_vec3_normalize_or(axis, sinew_vec3_make(0, 0, 1));
        return sinew_quat_make(axis.x, axis.y, axis.z, 0.0f);
    }
    sinew_vec3 c = sinew_vec3_cross(a, b);
    return sinew_quat_normalize(sinew_quat_make(c.x, c.y, c.z, 1.0f + d));
}

/* ---- mat4 (column-major) ---- */
static inline sinew_mat4 sinew_mat4_identity(void)
{
    sinew_mat4 r = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    return r;
}
static inline sinew_mat4 sinew_mat4_mul(const sinew_mat4 *a, const sinew_mat4 *b)
{
    sinew_mat4 r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            r.m[c * 4 + row] =
                a->m[0 * 4 + row] * b->m[c * 4 + 0] + a->m[1 * 4 + row] * b->m[c * 4 + 1] +
                a->m[2 * 4 + row] * b->m[c * 4 + 2] + a->m[3 * 4 + row] * b->m[c * 4 + 3];
    return r;
}
static inline sinew_vec3 sinew_mat4_transform_point(const sinew_mat4 *a, sinew_vec3 p)
{
    const float *m = a->m;
    return sinew_vec3_make(m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12],
                           m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
                           m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]);
}
static inline sinew_vec3 sinew_mat4_transform_dir(const sinew_mat4 *a, sinew_vec3 d)
{
    const float *m = a->m;
    return sinew_vec3_make(m[0] * d.x + m[4] * d.y + m[8] * d.z,
                           m[1] * d.x + m[5] * d.y + m[9] * d.z,
                           m[2] * d.x + m[6] * d.y + m[10] * d.z);
}
static inline sinew_vec3 sinew_mat4_translation(const sinew_mat4 *a)
{
    return sinew_vec3_make(a->m[12], a->m[13], a->m[14]);
}
/* The mean length of the three axes of m: what turns that frame's lengths into its parent's
 * (a joint's world matrix: the model's units at the joint's scale). */
static inline float sinew_mat4_axis_scale(const sinew_mat4 *m)
{
    float sum = 0.0f;
    for (int c = 0; c < 3; c++)
        sum += sqrtf(m->m[c * 4] * m->m[c * 4] + m->m[c * 4 + 1] * m->m[c * 4 + 1] +
                     m->m[c * 4 + 2] * m->m[c * 4 + 2]);
    return sum * (1.0f / 3.0f);
}
/* T * R * S as one matrix. */
static inline sinew_mat4 sinew_mat4_from_transform(sinew_transform t)
{
    sinew_quat q = t.rotation;
    float x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    float xx = q.x * x2, xy = q.x * y2, xz = q.x * z2;
    float yy = q.y * y2, yz = q.y * z2, zz = q.z * z2;
    float wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    sinew_mat4 r;
    r.m[0] = (1 - (yy + zz)) * t.scale.x;
    r.m[1] = (xy + wz) * t.scale.x;
    r.m[2] = (xz - wy) * t.scale.x;
    r.m[3] = 0;
    r.m[4] = (xy - wz) * t.scale.y;
    r.m[5] = (1 - (xx + zz)) * t.scale.y;
    r.m[6] = (yz + wx) * t.scale.y;
    r.m[7] = 0;
    r.m[8] = (xz + wy) * t.scale.z;
    r.m[9] = (yz - wx) * t.scale.z;
    r.m[10] = (1 - (xx + yy)) * t.scale.z;
    r.m[11] = 0;
    r.m[12] = t.translation.x;
    r.m[13] = t.translation.y;
    r.m[14] = t.translation.z;
    r.m[15] = 1;
    return r;
}
static inline sinew_transform sinew_transform_identity(void)
{
    sinew_transform t = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    return t;
}

/* Rotation matrix (upper 3x3 of a column-major mat4, no scale) to a unit quaternion. */
sinew_quat sinew_quat_from_mat4(const sinew_mat4 *a);
/* General 4x4 inverse; returns 0 (and leaves *out untouched) when singular or non-finite. */
int sinew_mat4_invert(const sinew_mat4 *a, sinew_mat4 *out);
/* Inverse of an affine matrix (last row 0 0 0 1); same contract as sinew_mat4_invert. */
int sinew_mat4_invert_affine(const sinew_mat4 *a, sinew_mat4 *out);
/* Splits an affine matrix into T, R, S (positive scale, a mirrored matrix gets a negative
 * x scale). Shear is lost. */
sinew_transform sinew_mat4_decompose(const sinew_mat4 *a);
/* Eigen-decomposition of a symmetric 4x4 matrix by cyclic Jacobi rotations (exact to
 * rounding, unlike power iteration). Eigenvalues descending in `values`, the
 * matching unit eigenvectors in the columns of `vectors` (vectors[row * 4 + col]). */
void sinew_sym4_eigen(const double a[16], double values[4], double vectors[16]);
/* Eigen-decomposition of a symmetric 3x3 matrix, same conventions (vectors[row * 3 + col]). */
void sinew_sym3_eigen(const double a[9], double values[3], double vectors[9]);
/* 1 when every component is finite. */
int sinew_mat4_is_finite(const sinew_mat4 *a);

#ifdef __cplusplus
}
#endif
#endif
