/* sinew demo: the main job on a built-in example. A procedural anthropomorphic fox, rigged the
 * way a template auto-rigger leaves it (no tail bones, tail skin on the left shin and the
 * thighs), gets its tail found, chained, re-weighted and baked; the tables and pictures show
 * what changed (Sidorkin, "Animating tails the auto-rigger never gave a bone", end to end). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "safe_text.h"
#include "commands.h"
#include "render_cli.h"
#include "sinew/creature.h"
#include "tail_cli.h"

static const char *usage =
    "usage: sinew demo [--out DIR] [--kind KIND] [--json]\n"
    "\n"
    "Runs the tail pipeline on a built-in procedural character (no files needed) and writes\n"
    "into DIR (default: sinew-demo):\n"
    "  KIND_template.glb   the character as a template auto-rigger leaves it\n"
    "  KIND_rigid.glb      its tail rigid on the pelvis (the first fix)\n"
    "  KIND_tail.glb       its tail on its own bone chain, the motion baked into every clip\n"
    "  KIND_report.json    what was found, piece by piece\n"
    "  compare.png         template / rigid / chain at mid-stride of the first clip\n"
    "  stretch.png         skin coloured by edge stretch, template vs chain (red = torn)\n"
    "and prints the findings, the bake and the edge-stretch comparison.\n"
    "\n"
    "  --out DIR     output folder (created if missing)\n"
    "  --kind KIND   fox (default), mouse or lizard: see 'sinew creature --list'\n"
    "  --json        print JSON instead of the tables, once every file is written: kind,\n"
    "                folder, files, the findings (\"report\": KIND_report.json's) and the\n"
    "                edge-stretch comparison (\"stretch\": as 'sinew stretch --compare --json')\n";

/* Ratio at which an edge counts as torn, the red end of the stretch picture. */
#define TORN_EXCESS (SINEW_STRETCH_TORN_HIGH - 1.0f)

/* Colours each vertex by the worst stretch or compression of its edges in the panel's pose:
 * blue = unchanged, red = torn (x1.5 or /1.5). */
static sinew_result stretch_colors(render_panel *p, sinew_error *err)
{
    const sinew_model *m = p->model;
    sinew_metrics_edges unique;
    sinew_result r = sinew_metrics_unique_edges(m, &unique, err);
    if (r != SINEW_OK) return r;
    const uint32_t *edges = unique.pairs, count = unique.count;
    float *worst = calloc(m->mesh.vertex_count + 1, sizeof *worst);
    p->colors = calloc(3 * (size_t)m->mesh.vertex_count + 1, sizeof *p->colors);
    if (!worst || !p->colors) {
        free(worst);
        sinew_metrics_edges_free(&unique);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (uint32_t e = 0; e < count; e++) {
        uint32_t a = edges[2 * e], b = edges[2 * e + 1];
        float bind = sinew_vec3_distance(m->mesh.positions[a], m->mesh.positions[b]);
        if (!(bind > 0)) continue;
        float ratio = sinew_vec3_distance(p->positions[a], p->positions[b]) / bind;
        float excess = fmaxf(ratio, 1.0f / fmaxf(ratio, 1e-6f)) - 1.0f;
        worst[a] = fmaxf(worst[a], excess);
        worst[b] = fmaxf(worst[b], excess);
    }
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++)
        sinew_render_heat_color(worst[m->mesh.weld[v]] / TORN_EXCESS, &p->colors[3 * (size_t)v]);
    free(worst);
    sinew_metrics_edges_free(&unique);
    return SINEW_OK;
}

/* DIR/name, in a caller buffer. */
static const char *in_dir(char *buf, size_t size, const char *dir, const char *kind,
                          const char *name)
{
    snprintf(buf, size, "%s/%s%s%s", dir, kind ? kind : "", kind ? "_" : "", name);
    return buf;
}

static const char *const written_files[] = {"template.glb", "rigid.glb",   "tail.glb",
                                            "report.json",  "compare.png", "stretch.png"};
#define WRITTEN_FILES (sizeof written_files / sizeof *written_files)
#define KIND_FILES 4 /* the first ones, named after the kind */

