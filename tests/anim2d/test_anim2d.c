/* anim2d: IK, gait and foot locking, tracks, squash, spring, Verlet hair, determinism and
 * motion blending (after Sidorkin, "Animating a stick figure with two-bone IK in HTML canvas").
 * Property tests over fixed-seed random inputs. */
#include <math.h>

#include "test_util.h"
#include "sinew/anim2d.h"

#define DT (1.0f / 60.0f)

/* |a - b| <= tol in double precision, printing both values when it fails. */
#define assert_near(a, b, tol)                                                                     \
    do {                                                                                           \
        double a_ = (double)(a), b_ = (double)(b);                                                 \
        if (!(fabs(a_ - b_) <= (double)(tol)))                                                     \
            fail_msg("%s = %.9g, expected %s = %.9g within %g", #a, a_, #b, b_, (double)(tol));    \
    } while (0)

static uint64_t rng_state;
static double rnd(void) /* xorshift64*, uniform in [0, 1) */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}
static float rndf(float lo, float hi)
{
    return lo + (hi - lo) * (float)rnd();
}

static double dist(sinew_vec2 a, sinew_vec2 b)
{
    return hypot((double)a.x - (double)b.x, (double)a.y - (double)b.y);
}
static int finite2(sinew_vec2 v)
{
    return isfinite(v.x) && isfinite(v.y);
}

/* ---- IK ---- */

static void ik_never_nan(void **state)
{
    (void)state;
    rng_state = 0x1234567u;
    for (int i = 0; i < 1000000; i++) {
        float l1 = rndf(0.5f, 80.0f), l2 = rndf(0.5f, 80.0f);
        sinew_vec2 root = {rndf(-500.0f, 500.0f), rndf(-500.0f, 500.0f)};
        /* Mostly ordinary targets, plus the degenerate ones: on the root, far away, tiny. */
        float r = (i % 7 == 0) ? 0.0f : (i % 7 == 1) ? rndf(0.0f, 1e-3f) : rndf(0.0f, 400.0f);
        float a = rndf(-4.0f, 4.0f);
        sinew_vec2 target = {root.x + r * cosf(a), root.y + r * sinf(a)};
        sinew_vec2 end;
        sinew_vec2 j = sinew_anim2d_ik(root, target, l1, l2, (i & 1) ? 1.0f : -1.0f, &end);
        if (!finite2(j) || !finite2(end)) fail_msg("NaN at %d: l1 %g l2 %g r %g", i, l1, l2, r);
        sinew_vec2 foot;
        sinew_vec2 knee = sinew_anim2d_leg_ik(root, target, &foot);
        if (!finite2(knee) || !finite2(foot)) fail_msg("leg NaN at %d", i);
    }
}

static void ik_reaches_reachable(void **state)
{
    (void)state;
    rng_state = 99;
    double worst = 0.0;
    for (int i = 0; i < 200000; i++) {
        float l1 = rndf(5.0f, 60.0f), l2 = rndf(5.0f, 60.0f);
        float lo = fabsf(l1 - l2) + 0.02f, hi = l1 + l2 - 0.02f;
        float d = rndf(lo, hi), a = rndf(-3.14159f, 3.14159f);
        sinew_vec2 root = {rndf(-200.0f, 200.0f), rndf(-200.0f, 200.0f)};
        sinew_vec2 target = {root.x + d * cosf(a), root.y + d * sinf(a)};
        sinew_vec2 end;
        sinew_vec2 j = sinew_anim2d_ik(root, target, l1, l2, (i & 1) ? 1.0f : -1.0f, &end);
        double e1 = fabs(dist(root, j) - l1), e2 = fabs(dist(j, target) - l2);
        double e = fmax(e1, e2);
        if (e > worst) worst = e;
        assert_true(end.x == target.x && end.y == target.y);
    }
    printf("ik: worst bone-length error on reachable targets %.2e units\n", worst);
    assert_true(worst < 1e-4);
}

static void ik_sign_picks_side(void **state)
{
    (void)state;
    /* Knee forward (+x) for a leg hanging down; sign +1 mirrors it. */
    sinew_vec2 hip = {0, -66}, foot = {0, 0};
    sinew_vec2 k = sinew_anim2d_leg_ik(hip, foot, NULL);
    assert_true(k.x > 10.0f);
    sinew_vec2 k2 = sinew_anim2d_ik(hip, foot, 37, 37, 1.0f, NULL);
    assert_true(k2.x < -10.0f);
    assert_near(k.y, k2.y, 1e-4);
}

