/* KHR_draco_mesh_compression: a primitive whose indices and attributes are one Draco buffer.
 * Decoded on load (draco_shim.cpp, Debian's libdraco) into new bufferViews of the accessors
 * the primitive already names, which keep their componentType, type and count; the
 * extension is then dropped, so the document holds and writes plain data. */
#include <stdio.h>
#include <string.h>

#include "io/draco.h"
#include "io/internal.h"

static const char ext_name[] = "KHR_draco_mesh_compression";

/* The decoded data of one accessor as a new view; `decoded_by[accessor]` holds 1 + the Draco
 * bufferView that filled it, so an accessor two primitives share is decoded from one Draco
 * buffer only. */
typedef struct draco_ctx {
    sinew_document *doc;
    char where[64]; /* "mesh 2 primitive 0" */
    int32_t *decoded_by;
    int32_t draco_view;
    uint64_t budget, held;
} draco_ctx;

static sinew_result fail(const draco_ctx *c, sinew_error *err, const char *what)
{
    return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: %s %s", c->doc->name, c->where, ext_name,
                           what);
}

/* Accessor `index` gets `bytes` as its data, unless this Draco buffer filled it already. */
static sinew_result attach(draco_ctx *c, uint32_t index, const void *bytes, size_t size,
                           sinew_error *err)
{
    if (c->decoded_by[index] == c->draco_view + 1) return SINEW_OK;
    if (c->decoded_by[index])
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: accessor %u is decoded from two different %s buffers",
                               c->doc->name, c->where, index, ext_name);
    int32_t view = io_add_view(c->doc, bytes, size);
    if (view < 0)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", c->doc->name);
    c->doc->decoded_bytes += size;
    cJSON *acc = io_item(c->doc, IO_ACCESSORS, index);
    io_set(acc, "bufferView", cJSON_CreateNumber(view));
    cJSON_DeleteItemFromObjectCaseSensitive(acc, "byteOffset");
    c->decoded_by[index] = c->draco_view + 1;
    return SINEW_OK;
}

/* Counts the decoded bytes against the file's expansion budget before they are allocated. */
static sinew_result take(draco_ctx *c, uint64_t bytes, sinew_error *err)
{
    c->held += bytes;
    if (c->held <= c->budget) return SINEW_OK;
    return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                           "%s: %s: %s data would decode to %llu MB (at most 16x the binary data "
                           "plus 64 MB); refused",
                           c->doc->name, c->where, ext_name, (unsigned long long)(c->held >> 20));
}

/* The primitive's accessor `key` (of attributes or the primitive itself): its element layout
 * and count, which the decoded data must match. */
static sinew_result target(draco_ctx *c, const cJSON *obj, const char *key, uint32_t *index,
                           uint64_t *count, uint32_t *comps, uint32_t *ctype, sinew_error *err)
{
    int32_t ai;
    sinew_result r = io_get_index(c->doc, c->where, obj, key, "accessor",
                                  io_count(c->doc, IO_ACCESSORS), 1, &ai, err);
    if (r) return r;
    const cJSON *acc = io_item(c->doc, IO_ACCESSORS, (uint32_t)ai);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(acc, "type");
    uint64_t ct;
    char ctx[32];
    snprintf(ctx, sizeof ctx, "accessor %d", ai);
    if ((r = io_get_uint(c->doc, ctx, acc, "count", -1, UINT32_MAX, count, err)) ||
        (r = io_get_uint(c->doc, ctx, acc, "componentType", -1, 6000, &ct, err)))
        return r;
    uint32_t rows;
    *comps = io_type_components(cJSON_IsString(type) ? type->valuestring : NULL, &rows);
    if (*comps == 0 || *comps != rows)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: accessor %d: type must be SCALAR or VECn for %s",
                               c->doc->name, c->where, ai, ext_name);
    *index = (uint32_t)ai;
    *ctype = (uint32_t)ct;
    return SINEW_OK;
}

static size_t type_size(uint32_t ct)
{
    return ct == IO_FLOAT || ct == IO_UINT ? 4 : ct == IO_SHORT || ct == IO_USHORT ? 2 : 1;
}

