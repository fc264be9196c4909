/* Frames and targets: the source (artist) rig's clip skinned in bind space at every key time
 * (play the artist's clip once and record the deformed mesh, after Sidorkin, "Solve the
 * surface, not the skeleton"), carried to the target mesh through the nearest-vertex
 * correspondence. */
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

/* Frames 0, 1/rate, .. up to and including the duration, in double: ceil(duration * rate)
 * steps after frame 0, UINT32_MAX when that many do not fit a count. */
static uint32_t rate_frame_count(double duration, double rate)
{
    const double steps = ceil(duration * rate - 1e-6);
    return steps < 0 ? 1u : steps < (double)UINT32_MAX ? (uint32_t)steps + 1u : UINT32_MAX;
}

static double clip_duration(const sinew_clip *clip)
{
    return isfinite(clip->duration) && clip->duration > 0 ? clip->duration : 0;
}

/* The distinct (merged) key times of a clip, counted up to `limit` + 1 and no further. */
static uint32_t count_key_times(const sinew_clip *clip, uint32_t limit)
{
    uint32_t n = 0;
    for (float t = next_key(clip, -INFINITY, 1); isfinite(t) && n <= limit;
         t = next_key(clip, t, 0))
        n++;
    return n ? n : 1; /* a clip without keys has one frame at 0 */
}

uint32_t sinew_solve_frame_times(const sinew_clip *clip, float frame_rate, float *times,
                                 uint32_t capacity)
{
    uint32_t n = 0;
    if (frame_rate > 0) {
        const double dur = clip_duration(clip);
        const uint32_t count = rate_frame_count(dur, frame_rate);
        for (uint32_t i = 0; times && i < count && i < capacity; i++) {
            double t = i / (double)frame_rate;
            times[i] = (float)(t > dur ? dur : t);
        }
        return count;
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

sinew_result sinew_solve_plan_frames(const sinew_clip *clip, float frame_rate, uint32_t max_frames,
                                     sinew_solve_frame_plan *out, sinew_error *err)
{
    memset(out, 0, sizeof *out);
    const uint32_t limit = max_frames ? max_frames : SINEW_SOLVE_MAX_FRAMES;
    if (!isfinite(clip->duration) || clip->duration < 0)
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "solve: clip \"%s\" has a duration of %g s", clip->name,
                               (double)clip->duration);
    out->key_times = count_key_times(clip, limit);
    float rate = frame_rate > 0 ? frame_rate : 0.0f;
    if (rate == 0.0f && out->key_times > limit) {
        const float spacing = sinew_clip_key_spacing(clip, NULL);
        rate = spacing > 0 && 1.0f / spacing < SINEW_SOLVE_MAX_RATE ? 1.0f / spacing
                                                                    : SINEW_SOLVE_MAX_RATE;
        out->resampled = 1;
    }
    out->rate = rate;
    out->frame_count = rate > 0 ? rate_frame_count(clip_duration(clip), rate) : out->key_times;
    if (out->frame_count > limit)
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "solve: clip \"%s\" lasts %g s: %.10g frames at %g per second%s, "
                               "more than the %u a solve takes (is a key time far beyond the "
                               "others?)",
                               clip->name, (double)clip->duration,
                               ceil(clip_duration(clip) * rate - 1e-6) + 1.0, (double)rate,
                               out->resampled ? " (its own key rate; its key times are more)" : "",
                               limit);
    return SINEW_OK;
}

sinew_result sinew_solve_targets(const sinew_model *source, const sinew_clip *clip,
                                 const float *times, uint32_t frame_count,
                                 const sinew_model *target, const uint32_t *nearest,
                                 const sinew_allocator *allocator, sinew_vec3 *out,
                                 sinew_error *err)
{
    return sinew_solve_targets_aligned(source, clip, times, frame_count, target, nearest, NULL,
                                       allocator, out, err);
}

/* The map from a rig's bind space to its world at rest (what a player shows standing still):
 * the rest skinning matrix, identity for most files, an armature's scale and turn for FBX
 * exports. When the weighted joints disagree (rest differs from bind per joint) their
 * weight-averaged matrix. 0 when it is singular or out of memory. */
