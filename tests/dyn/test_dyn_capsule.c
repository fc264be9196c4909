/* Body colliders (sinew/dyn.h, "body colliders"): a tail swung hard into a post beside it stays
 * outside the post's capsule, with no NaN and without a write to the body's transforms; the
 * same without the capsule enters it (the motion is what the test claims); run_many gives
 * run's bits with capsules; bad capsules are refused with a message, and capsule ends that are
 * not finite are never touched. */
#include "test_util.h"

#include <stdlib.h>

#include "dyn_fixture.h"
#include "test_dyn_runner.h"

#define DEG ((float)(SINEW_PI / 180.0))

/* A 7-link tail hanging down and back, and a vertical post under the Root (it never moves
 * with the hips) at x = 0.3, z = -0.45, beside where the tail hangs: the hips' yaw swings
 * the tail through it. */
static const fixture_opts tail_opts = {.tail_count = 7, .with_end = 1, .tail_dir = {0, -1, -0.6f}};
#define POST_RADIUS 0.06f

typedef struct post_rig {
    runner r;
    int post_top, post_bottom;
    sinew_dyn_capsule capsule;
} post_rig;

/* The fixture with the post's two nodes; a rig with the post as its one capsule when
 * `with_capsule`, else none (the same chain). */
static void post_rig_init(post_rig *p, const sinew_dyn_params *prm, int with_capsule)
{
    static fixture fx;
    fixture_build(&fx, &tail_opts);
    p->post_top = fx_add(&fx, "PostTop", 0,
                         fx_trs(sinew_vec3_make(0.3f, 1.1f, -0.45f), sinew_quat_identity()));
    p->post_bottom = fx_add(&fx, "PostBottom", p->post_top,
                            fx_trs(sinew_vec3_make(0.3f, 0.1f, -0.45f), sinew_quat_identity()));
    runner_init_fixture(&p->r, &fx, prm);
    sinew_dyn_rig_free(p->r.rig);
    p->capsule = (sinew_dyn_capsule){p->post_top, p->post_bottom, POST_RADIUS, 0.0f};
    sinew_dyn_chain_desc desc = {
        NULL, 0, -1, with_capsule ? &p->capsule : NULL, with_capsule ? 1u : 0u, NULL, 0};
    sinew_error err;
    sinew_result res = sinew_dyn_rig_create(&p->r.fx.model, &desc, prm, NULL, &p->r.rig, &err);
    if (res != SINEW_OK) print_error("rig: %s\n", err.message);
    assert_int_equal(res, SINEW_OK);
    p->r.st = sinew_dyn_state_init(p->r.rig, p->r.mem, sizeof p->r.mem);
    assert_non_null(p->r.st);
}

/* The hips yawing +-70 degrees at 1.7 Hz and bobbing: the tail whips sideways through the
 * post, with `violent` much faster and thrown about as well. */
static void swing(float t, int violent, sinew_vec3 *pos, sinew_quat *q)
{
    const float w = 6.2831853f;
    if (!violent) {
        *pos = sinew_vec3_make(0, 1.0f + 0.05f * sinf(w * 2.1f * t), 0);
        *q = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 70.0f * DEG * sinf(w * 1.7f * t));
        return;
    }
    *pos = sinew_vec3_make(0.15f * sinf(w * 3.3f * t), 1.0f + 0.3f * sinf(w * 4.1f * t),
                           0.15f * sinf(w * 2.7f * t + 1.0f));
    sinew_quat yaw =
        sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 100.0f * DEG * sinf(w * 4.0f * t));
    sinew_quat pitch = sinew_quat_from_axis_angle(sinew_vec3_make(1, 0, 0),
                                                  40.0f * DEG * sinf(w * 2.9f * t + 0.5f));
    *q = sinew_quat_mul(yaw, pitch);
}

/* The deepest any particle (link tip) went into the post, as a fraction of its contact
 * radius (0: never inside), over `seconds` of swing at 60 calls per second (30 for the
 * violent one: two substeps a call). Checks every step: finite, lengths kept, no reset, the
 * world transforms the step read unchanged. */
