/* Frames and targets: the source (artist) rig's clip skinned in bind space at every key time
 * (seed 004: "reproduzir o clipe do artista uma vez, registrar a malha deformada"), carried
 * to the target mesh through the nearest-vertex correspondence. */
#include "solve_internal.h"

#include <math.h>
#include <string.h>

#define MERGE_SECONDS 1e-4f

/* Smallest key time of any channel strictly above `after` (+ merge window), or INFINITY. */
static float next_key(const sinew_clip *clip, float after, int first)
{
    float best = INFINITY;
    for (uint32_t c = 0; c < clip->channel_count; c++) {
        const sinew_channel *ch = &clip->channels[c];
        uint32_t lo = 0, hi = ch->key_count;
        while (lo < hi) { /* first key > after + window */
            uint32_t mid = lo + (hi - lo) / 2;
            if (first ? ch->times[mid] < after : ch->times[mid] <= after + MERGE_SECONDS)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < ch->key_count && ch->times[lo] < best) best = ch->times[lo];
    }
    return best;
}

uint32_t sinew_solve_frame_times(const sinew_clip *clip, float frame_rate, float *times,
                                 uint32_t capacity)
{
    uint32_t n = 0;
    if (frame_rate > 0) {
        const double dur = clip->duration > 0 ? clip->duration : 0;
        const uint32_t steps = (uint32_t)ceil(dur * frame_rate - 1e-6);
        for (uint32_t i = 0; i <= steps; i++, n++) {
            double t = i / (double)frame_rate;
            if (t > dur) t = dur;
            if (times && n < capacity) times[n] = (float)t;
        }
        return n;
    }
    float t = next_key(clip, -INFINITY, 1);
    if (!isfinite(t)) {
        if (times && capacity > 0) times[0] = 0;
        return 1;
    }
    while (isfinite(t)) {
        if (times && n < capacity) times[n] = t;
        n++;
        t = next_key(clip, t, 0);
    }
    return n;
}

sinew_result sinew_solve_targets(const sinew_model *source, const sinew_clip *clip,
                                 const float *times, uint32_t frame_count,
                                 const sinew_model *target, const uint32_t *nearest,
                                 const sinew_allocator *allocator, sinew_vec3 *out,
                                 sinew_error *err)
{
    const int direct = (target == source && nearest == NULL);
    if (!direct && !nearest)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "solve: targets on another rig need a correspondence");
    sinew_allocator alloc = {0};
    if (allocator) alloc = *allocator;
    sinew_transform *pose =
        sinew_alloc(&alloc, source->node_count ? source->node_count : 1, sizeof *pose);
    sinew_mat4 *world =
        sinew_alloc(&alloc, source->node_count ? source->node_count : 1, sizeof *world);
    sinew_mat4 *skin =
        sinew_alloc(&alloc, source->skin.joint_count ? source->skin.joint_count : 1, sizeof *skin);
    if (!pose || !world || !skin) {
        sinew_free(&alloc, pose);
        sinew_free(&alloc, world);
        sinew_free(&alloc, skin);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    const uint32_t V = target->mesh.vertex_count;
    const sinew_mesh *sm = &source->mesh;
    for (uint32_t f = 0; f < frame_count; f++) {
        sinew_clip_sample(source, clip, times[f], pose);
        sinew_pose_to_world(source, pose, world);
        sinew_skin_matrices(source, world, skin);
        sinew_vec3 *y = &out[(size_t)f * V];
        if (direct) {
            sinew_skin_positions(source, skin, y);
            continue;
        }
        /* A target vertex follows its nearest source vertex's blended skinning matrix,
         * applied to its own bind position: exact at rest and for the same mesh. */
        for (uint32_t i = 0; i < V; i++) {
            const uint32_t v = nearest[i];
            const uint16_t *jt = &sm->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
            const float *wt = &sm->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES];
            const sinew_vec3 p = target->mesh.positions[i];
            float x = 0, yy = 0, z = 0;
            for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
                const float w = wt[k];
                if (w == 0.0f) break;
                const float *m = skin[jt[k]].m;
                x += w * (m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12]);
                yy += w * (m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13]);
                z += w * (m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]);
            }
            y[i] = sinew_vec3_make(x, yy, z);
        }
    }
    sinew_free(&alloc, pose);
    sinew_free(&alloc, world);
    sinew_free(&alloc, skin);
    return SINEW_OK;
}
