/* Strings from hostile files on their way out: every table and message is safe for a terminal
 * (no C0 or C1 control, no invalid UTF-8, columns cut between characters), every --json
 * output and every written glTF is valid UTF-8, and `render` draws any label and any
 * transform without undefined behaviour. Each file is built here from the io fixture. */
#include "test_util.h"

#include <cjson/cJSON.h>

#include "io/fixture.h"
#include "safe_text.h"
#include "sinew/base.h"

#define OUT_SIZE (1u << 20)
static char out[OUT_SIZE];

/* Names that drive a terminal: a window title (OSC ... BEL), CSI as the C1 byte in its UTF-8
 * form, a clear screen, invalid UTF-8 and a sequence cut short. */
#define NAME_TITLE "\x1b]0;pwned\x07root"
#define NAME_C1                                                                                    \
    "\xc2\x9b"                                                                                     \
    "31mbone"
#define NAME_BAD "body\xff\xfe"
#define CLIP_CLEAR "wave\x1b[2J\xe2\x82"
#define IMAGE_URI "\x1b]0;img\x07\xff.png"

/* Offset of the first byte in s[0..n) a terminal would act on or could not show (a control
 * other than newline and tab, a C1 control, invalid UTF-8), or -1 when there is none. */
static long unsafe_at(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = sinew_utf8_decode(s + i, n - i, &cp);
        if (cp == SINEW_UTF8_INVALID || (cp < 0x20 && cp != '\n' && cp != '\t') ||
            (cp >= 0x7F && cp <= 0x9F))
            return (long)i;
        i += len;
    }
    return -1;
}

static void assert_terminal_safe(const char *what)
{
    long at = unsafe_at(out, strlen(out));
    if (at >= 0)
        fprintf(stderr, "%s: unsafe byte 0x%02x at %ld in:\n%s\n", what, (unsigned char)out[at], at,
                out);
    assert_int_equal(at, -1);
}

/* 1 when s[0..n) is UTF-8 all through. */
static int is_utf8(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        i += sinew_utf8_decode(s + i, n - i, &cp);
        if (cp == SINEW_UTF8_INVALID) return 0;
    }
    return 1;
}

/* Asserts `out` is one valid UTF-8 JSON value and returns it parsed (free with cJSON_Delete). */
static cJSON *strict_json(const char *what)
{
    if (!is_utf8(out, strlen(out))) fprintf(stderr, "%s: not UTF-8:\n%s\n", what, out);
    assert_true(is_utf8(out, strlen(out)));
    cJSON *json = cJSON_Parse(out);
    if (!json) fprintf(stderr, "%s: not JSON:\n%s\n", what, out);
    assert_non_null(json);
    return json;
}

static void set_string(fixture *fx, const char *path, const char *key, const char *raw)
{
    cJSON *obj = fx_at(fx->json, path);
    assert_non_null(obj);
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    cJSON_AddItemToObject(obj, key, cJSON_CreateString(raw));
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* The fixture as .gltf at `path`, with the hostile names. */
static void write_hostile(const char *path)
{
    fixture fx;
    fixture_init(&fx);
    set_string(&fx, "nodes/0", "name", NAME_TITLE);
    set_string(&fx, "nodes/1", "name", NAME_C1);
    set_string(&fx, "nodes/2", "name", NAME_BAD);
    set_string(&fx, "animations/0", "name", CLIP_CLEAR);
    cJSON *images = cJSON_AddArrayToObject(fx.json, "images");
    cJSON *image = cJSON_CreateObject();
    cJSON_AddItemToObject(image, "uri", cJSON_CreateString(IMAGE_URI));
    cJSON_AddItemToArray(images, image);
    char *text = fixture_gltf(&fx);
    write_text(path, text);
    free(text);
    fixture_free(&fx);
}

static void test_utf8_decode_follows_unicode(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t len;
        uint32_t cp;
    } cases[] = {
        {"A", 1, 'A'},
        {"\xc3\xa9", 2, 0xE9},
        {"\xe4\xb8\xad", 3, 0x4E2D},
        {"\xf0\x9f\x98\x80", 4, 0x1F600},
        {"\xc2\x9b", 2, 0x9B},                       /* well formed, a C1 control */
        {"\xc0\x80", 1, SINEW_UTF8_INVALID},         /* overlong */
        {"\xe0\x80\x80", 1, SINEW_UTF8_INVALID},     /* overlong */
        {"\xed\xa0\x80", 1, SINEW_UTF8_INVALID},     /* a surrogate */
        {"\xf4\x90\x80\x80", 1, SINEW_UTF8_INVALID}, /* above U+10FFFF */
        {"\xe2\x82", 2, SINEW_UTF8_INVALID},         /* cut short: one maximal subpart */
        {"\xf0\x9f\x98", 3, SINEW_UTF8_INVALID},
        {"\x80", 1, SINEW_UTF8_INVALID},
        {"\xff", 1, SINEW_UTF8_INVALID},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t cp = 0;
        assert_int_equal(sinew_utf8_decode(cases[i].bytes, strlen(cases[i].bytes), &cp),
                         cases[i].len);
        assert_int_equal(cp, cases[i].cp);
    }
    assert_int_equal(sinew_utf8_decode("", 0, NULL), 0);

    char buf[32];
    uint32_t replaced = 0;
    assert_int_equal(sinew_utf8_repair(buf, sizeof buf,
                                       "a\xff"
                                       "b\xe2\x82"
                                       "c",
                                       &replaced),
                     9);
    assert_string_equal(buf, "a\xef\xbf\xbd"
                             "b\xef\xbf\xbd"
                             "c");
    assert_int_equal(replaced, 2);
    /* Too small: cut after the last whole character that fits. */
    assert_int_equal(sinew_utf8_repair(buf, 4, "ab\xc3\xa9", NULL), 4);
    assert_string_equal(buf, "ab");
}