static int rest_map(const sinew_model *m, const sinew_allocator *alloc, solve_affine *out)
{
    const uint32_t N = m->node_count, J = m->skin.joint_count, V = m->mesh.vertex_count;
    sinew_transform *pose = sinew_alloc(alloc, N ? N : 1, sizeof *pose);
    sinew_mat4 *world = sinew_alloc(alloc, N ? N : 1, sizeof *world);
    sinew_mat4 *skin = sinew_alloc(alloc, J ? J : 1, sizeof *skin);
    double *weight = sinew_alloc(alloc, J ? J : 1, sizeof *weight);
    int ok = pose && world && skin && weight && J > 0;
    if (ok) {
        sinew_pose_rest(m, pose);
        sinew_pose_to_world(m, pose, world);
        sinew_skin_matrices(m, world, skin);
        for (size_t e = 0; e < (size_t)V * SINEW_MAX_INFLUENCES; e++)
            if (m->mesh.influence_weights[e] > 0 && m->mesh.influence_joints[e] < J)
                weight[m->mesh.influence_joints[e]] += m->mesh.influence_weights[e];
        int32_t first = -1, same = 1;
        double total = 0;
        for (uint32_t j = 0; j < J; j++) {
            if (!(weight[j] > 0)) continue;
            if (first < 0)
                first = (int32_t)j;
            else if (memcmp(&skin[j], &skin[first], sizeof skin[j]))
                same = 0;
            total += weight[j];
        }
        if (first < 0) {
            solve_affine_identity(out);
        } else if (same) { /* the usual case, kept exact */
            solve_affine_from_mat4(&skin[first], out);
        } else {
            memset(out, 0, sizeof *out);
            for (uint32_t j = 0; j < J; j++) {
                if (!(weight[j] > 0)) continue;
                solve_affine a;
                solve_affine_from_mat4(&skin[j], &a);
                for (int k = 0; k < 12; k++)
                    out->m[k] += weight[j] / total * a.m[k];
            }
        }
        solve_affine inv;
        ok = solve_affine_invert(out, &inv);
    }
    sinew_free(alloc, pose);
    sinew_free(alloc, world);
    sinew_free(alloc, skin);
    sinew_free(alloc, weight);
    return ok;
}

sinew_result sinew_solve_targets_aligned(const sinew_model *source, const sinew_clip *clip,
                                         const float *times, uint32_t frame_count,
                                         const sinew_model *target, const uint32_t *nearest,
                                         const sinew_solve_alignment *alignment,
                                         const sinew_allocator *allocator, sinew_vec3 *out,
                                         sinew_error *err)
{
    const int direct = (target == source && nearest == NULL);
    if (!direct && !nearest)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "solve: targets on another rig need a correspondence");
    if (direct && alignment)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "solve: the control run (a rig against its own clip) takes no "
                               "alignment");
    sinew_allocator alloc = {0};
    if (allocator) alloc = *allocator;
    const uint32_t J = source->skin.joint_count ? source->skin.joint_count : 1;
    sinew_transform *pose =
        sinew_alloc(&alloc, source->node_count ? source->node_count : 1, sizeof *pose);
    sinew_mat4 *world =
        sinew_alloc(&alloc, source->node_count ? source->node_count : 1, sizeof *world);
    sinew_mat4 *skin = sinew_alloc(&alloc, alignment ? 2 * (size_t)J : J, sizeof *skin);
    if (!pose || !world || !skin) {
        sinew_free(&alloc, pose);
        sinew_free(&alloc, world);
        sinew_free(&alloc, skin);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    /* With an alignment A (bind space to bind space) the source surface is carried into the
     * target's space: a target vertex p follows G_j = R_t A R_s^-1 M_j A^-1, R the rigs' rest
     * maps (bind to world at rest), one matrix per joint since the blend is linear in M_j.
     * At rest M_j = R_s, so the targets are the target's own rest pose; with R = identity
     * (most files) G_j = A M_j A^-1. */
    solve_affine pre, post; /* G_j = pre M_j post */
    if (alignment) {
        solve_affine fwd, inv, rs, rs_inv, rt;
        solve_alignment_affine(alignment, &fwd, &inv);
        if (!rest_map(source, &alloc, &rs) || !solve_affine_invert(&rs, &rs_inv) ||
            !rest_map(target, &alloc, &rt)) {
            sinew_free(&alloc, pose);
            sinew_free(&alloc, world);
            sinew_free(&alloc, skin);
            return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                                   "solve: a rig's rest pose does not map its bind space "
                                   "invertibly (degenerate rest skinning matrices)");
        }
        solve_affine tmp;
        solve_affine_mul(&rt, &fwd, &tmp);
        solve_affine_mul(&tmp, &rs_inv, &pre);
        post = inv;
    }
    sinew_mat4 *used = alignment ? skin + J : skin;
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
        if (alignment)
            for (uint32_t j = 0; j < source->skin.joint_count; j++) {
                solve_affine m, am;
                solve_affine_from_mat4(&skin[j], &m);
                solve_affine_mul(&pre, &m, &am);
                solve_affine_mul(&am, &post, &m);
                solve_affine_to_mat4(&m, &used[j]);
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
                const float *m = used[jt[k]].m;
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
