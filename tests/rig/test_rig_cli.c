/* `sinew tail` from the outside. One executable, three ctest entries chosen by argv[1]:
 *   cli        exit codes and messages for bad input, the table, the JSON report, rigid mode,
 *              a second run finding nothing new, no partial output on failure; the spring
 *              option --bind-limit (bad values exit 2 writing nothing, values change keys);
 *              --garment chains on the skirt creature (bad values exit 2 writing nothing;
 *              N chains, the report's shape; `sinew bake` bakes the garment again);
 *   validate   every output (creature fox, the rabbit with --ears, the chained skirt, each
 *              notail model) passes the Khronos glTF-Validator with 0 errors
 *              (node tests/tools/validate.mjs);
 *   blender    Blender 3.4 imports the creature fox's and the notail Fox's outputs with the
 *              Tail_* bones in the armature, each drawn along the tail: within a degree of
 *              the line to the next joint (tests/tools/blender_import.py). */
#include "test_util.h"

#include <cjson/cJSON.h>
#include <math.h>

static char tmp[256];

static void make_tmp(void)
{
    if (!tmp[0]) assert_non_null(test_tmpdir(tmp, sizeof tmp));
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = calloc((size_t)n + 1, 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = 0;
    fclose(f);
    return s;
}

/* Makes the creature fox and rigs its tail into tmp/fox_tail.glb (once). */
static const char *fox_output(void)
{
    static char out[512];
    make_tmp();
    snprintf(out, sizeof out, "%s/fox_tail.glb", tmp);
    if (test_file_exists(out)) return out;
    static char text[65536];
    assert_int_equal(
        test_run(text, sizeof text, "%s creature fox -o %s/fox.glb", test_sinew_bin(), tmp), 0);
    assert_int_equal(test_run(text, sizeof text, "%s tail %s/fox.glb -o %s --report %s/fox.json",
                              test_sinew_bin(), tmp, out, tmp),
                     0);
    return out;
}

static void test_cli(void **state)
{
    (void)state;
    static char text[65536];
    const char *bin = test_sinew_bin();
    make_tmp();
    /* Help documents the bake and its spring options. */
    assert_int_equal(test_run(text, sizeof text, "%s tail --help", bin), 0);
    assert_non_null(strstr(text, "--no-bake"));
    assert_non_null(strstr(text, "--frequency"));
    /* Usage errors: exit 2, a message naming the problem. */
    assert_int_equal(test_run(text, sizeof text, "%s tail", bin), 2);
    assert_non_null(strstr(text, "missing input"));
    assert_int_equal(test_run(text, sizeof text, "%s tail %s/x.glb", bin, tmp), 2);
    assert_non_null(strstr(text, "-o"));
    assert_int_equal(test_run(text, sizeof text, "%s tail a.glb -o b.glb --mode wobbly", bin), 2);
    assert_non_null(strstr(text, "wobbly"));
    assert_int_equal(test_run(text, sizeof text, "%s tail a.glb -o b.glb --frobnicate", bin), 2);
    /* Bad input: exit 1, no output left behind. */
    char bad[512], out[512];
    snprintf(bad, sizeof bad, "%s/bad.glb", tmp);
    snprintf(out, sizeof out, "%s/never.glb", tmp);
    FILE *f = fopen(bad, "wb");
    fputs("glTF this is not", f);
    fclose(f);
    assert_int_equal(test_run(text, sizeof text, "%s tail %s -o %s", bin, bad, out), 1);
    assert_non_null(strstr(text, "sinew tail:"));
    assert_false(test_file_exists(out));
    assert_int_equal(test_run(text, sizeof text, "%s tail %s/missing.glb -o %s", bin, tmp, out), 1);
    assert_false(test_file_exists(out));
    /* The fox: a table with one chain, a JSON report with an appendages list. */
    const char *fox = fox_output();
    assert_true(test_file_exists(fox));
    char path[600];
    snprintf(path, sizeof path, "%s/fox.json", tmp);
    char *json = read_all(path);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"appendages\""));
    assert_non_null(strstr(json, "\"verdict\":\t\"chain\""));
    assert_non_null(strstr(json, "\"Tail_End\""));
    assert_non_null(strstr(json, "\"weighted_distance_before\""));
    free(json);
    assert_int_equal(
        test_run(text, sizeof text, "%s tail %s/fox.glb -o %s/fox2.glb", bin, tmp, tmp), 0);
    assert_non_null(strstr(text, "1 chain(s)"));
    assert_non_null(strstr(text, "Tail_1 .. Tail_End"));
    assert_non_null(strstr(text, "reach"));
    assert_non_null(strstr(text, "do no harm"));
    /* Running on the output again: nothing new. */
    assert_int_equal(test_run(text, sizeof text, "%s tail %s -o %s/again.glb", bin, fox, tmp), 0);
    assert_non_null(strstr(text, "already has one"));
    assert_non_null(strstr(text, "sinew bake"));
    /* Rigid: no bones, the tail on the pelvis. */
    assert_int_equal(test_run(text, sizeof text, "%s tail %s/fox.glb -o %s/rigid.glb --mode rigid",
                              bin, tmp, tmp),
                     0);
    assert_non_null(strstr(text, "rigid on the pelvis"));
    assert_non_null(strstr(text, "0 chain(s)"));
    assert_null(strstr(text, "no tail found"));
}