static float deepest_into_post(post_rig *p, int violent, float seconds)
{
    runner *r = &p->r;
    const float dt = violent ? 1.0f / 30.0f : 1.0f / 60.0f;
    const sinew_vec3 a = sinew_mat4_translation(&r->fx.bind[p->post_top]);
    const sinew_vec3 b = sinew_mat4_translation(&r->fx.bind[p->post_bottom]);
    float deepest = 0;
    for (float t = 0; t < seconds; t += dt) {
        sinew_vec3 pos;
        sinew_quat q;
        swing(t, violent, &pos, &q);
        r->hips = fx_hips_world(pos, q);
        fx_world(&r->fx, &r->hips, r->world);
        sinew_mat4 before[FX_MAX_NODES];
        memcpy(before, r->world, sizeof before);
        sinew_dyn_step_job job = {r->rig,         r->st,  r->world, r->fx.model.node_count,
                                  t > 0 ? dt : 0, r->rot, NULL};
        sinew_error err;
        assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_OK);
        assert_memory_equal(before, r->world, sizeof before); /* the body is only read */
        fx_tail_points(&r->fx, &r->hips, r->rot, r->tip_offset, r->pts, NULL);
        assert_true(runner_finite(r));
        assert_true(runner_length_error(r) < 1e-4f);
        for (int k = 0; k < r->fx.tail_count; k++) {
            /* the contact radius the runtime keeps (the post's own when it has none) */
            float R = sinew_dyn_rig_capsule_count(r->rig)
                          ? sinew_dyn_rig_contact_radius(r->rig, (uint32_t)k, 0)
                          : POST_RADIUS;
            float d = sinew_segment_distance(r->pts[k + 1], a, b);
            deepest = fmaxf(deepest, 1.0f - d / R);
        }
    }
    assert_int_equal(sinew_dyn_state_resets(r->st), 0);
    return deepest;
}

static void test_tail_swung_into_a_post_stays_outside(void **state)
{
    (void)state;
    static post_rig with, without;
    post_rig_init(&without, NULL, 0);
    post_rig_init(&with, NULL, 1);
    /* the fixture's tail skin lies on its bones: the contact radius is the post's */
    assert_float_equal(sinew_dyn_rig_contact_radius(with.r.rig, 3, 0), POST_RADIUS, 1e-3f);
    const float free_depth = deepest_into_post(&without, 0, 4.0f);
    const float held_depth = deepest_into_post(&with, 0, 4.0f);
    print_message("deepest into the post: %.3f of its radius without the capsule, %.5f with\n",
                  (double)free_depth, (double)held_depth);
    assert_true(free_depth > 0.5f); /* without it the tail passes through the post */
    assert_true(held_depth < 1e-3f);
    runner_free(&with.r);
    runner_free(&without.r);
}

static void test_violent_motion_stays_outside_and_finite(void **state)
{
    (void)state;
    static post_rig with, without;
    post_rig_init(&without, NULL, 0);
    post_rig_init(&with, NULL, 1);
    const float free_depth = deepest_into_post(&without, 1, 6.0f);
    const float held_depth = deepest_into_post(&with, 1, 6.0f);
    print_message("violent: deepest %.3f of the radius without the capsule, %.5f with\n",
                  (double)free_depth, (double)held_depth);
    assert_true(free_depth > 0.5f);
    assert_true(held_depth < 1e-3f);
    runner_free(&with.r);
    runner_free(&without.r);
}

/* run_many with capsules gives run's bits: 13 chains of one rig (a batch of eight or two of
 * four, then one alone), each with its own hips motion, two substeps per call so that the
 * capsules are interpolated. */
static void test_run_many_matches_run_with_capsules(void **state)
{
    (void)state;
    enum { CHAINS = 13 };
    static post_rig p;
    post_rig_init(&p, NULL, 1);
    runner *r = &p.r;
    static uint64_t mem[CHAINS][2][1024];
    static sinew_mat4 world[CHAINS][FX_MAX_NODES];
    static sinew_quat rot_one[CHAINS][SINEW_DYN_MAX_JOINTS], rot_many[CHAINS][SINEW_DYN_MAX_JOINTS];
    sinew_dyn_state *one[CHAINS], *many[CHAINS];
    for (int c = 0; c < CHAINS; c++) {
        assert_true(sinew_dyn_state_bytes(r->rig) <= sizeof mem[c][0]);
        one[c] = sinew_dyn_state_init(r->rig, mem[c][0], sizeof mem[c][0]);
        many[c] = sinew_dyn_state_init(r->rig, mem[c][1], sizeof mem[c][1]);
    }
    long touching = 0;
    const sinew_vec3 a = sinew_mat4_translation(&r->fx.bind[p.post_top]);
    const sinew_vec3 b = sinew_mat4_translation(&r->fx.bind[p.post_bottom]);
    for (int f = 0; f < 240; f++) {
        const float dt = f ? 1.0f / 30.0f : 0.0f, t = (float)f / 30.0f;
        sinew_dyn_step_job jobs[CHAINS];
        for (int c = 0; c < CHAINS; c++) {
            sinew_vec3 pos;
            sinew_quat q;
            swing(t + 0.23f * (float)c, c % 2, &pos, &q);
            sinew_mat4 hips = fx_hips_world(pos, q);
            fx_world(&r->fx, &hips, world[c]);
            sinew_dyn_step_job job = {r->rig, one[c],     world[c], r->fx.model.node_count,
                                      dt,     rot_one[c], NULL};
            sinew_error err;
            assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_OK);
            jobs[c] = job;
            jobs[c].state = many[c];
            jobs[c].local_rotations = rot_many[c];
            sinew_vec3 pts[SINEW_DYN_MAX_JOINTS + 1];
            fx_tail_points(&r->fx, &hips, rot_one[c], r->tip_offset, pts, NULL);
            for (int k = 0; k < r->fx.tail_count; k++)
                touching += sinew_segment_distance(pts[k + 1], a, b) <
                            sinew_dyn_rig_contact_radius(r->rig, (uint32_t)k, 0) * 1.01f;
        }
        sinew_error err;
        assert_int_equal(sinew_dyn_step_run_many(jobs, CHAINS, &err), SINEW_OK);
        for (int c = 0; c < CHAINS; c++)
            assert_memory_equal(rot_one[c], rot_many[c],
                                (size_t)r->fx.tail_count * sizeof(sinew_quat));
    }
    print_message("lane width %u: run_many = run bit for bit with a capsule; %ld particle "
                  "samples touching it\n",
                  sinew_dyn_lane_width(), touching);
    assert_true(touching > 100); /* the contact path really ran */
    runner_free(r);
}

