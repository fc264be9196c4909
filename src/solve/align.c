/* Similarity alignment of the source's bind-space mesh onto the target's (the surface solve's
 * correspondence needs the two rest poses aligned; files' units and facing cannot be
 * trusted). x_target = s R x_source + t, found by trimmed ICP with scale:
 *   - starts: R each of the 24 rotations taking axes to axes, the turns of 0, 90, 180 and
 *     270 degrees about +Y first (glTF is Y up; exporters and rigging services differ in
 *     facing by quarter turns, and some leave a Z-up bind space), s the ratio of the two
 *     boxes' diagonals, t matching the boxes' centres;
 *   - every iteration pairs each subsampled source point with its nearest target vertex and
 *     each subsampled target point with its nearest source vertex (grid.c, exact; the
 *     target-to-source half keeps the scale from collapsing, which one-way ICP with scale
 *     does: shrinking the source onto a patch of the target makes every one-way distance
 *     small), drops the worst `trim` share of each half (a part one mesh lacks, such as a
 *     tail, pulls the fit otherwise: Chetverikov et al. 2002, "The Trimmed Iterative
 *     Closest Point algorithm"), and solves the similarity of the rest in closed form: R by
 *     Horn's quaternion method (Horn 1987, horn.c), s and t as in Umeyama 1991 ("Least-squares
 *     estimation of transformation parameters between two point patterns"; Horn 1987
 *     derives the same scale for this asymmetric least-squares problem beside a symmetric
 *     one): s = sum b'.(R a') / sum |a'|^2, t = mean_b - s R mean_a;
 *   - the candidate with the lowest trimmed mean distance (the mean of the two halves) wins
 *     and is refined once more against every vertex (the coarse stage searches even
 *     subsamples).
 * Queries are bounded (a quarter of the target diagonal in the coarse stage, a tenth in the
 * fine one, then three times the farthest kept pair): a pair farther than that is dropped
 * like a trimmed one and counts at the bound in the score, which keeps a start facing the
 * wrong way from scanning the whole grid for every point. Deterministic: fixed subsamples,
 * ties broken by index. */
#include "solve_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_POINTS 2000u
#define DEFAULT_TRIM 0.1f
#define DEFAULT_ITERATIONS 60u
#define COARSE_REACH 0.25 /* query bound, fraction of the target diagonal */
#define FINE_REACH 0.10
/* Stop a candidate when an iteration lowers its score by less than this fraction of the
 * target diagonal. */
#define PROGRESS 1e-7
/* ... or by less than this fraction of the score itself (shapes that never match exactly
 * crawl for many iterations otherwise). */
#define RELATIVE_PROGRESS 1e-4
/* Points per grid cell: a coarser grid than the correspondence's, since many ICP queries
 * start far from the other surface. */
#define GRID_PER_CELL 12.0

typedef struct similarity {
    double s;
    double q[4]; /* x, y, z, w */
    double R[9]; /* row-major, from q */
    double t[3];
} similarity;

typedef struct icp_pair {
    double d;   /* nearest distance, target units; DBL_MAX beyond the query bound */
    uint32_t k; /* query point */
} icp_pair;

/* One direction of the symmetric ICP: subsampled query points of one mesh, searched in the
 * other mesh's grid (in that mesh's own coordinates: a similarity keeps which point is
 * nearest, and distances scale by s). */
typedef struct icp_half {
    const sinew_vec3 *pts; /* query points */
    uint32_t n;
    int from_target; /* 0: source points searched among target vertices; 1: the reverse */
    uint32_t *match; /* n: each query point's nearest point in the grid */
    icp_pair *order; /* n: the query points by increasing distance */
    uint32_t used;   /* the first `used` of `order` are kept */
    double score;    /* trimmed mean distance, target units */
    double edge;     /* distance of the farthest kept pair (the bound when pairs are missing) */
} icp_half;