static void ik_stretches_without_locking(void **state)
{
    (void)state;
    const float l1 = 37.0f, l2 = 37.0f;
    sinew_vec2 root = {10.0f, -20.0f};
    sinew_vec2 prev_knee = {0, 0};
    /* Sweep the target from reachable to far out of reach along one line: the chain stretches
     * toward it, never fully straight, and the knee never snaps. */
    for (int i = 0; i <= 4000; i++) {
        float d = 20.0f + 0.05f * (float)i; /* 20 .. 220 */
        sinew_vec2 target = {root.x + d * 0.6f, root.y + d * 0.8f};
        sinew_vec2 end;
        sinew_vec2 knee = sinew_anim2d_ik(root, target, l1, l2, -1.0f, &end);
        assert_near(dist(root, knee), l1, 1e-4);
        assert_near(dist(knee, end), l2, 1e-3);
        /* The end lies on the root-target line, as far as the chain reaches. */
        double reach = dist(root, end);
        assert_true(reach <= l1 + l2 - 0.0099);
        double ex = (end.x - root.x) / reach, ey = (end.y - root.y) / reach;
        assert_near(ex, 0.6, 1e-4);
        assert_near(ey, 0.8, 1e-4);
        if (d > l1 + l2) {
            assert_near(reach, l1 + l2 - 0.01, 1e-3);
            /* Not locked: the knee stays off the root-end line (bent, on its side). */
            double cross = (knee.x - root.x) * ey - (knee.y - root.y) * ex;
            assert_true(fabs(cross) > 0.5);
        }
        if (i > 0) assert_true(dist(knee, prev_knee) < 1.0);
        prev_knee = knee;
    }
    /* The leg's extra pull-back: the foot stops 1.5 short of full extension. */
    sinew_vec2 foot;
    sinew_anim2d_leg_ik((sinew_vec2){0.0f, 0.0f}, (sinew_vec2){0.0f, 200.0f}, &foot);
    assert_near(foot.y, SINEW_ANIM2D_THIGH + SINEW_ANIM2D_SHIN - SINEW_ANIM2D_LEG_SLACK, 1e-3);
}

static void arm_fk_lengths(void **state)
{
    (void)state;
    sinew_vec2 sh = {3.0f, -120.0f}, e, h;
    sinew_anim2d_arm_fk(sh, 0.0f, 0.0f, &e, &h);
    assert_near(h.y - sh.y, SINEW_ANIM2D_UARM + SINEW_ANIM2D_FARM, 1e-4); /* down */
    sinew_anim2d_arm_fk(sh, 0.5f, 0.4f, &e, &h);
    assert_true(e.x > sh.x && h.x > e.x); /* positive swings forward */
    assert_near(dist(sh, e), SINEW_ANIM2D_UARM, 1e-4);
    assert_near(dist(e, h), SINEW_ANIM2D_FARM, 1e-4);
}

/* ---- gait ---- */

static void gait_table(void **state)
{
    (void)state;
    sinew_anim2d_gait w = sinew_anim2d_gait_at(0.0f), r = sinew_anim2d_gait_at(1.0f);
    assert_near(w.stride, 44.0f, 1e-6);
    assert_near(w.cadence, 1.5f, 1e-6);
    assert_near(w.duty, 0.62f, 1e-6);
    assert_near(r.stride, 60.0f, 1e-6);
    assert_near(r.cadence, 2.55f, 1e-6);
    assert_near(r.duty, 0.40f, 1e-6);
    /* As in the article, walk scrolls at ~106 units/s, run at ~383. */
    assert_near(sinew_anim2d_gait_scroll_speed(&w), 44.0 * 1.5 / 0.62, 1e-3);
    assert_near(sinew_anim2d_gait_scroll_speed(&r), 60.0 * 2.55 / 0.40, 1e-3);
    /* The far foot is half a cycle behind: at phase 0 the near foot lands in front. */
    sinew_vec2 f = sinew_anim2d_gait_foot(&w, 0.0);
    assert_near(f.x, 22.0f, 1e-5);
    assert_near(f.y, 0.0f, 1e-6);
    f = sinew_anim2d_gait_foot(&w, 0.62 + 0.38 * 0.5); /* mid-swing: lifted by step height */
    assert_near(f.y, -w.step_height, 1e-4);
    assert_near(f.x, 0.0f, 1e-4);
    /* The run's bob peaks in flight (between 0.40 and 0.50). */
    float best = 0.0f, best_p = 0.0f;
    for (int i = 0; i < 1000; i++) {
        float b = sinew_anim2d_gait_bob(&r, i / 1000.0);
        if (b < best) best = b, best_p = (float)i / 1000.0f;
    }
    assert_true((best_p > 0.40f && best_p < 0.50f) || (best_p > 0.90f && best_p < 1.0f));
}

