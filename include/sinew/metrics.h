/* sinew metrics: how well skin follows its bones.
 *
 * - Weighted bone distance (after Sidorkin, "Animating tails the auto-rigger never gave a
 *   bone", on why a humanoid rigger does this): for a vertex, the distance to the bones that
 *   actually move it, weighted by its skin weights. A template rigger's tail is driven from
 *   half a metre away (47 cm on a 191 cm fox); a chain brings it down to about the tail's own
 *   radius (17 cm).
 * - Edge stretch (the article's measure): for mesh edges, the ratio of skinned length
 *   to bind length at N evenly spaced moments of a clip; an edge beyond 1.5 or below 0.67 is
 *   torn. "Bind length" is measured on the mesh skinned at the rest pose, in the same world
 *   units as the posed mesh (an armature may scale bind space). Tail edges are measured against
 * body edges as the reference.
 */
#ifndef SINEW_METRICS_H
#define SINEW_METRICS_H

#include "sinew/dyn.h"
#include "sinew/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Torn thresholds of the article's table. */
#define SINEW_STRETCH_TORN_HIGH 1.5f
#define SINEW_STRETCH_TORN_LOW 0.67f

/* Weighted distance (file units) of each listed vertex to the bones that move it:
 * d(v) = sum_j w_vj * min over segments s of joint j of |v - s| (bind space, terminal joints
 * extended by 5% of the model's scale). `vertices` lists vertex indices (NULL: all vertices,
 * and then `count` must be vertex_count); `out` (may be NULL) receives d per listed vertex;
 * returns the mean (0 for count 0). Allocates a small segment table with the model's
 * allocator; SINEW_ERR_OUT_OF_MEMORY on failure. */
sinew_result sinew_metrics_weighted_bone_distance(const sinew_model *model,
                                                  const uint32_t *vertices, uint32_t count,
                                                  float *out, float *mean, sinew_error *err);

/* Edges of a mesh: `count` pairs of vertex indices, pairs[2 e] and pairs[2 e + 1]. */
typedef struct sinew_metrics_edges {
    uint32_t *pairs;           /* 2 * count vertex indices */
    uint32_t count;            /* edges */
    sinew_allocator allocator; /* what pairs was allocated with */
} sinew_metrics_edges;

/* The unique edges of the mesh, counted once across seams (by welded position): pairs of
 * vertex indices (the smallest index of each welded position), allocated with the model's
 * allocator; free them with sinew_metrics_edges_free. On failure `out` is zeroed. */
sinew_result sinew_metrics_unique_edges(const sinew_model *model, sinew_metrics_edges *out,
                                        sinew_error *err);
/* Returns edges->pairs to the allocator it came from and zeroes *edges. NULL is fine. */
void sinew_metrics_edges_free(sinew_metrics_edges *edges);

typedef struct sinew_stretch_stats {
    uint64_t samples; /* edge x moment samples measured */
    float p95, p99;   /* percentiles of the ratio skinned / bind length */
    float max, min;   /* extremes of the ratio */
    float torn_share; /* share of samples above 1.5 or below 0.67, in [0, 1] */
} sinew_stretch_stats;

typedef struct sinew_stretch_options {
    uint32_t samples; /* moments per clip, evenly spaced over [0, duration); default: 24 */
} sinew_stretch_options;

/* Edge stretch over one clip. `selected` (one byte per vertex, nonzero = selected, e.g. tail
 * skin) splits edges: both ends selected -> `in_selected`, neither -> `in_others` (edges
 * across the border count in neither). Either output may be NULL. Edges of zero bind length
 * are skipped. Allocates working memory with the model's allocator. */
sinew_result sinew_metrics_stretch(const sinew_model *model, const sinew_clip *clip,
                                   const sinew_stretch_options *options, const uint8_t *selected,
                                   sinew_stretch_stats *in_selected, sinew_stretch_stats *in_others,
                                   sinew_error *err);

/* The ratio of skinned to rest length of each of `edge_count` edges (pairs of vertex indices,
 * as sinew_metrics_unique_edges gives) at `samples` moments evenly spaced over [0, duration)
 * of `clip` (0: 24): out[k * edge_count + e] for moment k (0 where an edge has no rest length).
 * The same ratios sinew_metrics_stretch summarises. Allocates working memory with the model's
 * allocator. */
sinew_result sinew_metrics_edge_ratios(const sinew_model *model, const sinew_clip *clip,
                                       uint32_t samples, const uint32_t *edges, uint32_t edge_count,
                                       float *out, sinew_error *err);

/* Summarises `count` ratios (reordered in place; zeros, edges without rest length, skipped). */
void sinew_stretch_summarise(float *ratios, size_t count, sinew_stretch_stats *out);

/* Skin inside the body's capsules (sinew/dyn.h, "body colliders"): over one clip, how many of
 * the selected vertices (a chain's skin) are nearer a capsule's axis than its radius, vertex
 * by moment. */
typedef struct sinew_capsule_share {
    uint64_t samples; /* selected vertex x moment samples */
    uint64_t inside;  /* of them inside some capsule */
    float share;      /* inside / samples, in [0, 1] (0 without samples) */
    float deepest;    /* largest 1 - distance / radius over the samples inside (0: none) */
} sinew_capsule_share;

/* Poses the mesh at `samples` moments evenly spaced over [0, duration) of `clip` (0: 24) and
 * counts the `selected` vertices (one byte per vertex, nonzero = selected) that lie inside any
 * of `capsule_count` capsules deeper than they were modelled: nearer its axis (from its `start`
 * on the way between the world positions of its two nodes to node_b) than its radius, carried
 * from bind space to world by the skinning matrix of node_a's joint (an armature may scale bind
 * space), by more of the radius than in the bind pose. Skin modelled against a leg (a tail's
 * root on a thigh) lies inside a capsule of the leg's median skin radius at rest; it counts
 * only where the motion takes it deeper. `deepest` is that excess. SINEW_ERR_ARGUMENT for a
 * capsule node outside the model; allocates working memory with the model's allocator. */
sinew_result sinew_metrics_capsule_share(const sinew_model *model, const sinew_clip *clip,
                                         uint32_t samples, const uint8_t *selected,
                                         const sinew_dyn_capsule *capsules, uint32_t capsule_count,
                                         sinew_capsule_share *out, sinew_error *err);

/* Marks vertices whose dominant joint (largest weight) is one of `joints` (skin joint
 * indices, `joint_count` of them): out[v] = 1 or 0. */
void sinew_metrics_dominated_by(const sinew_model *model, const int32_t *joints,
                                uint32_t joint_count, uint8_t *out);

#ifdef __cplusplus
}
#endif
#endif
