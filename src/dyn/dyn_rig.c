/* Chain setup from a model (after Sidorkin, "Animating tails the auto-rigger never gave a bone":
 * step three, and what the mouse taught us): finds Tail_1..Tail_K (+ Tail_End) as
 * createAnimator does, recovers neutral local frames from the inverse bind matrices (L0_i =
 * inv(W0_parent) W0_i, never the loaded pose), gives a terminal link without Tail_End the
 * incoming tangent in its own frame, and bends the rest targets into the centred arc with
 * carry:
 *   c   = normalize(0, a0y, a0z)                 (down when that vanishes)
 *   Q_i = slerp(I, swing(c, a_i), beta)          (beta = restCurve)
 *   u_i = R_x((carry + C) (i + 1) / N) rot(Q_i, c)
 *   r_i = rot(A_i^-1, u_i)                       (A_i: the corrected parent frame)
 * so a 4-link and an 8-link tail rise by the same whole-tail carry. */
#include "dyn_internal.h"
#include "dyn_math.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rotation of an affine matrix with its (uniform or not) scale divided out. */
static sinew_quat rotation_of(const sinew_mat4 *m)
{
    sinew_mat4 r = *m;
    for (int c = 0; c < 3; c++) {
        float len = sqrtf(r.m[c * 4] * r.m[c * 4] + r.m[c * 4 + 1] * r.m[c * 4 + 1] +
                          r.m[c * 4 + 2] * r.m[c * 4 + 2]);
        if (len > 0.0f)
            for (int k = 0; k < 3; k++)
                r.m[c * 4 + k] /= len;
    }
    return sinew_quat_from_mat4(&r);
}

/* The base name after an optional "prefix:" or "prefix|" (Mixamo, Blender exports). */
static const char *base_name(const char *name)
{
    const char *b = name;
    for (const char *c = name; *c; c++)
        if (*c == ':' || *c == '|') b = c + 1;
    return b;
}

/* Tail_<digits> -> number, Tail_End -> 0, anything else -> -1. */
static long tail_number(const char *name)
{
    if (!name) return -1;
    const char *b = base_name(name);
    if (strncmp(b, "Tail_", 5) != 0) return -1;
    b += 5;
    if (strcmp(b, "End") == 0) return 0;
    if (*b < '0' || *b > '9') return -1;
    char *end = NULL;
    long k = strtol(b, &end, 10);
    if (*end != 0 || k <= 0 || k > 1000000) return -1;
    return k;
}

const char *dyn_node_name(const sinew_model *m, int32_t i)
{
    return (i >= 0 && (uint32_t)i < m->node_count && m->nodes[i].name) ? m->nodes[i].name
                                                                       : "(unnamed)";
}

sinew_result dyn_body_node(const sinew_dyn_rig *rig, const sinew_model *model, int32_t node,
                           const char *what, uint32_t index, sinew_error *err)
{
    if (node < 0 || (uint32_t)node >= model->node_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "dyn rig: %s %u: node %d is outside 0..%u",
                               what, index, node, model->node_count - 1);
    for (uint32_t i = 0; i < rig->joint_count; i++)
        if (rig->nodes[i] == node)
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "dyn rig: %s %u is on chain joint %s (node %d): %ss follow the "
                                   "body, not the chain",
                                   what, index, dyn_node_name(model, node), node, what);
    return SINEW_OK;
}

