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

/* The largest distance, over `samples` times spread across the track (keys and between them),
 * between what a player shows for the full channel and for `keep`'s keys alone: the angle
 * between rotations, else the Euclidean distance. */
static double played_gap(sinew_model *m, const sinew_channel *full, const uint8_t *keep)
{
    const uint32_t n = full->key_count, comps = full->path == SINEW_PATH_ROTATION ? 4 : 3;
    float *times = malloc(n * sizeof *times), *values = malloc((size_t)n * comps * sizeof *values);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (keep[i]) {
            times[k] = full->times[i];
            memcpy(&values[(size_t)k * comps], &full->values[(size_t)i * comps],
                   comps * sizeof *values);
            k++;
        }
    sinew_channel reduced = *full;
    reduced.key_count = k;
    reduced.times = times;
    reduced.values = values;
    sinew_channel one = *full;
    sinew_clip a = {"Full", -1, full->times[n - 1], 1, &one};
    sinew_clip b = {"Reduced", -1, full->times[n - 1], 1, &reduced};
    sinew_transform pa[3], pb[3];
    double worst = 0;
    const uint32_t samples = 16 * n;
    for (uint32_t s = 0; s <= samples; s++) {
        const float t = full->times[n - 1] * (float)s / (float)samples;
        sinew_clip_sample(m, &a, t, pa);
        sinew_clip_sample(m, &b, t, pb);
        const sinew_transform *x = &pa[full->node], *y = &pb[full->node];
        double d;
        if (full->path == SINEW_PATH_ROTATION) {
            const sinew_quat q = sinew_quat_mul(sinew_quat_conjugate(x->rotation), y->rotation);
            d = 2.0 * atan2(sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z),
                            fabs((double)q.w));
        } else {
            d = sinew_vec3_distance(x->translation, y->translation);
        }
        if (d > worst) worst = d;
    }
    free(times);
    free(values);
    return worst;
}

/* Key reduction keeps what a player shows within the tolerance everywhere, between keys as
 * well as at them, for LINEAR translations, slerped rotations and STEP; first and last keys
 * stay (a loop stays closed); a track standing still is two keys. */
static void test_channel_reduce(void **state)
{
    (void)state;
    sinew_model *m = make_arm();
    enum { N = 240 };
    float times[N], tv[N * 3], rv[N * 4], still[N * 3];
    for (int i = 0; i < N; i++) {
        const float t = (float)i / 24.0f;
        times[i] = t;
        /* a slow sway with a pause: moving, held still for a second, moving again */
        const float u = t < 4 ? t : t < 5 ? 4 : t - 1;
        tv[i * 3] = sinf(0.7f * u), tv[i * 3 + 1] = 0.3f * cosf(1.3f * u), tv[i * 3 + 2] = 0.1f * u;
        const sinew_quat q = sinew_quat_from_axis_angle(
            sinew_vec3_normalize_or(sinew_vec3_make(0.3f, 1, 0.2f * sinf(u)),
                                    sinew_vec3_make(0, 1, 0)),
            1.2f * sinf(0.8f * u));
        rv[i * 4] = q.x, rv[i * 4 + 1] = q.y, rv[i * 4 + 2] = q.z, rv[i * 4 + 3] = q.w;
        still[i * 3] = 1, still[i * 3 + 1] = 2, still[i * 3 + 2] = 3;
    }
    uint8_t keep[N];
    uint32_t kept = 0;
    sinew_error err = {0};
    const struct {
        sinew_path path;
        sinew_interpolation interp;
        float *values;
        double tolerance;
    } cases[] = {
        {SINEW_PATH_TRANSLATION, SINEW_INTERP_LINEAR, tv, 1e-3},
        {SINEW_PATH_TRANSLATION, SINEW_INTERP_STEP, tv, 0.1},
        {SINEW_PATH_ROTATION, SINEW_INTERP_LINEAR, rv, 0.1 * SINEW_PI / 180},
        {SINEW_PATH_ROTATION, SINEW_INTERP_STEP, rv, 5.0 * SINEW_PI / 180},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sinew_channel ch = {1, cases[c].path, cases[c].interp, N, times, cases[c].values};
        assert_int_equal(sinew_channel_reduce(&ch, cases[c].tolerance, NULL, keep, &kept, &err),
                         SINEW_OK);
        uint32_t count = 0;
        for (int i = 0; i < N; i++)
            count += keep[i];
        const double gap = played_gap(m, &ch, keep);
        fprintf(stderr, "reduce %s %s: %u of %d keys, played gap %.3g (tolerance %.3g)\n",
                cases[c].path == SINEW_PATH_ROTATION ? "rotation" : "translation",
                cases[c].interp == SINEW_INTERP_STEP ? "STEP" : "LINEAR", kept, N, gap,
                cases[c].tolerance);
        assert_int_equal(count, kept);
        assert_true(keep[0] && keep[N - 1]);
        /* the pause and the smooth stretches must go: at most two thirds of the keys stay */
        assert_true(kept < 2 * N / 3);
        assert_true(gap <= cases[c].tolerance * 1.01 + 1e-6);
        /* a tolerance far tighter keeps more keys */
        uint32_t tighter = 0;
        assert_int_equal(
            sinew_channel_reduce(&ch, cases[c].tolerance / 100, NULL, keep, &tighter, &err),
            SINEW_OK);
        assert_true(tighter > kept);
    }
    sinew_channel ch = {1, SINEW_PATH_TRANSLATION, SINEW_INTERP_LINEAR, N, times, still};
    assert_int_equal(sinew_channel_reduce(&ch, 0, NULL, keep, &kept, &err), SINEW_OK);
    assert_int_equal(kept, 2);
    assert_true(keep[0] && keep[N - 1]);
    /* refused: CUBICSPLINE, a tolerance below zero or not a number */
    ch.interpolation = SINEW_INTERP_CUBICSPLINE;
    assert_int_equal(sinew_channel_reduce(&ch, 1e-3, NULL, keep, &kept, &err),
                     SINEW_ERR_UNSUPPORTED);
    ch.interpolation = SINEW_INTERP_LINEAR;
    assert_int_equal(sinew_channel_reduce(&ch, -1, NULL, keep, &kept, &err),
                     SINEW_ERR_INVALID_VALUE);
    assert_int_equal(sinew_channel_reduce(&ch, NAN, NULL, keep, &kept, &err),
                     SINEW_ERR_INVALID_VALUE);
    assert_non_null(strstr(err.message, "tolerance"));
    sinew_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rest_comes_from_inverse_bind),
        cmocka_unit_test(test_skinning_through_scaled_ancestor),
        cmocka_unit_test(test_weld_joins_equal_positions),
        cmocka_unit_test(test_sampling_interpolations),
        cmocka_unit_test(test_channel_reduce),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
