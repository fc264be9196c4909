/* Creases: where the surface folds inwards along a closed loop around a protrusion's root
 * (docs/appendages.md, "Finding the tail", the crease).
 *
 * A part boundary is where the surface is most concave (the minima rule: D. D. Hoffman and
 * W. A. Richards, "Parts of recognition", 1984). A tail modelled on its own and welded to the
 * body, or a low-poly tail whose last ring folds into the rump, meets the body along such a
 * fold, and a rigger's border runs along it. The section crossing (protrusion.c) finds the
 * body's entry only to about a section radius; where a fold closes around the tail near it,
 * the fold is the border; where it closes but for gaps, on a chained tail, the gaps are
 * bridged (rig_fold_bridge, below). Where none closes (a smooth flare into the rump, most real
 * tails), the crossing stands. */
#include "rig_internal.h"

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <string.h>

/* Welded triangle x's area-normal (half the cross product), turned outwards: to the side its
 * corners' outward normals face. */
static sinew_vec3 outward_area(const sinew_rig_analysis *a, const sinew_vec3 *P, const uint32_t *x)
{
    const sinew_vec3 n = sinew_vec3_scale(
        sinew_vec3_cross(sinew_vec3_sub(P[x[1]], P[x[0]]), sinew_vec3_sub(P[x[2]], P[x[0]])), 0.5f);
    const sinew_vec3 out =
        sinew_vec3_add(a->normals[x[0]], sinew_vec3_add(a->normals[x[1]], a->normals[x[2]]));
    return sinew_vec3_dot(n, out) < 0 ? sinew_vec3_scale(n, -1) : n;
}

sinew_result rig_measure_surface(sinew_rig_analysis *a, const sinew_model *m, sinew_error *err)
{
    const uint32_t nv = a->vertex_count;
    const sinew_vec3 *P = m->mesh.positions;
    sinew_vec3 *normal = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *normal);
    double *volume = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *volume);
    a->concavity = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *a->concavity);
    a->area = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *a->area);
    a->area_normal = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *a->area_normal);
    a->spacing = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *a->spacing);
    a->normals = normal;
    if (!normal || !volume || !a->concavity || !a->area || !a->area_normal || !a->spacing) {
        sinew_free(&a->alloc, volume);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "creases: out of memory");
    }
    /* Area-weighted vertex normals, and each shell's signed volume (about the box's centre,
     * so the sums stay small) to turn a shell whose triangles wind inwards the right way out:
     * a fold reads as a fold whichever way an exporter wound the faces. */
    const sinew_vec3 o = sinew_vec3_lerp(m->size.min, m->size.max, 0.5f);
    for (uint32_t t = 0; t < a->wtri_count; t++) {
        const uint32_t *x = &a->wtri[3 * (size_t)t];
        const sinew_vec3 p0 = sinew_vec3_sub(P[x[0]], o), p1 = sinew_vec3_sub(P[x[1]], o),
                         p2 = sinew_vec3_sub(P[x[2]], o);
        const sinew_vec3 n = sinew_vec3_cross(sinew_vec3_sub(p1, p0), sinew_vec3_sub(p2, p0));
        for (int k = 0; k < 3; k++)
            normal[x[k]] = sinew_vec3_add(normal[x[k]], n);
        volume[a->shell[x[0]]] += (double)sinew_vec3_dot(p0, sinew_vec3_cross(p1, p2));
    }
    float *out = a->concavity;
    a->edge_max = 0;
    for (uint32_t v = 0; v < nv; v++) {
        const uint32_t s = a->adj_start[v], e = a->adj_start[v + 1];
        if (a->weld[v] != v || e == s) {
            normal[v] = sinew_vec3_make(0, 0, 0);
            continue;
        }
        sinew_vec3 mean = sinew_vec3_make(0, 0, 0);
        float spacing = 0;
        for (uint32_t k = s; k < e; k++) {
            const float d = sinew_vec3_distance(P[a->adj[k]], P[v]);
            mean = sinew_vec3_add(mean, P[a->adj[k]]);
            spacing += d;
            a->edge_max = fmaxf(a->edge_max, d);
        }
        mean = sinew_vec3_scale(mean, 1.0f / (float)(e - s));
        spacing /= (float)(e - s);
        a->spacing[v] = spacing;
        sinew_vec3 n = sinew_vec3_normalize_or(normal[v], sinew_vec3_make(0, 0, 0));
        if (volume[a->shell[v]] < 0) n = sinew_vec3_scale(n, -1);
        normal[v] = n;
        if (spacing > 0) out[v] = sinew_vec3_dot(sinew_vec3_sub(mean, P[v]), n) / spacing;
    }
    sinew_free(&a->alloc, volume);
    /* each representative's third of its triangles' areas and outward area-normals */
    for (uint32_t t = 0; t < a->wtri_count; t++) {
        const uint32_t *x = &a->wtri[3 * (size_t)t];
        const sinew_vec3 n = outward_area(a, P, x);
        const float area = sinew_vec3_length(n) / 3;
        for (int k = 0; k < 3; k++) {
            a->area[x[k]] += area;
            a->area_normal[x[k]] =
                sinew_vec3_add(a->area_normal[x[k]], sinew_vec3_scale(n, 1.0f / 3));
        }
    }
    return SINEW_OK;
}

