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

#define CREATURE_MAX_JOINTS 64 /* a random quadruped with IK helpers and a rigged tail: ~50 */
#define CREATURE_MAX_SEGMENTS (2 * CREATURE_MAX_JOINTS) /* bone segments (one per child) */
#define CREATURE_MAX_CTRL 10 /* 2..4: Bezier; 5 and more: a spline through the points */
#define CREATURE_MAX_PROFILE 12
#define CREATURE_MAX_CANDIDATES 48 /* NEAREST_TWO looks at every deforming bone */
#define CREATURE_MAX_LEGS 4
#define CREATURE_MAX_PATCH 16 /* quads per patch side */
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
    /* bone segments as a model's skeleton shows them (creature_skeleton_finish): one from each
     * joint to each of its children, and pos -> tip for terminals; NEAREST_TWO measures these */
    uint32_t segment_count;
    int32_t segment_joint[CREATURE_MAX_SEGMENTS];
    sinew_vec3 segment_head[CREATURE_MAX_SEGMENTS], segment_tail[CREATURE_MAX_SEGMENTS];
} creature_skeleton;

/* Adds joint `prefix``name` under `parent` (-1 for the root) at bind position `pos`; the
 * first child added to a joint becomes its primary child. Returns the joint index. */
int32_t creature_skeleton_add(creature_skeleton *s, const char *prefix, const char *name,
                              int32_t parent, sinew_vec3 pos);
/* Orients every joint (local +Y along its bone, the shortest swing from +Y: Mixamo's
 * convention) and fills tips, bone segments and rest transforms. Terminal tips extend by
 * `terminal_frac` of the parent bone's length. */
void creature_skeleton_finish(creature_skeleton *s, float terminal_frac);

/* How a creature's skeleton is written to the file when that differs from the anatomy the
 * builder poses (sinew_creature_build_random): another parent per joint (a flat hierarchy,
 * every chain under the root joint), another joint frame per joint (`axes`: file frame =
 * anatomical frame * axes, for exporters whose bones run along +X or that keep world-aligned
 * joints) and which joints get translation keys. */
typedef struct creature_pose creature_pose;
typedef struct creature_file_map {
    int32_t parent[CREATURE_MAX_JOINTS];
    sinew_quat axes[CREATURE_MAX_JOINTS];
    uint8_t translate[CREATURE_MAX_JOINTS]; /* 1: the clip keys this joint's translation */
    /* Optional, called on every solved pose before it is written: moves helper joints (IK
     * targets following the feet). */
    void (*after_solve)(const creature_skeleton *s, const void *ctx, creature_pose *p);
} creature_file_map;

/* Rewrites `s` the way `map` writes it: parents, bind rotations (rot * axes) and rest
 * transforms. Tips, segments and primary children keep the anatomy (meshing and weights are
 * done by then). */
void creature_skeleton_apply_map(creature_skeleton *s, const creature_file_map *map);
/* How a tube's vertices are weighted. */
typedef enum creature_weight_mode {
    CREATURE_WEIGHT_NEAREST = 1, /* inverse 4th power of the distance to each candidate bone */
    CREATURE_WEIGHT_ALONG,       /* fixed sets blended from the tube's start (`from`) to its end
                                    (`to`): how a template rigger dumps an appendage */
    CREATURE_WEIGHT_SIDE,        /* joints[0] (the hips) from `from[0]` at the top to `to[0]` at
                                    the bottom, the rest split between joints[1] (left thigh,
                                    +x) and joints[2] (right thigh) smoothly by x: skirts */
    /* A template rigger's tail (Sidorkin, "Animating tails the auto-rigger never gave a bone":
     * "the left shin, with the rest split between the two thighs"): joints[0] blended from
     * `from[0]` to `to[0]` along the tube, joints[3] (when count is 4) likewise, and the
     * remainder split between joints[1] (+x side) and joints[2] (-x side) by a logistic of x
     * over `side_width`: where the two thighs' weights meet, the skin tears when the legs swing
     * apart. */
    CREATURE_WEIGHT_TEMPLATE,
    /* How the shared notail/ test files were made from their originals: all weight to the
     * two candidate bones nearest the vertex (distance to every bind-space bone segment of
     * the joint, see creature_skeleton.segment_*), split by inverse square distance. */
    CREATURE_WEIGHT_NEAREST_TWO
} creature_weight_mode;

