/* Correspondence between two meshes of one creature: nearest source vertex for every target
 * vertex in their aligned bind-space (rest) poses (after Sidorkin, "Solve the surface, not the
 * skeleton": exact when both represent the same animal). The search is the exact grid of
 * grid.c. The meshes are first taken as they are; only when they do not overlap that way does
 * sinew_solve_correspond_aligned fit a similarity (align.c) and try again with the source
 * moved onto the target. */
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

/* The overlap test: the meshes must represent the same animal in one place. */
static int overlaps(float mean_distance, float diagonal)
{
    return mean_distance <= SINEW_SOLVE_MAX_MEAN_NEAREST * diagonal;
}

/* Past this multiple of the overlap limit a refusal's mean need not be exact. */
#define EXACT_UP_TO 5.0

/* Nearest of `points` for every vertex of `tm`: *mean and *worst over them. Stops early
 * (*partial = 1, *mean a lower bound) once the distances summed so far plus every remaining
 * vertex's distance to the points' box exceed EXACT_UP_TO times the overlap limit (so the
 * verdict is the one the full search would give, and a refusal still names the exact mean
 * up to 10% of the diagonal): a mesh far away is refused at once instead of scanning the
 * whole grid for every vertex (55 s for a 23,850-vertex fox in centimetres against itself in
 * metres). A passing search never stops early, so its answer is the exact nearest for every
 * vertex. */
static sinew_result nearest_points(const sinew_vec3 *points, uint32_t count, const sinew_mesh *tm,
                                   float diagonal, const sinew_allocator *alloc, uint32_t *nearest,
                                   float *mean, float *worst_out, int *partial, sinew_error *err)
{
    solve_grid g;
    sinew_result r = solve_grid_build(&g, points, count, 2.0, alloc, err);
    if (r != SINEW_OK) return r;
    const uint32_t V = tm->vertex_count;
    double rest = 0; /* lower bounds of the vertices not searched yet */
    for (uint32_t t = 0; t < V; t++)
        rest += solve_grid_box_distance(&g, tm->positions[t]);
    const double limit = EXACT_UP_TO * SINEW_SOLVE_MAX_MEAN_NEAREST * diagonal * V;
    double sum = 0, worst = 0;
    *partial = 0;
    for (uint32_t t = 0; t < V; t++) {
        if (sum + rest > limit) {
            *partial = 1;
            sum += rest;
            break;
        }
        rest -= solve_grid_box_distance(&g, tm->positions[t]);
        if (rest < 0) rest = 0;
        uint32_t best_i = 0;
        const double d = sqrt(solve_grid_nearest(&g, tm->positions[t], DBL_MAX, &best_i));
        nearest[t] = best_i;
        sum += d;
        if (d > worst) worst = d;
    }
    solve_grid_free(&g);
    *mean = (float)(sum / V);
    *worst_out = (float)worst;
    return SINEW_OK;
}

/* The meshes as placed: identity, or the nearest search; fills the placed_* fields too. */
static sinew_result correspond_placed(const sinew_model *source, const sinew_model *target,
                                      const sinew_allocator *allocator, uint32_t *nearest,
                                      sinew_correspondence_stats *st, sinew_error *err)
{
    const sinew_mesh *sm = &source->mesh, *tm = &target->mesh;
    memset(st, 0, sizeof *st);
    if (sm->vertex_count == 0 || tm->vertex_count == 0)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED, "solve: %s mesh is empty",
                               sm->vertex_count == 0 ? "the source" : "the target");
    st->diagonal = target->size.diagonal;
    if (same_mesh(sm, tm)) {
        for (uint32_t i = 0; i < tm->vertex_count; i++)
            nearest[i] = i;
        st->identity = 1;
        return SINEW_OK;
    }
    sinew_result r =
        nearest_points(sm->positions, sm->vertex_count, tm, st->diagonal, allocator, nearest,
                       &st->mean_distance, &st->max_distance, &st->partial, err);
    st->placed_mean_distance = st->mean_distance;
    st->placed_partial = st->partial;
    return r;
}

static double pct(float distance, float diagonal)
{
    return 100.0 * distance / (diagonal > 0 ? diagonal : 1);
}

