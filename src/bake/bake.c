/* Baking the tail: simulate each clip until its loop closes, then record rotation keys
 * that play outside sinew's runtime. */
#include "sinew/bake.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Poses closer than this are "the same" when deciding whether a clip loops. */
#define LOOP_TRANSLATION_TOLERANCE 1e-3f /* fraction of the model's scale */
#define LOOP_ROTATION_TOLERANCE 0.5f     /* degrees */
#define MAX_RATE 240.0f                  /* keys per second at most */
#define MAX_SETTLE_SECONDS 3600.0f /* s: settle_seconds larger is taken as this (see bake.h) */

static float degrees(float radians)
{
    return radians * (float)(180.0 / SINEW_PI);
}

/* Angle between two rotations, precise for small angles too (acos of a dot product near 1
 * loses a twentieth of a degree in float). */
static float angle_between(sinew_quat a, sinew_quat b)
{
    sinew_quat d = sinew_quat_mul(sinew_quat_conjugate(a), b);
    float v = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
    return 2.0f * atan2f(v, fabsf(d.w));
}

/* A clip loops when the chain's parent and its ancestors (all the runtime reads, with each
 * rest driver's two nodes and theirs) have the same local TRS at 0 and at the end; a foot that
 * does not loop cannot open a seam in the tail. */
static int clip_loops(const sinew_model *model, const sinew_dyn_rig *rig, const sinew_clip *clip,
                      sinew_transform *a, sinew_transform *b)
{
    sinew_clip_sample(model, clip, 0.0f, a);
    sinew_clip_sample(model, clip, clip->duration, b);
    const float tol = LOOP_TRANSLATION_TOLERANCE * model->world_size.scale;
    /* from = the parent, then each driver's node and tip node */
    for (uint32_t d = 0; d <= 2 * sinew_dyn_rig_driver_count(rig); d++) {
        const sinew_dyn_driver driver = sinew_dyn_rig_driver(rig, d ? (d - 1) / 2 : 0);
        const int32_t from = !d      ? sinew_dyn_rig_parent_node(rig)
                             : d % 2 ? driver.node
                                     : driver.tip_node;
        for (int32_t i = from; i >= 0; i = model->nodes[i].parent) {
            if (sinew_vec3_distance(a[i].translation, b[i].translation) > tol ||
                sinew_vec3_distance(a[i].scale, b[i].scale) > 1e-3f ||
                degrees(angle_between(a[i].rotation, b[i].rotation)) > LOOP_ROTATION_TOLERANCE)
                return 0;
        }
    }
    return 1;
}

/* The clip's own key rate: 1 / its median key spacing, at least min_rate, at most MAX_RATE. */
static float clip_rate(const sinew_clip *clip, float min_rate, const sinew_allocator *a)
{
    const float median = sinew_clip_key_spacing(clip, a);
    float rate = min_rate;
    if (median > 0 && 1.0f / median > rate) rate = 1.0f / median;
    return rate > MAX_RATE ? MAX_RATE : rate;
}

/* The number of keys a clip of `duration` seconds needs at `rate`, checked before any float
 * becomes an integer: a duration that is not finite or longer than SINEW_BAKE_MAX_DURATION (what a
 * stray key far beyond the others makes) is refused with the clip's name, its duration and
 * the keys it would need. */
static sinew_result clip_key_count(const sinew_clip *clip, float rate, uint32_t *count,
                                   sinew_error *err)
{
    const float duration = clip->duration;
    if (!isfinite(duration) || duration < 0)
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "bake: clip \"%s\" has a duration of %g s", clip->name,
                               (double)duration);
    /* in float, as the keys' spacing is computed from it; double only for the message */
    const float keys = duration > 0 ? ceilf(duration * rate - 1e-3f) + 1 : 1;
    if (!((double)duration <= SINEW_BAKE_MAX_DURATION))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "bake: clip \"%s\" lasts %g s and would need %.10g keys at %g "
                               "per second; a bake records at most %g s (%.10g keys at that "
                               "rate): is a key time far beyond the others?",
                               clip->name, (double)duration, (double)keys, (double)rate,
                               SINEW_BAKE_MAX_DURATION,
                               ceil(SINEW_BAKE_MAX_DURATION * (double)rate) + 1);
    *count = (uint32_t)keys;
    return SINEW_OK;
}

/* Neighbouring chains of a garment are held at their rest distances after every step, so
 * the ring keeps its shape (see sinew_bake_garment): COUPLING_PASSES Gauss-Seidel passes over
 * the pairs, each taking COUPLING_SHARE of a pair's error in its length (half to each
 * particle) and the same share of their closing speed along it, as the runtime's rope drops
 * radial speed, so the pull does not ring. Measured on the procedural skirt (10 chains around)
 * and cape (4 across) over their four clips, as the largest change of a neighbouring joint's
 * spacing from rest (tests/rig/test_rig_garments.c; 118% and 59% with the chains baked one by
 * one): 1 pass of 0.5 leaves 17% on the cape and tears the skirt's Crouch (p99 1.40 against
 * its body's 1.32); 2 of 0.5, 26% and 9%; 4 of 0.5, 11% and 5%; 4 of 0.7, 8% and 3%; 8 of
 * 0.7, 8% and 2%. Any 2 to 8 passes of 0.5 to 1 keep every clip within the stretch bars
 * (skirt Crouch p99 1.12-1.22, torn <= 0.1%); the passes cost nothing beside the steps. */
#define COUPLING_PASSES 4
#define COUPLING_SHARE 0.7f

/* With body colliders, the coupling (the cells' contact included) and the constraints-only
 * step run this many times after each step: the step's contact moves particles the coupling
 * had placed, and the second round lets the ring settle between the two. Measured on the
 * procedural skirt with `--colliders on` (garment skin p99 / torn, Sprint and Crouch; inside a
 * leg), before its chains were driven and with its ring edges pushed away from the axis: 1
 * round 1.30 / 0.2% and 1.25 / 1.0%, 2.5% and 6.4%; 2 rounds 1.28 / 0.3% and 1.25 / 1.2%, 2.3%
 * and 6.5%; 3 rounds 1.27 / 0.4% and 1.24 / 1.2%, 2.3% and 6.6%. Driven, its cells kept on the
 * body's outer side (cell_out_of_capsules): 1 round 1.28 / 0.0% and 1.27 / 0.18%, 0.28% and
 * 0.63%; 2 rounds 1.26 / 0.0% and 1.24 / 0.20%, 0.23% and 0.62%; 3 rounds 1.25 / 0.01% and
 * 1.23 / 0.25%, 0.22% and 0.61%. 2 keeps Sprint within its bar (p99 <= 1.30) at the cost of one
 * more constraints-only step. Chains without capsules run one round, as before. */
