/* The welded mesh graph. Exporters split vertices at UV and hard-normal seams, so the face
 * graph alone breaks a tail into dozens of islands: vertices are welded by position first,
 * the graph, the triangles and the shells (connected components) are built on the welded
 * representatives, and results are written back to every original vertex. */
#include "rig_internal.h"

#include <stdlib.h>
#include <string.h>

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void uf_union(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a == b) return;
    /* The smaller index becomes the root: deterministic labels. */
    if (a < b)
        parent[b] = a;
    else
        parent[a] = b;
}

sinew_result rig_build_graph(sinew_rig_analysis *a, const sinew_model *m, sinew_error *err)
{
    const uint32_t nv = m->mesh.vertex_count, nt = m->mesh.triangle_count;
    const uint32_t *tri = m->mesh.triangles;
    const uint32_t *weld = a->weld;
    a->adj_start = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *a->adj_start);
    a->adj = sinew_alloc(&a->alloc, 6 * (size_t)nt + 1, sizeof *a->adj);
    a->shell = sinew_alloc(&a->alloc, nv, sizeof *a->shell);
    if (!a->adj_start || !a->adj || !a->shell)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "mesh graph: out of memory");
    for (uint32_t t = 0; t < nt; t++)
        for (int e = 0; e < 3; e++) {
            uint32_t u = tri[3 * t + e], w = tri[3 * t + (e + 1) % 3];
            if (u >= nv || w >= nv) continue;
            u = weld[u];
            w = weld[w];
            if (u == w) continue;
            a->adj_start[u + 1]++;
            a->adj_start[w + 1]++;
        }
    for (uint32_t v = 0; v < nv; v++)
        a->adj_start[v + 1] += a->adj_start[v];
    uint32_t *cursor = a->shell; /* borrowed, overwritten below */
    for (uint32_t v = 0; v < nv; v++)
        cursor[v] = a->adj_start[v];
    for (uint32_t t = 0; t < nt; t++)
        for (int e = 0; e < 3; e++) {
            uint32_t u = tri[3 * t + e], w = tri[3 * t + (e + 1) % 3];
            if (u >= nv || w >= nv) continue;
            u = weld[u];
            w = weld[w];
            if (u == w) continue;
            a->adj[cursor[u]++] = w;
            a->adj[cursor[w]++] = u;
        }
    /* Welded triangles and the triangles around each representative. */
    a->wtri = sinew_alloc(&a->alloc, 3 * (size_t)nt + 1, sizeof *a->wtri);
    a->wtri_start = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *a->wtri_start);
    a->wtri_of = sinew_alloc(&a->alloc, 3 * (size_t)nt + 1, sizeof *a->wtri_of);
    if (!a->wtri || !a->wtri_start || !a->wtri_of)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "mesh graph: out of memory");
    a->wtri_count = 0;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t x[3];
        int ok = 1;
        for (int e = 0; e < 3; e++) {
            uint32_t u = tri[3 * t + e];
            ok &= u < nv;
            x[e] = ok ? weld[u] : 0;
        }
        if (!ok || x[0] == x[1] || x[1] == x[2] || x[0] == x[2]) continue;
        memcpy(&a->wtri[3 * (size_t)a->wtri_count], x, sizeof x);
        for (int e = 0; e < 3; e++)
            a->wtri_start[x[e] + 1]++;
        a->wtri_count++;
    }
    for (uint32_t v = 0; v < nv; v++)
        a->wtri_start[v + 1] += a->wtri_start[v];
    for (uint32_t v = 0; v < nv; v++)
        cursor[v] = a->wtri_start[v];
    for (uint32_t t = 0; t < a->wtri_count; t++)
        for (int e = 0; e < 3; e++)
            a->wtri_of[cursor[a->wtri[3 * (size_t)t + e]]++] = t;
    /* Shells: connected components of the whole welded mesh. */
    for (uint32_t v = 0; v < nv; v++)
        a->shell[v] = v;
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t k = a->adj_start[v]; k < a->adj_start[v + 1]; k++)
            uf_union(a->shell, v, a->adj[k]);
    for (uint32_t v = 0; v < nv; v++)
        a->shell[v] = uf_find(a->shell, v);
    return SINEW_OK;
}

