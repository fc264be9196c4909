/* `sinew bake` and `sinew tail` on hostile input built here: a clip with a stray key far
 * beyond the others is refused (exit 1, no output) in a second instead of baking for minutes
 * into gigabytes, and a spring option the library would refuse is a usage error (exit 2) that
 * names the option and the range the library accepts. And their --json: the table's figures,
 * on stdout alone. */
#include "test_json.h"

#include "sinew/creature.h"
#include "sinew/document.h"

#include <math.h>

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
        "--damping 0", "--rest-curve 2", "--frequency 50",   "--frequency 5 --damping 10",
        "--idle 46",   "--idle -1",      "--idle-seed -1",   "--idle-seed 4294967296"};
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

/* The model in a baked file (freed by the caller). */
static sinew_model *load_model(const char *path)
{
    sinew_document *doc = NULL;
    sinew_model *model = NULL;
    assert_int_equal(sinew_document_load_file(path, NULL, &doc, NULL), SINEW_OK);
    assert_int_equal(sinew_model_from_document(doc, NULL, &model, NULL), SINEW_OK);
    sinew_document_free(doc);
    return model;
}

static int is_tail(const sinew_model *m, int32_t node)
{
    return m->nodes[node].name && strstr(m->nodes[node].name, "Tail_") != NULL;
}

/* The largest angle, degrees, between the same tail joint's keys in clip c of a and b. */
static double tail_difference(const sinew_model *a, const sinew_model *b, uint32_t c)
{
    double worst = 0;
    for (uint32_t k = 0; k < a->clips[c].channel_count; k++) {
        const sinew_channel *x = &a->clips[c].channels[k], *y = &b->clips[c].channels[k];
        if (!is_tail(a, x->node) || x->path != SINEW_PATH_ROTATION) continue;
        assert_int_equal(x->key_count, y->key_count);
        for (uint32_t i = 0; i < x->key_count; i++) {
            const float *p = &x->values[4 * i], *q = &y->values[4 * i];
            double dot = fabs((double)(p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3]));
            worst = fmax(worst, 2.0 * acos(fmin(1.0, dot)) * 180.0 / SINEW_PI);
        }
    }
    return worst;
}

/* The drift column of clip `name` in a bake table. */
static double table_drift(const char *log, const char *name)
{
    const char *row = strstr(log, name);
    unsigned keys, passes;
    float rate, drift;
    char loop[8];
    assert_non_null(row);
    assert_int_equal(
        sscanf(row + strlen(name), "%u %f %7s %u %f", &keys, &rate, loop, &passes, &drift), 5);
    return drift;
}

/* Idle sway on the procedural fox: --idle 0 is the bake without it, byte for byte; on, the
 * same seed writes the same bytes and another seed other ones; the body's channels are the
 * same bits with and without it, the tail's Idle keys move by degrees and the loop closes by
 * the warm-up alone. */
