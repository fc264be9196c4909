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

/* protrusion.c: walks from the surface's tips along their cross-sections (see there). */
typedef struct rig_section {
    float g;             /* geodesic distance from the tip of this iso-contour */
    sinew_vec3 centre;   /* length-weighted centre of the contour, bind space */
    float radius;        /* RMS distance of the contour from its centre */
    float perimeter;     /* contour length (0: no contour at this level) */
    float bone_distance; /* distance of the centre to the nearest bone segment */
    uint32_t open_ends;  /* contour ends on the mesh's boundary: 0 for a ring around a tube,
                            2 across a sheet (a strip, a cape) */
    float flatness;      /* sqrt of the contour's smaller over its larger spread: 1 for a
                            ring, near 0 across a slab */
} rig_section;
typedef struct rig_run {
    uint32_t tip;           /* representative the walk started from */
    float cut;              /* geodesic distance from the tip where the run ends (its root) */
    float step;             /* spacing of the sections */
    float radius;           /* median section radius */
    uint32_t section_count; /* sections from the tip to the cut */
    rig_section *sections;
    uint32_t vertex_count; /* representatives closer to the tip than the cut (or, where a
                              crease bounds the run, inside it: see crease.c), by distance */
    uint32_t *vertices;
    float *g;     /* their distance from the tip */
    int creased;  /* 1 when a crease bounds the run (crease.c): its border is the fold, not
                     an estimate within a section radius */
    int met_body; /* 1 when its sections closed on a body (where a crease may close) */
} rig_run;
typedef struct rig_runs {
    sinew_allocator alloc;
    uint32_t count, capacity;
    rig_run *items;
} rig_runs;
typedef struct sinew_rig_analysis {
    sinew_allocator alloc;
    uint32_t vertex_count, joint_count;
    uint8_t *regions; /* joint_count sinew_rig_region */
    uint8_t *deforms; /* joint_count: 1 when some vertex has weight > 0.05 on it */
    rig_segment *segments;
    uint32_t segment_count;
    /* Welded face graph: representative vertices (weld[v] == v) have neighbour lists of
     * representatives; other vertices have none. */
    const uint32_t *weld;
    uint32_t *owned_weld; /* the tolerant weld (a->weld points here) */
    uint32_t *adj_start;  /* vertex_count + 1 */
    uint32_t *adj;
    uint32_t *shell; /* per representative: connected component of the whole mesh */
    /* Welded triangles (representative corners; degenerate ones dropped) and, per
     * representative, the triangles it is a corner of (CSR). */
    uint32_t wtri_count;
    uint32_t *wtri;       /* 3 * wtri_count */
    uint32_t *wtri_start; /* vertex_count + 1 */
    uint32_t *wtri_of;
    /* crease.c (rig_measure_surface), per representative: concavity, outward unit normal,
     * neighbour spacing and area; and the longest welded edge */
    float *concavity;
    sinew_vec3 *normals;
    float *spacing;          /* mean distance from its neighbours */
    float *area;             /* a third of the area of its triangles */
    sinew_vec3 *area_normal; /* a third of their outward area-normals */
    float edge_max;
    rig_runs runs;         /* every walk */
    uint32_t *piece_runs;  /* per report piece: its run */
    int32_t chain_parent;  /* skin joint the chains hang from */
    uint32_t *shell_rides; /* per shell (a representative's a->shell): 1 + the tail piece a
                              shell too small to be a piece rides (classify.c), else 0 */
} sinew_rig_analysis;

/* distance.c */
/* Fills a->deforms and a->segments from the model (segments between deforming joints and
 * their nearest deforming ancestor, a lone end helper, or a short terminal extension, at most 0.05
 * H). */
sinew_result rig_build_segments(sinew_rig_analysis *a, const sinew_model *model, float H,
                                sinew_error *err);
float rig_segment_distance(const rig_segment *s, sinew_vec3 p);
/* Distance from p to the nearest of `count` segments. */
float rig_skeleton_distance(const rig_segment *segs, uint32_t count, sinew_vec3 p);

