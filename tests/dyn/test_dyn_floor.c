/* Floor contact and body grounding (after Sidorkin, "Animating tails the auto-rigger never
 * gave a bone": the tail may touch the floor, it may not lift the mouse): crouch, raised floor,
 * settling, release, never below the floor, contact never moves the body, and tail skin never
 * lifts the pelvis. */
#include "test_util.h"

#include "dyn_fixture.h"
#include "test_dyn_runner.h"

static const fixture_opts steep = {.tail_count = 6, .with_end = 1, .tail_dir = {0, -1, -0.3f}};

static float lowest(const runner *r)
{
    float lo = INFINITY;
    for (int k = 0; k <= r->fx.tail_count; k++)
        lo = fminf(lo, r->pts[k].y);
    return lo;
}

static void crouch(runner *r, float from, float to, float seconds, float *lo)
{
    int frames = (int)(seconds * 60);
    for (int f = 0; f <= frames; f++) {
        float t = (float)f / (float)frames;
        float y = from + (to - from) * (0.5f - 0.5f * cosf(3.14159265f * t));
        runner_step(r, sinew_vec3_make(0, y, 0.3f * t), sinew_quat_identity(), 1.0f / 60.0f);
        assert_true(runner_finite(r));
        assert_true(runner_length_error(r) < 1e-5f);
        *lo = fminf(*lo, lowest(r));
    }
}

static void test_crouch_keeps_tail_on_floor(void **state)
{
    (void)state;
    runner r;
    runner_init(&r, &steep, NULL);
    runner_step(&r, sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 0);
    float lo = INFINITY;
    crouch(&r, 1.0f, 0.3f, 1.0f, &lo);
    crouch(&r, 0.3f, 0.3f, 1.0f, &lo);
    float rho = 0.025f;
    print_message("crouch: lowest tail point %.5f m (floor 0, rho %.3f)\n", (double)lo,
                  (double)rho);
    assert_true(lo >= 0.0f - rho);  /* the bound: no tip below floor - rho */
    assert_true(lo >= rho - 1e-4f); /* the centre line stays rho above it */
    assert_true(lo < rho + 1e-3f);  /* and it did touch */
    /* the same crouch with the floor off goes through it, so the test can fail */
    runner off;
    sinew_dyn_params prm = {0};
    prm.disable = SINEW_DYN_NO_FLOOR;
    runner_init(&off, &steep, &prm);
    runner_step(&off, sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 0);
    float lo_off = INFINITY;
    crouch(&off, 1.0f, 0.3f, 1.0f, &lo_off);
    crouch(&off, 0.3f, 0.3f, 1.0f, &lo_off);
    print_message("crouch with the floor off: lowest %.4f\n", (double)lo_off);
    assert_true(lo_off < -0.1f);
    runner_free(&r);
    runner_free(&off);
}

static void test_raised_floor_plane(void **state)
{
    (void)state;
    runner r;
    runner_init(&r, &steep, NULL);
    sinew_dyn_floor fl = {1, 0.45f};
    r.floor = &fl;
    runner_step(&r, sinew_vec3_make(0, 1.2f, 0), sinew_quat_identity(), 0);
    float lo = INFINITY;
    crouch(&r, 1.2f, 0.8f, 1.0f, &lo);
    crouch(&r, 0.8f, 0.8f, 1.0f, &lo);
    print_message("raised floor at 0.45: lowest tail point %.5f\n", (double)lo);
    assert_true(lo >= 0.45f + 0.025f - 1e-4f);
    assert_true(lo < 0.45f + 0.025f + 1e-3f);
    runner_free(&r);
}

/* Settles on the floor (no creeping, no jitter), then lifts off when the hips rise. */
static void test_settle_then_release(void **state)
{
    (void)state;
    runner r;
    runner_init(&r, &steep, NULL);
    runner_step(&r, sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 0);
    float lo = INFINITY;
    crouch(&r, 1.0f, 0.35f, 1.0f, &lo);
    sinew_vec3 before[SINEW_DYN_MAX_JOINTS + 1];
    for (int f = 0; f < 600; f++) {
        if (f == 599) memcpy(before, r.pts, sizeof before);
        runner_step(&r, sinew_vec3_make(0, 0.35f, 0.3f), sinew_quat_identity(), 1.0f / 60.0f);
    }
    sinew_vec3 v[SINEW_DYN_MAX_JOINTS];
    sinew_dyn_state_get(r.st, NULL, v);
    float vmax = 0, moved = 0;
    for (int k = 0; k < 6; k++)
        vmax = fmaxf(vmax, sinew_vec3_length(v[k]));
    for (int k = 0; k <= 6; k++)
        moved = fmaxf(moved, sinew_vec3_distance(before[k], r.pts[k]));
    print_message("settled: max speed %.2e m/s, last-frame motion %.2e m, lowest %.4f\n",
                  (double)vmax, (double)moved, (double)lowest(&r));
    assert_true(vmax < 1e-3f);
    assert_true(moved < 1e-5f);
    assert_true(lowest(&r) < 0.025f + 1e-3f); /* still resting on it */
    crouch(&r, 0.35f, 1.1f, 0.5f, &lo);
    for (int f = 0; f < 120; f++)
        runner_step(&r, sinew_vec3_make(0, 1.1f, 0.3f), sinew_quat_identity(), 1.0f / 60.0f);
    print_message("released: lowest %.4f\n", (double)lowest(&r));
    assert_true(lowest(&r) > 0.025f + 0.05f);
    runner_free(&r);
}

