/* Rotation-only variant (Sidorkin, "Solve the surface, not the skeleton", lists it among its
 * limitations: the number it still owes). Joint translations stay at rest, so bone lengths are
 * exact; a weighted joint below a weighted joint may only turn about the pivot its parent
 * places. Root joints (no weighted joint above) stay free rigid bodies: the body must still
 * travel.
 *
 * Block coordinate descent over joints, parent before child, where a joint's block carries
 * its whole subtree along (otherwise turning a parent would tear its children off their
 * pivots and a sweep could raise the error). Bone j's block is a world-space motion D applied
 * to every M_k of its subtree T: with a_i = sum_{k in T} w_ik M_k u~_i, W_i = sum_{k in T} w_ik
 * and q_i = y_i - sum_{m not in T} w_im M_m u~_i the error is sum_i |D(a_i; W_i) - q_i|^2, and
 * every sum it needs comes from the moments:
 *   sum a q^T = sum_{k in T} M_k B_k,  B_k = vuT_k^T - sum_{m not in T} uuT_km M_m^T,
 *   sum W a = sum_{k in T} M_k sum_{l in T} uuT_kl[:, 3],  sum W q = sum_{k in T} B_k[3, :],
 *   sum W^2 = sum_{k, l in T} uuT_kl[3][3].
 * Free root: D = (R, t), Horn on the centred covariance. Pivot at p: D = R about p, Horn on
 * S = sum (a - W p)(q - W p)^T. Each block step is an exact minimisation, so sweeps descend. */
#include "solve_internal.h"

#include <math.h>
#include <string.h>

sinew_result solve_rotation_only_prepare(sinew_solver *s, sinew_error *err)
{
    const sinew_model *rig = s->rig;
    const uint32_t J = s->joint_count;
    s->sub_start = sinew_alloc(&s->alloc, (size_t)J + 1, sizeof(uint32_t));
    s->in_sub = sinew_alloc(&s->alloc, (size_t)J * J, 1);
    if (!s->sub_start || !s->in_sub)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    /* k is in T(j) when j's node is k's node or one of its ancestors (both weighted) */
    uint32_t total = 0;
    for (uint32_t k = 0; k < J; k++) {
        if (s->kind[k] == SOLVE_JOINT_EMPTY) continue;
        for (int32_t n = rig->skin.joints[k].node; n >= 0; n = rig->nodes[n].parent) {
            const int32_t j = s->node_joint[n];
            if (j < 0 || s->kind[j] == SOLVE_JOINT_EMPTY) continue;
            s->in_sub[(size_t)j * J + k] = 1;
            s->sub_start[j + 1]++;
            total++;
        }
    }
    for (uint32_t j = 0; j < J; j++)
        s->sub_start[j + 1] += s->sub_start[j];
    s->sub_joint = sinew_alloc(&s->alloc, total ? total : 1, sizeof(uint32_t));
    if (!s->sub_joint) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    for (uint32_t j = 0; j < J; j++) {
        uint32_t e = s->sub_start[j];
        if (s->kind[j] == SOLVE_JOINT_EMPTY) continue;
        s->sub_joint[e++] = j;
        for (uint32_t k = 0; k < J; k++)
            if (k != j && s->in_sub[(size_t)j * J + k]) s->sub_joint[e++] = k;
    }
    return SINEW_OK;
}

/* The current local rotation of pivot joint j at node n: nearest rotation to
 * P^-1 world_j S_rest^-1. */
static void current_local_rotation(const sinew_solver *s, uint32_t n, uint32_t j,
                                   const solve_affine *Pinv, double R[9])
{
    const sinew_vec3 sc = s->rig->nodes[n].rest.scale;
    const double scl[3] = {sc.x, sc.y, sc.z};
    solve_affine X, L;
    solve_affine_mul(&s->cur[j], &s->bind[j], &X);
    solve_affine_mul(Pinv, &X, &L);
    double S[9], start[9], q[4];
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++) {
            S[x * 3 + y] = scl[x] != 0 ? L.m[y * 4 + x] / scl[x] : 0;
            start[y * 3 + x] = S[x * 3 + y];
        }
    (void)solve_horn_from(S, NULL, start, q, R);
}

