/* sinew solve: re-solve an artist's clips onto another rig of the same creature by fitting
 * the skinned surface (after Sidorkin, "Solve the surface, not the skeleton"), with transfer
 * quality, a JSON report and a per-vertex error heatmap. */
/* clock_gettime is POSIX. */
#define _XOPEN_SOURCE 700
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
            "                      (R.json = -: to standard output, after the table)\n"
            "  --json              print that report instead of the table, once the outputs are\n"
            "                      written, with each output's path and bytes (\"written\"); the\n"
            "                      clips' fields are as in the table: quality (Q, mean, max as\n"
            "                      played), quality_at_frames (Q frames), keys (written, of:\n"
            "                      one_per_frame), frames, sweeps_per_frame, seconds; with --json\n"
            "                      no output may be -\n"
            "  --heatmap H.glb     the target with COLOR_0 = each vertex's worst error over the\n"
            "                      clips: blue 0, red at 3%% of the diagonal or more\n"
            "  --no-align          never align: refuse meshes that do not overlap as "
            "placed\n" CLI_MESHOPT_HELP "\n");
    /* Two strings: C11 promises string literals of 4095 characters only. */
    fprintf(out,
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
    double seconds, seconds_free; /* the solve's and the free solve's, measured here */
} clip_run;

/* What the command line asks for. */
typedef struct solve_args {
    const char *source_path, *target_path, *out_path, *clips_arg, *report_path, *heatmap_path;
    int rotation_only, control, replace, no_align, all_keys, keys_given, json, help;
    unsigned long max_vertices;
    float key_translation, key_degrees;
    sinew_write_options wopt;
} solve_args;

/* One run of the command: its inputs, the clips chosen, the correspondence, the solved clips
 * with their totals, and the outputs staged for writing. */
typedef struct solve_job {
    const char *rig_path; /* the target, or the source in a control run */
    sinew_document *src_doc, *rig_doc;
    sinew_model *src, *rig;
    const sinew_clip **chosen;
    uint32_t nchosen;
    char *clips_buf;
    uint32_t *nearest; /* NULL in a control run */
    sinew_correspondence_stats cs;
    sinew_solve_options opt, free_opt;
    clip_run *runs;
    uint32_t nruns;
    sinew_solve_quality all, all_free;
    cli_output outs[3]; /* -o, --heatmap, --report */
    sinew_error err;
} solve_job;

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
    /* a clip of more key times than a solve takes is solved at its own key rate instead */
    cJSON_AddBoolToObject(o, "resampled", r->plan.resampled);
    if (r->plan.resampled) cJSON_AddNumberToObject(o, "resample_rate", r->plan.rate);
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

/* The report: per clip and overall numbers, worst frames and vertices, and what the table's
 * first lines say of the inputs (NULL when out of memory). --report writes it, --json prints
 * it with the outputs added. */
static cJSON *report_json(const solve_args *args, const solve_job *job)
{
    const sinew_correspondence_stats *cs = &job->cs;
    const clip_run *runs = job->runs;
    const uint32_t nruns = job->nruns;
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON_AddStringToObject(root, "source", args->source_path);
    cJSON_AddStringToObject(root, "target", job->rig_path);
    cJSON_AddBoolToObject(root, "control", args->control);
    cJSON_AddStringToObject(root, "mode", args->rotation_only ? "rotation-only" : "free");
    cJSON_AddStringToObject(root, "q_definition",
                            "1 - sum |x_solved - x_target| / sum |x_target - x_bind| over all "
                            "samples and target vertices; errors in % of the target's bind-space "
                            "diagonal. quality: as a glTF player shows the written clip, sampled "
                            "at every key time of the source and solved clips and midway between "
                            "them; quality_at_frames: the solve at its own frames");
    cJSON_AddNumberToObject(root, "diagonal", runs && nruns ? runs[0].res.diagonal : 0.0);
    cJSON_AddNumberToObject(root, "vertices", job->rig->mesh.vertex_count);
    cJSON_AddNumberToObject(root, "fitted_vertices",
                            sinew_solve_fitted_vertices(job->rig, &job->opt));
    cJSON_AddNumberToObject(root, "joints", job->rig->skin.joint_count);
    cJSON *corr = cJSON_AddObjectToObject(root, "correspondence");
    cJSON_AddBoolToObject(corr, "identity", cs->identity);
    cJSON_AddNumberToObject(corr, "mean_distance_pct",
                            cs->diagonal > 0 ? 100.0 * cs->mean_distance / cs->diagonal : 0.0);
    cJSON_AddNumberToObject(corr, "max_distance_pct",
                            cs->diagonal > 0 ? 100.0 * cs->max_distance / cs->diagonal : 0.0);
    cJSON *al = cJSON_AddObjectToObject(root, "alignment");
    cJSON_AddBoolToObject(al, "used", cs->aligned);
    cJSON_AddBoolToObject(al, "disabled", args->no_align);
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
            cJSON_AddItemToObject(
                o, "free_solve",
                json_clip(&runs[i].free, &runs[i].played_free, NULL, runs[i].seconds_free));
        cJSON_AddItemToArray(clips, o);
    }
    cJSON_AddItemToObject(root, "overall", json_quality(&job->all));
    if (args->rotation_only)
        cJSON_AddItemToObject(root, "overall_free", json_quality(&job->all_free));
    return root;
}

