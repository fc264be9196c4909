/* Garments on request: a cape or a skirt becomes N chains around it, in the manner of VRM
 * skirt chains (docs/appendages.md, "Garments").
 *
 *   which      with SINEW_RIG_GARMENT_CHAINS, a sheet the finder found (a long piece whose
 *              cross-sections end on the mesh's boundary, or that is flat as a whole) on a
 *              surface of its own, not the body's, at least SINEW_RIG_GARMENT_LENGTH long and
 *              SINEW_RIG_GARMENT_WIDTH broad (sinew/rig.h): the whole of that surface is the
 *              garment (a skirt's waist sits on the hips, where the finder sees bones, so only
 *              its hem stands out as a sheet).
 *   attach     the garment hangs from its top: the attach line is its skin within
 *              ATTACH_BAND of its highest point along up, and g, the geodesic distance from
 *              that line over the surface, runs down to the hem; L = the 99th percentile of g,
 *              K = clamp(round(L / 0.1 H), 3, 8) segments, as a tail's.
 *   shape      a ring (a skirt) when the attach line closes around its centre seen from above
 *              (RING_BINS all reached, and not a flat line: RING_ROUND); else an open sheet.
 *   around     u in [0, 1): for a ring the angle about the up axis through the attach line's
 *              centre, from the front; for a sheet the place across its width along the body's
 *              lateral axis, from right to left, scaled to the width at that g (a cape widens
 *              towards its hem, and its chains fan out with it).
 *   chains     N chains, chain k at u_k = (k + 1/2) / N; its joint j at the centre of the skin
 *              within a quarter of a segment of g = j L / K and within a quarter of a chain's
 *              spacing of u_k (the last joint at the hem), hanging from the torso joint
 *              nearest the attach line. Bones as a tail's (rig_chain_bones: +Y along each),
 *              Garment_<k>_1 .. Garment_<k>_K + Garment_<k>_End.
 *   weights    along each chain the tail's prev/self/next blend of the segment at s = K g / L;
 *              across, the two chains either side of u share the vertex linearly (a ring
 *              wraps), so no seam runs between chains: w = (1 - a) chain(k0) + a chain(k0+1).
 *
 * The chains are coupled when simulated (sinew/bake.h, sinew_bake_garment) so that the ring
 * keeps its shape. */
#include "rig_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The attach line: the garment's skin within this share of its vertical extent from its top.
 * Measured on the procedural garments (`sinew tail --garment chains`, the check's stretch
 * over their four clips): at 1% the skirt's waist, which is not quite level, gives only an
 * arc of it (41 vertices; 70 at 3%), so the skirt is taken for a sheet of 3 chains (p99 up to
 * 1.25); from 2% to 10% the skirt is a ring of 10-11 chains and the cape 3-4 chains across,
 * every clip within p99 1.15 and 0.2% torn. 3% is near the low end, so that the line stays on
 * the top border of a cape that leaves the neck nearly level. */
#define ATTACH_BAND 0.03f
/* A ring: seen from above, the attach line reaches all of this many equal angular sectors
 * about its centre, and its spread across is at least RING_ROUND of its spread along.
 * Measured: the procedural skirt's waist 0.64 and all 12 sectors; the cape's top edge, a line
 * across the back curving with it, 0.05 and 7 sectors. A round of 0.1 to 0.5 tells them
 * apart. */
#define RING_BINS 12
#define RING_ROUND 0.3f
/* Bins of g over which a sheet's width is measured (u is interpolated between them). */
#define WIDTH_BINS 32
/* Chains at least: a sheet needs two to bend across, a ring four to keep round. */
#define MIN_SHEET_CHAINS 2
#define MIN_RING_CHAINS 4

typedef struct garment_layout {
    uint32_t shell;  /* the garment's surface (sinew_rig_analysis.shell) */
    uint32_t count;  /* its representatives */
    uint32_t *verts; /* count representatives */
    float *g, *u;    /* per vertex (indexed by representative): distance from the attach
                        line and place around, for the garment's representatives */
    float length;    /* L, file units */
    uint32_t K;      /* segments */
    uint32_t N;      /* chains */
    int ring;        /* 1: chains close a ring */
    int32_t parent;  /* skin joint the chains hang from */
    float width;     /* the garment's width (a sheet) or circumference (a ring) halfway down */
    sinew_vec3 centre, up, forward, lateral;
} garment_layout;

