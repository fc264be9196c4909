/* The tail's springs as VRMC_springBone 1.0 (see sinew/vrm.h; the derivation is in
 * docs/vrm-springs.md): the fit, its predicted error, and the extension's JSON. */
#include "sinew/vrm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* The fallback sphere that stands for a plane where VRMC_springBone_extended_collider is not
 * read (that extension's exporter notes: a huge sphere whose surface touches the plane). Its
 * surface leaves the plane by x^2 / 2R at a distance x from the touching point: with R =
 * 1000 H, 0.05% of H at x = H, and float rounding of the centre (R * 6e-8) stays at 6e-5 H.
 * Any R from 100 H (0.5% at x = H) to 1e5 H (rounding 0.6% of H) is safe. */
#define FALLBACK_RADIUS 1000.0f /* times the reference size */

/* ---- the fit ---- */

/* VRM's dragForce, stiffness and gravityPower for one link (sinew/vrm.h): the two-step
 * recursions of sinew's semi-implicit Euler and of VRM's Verlet matched at step h, then the
 * chain's refinement: VRM's velocity retention 1 - dragForce times `retain`, its k times
 * `stiff` (gravityPower with it, so the static sag g / w^2 stays). */
static void fit_joint(sinew_vrm_joint *j, float gravity, float h, double retain, double stiff)
{
    const double w = 2.0 * SINEW_PI * j->frequency, wh = w * h;
    const double s = 1.0 - wh * wh;                     /* 1 / (1 + k) */
    const double p = 1.0 - 2.0 * j->damping_ratio * wh; /* (1 - d) / (1 + k) */
    const double k = (1.0 / s - 1.0) * stiff;
    double keep = p / s; /* 1 - dragForce */
    j->min_damping = (float)(SINEW_PI * j->frequency * h);
    j->clamped = keep > 1.0;
    keep = fmin(1.0, keep) * retain;
    j->drag_force = (float)fmin(1.0, fmax(0.0, 1.0 - keep));
    j->stiffness = (float)(k * j->length / h);
    j->gravity_power = (float)(gravity * h / s * stiff);
}

/* The parent's world matrix at time t on the fit's hip motion (sinew/vrm.h). */
static sinew_mat4 hip_motion(const sinew_mat4 *w0, float size, float t)
{
    const sinew_vec3 c = sinew_mat4_translation(w0);
    const sinew_vec3 d = sinew_vec3_make(0.06f * sinf(5.0f * t), 0.04f * sinf(7.0f * t), 0.4f * t);
    sinew_transform turn = sinew_transform_identity();
    turn.rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 0.35f * sinf(3.3f * t));
    turn.translation = sinew_vec3_madd(c, d, size);
    sinew_mat4 m = sinew_mat4_from_transform(turn), back = sinew_mat4_identity();
    back.m[12] = -c.x, back.m[13] = -c.y, back.m[14] = -c.z;
    m = sinew_mat4_mul(&m, &back);
    return sinew_mat4_mul(&m, w0);
}

/* VRM's joint update, as three-vrm's VRMSpringBoneJoint.update (no colliders). */
typedef struct vrm_sim {
    uint32_t n;
    sinew_transform local[SINEW_DYN_MAX_JOINTS]; /* the node's TRS, rotation = current */
    sinew_quat rest[SINEW_DYN_MAX_JOINTS];       /* initial local rotation */
    sinew_vec3 child[SINEW_DYN_MAX_JOINTS];      /* the tail node's local translation */
    sinew_vec3 axis[SINEW_DYN_MAX_JOINTS];       /* child, normalised */
    sinew_vec3 child_at[SINEW_DYN_MAX_JOINTS];   /* the tail node's world position as of the
                                                    previous frame (see vrm_update) */
    sinew_vec3 cur[SINEW_DYN_MAX_JOINTS], prev[SINEW_DYN_MAX_JOINTS];
} vrm_sim;

static sinew_mat4 local_matrix(sinew_transform t, sinew_quat q)
{
    t.rotation = q;
    return sinew_mat4_from_transform(t);
}

static void vrm_init(vrm_sim *s, const sinew_mat4 *parent)
{
    sinew_mat4 p = *parent;
    for (uint32_t i = 0; i < s->n; i++) {
        s->local[i].rotation = s->rest[i];
        sinew_mat4 b = local_matrix(s->local[i], s->rest[i]);
        b = sinew_mat4_mul(&p, &b);
        s->cur[i] = s->prev[i] = s->child_at[i] = sinew_mat4_transform_point(&b, s->child[i]);
        p = b;
    }
}

