/* Tests for the spring-chain runtime (the checks of Sidorkin, "Animating tails the auto-rigger
 * never gave a bone", and the project's own): fast hip motion on 3..8 bones, coupling, mirror
 * symmetry, bind pose recovery, a rotated terminal bone, carry shared among links, loop
 * closure, frame-rate agreement, teleport, size scaling, state snapshots, 1,000 violent random
 * motions, and bad input. Floor and grounding are in test_dyn_floor.c. */
#include "test_util.h"

#if defined(__x86_64__)
#define SINEW_DYN_LANES8 1 /* src/dyn/CMakeLists.txt builds the 8-lane step on x86-64 */
#endif
#include "dyn/dyn_internal.h"

#include <float.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
/* Counting allocator for test_step_allocates_nothing: the test binary interposes malloc,
 * calloc and realloc over glibc's (sanitizer builds keep their own). */
#define DYN_COUNT_ALLOCS 1
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static volatile int alloc_counting;
static volatile long alloc_calls;
void *malloc(size_t n)
{
    if (alloc_counting) alloc_calls++;
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    if (alloc_counting) alloc_calls++;
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
    if (alloc_counting) alloc_calls++;
    return __libc_realloc(p, n);
}
#endif

#include "dyn_fixture.h"
#include "test_dyn_runner.h"

#define DEG ((float)(SINEW_PI / 180.0))

/* Violent hips: half a metre at 1.5 Hz (peak 4.7 m/s), yaw +-90 deg at 1 Hz, roll +-30 deg. */
static void motion_violent(float t, float s, sinew_vec3 *p, sinew_quat *q)
{
    *p = sinew_vec3_make(0.5f * s * sinf(9.42f * t), s * (1.0f + 0.2f * sinf(7.3f * t)),
                         0.5f * s * sinf(3.1f * t + 0.5f));
    sinew_quat yaw = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 1.57f * sinf(6.28f * t));
    sinew_quat roll =
        sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), 0.52f * sinf(4.1f * t + 1.0f));
    *q = sinew_quat_mul(yaw, roll);
}

/* A walk: 1 m/s forward, bob twice per 1 s stride, sway, a little yaw and roll. */
static void motion_walk(float t, float s, sinew_vec3 *p, sinew_quat *q)
{
    float w = 6.2831853f;
    *p = sinew_vec3_make(0.04f * s * sinf(w * t), s * (1.0f + 0.03f * sinf(2 * w * t)),
                         1.0f * s * t);
    sinew_quat yaw = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 0.12f * sinf(w * t));
    sinew_quat roll =
        sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), 0.06f * sinf(w * t + 0.3f));
    *q = sinew_quat_mul(yaw, roll);
}

/* Standing: the hips drift 5 cm and turn 11 degrees slowly, so the chains follow gently and
 * an idle sway shows beside them. */
static void motion_stand(float t, sinew_vec3 *p, sinew_quat *q)
{
    *p = sinew_vec3_make(0.05f * sinf(1.3f * t), 1.0f, 0.0f);
    *q = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 0.2f * sinf(0.9f * t));
}

static void test_fast_hips_keep_lengths_and_bends(void **state)
{
    (void)state;
    for (int K = 3; K <= 8; K++) {
        runner r;
        fixture_opts o = {.tail_count = K, .with_end = 1};
        runner_init(&r, &o, NULL);
        float max_len_err = 0, max_bend = 0;
        for (int f = 0; f <= 300; f++) {
            float t = (float)f / 60.0f;
            sinew_vec3 p;
            sinew_quat q;
            motion_violent(t, 1, &p, &q);
            runner_step(&r, p, q, f == 0 ? 0 : 1.0f / 60.0f);
            assert_true(runner_finite(&r));
            max_len_err = fmaxf(max_len_err, runner_length_error(&r));
            max_bend = fmaxf(max_bend, runner_max_neighbour_bend(&r));
        }
        print_message("K=%d: max relative length error %.2e, max neighbour bend %.1f deg\n", K,
                      (double)max_len_err, (double)(max_bend / DEG));
        assert_true(max_len_err < 1e-5f);
        assert_true(max_bend < 90.0f * DEG);
        runner_free(&r);
    }
}

/* Mean over frames of the largest change of bend between neighbouring joints (the hinge
 * "kinks" the mouse showed) under a brisk sideways sway: coupling must make it smaller. */
static float kinkiness(uint32_t disable)
{
    runner r;
    fixture_opts o = {.tail_count = 8, .with_end = 1};
    sinew_dyn_params prm = {0};
    prm.disable = disable | SINEW_DYN_NO_LIMIT | SINEW_DYN_NO_FLOOR;
    runner_init(&r, &o, &prm);
    double sum = 0;
    int count = 0;
    for (int f = 0; f <= 360; f++) {
        float t = (float)f / 60.0f;
        sinew_vec3 p = sinew_vec3_make(0.2f * sinf(6.2831853f * t), 1.0f, 0.0f);
        sinew_quat q =
            sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 0.2f * sinf(6.2831853f * t));
        runner_step(&r, p, q, f == 0 ? 0 : 1.0f / 60.0f);
        if (f >= 60) {
            sum += runner_max_bend_difference(&r);
            count++;
        }
    }
    runner_free(&r);
    return (float)(sum / count);
}

static void test_coupling_smooths_bends(void **state)
{
    (void)state;
    float with = kinkiness(0), without = kinkiness(SINEW_DYN_NO_COUPLING);
    print_message("mean largest neighbour bend difference: coupled %.2f deg, uncoupled %.2f deg\n",
                  (double)(with / DEG), (double)(without / DEG));
    assert_true(with < 0.7f * without);
}

