/* Bones as bind-space segments, the geometry that distance fields are measured against. */
#include "sinew/model.h"

/* Nearest joint ancestor of node `n` (skipping non-joint nodes), or -1. */
static int32_t parent_joint(const sinew_model *model, int32_t n)
{
    for (int32_t p = model->nodes[n].parent; p >= 0; p = model->nodes[p].parent)
        if (model->nodes[p].joint >= 0) return model->nodes[p].joint;
    return -1;
}

static sinew_vec3 joint_position(const sinew_model *model, int32_t j)
{
    return sinew_mat4_translation(&model->skin.joints[j].bind);
}

uint32_t sinew_model_bone_segment_bound(const sinew_model *model)
{
    /* Each joint is a child at most once, and each joint adds at most one terminal segment. */
    return 2 * model->skin.joint_count;
}

uint32_t sinew_model_bone_segments(const sinew_model *model, float terminal_extension,
                                   sinew_bone_segment *out)
{
    uint32_t count = 0;
    const uint32_t n = model->skin.joint_count;
    for (uint32_t j = 0; j < n; j++) {
        sinew_vec3 head = joint_position(model, (int32_t)j);
        int children = 0;
        for (uint32_t c = 0; c < n; c++) {
            if (parent_joint(model, model->skin.joints[c].node) != (int32_t)j) continue;
            out[count++] =
                (sinew_bone_segment){head, joint_position(model, (int32_t)c), (int32_t)j};
            children++;
        }
        if (children) continue;
        int32_t p = parent_joint(model, model->skin.joints[j].node);
        sinew_vec3 dir =
            p >= 0 ? sinew_vec3_normalize_or(sinew_vec3_sub(head, joint_position(model, p)),
                                             sinew_vec3_make(0, 0, 0))
                   : sinew_vec3_make(0, 0, 0);
        out[count++] =
            (sinew_bone_segment){head, sinew_vec3_madd(head, dir, terminal_extension), (int32_t)j};
    }
    return count;
}