/* Mean over `verts` of sum_s w_s d(v, bone(j_s)): the weighted bone distance (the distance
 * from each vertex to the bones that actually move it). `segs` owners index joints; a joint
 * with no segment uses its position `joint_pos[j]`. */
float rig_weighted_distance(const sinew_vec3 *positions, const uint32_t *verts, uint32_t count,
                            const uint16_t *joints, const float *weights, const rig_segment *segs,
                            uint32_t seg_count, const sinew_vec3 *joint_pos, uint32_t joint_count);

/* pieces.c */
/* Welds vertices closer than `tol` (union-find over a hash grid; the representative is the
 * group's smallest index) into a->weld. */
sinew_result rig_weld_tolerant(sinew_rig_analysis *a, const sinew_model *model, float tol,
                               sinew_error *err);
/* The welded face graph, the welded triangles and the shells. */
sinew_result rig_build_graph(sinew_rig_analysis *a, const sinew_model *model, sinew_error *err);

/* landmarks.c (the landmarks themselves are public API). */
/* deforms[j] = 1 when joint j moves some vertex with weight above 0.05 (every joint when the
 * mesh has no weights at all); returns how many do. */
uint32_t rig_mark_deforming(const sinew_model *model, uint8_t *deforms);

/* geodesic.c: Dijkstra on edge lengths over the welded graph, one settled vertex at a time. */
typedef struct rig_heap_item {
    float g;
    uint32_t v;
} rig_heap_item;
typedef struct rig_geodesic {
    sinew_allocator alloc;
    const sinew_rig_analysis *a;
    const sinew_vec3 *positions;
    float *g;      /* per vertex: distance so far (FLT_MAX: not reached) */
    uint8_t *done; /* per vertex: settled */
    uint32_t *touched, touched_count;
    rig_heap_item *heap;
    uint32_t heap_count, heap_capacity;
} rig_geodesic;
sinew_result rig_geodesic_init(rig_geodesic *geo, const sinew_rig_analysis *a, const sinew_model *m,
                               sinew_error *err);
void rig_geodesic_free(rig_geodesic *geo);
/* Forgets the last walk (clears only what it touched). */
void rig_geodesic_reset(rig_geodesic *geo);
/* Starts the walk at representative v with distance g (several seeds: several sources). */
void rig_geodesic_seed(rig_geodesic *geo, uint32_t v, float g);
/* Settles the next nearest vertex; returns 0 when the walk has reached everything it can. */
int rig_geodesic_next(rig_geodesic *geo, uint32_t *v, float *g);

/* crease.c: fills a->concavity (how far each representative's welded neighbours' mean lies
 * inside the surface, above its tangent plane, over their mean distance from it: > 0 where the
 * surface folds inwards, < 0 where it is convex; 0 for other vertices), a->normals (outward:
 * each shell turned by its signed volume), a->spacing, a->area, a->area_normal and
 * a->edge_max. */
sinew_result rig_measure_surface(sinew_rig_analysis *a, const sinew_model *m, sinew_error *err);
/* A crease: concavity above RIG_CREASE_FOLD. The neighbours' mean sits that fraction of an
 * edge inside the tangent plane at a fold of about 15 degrees. Measured on the 125 welded
 * tails of random creatures 0-299, the rim's median vertex reads 0.23 (0.03 at the tenth
 * percentile: tails that leave the body tangentially, where the crossing stands); the
 * Quaternius horse's rim 0.24, and on the other nine shared notail models no fold closes
 * round the tail at any threshold from 0.05 to 0.15. Safe range 0.06 to 0.10 (the same seeds
 * pass): 0.05 moved seed 80's border onto a fold in its rump, 0.12 lost seed 241's rim. */
#define RIG_CREASE_FOLD 0.08f
/* The skin of a walk from `tip` (settled by `geo`) that a closed crease bounds: a flood from
 * the tip that stops at crease representatives at geodesic distance >= `from` (they are the
 * skin's last ring, as a rigger's border runs along a fold). Marks it region[v] = stamp
 * (`queue` holds vertex_count entries) and returns the crease's mean distance from the tip,
 * or -1 when no crease closes around the tip before `reach` (the flood got there). */