/* The largest swing in a bake table (last column, degrees), or -1 when there is none. */
static float max_swing(const char *table)
{
    float best = -1;
    for (const char *line = table; line && *line; line = strchr(line, '\n')) {
        if (*line == '\n') line++;
        /* a row: name keys rate loop passes drift° seam° swing° */
        char name[64], loop[8];
        unsigned keys, passes;
        float rate, drift, seam, swing;
        if (sscanf(line, " %63s %u %f %7s %u %f° %f° %f°", name, &keys, &rate, loop, &passes,
                   &drift, &seam, &swing) == 8 &&
            swing > best)
            best = swing;
    }
    return best;
}

/* --bind-limit DEG (sinew_dyn_params.bind_limit) for `sinew bake` and `sinew tail`: bad
 * values are usage errors that write nothing; the default spelled out changes nothing; a
 * narrower cone changes the baked tail keys and holds the swing back. */
static void test_bind_limit(void **state)
{
    (void)state;
    static char text[65536];
    const char *bin = test_sinew_bin();
    const char *fox = fox_output();
    char out[600];
    snprintf(out, sizeof out, "%s/bind.glb", tmp);
    assert_int_equal(test_run(text, sizeof text, "%s bake --help", bin), 0);
    assert_non_null(strstr(text, "--bind-limit DEG"));
    assert_non_null(strstr(text, "(default 25)"));
    const char *bad[] = {"-1", "-0.5", "nan", "NaN", "abc", "12deg", "180.5", "1e9", "inf", "''"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        for (int tail = 0; tail < 2; tail++) {
            int rc = test_run(text, sizeof text, "%s %s %s -o %s --bind-limit %s", bin,
                              tail ? "tail" : "bake", fox, out, bad[k]);
            if (rc != 2) print_error("--bind-limit %s: exit %d\n%s\n", bad[k], rc, text);
            assert_int_equal(rc, 2);
            /* not a number, or the library's range in the option's unit */
            assert_non_null(strstr(text, "--bind-limit"));
            assert_true(strstr(text, "wants a number in degrees") ||
                        strstr(text, "must be from 0 to 180 degrees"));
            assert_false(test_file_exists(out));
        }
    }
    assert_int_equal(test_run(text, sizeof text, "%s bake %s -o %s --bind-limit", bin, fox, out),
                     2);
    assert_false(test_file_exists(out));
    /* the default, spelled out or not, bakes the same bytes; 5 degrees bakes other keys */
    char def[600], same[600], narrow[600];
    snprintf(def, sizeof def, "%s/bind_default.glb", tmp);
    snprintf(same, sizeof same, "%s/bind_25.glb", tmp);
    snprintf(narrow, sizeof narrow, "%s/bind_5.glb", tmp);
    assert_int_equal(test_run(text, sizeof text, "%s bake %s -o %s", bin, fox, def), 0);
    const float swing_default = max_swing(text);
    assert_int_equal(
        test_run(text, sizeof text, "%s bake %s -o %s --bind-limit 25", bin, fox, same), 0);
    assert_int_equal(
        test_run(text, sizeof text, "%s bake %s -o %s --bind-limit 5", bin, fox, narrow), 0);
    const float swing_narrow = max_swing(text);
    print_message("largest swing: %.1f degrees by default, %.1f with --bind-limit 5\n",
                  (double)swing_default, (double)swing_narrow);
    size_t n_def = 0, n_same = 0, n_narrow = 0;
    char *a = test_read_file(def, &n_def), *b = test_read_file(same, &n_same),
         *c = test_read_file(narrow, &n_narrow);
    assert_true(a && b && c);
    assert_true(n_def == n_same && memcmp(a, b, n_def) == 0);
    assert_true(n_def != n_narrow || memcmp(a, c, n_def) != 0);
    assert_true(swing_default > 0 && swing_narrow >= 0);
    assert_true(swing_narrow < swing_default - 2.0f);
    free(a);
    free(b);
    free(c);
    /* `sinew tail` takes it too */
    snprintf(out, sizeof out, "%s/fox_bind.glb", tmp);
    assert_int_equal(
        test_run(text, sizeof text, "%s tail %s/fox.glb -o %s --bind-limit 10", bin, tmp, out), 0);
    assert_true(test_file_exists(out));
}

