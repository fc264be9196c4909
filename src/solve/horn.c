/* Weighted rigid fit by Horn's quaternion method (B. K. P. Horn, "Closed-form solution of
 * absolute orientation using unit quaternions", JOSA A 4(4), 1987), and the double-precision
 * affine helpers the solver works in. */
#include "solve_internal.h"

#include <math.h>
#include <string.h>

void solve_quat_to_rot(const double q[4], double r[9])
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    r[0] = 1 - 2 * (y * y + z * z);
    r[1] = 2 * (x * y - z * w);
    r[2] = 2 * (x * z + y * w);
    r[3] = 2 * (x * y + z * w);
    r[4] = 1 - 2 * (x * x + z * z);
    r[5] = 2 * (y * z - x * w);
    r[6] = 2 * (x * z - y * w);
    r[7] = 2 * (y * z + x * w);
    r[8] = 1 - 2 * (x * x + y * y);
}

/* Horn's N from S (S[x][y] = sum w a_x b_y), quaternion order (w, x, y, z):
 * q^T N q = sum b . (R(q) a). */
static void horn_matrix(const double S[9], double N[16])
{
    const double sxx = S[0], sxy = S[1], sxz = S[2];
    const double syx = S[3], syy = S[4], syz = S[5];
    const double szx = S[6], szy = S[7], szz = S[8];
    const double n[16] = {sxx + syy + szz, syz - szy,       szx - sxz,        sxy - syx,
                          syz - szy,       sxx - syy - szz, sxy + syx,        szx + sxz,
                          szx - sxz,       sxy + syx,       -sxx + syy - szz, syz + szy,
                          sxy - syx,       szx + sxz,       syz + szy,        -sxx - syy + szz};
    memcpy(N, n, sizeof n);
}

/* Top eigenvector of N as (w, x, y, z) by the full cyclic Jacobi of math.h. */
static void top_eigenvector(const double N[16], double v[4])
{
    double values[4], vectors[16];
    sinew_sym4_eigen(N, values, vectors);
    for (int r = 0; r < 4; r++)
        v[r] = vectors[r * 4];
}

static void quat_from_vector(const double v[4], double quat[4])
{
    double w = v[0], x = v[1], y = v[2], z = v[3];
    double len = sqrt(w * w + x * x + y * y + z * z);
    if (!(len > 0) || !isfinite(len)) {
        w = 1, x = y = z = 0, len = 1;
    }
    if (w < 0) len = -len; /* canonical sign; callers keep continuity themselves */
    quat[0] = x / len;
    quat[1] = y / len;
    quat[2] = z / len;
    quat[3] = w / len;
}

/* Rotation (row-major) to a unit quaternion (x, y, z, w) by Shepperd's method: the largest
 * of w, x, y, z is found from the diagonal first and the others divided by it. */
void solve_rot_to_quat(const double R[9], double q[4])
{
    const double t = R[0] + R[4] + R[8];
    double x, y, z, w;
    if (t >= R[0] && t >= R[4] && t >= R[8]) {
        const double r = 2 * sqrt(1 + t);
        w = r / 4, x = (R[7] - R[5]) / r, y = (R[2] - R[6]) / r, z = (R[3] - R[1]) / r;
    } else if (R[0] >= R[4] && R[0] >= R[8]) {
        const double r = 2 * sqrt(fmax(1 + R[0] - R[4] - R[8], 0.0));
        w = (R[7] - R[5]) / r, x = r / 4, y = (R[1] + R[3]) / r, z = (R[2] + R[6]) / r;
    } else if (R[4] >= R[8]) {
        const double r = 2 * sqrt(fmax(1 + R[4] - R[0] - R[8], 0.0));
        w = (R[2] - R[6]) / r, x = (R[1] + R[3]) / r, y = r / 4, z = (R[5] + R[7]) / r;
    } else {
        const double r = 2 * sqrt(fmax(1 + R[8] - R[0] - R[4], 0.0));
        w = (R[3] - R[1]) / r, x = (R[2] + R[6]) / r, y = (R[5] + R[7]) / r, z = r / 4;
    }
    const double v[4] = {w, x, y, z};
    quat_from_vector(v, q);
}

/* N's top eigenvector when it is near (1, 0, 0, 0). Write N = [a b^T; b C] (C 3x3). Its
 * eigenvalues above those of C are the roots of the secular equation
 *   f(l) = l - a - b^T (l I - C)^-1 b = 0,
 * and there is exactly one, the top eigenvalue (f rises from -inf to +inf above C's top
 * eigenvalue), with eigenvector (1, (l I - C)^-1 b). f is concave there, so Newton's method
 * from l = a (where f <= 0) climbs to it without overshooting. a proves to be above C's
 * eigenvalues when l I - C has a Cholesky factor; when it does not (the start is far from the
 * answer) or the climb does not settle, 0 and the caller takes Jacobi. */
