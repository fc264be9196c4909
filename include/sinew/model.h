/* sinew model: the skinned character as sinew's algorithms see it.
 *
 * A model is a read-mostly view built from a glTF document (sinew/document.h,
 * sinew_model_from_document) or by code (the procedural creatures). It holds
 *   - the skeleton: every joint of the chosen skin plus every ancestor of a joint, ordered
 *     parent-before-child so local-to-world is one loop;
 *   - the skin: for each skin joint its skeleton node and inverse bind matrix;
 *   - the mesh: all primitives skinned by that skin or by a skin equal to it (the same joint
 *     nodes in the same order with the same inverse bind matrices: exporters give each mesh
 *     of one character its own copy of the skin), concatenated, in bind space;
 *   - the clips: per-node TRS tracks.
 *
 * Spaces. "Bind space" is where skinning's identity holds: vertex positions as stored, joint
 * bind transforms W0_j = inverse(IBM_j). "World" is the scene graph at some pose; skinned
 * positions are sum_j w_j (world(joint_j) * IBM_j) v, and the skinned mesh node's own
 * transform is ignored, as glTF requires.
 *
 * Sampling and skinning never allocate and never mutate the model: poses live in the
 * caller's buffers (Sidorkin, "Animating tails the auto-rigger never gave a bone", tells of a
 * day lost to clips reading a pose a preview had moved).
 */
#ifndef SINEW_MODEL_H
#define SINEW_MODEL_H

#include "sinew/base.h"
#include "sinew/math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SINEW_MAX_INFLUENCES 8 /* glTF JOINTS_0/1 + WEIGHTS_0/1 */

/* One node of the skeleton (a skin joint or an ancestor of one). */
typedef struct sinew_node {
    char *name;            /* glTF node name; "node_<index>" when the file has none */
    int32_t parent;        /* index into sinew_model.nodes, -1 for a root */
    int32_t gltf_node;     /* index in the document's nodes, -1 for nodes made by code */
    int32_t joint;         /* index into the skin's joints, -1 when not a joint */
    sinew_transform local; /* the node's TRS as the file stores it (NOT neutral) */
    sinew_transform rest;  /* neutral local transform: inv(W0_parent) W0 for joints whose
                              parent is a joint, else `local` */
} sinew_node;

/* One joint of the skin. */
typedef struct sinew_joint {
    int32_t node;            /* index into sinew_model.nodes */
    sinew_mat4 inverse_bind; /* IBM_j; identity when the skin has none */
    sinew_mat4 bind;         /* W0_j = inverse(IBM_j): the joint frame in bind space */
} sinew_joint;

/* Where a range of the concatenated mesh came from, so edits can go back to the document. */
typedef struct sinew_primitive_range {
    int32_t gltf_mesh;      /* mesh index in the document, -1 when made by code */
    int32_t gltf_primitive; /* primitive index inside that mesh */
    int32_t gltf_node;      /* the node that instantiates it with the skin */
    uint32_t first_vertex;  /* first vertex in sinew_mesh */
    uint32_t vertex_count;
    uint32_t first_triangle;
    uint32_t triangle_count;
    int32_t gltf_skin; /* the skin of gltf_node (the model's own or one merged with it: see
                          sinew_skin); meaningless when gltf_mesh is -1 */
} sinew_primitive_range;

typedef struct sinew_mesh {
    uint32_t vertex_count;
    sinew_vec3 *positions; /* bind space, vertex_count */
    uint32_t triangle_count;
    uint32_t *triangles; /* 3 * triangle_count vertex indices */
    /* SINEW_MAX_INFLUENCES slots per vertex, sorted by weight descending, normalised to sum
     * 1, unused slots have weight 0 and joint 0. joints index sinew_skin.joints. */
    uint16_t *influence_joints; /* vertex_count * SINEW_MAX_INFLUENCES */
    float *influence_weights;   /* vertex_count * SINEW_MAX_INFLUENCES */
    /* Vertices at one position share a weld id (exporters split at UV and normal seams).
     * weld[v] is the smallest vertex index at v's exact position. */
    uint32_t *weld; /* vertex_count */
    uint32_t range_count;
    sinew_primitive_range *ranges;
} sinew_mesh;

typedef struct sinew_skin {
    int32_t gltf_skin; /* skin index in the document, -1 when made by code; skins equal to it
                          (same joints, same inverse bind matrices) are merged into it, and
                          each mesh range names the skin it came from */
    uint32_t joint_count;
    sinew_joint *joints;
} sinew_skin;

