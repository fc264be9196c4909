/* sinew rig: find appendages a template auto-rigger missed (tails, capes, ears, quivers) and
 * give a tail its own bone chain (seed 000, "Encontrando a cauda" .. "Etapa dois").
 *
 * Pipeline (each step is one source file in src/rig/):
 *   1. landmarks.c  pelvis, spine, thighs and head on any skeleton (names when they agree
 *                   with the topology, else topology and geometry alone), and "up".
 *   2. distance.c   distance of every vertex to the bind-space bone segments; far beyond
 *                   7% of the model's size.
 *   3. pieces.c     connected components of far skin over the welded face graph, each
 *                   piece's collar (the ring right outside it), the mesh's shells.
 *   4. classify.c   attach joint (nearest to the collar centre; a torso/thigh joint within
 *                   1.5x of the best wins, never over the head), appendage test (centroid-to-
 *                   skeleton distance >= 40% of the piece's reach), elongation sqrt(l1/l2),
 *                   merging of pieces at one attachment whose boxes overlap by more than half
 *                   (and of pieces of one separate shell), verdicts.
 *   5. chain.c      geodesic distance from the collar (Dijkstra on edge lengths), L = p99,
 *                   K = clamp(round(L / 0.1 H), 3, 8), joints at band centroids, two
 *                   smoothing passes, prev/self/next weights.
 *   6. apply.c      writes the chain into a sinew_model and into the glTF document.
 *
 * Where sinew goes beyond the seed (each measured on the shared models, see tests/rig):
 *   - Rump skin at a slanted tail root: far skin beside the root joint (not beyond it) whose
 *     surface faces down the tail (outward normal . first bone direction) more than the
 *     tail's own skin one segment out does (its 90th percentile) and more than 0.2 (11.5
 *     degrees) keeps the rigger's weights: it is the rump the tail sticks out of (quaternius
 *     Velociraptor precision 0.931 -> 0.976, quaternius fox 0.959 -> 1.000). Per vertex,
 *     no angle threshold on the collar: tail skin there measures at most 0.11, rump skin at
 *     least 0.32, and a conical tail (T-Rex) raises its own limit to 0.49; see
 *     src/rig/chain.c.
 *   - Welding joins positions closer than 0.03% of H, not only identical ones: material
 *     groups are split with hairline gaps (the Quaternius fox's tail tip floats 0.02% of H off
 *     the rest of its tail, which made it a second, collar-less piece).
 *   - A tail that continues the body's surface (one welded mesh and a thick quadruped torso:
 *     the Khronos fox) joins the far skin of the haunches into one piece that fails the
 *     appendage test. Such pieces at the torso reaching 3x the far threshold are split into
 *     lobes by a watershed on the distance field (persistence 10% of the threshold); a lobe
 *     that becomes a chain is kept, and in its first segment skin under 1.4x the threshold
 *     (the rump ring around the tail's root) is given back to the body.
 *   - A chain piece also owns the near vertices of its own separate shell(s) (a tail modelled
 *     as its own shell sunk into the body: its root rings) and the one ring right outside it
 *     whose vertices are mostly surrounded by it and nearer the new chain than any bone (the
 *     far threshold cuts a slanted tail root in two).
 *
 * The size H. Seed 000 measures thresholds against the height of its upright 1.91 m fox. sinew
 * uses sinew_model.size.scale = max(height, longest horizontal extent) of the bind-space mesh
 * box instead: for an upright biped it is the height (the seed's H), and for a horizontal
 * quadruped or lizard it is the body length, which is what a tail's length and thickness
 * scale with. (Height alone would make a lizard's belly "far" from its spine and give its tail
 * eight bones.) Because bind space is not always Y-up (FBX exports put Z up in bind space),
 * the max over all three extents is the only orientation-free choice; "up" itself is only
 * used to find legs and is taken from the scene graph (see sinew_rig_landmarks.up).
 *
 * Everything here is deterministic and allocation happens only in the build calls (through
 * the options' allocator). Nothing here prints.
 */
#ifndef SINEW_RIG_H
#define SINEW_RIG_H

