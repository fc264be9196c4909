/* Baking a garment: its chains stepped together and coupled (see sinew/bake.h). */
#include "sinew/bake.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A garment rests as it was modelled (the full modelled curve, no carry: a cape or skirt is
 * draped, not held up like a tail) under gravity, and has no forward plane (a tail's, keeping
 * it behind the body: a skirt's front chains hang in front of their root). The springs, bend
 * limits and floor are the tail's (the other fields of the caller's params). Against the body
 * colliders a garment's particles are points on its sheet (SINEW_DYN_NO_SKIN_CONTACT): the
 * skin a garment joint dominates spreads across to the neighbouring chains, and its median
 * distance (a tube's radius for a tail) widened each particle so that a thigh pushed the
 * skirt's front chains apart around it and tore it (the procedural skirt with `--colliders
 * on`: Sprint torn 1.7% and p99 1.53, Crouch 2.4% and 1.46; with points and the ring's edges
 * kept out by the coupled bake, 0.3% and 1.28, 1.2% and 1.25). */
static sinew_dyn_params garment_params(const sinew_dyn_params *tail)
{
    sinew_dyn_params p;
    memset(&p, 0, sizeof p);
    if (tail) p = *tail;
    p.rest_curve = 1.0f;
    p.disable |= SINEW_DYN_NO_FORWARD_PLANE | SINEW_DYN_NO_CARRY | SINEW_DYN_NO_SKIN_CONTACT;
    return p;
}

sinew_result sinew_bake_garment(sinew_document *doc, sinew_model *model,
                                const sinew_dyn_chain_desc *chains, uint32_t count, int ring,
                                const sinew_bake_options *options, sinew_error *err)
{
    if (!model || !chains || count == 0 || count > SINEW_BAKE_MAX_CHAINS)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "bake garment: no model or no chains");
    const sinew_dyn_params params = garment_params(options ? options->params : NULL);
    sinew_bake_options o;
    memset(&o, 0, sizeof o);
    if (options) o = *options;
    o.params = &params;
    /* The body colliders stay off unless asked for: with them (their contact at the capsules'
     * own radius, the coupled bake keeping the ring's edges out too), the coupled chains of
     * the procedural skirt keep 0.1%, 2.3% and 6.5% of its skin samples inside a leg in Walk,
     * Sprint and Crouch (3.2%, 6.4% and 11.1% without) and meet the stretch bars but for
     * Crouch, where 1.2% of its edge samples tear (0.1% without; the bar is 0.5%). */
    if (o.colliders == SINEW_BAKE_COLLIDERS_AUTO) o.colliders = SINEW_BAKE_COLLIDERS_OFF;
    sinew_result r = SINEW_OK;
    for (uint32_t c = 0; r == SINEW_OK && c < model->clip_count; c++) {
        sinew_bake_track tracks[SINEW_BAKE_MAX_CHAINS];
        if ((r = sinew_bake_clip_coupled(model, chains, count, ring, c, &o, tracks, err)) !=
            SINEW_OK)
            break;
        for (uint32_t k = 0; k < count; k++) {
            if (r == SINEW_OK && doc) r = sinew_bake_apply_document(doc, model, &tracks[k], err);
            if (r == SINEW_OK) r = sinew_bake_apply_model(model, &tracks[k], err);
            sinew_bake_track_free(&tracks[k]);
        }
    }
    return r;
}

/* The bind-space head of node n (its skin joint's bind translation; the origin when it is no
 * joint). */
static sinew_vec3 bind_head(const sinew_model *m, int32_t n)
{
    const int32_t j = m->nodes[n].joint;
    return j >= 0 ? sinew_mat4_translation(&m->skin.joints[j].bind) : sinew_vec3_make(0, 0, 0);
}

/* A garment's chains close a ring when the last one's root is about as near the first's as
 * neighbours are (a skirt's), not across the width (a cape's). */
#define RING_CLOSURE 1.5f

sinew_result sinew_bake_garments(sinew_document *doc, sinew_model *model,
                                 const sinew_bake_options *options, uint32_t *chains,
                                 sinew_error *err)
{
    *chains = 0;
    int32_t nodes[SINEW_BAKE_MAX_CHAINS][SINEW_DYN_MAX_JOINTS];
    sinew_dyn_chain_desc descs[SINEW_BAKE_MAX_CHAINS];
    uint32_t count = 0;
    for (uint32_t k = 1;; k++) {
        char name[48];
        uint32_t n = 0;
        int32_t found[SINEW_DYN_MAX_JOINTS];
        for (; n < SINEW_DYN_MAX_JOINTS; n++) {
            snprintf(name, sizeof name, "Garment_%u_%u", k, n + 1);
            if ((found[n] = sinew_model_find_node(model, name)) < 0) break;
        }
        snprintf(name, sizeof name, "Garment_%u_End", k);
        const int32_t end = sinew_model_find_node(model, name);
        /* This chain ends the garment before it when it hangs elsewhere or is longer or
         * shorter; no chain k ends every garment. */
        const int same = count > 0 && n == descs[0].node_count &&
                         model->nodes[found[0]].parent == model->nodes[descs[0].nodes[0]].parent;
        if (count > 0 && (!same || count == SINEW_BAKE_MAX_CHAINS)) {
            int ring = 0;
            if (count >= 3) {
                float spacing = 0;
                for (uint32_t c = 0; c + 1 < count; c++)
                    spacing = fmaxf(spacing,
                                    sinew_vec3_distance(bind_head(model, descs[c].nodes[0]),
                                                        bind_head(model, descs[c + 1].nodes[0])));
                ring = sinew_vec3_distance(bind_head(model, descs[0].nodes[0]),
                                           bind_head(model, descs[count - 1].nodes[0])) <=
                       RING_CLOSURE * spacing;
            }
            sinew_result r = sinew_bake_garment(doc, model, descs, count, ring, options, err);
            if (r != SINEW_OK) return r;
            *chains += count;
            count = 0;
        }
        if (n == 0) break;
        memcpy(nodes[count], found, n * sizeof *found);
        descs[count] = (sinew_dyn_chain_desc){nodes[count], n, end, NULL, 0, NULL, 0};
        count++;
    }
    return SINEW_OK;
}
