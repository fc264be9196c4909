/* Pictures for the CLI: pose models and draw them side by side into a PNG (`sinew render`,
 * `sinew demo`). */
#ifndef SINEW_RENDER_CLI_H
#define SINEW_RENDER_CLI_H

#include "sinew/render.h"

#define RENDER_CLI_MAX_PANELS 8

/* One model posed at one moment, ready to draw. */
typedef struct render_panel {
    char label[128];
    const sinew_model *model; /* not owned */
    sinew_vec3 *positions;    /* skinned, owned */
    sinew_mat4 *world;        /* node world transforms, owned */
    float *colors;            /* RGB per vertex or NULL, owned */
    uint8_t *tail;            /* 1 where the dominant joint is named /tail/i, owned */
} render_panel;

typedef struct render_style {
    sinew_render_view view;
    uint32_t width, height; /* the whole picture, pixels */
    int bones, tail;        /* draw the skeleton; tint tail skin */
    int heat_legend;        /* draw the heat scale */
    const char *heat_top;   /* legend text at the red end, e.g. ">= 3% diagonal" */
} render_style;

/* Poses `model` at `clip` (NULL: the first clip, or the file's pose when there is none) and
 * `time` (negative: the middle of the clip). SINEW_ERR_NOT_FOUND for an unknown clip. */
sinew_result render_cli_pose(render_panel *panel, const sinew_model *model, const char *clip,
                             float time, const char *label, sinew_error *err);
void render_cli_panel_free(render_panel *panel);

/* Draws the panels side by side at one scale and writes the PNG atomically. */
sinew_result render_cli_write(const render_panel *panels, int count, const render_style *style,
                              const char *path, sinew_error *err);

#endif
