/* Transfer quality as a glTF player shows it: the solved clip as written (its keys and their
 * LINEAR interpolation, glTF 2.0 section 3.11 "Animations": lerp for translations and scales,
 * slerp for rotations), sampled at every key and between keys, against the source clip sampled
 * the same way. The per-frame quality of sinew_solve_clip sees the solve at its frames only;
 * between keys a player interpolates each joint's local track on its own, and a rig whose
 * joints compensate each other only at the keys flies apart there. */
#include "solve_internal.h"

#include <math.h>
#include <string.h>

/* Key times closer than this are one sample (the frame planning merges keys the same way). */
#define MERGE_SECONDS 1e-4f
/* Samples per key interval: the key itself and the midpoint, where LINEAR interpolation is
 * farthest from both keys. Measured on the Khronos fox's Walk onto its template rigs: 8 per
 * interval moves Q by under 0.05 points and the max not at all. Safe range 2..16 (cost is
 * linear in it). */
#define SAMPLES_PER_INTERVAL 2u

void solve_written_clip_free(sinew_clip *clip, const sinew_allocator *alloc)
{
    if (!clip) return;
    for (uint32_t c = 0; c < clip->channel_count; c++) {
        sinew_free(alloc, clip->channels[c].times);
        sinew_free(alloc, clip->channels[c].values);
    }
    sinew_free(alloc, clip->channels);
    memset(clip, 0, sizeof *clip);
}

/* 1 when any frame's local scale of node n differs from the node's own (relative 1e-4): a
 * player keeps the file's scale for a node without a scale track. */
static int needs_scale(const sinew_model *rig, const sinew_solve_clip_result *res, uint32_t n)
{
    const sinew_vec3 own = rig->nodes[n].local.scale;
    for (uint32_t f = 0; f < res->frame_count; f++) {
        const sinew_vec3 s = res->poses[(size_t)f * res->node_count + n].scale;
        if (fabsf(s.x - own.x) > 1e-4f * fabsf(own.x) + 1e-6f ||
            fabsf(s.y - own.y) > 1e-4f * fabsf(own.y) + 1e-6f ||
            fabsf(s.z - own.z) > 1e-4f * fabsf(own.z) + 1e-6f)
            return 1;
    }
    return 0;
}

/* How far a unit step in node n's local space moves in the world at rest: the largest stretch
 * of its parent's rest world matrix (1 for a root). The diagonal is a world length, and a
 * local translation is in the parent's units: under an FBX armature scaled by 100 the same
 * local step moves a point 100 times as far. `world` is the rest pose's world matrices. */
static double parent_stretch(const sinew_model *rig, const sinew_mat4 *world, uint32_t n)
{
    const int32_t p = rig->nodes[n].parent;
    if (p < 0) return 1.0;
    double big = 0;
    for (int c = 0; c < 3; c++) {
        const sinew_vec3 axis = sinew_vec3_make(c == 0, c == 1, c == 2);
        const double len = sinew_vec3_length(sinew_mat4_transform_dir(&world[p], axis));
        if (len > big) big = len;
    }
    return big > 0 ? big : 1.0;
}

/* The tolerance of channel `ch` (of node n) under res->keys: the diagonal's fraction as a
 * world length, in the node's local units, for translations; of the node's own largest
 * scale for scales; radians for rotations. */
static double key_tolerance(const sinew_model *rig, const sinew_solve_clip_result *res,
                            const sinew_mat4 *world, const sinew_channel *ch)
{
    if (ch->path == SINEW_PATH_ROTATION) return res->keys.rotation;
    if (ch->path == SINEW_PATH_TRANSLATION)
        return res->keys.translation * res->diagonal /
               parent_stretch(rig, world, (uint32_t)ch->node);
    const sinew_vec3 s = rig->nodes[ch->node].local.scale;
    double big = fabs(s.x) > fabs(s.y) ? fabs(s.x) : fabs(s.y);
    if (fabs(s.z) > big) big = fabs(s.z);
    return res->keys.translation * big;
}

/* Drops the keys of `ch` a player does not need. `keep` is scratch of key_count flags. */
static sinew_result reduce_channel(sinew_channel *ch, double tolerance,
                                   const sinew_allocator *alloc, uint8_t *keep, sinew_error *err)
{
    uint32_t kept = 0;
    sinew_result r = sinew_channel_reduce(ch, tolerance, alloc, keep, &kept, err);
    if (r == SINEW_OK) sinew_channel_keep(ch, keep);
    return r;
}

