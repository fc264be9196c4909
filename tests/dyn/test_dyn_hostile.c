/* The spring runtime against hostile inputs a library caller can pass: absurd parameters are
 * refused at create with the field named (never a hang: a carry of 1e16 once spun an angle
 * reduction forever), a parent frame beyond float's range is refused at the step, and a
 * state driven to overflow is put back at rest and counted in both the single and the lane
 * steps, so that no step ever returns NaN. Every test runs under an alarm: a hang fails. */
#include "test_util.h"

#include <signal.h>
#include <unistd.h>

#include "dyn_fixture.h"
#include "test_dyn_runner.h"

#define ALARM_SECONDS 30 /* each test takes well under a second; a hang is killed */

static const fixture_opts chain = {.tail_count = 6, .with_end = 1};

static sinew_result create(const sinew_dyn_params *prm, sinew_error *err)
{
    static fixture fx;
    fixture_build(&fx, &chain);
    sinew_dyn_rig *rig = NULL;
    sinew_result r = sinew_dyn_rig_create(&fx.model, NULL, prm, NULL, &rig, err);
    sinew_dyn_rig_free(rig);
    if (r != SINEW_OK) assert_null(rig);
    return r;
}

static void test_absurd_params_are_refused(void **state)
{
    (void)state;
    alarm(ALARM_SECONDS);
    static const struct {
        size_t offset;
        const char *name;
        float value;
    } cases[] = {
        {offsetof(sinew_dyn_params, carry), "carry", 1e16f},
        {offsetof(sinew_dyn_params, carry), "carry", -0.5f},
        {offsetof(sinew_dyn_params, carry), "carry", INFINITY},
        {offsetof(sinew_dyn_params, frequency_root), "frequency_root", 1e6f},
        {offsetof(sinew_dyn_params, frequency_tip), "frequency_tip", 1e30f},
        {offsetof(sinew_dyn_params, damping_ratio), "damping_ratio", 1e9f},
        {offsetof(sinew_dyn_params, gravity), "gravity", 1e30f},
        {offsetof(sinew_dyn_params, curvature), "curvature", 1e16f},
        {offsetof(sinew_dyn_params, bend_limit), "bend_limit", 1e16f},
        {offsetof(sinew_dyn_params, max_step), "max_step", 1e9f},
        {offsetof(sinew_dyn_params, reference_size), "reference_size", 1e30f},
        {offsetof(sinew_dyn_params, teleport_distance), "teleport_distance", NAN},
        {offsetof(sinew_dyn_params, floor_height), "floor_height", -1e30f},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sinew_dyn_params prm = {0};
        memcpy((char *)&prm + cases[i].offset, &cases[i].value, sizeof(float));
        sinew_error err = {0};
        assert_int_equal(create(&prm, &err), SINEW_ERR_ARGUMENT);
        print_message("%s = %g: %s\n", cases[i].name, (double)cases[i].value, err.message);
        assert_non_null(strstr(err.message, cases[i].name));
        assert_int_equal(sinew_dyn_params_check(&prm, NULL), SINEW_ERR_ARGUMENT);
    }
    /* Inside the ranges but too fast for the step: the semi-implicit spring would grow. */
    sinew_dyn_params prm = {0};
    prm.frequency_root = 50.0f;
    sinew_error err = {0};
    assert_int_equal(create(&prm, &err), SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "stable"));
    /* ... and fine with a step short enough for it. */
    prm.max_step = 0.5f * sinew_dyn_stable_frequency(0.65f, 1.0f) / 50.0f;
    assert_int_equal(create(&prm, NULL), SINEW_OK);
    /* The ends of every published range are accepted (the highest frequency with the step
     * it needs). */
    static const char *names[] = {
        "frequency_root",    "damping_ratio",   "gravity",         "carry",
        "rest_curve",        "curvature",       "coupling_rate",   "bend_limit",
        "floor_height",      "floor_clearance", "contact_damping", "max_step",
        "teleport_distance", "reference_size",  "bind_limit"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        float lo, hi;
        assert_true(sinew_dyn_param_range(names[i], &lo, &hi));
        assert_true(lo < hi);
    }
    assert_false(sinew_dyn_param_range("no_such_field", NULL, NULL));
    float lo, hi;
    assert_true(sinew_dyn_param_range("carry", &lo, &hi));
    prm = (sinew_dyn_params){0};
    prm.carry = hi;
    prm.bend_limit = (float)SINEW_PI;
    prm.bind_limit = (float)SINEW_PI;
    assert_int_equal(create(&prm, NULL), SINEW_OK);
    alarm(0);
}

