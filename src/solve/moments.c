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

static float vertex_weight_sum(const sinew_mesh *mesh, uint32_t v)
{
    float s = 0;
    for (int k = 0; k < SINEW_MAX_INFLUENCES; k++)
        s += mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES + k];
    return s;
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

    /* Entries grouped by joint (CSR). */
    s->entry_start = sinew_alloc(a, (size_t)J + 1, sizeof(uint32_t));
    int32_t *pair_of = sinew_alloc(a, (size_t)J * J, sizeof(int32_t));
    if (!s->entry_start || !pair_of) {
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
            s->entry_start[jt[p] + 1]++;
            entries++;
            for (int q = p; q < SINEW_MAX_INFLUENCES; q++) {
                if (!(wt[q] > 0) || jt[q] >= J) continue;
                uint32_t j = jt[p] < jt[q] ? jt[p] : jt[q], k = jt[p] < jt[q] ? jt[q] : jt[p];
                if (pair_of[(size_t)j * J + k] < 0) pair_of[(size_t)j * J + k] = (int32_t)pairs++;
            }
        }
    }
    for (uint32_t j = 0; j < J; j++)
        s->entry_start[j + 1] += s->entry_start[j];
    s->entry_vertex = sinew_alloc(a, entries ? entries : 1, sizeof(uint32_t));
    s->entry_weight = sinew_alloc(a, entries ? entries : 1, sizeof(float));
    s->pairs = sinew_alloc(a, pairs ? pairs : 1, sizeof(solve_pair));
    s->pair_count = pairs;
    uint32_t *fill = sinew_alloc(a, J, sizeof(uint32_t));
    if (!s->entry_vertex || !s->entry_weight || !s->pairs || !fill) {
        sinew_free(a, pair_of);
        sinew_free(a, fill);
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
        const double u[4] = {mesh->positions[v].x, mesh->positions[v].y, mesh->positions[v].z, 1};
        double uu[16];
        for (int r = 0; r < 4; r++)
            for (int col = 0; col < 4; col++)
                uu[r * 4 + col] = u[r] * u[col];
        for (int p = 0; p < SINEW_MAX_INFLUENCES; p++) {
            if (!(wt[p] > 0) || jt[p] >= J) continue;
            uint32_t e = s->entry_start[jt[p]] + fill[jt[p]]++;
            s->entry_vertex[e] = v;
            s->entry_weight[e] = wt[p];
            for (int q = p; q < SINEW_MAX_INFLUENCES; q++) {
                if (!(wt[q] > 0) || jt[q] >= J) continue;
                uint32_t j = jt[p] < jt[q] ? jt[p] : jt[q], k = jt[p] < jt[q] ? jt[q] : jt[p];
                solve_pair *pr = &s->pairs[pair_of[(size_t)j * J + k]];
                const double ww = (double)wt[p] * (double)wt[q];
                /* two slots naming the same joint still count as w_ij = sum of both */
                const double f = (q != p && jt[p] == jt[q]) ? 2 * ww : ww;
                for (int i = 0; i < 16; i++)
                    pr->uut[i] += f * uu[i];
            }
        }
    }
    sinew_free(a, fill);
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

int solve_frame_moments(sinew_solver *s, const sinew_vec3 *y)
{
    const uint32_t C = s->constraint_count, J = s->joint_count;
    const sinew_vec3 *u = s->rig->mesh.positions;
    double cx = 0, cy = 0, cz = 0;
    for (uint32_t c = 0; c < C; c++) {
        const sinew_vec3 p = y[s->constraints[c]];
        cx += p.x;
        cy += p.y;
        cz += p.z;
    }
    if (!isfinite(cx) || !isfinite(cy) || !isfinite(cz)) return 0;
    cx /= C, cy /= C, cz /= C;
    double yy = 0;
    for (uint32_t c = 0; c < C; c++) {
        const sinew_vec3 p = y[s->constraints[c]];
        const double dx = p.x - cx, dy = p.y - cy, dz = p.z - cz;
        yy += dx * dx + dy * dy + dz * dz;
    }
    s->centre[0] = cx, s->centre[1] = cy, s->centre[2] = cz;
    s->yy = yy;
    /* vuT_j: accumulators stay in registers while one joint's entries stream by. */
    for (uint32_t j = 0; j < J; j++) {
        double a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0, c0 = 0, c1 = 0,
               c2 = 0, c3 = 0;
        const uint32_t end = s->entry_start[j + 1];
        for (uint32_t e = s->entry_start[j]; e < end; e++) {
            const uint32_t v = s->entry_vertex[e];
            const double w = s->entry_weight[e];
            const double px = (y[v].x - cx) * w, py = (y[v].y - cy) * w, pz = (y[v].z - cz) * w;
            const double ux = u[v].x, uy = u[v].y, uz = u[v].z;
            a0 += px * ux, a1 += px * uy, a2 += px * uz, a3 += px;
            b0 += py * ux, b1 += py * uy, b2 += py * uz, b3 += py;
            c0 += pz * ux, c1 += pz * uy, c2 += pz * uz, c3 += pz;
        }
        double *o = &s->vut[(size_t)j * 12];
        o[0] = a0, o[1] = a1, o[2] = a2, o[3] = a3;
        o[4] = b0, o[5] = b1, o[6] = b2, o[7] = b3;
        o[8] = c0, o[9] = c1, o[10] = c2, o[11] = c3;
    }
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
