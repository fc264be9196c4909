/* Shared CLI plumbing: exit codes, argument parsing, messages. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sinew %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'sinew %s --help')\n", command);
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
    fprintf(stderr, "sinew %s: %s: %s\n", command, sinew_result_name(err->code),
            err->message[0] ? err->message : "(no details)");
    return cli_exit_code(err->code);
}

int cli_is_help(const char *arg)
{
    return !strcmp(arg, "-h") || !strcmp(arg, "--help");
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
