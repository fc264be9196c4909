/* A wing's springs (see pipeline_internal.h): the tail's runtime with a wing's settings. */
#include "pipeline_internal.h"

#include <string.h>

/* Wing springs, stiffer than a tail's (0.9 Hz at the root, half that at the tip): a wing is
 * held out by its muscles, so the springs only add a lag and a flutter to what the animator
 * or the surface solve gives it, and the chain stays near its modelled shape. 3 Hz at the root
 * and 2 at the tip, damped at 0.8: on the nowing pigeon's flying clips the wing skin then
 * keeps its p99 within the body's (the table of `sinew tail`); the safe range is 2-6 Hz (below,
 * the wingtip trails far behind a flap; above the runtime's stable 10 Hz with 1/60 s steps). */
#define WING_FREQUENCY_ROOT 3.0f
#define WING_FREQUENCY_TIP 2.0f
#define WING_DAMPING 0.8f

/* A wing rests as it was modelled (the full modelled curve, no carry, no gravity sag) and has
 * no floor and no forward plane (both are a tail's: the ground it may lie on, the body it
 * must stay behind). */
static sinew_dyn_params wing_params(const sinew_dyn_params *tail)
{
    sinew_dyn_params p;
    memset(&p, 0, sizeof p);
    if (tail) p = *tail;
    p.frequency_root = WING_FREQUENCY_ROOT;
    p.frequency_tip = WING_FREQUENCY_TIP;
    p.damping_ratio = WING_DAMPING;
    p.rest_curve = 1.0f;
    p.disable |=
        SINEW_DYN_NO_FLOOR | SINEW_DYN_NO_FORWARD_PLANE | SINEW_DYN_NO_CARRY | SINEW_DYN_NO_GRAVITY;
    return p;
}

sinew_result pipeline_bake_wing(sinew_document *doc, sinew_model *model,
                                const sinew_rig_chain *chain, const sinew_bake_options *options,
                                sinew_error *err)
{
    int32_t nodes[SINEW_RIG_MAX_SEGMENTS + 1];
    const uint32_t links = chain->bone_count - 1; /* the last bone is the unweighted end */
    for (uint32_t b = 0; b < chain->bone_count; b++) {
        nodes[b] = sinew_model_find_node(model, chain->bones[b].name);
        if (nodes[b] < 0)
            return sinew_error_set(err, SINEW_ERR_INTERNAL, "wings: %s is not in the model",
                                   chain->bones[b].name);
    }
    const sinew_dyn_chain_desc desc = {nodes, links, nodes[links]};
    const sinew_dyn_params params = wing_params(options ? options->params : NULL);
    sinew_bake_options o;
    memset(&o, 0, sizeof o);
    if (options) o = *options;
    o.params = &params;
    sinew_result r = SINEW_OK;
    for (uint32_t c = 0; r == SINEW_OK && c < model->clip_count; c++) {
        sinew_bake_track track;
        if ((r = sinew_bake_clip(model, &desc, c, &o, &track, err)) != SINEW_OK) break;
        if (doc) r = sinew_bake_apply_document(doc, model, &track, err);
        if (r == SINEW_OK) r = sinew_bake_apply_model(model, &track, err);
        sinew_bake_track_free(model, &track);
    }
    return r;
}