#define CONTACT_ROUNDS 2

/* Everything one bake works on: private to the call, never shared with a caller's pose. One
 * state per chain; the chains of a garment step together and are coupled after each step. */
typedef struct bake_run {
    sinew_allocator alloc; /* the bake's (its options') */
    const sinew_model *model;
    const sinew_clip *clip;
    uint32_t count;                   /* chains */
    int ring;                         /* coupled as a closed ring (count > 2) */
    int coupled;                      /* 1: neighbouring chains are held at their rest distances */
    sinew_dyn_rig **rigs;             /* count */
    sinew_dyn_step_job *jobs;         /* count */
    sinew_transform *pose, *pose_end; /* pose_end: only for comparing a clip's two ends */
    sinew_mat4 *world;
    size_t *state_bytes;                    /* count */
    void **state_memory, **snapshot_memory; /* count each */
    sinew_dyn_state **states, **snapshots;
    uint32_t rows;     /* particles per chain that are coupled (the shortest chain's) */
    float *rest;       /* rows * count: rest distance of chain k's particle j to chain
                          k+1's (ring: the last to the first), from the first step */
    sinew_vec3 *p, *v; /* scratch: count * SINEW_DYN_MAX_JOINTS */
    float outward;     /* 1 or -1: which side of a cell (cell_normal) faces away from the
                          body, from the first step */
} bake_run;

/* One coupling pass over every neighbouring pair's particles. */
static void couple_once(bake_run *run)
{
    const uint32_t n = run->count, pairs = run->ring ? n : n - 1;
    for (uint32_t k = 0; k < pairs; k++) {
        const uint32_t k1 = (k + 1) % n;
        for (uint32_t j = 0; j < run->rows; j++) {
            sinew_vec3 *a = &run->p[k * SINEW_DYN_MAX_JOINTS + j],
                       *b = &run->p[k1 * SINEW_DYN_MAX_JOINTS + j];
            sinew_vec3 *va = &run->v[k * SINEW_DYN_MAX_JOINTS + j],
                       *vb = &run->v[k1 * SINEW_DYN_MAX_JOINTS + j];
            const sinew_vec3 d = sinew_vec3_sub(*b, *a);
            const float len = sinew_vec3_length(d);
            if (!(len > 0)) continue;
            const sinew_vec3 nrm = sinew_vec3_scale(d, 1.0f / len);
            const float fix = 0.5f * COUPLING_SHARE * (len - run->rest[k * run->rows + j]);
            *a = sinew_vec3_madd(*a, nrm, fix);
            *b = sinew_vec3_madd(*b, nrm, -fix);
            const float closing = sinew_vec3_dot(sinew_vec3_sub(*vb, *va), nrm);
            *va = sinew_vec3_madd(*va, nrm, 0.5f * COUPLING_SHARE * closing);
            *vb = sinew_vec3_madd(*vb, nrm, -0.5f * COUPLING_SHARE * closing);
        }
    }
}

/* The corners of the cell of cloth between chains k and k1 and rows j - 1 and j: [e][0] on
 * row j - 1, [e][1] on row j, e = 0 on chain k and 1 on chain k1. Row j is particle j (the tip
 * of link j); row -1 is the roots' heads, which the chain parent carries: `heads` holds them
 * and nothing moves them. */
static void cell_corners(bake_run *run, uint32_t k, uint32_t k1, uint32_t j, sinew_vec3 *c[2][2],
                         sinew_vec3 heads[2])
{
    const uint32_t chain[2] = {k, k1};
    for (int e = 0; e < 2; e++) {
        sinew_vec3 *p = run->p + chain[e] * SINEW_DYN_MAX_JOINTS;
        c[e][1] = &p[j];
        if (j > 0) {
            c[e][0] = &p[j - 1];
        } else {
            heads[e] = sinew_mat4_translation(
                &run->world[sinew_dyn_rig_joint_node(run->rigs[chain[e]], 0)]);
            c[e][0] = &heads[e];
        }
    }
}

/* The unit normal of a cell, across x along; run->outward turns it away from the body. */
static sinew_vec3 cell_normal(sinew_vec3 *c[2][2])
{
    const sinew_vec3 along =
        sinew_vec3_sub(sinew_vec3_add(*c[0][1], *c[1][1]), sinew_vec3_add(*c[0][0], *c[1][0]));
    const sinew_vec3 across =
        sinew_vec3_sub(sinew_vec3_add(*c[1][0], *c[1][1]), sinew_vec3_add(*c[0][0], *c[0][1]));
    return sinew_vec3_normalize_or(sinew_vec3_cross(across, along), sinew_vec3_make(0, 0, 0));
}

/* The middle of a cell (the mean of its corners). */
static sinew_vec3 cell_middle(sinew_vec3 *c[2][2])
{
    return sinew_vec3_scale(
        sinew_vec3_add(sinew_vec3_add(*c[0][0], *c[0][1]), sinew_vec3_add(*c[1][0], *c[1][1])),
        0.25f);
}

/* A body capsule's axis at the current pose. */
static void capsule_axis(const bake_run *run, sinew_dyn_capsule capsule, sinew_vec3 *q0,
                         sinew_vec3 *q1)
{
    *q1 = sinew_mat4_translation(&run->world[capsule.node_b]);
    *q0 = sinew_vec3_lerp(sinew_mat4_translation(&run->world[capsule.node_a]), *q1, capsule.start);
}

/* Points sampled across and along a cell (CELL_SAMPLES + 1 across, CELL_SAMPLES along; the
 * row above is the cell above's). Measured on the procedural skirt, colliders on (Crouch's
 * chained skin inside a leg and torn share, Sprint's inside): 2: 0.64%, 0.18%, 0.25%; 4: 0.62%,
 * 0.20%, 0.23%; 8: 0.63%, 0.20%, 0.27%. Safe range 2 .. 8; the cost grows as its square. */
