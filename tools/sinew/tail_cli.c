/* The tail pipeline as the CLI runs it: rig, edit, rebuild, bake; its table and report. */
#include "tail_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bake_cli.h"
#include "cli.h"

static const char *joint_name(const sinew_model *m, int32_t j)
{
    if (j < 0 || (uint32_t)j >= m->skin.joint_count) return "-";
    const char *n = m->nodes[m->skin.joints[j].node].name;
    return n ? n : "-";
}

/* The findings as JSON: an "appendages" list and the landmarks. */
static cJSON *report_json(const sinew_model *m, const tail_run *run, const char *in,
                          const char *out, const char *mode)
{
    const sinew_rig_report *rep = &run->report;
    const sinew_rig_plan *plan = &run->plan;
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

int tail_cli_write_report(const char *path, const sinew_model *model, const tail_run *run,
                          const char *in, const char *out, const char *mode)
{
    cJSON *json = report_json(model, run, in, out, mode);
    char *text = json ? cJSON_Print(json) : NULL;
    int ok = text && cli_write_text_atomic(path, text);
    cJSON_free(text);
    cJSON_Delete(json);
    return ok;
}

void tail_cli_print(const char *in, const sinew_model *m, const tail_run *run)
{
    const sinew_rig_report *rep = &run->report;
    const sinew_rig_plan *plan = &run->plan;
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
    printf("%u chain(s), %u vertices re-weighted; %s\n", plan->chain_count, plan->changed_count,
           run->baked ? "tail motion baked into every clip:" : "clips copied unchanged");
    if (run->baked) bake_cli_print(run->result, run->bakes);
}

sinew_result tail_cli_run(sinew_document *doc, const sinew_model *model,
                          const sinew_rig_options *options, int bake,
                          const sinew_bake_options *bake_options, tail_run *run, sinew_error *err)
{
    memset(run, 0, sizeof *run);
    sinew_result r = sinew_rig_find_appendages(model, options, &run->report, err);
    if (r == SINEW_OK) r = sinew_rig_build_chain(model, options, &run->report, &run->plan, err);
    if (r == SINEW_OK) r = sinew_rig_apply_document(doc, model, &run->plan, err);
    if (r == SINEW_OK && (run->plan.chain_count || run->plan.changed_count)) {
        char note[160];
        snprintf(note, sizeof note, "%u chain(s) (%s%s), %u vertices re-weighted, mode %s",
                 run->plan.chain_count,
                 run->plan.chain_count ? run->plan.chains[0].bones[0].name : "-",
                 run->plan.chain_count ? "..Tail_End" : "", run->plan.changed_count,
                 options && options->mode == SINEW_RIG_MODE_RIGID ? "rigid" : "chain");
        r = sinew_document_set_note(doc, "tail", note, err);
    }
    /* The model is rebuilt from the edited document, so the new joints carry their document
     * node indices and the bake writes into exactly what will be saved. */
    if (r == SINEW_OK) r = sinew_model_from_document(doc, NULL, &run->result, err);
    if (r != SINEW_OK || !bake || run->plan.chain_count == 0) return r;
    run->bakes = calloc(run->result->clip_count + 1, sizeof *run->bakes);
    if (!run->bakes) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
    r = sinew_bake_all(doc, run->result, bake_options, run->bakes, err);
    run->baked = r == SINEW_OK;
    return r;
}

void tail_run_free(tail_run *run)
{
    sinew_rig_plan_free(&run->plan);
    sinew_rig_report_free(&run->report);
    sinew_model_free(run->result);
    free(run->bakes);
    memset(run, 0, sizeof *run);
}

/* An independent copy of a document, through its GLB bytes. */
static sinew_result copy_document(const sinew_document *doc, sinew_document **out, sinew_error *err)
{
    void *bytes = NULL;
    size_t size = 0;
    sinew_result r = sinew_document_write_glb_memory(doc, &bytes, &size, err);
    if (r == SINEW_OK) r = sinew_document_load_memory(bytes, size, NULL, out, err);
    free(bytes);
    return r;
}

sinew_result tail_cli_run_copy(const sinew_document *doc, const sinew_model *model,
                               sinew_rig_mode mode, sinew_document **copy, tail_run *run,
                               sinew_error *err)
{
    sinew_rig_options options;
    memset(&options, 0, sizeof options);
    options.mode = mode;
    memset(run, 0, sizeof *run);
    *copy = NULL;
    sinew_result r = copy_document(doc, copy, err);
    if (r == SINEW_OK) r = tail_cli_run(*copy, model, &options, 1, NULL, run, err);
    return r;
}

/* One version of the file for the comparison: the pipeline in `mode`, in memory. */
static sinew_result make_version(const sinew_document *doc, const sinew_model *model,
                                 sinew_rig_mode mode, tail_run *run, sinew_error *err)
{
    sinew_document *copy = NULL;
    sinew_result r = tail_cli_run_copy(doc, model, mode, &copy, run, err);
    sinew_document_free(copy);
    return r;
}

static void print_stretch_row(const char *label, const sinew_stretch_stats *s)
{
    printf("  %-22s %9llu %6.2f %6.2f %6.2f %7.1f%%\n", label, (unsigned long long)s->samples,
           (double)s->p95, (double)s->p99, (double)s->max, 100.0 * (double)s->torn_share);
}

sinew_result tail_cli_stretch_compare(const sinew_document *doc, const char *clip_name,
                                      uint32_t samples, sinew_error *err)
{
    sinew_model *model = NULL;
    tail_run chain, rigid;
    memset(&chain, 0, sizeof chain);
    memset(&rigid, 0, sizeof rigid);
    sinew_result r = sinew_model_from_document(doc, NULL, &model, err);
    if (r == SINEW_OK) r = make_version(doc, model, SINEW_RIG_MODE_CHAIN, &chain, err);
    if (r == SINEW_OK) r = make_version(doc, model, SINEW_RIG_MODE_RIGID, &rigid, err);
    if (r != SINEW_OK) goto done;
    if (chain.plan.chain_count == 0) {
        printf("no tail found: nothing to compare (every piece kept the rigger's weights)\n");
        goto done;
    }
    const sinew_model *versions[3] = {model, rigid.result, chain.result};
    static const char *labels[3] = {"original rig", "rigid on the pelvis", "tail chain (baked)"};
    sinew_stretch_options options = {samples};
    for (uint32_t c = 0; c < model->clip_count; c++) {
        if (clip_name && strcmp(model->clips[c].name, clip_name)) continue;
        sinew_stretch_stats tail[3], body;
        for (int v = 0; v < 3 && r == SINEW_OK; v++)
            r = sinew_metrics_stretch(versions[v], &versions[v]->clips[c], &options,
                                      chain.plan.changed, &tail[v], v == 0 ? &body : NULL, err);
        if (r != SINEW_OK) goto done;
        printf("clip %s, %u moments: tail edges (the %u vertices the chain re-weights)\n",
               model->clips[c].name, samples, chain.plan.changed_count);
        printf("  %-22s %9s %6s %6s %6s %8s\n", "", "samples", "p95", "p99", "max", "torn");
        for (int v = 0; v < 3; v++)
            print_stretch_row(labels[v], &tail[v]);
        print_stretch_row("body, as reference", &body);
    }
done:
    tail_run_free(&chain);
    tail_run_free(&rigid);
    sinew_model_free(model);
    return r;
}
