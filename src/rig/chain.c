/* The chain along a tail (docs/appendages.md, "The chain").
 *
 *   L        the tail's length: the geodesic distance from its root section to its tip;
 *            K = clamp(round(L / 0.1 H), 3, 8) segments.
 *   joints   J_i at the centre of the cross-section L (1 - i / K) from the tip (J_0 at the root
 *            section, J_K a quarter segment short of the tip), then two passes of
 *            J_i <- J_i / 2 + (J_{i-1} + J_{i+1}) / 4 on the interior joints, so the chain does
 *            not zigzag where a bushy tail's sections are lopsided.
 *   bones    Tail_1..Tail_K + an unweighted Tail_End, under the pelvis, each turned from its
 *            parent's bind frame by the least rotation that lays its +Y axis along the bone
 *            (the axis glTF rigs and Blender's importer read as the bone's direction);
 *            existing clips never reference them.
 *   weights  with s = K (L - g) / L for a vertex g from the tip, k = floor(s) and f = s - k,
 *            bone k+1 owns segment k and shares its ends with its neighbours:
 *            w_prev = clamp(0.5 - f/w, 0, 0.5), w_next = clamp((f - 1 + w/2)/w, 0, 0.5),
 *            w_self = 1 - w_prev - w_next, with the blend width w (0.5 gives 0.5 - 2f and
 *            2f - 1.5); the root segment's prev is the pelvis (SINEW_RIG_ROOT_PELVIS) or the
 *            rigger's weights of the body skin the root meets (SINEW_RIG_ROOT_BODY, with the
 *            blend carried on into that skin: see blend_collar), so the tail blends into the
 *            body instead of creasing at its root. */
#include "rig_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sinew_rig_plan_free(sinew_rig_plan *plan)
{
    if (!plan) return;
    sinew_allocator al = plan->allocator;
    sinew_free(&al, plan->chains);
    sinew_free(&al, plan->joints);
    sinew_free(&al, plan->weights);
    sinew_free(&al, plan->changed);
    memset(plan, 0, sizeof *plan);
}

