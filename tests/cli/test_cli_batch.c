/* `sinew batch`: a folder of four creatures and one truncated file gives four outputs, five
 * JSON lines and exit 1; a rerun skips what is up to date (the hash each output records)
 * and redoes a changed input; a manifest is read in its order, relative to its folder; an
 * output never replaces an input; two shards run at once split the set with no overlap;
 * usage errors exit 2. The inputs are built by the test (`sinew creature`). */
#include "test_util.h"

#include <cjson/cJSON.h>
#include <inttypes.h>

#define OUT_SIZE (1u << 18)
static char out[OUT_SIZE];

/* The inputs, sorted as the folder listing sorts them; broken.glb is a cut creature. */
static const char *const names[] = {"broken", "caped", "lizard", "quiver", "rabbit"};
enum { NAME_COUNT = sizeof names / sizeof names[0], BROKEN = 0 };

static char dir[512], in_dir[600], out_dir[600];

static int make_inputs(void **state)
{
    (void)state;
    if (!test_tmpdir(dir, sizeof dir)) return -1;
    test_path(in_dir, sizeof in_dir, dir, "in");
    test_path(out_dir, sizeof out_dir, dir, "out");
    if (mkdir(in_dir, 0777)) return -1;
    const char *bin = test_sinew_bin();
    for (int i = 1; i < NAME_COUNT; i++)
        if (test_run(out, sizeof out, "'%s' creature %s -o '%s/%s.glb'", bin, names[i], in_dir,
                     names[i]))
            return -1;
    /* A valid file cut short, as an interrupted upload leaves it. */
    return test_run(out, sizeof out, "head -c 100000 '%s/lizard.glb' > '%s/broken.glb'", in_dir,
                    in_dir);
}

static int remove_files(void **state)
{
    (void)state;
    return test_run(out, sizeof out, "rm -rf '%s'", dir) ? -1 : 0;
}

/* The JSON lines of `text`, each parsed (cJSON_Delete each); returns how many. */
static int parse_lines(const char *text, cJSON **lines, int cap)
{
    int n = 0;
    for (const char *p = text; *p && n < cap;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        lines[n] = cJSON_ParseWithLength(p, len);
        assert_non_null(lines[n]);
        n++;
        p += len + (end != NULL);
    }
    return n;
}

static void free_lines(cJSON **lines, int n)
{
    for (int i = 0; i < n; i++)
        cJSON_Delete(lines[i]);
}

static const char *field(const cJSON *line, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, key));
    assert_non_null(s);
    return s;
}

/* The base name of the line's input without ".glb" ("lizard"). */
static void line_name(const cJSON *line, char *name, size_t size)
{
    const char *in = field(line, "input"), *slash = strrchr(in, '/');
    snprintf(name, size, "%s", slash ? slash + 1 : in);
    char *dot = strrchr(name, '.');
    if (dot) *dot = 0;
}

/* Runs `sinew batch ARGS` with standard error to a file; the lines from standard output. */
static int run_batch(cJSON **lines, int *count, const char *args)
{
    char err_path[700];
    test_path(err_path, sizeof err_path, dir, "stderr.txt");
    int code =
        test_run(out, sizeof out, "{ '%s' batch %s 2>'%s'; }", test_sinew_bin(), args, err_path);
    *count = parse_lines(out, lines, 16);
    return code;
}

/* FNV-1a 64 of a file's bytes, as docs/batch.md defines the recorded hash. */
static void file_hash(const char *path, char *text, size_t size)
{
    size_t n = 0;
    unsigned char *data = (unsigned char *)test_read_file(path, &n);
    assert_non_null(data);
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ data[i]) * 0x100000001b3u;
    free(data);
    snprintf(text, size, "fnv1a64:%016" PRIx64, h);
}

