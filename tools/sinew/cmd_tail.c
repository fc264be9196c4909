/* sinew tail: find appendages a template auto-rigger missed and give a tail its own bone chain
 * (seed 000, "Encontrando a cauda" .. "Etapa dois"; issue 3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "sinew/document.h"
#include "sinew/rig.h"
#include "bake_cli.h"
#include "tail_cli.h"

static const char *usage =
    "usage: sinew tail IN -o OUT [--report R.json] [--mode chain|rigid] [--dress-spine]\n"
    "                  [--no-bake]\n"
    "\n"
    "Finds skin far from every bone (over 7% of the model's size), decides for each piece\n"
    "whether it is body, a head piece (ears), a garment (cape, skirt), a piece on the spine\n"
    "(quiver, strap), a sleeve, or a long piece hanging from the pelvis (a tail), and gives a\n"
    "tail its own bones Tail_1..Tail_K + Tail_End under the pelvis, re-weighted along it.\n"
    "Nothing else in the file changes. Prints what it found, one row per piece.\n"
    "\n"
    "  -o OUT           output .glb (or .gltf); written whole or not at all\n"
    "  --report R.json  also write the findings as JSON (an \"appendages\" list)\n"
    "  --mode chain     default: a bone chain with blended weights (seed's step two)\n"
    "  --mode rigid     every tail vertex on the pelvis with weight 1 (seed's step one)\n"
    "  --dress-spine    long pieces on the spine (quiver, sheath) get weight 1 on their bone\n"
    "                   instead of staying as the rigger left them\n"
    "  --no-bake        copy the clips unchanged (by default a chain's motion is simulated\n"
    "                   with the spring runtime and baked into every clip as keys, as\n"
    "                   'sinew bake' does: see the spring options below)\n"
    "\n"
    "The size H is the larger of the model's height and its longest horizontal extent, so an\n"
    "upright biped and a horizontal lizard both get sensible thresholds.\n\n";

int cmd_tail(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *report_path = NULL, *mode = "chain";
    sinew_rig_options opt;
    memset(&opt, 0, sizeof opt);
    sinew_dyn_params params;
    memset(&params, 0, sizeof params);
    int bake = 1;
    for (int i = 1; i < argc; i++) {
        int took = bake_cli_parse_option("tail", argc, argv, &i, &params);
        if (took < 0) return CLI_EXIT_USAGE;
        if (took) continue;
        if (cli_is_help(argv[i])) {
            printf("%s%s", usage, bake_cli_options_help);
            return CLI_EXIT_OK;
        } else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (!(out = cli_option_value("tail", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--report")) {
            if (!(report_path = cli_option_value("tail", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--mode")) {
            if (!(mode = cli_option_value("tail", argc, argv, &i))) return CLI_EXIT_USAGE;
            if (!strcmp(mode, "chain"))
                opt.mode = SINEW_RIG_MODE_CHAIN;
            else if (!strcmp(mode, "rigid"))
                opt.mode = SINEW_RIG_MODE_RIGID;
            else
                return cli_usage_error("tail", "--mode must be chain or rigid, not '%s'", mode);
        } else if (!strcmp(argv[i], "--dress-spine")) {
            opt.dress_spine = 1;
        } else if (!strcmp(argv[i], "--no-bake")) {
            bake = 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("tail", "unknown option '%s'", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else {
            return cli_usage_error("tail", "more than one input ('%s' and '%s')", in, argv[i]);
        }
    }
    if (!in) return cli_usage_error("tail", "missing input file");
    if (!out) return cli_usage_error("tail", "missing -o OUT");

    sinew_error err;
    memset(&err, 0, sizeof err);
    sinew_document *doc = NULL;
    sinew_model *model = NULL;
    tail_run run;
    memset(&run, 0, sizeof run);
    int code = CLI_EXIT_OK;
    if (sinew_document_load_file(in, NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &model, &err) != SINEW_OK) {
        if (err.code == SINEW_ERR_ARGUMENT) err.code = SINEW_ERR_FORMAT; /* the file's fault */
        code = cli_report("tail", &err);
        goto done;
    }
    sinew_bake_options bake_options;
    memset(&bake_options, 0, sizeof bake_options);
    bake_options.params = &params;
    if (tail_cli_run(doc, model, &opt, bake, &bake_options, &run, &err) != SINEW_OK ||
        sinew_document_write_file(doc, out, &err) != SINEW_OK) {
        if (err.code == SINEW_ERR_ARGUMENT) err.code = SINEW_ERR_FORMAT;
        code = cli_report("tail", &err);
        goto done;
    }
    if (report_path) {
        if (!tail_cli_write_report(report_path, model, &run, in, out, mode)) {
            fprintf(stderr, "sinew tail: could not write the report %s\n", report_path);
            remove(out); /* no partial output: the report was asked for and failed */
            code = CLI_EXIT_INTERNAL;
            goto done;
        }
    }
    tail_cli_print(in, model, &run);
done:
    tail_run_free(&run);
    sinew_model_free(model);
    sinew_document_free(doc);
    return code;
}