static sinew_result find_tail_chain(const sinew_model *m, int32_t *nodes, uint32_t *count,
                                    int32_t *end_node, sinew_error *err)
{
    long numbers[SINEW_DYN_MAX_JOINTS];
    uint32_t n = 0;
    *end_node = -1;
    for (uint32_t i = 0; i < m->node_count; i++) {
        long k = tail_number(m->nodes[i].name);
        if (k < 0) continue;
        if (k == 0) {
            if (*end_node >= 0)
                return sinew_error_set(err, SINEW_ERR_FORMAT,
                                       "two tail end nodes: %s (node %d) and %s (node %u)",
                                       dyn_node_name(m, *end_node), *end_node, m->nodes[i].name, i);
            *end_node = (int32_t)i;
            continue;
        }
        if (n == SINEW_DYN_MAX_JOINTS)
            return sinew_error_set(err, SINEW_ERR_UNSUPPORTED, "more than %d Tail_* joints",
                                   SINEW_DYN_MAX_JOINTS);
        /* insertion sort by number */
        uint32_t at = n;
        while (at > 0 && numbers[at - 1] > k) {
            numbers[at] = numbers[at - 1];
            nodes[at] = nodes[at - 1];
            at--;
        }
        if (at > 0 && numbers[at - 1] == k)
            return sinew_error_set(err, SINEW_ERR_FORMAT, "two nodes named Tail_%ld: %s and %s", k,
                                   dyn_node_name(m, nodes[at - 1]), m->nodes[i].name);
        numbers[at] = k;
        nodes[at] = (int32_t)i;
        n++;
    }
    if (n == 0)
        return sinew_error_set(err, SINEW_ERR_NOT_FOUND,
                               "no Tail_1..Tail_K joints in the skeleton (%u nodes)",
                               m->node_count);
    for (uint32_t j = 1; j < n; j++)
        if (m->nodes[nodes[j]].parent != nodes[j - 1])
            return sinew_error_set(
                err, SINEW_ERR_FORMAT, "tail chain broken: the parent of %s is %s, not %s",
                dyn_node_name(m, nodes[j]), dyn_node_name(m, m->nodes[nodes[j]].parent),
                dyn_node_name(m, nodes[j - 1]));
    if (*end_node >= 0 && m->nodes[*end_node].parent != nodes[n - 1])
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s is not a child of the last tail joint %s",
                               dyn_node_name(m, *end_node), dyn_node_name(m, nodes[n - 1]));
    *count = n;
    return SINEW_OK;
}

/* Bind-space world transform of every node: inverse(IBM) for joints, else parent's times
 * the node's rest TRS (nodes are parent-before-child). */
static sinew_result bind_worlds(const sinew_model *m, sinew_mat4 *w, sinew_error *err)
{
    for (uint32_t i = 0; i < m->node_count; i++) {
        const sinew_node *nd = &m->nodes[i];
        if (nd->parent >= (int32_t)i)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "node %u (%s): parent %d does not come before it", i,
                                   dyn_node_name(m, (int32_t)i), nd->parent);
        if (nd->joint >= 0 && (uint32_t)nd->joint < m->skin.joint_count && m->skin.joints) {
            const sinew_mat4 *ibm = &m->skin.joints[nd->joint].inverse_bind;
            if (!sinew_mat4_is_finite(ibm) || !sinew_mat4_invert_affine(ibm, &w[i]))
                return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                                       "joint %s (node %u): inverse bind matrix is not "
                                       "invertible",
                                       dyn_node_name(m, (int32_t)i), i);
        } else {
            sinew_mat4 local = sinew_mat4_from_transform(nd->rest);
            if (!sinew_mat4_is_finite(&local))
                return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                                       "node %u (%s): rest transform is not finite", i,
                                       dyn_node_name(m, (int32_t)i));
            w[i] = nd->parent >= 0 ? sinew_mat4_mul(&w[nd->parent], &local) : local;
        }
    }
    return SINEW_OK;
}

/* The skin tolerates a bend: a link of length l through skin of radius r, bent by theta,
 * squashes its inner side by about r theta / l (the blend between neighbouring bones spans a
 * link), and skin is torn when squashed below 0.67 of its length; SKIN_STRAIN keeps a quarter
 * instead of a third, the margin the spring's motion and the blend's unevenness need. So a
 * link may bend SKIN_STRAIN l / r from its bind direction: 3.5 rad for a rat's or a cow's thin
 * tail (no limit), 0.28 rad (16 degrees) for the UM bunny's round stub, which the default
 * 25-degree cone and 50-degree carry tore (5.6% of its edge samples in Idle). */
