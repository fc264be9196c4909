/* sinew solve: re-solve an artist's clips onto another rig of the same creature by fitting
 * the skinned surface (after Sidorkin, "Solve the surface, not the skeleton"), with transfer
 * quality, a JSON report and a per-vertex error heatmap. */
/* realpath(3) is XSI; clock_gettime is POSIX. */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "outputs.h"
#include "safe_text.h"
#include "commands.h"
#include "sinew/document.h"
#include "sinew/solve.h"

#define CMD "solve"
#define WORST_LIST 5

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sinew solve --source A.glb --target B.glb -o OUT.glb [options]\n"
            "       sinew solve --source A.glb --control [-o OUT.glb] [options]\n\n"
            "Re-solves the source (artist) rig's clips onto the target rig of the same creature\n"
            "by fitting its skinned surface: per frame, each bone gets a weighted\n"
            "rigid fit (Horn's quaternion method) to what the other bones leave unexplained.\n"
            "The solved clips are written into the target as animations named like the source\n"
            "clips, as local translation/rotation tracks of the target's own joints.\n\n"
            "options:\n"
            "  --source A.glb      the rig whose clips are the reference surface motion\n"
            "  --target B.glb      the rig to solve for (the same creature; its place, units and\n"
            "                      facing may differ: see alignment below)\n"
            "  -o OUT.glb          the target with the solved clips added\n"
            "  --clips A,B|all     which source clips (default: all)\n"
            "  --rotation-only     keep joint translations at rest (bone lengths exact); the\n"
            "                      table also shows the free solve beside it\n"
            "  --control           solve the source rig against its own clips (no --target):\n"
            "                      a perfect answer exists, so Q must be ~100%% (with --keys\n"
            "                      all; reduced keys play within their tolerances); with -o its\n"
            "                      solved clips replace the source's (no --replace needed)\n"
            "  --replace           overwrite target animations that have a source clip's name\n"
            "  --max-vertices N    fit at most N evenly spread vertices (quality uses all)\n"
            "  --keys reduced|all  reduced (default): each written track keeps only the keys a\n"
            "                      player needs to play it within the tolerances below of the\n"
            "                      track keyed at every solved frame (first and last kept, so\n"
            "                      loops stay closed); all: a key at every solved frame\n"
            "  --key-translation F translation tolerance, fraction of the diagonal (default\n"
            "                      1e-4; scales: of the node's own scale)\n"
            "  --key-degrees D     rotation tolerance in degrees (default 0.01)\n"
            "  --report R.json     per clip and overall numbers, worst frames and vertices\n"
            "  --heatmap H.glb     the target with COLOR_0 = each vertex's worst error over the\n"
            "                      clips: blue 0, red at 3%% of the diagonal or more\n"
            "  --no-align          never align: refuse meshes that do not overlap as "
            "placed\n" CLI_MESHOPT_HELP "\n"
            "Alignment: the meshes are first compared as they are (the same mesh, or a mean\n"
            "nearest distance of at most 2%% of the target's diagonal). When they do not\n"
            "overlap, sinew finds the similarity x_target = s R x_source + t (scale, rotation,\n"
            "translation) laying the source's rest mesh onto the target's: starts turned 0, 90,\n"
            "180 and 270 degrees about +Y, refined by trimmed ICP with scale. If the aligned\n"
            "meshes overlap, the source's motion is carried into the target's units and place,\n"
            "and a line before the clip rows gives the scale, yaw (degrees), translation\n"
            "(target units) and the aligned mean nearest distance (%% of the diagonal);\n"
            "otherwise the run is refused, naming both distances. --report adds an\n"
            "\"alignment\" object.\n\n"
            "Transfer quality Q = 1 - sum|x_solved - x_target| / sum|x_target - x_bind| over\n"
            "all samples and vertices: the share of the surface's motion the rig reproduces.\n"
            "Q, mean and max are as a glTF player shows the written clip (its keys, linearly\n"
            "interpolated), sampled at every key time and midway between keys; \"Q frames\" is\n"
            "Q of the solve at its own frames only. Q, mean and max measure the clip as\n"
            "written, after the key reduction; \"keys\" is the keys written over all tracks\n"
            "and \"of\" the keys one per solved frame would take.\n"
            "Errors are percentages of the target mesh's bind-space box diagonal.\n\n"
            "exit codes: 0 ok, 1 bad input file (or meshes that do not overlap), 2 bad usage,\n"
            "3 internal error or an output could not be written\n");
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct clip_run {
    const sinew_clip *clip;
    sinew_solve_clip_result res;     /* the written solve */
    sinew_solve_clip_result free;    /* --rotation-only: the free solve beside it */
    sinew_solve_quality played;      /* res as a player shows the written clip */
    sinew_solve_quality played_free; /* free, the same way */
    float *vertex_error; /* res->vertex_count: each vertex's worst error as played, model units */
    int has_free;
    double seconds;
} clip_run;

