/* sinew solve: re-solve an artist's clip onto another rig of the same creature by fitting the
 * skinned surface (Sidorkin, "Solve the surface, not the skeleton"; the transform half of
 * SSDR, Le and Deng 2012, with the per-frame moments of Dem Bones).
 *
 * Pipeline for one clip:
 *   1. frames: the clip's key times (or a fixed rate), sinew_solve_frame_times;
 *   2. correspondence: each target-rig vertex's nearest source vertex in the two bind-space
 *      (rest) meshes, sinew_solve_correspond (identity when they are the same mesh; refused
 *      when the mean nearest distance is above 2% of the diagonal). Files' units and facing
 *      cannot be trusted (a rigging service hands back centimetres, metres, or the creature
 *      turned by 90 or 180 degrees), so sinew_solve_correspond_aligned first tries the meshes
 *      as they are, exactly as sinew_solve_correspond, and only when that fails finds the
 *      similarity x_target = s R x_source + t that lays the source onto the target
 *      (sinew_solve_align: 24 axis-aligned starts, trimmed ICP with scale) and corresponds the
 *      moved source;
 *   3. targets: the source rig skinned at every frame; a target vertex follows the blended
 *      skinning matrix of its nearest source vertex, applied to its own bind position
 *      (exact for the same mesh, and exact at rest for any mesh), sinew_solve_targets;
 *      the targets are in the source's world, so both files must place the creature alike
 *      (the same mesh lineage: a rigger's output of the artist's file, as in the article),
 *      unless an alignment maps them: then each source skinning matrix M_j is used as
 *      A M_j A^-1 (A the similarity), i.e. the source's skinned surface is carried into the
 *      target's bind space, so targets, Q, errors and the written tracks are all in the
 *      target's own units and place (sinew_solve_targets_aligned, sinew_solve_options.alignment;
 *      for files whose rest pose is not their bind space, such as FBX exports with a scaled
 *      and turned armature, R_t A R_s^-1 M_j A^-1 with R each rig's bind-to-rest-world map);
 *   4. solve: per frame, the unknowns are the target rig's skinning matrices M_j =
 *      world_j * IBM_j (rigid). Each bone in turn gets the weighted rigid fit (Horn's
 *      quaternion method, top eigenvector of the 4x4 matrix by cyclic Jacobi) to what the
 *      other bones leave unexplained; sweeps repeat until the RMS error or its progress per
 *      sweep is small against the model diagonal; each frame starts from the previous one.
 *      The per-vertex sums are precomputed as moments (uuT once per rig, vuT once per frame),
 *      so a sweep costs nothing per vertex. sinew_solver_*;
 *   5. output: local TRS of the target rig's nodes, local_j = inv(world_parent) M_j W0_j,
 *      written as an animation (sinew_solve_write_clip), each track keeping only the keys a
 *      player needs to play it within a tolerance of the track keyed at every frame
 *      (sinew_channel_reduce; sinew_solve_options.all_keys keeps every frame).
 *
 * Transfer quality: Q = 1 - sum ||x_solved - x_target|| / sum ||x_target - x_bind||
 * over every frame and target vertex, i.e. the share of the surface's motion away from the
 * bind pose that the rig reproduces (1 = perfect, 0 = no better than standing still, can be
 * negative). x_solved is the target rig re-skinned from the written local tracks; x_bind is
 * the rig skinned in its rest pose (the stored bind positions, unless an armature node scales
 * the whole rig, as FBX exports do). Errors are also reported per vertex as a fraction of the
 * box diagonal of those rest positions.
 *
 * Scale: each M_j is solved as rotation x sigma_j + translation, with sigma_j the uniform
 * scale M_j has in the rest pose (1 for most files; 100 under a centimetre armature). Clips
 * that animate scale cannot be reproduced exactly.
 *
 * Rotation-only variant: every joint with a joint ancestor keeps its rest local translation
 * (and scale), so bone lengths are exact; only local rotations are solved, parent before
 * child, each about its joint pivot. Root joints (no joint ancestor) stay free rigid bodies:
 * the body must still travel.
 */
#ifndef SINEW_SOLVE_H
#define SINEW_SOLVE_H