static void test_safe_text_escapes_controls_and_cuts_characters(void **state)
{
    (void)state;
    assert_string_equal(safe_text(NAME_TITLE).s, "\\x1b]0;pwned\\x07root");
    assert_string_equal(safe_text(NAME_C1).s, "\\xc2\\x9b31mbone");
    assert_string_equal(safe_text(NAME_BAD).s, "body\\xff\\xfe");
    assert_string_equal(safe_text("a\x7f\tb\n").s, "a\\x7f\\x09b\\x0a");
    assert_string_equal(safe_text("Queue_\xc3\xa9 \xe5\xb0\xbe").s, "Queue_\xc3\xa9 \xe5\xb0\xbe");
    assert_string_equal(safe_text(NULL).s, "");
    /* Widths count characters: %-5.5s would cut the second é in half and pad by bytes. */
    assert_string_equal(safe_text_cell("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 5).s,
                        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
    assert_string_equal(safe_text_cell("\xe5\xb0\xbe", 3).s, "\xe5\xb0\xbe  ");
    assert_string_equal(safe_text_pad("\xc3\xa9", 3).s, "\xc3\xa9  ");
    assert_string_equal(safe_text_pad("abcd", 2).s, "abcd");
    /* An escape is never split: one that does not fit is left out whole. */
    assert_string_equal(safe_text_cell("ab\x1b", 4).s, "ab  ");
    /* Longer than a buffer: cut between characters, marked. */
    char *lng = malloc(3 * SAFE_TEXT_MAX + 1);
    assert_non_null(lng);
    for (size_t i = 0; i < SAFE_TEXT_MAX; i++)
        memcpy(lng + 3 * i, "\xe5\xb0\xbe", 3);
    lng[3 * SAFE_TEXT_MAX] = 0;
    safe_text_buf b = safe_text(lng);
    size_t n = strlen(b.s);
    assert_true(n < SAFE_TEXT_MAX);
    assert_true(is_utf8(b.s, n));
    assert_string_equal(b.s + n - 3, "...");
    /* One that just fits is kept whole. */
    memset(lng, 'a', SAFE_TEXT_MAX - 1);
    lng[SAFE_TEXT_MAX - 1] = 0;
    assert_int_equal(strlen(safe_text(lng).s), SAFE_TEXT_MAX - 1);
    free(lng);
}

/* Every command that prints a name, a path or a loader message, on a hostile file whose own
 * name is hostile too: nothing on stdout or stderr reaches the terminal as a control. */
static void test_tables_and_messages_are_terminal_safe(void **state)
{
    (void)state;
    char dir[256], in[512];
    const char *bin = test_sinew_bin();
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/m\x1b[31m\xff\xc2\x9b.gltf", dir);
    write_hostile(in);
    static const char *commands[] = {
        "inspect '%s'",
        "stretch '%s'",
        "stretch '%s' --compare",
        "stretch '%s' --clip 'x\x1b[2J'",
        "bake '%s' -o '%s/b.glb'",
        "tail '%s' -o '%s/t.glb' -v",
        "solve --source '%s' --control",
        "render '%s' -o '%s/r.png'",
        "render '%s' --clip 'x\x1b]0;t\x07' -o '%s/r.png'",
        "convert '%s' '%s/c.gltf'",
        "inspect '%s' --bogus\x1b[2J",
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, commands[i], in, dir);
        int code = test_run(out, sizeof out, "'%s' %s", bin, cmd);
        assert_true(code >= 0 && code <= 2); /* run or refused, never crashed */
        assert_terminal_safe(commands[i]);
    }
    /* The names are still there, shown escaped. */
    assert_int_equal(test_run(out, sizeof out, "'%s' inspect '%s'", bin, in), 0);
    assert_non_null(strstr(out, "\\x1b]0;pwned\\x07root"));
    assert_non_null(strstr(out, "\\xc2\\x9b31mbone"));
    assert_non_null(strstr(out, "m\\x1b[31m\\xff\\xc2\\x9b.gltf"));
    /* Unknown commands and bad arguments, from a command line. */
    assert_int_equal(test_run(out, sizeof out, "'%s' '\x1b]0;t\x07'", bin), 2);
    assert_terminal_safe("unknown command");
    test_run(NULL, 0, "rm -rf '%s'", dir);
}

/* Loader messages quote the file's own strings: asset.version and a buffer's uri. */
static void test_error_messages_are_terminal_safe(void **state)
{
    (void)state;
    char dir[256], in[512];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/bad.gltf", dir);
    static const struct {
        const char *path, *key, *value, *expect;
    } cases[] = {
        {"asset", "version", "\x1b]0;v\x07\xc2\x9b", "\\x1b]0;v\\x07\\xc2\\x9b"},
        {"buffers/0", "uri", "\x1b[2Jgone\xc2\x9b.bin", "\\x1b[2Jgone"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture fx;
        fixture_init(&fx);
        set_string(&fx, cases[i].path, cases[i].key, cases[i].value);
        char *text = fixture_gltf(&fx);
        write_text(in, text);
        free(text);
        fixture_free(&fx);
        assert_int_equal(test_run(out, sizeof out, "'%s' inspect '%s'", test_sinew_bin(), in), 1);
        assert_terminal_safe(cases[i].key);
        assert_non_null(strstr(out, cases[i].expect));
    }
    test_run(NULL, 0, "rm -rf '%s'", dir);
}

/* --json outputs are UTF-8 whatever the file and the command line held. */
static void test_json_outputs_are_utf8(void **state)
{
    (void)state;
    char dir[256], in[512];
    const char *bin = test_sinew_bin();
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/j\xff\xfe.gltf", dir);
    write_hostile(in);
    assert_int_equal(test_run(out, sizeof out, "('%s' inspect '%s' --json 2>/dev/null)", bin, in),
                     0);
    cJSON *json = strict_json("inspect --json");
    /* The controls survive as JSON escapes (C1 and DEL too, which JSON would allow raw: the
     * text is safe on a terminal); the bytes that were not UTF-8 became U+FFFD. */
    assert_terminal_safe("inspect --json");
    const cJSON *skeleton = cJSON_GetObjectItem(json, "skeleton");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(skeleton, 0), "name")->valuestring,
                        NAME_TITLE);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(skeleton, 1), "name")->valuestring,
                        NAME_C1);
    assert_non_null(strstr(cJSON_GetObjectItem(json, "file")->valuestring, "j\xef\xbf\xbd"));
    cJSON_Delete(json);
    assert_int_equal(test_run(out, sizeof out, "('%s' stretch '%s' --json 2>/dev/null)", bin, in),
                     0);
    cJSON_Delete(strict_json("stretch --json"));
    assert_terminal_safe("stretch --json");
    int code = test_run(out, sizeof out, "('%s' tail '%s' -o '%s/t.glb' --json 2>/dev/null)", bin,
                        in, dir);
    assert_int_equal(code, 0);
    cJSON_Delete(strict_json("tail --json"));
    assert_terminal_safe("tail --json");
    test_run(NULL, 0, "rm -rf '%s'", dir);
}