static void layout_free(const sinew_rig_analysis *a, garment_layout *l)
{
    sinew_free(&a->alloc, l->verts);
    sinew_free(&a->alloc, l->g);
    sinew_free(&a->alloc, l->u);
    memset(l, 0, sizeof *l);
}

static uint32_t main_shell(const sinew_rig_analysis *a, uint32_t *total)
{
    const uint32_t nv = a->vertex_count;
    memset(total, 0, (size_t)nv * sizeof *total);
    for (uint32_t v = 0; v < nv; v++)
        if (a->weld[v] == v) total[a->shell[v]]++;
    uint32_t best = 0;
    for (uint32_t v = 0; v < nv; v++)
        if (total[v] > total[best]) best = v;
    return best;
}

/* The torso joint (pelvis or spine) nearest p. */
static int32_t torso_joint_near(const sinew_rig_analysis *a, const sinew_model *m, sinew_vec3 p)
{
    int32_t best = -1;
    float best_d = FLT_MAX;
    for (uint32_t j = 0; j < a->joint_count; j++) {
        if (a->regions[j] != SINEW_RIG_REGION_PELVIS && a->regions[j] != SINEW_RIG_REGION_SPINE)
            continue;
        const float d = sinew_vec3_distance(rig_joint_position(m, j), p);
        if (d < best_d) best_d = d, best = (int32_t)j;
    }
    return best;
}

static float wrap01(float u)
{
    u -= floorf(u);
    return u >= 1.0f ? 0.0f : u;
}

/* The layout of the garment on `shell` (see the top of the file). `chains` 0: N from the
 * width. */
