/* sinew creature: deterministic procedural test characters that carry their own ground truth.
 *
 * These creatures are the project's ground truth for tail rigging (seed 000, "Encontrando a
 * cauda" .. "Etapa dois") and the README's built-in example. Each looks like what a template
 * auto-rigger (Mixamo-style, Make-It-Animatable) leaves behind: a fixed skeleton with no bone
 * for the tail, cape or ears, and the appendage's skin dumped on the nearest legs. Every kind
 * is built in memory as a sinew_model (Y up, facing +Z, metres):
 *
 *   fox     anthropomorphic fox, 1.91 m, 22-bone Mixamo skeleton ("mixamorig:" prefix), about
 *           23,000 vertices / 29,000 triangles split at seams, a bushy 0.81 m tail hanging down
 *           and back between the legs as two overlapping shells (fur over skin, never welded),
 *           its skin weighted to the left shin and both thighs; clips Walk, Sprint, Crouch, Idle.
 *   mouse   1.0 m, Mixamo names without prefix, round ears, a long thin tail (0.88 m) that
 *           reaches the ground and curves to one side in bind pose, weighted to legs and hips.
 *   caped   a humanoid with a wide flat cape hanging from the upper spine.
 *   skirt   a humanoid with a garment around the waist weighted across hips and both thighs.
 *   quiver  a humanoid with a long narrow quiver on the upper back (hangs from the spine).
 *   rabbit  a humanoid with long ears on the head.
 *   lizard  a horizontal quadruped (length > height) with Quaternius-like names (Hips, Back,
 *           Chest, Neck, Head, FrontLeg.L ..) and a long tail behind the pelvis.
 *
 * The truth says, per vertex, which piece it belongs to, and per piece what the tail rigger
 * should decide (chain / unchanged / rigid-on-spine), the joint it should attach to and the
 * piece's modelled size. Building is deterministic: the same kind and options give the same
 * bits on every run (no clocks, no rand(); fur noise is a fixed integer hash of grid indices).
 *
 * What a rigger meets (seed 000's distance field, far = 7% of sinew_size.scale):
 *   - Every piece is its own shell (never welded to the body) whose root is sunk into the body,
 *     so most of it is far but a few rings at the root are near (fox tail: 5% of its vertices,
 *     the mouse's and lizard's about 2-5%); the truth labels the whole shell.
 *   - The torso is thick: far skin rings the chest, its centroid on the spine (body, unchanged).
 *     Head skin above the Head joint and the snout are far too (head pieces, unchanged), and a
 *     few isolated crotch vertices may be far by a hair. All of these are labelled body.
 *   - Tail skin is weighted the way a template rigger dumps it: the left shin (fox 0.30 at the
 *     root to 0.55 at the tip), the rest split between the two thighs by side, meeting in a
 *     narrow seam. In the fox's Walk its edges tear as seed 000's original rig did (24 moments:
 *     p99 3.0, max 4.6, 8.4% beyond 1.5 or below 0.67; the seed: 2.42, 4.03, 11.4%) while body
 *     edges stay at p99 1.16, max 1.72 (the seed's body reference: 1.29, 1.78). Weighted bone
 *     distance of the fox's tail skin: 0.51 m (seed: 0.47 m); body skin: 4 influences at most
 *     by a 1/d^4 falloff to the bones of its own limb or trunk.
 *   - Each tube is split into 4x4-quad patches that own their vertices (exporters split at UV
 *     and normal seams): the face graph falls into islands, welding by position joins them.
 *   - The vertex order of a file written by sinew_document_from_model is the model's, so
 *     vertex_piece indexes the file's vertices too.
 *
 * Every clip loops (its first key equals its last, bit for bit), has LINEAR keys at 30 fps and
 * animates every joint's rotation and the root's translation "in place" (no root motion).
 */
#ifndef SINEW_CREATURE_H
#define SINEW_CREATURE_H

#include "sinew/base.h"
#include "sinew/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sinew_creature_kind {
    SINEW_CREATURE_INVALID = 0,
    SINEW_CREATURE_FOX,
    SINEW_CREATURE_MOUSE,
    SINEW_CREATURE_CAPED,
    SINEW_CREATURE_SKIRT,
    SINEW_CREATURE_QUIVER,
    SINEW_CREATURE_RABBIT,
    SINEW_CREATURE_LIZARD,
    SINEW_CREATURE_KIND_COUNT /* one past the last kind */
} sinew_creature_kind;

/* What a piece of the mesh is. */
typedef enum sinew_creature_part {
    SINEW_CREATURE_PART_INVALID = 0,
    SINEW_CREATURE_PART_BODY,   /* the body: head, torso, limbs (never an appendage) */
    SINEW_CREATURE_PART_TAIL,   /* a tail hanging from the pelvis, with no bones */
    SINEW_CREATURE_PART_CAPE,   /* a wide flat cape hanging from the upper spine */
    SINEW_CREATURE_PART_SKIRT,  /* a garment around the waist */
    SINEW_CREATURE_PART_QUIVER, /* a long narrow piece on the back, hanging from the spine */
    SINEW_CREATURE_PART_EAR     /* an ear on the head */
} sinew_creature_part;

