/* Private layout of the dyn rig and state, shared by src/dyn's files only. */
#ifndef SINEW_DYN_INTERNAL_H
#define SINEW_DYN_INTERNAL_H

#include "sinew/dyn.h"

/* One simulated link: joint i of the chain, from its head to its tip particle. */
typedef struct dyn_link {
    sinew_vec3 head;      /* head offset in the parent's local frame (rest translation) */
    float own_scale;      /* the joint's rest scale (x), dimensionless */
    sinew_quat rest;      /* corrected local rest rotation: centred arc + carry applied */
    sinew_quat bind;      /* local bind rotation: the pose the skin was bound in */
    float cos_bind;       /* of this link's bind cone: max(bind_limit, the rest arc's own */
    float cos_half_bind;  /* bend from bind), so the rest direction is always inside; and of */
    float sin_half_bind;  /* half of it, for the clamped swing */
    sinew_vec3 dir;       /* unit tip direction in the joint's own frame */
    float length;         /* |tip offset| in the joint's own units */
    float omega;          /* rad/s, 2 pi f */
    float omega2;         /* rad^2/s^2 */
    float two_zeta_omega; /* 1/s */
    sinew_vec3 rest_dir;  /* rot(rest, dir) and rot(bind, dir): per-link constants that */
    sinew_vec3 bind_dir;  /* the step would otherwise rebuild with a product + rotation */
} dyn_link;

/* A rest driver (sinew_dyn_chain_desc.drivers) with what the step needs of its bind pose. */
typedef struct dyn_driver {
    int32_t node, tip_node;
    float weight;
    sinew_vec3 bind_dir; /* unit, hips frame (world axes at bind): the bone, head to tip */
    sinew_vec3 facing;   /* unit, horizontal in the hips frame: from the chain parent's head
                            to the chain root's at bind */
} dyn_driver;

struct sinew_dyn_rig {
    sinew_allocator allocator;
    uint32_t joint_count;
    uint32_t node_count;
    int32_t parent_node;
    int32_t end_node;
    int32_t nodes[SINEW_DYN_MAX_JOINTS];
    sinew_dyn_params params;    /* resolved and scaled */
    int floor_allowed;          /* 0 for a stub whose skin cannot bend a right angle in all (see
                                   dyn_rig.c): it rides the body, the floor does not fold it */
    float size_factor;          /* s = reference_size / 1.91 */
    sinew_quat parent_bind_inv; /* inverse bind rotation of the parent: hips frame H =
                                   R_parent(t) * parent_bind_inv (world axes at bind) */
    float cos_half_limit, sin_half_limit; /* of bend_limit / 2 */
    float step_alpha;                     /* 1 - exp(-coupling_rate max_step) and */
    float step_decay;                     /* exp(-contact_damping max_step), for the full
                                             substeps h = max_step (hoisted: the portable
                                             exp is ~20 double divisions per call) */
    float idle_side;      /* +1, or -1 for a chain whose root is left of the centre line
                             (hips frame x < 0): the sign of its sideways sway */
    uint32_t idle_cycle;  /* internal steps per idle_period (0: free-running sway) */
    float idle_share;     /* each link's turn per radian of idle (dyn_rig.c) */
    sinew_vec3 idle_axis; /* hips frame, unit: the side-to-side turn's axis */
    /* Body capsules (sinew_dyn_chain_desc.capsules). Radii are kept in the chain parent's
     * own units (bind-space units over the parent's bind scale), so that the parent frame's
     * scale (dyn_frame.scale) turns them into world units, as it does the link lengths. */
    uint32_t capsule_count;
    float parent_bind_scale; /* the parent's bind-space scale (parent units to bind space) */
    sinew_dyn_capsule capsules[SINEW_DYN_MAX_CAPSULES]; /* as given, bind-space radii */
    float capsule_radius[SINEW_DYN_MAX_CAPSULES];       /* their radii, parent units */
    /* contact2[i][c]: the square of how far link i's particle is kept from capsule c's axis,
     * parent units (the step compares squared distances) */
    float contact2[SINEW_DYN_MAX_JOINTS][SINEW_DYN_MAX_CAPSULES];
    uint32_t driver_count; /* rest drivers (sinew_dyn_chain_desc.drivers) */
    dyn_driver drivers[SINEW_DYN_MAX_DRIVERS];
    float bind_length[SINEW_DYN_MAX_JOINTS]; /* link lengths in bind space, model units */
    float place[SINEW_DYN_MAX_JOINTS];       /* t_i along the chain, 0 .. 1 (sinew_dyn_curve) */
    float chain_length;                      /* their sum, model units */
    dyn_link links[SINEW_DYN_MAX_JOINTS];
};

