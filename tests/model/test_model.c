/* The model layer: rest transforms from IBMs, welding, clip sampling, skinning. */
#include "test_util.h"

#include "sinew/model.h"

/* A two-joint arm along +Y with one quad per joint; joint 1 has a loaded (file) rotation of
 * 28 degrees that is NOT its bind pose, as the mouse in Sidorkin, "Animating tails the
 * auto-rigger never gave a bone", had. */
static sinew_model *make_arm(void)
{
    sinew_model *m = sinew_alloc(NULL, 1, sizeof *m);
    m->node_count = 3;
    m->nodes = sinew_alloc(NULL, 3, sizeof *m->nodes);
    const char *names[] = {"Armature", "Upper", "Lower"};
    for (int i = 0; i < 3; i++) {
        m->nodes[i].name = sinew_alloc(NULL, 16, 1);
        strcpy(m->nodes[i].name, names[i]);
        m->nodes[i].parent = i - 1;
        m->nodes[i].gltf_node = -1;
        m->nodes[i].joint = i - 1;
        m->nodes[i].local = sinew_transform_identity();
    }
    m->nodes[0].local.scale = sinew_vec3_make(2, 2, 2); /* a scaled non-joint ancestor */
    m->nodes[2].local.translation = sinew_vec3_make(0, 1, 0);
    m->nodes[2].local.rotation =
        sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), (float)(28 * SINEW_PI / 180));
    m->skin.joint_count = 2;
    m->skin.joints = sinew_alloc(NULL, 2, sizeof *m->skin.joints);
    m->skin.joints[0].node = 1;
    m->skin.joints[1].node = 2;
    m->skin.joints[0].inverse_bind = sinew_mat4_identity();
    m->skin.joints[1].inverse_bind = sinew_mat4_identity();
    m->skin.joints[1].inverse_bind.m[13] = -1; /* joint 1 bound at y = 1 */
    sinew_mesh *mesh = &m->mesh;
    mesh->vertex_count = 6;
    mesh->positions = sinew_alloc(NULL, 6, sizeof *mesh->positions);
    for (int i = 0; i < 6; i++)
        mesh->positions[i] = sinew_vec3_make((float)(i % 2), (float)(i / 2), 0);
    mesh->influence_joints = sinew_alloc(NULL, 6 * SINEW_MAX_INFLUENCES, sizeof(uint16_t));
    mesh->influence_weights = sinew_alloc(NULL, 6 * SINEW_MAX_INFLUENCES, sizeof(float));
    for (int i = 0; i < 6; i++) {
        mesh->influence_joints[i * SINEW_MAX_INFLUENCES] = (uint16_t)(i >= 2);
        mesh->influence_weights[i * SINEW_MAX_INFLUENCES] = 1;
    }
    mesh->weld = sinew_alloc(NULL, 6, sizeof(uint32_t));
    assert_int_equal(sinew_model_update_rest(m, NULL), SINEW_OK);
    sinew_model_update_size(m);
    return m;
}

static void test_rest_comes_from_inverse_bind(void **state)
{
    (void)state;
    sinew_model *m = make_arm();
    /* The loaded 28 degrees must not leak into the rest pose. */
    assert_true(sinew_quat_angle(m->nodes[2].rest.rotation) < 1e-5f);
    assert_true(sinew_vec3_distance(m->nodes[2].rest.translation, sinew_vec3_make(0, 1, 0)) <
                1e-6f);
    assert_true(fabsf(m->size.height - 2.0f) < 1e-6f);
    sinew_model_free(m);
}

static void test_skinning_through_scaled_ancestor(void **state)
{
    (void)state;
    sinew_model *m = make_arm();
    sinew_transform pose[3];
    sinew_mat4 world[3], skin[2];
    sinew_vec3 out[6];
    sinew_pose_rest(m, pose);
    sinew_pose_to_world(m, pose, world);
    sinew_skin_matrices(m, world, skin);
    sinew_skin_positions(m, skin, out);
    for (int i = 0; i < 6; i++) /* the Armature's scale 2 applies to every vertex */
        assert_true(sinew_vec3_distance(out[i], sinew_vec3_scale(m->mesh.positions[i], 2)) < 1e-5f);
    sinew_model_free(m);
}

