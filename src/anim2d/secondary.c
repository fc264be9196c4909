/* Squash and stretch, the head spring and the Verlet hair: the secondary motion of Sidorkin,
 * "Animating a stick figure with two-bone IK in HTML canvas" (one spring, one Verlet chain). */
#include "internal.h"

float sinew_anim2d_squash_sx(float sy)
{
    /* Squash down -> wider, stretch up -> thinner: the figure seems to keep its volume. */
    return 1.0f + (1.0f - sy) * 0.7f;
}

sinew_vec2 sinew_anim2d_squash(sinew_vec2 p, sinew_vec2 pivot, float sy)
{
    float sx = sinew_anim2d_squash_sx(sy);
    /* About the ground contact point, not the centre: the feet stay on the ground. */
    return v2(pivot.x + (p.x - pivot.x) * sx, pivot.y + (p.y - pivot.y) * sy);
}

void sinew_anim2d_spring_step(sinew_anim2d_spring *s, sinew_vec2 target, float k, float c, float dt)
{
    sinew_vec2 acc = v2_sub(v2_scale(v2_sub(target, s->pos), k), v2_scale(s->vel, c));
    s->vel = v2_madd(s->vel, acc, dt); /* semi-implicit Euler: velocity first */
    s->pos = v2_madd(s->pos, s->vel, dt);
}

void sinew_anim2d_hair_reset(sinew_anim2d_hair *h, sinew_vec2 pin, float spacing)
{
    for (int i = 0; i < SINEW_ANIM2D_HAIR_POINTS; i++) {
        h->pos[i] = v2(pin.x, pin.y + spacing * (float)i);
        h->prev[i] = h->pos[i];
    }
}

void sinew_anim2d_hair_step(sinew_anim2d_hair *h, sinew_vec2 pin, float wind_x, float gravity,
                            float spacing, float drag, int iterations, float dt)
{
    float kick = dt * dt * 60.0f;
    for (int i = 1; i < SINEW_ANIM2D_HAIR_POINTS; i++) {
        sinew_vec2 *s = &h->pos[i], *ps = &h->prev[i];
        float vx = (s->x - ps->x) * drag, vy = (s->y - ps->y) * drag;
        *ps = *s;
        s->x += vx + wind_x * kick;
        s->y += vy + gravity * kick;
    }
    h->prev[0] = h->pos[0];
    h->pos[0] = pin;
    for (int it = 0; it < iterations; it++) {
        h->pos[0] = pin;
        for (int i = 0; i + 1 < SINEW_ANIM2D_HAIR_POINTS; i++) {
            sinew_vec2 *a = &h->pos[i], *b = &h->pos[i + 1];
            sinew_vec2 d = v2_sub(*b, *a);
            float len = v2_len(d);
            if (!(len > 1e-6f)) { /* coincident (or NaN): hang the child straight down */
                *b = v2(a->x, a->y + spacing);
                continue;
            }
            float diff = (len - spacing) / len;
            /* The pinned point does not move: the child takes it all. The last pass walks
             * out from the pin moving only children, so however hard the head jerks the
             * lengths come out exact; the passes before it share the correction both ways. */
            if (i == 0 || it == iterations - 1) {
                *b = v2_madd(*b, d, -diff);
            } else {
                *a = v2_madd(*a, d, 0.5f * diff);
                *b = v2_madd(*b, d, -0.5f * diff);
            }
        }
    }
}
