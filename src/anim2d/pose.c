/* The figure: motion state, blending between motions, squash, head spring and hair; turns a
 * body into joints (buildPose of Sidorkin, "Animating a stick figure with two-bone IK in HTML
 * canvas"). Allocation-free, no clocks. */
#include <string.h>

#include "internal.h"

#define HEAD_MAX_LAG 6.0f  /* units: the sprung head stays this close to its place on the neck */
#define JUMP_REST 0.5f     /* seconds the lab jump stands still between jumps */
#define SHOULDER_DROP 4.0f /* units: shoulders sit this far below the top of the spine */

static float def(float v, float fallback)
{
    return v > 0.0f && isfinite(v) ? v : fallback;
}

void sinew_anim2d_figure_init(sinew_anim2d_figure *fig, const sinew_anim2d_options *opt)
{
    memset(fig, 0, sizeof *fig);
    if (opt) fig->opt = *opt;
    sinew_anim2d_options *o = &fig->opt;
    if (!isfinite(o->anchor_x)) o->anchor_x = 0.0f;
    if (!isfinite(o->ground_y)) o->ground_y = 0.0f;
    o->blend_time = def(o->blend_time, 0.25f);
    o->gait_rate = def(o->gait_rate, 4.0f);
    o->max_dt = def(o->max_dt, 0.033f);
    o->head_stiffness = def(o->head_stiffness, 260.0f);
    o->head_damping = def(o->head_damping, 26.0f);
    o->hair_spacing = def(o->hair_spacing, 9.0f);
    o->hair_drag = def(o->hair_drag, 0.86f);
    if (o->hair_iterations <= 0) o->hair_iterations = 6;
    o->hair_gravity = def(o->hair_gravity, 40.0f);
    o->wind_per_speed = def(o->wind_per_speed, 0.16f);
    o->jump_wind = def(o->jump_wind, 60.0f);
    o->jump_duration = def(o->jump_duration, 0.8f);
    o->throw_duration = def(o->throw_duration, 1.5f);
    o->form_duration = def(o->form_duration, 14.0f);
    o->thrust_duration = def(o->thrust_duration, 0.42f);
    fig->motion = SINEW_ANIM2D_MOTION_SPEAR_RUN;
    fig->from_motion = SINEW_ANIM2D_MOTION_SPEAR_RUN;
    fig->gait = fig->gait_target = 1.0f;
    fig->blend = 1.0f;
    fig->jump_time = fig->thrust_time = -1.0f;
}

static int is_locomotion(sinew_anim2d_motion m)
{
    return m == SINEW_ANIM2D_MOTION_WALK || m == SINEW_ANIM2D_MOTION_RUN;
}
static int uses_gait(sinew_anim2d_motion m)
{
    return is_locomotion(m) || m == SINEW_ANIM2D_MOTION_SPEAR_RUN;
}

int sinew_anim2d_figure_set_motion(sinew_anim2d_figure *fig, sinew_anim2d_motion motion)
{
    if (motion <= SINEW_ANIM2D_MOTION_INVALID || motion >= SINEW_ANIM2D_MOTION_COUNT) return -1;
    if (motion == SINEW_ANIM2D_MOTION_WALK) fig->gait_target = 0.0f;
    if (motion == SINEW_ANIM2D_MOTION_RUN || motion == SINEW_ANIM2D_MOTION_SPEAR_RUN)
        fig->gait_target = 1.0f;
    if (motion == fig->motion) return 0;
    /* Walk and run are one motion on the gait blend: the gait eases, nothing else to do. */
    if (is_locomotion(motion) && is_locomotion(fig->motion)) {
        fig->motion = motion;
        return 0;
    }
    if (fig->blend < 1.0f && fig->started) {
        /* Switching again mid-blend: blend from the pose on screen, frozen. */
        fig->from_motion = SINEW_ANIM2D_MOTION_INVALID;
        memcpy(fig->snapshot, fig->last, sizeof fig->snapshot);
        fig->snapshot_sy = fig->last_sy;
        fig->snapshot_alpha = fig->last_alpha;
        fig->snapshot_scroll = fig->last_scroll;
    } else {
        fig->from_motion = fig->motion;
        fig->from_time = fig->time;
    }
    fig->motion = motion;
    fig->time = 0.0f;
    fig->blend = fig->started ? 0.0f : 1.0f;
    /* A jump or thrust under way finishes even when the spear run is left: the run may still
     * be on screen as the pose being blended away from, and cutting it would jump. */
    return 0;
}