/* Cell key of a position on a grid of spacing `cell`. */
static uint64_t cell_key(int64_t x, int64_t y, int64_t z)
{
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)y * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
    h ^= (uint64_t)z * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
    return h;
}

/* The grid cell of one coordinate, saturated at 2^62 cells from the origin so the conversion
 * stays defined for a point far from the rest (cells only bucket candidates: positions are
 * compared exactly afterwards, so far points sharing a boundary cell is harmless). */
static int64_t cell_index(float coordinate, double inverse_spacing)
{
    const double limit = 4611686018427387904.0; /* 2^62 */
    const double c = floor((double)coordinate * inverse_spacing);
    return c >= limit ? (int64_t)limit : c <= -limit ? -(int64_t)limit : (int64_t)c;
}

static int compare_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Marks open[v] = 1 for the candidates (cand[v] set; exact-weld representatives) that lie on
 * an edge only one triangle uses, with the vertices joined at exact positions: the rim of an
 * exporter's seam, where a copy of the vertex on the other side belongs. Returns 0 when out
 * of memory. */
static int mark_open(const sinew_rig_analysis *a, const sinew_model *m, const uint8_t *cand,
                     uint8_t *open)
{
    const sinew_mesh *mesh = &m->mesh;
    const uint32_t *exact = mesh->weld;
#define EXACT(v) (exact ? exact[v] : (v))
    size_t n = 0;
    for (uint32_t t = 0; t < mesh->triangle_count; t++)
        for (int c = 0; c < 3; c++)
            n += 2 * (size_t)cand[EXACT(mesh->triangles[3 * (size_t)t + (size_t)c])];
    uint64_t *key = sinew_alloc(&a->alloc, n + 1, sizeof *key);
    if (!key) return 0;
    n = 0;
    for (uint32_t t = 0; t < mesh->triangle_count; t++)
        for (int c = 0; c < 3; c++) {
            const uint32_t v = EXACT(mesh->triangles[3 * (size_t)t + (size_t)c]);
            if (!cand[v]) continue;
            key[n++] =
                (uint64_t)v << 32 | EXACT(mesh->triangles[3 * (size_t)t + (size_t)(c + 1) % 3]);
            key[n++] =
                (uint64_t)v << 32 | EXACT(mesh->triangles[3 * (size_t)t + (size_t)(c + 2) % 3]);
        }
#undef EXACT
    qsort(key, n, sizeof *key, compare_u64);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && key[j] == key[i])
            j++;
        if (j - i == 1) open[key[i] >> 32] = 1;
        i = j;
    }
    sinew_free(&a->alloc, key);
    return 1;
}

/* Appends the pair (v, w) to a growing array of pairs; 0 when out of memory. */
static int add_pair(const sinew_allocator *al, uint32_t **pairs, uint32_t *count,
                    uint32_t *capacity, uint32_t v, uint32_t w)
{
    if (*count == *capacity) {
        const uint32_t cap = *capacity ? 2 * *capacity : 256;
        uint32_t *grown = sinew_alloc(al, 2 * (size_t)cap, sizeof *grown);
        if (!grown) return 0;
        if (*count) memcpy(grown, *pairs, 2 * (size_t)*count * sizeof *grown);
        sinew_free(al, *pairs);
        *pairs = grown, *capacity = cap;
    }
    (*pairs)[2 * *count] = v, (*pairs)[2 * *count + 1] = w;
    (*count)++;
    return 1;
}

