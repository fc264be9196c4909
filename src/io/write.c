/* The writer: the document's JSON unchanged except for buffer layout (all bufferViews repacked
 * into one buffer, 4-byte aligned, indices kept) and the accessors edits released that nothing
 * uses any more (io_compact), as GLB or .gltf with one base64 data URI.
 * Files are written to a temporary file in the target folder and renamed into place. */
/* realpath(3) and lstat(2) are XSI / POSIX 2008. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/internal.h"
#include "sinew/file.h"

/* cJSON prints numbers with 15 digits unless they compare equal only approximately, which
 * loses the last bits of floats; replace every number by raw text with the shortest %g form
 * that parses back to the same double, so the output JSON equals the input's. Returns 0 when
 * out of memory (a number left to cJSON would lose bits). */
static int exact_numbers(cJSON *item)
{
    for (cJSON *c = item->child; c; c = c->next) {
        if (cJSON_IsNumber(c)) {
            char text[40];
            double v = c->valuedouble;
            /* A number too large for a double parsed as +-Inf: write one that parses back
             * the same way (JSON has no Inf; cJSON would write null). */
            if (isinf(v)) snprintf(text, sizeof text, "%s", v > 0 ? "1e999" : "-1e999");
            for (int digits = 15; digits <= 17 && !isinf(v); digits++) {
                snprintf(text, sizeof text, "%.*g", digits, v);
                if (strtod(text, NULL) == v) break;
            }
            cJSON *raw = cJSON_CreateRaw(text);
            if (!raw) return 0;
            raw->string = c->string; /* the key moves to the new item */
            raw->type |= c->type & cJSON_StringIsConst;
            c->string = NULL;
            cJSON_ReplaceItemViaPointer(item, c, raw);
            c = raw;
        } else if (c->child && !exact_numbers(c)) {
            return 0;
        }
    }
    return 1;
}

/* Builds the output JSON (caller frees with cJSON_Delete) and the packed buffer (malloc). */
static sinew_result pack(const sinew_document *doc, int data_uri, int meshopt, cJSON **out_json,
                         uint8_t **out_bin, size_t *out_size, sinew_error *err)
{
    *out_json = NULL;
    *out_bin = NULL;
    *out_size = 0;
    cJSON *json = cJSON_Duplicate(doc->root, 1);
    if (!json) return io_oom(doc, err);
    sinew_result r = io_compact(doc, json, err);
    if (r != SINEW_OK) {
        cJSON_Delete(json);
        return r;
    }
    cJSON *views = cJSON_GetObjectItemCaseSensitive(json, "bufferViews");
    if (!cJSON_IsArray(views)) views = NULL;
    const int nviews = cJSON_GetArraySize(views);
    size_t total = 0;
    cJSON *v;
    cJSON_ArrayForEach(v, views)
    {
        size_t len = (size_t)cJSON_GetObjectItemCaseSensitive(v, "byteLength")->valuedouble;
        total = ((total + 3) & ~(size_t)3) + len;
    }
    uint8_t *bin = calloc(1, ((total + 3) & ~(size_t)3) + 1);
    int ok = bin != NULL;
    size_t pos = 0;
    for (v = ok && views ? views->child : NULL; v; v = v->next) {
        /* Validated at load (or created by an edit), so these reads are in range. */
        uint32_t b = (uint32_t)cJSON_GetObjectItemCaseSensitive(v, "buffer")->valuedouble;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(v, "byteOffset");
        size_t off = o ? (size_t)o->valuedouble : 0;
        size_t len = (size_t)cJSON_GetObjectItemCaseSensitive(v, "byteLength")->valuedouble;
        pos = (pos + 3) & ~(size_t)3;
        memcpy(bin + pos, doc->buffers[b].data + off, len);
        if (!io_set(v, "buffer", cJSON_CreateNumber(0)) ||
            !io_set(v, "byteOffset", cJSON_CreateNumber((double)pos))) {
            ok = 0;
            break;
        }
        pos += len;
    }
    const size_t plain = total; /* the fallback buffer's length when compressed */
    int fallback_used = 0;
#ifdef SINEW_COMPRESSION
    if (ok && meshopt && nviews) {
        r = io_meshopt_encode(doc, json, &bin, &total, &fallback_used, err);
        if (r) {
            free(bin);
            cJSON_Delete(json);
            return r;
        }
    }
#else
    if (meshopt) {
        free(bin);
        cJSON_Delete(json);
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "%s: meshopt output needs a build with SINEW_COMPRESSION",
                               doc->name);
    }
#endif
    if (ok && nviews) {
        cJSON *buffers = cJSON_CreateArray();
        cJSON *b0 = cJSON_CreateObject();
        ok = io_push(buffers, b0) && cJSON_AddNumberToObject(b0, "byteLength", (double)total);
        if (ok && data_uri) {
            static const char prefix[] = "data:application/octet-stream;base64,";
            char *uri = malloc(sizeof prefix + 4 * ((total + 2) / 3) + 1);
            if (uri) {
                memcpy(uri, prefix, sizeof prefix - 1);
                io_base64_encode(bin, total, uri + sizeof prefix - 1);
            }
            ok = uri && cJSON_AddStringToObject(b0, "uri", uri);
            free(uri);
        }
        if (ok && fallback_used) { /* the compressed views decode into buffer 1 */
            cJSON *fallback = cJSON_CreateObject(), *exts = NULL, *mo = NULL;
            ok = io_push(buffers, fallback) &&
                 cJSON_AddNumberToObject(fallback, "byteLength", (double)plain) &&
                 (exts = cJSON_AddObjectToObject(fallback, "extensions")) &&
                 (mo = cJSON_AddObjectToObject(exts, "EXT_meshopt_compression")) &&
                 cJSON_AddTrueToObject(mo, "fallback");
        }
        if (!ok) cJSON_Delete(buffers);
        ok = ok && io_set(json, "buffers", buffers);
    } else if (ok) {
        cJSON_DeleteItemFromObjectCaseSensitive(json, "buffers");
    }
    if (!ok || !exact_numbers(json)) {
        free(bin);
        cJSON_Delete(json);
        return io_oom(doc, err);
    }
    *out_json = json;
    *out_bin = bin;
    *out_size = total;
    return SINEW_OK;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* The output's allocator: the options', else malloc. Scratch inside stays malloc's. */