#define CELL_SAMPLES 4

/* Keeps the cell between chains k and k1 and rows j - 1 and j on the outer side of every body
 * capsule of chain k's rig (the chains of a garment share them): the body is inside a garment.
 * The runtime keeps each particle out of a capsule but not the cloth between them, and a
 * particle has no side: in the procedural skirt's Crouch a shin came through the back panel
 * between two hem particles, one on either side of it, and pushing the edge between them away
 * from the axis pushed it either way (0.7% of the skirt's chained skin samples inside a shin,
 * half of the 1.44% it kept inside a leg). Of the sampled points of the cell within reach of
 * the capsule's axis (the smaller of its two chains' contact radii,
 * sinew_dyn_rig_contact_radius: the modelled clearance is kept), the one that must move
 * furthest to lie that far out along the cell's outward normal is moved there, its corners
 * sharing the move by their bilinear weights as position-based dynamics shares a constraint
 * between equal masses; their speeds into the cloth go, as the runtime's contact drops them.
 * Measured on the procedural skirt, colliders on (Crouch's chained skin inside a leg and torn
 * share, Sprint's inside): the ring's edges pushed away from the axis (as before) 1.44%, 0.42%,
 * 0.45%; the edges kept on the outer side 0.85%, 0.18%, 0.31%; the cells 0.62%, 0.20%, 0.23%.
 * The roots' heads do not move, so in the top cell only points the particles carry at least
 * half of count: from a quarter (the particles then move up to four times as far as the point
 * was deep) Crouch tears 1.62% of its edge samples; from a half 0.62%, 0.20%; from three
 * quarters 0.64%, 0.15%; the particles' row alone 0.69%, 0.14%. */
static void cell_out_of_capsules(bake_run *run, uint32_t k, uint32_t k1, uint32_t j)
{
    sinew_vec3 *c[2][2], heads[2];
    cell_corners(run, k, k1, j, c, heads);
    const sinew_vec3 n = sinew_vec3_scale(cell_normal(c), run->outward);
    const sinew_dyn_rig *rig = run->rigs[k], *rig1 = run->rigs[k1];
    const int first_row = j > 0 ? 0 : 1; /* the rows of corners that move */
    const int from = j > 0 ? 1 : CELL_SAMPLES / 2;
    /* a sphere round the cell, to pass over the capsules far from it */
    const sinew_vec3 mid = cell_middle(c);
    float size = 0.0f;
    for (int e = 0; e < 4; e++)
        size = fmaxf(size, sinew_vec3_distance(mid, *c[e / 2][e % 2]));
    for (uint32_t cap = 0; cap < sinew_dyn_rig_capsule_count(rig); cap++) {
        sinew_vec3 q0, q1;
        capsule_axis(run, sinew_dyn_rig_capsule(rig, cap), &q0, &q1);
        const float reach = fminf(sinew_dyn_rig_contact_radius(rig, j, cap),
                                  sinew_dyn_rig_contact_radius(rig1, j, cap));
        if (!(sinew_segment_distance(mid, q0, q1) < size + reach)) continue;
        float need = 0.0f, at_a = 0.0f, at_f = 0.0f;
        for (int ia = 0; ia <= CELL_SAMPLES; ia++)
            for (int jf = from; jf <= CELL_SAMPLES; jf++) {
                const float a = (float)ia / CELL_SAMPLES, f = (float)jf / CELL_SAMPLES;
                const sinew_vec3 x = sinew_vec3_lerp(sinew_vec3_lerp(*c[0][0], *c[0][1], f),
                                                     sinew_vec3_lerp(*c[1][0], *c[1][1], f), a);
                const sinew_vec3 axis = sinew_segment_closest(x, q0, q1);
                const sinew_vec3 off = sinew_vec3_sub(x, axis);
                if (!(sinew_vec3_length(off) < reach)) continue;
                const float short_of = reach - sinew_vec3_dot(off, n);
                if (short_of > need) need = short_of, at_a = a, at_f = f;
            }
        if (!(need > 0.0f)) continue;
        const float w[2][2] = {{(1 - at_a) * (1 - at_f), (1 - at_a) * at_f},
                               {at_a * (1 - at_f), at_a * at_f}};
        float sum = 0.0f;
        for (int e = 0; e < 2; e++)
            for (int r = first_row; r < 2; r++)
                sum += w[e][r] * w[e][r];
        const uint32_t chain[2] = {k, k1};
        for (int e = 0; e < 2; e++)
            for (int r = first_row; r < 2; r++) {
                *c[e][r] = sinew_vec3_madd(*c[e][r], n, need * w[e][r] / sum);
                sinew_vec3 *v = &run->v[chain[e] * SINEW_DYN_MAX_JOINTS + j + (uint32_t)r - 1];
                const float into = sinew_vec3_dot(*v, n);
                if (into < 0.0f) *v = sinew_vec3_madd(*v, n, -into);
            }
    }
}

