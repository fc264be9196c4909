/* Exact nearest-point queries over a fixed point set: a uniform grid with about two points per
 * occupied cell along a surface; the search grows shell by shell until no closer point can
 * exist, so it is exact. Shared by the correspondence (the surface solve's method: nearest
 * vertex in the aligned rest poses) and the similarity alignment's ICP (align.c). */
#include "solve_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

static int32_t clampi(double v, int32_t hi)
{
    if (!(v > 0)) return 0;
    if (v >= hi) return hi - 1;
    return (int32_t)v;
}

void solve_grid_free(solve_grid *g)
{
    if (!g) return;
    sinew_free(&g->alloc, g->start);
    sinew_free(&g->alloc, g->items);
    g->start = g->items = NULL;
}

sinew_result solve_grid_build(solve_grid *g, const sinew_vec3 *points, uint32_t count,
                              double per_cell, const sinew_allocator *allocator, sinew_error *err)
{
    memset(g, 0, sizeof *g);
    if (allocator) g->alloc = *allocator;
    if (count == 0) return sinew_error_set(err, SINEW_ERR_ARGUMENT, "solve: no points to search");
    g->points = points;
    g->count = count;
    sinew_vec3 lo = points[0], hi = lo;
    for (uint32_t i = 1; i < count; i++) {
        const sinew_vec3 p = points[i];
        lo = sinew_vec3_make(fminf(lo.x, p.x), fminf(lo.y, p.y), fminf(lo.z, p.z));
        hi = sinew_vec3_make(fmaxf(hi.x, p.x), fmaxf(hi.y, p.y), fmaxf(hi.z, p.z));
    }
    g->lo = lo;
    g->hi = hi;
    const double ex = (double)hi.x - lo.x, ey = (double)hi.y - lo.y, ez = (double)hi.z - lo.z;
    const double ext = fmax(ex, fmax(ey, ez));
    if (!isfinite(ext))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "solve: source positions are not finite");
    /* Cell size: surface meshes fill ~N^(2/3) cells of a cube of N cells; aim at ~per_cell
     * points per cell along a surface by cells of ext / sqrt(N / per_cell), at most 256 per
     * axis. The answer does not depend on it (exact, ties to the smallest index), only the
     * cost: queries far from the surface visit fewer cells of a coarser grid. */
    double cells_per_axis = sqrt((double)count / per_cell);
    if (cells_per_axis < 1) cells_per_axis = 1;
    if (cells_per_axis > 256) cells_per_axis = 256;
    const double cell = ext > 0 ? ext / cells_per_axis : 1.0;
    g->cell = cell;
    const int32_t nx = clampi(ex / cell, 256) + 1, ny = clampi(ey / cell, 256) + 1,
                  nz = clampi(ez / cell, 256) + 1;
    g->n[0] = nx;
    g->n[1] = ny;
    g->n[2] = nz;
    const size_t ncell = (size_t)nx * ny * nz;
    g->start = sinew_alloc(&g->alloc, ncell + 1, sizeof(uint32_t));
    g->items = sinew_alloc(&g->alloc, count, sizeof(uint32_t));
    uint32_t *cell_of = sinew_alloc(&g->alloc, count, sizeof(uint32_t));
    uint32_t *cursor = sinew_alloc(&g->alloc, ncell, sizeof(uint32_t));
    if (!g->start || !g->items || !cell_of || !cursor) {
        sinew_free(&g->alloc, cell_of);
        sinew_free(&g->alloc, cursor);
        solve_grid_free(g);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    uint32_t *start = g->start;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_vec3 p = points[i];
        const int32_t cx = clampi((p.x - lo.x) / cell, nx), cy = clampi((p.y - lo.y) / cell, ny),
                      cz = clampi((p.z - lo.z) / cell, nz);
        cell_of[i] = (uint32_t)(((size_t)cz * ny + cy) * nx + cx);
        start[cell_of[i] + 1]++;
    }
    for (size_t c = 0; c < ncell; c++)
        start[c + 1] += start[c];
    /* counting sort, stable: items of a cell in increasing index order */
    for (uint32_t i = 0; i < count; i++)
        g->items[start[cell_of[i]] + cursor[cell_of[i]]++] = i;
    sinew_free(&g->alloc, cursor);
    sinew_free(&g->alloc, cell_of);
    return SINEW_OK;
}

