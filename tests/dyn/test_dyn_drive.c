/* Rest drivers (sinew/dyn.h, "rest drivers"): a chain driven by a thigh turns its rest by the
 * driver's weight times the thigh's swing when the thigh swings toward it, not at all when it
 * swings away or twists about itself; bad drivers are refused with a message; a driver whose
 * transforms are not finite turns nothing; violent thigh motion leaves every output finite
 * and unit, with no reset; run_many gives run's bits with drivers. */
#include "test_util.h"

#include "dyn_fixture.h"
#include "test_dyn_runner.h"

#define DEG ((float)(SINEW_PI / 180.0))
#define STATES 8

/* The fixture's tail (hanging down and back from the hips, its root behind them) with a knee
 * under the left thigh; the thigh drives the tail's rest with `weight` (0: no driver). */
typedef struct driven_rig {
    fixture fx;
    int knee;
    sinew_dyn_rig *rig;
    sinew_dyn_driver driver;
} driven_rig;

static const fixture_opts tail_opts = {.tail_count = 5, .with_end = 1, .tail_dir = {0, -1, -0.5f}};

static void driven_init(driven_rig *d, float weight, const sinew_dyn_params *prm)
{
    memset(d, 0, sizeof *d);
    fixture_build(&d->fx, &tail_opts);
    d->knee = fx_add(&d->fx, "LeftLeg", d->fx.left_leg,
                     fx_trs(sinew_vec3_make(0.15f, 0.5f, 0.0f), sinew_quat_identity()));
    for (uint32_t i = 0; i < d->fx.model.node_count; i++)
        d->fx.nodes[i].name = d->fx.names[i];
    d->driver = (sinew_dyn_driver){d->fx.left_leg, d->knee, weight};
    const sinew_dyn_chain_desc desc = {
        NULL, 0, -1, NULL, 0, weight > 0 ? &d->driver : NULL, weight > 0 ? 1u : 0u};
    sinew_error err;
    const sinew_result r = sinew_dyn_rig_create(&d->fx.model, &desc, prm, NULL, &d->rig, &err);
    if (r != SINEW_OK) print_error("rig: %s\n", err.message);
    assert_int_equal(r, SINEW_OK);
}

/* The skeleton's worlds with the hips at rest and the left thigh turned by `thigh` about its
 * head (the knee follows it). */
static void worlds(const driven_rig *d, sinew_quat thigh, sinew_mat4 *world)
{
    const sinew_mat4 hips = fx_hips_world(sinew_vec3_make(0, 1, 0), sinew_quat_identity());
    fx_world(&d->fx, &hips, world);
    const sinew_mat4 turn = fx_trs(sinew_vec3_make(0, 0, 0), thigh);
    world[d->fx.left_leg] = sinew_mat4_mul(&world[d->fx.left_leg], &turn);
    const sinew_mat4 knee = sinew_mat4_from_transform(d->fx.nodes[d->knee].rest);
    world[d->knee] = sinew_mat4_mul(&world[d->fx.left_leg], &knee);
}

/* The root link's local rotation after settling 3 s with the thigh held at `thigh`. */
static sinew_quat settled_root(const driven_rig *d, sinew_quat thigh)
{
    static uint64_t mem[1024];
    sinew_dyn_state *st = sinew_dyn_state_init(d->rig, mem, sizeof mem);
    assert_non_null(st);
    sinew_mat4 world[FX_MAX_NODES];
    sinew_quat out[SINEW_DYN_MAX_JOINTS];
    worlds(d, thigh, world);
    sinew_dyn_step_job job = {d->rig, st, world, d->fx.model.node_count, 1.0f / 60, out, NULL};
    sinew_error err;
    for (int k = 0; k < 180; k++)
        assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_OK);
    assert_int_equal(sinew_dyn_state_resets(st), 0);
    return out[0];
}

static float angle_between(sinew_quat a, sinew_quat b)
{
    const sinew_quat d = sinew_quat_mul(sinew_quat_conjugate(a), b);
    return 2.0f * atan2f(sqrtf(d.x * d.x + d.y * d.y + d.z * d.z), fabsf(d.w)) / DEG;
}

static sinew_dyn_params still_params(void)
{
    sinew_dyn_params prm;
    memset(&prm, 0, sizeof prm);
    prm.disable = SINEW_DYN_NO_GRAVITY | SINEW_DYN_NO_FLOOR; /* at rest on the rest targets */
    return prm;
}