static sinew_result couple(bake_run *run, sinew_error *err)
{
    for (uint32_t k = 0; k < run->count; k++)
        sinew_dyn_state_get(run->states[k], run->p + k * SINEW_DYN_MAX_JOINTS,
                            run->v + k * SINEW_DYN_MAX_JOINTS);
    for (int pass = 0; pass < COUPLING_PASSES; pass++)
        couple_once(run);
    /* after the coupling, which pulls neighbours along their edge and so into a capsule
     * between them; the constraints-only step that follows puts each particle back on its
     * rope and out of the capsules itself */
    const uint32_t n = run->count, pairs = run->ring ? n : n - 1;
    for (uint32_t k = 0; k < pairs; k++)
        for (uint32_t j = 0; j < run->rows; j++)
            cell_out_of_capsules(run, k, (k + 1) % n, j);
    for (uint32_t k = 0; k < run->count; k++) {
        sinew_result r = sinew_dyn_state_set(run->states[k], run->p + k * SINEW_DYN_MAX_JOINTS,
                                             run->v + k * SINEW_DYN_MAX_JOINTS, err);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

/* The rest distances of the coupled rows, and the side of the cloth that faces away from the
 * body (each cell's normal against the way to it from the nearest body capsule's axis,
 * summed: a garment is modelled outside the body), from the chains as the first step placed
 * them. */
static void measure_rest(bake_run *run)
{
    const uint32_t n = run->count, pairs = run->ring ? n : n - 1;
    for (uint32_t k = 0; k < n; k++)
        sinew_dyn_state_get(run->states[k], run->p + k * SINEW_DYN_MAX_JOINTS, NULL);
    float facing = 0.0f;
    for (uint32_t k = 0; k < pairs; k++)
        for (uint32_t j = 0; j < run->rows; j++) {
            sinew_vec3 *c[2][2], heads[2];
            cell_corners(run, k, (k + 1) % n, j, c, heads);
            const sinew_vec3 mid = cell_middle(c);
            sinew_vec3 away = sinew_vec3_make(0, 0, 0);
            float nearest = INFINITY;
            for (uint32_t cap = 0; cap < sinew_dyn_rig_capsule_count(run->rigs[k]); cap++) {
                sinew_vec3 q0, q1;
                capsule_axis(run, sinew_dyn_rig_capsule(run->rigs[k], cap), &q0, &q1);
                const sinew_vec3 d = sinew_vec3_sub(mid, sinew_segment_closest(mid, q0, q1));
                const float length = sinew_vec3_length(d);
                if (length < nearest) nearest = length, away = d;
            }
            facing += sinew_vec3_dot(cell_normal(c), away);
        }
    run->outward = facing < 0.0f ? -1.0f : 1.0f;
    for (uint32_t k = 0; k < pairs; k++)
        for (uint32_t j = 0; j < run->rows; j++)
            run->rest[k * run->rows + j] =
                sinew_vec3_distance(run->p[k * SINEW_DYN_MAX_JOINTS + j],
                                    run->p[((k + 1) % n) * SINEW_DYN_MAX_JOINTS + j]);
}

/* Advances every chain by dt at `time`; coupled chains are then pulled to their rest
 * distances and stepped again with dt 0 (constraints only), so each one's rotations show the
 * coupled particles. */
static sinew_result step(bake_run *run, float time, float dt, sinew_error *err)
{
    sinew_clip_sample(run->model, run->clip, time, run->pose);
    sinew_pose_to_world(run->model, run->pose, run->world);
    for (uint32_t k = 0; k < run->count; k++)
        run->jobs[k].dt = dt;
    if (run->count == 1) return sinew_dyn_step_run(&run->jobs[0], err);
    sinew_result r = sinew_dyn_step_run_many(run->jobs, run->count, err);
    if (r != SINEW_OK || !run->coupled || !(dt > 0)) return r;
    for (uint32_t k = 0; k < run->count; k++)
        run->jobs[k].dt = 0.0f;
    const int rounds = sinew_dyn_rig_capsule_count(run->rigs[0]) ? CONTACT_ROUNDS : 1;
    for (int round = 0; r == SINEW_OK && round < rounds; round++)
        if ((r = couple(run, err)) == SINEW_OK)
            r = sinew_dyn_step_run_many(run->jobs, run->count, err);
    return r;
}

/* 1 when every chain's state has come back to its snapshot within tolerance. */
static int state_returned(const bake_run *run, float tolerance)
{
    for (uint32_t k = 0; k < run->count; k++) {
        float dp, dv;
        sinew_dyn_state_difference(run->states[k], run->snapshots[k], &dp, &dv);
        if (!(dp <= tolerance && dv <= tolerance)) return 0;
    }
    return 1;
}

static void take_snapshot(bake_run *run)
{
    for (uint32_t k = 0; k < run->count; k++)
        memcpy(run->snapshot_memory[k], run->state_memory[k], run->state_bytes[k]);
}

static void run_free(bake_run *run)
{
    const sinew_allocator *a = &run->alloc;
    for (uint32_t k = 0; k < run->count; k++) {
        if (run->rigs) sinew_dyn_rig_free(run->rigs[k]);
        if (run->state_memory) sinew_free(a, run->state_memory[k]);
        if (run->snapshot_memory) sinew_free(a, run->snapshot_memory[k]);
        if (run->jobs) sinew_free(a, run->jobs[k].local_rotations);
    }
    sinew_free(a, run->rigs);
    sinew_free(a, run->jobs);
    sinew_free(a, run->state_bytes);
    sinew_free(a, run->state_memory);
    sinew_free(a, run->snapshot_memory);
    sinew_free(a, run->states);
    sinew_free(a, run->snapshots);
    sinew_free(a, run->rest);
    sinew_free(a, run->p);
    sinew_free(a, run->v);
    sinew_free(a, run->pose);
    sinew_free(a, run->pose_end);
    sinew_free(a, run->world);
    memset(run, 0, sizeof *run);
}

/* Lays out the run for `count` rigs (taken over: run_free frees them, whatever happens). */
static sinew_result run_init(bake_run *run, const sinew_model *model, sinew_dyn_rig **rigs,
                             uint32_t count, int coupled, int ring, const sinew_clip *clip,
                             const sinew_allocator *a, sinew_error *err)
{
    memset(run, 0, sizeof *run);
    run->alloc = *a;
    run->model = model;
    run->clip = clip;
    run->rigs = sinew_alloc(a, count, sizeof *run->rigs);
    if (!run->rigs) {
        for (uint32_t k = 0; k < count; k++)
            sinew_dyn_rig_free(rigs[k]);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "bake: out of memory");
    }
    memcpy(run->rigs, rigs, count * sizeof *rigs);
    run->count = count;
    run->coupled = coupled && count > 1;
    run->ring = ring && count > 2;
    run->jobs = sinew_alloc(a, count, sizeof *run->jobs);
    run->state_bytes = sinew_alloc(a, count, sizeof *run->state_bytes);
    run->state_memory = sinew_alloc(a, count, sizeof *run->state_memory);
    run->snapshot_memory = sinew_alloc(a, count, sizeof *run->snapshot_memory);
    run->states = sinew_alloc(a, count, sizeof *run->states);
    run->snapshots = sinew_alloc(a, count, sizeof *run->snapshots);
    run->p = sinew_alloc(a, (size_t)count * SINEW_DYN_MAX_JOINTS, sizeof *run->p);
    run->v = sinew_alloc(a, (size_t)count * SINEW_DYN_MAX_JOINTS, sizeof *run->v);
    run->pose = sinew_alloc(a, model->node_count, sizeof *run->pose);
    run->pose_end = sinew_alloc(a, model->node_count, sizeof *run->pose_end);
    run->world = sinew_alloc(a, model->node_count, sizeof *run->world);
    if (!run->jobs || !run->state_bytes || !run->state_memory || !run->snapshot_memory ||
        !run->states || !run->snapshots || !run->p || !run->v || !run->pose || !run->pose_end ||
        !run->world) {
        if (run->jobs) memset(run->jobs, 0, count * sizeof *run->jobs);
        if (run->state_memory) memset(run->state_memory, 0, count * sizeof *run->state_memory);
        if (run->snapshot_memory)
            memset(run->snapshot_memory, 0, count * sizeof *run->snapshot_memory);
        run_free(run);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "bake: out of memory");
    }
    memset(run->jobs, 0, count * sizeof *run->jobs);
    memset(run->state_memory, 0, count * sizeof *run->state_memory);
    memset(run->snapshot_memory, 0, count * sizeof *run->snapshot_memory);
    run->rows = SINEW_DYN_MAX_JOINTS;
    for (uint32_t k = 0; k < count; k++) {
        const sinew_dyn_rig *rig = rigs[k];
        const uint32_t joints = sinew_dyn_rig_joint_count(rig);
        if (joints < run->rows) run->rows = joints;
        run->state_bytes[k] = sinew_dyn_state_bytes(rig);
        /* sinew_alloc returns malloc-aligned memory, which satisfies the state's 8 bytes. */
        run->state_memory[k] = sinew_alloc(a, run->state_bytes[k], 1);
        run->snapshot_memory[k] = sinew_alloc(a, run->state_bytes[k], 1);
        run->jobs[k].local_rotations = sinew_alloc(a, joints, sizeof *run->jobs[k].local_rotations);
        if (!run->state_memory[k] || !run->snapshot_memory[k] || !run->jobs[k].local_rotations) {
            run_free(run);
            return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "bake: out of memory");
        }
        run->states[k] = sinew_dyn_state_init(rig, run->state_memory[k], run->state_bytes[k]);
        run->snapshots[k] = sinew_dyn_state_init(rig, run->snapshot_memory[k], run->state_bytes[k]);
        run->jobs[k].rig = rig;
        run->jobs[k].state = run->states[k];
        run->jobs[k].world = run->world;
        run->jobs[k].world_count = model->node_count;
        if (!run->states[k] || !run->snapshots[k]) {
            run_free(run);
            return sinew_error_set(err, SINEW_ERR_INTERNAL,
                                   "bake: could not lay out a spring state");
        }
    }
    run->rest = sinew_alloc(a, (size_t)run->rows * count + 1, sizeof *run->rest);
    if (!run->rest) {
        run_free(run);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "bake: out of memory");
    }
    return SINEW_OK;
}

