/* Wings: broad, flat appendages no bone runs inside, found as a mirrored pair
 * (docs/appendages.md, "Wings").
 *
 *   candidate  a piece the tail rules left unchanged (a sheet, something on the back or neck,
 *              on an arm) that hangs from the shoulders, the upper back or an arm, is long
 *              (WING_LENGTH) and is broad and flat: of the covariance of its skin, the middle
 *              eigenvalue is a good share of the largest (WING_BROAD: it has a chord, not only a
 *              span) and the smallest a small share of the middle (WING_FLAT).
 *   pair       a wing comes with its mirror image: another candidate whose skin, reflected
 *              across the plane halfway between the two and square to the line joining them,
 *              lies on it (RIG_MIRROR_BOUND), with that line level (square to up). A candidate
 *              without its mirror is left as the tail rules said: a cape, a flap, a shield.
 *   chain      one chain per wing along its span, from the root section to the wingtip, its
 *              joints at the centres of the geodesic bands from the tip (chain.c), the two
 *              chains made exact mirror images of each other (the mean of each joint and its
 *              partner's reflection), hanging from the torso joint nearest the root.
 *
 * The left wing is the one on the positive side of the mirror normal's dominant axis (glTF
 * characters face +Z with +Y up, so left is +X). */
#include "rig_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A wing reaches at least this far from its root along its skin, in H. Measured: the UM
 * pigeon's wings 0.51 H, the UM demon's 0.25 H; the other pieces on the demon's arms, back and
 * neck are 0.36 H (its trident, which has no mirror) and 0.084 H (two small neck pieces, whose
 * shape was not measured). The safe range is therefore 0.09 to 0.25 H. */
#define WING_LENGTH 0.1f
/* Broad: sqrt(middle / largest eigenvalue) of the skin's covariance at least this (a wing has
 * a chord as well as a span). Measured on the shared models' pieces in a wing's place: the
 * pigeon's wings 0.48, the demon's 0.56 (its trident's blade 0.52, which has no mirror); the
 * long thin pieces there (the trident's shaft) 0.04. Safe range 0.1-0.45. */
#define WING_BROAD 0.35f
/* Flat: sqrt(smallest / middle eigenvalue) at most this. Measured: the pigeon's wings 0.09,
 * the demon's 0.14 (the blade 0.20); a round tube is near 1. Safe range 0.2-0.8. */
#define WING_FLAT 0.45f
/* The line joining the two wings is level: within asin(0.3) = 17 degrees of square to up. */
#define WING_LEVEL 0.3f
/* Root at least this far up the spine (0 the pelvis, 1 the head): the shoulders and the upper
 * back, not the rump, where a pair of flat pieces is a pair of flaps or a skirt. The pigeon's
 * wing roots sit at 0.46 (it has no legs: its pelvis is its torso), the tail rule's lower
 * spine ends at 0.34. */
#define WING_SPINE 0.34f