static void test_idle_sway(void **state)
{
    (void)state;
    char dir[256], in[512], tailed[512], log[8192], path[5][512];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/fox.glb", dir);
    snprintf(tailed, sizeof tailed, "%s/fox_tail.glb", dir);
    sinew_model *fox = NULL;
    sinew_document *doc = NULL;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_FOX, NULL, &fox, NULL, NULL), SINEW_OK);
    assert_int_equal(sinew_document_from_model(fox, &doc, NULL), SINEW_OK);
    assert_int_equal(sinew_document_write_file(doc, in, NULL), SINEW_OK);
    sinew_document_free(doc);
    sinew_model_free(fox);
    assert_int_equal(test_run(log, sizeof log, "'%s' tail '%s' -o '%s' --no-bake --no-check",
                              test_sinew_bin(), in, tailed),
                     0);
    static const char *opts[5] = {"", "--idle 0", "--idle 10 --idle-seed 3",
                                  "--idle 10 --idle-seed 3", "--idle 10 --idle-seed 4"};
    char *bytes[5];
    size_t size[5];
    for (int k = 0; k < 5; k++) {
        snprintf(path[k], sizeof path[k], "%s/baked%d.glb", dir, k);
        assert_int_equal(test_run(log, sizeof log, "'%s' bake '%s' -o '%s' %s", test_sinew_bin(),
                                  tailed, path[k], opts[k]),
                         0);
        print_message("%s: %s", opts[k], log);
        assert_true(table_drift(log, "Idle ") <= 0.5);
        bytes[k] = test_read_file(path[k], &size[k]);
        assert_non_null(bytes[k]);
    }
    assert_true(size[0] == size[1] && !memcmp(bytes[0], bytes[1], size[0]));
    assert_true(size[2] == size[3] && !memcmp(bytes[2], bytes[3], size[2]));
    assert_false(size[2] == size[4] && !memcmp(bytes[2], bytes[4], size[2]));
    sinew_model *off = load_model(path[0]), *on = load_model(path[2]);
    assert_int_equal(off->clip_count, on->clip_count);
    uint32_t idle = off->clip_count;
    for (uint32_t c = 0; c < off->clip_count; c++) {
        if (!strcmp(off->clips[c].name, "Idle")) idle = c;
        assert_int_equal(off->clips[c].channel_count, on->clips[c].channel_count);
        for (uint32_t k = 0; k < off->clips[c].channel_count; k++) {
            const sinew_channel *x = &off->clips[c].channels[k], *y = &on->clips[c].channels[k];
            assert_int_equal(x->node, y->node);
            if (is_tail(off, x->node)) continue;
            const uint32_t width = x->path == SINEW_PATH_ROTATION ? 4 : 3;
            assert_int_equal(x->key_count, y->key_count);
            assert_memory_equal(x->times, y->times, x->key_count * sizeof(float));
            assert_memory_equal(x->values, y->values, x->key_count * width * sizeof(float));
        }
    }
    assert_true(idle < off->clip_count);
    const double moved = tail_difference(off, on, idle);
    print_message("Idle: tail keys up to %.2f deg from the bake without idle sway\n", moved);
    assert_true(moved >= 2.0);
    sinew_model_free(off);
    sinew_model_free(on);
    for (int k = 0; k < 5; k++)
        free(bytes[k]);
}

/* The procedural fox with its tail chained (not baked) at `tailed`, in folder `dir`. */
static void write_tailed_fox(const char *dir, char *tailed, size_t size)
{
    char in[512], log[8192];
    snprintf(in, sizeof in, "%s/fox.glb", dir);
    snprintf(tailed, size, "%s/fox_tail.glb", dir);
    sinew_model *fox = NULL;
    sinew_document *doc = NULL;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_FOX, NULL, &fox, NULL, NULL), SINEW_OK);
    assert_int_equal(sinew_document_from_model(fox, &doc, NULL), SINEW_OK);
    assert_int_equal(sinew_document_write_file(doc, in, NULL), SINEW_OK);
    sinew_document_free(doc);
    sinew_model_free(fox);
    assert_int_equal(test_run(log, sizeof log, "'%s' tail '%s' -o '%s' --no-bake --no-check",
                              test_sinew_bin(), in, tailed),
                     0);
}

static int flag(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    if (!cJSON_IsBool(v)) fail_msg("no boolean \"%s\"", key);
    return cJSON_IsTrue(v);
}

/* Each clip of `clips` (bake --json's, tail --json's "bake") is the row the bake table of
 * `table` prints for it, printed here from the JSON's numbers in the table's own format. */
