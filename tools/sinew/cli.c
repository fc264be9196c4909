/* Shared CLI plumbing: exit codes, argument parsing, messages. */
#include "cli.h"

#include "safe_text.h"
#include "sinew/file.h"
#include "sinew/metrics.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints "sinew COMMAND: " and the formatted message, made safe for the terminal whole: the
 * format is the CLI's own, its arguments are names and paths from files and command lines. */
static void print_message(const char *command, const char *fmt, va_list ap)
{
    char msg[2 * SINEW_ERROR_MESSAGE_MAX], shown[4 * sizeof msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    safe_text_write(shown, sizeof shown, msg, 0, 0);
    fprintf(stderr, "sinew %s: %s\n", command, shown);
}

void cli_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_message(command, fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_message(command, fmt, ap);
    va_end(ap);
    fprintf(stderr, "(see 'sinew %s --help')\n", command);
    return CLI_EXIT_USAGE;
}

int cli_exit_code(sinew_result r)
{
    switch (r) {
    case SINEW_OK:
        return CLI_EXIT_OK;
    case SINEW_ERR_IO:
    case SINEW_ERR_FORMAT:
    case SINEW_ERR_UNSUPPORTED:
    case SINEW_ERR_INVALID_VALUE:
    case SINEW_ERR_NOT_FOUND:
        return CLI_EXIT_BAD_INPUT;
    case SINEW_ERR_ARGUMENT:
        return CLI_EXIT_USAGE;
    case SINEW_ERR_OUT_OF_MEMORY:
    case SINEW_ERR_INTERNAL:
        return CLI_EXIT_INTERNAL;
    }
    return CLI_EXIT_INTERNAL;
}

int cli_report(const char *command, const sinew_error *err)
{
    return cli_report_file(command, NULL, err);
}

int cli_report_file(const char *command, const char *file, const sinew_error *err)
{
    const char *message = err->message[0] ? err->message : "(no details)";
    if (file && !strstr(message, file))
        cli_error(command, "%s: %s: %s", sinew_result_name(err->code), file, message);
    else
        cli_error(command, "%s: %s", sinew_result_name(err->code), message);
    return cli_exit_code(err->code);
}

int cli_is_help(const char *arg)
{
    return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int cli_parse_write_option(const char *arg, sinew_write_options *w)
{
    if (strcmp(arg, "--meshopt")) return 0;
    w->meshopt = 1;
    return 1;
}

int cli_parse_float(const char *text, float min, float max, float *out)
{
    if (!text || !*text) return 0;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end || !isfinite(v) || v < min || v > max) return 0;
    *out = (float)v;
    return 1;
}

int cli_parse_uint(const char *text, unsigned long min, unsigned long max, unsigned long *out)
{
    if (!text || !*text || *text == '-' || *text == '+') return 0;
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || v < min || v > max) return 0;
    *out = v;
    return 1;
}

const char *cli_option_value(const char *command, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        cli_usage_error(command, "option %s needs a value", argv[*i]);
        return NULL;
    }
    *i += 1;
    return argv[*i];
}

int cli_write_text_atomic(const char *path, const char *text)
{
    if (!strcmp(path, "-")) return fputs(text, stdout) >= 0 && fputc('\n', stdout) != EOF;
    return sinew_file_write_atomic(path, text, strlen(text), NULL) == SINEW_OK;
}

/* The repaired copy of a string that is not UTF-8 (NULL when it is, or out of memory). */
static char *repaired_utf8(const char *text)
{
    uint32_t replaced = 0;
    size_t need = sinew_utf8_repair(NULL, 0, text, &replaced);
    char *copy = replaced ? malloc(need + 1) : NULL;
    if (copy) sinew_utf8_repair(copy, need + 1, text, NULL);
    return copy;
}

/* U+FFFD for each invalid UTF-8 sequence in the string values of `item`, its siblings and
 * everything under them. */
static void make_utf8(cJSON *item)
{
    for (; item; item = item->next) {
        if (cJSON_IsString(item) && item->valuestring) {
            char *copy = repaired_utf8(item->valuestring);
            if (copy) cJSON_SetValuestring(item, copy);
            free(copy);
        }
        make_utf8(item->child);
    }
}

/* A string or number as cJSON prints it (escaping, shortest exact number); 0 on failure. */
static int json_leaf(FILE *f, const cJSON *item)
{
    char *text = cJSON_PrintUnformatted(item);
    if (!text) return 0;
    fputs(text, f);
    cJSON_free(text);
    return 1;
}

/* `item` at `depth`: containers break over lines at depth 0, and arrays of objects at depth 1;
 * `indent` is the current line's indentation. */
