/* Private to the solve module: double-precision affine helpers, Horn's fit, the solver
 * layout shared by moments.c, sweep.c and rotation_only.c. */
#ifndef SINEW_SOLVE_INTERNAL_H
#define SINEW_SOLVE_INTERNAL_H

#include "sinew/solve.h"

/* An affine map as 3 rows of 4 (row-major): y = A[0..2] x + A[3] per row. Double, because
 * moments and Horn's matrix lose the control run's zero in float. */
typedef struct solve_affine {
    double m[12];
} solve_affine;

void solve_affine_from_mat4(const sinew_mat4 *in, solve_affine *out);
void solve_affine_to_mat4(const solve_affine *in, sinew_mat4 *out);
/* out = a * b */
void solve_affine_mul(const solve_affine *a, const solve_affine *b, solve_affine *out);
/* Inverse of an affine map; 0 when singular. */
int solve_affine_invert(const solve_affine *a, solve_affine *out);
void solve_affine_identity(solve_affine *out);
void solve_affine_from_transform(sinew_transform t, solve_affine *out);

/* Horn (1987), "Closed-form solution of absolute orientation using unit quaternions": the
 * rotation R maximising sum_i w_i b_i . (R a_i), given S[r * 3 + c] = sum_i w_i a_i[r] b_i[c]
 * (3x3, row-major). The answer is the eigenvector of the largest eigenvalue of Horn's 4x4
 * symmetric matrix N(S), found by cyclic Jacobi (sinew_sym4_eigen; power iteration stalls).
 * `prev` (may be NULL) breaks ties: a phantom frame of weight 1e-6 * |S| pulls
 * degenerate fits (collinear or no points) toward it without moving determined ones.
 * Writes a unit quaternion (x, y, z, w) with the sign nearest `prev`; the rotation matrix
 * (row-major 3x3) to `rot` when not NULL. */
void solve_horn(const double S[9], const double prev_rot[9], double quat[4], double rot[9]);
/* The same fit started from the rotation `start` (row-major 3x3): near the answer (the
 * previous sweep's or frame's) a few Newton steps replace the Jacobi sweeps, which remain the
 * answer whenever the start does not prove it is the top eigenvector (horn.c says how).
 * Returns 1 when the start carried it, 0 when Jacobi did. */
int solve_horn_from(const double S[9], const double prev_rot[9], const double start[9],
                    double quat[4], double rot[9]);

/* Quaternion (x, y, z, w) to a row-major 3x3 rotation. */
void solve_quat_to_rot(const double q[4], double rot[9]);
/* Rotation (row-major) to its unit quaternion (x, y, z, w), w >= 0 (Shepperd's method). */
void solve_rot_to_quat(const double R[9], double q[4]);

/* One unordered pair of joints that share a constraint vertex (or a joint with itself). */
typedef struct solve_pair {
    uint32_t j, k;  /* j <= k */
    double uut[16]; /* sum_i w_ij w_ik u~ u~^T, row-major 4x4, u~ = (u, 1) in bind space */
} solve_pair;

/* The per-frame moments' unit of work (moments.c says why): the items of one block of
 * constraint vertices whose vertices share the same joints, at most SOLVE_GROUP_JOINTS of
 * them (a vertex with more makes one item per four joints). Its sums stay in registers while
 * its items stream by. */
#define SOLVE_GROUP_JOINTS 4
typedef struct solve_group {
    uint32_t begin, end; /* items [begin, end) */
    uint32_t weights;    /* item i's weight on joint[k]: item_weight[weights + (i - begin) *
                            joints + k] */
    uint32_t joints;     /* 1..SOLVE_GROUP_JOINTS, increasing in joint[] */
    uint32_t joint[SOLVE_GROUP_JOINTS];
} solve_group;

/* A joint's kind in the sweep. */
enum {
    SOLVE_JOINT_EMPTY = 0, /* no constraint weight: follows its parent at rest */
    SOLVE_JOINT_FREE = 1,  /* full rigid fit */
    SOLVE_JOINT_PIVOT = 2  /* rotation-only: rotation about a pivot fixed by the parent */
};

struct sinew_solver {
    const sinew_model *rig;
    sinew_allocator alloc;
    sinew_solve_options opt; /* defaults resolved */
    uint32_t joint_count, node_count, vertex_count;
    double diagonal;

    /* constraint vertices */
    uint32_t constraint_count;
    uint32_t *constraints; /* rig vertex indices */

