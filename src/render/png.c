/* PNG output through stb_image_write (Debian libstb-dev): encoded in memory, then written
 * whole or not at all (sinew/file.h). */
#include "sinew/file.h"
#include "sinew/render.h"

#include <stdlib.h>
#include <string.h>

#include <stb/stb_image_write.h>

typedef struct png_bytes {
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
        unsigned char *grown = realloc(b->data, cap);
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

sinew_result sinew_render_encode_png(const sinew_image *image, void **out, size_t *size,
                                     sinew_error *err)
{
    if (out) *out = NULL;
    if (size) *size = 0;
    if (!image || !out || !size || !image->rgba)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_render_encode_png: NULL");
    png_bytes b = {0};
    int ok = stbi_write_png_to_func(append, &b, (int)image->width, (int)image->height, 4,
                                    image->rgba, (int)image->width * 4);
    if (!ok || b.failed) {
        free(b.data);
        return sinew_error_set(err, b.failed ? SINEW_ERR_OUT_OF_MEMORY : SINEW_ERR_INTERNAL,
                               "PNG encoder failed (%ux%u picture)", image->width, image->height);
    }
    *out = b.data;
    *size = b.size;
    return SINEW_OK;
}

sinew_result sinew_render_write_png(const sinew_image *image, const char *path, sinew_error *err)
{
    void *data;
    size_t size;
    sinew_result r = sinew_render_encode_png(image, &data, &size, err);
    if (r == SINEW_OK) r = sinew_file_write_atomic(path, data, size, err);
    free(data);
    return r;
}
