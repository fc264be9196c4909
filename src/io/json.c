/* The top-level arrays by index (tables built once per document), and typed, range-checked
 * reads from the cJSON tree with messages naming file, object, key. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "io/internal.h"

static const char *const kind_keys[IO_KIND_COUNT] = {
    [IO_ACCESSORS] = "accessors",      [IO_ANIMATIONS] = "animations", [IO_BUFFERS] = "buffers",
    [IO_BUFFER_VIEWS] = "bufferViews", [IO_CAMERAS] = "cameras",       [IO_IMAGES] = "images",
    [IO_MATERIALS] = "materials",      [IO_MESHES] = "meshes",         [IO_NODES] = "nodes",
    [IO_SAMPLERS] = "samplers",        [IO_SCENES] = "scenes",         [IO_SKINS] = "skins",
    [IO_TEXTURES] = "textures"};

const char *io_kind_key(io_kind kind)
{
    return kind_keys[kind];
}

/* Makes room for one more item in `t`, doubling. */
static int table_reserve(sinew_document *doc, io_table *t)
{
    if (t->count < t->capacity) return 1;
    if (t->count >= INT32_MAX) return 0; /* indices are int32_t throughout */
    uint32_t cap = t->capacity ? 2 * t->capacity : 16;
    cJSON **grown = sinew_realloc(&doc->alloc, t->items, t->capacity, cap, sizeof *grown);
    if (!grown) return 0;
    t->items = grown;
    t->capacity = cap;
    return 1;
}

sinew_result io_tables_build(sinew_document *doc, sinew_error *err)
{
    for (int k = 0; k < IO_KIND_COUNT; k++) {
        io_table *t = &doc->tables[k];
        cJSON *item;
        cJSON_ArrayForEach(item, io_array(doc->root, kind_keys[k]))
        {
            if (!table_reserve(doc, t))
                return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory",
                                       doc->name);
            t->items[t->count++] = item;
        }
    }
    return SINEW_OK;
}

void io_tables_free(sinew_document *doc)
{
    for (int k = 0; k < IO_KIND_COUNT; k++) {
        sinew_free(&doc->alloc, doc->tables[k].items);
        doc->tables[k] = (io_table){NULL, 0, 0};
    }
}

uint32_t io_count(const sinew_document *doc, io_kind kind)
{
    return doc->tables[kind].count;
}

cJSON *io_item(const sinew_document *doc, io_kind kind, uint32_t index)
{
    const io_table *t = &doc->tables[kind];
    return index < t->count ? t->items[index] : NULL;
}

int32_t io_append(sinew_document *doc, io_kind kind, cJSON *item)
{
    io_table *t = &doc->tables[kind];
    cJSON *array = cJSON_GetObjectItemCaseSensitive(doc->root, kind_keys[kind]);
    if (!cJSON_IsArray(array)) {
        array = cJSON_CreateArray();
        if (array) io_set(doc->root, kind_keys[kind], array);
    }
    if (!item || !array || !table_reserve(doc, t) || !cJSON_AddItemToArray(array, item)) {
        cJSON_Delete(item);
        return -1;
    }
    t->items[t->count] = item;
    return (int32_t)t->count++;
}

const cJSON **io_array_items(const sinew_allocator *a, const cJSON *array, uint32_t *count)
{
    int n = cJSON_IsArray(array) ? cJSON_GetArraySize(array) : 0;
    *count = 0;
    const cJSON **items = sinew_alloc(a, n > 0 ? (size_t)n : 1, sizeof *items);
    if (!items || n <= 0) return items;
    const cJSON *item;
    cJSON_ArrayForEach(item, array) items[(*count)++] = item;
    return items;
}

const cJSON *io_array(const cJSON *obj, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsArray(a) ? a : NULL;
}

/* 1 when `v` is an integer in [0, max]. */
static int integral(double v, uint64_t max)
{
    return isfinite(v) && v >= 0.0 && v <= (double)max && floor(v) == v;
}