static void test_bad_capsules_are_refused(void **state)
{
    (void)state;
    static post_rig p;
    post_rig_init(&p, NULL, 1);
    runner *r = &p.r;
    sinew_dyn_rig *rig = NULL;
    sinew_error err;
    sinew_dyn_capsule bad[2] = {{p.post_top, 99, 0.1f, 0.0f},
                                {p.post_top, p.post_bottom, 0.1f, 0.0f}};
    sinew_dyn_chain_desc desc = {NULL, 0, -1, bad, 1, NULL, 0};
    assert_int_equal(sinew_dyn_rig_create(&r->fx.model, &desc, NULL, NULL, &rig, &err),
                     SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "capsule 0"));
    bad[0] = (sinew_dyn_capsule){p.post_top, p.post_bottom, -1.0f, 0.0f};
    assert_int_equal(sinew_dyn_rig_create(&r->fx.model, &desc, NULL, NULL, &rig, &err),
                     SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "radius"));
    bad[0] = (sinew_dyn_capsule){p.post_top, p.post_bottom, 0.1f, 1.0f};
    assert_int_equal(sinew_dyn_rig_create(&r->fx.model, &desc, NULL, NULL, &rig, &err),
                     SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "start"));
    bad[0] = (sinew_dyn_capsule){r->fx.tail0 + 2, p.post_bottom, 0.1f, 0.0f};
    assert_int_equal(sinew_dyn_rig_create(&r->fx.model, &desc, NULL, NULL, &rig, &err),
                     SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "chain joint"));
    desc.capsule_count = SINEW_DYN_MAX_CAPSULES + 1;
    assert_int_equal(sinew_dyn_rig_create(&r->fx.model, &desc, NULL, NULL, &rig, &err),
                     SINEW_ERR_ARGUMENT);
    assert_null(rig);
    /* a capsule end that is not finite, or far beyond the reach of float squares, is not
     * refused: the chain swings on, finite, never reset */
    const float bad_ends[2] = {NAN, 1e30f};
    for (int b = 0; b < 2; b++) {
        for (int f = 0; f < 120; f++) {
            sinew_vec3 pos;
            sinew_quat q;
            swing((float)f / 60.0f, 1, &pos, &q);
            r->hips = fx_hips_world(pos, q);
            fx_world(&r->fx, &r->hips, r->world);
            r->world[p.post_bottom].m[12] = bad_ends[b];
            sinew_dyn_step_job job = {
                r->rig, r->st, r->world, r->fx.model.node_count, f ? 1.0f / 60.0f : 0.0f,
                r->rot, NULL};
            assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_OK);
            fx_tail_points(&r->fx, &r->hips, r->rot, r->tip_offset, r->pts, NULL);
            assert_true(runner_finite(r));
        }
        assert_int_equal(sinew_dyn_state_resets(r->st), 0);
    }
    runner_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tail_swung_into_a_post_stays_outside),
        cmocka_unit_test(test_violent_motion_stays_outside_and_finite),
        cmocka_unit_test(test_run_many_matches_run_with_capsules),
        cmocka_unit_test(test_bad_capsules_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
