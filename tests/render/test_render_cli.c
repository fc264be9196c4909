/* The CLI's pictures and the README's main command: `sinew render` and `sinew demo`. */
#include "test_util.h"

static char out[65536];

static void test_render_usage_and_bad_input(void **state)
{
    (void)state;
    char dir[256], png[512];
    const char *bin = test_sinew_bin();
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(png, sizeof png, "%s/x.png", dir);
    assert_int_equal(test_run(out, sizeof out, "%s render", bin), 2);
    assert_non_null(strstr(out, "no input file"));
    assert_int_equal(test_run(out, sizeof out, "%s render a.glb b.glb -o %s", bin, png), 2);
    assert_non_null(strstr(out, "--compare"));
    assert_int_equal(test_run(out, sizeof out, "%s render a.glb --view top -o %s", bin, png), 2);
    assert_non_null(strstr(out, "top"));
    assert_int_equal(test_run(out, sizeof out, "%s render a.glb --size 9x9 -o %s", bin, png), 2);
    assert_int_equal(test_run(out, sizeof out, "%s render %s/missing.glb -o %s", bin, dir, png), 1);
    assert_non_null(strstr(out, "missing.glb"));
    assert_false(test_file_exists(png));
    test_run(NULL, 0, "rm -rf %s", dir);
}

static void test_demo_writes_everything(void **state)
{
    (void)state;
    char dir[256], path[512];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    assert_int_equal(test_run(out, sizeof out, "%s demo --out %s/d", test_sinew_bin(), dir), 0);
    /* As in the published tail method's table, the chain's tail edges never tear on Walk. */
    assert_non_null(strstr(out, "tail chain (baked)"));
    assert_non_null(strstr(out, "Tail_1 .. Tail_End"));
    static const char *files[] = {"fox_template.glb", "fox_rigid.glb", "fox_tail.glb",
                                  "fox_report.json",  "compare.png",   "stretch.png"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/d/%s", dir, files[i]);
        assert_true(test_file_exists(path));
    }
    /* The pictures render the same bytes twice (deterministic). */
    assert_int_equal(test_run(out, sizeof out,
                              "%s render %s/d/fox_tail.glb --tail --bones -o %s/a.png && "
                              "%s render %s/d/fox_tail.glb --tail --bones -o %s/b.png && "
                              "cmp %s/a.png %s/b.png",
                              test_sinew_bin(), dir, dir, test_sinew_bin(), dir, dir, dir, dir),
                     0);
    assert_int_equal(
        test_run(out, sizeof out, "%s demo --kind caped --out %s/c", test_sinew_bin(), dir), 2);
    test_run(NULL, 0, "rm -rf %s", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_usage_and_bad_input),
        cmocka_unit_test(test_demo_writes_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
