/* The tail job as the CLI shows it (`sinew tail`, `sinew stretch --compare`, `sinew demo`):
 * the library runs it (sinew/pipeline.h); this prints its table and writes its report. */
#ifndef SINEW_TAIL_CLI_H
#define SINEW_TAIL_CLI_H

#include "sinew/pipeline.h"

#define TAIL_CLI_MAX_ROWS 64 /* --piece / --skip rows given at most */

/* The job's options as a command line gives them (`sinew tail`, `sinew batch`): one parser,
 * so both commands take the same options with the same checks. */
typedef struct tail_cli_options {
    sinew_tail_options job;  /* for sinew_tail_run, once tail_cli_options_finish succeeded */
    sinew_dyn_params params; /* the spring options (job.bake.params points here) */
    const char *mode;        /* "chain" or "rigid", as the report records it */
    uint32_t pieces[TAIL_CLI_MAX_ROWS], skips[TAIL_CLI_MAX_ROWS];
    sinew_write_options write; /* how the edited file is written (--meshopt) */
} tail_cli_options;

/* Help text for the options tail_cli_parse_option takes (the spring options not included:
 * bake_cli_options_help). */
extern const char *tail_cli_options_help;

/* Defaults: chain mode, every spring parameter the library's default. */
void tail_cli_options_init(tail_cli_options *o);
/* Parses a job option (or a spring option) at argv[*i] into `o`. Returns 1 when it took the
 * option (advancing *i past its value), 0 when argv[*i] is not one, and -1 after printing a
 * usage error. */
int tail_cli_parse_option(const char *command, int argc, char **argv, int *i, tail_cli_options *o);
/* After every option is parsed: checks the spring parameters and points o->job at o's rows
 * and parameters (so `o` must not be moved afterwards). 0 when fine, else -1 after printing
 * a usage error. */
int tail_cli_options_finish(const char *command, tail_cli_options *o);

/* Runs the job in `mode` (default options otherwise) on an independent copy of `doc`, which
 * is not changed. *copy gets the edited copy (NULL when it could not be made): free it with
 * sinew_document_free, and `run` with sinew_tail_result_free, either way. */
sinew_result tail_cli_run_copy(const sinew_document *doc, sinew_rig_mode mode,
                               sinew_document **copy, sinew_tail_result *run, sinew_error *err);

typedef struct cJSON cJSON;
/* Edge-stretch summary as a JSON object (samples, p95, p99, max, min, torn_share). */
cJSON *tail_cli_stretch_json(const sinew_stretch_stats *s);

/* The legend of the findings table (for --help). */
extern const char *tail_cli_legend;

/* Prints the findings table, the chains, the bake table when baked and the do-no-harm table
 * when checked; `verbose` adds the landmarks (legs, pelvis, head, thighs, spine). */
void tail_cli_print(const char *in, const sinew_tail_result *run, int verbose);

/* The findings as JSON (an "appendages" list, the landmarks, the bake's table, the check;
 * `in`, `out` and `mode` recorded as given); NULL when out of memory. */
cJSON *tail_cli_report_json(const sinew_tail_result *run, const char *in, const char *out,
                            const char *mode);
/* The same as JSON text, malloc'ed (free it with free()); NULL when out of memory. */
char *tail_cli_report_text(const sinew_tail_result *run, const char *in, const char *out,
                           const char *mode);
/* The same written to `path`, whole or not at all ("-": standard output). 1 on success. */
int tail_cli_write_report(const char *path, const sinew_tail_result *run, const char *in,
                          const char *out, const char *mode);

/* The edge-stretch table (rows original / rigid / chain / body) for one clip (NULL: every
 * clip) of `doc`'s model: the rigid and chain versions are made in memory. Tail edges are the
 * edges of the skin the chain re-weights. With `json` NULL, prints the table, or the reason
 * there is none; else adds the same to object `json` instead: "tail_found", "tail_vertices",
 * "samples" and "clips", one object per clip with its "name" and the rows "original",
 * "rigid", "chain" and "body" (tail_cli_stretch_json each). */
sinew_result tail_cli_stretch_compare(const sinew_document *doc, const char *clip_name,
                                      uint32_t samples, cJSON *json, sinew_error *err);

#endif
