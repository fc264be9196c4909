/* The tail pipeline as the CLI runs it (`sinew tail`, `sinew stretch --compare`, `sinew
 * demo`): find appendages, build the chain, edit the document, rebuild the model from it and
 * bake every clip; plus the readable table and the JSON report. */
#ifndef SINEW_TAIL_CLI_H
#define SINEW_TAIL_CLI_H

#include "sinew/bake.h"
#include "sinew/document.h"
#include "sinew/metrics.h"
#include "sinew/rig.h"

typedef struct tail_run {
    sinew_rig_report report;
    sinew_rig_plan plan;
    sinew_model *result;     /* the model rebuilt from the edited document (NULL on failure) */
    int baked;               /* 1 when clips were baked */
    sinew_bake_track *bakes; /* result->clip_count summaries when baked */
} tail_run;

/* Runs the pipeline on `doc` (edited in place) whose model is `model`. `bake` 0 copies clips
 * unchanged; otherwise a chain's clips are baked with `bake_options`. Returns SINEW_OK or the
 * failure (err filled). Free `run` with tail_run_free either way. */
sinew_result tail_cli_run(sinew_document *doc, const sinew_model *model,
                          const sinew_rig_options *options, int bake,
                          const sinew_bake_options *bake_options, tail_run *run, sinew_error *err);
void tail_run_free(tail_run *run);

/* Runs the pipeline in `mode` (default bake options) on an independent copy of `doc`, whose
 * model is `model`; `doc` is not changed. *copy gets the edited copy (NULL when it could not be
 * made): free it with sinew_document_free, and `run` with tail_run_free, either way. */
sinew_result tail_cli_run_copy(const sinew_document *doc, const sinew_model *model,
                               sinew_rig_mode mode, sinew_document **copy, tail_run *run,
                               sinew_error *err);

/* Prints the findings table (and the bake table when baked). */
void tail_cli_print(const char *in, const sinew_model *model, const tail_run *run);

/* Writes the findings as JSON (an "appendages" list and the landmarks; `in`, `out` and
 * `mode` are recorded as given) to `path`, whole or not at all. Returns 1 on success. */
int tail_cli_write_report(const char *path, const sinew_model *model, const tail_run *run,
                          const char *in, const char *out, const char *mode);

/* Seed 000's stretch table (rows original / rigid / chain / body) for one clip of `doc`'s
 * model: the rigid and chain versions are made in memory. Tail edges are the edges of the
 * skin the chain re-weights. Prints the table, or the reason there is none. */
sinew_result tail_cli_stretch_compare(const sinew_document *doc, const char *clip_name,
                                      uint32_t samples, sinew_error *err);

#endif