#include "sinew/base.h"
#include "sinew/math.h"
#include "sinew/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Frames one clip's solve takes at most: ten minutes at 60 per second (five at 120). A solve
 * keeps a pose and a skinning matrix per joint for every frame, about 10 KB a frame for a
 * 100-joint rig (360 MB here), and sweeps every frame (about a millisecond each on the
 * shared models): real clips, seconds to a few minutes at 24 to 120 keys per second, stay
 * well under it, while a clip of a million key times asked 790 MB and a ten million over
 * 3.7 GB. sinew_solve_options.max_frames may set another bound. */
#define SINEW_SOLVE_MAX_FRAMES 36000u
/* The fastest a clip with too many key times is resampled at, frames per second: motion
 * capture records at up to 120, and players draw at 60 to 144 per second. */
#define SINEW_SOLVE_MAX_RATE 120.0f

/* Mean nearest distance (fraction of the target diagonal) above which two meshes are not
 * the same creature in the same bind space, and sinew_solve_correspond refuses. */
#define SINEW_SOLVE_MAX_MEAN_NEAREST 0.02f
/* Heatmap: errors at or above this fraction of the diagonal are full red. */
#define SINEW_SOLVE_HEAT_RED 0.03f

/* Default key reduction tolerances of the written clip: a translation may be played up to
 * 1e-4 of the diagonal (a world length, whatever scales the armature) and a rotation 0.01
 * degree off the track keyed at every frame. 1e-4 is the default tolerance of
 * gltf-transform's resample() (glTF-Transform, functions/resample), the common keyframe
 * clean-up for glTF. Measured on the quaternius Fox, Wolf, Horse, Cow and Deer (control runs
 * of Walk, `sinew solve --control`): at 0.1 degree the keys written are 32-37% of one per
 * frame but Q as played drops from 100% to 98.8-99.9% (a root turned 0.1 degree moves the far
 * skin 0.2% of the diagonal, a large share of what a slow clip moves); at 0.01 degree, 36-41%
 * of the keys and Q 99.94-99.98%, which keeps the control run the test it is. On the cow,
 * 1e-5 of the diagonal for translations adds 3% of keys and leaves Q as it is. Measured range:
 * 0.01 to 0.1 degree, 1e-5 to 1e-4 of the diagonal. */
#define SINEW_SOLVE_KEY_TRANSLATION 1e-4f
#define SINEW_SOLVE_KEY_DEGREES 0.01f

/* A similarity that lays the source's bind-space mesh onto the target's:
 * x_target = scale * R(rotation) x_source + translation. */
typedef struct sinew_solve_alignment {
    float scale;            /* s: target units per source unit (100 for metres to centimetres) */
    sinew_quat rotation;    /* R, unit quaternion (x, y, z, w), source to target axes */
    sinew_vec3 translation; /* t, target units (bind space) */
    float yaw;              /* radians in (-pi, pi]: where R turns the source's forward +Z,
                               measured about +Y (atan2 of its x over its z) */
    float tilt;             /* radians: the angle R puts between the source's +Y and +Y (0 for a
                               pure turn about the vertical) */
    float trimmed_mean;     /* target units: the kept candidate's score, the mean of two trimmed
                               means: subsampled source points to their nearest target vertex, and
                               subsampled target points to their nearest source vertex, each over
                               its best (1 - trim) share of pairs */
    uint32_t start;         /* the start that won, of 24 axis-to-axis rotations: 0..3 the turns
                               of 0, 90, 180, 270 degrees about +Y, 4..23 those that also lay
                               the up axis along another axis */
    uint32_t iterations;    /* ICP iterations of the winning candidate (coarse and fine) */
    uint32_t points;        /* source points in the ICP subsample */
} sinew_solve_alignment;

