/* The per-frame solver: block coordinate descent over bones (SSDR transform update, Le and
 * Deng 2012; the method of Sidorkin, "Solve the surface, not the skeleton"): each bone in turn
 * gets the closed-form weighted rigid fit to what the others leave unexplained, until the RMS
 * error or its progress per sweep is small against the model's diagonal (absolute, not
 * relative: the article's relative test stopped sweeps that were still gaining). Each frame
 * starts from the previous answer. */
#include "solve_internal.h"

#include <math.h>
#include <string.h>

#define DEFAULT_MAX_SWEEPS 100u
#define DEFAULT_PROGRESS 1e-9f
#define DEFAULT_ERROR 1e-7f
#define FIRST_FRAME_FACTOR 4u
/* Less skin weight than three vertices' worth: what a rigid fit needs at the least (three
 * points not on a line). Such a joint's fit is the noise of its few partial vertices, and as
 * a parent it throws its children's local tracks about: the quaternius wolf's Body keeps 2.7
 * vertices' worth once `sinew tail` has given the tail's skin to the chain, and fitted free it
 * turned 68 degrees between two frames of Gallop while Back undid it, so the clip played at
 * Q 93.7% between frames against 99.4% at them (99.3% following the source's Body). Measured
 * with bench_solve_animals (80 solves of five animals' Walk and Gallop onto four rigs each): 3
 * and 5 give the same figures; 1.5 leaves the wolf's Body free; 10 takes a joint the cow's
 * artist rig needs (its control Walk then plays 98.97% instead of 99.94%). */
#define LEAST_INFLUENCE 3.0

void solve_fit_free(const double A[12], const double U[16], double sigma, const solve_affine *prev,
                    const solve_affine *tie, solve_affine *out)
{
    const double s = U[15];
    if (!(s > 0)) { /* no weight: keep the previous transform */
        *out = *prev;
        return;
    }
    const double sv[3] = {U[3], U[7], U[11]}; /* sum w^2 u */
    const double sq[3] = {A[3], A[7], A[11]}; /* sum w q */
    /* Weighted cross-covariance about the centroids: source a = u - u_bar, target
     * b = q / w - q_bar, weights w^2: S[x][y] = sum w u_x q_y - sv_x sq_y / s. */
    double S[9];
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++)
            S[x * 3 + y] = A[y * 4 + x] - sv[x] * sq[y] / s;
    const double is = 1.0 / sigma;
    const double prev_rot[9] = {tie->m[0] * is, tie->m[1] * is, tie->m[2] * is,
                                tie->m[4] * is, tie->m[5] * is, tie->m[6] * is,
                                tie->m[8] * is, tie->m[9] * is, tie->m[10] * is};
    const double start[9] = {prev->m[0] * is, prev->m[1] * is, prev->m[2] * is,
                             prev->m[4] * is, prev->m[5] * is, prev->m[6] * is,
                             prev->m[8] * is, prev->m[9] * is, prev->m[10] * is};
    double q[4], R[9];
    (void)solve_horn_from(S, prev_rot, start, q, R);
    for (int r = 0; r < 3; r++) {
        double t = sq[r] / s;
        for (int c = 0; c < 3; c++) {
            out->m[r * 4 + c] = sigma * R[r * 3 + c];
            t -= sigma * R[r * 3 + c] * sv[c] / s;
        }
        out->m[r * 4 + 3] = t;
    }
}

void solve_follow_parent(sinew_solver *s, uint32_t n, int32_t j)
{
    const int32_t parent = s->rig->nodes[n].parent;
    const solve_affine *local = j >= 0 ? &s->empty_local[n] : &s->file_local[n];
    if (parent >= 0) {
        solve_affine_mul(&s->world[parent], local, &s->world[n]);
    } else {
        s->world[n] = *local;
        for (int r = 0; r < 3; r++)
            s->world[n].m[r * 4 + 3] -= s->centre[r];
    }
    if (j >= 0) solve_affine_mul(&s->world[n], &s->ibm[j], &s->cur[j]);
}

void solve_update_empty_joints(sinew_solver *s)
{
    for (uint32_t n = 0; n < s->node_count; n++) {
        const int32_t j = s->node_joint[n];
        if (j >= 0 && s->kind[j] != SOLVE_JOINT_EMPTY)
            solve_affine_mul(&s->cur[j], &s->bind[j], &s->world[n]);
        else
            solve_follow_parent(s, n, j);
    }
}

void sinew_solver_set_unweighted(sinew_solver *s, const sinew_transform *pose)
{
    if (!s) return;
    for (uint32_t n = 0; n < s->node_count; n++) {
        const int32_t j = s->node_joint[n];
        if (j < 0 || s->kind[j] != SOLVE_JOINT_EMPTY) continue;
        if (pose)
            solve_affine_from_transform(pose[n], &s->empty_local[n]);
        else
            s->empty_local[n] = s->rest_local[n];
    }
}

