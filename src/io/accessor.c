/* Accessors (glTF 2.0 spec 3.6): every componentType, normalized integers, byteStride, matrix
 * column padding and sparse substitution. min/max are never trusted: values are read. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/internal.h"

uint32_t io_type_components(const char *type, uint32_t *rows)
{
    static const struct {
        const char *name;
        uint32_t n, rows;
    } types[] = {{"SCALAR", 1, 1}, {"VEC2", 2, 2}, {"VEC3", 3, 3}, {"VEC4", 4, 4},
                 {"MAT2", 4, 2},   {"MAT3", 9, 3}, {"MAT4", 16, 4}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (type && !strcmp(type, types[i].name)) {
            if (rows) *rows = types[i].rows;
            return types[i].n;
        }
    return 0;
}

static uint32_t component_size(uint32_t type)
{
    switch (type) {
    case IO_BYTE:
    case IO_UBYTE:
        return 1;
    case IO_SHORT:
    case IO_USHORT:
        return 2;
    case IO_UINT:
    case IO_FLOAT:
        return 4;
    default:
        return 0;
    }
}

/* Locates bufferView `view` and checks that [offset, offset + need) fits inside it. */
static sinew_result view_range(const sinew_document *doc, const char *ctx, int32_t view,
                               uint64_t offset, uint64_t need, const uint8_t **out, size_t *stride,
                               sinew_error *err)
{
    const cJSON *v = io_item(doc, IO_BUFFER_VIEWS, (uint32_t)view);
    uint64_t voff, vlen, vstride;
    int32_t buffer;
    char vctx[64];
    snprintf(vctx, sizeof vctx, "bufferView %d", view);
    sinew_result r;
    if ((r = io_get_index(doc, vctx, v, "buffer", "buffer", doc->buffer_count, 1, &buffer, err)) ||
        (r = io_get_uint(doc, vctx, v, "byteOffset", 0, (uint64_t)1 << 40, &voff, err)) ||
        (r = io_get_uint(doc, vctx, v, "byteLength", -1, (uint64_t)1 << 40, &vlen, err)) ||
        (r = io_get_uint(doc, vctx, v, "byteStride", 0, 252, &vstride, err)))
        return r;
    const io_buffer *b = &doc->buffers[buffer];
    if (voff + vlen > b->size)
        return sinew_error_set(
            err, SINEW_ERR_FORMAT, "%s: %s: range %llu+%llu exceeds buffer %d length %zu",
            doc->name, vctx, (unsigned long long)voff, (unsigned long long)vlen, buffer, b->size);
    if (offset + need > vlen)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: bufferView %d range %llu+%llu exceeds its length %llu",
                               doc->name, ctx, view, (unsigned long long)offset,
                               (unsigned long long)need, (unsigned long long)vlen);
    *out = b->data + voff + offset;
    if (stride) *stride = (size_t)vstride;
    return SINEW_OK;
}

