/* Baking a wing or an ear: the tail's spring runtime with the springs of the appendage's
 * preset (see sinew/bake.h and docs/springs.md). */
#include "sinew/bake.h"

#include <stdio.h>
#include <string.h>

/* The caller's params (steps, teleport, idle sway) with the springs of `preset`
 * (a wing's or an ear's: stiffer than a tail's, resting as modelled, no carry, no sag), and no
 * floor and no forward plane: both are a tail's, the ground it may lie on and the body it
 * must stay behind, while a wing or an ear is held out from the body. */
static sinew_dyn_params appendage_params(const sinew_dyn_params *tail, sinew_dyn_preset preset)
{
    sinew_dyn_params p;
    memset(&p, 0, sizeof p);
    if (tail) p = *tail;
    sinew_dyn_params_use_preset(&p, preset);
    p.disable |= SINEW_DYN_NO_FLOOR | SINEW_DYN_NO_FORWARD_PLANE;
    return p;
}

static sinew_result bake_with(sinew_document *doc, sinew_model *model,
                              const sinew_dyn_chain_desc *chain, const sinew_bake_options *options,
                              sinew_dyn_preset preset, sinew_error *err)
{
    if (!model || !chain)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "bake %s: no model or no chain",
                               sinew_dyn_preset_name(preset));
    const sinew_dyn_params params = appendage_params(options ? options->params : NULL, preset);
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

sinew_result sinew_bake_wing(sinew_document *doc, sinew_model *model,
                             const sinew_dyn_chain_desc *chain, const sinew_bake_options *options,
                             sinew_error *err)
{
    return bake_with(doc, model, chain, options, SINEW_DYN_PRESET_WING, err);
}

sinew_result sinew_bake_ear(sinew_document *doc, sinew_model *model,
                            const sinew_dyn_chain_desc *chain, const sinew_bake_options *options,
                            sinew_error *err)
{
    return bake_with(doc, model, chain, options, SINEW_DYN_PRESET_EAR, err);
}

/* Bakes every chain named <kind>_L_1.. with <kind>_L_End, and the same for R, as `sinew tail`
 * names them, with `preset`'s springs. */
static sinew_result bake_pairs(sinew_document *doc, sinew_model *model,
                               const sinew_bake_options *options, const char *kind,
                               sinew_dyn_preset preset, uint32_t *chains, sinew_error *err)
{
    *chains = 0;
    static const char *const sides[2] = {"L", "R"};
    for (int s = 0; s < 2; s++) {
        int32_t nodes[SINEW_DYN_MAX_JOINTS];
        uint32_t n = 0;
        char name[32];
        for (; n < SINEW_DYN_MAX_JOINTS; n++) {
            snprintf(name, sizeof name, "%s_%s_%u", kind, sides[s], n + 1);
            if ((nodes[n] = sinew_model_find_node(model, name)) < 0) break;
        }
        if (n == 0) continue;
        snprintf(name, sizeof name, "%s_%s_End", kind, sides[s]);
        const sinew_dyn_chain_desc desc = {nodes, n, sinew_model_find_node(model, name), NULL, 0,
                                           NULL,  0};
        sinew_result r = bake_with(doc, model, &desc, options, preset, err);
        if (r != SINEW_OK) return r;
        (*chains)++;
    }
    return SINEW_OK;
}

sinew_result sinew_bake_wings(sinew_document *doc, sinew_model *model,
                              const sinew_bake_options *options, uint32_t *chains, sinew_error *err)
{
    return bake_pairs(doc, model, options, "Wing", SINEW_DYN_PRESET_WING, chains, err);
}

sinew_result sinew_bake_ears(sinew_document *doc, sinew_model *model,
                             const sinew_bake_options *options, uint32_t *chains, sinew_error *err)
{
    return bake_pairs(doc, model, options, "Ear", SINEW_DYN_PRESET_EAR, chains, err);
}