rig_shape rig_run_shape(const rig_run *run, const sinew_model *m)
{
    rig_shape s;
    memset(&s, 0, sizeof s);
    const double n = run->vertex_count;
    double sum[3] = {0, 0, 0}, sq[9] = {0};
    const sinew_vec3 o = m->mesh.positions[run->tip];
    for (uint32_t k = 0; k < run->vertex_count; k++) {
        const sinew_vec3 p = m->mesh.positions[run->vertices[k]];
        const double v[3] = {(double)p.x - o.x, (double)p.y - o.y, (double)p.z - o.z};
        for (int r = 0; r < 3; r++) {
            sum[r] += v[r];
            for (int c = 0; c < 3; c++)
                sq[3 * r + c] += v[r] * v[c];
        }
    }
    if (n < 3) return s;
    double cov[9], vec[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            cov[3 * r + c] = sq[3 * r + c] / n - sum[r] * sum[c] / (n * n);
    sinew_sym3_eigen(cov, s.values, vec);
    s.centre = sinew_vec3_make((float)(o.x + sum[0] / n), (float)(o.y + sum[1] / n),
                               (float)(o.z + sum[2] / n));
    return s;
}

/* The first joint at or above j (j itself included) in the torso: spine or pelvis. */
static int32_t torso_joint(const sinew_rig_analysis *a, const sinew_model *m, int32_t j)
{
    while (j >= 0 && a->regions[j] != SINEW_RIG_REGION_SPINE &&
           a->regions[j] != SINEW_RIG_REGION_PELVIS)
        j = rig_parent_joint(m, (uint32_t)j);
    return j;
}

/* Hangs where a wing does: the upper back or shoulders, or an arm (a limb off the spine). */
static int wing_place(const sinew_rig_analysis *a, const sinew_model *m,
                      const sinew_rig_report *rep, const sinew_rig_piece *pc)
{
    if (pc->attach_joint < 0 || rep->landmarks.pelvis < 0) return 0;
    if (pc->attach_region == SINEW_RIG_REGION_SPINE)
        return rig_spine_fraction(m, &rep->landmarks, pc->root) >= WING_SPINE;
    if (pc->attach_region != SINEW_RIG_REGION_LIMB) return 0;
    const int32_t t = torso_joint(a, m, pc->attach_joint);
    return t >= 0 && a->regions[t] == SINEW_RIG_REGION_SPINE;
}

static int candidate(const sinew_rig_analysis *a, const sinew_model *m, const sinew_rig_report *rep,
                     uint32_t p, rig_shape *shape)
{
    const sinew_rig_piece *pc = &rep->pieces[p];
    const sinew_rig_verdict v = pc->verdict;
    if (pc->merged_into >= 0 || !(v == SINEW_RIG_VERDICT_SHEET || v == SINEW_RIG_VERDICT_SPINE ||
                                  v == SINEW_RIG_VERDICT_DRESSED || v == SINEW_RIG_VERDICT_LIMB))
        return 0;
    if (!(pc->length >= WING_LENGTH * rep->scale) || !wing_place(a, m, rep, pc)) return 0;
    *shape = rig_run_shape(&a->runs.items[a->piece_runs[p]], m);
    const double *l = shape->values;
    return l[0] > 0 && l[1] > 0 && sqrt(l[1] / l[0]) >= WING_BROAD &&
           sqrt(fmax(l[2], 0) / l[1]) <= WING_FLAT;
}

/* The mirror plane of a pair: unit normal n (from p's centre to q's) and offset d (n.x = d). */
static void mirror_plane(sinew_vec3 cp, sinew_vec3 cq, sinew_vec3 *n, float *d)
{
    *n = sinew_vec3_normalize_or(sinew_vec3_sub(cq, cp), sinew_vec3_make(1, 0, 0));
    *d = sinew_vec3_dot(*n, sinew_vec3_scale(sinew_vec3_add(cp, cq), 0.5f));
}

static sinew_vec3 reflect(sinew_vec3 x, sinew_vec3 n, float d)
{
    return sinew_vec3_madd(x, n, -2.0f * (sinew_vec3_dot(n, x) - d));
}

/* At most this many of p's vertices, evenly spaced along its walk, are reflected onto q: the
 * mean over them is the mean over all to well under RIG_MIRROR_BOUND, and the cost stays linear in
 * q's size on a finely subdivided wing (the shared wings have 440-450 vertices). */
#define MIRROR_SAMPLES 1024

/* Mean distance from p's skin reflected across the plane to q's nearest skin. */
static float mirror_error(const rig_run *p, const rig_run *q, const sinew_model *m, sinew_vec3 n,
                          float d)
{
    double sum = 0;
    uint32_t used = 0;
    const uint32_t stride = p->vertex_count / MIRROR_SAMPLES + 1;
    for (uint32_t i = 0; i < p->vertex_count; i += stride, used++) {
        const sinew_vec3 x = reflect(m->mesh.positions[p->vertices[i]], n, d);
        float best = FLT_MAX;
        for (uint32_t k = 0; k < q->vertex_count; k++)
            best = fminf(best, sinew_vec3_distance(x, m->mesh.positions[q->vertices[k]]));
        sum += best;
    }
    return used ? (float)(sum / used) : FLT_MAX;
}

/* +1 when the normal's dominant component is positive (p is then on the negative side). */
static int dominant_sign(sinew_vec3 n)
{
    const float ax = fabsf(n.x), ay = fabsf(n.y), az = fabsf(n.z);
    const float c = ax >= ay && ax >= az ? n.x : (ay >= az ? n.y : n.z);
    return c >= 0 ? 1 : -1;
}

float rig_mirror_error(const sinew_rig_analysis *a, const sinew_model *m,
                       const sinew_rig_report *rep, uint32_t p, uint32_t q, const rig_shape *sp,
                       const rig_shape *sq)
{
    const float H = rep->scale;
    sinew_vec3 n;
    float d;
    mirror_plane(sp->centre, sq->centre, &n, &d);
    if (fabsf(sinew_vec3_dot(n, rep->landmarks.up)) > WING_LEVEL) return FLT_MAX;
    /* Mirror images have the same spreads: a cheap test before the distances. */
    for (int k = 0; k < 3; k++)
        if (fabs(sqrt(fmax(sp->values[k], 0)) - sqrt(fmax(sq->values[k], 0))) >
            RIG_MIRROR_BOUND * H)
            return FLT_MAX;
    const rig_run *rp = &a->runs.items[a->piece_runs[p]], *rq = &a->runs.items[a->piece_runs[q]];
    return fmaxf(mirror_error(rp, rq, m, n, d), mirror_error(rq, rp, m, n, d));
}

int rig_mirror_side(const rig_shape *sp, const rig_shape *sq)
{
    sinew_vec3 n;
    float d;
    mirror_plane(sp->centre, sq->centre, &n, &d);
    return dominant_sign(n);
}

sinew_result rig_find_wings(const sinew_rig_analysis *a, const sinew_model *m,
                            const sinew_rig_options *opt, sinew_rig_report *rep, sinew_error *err)
{
    const uint32_t np = rep->piece_count;
    rig_shape *shapes = sinew_alloc(&a->alloc, np + 1, sizeof *shapes);
    uint8_t *cand = sinew_alloc(&a->alloc, np + 1, 1);
    if (!shapes || !cand) {
        sinew_free(&a->alloc, shapes);
        sinew_free(&a->alloc, cand);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "wings: out of memory");
    }
    for (uint32_t p = 0; p < np; p++)
        cand[p] = (uint8_t)candidate(a, m, rep, p, &shapes[p]);
    const float H = rep->scale;
    for (uint32_t p = 0; p < np; p++) {
        if (!cand[p] || rep->pieces[p].wing_partner >= 0) continue;
        int32_t best = -1;
        float best_error = RIG_MIRROR_BOUND * H;
        for (uint32_t q = p + 1; q < np; q++) {
            if (!cand[q] || rep->pieces[q].wing_partner >= 0) continue;
            const float e = rig_mirror_error(a, m, rep, p, q, &shapes[p], &shapes[q]);
            if (e <= best_error) best_error = e, best = (int32_t)q;
        }
        if (best < 0) continue;
        const int q_left = rig_mirror_side(&shapes[p], &shapes[best]);
        const uint32_t pair[2] = {p, (uint32_t)best};
        for (int k = 0; k < 2; k++) {
            sinew_rig_piece *pc = &rep->pieces[pair[k]];
            const double *l = shapes[pair[k]].values;
            pc->verdict = SINEW_RIG_VERDICT_WING;
            pc->wing_partner = (int32_t)pair[1 - k];
            pc->wing_side = k == 1 ? q_left : -q_left;
            snprintf(pc->reason, sizeof pc->reason,
                     "no bone inside, broad (%.2f) and flat (%.2f), %.2f H along its span, at %s, "
                     "the mirror of piece %u (%.4f H apart): a %s wing, bone chain",
                     sqrt(l[1] / l[0]), sqrt(fmax(l[2], 0) / l[1]), (double)(pc->length / H),
                     rig_joint_name(m, pc->attach_joint), pair[1 - k], (double)(best_error / H),
                     pc->wing_side > 0 ? "left" : "right");
        }
        /* --skip N leaves that wing alone; its partner keeps its chain (mirrored from the
         * pair's skin, so still the mirror image of where the skipped one's would be). */
        for (int k = 0; k < 2; k++)
            for (uint32_t i = 0; i < opt->skip_piece_count; i++)
                if (opt->skip_pieces[i] == pair[k]) {
                    sinew_rig_piece *pc = &rep->pieces[pair[k]];
                    pc->verdict = SINEW_RIG_VERDICT_SKIPPED;
                    snprintf(pc->reason, sizeof pc->reason,
                             "would be a %s wing (the mirror of piece %u); left unchanged by "
                             "request (--skip)",
                             pc->wing_side > 0 ? "left" : "right", pair[1 - k]);
                }
    }
    sinew_free(&a->alloc, shapes);
    sinew_free(&a->alloc, cand);
    return SINEW_OK;
}

