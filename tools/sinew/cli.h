/* Shared CLI plumbing: exit codes, argument parsing, messages. */
#ifndef SINEW_CLI_H
#define SINEW_CLI_H

#include <cjson/cJSON.h>

#include "sinew/base.h"
#include "sinew/document.h"
#include "sinew/model.h"

/* Documented exit codes (sinew --help). */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_BAD_INPUT = 1, /* the input file is unreadable, malformed or unusable */
    CLI_EXIT_USAGE = 2,     /* wrong options or arguments */
    CLI_EXIT_INTERNAL = 3   /* a bug in sinew, or the output could not be written */
};

/* A command: `run` gets argv after the command name (argv[0] is the command name). */
typedef struct cli_command {
    const char *name;
    const char *summary; /* one line for `sinew --help` */
    int (*run)(int argc, char **argv);
} cli_command;

/* Prints "sinew COMMAND: message" to stderr as cli_error does and returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "sinew COMMAND: message" to stderr, the whole message made safe for the terminal
 * (safe_text.h): the one way the CLI prints a message that holds a name or a path. */
void cli_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints a library error ("sinew COMMAND: format error: Fox.glb: accessor 12: ...") and
 * returns the matching exit code: 1 for input problems, 2 for argument errors, 3 otherwise. */
int cli_report(const char *command, const sinew_error *err);
/* The same for an error while working on `file`: its name is put before the message when the
 * message does not name it already (errors from past the loader name no file). */
int cli_report_file(const char *command, const char *file, const sinew_error *err);

/* Exit code for a result without printing. */
int cli_exit_code(sinew_result r);

/* 1 when argv[i] is -h or --help. */
int cli_is_help(const char *arg);

/* The option every command that writes glTF takes, and its help line. */
#define CLI_MESHOPT_HELP                                                                           \
    "  --meshopt          compress the written glTF's vertex, index and animation data with\n"     \
    "                     EXT_meshopt_compression, listed as required (players that decode\n"      \
    "                     it: three.js with MeshoptDecoder, Babylon.js, glTFast)\n"
/* 1 when `arg` is --meshopt (and sets w->meshopt), else 0. */
int cli_parse_write_option(const char *arg, sinew_write_options *w);

/* Parses a finite float / a non-negative integer in [min, max]; 0 on failure. */
/* SINEW_ERR_NOT_FOUND in err for a clip `name` that `model` (read from `file`) lacks, the
 * message listing the clips it has: `FILE: no clip named "X"; it has: "Walk", "Run"`. */
sinew_result cli_no_clip(sinew_error *err, const char *file, const sinew_model *model,
                         const char *name);

/* The `count` words in `out` as a reader lists them: "a", "a and b", "a, b and c". */
void cli_join_words(char *out, size_t size, const char *const *words, int count);

int cli_parse_float(const char *text, float min, float max, float *out);
int cli_parse_uint(const char *text, unsigned long min, unsigned long max, unsigned long *out);

/* Takes the value of option argv[*i] ("--size 3"): advances *i and returns the value, or
 * NULL after printing a usage error when it is missing. */
const char *cli_option_value(const char *command, int argc, char **argv, int *i);

/* Writes `text` to `path` whole or not at all (sinew_file_write_atomic). Returns 1 on
 * success; on failure 0, with any existing `path` untouched. "-" writes to standard output. */
int cli_write_text_atomic(const char *path, const char *text);

/* Points cJSON's allocation hooks at `malloc_fn` (malloc; a test passes one that fails) and
 * free, through a check that records every allocation cJSON could not get; main() calls it
 * before anything else. The CLI builds its
 * JSON reports with many cJSON calls, and a failure in any of them would drop one member
 * silently; cli_json_text (the one way the CLI prints JSON) refuses to print a tree after any
 * failure, so a report is whole or reported as out of memory. The hooks are process-global,
 * which the library must not assume (it checks each call, and never sets them), but the CLI
 * is the process: setting them here surprises nobody. */
void cli_json_init(void *(*malloc_fn)(size_t));
/* 1 when an allocation of cJSON's failed since the last call (which clears the record). */
int cli_json_failed(void);

typedef enum cli_json_style {
    CLI_JSON_COMPACT,  /* one line (cJSON_PrintUnformatted) */
    CLI_JSON_INDENTED, /* cJSON_Print */
    CLI_JSON_TABLE     /* cli_json_print */
} cli_json_style;

/* `root` as JSON text in `style`, the one way the CLI prints JSON: cJSON copies string bytes as
 * they are, so first each invalid UTF-8 sequence in a string value is replaced with U+FFFD
 * (names and paths from files and command lines need not be UTF-8, which strict parsers
 * refuse; keys are the CLI's own ASCII), and then DEL and the C1 controls, which JSON allows
 * raw, are written as \u escapes, so that the text is safe on a terminal too. Repairs `root`
 * in place. Returns malloc'd text (free it), or NULL when out of memory, now or while the tree
 * was built (cli_json_failed). */
char *cli_json_text(cJSON *root, cli_json_style style);

/* `root` as JSON text that reads as a table: one member of the top-level object per line,
 * arrays of objects at that level one object per line, everything deeper on its line with
 * ": " after keys and ", " between members; strings and numbers as cJSON prints them.
 * Returns malloc'd text (free it), or NULL when out of memory. */
char *cli_json_print(const cJSON *root);

/* Tail skin by name: mask[v] = 1 where v's dominant joint is named with "tail" in any case
 * (Tail_1, b_Tail01, Tail3). Returns how many tail joints the skin has. */
uint32_t cli_mark_tail_skin(const sinew_model *model, uint8_t *mask);
/* The same for joints whose name contains `word` (any case): "wing" for Wing_L_1, Wing2.R. */
uint32_t cli_mark_named_skin(const sinew_model *model, const char *word, uint8_t *mask);

#endif