void sinew_solver_free(sinew_solver *s)
{
    if (!s) return;
    const sinew_allocator a = s->alloc;
    void *blocks[] = {s->constraints, s->block_group,  s->group,     s->item_slot,  s->item_bind,
                      s->item_weight, s->block_target, s->entry_sum, s->pairs,      s->nbr_start,
                      s->nbr_joint,   s->nbr_pair,     s->self_pair, s->init_uut,   s->kind,
                      s->node_joint,  s->bind,         s->ibm,       s->file_local, s->rest_local,
                      s->empty_local, s->vut,          s->cur,       s->world,      s->scratch,
                      s->local_rot,   s->order,        s->scale,     s->hist,       s->sub_start,
                      s->sub_joint,   s->in_sub};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        sinew_free(&a, blocks[i]);
    sinew_free(&a, s);
}

void sinew_solver_reset(sinew_solver *s)
{
    if (s) s->warm = 0;
}

sinew_result sinew_solver_create(const sinew_model *rig, const sinew_solve_options *options,
                                 sinew_solver **out, sinew_error *err)
{
    *out = NULL;
    if (!rig || rig->skin.joint_count == 0 || rig->mesh.vertex_count == 0)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "solve: the rig needs a skin with joints and a skinned mesh");
    sinew_allocator alloc = {0};
    if (options && options->allocator) alloc = *options->allocator;
    sinew_solver *s = sinew_alloc(&alloc, 1, sizeof *s);
    if (!s) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    s->alloc = alloc;
    s->rig = rig;
    if (options) s->opt = *options;
    if (s->opt.max_sweeps == 0) s->opt.max_sweeps = DEFAULT_MAX_SWEEPS;
    if (!(s->opt.progress_tolerance > 0)) s->opt.progress_tolerance = DEFAULT_PROGRESS;
    if (!(s->opt.error_tolerance > 0)) s->opt.error_tolerance = DEFAULT_ERROR;
    const uint32_t J = rig->skin.joint_count, N = rig->node_count;
    s->joint_count = J;
    s->node_count = N;
    s->vertex_count = rig->mesh.vertex_count;
    s->diagonal = solve_rest_skin(rig, &alloc, NULL);
    if (!(s->diagonal > 0)) s->diagonal = rig->size.diagonal > 0 ? rig->size.diagonal : 1.0;

    const sinew_allocator *a = &s->alloc;
    s->kind = sinew_alloc(a, J, 1);
    s->node_joint = sinew_alloc(a, N, sizeof(int32_t));
    s->bind = sinew_alloc(a, J, sizeof(solve_affine));
    s->ibm = sinew_alloc(a, J, sizeof(solve_affine));
    s->file_local = sinew_alloc(a, N, sizeof(solve_affine));
    s->rest_local = sinew_alloc(a, N, sizeof(solve_affine));
    s->empty_local = sinew_alloc(a, N, sizeof(solve_affine));
    s->vut = sinew_alloc(a, (size_t)J * 12, sizeof(double));
    s->cur = sinew_alloc(a, J, sizeof(solve_affine));
    s->world = sinew_alloc(a, N, sizeof(solve_affine));
    s->scratch = sinew_alloc(a, (size_t)J * 12, sizeof(double));
    s->local_rot = sinew_alloc(a, (size_t)J * 9, sizeof(double));
    s->order = sinew_alloc(a, J, sizeof(uint32_t));
    s->scale = sinew_alloc(a, J, sizeof(double));
    s->hist = sinew_alloc(a, (size_t)J * 2, sizeof(solve_affine));
    if (!s->scale || !s->hist || !s->kind || !s->node_joint || !s->bind || !s->ibm ||
        !s->file_local || !s->rest_local || !s->empty_local || !s->vut || !s->cur || !s->world ||
        !s->scratch || !s->local_rot || !s->order) {
        sinew_solver_free(s);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    for (uint32_t n = 0; n < N; n++) {
        const sinew_node *node = &rig->nodes[n];
        s->node_joint[n] = -1;
        if (node->parent >= (int32_t)n) {
            sinew_solver_free(s);
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "solve: node %u (\"%s\") comes before its parent", n,
                                   node->name ? node->name : "");
        }
        solve_affine_from_transform(node->local, &s->file_local[n]);
        solve_affine_from_transform(node->rest, &s->rest_local[n]);
        s->empty_local[n] = s->rest_local[n];
    }
    uint32_t ordered = 0;
    for (uint32_t n = 0; n < N; n++)
        for (uint32_t j = 0; j < J; j++)
            if (rig->skin.joints[j].node == (int32_t)n && s->node_joint[n] < 0) {
                s->node_joint[n] = (int32_t)j;
                s->order[ordered++] = j;
            }
    if (ordered != J) {
        sinew_solver_free(s);
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "solve: the skin's joints do not map one-to-one onto nodes");
    }
    for (uint32_t j = 0; j < J; j++) {
        solve_affine_from_mat4(&rig->skin.joints[j].inverse_bind, &s->ibm[j]);
        if (!solve_affine_invert(&s->ibm[j], &s->bind[j])) {
            uint32_t n = (uint32_t)rig->skin.joints[j].node;
            sinew_solver_free(s);
            return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                                   "solve: joint %u (\"%s\"): inverse bind matrix is singular", j,
                                   rig->nodes[n].name ? rig->nodes[n].name : "");
        }
    }
    /* sigma_j from the rest pose: world_j (rest locals for joints, the file's for others)
     * times IBM_j */
    for (uint32_t n = 0; n < N; n++) {
        const int32_t j = s->node_joint[n], parent = rig->nodes[n].parent;
        const solve_affine *local = j >= 0 ? &s->rest_local[n] : &s->file_local[n];
        if (parent >= 0)
            solve_affine_mul(&s->world[parent], local, &s->world[n]);
        else
            s->world[n] = *local;
        if (j < 0) continue;
        solve_affine m;
        solve_affine_mul(&s->world[n], &s->ibm[j], &m);
        const double *x = m.m;
        const double det = x[0] * (x[5] * x[10] - x[6] * x[9]) -
                           x[1] * (x[4] * x[10] - x[6] * x[8]) + x[2] * (x[4] * x[9] - x[5] * x[8]);
        const double sigma = cbrt(fabs(det));
        s->scale[j] = sigma > 0 && isfinite(sigma) ? sigma : 1.0;
    }
    /* A joint's total skin weight, in vertices' worth: below LEAST_INFLUENCE the surface
     * does not determine its rotation and it is treated as unweighted (it follows the source
     * joint of its name, or its rest). */
    double *influence = (double *)s->scratch; /* J doubles: the scratch holds J affines */
    sinew_result r = solve_build_moments(s, influence, err);
    if (r != SINEW_OK) {
        sinew_solver_free(s);
        return r;
    }
    /* Kinds: a joint without constraint weight follows its parent; with rotation_only, a
     * weighted joint below a weighted joint turns about its rest pivot. */
    for (uint32_t n = 0; n < N; n++) {
        const int32_t j = s->node_joint[n];
        if (j < 0) continue;
        if (s->self_pair[j] == UINT32_MAX || !(s->pairs[s->self_pair[j]].uut[15] > 0) ||
            influence[j] < LEAST_INFLUENCE) {
            s->kind[j] = SOLVE_JOINT_EMPTY;
            continue;
        }
        s->kind[j] = SOLVE_JOINT_FREE;
        if (!s->opt.rotation_only) continue;
        for (int32_t p = rig->nodes[n].parent; p >= 0; p = rig->nodes[p].parent) {
            const int32_t pj = s->node_joint[p];
            if (pj >= 0 && s->kind[pj] != SOLVE_JOINT_EMPTY) {
                s->kind[j] = SOLVE_JOINT_PIVOT;
                break;
            }
        }
    }
    if (s->opt.rotation_only) {
        r = solve_rotation_only_prepare(s, err);
        if (r != SINEW_OK) {
            sinew_solver_free(s);
            return r;
        }
    }
    *out = s;
    return SINEW_OK;
}

