/* anim2d internals shared by its source files: small vector helpers and the per-motion body
 * description that pose.c resolves into joints. */
#ifndef SINEW_ANIM2D_INTERNAL_H
#define SINEW_ANIM2D_INTERNAL_H

#include <math.h>

#include "sinew/anim2d.h"

#define A2_PI 3.14159265358979323846f

static inline sinew_vec2 v2(float x, float y)
{
    sinew_vec2 v = {x, y};
    return v;
}
static inline sinew_vec2 v2_add(sinew_vec2 a, sinew_vec2 b)
{
    return v2(a.x + b.x, a.y + b.y);
}
static inline sinew_vec2 v2_sub(sinew_vec2 a, sinew_vec2 b)
{
    return v2(a.x - b.x, a.y - b.y);
}
static inline sinew_vec2 v2_scale(sinew_vec2 a, float s)
{
    return v2(a.x * s, a.y * s);
}
static inline sinew_vec2 v2_madd(sinew_vec2 a, sinew_vec2 b, float s)
{
    return v2(a.x + b.x * s, a.y + b.y * s);
}
static inline float v2_len(sinew_vec2 a)
{
    return sqrtf(a.x * a.x + a.y * a.y);
}
static inline sinew_vec2 v2_lerp(sinew_vec2 a, sinew_vec2 b, float t)
{
    return v2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
}
static inline float a2_lerp(float a, float b, float t)
{
    return a + (b - a) * t;
}
static inline float a2_clamp(float v, float lo, float hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}
static inline float a2_smooth(float u)
{
    u = a2_clamp(u, 0.0f, 1.0f);
    return u * u * (3.0f - 2.0f * u);
}
/* Unit vector at `angle` from forward (+x), canvas space (negative angles point up). */
static inline sinew_vec2 v2_dir(float angle)
{
    return v2(cosf(angle), sinf(angle));
}

/* What one motion wants at one instant, before IK and squash. Coordinates are relative to
 * the ground point under the figure (x forward, y down). */
typedef struct a2_body {
    sinew_vec2 pelvis;  /* units */
    float lean;         /* radians forward */
    sinew_vec2 foot[2]; /* targets, near then far */
    int arm_ik;         /* 0: FK angles; 1: both hands on the spear */
    float arm_up[2];    /* FK: radians from straight down, forward positive */
    float arm_flex[2];  /* FK: elbow bend, radians */
    sinew_vec2 grip;    /* IK: front hand relative to the shoulder */
    float spear_angle;  /* radians, butt->tip, 0 forward */
    float spear_alpha;  /* 0..1 */
    float sy;           /* squash */
    float scroll;       /* units/s */
    float airborne;     /* 0..1: how much the figure is in the air (wind boost) */
    float thrust;       /* 0..1 */
} a2_body;

/* Per-motion body builders (moves.c). `t` is seconds into the motion. */
void a2_body_locomotion(a2_body *b, const sinew_anim2d_gait *g, double phase, float gait);
void a2_body_throw(a2_body *b, float p);
void a2_body_jump_lab(a2_body *b, float p);
void a2_body_spear_form(a2_body *b, float p);
/* The spear run: locomotion with the spear carried, plus the jump and thrust actions at
 * normalised times pj, pt (negative: not under way). */
void a2_body_spear_run(a2_body *b, const sinew_anim2d_gait *g, double phase, float gait, float pj,
                       float pt);

/* The jump tracks shared by the lab jump and the game jump. */
float a2_jump_root_y(float p);
float a2_jump_sy(float p);

#endif
