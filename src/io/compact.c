/* What the writer leaves out: accessors an edit released (a replaced clip's keys, a replaced
 * attribute) that nothing references any more, and the bufferViews only they used, so that a
 * file solved or baked again does not carry every earlier answer's bytes. Accessors the file
 * itself left unused stay: the writer changes only what sinew's own edits made obsolete.
 *
 * The references are glTF 2.0's own (section 5, "Properties Reference"): a primitive's
 * attributes, indices and morph targets, a skin's inverseBindMatrices and an animation
 * sampler's input and output point at accessors; an accessor (and its sparse indices and
 * values) and an image point at bufferViews. An extension may point at either, so a file that
 * names one io_extension_is_known does not know is written with nothing left out. */
#include <string.h>

#include "io/internal.h"

void io_release_accessor(sinew_document *doc, int64_t index)
{
    const uint32_t n = io_count(doc, IO_ACCESSORS);
    if (index < 0 || index >= n) return;
    if (doc->released_count < n) {
        uint8_t *grown = sinew_realloc(&doc->alloc, doc->released, doc->released_count, n, 1);
        if (!grown) return;
        memset(grown + doc->released_count, 0, n - doc->released_count);
        doc->released = grown;
        doc->released_count = n;
    }
    doc->released[index] = 1;
}

/* 1 when every extension named anywhere in `item` (the keys of its "extensions" objects and
 * the names in extensionsUsed) is one io_extension_is_known knows. */
static int extensions_known(const cJSON *item)
{
    for (const cJSON *c = item->child; c; c = c->next) {
        if (c->string && !strcmp(c->string, "extensions") && cJSON_IsObject(c))
            for (const cJSON *e = c->child; e; e = e->next)
                if (!io_extension_is_known(e->string)) return 0;
        if (c->string && !strcmp(c->string, "extensionsUsed"))
            for (const cJSON *e = c->child; e; e = e->next)
                if (!cJSON_IsString(e) || !io_extension_is_known(e->valuestring)) return 0;
        if (c->child && !extensions_known(c)) return 0;
    }
    return 1;
}

/* Calls visit(ref, ctx) on every number in `json` that is an accessor index (which = 0) or a
 * bufferView index (which = 1), at the places glTF 2.0 puts them. */
typedef void (*visit_fn)(cJSON *ref, void *ctx);

static void visit_members(cJSON *obj, visit_fn visit, void *ctx)
{
    for (cJSON *c = obj ? obj->child : NULL; c; c = c->next)
        if (cJSON_IsNumber(c)) visit(c, ctx);
}

static void visit_member(cJSON *obj, const char *key, visit_fn visit, void *ctx)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsNumber(v)) visit(v, ctx);
}

static void visit_accessor_refs(cJSON *json, visit_fn visit, void *ctx)
{
    cJSON *mesh, *prim, *target, *skin, *anim, *smp;
    cJSON_ArrayForEach(mesh, cJSON_GetObjectItemCaseSensitive(json, "meshes"))
    {
        cJSON_ArrayForEach(prim, cJSON_GetObjectItemCaseSensitive(mesh, "primitives"))
        {
            visit_members(cJSON_GetObjectItemCaseSensitive(prim, "attributes"), visit, ctx);
            visit_member(prim, "indices", visit, ctx);
            cJSON_ArrayForEach(target, cJSON_GetObjectItemCaseSensitive(prim, "targets"))
            {
                visit_members(target, visit, ctx);
            }
        }
    }
    cJSON_ArrayForEach(skin, cJSON_GetObjectItemCaseSensitive(json, "skins"))
    {
        visit_member(skin, "inverseBindMatrices", visit, ctx);
    }
    cJSON_ArrayForEach(anim, cJSON_GetObjectItemCaseSensitive(json, "animations"))
    {
        cJSON_ArrayForEach(smp, cJSON_GetObjectItemCaseSensitive(anim, "samplers"))
        {
            visit_member(smp, "input", visit, ctx);
            visit_member(smp, "output", visit, ctx);
        }
    }
}

/* The bufferView references of one accessor (its own and its sparse parts'). */
static void visit_accessor_views(cJSON *acc, visit_fn visit, void *ctx)
{
    visit_member(acc, "bufferView", visit, ctx);
    cJSON *sparse = cJSON_GetObjectItemCaseSensitive(acc, "sparse");
    visit_member(cJSON_GetObjectItemCaseSensitive(sparse, "indices"), "bufferView", visit, ctx);
    visit_member(cJSON_GetObjectItemCaseSensitive(sparse, "values"), "bufferView", visit, ctx);
}

