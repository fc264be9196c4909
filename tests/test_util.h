/* Helpers shared by sinew's cmocka tests (header-only, test code only). */
#ifndef SINEW_TEST_UTIL_H
#define SINEW_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

/* cmocka counts a skipped test as passed, and so would ctest: a test that calls test_skip()
 * makes its program exit 77 when nothing failed (test_exit_code), which ctest reports as
 * skipped (SKIP_RETURN_CODE, set for every sinew_test). */
static int test_skipped_count;
#define test_skip()                                                                                \
    do {                                                                                           \
        test_skipped_count++;                                                                      \
        skip();                                                                                    \
    } while (0)
static inline int test_exit_code(int failed)
{
    return failed ? failed : test_skipped_count ? 77 : 0;
}

/* The shared models folder, or NULL (and a note on stderr) when it is absent: tests that
 * need real models skip, saying so. */
static inline const char *test_models_dir(void)
{
    const char *dir = getenv("SINEW_MODELS");
    if (!dir || !*dir) dir = SINEW_MODELS_DIR;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "note: %s is absent: skipping tests on the shared models\n", dir);
        return NULL;
    }
    return dir;
}

/* Joins folder and file into a static-free caller buffer. */
static inline const char *test_path(char *buf, size_t size, const char *dir, const char *file)
{
    snprintf(buf, size, "%s/%s", dir, file);
    return buf;
}

/* A fresh temporary folder for one test (mkdtemp under $TMPDIR or /tmp). */
static inline const char *test_tmpdir(char *buf, size_t size)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, size, "%s/sinew-test-XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(buf);
}

/* The sinew CLI built next to the tests. */
static inline const char *test_sinew_bin(void)
{
    const char *dir = getenv("SINEW_BIN");
    static char path[4096];
    snprintf(path, sizeof path, "%s/sinew", dir && *dir ? dir : ".");
    return path;
}

/* Runs a shell command, captures stdout+stderr (truncated to `size`), returns exit code
 * (or -1 when killed by a signal, so crashes fail loudly). */
static inline int test_run(char *output, size_t size, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char full[8300];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p) return -1;
    size_t n = 0;
    if (output && size) {
        n = fread(output, 1, size - 1, p);
        output[n] = 0;
    }
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0) {
    }
    int status = pclose(p);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return -1;
}

/* A whole file, NUL-terminated, malloc'ed (the caller frees it); NULL when unreadable. */
static inline char *test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!buf) return NULL;
    buf[got] = 0;
    *size = got;
    return buf;
}

static inline int test_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The root of x's set in a union-find forest (path halving). */
static inline uint32_t test_find_root(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* The .glb files of `folder`, sorted by name, as "<prefix><name>" into names (at most `max`
 * of TEST_NAME_SIZE bytes each); returns how many, or -1 when the folder cannot be opened. */
#define TEST_NAME_SIZE 256
static inline int test_compare_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}
static inline int test_glb_files(const char *folder, const char *prefix,
                                 char (*names)[TEST_NAME_SIZE], int max)
{
    DIR *d = opendir(folder);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        const size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".glb"))
            snprintf(names[n++], TEST_NAME_SIZE, "%s%s", prefix, e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, TEST_NAME_SIZE, test_compare_names);
    return n;
}

#endif