static void vrm_update(vrm_sim *s, const sinew_vrm_fit *fit, const sinew_mat4 *parent, float dt)
{
    sinew_mat4 p = *parent;
    for (uint32_t i = 0; i < s->n; i++) {
        const sinew_vrm_joint *j = &fit->joints[i];
        sinew_mat4 b = local_matrix(s->local[i], s->local[i].rotation);
        b = sinew_mat4_mul(&p, &b);
        const sinew_vec3 head = sinew_mat4_translation(&b);
        sinew_mat4 init = local_matrix(s->local[i], s->rest[i]);
        init = sinew_mat4_mul(&p, &init);
        const sinew_vec3 axis =
            sinew_vec3_normalize_or(sinew_mat4_transform_dir(&init, s->axis[i]), s->axis[i]);
        sinew_vec3 next =
            sinew_vec3_madd(s->cur[i], sinew_vec3_sub(s->cur[i], s->prev[i]), 1.0f - j->drag_force);
        next = sinew_vec3_madd(next, axis, j->stiffness * dt);
        next.y -= j->gravity_power * dt;
        /* three-vrm measures the bone from its head now to its tail node's world position,
         * which the manager updates only after this joint: as of the previous frame. A head
         * that moves lengthens or shortens the bone by its step; kept, as the runtime does. */
        const float length = sinew_vec3_distance(head, s->child_at[i]);
        next = sinew_vec3_madd(head, sinew_vec3_normalize_or(sinew_vec3_sub(next, head), axis),
                               length);
        s->prev[i] = s->cur[i];
        s->cur[i] = next;
        sinew_mat4 inv;
        sinew_mat4_invert_affine(&init, &inv);
        const sinew_vec3 to =
            sinew_vec3_normalize_or(sinew_mat4_transform_point(&inv, next), s->axis[i]);
        s->local[i].rotation =
            sinew_quat_normalize(sinew_quat_mul(s->rest[i], sinew_quat_swing(s->axis[i], to)));
        b = local_matrix(s->local[i], s->local[i].rotation);
        p = sinew_mat4_mul(&p, &b);
        s->child_at[i] = sinew_mat4_transform_point(&p, s->child[i]);
    }
}

static float angle_of(sinew_vec3 a, sinew_vec3 b)
{
    return atan2f(sinew_vec3_length(sinew_vec3_cross(a, b)), sinew_vec3_dot(a, b));
}

/* Median distance of the skin a link dominates to its segment, bind space; -1 when none. */
static float link_radius(const sinew_model *m, int32_t joint, sinew_vec3 a, sinew_vec3 b,
                         float *scratch)
{
    uint32_t count = 0;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        const size_t o = (size_t)v * SINEW_MAX_INFLUENCES;
        if (m->mesh.influence_weights[o] <= 0 || m->mesh.influence_joints[o] != joint) continue;
        scratch[count++] = sinew_segment_distance(m->mesh.positions[v], a, b);
    }
    if (!count) return -1;
    /* nth element by partial selection: the median of a few hundred values */
    for (uint32_t i = 0; i <= count / 2; i++)
        for (uint32_t k = i + 1; k < count; k++)
            if (scratch[k] < scratch[i]) {
                float t = scratch[i];
                scratch[i] = scratch[k];
                scratch[k] = t;
            }
    return scratch[count / 2];
}

/* A node's bind-space position: its joint's bind frame, or its parent's frame carried by its
 * rest translation. */
static sinew_vec3 bind_position(const sinew_model *m, int32_t node)
{
    const sinew_node *nd = &m->nodes[node];
    if (nd->joint >= 0) return sinew_mat4_translation(&m->skin.joints[nd->joint].bind);
    if (nd->parent >= 0 && m->nodes[nd->parent].joint >= 0)
        return sinew_mat4_transform_point(&m->skin.joints[m->nodes[nd->parent].joint].bind,
                                          nd->rest.translation);
    return nd->rest.translation;
}

typedef struct fit_run {
    sinew_transform *pose;
    sinew_mat4 *world;
    void *state_memory;
    float *scratch;
} fit_run;