static float clampf(float x, float lo, float hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* At most this many influences per re-weighted vertex: what every glTF player plays (three.js
 * and most engines read JOINTS_0 only). */
#define CHAIN_INFLUENCES 4

void rig_write_slots(uint16_t *joints, float *weights, const uint32_t *j, const float *w, int count)
{
    uint32_t jj[SINEW_MAX_INFLUENCES];
    float ww[SINEW_MAX_INFLUENCES];
    int n = 0;
    for (int i = 0; i < count; i++) {
        if (!(w[i] > 0)) continue;
        int merged = 0;
        for (int k = 0; k < n; k++)
            if (jj[k] == j[i]) ww[k] += w[i], merged = 1;
        if (!merged && n < SINEW_MAX_INFLUENCES) jj[n] = j[i], ww[n] = w[i], n++;
    }
    for (int i = 1; i < n; i++) /* insertion sort, stable */
        for (int k = i; k > 0 && ww[k] > ww[k - 1]; k--) {
            float tw = ww[k];
            ww[k] = ww[k - 1];
            ww[k - 1] = tw;
            uint32_t tj = jj[k];
            jj[k] = jj[k - 1];
            jj[k - 1] = tj;
        }
    if (n > CHAIN_INFLUENCES) n = CHAIN_INFLUENCES;
    float sum = 0;
    for (int i = 0; i < n; i++)
        sum += ww[i];
    for (int s = 0; s < SINEW_MAX_INFLUENCES; s++) {
        joints[s] = s < n ? (uint16_t)jj[s] : 0;
        weights[s] = s < n ? ww[s] / sum : 0.0f;
    }
}

void rig_bone_name(const sinew_model *m, char *out, size_t size, uint32_t chain, uint32_t b,
                   uint32_t K, const char *kind, int side, uint32_t garment)
{
    char base[SINEW_RIG_NAME_MAX - 8];
    const char *lr = side > 0 ? "L" : "R";
    if (garment && b == K)
        snprintf(base, sizeof base, "Garment_%u_End", garment);
    else if (garment)
        snprintf(base, sizeof base, "Garment_%u_%u", garment, b + 1);
    else if (side && b == K)
        snprintf(base, sizeof base, "%s_%s_End", kind, lr);
    else if (side)
        snprintf(base, sizeof base, "%s_%s_%u", kind, lr, b + 1);
    else if (b == K)
        snprintf(base, sizeof base, chain ? "Tail%u_End" : "Tail_End", chain + 1);
    else if (chain)
        snprintf(base, sizeof base, "Tail%u_%u", chain + 1, b + 1);
    else
        snprintf(base, sizeof base, "Tail_%u", b + 1);
    snprintf(out, size, "%s", base);
    for (unsigned k = 2; sinew_model_find_node(m, out) >= 0 && k < 1000; k++)
        snprintf(out, size, "%s.%03u", base, k);
}

/* The centre of the run's cross-section `g` from its tip (linear between sections). */
static sinew_vec3 centre_at(const rig_run *run, float g, sinew_vec3 fallback)
{
    const rig_section *prev = NULL;
    for (uint32_t i = 0; i < run->section_count; i++) {
        const rig_section *s = &run->sections[i];
        if (!(s->perimeter > 0)) continue;
        if (s->g >= g) {
            if (!prev) return s->centre;
            float f = (g - prev->g) / (s->g - prev->g);
            return sinew_vec3_lerp(prev->centre, s->centre, f);
        }
        prev = s;
    }
    return prev ? prev->centre : fallback;
}

uint32_t rig_chain_segment_count(float L, float segment, uint32_t fewest, uint32_t most)
{
    const long kr = lroundf(L / segment);
    return (uint32_t)(kr < (long)fewest ? fewest : (kr > (long)most ? most : kr));
}

void rig_chain_joints(const rig_run *run, const sinew_rig_piece *pc, float L, uint32_t K,
                      sinew_vec3 *J)
{
    J[0] = pc->root;
    for (uint32_t b = 1; b <= K; b++) {
        float g = b < K ? L * (1.0f - (float)b / (float)K) : 0.25f * L / (float)K;
        J[b] = centre_at(run, g, pc->tip);
    }
    for (int pass = 0; pass < 2; pass++) {
        sinew_vec3 old[SINEW_RIG_MAX_SEGMENTS + 1];
        memcpy(old, J, (K + 1) * sizeof *J);
        for (uint32_t b = 1; b < K; b++)
            J[b] = sinew_vec3_add(sinew_vec3_scale(old[b], 0.5f),
                                  sinew_vec3_scale(sinew_vec3_add(old[b - 1], old[b + 1]), 0.25f));
    }
}

/* The axial position of a run's k-th vertex: 1 at the tip, 0 at the cut and on a crease's
 * far side (a border along a fold runs obliquely across the distances from the tip). */
static float axial_of(const rig_run *run, uint32_t k)
{
    return fmaxf(0.0f, 1.0f - run->g[k] / run->cut);
}

/* Axial position along the piece's chain, 0 at the root and 1 at the tip, per representative
 * of piece p: from its own walk, or the walk of a piece merged into it (fur over skin); skin no
 * such walk reached takes the position of the walk's nearest vertex. Call with axial[] = -1
 * on the piece's representatives. */
static void axial_positions(const sinew_rig_analysis *a, const sinew_model *m,
                            const sinew_rig_report *rep, uint32_t p, float *axial)
{
    for (uint32_t q = 0; q < rep->piece_count; q++) {
        if (q != p && (rep->pieces[q].merged_into != (int32_t)p || rep->pieces[q].rides_on >= 0))
            continue;
        const rig_run *run = &a->runs.items[a->piece_runs[q]];
        for (uint32_t k = 0; k < run->vertex_count; k++)
            axial[run->vertices[k]] = axial_of(run, k);
    }
    /* The rest (a rider's skin, a plate on the tail; the hidden root of a tail modelled as
     * its own shell) moves with the tail's skin nearest it. */
    const rig_run *own = &a->runs.items[a->piece_runs[p]];
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        if (a->weld[v] != v || rep->vertex_piece[v] != p || axial[v] >= 0) continue;
        float best = FLT_MAX;
        axial[v] = 0;
        for (uint32_t k = 0; k < own->vertex_count; k++) {
            float d =
                sinew_vec3_distance(m->mesh.positions[own->vertices[k]], m->mesh.positions[v]);
            if (d < best) best = d, axial[v] = axial_of(own, k);
        }
    }
}

