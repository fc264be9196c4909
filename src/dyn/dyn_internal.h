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
    float cos_half_bind;  /* of this link's bind cone / 2: max(bind_limit, the rest arc's */
    float sin_half_bind;  /* own bend from bind), so the rest direction is always inside */
    sinew_vec3 dir;       /* unit tip direction in the joint's own frame */
    float length;         /* |tip offset| in the joint's own units */
    float omega;          /* rad/s, 2 pi f */
    float omega2;         /* rad^2/s^2 */
    float two_zeta_omega; /* 1/s */
    sinew_vec3 rest_dir;  /* rot(rest, dir) and rot(bind, dir): per-link constants that */
    sinew_vec3 bind_dir;  /* substep4 would otherwise rebuild with a product + rotation */
} dyn_link;

struct sinew_dyn_rig {
    sinew_allocator allocator;
    uint32_t joint_count;
    uint32_t node_count;
    int32_t parent_node;
    int32_t end_node;
    int32_t nodes[SINEW_DYN_MAX_JOINTS];
    sinew_dyn_params params;                 /* resolved and scaled */
    float size_factor;                       /* s = reference_size / 1.91 */
    sinew_quat parent_bind_inv;              /* inverse bind rotation of the parent: hips frame H =
                                                R_parent(t) * parent_bind_inv (world axes at bind) */
    float cos_half_limit, sin_half_limit;    /* of bend_limit / 2 */
    float step_alpha;                        /* 1 - exp(-coupling_rate max_step) and */
    float step_decay;                        /* exp(-contact_damping max_step), for the fixed
                                                substeps of run_many (hoisted: the portable
                                                exp is ~20 double divisions per call) */
    float bind_length[SINEW_DYN_MAX_JOINTS]; /* link lengths in bind space, model units */
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
    float lag;          /* s, input time not yet simulated (< max_step): the committed
                           particles are at the previous call's time minus this */
    dyn_frame previous; /* the parent's frame at the previous call */
    /* p[3n], v[3n], bend[4n] (hips frame, snapshots for coupling), then the same again as
     * scratch for the uncommitted output step that covers `lag` */
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
/* Committed arrays (p, v, bend) are 10n floats; scratch copies follow them. */
#define DYN_STATE_FLOATS_PER_JOINT 20u

/* Resolves defaults, checks ranges, scales lengths/accelerations by size_factor. */
sinew_result dyn_params_resolve(const sinew_dyn_params *in, float reference_size,
                                sinew_dyn_params *out, float *size_factor, sinew_error *err);

#endif