/* Q, mean and max as played; Q at the solve's frames beside them. */
static void print_row(const char *name, const char *mode, const sinew_solve_clip_result *r,
                      const sinew_solve_quality *played, double seconds)
{
    printf("%s %-8s %6u %8.1f %9.3f%% %11.4f %11.4f %9.3f%% %8llu %8llu %9.1f\n",
           safe_text_pad(name, 20).s, mode, r->frame_count, r->sweeps_per_frame, 100.0 * played->q,
           100.0 * played->mean_error, 100.0 * played->max_error, 100.0 * r->quality.q,
           (unsigned long long)r->keys.written, (unsigned long long)r->keys.frame_keys,
           seconds * 1e3);
}

/* The `count` largest entries of values[n] (indices, descending). */
static uint32_t top_indices(const float *values, uint32_t n, uint32_t *out, uint32_t count)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pos = k < count ? k++ : count;
        if (pos == count) {
            if (!(values[i] > values[out[count - 1]])) continue;
            pos = count - 1;
        }
        while (pos > 0 && values[i] > values[out[pos - 1]]) {
            out[pos] = out[pos - 1];
            pos--;
        }
        out[pos] = i;
    }
    return k;
}

static cJSON *json_quality(const sinew_solve_quality *q)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "q", q->q);
    cJSON_AddNumberToObject(o, "mean_error_pct", 100.0 * q->mean_error);
    cJSON_AddNumberToObject(o, "max_error_pct", 100.0 * q->max_error);
    cJSON_AddNumberToObject(o, "moved_sum", q->moved);
    cJSON_AddNumberToObject(o, "error_sum", q->error);
    cJSON_AddNumberToObject(o, "samples", (double)q->samples);
    return o;
}

/* `played` is r as a player shows it, with each vertex's worst error as played
 * (`vertex_error`, NULL: r's own at its frames). */