static sinew_result garment_layout_make(const sinew_rig_analysis *a, const sinew_model *m,
                                        const sinew_rig_report *rep, uint32_t shell,
                                        const sinew_rig_options *opt, garment_layout *l,
                                        sinew_error *err)
{
    memset(l, 0, sizeof *l);
    const uint32_t nv = a->vertex_count;
    const sinew_vec3 *P = m->mesh.positions;
    l->shell = shell;
    l->verts = sinew_alloc(&a->alloc, nv, sizeof *l->verts);
    l->g = sinew_alloc(&a->alloc, nv, sizeof *l->g);
    l->u = sinew_alloc(&a->alloc, nv, sizeof *l->u);
    float *sorted = sinew_alloc(&a->alloc, nv, sizeof *sorted);
    rig_geodesic geo;
    memset(&geo, 0, sizeof geo);
    sinew_result r = SINEW_OK;
    if (!l->verts || !l->g || !l->u || !sorted) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "garment: out of memory");
        goto done;
    }
    for (uint32_t v = 0; v < nv; v++)
        if (a->weld[v] == v && a->shell[v] == shell) l->verts[l->count++] = v;
    /* Frame: up from the landmarks, forward the model's +Z (glTF characters face it) made
     * square to up, lateral = up x forward (+X, the character's left, at glTF's axes). */
    l->up = rep->landmarks.up;
    const sinew_vec3 z = sinew_vec3_make(0, 0, 1);
    l->forward = sinew_vec3_normalize_or(
        sinew_vec3_madd(z, l->up, -sinew_vec3_dot(z, l->up)),
        sinew_vec3_normalize_or(sinew_vec3_cross(sinew_vec3_make(1, 0, 0), l->up), z));
    l->lateral = sinew_vec3_cross(l->up, l->forward);
    float top = -FLT_MAX, bottom = FLT_MAX;
    for (uint32_t i = 0; i < l->count; i++) {
        const float h = sinew_vec3_dot(P[l->verts[i]], l->up);
        top = fmaxf(top, h), bottom = fminf(bottom, h);
    }
    const float band = top - ATTACH_BAND * (top - bottom);
    if ((r = rig_geodesic_init(&geo, a, m, err)) != SINEW_OK) goto done;
    double cx = 0, cy = 0, cz = 0;
    uint32_t seeds = 0;
    for (uint32_t i = 0; i < l->count; i++) {
        const uint32_t v = l->verts[i];
        if (sinew_vec3_dot(P[v], l->up) < band) continue;
        rig_geodesic_seed(&geo, v, 0);
        cx += P[v].x, cy += P[v].y, cz += P[v].z, seeds++;
    }
    l->centre = sinew_vec3_make((float)(cx / seeds), (float)(cy / seeds), (float)(cz / seeds));
    {
        uint32_t v;
        float d;
        while (rig_geodesic_next(&geo, &v, &d)) {
        }
    }
    uint32_t reached = 0;
    for (uint32_t i = 0; i < l->count; i++) {
        const uint32_t v = l->verts[i];
        l->g[v] = geo.done[v] ? geo.g[v] : 0.0f;
        sorted[reached++] = l->g[v];
    }
    qsort(sorted, reached, sizeof *sorted, rig_compare_floats);
    l->length = sorted[(size_t)(0.99 * (reached - 1))];
    if (!(l->length > 0)) {
        r = sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                            "garment: the surface has no length below its attach line");
        goto done;
    }
    l->K = rig_chain_segment_count(l->length, opt->segment_fraction * rep->scale, 3,
                                   SINEW_RIG_MAX_SEGMENTS);
    /* Ring or sheet: the attach line seen from above. */
    {
        double s_ff = 0, s_fl = 0, s_ll = 0;
        uint32_t hit = 0;
        for (uint32_t i = 0; i < l->count; i++) {
            const uint32_t v = l->verts[i];
            if (sinew_vec3_dot(P[v], l->up) < band) continue;
            const sinew_vec3 d = sinew_vec3_sub(P[v], l->centre);
            const double f = sinew_vec3_dot(d, l->forward), s = sinew_vec3_dot(d, l->lateral);
            s_ff += f * f, s_fl += f * s, s_ll += s * s;
            const float t = wrap01((float)(atan2(s, f) / (2 * SINEW_PI)));
            hit |= 1u << (uint32_t)fminf(RING_BINS - 1, t * RING_BINS);
        }
        const double tr = s_ff + s_ll, det = s_ff * s_ll - s_fl * s_fl;
        const double disc = sqrt(fmax(0, tr * tr / 4 - det));
        const double big = tr / 2 + disc, small = fmax(0, tr / 2 - disc);
        l->ring = hit == (1u << RING_BINS) - 1 && big > 0 && sqrt(small / big) >= RING_ROUND;
    }
    /* Around: the angle for a ring; for a sheet the lateral place scaled to the width of its
     * g bin (interpolated between bin centres). */
    float lo[WIDTH_BINS], hi[WIDTH_BINS];
    for (int b = 0; b < WIDTH_BINS; b++)
        lo[b] = FLT_MAX, hi[b] = -FLT_MAX;
    for (uint32_t i = 0; i < l->count; i++) {
        const uint32_t v = l->verts[i];
        const int b = (int)fminf(WIDTH_BINS - 1, WIDTH_BINS * l->g[v] / l->length);
        const float s = sinew_vec3_dot(P[v], l->lateral);
        lo[b] = fminf(lo[b], s), hi[b] = fmaxf(hi[b], s);
    }
    for (int pass = 0; pass < 2; pass++) /* empty bins take a neighbour's extent */
        for (int b = 0; b < WIDTH_BINS; b++) {
            const int n = pass ? b - 1 : b + 1;
            if (lo[b] <= hi[b] || n < 0 || n >= WIDTH_BINS) continue;
            lo[b] = lo[n], hi[b] = hi[n];
        }
    double radius = 0;
    uint32_t middle = 0;
    for (uint32_t i = 0; i < l->count; i++) {
        const uint32_t v = l->verts[i];
        const sinew_vec3 d = sinew_vec3_sub(P[v], l->centre);
        const float f = sinew_vec3_dot(d, l->forward), s = sinew_vec3_dot(d, l->lateral);
        if (l->g[v] >= 0.4f * l->length && l->g[v] <= 0.6f * l->length)
            radius += sqrt((double)f * f + (double)s * s), middle++;
        if (l->ring) {
            l->u[v] = wrap01((float)(atan2(s, f) / (2 * SINEW_PI)));
            continue;
        }
        const float x = fminf(WIDTH_BINS - 1, fmaxf(0, WIDTH_BINS * l->g[v] / l->length - 0.5f));
        const int b0 = (int)x, b1 = b0 + 1 < WIDTH_BINS ? b0 + 1 : b0;
        const float t = x - (float)b0;
        const float a0 = lo[b0] + (lo[b1] - lo[b0]) * t, a1 = hi[b0] + (hi[b1] - hi[b0]) * t;
        const float w = sinew_vec3_dot(P[v], l->lateral);
        l->u[v] = a1 > a0 ? fminf(1, fmaxf(0, (w - a0) / (a1 - a0))) : 0.5f;
    }
    l->width = l->ring ? (float)(2 * SINEW_PI * (middle ? radius / middle : 0))
                       : hi[WIDTH_BINS / 2] - lo[WIDTH_BINS / 2];
    /* N: chains spaced as far apart as the segments along them are long, so the cells of skin
     * between two chains and two joints are square. The skin is blended linearly across a
     * cell as along it, and a cell much narrower than it is long tears when its chains part:
     * measured with --garment-chains over the four clips, the cape (0.17 m segments) with 10
     * chains (0.06 m apart) tears 0.33% of its edge samples in Crouch, with 16 1.2%, with 2 to
     * 6 none; the skirt (0.13 m segments) with 16 chains (0.08 m apart) 0.18%, with 2 to 10 at
     * most 0.08%. Wider cells do not tear, but a garment of few chains moves as a few boards:
     * square cells are the most chains that do not tear. Here: the skirt 10 chains around (3
     * segments of 0.13 m, 1.3 m round at mid length), the cape 4 across (6 segments of 0.17 m,
     * 0.6 m wide). */
    const uint32_t least = l->ring ? MIN_RING_CHAINS : MIN_SHEET_CHAINS;
    if (opt->garment_chains) {
        l->N = opt->garment_chains;
    } else {
        const long n = lroundf(l->width / (l->length / (float)l->K));
        l->N =
            (uint32_t)(n < (long)least
                           ? (long)least
                           : (n > SINEW_RIG_MAX_GARMENT_CHAINS ? SINEW_RIG_MAX_GARMENT_CHAINS : n));
    }
    if (l->N < 2) l->N = 2;
    if (l->N > SINEW_RIG_MAX_GARMENT_CHAINS) l->N = SINEW_RIG_MAX_GARMENT_CHAINS;
    l->parent = torso_joint_near(a, m, l->centre);
    if (l->parent < 0)
        r = sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                            "garment: the skeleton has no torso joint for the chains to hang from");
