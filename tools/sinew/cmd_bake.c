/* sinew bake: simulate the Tail_* chain over every clip and record rotation keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bake_cli.h"
#include "cli.h"
#include "outputs.h"
#include "safe_text.h"
#include "commands.h"
#include "sinew/document.h"
#include "sinew/pipeline.h"

static const char *usage =
    "usage: sinew bake IN -o OUT [--key-degrees D] [spring options] [--vrm-springs] [--meshopt]\n"
    "                  [--json]\n"
    "\n"
    "Bakes the tail of a file that already has a Tail_1..Tail_K chain (from 'sinew tail'): every\n"
    "clip is simulated with the spring runtime and rotation keys for the Tail_* joints are\n"
    "written into that same animation at the clip's own rate (at least 30 per second). A\n"
    "looping clip runs silently until the tail's state returns to where it began, so the loop\n"
    "closes; a non-looping clip starts settled in its first pose. Wing chains (Wing_L_*,\n"
    "Wing_R_*, from 'sinew tail') are baked too, with a wing's stiffer springs, resting as\n"
    "modelled, without floor, and ear chains (Ear_L_*, Ear_R_*, from 'sinew tail --ears') with\n"
    "an ear's, stiffer still (the options below set the tail's). Garment chains (Garment_<k>_*,\n"
    "from 'sinew tail --garment chains') are baked with every clip, each garment's chains\n"
    "stepped together and neighbouring chains held at their rest distances (a skirt's as a\n"
    "closed ring), resting as modelled. No other channel changes.\n"
    "OUT is .glb, or .gltf when its name says so. IN is never modified.\n\n"
    "  --key-degrees D   each joint keeps only the keys a player needs to play its rotations\n"
    "                    within D degrees of the track keyed at every step (first and last\n"
    "                    kept, so loops stay closed); default: every key\n"
    "  --json            print JSON instead of the table, once OUT is written: input, output,\n"
    "                    bytes (OUT's size), clip_count, tail (true when a Tail_* chain was\n"
    "                    baked), wings, ears and garment_chains (the chains of each kind\n"
    "                    baked), clips (the table: per clip\n"
    "                    name, keys, rate, looping, passes, drift_degrees, seam_degrees,\n"
    "                    swing_degrees, tip_swing_degrees, closed) and with --vrm-springs\n"
    "                    vrm_springs (the fit's table)\n\n" CLI_MESHOPT_HELP "\n";

/* Bakes the Tail_* chain: 1 when there was one, 0 when the model has none, -1 on error. */
static int bake_tail(sinew_document *doc, sinew_model *model, const sinew_bake_options *options,
                     sinew_bake_track *summaries, sinew_error *err)
{
    sinew_dyn_rig *rig = NULL;
    sinew_result r = sinew_dyn_rig_create(model, NULL, options->params, NULL, &rig, err);
    sinew_dyn_rig_free(rig);
    if (r == SINEW_ERR_NOT_FOUND) return 0;
    if (r != SINEW_OK) return -1;
    return sinew_bake_all(doc, model, options, summaries, err) == SINEW_OK ? 1 : -1;
}

/* What was baked beside a lone tail, for the summary line: "" (the tail alone), " (wings)",
 * " (tail and garments)", " (tail, wings and ears)", ... */
static void baked_parts(char *out, size_t size, int tail, uint32_t wings, uint32_t ears,
                        uint32_t garments)
{
    const char *parts[4];
    int n = 0;
    if (tail) parts[n++] = "tail";
    if (wings) parts[n++] = "wings";
    if (ears) parts[n++] = "ears";
    if (garments) parts[n++] = "garments";
    out[0] = 0;
    if (n == 0 || (n == 1 && tail)) return;
    char words[64];
    cli_join_words(words, sizeof words, parts, n);
    snprintf(out, size, " (%s)", words);
}

/* What was baked as one JSON object on stdout (the table's figures, the paths, OUT's size).
 * `fit` is NULL without --vrm-springs. */
static int print_json(const char *in, const cli_output *written, const sinew_model *model, int tail,
                      uint32_t wings, uint32_t ears, uint32_t garments,
                      const sinew_bake_track *summaries, const sinew_vrm_fit *fit)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "input", in);
    cJSON_AddStringToObject(root, "output", written->path);
    cJSON_AddNumberToObject(root, "bytes", (double)written->written);
    cJSON_AddNumberToObject(root, "clip_count", model->clip_count);
    cJSON_AddBoolToObject(root, "tail", tail);
    cJSON_AddNumberToObject(root, "wings", wings);
    cJSON_AddNumberToObject(root, "ears", ears);
    cJSON_AddNumberToObject(root, "garment_chains", garments);
    /* the tail's figures; a wing's, an ear's or a garment's bake has no table */
    cJSON_AddItemToObject(root, "clips",
                          tail ? bake_cli_json(model, summaries) : cJSON_CreateArray());
    if (fit) cJSON_AddItemToObject(root, "vrm_springs", bake_cli_vrm_json(model, fit));
    char *text = cli_json_text(root, CLI_JSON_INDENTED);
    cJSON_Delete(root);
    const int ok = text && puts(text) >= 0;
    free(text);
    if (ok) return CLI_EXIT_OK;
    cli_error("bake", "out of memory printing the report");
    return CLI_EXIT_INTERNAL;
}

