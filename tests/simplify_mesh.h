/* Simplifying a model's mesh to a share of its triangles with meshoptimizer's edge collapses
 * (meshopt_simplify): a coarser copy of the same creature, what a game's lower level of detail
 * or a low-poly pack brings. Seams are welded first (a collapse never tears the surface open
 * at a UV seam), and the vertices left are a subset of the original's, which keep their
 * positions and weights, so a label per vertex carries over. Header-only, test code only. */
#ifndef SINEW_SIMPLIFY_MESH_H
#define SINEW_SIMPLIFY_MESH_H

#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_arrays.h"
#include "sinew/model.h"

/* Simplifies m to about `share` of its triangles (at most 1% of its size out of place). When
 * `labels` is not NULL, *labels (a malloc'd byte per vertex) is replaced by the kept vertices'.
 * Returns 0 when out of memory. */
static inline int simplify_mesh(sinew_model *model, float share, uint8_t **labels)
{
    sinew_mesh *m = &model->mesh;
    const uint32_t nv = m->vertex_count;
    const size_t ni = (size_t)3 * m->triangle_count;
    /* the welded vertices the triangles use, numbered 0..nu in order of first use */
    uint32_t *number = malloc((size_t)nv * sizeof *number), *used = malloc((size_t)nv * 4);
    unsigned *index = malloc(ni * sizeof *index), *kept = malloc(ni * sizeof *kept);
    sinew_vec3 *at = malloc((size_t)nv * sizeof *at);
    int ok = number && used && index && kept && at;
    uint32_t nu = 0;
    size_t nk = 0;
    if (ok) {
        memset(number, 0xFF, (size_t)nv * sizeof *number);
        for (size_t i = 0; i < ni; i++) {
            const uint32_t w = m->weld[m->triangles[i]];
            if (number[w] == UINT32_MAX) used[nu] = w, at[nu] = m->positions[w], number[w] = nu++;
            index[i] = number[w];
        }
        nk = meshopt_simplify(kept, index, ni, &at[0].x, nu, sizeof *at,
                              (size_t)(share * (float)ni) / 3 * 3, 0.01f, 0, NULL);
        /* the kept vertices, renumbered in their original order */
        memset(number, 0xFF, (size_t)nv * sizeof *number);
        for (size_t i = 0; i < nk; i++)
            number[used[kept[i]]] = 0;
    }
    uint32_t vn = 0;
    for (uint32_t v = 0; ok && v < nv; v++)
        if (number[v] != UINT32_MAX) number[v] = vn++;
    sinew_allocator *al = &model->allocator;
    sinew_vec3 *pos = ok ? sinew_alloc(al, vn, sizeof *pos) : NULL;
    uint32_t *tri = ok ? sinew_alloc(al, nk, sizeof *tri) : NULL;
    uint16_t *ij = ok ? sinew_alloc(al, (size_t)vn * SINEW_MAX_INFLUENCES, sizeof *ij) : NULL;
    float *iw = ok ? sinew_alloc(al, (size_t)vn * SINEW_MAX_INFLUENCES, sizeof *iw) : NULL;
    uint32_t *weld = ok ? sinew_alloc(al, vn, sizeof *weld) : NULL;
    uint8_t *label = ok && labels ? malloc(vn) : NULL;
    ok = ok && pos && tri && ij && iw && weld && (!labels || label);
    if (ok) {
        const size_t slots = SINEW_MAX_INFLUENCES;
        for (uint32_t v = 0; v < nv; v++) {
            const uint32_t u = number[v];
            if (u == UINT32_MAX) continue;
            pos[u] = m->positions[v];
            memcpy(&ij[u * slots], &m->influence_joints[v * slots], slots * sizeof *ij);
            memcpy(&iw[u * slots], &m->influence_weights[v * slots], slots * sizeof *iw);
            if (labels) label[u] = (*labels)[v];
        }
        for (size_t i = 0; i < nk; i++)
            tri[i] = number[used[kept[i]]];
        install_mesh_arrays(model, vn, pos, ij, iw, weld, (uint32_t)(nk / 3), tri, used);
        if (labels) free(*labels), *labels = label;
    } else {
        sinew_free(al, pos), sinew_free(al, tri), sinew_free(al, ij), sinew_free(al, iw);
        sinew_free(al, weld);
        free(label);
    }
    free(number), free(used), free(index), free(kept), free(at);
    return ok;
}

#endif