/* Walks at a fixed gait blend; every stance, the foot's ground-relative x (foot x + ground
 * scrolled) must not move. */
static void check_stance_locked(sinew_anim2d_motion motion, float gait_blend, double *worst_speed,
                                double *worst_step)
{
    sinew_anim2d_figure fig;
    sinew_anim2d_figure_init(&fig, NULL);
    sinew_anim2d_figure_set_motion(&fig, motion);
    sinew_anim2d_figure_set_gait(&fig, gait_blend, 1);
    sinew_anim2d_pose pose;
    sinew_anim2d_gait g = sinew_anim2d_gait_at(gait_blend);
    double ground = 0.0;
    int in_stance[2] = {0, 0};
    double start_x[2] = {0, 0}, start_t[2] = {0, 0}, last_x[2] = {0, 0};
    int stances = 0;
    for (int frame = 0; frame < 400; frame++) {
        sinew_anim2d_figure_build_pose(&fig, DT, &pose);
        ground += (double)pose.scroll_speed * DT;
        double t = frame * (double)DT;
        for (int side = 0; side < 2; side++) {
            double ph = fig.phase + 0.5 * side;
            ph -= floor(ph);
            sinew_vec2 foot = pose.joints[SINEW_ANIM2D_JOINT_FOOT_NEAR + side];
            double gx = foot.x + ground; /* where the foot is on the scrolling ground */
            int stance = ph < g.duty;
            if (stance) {
                /* Stance: on the ground, and not sliding along it. */
                assert_near(foot.y, 0.0f, 1e-4);
                if (in_stance[side]) {
                    double step = fabs(gx - last_x[side]);
                    if (step > *worst_step) *worst_step = step;
                } else {
                    start_x[side] = gx;
                    start_t[side] = t;
                }
                last_x[side] = gx;
                if (t - start_t[side] > 0.1) {
                    double v = fabs(gx - start_x[side]) / (t - start_t[side]);
                    if (v > *worst_speed) *worst_speed = v;
                    stances++;
                }
            }
            in_stance[side] = stance;
        }
    }
    assert_true(stances > 20);
}

static void gait_stance_foot_fixed(void **state)
{
    (void)state;
    double worst_speed = 0.0, worst_step = 0.0;
    for (int i = 0; i <= 20; i++)
        check_stance_locked(SINEW_ANIM2D_MOTION_WALK, (float)i / 20.0f, &worst_speed, &worst_step);
    /* The game's run carries the spear on the same legs. */
    check_stance_locked(SINEW_ANIM2D_MOTION_SPEAR_RUN, 1.0f, &worst_speed, &worst_step);
    printf("gait: stance foot vs ground: worst %.2e units/s, worst %.2e units/frame "
           "(walk, run, 19 blends and the spear run)\n",
           worst_speed, worst_step);
    assert_true(worst_speed < 1e-3);
    assert_true(worst_step < 1e-3);
}

static void gait_change_is_smooth(void **state)
{
    (void)state;
    /* Easing the gait from walk to run and back never jumps a joint. */
    sinew_anim2d_figure fig;
    sinew_anim2d_figure_init(&fig, NULL);
    sinew_anim2d_figure_set_motion(&fig, SINEW_ANIM2D_MOTION_WALK);
    sinew_anim2d_figure_set_gait(&fig, 0.0f, 1);
    sinew_anim2d_pose pose, prev;
    double worst = 0.0;
    for (int frame = 0; frame < 600; frame++) {
        if (frame == 100) sinew_anim2d_figure_set_motion(&fig, SINEW_ANIM2D_MOTION_RUN);
        if (frame == 350) sinew_anim2d_figure_set_gait(&fig, 0.3f, 0);
        sinew_anim2d_figure_build_pose(&fig, DT, &pose);
        if (frame > 0)
            for (int j = 0; j < SINEW_ANIM2D_JOINT_HAIR_0; j++)
                worst = fmax(worst, dist(pose.joints[j], prev.joints[j]));
        prev = pose;
    }
    assert_true(fig.gait > 0.29f && fig.gait < 0.31f);
    /* A running foot moves about 383 units/s at most twice that in swing: ~13 units/frame. */
    assert_true(worst < 16.0);
}

/* ---- tracks ---- */

