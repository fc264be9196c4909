/* All-or-nothing outputs for the CLI's commands (see outputs.h). */
#define _POSIX_C_SOURCE 200809L
#include "outputs.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "sinew/file.h"

static const char *const format_rule[] = {"", "a glTF output's name ends in .glb or .gltf",
                                          "a picture's name ends in .png"};

static int ends_with(const char *path, const char *ext)
{
    const size_t n = strlen(path), e = strlen(ext);
    return n > e && !strcasecmp(path + n - e, ext);
}

static int named_as(const char *path, cli_format format)
{
    switch (format) {
    case CLI_FORMAT_GLTF:
        return ends_with(path, ".glb") || ends_with(path, ".gltf");
    case CLI_FORMAT_PNG:
        return ends_with(path, ".png");
    default:
        return 1;
    }
}

int cli_outputs_check(const char *command, const cli_output *outs, int count,
                      const sinew_document *const *inputs, int input_count,
                      const char *const *input_paths, int path_count)
{
    for (int i = 0; i < count; i++) {
        const char *path = outs[i].path;
        if (!path || !strcmp(path, "-")) continue;
        for (int d = 0; d < input_count; d++)
            for (uint32_t s = 0; s < sinew_document_source_count(inputs[d]); s++)
                if (sinew_file_same(path, sinew_document_source(inputs[d], s)))
                    return cli_usage_error(command,
                                           "%s %s names %s, a file the input was read from "
                                           "(inputs are never modified)",
                                           outs[i].option, path,
                                           sinew_document_source(inputs[d], s));
        for (int p = 0; p < path_count; p++)
            if (input_paths[p] && sinew_file_same(path, input_paths[p]))
                return cli_usage_error(command,
                                       "%s %s names the input %s (inputs are never modified)",
                                       outs[i].option, path, input_paths[p]);
        for (int k = 0; k < i; k++)
            if (outs[k].path && sinew_file_same(path, outs[k].path))
                return cli_usage_error(command, "%s and %s name the same file %s", outs[k].option,
                                       outs[i].option, path);
        if (!named_as(path, outs[i].format)) /* after: naming an input is the graver mistake */
            return cli_usage_error(command, "%s %s: %s", outs[i].option, path,
                                   format_rule[outs[i].format]);
    }
    return CLI_EXIT_OK;
}

int cli_outputs_check_json(const char *command, const cli_output *outs, int count)
{
    for (int i = 0; i < count; i++)
        if (outs[i].path && !strcmp(outs[i].path, "-"))
            return cli_usage_error(command,
                                   "--json and %s - both write to standard output: give %s a "
                                   "file name, or drop --json",
                                   outs[i].option, outs[i].option);
    return CLI_EXIT_OK;
}

/* What a signal handler removes: the files being staged right now. */
static sinew_staged_file *staging[CLI_MAX_OUTPUTS];
static volatile sig_atomic_t staging_count;

static void remove_staged_and_die(int sig)
{
    for (sig_atomic_t i = 0; i < staging_count; i++)
        if (staging[i] && staging[i]->temp[0]) unlink(staging[i]->temp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};

static void catch_signals(struct sigaction *saved)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_staged_and_die;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        sigaction(caught[i], &sa, &saved[i]);
}

static void restore_signals(const struct sigaction *saved)
{
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        sigaction(caught[i], &saved[i], NULL);
}

void cli_outputs_free(cli_output *outs, int count)
{
    for (int i = 0; i < count; i++) {
        sinew_bytes_free(&outs[i].bytes);
    }
}

int cli_outputs_write(const char *command, cli_output *outs, int count)
{
    if (count > CLI_MAX_OUTPUTS) { /* a command asking for more is a bug: write none */
        cli_error(command, "internal error: %d outputs, at most %d", count, CLI_MAX_OUTPUTS);
        cli_outputs_free(outs, count);
        return CLI_EXIT_INTERNAL;
    }
    sinew_staged_file *files = calloc((size_t)count + 1, sizeof *files);
    if (!files) {
        cli_error(command, "out of memory writing the outputs");
        cli_outputs_free(outs, count);
        return CLI_EXIT_INTERNAL;
    }
    struct sigaction saved[sizeof caught / sizeof caught[0]];
    for (int i = 0; i < count; i++)
        staging[i] = &files[i];
    staging_count = count;
    catch_signals(saved);
    sinew_error err = {0};
    int failed = -1;
    for (int i = 0; i < count && failed < 0; i++) {
        if (!outs[i].path || !strcmp(outs[i].path, "-")) continue;
        if (sinew_file_stage(outs[i].path, outs[i].bytes.data, outs[i].bytes.size, &files[i], &err))
            failed = i;
    }
    /* Everything is staged: commit. A rename in a folder just written to does not fail in
     * practice; if one does, the outputs already renamed stay (their old content is gone). */
    for (int i = 0; i < count && failed < 0; i++)
        if (files[i].temp[0] && sinew_file_commit(&files[i], &err)) failed = i;
    int to_stdout_failed = 0;
    for (int i = 0; i < count && failed < 0; i++)
        if (outs[i].path && !strcmp(outs[i].path, "-") &&
            (fwrite(outs[i].bytes.data, 1, outs[i].bytes.size, stdout) != outs[i].bytes.size ||
             fflush(stdout)))
            failed = i, to_stdout_failed = 1;
    for (int i = 0; i < count; i++)
        sinew_file_discard(&files[i]);
    staging_count = 0;
    restore_signals(saved);
    free(files);
    for (int i = 0; i < count && failed < 0; i++)
        outs[i].written = outs[i].path ? outs[i].bytes.size : 0;
    cli_outputs_free(outs, count);
    if (failed < 0) return CLI_EXIT_OK;
    if (to_stdout_failed)
        cli_error(command, "%s: writing to standard output failed", outs[failed].option);
    else
        cli_error(command, "%s %s not written, nor any other output: %s", outs[failed].option,
                  outs[failed].path, err.message);
    return CLI_EXIT_INTERNAL;
}