#include "sinew/base.h"
#include "sinew/math.h"
#include "sinew/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_document sinew_document; /* sinew/document.h */

#define SINEW_RIG_MAX_SPINE 32   /* spine joints kept in sinew_rig_landmarks */
#define SINEW_RIG_MAX_SEGMENTS 8 /* K's upper clamp (seed 000) */
#define SINEW_RIG_NAME_MAX 64
#define SINEW_RIG_REASON_MAX 200

/* What part of the body a skin joint belongs to. */
typedef enum sinew_rig_region {
    SINEW_RIG_REGION_INVALID = 0,
    SINEW_RIG_REGION_PELVIS, /* the pelvis, its ancestors and its helper leaves */
    SINEW_RIG_REGION_SPINE,  /* joints from the pelvis up to the head (neck included) */
    SINEW_RIG_REGION_HEAD,   /* the head and everything under it */
    SINEW_RIG_REGION_THIGH,  /* the first bone(s) of each hind leg (hip sockets) */
    SINEW_RIG_REGION_LEG,    /* the rest of the hind legs */
    SINEW_RIG_REGION_LIMB,   /* arms, front legs, existing tails: chains off pelvis/spine */
    SINEW_RIG_REGION_OTHER   /* IK targets and helpers outside the body tree */
} sinew_rig_region;

/* Landmarks of a skeleton. Joint indices index sinew_model.skin.joints; -1 when absent. */
typedef struct sinew_rig_landmarks {
    int32_t pelvis;   /* where the hind legs branch; the chain's parent */
    int32_t head;     /* -1 when the skeleton has no head branch */
    int32_t thigh[2]; /* the hip-socket joints of the two hind legs, -1 when absent */
    uint32_t spine_count;
    int32_t spine[SINEW_RIG_MAX_SPINE]; /* pelvis (excluded) .. head (excluded), in order */
    sinew_vec3 up;      /* unit world +Y expressed in bind space (from the skeleton root's
                           scene-graph transform; +Y when that is unusable) */
    int pelvis_by_name; /* 1 when no joint has two legs and a name (hips, hip, pelvis)
                           decided; on a tie between two-legged joints a name wins too */
} sinew_rig_landmarks;

/* Finds pelvis, spine, thighs and head. `regions` (optional, joint_count bytes) receives a
 * sinew_rig_region per skin joint. Legs are chains of at least two joints that reach the
 * lowest 35% of the mesh and drop at least 20% of it from their branch joint; the pelvis is
 * the shallowest joint with two legs (Mixamo Hips, Quaternius Back/Body, Khronos b_Hip_01,
 * unnamed skeletons alike). Fails with SINEW_ERR_ARGUMENT when the model has no joints. */
sinew_result sinew_rig_find_landmarks(const sinew_model *model, sinew_rig_landmarks *out,
                                      uint8_t *regions, sinew_error *err);

typedef enum sinew_rig_mode {
    SINEW_RIG_MODE_CHAIN = 0, /* default: Tail_1..Tail_K + Tail_End, prev/self/next weights */
    SINEW_RIG_MODE_RIGID      /* seed's step one: every appendage vertex on the pelvis, w = 1 */
} sinew_rig_mode;

typedef struct sinew_rig_options {
    const sinew_allocator *allocator; /* default: malloc */
    sinew_rig_mode mode;              /* default: SINEW_RIG_MODE_CHAIN */
    int dress_spine;         /* default 0: long pieces on the spine stay unchanged; 1: every
                                vertex of such a piece gets weight 1 on its attach joint */
    float far_fraction;      /* far threshold as a fraction of H; default: 0.07 (seed) */
    float centroid_ratio;    /* appendage test, fraction of reach; default: 0.40 (seed) */
    float min_elongation;    /* sqrt(l1/l2) at or above which a piece is long; default:
                                1.6 (seed: a tail ~2.6, a cape or skirt ~1) */
    float attach_preference; /* torso/thigh joint wins within this factor of the nearest
                                joint's distance; default: 1.5 (seed) */
    float segment_fraction;  /* K = round(L / (this * H)); default: 0.1 (seed) */
    /* Width of the zone around each chain joint where neighbouring bones share skin, as a
     * fraction of a segment: w_prev = clamp(0.5 - f/w, 0, 0.5), w_next = clamp((f - 1 +
     * w/2)/w, 0, 0.5). 0.5 is the seed's formula (a quarter segment each side: 0.5 - 2f and
     * 2f - 1.5); the default 1 shares skin across the whole segment, because with the seed's
     * quarter the inner side of a bend collapses below 0.67 of its length once the carried
     * rest arc bends each joint 12-20 degrees (procedural fox Sprint: 347 torn edge samples
     * with 0.5, none with 1; see tests/motion). Range (0, 1]. */
    float blend_width;
} sinew_rig_options;

