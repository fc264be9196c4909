/* Solved clips into the rig's own document: per joint node, LINEAR translation and rotation
 * tracks (and scale when the solve needs it) under an animation named like the source clip.
 * Replaces an existing clip of that name only when asked. */
#include "solve_internal.h"

#include "sinew/document.h"

#include <math.h>
#include <string.h>

sinew_result sinew_solve_write_clip(struct sinew_document *doc, const sinew_model *rig,
                                    const sinew_solve_clip_result *res, const char *name,
                                    int replace, sinew_error *err)
{
    if (!doc || !rig || !res || !name || res->frame_count == 0 ||
        res->node_count != rig->node_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "solve: nothing to write");
    for (uint32_t n = 0; n < rig->node_count; n++)
        if (rig->nodes[n].joint >= 0 && rig->nodes[n].gltf_node < 0)
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "solve: joint node %u (\"%s\") is not in the document", n,
                                   rig->nodes[n].name ? rig->nodes[n].name : "");
    int32_t anim = -1;
    sinew_error probe;
    sinew_result r = sinew_document_find_animation(doc, name, 0, &anim, &probe);
    if (r == SINEW_OK) {
        if (!replace)
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "solve: the target already has an animation \"%s\" (use "
                                   "--replace to overwrite it)",
                                   name);
        r = sinew_document_clear_animation(doc, anim, err);
        if (r != SINEW_OK) return r;
    } else if (r == SINEW_ERR_NOT_FOUND) {
        r = sinew_document_find_animation(doc, name, 1, &anim, err);
        if (r != SINEW_OK) return r;
    } else {
        if (err) *err = probe;
        return r;
    }
    const uint32_t F = res->frame_count, N = res->node_count;
    sinew_allocator a = {0};
    float *values = sinew_alloc(&a, (size_t)F * 4, sizeof(float));
    if (!values) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    for (uint32_t n = 0; n < N && r == SINEW_OK; n++) {
        const sinew_node *node = &rig->nodes[n];
        if (node->joint < 0) continue;
        for (uint32_t f = 0; f < F; f++) {
            const sinew_vec3 t = res->poses[(size_t)f * N + n].translation;
            values[f * 3 + 0] = t.x, values[f * 3 + 1] = t.y, values[f * 3 + 2] = t.z;
        }
        r = sinew_document_set_channel(doc, anim, node->gltf_node, SINEW_PATH_TRANSLATION,
                                       SINEW_INTERP_LINEAR, F, res->times, values, err);
        if (r != SINEW_OK) break;
        for (uint32_t f = 0; f < F; f++) {
            const sinew_quat q = res->poses[(size_t)f * N + n].rotation;
            values[f * 4 + 0] = q.x, values[f * 4 + 1] = q.y, values[f * 4 + 2] = q.z,
                           values[f * 4 + 3] = q.w;
        }
        r = sinew_document_set_channel(doc, anim, node->gltf_node, SINEW_PATH_ROTATION,
                                       SINEW_INTERP_LINEAR, F, res->times, values, err);
        if (r != SINEW_OK) break;
        /* Scale only when a frame's differs from the node's own (players keep the file's). */
        int need_scale = 0;
        for (uint32_t f = 0; f < F; f++) {
            const sinew_vec3 s = res->poses[(size_t)f * N + n].scale;
            if (fabsf(s.x - node->local.scale.x) > 1e-4f * fabsf(node->local.scale.x) + 1e-6f ||
                fabsf(s.y - node->local.scale.y) > 1e-4f * fabsf(node->local.scale.y) + 1e-6f ||
                fabsf(s.z - node->local.scale.z) > 1e-4f * fabsf(node->local.scale.z) + 1e-6f)
                need_scale = 1;
            values[f * 3 + 0] = s.x, values[f * 3 + 1] = s.y, values[f * 3 + 2] = s.z;
        }
        if (need_scale)
            r = sinew_document_set_channel(doc, anim, node->gltf_node, SINEW_PATH_SCALE,
                                           SINEW_INTERP_LINEAR, F, res->times, values, err);
    }
    sinew_free(&a, values);
    return r;
}
