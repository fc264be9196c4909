/* The motions as bodies: locomotion, the unarmed throw, the jump, the 17-pose spear form and
 * the spear run with its jump and two-handed thrust (after Sidorkin, "Animating a stick figure
 * with two-bone IK in HTML canvas"). Each builder is a pure function of its times; pose.c
 * turns a body into joints. */
#include "internal.h"

#define OUT SINEW_ANIM2D_EASE_OUT_CUBIC
#define IN SINEW_ANIM2D_EASE_IN_CUBIC
#define SM SINEW_ANIM2D_EASE_SMOOTH
#define LIN SINEW_ANIM2D_EASE_LINEAR
#define N(keys) (sizeof(keys) / sizeof(keys)[0])

static float trk(const sinew_anim2d_key *k, size_t n, float p)
{
    return sinew_anim2d_track(k, n, p, SINEW_ANIM2D_EASE_SMOOTH);
}

/* ---- jump (the article's rootY and the squash sy) ---- */

/* Crouch (+10, y down), push off, rise 160 to the apex, fall, cushion the landing a little
 * below the ground and settle; easeOutCubic rising, easeInCubic falling: a cheap parabola. */
static const sinew_anim2d_key jump_root[] = {
    {0.0f, 0.0f, OUT},   {0.2f, 10.0f, OUT}, {0.32f, -6.0f, OUT}, {0.5f, -160.0f, OUT},
    {0.68f, -70.0f, IN}, {0.82f, 4.0f, IN},  {0.9f, -2.0f, IN},   {1.0f, 0.0f, IN}};
/* 0.84 in the crouch, 1.14 at take-off, 0.82 on landing. */
static const sinew_anim2d_key jump_squash[] = {
    {0.0f, 1.0f, SM},   {0.2f, 0.84f, SM},  {0.32f, 1.14f, SM}, {0.5f, 1.0f, SM},
    {0.74f, 1.02f, SM}, {0.82f, 0.82f, SM}, {0.9f, 1.03f, SM},  {1.0f, 1.0f, SM}};

float a2_jump_root_y(float p)
{
    return trk(jump_root, N(jump_root), p);
}
float a2_jump_sy(float p)
{
    return trk(jump_squash, N(jump_squash), p);
}

/* Feet follow the body up once the legs are nearly straight, then tuck toward the hips. */
static void jump_feet(a2_body *b, float root_y, sinew_vec2 tuck_near, sinew_vec2 tuck_far)
{
    const float slack = 6.0f; /* units the hips may rise before the feet leave the ground */
    float follow = fminf(0.0f, root_y + slack);
    float air = a2_smooth(-(root_y + slack) / 40.0f);
    sinew_vec2 tn = v2_add(b->pelvis, tuck_near), tf = v2_add(b->pelvis, tuck_far);
    b->foot[0] = v2_lerp(v2(b->foot[0].x, b->foot[0].y + follow), tn, air);
    b->foot[1] = v2_lerp(v2(b->foot[1].x, b->foot[1].y + follow), tf, air);
    b->airborne = a2_smooth(-root_y / 60.0f);
}

/* ---- locomotion ---- */

void a2_body_locomotion(a2_body *b, const sinew_anim2d_gait *g, double phase, float gait)
{
    float bob = sinew_anim2d_gait_bob(g, phase);
    float push = g->lean * g->foot_push; /* feet forward with the lean, under the mass */
    b->pelvis = v2(0.0f, -(SINEW_ANIM2D_HIP_H - g->crouch) + bob);
    b->lean = g->lean;
    for (int side = 0; side < 2; side++) { /* the far foot is half a cycle behind */
        sinew_vec2 f = sinew_anim2d_gait_foot(g, phase + 0.5 * side);
        b->foot[side] = v2(f.x + push, f.y);
    }
    /* Each arm swings against the leg on its side; the elbow bends more going forward. */
    float c = cosf((float)(phase * 2.0 * 3.14159265358979323846));
    float bias = 0.1f + 0.3f * gait;
    float up_near = -g->arm_swing * c + bias, up_far = g->arm_swing * c + bias;
    b->arm_ik = 0;
    b->arm_up[0] = up_near;
    b->arm_up[1] = up_far;
    b->arm_flex[0] = g->elbow_flex + 0.6f * fmaxf(0.0f, up_near);
    b->arm_flex[1] = g->elbow_flex + 0.6f * fmaxf(0.0f, up_far);
    b->grip = v2(26.0f, 14.0f);
    b->spear_angle = -1.45f;
    b->spear_alpha = 0.0f;
    b->sy = 1.0f;
    b->scroll = sinew_anim2d_gait_scroll_speed(g);
    b->airborne = 0.0f;
    b->thrust = 0.0f;
}