void sinew_anim2d_figure_set_gait(sinew_anim2d_figure *fig, float target, int immediate)
{
    fig->gait_target = isfinite(target) ? a2_clamp(target, 0.0f, 1.0f) : 0.0f;
    if (immediate) fig->gait = fig->gait_target;
}

int sinew_anim2d_figure_trigger(sinew_anim2d_figure *fig, sinew_anim2d_action action)
{
    if (fig->motion != SINEW_ANIM2D_MOTION_SPEAR_RUN) return 0;
    if (action == SINEW_ANIM2D_ACTION_JUMP && fig->jump_time < 0.0f) {
        fig->jump_time = 0.0f;
        return 1;
    }
    if (action == SINEW_ANIM2D_ACTION_THRUST && fig->thrust_time < 0.0f) {
        fig->thrust_time = 0.0f;
        return 1;
    }
    return 0;
}

/* Normalised time within a looping or one-shot motion. */
static float motion_p(const sinew_anim2d_figure *fig, sinew_anim2d_motion m, float t)
{
    const sinew_anim2d_options *o = &fig->opt;
    switch (m) {
    case SINEW_ANIM2D_MOTION_THROW:
        return t / o->throw_duration;
    case SINEW_ANIM2D_MOTION_JUMP:
        return fminf(1.0f, t / o->jump_duration);
    case SINEW_ANIM2D_MOTION_SPEAR_FORM:
        return t / o->form_duration;
    default:
        return 0.0f;
    }
}

static float motion_period(const sinew_anim2d_figure *fig, sinew_anim2d_motion m)
{
    const sinew_anim2d_options *o = &fig->opt;
    switch (m) {
    case SINEW_ANIM2D_MOTION_THROW:
        return o->throw_duration;
    case SINEW_ANIM2D_MOTION_JUMP:
        return o->jump_duration + JUMP_REST;
    case SINEW_ANIM2D_MOTION_SPEAR_FORM:
        return o->form_duration;
    default:
        return 0.0f; /* does not loop on time */
    }
}

static float advance_time(const sinew_anim2d_figure *fig, sinew_anim2d_motion m, float t, float dt)
{
    float period = motion_period(fig, m);
    t += dt;
    if (period > 0.0f && t >= period) t = fmodf(t, period);
    return t;
}

static void body_of(const sinew_anim2d_figure *fig, sinew_anim2d_motion m, float t,
                    const sinew_anim2d_gait *g, a2_body *b)
{
    switch (m) {
    case SINEW_ANIM2D_MOTION_THROW:
        a2_body_throw(b, motion_p(fig, m, t));
        break;
    case SINEW_ANIM2D_MOTION_JUMP:
        a2_body_jump_lab(b, motion_p(fig, m, t));
        break;
    case SINEW_ANIM2D_MOTION_SPEAR_FORM:
        a2_body_spear_form(b, motion_p(fig, m, t));
        break;
    case SINEW_ANIM2D_MOTION_SPEAR_RUN: {
        float pj = fig->jump_time >= 0.0f ? fig->jump_time / fig->opt.jump_duration : -1.0f;
        float pt = fig->thrust_time >= 0.0f ? fig->thrust_time / fig->opt.thrust_duration : -1.0f;
        a2_body_spear_run(b, g, fig->phase, fig->gait, pj, pt);
        break;
    }
    default:
        a2_body_locomotion(b, g, fig->phase, fig->gait);
        break;
    }
}

/* The unsquashed skeleton of one body, plus the scalars that blend with it. */
typedef struct skel {
    sinew_vec2 j[SINEW_ANIM2D_JOINT_COUNT];
    float sy, alpha, scroll, airborne, thrust;
} skel;

static void place_spear(skel *s, sinew_vec2 d)
{
    s->j[SINEW_ANIM2D_JOINT_SPEAR_BUTT] =
        v2_madd(s->j[SINEW_ANIM2D_JOINT_HAND_NEAR], d, -SINEW_ANIM2D_SPEAR_GRIP);
    s->j[SINEW_ANIM2D_JOINT_SPEAR_TIP] =
        v2_madd(s->j[SINEW_ANIM2D_JOINT_SPEAR_BUTT], d, SINEW_ANIM2D_SPEAR_LENGTH);
}