static void tracks_hit_keys_and_hold(void **state)
{
    (void)state;
    const sinew_anim2d_key keys[] = {{0.0f, 1.0f, SINEW_ANIM2D_EASE_DEFAULT},
                                     {0.25f, 5.0f, SINEW_ANIM2D_EASE_OUT_CUBIC},
                                     {0.5f, 5.0f, SINEW_ANIM2D_EASE_DEFAULT},  /* hold */
                                     {0.5f, -3.0f, SINEW_ANIM2D_EASE_DEFAULT}, /* zero span */
                                     {1.0f, 2.0f, SINEW_ANIM2D_EASE_LINEAR}};
    const size_t n = 5;
    assert_near(sinew_anim2d_track(keys, n, -1.0f, SINEW_ANIM2D_EASE_SMOOTH), 1.0f, 0);
    assert_near(sinew_anim2d_track(keys, n, 0.0f, SINEW_ANIM2D_EASE_SMOOTH), 1.0f, 0);
    assert_near(sinew_anim2d_track(keys, n, 0.25f, SINEW_ANIM2D_EASE_SMOOTH), 5.0f, 1e-6);
    assert_near(sinew_anim2d_track(keys, n, 2.0f, SINEW_ANIM2D_EASE_SMOOTH), 2.0f, 0);
    for (int i = 0; i <= 100; i++) { /* the repeated key holds the pose */
        float t = 0.25f + 0.25f * (float)i / 100.0f;
        assert_near(sinew_anim2d_track(keys, n, t, SINEW_ANIM2D_EASE_SMOOTH), 5.0f, 1e-6);
    }
    /* easeOutCubic: at u = 0.5 the value is 7/8 of the way. */
    assert_near(sinew_anim2d_track(keys, n, 0.125f, SINEW_ANIM2D_EASE_SMOOTH), 1.0f + 4.0f * 0.875f,
                1e-5);
    /* the last segment is linear: 0.75 is half-way from -3 to 2 */
    assert_near(sinew_anim2d_track(keys, n, 0.75f, SINEW_ANIM2D_EASE_SMOOTH), -0.5f, 1e-5);
    assert_false(isnan(sinew_anim2d_track(keys, n, NAN, SINEW_ANIM2D_EASE_SMOOTH)));
    assert_near(sinew_anim2d_track(keys, 0, 0.5f, SINEW_ANIM2D_EASE_SMOOTH), 0.0f, 0);
    /* Eases: ends pinned, monotone. */
    for (int e = 0; e < SINEW_ANIM2D_EASE_COUNT; e++) {
        assert_near(sinew_anim2d_ease_apply((sinew_anim2d_ease)e, 0.0f), 0.0f, 1e-6);
        assert_near(sinew_anim2d_ease_apply((sinew_anim2d_ease)e, 1.0f), 1.0f, 1e-6);
        float last = 0.0f;
        for (int i = 1; i <= 100; i++) {
            float v = sinew_anim2d_ease_apply((sinew_anim2d_ease)e, (float)i / 100.0f);
            assert_true(v >= last - 1e-6f);
            last = v;
        }
    }
}

static void spear_form_keys(void **state)
{
    (void)state;
    size_t n = 0;
    const sinew_anim2d_form_key *k = sinew_anim2d_form_keys(&n);
    assert_int_equal(n, 18); /* 17 poses + the opening pose again */
    const sinew_anim2d_form_key *a = &k[0], *z = &k[n - 1];
    assert_true(a->spear_angle == z->spear_angle && a->grip_x == z->grip_x &&
                a->grip_y == z->grip_y && a->lean == z->lean && a->shift == z->shift &&
                a->crouch == z->crouch && a->width == z->width && a->raise == z->raise &&
                a->sy == z->sy);
    int holds = 0, thrusts = 0;
    for (size_t i = 0; i < n; i++) {
        sinew_anim2d_form_key s = sinew_anim2d_form_sample(k[i].t);
        assert_near(s.spear_angle, k[i].spear_angle, 1e-6); /* tracks hit their keys */
        assert_near(s.grip_x, k[i].grip_x, 1e-5);
        assert_near(s.crouch, k[i].crouch, 1e-5);
        if (k[i].ease == SINEW_ANIM2D_EASE_OUT_CUBIC) thrusts++;
        if (i > 0 && k[i].spear_angle == k[i - 1].spear_angle && k[i].grip_x == k[i - 1].grip_x &&
            k[i].lean == k[i - 1].lean && k[i].width == k[i - 1].width) {
            holds++;
            for (int s2 = 1; s2 < 10; s2++) { /* duplicated keys hold the pose */
                float t = k[i - 1].t + (k[i].t - k[i - 1].t) * (float)s2 / 10.0f;
                sinew_anim2d_form_key h = sinew_anim2d_form_sample(t);
                assert_near(h.spear_angle, k[i].spear_angle, 1e-6);
                assert_near(h.grip_y, k[i].grip_y, 1e-6);
                assert_near(h.shift, k[i].shift, 1e-6);
            }
        }
    }
    assert_true(holds >= 4);
    assert_true(thrusts >= 2);
}