#define SKIN_STRAIN 0.15f
/* The carry's static bend takes at most half of that, leaving the rest to the motion. */
#define CARRY_SHARE 0.5f

/* skin_limit[i] = SKIN_STRAIN l_i / r_i for each link, r_i the mean distance of the skin the
 * link's joint dominates to the link's bind segment (FLT_MAX where it dominates none). */
static void skin_bend_limits(const sinew_model *m, const sinew_mat4 *w, const sinew_dyn_rig *rig,
                             const sinew_vec3 *dirs, float *skin_limit)
{
    double sum[SINEW_DYN_MAX_JOINTS] = {0};
    uint32_t count[SINEW_DYN_MAX_JOINTS] = {0};
    sinew_vec3 head[SINEW_DYN_MAX_JOINTS], tip[SINEW_DYN_MAX_JOINTS];
    int32_t joint_link[SINEW_DYN_MAX_JOINTS];
    for (uint32_t i = 0; i < rig->joint_count; i++) {
        head[i] = sinew_mat4_translation(&w[rig->nodes[i]]);
        tip[i] = sinew_vec3_madd(head[i], dirs[i], rig->bind_length[i]);
        joint_link[i] = m->nodes[rig->nodes[i]].joint;
        skin_limit[i] = FLT_MAX;
    }
    for (uint32_t v = 0; v < m->mesh.vertex_count && m->mesh.influence_joints; v++) {
        int32_t j = m->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        for (uint32_t i = 0; i < rig->joint_count; i++)
            if (joint_link[i] == j) {
                sum[i] += sinew_segment_distance(m->mesh.positions[v], head[i], tip[i]);
                count[i]++;
            }
    }
    for (uint32_t i = 0; i < rig->joint_count; i++)
        if (count[i] && sum[i] > 0)
            skin_limit[i] = SKIN_STRAIN * rig->bind_length[i] / (float)(sum[i] / count[i]);
}

/* inv(W0_parent) W0_child decomposed. */
static sinew_result relative(const sinew_model *m, const sinew_mat4 *w, int32_t parent,
                             int32_t child, sinew_transform *out, sinew_error *err)
{
    sinew_mat4 inv;
    if (!sinew_mat4_invert_affine(&w[parent], &inv))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "node %d (%s): bind transform is singular", parent,
                               dyn_node_name(m, parent));
    sinew_mat4 l = sinew_mat4_mul(&inv, &w[child]);
    *out = sinew_mat4_decompose(&l);
    return SINEW_OK;
}

static float skeleton_extent(const sinew_model *m, const sinew_mat4 *w)
{
    sinew_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < m->node_count; i++) {
        sinew_vec3 p = sinew_mat4_translation(&w[i]);
        lo = sinew_vec3_make(fminf(lo.x, p.x), fminf(lo.y, p.y), fminf(lo.z, p.z));
        hi = sinew_vec3_make(fmaxf(hi.x, p.x), fmaxf(hi.y, p.y), fmaxf(hi.z, p.z));
    }
    float e = fmaxf(hi.y - lo.y, fmaxf(hi.x - lo.x, hi.z - lo.z));
    return isfinite(e) ? e : 0.0f;
}

/* t_i of sinew_dyn_curve: the bind arc length from the root to link i's head over that to
 * the last link's head (0 for a one-link chain). */
static float link_place(const float *lengths, uint32_t n, uint32_t i)
{
    double to_i = 0, to_last = 0;
    for (uint32_t k = 0; k + 1 < n; k++) {
        if (k < i) to_i += lengths[k];
        to_last += lengths[k];
    }
    return to_last > 0 ? (float)(to_i / to_last) : 0.0f;
}

/* The frequency (Hz) and damping ratio the curves of resolved params `p` give at place t. */
static void link_spring(const sinew_dyn_params *p, float t, float *frequency, float *damping)
{
    *frequency = sinew_dyn_curve_value((sinew_dyn_curve)p->frequency_curve, p->frequency_root,
                                       p->frequency_tip, t);
    *damping = sinew_dyn_curve_value((sinew_dyn_curve)p->damping_curve, p->damping_ratio,
                                     p->damping_tip, t);
}

