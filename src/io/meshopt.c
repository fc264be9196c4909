/* EXT_meshopt_compression: bufferViews stored with meshoptimizer's codecs (the vertex codec,
 * version 0, the two index codecs and the octahedral, quaternion and exponential filters),
 * decoded on load with Debian's libmeshoptimizer into the view's own range, and written the
 * same way on request. */
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/internal.h"

static const char ext_name[] = "EXT_meshopt_compression";

enum { MODE_ATTRIBUTES, MODE_TRIANGLES, MODE_INDICES };
enum { FILTER_NONE, FILTER_OCTAHEDRAL, FILTER_QUATERNION, FILTER_EXPONENTIAL };
static const char *const mode_names[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
static const char *const filter_names[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};

int io_meshopt_is_fallback(const cJSON *buffer)
{
    return cJSON_IsTrue(
        cJSON_GetObjectItemCaseSensitive(io_extension(buffer, ext_name), "fallback"));
}

/* Index of string member `key` among names[0..n); `def` when absent, -1 when unknown. */
static int pick(const cJSON *obj, const char *key, const char *const *names, int n, int def)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!s) return def;
    for (int i = 0; cJSON_IsString(s) && i < n; i++)
        if (!strcmp(s->valuestring, names[i])) return i;
    return -1;
}

/* One compressed view, read and checked: the source range, the destination range (the view's
 * own), the element layout, and what meshoptimizer needs of it so that its decoders (which
 * assert rather than fail on a bad stride) only see what they accept. */
typedef struct mo_view {
    const uint8_t *src;
    size_t src_size;
    uint8_t *dst;
    uint64_t stride, count;
    int mode, filter;
} mo_view;

/* Reads `key` of `obj` as a byte range of a buffer: [*off, *off + len) inside it. */
static sinew_result buffer_range(sinew_document *doc, const char *ctx, const cJSON *obj,
                                 uint64_t len, uint8_t **out, int32_t *buffer, sinew_error *err)
{
    uint64_t off;
    sinew_result r;
    if ((r = io_get_index(doc, ctx, obj, "buffer", "buffer", doc->buffer_count, 1, buffer, err)) ||
        (r = io_get_uint(doc, ctx, obj, "byteOffset", 0, (uint64_t)1 << 40, &off, err)))
        return r;
    const io_buffer *b = &doc->buffers[*buffer];
    if (off + len > b->size)
        return sinew_error_set(
            err, SINEW_ERR_FORMAT, "%s: %s: range %llu+%llu exceeds buffer %d length %zu",
            doc->name, ctx, (unsigned long long)off, (unsigned long long)len, *buffer, b->size);
    *out = b->data + off;
    return SINEW_OK;
}

static sinew_result read_view(sinew_document *doc, uint32_t index, const cJSON *view,
                              const cJSON *ext, mo_view *m, sinew_error *err)
{
    char ctx[80];
    snprintf(ctx, sizeof ctx, "bufferView %u %s", index, ext_name);
    uint64_t src_len, dst_len;
    int32_t src_buffer, dst_buffer;
    uint8_t *src;
    sinew_result r;
    if ((r = io_get_uint(doc, ctx, ext, "byteLength", -1, (uint64_t)1 << 40, &src_len, err)) ||
        (r = buffer_range(doc, ctx, ext, src_len, &src, &src_buffer, err)) ||
        (r = io_get_uint(doc, ctx, ext, "byteStride", -1, 256, &m->stride, err)) ||
        (r = io_get_uint(doc, ctx, ext, "count", -1, UINT32_MAX, &m->count, err)))
        return r;
    m->mode = pick(ext, "mode", mode_names, 3, -1);
    m->filter = pick(ext, "filter", filter_names, 4, FILTER_NONE);
    if (m->mode < 0 || m->filter < 0)
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: unknown or missing %s", doc->name,
                               ctx, m->mode < 0 ? "mode" : "filter");
    const uint64_t s = m->stride;
    const int bad_stride = m->mode == MODE_ATTRIBUTES ? s == 0 || s % 4 != 0 : s != 2 && s != 4;
    const int bad_filter =
        m->filter != FILTER_NONE &&
        (m->mode != MODE_ATTRIBUTES || (m->filter == FILTER_OCTAHEDRAL && s != 4 && s != 8) ||
         (m->filter == FILTER_QUATERNION && s != 8));
    if (bad_stride || bad_filter || (m->mode == MODE_TRIANGLES && m->count % 3 != 0))
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: byteStride %llu and count %llu do not fit mode %s and "
                               "filter %s",
                               doc->name, ctx, (unsigned long long)s, (unsigned long long)m->count,
                               mode_names[m->mode], filter_names[m->filter]);
    snprintf(ctx, sizeof ctx, "bufferView %u", index);
    if ((r = io_get_uint(doc, ctx, view, "byteLength", -1, (uint64_t)1 << 40, &dst_len, err)) ||
        (r = buffer_range(doc, ctx, view, dst_len, &m->dst, &dst_buffer, err)))
        return r;
    if (m->stride * m->count != dst_len)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: %s decodes %llu x %llu bytes, but the view holds %llu",
                               doc->name, ctx, ext_name, (unsigned long long)m->count,
                               (unsigned long long)m->stride, (unsigned long long)dst_len);
    if (src_buffer == dst_buffer && src < m->dst + dst_len && m->dst < src + src_len)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: its compressed bytes overlap the bytes they decode to",
                               doc->name, ctx);
    m->src = src;
    m->src_size = (size_t)src_len;
    return SINEW_OK;
}

