/* Procedural creatures for the dyn tests, built in code (no glTF): Root -> Hips -> two legs
 * and a tail chain Tail_1..Tail_K (+ Tail_End) hanging behind a +Z-facing body, with
 * inverse bind matrices, rest transforms and, optionally, a skinned mesh (body box, feet,
 * tail tube). Lengths are for a 1.91 m creature unless `scale` says otherwise. */
#ifndef SINEW_DYN_FIXTURE_H
#define SINEW_DYN_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sinew/dyn.h"
#include "sinew/model.h"

#define FX_MAX_NODES 16
#define FX_MAX_VERTS 512

typedef struct fixture {
    sinew_model model;
    sinew_node nodes[FX_MAX_NODES];
    sinew_joint joints[FX_MAX_NODES];
    char names[FX_MAX_NODES][24];
    sinew_mat4 bind[FX_MAX_NODES]; /* bind world of every node */
    int hips, left_leg, right_leg, tail0, tail_count, tail_end;
    float tail_length;
    sinew_vec3 positions[FX_MAX_VERTS];
    uint16_t inf_joints[FX_MAX_VERTS * SINEW_MAX_INFLUENCES];
    float inf_weights[FX_MAX_VERTS * SINEW_MAX_INFLUENCES];
} fixture;

typedef struct fixture_opts {
    int tail_count;               /* K */
    int with_end;                 /* add Tail_End */
    float scale;                  /* multiplies every length; 1 = a 1.91 m creature */
    float tail_length;            /* before scale; default 0.8 */
    sinew_vec3 tail_dir;          /* before normalising; default (0, -0.5, -1) (down and back) */
    float lateral_bend;           /* radians per joint of modelled sideways curve (about Y) */
    float terminal_bind_rotation; /* radians about (0.3, 0.2, 0.93): a rotated last bone */
    int with_mesh;
    float root_x; /* before scale: the tail root's offset along +X (one of a left/right pair) */
} fixture_opts;

static inline sinew_mat4 fx_trs(sinew_vec3 t, sinew_quat q)
{
    sinew_transform tr = {t, q, {1, 1, 1}};
    return sinew_mat4_from_transform(tr);
}

static inline int fx_add(fixture *fx, const char *name, int parent, sinew_mat4 bind_world)
{
    int i = (int)fx->model.node_count++;
    snprintf(fx->names[i], sizeof fx->names[i], "%s", name);
    sinew_node *n = &fx->nodes[i];
    memset(n, 0, sizeof *n);
    n->name = fx->names[i];
    n->parent = parent;
    n->gltf_node = -1;
    n->joint = i;
    fx->bind[i] = bind_world;
    sinew_mat4 local = bind_world;
    if (parent >= 0) {
        sinew_mat4 inv;
        sinew_mat4_invert_affine(&fx->bind[parent], &inv);
        local = sinew_mat4_mul(&inv, &bind_world);
    }
    n->rest = sinew_mat4_decompose(&local);
    n->local = n->rest;
    fx->joints[i].node = i;
    fx->joints[i].bind = bind_world;
    sinew_mat4_invert_affine(&bind_world, &fx->joints[i].inverse_bind);
    fx->model.skin.joint_count = fx->model.node_count;
    return i;
}

static inline void fx_weight(fixture *fx, uint32_t v, int j0, float w0, int j1, float w1)
{
    uint16_t *J = &fx->inf_joints[v * SINEW_MAX_INFLUENCES];
    float *W = &fx->inf_weights[v * SINEW_MAX_INFLUENCES];
    memset(J, 0, sizeof(uint16_t) * SINEW_MAX_INFLUENCES);
    memset(W, 0, sizeof(float) * SINEW_MAX_INFLUENCES);
    J[0] = (uint16_t)j0;
    W[0] = w0;
    J[1] = (uint16_t)j1;
    W[1] = w1;
}