static void assert_bake_rows(const char *table, const cJSON *clips, int count)
{
    assert_int_equal(cJSON_GetArraySize(clips), count);
    const cJSON *c;
    cJSON_ArrayForEach(c, clips)
    {
        char row[256];
        snprintf(row, sizeof row, "  %-24s %5u %6.1f %5s %7u %7.2f° %7.2f° %7.1f° %7.2f°\n",
                 cJSON_GetObjectItem(c, "name")->valuestring, (unsigned)test_json_number(c, "keys"),
                 test_json_number(c, "rate"), flag(c, "looping") ? "yes" : "no",
                 (unsigned)test_json_number(c, "passes"), test_json_number(c, "drift_degrees"),
                 test_json_number(c, "seam_degrees"), test_json_number(c, "swing_degrees"),
                 test_json_number(c, "tip_swing_degrees"));
        if (!strstr(table, row)) fail_msg("the table has no row\n%s", row);
        assert_true(flag(c, "closed")); /* the fox's loops close: no note on the rows */
    }
}

/* `sinew bake --json` on the procedural fox, with --vrm-springs: one JSON document on stdout
 * holding the table's figures (each clip's row and each VRM joint's, printed back from the
 * JSON in the table's format, are in the table of the same bake), the paths and OUT's size;
 * OUT is the bytes the table's run writes. --json with -o - is refused, nothing written. */
static void test_bake_json_holds_the_table(void **state)
{
    (void)state;
    char dir[256], tailed[512], table_out[512], json_out[512], err[512], table[16384];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    write_tailed_fox(dir, tailed, sizeof tailed);
    snprintf(table_out, sizeof table_out, "%s/table.glb", dir);
    snprintf(json_out, sizeof json_out, "%s/json.glb", dir);
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    assert_int_equal(test_run(table, sizeof table, "'%s' bake '%s' -o '%s' --vrm-springs",
                              test_sinew_bin(), tailed, table_out),
                     0);
    char command[8192];
    snprintf(command, sizeof command, "'%s' bake '%s' -o '%s' --vrm-springs --json",
             test_sinew_bin(), tailed, json_out);
    cJSON *j = test_run_json(command, err);
    assert_string_equal(cJSON_GetObjectItem(j, "input")->valuestring, tailed);
    assert_string_equal(cJSON_GetObjectItem(j, "output")->valuestring, json_out);
    size_t size_table = 0, size_json = 0;
    char *a = test_read_file(table_out, &size_table), *b = test_read_file(json_out, &size_json);
    assert_true(a && b && size_table == size_json && !memcmp(a, b, size_json));
    free(a);
    free(b);
    assert_true(test_json_number(j, "bytes") == (double)size_json);
    const int clips = (int)test_json_number(j, "clip_count");
    char line[64];
    snprintf(line, sizeof line, ": baked %d clips -> ", clips);
    assert_non_null(strstr(table, line));
    assert_true(flag(j, "tail"));
    assert_int_equal((int)test_json_number(j, "wings"), 0);
    assert_bake_rows(table, cJSON_GetObjectItem(j, "clips"), clips);
    const cJSON *joints = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "vrm_springs"), "joints");
    assert_true(cJSON_GetArraySize(joints) >= 2);
    const cJSON *x;
    cJSON_ArrayForEach(x, joints)
    {
        char row[256];
        snprintf(row, sizeof row, "  %-16s %5.2fHz %5.2f %10.4g %9.4f %12.4g %9.4g\n",
                 cJSON_GetObjectItem(x, "node")->valuestring, test_json_number(x, "frequency"),
                 test_json_number(x, "damping_ratio"), test_json_number(x, "stiffness"),
                 test_json_number(x, "drag_force"), test_json_number(x, "gravity_power"),
                 test_json_number(x, "hit_radius"));
        if (!strstr(table, row)) fail_msg("the VRM table has no row\n%s", row);
    }
    cJSON_Delete(j);
    /* Standard output is the JSON's alone: an output there too is refused. */
    remove(json_out);
    char log[4096];
    assert_int_equal(
        test_run(log, sizeof log, "'%s' bake '%s' -o - --json", test_sinew_bin(), tailed), 2);
    assert_non_null(strstr(log, "--json and -o - both write to standard output"));
    assert_null(strchr(log, '{'));
    test_run(NULL, 0, "rm -rf '%s'", dir);
}