/* The spine and head along direction `up` from the pelvis. */
static void place_spine(skel *s, sinew_vec2 up)
{
    sinew_vec2 p = s->j[SINEW_ANIM2D_JOINT_PELVIS];
    s->j[SINEW_ANIM2D_JOINT_CHEST] = v2_madd(p, up, SINEW_ANIM2D_SPINE);
    s->j[SINEW_ANIM2D_JOINT_SHOULDER] = v2_madd(p, up, SINEW_ANIM2D_SPINE - SHOULDER_DROP);
    s->j[SINEW_ANIM2D_JOINT_NECK] = v2_madd(s->j[SINEW_ANIM2D_JOINT_CHEST], up, SINEW_ANIM2D_NECK);
    s->j[SINEW_ANIM2D_JOINT_HEAD] = v2_madd(s->j[SINEW_ANIM2D_JOINT_NECK], up, SINEW_ANIM2D_HEADR);
}

static void resolve(const a2_body *b, skel *s)
{
    s->j[SINEW_ANIM2D_JOINT_PELVIS] = b->pelvis;
    place_spine(s, v2(sinf(b->lean), -cosf(b->lean)));
    for (int side = 0; side < 2; side++)
        s->j[SINEW_ANIM2D_JOINT_KNEE_NEAR + side] = sinew_anim2d_leg_ik(
            b->pelvis, b->foot[side], &s->j[SINEW_ANIM2D_JOINT_FOOT_NEAR + side]);
    sinew_vec2 sh = s->j[SINEW_ANIM2D_JOINT_SHOULDER];
    if (!b->arm_ik) {
        for (int side = 0; side < 2; side++)
            sinew_anim2d_arm_fk(sh, b->arm_up[side], b->arm_flex[side],
                                &s->j[SINEW_ANIM2D_JOINT_ELBOW_NEAR + side],
                                &s->j[SINEW_ANIM2D_JOINT_HAND_NEAR + side]);
    } else {
        /* Both hands on the shaft: IK arms, elbows bending opposite ways, as in the article. */
        sinew_vec2 d = v2_dir(b->spear_angle);
        s->j[SINEW_ANIM2D_JOINT_ELBOW_NEAR] =
            sinew_anim2d_ik(sh, v2_add(sh, b->grip), SINEW_ANIM2D_UARM, SINEW_ANIM2D_FARM, 1.0f,
                            &s->j[SINEW_ANIM2D_JOINT_HAND_NEAR]);
        sinew_vec2 back = v2_madd(s->j[SINEW_ANIM2D_JOINT_HAND_NEAR], d, -SINEW_ANIM2D_SPEAR_HANDS);
        s->j[SINEW_ANIM2D_JOINT_ELBOW_FAR] =
            sinew_anim2d_ik(sh, back, SINEW_ANIM2D_UARM, SINEW_ANIM2D_FARM, -1.0f,
                            &s->j[SINEW_ANIM2D_JOINT_HAND_FAR]);
    }
    place_spear(s, v2_dir(b->spear_angle));
    s->sy = b->sy;
    s->alpha = b->spear_alpha;
    s->scroll = b->scroll;
    s->airborne = b->airborne;
    s->thrust = b->thrust;
}

/* The direction of bone from->to in `a` turned toward its direction in `b` by fraction w of
 * the angle between them, the short way round: one atan2 per bone, and exactly b's direction
 * at w = 1 up to rounding. */
static sinew_vec2 turn(const skel *a, const skel *b, int from, int to, float w)
{
    sinew_vec2 da = v2_sub(a->j[to], a->j[from]), db = v2_sub(b->j[to], b->j[from]);
    float la = v2_len(da);
    if (!(la > 1e-6f)) return v2(0.0f, -1.0f);
    da = v2_scale(da, 1.0f / la);
    float delta = atan2f(da.x * db.y - da.y * db.x, da.x * db.x + da.y * db.y) * w;
    float c = cosf(delta), s = sinf(delta);
    return v2(da.x * c - da.y * s, da.x * s + da.y * c);
}

/* Blends two skeletons without breaking a bone: the pelvis and feet lerp and the knees are
 * re-solved by IK (feet stay exact); spine, arm bones and spear turn by their angles the short
 * way round, so their lengths hold and nothing flips through zero length. */
