/* Loading, freeing and the warning list of a sinew_document. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io/internal.h"

char *io_strdup(const sinew_allocator *a, const char *s)
{
    size_t n = strlen(s);
    char *d = sinew_alloc(a, n + 1, 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

void io_warn(sinew_document *doc, const char *fmt, ...)
{
    if (doc->warning_count >= IO_MAX_WARNINGS) return;
    char text[SINEW_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    for (uint32_t i = 0; i < doc->warning_count; i++)
        if (!strcmp(doc->warnings[i], text)) return; /* one of each */
    char **grown = sinew_realloc(&doc->alloc, doc->warnings, doc->warning_count,
                                 doc->warning_count + 1, sizeof *grown);
    if (!grown) return;
    doc->warnings = grown;
    char *copy = io_strdup(&doc->alloc, text);
    if (!copy) return;
    doc->warnings[doc->warning_count++] = copy;
}

sinew_document *io_document_new(const sinew_allocator *a, const char *name)
{
    sinew_allocator alloc = {0};
    if (a) alloc = *a;
    sinew_document *doc = sinew_alloc(&alloc, 1, sizeof *doc);
    if (!doc) return NULL;
    doc->alloc = alloc;
    doc->edit_buffer = -1;
    doc->name = io_strdup(&alloc, name);
    if (!doc->name) {
        sinew_free(&alloc, doc);
        return NULL;
    }
    return doc;
}

sinew_result io_add_source(sinew_document *doc, const char *path, sinew_error *err)
{
    char **grown = sinew_realloc(&doc->alloc, doc->sources, doc->source_count,
                                 doc->source_count + 1, sizeof *grown);
    if (!grown)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    doc->sources = grown;
    if (!(doc->sources[doc->source_count] = io_strdup(&doc->alloc, path)))
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    doc->source_count++;
    return SINEW_OK;
}

uint32_t sinew_document_source_count(const sinew_document *doc)
{
    return doc ? doc->source_count : 0;
}

const char *sinew_document_source(const sinew_document *doc, uint32_t index)
{
    return doc && index < doc->source_count ? doc->sources[index] : "";
}

int32_t io_buffer_add(sinew_document *doc)
{
    io_buffer *grown = sinew_realloc(&doc->alloc, doc->buffers, doc->buffer_count,
                                     doc->buffer_count + 1, sizeof *grown);
    if (!grown) return -1;
    doc->buffers = grown;
    return (int32_t)doc->buffer_count++;
}

uint32_t *io_skin_joint_counts(const sinew_document *doc)
{
    uint32_t n = io_count(doc, IO_SKINS);
    uint32_t *counts = sinew_alloc(&doc->alloc, n, sizeof *counts);
    for (uint32_t s = 0; counts && s < n; s++) {
        int jc = cJSON_GetArraySize(io_array(io_item(doc, IO_SKINS, s), "joints"));
        counts[s] = jc > 0 ? (uint32_t)jc : 0;
    }
    return counts;
}

void sinew_document_free(sinew_document *doc)
{
    if (!doc) return;
    sinew_allocator alloc = doc->alloc;
    for (uint32_t i = 0; i < doc->buffer_count; i++)
        sinew_free(&alloc, doc->buffers[i].data);
    sinew_free(&alloc, doc->buffers);
    for (uint32_t i = 0; i < doc->warning_count; i++)
        sinew_free(&alloc, doc->warnings[i]);
    sinew_free(&alloc, doc->warnings);
    for (uint32_t i = 0; i < doc->source_count; i++)
        sinew_free(&alloc, doc->sources[i]);
    sinew_free(&alloc, doc->sources);
    sinew_free(&alloc, doc->released);
    io_tables_free(doc);
    cJSON_Delete(doc->root);
    sinew_free(&alloc, doc->name);
    sinew_free(&alloc, doc);
}

uint32_t sinew_document_warning_count(const sinew_document *doc)
{
    return doc ? doc->warning_count : 0;
}

const char *sinew_document_warning(const sinew_document *doc, uint32_t index)
{
    return doc && index < doc->warning_count ? doc->warnings[index] : "";
}

/* External images are not read, but they are files of the asset all the same: an output
 * must not replace one. Joined as written (a %-escaped name is not decoded). */
static sinew_result add_image_sources(sinew_document *doc, const char *base_dir, sinew_error *err)
{
    const uint32_t n = io_count(doc, IO_IMAGES);
    for (uint32_t i = 0; i < n && base_dir; i++) {
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(io_item(doc, IO_IMAGES, i), "uri");
        if (!cJSON_IsString(uri) || !strncmp(uri->valuestring, "data:", 5)) continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", base_dir, uri->valuestring) >= sizeof path)
            continue;
        sinew_result r = io_add_source(doc, path, err);
        if (r) return r;
    }
    return SINEW_OK;
}

