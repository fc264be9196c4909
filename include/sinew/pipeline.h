/* sinew pipeline: the whole tail job on a glTF document, as `sinew tail` runs it.
 *
 *   1. find the appendages and build the chain (sinew/rig.h);
 *   2. try it on a copy of the document: add the bones, re-weight, rebuild the model from the
 *      edited document, bake every clip (sinew/bake.h);
 *   3. do no harm: play the input and the trial over every clip and measure, edge by edge
 *      around the re-weighted skin, the strain beyond normal skinning distortion (|ln ratio|
 *      beyond ln 1.3, summed over the moments). The chain's root blends into the pelvis or
 *      into the body skin it meets (sinew_rig_root_blend): both are measured and the one
 *      that tears less (edge samples torn that were not in the input), else strains less,
 *      is kept. Where an edge across the seam between the
 *      tail's root and the body strains more than it did, the root skin there is given back
 *      its rigger's weights if they were plausible (none of its edges strained in the input:
 *      body skin the chain took; skin a rigger dumped a tail on tears in the input, and would
 *      tear again), ring by ring, keeping the state with the least strain. A chain
 *      that still leaves the body worse than the input on some clip (0.1 point more of its
 *      edges torn, or its p99 up by 0.02) without making its own skin better there is
 *      dropped. Ears (sinew_rig_options.ears) were whole and rigid on the head: their chains
 *      are dropped first when the skin they move tears more by that bar on some clip, or
 *      strains beyond both 1.3 and that bar, and the check runs again on the rest; a tail, wing
 *      or garment chain that harms the body beside ears is dropped alone, and the ears checked
 *      again;
 *   4. edit the caller's document with the result and bake it; with vrm_springs, also write
 *      the chain's springs as VRMC_springBone (sinew/vrm.h).
 * The trial runs on a copy; the caller's document is edited only in step 4. A failure there
 * (out of memory) can leave it partly edited: do not write it then.
 */
#ifndef SINEW_PIPELINE_H
#define SINEW_PIPELINE_H

#include "sinew/bake.h"
#include "sinew/document.h"
#include "sinew/metrics.h"
#include "sinew/rig.h"
#include "sinew/vrm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_tail_options {
    /* The job's allocator: the result (its models, report, plan and tables, recorded in it for
     * sinew_tail_result_free) and the working memory; default: malloc. It replaces rig's and
     * bake's own. */
    const sinew_allocator *allocator;
    sinew_rig_options rig;   /* the finder; zero: defaults */
    sinew_bake_options bake; /* springs and bake; zero: defaults. Without capsules of its
                                own the bake gets the result's body capsules
                                (sinew_body_capsules) unless colliders is OFF */
    int no_bake;             /* 1: the output's clips are copied unchanged (the check still
                                plays a baked trial: the chain as it will move once baked) */
    int no_guard;            /* 1: skip the do-no-harm check */
    uint32_t guard_samples;  /* moments per clip for the check; default 24 */
    int vrm_springs;         /* 1: also write the chain's springs as VRMC_springBone */
} sinew_tail_options;

/* The do-no-harm check, per clip, before (input) and after. */
typedef struct sinew_tail_guard_clip {
    sinew_stretch_stats tail_before, tail_after;     /* edges with both ends dominated by a chain's
                                                        bone: the skin the chains carry */
    sinew_stretch_stats body_before, body_after;     /* every other edge of the mesh (re-weighted
                                                        skin a body bone dominates, the collar
                                                        round a root, included) */
    sinew_stretch_stats collar_before, collar_after; /* of the body's, the edges with an end
                                                        re-weighted: the collar round a root
                                                        and its seams, where the body changed */
    sinew_stretch_stats ear_before, ear_after;       /* edges with both ends on an ear chain's bones
                                                        (no samples without ears) */
} sinew_tail_guard_clip;

/* The check's bar, one rule for the parts it weighs: 1 when `after` is worse than `before`, 0.1
 * point more of its edge samples torn or its p99 up by more than 0.02 (the body's bar in the
 * acceptance of the tail finder: p99 +0.02, torn +0.1 point). */