typedef enum sinew_path {
    SINEW_PATH_INVALID = 0,
    SINEW_PATH_TRANSLATION,
    SINEW_PATH_ROTATION,
    SINEW_PATH_SCALE
} sinew_path;

typedef enum sinew_interpolation {
    SINEW_INTERP_INVALID = 0,
    SINEW_INTERP_LINEAR, /* slerp for rotations */
    SINEW_INTERP_STEP,
    SINEW_INTERP_CUBICSPLINE
} sinew_interpolation;

/* One animated property of one skeleton node. */
typedef struct sinew_channel {
    int32_t node; /* index into sinew_model.nodes */
    sinew_path path;
    sinew_interpolation interpolation;
    uint32_t key_count;
    float *times; /* key_count, seconds, strictly increasing */
    /* key_count * components (3 or 4) values; CUBICSPLINE stores in-tangent, value,
     * out-tangent per key as glTF does (3 * components per key). */
    float *values;
} sinew_channel;

typedef struct sinew_clip {
    char *name;             /* animation name; "animation_<index>" when the file has none */
    int32_t gltf_animation; /* index in the document, -1 when made by code */
    float duration;         /* seconds: the largest key time of any channel */
    uint32_t channel_count;
    sinew_channel *channels;
} sinew_clip;

/* Size measures in the file's own units (real files ignore glTF's metres: a 1.9 m fox
 * arrives in centimetres, a T-Rex at 1/100 of its world size). */
typedef struct sinew_size {
    sinew_vec3 min, max; /* box of the measured points */
    float height;        /* max.y - min.y */
    float length;        /* the longer horizontal extent: max(dx, dz) */
    float diagonal;      /* |max - min| */
    float scale;         /* the reference size for relative thresholds: max(height, length).
                            An upright biped and a horizontal lizard both get a sensible
                            scale; the article's absolute values are for scale = 1.91 (its fox). */
} sinew_size;

typedef struct sinew_model {
    uint32_t node_count;
    sinew_node *nodes;
    sinew_skin skin;
    sinew_mesh mesh;
    uint32_t clip_count;
    sinew_clip *clips;
    /* Two spaces, two sizes: files often scale the armature (the Quaternius T-Rex's bind
     * space is 100 times smaller than what a viewer shows). */
    sinew_size size;           /* bind space: for distances between vertices and bones (rigging) */
    sinew_size world_size;     /* the skinned mesh at the file's pose, world units: for
                                  simulation, contact, solve errors and pictures */
    sinew_allocator allocator; /* what the model was built with; used to free it */
} sinew_model;

/* Frees everything a model owns (and the model itself). NULL is fine. */
void sinew_model_free(sinew_model *model);

/* Recomputes model->size from the bind-space mesh (or from joint positions when there is no
 * mesh) and model->world_size from the mesh skinned at the file's pose (sinew_pose_file).
 * Needs the skin's bind matrices (sinew_model_update_rest first). Allocates scratch with the
 * model's allocator; SINEW_ERR_OUT_OF_MEMORY when that fails (world_size is then a copy of
 * size, which the caller should not rely on). */
sinew_result sinew_model_update_size(sinew_model *model);

/* Recomputes node rest transforms from the skin's inverse bind matrices (recovering the rest
 * transforms as the article does): for a joint whose parent node is also a
 * joint, rest = decompose(inv(W0_parent) W0); otherwise rest = the file's local TRS. Also
 * fills joints[j].bind. Returns SINEW_ERR_INVALID_VALUE when an IBM cannot be inverted. */
sinew_result sinew_model_update_rest(sinew_model *model, sinew_error *err);

/* Fills mesh->weld by exact position. Allocation-free: `scratch` holds vertex_count
 * uint32 values. */
void sinew_mesh_weld(sinew_mesh *mesh, uint32_t *scratch);

/* Index of the node named `name` (exact match), or -1. */
int32_t sinew_model_find_node(const sinew_model *model, const char *name);
/* Index of the clip named `name` (exact match), or -1. */
int32_t sinew_model_find_clip(const sinew_model *model, const char *name);
/* The clip's own key period, seconds: the median of the gaps between consecutive keys of
 * every channel (1/30 s for a clip keyed at 30 per second, whatever its channel count, and
 * whatever a few stray keys far beyond the others do to its duration). 0 when no channel has
 * two keys or when the scratch (one float per gap, from `allocator`, NULL: malloc) cannot be
 * allocated. What the bake and the solve derive their rates from. */