/* asset.extras.sinew[key] of a GLB (malloc'ed), or NULL. */
static char *glb_note(const char *path, const char *key)
{
    size_t n = 0;
    unsigned char *data = (unsigned char *)test_read_file(path, &n);
    assert_non_null(data);
    assert_true(n > 20 && !memcmp(data, "glTF", 4) && !memcmp(data + 16, "JSON", 4));
    uint32_t len = (uint32_t)data[12] | (uint32_t)data[13] << 8 | (uint32_t)data[14] << 16 |
                   (uint32_t)data[15] << 24;
    cJSON *root = cJSON_ParseWithLength((const char *)data + 20, len);
    free(data);
    const cJSON *notes = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "asset"), "extras"),
        "sinew");
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(notes, key));
    char *copy = v ? strdup(v) : NULL;
    cJSON_Delete(root);
    return copy;
}

static void output_path(char *path, size_t size, const char *folder, const char *name)
{
    snprintf(path, size, "%s/%s.glb", folder, name);
}

/* The first run, made once for the tests that build on it. */
static void first_run(void)
{
    static int done;
    if (done) return;
    cJSON *lines[16];
    int n = 0;
    char args[1400];
    snprintf(args, sizeof args, "'%s' -o '%s' --jobs 2", in_dir, out_dir);
    assert_int_equal(run_batch(lines, &n, args), 1);
    assert_int_equal(n, NAME_COUNT);
    for (int i = 0; i < n; i++) {
        char name[64], path[700];
        line_name(lines[i], name, sizeof name);
        assert_string_equal(name, names[i]); /* input order */
        output_path(path, sizeof path, out_dir, names[i]);
        assert_string_equal(field(lines[i], "output"), path);
        assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(lines[i], "seconds")));
        if (i == BROKEN) {
            assert_string_equal(field(lines[i], "status"), "failed");
            assert_non_null(strstr(field(lines[i], "message"), "broken.glb"));
            assert_false(test_file_exists(path));
            continue;
        }
        assert_string_equal(field(lines[i], "status"), "ok");
        assert_string_equal(field(lines[i], "message"), "");
        assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(lines[i], "chains")));
        assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(lines[i], "changed_vertices")));
        assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(lines[i], "tails")));
        /* The output records its input's hash. */
        char in_path[700], want[32];
        snprintf(in_path, sizeof in_path, "%s/%s.glb", in_dir, names[i]);
        file_hash(in_path, want, sizeof want);
        char *got = glb_note(path, "batch_input");
        assert_non_null(got);
        assert_string_equal(got, want);
        free(got);
    }
    /* The lizard's tail is found and chained: what was found is on its line. */
    assert_true(cJSON_GetObjectItemCaseSensitive(lines[2], "chains")->valuedouble >= 1);
    const cJSON *tail = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(lines[2], "tails"), 0);
    assert_string_equal(field(tail, "verdict"), "chain");
    assert_true(strlen(field(tail, "reason")) > 0);
    free_lines(lines, n);
    done = 1;
}

static void test_folder_gives_four_outputs_five_lines_exit_1(void **state)
{
    (void)state;
    first_run();
}

static void test_rerun_skips_what_is_up_to_date(void **state)
{
    (void)state;
    first_run();
    cJSON *lines[16];
    int n = 0;
    char args[1400];
    snprintf(args, sizeof args, "'%s' -o '%s'", in_dir, out_dir);
    assert_int_equal(run_batch(lines, &n, args), 1);
    assert_int_equal(n, NAME_COUNT);
    for (int i = 0; i < n; i++)
        assert_string_equal(field(lines[i], "status"), i == BROKEN ? "failed" : "skipped");
    free_lines(lines, n);

    /* Other tail options make every output stale. */
    snprintf(args, sizeof args, "'%s' -o '%s' --no-bake --no-check", in_dir, out_dir);
    assert_int_equal(run_batch(lines, &n, args), 1);
    assert_int_equal(n, NAME_COUNT);
    for (int i = 1; i < n; i++)
        assert_string_equal(field(lines[i], "status"), "ok");
    free_lines(lines, n);

    /* A changed input is redone, the others skipped. */
    char quiver[700];
    snprintf(quiver, sizeof quiver, "%s/quiver.glb", in_dir);
    assert_int_equal(
        test_run(out, sizeof out, "'%s' creature skirt -o '%s'", test_sinew_bin(), quiver), 0);
    assert_int_equal(run_batch(lines, &n, args), 1);
    assert_int_equal(n, NAME_COUNT);
    for (int i = 1; i < n; i++)
        assert_string_equal(field(lines[i], "status"),
                            !strcmp(names[i], "quiver") ? "ok" : "skipped");
    free_lines(lines, n);

    /* --force redoes everything. */
    snprintf(args, sizeof args, "'%s' -o '%s' --no-bake --no-check --force", in_dir, out_dir);
    assert_int_equal(run_batch(lines, &n, args), 1);
    for (int i = 1; i < n; i++)
        assert_string_equal(field(lines[i], "status"), "ok");
    free_lines(lines, n);
}