sinew_result rig_weld_tolerant(sinew_rig_analysis *a, const sinew_model *m, float tol,
                               sinew_error *err)
{
    const uint32_t nv = m->mesh.vertex_count;
    const sinew_vec3 *p = m->mesh.positions;
    uint32_t *weld = sinew_alloc(&a->alloc, nv + 1, sizeof *weld);
    uint32_t size = 16;
    while (size < 2 * nv)
        size *= 2;
    uint32_t *head = sinew_alloc(&a->alloc, size, sizeof *head);
    uint32_t *next = sinew_alloc(&a->alloc, nv + 1, sizeof *next);
    int64_t *cell = sinew_alloc(&a->alloc, 3 * (size_t)nv + 1, sizeof *cell);
    uint8_t *cand = sinew_alloc(&a->alloc, nv + 1, 1), *open = sinew_alloc(&a->alloc, nv + 1, 1);
    uint32_t *pairs = NULL, pair_count = 0, pair_capacity = 0;
    sinew_result r = SINEW_OK;
    if (!weld || !head || !next || !cell || !cand || !open) goto oom;
    if (!(tol > 0)) tol = 1e-30f;
    const double inv = 1.0 / tol;
    for (uint32_t i = 0; i < size; i++)
        head[i] = RIG_NONE;
    for (uint32_t v = 0; v < nv; v++) {
        weld[v] = v;
        cell[3 * v] = cell_index(p[v].x, inv);
        cell[3 * v + 1] = cell_index(p[v].y, inv);
        cell[3 * v + 2] = cell_index(p[v].z, inv);
    }
    /* Visit vertices in index order; each looks for earlier vertices in the 27 cells around
     * it (hash buckets may mix cells: positions are compared, so that is harmless). */
    for (uint32_t v = 0; v < nv; v++) {
        /* Exact duplicates (seams) follow their representative: only it visits the grid. */
        if (m->mesh.weld && m->mesh.weld[v] < v) {
            uf_union(weld, v, m->mesh.weld[v]);
            continue;
        }
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    uint64_t k =
                        cell_key(cell[3 * v] + dx, cell[3 * v + 1] + dy, cell[3 * v + 2] + dz) &
                        (size - 1);
                    for (uint32_t w = head[k]; w != RIG_NONE; w = next[w])
                        if (cell[3 * w] == cell[3 * v] + dx &&
                            cell[3 * w + 1] == cell[3 * v + 1] + dy &&
                            cell[3 * w + 2] == cell[3 * v + 2] + dz &&
                            sinew_vec3_distance(p[v], p[w]) <= tol) {
                            if (!add_pair(&a->alloc, &pairs, &pair_count, &pair_capacity, v, w))
                                goto oom;
                            cand[v] = cand[w] = 1;
                        }
                }
        uint64_t k = cell_key(cell[3 * v], cell[3 * v + 1], cell[3 * v + 2]) & (size - 1);
        next[v] = head[k];
        head[k] = v;
    }
    /* Near, not equal: joined only where both lie on an open rim (a seam an exporter rounded
     * apart). Two closed surfaces that merely pass near each other (a sunk tail's tube
     * through a vertex of the rump: random seeds 64 and 161) stay apart, or a walk would
     * cross from one to the other through the pinch. */
    if (pair_count && !mark_open(a, m, cand, open)) goto oom;
    for (uint32_t i = 0; i < pair_count; i++)
        if (open[pairs[2 * i]] && open[pairs[2 * i + 1]])
            uf_union(weld, pairs[2 * i], pairs[2 * i + 1]);
    for (uint32_t v = 0; v < nv; v++)
        weld[v] = uf_find(weld, v);
    sinew_free(&a->alloc, a->owned_weld);
    a->weld = a->owned_weld = weld;
    weld = NULL;
    goto done;
oom:
    r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "weld: out of memory");
done:
    sinew_free(&a->alloc, weld);
    sinew_free(&a->alloc, head);
    sinew_free(&a->alloc, next);
    sinew_free(&a->alloc, cell);
    sinew_free(&a->alloc, cand);
    sinew_free(&a->alloc, open);
    sinew_free(&a->alloc, pairs);
    return r;
}
