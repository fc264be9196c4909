/* sinew rig: find the appendages a template auto-rigger gave no bones (tails, ears, horns, long
 * pieces on the back) and give a tail its own bone chain. The method is explained in
 * docs/appendages.md; in short:
 *
 *   1. landmarks.c   pelvis, spine, thighs and head on any skeleton, from its topology and
 *                    geometry (names only break ties), and "up" from the poses the file plays.
 *   2. distance.c    the bone segments (joints that deform skin) and every vertex's distance
 *                    to them.
 *   3. pieces.c      the welded mesh graph (exporters split vertices at seams), its triangles
 *                    and its separate shells.
 *   4. protrusion.c  walks from every tip of the surface along its geodesic cross-sections
 *                    until a bone passes through one: the skin before that is a protrusion no
 *                    bone runs inside.
 *   5. classify.c    which protrusions are appendages and what they are: where each hangs from
 *                    (the joint nearest its root, a torso or thigh joint preferred), how long
 *                    it is against its thickness; a long one at the pelvis is a tail.
 *   6. chain.c       the chain along a tail (joints at the centres of its cross-sections,
 *                    K = clamp(round(L / 0.1 H), 3, 8) segments) and its skin weights;
 *                    wing.c and ear.c find mirrored pairs of wings and (on request) ears and
 *                    give each a chain, the pair's mirror images of each other.
 *   7. apply.c       writes the chain into a sinew_model and into the glTF document.
 *
 * Lengths are relative to H = sinew_model.size.scale = max(height, longest horizontal extent)
 * of the bind-space mesh box: for an upright biped the height, for a horizontal quadruped the
 * body length, which is what a tail's length scales with. Because bind space is not always
 * Y-up (FBX exports put Z up), the max over all three extents is the only orientation-free
 * choice.
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

#define SINEW_RIG_MAX_SPINE 32          /* spine joints kept in sinew_rig_landmarks */
#define SINEW_RIG_MAX_SEGMENTS 8        /* K's upper clamp (the published method's) */
#define SINEW_RIG_MAX_GARMENT_CHAINS 16 /* chains around one garment at most */
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
    SINEW_RIG_MODE_RIGID      /* the simplest fix: every appendage vertex on the pelvis, w = 1 */
} sinew_rig_mode;

/* What a chain's root blends into (see chain.c and docs/appendages.md, "The chain"). */
typedef enum sinew_rig_root_blend {
    SINEW_RIG_ROOT_PELVIS = 0, /* default: the root segment shares its skin with the pelvis */
    SINEW_RIG_ROOT_BODY        /* with the rigger's weights of the body skin it meets, and the
                                  blend carries on a half segment into that skin (the
                                  collar): the seam moves as its neighbours do */
} sinew_rig_root_blend;

/* A garment reaches at least this far down its surface, in H: the procedural cape 0.60 H and
 * the skirt's hem 0.16 H as the finder measures them (the skirt's upper part rides the hips'
 * bones); the only other sheet on those bodies is 0.05 H, on the head. Safe from 0.06 to
 * 0.15 H. */
#define SINEW_RIG_GARMENT_LENGTH 0.1f
/* A garment is broad: its width halfway down (round a ring, across a sheet) at least this, in
 * H. Measured: the procedural cape 0.33 H, the skirt 0.77 H round; the sheets on their own
 * surfaces that `--garment chains` must leave alone on the shared models are narrow: the
 * quaternius Character's two 0.05 H strips at the neck, the UM pigeon's 0.11 H and the UM
 * demon's 0.13 H pieces at the neck (rigid on the neck as rigged, and better so: chained they
 * tore up to 3.8% of their edge samples). Safe from 0.14 to 0.32 H. */
#define SINEW_RIG_GARMENT_WIDTH 0.2f

/* What becomes of a garment: a cape or skirt modelled as its own surface (see garment.c). */
typedef enum sinew_rig_garment {
    SINEW_RIG_GARMENT_LEAVE = 0, /* default: left as the rigger weighted it (a sheet) */
    SINEW_RIG_GARMENT_CHAINS     /* N chains around it, Garment_<k>_<j>, coupled when baked */
} sinew_rig_garment;

