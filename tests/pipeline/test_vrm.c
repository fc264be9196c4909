/* The VRM spring-bone fit (sinew/vrm.h): its parameters are the linear match of the two
 * recursions (docs/vrm-springs.md), exact for one link in the linear regime; the refinement
 * takes most of the large-swing error back; a damping VRM cannot express is flagged; and the
 * tail job with vrm_springs writes VRMC_springBone with its colliders, limits and rest arc,
 * listed in extensionsUsed only. */
#include "test_util.h"

#include <cjson/cJSON.h>

#include "dyn/dyn_fixture.h"
#include "sinew/creature.h"
#include "sinew/pipeline.h"
#include "sinew/vrm.h"

static void fit_fixture(int links, const sinew_dyn_params *p, sinew_vrm_fit *fit)
{
    static fixture fx;
    fixture_opts o = {.tail_count = links, .with_end = 1, .with_mesh = 1};
    fixture_build(&fx, &o);
    sinew_error err = {0};
    sinew_result r = sinew_vrm_fit_chain(&fx.model, p, fit, &err);
    if (r) print_message("%s\n", err.message);
    assert_int_equal(r, SINEW_OK);
    assert_int_equal(fit->joint_count, (uint32_t)links);
}

/* Every joint is the linear match times the chain's two refinement scales. */
static void test_parameters_are_the_linear_match(void **state)
{
    (void)state;
    sinew_vrm_fit fit;
    fit_fixture(5, NULL, &fit);
    const double h = 1.0 / SINEW_VRM_RATE;
    for (uint32_t i = 0; i < fit.joint_count; i++) {
        const sinew_vrm_joint *j = &fit.joints[i];
        const double w = 2 * SINEW_PI * j->frequency, s = 1 - w * w * h * h;
        const double k = j->stiffness * h / j->length / fit.stiffness_scale;
        assert_true(fabs(k - (1 / s - 1)) < 1e-4 * (1 / s - 1));
        const double keep = (1 - j->drag_force) / fit.retain_scale;
        assert_true(fabs(keep - (1 - 2 * j->damping_ratio * w * h) / s) < 1e-4);
        assert_true(fabs(j->gravity_power / fit.stiffness_scale - fit.gravity * h / s) <
                    1e-4 * fit.gravity);
        assert_true(j->hit_radius >= 0); /* the fixture's tail skin lies on its centre line */
        assert_false(j->clamped);
    }
    /* the tip link's spring is half the root's (sinew's default) */
    assert_float_equal(fit.joints[4].frequency, fit.joints[0].frequency / 2, 1e-5);
}

/* One link, nothing but the spring: VRM with the linear match follows sinew to within the
 * nonlinearity of a 20-degree swing (a wrong drag or stiffness formula is off by tens). */
static void test_one_link_matches_in_the_linear_regime(void **state)
{
    (void)state;
    sinew_dyn_params p;
    memset(&p, 0, sizeof p);
    p.disable = SINEW_DYN_NO_COUPLING | SINEW_DYN_NO_LIMIT | SINEW_DYN_NO_FORWARD_PLANE |
                SINEW_DYN_NO_GRAVITY | SINEW_DYN_NO_CARRY;
    sinew_vrm_fit fit;
    fit_fixture(1, &p, &fit);
    print_message("one link: linear match %.2f° RMS of a %.1f° swing\n",
                  (double)fit.linear_error_degrees, (double)fit.swing_degrees);
    assert_true(fit.swing_degrees > 10);
    assert_true(fit.linear_error_degrees < 1.5f);
    assert_true(fit.error_degrees <= fit.linear_error_degrees);
}

/* A chain with every mechanism on: the linear match whips, the refinement brings it back. */
static void test_refinement_takes_the_whip_back(void **state)
{
    (void)state;
    sinew_vrm_fit fit;
    fit_fixture(5, NULL, &fit);
    print_message("five links: linear %.2f°, refined %.2f° (%.1f%% of %.1f°)\n",
                  (double)fit.linear_error_degrees, (double)fit.error_degrees,
                  (double)fit.error_percent, (double)fit.swing_degrees);
    assert_true(fit.error_degrees < fit.linear_error_degrees / 3);
    assert_float_equal(fit.error_percent, 100 * fit.error_degrees / fit.swing_degrees, 1e-3);
    assert_true(fit.cone_angle > 0 && fit.floor && fit.forward_plane);
}

/* zeta below pi f h: dragForce would be negative, so it is 0 and every joint says so. */
static void test_light_damping_is_flagged(void **state)
{
    (void)state;
    sinew_dyn_params p;
    memset(&p, 0, sizeof p);
    p.damping_ratio = 0.02f;
    sinew_vrm_fit fit;
    fit_fixture(5, &p, &fit);
    assert_int_equal(fit.clamped, 5);
    for (uint32_t i = 0; i < fit.joint_count; i++) {
        const sinew_vrm_joint *j = &fit.joints[i];
        assert_true(j->clamped);
        assert_float_equal(j->min_damping, SINEW_PI * j->frequency / SINEW_VRM_RATE, 1e-6);
        assert_true(j->drag_force >= 0 && j->drag_force <= 1);
    }
}