static void test_mirrored_hips_give_mirrored_tail(void **state)
{
    (void)state;
    runner a, b;
    fixture_opts o = {.tail_count = 6, .with_end = 1};
    runner_init(&a, &o, NULL);
    runner_init(&b, &o, NULL);
    float worst = 0, swing = 0;
    for (int f = 0; f <= 300; f++) {
        sinew_vec3 p;
        sinew_quat q;
        motion_violent((float)f / 60.0f, 1, &p, &q);
        float dt = f == 0 ? 0 : 1.0f / 60.0f;
        runner_step(&a, p, q, dt);
        /* reflection x -> -x: positions negate x, quaternions (x, y, z, w) -> (x, -y, -z, w) */
        runner_step(&b, sinew_vec3_make(-p.x, p.y, p.z), sinew_quat_make(q.x, -q.y, -q.z, q.w), dt);
        for (int k = 0; k <= a.fx.tail_count; k++) {
            sinew_vec3 m = sinew_vec3_make(-b.pts[k].x, b.pts[k].y, b.pts[k].z);
            worst = fmaxf(worst, sinew_vec3_distance(a.pts[k], m));
            swing = fmaxf(swing, fabsf(a.pts[k].x - p.x));
        }
    }
    print_message("mirror: worst distance %.2e m, lateral swing %.3f m\n", (double)worst,
                  (double)swing);
    assert_true(swing > 0.05f); /* the tail really swung sideways */
    assert_true(worst < 1e-4f);
    runner_free(&a);
    runner_free(&b);
}

/* A left/right pair (two chains hung off the centre line as mirror images, both with idle
 * sway from one seed) under mirrored hips: the right one's points are the mirror of the left
 * one's. The sway turns each to its own side, so the pair stays symmetric. */
static void test_mirrored_pair_sways_as_mirror_images(void **state)
{
    (void)state;
    runner a, b;
    fixture_opts oa = {
        .tail_count = 5, .with_end = 1, .root_x = 0.1f, .tail_dir = {0.4f, -0.5f, -1}};
    fixture_opts ob = oa;
    ob.root_x = -oa.root_x;
    ob.tail_dir.x = -oa.tail_dir.x;
    sinew_dyn_params prm = {0};
    prm.idle = 15.0f * DEG;
    prm.idle_seed = 11;
    runner_init(&a, &oa, &prm);
    runner_init(&b, &ob, &prm);
    runner still;
    runner_init(&still, &oa, NULL);
    float worst = 0, swing = 0;
    for (int f = 0; f <= 600; f++) {
        sinew_vec3 p;
        sinew_quat q;
        motion_stand((float)f / 60.0f, &p, &q);
        float dt = f == 0 ? 0 : 1.0f / 60.0f;
        runner_step(&a, p, q, dt);
        runner_step(&still, p, q, dt);
        runner_step(&b, sinew_vec3_make(-p.x, p.y, p.z), sinew_quat_make(q.x, -q.y, -q.z, q.w), dt);
        for (int k = 0; k <= a.fx.tail_count; k++) {
            sinew_vec3 m = sinew_vec3_make(-b.pts[k].x, b.pts[k].y, b.pts[k].z);
            worst = fmaxf(worst, sinew_vec3_distance(a.pts[k], m));
            swing = fmaxf(swing, sinew_vec3_distance(a.pts[k], still.pts[k]));
        }
        assert_true(runner_finite(&a) && runner_length_error(&a) < 1e-5f); /* lengths kept */
    }
    print_message("mirrored pair with idle sway: worst distance %.2e m, the sway moved the tip "
                  "%.3f m\n",
                  (double)worst, (double)swing);
    assert_true(swing > 0.05f); /* the sway really moved the chain */
    assert_true(worst < 1e-4f);
    runner_free(&a);
    runner_free(&b);
    runner_free(&still);
}

/* The loaded (file) pose has a 28-degree rotation on the last joint (as the article's mouse
 * had): the rig must take rest from the inverse bind matrices, so a still chain holds the bind
 * pose. */
static void test_bind_pose_recovered_over_loaded_pose(void **state)
{
    (void)state;
    runner r;
    fixture_opts o = {.tail_count = 5, .with_end = 1};
    sinew_dyn_params prm = {0};
    prm.disable = SINEW_DYN_NO_CARRY | SINEW_DYN_NO_GRAVITY | SINEW_DYN_NO_FLOOR;
    fixture fx;
    fixture_build(&fx, &o);
    int last = fx.tail0 + 4;
    fx.nodes[last].local.rotation =
        sinew_quat_from_axis_angle(sinew_vec3_make(1, 0, 0), 28.0f * DEG);
    runner_init_fixture(&r, &fx, &prm);
    for (int f = 0; f < 120; f++)
        runner_step(&r, sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 1.0f / 60.0f);
    for (int k = 0; k <= 5; k++) {
        sinew_vec3 bind = k < 5 ? sinew_mat4_translation(&fx.bind[fx.tail0 + k])
                                : sinew_mat4_translation(&fx.bind[fx.tail_end]);
        assert_true(sinew_vec3_distance(r.pts[k], bind) < 1e-4f);
    }
    assert_true(sinew_quat_angle(r.rot[4]) < 0.01f * DEG);
    runner_free(&r);
}

/* A rotated terminal bone without Tail_End: its link continues the incoming tangent in its
 * own frame, and a still chain keeps that bone's bind rotation. */