static void run_free(const sinew_allocator *a, fit_run *r)
{
    sinew_free(a, r->pose);
    sinew_free(a, r->world);
    sinew_free(a, r->state_memory);
    sinew_free(a, r->scratch);
}

/* Joints, lengths, radii and VRM parameters of the rig's chain. */
static void fit_joints(const sinew_model *model, const sinew_dyn_rig *rig, const fit_run *run,
                       vrm_sim *sim, sinew_vrm_fit *out)
{
    const uint32_t n = out->joint_count;
    float last_radius = 0;
    for (uint32_t i = 0; i < n; i++) {
        sinew_vrm_joint *j = &out->joints[i];
        j->node = sinew_dyn_rig_joint_node(rig, i);
        const int32_t tail = i + 1 < n ? sinew_dyn_rig_joint_node(rig, i + 1) : out->end_node;
        sinew_dyn_rig_link_spring(rig, i, NULL, &j->frequency, &j->damping_ratio);
        j->rest = sinew_dyn_rig_rest_rotation(rig, i);
        sim->local[i] = model->nodes[j->node].local;
        sim->rest[i] = j->rest;
        /* the tail: the next joint's translation, or sinew's own link direction and length
         * when the chain ends without a Tail_End (VRM then treats the last link as a tail) */
        sim->child[i] = tail >= 0 ? model->nodes[tail].local.translation
                                  : sinew_vec3_make(0, sinew_dyn_rig_link_length(rig, i), 0);
        sim->axis[i] = sinew_vec3_normalize_or(sim->child[i], sinew_vec3_make(0, 1, 0));
        /* world length at the file's pose, and the bind-to-world scale for the radius */
        sinew_mat4 b = run->world[j->node], c = local_matrix(model->nodes[j->node].local, j->rest);
        const int32_t parent = model->nodes[j->node].parent;
        if (parent >= 0) b = sinew_mat4_mul(&run->world[parent], &c);
        j->length = sinew_vec3_distance(sinew_mat4_translation(&b),
                                        sinew_mat4_transform_point(&b, sim->child[i]));
        const sinew_vec3 ha = bind_position(model, j->node);
        const sinew_vec3 hb = tail >= 0 ? bind_position(model, tail) : ha;
        const float bind_len = sinew_vec3_distance(ha, hb);
        const float to_world = bind_len > 0 ? j->length / bind_len : 1.0f;
        const int32_t joint = model->nodes[j->node].joint;
        float r = joint >= 0 ? link_radius(model, joint, ha, hb, run->scratch) : -1;
        j->hit_radius = r >= 0 ? r * to_world : last_radius;
        last_radius = j->hit_radius;
        fit_joint(j, out->gravity, 1.0f / SINEW_VRM_RATE, 1.0, 1.0);
        out->clamped += (uint32_t)j->clamped;
    }
}

/* The chain's root (link 0's head) under the parent's world matrix. */
static sinew_vec3 chain_root(const vrm_sim *sim, const sinew_mat4 *parent)
{
    return sinew_mat4_transform_point(parent, sim->local[0].translation);
}

/* RMS angle, degrees, between VRM's tip direction (its rule with `fit`'s parameters, from
 * rest, on the hip motion) and sinew's `path`. */
static double vrm_error(const vrm_sim *base, const sinew_vrm_fit *fit, const sinew_mat4 *w0,
                        float size, const sinew_vec3 *path, uint32_t frames)
{
    vrm_sim sim = *base;
    const float h = 1.0f / SINEW_VRM_RATE;
    vrm_init(&sim, w0);
    double sum2 = 0;
    for (uint32_t f = 0; f < frames; f++) {
        const sinew_mat4 hw = hip_motion(w0, size, (float)f * h);
        if (f) vrm_update(&sim, fit, &hw, h);
        const sinew_vec3 d = sinew_vec3_normalize_or(
            sinew_vec3_sub(sim.cur[sim.n - 1], chain_root(&sim, &hw)), sim.axis[0]);
        const double e = angle_of(path[f], d);
        sum2 += e * e;
    }
    return sqrt(sum2 / frames) * 180.0 / SINEW_PI;
}

/* vrm_error with every joint fitted at the scales (retain, stiff). */
static double try_scales(const vrm_sim *sim, sinew_vrm_fit *fit, const sinew_mat4 *w0, float size,
                         const sinew_vec3 *path, uint32_t frames, double retain, double stiff)
{
    for (uint32_t i = 0; i < fit->joint_count; i++)
        fit_joint(&fit->joints[i], fit->gravity, 1.0f / SINEW_VRM_RATE, retain, stiff);
    return vrm_error(sim, fit, w0, size, path, frames);
}