static inline void fixture_build(fixture *fx, const fixture_opts *o)
{
    memset(fx, 0, sizeof *fx);
    float s = o->scale > 0 ? o->scale : 1.0f;
    float L = (o->tail_length > 0 ? o->tail_length : 0.8f) * s;
    sinew_vec3 dir = o->tail_dir;
    if (sinew_vec3_length(dir) == 0) dir = sinew_vec3_make(0, -0.5f, -1.0f);
    dir = sinew_vec3_normalize_or(dir, sinew_vec3_make(0, 0, -1));
    sinew_quat I = sinew_quat_identity();
    fx->model.nodes = fx->nodes;
    fx->model.skin.joints = fx->joints;
    fx->model.skin.gltf_skin = -1;
    int root = fx_add(fx, "Root", -1, fx_trs(sinew_vec3_make(0, 0, 0), I));
    fx->hips = fx_add(fx, "Hips", root, fx_trs(sinew_vec3_make(0, 1.0f * s, 0), I));
    fx->left_leg =
        fx_add(fx, "LeftUpLeg", fx->hips, fx_trs(sinew_vec3_make(0.15f * s, 0.9f * s, 0), I));
    fx->right_leg =
        fx_add(fx, "RightUpLeg", fx->hips, fx_trs(sinew_vec3_make(-0.15f * s, 0.9f * s, 0), I));
    int K = o->tail_count;
    fx->tail_count = K;
    fx->tail_length = L;
    sinew_vec3 pos = sinew_vec3_make(o->root_x * s, 0.95f * s, -0.12f * s);
    int parent = fx->hips;
    sinew_vec3 d = dir;
    for (int k = 0; k < K; k++) {
        char name[24];
        snprintf(name, sizeof name, "Tail_%d", k + 1);
        sinew_quat q = I;
        if (k == K - 1 && o->terminal_bind_rotation != 0)
            q = sinew_quat_from_axis_angle(
                sinew_vec3_normalize_or(sinew_vec3_make(0.3f, 0.2f, 0.93f),
                                        sinew_vec3_make(0, 0, 1)),
                o->terminal_bind_rotation);
        int j = fx_add(fx, name, parent, fx_trs(pos, q));
        if (k == 0) fx->tail0 = j;
        parent = j;
        pos = sinew_vec3_madd(pos, d, L / (float)K);
        if (o->lateral_bend != 0)
            d = sinew_quat_rotate(
                sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), o->lateral_bend), d);
    }
    fx->tail_end = -1;
    if (o->with_end) fx->tail_end = fx_add(fx, "Tail_End", parent, fx_trs(pos, I));
    fx->model.size.height = 1.91f * s;
    fx->model.size.length = 1.0f * s;
    fx->model.size.scale = 1.91f * s;
    if (o->with_mesh) {
        /* body: a box 0.3..1.2 high around the hips; feet: points at y = 0 on the legs;
         * tail: points along the bind chain, weighted to their tail joint */
        uint32_t v = 0;
        for (int i = 0; i < 8; i++) {
            fx->positions[v] = sinew_vec3_make(
                (i & 1 ? 0.2f : -0.2f) * s, (i & 2 ? 1.2f : 0.3f) * s, (i & 4 ? 0.2f : -0.2f) * s);
            fx_weight(fx, v++, fx->hips, 1, 0, 0);
        }
        for (int i = 0; i < 4; i++) {
            fx->positions[v] =
                sinew_vec3_make((i & 1 ? 0.15f : -0.15f) * s, 0.0f, (i & 2 ? 0.05f : -0.05f) * s);
            fx_weight(fx, v++, i & 1 ? fx->left_leg : fx->right_leg, 1, 0, 0);
        }
        for (int k = 0; k < K; k++) {
            sinew_vec3 a = sinew_mat4_translation(&fx->bind[fx->tail0 + k]);
            sinew_vec3 b = k + 1 < K ? sinew_mat4_translation(&fx->bind[fx->tail0 + k + 1]) : pos;
            for (int t = 0; t < 4; t++) {
                fx->positions[v] = sinew_vec3_lerp(a, b, 0.125f + 0.25f * (float)t);
                fx_weight(fx, v++, fx->tail0 + k, 0.8f, k == 0 ? fx->hips : fx->tail0 + k - 1,
                          0.2f);
            }
        }
        fx->model.mesh.vertex_count = v;
        fx->model.mesh.positions = fx->positions;
        fx->model.mesh.influence_joints = fx->inf_joints;
        fx->model.mesh.influence_weights = fx->inf_weights;
    }
}