/* 1 when vertex x belongs to a piece that gets new weights (chained, rigid or dressed). */
static int owned_by_appendage(const sinew_rig_report *rep, uint32_t x)
{
    const uint32_t owner = rep->vertex_piece[x];
    if (owner == UINT32_MAX) return 0;
    const sinew_rig_verdict v = rep->pieces[owner].verdict;
    return v == SINEW_RIG_VERDICT_CHAIN || v == SINEW_RIG_VERDICT_RIGID ||
           v == SINEW_RIG_VERDICT_DRESSED || v == SINEW_RIG_VERDICT_WING ||
           v == SINEW_RIG_VERDICT_EAR || v == SINEW_RIG_VERDICT_GARMENT;
}

/* The body skin bordering piece p: vertices outside every chained, rigid or dressed piece
 * with a welded neighbour in p. Returns how many (written to `out`). */
static uint32_t body_border(const sinew_rig_analysis *a, const sinew_model *m,
                            const sinew_rig_report *rep, uint32_t p, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t x = 0; x < m->mesh.vertex_count; x++) {
        if (a->weld[x] != x || owned_by_appendage(rep, x)) continue;
        int borders = 0;
        for (uint32_t k = a->adj_start[x]; k < a->adj_start[x + 1] && !borders; k++)
            borders = rep->vertex_piece[a->adj[k]] == p;
        if (borders) out[n++] = x;
    }
    return n;
}

/* The rigger's weights of the body skin round the root, as felt at vertex v: the border
 * vertices' weights blended by inverse distance to the fourth power (Shepard's
 * interpolation: smooth along the root ring, and at a border vertex its own weights), scaled
 * by `share`. Writes up to SINEW_MAX_INFLUENCES (joint, weight) pairs; returns how many.
 * The power was measured on the shared models' tails (2 and 4 tried, with the collar): 4
 * follows the neighbours closely enough to take the quaternius fox's baked tail from 1.24%
 * torn edge samples to 0.83% as three.js plays it, and stays smooth. */
static int border_weights(const sinew_model *m, const uint32_t *border, uint32_t count, uint32_t v,
                          float share, uint32_t *joints, float *weights)
{
    double acc[SINEW_MAX_INFLUENCES * 4] = {0}, total = 0;
    uint32_t ids[SINEW_MAX_INFLUENCES * 4];
    int n = 0;
    const float tiny = 1e-6f * m->size.scale;
    for (uint32_t i = 0; i < count; i++) {
        const double d =
            sinew_vec3_distance(m->mesh.positions[border[i]], m->mesh.positions[v]) + tiny;
        const double k = 1.0 / (d * d * d * d);
        total += k;
        for (int q = 0; q < SINEW_MAX_INFLUENCES; q++) {
            const size_t o = (size_t)border[i] * SINEW_MAX_INFLUENCES + (size_t)q;
            const float w = m->mesh.influence_weights[o];
            if (!(w > 0)) continue;
            int at = 0;
            while (at < n && ids[at] != m->mesh.influence_joints[o])
                at++;
            if (at == n) {
                if (n == SINEW_MAX_INFLUENCES * 4) continue; /* the lightest joints only */
                ids[n] = m->mesh.influence_joints[o], acc[n++] = 0;
            }
            acc[at] += k * w;
        }
    }
    /* keep the heaviest SINEW_MAX_INFLUENCES */
    int out = 0;
    for (int pass = 0; pass < SINEW_MAX_INFLUENCES && total > 0; pass++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (acc[i] > 0 && (best < 0 || acc[i] > acc[best])) best = i;
        if (best < 0) break;
        joints[out] = ids[best];
        weights[out++] = (float)(share * acc[best] / total);
        acc[best] = 0;
    }
    return out;
}

/* The blend across the root spans at least this many of the mesh's edges there: a ramp
 * narrower than one edge is a step (the quaternius TRex's collar, 0.05 H, was one border edge
 * long: its Tail_1 fell from 0.94 to 0.04 across one edge, which tore at twice its length in
 * Walk). Two edges is the least that makes a ramp; more only widens the blend on coarse
 * meshes, where the other bounds are already within a few edges. */
#define BLEND_EDGES 2.0f

/* Median length of the welded edges between piece p and the body vertices `border` around it:
 * the mesh's resolution where the tail meets the body. */