float rig_crease_cut(const sinew_rig_analysis *a, const rig_geodesic *geo, uint32_t tip, float from,
                     float reach, uint32_t *region, uint32_t stamp, uint32_t *queue);

/* crease.c: a crease with gaps, bridged: the cheapest ring of skin around the tip between `from`
 * and `reach` (a minimum vertex cut, folds at the root's scale nearly free), taken when folds
 * make up most of its length. Marks and returns as rig_crease_cut; -1 when no such ring. */
float rig_fold_bridge(const sinew_rig_analysis *a, const sinew_model *m, const rig_geodesic *geo,
                      uint32_t tip, float from, float reach, float root_radius, uint32_t *region,
                      uint32_t stamp, uint32_t *queue, sinew_error *err);

/* maxflow.c: maximum flow (push-relabel) over a graph of node_count nodes. */
#define RIG_FLOW_INFINITE 1e300
typedef struct rig_flow {
    sinew_allocator alloc;
    uint32_t node_count, arc_count, arc_capacity;
    uint32_t *from, *to, *reverse; /* per arc (packed by tail when the flow runs) */
    uint32_t *start;               /* node_count + 1: each node's arcs, once packed */
    uint32_t *slot;                /* per arc as added: where packing put it */
    uint32_t *it, *queue, *label;
    double *cap, *excess, largest, finite, uncut;
    int packed;
} rig_flow;
/* Room for `arcs` arcs (each with its reverse). */
sinew_result rig_flow_init(rig_flow *f, const sinew_allocator *alloc, uint32_t nodes, uint32_t arcs,
                           sinew_error *err);
void rig_flow_free(rig_flow *f);
/* Adds an arc u -> v (RIG_FLOW_INFINITE: never cut) before the first rig_flow_max; returns its
 * id for rig_flow_set. */
uint32_t rig_flow_arc(rig_flow *f, uint32_t u, uint32_t v, double cap);
/* Sets arc's capacity: any value before the first rig_flow_max, after it only a raise up to
 * the capacity it was added with (the flow so far stays a flow). */
void rig_flow_set(rig_flow *f, uint32_t arc, double cap);
/* The maximum flow from s to t (RIG_FLOW_INFINITE when an uncuttable path joins them; -1
 * out of memory); called again after raises, it goes on from the flow it had. */
double rig_flow_max(rig_flow *f, uint32_t s, uint32_t t);
/* After rig_flow_max: 1 when v is on s's side of the minimum cut (t cannot be reached from
 * it: of the minimum cuts, the one nearest t). */
int rig_flow_source_side(const rig_flow *f, uint32_t v);

/* Walks every tip of the surface (see protrusion.c); one run per walk, farthest tip first. */
sinew_result rig_find_runs(const sinew_rig_analysis *a, const sinew_model *m, float H,
                           int32_t pelvis, rig_runs *out, sinew_error *err);
void rig_runs_free(rig_runs *runs);
/* Walks `run`'s tip again bridging a crease with gaps (rig_fold_bridge); where one closes
 * (*bridged = 1) the run is replaced by the walk it bounds. */
sinew_result rig_bridge_run(const sinew_rig_analysis *a, const sinew_model *m, float H,
                            rig_run *run, int *bridged, sinew_error *err);
/* qsort comparator for floats, ascending. */
int rig_compare_floats(const void *x, const void *y);

/* classify.c: a piece's geometry and attachment from its run (length, radius, elongation,
 * root, tip, box, sheet, flatness, protrusion, attach joint and region); the other fields are
 * left as they are. */
void rig_measure_piece(const sinew_rig_analysis *a, const sinew_model *m,
                       const sinew_rig_options *opt, const rig_run *run, sinew_rig_piece *pc);

/* classify.c: where along the spine polyline (pelvis, spine joints, head) p projects: 0 at the
 * pelvis, 1 at the head. */
float rig_spine_fraction(const sinew_model *m, const sinew_rig_landmarks *lm, sinew_vec3 p);