/* The skirt creature with --garment chains --garment-chains 6 into tmp/skirt_6.glb (once). */
static const char *skirt_output(void)
{
    static char out[512];
    make_tmp();
    snprintf(out, sizeof out, "%s/skirt_6.glb", tmp);
    if (test_file_exists(out)) return out;
    static char text[65536];
    assert_int_equal(
        test_run(text, sizeof text, "%s creature skirt -o %s/skirt.glb", test_sinew_bin(), tmp), 0);
    assert_int_equal(test_run(text, sizeof text,
                              "%s tail %s/skirt.glb -o %s --garment chains --garment-chains 6 "
                              "--report %s/skirt_6.json",
                              test_sinew_bin(), tmp, out, tmp),
                     0);
    assert_non_null(strstr(text, "Garment_6_1"));
    assert_null(strstr(text, "Garment_7_1"));
    assert_non_null(strstr(text, "6 chains of 3 segments around it"));
    return out;
}

static void test_garment(void **state)
{
    (void)state;
    static char text[65536];
    const char *bin = test_sinew_bin();
    make_tmp();
    assert_int_equal(test_run(text, sizeof text, "%s tail --help", bin), 0);
    assert_non_null(strstr(text, "--garment chains"));
    assert_non_null(strstr(text, "--garment-chains N"));
    const char *out = skirt_output();
    char path[600], bad[600];
    snprintf(bad, sizeof bad, "%s/garment_bad.glb", tmp);
    const char *wrong[] = {
        "--garment frills", "--garment-chains 6", "--garment chains --garment-chains 1",
        "--garment chains --garment-chains 17", "--garment chains --garment-chains x"};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        assert_int_equal(
            test_run(text, sizeof text, "%s tail %s/skirt.glb -o %s %s", bin, tmp, bad, wrong[i]),
            2);
        assert_non_null(strstr(text, "--garment"));
        assert_false(test_file_exists(bad));
    }
    /* The report names the garment's shape and chains. */
    snprintf(path, sizeof path, "%s/skirt_6.json", tmp);
    char *json = read_all(path);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"verdict\":\t\"garment\""));
    assert_non_null(strstr(json, "\"garment_shape\":\t\"ring\""));
    assert_non_null(strstr(json, "\"garment_chains\":\t6"));
    assert_non_null(strstr(json, "\"garment_bones\":"));
    assert_non_null(strstr(json, "\"Garment_6_End\""));
    assert_null(strstr(json, "\"bones\":")); /* one key per object: no chain listed twice */
    free(json);
    /* Without the option the skirt stays as it was: nothing to grow. */
    assert_int_equal(test_run(text, sizeof text, "%s tail %s/skirt.glb -o %s", bin, tmp, bad), 0);
    assert_null(strstr(text, "Garment_"));
    /* `sinew bake` finds the garment by name and bakes it again. */
    snprintf(path, sizeof path, "%s/skirt_6_baked.glb", tmp);
    assert_int_equal(test_run(text, sizeof text, "%s bake %s -o %s", bin, out, path), 0);
    assert_non_null(strstr(text, "(garments)"));
}

