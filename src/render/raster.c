/* Orthographic z-buffer rasteriser with two-sided Lambert shading, bones and a floor line. */
#include "sinew/render.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Camera basis: `right` and `up` span the image, `toward` points at the viewer. */
typedef struct basis {
    sinew_vec3 right, up, toward;
} basis;

static basis view_basis(sinew_render_view view)
{
    sinew_vec3 toward;
    switch (view) {
    case SINEW_VIEW_SIDE:
        toward = sinew_vec3_make(1, 0, 0);
        break;
    case SINEW_VIEW_THREE_QUARTER:
        toward =
            sinew_vec3_normalize_or(sinew_vec3_make(0.7f, 0.35f, 0.7f), sinew_vec3_make(0, 0, 1));
        break;
    default:
        toward = sinew_vec3_make(0, 0, 1);
        break;
    }
    basis b;
    b.toward = toward;
    b.right =
        sinew_vec3_normalize_or(sinew_vec3_make(toward.z, 0, -toward.x), sinew_vec3_make(1, 0, 0));
    b.up = sinew_vec3_cross(toward, b.right);
    return b;
}

/* The dot product in double: world coordinates near FLT_MAX overflow float sums. */
static double dot_d(const double d[3], sinew_vec3 axis)
{
    return d[0] * axis.x + d[1] * axis.y + d[2] * axis.z;
}

static int is_finite_point(sinew_vec3 p)
{
    return isfinite(p.x) && isfinite(p.y) && isfinite(p.z);
}

sinew_render_camera sinew_render_frame(sinew_render_view view, const sinew_vec3 *points,
                                       uint32_t count, float aspect)
{
    basis b = view_basis(view);
    sinew_render_camera cam = {view, sinew_vec3_make(0, 0, 0), 1.0f};
    /* The box of the finite points (NaN or infinite ones, from hostile transforms, frame
     * nothing), in double so that its size cannot overflow. */
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    uint32_t used = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!is_finite_point(points[i])) continue;
        const double p[3] = {points[i].x, points[i].y, points[i].z};
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], p[k]);
            hi[k] = fmax(hi[k], p[k]);
        }
        used++;
    }
    if (used == 0) return cam;
    const double center[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
    cam.center = sinew_vec3_make((float)center[0], (float)center[1], (float)center[2]);
    double w = 0, h = 0; /* extents of the box's corners along right and up */
    for (int c = 0; c < 8; c++) {
        const double d[3] = {(c & 1 ? hi[0] : lo[0]) - center[0],
                             (c & 2 ? hi[1] : lo[1]) - center[1],
                             (c & 4 ? hi[2] : lo[2]) - center[2]};
        w = fmax(w, 2 * fabs(dot_d(d, b.right)));
        h = fmax(h, 2 * fabs(dot_d(d, b.up)));
    }
    if (!(aspect > 0)) aspect = 1;
    const double span = 1.1 * fmax(h, w / aspect);
    cam.span = span > 0 ? (float)fmin(span, FLT_MAX) : 1.0f;
    return cam;
}

void sinew_render_clear(sinew_image *image, uint8_t r, uint8_t g, uint8_t b)
{
    for (size_t i = 0; i < (size_t)image->width * image->height; i++) {
        uint8_t *p = &image->rgba[4 * i];
        p[0] = r, p[1] = g, p[2] = b, p[3] = 255;
    }
}

/* A point in viewport pixels (x right, y down) with depth toward the viewer. */
typedef struct screen_point {
    float x, y, z;
} screen_point;

typedef struct projector {
    basis b;
    sinew_vec3 center;
    float scale; /* pixels per world unit */
    float cx, cy;
} projector;

static projector make_projector(const sinew_render_camera *cam, sinew_viewport vp)
{
    projector p;
    p.b = view_basis(cam->view);
    p.center = cam->center;
    p.scale = (float)vp.height / cam->span;
    p.cx = 0.5f * (float)vp.width;
    p.cy = 0.5f * (float)vp.height;
    return p;
}

/* In double, so that a finite point far from the centre lands on a finite pixel. */
static screen_point project(const projector *p, sinew_vec3 world)
{
    const double d[3] = {(double)world.x - p->center.x, (double)world.y - p->center.y,
                         (double)world.z - p->center.z};
    screen_point s = {(float)(p->cx + dot_d(d, p->b.right) * p->scale),
                      (float)(p->cy - dot_d(d, p->b.up) * p->scale), (float)dot_d(d, p->b.toward)};
    return s;
}

