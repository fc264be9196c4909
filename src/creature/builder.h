/* Private to src/creature: the pieces every creature is assembled from.
 *
 *   - creature_skeleton: joints placed at bind positions, oriented the way Mixamo orients
 *     them (local +Y along the bone towards its primary child), turned into sinew nodes and
 *     a skin with inverse bind matrices.
 *   - creature_mesh: tubes along Bezier centre lines with elliptical cross-sections, split
 *     into square patches that each own their vertices (as exporters split at UV and normal
 *     seams), and weighted per grid point so that seam duplicates agree bit for bit.
 *   - creature_pose / clips: a pose is given as world-axis rotation deltas per joint (applied
 *     in the joint's frame), a root translation and optional two-bone leg IK targets; the
 *     solver turns it into local rotations, and clips sample a pose function at 30 fps.
 */
#ifndef SINEW_CREATURE_BUILDER_H
#define SINEW_CREATURE_BUILDER_H

#include "sinew/creature.h"

#define CREATURE_MAX_JOINTS 32
#define CREATURE_MAX_CTRL 4
#define CREATURE_MAX_PROFILE 8
#define CREATURE_MAX_CANDIDATES 12
#define CREATURE_MAX_LEGS 4
#define CREATURE_FPS 30

typedef struct creature_skeleton {
    uint32_t count;
    char name[CREATURE_MAX_JOINTS][SINEW_CREATURE_NAME_MAX];
    int32_t parent[CREATURE_MAX_JOINTS];
    int32_t child[CREATURE_MAX_JOINTS];  /* primary child (the bone's direction), -1 terminal */
    sinew_vec3 pos[CREATURE_MAX_JOINTS]; /* metres: bind position */
    sinew_quat rot[CREATURE_MAX_JOINTS]; /* bind world rotation: local +Y along the bone */
    sinew_vec3 tip[CREATURE_MAX_JOINTS]; /* metres: bone end (primary child, or an extension
                                            along the parent's direction for terminals) */
    /* rest local transform (what the file stores): rotation and translation in the parent */
    sinew_quat rest_rot[CREATURE_MAX_JOINTS];
    sinew_vec3 rest_pos[CREATURE_MAX_JOINTS];
} creature_skeleton;

/* Adds joint `prefix``name` under `parent` (-1 for the root) at bind position `pos`; the
 * first child added to a joint becomes its primary child. Returns the joint index. */
int32_t creature_skeleton_add(creature_skeleton *s, const char *prefix, const char *name,
                              int32_t parent, sinew_vec3 pos);
/* Orients every joint (local +Y along its bone, the shortest swing from +Y: Mixamo's
 * convention) and fills tips and rest transforms. Terminal tips extend by `terminal_frac` of
 * the parent bone's length. */
void creature_skeleton_finish(creature_skeleton *s, float terminal_frac);
/* How a tube's vertices are weighted. */
typedef enum creature_weight_mode {
    CREATURE_WEIGHT_NEAREST = 1, /* inverse 4th power of the distance to each candidate bone */
    CREATURE_WEIGHT_ALONG,       /* fixed sets blended from the tube's start (`from`) to its end
                                    (`to`): how a template rigger dumps an appendage */
    CREATURE_WEIGHT_SIDE,        /* joints[0] (the hips) from `from[0]` at the top to `to[0]` at
                                    the bottom, the rest split between joints[1] (left thigh,
                                    +x) and joints[2] (right thigh) smoothly by x: skirts */
    /* A template rigger's tail (seed 000: "the left shin, with the rest split between the two
     * thighs"): joints[0] blended from `from[0]` to `to[0]` along the tube, joints[3] (when
     * count is 4) likewise, and the remainder split between joints[1] (+x side) and joints[2]
     * (-x side) by a logistic of x over `side_width`: where the two thighs' weights meet, the
     * skin tears when the legs swing apart. */
    CREATURE_WEIGHT_TEMPLATE
} creature_weight_mode;

typedef struct creature_weights {
    creature_weight_mode mode;
    uint32_t count;
    int32_t joints[CREATURE_MAX_CANDIDATES];
    float from[CREATURE_MAX_CANDIDATES], to[CREATURE_MAX_CANDIDATES];
    float side_width; /* metres: TEMPLATE's left/right transition width */
} creature_weights;

typedef struct creature_tube {
    uint8_t piece;            /* truth piece index */
    uint32_t segments, rings; /* quads around; rings along (>= 2) */
    uint32_t patch;           /* quads per patch side: vertices are split between patches */
    uint32_t ctrl_count;      /* 2: straight line, 3: quadratic, 4: cubic Bezier */
    sinew_vec3 ctrl[CREATURE_MAX_CTRL]; /* metres */
    sinew_vec3 side;                    /* first cross-section axis (the `a` radius) at the start */
    uint32_t profile_count;
    float prof_t[CREATURE_MAX_PROFILE];   /* arc-length fraction, increasing, 0 .. 1 */
    float prof_a[CREATURE_MAX_PROFILE];   /* metres: radius along `side` */
    float prof_b[CREATURE_MAX_PROFILE];   /* metres: radius along tangent x side */
    float prof_off[CREATURE_MAX_PROFILE]; /* metres: centre shift along tangent x side */
    float cap0, cap1; /* fraction of the length rounded into a closed cap; 0 = open */
    float noise;      /* relative radius jitter (fur); 0 = none */
    uint32_t seed;    /* noise seed */
    creature_weights weights;
} creature_tube;

