/* Eased keyframe tracks (after Sidorkin, "Animating a stick figure with two-bone IK in HTML
 * canvas"). */
#include "internal.h"

float sinew_anim2d_ease_apply(sinew_anim2d_ease kind, float u)
{
    u = a2_clamp(u, 0.0f, 1.0f);
    switch (kind) {
    case SINEW_ANIM2D_EASE_LINEAR:
        return u;
    case SINEW_ANIM2D_EASE_IN_CUBIC:
        return u * u * u;
    case SINEW_ANIM2D_EASE_OUT_CUBIC: {
        float v = 1.0f - u;
        return 1.0f - v * v * v;
    }
    case SINEW_ANIM2D_EASE_IN_OUT_CUBIC:
        if (u < 0.5f) return 4.0f * u * u * u;
        {
            float v = -2.0f * u + 2.0f;
            return 1.0f - v * v * v * 0.5f;
        }
    default:
        return u * u * (3.0f - 2.0f * u);
    }
}

float sinew_anim2d_track(const sinew_anim2d_key *keys, size_t count, float t,
                         sinew_anim2d_ease fallback)
{
    if (!keys || count == 0) return 0.0f;
    if (!(t > keys[0].t)) return keys[0].v; /* also catches NaN t */
    for (size_t i = 0; i + 1 < count; i++) {
        const sinew_anim2d_key *k0 = &keys[i], *k1 = &keys[i + 1];
        if (t <= k1->t) {
            float span = k1->t - k0->t;
            float u = span > 0.0f ? (t - k0->t) / span : 1.0f;
            sinew_anim2d_ease e = k1->ease != SINEW_ANIM2D_EASE_DEFAULT ? k1->ease : fallback;
            return a2_lerp(k0->v, k1->v, sinew_anim2d_ease_apply(e, u));
        }
    }
    return keys[count - 1].v;
}