/* The spear form through the figure: planted feet stay on the ground all the way round. */
static void spear_form_feet_planted(void **state)
{
    (void)state;
    sinew_anim2d_figure fig;
    sinew_anim2d_figure_init(&fig, NULL);
    sinew_anim2d_figure_set_motion(&fig, SINEW_ANIM2D_MOTION_SPEAR_FORM);
    sinew_anim2d_pose pose;
    double worst = 0.0;
    for (int frame = 0; frame < (int)(14.0f / DT); frame++) {
        sinew_anim2d_figure_build_pose(&fig, DT, &pose);
        assert_true(pose.scroll_speed == 0.0f); /* no scroll: the dots stop */
        assert_true(pose.spear_alpha == 1.0f);
        worst = fmax(worst, fabs(pose.joints[SINEW_ANIM2D_JOINT_FOOT_FAR].y));
        /* both hands on the shaft */
        sinew_vec2 b = pose.joints[SINEW_ANIM2D_JOINT_SPEAR_BUTT];
        sinew_vec2 t = pose.joints[SINEW_ANIM2D_JOINT_SPEAR_TIP];
        for (int h = 0; h < 2; h++) {
            sinew_vec2 p = pose.joints[SINEW_ANIM2D_JOINT_HAND_NEAR + h];
            double len = dist(b, t);
            double off = fabs((p.x - b.x) * (t.y - b.y) - (p.y - b.y) * (t.x - b.x)) / len;
            assert_true(off < 2.5); /* within the shaft's drawn thickness */
        }
    }
    assert_true(worst < 1e-3);
}

/* ---- squash ---- */

static void squash_keeps_feet_on_ground(void **state)
{
    (void)state;
    assert_near(sinew_anim2d_squash_sx(0.84f), 1.112f, 1e-6);
    assert_near(sinew_anim2d_squash_sx(1.14f), 0.902f, 1e-6);
    sinew_vec2 pivot = {100.0f, 300.0f};
    sinew_vec2 p = sinew_anim2d_squash((sinew_vec2){130.0f, 300.0f}, pivot, 0.82f);
    assert_near(p.y, 300.0f, 0);
    assert_near(p.x, 100.0f + 30.0f * sinew_anim2d_squash_sx(0.82f), 1e-4);

    sinew_anim2d_options opt = {0};
    opt.anchor_x = 220.0f;
    opt.ground_y = 380.0f;
    sinew_anim2d_figure fig;
    sinew_anim2d_figure_init(&fig, &opt);
    sinew_anim2d_figure_set_motion(&fig, SINEW_ANIM2D_MOTION_JUMP);
    sinew_anim2d_pose pose;
    float min_sy = 1.0f, max_sy = 1.0f;
    int squashed_on_ground = 0;
    for (int frame = 0; frame < 200; frame++) {
        sinew_anim2d_figure_build_pose(&fig, DT, &pose);
        min_sy = fminf(min_sy, pose.sy);
        max_sy = fmaxf(max_sy, pose.sy);
        /* Whenever the figure is squashed or stretched with its feet down, they are exactly on
         * the ground line: the pivot is the ground point, not the centre. */
        if (pose.lift < 0.5f && fabsf(pose.sy - 1.0f) > 0.02f) {
            squashed_on_ground++;
            for (int f = 0; f < 2; f++)
                assert_near(pose.joints[SINEW_ANIM2D_JOINT_FOOT_NEAR + f].y, 380.0f, 1e-3);
        }
        assert_near(pose.head_radius, SINEW_ANIM2D_HEADR * 0.5f * (pose.sx + pose.sy), 1e-5);
    }
    assert_true(squashed_on_ground > 10);
    assert_true(min_sy < 0.85f && max_sy > 1.12f); /* 0.84/0.82 squash, 1.14 stretch */
}

/* ---- springs and hair ---- */

static void head_spring_settles(void **state)
{
    (void)state;
    sinew_anim2d_spring s = {{0, 0}, {0, 0}};
    float over = 0.0f;
    for (int i = 0; i < 120; i++) {
        sinew_anim2d_spring_step(&s, (sinew_vec2){10.0f, 0.0f}, 260.0f, 26.0f, DT);
        over = fmaxf(over, s.pos.x - 10.0f);
    }
    assert_near(s.pos.x, 10.0f, 1e-2);
    assert_true(over > 0.0f && over < 1.0f); /* a little cartoon overshoot, not a wobble */
}