/* P = world_parent * T(t_rest): the frame whose origin is joint n's pivot. */
static void pivot_frame(const sinew_solver *s, uint32_t n, solve_affine *P)
{
    const sinew_transform rest = s->rig->nodes[n].rest;
    solve_affine T;
    solve_affine_identity(&T);
    T.m[3] = rest.translation.x;
    T.m[7] = rest.translation.y;
    T.m[11] = rest.translation.z;
    solve_affine_mul(&s->world[s->rig->nodes[n].parent], &T, P);
}

void solve_rotation_only_project(sinew_solver *s)
{
    const sinew_model *rig = s->rig;
    for (uint32_t n = 0; n < s->node_count; n++) {
        const int32_t j = s->node_joint[n];
        if (j < 0 || s->kind[j] == SOLVE_JOINT_EMPTY) {
            solve_follow_parent(s, n, j);
            continue;
        }
        if (s->kind[j] == SOLVE_JOINT_FREE) {
            solve_affine_mul(&s->cur[j], &s->bind[j], &s->world[n]);
            continue;
        }
        /* the rotation nearest to P^-1 world_j S^-1, then world_j = P R S */
        solve_affine P, Pinv;
        pivot_frame(s, n, &P);
        const sinew_vec3 sc = rig->nodes[n].rest.scale;
        double R[9];
        if (solve_affine_invert(&P, &Pinv))
            current_local_rotation(s, n, (uint32_t)j, &Pinv, R);
        else
            solve_quat_to_rot((const double[4]){0, 0, 0, 1}, R);
        solve_affine RS;
        for (int r = 0; r < 3; r++) {
            RS.m[r * 4 + 0] = R[r * 3 + 0] * sc.x;
            RS.m[r * 4 + 1] = R[r * 3 + 1] * sc.y;
            RS.m[r * 4 + 2] = R[r * 3 + 2] * sc.z;
            RS.m[r * 4 + 3] = 0;
        }
        solve_affine_mul(&P, &RS, &s->world[n]);
        solve_affine_mul(&s->world[n], &s->ibm[j], &s->cur[j]);
    }
}

/* The subtree sums of the header comment for the block of joint j. */
static void subtree_moments(const sinew_solver *s, uint32_t j, double aq[9], double wa[3],
                            double wq[3], double *ww)
{
    const uint32_t J = s->joint_count;
    const uint8_t *in = &s->in_sub[(size_t)j * J];
    memset(aq, 0, 9 * sizeof(double));
    memset(wa, 0, 3 * sizeof(double));
    memset(wq, 0, 3 * sizeof(double));
    *ww = 0;
    for (uint32_t e = s->sub_start[j]; e < s->sub_start[j + 1]; e++) {
        const uint32_t k = s->sub_joint[e];
        /* B = vuT_k^T (4x3) minus the outside neighbours; c = sum_{l in T} uuT_kl[:, 3] */
        double B[12], c[4] = {0, 0, 0, 0};
        const double *v = &s->vut[(size_t)k * 12];
        for (int i = 0; i < 4; i++)
            for (int y = 0; y < 3; y++)
                B[i * 3 + y] = v[y * 4 + i];
        for (uint32_t n = s->nbr_start[k]; n < s->nbr_start[k + 1]; n++) {
            const uint32_t m = s->nbr_joint[n];
            const double *U = s->pairs[s->nbr_pair[n]].uut;
            if (in[m]) {
                for (int i = 0; i < 4; i++)
                    c[i] += U[i * 4 + 3];
                *ww += U[15];
                continue;
            }
            const double *M = s->cur[m].m;
            for (int i = 0; i < 4; i++)
                for (int y = 0; y < 3; y++)
                    B[i * 3 + y] -= U[i * 4 + 0] * M[y * 4 + 0] + U[i * 4 + 1] * M[y * 4 + 1] +
                                    U[i * 4 + 2] * M[y * 4 + 2] + U[i * 4 + 3] * M[y * 4 + 3];
        }
        const double *M = s->cur[k].m;
        for (int x = 0; x < 3; x++) {
            for (int y = 0; y < 3; y++)
                aq[x * 3 + y] += M[x * 4 + 0] * B[0 * 3 + y] + M[x * 4 + 1] * B[1 * 3 + y] +
                                 M[x * 4 + 2] * B[2 * 3 + y] + M[x * 4 + 3] * B[3 * 3 + y];
            wa[x] += M[x * 4 + 0] * c[0] + M[x * 4 + 1] * c[1] + M[x * 4 + 2] * c[2] +
                     M[x * 4 + 3] * c[3];
        }
        for (int y = 0; y < 3; y++)
            wq[y] += B[3 * 3 + y];
    }
}