typedef struct sinew_solve_options {
    uint32_t max_sweeps;      /* bone sweeps per frame; default: 100 (the first frame 4x) */
    float progress_tolerance; /* stop when a sweep lowers the RMS error by less than this
                                 fraction of the diagonal; default: 1e-9 */
    float error_tolerance;    /* stop when the RMS error is below this fraction of the
                                 diagonal; default: 1e-7 */
    int rotation_only;        /* 1: keep rest joint translations (bone lengths); default 0 */
    uint32_t max_vertices;    /* constraints subsampled evenly to at most this many target
                                 vertices (quality is still measured on all); default: 0 = all */
    float frame_rate;         /* frames per second; default: 0 = the clip's own key times */
    const sinew_solve_alignment *alignment; /* the source-to-target similarity the
                                 correspondence used (sinew_correspondence_stats.alignment when
                                 .aligned); default: NULL = both already share one bind space */
    uint32_t max_frames;   /* frames per clip at most (see sinew_solve_plan_frames);
                              default: 0 = SINEW_SOLVE_MAX_FRAMES */
    int all_keys;          /* 1: the written clip keys every solved frame; default 0: each track
                              keeps only the keys a player needs to play it within the tolerances
                              below (sinew_channel_reduce) */
    float key_translation; /* translation tolerance, fraction of the diagonal (scale: of the
                              node's own scale); default: 0 = SINEW_SOLVE_KEY_TRANSLATION */
    float key_degrees;     /* rotation tolerance, degrees; default: 0 = SINEW_SOLVE_KEY_DEGREES */
    /* What the calls taking these options allocate with: the solver, the clip result
     * (recorded in it for sinew_solve_clip_result_free) and their working memory; default:
     * malloc. */
    const sinew_allocator *allocator;
} sinew_solve_options;

/* ---- correspondence ---- */

typedef struct sinew_correspondence_stats {
    float mean_distance; /* mean nearest distance of the correspondence returned (after the
                            alignment when `aligned`), target units (bind space); a lower bound
                            when `partial` */
    float max_distance;  /* largest nearest distance, target units (the largest seen when
                            `partial`) */
    float diagonal;      /* the target's bind-space box diagonal, target units */
    int identity;        /* 1 when the meshes are the same vertex for vertex */
    int partial;         /* 1: refused early: the search stopped as soon as the mean was sure to
                            exceed 5 times the limit, 10% of the diagonal (nearest distances
                            already summed plus each other vertex's distance to the source's
                            box), so that meshes far apart are refused in milliseconds */
    float placed_mean_distance; /* the meshes as they are (before any alignment): mean nearest
                            distance, target units; a lower bound when placed_partial */
    int placed_partial;         /* 1: placed_mean_distance is a lower bound (see `partial`) */
    int align_tried; /* 1: the meshes did not overlap as placed and `alignment` was fitted */
    int aligned;     /* 1: `nearest` is from the source moved by `alignment` (it passed) */
    sinew_solve_alignment alignment; /* the fitted similarity when align_tried */
} sinew_correspondence_stats;

/* For every vertex of `target`'s mesh, the index of the nearest vertex of `source`'s mesh in
 * bind space (uniform grid, exact nearest), the meshes taken as they are. `nearest` holds
 * target->mesh.vertex_count entries. Returns SINEW_ERR_INVALID_VALUE, naming the distance,
 * when the mean nearest distance is above SINEW_SOLVE_MAX_MEAN_NEAREST of the target diagonal
 * (the meshes do not overlap: different creatures, or not aligned; `nearest` is then not
 * meaningful), SINEW_ERR_ARGUMENT for an empty mesh. Allocates scratch through `allocator`
 * (NULL: malloc). `stats` may be NULL. */
sinew_result sinew_solve_correspond(const sinew_model *source, const sinew_model *target,
                                    const sinew_allocator *allocator, uint32_t *nearest,
                                    sinew_correspondence_stats *stats, sinew_error *err);

typedef struct sinew_solve_align_options {
    int disable;             /* 1: never align (sinew_solve_correspond's strict behaviour);
                                default: 0 = align when the meshes do not overlap as placed */
    uint32_t max_points;     /* ICP subsample of each mesh, evenly spread over the vertex
                                order; default: 2000 */
    float trim;              /* share of the worst ICP pairs dropped every iteration, so that a
                                part one mesh lacks (a tail) does not pull the fit, in (0, 0.9);
                                default: 0 (or out of range) = 0.1 */
    uint32_t max_iterations; /* ICP iterations per candidate and stage; default: 60 */
} sinew_solve_align_options;