typedef enum sinew_rig_verdict {
    SINEW_RIG_VERDICT_INVALID = 0,
    SINEW_RIG_VERDICT_CHAIN,   /* long piece hanging from the pelvis: gets a bone chain */
    SINEW_RIG_VERDICT_RIGID,   /* the same piece in --mode rigid: all weight on the pelvis */
    SINEW_RIG_VERDICT_BODY,    /* not an appendage: its centroid falls back onto a bone */
    SINEW_RIG_VERDICT_HEAD,    /* hangs from the head (ears): unchanged */
    SINEW_RIG_VERDICT_GARMENT, /* wide piece at the waist or on the torso (skirt, cape) */
    SINEW_RIG_VERDICT_SPINE,   /* long piece on the spine (quiver, sheath, strap): unchanged */
    SINEW_RIG_VERDICT_DRESSED, /* the same with dress_spine: weight 1 on its spine bone */
    SINEW_RIG_VERDICT_LIMB,    /* hangs from an arm or leg (sleeve): unchanged */
    SINEW_RIG_VERDICT_MERGED   /* merged into another piece (fur over skin) */
} sinew_rig_verdict;

/* Short lower-case name of a verdict ("chain", "body", ...). Never NULL. */
const char *sinew_rig_verdict_name(sinew_rig_verdict verdict);
/* Short lower-case name of a region ("pelvis", "spine", ...). Never NULL. */
const char *sinew_rig_region_name(sinew_rig_region region);

/* One connected piece of far skin (after merging: one appendage). */
typedef struct sinew_rig_piece {
    sinew_rig_verdict verdict;
    char reason[SINEW_RIG_REASON_MAX]; /* why, with the numbers that decided it */
    uint32_t vertex_count;             /* original (unwelded) vertices, merged shells included */
    uint32_t far_count;                /* of which far from every bone (the rest: the piece's own
                                          shell near its root, see sinew_rig_report.vertex_piece) */
    uint32_t merged_shells;            /* far pieces that make it up (1 when nothing was merged) */
    int32_t merged_into;               /* piece index when verdict is MERGED, else -1 */
    int32_t attach_joint;              /* skin joint it hangs from */
    sinew_rig_region attach_region;
    sinew_vec3 collar_centre;    /* bind space: centre of the near ring around the piece */
    sinew_vec3 box_min, box_max; /* bind-space box of the piece */
    float reach;                 /* file units: largest vertex distance to the skeleton */
    float centroid_distance;     /* file units: centroid's distance to the skeleton */
    float centroid_ratio;        /* centroid_distance / reach */
    float elongation;            /* sqrt(l1 / l2) of the covariance */
    float length;                /* L: p99 geodesic distance from the collar, file units (chain
                                    and rigid pieces; 0 otherwise) */
    uint32_t segments;           /* K for chain pieces, else 0 */
    float radius;                /* chain pieces: mean distance of the skin to the chain, units */
    float distance_before;       /* mean weighted distance of the piece's skin to the bones
                                    that move it, before (file units) */
    float distance_after;        /* the same after the chain/rigid/dress step (equals before
                                    for pieces left unchanged) */
} sinew_rig_piece;