typedef struct creature_mesh {
    const sinew_allocator *alloc;
    uint32_t vertex_count, vertex_cap;
    sinew_vec3 *positions;
    uint8_t *piece;
    uint16_t *joints; /* 4 per vertex */
    float *weights;   /* 4 per vertex, sorted descending, sum 1 */
    uint32_t triangle_count, triangle_cap;
    uint32_t *triangles;
    int failed; /* an allocation failed */
} creature_mesh;

/* A straight tube from a to b (2 control points), `side` its reference direction around the
 * axis, caps cap0/cap1 (0: open), weighted to the nearest candidate joints. */
creature_tube creature_tube_make(uint8_t piece, uint32_t segments, uint32_t rings, sinew_vec3 a,
                                 sinew_vec3 b, sinew_vec3 side, float cap0, float cap1);
/* Adds a cross-section (radii a, b, offset `off`) at parameter `at` along the tube. */
void creature_tube_profile(creature_tube *t, float at, float a, float b, float off);
/* Adds joint j (skipped when negative) to the joints the tube's skin may be weighted to. */
void creature_tube_candidate(creature_tube *t, int32_t j);

/* Appends a tube. Returns 0 when an allocation failed (mesh->failed is set). */
int creature_mesh_tube(creature_mesh *m, const creature_skeleton *s, const creature_tube *t);
/* Arc length of a tube's centre line (metres). */
float creature_tube_length(const creature_tube *t);
/* Largest cross-section radius of a tube (metres, before noise). */
float creature_tube_radius(const creature_tube *t);
void creature_mesh_free(creature_mesh *m);

/* Two-bone leg IK target. */
typedef struct creature_leg {
    int32_t upper, lower, foot; /* joints: thigh, shin, foot */
    sinew_vec3 ankle;           /* metres: world target for the `foot` joint */
    sinew_vec3 pole;            /* unit: the way the knee bends (world) */
    sinew_quat foot_delta;      /* world-axis rotation of the foot relative to its bind
                                   direction, applied after the hips' yaw */
} creature_leg;

/* A pose request: world-axis deltas applied in each joint's frame (delta[j] rotates joint j's
 * subtree about world axes when its parent is at bind), a root translation, leg IK. */
typedef struct creature_pose {
    sinew_quat delta[CREATURE_MAX_JOINTS];
    sinew_vec3 root; /* metres: root joint's translation */
    uint32_t leg_count;
    creature_leg legs[CREATURE_MAX_LEGS];
    /* solved */
    sinew_quat local[CREATURE_MAX_JOINTS];
    sinew_quat world[CREATURE_MAX_JOINTS];
    sinew_vec3 world_pos[CREATURE_MAX_JOINTS];
} creature_pose;

/* Identity deltas, root at bind, no legs. */
void creature_pose_reset(const creature_skeleton *s, creature_pose *p);
/* Solves local rotations (and world transforms) parent before child. */
void creature_pose_solve(const creature_skeleton *s, creature_pose *p);
/* World position of joint j under the pose's root translation and deltas, ignoring leg IK
 * (used to find how far the hips must drop for the feet to reach their targets). */
sinew_vec3 creature_pose_joint_position(const creature_skeleton *s, const creature_pose *p,
                                        int32_t j);

/* Rotation about a world axis by `deg` degrees. */
sinew_quat creature_rot(float ax, float ay, float az, float deg);

typedef void (*creature_pose_fn)(const creature_skeleton *s, const void *ctx, float phase,
                                 creature_pose *out);

/* The creature under construction. */
typedef struct creature_build {
    creature_skeleton skel;
    creature_mesh mesh;
    sinew_creature_truth *truth; /* pieces filled by the kind; may be a local scratch */
    sinew_model *model;          /* clips are appended here */
} creature_build;

/* Appends a looping clip named `name`: keys at 30 fps over `duration` seconds (rounded to
 * whole frames), phase = key / frames; the last key copies the first bit for bit. Returns 0
 * when an allocation failed. */
int creature_add_clip(creature_build *b, const char *name, float duration, creature_pose_fn fn,
                      const void *ctx);

/* Meshes tube `t` as the only shell of truth piece `piece`, recording the piece's modelled
 * length (the centre line's arc) and radius. Returns 0 when an allocation failed. */
int creature_mesh_piece(creature_build *b, uint8_t piece, const creature_tube *t);

/* Adds a truth piece and returns its index. */
uint8_t creature_add_piece(creature_build *b, const char *name, sinew_creature_part part,
                           sinew_creature_verdict verdict, const char *attach_joint);

/* Kinds. Each fills b->skel, b->mesh, truth pieces and clips. Returns 0 on allocation
 * failure. `kind` selects among the humanoid variants. */
int creature_build_humanoid(creature_build *b, sinew_creature_kind kind);
int creature_build_lizard(creature_build *b);

#endif