float sinew_clip_key_spacing(const sinew_clip *clip, const sinew_allocator *allocator);

/* Which keys of a LINEAR or STEP channel a player needs to play the same curve within
 * `tolerance`: keep[k] = 1 for the keys kept (key_count flags), *kept their count. The first
 * and last keys are always kept (a loop stays closed); every key left out is within
 * `tolerance` of what the kept keys play at its time (sinew_clip_sample's interpolation: lerp,
 * slerp for rotations, or the held value under STEP). Between two keys of the full channel
 * the error is linear under lerp and constant under STEP, so bounding it at the keys bounds it
 * everywhere (to float rounding, and to slerp's small curvature). `tolerance` is radians for
 * rotations (the angle between them), else the path's own units. Allocates a stack of 2 *
 * key_count integers through `allocator` (NULL: malloc). SINEW_ERR_UNSUPPORTED for
 * CUBICSPLINE. */
sinew_result sinew_channel_reduce(const sinew_channel *channel, double tolerance,
                                  const sinew_allocator *allocator, uint8_t *keep, uint32_t *kept,
                                  sinew_error *err);
/* Keeps only the keys keep[] flags (key_count flags, from sinew_channel_reduce) of a LINEAR
 * or STEP channel, moving them to the front of its own times and values, in order. */
void sinew_channel_keep(sinew_channel *channel, const uint8_t *keep);

/* ---- bones in bind space ---- */

/* A bone as a segment in bind space: from its joint to one child joint, or, for a terminal
 * joint, a short extension beyond it along its parent's direction (so a muzzle or a hand is
 * not "far" from its own bone when finding the tail). */
typedef struct sinew_bone_segment {
    sinew_vec3 head, tail; /* bind space, file units */
    int32_t joint;         /* the skin joint that moves this segment */
} sinew_bone_segment;

/* Upper bound on the segments sinew_model_bone_segments writes: one per (joint, child joint)
 * pair, plus one per terminal joint. */
uint32_t sinew_model_bone_segment_bound(const sinew_model *model);

/* Writes the bone segments of every skin joint; a terminal joint gets a segment of length
 * `terminal_extension` (file units) continuing its parent's direction (a point when it has no
 * parent joint). Returns the count written. */
uint32_t sinew_model_bone_segments(const sinew_model *model, float terminal_extension,
                                   sinew_bone_segment *out);

/* The point of segment [a, b] nearest p: a + t (b - a), t = clamp((p-a).(b-a) / |b-a|^2, 0, 1)
 * (a when a == b). */
static inline sinew_vec3 sinew_segment_closest(sinew_vec3 p, sinew_vec3 a, sinew_vec3 b)
{
    sinew_vec3 ab = sinew_vec3_sub(b, a);
    float len2 = sinew_vec3_dot(ab, ab);
    float t = len2 > 0 ? sinew_vec3_dot(sinew_vec3_sub(p, a), ab) / len2 : 0.0f;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return sinew_vec3_madd(a, ab, t);
}
/* Distance from p to segment [a, b]. */
static inline float sinew_segment_distance(sinew_vec3 p, sinew_vec3 a, sinew_vec3 b)
{
    return sinew_vec3_distance(p, sinew_segment_closest(p, a, b));
}

/* ---- poses (allocation-free; buffers sized node_count) ---- */

/* The file's pose: every node's local TRS as loaded. */
void sinew_pose_file(const sinew_model *model, sinew_transform *pose);
/* The neutral pose: every node's rest transform. */
void sinew_pose_rest(const sinew_model *model, sinew_transform *pose);

/* Samples `clip` at `time` (clamped to [0, duration]) into `pose`: nodes the clip does not
 * animate keep their value from the file's pose, as glTF players do. */
void sinew_clip_sample(const sinew_model *model, const sinew_clip *clip, float time,
                       sinew_transform *pose);

/* Local-to-world: world[i] = world[parent] * matrix(pose[i]). */
void sinew_pose_to_world(const sinew_model *model, const sinew_transform *pose, sinew_mat4 *world);

/* Skinning matrices: out[j] = world[joint_j.node] * IBM_j (joint_count entries). */
void sinew_skin_matrices(const sinew_model *model, const sinew_mat4 *world, sinew_mat4 *out);

/* Linear blend skinning of every mesh vertex with the given skinning matrices. */
void sinew_skin_positions(const sinew_model *model, const sinew_mat4 *skin_matrices,
                          sinew_vec3 *out_positions);

#ifdef __cplusplus
}
#endif
#endif