typedef struct sinew_rig_options {
    const sinew_allocator *allocator; /* default: malloc */
    sinew_rig_mode mode;              /* default: SINEW_RIG_MODE_CHAIN */
    int dress_spine;         /* default 0: long pieces on the spine stay unchanged; 1: every
                                vertex of such a piece gets weight 1 on its attach joint */
    float min_elongation;    /* length / thickness (2 x radius) at or above which a piece at
                                the pelvis is a tail; default: 1.0 (see classify.c) */
    float attach_preference; /* a torso or thigh joint is the attachment within this factor of
                                the nearest joint's distance; default: 1.5 */
    float segment_fraction;  /* K = round(L / (this * H)); default: 0.1 */
    /* Width of the zone around each chain joint where neighbouring bones share skin, as a
     * fraction of a segment: w_prev = clamp(0.5 - f/w, 0, 0.5), w_next = clamp((f - 1 +
     * w/2)/w, 0, 0.5). 0.5 gives 0.5 - 2f and 2f - 1.5 (a quarter segment each side); the
     * default 1 shares skin across the whole segment, because with the quarter the inner side
     * of a bend collapses below 0.67 of its length once the carried rest arc bends each joint
     * 12-20 degrees (procedural fox Sprint: 347 torn edge samples with 0.5, none with 1; see
     * tests/motion). Range (0, 1]. */
    float blend_width;
    sinew_rig_root_blend root_blend; /* default SINEW_RIG_ROOT_PELVIS; `sinew tail` tries
                                        both and keeps the one whose skin strains less */
    /* What the user says is right when the finder is wrong (all default to "automatic"):
     * tail_from names the joint the chain hangs from (and makes the longest piece near it a
     * tail); chain_pieces lists report rows to chain whatever their verdict; skip_pieces rows
     * to leave alone. Row numbers are those of a run without these options. */
    const char *tail_from;
    const uint32_t *chain_pieces;
    uint32_t chain_piece_count;
    const uint32_t *skip_pieces;
    uint32_t skip_piece_count;
    /* 1: ears get chains (SINEW_RIG_VERDICT_EAR: Ear_L_*, Ear_R_*, two or three segments from
     * the head); default 0: they stay rigid with the head (SINEW_RIG_VERDICT_HEAD), and the
     * analysis is bit for bit what it is without this field */
    int ears;
    sinew_rig_garment garment; /* default SINEW_RIG_GARMENT_LEAVE */
    uint32_t garment_chains;   /* chains around each garment, 2 .. SINEW_RIG_MAX_GARMENT_CHAINS;
                                  default 0: from its width against its segment length */
} sinew_rig_options;

typedef enum sinew_rig_verdict {
    SINEW_RIG_VERDICT_INVALID = 0,
    SINEW_RIG_VERDICT_CHAIN,   /* long piece hanging from the pelvis: gets a bone chain */
    SINEW_RIG_VERDICT_RIGID,   /* the same piece in --mode rigid: all weight on the pelvis */
    SINEW_RIG_VERDICT_HEAD,    /* hangs from the head (ears, horns, a frill): unchanged */
    SINEW_RIG_VERDICT_SPINE,   /* on the back or neck (plates, a mane, a quiver): unchanged */
    SINEW_RIG_VERDICT_DRESSED, /* the same with dress_spine: weight 1 on its spine bone */
    SINEW_RIG_VERDICT_LIMB,    /* hangs from an arm or leg (a sleeve, a claw): unchanged */
    SINEW_RIG_VERDICT_SKIPPED, /* would have been chained; the user said to leave it */
    SINEW_RIG_VERDICT_BUMP,    /* at the pelvis but too short for a tail: unchanged */
    SINEW_RIG_VERDICT_SHEET,   /* a sheet, not a tube (a cape, a flap): unchanged */
    SINEW_RIG_VERDICT_MERGED,  /* merged into another piece (fur over skin) */
    SINEW_RIG_VERDICT_WING,    /* broad and flat, on the shoulders, upper back or an arm, one
                                  of a mirrored pair: gets a chain along its span (wing.c) */
    SINEW_RIG_VERDICT_EAR,     /* with sinew_rig_options.ears: long, flat across, on the head,
                                  one of a mirrored pair: a short chain (ear.c) */
    SINEW_RIG_VERDICT_GARMENT  /* a sheet on a surface of its own (a cape, a skirt), with
                                  SINEW_RIG_GARMENT_CHAINS: chains around it (garment.c) */
} sinew_rig_verdict;

/* Short lower-case name of a verdict ("chain", "body", ...). Never NULL. */
const char *sinew_rig_verdict_name(sinew_rig_verdict verdict);
/* Short lower-case name of a region ("pelvis", "spine", ...). Never NULL. */
const char *sinew_rig_region_name(sinew_rig_region region);