static int decode(const mo_view *m)
{
    const size_t n = (size_t)m->count, s = (size_t)m->stride;
    if (m->mode == MODE_TRIANGLES)
        return meshopt_decodeIndexBuffer(m->dst, n, s, m->src, m->src_size);
    if (m->mode == MODE_INDICES)
        return meshopt_decodeIndexSequence(m->dst, n, s, m->src, m->src_size);
    int rc = meshopt_decodeVertexBuffer(m->dst, n, s, m->src, m->src_size);
    if (rc == 0 && m->filter == FILTER_OCTAHEDRAL) meshopt_decodeFilterOct(m->dst, n, s);
    if (rc == 0 && m->filter == FILTER_QUATERNION) meshopt_decodeFilterQuat(m->dst, n, s);
    if (rc == 0 && m->filter == FILTER_EXPONENTIAL) meshopt_decodeFilterExp(m->dst, n, s);
    return rc;
}

/* Fallback buffers hold no bytes in the file (or bytes sinew does not need): each gets its
 * byteLength of zeros, which the compressed views then decode into. */
static sinew_result make_fallbacks(sinew_document *doc, sinew_error *err)
{
    const uint64_t budget = IO_EXPANSION_BUDGET(io_binary_bytes(doc));
    uint64_t total = 0;
    for (uint32_t i = 0; i < doc->buffer_count; i++) {
        const cJSON *b = io_item(doc, IO_BUFFERS, i);
        if (!io_meshopt_is_fallback(b)) continue;
        char ctx[64];
        snprintf(ctx, sizeof ctx, "buffer %u", i);
        uint64_t len;
        sinew_result r = io_get_uint(doc, ctx, b, "byteLength", -1, (uint64_t)1 << 40, &len, err);
        if (r) return r;
        total += len;
        if (total > budget)
            return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                                   "%s: %s: %s fallback buffers of %llu MB would decode from %llu "
                                   "KB of binary data (at most 16x plus 64 MB); refused",
                                   doc->name, ctx, ext_name, (unsigned long long)(total >> 20),
                                   (unsigned long long)(io_binary_bytes(doc) >> 10));
        io_buffer *dst = &doc->buffers[i];
        sinew_free(&doc->alloc, dst->data);
        dst->data = sinew_alloc(&doc->alloc, (size_t)len + 1, 1);
        if (!dst->data)
            return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
        dst->size = dst->capacity = (size_t)len;
        doc->decoded_bytes += len;
    }
    return SINEW_OK;
}

sinew_result io_meshopt_decode(sinew_document *doc, sinew_error *err)
{
    sinew_result r = make_fallbacks(doc, err);
    const uint32_t n = io_count(doc, IO_BUFFER_VIEWS);
    for (uint32_t i = 0; i < n && !r; i++) {
        cJSON *view = io_item(doc, IO_BUFFER_VIEWS, i);
        const cJSON *ext = io_extension(view, ext_name);
        if (!ext) continue;
        mo_view m;
        if ((r = read_view(doc, i, view, ext, &m, err))) return r;
        const int rc = decode(&m);
        if (rc != 0)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: bufferView %u: its %s data does not decode (%s, "
                                   "meshoptimizer error %d)",
                                   doc->name, i, ext_name, mode_names[m.mode], rc);
        io_extension_drop(view, ext_name);
    }
    if (r) return r;
    for (uint32_t i = 0; i < doc->buffer_count; i++)
        io_extension_drop(io_item(doc, IO_BUFFERS, i), ext_name);
    io_extension_unlist(doc, ext_name);
    return SINEW_OK;
}

