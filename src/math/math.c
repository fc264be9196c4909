/* Non-inline math: inverses, decomposition and symmetric eigen-solvers.
 * The eigen-solver is the cyclic Jacobi method (Golub & Van Loan, "Matrix Computations",
 * 8.5): for the 4x4 Horn matrix it is exact to rounding, which the surface solve needs. */
#include "sinew/math.h"

#include <stdint.h>
#include <string.h>

sinew_quat sinew_quat_from_mat4(const sinew_mat4 *a)
{
    /* Shepperd's method: pick the largest diagonal term for stability. */
    const float *m = a->m;
    float m00 = m[0], m11 = m[5], m22 = m[10];
    float m01 = m[4], m02 = m[8], m10 = m[1], m12 = m[9], m20 = m[2], m21 = m[6];
    float tr = m00 + m11 + m22;
    sinew_quat q;
    if (tr > 0) {
        float s = sqrtf(tr + 1.0f) * 2;
        q = sinew_quat_make((m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25f * s);
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2;
        q = sinew_quat_make(0.25f * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s);
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2;
        q = sinew_quat_make((m01 + m10) / s, 0.25f * s, (m12 + m21) / s, (m02 - m20) / s);
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2;
        q = sinew_quat_make((m02 + m20) / s, (m12 + m21) / s, 0.25f * s, (m10 - m01) / s);
    }
    return sinew_quat_normalize(q);
}

int sinew_mat4_is_finite(const sinew_mat4 *a)
{
    /* inf and NaN are the floats with every exponent bit set: one vectorisable integer test
     * instead of 16 branches (a per-call cost of every dyn step) */
    uint32_t bits[16], bad = 0;
    memcpy(bits, a->m, sizeof bits);
    for (int i = 0; i < 16; i++)
        bad |= (uint32_t)((bits[i] & 0x7f800000u) == 0x7f800000u);
    return !bad;
}

int sinew_mat4_invert(const sinew_mat4 *a, sinew_mat4 *out)
{
    /* Cofactor expansion in double, so that near-singular bind matrices keep precision. */
    double m[16], inv[16];
    for (int i = 0; i < 16; i++)
        m[i] = a->m[i];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] +
             m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] -
             m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] +
             m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] -
              m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] -
             m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] +
             m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] -
             m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] +
              m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] +
             m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] -
             m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] +
              m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] -
              m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] -
             m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] +
             m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] -
              m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] +
              m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    if (!isfinite(det) || fabs(det) < 1e-30) return 0;
    sinew_mat4 r;
    for (int i = 0; i < 16; i++)
        r.m[i] = (float)(inv[i] / det);
    if (!sinew_mat4_is_finite(&r)) return 0;
    *out = r;
    return 1;
}

int sinew_mat4_invert_affine(const sinew_mat4 *a, sinew_mat4 *out)
{
    /* Invert the 3x3 part in double, then -R^-1 t. */
    const float *m = a->m;
    double c00 = (double)m[5] * m[10] - (double)m[9] * m[6];
    double c01 = (double)m[8] * m[6] - (double)m[4] * m[10];
    double c02 = (double)m[4] * m[9] - (double)m[8] * m[5];
    double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
    if (!isfinite(det) || fabs(det) < 1e-30) return 0;
    double inv[9];
    inv[0] = c00 / det; /* column-major 3x3: inv[col*3+row] */
    inv[3] = c01 / det;
    inv[6] = c02 / det;
    inv[1] = ((double)m[9] * m[2] - (double)m[1] * m[10]) / det;
    inv[4] = ((double)m[0] * m[10] - (double)m[8] * m[2]) / det;
    inv[7] = ((double)m[8] * m[1] - (double)m[0] * m[9]) / det;
    inv[2] = ((double)m[1] * m[6] - (double)m[5] * m[2]) / det;
    inv[5] = ((double)m[4] * m[2] - (double)m[0] * m[6]) / det;
    inv[8] = ((double)m[0] * m[5] - (double)m[4] * m[1]) / det;
    sinew_mat4 r = sinew_mat4_identity();
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++)
            r.m[c * 4 + row] = (float)inv[c * 3 + row];
    for (int row = 0; row < 3; row++)
        r.m[12 + row] = (float)-(inv[row] * m[12] + inv[3 + row] * m[13] + inv[6 + row] * m[14]);
    if (!sinew_mat4_is_finite(&r)) return 0;
    *out = r;
    return 1;
}

sinew_transform sinew_mat4_decompose(const sinew_mat4 *a)
{
    sinew_transform t;
    const float *m = a->m;
    t.translation = sinew_vec3_make(m[12], m[13], m[14]);
    sinew_vec3 cx = sinew_vec3_make(m[0], m[1], m[2]);
    sinew_vec3 cy = sinew_vec3_make(m[4], m[5], m[6]);
    sinew_vec3 cz = sinew_vec3_make(m[8], m[9], m[10]);
    float sx = sinew_vec3_length(cx), sy = sinew_vec3_length(cy), sz = sinew_vec3_length(cz);
    if (sinew_vec3_dot(sinew_vec3_cross(cx, cy), cz) < 0) sx = -sx;
    t.scale = sinew_vec3_make(sx, sy, sz);
    sinew_mat4 r = sinew_mat4_identity();
    if (sx != 0 && sy != 0 && sz != 0) {
        for (int i = 0; i < 3; i++) {
            r.m[i] = m[i] / sx;
            r.m[4 + i] = m[4 + i] / sy;
            r.m[8 + i] = m[8 + i] / sz;
        }
    }
    t.rotation = sinew_quat_from_mat4(&r);
    return t;
}

/* Cyclic Jacobi on an n x n symmetric matrix (row-major, n <= 4), eigenvalues descending. */
static void jacobi_eigen(int n, const double *in, double *values, double *vectors)
{
    double a[16], v[16];
    memcpy(a, in, sizeof(double) * (size_t)(n * n));
    for (int i = 0; i < n * n; i++)
        v[i] = 0;
    for (int i = 0; i < n; i++)
        v[i * n + i] = 1;
    for (int sweep = 0; sweep < 64; sweep++) {
        double off = 0, scale = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (i != j) off += a[i * n + j] * a[i * n + j];
                scale += a[i * n + j] * a[i * n + j];
            }
        if (!(off > 1e-30 * scale)) break; /* also stops on NaN */
        for (int p = 0; p < n - 1; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (apq == 0) continue;
                double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < n; k++) { /* A = A J */
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) { /* A = J^T A */
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < n; k++) { /* V = V J */
                    double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
    }
    int order[4] = {0, 1, 2, 3};
    for (int i = 0; i < n; i++) /* selection sort by eigenvalue, descending */
        for (int j = i + 1; j < n; j++)
            if (a[order[j] * n + order[j]] > a[order[i] * n + order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    for (int c = 0; c < n; c++) {
        values[c] = a[order[c] * n + order[c]];
        for (int r = 0; r < n; r++)
            vectors[r * n + c] = v[r * n + order[c]];
    }
}

void sinew_sym4_eigen(const double a[16], double values[4], double vectors[16])
{
    jacobi_eigen(4, a, values, vectors);
}

void sinew_sym3_eigen(const double a[9], double values[3], double vectors[9])
{
    jacobi_eigen(3, a, values, vectors);
}