static void test_rotated_terminal_bone_without_end(void **state)
{
    (void)state;
    runner r;
    fixture_opts o = {.tail_count = 4, .with_end = 0, .terminal_bind_rotation = 40.0f * DEG};
    sinew_dyn_params prm = {0};
    prm.disable = SINEW_DYN_NO_CARRY | SINEW_DYN_NO_GRAVITY | SINEW_DYN_NO_FLOOR;
    runner_init(&r, &o, &prm);
    for (int f = 0; f < 60; f++)
        runner_step(&r, sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 1.0f / 60.0f);
    sinew_quat bind_local = r.fx.nodes[r.fx.tail0 + 3].rest.rotation;
    assert_true(fabsf(sinew_quat_dot(r.rot[3], bind_local)) > 1.0f - 1e-6f);
    sinew_vec3 incoming =
        sinew_vec3_normalize_or(sinew_vec3_sub(r.pts[3], r.pts[2]), sinew_vec3_make(0, 0, 1));
    sinew_vec3 last =
        sinew_vec3_normalize_or(sinew_vec3_sub(r.pts[4], r.pts[3]), sinew_vec3_make(1, 0, 0));
    print_message("terminal link vs incoming tangent: %.4f deg\n",
                  (double)(acosf(fminf(1.0f, sinew_vec3_dot(incoming, last))) / DEG));
    assert_true(sinew_vec3_dot(incoming, last) > cosf(0.05f * DEG));
    runner_free(&r);
}

/* Carry is the elevation of the whole tail: a 4-bone and an 8-bone tail rise alike, not
 * four and eight times (the article's third mistake). */
static float tip_rise(int K)
{
    runner r;
    fixture_opts o = {.tail_count = K, .with_end = 1};
    sinew_dyn_params prm = {0};
    prm.disable = SINEW_DYN_NO_GRAVITY | SINEW_DYN_NO_FLOOR;
    runner_init(&r, &o, &prm);
    runner_step(&r, sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 0);
    /* tip direction from the root, angle above the bind direction */
    sinew_vec3 d =
        sinew_vec3_normalize_or(sinew_vec3_sub(r.pts[K], r.pts[0]), sinew_vec3_make(0, 0, 1));
    runner_free(&r);
    return atan2f(d.y, -d.z) - atan2f(-0.5f, 1.0f);
}

static void test_carry_shared_among_links(void **state)
{
    (void)state;
    float r4 = tip_rise(4), r8 = tip_rise(8);
    print_message("chord rise with 50 deg carry: 4 bones %.1f deg, 8 bones %.1f deg\n",
                  (double)(r4 / DEG), (double)(r8 / DEG));
    assert_true(r4 > 20.0f * DEG && r4 < 35.0f * DEG);
    assert_true(fabsf(r4 - r8) < 4.0f * DEG);
}

/* restCurve 0 centres a sideways-modelled tail; 1 keeps the artist's curve. */
static void test_rest_curve_centres_or_keeps(void **state)
{
    (void)state;
    float lateral[2];
    for (int b = 0; b < 2; b++) {
        runner r;
        fixture_opts o = {.tail_count = 6, .with_end = 1, .lateral_bend = 8.0f * DEG};
        sinew_dyn_params prm = {0};
        prm.disable = SINEW_DYN_NO_GRAVITY | SINEW_DYN_NO_FLOOR | SINEW_DYN_NO_CARRY;
        prm.rest_curve = (float)b;
        runner_init(&r, &o, &prm);
        runner_step(&r, sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 0);
        lateral[b] = r.pts[6].x;
        if (b == 1) {
            sinew_vec3 bind = sinew_mat4_translation(&r.fx.bind[r.fx.tail_end]);
            assert_true(sinew_vec3_distance(r.pts[6], bind) < 1e-4f);
        }
        runner_free(&r);
    }
    print_message("tip lateral offset: restCurve 0 %.4f m, restCurve 1 %.4f m\n",
                  (double)lateral[0], (double)lateral[1]);
    assert_true(fabsf(lateral[0]) < 1e-5f);
    assert_true(fabsf(lateral[1]) > 0.1f);
}

/* Periodic hips: after warm-up the state returns to itself one period later (what the
 * bake waits for); a cold start does not. */
static void test_loop_closes_after_warmup(void **state)
{
    (void)state;
    runner r;
    fixture_opts o = {.tail_count = 5, .with_end = 1};
    runner_init(&r, &o, NULL);
    size_t bytes = sinew_dyn_state_bytes(r.rig);
    uint64_t snap[512];
    assert_true(bytes <= sizeof snap);
    float first = 0, last = 0;
    const int frames = 30; /* 1 s period at 30 fps */
    for (int cycle = 0; cycle < 12; cycle++) {
        memcpy(snap, r.st, bytes);
        for (int f = 0; f < frames; f++) {
            float t = (float)f / (float)frames;
            sinew_vec3 p =
                sinew_vec3_make(0.3f * sinf(6.2831853f * t), 1.0f + 0.05f * sinf(12.566f * t), 0);
            sinew_quat q =
                sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 0.5f * sinf(6.2831853f * t));
            runner_step(&r, p, q, (cycle == 0 && f == 0) ? 0 : 1.0f / 30.0f);
        }
        if (cycle == 0) continue; /* snap of cycle 0 is the unplaced state */
        float dp, dv;
        sinew_dyn_state_difference((sinew_dyn_state *)(void *)snap, r.st, &dp, &dv);
        if (cycle == 1) first = dp;
        last = dp;
        print_message("cycle %d: state moved %.2e m, %.2e m/s over one period\n", cycle, (double)dp,
                      (double)dv);
    }
    assert_true(first > 1e-2f);
    assert_true(last < 1e-4f);
    runner_free(&r);
}