sinew_result io_accessor_resolve(const sinew_document *doc, uint32_t index, io_accessor *out,
                                 sinew_error *err)
{
    memset(out, 0, sizeof *out);
    out->index = index;
    char ctx[64];
    snprintf(ctx, sizeof ctx, "accessor %u", index);
    const cJSON *a = io_item(doc, IO_ACCESSORS, index);
    if (!cJSON_IsObject(a))
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s is not an object", doc->name, ctx);
    uint64_t ctype, count, offset;
    int32_t view;
    sinew_result r;
    if ((r = io_get_uint(doc, ctx, a, "componentType", -1, 6000, &ctype, err)) ||
        (r = io_get_uint(doc, ctx, a, "count", -1, UINT32_MAX, &count, err)) ||
        (r = io_get_uint(doc, ctx, a, "byteOffset", 0, (uint64_t)1 << 40, &offset, err)) ||
        (r = io_get_index(doc, ctx, a, "bufferView", "bufferView", io_count(doc, IO_BUFFER_VIEWS),
                          0, &view, err)))
        return r;
    out->component_type = (uint32_t)ctype;
    out->component_size = component_size(out->component_type);
    if (!out->component_size)
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: unknown componentType %u", doc->name,
                               ctx, out->component_type);
    if (count == 0)
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: count is 0", doc->name, ctx);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "type");
    out->components =
        io_type_components(cJSON_IsString(type) ? type->valuestring : NULL, &out->rows);
    if (!out->components)
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: missing or unknown type", doc->name,
                               ctx);
    out->count = (uint32_t)count;
    out->normalized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "normalized"));
    /* Matrix columns start on 4-byte boundaries (spec 3.6.2.4): MAT2/MAT3 of bytes, MAT3 of
     * shorts are padded. */
    uint32_t col_raw = out->rows * out->component_size;
    uint32_t cols = out->components / out->rows;
    out->column_bytes = cols > 1 ? (col_raw + 3u) & ~3u : col_raw;
    uint64_t elem = (uint64_t)out->column_bytes * cols;
    if (view >= 0) {
        size_t vstride;
        const uint8_t *base;
        /* First find the view's stride, then check the whole range. */
        if ((r = view_range(doc, ctx, view, 0, 0, &base, &vstride, err))) return r;
        uint64_t stride = vstride ? vstride : elem;
        if (stride < elem)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: byteStride %llu of bufferView %d is smaller than the "
                                   "element size %llu",
                                   doc->name, ctx, (unsigned long long)stride, view,
                                   (unsigned long long)elem);
        uint64_t need = stride * (count - 1) + elem;
        if ((r = view_range(doc, ctx, view, offset, need, &out->data, NULL, err))) return r;
        out->stride = (size_t)stride;
    } else {
        /* Zeros the file does not store: a fault of the file, not of this machine. */
        if (count > IO_MAX_VIRTUAL_COUNT)
            return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                                   "%s: %s: count %llu without a bufferView is too large (sinew "
                                   "makes at most %u elements that the file does not store)",
                                   doc->name, ctx, (unsigned long long)count, IO_MAX_VIRTUAL_COUNT);
        out->stride = (size_t)elem;
    }
    const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(a, "sparse");
    if (sparse) {
        char sctx[80];
        snprintf(sctx, sizeof sctx, "accessor %u sparse", index);
        uint64_t scount, ioff, voff, ictype;
        int32_t iview, vview;
        const cJSON *ind = cJSON_GetObjectItemCaseSensitive(sparse, "indices");
        const cJSON *val = cJSON_GetObjectItemCaseSensitive(sparse, "values");
        uint32_t nviews = io_count(doc, IO_BUFFER_VIEWS);
        if ((r = io_get_uint(doc, sctx, sparse, "count", -1, count, &scount, err))) return r;
        if (!cJSON_IsObject(ind) || !cJSON_IsObject(val))
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: missing indices or values",
                                   doc->name, sctx);
        if ((r = io_get_index(doc, sctx, ind, "bufferView", "bufferView", nviews, 1, &iview,
                              err)) ||
            (r = io_get_uint(doc, sctx, ind, "byteOffset", 0, (uint64_t)1 << 40, &ioff, err)) ||
            (r = io_get_uint(doc, sctx, ind, "componentType", -1, 6000, &ictype, err)) ||
            (r = io_get_index(doc, sctx, val, "bufferView", "bufferView", nviews, 1, &vview,
                              err)) ||
            (r = io_get_uint(doc, sctx, val, "byteOffset", 0, (uint64_t)1 << 40, &voff, err)))
            return r;
        if (ictype != IO_UBYTE && ictype != IO_USHORT && ictype != IO_UINT)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: indices componentType %llu is not unsigned", doc->name,
                                   sctx, (unsigned long long)ictype);
        if (scount == 0)
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: count is 0", doc->name, sctx);
        out->sparse_count = (uint32_t)scount;
        out->sparse_index_size = component_size((uint32_t)ictype);
        out->sparse_stride = (size_t)elem;
        if ((r = view_range(doc, sctx, iview, ioff, scount * out->sparse_index_size,
                            &out->sparse_indices, NULL, err)) ||
            (r = view_range(doc, sctx, vview, voff, scount * elem, &out->sparse_values, NULL, err)))
            return r;
        uint64_t prev = 0;
        for (uint32_t i = 0; i < out->sparse_count; i++) {
            const uint8_t *p = out->sparse_indices + (size_t)i * out->sparse_index_size;
            uint64_t v = out->sparse_index_size == 1 ? p[0]
                         : out->sparse_index_size == 2
                             ? (uint64_t)(p[0] | p[1] << 8)
                             : (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
                                   (uint64_t)p[3] << 24;
            if (v >= count)
                return sinew_error_set(
                    err, SINEW_ERR_FORMAT, "%s: %s: index %u is %llu, past the accessor count %llu",
                    doc->name, sctx, i, (unsigned long long)v, (unsigned long long)count);
            if (i > 0 && v <= prev)
                return sinew_error_set(err, SINEW_ERR_FORMAT,
                                       "%s: %s: indices are not strictly increasing at %u",
                                       doc->name, sctx, i);
            prev = v;
        }
    }
    return SINEW_OK;
}