/* Hips below the floor (u > 1): no segment of fixed length can reach; u is clamped, the
 * bone is not stretched and nothing lifts the body. */
static void test_head_below_floor(void **state)
{
    (void)state;
    runner r;
    runner_init(&r, &steep, NULL);
    runner_step(&r, sinew_vec3_make(0, 1, 0), sinew_quat_identity(), 0);
    for (int f = 0; f < 120; f++) {
        runner_step(&r, sinew_vec3_make(0, -0.6f, 0), sinew_quat_identity(), 1.0f / 60.0f);
        assert_true(runner_finite(&r));
        assert_true(runner_length_error(&r) < 1e-5f);
    }
    /* the tail root stays where the hips put it */
    assert_true(fabsf(r.pts[0].y - (-0.6f - 0.05f)) < 1e-5f);
    runner_free(&r);
}

/* Contact only rotates tail bones: the input transforms and the model are untouched. */
static void test_contact_never_moves_body(void **state)
{
    (void)state;
    runner r;
    runner_init(&r, &steep, NULL);
    static sinew_node nodes_before[FX_MAX_NODES];
    memcpy(nodes_before, r.fx.nodes, sizeof nodes_before);
    sinew_mat4 hw = fx_hips_world(sinew_vec3_make(0, 0.3f, 0), sinew_quat_identity());
    sinew_mat4 world[FX_MAX_NODES], world_before[FX_MAX_NODES];
    fx_world(&r.fx, &hw, world);
    memcpy(world_before, world, sizeof world);
    sinew_quat out[SINEW_DYN_MAX_JOINTS + 4];
    for (int k = 0; k < SINEW_DYN_MAX_JOINTS + 4; k++)
        out[k] = sinew_quat_make(7, 7, 7, 7);
    sinew_error err;
    for (int f = 0; f < 120; f++) {
        sinew_dyn_step_job job = {r.rig,        r.st, world, r.fx.model.node_count,
                                  1.0f / 60.0f, out,  NULL};
        assert_int_equal(sinew_dyn_step_run(&job, &err), SINEW_OK);
    }
    assert_memory_equal(world, world_before, sizeof world);
    assert_memory_equal(r.fx.nodes, nodes_before, sizeof nodes_before);
    assert_true(out[6].x == 7.0f); /* exactly joint_count rotations written */
    fx_tail_points(&r.fx, &hw, out, r.tip_offset, r.pts, NULL);
    assert_true(lowest(&r) < 0.025f + 1e-3f); /* the tail was in contact */
    runner_free(&r);
}

/* ---- grounding ---- */

/* Linear blend skinning of the fixture's mesh with the hips world and tail rotations. */
static void skin(const fixture *fx, const sinew_mat4 *hw, const sinew_quat *tail_rot,
                 sinew_vec3 *out)
{
    sinew_mat4 world[FX_MAX_NODES];
    fx_world_posed(fx, hw, tail_rot, world);
    for (uint32_t v = 0; v < fx->model.mesh.vertex_count; v++) {
        sinew_vec3 acc = sinew_vec3_make(0, 0, 0);
        for (int s = 0; s < SINEW_MAX_INFLUENCES; s++) {
            float w = fx->inf_weights[v * SINEW_MAX_INFLUENCES + (uint32_t)s];
            if (w == 0) continue;
            int j = fx->inf_joints[v * SINEW_MAX_INFLUENCES + (uint32_t)s];
            sinew_mat4 m = sinew_mat4_mul(&world[j], &fx->joints[j].inverse_bind);
            acc = sinew_vec3_madd(acc, sinew_mat4_transform_point(&m, fx->positions[v]), w);
        }
        out[v] = acc;
    }
}