static int state_finite(const runner *r)
{
    sinew_vec3 p[SINEW_DYN_MAX_JOINTS], v[SINEW_DYN_MAX_JOINTS];
    sinew_dyn_state_get(r->st, p, v);
    for (int k = 0; k < r->fx.tail_count; k++)
        if (!isfinite(p[k].x + p[k].y + p[k].z + v[k].x + v[k].y + v[k].z)) return 0;
    return runner_finite(r);
}

/* A parent scaled by 1e20 once turned the state to NaN while the step returned OK. */
static void test_parent_beyond_float_is_refused(void **state)
{
    (void)state;
    alarm(ALARM_SECONDS);
    runner r;
    runner_init(&r, &chain, NULL);
    runner_step(&r, sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 0);
    size_t bytes = sinew_dyn_state_bytes(r.rig);
    static uint64_t before[1024];
    memcpy(before, r.st, bytes);
    static const float scales[] = {1e20f, 1e16f};
    for (size_t i = 0; i < 2; i++) {
        sinew_mat4 hips = fx_hips_world(sinew_vec3_make(0, 1, 0), sinew_quat_identity());
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                hips.m[c * 4 + k] *= scales[i];
        fx_world(&r.fx, &hips, r.world);
        sinew_dyn_step_job job = {r.rig,        r.st,  r.world, r.fx.model.node_count,
                                  1.0f / 60.0f, r.rot, NULL};
        sinew_error err = {0};
        assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_ERR_INVALID_VALUE);
        assert_non_null(strstr(err.message, "scale"));
        assert_memory_equal(before, r.st, bytes);
        assert_int_equal(sinew_dyn_step_run_many(&job, 1, &err), SINEW_ERR_INVALID_VALUE);
    }
    /* A large but representable scene steps, finite. */
    runner_step(&r, sinew_vec3_make(1e9f, 1, 0), sinew_quat_identity(), 1.0f / 60.0f);
    runner_step(&r, sinew_vec3_make(1e9f, 1, 0.5f), sinew_quat_identity(), 1.0f / 60.0f);
    assert_true(state_finite(&r));
    runner_free(&r);
    alarm(0);
}

/* Particles set where the spring's arithmetic overflows: the step puts the chain back at
 * rest, counts it, and returns finite rotations, alone and in lanes, with the same bits. */
static void test_overflowing_state_is_reset(void **state)
{
    (void)state;
    alarm(ALARM_SECONDS);
    enum { C = 9 }; /* a batch of 8 (or two of 4) in lanes, then one alone */
    static runner single[C], many[C];
    sinew_dyn_params prm = {0};
    prm.disable = SINEW_DYN_NO_TELEPORT; /* else the far particles would not matter */
    sinew_dyn_step_job jobs[C];
    for (int c = 0; c < C; c++) {
        runner_init(&single[c], &chain, &prm);
        runner_init(&many[c], &chain, &prm);
        if (c > 0) { /* lanes run chains of one rig: share many[0]'s */
            sinew_dyn_rig_free(many[c].rig);
            many[c].rig = many[0].rig;
            many[c].st = sinew_dyn_state_init(many[0].rig, many[c].mem, sizeof many[c].mem);
        }
        runner_step(&single[c], sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 0);
        runner_step(&many[c], sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 0);
    }
    for (int f = 1; f <= 30; f++) {
        for (int c = 0; c < C; c++) {
            if (f == 10 && c % 2 == 0) { /* every other chain, in the middle of a batch */
                sinew_vec3 p[SINEW_DYN_MAX_JOINTS], v[SINEW_DYN_MAX_JOINTS];
                for (int k = 0; k < chain.tail_count; k++) {
                    p[k] = sinew_vec3_make(3e37f, -3e37f, 3e37f);
                    v[k] = sinew_vec3_make(-3e38f, 3e38f, 0);
                }
                assert_int_equal(sinew_dyn_state_set(single[c].st, p, v, NULL), SINEW_OK);
                assert_int_equal(sinew_dyn_state_set(many[c].st, p, v, NULL), SINEW_OK);
            }
            sinew_vec3 hp = sinew_vec3_make(0.1f * sinf((float)f), 1, 0);
            runner_step(&single[c], hp, sinew_quat_identity(), 1.0f / 60.0f);
            assert_true(state_finite(&single[c]));
            many[c].hips = fx_hips_world(hp, sinew_quat_identity());
            fx_world(&many[c].fx, &many[c].hips, many[c].world);
            jobs[c] = (sinew_dyn_step_job){
                many[c].rig,  many[c].st,  many[c].world, many[c].fx.model.node_count,
                1.0f / 60.0f, many[c].rot, NULL};
        }
        assert_int_equal(sinew_dyn_step_run_many(jobs, C, NULL), SINEW_OK);
        for (int c = 0; c < C; c++) {
            for (int k = 0; k < chain.tail_count; k++)
                assert_true(isfinite(many[c].rot[k].x + many[c].rot[k].y + many[c].rot[k].z +
                                     many[c].rot[k].w));
            sinew_vec3 a[SINEW_DYN_MAX_JOINTS], b[SINEW_DYN_MAX_JOINTS];
            sinew_dyn_state_get(single[c].st, a, NULL);
            sinew_dyn_state_get(many[c].st, b, NULL);
            for (int k = 0; k < chain.tail_count; k++)
                assert_true(isfinite(b[k].x + b[k].y + b[k].z));
            if (f == 10) {
                /* the reset chains sit at rest: what the first step of a state gives */
                uint32_t want = c % 2 == 0 ? 1u : 0u;
                assert_int_equal(sinew_dyn_state_resets(single[c].st), want);
                assert_int_equal(sinew_dyn_state_resets(many[c].st), want);
            }
        }
    }
#if defined(SINEW_DYN_PORTABLE)
    assert_int_equal(sinew_dyn_lane_width(), 1); /* the build without lanes: all alone */
#else
    assert_true(sinew_dyn_lane_width() >= 4); /* the batches above ran in lanes */
#endif
    for (int c = 0; c < C; c++) {
        runner_free(&single[c]);
        if (c > 0) many[c].rig = NULL; /* shared */
        runner_free(&many[c]);
    }
    alarm(0);
}

