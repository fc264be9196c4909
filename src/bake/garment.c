/* Baking a garment: its chains stepped together and coupled (see sinew/bake.h). */
#include "sinew/bake.h"
#include "sinew/rig.h"

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
 * on`, before the thighs drove it: Sprint torn 1.7% and p99 1.53, Crouch 2.4% and 1.46; with
 * points and the ring's edges kept out by the coupled bake, 0.3% and 1.28, 1.2% and 1.25;
 * the coupled bake now keeps the cloth between them on the body's outer side, see
 * cell_out_of_capsules in bake.c). */
static sinew_dyn_params garment_params(const sinew_dyn_params *tail)
{
    sinew_dyn_params p;
    memset(&p, 0, sizeof p);
    if (tail) p = *tail;
    p.rest_curve = 1.0f;
    p.disable |= SINEW_DYN_NO_FORWARD_PLANE | SINEW_DYN_NO_CARRY | SINEW_DYN_NO_SKIN_CONTACT;
    return p;
}

/* The share of a thigh's swing (relative to the pelvis) that the rest of a garment panel the thigh
 * swings straight toward takes (sinew_dyn_driver.weight; the step lowers it for the panels it
 * swings across or away from, see sinew/dyn.h, "rest drivers"). Measured on the procedural skirt,
 * the one leg-driven garment sinew has, colliders on (Sprint's skin inside a leg, torn share and
 * p99, its bar 1.30; Crouch's skin inside a leg and torn share, its bar 0.5%; Crouch's torn share
 * with the colliders off): 0.5: 0.38%, 0.06% and 1.26, 1.60% and 0.30%, 0.22%; 0.6: 0.27%, 0.02%
 * and 1.26, 0.81% and 0.24%, 0.29%; 0.7: 0.23%, 0.00% and 1.26, 0.62% and 0.20%, 0.43%; 0.8:
 * 0.22%, 0.00% and 1.26, 0.55% and 0.24%, 0.62%; 0.9: 0.23%, 0.00% and 1.26, 0.53% and 0.41%,
 * 0.82%; 1.0: 0.26%, 0.00% and 1.27, 0.52% and 0.95%, 0.94%. Walk and Idle: none inside, none
 * torn, p99 at most 1.12 throughout. Safe range 0.6 .. 0.7, the least inside at 0.7: below, the
 * thighs reach into the skirt; above, the panels' turns differ more between neighbours and the
 * skin between them tears in Crouch, with the colliders off from 0.8 and with them on from 0.9. */
#define LEG_DRIVE_WEIGHT 0.7f

/* The hind legs' drivers of a garment whose chains hang from node `parent`: each thigh (the
 * landmarks' hip socket) that hangs from that node too, to its farthest child joint (the
 * knee). A garment elsewhere (a cape from the neck) gets none: its panels do not lie over the
 * legs, and a thigh's turn relative to a neck means nothing to them. */
static uint32_t leg_drivers(const sinew_model *m, int32_t parent, sinew_dyn_driver *out)
{
    sinew_rig_landmarks lm;
    sinew_error err;
    if (sinew_rig_find_landmarks(m, &lm, NULL, &err) != SINEW_OK) return 0;
    uint32_t n = 0;
    for (int side = 0; side < 2; side++) {
        const int32_t thigh = lm.thigh[side];
        if (thigh < 0 || m->nodes[m->skin.joints[thigh].node].parent != parent) continue;
        const int32_t node = m->skin.joints[thigh].node;
        const sinew_vec3 head = sinew_mat4_translation(&m->skin.joints[thigh].bind);
        int32_t knee = -1;
        float farthest = 0.0f;
        for (uint32_t j = 0; j < m->skin.joint_count; j++) {
            if (m->nodes[m->skin.joints[j].node].parent != node) continue;
            const float d =
                sinew_vec3_distance(head, sinew_mat4_translation(&m->skin.joints[j].bind));
            if (d > farthest) farthest = d, knee = m->skin.joints[j].node;
        }
        if (knee >= 0) out[n++] = (sinew_dyn_driver){node, knee, LEG_DRIVE_WEIGHT};
    }
    return n;
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
    /* A garment hanging from the pelvis is driven by the thighs (leg_drivers): each chain's
     * rest turns with the thighs' swing (sinew/dyn.h, "rest drivers"), the springs add their
     * motion on top and the body colliders take the rest. Springs alone cannot keep a skirt
     * out of a thigh that turns 90 degrees in a crouch: the procedural skirt's coupled chains,
     * undriven, kept 3.2%, 6.4% and 11.1% of its skin samples inside a leg in Walk, Sprint and
     * Crouch, 0.1%, 2.3% and 6.5% with colliders (Crouch then tore 1.2% of its edge samples).
     * Driven: 0.7%, 4.5% and 7.8% without colliders (they are on unless turned off), 0.0%,
     * 0.23% and 0.62% with, every clip torn at most 0.20% and its p99 within max(body p99,
     * 1.30) (Sprint 1.26); 0.45% and 1.44%, torn 0.42%, while the coupled bake pushed the
     * ring's edges away from a capsule's axis either way, and a shin came through the back
     * panel between two hem particles in Crouch.
     * What Crouch keeps inside (0.61 of its 0.62 points) is the skin round the waist at the
     * front: the top 5-20% of the skirt's height, weighted 0-37% to the pelvis by the attach
     * line and the root segment's blend, at most 0.4 of the capsule's radius deep. The
     * thigh's capsule (radius 0.078) reaches above the waist (0.06 over the hip joint) when
     * the thigh is level, the chains' roots there lie inside it (0.75 of its radius from the
     * axis), and no turn of the chains moves the skin round them; that skin is inside the
     * posed body's own mesh too (winding number 1). The body's skin beneath stays out (0.00%
     * of its samples round the waist and groin) because its rigger weighted it a quarter to
     * two thirds to the thigh, and it tears where it folds (5.5% of its edge samples there).
     * A waist given the body's weights beneath follows that fold and tears with it: the
     * pelvis's share handed to the body's weights at the nearest surface, 0.36% inside and
     * 1.89% torn; those weights faded over the root segment and, in front, by the cosine from
     * the front, at full share 0.00% and 0.94%, at half 0.35% and 0.31%, at 0.3 0.47% and
     * 0.21%, but with the colliders off Crouch then tears 0.65% and 0.50% (0.43% without).
     * A garment the legs do not drive (a cape from the neck) keeps the colliders off unless
     * asked for, as before. Each chain keeps drivers its caller gave it. */
    sinew_dyn_chain_desc driven[SINEW_BAKE_MAX_CHAINS];
    sinew_dyn_driver legs[2];
    const uint32_t leg_count =
        chains[0].node_count && chains[0].nodes && chains[0].nodes[0] >= 0 &&
                (uint32_t)chains[0].nodes[0] < model->node_count
            ? leg_drivers(model, model->nodes[chains[0].nodes[0]].parent, legs)
            : 0;
    for (uint32_t k = 0; k < count; k++) {
        driven[k] = chains[k];
        if (!driven[k].driver_count && leg_count) {
            driven[k].drivers = legs;
            driven[k].driver_count = leg_count;
        }
    }
    if (o.colliders == SINEW_BAKE_COLLIDERS_AUTO)
        o.colliders = leg_count ? SINEW_BAKE_COLLIDERS_ON : SINEW_BAKE_COLLIDERS_OFF;
    sinew_result r = SINEW_OK;
    for (uint32_t c = 0; r == SINEW_OK && c < model->clip_count; c++) {
        sinew_bake_track tracks[SINEW_BAKE_MAX_CHAINS];
        if ((r = sinew_bake_clip_coupled(model, driven, count, ring, c, &o, tracks, err)) !=
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
