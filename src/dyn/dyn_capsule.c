/* Body colliders: the skin radius of a bone, and a rig's capsules with each link's contact
 * radius (see sinew/dyn.h, "body colliders", and docs/appendages.md, "Body colliders"). The
 * contact itself is in the step (dyn_lanes.h). */
#include "dyn_internal.h"

#include <stdlib.h>

/* The rank of a link's own skin its particle's radius is: the farthest (1), so that a tip held
 * at the contact radius keeps every vertex the link dominates out, not half of them (the
 * measure, sinew_metrics_capsule_share, counts any). Measured with `sinew tail` on the
 * notail/ models, worst clip's in-legs share at rank 0.5 -> 1.0: Khronos Fox 0.83% -> 0.42%
 * (Run), Fox_parent 2.27% -> 0.42% (the colliders now kept), Horse 0.20% -> 0.08%, TRex 0.54% ->
 * 0.00%; recall, precision, torn and p99 of tests/acceptance the same. The bind-gap cap below keeps
 * a thick link where it was modelled. Safe range 0.5 .. 1 (at the median half the ring enters the
 * capsule at contact; the velociraptor's 1.65% then was its root ring in a capsule round its
 * hip socket, no leg, which no rank moved and sinew_body_capsules no longer builds: see
 * capsules.c and docs/appendages.md, "Body colliders"). */
#define LINK_SKIN_RANK 1.0f

static int compare_floats(const void *pa, const void *pb)
{
    const float a = *(const float *)pa, b = *(const float *)pb;
    return (a > b) - (a < b);
}

float sinew_dyn_skin_radius(const sinew_model *model, uint32_t joint, sinew_vec3 head,
                            sinew_vec3 tail, float fraction)
{
    if (!model || !model->mesh.influence_joints || !model->mesh.influence_weights) return 0.0f;
    const sinew_mesh *mesh = &model->mesh;
    uint32_t count = 0;
    for (uint32_t v = 0; v < mesh->vertex_count; v++)
        if (mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES] == joint &&
            mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES] > 0.0f)
            count++;
    if (!count) return 0.0f;
    float *d = sinew_alloc(&model->allocator, count, sizeof *d);
    if (!d) return -1.0f;
    uint32_t k = 0;
    for (uint32_t v = 0; v < mesh->vertex_count; v++)
        if (mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES] == joint &&
            mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES] > 0.0f)
            d[k++] = sinew_segment_distance(mesh->positions[v], head, tail);
    qsort(d, count, sizeof *d, compare_floats);
    /* nearest rank: one of the distances (the lower median at 0.5) */
    const float f = fraction > 0.0f ? fminf(fraction, 1.0f) : 0.0f;
    const float at = d[(uint32_t)(f * (float)(count - 1))];
    sinew_free(&model->allocator, d);
    return isfinite(at) ? at : 0.0f;
}

sinew_result dyn_rig_capsules(sinew_dyn_rig *rig, const sinew_model *model, const sinew_mat4 *w,
                              const sinew_dyn_capsule *capsules, uint32_t count,
                              const sinew_vec3 *bind_dir, sinew_error *err)
{
    rig->capsule_count = 0;
    if (!count) return SINEW_OK;
    if (!capsules || count > SINEW_DYN_MAX_CAPSULES)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "dyn rig: %u capsules%s; a rig takes 0..%d",
                               count, capsules ? "" : " without an array", SINEW_DYN_MAX_CAPSULES);
    for (uint32_t c = 0; c < count; c++) {
        const sinew_dyn_capsule *cap = &capsules[c];
        for (int e = 0; e < 2; e++) {
            const sinew_result r =
                dyn_body_node(rig, model, e ? cap->node_b : cap->node_a, "capsule", c, err);
            if (r != SINEW_OK) return r;
        }
        if (!(cap->start >= 0.0f && cap->start < 1.0f))
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "dyn rig: capsule %u: start %g is outside [0, 1)", c,
                                   (double)cap->start);
        if (!(cap->radius > 0.0f) || !isfinite(cap->radius))
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "dyn rig: capsule %u: radius %g is not a finite number > 0", c,
                                   (double)cap->radius);
    }
    const float parent_scale = sinew_mat4_axis_scale(&w[rig->parent_node]);
    if (!(parent_scale > 0.0f) || !isfinite(parent_scale))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "dyn rig: the chain parent's bind transform has no scale");
    const float to_parent = 1.0f / parent_scale;
    rig->parent_bind_scale = parent_scale;
    rig->capsule_count = count;
    for (uint32_t c = 0; c < count; c++) {
        rig->capsules[c] = capsules[c];
        rig->capsule_radius[c] = capsules[c].radius * to_parent;
    }
    for (uint32_t i = 0; i < rig->joint_count; i++) {
        const int32_t node = rig->nodes[i];
        const sinew_vec3 head = sinew_mat4_translation(&w[node]);
        const sinew_vec3 tip = sinew_vec3_madd(head, bind_dir[i], rig->bind_length[i]);
        const int32_t joint = model->nodes[node].joint;
        /* the particle's own radius: the farthest of its link's skin (LINK_SKIN_RANK); the
         * capsules keep the median, the body's skin has outliers a leg must not grow by */
        float own = joint >= 0 && !(rig->params.disable & SINEW_DYN_NO_SKIN_CONTACT)
                        ? sinew_dyn_skin_radius(model, (uint32_t)joint, head, tip, LINK_SKIN_RANK)
                        : 0.0f;
        if (own < 0.0f)
            return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "dyn rig: out of memory");
        for (uint32_t c = 0; c < count; c++) {
            const sinew_vec3 b = sinew_mat4_translation(&w[capsules[c].node_b]);
            const sinew_vec3 a = sinew_vec3_lerp(sinew_mat4_translation(&w[capsules[c].node_a]), b,
                                                 capsules[c].start);
            /* the modelled shape is always allowed: skin modelled against a leg (a tail
             * hanging between the thighs) keeps the clearance it was modelled with */
            const float bind_gap = sinew_segment_distance(tip, a, b);
            const float contact = fminf(capsules[c].radius + own, bind_gap) * to_parent;
            rig->contact2[i][c] = contact * contact;
        }
    }
    return SINEW_OK;
}

uint32_t sinew_dyn_rig_capsule_count(const sinew_dyn_rig *rig)
{
    return rig ? rig->capsule_count : 0;
}

sinew_dyn_capsule sinew_dyn_rig_capsule(const sinew_dyn_rig *rig, uint32_t i)
{
    sinew_dyn_capsule none = {-1, -1, 0.0f, 0.0f};
    return rig && i < rig->capsule_count ? rig->capsules[i] : none;
}

float sinew_dyn_rig_contact_radius(const sinew_dyn_rig *rig, uint32_t i, uint32_t c)
{
    if (!rig || i >= rig->joint_count || c >= rig->capsule_count) return 0.0f;
    return sqrtf(rig->contact2[i][c]) * rig->parent_bind_scale;
}