done:
    rig_geodesic_free(&geo);
    sinew_free(&a->alloc, sorted);
    if (r != SINEW_OK) layout_free(a, l);
    return r;
}

/* The shell a piece's walk started on. */
static uint32_t piece_shell(const sinew_rig_analysis *a, uint32_t p)
{
    return a->shell[a->runs.items[a->piece_runs[p]].tip];
}

sinew_result rig_find_garments(const sinew_rig_analysis *a, const sinew_model *m,
                               const sinew_rig_options *opt, sinew_rig_report *rep,
                               sinew_error *err)
{
    if (opt->garment != SINEW_RIG_GARMENT_CHAINS) return SINEW_OK;
    const uint32_t nv = a->vertex_count;
    uint32_t *total = sinew_alloc(&a->alloc, nv + 1, sizeof *total);
    if (!total) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "garment: out of memory");
    const uint32_t body = main_shell(a, total);
    sinew_free(&a->alloc, total);
    const float H = rep->scale;
    for (uint32_t p = 0; p < rep->piece_count; p++) {
        sinew_rig_piece *pc = &rep->pieces[p];
        if (pc->verdict != SINEW_RIG_VERDICT_SHEET || pc->merged_into >= 0 ||
            !(pc->length >= SINEW_RIG_GARMENT_LENGTH * H))
            continue;
        const uint32_t shell = piece_shell(a, p);
        if (shell == body) continue;
        /* A surface some chained, rigid or dressed piece already owns skin of (a tail
         * modelled with its cape) stays that piece's. */
        int32_t taken = -1;
        for (uint32_t v = 0; v < nv && taken < 0; v++) {
            const uint32_t q = rep->vertex_piece[v];
            if (q == RIG_NONE || a->shell[a->weld[v]] != shell) continue;
            const sinew_rig_verdict vq = rep->pieces[q].verdict;
            if (vq == SINEW_RIG_VERDICT_CHAIN || vq == SINEW_RIG_VERDICT_RIGID ||
                vq == SINEW_RIG_VERDICT_DRESSED || vq == SINEW_RIG_VERDICT_WING)
                taken = (int32_t)q;
        }
        if (taken >= 0) {
            snprintf(pc->reason, sizeof pc->reason,
                     "a sheet on a surface of its own that piece %d (a %s) moves: unchanged", taken,
                     sinew_rig_verdict_name(rep->pieces[taken].verdict));
            continue;
        }
        int skipped = 0;
        for (uint32_t i = 0; i < opt->skip_piece_count; i++)
            skipped |= opt->skip_pieces[i] == p;
        if (skipped) {
            pc->verdict = SINEW_RIG_VERDICT_SKIPPED;
            snprintf(pc->reason, sizeof pc->reason,
                     "a garment on a surface of its own; left unchanged by request (--skip)");
            continue;
        }
        garment_layout l;
        sinew_result r = garment_layout_make(a, m, rep, shell, opt, &l, err);
        if (r != SINEW_OK) return r;
        if (!(l.width >= SINEW_RIG_GARMENT_WIDTH * H)) {
            snprintf(pc->reason, sizeof pc->reason,
                     "a sheet on a surface of its own, %.2f H %s: too narrow for a garment (a "
                     "strap, a flap), unchanged",
                     (double)(l.width / H), l.ring ? "round" : "wide");
            layout_free(a, &l);
            continue;
        }
        /* The whole surface is the garment: the other pieces on it join it. */
        for (uint32_t q = 0; q < rep->piece_count; q++) {
            sinew_rig_piece *o = &rep->pieces[q];
            if (q == p || o->merged_into >= 0 || piece_shell(a, q) != shell) continue;
            o->verdict = SINEW_RIG_VERDICT_MERGED;
            o->merged_into = (int32_t)p;
            pc->merged_shells += o->merged_shells;
            snprintf(o->reason, sizeof o->reason, "part of the garment (piece %u)", p);
        }
        for (uint32_t q = 0; q < rep->piece_count; q++)
            rep->pieces[q].vertex_count = 0;
        for (uint32_t v = 0; v < nv; v++) {
            if (a->shell[a->weld[v]] == shell) rep->vertex_piece[v] = p;
            if (rep->vertex_piece[v] != RIG_NONE) rep->pieces[rep->vertex_piece[v]].vertex_count++;
        }
        pc->verdict = SINEW_RIG_VERDICT_GARMENT;
        pc->attach_joint = l.parent;
        pc->attach_region = (sinew_rig_region)a->regions[l.parent];
        pc->garment_chains = l.N;
        pc->garment_ring = l.ring;
        pc->length = l.length;
        pc->segments = l.K;
        snprintf(pc->reason, sizeof pc->reason,
                 "a sheet on a surface of its own, %.2f H from its attach line to its hem, "
                 "%s %.2f H %s: a garment, %u chains of %u segments %s it, from %s",
                 (double)(l.length / H), l.ring ? "a ring" : "a sheet", (double)(l.width / H),
                 l.ring ? "round" : "wide", l.N, l.K, l.ring ? "around" : "across",
                 rig_joint_name(m, l.parent));
        layout_free(a, &l);
    }
    return SINEW_OK;
}