static sinew_result put_indices(draco_ctx *c, const cJSON *prim, const io_draco_mesh *m,
                                sinew_error *err)
{
    uint32_t index, comps, ct;
    uint64_t count;
    sinew_result r = target(c, prim, "indices", &index, &count, &comps, &ct, err);
    if (r) return r;
    const uint64_t n = 3ull * io_draco_faces(m);
    if (count != n) {
        char what[96];
        snprintf(what, sizeof what, "data has %llu indices, accessor %u says %llu",
                 (unsigned long long)n, index, (unsigned long long)count);
        return fail(c, err, what);
    }
    if (comps != 1 || (ct != IO_UBYTE && ct != IO_USHORT && ct != IO_UINT))
        return fail(c, err, "indices must be an unsigned SCALAR accessor");
    if ((r = take(c, n * (4 + type_size(ct)), err))) return r;
    uint32_t *idx = sinew_alloc(&c->doc->alloc, (size_t)n, sizeof *idx);
    if (!idx)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", c->doc->name);
    const uint32_t limit = ct == IO_UBYTE ? 0xFFu : ct == IO_USHORT ? 0xFFFFu : UINT32_MAX;
    r = io_draco_indices(m, idx) != 0 || (io_draco_points(m) > 0 && io_draco_points(m) - 1 > limit)
            ? fail(c, err, "indices name points past the decoded mesh or its index type")
            : SINEW_OK;
    for (size_t k = 0; !r && ct != IO_UINT && k < n; k++) { /* narrowed in place */
        if (ct == IO_UBYTE)
            ((uint8_t *)idx)[k] = (uint8_t)idx[k];
        else
            ((uint16_t *)idx)[k] = (uint16_t)idx[k];
    }
    if (!r) r = attach(c, index, idx, (size_t)n * type_size(ct), err);
    sinew_free(&c->doc->alloc, idx);
    return r;
}

/* A component of element data of glTF componentType `ct`, as a double. */
static double component(const void *data, size_t i, uint32_t ct)
{
    switch (ct) {
    case IO_BYTE:
        return ((const int8_t *)data)[i];
    case IO_UBYTE:
        return ((const uint8_t *)data)[i];
    case IO_SHORT:
        return ((const int16_t *)data)[i];
    case IO_USHORT:
        return ((const uint16_t *)data)[i];
    case IO_UINT:
        return ((const uint32_t *)data)[i];
    default:
        return ((const float *)data)[i];
    }
}

/* Draco quantizes float attributes, so the accessor's min and max (of the data before
 * encoding) no longer bound the decoded values, and glTF requires POSITION's to be exact:
 * both are recomputed from the decoded data wherever the accessor has them. */
static void set_bounds(cJSON *acc, const void *data, uint64_t count, uint32_t comps, uint32_t ct)
{
    if (!cJSON_GetObjectItemCaseSensitive(acc, "min") &&
        !cJSON_GetObjectItemCaseSensitive(acc, "max"))
        return;
    cJSON *lo = cJSON_CreateArray(), *hi = cJSON_CreateArray();
    for (uint32_t c = 0; c < comps; c++) {
        double a = component(data, c, ct), b = a;
        for (uint64_t i = 1; i < count; i++) {
            const double v = component(data, (size_t)i * comps + c, ct);
            a = v < a ? v : a;
            b = v > b ? v : b;
        }
        cJSON_AddItemToArray(lo, cJSON_CreateNumber(a));
        cJSON_AddItemToArray(hi, cJSON_CreateNumber(b));
    }
    io_set(acc, "min", lo);
    io_set(acc, "max", hi);
}

/* Draco's quantization leaves float weights off a sum of 1 (by up to 1e-3 on the shared
 * models' Draco copies), which glTF forbids; a primitive with one set of weights gets each
 * vertex's divided by their sum, the reading sinew's model view takes of them anyway. */
static void normalize_weights(float *w, uint64_t count)
{
    for (uint64_t v = 0; v < count; v++, w += 4) {
        const double sum = (double)w[0] + w[1] + w[2] + w[3];
        if (sum > 0)
            for (int k = 0; k < 4; k++)
                w[k] = (float)(w[k] / sum);
    }
}

