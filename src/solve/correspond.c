/* Correspondence between two meshes of one creature: nearest source vertex for every target
 * vertex in their aligned bind-space (rest) poses (seed 004, "O metodo": exact when both
 * represent the same animal). A uniform grid with about two source points per occupied
 * cell; the search grows shell by shell until no closer point can exist, so it is exact. */
#include "solve_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

static int same_mesh(const sinew_mesh *a, const sinew_mesh *b)
{
    if (a->vertex_count != b->vertex_count) return 0;
    for (uint32_t i = 0; i < a->vertex_count; i++)
        if (a->positions[i].x != b->positions[i].x || a->positions[i].y != b->positions[i].y ||
            a->positions[i].z != b->positions[i].z)
            return 0;
    return 1;
}

static int32_t clampi(double v, int32_t hi)
{
    if (!(v > 0)) return 0;
    if (v >= hi) return hi - 1;
    return (int32_t)v;
}

sinew_result sinew_solve_correspond(const sinew_model *source, const sinew_model *target,
                                    const sinew_allocator *allocator, uint32_t *nearest,
                                    sinew_correspondence_stats *stats, sinew_error *err)
{
    const sinew_mesh *sm = &source->mesh, *tm = &target->mesh;
    if (sm->vertex_count == 0 || tm->vertex_count == 0)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "solve: %s mesh is empty",
                               sm->vertex_count == 0 ? "the source" : "the target");
    sinew_correspondence_stats st;
    memset(&st, 0, sizeof st);
    st.diagonal = target->size.diagonal;
    if (same_mesh(sm, tm)) {
        for (uint32_t i = 0; i < tm->vertex_count; i++)
            nearest[i] = i;
        st.identity = 1;
        if (stats) *stats = st;
        return SINEW_OK;
    }
    /* Grid over the source's box. */
    sinew_vec3 lo = sm->positions[0], hi = lo;
    for (uint32_t i = 1; i < sm->vertex_count; i++) {
        const sinew_vec3 p = sm->positions[i];
        lo = sinew_vec3_make(fminf(lo.x, p.x), fminf(lo.y, p.y), fminf(lo.z, p.z));
        hi = sinew_vec3_make(fmaxf(hi.x, p.x), fmaxf(hi.y, p.y), fmaxf(hi.z, p.z));
    }
    const double ex = (double)hi.x - lo.x, ey = (double)hi.y - lo.y, ez = (double)hi.z - lo.z;
    const double ext = fmax(ex, fmax(ey, ez));
    if (!isfinite(ext))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "solve: source positions are not finite");
    /* Cell size: surface meshes fill ~N^(2/3) cells of a cube of N cells; aim at ~2 points
     * per cell along a surface by cells of ext / sqrt(N / 2), at most 256 per axis. */
    double cells_per_axis = sqrt((double)sm->vertex_count / 2.0);
    if (cells_per_axis < 1) cells_per_axis = 1;
    if (cells_per_axis > 256) cells_per_axis = 256;
    double cell = ext > 0 ? ext / cells_per_axis : 1.0;
    const int32_t nx = clampi(ex / cell, 256) + 1, ny = clampi(ey / cell, 256) + 1,
                  nz = clampi(ez / cell, 256) + 1;
    const size_t ncell = (size_t)nx * ny * nz;
    sinew_allocator alloc = {0};
    if (allocator) alloc = *allocator;
    uint32_t *start = sinew_alloc(&alloc, ncell + 1, sizeof(uint32_t));
    uint32_t *items = sinew_alloc(&alloc, sm->vertex_count, sizeof(uint32_t));
    uint32_t *cell_of = sinew_alloc(&alloc, sm->vertex_count, sizeof(uint32_t));
    if (!start || !items || !cell_of) {
        sinew_free(&alloc, start);
        sinew_free(&alloc, items);
        sinew_free(&alloc, cell_of);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    for (uint32_t i = 0; i < sm->vertex_count; i++) {
        const sinew_vec3 p = sm->positions[i];
        const int32_t cx = clampi((p.x - lo.x) / cell, nx), cy = clampi((p.y - lo.y) / cell, ny),
                      cz = clampi((p.z - lo.z) / cell, nz);
        cell_of[i] = (uint32_t)(((size_t)cz * ny + cy) * nx + cx);
        start[cell_of[i] + 1]++;
    }
    for (size_t c = 0; c < ncell; c++)
        start[c + 1] += start[c];
    {
        /* counting sort, stable: fill from a moving cursor kept in cell_of's slot order */
        uint32_t *cursor = sinew_alloc(&alloc, ncell, sizeof(uint32_t));
        if (!cursor) {
            sinew_free(&alloc, start);
            sinew_free(&alloc, items);
            sinew_free(&alloc, cell_of);
            return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
        }
        for (uint32_t i = 0; i < sm->vertex_count; i++)
            items[start[cell_of[i]] + cursor[cell_of[i]]++] = i;
        sinew_free(&alloc, cursor);
    }
    double sum = 0, worst = 0;
    for (uint32_t t = 0; t < tm->vertex_count; t++) {
        const sinew_vec3 p = tm->positions[t];
        const double gx = (p.x - lo.x) / cell, gy = (p.y - lo.y) / cell, gz = (p.z - lo.z) / cell;
        const int32_t cx = clampi(gx, nx), cy = clampi(gy, ny), cz = clampi(gz, nz);
        double best = DBL_MAX;
        uint32_t best_i = 0;
        for (int32_t r = 0;; r++) {
            /* every cell at Chebyshev ring r around (cx, cy, cz) */
            for (int32_t z = cz - r; z <= cz + r; z++) {
                if (z < 0 || z >= nz) continue;
                for (int32_t y = cy - r; y <= cy + r; y++) {
                    if (y < 0 || y >= ny) continue;
                    const int ring_yz = (z == cz - r || z == cz + r || y == cy - r || y == cy + r);
                    for (int32_t x = cx - r; x <= cx + r; x += (ring_yz || r == 0) ? 1 : 2 * r) {
                        if (x < 0 || x >= nx) continue;
                        const size_t c = ((size_t)z * ny + y) * nx + x;
                        for (uint32_t e = start[c]; e < start[c + 1]; e++) {
                            const sinew_vec3 q = sm->positions[items[e]];
                            const double dx = (double)q.x - p.x, dy = (double)q.y - p.y,
                                         dz = (double)q.z - p.z;
                            const double d2 = dx * dx + dy * dy + dz * dz;
                            if (d2 < best || (d2 == best && items[e] < best_i)) {
                                best = d2;
                                best_i = items[e];
                            }
                        }
                    }
                }
            }
            /* Unvisited points lie outside the box of cells [c - r, c + r + 1) on some axis;
             * sides at the grid's edge hide no points. Stop once none can be closer. */
            const double g[3] = {gx, gy, gz};
            const int32_t cc[3] = {cx, cy, cz}, nn[3] = {nx, ny, nz};
            double safe = DBL_MAX;
            for (int ax = 0; ax < 3; ax++) {
                if (cc[ax] - r > 0) safe = fmin(safe, g[ax] - (cc[ax] - r));
                if (cc[ax] + r + 1 < nn[ax]) safe = fmin(safe, (cc[ax] + r + 1) - g[ax]);
            }
            if (safe == DBL_MAX) break; /* every cell visited */
            if (best < DBL_MAX && safe > 0 && best <= (safe * cell) * (safe * cell)) break;
        }
        nearest[t] = best_i;
        const double d = sqrt(best);
        sum += d;
        if (d > worst) worst = d;
    }
    sinew_free(&alloc, start);
    sinew_free(&alloc, items);
    sinew_free(&alloc, cell_of);
    st.mean_distance = (float)(sum / tm->vertex_count);
    st.max_distance = (float)worst;
    if (stats) *stats = st;
    if (!(st.mean_distance <= SINEW_SOLVE_MAX_MEAN_NEAREST * st.diagonal))
        return sinew_error_set(
            err, SINEW_ERR_INVALID_VALUE,
            "solve: the source and target meshes do not overlap in bind space: mean nearest "
            "distance %.4g is %.2f%% of the target diagonal %.4g (limit %.0f%%); they must be "
            "the same creature in the same place and units",
            (double)st.mean_distance,
            100.0 * st.mean_distance / (st.diagonal > 0 ? st.diagonal : 1), (double)st.diagonal,
            100.0 * SINEW_SOLVE_MAX_MEAN_NEAREST);
    return SINEW_OK;
}