/* convert writes UTF-8 JSON, says how many strings it repaired, and keeps a uri naming the
 * same file (a Latin-1 file name, %-escaped). */
static void test_convert_writes_utf8(void **state)
{
    (void)state;
    char dir[256], in[512], o[512], bin_path[512];
    const char *bin = test_sinew_bin();
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/in.gltf", dir);
    snprintf(o, sizeof o, "%s/out.gltf", dir);
    write_hostile(in);
    assert_int_equal(test_run(out, sizeof out, "'%s' convert '%s' '%s'", bin, in, o), 0);
    assert_terminal_safe("convert");
    assert_non_null(strstr(out, "strings had invalid UTF-8: replaced with U+FFFD"));
    size_t size = 0;
    char *text = test_read_file(o, &size);
    assert_non_null(text);
    assert_true(is_utf8(text, size));
    free(text);

    /* The buffer in a file whose name is one Latin-1 byte: the uri as the file has it. */
    fixture fx;
    fixture_init(&fx);
    snprintf(bin_path, sizeof bin_path, "%s/b\xe9.bin", dir);
    FILE *f = fopen(bin_path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(fx.bin, 1, FX_BIN_SIZE, f), FX_BIN_SIZE);
    assert_int_equal(fclose(f), 0);
    set_string(&fx, "buffers/0", "uri", "b\xe9.bin");
    text = cJSON_PrintUnformatted(fx.json);
    write_text(in, text);
    free(text);
    fixture_free(&fx);
    snprintf(o, sizeof o, "%s/out.glb", dir);
    assert_int_equal(test_run(out, sizeof out, "'%s' convert '%s' '%s'", bin, in, o), 0);
    assert_terminal_safe("convert uri");
    assert_non_null(strstr(out, "1 uri had invalid UTF-8"));
    assert_int_equal(test_run(out, sizeof out, "'%s' inspect '%s'", bin, o), 0);
    test_run(NULL, 0, "rm -rf '%s'", dir);
}

