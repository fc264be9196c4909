/* sinew creature: deterministic procedural test characters that carry their own ground truth.
 *
 * These creatures are the project's ground truth for tail rigging (finding the tail, making
 * it rigid and chaining it, after Sidorkin, "Animating tails the auto-rigger never gave a
 * bone") and the README's built-in example. Each looks like what a template auto-rigger
 * (Mixamo-style, Make-It-Animatable) leaves behind: a fixed skeleton with no bone for the
 * tail, cape or ears, and the appendage's skin dumped on the nearest legs. Every kind is
 * built in memory as a sinew_model (Y up, facing +Z, metres):
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
 * What a rigger meets (the article's distance field, far = 7% of sinew_size.scale):
 *   - Every piece is its own shell (never welded to the body) whose root is sunk into the body,
 *     so most of it is far but a few rings at the root are near (fox tail: 5% of its vertices,
 *     the mouse's and lizard's about 2-5%); the truth labels the whole shell.
 *   - The torso is thick: far skin rings the chest, its centroid on the spine (body, unchanged).
 *     Head skin above the Head joint and the snout are far too (head pieces, unchanged), and a
 *     few isolated crotch vertices may be far by a hair. All of these are labelled body.
 *   - Tail skin is weighted the way a template rigger dumps it: the left shin (fox 0.30 at the
 *     root to 0.55 at the tip), the rest split between the two thighs by side, meeting in a
 *     narrow seam. In the fox's Walk its edges tear as the article's original rig did (24
 *     moments: p99 3.0, max 4.6, 8.4% beyond 1.5 or below 0.67; the article: 2.42, 4.03,
 *     11.4%) while body edges stay at p99 1.16, max 1.72 (the article's body reference: 1.29,
 *     1.78). Weighted bone distance of the fox's tail skin: 0.51 m (article: 0.47 m); body
 *     skin: 4 influences at most by a 1/d^4 falloff to the bones of its own limb or trunk.
 *   - Each tube is split into 4x4-quad patches that own their vertices (exporters split at UV
 *     and normal seams): the face graph falls into islands, welding by position joins them.
 *   - The vertex order of a file written by sinew_document_from_model is the model's, so
 *     vertex_piece indexes the file's vertices too.
 *
 * Every clip loops (its first key equals its last, bit for bit), has LINEAR keys at 30 fps and
 * animates every joint's rotation and the root's translation "in place" (no root motion).
 *
 * The random family (sinew_creature_build_random) draws a creature from a 64-bit seed with its
 * own integer generator (splitmix64), so the same seed gives the same bits everywhere the
 * float maths agrees, and tests can sweep hundreds of seeds for breadth:
 *
 *   - body plan: a horizontal quadruped or an upright biped (legs and arms), torso radius
 *     0.08 to 0.30 of the body length (the torso, pelvis to the base of the neck), limb
 *     lengths; 2,000 to 15,000 vertices.
 *   - fur: none, a separate fur shell over the torso and the tail (overlapping, never welded),
 *     or fur that is the body's own surface (one shell, jittered radii).
 *   - tail (about 82% of seeds): 0.1 to 1.5 body lengths, thin to bushy, droop (straight back
 *     like a dinosaur .. hanging down like a cow), curl, side bend; either its own shell sunk
 *     into the body or welded to the body's surface (a quadruped's torso tube runs on into the
 *     tail; a biped's tail starts on a loop of the torso's own vertices). Its skin is weighted
 *     as template riggers leave it: to the two nearest bones by inverse square distance (how
 *     the shared notail/ files were made), the template dump (left shin and both thighs), or
 *     all on the pelvis; or (about 10%) the tail is already rigged, with bones and weights,
 *     and the rigger must change nothing.
 *   - extras that are not tails: plates or spikes along the back (those that continue onto
 *     the tail are tail skin), a mane, a frill, 0 or 2 ears (short or long), 0 or 2 horns,
 *     weighted to the joint they sit on or to their nearest bones.
 *   - skeleton: Mixamo, Quaternius, Maya-style, Sketchfab-export (a `_rootJoint`, "Bone.023_25"
 *     names, sometimes a flat hierarchy with every chain under the root joint) or unnamed
 *     ("bone_7") names; bones along +Y, along +X or world-aligned; optional end joints and IK
 *     target / pole helper joints that carry no weight.
 *   - unit scale: 0.01 to 100 file units per metre, so bind-space heights run from a few
 *     hundredths to 150 units.
 *   - clips Walk and Idle (in place, looping, LINEAR at 30 fps).
 * sinew_creature_traits says what a seed drew; truth.description says it in one line. Sizes
 * in a random creature's truth are in its file units, not metres. Where a welded tail begins:
 * a quadruped's rump rounds off like the torso's rear and the tail is the tube beyond the
 * crease where it reaches the tail's root radius; a biped's tail leaves through a hole in
 * the torso whose rim (torso vertices, labelled body) its first ring copies. Plates or spikes
 * standing on a tail are tail skin (their own shells, counted in its shell_count).
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
    SINEW_CREATURE_KIND_COUNT, /* one past the last fixed kind */
    /* truth.kind of a creature from sinew_creature_build_random; not a kind for
     * sinew_creature_build */
    SINEW_CREATURE_RANDOM = 64
} sinew_creature_kind;

