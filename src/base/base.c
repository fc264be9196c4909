/* Results, error messages and the optional allocator. */
#include "sinew/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sinew_result sinew_error_set(sinew_error *err, sinew_result code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

const char *sinew_result_name(sinew_result code)
{
    switch (code) {
    case SINEW_OK:
        return "ok";
    case SINEW_ERR_IO:
        return "i/o error";
    case SINEW_ERR_FORMAT:
        return "format error";
    case SINEW_ERR_UNSUPPORTED:
        return "unsupported";
    case SINEW_ERR_INVALID_VALUE:
        return "invalid value";
    case SINEW_ERR_ARGUMENT:
        return "bad argument";
    case SINEW_ERR_NOT_FOUND:
        return "not found";
    case SINEW_ERR_OUT_OF_MEMORY:
        return "out of memory";
    case SINEW_ERR_INTERNAL:
        return "internal error";
    }
    return "unknown error";
}

static int multiply_overflows(size_t count, size_t size, size_t *bytes)
{
    if (size != 0 && count > SIZE_MAX / size) return 1;
    *bytes = count * size;
    return 0;
}

void *sinew_alloc(const sinew_allocator *a, size_t count, size_t size)
{
    size_t bytes;
    if (multiply_overflows(count, size, &bytes)) return NULL;
    if (bytes == 0) bytes = 1;
    void *p = (a && a->alloc_fn) ? a->alloc_fn(a->user, bytes) : malloc(bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

void *sinew_realloc(const sinew_allocator *a, void *ptr, size_t old_count, size_t new_count,
                    size_t size)
{
    size_t old_bytes, new_bytes;
    if (multiply_overflows(old_count, size, &old_bytes)) return NULL;
    if (multiply_overflows(new_count, size, &new_bytes)) return NULL;
    if (new_bytes == 0) new_bytes = 1;
    void *p;
    if (a && a->realloc_fn) {
        p = a->realloc_fn(a->user, ptr, old_bytes, new_bytes);
    } else if (a && a->alloc_fn) {
        /* An allocator without realloc: its own alloc, copy and free, never libc's realloc on
         * memory libc did not give. */
        p = a->alloc_fn(a->user, new_bytes);
        if (p && ptr) {
            memcpy(p, ptr, old_bytes < new_bytes ? old_bytes : new_bytes);
            sinew_free(a, ptr);
        }
    } else {
        p = realloc(ptr, new_bytes);
    }
    if (p && new_bytes > old_bytes) memset((char *)p + old_bytes, 0, new_bytes - old_bytes);
    return p;
}

void sinew_free(const sinew_allocator *a, void *ptr)
{
    if (!ptr) return;
    if (a && a->free_fn)
        a->free_fn(a->user, ptr);
    else
        free(ptr);
}

void sinew_bytes_free(sinew_bytes *bytes)
{
    if (!bytes) return;
    sinew_free(&bytes->allocator, bytes->data);
    memset(bytes, 0, sizeof *bytes);
}