/* The similarity x_target = s R x_source + t that best lays `source`'s bind-space mesh onto
 * `target`'s, whether or not they overlap already: 24 starts, the rotations taking axes to
 * axes (first the turns of 0, 90, 180 and 270 degrees about +Y: glTF is Y up and facing
 * conventions differ by quarter turns; then those that also move the up axis, for Z-up bind
 * spaces), each with s
 * the ratio of the two box diagonals and t matching the box centres, each refined by trimmed
 * ICP with scale (nearest target vertex of every subsampled source point and nearest source
 * vertex of every subsampled target point, both ways so that the scale cannot collapse onto
 * a patch, the worst `trim` share of each dropped, then the closed-form similarity of the
 * rest: Horn 1987 for R, Umeyama 1991 for s and t); the candidate with the lowest trimmed
 * mean distance is refined once more against every vertex. Deterministic. Returns
 * SINEW_ERR_ARGUMENT for an
 * empty mesh, SINEW_ERR_INVALID_VALUE for non-finite or single-point meshes. Allocates
 * scratch through `allocator` (NULL: malloc). `options` may be NULL (defaults). */
sinew_result sinew_solve_align(const sinew_model *source, const sinew_model *target,
                               const sinew_solve_align_options *options,
                               const sinew_allocator *allocator, sinew_solve_alignment *out,
                               sinew_error *err);

/* sinew_solve_correspond, then, only when the meshes fail its overlap test as placed and
 * options->disable is 0, sinew_solve_align and the correspondence of the moved source: on
 * success stats->aligned says which one `nearest` is from (pass &stats->alignment as
 * sinew_solve_options.alignment). Meshes that overlap as placed give exactly
 * sinew_solve_correspond's answer, bit for bit. When neither overlaps, returns
 * SINEW_ERR_INVALID_VALUE naming both mean distances and the alignment tried. `stats` may be
 * NULL, but the caller then cannot know whether an alignment is needed: pass it. */
sinew_result sinew_solve_correspond_aligned(const sinew_model *source, const sinew_model *target,
                                            const sinew_solve_align_options *options,
                                            const sinew_allocator *allocator, uint32_t *nearest,
                                            sinew_correspondence_stats *stats, sinew_error *err);

/* Applies `alignment` to a source bind-space point (target units). */
sinew_vec3 sinew_solve_alignment_apply(const sinew_solve_alignment *alignment, sinew_vec3 p);

/* ---- frames and targets ---- */

/* The frame times for `clip`: with frame_rate 0 the sorted union of its key times (keys
 * closer than 1e-4 s merged), else 0, 1/rate, ... up to and including the duration. Writes
 * at most `capacity` times when `times` is not NULL; returns the full count (query with
 * times = NULL), at most UINT32_MAX (a duration that is not finite counts as 0 s). A clip
 * without keys has one frame at 0. sinew_solve_plan_frames says which rate to pass. */
uint32_t sinew_solve_frame_times(const sinew_clip *clip, float frame_rate, float *times,
                                 uint32_t capacity);

/* Which frames a clip's solve takes (sinew_solve_plan_frames). */
typedef struct sinew_solve_frame_plan {
    uint32_t frame_count; /* frames */
    float rate;           /* frames per second (sinew_solve_frame_times' frame_rate): the
                             options' frame_rate, or the resampling rate; 0 = the key times */
    int resampled;        /* 1 when the clip had more key times than max_frames and is
                             resampled at `rate` instead */
    uint32_t key_times;   /* the clip's distinct key times, counted up to max_frames + 1 */
} sinew_solve_frame_plan;

/* Plans the frames of `clip` within `max_frames` (0: SINEW_SOLVE_MAX_FRAMES): at
 * `frame_rate` when it is > 0; else at the clip's key times when there are at most
 * max_frames of them; else resampled at the clip's own key rate (1 / sinew_clip_key_spacing,
 * at most SINEW_SOLVE_MAX_RATE), `resampled` set. SINEW_ERR_INVALID_VALUE, naming the clip,
 * its duration and the frames it would need, when the duration is not finite or the frames
 * at that rate are more than max_frames (a clip hours long, or keys far beyond the others).
 * Counting stops past max_frames, so a plan costs at most that many key look-ups. */
sinew_result sinew_solve_plan_frames(const sinew_clip *clip, float frame_rate, uint32_t max_frames,
                                     sinew_solve_frame_plan *out, sinew_error *err);

