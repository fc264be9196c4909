/* Ears, on request (sinew_rig_options.ears; docs/appendages.md, "Ears"): long pieces on the
 * head, flat across, found as a mirrored pair, each given a short chain from the head.
 *
 *   candidate  a piece no bone runs inside that hangs from the head, reaches EAR_LENGTH along
 *              its skin, is EAR_ELONGATION times as long as thick, and whose cross-sections are
 *              flat (the median section's smaller over larger spread at most EAR_FLAT): an
 *              ear's blade, where a horn beside it is round.
 *   pair       another candidate that is its mirror image, as for wings (wing.c: reflected
 *              across the plane halfway between the two, level, within the wings' bound).
 *   chain      K = clamp(round(L / 0.1 H), 2, 3) segments, one K for the pair, joints at the
 *              centres of the geodesic bands (chain.c), the two chains exact mirror images,
 *              hanging from the head; weights blended as a tail's.
 *
 * It runs before pieces are merged, so that the two ears of a pair (or an ear and a horn
 * beside it, whose boxes overlap on the head) are not taken for fur over one another. */
#include "rig_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* An ear reaches at least this far from its root along its skin, in H. Measured on the
 * procedural creatures: the rabbit's ears 0.41 H, the random creatures' long ears 0.12-0.26 H
 * and short ones 0.07-0.09 H; the other paired pieces on their heads, a frill's two halves
 * 0.078 H (which elongation keeps out). Safe range 0.02-0.07 H. */
#define EAR_LENGTH 0.05f
/* Length over thickness at least this. Measured: long ears 5.5-12.8, short ears 2.2-2.8, a
 * frill's halves 1.5, bumps on the head about 1. Safe range 1.6-2.1. */
#define EAR_ELONGATION 2.0f
/* Median cross-section flatness at most this. Measured: the rabbit's ears 0.43, the random
 * long ears 0.38 and short ones 0.43-0.62; horns, round, 0.70-0.97 (random seeds 0-74 with
 * horns). Safe range 0.44-0.69 for long ears; 0.63-0.69 keeps every short ear too. */
#define EAR_FLAT 0.65f
/* An ear's chain: two or three segments of 0.1 H (the tail's segment), fewer than a tail's
 * three to eight, since an ear is a fifth to a half of a tail's length. */
#define EAR_FEWEST 2u
#define EAR_MOST 3u

/* Median flatness of the run's cross-sections (1 for a ring, near 0 across a blade);
 * `scratch` holds section_count floats. */
static float section_flatness(const rig_run *run, float *scratch)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < run->section_count; k++)
        if (run->sections[k].perimeter > 0) scratch[n++] = run->sections[k].flatness;
    if (!n) return 1.0f;
    qsort(scratch, n, sizeof *scratch, rig_compare_floats);
    return scratch[n / 2];
}

static int candidate(const sinew_rig_analysis *a, const sinew_rig_report *rep, uint32_t p,
                     float *scratch, float *flat)
{
    const sinew_rig_piece *pc = &rep->pieces[p];
    if (pc->merged_into >= 0 || pc->attach_region != SINEW_RIG_REGION_HEAD) return 0;
    if (!(pc->length >= EAR_LENGTH * rep->scale) || !(pc->elongation >= EAR_ELONGATION)) return 0;
    *flat = section_flatness(&a->runs.items[a->piece_runs[p]], scratch);
    return *flat <= EAR_FLAT;
}

/* Two ears that touch at their roots (the procedural rabbit's overlap there) are one surface:
 * each one's walk runs down its ear, across and up the other. Each run is cut where its skin
 * becomes nearer the other's tip (vertices are in walk order: distance from the tip rising),
 * and the piece measured again; returns 1 when it did. `g_other` is scratch (vertex_count
 * floats). */
static int split_touching(sinew_rig_analysis *a, const sinew_model *m, const sinew_rig_options *opt,
                          sinew_rig_report *rep, uint32_t p, uint32_t q, float *g_other)
{
    rig_run *rp = &a->runs.items[a->piece_runs[p]], *rq = &a->runs.items[a->piece_runs[q]];
    int cut = 0;
    for (int side = 0; side < 2; side++) {
        rig_run *run = side ? rq : rp;
        const rig_run *other = side ? rp : rq;
        for (uint32_t v = 0; v < a->vertex_count; v++)
            g_other[v] = FLT_MAX;
        for (uint32_t k = 0; k < other->vertex_count; k++)
            g_other[other->vertices[k]] = other->g[k];
        uint32_t keep = 0;
        while (keep < run->vertex_count && run->g[keep] <= g_other[run->vertices[keep]])
            keep++;
        if (keep == run->vertex_count) continue;
        run->cut = run->g[keep];
        run->vertex_count = keep;
        cut = 1;
    }
    if (!cut) return 0; /* apart: nothing of either is nearer the other's tip */
    /* Sections and radius up to the new cuts, then each piece's geometry from them. */
    for (int side = 0; side < 2; side++) {
        rig_run *run = side ? rq : rp;
        uint32_t ns = 0, nr = 0;
        while (ns < run->section_count && run->sections[ns].g <= run->cut)
            ns++;
        run->section_count = ns;
        for (uint32_t i = 0; i < ns; i++)
            if (run->sections[i].perimeter > 0) g_other[nr++] = run->sections[i].radius;
        qsort(g_other, nr, sizeof *g_other, rig_compare_floats);
        run->radius = nr ? g_other[nr / 2] : run->radius;
        rig_measure_piece(a, m, opt, run, &rep->pieces[side ? q : p]);
    }
    return 1;
}