static void test_tail_skin_never_lifts_pelvis(void **state)
{
    (void)state;
    static fixture fx;
    fixture_build_hanging_tail(&fx);
    sinew_dyn_rig *rig;
    sinew_error err;
    assert_int_equal(sinew_dyn_rig_create(&fx.model, NULL, NULL, NULL, &rig, &err), SINEW_OK);
    uint32_t n = fx.model.mesh.vertex_count;
    uint8_t tail[FX_MAX_VERTS], limbs[FX_MAX_VERTS];
    sinew_dyn_tail_mask(&fx.model, rig, tail);
    for (uint32_t v = 0; v < n; v++) {
        int dominant = fx.inf_joints[v * SINEW_MAX_INFLUENCES];
        assert_int_equal(tail[v], dominant >= fx.tail0 && dominant < fx.tail0 + 5);
        limbs[v] = dominant == fx.left_leg || dominant == fx.right_leg;
    }
    /* reference floors at bind: the tail would drag it below the soles */
    float ref_excl = sinew_dyn_ground_reference(fx.positions, n, NULL, tail);
    float ref_incl = sinew_dyn_ground_reference(fx.positions, n, NULL, NULL);
    print_message("reference floor: tail excluded %.3f, tail counted %.3f\n", (double)ref_excl,
                  (double)ref_incl);
    assert_true(fabsf(ref_excl - 0.0f) < 1e-6f);
    assert_true(ref_incl < -0.1f);
    assert_true(fabsf(sinew_dyn_floor_placement(fx.positions, n, tail)) < 1e-6f);

    /* a crouch frame where the clip's tail dips under the floor: the pelvis drops 0.25 and
     * the tail rotates down 20 degrees at the root */
    sinew_quat rot[5];
    for (int k = 0; k < 5; k++)
        rot[k] = fx.nodes[fx.tail0 + k].rest.rotation;
    rot[0] = sinew_quat_from_axis_angle(sinew_vec3_make(1, 0, 0), -0.35f);
    sinew_mat4 hw = fx_hips_world(sinew_vec3_make(0, 0.75f, 0), sinew_quat_identity());
    static sinew_vec3 posed[FX_MAX_VERTS];
    skin(&fx, &hw, rot, posed);
    float tail_low = INFINITY;
    for (uint32_t v = 0; v < n; v++)
        if (tail[v]) tail_low = fminf(tail_low, posed[v].y);
    assert_true(tail_low < -0.2f); /* the tail really dips under the floor */
    float allowance = 0.0f;
    float c_excl = sinew_dyn_ground_clearance(posed, n, NULL, tail, limbs, ref_excl);
    float lift_excl = sinew_dyn_ground_lift(allowance, c_excl);
    float c_incl = sinew_dyn_ground_clearance(posed, n, NULL, NULL, limbs, ref_incl);
    float lift_incl = sinew_dyn_ground_lift(allowance, c_incl);
    /* the article's bug: the tail excluded from the probe only, not from the reference */
    float c_half = sinew_dyn_ground_clearance(posed, n, NULL, tail, limbs, ref_incl);
    print_message("L_raw: tail excluded %.3f, tail counted %.3f (clearance %.3f / %.3f / "
                  "reference-only %.3f)\n",
                  (double)lift_excl, (double)lift_incl, (double)c_excl, (double)c_incl,
                  (double)c_half);
    assert_true(lift_excl == 0.0f);
    assert_true(lift_incl > 0.1f);
    /* with the body itself through the floor, the lift is what the body needs */
    sinew_mat4 deep = fx_hips_world(sinew_vec3_make(0, 0.6f, 0), sinew_quat_identity());
    skin(&fx, &deep, rot, posed);
    float lift_deep =
        sinew_dyn_ground_lift(0, sinew_dyn_ground_clearance(posed, n, NULL, tail, limbs, ref_excl));
    assert_true(fabsf(lift_deep - 0.1f) < 1e-5f);
    /* empty sets ask for nothing */
    uint8_t none[FX_MAX_VERTS] = {0};
    assert_true(sinew_dyn_ground_lift(
                    0, sinew_dyn_ground_clearance(posed, n, none, NULL, NULL, 0)) == 0.0f);
    sinew_dyn_rig_free(rig);
}

const struct CMUnitTest dyn_floor_tests[] = {
    cmocka_unit_test(test_crouch_keeps_tail_on_floor),
    cmocka_unit_test(test_raised_floor_plane),
    cmocka_unit_test(test_settle_then_release),
    cmocka_unit_test(test_head_below_floor),
    cmocka_unit_test(test_contact_never_moves_body),
    cmocka_unit_test(test_tail_skin_never_lifts_pelvis),
};
const size_t dyn_floor_test_count = sizeof dyn_floor_tests / sizeof dyn_floor_tests[0];
