/* Poses: the file's and the neutral pose, clip sampling (glTF 2.0 spec, "Animations",
 * Appendix C interpolation) and local-to-world. Allocation-free; never mutates the model. */
#include "sinew/model.h"

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

void sinew_pose_to_world(const sinew_model *model, const sinew_transform *pose, sinew_mat4 *world)
{
    for (uint32_t i = 0; i < model->node_count; i++) {
        sinew_mat4 local = sinew_mat4_from_transform(pose[i]);
        int32_t parent = model->nodes[i].parent;
        world[i] = parent < 0 ? local : sinew_mat4_mul(&world[parent], &local);
    }
}