/* Independent start for a cold frame: each bone fits the targets weighted by w_ij alone
 * (U = sum_k uuT_jk = sum_i w_ij u~ u~^T, since weights sum to 1). */
static void cold_start(sinew_solver *s)
{
    solve_affine id;
    solve_affine_identity(&id);
    for (uint32_t j = 0; j < s->joint_count; j++) {
        s->cur[j] = id;
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                s->cur[j].m[r * 4 + c] *= s->scale[j];
            s->cur[j].m[r * 4 + 3] = -s->centre[r];
        }
        if (s->kind[j] == SOLVE_JOINT_EMPTY) continue;
        solve_affine fit;
        solve_fit_free(&s->vut[(size_t)j * 12], &s->init_uut[(size_t)j * 16], s->scale[j],
                       &s->cur[j], &s->cur[j], &fit);
        s->cur[j] = fit;
    }
    /* Rotation-only: put every pivot joint back on its rest translation, keeping the
     * rotation the independent fit suggests. */
    if (s->opt.rotation_only) solve_rotation_only_project(s);
}

static void sweep_free(sinew_solver *s)
{
    double A[12];
    for (uint32_t o = 0; o < s->joint_count; o++) {
        const uint32_t j = s->order[o];
        if (s->kind[j] == SOLVE_JOINT_EMPTY) continue;
        solve_bone_residual(s, j, A);
        /* ties (a free spin of collinear points) go to the previous frame's answer, not to
         * the extrapolated warm start, so an undetermined spin never drifts */
        const solve_affine *tie = s->history > 0 ? &s->hist[j] : &s->cur[j];
        solve_fit_free(A, s->pairs[s->self_pair[j]].uut, s->scale[j], &s->cur[j], tie, &s->cur[j]);
    }
}

