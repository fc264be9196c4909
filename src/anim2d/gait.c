/* The gait cycle on one phase variable, with planted feet that end the moonwalk (after
 * Sidorkin, "Animating a stick figure with two-bone IK in HTML canvas"). */
#include "internal.h"

/* Walk and run ends of the blend. Stride, cadence and duty are the article's table; the rest are
 * ours, chosen so that every stance foot stays within THIGH + SHIN - LEG_SLACK of the hip at
 * every blend (the leg's pull-back would otherwise lift the stance foot and make it slide). */
static const sinew_anim2d_gait walk = {.stride = 44.0f,
                                       .cadence = 1.5f,
                                       .duty = 0.62f,
                                       .step_height = 8.0f,
                                       .bob = 2.5f,
                                       .bob_shift = 0.0f,
                                       .lean = 0.05f,
                                       .crouch = 0.0f,
                                       .foot_push = 18.0f,
                                       .arm_swing = 0.5f,
                                       .elbow_flex = 0.25f};
static const sinew_anim2d_gait run = {
    .stride = 60.0f,
    .cadence = 2.55f,
    .duty = 0.40f,
    .step_height = 20.0f,
    .bob = 4.0f,
    /* Stance of the near foot is [0, 0.4): the bob's peaks at 0.45 and 0.95 sit in flight. */
    .bob_shift = 0.2f,
    .lean = 0.2f,
    .crouch = 8.0f,
    .foot_push = 15.0f,
    .arm_swing = 0.9f,
    .elbow_flex = 1.35f};

sinew_anim2d_gait sinew_anim2d_gait_at(float gait)
{
    float t = isfinite(gait) ? a2_clamp(gait, 0.0f, 1.0f) : 0.0f;
    sinew_anim2d_gait g;
    g.stride = a2_lerp(walk.stride, run.stride, t);
    g.cadence = a2_lerp(walk.cadence, run.cadence, t);
    g.duty = a2_lerp(walk.duty, run.duty, t);
    g.step_height = a2_lerp(walk.step_height, run.step_height, t);
    g.bob = a2_lerp(walk.bob, run.bob, t);
    g.bob_shift = a2_lerp(walk.bob_shift, run.bob_shift, t);
    g.lean = a2_lerp(walk.lean, run.lean, t);
    g.crouch = a2_lerp(walk.crouch, run.crouch, t);
    g.foot_push = a2_lerp(walk.foot_push, run.foot_push, t);
    g.arm_swing = a2_lerp(walk.arm_swing, run.arm_swing, t);
    g.elbow_flex = a2_lerp(walk.elbow_flex, run.elbow_flex, t);
    return g;
}

float sinew_anim2d_gait_scroll_speed(const sinew_anim2d_gait *g)
{
    /* During stance a foot travels one stride relative to the hip in duty / cadence seconds,
     * so the ground must move stride x cadence / duty for the foot to stay put. */
    return g->stride * g->cadence / g->duty;
}

static double wrap01(double p)
{
    if (!isfinite(p)) return 0.0;
    p -= floor(p);
    return p >= 1.0 ? 0.0 : p;
}

sinew_vec2 sinew_anim2d_gait_foot(const sinew_anim2d_gait *g, double phase)
{
    double pph = wrap01(phase);
    float half = g->stride * 0.5f;
    if (pph < (double)g->duty) {
        float u = (float)(pph / (double)g->duty);
        return v2(a2_lerp(half, -half, u), 0.0f);
    }
    float u = (float)((pph - (double)g->duty) / (1.0 - (double)g->duty));
    return v2(a2_lerp(-half, half, a2_smooth(u)), -g->step_height * sinf(A2_PI * u));
}

float sinew_anim2d_gait_bob(const sinew_anim2d_gait *g, double phase)
{
    double p = wrap01(phase - (double)g->bob_shift);
    return -g->bob * fabsf(sinf((float)(p * 2.0 * 3.14159265358979323846)));
}