static cJSON *json_clip(const sinew_solve_clip_result *r, const sinew_solve_quality *played,
                        const float *vertex_error, double seconds)
{
    uint32_t idx[WORST_LIST];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "frames", r->frame_count);
    cJSON_AddNumberToObject(o, "sweeps_per_frame", r->sweeps_per_frame);
    cJSON_AddNumberToObject(o, "max_sweeps", r->max_sweeps);
    cJSON *keys = cJSON_AddObjectToObject(o, "keys");
    cJSON_AddBoolToObject(keys, "all", r->keys.all);
    cJSON_AddNumberToObject(keys, "translation_tolerance", r->keys.translation);
    cJSON_AddNumberToObject(keys, "rotation_tolerance_degrees",
                            r->keys.rotation * 180.0 / SINEW_PI);
    cJSON_AddNumberToObject(keys, "written", (double)r->keys.written);
    cJSON_AddNumberToObject(keys, "one_per_frame", (double)r->keys.frame_keys);
    cJSON_AddItemToObject(o, "quality", json_quality(played));
    cJSON_AddItemToObject(o, "quality_at_frames", json_quality(&r->quality));
    cJSON *worst = cJSON_AddObjectToObject(o, "worst");
    cJSON_AddNumberToObject(worst, "time", played->worst_time);
    cJSON_AddNumberToObject(worst, "vertex", played->worst_vertex);
    cJSON *frames = cJSON_AddArrayToObject(o, "worst_frames");
    uint32_t n = top_indices(r->frame_error, r->frame_count, idx, WORST_LIST);
    for (uint32_t i = 0; i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "frame", idx[i]);
        cJSON_AddNumberToObject(e, "time", r->times[idx[i]]);
        cJSON_AddNumberToObject(e, "mean_error_pct", 100.0 * r->frame_error[idx[i]] / r->diagonal);
        cJSON_AddItemToArray(frames, e);
    }
    cJSON *vertices = cJSON_AddArrayToObject(o, "worst_vertices");
    if (!vertex_error) vertex_error = r->vertex_error;
    n = top_indices(vertex_error, r->vertex_count, idx, WORST_LIST);
    for (uint32_t i = 0; i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "vertex", idx[i]);
        cJSON_AddNumberToObject(e, "max_error_pct", 100.0 * vertex_error[idx[i]] / r->diagonal);
        cJSON_AddItemToArray(vertices, e);
    }
    cJSON_AddNumberToObject(o, "reskin_mismatch_pct", 100.0 * r->reskin_mismatch / r->diagonal);
    cJSON_AddNumberToObject(o, "seconds", seconds);
    return o;
}

/* The report as JSON text (malloc'ed), or NULL when out of memory. */
static char *report_text(const char *source, const char *target, int control, int rotation_only,
                         int no_align, const sinew_correspondence_stats *cs, const clip_run *runs,
                         uint32_t nruns, const sinew_solve_quality *all,
                         const sinew_solve_quality *all_free)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "source", source);
    cJSON_AddStringToObject(root, "target", target);
    cJSON_AddBoolToObject(root, "control", control);
    cJSON_AddStringToObject(root, "mode", rotation_only ? "rotation-only" : "free");
    cJSON_AddStringToObject(root, "q_definition",
                            "1 - sum |x_solved - x_target| / sum |x_target - x_bind| over all "
                            "samples and target vertices; errors in % of the target's bind-space "
                            "diagonal. quality: as a glTF player shows the written clip, sampled "
                            "at every key time of the source and solved clips and midway between "
                            "them; quality_at_frames: the solve at its own frames");
    cJSON_AddNumberToObject(root, "diagonal", runs && nruns ? runs[0].res.diagonal : 0.0);
    cJSON *corr = cJSON_AddObjectToObject(root, "correspondence");
    cJSON_AddBoolToObject(corr, "identity", cs->identity);
    cJSON_AddNumberToObject(corr, "mean_distance_pct",
                            cs->diagonal > 0 ? 100.0 * cs->mean_distance / cs->diagonal : 0.0);
    cJSON_AddNumberToObject(corr, "max_distance_pct",
                            cs->diagonal > 0 ? 100.0 * cs->max_distance / cs->diagonal : 0.0);
    cJSON *al = cJSON_AddObjectToObject(root, "alignment");
    cJSON_AddBoolToObject(al, "used", cs->aligned);
    cJSON_AddBoolToObject(al, "disabled", no_align);
    if (cs->aligned) {
        const sinew_solve_alignment *a = &cs->alignment;
        const double d = cs->diagonal > 0 ? cs->diagonal : 1.0;
        cJSON_AddStringToObject(al, "definition",
                                "x_target = scale * R(rotation) x_source + translation, bind "
                                "space; rotation is a quaternion x, y, z, w");
        cJSON_AddNumberToObject(al, "scale", a->scale);
        cJSON_AddNumberToObject(al, "yaw_degrees", a->yaw * 180.0 / SINEW_PI);
        cJSON_AddNumberToObject(al, "tilt_degrees", a->tilt * 180.0 / SINEW_PI);
        const double q[4] = {a->rotation.x, a->rotation.y, a->rotation.z, a->rotation.w};
        const double t[3] = {a->translation.x, a->translation.y, a->translation.z};
        cJSON_AddItemToObject(al, "rotation", cJSON_CreateDoubleArray(q, 4));
        cJSON_AddItemToObject(al, "translation", cJSON_CreateDoubleArray(t, 3));
        cJSON_AddNumberToObject(al, "aligned_mean_distance_pct", 100.0 * cs->mean_distance / d);
        cJSON_AddNumberToObject(al, "aligned_max_distance_pct", 100.0 * cs->max_distance / d);
        cJSON_AddNumberToObject(al, "placed_mean_distance_pct",
                                100.0 * cs->placed_mean_distance / d);
        cJSON_AddBoolToObject(al, "placed_mean_is_lower_bound", cs->placed_partial);
        cJSON_AddNumberToObject(al, "icp_trimmed_mean_pct", 100.0 * a->trimmed_mean / d);
        cJSON_AddNumberToObject(al, "icp_iterations", a->iterations);
        cJSON_AddNumberToObject(al, "icp_points", a->points);
        cJSON_AddNumberToObject(al, "icp_start", a->start);
    }
    cJSON *clips = cJSON_AddArrayToObject(root, "clips");
    for (uint32_t i = 0; i < nruns; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", runs[i].clip->name);
        cJSON_AddItemToObject(
            o, "solve",
            json_clip(&runs[i].res, &runs[i].played, runs[i].vertex_error, runs[i].seconds));
        if (runs[i].has_free)
            cJSON_AddItemToObject(o, "free_solve",
                                  json_clip(&runs[i].free, &runs[i].played_free, NULL, 0));
        cJSON_AddItemToArray(clips, o);
    }
    cJSON_AddItemToObject(root, "overall", json_quality(all));
    if (rotation_only) cJSON_AddItemToObject(root, "overall_free", json_quality(all_free));
    char *text = cli_json_text(root, CLI_JSON_TABLE);
    cJSON_Delete(root);
    return text;
}