/* ---- the unarmed throw (lab only) ---- */

/* The throwing (near) arm makes a full windmill: down and back, cocked behind the head,
 * whipped over the top (easeOutCubic) and through; it ends at its start minus 2 pi, so the
 * loop is seamless. */
static const sinew_anim2d_key throw_arm[] = {
    {0.0f, 0.2f, SM},   {0.18f, -0.6f, SM}, {0.38f, -2.4f, SM},  {0.48f, -2.55f, SM},
    {0.6f, -4.9f, OUT}, {0.75f, -5.7f, SM}, {1.0f, -6.0832f, SM}};
static const sinew_anim2d_key throw_flex[] = {{0.0f, 0.3f, SM},   {0.38f, -1.6f, SM},
                                              {0.48f, -1.8f, SM}, {0.6f, -0.2f, OUT},
                                              {0.75f, 0.5f, SM},  {1.0f, 0.3f, SM}};
static const sinew_anim2d_key throw_guide[] = {/* the far arm points at the target */
                                               {0.0f, -0.2f, SM}, {0.38f, 1.45f, SM},
                                               {0.48f, 1.5f, SM}, {0.6f, -0.6f, OUT},
                                               {0.8f, -0.3f, SM}, {1.0f, -0.2f, SM}};
static const sinew_anim2d_key throw_lean[] = {{0.0f, 0.0f, SM},    {0.38f, -0.25f, SM},
                                              {0.48f, -0.22f, SM}, {0.62f, 0.45f, OUT},
                                              {0.8f, 0.35f, SM},   {1.0f, 0.0f, SM}};
static const sinew_anim2d_key throw_shift[] = {{0.0f, 0.0f, SM},   {0.38f, -8.0f, SM},
                                               {0.48f, -4.0f, SM}, {0.62f, 12.0f, OUT},
                                               {0.8f, 10.0f, SM},  {1.0f, 0.0f, SM}};
static const sinew_anim2d_key throw_crouch[] = {
    {0.0f, 2.0f, SM}, {0.38f, 8.0f, SM}, {0.62f, 10.0f, SM}, {0.85f, 6.0f, SM}, {1.0f, 2.0f, SM}};
/* The near foot steps forward before the throw and back during the recovery; the repeated
 * keys hold it planted. */
static const sinew_anim2d_key throw_step[] = {{0.0f, 12.0f, SM},
                                              {0.28f, 12.0f, SM},
                                              {0.46f, 34.0f, SM},
                                              {0.85f, 34.0f, SM},
                                              {1.0f, 12.0f, SM}};
static const sinew_anim2d_key throw_lift[] = {
    {0.0f, 0.0f, SM},  {0.28f, 0.0f, SM},   {0.37f, -10.0f, SM}, {0.46f, 0.0f, SM},
    {0.85f, 0.0f, SM}, {0.925f, -6.0f, SM}, {1.0f, 0.0f, SM}};

void a2_body_throw(a2_body *b, float p)
{
    b->pelvis = v2(trk(throw_shift, N(throw_shift), p),
                   -(SINEW_ANIM2D_HIP_H - trk(throw_crouch, N(throw_crouch), p)));
    b->lean = trk(throw_lean, N(throw_lean), p);
    b->foot[0] = v2(trk(throw_step, N(throw_step), p), trk(throw_lift, N(throw_lift), p));
    b->foot[1] = v2(-12.0f, 0.0f);
    b->arm_ik = 0;
    b->arm_up[0] = trk(throw_arm, N(throw_arm), p);
    b->arm_flex[0] = trk(throw_flex, N(throw_flex), p);
    b->arm_up[1] = trk(throw_guide, N(throw_guide), p);
    b->arm_flex[1] = 0.45f;
    b->grip = v2(26.0f, 14.0f);
    b->spear_angle = -1.45f;
    b->spear_alpha = 0.0f;
    b->sy = 1.0f;
    b->scroll = 0.0f;
    b->airborne = 0.0f;
    b->thrust = 0.0f;
}

/* ---- the standing jump (lab) ---- */

static const sinew_anim2d_key jump_arms[] = {/* arms swing back in the crouch, up on take-off */
                                             {0.0f, 0.1f, SM},   {0.2f, -0.9f, SM},
                                             {0.36f, 2.5f, OUT}, {0.55f, 2.2f, SM},
                                             {0.74f, 1.2f, SM},  {0.84f, -0.3f, SM},
                                             {1.0f, 0.1f, SM}};