/* What a piece of the mesh is. */
typedef enum sinew_creature_part {
    SINEW_CREATURE_PART_INVALID = 0,
    SINEW_CREATURE_PART_BODY,   /* the body: head, torso, limbs (never an appendage) */
    SINEW_CREATURE_PART_TAIL,   /* a tail hanging from the pelvis, with no bones */
    SINEW_CREATURE_PART_CAPE,   /* a wide flat cape hanging from the upper spine */
    SINEW_CREATURE_PART_SKIRT,  /* a garment around the waist */
    SINEW_CREATURE_PART_QUIVER, /* a long narrow piece on the back, hanging from the spine */
    SINEW_CREATURE_PART_EAR,    /* an ear on the head */
    SINEW_CREATURE_PART_HORN,   /* a horn on the head */
    SINEW_CREATURE_PART_PLATE,  /* plates or spikes along the back (those on a tail are tail) */
    SINEW_CREATURE_PART_MANE,   /* a mane along the neck */
    SINEW_CREATURE_PART_FRILL,  /* a frill around the neck behind the head */
    SINEW_CREATURE_PART_FUR     /* a separate fur shell over the torso */
} sinew_creature_part;

/* What the tail rigger should decide for a piece. */
typedef enum sinew_creature_verdict {
    SINEW_CREATURE_VERDICT_INVALID = 0,
    SINEW_CREATURE_VERDICT_CHAIN,     /* grows a bone chain (tails hanging from the pelvis) */
    SINEW_CREATURE_VERDICT_UNCHANGED, /* left as it is (body, ears, capes, skirts) */
    /* a long piece on the spine: left unchanged by default, attached rigidly to its spine bone
     * when the rigger is asked to dress spine pieces (`sinew tail --dress-spine`) */
    SINEW_CREATURE_VERDICT_RIGID_ON_SPINE
} sinew_creature_verdict;

#define SINEW_CREATURE_MAX_PIECES 16
#define SINEW_CREATURE_NAME_MAX 64
#define SINEW_CREATURE_DESCRIPTION_MAX 320

/* One labelled piece of a creature's mesh. Piece 0 is always the body. */
typedef struct sinew_creature_piece {
    char name[SINEW_CREATURE_NAME_MAX]; /* "body", "tail", "ear.L", "cape" .. */
    sinew_creature_part part;
    sinew_creature_verdict verdict;             /* what the rigger should decide */
    char attach_joint[SINEW_CREATURE_NAME_MAX]; /* node name the piece hangs from; "" for the
                                                   body */
    uint32_t vertex_count;                      /* vertices labelled with this piece */
    uint32_t shell_count; /* separate surfaces it is modelled as (fox tail: 2, fur over skin) */
    /* metres (random creatures: file units): modelled centre-line length from where the
     * piece leaves the body to its tip (tails: the tail's length); 0 for the body */
    float length;
    /* metres (random: file units): largest cross-section radius (outermost shell); 0 for the
     * body */
    float radius;
} sinew_creature_piece;

/* ---- what a random creature drew ---- */

typedef enum sinew_creature_plan {
    SINEW_CREATURE_PLAN_INVALID = 0,
    SINEW_CREATURE_PLAN_QUADRUPED, /* horizontal, four legs, facing +Z */
    SINEW_CREATURE_PLAN_BIPED      /* upright, two legs and two arms, facing +Z */
} sinew_creature_plan;

typedef enum sinew_creature_fur {
    SINEW_CREATURE_FUR_INVALID = 0,
    SINEW_CREATURE_FUR_NONE,
    SINEW_CREATURE_FUR_SHELL, /* a separate overlapping shell over the torso and the tail */
    SINEW_CREATURE_FUR_WELDED /* the body's own surface is the fur (one shell, jittered) */
} sinew_creature_fur;