float rig_crease_cut(const sinew_rig_analysis *a, const rig_geodesic *geo, uint32_t tip, float from,
                     float reach, uint32_t *region, uint32_t stamp, uint32_t *queue)
{
    const float *concavity = a->concavity;
    uint32_t head = 0, tail = 0, creases = 0;
    double crease_g = 0;
    region[tip] = stamp;
    queue[tail++] = tip;
    while (head < tail) {
        const uint32_t x = queue[head++];
        if (concavity[x] > RIG_CREASE_FOLD && geo->g[x] >= from && x != tip) continue;
        for (uint32_t k = a->adj_start[x]; k < a->adj_start[x + 1]; k++) {
            const uint32_t y = a->adj[k];
            if (region[y] == stamp) continue;
            if (!geo->done[y] || !(geo->g[y] < reach)) return -1; /* no closed crease */
            region[y] = stamp;
            queue[tail++] = y;
            if (concavity[y] > RIG_CREASE_FOLD && geo->g[y] >= from)
                creases++, crease_g += geo->g[y];
        }
    }
    return creases ? (float)(crease_g / creases) : -1;
}

/* A crease with gaps. Where a tail leaves the body tangentially on one side, its rim folds only
 * on the others, and the flood above leaks through the gap. The cheapest ring of skin around
 * the tail within the crease's band, where folding skin costs almost nothing and convex skin
 * most, runs along the folds and spans each gap the shortest way; where folds make up most of
 * it, it is the border (a minimum vertex cut, found as a maximum flow: maxflow.c).
 *
 * A vertex folds where its neighbours' mean lies inside its tangent plane by FOLD_LEAST (it
 * picks the crease's line out of the concave skin around it) and the skin within FOLD_SCALE
 * root radii of it lies FOLD_DEPTH of that radius inside the surface on average, integrated
 * over the triangles, so a coarse mesh and a refined copy of it, which is the same surface,
 * read the same. Read one vertex at a time without the scale, the midpoints of a refined copy's
 * edges along a low-poly crease all fold where the coarse vertices did not, and the ring took
 * more of them the finer the mesh: on the Khronos fox, split twice, its share of folds rose
 * from 0.39 to 0.84 and it was bridged, into the body past the original's border (precision
 * 0.892 against it; bridged, the fox itself reads precision 0.776 against its artist).
 * Measured on random creatures 0-299, the notail models and their copies split one to three
 * times (tests/rig/test_rig_models.c): at 0.5 root radii 212 creatures pass but the fox split
 * twice is bridged; at 1.0 209 pass and the ToonCat's rim is lost. */
