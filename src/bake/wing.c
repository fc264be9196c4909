/* Baking a wing: the tail's spring runtime with a wing's settings (see sinew/bake.h). */
#include "sinew/bake.h"

#include <stdio.h>
#include <string.h>

/* Wing springs, stiffer than a tail's (0.9 Hz at the root, half that at the tip): a wing is
 * held out by its muscles, so the springs only add a lag and a flutter to what the animator
 * or the surface solve gives it, and the chain stays near its modelled shape. Measured with
 * `sinew tail` then `sinew stretch OUT --part wing` (wing skin p99 on the nowing pigeon's
 * Fast_Flying and Flying_Idle, and on the UM demon's Walk; 0.0% torn in every case):
 * 1.5/1 Hz 1.06, 1.03, 1.09; 3/2 Hz 1.06, 1.03, 1.09; 6/4 Hz 1.03, 1.01, 1.06 (bodies 1.02 and
 * 1.37). Any root frequency from 1.5 to 6 Hz meets the bars; 3 Hz is the middle of it. The
 * runtime integrates stably up to 10 Hz with its 1/60 s steps. */
#define WING_FREQUENCY_ROOT 3.0f
#define WING_FREQUENCY_TIP 2.0f
#define WING_DAMPING 0.8f

/* A wing rests as it was modelled (the full modelled curve, no carry, no gravity sag) and has
 * no floor and no forward plane (both are a tail's: the ground it may lie on, the body it must
 * stay behind). The other fields (bend limits, steps, teleport) are the caller's. */
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

sinew_result sinew_bake_wing(sinew_document *doc, sinew_model *model,
                             const sinew_dyn_chain_desc *chain, const sinew_bake_options *options,
                             sinew_error *err)
{
    if (!model || !chain)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "bake wing: no model or no chain");
    const sinew_dyn_params params = wing_params(options ? options->params : NULL);
    sinew_bake_options o;
    memset(&o, 0, sizeof o);
    if (options) o = *options;
    o.params = &params;
    sinew_result r = SINEW_OK;
    for (uint32_t c = 0; r == SINEW_OK && c < model->clip_count; c++) {
        sinew_bake_track track;
        if ((r = sinew_bake_clip(model, chain, c, &o, &track, err)) != SINEW_OK) break;
        if (doc) r = sinew_bake_apply_document(doc, model, &track, err);
        if (r == SINEW_OK) r = sinew_bake_apply_model(model, &track, err);
        sinew_bake_track_free(&track);
    }
    return r;
}

sinew_result sinew_bake_wings(sinew_document *doc, sinew_model *model,
                              const sinew_bake_options *options, uint32_t *chains, sinew_error *err)
{
    *chains = 0;
    static const char *const sides[2] = {"L", "R"};
    for (int s = 0; s < 2; s++) {
        int32_t nodes[SINEW_DYN_MAX_JOINTS];
        uint32_t n = 0;
        char name[32];
        for (; n < SINEW_DYN_MAX_JOINTS; n++) {
            snprintf(name, sizeof name, "Wing_%s_%u", sides[s], n + 1);
            if ((nodes[n] = sinew_model_find_node(model, name)) < 0) break;
        }
        if (n == 0) continue;
        snprintf(name, sizeof name, "Wing_%s_End", sides[s]);
        const sinew_dyn_chain_desc desc = {nodes, n, sinew_model_find_node(model, name)};
        sinew_result r = sinew_bake_wing(doc, model, &desc, options, err);
        if (r != SINEW_OK) return r;
        (*chains)++;
    }
    return SINEW_OK;
}
