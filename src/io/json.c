/* The top-level arrays by index (tables built once per document), and typed, range-checked
 * reads from the cJSON tree with messages naming file, object, key. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
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
    if (!cJSON_IsArray(array) && !io_set(doc->root, kind_keys[kind], array = cJSON_CreateArray()))
        array = NULL;
    if (!item || !array || !table_reserve(doc, t) || !io_push(array, item)) {
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

int io_set(cJSON *obj, const char *key, cJSON *item)
{
    cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!old) return io_add(obj, key, item);
    /* Not cJSON_ReplaceItemInObject: cJSON 1.7.15 does not check its copy of the key and
     * leaves a member without a name (written "") when that allocation fails. */
    size_t n = strlen(key) + 1;
    char *copy = item ? cJSON_malloc(n) : NULL;
    if (!copy) {
        cJSON_Delete(item);
        return 0;
    }
    memcpy(copy, key, n);
    if (item->string && !(item->type & cJSON_StringIsConst)) cJSON_free(item->string);
    item->string = copy;
    item->type &= ~cJSON_StringIsConst;
    cJSON_ReplaceItemViaPointer(obj, old, item);
    return 1;
}

int io_add(cJSON *obj, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObject(obj, key, item)) return 1;
    cJSON_Delete(item);
    return 0;
}

void io_put(cJSON *obj, const char *literal_key, cJSON *item)
{
    cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, literal_key);
    if (!old) {
        cJSON_AddItemToObjectCS(obj, literal_key, item);
        return;
    }
    /* In the old member's place, so that the written member order stays the input's. */
    item->string = (char *)literal_key;
    item->type |= cJSON_StringIsConst;
    cJSON_ReplaceItemViaPointer(obj, old, item);
}

int io_push(cJSON *array, cJSON *item)
{
    if (item && cJSON_AddItemToArray(array, item)) return 1;
    cJSON_Delete(item);
    return 0;
}

cJSON *io_float_array(const float *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n && a; i++)
        if (!io_push(a, cJSON_CreateNumber((double)v[i]))) {
            cJSON_Delete(a);
            a = NULL;
        }
    return a;
}

sinew_result io_oom(const sinew_document *doc, sinew_error *err)
{
    return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
}

/* ---- what cJSON would accept, without allocating ----
 * cJSON_Parse returns NULL both for text it refuses and when an allocation fails, and says
 * nothing else. To tell the two apart, a failed parse is checked again here: this follows
 * cJSON 1.7's parser rule by rule (whitespace is any byte up to 32, numbers are what strtod
 * reads of the run of [0-9+-.eE], strings may hold raw controls, \u escapes must pair their
 * surrogates, at most CJSON_NESTING_LIMIT nested containers, anything may follow the root)
 * but allocates nothing, so text that passes here failed in cJSON for want of memory. */
typedef struct syntax {
    const char *p, *end;
    int depth;
} syntax;

static void syntax_space(syntax *s)
{
    while (s->p < s->end && (unsigned char)*s->p <= 32)
        s->p++;
}

static int syntax_hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (d > 15) return 0;
        v = v * 16 + d;
    }
    *out = v;
    return 1;
}

static int syntax_string(syntax *s)
{
    if (s->p >= s->end || *s->p != '"') return 0;
    const char *q = s->p + 1;
    for (; q < s->end && *q != '"'; q++) {
        if (*q != '\\') continue;
        if (++q >= s->end) return 0;
        if (*q != 'u') {
            if (!strchr("bfnrt\"\\/", *q)) return 0;
            continue;
        }
        unsigned first, second;
        if (s->end - (q - 1) < 6 || !syntax_hex4(q + 1, &first)) return 0;
        q += 4;
        if (first >= 0xDC00 && first <= 0xDFFF) return 0;
        if (first >= 0xD800 && first <= 0xDBFF) {
            if (s->end - (q + 1) < 6 || q[1] != '\\' || q[2] != 'u' ||
                !syntax_hex4(q + 3, &second) || second < 0xDC00 || second > 0xDFFF)
                return 0;
            q += 6;
        }
    }
    if (q >= s->end) return 0;
    s->p = q + 1;
    return 1;
}

static int syntax_number(syntax *s)
{
    char run[64]; /* cJSON reads at most 63 characters of a number */
    size_t n = 0;
    while (n < sizeof run - 1 && s->p + n < s->end && strchr("0123456789+-.eE", s->p[n]) && s->p[n])
        n++;
    memcpy(run, s->p, n);
    run[n] = 0;
    char *after;
    strtod(run, &after);
    if (after == run) return 0;
    s->p += after - run;
    return 1;
}

static int syntax_value(syntax *s);

/* An array or object after its opening bracket; `object` selects which. */
static int syntax_container(syntax *s, int object)
{
    if (s->depth >= CJSON_NESTING_LIMIT) return 0;
    s->depth++;
    s->p++;
    syntax_space(s);
    char close = object ? '}' : ']';
    if (s->p < s->end && *s->p == close) {
        s->p++;
        s->depth--;
        return 1;
    }
    for (;;) {
        syntax_space(s);
        if (object) {
            if (!syntax_string(s)) return 0;
            syntax_space(s);
            if (s->p >= s->end || *s->p != ':') return 0;
            s->p++;
            syntax_space(s);
        }
        if (!syntax_value(s)) return 0;
        syntax_space(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            continue;
        }
        if (s->p >= s->end || *s->p != close) return 0;
        s->p++;
        s->depth--;
        return 1;
    }
}

static int syntax_value(syntax *s)
{
    static const char *const words[] = {"null", "false", "true"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(s->end - s->p) >= n && !strncmp(s->p, words[i], n)) {
            s->p += n;
            return 1;
        }
    }
    if (s->p >= s->end) return 0;
    if (*s->p == '"') return syntax_string(s);
    if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9')) return syntax_number(s);
    if (*s->p == '[' || *s->p == '{') return syntax_container(s, *s->p == '{');
    return 0;
}

int io_json_parsable(const char *text, size_t size)
{
    syntax s = {text, text + size, 0};
    if (size >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) s.p += 3;
    syntax_space(&s);
    return size > 0 && syntax_value(&s);
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
