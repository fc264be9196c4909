/* UTF-8 decoding and repair, as the Unicode Standard defines well-formed UTF-8 (chapter 3,
 * section 3.9, table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF. */
#include "sinew/base.h"

#include <string.h>

/* The range of the second byte after lead byte `b` (table 3-7); 0 when b leads nothing. */
static int second_byte_range(unsigned char b, unsigned char *lo, unsigned char *hi)
{
    *lo = 0x80, *hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) return 2;
    if (b == 0xE0) *lo = 0xA0;
    if (b == 0xED) *hi = 0x9F; /* D800..DFFF are surrogates */
    if (b >= 0xE0 && b <= 0xEF) return 3;
    if (b == 0xF0) *lo = 0x90;
    if (b == 0xF4) *hi = 0x8F; /* above U+10FFFF */
    if (b >= 0xF0 && b <= 0xF4) return 4;
    return 0;
}

size_t sinew_utf8_decode(const char *text, size_t n, uint32_t *codepoint)
{
    const unsigned char *s = (const unsigned char *)text;
    uint32_t dummy;
    if (!codepoint) codepoint = &dummy;
    *codepoint = SINEW_UTF8_INVALID;
    if (n == 0) return 0;
    if (s[0] < 0x80) {
        *codepoint = s[0];
        return 1;
    }
    unsigned char lo, hi;
    size_t len = (size_t)second_byte_range(s[0], &lo, &hi);
    if (len == 0) return 1; /* a continuation byte or C0, C1, F5..FF: never a lead */
    uint32_t cp = s[0] & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        /* The maximal subpart ends at the first byte that cannot continue the sequence. */
        if (i >= n || s[i] < lo || s[i] > hi) return i;
        cp = cp << 6 | (s[i] & 0x3Fu);
        lo = 0x80, hi = 0xBF;
    }
    *codepoint = cp;
    return len;
}

size_t sinew_utf8_repair(char *out, size_t cap, const char *text, uint32_t *replaced)
{
    static const char fffd[3] = {(char)0xEF, (char)0xBF, (char)0xBD};
    size_t n = strlen(text), need = 0, kept = 0;
    uint32_t count = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = sinew_utf8_decode(text + i, n - i, &cp);
        const int bad = cp == SINEW_UTF8_INVALID;
        const size_t piece_len = bad ? sizeof fffd : len;
        /* Whole characters only: once one does not fit, nothing after it is copied. */
        if (kept == need && need + piece_len < cap) {
            memcpy(out + need, bad ? fffd : text + i, piece_len);
            kept += piece_len;
        }
        need += piece_len;
        count += (uint32_t)bad;
        i += len;
    }
    if (cap) out[kept] = 0;
    if (replaced) *replaced = count;
    return need;
}
