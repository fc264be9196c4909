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
 *      dropped;
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
    sinew_bake_options bake; /* springs and bake; zero: defaults */
    int no_bake;             /* 1: the output's clips are copied unchanged (the check still
                                plays a baked trial: the chain as it will move once baked) */
    int no_guard;            /* 1: skip the do-no-harm check */
    uint32_t guard_samples;  /* moments per clip for the check; default 24 */
    int vrm_springs;         /* 1: also write the chain's springs as VRMC_springBone */
} sinew_tail_options;

/* The do-no-harm check, per clip, before (input) and after. */
typedef struct sinew_tail_guard_clip {
    sinew_stretch_stats tail_before, tail_after; /* edges with both ends re-weighted */
    sinew_stretch_stats body_before, body_after; /* every other edge of the mesh */
} sinew_tail_guard_clip;

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
    uint32_t returned; /* vertices given back their rigger's weights by the check */
    uint32_t dropped;  /* chains the check dropped */
    uint32_t clip_count;
    sinew_tail_guard_clip *clips; /* clip_count entries when guarded (after the check) */
    int vrm;                      /* 1 when VRMC_springBone was written (vrm_springs) */
    sinew_vrm_fit vrm_fit;        /* its fit and predicted error, when vrm */
    sinew_allocator allocator;
} sinew_tail_result;

/* Runs the job on `doc` (edited in place; see the header). `options` may be
 * NULL. On a model with nothing to grow the document is left unchanged and result->model is
 * NULL. Free the result with sinew_tail_result_free, whatever the outcome. */
sinew_result sinew_tail_run(sinew_document *doc, const sinew_tail_options *options,
                            sinew_tail_result *result, sinew_error *err);
void sinew_tail_result_free(sinew_tail_result *result);

#ifdef __cplusplus
}
#endif
#endif
