/* Protrusions that no bone runs inside (docs/appendages.md, "Finding the tail").
 *
 * A tail, an ear or a horn that the rigger gave no bone is a tube of skin with no bone inside
 * it. We walk each protrusion from its tip towards the body and watch its cross-sections:
 *
 *   tips      extremities of the surface: vertices at a local maximum of the geodesic
 *             distance from the pelvis (per separate shell, from its vertex nearest the
 *             pelvis), taken farthest first;
 *   sections  the geodesic iso-contours around the tip, g = step, 2 step, ... (marching
 *             triangles over the welded mesh), each summed as a length-weighted centre c(g)
 *             and RMS radius r(g): resolution-independent cross-sections, whatever the mesh's
 *             triangle count or the tail's shape;
 *   run       a section is open while no bone passes through it: its centre is farther from
 *             every bone segment than its radius (d(c) > r). The run ends where the sections
 *             close (a bone has entered: the body) and stay closed for at least half a radius,
 *             the crossing d = r interpolated between the last open and the first closed
 *             section. A leg, a snout or a finger closes within a section or two of its tip
 *             (its bone runs to near its end); a boneless tail stays open all the way to its
 *             root, however thick the body it hangs from, however short or thin it is, and
 *             wherever its root sits relative to the far-skin threshold.
 *
 * Walks are Dijkstra searches that stop where their run ends, so the whole search costs about
 * what the protrusions and the few surface patches around false tips hold. */
#include "rig_internal.h"

#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Section spacing as a fraction of H: 0.5% resolves the shortest tails measured (the
 * Quaternius deer's, 11% of H) in 20 sections; finer only costs time (every section is
 * resolution-independent, so a coarse mesh does not need a coarser step). */
#define SECTION_STEP 0.005f
/* A walk gives up this far from its tip (a tail reaches 1.5 body lengths at most). */
#define WALK_LIMIT 2.0f

static void run_free(const sinew_allocator *al, rig_run *run)
{
    sinew_free(al, run->sections);
    sinew_free(al, run->vertices);
    sinew_free(al, run->g);
}

void rig_runs_free(rig_runs *runs)
{
    if (!runs) return;
    sinew_allocator al = runs->alloc;
    for (uint32_t i = 0; i < runs->count; i++)
        run_free(&al, &runs->items[i]);
    sinew_free(&al, runs->items);
    memset(runs, 0, sizeof *runs);
}

/* Per-walk section accumulators, in double around the tip (coordinates may be large). */
typedef struct section_sum {
    double len, m[3], mm[6]; /* length, first moments, second moments xx xy xz yy yz zz */
    uint32_t open_ends;
} section_sum;

typedef struct walker {
    const sinew_rig_analysis *a;
    const sinew_model *m;
    rig_geodesic geo;
    uint32_t *tri_stamp, stamp; /* per welded triangle: last walk that summed it */
    section_sum *sums;
    rig_section *sections;
    uint32_t max_sections;
    uint32_t *order; /* settled vertices of the current walk, in order */
    float step, edge_max, limit;
    uint32_t *crease_region, *queue; /* per vertex: rig_crease_cut's stamp and queue */
    int bridging;                    /* creases with gaps are bridged (rig_fold_bridge) */
} walker;

/* 1 when the welded edge u-w borders a single triangle (the mesh's boundary). */
static int boundary_edge(const sinew_rig_analysis *a, uint32_t u, uint32_t w)
{
    uint32_t n = 0;
    for (uint32_t k = a->wtri_start[u]; k < a->wtri_start[u + 1] && n < 2; k++) {
        const uint32_t *x = &a->wtri[3 * (size_t)a->wtri_of[k]];
        n += x[0] == w || x[1] == w || x[2] == w;
    }
    return n == 1;
}