sinew_result sinew_dyn_rig_create(const sinew_model *model, const sinew_dyn_chain_desc *desc,
                                  const sinew_dyn_params *params, const sinew_allocator *allocator,
                                  sinew_dyn_rig **out, sinew_error *err)
{
    if (!out) return sinew_error_set(err, SINEW_ERR_ARGUMENT, "dyn rig: out is NULL");
    *out = NULL;
    if (!model || !model->nodes || model->node_count == 0)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED, "dyn rig: the model has no skeleton");

    int32_t nodes[SINEW_DYN_MAX_JOINTS];
    uint32_t n = 0;
    int32_t end_node = -1;
    sinew_result r;
    if (!desc || (!desc->nodes && desc->node_count == 0)) {
        /* no chain given (no desc, or one with capsules or drivers only): the Tail_* chain */
        r = find_tail_chain(model, nodes, &n, &end_node, err);
        if (r != SINEW_OK) return r;
    } else {
        if (!desc->nodes || desc->node_count == 0 || desc->node_count > SINEW_DYN_MAX_JOINTS)
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "dyn rig: the chain needs 1..%d nodes (got %u)",
                                   SINEW_DYN_MAX_JOINTS, desc->node_count);
        n = desc->node_count;
        for (uint32_t j = 0; j < n; j++) {
            int32_t k = desc->nodes[j];
            if (k < 0 || (uint32_t)k >= model->node_count)
                return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                       "dyn rig: chain node %u is %d, outside 0..%u", j, k,
                                       model->node_count - 1);
            if (j > 0 && model->nodes[k].parent != nodes[j - 1])
                return sinew_error_set(err, SINEW_ERR_FORMAT, "dyn rig: the parent of %s is not %s",
                                       dyn_node_name(model, k), dyn_node_name(model, nodes[j - 1]));
            nodes[j] = k;
        }
        end_node = desc->end_node;
        if (end_node >= 0 && ((uint32_t)end_node >= model->node_count ||
                              model->nodes[end_node].parent != nodes[n - 1]))
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "dyn rig: end node %d is not a child of %s", end_node,
                                   dyn_node_name(model, nodes[n - 1]));
        if (end_node < -1) end_node = -1;
    }
    int32_t parent = model->nodes[nodes[0]].parent;
    if (parent < 0)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "dyn rig: the chain root %s has no parent to hang from",
                               dyn_node_name(model, nodes[0]));

    sinew_mat4 *w = sinew_alloc(allocator, model->node_count, sizeof *w);
    sinew_dyn_rig *rig = sinew_alloc(allocator, 1, sizeof *rig);
    if (!w || !rig) {
        sinew_free(allocator, w);
        sinew_free(allocator, rig);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "dyn rig: out of memory");
    }
    if (allocator) rig->allocator = *allocator;
    r = bind_worlds(model, w, err);
    if (r != SINEW_OK) goto fail;

    /* The simulation runs in world space, so its size is the world one (an armature may scale
     * bind space by 100); models made by code may only have the bind size. */
    float extent = model->world_size.scale > 0.0f && isfinite(model->world_size.scale)
                       ? model->world_size.scale
                   : model->size.scale > 0.0f && isfinite(model->size.scale)
                       ? model->size.scale
                       : skeleton_extent(model, w);
    r = dyn_params_resolve(params, extent, &rig->params, &rig->size_factor, err);
    if (r != SINEW_OK) goto fail;
    const sinew_dyn_params *p = &rig->params;
    /* the same expressions the step (dyn_lanes.h) evaluates for any other h */
    rig->step_alpha = 1.0f - (float)dyn_exp_neg(-(double)p->coupling_rate * (double)p->max_step);
    rig->step_decay = (float)dyn_exp_neg((double)(-p->contact_damping * p->max_step));

    rig->joint_count = n;
    rig->node_count = model->node_count;
    rig->parent_node = parent;
    rig->end_node = end_node;
    memcpy(rig->nodes, nodes, n * sizeof nodes[0]);
    sinew_quat parent_bind = rotation_of(&w[parent]);
    rig->parent_bind_inv = sinew_quat_conjugate(parent_bind);
    rig->cos_half_limit = (float)dyn_cos(0.5 * (double)p->bend_limit);
    rig->sin_half_limit = (float)dyn_sin(0.5 * (double)p->bend_limit);

    /* Neutral local frames and tip offsets. */
    sinew_transform local[SINEW_DYN_MAX_JOINTS];
    sinew_vec3 tip[SINEW_DYN_MAX_JOINTS];    /* tip offset in the joint's own frame */
    sinew_vec3 artist[SINEW_DYN_MAX_JOINTS]; /* a_i: bind direction, world = hips frame */
    for (uint32_t i = 0; i < n; i++) {
        int32_t pn = i == 0 ? parent : nodes[i - 1];
        r = relative(model, w, pn, nodes[i], &local[i], err);
        if (r != SINEW_OK) goto fail;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (i + 1 < n) {
            tip[i] = local[i + 1].translation;
        } else if (end_node >= 0) {
            sinew_transform e;
            r = relative(model, w, nodes[i], end_node, &e, err);
            if (r != SINEW_OK) goto fail;
            tip[i] = e.translation;
        } else {
            /* No Tail_End: continue the incoming tangent, expressed in the last joint's
             * own frame (the article's lesson: copying the parent-frame vector is wrong once the
             * terminal joint is rotated). */
            int32_t pn = i == 0 ? parent : nodes[i - 1];
            sinew_vec3 incoming = sinew_vec3_sub(sinew_mat4_translation(&w[nodes[i]]),
                                                 sinew_mat4_translation(&w[pn]));
            sinew_mat4 inv;
            if (!sinew_mat4_invert_affine(&w[nodes[i]], &inv)) {
                r = sinew_error_set(err, SINEW_ERR_INVALID_VALUE, "dyn rig: %s is singular",
                                    dyn_node_name(model, nodes[i]));
                goto fail;
            }
            tip[i] = sinew_mat4_transform_dir(&inv, incoming);
        }
        float len = sinew_vec3_length(tip[i]);
        sinew_vec3 world_tip = sinew_mat4_transform_dir(&w[nodes[i]], tip[i]);
        float wlen = sinew_vec3_length(world_tip);
        if (!(len > 1e-6f * fmaxf(extent, 1e-6f)) || !(wlen > 0.0f) || !isfinite(wlen)) {
            r = sinew_error_set(err, SINEW_ERR_FORMAT,
                                "dyn rig: tail link %s has zero length in bind space",
                                dyn_node_name(model, nodes[i]));
            goto fail;
        }
        rig->links[i].head = local[i].translation;
        rig->links[i].own_scale = local[i].scale.x;
        rig->links[i].dir = sinew_vec3_scale(tip[i], 1.0f / len);
        rig->links[i].length = len;
        rig->bind_length[i] = wlen;
        rig->chain_length += wlen;
        artist[i] = sinew_vec3_scale(world_tip, 1.0f / wlen);
    }
    /* Each link's spring from the curves at its place along the chain (sinew_dyn_curve). */
    for (uint32_t i = 0; i < n; i++) {
        float f, zeta;
        rig->place[i] = link_place(rig->bind_length, n, i);
        link_spring(p, rig->place[i], &f, &zeta);
        float omega = 2.0f * (float)SINEW_PI * f;
        rig->links[i].omega = omega;
        rig->links[i].omega2 = omega * omega;
        rig->links[i].two_zeta_omega = 2.0f * zeta * omega;
    }

    /* The side the chain hangs on, for a mirrored pair's idle sway: its root's offset from
     * the parent along the hips frame's lateral axis, beyond a thousandth of the model (a
     * centred tail: +1). */
    const sinew_vec3 root_offset = sinew_mat4_transform_dir(&w[parent], local[0].translation);
    rig->idle_side = root_offset.x < -1e-3f * extent ? -1.0f : 1.0f;
    if (p->idle > 0.0f && p->idle_period > 0.0f) {
        const double cycle = floor((double)p->idle_period / (double)p->max_step + 0.5);
        rig->idle_cycle = cycle < 1.0 ? 1u : cycle > 4e9 ? 4000000000u : (uint32_t)cycle;
    }
    /* How far the skin lets each link bend (see skin_bend_limits). */
    float skin_limit[SINEW_DYN_MAX_JOINTS];
    skin_bend_limits(model, w, rig, artist, skin_limit);
    float carry_cap = FLT_MAX, bendable = 0;
    for (uint32_t i = 0; i < n; i++) {
        carry_cap = fminf(carry_cap, CARRY_SHARE * skin_limit[i] * (float)n);
        bendable += fminf(skin_limit[i], (float)SINEW_PI);
    }
    /* Floor contact overrides the bend limits to lay a tail on the ground; a stub whose skin
     * cannot bend a right angle in all would fold instead (the UM bunny's round tail in its
     * Death clip, lying on its back: 3.7% of its edge samples torn), so it rides the body. */
    rig->floor_allowed = bendable >= 0.5f * (float)SINEW_PI;
    /* The centred rest arc, built in the hips frame (= world axes at bind). */
    sinew_vec3 c = sinew_vec3_normalize_or(sinew_vec3_make(0.0f, artist[0].y, artist[0].z),
                                           sinew_vec3_make(0.0f, -1.0f, 0.0f));
    sinew_quat frame = parent_bind; /* A_i, the corrected parent's bind rotation */
    sinew_vec3 chord = {0, 0, 0};   /* the rest arc from root to tip, hips frame (idle sway) */
    float lever = 0.0f;
    float total = fminf(p->carry, carry_cap) + p->curvature;
    for (uint32_t i = 0; i < n; i++) {
        sinew_quat qi =
            dyn_slerp(sinew_quat_identity(), sinew_quat_swing(c, artist[i]), p->rest_curve);
        float angle = total * (float)(i + 1) / (float)n;
        sinew_quat rx = dyn_axis_angle(sinew_vec3_make(1, 0, 0), angle);
        sinew_vec3 u = sinew_quat_rotate(rx, sinew_quat_rotate(qi, c));
        /* Where the skin, not the bind cone, limits a link (a stub: see skin_bend_limits), the
         * rest arc may not bend it further from its bind direction than CARRY_SHARE of what
         * the skin allows: a stubby or curled tail keeps its modelled shape. */
        if (skin_limit[i] < p->bind_limit) {
            float cap = CARRY_SHARE * skin_limit[i];
            float bent = acosf(fminf(1.0f, fmaxf(-1.0f, sinew_vec3_dot(u, artist[i]))));
            sinew_vec3 axis = sinew_vec3_normalize_or(sinew_vec3_cross(artist[i], u), c);
            if (bent > cap) u = sinew_quat_rotate(dyn_axis_angle(axis, cap), artist[i]);
        }
        sinew_quat uncorrected = sinew_quat_normalize(sinew_quat_mul(frame, local[i].rotation));
        sinew_vec3 cur = sinew_quat_rotate(uncorrected, rig->links[i].dir);
        sinew_quat fix = sinew_quat_swing(sinew_vec3_normalize_or(cur, u), u);
        sinew_quat g = sinew_quat_normalize(sinew_quat_mul(fix, uncorrected));
        rig->links[i].rest = sinew_quat_normalize(sinew_quat_mul(sinew_quat_conjugate(frame), g));
        /* The bind cone (see bind_limit): never narrower than the rest arc's own bend. */
        rig->links[i].bind = sinew_quat_normalize(local[i].rotation);
        sinew_vec3 bdir = sinew_quat_rotate(rig->links[i].bind, rig->links[i].dir);
        sinew_vec3 rdir = sinew_quat_rotate(rig->links[i].rest, rig->links[i].dir);
        rig->links[i].rest_dir = rdir;
        rig->links[i].bind_dir = bdir;
        float cb = fminf(1.0f, fmaxf(-1.0f, sinew_vec3_dot(sinew_vec3_normalize_or(bdir, rdir),
                                                           sinew_vec3_normalize_or(rdir, bdir))));
        double cone = fmax(fmin((double)p->bind_limit, (double)skin_limit[i]), acos((double)cb));
        rig->links[i].cos_bind = (float)dyn_cos(cone);
        rig->links[i].cos_half_bind = (float)dyn_cos(0.5 * cone);
        rig->links[i].sin_half_bind = (float)dyn_sin(0.5 * cone);
        frame = g;
        chord = sinew_vec3_madd(chord, u, rig->bind_length[i]);
        lever += (float)(i + 1) * rig->bind_length[i];
    }
    r = desc ? dyn_rig_capsules(rig, model, w, desc->capsules, desc->capsule_count, artist, err)
             : SINEW_OK;
    if (r == SINEW_OK && desc)
        r = dyn_rig_drivers(rig, model, w, desc->drivers, desc->driver_count, err);
    if (r != SINEW_OK) goto fail;
    /* The idle sway turns every link's rest frame by the same angle, which compounds down the
     * chain: link i turns (i + 1) times it, the chord from root to tip about lever / length
     * times it (links taken as in line), so each link turns by idle times length / lever for
     * the chord to turn by idle. Side to side is about the axis across both the rest chord
     * and the lateral axis (a vertical axis for a level tail), so a raised tail swings as
     * far as a level one. */
    rig->idle_share = lever > 0.0f ? rig->chain_length / lever : 0.0f;
    rig->idle_axis = sinew_vec3_normalize_or(sinew_vec3_cross(chord, sinew_vec3_make(1, 0, 0)),
                                             sinew_vec3_make(0, 1, 0));
    sinew_free(allocator, w);
    *out = rig;
    return SINEW_OK;