static void test_rest_turns_with_the_thigh(void **state)
{
    (void)state;
    const sinew_dyn_params prm = still_params();
    static driven_rig plain, half;
    driven_init(&plain, 0, &prm);
    driven_init(&half, 0.5f, &prm);
    assert_int_equal(sinew_dyn_rig_driver_count(half.rig), 1);
    assert_int_equal(sinew_dyn_rig_driver(half.rig, 0).tip_node, half.knee);
    assert_int_equal(sinew_dyn_rig_driver(half.rig, 1).node, -1);
    const sinew_vec3 x = sinew_vec3_make(1, 0, 0), y = sinew_vec3_make(0, 1, 0);
    /* the thigh swings back 40 degrees, toward the tail behind the hips: the rest turns by
     * half of it */
    const sinew_quat back = sinew_quat_from_axis_angle(x, 40 * DEG);
    const float toward = angle_between(settled_root(&plain, back), settled_root(&half, back));
    /* forward, away from the tail; and a twist about the thigh's own axis */
    const sinew_quat fwd = sinew_quat_from_axis_angle(x, -40 * DEG);
    const float away = angle_between(settled_root(&plain, fwd), settled_root(&half, fwd));
    const sinew_quat twist = sinew_quat_from_axis_angle(y, 50 * DEG);
    const float twisted = angle_between(settled_root(&plain, twist), settled_root(&half, twist));
    printf("root link turned %.3f degrees for a thigh 40 back, %.5f for 40 forward, %.5f for a "
           "twist of 50\n",
           (double)toward, (double)away, (double)twisted);
    assert_true(fabsf(toward - 20.0f) < 0.5f);
    assert_true(away < 0.01f);
    assert_true(twisted < 0.01f);
    /* the undriven rig does not read the thigh at all */
    assert_true(angle_between(settled_root(&plain, back), settled_root(&plain, fwd)) < 1e-5f);
    sinew_dyn_rig_free(plain.rig);
    sinew_dyn_rig_free(half.rig);
}

/* Placed at rest (the first step, a teleport, a reset), a driven chain is where the step
 * settles it: the turned rest, about the root's head that stays where it is. With the thigh
 * held 40 degrees back and no gravity, the particles after the first step are those after 10 s
 * (placement turned the root's head about the parent's origin: 0.04 to 0.09 off, links 0.16
 * long). */
static void test_placed_where_it_settles(void **state)
{
    (void)state;
    const sinew_dyn_params prm = still_params();
    static driven_rig d;
    driven_init(&d, 1.0f, &prm);
    static uint64_t mem[1024];
    sinew_dyn_state *st = sinew_dyn_state_init(d.rig, mem, sizeof mem);
    assert_non_null(st);
    sinew_mat4 world[FX_MAX_NODES];
    sinew_quat out[SINEW_DYN_MAX_JOINTS];
    worlds(&d, sinew_quat_from_axis_angle(sinew_vec3_make(1, 0, 0), 40 * DEG), world);
    sinew_dyn_step_job job = {d.rig, st, world, d.fx.model.node_count, 1.0f / 60, out, NULL};
    sinew_error err;
    assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_OK);
    const uint32_t n = sinew_dyn_rig_joint_count(d.rig);
    sinew_vec3 first[SINEW_DYN_MAX_JOINTS], settled[SINEW_DYN_MAX_JOINTS];
    sinew_dyn_state_get(st, first, NULL);
    for (int k = 0; k < 600; k++)
        assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_OK);
    sinew_dyn_state_get(st, settled, NULL);
    float worst = 0;
    for (uint32_t i = 0; i < n; i++)
        worst = fmaxf(worst, sinew_vec3_distance(first[i], settled[i]));
    printf("placed at rest vs settled, driven: largest particle difference %.2e\n", (double)worst);
    assert_true(worst < 1e-4f);
    sinew_dyn_rig_free(d.rig);
}