typedef struct icp {
    icp_half half[2]; /* source to target, target to source */
    double trim;
    uint32_t max_iterations;
    double diagonal; /* the target's */
} icp;

static void box_of(const sinew_vec3 *p, uint32_t n, double centre[3], double *diagonal)
{
    double lo[3] = {p[0].x, p[0].y, p[0].z}, hi[3] = {p[0].x, p[0].y, p[0].z};
    for (uint32_t i = 1; i < n; i++) {
        const double v[3] = {p[i].x, p[i].y, p[i].z};
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], v[a]);
            hi[a] = fmax(hi[a], v[a]);
        }
    }
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
        centre[a] = 0.5 * (lo[a] + hi[a]);
        d2 += (hi[a] - lo[a]) * (hi[a] - lo[a]);
    }
    *diagonal = sqrt(d2);
}

/* Even subsample of at most `max` of the n points (index k * n / max), copied. */
static sinew_vec3 *subsample(const sinew_vec3 *p, uint32_t n, uint32_t max, uint32_t *count,
                             const sinew_allocator *alloc)
{
    const uint32_t m = n < max ? n : max;
    sinew_vec3 *out = sinew_alloc(alloc, m, sizeof *out);
    if (!out) return NULL;
    for (uint32_t k = 0; k < m; k++)
        out[k] = p[(uint32_t)(((uint64_t)k * n) / m)];
    *count = m;
    return out;
}

/* x (source) to target: s R p + t; or, with `inverse`, target to source: R^T (p - t) / s. */
static sinew_vec3 apply(const similarity *x, sinew_vec3 p, int inverse)
{
    const double a[3] = {p.x, p.y, p.z};
    double y[3];
    if (!inverse)
        for (int r = 0; r < 3; r++)
            y[r] = x->s * (x->R[r * 3] * a[0] + x->R[r * 3 + 1] * a[1] + x->R[r * 3 + 2] * a[2]) +
                   x->t[r];
    else {
        const double d[3] = {a[0] - x->t[0], a[1] - x->t[1], a[2] - x->t[2]};
        for (int r = 0; r < 3; r++)
            y[r] = (x->R[r] * d[0] + x->R[3 + r] * d[1] + x->R[6 + r] * d[2]) / x->s;
    }
    return sinew_vec3_make((float)y[0], (float)y[1], (float)y[2]);
}

/* Pairs sort by distance, ties by point index: a total order, so the kept set never
 * depends on the sort's algorithm. */
static int by_distance(const void *pa, const void *pb)
{
    const icp_pair *a = pa, *b = pb;
    if (a->d < b->d) return -1;
    if (a->d > b->d) return 1;
    return (a->k > b->k) - (a->k < b->k);
}

/* Pairs every query point of `h` with its nearest point of grid `g` under `x`; sets h->used
 * (kept pairs) and h->score, the trimmed mean distance in target units (pairs beyond the
 * bound `reach`, target units, count at the bound). */
static void pair_up(icp_half *h, const solve_grid *g, const similarity *x, double trim,
                    double reach)
{
    const double unit = h->from_target ? x->s : 1.0; /* grid units to target units */
    const double reach2 = (reach / unit) * (reach / unit);
    for (uint32_t k = 0; k < h->n; k++) {
        uint32_t idx;
        const double d2 = solve_grid_nearest(g, apply(x, h->pts[k], h->from_target), reach2, &idx);
        h->match[k] = idx;
        h->order[k].d = d2 == DBL_MAX ? DBL_MAX : unit * sqrt(d2);
        h->order[k].k = k;
    }
    qsort(h->order, h->n, sizeof *h->order, by_distance);
    uint32_t keep = h->n - (uint32_t)floor(trim * h->n);
    if (keep < 1) keep = 1;
    uint32_t matched = 0;
    double sum = 0;
    while (matched < keep && h->order[matched].d < DBL_MAX)
        sum += h->order[matched++].d;
    sum += (double)(keep - matched) * reach;
    h->used = matched;
    h->score = sum / keep;
    h->edge = matched == keep ? h->order[keep - 1].d : reach;
}