sinew_result sinew_vrm_fit_chain(const sinew_model *model, const sinew_dyn_params *params,
                                 sinew_vrm_fit *out, sinew_error *err)
{
    memset(out, 0, sizeof *out);
    if (!model) return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_vrm_fit_chain: NULL");
    const sinew_allocator *a = &model->allocator;
    sinew_dyn_params p;
    if (params)
        p = *params;
    else
        memset(&p, 0, sizeof p);
    const uint32_t user_disable = p.disable;
    /* VRM updates once per frame: the runtime it is fitted to steps at that same rate */
    p.max_step = 1.0f / SINEW_VRM_RATE;
    p.disable |= SINEW_DYN_NO_FLOOR;
    sinew_dyn_rig *rig = NULL;
    sinew_result r = sinew_dyn_rig_create(model, NULL, &p, a, &rig, err);
    if (r != SINEW_OK) return r;
    sinew_dyn_params resolved;
    sinew_dyn_rig_params(rig, &resolved);
    const uint32_t n = sinew_dyn_rig_joint_count(rig);
    fit_run run = {0};
    run.pose = sinew_alloc(a, model->node_count, sizeof *run.pose);
    run.world = sinew_alloc(a, model->node_count, sizeof *run.world);
    const size_t bytes = sinew_dyn_state_bytes(rig);
    run.state_memory = sinew_alloc(a, bytes, 1);
    run.scratch = sinew_alloc(a, model->mesh.vertex_count + 1, sizeof *run.scratch);
    sinew_quat *rot = sinew_alloc(a, n + 1, sizeof *rot);
    sinew_vec3 *tips = sinew_alloc(a, n + 1, sizeof *tips);
    sinew_dyn_state *state =
        run.state_memory ? sinew_dyn_state_init(rig, run.state_memory, bytes) : NULL;
    if (!run.pose || !run.world || !state || !run.scratch || !rot || !tips) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "vrm fit: out of memory");
        goto done;
    }
    out->joint_count = n;
    out->parent_node = sinew_dyn_rig_parent_node(rig);
    out->end_node = -1;
    {
        /* Tail_End: the last joint's child the rig was built with (named, like the chain) */
        const int32_t last = sinew_dyn_rig_joint_node(rig, n - 1);
        for (uint32_t k = 0; k < model->node_count; k++)
            if (model->nodes[k].parent == last && model->nodes[k].name &&
                strstr(model->nodes[k].name, "Tail_End"))
                out->end_node = (int32_t)k;
    }
    out->reference_size = resolved.reference_size;
    out->gravity = (user_disable & SINEW_DYN_NO_GRAVITY) ? 0.0f : resolved.gravity;
    out->cone_angle = (user_disable & SINEW_DYN_NO_LIMIT) ? 0.0f : resolved.bend_limit;
    out->floor = !(user_disable & SINEW_DYN_NO_FLOOR);
    out->floor_height = resolved.floor_height;
    out->forward_plane = !(user_disable & SINEW_DYN_NO_FORWARD_PLANE);
    sinew_pose_file(model, run.pose);
    sinew_pose_to_world(model, run.pose, run.world);
    vrm_sim sim;
    memset(&sim, 0, sizeof sim);
    sim.n = n;
    fit_joints(model, rig, &run, &sim, out);

    /* sinew's runtime on the hip motion, frame by frame at the fitted rate */
    const int32_t parent = out->parent_node;
    const sinew_mat4 w0 = run.world[parent];
    const float h = 1.0f / SINEW_VRM_RATE, H = out->reference_size;
    const uint32_t frames = (uint32_t)(SINEW_VRM_FIT_SECONDS * SINEW_VRM_RATE) + 1;
    sinew_vec3 *path = sinew_alloc(a, frames, sizeof *path);
    if (!path) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "vrm fit: out of memory");
        goto done;
    }
    sinew_dyn_step_job job = {rig, state, run.world, model->node_count, 0.0f, rot, NULL};
    float swing = 0;
    sinew_vec3 start = sinew_vec3_make(0, 0, 0);
    for (uint32_t f = 0; f < frames && r == SINEW_OK; f++) {
        const sinew_mat4 hw = hip_motion(&w0, H, (float)f * h);
        run.world[parent] = hw;
        job.dt = f ? h : 0.0f;
        if ((r = sinew_dyn_step_run(&job, err)) != SINEW_OK) break;
        sinew_dyn_state_get(state, tips, NULL);
        path[f] = sinew_vec3_normalize_or(sinew_vec3_sub(tips[n - 1], chain_root(&sim, &hw)),
                                          sim.axis[0]);
        /* the swing in the hips frame: the pelvis's own turn is not the tail's swing */
        const sinew_quat hr = sinew_mat4_decompose(&hw).rotation;
        const sinew_vec3 dh = sinew_quat_rotate(sinew_quat_conjugate(hr), path[f]);
        if (!f) start = dh;
        swing = fmaxf(swing, angle_of(start, dh));
    }
    if (r == SINEW_OK) {
        /* The linear match is exact for small swings; beyond them VRM's Verlet turns every
         * correction of its length constraint into velocity (sinew's rope never does), and
         * sinew's bend coupling and limits hold the chain stiffer than its springs alone, so
         * VRM with the linear match whips its tail much harder (23.6-37.8 degrees RMS on the
         * notail/ Quaternius wolf, fox, rat, cow and horse, 58.7 on the deer). A chain-wide
         * scale on VRM's velocity retention and on its stiffness, found by a pattern search
         * on the same motion, takes most of that back (4.3-7.3 degrees there, 16.0 on the
         * deer). The searches ended at retention 0.45-0.68 and stiffness 5.7-23.6 times; the
         * bounds, retention 0.2-1 and stiffness 1/4 to 32 times, hold them with room. */
        double best_retain = 1, best_stiff = 1;
        double best = try_scales(&sim, out, &w0, H, path, frames, best_retain, best_stiff);
        out->linear_error_degrees = (float)best;
        double step_r = 0.2, step_s = 2.0;
        for (int round = 0; round < 40 && (step_r > 0.01 || step_s > 1.05); round++) {
            int better = 0;
            const double cand[4][2] = {{best_retain - step_r, best_stiff},
                                       {best_retain + step_r, best_stiff},
                                       {best_retain, best_stiff * step_s},
                                       {best_retain, best_stiff / step_s}};
            for (int c = 0; c < 4; c++) {
                if (cand[c][0] < 0.2 || cand[c][0] > 1.0 || cand[c][1] < 0.25 || cand[c][1] > 32)
                    continue;
                const double e =
                    try_scales(&sim, out, &w0, H, path, frames, cand[c][0], cand[c][1]);
                if (e < best)
                    best = e, best_retain = cand[c][0], best_stiff = cand[c][1], better = 1;
            }
            if (!better) step_r *= 0.5, step_s = sqrt(step_s);
        }
        for (uint32_t i = 0; i < n; i++)
            fit_joint(&out->joints[i], out->gravity, h, best_retain, best_stiff);
        out->retain_scale = (float)best_retain;
        out->stiffness_scale = (float)best_stiff;
        out->frames = frames;
        out->swing_degrees = swing * (float)(180.0 / SINEW_PI);
        out->error_degrees = (float)best;
        out->error_percent = swing > 0 ? 100.0f * out->error_degrees / out->swing_degrees : 0.0f;
    }
    sinew_free(a, path);