/* Circular (ring) or plain distance between places around. */
static float around_distance(float u, float v, int ring)
{
    float d = fabsf(u - v);
    return ring && d > 0.5f ? 1.0f - d : d;
}

/* The centre of the garment's skin near (g, u), widening the window until it holds some. */
static int joint_at(const garment_layout *l, const sinew_model *m, float g, float u, float dg,
                    float du, int hem, sinew_vec3 *out)
{
    for (int widen = 0; widen < 6; widen++, dg *= 2, du *= 2) {
        double x = 0, y = 0, z = 0;
        uint32_t n = 0;
        for (uint32_t i = 0; i < l->count; i++) {
            const uint32_t v = l->verts[i];
            const float gv = l->g[v];
            if (!(fabsf(gv - g) <= dg || (hem && gv >= g))) continue;
            if (around_distance(l->u[v], u, l->ring) > du) continue;
            const sinew_vec3 p = m->mesh.positions[v];
            x += p.x, y += p.y, z += p.z, n++;
        }
        if (n) {
            *out = sinew_vec3_make((float)(x / n), (float)(y / n), (float)(z / n));
            return 1;
        }
    }
    return 0;
}

/* Reflection across the plane through the attach line's centre square to the lateral axis. */
static sinew_vec3 reflect(const garment_layout *l, sinew_vec3 x)
{
    return sinew_vec3_madd(x, l->lateral,
                           -2.0f * sinew_vec3_dot(l->lateral, sinew_vec3_sub(x, l->centre)));
}