/* Skins `source` with `clip` at each of `frame_count` times and maps the surface onto the
 * target mesh through `nearest` (from sinew_solve_correspond): out[f * V + i] for target
 * vertex i of V = target->mesh.vertex_count. With target == source and nearest == NULL the
 * targets are the source's own skinned positions (the control run). Allocates scratch. */
sinew_result sinew_solve_targets(const sinew_model *source, const sinew_clip *clip,
                                 const float *times, uint32_t frame_count,
                                 const sinew_model *target, const uint32_t *nearest,
                                 const sinew_allocator *allocator, sinew_vec3 *out,
                                 sinew_error *err);

/* sinew_solve_targets with the source carried into the target's space by `alignment` (from
 * sinew_solve_correspond_aligned; NULL: none, exactly sinew_solve_targets): target vertex i
 * follows R_t A R_s^-1 M_j A^-1 of its nearest source vertex's joints, A the similarity and
 * R each rig's rest skinning map (bind space to world at rest; identity for most files, so
 * A M_j A^-1), so at rest the targets are the target's own rest pose and in motion the
 * source's skinned surface mapped by A, in target units. The control form (target ==
 * source, nearest == NULL) takes no alignment: SINEW_ERR_ARGUMENT; a rig whose rest map is
 * singular: SINEW_ERR_INVALID_VALUE. */
sinew_result sinew_solve_targets_aligned(const sinew_model *source, const sinew_clip *clip,
                                         const float *times, uint32_t frame_count,
                                         const sinew_model *target, const uint32_t *nearest,
                                         const sinew_solve_alignment *alignment,
                                         const sinew_allocator *allocator, sinew_vec3 *out,
                                         sinew_error *err);

/* ---- the per-frame solver ---- */

typedef struct sinew_solver sinew_solver; /* opaque: the rig, its moments, the warm start */

typedef struct sinew_solve_frame_stats {
    uint32_t sweeps;  /* bone sweeps this frame took */
    double rms_error; /* RMS distance over the constraint vertices after the solve, model
                         units, from the moments (so it costs nothing per vertex) */
} sinew_solve_frame_stats;

/* How many of the rig's vertices the solve fits (its constraint vertices): those with a
 * positive weight on a joint of the skin, at most options->max_vertices of them (0: all). */
uint32_t sinew_solve_fitted_vertices(const sinew_model *rig, const sinew_solve_options *options);

/* Builds a solver for `rig` (the target rig): the constraint vertex subset, the bone pairs
 * sharing vertices and their moments uuT_jk = sum_i w_ij w_ik u~ u~^T (double). Allocates
 * through options->allocator (default malloc); later calls do not allocate. Fails with
 * SINEW_ERR_UNSUPPORTED when the rig has no mesh or no joints. */
sinew_result sinew_solver_create(const sinew_model *rig, const sinew_solve_options *options,
                                 sinew_solver **out, sinew_error *err);
/* Frees a solver with the allocator it was made with. NULL is fine. */
void sinew_solver_free(sinew_solver *solver);

/* Forgets the warm start: the next frame starts from an independent per-bone fit. */
void sinew_solver_reset(sinew_solver *solver);

/* The local TRS that joints the surface does not determine (no constraint weight anywhere: an
 * unweighted root above the hips, a joint left in a chain without skin) take from the next
 * frame on: `pose` holds rig->node_count local transforms, of which only those joints' are
 * read (copied); NULL: their rest transforms, the default. The fit has no say in them, and
 * their children are fitted in world space either way, so any choice reproduces the surface
 * at the frames; between frames a player interpolates every local track on its own, and only
 * a smooth one that moves as the source's joint does keeps the children's tracks the
 * source's. sinew_solve_clip passes the source's joint of the same name. Never allocates. */
void sinew_solver_set_unweighted(sinew_solver *solver, const sinew_transform *pose);

/* Solves one frame: `targets` holds rig->mesh.vertex_count world positions (only the
 * constraint subset is read). Writes the rig's skinning matrices (joint_count, rigid, or
 * parent-derived for joints without weight) to `skin_matrices`, and keeps them as the warm
 * start for the next call. Never allocates. `stats` may be NULL. Returns
 * SINEW_ERR_INVALID_VALUE when a target is not finite. */
