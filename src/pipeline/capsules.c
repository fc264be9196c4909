/* The body's colliders for the spring chains: capsules along the hind legs and the torso, each
 * as thick as the skin its bone dominates (see sinew/pipeline.h and docs/appendages.md, "Body
 * colliders"). */
#include "sinew/pipeline.h"

#include <math.h>
#include <string.h>

/* The share of a bone's dominated skin its capsule's radius is: the median (see
 * sinew_dyn_skin_radius for why a middle rank). */
#define BODY_SKIN_RANK 0.5f

/* A leg bone whose skin radius is at least its length is a hip socket inside the body, not a
 * segment of the leg (Quaternius BackShoulder, the rat's BackLeg): its skin is the hip round
 * it, and a capsule there would hold the tail's root. Measured on the shared animals after
 * `sinew tail` (notail/: Fox, Wolf, Deer, Horse, Cow, Rat, TRex, Velociraptor, ToonCat,
 * Khronos Fox): radius / length 1.28-3.44 for the sockets it finds, 0.13-0.79 for every leg
 * segment; any cutoff from 0.8 to 1.25 splits them the same. Two sockets are thinner than long
 * (the TRex's and velociraptor's BackLeg, 0.70 and 0.87): the direction rule below finds them. */
#define LEG_SEGMENT_MAX_THICKNESS 1.0f

/* A leg bone that runs level along the line between the two hip sockets (within about 10
 * degrees: the cosine below) joins the pelvis to the hip: a hip socket however long it is. Its
 * skin is the rump's, between the legs, and a capsule round it holds the tail's root: the
 * Quaternius TRex's and velociraptor's BackLeg (radius / length 0.70 and 0.87, under the
 * thickness cutoff above), a ball that reached past the body's midline and counted the
 * velociraptor's root ring "inside a leg" on Attack, Death and Jump (1.4-1.7%) where its
 * thighs never came near it. Measured with the thigh landmarks' axis on the notail/ models
 * after `sinew tail`, the UM bunny and the procedural creatures (fox, lizard, random seeds
 * 1-8): every hip socket within 0.0-6.1 degrees of that line, every leg segment 16.7 degrees
 * or more from it (the procedural lizard's sprawling thigh, which runs out and down; the
 * rest 81 to 90); any cutoff from 7 to 16 degrees splits them the same. */
#define HIP_SOCKET_MIN_ALONG_HIPS 0.985f /* cos 10 degrees */

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

/* The unit line between the two hip sockets in bind space (the thigh landmarks), or 0 when
 * the landmarks lack one. */
static sinew_vec3 hips_line(const sinew_model *m, const sinew_rig_landmarks *lm)
{
    if (lm->thigh[0] < 0 || lm->thigh[1] < 0) return sinew_vec3_make(0, 0, 0);
    const sinew_vec3 d = sinew_vec3_sub(bind_position(m, (uint32_t)lm->thigh[1]),
                                        bind_position(m, (uint32_t)lm->thigh[0]));
    const float length = sinew_vec3_length(d);
    return length > 0 ? sinew_vec3_scale(d, 1.0f / length) : sinew_vec3_make(0, 0, 0);
}

/* 1 when leg bone j -> child is a segment of the leg: it moves skin, is longer than it is
 * thick, and does not run along `hips` (the hips' line, hips_line) as a socket does. */
static int leg_segment(const sinew_model *m, uint32_t j, uint32_t child, float radius,
                       sinew_vec3 hips)
{
    const sinew_vec3 bone = sinew_vec3_sub(bind_position(m, child), bind_position(m, j));
    const float length = sinew_vec3_length(bone);
    return radius > 0 && radius < LEG_SEGMENT_MAX_THICKNESS * length &&
           fabsf(sinew_vec3_dot(bone, hips)) < HIP_SOCKET_MIN_ALONG_HIPS * length;
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
    const sinew_vec3 hips = r == SINEW_OK ? hips_line(model, &lm) : sinew_vec3_make(0, 0, 0);
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
            if (!leg_segment(model, j, c, radius, hips)) continue;
            /* The leg's first segment (the bone above is the pelvis or a hip socket) begins one
             * radius below its head, at most half way: the skin round the hip joint is the
             * pelvis's, and a tail's root ring meets it there (the procedural fox's hanging
             * tail: its root ring 0.16 m from the hip joint, the ring's radius 0.075 and the
             * thigh's 0.084, so every lowered tail touched the hip's sphere). */
            const int32_t up = parent_joint(model, j);
            const float up_radius =
                up >= 0 && in_leg(region[up]) ? bone_radius(model, (uint32_t)up, j) : 0.0f;
            const int first = !(up >= 0 && in_leg(region[up]) &&
                                leg_segment(model, (uint32_t)up, j, up_radius, hips));
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
