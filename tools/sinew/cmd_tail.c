/* sinew tail: find appendages a template auto-rigger missed and give a tail its own bone chain
 * (seed 000, "Encontrando a cauda" .. "Etapa dois"; issue 3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "commands.h"
#include "sinew/document.h"
#include "sinew/rig.h"

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
    "  --no-bake        copy the clips unchanged. Baking the tail's motion into the clips is\n"
    "                   NOT implemented by this command yet, so clips are always copied\n"
    "                   unchanged today; the flag is accepted so scripts keep working later.\n"
    "\n"
    "The size H is the larger of the model's height and its longest horizontal extent, so an\n"
    "upright biped and a horizontal lizard both get sensible thresholds.\n";

static const char *joint_name(const sinew_model *m, int32_t j)
{
    if (j < 0 || (uint32_t)j >= m->skin.joint_count) return "-";
    const char *n = m->nodes[m->skin.joints[j].node].name;
    return n ? n : "-";
}

static cJSON *report_json(const sinew_model *m, const sinew_rig_report *rep,
                          const sinew_rig_plan *plan, const char *in, const char *out,
                          const char *mode)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "input", in);
    cJSON_AddStringToObject(root, "output", out);
    cJSON_AddStringToObject(root, "mode", mode);
    cJSON_AddNumberToObject(root, "scale", rep->scale);
    cJSON_AddNumberToObject(root, "far_threshold", rep->far_threshold);
    cJSON *lm = cJSON_AddObjectToObject(root, "landmarks");
    cJSON_AddStringToObject(lm, "pelvis", joint_name(m, rep->landmarks.pelvis));
    cJSON_AddStringToObject(lm, "head", joint_name(m, rep->landmarks.head));
    cJSON *th = cJSON_AddArrayToObject(lm, "thighs");
    for (int s = 0; s < 2; s++)
        if (rep->landmarks.thigh[s] >= 0)
            cJSON_AddItemToArray(th, cJSON_CreateString(joint_name(m, rep->landmarks.thigh[s])));
    cJSON *sp = cJSON_AddArrayToObject(lm, "spine");
    for (uint32_t i = 0; i < rep->landmarks.spine_count; i++)
        cJSON_AddItemToArray(sp, cJSON_CreateString(joint_name(m, rep->landmarks.spine[i])));
    cJSON *list = cJSON_AddArrayToObject(root, "appendages");
    for (uint32_t p = 0; p < rep->piece_count; p++) {
        const sinew_rig_piece *pc = &rep->pieces[p];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "piece", p);
        cJSON_AddStringToObject(o, "verdict", sinew_rig_verdict_name(pc->verdict));
        cJSON_AddStringToObject(o, "reason", pc->reason);
        cJSON_AddNumberToObject(o, "vertices", pc->vertex_count);
        cJSON_AddNumberToObject(o, "far_vertices", pc->far_count);
        cJSON_AddStringToObject(o, "attach_joint", joint_name(m, pc->attach_joint));
        cJSON_AddStringToObject(o, "attach_region", sinew_rig_region_name(pc->attach_region));
        cJSON_AddNumberToObject(o, "merged_shells", pc->merged_shells);
        if (pc->merged_into >= 0) cJSON_AddNumberToObject(o, "merged_into", pc->merged_into);
        cJSON_AddNumberToObject(o, "length", pc->length);
        cJSON_AddNumberToObject(o, "segments", pc->segments);
        cJSON_AddNumberToObject(o, "elongation", pc->elongation);
        cJSON_AddNumberToObject(o, "centroid_ratio", pc->centroid_ratio);
        cJSON_AddNumberToObject(o, "reach", pc->reach);
        cJSON_AddNumberToObject(o, "radius", pc->radius);
        cJSON_AddNumberToObject(o, "weighted_distance_before", pc->distance_before);
        cJSON_AddNumberToObject(o, "weighted_distance_after", pc->distance_after);
        for (uint32_t c = 0; c < plan->chain_count; c++) {
            if (plan->chains[c].piece != p) continue;
            cJSON *bones = cJSON_AddArrayToObject(o, "bones");
            for (uint32_t b = 0; b < plan->chains[c].bone_count; b++)
                cJSON_AddItemToArray(bones, cJSON_CreateString(plan->chains[c].bones[b].name));
            cJSON_AddStringToObject(o, "parent", joint_name(m, rep->landmarks.pelvis));
        }
        cJSON_AddItemToArray(list, o);
    }
    cJSON_AddNumberToObject(root, "chains", plan->chain_count);
    cJSON_AddNumberToObject(root, "changed_vertices", plan->changed_count);
    return root;
}

/* Writes text to a temporary file beside `path`, then renames it into place. */
static int write_text_atomic(const char *path, const char *text)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp) return 0;
    snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return 0;
    }
    FILE *f = fdopen(fd, "wb");
    int ok = f && fputs(text, f) >= 0;
    if (f)
        ok = (fclose(f) == 0) && ok;
    else
        close(fd);
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        free(tmp);
        return 0;
    }
    free(tmp);
    return 1;
}