done:
    run_free(a, &run);
    sinew_free(a, rot);
    sinew_free(a, tips);
    sinew_dyn_rig_free(rig);
    return r;
}

/* ---- the extension ---- */

static cJSON *vec(const float *v, int n)
{
    double d[4];
    for (int i = 0; i < n; i++)
        d[i] = v[i];
    return cJSON_CreateDoubleArray(d, n);
}

static cJSON *vec3_json(sinew_vec3 v)
{
    const float f[3] = {v.x, v.y, v.z};
    return vec(f, 3);
}

/* A plane collider on node `node` (world matrix `m`) through world point `at` with world
 * normal `normal`, the allowed side: the extended collider's plane, and as its fallback the
 * sphere of radius `radius` (world) touching the plane at `at` from the other side. */
static cJSON *plane_collider(int32_t gltf_node, const sinew_mat4 *m, sinew_vec3 at,
                             sinew_vec3 normal, float radius)
{
    sinew_mat4 inv;
    sinew_mat4_invert_affine(m, &inv);
    /* a normal goes to local space by the transpose of the linear part */
    const sinew_vec3 nl = sinew_vec3_normalize_or(
        sinew_vec3_make(m->m[0] * normal.x + m->m[1] * normal.y + m->m[2] * normal.z,
                        m->m[4] * normal.x + m->m[5] * normal.y + m->m[6] * normal.z,
                        m->m[8] * normal.x + m->m[9] * normal.y + m->m[10] * normal.z),
        normal);
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "node", gltf_node);
    cJSON *sphere = cJSON_AddObjectToObject(cJSON_AddObjectToObject(c, "shape"), "sphere");
    cJSON_AddItemToObject(
        sphere, "offset",
        vec3_json(sinew_mat4_transform_point(&inv, sinew_vec3_madd(at, normal, -radius))));
    cJSON_AddNumberToObject(sphere, "radius", radius);
    cJSON *ext = cJSON_AddObjectToObject(cJSON_AddObjectToObject(c, "extensions"),
                                         "VRMC_springBone_extended_collider");
    /* "1.0": what three-vrm reads (the draft's text still says "1.0-draft"; a reader that
     * refuses the version falls back to the sphere above) */
    cJSON_AddStringToObject(ext, "specVersion", "1.0");
    cJSON *plane = cJSON_AddObjectToObject(cJSON_AddObjectToObject(ext, "shape"), "plane");
    cJSON_AddItemToObject(plane, "offset", vec3_json(sinew_mat4_transform_point(&inv, at)));
    cJSON_AddItemToObject(plane, "normal", vec3_json(nl));
    return c;
}