static void test_weld_joins_equal_positions(void **state)
{
    (void)state;
    sinew_mesh mesh = {0};
    sinew_vec3 p[5] = {{1, 2, 3}, {0, 0, 0}, {1, 2, 3}, {-0.0f, 0, 0}, {5, 5, 5}};
    uint32_t weld[5], scratch[5];
    mesh.vertex_count = 5;
    mesh.positions = p;
    mesh.weld = weld;
    sinew_mesh_weld(&mesh, scratch);
    assert_int_equal(weld[0], 0);
    assert_int_equal(weld[2], 0);
    assert_int_equal(weld[1], 1);
    assert_int_equal(weld[3], 1); /* -0 and 0 are one position */
    assert_int_equal(weld[4], 4);
}

static void test_sampling_interpolations(void **state)
{
    (void)state;
    sinew_model *m = make_arm();
    float times[3] = {0, 1, 2};
    float tvals[9] = {0, 0, 0, 2, 0, 0, 2, 4, 0};
    sinew_quat q90 = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), (float)(SINEW_PI / 2));
    float rvals[12] = {0, 0, 0, 1, q90.x, q90.y, q90.z, q90.w, q90.x, q90.y, q90.z, q90.w};
    /* CUBICSPLINE: per key in-tangent, value, out-tangent; zero tangents give smoothstep. */
    float svals[27] = {0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 3, 3,
                       3, 0, 0, 0, 0, 0, 0, 3, 3, 3, 0, 0, 0};
    sinew_channel ch[3] = {
        {1, SINEW_PATH_TRANSLATION, SINEW_INTERP_LINEAR, 3, times, tvals},
        {1, SINEW_PATH_ROTATION, SINEW_INTERP_LINEAR, 3, times, rvals},
        {2, SINEW_PATH_SCALE, SINEW_INTERP_CUBICSPLINE, 3, times, svals},
    };
    sinew_clip clip = {"Test", -1, 2.0f, 3, ch};
    sinew_transform pose[3];
    sinew_clip_sample(m, &clip, 0.5f, pose);
    assert_true(sinew_vec3_distance(pose[1].translation, sinew_vec3_make(1, 0, 0)) < 1e-6f);
    assert_true(fabsf(sinew_quat_angle(pose[1].rotation) - (float)(SINEW_PI / 4)) < 1e-5f);
    assert_true(fabsf(pose[2].scale.x - 2.0f) < 1e-6f); /* 1 + 2 * smoothstep(0.5) */
    /* Untouched nodes keep the file's pose, including the 28-degree rotation. */
    assert_true(fabsf(sinew_quat_dot(pose[2].rotation, m->nodes[2].local.rotation)) > 1 - 1e-6f);
    sinew_clip_sample(m, &clip, 99.0f, pose); /* clamped to the end */
    assert_true(sinew_vec3_distance(pose[1].translation, sinew_vec3_make(2, 4, 0)) < 1e-6f);
    ch[0].interpolation = SINEW_INTERP_STEP;
    sinew_clip_sample(m, &clip, 1.5f, pose);
    assert_true(sinew_vec3_distance(pose[1].translation, sinew_vec3_make(2, 0, 0)) < 1e-6f);
    clip.channels = NULL; /* the clip's arrays live on the stack */
    clip.channel_count = 0;
    sinew_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rest_comes_from_inverse_bind),
        cmocka_unit_test(test_skinning_through_scaled_ancestor),
        cmocka_unit_test(test_weld_joins_equal_positions),
        cmocka_unit_test(test_sampling_interpolations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