/* The unit direction from chain k's root joint to its tip particle in the chain parent's
 * frame, at the last step: how the tail points, whatever the body does. The rig's step
 * divides the key spacing, so the committed particles are at the key's instant. */
static sinew_vec3 tip_direction(const bake_run *run, uint32_t k)
{
    const sinew_dyn_rig *rig = run->rigs[k];
    sinew_vec3 p[SINEW_DYN_MAX_JOINTS];
    sinew_dyn_state_get(run->states[k], p, NULL);
    const sinew_mat4 *parent = &run->world[sinew_dyn_rig_parent_node(rig)];
    const sinew_vec3 root = sinew_mat4_translation(&run->world[sinew_dyn_rig_joint_node(rig, 0)]);
    sinew_mat4 inv;
    if (!sinew_mat4_invert_affine(parent, &inv)) return sinew_vec3_make(0, 0, 0);
    const sinew_vec3 d = sinew_vec3_sub(p[sinew_dyn_rig_joint_count(rig) - 1], root);
    return sinew_vec3_normalize_or(sinew_mat4_transform_dir(&inv, d), sinew_vec3_make(0, 0, 0));
}

/* Warm-up for a looping clip: whole passes until the state at the end of a pass equals the
 * state at its start. Returns the passes run; *closed says whether it converged. */
static sinew_result warm_up_loop(bake_run *run, const float *times, uint32_t key_count,
                                 uint32_t max_passes, float tolerance, uint32_t *passes,
                                 int *closed, sinew_error *err)
{
    *passes = 0;
    *closed = 0;
    while (*passes < max_passes) {
        take_snapshot(run);
        for (uint32_t k = 1; k < key_count; k++) {
            sinew_result r = step(run, times[k], times[k] - times[k - 1], err);
            if (r != SINEW_OK) return r;
        }
        (*passes)++;
        if (state_returned(run, tolerance)) {
            *closed = 1;
            break;
        }
    }
    return SINEW_OK;
}

/* Settling for a non-looping clip: hold the first pose until the chain is still. */
static sinew_result settle(bake_run *run, float rate, float seconds, float tolerance,
                           sinew_error *err)
{
    const uint32_t per_second = (uint32_t)ceilf(rate); /* rate is at most MAX_RATE */
    const float dt = 1.0f / (float)per_second;
    /* seconds <= MAX_SETTLE_SECONDS: a whole count, where a float that adds 1 stalls at 2^24 */
    const uint32_t held_seconds = (uint32_t)ceilf(seconds);
    for (uint32_t held = 0; held < held_seconds; held++) {
        take_snapshot(run);
        for (uint32_t k = 0; k < per_second; k++) {
            sinew_result r = step(run, 0.0f, dt, err);
            if (r != SINEW_OK) return r;
        }
        if (state_returned(run, tolerance)) break;
    }
    return SINEW_OK;
}

/* Spreads what is left of joint j's end-to-start difference evenly over the loop: key k
 * turns by k/(n-1) of the rotation taking the last key onto the first, so the last key equals
 * the first and no single frame jumps. The warm-up passes make this residual small (it is
 * reported as drift); contact and bend limits are not smooth, so the state can settle on a
 * cycle that misses its start by a fraction of a degree. */