/* A chain that is not in any document cannot be written: an error naming the node. */
static void test_apply_refuses_a_chain_outside_the_document(void **state)
{
    (void)state;
    static fixture fx;
    fixture_opts o = {.tail_count = 3, .with_end = 1, .with_mesh = 1};
    fixture_build(&fx, &o);
    sinew_vrm_fit fit;
    sinew_error err = {0};
    assert_int_equal(sinew_vrm_fit_chain(&fx.model, NULL, &fit, &err), SINEW_OK);
    sinew_model *m = NULL;
    sinew_document *doc = NULL;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_MOUSE, NULL, &m, NULL, NULL), SINEW_OK);
    assert_int_equal(sinew_document_from_model(m, &doc, NULL), SINEW_OK);
    assert_int_equal(sinew_vrm_apply_document(doc, &fx.model, &fit, &err), SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "Tail_1"));
    sinew_document_free(doc);
    sinew_model_free(m);
}

static int listed(const cJSON *root, const char *key, const char *name)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, key))
    {
        if (cJSON_IsString(item) && !strcmp(item->valuestring, name)) return 1;
    }
    return 0;
}

/* The tail job on the procedural mouse with vrm_springs: what lands in the file. */
static void test_tail_job_writes_the_extension(void **state)
{
    (void)state;
    sinew_model *m = NULL;
    sinew_document *doc = NULL;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_MOUSE, NULL, &m, NULL, NULL), SINEW_OK);
    assert_int_equal(sinew_document_from_model(m, &doc, NULL), SINEW_OK);
    sinew_tail_options o;
    memset(&o, 0, sizeof o);
    o.vrm_springs = 1;
    o.no_guard = 1;
    sinew_tail_result run;
    sinew_error err = {0};
    assert_int_equal(sinew_tail_run(doc, &o, &run, &err), SINEW_OK);
    assert_true(run.vrm);
    sinew_bytes glb;
    assert_int_equal(sinew_document_write_glb_memory(doc, &glb, &err), SINEW_OK);
    uint32_t json_len;
    memcpy(&json_len, (const uint8_t *)glb.data + 12, 4);
    cJSON *root = cJSON_ParseWithLength((const char *)glb.data + 20, json_len);
    assert_non_null(root);
    for (int k = 0; k < 3; k++) {
        static const char *names[3] = {"VRMC_springBone", "VRMC_springBone_extended_collider",
                                       "VRMC_springBone_limit"};
        assert_true(listed(root, "extensionsUsed", names[k]));
        assert_false(listed(root, "extensionsRequired", names[k]));
    }
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "extensions"), "VRMC_springBone");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ext, "specVersion")),
                        "1.0");
    const cJSON *colliders = cJSON_GetObjectItemCaseSensitive(ext, "colliders");
    assert_int_equal(cJSON_GetArraySize(colliders), 2);
    const cJSON *c;
    cJSON_ArrayForEach(c, colliders)
    {
        /* the plane, and its fallback: a sphere of 1000 sizes touching it */
        const cJSON *plane = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "extensions"),
                                                 "VRMC_springBone_extended_collider"),
                "shape"),
            "plane");
        assert_non_null(plane);
        const cJSON *sphere = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(c, "shape"), "sphere");
        assert_float_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(sphere, "radius")),
                           1000.0 * run.vrm_fit.reference_size, 1e-3 * run.vrm_fit.reference_size);
    }
    const cJSON *spring = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ext, "springs"), 0);
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(spring, "joints");
    const uint32_t n = run.vrm_fit.joint_count;
    assert_true(n >= 3);
    assert_int_equal(cJSON_GetArraySize(joints), (int)n + 1); /* + Tail_End, a tail only */
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    for (uint32_t i = 0; i <= n; i++) {
        const cJSON *j = cJSON_GetArrayItem(joints, (int)i);
        const cJSON *lim = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(j, "extensions"), "VRMC_springBone_limit");
        if (i == n) {
            assert_null(lim); /* never on the last joint */
            continue;
        }
        assert_float_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetObjectItemCaseSensitive(
                                   cJSON_GetObjectItemCaseSensitive(lim, "limit"), "cone"),
                               "angle")),
                           run.vrm_fit.cone_angle, 1e-6);
        /* the mouse's skin is a tube round the chain: a radius, well under a link */
        assert_true(run.vrm_fit.joints[i].hit_radius > 0);
        assert_true(run.vrm_fit.joints[i].hit_radius < run.vrm_fit.joints[i].length);
        assert_float_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, "dragForce")),
                           run.vrm_fit.joints[i].drag_force, 1e-6);
        /* the node's own rotation is sinew's rest arc: what VRM's stiffness pulls toward */
        const int node = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, "node"));
        const cJSON *q =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, node), "rotation");
        assert_float_equal(cJSON_GetNumberValue(cJSON_GetArrayItem(q, 0)),
                           run.vrm_fit.joints[i].rest.x, 1e-6);
        assert_float_equal(cJSON_GetNumberValue(cJSON_GetArrayItem(q, 3)),
                           run.vrm_fit.joints[i].rest.w, 1e-6);
    }
    cJSON_Delete(root);
    sinew_bytes_free(&glb);
    sinew_tail_result_free(&run);
    sinew_document_free(doc);
    sinew_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parameters_are_the_linear_match),
        cmocka_unit_test(test_one_link_matches_in_the_linear_regime),
        cmocka_unit_test(test_refinement_takes_the_whip_back),
        cmocka_unit_test(test_light_damping_is_flagged),
        cmocka_unit_test(test_apply_refuses_a_chain_outside_the_document),
        cmocka_unit_test(test_tail_job_writes_the_extension),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