/* The grounding tests' creature, with its mesh: a long 5-bone tail modelled hanging below
 * the soles (bind tip at y < 0), so counting tail skin drags the reference floor down. */
static inline void fixture_build_hanging_tail(fixture *fx)
{
    fixture_opts o = {.tail_count = 5,
                      .with_end = 1,
                      .tail_dir = {0, -1, -0.3f},
                      .tail_length = 1.2f,
                      .with_mesh = 1};
    fixture_build(fx, &o);
}

/* Hips world transform from a position and rotation. */
static inline sinew_mat4 fx_hips_world(sinew_vec3 p, sinew_quat q)
{
    return fx_trs(p, q);
}

/* Forward kinematics of the tail: world heads (K + 1 points: joints, then the tip) from the
 * hips world and the tail's local rotations (rest translations). The tip is Tail_End's
 * position or, without it, the rig's continued tangent (`tip_offset` in the last bone's
 * frame). */
static inline void fx_tail_points(const fixture *fx, const sinew_mat4 *hips_world,
                                  const sinew_quat *local, sinew_vec3 tip_offset,
                                  sinew_vec3 *points, sinew_mat4 *worlds)
{
    sinew_mat4 w = *hips_world;
    for (int k = 0; k < fx->tail_count; k++) {
        const sinew_node *n = &fx->nodes[fx->tail0 + k];
        sinew_mat4 l = fx_trs(n->rest.translation, local[k]);
        w = sinew_mat4_mul(&w, &l);
        points[k] = sinew_mat4_translation(&w);
        if (worlds) worlds[k] = w;
    }
    if (fx->tail_end >= 0)
        points[fx->tail_count] =
            sinew_mat4_transform_point(&w, fx->nodes[fx->tail_end].rest.translation);
    else
        points[fx->tail_count] = sinew_mat4_transform_point(&w, tip_offset);
}

/* A world array for the whole skeleton: Root identity, Hips as given, the rest by rest
 * transforms (tail entries are rest too: the runtime must ignore them). */
static inline void fx_world(const fixture *fx, const sinew_mat4 *hips_world, sinew_mat4 *world)
{
    for (uint32_t i = 0; i < fx->model.node_count; i++) {
        const sinew_node *n = &fx->nodes[i];
        sinew_mat4 l = sinew_mat4_from_transform(n->rest);
        if ((int)i == fx->hips)
            world[i] = *hips_world;
        else
            world[i] = n->parent >= 0 ? sinew_mat4_mul(&world[n->parent], &l) : l;
    }
}

/* World transforms of every fixture node with the hips at `hw` and the tail's local
 * rotations `tail_rot` (what the skin of a posed fixture needs). */
static inline void fx_world_posed(const fixture *fx, const sinew_mat4 *hw,
                                  const sinew_quat *tail_rot, sinew_mat4 *world)
{
    fx_world(fx, hw, world);
    sinew_vec3 pts[SINEW_DYN_MAX_JOINTS + 1];
    sinew_mat4 tw[SINEW_DYN_MAX_JOINTS];
    fx_tail_points(fx, hw, tail_rot, sinew_vec3_make(0, 0, 0), pts, tw);
    for (int k = 0; k < fx->tail_count; k++)
        world[fx->tail0 + k] = tw[k];
}

#endif