static sinew_result put_attribute(draco_ctx *c, const cJSON *prim, const cJSON *id,
                                  const io_draco_mesh *m, sinew_error *err)
{
    uint32_t index, comps, ct;
    uint64_t count, uid;
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    sinew_result r;
    if (!cJSON_IsNumber(id) || id->valuedouble < 0 || id->valuedouble > UINT32_MAX ||
        id->valuedouble != (double)(uint32_t)id->valuedouble)
        return fail(c, err, "attribute id is not a non-negative integer");
    uid = (uint32_t)id->valuedouble;
    if (!cJSON_GetObjectItemCaseSensitive(attrs, id->string)) {
        char what[128];
        snprintf(what, sizeof what, "names attribute %.40s, which the primitive lacks", id->string);
        return fail(c, err, what);
    }
    if ((r = target(c, attrs, id->string, &index, &count, &comps, &ct, err))) return r;
    char what[160];
    if (count != io_draco_points(m)) {
        snprintf(what, sizeof what, "data has %u points, %.40s (accessor %u) says %llu",
                 io_draco_points(m), id->string, index, (unsigned long long)count);
        return fail(c, err, what);
    }
    const int have = io_draco_attribute_components(m, (uint32_t)uid);
    if (have != (int)comps) {
        snprintf(what, sizeof what, "attribute %.40s (id %llu) %s%d components, accessor %u %u",
                 id->string, (unsigned long long)uid, have < 0 ? "is absent: " : "has ",
                 have < 0 ? 0 : have, index, comps);
        return fail(c, err, what);
    }
    const size_t size = (size_t)count * comps * type_size(ct);
    if ((r = take(c, size, err))) return r;
    void *data = sinew_alloc(&c->doc->alloc, size ? size : 1, 1);
    if (!data)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", c->doc->name);
    if (io_draco_attribute(m, (uint32_t)uid, comps, ct, data) != 0) {
        snprintf(what, sizeof what, "attribute %.40s (id %llu) does not convert to accessor %u",
                 id->string, (unsigned long long)uid, index);
        r = fail(c, err, what);
    } else {
        if (!strcmp(id->string, "WEIGHTS_0") && ct == IO_FLOAT && comps == 4 &&
            !cJSON_GetObjectItemCaseSensitive(attrs, "WEIGHTS_1"))
            normalize_weights(data, count);
        set_bounds(io_item(c->doc, IO_ACCESSORS, index), data, count, comps, ct);
        r = attach(c, index, data, size, err);
    }
    sinew_free(&c->doc->alloc, data);
    return r;
}

static sinew_result decode_primitive(draco_ctx *c, cJSON *prim, const cJSON *ext, sinew_error *err)
{
    sinew_document *doc = c->doc;
    uint64_t mode, off, len;
    int32_t view, buffer;
    sinew_result r;
    if ((r = io_get_uint(doc, c->where, prim, "mode", 4, 6, &mode, err)) ||
        (r = io_get_index(doc, c->where, ext, "bufferView", "bufferView",
                          io_count(doc, IO_BUFFER_VIEWS), 1, &view, err)))
        return r;
    if (mode != 4) return fail(c, err, "is read only for triangle lists (mode 4)");
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(ext, "attributes");
    if (!cJSON_IsObject(attrs)) return fail(c, err, "has no attributes object");
    /* The view itself was validated (io_validate_views). */
    const cJSON *v = io_item(doc, IO_BUFFER_VIEWS, (uint32_t)view);
    io_get_index(doc, c->where, v, "buffer", "buffer", doc->buffer_count, 1, &buffer, err);
    io_get_uint(doc, c->where, v, "byteOffset", 0, (uint64_t)1 << 40, &off, err);
    io_get_uint(doc, c->where, v, "byteLength", -1, (uint64_t)1 << 40, &len, err);
    char msg[160];
    io_draco_mesh *m =
        io_draco_decode(doc->buffers[buffer].data + off, (size_t)len, msg, sizeof msg);
    if (!m) {
        char what[200];
        snprintf(what, sizeof what, "data (bufferView %d) does not decode: %s", view, msg);
        return fail(c, err, what);
    }
    c->draco_view = view;
    r = put_indices(c, prim, m, err);
    const cJSON *id;
    cJSON_ArrayForEach(id, attrs)
    {
        if (!r) r = put_attribute(c, prim, id, m, err);
    }
    io_draco_free(m);
    if (!r) io_extension_drop(prim, ext_name);
    return r;
}

sinew_result io_draco_decode_all(sinew_document *doc, sinew_error *err)
{
    draco_ctx c = {.doc = doc, .budget = IO_EXPANSION_BUDGET(io_binary_bytes(doc))};
    const uint32_t meshes = io_count(doc, IO_MESHES);
    sinew_result r = SINEW_OK;
    for (uint32_t mi = 0; mi < meshes && !r; mi++) {
        const cJSON *prims = io_array(io_item(doc, IO_MESHES, mi), "primitives");
        uint32_t p = 0;
        for (cJSON *prim = prims ? prims->child : NULL; prim && !r; prim = prim->next, p++) {
            const cJSON *ext = io_extension(prim, ext_name);
            if (!ext) continue;
            if (!c.decoded_by) {
                c.decoded_by =
                    sinew_alloc(&doc->alloc, io_count(doc, IO_ACCESSORS) + 1, sizeof(int32_t));
                if (!c.decoded_by)
                    return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory",
                                           doc->name);
            }
            snprintf(c.where, sizeof c.where, "mesh %u primitive %u", mi, p);
            r = decode_primitive(&c, prim, ext, err);
        }
    }
    sinew_free(&doc->alloc, c.decoded_by);
    if (!r) io_extension_unlist(doc, ext_name);
    return r;
}