static void close_loop(sinew_bake_track *t, uint32_t j)
{
    const uint32_t n = t->key_count, stride = t->joint_count;
    sinew_quat first = t->rotations[j], last = t->rotations[(size_t)(n - 1) * stride + j];
    sinew_quat fix = sinew_quat_mul(first, sinew_quat_conjugate(last));
    if (fix.w < 0) fix = sinew_quat_make(-fix.x, -fix.y, -fix.z, -fix.w);
    for (uint32_t k = 1; k < n; k++) {
        sinew_quat *q = &t->rotations[(size_t)k * stride + j];
        sinew_quat part = sinew_quat_slerp(sinew_quat_identity(), fix, (float)k / (float)(n - 1));
        *q = sinew_quat_normalize(sinew_quat_mul(part, *q));
    }
    t->rotations[(size_t)(n - 1) * stride + j] = first;
}

int sinew_bake_colliders_on(const sinew_bake_options *options, const sinew_dyn_params *params)
{
    if (!options || !options->capsules || !options->capsule_count) return 0;
    if (options->colliders != SINEW_BAKE_COLLIDERS_AUTO)
        return options->colliders == SINEW_BAKE_COLLIDERS_ON;
    /* the carry and modelled curve the rig will use: a field left at 0 takes its preset's (a
     * wing's or an ear's rests as modelled with no carry; the tail's by default) */
    sinew_dyn_params tail, preset;
    sinew_dyn_params_default(&tail);
    const uint32_t which = params ? params->preset : 0;
    sinew_dyn_params_preset(
        which < SINEW_DYN_PRESET_COUNT ? (sinew_dyn_preset)which : SINEW_DYN_PRESET_TAIL, &preset);
    const float carry = params && params->carry > 0 ? params->carry : preset.carry;
    const float rest_curve =
        params && params->rest_curve > 0 ? params->rest_curve : preset.rest_curve;
    const int no_carry = params && (params->disable & SINEW_DYN_NO_CARRY);
    return no_carry || carry < tail.carry || rest_curve > 0;
}

/* The spring rig for one clip: the options' parameters with the internal step dividing the
 * key spacing, so every pass covers whole steps and a loop's state can come back exactly
 * (a leftover fraction of a step differs from pass to pass and never closes). */
static sinew_result clip_rig(const sinew_model *model, const sinew_dyn_chain_desc *chain,
                             const sinew_bake_options *options, float key_spacing, float duration,
                             const sinew_allocator *a, sinew_dyn_rig **rig, sinew_error *err)
{
    sinew_dyn_params params;
    if (options && options->params)
        params = *options->params;
    else
        memset(&params, 0, sizeof params);
    float step = params.max_step > 0 ? params.max_step : 1.0f / 60.0f;
    if (key_spacing > 0) params.max_step = key_spacing / ceilf(key_spacing / step - 1e-4f);
    /* The idle sway repeats with the clip (whole multiples of 1 / duration, whole steps),
     * so the warm-up can find the state it started from and the loop closes. */
    if (params.idle > 0 && duration > 0) params.idle_period = duration;
    if (!sinew_bake_colliders_on(options, options ? options->params : NULL))
        return sinew_dyn_rig_create(model, chain, &params, a, rig, err);
    /* The chain as given (or found by name) with the body's capsules, leaving out any capsule
     * on the chain itself (a body finder that took a floor-length tail for a leg). A chain
     * found by name is named by a rig made without capsules first. */
    sinew_dyn_rig *plain = NULL;
    const int32_t *nodes = chain && chain->nodes ? chain->nodes : NULL;
    uint32_t node_count = nodes ? chain->node_count : 0;
    int32_t found[SINEW_DYN_MAX_JOINTS];
    if (!nodes) {
        sinew_result r = sinew_dyn_rig_create(model, chain, &params, a, &plain, err);
        if (r != SINEW_OK) return r;
        node_count = sinew_dyn_rig_joint_count(plain);
        for (uint32_t i = 0; i < node_count; i++)
            found[i] = sinew_dyn_rig_joint_node(plain, i);
        nodes = found;
    }
    sinew_dyn_capsule kept[SINEW_DYN_MAX_CAPSULES];
    uint32_t count = 0;
    for (uint32_t c = 0; c < options->capsule_count && count < SINEW_DYN_MAX_CAPSULES; c++) {
        int on_chain = 0;
        for (uint32_t i = 0; i < node_count; i++)
            on_chain |=
                options->capsules[c].node_a == nodes[i] || options->capsules[c].node_b == nodes[i];
        if (!on_chain) kept[count++] = options->capsules[c];
    }
    if (!count && plain) {
        *rig = plain;
        return SINEW_OK;
    }
    sinew_dyn_rig_free(plain);
    sinew_dyn_chain_desc desc = {NULL, 0, -1, NULL, 0, NULL, 0};
    if (chain) desc = *chain;
    desc.capsules = count ? kept : NULL;
    desc.capsule_count = count;
    return sinew_dyn_rig_create(model, &desc, &params, a, rig, err);
}

/* Bakes clip `clip_index` for `count` chains (chains NULL: the Tail_* chain, count 1), one
 * track each into out[]; `coupled` holds neighbouring chains at their rest distances (`ring`:
 * the last neighbours the first). */