sinew_result sinew_solver_frame(sinew_solver *solver, const sinew_vec3 *targets,
                                sinew_mat4 *skin_matrices, sinew_solve_frame_stats *stats,
                                sinew_error *err);

/* ---- output and quality ---- */

/* The rig's local node transforms that reproduce `skin_matrices`: joints get
 * local_j = decompose(inv(world_parent) M_j W0_j); other nodes keep the file's TRS.
 * `world` is caller scratch of node_count matrices (filled with the resulting world pose).
 * Allocation-free. */
void sinew_solve_local_pose(const sinew_model *rig, const sinew_mat4 *skin_matrices,
                            sinew_transform *pose, sinew_mat4 *world);

typedef struct sinew_solve_quality {
    double moved;          /* sum over frames and vertices of |x_target - x_bind|, model units */
    double error;          /* sum of |x_solved - x_target|, model units */
    double q;              /* transfer quality 1 - error / moved (1 when both are 0) */
    double mean_error;     /* error / samples, fraction of the diagonal */
    double max_error;      /* worst single vertex in a single frame, fraction of the diagonal */
    uint64_t samples;      /* frames x vertices summed */
    uint32_t worst_frame;  /* frame (as played: sample) of max_error */
    uint32_t worst_vertex; /* target vertex of max_error */
    float worst_time;      /* seconds: the time of max_error */
} sinew_solve_quality;

/* Adds another result's sums into `total` (per-clip to overall); recomputes q and means.
 * worst_* keep the clip-local indices of the worse one. */
void sinew_solve_quality_merge(sinew_solve_quality *total, const sinew_solve_quality *part);

/* The written clip's keys (from the options, resolved against the rig). */
typedef struct sinew_solve_keys {
    int all;             /* 1: a key at every solved frame */
    double translation;  /* tolerance, fraction of the diagonal (see sinew_solve_options) */
    double rotation;     /* tolerance, radians */
    uint64_t frame_keys; /* keys of the clip keyed at every frame (tracks x frames) */
    uint64_t written;    /* keys the written clip holds, over all its tracks */
} sinew_solve_keys;

typedef struct sinew_solve_clip_result {
    uint32_t frame_count;
    uint32_t node_count;       /* the rig's */
    uint32_t joint_count;      /* the rig's */
    uint32_t vertex_count;     /* the rig's */
    float *times;              /* frame_count, seconds */
    sinew_transform *poses;    /* frame_count * node_count local TRS (quaternion signs
                                  continuous from frame to frame) */
    sinew_mat4 *skin_matrices; /* frame_count * joint_count: the solved M_j */
    float *vertex_error;       /* vertex_count: each vertex's worst error over the clip,
                                  model units */
    float *frame_error;        /* frame_count: mean vertex error per frame, model units */
    float *vertex_error_sum;   /* vertex_count: sum over frames of the vertex's error, model
                                  units (Q of any vertex subset: 1 - sum error / sum moved) */
    float *vertex_moved_sum;   /* vertex_count: sum over frames of |x_target - x_bind| */
    sinew_solve_quality quality;
    double diagonal;             /* the rig's bind-space diagonal, model units */
    double sweeps_per_frame;     /* mean */
    uint32_t max_sweeps;         /* largest sweep count of any frame */
    double reskin_mismatch;      /* largest |M_j re-derived from `poses` - solved M_j| over
                                    every frame, joint and vertex, model units (the check that
                                    the written tracks reproduce the solve) */
    sinew_solve_frame_plan plan; /* how the frames were chosen: a clip with more key times
                                    than max_frames is resampled (plan.resampled) */
    sinew_solve_keys keys;       /* which keys the written clip keeps, and how many */
    double seconds_targets;      /* not measured by the library: 0; the CLI may fill them */
    double seconds_solve;
    /* What the arrays were allocated with (the options' allocator). */
    sinew_allocator allocator;
} sinew_solve_clip_result;

/* Solves `clip` of `source` onto `rig` end to end (frames, targets, solver, local tracks,
 * quality). `nearest` is from sinew_solve_correspond(_aligned), or NULL when rig == source
 * (control); when that correspondence used an alignment, options->alignment must carry it
 * (every length in the result is then in the rig's units).
 * Frames as sinew_solve_plan_frames plans them (its SINEW_ERR_INVALID_VALUE passes through).
 * On success fills `out` (free with sinew_solve_clip_result_free); on failure `out` is
 * zeroed. Allocates through options->allocator (default malloc). */