fail:
    sinew_free(allocator, w);
    sinew_free(allocator, rig);
    return r;
}

void sinew_dyn_rig_free(sinew_dyn_rig *rig)
{
    if (!rig) return;
    sinew_allocator a = rig->allocator;
    sinew_free(&a, rig);
}

uint32_t sinew_dyn_rig_joint_count(const sinew_dyn_rig *rig)
{
    return rig ? rig->joint_count : 0;
}

int32_t sinew_dyn_rig_joint_node(const sinew_dyn_rig *rig, uint32_t i)
{
    return rig && i < rig->joint_count ? rig->nodes[i] : -1;
}

int32_t sinew_dyn_rig_parent_node(const sinew_dyn_rig *rig)
{
    return rig ? rig->parent_node : -1;
}

uint32_t sinew_dyn_rig_node_count(const sinew_dyn_rig *rig)
{
    return rig ? rig->node_count : 0;
}

void sinew_dyn_rig_params(const sinew_dyn_rig *rig, sinew_dyn_params *out)
{
    if (rig && out) *out = rig->params;
}

float sinew_dyn_rig_link_length(const sinew_dyn_rig *rig, uint32_t i)
{
    return rig && i < rig->joint_count ? rig->bind_length[i] : 0.0f;
}

int sinew_dyn_rig_link_spring(const sinew_dyn_rig *rig, uint32_t i, float *place, float *frequency,
                              float *damping_ratio)
{
    if (!rig || i >= rig->joint_count) return 0;
    float f, zeta;
    link_spring(&rig->params, rig->place[i], &f, &zeta);
    if (place) *place = rig->place[i];
    if (frequency) *frequency = f;
    if (damping_ratio) *damping_ratio = zeta;
    return 1;
}

sinew_quat sinew_dyn_rig_rest_rotation(const sinew_dyn_rig *rig, uint32_t i)
{
    return rig && i < rig->joint_count ? rig->links[i].rest : sinew_quat_identity();
}
