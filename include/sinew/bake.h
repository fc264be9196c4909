/* sinew bake: simulate the tail over every clip and record real rotation keys, so the motion
 * plays in Blender, Unity, Unreal and three.js without sinew's runtime (after Sidorkin,
 * "Animating tails the auto-rigger never gave a bone", on tails outside its own runtime).
 *
 * For a looping clip (first pose equals last) the clip runs silently, pass after pass, until
 * the tail's state (particle positions and velocities) at the end of a pass returns to where
 * the pass began: a loop baked from a cold state does not close and the tail jumps when the
 * loop restarts, and the tip, the most flexible link, takes longest to settle, so one warm-up
 * pass is not always enough. Then one more pass is recorded. With the params' idle sway on,
 * the sway's period is set to the clip's duration (sinew_dyn_params.idle_period), so the
 * forced tail has a cycle of the clip's length to settle on and the loop still closes. A
 * non-looping clip starts settled in its first pose. Keys are written at the clip's own rate (at
 * least 30 per second) into the same animation, for the chain joints only: no other channel
 * changes. With sinew_bake_options.key_degrees each joint keeps only the keys a player needs to
 * play its track within that tolerance (the reduction `sinew solve` writes with).
 *
 * The bake reads the model and never writes it (or any caller pose): each clip runs on its
 * own state and buffers (the article's lesson: clips that read a pose a preview had moved).
 */
#ifndef SINEW_BAKE_H
#define SINEW_BAKE_H

#include "sinew/document.h"
#include "sinew/dyn.h"
#include "sinew/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest clip a bake records, seconds: an hour. Motion-capture takes and game clips last
 * seconds to a few minutes; a clip longer than an hour is a stray key (a time of 1e6 s in a
 * one-second walk asked 3e7 keys: 70 s and 3.4 GB before failing). At the bake's highest rate,
 * 240 keys per second, an hour is 864,000 keys, 13.8 MB of rotations per chain joint, and its
 * passes take seconds; any value from the longest real clip to what memory allows is safe. */
#define SINEW_BAKE_MAX_DURATION 3600.0
/* The most chains one coupled bake steps together: a garment's (SINEW_RIG_MAX_GARMENT_CHAINS
 * in sinew/rig.h). */
#define SINEW_BAKE_MAX_CHAINS 16

/* Which chains a bake keeps out of the body's capsules (sinew_bake_options.colliders). */
typedef enum sinew_bake_colliders {
    SINEW_BAKE_COLLIDERS_AUTO = 0, /* the chains that need them (sinew_bake_colliders_on) */
    SINEW_BAKE_COLLIDERS_ON,       /* every chain */
    SINEW_BAKE_COLLIDERS_OFF       /* none */
} sinew_bake_colliders;

typedef struct sinew_bake_options {
    const sinew_dyn_params *params; /* spring parameters; default: NULL = the article's */
    float min_rate;                 /* keys per second at least; default: 30 */
    uint32_t max_passes;            /* warm-up passes at most for a looping clip; default: 64 */
    float closure_tolerance;        /* loop closed when every particle's position differs by less
                                       than this fraction of the model's scale between the start
                                       and the end of a pass (velocities by this fraction of
                                       scale per second); default: 1e-4 */
    float settle_seconds;           /* a non-looping clip holds its first pose up to this long to
                                       settle before recording (it stops early once still);
                                       default: 30 s; at most 3600 s (larger is taken as that) */
    float key_degrees;              /* > 0: each joint's written rotation track keeps only the
                                       keys a player needs to play it within this many degrees
                                       of the track keyed at every step (sinew_channel_reduce;
                                       first and last kept, so a loop stays closed); default 0:
                                       a key at every step of the clip's rate */
    /* The tracks' arrays and the bake's working memory (recorded in each track); default:
     * malloc. Edits to the model (sinew_bake_apply_model) use the model's own. */
    const sinew_allocator *allocator;
    /* Body colliders (sinew/dyn.h, "body colliders"): capsules of the model being baked
     * (sinew_body_capsules in sinew/pipeline.h derives them), used by the chains
     * sinew_bake_colliders_on says need them; NULL / 0: none. */
    const sinew_dyn_capsule *capsules;
    uint32_t capsule_count;
    sinew_bake_colliders colliders; /* default: SINEW_BAKE_COLLIDERS_AUTO */
} sinew_bake_options;