sinew_result solve_written_clip(const sinew_model *rig, const sinew_solve_clip_result *res,
                                const sinew_allocator *alloc, sinew_clip *out, sinew_error *err)
{
    memset(out, 0, sizeof *out);
    const uint32_t F = res->frame_count, N = res->node_count;
    if (F == 0 || N != rig->node_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "solve: nothing to write");
    out->channels = sinew_alloc(alloc, (size_t)N * 3 + 1, sizeof *out->channels);
    uint8_t *keep = sinew_alloc(alloc, F, 1);
    sinew_transform *rest = sinew_alloc(alloc, N ? N : 1, sizeof *rest);
    sinew_mat4 *world = sinew_alloc(alloc, N ? N : 1, sizeof *world);
    if (!out->channels || !keep || !rest || !world) {
        sinew_free(alloc, out->channels);
        sinew_free(alloc, keep);
        sinew_free(alloc, rest);
        sinew_free(alloc, world);
        out->channels = NULL;
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    sinew_pose_rest(rig, rest);
    sinew_pose_to_world(rig, rest, world);
    sinew_free(alloc, rest);
    out->gltf_animation = -1;
    out->duration = res->times[F - 1];
    for (uint32_t n = 0; n < N; n++) {
        if (rig->nodes[n].joint < 0) continue;
        const sinew_path paths[3] = {SINEW_PATH_TRANSLATION, SINEW_PATH_ROTATION, SINEW_PATH_SCALE};
        for (int p = 0; p < (needs_scale(rig, res, n) ? 3 : 2); p++) {
            const uint32_t comps = paths[p] == SINEW_PATH_ROTATION ? 4 : 3;
            sinew_channel *ch = &out->channels[out->channel_count];
            ch->values = sinew_alloc(alloc, (size_t)F * comps, sizeof(float));
            ch->times = sinew_alloc(alloc, F, sizeof(float));
            out->channel_count++;
            if (!ch->values || !ch->times) {
                solve_written_clip_free(out, alloc);
                sinew_free(alloc, keep);
                sinew_free(alloc, world);
                return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
            }
            ch->node = (int32_t)n;
            ch->path = paths[p];
            ch->interpolation = SINEW_INTERP_LINEAR;
            ch->key_count = F;
            memcpy(ch->times, res->times, (size_t)F * sizeof *ch->times);
            for (uint32_t f = 0; f < F; f++) {
                const sinew_transform *t = &res->poses[(size_t)f * N + n];
                float *v = &ch->values[(size_t)f * comps];
                if (paths[p] == SINEW_PATH_ROTATION)
                    v[0] = t->rotation.x, v[1] = t->rotation.y, v[2] = t->rotation.z,
                    v[3] = t->rotation.w;
                else {
                    const sinew_vec3 x = paths[p] == SINEW_PATH_SCALE ? t->scale : t->translation;
                    v[0] = x.x, v[1] = x.y, v[2] = x.z;
                }
            }
            if (res->keys.all) continue;
            const sinew_result r =
                reduce_channel(ch, key_tolerance(rig, res, world, ch), alloc, keep, err);
            if (r != SINEW_OK) {
                solve_written_clip_free(out, alloc);
                sinew_free(alloc, keep);
                sinew_free(alloc, world);
                return r;
            }
        }
    }
    sinew_free(alloc, keep);
    sinew_free(alloc, world);
    return SINEW_OK;
}

sinew_result solve_keys_resolve(const sinew_solve_options *options, sinew_solve_keys *out,
                                sinew_error *err)
{
    memset(out, 0, sizeof *out);
    const float t = options ? options->key_translation : 0, d = options ? options->key_degrees : 0;
    if (!(t >= 0) || !isfinite(t) || !(d >= 0) || !isfinite(d))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "solve: key tolerances must be finite and >= 0 (translation %g, "
                               "rotation %g degrees)",
                               (double)t, (double)d);
    out->all = options && options->all_keys;
    out->translation = t > 0 ? t : SINEW_SOLVE_KEY_TRANSLATION;
    out->rotation = (d > 0 ? d : SINEW_SOLVE_KEY_DEGREES) * (SINEW_PI / 180.0);
    return SINEW_OK;
}