#define FOLD_SCALE 0.75f
/* FOLD_LEAST: half the crease's own threshold (RIG_CREASE_FOLD, about 15 degrees at one vertex;
 * this is about 7). From 0 to 0.07 the same 211 random creatures pass and every split copy
 * holds; 0.08 loses seed 248, whose fading rim then folds on 0.64 of its ring (0.73 below).
 * At 0 half the band's skin is a candidate whose depth the ring may ask for, and the wolf of
 * bench/rig took 3.39 s through the pipeline instead of 0.95 (0.04 to 0.07 cost the same as
 * 0.08). */
#define FOLD_LEAST (0.5f * RIG_CREASE_FOLD)
/* ... and FOLD_DEPTH (measured with the neighbours' threshold at 0; at FOLD_LEAST the fox's,
 * the ToonCat's, the cow's and seed 248's shares below read the same): 0.02 and 0.03 pass the
 * same 211 creatures, 0.04 and 0.05 210 and lose the ToonCat's rim (0.584 of its ring at 0.04). The
 * window is narrow on the real files: the fox's copies split one to three times read 0.575, 0.634
 * and 0.587 at 0.03 and up to 0.691 at 0.02 (bridged at 0.7), the ToonCat and its copies 0.755 to
 * 0.808 at 0.03. A narrow margin on both sides: the rule that decides whether a fold closes is the
 * weakest part of this step. */
#define FOLD_DEPTH 0.03f
/* The share of the ring's length that must fold. Measured on random creatures 0-299 and the
 * notail models split one to three times: 0.65 and 0.7 pass the same 211 creatures and every
 * split copy (the Quaternius cow's copies read up to 0.658); 0.75 loses seed 248 (0.728); 0.6
 * passes 212 (seed 155), but the Khronos fox's rump, concave where its artist does not end the
 * tail, is then bridged on its copies split twice (precision 0.892). */
#define FOLD_SHARE 0.7f
#define FOLD_COST 0.01

/* Adds the part within `scale` of c of welded triangle t, which crosses the ball's edge, to the
 * area-weighted sums: its offset from c and its outward normal, over a grid of sub-triangles
 * about half the ball's radius across, so a coarse mesh's few big triangles and a refined
 * copy's many small ones give the same sums (up to that grid). */
static void add_within(const sinew_rig_analysis *a, const sinew_vec3 *P, uint32_t t, sinew_vec3 c,
                       float scale, sinew_vec3 *offset, sinew_vec3 *normal)
{
    const uint32_t *x = &a->wtri[3 * (size_t)t];
    const sinew_vec3 p0 = sinew_vec3_sub(P[x[0]], c), p1 = sinew_vec3_sub(P[x[1]], c),
                     p2 = sinew_vec3_sub(P[x[2]], c);
    const sinew_vec3 e1 = sinew_vec3_sub(p1, p0), e2 = sinew_vec3_sub(p2, p0);
    const sinew_vec3 n = outward_area(a, P, x);
    const float r2 = scale * scale;
    const float longest =
        fmaxf(sinew_vec3_length(e1), fmaxf(sinew_vec3_length(e2), sinew_vec3_distance(p1, p2)));
    const int k = (int)fminf(16, fmaxf(1, ceilf(longest / (0.5f * scale))));
    const float part = 1.0f / (float)(k * k), area = sinew_vec3_length(n) * part;
    for (int i = 0; i < k; i++)
        for (int j = 0; i + j < k; j++)
            for (int down = 0; down < 2 && !(down && i + j == k - 1); down++) {
                const float u = ((float)i + (down ? 2.0f : 1.0f) / 3) / (float)k,
                            w = ((float)j + (down ? 2.0f : 1.0f) / 3) / (float)k;
                const sinew_vec3 q = sinew_vec3_add(
                    p0, sinew_vec3_add(sinew_vec3_scale(e1, u), sinew_vec3_scale(e2, w)));
                if (!(sinew_vec3_dot(q, q) < r2)) continue;
                *offset = sinew_vec3_add(*offset, sinew_vec3_scale(q, area));
                *normal = sinew_vec3_add(*normal, sinew_vec3_scale(n, part));
            }
}