/* Kept pair i of half h as (source point a, target point b). */
static void pair_points(const icp_half *h, const solve_grid *g, uint32_t i, sinew_vec3 *a,
                        sinew_vec3 *b)
{
    const uint32_t k = h->order[i].k;
    const sinew_vec3 q = h->pts[k], m = g->points[h->match[k]];
    *a = h->from_target ? m : q;
    *b = h->from_target ? q : m;
}

/* The closed-form similarity of the kept pairs of both halves (Horn 1987; Umeyama 1991). 0
 * when they do not determine one (fewer than 3 pairs, or all source points at one place). */
static int fit(const icp *ic, const solve_grid *grids[2], similarity *out)
{
    const uint32_t used = ic->half[0].used + ic->half[1].used;
    if (used < 3) return 0;
    double ma[3] = {0, 0, 0}, mb[3] = {0, 0, 0};
    for (int h = 0; h < 2; h++)
        for (uint32_t i = 0; i < ic->half[h].used; i++) {
            sinew_vec3 a, b;
            pair_points(&ic->half[h], grids[h], i, &a, &b);
            ma[0] += a.x, ma[1] += a.y, ma[2] += a.z;
            mb[0] += b.x, mb[1] += b.y, mb[2] += b.z;
        }
    for (int c = 0; c < 3; c++) {
        ma[c] /= used;
        mb[c] /= used;
    }
    double S[9] = {0}, saa = 0;
    for (int h = 0; h < 2; h++)
        for (uint32_t i = 0; i < ic->half[h].used; i++) {
            sinew_vec3 a, b;
            pair_points(&ic->half[h], grids[h], i, &a, &b);
            const double da[3] = {a.x - ma[0], a.y - ma[1], a.z - ma[2]};
            const double db[3] = {b.x - mb[0], b.y - mb[1], b.z - mb[2]};
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    S[r * 3 + c] += da[r] * db[c];
            saa += da[0] * da[0] + da[1] * da[1] + da[2] * da[2];
        }
    if (!(saa > 0) || !isfinite(saa)) return 0;
    similarity x;
    solve_horn(S, NULL, x.q, x.R);
    /* sum b'.(R a') = trace(R S) with S[r][c] = sum a'_r b'_c */
    double trs = 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            trs += x.R[r * 3 + c] * S[c * 3 + r];
    x.s = trs / saa;
    if (!(x.s > 0) || !isfinite(x.s)) return 0;
    for (int r = 0; r < 3; r++)
        x.t[r] =
            mb[r] - x.s * (x.R[r * 3] * ma[0] + x.R[r * 3 + 1] * ma[1] + x.R[r * 3 + 2] * ma[2]);
    *out = x;
    return 1;
}

/* Trimmed ICP from `x` on grids[0] (target points) and grids[1] (source points); leaves the
 * best similarity seen in `x` and returns its score measured with the bound `max_reach`.
 * After the first iteration queries are bounded by three times the farthest kept pair (at
 * least 1% of the diagonal): a farther pair would be trimmed anyway, and points far from the
 * other surface (a wrong start, a part one mesh lacks) no longer cost a wide search each. */