/* render: a label of any bytes (the file name, or --labels) and transforms that send the skin
 * to 1e30 or to infinity and NaN draw without undefined behaviour (the sanitised build aborts
 * on any), and the picture is still written. */
static void test_render_hostile_labels_and_transforms(void **state)
{
    (void)state;
    char dir[256], in[512], png[512];
    const char *bin = test_sinew_bin();
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(png, sizeof png, "%s/r.png", dir);
    static const struct {
        const char *root_scale, *bone_translation;
    } cases[] = {
        {"[1,1,1]", "[0,1e30,0]"},          /* half the skin at 1e30 */
        {"[1e30,1e30,1e30]", "[0,1e30,0]"}, /* overflow: infinite and NaN positions */
        {"[1,1,1]", "[1e30,-1e30,3e38]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture fx;
        fixture_init(&fx);
        fx_set(&fx, "nodes/0", "scale", cases[i].root_scale);
        fx_set(&fx, "nodes/1", "translation", cases[i].bone_translation);
        snprintf(in, sizeof in, "%s/n\xc3\xa9\x01\xff\x7f~%zu.gltf", dir, i);
        char *text = fixture_gltf(&fx);
        write_text(in, text);
        free(text);
        fixture_free(&fx);
        remove(png);
        assert_int_equal(
            test_run(out, sizeof out, "'%s' render '%s' --bones -o '%s'", bin, in, png), 0);
        assert_null(strstr(out, "runtime error"));
        assert_true(test_file_exists(png));
        assert_int_equal(test_run(out, sizeof out,
                                  "'%s' render --compare '%s' '%s' --labels '\x1b\x7f\xc3\xa9,"
                                  "\xe5\xb0\xbe\x80' --bones -o '%s'",
                                  bin, in, in, png),
                         0);
        assert_null(strstr(out, "runtime error"));
    }
    test_run(NULL, 0, "rm -rf '%s'", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_decode_follows_unicode),
        cmocka_unit_test(test_safe_text_escapes_controls_and_cuts_characters),
        cmocka_unit_test(test_tables_and_messages_are_terminal_safe),
        cmocka_unit_test(test_error_messages_are_terminal_safe),
        cmocka_unit_test(test_json_outputs_are_utf8),
        cmocka_unit_test(test_convert_writes_utf8),
        cmocka_unit_test(test_render_hostile_labels_and_transforms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