/* Adds triangle t's iso-contour segments to every section level it spans. */
static void add_triangle(walker *w, uint32_t t, sinew_vec3 origin)
{
    const uint32_t *x = &w->a->wtri[3 * (size_t)t];
    const float g[3] = {w->geo.g[x[0]], w->geo.g[x[1]], w->geo.g[x[2]]};
    const sinew_vec3 *P = w->m->mesh.positions;
    float lo = fminf(g[0], fminf(g[1], g[2])), hi = fmaxf(g[0], fmaxf(g[1], g[2]));
    /* Section levels spanned, clamped as floats (a far vertex's distance may be beyond any
     * integer) before they become indices. */
    const float top = (float)w->max_sections;
    const float f0 = floorf(lo / w->step) + 1, f1 = ceilf(hi / w->step);
    if (!(f0 <= top)) return;
    uint32_t k0 = f0 > 0 ? (uint32_t)f0 : 0,
             k1 = f1 < top ? (uint32_t)fmaxf(f1, 0) : w->max_sections;
    for (uint32_t k = k0; k < k1 + 1 && k <= w->max_sections; k++) {
        const float L = (float)k * w->step;
        if (!(L > lo && L <= hi)) continue;
        sinew_vec3 pts[2];
        int n = 0;
        uint32_t ends = 0;
        for (int e = 0; e < 3 && n < 2; e++) {
            int f = (e + 1) % 3;
            if ((g[e] < L) == (g[f] < L)) continue;
            float s = (L - g[e]) / (g[f] - g[e]);
            pts[n++] = sinew_vec3_lerp(P[x[e]], P[x[f]], s);
            ends += (uint32_t)boundary_edge(w->a, x[e], x[f]);
        }
        if (n < 2) continue;
        double l = sinew_vec3_distance(pts[0], pts[1]);
        sinew_vec3 mid = sinew_vec3_sub(sinew_vec3_lerp(pts[0], pts[1], 0.5f), origin);
        section_sum *s = &w->sums[k - 1];
        s->open_ends += ends;
        s->len += l;
        const double mx = mid.x, my = mid.y, mz = mid.z;
        s->m[0] += l * mx, s->m[1] += l * my, s->m[2] += l * mz;
        s->mm[0] += l * mx * mx, s->mm[1] += l * mx * my, s->mm[2] += l * mx * mz;
        s->mm[3] += l * my * my, s->mm[4] += l * my * mz, s->mm[5] += l * mz * mz;
    }
}

static rig_section finish_section(const walker *w, uint32_t k, sinew_vec3 origin)
{
    const section_sum *s = &w->sums[k];
    rig_section out;
    memset(&out, 0, sizeof out);
    out.g = (float)(k + 1) * w->step;
    if (!(s->len > 0)) return out;
    double c[3] = {s->m[0] / s->len, s->m[1] / s->len, s->m[2] / s->len};
    double cov[9];
    cov[0] = s->mm[0] / s->len - c[0] * c[0];
    cov[1] = cov[3] = s->mm[1] / s->len - c[0] * c[1];
    cov[2] = cov[6] = s->mm[2] / s->len - c[0] * c[2];
    cov[4] = s->mm[3] / s->len - c[1] * c[1];
    cov[5] = cov[7] = s->mm[4] / s->len - c[1] * c[2];
    cov[8] = s->mm[5] / s->len - c[2] * c[2];
    double r2 = cov[0] + cov[4] + cov[8];
    out.centre = sinew_vec3_add(origin, sinew_vec3_make((float)c[0], (float)c[1], (float)c[2]));
    out.radius = (float)sqrt(r2 > 0 ? r2 : 0);
    /* The contour's two spreads across the piece: a ring's are equal, a slab's (a cape
     * modelled with thickness) very unequal. */
    double val[3], vec[9];
    sinew_sym3_eigen(cov, val, vec);
    out.flatness = val[0] > 0 && val[1] > 0 ? (float)sqrt(val[1] / val[0]) : 0.0f;
    out.perimeter = (float)s->len;
    out.open_ends = s->open_ends;
    out.bone_distance = rig_skeleton_distance(w->a->segments, w->a->segment_count, out.centre);
    return out;
}