sinew_result solve_keys_count(const sinew_model *rig, sinew_solve_clip_result *res,
                              const sinew_allocator *alloc, sinew_error *err)
{
    sinew_clip clip;
    sinew_result r = solve_written_clip(rig, res, alloc, &clip, err);
    if (r != SINEW_OK) return r;
    res->keys.frame_keys = (uint64_t)clip.channel_count * res->frame_count;
    res->keys.written = 0;
    for (uint32_t c = 0; c < clip.channel_count; c++)
        res->keys.written += clip.channels[c].key_count;
    solve_written_clip_free(&clip, alloc);
    return SINEW_OK;
}

/* Merges two sorted time lists (keys within MERGE_SECONDS are one) into `out` (capacity
 * na + nb); returns the count. */
static uint32_t merge_times(const float *a, uint32_t na, const float *b, uint32_t nb, float *out)
{
    uint32_t i = 0, k = 0, n = 0;
    while (i < na || k < nb) {
        const float t = k >= nb || (i < na && a[i] <= b[k]) ? a[i++] : b[k++];
        if (n == 0 || t > out[n - 1] + MERGE_SECONDS) out[n++] = t;
    }
    return n;
}

/* The sample times: the source clip's first K distinct key times (all of them, or none for a
 * resampled clip) and the written clip's, merged, and SAMPLES_PER_INTERVAL - 1 evenly spaced
 * times inside each interval between them. `scratch` holds 2 * (K + F) floats and `times`
 * SAMPLES_PER_INTERVAL * (K + F), F the result's frames; returns the count written. */
static uint32_t played_times(const sinew_clip *clip, const sinew_solve_clip_result *result,
                             uint32_t K, float *scratch, float *times)
{
    const uint32_t F = result->frame_count;
    sinew_solve_frame_times(clip, 0, scratch + K + F, K);
    const uint32_t n = merge_times(scratch + K + F, K, result->times, F, scratch);
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t s = 1; i > 0 && s < SAMPLES_PER_INTERVAL; s++)
            times[count++] =
                scratch[i - 1] + (scratch[i] - scratch[i - 1]) * ((float)s / SAMPLES_PER_INTERVAL);
        times[count++] = scratch[i];
    }
    return count;
}

sinew_result sinew_solve_quality_played(const sinew_model *source, const sinew_clip *clip,
                                        const sinew_model *rig, const uint32_t *nearest,
                                        const sinew_solve_options *options,
                                        const sinew_solve_clip_result *result,
                                        sinew_solve_quality *out, float *vertex_error,
                                        sinew_error *err)
{
    memset(out, 0, sizeof *out);
    if (!source || !clip || !rig || !result || result->node_count != rig->node_count ||
        result->vertex_count != rig->mesh.vertex_count || result->frame_count == 0)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "solve: the result is not a solve of this rig");
    sinew_allocator alloc = {0};
    if (options && options->allocator) alloc = *options->allocator;
    const sinew_allocator *a = &alloc;
    const uint32_t N = rig->node_count, J = rig->skin.joint_count, V = rig->mesh.vertex_count;
    /* A clip the solve resampled has more key times than any solve may visit: it is measured
     * at the written keys and between them, not at each of its own keys as well. */
    const uint32_t K = result->plan.resampled ? 0 : sinew_solve_frame_times(clip, 0, NULL, 0);
    const uint32_t F = result->frame_count;
    float *scratch = sinew_alloc(a, (size_t)(K + F) * 2, sizeof(float));
    float *times = sinew_alloc(a, (size_t)(K + F) * SAMPLES_PER_INTERVAL, sizeof(float));
    uint32_t S = 0;
    sinew_vec3 *targets = sinew_alloc(a, V ? V : 1, sizeof(sinew_vec3));
    sinew_vec3 *solved = sinew_alloc(a, V ? V : 1, sizeof(sinew_vec3));
    sinew_vec3 *rest = sinew_alloc(a, V ? V : 1, sizeof(sinew_vec3));
    sinew_transform *pose = sinew_alloc(a, N ? N : 1, sizeof(sinew_transform));
    sinew_mat4 *world = sinew_alloc(a, N ? N : 1, sizeof(sinew_mat4));
    sinew_mat4 *skin = sinew_alloc(a, J ? J : 1, sizeof(sinew_mat4));
    sinew_clip written;
    memset(&written, 0, sizeof written);
    sinew_result r = SINEW_OK;
    if (!scratch || !times || !targets || !solved || !rest || !pose || !world || !skin) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
        goto done;
    }
    r = solve_written_clip(rig, result, a, &written, err);
    if (r != SINEW_OK) goto done;
    S = played_times(clip, result, K, scratch, times);
    solve_rest_skin(rig, a, rest);
    const double diagonal = result->diagonal > 0 ? result->diagonal : 1.0;
    if (vertex_error) memset(vertex_error, 0, (size_t)V * sizeof *vertex_error);
    for (uint32_t s = 0; s < S; s++) {
        r = sinew_solve_targets_aligned(source, clip, &times[s], 1, rig, nearest,
                                        options ? options->alignment : NULL, a, targets, err);
        if (r != SINEW_OK) goto done;
        sinew_clip_sample(rig, &written, times[s], pose);
        sinew_pose_to_world(rig, pose, world);
        sinew_skin_matrices(rig, world, skin);
        sinew_skin_positions(rig, skin, solved);
        for (uint32_t i = 0; i < V; i++) {
            const double e = sinew_vec3_distance(solved[i], targets[i]);
            out->error += e;
            out->moved += sinew_vec3_distance(targets[i], rest[i]);
            if (vertex_error && e > vertex_error[i]) vertex_error[i] = (float)e;
            if (e / diagonal > out->max_error || (s == 0 && i == 0)) {
                out->max_error = e / diagonal;
                out->worst_frame = s;
                out->worst_time = times[s];
                out->worst_vertex = i;
            }
        }
    }
    out->samples = (uint64_t)S * V;
    out->mean_error = out->samples ? out->error / (double)out->samples / diagonal : 0;
    out->q = out->moved > 0 ? 1.0 - out->error / out->moved : (out->error > 0 ? 0 : 1);