static void blend(const skel *a, const skel *b, float w, skel *out)
{
    out->j[SINEW_ANIM2D_JOINT_PELVIS] =
        v2_lerp(a->j[SINEW_ANIM2D_JOINT_PELVIS], b->j[SINEW_ANIM2D_JOINT_PELVIS], w);
    place_spine(out, turn(a, b, SINEW_ANIM2D_JOINT_PELVIS, SINEW_ANIM2D_JOINT_CHEST, w));
    for (int side = 0; side < 2; side++) {
        int f = SINEW_ANIM2D_JOINT_FOOT_NEAR + side;
        out->j[SINEW_ANIM2D_JOINT_KNEE_NEAR + side] = sinew_anim2d_leg_ik(
            out->j[SINEW_ANIM2D_JOINT_PELVIS], v2_lerp(a->j[f], b->j[f], w), &out->j[f]);
        int e = SINEW_ANIM2D_JOINT_ELBOW_NEAR + side, h = SINEW_ANIM2D_JOINT_HAND_NEAR + side;
        out->j[e] = v2_madd(out->j[SINEW_ANIM2D_JOINT_SHOULDER],
                            turn(a, b, SINEW_ANIM2D_JOINT_SHOULDER, e, w), SINEW_ANIM2D_UARM);
        out->j[h] = v2_madd(out->j[e], turn(a, b, e, h, w), SINEW_ANIM2D_FARM);
    }
    place_spear(out, turn(a, b, SINEW_ANIM2D_JOINT_SPEAR_BUTT, SINEW_ANIM2D_JOINT_SPEAR_TIP, w));
    out->sy = a2_lerp(a->sy, b->sy, w);
    out->alpha = a2_lerp(a->alpha, b->alpha, w);
    out->scroll = a2_lerp(a->scroll, b->scroll, w);
    out->airborne = a2_lerp(a->airborne, b->airborne, w);
    out->thrust = a2_lerp(a->thrust, b->thrust, w);
}