void a2_body_jump_lab(a2_body *b, float p)
{
    float root_y = a2_jump_root_y(p);
    b->pelvis = v2(0.0f, -(SINEW_ANIM2D_HIP_H - 2.0f) + root_y);
    b->lean = 0.05f + 0.25f * a2_smooth(root_y / 10.0f); /* lean into the crouch */
    b->foot[0] = v2(9.0f, 0.0f);
    b->foot[1] = v2(-9.0f, 0.0f);
    jump_feet(b, root_y, v2(14.0f, 40.0f), v2(-6.0f, 44.0f));
    float up = trk(jump_arms, N(jump_arms), p);
    b->arm_ik = 0;
    b->arm_up[0] = up;
    b->arm_up[1] = up - 0.25f;
    b->arm_flex[0] = 0.35f + 0.2f * fmaxf(0.0f, up);
    b->arm_flex[1] = 0.35f + 0.2f * fmaxf(0.0f, up - 0.25f);
    b->grip = v2(26.0f, 14.0f);
    b->spear_angle = -1.45f;
    b->spear_alpha = 0.0f;
    b->sy = a2_jump_sy(p);
    b->scroll = 0.0f;
    b->thrust = 0.0f;
}

/* ---- the spear form ---- */

/* 17 poses + the opening pose again (18 waypoints): ready, guard, high thrust, recoil, low
 * sweep, overhead block, crane stance, lunge thrust, spin to rear guard, rising strike,
 * settle. A repeated waypoint is a held pose (6 holds); thrusts ease out cubically.
 * Every planted foot is within the leg's reach at every waypoint (a test checks). */
#define FK(t, ang, gx, gy, lean, shift, crouch, width, raise, sy, ease)                            \
    {                                                                                              \
        t, ang, gx, gy, lean, shift, crouch, width, raise, sy, ease                                \
    }
static const sinew_anim2d_form_key form[] = {
    FK(0.00f, -1.45f, 10.0f, 20.0f, 0.00f, 0.0f, 2.0f, 22.0f, 0.0f, 1.00f, SM),     /* ready */
    FK(0.06f, -1.45f, 10.0f, 20.0f, 0.00f, 0.0f, 2.0f, 22.0f, 0.0f, 1.00f, SM),     /* hold */
    FK(0.12f, -0.25f, 22.0f, 12.0f, 0.10f, -4.0f, 10.0f, 50.0f, 0.0f, 0.97f, SM),   /* guard */
    FK(0.19f, -0.12f, 44.0f, 2.0f, 0.30f, 12.0f, 12.0f, 58.0f, 0.0f, 1.00f, OUT),   /* thrust */
    FK(0.23f, -0.12f, 44.0f, 2.0f, 0.30f, 12.0f, 12.0f, 58.0f, 0.0f, 1.00f, SM),    /* hold */
    FK(0.30f, 0.15f, 18.0f, 18.0f, 0.05f, -6.0f, 14.0f, 54.0f, 0.0f, 0.96f, SM),    /* recoil */
    FK(0.37f, 0.55f, 30.0f, 26.0f, 0.35f, 8.0f, 20.0f, 62.0f, 0.0f, 0.94f, SM),     /* sweep */
    FK(0.43f, -0.08f, 8.0f, -46.0f, -0.05f, 0.0f, 8.0f, 40.0f, 0.0f, 1.04f, OUT),   /* block */
    FK(0.47f, -0.08f, 8.0f, -46.0f, -0.05f, 0.0f, 8.0f, 40.0f, 0.0f, 1.04f, SM),    /* hold */
    FK(0.54f, 0.30f, 26.0f, 10.0f, 0.05f, -12.0f, 4.0f, 30.0f, 26.0f, 1.02f, SM),   /* crane */
    FK(0.60f, 0.30f, 26.0f, 10.0f, 0.05f, -12.0f, 4.0f, 30.0f, 26.0f, 1.02f, SM),   /* hold */
    FK(0.66f, 0.02f, 48.0f, 8.0f, 0.40f, 16.0f, 18.0f, 66.0f, 0.0f, 0.96f, OUT),    /* lunge */
    FK(0.70f, 0.02f, 48.0f, 8.0f, 0.40f, 16.0f, 18.0f, 66.0f, 0.0f, 0.96f, SM),     /* hold */
    FK(0.77f, -2.80f, -6.0f, 10.0f, -0.10f, -10.0f, 10.0f, 48.0f, 0.0f, 0.98f, SM), /* spin */
    FK(0.84f, -0.90f, 30.0f, -16.0f, 0.10f, 6.0f, 2.0f, 40.0f, 0.0f, 1.06f, OUT),   /* rising */
    FK(0.90f, -1.20f, 16.0f, 10.0f, 0.00f, 0.0f, 6.0f, 30.0f, 0.0f, 1.00f, SM),     /* settle */
    FK(0.95f, -1.20f, 16.0f, 10.0f, 0.00f, 0.0f, 6.0f, 30.0f, 0.0f, 1.00f, SM),     /* hold */
    FK(1.00f, -1.45f, 10.0f, 20.0f, 0.00f, 0.0f, 2.0f, 22.0f, 0.0f, 1.00f, SM),     /* = ready */
};