/* A clip whose frame time is not a multiple of 1/60 s (0.71 s in 22 frames, Khronos Fox's
 * Walk): with max_step = dt / ceil(dt * 60), as the header tells a bake to pass, every frame
 * is whole steps and the loop closes; with the default the leftover time differs per pass. */
static void test_loop_closes_at_odd_frame_rate(void **state)
{
    (void)state;
    float closed[2];
    for (int rule = 0; rule < 2; rule++) {
        const int F = 22;
        const float T = 0.71f, dt = T / (float)F;
        fixture_opts o = {.tail_count = 5, .with_end = 1};
        sinew_dyn_params prm = {0};
        if (rule) prm.max_step = dt / ceilf(dt * 60.0f);
        runner r;
        runner_init(&r, &o, &prm);
        uint64_t snap[512];
        size_t bytes = sinew_dyn_state_bytes(r.rig);
        float dp = 0, dv = 0;
        for (int cycle = 0; cycle < 20; cycle++) {
            memcpy(snap, r.st, bytes);
            for (int f = 0; f < F; f++) {
                float t = (float)f * dt;
                sinew_vec3 p = sinew_vec3_make(0.2f * sinf(6.2831853f * t / T),
                                               1.0f + 0.05f * sinf(12.566371f * t / T), 0);
                runner_step(&r, p, sinew_quat_identity(), (cycle == 0 && f == 0) ? 0 : dt);
            }
            sinew_dyn_state_difference((sinew_dyn_state *)(void *)snap, r.st, &dp, &dv);
        }
        closed[rule] = dp;
        runner_free(&r);
    }
    print_message("odd rate, 20 passes: default step %.2e m apart, whole-step rule %.2e m\n",
                  (double)closed[0], (double)closed[1]);
    assert_true(closed[1] < 1e-5f);
    assert_true(closed[0] > 1e-3f); /* why the rule is needed */
}

/* Frame-rate agreement: 30, 60 and 144 calls per second give the same tip direction within
 * 2 degrees RMS over a walk, compared at common instants (every 1/6 s). */
static void tip_track(float fps, sinew_vec3 *out, int samples)
{
    runner r;
    fixture_opts o = {.tail_count = 6, .with_end = 1};
    runner_init(&r, &o, NULL);
    int per = (int)lroundf(fps / 6.0f);
    for (int f = 0; f <= per * (samples - 1); f++) {
        float t = (float)f / fps;
        sinew_vec3 p;
        sinew_quat q;
        motion_walk(t, 1, &p, &q);
        runner_step(&r, p, q, f == 0 ? 0 : 1.0f / fps);
        if (f % per == 0)
            out[f / per] = sinew_vec3_normalize_or(sinew_vec3_sub(r.pts[6], r.pts[5]),
                                                   sinew_vec3_make(0, 0, 1));
    }
    runner_free(&r);
}

static void test_frame_rate_agreement(void **state)
{
    (void)state;
    enum { N = 37 }; /* 6 s */
    sinew_vec3 a[N], b[N], c[N];
    tip_track(30, a, N);
    tip_track(60, b, N);
    tip_track(144, c, N);
    double e30 = 0, e60 = 0;
    for (int i = 0; i < N; i++) {
        float x = acosf(fminf(1.0f, sinew_vec3_dot(a[i], c[i])));
        float y = acosf(fminf(1.0f, sinew_vec3_dot(b[i], c[i])));
        e30 += (double)(x * x);
        e60 += (double)(y * y);
    }
    e30 = sqrt(e30 / N) / (double)DEG;
    e60 = sqrt(e60 / N) / (double)DEG;
    print_message("tip direction RMS vs 144 fps: 30 fps %.3f deg, 60 fps %.3f deg\n", e30, e60);
    assert_true(e30 < 2.0);
    assert_true(e60 < 2.0);
}

/* A teleport puts the chain at rest in the new place instead of whipping it. */
static void test_teleport_resets_at_rest(void **state)
{
    (void)state;
    runner r, fresh;
    fixture_opts o = {.tail_count = 5, .with_end = 1};
    runner_init(&r, &o, NULL);
    runner_init(&fresh, &o, NULL);
    for (int f = 0; f < 60; f++) {
        sinew_vec3 p;
        sinew_quat q;
        motion_violent((float)f / 60.0f, 1, &p, &q);
        runner_step(&r, p, q, f == 0 ? 0 : 1.0f / 60.0f);
    }
    sinew_vec3 far = sinew_vec3_make(40, 1, -25);
    sinew_quat q = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 2.0f);
    runner_step(&r, far, q, 1.0f / 60.0f);
    runner_step(&fresh, far, q, 0);
    sinew_vec3 v[8];
    sinew_dyn_state_get(r.st, NULL, v);
    for (int k = 0; k <= 5; k++)
        assert_true(sinew_vec3_distance(r.pts[k], fresh.pts[k]) < 1e-5f);
    for (int k = 0; k < 5; k++)
        assert_true(sinew_vec3_length(v[k]) == 0.0f);
    /* explicit reset does the same without a jump */
    sinew_dyn_state_reset(r.st);
    assert_false(sinew_dyn_state_placed(r.st));
    runner_step(&r, far, q, 1.0f / 60.0f);
    assert_true(sinew_dyn_state_placed(r.st));
    runner_free(&r);
    runner_free(&fresh);
}

