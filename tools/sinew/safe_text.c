/* Strings from files made safe to print on a terminal (see safe_text.h). */
#include "safe_text.h"

#include <stdio.h>
#include <string.h>

#include "sinew/base.h"

/* 1 when a decoded character would act on the terminal instead of showing. */
static int is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

size_t safe_text_write(char *out, size_t cap, const char *text, int width, int clip)
{
    static const char more[] = "...";
    if (cap == 0) return 0;
    if (!text) text = "";
    const size_t n = strlen(text);
    size_t len = 0, mark_len = 0; /* mark: the last cut where "..." still fits */
    int chars = 0, mark_chars = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        const size_t step = sinew_utf8_decode(text + i, n - i, &cp);
        const int escape = cp == SINEW_UTF8_INVALID || is_control(cp);
        const int piece_chars = escape ? 4 * (int)step : 1;
        const size_t piece_bytes = escape ? 4 * step : step;
        if (clip && chars + piece_chars > width) break;
        if (len + piece_bytes + 1 > cap) {
            /* Out of room: cut at the mark and say so (a cell is cut silently, as %.Ns is). */
            if (!clip && mark_len + sizeof more <= cap) {
                memcpy(out + mark_len, more, sizeof more - 1);
                len = mark_len + sizeof more - 1;
                chars = mark_chars + 3;
            }
            break;
        }
        if (len + sizeof more <= cap) {
            mark_len = len;
            mark_chars = chars;
        }
        if (escape)
            for (size_t k = 0; k < step; k++)
                snprintf(out + len + 4 * k, 5, "\\x%02x", (unsigned char)text[i + k]);
        else
            memcpy(out + len, text + i, step);
        len += piece_bytes;
        chars += piece_chars;
        i += step;
    }
    while (chars < width && len + 1 < cap) {
        out[len++] = ' ';
        chars++;
    }
    out[len] = 0;
    return len;
}

safe_text_buf safe_text(const char *text)
{
    safe_text_buf b;
    safe_text_write(b.s, sizeof b.s, text, 0, 0);
    return b;
}

safe_text_buf safe_text_pad(const char *text, int width)
{
    safe_text_buf b;
    safe_text_write(b.s, sizeof b.s, text, width, 0);
    return b;
}

safe_text_buf safe_text_cell(const char *text, int width)
{
    safe_text_buf b;
    safe_text_write(b.s, sizeof b.s, text, width, 1);
    return b;
}
