/* Rest drivers (sinew/dyn.h, "rest drivers"): body bones whose swing turns a chain's rest, as
 * games drive a skirt's bones from the thighs. The rig keeps each driver's bind direction and
 * which way the chain's root lies from it; the step asks dyn_drive_turn for the turn at each
 * call and interpolates it over the substeps (dyn_step.c). */
#include "dyn_internal.h"
#include "dyn_math.h"

sinew_result dyn_rig_drivers(sinew_dyn_rig *rig, const sinew_model *model, const sinew_mat4 *w,
                             const sinew_dyn_driver *drivers, uint32_t count, sinew_error *err)
{
    rig->driver_count = 0;
    if (!count) return SINEW_OK;
    if (!drivers || count > SINEW_DYN_MAX_DRIVERS)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "dyn rig: %u drivers%s; a rig takes 0..%d",
                               count, drivers ? "" : " without an array", SINEW_DYN_MAX_DRIVERS);
    /* the way from the body's centre (the chain parent's head) to the chain's root at bind,
     * seen from above (the hips frame is the world's axes at bind, +Y up); a root right above
     * the parent faces forward, +Z */
    const sinew_vec3 to_root = sinew_vec3_sub(sinew_mat4_translation(&w[rig->nodes[0]]),
                                              sinew_mat4_translation(&w[rig->parent_node]));
    const sinew_vec3 facing = sinew_vec3_normalize_or(sinew_vec3_make(to_root.x, 0.0f, to_root.z),
                                                      sinew_vec3_make(0.0f, 0.0f, 1.0f));
    for (uint32_t d = 0; d < count; d++) {
        const sinew_dyn_driver *in = &drivers[d];
        for (int e = 0; e < 2; e++) {
            const sinew_result r =
                dyn_body_node(rig, model, e ? in->tip_node : in->node, "driver", d, err);
            if (r != SINEW_OK) return r;
        }
        if (!(in->weight >= 0.0f && in->weight <= 1.0f))
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "dyn rig: driver %u: weight %g is outside [0, 1]", d,
                                   (double)in->weight);
        const sinew_vec3 head = sinew_mat4_translation(&w[in->node]);
        const sinew_vec3 bone = sinew_vec3_sub(sinew_mat4_translation(&w[in->tip_node]), head);
        const float length = sinew_vec3_length(bone);
        if (in->tip_node == in->node || !(length > 0.0f) || !isfinite(length))
            return sinew_error_set(
                err, SINEW_ERR_ARGUMENT, "dyn rig: driver %u: %s to %s has no length at bind", d,
                dyn_node_name(model, in->node), dyn_node_name(model, in->tip_node));
        dyn_driver *out = &rig->drivers[rig->driver_count++];
        out->node = in->node;
        out->tip_node = in->tip_node;
        out->weight = in->weight;
        out->bind_dir = sinew_vec3_scale(bone, 1.0f / length);
        out->facing = facing;
    }
    return SINEW_OK;
}

/* A driver's share of its bone's swing from c, the cosine (seen from above) between the way
 * the bone's tip has moved and the way from the body's centre to the chain's root: the fourth
 * root of (1 + c) / 2, so 1 straight toward the chain, 0.84 across it, 0.36 at 165 degrees and
 * 0 only straight away: a ring's panels all turn with a thigh nearly alike but for those right
 * behind it, which stay down. The root is there for the skin between neighbouring chains: the
 * skin blends their two joints' rotations, and a difference of a thigh's swing times the
 * difference of their shares folds or tears it. Measured on the procedural skirt (ten chains
 * 36 degrees apart, both thighs driving at weight 1, colliders on; Sprint's torn share and
 * p99 against its bars 0.5% and 1.30, Crouch's torn share and skin inside a leg):
 * ((1 + c) / 2)^2: 4.1% and 1.70, 0.2% and 0.9%; (1 + c) / 2: 2.7% and 1.57, 0.2% and 0.8%;
 * its square root: 0.0% and 1.39, 0.3% and 1.3%; its fourth root: 0.0% and 1.30, 0.9% and
 * 1.4% (at weight 0.7, what garments use: 0.0% and 1.28, 0.2% and 1.1%); one share for every
 * panel (the power 0): 0.0% and 1.24, but the back panels turn into the body and the waist
 * tears in Crouch (1.4%, inside 1.6%).
 * Built from square roots (IEEE exact) so that every platform steps the same bits. */
static float facing_share(float c)
{
    const float s = 0.5f * (1.0f + fminf(1.0f, fmaxf(-1.0f, c)));
    return sqrtf(sqrtf(s));
}

sinew_quat dyn_drive_turn(const sinew_dyn_rig *rig, const sinew_mat4 *world, const dyn_frame *f)
{
    const sinew_quat ident = sinew_quat_identity();
    if (!rig->driver_count) return ident;
    /* from world to the hips frame: H^-1, H = R_parent * parent_bind_inv */
    const sinew_quat to_hips = sinew_quat_conjugate(
        sinew_quat_normalize(sinew_quat_mul(f->rotation, rig->parent_bind_inv)));
    sinew_quat mean = {0, 0, 0, 0};
    float most = 0.0f;
    for (uint32_t d = 0; d < rig->driver_count; d++) {
        const dyn_driver *D = &rig->drivers[d];
        const sinew_vec3 bone = sinew_vec3_sub(sinew_mat4_translation(&world[D->tip_node]),
                                               sinew_mat4_translation(&world[D->node]));
        const sinew_vec3 now =
            sinew_vec3_normalize_or(sinew_quat_rotate(to_hips, bone), D->bind_dir);
        if (!(isfinite(now.x) && isfinite(now.y) && isfinite(now.z))) continue;
        const sinew_quat swing = sinew_quat_swing(D->bind_dir, now); /* w >= 0 */
        const sinew_vec3 moved = sinew_vec3_sub(now, D->bind_dir);
        const sinew_vec3 toward =
            sinew_vec3_normalize_or(sinew_vec3_make(moved.x, 0.0f, moved.z), D->facing);
        const float share = D->weight * facing_share(sinew_vec3_dot(toward, D->facing));
        mean = sinew_quat_make(mean.x + swing.x * share, mean.y + swing.y * share,
                               mean.z + swing.z * share, mean.w + swing.w * share);
        most = fmaxf(most, share);
    }
    if (!(most > 0.0f)) return ident;
    /* every swing has w >= 0, so the weighted sum never cancels to zero unless two swings of
     * half a turn oppose each other; normalize then gives the identity */
    const sinew_quat turn = dyn_slerp(ident, sinew_quat_normalize(mean), most);
    const float sum = turn.x + turn.y + turn.z + turn.w;
    return isfinite(sum) ? turn : ident;
}

uint32_t sinew_dyn_rig_driver_count(const sinew_dyn_rig *rig)
{
    return rig ? rig->driver_count : 0;
}

sinew_dyn_driver sinew_dyn_rig_driver(const sinew_dyn_rig *rig, uint32_t i)
{
    if (!rig || i >= rig->driver_count) return (sinew_dyn_driver){-1, -1, 0.0f};
    const dyn_driver *d = &rig->drivers[i];
    return (sinew_dyn_driver){d->node, d->tip_node, d->weight};
}
