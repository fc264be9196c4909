/* sinew tail: find the appendages a template auto-rigger gave no bones and give a tail its own
 * bone chain (the job is the library's: sinew/pipeline.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bake_cli.h"
#include "cli.h"
#include "commands.h"
#include "outputs.h"
#include "sinew/document.h"
#include "sinew/pipeline.h"
#include "tail_cli.h"

static const char *usage =
    "usage: sinew tail IN -o OUT [--report R.json] [--json] [--mode chain|rigid]\n"
    "                  [--tail-from JOINT] [--piece N]... [--skip N]... [--dress-spine]\n"
    "                  [--ears] [--garment chains|leave] [--garment-chains N]\n"
    "                  [--no-bake] [--no-check] [--meshopt] [-v] [spring options]\n"
    "\n"
    "Finds the parts of the skin that no bone runs inside (walking each protrusion from its\n"
    "tip along its cross-sections until a bone passes through one), decides for each what it\n"
    "is (a tail hanging from the pelvis, ears or horns on the head, a mane or plates on the\n"
    "back, a bump, a cape), and gives a tail its own bones Tail_1..Tail_K + Tail_End under the\n"
    "pelvis, re-weighted along it, then simulates its spring motion and bakes it into every\n"
    "clip. A mirrored pair of broad, flat pieces on the shoulders, upper back or arms is a\n"
    "pair of wings: each gets a chain along its span (Wing_L_*, Wing_R_*, mirror images),\n"
    "baked with stiffer springs and no floor; with --ears, a mirrored pair of long ears on\n"
    "the head gets short chains (Ear_L_*, Ear_R_*). With --garment chains, a cape or skirt\n"
    "modelled as a surface of its own gets chains around it (Garment_<k>_*), baked with\n"
    "neighbouring chains coupled. Before writing, it plays the input and the\n"
    "result over every clip and gives the skin at a chain's root back its rigger's weights\n"
    "where the chain made it strain more than before (or drops the chains), and says so.\n"
    "Nothing else in the file changes.\n"
    "\n"
    "  -o OUT             output .glb (or .gltf); written whole or not at all; never IN\n"
    "  --report R.json    also write the findings as JSON (an \"appendages\" list, the bake's\n"
    "                     table as \"bake\", the check)\n"
    "  --json             print that JSON instead of the tables\n"
    "  -v, --verbose      also print the landmarks\n";

int cmd_tail(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *report_path = NULL;
    tail_cli_options options;
    tail_cli_options_init(&options);
    int json = 0, verbose = 0;
    for (int i = 1; i < argc; i++) {
        int took = tail_cli_parse_option("tail", argc, argv, &i, &options);
        if (took < 0) return CLI_EXIT_USAGE;
        if (took) continue;
        const char *a = argv[i];
        if (cli_is_help(a)) {
            printf("%s%s\n%s\n%s", usage, tail_cli_options_help, bake_cli_options_help,
                   tail_cli_legend);
            return CLI_EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!(out = cli_option_value("tail", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(a, "--report")) {
            if (!(report_path = cli_option_value("tail", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            verbose = 1;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("tail", "unknown option '%s' (see sinew tail --help)", a);
        } else if (!in) {
            in = a;
        } else {
            return cli_usage_error("tail", "more than one input ('%s' and '%s')", in, a);
        }
    }
    if (!in) return cli_usage_error("tail", "missing input file");
    if (!out) return cli_usage_error("tail", "missing -o OUT");
    if (tail_cli_options_finish("tail", &options)) return CLI_EXIT_USAGE;
    const char *mode = options.mode;

    sinew_error err;
    memset(&err, 0, sizeof err);
    sinew_document *doc = NULL;
    sinew_tail_result run;
    memset(&run, 0, sizeof run);
    int code = CLI_EXIT_OK;
    cli_output outs[2] = {{.option = "-o", .path = out, .format = CLI_FORMAT_GLTF},
                          {.option = "--report", .path = report_path, .format = CLI_FORMAT_ANY}};
    if (json && (code = cli_outputs_check_json("tail", outs, 2)) != CLI_EXIT_OK) goto done;
    if (sinew_document_load_file(in, NULL, &doc, &err) != SINEW_OK) {
        code = cli_report_file("tail", in, &err);
        goto done;
    }
    const sinew_document *inputs[1] = {doc};
    if ((code = cli_outputs_check("tail", outs, 2, inputs, 1, NULL, 0)) != CLI_EXIT_OK) goto done;
    if (sinew_tail_run(doc, &options.job, &run, &err) != SINEW_OK ||
        sinew_document_serialize_with(doc, out, &options.write, &outs[0].bytes, &err) != SINEW_OK) {
        code = cli_report_file("tail", in, &err);
        goto done;
    }
    if (report_path) {
        if (!(outs[1].bytes.data = tail_cli_report_text(&run, in, out, mode))) {
            cli_error("tail", "out of memory writing the report");
            code = CLI_EXIT_INTERNAL;
            goto done;
        }
        outs[1].bytes.size = strlen(outs[1].bytes.data);
    }
    if ((code = cli_outputs_write("tail", outs, 2)) != CLI_EXIT_OK) goto done;
    if (json) {
        if (!tail_cli_write_report("-", &run, in, out, mode)) code = CLI_EXIT_INTERNAL;
    } else {
        tail_cli_print(in, &run, verbose);
        int garments = 0;
        for (uint32_t c = 0; c < run.plan.chain_count; c++)
            garments |= run.plan.chains[c].garment != 0;
        if (options.job.rig.garment == SINEW_RIG_GARMENT_CHAINS && !garments)
            printf("no garment found: --garment chains takes a sheet on a surface of its own, at "
                   "least %.2g H long and %.2g H wide or round (a cape, a skirt)\n",
                   (double)SINEW_RIG_GARMENT_LENGTH, (double)SINEW_RIG_GARMENT_WIDTH);
    }
done:
    cli_outputs_free(outs, 2);
    sinew_tail_result_free(&run);
    sinew_document_free(doc);
    return code;
}