    /* influences of the constraint vertices, by blocks of consecutive constraints and within
     * a block by groups of vertices with the same joints (moments.c says why): block b's
     * groups are [block_group[b], block_group[b+1]) */
    uint32_t block_count;
    uint32_t *block_group; /* block_count + 1 */
    solve_group *group;
    uint16_t *item_slot;  /* the item's constraint, counted from its block's first */
    float *item_bind;     /* 4 per item: the vertex's bind position u and 1, i.e. u~ */
    double *item_weight;  /* w_ij of the items, group after group (solve_group.weights) */
    double *entry_sum;    /* joint_count * 4: sum_i w_ij u~_i */
    double *block_target; /* 3 * min(constraints, SOLVE_BLOCK) + 1, per-frame scratch: one block's
                             targets about the frame's reference point */
    int simd;             /* the kernels of moments_avx.c run (the CPU has AVX): the per-frame
                             moments and the rig's sums at creation; 0: the portable ones,
                             which give the same bits */

    /* pairs and, per joint, its pairs (CSR): neighbour k and the pair index */
    uint32_t pair_count;
    solve_pair *pairs;
    uint32_t *nbr_start; /* joint_count + 1 */
    uint32_t *nbr_joint;
    uint32_t *nbr_pair;
    uint32_t *self_pair; /* joint_count: index of pair (j, j), or UINT32_MAX without weight */
    double *init_uut;    /* joint_count * 16: sum_k uuT_jk = sum_i w_ij u~ u~^T */

    uint8_t *kind;             /* joint_count, SOLVE_JOINT_* */
    int32_t *node_joint;       /* node_count: the node's joint, -1 for none (copy of nodes[].joint
                                  checked against the skin) */
    solve_affine *bind;        /* joint_count: W0_j */
    solve_affine *ibm;         /* joint_count: IBM_j */
    solve_affine *file_local;  /* node_count: the file's TRS */
    solve_affine *rest_local;  /* node_count: rest TRS */
    solve_affine *empty_local; /* node_count: the local TRS of EMPTY joints this frame (rest
                                  unless sinew_solver_set_unweighted says otherwise) */
    /* rotation-only: for every weighted joint the weighted joints of its subtree (CSR, itself
     * first) and a joint_count^2 membership table */
    uint32_t *sub_start;
    uint32_t *sub_joint;
    uint8_t *in_sub;

    /* per-frame state */
    double *vut;         /* joint_count * 12: sum_i w_ij (y_i - d) u~^T, row-major 3x4 */
    double yy;           /* sum_i |y_i - d|^2 */
    double centre[3];    /* d: the frame's target centroid (moments are taken about it) */
    solve_affine *cur;   /* joint_count: M_j mapping bind space to (world - centre) */
    solve_affine *world; /* node_count scratch (world - centre) */
    double *scratch;     /* joint_count * 12 */
    double *scale;       /* joint_count: sigma_j, the uniform scale of M_j in the rest pose
                            (an armature scaled by 100 puts it into every M_j; clips that do not
                            animate scale keep it, so the fit is rotation, this scale and a
                            translation) */
    solve_affine *hist;  /* 2 * joint_count: M_j of the last two frames (world, not centred) */
    uint32_t history;    /* how many of them are valid (0..2) */
    double *local_rot;   /* joint_count * 9: rotation-only local rotations (row-major) */
    uint32_t *order;     /* joint_count: joints in node order (parent before child) */
    int warm;            /* cur holds the previous frame's answer */
};

/* grid.c: exact nearest-point queries over a fixed point set (a uniform grid searched shell
 * by shell until no closer point can exist). `points` is borrowed, not copied. */
typedef struct solve_grid {
    const sinew_vec3 *points;
    uint32_t count;
    sinew_vec3 lo, hi; /* the points' box */
    double cell;       /* cell edge, the points' units */
    int32_t n[3];      /* cells per axis */
    uint32_t *start;   /* n[0] * n[1] * n[2] + 1: the cell's items are [start[c], start[c+1]) */
    uint32_t *items;   /* point indices, increasing within a cell */
    sinew_allocator alloc;
} solve_grid;
/* per_cell: points per occupied cell aimed at (2 for the correspondence). */
sinew_result solve_grid_build(solve_grid *g, const sinew_vec3 *points, uint32_t count,
                              double per_cell, const sinew_allocator *allocator, sinew_error *err);
