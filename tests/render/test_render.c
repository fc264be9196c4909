/* The rasteriser: deterministic, draws what is in front, frames what it is given, writes
 * PNGs atomically. */
#include "test_util.h"

#include "sinew/render.h"

/* A unit quad at depth z in front of a unit quad at depth -z (camera on +Z): the front one is
 * red, the back one blue. */
static sinew_model *two_quads(sinew_vec3 *pos, float *colors)
{
    static uint32_t tris[12] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
    sinew_model *m = sinew_alloc(NULL, 1, sizeof *m);
    m->mesh.vertex_count = 8;
    m->mesh.positions = pos;
    m->mesh.triangle_count = 4;
    m->mesh.triangles = tris;
    for (int q = 0; q < 2; q++) {
        float z = q ? -0.5f : 0.5f, s = q ? 1.0f : 0.5f; /* the back quad is bigger */
        pos[4 * q + 0] = sinew_vec3_make(-s, -s, z);
        pos[4 * q + 1] = sinew_vec3_make(s, -s, z);
        pos[4 * q + 2] = sinew_vec3_make(s, s, z);
        pos[4 * q + 3] = sinew_vec3_make(-s, s, z);
        for (int v = 0; v < 4; v++) {
            float *c = &colors[3 * (4 * q + v)];
            c[0] = q ? 0.0f : 1.0f, c[1] = 0, c[2] = q ? 1.0f : 0.0f;
        }
    }
    return m;
}

static void render(sinew_model *m, sinew_vec3 *pos, float *colors, sinew_image *img, float *depth)
{
    sinew_render_scene scene = {m, pos, colors, NULL, NULL, 0, 0};
    sinew_viewport vp = {0, 0, img->width, img->height};
    sinew_render_camera cam = sinew_render_frame(SINEW_VIEW_FRONT, pos, 8, 1.0f);
    sinew_render_clear(img, 255, 255, 255);
    sinew_render_draw(img, vp, &cam, &scene, depth);
}

static void test_depth_order_and_determinism(void **state)
{
    (void)state;
    sinew_vec3 pos[8];
    float colors[24], depth[64 * 64];
    uint8_t a[64 * 64 * 4], b[64 * 64 * 4];
    sinew_model *m = two_quads(pos, colors);
    sinew_image img = {64, 64, a};
    render(m, pos, colors, &img, depth);
    const uint8_t *centre = &a[4 * (32 * 64 + 32)], *edge = &a[4 * (32 * 64 + 8)];
    assert_true(centre[0] > 100 && centre[2] < 50); /* the near red quad hides the blue one */
    assert_true(edge[2] > 100 && edge[0] < 50);     /* the bigger blue quad shows around it */
    assert_int_equal(a[0], 255);                    /* the 10% margin stays background */
    sinew_image img2 = {64, 64, b};
    render(m, pos, colors, &img2, depth);
    assert_memory_equal(a, b, sizeof a);
    sinew_free(NULL, m);
}

static void test_heat_scale_ends(void **state)
{
    (void)state;
    float lo[3], hi[3], mid[3];
    sinew_render_heat_color(-1, lo);
    sinew_render_heat_color(2, hi);
    sinew_render_heat_color(0.5f, mid);
    assert_true(lo[2] > 0.8f && lo[0] < 0.3f); /* blue at 0 */
    assert_true(hi[0] > 0.8f && hi[2] < 0.3f); /* red at the top */
    assert_true(mid[1] > 0.7f);                /* green in the middle */
}

static void test_png_written_atomically(void **state)
{
    (void)state;
    char dir[256], path[512], out[256];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    uint8_t px[16 * 16 * 4];
    sinew_image img = {16, 16, px};
    sinew_render_clear(&img, 10, 20, 30);
    snprintf(path, sizeof path, "%s/a.png", dir);
    assert_int_equal(sinew_render_write_png(&img, path, NULL), SINEW_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char sig[8];
    assert_int_equal(fread(sig, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
    sinew_error err = {0};
    snprintf(path, sizeof path, "%s/missing/b.png", dir);
    assert_int_equal(sinew_render_write_png(&img, path, &err), SINEW_ERR_IO);
    assert_non_null(strstr(err.message, "missing/b.png"));
    /* Nothing but a.png is left in the folder: no temporary files. */
    assert_int_equal(test_run(out, sizeof out, "ls -A %s | wc -l", dir), 0);
    assert_int_equal(atoi(out), 1);
    test_run(NULL, 0, "rm -rf %s", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depth_order_and_determinism),
        cmocka_unit_test(test_heat_scale_ends),
        cmocka_unit_test(test_png_written_atomically),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
