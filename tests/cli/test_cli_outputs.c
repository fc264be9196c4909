/* What every command does with the files it writes: never an input (the file itself, a link
 * to it, another spelling, its external buffer), all of a command's outputs or none, a name
 * near NAME_MAX, the umask, the mode of a file it replaces, exit 3 when an output cannot be
 * written, and no temporary file left behind even when the process is killed. The inputs are
 * built by the test (`sinew creature` and `sinew tail`, and a .gltf with an external buffer
 * made from it). */
#include "test_util.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <time.h>

#define OUT_SIZE (1u << 16)
static char out[OUT_SIZE];

typedef struct files {
    char dir[512];
    char fox[600];  /* a GLB with clips and a tail chain (so `bake` has work) */
    char gltf[600]; /* the same as .gltf with its buffer in buf.bin */
    char bin[600];
} files;

/* The whole content of a file, for comparing before and after. */
static char *slurp(const char *path, size_t *size)
{
    char *data = test_read_file(path, size);
    assert_non_null(data);
    return data;
}

static void assert_unchanged(const char *path, const char *before, size_t size)
{
    size_t now_size = 0;
    char *now = slurp(path, &now_size);
    assert_int_equal(now_size, size);
    assert_memory_equal(now, before, size);
    free(now);
}

/* Base64 decoding of the one data URI `sinew convert` writes into a .gltf. */
static int b64(int c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static void make_inputs(files *f)
{
    assert_non_null(test_tmpdir(f->dir, sizeof f->dir));
    test_path(f->fox, sizeof f->fox, f->dir, "fox.glb");
    test_path(f->gltf, sizeof f->gltf, f->dir, "ext.gltf");
    test_path(f->bin, sizeof f->bin, f->dir, "buf.bin");
    const char *bin = test_sinew_bin();
    char raw[600], embedded[600];
    test_path(raw, sizeof raw, f->dir, "raw.glb");
    assert_int_equal(test_run(out, sizeof out, "'%s' creature fox -o '%s'", bin, raw), 0);
    assert_int_equal(test_run(out, sizeof out, "'%s' tail '%s' -o '%s'", bin, raw, f->fox), 0);
    remove(raw);
    test_path(embedded, sizeof embedded, f->dir, "embedded.gltf");
    assert_int_equal(test_run(out, sizeof out, "'%s' convert '%s' '%s'", bin, f->fox, embedded), 0);
    /* Move the buffer out of the JSON into buf.bin. */
    size_t n = 0;
    char *text = slurp(embedded, &n);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    cJSON *buffer = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "buffers"), 0);
    const char *uri = cJSON_GetObjectItem(buffer, "uri")->valuestring;
    const char *data = strchr(uri, ',') + 1;
    size_t len = strlen(data);
    unsigned char *bytes = malloc(len);
    size_t got = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len && data[i] != '='; i++) {
        acc = (acc << 6) | (unsigned)b64(data[i]);
        if ((bits += 6) >= 8) bytes[got++] = (unsigned char)(acc >> (bits -= 8));
    }
    FILE *fb = fopen(f->bin, "wb");
    assert_int_equal(fwrite(bytes, 1, got, fb), got);
    fclose(fb);
    free(bytes);
    cJSON_ReplaceItemInObject(buffer, "uri", cJSON_CreateString("buf.bin"));
    char *json = cJSON_Print(root);
    cJSON_Delete(root);
    FILE *fg = fopen(f->gltf, "wb");
    fputs(json, fg);
    fclose(fg);
    free(json);
    remove(embedded);
}

static void remove_inputs(const files *f)
{
    test_run(NULL, 0, "rm -rf '%s'", f->dir);
}

/* Names in the folder that start with ".sinew-" (staged files) or hold ".tmp". */
static int leftovers(const char *dir)
{
    char text[64];
    test_run(text, sizeof text, "ls -A '%s' | grep -c -e '^\\.sinew-' -e '\\.tmp'", dir);
    return atoi(text);
}