void solve_grid_free(solve_grid *g);
/* Squared distance from p to its nearest point, and that point's index (the smallest among
 * equals). With max_d2 below DBL_MAX the search stops once nothing unvisited can be within
 * sqrt(max_d2), and returns DBL_MAX with *index = UINT32_MAX when no point is that close. */
double solve_grid_nearest(const solve_grid *g, sinew_vec3 p, double max_d2, uint32_t *index);
/* Distance from p to the points' box: never above the distance to any point. */
double solve_grid_box_distance(const solve_grid *g, sinew_vec3 p);

/* align.c: the alignment as an affine map (x_target = A x_source) and its inverse. */
void solve_alignment_affine(const sinew_solve_alignment *a, solve_affine *fwd, solve_affine *inv);

/* The per-frame moments' two kernels, portable (moments.c) and with AVX (moments_avx.c,
 * built where src/solve/CMakeLists.txt asks for it, x86-64, and run on CPUs that have it).
 * Both do the same multiplications and additions in the same order, with no fused
 * multiply-add, so they give the same bits.
 *
 * solve_block_targets: the block's targets about r in double, out[3 k + a] = y[constraints[k]]
 * [a] - r[a] for k < count (out holds 3 count + 1 doubles: the AVX path stores four at a time),
 * and their sums added to part: part[8 p + a] += the differences of the constraints k = p
 * (mod 4) on axis a, part[8 p + 4 + a] += their squares (four partial sums, so that the
 * additions do not wait on each other; lanes 3 and 7 stay 0).
 *
 * solve_group_moments: the group's items added to vuT of its joints, vut[12 j + 4 r + c] +=
 * sum_i w_ij target_i[r] u~_i[c], target_i = block_target[3 item_slot[i] + r]. */
/* How far ahead the AVX kernels ask for targets (constraints) and items: the reads are
 * sequential, yet without asking the moments of bench_solve (b) took 20% longer on the
 * Xeon measured; 64 to 1,024 constraints ahead gave the same time within 3%. */
#define SOLVE_PREFETCH_TARGETS 256u
#define SOLVE_PREFETCH_ITEMS 64u
void solve_block_targets(const uint32_t *constraints, uint32_t count, const sinew_vec3 *y,
                         const double r[3], double *out, double part[32]);
/* The rig moments of one group, zeroed first: for its pairs of joints p <= q, numbered
 * (0, 0), (0, 1) .. (0, n-1), (1, 1) .., uut[pq][t] = sum_i w_ip w_iq uu_i[t] with uu_i the
 * upper triangle of u~ u~^T row by row (10 of 16; t = 10, 11 stay 0), and for each joint
 * sum[p][c] = sum_i w_ip u~_i[c]. */
#define SOLVE_GROUP_PAIRS (SOLVE_GROUP_JOINTS * (SOLVE_GROUP_JOINTS + 1) / 2)
static inline void solve_upper_uut(const float b[4], double uu[12])
{
    const double u[4] = {b[0], b[1], b[2], b[3]};
    for (int r = 0, i = 0; r < 4; r++)
        for (int c = r; c < 4; c++)
            uu[i++] = u[r] * u[c];
    uu[10] = uu[11] = 0;
}
void solve_group_rig_sums(const solve_group *g, const float *item_bind, const double *item_weight,
                          double uut[SOLVE_GROUP_PAIRS][12], double sum[SOLVE_GROUP_JOINTS][4]);
void solve_group_moments(const solve_group *g, const uint16_t *item_slot, const float *item_bind,
                         const double *item_weight, const double *block_target, double *vut);
#if defined(SINEW_SOLVE_AVX) && !defined(SINEW_SOLVE_PORTABLE) && defined(__has_builtin)
#if __has_builtin(__builtin_cpu_supports)
#define SOLVE_AVX 1
void solve_block_targets_avx(const uint32_t *constraints, uint32_t count, const sinew_vec3 *y,
                             const double r[3], double *out, double part[32]);
/* The AVX group kernel also asks for `ahead_lines` cache lines from `ahead` on (the next
 * block's targets), one every four items, so that they arrive while it computes. */
void solve_group_moments_avx(const solve_group *g, const uint16_t *item_slot,
                             const float *item_bind, const double *item_weight,
                             const double *block_target, double *vut, const char *ahead,
                             uint32_t ahead_lines);