/* Component c of the element at p, as a float (dequantised when normalized, spec 3.11). */
static float read_component(const io_accessor *a, const uint8_t *elem, uint32_t c)
{
    const uint8_t *p = elem + (c / a->rows) * a->column_bytes + (c % a->rows) * a->component_size;
    switch (a->component_type) {
    case IO_BYTE: {
        int8_t v = (int8_t)p[0];
        return a->normalized ? fmaxf((float)v / 127.0f, -1.0f) : (float)v;
    }
    case IO_UBYTE:
        return a->normalized ? (float)p[0] / 255.0f : (float)p[0];
    case IO_SHORT: {
        int16_t v;
        memcpy(&v, p, 2);
        return a->normalized ? fmaxf((float)v / 32767.0f, -1.0f) : (float)v;
    }
    case IO_USHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return a->normalized ? (float)v / 65535.0f : (float)v;
    }
    case IO_UINT: {
        uint32_t v;
        memcpy(&v, p, 4);
        return a->normalized ? (float)((double)v / 4294967295.0) : (float)v;
    }
    default: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

static uint32_t read_uint(const io_accessor *a, const uint8_t *elem, uint32_t c)
{
    const uint8_t *p = elem + (c / a->rows) * a->column_bytes + (c % a->rows) * a->component_size;
    switch (a->component_type) {
    case IO_UBYTE:
        return p[0];
    case IO_USHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case IO_UINT: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        float f = read_component(a, elem, c);
        return f > 0.0f && f < 4294967295.0f ? (uint32_t)f : 0u;
    }
    }
}

static uint32_t sparse_index(const io_accessor *a, uint32_t i)
{
    const uint8_t *p = a->sparse_indices + (size_t)i * a->sparse_index_size;
    if (a->sparse_index_size == 1) return p[0];
    if (a->sparse_index_size == 2) return (uint32_t)(p[0] | p[1] << 8);
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void io_accessor_read_float(const io_accessor *a, float *out)
{
    uint32_t n = a->components;
    for (uint32_t i = 0; i < a->count; i++)
        for (uint32_t c = 0; c < n; c++)
            out[(size_t)i * n + c] = a->data ? read_component(a, a->data + i * a->stride, c) : 0;
    for (uint32_t s = 0; s < a->sparse_count; s++) {
        uint32_t i = sparse_index(a, s);
        for (uint32_t c = 0; c < n; c++)
            out[(size_t)i * n + c] = read_component(a, a->sparse_values + s * a->sparse_stride, c);
    }
}

void io_accessor_read_u32(const io_accessor *a, uint32_t *out)
{
    uint32_t n = a->components;
    for (uint32_t i = 0; i < a->count; i++)
        for (uint32_t c = 0; c < n; c++)
            out[(size_t)i * n + c] = a->data ? read_uint(a, a->data + i * a->stride, c) : 0;
    for (uint32_t s = 0; s < a->sparse_count; s++) {
        uint32_t i = sparse_index(a, s);
        for (uint32_t c = 0; c < n; c++)
            out[(size_t)i * n + c] = read_uint(a, a->sparse_values + s * a->sparse_stride, c);
    }
}