int sinew_tail_stretch_worse(const sinew_stretch_stats *before, const sinew_stretch_stats *after);

typedef struct sinew_tail_result {
    sinew_model *input;      /* the model of the document as it came in (the report's) */
    sinew_rig_report report; /* what was found (the plan's final state is in `plan`) */
    sinew_rig_plan plan;
    sinew_model *model;              /* the edited document's model (NULL when nothing changed) */
    int baked;                       /* 1 when clips were baked */
    sinew_bake_track *bakes;         /* model->clip_count summaries of the tail's bake, when
                                        baked and a tail was chained (wings only: NULL) */
    int guarded;                     /* 1 when the check ran */
    sinew_rig_root_blend root_blend; /* the root blend the check kept (it tries both) */
    /* Per root blend (indexed by sinew_rig_root_blend): edge samples over the root's zone,
     * summed over the clips, torn with the chain that were not torn in the input; the check
     * keeps the blend with fewer. -1 for a blend it did not try. */
    double blend_new_torn[2];
    uint32_t returned;     /* vertices given back their rigger's weights by the check */
    uint32_t dropped;      /* chains the check dropped (the ears' included) */
    uint32_t dropped_ears; /* ear chains the check dropped first: their skin, whole and rigid
                              on the head in the input, came out worse on some clip */
    uint32_t clip_count;
    sinew_tail_guard_clip *clips; /* clip_count entries when guarded (after the check) */
    /* The chained skin (the vertices a chain's bone dominates) inside the hind legs' capsules
     * (sinew_body_capsules, sinew_metrics_capsule_share), per clip of the baked result at
     * guard_samples moments: clip_count entries when baked and the skeleton has legs, else
     * NULL. Whether the bake used colliders is in each track (sinew_bake_track). */
    sinew_capsule_share *legs;
    uint32_t leg_capsules;   /* the capsules measured */
    int colliders_turned_on; /* 1 when the job turned the body colliders on for the tail: with
                                them left to AUTO its chained skin entered a leg on some clip
                                (more than 0.5% of its samples) */
    int vrm;                 /* 1 when VRMC_springBone was written (vrm_springs) */
    sinew_vrm_fit vrm_fit;   /* its fit and predicted error, when vrm */
    sinew_allocator allocator;
} sinew_tail_result;

/* Runs the job on `doc` (edited in place; see the header). `options` may be
 * NULL. On a model with nothing to grow the document is left unchanged and result->model is
 * NULL. Free the result with sinew_tail_result_free, whatever the outcome. */
sinew_result sinew_tail_run(sinew_document *doc, const sinew_tail_options *options,
                            sinew_tail_result *result, sinew_error *err);
void sinew_tail_result_free(sinew_tail_result *result);

/* The body's colliders for the spring chains (sinew/dyn.h, "body colliders"): a capsule along
 * every bone of the hind legs (sinew_rig_find_landmarks: the thigh and leg joints, each to the
 * leg joint hanging from it) and of the torso (the pelvis to the first spine joint, then along
 * the spine, the neck included), each as thick as the skin its bone dominates
 * (sinew_dyn_skin_radius); a bone that dominates no skin gets none, nor does a hip socket (a
 * leg bone at least as thick as long, or one that runs level along the line between the two
 * hip sockets: it joins the pelvis to the hip, and its skin is the rump's). Writes at most
 * `capacity` capsules to `out` (SINEW_DYN_MAX_CAPSULES is what a rig takes), legs first:
 * *leg_count (may be NULL) of them are the legs'. Errors of sinew_rig_find_landmarks pass through
 * (*count is then 0); SINEW_ERR_OUT_OF_MEMORY. */
sinew_result sinew_body_capsules(const sinew_model *model, sinew_dyn_capsule *out,
                                 uint32_t capacity, uint32_t *count, uint32_t *leg_count,
                                 sinew_error *err);

#ifdef __cplusplus
}
#endif
#endif
