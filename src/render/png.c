/* PNG output through stb_image_write (Debian libstb-dev): encoded in memory, then written
 * whole or not at all (sinew/file.h). */
#include "sinew/file.h"
#include "sinew/render.h"

#include <stdlib.h>
#include <string.h>

#include <stb/stb_image_write.h>

typedef struct png_bytes {
    sinew_allocator alloc; /* the output's */
    unsigned char *data;
    size_t size, capacity;
    int failed;
} png_bytes;

static void append(void *context, void *data, int size)
{
    png_bytes *b = context;
    if (b->failed || size <= 0) return;
    if (b->size + (size_t)size > b->capacity) {
        size_t cap = b->capacity ? b->capacity : 1 << 16;
        while (cap < b->size + (size_t)size)
            cap *= 2;
        unsigned char *grown = sinew_realloc(&b->alloc, b->data, b->capacity, cap, 1);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->capacity = cap;
    }
    memcpy(b->data + b->size, data, (size_t)size);
    b->size += (size_t)size;
}

sinew_result sinew_render_encode_png(const sinew_image *image, const sinew_png_options *options,
                                     sinew_bytes *out, sinew_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!image || !out || !image->rgba)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_render_encode_png: NULL");
    png_bytes b = {0};
    if (options && options->allocator) b.alloc = *options->allocator;
    int ok = stbi_write_png_to_func(append, &b, (int)image->width, (int)image->height, 4,
                                    image->rgba, (int)image->width * 4);
    if (!ok || b.failed) {
        sinew_free(&b.alloc, b.data);
        return sinew_error_set(err, b.failed ? SINEW_ERR_OUT_OF_MEMORY : SINEW_ERR_INTERNAL,
                               "PNG encoder failed (%ux%u picture)", image->width, image->height);
    }
    out->data = b.data;
    out->size = b.size;
    out->allocator = b.alloc;
    return SINEW_OK;
}

sinew_result sinew_render_write_png(const sinew_image *image, const char *path, sinew_error *err)
{
    sinew_bytes bytes;
    sinew_result r = sinew_render_encode_png(image, NULL, &bytes, err);
    if (r == SINEW_OK) r = sinew_file_write_atomic(path, bytes.data, bytes.size, err);
    sinew_bytes_free(&bytes);
    return r;
}
