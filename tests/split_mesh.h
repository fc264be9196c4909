/* Splitting every triangle of a model's mesh into four at its edge midpoints: a finer copy of
 * the same surface (what a sculpted or scanned creature brings, or a low-poly one subdivided
 * without smoothing). For bench/rig's 250,000-vertex copy and for the tests that the tail
 * finder places the same border on split copies. Header-only, bench and test code only. */
#ifndef SINEW_SPLIT_MESH_H
#define SINEW_SPLIT_MESH_H

#include <stdlib.h>
#include <string.h>

#include "mesh_arrays.h"
#include "sinew/model.h"

/* The influences of the midpoint of a and b: the two vertices' weights averaged by joint, the
 * largest SINEW_MAX_INFLUENCES kept, sorted descending, normalised. */
static inline void mix_influences(const sinew_mesh *m, uint32_t a, uint32_t b, uint16_t *joints,
                                  float *weights)
{
    uint16_t j[2 * SINEW_MAX_INFLUENCES];
    float w[2 * SINEW_MAX_INFLUENCES];
    uint32_t n = 0;
    const uint32_t ends[2] = {a, b};
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
            const size_t slot = (size_t)ends[e] * SINEW_MAX_INFLUENCES + (size_t)k;
            const float x = 0.5f * m->influence_weights[slot];
            if (!(x > 0)) continue;
            uint32_t i = 0;
            while (i < n && j[i] != m->influence_joints[slot])
                i++;
            if (i == n) j[n] = m->influence_joints[slot], w[n++] = 0;
            w[i] += x;
        }
    for (uint32_t i = 1; i < n; i++) /* insertion sort, descending */
        for (uint32_t k = i; k > 0 && w[k] > w[k - 1]; k--) {
            float tw = w[k];
            uint16_t tj = j[k];
            w[k] = w[k - 1], j[k] = j[k - 1], w[k - 1] = tw, j[k - 1] = tj;
        }
    if (n > SINEW_MAX_INFLUENCES) n = SINEW_MAX_INFLUENCES;
    float sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += w[i];
    for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
        joints[k] = (uint32_t)k < n ? j[k] : 0;
        weights[k] = (uint32_t)k < n && sum > 0 ? w[k] / sum : 0;
    }
}

typedef struct edge_ref {
    uint32_t lo, hi, corner; /* corner: 3 * triangle + the edge's first corner */
} edge_ref;

static inline int cmp_edge(const void *x, const void *y)
{
    const edge_ref *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return (a->corner > b->corner) - (a->corner < b->corner);
}

/* A label for a midpoint whose ends differ (split_mesh's `labels`). */
#define SPLIT_EITHER 0xFF

/* Splits every triangle of m into four at its edge midpoints (one new vertex per index pair,
 * so split seams stay split, as in the file). When `labels` is not NULL, *labels (a malloc'd
 * byte per vertex) is replaced by one for the split mesh: the old vertices keep theirs, a
 * midpoint takes its ends' when they agree, else SPLIT_EITHER. Returns 0 when out of
 * memory. */
static inline int split_mesh(sinew_model *model, uint8_t **labels)
{
    sinew_mesh *m = &model->mesh;
    const uint32_t nt = m->triangle_count, nv = m->vertex_count;
    edge_ref *e = malloc((size_t)3 * nt * sizeof *e);
    uint32_t *mid = malloc((size_t)3 * nt * sizeof *mid);
    if (!e || !mid) return free(e), free(mid), 0;
    for (uint32_t t = 0; t < nt; t++)
        for (int c = 0; c < 3; c++) {
            uint32_t a = m->triangles[3 * t + c], b = m->triangles[3 * t + (c + 1) % 3];
            e[3 * t + c] = (edge_ref){a < b ? a : b, a < b ? b : a, 3 * t + (uint32_t)c};
        }
    qsort(e, (size_t)3 * nt, sizeof *e, cmp_edge);
    uint32_t added = 0;
    for (uint32_t i = 0; i < 3 * nt; i++) {
        if (i == 0 || e[i].lo != e[i - 1].lo || e[i].hi != e[i - 1].hi) added++;
        mid[e[i].corner] = nv + added - 1;
    }
    const uint32_t vn = nv + added;
    sinew_allocator *al = &model->allocator;
    sinew_vec3 *pos = sinew_alloc(al, vn, sizeof *pos);
    uint32_t *tri = sinew_alloc(al, (size_t)12 * nt, sizeof *tri);
    uint16_t *ij = sinew_alloc(al, (size_t)vn * SINEW_MAX_INFLUENCES, sizeof *ij);
    float *iw = sinew_alloc(al, (size_t)vn * SINEW_MAX_INFLUENCES, sizeof *iw);
    uint32_t *weld = sinew_alloc(al, vn, sizeof *weld), *scratch = malloc((size_t)vn * 4);
    uint8_t *label = labels ? malloc(vn) : NULL;
    int ok = pos && tri && ij && iw && weld && scratch && (!labels || label);
    if (ok) {
        if (labels) memcpy(label, *labels, nv);
        memcpy(pos, m->positions, nv * sizeof *pos);
        memcpy(ij, m->influence_joints, (size_t)nv * SINEW_MAX_INFLUENCES * sizeof *ij);
        memcpy(iw, m->influence_weights, (size_t)nv * SINEW_MAX_INFLUENCES * sizeof *iw);
        for (uint32_t i = 0; i < 3 * nt; i++) {
            if (i && e[i].lo == e[i - 1].lo && e[i].hi == e[i - 1].hi) continue;
            const uint32_t v = mid[e[i].corner];
            pos[v] = sinew_vec3_lerp(m->positions[e[i].lo], m->positions[e[i].hi], 0.5f);
            mix_influences(m, e[i].lo, e[i].hi, ij + (size_t)v * SINEW_MAX_INFLUENCES,
                           iw + (size_t)v * SINEW_MAX_INFLUENCES);
            if (labels) label[v] = label[e[i].lo] == label[e[i].hi] ? label[e[i].lo] : SPLIT_EITHER;
        }
        for (uint32_t t = 0; t < nt; t++) {
            const uint32_t *x = &m->triangles[3 * t], *h = &mid[3 * t];
            const uint32_t quad[12] = {x[0], h[0], h[2], h[0], x[1], h[1],
                                       h[2], h[1], x[2], h[0], h[1], h[2]};
            memcpy(&tri[12 * (size_t)t], quad, sizeof quad);
        }
        install_mesh_arrays(model, vn, pos, ij, iw, weld, 4 * nt, tri, scratch);
        if (labels) free(*labels), *labels = label;
    } else {
        sinew_free(al, pos), sinew_free(al, tri), sinew_free(al, ij), sinew_free(al, iw);
        sinew_free(al, weld);
        free(label);
    }
    free(scratch), free(e), free(mid);
    return ok;
}

#endif