/* `sinew tail --json` carries the bake table as "bake", the same rows as its table; beside
 * --report - (the same stream) it is refused with nothing written. */
static void test_tail_json_holds_the_bake_table(void **state)
{
    (void)state;
    char dir[256], in[512], out[512], err[512], table[65536];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/fox.glb", dir);
    snprintf(out, sizeof out, "%s/out.glb", dir);
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    assert_int_equal(
        test_run(table, sizeof table, "'%s' creature fox -o '%s'", test_sinew_bin(), in), 0);
    assert_int_equal(
        test_run(table, sizeof table, "'%s' tail '%s' -o '%s'", test_sinew_bin(), in, out), 0);
    char command[8192];
    snprintf(command, sizeof command, "'%s' tail '%s' -o '%s' --json", test_sinew_bin(), in, out);
    cJSON *j = test_run_json(command, err);
    assert_bake_rows(table, cJSON_GetObjectItem(j, "bake"), 4); /* Walk, Sprint, Crouch, Idle */
    cJSON_Delete(j);
    remove(out);
    assert_int_equal(test_run(table, sizeof table, "'%s' tail '%s' -o '%s' --json --report -",
                              test_sinew_bin(), in, out),
                     2);
    assert_non_null(strstr(table, "--json and --report - both write to standard output"));
    assert_false(test_file_exists(out));
    test_run(NULL, 0, "rm -rf '%s'", dir);
}

/* --colliders: a value other than on or off is a usage error naming the option; on the mouse
 * (a floor-length tail, which the leg finder must not take for a leg) `sinew bake --colliders
 * on` keeps the tail out of the body's capsules and says so, `sinew tail --colliders off` does
 * not, and `sinew stretch --json` reports the tail skin inside the legs with the capsules it
 * measured against, the two legs' and none on the tail. */
static void test_colliders_option(void **state)
{
    (void)state;
    char dir[256], in[512], tailed[512], out[512], log[16384];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/mouse.glb", dir);
    snprintf(tailed, sizeof tailed, "%s/tailed.glb", dir);
    snprintf(out, sizeof out, "%s/out.glb", dir);
    write_mouse(in, 0);
    assert_int_equal(test_run(log, sizeof log, "'%s' tail '%s' -o '%s' --colliders maybe",
                              test_sinew_bin(), in, tailed),
                     2);
    assert_non_null(strstr(log, "--colliders must be on or off, not 'maybe'"));
    assert_false(test_file_exists(tailed));
    assert_int_equal(test_run(log, sizeof log, "'%s' tail '%s' -o '%s' --colliders off",
                              test_sinew_bin(), in, tailed),
                     0);
    assert_null(strstr(log, "colliders: the tail kept out of"));
    assert_int_equal(test_run(log, sizeof log, "'%s' bake '%s' -o '%s' --colliders on",
                              test_sinew_bin(), tailed, out),
                     0);
    assert_non_null(strstr(log, "colliders: the tail kept out of"));
    assert_int_equal(test_run(log, sizeof log, "'%s' bake '%s' -o '%s' --colliders",
                              test_sinew_bin(), tailed, out),
                     2);
    assert_int_equal(
        test_run(log, sizeof log, "'%s' stretch '%s' --json --samples 4", test_sinew_bin(), out),
        0);
    assert_non_null(strstr(log, "\"in_legs\""));
    assert_non_null(strstr(log, "\"LeftUpLeg\""));
    assert_non_null(strstr(log, "\"RightUpLeg\""));
    assert_null(strstr(log, "\"Tail_"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stray_key_is_refused),
        cmocka_unit_test(test_spring_options_use_the_library_ranges),
        cmocka_unit_test(test_idle_sway),
        cmocka_unit_test(test_bake_json_holds_the_table),
        cmocka_unit_test(test_tail_json_holds_the_bake_table),
        cmocka_unit_test(test_colliders_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
