/* Private to src/rig: the analysis state shared by the pipeline steps. */
#ifndef SINEW_RIG_INTERNAL_H
#define SINEW_RIG_INTERNAL_H

#include "sinew/rig.h"

#define RIG_NONE UINT32_MAX

/* A bind-space bone segment a..b owned by skin joint `owner` (a point when a == b). */
typedef struct rig_segment {
    sinew_vec3 a, b;
    int32_t owner;
} rig_segment;

typedef struct sinew_rig_analysis {
    sinew_allocator alloc;
    uint32_t vertex_count, joint_count;
    uint8_t *regions; /* joint_count sinew_rig_region */
    uint8_t *deforms; /* joint_count: 1 when some vertex has weight > 0.05 on it */
    rig_segment *segments;
    uint32_t segment_count;
    uint8_t *far;   /* vertex_count */
    uint32_t *lobe; /* per representative: far skin joins a piece only within one lobe
                       (0 everywhere until a piece is split, see rig_split_lobes) */
    /* Welded face graph: representative vertices (weld[v] == v) have neighbour lists of
     * representatives; other vertices have none. */
    const uint32_t *weld;
    uint32_t *owned_weld; /* the tolerant weld (a->weld points here) */
    uint32_t *adj_start;  /* vertex_count + 1 */
    uint32_t *adj;
    uint32_t *rep_piece; /* per representative: far piece index (before merging) or RIG_NONE */
    uint32_t *shell;     /* per representative: connected component of the whole mesh */
    uint32_t far_piece_count;
    /* Collar of each far piece (before merging): representatives, CSR by piece. */
    uint32_t *collar_start; /* far_piece_count + 1 */
    uint32_t *collar;
    uint32_t *root_of; /* far piece -> piece it was merged into (itself when not) */
} sinew_rig_analysis;

/* distance.c */
/* Fills a->deforms and a->segments from the model (segments between deforming joints and
 * their nearest deforming ancestor, a lone end helper, or a short terminal extension). */
sinew_result rig_build_segments(sinew_rig_analysis *a, const sinew_model *model, sinew_error *err);
float rig_segment_distance(const rig_segment *s, sinew_vec3 p);
/* Distance from p to the nearest of `count` segments. */
float rig_skeleton_distance(const rig_segment *segs, uint32_t count, sinew_vec3 p);

/* Mean over `verts` of sum_s w_s d(v, bone(j_s)): the weighted bone distance (seed 000).
 * `segs` owners index joints; a joint with no segment uses its position `joint_pos[j]`. */
float rig_weighted_distance(const sinew_vec3 *positions, const uint32_t *verts, uint32_t count,
                            const uint16_t *joints, const float *weights, const rig_segment *segs,
                            uint32_t seg_count, const sinew_vec3 *joint_pos, uint32_t joint_count);

/* pieces.c */
/* Welds vertices closer than `tol` (union-find over a hash grid; the representative is the
 * group's smallest index) into a->weld. */
sinew_result rig_weld_tolerant(sinew_rig_analysis *a, const sinew_model *model, float tol,
                               sinew_error *err);
sinew_result rig_build_graph(sinew_rig_analysis *a, const sinew_model *model, sinew_error *err);
/* Splits the far pieces flagged in `split` (indexed by a->rep_piece) into lobes by a
 * watershed on the distance field: vertices taken in decreasing distance join the lobe of
 * their highest processed neighbour; two lobes meeting at a saddle merge unless both rise at
 * least `persistence` above it. Writes a->lobe (other pieces keep 0). */
sinew_result rig_split_lobes(sinew_rig_analysis *a, const sinew_model *model, const float *dist,
                             const uint8_t *split, float persistence, sinew_error *err);
/* Labels far pieces (connected far representatives) and their collars. */
sinew_result rig_find_pieces(sinew_rig_analysis *a, const sinew_model *model, sinew_error *err);

/* landmarks.c: region names etc. live in the public API. */

/* classify.c */
sinew_result rig_classify(sinew_rig_analysis *a, const sinew_model *model,
                          const sinew_rig_options *opt, sinew_rig_report *report, sinew_error *err);

/* chain.c: the chain's geometry for piece p of `rep` (its vertices `verts`): geodesic g per
 * representative (into `g`, vertex_count floats), L, K and the smoothed joints. With
 * `ring_root`, J_0 is the centroid of the ring right outside the piece instead of the collar
 * centre (a lobe trimmed off a bigger piece). */
typedef struct rig_chain_geo {
    float L;
    uint32_t K;
    sinew_vec3 J[SINEW_RIG_MAX_SEGMENTS + 1];
} rig_chain_geo;
sinew_result rig_chain_geometry(const sinew_rig_analysis *a, const sinew_model *m,
                                const sinew_rig_report *rep, uint32_t p, float segment_fraction,
                                const uint32_t *verts, uint32_t count, int ring_root, float *g,
                                rig_chain_geo *out, sinew_error *err);
/* 1 when piece p came from splitting a bigger piece into lobes. */
int rig_piece_is_split(const sinew_rig_analysis *a, const sinew_rig_report *rep, uint32_t p);

/* Options with defaults filled in. */
sinew_rig_options rig_options_resolve(const sinew_rig_options *options);

static inline sinew_vec3 rig_joint_position(const sinew_model *m, uint32_t j)
{
    return sinew_mat4_translation(&m->skin.joints[j].bind);
}

/* Nearest joint ancestor (skin joint index) of skin joint j, or -1. */
int32_t rig_parent_joint(const sinew_model *m, uint32_t j);

#endif
