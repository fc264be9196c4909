/* Strings from files and command lines, made safe to print on a terminal.
 *
 * Names, URIs, versions and paths come from files a user did not write. Printed byte for byte
 * they can drive the terminal (retitle the window, recolour, clear the screen: ESC and the C1
 * control CSI, 0x9B or C2 9B) or leave it mid-character. Every table and message the CLI prints
 * passes them through here: each C0 control (below 0x20), DEL (0x7F), each C1 control
 * (U+0080..U+009F, every byte of its UTF-8 form) and each byte of invalid UTF-8 is shown as the
 * four characters \xHH (lower-case hex); well-formed UTF-8 (accented names, CJK) is kept.
 * Widths count characters, never bytes, and text is only ever cut between characters. */
#ifndef SINEW_SAFE_TEXT_H
#define SINEW_SAFE_TEXT_H

#include <stddef.h>

/* Bytes of one safe string: longer text is cut after a whole character and ends in "...". */
#define SAFE_TEXT_MAX 1024

/* A safe copy by value, for use inside one printf call: printf("%s\n", safe_text(n).s).
 * (A returned struct lives until the end of the full expression that made it.) */
typedef struct safe_text_buf {
    char s[SAFE_TEXT_MAX];
} safe_text_buf;

/* Writes the safe form of `text` (NULL reads as "") into out[cap], NUL-terminated: padded
 * with spaces to `width` characters (0: no padding) and, when `clip`, cut to at most `width`
 * characters (an escape is never split: it is left out whole). Returns its length in bytes. */
size_t safe_text_write(char *out, size_t cap, const char *text, int width, int clip);

/* The safe form of `text`. */
safe_text_buf safe_text(const char *text);
/* The same padded to `width` characters, like %-Ns (longer text is kept whole). */
safe_text_buf safe_text_pad(const char *text, int width);
/* The same padded and cut to exactly `width` characters, like %-N.Ns. */
safe_text_buf safe_text_cell(const char *text, int width);

#endif