/* ---- writing ---- */

/* How one packed view is written: VIEW_PLAIN as it is (images, unused views, layouts the
 * codecs do not take), else compressed with `stride`. */
enum { VIEW_PLAIN, VIEW_ATTRIBUTES, VIEW_INDICES };
typedef struct mo_plan {
    int kind;
    uint32_t stride; /* element size the accessors agree on, 0 when they disagree */
} mo_plan;

static uint32_t element_size(const cJSON *acc)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(acc, "type");
    const cJSON *ct = cJSON_GetObjectItemCaseSensitive(acc, "componentType");
    uint32_t rows,
        comps = io_type_components(cJSON_IsString(type) ? type->valuestring : NULL, &rows);
    uint32_t c = cJSON_IsNumber(ct) ? (uint32_t)ct->valuedouble : 0;
    uint32_t size = c == IO_FLOAT || c == IO_UINT ? 4 : c == IO_SHORT || c == IO_USHORT ? 2 : 1;
    uint32_t cols = comps / (rows ? rows : 1);
    return cols > 1 ? ((rows * size + 3u) & ~3u) * cols : comps * size;
}

/* Marks each view by how the accessors in it are used: index data takes the sequence codec
 * (INDICES: lossless and order-preserving, where TRIANGLES may rotate a triangle's corners),
 * everything else (vertex attributes, key times and values, inverse bind matrices) the vertex
 * codec, which is lossless for any bytes whose stride is a multiple of 4. */
static void plan_views(const cJSON *json, mo_plan *plan, uint32_t nviews)
{
    const cJSON *accessors = cJSON_GetObjectItemCaseSensitive(json, "accessors");
    const cJSON *acc;
    uint32_t ai = 0, naccessors = (uint32_t)cJSON_GetArraySize(accessors);
    uint8_t *is_index = calloc(naccessors + 1, 1);
    if (!is_index) return; /* every view stays plain */
    const cJSON *mesh, *prim;
    cJSON_ArrayForEach(mesh, cJSON_GetObjectItemCaseSensitive(json, "meshes"))
    {
        cJSON_ArrayForEach(prim, cJSON_GetObjectItemCaseSensitive(mesh, "primitives"))
        {
            const cJSON *ind = cJSON_GetObjectItemCaseSensitive(prim, "indices");
            if (cJSON_IsNumber(ind) && ind->valuedouble < naccessors)
                is_index[(uint32_t)ind->valuedouble] = 1;
        }
    }
    cJSON_ArrayForEach(acc, accessors)
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(acc, "bufferView");
        const uint32_t idx = is_index[ai++];
        if (!cJSON_IsNumber(v) || v->valuedouble >= nviews) continue;
        mo_plan *p = &plan[(uint32_t)v->valuedouble];
        const int kind = idx ? VIEW_INDICES : VIEW_ATTRIBUTES;
        const uint32_t size = element_size(acc);
        if (p->kind == VIEW_PLAIN) {
            p->kind = kind;
            p->stride = size;
        } else if (p->kind != kind) {
            p->kind = -1; /* used both ways: left plain below */
        } else if (p->stride != size) {
            p->stride = 0;
        }
    }
    free(is_index);
}

/* The stride the view is compressed with, 0 to leave it plain. */
static uint32_t view_stride(const cJSON *view, const mo_plan *p, size_t len)
{
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(view, "byteStride");
    uint32_t s = p->kind == VIEW_INDICES      ? (p->stride == 2 || p->stride == 4 ? p->stride : 0)
                 : p->kind != VIEW_ATTRIBUTES ? 0
                 : cJSON_IsNumber(bs)         ? (uint32_t)bs->valuedouble
                 : p->stride % 4 == 0         ? p->stride
                                              : 4; /* any multiple of 4 decodes the same bytes */
    if (p->kind == VIEW_ATTRIBUTES && (s == 0 || s % 4 || s > 256)) s = len % 4 ? 0 : 4;
    return s && len && len % s == 0 ? s : 0;
}