static double run_icp(icp *ic, const solve_grid *grids[2], double max_reach, similarity *x,
                      uint32_t *iterations)
{
    similarity cur = *x;
    double best = DBL_MAX, prev = DBL_MAX, reach = max_reach;
    uint32_t it = 0;
    for (; it < ic->max_iterations; it++) {
        for (int h = 0; h < 2; h++)
            pair_up(&ic->half[h], grids[h], &cur, ic->trim, reach);
        const double score = 0.5 * (ic->half[0].score + ic->half[1].score);
        if (score < best) {
            best = score;
            *x = cur;
        }
        if (prev < DBL_MAX &&
            !(prev - score > fmax(PROGRESS * ic->diagonal, RELATIVE_PROGRESS * score)))
            break;
        prev = score;
        const double edge = fmax(ic->half[0].edge, ic->half[1].edge);
        reach = fmin(max_reach, fmax(3.0 * edge, 0.01 * ic->diagonal));
        similarity next;
        if (!fit(ic, grids, &next)) break;
        cur = next;
    }
    *iterations += it + 1;
    if (reach == max_reach) return best;
    for (int h = 0; h < 2; h++) /* a score comparable between runs */
        pair_up(&ic->half[h], grids[h], x, ic->trim, max_reach);
    return 0.5 * (ic->half[0].score + ic->half[1].score);
}

void solve_alignment_affine(const sinew_solve_alignment *a, solve_affine *fwd, solve_affine *inv)
{
    double q[4] = {a->rotation.x, a->rotation.y, a->rotation.z, a->rotation.w};
    const double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (len > 0 && isfinite(len))
        for (int i = 0; i < 4; i++)
            q[i] /= len;
    else
        q[0] = q[1] = q[2] = 0, q[3] = 1;
    double R[9];
    solve_quat_to_rot(q, R);
    const double s = a->scale, t[3] = {a->translation.x, a->translation.y, a->translation.z};
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            fwd->m[r * 4 + c] = s * R[r * 3 + c];
            inv->m[r * 4 + c] = s != 0 ? R[c * 3 + r] / s : 0;
        }
        fwd->m[r * 4 + 3] = t[r];
    }
    /* inverse translation: -R^T t / s */
    for (int r = 0; r < 3; r++)
        inv->m[r * 4 + 3] =
            -(inv->m[r * 4] * t[0] + inv->m[r * 4 + 1] * t[1] + inv->m[r * 4 + 2] * t[2]);
}

sinew_vec3 sinew_solve_alignment_apply(const sinew_solve_alignment *alignment, sinew_vec3 p)
{
    solve_affine f, i;
    solve_alignment_affine(alignment, &f, &i);
    const double *m = f.m;
    return sinew_vec3_make((float)(m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3]),
                           (float)(m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7]),
                           (float)(m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11]));
}

static int finite_points(const sinew_vec3 *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!isfinite(p[i].x) || !isfinite(p[i].y) || !isfinite(p[i].z)) return 0;
    return 1;
}

/* The starts: the 24 rotations that map the coordinate axes onto coordinate axes (the
 * cube's rotation group), the four quarter turns about +Y first. Files disagree on facing by
 * quarter turns about the vertical, and some exporters leave a Z-up bind space under a Y-up
 * scene (the Quaternius FBX exports), so the up axis may lie along any axis too. Row-major. */
#define START_COUNT 24
#define SCREEN_ITERATIONS 6u /* ICP iterations every start gets */
#define SCREEN_KEEP 4u       /* starts then run to convergence, best screened first */
static void axis_rotations(double out[START_COUNT][9])
{
    static const double sin_k[4] = {0, 1, 0, -1}, cos_k[4] = {1, 0, -1, 0};
    uint32_t n = 0;
    for (int k = 0; k < 4; k++) { /* k quarter turns about +Y, exact */
        const double R[9] = {cos_k[k], 0, sin_k[k], 0, 1, 0, -sin_k[k], 0, cos_k[k]};
        memcpy(out[n++], R, sizeof R);
    }
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int p = 0; p < 6; p++)
        for (int signs = 0; signs < 8; signs++) {
            double R[9] = {0};
            for (int row = 0; row < 3; row++)
                R[row * 3 + perms[p][row]] = (signs >> row & 1) ? -1.0 : 1.0;
            const double det = R[0] * (R[4] * R[8] - R[5] * R[7]) -
                               R[1] * (R[3] * R[8] - R[5] * R[6]) +
                               R[2] * (R[3] * R[7] - R[4] * R[6]);
            if (det < 0 || R[4] == 1.0) continue; /* reflections; the yaw turns come first */
            memcpy(out[n++], R, sizeof R);
        }
}