static int section_open(const rig_section *s)
{
    return s->perimeter > 0 && s->bone_distance > s->radius;
}

/* Where the run narrows to a neck right before the body (a bushy tail on a slim root, the
 * rump flaring round it), the neck is the root (the minima rule of part boundaries: Hoffman
 * and Richards 1984): the crossing d = r locates the body's entry only to within about a
 * section radius, and within that the constriction is the sharper boundary; the flare beyond
 * it stays body skin, as the rigger weighted it. A neck is the least radius among the
 * sections within NECK_REACH neck radii before the cut, at least NECK_DEPTH times thinner
 * than the thickest section on either side of it within that reach. Returns the neck's g, or
 * `cut` when there is none. Measured on the 10 tailed shared models, necks within 4 radii of
 * the crossing: the Khronos fox's sits 1.0 neck radii before it, where its artist ends the
 * tail; the Quaternius fox's, horse's and wolf's 1.7, 1.9 and 3.2, where their artists carry
 * the tail's skin on into the flare. So the reach is the crossing's own uncertainty (one
 * radius) and a quarter more; 1.05 to 1.65 separate those four. NECK_DEPTH 1.1: the Khronos
 * fox's neck is 1.25 and 1.34 times thinner than either side. */
#define NECK_REACH 1.25f
#define NECK_DEPTH 1.1f
/* How far around the crossing a crease is looked for, in root radii: a crease from 2 before
 * it (a crossing the welded rim's oblique contours carried into the rump) to 2.5 beyond it (a
 * short thick tail whose sections close before its rim). Over random creatures 0-299 the same
 * seeds pass with 2 to 3 before and 1.5 to 3.5 beyond; 1 before loses seed 97. */
#define CREASE_BEFORE 2.0f
#define CREASE_REACH 2.5f
/* ... and only on walks at least this many root radii long: a tail is longer than it is
 * thick, and walking on past every short walk was dear. On the wolf of bench/rig (284,104
 * vertices) walking on cost 190 ms of its 500, most of it on walks that closed at 1.2 to 1.6
 * root radii and took 20,000 to 76,000 more vertices each; random seed 256's stub tail, the
 * shortest that needs its crease, is 1.5 to 2 root radii long. */
#define CREASE_LENGTH 1.5f
/* A crease with gaps is bridged (rig_fold_bridge) only as far as this many root radii beyond
 * the crossing: the bridged rings of random creatures 0-299 lie from 1.0 root radii before
 * their crossing to 0.5 beyond it, and a narrower band is a cheaper flow. 1.5 gives every seed
 * and shared file (and their split copies) what 2.5, the crease's own reach, gives; 1.0 lost
 * seeds 262, 281 and 285's rings. */
#define BRIDGE_REACH 1.5f
static float neck_before(const rig_section *sections, uint32_t count, float step, float cut)
{
    float neck = cut, neck_radius = FLT_MAX;
    for (uint32_t i = 0; i < count; i++) {
        const rig_section *s = &sections[i];
        const float reach = NECK_REACH * s->radius;
        if (s->perimeter <= 0 || s->g > cut || cut - s->g > reach) continue;
        /* s is a neck when nothing within its reach is thinner and both sides are thicker. */
        const uint32_t span = (uint32_t)ceilf(reach / step);
        const uint32_t lo = i > span ? i - span : 0, hi = i + span < count ? i + span : count - 1;
        float tip_side = 0, body_side = 0;
        int least = 1;
        for (uint32_t j = lo; j <= hi && least; j++) {
            const rig_section *t = &sections[j];
            if (t->perimeter <= 0 || t->g > cut || fabsf(t->g - s->g) > reach) continue;
            least = t->radius >= s->radius;
            if (j < i) tip_side = fmaxf(tip_side, t->radius);
            if (j > i) body_side = fmaxf(body_side, t->radius);
        }
        if (least && tip_side >= NECK_DEPTH * s->radius && body_side >= NECK_DEPTH * s->radius &&
            s->radius < neck_radius)
            neck = s->g, neck_radius = s->radius;
    }
    return neck;
}