void sinew_anim2d_figure_build_pose(sinew_anim2d_figure *fig, float dt, sinew_anim2d_pose *pose)
{
    const sinew_anim2d_options *o = &fig->opt;
    /* A hitch must not throw the hair across the screen: dt is clamped, as in the article. */
    if (!(dt > 0.0f)) dt = 0.0f;
    if (dt > o->max_dt) dt = o->max_dt;

    /* Gait eases toward its target; the phase advances at the gait's cadence. */
    fig->gait += (fig->gait_target - fig->gait) * (1.0f - expf(-o->gait_rate * dt));
    sinew_anim2d_gait g = sinew_anim2d_gait_at(fig->gait);
    int from_live = fig->blend < 1.0f && fig->from_motion != SINEW_ANIM2D_MOTION_INVALID;
    if (uses_gait(fig->motion) || (from_live && uses_gait(fig->from_motion))) {
        fig->phase += (double)g.cadence * (double)dt;
        fig->phase -= floor(fig->phase);
    }
    fig->time = advance_time(fig, fig->motion, fig->time, dt);
    if (from_live) fig->from_time = advance_time(fig, fig->from_motion, fig->from_time, dt);
    if (fig->jump_time >= 0.0f) {
        fig->jump_time += dt;
        if (fig->jump_time >= o->jump_duration) fig->jump_time = -1.0f;
    }
    if (fig->thrust_time >= 0.0f) {
        fig->thrust_time += dt;
        if (fig->thrust_time >= o->thrust_duration) fig->thrust_time = -1.0f;
    }

    a2_body body;
    skel cur, out;
    body_of(fig, fig->motion, fig->time, &g, &body);
    resolve(&body, &cur);
    if (fig->blend < 1.0f) {
        fig->blend = o->blend_time > 0.0f ? fminf(1.0f, fig->blend + dt / o->blend_time) : 1.0f;
        skel from;
        if (fig->from_motion != SINEW_ANIM2D_MOTION_INVALID) {
            body_of(fig, fig->from_motion, fig->from_time, &g, &body);
            resolve(&body, &from);
        } else {
            memcpy(from.j, fig->snapshot, sizeof from.j);
            from.sy = fig->snapshot_sy;
            from.alpha = fig->snapshot_alpha;
            from.scroll = fig->snapshot_scroll;
            from.airborne = 0.0f;
            from.thrust = 0.0f;
        }
        blend(&from, &cur, a2_smooth(fig->blend), &out);
    } else {
        out = cur;
    }
    memcpy(fig->last, out.j, sizeof fig->last);
    fig->last_sy = out.sy;
    fig->last_alpha = out.alpha;
    fig->last_scroll = out.scroll;

    /* The ground moves at the speed that keeps the stance foot still. */
    fig->distance += (double)out.scroll * (double)dt;
    fig->ground_offset += (double)out.scroll * (double)dt;
    if (fig->ground_offset >= 1024.0)
        fig->ground_offset -= 1024.0 * floor(fig->ground_offset / 1024.0);

    /* Squash and stretch about the ground point under the figure; then into canvas space. */
    sinew_vec2 origin = v2(o->anchor_x, o->ground_y);
    float sx = sinew_anim2d_squash_sx(out.sy);
    for (int i = 0; i < SINEW_ANIM2D_JOINT_HAIR_0; i++)
        pose->joints[i] = v2_add(origin, sinew_anim2d_squash(out.j[i], v2(0.0f, 0.0f), out.sy));

    /* The head lags on a damped spring (260, 26), held within HEAD_MAX_LAG of its place. */
    sinew_vec2 head_target = pose->joints[SINEW_ANIM2D_JOINT_HEAD];
    if (!fig->started) {
        fig->head.pos = head_target;
        fig->head.vel = v2(0.0f, 0.0f);
    } else if (dt > 0.0f) {
        sinew_anim2d_spring_step(&fig->head, head_target, o->head_stiffness, o->head_damping, dt);
        sinew_vec2 off = v2_sub(fig->head.pos, head_target);
        float len = v2_len(off);
        if (!isfinite(len)) {
            fig->head.pos = head_target;
            fig->head.vel = v2(0.0f, 0.0f);
        } else if (len > HEAD_MAX_LAG) {
            /* Like a rope: keep the point on the limit and drop the outward velocity. */
            sinew_vec2 n = v2_scale(off, 1.0f / len);
            fig->head.pos = v2_madd(head_target, n, HEAD_MAX_LAG);
            float out_v = fig->head.vel.x * n.x + fig->head.vel.y * n.y;
            if (out_v > 0.0f) fig->head.vel = v2_madd(fig->head.vel, n, -out_v);
        }
    }
    pose->joints[SINEW_ANIM2D_JOINT_HEAD] = fig->head.pos;
    float head_r = SINEW_ANIM2D_HEADR * 0.5f * (sx + out.sy);

    /* Hair: pinned at the back of the head, blown back by the run and by jumps. */
    sinew_vec2 up =
        v2_sub(pose->joints[SINEW_ANIM2D_JOINT_NECK], pose->joints[SINEW_ANIM2D_JOINT_CHEST]);
    float up_len = v2_len(up);
    up = up_len > 1e-6f ? v2_scale(up, 1.0f / up_len) : v2(0.0f, -1.0f);
    sinew_vec2 fwd = v2(-up.y, up.x);
    sinew_vec2 pin = v2_madd(v2_madd(fig->head.pos, fwd, -0.8f * head_r), up, 0.35f * head_r);
    if (!fig->started) {
        sinew_anim2d_hair_reset(&fig->hair, pin, o->hair_spacing);
    } else if (dt > 0.0f) {
        float wind = -(o->wind_per_speed * out.scroll + o->jump_wind * out.airborne);
        sinew_anim2d_hair_step(&fig->hair, pin, wind, o->hair_gravity, o->hair_spacing,
                               o->hair_drag, o->hair_iterations, dt);
    }
    for (int i = 0; i < SINEW_ANIM2D_HAIR_POINTS; i++)
        pose->joints[SINEW_ANIM2D_JOINT_HAIR_0 + i] = fig->hair.pos[i];
    fig->started = 1;

    pose->head_radius = head_r;
    pose->sx = sx;
    pose->sy = out.sy;
    pose->spear_alpha = a2_clamp(out.alpha, 0.0f, 1.0f);
    pose->scroll_speed = out.scroll;
    pose->ground_offset = (float)fig->ground_offset;
    pose->thrust = out.thrust;
    float low = fmaxf(pose->joints[SINEW_ANIM2D_JOINT_FOOT_NEAR].y,
                      pose->joints[SINEW_ANIM2D_JOINT_FOOT_FAR].y);
    pose->lift = fmaxf(0.0f, o->ground_y - low);
    pose->blend = fig->blend;
    pose->phase = (float)fig->phase;
    pose->gait = fig->gait;
    pose->motion_time = fig->time;
}