typedef struct index_map {
    uint32_t count; /* items in the array */
    uint8_t *marks; /* count: what the visit marks */
    int32_t *remap; /* count: new index, -1 for a dropped item */
} index_map;

static void mark(cJSON *ref, void *ctx)
{
    index_map *m = ctx;
    const double v = ref->valuedouble;
    if (v >= 0 && v < m->count) m->marks[(uint32_t)v] = 1;
}

static void renumber(cJSON *ref, void *ctx)
{
    index_map *m = ctx;
    const double v = ref->valuedouble;
    if (v >= 0 && v < m->count) cJSON_SetNumberValue(ref, m->remap[(uint32_t)v]);
}

/* Removes the items of json[key] whose remap is -1 (the key too when none is left). */
static void drop_items(cJSON *json, const char *key, const index_map *m)
{
    cJSON *array = cJSON_GetObjectItemCaseSensitive(json, key);
    uint32_t i = 0;
    for (cJSON *c = array ? array->child : NULL, *next; c; c = next, i++) {
        next = c->next;
        if (i < m->count && m->remap[i] < 0) cJSON_Delete(cJSON_DetachItemViaPointer(array, c));
    }
    if (array && !array->child) cJSON_DeleteItemFromObjectCaseSensitive(json, key);
}

/* Fills m->remap from `drop` flags; returns how many items are dropped. */
static uint32_t build_remap(index_map *m, const uint8_t *drop)
{
    uint32_t next = 0, dropped = 0;
    for (uint32_t i = 0; i < m->count; i++) {
        m->remap[i] = drop[i] ? -1 : (int32_t)next++;
        dropped += drop[i] != 0;
    }
    return dropped;
}

sinew_result io_compact(const sinew_document *doc, cJSON *json, sinew_error *err)
{
    const uint32_t na =
        (uint32_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "accessors"));
    const uint32_t nv =
        (uint32_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "bufferViews"));
    int any = 0;
    for (uint32_t i = 0; i < doc->released_count && i < na && !any; i++)
        any = doc->released[i];
    if (!any || !extensions_known(json)) return SINEW_OK;

    const sinew_allocator *a = &doc->alloc;
    index_map acc = {na, sinew_alloc(a, na + 1, 1), sinew_alloc(a, na + 1, sizeof(int32_t))};
    index_map view = {nv, sinew_alloc(a, nv + 1, 1), sinew_alloc(a, nv + 1, sizeof(int32_t))};
    uint8_t *drop = sinew_alloc(a, (na > nv ? na : nv) + 1, 1);
    const cJSON **items = sinew_alloc(a, na + 1, sizeof *items);
    sinew_result r = SINEW_OK;
    if (!acc.marks || !acc.remap || !view.marks || !view.remap || !drop || !items) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
        goto done;
    }
    /* accessors: released and referenced by nothing */
    visit_accessor_refs(json, mark, &acc);
    for (uint32_t i = 0; i < na; i++)
        drop[i] = i < doc->released_count && doc->released[i] && !acc.marks[i];
    if (build_remap(&acc, drop) == 0) goto done;

    /* bufferViews: used by a dropped accessor and by nothing that stays */
    uint32_t k = 0;
    cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(json, "accessors"))
    {
        items[k++] = item;
    }
    for (uint32_t i = 0; i < na; i++)
        if (acc.remap[i] < 0) visit_accessor_views((cJSON *)items[i], mark, &view);
    memcpy(drop, view.marks, nv); /* candidates */
    memset(view.marks, 0, nv);
    for (uint32_t i = 0; i < na; i++)
        if (acc.remap[i] >= 0) visit_accessor_views((cJSON *)items[i], mark, &view);
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(json, "images"))
    {
        visit_member(item, "bufferView", mark, &view);
    }
    for (uint32_t i = 0; i < nv; i++)
        drop[i] = drop[i] && !view.marks[i];
    const uint32_t dropped_views = build_remap(&view, drop);

    drop_items(json, "accessors", &acc);
    visit_accessor_refs(json, renumber, &acc);
    if (dropped_views) {
        drop_items(json, "bufferViews", &view);
        cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(json, "accessors"))
        {
            visit_accessor_views(item, renumber, &view);
        }
        cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(json, "images"))
        {
            visit_member(item, "bufferView", renumber, &view);
        }
    }

done:
    sinew_free(a, acc.marks);
    sinew_free(a, acc.remap);
    sinew_free(a, view.marks);
    sinew_free(a, view.remap);
    sinew_free(a, drop);
    sinew_free(a, items);
    return r;
}