int rig_compare_floats(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* Settles the walk's next vertex and sums the triangles it completes; 0 at the walk's end. */
static int settle(walker *w, uint32_t *settled, float *g, sinew_vec3 origin)
{
    const sinew_rig_analysis *a = w->a;
    uint32_t v;
    if (!rig_geodesic_next(&w->geo, &v, g)) return 0;
    w->order[(*settled)++] = v;
    for (uint32_t k = a->wtri_start[v]; k < a->wtri_start[v + 1]; k++) {
        uint32_t t = a->wtri_of[k];
        const uint32_t *x = &a->wtri[3 * (size_t)t];
        if (w->tri_stamp[t] == w->stamp || !w->geo.done[x[0]] || !w->geo.done[x[1]] ||
            !w->geo.done[x[2]])
            continue;
        w->tri_stamp[t] = w->stamp;
        add_triangle(w, t, origin);
    }
    return 1;
}

/* The radius of the last section at or before `cut` that has a contour (0 when none). */
static float last_radius(const rig_section *sections, uint32_t count, float cut)
{
    float r = 0;
    for (uint32_t i = 0; i < count && sections[i].g <= cut; i++)
        if (sections[i].perimeter > 0) r = sections[i].radius;
    return r;
}

/* 1 when the walk's vertex x is the run's: before the cut, or inside the crease when one
 * bounds the run (a fold runs across the iso-contours where a tail meets the body obliquely). */
static int in_run(const walker *w, uint32_t x, float crease, float cut)
{
    return crease > 0 ? w->crease_region[x] == w->stamp : w->geo.g[x] < cut;
}

/* One walk from `tip`; fills `run` (its arrays allocated with the analysis allocator). */
static sinew_result walk(walker *w, uint32_t tip, rig_run *run, sinew_error *err)
{
    const sinew_rig_analysis *a = w->a;
    const sinew_vec3 origin = w->m->mesh.positions[tip];
    memset(run, 0, sizeof *run);
    run->tip = tip;
    rig_geodesic_reset(&w->geo);
    rig_geodesic_seed(&w->geo, tip, 0);
    memset(w->sums, 0, w->max_sections * sizeof *w->sums);
    w->stamp++;
    uint32_t settled = 0, finished = 0, closed_from = UINT32_MAX;
    int closed_body = 0; /* the sections closed (a body met), not the shell or the walk ended */
    float cut = -1;
    float g = 0;
    int more = 1;
    for (;;) {
        more = settle(w, &settled, &g, origin);
        /* Sections at levels every triangle across which is summed: all vertices within the
         * longest edge beyond them are settled. */
        const float complete = more ? g - w->edge_max : g; /* at the end: all there is */
        while (finished < w->max_sections && (float)(finished + 1) * w->step <= complete) {
            rig_section s = finish_section(w, finished, origin);
            w->sections[finished] = s;
            if (s.perimeter > 0 && !section_open(&s)) {
                if (closed_from == UINT32_MAX) closed_from = finished;
                if (s.g - w->sections[closed_from].g >= fmaxf(2 * w->step, 0.5f * s.radius)) {
                    cut = w->sections[closed_from].g;
                    if (closed_from > 0 && section_open(&w->sections[closed_from - 1])) {
                        /* The crossing d = r between the last open and first closed section. */
                        const rig_section *p = &w->sections[closed_from - 1],
                                          *q = &w->sections[closed_from];
                        float xp = p->bone_distance / p->radius - 1,
                              xq = q->bone_distance / fmaxf(q->radius, 1e-30f) - 1;
                        float f = xp / (xp - xq);
                        if (f >= 0 && f <= 1) cut = p->g + f * (q->g - p->g);
                    }
                    finished++;
                    break;
                }
            } else if (s.perimeter > 0) {
                closed_from = UINT32_MAX;
            }
            finished++;
        }
        if (cut >= 0) {
            closed_body = 1;
            break;
        }
        if (!more || g > w->limit || finished >= w->max_sections) {
            /* The shell ended (a separate piece: the walk reached its far end) or the walk went on
             * too long: the run ends at its first closed section, else at its far end. */
            cut = closed_from != UINT32_MAX ? w->sections[closed_from].g : g;
            break;
        }
    }
    /* Where a protrusion's sections closed on a body, a closed crease within CREASE_BEFORE
     * root radii before the cut or CREASE_REACH beyond it is the border instead: walk and
     * section on out to where it would have to close. A walk that ran to its shell's end or
     * its limit met no body to fold into. */
    cut = neck_before(w->sections, finished, w->step, cut);
    const float root_radius = last_radius(w->sections, finished, cut);
    const int met_body = closed_body && cut >= CREASE_LENGTH * root_radius;
    const float reach = cut + CREASE_REACH * root_radius;
    while (met_body && more && g <= reach + w->edge_max) {
        more = settle(w, &settled, &g, origin);
        const float complete = more ? g - w->edge_max : g;
        for (; finished < w->max_sections && (float)(finished + 1) * w->step <= complete;
             finished++)
            w->sections[finished] = finish_section(w, finished, origin);
    }
    const float from = cut - CREASE_BEFORE * root_radius;
    float crease = met_body ? rig_crease_cut(a, &w->geo, tip, from, reach, w->crease_region,
                                             w->stamp, w->queue)
                            : -1;
    if (crease < 0 && met_body && w->bridging) {
        for (uint32_t i = 0; i < settled; i++) /* forget the flood that leaked */
            w->crease_region[w->order[i]] = 0;
        crease = rig_fold_bridge(a, w->m, &w->geo, tip, from, cut + BRIDGE_REACH * root_radius,
                                 root_radius, w->crease_region, w->stamp, w->queue, err);
        if (crease < -1) return SINEW_ERR_OUT_OF_MEMORY;
    }
    if (crease > 0) cut = crease;
    /* Keep the open sections (up to the cut) and the skin in the run (see in_run). */
    uint32_t ns = 0;
    while (ns < finished && w->sections[ns].g <= cut)
        ns++;
    uint32_t nv = 0;
    for (uint32_t i = 0; i < settled; i++)
        if (in_run(w, w->order[i], crease, cut)) nv++;
    run->cut = cut;
    run->creased = crease > 0;
    run->met_body = met_body;
    run->step = w->step;
    run->section_count = ns;
    run->sections = sinew_alloc(&a->alloc, ns + 1, sizeof *run->sections);
    run->vertices = sinew_alloc(&a->alloc, nv + 1, sizeof *run->vertices);
    run->g = sinew_alloc(&a->alloc, nv + 1, sizeof *run->g);
    float *radii = sinew_alloc(&a->alloc, ns + 1, sizeof *radii);
    if (!run->sections || !run->vertices || !run->g || !radii) {
        sinew_free(&a->alloc, radii);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "protrusions: out of memory");
    }
    memcpy(run->sections, w->sections, ns * sizeof *run->sections);
    uint32_t nr = 0;
    for (uint32_t i = 0; i < ns; i++)
        if (run->sections[i].perimeter > 0) radii[nr++] = run->sections[i].radius;
    qsort(radii, nr, sizeof *radii, rig_compare_floats);
    run->radius = nr ? radii[nr / 2] : 0;
    sinew_free(&a->alloc, radii);
    for (uint32_t i = 0; i < settled; i++) {
        uint32_t x = w->order[i];
        if (in_run(w, x, crease, cut)) {
            run->vertices[run->vertex_count] = x;
            run->g[run->vertex_count++] = w->geo.g[x];
        }
    }
    return SINEW_OK;
}