/* A mirrored garment: its skin reflected across that plane lies on itself, within
 * RIG_MIRROR_BOUND H on average (the procedural cape and skirt to below 1e-5 H). At most
 * MIRROR_SAMPLES vertices are reflected, so the cost stays linear in the garment's size. */
#define MIRROR_SAMPLES 512
static int mirrored(const garment_layout *l, const sinew_model *m, float H)
{
    double sum = 0;
    uint32_t used = 0;
    const uint32_t stride = l->count / MIRROR_SAMPLES + 1;
    for (uint32_t i = 0; i < l->count; i += stride, used++) {
        const sinew_vec3 x = reflect(l, m->mesh.positions[l->verts[i]]);
        float best = FLT_MAX;
        for (uint32_t k = 0; k < l->count; k++)
            best = fminf(best, sinew_vec3_distance(x, m->mesh.positions[l->verts[k]]));
        sum += best;
    }
    return used && sum / used <= RIG_MIRROR_BOUND * H;
}

sinew_result rig_build_garment(const sinew_rig_analysis *a, const sinew_model *m,
                               const sinew_rig_report *rep, uint32_t p,
                               const sinew_rig_options *opt, sinew_rig_plan *plan,
                               uint32_t *next_joint, rig_segment *segs, uint32_t *seg_count,
                               sinew_vec3 *jp, uint32_t *garments, sinew_error *err)
{
    const sinew_rig_piece *pc = &rep->pieces[p];
    garment_layout l;
    sinew_rig_options o = *opt;
    o.garment_chains = pc->garment_chains;
    sinew_result r = garment_layout_make(a, m, rep, piece_shell(a, p), &o, &l, err);
    if (r != SINEW_OK) return r;
    const uint32_t K = l.K, N = l.N, first = *next_joint;
    const float seg = l.length / (float)K;
    sinew_vec3 Js[SINEW_RIG_MAX_GARMENT_CHAINS][SINEW_RIG_MAX_SEGMENTS + 1];
    for (uint32_t k = 0; k < N; k++) {
        sinew_vec3 *J = Js[k];
        const float uk = ((float)k + 0.5f) / (float)N;
        for (uint32_t j = 0; j <= K; j++)
            if (!joint_at(&l, m, j < K ? (float)j * seg : l.length, uk, 0.25f * seg,
                          0.25f / (float)N, j == K, &J[j])) {
                layout_free(a, &l);
                return sinew_error_set(err, SINEW_ERR_INTERNAL,
                                       "garment: no skin near chain %u's joint %u", k + 1, j);
            }
    }
    /* A garment that is its own mirror image across the body's middle gets chains that are
     * too: chain k and chain N-1-k (u and 1 - u) are made exact reflections (each the mean of
     * itself and its partner's reflection). The geodesic walk follows the mesh's edges, and a
     * mirrored surface is seldom triangulated as its mirror image, so the bands of g lean a
     * little to one side (the procedural cape's outer chains by 0.007 H). */
    if (mirrored(&l, m, rep->scale))
        for (uint32_t k = 0; k <= N - 1 - k; k++) /* the middle chain onto the plane */
            for (uint32_t j = 0; j <= K; j++) {
                const sinew_vec3 a0 = Js[k][j], b0 = Js[N - 1 - k][j];
                Js[k][j] = sinew_vec3_scale(sinew_vec3_add(a0, reflect(&l, b0)), 0.5f);
                Js[N - 1 - k][j] = reflect(&l, Js[k][j]);
            }
    for (uint32_t k = 0; k < N; k++) {
        const sinew_vec3 *J = Js[k];
        for (uint32_t j = 0; j < K; j++)
            if (!(sinew_vec3_distance(J[j], J[j + 1]) > 1e-6f * rep->scale)) {
                layout_free(a, &l);
                return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                                       "garment: chain %u's segment %u has no length", k + 1,
                                       j + 1);
            }
        sinew_rig_chain *ch = &plan->chains[plan->chain_count];
        memset(ch, 0, sizeof *ch);
        ch->piece = p;
        ch->first_joint = first + k * (K + 1);
        ch->garment = *garments + k + 1;
        ch->garment_count = N;
        ch->garment_ring = l.ring;
        for (uint32_t b = 0; b <= K; b++)
            rig_bone_name(m, ch->bones[b].name, sizeof ch->bones[b].name, 0, b, K, NULL, 0,
                          ch->garment);
        if ((r = rig_chain_bones(m, l.parent, J, K, ch, err)) != SINEW_OK) {
            layout_free(a, &l);
            return r;
        }
        for (uint32_t b = 0; b <= K; b++) {
            jp[ch->first_joint + b] = J[b];
            if (b < K)
                segs[(*seg_count)++] =
                    (rig_segment){J[b], J[b + 1], (int32_t)(ch->first_joint + b)};
        }
        plan->chain_count++;
    }
    /* Weights: along each chain the tail's blend, across the two chains either side. */
    const float blend = opt->blend_width;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        const uint32_t w = a->weld[v];
        if (a->shell[w] != l.shell) continue;
        const float s = (float)K * fminf(1.0f, fmaxf(0.0f, l.g[w] / l.length));
        uint32_t k = (uint32_t)floorf(s);
        if (k > K - 1) k = K - 1;
        const float f = s - (float)k;
        float wp, wn;
        rig_segment_shares(f, blend, &wp, &wn);
        float t = l.u[w] * (float)N - 0.5f;
        uint32_t c0, c1;
        float across;
        if (l.ring) {
            const float base = floorf(t);
            across = t - base;
            c0 = (uint32_t)(((long)base % (long)N + (long)N) % (long)N);
            c1 = (c0 + 1) % N;
        } else {
            t = fminf((float)(N - 1), fmaxf(0.0f, t));
            c0 = (uint32_t)floorf(t);
            if (c0 > N - 2) c0 = N - 2;
            across = t - (float)c0;
            c1 = c0 + 1;
        }
        uint32_t jj[6];
        float ww[6];
        const uint32_t cs[2] = {c0, c1};
        const float cw[2] = {1.0f - across, across};
        for (int c = 0; c < 2; c++) {
            const uint32_t base = first + cs[c] * (K + 1);
            jj[3 * c] = base + k;
            jj[3 * c + 1] = k + 1 < K ? base + k + 1 : base + k; /* the end bone is unweighted */
            jj[3 * c + 2] = k == 0 ? (uint32_t)l.parent : base + k - 1;
            ww[3 * c] = cw[c] * (1 - wp - wn);
            ww[3 * c + 1] = cw[c] * wn;
            ww[3 * c + 2] = cw[c] * wp;
        }
        const size_t o2 = (size_t)v * SINEW_MAX_INFLUENCES;
        rig_write_slots(plan->joints + o2, plan->weights + o2, jj, ww, 6);
    }
    *next_joint = first + N * (K + 1);
    *garments += N;
    layout_free(a, &l);
    return SINEW_OK;
}