static sinew_result load_bytes(const uint8_t *data, size_t size, const sinew_load_options *opt,
                               const char *name, const char *base_dir, sinew_document **out,
                               sinew_error *err)
{
    *out = NULL;
    sinew_document *doc = io_document_new(opt ? opt->allocator : NULL, name);
    if (!doc) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
    const uint8_t *json = data, *bin = NULL;
    size_t json_size = size, bin_size = 0;
    int has_bin = 0;
    sinew_result r = SINEW_OK;
    if (io_is_glb(data, size)) {
        r = io_glb_split(doc, data, size, &json, &json_size, &bin, &bin_size, &has_bin, err);
    } else {
        size_t i = 0;
        if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) i = 3; /* BOM */
        while (i < size &&
               (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
            i++;
        if (i >= size || data[i] != '{')
            r = sinew_error_set(err, SINEW_ERR_FORMAT,
                                "%s: neither a GLB (magic \"glTF\") nor glTF JSON text", name);
        json = data + i;
        json_size = size - i;
    }
    if (!r) {
        const char *end = NULL;
        doc->root = cJSON_ParseWithLengthOpts((const char *)json, json_size, &end, 0);
        if (!doc->root && io_json_parsable((const char *)json, json_size))
            r = io_oom(doc, err);
        else if (!doc->root)
            r = sinew_error_set(err, SINEW_ERR_FORMAT, "%s: invalid JSON near byte %ld", name,
                                end ? (long)(end - (const char *)json) : 0L);
        else if (!cJSON_IsObject(doc->root))
            r = sinew_error_set(err, SINEW_ERR_FORMAT, "%s: the JSON root is not an object", name);
    }
    if (!r) r = io_repair_utf8(doc, err);  /* before anything reads or quotes a string */
    if (!r) r = io_validate_top(doc, err); /* asset, required extensions, array shapes */
    if (!r) r = io_tables_build(doc, err);
    if (!r) r = io_load_buffers(doc, bin, bin_size, has_bin, base_dir, err);
#ifdef SINEW_COMPRESSION
    /* Compressed views decode into their own ranges, which validation then checks like any
     * other; Draco reads a validated view and adds views and accessor data of its own. */
    if (!r) r = io_meshopt_decode(doc, err);
    if (!r) r = io_validate_views(doc, err);
    if (!r) r = io_draco_decode_all(doc, err);
#endif
    if (!r) r = io_validate(doc, err); /* everything the model view and writer read */
    if (!r) r = io_repair_weights(doc, err);
    if (!r) r = io_repair_skeletons(doc, err);
    if (!r) r = add_image_sources(doc, base_dir, err);
    if (r) {
        sinew_document_free(doc);
        return r;
    }
    *out = doc;
    return SINEW_OK;
}

sinew_result sinew_document_load_memory(const void *data, size_t size,
                                        const sinew_load_options *options, sinew_document **out,
                                        sinew_error *err)
{
    if (out) *out = NULL;
    if (!out || (!data && size))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_load_memory: NULL");
    const char *name = options && options->display_name ? options->display_name : "<memory>";
    return load_bytes(data, size, options, name, options ? options->base_dir : NULL, out, err);
}

sinew_result sinew_document_load_file(const char *path, const sinew_load_options *options,
                                      sinew_document **out, sinew_error *err)
{
    if (out) *out = NULL;
    if (!path || !out)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_load_file: NULL");
    const char *name = options && options->display_name ? options->display_name : path;
    sinew_document tmp = {0};
    if (options && options->allocator) tmp.alloc = *options->allocator;
    tmp.name = (char *)name;
    uint8_t *data;
    size_t size;
    char label[PATH_MAX + 16];
    snprintf(label, sizeof label, "file '%s'", path);
    sinew_result r = io_read_file(&tmp, path, label, IO_READ_WHOLE, &data, &size, err);
    if (r) return r;
    char dir[4096];
    const char *base = options ? options->base_dir : NULL;
    if (!base) {
        const char *slash = strrchr(path, '/');
        if (!slash) {
            snprintf(dir, sizeof dir, ".");
        } else if (slash == path) {
            snprintf(dir, sizeof dir, "/");
        } else {
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        }
        base = dir;
    }
    r = load_bytes(data, size, options, name, base, out, err);
    sinew_free(&tmp.alloc, data);
    if (r == SINEW_OK && (r = io_add_source(*out, path, err)) != SINEW_OK) {
        sinew_document_free(*out);
        *out = NULL;
    }
    return r;
}

uint32_t sinew_document_node_count(const sinew_document *doc)
{
    return doc ? io_count(doc, IO_NODES) : 0;
}

uint32_t sinew_document_animation_count(const sinew_document *doc)
{
    return doc ? io_count(doc, IO_ANIMATIONS) : 0;
}

const char *sinew_document_animation_name(const sinew_document *doc, uint32_t index)
{
    const cJSON *a = doc ? io_item(doc, IO_ANIMATIONS, index) : NULL;
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(a, "name");
    return cJSON_IsString(n) ? n->valuestring : "";
}

int sinew_document_animation_named(const sinew_document *doc, uint32_t index, const char *name)
{
    if (!doc || !name || index >= io_count(doc, IO_ANIMATIONS)) return 0;
    const char *own = sinew_document_animation_name(doc, index);
    if (*own) return !strcmp(own, name);
    char fallback[32];
    snprintf(fallback, sizeof fallback, IO_UNNAMED_ANIMATION, index);
    return !strcmp(fallback, name);
}