/* Geodesic distance of every representative from its shell's vertex nearest the pelvis. */
static sinew_result shell_distances(const sinew_rig_analysis *a, const sinew_model *m,
                                    rig_geodesic *geo, sinew_vec3 pelvis, float *out,
                                    sinew_error *err)
{
    const uint32_t nv = a->vertex_count;
    uint32_t *source = sinew_alloc(&a->alloc, nv + 1, sizeof *source);
    if (!source) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "protrusions: out of memory");
    for (uint32_t v = 0; v < nv; v++)
        source[v] = RIG_NONE;
    for (uint32_t v = 0; v < nv; v++) {
        if (a->weld[v] != v) continue;
        uint32_t s = a->shell[v];
        if (source[s] == RIG_NONE || sinew_vec3_distance(m->mesh.positions[v], pelvis) <
                                         sinew_vec3_distance(m->mesh.positions[source[s]], pelvis))
            source[s] = v;
    }
    rig_geodesic_reset(geo);
    for (uint32_t s = 0; s < nv; s++)
        if (source[s] != RIG_NONE) rig_geodesic_seed(geo, source[s], 0);
    uint32_t v;
    float g;
    while (rig_geodesic_next(geo, &v, &g)) {
    }
    for (uint32_t x = 0; x < nv; x++)
        out[x] = geo->done[x] ? geo->g[x] : -1;
    sinew_free(&a->alloc, source);
    return SINEW_OK;
}