static float border_edge_length(const sinew_rig_analysis *a, const sinew_model *m,
                                const sinew_rig_report *rep, uint32_t p, const uint32_t *border,
                                uint32_t count, float *scratch)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = a->adj_start[border[i]]; k < a->adj_start[border[i] + 1]; k++)
            if (rep->vertex_piece[a->adj[k]] == p && n < m->mesh.vertex_count)
                scratch[n++] =
                    sinew_vec3_distance(m->mesh.positions[border[i]], m->mesh.positions[a->adj[k]]);
    if (n == 0) return 0;
    qsort(scratch, n, sizeof *scratch, rig_compare_floats);
    return scratch[n / 2];
}

/* How far the collar reaches into the body, in root radii, at least: a root turned by theta
 * moves the root ring r theta against the body, so over two radii the collar strains by
 * about theta / 2 (the UM bunny's stub, whose segments are shorter than its mesh's edges,
 * tore with a collar of half a segment alone: 2.2% of its tail's edge samples in Walk). */
#define COLLAR_RADII 2.0f

/* Geodesic distance from the `count` vertices `from` (their representatives) to every
 * representative closer than `reach` (FLT_MAX beyond it), into dist. */
static sinew_result distance_from(const sinew_rig_analysis *a, const sinew_model *m,
                                  const uint32_t *from, uint32_t count, float reach, float *dist,
                                  sinew_error *err)
{
    rig_geodesic geo;
    sinew_result r = rig_geodesic_init(&geo, a, m, err);
    if (r != SINEW_OK) return r;
    for (uint32_t i = 0; i < count; i++)
        rig_geodesic_seed(&geo, a->weld[from[i]], 0);
    uint32_t v;
    float d;
    while (rig_geodesic_next(&geo, &v, &d) && d < reach) {
    }
    for (uint32_t x = 0; x < m->mesh.vertex_count; x++)
        dist[x] = geo.done[x] && geo.g[x] < reach ? geo.g[x] : FLT_MAX;
    rig_geodesic_free(&geo);
    return SINEW_OK;
}

/* The collar: the body skin just beyond the tail's root. The root ring is half on Tail_1 and
 * half on the pelvis, its body neighbours on their rigger's joints; left so, the edges across
 * that seam take the whole of Tail_1's turn and tear when the tail swings. So the blend goes
 * on outwards: a body vertex at geodesic distance d < `reach` from the tail's skin gets
 * Tail_1 weight 0.5 (1 - d / reach) (its rigger's weights scaled to make room), `reach` at
 * least the half segment over which the body's weights fade out inside. The rigger's heaviest joint
 * keeps the largest weight (Tail_1 at most w0 / (1 + w0)): the collar stays body skin. `dist`
 * is scratch for the distances (vertex_count). */
static sinew_result blend_collar(const sinew_rig_analysis *a, const sinew_model *m,
                                 const sinew_rig_report *rep, const uint32_t *verts, uint32_t count,
                                 uint32_t tail_1, float reach, float *dist, sinew_rig_plan *plan,
                                 sinew_error *err)
{
    sinew_result r = distance_from(a, m, verts, count, reach, dist, err);
    if (r != SINEW_OK) return r;
    for (uint32_t x = 0; x < m->mesh.vertex_count; x++) {
        const float g = dist[a->weld[x]];
        if (!(g > 0) || g == FLT_MAX || owned_by_appendage(rep, x)) continue;
        const size_t o = (size_t)x * SINEW_MAX_INFLUENCES;
        const float w0 = plan->weights[o];
        float t = fminf(0.5f * (1.0f - g / reach), 0.999f * w0 / (1.0f + w0));
        if (!(t > 0)) continue;
        uint32_t jj[SINEW_MAX_INFLUENCES + 1];
        float ww[SINEW_MAX_INFLUENCES + 1];
        jj[0] = tail_1, ww[0] = t;
        for (int k = 0; k < SINEW_MAX_INFLUENCES; k++)
            jj[k + 1] = plan->joints[o + (size_t)k],
                   ww[k + 1] = (1 - t) * plan->weights[o + (size_t)k];
        rig_write_slots(plan->joints + o, plan->weights + o, jj, ww, SINEW_MAX_INFLUENCES + 1);
    }
    return SINEW_OK;
}

