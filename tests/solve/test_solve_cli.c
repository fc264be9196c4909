/* `sinew solve` on hostile input built here: a file of more clips than the CLI once kept (it
 * solved the first 256 and said nothing of the rest) has every clip solved, and a clip of
 * more key times than a solve takes is resampled at its own rate with a line that says so.
 * And --json: the table's figures, on stdout alone. */
#include "test_json.h"

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
    /* With --json the note goes to stderr, and the JSON says it. */
    char command[8192], err[600];
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    snprintf(command, sizeof command,
             "'%s' solve --source '%s' --control --clips Dense --max-vertices 50 --json",
             test_sinew_bin(), in);
    cJSON *j = test_run_json(command, err);
    const cJSON *solve =
        test_json_member(cJSON_GetArrayItem(test_json_member(j, "clips"), 0), "solve");
    assert_true(cJSON_IsTrue(test_json_member(solve, "resampled")));
    assert_true(test_json_number(solve, "resample_rate") == 120);
    cJSON_Delete(j);
    size_t size = 0;
    char *note = test_read_file(err, &size);
    assert_non_null(note);
    assert_non_null(strstr(note, "Dense: more than 36000 key times: resampled at 120 per second"));
    free(note);
}

/* The table's row for `solve` (a clip's "solve" or "free_solve" in --json), printed here from
 * the JSON's numbers in the table's format, up to the time column (a run's own). */
static void assert_row(const char *table, const char *name, const char *mode, const cJSON *solve)
{
    const cJSON *played = test_json_member(solve, "quality"),
                *at = test_json_member(solve, "quality_at_frames"),
                *keys = test_json_member(solve, "keys");
    char row[256];
    snprintf(row, sizeof row, "%-20s %-8s %6u %8.1f %9.3f%% %11.4f %11.4f %9.3f%% %8llu %8llu ",
             name, mode, (unsigned)test_json_number(solve, "frames"),
             test_json_number(solve, "sweeps_per_frame"), 100.0 * test_json_number(played, "q"),
             test_json_number(played, "mean_error_pct"), test_json_number(played, "max_error_pct"),
             100.0 * test_json_number(at, "q"),
             (unsigned long long)test_json_number(keys, "written"),
             (unsigned long long)test_json_number(keys, "one_per_frame"));
    if (!strstr(table, row)) fail_msg("the table has no row\n%s", row);
}

/* `sinew solve --json` on the procedural mouse, --rotation-only so both rows of each clip
 * show: one JSON document on stdout whose numbers, printed back in the table's format, are
 * the table's of the same solve (header, rows, overall, worst lines), with each output's path
 * and size; -o is the bytes the table's run writes. --report - still follows the table with
 * the report; beside --json it is refused (exit 2), nothing written. */
static void test_json_holds_the_table(void **state)
{
    (void)state;
    char dir[256], in[512], table_out[512], json_out[512], err[512], command[8192];
    static char table[65536], log[65536];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/mouse.glb", dir);
    snprintf(table_out, sizeof table_out, "%s/table.glb", dir);
    snprintf(json_out, sizeof json_out, "%s/json.glb", dir);
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    assert_int_equal(test_run(log, sizeof log, "'%s' creature mouse -o '%s'", test_sinew_bin(), in),
                     0);
    const char *opts = "--control --clips Walk,Sprint --max-vertices 50 --rotation-only";
    assert_int_equal(test_run(table, sizeof table, "'%s' solve --source '%s' %s -o '%s'",
                              test_sinew_bin(), in, opts, table_out),
                     0);
    snprintf(command, sizeof command, "'%s' solve --source '%s' %s -o '%s' --json",
             test_sinew_bin(), in, opts, json_out);
    cJSON *j = test_run_json(command, err);

    char line[512];
    snprintf(line, sizeof line, "%u vertices (%u fitted), %u joints,",
             (unsigned)test_json_number(j, "vertices"),
             (unsigned)test_json_number(j, "fitted_vertices"),
             (unsigned)test_json_number(j, "joints"));
    assert_non_null(strstr(table, line));
    assert_int_equal((int)test_json_number(j, "fitted_vertices"), 50);
    const cJSON *clips = test_json_member(j, "clips"), *c;
    assert_int_equal(cJSON_GetArraySize(clips), 2);
    cJSON_ArrayForEach(c, clips)
    {
        const char *name = test_json_member(c, "name")->valuestring;
        const cJSON *solve = test_json_member(c, "solve");
        assert_row(table, name, "rot-only", solve);
        assert_row(table, "", "free", test_json_member(c, "free_solve"));
        const cJSON *worst = test_json_member(solve, "worst");
        snprintf(line, sizeof line,
                 "worst in %s: %.4f%% of the diagonal at t = %.3f s, vertex %u\n", name,
                 test_json_number(test_json_member(solve, "quality"), "max_error_pct"),
                 test_json_number(worst, "time"), (unsigned)test_json_number(worst, "vertex"));
        if (!strstr(table, line)) fail_msg("the table has no line\n%s", line);
    }
    const cJSON *all = test_json_member(j, "overall"),
                *all_free = test_json_member(j, "overall_free");
    snprintf(line, sizeof line,
             "overall: Q %.3f%%, mean %.4f%%, max %.4f%% of the diagonal (free solve: Q %.3f%%)\n",
             100.0 * test_json_number(all, "q"), test_json_number(all, "mean_error_pct"),
             test_json_number(all, "max_error_pct"), 100.0 * test_json_number(all_free, "q"));
    if (!strstr(table, line)) fail_msg("the table has no line\n%s", line);
    const cJSON *written = test_json_member(test_json_member(j, "written"), "output");
    assert_string_equal(test_json_member(written, "path")->valuestring, json_out);
    size_t size_table = 0, size_json = 0;
    char *a = test_read_file(table_out, &size_table), *b = test_read_file(json_out, &size_json);
    assert_true(a && b && size_table == size_json && !memcmp(a, b, size_json));
    free(a);
    free(b);
    assert_true(test_json_number(written, "bytes") == (double)size_json);

    /* --report - as before: the table, then the report, whose overall Q is the same. */
    assert_int_equal(test_run(log, sizeof log, "{ '%s' solve --source '%s' %s --report - 2>'%s'; }",
                              test_sinew_bin(), in, opts, err),
                     0);
    const char *report = strstr(log, "\n{\n");
    assert_non_null(report);
    assert_non_null(strstr(log, "overall: Q "));
    assert_true(strstr(log, "overall: Q ") < report);
    const char *end = NULL;
    cJSON *r = cJSON_ParseWithOpts(report + 1, &end, 1);
    assert_non_null(r);
    assert_true(test_json_number(test_json_member(r, "overall"), "q") ==
                test_json_number(all, "q"));
    cJSON_Delete(r);
    cJSON_Delete(j);

    /* --json and --report - would share stdout: refused before any work. */
    remove(json_out);
    assert_int_equal(test_run(log, sizeof log,
                              "'%s' solve --source '%s' %s -o '%s' --json --report -",
                              test_sinew_bin(), in, opts, json_out),
                     2);
    assert_non_null(strstr(log, "--json and --report - both write to standard output"));
    assert_null(strchr(log, '{'));
    assert_false(test_file_exists(json_out));
    test_run(NULL, 0, "rm -rf '%s'", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_clip_is_solved),
        cmocka_unit_test(test_dense_clip_is_resampled),
        cmocka_unit_test(test_json_holds_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
