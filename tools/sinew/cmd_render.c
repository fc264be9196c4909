/* sinew render: a PNG of a skinned pose, or of several files side by side (seed 000's
 * original / rigid / chain picture). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "sinew/document.h"
#include "sinew/render.h"

#define MAX_PANELS 8

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

typedef struct panel {
    const char *file;
    char label[128];
    sinew_document *doc;
    sinew_model *model;
    sinew_vec3 *positions;
    sinew_mat4 *world;
    float *colors;
    uint8_t *tail;
} panel;

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

static int tail_name(const char *name)
{
    const char *t = strstr(name, "Tail");
    return t != NULL || strstr(name, "tail") != NULL;
}

/* Loads one file and poses it at the clip and moment; fills the panel. */
static int load_panel(const render_args *a, panel *p, sinew_error *err)
{
    if (sinew_document_load_file(p->file, NULL, &p->doc, err) != SINEW_OK ||
        sinew_model_from_document(p->doc, NULL, &p->model, err) != SINEW_OK)
        return cli_report("render", err);
    sinew_model *m = p->model;
    int32_t clip = m->clip_count ? 0 : -1;
    if (a->clip && (clip = sinew_model_find_clip(m, a->clip)) < 0) {
        sinew_error_set(err, SINEW_ERR_NOT_FOUND, "%s: no clip named \"%s\"", p->file, a->clip);
        return cli_report("render", err);
    }
    sinew_transform *pose = calloc(m->node_count + 1, sizeof *pose);
    sinew_mat4 *skin = calloc(m->skin.joint_count + 1, sizeof *skin);
    p->world = calloc(m->node_count + 1, sizeof *p->world);
    p->positions = calloc(m->mesh.vertex_count + 1, sizeof *p->positions);
    p->tail = calloc(m->mesh.vertex_count + 1, 1);
    if (!pose || !skin || !p->world || !p->positions || !p->tail) {
        free(pose);
        free(skin);
        sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
        return cli_report("render", err);
    }
    if (clip >= 0) {
        const sinew_clip *c = &m->clips[clip];
        sinew_clip_sample(m, c, a->has_time ? a->time : 0.5f * c->duration, pose);
    } else {
        sinew_pose_file(m, pose);
    }
    sinew_pose_to_world(m, pose, p->world);
    sinew_skin_matrices(m, p->world, skin);
    sinew_skin_positions(m, skin, p->positions);
    free(pose);
    free(skin);
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        uint16_t j = m->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        p->tail[v] = (uint8_t)tail_name(m->nodes[m->skin.joints[j].node].name);
    }
    if (a->heat) {
        p->colors = calloc(3 * (size_t)m->mesh.vertex_count + 1, sizeof *p->colors);
        if (!p->colors) {
            sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
            return cli_report("render", err);
        }
        if (sinew_document_read_colors(p->doc, m, p->colors, err) != SINEW_OK)
            return cli_report("render", err);
    }
    return CLI_EXIT_OK;
}

static void draw_heat_legend(sinew_image *img)
{
    const int x0 = 16, y0 = (int)img->height - 40, w = 200, h = 12;
    for (int x = 0; x < w; x++) {
        float rgb[3];
        sinew_render_heat_color((float)x / (float)(w - 1), rgb);
        for (int y = 0; y < h; y++) {
            uint8_t *px = &img->rgba[4 * ((size_t)(y0 + y) * img->width + (size_t)(x0 + x))];
            for (int c = 0; c < 3; c++)
                px[c] = (uint8_t)(rgb[c] * 255.0f);
        }
    }
    sinew_render_text(img, x0, y0 + h + 4, "0", 1, 40, 40, 40);
    sinew_render_text(img, x0 + w - 70, y0 + h + 4, ">= 3% diagonal", 1, 40, 40, 40);
}

int cmd_render(int argc, char **argv)
{
    render_args a;
    int code = parse_args(argc, argv, &a);
    if (code != CLI_EXIT_OK) return code;
    if (a.heat && a.width < 240)
        return cli_usage_error("render", "--heat needs a picture at least 240 wide");

    panel panels[MAX_PANELS];
    memset(panels, 0, sizeof panels);
    sinew_error err = {0};
    uint32_t total = 0;
    for (int i = 0; i < a.file_count && code == CLI_EXIT_OK; i++) {
        panels[i].file = a.files[i];
        panel_label(&a, i, panels[i].label, sizeof panels[i].label);
        code = load_panel(&a, &panels[i], &err);
        if (code == CLI_EXIT_OK) total += panels[i].model->mesh.vertex_count;
    }
    sinew_image img = {(uint32_t)a.width, (uint32_t)a.height, NULL};
    sinew_vec3 *all = NULL;
    float *depth = NULL;
    if (code == CLI_EXIT_OK) {
        img.rgba = malloc((size_t)img.width * img.height * 4);
        all = malloc(((size_t)total + 1) * sizeof *all);
        depth = malloc((size_t)img.width * img.height * sizeof *depth);
        if (!img.rgba || !all || !depth) {
            sinew_error_set(&err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
            code = cli_report("render", &err);
        }
    }
    if (code == CLI_EXIT_OK) {
        /* One camera for every panel: the union of the skinned points, so sizes compare. */
        uint32_t n = 0;
        for (int i = 0; i < a.file_count; i++) {
            memcpy(&all[n], panels[i].positions, panels[i].model->mesh.vertex_count * sizeof *all);
            n += panels[i].model->mesh.vertex_count;
        }
        const uint32_t panel_w = img.width / (uint32_t)a.file_count;
        sinew_render_camera cam =
            sinew_render_frame(a.view, all, n, (float)panel_w / (float)img.height);
        sinew_render_clear(&img, 246, 244, 240);
        for (int i = 0; i < a.file_count; i++) {
            const sinew_model *m = panels[i].model;
            sinew_render_scene scene = {m,
                                        panels[i].positions,
                                        panels[i].colors,
                                        a.bones ? panels[i].world : NULL,
                                        a.tail ? panels[i].tail : NULL,
                                        1,
                                        0.0f};
            /* The floor: y = 0 when the character stands on it, else under its bind box. */
            const sinew_size *ws = &m->world_size;
            if (ws->min.y < -0.05f * ws->scale || ws->min.y > 0.05f * ws->scale)
                scene.floor_y = ws->min.y;
            sinew_viewport vp = {(uint32_t)i * panel_w, 0, panel_w, img.height};
            sinew_render_draw(&img, vp, &cam, &scene, depth);
            sinew_render_text(&img, (int)vp.x + 10, 10, panels[i].label, 2, 30, 30, 30);
        }
        if (a.heat) draw_heat_legend(&img);
        if (sinew_render_write_png(&img, a.out, &err) != SINEW_OK)
            code = cli_report("render", &err);
        else
            printf("wrote %s (%ux%u)\n", a.out, img.width, img.height);
    }
    for (int i = 0; i < a.file_count; i++) {
        free(panels[i].positions);
        free(panels[i].world);
        free(panels[i].colors);
        free(panels[i].tail);
        sinew_model_free(panels[i].model);
        sinew_document_free(panels[i].doc);
    }
    free(img.rgba);
    free(all);
    free(depth);
    return code;
}
