/* The CLI's pictures and the README's main command: `sinew render` and `sinew demo` (its
 * tables, and the same as --json). */
#include "test_json.h"

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

/* One row of the stretch comparison as the table prints it, from its JSON. */
static int stretch_row(char *buf, size_t size, const char *label, const cJSON *s)
{
    return snprintf(buf, size, "  %-22s %9llu %6.2f %6.2f %6.2f %7.1f%%\n", label,
                    (unsigned long long)test_json_number(s, "samples"), test_json_number(s, "p95"),
                    test_json_number(s, "p99"), test_json_number(s, "max"),
                    100.0 * test_json_number(s, "torn_share"));
}

/* `sinew demo --json`: one JSON document on stdout alone, once the same files are written; its
 * stretch comparison and bake figures, printed back in the tables' formats, are the blocks and
 * rows of the table run's `table`, and `sinew stretch --compare --json` on the template gives
 * the same comparison. */
static void check_demo_json(const char *dir, const char *table)
{
    char command[8192], path[4200];
    const char *end = NULL;
    snprintf(command, sizeof command, "{ %s demo --out %s/j --json 2>%s/stderr.txt; }",
             test_sinew_bin(), dir, dir);
    assert_int_equal(test_run(out, sizeof out, "%s", command), 0);
    cJSON *j = cJSON_ParseWithOpts(out, &end, 1);
    if (!j) fail_msg("demo --json: not one JSON document: %.300s", out);
    const cJSON *f;
    int files = 0;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(j, "files"))
    {
        snprintf(path, sizeof path, "%s/j/%s", dir, f->valuestring);
        assert_true(test_file_exists(path));
        files++;
    }
    assert_int_equal(files, 6);
    const cJSON *stretch = cJSON_GetObjectItem(j, "stretch"), *c;
    int rows = 0;
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(stretch, "tail_found")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(stretch, "clips")), 4);
    static const char *keys[4] = {"original", "rigid", "chain", "body"};
    static const char *labels[4] = {"original rig", "rigid on the pelvis", "tail chain (baked)",
                                    "body, as reference"};
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(stretch, "clips"))
    {
        char block[1024];
        int n = snprintf(block, sizeof block,
                         "clip %s, %u moments: tail edges (the %u vertices the chain re-weights)\n"
                         "  %-22s %9s %6s %6s %6s %8s\n",
                         cJSON_GetObjectItem(c, "name")->valuestring,
                         (unsigned)test_json_number(stretch, "samples"),
                         (unsigned)test_json_number(stretch, "tail_vertices"), "", "samples", "p95",
                         "p99", "max", "torn");
        for (int k = 0; k < 4; k++)
            n += stretch_row(block + n, sizeof block - (size_t)n, labels[k],
                             cJSON_GetObjectItem(c, keys[k]));
        if (!strstr(table, block)) fail_msg("the table has no block\n%s", block);
    }
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "report"), "bake"))
    {
        char row[256];
        snprintf(row, sizeof row, "  %-24s %5u %6.1f %5s %7u %7.2f° %7.2f° %7.1f° %7.2f°\n",
                 cJSON_GetObjectItem(c, "name")->valuestring, (unsigned)test_json_number(c, "keys"),
                 test_json_number(c, "rate"),
                 cJSON_IsTrue(cJSON_GetObjectItem(c, "looping")) ? "yes" : "no",
                 (unsigned)test_json_number(c, "passes"), test_json_number(c, "drift_degrees"),
                 test_json_number(c, "seam_degrees"), test_json_number(c, "swing_degrees"),
                 test_json_number(c, "tip_swing_degrees"));
        if (!strstr(table, row)) fail_msg("the table has no bake row\n%s", row);
        rows++;
    }
    assert_int_equal(rows, 4); /* a bake row per clip */
    /* The same comparison from `sinew stretch --compare --json`, for one clip. */
    snprintf(command, sizeof command,
             "{ %s stretch %s/j/fox_template.glb --compare --clip Walk --json 2>%s/stderr.txt; }",
             test_sinew_bin(), dir, dir);
    assert_int_equal(test_run(out, sizeof out, "%s", command), 0);
    cJSON *s = cJSON_ParseWithOpts(out, &end, 1);
    assert_non_null(s);
    const cJSON *walk = cJSON_GetArrayItem(cJSON_GetObjectItem(stretch, "clips"), 0);
    assert_string_equal(cJSON_GetObjectItem(walk, "name")->valuestring, "Walk");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(s, "clips")), 1);
    assert_true(cJSON_Compare(cJSON_GetArrayItem(cJSON_GetObjectItem(s, "clips"), 0), walk, 1));
    cJSON_Delete(s);
    cJSON_Delete(j);
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
    static char table[sizeof out];
    memcpy(table, out, sizeof out);
    check_demo_json(dir, table);
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
