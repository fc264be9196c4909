/* The body's colliders for the spring chains: capsules along the hind legs and the torso, each
 * as thick as the skin its bone dominates (see sinew/pipeline.h and docs/appendages.md, "Body
 * colliders"). */
#include "sinew/pipeline.h"

#include <string.h>

/* The share of a bone's dominated skin its capsule's radius is: the median (see
 * sinew_dyn_skin_radius for why a middle rank). */
#define BODY_SKIN_RANK 0.5f

/* A leg bone whose skin radius is at least its length is a hip socket inside the body, not a
 * segment of the leg (Quaternius BackShoulder, the rat's BackLeg): its skin is the hip round
 * it, and a capsule there would hold the tail's root. Measured on the shared animals after
 * `sinew tail` (notail/: Fox, Wolf, Deer, Horse, Cow, Rat, TRex, Velociraptor, ToonCat,
 * Khronos Fox): radius / length 1.28-3.44 for the hip sockets, 0.13-0.87 for every leg
 * segment; any cutoff from 0.9 to 1.25 splits them the same. */
#define LEG_SEGMENT_MAX_THICKNESS 1.0f

/* The skin joint a joint hangs from (its nearest ancestor that is a joint), or -1. */
static int32_t parent_joint(const sinew_model *m, uint32_t j)
{
    for (int32_t p = m->nodes[m->skin.joints[j].node].parent; p >= 0; p = m->nodes[p].parent)
        if (m->nodes[p].joint >= 0) return m->nodes[p].joint;
    return -1;
}

static sinew_vec3 bind_position(const sinew_model *m, uint32_t j)
{
    return sinew_mat4_translation(&m->skin.joints[j].bind);
}

/* The radius of bone j -> child (the skin j dominates about the segment between their bind
 * positions): 0 when it dominates none, -1 when out of memory. */
static float bone_radius(const sinew_model *m, uint32_t j, uint32_t child)
{
    return sinew_dyn_skin_radius(m, j, bind_position(m, j), bind_position(m, child),
                                 BODY_SKIN_RANK);
}

static int in_leg(sinew_rig_region r)
{
    return r == SINEW_RIG_REGION_THIGH || r == SINEW_RIG_REGION_LEG;
}

/* 1 when leg bone j -> child is a segment of the leg: it moves skin and is longer than it is
 * thick. */
static int leg_segment(const sinew_model *m, uint32_t j, uint32_t child, float radius)
{
    return radius > 0 &&
           radius < LEG_SEGMENT_MAX_THICKNESS *
                        sinew_vec3_distance(bind_position(m, j), bind_position(m, child));
}

static void add(const sinew_model *m, uint32_t j, uint32_t child, float radius, float start,
                sinew_dyn_capsule *out, uint32_t capacity, uint32_t *count)
{
    if (*count < capacity)
        out[(*count)++] =
            (sinew_dyn_capsule){m->skin.joints[j].node, m->skin.joints[child].node, radius, start};
}

sinew_result sinew_body_capsules(const sinew_model *model, sinew_dyn_capsule *out,
                                 uint32_t capacity, uint32_t *count, uint32_t *leg_count,
                                 sinew_error *err)
{
    *count = 0;
    if (leg_count) *leg_count = 0;
    const uint32_t n = model->skin.joint_count;
    uint8_t *region = sinew_alloc(&model->allocator, n + 1, 1);
    if (!region)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "body capsules: out of memory");
    sinew_rig_landmarks lm;
    sinew_result r = sinew_rig_find_landmarks(model, &lm, region, err);
    /* legs first (what the measure counts): every leg joint to each leg joint hanging from
     * it, when that bone is a segment of the leg */
    for (uint32_t j = 0; r == SINEW_OK && j < n; j++)
        for (uint32_t c = 0; r == SINEW_OK && in_leg(region[j]) && c < n; c++) {
            if (!in_leg(region[c]) || parent_joint(model, c) != (int32_t)j) continue;
            const float radius = bone_radius(model, j, c);
            if (radius < 0) {
                r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "body capsules: out of memory");
                break;
            }
            if (!leg_segment(model, j, c, radius)) continue;
            /* The leg's first segment (the bone above is the pelvis or a hip socket) begins one
             * radius below its head, at most half way: the skin round the hip joint is the
             * pelvis's, and a tail's root ring meets it there (the procedural fox's hanging
             * tail: its root ring 0.16 m from the hip joint, the ring's radius 0.075 and the
             * thigh's 0.084, so every lowered tail touched the hip's sphere). */
            const int32_t up = parent_joint(model, j);
            const float up_radius =
                up >= 0 && in_leg(region[up]) ? bone_radius(model, (uint32_t)up, j) : 0.0f;
            const int first =
                !(up >= 0 && in_leg(region[up]) && leg_segment(model, (uint32_t)up, j, up_radius));
            const float length =
                sinew_vec3_distance(bind_position(model, j), bind_position(model, c));
            add(model, j, c, radius, first ? fminf(0.5f, radius / length) : 0.0f, out, capacity,
                count);
        }
    if (r == SINEW_OK && leg_count) *leg_count = *count;
    /* the torso: pelvis to the first spine joint, then along the spine (the neck included) */
    for (uint32_t k = 0; r == SINEW_OK && lm.pelvis >= 0 && k < lm.spine_count; k++) {
        const uint32_t j = k ? (uint32_t)lm.spine[k - 1] : (uint32_t)lm.pelvis;
        const float radius = bone_radius(model, j, (uint32_t)lm.spine[k]);
        if (radius < 0)
            r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "body capsules: out of memory");
        else if (radius > 0)
            add(model, j, (uint32_t)lm.spine[k], radius, 0.0f, out, capacity, count);
    }
    sinew_free(&model->allocator, region);
    if (r != SINEW_OK) *count = 0;
    return r;
}