static void hair_lengths_hold(void **state)
{
    (void)state;
    sinew_anim2d_hair h;
    sinew_vec2 pin = {0.0f, 0.0f};
    sinew_anim2d_hair_reset(&h, pin, 9.0f);
    rng_state = 7;
    double worst = 0.0;
    for (int frame = 0; frame < 20000; frame++) {
        /* Jerk the pin around (up to 12 units a frame) with gusty wind. */
        pin.x += rndf(-12.0f, 12.0f);
        pin.y += rndf(-12.0f, 12.0f);
        float wind = rndf(-150.0f, 20.0f);
        float dt = (frame % 50 == 0) ? 0.033f : DT;
        sinew_anim2d_hair_step(&h, pin, wind, 40.0f, 9.0f, 0.86f, 6, dt);
        assert_true(h.pos[0].x == pin.x && h.pos[0].y == pin.y);
        for (int i = 0; i + 1 < SINEW_ANIM2D_HAIR_POINTS; i++)
            worst = fmax(worst, fabs(dist(h.pos[i], h.pos[i + 1]) - 9.0) / 9.0);
    }
    printf("hair: worst segment length error %.3f%% over 20000 jerked frames\n", worst * 100.0);
    assert_true(worst < 0.01);
}

static void hair_blows_back_when_running(void **state)
{
    (void)state;
    float tip_dx[2];
    for (int run = 0; run < 2; run++) {
        sinew_anim2d_figure fig;
        sinew_anim2d_figure_init(&fig, NULL);
        sinew_anim2d_figure_set_motion(&fig, SINEW_ANIM2D_MOTION_WALK);
        sinew_anim2d_figure_set_gait(&fig, (float)run, 1);
        sinew_anim2d_pose pose;
        double sum = 0.0;
        for (int frame = 0; frame < 300; frame++) {
            sinew_anim2d_figure_build_pose(&fig, DT, &pose);
            if (frame >= 150)
                sum += pose.joints[SINEW_ANIM2D_JOINT_HAIR_3].x -
                       pose.joints[SINEW_ANIM2D_JOINT_HAIR_0].x;
        }
        tip_dx[run] = (float)(sum / 150.0);
    }
    /* Falls in the walk, streams back in the run (x forward: back is negative). */
    assert_true(tip_dx[1] < tip_dx[0] - 5.0f);
    assert_true(tip_dx[1] < -18.0f);
}

/* ---- the figure: determinism, actions, dt, blending ---- */

/* A scripted session: motion switches and actions at fixed frames, varying dt. */
static void script_frame(sinew_anim2d_figure *fig, int frame)
{
    static const sinew_anim2d_motion order[] = {
        SINEW_ANIM2D_MOTION_SPEAR_RUN, SINEW_ANIM2D_MOTION_WALK, SINEW_ANIM2D_MOTION_THROW,
        SINEW_ANIM2D_MOTION_RUN,       SINEW_ANIM2D_MOTION_JUMP, SINEW_ANIM2D_MOTION_SPEAR_FORM,
        SINEW_ANIM2D_MOTION_SPEAR_RUN};
    if (frame % 97 == 0) sinew_anim2d_figure_set_motion(fig, order[(frame / 97) % 7]);
    if (frame % 31 == 5) sinew_anim2d_figure_trigger(fig, SINEW_ANIM2D_ACTION_JUMP);
    if (frame % 23 == 3) sinew_anim2d_figure_trigger(fig, SINEW_ANIM2D_ACTION_THRUST);
}

static void same_inputs_same_poses(void **state)
{
    (void)state;
    sinew_anim2d_figure a, b;
    sinew_anim2d_figure_init(&a, NULL);
    sinew_anim2d_figure_init(&b, NULL);
    sinew_anim2d_pose pa, pb;
    for (int frame = 0; frame < 3000; frame++) {
        float dt = 0.004f + 0.03f * (float)((frame * 7919) % 101) / 100.0f;
        script_frame(&a, frame);
        script_frame(&b, frame);
        sinew_anim2d_figure_build_pose(&a, dt, &pa);
        sinew_anim2d_figure_build_pose(&b, dt, &pb);
        assert_memory_equal(&pa, &pb, sizeof pa);
        for (int j = 0; j < SINEW_ANIM2D_JOINT_COUNT; j++)
            assert_true(finite2(pa.joints[j]));
    }
}