double solve_grid_box_distance(const solve_grid *g, sinew_vec3 p)
{
    /* Rounding is monotone, so each axis term, and the root of their sum, never exceeds the
     * same computation for any point inside the box: a true lower bound in floating point. */
    const double dx = fmax(0.0, fmax((double)g->lo.x - p.x, (double)p.x - g->hi.x));
    const double dy = fmax(0.0, fmax((double)g->lo.y - p.y, (double)p.y - g->hi.y));
    const double dz = fmax(0.0, fmax((double)g->lo.z - p.z, (double)p.z - g->hi.z));
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Distance in cells from grid coordinate g to cell k's slab on one axis; the first and last
 * cells are open-ended (they hold every point clamped into them). */
static double axis_gap(double g, int32_t k, int32_t n)
{
    if (k > 0 && g < k) return k - g;
    if (k < n - 1 && g > k + 1) return g - (k + 1);
    return 0;
}

double solve_grid_nearest(const solve_grid *g, sinew_vec3 p, double max_d2, uint32_t *index)
{
    const sinew_vec3 lo = g->lo;
    const double cell = g->cell;
    const int32_t nx = g->n[0], ny = g->n[1], nz = g->n[2];
    const double gx = (p.x - lo.x) / cell, gy = (p.y - lo.y) / cell, gz = (p.z - lo.z) / cell;
    const int32_t cx = clampi(gx, nx), cy = clampi(gy, ny), cz = clampi(gz, nz);
    double best = DBL_MAX;
    uint32_t best_i = 0;
    for (int32_t r = 0;; r++) {
        /* every cell at Chebyshev ring r around (cx, cy, cz); a cell whose box is farther
         * than the best so far cannot hold a closer point or an equal one, and is skipped:
         * the answer is unchanged. The margin of 1e-3 cell covers the float rounding of
         * grid coordinates (at most ~256 * 6e-8 cell per axis); the grid's first and last
         * cells are open-ended since they hold clamped points. */
        const double reach = best < DBL_MAX ? sqrt(best) / cell + 1e-3 : DBL_MAX;
        const double reach2 = reach < DBL_MAX ? reach * reach : DBL_MAX;
        for (int32_t z = cz - r; z <= cz + r; z++) {
            if (z < 0 || z >= nz) continue;
            const double oz = axis_gap(gz, z, nz);
            for (int32_t y = cy - r; y <= cy + r; y++) {
                if (y < 0 || y >= ny) continue;
                const double oy = axis_gap(gy, y, ny), oyz = oy * oy + oz * oz;
                if (oyz > reach2) continue;
                const int ring_yz = (z == cz - r || z == cz + r || y == cy - r || y == cy + r);
                for (int32_t x = cx - r; x <= cx + r; x += (ring_yz || r == 0) ? 1 : 2 * r) {
                    if (x < 0 || x >= nx) continue;
                    const double ox = axis_gap(gx, x, nx);
                    if (ox * ox + oyz > reach2) continue;
                    const size_t c = ((size_t)z * ny + y) * nx + x;
                    for (uint32_t e = g->start[c]; e < g->start[c + 1]; e++) {
                        const sinew_vec3 q = g->points[g->items[e]];
                        const double dx = (double)q.x - p.x, dy = (double)q.y - p.y,
                                     dz = (double)q.z - p.z;
                        const double d2 = dx * dx + dy * dy + dz * dz;
                        if (d2 < best || (d2 == best && g->items[e] < best_i)) {
                            best = d2;
                            best_i = g->items[e];
                        }
                    }
                }
            }
        }
        /* Unvisited points lie outside the box of cells [c - r, c + r + 1) on some axis;
         * sides at the grid's edge hide no points. Stop once none can be closer. */
        const double gg[3] = {gx, gy, gz};
        const int32_t cc[3] = {cx, cy, cz}, nn[3] = {nx, ny, nz};
        double safe = DBL_MAX;
        for (int ax = 0; ax < 3; ax++) {
            if (cc[ax] - r > 0) safe = fmin(safe, gg[ax] - (cc[ax] - r));
            if (cc[ax] + r + 1 < nn[ax]) safe = fmin(safe, (cc[ax] + r + 1) - gg[ax]);
        }
        if (safe == DBL_MAX) break; /* every cell visited */
        if (best < DBL_MAX && safe > 0 && best <= (safe * cell) * (safe * cell)) break;
        /* a bounded query: nothing unvisited is within reach */
        if (max_d2 < DBL_MAX && safe > 0 && (safe * cell) * (safe * cell) > max_d2) break;
    }
    if (best > max_d2) {
        *index = UINT32_MAX;
        return DBL_MAX;
    }
    *index = best_i;
    return best;
}
