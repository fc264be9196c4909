/* The GLB container (glTF 2.0 spec, section 4.4): 12-byte header, JSON chunk, optional BIN. */
#include <string.h>

#include "io/internal.h"

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int io_is_glb(const void *data, size_t size)
{
    return size >= 4 && le32(data) == GLB_MAGIC;
}

sinew_result io_glb_split(const sinew_document *doc, const uint8_t *data, size_t size,
                          const uint8_t **json, size_t *json_size, const uint8_t **bin,
                          size_t *bin_size, int *has_bin, sinew_error *err)
{
    *has_bin = 0;
    *bin = NULL;
    *bin_size = 0;
    if (size < 12)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: GLB header truncated (%zu bytes, need 12)", doc->name, size);
    if (le32(data) != GLB_MAGIC)
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: GLB magic is not \"glTF\"", doc->name);
    uint32_t version = le32(data + 4), length = le32(data + 8);
    if (version != 2)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "%s: GLB version %u is not supported (only 2)", doc->name, version);
    if (length > size)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: GLB header length %u exceeds the file size %zu (truncated?)",
                               doc->name, length, size);
    if (length < 20)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: GLB header length %u leaves no room for the JSON chunk",
                               doc->name, length);
    size_t pos = 12;
    int chunk = 0;
    *json = NULL;
    while (pos < length) {
        if (length - pos < 8)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: GLB chunk %d header truncated at byte %zu", doc->name,
                                   chunk, pos);
        uint32_t clen = le32(data + pos), ctype = le32(data + pos + 4);
        pos += 8;
        if (clen > length - pos)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: GLB chunk %d length %u runs past the end (%zu bytes left)",
                                   doc->name, chunk, clen, (size_t)(length - pos));
        if (chunk == 0) {
            if (ctype != GLB_JSON)
                return sinew_error_set(err, SINEW_ERR_FORMAT,
                                       "%s: GLB chunk 0 is type 0x%08x, not JSON", doc->name,
                                       ctype);
            if (clen == 0)
                return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: GLB JSON chunk is empty",
                                       doc->name);
            *json = data + pos;
            *json_size = clen;
        } else if (chunk == 1 && ctype == GLB_BIN) {
            *bin = data + pos;
            *bin_size = clen;
            *has_bin = 1;
        } else if (ctype == GLB_JSON || ctype == GLB_BIN) {
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: GLB chunk %d: a second %s chunk is not allowed", doc->name,
                                   chunk, ctype == GLB_JSON ? "JSON" : "BIN");
        } /* other chunk types are skipped, as the spec asks */
        pos += clen;
        chunk++;
    }
    if (!*json)
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: GLB has no JSON chunk", doc->name);
    return SINEW_OK;
}