void solve_group_rig_sums_avx(const solve_group *g, const float *item_bind,
                              const double *item_weight, double uut[SOLVE_GROUP_PAIRS][12],
                              double sum[SOLVE_GROUP_JOINTS][4]);
#endif
#endif

/* moments.c. Constraint vertices per block of the per-frame pass (moments.c says why). */
#define SOLVE_BLOCK 4096u
/* Constraints, groups, pairs and their uuT; `influence` (joint_count) gets each joint's skin
 * weight summed over every vertex of the mesh, in vertices' worth. */
sinew_result solve_build_moments(sinew_solver *s, double *influence, sinew_error *err);
/* vuT, yy and the centre of one frame's targets. 0 when a target is not finite. */
int solve_frame_moments(sinew_solver *s, const sinew_vec3 *targets);
/* solve_group_rig_sums of group g with the AVX kernel when `simd` (and the build has it),
 * else the portable one: the same bits either way. */
void solve_group_rig_moments(const sinew_solver *s, int simd, const solve_group *g,
                             double uut[SOLVE_GROUP_PAIRS][12], double sum[SOLVE_GROUP_JOINTS][4]);
/* Squared error sum_i |sum_j w_ij M_j u~_i - (y_i - d)|^2 from the moments. */
double solve_error_from_moments(const sinew_solver *s);
/* A_j = vuT_j - sum_{k != j} M_k uuT_jk (3x4): what bone j alone must explain. */
void solve_bone_residual(const sinew_solver *s, uint32_t j, double A[12]);

/* sweep.c: the free rigid fit (rotation, the fixed scale sigma, translation) of bone j given
 * A_j (3x4) and U = uuT_jj (4x4). A bone without weight keeps `prev`; ties in the rotation
 * break toward `tie`'s rotation. `out` may alias `prev`. */
void solve_fit_free(const double A[12], const double U[16], double sigma, const solve_affine *prev,
                    const solve_affine *tie, solve_affine *out);

/* quality.c: the rig skinned in its rest pose (what "not moving" looks like to a player;
 * the stored bind positions whenever the rest pose maps to identity). Returns the box
 * diagonal of those positions (0 on allocation failure). `out` may be NULL. */
double solve_rest_skin(const sinew_model *rig, const sinew_allocator *alloc, sinew_vec3 *out);

/* played.c: the clip sinew_solve_write_clip writes for `res` (one source of truth for what is
 * written and what is measured as played): per joint node, LINEAR translation and rotation
 * keys at res->times, and scale keys when a frame's scale differs from the node's own, each
 * track reduced to the keys res->keys asks for. Allocated through `alloc` and freed by
 * solve_written_clip_free. */
sinew_result solve_written_clip(const sinew_model *rig, const sinew_solve_clip_result *res,
                                const sinew_allocator *alloc, sinew_clip *out, sinew_error *err);
void solve_written_clip_free(sinew_clip *clip, const sinew_allocator *alloc);
/* The options' key tolerances with defaults (SINEW_ERR_ARGUMENT when negative or not
 * finite); frame_keys and written stay 0 until solve_keys_count. */
sinew_result solve_keys_resolve(const sinew_solve_options *options, sinew_solve_keys *out,
                                sinew_error *err);
/* Counts the keys of res's written clip into res->keys. */
sinew_result solve_keys_count(const sinew_model *rig, sinew_solve_clip_result *res,
                              const sinew_allocator *alloc, sinew_error *err);

/* rotation_only.c: subtree lists (at create), the projection of a cold start onto the
 * rest joint translations, and one parent-to-child sweep. */
sinew_result solve_rotation_only_prepare(sinew_solver *s, sinew_error *err);
void solve_rotation_only_project(sinew_solver *s);
/* One sweep; returns the squared error after it, never above `error_before` (a pass that
 * would raise it is replaced by the subtree descent pass). */
double solve_sweep_rotation_only(sinew_solver *s, double error_before);
/* Recomputes world (minus centre) for every node from cur (free joints) and the file/rest
 * locals; EMPTY joints get M from their parent. */
void solve_update_empty_joints(sinew_solver *s);
/* world_n (minus centre) of a node that is not a weighted joint: its parent's world times its
 * local (the file's for a non-joint, empty_local for an EMPTY joint j >= 0, whose cur[j] is set
 * from it). Parents must be done first. */
void solve_follow_parent(sinew_solver *s, uint32_t n, int32_t j);

#endif