/* Pixels beyond the viewport a drawn point may lie: far more than a framed picture needs,
 * little enough that every pixel coordinate converts to int and edge products stay finite. */
#define GUARD_PIXELS 16777216.0f

/* 1 when `s` is finite and within the guard band: only such points are rasterised (a NaN or
 * a huge coordinate converted to int is undefined behaviour). */
static int drawable(screen_point s, sinew_viewport vp)
{
    return isfinite(s.z) && s.x >= -GUARD_PIXELS && s.y >= -GUARD_PIXELS &&
           s.x <= (float)vp.width + GUARD_PIXELS && s.y <= (float)vp.height + GUARD_PIXELS;
}

static void put_pixel(sinew_image *img, sinew_viewport vp, int x, int y, const float rgb[3])
{
    if (x < 0 || y < 0 || x >= (int)vp.width || y >= (int)vp.height) return;
    uint8_t *px = &img->rgba[4 * ((size_t)(vp.y + (uint32_t)y) * img->width + vp.x + (uint32_t)x)];
    for (int c = 0; c < 3; c++) {
        float v = rgb[c] > 0 ? (rgb[c] < 1 ? rgb[c] : 1) : 0; /* NaN reads as 0 */
        px[c] = (uint8_t)(v * 255.0f + 0.5f);
    }
    px[3] = 255;
}

static float edge(screen_point a, screen_point b, float x, float y)
{
    return (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
}

static void vertex_color(const sinew_render_scene *s, uint32_t v, float out[3])
{
    if (s->colors) {
        memcpy(out, &s->colors[3 * (size_t)v], 3 * sizeof(float));
    } else {
        out[0] = 0.78f, out[1] = 0.74f, out[2] = 0.68f; /* clay */
    }
    if (s->highlight && s->highlight[v]) {
        out[0] = 0.95f, out[1] = 0.55f, out[2] = 0.15f;
    }
}

static void draw_triangle(sinew_image *img, sinew_viewport vp, float *depth,
                          const screen_point p[3], float col[3][3], float shade)
{
    if (!drawable(p[0], vp) || !drawable(p[1], vp) || !drawable(p[2], vp)) return;
    float area = edge(p[0], p[1], p[2].x, p[2].y);
    if (!(fabsf(area) >= 1e-12f)) return;
    /* The box clamped to the viewport while still float, then converted. */
    const float right = (float)vp.width - 1, bottom = (float)vp.height - 1;
    int x0 = (int)fmaxf(floorf(fminf(p[0].x, fminf(p[1].x, p[2].x))), 0);
    int x1 = (int)fminf(ceilf(fmaxf(p[0].x, fmaxf(p[1].x, p[2].x))), right);
    int y0 = (int)fmaxf(floorf(fminf(p[0].y, fminf(p[1].y, p[2].y))), 0);
    int y1 = (int)fminf(ceilf(fmaxf(p[0].y, fmaxf(p[1].y, p[2].y))), bottom);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            float px = (float)x + 0.5f, py = (float)y + 0.5f;
            float w0 = edge(p[1], p[2], px, py) / area, w1 = edge(p[2], p[0], px, py) / area;
            float w2 = 1 - w0 - w1;
            if (w0 < 0 || w1 < 0 || w2 < 0) continue;
            float z = w0 * p[0].z + w1 * p[1].z + w2 * p[2].z;
            float *d = &depth[(size_t)y * vp.width + (size_t)x];
            if (z <= *d) continue;
            *d = z;
            float rgb[3];
            for (int c = 0; c < 3; c++)
                rgb[c] = shade * (w0 * col[0][c] + w1 * col[1][c] + w2 * col[2][c]);
            put_pixel(img, vp, x, y, rgb);
        }
}

static void draw_line(sinew_image *img, sinew_viewport vp, screen_point a, screen_point b,
                      const float rgb[3], int thickness)
{
    if (!drawable(a, vp) || !drawable(b, vp)) return;
    float dx = b.x - a.x, dy = b.y - a.y, length = fmaxf(fabsf(dx), fabsf(dy));
    if (length > 100000) return; /* off-screen nonsense */
    int steps = (int)ceilf(length) + 1;
    for (int i = 0; i <= steps; i++) {
        float t = (float)i / (float)steps;
        int x = (int)floorf(a.x + dx * t), y = (int)floorf(a.y + dy * t);
        for (int oy = -thickness / 2; oy <= thickness / 2; oy++)
            for (int ox = -thickness / 2; ox <= thickness / 2; ox++)
                put_pixel(img, vp, x + ox, y + oy, rgb);
    }
}

