/* `sinew solve` on hostile input built here: a file of more clips than the CLI once kept (it
 * solved the first 256 and said nothing of the rest) has every clip solved, and a clip of
 * more key times than a solve takes is resampled at its own rate with a line that says so. */
#include "test_util.h"

#include "sinew/creature.h"
#include "sinew/document.h"

#define CLIPS 300 /* more than the 256 the CLI kept */

/* The procedural mouse with CLIPS - 1 more animations, "Extra1" .., each one turn of node 0
 * over two keys, and one "Dense" of `dense_keys` keys 0.2 ms apart on node 0. */
static void write_mouse(const char *path, uint32_t dense_keys)
{
    sinew_model *model = NULL;
    sinew_document *doc = NULL;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_MOUSE, NULL, &model, NULL, NULL),
                     SINEW_OK);
    assert_int_equal(sinew_document_from_model(model, &doc, NULL), SINEW_OK);
    const float times[2] = {0.0f, 1.0f};
    const float values[8] = {0, 0, 0, 1, 0, 0.3826834f, 0, 0.9238795f};
    for (int a = 1; a < CLIPS; a++) {
        char name[32];
        snprintf(name, sizeof name, "Extra%d", a);
        int32_t anim = -1;
        assert_int_equal(sinew_document_find_animation(doc, name, 1, &anim, NULL), SINEW_OK);
        assert_int_equal(sinew_document_set_channel(doc, anim, 0, SINEW_PATH_ROTATION,
                                                    SINEW_INTERP_LINEAR, 2, times, values, NULL),
                         SINEW_OK);
    }
    if (dense_keys) {
        float *t = malloc(dense_keys * sizeof *t), *v = malloc(dense_keys * 4 * sizeof *v);
        assert_non_null(t);
        assert_non_null(v);
        for (uint32_t k = 0; k < dense_keys; k++) {
            t[k] = 2e-4f * (float)k;
            const float h = 0.5f * sinf(t[k]);
            v[4 * k] = 0, v[4 * k + 1] = sinf(h), v[4 * k + 2] = 0, v[4 * k + 3] = cosf(h);
        }
        int32_t anim = -1;
        assert_int_equal(sinew_document_find_animation(doc, "Dense", 1, &anim, NULL), SINEW_OK);
        assert_int_equal(sinew_document_set_channel(doc, anim, 0, SINEW_PATH_ROTATION,
                                                    SINEW_INTERP_LINEAR, dense_keys, t, v, NULL),
                         SINEW_OK);
        free(t);
        free(v);
    }
    assert_int_equal(sinew_document_write_file(doc, path, NULL), SINEW_OK);
    sinew_document_free(doc);
    sinew_model_free(model);
}

static void test_every_clip_is_solved(void **state)
{
    (void)state;
    char dir[256], in[512], log[65536];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/many.glb", dir);
    write_mouse(in, 0);
    int code = test_run(log, sizeof log, "'%s' solve --source '%s' --control --max-vertices 50",
                        test_sinew_bin(), in);
    assert_int_equal(code, 0);
    char row[64];
    snprintf(row, sizeof row, "\nExtra%d ", CLIPS - 1);
    assert_non_null(strstr(log, row));
    uint32_t rows = 0;
    for (const char *p = strstr(log, "\nExtra"); p; p = strstr(p + 1, "\nExtra"))
        rows++;
    assert_int_equal(rows, CLIPS - 1);
}

static void test_dense_clip_is_resampled(void **state)
{
    (void)state;
    char dir[256], in[512], log[65536];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/dense.glb", dir);
    write_mouse(in, 40000); /* 8 s at 5000 keys per second: more than 36000 key times */
    int code = test_run(log, sizeof log,
                        "'%s' solve --source '%s' --control --clips Dense --max-vertices 50",
                        test_sinew_bin(), in);
    print_message("%s", log);
    assert_int_equal(code, 0);
    assert_non_null(strstr(log, "Dense: more than 36000 key times: resampled at 120 per second"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_clip_is_solved),
        cmocka_unit_test(test_dense_clip_is_resampled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