static void test_an_output_never_names_an_input(void **state)
{
    (void)state;
    files f;
    make_inputs(&f);
    const char *bin = test_sinew_bin();
    size_t fox_size = 0, gltf_size = 0, bin_size = 0;
    char *fox = slurp(f.fox, &fox_size), *gltf = slurp(f.gltf, &gltf_size),
         *buf = slurp(f.bin, &bin_size);
    char link[600], other[600], out_glb[600];
    test_path(link, sizeof link, f.dir, "link.glb");
    test_path(other, sizeof other, f.dir, "./fox.glb");
    test_path(out_glb, sizeof out_glb, f.dir, "out.glb");
    assert_int_equal(symlink("fox.glb", link), 0);
    const struct {
        const char *args;
        const char *a, *b, *c;
    } runs[] = {
        {"tail '%s' -o '%s'", f.fox, f.fox, NULL},
        {"tail '%s' -o '%s'", f.fox, link, NULL},
        {"tail '%s' -o '%s'", f.fox, other, NULL},
        {"tail '%s' -o '%s' --report '%s'", f.fox, out_glb, f.fox},
        {"bake '%s' -o '%s'", f.fox, f.fox, NULL},
        {"bake '%s' -o '%s'", f.fox, link, NULL},
        {"render '%s' -o '%s'", f.fox, f.fox, NULL},
        {"convert '%s' '%s'", f.gltf, f.bin, NULL},
        {"tail '%s' -o '%s'", f.gltf, f.bin, NULL},
        {"solve --control --source '%s' -o '%s'", f.fox, link, NULL},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char cmd[4096], full[8300];
        snprintf(cmd, sizeof cmd, runs[i].args, runs[i].a, runs[i].b, runs[i].c);
        snprintf(full, sizeof full, "'%s' %s", bin, cmd);
        int code = test_run(out, sizeof out, "%s", full);
        if (code != 2) fail_msg("%s: exit %d, want 2\n%s", cmd, code, out);
        assert_non_null(strstr(out, "inputs are never modified"));
        assert_unchanged(f.fox, fox, fox_size);
        assert_unchanged(f.gltf, gltf, gltf_size);
        assert_unchanged(f.bin, buf, bin_size);
    }
    assert_false(test_file_exists(out_glb));
    /* Two outputs of one command may not be one file either. */
    assert_int_equal(test_run(out, sizeof out, "'%s' tail '%s' -o '%s' --report '%s'", bin, f.fox,
                              out_glb, out_glb),
                     2);
    assert_non_null(strstr(out, "name the same file"));
    free(fox), free(gltf), free(buf);
    remove_inputs(&f);
}

static void test_outputs_are_written_together_or_not_at_all(void **state)
{
    (void)state;
    files f;
    make_inputs(&f);
    const char *bin = test_sinew_bin();
    char out_glb[600], missing[600], heat[600];
    test_path(out_glb, sizeof out_glb, f.dir, "out.glb");
    test_path(missing, sizeof missing, f.dir, "no/such/folder/r.json");
    test_path(heat, sizeof heat, f.dir, "no/such/folder/h.glb");
    /* A report that cannot be written: exit 3, and no rigged file. */
    assert_int_equal(test_run(out, sizeof out, "'%s' tail '%s' -o '%s' --no-bake --report '%s'",
                              bin, f.fox, out_glb, missing),
                     3);
    assert_false(test_file_exists(out_glb));
    /* ... and an earlier rigged file is kept as it was, not deleted. */
    FILE *earlier = fopen(out_glb, "wb");
    fputs("earlier", earlier);
    fclose(earlier);
    assert_int_equal(test_run(out, sizeof out, "'%s' tail '%s' -o '%s' --no-bake --report '%s'",
                              bin, f.fox, out_glb, missing),
                     3);
    assert_unchanged(out_glb, "earlier", 7);
    remove(out_glb);
    /* A solve whose heat map cannot be written writes no solved rig either. */
    assert_int_equal(test_run(out, sizeof out,
                              "'%s' solve --control --source '%s' --clips Walk -o '%s' "
                              "--heatmap '%s' --max-vertices 300",
                              bin, f.fox, out_glb, heat),
                     3);
    assert_non_null(strstr(out, "--heatmap"));
    assert_false(test_file_exists(out_glb));
    /* An output that cannot be written at all is exit 3 (not a bad input). */
    assert_int_equal(test_run(out, sizeof out, "'%s' bake '%s' -o '%s'", bin, f.fox, heat), 3);
    assert_int_equal(leftovers(f.dir), 0);
    remove_inputs(&f);
}

/* As gltfpack and gltf-transform do: an output whose name says another format is refused
 * (nothing written), and --name=value is --name value. */
static void test_output_extension_and_equals(void **state)
{
    (void)state;
    files f;
    make_inputs(&f);
    const char *bin = test_sinew_bin();
    char png[700], glb[700];
    test_path(png, sizeof png, f.dir, "out.png");
    test_path(glb, sizeof glb, f.dir, "out.glb");
    static const char *const refused[] = {"bake '%s' -o '%s'", "tail '%s' -o '%s' --no-bake",
                                          "convert '%s' '%s'"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char cmd[2000];
        snprintf(cmd, sizeof cmd, refused[i], f.fox, png);
        assert_int_equal(test_run(out, sizeof out, "'%s' %s", bin, cmd), 2);
        assert_non_null(strstr(out, "ends in .glb or .gltf"));
        assert_false(test_file_exists(png));
    }
    assert_int_equal(test_run(out, sizeof out, "'%s' render '%s' -o '%s'", bin, f.fox, glb), 2);
    assert_non_null(strstr(out, "ends in .png"));
    assert_false(test_file_exists(glb));
    assert_int_equal(test_run(out, sizeof out,
                              "'%s' bake '%s' --damping=0.5 --output-unknown=1 -o '%s'", bin, f.fox,
                              glb),
                     2);
    assert_non_null(strstr(out, "--output-unknown")); /* split, then refused as unknown */
    assert_int_equal(
        test_run(out, sizeof out, "'%s' bake '%s' --damping=0.5 -o '%s'", bin, f.fox, glb), 0);
    assert_true(test_file_exists(glb));
    remove_inputs(&f);
}