static void test_bad_drivers_refused(void **state)
{
    (void)state;
    static driven_rig d;
    driven_init(&d, 0, NULL);
    sinew_dyn_driver bad[SINEW_DYN_MAX_DRIVERS + 1];
    for (int k = 0; k <= SINEW_DYN_MAX_DRIVERS; k++)
        bad[k] = (sinew_dyn_driver){d.fx.left_leg, d.knee, 0.5f};
    sinew_dyn_chain_desc desc = {NULL, 0, -1, NULL, 0, bad, 1};
    sinew_dyn_rig *rig = NULL;
    sinew_error err;
    const struct {
        sinew_dyn_driver driver;
        const char *says;
    } cases[] = {
        {{99, d.knee, 0.5f}, "outside"},
        {{d.fx.left_leg, -1, 0.5f}, "outside"},
        {{d.fx.tail0 + 1, d.knee, 0.5f}, "chain joint"},
        {{d.fx.left_leg, d.fx.left_leg, 0.5f}, "no length"},
        {{d.fx.left_leg, d.knee, 1.5f}, "weight"},
        {{d.fx.left_leg, d.knee, NAN}, "weight"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bad[0] = cases[c].driver;
        assert_int_equal(sinew_dyn_rig_create(&d.fx.model, &desc, NULL, NULL, &rig, &err),
                         SINEW_ERR_ARGUMENT);
        assert_null(rig);
        assert_non_null(strstr(err.message, "driver"));
        assert_non_null(strstr(err.message, cases[c].says));
    }
    bad[0] = (sinew_dyn_driver){d.fx.left_leg, d.knee, 0.5f};
    desc.driver_count = SINEW_DYN_MAX_DRIVERS + 1;
    assert_int_equal(sinew_dyn_rig_create(&d.fx.model, &desc, NULL, NULL, &rig, &err),
                     SINEW_ERR_ARGUMENT);
    desc.drivers = NULL;
    desc.driver_count = 1;
    assert_int_equal(sinew_dyn_rig_create(&d.fx.model, &desc, NULL, NULL, &rig, &err),
                     SINEW_ERR_ARGUMENT);
    sinew_dyn_rig_free(d.rig);
}

/* 0 .. 1 from a 32-bit LCG (the same sequence everywhere). */
static float unit_random(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / 16777216.0f;
}

/* The thigh thrown about at random, up to straight up (half a turn from its bind direction),
 * at call rates from 10 to 1000 per second; then its transforms not finite. */
static void test_violent_thigh_stays_finite(void **state)
{
    (void)state;
    static driven_rig d;
    driven_init(&d, 1.0f, NULL);
    static uint64_t mem[1024];
    sinew_dyn_state *st = sinew_dyn_state_init(d.rig, mem, sizeof mem);
    sinew_mat4 world[FX_MAX_NODES];
    sinew_quat out[SINEW_DYN_MAX_JOINTS];
    sinew_dyn_step_job job = {d.rig, st, world, d.fx.model.node_count, 0, out, NULL};
    sinew_error err;
    uint32_t seed = 7;
    for (int k = 0; k < 3000; k++) {
        const sinew_vec3 axis = sinew_vec3_normalize_or(sinew_vec3_make(unit_random(&seed) - 0.5f,
                                                                        unit_random(&seed) - 0.5f,
                                                                        unit_random(&seed) - 0.5f),
                                                        sinew_vec3_make(1, 0, 0));
        const float angle = k % 97 == 0 ? (float)SINEW_PI : (float)SINEW_PI * unit_random(&seed);
        worlds(&d, sinew_quat_from_axis_angle(axis, angle), world);
        if (k >= 2900) world[d.knee].m[12 + k % 3] = k % 2 ? NAN : INFINITY;
        job.dt = k % 5 == 0 ? 0.1f : k % 3 == 0 ? 0.001f : 1.0f / 60;
        assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_OK);
        for (uint32_t i = 0; i < sinew_dyn_rig_joint_count(d.rig); i++) {
            assert_true(isfinite(out[i].x + out[i].y + out[i].z + out[i].w));
            assert_true(fabsf(sinew_quat_dot(out[i], out[i]) - 1.0f) < 1e-4f);
        }
    }
    assert_int_equal(sinew_dyn_state_resets(st), 0);
    sinew_dyn_rig_free(d.rig);
}

/* STATES chains of one driven rig, each with its own thigh motion: run_many (in lanes) and
 * run one by one give the same bits, outputs and states. */
static void test_many_matches_single_with_drivers(void **state)
{
    (void)state;
    static driven_rig d;
    driven_init(&d, 0.8f, NULL);
    const size_t bytes = sinew_dyn_state_bytes(d.rig);
    static uint64_t mem_a[STATES][1024], mem_b[STATES][1024];
    assert_true(bytes <= sizeof mem_a[0]);
    sinew_dyn_state *a[STATES], *b[STATES];
    static sinew_mat4 world[STATES][FX_MAX_NODES];
    sinew_quat out_a[STATES][SINEW_DYN_MAX_JOINTS], out_b[STATES][SINEW_DYN_MAX_JOINTS];
    sinew_dyn_step_job jobs[STATES];
    for (int s = 0; s < STATES; s++) {
        a[s] = sinew_dyn_state_init(d.rig, mem_a[s], sizeof mem_a[s]);
        b[s] = sinew_dyn_state_init(d.rig, mem_b[s], sizeof mem_b[s]);
    }
    sinew_error err;
    for (int k = 0; k < 240; k++) {
        const float t = (float)k / 60;
        for (int s = 0; s < STATES; s++) {
            const float swing = 70 * DEG * sinf(6.2831853f * (1.3f + 0.1f * (float)s) * t);
            worlds(&d, sinew_quat_from_axis_angle(sinew_vec3_make(1, 0.1f * (float)s, 0), swing),
                   world[s]);
            jobs[s] = (sinew_dyn_step_job){d.rig,     a[s],     world[s], d.fx.model.node_count,
                                           1.0f / 60, out_a[s], NULL};
        }
        assert_int_equal(sinew_dyn_step_run_many(jobs, STATES, &err), SINEW_OK);
        for (int s = 0; s < STATES; s++) {
            jobs[s].state = b[s];
            jobs[s].local_rotations = out_b[s];
            assert_int_equal(sinew_dyn_step_run(&jobs[s], &err), SINEW_OK);
            assert_memory_equal(out_a[s], out_b[s],
                                sinew_dyn_rig_joint_count(d.rig) * sizeof out_a[s][0]);
            assert_memory_equal(a[s], b[s], bytes);
        }
    }
    sinew_dyn_rig_free(d.rig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rest_turns_with_the_thigh),
        cmocka_unit_test(test_placed_where_it_settles),
        cmocka_unit_test(test_bad_drivers_refused),
        cmocka_unit_test(test_violent_thigh_stays_finite),
        cmocka_unit_test(test_many_matches_single_with_drivers),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
