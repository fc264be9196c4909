/* The rasteriser on what hostile files give it: labels of any bytes draw only glyphs the font
 * has, and points at 1e30, near FLT_MAX, infinite or NaN leave a finite camera and no
 * undefined behaviour (the sanitised build checks every float-to-int conversion here). */
#include "test_util.h"

#include <float.h>
#include <math.h>

#include "sinew/render.h"

enum { W = 96, H = 32 };

/* The pixels of `text` drawn alone (malloc'd RGBA, free it). */
static uint8_t *draw_label(const char *text)
{
    sinew_image img = {W, H, malloc(W * H * 4)};
    assert_non_null(img.rgba);
    sinew_render_clear(&img, 255, 255, 255);
    sinew_render_text(&img, 2, 2, text, 1, 0, 0, 0);
    return img.rgba;
}

static void test_labels_draw_printable_ascii_only(void **state)
{
    (void)state;
    /* Controls, DEL, an accented letter, a CJK one, a C1 control and lone bytes: one '?' each
     * (a character, not a byte), drawn as the font's own '?'. */
    uint8_t *hostile = draw_label("a\x1b\x7f\xc3\xa9\xe5\xb0\xbe\xc2\x9b\xff\x80z");
    uint8_t *plain = draw_label("a???????z");
    assert_memory_equal(hostile, plain, W * H * 4);
    free(hostile);
    free(plain);
}

static void assert_finite_camera(const sinew_render_camera *cam)
{
    assert_true(isfinite(cam->center.x) && isfinite(cam->center.y) && isfinite(cam->center.z));
    assert_true(isfinite(cam->span) && cam->span > 0);
}

static void test_framing_ignores_non_finite_points(void **state)
{
    (void)state;
    const sinew_vec3 far[2] = {{-3e38f, -3e38f, -3e38f}, {3e38f, 3e38f, 3e38f}};
    for (int view = SINEW_VIEW_FRONT; view <= SINEW_VIEW_THREE_QUARTER; view++) {
        sinew_render_camera cam = sinew_render_frame((sinew_render_view)view, far, 2, 1.0f);
        assert_finite_camera(&cam); /* its size overflows float: the span stops at FLT_MAX */
    }
    const sinew_vec3 mixed[3] = {{NAN, 0, 0}, {0, 0, 0}, {INFINITY, 1, 1}};
    sinew_render_camera cam = sinew_render_frame(SINEW_VIEW_FRONT, mixed, 3, 1.0f);
    assert_finite_camera(&cam);
    assert_true(cam.center.x == 0 && cam.center.y == 0); /* only the finite point framed */
}

/* One triangle of every combination of hostile coordinates, drawn with the floor at each. */
static void test_hostile_points_draw_without_undefined_behaviour(void **state)
{
    (void)state;
    static const float v[] = {0, 1, -1e30f, 1e30f, -3e38f, 3e38f, INFINITY, -INFINITY, NAN};
    const int n = (int)(sizeof v / sizeof v[0]);
    uint32_t tri[3] = {0, 1, 2};
    sinew_model m;
    memset(&m, 0, sizeof m);
    m.mesh.vertex_count = 3;
    m.mesh.triangle_count = 1;
    m.mesh.triangles = tri;
    sinew_image img = {W, H, malloc(W * H * 4)};
    float *depth = malloc(W * H * sizeof *depth);
    assert_non_null(img.rgba);
    assert_non_null(depth);
    sinew_viewport vp = {0, 0, W, H};
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            const sinew_vec3 p[3] = {{0, 0, 0}, {v[a], 1, 0}, {1, v[b], v[a]}};
            const sinew_render_camera framed = sinew_render_frame(SINEW_VIEW_THREE_QUARTER, p, 3,
                                                                  (float)W / H),
                                      fixed = {SINEW_VIEW_FRONT, {0, 0, 0}, 1.0f};
            const sinew_render_camera *cams[2] = {&framed, &fixed};
            for (int c = 0; c < 2; c++) {
                sinew_render_scene s = {&m, p, NULL, NULL, NULL, 1, v[b]};
                sinew_render_draw(&img, vp, cams[c], &s, depth);
            }
        }
    free(depth);
    free(img.rgba);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_labels_draw_printable_ascii_only),
        cmocka_unit_test(test_framing_ignores_non_finite_points),
        cmocka_unit_test(test_hostile_points_draw_without_undefined_behaviour),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