static sinew_result bake_chains(const sinew_model *model, const sinew_dyn_chain_desc *chains,
                                uint32_t count, int coupled, int ring, uint32_t clip_index,
                                const sinew_bake_options *options, sinew_bake_track *out,
                                sinew_error *err)
{
    /* Before anything is written: out[] holds count tracks only when count is in range. */
    if (count == 0 || count > SINEW_BAKE_MAX_CHAINS)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "bake: %u chains (1 to %d)", count,
                               SINEW_BAKE_MAX_CHAINS);
    sinew_allocator alloc;
    memset(&alloc, 0, sizeof alloc);
    if (options && options->allocator) alloc = *options->allocator;
    const sinew_allocator *a = &alloc;
    for (uint32_t c = 0; c < count; c++) {
        memset(&out[c], 0, sizeof out[c]);
        out[c].allocator = alloc;
    }
    if (clip_index >= model->clip_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "bake: clip %u does not exist", clip_index);
    const sinew_clip *clip = &model->clips[clip_index];
    const float min_rate = options && options->min_rate > 0 ? options->min_rate : 30.0f;
    const uint32_t max_passes = options && options->max_passes ? options->max_passes : 64;
    const float tolerance =
        (options && options->closure_tolerance > 0 ? options->closure_tolerance : 1e-4f) *
        model->world_size.scale;
    const float settle_seconds = options && options->settle_seconds > 0
                                     ? fminf(options->settle_seconds, MAX_SETTLE_SECONDS)
                                     : 30.0f;
    if (options && (!(options->key_degrees >= 0) || !isfinite(options->key_degrees)))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "bake: the key tolerance %g degrees is not a finite number >= 0",
                               (double)options->key_degrees);

    const float rate = clip_rate(clip, min_rate, a);
    uint32_t key_count = 0;
    sinew_result r = clip_key_count(clip, rate, &key_count, err);
    if (r != SINEW_OK) return r;
    sinew_dyn_rig *rigs[SINEW_BAKE_MAX_CHAINS];
    for (uint32_t c = 0; c < count; c++) {
        r = clip_rig(model, chains ? &chains[c] : NULL, options,
                     key_count > 1 ? clip->duration / (float)(key_count - 1) : 0.0f, clip->duration,
                     a, &rigs[c], err);
        if (r != SINEW_OK) {
            for (uint32_t k = 0; k < c; k++)
                sinew_dyn_rig_free(rigs[k]);
            return r;
        }
    }
    bake_run run;
    r = run_init(&run, model, rigs, count, coupled, ring, clip, a, err);
    if (r != SINEW_OK) return r;
    int looping = clip->duration > 0;
    for (uint32_t c = 0; c < count && looping; c++)
        looping = clip_loops(model, run.rigs[c], clip, run.pose, run.pose_end);
    for (uint32_t c = 0; c < count; c++) {
        sinew_bake_track *t = &out[c];
        const uint32_t joints = sinew_dyn_rig_joint_count(run.rigs[c]);
        t->clip = clip_index;
        t->key_tolerance = options ? options->key_degrees * (float)(SINEW_PI / 180.0) : 0.0f;
        t->key_count = key_count;
        t->joint_count = joints;
        t->capsule_count = sinew_dyn_rig_capsule_count(run.rigs[c]);
        t->rate = clip->duration > 0 ? (float)(key_count - 1) / clip->duration : rate;
        t->times = sinew_alloc(a, key_count, sizeof *t->times);
        t->nodes = sinew_alloc(a, joints, sizeof *t->nodes);
        t->rotations = sinew_alloc(a, (size_t)key_count * joints, sizeof *t->rotations);
        if (!t->times || !t->nodes || !t->rotations) {
            r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "bake: out of memory");
            goto fail;
        }
        for (uint32_t k = 0; k < key_count; k++)
            t->times[k] = key_count > 1 ? clip->duration * (float)k / (float)(key_count - 1) : 0;
        for (uint32_t j = 0; j < joints; j++)
            t->nodes[j] = sinew_dyn_rig_joint_node(run.rigs[c], j);
        t->looping = looping;
    }

    r = step(&run, 0.0f, 0.0f, err); /* places the chains at rest in the first pose */
    if (r == SINEW_OK && run.coupled) measure_rest(&run);
    uint32_t passes = 0;
    int closed = 1;
    if (r == SINEW_OK && looping)
        r = warm_up_loop(&run, out[0].times, key_count, max_passes, tolerance, &passes, &closed,
                         err);
    else if (r == SINEW_OK)
        r = settle(&run, out[0].rate, settle_seconds, tolerance, err);
    /* The recorded pass: key 0 from the current state (dt 0 applies constraints only), then
     * one step per key. */
    sinew_vec3 tip0[SINEW_BAKE_MAX_CHAINS];
    for (uint32_t k = 0; r == SINEW_OK && k < key_count; k++) {
        r = step(&run, out[0].times[k], k ? out[0].times[k] - out[0].times[k - 1] : 0.0f, err);
        for (uint32_t c = 0; r == SINEW_OK && c < count; c++) {
            sinew_bake_track *t = &out[c];
            memcpy(&t->rotations[(size_t)k * t->joint_count], run.jobs[c].local_rotations,
                   t->joint_count * sizeof *t->rotations);
            const sinew_vec3 tip = tip_direction(&run, c);
            if (k == 0) tip0[c] = tip;
            const float cosine = fminf(1.0f, fmaxf(-1.0f, sinew_vec3_dot(tip0[c], tip)));
            t->tip_swing_degrees = fmaxf(t->tip_swing_degrees, degrees(acosf(cosine)));
        }
    }
    if (r != SINEW_OK) goto fail;
    for (uint32_t c = 0; c < count; c++) {
        sinew_bake_track *t = &out[c];
        const uint32_t joints = t->joint_count;
        t->passes = looping ? passes : 0;
        t->closed = closed;
        for (uint32_t j = 0; j < joints; j++) {
            sinew_quat first = t->rotations[j];
            float drift = angle_between(first, t->rotations[(size_t)(key_count - 1) * joints + j]);
            t->drift_degrees = fmaxf(t->drift_degrees, degrees(drift));
            if (looping) close_loop(t, j);
            float seam = angle_between(first, t->rotations[(size_t)(key_count - 1) * joints + j]);
            t->seam_degrees = fmaxf(t->seam_degrees, degrees(seam));
            for (uint32_t k = 1; k < key_count; k++)
                t->swing_degrees =
                    fmaxf(t->swing_degrees,
                          degrees(angle_between(first, t->rotations[(size_t)k * joints + j])));
        }
    }
    run_free(&run);
    return SINEW_OK;
fail:
    run_free(&run);
    for (uint32_t c = 0; c < count; c++)
        sinew_bake_track_free(&out[c]);
    return r;
}

sinew_result sinew_bake_clip(const sinew_model *model, const sinew_dyn_chain_desc *chain,
                             uint32_t clip_index, const sinew_bake_options *options,
                             sinew_bake_track *out, sinew_error *err)
{
    return bake_chains(model, chain, 1, 0, 0, clip_index, options, out, err);
}

sinew_result sinew_bake_clip_coupled(const sinew_model *model, const sinew_dyn_chain_desc *chains,
                                     uint32_t count, int ring, uint32_t clip_index,
                                     const sinew_bake_options *options, sinew_bake_track *out,
                                     sinew_error *err)
{
    if (!model || !chains || !out)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "bake: no model, chains or tracks");
    return bake_chains(model, chains, count, 1, ring, clip_index, options, out, err);
}

