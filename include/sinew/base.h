/* sinew: results, errors, allocators and the conventions every module shares.
 *
 * Conventions (written once, here):
 *   - Matrices are 4x4, column-major: m[col * 4 + row], as in glTF.
 *   - Quaternions are x, y, z, w (w scalar), unit length, right-handed.
 *   - Y is up. Lengths are in the file's own units (glTF says metres; real files
 *     ignore it), so every threshold is relative to the model's size.
 *   - Time in seconds, angles in radians inside the library and degrees at the CLI.
 *   - Arrays are a pointer plus a count. Options structs zero-initialised mean defaults.
 *   - Every call that can fail returns a sinew_result and, when `err` is not NULL,
 *     fills it with a message that names the file, the object and its index.
 *   - Per-frame calls never allocate: the caller passes buffers sized by a query.
 *   - Ownership: what a call returns records the allocator it was made with and is freed by
 *     the one sinew_<type>_free of its type (sinew_bytes_free, sinew_document_free,
 *     sinew_model_free, ...), which needs nothing else. The allocator comes from the call's
 *     options struct (`allocator`; NULL: malloc and free); a call on a model without options
 *     of its own uses the model's; the few calls with neither take it as a parameter
 *     (sinew_dyn_rig_create, the solve's correspondence and targets).
 *   - Deterministic: the same input gives the same bits. No globals, clocks or seeds.
 */
#ifndef SINEW_BASE_H
#define SINEW_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SINEW_VERSION_STRING "0.1.0"

typedef enum sinew_result {
    SINEW_OK = 0,
    SINEW_ERR_IO,            /* a file could not be opened, read or written */
    SINEW_ERR_FORMAT,        /* the input is malformed (bad JSON, bad GLB, out-of-range index) */
    SINEW_ERR_UNSUPPORTED,   /* valid input that sinew does not handle (e.g. Draco) */
    SINEW_ERR_INVALID_VALUE, /* NaN/Inf or otherwise unusable numbers in the input */
    SINEW_ERR_ARGUMENT,      /* the caller passed something unusable (usage error) */
    SINEW_ERR_NOT_FOUND,     /* a named clip, joint or object does not exist */
    SINEW_ERR_OUT_OF_MEMORY, /* an allocation failed or a count would overflow */
    SINEW_ERR_INTERNAL       /* a bug in sinew: please report it */
} sinew_result;

#define SINEW_ERROR_MESSAGE_MAX 512

/* What went wrong, for a person: "Fox.glb: accessor 12: byteOffset 4096 + 1200 bytes runs past
 * bufferView 3 (length 5000)". `code` repeats the returned result. */
typedef struct sinew_error {
    sinew_result code;
    char message[SINEW_ERROR_MESSAGE_MAX];
} sinew_error;

/* Fills `err` (when not NULL) with printf-style text and returns `code`, so that a failure
 * reads `return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: accessor %u: ...", ...);`. */
sinew_result sinew_error_set(sinew_error *err, sinew_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A short fixed name for a result, e.g. "format error". Never NULL. */
const char *sinew_result_name(sinew_result code);

/* Optional allocator for build and load code. A zeroed struct (or NULL pointer) means malloc,
 * realloc and free. `realloc_fn` receives the old size so that arena allocators can work;
 * without it, growing is alloc_fn, copy and free_fn.
 * A document's JSON tree is cJSON's, allocated through cJSON's own hooks (cJSON_InitHooks),
 * which are process-wide: sinew never sets them, so that an embedder's own cJSON use is left
 * as it was; an embedder that wants that memory elsewhere too sets them itself. */
typedef struct sinew_allocator {
    void *(*alloc_fn)(void *user, size_t size);
    void *(*realloc_fn)(void *user, void *ptr, size_t old_size, size_t new_size);
    void (*free_fn)(void *user, void *ptr);
    void *user;
} sinew_allocator;

/* Allocation through an optional allocator. sinew_alloc returns zeroed memory and NULL on
 * failure or when count * size overflows. */
void *sinew_alloc(const sinew_allocator *a, size_t count, size_t size);
void *sinew_realloc(const sinew_allocator *a, void *ptr, size_t old_count, size_t new_count,
                    size_t size);
void sinew_free(const sinew_allocator *a, void *ptr);

/* Bytes made for the caller: a serialised document (sinew_document_serialize), an encoded
 * picture (sinew_render_encode_png). `data` came from `allocator`; free it with
 * sinew_bytes_free. */
typedef struct sinew_bytes {
    void *data;
    size_t size;               /* bytes */
    sinew_allocator allocator; /* what data was allocated with */
} sinew_bytes;

/* Returns bytes->data to the allocator it came from and zeroes *bytes. NULL, and zeroed bytes,
 * are fine. */
void sinew_bytes_free(sinew_bytes *bytes);

/* UTF-8 as the Unicode Standard defines it well formed (section 3.9, table 3-7): no overlong
 * forms, no surrogates, nothing above U+10FFFF. glTF requires its JSON to be UTF-8; files in
 * the wild are not always. */
#define SINEW_UTF8_INVALID 0xFFFFFFFFu

/* Decodes the character at the start of text[0..n): returns the bytes it takes (1 to 4) and
 * sets *codepoint (when not NULL). Where text does not start with a well-formed sequence,
 * returns the length of its maximal subpart (the longest prefix that starts one, at least 1
 * byte: what one U+FFFD replaces, as section 3.9 recommends) and sets SINEW_UTF8_INVALID.
 * Returns 0 when n is 0. */
size_t sinew_utf8_decode(const char *text, size_t n, uint32_t *codepoint);

/* Copies the NUL-terminated `text` into out[cap] with each maximal subpart that is not UTF-8
 * replaced by U+FFFD, cut (when it does not fit) after the last whole character that does,
 * and NUL-terminated when cap > 0. Returns the length of the whole result without its NUL (a
 * call with cap 0 sizes the buffer); *replaced (when not NULL) gets the number of U+FFFDs. */
size_t sinew_utf8_repair(char *out, size_t cap, const char *text, uint32_t *replaced);

#ifdef __cplusplus
}
#endif
#endif