/* The name of written file `i` for `kind_name`. */
static const char *written_name(char *buf, size_t size, size_t i, const char *kind_name)
{
    snprintf(buf, size, "%s%s%s", i < KIND_FILES ? kind_name : "", i < KIND_FILES ? "_" : "",
             written_files[i]);
    return buf;
}

/* What the demo did, as one JSON object on stdout: the files, the findings (`report`) and the
 * stretch comparison (`stretch`), both taken over. */
static int print_json(const char *dir, const char *kind_name, cJSON *report, cJSON *stretch)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "kind", kind_name);
    cJSON_AddStringToObject(root, "folder", dir);
    cJSON *files = cJSON_AddArrayToObject(root, "files");
    for (size_t i = 0; i < WRITTEN_FILES; i++) {
        char name[64];
        cJSON_AddItemToArray(files,
                             cJSON_CreateString(written_name(name, sizeof name, i, kind_name)));
    }
    cJSON_AddItemToObject(root, "report", report);
    cJSON_AddItemToObject(root, "stretch", stretch);
    char *text = cli_json_text(root, CLI_JSON_INDENTED);
    cJSON_Delete(root);
    const int ok = text && puts(text) >= 0;
    free(text);
    if (ok) return CLI_EXIT_OK;
    cli_error("demo", "out of memory writing the report");
    return CLI_EXIT_INTERNAL;
}

/* compare.png and stretch.png: the template, the rigid and the chained rig at mid-stride of
 * the first clip, the chain's skin tinted in all three; then the template's and the chain's
 * edge stretch. */
static sinew_result write_pictures(const char *dir, const sinew_model *model,
                                   const sinew_tail_result *rigid, const sinew_tail_result *chain,
                                   sinew_error *err)
{
    char path[4096];
    render_panel panels[3];
    memset(panels, 0, sizeof panels);
    const char *clip = model->clip_count ? model->clips[0].name : NULL;
    const sinew_model *versions[3] = {model, rigid->model, chain->model};
    static const char *labels[3] = {"template rig", "rigid on pelvis", "tail chain"};
    sinew_result r = SINEW_OK;
    for (int i = 0; i < 3 && r == SINEW_OK; i++)
        r = render_cli_pose(&panels[i], versions[i], clip, -1.0f, labels[i], err);
    if (r == SINEW_OK) {
        /* Tint the same skin in all three: the vertices the chain re-weights. */
        for (int i = 0; i < 3; i++)
            memcpy(panels[i].tail, chain->plan.changed, model->mesh.vertex_count);
        render_style style = {SINEW_VIEW_THREE_QUARTER, 1080, 640, 0, 1, 0, NULL};
        r = render_cli_write(panels, 3, &style, in_dir(path, sizeof path, dir, NULL, "compare.png"),
                             err);
    }
    /* The stretch picture: the same poses, coloured (the colours are freed with the panels). */
    if (r == SINEW_OK && (r = stretch_colors(&panels[0], err)) == SINEW_OK &&
        (r = stretch_colors(&panels[2], err)) == SINEW_OK) {
        render_panel heat[2] = {panels[0], panels[2]};
        render_style heat_style = {SINEW_VIEW_SIDE, 960, 640, 0, 0, 1, "torn: x1.5 or /1.5"};
        snprintf(heat[0].label, sizeof heat[0].label, "template rig: stretch");
        snprintf(heat[1].label, sizeof heat[1].label, "tail chain: stretch");
        r = render_cli_write(heat, 2, &heat_style,
                             in_dir(path, sizeof path, dir, NULL, "stretch.png"), err);
    }
    for (int i = 0; i < 3; i++)
        render_cli_panel_free(&panels[i]);
    return r;
}