static sinew_allocator output_allocator(const sinew_write_options *options)
{
    sinew_allocator a = {0};
    if (options && options->allocator) a = *options->allocator;
    return a;
}

static sinew_result write_glb(const sinew_document *doc, const sinew_write_options *options,
                              sinew_bytes *out, sinew_error *err)
{
    cJSON *json;
    uint8_t *bin;
    size_t bin_size;
    sinew_result r = pack(doc, 0, options && options->meshopt, &json, &bin, &bin_size, err);
    if (r) return r;
    /* pack writes a buffer exactly when bufferViews are left */
    const int has_bin = cJSON_GetObjectItemCaseSensitive(json, "buffers") != NULL;
    char *text = cJSON_PrintUnformatted(json);
    cJSON_Delete(json);
    if (!text) {
        free(bin);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    }
    size_t jlen = strlen(text), jpad = (jlen + 3) & ~(size_t)3;
    size_t bpad = (bin_size + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jpad + (has_bin ? 8 + bpad : 0);
    if (total > UINT32_MAX) {
        cJSON_free(text);
        free(bin);
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED, "%s: output exceeds 4 GiB (GLB limit)",
                               doc->name);
    }
    const sinew_allocator alloc = output_allocator(options);
    uint8_t *glb = sinew_alloc(&alloc, total, 1);
    if (!glb) {
        cJSON_free(text);
        free(bin);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    }
    put32(glb, 0x46546C67u);
    put32(glb + 4, 2);
    put32(glb + 8, (uint32_t)total);
    put32(glb + 12, (uint32_t)jpad);
    put32(glb + 16, 0x4E4F534Au);
    memcpy(glb + 20, text, jlen);
    memset(glb + 20 + jlen, ' ', jpad - jlen); /* JSON chunk padding is spaces (spec 4.4.3) */
    if (has_bin) {
        uint8_t *c = glb + 20 + jpad;
        put32(c, (uint32_t)bpad);
        put32(c + 4, 0x004E4942u);
        memcpy(c + 8, bin, bin_size);
        memset(c + 8 + bin_size, 0, bpad - bin_size);
    }
    cJSON_free(text); /* cJSON's memory goes back through cJSON's hooks */
    free(bin);
    out->data = glb;
    out->size = total;
    out->allocator = alloc;
    return SINEW_OK;
}

sinew_result sinew_document_write_glb_memory(const sinew_document *doc, sinew_bytes *out,
                                             sinew_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!doc || !out)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_write_glb_memory: NULL");
    return write_glb(doc, NULL, out, err);
}

sinew_result sinew_document_copy(const sinew_document *doc, sinew_document **out, sinew_error *err)
{
    if (out) *out = NULL;
    if (!doc || !out) return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_copy: NULL");
    /* The bytes are scratch: through the document's own allocator, as the copy is. */
    const sinew_write_options write = {.allocator = &doc->alloc};
    sinew_bytes bytes;
    sinew_result r = sinew_document_serialize_with(doc, "copy.glb", &write, &bytes, err);
    if (r == SINEW_OK) {
        sinew_load_options options = {0};
        options.display_name = doc->name;
        options.allocator = &doc->alloc;
        r = sinew_document_load_memory(bytes.data, bytes.size, &options, out, err);
    }
    sinew_bytes_free(&bytes);
    return r;
}

sinew_result sinew_document_serialize_with(const sinew_document *doc, const char *path,
                                           const sinew_write_options *options, sinew_bytes *out,
                                           sinew_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!doc || !path || !out)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_serialize: NULL");
    const size_t n = strlen(path);
    if (!(n >= 5 && !strcmp(path + n - 5, ".gltf"))) return write_glb(doc, options, out, err);
    cJSON *json;
    uint8_t *bin;
    size_t bin_size;
    sinew_result r = pack(doc, 1, options && options->meshopt, &json, &bin, &bin_size, err);
    if (r) return r;
    free(bin);
    char *text = cJSON_Print(json);
    cJSON_Delete(json);
    /* Copied into the output's allocator: cJSON allocates through its own hooks, which an
     * embedder may have pointed elsewhere. */
    const sinew_allocator alloc = output_allocator(options);
    size_t length = text ? strlen(text) : 0;
    char *copy = text ? sinew_alloc(&alloc, length + 1, 1) : NULL;
    if (copy) memcpy(copy, text, length + 1);
    cJSON_free(text);
    if (!copy) return io_oom(doc, err);
    out->data = copy;
    out->size = length;
    out->allocator = alloc;
    return SINEW_OK;
}

sinew_result sinew_document_serialize(const sinew_document *doc, const char *path, sinew_bytes *out,
                                      sinew_error *err)
{
    return sinew_document_serialize_with(doc, path, NULL, out, err);
}

sinew_result sinew_document_write_file(const sinew_document *doc, const char *path,
                                       sinew_error *err)
{
    sinew_bytes bytes;
    sinew_result r = sinew_document_serialize(doc, path, &bytes, err);
    if (r == SINEW_OK) r = sinew_file_write_atomic(path, bytes.data, bytes.size, err);
    sinew_bytes_free(&bytes);
    return r;
}
