/* sinew render: a PNG of a skinned pose, or of several files side by side (the original /
 * rigid / chain picture of Sidorkin, "Animating tails the auto-rigger never gave a bone"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "outputs.h"
#include "safe_text.h"
#include "commands.h"
#include "sinew/document.h"
#include "render_cli.h"

#define MAX_PANELS RENDER_CLI_MAX_PANELS

static const char *usage =
    "usage: sinew render FILE.glb [options] -o OUT.png\n"
    "       sinew render --compare A.glb B.glb [C.glb ...] [--labels a,b,c] [options] -o OUT.png\n"
    "\n"
    "Draws the skinned mesh at one moment of a clip with a small CPU rasteriser (z-buffer,\n"
    "Lambert shading, vertex colours, bone overlay, floor line). With --compare, every file is\n"
    "drawn at the same clip and moment, side by side, at one scale.\n"
    "\n"
    "  --clip NAME        the clip (default: the first one; the file's pose when it has none)\n"
    "  --time T           seconds into the clip (default: the middle of the clip)\n"
    "  --view V           front, side or 3q (default 3q)\n"
    "  --size WxH         picture size in pixels (default 640x640, or 360 per panel x 640)\n"
    "  --bones            draw the skeleton on top\n"
    "  --tail             tint skin dominated by Tail_* joints orange\n"
    "  --heat             colour by the file's COLOR_0 (e.g. a 'sinew solve --heatmap' output)\n"
    "                     and draw the scale (blue 0 .. red 3% of the diagonal or more)\n"
    "  --labels a,b,c     panel titles (default: the file names)\n";

typedef struct render_args {
    const char *files[MAX_PANELS];
    int file_count;
    int compare;
    const char *out, *clip, *labels;
    float time;
    int has_time, bones, heat, tail;
    sinew_render_view view;
    unsigned long width, height;
} render_args;

static int parse_size(const char *text, unsigned long *w, unsigned long *h)
{
    char extra;
    return sscanf(text, "%lux%lu%c", w, h, &extra) == 2 && *w >= 16 && *h >= 16 && *w <= 8192 &&
           *h <= 8192;
}

static int parse_args(int argc, char **argv, render_args *a)
{
    memset(a, 0, sizeof *a);
    a->view = SINEW_VIEW_THREE_QUARTER;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (cli_is_help(arg)) {
            fputs(usage, stdout);
            exit(CLI_EXIT_OK);
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (!(a->out = cli_option_value("render", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(arg, "--clip")) {
            if (!(a->clip = cli_option_value("render", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(arg, "--labels")) {
            if (!(a->labels = cli_option_value("render", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(arg, "--time")) {
            if (!(v = cli_option_value("render", argc, argv, &i))) return CLI_EXIT_USAGE;
            if (!cli_parse_float(v, 0, 1e6f, &a->time))
                return cli_usage_error("render", "--time wants seconds >= 0, not '%s'", v);
            a->has_time = 1;
        } else if (!strcmp(arg, "--view")) {
            if (!(v = cli_option_value("render", argc, argv, &i))) return CLI_EXIT_USAGE;
            if (!strcmp(v, "front"))
                a->view = SINEW_VIEW_FRONT;
            else if (!strcmp(v, "side"))
                a->view = SINEW_VIEW_SIDE;
            else if (!strcmp(v, "3q"))
                a->view = SINEW_VIEW_THREE_QUARTER;
            else
                return cli_usage_error("render", "--view wants front, side or 3q, not '%s'", v);
        } else if (!strcmp(arg, "--size")) {
            if (!(v = cli_option_value("render", argc, argv, &i))) return CLI_EXIT_USAGE;
            if (!parse_size(v, &a->width, &a->height))
                return cli_usage_error("render",
                                       "--size wants WxH from 16x16 to 8192x8192, not '%s'", v);
        } else if (!strcmp(arg, "--bones")) {
            a->bones = 1;
        } else if (!strcmp(arg, "--heat")) {
            a->heat = 1;
        } else if (!strcmp(arg, "--tail")) {
            a->tail = 1;
        } else if (!strcmp(arg, "--compare")) {
            a->compare = 1;
        } else if (arg[0] == '-') {
            return cli_usage_error("render", "unknown option '%s'", arg);
        } else if (a->file_count < MAX_PANELS) {
            a->files[a->file_count++] = arg;
        } else {
            return cli_usage_error("render", "at most %d files", MAX_PANELS);
        }
    }
    if (!a->file_count) return cli_usage_error("render", "no input file");
    if (!a->compare && a->file_count > 1)
        return cli_usage_error("render", "several files need --compare");
    if (a->compare && a->file_count < 2)
        return cli_usage_error("render", "--compare needs 2 or more files");
    if (!a->out) return cli_usage_error("render", "no output picture (-o OUT.png)");
    if (!a->width) {
        a->width = a->compare ? 360ul * (unsigned long)a->file_count : 640;
        a->height = 640;
    }
    return CLI_EXIT_OK;
}

/* The label of panel i: the i-th comma-separated entry of `labels`, else the file name. */
static void panel_label(const render_args *a, int i, char *out, size_t size)
{
    const char *p = a->labels;
    for (int k = 0; p && k < i; k++) {
        p = strchr(p, ',');
        if (p) p++;
    }
    if (p && *p) {
        size_t n = strcspn(p, ",");
        snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p);
        return;
    }
    const char *slash = strrchr(a->files[i], '/');
    snprintf(out, size, "%s", slash ? slash + 1 : a->files[i]);
}