/* The report as JSON text (malloc'ed), or NULL when out of memory. */
static char *report_text(const solve_args *args, const solve_job *job)
{
    cJSON *root = report_json(args, job);
    char *text = root ? cli_json_text(root, CLI_JSON_TABLE) : NULL;
    cJSON_Delete(root);
    return text;
}

/* The field that option `a` (one taking a path or a clip list) sets, or NULL when `a` is
 * none of them. */
static const char **value_option(solve_args *args, const char *a)
{
    if (!strcmp(a, "--source")) return &args->source_path;
    if (!strcmp(a, "--target")) return &args->target_path;
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) return &args->out_path;
    if (!strcmp(a, "--clips")) return &args->clips_arg;
    if (!strcmp(a, "--report")) return &args->report_path;
    if (!strcmp(a, "--heatmap")) return &args->heatmap_path;
    return NULL;
}

/* Parses the key and vertex options (a value each) at argv[*i]. Returns 1 when it took one
 * (advancing *i past its value), 0 when argv[*i] is not one, and -1 after a usage error. */
static int parse_tuning_option(int argc, char **argv, int *i, solve_args *args)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--keys")) {
        const char *v = cli_option_value(CMD, argc, argv, i);
        if (!v) return -1;
        if (args->keys_given++) return cli_usage_error(CMD, "option --keys given twice"), -1;
        if (!strcmp(v, "all"))
            args->all_keys = 1;
        else if (strcmp(v, "reduced"))
            return cli_usage_error(CMD, "--keys is 'reduced' or 'all', not '%s'", v), -1;
    } else if (!strcmp(a, "--key-translation") || !strcmp(a, "--key-degrees")) {
        const int deg = !strcmp(a, "--key-degrees");
        const char *v = cli_option_value(CMD, argc, argv, i);
        if (!v) return -1;
        float *dst = deg ? &args->key_degrees : &args->key_translation;
        /* Up to a tenth of the diagonal or 45 degrees: beyond that nothing of the motion
         * is left to keep. */
        if (*dst > 0) return cli_usage_error(CMD, "option %s given twice", a), -1;
        if (!cli_parse_float(v, 0, deg ? 45.0f : 0.1f, dst) || !(*dst > 0))
            return cli_usage_error(CMD, "%s needs a number above 0 and at most %s, not '%s'", a,
                                   deg ? "45" : "0.1", v),
                   -1;
    } else if (!strcmp(a, "--max-vertices")) {
        const char *v = cli_option_value(CMD, argc, argv, i);
        if (!v) return -1;
        if (!cli_parse_uint(v, 3, UINT32_MAX, &args->max_vertices))
            return cli_usage_error(CMD, "--max-vertices needs a whole number >= 3, not '%s'", v),
                   -1;
    } else {
        return 0;
    }
    return 1;
}

/* Step 1: the options into `args`. CLI_EXIT_OK to go on (or, with args->help, to stop after
 * printing the help), else the exit code after a usage error. */