/* One appendage: a protrusion no bone runs inside (after merging: fur over skin is one). */
typedef struct sinew_rig_piece {
    sinew_rig_verdict verdict;
    char reason[SINEW_RIG_REASON_MAX]; /* why, with the numbers that decided it */
    uint32_t vertex_count;             /* original (unwelded) vertices, merged shells included */
    uint32_t merged_shells;            /* protrusions that make it up (1 when nothing merged) */
    int32_t merged_into;               /* piece index when verdict is MERGED, else -1 */
    int32_t rides_on;                  /* a tail this piece sits on (a plate or spike modelled
                                          as its own shell on the tail's skin): merged into it
                                          and moving with it; else -1 */
    int32_t attach_joint;              /* skin joint it hangs from */
    sinew_rig_region attach_region;
    sinew_vec3 root;             /* bind space: centre of the cross-section where it leaves the
                                    body (the chain's first joint) */
    sinew_vec3 tip;              /* bind space: the vertex it grows towards */
    sinew_vec3 box_min, box_max; /* bind-space box of the piece */
    float length;                /* L: geodesic length from the root section to the tip, file
                                    units */
    float radius;                /* median cross-section radius, file units */
    float elongation;            /* length / (2 radius) */
    float protrusion;            /* distance of the tip from the root section's centre, in
                                    root-section radii: how far it sticks out */
    int sheet;                   /* 1 for a sheet (a cape, a flap) rather than a tube: its
                                    cross-sections mostly end on the mesh's boundary, or the
                                    piece is flat as a whole (see flatness) */
    float flatness;              /* sqrt of the smallest over the middle spread of its
                                    vertices: near 1 for a tube, near 0 for a flat piece */
    uint32_t segments;           /* K for chain pieces, else 0 */
    float distance_before;       /* mean weighted distance of the piece's skin to the bones
                                    that move it, before (file units) */
    float distance_after;        /* the same after the chain/rigid/dress step (equals before
                                    for pieces left unchanged) */
    int32_t wing_partner;        /* WING and EAR pieces: the mirrored piece of the pair, else -1 */
    int wing_side;               /* WING and EAR pieces: +1 left (Wing_L_*, Ear_L_*), -1 right */
    uint32_t garment_chains;     /* GARMENT pieces: chains around it, else 0 */
    int garment_ring;            /* GARMENT pieces: 1 for a ring around the body (a skirt),
                                    0 for an open sheet (a cape) */
} sinew_rig_piece;

typedef struct sinew_rig_report {
    sinew_rig_landmarks landmarks;
    float scale; /* H: sinew_model.size.scale */
    uint32_t piece_count;
    sinew_rig_piece *pieces;
    uint32_t small_count; /* protrusions too small to be appendages (bone ends: hooves, a
                             snout, finger tips): not listed, all unchanged */
    /* A tail the skeleton already has: the first joint of a chain hanging from the pelvis
     * that is no leg and whose name says tail, or -1. Nothing is grown then. */
    int32_t rigged_tail;
    uint32_t vertex_count;
    /* Per vertex: the piece it belongs to (after merging), or UINT32_MAX. */
    uint32_t *vertex_piece;
    float *vertex_distance; /* per vertex: distance to the skeleton, file units */
    sinew_allocator allocator;
    struct sinew_rig_analysis *analysis; /* private: graph and walks kept for
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
    int32_t parent;                /* model node index of the parent (the chain's) for the first
                                      bone, or -(1 + b) for bone b of the same chain */
    sinew_transform local;         /* translation only (rotation identity, scale 1) in the parent */
    sinew_mat4 inverse_bind;
    sinew_vec3 head; /* bind-space joint position J_i */
} sinew_rig_bone;

typedef struct sinew_rig_chain {
    uint32_t piece;      /* index into the report's pieces */
    uint32_t bone_count; /* K + 1 (Tail_End last, unweighted) */
    sinew_rig_bone bones[SINEW_RIG_MAX_SEGMENTS + 1];
    uint32_t first_joint;   /* skin joint index the first bone will get (joints are appended) */
    int32_t parent_joint;   /* skin joint the chain hangs from (the pelvis unless told; a wing's
                               torso joint nearest its root) */
    int wing;               /* 0 a tail; +1 a left wing, -1 a right wing (WING pieces) */
    int ear;                /* 0 a tail; +1 a left ear, -1 a right ear (EAR pieces) */
    uint32_t garment;       /* 0 no garment; else 1 + k, the chain's place around its garment
                               (Garment_<1 + k>_*): chain k's neighbours are k - 1 and k + 1 */
    uint32_t garment_count; /* GARMENT chains: the chains around that garment */
    int garment_ring;       /* GARMENT chains: 1 when they close a ring (chain 0 neighbours the
                               last), 0 across an open sheet */
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
    sinew_rig_root_blend root_blend; /* what the chains' roots blend into */
    sinew_allocator allocator;
} sinew_rig_plan;

/* Builds the chains and weights for every CHAIN, WING, EAR, RIGID and DRESSED piece of `report`
 * (from sinew_rig_find_appendages on the same model and options) and fills the pieces' length,
 * segments, radius and distance_after. At most 4 influences per changed vertex, normalised; on a
 * tie the chain bone comes before the pelvis. Free with sinew_rig_plan_free. */
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