#define DYN_STATE_MAGIC 0x5344594eu /* "NYDS" */

/* A rigid frame with uniform scale, what the chain reads from its parent. */
typedef struct dyn_frame {
    sinew_vec3 position;
    sinew_quat rotation;
    float scale;
} dyn_frame;

/* The state header; joint_count particles, velocities and bends follow in `data`. */
struct sinew_dyn_state {
    uint32_t magic;
    uint32_t joint_count;
    uint32_t placed;
    uint32_t resets;        /* steps that found the state not finite and put it back at rest */
    uint32_t idle_seed;     /* the idle sway's seed (sinew_dyn_state_set_idle_seed) */
    float lag;              /* s, input time not yet simulated (< max_step): the committed
                               particles are at the previous call's time minus this */
    dyn_frame previous;     /* the parent's frame at the previous call */
    uint32_t idle_steps;    /* committed internal steps, modulo idle_cycle when it is set: the
                               idle sway's clock (the committed time is idle_steps max_step) */
    uint32_t capsule_count; /* the rig's (keeps `data` at an 8-byte multiple) */
    /* p[3n], v[3n], bend[4n] (hips frame, snapshots for coupling), then the capsules' ends
     * at the previous call (dyn_capsule_pose per capsule), what substeps interpolate from,
     * then p, v and bend again as scratch for the uncommitted output step that covers `lag`,
     * then (a rig with rest drivers only) the drivers' turn of the rest at the previous call,
     * a quaternion in the hips frame. What every call reads and writes (the header, the
     * committed arrays, the capsules) is one run of memory, and the scratch, which a call of
     * whole steps never touches, comes after it: for 8 joints and 4 capsules that is about one
     * cache line fewer per call (bench_dyn's capsule case gained less than its noise) */
    float data[];
};

static inline sinew_vec3 *dyn_state_positions(sinew_dyn_state *s)
{
    return (sinew_vec3 *)(void *)s->data;
}
static inline sinew_vec3 *dyn_state_velocities(sinew_dyn_state *s)
{
    return (sinew_vec3 *)(void *)(s->data + 3 * s->joint_count);
}
static inline sinew_quat *dyn_state_bends(sinew_dyn_state *s)
{
    return (sinew_quat *)(void *)(s->data + 6 * s->joint_count);
}
/* Committed arrays (p, v, bend) are 10n floats; their scratch copies follow the capsules. */
#define DYN_STATE_COMMITTED_PER_JOINT 10u
#define DYN_STATE_FLOATS_PER_JOINT (2u * DYN_STATE_COMMITTED_PER_JOINT)

/* A capsule's axis ends in world space at one instant. The arrays of them handed to the step
 * end with one padding pose: the step's gathers read a float past each end. */
typedef struct dyn_capsule_pose {
    sinew_vec3 a, b;
} dyn_capsule_pose;
#define DYN_STATE_FLOATS_PER_CAPSULE 6u
_Static_assert(sizeof(dyn_capsule_pose) == DYN_STATE_FLOATS_PER_CAPSULE * sizeof(float),
               "the state's layout counts a capsule pose as six floats");

static inline dyn_capsule_pose *dyn_state_capsules(sinew_dyn_state *s)
{
    return (dyn_capsule_pose *)(void *)(s->data + DYN_STATE_COMMITTED_PER_JOINT * s->joint_count);
}
/* The scratch p, v and bend (the committed arrays' layout). */
static inline float *dyn_state_scratch(sinew_dyn_state *s)
{
    return (float *)(void *)(dyn_state_capsules(s) + s->capsule_count);
}

/* The drivers' turn of the rest at the previous call (only for a rig with drivers). */
#define DYN_STATE_FLOATS_DRIVEN 4u
static inline sinew_quat *dyn_state_drive(sinew_dyn_state *s)
{
    return (sinew_quat *)(void *)(s->data + DYN_STATE_FLOATS_PER_JOINT * s->joint_count +
                                  DYN_STATE_FLOATS_PER_CAPSULE * s->capsule_count);
}