int32_t rig_wing_parent(const sinew_rig_analysis *a, const sinew_model *m,
                        const sinew_rig_piece *pc)
{
    /* A wing on an arm hangs from the shoulder's torso joint, not the arm: the arm's swing is
     * not the wing's (the demon's wings ride the neck in its rig, their roots nearest an upper
     * arm). */
    return torso_joint(a, m, pc->attach_joint);
}

void rig_pair_joints(const sinew_rig_analysis *a, const sinew_model *m, const sinew_rig_report *rep,
                     uint32_t p, uint32_t K, sinew_vec3 *J)
{
    const sinew_rig_piece *pc = &rep->pieces[p], *pq = &rep->pieces[pc->wing_partner];
    const uint32_t q = (uint32_t)pc->wing_partner;
    sinew_vec3 Jq[SINEW_RIG_MAX_SEGMENTS + 1];
    rig_chain_joints(&a->runs.items[a->piece_runs[p]], pc, pc->length, K, J);
    rig_chain_joints(&a->runs.items[a->piece_runs[q]], pq, pq->length, K, Jq);
    const rig_shape sp = rig_run_shape(&a->runs.items[a->piece_runs[p]], m),
                    sq = rig_run_shape(&a->runs.items[a->piece_runs[q]], m);
    sinew_vec3 n;
    float d;
    /* The plane from the lower index to the higher, so both pieces of a pair use one plane. */
    if (p < q)
        mirror_plane(sp.centre, sq.centre, &n, &d);
    else
        mirror_plane(sq.centre, sp.centre, &n, &d);
    for (uint32_t b = 0; b <= K; b++)
        J[b] = sinew_vec3_scale(sinew_vec3_add(J[b], reflect(Jq[b], n, d)), 0.5f);
}

uint32_t rig_wing_segments(const sinew_rig_report *rep, uint32_t p, float segment_fraction)
{
    /* One K for the pair, from their mean span. */
    const sinew_rig_piece *pc = &rep->pieces[p], *pq = &rep->pieces[pc->wing_partner];
    return rig_chain_segment_count(0.5f * (pc->length + pq->length), segment_fraction * rep->scale,
                                   3, SINEW_RIG_MAX_SEGMENTS);
}