/* The size rule: the same creature 100 times larger moves exactly 100 times as far. */
static void test_scaling_with_model_size(void **state)
{
    (void)state;
    runner a, b;
    fixture_opts oa = {.tail_count = 5, .with_end = 1};
    fixture_opts ob = {.tail_count = 5, .with_end = 1, .scale = 100};
    runner_init(&a, &oa, NULL);
    runner_init(&b, &ob, NULL);
    sinew_dyn_params pa, pb;
    sinew_dyn_rig_params(a.rig, &pa);
    sinew_dyn_rig_params(b.rig, &pb);
    assert_true(fabsf(pb.gravity - 100.0f * pa.gravity) < 1e-3f);
    assert_true(fabsf(pb.floor_clearance - 2.5f) < 1e-4f);
    float worst = 0;
    for (int f = 0; f <= 240; f++) {
        sinew_vec3 p;
        sinew_quat q;
        motion_walk((float)f / 60.0f, 1, &p, &q);
        float dt = f == 0 ? 0 : 1.0f / 60.0f;
        runner_step(&a, p, q, dt);
        runner_step(&b, sinew_vec3_scale(p, 100), q, dt);
        for (int k = 0; k <= 5; k++)
            worst = fmaxf(worst, sinew_vec3_distance(a.pts[k], sinew_vec3_scale(b.pts[k], 0.01f)));
    }
    print_message("scaled x100: worst difference %.2e m\n", (double)worst);
    assert_true(worst < 1e-4f);
    runner_free(&a);
    runner_free(&b);
}

/* A state copied with memcpy is a full snapshot: re-running from it gives the same bits. */
static void test_state_snapshot_and_set(void **state)
{
    (void)state;
    runner r;
    fixture_opts o = {.tail_count = 4, .with_end = 1};
    runner_init(&r, &o, NULL);
    uint64_t snap[512];
    sinew_quat first[8], second[8];
    for (int pass = 0; pass < 2; pass++) {
        for (int f = 0; f < 90; f++) {
            sinew_vec3 p;
            sinew_quat q;
            motion_violent((float)f / 60.0f, 1, &p, &q);
            if (pass == 0 && f == 45) memcpy(snap, r.st, sinew_dyn_state_bytes(r.rig));
            if (pass == 1 && f < 45) continue;
            if (pass == 1 && f == 45) memcpy(r.st, snap, sinew_dyn_state_bytes(r.rig));
            runner_step(&r, p, q, f == 0 ? 0 : 1.0f / 60.0f);
        }
        memcpy(pass ? second : first, r.rot, 4 * sizeof(sinew_quat));
    }
    assert_memory_equal(first, second, 4 * sizeof(sinew_quat));
    /* get/set round trip, and set refuses NaN without changing anything */
    sinew_vec3 p[4], v[4], p2[4];
    sinew_dyn_state_get(r.st, p, v);
    sinew_error err;
    assert_int_equal(sinew_dyn_state_set(r.st, p, v, &err), SINEW_OK);
    sinew_vec3 bad[4];
    memcpy(bad, p, sizeof bad);
    bad[2].y = NAN;
    assert_int_equal(sinew_dyn_state_set(r.st, bad, v, &err), SINEW_ERR_INVALID_VALUE);
    sinew_dyn_state_get(r.st, p2, NULL);
    assert_memory_equal(p, p2, sizeof p);
    runner_free(&r);
}

static uint32_t rng = 2463534242u;
static float frand01(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return (float)(rng & 0xffffff) / (float)0x1000000;
}

/* 1,000 randomised violent motions: teleports, dt from 0 to 0.5 s, random spins, chains of
 * 1..8 links, random floors: never a NaN, lengths always kept. */
static void test_random_violent_motions(void **state)
{
    (void)state;
    float worst = 0;
    for (int trial = 0; trial < 1000; trial++) {
        runner r;
        fixture_opts o = {.tail_count = 1 + (int)(frand01() * 8.0f) % 8, .with_end = trial & 1};
        sinew_dyn_params prm = {0};
        prm.rest_curve = frand01();
        prm.curvature = (frand01() - 0.5f) * 3.0f;
        if (trial % 3 == 0) prm.disable |= SINEW_DYN_NO_TELEPORT;
        runner_init(&r, &o, &prm);
        sinew_vec3 p = sinew_vec3_make(0, 1, 0);
        for (int f = 0; f < 24; f++) {
            float kind = frand01();
            if (kind < 0.1f) /* teleport, up to 50 m away */
                p = sinew_vec3_make((frand01() - 0.5f) * 100, (frand01() - 0.5f) * 10,
                                    (frand01() - 0.5f) * 100);
            else
                p = sinew_vec3_add(p,
                                   sinew_vec3_make((frand01() - 0.5f) * 2, (frand01() - 0.5f) * 2,
                                                   (frand01() - 0.5f) * 2));
            sinew_quat q = sinew_quat_normalize(sinew_quat_make(
                frand01() - 0.5f, frand01() - 0.5f, frand01() - 0.5f, frand01() - 0.5f));
            float dt = kind < 0.2f ? 0.0f : frand01() * 0.5f;
            sinew_dyn_floor fl = {1, (frand01() - 0.5f) * 4};
            r.floor = (trial & 2) ? &fl : NULL;
            runner_step(&r, p, q, dt);
            assert_true(runner_finite(&r));
            /* 1e-5 relative, or float's own resolution at this distance from the origin
             * when that is coarser (the test's forward kinematics rounds too) */
            float shortest = r.fx.tail_length / (float)o.tail_count;
            float floor_eps = 8.0f * FLT_EPSILON * (sinew_vec3_length(p) + 2.0f) / shortest;
            float e = runner_length_error(&r) / fmaxf(1e-5f, floor_eps) * 1e-5f;
            worst = fmaxf(worst, e);
        }
        runner_free(&r);
    }
    print_message(
        "1000 violent runs: worst length error %.2e (relative, float resolution allowed)\n",
        (double)worst);
    assert_true(worst < 1e-5f);
}