/* A rotation as a 3x3 matrix (rows), for the hips frame that rotates three vectors per link:
 * 15 flops per product instead of a quaternion rotation's 30. */
typedef struct rot3 {
    sinew_vec3 r0, r1, r2;
} rot3;

static inline rot3 rot3_from_quat(sinew_quat q)
{
    float x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    float xx = q.x * x2, xy = q.x * y2, xz = q.x * z2, yy = q.y * y2, yz = q.y * z2;
    float zz = q.z * z2, wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    rot3 m = {{1 - (yy + zz), xy - wz, xz + wy},
              {xy + wz, 1 - (xx + zz), yz - wx},
              {xz - wy, yz + wx, 1 - (xx + yy)}};
    return m;
}
/* The vector lanes: GNU vectors (GCC, Clang) where the compiler has them and the build did
 * not ask for the portable step (SINEW_DYN_PORTABLE); without them run_many steps each job
 * alone with the width-one step, which is ISO C. The 8-lane step also needs the x86-64 build
 * (SINEW_DYN_LANES8, from src/dyn/CMakeLists.txt) and __builtin_cpu_supports to pick it. */
#if !defined(SINEW_DYN_PORTABLE) && defined(__GNUC__) && defined(__has_attribute)
#if __has_attribute(vector_size)
#define DYN_VECTORS 1
#endif
#endif
#if defined(DYN_VECTORS) && defined(SINEW_DYN_LANES8) && defined(__has_builtin)
#if __has_builtin(__builtin_cpu_supports)
#define DYN_LANES8 1
#endif
#endif

/* The jobs of sinew_dyn_step_run_many's next batch, whose memory a lane step asks the cache
 * for while it computes (dyn_prefetch_job): `count` jobs at `jobs`. */
typedef struct dyn_ahead {
    const sinew_dyn_step_job *jobs;
    uint32_t count;
} dyn_ahead;

/* Asks the cache for what stepping `job` in a batch reads and writes, all of it checked
 * already (run_many's first pass): the capsules' end rows of the world transforms (else each
 * is a miss the capsule case alone pays), and the state's header, committed arrays and
 * capsule poses (one run of memory, see sinew_dyn_state; lines counted from the one the
 * state starts in, as a state needs no 64-byte alignment). The sizes come from the rig, not
 * the state's header, which would be a load that waits on the very miss being asked for. The
 * parent's world transform is not asked for: the first pass read it, and asking again
 * measured within noise (bench_dyn, four runs interleaved). A hint only: compilers without
 * __builtin_prefetch skip it. */
static inline void dyn_prefetch_job(const sinew_dyn_step_job *job)
{
#if defined(__GNUC__)
    const sinew_dyn_rig *rig = job->rig;
    const uint32_t nc = rig->capsule_count;
    for (uint32_t c = 0; c < nc; c++) {
        __builtin_prefetch(job->world[rig->capsules[c].node_a].m + 12, 0);
        __builtin_prefetch(job->world[rig->capsules[c].node_b].m + 12, 0);
    }
    const uint32_t floats =
        DYN_STATE_COMMITTED_PER_JOINT * rig->joint_count + DYN_STATE_FLOATS_PER_CAPSULE * nc;
    const uintptr_t end = (uintptr_t)(job->state->data + floats);
    for (uintptr_t b = (uintptr_t)job->state & ~(uintptr_t)63; b < end; b += 64)
        __builtin_prefetch((const void *)b, 1);
#else
    (void)job;
#endif
}

/* The step (dyn_lanes.h, the one source of the physics) for DYN_W chains of one rig at once:
 * one substep of length h (0: constraints only) for lane k's particles, velocities and bends
 * at chain[k] (10 n floats: a state's committed arrays or its scratch copy) with the parent
 * at frame f[k], floor at floor_y when floor_on, local rotations into out[k] when out is not
 * NULL. Every width gives the same bits per lane. */
typedef void (*dyn_lanes_fn)(const sinew_dyn_rig *rig, float *const *chain, const dyn_frame *f,
                             const sinew_quat *sway, const sinew_quat *drive,
                             const dyn_capsule_pose *caps, float h, int floor_on, float floor_y,
                             sinew_quat *const *out, const dyn_ahead *ahead);
