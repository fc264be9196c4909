/* sinew_dyn_step_run_many gives what sinew_dyn_step_run gives (include/sinew/dyn.h promises
 * it), under motion violent enough to reach every branch of the step: the hips thrown half a
 * body around at several Hz and turned by up to 100 degrees, low enough that the tail drags on
 * the floor, for ten simulated seconds (errors that grow with time have time to grow), with
 * one, two, three and eight substeps per call. Two rigs' chains are interleaved in one job
 * list so that run_many fills whole vector batches, batches of four after a wider one did not
 * fit, and runs the leftovers alone. With SINEW_DYN_TRACE set it also writes every call's
 * run_many rotations there (raw floats), so that builds with and without vector lanes can be
 * compared bit for bit (compare_builds.cmake). */
#include "test_util.h"

#include <stdlib.h>

#include "dyn_fixture.h"
#include "test_dyn_runner.h"

#define DEG ((float)(SINEW_PI / 180.0))

enum { CA = 15, CB = 6, CHAINS = CA + CB, STATE_WORDS = 1024 };

/* Hips thrown around: +-0.6 m at 2.3 and 3.7 Hz sideways and forward, a 0.35 m bob at 4.1 Hz
 * (low enough that the tail reaches the floor), yaw +-100 deg at 3 Hz, pitch +-40 deg at
 * 2.5 Hz, roll +-30 deg at 4.4 Hz. Peak hip speed ~10 m/s for the 1.91 m fixture creature. */
static void motion_thrash(float t, sinew_vec3 *p, sinew_quat *q)
{
    const float w = 6.2831853f;
    *p = sinew_vec3_make(0.6f * sinf(w * 2.3f * t), 0.55f + 0.35f * sinf(w * 4.1f * t + 0.3f),
                         0.6f * sinf(w * 3.7f * t + 1.1f));
    sinew_quat yaw =
        sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 100.0f * DEG * sinf(w * 3.0f * t));
    sinew_quat pitch = sinew_quat_from_axis_angle(sinew_vec3_make(1, 0, 0),
                                                  40.0f * DEG * sinf(w * 2.5f * t + 0.7f));
    sinew_quat roll = sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1),
                                                 30.0f * DEG * sinf(w * 4.4f * t + 2.0f));
    *q = sinew_quat_mul(yaw, sinew_quat_mul(pitch, roll));
}

/* The angle between two unit rotations, radians (atan2 keeps it accurate near zero). */
static float rotation_angle(sinew_quat a, sinew_quat b)
{
    sinew_quat d = sinew_quat_mul(sinew_quat_conjugate(a), b);
    return 2.0f * atan2f(sqrtf(d.x * d.x + d.y * d.y + d.z * d.z), fabsf(d.w));
}

/* The call's dt at simulated time t: single steps, then two, an exact eight-step hitch (the
 * substep cap), single steps, then three per call. */
static float schedule_dt(float t)
{
    if (t < 4.0f) return 1.0f / 60.0f;
    if (t < 6.0f) return 1.0f / 30.0f;
    if (t < 6.0f + 1.0f / 60.0f) return 8.0f / 60.0f;
    if (t < 8.0f) return 1.0f / 60.0f;
    return 1.0f / 20.0f;
}

typedef struct chain {
    const runner *owner; /* its rig and fixture */
    sinew_dyn_state *one, *many;
    sinew_mat4 hips, world[FX_MAX_NODES];
    sinew_quat rot_one[SINEW_DYN_MAX_JOINTS], rot_many[SINEW_DYN_MAX_JOINTS];
} chain;

/* Runs the comparison with parameters pa, pb for the two rigs (NULL: defaults); with
 * `seeded`, chain c's states get idle seed c. Writes the trace when asked. Returns the worst
 * angle between a chain's run_many rotations and the same chain's with pa, pb NULL: run
 * beside it (0 when pa and pb are NULL). */