/* chain.c: K = clamp(round(L / segment), fewest, most) (a tail's: 3 .. SINEW_RIG_MAX_SEGMENTS). */
uint32_t rig_chain_segment_count(float L, float segment, uint32_t fewest, uint32_t most);
/* The K + 1 joints along a run of length L (see chain.c): J[0] the root section's centre. */
void rig_chain_joints(const rig_run *run, const sinew_rig_piece *pc, float L, uint32_t K,
                      sinew_vec3 *J);

/* wing.c: the shape of a piece's skin and the mirror test of a pair, shared by wings and ears. */
typedef struct rig_shape {
    sinew_vec3 centre;
    double values[3]; /* covariance eigenvalues, descending */
} rig_shape;
rig_shape rig_run_shape(const rig_run *run, const sinew_model *m);
/* How far pieces p and q are from mirror images of each other across the plane halfway between
 * their centres (the mean distance of one's reflected skin to the other's nearest, the larger
 * of the two directions, file units), or FLT_MAX when the line joining them is not level or
 * their spreads differ by more than a wing's mirror bound. */
float rig_mirror_error(const sinew_rig_analysis *a, const sinew_model *m,
                       const sinew_rig_report *rep, uint32_t p, uint32_t q, const rig_shape *sp,
                       const rig_shape *sq);
/* The side of q in a pair (p, q): +1 left, -1 right (p has the other). */
int rig_mirror_side(const rig_shape *sp, const rig_shape *sq);
/* The K + 1 joints of piece p's chain, the exact mirror image of its partner's (wing_partner):
 * the mean of each joint and its partner's reflection. */
void rig_pair_joints(const sinew_rig_analysis *a, const sinew_model *m, const sinew_rig_report *rep,
                     uint32_t p, uint32_t K, sinew_vec3 *J);

/* wing.c: marks mirrored pairs of broad, flat pieces on the shoulders, upper back or arms as
 * SINEW_RIG_VERDICT_WING (after the tail verdicts, before riders and ownership); one the
 * options' skip_pieces list is SKIPPED. */
sinew_result rig_find_wings(const sinew_rig_analysis *a, const sinew_model *m,
                            const sinew_rig_options *opt, sinew_rig_report *rep, sinew_error *err);
/* The joint a wing's chain hangs from: the torso joint at or above its attachment. */
int32_t rig_wing_parent(const sinew_rig_analysis *a, const sinew_model *m,
                        const sinew_rig_piece *pc);
/* K of a wing's chain: one for the pair, from their mean span (3 .. SINEW_RIG_MAX_SEGMENTS). */
uint32_t rig_wing_segments(const sinew_rig_report *rep, uint32_t p, float segment_fraction);

/* ear.c (with sinew_rig_options.ears): marks mirrored pairs of long pieces with flat
 * cross-sections on the head as SINEW_RIG_VERDICT_EAR, before pieces are merged (an ear is
 * never fur over its partner or over a horn beside it). Two ears whose skins touch at their
 * roots (one walk over both) get their runs cut where the skin is nearer the other's tip. */
sinew_result rig_find_ears(sinew_rig_analysis *a, const sinew_model *m,
                           const sinew_rig_options *opt, sinew_rig_report *rep, sinew_error *err);
/* K of an ear's chain: 2 or 3, one for the pair from their mean length. */
uint32_t rig_ear_segments(const sinew_rig_report *rep, uint32_t p, float segment_fraction);
/* The joint an ear's chain hangs from: the head (its attachment when the skeleton has none). */
int32_t rig_ear_parent(const sinew_rig_report *rep, const sinew_rig_piece *pc);

/* The blend of a chain's segment (docs/appendages.md, "The chain"): at f in [0, 1) along
 * the segment, the shares of the bone before and after it, w_prev = clamp(0.5 - f/w, 0, 0.5)
 * and w_next = clamp((f - 1 + w/2)/w, 0, 0.5), w the blend width; the segment's own bone keeps
 * the rest. Tails, wings and garments all blend so. */
static inline void rig_segment_shares(float f, float blend, float *prev, float *next)
{
    const float p = 0.5f - f / blend, n = (f - 1 + 0.5f * blend) / blend;
    *prev = p < 0 ? 0 : (p > 0.5f ? 0.5f : p);
    *next = n < 0 ? 0 : (n > 0.5f ? 0.5f : n);
}