/* How far inside the surface, along its mean outward normal, the skin within `scale` of v
 * (reached over the surface) lies on average about v, over `scale`: > 0 where it is concave. */
static float depth_at_scale(const sinew_rig_analysis *a, const sinew_vec3 *P, uint32_t v,
                            float scale, uint32_t *seen, uint32_t *tri_seen, uint32_t mark,
                            uint32_t *queue)
{
    const float r2 = scale * scale;
    uint32_t head = 0, tail = 0;
    sinew_vec3 offset = sinew_vec3_make(0, 0, 0), normal = sinew_vec3_make(0, 0, 0);
    seen[v] = mark;
    queue[tail++] = v;
    while (head < tail) {
        const uint32_t x = queue[head++];
        const sinew_vec3 px = sinew_vec3_sub(P[x], P[v]);
        bool inside = true; /* every neighbour, so every triangle of x, within the ball */
        for (uint32_t k = a->adj_start[x]; k < a->adj_start[x + 1]; k++) {
            const uint32_t y = a->adj[k];
            const sinew_vec3 d = sinew_vec3_sub(P[y], P[v]);
            if (!(sinew_vec3_dot(d, d) < r2)) {
                inside = false;
                continue;
            }
            if (seen[y] == mark) continue;
            seen[y] = mark;
            queue[tail++] = y;
        }
        if (inside && x != v) { /* x's share of its triangles: their centroids, summed */
            offset = sinew_vec3_add(offset, sinew_vec3_scale(px, a->area[x]));
            normal = sinew_vec3_add(normal, a->area_normal[x]);
            continue;
        }
        for (uint32_t k = a->wtri_start[x]; k < a->wtri_start[x + 1]; k++) {
            const uint32_t t = a->wtri_of[k];
            const uint32_t *c = &a->wtri[3 * (size_t)t];
            int corners_in = 0;
            for (int i = 0; i < 3; i++) {
                const sinew_vec3 d = sinew_vec3_sub(P[c[i]], P[v]);
                corners_in += sinew_vec3_dot(d, d) < r2;
            }
            if (corners_in == 3) { /* x's third of a triangle inside */
                const sinew_vec3 n = outward_area(a, P, c);
                offset = sinew_vec3_add(offset, sinew_vec3_scale(px, sinew_vec3_length(n) / 3));
                normal = sinew_vec3_add(normal, sinew_vec3_scale(n, 1.0f / 3));
            } else if (tri_seen[t] != mark) { /* one crossing the ball's edge, once */
                tri_seen[t] = mark;
                add_within(a, P, t, P[v], scale, &offset, &normal);
            }
        }
    }
    const float area = sinew_vec3_length(normal);
    return area > 0 ? sinew_vec3_dot(offset, normal) / (area * area) / scale : 0;
}

/* The band's flow network: band vertex i is nodes 2i (in) and 2i + 1 (out), joined by its
 * cost; skin before the band feeds the ins, skin beyond it drains the outs. */
typedef enum fold_state {
    FOLD_NONE,   /* its neighbours say it does not fold */
    FOLD_UNREAD, /* its neighbours say it folds; the skin around it not read yet */
    FOLD_YES,    /* both say so */
    FOLD_SHALLOW /* its neighbours say so, the skin around it not */
} fold_state;
typedef struct band {
    uint32_t count, *vertex, *index; /* band vertices; index per vertex (RIG_NONE outside) */
    uint8_t *fold;                   /* fold_state */
} band;

static bool in_band(const rig_geodesic *geo, uint32_t x, float from, float reach)
{
    return geo->done[x] && geo->g[x] >= from && geo->g[x] < reach;
}