sinew_result io_get_index(const sinew_document *doc, const char *ctx, const cJSON *obj,
                          const char *key, const char *target, uint32_t target_count, int required,
                          int32_t *out, sinew_error *err)
{
    *out = -1;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (!required) return SINEW_OK;
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: missing \"%s\"", doc->name, ctx,
                               key);
    }
    return io_index_of(doc, ctx, v, target, target_count, out, err);
}

sinew_result io_index_of(const sinew_document *doc, const char *ctx, const cJSON *v,
                         const char *target, uint32_t target_count, int32_t *out, sinew_error *err)
{
    *out = -1;
    if (!cJSON_IsNumber(v) || !integral(v->valuedouble, INT32_MAX))
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: \"%s\" is not a valid index",
                               doc->name, ctx, v->string ? v->string : "");
    if (v->valuedouble >= (double)target_count)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: %s %.0f does not exist (the file has %u)", doc->name, ctx,
                               target, v->valuedouble, target_count);
    *out = (int32_t)v->valuedouble;
    return SINEW_OK;
}

sinew_result io_get_uint(const sinew_document *doc, const char *ctx, const cJSON *obj,
                         const char *key, int64_t def, uint64_t max, uint64_t *out,
                         sinew_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (def < 0)
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: missing \"%s\"", doc->name, ctx,
                                   key);
        *out = (uint64_t)def;
        return SINEW_OK;
    }
    if (!cJSON_IsNumber(v) || !integral(v->valuedouble, max))
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: \"%s\" must be an integer in [0, %llu]", doc->name, ctx,
                               key, (unsigned long long)max);
    *out = (uint64_t)v->valuedouble;
    return SINEW_OK;
}

sinew_result io_get_floats(const sinew_document *doc, const char *ctx, const cJSON *obj,
                           const char *key, int n, float *out, int *present, sinew_error *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    *present = 0;
    if (!a) return SINEW_OK;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: \"%s\" must hold %d numbers",
                               doc->name, ctx, key, n);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        if (!cJSON_IsNumber(v))
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: \"%s\" must hold %d numbers",
                                   doc->name, ctx, key, n);
        float f = (float)v->valuedouble;
        if (!isfinite(f))
            return sinew_error_set(err, SINEW_ERR_INVALID_VALUE, "%s: %s: \"%s\"[%d] is not finite",
                                   doc->name, ctx, key, i);
        out[i++] = f;
    }
    *present = 1;
    return SINEW_OK;
}

void io_set(cJSON *obj, const char *key, cJSON *item)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else
        cJSON_AddItemToObject(obj, key, item);
}

cJSON *io_float_array(const float *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
    return a;
}

cJSON *io_extension(const cJSON *obj, const char *name)
{
    cJSON *e =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "extensions"), name);
    return cJSON_IsObject(e) ? e : NULL;
}

void io_extension_drop(cJSON *obj, const char *name)
{
    cJSON *exts = cJSON_GetObjectItemCaseSensitive(obj, "extensions");
    if (!cJSON_IsObject(exts)) return;
    cJSON_DeleteItemFromObjectCaseSensitive(exts, name);
    if (!exts->child) cJSON_DeleteItemFromObjectCaseSensitive(obj, "extensions");
}

void io_extension_unlist(sinew_document *doc, const char *name)
{
    static const char *const lists[] = {"extensionsUsed", "extensionsRequired"};
    for (int l = 0; l < 2; l++) {
        cJSON *list = cJSON_GetObjectItemCaseSensitive(doc->root, lists[l]);
        if (!cJSON_IsArray(list)) continue;
        for (cJSON *e = list->child, *next; e; e = next) {
            next = e->next;
            if (cJSON_IsString(e) && !strcmp(e->valuestring, name))
                cJSON_Delete(cJSON_DetachItemViaPointer(list, e));
        }
        if (!list->child) cJSON_DeleteItemFromObjectCaseSensitive(doc->root, lists[l]);
    }
}