sinew_result sinew_solve_align(const sinew_model *source, const sinew_model *target,
                               const sinew_solve_align_options *options,
                               const sinew_allocator *allocator, sinew_solve_alignment *out,
                               sinew_error *err)
{
    memset(out, 0, sizeof *out);
    const sinew_mesh *sm = &source->mesh, *tm = &target->mesh;
    if (sm->vertex_count == 0 || tm->vertex_count == 0)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED, "solve: %s mesh is empty",
                               sm->vertex_count == 0 ? "the source" : "the target");
    if (!finite_points(sm->positions, sm->vertex_count) ||
        !finite_points(tm->positions, tm->vertex_count))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE, "solve: %s positions are not finite",
                               finite_points(sm->positions, sm->vertex_count) ? "target"
                                                                              : "source");
    sinew_solve_align_options opt = {0};
    if (options) opt = *options;
    if (opt.max_points < 3) opt.max_points = opt.max_points ? 3 : DEFAULT_POINTS;
    if (!(opt.trim > 0 && opt.trim < 0.9f)) opt.trim = DEFAULT_TRIM;
    if (opt.max_iterations == 0) opt.max_iterations = DEFAULT_ITERATIONS;

    double cs[3], ct[3], ds, dt;
    box_of(sm->positions, sm->vertex_count, cs, &ds);
    box_of(tm->positions, tm->vertex_count, ct, &dt);
    if (!(ds > 0) || !(dt > 0))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "solve: cannot align: the %s mesh has no extent (all its "
                               "vertices at one point)",
                               ds > 0 ? "target" : "source");

    sinew_allocator alloc = {0};
    if (allocator) alloc = *allocator;
    icp ic;
    memset(&ic, 0, sizeof ic);
    ic.trim = opt.trim;
    ic.max_iterations = opt.max_iterations;
    ic.diagonal = dt;
    icp_half *fw = &ic.half[0], *bw = &ic.half[1];
    bw->from_target = 1;
    sinew_vec3 *ssub = subsample(sm->positions, sm->vertex_count, opt.max_points, &fw->n, &alloc);
    sinew_vec3 *tsub = subsample(tm->positions, tm->vertex_count, opt.max_points, &bw->n, &alloc);
    fw->pts = ssub;
    bw->pts = tsub;
    for (int h = 0; h < 2; h++) {
        ic.half[h].match = sinew_alloc(&alloc, ic.half[h].n, sizeof(uint32_t));
        ic.half[h].order = sinew_alloc(&alloc, ic.half[h].n, sizeof(icp_pair));
    }
    solve_grid grid[4]; /* coarse target, coarse source, fine target, fine source */
    memset(grid, 0, sizeof grid);
    sinew_result r = SINEW_OK;
    if (!ssub || !tsub || !fw->match || !fw->order || !bw->match || !bw->order) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "solve: out of memory");
        goto done;
    }
    if ((r = solve_grid_build(&grid[0], tsub, bw->n, GRID_PER_CELL, &alloc, err)) != SINEW_OK ||
        (r = solve_grid_build(&grid[1], ssub, fw->n, GRID_PER_CELL, &alloc, err)) != SINEW_OK)
        goto done;
    const solve_grid *coarse[2] = {&grid[0], &grid[1]}, *fine[2] = {&grid[2], &grid[3]};

    similarity best;
    memset(&best, 0, sizeof best);
    double best_score = DBL_MAX;
    uint32_t best_start = 0, best_iterations = 0;
    /* Screen every start with a few ICP iterations, then run the most promising ones to
     * convergence: 24 full runs cost seconds on meshes that never match, while a wrong start
     * is already far behind after a few iterations. */
    double starts[START_COUNT][9];
    axis_rotations(starts);
    similarity screened[START_COUNT];
    double screen_score[START_COUNT];
    uint32_t screen_iterations[START_COUNT];
    ic.max_iterations =
        opt.max_iterations < SCREEN_ITERATIONS ? opt.max_iterations : SCREEN_ITERATIONS;
    for (uint32_t k = 0; k < START_COUNT; k++) {
        similarity *x = &screened[k];
        memset(x, 0, sizeof *x);
        x->s = dt / ds;
        memcpy(x->R, starts[k], sizeof x->R);
        solve_rot_to_quat(x->R, x->q);
        for (int c = 0; c < 3; c++)
            x->t[c] = ct[c] - x->s * (x->R[c * 3] * cs[0] + x->R[c * 3 + 1] * cs[1] +
                                      x->R[c * 3 + 2] * cs[2]);
        screen_iterations[k] = 0;
        screen_score[k] = run_icp(&ic, coarse, COARSE_REACH * dt, x, &screen_iterations[k]);
    }
    ic.max_iterations = opt.max_iterations;
    for (uint32_t kept = 0; kept < SCREEN_KEEP; kept++) {
        /* the best start not yet refined (ties: the earlier start) */
        uint32_t k = START_COUNT;
        for (uint32_t j = 0; j < START_COUNT; j++)
            if (screen_score[j] < DBL_MAX &&
                (k == START_COUNT || screen_score[j] < screen_score[k]))
                k = j;
        if (k == START_COUNT) break;
        screen_score[k] = DBL_MAX;
        similarity x = screened[k];
        uint32_t iterations = screen_iterations[k];
        const double score = run_icp(&ic, coarse, COARSE_REACH * dt, &x, &iterations);
        /* a later start must do better by more than rounding (1e-7 of the diagonal): equal
         * answers keep the better-screened one */
        if (best_score == DBL_MAX || score < best_score - PROGRESS * dt) {
            best_score = score;
            best = x;
            best_start = k;
            best_iterations = iterations;
        }
    }
    /* refine the winner against every vertex of both meshes */
    if ((r = solve_grid_build(&grid[2], tm->positions, tm->vertex_count, GRID_PER_CELL, &alloc,
                              err)) != SINEW_OK ||
        (r = solve_grid_build(&grid[3], sm->positions, sm->vertex_count, GRID_PER_CELL, &alloc,
                              err)) != SINEW_OK)
        goto done;
    best_score = run_icp(&ic, fine, FINE_REACH * dt, &best, &best_iterations);

    out->scale = (float)best.s;
    out->rotation =
        sinew_quat_make((float)best.q[0], (float)best.q[1], (float)best.q[2], (float)best.q[3]);
    out->translation = sinew_vec3_make((float)best.t[0], (float)best.t[1], (float)best.t[2]);
    /* report from the stored (float) rotation, the one every user of the alignment applies */
    {
        solve_affine f, inv;
        solve_alignment_affine(out, &f, &inv);
        const double s = f.m[0] * f.m[0] + f.m[4] * f.m[4] + f.m[8] * f.m[8];
        const double n = s > 0 ? sqrt(s) : 1; /* the scale, to recover R from s R */
        const double r02 = f.m[2] / n, r22 = f.m[10] / n, r11 = f.m[5] / n;
        out->yaw = (float)atan2(r02, r22);
        out->tilt = (float)acos(fmax(-1.0, fmin(1.0, r11)));
    }
    out->trimmed_mean = (float)best_score;
    out->start = best_start;
    out->iterations = best_iterations;
    out->points = fw->n;
done:
    for (int g = 0; g < 4; g++)
        solve_grid_free(&grid[g]);
    sinew_free(&alloc, ssub);
    sinew_free(&alloc, tsub);
    for (int h = 0; h < 2; h++) {
        sinew_free(&alloc, ic.half[h].match);
        sinew_free(&alloc, ic.half[h].order);
    }
    return r;
}