typedef struct tip_candidate {
    float g;
    uint32_t v;
} tip_candidate;

static int cmp_tip(const void *x, const void *y)
{
    const tip_candidate *a = x, *b = y;
    if (a->g != b->g) return a->g < b->g ? 1 : -1;
    return (a->v > b->v) - (a->v < b->v);
}

static void walker_close(walker *w)
{
    const sinew_rig_analysis *a = w->a;
    rig_geodesic_free(&w->geo);
    sinew_free(&a->alloc, w->tri_stamp);
    sinew_free(&a->alloc, w->sums);
    sinew_free(&a->alloc, w->sections);
    sinew_free(&a->alloc, w->order);
    sinew_free(&a->alloc, w->crease_region);
    sinew_free(&a->alloc, w->queue);
}

/* A walker over the analysis's graph; `bridging`: creases with gaps are bridged. */
static sinew_result walker_open(walker *w, const sinew_rig_analysis *a, const sinew_model *m,
                                float H, int bridging, sinew_error *err)
{
    const uint32_t nv = a->vertex_count;
    memset(w, 0, sizeof *w);
    w->a = a;
    w->m = m;
    w->step = SECTION_STEP * H;
    w->limit = WALK_LIMIT * H;
    w->max_sections = (uint32_t)(WALK_LIMIT / SECTION_STEP) + 2;
    w->edge_max = a->edge_max;
    w->bridging = bridging;
    w->tri_stamp = sinew_alloc(&a->alloc, (size_t)a->wtri_count + 1, sizeof *w->tri_stamp);
    w->sums = sinew_alloc(&a->alloc, w->max_sections + 1, sizeof *w->sums);
    w->sections = sinew_alloc(&a->alloc, w->max_sections + 1, sizeof *w->sections);
    w->order = sinew_alloc(&a->alloc, nv + 1, sizeof *w->order);
    w->crease_region = sinew_alloc(&a->alloc, nv + 1, sizeof *w->crease_region);
    w->queue = sinew_alloc(&a->alloc, nv + 1, sizeof *w->queue);
    sinew_result r = SINEW_OK;
    if (!w->tri_stamp || !w->sums || !w->sections || !w->order || !w->crease_region || !w->queue)
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "protrusions: out of memory");
    else
        r = rig_geodesic_init(&w->geo, a, m, err);
    if (r != SINEW_OK) walker_close(w);
    return r;
}