typedef enum sinew_creature_tail_shell {
    SINEW_CREATURE_TAIL_INVALID = 0,
    SINEW_CREATURE_TAIL_NONE,  /* no tail */
    SINEW_CREATURE_TAIL_SUNK,  /* its own shell, its root sunk into the body */
    SINEW_CREATURE_TAIL_WELDED /* one surface with the body (welded by position) */
} sinew_creature_tail_shell;

/* How the tail's skin is weighted. */
typedef enum sinew_creature_tail_weights {
    SINEW_CREATURE_TAIL_WEIGHTS_INVALID = 0,
    SINEW_CREATURE_TAIL_WEIGHTS_NONE,     /* no tail */
    SINEW_CREATURE_TAIL_WEIGHTS_NEAREST,  /* the two nearest bones, inverse square distance */
    SINEW_CREATURE_TAIL_WEIGHTS_TEMPLATE, /* left hind shin and both thighs (the fox's) */
    SINEW_CREATURE_TAIL_WEIGHTS_PELVIS,   /* all on the pelvis */
    SINEW_CREATURE_TAIL_WEIGHTS_RIGGED    /* the tail has its own bones and proper weights */
} sinew_creature_tail_weights;

typedef enum sinew_creature_dorsal {
    SINEW_CREATURE_DORSAL_INVALID = 0,
    SINEW_CREATURE_DORSAL_NONE,
    SINEW_CREATURE_DORSAL_PLATES, /* flat plates standing on the spine */
    SINEW_CREATURE_DORSAL_SPIKES  /* round cones */
} sinew_creature_dorsal;

/* How ears, horns, plates, manes and frills are weighted. */
typedef enum sinew_creature_extra_weights {
    SINEW_CREATURE_EXTRA_WEIGHTS_INVALID = 0,
    SINEW_CREATURE_EXTRA_WEIGHTS_JOINT,  /* weight 1 on the joint the piece sits on */
    SINEW_CREATURE_EXTRA_WEIGHTS_NEAREST /* the two nearest bones, inverse square distance */
} sinew_creature_extra_weights;

typedef enum sinew_creature_skeleton_style {
    SINEW_CREATURE_STYLE_INVALID = 0,
    SINEW_CREATURE_STYLE_MIXAMO,     /* mixamorig:Hips, mixamorig:LeftUpLeg .. */
    SINEW_CREATURE_STYLE_QUATERNIUS, /* Body, Back, Torso, Neck, Head, FrontLeg.L .. */
    SINEW_CREATURE_STYLE_MAYA,       /* pelvis_jnt, spine_1_jnt, l_thigh_jnt .. */
    SINEW_CREATURE_STYLE_SKETCHFAB,  /* _rootJoint, Bone.023_25 or thigh.L_12 .. */
    SINEW_CREATURE_STYLE_UNNAMED,    /* bone_0, bone_1 .. */
    SINEW_CREATURE_STYLE_COUNT       /* one past the last style */
} sinew_creature_skeleton_style;

/* Which local axis of a joint runs along its bone in the file. */
typedef enum sinew_creature_axes {
    SINEW_CREATURE_AXES_INVALID = 0,
    SINEW_CREATURE_AXES_Y,    /* local +Y along the bone (Mixamo, Blender) */
    SINEW_CREATURE_AXES_X,    /* local +X along the bone (Maya) */
    SINEW_CREATURE_AXES_WORLD /* every joint aligned with bind space (many exporters) */
} sinew_creature_axes;

/* What one seed drew. Lengths are relative to `body_length` unless marked otherwise. */
typedef struct sinew_creature_traits {
    uint64_t seed;
    sinew_creature_plan plan;
    float unit_scale;  /* file units per metre (0.01 .. 100) */
    float body_length; /* file units: the torso from the pelvis to the base of the neck */
    float thickness;   /* torso radius / body length, 0.08 (thin) .. 0.30 (very thick) */
    float leg_length;  /* hip joint to the floor / body length */
    float arm_length;  /* bipeds: shoulder to wrist / body length; 0 for quadrupeds */
    sinew_creature_fur fur;
    sinew_creature_tail_shell tail;
    sinew_creature_tail_weights tail_weights;
    float tail_length;   /* body lengths, 0.1 .. 1.5, from where it leaves the body; 0: none */
    float tail_radius;   /* largest radius / body length */
    float tail_droop;    /* degrees its root points below straight back (negative: raised) */
    float tail_curl;     /* degrees its pitch turns over its length (positive: upwards) */
    float tail_bend;     /* degrees it turns sideways over its length (positive: to +X) */
    uint32_t tail_bones; /* rigged tails: bones along it (end joint excluded); else 0 */
    sinew_creature_dorsal dorsal;
    uint32_t dorsal_count;   /* plates or spikes on the back */
    uint32_t dorsal_on_tail; /* of which continue onto the tail (tail skin) */
    uint32_t ear_count;      /* 0 or 2 */
    int ears_long;           /* 1: long ears (rabbit-like), 0: short */
    uint32_t horn_count;     /* 0 or 2 */
    int mane, frill;         /* 1 when present */
    sinew_creature_extra_weights extra_weights;
    sinew_creature_skeleton_style style;
    int flat_hierarchy; /* 1: every chain hangs from the root joint (Sketchfab exports) */
    int root_joint;     /* 1: a root joint on the floor with the hips under it, no weight */
    int ik_helpers;     /* 1: IK target and pole joints under the root, no weight */
    int end_joints;     /* 1: terminal "_End" joints (Mixamo's HeadTop_End), no weight */
    sinew_creature_axes axes;
} sinew_creature_traits;