static void test_bad_input(void **state)
{
    (void)state;
    sinew_error err;
    sinew_dyn_rig *rig = NULL;
    /* no tail */
    fixture fx;
    fixture_opts o = {.tail_count = 3, .with_end = 1};
    fixture_build(&fx, &o);
    for (uint32_t i = 0; i < fx.model.node_count; i++)
        if (strncmp(fx.names[i], "Tail_", 5) == 0) fx.names[i][0] = 'X';
    assert_int_equal(sinew_dyn_rig_create(&fx.model, NULL, NULL, NULL, &rig, &err),
                     SINEW_ERR_NOT_FOUND);
    assert_null(rig);
    assert_non_null(strstr(err.message, "Tail"));
    /* broken chain: Tail_3 hangs from the hips */
    fixture_build(&fx, &o);
    fx.nodes[fx.tail0 + 2].parent = fx.hips;
    assert_int_equal(sinew_dyn_rig_create(&fx.model, NULL, NULL, NULL, &rig, &err),
                     SINEW_ERR_FORMAT);
    assert_non_null(strstr(err.message, "Tail_3"));
    /* bad params */
    fixture_build(&fx, &o);
    sinew_dyn_params prm = {0};
    prm.damping_ratio = -1;
    assert_int_equal(sinew_dyn_rig_create(&fx.model, NULL, &prm, NULL, &rig, &err),
                     SINEW_ERR_ARGUMENT);
    prm.damping_ratio = 0;
    prm.rest_curve = 2;
    assert_int_equal(sinew_dyn_rig_create(&fx.model, NULL, &prm, NULL, &rig, &err),
                     SINEW_ERR_ARGUMENT);
    /* caller-named chain with a bad index */
    int32_t nodes[2] = {fx.tail0, 99};
    sinew_dyn_chain_desc desc = {nodes, 2, -1, NULL, 0, NULL, 0};
    assert_int_equal(sinew_dyn_rig_create(&fx.model, &desc, NULL, NULL, &rig, &err),
                     SINEW_ERR_ARGUMENT);
    /* a caller-named chain that works: the first two tail joints only */
    nodes[1] = fx.tail0 + 1;
    assert_int_equal(sinew_dyn_rig_create(&fx.model, &desc, NULL, NULL, &rig, &err), SINEW_OK);
    assert_int_equal(sinew_dyn_rig_joint_count(rig), 2);
    sinew_dyn_rig_free(rig);

    /* step: negative dt, NaN hips, wrong state; nothing changes on error */
    runner r;
    runner_init(&r, &o, NULL);
    runner_step(&r, sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 0);
    uint64_t before[512];
    size_t bytes = sinew_dyn_state_bytes(r.rig);
    memcpy(before, r.st, bytes);
    sinew_quat out[8];
    for (int k = 0; k < 8; k++)
        out[k] = sinew_quat_make(9, 9, 9, 9);
    sinew_mat4 world[FX_MAX_NODES];
    sinew_mat4 hw = fx_hips_world(sinew_vec3_make(0, 1, 0), sinew_quat_identity());
    fx_world(&r.fx, &hw, world);
    sinew_dyn_step_job job = {r.rig, r.st, world, r.fx.model.node_count, -0.1f, out, NULL};
    assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_ERR_ARGUMENT);
    job.dt = NAN;
    assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_ERR_ARGUMENT);
    /* a huge dt is a hitch (capped substeps), not an error */
    job.dt = 1e30f;
    assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_OK);
    assert_true(isfinite(out[0].w));
    memcpy(before, r.st, bytes);
    for (int k = 0; k < 8; k++)
        out[k] = sinew_quat_make(9, 9, 9, 9);
    job.dt = 0.1f;
    world[r.fx.hips].m[13] = NAN;
    assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_ERR_INVALID_VALUE);
    world[r.fx.hips].m[13] = 1;
    job.world_count = 2;
    assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_ERR_ARGUMENT);
    assert_memory_equal(before, r.st, bytes);
    assert_true(out[0].x == 9.0f);
    assert_null(sinew_dyn_state_init(r.rig, (char *)before + 4, bytes));
    assert_null(sinew_dyn_state_init(r.rig, before, bytes - 1));
    runner_free(&r);
}

/* sinew_dyn_step_run_many (four chains per vector pass) gives what single steps give, over
 * chains that swing, hit the floor, the forward plane and the bend limit, with a teleport
 * in one lane (that group falls back to single steps) and a leftover job. */