int cmd_bake(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    int vrm = 0, json = 0;
    float key_degrees = 0;
    sinew_dyn_params params;
    memset(&params, 0, sizeof params);
    sinew_bake_colliders colliders = SINEW_BAKE_COLLIDERS_AUTO;
    sinew_dyn_capsule capsules[SINEW_DYN_MAX_CAPSULES];
    uint32_t capsule_count = 0;
    sinew_write_options wopt = {0};
    for (int i = 1; i < argc; i++) {
        if (cli_parse_write_option(argv[i], &wopt)) continue;
        int took = bake_cli_parse_option("bake", argc, argv, &i, &params);
        if (!took) took = bake_cli_parse_colliders("bake", argc, argv, &i, &colliders);
        if (took < 0) return CLI_EXIT_USAGE;
        if (took) continue;
        if (cli_is_help(argv[i])) {
            printf("%s%s%s", usage, bake_cli_options_help, bake_cli_vrm_help);
            return CLI_EXIT_OK;
        } else if (!strcmp(argv[i], "--key-degrees")) {
            const char *v = cli_option_value("bake", argc, argv, &i);
            if (!v) return CLI_EXIT_USAGE;
            /* up to 45 degrees: past that nothing of a tail's swing is left to keep */
            if (!cli_parse_float(v, 0, 45.0f, &key_degrees) || !(key_degrees > 0))
                return cli_usage_error("bake",
                                       "--key-degrees needs a number above 0 and at most 45, "
                                       "not '%s'",
                                       v);
        } else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (!(out = cli_option_value("bake", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--vrm-springs")) {
            vrm = 1;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-') {
            return cli_usage_error("bake", "unknown option '%s'", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else {
            return cli_usage_error("bake", "one input file only ('%s' is extra)", argv[i]);
        }
    }
    if (!in) return cli_usage_error("bake", "no input file");
    if (!out) return cli_usage_error("bake", "no output file (-o OUT)");
    if (bake_cli_check("bake", &params)) return CLI_EXIT_USAGE;
    cli_output outs[1] = {{.option = "-o", .path = out, .format = CLI_FORMAT_GLTF}};
    if (json && cli_outputs_check_json("bake", outs, 1) != CLI_EXIT_OK) return CLI_EXIT_USAGE;

    sinew_error err = {0};
    sinew_document *doc = NULL;
    sinew_model *model = NULL;
    sinew_bake_track *summaries = NULL;
    int code = CLI_EXIT_OK, tail = 0;
    uint32_t wings = 0, ears = 0, garments = 0;
    sinew_vrm_fit fit;
    if (sinew_document_load_file(in, NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &model, &err) != SINEW_OK) {
        code = cli_report_file("bake", in, &err);
        goto done;
    }
    const sinew_document *inputs[1] = {doc};
    if ((code = cli_outputs_check("bake", outs, 1, inputs, 1, NULL, 0)) != CLI_EXIT_OK) goto done;
    summaries = calloc(model->clip_count + 1, sizeof *summaries);
    sinew_bake_options options = {0};
    options.params = &params;
    options.key_degrees = key_degrees;
    options.colliders = colliders;
    /* the body's capsules (none when its legs and pelvis cannot be found) */
    sinew_result found = colliders == SINEW_BAKE_COLLIDERS_OFF
                             ? SINEW_ERR_NOT_FOUND
                             : sinew_body_capsules(model, capsules, SINEW_DYN_MAX_CAPSULES,
                                                   &capsule_count, NULL, &err);
    if (found == SINEW_OK) {
        options.capsules = capsule_count ? capsules : NULL;
        options.capsule_count = capsule_count;
    }
    if (!summaries || found == SINEW_ERR_OUT_OF_MEMORY) {
        sinew_error_set(&err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
        code = cli_report_file("bake", in, &err);
    } else if ((tail = bake_tail(doc, model, &options, summaries, &err)) < 0 ||
               sinew_bake_wings(doc, model, &options, &wings, &err) != SINEW_OK ||
               sinew_bake_ears(doc, model, &options, &ears, &err) != SINEW_OK ||
               sinew_bake_garments(doc, model, &options, &garments, &err) != SINEW_OK) {
        code = cli_report_file("bake", in, &err);
    } else if (!tail && !wings && !ears && !garments) {
        /* Neither: the tail's own message (no Tail_1..Tail_K joints) says what is missing. */
        sinew_bake_all(doc, model, &options, NULL, &err);
        code = cli_report_file("bake", in, &err);
    } else if ((vrm && (sinew_vrm_fit_chain(model, &params, &fit, &err) != SINEW_OK ||
                        sinew_vrm_apply_document(doc, model, &fit, &err) != SINEW_OK)) ||
               sinew_document_serialize_with(doc, out, &wopt, &outs[0].bytes, &err) != SINEW_OK) {
        code = cli_report_file("bake", in, &err);
    } else if ((code = cli_outputs_write("bake", outs, 1)) != CLI_EXIT_OK) {
        /* nothing written: cli_outputs_write said why */
    } else if (json) {
        code = print_json(in, &outs[0], model, tail, wings, ears, garments, summaries,
                          vrm ? &fit : NULL);
    } else {
        char what[96];
        baked_parts(what, sizeof what, tail, wings, ears, garments);
        printf("%s: baked %u clips -> %s%s\n", safe_text(in).s, model->clip_count, safe_text(out).s,
               what);
        if (tail) bake_cli_print(model, summaries);
        if (tail) bake_cli_print_colliders(model, summaries);
        if (vrm) bake_cli_print_vrm(model, &fit);
    }
done:
    cli_outputs_free(outs, 1);
    free(summaries);
    sinew_model_free(model);
    sinew_document_free(doc);
    return code;
}
