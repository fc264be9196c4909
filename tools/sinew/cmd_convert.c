/* sinew convert IN OUT: load, validate and write back (the io round trip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "outputs.h"
#include "commands.h"
#include "sinew/document.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: sinew convert IN OUT [--meshopt] [--help]\n\n"
                 "Reads IN (.glb or .gltf), validates it and writes OUT: GLB, or .gltf with one\n"
                 "embedded buffer when OUT ends in .gltf. Everything in the file is kept; only\n"
                 "the buffer layout changes. Draco and meshopt compressed input is decoded\n"
                 "and written uncompressed. IN is never modified; on failure OUT is not\n"
                 "created.\n\n" CLI_MESHOPT_HELP "\n"
                 "exit codes: 0 ok, 1 bad input file, 2 bad usage, 3 internal error or OUT\n"
                 "could not be written\n");
}

int cmd_convert(int argc, char **argv)
{
    const char *paths[2];
    int npaths = 0;
    sinew_write_options wopt = {0};
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (cli_parse_write_option(argv[i], &wopt)) continue;
        if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("convert", "unknown option '%s'", argv[i]);
        if (npaths == 2) return cli_usage_error("convert", "too many arguments");
        paths[npaths++] = argv[i];
    }
    if (npaths != 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    sinew_error err = {0};
    sinew_document *doc = NULL;
    if (sinew_document_load_file(paths[0], NULL, &doc, &err)) return cli_report("convert", &err);
    cli_output outs[1] = {{.option = "OUT", .path = paths[1], .format = CLI_FORMAT_GLTF}};
    const sinew_document *inputs[1] = {doc};
    int code = cli_outputs_check("convert", outs, 1, inputs, 1, NULL, 0);
    if (code == CLI_EXIT_OK) {
        for (uint32_t i = 0; i < sinew_document_warning_count(doc); i++)
            cli_error("convert", "warning: %s", sinew_document_warning(doc, i));
        if (sinew_document_serialize_with(doc, paths[1], &wopt, &outs[0].bytes, &err))
            code = cli_report("convert", &err);
        else
            code = cli_outputs_write("convert", outs, 1);
    }
    sinew_document_free(doc);
    return code;
}