static int parse_options(int argc, char **argv, solve_args *args)
{
    memset(args, 0, sizeof *args);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_parse_write_option(a, &args->wopt)) continue;
        if (cli_is_help(a)) {
            args->help = 1;
            return CLI_EXIT_OK;
        }
        const char **value = value_option(args, a);
        if (value) {
            if (*value) return cli_usage_error(CMD, "option %s given twice", a);
            if (!(*value = cli_option_value(CMD, argc, argv, &i))) return CLI_EXIT_USAGE;
            if (!**value) return cli_usage_error(CMD, "option %s needs a non-empty value", a);
            continue;
        }
        const int took = parse_tuning_option(argc, argv, &i, args);
        if (took < 0) return CLI_EXIT_USAGE;
        if (took) continue;
        if (!strcmp(a, "--rotation-only"))
            args->rotation_only = 1;
        else if (!strcmp(a, "--control"))
            args->control = 1;
        else if (!strcmp(a, "--replace"))
            args->replace = 1;
        else if (!strcmp(a, "--no-align"))
            args->no_align = 1;
        else if (!strcmp(a, "--json"))
            args->json = 1;
        else if (a[0] == '-')
            return cli_usage_error(CMD, "unknown option '%s'", a);
        else
            return cli_usage_error(CMD, "unexpected argument '%s'", a);
    }
    return CLI_EXIT_OK;
}

/* Step 2: the options that do not go together, or that are missing; the outputs named
 * (job->outs). */
static int check_options(const solve_args *args, solve_job *job)
{
    job->rig_path = args->control ? args->source_path : args->target_path;
    const cli_output outs[3] = {
        {.option = "-o", .path = args->out_path, .format = CLI_FORMAT_GLTF},
        {.option = "--heatmap", .path = args->heatmap_path, .format = CLI_FORMAT_GLTF},
        {.option = "--report", .path = args->report_path, .format = CLI_FORMAT_ANY}};
    memcpy(job->outs, outs, sizeof outs);
    if (!args->source_path) return cli_usage_error(CMD, "--source is required");
    if (args->control && args->target_path)
        return cli_usage_error(CMD, "--control solves the source against itself: drop --target");
    if (!args->control && !args->target_path)
        return cli_usage_error(CMD, "--target is required (or --control)");
    if (!args->control && !args->out_path) return cli_usage_error(CMD, "-o OUT.glb is required");
    if (args->all_keys && (args->key_translation > 0 || args->key_degrees > 0))
        return cli_usage_error(CMD, "--keys all keeps every frame: drop --key-translation and "
                                    "--key-degrees");
    if (args->json) return cli_outputs_check_json(CMD, job->outs, 3);
    return CLI_EXIT_OK;
}

/* Step 3: the source and the target (the source itself in a control run), and the outputs
 * checked against them. */