sinew_result rig_chain_bones(const sinew_model *m, int32_t parent, const sinew_vec3 *J, uint32_t K,
                             sinew_rig_chain *ch, sinew_error *err)
{
    ch->bone_count = K + 1;
    ch->parent_joint = parent;
    sinew_mat4 prev = m->skin.joints[parent].bind;
    sinew_mat4 prev_inv = m->skin.joints[parent].inverse_bind;
    for (uint32_t b = 0; b <= K; b++) {
        sinew_rig_bone *bone = &ch->bones[b];
        bone->parent = b == 0 ? m->skin.joints[parent].node : -(int32_t)b;
        bone->head = J[b];
        /* In its parent's frame: at J_b, turned by the least rotation that lays +Y towards
         * J_b+1 (Tail_End: not turned). Composed with the parent's bind, so the node's TRS is
         * exactly its bind whatever the parent's scale. */
        bone->local = sinew_transform_identity();
        bone->local.translation = sinew_mat4_transform_point(&prev_inv, J[b]);
        if (b < K) {
            const sinew_vec3 along = sinew_vec3_normalize_or(
                sinew_mat4_transform_dir(&prev_inv, sinew_vec3_sub(J[b + 1], J[b])),
                sinew_vec3_make(0, 1, 0));
            bone->local.rotation = sinew_quat_swing(sinew_vec3_make(0, 1, 0), along);
        }
        const sinew_mat4 local = sinew_mat4_from_transform(bone->local);
        const sinew_mat4 W = sinew_mat4_mul(&prev, &local);
        if (!sinew_mat4_invert_affine(&W, &bone->inverse_bind))
            return sinew_error_set(
                err, SINEW_ERR_INVALID_VALUE,
                "tail: the bind matrix of the chain's parent cannot be inverted");
        prev = W;
        prev_inv = bone->inverse_bind;
    }
    return SINEW_OK;
}

