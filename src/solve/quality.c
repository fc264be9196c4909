/* Transfer quality (Sidorkin, "Solve the surface, not the skeleton", on what each rigging tool
 * really reproduces: the share of the moving surface's displacement that the rig reproduces),
 * per-vertex error and the heatmap colours. */
#include "solve_internal.h"

#include <math.h>

void sinew_solve_quality_merge(sinew_solve_quality *total, const sinew_solve_quality *part)
{
    const double diag_err_total = total->mean_error * (double)total->samples;
    const double diag_err_part = part->mean_error * (double)part->samples;
    if (part->max_error > total->max_error || total->samples == 0) {
        total->max_error = part->max_error;
        total->worst_frame = part->worst_frame;
        total->worst_vertex = part->worst_vertex;
        total->worst_time = part->worst_time;
    }
    total->moved += part->moved;
    total->error += part->error;
    total->samples += part->samples;
    total->mean_error =
        total->samples ? (diag_err_total + diag_err_part) / (double)total->samples : 0;
    total->q = total->moved > 0 ? 1.0 - total->error / total->moved : (total->error > 0 ? 0 : 1);
}

void sinew_solve_heat_color(float e, float rgba[4])
{
    float t = e / SINEW_SOLVE_HEAT_RED;
    if (!(t > 0)) t = 0; /* NaN too */
    if (t > 1) t = 1;
    /* blue -> cyan -> green -> yellow -> red, in four equal steps */
    const float s = t * 4;
    float r, g, b;
    if (s < 1) {
        r = 0, g = s, b = 1;
    } else if (s < 2) {
        r = 0, g = 1, b = 2 - s;
    } else if (s < 3) {
        r = s - 2, g = 1, b = 0;
    } else {
        r = 1, g = 4 - s, b = 0;
    }
    rgba[0] = r, rgba[1] = g, rgba[2] = b, rgba[3] = 1;
}

void sinew_solve_local_pose(const sinew_model *rig, const sinew_mat4 *skin_matrices,
                            sinew_transform *pose, sinew_mat4 *world)
{
    for (uint32_t n = 0; n < rig->node_count; n++) {
        const sinew_node *node = &rig->nodes[n];
        const int32_t j = node->joint;
        if (j < 0 || (uint32_t)j >= rig->skin.joint_count ||
            rig->skin.joints[j].node != (int32_t)n) {
            pose[n] = node->local;
            sinew_mat4 local = sinew_mat4_from_transform(node->local);
            world[n] = node->parent < 0 ? local : sinew_mat4_mul(&world[node->parent], &local);
            continue;
        }
        /* local_j = inv(world_parent) M_j W0_j, in double: the decomposition should not add
         * error on top of the solve's */
        solve_affine M, W0, Wj, P, Pinv, L;
        solve_affine_from_mat4(&skin_matrices[j], &M);
        solve_affine_from_mat4(&rig->skin.joints[j].bind, &W0);
        solve_affine_mul(&M, &W0, &Wj);
        if (node->parent >= 0) {
            solve_affine_from_mat4(&world[node->parent], &P);
            if (!solve_affine_invert(&P, &Pinv)) solve_affine_identity(&Pinv);
            solve_affine_mul(&Pinv, &Wj, &L);
        } else {
            L = Wj;
        }
        sinew_mat4 lm;
        solve_affine_to_mat4(&L, &lm);
        pose[n] = sinew_mat4_decompose(&lm);
        pose[n].rotation = sinew_quat_normalize(pose[n].rotation);
        sinew_mat4 local = sinew_mat4_from_transform(pose[n]);
        world[n] = node->parent < 0 ? local : sinew_mat4_mul(&world[node->parent], &local);
    }
}

double solve_rest_skin(const sinew_model *rig, const sinew_allocator *alloc, sinew_vec3 *out)
{
    const uint32_t N = rig->node_count, J = rig->skin.joint_count, V = rig->mesh.vertex_count;
    sinew_transform *pose = sinew_alloc(alloc, N ? N : 1, sizeof *pose);
    sinew_mat4 *world = sinew_alloc(alloc, N ? N : 1, sizeof *world);
    sinew_mat4 *skin = sinew_alloc(alloc, J ? J : 1, sizeof *skin);
    sinew_vec3 *pos = out ? out : sinew_alloc(alloc, V ? V : 1, sizeof *pos);
    double diag = 0;
    if (pose && world && skin && pos) {
        /* rest locals for joints, the file's TRS for other nodes (sinew_node.rest) */
        sinew_pose_rest(rig, pose);
        sinew_pose_to_world(rig, pose, world);
        sinew_skin_matrices(rig, world, skin);
        sinew_skin_positions(rig, skin, pos);
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        /* comparisons rather than fmin/fmax, which compilers call out of line for their NaN
         * rule; a NaN compares false and is passed over, as fmin passes it over */
        for (uint32_t v = 0; v < V; v++) {
            const double p[3] = {pos[v].x, pos[v].y, pos[v].z};
            for (int a = 0; a < 3; a++) {
                lo[a] = p[a] < lo[a] ? p[a] : lo[a];
                hi[a] = p[a] > hi[a] ? p[a] : hi[a];
            }
        }
        if (V > 0)
            diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                        (hi[2] - lo[2]) * (hi[2] - lo[2]));
        if (!isfinite(diag)) diag = 0;
    }
    sinew_free(alloc, pose);
    sinew_free(alloc, world);
    sinew_free(alloc, skin);
    if (!out) sinew_free(alloc, pos);
    return diag;
}