static void actions_change_the_pose(void **state)
{
    (void)state;
    sinew_anim2d_figure plain, acted;
    sinew_anim2d_figure_init(&plain, NULL);
    sinew_anim2d_figure_init(&acted, NULL);
    sinew_anim2d_pose p0, p1;
    for (int frame = 0; frame < 30; frame++) {
        sinew_anim2d_figure_build_pose(&plain, DT, &p0);
        sinew_anim2d_figure_build_pose(&acted, DT, &p1);
    }
    assert_true(p1.scroll_speed > 380.0f); /* the game runs */
    /* Thrust: the spear tip shoots forward, both hands on the shaft. */
    assert_int_equal(sinew_anim2d_figure_trigger(&acted, SINEW_ANIM2D_ACTION_THRUST), 1);
    assert_int_equal(sinew_anim2d_figure_trigger(&acted, SINEW_ANIM2D_ACTION_THRUST), 0);
    float max_tip = -1e9f, base_tip = p0.joints[SINEW_ANIM2D_JOINT_SPEAR_TIP].x, max_thrust = 0;
    for (int frame = 0; frame < 20; frame++) {
        sinew_anim2d_figure_build_pose(&plain, DT, &p0);
        sinew_anim2d_figure_build_pose(&acted, DT, &p1);
        max_tip = fmaxf(max_tip, p1.joints[SINEW_ANIM2D_JOINT_SPEAR_TIP].x - base_tip);
        max_thrust = fmaxf(max_thrust, p1.thrust);
    }
    assert_true(max_tip > 25.0f);
    assert_true(max_thrust > 0.99f);
    /* Jump: the feet leave the ground by a lot, and come back. */
    for (int frame = 0; frame < 30; frame++)
        sinew_anim2d_figure_build_pose(&acted, DT, &p1);
    assert_int_equal(sinew_anim2d_figure_trigger(&acted, SINEW_ANIM2D_ACTION_JUMP), 1);
    float max_lift = 0.0f, late_min = 1e9f;
    for (int frame = 0; frame < 66; frame++) {
        sinew_anim2d_figure_build_pose(&acted, DT, &p1);
        max_lift = fmaxf(max_lift, p1.lift);
        if (frame >= 50) late_min = fminf(late_min, p1.lift); /* landed, running on */
        assert_true(p1.scroll_speed > 380.0f);                /* keeps running through the jump */
    }
    assert_true(max_lift > 100.0f);
    assert_true(late_min < 1e-3f);
    /* Actions belong to the spear run. */
    sinew_anim2d_figure_set_motion(&acted, SINEW_ANIM2D_MOTION_WALK);
    assert_int_equal(sinew_anim2d_figure_trigger(&acted, SINEW_ANIM2D_ACTION_JUMP), 0);
    assert_int_equal(sinew_anim2d_figure_set_motion(&acted, SINEW_ANIM2D_MOTION_COUNT), -1);
    assert_int_equal(sinew_anim2d_figure_set_motion(&acted, SINEW_ANIM2D_MOTION_INVALID), -1);
}

static void dt_is_clamped(void **state)
{
    (void)state;
    sinew_anim2d_figure fig;
    sinew_anim2d_figure_init(&fig, NULL);
    sinew_anim2d_figure_set_motion(&fig, SINEW_ANIM2D_MOTION_THROW);
    sinew_anim2d_pose pose;
    sinew_anim2d_figure_build_pose(&fig, 0.0f, &pose);
    sinew_anim2d_figure_build_pose(&fig, 5.0f, &pose); /* a 5 s hitch */
    assert_near(pose.motion_time, 0.033f, 1e-6);
    sinew_anim2d_figure_build_pose(&fig, NAN, &pose);
    sinew_anim2d_figure_build_pose(&fig, -1.0f, &pose);
    assert_near(pose.motion_time, 0.033f, 1e-6);
    for (int j = 0; j < SINEW_ANIM2D_JOINT_COUNT; j++)
        assert_true(finite2(pose.joints[j]));
}

/* Largest per-frame displacement of each joint (hair excluded: it is physics) over a run. */
static void track_motion(float *worst, const sinew_anim2d_pose *a, const sinew_anim2d_pose *b)
{
    for (int j = 0; j < SINEW_ANIM2D_JOINT_HAIR_0; j++)
        worst[j] = fmaxf(worst[j], (float)dist(a->joints[j], b->joints[j]));
}

