/* Geodesic distance over the welded mesh: Dijkstra's algorithm on edge lengths, settled one
 * vertex at a time so that a caller can stop a walk as soon as it knows enough, and reset
 * cheaply (only the vertices a walk touched are cleared) so that many short walks cost what
 * they visit, not the mesh's size. */
#include "rig_internal.h"

#include <float.h>
#include <string.h>

void rig_geodesic_free(rig_geodesic *geo)
{
    if (!geo) return;
    sinew_allocator al = geo->alloc;
    sinew_free(&al, geo->g);
    sinew_free(&al, geo->done);
    sinew_free(&al, geo->touched);
    sinew_free(&al, geo->heap);
    memset(geo, 0, sizeof *geo);
}

sinew_result rig_geodesic_init(rig_geodesic *geo, const sinew_rig_analysis *a, const sinew_model *m,
                               sinew_error *err)
{
    memset(geo, 0, sizeof *geo);
    geo->alloc = a->alloc;
    geo->a = a;
    geo->positions = m->mesh.positions;
    const uint32_t nv = a->vertex_count;
    geo->heap_capacity = a->adj_start[nv] + nv + 1; /* lazy deletion: one push per relaxation */
    geo->g = sinew_alloc(&geo->alloc, (size_t)nv + 1, sizeof *geo->g);
    geo->done = sinew_alloc(&geo->alloc, (size_t)nv + 1, 1);
    geo->touched = sinew_alloc(&geo->alloc, (size_t)nv + 1, sizeof *geo->touched);
    geo->heap = sinew_alloc(&geo->alloc, geo->heap_capacity, sizeof *geo->heap);
    if (!geo->g || !geo->done || !geo->touched || !geo->heap) {
        rig_geodesic_free(geo);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "geodesics: out of memory");
    }
    for (uint32_t v = 0; v < nv; v++)
        geo->g[v] = FLT_MAX;
    return SINEW_OK;
}

void rig_geodesic_reset(rig_geodesic *geo)
{
    for (uint32_t i = 0; i < geo->touched_count; i++) {
        geo->g[geo->touched[i]] = FLT_MAX;
        geo->done[geo->touched[i]] = 0;
    }
    geo->touched_count = 0;
    geo->heap_count = 0;
}

static int item_before(rig_heap_item a, rig_heap_item b)
{
    return a.g < b.g || (a.g == b.g && a.v < b.v); /* ties by index: deterministic order */
}

static void heap_push(rig_geodesic *geo, float g, uint32_t v)
{
    if (geo->heap_count >= geo->heap_capacity) return; /* cannot happen: see init */
    rig_heap_item it = {g, v};
    uint32_t i = geo->heap_count++;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!item_before(it, geo->heap[p])) break;
        geo->heap[i] = geo->heap[p];
        i = p;
    }
    geo->heap[i] = it;
}

static rig_heap_item heap_pop(rig_geodesic *geo)
{
    rig_heap_item *h = geo->heap, top = h[0], last = h[--geo->heap_count];
    uint32_t i = 0, n = geo->heap_count;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && item_before(h[c + 1], h[c])) c++;
        if (!item_before(h[c], last)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

static void touch(rig_geodesic *geo, uint32_t v)
{
    if (geo->g[v] == FLT_MAX) geo->touched[geo->touched_count++] = v;
}

void rig_geodesic_seed(rig_geodesic *geo, uint32_t v, float g)
{
    if (geo->done[v] || !(g < geo->g[v])) return;
    touch(geo, v);
    geo->g[v] = g;
    heap_push(geo, g, v);
}

int rig_geodesic_next(rig_geodesic *geo, uint32_t *v_out, float *g_out)
{
    const sinew_rig_analysis *a = geo->a;
    while (geo->heap_count) {
        rig_heap_item it = heap_pop(geo);
        if (geo->done[it.v] || it.g > geo->g[it.v]) continue;
        geo->done[it.v] = 1;
        for (uint32_t k = a->adj_start[it.v]; k < a->adj_start[it.v + 1]; k++) {
            uint32_t w = a->adj[k];
            if (geo->done[w]) continue;
            float ng = it.g + sinew_vec3_distance(geo->positions[it.v], geo->positions[w]);
            if (ng < geo->g[w]) {
                touch(geo, w);
                geo->g[w] = ng;
                heap_push(geo, ng, w);
            }
        }
        *v_out = it.v;
        *g_out = it.g;
        return 1;
    }
    return 0;
}