/* Whether the bake keeps a chain with `params` (NULL: the defaults) out of the capsules in
 * `options` (which may be NULL: no capsules, so 0). SINEW_BAKE_COLLIDERS_ON and _OFF say so;
 * AUTO turns them on for a chain that rests lower or nearer its modelled shape than a tail at
 * the defaults: a carry below the default 50 degrees (or switched off, SINEW_DYN_NO_CARRY), or
 * any share of the modelled curve kept (rest_curve > 0). Wings rest as modelled, so they get
 * colliders; a tail with the default carry and centred arc is held above the hind legs by the
 * carry and behind them by the forward plane, and skips their cost (the tail job turns them on
 * for one it finds entering a leg). Garments would get them too; sinew_bake_garment turns
 * AUTO on for a garment the thighs drive (a skirt from the pelvis) and off for the others (a
 * cape). */
int sinew_bake_colliders_on(const sinew_bake_options *options, const sinew_dyn_params *params);

/* One clip's baked tail. Arrays are allocated with the bake options' allocator, which the
 * track keeps (`allocator`), so that sinew_bake_track_free needs nothing else. */
typedef struct sinew_bake_track {
    uint32_t clip;   /* index into model->clips */
    int looping;     /* 1 when the clip's first and last poses agree */
    uint32_t passes; /* silent passes run before recording (0 for non-looping) */
    int closed;      /* 1 when the state returned within tolerance (always 1 for
                        non-looping clips) */
    float rate;      /* keys per second */
    uint32_t key_count;
    float *times; /* key_count, seconds, from 0 to the clip's duration */
    uint32_t joint_count;
    int32_t *nodes;            /* joint_count model node indices (the chain, root first) */
    sinew_quat *rotations;     /* key_count * joint_count local rotations, key-major */
    float drift_degrees;       /* largest angle between a joint's first and last key as
                                  simulated, before a looping clip's residual is spread over the
                                  loop (how far the warm-up left the cycle from its start) */
    float seam_degrees;        /* the same in the written keys (0 for looping clips) */
    float swing_degrees;       /* largest angle between any key and the first, over joints */
    float key_tolerance;       /* radians: options->key_degrees, what the apply functions reduce
                                  each joint's keys to (0: every key is written) */
    float tip_swing_degrees;   /* largest angle between the direction from the chain's root to
                                  its tip, in the chain parent's frame, at any key and at the
                                  first: how far the tip swings relative to the body */
    uint32_t capsule_count;    /* body capsules the chain was kept out of (0: colliders off) */
    sinew_allocator allocator; /* what the arrays were allocated with */
} sinew_bake_track;

/* Bakes clip `clip` of `model` for `chain` (NULL: the Tail_* joints, found by name). The
 * spring rig is made for the clip with the options' parameters, its internal step set to
 * divide the key spacing so that a loop can close exactly. SINEW_ERR_INVALID_VALUE, naming
 * the clip, its duration and the keys it would need, when the duration is not finite or
 * longer than SINEW_BAKE_MAX_DURATION. Errors of sinew_dyn_rig_create (SINEW_ERR_NOT_FOUND: no
 * Tail_* chain) pass through. */
sinew_result sinew_bake_clip(const sinew_model *model, const sinew_dyn_chain_desc *chain,
                             uint32_t clip, const sinew_bake_options *options,
                             sinew_bake_track *out, sinew_error *err);

/* Frees the arrays of a track (not the struct) with the allocator they were made with (the
 * track's) and sets them to NULL, keeping the summary fields. NULL is fine. */
void sinew_bake_track_free(sinew_bake_track *track);

/* Writes a track as LINEAR rotation channels of the chain nodes into the clip's animation in
 * `doc` (the document the model was built from, or one it was written into), replacing any
 * existing rotation channels of those nodes; each joint's keys reduced to track->key_tolerance
 * when it is above 0 (the same keys sinew_bake_apply_model puts into the model). */
sinew_result sinew_bake_apply_document(sinew_document *doc, const sinew_model *model,
                                       const sinew_bake_track *track, sinew_error *err);

/* Puts a track into the model's clip as LINEAR rotation channels of the chain nodes (replacing
 * existing ones), reduced as sinew_bake_apply_document reduces them, so the model plays what
 * the document will. */
sinew_result sinew_bake_apply_model(sinew_model *model, const sinew_bake_track *track,
                                    sinew_error *err);

/* Bakes every clip of `model` for the Tail_* chain (found by name with the options' params)
 * and applies each track to `doc` (when not NULL) and to the model. `summaries` (may be NULL)
 * receives clip_count tracks with their arrays freed (NULL): counts, passes, seam, swing.
 * SINEW_ERR_NOT_FOUND when the model has no Tail_* chain. */
sinew_result sinew_bake_all(sinew_document *doc, sinew_model *model,
                            const sinew_bake_options *options, sinew_bake_track *summaries,
                            sinew_error *err);

