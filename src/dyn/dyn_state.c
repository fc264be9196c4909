/* Chain state in caller memory: particles, velocities, coupling snapshots and the parent's
 * previous frame, with no pointers inside so that memcpy is a full snapshot (the bake
 * compares states to close loops). */
#include "dyn_internal.h"

#include <string.h>

size_t sinew_dyn_state_bytes(const sinew_dyn_rig *rig)
{
    if (!rig) return 0;
    return sizeof(sinew_dyn_state) + ((size_t)rig->joint_count * DYN_STATE_FLOATS_PER_JOINT +
                                      (size_t)rig->capsule_count * DYN_STATE_FLOATS_PER_CAPSULE +
                                      (rig->driver_count ? DYN_STATE_FLOATS_DRIVEN : 0u)) *
                                         sizeof(float);
}

sinew_dyn_state *sinew_dyn_state_init(const sinew_dyn_rig *rig, void *memory, size_t bytes)
{
    if (!rig || !memory || ((uintptr_t)memory & 7u) != 0 || bytes < sinew_dyn_state_bytes(rig))
        return NULL;
    memset(memory, 0, sinew_dyn_state_bytes(rig));
    sinew_dyn_state *s = memory;
    s->magic = DYN_STATE_MAGIC;
    s->joint_count = rig->joint_count;
    s->capsule_count = rig->capsule_count;
    s->placed = 0;
    s->idle_seed = rig->params.idle_seed;
    s->previous.rotation = sinew_quat_identity();
    s->previous.scale = 1.0f;
    sinew_quat *b = dyn_state_bends(s);
    for (uint32_t i = 0; i < s->joint_count; i++)
        b[i] = sinew_quat_identity();
    if (rig->driver_count) *dyn_state_drive(s) = sinew_quat_identity();
    return s;
}

void sinew_dyn_state_reset(sinew_dyn_state *state)
{
    if (state) state->placed = 0;
}

void sinew_dyn_state_set_idle_seed(sinew_dyn_state *state, uint32_t seed)
{
    if (state) state->idle_seed = seed;
}

uint32_t sinew_dyn_state_resets(const sinew_dyn_state *state)
{
    return state ? state->resets : 0;
}

int sinew_dyn_state_placed(const sinew_dyn_state *state)
{
    return state && state->placed;
}

void sinew_dyn_state_get(const sinew_dyn_state *state, sinew_vec3 *positions,
                         sinew_vec3 *velocities)
{
    if (!state) return;
    sinew_dyn_state *s = (sinew_dyn_state *)state;
    if (positions) memcpy(positions, dyn_state_positions(s), s->joint_count * sizeof *positions);
    if (velocities)
        memcpy(velocities, dyn_state_velocities(s), s->joint_count * sizeof *velocities);
}

sinew_result sinew_dyn_state_set(sinew_dyn_state *state, const sinew_vec3 *positions,
                                 const sinew_vec3 *velocities, sinew_error *err)
{
    if (!state || state->magic != DYN_STATE_MAGIC || !positions || !velocities)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "dyn state set: needs a state, positions and velocities");
    for (uint32_t i = 0; i < state->joint_count; i++) {
        const sinew_vec3 *a = &positions[i], *b = &velocities[i];
        if (!isfinite(a->x) || !isfinite(a->y) || !isfinite(a->z) || !isfinite(b->x) ||
            !isfinite(b->y) || !isfinite(b->z))
            return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                                   "dyn state set: particle %u is not finite", i);
    }
    memcpy(dyn_state_positions(state), positions, state->joint_count * sizeof *positions);
    memcpy(dyn_state_velocities(state), velocities, state->joint_count * sizeof *velocities);
    state->placed = 1;
    return SINEW_OK;
}

void sinew_dyn_state_difference(const sinew_dyn_state *a, const sinew_dyn_state *b,
                                float *max_position, float *max_velocity)
{
    float dp = INFINITY, dv = INFINITY;
    if (a && b && a->joint_count == b->joint_count) {
        sinew_dyn_state *sa = (sinew_dyn_state *)a, *sb = (sinew_dyn_state *)b;
        const sinew_vec3 *pa = dyn_state_positions(sa), *pb = dyn_state_positions(sb);
        const sinew_vec3 *va = dyn_state_velocities(sa), *vb = dyn_state_velocities(sb);
        dp = dv = 0.0f;
        for (uint32_t i = 0; i < a->joint_count; i++) {
            dp = fmaxf(dp, sinew_vec3_distance(pa[i], pb[i]));
            dv = fmaxf(dv, sinew_vec3_distance(va[i], vb[i]));
        }
    }
    if (max_position) *max_position = dp;
    if (max_velocity) *max_velocity = dv;
}
