/* Poses: the file's and the neutral pose, clip sampling (glTF 2.0 spec, "Animations",
 * Appendix C interpolation), local-to-world, and which keys a channel needs to play the same
 * curve. Never mutates the model; only the key reduction allocates (its stack). */
#include "sinew/model.h"

#include <string.h>

void sinew_pose_file(const sinew_model *model, sinew_transform *pose)
{
    for (uint32_t i = 0; i < model->node_count; i++)
        pose[i] = model->nodes[i].local;
}

void sinew_pose_rest(const sinew_model *model, sinew_transform *pose)
{
    for (uint32_t i = 0; i < model->node_count; i++)
        pose[i] = model->nodes[i].rest;
}

/* Index k of the last key with times[k] <= t (0 when t is before the first key). */
static uint32_t find_key(const float *times, uint32_t count, float t)
{
    uint32_t lo = 0, hi = count - 1;
    if (t <= times[0]) return 0;
    if (t >= times[hi]) return hi;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (times[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Reads component c of key k's value (skipping CUBICSPLINE tangents). */
static float key_value(const sinew_channel *ch, uint32_t n, uint32_t k, uint32_t c)
{
    if (ch->interpolation == SINEW_INTERP_CUBICSPLINE) return ch->values[(3 * k + 1) * n + c];
    return ch->values[k * n + c];
}

static void sample_channel(const sinew_channel *ch, float t, float out[4])
{
    const uint32_t n = ch->path == SINEW_PATH_ROTATION ? 4 : 3;
    const uint32_t k = find_key(ch->times, ch->key_count, t);
    const int last = k + 1 >= ch->key_count || t <= ch->times[0];
    if (last || ch->interpolation == SINEW_INTERP_STEP) {
        for (uint32_t c = 0; c < n; c++)
            out[c] = key_value(ch, n, k, c);
        return;
    }
    const float t0 = ch->times[k], t1 = ch->times[k + 1], dt = t1 - t0;
    const float u = (t - t0) / dt;
    if (ch->interpolation == SINEW_INTERP_CUBICSPLINE) {
        /* Hermite: p = (2u^3 - 3u^2 + 1) v0 + (u^3 - 2u^2 + u) dt b0 + (-2u^3 + 3u^2) v1
         *            + (u^3 - u^2) dt a1, with b0 = out-tangent of k, a1 = in-tangent of k+1. */
        const float u2 = u * u, u3 = u2 * u;
        const float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u;
        const float h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
        for (uint32_t c = 0; c < n; c++) {
            float v0 = ch->values[(3 * k + 1) * n + c], b0 = ch->values[(3 * k + 2) * n + c];
            float v1 = ch->values[(3 * (k + 1) + 1) * n + c],
                  a1 = ch->values[(3 * (k + 1)) * n + c];
            out[c] = h00 * v0 + h10 * dt * b0 + h01 * v1 + h11 * dt * a1;
        }
        if (n == 4) {
            sinew_quat q = sinew_quat_normalize(sinew_quat_make(out[0], out[1], out[2], out[3]));
            out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        }
        return;
    }
    if (n == 4) {
        const float *a = &ch->values[k * 4], *b = &ch->values[(k + 1) * 4];
        /* Keys are normalised first: files store slightly off-unit quaternions (SimpleSkin's
         * 0.707s), and slerp between unnormalised ends turns the wrong angle. */
        sinew_quat q =
            sinew_quat_slerp(sinew_quat_normalize(sinew_quat_make(a[0], a[1], a[2], a[3])),
                             sinew_quat_normalize(sinew_quat_make(b[0], b[1], b[2], b[3])), u);
        out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        return;
    }
    for (uint32_t c = 0; c < n; c++) {
        float a = ch->values[k * n + c], b = ch->values[(k + 1) * n + c];
        out[c] = a + (b - a) * u;
    }
}

void sinew_clip_sample(const sinew_model *model, const sinew_clip *clip, float time,
                       sinew_transform *pose)
{
    sinew_pose_file(model, pose);
    if (!(time > 0)) time = 0; /* also maps NaN to 0 */
    if (time > clip->duration) time = clip->duration;
    for (uint32_t i = 0; i < clip->channel_count; i++) {
        const sinew_channel *ch = &clip->channels[i];
        if (ch->key_count == 0 || ch->node < 0 || (uint32_t)ch->node >= model->node_count) continue;
        float v[4];
        sample_channel(ch, time, v);
        sinew_transform *t = &pose[ch->node];
        switch (ch->path) {
        case SINEW_PATH_TRANSLATION:
            t->translation = sinew_vec3_make(v[0], v[1], v[2]);
            break;
        case SINEW_PATH_ROTATION:
            t->rotation = sinew_quat_normalize(sinew_quat_make(v[0], v[1], v[2], v[3]));
            break;
        case SINEW_PATH_SCALE:
            t->scale = sinew_vec3_make(v[0], v[1], v[2]);
            break;
        case SINEW_PATH_INVALID:
            break;
        }
    }
}

/* How far apart two values of a channel's path are: the angle between rotations (radians,
 * blind to the quaternion's sign, precise for small angles where acos of a dot product loses
 * a twentieth of a degree in float), else the Euclidean distance. */
static double value_distance(sinew_path path, const float *a, const float *b)
{
    if (path == SINEW_PATH_ROTATION) {
        const sinew_quat qa = sinew_quat_normalize(sinew_quat_make(a[0], a[1], a[2], a[3]));
        const sinew_quat qb = sinew_quat_normalize(sinew_quat_make(b[0], b[1], b[2], b[3]));
        const sinew_quat d = sinew_quat_mul(sinew_quat_conjugate(qa), qb);
        const double v = sqrt((double)d.x * d.x + (double)d.y * d.y + (double)d.z * d.z);
        return 2.0 * atan2(v, fabs((double)d.w));
    }
    const double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* The largest distance, over the keys strictly between a and b, between a key's value and
 * what a player shows at its time once keys a and b are all that is left of a..b (played
 * through sample_channel, the interpolation sinew_clip_sample uses); *worst gets that key. */
static double segment_error(const sinew_channel *ch, uint32_t a, uint32_t b, uint32_t *worst)
{
    const uint32_t n = ch->path == SINEW_PATH_ROTATION ? 4 : 3;
    float times[2] = {ch->times[a], ch->times[b]}, values[8];
    memcpy(values, &ch->values[(size_t)a * n], n * sizeof *values);
    memcpy(values + n, &ch->values[(size_t)b * n], n * sizeof *values);
    sinew_channel seg = *ch;
    seg.key_count = 2;
    seg.times = times;
    seg.values = values;
    double most = -1;
    for (uint32_t k = a + 1; k < b; k++) {
        float v[4];
        sample_channel(&seg, ch->times[k], v);
        const double e = value_distance(ch->path, v, &ch->values[(size_t)k * n]);
        if (e > most) most = e, *worst = k;
    }
    return most;
}

sinew_result sinew_channel_reduce(const sinew_channel *ch, double tolerance,
                                  const sinew_allocator *allocator, uint8_t *keep, uint32_t *kept,
                                  sinew_error *err)
{
    if (kept) *kept = 0;
    if (!ch || !keep || !kept || ch->key_count == 0 || !ch->times || !ch->values)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_channel_reduce: no keys");
    if (ch->interpolation != SINEW_INTERP_LINEAR && ch->interpolation != SINEW_INTERP_STEP)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "sinew_channel_reduce: only LINEAR and STEP channels are reduced");
    if (ch->path <= SINEW_PATH_INVALID || ch->path > SINEW_PATH_SCALE)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_channel_reduce: bad path");
    if (!(tolerance >= 0) || !isfinite(tolerance))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "sinew_channel_reduce: the tolerance %g is not a finite number "
                               ">= 0",
                               tolerance);
    const uint32_t n = ch->key_count;
    memset(keep, 0, n);
    keep[0] = keep[n - 1] = 1;
    if (n <= 2) {
        *kept = n;
        return SINEW_OK;
    }
    if (ch->interpolation == SINEW_INTERP_STEP) {
        /* A held value: a key may go while it is within the tolerance of the last kept one,
         * which a player holds in its place; keeping the first key that is not is the fewest
         * keys (any kept key before it would hold a value no better). */
        const uint32_t comps = ch->path == SINEW_PATH_ROTATION ? 4 : 3;
        uint32_t count = 2;
        for (uint32_t k = 1, held = 0; k + 1 < n; k++)
            if (value_distance(ch->path, &ch->values[(size_t)held * comps],
                               &ch->values[(size_t)k * comps]) > tolerance) {
                keep[k] = 1;
                held = k;
                count++;
            }
        *kept = count;
        return SINEW_OK;
    }
    /* Douglas and Peucker (1973), on the played curve: a span whose worst left-out key is off
     * by more than the tolerance keeps that key and splits there. Every span is one pair of
     * stack entries and spans never overlap, so n pairs always suffice. */
    uint32_t *stack = sinew_alloc(allocator, (size_t)n * 2, sizeof *stack);
    if (!stack) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
    uint32_t top = 0, count = 2;
    stack[top++] = 0;
    stack[top++] = n - 1;
    while (top) {
        const uint32_t b = stack[--top], a = stack[--top];
        if (b - a < 2) continue;
        uint32_t k = a;
        if (!(segment_error(ch, a, b, &k) > tolerance)) continue;
        keep[k] = 1;
        count++;
        stack[top++] = a;
        stack[top++] = k;
        stack[top++] = k;
        stack[top++] = b;
    }
    sinew_free(allocator, stack);
    *kept = count;
    return SINEW_OK;
}

void sinew_channel_keep(sinew_channel *ch, const uint8_t *keep)
{
    const uint32_t comps = ch->path == SINEW_PATH_ROTATION ? 4 : 3;
    uint32_t w = 0;
    for (uint32_t k = 0; k < ch->key_count; k++) {
        if (!keep[k]) continue;
        ch->times[w] = ch->times[k];
        memmove(&ch->values[(size_t)w * comps], &ch->values[(size_t)k * comps],
                comps * sizeof *ch->values);
        w++;
    }
    ch->key_count = w;
}

void sinew_pose_to_world(const sinew_model *model, const sinew_transform *pose, sinew_mat4 *world)
{
    for (uint32_t i = 0; i < model->node_count; i++) {
        sinew_mat4 local = sinew_mat4_from_transform(pose[i]);
        int32_t parent = model->nodes[i].parent;
        world[i] = parent < 0 ? local : sinew_mat4_mul(&world[parent], &local);
    }
}