/* The band's network (above): band vertex i's cost is arc split[i]. */
typedef struct network {
    rig_flow flow;
    uint32_t *split;
    uint32_t source, sink;
} network;

static double flat_cost(const sinew_rig_analysis *a, const band *b, uint32_t i)
{
    return (1 + fmax(0, -(double)a->concavity[b->vertex[i]]) / RIG_CREASE_FOLD) *
           a->spacing[b->vertex[i]];
}

static sinew_result build_network(const sinew_rig_analysis *a, const rig_geodesic *geo,
                                  uint32_t tip, float from, const band *b, network *net,
                                  sinew_error *err)
{
    const uint32_t S = net->source = 2 * b->count, T = net->sink = S + 1;
    uint32_t arcs = 0;
    for (uint32_t i = 0; i < b->count; i++) {
        const uint32_t x = b->vertex[i];
        arcs += 3 + a->adj_start[x + 1] - a->adj_start[x];
    }
    net->split = sinew_alloc(&a->alloc, b->count + 1, sizeof *net->split);
    if (!net->split) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "creases: out of memory");
    sinew_result r = rig_flow_init(&net->flow, &a->alloc, T + 1, arcs, err);
    if (r != SINEW_OK) return r;
    rig_flow *f = &net->flow;
    for (uint32_t i = 0; i < b->count; i++) {
        const uint32_t x = b->vertex[i];
        /* every vertex as flat skin first (the most it will cost), then the folds lowered */
        net->split[i] =
            rig_flow_arc(f, 2 * i, 2 * i + 1, x == tip ? RIG_FLOW_INFINITE : flat_cost(a, b, i));
        if (x != tip && (b->fold[i] == FOLD_UNREAD || b->fold[i] == FOLD_YES))
            rig_flow_set(f, net->split[i], FOLD_COST * a->spacing[b->vertex[i]]);
        bool fed = x == tip, drained = false;
        for (uint32_t k = a->adj_start[x]; k < a->adj_start[x + 1]; k++) {
            const uint32_t y = a->adj[k];
            if (b->index[y] != RIG_NONE)
                rig_flow_arc(f, 2 * i + 1, 2 * b->index[y], RIG_FLOW_INFINITE);
            else if (geo->done[y] && geo->g[y] < from)
                fed = true;
            else
                drained = true;
        }
        if (fed) rig_flow_arc(f, S, 2 * i, RIG_FLOW_INFINITE);
        if (drained) rig_flow_arc(f, 2 * i + 1, T, RIG_FLOW_INFINITE);
    }
    return SINEW_OK;
}

/* The minimum cut (again, after raises): cut[i] for the band vertices on it. */
static sinew_result cut_band(const band *b, network *net, bool *cut, sinew_error *err)
{
    const double flow = rig_flow_max(&net->flow, net->source, net->sink);
    if (flow < 0) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "creases: out of memory");
    const bool bounded = flow < RIG_FLOW_INFINITE;
    for (uint32_t i = 0; i < b->count; i++)
        cut[i] = bounded && rig_flow_source_side(&net->flow, 2 * i) &&
                 !rig_flow_source_side(&net->flow, 2 * i + 1);
    return SINEW_OK;
}