/* Random violent inputs inside every published range (parameters drawn from
 * sinew_dyn_param_range, step chosen stable) with large jumps, spins and time steps: never a
 * NaN, never a reset. */
static uint32_t rng = 0x9e3779b9u;
static float frand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return (float)(rng & 0xffffff) / (float)0x1000000;
}
static float draw(const char *name)
{
    float lo, hi;
    assert_true(sinew_dyn_param_range(name, &lo, &hi));
    float t = frand();
    return t < 0.1f ? lo : t > 0.9f ? hi : lo + (hi - lo) * t * t * t; /* ends, then low */
}

static void test_random_params_in_range_stay_finite(void **state)
{
    (void)state;
    alarm(ALARM_SECONDS);
    uint32_t resets = 0;
    for (int trial = 0; trial < 200; trial++) {
        sinew_dyn_params prm = {0};
        prm.frequency_root = draw("frequency_root");
        prm.frequency_tip = draw("frequency_tip");
        prm.damping_ratio = draw("damping_ratio");
        prm.gravity = draw("gravity");
        prm.carry = draw("carry");
        prm.rest_curve = draw("rest_curve");
        prm.curvature = (frand() - 0.5f) * 2.0f * draw("curvature");
        prm.coupling_rate = draw("coupling_rate");
        prm.bend_limit = draw("bend_limit");
        prm.bind_limit = draw("bind_limit");
        prm.contact_damping = draw("contact_damping");
        prm.floor_clearance = 0.01f * draw("floor_clearance");
        float fastest = fmaxf(prm.frequency_root, prm.frequency_tip);
        prm.max_step = fminf(
            1.0f / 60.0f, 0.9f / (fastest / sinew_dyn_stable_frequency(prm.damping_ratio, 1.0f)));
        prm.max_substeps = 1000;
        assert_int_equal(sinew_dyn_params_check(&prm, NULL), SINEW_OK);
        runner r;
        fixture_opts o = {.tail_count = 1 + trial % 8, .with_end = trial & 1};
        runner_init(&r, &o, &prm);
        sinew_vec3 p = sinew_vec3_make(0, 1, 0);
        for (int f = 0; f < 12; f++) {
            p = sinew_vec3_add(p, sinew_vec3_make((frand() - 0.5f) * 1e3f, (frand() - 0.5f) * 1e3f,
                                                  (frand() - 0.5f) * 1e3f));
            sinew_quat q = sinew_quat_normalize(
                sinew_quat_make(frand() - 0.5f, frand() - 0.5f, frand() - 0.5f, frand() - 0.5f));
            runner_step(&r, p, q, frand() * 0.1f);
            assert_true(state_finite(&r));
        }
        resets += sinew_dyn_state_resets(r.st);
        runner_free(&r);
    }
    print_message("200 runs with random parameters in range: %u resets\n", resets);
    assert_int_equal(resets, 0);
    alarm(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_absurd_params_are_refused),
        cmocka_unit_test(test_parent_beyond_float_is_refused),
        cmocka_unit_test(test_overflowing_state_is_reset),
        cmocka_unit_test(test_random_params_in_range_stay_finite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