static int top_eigenvector_near(const double N[16], double v[4])
{
    double scale = 0;
    for (int i = 0; i < 16; i++)
        scale += N[i] * N[i];
    scale = sqrt(scale);
    if (!(scale > 0) || !isfinite(scale)) return 0;
    /* a pivot this far below |N| leaves the answer to Jacobi: the gap between the top two
     * eigenvalues is then too small for (l I - C)^-1 b to keep its digits. With it, and the
     * climb stopped at a step of 1e-15 |N|, test_horn_from finds Jacobi's rotation to 3e-15
     * from starts up to 180 degrees away; bench_solve (a) took 2.3 factorisations a fit and
     * left none of its 240,856 fits to Jacobi */
    const double least = 1e-9 * scale;
    const double a = N[0], b[3] = {N[1], N[2], N[3]};
    const double c00 = N[5], c01 = N[6], c02 = N[7], c11 = N[10], c12 = N[11], c22 = N[15];
    double l = a, y[3];
    for (int it = 0; it < 16; it++) {
        /* l I - C = L D L^T (no square roots); positive definite when every pivot is */
        const double m01 = -c01, m02 = -c02, m12 = -c12;
        const double d0 = l - c00;
        if (!(d0 > least)) return 0;
        const double i0 = 1 / d0, l10 = m01 * i0, l20 = m02 * i0;
        const double d1 = l - c11 - l10 * m01;
        if (!(d1 > least)) return 0;
        const double i1 = 1 / d1, t12 = m12 - l20 * m01, l21 = t12 * i1;
        const double d2 = l - c22 - l20 * m02 - l21 * t12;
        if (!(d2 > least)) return 0;
        const double i2 = 1 / d2;
        const double z0 = b[0], z1 = b[1] - l10 * z0, z2 = b[2] - l20 * z0 - l21 * z1;
        y[2] = z2 * i2;
        y[1] = z1 * i1 - l21 * y[2];
        y[0] = z0 * i0 - l10 * y[1] - l20 * y[2];
        const double f = l - a - (b[0] * y[0] + b[1] * y[1] + b[2] * y[2]);
        const double step = -f / (1 + y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
        if (!(step <= 1e-15 * scale)) { /* not settled (or NaN): climb on */
            l += step;
            continue;
        }
        v[0] = 1, v[1] = y[0], v[2] = y[1], v[3] = y[2];
        return 1;
    }
    return 0;
}

/* Horn's fit, from `start` (may be NULL) when the answer is near it: with R0 = R(q0) the
 * start, sum b . (R0 R(p) a) is Horn's objective for p with S R0 in place of S, whose answer
 * is near p = 1; the fit is then q0 p. */
static int horn(const double S_in[9], const double prev_rot[9], const double start[9],
                double quat[4], double rot[9])
{
    double norm = 0;
    for (int i = 0; i < 9; i++)
        norm += S_in[i] * S_in[i];
    norm = sqrt(norm);
    if (!prev_rot && !(norm > 0)) {
        const double id[4] = {0, 0, 0, 1};
        memcpy(quat, id, sizeof id);
        if (rot) solve_quat_to_rot(quat, rot);
        return 0;
    }
    /* Tie-break toward the previous rotation: phantom points a = e_k, b = R_prev e_k add
     * lambda R_prev^T to S. It must outweigh the float rounding of the targets (~1e-7 of
     * |S|), which otherwise decides the free spin of collinear points at random, and stay
     * far below any determined fit: at 1e-6 of |S| it moves one by ~1e-6 rad. */
    double S[9];
    const double lambda = norm > 0 ? 1e-6 * norm : 1.0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            S[r * 3 + c] = S_in[r * 3 + c] + (prev_rot ? lambda * prev_rot[c * 3 + r] : 0.0);
    double N[16], v[4];
    if (start) {
        double q0[4], R0[9], Sp[9];
        solve_rot_to_quat(start, q0);
        solve_quat_to_rot(q0, R0);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                Sp[r * 3 + c] = S[r * 3 + 0] * R0[0 * 3 + c] + S[r * 3 + 1] * R0[1 * 3 + c] +
                                S[r * 3 + 2] * R0[2 * 3 + c];
        horn_matrix(Sp, N);
        if (top_eigenvector_near(N, v)) {
            /* q0 p (Hamilton product, x y z w), normalised once: |q0| = 1 */
            const double p[4] = {v[1], v[2], v[3], v[0]};
            const double q[4] = {q0[3] * p[0] + q0[0] * p[3] + q0[1] * p[2] - q0[2] * p[1],
                                 q0[3] * p[1] - q0[0] * p[2] + q0[1] * p[3] + q0[2] * p[0],
                                 q0[3] * p[2] + q0[0] * p[1] - q0[1] * p[0] + q0[2] * p[3],
                                 q0[3] * p[3] - q0[0] * p[0] - q0[1] * p[1] - q0[2] * p[2]};
            const double wxyz[4] = {q[3], q[0], q[1], q[2]};
            quat_from_vector(wxyz, quat);
            if (rot) solve_quat_to_rot(quat, rot);
            return 1;
        }
    }
    horn_matrix(S, N);
    top_eigenvector(N, v);
    quat_from_vector(v, quat);
    if (rot) solve_quat_to_rot(quat, rot);
    return 0;
}

void solve_horn(const double S[9], const double prev_rot[9], double quat[4], double rot[9])
{
    (void)horn(S, prev_rot, NULL, quat, rot);
}

int solve_horn_from(const double S[9], const double prev_rot[9], const double start[9],
                    double quat[4], double rot[9])
{
    return horn(S, prev_rot, start, quat, rot);
}

void solve_affine_identity(solve_affine *out)
{
    memset(out, 0, sizeof *out);
    out->m[0] = out->m[5] = out->m[10] = 1;
}

void solve_affine_from_mat4(const sinew_mat4 *in, solve_affine *out)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            out->m[r * 4 + c] = in->m[c * 4 + r];
}

