/* `sinew bake` and `sinew tail` on hostile input built here: a clip with a stray key far
 * beyond the others is refused (exit 1, no output) in a second instead of baking for minutes
 * into gigabytes, and a spring option the library would refuse is a usage error (exit 2) that
 * names the option and the range the library accepts. */
#include "test_util.h"

#include "sinew/creature.h"
#include "sinew/document.h"

/* Writes the procedural mouse to `path` with one more key on node 0's rotation in its first
 * clip, at `last` seconds (0: the mouse as built). */
static void write_mouse(const char *path, float last)
{
    sinew_model *model = NULL;
    sinew_document *doc = NULL;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_MOUSE, NULL, &model, NULL, NULL),
                     SINEW_OK);
    assert_int_equal(sinew_document_from_model(model, &doc, NULL), SINEW_OK);
    if (last > 0) {
        const float times[2] = {0.0f, last};
        const float values[8] = {0, 0, 0, 1, 0, 0, 0, 1};
        assert_int_equal(sinew_document_set_channel(doc, 0, 0, SINEW_PATH_ROTATION,
                                                    SINEW_INTERP_LINEAR, 2, times, values, NULL),
                         SINEW_OK);
    }
    assert_int_equal(sinew_document_write_file(doc, path, NULL), SINEW_OK);
    sinew_document_free(doc);
    sinew_model_free(model);
}

static void test_stray_key_is_refused(void **state)
{
    (void)state;
    char dir[256], in[512], out[512], log[8192];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/stray.glb", dir);
    snprintf(out, sizeof out, "%s/out.glb", dir);
    write_mouse(in, 1e6f);
    int code =
        test_run(log, sizeof log, "'%s' tail '%s' -o '%s' --no-check", test_sinew_bin(), in, out);
    print_message("%s", log);
    assert_int_equal(code, 1);
    assert_non_null(strstr(log, "lasts 1e+06 s"));
    assert_non_null(strstr(log, "clip \""));
    assert_false(test_file_exists(out));
}

static void test_spring_options_use_the_library_ranges(void **state)
{
    (void)state;
    char dir[256], in[512], tailed[512], out[512], log[8192];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/mouse.glb", dir);
    snprintf(tailed, sizeof tailed, "%s/tailed.glb", dir);
    snprintf(out, sizeof out, "%s/out.glb", dir);
    write_mouse(in, 0);
    assert_int_equal(test_run(log, sizeof log, "'%s' tail '%s' -o '%s' --no-bake --no-check",
                              test_sinew_bin(), in, tailed),
                     0);
    /* Degrees at the CLI, radians in the library: the library checks, and says so in
     * degrees. */
    assert_int_equal(test_run(log, sizeof log, "'%s' bake '%s' -o '%s' --carry -30",
                              test_sinew_bin(), tailed, out),
                     2);
    assert_non_null(strstr(log, "--carry: dyn params: carry must be from 0 to 180 degrees"));
    assert_non_null(strstr(log, "(got -30)"));
    static const char *bad[] = {
        "--carry -30", "--carry 200",    "--frequency 1000", "--bind-limit -1",
        "--damping 0", "--rest-curve 2", "--frequency 50",   "--frequency 5 --damping 10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int code = test_run(log, sizeof log, "'%s' bake '%s' -o '%s' %s", test_sinew_bin(), tailed,
                            out, bad[i]);
        print_message("%s: %s", bad[i], log);
        assert_int_equal(code, 2);
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(bad[i], " "), bad[i]);
        assert_non_null(strstr(log, name));
        assert_true(strstr(log, "from") || strstr(log, "at most")); /* what is allowed */
        assert_false(test_file_exists(out));
    }
    /* The ends of the ranges the CLI prints are accepted by the library. */
    assert_int_equal(test_run(log, sizeof log, "'%s' bake '%s' -o '%s' --carry 0 --bind-limit 180",
                              test_sinew_bin(), tailed, out),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stray_key_is_refused),
        cmocka_unit_test(test_spring_options_use_the_library_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