static void test_validate(void **state)
{
    (void)state;
    static char text[65536];
    const char *fox = fox_output();
    assert_int_equal(test_run(text, sizeof text, "cd %s && node tests/tools/validate.mjs %s",
                              SINEW_SOURCE_DIR, fox),
                     0);
    fprintf(stderr, "%s", text);
    assert_non_null(strstr(text, "\"errors\":0"));
    /* the rabbit with --ears: its Ear_L_* and Ear_R_* chains and their baked keys */
    const char *bin = test_sinew_bin();
    assert_int_equal(test_run(text, sizeof text,
                              "%s creature rabbit -o %s/rabbit.glb && %s tail %s/rabbit.glb -o "
                              "%s/rabbit_ears.glb --ears",
                              bin, tmp, bin, tmp, tmp),
                     0);
    assert_non_null(strstr(text, "Ear_L_1 .. Ear_L_End"));
    assert_int_equal(test_run(text, sizeof text,
                              "cd %s && node tests/tools/validate.mjs %s/rabbit_ears.glb",
                              SINEW_SOURCE_DIR, tmp),
                     0);
    fprintf(stderr, "%s", text);
    assert_non_null(strstr(text, "\"errors\":0"));
    assert_int_equal(test_run(text, sizeof text, "cd %s && node tests/tools/validate.mjs %s",
                              SINEW_SOURCE_DIR, skirt_output()),
                     0);
    fprintf(stderr, "%s", text);
    assert_non_null(strstr(text, "\"errors\":0"));
    const char *dir = test_models_dir();
    if (!dir) return;
    const char *names[] = {"Fox.glb", "quaternius_Fox.glb", "quaternius_TRex.glb",
                           "quaternius_Velociraptor.glb"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        assert_int_equal(test_run(text, sizeof text, "%s tail %s/notail/%s -o %s/%s",
                                  test_sinew_bin(), dir, names[i], tmp, names[i]),
                         0);
        assert_int_equal(test_run(text, sizeof text, "cd %s && node tests/tools/validate.mjs %s/%s",
                                  SINEW_SOURCE_DIR, tmp, names[i]),
                         0);
        fprintf(stderr, "%s", text);
        assert_non_null(strstr(text, "\"errors\":0"));
    }
}

/* The most chain bones blender_check reads. */
#define SINEW_TEST_MAX_BONES 16