static cJSON *spring_json(const sinew_model *model, const sinew_vrm_fit *fit, int colliders)
{
    cJSON *spring = cJSON_CreateObject();
    cJSON_AddStringToObject(spring, "name", "sinew tail");
    cJSON *joints = cJSON_AddArrayToObject(spring, "joints");
    for (uint32_t i = 0; i < fit->joint_count; i++) {
        const sinew_vrm_joint *j = &fit->joints[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "node", model->nodes[j->node].gltf_node);
        cJSON_AddNumberToObject(o, "hitRadius", j->hit_radius);
        cJSON_AddNumberToObject(o, "stiffness", j->stiffness);
        cJSON_AddNumberToObject(o, "gravityPower", j->gravity_power);
        const float down[3] = {0, -1, 0};
        cJSON_AddItemToObject(o, "gravityDir", vec(down, 3));
        cJSON_AddNumberToObject(o, "dragForce", j->drag_force);
        /* the limit's exporter rule: never on the last joint, which is only a tail */
        if (fit->cone_angle > 0 && (i + 1 < fit->joint_count || fit->end_node >= 0)) {
            cJSON *lim = cJSON_AddObjectToObject(cJSON_AddObjectToObject(o, "extensions"),
                                                 "VRMC_springBone_limit");
            cJSON_AddStringToObject(lim, "specVersion", "1.0-draft");
            cJSON *cone = cJSON_AddObjectToObject(cJSON_AddObjectToObject(lim, "limit"), "cone");
            cJSON_AddNumberToObject(cone, "angle", fit->cone_angle);
        }
        cJSON_AddItemToArray(joints, o);
    }
    if (fit->end_node >= 0) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "node", model->nodes[fit->end_node].gltf_node);
        cJSON_AddItemToArray(joints, o);
    }
    if (colliders) {
        cJSON *groups = cJSON_AddArrayToObject(spring, "colliderGroups");
        cJSON_AddItemToArray(groups, cJSON_CreateNumber(0));
    }
    return spring;
}