static void put_ext(cJSON *view, size_t off, size_t len, uint32_t stride, size_t count, int mode)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "buffer", 0);
    cJSON_AddNumberToObject(e, "byteOffset", (double)off);
    cJSON_AddNumberToObject(e, "byteLength", (double)len);
    cJSON_AddNumberToObject(e, "byteStride", stride);
    cJSON_AddNumberToObject(e, "count", (double)count);
    cJSON_AddStringToObject(e, "mode", mode_names[mode]);
    cJSON *exts = cJSON_GetObjectItemCaseSensitive(view, "extensions");
    if (!cJSON_IsObject(exts)) {
        exts = cJSON_CreateObject();
        io_set(view, "extensions", exts);
    }
    io_set(exts, ext_name, e);
}

/* Adds `name` to a top-level list of extension names unless it is there. */
static void list_add(cJSON *json, const char *list, const char *name)
{
    cJSON *a = cJSON_GetObjectItemCaseSensitive(json, list);
    if (!cJSON_IsArray(a)) {
        a = cJSON_CreateArray();
        io_set(json, list, a);
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, a)
    {
        if (cJSON_IsString(e) && !strcmp(e->valuestring, name)) return;
    }
    cJSON_AddItemToArray(a, cJSON_CreateString(name));
}

sinew_result io_meshopt_encode(const sinew_document *doc, cJSON *json, uint8_t **bin, size_t *size,
                               int *compressed_any, sinew_error *err)
{
    cJSON *views = cJSON_GetObjectItemCaseSensitive(json, "bufferViews");
    const uint32_t nviews = (uint32_t)cJSON_GetArraySize(views);
    mo_plan *plan = calloc(nviews + 1, sizeof *plan);
    /* The encoded views never exceed their bound; plain ones keep their size. */
    size_t cap = 16;
    for (cJSON *v = views ? views->child : NULL; v; v = v->next)
        cap += 4 + (size_t)cJSON_GetObjectItemCaseSensitive(v, "byteLength")->valuedouble * 2 + 64;
    uint8_t *out = plan ? malloc(cap) : NULL;
    if (!out) {
        free(plan);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    }
    plan_views(json, plan, nviews);
    size_t pos = 0, compressed = 0;
    uint32_t i = 0;
    for (cJSON *v = views ? views->child : NULL; v; v = v->next, i++) {
        const size_t off = (size_t)cJSON_GetObjectItemCaseSensitive(v, "byteOffset")->valuedouble;
        const size_t len = (size_t)cJSON_GetObjectItemCaseSensitive(v, "byteLength")->valuedouble;
        const uint8_t *data = *bin + off;
        const uint32_t s = view_stride(v, &plan[i], len);
        pos = (pos + 3) & ~(size_t)3;
        size_t n = 0;
        if (s && plan[i].kind == VIEW_ATTRIBUTES) {
            n = meshopt_encodeVertexBuffer(out + pos, cap - pos, data, len / s, s);
        } else if (s) { /* the sequence codec takes 32-bit indices whatever it writes */
            uint32_t *idx = malloc((len / s) * sizeof *idx);
            for (size_t k = 0; idx && k < len / s; k++)
                idx[k] = s == 2 ? (uint32_t)(data[2 * k] | data[2 * k + 1] << 8)
                                : (uint32_t)data[4 * k] | (uint32_t)data[4 * k + 1] << 8 |
                                      (uint32_t)data[4 * k + 2] << 16 |
                                      (uint32_t)data[4 * k + 3] << 24;
            n = idx ? meshopt_encodeIndexSequence(out + pos, cap - pos, idx, len / s) : 0;
            free(idx);
        }
        if (n >= len) n = 0; /* no smaller: kept plain */
        if (n) {             /* in the fallback buffer at its packed place, its bytes in buffer 0 */
            put_ext(v, pos, n, s, len / s,
                    plan[i].kind == VIEW_ATTRIBUTES ? MODE_ATTRIBUTES : MODE_INDICES);
            io_set(v, "buffer", cJSON_CreateNumber(1));
            compressed++;
        } else {
            memcpy(out + pos, data, len);
            n = len;
            io_set(v, "byteOffset", cJSON_CreateNumber((double)pos));
        }
        pos += n;
    }
    free(plan);
    *compressed_any = compressed > 0;
    if (compressed) {
        /* The required form: readers without the extension refuse the file rather than
         * show the fallback buffer's missing bytes; a fallback copy of the plain data would
         * make the file larger than not compressing it. */
        list_add(json, "extensionsUsed", ext_name);
        list_add(json, "extensionsRequired", ext_name);
    }
    free(*bin);
    *bin = out;
    *size = pos;
    return SINEW_OK;
}
