/* The files one command writes: never an input, and written together or not at all. */
#ifndef SINEW_CLI_OUTPUTS_H
#define SINEW_CLI_OUTPUTS_H

#include <stddef.h>

#include "sinew/document.h"

/* What an output holds, so that its name must say so (as gltfpack and gltf-transform refuse
 * an output whose extension does not match what they write). */
typedef enum cli_format {
    CLI_FORMAT_ANY = 0, /* not checked */
    CLI_FORMAT_GLTF,    /* .glb or .gltf */
    CLI_FORMAT_PNG      /* .png */
} cli_format;

/* One file a command writes. */
typedef struct cli_output {
    const char *option; /* how the user named it, for messages: "-o", "--report" */
    const char *path;   /* "-" = standard output; NULL = not asked for (skipped) */
    sinew_bytes bytes;  /* what to write, freed by cli_outputs_free (sinew_bytes_free); text
                           the CLI makes itself is malloc's (a zeroed allocator) */
    cli_format format;
    size_t written; /* bytes written, once cli_outputs_write has succeeded (for reports) */
} cli_output;

#define CLI_MAX_OUTPUTS 4

/* CLI_EXIT_OK when every output's name ends as its format says and names a file of its own:
 * none of the files the inputs were
 * read from (the input, its external buffers and images: sinew_document_source) and no
 * other output. Otherwise prints a usage error and returns CLI_EXIT_USAGE: inputs are never
 * modified. `input_paths` (may be NULL) are inputs not loaded as documents. */
int cli_outputs_check(const char *command, const cli_output *outs, int count,
                      const sinew_document *const *inputs, int input_count,
                      const char *const *input_paths, int path_count);

/* For a command that prints JSON on standard output (--json): CLI_EXIT_OK when no output is
 * "-" too, else a usage error naming it (two documents in one stream parse as neither). */
int cli_outputs_check_json(const char *command, const cli_output *outs, int count);

/* Writes every output whole, all or none: each is staged beside its target, and only when all
 * are staged are they renamed into place. SIGINT, SIGTERM and SIGHUP meanwhile remove what
 * is staged before the process ends. On failure prints which output could not be written
 * and returns CLI_EXIT_INTERNAL, with no output changed. Frees the outputs' data. */
int cli_outputs_write(const char *command, cli_output *outs, int count);

/* Frees the outputs' data (for a command that fails before writing). */
void cli_outputs_free(cli_output *outs, int count);

#endif