/* `sway`: NULL, or lane k's idle turn of every link's rest frame (hips frame, dyn_idle_sway);
 * `drive`: NULL, or lane k's turn of the root link's rest frame by its drivers (hips frame,
 * about the root's head; the links below follow it as their parent);
 * `caps`: NULL when the rig has no capsules, else lane k's capsule c at caps[k * C + c] (C =
 * rig->capsule_count), world space at this substep;
 * `ahead`: NULL, or the next batch's jobs, asked for a few per link (dyn_prefetch_job) */
void dyn_substep_lanes1(const sinew_dyn_rig *rig, float *const *chain, const dyn_frame *f,
                        const sinew_quat *sway, const sinew_quat *drive,
                        const dyn_capsule_pose *caps, float h, int floor_on, float floor_y,
                        sinew_quat *const *out, const dyn_ahead *ahead);
#if defined(DYN_VECTORS)
void dyn_substep_lanes4(const sinew_dyn_rig *rig, float *const *chain, const dyn_frame *f,
                        const sinew_quat *sway, const sinew_quat *drive,
                        const dyn_capsule_pose *caps, float h, int floor_on, float floor_y,
                        sinew_quat *const *out, const dyn_ahead *ahead);
#endif
#if defined(DYN_LANES8)
/* dyn_lanes8.c, built with AVX2: call only when the CPU has it. */
void dyn_substep_lanes8(const sinew_dyn_rig *rig, float *const *chain, const dyn_frame *f,
                        const sinew_quat *sway, const sinew_quat *drive,
                        const dyn_capsule_pose *caps, float h, int floor_on, float floor_y,
                        sinew_quat *const *out, const dyn_ahead *ahead);
#endif

/* The idle sway (dyn_idle.c): the rotation, in the hips frame, that turns each link's rest
 * frame at `steps` internal steps (a fraction for the uncommitted step) into the clock of a
 * state with `seed`. Only for rigs with params.idle > 0. */
sinew_quat dyn_idle_sway(const sinew_dyn_rig *rig, uint32_t seed, double steps);

/* The rule for a body bone a rig reads (a capsule's ends, a driver's bones; dyn_rig.c): a node
 * of the model and none of the chain's own joints, which the caller writes from the step's
 * output (a body bone there would follow the chain it acts on). `what` and `index` name it in
 * the message ("capsule", "driver"). SINEW_ERR_ARGUMENT otherwise. */
sinew_result dyn_body_node(const sinew_dyn_rig *rig, const sinew_model *model, int32_t node,
                           const char *what, uint32_t index, sinew_error *err);
/* A node's name for messages, "(unnamed)" when it has none or is outside the model. */
const char *dyn_node_name(const sinew_model *model, int32_t node);

/* Checks `capsules` (dyn_capsule.c) against the model and the rig's chain, and sets the rig's
 * capsules and each link's contact radius from the bind worlds `w` and the links' bind
 * directions; called by sinew_dyn_rig_create once the links are built. */
sinew_result dyn_rig_capsules(sinew_dyn_rig *rig, const sinew_model *model, const sinew_mat4 *w,
                              const sinew_dyn_capsule *capsules, uint32_t count,
                              const sinew_vec3 *bind_dir, sinew_error *err);

/* Checks `drivers` (dyn_drive.c) against the model and the rig's chain and sets the rig's
 * drivers from the bind worlds `w`; called by sinew_dyn_rig_create once the links are built. */
sinew_result dyn_rig_drivers(sinew_dyn_rig *rig, const sinew_model *model, const sinew_mat4 *w,
                             const sinew_dyn_driver *drivers, uint32_t count, sinew_error *err);
/* The drivers' turn of the rest (hips frame) with the parent at frame f and the skeleton at
 * `world` (dyn_drive.c); identity for a rig without drivers, and never a NaN. */
sinew_quat dyn_drive_turn(const sinew_dyn_rig *rig, const sinew_mat4 *world, const dyn_frame *f);

/* Resolves defaults, checks ranges, scales lengths/accelerations by size_factor. */
sinew_result dyn_params_resolve(const sinew_dyn_params *in, float reference_size,
                                sinew_dyn_params *out, float *size_factor, sinew_error *err);

#endif