int cmd_demo(int argc, char **argv)
{
    const char *dir = "sinew-demo", *kind_name = "fox";
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--out")) {
            if (!(dir = cli_option_value("demo", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--kind")) {
            if (!(kind_name = cli_option_value("demo", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else {
            return cli_usage_error("demo", "unknown argument '%s'", argv[i]);
        }
    }
    sinew_creature_kind kind = sinew_creature_kind_from_name(kind_name);
    if (kind != SINEW_CREATURE_FOX && kind != SINEW_CREATURE_MOUSE && kind != SINEW_CREATURE_LIZARD)
        return cli_usage_error("demo",
                               "--kind wants fox, mouse or lizard (a creature with a "
                               "tail), not '%s'",
                               kind_name);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        cli_error("demo", "cannot create the folder %s: %s", dir, strerror(errno));
        return CLI_EXIT_INTERNAL;
    }

    sinew_error err = {0};
    sinew_model *model = NULL;
    sinew_creature_truth truth;
    memset(&truth, 0, sizeof truth);
    sinew_document *templ = NULL, *rigid_doc = NULL, *chain_doc = NULL;
    sinew_tail_result rigid, chain;
    memset(&rigid, 0, sizeof rigid);
    memset(&chain, 0, sizeof chain);
    char path[4096];
    int code = CLI_EXIT_OK;
    cJSON *report = NULL, *stretch = json ? cJSON_CreateObject() : NULL;

    if (sinew_creature_build(kind, NULL, &model, &truth, &err) != SINEW_OK ||
        sinew_document_from_model(model, &templ, &err) != SINEW_OK) {
        code = cli_report("demo", &err);
        goto done;
    }
    sinew_model_free(model); /* the document's own view, so node indices match the file */
    model = NULL;
    if (sinew_model_from_document(templ, NULL, &model, &err) != SINEW_OK ||
        sinew_document_write_file(templ, in_dir(path, sizeof path, dir, kind_name, "template.glb"),
                                  &err) != SINEW_OK ||
        /* the rigged versions, each a copy of the template: rigid (the article's step one) and
         * the chain, baked */
        tail_cli_run_copy(templ, SINEW_RIG_MODE_RIGID, &rigid_doc, &rigid, &err) != SINEW_OK ||
        tail_cli_run_copy(templ, SINEW_RIG_MODE_CHAIN, &chain_doc, &chain, &err) != SINEW_OK ||
        sinew_document_write_file(rigid_doc, in_dir(path, sizeof path, dir, kind_name, "rigid.glb"),
                                  &err) != SINEW_OK ||
        sinew_document_write_file(chain_doc, in_dir(path, sizeof path, dir, kind_name, "tail.glb"),
                                  &err) != SINEW_OK) {
        code = cli_report("demo", &err);
        goto done;
    }
    if (chain.plan.chain_count == 0) { /* the generator's tail must be found: a sinew bug */
        fprintf(stderr, "sinew demo: internal error: no tail found on the built-in %s\n",
                kind_name);
        code = CLI_EXIT_INTERNAL;
        goto done;
    }
    if (!json) {
        printf("== %s: %s\n", kind_name, sinew_creature_kind_summary(kind));
        tail_cli_print(in_dir(path, sizeof path, dir, kind_name, "template.glb"), &chain, 0);
    }
    char template_name[64], tail_name[64];
    snprintf(template_name, sizeof template_name, "%s_template.glb", kind_name);
    snprintf(tail_name, sizeof tail_name, "%s_tail.glb", kind_name);
    if (!tail_cli_write_report(in_dir(path, sizeof path, dir, kind_name, "report.json"), &chain,
                               template_name, tail_name, "chain"))
        fprintf(stderr, "sinew demo: could not write the report\n");
    if (json) report = tail_cli_report_json(&chain, template_name, tail_name, "chain");

    if (!json) printf("\n== edge stretch\n");
    if (tail_cli_stretch_compare(templ, NULL, 24, stretch, &err) != SINEW_OK) {
        code = cli_report("demo", &err);
        goto done;
    }

    if (write_pictures(dir, model, &rigid, &chain, &err) != SINEW_OK) {
        code = cli_report("demo", &err);
        goto done;
    }
    if (json) {
        code = print_json(dir, kind_name, report, stretch);
        report = stretch = NULL; /* print_json took them */
    } else {
        printf("\nwrote %s/:", safe_text(dir).s);
        for (size_t i = 0; i < WRITTEN_FILES; i++) {
            char name[64];
            printf(" %s", written_name(name, sizeof name, i, kind_name));
        }
        printf("\n");
    }
done:
    cJSON_Delete(report);
    cJSON_Delete(stretch);
    sinew_tail_result_free(&rigid);
    sinew_tail_result_free(&chain);
    sinew_document_free(templ);
    sinew_document_free(rigid_doc);
    sinew_document_free(chain_doc);
    sinew_creature_truth_free(&truth);
    sinew_model_free(model);
    return code;
}