/* Loads file i and poses it; on failure prints the error and returns its exit code. */
static int load_panel(const render_args *a, int i, sinew_document **doc, sinew_model **model,
                      render_panel *p, sinew_error *err)
{
    char label[128];
    panel_label(a, i, label, sizeof label);
    if (sinew_document_load_file(a->files[i], NULL, doc, err) != SINEW_OK ||
        sinew_model_from_document(*doc, NULL, model, err) != SINEW_OK ||
        render_cli_pose(p, *model, a->clip, a->has_time ? a->time : -1.0f, label, err) != SINEW_OK)
        return cli_report("render", err);
    if (a->heat) {
        p->colors = calloc(3 * (size_t)(*model)->mesh.vertex_count + 1, sizeof *p->colors);
        if (!p->colors) {
            sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
            return cli_report("render", err);
        }
        if (sinew_document_read_colors(*doc, *model, p->colors, err) != SINEW_OK)
            return cli_report("render", err);
    }
    return CLI_EXIT_OK;
}

int cmd_render(int argc, char **argv)
{
    render_args a;
    int code = parse_args(argc, argv, &a);
    if (code != CLI_EXIT_OK) return code;
    if (a.heat && a.width < 240)
        return cli_usage_error("render", "--heat needs a picture at least 240 wide");

    render_panel panels[MAX_PANELS];
    sinew_document *docs[MAX_PANELS] = {0};
    sinew_model *models[MAX_PANELS] = {0};
    memset(panels, 0, sizeof panels);
    sinew_error err = {0};
    for (int i = 0; i < a.file_count && code == CLI_EXIT_OK; i++)
        code = load_panel(&a, i, &docs[i], &models[i], &panels[i], &err);
    if (code == CLI_EXIT_OK) {
        const cli_output out = {.option = "-o", .path = a.out, .format = CLI_FORMAT_PNG};
        code = cli_outputs_check("render", &out, 1, (const sinew_document *const *)docs,
                                 a.file_count, NULL, 0);
    }
    if (code == CLI_EXIT_OK) {
        render_style style = {a.view, (uint32_t)a.width, (uint32_t)a.height, a.bones, a.tail,
                              a.heat, ">= 3% diagonal"};
        if (render_cli_write(panels, a.file_count, &style, a.out, &err) != SINEW_OK)
            code = cli_report("render", &err);
        else
            printf("wrote %s (%lux%lu)\n", safe_text(a.out).s, a.width, a.height);
    }
    for (int i = 0; i < a.file_count; i++) {
        render_cli_panel_free(&panels[i]);
        sinew_model_free(models[i]);
        sinew_document_free(docs[i]);
    }
    return code;
}
