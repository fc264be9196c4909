/* The example programs do what their comments say: live_tail steps a chained fox's tail in a
 * game loop at 30, 60 and 144 fps and the tail swings (the program itself exits 1 if anything
 * goes non-finite), and bad input gets a message and a non-zero exit. */
#include "test_util.h"

static char tmp[4096], fox[4200], chained[4200];

static const char *example(const char *name)
{
    static char path[4096];
    const char *dir = getenv("SINEW_BIN");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : ".", name);
    return path;
}

static int setup(void **state)
{
    (void)state;
    if (!test_tmpdir(tmp, sizeof tmp)) return -1;
    snprintf(fox, sizeof fox, "%s/fox.glb", tmp);
    snprintf(chained, sizeof chained, "%s/fox_tail.glb", tmp);
    char out[4096];
    if (test_run(out, sizeof out, "%s creature fox -o %s", test_sinew_bin(), fox) != 0 ||
        test_run(out, sizeof out, "%s tail %s -o %s --no-bake", test_sinew_bin(), fox, chained) !=
            0) {
        print_error("%s\n", out);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char out[256];
    test_run(out, sizeof out, "rm -rf %s", tmp);
    return 0;
}

static void test_live_tail_swings(void **state)
{
    (void)state;
    static const int rates[] = {30, 60, 144};
    for (int k = 0; k < 3; k++) {
        char out[8192];
        int rc = test_run(out, sizeof out, "%s %s Walk --fps %d", example("live_tail"), chained,
                          rates[k]);
        if (rc != 0) print_error("%s\n", out);
        assert_int_equal(rc, 0);
        const char *line = strstr(out, "largest swing of the tip from its rest: ");
        assert_non_null(line);
        double swing = atof(line + strlen("largest swing of the tip from its rest: "));
        print_message("live_tail Walk at %d fps: largest swing %.1f degrees\n", rates[k], swing);
        assert_true(swing >= 5.0 && swing < 90.0); /* it moves, and stays a tail */
    }
}

static void test_live_tail_bad_input(void **state)
{
    (void)state;
    char out[4096];
    /* no chain yet: the template fox straight from the generator */
    assert_int_equal(test_run(out, sizeof out, "%s %s", example("live_tail"), fox), 1);
    assert_non_null(strstr(out, "no Tail_1"));
    assert_int_equal(test_run(out, sizeof out, "%s %s Nope", example("live_tail"), chained), 1);
    assert_non_null(strstr(out, "no clip named \"Nope\""));
    assert_int_equal(test_run(out, sizeof out, "%s %s/missing.glb", example("live_tail"), tmp), 1);
    assert_int_equal(test_run(out, sizeof out, "%s", example("live_tail")), 2);
    assert_non_null(strstr(out, "usage: live_tail"));
    assert_int_equal(test_run(out, sizeof out, "%s %s --fps 0", example("live_tail"), chained), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_tail_swings),
        cmocka_unit_test(test_live_tail_bad_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