static int json_write(FILE *f, const cJSON *item, int depth, int indent)
{
    int is_object = cJSON_IsObject(item);
    if (!is_object && !cJSON_IsArray(item)) return json_leaf(f, item);
    int lines = depth == 0 || (depth == 1 && !is_object && cJSON_IsObject(item->child));
    fputc(is_object ? '{' : '[', f);
    for (const cJSON *c = item->child; c; c = c->next) {
        if (lines)
            fprintf(f, "%s\n%*s", c == item->child ? "" : ",", indent + 2, "");
        else if (c != item->child)
            fputs(", ", f);
        if (is_object) {
            cJSON *key = cJSON_CreateStringReference(c->string);
            int ok = key && json_leaf(f, key);
            cJSON_Delete(key);
            if (!ok) return 0;
            fputs(": ", f);
        }
        if (!json_write(f, c, depth + 1, lines ? indent + 2 : indent)) return 0;
    }
    if (lines && item->child) fprintf(f, "\n%*s", indent, "");
    fputc(is_object ? '}' : ']', f);
    return 1;
}

char *cli_json_print(const cJSON *root)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) return NULL;
    int ok = json_write(f, root, 0, 0) && fputc('\n', f) != EOF;
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}

/* The control at t[i] that JSON allows raw: DEL, or a C1 control (C2 80..C2 9F in UTF-8).
 * Returns the bytes it takes and sets *code, or 0 when there is none. */
static size_t raw_control(const unsigned char *t, size_t i, unsigned *code)
{
    if (t[i] == 0x7F) {
        *code = 0x7F;
        return 1;
    }
    if (t[i] == 0xC2 && t[i + 1] >= 0x80 && t[i + 1] <= 0x9F) {
        *code = t[i + 1];
        return 2;
    }
    return 0;
}

/* `text` (UTF-8) with each raw control as a \u escape: in JSON text these bytes occur only
 * inside strings, where the escape means the same character. */
static char *escape_controls(const char *text)
{
    const unsigned char *t = (const unsigned char *)text;
    size_t n = strlen(text), size = n + 1;
    unsigned code;
    for (size_t i = 0, len; i < n; i += len ? len : 1)
        if ((len = raw_control(t, i, &code))) size += 6 - len;
    char *out = malloc(size);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0, len; i < n; i += len ? len : 1) {
        if ((len = raw_control(t, i, &code)))
            o += (size_t)snprintf(out + o, 7, "\\u%04x", code);
        else
            out[o++] = text[i];
    }
    out[o] = 0;
    return out;
}

static int json_out_of_memory;
static void *(*json_malloc_fn)(size_t) = malloc;

static void *json_malloc(size_t size)
{
    void *p = json_malloc_fn(size);
    if (!p) json_out_of_memory = 1;
    return p;
}

void cli_json_init(void *(*malloc_fn)(size_t))
{
    json_malloc_fn = malloc_fn;
    json_out_of_memory = 0;
    cJSON_Hooks hooks = {json_malloc, free};
    cJSON_InitHooks(&hooks);
}

int cli_json_failed(void)
{
    int failed = json_out_of_memory;
    json_out_of_memory = 0;
    return failed;
}

char *cli_json_text(cJSON *root, cli_json_style style)
{
    make_utf8(root);
    char *printed = style == CLI_JSON_TABLE     ? cli_json_print(root)
                    : style == CLI_JSON_COMPACT ? cJSON_PrintUnformatted(root)
                                                : cJSON_Print(root);
    char *text = printed ? escape_controls(printed) : NULL;
    if (style == CLI_JSON_TABLE)
        free(printed);
    else
        cJSON_free(printed);
    if (cli_json_failed()) { /* a member of the tree, or of the text, is missing */
        free(text);
        return NULL;
    }
    return text;
}

/* 1 when `name` contains `word` in any case. */
static int name_has(const char *name, const char *word)
{
    const size_t n = strlen(word);
    for (const char *p = name; p && *p; p++) {
        size_t k = 0;
        while (k < n && p[k] && tolower((unsigned char)p[k]) == tolower((unsigned char)word[k]))
            k++;
        if (k == n) return 1;
    }
    return 0;
}

uint32_t cli_mark_tail_skin(const sinew_model *model, uint8_t *mask)
{
    return cli_mark_named_skin(model, "tail", mask);
}

uint32_t cli_mark_named_skin(const sinew_model *model, const char *word, uint8_t *mask)
{
    int32_t *joints = calloc(model->skin.joint_count + 1, sizeof *joints);
    uint32_t n = 0;
    for (uint32_t j = 0; joints && j < model->skin.joint_count; j++)
        if (name_has(model->nodes[model->skin.joints[j].node].name, word)) joints[n++] = (int32_t)j;
    sinew_metrics_dominated_by(model, joints, n, mask);
    free(joints);
    return n;
}

void cli_join_words(char *out, size_t size, const char *const *words, int count)
{
    size_t used = 0;
    if (size) out[0] = 0;
    for (int i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s",
                                 i == 0 ? "" : (i == count - 1 ? " and " : ", "), words[i]);
}

sinew_result cli_no_clip(sinew_error *err, const char *file, const sinew_model *model,
                         const char *name)
{
    char names[768] = "";
    size_t len = 0;
    for (uint32_t k = 0; k < model->clip_count && len < sizeof names; k++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s \"%s\"", k ? "," : "",
                                model->clips[k].name);
    if (!model->clip_count) snprintf(names, sizeof names, " no clips");
    return sinew_error_set(err, SINEW_ERR_NOT_FOUND, "%s: no clip named \"%s\"; it has:%s", file,
                           name, names);
}