sinew_result sinew_vrm_apply_document(sinew_document *doc, const sinew_model *model,
                                      const sinew_vrm_fit *fit, sinew_error *err)
{
    if (!doc || !model || !fit || !fit->joint_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_vrm_apply_document: no chain");
    for (uint32_t i = 0; i < fit->joint_count; i++)
        if (model->nodes[fit->joints[i].node].gltf_node < 0)
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "vrm springs: chain node %s is not in the document",
                                   model->nodes[fit->joints[i].node].name);
    const sinew_allocator *a = &model->allocator;
    sinew_transform *pose = sinew_alloc(a, model->node_count, sizeof *pose);
    sinew_mat4 *world = sinew_alloc(a, model->node_count, sizeof *world);
    if (!pose || !world) {
        sinew_free(a, pose);
        sinew_free(a, world);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "vrm springs: out of memory");
    }
    sinew_pose_file(model, pose);
    sinew_pose_to_world(model, pose, world);
    const float radius = FALLBACK_RADIUS * fit->reference_size;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "specVersion", "1.0");
    cJSON *colliders = cJSON_AddArrayToObject(root, "colliders");
    const int32_t hips = fit->parent_node;
    const sinew_vec3 hp = sinew_mat4_translation(&world[hips]);
    if (fit->floor) {
        /* on the skeleton's top node (what carries the whole character, not a moving bone),
         * touching the floor under the hips */
        int32_t top = hips;
        while (model->nodes[top].parent >= 0 &&
               model->nodes[model->nodes[top].parent].gltf_node >= 0)
            top = model->nodes[top].parent;
        cJSON_AddItemToArray(colliders,
                             plane_collider(model->nodes[top].gltf_node, &world[top],
                                            sinew_vec3_make(hp.x, fit->floor_height, hp.z),
                                            sinew_vec3_make(0, 1, 0), radius));
    }
    if (fit->forward_plane) {
        /* through the tail root, on the hips, allowed side behind them: the hips frame's +Z is
         * forward (sinew/dyn.h), so its -Z in world at the file's pose */
        const sinew_mat4 *bind_hips = model->nodes[hips].joint >= 0
                                          ? &model->skin.joints[model->nodes[hips].joint].bind
                                          : &world[hips];
        const sinew_quat hframe =
            sinew_quat_mul(sinew_mat4_decompose(&world[hips]).rotation,
                           sinew_quat_conjugate(sinew_mat4_decompose(bind_hips).rotation));
        const sinew_vec3 back = sinew_quat_rotate(hframe, sinew_vec3_make(0, 0, -1));
        /* VRM keeps each joint's hitRadius on the allowed side, sinew its tip's centre: the
         * plane moves forward by the thickest joint's radius, so none is held farther back
         * than sinew holds it (thinner ones may pass the root by the difference). On the
         * wolf, the plane through the root itself held the tail 17 degrees RMS off sinew's
         * path, this one 5. */
        float thickest = 0;
        for (uint32_t i = 0; i < fit->joint_count; i++)
            thickest = fmaxf(thickest, fit->joints[i].hit_radius);
        const sinew_vec3 tail_root = sinew_mat4_transform_point(
            &world[hips], model->nodes[fit->joints[0].node].local.translation);
        const sinew_vec3 at = sinew_vec3_madd(tail_root, back, -thickest);
        cJSON_AddItemToArray(colliders, plane_collider(model->nodes[hips].gltf_node, &world[hips],
                                                       at, back, radius));
    }
    const int any = cJSON_GetArraySize(colliders) > 0;
    if (any) {
        cJSON *group = cJSON_CreateObject();
        cJSON_AddStringToObject(group, "name", "sinew floor and forward plane");
        cJSON *list = cJSON_AddArrayToObject(group, "colliders");
        for (int c = 0; c < cJSON_GetArraySize(colliders); c++)
            cJSON_AddItemToArray(list, cJSON_CreateNumber(c));
        cJSON *groups = cJSON_AddArrayToObject(root, "colliderGroups");
        cJSON_AddItemToArray(groups, group);
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(root, "colliders");
    }
    cJSON *springs = cJSON_AddArrayToObject(root, "springs");
    cJSON_AddItemToArray(springs, spring_json(model, fit, any));
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    sinew_free(a, pose);
    sinew_free(a, world);
    if (!text) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "vrm springs: out of memory");
    sinew_result r = sinew_document_set_extension(doc, "VRMC_springBone", text, err);
    cJSON_free(text);
    if (r == SINEW_OK && any)
        r = sinew_document_use_extension(doc, "VRMC_springBone_extended_collider", err);
    if (r == SINEW_OK && fit->cone_angle > 0)
        r = sinew_document_use_extension(doc, "VRMC_springBone_limit", err);
    /* VRM pulls toward the nodes' own rotations: make them sinew's rest arc */
    for (uint32_t i = 0; r == SINEW_OK && i < fit->joint_count; i++)
        r = sinew_document_set_node_rotation(doc, model->nodes[fit->joints[i].node].gltf_node,
                                             fit->joints[i].rest, err);
    return r;
}
