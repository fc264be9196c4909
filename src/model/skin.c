/* Linear blend skinning: x' = sum_j w_j (world_j * IBM_j) x. Allocation-free. */
#include "sinew/model.h"

void sinew_skin_matrices(const sinew_model *model, const sinew_mat4 *world, sinew_mat4 *out)
{
    for (uint32_t j = 0; j < model->skin.joint_count; j++) {
        const sinew_joint *joint = &model->skin.joints[j];
        out[j] = sinew_mat4_mul(&world[joint->node], &joint->inverse_bind);
    }
}

void sinew_skin_positions(const sinew_model *model, const sinew_mat4 *skin_matrices,
                          sinew_vec3 *out_positions)
{
    const sinew_mesh *mesh = &model->mesh;
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        const uint16_t *joints = &mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        const float *weights = &mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES];
        const sinew_vec3 p = mesh->positions[v];
        float x = 0, y = 0, z = 0;
        for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
            const float w = weights[k];
            if (w == 0.0f) break; /* slots are sorted by weight, descending */
            const float *m = skin_matrices[joints[k]].m;
            x += w * (m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12]);
            y += w * (m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13]);
            z += w * (m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]);
        }
        out_positions[v] = sinew_vec3_make(x, y, z);
    }
}