static void blender_check(const char *glb, const char *json_path, int bones)
{
    static char text[65536];
    int rc = test_run(text, sizeof text,
                      "blender -b --factory-startup --python-exit-code 1 -P "
                      "%s/tests/tools/blender_import.py -- %s %s",
                      SINEW_SOURCE_DIR, glb, json_path);
    assert_int_equal(rc, 0);
    char *json = read_all(json_path);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"ok\": true"));
    char want[32];
    for (int b = 1; b < bones; b++) {
        snprintf(want, sizeof want, "\"Tail_%d\"", b);
        assert_non_null(strstr(json, want));
    }
    assert_non_null(strstr(json, "\"Tail_End\""));
    /* Blender draws each chain bone along the tail, towards the next joint. */
    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    const cJSON *arm = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "armatures"), 0);
    const cJSON *names = cJSON_GetObjectItem(arm, "bones"),
                *heads = cJSON_GetObjectItem(arm, "heads"),
                *tails = cJSON_GetObjectItem(arm, "tails");
    double head[SINEW_TEST_MAX_BONES][3], along[SINEW_TEST_MAX_BONES][3];
    assert_true(bones <= SINEW_TEST_MAX_BONES);
    int found = 0;
    for (int i = 0; i < cJSON_GetArraySize(names); i++) {
        int b;
        const char *name = cJSON_GetArrayItem(names, i)->valuestring;
        if (sscanf(name, "Tail_%d", &b) != 1 || b < 1 || b > bones) continue;
        for (int k = 0; k < 3; k++) {
            head[b - 1][k] = cJSON_GetArrayItem(cJSON_GetArrayItem(heads, i), k)->valuedouble;
            along[b - 1][k] =
                cJSON_GetArrayItem(cJSON_GetArrayItem(tails, i), k)->valuedouble - head[b - 1][k];
        }
        found++;
    }
    assert_int_equal(found, bones);
    for (int b = 0; b + 1 < bones; b++) {
        double to[3], dot = 0, la = 0, lt = 0;
        for (int k = 0; k < 3; k++) {
            to[k] = head[b + 1][k] - head[b][k];
            dot += along[b][k] * to[k], la += along[b][k] * along[b][k], lt += to[k] * to[k];
        }
        printf("%s: Tail_%d drawn %.3f degrees off the line to Tail_%d\n", glb, b + 1,
               acos(fmin(1.0, dot / sqrt(la * lt))) * 180.0 / acos(-1.0), b + 2);
        assert_true(dot > cos(acos(-1.0) / 180.0) * sqrt(la * lt));
    }
    cJSON_Delete(root);
    free(json);
}

static void test_blender(void **state)
{
    (void)state;
    static char text[4096];
    if (test_run(text, sizeof text, "command -v blender") != 0) {
        fprintf(stderr, "note: blender is not installed: skipping\n");
        test_skip();
    }
    char json[600];
    snprintf(json, sizeof json, "%s/fox_blender.json", tmp);
    blender_check(fox_output(), json, 4); /* the creature fox: K = 4 */
    const char *dir = test_models_dir();
    if (!dir) return;
    char out[600];
    snprintf(out, sizeof out, "%s/khronos_fox.glb", tmp);
    assert_int_equal(
        test_run(text, sizeof text, "%s tail %s/notail/Fox.glb -o %s", test_sinew_bin(), dir, out),
        0);
    snprintf(json, sizeof json, "%s/khronos_blender.json", tmp);
    blender_check(out, json, 4);
}

/* Runs `sinew tail` on MODELS/file with a report and checks that the report's `part`_worse flag
 * (tail, collar or body) is the check's bar applied to its own before and after figures, that every
 * clip it marks is named on the table's line starting with `said`, and that the line is there
 * exactly when one is. Returns the clips marked. */