/* chain.c: writes (joint, weight) pairs into a vertex's slots, merged by joint, the heaviest
 * four kept in descending order (the given order kept on ties), normalised, the rest zeroed. */
void rig_write_slots(uint16_t *joints, float *weights, const uint32_t *j, const float *w,
                     int count);
/* The name of bone b of K + 1 (b == K: the unweighted end) in `out`, unique in the model:
 * Tail_<b+1> (chain 0) or Tail<chain+1>_<b+1>; <kind>_L_ / <kind>_R_ for a side +1 / -1
 * (`kind` "Wing" or "Ear"); Garment_<garment>_<b+1> when garment > 0. */
void rig_bone_name(const sinew_model *m, char *out, size_t size, uint32_t chain, uint32_t b,
                   uint32_t K, const char *kind, int side, uint32_t garment);
/* The K + 1 bones of `ch` at J (names aside): each with J_b as origin, its frame the
 * previous bone's (the parent's for the first) turned by the least rotation that lays +Y
 * from J_b to J_b+1 (Tail_End keeps its parent's); sets bone_count and parent_joint. */
sinew_result rig_chain_bones(const sinew_model *m, int32_t parent, const sinew_vec3 *J, uint32_t K,
                             sinew_rig_chain *ch, sinew_error *err);

/* garment.c: with SINEW_RIG_GARMENT_CHAINS, marks the long sheets modelled as a surface of
 * their own (a cape, a skirt) as SINEW_RIG_VERDICT_GARMENT, each taking its whole surface
 * (other pieces on it are merged into it), with its chain count and shape (after vertex
 * ownership). */
sinew_result rig_find_garments(const sinew_rig_analysis *a, const sinew_model *m,
                               const sinew_rig_options *opt, sinew_rig_report *rep,
                               sinew_error *err);
/* Appends garment piece p's chains to plan (from plan->chain_count on, first joint
 * *next_joint, numbered Garment_<*garments + 1>_* on) and writes its skin's weights; the bones'
 * segments and joint positions go to segs / jp for the weighted distance. Advances
 * *next_joint, *seg_count and *garments. */
sinew_result rig_build_garment(const sinew_rig_analysis *a, const sinew_model *m,
                               const sinew_rig_report *rep, uint32_t p,
                               const sinew_rig_options *opt, sinew_rig_plan *plan,
                               uint32_t *next_joint, rig_segment *segs, uint32_t *seg_count,
                               sinew_vec3 *jp, uint32_t *garments, sinew_error *err);

/* Options with defaults filled in. */
sinew_rig_options rig_options_resolve(const sinew_rig_options *options);

static inline sinew_vec3 rig_joint_position(const sinew_model *m, uint32_t j)
{
    return sinew_mat4_translation(&m->skin.joints[j].bind);
}

/* Skin joint j's name for messages: "(none)" for no joint, "(unnamed)" for a node without a
 * name. */
static inline const char *rig_joint_name(const sinew_model *m, int32_t j)
{
    if (j < 0 || (uint32_t)j >= m->skin.joint_count) return "(none)";
    const char *n = m->nodes[m->skin.joints[j].node].name;
    return n ? n : "(unnamed)";
}

/* Mirrored pieces (a pair of wings or ears, a garment about the body's middle): one's skin
 * reflected lies on the other's (or its own) within this much of H on average. Measured: below
 * 0.0001 H on both winged shared models and the procedural garments (their meshes are
 * mirrored to export precision). A bound this tight keeps a pair of unlike pieces apart; up to
 * about 0.03 H (a tenth of the demon's wing chord) is safe. */
#define RIG_MIRROR_BOUND 0.01f

/* Nearest joint ancestor (skin joint index) of skin joint j, or -1. */
int32_t rig_parent_joint(const sinew_model *m, uint32_t j);
/* 1 when a joint's name says tail ("tail" anywhere, any case: Tail_1, b_Tail01, tail.003). */
int rig_name_says_tail(const char *name);

#endif