const sinew_anim2d_form_key *sinew_anim2d_form_keys(size_t *count)
{
    if (count) *count = N(form);
    return form;
}

sinew_anim2d_form_key sinew_anim2d_form_sample(float p)
{
    const size_t n = N(form);
    if (!(p > form[0].t)) return form[0];
    for (size_t i = 0; i + 1 < n; i++) {
        const sinew_anim2d_form_key *a = &form[i], *b = &form[i + 1];
        if (p <= b->t) {
            float span = b->t - a->t;
            float u = sinew_anim2d_ease_apply(b->ease, span > 0.0f ? (p - a->t) / span : 1.0f);
            sinew_anim2d_form_key k;
            k.t = p;
            k.spear_angle = a2_lerp(a->spear_angle, b->spear_angle, u);
            k.grip_x = a2_lerp(a->grip_x, b->grip_x, u);
            k.grip_y = a2_lerp(a->grip_y, b->grip_y, u);
            k.lean = a2_lerp(a->lean, b->lean, u);
            k.shift = a2_lerp(a->shift, b->shift, u);
            k.crouch = a2_lerp(a->crouch, b->crouch, u);
            k.width = a2_lerp(a->width, b->width, u);
            k.raise = a2_lerp(a->raise, b->raise, u);
            k.sy = a2_lerp(a->sy, b->sy, u);
            k.ease = b->ease;
            return k;
        }
    }
    return form[n - 1];
}

void a2_body_spear_form(a2_body *b, float p)
{
    sinew_anim2d_form_key k = sinew_anim2d_form_sample(p);
    b->pelvis = v2(k.shift, -(SINEW_ANIM2D_HIP_H - k.crouch));
    b->lean = k.lean;
    b->foot[0] = v2(k.width * 0.5f, -k.raise);
    b->foot[1] = v2(-k.width * 0.5f, 0.0f);
    b->arm_ik = 1;
    b->arm_up[0] = b->arm_up[1] = 0.0f;
    b->arm_flex[0] = b->arm_flex[1] = 0.3f;
    b->grip = v2(k.grip_x, k.grip_y);
    b->spear_angle = k.spear_angle;
    b->spear_alpha = 1.0f;
    b->sy = k.sy;
    b->scroll = 0.0f;
    b->airborne = 0.0f;
    b->thrust = 0.0f;
}

/* ---- the spear run ---- */

/* Thrust extension: a small wind-back, the strike (easeOutCubic), a held pose, recovery. */
static const sinew_anim2d_key thrust_ext[] = {
    {0.0f, 0.0f, SM}, {0.18f, -0.25f, SM}, {0.42f, 1.0f, OUT}, {0.62f, 1.0f, SM}, {1.0f, 0.0f, SM}};

void a2_body_spear_run(a2_body *b, const sinew_anim2d_gait *g, double phase, float gait, float pj,
                       float pt)
{
    a2_body_locomotion(b, g, phase, gait);
    /* The carried spear rides with the chest's bob; both hands on the shaft (IK arms). */
    float bob = sinew_anim2d_gait_bob(g, phase);
    float ext = pt >= 0.0f ? trk(thrust_ext, N(thrust_ext), pt) : 0.0f;
    b->arm_ik = 1;
    b->grip = v2(26.0f + 22.0f * ext, 14.0f - 2.0f * ext + 0.4f * bob);
    b->spear_angle = a2_lerp(-0.14f, -0.03f, a2_clamp(ext, 0.0f, 1.0f));
    b->lean += 0.15f * ext;
    b->spear_alpha = 1.0f;
    b->thrust = a2_clamp(ext, 0.0f, 1.0f);
    if (pj >= 0.0f) {
        float root_y = a2_jump_root_y(pj);
        b->pelvis.y += root_y;
        jump_feet(b, root_y, v2(16.0f, 36.0f), v2(-12.0f, 42.0f));
        b->sy = a2_jump_sy(pj);
    }
}
