/* Every shared model loads and builds a model view (skipped, saying so, when
 * ../shared/models is absent), with the counts the models' README gives. */
#include "test_util.h"

#include <math.h>

#include "sinew/document.h"

static const struct {
    const char *file;
    uint32_t vertices; /* 0: not checked */
    uint32_t joints;
    uint32_t clips;
} models[] = {
    {"Fox.glb", 1728, 24, 3},
    {"quaternius_Fox.glb", 3752, 51, 12},
    {"quaternius_TRex.glb", 3496, 29, 6},
    {"quaternius_Velociraptor.glb", 2576, 29, 6},
    {"RiggedSimple.glb", 0, 4, 1},
    {"SimpleSkin.gltf", 10, 2, 1},
    {"CesiumMan.glb", 0, 19, 19},
    /* several meshes, each on its own copy of one skin: all of them (both hands; the
     * character's body, ears, head and arms, 781 vertices when only the largest counted) */
    {"RobotExpressive.glb", 1108, 43, 14},
    {"quaternius_Character.glb", 1895, 29, 18},
    {"quaternius_Character_HumanoidRig.glb", 1895, 27, 0},
    {"notail/Fox.glb", 1728, 0, 3},
    {"notail/Fox_parent.glb", 1728, 0, 3},
    {"notail/quaternius_Fox.glb", 3752, 0, 12},
    {"notail/quaternius_TRex.glb", 3496, 0, 6},
    {"notail/quaternius_Velociraptor.glb", 2576, 0, 6},
};

static void test_models(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char path[1024];
        test_path(path, sizeof path, dir, models[i].file);
        sinew_document *doc = NULL;
        sinew_error err = {0};
        if (sinew_document_load_file(path, NULL, &doc, &err))
            fail_msg("%s: %s", models[i].file, err.message);
        sinew_model *m = NULL;
        if (sinew_model_from_document(doc, NULL, &m, &err))
            fail_msg("%s: model: %s", models[i].file, err.message);
        if (models[i].vertices) assert_int_equal(m->mesh.vertex_count, models[i].vertices);
        if (models[i].joints) assert_int_equal(m->skin.joint_count, models[i].joints);
        assert_int_equal(m->clip_count, models[i].clips);
        assert_true(m->mesh.triangle_count > 0);
        for (uint32_t n = 0; n < m->node_count; n++)
            assert_true(m->nodes[n].parent < (int32_t)n);
        for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
            double sum = 0;
            for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
                sum += m->mesh.influence_weights[v * SINEW_MAX_INFLUENCES + (uint32_t)k];
                if (k)
                    assert_true(m->mesh.influence_weights[v * 8 + (uint32_t)k] <=
                                m->mesh.influence_weights[v * 8 + (uint32_t)k - 1]);
            }
            assert_true(fabs(sum - 1.0) < 1e-5);
            assert_true(m->mesh.weld[v] <= v);
        }
        for (uint32_t t = 0; t < m->mesh.triangle_count * 3; t++)
            assert_true(m->mesh.triangles[t] < m->mesh.vertex_count);
        for (uint32_t c = 0; c < m->clip_count; c++)
            assert_true(m->clips[c].duration > 0.0f);
        assert_true(m->size.diagonal > 0.0f);
        int normalised = strstr(models[i].file, "Cesium") || strstr(models[i].file, "Robot");
        int warned = 0;
        for (uint32_t w = 0; w < sinew_document_warning_count(doc); w++)
            warned |= strstr(sinew_document_warning(doc, w), "do not sum to 1") != NULL;
        assert_int_equal(warned, normalised);
        printf("%-36s %5u vertices %3u joints %3u nodes %2u clips  height %.2f\n", models[i].file,
               m->mesh.vertex_count, m->skin.joint_count, m->node_count, m->clip_count,
               (double)m->size.height);
        /* The model rebuilt as its own document gives the same model. */
        sinew_document *made = NULL;
        if (sinew_document_from_model(m, &made, &err))
            fail_msg("%s: from_model: %s", models[i].file, err.message);
        sinew_bytes glb;
        assert_int_equal(sinew_document_write_glb_memory(made, &glb, &err), SINEW_OK);
        sinew_document *back = NULL;
        if (sinew_document_load_memory(glb.data, glb.size, NULL, &back, &err))
            fail_msg("%s: from_model output: %s", models[i].file, err.message);
        sinew_model *m2 = NULL;
        assert_int_equal(sinew_model_from_document(back, NULL, &m2, &err), SINEW_OK);
        assert_int_equal(m2->mesh.vertex_count, m->mesh.vertex_count);
        assert_int_equal(m2->node_count, m->node_count);
        assert_memory_equal(m2->mesh.positions, m->mesh.positions,
                            m->mesh.vertex_count * sizeof(sinew_vec3));
        sinew_bytes_free(&glb);
        sinew_model_free(m2);
        sinew_document_free(back);
        sinew_document_free(made);
        sinew_model_free(m);
        sinew_document_free(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_models)};
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