float rig_fold_bridge(const sinew_rig_analysis *a, const sinew_model *m, const rig_geodesic *geo,
                      uint32_t tip, float from, float reach, float root_radius, uint32_t *region,
                      uint32_t stamp, uint32_t *queue, sinew_error *err)
{
    const float *concavity = a->concavity;
    const uint32_t nv = a->vertex_count;
    const sinew_vec3 *P = m->mesh.positions;
    band b = {0};
    b.vertex = sinew_alloc(&a->alloc, nv + 1, sizeof *b.vertex);
    b.index = sinew_alloc(&a->alloc, nv + 1, sizeof *b.index);
    b.fold = sinew_alloc(&a->alloc, nv + 1, sizeof *b.fold);
    uint32_t *seen = sinew_alloc(&a->alloc, nv + 1, sizeof *seen);
    uint32_t *tri_seen = sinew_alloc(&a->alloc, (size_t)a->wtri_count + 1, sizeof *tri_seen);
    bool *cut = sinew_alloc(&a->alloc, nv + 1, sizeof *cut);
    network net = {0};
    float result = -1;
    if (!b.vertex || !b.index || !b.fold || !seen || !tri_seen || !cut) {
        sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "creases: out of memory");
        result = -2;
        goto done;
    }
    for (uint32_t x = 0; x < nv; x++) {
        b.index[x] = RIG_NONE;
        if (a->weld[x] != x || !in_band(geo, x, from, reach)) continue;
        const uint32_t i = b.count++;
        b.index[x] = i;
        b.vertex[i] = x;
        b.fold[i] = concavity[x] > FOLD_LEAST ? FOLD_UNREAD : FOLD_NONE;
    }
    /* The skin around a fold is read only where the ring passes: a ring through unread folds
     * costs no more than it will once they are read, so when every fold on it reads deep
     * enough it is the cheapest ring of all; else those that do not cost what flat skin does
     * and the ring is cut again. (Reading all 327 on the wolf of bench/rig took 0.1 s.) */
    if (build_network(a, geo, tip, from, &b, &net, err) != SINEW_OK) {
        result = -2;
        goto done;
    }
    for (bool again = true; again;) {
        if (cut_band(&b, &net, cut, err) != SINEW_OK) {
            result = -2;
            goto done;
        }
        again = false;
        for (uint32_t i = 0; i < b.count; i++) {
            if (!cut[i] || b.fold[i] != FOLD_UNREAD) continue;
            const float depth = depth_at_scale(a, P, b.vertex[i], FOLD_SCALE * root_radius, seen,
                                               tri_seen, i + 1, queue);
            b.fold[i] = depth > FOLD_DEPTH ? FOLD_YES : FOLD_SHALLOW;
            if (b.fold[i] == FOLD_SHALLOW) {
                rig_flow_set(&net.flow, net.split[i], flat_cost(a, &b, i));
                again = true;
            }
        }
    }
    double length = 0, folded = 0, g_sum = 0;
    uint32_t ring = 0;
    for (uint32_t i = 0; i < b.count; i++) {
        if (!cut[i]) continue;
        const float spacing = a->spacing[b.vertex[i]]; /* the length of ring it stands for */
        length += spacing;
        folded += b.fold[i] == FOLD_YES ? spacing : 0;
        g_sum += geo->g[b.vertex[i]];
        ring++;
    }
    if (!ring || !(folded >= FOLD_SHARE * length)) goto done;
    /* The tail's skin: a flood from the tip that stops at the ring (the ring included). */
    uint32_t head = 0, tail = 0;
    region[tip] = stamp;
    queue[tail++] = tip;
    while (head < tail) {
        const uint32_t x = queue[head++];
        if (b.index[x] != RIG_NONE && cut[b.index[x]]) continue;
        for (uint32_t k = a->adj_start[x]; k < a->adj_start[x + 1]; k++) {
            const uint32_t y = a->adj[k];
            if (region[y] == stamp) continue;
            if (!geo->done[y] || !(geo->g[y] < reach)) goto done; /* the ring leaks */
            region[y] = stamp;
            queue[tail++] = y;
        }
    }
    result = (float)(g_sum / ring);
done:
    rig_flow_free(&net.flow);
    sinew_free(&a->alloc, net.split);
    sinew_free(&a->alloc, b.vertex);
    sinew_free(&a->alloc, b.index);
    sinew_free(&a->alloc, b.fold);
    sinew_free(&a->alloc, seen);
    sinew_free(&a->alloc, tri_seen);
    sinew_free(&a->alloc, cut);
    return result;
}
