/* Reading vertex colours (COLOR_0) back in the model's vertex order: the heat maps that
 * `sinew solve --heatmap` writes are shown by `sinew render --heat`. */
#include "internal.h"

#include <stdlib.h>

/* Where the last primitive look-up ended. */
typedef struct prim_cursor {
    const cJSON *mesh, *prim;
    int32_t index;
} prim_cursor;

/* Primitive `p` of `mesh`. Ranges list a node's primitives in increasing order, so walking on
 * from the last look-up in the same mesh keeps the walks linear in the primitives. */
static const cJSON *primitive_at(prim_cursor *c, const cJSON *mesh, int32_t p)
{
    if (p < 0) return NULL;
    if (c->mesh != mesh || !c->prim || p < c->index) {
        c->mesh = mesh;
        c->prim = io_array(mesh, "primitives") ? io_array(mesh, "primitives")->child : NULL;
        c->index = 0;
    }
    while (c->prim && c->index < p) {
        c->prim = c->prim->next;
        c->index++;
    }
    return c->prim;
}

sinew_result sinew_document_read_colors(const sinew_document *doc, const sinew_model *model,
                                        float *rgb, sinew_error *err)
{
    int found = 0;
    prim_cursor cursor = {NULL, NULL, 0};
    for (uint32_t r = 0; r < model->mesh.range_count; r++) {
        const sinew_primitive_range *range = &model->mesh.ranges[r];
        float *out = &rgb[3 * (size_t)range->first_vertex];
        for (size_t i = 0; i < 3 * (size_t)range->vertex_count; i++)
            out[i] = 1.0f;
        if (range->gltf_mesh < 0) continue;
        const cJSON *mesh = io_item(doc, IO_MESHES, (uint32_t)range->gltf_mesh);
        const cJSON *prim = primitive_at(&cursor, mesh, range->gltf_primitive);
        const cJSON *attributes =
            prim ? cJSON_GetObjectItemCaseSensitive(prim, "attributes") : NULL;
        const cJSON *color =
            attributes ? cJSON_GetObjectItemCaseSensitive(attributes, "COLOR_0") : NULL;
        if (!cJSON_IsNumber(color)) continue;
        io_accessor a;
        sinew_result res = io_accessor_resolve(doc, (uint32_t)color->valuedouble, &a, err);
        if (res != SINEW_OK) return res;
        if ((a.components != 3 && a.components != 4) || a.count != range->vertex_count)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: mesh %d primitive %d: COLOR_0 (accessor %u) has %u "
                                   "elements of %u components for %u vertices",
                                   doc->name, range->gltf_mesh, range->gltf_primitive, a.index,
                                   a.count, a.components, range->vertex_count);
        float *values = malloc((size_t)a.count * a.components * sizeof *values + 1);
        if (!values) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
        io_accessor_read_float(&a, values);
        for (uint32_t v = 0; v < a.count; v++)
            for (int c = 0; c < 3; c++) {
                float x = values[(size_t)v * a.components + (size_t)c];
                out[3 * (size_t)v + (size_t)c] = isfinite(x) ? (x < 0 ? 0 : (x > 1 ? 1 : x)) : 0;
            }
        free(values);
        found = 1;
    }
    if (!found)
        return sinew_error_set(err, SINEW_ERR_NOT_FOUND, "%s: the skinned mesh has no COLOR_0",
                               doc->name);
    return SINEW_OK;
}