sinew_result sinew_solve_clip(const sinew_model *source, const sinew_clip *clip,
                              const sinew_model *rig, const uint32_t *nearest,
                              const sinew_solve_options *options, sinew_solve_clip_result *out,
                              sinew_error *err);
/* Frees the result's arrays with the allocator they were made with (result->allocator) and
 * zeroes it. NULL is fine. */
void sinew_solve_clip_result_free(sinew_solve_clip_result *result);

/* The quality of `result` (from sinew_solve_clip with the same source, clip, rig, nearest and
 * options) as a glTF player shows it: the rig plays the clip sinew_solve_write_clip writes (its
 * keys, LINEAR: lerp for translation and scale, slerp for rotation, through sinew_clip_sample),
 * and the targets are the source playing `clip` the same way, mapped as sinew_solve_targets_
 * aligned maps them; both are sampled at every key time of either clip and at the midpoint
 * between consecutive ones, where a player interpolates and the solve never looked. Same
 * definitions as result->quality (Q, errors in fractions of result->diagonal); worst_frame is
 * the sample index. `vertex_error` (may be NULL) gets each vertex's worst error over the
 * samples, model units (vertex_count). Working memory through options->allocator (default
 * malloc). */
sinew_result sinew_solve_quality_played(const sinew_model *source, const sinew_clip *clip,
                                        const sinew_model *rig, const uint32_t *nearest,
                                        const sinew_solve_options *options,
                                        const sinew_solve_clip_result *result,
                                        sinew_solve_quality *out, float *vertex_error,
                                        sinew_error *err);

/* What reducing the keys may cost: Q as played of the written clip at most this much below
 * Q of the same solve keyed at every frame: 0.02 points of Q, well inside the 0.05 points the
 * project asks its printed figures to agree with three.js playback by. (At 0.05 points
 * CesiumMan's near-still animation_18 kept keys that cost 0.024 points in sinew's float
 * measure, which already reads 0.04 points below three.js's double-precision one there.) */
#define SINEW_SOLVE_KEY_Q_LOSS 0.0002

/* Q as played of the clip as it will be written (sinew_solve_quality_played), after settling
 * the key tolerances: where the reduction of result->keys would cost more than
 * SINEW_SOLVE_KEY_Q_LOSS against every frame, both tolerances are halved until it does not
 * (a slow clip, an idle, moves so little that a tolerance fit for a walk shows in its Q), and
 * after six halvings every frame is keyed. Updates result->keys (tolerances, written) to what
 * sinew_solve_write_clip will then write. Costs a few played measurements per clip. */
sinew_result sinew_solve_quality_written(const sinew_model *source, const sinew_clip *clip,
                                         const sinew_model *rig, const uint32_t *nearest,
                                         const sinew_solve_options *options,
                                         sinew_solve_clip_result *result, sinew_solve_quality *out,
                                         float *vertex_error, sinew_error *err);

/* Writes a solved clip into `doc` (the rig's own document) as the animation `name`: for every
 * skin joint node, LINEAR translation and rotation tracks at the result's times (reduced to
 * the keys result->keys asks for), and a scale track when the local scale differs from the
 * node's own by more than 1e-4 (the clip that sinew_solve_quality_played plays). An existing
 * animation of that name is cleared and rewritten only when `replace` is 1; otherwise
 * SINEW_ERR_ARGUMENT naming it. Needs the io module (document.h). */
struct sinew_document;
sinew_result sinew_solve_write_clip(struct sinew_document *doc, const sinew_model *rig,
                                    const sinew_solve_clip_result *result, const char *name,
                                    int replace, sinew_error *err);

/* Heatmap colour for an error given as a fraction of the diagonal: blue (0, 0, 1) at 0
 * through green and yellow to red (1, 0, 0) at SINEW_SOLVE_HEAT_RED and above; alpha 1. */
void sinew_solve_heat_color(float error_fraction, float rgba[4]);

#ifdef __cplusplus
}
#endif
#endif
