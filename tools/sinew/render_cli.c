/* Pictures for the CLI: pose models and draw them side by side into a PNG. */
#include "render_cli.h"

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sinew_result render_cli_pose(render_panel *p, const sinew_model *m, const char *clip_name,
                             float time, const char *label, sinew_error *err)
{
    memset(p, 0, sizeof *p);
    p->model = m;
    snprintf(p->label, sizeof p->label, "%s", label);
    int32_t clip = m->clip_count ? 0 : -1;
    if (clip_name && (clip = sinew_model_find_clip(m, clip_name)) < 0)
        return cli_no_clip(err, label, m, clip_name);
    sinew_transform *pose = calloc(m->node_count + 1, sizeof *pose);
    sinew_mat4 *skin = calloc(m->skin.joint_count + 1, sizeof *skin);
    p->world = calloc(m->node_count + 1, sizeof *p->world);
    p->positions = calloc(m->mesh.vertex_count + 1, sizeof *p->positions);
    p->tail = calloc(m->mesh.vertex_count + 1, 1);
    if (!pose || !skin || !p->world || !p->positions || !p->tail) {
        free(pose);
        free(skin);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (clip >= 0) {
        const sinew_clip *c = &m->clips[clip];
        sinew_clip_sample(m, c, time >= 0 ? time : 0.5f * c->duration, pose);
    } else {
        sinew_pose_file(m, pose);
    }
    sinew_pose_to_world(m, pose, p->world);
    sinew_skin_matrices(m, p->world, skin);
    sinew_skin_positions(m, skin, p->positions);
    free(pose);
    free(skin);
    cli_mark_tail_skin(m, p->tail);
    return SINEW_OK;
}

void render_cli_panel_free(render_panel *p)
{
    free(p->positions);
    free(p->world);
    free(p->colors);
    free(p->tail);
    memset(p, 0, sizeof *p);
}

static void draw_heat_legend(sinew_image *img, const char *top)
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
    sinew_render_text(img, x0 + w - 5 * (int)strlen(top), y0 + h + 4, top, 1, 40, 40, 40);
}

sinew_result render_cli_write(const render_panel *panels, int count, const render_style *style,
                              const char *path, sinew_error *err)
{
    size_t total = 0;
    for (int i = 0; i < count; i++)
        total += panels[i].model->mesh.vertex_count;
    sinew_image img = {style->width, style->height, NULL};
    img.rgba = malloc((size_t)img.width * img.height * 4);
    sinew_vec3 *all = malloc((total + 1) * sizeof *all);
    float *depth = malloc((size_t)img.width * img.height * sizeof *depth);
    sinew_result r = SINEW_OK;
    if (!img.rgba || !all || !depth || count < 1) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        goto done;
    }
    /* One camera for every panel: the union of the skinned points, so sizes compare. */
    size_t n = 0;
    for (int i = 0; i < count; i++) {
        memcpy(&all[n], panels[i].positions, panels[i].model->mesh.vertex_count * sizeof *all);
        n += panels[i].model->mesh.vertex_count;
    }
    const uint32_t panel_w = img.width / (uint32_t)count;
    sinew_render_camera cam =
        sinew_render_frame(style->view, all, (uint32_t)n, (float)panel_w / (float)img.height);
    sinew_render_clear(&img, 246, 244, 240);
    for (int i = 0; i < count; i++) {
        const sinew_model *m = panels[i].model;
        sinew_render_scene scene = {m,
                                    panels[i].positions,
                                    panels[i].colors,
                                    style->bones ? panels[i].world : NULL,
                                    style->tail ? panels[i].tail : NULL,
                                    1,
                                    0.0f};
        /* The floor: y = 0 when the character stands on it, else under its posed box. */
        const sinew_size *ws = &m->world_size;
        if (ws->min.y < -0.05f * ws->scale || ws->min.y > 0.05f * ws->scale)
            scene.floor_y = ws->min.y;
        sinew_viewport vp = {(uint32_t)i * panel_w, 0, panel_w, img.height};
        sinew_render_draw(&img, vp, &cam, &scene, depth);
        sinew_render_text(&img, (int)vp.x + 10, 10, panels[i].label, 2, 30, 30, 30);
    }
    if (style->heat_legend) draw_heat_legend(&img, style->heat_top ? style->heat_top : "max");
    r = sinew_render_write_png(&img, path, err);
done:
    free(img.rgba);
    free(all);
    free(depth);
    return r;
}
