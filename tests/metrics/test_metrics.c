/* Metrics: weighted bone distance and edge stretch on a small procedural strip. */
#include "test_util.h"

#include "sinew/metrics.h"

/* A strip of 2 x 5 vertices along +Y over two joints (bones 0->1 at y 0..2, 1 terminal), the
 * lower half on joint 0 and the upper half on joint 1, offset 0.5 in x from the bones. A clip
 * rotates joint 1 by 90 degrees about Z (stretching the strip at the bend) and another moves
 * the root rigidly. */
static sinew_model *make_strip(void)
{
    sinew_model *m = sinew_alloc(NULL, 1, sizeof *m);
    m->node_count = 2;
    m->nodes = sinew_alloc(NULL, 2, sizeof *m->nodes);
    for (int i = 0; i < 2; i++) {
        m->nodes[i].name = sinew_alloc(NULL, 8, 1);
        snprintf(m->nodes[i].name, 8, "j%d", i);
        m->nodes[i].parent = i - 1;
        m->nodes[i].joint = i;
        m->nodes[i].gltf_node = -1;
        m->nodes[i].local = sinew_transform_identity();
    }
    m->nodes[1].local.translation = sinew_vec3_make(0, 2, 0);
    m->skin.joint_count = 2;
    m->skin.joints = sinew_alloc(NULL, 2, sizeof *m->skin.joints);
    for (int j = 0; j < 2; j++) {
        m->skin.joints[j].node = j;
        m->skin.joints[j].inverse_bind = sinew_mat4_identity();
    }
    m->skin.joints[1].inverse_bind.m[13] = -2;
    sinew_mesh *mesh = &m->mesh;
    mesh->vertex_count = 10;
    mesh->positions = sinew_alloc(NULL, 10, sizeof *mesh->positions);
    mesh->influence_joints = sinew_alloc(NULL, 10 * SINEW_MAX_INFLUENCES, sizeof(uint16_t));
    mesh->influence_weights = sinew_alloc(NULL, 10 * SINEW_MAX_INFLUENCES, sizeof(float));
    mesh->weld = sinew_alloc(NULL, 10, sizeof(uint32_t));
    for (int i = 0; i < 10; i++) {
        mesh->positions[i] = sinew_vec3_make(0.5f + (float)(i % 2), (float)(i / 2), 0);
        mesh->influence_joints[i * SINEW_MAX_INFLUENCES] = (uint16_t)(i / 2 >= 2);
        mesh->influence_weights[i * SINEW_MAX_INFLUENCES] = 1;
        mesh->weld[i] = (uint32_t)i;
    }
    mesh->triangle_count = 8;
    mesh->triangles = sinew_alloc(NULL, 24, sizeof(uint32_t));
    for (uint32_t r = 0; r < 4; r++) {
        uint32_t a = 2 * r, *t = &mesh->triangles[6 * r];
        t[0] = a, t[1] = a + 1, t[2] = a + 3, t[3] = a, t[4] = a + 3, t[5] = a + 2;
    }
    assert_int_equal(sinew_model_update_rest(m, NULL), SINEW_OK);
    sinew_model_update_size(m);
    return m;
}

static void test_weighted_distance(void **state)
{
    (void)state;
    sinew_model *m = make_strip();
    float d[10], mean;
    assert_int_equal(sinew_metrics_weighted_bone_distance(m, NULL, 10, d, &mean, NULL), SINEW_OK);
    assert_true(fabsf(d[0] - 0.5f) < 1e-6f); /* beside bone 0 */
    assert_true(fabsf(d[3] - 1.5f) < 1e-6f);
    /* Hand the top vertices to joint 0: they are now controlled from farther away. */
    for (int i = 8; i < 10; i++)
        m->mesh.influence_joints[i * SINEW_MAX_INFLUENCES] = 0;
    float far[10];
    sinew_metrics_weighted_bone_distance(m, NULL, 10, far, NULL, NULL);
    assert_true(far[8] > d[8] + 0.1f);
    sinew_model_free(m);
}

static void test_unique_edges_and_stretch(void **state)
{
    (void)state;
    sinew_model *m = make_strip();
    sinew_metrics_edges edges;
    assert_int_equal(sinew_metrics_unique_edges(m, &edges, NULL), SINEW_OK);
    const uint32_t n = edges.count;
    assert_int_equal(n, 4 * 3 + 5); /* rungs 5, rails 8, diagonals 4 */
    sinew_metrics_edges_free(&edges);
    assert_null(edges.pairs);

    float times[2] = {0, 1};
    sinew_quat bend = sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), (float)(SINEW_PI / 2));
    float rot[8] = {0, 0, 0, 1, bend.x, bend.y, bend.z, bend.w};
    float move[6] = {0, 0, 0, 3, 1, 0};
    sinew_channel bend_ch = {1, SINEW_PATH_ROTATION, SINEW_INTERP_LINEAR, 2, times, rot};
    sinew_channel move_ch = {0, SINEW_PATH_TRANSLATION, SINEW_INTERP_LINEAR, 2, times, move};
    sinew_clip rigid = {"Move", -1, 1, 1, &move_ch}, bent = {"Bend", -1, 1, 1, &bend_ch};
    uint8_t upper[10];
    int32_t joint1 = 1;
    sinew_metrics_dominated_by(m, &joint1, 1, upper);
    assert_int_equal(upper[9], 1);
    assert_int_equal(upper[0], 0);

    sinew_stretch_stats sel, oth;
    assert_int_equal(sinew_metrics_stretch(m, &rigid, NULL, upper, &sel, &oth, NULL), SINEW_OK);
    assert_true(fabsf(sel.max - 1) < 1e-5f && fabsf(sel.min - 1) < 1e-5f);
    assert_true(fabsf(oth.p99 - 1) < 1e-5f);
    assert_true(sel.torn_share == 0);
    assert_int_equal(sel.samples, 24 * 9); /* 9 edges with both ends on rows 2-4 */

    sinew_stretch_options opt = {12};
    assert_int_equal(sinew_metrics_stretch(m, &bent, &opt, NULL, NULL, &oth, NULL), SINEW_OK);
    assert_int_equal(oth.samples, 12 * n);
    assert_true(oth.max > 1.2f); /* the bend tears the edges that cross it */
    assert_true(oth.torn_share > 0);
    sinew_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weighted_distance),
        cmocka_unit_test(test_unique_edges_and_stretch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