static float compare_run_many(const sinew_dyn_params *pa, const sinew_dyn_params *pb, int seeded)
{
    static runner ra, rb, plain;
    static uint64_t mem[CHAINS][2][STATE_WORDS];
    static chain ch[CHAINS];
    const fixture_opts oa = {.tail_count = 7, .with_end = 1, .tail_dir = {0, -1, -0.4f}};
    const fixture_opts ob = {.tail_count = 4, .with_end = 1, .tail_dir = {0.2f, -0.6f, -1}};
    const char *trace_path = pa || pb ? NULL : getenv("SINEW_DYN_TRACE");
    FILE *trace = trace_path ? fopen(trace_path, "wb") : NULL;
    if (trace_path && !trace) print_error("cannot write the trace %s\n", trace_path);
    assert_true(!trace_path || trace);
    runner_init(&ra, &oa, pa);
    runner_init(&rb, &ob, pb);
    runner_init(&plain, &oa, NULL);
    static uint64_t plain_mem[STATE_WORDS];
    sinew_dyn_state *plain_state = sinew_dyn_state_init(plain.rig, plain_mem, sizeof plain_mem);
    sinew_quat plain_rot[SINEW_DYN_MAX_JOINTS];
    float idle_effect = 0;
    /* job order: A0..A9, B0..B5, A10..A14, so batches of both widths and lone jobs occur */
    for (int c = 0; c < CHAINS; c++) {
        chain *k = &ch[c];
        k->owner = (c >= 10 && c < 10 + CB) ? &rb : &ra;
        assert_true(sinew_dyn_state_bytes(k->owner->rig) <= sizeof mem[c][0]);
        k->one = sinew_dyn_state_init(k->owner->rig, mem[c][0], sizeof mem[c][0]);
        k->many = sinew_dyn_state_init(k->owner->rig, mem[c][1], sizeof mem[c][1]);
        assert_non_null(k->one);
        assert_non_null(k->many);
        if (seeded) {
            sinew_dyn_state_set_idle_seed(k->one, (uint32_t)c);
            sinew_dyn_state_set_idle_seed(k->many, (uint32_t)c);
        }
    }
    const float body = 1.91f; /* the fixture creature's size, m */
    float worst_pos = 0, worst_angle = 0, widest_bend = 0;
    long contact = 0, samples = 0;
    int calls = 0;
    for (float t = 0, dt = 0; t < 10.5f; dt = schedule_dt(t), t += dt, calls++) {
        sinew_dyn_step_job many[CHAINS];
        for (int c = 0; c < CHAINS; c++) {
            chain *k = &ch[c];
            const runner *o = k->owner;
            sinew_vec3 p;
            sinew_quat q;
            motion_thrash(t + 0.37f * (float)c, &p, &q);
            k->hips = fx_hips_world(p, q);
            fx_world(&o->fx, &k->hips, k->world);
            sinew_dyn_step_job one = {o->rig, k->one,     k->world, o->fx.model.node_count,
                                      dt,     k->rot_one, NULL};
            sinew_error err;
            assert_int_equal(sinew_dyn_step_run(&one, &err), SINEW_OK);
            if (c == 0) { /* chain 0 again with the default parameters */
                sinew_dyn_step_job p0 = one;
                p0.rig = plain.rig;
                p0.state = plain_state;
                p0.local_rotations = plain_rot;
                assert_int_equal(sinew_dyn_step_run(&p0, &err), SINEW_OK);
            }
            many[c] = one;
            many[c].state = k->many;
            many[c].local_rotations = k->rot_many;
        }
        sinew_error err;
        assert_int_equal(sinew_dyn_step_run_many(many, CHAINS, &err), SINEW_OK);
        for (int c = 0; c < CHAINS; c++) {
            chain *k = &ch[c];
            const runner *o = k->owner;
            const int n = o->fx.tail_count;
            sinew_vec3 a[SINEW_DYN_MAX_JOINTS + 1], b[SINEW_DYN_MAX_JOINTS + 1];
            fx_tail_points(&o->fx, &k->hips, k->rot_one, o->tip_offset, a, NULL);
            fx_tail_points(&o->fx, &k->hips, k->rot_many, o->tip_offset, b, NULL);
            if (trace)
                assert_int_equal(fwrite(k->rot_many, sizeof(sinew_quat), (size_t)n, trace),
                                 (size_t)n);
            for (int j = 0; j <= n; j++) {
                worst_pos = fmaxf(worst_pos, sinew_vec3_distance(a[j], b[j]) / body);
                if (a[j].y < 0.03f) contact++; /* floor 0 + clearance 0.025 */
                samples++;
            }
            if (pa || pb) /* the same bits, as dyn.h promises */
                assert_memory_equal(k->rot_one, k->rot_many, (size_t)n * sizeof(sinew_quat));
            assert_int_equal(sinew_dyn_state_resets(k->many), 0);
            for (int j = 0; c == 0 && j < n; j++)
                idle_effect = fmaxf(idle_effect, rotation_angle(plain_rot[j], k->rot_one[j]));
            for (int j = 0; j < n; j++) {
                worst_angle = fmaxf(worst_angle, rotation_angle(k->rot_one[j], k->rot_many[j]));
                const sinew_quat rest = o->fx.nodes[o->fx.tail0 + j].rest.rotation;
                widest_bend = fmaxf(widest_bend, rotation_angle(rest, k->rot_one[j]));
            }
        }
    }
    print_message("%d calls, lane width %u: run_many vs run worst position %.3e of the body, "
                  "worst rotation %.3e rad (%.4f deg); %ld of %ld samples on the floor, widest "
                  "bend from rest %.1f deg\n",
                  calls, sinew_dyn_lane_width(), (double)worst_pos, (double)worst_angle,
                  (double)(worst_angle / DEG), contact, samples, (double)(widest_bend / DEG));
    /* the motion is what the test claims: the floor is touched often, the links bend far */
    assert_true(contact > samples / 50);
    assert_true(widest_bend > 45.0f * DEG);
    assert_true(worst_pos < 1e-5f);
    assert_true(worst_angle < 1e-5f);
    if (trace) assert_int_equal(fclose(trace), 0);
    runner_free(&ra);
    runner_free(&rb);
    runner_free(&plain);
    return idle_effect;
}

static void test_run_many_matches_run_under_violent_motion(void **state)
{
    (void)state;
    compare_run_many(NULL, NULL, 0);
}

/* With idle sway on (free-running on one rig, looping every 2 s on the other) and a seed
 * per chain, run_many is still run bit for bit, and no state is ever reset. */
static void test_run_many_matches_run_with_idle_sway(void **state)
{
    (void)state;
    sinew_dyn_params pa = {0}, pb = {0};
    pa.idle = pb.idle = 20.0f * DEG;
    pb.idle_period = 2.0f;
    const float effect = compare_run_many(&pa, &pb, 1);
    print_message("idle sway moved chain 0 by up to %.1f deg\n", (double)(effect / DEG));
    assert_true(effect > 1.0f * DEG); /* the sway was really on */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_many_matches_run_under_violent_motion),
        cmocka_unit_test(test_run_many_matches_run_with_idle_sway),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