sinew_result sinew_solve_correspond(const sinew_model *source, const sinew_model *target,
                                    const sinew_allocator *allocator, uint32_t *nearest,
                                    sinew_correspondence_stats *stats, sinew_error *err)
{
    sinew_correspondence_stats st;
    sinew_result r = correspond_placed(source, target, allocator, nearest, &st, err);
    if (stats) *stats = st;
    if (r != SINEW_OK) return r;
    if (!st.identity && !overlaps(st.mean_distance, st.diagonal))
        return sinew_error_set(
            err, SINEW_ERR_INVALID_VALUE,
            "solve: the source and target meshes do not overlap in bind space: mean nearest "
            "distance %s%.4g is %.2f%% of the target diagonal %.4g (limit %.0f%%); they must be "
            "the same creature in the same place and units",
            st.partial ? "at least " : "", (double)st.mean_distance,
            pct(st.mean_distance, st.diagonal), (double)st.diagonal,
            100.0 * SINEW_SOLVE_MAX_MEAN_NEAREST);
    return SINEW_OK;
}

sinew_result sinew_solve_correspond_aligned(const sinew_model *source, const sinew_model *target,
                                            const sinew_solve_align_options *options,
                                            const sinew_allocator *allocator, uint32_t *nearest,
                                            sinew_correspondence_stats *stats, sinew_error *err)
{
    if (options && options->disable)
        return sinew_solve_correspond(source, target, allocator, nearest, stats, err);
    sinew_correspondence_stats st;
    sinew_result r = correspond_placed(source, target, allocator, nearest, &st, err);
    if (r != SINEW_OK || st.identity || overlaps(st.mean_distance, st.diagonal)) {
        if (stats) *stats = st;
        return r;
    }
    /* Not in one place as they are: lay the source onto the target and search again. */
    r = sinew_solve_align(source, target, options, allocator, &st.alignment, err);
    if (r != SINEW_OK) {
        if (stats) *stats = st;
        return r;
    }
    st.align_tried = 1;
    const sinew_mesh *sm = &source->mesh;
    sinew_allocator alloc = {0};
    if (allocator) alloc = *allocator;
    sinew_vec3 *moved = sinew_alloc(&alloc, sm->vertex_count, sizeof *moved);
    if (!moved) {
        if (stats) *stats = st;
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
    }
    solve_affine fwd, inv;
    solve_alignment_affine(&st.alignment, &fwd, &inv);
    for (uint32_t i = 0; i < sm->vertex_count; i++) {
        const sinew_vec3 p = sm->positions[i];
        const double *m = fwd.m;
        moved[i] = sinew_vec3_make((float)(m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3]),
                                   (float)(m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7]),
                                   (float)(m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11]));
    }
    r = nearest_points(moved, sm->vertex_count, &target->mesh, st.diagonal, &alloc, nearest,
                       &st.mean_distance, &st.max_distance, &st.partial, err);
    sinew_free(&alloc, moved);
    if (r == SINEW_OK && overlaps(st.mean_distance, st.diagonal)) st.aligned = 1;
    if (stats) *stats = st;
    if (r != SINEW_OK || st.aligned) return r;
    return sinew_error_set(
        err, SINEW_ERR_INVALID_VALUE,
        "solve: the source and target meshes do not overlap in bind space, as placed or "
        "aligned: mean nearest distance %s%.4g (%.2f%% of the target diagonal %.4g) as placed, "
        "%s%.4g (%.2f%%) after the best similarity alignment (scale %.4g, yaw %.1f degrees, "
        "tilt %.1f degrees); the limit is %.0f%%: they must be the same creature",
        st.placed_partial ? "at least " : "", (double)st.placed_mean_distance,
        pct(st.placed_mean_distance, st.diagonal), (double)st.diagonal,
        st.partial ? "at least " : "", (double)st.mean_distance, pct(st.mean_distance, st.diagonal),
        (double)st.alignment.scale, (double)st.alignment.yaw * 180.0 / SINEW_PI,
        (double)st.alignment.tilt * 180.0 / SINEW_PI, 100.0 * SINEW_SOLVE_MAX_MEAN_NEAREST);
}