sinew_result sinew_rig_build_chain(const sinew_model *m, const sinew_rig_options *options,
                                   sinew_rig_report *rep, sinew_rig_plan *plan, sinew_error *err)
{
    memset(plan, 0, sizeof *plan);
    sinew_rig_options opt = rig_options_resolve(options);
    if (opt.allocator) plan->allocator = *opt.allocator;
    plan->root_blend = opt.root_blend;
    sinew_rig_analysis *a = rep ? rep->analysis : NULL;
    if (!m || !a || rep->vertex_count != m->mesh.vertex_count ||
        a->joint_count != m->skin.joint_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "tail: the report does not belong to this model");
    const sinew_allocator *al = &plan->allocator;
    const uint32_t nv = m->mesh.vertex_count, nj = m->skin.joint_count;
    const size_t slots = (size_t)nv * SINEW_MAX_INFLUENCES;
    const int32_t default_parent = a->chain_parent;
    uint32_t nchains = 0;
    for (uint32_t p = 0; p < rep->piece_count; p++)
        nchains += rep->pieces[p].verdict == SINEW_RIG_VERDICT_CHAIN ||
                           rep->pieces[p].verdict == SINEW_RIG_VERDICT_WING ||
                           rep->pieces[p].verdict == SINEW_RIG_VERDICT_EAR
                       ? 1
                   : rep->pieces[p].verdict == SINEW_RIG_VERDICT_GARMENT
                       ? rep->pieces[p].garment_chains
                       : 0;
    plan->vertex_count = nv;
    plan->joints = sinew_alloc(al, slots, sizeof *plan->joints);
    plan->weights = sinew_alloc(al, slots, sizeof *plan->weights);
    plan->changed = sinew_alloc(al, nv, 1);
    plan->chains = sinew_alloc(al, nchains + 1, sizeof *plan->chains);
    float *axial = sinew_alloc(al, nv, sizeof *axial);
    uint32_t *verts = sinew_alloc(al, nv, sizeof *verts);
    uint32_t *border = sinew_alloc(al, nv, sizeof *border);
    float *from_border = sinew_alloc(al, nv, sizeof *from_border);
    rig_segment *segs =
        sinew_alloc(al, a->segment_count + nchains * SINEW_RIG_MAX_SEGMENTS + 1, sizeof *segs);
    sinew_vec3 *jp = sinew_alloc(al, nj + nchains * (SINEW_RIG_MAX_SEGMENTS + 1) + 1, sizeof *jp);
    sinew_result r = SINEW_OK;
    if (!plan->joints || !plan->weights || !plan->changed || !plan->chains || !axial || !verts ||
        !border || !from_border || !segs || !jp) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail: out of memory");
        goto fail;
    }
    if ((size_t)nj + (size_t)nchains * (SINEW_RIG_MAX_SEGMENTS + 1) > 65536) {
        r = sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                            "tail: %u joints leave no room for a chain in 16-bit joint indices",
                            nj);
        goto fail;
    }
    if (default_parent < 0 && nchains) {
        r = sinew_error_set(err, SINEW_ERR_INTERNAL, "tail: no pelvis joint for the chain");
        goto fail;
    }
    memcpy(plan->joints, m->mesh.influence_joints, slots * sizeof *plan->joints);
    memcpy(plan->weights, m->mesh.influence_weights, slots * sizeof *plan->weights);
    memcpy(segs, a->segments, a->segment_count * sizeof *segs);
    uint32_t seg_count = a->segment_count;
    for (uint32_t j = 0; j < nj; j++)
        jp[j] = rig_joint_position(m, j);
    uint32_t next_joint = nj, tails = 0, garments = 0;
    for (uint32_t p = 0; p < rep->piece_count; p++) {
        sinew_rig_piece *pc = &rep->pieces[p];
        if (pc->verdict == SINEW_RIG_VERDICT_GARMENT) {
            if ((r = rig_build_garment(a, m, rep, p, &opt, plan, &next_joint, segs, &seg_count, jp,
                                       &garments, err)) != SINEW_OK)
                goto fail;
            continue;
        }
        const int chain = pc->verdict == SINEW_RIG_VERDICT_CHAIN ||
                          pc->verdict == SINEW_RIG_VERDICT_WING ||
                          pc->verdict == SINEW_RIG_VERDICT_EAR;
        const int rigid = pc->verdict == SINEW_RIG_VERDICT_RIGID;
        const int dressed = pc->verdict == SINEW_RIG_VERDICT_DRESSED;
        if (!chain && !rigid && !dressed) continue;
        uint32_t count = 0;
        for (uint32_t v = 0; v < nv; v++)
            if (rep->vertex_piece[v] == p) verts[count++] = v;
        if (count == 0) continue;
        if (dressed || rigid) { /* every vertex on one bone, weight 1 */
            uint32_t j = (uint32_t)(dressed ? pc->attach_joint : default_parent);
            float w = 1;
            for (uint32_t i = 0; i < count; i++) {
                size_t o = (size_t)verts[i] * SINEW_MAX_INFLUENCES;
                rig_write_slots(plan->joints + o, plan->weights + o, &j, &w, 1);
            }
            continue;
        }
        const rig_run *run = &a->runs.items[a->piece_runs[p]];
        const float L = pc->length, blend = opt.blend_width;
        /* A wing or an ear: one of a mirrored pair, its joints the mirror of its partner's. */
        const int wing = pc->verdict == SINEW_RIG_VERDICT_WING ? pc->wing_side : 0;
        const int ear = pc->verdict == SINEW_RIG_VERDICT_EAR ? pc->wing_side : 0;
        sinew_vec3 J[SINEW_RIG_MAX_SEGMENTS + 1];
        const uint32_t K = wing  ? rig_wing_segments(rep, p, opt.segment_fraction)
                           : ear ? rig_ear_segments(rep, p, opt.segment_fraction)
                                 : rig_chain_segment_count(L, opt.segment_fraction * rep->scale, 3,
                                                           SINEW_RIG_MAX_SEGMENTS);
        if (wing || ear)
            rig_pair_joints(a, m, rep, p, K, J);
        else
            rig_chain_joints(run, pc, L, K, J);
        pc->segments = K;
        const int32_t parent = wing  ? rig_wing_parent(a, m, pc)
                               : ear ? rig_ear_parent(rep, pc)
                                     : default_parent;
        if (parent < 0) {
            r = sinew_error_set(err, SINEW_ERR_INTERNAL, "%s: no joint for the chain to hang from",
                                wing ? "wings" : "ears");
            goto fail;
        }
        /* Bones: the parent's bind frame with J_b as origin. */
        sinew_rig_chain *ch = &plan->chains[plan->chain_count];
        memset(ch, 0, sizeof *ch);
        ch->piece = p;
        ch->first_joint = next_joint;
        ch->wing = wing;
        ch->ear = ear;
        for (uint32_t b = 0; b <= K; b++)
            rig_bone_name(m, ch->bones[b].name, sizeof ch->bones[b].name, tails, b, K,
                          wing ? "Wing" : "Ear", wing ? wing : ear, 0);
        if ((r = rig_chain_bones(m, parent, J, K, ch, err)) != SINEW_OK) goto fail;
        for (uint32_t b = 0; b <= K; b++) {
            jp[next_joint + b] = J[b];
            if (b < K) segs[seg_count++] = (rig_segment){J[b], J[b + 1], (int32_t)(next_joint + b)};
        }
        /* Weights. */
        for (uint32_t i = 0; i < count; i++)
            axial[a->weld[verts[i]]] = -1;
        axial_positions(a, m, rep, p, axial);
        const int body_root = opt.root_blend == SINEW_RIG_ROOT_BODY;
        const uint32_t border_count = body_border(a, m, rep, p, border);
        const float reach = fmaxf(
            fmaxf(0.5f * L / (float)K, COLLAR_RADII * pc->radius),
            BLEND_EDGES * border_edge_length(a, m, rep, p, border, border_count, from_border));
        if ((r = distance_from(a, m, border, border_count, reach, from_border, err)) != SINEW_OK)
            goto fail;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t v = verts[i];
            float s = (float)K * axial[a->weld[v]];
            uint32_t k = s <= 0 ? 0 : (uint32_t)floorf(s);
            if (k > K - 1) k = K - 1;
            float f = clampf(s - (float)k, 0, 2);
            /* The root segment's share of what it blends into falls with the axial position
             * and with the distance from the body: the larger, so that a ragged border (a
             * root vertex far along the axis yet next to the body) still ramps. The second
             * is gone by the segment's end, where Tail_2's skin has no body share. */
            float wp, wn;
            rig_segment_shares(f, blend, &wp, &wn);
            if (k == 0)
                wp = fmaxf(wp, fminf(0.5f * (1.0f - f),
                                     0.5f * (1.0f - fminf(1.0f, from_border[a->weld[v]] / reach))));

            uint32_t jj[2 + SINEW_MAX_INFLUENCES] = {
                next_joint + k, k + 1 < K ? next_joint + k + 1 : next_joint + k, /* Tail_End is
                                                                                     unweighted */
                k == 0 ? (uint32_t)parent : next_joint + k - 1};
            float ww[2 + SINEW_MAX_INFLUENCES] = {1 - wp - wn, wn, wp};
            int n = 3;
            if (k == 0 && wp > 0 && body_root && border_count)
                n = 2 + border_weights(m, border, border_count, v, wp, jj + 2, ww + 2);
            size_t o = (size_t)v * SINEW_MAX_INFLUENCES;
            rig_write_slots(plan->joints + o, plan->weights + o, jj, ww, n);
        }
        if (body_root && (r = blend_collar(a, m, rep, verts, count, next_joint, reach, from_border,
                                           plan, err)) != SINEW_OK)
            goto fail;
        next_joint += K + 1;
        plan->chain_count++;
        tails += !wing && !ear;
    }
    /* What changed, and the weighted distance after. */
    for (uint32_t v = 0; v < nv; v++) {
        size_t o = (size_t)v * SINEW_MAX_INFLUENCES;
        plan->changed[v] = memcmp(plan->joints + o, m->mesh.influence_joints + o,
                                  SINEW_MAX_INFLUENCES * sizeof *plan->joints) != 0 ||
                           memcmp(plan->weights + o, m->mesh.influence_weights + o,
                                  SINEW_MAX_INFLUENCES * sizeof *plan->weights) != 0;
        plan->changed_count += plan->changed[v];
    }
    for (uint32_t p = 0; p < rep->piece_count; p++) {
        sinew_rig_piece *pc = &rep->pieces[p];
        if (pc->verdict != SINEW_RIG_VERDICT_CHAIN && pc->verdict != SINEW_RIG_VERDICT_RIGID &&
            pc->verdict != SINEW_RIG_VERDICT_DRESSED && pc->verdict != SINEW_RIG_VERDICT_WING &&
            pc->verdict != SINEW_RIG_VERDICT_EAR && pc->verdict != SINEW_RIG_VERDICT_GARMENT)
            continue;
        uint32_t count = 0;
        for (uint32_t v = 0; v < nv; v++)
            if (rep->vertex_piece[v] == p) verts[count++] = v;
        pc->distance_after = rig_weighted_distance(m->mesh.positions, verts, count, plan->joints,
                                                   plan->weights, segs, seg_count, jp, next_joint);
    }
    goto done;
fail:
    sinew_rig_plan_free(plan);
done:
    sinew_free(al, axial);
    sinew_free(al, verts);
    sinew_free(al, border);
    sinew_free(al, from_border);
    sinew_free(al, segs);
    sinew_free(al, jp);
    return r;
}