static void test_manifest_order_and_inputs_kept(void **state)
{
    (void)state;
    first_run();
    char sub[700], manifest[800], outdir[700];
    test_path(sub, sizeof sub, dir, "lists");
    test_path(outdir, sizeof outdir, dir, "from-manifest");
    mkdir(sub, 0777);
    test_path(manifest, sizeof manifest, sub, "uploads.txt");
    FILE *f = fopen(manifest, "w");
    assert_non_null(f);
    /* Relative to the manifest's folder, in its own order, with comments and blank lines; the
     * last names an output of the run itself as an input. */
    fprintf(f,
            "# uploads of today\n\n../in/rabbit.glb\n  ../in/caped.glb  \r\n"
            "   # a comment after blanks\n%s/from-manifest/lizard.glb\n",
            dir);
    fclose(f);
    char args[1800];
    snprintf(args, sizeof args, "'%s' -o '%s' --no-bake --no-check", manifest, outdir);
    cJSON *lines[16];
    int n = 0;
    assert_int_equal(run_batch(lines, &n, args), 1); /* lizard.glb: its file does not exist */
    assert_int_equal(n, 3);
    char name[64];
    line_name(lines[0], name, sizeof name);
    assert_string_equal(name, "rabbit");
    line_name(lines[1], name, sizeof name);
    assert_string_equal(name, "caped");
    assert_string_equal(field(lines[0], "status"), "ok");
    assert_string_equal(field(lines[1], "status"), "ok");
    assert_string_equal(field(lines[2], "status"), "failed");
    free_lines(lines, n);

    /* Now it exists, as the output it would be written to: it fails and is left as it was. */
    char lizard[800], source[700];
    snprintf(lizard, sizeof lizard, "%s/lizard.glb", outdir);
    snprintf(source, sizeof source, "%s/lizard.glb", in_dir);
    assert_int_equal(test_run(out, sizeof out, "cp '%s' '%s'", source, lizard), 0);
    size_t before_size = 0, after_size = 0;
    char *before = test_read_file(lizard, &before_size);
    assert_int_equal(run_batch(lines, &n, args), 1);
    assert_int_equal(n, 3);
    assert_string_equal(field(lines[0], "status"), "skipped");
    assert_string_equal(field(lines[2], "status"), "failed");
    assert_non_null(strstr(field(lines[2], "message"), "never modified"));
    char *after = test_read_file(lizard, &after_size);
    assert_int_equal(after_size, before_size);
    assert_memory_equal(after, before, before_size);
    free(before);
    free(after);
    free_lines(lines, n);
}