/* Joint j's rotation keys as written: times (key_count floats) and values (4 per key), reduced
 * to track->key_tolerance when it is above 0; *count gets the keys kept. `keep` is scratch of
 * key_count flags. The one place both apply functions take their keys from. */
static sinew_result joint_keys(const sinew_model *model, const sinew_bake_track *track, uint32_t j,
                               float *times, float *values, uint8_t *keep, uint32_t *count,
                               sinew_error *err)
{
    const uint32_t n = track->key_count;
    memcpy(times, track->times, n * sizeof *times);
    for (uint32_t k = 0; k < n; k++) {
        const sinew_quat q = track->rotations[(size_t)k * track->joint_count + j];
        values[4 * k] = q.x, values[4 * k + 1] = q.y, values[4 * k + 2] = q.z;
        values[4 * k + 3] = q.w;
    }
    *count = n;
    if (!(track->key_tolerance > 0)) return SINEW_OK;
    sinew_channel ch = {track->nodes[j], SINEW_PATH_ROTATION, SINEW_INTERP_LINEAR, n, times,
                        values};
    uint32_t kept = 0;
    sinew_result r =
        sinew_channel_reduce(&ch, track->key_tolerance, &model->allocator, keep, &kept, err);
    if (r != SINEW_OK) return r;
    sinew_channel_keep(&ch, keep);
    *count = ch.key_count;
    return SINEW_OK;
}

sinew_result sinew_bake_apply_document(sinew_document *doc, const sinew_model *model,
                                       const sinew_bake_track *track, sinew_error *err)
{
    const sinew_clip *clip = &model->clips[track->clip];
    if (clip->gltf_animation < 0)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "bake: clip \"%s\" does not come from the document", clip->name);
    float *values = sinew_alloc(&model->allocator, (size_t)track->key_count * 4, sizeof *values);
    float *times = sinew_alloc(&model->allocator, track->key_count, sizeof *times);
    uint8_t *keep = sinew_alloc(&model->allocator, track->key_count, 1);
    sinew_result r = values && times && keep
                         ? SINEW_OK
                         : sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "bake: out of memory");
    for (uint32_t j = 0; r == SINEW_OK && j < track->joint_count; j++) {
        const sinew_node *node = &model->nodes[track->nodes[j]];
        if (node->gltf_node < 0) {
            r = sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                "bake: joint \"%s\" does not come from the document", node->name);
            break;
        }
        uint32_t count = 0;
        r = joint_keys(model, track, j, times, values, keep, &count, err);
        if (r == SINEW_OK)
            r = sinew_document_set_channel(doc, clip->gltf_animation, node->gltf_node,
                                           SINEW_PATH_ROTATION, SINEW_INTERP_LINEAR, count, times,
                                           values, err);
    }
    sinew_free(&model->allocator, values);
    sinew_free(&model->allocator, times);
    sinew_free(&model->allocator, keep);
    return r;
}

/* The clip's rotation channel for `node`, appending an empty one when there is none. */
static sinew_channel *rotation_channel(sinew_model *model, sinew_clip *clip, int32_t node)
{
    for (uint32_t c = 0; c < clip->channel_count; c++)
        if (clip->channels[c].node == node && clip->channels[c].path == SINEW_PATH_ROTATION)
            return &clip->channels[c];
    sinew_channel *grown = sinew_realloc(&model->allocator, clip->channels, clip->channel_count,
                                         clip->channel_count + 1, sizeof *grown);
    if (!grown) return NULL;
    clip->channels = grown;
    sinew_channel *ch = &grown[clip->channel_count++];
    memset(ch, 0, sizeof *ch);
    ch->node = node;
    ch->path = SINEW_PATH_ROTATION;
    return ch;
}

sinew_result sinew_bake_apply_model(sinew_model *model, const sinew_bake_track *track,
                                    sinew_error *err)
{
    const sinew_allocator *a = &model->allocator;
    sinew_clip *clip = &model->clips[track->clip];
    uint8_t *keep = sinew_alloc(a, track->key_count, 1);
    if (!keep) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "bake: out of memory");
    sinew_result r = SINEW_OK;
    for (uint32_t j = 0; j < track->joint_count && r == SINEW_OK; j++) {
        float *times = sinew_alloc(a, track->key_count, sizeof *times);
        float *values = sinew_alloc(a, (size_t)track->key_count * 4, sizeof *values);
        sinew_channel *ch = times && values ? rotation_channel(model, clip, track->nodes[j]) : NULL;
        uint32_t count = 0;
        r = ch ? joint_keys(model, track, j, times, values, keep, &count, err)
               : sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "bake: out of memory");
        if (r != SINEW_OK) {
            sinew_free(a, times);
            sinew_free(a, values);
            break;
        }
        sinew_free(a, ch->times);
        sinew_free(a, ch->values);
        ch->times = times;
        ch->values = values;
        ch->key_count = count;
        ch->interpolation = SINEW_INTERP_LINEAR;
    }
    sinew_free(a, keep);
    return r;
}

void sinew_bake_track_free(sinew_bake_track *track)
{
    if (!track) return;
    const sinew_allocator *a = &track->allocator;
    sinew_free(a, track->times);
    sinew_free(a, track->nodes);
    sinew_free(a, track->rotations);
    track->times = NULL;
    track->nodes = NULL;
    track->rotations = NULL;
}

sinew_result sinew_bake_all(sinew_document *doc, sinew_model *model,
                            const sinew_bake_options *options, sinew_bake_track *summaries,
                            sinew_error *err)
{
    sinew_result r = SINEW_OK;
    for (uint32_t c = 0; r == SINEW_OK && c < model->clip_count; c++) {
        sinew_bake_track track;
        r = sinew_bake_clip(model, NULL, c, options, &track, err);
        if (r != SINEW_OK) break;
        if (doc) r = sinew_bake_apply_document(doc, model, &track, err);
        if (r == SINEW_OK) r = sinew_bake_apply_model(model, &track, err);
        sinew_bake_track_free(&track);
        if (summaries) summaries[c] = track;
    }
    return r;
}