static void draw_bones(sinew_image *img, sinew_viewport vp, const projector *pr,
                       const sinew_render_scene *s)
{
    const sinew_model *m = s->model;
    const float bone[3] = {0.1f, 0.45f, 0.95f}, joint[3] = {1, 1, 1};
    for (uint32_t i = 0; i < m->node_count; i++) {
        if (m->nodes[i].joint < 0) continue;
        int32_t p = m->nodes[i].parent;
        while (p >= 0 && m->nodes[p].joint < 0)
            p = m->nodes[p].parent;
        if (p < 0) continue;
        draw_line(img, vp, project(pr, sinew_mat4_translation(&s->world[p])),
                  project(pr, sinew_mat4_translation(&s->world[i])), bone, 3);
    }
    for (uint32_t i = 0; i < m->node_count; i++) {
        if (m->nodes[i].joint < 0) continue;
        screen_point c = project(pr, sinew_mat4_translation(&s->world[i]));
        draw_line(img, vp, c, c, joint, 5);
    }
}

void sinew_render_draw(sinew_image *image, sinew_viewport vp, const sinew_render_camera *camera,
                       const sinew_render_scene *s, float *depth)
{
    projector pr = make_projector(camera, vp);
    for (size_t i = 0; i < (size_t)vp.width * vp.height; i++)
        depth[i] = -FLT_MAX;
    /* Light from the viewer's upper left, so faces toward the camera are bright. */
    sinew_vec3 light = sinew_vec3_normalize_or(
        sinew_vec3_add(sinew_vec3_add(pr.b.toward, sinew_vec3_scale(pr.b.up, 0.6f)),
                       sinew_vec3_scale(pr.b.right, -0.4f)),
        pr.b.toward);
    if (s->show_floor) {
        const float floor_rgb[3] = {0.45f, 0.42f, 0.38f};
        sinew_vec3 on_floor = sinew_vec3_make(camera->center.x, s->floor_y, camera->center.z);
        screen_point c = project(&pr, on_floor);
        screen_point a = {0, c.y, 0}, b = {(float)vp.width, c.y, 0};
        draw_line(image, vp, a, b, floor_rgb, 2);
    }
    const sinew_mesh *mesh = &s->model->mesh;
    for (uint32_t t = 0; t < mesh->triangle_count; t++) {
        const uint32_t *tri = &mesh->triangles[3 * t];
        sinew_vec3 w[3] = {s->positions[tri[0]], s->positions[tri[1]], s->positions[tri[2]]};
        sinew_vec3 n = sinew_vec3_normalize_or(
            sinew_vec3_cross(sinew_vec3_sub(w[1], w[0]), sinew_vec3_sub(w[2], w[0])),
            sinew_vec3_make(0, 0, 0));
        float shade = 0.3f + 0.7f * fabsf(sinew_vec3_dot(n, light));
        screen_point p[3];
        float col[3][3];
        for (int k = 0; k < 3; k++) {
            p[k] = project(&pr, w[k]);
            vertex_color(s, tri[k], col[k]);
        }
        draw_triangle(image, vp, depth, p, col, shade);
    }
    if (s->world) draw_bones(image, vp, &pr, s);
}

void sinew_render_heat_color(float t, float rgb[3])
{
    /* Piecewise linear through blue, cyan, green, yellow, red. */
    static const float stops[5][3] = {{0.15f, 0.25f, 0.95f},
                                      {0.1f, 0.8f, 0.95f},
                                      {0.2f, 0.85f, 0.3f},
                                      {0.98f, 0.85f, 0.15f},
                                      {0.9f, 0.12f, 0.1f}};
    if (!(t > 0)) t = 0;
    if (t > 1) t = 1;
    float s = t * 4;
    int i = (int)s;
    if (i > 3) i = 3;
    float f = s - (float)i;
    for (int c = 0; c < 3; c++)
        rgb[c] = stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f;
}