/* The ground truth of one creature. Arrays are owned by the truth: free them with
 * sinew_creature_truth_free. */
typedef struct sinew_creature_truth {
    sinew_creature_kind kind;
    float height;       /* metres (random: file units): bind-space mesh height (max y - min y) */
    float tail_length;  /* the tail piece's `length`; 0 when the creature has no tail */
    int32_t tail_piece; /* index into pieces of the tail; -1 when none */
    uint32_t piece_count;
    sinew_creature_piece pieces[SINEW_CREATURE_MAX_PIECES];
    uint32_t vertex_count;
    uint8_t *vertex_piece;     /* vertex_count piece indices (0 = body) */
    sinew_allocator allocator; /* what vertex_piece was allocated with */
    /* Random creatures (kind SINEW_CREATURE_RANDOM); zero for the fixed kinds except the
     * description, which is the kind's summary. A rigged tail is still tail_piece (its part
     * is TAIL) but its verdict is UNCHANGED: the rigger must leave it as it is. */
    int tail_rigged;
    sinew_creature_traits traits;
    /* Random creatures: the joints a rigger should take for the pelvis (where the hind legs
     * branch) and the head, by name; empty for the fixed kinds. */
    char pelvis_joint[SINEW_CREATURE_NAME_MAX];
    char head_joint[SINEW_CREATURE_NAME_MAX];
    char description[SINEW_CREATURE_DESCRIPTION_MAX]; /* one line: what was drawn */
} sinew_creature_truth;

typedef struct sinew_creature_options {
    const sinew_allocator *allocator; /* default: malloc */
    /* metres: the bind-space mesh height; everything scales uniformly. Default (0): the
     * kind's own (fox 1.91, mouse 1.0, caped 1.80, skirt 1.70, quiver 1.85, rabbit 1.60 with
     * its ears, lizard 0.45 m tall and about 2.4 m long); for random creatures the drawn
     * size and unit scale. */
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

/* Builds the random creature `seed` draws (see the file comment) like sinew_creature_build:
 * same contract, same errors (SINEW_ERR_ARGUMENT for a bad height), truth.kind is
 * SINEW_CREATURE_RANDOM and truth.traits / truth.description say what was drawn. A nonzero
 * options->height overrides the drawn size (the mesh is scaled to that height). */
sinew_result sinew_creature_build_random(uint64_t seed, const sinew_creature_options *options,
                                         sinew_model **out_model, sinew_creature_truth *truth,
                                         sinew_error *err);

/* What `seed` draws, without building it (cheap). */
void sinew_creature_random_traits(uint64_t seed, sinew_creature_traits *out);
/* One line describing `traits` into `buf` (always NUL-terminated when size > 0, truncated to
 * fit); returns the length it needed, as snprintf does. */
int sinew_creature_traits_describe(const sinew_creature_traits *traits, char *buf, size_t size);
/* Short names of the traits' enums ("quadruped", "shell", "sunk", "nearest", "mixamo", "x",
 * "plates", "joint"), or "invalid". Never NULL. */
const char *sinew_creature_plan_name(sinew_creature_plan plan);
const char *sinew_creature_fur_name(sinew_creature_fur fur);
const char *sinew_creature_tail_shell_name(sinew_creature_tail_shell tail);
const char *sinew_creature_tail_weights_name(sinew_creature_tail_weights weights);
const char *sinew_creature_dorsal_name(sinew_creature_dorsal dorsal);
const char *sinew_creature_extra_weights_name(sinew_creature_extra_weights weights);
const char *sinew_creature_style_name(sinew_creature_skeleton_style style);
const char *sinew_creature_axes_name(sinew_creature_axes axes);

/* Frees the truth's arrays (not the struct itself) and zeroes it. NULL is fine. */
void sinew_creature_truth_free(sinew_creature_truth *truth);

#ifdef __cplusplus
}
#endif
#endif