/* Warm start: the previous frame, or its constant-velocity extrapolation
 * M1 inv(M2) M1 when two frames are known, whichever the moments say fits better. */
static void warm_start(sinew_solver *s)
{
    const uint32_t J = s->joint_count;
    for (uint32_t j = 0; j < J; j++) {
        s->cur[j] = s->hist[j];
        for (int r = 0; r < 3; r++)
            s->cur[j].m[r * 4 + 3] -= s->centre[r];
    }
    if (s->history < 2 || s->opt.rotation_only) return;
    const double e_hold = solve_error_from_moments(s);
    solve_affine *held = (solve_affine *)s->scratch; /* J * 12 doubles = J affines */
    memcpy(held, s->cur, J * sizeof *held);
    for (uint32_t j = 0; j < J; j++) {
        solve_affine inv, step;
        if (!solve_affine_invert(&s->hist[J + j], &inv)) continue;
        solve_affine_mul(&s->hist[j], &inv, &step);
        solve_affine_mul(&step, &s->hist[j], &s->cur[j]);
        /* keep it a scaled rotation: re-orthonormalise by the polar-free shortcut of Horn on
         * the predicted frame itself (its columns as points) */
        double S[9], start[9], q[4], R[9];
        const double is = 1.0 / s->scale[j];
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++) {
                S[x * 3 + y] = s->cur[j].m[y * 4 + x] * is;
                start[y * 3 + x] = S[x * 3 + y]; /* the nearly rotation itself */
            }
        (void)solve_horn_from(S, NULL, start, q, R);
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                s->cur[j].m[r * 4 + c] = s->scale[j] * R[r * 3 + c];
            s->cur[j].m[r * 4 + 3] -= s->centre[r];
        }
    }
    if (solve_error_from_moments(s) >= e_hold) memcpy(s->cur, held, J * sizeof *held);
}

sinew_result sinew_solver_frame(sinew_solver *s, const sinew_vec3 *targets,
                                sinew_mat4 *skin_matrices, sinew_solve_frame_stats *stats,
                                sinew_error *err)
{
    if (!solve_frame_moments(s, targets))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "solve: a target position is not finite");
    uint32_t max_sweeps = s->opt.max_sweeps;
    if (s->warm) {
        warm_start(s);
    } else {
        s->history = 0;
        cold_start(s);
        max_sweeps *= FIRST_FRAME_FACTOR;
    }
    /* Joints that follow (no skin, or too little to fit) take this frame's pose before the
     * others fit what they leave: a joint with a few vertices of its own is part of every
     * residual, and one frame late it would be fitted around. */
    solve_update_empty_joints(s);
    const double C = (double)s->constraint_count;
    const double err_tol = s->opt.error_tolerance * s->diagonal;
    const double prog_tol = s->opt.progress_tolerance * s->diagonal;
    double e2 = solve_error_from_moments(s);
    double rms = sqrt(e2 / C);
    uint32_t sweeps = 0;
    while (sweeps < max_sweeps && rms > err_tol) {
        if (s->opt.rotation_only) {
            solve_sweep_rotation_only(s, e2);
            solve_update_empty_joints(s);
            e2 = solve_error_from_moments(s);
        } else {
            sweep_free(s);
            solve_update_empty_joints(s);
            e2 = solve_error_from_moments(s);
        }
        sweeps++;
        const double next = sqrt(e2 / C);
        const double progress = rms - next;
        rms = next;
        if (progress < prog_tol) break;
    }
    solve_update_empty_joints(s);
    const uint32_t J = s->joint_count;
    memcpy(&s->hist[J], s->hist, J * sizeof *s->hist);
    for (uint32_t j = 0; j < J; j++) {
        solve_affine m = s->cur[j];
        for (int r = 0; r < 3; r++)
            m.m[r * 4 + 3] += s->centre[r];
        s->hist[j] = m;
        solve_affine_to_mat4(&m, &skin_matrices[j]);
    }
    if (s->history < 2) s->history++;
    s->warm = 1;
    if (stats) {
        stats->sweeps = sweeps;
        stats->rms_error = rms;
    }
    return SINEW_OK;
}