int cmd_solve(int argc, char **argv)
{
    const char *source_path = NULL, *target_path = NULL, *out_path = NULL, *clips_arg = NULL,
               *report_path = NULL, *heatmap_path = NULL;
    int rotation_only = 0, control = 0, replace = 0, no_align = 0, all_keys = 0, keys_given = 0;
    unsigned long max_vertices = 0;
    float key_translation = 0, key_degrees = 0;
    sinew_write_options wopt = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_parse_write_option(a, &wopt)) continue;
        if (cli_is_help(a)) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        const char **value = NULL;
        if (!strcmp(a, "--source"))
            value = &source_path;
        else if (!strcmp(a, "--target"))
            value = &target_path;
        else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
            value = &out_path;
        else if (!strcmp(a, "--clips"))
            value = &clips_arg;
        else if (!strcmp(a, "--report"))
            value = &report_path;
        else if (!strcmp(a, "--heatmap"))
            value = &heatmap_path;
        if (value) {
            if (*value) return cli_usage_error(CMD, "option %s given twice", a);
            if (!(*value = cli_option_value(CMD, argc, argv, &i))) return CLI_EXIT_USAGE;
            if (!**value) return cli_usage_error(CMD, "option %s needs a non-empty value", a);
            continue;
        }
        if (!strcmp(a, "--rotation-only"))
            rotation_only = 1;
        else if (!strcmp(a, "--control"))
            control = 1;
        else if (!strcmp(a, "--replace"))
            replace = 1;
        else if (!strcmp(a, "--no-align"))
            no_align = 1;
        else if (!strcmp(a, "--keys")) {
            const char *v = cli_option_value(CMD, argc, argv, &i);
            if (!v) return CLI_EXIT_USAGE;
            if (keys_given++) return cli_usage_error(CMD, "option --keys given twice");
            if (!strcmp(v, "all"))
                all_keys = 1;
            else if (strcmp(v, "reduced"))
                return cli_usage_error(CMD, "--keys is 'reduced' or 'all', not '%s'", v);
        } else if (!strcmp(a, "--key-translation") || !strcmp(a, "--key-degrees")) {
            const int deg = !strcmp(a, "--key-degrees");
            const char *v = cli_option_value(CMD, argc, argv, &i);
            if (!v) return CLI_EXIT_USAGE;
            float *dst = deg ? &key_degrees : &key_translation;
            /* Up to a tenth of the diagonal or 45 degrees: beyond that nothing of the motion
             * is left to keep. */
            if (*dst > 0) return cli_usage_error(CMD, "option %s given twice", a);
            if (!cli_parse_float(v, 0, deg ? 45.0f : 0.1f, dst) || !(*dst > 0))
                return cli_usage_error(CMD, "%s needs a number above 0 and at most %s, not '%s'", a,
                                       deg ? "45" : "0.1", v);
        } else if (!strcmp(a, "--max-vertices")) {
            const char *v = cli_option_value(CMD, argc, argv, &i);
            if (!v) return CLI_EXIT_USAGE;
            if (!cli_parse_uint(v, 3, UINT32_MAX, &max_vertices))
                return cli_usage_error(CMD, "--max-vertices needs a whole number >= 3, not '%s'",
                                       v);
        } else if (a[0] == '-')
            return cli_usage_error(CMD, "unknown option '%s'", a);
        else
            return cli_usage_error(CMD, "unexpected argument '%s'", a);
    }
    if (!source_path) return cli_usage_error(CMD, "--source is required");
    if (control && target_path)
        return cli_usage_error(CMD, "--control solves the source against itself: drop --target");
    if (!control && !target_path)
        return cli_usage_error(CMD, "--target is required (or --control)");
    if (!control && !out_path) return cli_usage_error(CMD, "-o OUT.glb is required");
    if (all_keys && (key_translation > 0 || key_degrees > 0))
        return cli_usage_error(CMD, "--keys all keeps every frame: drop --key-translation and "
                                    "--key-degrees");
    const char *rig_path = control ? source_path : target_path;
    cli_output outs[3] = {{.option = "-o", .path = out_path, .format = CLI_FORMAT_GLTF},
                          {.option = "--heatmap", .path = heatmap_path, .format = CLI_FORMAT_GLTF},
                          {.option = "--report", .path = report_path, .format = CLI_FORMAT_ANY}};
    sinew_error err = {0};
    int code = CLI_EXIT_OK;
    sinew_document *src_doc = NULL, *rig_doc = NULL;
    sinew_model *src = NULL, *rig = NULL;
    uint32_t *nearest = NULL;
    clip_run *runs = NULL;
    uint32_t nruns = 0;
    const sinew_clip **chosen = NULL;
    char *clips_buf = NULL;
    sinew_correspondence_stats cs;
    memset(&cs, 0, sizeof cs);

    if (sinew_document_load_file(source_path, NULL, &src_doc, &err) ||
        sinew_model_from_document(src_doc, NULL, &src, &err)) {
        code = cli_report(CMD, &err);
        goto done;
    }
    if (control) {
        rig = src;
        rig_doc = src_doc;
    } else if (sinew_document_load_file(target_path, NULL, &rig_doc, &err) ||
               sinew_model_from_document(rig_doc, NULL, &rig, &err)) {
        code = cli_report(CMD, &err);
        goto done;
    }
    const sinew_document *inputs[2] = {src_doc, rig_doc};
    if ((code = cli_outputs_check(CMD, outs, 3, inputs, 2, NULL, 0)) != CLI_EXIT_OK) goto done;
    if (src->clip_count == 0) {
        cli_error(CMD, "%s has no animations to solve", source_path);
        code = CLI_EXIT_BAD_INPUT;
        goto done;
    }

    /* Which clips: all, or a comma-separated list (each must exist, each once). */
    chosen = malloc(src->clip_count * sizeof *chosen);
    clips_buf = clips_arg ? strdup(clips_arg) : NULL;
    if (!chosen || (clips_arg && !clips_buf)) {
        fprintf(stderr, "sinew %s: out of memory\n", CMD);
        code = CLI_EXIT_INTERNAL;
        goto done;
    }
    uint32_t nchosen = 0;
    if (!clips_arg || !strcmp(clips_arg, "all")) {
        for (uint32_t c = 0; c < src->clip_count; c++)
            chosen[nchosen++] = &src->clips[c];
    } else {
        for (char *save = NULL, *tok = strtok_r(clips_buf, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            int32_t c = sinew_model_find_clip(src, tok);
            if (c < 0) {
                char names[1024] = "";
                size_t len = 0;
                for (uint32_t k = 0; k < src->clip_count && len < sizeof names; k++)
                    len += (size_t)snprintf(names + len, sizeof names - len, "%s \"%s\"",
                                            k ? "," : "", src->clips[k].name);
                cli_error(CMD, "%s has no clip named \"%s\"; it has:%s", source_path, tok, names);
                code = CLI_EXIT_BAD_INPUT;
                goto done;
            }
            int dup = 0;
            for (uint32_t k = 0; k < nchosen; k++)
                dup |= chosen[k] == &src->clips[c];
            if (!dup) chosen[nchosen++] = &src->clips[c];
        }
        if (nchosen == 0) {
            code = cli_usage_error(CMD, "--clips names no clip");
            goto done;
        }
    }
    if (!control) {
        nearest = malloc((size_t)rig->mesh.vertex_count * sizeof *nearest + 1);
        if (!nearest) {
            cli_error(CMD, "out of memory");
            code = CLI_EXIT_INTERNAL;
            goto done;
        }
        sinew_solve_align_options align_opt = {0};
        align_opt.disable = no_align;
        if (sinew_solve_correspond_aligned(src, rig, &align_opt, NULL, nearest, &cs, &err)) {
            code = cli_report(CMD, &err);
            if (no_align && err.code == SINEW_ERR_INVALID_VALUE)
                cli_error(CMD, "without --no-align sinew looks for the scale, turn and offset "
                               "that lay the source onto the target");
            goto done;
        }
    } else {
        cs.identity = 1;
        cs.diagonal = rig->size.diagonal;
    }

    /* A control run's clips are the source's own, solved: they replace them by design. */
    if (control) replace = 1;
    /* Refuse a clip too long to solve before solving any (the same plan sinew_solve_clip
     * makes). */
    for (uint32_t c = 0; c < nchosen; c++) {
        sinew_solve_frame_plan plan;
        if (sinew_solve_plan_frames(chosen[c], 0.0f, 0, &plan, &err)) {
            code = cli_report(CMD, &err);
            goto done;
        }
    }
    /* Refuse name clashes before any work, so nothing is half written. */
    if (out_path && !replace)
        for (uint32_t c = 0; c < nchosen; c++)
            for (uint32_t a = 0; a < sinew_document_animation_count(rig_doc); a++)
                if (!strcmp(sinew_document_animation_name(rig_doc, a), chosen[c]->name)) {
                    code = cli_usage_error(CMD,
                                           "%s already has an animation \"%s\": use --replace to "
                                           "overwrite it",
                                           rig_path, chosen[c]->name);
                    goto done;
                }

    sinew_solve_options opt = {0};
    opt.rotation_only = rotation_only;
    opt.max_vertices = (uint32_t)max_vertices;
    opt.alignment = cs.aligned ? &cs.alignment : NULL;
    opt.all_keys = all_keys;
    opt.key_translation = key_translation;
    opt.key_degrees = key_degrees;
    sinew_solve_options free_opt = opt;
    free_opt.rotation_only = 0;
    runs = calloc(nchosen, sizeof *runs);
    if (!runs) {
        code = CLI_EXIT_INTERNAL;
        goto done;
    }
    printf("%s%s onto %s: %u vertices (%u fitted), %u joints, diagonal %.4g; correspondence %s\n",
           control ? "control: " : "", safe_text(source_path).s, safe_text(rig_path).s,
           rig->mesh.vertex_count,
           max_vertices && max_vertices < rig->mesh.vertex_count ? (unsigned)max_vertices
                                                                 : rig->mesh.vertex_count,
           rig->skin.joint_count, (double)rig->size.diagonal,
           cs.identity  ? "identity"
           : cs.aligned ? "nearest vertex after alignment"
                        : "nearest vertex");
    const double diag = cs.diagonal > 0 ? cs.diagonal : 1;
    if (cs.aligned)
        printf("alignment: scale %.6g, yaw %.2f degrees (tilt %.2f), translation (%.4g, %.4g, "
               "%.4g) target units; aligned mean nearest %.4f%% of the diagonal (max %.4f%%; "
               "as placed %s%.2f%%)\n",
               (double)cs.alignment.scale, cs.alignment.yaw * 180.0 / SINEW_PI,
               cs.alignment.tilt * 180.0 / SINEW_PI, (double)cs.alignment.translation.x,
               (double)cs.alignment.translation.y, (double)cs.alignment.translation.z,
               100.0 * cs.mean_distance / diag, 100.0 * cs.max_distance / diag,
               cs.placed_partial ? "at least " : "", 100.0 * cs.placed_mean_distance / diag);
    else if (!cs.identity)
        printf("correspondence: mean nearest %.4f%%, max %.4f%% of the diagonal\n",
               100.0 * cs.mean_distance / diag, 100.0 * cs.max_distance / diag);
    printf("%-20s %-8s %6s %8s %10s %11s %11s %10s %8s %8s %9s\n", "clip", "solve", "frames",
           "sweeps/f", "Q", "mean %diag", "max %diag", "Q frames", "keys", "of", "time ms");
    sinew_solve_quality all, all_free;
    memset(&all, 0, sizeof all);
    memset(&all_free, 0, sizeof all_free);
    for (uint32_t c = 0; c < nchosen; c++) {
        clip_run *run = &runs[nruns];
        run->clip = chosen[c];
        double t0 = now_seconds();
        if (sinew_solve_clip(src, chosen[c], rig, nearest, &opt, &run->res, &err)) {
            code = cli_report(CMD, &err);
            goto done;
        }
        run->seconds = now_seconds() - t0;
        nruns++;
        if (run->res.plan.resampled)
            printf("%s: more than %u key times: resampled at %g per second (%u frames)\n",
                   safe_text(chosen[c]->name).s, run->res.plan.key_times - 1,
                   (double)run->res.plan.rate, run->res.frame_count);
        run->vertex_error = malloc((size_t)rig->mesh.vertex_count * sizeof(float) + 1);
        if (!run->vertex_error) {
            cli_error(CMD, "out of memory");
            code = CLI_EXIT_INTERNAL;
            goto done;
        }
        if (sinew_solve_quality_written(src, chosen[c], rig, nearest, &opt, &run->res, &run->played,
                                        run->vertex_error, &err)) {
            code = cli_report(CMD, &err);
            goto done;
        }
        print_row(chosen[c]->name, rotation_only ? "rot-only" : "free", &run->res, &run->played,
                  run->seconds);
        sinew_solve_quality_merge(&all, &run->played);
        if (rotation_only) {
            t0 = now_seconds();
            if (sinew_solve_clip(src, chosen[c], rig, nearest, &free_opt, &run->free, &err) ||
                sinew_solve_quality_written(src, chosen[c], rig, nearest, &free_opt, &run->free,
                                            &run->played_free, NULL, &err)) {
                code = cli_report(CMD, &err);
                goto done;
            }
            run->has_free = 1;
            print_row("", "free", &run->free, &run->played_free, now_seconds() - t0);
            sinew_solve_quality_merge(&all_free, &run->played_free);
        }
    }
    printf("overall: Q %.3f%%, mean %.4f%%, max %.4f%% of the diagonal", 100.0 * all.q,
           100.0 * all.mean_error, 100.0 * all.max_error);
    if (rotation_only) printf(" (free solve: Q %.3f%%)", 100.0 * all_free.q);
    printf("\n");
    for (uint32_t c = 0; c < nruns; c++) {
        const sinew_solve_quality *p = &runs[c].played;
        printf("worst in %s: %.4f%% of the diagonal at t = %.3f s, vertex %u\n",
               safe_text(runs[c].clip->name).s, 100.0 * p->max_error, (double)p->worst_time,
               p->worst_vertex);
    }

    /* Outputs: the target with the clips, the heatmap, the report; written together or not at
     * all. */
    if (out_path) {
        for (uint32_t c = 0; c < nruns; c++)
            if (sinew_solve_write_clip(rig_doc, rig, &runs[c].res, runs[c].clip->name, replace,
                                       &err)) {
                code = cli_report(CMD, &err);
                goto done;
            }
        char note[160];
        snprintf(note, sizeof note, "%u clip(s) solved from the skinned surface (%s), Q %.2f%%",
                 nruns, rotation_only ? "rotation-only" : "free", 100.0 * all.q);
        sinew_document_set_note(rig_doc, "solve", note, NULL);
        if (sinew_document_serialize_with(rig_doc, out_path, &wopt, &outs[0].bytes, &err)) {
            code = cli_report(CMD, &err);
            goto done;
        }
    }
    if (heatmap_path) {
        sinew_document *heat = NULL;
        if (sinew_document_load_file(rig_path, NULL, &heat, &err)) {
            code = cli_report(CMD, &err);
            goto done;
        }
        const uint32_t V = rig->mesh.vertex_count;
        float *rgba = malloc((size_t)V * 4 * sizeof(float) + 1);
        int ok = rgba != NULL;
        for (uint32_t v = 0; ok && v < V; v++) {
            float worst = 0;
            for (uint32_t c = 0; c < nruns; c++)
                if (runs[c].vertex_error[v] > worst) worst = runs[c].vertex_error[v];
            sinew_solve_heat_color(worst / (float)runs[0].res.diagonal, &rgba[(size_t)v * 4]);
        }
        for (uint32_t r = 0; ok && r < rig->mesh.range_count; r++) {
            const sinew_primitive_range *pr = &rig->mesh.ranges[r];
            if (sinew_document_set_colors(heat, pr->gltf_mesh, pr->gltf_primitive, pr->vertex_count,
                                          &rgba[(size_t)pr->first_vertex * 4], &err))
                ok = 0;
        }
        if (ok)
            sinew_document_set_note(
                heat, "solve_heatmap",
                "COLOR_0 = worst solve error: blue 0, red >= 3% of the diagonal", NULL);
        if (ok && sinew_document_serialize_with(heat, heatmap_path, &wopt, &outs[1].bytes, &err))
            ok = 0;
        free(rgba);
        sinew_document_free(heat);
        if (!ok) {
            code = err.message[0] ? cli_report(CMD, &err) : CLI_EXIT_INTERNAL;
            goto done;
        }
    }
    if (report_path) {
        outs[2].bytes.data = report_text(source_path, rig_path, control, rotation_only, no_align,
                                         &cs, runs, nruns, &all, &all_free);
        if (!outs[2].bytes.data) {
            cli_error(CMD, "out of memory writing the report");
            code = CLI_EXIT_INTERNAL;
            goto done;
        }
        outs[2].bytes.size = strlen(outs[2].bytes.data);
    }
    if ((code = cli_outputs_write(CMD, outs, 3)) != CLI_EXIT_OK) goto done;

done:
    cli_outputs_free(outs, 3);
    if (runs)
        for (uint32_t c = 0; c < nruns; c++) {
            sinew_solve_clip_result_free(&runs[c].res);
            sinew_solve_clip_result_free(&runs[c].free);
            free(runs[c].vertex_error);
        }
    free(runs);
    free(chosen);
    free(clips_buf);
    free(nearest);
    if (rig != src) sinew_model_free(rig);
    sinew_model_free(src);
    if (rig_doc != src_doc) sinew_document_free(rig_doc);
    sinew_document_free(src_doc);
    return code;
}