static int load_inputs(const solve_args *args, solve_job *job)
{
    if (sinew_document_load_file(args->source_path, NULL, &job->src_doc, &job->err) ||
        sinew_model_from_document(job->src_doc, NULL, &job->src, &job->err))
        return cli_report(CMD, &job->err);
    if (args->control) {
        job->rig = job->src;
        job->rig_doc = job->src_doc;
    } else if (sinew_document_load_file(args->target_path, NULL, &job->rig_doc, &job->err) ||
               sinew_model_from_document(job->rig_doc, NULL, &job->rig, &job->err)) {
        return cli_report(CMD, &job->err);
    }
    const sinew_document *inputs[2] = {job->src_doc, job->rig_doc};
    const int code = cli_outputs_check(CMD, job->outs, 3, inputs, 2, NULL, 0);
    if (code != CLI_EXIT_OK) return code;
    if (job->src->clip_count == 0) {
        cli_error(CMD, "%s has no animations to solve", args->source_path);
        return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}

/* Step 4: which clips: all, or a comma-separated list (each must exist, each once). */
static int choose_clips(const solve_args *args, solve_job *job)
{
    const sinew_model *src = job->src;
    job->chosen = malloc(src->clip_count * sizeof *job->chosen);
    job->clips_buf = args->clips_arg ? strdup(args->clips_arg) : NULL;
    if (!job->chosen || (args->clips_arg && !job->clips_buf)) {
        cli_error(CMD, "out of memory");
        return CLI_EXIT_INTERNAL;
    }
    if (!args->clips_arg || !strcmp(args->clips_arg, "all")) {
        for (uint32_t c = 0; c < src->clip_count; c++)
            job->chosen[job->nchosen++] = &src->clips[c];
        return CLI_EXIT_OK;
    }
    for (char *save = NULL, *tok = strtok_r(job->clips_buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int32_t c = sinew_model_find_clip(src, tok);
        if (c < 0) {
            sinew_error err = {0};
            cli_no_clip(&err, args->source_path, src, tok);
            return cli_report_file(CMD, args->source_path, &err);
        }
        int dup = 0;
        for (uint32_t k = 0; k < job->nchosen; k++)
            dup |= job->chosen[k] == &src->clips[c];
        if (!dup) job->chosen[job->nchosen++] = &src->clips[c];
    }
    if (job->nchosen == 0) return cli_usage_error(CMD, "--clips names no clip");
    return CLI_EXIT_OK;
}

/* Step 5: which source vertex each target vertex follows, aligning the meshes when they do
 * not overlap as placed (a control run: each vertex itself). */
static int correspond(const solve_args *args, solve_job *job)
{
    if (args->control) {
        job->cs.identity = 1;
        job->cs.diagonal = job->rig->size.diagonal;
        return CLI_EXIT_OK;
    }
    job->nearest = malloc((size_t)job->rig->mesh.vertex_count * sizeof *job->nearest + 1);
    if (!job->nearest) {
        cli_error(CMD, "out of memory");
        return CLI_EXIT_INTERNAL;
    }
    sinew_solve_align_options align_opt = {0};
    align_opt.disable = args->no_align;
    if (sinew_solve_correspond_aligned(job->src, job->rig, &align_opt, NULL, job->nearest, &job->cs,
                                       &job->err)) {
        const int code = cli_report(CMD, &job->err);
        if (args->no_align && job->err.code == SINEW_ERR_INVALID_VALUE)
            cli_error(CMD, "without --no-align sinew looks for the scale, turn and offset "
                           "that lay the source onto the target");
        return code;
    }
    return CLI_EXIT_OK;
}

/* Step 6: what would fail after work is done, refused before any: a clip too long to solve
 * (the same plan sinew_solve_clip makes) and a name clash in the written target, so nothing
 * is half written. Then the solve options. A control run's clips are the source's own,
 * solved: they replace them by design. */
static int prepare(solve_args *args, solve_job *job)
{
    if (args->control) args->replace = 1;
    for (uint32_t c = 0; c < job->nchosen; c++) {
        sinew_solve_frame_plan plan;
        if (sinew_solve_plan_frames(job->chosen[c], 0.0f, 0, &plan, &job->err))
            return cli_report(CMD, &job->err);
    }
    if (args->out_path && !args->replace)
        for (uint32_t c = 0; c < job->nchosen; c++)
            for (uint32_t a = 0; a < sinew_document_animation_count(job->rig_doc); a++)
                if (sinew_document_animation_named(job->rig_doc, a, job->chosen[c]->name))
                    return cli_usage_error(CMD,
                                           "%s already has an animation \"%s\": use --replace to "
                                           "overwrite it",
                                           job->rig_path, job->chosen[c]->name);
    sinew_solve_options *opt = &job->opt;
    memset(opt, 0, sizeof *opt);
    opt->rotation_only = args->rotation_only;
    opt->max_vertices = (uint32_t)args->max_vertices;
    opt->alignment = job->cs.aligned ? &job->cs.alignment : NULL;
    opt->all_keys = args->all_keys;
    opt->key_translation = args->key_translation;
    opt->key_degrees = args->key_degrees;
    job->free_opt = *opt;
    job->free_opt.rotation_only = 0;
    job->runs = calloc(job->nchosen, sizeof *job->runs);
    return job->runs ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}

/* The table's first lines: the inputs, the alignment or the correspondence, the columns. */
static void print_table_header(const solve_args *args, const solve_job *job)
{
    const sinew_model *rig = job->rig;
    const sinew_correspondence_stats *cs = &job->cs;
    printf("%s%s onto %s: %u vertices (%u fitted), %u joints, diagonal %.4g; correspondence %s\n",
           args->control ? "control: " : "", safe_text(args->source_path).s,
           safe_text(job->rig_path).s, rig->mesh.vertex_count,
           sinew_solve_fitted_vertices(rig, &job->opt), rig->skin.joint_count,
           (double)rig->size.diagonal,
           cs->identity  ? "identity"
           : cs->aligned ? "nearest vertex after alignment"
                         : "nearest vertex");
    const double diag = cs->diagonal > 0 ? cs->diagonal : 1;
    if (cs->aligned)
        printf("alignment: scale %.6g, yaw %.2f degrees (tilt %.2f), translation (%.4g, %.4g, "
               "%.4g) target units; aligned mean nearest %.4f%% of the diagonal (max %.4f%%; "
               "as placed %s%.2f%%)\n",
               (double)cs->alignment.scale, cs->alignment.yaw * 180.0 / SINEW_PI,
               cs->alignment.tilt * 180.0 / SINEW_PI, (double)cs->alignment.translation.x,
               (double)cs->alignment.translation.y, (double)cs->alignment.translation.z,
               100.0 * cs->mean_distance / diag, 100.0 * cs->max_distance / diag,
               cs->placed_partial ? "at least " : "", 100.0 * cs->placed_mean_distance / diag);
    else if (!cs->identity)
        printf("correspondence: mean nearest %.4f%%, max %.4f%% of the diagonal\n",
               100.0 * cs->mean_distance / diag, 100.0 * cs->max_distance / diag);
    printf("%-20s %-8s %6s %8s %10s %11s %11s %10s %8s %8s %9s\n", "clip", "solve", "frames",
           "sweeps/f", "Q", "mean %diag", "max %diag", "Q frames", "keys", "of", "time ms");
}

/* The note for a clip whose keys were too dense to solve at, to `f` (the table's place, or
 * stderr beside JSON). */
static void print_resampled(FILE *f, const clip_run *run)
{
    if (run->res.plan.resampled)
        fprintf(f, "%s: more than %u key times: resampled at %g per second (%u frames)\n",
                safe_text(run->clip->name).s, run->res.plan.key_times - 1,
                (double)run->res.plan.rate, run->res.frame_count);
}

/* A clip's rows: the resampling note when its keys were too dense, the solve, and with
 * --rotation-only the free solve beside it. */
static void print_clip_rows(const solve_args *args, const clip_run *run)
{
    print_resampled(stdout, run);
    print_row(run->clip->name, args->rotation_only ? "rot-only" : "free", &run->res, &run->played,
              run->seconds);
    if (run->has_free) print_row("", "free", &run->free, &run->played_free, run->seconds_free);
}

/* The table's last lines: the overall quality and each clip's worst moment. */
static void print_table_footer(const solve_args *args, const solve_job *job)
{
    printf("overall: Q %.3f%%, mean %.4f%%, max %.4f%% of the diagonal", 100.0 * job->all.q,
           100.0 * job->all.mean_error, 100.0 * job->all.max_error);
    if (args->rotation_only) printf(" (free solve: Q %.3f%%)", 100.0 * job->all_free.q);
    printf("\n");
    for (uint32_t c = 0; c < job->nruns; c++) {
        const sinew_solve_quality *p = &job->runs[c].played;
        printf("worst in %s: %.4f%% of the diagonal at t = %.3f s, vertex %u\n",
               safe_text(job->runs[c].clip->name).s, 100.0 * p->max_error, (double)p->worst_time,
               p->worst_vertex);
    }
}

/* Solves clip `clip` into `run` and measures it as played (and, with --rotation-only, the
 * free solve beside it). */
static int solve_clip(const solve_args *args, solve_job *job, const sinew_clip *clip, clip_run *run)
{
    run->clip = clip;
    double t0 = now_seconds();
    if (sinew_solve_clip(job->src, clip, job->rig, job->nearest, &job->opt, &run->res, &job->err))
        return cli_report(CMD, &job->err);
    run->seconds = now_seconds() - t0;
    job->nruns++;
    run->vertex_error = malloc((size_t)job->rig->mesh.vertex_count * sizeof(float) + 1);
    if (!run->vertex_error) {
        cli_error(CMD, "out of memory");
        return CLI_EXIT_INTERNAL;
    }
    if (sinew_solve_quality_written(job->src, clip, job->rig, job->nearest, &job->opt, &run->res,
                                    &run->played, run->vertex_error, &job->err))
        return cli_report(CMD, &job->err);
    if (!args->rotation_only) return CLI_EXIT_OK;
    t0 = now_seconds();
    if (sinew_solve_clip(job->src, clip, job->rig, job->nearest, &job->free_opt, &run->free,
                         &job->err))
        return cli_report(CMD, &job->err);
    run->seconds_free = now_seconds() - t0; /* the solve alone, as run->seconds */
    if (sinew_solve_quality_written(job->src, clip, job->rig, job->nearest, &job->free_opt,
                                    &run->free, &run->played_free, NULL, &job->err))
        return cli_report(CMD, &job->err);
    run->has_free = 1;
    return CLI_EXIT_OK;
}

/* Step 7: every chosen clip solved, the table's rows printed as each is done (with --json,
 * nothing on stdout until the outputs are written: print_json). */
static int solve_clips(const solve_args *args, solve_job *job)
{
    if (!args->json) print_table_header(args, job);
    for (uint32_t c = 0; c < job->nchosen; c++) {
        clip_run *run = &job->runs[job->nruns];
        const int code = solve_clip(args, job, job->chosen[c], run);
        if (code != CLI_EXIT_OK) return code;
        if (args->json)
            print_resampled(stderr, run);
        else
            print_clip_rows(args, run);
        sinew_solve_quality_merge(&job->all, &run->played);
        if (run->has_free) sinew_solve_quality_merge(&job->all_free, &run->played_free);
    }
    if (!args->json) print_table_footer(args, job);
    return CLI_EXIT_OK;
}

/* The target with the solved clips, with a note saying what was solved, into outs[0]. */
static int stage_target(const solve_args *args, solve_job *job)
{
    for (uint32_t c = 0; c < job->nruns; c++)
        if (sinew_solve_write_clip(job->rig_doc, job->rig, &job->runs[c].res,
                                   job->runs[c].clip->name, args->replace, &job->err))
            return cli_report(CMD, &job->err);
    char note[160];
    snprintf(note, sizeof note, "%u clip(s) solved from the skinned surface (%s), Q %.2f%%",
             job->nruns, args->rotation_only ? "rotation-only" : "free", 100.0 * job->all.q);
    sinew_document_set_note(job->rig_doc, "solve", note, NULL);
    if (sinew_document_serialize_with(job->rig_doc, args->out_path, &args->wopt,
                                      &job->outs[0].bytes, &job->err))
        return cli_report(CMD, &job->err);
    return CLI_EXIT_OK;
}

/* The target as loaded with COLOR_0 = each vertex's worst error over the clips, into
 * outs[1]. */
static int stage_heatmap(const solve_args *args, solve_job *job)
{
    sinew_document *heat = NULL;
    if (sinew_document_load_file(job->rig_path, NULL, &heat, &job->err))
        return cli_report(CMD, &job->err);
    const sinew_model *rig = job->rig;
    const uint32_t V = rig->mesh.vertex_count;
    float *rgba = malloc((size_t)V * 4 * sizeof(float) + 1);
    int ok = rgba != NULL;
    for (uint32_t v = 0; ok && v < V; v++) {
        float worst = 0;
        for (uint32_t c = 0; c < job->nruns; c++)
            if (job->runs[c].vertex_error[v] > worst) worst = job->runs[c].vertex_error[v];
        sinew_solve_heat_color(worst / (float)job->runs[0].res.diagonal, &rgba[(size_t)v * 4]);
    }
    for (uint32_t r = 0; ok && r < rig->mesh.range_count; r++) {
        const sinew_primitive_range *pr = &rig->mesh.ranges[r];
        if (sinew_document_set_colors(heat, pr->gltf_mesh, pr->gltf_primitive, pr->vertex_count,
                                      &rgba[(size_t)pr->first_vertex * 4], &job->err))
            ok = 0;
    }
    if (ok)
        sinew_document_set_note(heat, "solve_heatmap",
                                "COLOR_0 = worst solve error: blue 0, red >= 3% of the diagonal",
                                NULL);
    if (ok && sinew_document_serialize_with(heat, args->heatmap_path, &args->wopt,
                                            &job->outs[1].bytes, &job->err))
        ok = 0;
    free(rgba);
    sinew_document_free(heat);
    if (!ok) return job->err.message[0] ? cli_report(CMD, &job->err) : CLI_EXIT_INTERNAL;
    return CLI_EXIT_OK;
}

/* Step 8: the outputs asked for (the target with the clips, the heatmap, the report),
 * written together or not at all. */
static int write_outputs(const solve_args *args, solve_job *job)
{
    int code = CLI_EXIT_OK;
    if (args->out_path && (code = stage_target(args, job)) != CLI_EXIT_OK) return code;
    if (args->heatmap_path && (code = stage_heatmap(args, job)) != CLI_EXIT_OK) return code;
    if (args->report_path) {
        job->outs[2].bytes.data = report_text(args, job);
        if (!job->outs[2].bytes.data) {
            cli_error(CMD, "out of memory writing the report");
            return CLI_EXIT_INTERNAL;
        }
        job->outs[2].bytes.size = strlen(job->outs[2].bytes.data);
    }
    return cli_outputs_write(CMD, job->outs, 3);
}

/* Step 9 with --json: the report, and each output written with its size, on stdout. */
static int print_json(const solve_args *args, const solve_job *job)
{
    cJSON *root = report_json(args, job);
    cJSON *written = root ? cJSON_AddObjectToObject(root, "written") : NULL;
    static const char *const names[3] = {"output", "heatmap", "report"}; /* job->outs' */
    for (int i = 0; written && i < 3; i++) {
        const cli_output *o = &job->outs[i];
        if (!o->path) continue;
        cJSON *file = cJSON_AddObjectToObject(written, names[i]);
        cJSON_AddStringToObject(file, "path", o->path);
        cJSON_AddNumberToObject(file, "bytes", (double)o->written);
    }
    char *text = written ? cli_json_text(root, CLI_JSON_TABLE) : NULL;
    cJSON_Delete(root);
    const int ok = text && fputs(text, stdout) >= 0;
    free(text);
    if (ok) return CLI_EXIT_OK;
    cli_error(CMD, "out of memory printing the report");
    return CLI_EXIT_INTERNAL;
}

static void free_job(solve_job *job)
{
    cli_outputs_free(job->outs, 3);
    for (uint32_t c = 0; job->runs && c < job->nruns; c++) {
        sinew_solve_clip_result_free(&job->runs[c].res);
        sinew_solve_clip_result_free(&job->runs[c].free);
        free(job->runs[c].vertex_error);
    }
    free(job->runs);
    free(job->chosen);
    free(job->clips_buf);
    free(job->nearest);
    if (job->rig != job->src) sinew_model_free(job->rig);
    sinew_model_free(job->src);
    if (job->rig_doc != job->src_doc) sinew_document_free(job->rig_doc);
    sinew_document_free(job->src_doc);
}

int cmd_solve(int argc, char **argv)
{
    solve_args args;
    int code = parse_options(argc, argv, &args);
    if (code != CLI_EXIT_OK) return code;
    if (args.help) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    solve_job job;
    memset(&job, 0, sizeof job);
    if ((code = check_options(&args, &job)) == CLI_EXIT_OK &&
        (code = load_inputs(&args, &job)) == CLI_EXIT_OK &&
        (code = choose_clips(&args, &job)) == CLI_EXIT_OK &&
        (code = correspond(&args, &job)) == CLI_EXIT_OK &&
        (code = prepare(&args, &job)) == CLI_EXIT_OK &&
        (code = solve_clips(&args, &job)) == CLI_EXIT_OK &&
        (code = write_outputs(&args, &job)) == CLI_EXIT_OK && args.json)
        code = print_json(&args, &job);
    free_job(&job);
    return code;
}