/* Applies the world-space motion D to joint j's subtree (M_k and, for the sweep's later
 * visits, nothing else: other nodes re-derive their world when visited). */
static void apply_motion(sinew_solver *s, uint32_t j, const solve_affine *D)
{
    for (uint32_t e = s->sub_start[j]; e < s->sub_start[j + 1]; e++) {
        const uint32_t k = s->sub_joint[e];
        solve_affine_mul(D, &s->cur[k], &s->cur[k]);
    }
}

static const double identity_rot[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

static void sweep_hierarchical(sinew_solver *s)
{
    for (uint32_t n = 0; n < s->node_count; n++) {
        const int32_t j = s->node_joint[n];
        if (j < 0 || s->kind[j] == SOLVE_JOINT_EMPTY) {
            solve_follow_parent(s, n, j);
            continue;
        }
        double aq[9], wa[3], wq[3], ww, S[9], q[4], R[9];
        subtree_moments(s, (uint32_t)j, aq, wa, wq, &ww);
        solve_affine D;
        if (!(ww > 0)) {
            solve_affine_identity(&D);
        } else if (s->kind[j] == SOLVE_JOINT_FREE) {
            for (int x = 0; x < 3; x++)
                for (int y = 0; y < 3; y++)
                    S[x * 3 + y] = aq[x * 3 + y] - wa[x] * wq[y] / ww;
            (void)solve_horn_from(S, identity_rot, identity_rot, q, R);
            for (int r = 0; r < 3; r++) {
                for (int c = 0; c < 3; c++)
                    D.m[r * 4 + c] = R[r * 3 + c];
                D.m[r * 4 + 3] =
                    (wq[r] - (R[r * 3] * wa[0] + R[r * 3 + 1] * wa[1] + R[r * 3 + 2] * wa[2])) / ww;
            }
        } else {
            solve_affine P;
            pivot_frame(s, n, &P);
            const double p[3] = {P.m[3], P.m[7], P.m[11]};
            for (int x = 0; x < 3; x++)
                for (int y = 0; y < 3; y++)
                    S[x * 3 + y] = aq[x * 3 + y] - wa[x] * p[y] - p[x] * wq[y] + ww * p[x] * p[y];
            (void)solve_horn_from(S, identity_rot, identity_rot, q, R);
            for (int r = 0; r < 3; r++) {
                for (int c = 0; c < 3; c++)
                    D.m[r * 4 + c] = R[r * 3 + c];
                D.m[r * 4 + 3] =
                    p[r] - (R[r * 3] * p[0] + R[r * 3 + 1] * p[1] + R[r * 3 + 2] * p[2]);
            }
        }
        apply_motion(s, (uint32_t)j, &D);
        solve_affine_mul(&s->cur[j], &s->bind[j], &s->world[n]);
    }
}

/* Detached pass: each pivot joint turns about its (current) pivot to fit what every other
 * bone, children included, leaves unexplained; children are re-pinned when visited. Fast
 * near the answer, but not a descent method, so the caller keeps it only when it helps.
 * With P = world_parent T(t_rest), G = S_rest IBM_j, a = G u~, b = P^-1 (q / w), weights w^2:
 * S = sum w^2 a b^T = G (A^T L^T + u_sum c^T), A = sum w q u~^T, u_sum = sum w^2 u~,
 * P^-1 = [L | c]. */
static void sweep_detached(sinew_solver *s)
{
    const sinew_model *rig = s->rig;
    double A[12];
    for (uint32_t n = 0; n < s->node_count; n++) {
        const int32_t j = s->node_joint[n];
        if (j < 0 || s->kind[j] == SOLVE_JOINT_EMPTY) {
            solve_follow_parent(s, n, j);
            continue;
        }
        solve_bone_residual(s, (uint32_t)j, A);
        const double *U = s->pairs[s->self_pair[j]].uut;
        if (s->kind[j] == SOLVE_JOINT_FREE) {
            solve_fit_free(A, U, s->scale[j], &s->cur[j], &s->cur[j], &s->cur[j]);
            solve_affine_mul(&s->cur[j], &s->bind[j], &s->world[n]);
            continue;
        }
        solve_affine P, Pinv;
        pivot_frame(s, n, &P);
        if (!solve_affine_invert(&P, &Pinv)) continue;
        double R[9], Rn[9], q[4];
        current_local_rotation(s, n, (uint32_t)j, &Pinv, R);
        const sinew_transform rest = rig->nodes[n].rest;
        solve_affine Sc, G;
        solve_affine_identity(&Sc);
        Sc.m[0] = rest.scale.x;
        Sc.m[5] = rest.scale.y;
        Sc.m[10] = rest.scale.z;
        solve_affine_mul(&Sc, &s->ibm[j], &G);
        const double *L = Pinv.m;
        double K[12]; /* K[i][y] = sum_r A[r][i] L[y][r] + U[i][3] c[y] */
        for (int i = 0; i < 4; i++)
            for (int y = 0; y < 3; y++) {
                double v = U[i * 4 + 3] * L[y * 4 + 3];
                for (int r = 0; r < 3; r++)
                    v += A[r * 4 + i] * L[y * 4 + r];
                K[i * 3 + y] = v;
            }
        double S[9];
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++) {
                double v = 0;
                for (int i = 0; i < 4; i++)
                    v += G.m[x * 4 + i] * K[i * 3 + y];
                S[x * 3 + y] = v;
            }
        (void)solve_horn_from(S, R, R, q, Rn);
        solve_affine RS;
        for (int r = 0; r < 3; r++) {
            RS.m[r * 4 + 0] = Rn[r * 3 + 0] * rest.scale.x;
            RS.m[r * 4 + 1] = Rn[r * 3 + 1] * rest.scale.y;
            RS.m[r * 4 + 2] = Rn[r * 3 + 2] * rest.scale.z;
            RS.m[r * 4 + 3] = 0;
        }
        solve_affine_mul(&P, &RS, &s->world[n]);
        solve_affine_mul(&s->world[n], &s->ibm[j], &s->cur[j]);
    }
}

double solve_sweep_rotation_only(sinew_solver *s, double error_before)
{
    /* try the fast detached pass; fall back on the descent pass when it does not help */
    const uint32_t J = s->joint_count;
    solve_affine *saved = (solve_affine *)s->scratch;
    memcpy(saved, s->cur, J * sizeof *saved);
    sweep_detached(s);
    double e = solve_error_from_moments(s);
    if (e < error_before) return e;
    memcpy(s->cur, saved, J * sizeof *saved);
    sweep_hierarchical(s);
    return solve_error_from_moments(s);
}
