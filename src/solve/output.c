/* Solved clips into the rig's own document: the clip solve_written_clip builds (per joint node,
 * LINEAR translation and rotation tracks, and scale when the solve needs it) under an
 * animation named like the source clip. Replaces an existing clip of that name only when
 * asked. */
#include "solve_internal.h"

#include "sinew/document.h"

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
    sinew_allocator a = {0};
    sinew_clip clip;
    r = solve_written_clip(rig, res, &a, &clip, err);
    for (uint32_t c = 0; c < clip.channel_count && r == SINEW_OK; c++) {
        const sinew_channel *ch = &clip.channels[c];
        r = sinew_document_set_channel(doc, anim, rig->nodes[ch->node].gltf_node, ch->path,
                                       ch->interpolation, ch->key_count, ch->times, ch->values,
                                       err);
    }
    solve_written_clip_free(&clip, &a);
    return r;
}