static void test_many_matches_single(void **state)
{
    (void)state;
    enum { C = 11 };
    static runner single[C], many[C];
    fixture_opts o = {.tail_count = 7, .with_end = 1, .tail_dir = {0, -1, -0.4f}};
    for (int c = 0; c < C; c++) {
        runner_init(&single[c], &o, NULL);
        runner_init(&many[c], &o, NULL);
        if (c > 0) { /* lanes run chains of one rig: share many[0]'s */
            sinew_dyn_rig_free(many[c].rig);
            many[c].rig = many[0].rig;
            many[c].st = sinew_dyn_state_init(many[0].rig, many[c].mem, sizeof many[c].mem);
        }
    }
    sinew_dyn_step_job jobs[C];
    float worst = 0, moved = 0;
    int contact_frames = 0;
    for (int f = 0; f <= 240; f++) {
        float t = (float)f / 60.0f;
        for (int c = 0; c < C; c++) {
            sinew_vec3 p;
            sinew_quat q;
            motion_violent(t + 0.13f * (float)c, 1, &p, &q);
            p.y -= 0.55f;                         /* low enough to touch the floor */
            if (c == 5 && f == 120) p.x += 10.0f; /* a teleport in the second group */
            if (c == 5 && f > 120) p.x += 10.0f;
            float dt = f == 0 ? 0 : 1.0f / 60.0f;
            runner_step(&single[c], p, q, dt);
            many[c].hips = fx_hips_world(p, q);
            fx_world(&many[c].fx, &many[c].hips, many[c].world);
            jobs[c] = (sinew_dyn_step_job){
                many[c].rig, many[c].st,  many[c].world, many[c].fx.model.node_count,
                dt,          many[c].rot, NULL};
        }
        sinew_error err;
        assert_int_equal(sinew_dyn_step_run_many(jobs, C, &err), SINEW_OK);
        for (int c = 0; c < C; c++) {
            sinew_vec3 a[8], b[8];
            sinew_dyn_state_get(single[c].st, a, NULL);
            sinew_dyn_state_get(many[c].st, b, NULL);
            for (int k = 0; k < 7; k++) {
                worst = fmaxf(worst, sinew_vec3_distance(a[k], b[k]));
                worst =
                    fmaxf(worst, 1.0f - fabsf(sinew_quat_dot(single[c].rot[k], many[c].rot[k])));
                if (a[k].y < 0.026f) contact_frames++;
            }
            if (f > 0) moved = fmaxf(moved, sinew_vec3_distance(a[6], single[c].pts[6]));
        }
    }
    print_message("run_many vs run: worst difference %.2e over %d contact samples\n", (double)worst,
                  contact_frames);
    assert_true(contact_frames > 100);
    assert_true(worst < 1e-4f);
    /* a bad job anywhere: nothing runs */
    uint64_t before[1024];
    size_t bytes = sinew_dyn_state_bytes(many[0].rig);
    memcpy(before, many[0].st, bytes);
    jobs[7].dt = -1;
    sinew_error err;
    assert_int_equal(sinew_dyn_step_run_many(jobs, C, &err), SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "job 7"));
    assert_memory_equal(before, many[0].st, bytes);
    for (int c = 0; c < C; c++) {
        runner_free(&single[c]);
        if (c > 0) many[c].rig = NULL; /* shared */
        runner_free(&many[c]);
    }
}

/* The widths of the one lane step (8 with AVX2 where the CPU has it, 4, and 1, what
 * sinew_dyn_step_run runs) compute the same IEEE operations per lane: the same bits in the
 * states and the local rotations, through swings, floor contact, the forward plane and the
 * limits, so neither the machine nor the entry point changes a result. */
static void test_lane_widths_agree(void **state)
{
    (void)state;
    enum { W = 8, N = 3 }; /* the widths compared: 8, 4, 1 */
    int widths[N] = {8, 4, 1}, first = 0;
#if defined(DYN_LANES8)
    if (!__builtin_cpu_supports("avx2")) {
        print_message("no AVX2 on this CPU: the 8-lane step is never used, not compared\n");
        first = 1;
    }
#else
    print_message("the 8-lane step is not built on this target: not compared\n");
    first = 1;
#endif
#if !defined(DYN_VECTORS)
    print_message("no vector lanes in this build: only width 1 runs\n");
    first = 2;
#endif
    static runner r[W];
    fixture_opts o = {.tail_count = 7, .with_end = 1, .tail_dir = {0, -1, -0.4f}};
    for (int k = 0; k < W; k++)
        runner_init(&r[k], &o, NULL);
    const sinew_dyn_rig *rig = r[0].rig;
    size_t bytes = sinew_dyn_state_bytes(rig);
    static uint64_t mem[N][W][1024];
    static sinew_quat rot[N][W][SINEW_DYN_MAX_JOINTS];
    sinew_dyn_state *st[N][W];
    float *chain[N][W];
    sinew_quat *out[N][W];
    int contacts = 0;
    for (int f = 0; f <= 200; f++) {
        float t = (float)f / 60.0f;
        dyn_frame fr[W];
        for (int k = 0; k < W; k++) {
            sinew_vec3 p;
            sinew_quat q;
            motion_violent(t + 0.21f * (float)k, 1, &p, &q);
            p.y -= 0.55f; /* low enough to touch the floor */
            fr[k] = (dyn_frame){p, q, 1.0f};
            if (f == 0) { /* every width starts from one placed state */
                runner_step(&r[k], p, q, 0);
                for (int w = 0; w < N; w++) {
                    memcpy(mem[w][k], r[k].st, bytes);
                    st[w][k] = (sinew_dyn_state *)(void *)mem[w][k];
                    chain[w][k] = st[w][k]->data;
                    out[w][k] = rot[w][k];
                }
            }
        }
        if (f == 0) continue;
        /* an idle sway on the odd frames, a different one per lane: the turn of the rest
         * frames is the same bits at every width too */
        sinew_quat sway[W];
        for (int k = 0; k < W; k++)
            sway[k] = sinew_quat_from_axis_angle(sinew_vec3_make(0.3f, 1, 0.1f * (float)k),
                                                 0.05f * sinf(0.7f * t + (float)k));
        const sinew_quat *turn = f % 2 ? sway : NULL;
        /* a rest drivers' turn of the root on every third frame, unlike in every lane */
        sinew_quat drive[W];
        for (int k = 0; k < W; k++)
            drive[k] = sinew_quat_from_axis_angle(sinew_vec3_make(1, 0.2f * (float)k, 0.1f),
                                                  0.6f * sinf(0.4f * t + 0.5f * (float)k));
        const sinew_quat *driven = f % 3 ? NULL : drive;
        const float h = rig->params.max_step, floor_y = rig->params.floor_clearance;
        for (int w = first; w < N; w++)
            for (int k = 0; k < W; k += widths[w]) {
#if defined(DYN_LANES8)
                if (widths[w] == 8)
                    dyn_substep_lanes8(rig, chain[w], fr, turn, driven, NULL, h, 1, floor_y, out[w],
                                       NULL);
#endif
#if defined(DYN_VECTORS)
                if (widths[w] == 4)
                    dyn_substep_lanes4(rig, chain[w] + k, fr + k, turn ? turn + k : NULL,
                                       driven ? driven + k : NULL, NULL, h, 1, floor_y, out[w] + k,
                                       NULL);
#endif
                if (widths[w] == 1)
                    dyn_substep_lanes1(rig, chain[w] + k, fr + k, turn ? turn + k : NULL,
                                       driven ? driven + k : NULL, NULL, h, 1, floor_y, out[w] + k,
                                       NULL);
            }
        for (int k = 0; k < W; k++) {
            for (int w = first; w + 1 < N; w++) {
                assert_memory_equal(st[w][k], st[N - 1][k], bytes);
                assert_memory_equal(out[w][k], out[N - 1][k],
                                    sizeof(sinew_quat) * rig->joint_count);
            }
            sinew_vec3 tips[SINEW_DYN_MAX_JOINTS];
            sinew_dyn_state_get(st[N - 1][k], tips, NULL);
            for (uint32_t i = 0; i < rig->joint_count; i++)
                contacts += tips[i].y < floor_y + 1e-4f;
        }
    }
    print_message("widths %d..1: identical bits over 200 steps, %d tip contacts\n", widths[first],
                  contacts);
    assert_true(contacts > 100);
    for (int k = 0; k < W; k++)
        runner_free(&r[k]);
}

