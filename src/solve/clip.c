/* One clip end to end: frames, targets, the per-frame solver with warm start, the rig's
 * local tracks and the quality of the surface they reproduce. */
#include "solve_internal.h"

#include <math.h>
#include <string.h>

void sinew_solve_clip_result_free(sinew_solve_clip_result *r)
{
    if (!r) return;
    const sinew_allocator a = r->allocator;
    sinew_free(&a, r->times);
    sinew_free(&a, r->poses);
    sinew_free(&a, r->skin_matrices);
    sinew_free(&a, r->vertex_error);
    sinew_free(&a, r->frame_error);
    sinew_free(&a, r->vertex_error_sum);
    sinew_free(&a, r->vertex_moved_sum);
    memset(r, 0, sizeof *r);
}

/* Largest |M' p - M p| over the eight corners of the bind box: bounds the mismatch of any
 * vertex inside it. */
static double matrix_mismatch(const sinew_mat4 *a, const sinew_mat4 *b, const sinew_size *size)
{
    double worst = 0;
    for (int c = 0; c < 8; c++) {
        const sinew_vec3 p =
            sinew_vec3_make(c & 1 ? size->max.x : size->min.x, c & 2 ? size->max.y : size->min.y,
                            c & 4 ? size->max.z : size->min.z);
        const double d =
            sinew_vec3_distance(sinew_mat4_transform_point(a, p), sinew_mat4_transform_point(b, p));
        if (d > worst) worst = d;
    }
    return worst;
}

/* The local pose the joints without weight follow at one time: a rig joint whose name a
 * source node has moves from its rest as that node moves from its own, local = rest_rig *
 * inv(rest_source) * local_source(t) (the source's own track in a control run, where the two
 * rests are one), the translation of that motion scaled into the rig's units by the
 * alignment; other nodes stand at rest. `same` (rig->node_count) holds each rig node's source
 * node or -1; `source_pose` is scratch of source->node_count. */
static void follow_pose(const sinew_model *source, const sinew_clip *clip, float time,
                        const sinew_model *rig, const int32_t *same, double scale,
                        sinew_transform *source_pose, sinew_transform *pose)
{
    sinew_pose_rest(rig, pose);
    sinew_clip_sample(source, clip, time, source_pose);
    for (uint32_t n = 0; n < rig->node_count; n++) {
        if (same[n] < 0) continue;
        solve_affine rest_s, inv_s, local_s, motion, rest_t, local_t;
        solve_affine_from_transform(source->nodes[same[n]].rest, &rest_s);
        solve_affine_from_transform(source_pose[same[n]], &local_s);
        if (!solve_affine_invert(&rest_s, &inv_s)) continue;
        solve_affine_mul(&inv_s, &local_s, &motion);
        for (int r = 0; r < 3; r++)
            motion.m[r * 4 + 3] *= scale;
        solve_affine_from_transform(rig->nodes[n].rest, &rest_t);
        solve_affine_mul(&rest_t, &motion, &local_t);
        sinew_mat4 m;
        solve_affine_to_mat4(&local_t, &m);
        pose[n] = sinew_mat4_decompose(&m);
        pose[n].rotation = sinew_quat_normalize(pose[n].rotation);
    }
}