/* Bakes a wing chain (`chain`, as sinew_bake_clip takes it) over every clip with the wing
 * preset's springs (SINEW_DYN_PRESET_WING: stiffer than a tail's, resting as modelled with no
 * carry and no gravity, its bend limits; docs/springs.md), with no floor and no forward plane;
 * the other fields of options->params (steps, teleport, idle sway) apply. Applied to `doc`
 * (when not NULL) and to the model, as sinew_bake_all does. */
sinew_result sinew_bake_wing(sinew_document *doc, sinew_model *model,
                             const sinew_dyn_chain_desc *chain, const sinew_bake_options *options,
                             sinew_error *err);

/* Bakes every wing chain the model has by name (Wing_L_1 .. Wing_L_K with Wing_L_End, and the
 * same for R, as `sinew tail` names them) with sinew_bake_wing; *chains gets how many (0: no
 * wing, not an error). */
sinew_result sinew_bake_wings(sinew_document *doc, sinew_model *model,
                              const sinew_bake_options *options, uint32_t *chains,
                              sinew_error *err);

/* sinew_bake_wing for an ear chain: the ear preset's springs (SINEW_DYN_PRESET_EAR: stiffer and
 * more damped than a wing's), no floor, no forward plane. */
sinew_result sinew_bake_ear(sinew_document *doc, sinew_model *model,
                            const sinew_dyn_chain_desc *chain, const sinew_bake_options *options,
                            sinew_error *err);

/* sinew_bake_wings for the ear chains (Ear_L_1 .. Ear_L_End, Ear_R_*), with sinew_bake_ear. */
sinew_result sinew_bake_ears(sinew_document *doc, sinew_model *model,
                             const sinew_bake_options *options, uint32_t *chains, sinew_error *err);
/* Bakes clip `clip` for `count` chains (1 .. SINEW_BAKE_MAX_CHAINS, in order around a
 * garment) stepped together, one track each into out[count]. After every step neighbouring
 * chains' particles (chain k's j-th and chain k+1's j-th, over the rows all chains have; with
 * `ring` also the last chain's and the first's) are pulled back towards the distances they
 * had at rest in the clip's first pose, and their closing speed along that line is damped, so
 * a ring of chains keeps its shape; with body capsules the cloth between two neighbouring
 * chains and two rows is then kept on the capsules' outer side (the body is inside a
 * garment); each chain is then stepped again with dt 0, so its rotations show the coupled
 * particles. A loop closes when every chain's state has returned.
 * Errors as sinew_bake_clip's; SINEW_ERR_ARGUMENT for a count out of range. */
sinew_result sinew_bake_clip_coupled(const sinew_model *model, const sinew_dyn_chain_desc *chains,
                                     uint32_t count, int ring, uint32_t clip,
                                     const sinew_bake_options *options, sinew_bake_track *out,
                                     sinew_error *err);

/* Bakes one garment's chains (as sinew_bake_clip_coupled takes them) over every clip with the
 * tail's springs (the caller's params) resting as modelled (no carry), under gravity, without the
 * tail's forward plane; the other fields of options->params apply. A garment whose chains hang from
 * the joint the hind legs hang from (a skirt from the hips, found by sinew_rig_find_landmarks)
 * is driven by the thighs: each chain that brings no drivers of its own gets both thighs as
 * rest drivers (sinew/dyn.h, "rest drivers"; thigh to its farthest child joint, weight 0.7),
 * and colliders AUTO means on; any other garment keeps AUTO off. Applied to `doc` (when not
 * NULL) and to the model, as sinew_bake_all does. */
sinew_result sinew_bake_garment(sinew_document *doc, sinew_model *model,
                                const sinew_dyn_chain_desc *chains, uint32_t count, int ring,
                                const sinew_bake_options *options, sinew_error *err);

/* Bakes every garment the model has by name (Garment_<k>_1 .. Garment_<k>_K with
 * Garment_<k>_End, k = 1, 2, .. as `sinew tail --garment chains` names them) with
 * sinew_bake_garment. Consecutive chains hanging from one joint with as many links are one
 * garment; it is a ring when it has three chains or more and its last chain's root is no
 * farther from its first's than 1.5 times the largest spacing of neighbouring roots.
 * *chains gets how many chains were baked (0: no garment, not an error). */
sinew_result sinew_bake_garments(sinew_document *doc, sinew_model *model,
                                 const sinew_bake_options *options, uint32_t *chains,
                                 sinew_error *err);

#ifdef __cplusplus
}
#endif
#endif