typedef struct creature_weights {
    creature_weight_mode mode;
    uint32_t count;
    int32_t joints[CREATURE_MAX_CANDIDATES];
    float from[CREATURE_MAX_CANDIDATES], to[CREATURE_MAX_CANDIDATES];
    float side_width; /* metres: TEMPLATE's left/right transition width */
    /* 1: ALONG and TEMPLATE blend at t0 + (t1 - t0) * t instead of the tube's own fraction t
     * (a plate on a tail takes the tail's weights where it sits) */
    int remap;
    float t0, t1;
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
    /* A tube that is two pieces (a body running on into a tail as one surface): rings from
     * arc fraction `split` on (0 = no split) belong to `piece_after` and are weighted by
     * `weights_after`, whose ALONG/TEMPLATE fraction runs 0 .. 1 from the split to the end. */
    float split;
    uint8_t piece_after;
    creature_weights weights_after;
    /* Optional: `segments` positions that replace ring 0 (a tube welded to another surface:
     * its first ring is a loop of that surface's own vertices, copied bit for bit). */
    const sinew_vec3 *ring0;
    /* Optional: grid quads [hole_u0, hole_u1) x [hole_v0, hole_v1) (segment, ring) are left
     * out, with the vertices inside them: where a welded tube leaves this surface. */
    uint32_t hole_u0, hole_u1, hole_v0, hole_v1;
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
/* The tube's grid as creature_mesh_tube places it: segments * rings positions, ring after
 * ring (ring j, segment i at j * segments + i), noise included. */
void creature_tube_grid(const creature_tube *t, sinew_vec3 *out);
/* Arc-length fraction where a spline centre line (5 or more points) passes ctrl point i. */
float creature_tube_ctrl_fraction(const creature_tube *t, uint32_t i);
/* Centre line point, unit tangent and cross-section radii at arc-length fraction s. */
void creature_tube_section(const creature_tube *t, float s, sinew_vec3 *centre, sinew_vec3 *tangent,
                           float *a, float *b);
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
struct creature_pose {
    sinew_quat delta[CREATURE_MAX_JOINTS];
    sinew_vec3 root; /* metres: root joint's translation */
    uint32_t leg_count;
    creature_leg legs[CREATURE_MAX_LEGS];
    /* solved */
    sinew_quat local[CREATURE_MAX_JOINTS];
    sinew_quat world[CREATURE_MAX_JOINTS];
    sinew_vec3 world_pos[CREATURE_MAX_JOINTS];
};

/* Identity deltas, root at bind, no legs. */
void creature_pose_reset(const creature_skeleton *s, creature_pose *p);
/* Solves local rotations (and world transforms) parent before child. */
void creature_pose_solve(const creature_skeleton *s, creature_pose *p);
/* World position of joint j under the pose's root translation and deltas, ignoring leg IK
 * (used to find how far the hips must drop for the feet to reach their targets). */
sinew_vec3 creature_pose_joint_position(const creature_skeleton *s, const creature_pose *p,
                                        int32_t j);

/* Lowers the root until every leg of the pose reaches its ankle target with a slightly bent
 * knee (each leg's own upper, lower and foot lengths). */
void creature_pose_fit_root_height(const creature_skeleton *s, creature_pose *p);

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
    /* NULL: clips key the root's translation and every joint's local rotation as posed.
     * Otherwise clips are written the way the map writes the skeleton. */
    const creature_file_map *map;
} creature_build;

/* Appends a looping clip named `name`: keys at 30 fps over `duration` seconds (rounded to
 * whole frames), phase = key / frames; the last key copies the first bit for bit. Without a
 * map: channel 0 keys the root's translation, channel 1 + j joint j's rotation. With b->map:
 * first a translation channel for every joint the map translates, then a rotation channel for
 * every joint, local to its file parent in its file frame. Returns 0 when an allocation
 * failed. */
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
/* The random family (random.c): the creature `traits` describes, with b->map set. */
int creature_build_random(creature_build *b, const sinew_creature_traits *traits);

#endif