sinew_result rig_find_ears(sinew_rig_analysis *a, const sinew_model *m,
                           const sinew_rig_options *opt, sinew_rig_report *rep, sinew_error *err)
{
    const uint32_t np = rep->piece_count;
    rig_shape *shapes = sinew_alloc(&a->alloc, np + 1, sizeof *shapes);
    float *flat = sinew_alloc(&a->alloc, np + 1, sizeof *flat);
    uint8_t *cand = sinew_alloc(&a->alloc, np + 1, 1);
    uint32_t most_sections = 0;
    for (uint32_t p = 0; p < np; p++)
        if (a->runs.items[a->piece_runs[p]].section_count > most_sections)
            most_sections = a->runs.items[a->piece_runs[p]].section_count;
    if (most_sections < a->vertex_count) most_sections = a->vertex_count;
    float *scratch = sinew_alloc(&a->alloc, most_sections + 1, sizeof *scratch);
    if (!shapes || !flat || !cand || !scratch) {
        sinew_free(&a->alloc, shapes);
        sinew_free(&a->alloc, flat);
        sinew_free(&a->alloc, cand);
        sinew_free(&a->alloc, scratch);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "ears: out of memory");
    }
    for (uint32_t p = 0; p < np; p++)
        if ((cand[p] = (uint8_t)candidate(a, rep, p, scratch, &flat[p])) != 0)
            shapes[p] = rig_run_shape(&a->runs.items[a->piece_runs[p]], m);
    const float H = rep->scale;
    for (uint32_t p = 0; p < np; p++) {
        if (!cand[p] || rep->pieces[p].wing_partner >= 0) continue;
        int32_t best = -1;
        float best_error = FLT_MAX;
        for (uint32_t q = p + 1; q < np; q++) {
            if (!cand[q] || rep->pieces[q].wing_partner >= 0) continue;
            const float e = rig_mirror_error(a, m, rep, p, q, &shapes[p], &shapes[q]);
            if (e < best_error) best_error = e, best = (int32_t)q;
        }
        if (best < 0 || !(best_error <= RIG_MIRROR_BOUND * H)) continue;
        /* Touching ears are measured again once apart, and must still be mirror images (their
         * runs stay cut if not: each is then the head piece its own skin makes). */
        if (split_touching(a, m, opt, rep, p, (uint32_t)best, scratch)) {
            shapes[p] = rig_run_shape(&a->runs.items[a->piece_runs[p]], m);
            shapes[best] = rig_run_shape(&a->runs.items[a->piece_runs[best]], m);
            best_error = rig_mirror_error(a, m, rep, p, (uint32_t)best, &shapes[p], &shapes[best]);
            if (!(best_error <= RIG_MIRROR_BOUND * H)) continue;
        }
        const int q_left = rig_mirror_side(&shapes[p], &shapes[best]);
        const uint32_t pair[2] = {p, (uint32_t)best};
        for (int k = 0; k < 2; k++) {
            sinew_rig_piece *pc = &rep->pieces[pair[k]];
            pc->verdict = SINEW_RIG_VERDICT_EAR;
            pc->wing_partner = (int32_t)pair[1 - k];
            pc->wing_side = k == 1 ? q_left : -q_left;
            snprintf(pc->reason, sizeof pc->reason,
                     "no bone inside, %.1fx as long as thick, flat across (%.2f), %.2f H long, "
                     "on the head (%s), the mirror of piece %u (%.4f H apart): a %s ear, short "
                     "bone chain (--ears)",
                     (double)pc->elongation, (double)flat[pair[k]], (double)(pc->length / H),
                     rig_joint_name(m, pc->attach_joint), pair[1 - k], (double)(best_error / H),
                     pc->wing_side > 0 ? "left" : "right");
        }
    }
    sinew_free(&a->alloc, shapes);
    sinew_free(&a->alloc, flat);
    sinew_free(&a->alloc, cand);
    sinew_free(&a->alloc, scratch);
    return SINEW_OK;
}

uint32_t rig_ear_segments(const sinew_rig_report *rep, uint32_t p, float segment_fraction)
{
    const sinew_rig_piece *pc = &rep->pieces[p], *pq = &rep->pieces[pc->wing_partner];
    return rig_chain_segment_count(0.5f * (pc->length + pq->length), segment_fraction * rep->scale,
                                   EAR_FEWEST, EAR_MOST);
}

int32_t rig_ear_parent(const sinew_rig_report *rep, const sinew_rig_piece *pc)
{
    /* The head itself, so both ears of a pair hang from one joint (an ear's root may lie
     * nearer a helper under the head, a jaw or a head-top end). */
    return rep->landmarks.head >= 0 ? rep->landmarks.head : pc->attach_joint;
}