static void test_two_shards_at_once_split_the_set(void **state)
{
    (void)state;
    char outdir[700], a[700], b[700];
    test_path(outdir, sizeof outdir, dir, "sharded/new"); /* parents made too, by both at once */
    test_path(a, sizeof a, dir, "shard1");
    test_path(b, sizeof b, dir, "shard2");
    const char *bin = test_sinew_bin();
    /* Both at once, into one OUTDIR that neither has made yet. */
    assert_int_equal(
        test_run(out, sizeof out,
                 "'%s' batch '%s' -o '%s' --shard 1/2 --no-bake --no-check >'%s.jsonl' "
                 "2>/dev/null & p=$!; "
                 "'%s' batch '%s' -o '%s' --shard 2/2 --no-bake --no-check >'%s.jsonl' "
                 "2>/dev/null; echo $? >'%s.rc'; wait $p; echo $? >'%s.rc'",
                 bin, in_dir, outdir, a, bin, in_dir, outdir, b, b, a),
        0);
    int seen[NAME_COUNT] = {0};
    const char *shards[2] = {a, b};
    for (int s = 0; s < 2; s++) {
        char path[800];
        size_t size = 0;
        snprintf(path, sizeof path, "%s.rc", shards[s]);
        char *rc = test_read_file(path, &size);
        assert_non_null(rc);
        /* Shard 1 of 2 has the files at even indices, the broken one among them. */
        assert_int_equal(atoi(rc), s == 0 ? 1 : 0);
        free(rc);
        snprintf(path, sizeof path, "%s.jsonl", shards[s]);
        char *text = test_read_file(path, &size);
        assert_non_null(text);
        cJSON *lines[16];
        int n = parse_lines(text, lines, 16);
        free(text);
        assert_int_equal(n, s == 0 ? 3 : 2);
        for (int i = 0; i < n; i++) {
            char name[64];
            line_name(lines[i], name, sizeof name);
            int k = 0;
            while (k < NAME_COUNT && strcmp(names[k], name))
                k++;
            assert_true(k < NAME_COUNT);
            assert_int_equal(k % 2, s); /* index modulo N */
            seen[k]++;
        }
        free_lines(lines, n);
    }
    for (int k = 0; k < NAME_COUNT; k++)
        assert_int_equal(seen[k], 1); /* the union is the whole set, with no overlap */
}

static void test_usage_errors_exit_2(void **state)
{
    (void)state;
    const char *bin = test_sinew_bin();
    static const char *const shards[] = {"0/2", "3/2", "1/0", "2", "a/b", "1/", "/2", "-1/2"};
    for (size_t i = 0; i < sizeof shards / sizeof shards[0]; i++) {
        assert_int_equal(test_run(out, sizeof out, "'%s' batch '%s' -o '%s/u' --shard '%s'", bin,
                                  in_dir, dir, shards[i]),
                         2);
        assert_non_null(strstr(out, "--shard"));
    }
    assert_int_equal(test_run(out, sizeof out, "'%s' batch '%s'", bin, in_dir), 2);
    assert_non_null(strstr(out, "missing -o"));
    assert_int_equal(test_run(out, sizeof out, "'%s' batch -o '%s/u'", bin, dir), 2);
    assert_int_equal(
        test_run(out, sizeof out, "'%s' batch '%s' -o '%s/u' --shard", bin, in_dir, dir), 2);
    assert_int_equal(
        test_run(out, sizeof out, "'%s' batch '%s' -o '%s/u' --jobs 0", bin, in_dir, dir), 2);
    assert_int_equal(
        test_run(out, sizeof out, "'%s' batch '%s' -o '%s/u' --mode bent", bin, in_dir, dir), 2);
    assert_int_equal(
        test_run(out, sizeof out, "'%s' batch '%s' -o '%s/u' --bogus", bin, in_dir, dir), 2);
    assert_int_equal(test_run(out, sizeof out, "'%s' batch '%s' -o '%s'", bin, in_dir, in_dir), 2);
    char never[700];
    test_path(never, sizeof never, dir, "u");
    assert_false(test_file_exists(never)); /* nothing made on a usage error */
    assert_int_equal(test_run(out, sizeof out, "'%s' batch --help", bin), 0);
    assert_non_null(strstr(out, "--shard I/N"));
    assert_non_null(strstr(out, "--tail-from")); /* the options of tail, passed through */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folder_gives_four_outputs_five_lines_exit_1),
        cmocka_unit_test(test_rerun_skips_what_is_up_to_date),
        cmocka_unit_test(test_manifest_order_and_inputs_kept),
        cmocka_unit_test(test_two_shards_at_once_split_the_set),
        cmocka_unit_test(test_usage_errors_exit_2),
    };
    return test_exit_code(cmocka_run_group_tests(tests, make_inputs, remove_files));
}