typedef struct sinew_rig_report {
    sinew_rig_landmarks landmarks;
    float scale;         /* H: sinew_model.size.scale */
    float far_threshold; /* far_fraction * H, file units */
    uint32_t piece_count;
    sinew_rig_piece *pieces;
    uint32_t vertex_count;
    /* Per vertex: the piece it belongs to (after merging), or UINT32_MAX. A piece owns its far
     * vertices and, for chain/rigid pieces, the near vertices of its own separate shell(s)
     * and of its root ring (see above; a tail's root would otherwise keep the shin). */
    uint32_t *vertex_piece;
    float *vertex_distance; /* per vertex: distance to the skeleton, file units */
    sinew_allocator allocator;
    struct sinew_rig_analysis *analysis; /* private: graph and collars kept for
                                            sinew_rig_build_chain */
} sinew_rig_report;

/* Pure analysis: fills `report` (zeroed first; free it with sinew_rig_report_free). Verdicts
 * depend on options (mode, dress_spine). Fails with SINEW_ERR_ARGUMENT on a model without
 * joints or mesh, SINEW_ERR_OUT_OF_MEMORY on allocation failure. */
sinew_result sinew_rig_find_appendages(const sinew_model *model, const sinew_rig_options *options,
                                       sinew_rig_report *report, sinew_error *err);
void sinew_rig_report_free(sinew_rig_report *report);

/* A new bone: bind-space joint frame = pelvis bind rotation/scale + `head`. */
typedef struct sinew_rig_bone {
    char name[SINEW_RIG_NAME_MAX]; /* "Tail_1" .. "Tail_K", "Tail_End" */
    int32_t parent;                /* model node index of the parent (the pelvis) for the first
                                      bone, or -(1 + b) for bone b of the same chain */
    sinew_transform local;         /* translation only (rotation identity, scale 1) in the parent */
    sinew_mat4 inverse_bind;
    sinew_vec3 head; /* bind-space joint position J_i */
} sinew_rig_bone;

typedef struct sinew_rig_chain {
    uint32_t piece;      /* index into the report's pieces */
    uint32_t bone_count; /* K + 1 (Tail_End last, unweighted) */
    sinew_rig_bone bones[SINEW_RIG_MAX_SEGMENTS + 1];
    uint32_t first_joint; /* skin joint index the first bone will get (joints are appended) */
} sinew_rig_chain;

/* The edit: new bones and the complete new influence arrays (unchanged vertices copied
 * bit for bit from the model). */
typedef struct sinew_rig_plan {
    uint32_t chain_count;
    sinew_rig_chain *chains;
    uint32_t vertex_count;
    uint16_t *joints; /* vertex_count * SINEW_MAX_INFLUENCES (new joint indices included) */
    float *weights;   /* vertex_count * SINEW_MAX_INFLUENCES, sorted descending, sum 1 */
    uint8_t *changed; /* vertex_count: 1 where the influences differ from the model's */
    uint32_t changed_count;
    sinew_allocator allocator;
} sinew_rig_plan;

/* Builds the chains and weights for every CHAIN, RIGID and DRESSED piece of `report` (from
 * sinew_rig_find_appendages on the same model and options) and fills the pieces'
 * length, segments, radius and distance_after. At most 4 influences per changed vertex,
 * normalised; on a tie the chain bone comes before the pelvis. Free with
 * sinew_rig_plan_free. */
sinew_result sinew_rig_build_chain(const sinew_model *model, const sinew_rig_options *options,
                                   sinew_rig_report *report, sinew_rig_plan *plan,
                                   sinew_error *err);
void sinew_rig_plan_free(sinew_rig_plan *plan);

/* Applies `plan` to the document `doc` that `model` was built from: adds the bones as nodes
 * under the pelvis node, appends them to the skin with their inverse bind matrices, and
 * replaces JOINTS/WEIGHTS only of primitives that hold a changed vertex. Clips are left
 * untouched (no clip references the new bones). Call before sinew_rig_apply_model. */
sinew_result sinew_rig_apply_document(sinew_document *doc, const sinew_model *model,
                                      const sinew_rig_plan *plan, sinew_error *err);

/* Applies `plan` to `model` itself: appends the bone nodes and skin joints (rest = local,
 * bind from the inverse bind matrices) and copies the new influences. */
sinew_result sinew_rig_apply_model(sinew_model *model, const sinew_rig_plan *plan,
                                   sinew_error *err);

#ifdef __cplusplus
}
#endif
#endif