static void print_table(const sinew_model *m, const sinew_rig_report *rep,
                        const sinew_rig_plan *plan, const char *in)
{
    printf("%s: H = %.4g (far beyond %.4g), pelvis %s, head %s\n", in, (double)rep->scale,
           (double)rep->far_threshold, joint_name(m, rep->landmarks.pelvis),
           joint_name(m, rep->landmarks.head));
    printf("%-3s %-8s %7s %-22s %9s %2s %6s %6s %6s %10s %10s\n", "#", "verdict", "verts", "attach",
           "length", "K", "elong", "ratio", "shells", "dist.before", "dist.after");
    for (uint32_t p = 0; p < rep->piece_count; p++) {
        const sinew_rig_piece *pc = &rep->pieces[p];
        if (pc->verdict == SINEW_RIG_VERDICT_MERGED) continue;
        printf("%-3u %-8s %7u %-22.22s %9.4g %2u %6.2f %6.2f %6u %10.4g %10.4g\n", p,
               sinew_rig_verdict_name(pc->verdict), pc->vertex_count,
               joint_name(m, pc->attach_joint), (double)pc->length, pc->segments,
               (double)pc->elongation, (double)pc->centroid_ratio, pc->merged_shells,
               (double)pc->distance_before, (double)pc->distance_after);
        printf("    %s\n", pc->reason);
    }
    for (uint32_t c = 0; c < plan->chain_count; c++) {
        const sinew_rig_chain *ch = &plan->chains[c];
        printf("chain %u: %s .. %s (%u bones) under %s\n", c, ch->bones[0].name,
               ch->bones[ch->bone_count - 1].name, ch->bone_count,
               joint_name(m, rep->landmarks.pelvis));
    }
    printf("%u chain(s), %u vertices re-weighted; clips copied unchanged (no bake yet)\n",
           plan->chain_count, plan->changed_count);
}

int cmd_tail(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *report_path = NULL, *mode = "chain";
    sinew_rig_options opt;
    memset(&opt, 0, sizeof opt);
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fputs(usage, stdout);
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
            /* Clips are copied unchanged: the bake is not part of this command yet. */
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
    sinew_rig_report rep;
    sinew_rig_plan plan;
    memset(&rep, 0, sizeof rep);
    memset(&plan, 0, sizeof plan);
    int code = CLI_EXIT_OK;
    sinew_result r;
    if ((r = sinew_document_load_file(in, NULL, &doc, &err)) != SINEW_OK ||
        (r = sinew_model_from_document(doc, NULL, &model, &err)) != SINEW_OK) {
        if (err.code == SINEW_ERR_ARGUMENT) err.code = SINEW_ERR_FORMAT; /* the file's fault */
        code = cli_report("tail", &err);
        goto done;
    }
    if ((r = sinew_rig_find_appendages(model, &opt, &rep, &err)) != SINEW_OK ||
        (r = sinew_rig_build_chain(model, &opt, &rep, &plan, &err)) != SINEW_OK) {
        if (err.code == SINEW_ERR_ARGUMENT) err.code = SINEW_ERR_FORMAT;
        code = cli_report("tail", &err);
        goto done;
    }
    if ((r = sinew_rig_apply_document(doc, model, &plan, &err)) != SINEW_OK) {
        code = cli_report("tail", &err);
        goto done;
    }
    if (plan.chain_count || plan.changed_count) {
        char note[160];
        snprintf(note, sizeof note, "%u chain(s) (%s%s), %u vertices re-weighted, mode %s",
                 plan.chain_count, plan.chain_count ? plan.chains[0].bones[0].name : "-",
                 plan.chain_count ? "..Tail_End" : "", plan.changed_count, mode);
        if ((r = sinew_document_set_note(doc, "tail", note, &err)) != SINEW_OK) {
            code = cli_report("tail", &err);
            goto done;
        }
    }
    if ((r = sinew_document_write_file(doc, out, &err)) != SINEW_OK) {
        code = cli_report("tail", &err);
        goto done;
    }
    if (report_path) {
        cJSON *json = report_json(model, &rep, &plan, in, out, mode);
        char *text = json ? cJSON_Print(json) : NULL;
        int ok = text && write_text_atomic(report_path, text);
        if (text) cJSON_free(text);
        cJSON_Delete(json);
        if (!ok) {
            fprintf(stderr, "sinew tail: could not write the report %s\n", report_path);
            code = CLI_EXIT_INTERNAL;
            goto done;
        }
    }
    print_table(model, &rep, &plan, in);
done:
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_model_free(model);
    sinew_document_free(doc);
    return code;
}
