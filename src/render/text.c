/* Text labels through stb_easy_font (Debian libstb-dev), drawn as filled quads. */
#include "sinew/render.h"

#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* `text` as stb_easy_font can draw it, into out[size]: its glyph table covers printable ASCII
 * (0x20..0x7E) only and is indexed by the byte, so any other character (a control, an accented
 * or CJK letter, each part that is not UTF-8) is drawn as one '?'. */
static void printable_ascii(const char *text, char *out, size_t size)
{
    size_t n = strlen(text), o = 0;
    for (size_t i = 0; i < n && o + 1 < size;) {
        uint32_t cp;
        i += sinew_utf8_decode(text + i, n - i, &cp);
        out[o++] = cp >= 0x20 && cp <= 0x7E ? (char)cp : '?';
    }
    out[o] = 0;
}

void sinew_render_text(sinew_image *image, int x, int y, const char *text, int scale, uint8_t r,
                       uint8_t g, uint8_t b)
{
    /* stb_easy_font emits quads of 4 vertices, 16 bytes each (x, y, z, rgba). */
    static const size_t vertex_bytes = 16;
    char buffer[64 * 1024];
    char copy[256];
    printable_ascii(text ? text : "", copy, sizeof copy);
    int quads = stb_easy_font_print(0, 0, copy, NULL, buffer, (int)sizeof buffer);
    for (int q = 0; q < quads; q++) {
        float v0[2], v2[2];
        memcpy(v0, buffer + (size_t)(4 * q) * vertex_bytes, sizeof v0);
        memcpy(v2, buffer + (size_t)(4 * q + 2) * vertex_bytes, sizeof v2);
        int qx0 = x + (int)v0[0] * scale, qy0 = y + (int)v0[1] * scale;
        int qx1 = x + (int)v2[0] * scale, qy1 = y + (int)v2[1] * scale;
        for (int py = qy0; py < qy1; py++)
            for (int px = qx0; px < qx1; px++) {
                if (px < 0 || py < 0 || px >= (int)image->width || py >= (int)image->height)
                    continue;
                uint8_t *p = &image->rgba[4 * ((size_t)py * image->width + (size_t)px)];
                p[0] = r, p[1] = g, p[2] = b, p[3] = 255;
            }
    }
}