sinew_result sinew_solve_clip(const sinew_model *source, const sinew_clip *clip,
                              const sinew_model *rig, const uint32_t *nearest,
                              const sinew_solve_options *options, sinew_solve_clip_result *out,
                              sinew_error *err)
{
    memset(out, 0, sizeof *out);
    if (options && options->allocator) out->allocator = *options->allocator;
    /* The scratch's allocator: the result's, held apart from the result it frees. */
    const sinew_allocator alloc = out->allocator;
    const sinew_allocator *a = &alloc;
    sinew_solve_frame_plan plan;
    sinew_result r = sinew_solve_plan_frames(clip, options ? options->frame_rate : 0.0f,
                                             options ? options->max_frames : 0, &plan, err);
    if (r != SINEW_OK) return r;
    out->plan = plan;
    const float rate = plan.rate;
    const uint32_t F = plan.frame_count;
    const uint32_t N = rig->node_count, J = rig->skin.joint_count, V = rig->mesh.vertex_count;
    out->frame_count = F;
    out->node_count = N;
    out->joint_count = J;
    out->vertex_count = V;
    out->times = sinew_alloc(a, F, sizeof(float));
    out->poses = sinew_alloc(a, (size_t)F * N, sizeof(sinew_transform));
    out->skin_matrices = sinew_alloc(a, (size_t)F * J, sizeof(sinew_mat4));
    out->vertex_error = sinew_alloc(a, V, sizeof(float));
    out->frame_error = sinew_alloc(a, F, sizeof(float));
    out->vertex_error_sum = sinew_alloc(a, V, sizeof(float));
    out->vertex_moved_sum = sinew_alloc(a, V, sizeof(float));
    sinew_vec3 *targets = sinew_alloc(a, V, sizeof(sinew_vec3));
    sinew_vec3 *solved = sinew_alloc(a, V, sizeof(sinew_vec3));
    sinew_vec3 *rest = sinew_alloc(a, V, sizeof(sinew_vec3));
    sinew_mat4 *world = sinew_alloc(a, N ? N : 1, sizeof(sinew_mat4));
    sinew_mat4 *reskin = sinew_alloc(a, J ? J : 1, sizeof(sinew_mat4));
    int32_t *same = sinew_alloc(a, N ? N : 1, sizeof(int32_t));
    sinew_transform *follow = sinew_alloc(a, N ? N : 1, sizeof(sinew_transform));
    sinew_transform *source_pose =
        sinew_alloc(a, source->node_count ? source->node_count : 1, sizeof(sinew_transform));
    sinew_solver *solver = NULL;
    if (!out->times || !out->poses || !out->skin_matrices || !out->vertex_error ||
        !out->frame_error || !out->vertex_error_sum || !out->vertex_moved_sum || !targets ||
        !solved || !rest || !world || !reskin || !same || !follow || !source_pose) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
        goto done;
    }
    sinew_solve_frame_times(clip, rate, out->times, F);
    r = solve_keys_resolve(options, &out->keys, err);
    if (r != SINEW_OK) goto done;
    /* "Not moving" is the rest pose as a player shows it; errors are against its size. */
    out->diagonal = solve_rest_skin(rig, a, rest);
    if (!(out->diagonal > 0)) out->diagonal = rig->size.diagonal > 0 ? rig->size.diagonal : 1.0;
    r = sinew_solver_create(rig, options, &solver, err);
    if (r != SINEW_OK) goto done;
    for (uint32_t n = 0; n < N; n++)
        same[n] = rig->nodes[n].joint >= 0 && rig->nodes[n].name
                      ? sinew_model_find_node(source, rig->nodes[n].name)
                      : -1;
    const double follow_scale =
        options && options->alignment ? (double)options->alignment->scale : 1.0;

    sinew_solve_quality *q = &out->quality;
    double sweeps = 0;
    for (uint32_t f = 0; f < F; f++) {
        r = sinew_solve_targets_aligned(source, clip, &out->times[f], 1, rig, nearest,
                                        options ? options->alignment : NULL, a, targets, err);
        if (r != SINEW_OK) goto done;
        follow_pose(source, clip, out->times[f], rig, same, follow_scale, source_pose, follow);
        sinew_solver_set_unweighted(solver, follow);
        sinew_solve_frame_stats st;
        sinew_mat4 *M = &out->skin_matrices[(size_t)f * J];
        r = sinew_solver_frame(solver, targets, M, &st, err);
        if (r != SINEW_OK) goto done;
        sweeps += st.sweeps;
        if (st.sweeps > out->max_sweeps) out->max_sweeps = st.sweeps;

        /* local tracks, quaternion signs continuous with the previous frame */
        sinew_transform *pose = &out->poses[(size_t)f * N];
        sinew_solve_local_pose(rig, M, pose, world);
        if (f > 0)
            for (uint32_t n = 0; n < N; n++) {
                const sinew_quat prev = out->poses[(size_t)(f - 1) * N + n].rotation;
                sinew_quat *cur = &pose[n].rotation;
                if (sinew_quat_dot(prev, *cur) < 0)
                    *cur = sinew_quat_make(-cur->x, -cur->y, -cur->z, -cur->w);
            }

        /* re-skin from the written tracks: the quality is of what a player will show */
        sinew_pose_to_world(rig, pose, world);
        sinew_skin_matrices(rig, world, reskin);
        for (uint32_t j = 0; j < J; j++) {
            const double d = matrix_mismatch(&reskin[j], &M[j], &rig->size);
            if (d > out->reskin_mismatch) out->reskin_mismatch = d;
        }
        sinew_skin_positions(rig, reskin, solved);
        double frame_sum = 0;
        for (uint32_t i = 0; i < V; i++) {
            const double e = sinew_vec3_distance(solved[i], targets[i]);
            const double moved = sinew_vec3_distance(targets[i], rest[i]);
            frame_sum += e;
            q->moved += moved;
            out->vertex_error_sum[i] += (float)e;
            out->vertex_moved_sum[i] += (float)moved;
            if (e > out->vertex_error[i]) out->vertex_error[i] = (float)e;
            if (e / out->diagonal > q->max_error || (f == 0 && i == 0)) {
                q->max_error = e / out->diagonal;
                q->worst_frame = f;
                q->worst_vertex = i;
                q->worst_time = out->times[f];
            }
        }
        q->error += frame_sum;
        out->frame_error[f] = (float)(frame_sum / (V ? V : 1));
    }
    q->samples = (uint64_t)F * V;
    q->mean_error = q->samples ? q->error / (double)q->samples / out->diagonal : 0;
    q->q = q->moved > 0 ? 1.0 - q->error / q->moved : (q->error > 0 ? 0 : 1);
    out->sweeps_per_frame = F ? sweeps / F : 0;
    r = solve_keys_count(rig, out, a, err);

done:
    sinew_solver_free(solver);
    sinew_free(a, targets);
    sinew_free(a, solved);
    sinew_free(a, rest);
    sinew_free(a, world);
    sinew_free(a, reskin);
    sinew_free(a, same);
    sinew_free(a, follow);
    sinew_free(a, source_pose);
    if (r != SINEW_OK) sinew_solve_clip_result_free(out);
    return r;
}