sinew_result rig_find_runs(const sinew_rig_analysis *a, const sinew_model *m, float H,
                           int32_t pelvis, rig_runs *out, sinew_error *err)
{
    memset(out, 0, sizeof *out);
    out->alloc = a->alloc;
    const uint32_t nv = a->vertex_count;
    walker w;
    sinew_result r = walker_open(&w, a, m, H, 0, err);
    if (r != SINEW_OK) return r;
    float *g0 = sinew_alloc(&a->alloc, nv + 1, sizeof *g0);
    uint8_t *covered = sinew_alloc(&a->alloc, nv + 1, 1);
    tip_candidate *tips = sinew_alloc(&a->alloc, nv + 1, sizeof *tips);
    if (!g0 || !covered || !tips) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "protrusions: out of memory");
        goto done;
    }
    sinew_vec3 pelvis_at = pelvis >= 0 ? rig_joint_position(m, (uint32_t)pelvis)
                                       : sinew_vec3_lerp(m->size.min, m->size.max, 0.5f);
    if ((r = shell_distances(a, m, &w.geo, pelvis_at, g0, err)) != SINEW_OK) goto done;
    uint32_t ntips = 0;
    for (uint32_t v = 0; v < nv; v++) {
        if (a->weld[v] != v || g0[v] < 0 || a->adj_start[v] == a->adj_start[v + 1]) continue;
        int peak = 1;
        for (uint32_t k = a->adj_start[v]; k < a->adj_start[v + 1] && peak; k++)
            peak = g0[a->adj[k]] <= g0[v];
        if (peak) tips[ntips++] = (tip_candidate){g0[v], v};
    }
    qsort(tips, ntips, sizeof *tips, cmp_tip);
    for (uint32_t i = 0; i < ntips; i++) {
        if (covered[tips[i].v]) continue;
        rig_run run;
        if ((r = walk(&w, tips[i].v, &run, err)) != SINEW_OK) goto done;
        covered[tips[i].v] = 1;
        for (uint32_t k = 0; k < run.vertex_count; k++)
            covered[run.vertices[k]] = 1;
        if (out->count == out->capacity) {
            uint32_t cap = out->capacity ? 2 * out->capacity : 16;
            rig_run *items = sinew_alloc(&a->alloc, cap, sizeof *items);
            if (!items) {
                run_free(&a->alloc, &run);
                r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "protrusions: out of memory");
                goto done;
            }
            if (out->count) memcpy(items, out->items, out->count * sizeof *items);
            sinew_free(&a->alloc, out->items);
            out->items = items;
            out->capacity = cap;
        }
        out->items[out->count++] = run;
    }
done:
    walker_close(&w);
    sinew_free(&a->alloc, g0);
    sinew_free(&a->alloc, covered);
    sinew_free(&a->alloc, tips);
    if (r != SINEW_OK) rig_runs_free(out);
    return r;
}

sinew_result rig_bridge_run(const sinew_rig_analysis *a, const sinew_model *m, float H,
                            rig_run *run, int *bridged, sinew_error *err)
{
    *bridged = 0;
    if (run->creased || !run->met_body)
        return SINEW_OK; /* closed already, or nothing to close on */
    walker w;
    sinew_result r = walker_open(&w, a, m, H, 1, err);
    if (r != SINEW_OK) return r;
    rig_run fresh;
    r = walk(&w, run->tip, &fresh, err);
    walker_close(&w);
    if (r != SINEW_OK) {
        run_free(&a->alloc, &fresh);
        return r;
    }
    if (fresh.creased) {
        run_free(&a->alloc, run);
        *run = fresh;
        *bridged = 1;
    } else {
        run_free(&a->alloc, &fresh);
    }
    return SINEW_OK;
}