static int check_worse_said(const char *file, const char *part, const char *said)
{
    const char *dir = test_models_dir();
    make_tmp();
    static char text[1 << 17];
    char out[512], report[512], key[32];
    snprintf(out, sizeof out, "%s/said.glb", tmp);
    snprintf(report, sizeof report, "%s/said.json", tmp);
    assert_int_equal(test_run(text, sizeof text, "%s tail %s/%s -o %s --report %s",
                              test_sinew_bin(), dir, file, out, report),
                     0);
    size_t size = 0;
    char *json = test_read_file(report, &size);
    assert_non_null(json);
    cJSON *root = cJSON_Parse(json);
    free(json);
    assert_non_null(root);
    const char *line = strstr(text, said);
    const char *end = line ? strchr(line, '\n') : NULL;
    int worse = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cJSON_GetObjectItem(root, "check"), "clips"))
    {
        /* the flag is the check's bar applied to the report's own figures */
        snprintf(key, sizeof key, "%s_before", part);
        const cJSON *before = cJSON_GetObjectItem(c, key);
        snprintf(key, sizeof key, "%s_after", part);
        const cJSON *after = cJSON_GetObjectItem(c, key);
        const double torn0 = cJSON_GetObjectItem(before, "torn_share")->valuedouble,
                     torn1 = cJSON_GetObjectItem(after, "torn_share")->valuedouble,
                     p0 = cJSON_GetObjectItem(before, "p99")->valuedouble,
                     p1 = cJSON_GetObjectItem(after, "p99")->valuedouble;
        const int bar = torn1 > torn0 + 0.001 + 1e-7 || p1 > p0 + 0.02 + 1e-6;
        const int near = fabs(torn1 - torn0 - 0.001) < 1e-6 || fabs(p1 - p0 - 0.02) < 1e-5;
        snprintf(key, sizeof key, "%s_worse", part);
        const int flagged = cJSON_IsTrue(cJSON_GetObjectItem(c, key));
        if (!near) assert_int_equal(flagged, bar);
        if (!flagged) continue;
        worse++;
        char named[128];
        snprintf(named, sizeof named, " %s (p99", cJSON_GetObjectItem(c, "clip")->valuestring);
        const char *at = line ? strstr(line, named) : NULL;
        assert_true(at && at < end);
    }
    print_message("%s: %d clip(s) with the %s worse, said: %s\n", file, worse, part,
                  line ? "yes" : "no");
    assert_int_equal(worse > 0, line != NULL);
    cJSON_Delete(root);
    return worse;
}

/* The check says when the collar round a root (re-weighted skin still on a body bone, and its
 * seams) comes out worse than the input's on a clip, apart from the body as a whole where a
 * collar's share is small: the real template rig whose stub tail rode the spine, the UM bunny
 * (Walk: its collar 2.3% -> 2.9% torn, the body 1.0% -> 1.0%; the chain mends its own skin). */
static void test_worse_collar_is_said(void **state)
{
    (void)state;
    if (!test_models_dir()) test_skip();
    assert_true(check_worse_said("quaternius_UM_Bunny.glb", "collar",
                                 "the collar round the roots (re-weighted skin still on a body "
                                 "bone, and its seams) strains more than the input's on") > 0);
}

/* The check counts the collar round a root (re-weighted skin a body bone still dominates) as
 * body, as a viewer does. The rat's collar tears more in Run (three.js, the artist's body
 * mask: 3.02% -> 3.25% of the body's edge samples) while its tail's skin mends (24.5% ->
 * 0.8%): the chain is kept, and the check must see and say the body's share of it. When the
 * collar counted as tail, the check printed the rat's body unchanged on every clip. */
static void test_worse_body_is_said(void **state)
{
    (void)state;
    if (!test_models_dir()) test_skip();
    assert_true(check_worse_said("notail/quaternius_Rat.glb", "body",
                                 "the body strains more than the input's on") > 0);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "cli";
    int r;
    if (!strcmp(which, "validate")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_validate)};
        r = cmocka_run_group_tests(t, NULL, NULL);
    } else if (!strcmp(which, "blender")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_blender)};
        r = cmocka_run_group_tests(t, NULL, NULL);
    } else {
        const struct CMUnitTest t[] = {
            cmocka_unit_test(test_cli), cmocka_unit_test(test_bind_limit),
            cmocka_unit_test(test_garment), cmocka_unit_test(test_worse_collar_is_said),
            cmocka_unit_test(test_worse_body_is_said)};
        r = cmocka_run_group_tests(t, NULL, NULL);
    }
    if (tmp[0]) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0) r = r ? r : 1;
    }
    return test_exit_code(r);
}