static float switching_worst_ratio(float blend_time, const float *natural)
{
    sinew_anim2d_options opt = {0};
    opt.blend_time = blend_time;
    sinew_anim2d_figure fig;
    sinew_anim2d_figure_init(&fig, &opt);
    sinew_anim2d_pose pose, prev;
    float worst[SINEW_ANIM2D_JOINT_COUNT] = {0};
    rng_state = 4242;
    int next_switch = 30;
    for (int frame = 0; frame < 20000; frame++) {
        if (frame == next_switch) {
            int m = 1 + (int)(rnd() * (SINEW_ANIM2D_MOTION_COUNT - 1));
            sinew_anim2d_figure_set_motion(&fig, (sinew_anim2d_motion)m);
            /* Anywhere from the middle of a blend to well after it. */
            next_switch = frame + 1 + (int)(rnd() * 60.0);
        }
        if (rnd() < 0.03) sinew_anim2d_figure_trigger(&fig, SINEW_ANIM2D_ACTION_JUMP);
        if (rnd() < 0.03) sinew_anim2d_figure_trigger(&fig, SINEW_ANIM2D_ACTION_THRUST);
        sinew_anim2d_figure_build_pose(&fig, DT, &pose);
        if (frame > 0) track_motion(worst, &prev, &pose);
        prev = pose;
    }
    float ratio = 0.0f;
    for (int j = 0; j < SINEW_ANIM2D_JOINT_HAIR_0; j++) {
        if (getenv("ANIM2D_DEBUG")) printf("joint %d: %.2f / %.2f\n", j, worst[j], natural[j]);
        ratio = fmaxf(ratio, worst[j] / natural[j]);
    }
    return ratio;
}

static void switching_never_jumps(void **state)
{
    (void)state;
    /* How far each joint moves per frame in the motions themselves, each played alone for
     * 20 s with its actions. */
    float natural[SINEW_ANIM2D_JOINT_COUNT] = {0};
    for (int m = 1; m < SINEW_ANIM2D_MOTION_COUNT; m++) {
        sinew_anim2d_figure fig;
        sinew_anim2d_figure_init(&fig, NULL);
        sinew_anim2d_figure_set_motion(&fig, (sinew_anim2d_motion)m);
        sinew_anim2d_pose pose, prev;
        for (int frame = 0; frame < 1200; frame++) {
            if (frame % 70 == 10) sinew_anim2d_figure_trigger(&fig, SINEW_ANIM2D_ACTION_JUMP);
            if (frame % 45 == 20) sinew_anim2d_figure_trigger(&fig, SINEW_ANIM2D_ACTION_THRUST);
            sinew_anim2d_figure_build_pose(&fig, DT, &pose);
            if (frame > 0) track_motion(natural, &prev, &pose);
            prev = pose;
        }
    }
    /* Switching at random moments (often mid-blend) must not move any joint much faster than
     * the motions themselves do; a hard cut does (which shows the check can fail). */
    float blended = switching_worst_ratio(0.0f, natural);
    float cut = switching_worst_ratio(1e-6f, natural);
    printf("switching: worst per-frame joint step / natural worst: blended %.2f, hard cut %.2f\n",
           blended, cut);
    /* Blending two moving poses adds at most w'(t) dt |A - B| to a joint's step: with
     * smoothstep over 0.25 s that is 0.1 |A - B| per frame at 60 Hz, a fraction of the natural
     * worst (the jump's rise, ~45 units/frame), hence the 1.5 allowance. A cut is ~6x. */
    assert_true(blended <= 1.5f);
    assert_true(cut > 3.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ik_never_nan),
        cmocka_unit_test(ik_reaches_reachable),
        cmocka_unit_test(ik_sign_picks_side),
        cmocka_unit_test(ik_stretches_without_locking),
        cmocka_unit_test(arm_fk_lengths),
        cmocka_unit_test(gait_table),
        cmocka_unit_test(gait_stance_foot_fixed),
        cmocka_unit_test(gait_change_is_smooth),
        cmocka_unit_test(tracks_hit_keys_and_hold),
        cmocka_unit_test(spear_form_keys),
        cmocka_unit_test(spear_form_feet_planted),
        cmocka_unit_test(squash_keeps_feet_on_ground),
        cmocka_unit_test(head_spring_settles),
        cmocka_unit_test(hair_lengths_hold),
        cmocka_unit_test(hair_blows_back_when_running),
        cmocka_unit_test(same_inputs_same_poses),
        cmocka_unit_test(actions_change_the_pose),
        cmocka_unit_test(dt_is_clamped),
        cmocka_unit_test(switching_never_jumps),
    };
    return cmocka_run_group_tests_name("anim2d", tests, NULL, NULL);
}