done:
    solve_written_clip_free(&written, a);
    sinew_free(a, scratch);
    sinew_free(a, times);
    sinew_free(a, targets);
    sinew_free(a, solved);
    sinew_free(a, rest);
    sinew_free(a, pose);
    sinew_free(a, world);
    sinew_free(a, skin);
    if (r != SINEW_OK) memset(out, 0, sizeof *out);
    return r;
}

/* Halvings of the key tolerances before every frame is keyed: 0.01 degree / 1e-4 of the
 * diagonal down to 1.6e-4 degree / 1.6e-6, where a track keeps nearly every frame anyway. */
#define KEY_HALVINGS 6

sinew_result sinew_solve_quality_written(const sinew_model *source, const sinew_clip *clip,
                                         const sinew_model *rig, const uint32_t *nearest,
                                         const sinew_solve_options *options,
                                         sinew_solve_clip_result *result, sinew_solve_quality *out,
                                         float *vertex_error, sinew_error *err)
{
    if (!result)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "solve: the result is not a solve");
    if (result->keys.all)
        return sinew_solve_quality_played(source, clip, rig, nearest, options, result, out,
                                          vertex_error, err);
    /* Each measure of the reduced clip is the answer if it is within the budget: it is kept
     * in `out` (and vertex_error), so the clip settled on is never measured twice. */
    sinew_solve_quality every;
    result->keys.all = 1;
    sinew_result r =
        sinew_solve_quality_played(source, clip, rig, nearest, options, result, &every, NULL, err);
    result->keys.all = 0;
    for (int halvings = 0; r == SINEW_OK; halvings++) {
        r = sinew_solve_quality_played(source, clip, rig, nearest, options, result, out,
                                       vertex_error, err);
        if (r != SINEW_OK || every.q - out->q <= SINEW_SOLVE_KEY_Q_LOSS) break;
        if (halvings == KEY_HALVINGS) { /* every frame keyed: measure that, with its errors */
            result->keys.all = 1;
            r = sinew_solve_quality_played(source, clip, rig, nearest, options, result, out,
                                           vertex_error, err);
            break;
        }
        result->keys.translation *= 0.5;
        result->keys.rotation *= 0.5;
    }
    sinew_allocator alloc = {0};
    if (options && options->allocator) alloc = *options->allocator;
    return r == SINEW_OK ? solve_keys_count(rig, result, &alloc, err) : r;
}