static void test_output_names_and_modes(void **state)
{
    (void)state;
    files f;
    make_inputs(&f);
    const char *bin = test_sinew_bin();
    /* A name of 250 bytes (NAME_MAX is 255): a temporary name built by appending to it would
     * not fit. */
    char name[251], path[900];
    memset(name, 'n', 246);
    strcpy(name + 246, ".glb");
    test_path(path, sizeof path, f.dir, name);
    assert_int_equal(test_run(out, sizeof out, "'%s' bake '%s' -o '%s'", bin, f.fox, path), 0);
    assert_true(test_file_exists(path));
    /* A new file gets the umask's mode, as any new file does. */
    char private_out[600];
    test_path(private_out, sizeof private_out, f.dir, "private.glb");
    assert_int_equal(
        test_run(out, sizeof out, "umask 077 && '%s' bake '%s' -o '%s'", bin, f.fox, private_out),
        0);
    struct stat st;
    assert_int_equal(stat(private_out, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    /* A replaced file keeps its mode. */
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(test_run(out, sizeof out, "'%s' bake '%s' -o '%s'", bin, f.fox, path), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    /* Writing through a link replaces its target and keeps the link. */
    char link[600], target[600];
    test_path(link, sizeof link, f.dir, "latest.glb");
    test_path(target, sizeof target, f.dir, "v1.glb");
    assert_int_equal(symlink("v1.glb", link), 0);
    assert_int_equal(test_run(out, sizeof out, "'%s' bake '%s' -o '%s'", bin, f.fox, link), 0);
    struct stat lst;
    assert_int_equal(lstat(link, &lst), 0);
    assert_true(S_ISLNK(lst.st_mode));
    assert_true(test_file_exists(target));
    assert_int_equal(leftovers(f.dir), 0);
    remove_inputs(&f);
}

/* Killed while it writes (SIGTERM or SIGINT at times spread over a run), a command leaves its
 * outputs either absent or whole, and never a temporary file. */
static void test_killed_runs_leave_no_temporary_file(void **state)
{
    (void)state;
    files f;
    make_inputs(&f);
    const char *bin = test_sinew_bin();
    char out_glb[600];
    test_path(out_glb, sizeof out_glb, f.dir, "killed.glb");
    /* How long one run takes, to spread the kills over it. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(test_run(out, sizeof out, "'%s' bake '%s' -o '%s'", bin, f.fox, out_glb), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double run = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    size_t whole_size = 0;
    char *whole = slurp(out_glb, &whole_size);
    const int kills = 40;
    for (int k = 0; k < kills; k++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            execl(bin, bin, "bake", f.fox, "-o", out_glb, (char *)NULL);
            _exit(127);
        }
        /* from 60% of a run to 110%: the writing is at its end */
        const double at = run * (0.6 + 0.5 * k / kills);
        struct timespec nap = {(time_t)at, (long)((at - (double)(time_t)at) * 1e9)};
        nanosleep(&nap, NULL);
        kill(pid, k % 2 ? SIGINT : SIGTERM);
        int status;
        waitpid(pid, &status, 0);
        assert_int_equal(leftovers(f.dir), 0);
        assert_unchanged(out_glb, whole, whole_size); /* the old one, or the same new one */
    }
    free(whole);
    remove_inputs(&f);
}

/* An error found past the loader names the file it is about. */
static void test_errors_name_the_file(void **state)
{
    (void)state;
    char dir[512], raw[600];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    test_path(raw, sizeof raw, dir, "untailed.glb");
    const char *bin = test_sinew_bin();
    assert_int_equal(test_run(out, sizeof out, "'%s' creature fox -o '%s'", bin, raw), 0);
    assert_int_equal(test_run(out, sizeof out, "'%s' bake '%s' -o '%s/x.glb'", bin, raw, dir), 1);
    assert_non_null(strstr(out, "untailed.glb: no Tail_1..Tail_K joints"));
    test_run(NULL, 0, "rm -rf '%s'", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_output_never_names_an_input),
        cmocka_unit_test(test_outputs_are_written_together_or_not_at_all),
        cmocka_unit_test(test_output_names_and_modes),
        cmocka_unit_test(test_output_extension_and_equals),
        cmocka_unit_test(test_killed_runs_leave_no_temporary_file),
        cmocka_unit_test(test_errors_name_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
