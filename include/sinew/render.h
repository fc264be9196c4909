/* sinew render: small deterministic CPU pictures of a skinned pose, for people who would
 * rather look than read (Sidorkin's posts show every result as a picture beside the table).
 *
 * An orthographic camera frames the character from the front (+Z, the way glTF characters
 * face), the side (+X) or three-quarters; triangles are rasterised with a z-buffer and
 * two-sided Lambert shading over per-vertex colours; bones and the floor are drawn on top.
 * Images are RGBA8 in caller memory; the same input gives the same bytes.
 */
#ifndef SINEW_RENDER_H
#define SINEW_RENDER_H

#include "sinew/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sinew_render_view {
    SINEW_VIEW_INVALID = 0,
    SINEW_VIEW_FRONT,        /* looking at the character's face (camera on +Z) */
    SINEW_VIEW_SIDE,         /* from its left side (camera on +X) */
    SINEW_VIEW_THREE_QUARTER /* between the two, a little from above */
} sinew_render_view;

/* An RGBA8 image in caller memory: rgba holds width * height * 4 bytes, rows top first. */
typedef struct sinew_image {
    uint32_t width, height; /* pixels */
    uint8_t *rgba;
} sinew_image;

/* A rectangle of an image to draw into (pixels). */
typedef struct sinew_viewport {
    uint32_t x, y, width, height;
} sinew_viewport;

/* An orthographic camera: what world point sits at the viewport's centre and how many world
 * units the viewport's height spans. */
typedef struct sinew_render_camera {
    sinew_render_view view;
    sinew_vec3 center; /* world units */
    float span;        /* world units across the viewport's height */
} sinew_render_camera;

/* What to draw. */
typedef struct sinew_render_scene {
    const sinew_model *model;    /* triangles and, for bones, the skeleton */
    const sinew_vec3 *positions; /* vertex_count skinned world positions */
    const float *colors;         /* vertex_count RGB in [0, 1]; NULL: a clay grey */
    const sinew_mat4 *world;     /* node_count world transforms for the bone overlay; NULL:
                                    no bones */
    const uint8_t *highlight;    /* vertex_count bytes: nonzero vertices tinted orange (e.g.
                                    tail skin); NULL: none */
    int show_floor;              /* 1: draw the floor line at floor_y */
    float floor_y;               /* world units */
} sinew_render_scene;

/* Frames the points (count of them) for a view: centre of their box, span with a 10% margin,
 * wide enough for the viewport's aspect ratio. */
sinew_render_camera sinew_render_frame(sinew_render_view view, const sinew_vec3 *points,
                                       uint32_t count, float aspect_width_over_height);

/* Fills the whole image with one colour (RGB 0..255). */
void sinew_render_clear(sinew_image *image, uint8_t r, uint8_t g, uint8_t b);

/* Draws the scene into a viewport of the image. `depth` is caller scratch of
 * viewport.width * viewport.height floats. Allocation-free. */
void sinew_render_draw(sinew_image *image, sinew_viewport viewport,
                       const sinew_render_camera *camera, const sinew_render_scene *scene,
                       float *depth);

/* Draws text with its top-left corner at (x, y), each font pixel `scale` pixels: printable
 * ASCII as it is, every other character (UTF-8 or not) as '?'. */
void sinew_render_text(sinew_image *image, int x, int y, const char *text, int scale, uint8_t r,
                       uint8_t g, uint8_t b);

/* The heat colour scale: t in [0, 1] from blue (0) through green and yellow to red (1);
 * values outside are clamped. Writes RGB in [0, 1]. */
void sinew_render_heat_color(float t, float rgb[3]);

/* Writes the image as a PNG, whole or not at all (sinew_file_write_atomic). */
sinew_result sinew_render_write_png(const sinew_image *image, const char *path, sinew_error *err);
/* How sinew_render_encode_png allocates; zeroed (or NULL): defaults. */
typedef struct sinew_png_options {
    const sinew_allocator *allocator; /* what the PNG bytes are allocated with (recorded in
                                         them for sinew_bytes_free); default: malloc */
} sinew_png_options;

/* The same PNG in memory: on success `out` holds it (free it with sinew_bytes_free); on
 * failure `out` is zeroed. The encoder's own scratch is malloc's. */
sinew_result sinew_render_encode_png(const sinew_image *image, const sinew_png_options *options,
                                     sinew_bytes *out, sinew_error *err);

#ifdef __cplusplus
}
#endif
#endif