/* The step allocates nothing: glibc's heap statistics are the same before and after 2,000
 * steps of every kind (substeps, leftover steps, floor contact, teleports, run_many). */
static void test_step_allocates_nothing(void **state)
{
    (void)state;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    static runner r[5];
    fixture_opts o = {.tail_count = 6, .with_end = 1, .tail_dir = {0, -1, -0.4f}};
    for (int c = 0; c < 5; c++)
        runner_init(&r[c], &o, NULL);
    sinew_dyn_step_job jobs[5];
    struct mallinfo2 before = mallinfo2();
#ifdef DYN_COUNT_ALLOCS
    alloc_calls = 0;
    alloc_counting = 1;
#endif
    for (int f = 0; f < 400; f++) {
        float t = (float)f / 50.0f;
        for (int c = 0; c < 5; c++) {
            sinew_vec3 p;
            sinew_quat q;
            motion_violent(t + 0.2f * (float)c, 1, &p, &q);
            p.y -= 0.5f;
            if (f % 97 == 0) p.x += 20.0f;
            r[c].hips = fx_hips_world(p, q);
            fx_world(&r[c].fx, &r[c].hips, r[c].world);
            jobs[c] = (sinew_dyn_step_job){r[c].rig,
                                           r[c].st,
                                           r[c].world,
                                           r[c].fx.model.node_count,
                                           f % 3 == 0 ? 1.0f / 144.0f : 1.0f / 20.0f,
                                           r[c].rot,
                                           NULL};
        }
        if (f % 2)
            assert_int_equal(sinew_dyn_step_run_many(jobs, 5, NULL), SINEW_OK);
        else
            for (int c = 0; c < 5; c++)
                assert_int_equal(sinew_dyn_step_run(&jobs[c], NULL), SINEW_OK);
    }
#ifdef DYN_COUNT_ALLOCS
    alloc_counting = 0;
    print_message("allocations during 2,000 steps: %ld\n", (long)alloc_calls);
    assert_int_equal(alloc_calls, 0);
#endif
    struct mallinfo2 after = mallinfo2();
    assert_true(after.uordblks == before.uordblks);
    assert_true(after.hblkhd == before.hblkhd);
    for (int c = 0; c < 5; c++)
        runner_free(&r[c]);
#else
    print_message("note: not glibc >= 2.33: allocation check skipped\n");
#endif
}

extern const struct CMUnitTest dyn_floor_tests[];
extern const size_t dyn_floor_test_count;

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_hips_keep_lengths_and_bends),
        cmocka_unit_test(test_coupling_smooths_bends),
        cmocka_unit_test(test_mirrored_hips_give_mirrored_tail),
        cmocka_unit_test(test_mirrored_pair_sways_as_mirror_images),
        cmocka_unit_test(test_bind_pose_recovered_over_loaded_pose),
        cmocka_unit_test(test_rotated_terminal_bone_without_end),
        cmocka_unit_test(test_carry_shared_among_links),
        cmocka_unit_test(test_rest_curve_centres_or_keeps),
        cmocka_unit_test(test_loop_closes_after_warmup),
        cmocka_unit_test(test_loop_closes_at_odd_frame_rate),
        cmocka_unit_test(test_frame_rate_agreement),
        cmocka_unit_test(test_teleport_resets_at_rest),
        cmocka_unit_test(test_scaling_with_model_size),
        cmocka_unit_test(test_state_snapshot_and_set),
        cmocka_unit_test(test_random_violent_motions),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_many_matches_single),
        cmocka_unit_test(test_lane_widths_agree),
        cmocka_unit_test(test_step_allocates_nothing),
    };
    int failed = cmocka_run_group_tests_name("dyn", tests, NULL, NULL);
    failed +=
        _cmocka_run_group_tests("dyn_floor", dyn_floor_tests, dyn_floor_test_count, NULL, NULL);
    return failed;
}
