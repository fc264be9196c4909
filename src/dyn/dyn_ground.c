/* Body grounding (after Sidorkin, "Animating tails the auto-rigger never gave a bone": the
 * tail may touch the floor, it may not lift the mouse):
 *   f_body = min_{v in S \ T} y_v^0
 *   c(t)   = min_{v in S \ (T u E)} y_v(t) - f_body
 *   L_raw  = max(0, a(t) - c(t))
 * The same tail exclusion appears in both minima: removing it only from the current probe
 * would leave the reference floor wrong. Viewer placement ignores tail-dominated skin. */
#include "dyn_internal.h"

void sinew_dyn_tail_mask(const sinew_model *model, const sinew_dyn_rig *rig, uint8_t *mask)
{
    if (!model || !rig || !mask) return;
    const sinew_mesh *m = &model->mesh;
    uint8_t is_tail[256 * 256 / 8] = {0}; /* one bit per skin joint (uint16 indices) */
    for (uint32_t i = 0; i < rig->joint_count; i++) {
        int32_t j = model->nodes[rig->nodes[i]].joint;
        if (j >= 0 && j < 65536) is_tail[j >> 3] |= (uint8_t)(1u << (j & 7));
    }
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        float tail = 0.0f, body = 0.0f;
        for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
            uint16_t j = m->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES + (size_t)k];
            float w = m->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES + (size_t)k];
            if (is_tail[j >> 3] & (1u << (j & 7)))
                tail += w;
            else
                body += w;
        }
        mask[v] = tail > body ? 1 : 0;
    }
}

/* The lowest y over the vertices in `support` (NULL: all) and in neither `tail` nor
 * `limb_contact` (NULL: empty); +INFINITY when none is left. */
static float lowest_y(const sinew_vec3 *positions, uint32_t vertex_count, const uint8_t *support,
                      const uint8_t *tail, const uint8_t *limb_contact)
{
    float lo = INFINITY;
    for (uint32_t v = 0; v < vertex_count; v++) {
        if ((support && !support[v]) || (tail && tail[v]) || (limb_contact && limb_contact[v]))
            continue;
        if (positions[v].y < lo) lo = positions[v].y;
    }
    return lo;
}

float sinew_dyn_ground_reference(const sinew_vec3 *positions, uint32_t vertex_count,
                                 const uint8_t *support, const uint8_t *tail)
{
    return lowest_y(positions, vertex_count, support, tail, NULL);
}

float sinew_dyn_ground_clearance(const sinew_vec3 *positions, uint32_t vertex_count,
                                 const uint8_t *support, const uint8_t *tail,
                                 const uint8_t *limb_contact, float reference)
{
    return lowest_y(positions, vertex_count, support, tail, limb_contact) - reference;
}

float sinew_dyn_ground_lift(float allowance, float clearance)
{
    if (!(clearance < INFINITY)) return 0.0f; /* nothing to ground */
    float l = allowance - clearance;
    return l > 0.0f ? l : 0.0f;
}

float sinew_dyn_floor_placement(const sinew_vec3 *positions, uint32_t vertex_count,
                                const uint8_t *tail)
{
    return sinew_dyn_ground_reference(positions, vertex_count, NULL, tail);
}