void solve_affine_to_mat4(const solve_affine *in, sinew_mat4 *out)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            out->m[c * 4 + r] = (float)in->m[r * 4 + c];
    out->m[3] = out->m[7] = out->m[11] = 0;
    out->m[15] = 1;
}

void solve_affine_mul(const solve_affine *a, const solve_affine *b, solve_affine *out)
{
    solve_affine r;
    for (int i = 0; i < 3; i++) {
        for (int c = 0; c < 4; c++)
            r.m[i * 4 + c] = a->m[i * 4 + 0] * b->m[0 * 4 + c] + a->m[i * 4 + 1] * b->m[1 * 4 + c] +
                             a->m[i * 4 + 2] * b->m[2 * 4 + c];
        r.m[i * 4 + 3] += a->m[i * 4 + 3];
    }
    *out = r;
}

int solve_affine_invert(const solve_affine *a, solve_affine *out)
{
    const double *m = a->m;
    const double c00 = m[5] * m[10] - m[6] * m[9], c01 = m[6] * m[8] - m[4] * m[10],
                 c02 = m[4] * m[9] - m[5] * m[8];
    const double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
    if (!(fabs(det) > 1e-300) || !isfinite(det)) return 0;
    const double id = 1.0 / det;
    solve_affine r;
    r.m[0] = c00 * id;
    r.m[1] = (m[2] * m[9] - m[1] * m[10]) * id;
    r.m[2] = (m[1] * m[6] - m[2] * m[5]) * id;
    r.m[4] = c01 * id;
    r.m[5] = (m[0] * m[10] - m[2] * m[8]) * id;
    r.m[6] = (m[2] * m[4] - m[0] * m[6]) * id;
    r.m[8] = c02 * id;
    r.m[9] = (m[1] * m[8] - m[0] * m[9]) * id;
    r.m[10] = (m[0] * m[5] - m[1] * m[4]) * id;
    for (int i = 0; i < 3; i++)
        r.m[i * 4 + 3] = -(r.m[i * 4 + 0] * m[3] + r.m[i * 4 + 1] * m[7] + r.m[i * 4 + 2] * m[11]);
    *out = r;
    return 1;
}

void solve_affine_from_transform(sinew_transform t, solve_affine *out)
{
    double len = sqrt((double)t.rotation.x * t.rotation.x + (double)t.rotation.y * t.rotation.y +
                      (double)t.rotation.z * t.rotation.z + (double)t.rotation.w * t.rotation.w);
    double q[4] = {0, 0, 0, 1};
    if (len > 0 && isfinite(len)) {
        q[0] = t.rotation.x / len;
        q[1] = t.rotation.y / len;
        q[2] = t.rotation.z / len;
        q[3] = t.rotation.w / len;
    }
    double r[9];
    solve_quat_to_rot(q, r);
    const double s[3] = {t.scale.x, t.scale.y, t.scale.z};
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 3; c++)
            out->m[i * 4 + c] = r[i * 3 + c] * s[c];
    out->m[3] = t.translation.x;
    out->m[7] = t.translation.y;
    out->m[11] = t.translation.z;
}