/* What the tail rigger should decide for a piece (issue 3, "Verdicts"). */
typedef enum sinew_creature_verdict {
    SINEW_CREATURE_VERDICT_INVALID = 0,
    SINEW_CREATURE_VERDICT_CHAIN,     /* grows a bone chain (tails hanging from the pelvis) */
    SINEW_CREATURE_VERDICT_UNCHANGED, /* left as it is (body, ears, capes, skirts) */
    /* a long piece on the spine: left unchanged by default, attached rigidly to its spine bone
     * when the rigger is asked to dress spine pieces (`sinew tail --dress-spine`) */
    SINEW_CREATURE_VERDICT_RIGID_ON_SPINE
} sinew_creature_verdict;

#define SINEW_CREATURE_MAX_PIECES 8
#define SINEW_CREATURE_NAME_MAX 64

/* One labelled piece of a creature's mesh. Piece 0 is always the body. */
typedef struct sinew_creature_piece {
    char name[SINEW_CREATURE_NAME_MAX]; /* "body", "tail", "ear.L", "cape" .. */
    sinew_creature_part part;
    sinew_creature_verdict verdict;             /* what the rigger should decide */
    char attach_joint[SINEW_CREATURE_NAME_MAX]; /* node name the piece hangs from; "" for the
                                                   body */
    uint32_t vertex_count;                      /* vertices labelled with this piece */
    uint32_t shell_count; /* separate surfaces it is modelled as (fox tail: 2, fur over skin) */
    float length;         /* metres: modelled centre-line length from where the piece leaves
                             the body to its tip (tails: the tail's length); 0 for the body */
    float radius;         /* metres: largest cross-section radius (outermost shell); 0 for the
                             body */
} sinew_creature_piece;

/* The ground truth of one creature. Arrays are owned by the truth: free them with
 * sinew_creature_truth_free. */
typedef struct sinew_creature_truth {
    sinew_creature_kind kind;
    float height;       /* metres: bind-space mesh height (max y - min y) */
    float tail_length;  /* metres: the tail piece's `length`; 0 when the kind has no tail */
    int32_t tail_piece; /* index into pieces of the tail; -1 when none */
    uint32_t piece_count;
    sinew_creature_piece pieces[SINEW_CREATURE_MAX_PIECES];
    uint32_t vertex_count;
    uint8_t *vertex_piece;     /* vertex_count piece indices (0 = body) */
    sinew_allocator allocator; /* what vertex_piece was allocated with */
} sinew_creature_truth;

typedef struct sinew_creature_options {
    const sinew_allocator *allocator; /* default: malloc */
    /* metres: the bind-space mesh height; everything scales uniformly. Default (0): the
     * kind's own (fox 1.91, mouse 1.0, caped 1.80, skirt 1.70, quiver 1.85, rabbit 1.60 with
     * its ears, lizard 0.45 m tall and about 2.4 m long). */
    float height;
} sinew_creature_options;

/* Short lower-case name of a kind ("fox"), or "invalid". Never NULL. */
const char *sinew_creature_kind_name(sinew_creature_kind kind);
/* One-line description of a kind for listings. Never NULL. */
const char *sinew_creature_kind_summary(sinew_creature_kind kind);
/* The kind named `name` (as sinew_creature_kind_name spells it), or SINEW_CREATURE_INVALID. */
sinew_creature_kind sinew_creature_kind_from_name(const char *name);
/* Short names of parts ("tail") and verdicts ("chain", "unchanged", "rigid-on-spine"). */
const char *sinew_creature_part_name(sinew_creature_part part);
const char *sinew_creature_verdict_name(sinew_creature_verdict verdict);

/* Builds creature `kind` as a new model (skeleton, skin with inverse bind matrices, welded
 * mesh with normalised influences, clips, size) and, when `truth` is not NULL, fills it.
 * `options` may be NULL (defaults). On failure *out_model is NULL, `truth` holds nothing to
 * free, and `err` says why: SINEW_ERR_ARGUMENT for an unknown kind or a height that is not a
 * finite positive number, SINEW_ERR_OUT_OF_MEMORY when an allocation fails. Deterministic:
 * the same arguments give the same bits. Free the model with sinew_model_free. */
sinew_result sinew_creature_build(sinew_creature_kind kind, const sinew_creature_options *options,
                                  sinew_model **out_model, sinew_creature_truth *truth,
                                  sinew_error *err);

/* Frees the truth's arrays (not the struct itself) and zeroes it. NULL is fine. */
void sinew_creature_truth_free(sinew_creature_truth *truth);

#ifdef __cplusplus
}
#endif
#endif
