/* WebAssembly exports of sinew's spring-chain runtime (src/dyn), for sinew_dyn.mjs.
 * A thin shim: JS describes a skeleton in flat arrays (parents, inverse bind matrices, rest
 * TRS, names), the shim builds a sinew_model from them, and every other call forwards to
 * include/sinew/dyn.h unchanged, so the wasm build runs exactly the native code. */
#include <stdlib.h>
#include <string.h>

#include "sinew/dyn.h"

#define EXPORT(name) __attribute__((export_name(name)))

typedef struct wasm_model {
    sinew_model model;
    int32_t *parents;  /* node_count */
    float *ibms;       /* 16 * node_count, column-major */
    float *rest;       /* 10 * node_count: t xyz, r xyzw, s xyz */
    char (*names)[64]; /* node_count */
    sinew_node *nodes;
    sinew_joint *joints;
} wasm_model;

static sinew_error last_error;

EXPORT("sdyn_malloc") void *sdyn_malloc(size_t bytes)
{
    return calloc(1, bytes ? bytes : 1);
}
EXPORT("sdyn_free") void sdyn_free(void *p)
{
    free(p);
}
EXPORT("sdyn_last_error") const char *sdyn_last_error(void)
{
    return last_error.message;
}

EXPORT("sdyn_model_new") wasm_model *sdyn_model_new(uint32_t node_count)
{
    if (node_count == 0 || node_count > 65535) return NULL;
    wasm_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->parents = calloc(node_count, sizeof *m->parents);
    m->ibms = calloc(node_count, 16 * sizeof(float));
    m->rest = calloc(node_count, 10 * sizeof(float));
    m->names = calloc(node_count, sizeof *m->names);
    m->nodes = calloc(node_count, sizeof *m->nodes);
    m->joints = calloc(node_count, sizeof *m->joints);
    if (!m->parents || !m->ibms || !m->rest || !m->names || !m->nodes || !m->joints) {
        free(m->parents), free(m->ibms), free(m->rest), free(m->names), free(m->nodes),
            free(m->joints), free(m);
        return NULL;
    }
    m->model.node_count = node_count;
    return m;
}
EXPORT("sdyn_model_parents") int32_t *sdyn_model_parents(wasm_model *m)
{
    return m->parents;
}
EXPORT("sdyn_model_ibms") float *sdyn_model_ibms(wasm_model *m)
{
    return m->ibms;
}
EXPORT("sdyn_model_rest") float *sdyn_model_rest(wasm_model *m)
{
    return m->rest;
}
EXPORT("sdyn_model_name") char *sdyn_model_name(wasm_model *m, uint32_t i)
{
    return i < m->model.node_count ? m->names[i] : NULL;
}

/* Builds the sinew_model from the arrays: every node is a joint with its IBM; `size` is the
 * model's reference size (sinew_model.size.scale). */
EXPORT("sdyn_model_finish") void sdyn_model_finish(wasm_model *m, float size)
{
    uint32_t n = m->model.node_count;
    for (uint32_t i = 0; i < n; i++) {
        sinew_node *nd = &m->nodes[i];
        const float *r = &m->rest[i * 10];
        m->names[i][63] = 0;
        nd->name = m->names[i];
        nd->parent = m->parents[i];
        nd->gltf_node = -1;
        nd->joint = (int32_t)i;
        nd->rest.translation = sinew_vec3_make(r[0], r[1], r[2]);
        nd->rest.rotation = sinew_quat_make(r[3], r[4], r[5], r[6]);
        nd->rest.scale = sinew_vec3_make(r[7], r[8], r[9]);
        nd->local = nd->rest;
        m->joints[i].node = (int32_t)i;
        memcpy(m->joints[i].inverse_bind.m, &m->ibms[i * 16], sizeof(float) * 16);
        sinew_mat4_invert_affine(&m->joints[i].inverse_bind, &m->joints[i].bind);
    }
    m->model.nodes = m->nodes;
    m->model.skin.gltf_skin = -1;
    m->model.skin.joint_count = n;
    m->model.skin.joints = m->joints;
    m->model.size.scale = size;
}

EXPORT("sdyn_model_free") void sdyn_model_free(wasm_model *m)
{
    if (!m) return;
    free(m->parents), free(m->ibms), free(m->rest), free(m->names), free(m->nodes), free(m->joints),
        free(m);
}

/* params: NULL or 17 floats in sinew_dyn_params field order (max_substeps and disable as
 * whole numbers). chain: NULL (find Tail_* by name) or chain_len node indices. */
EXPORT("sdyn_rig_create")
sinew_dyn_rig *sdyn_rig_create(const wasm_model *m, const int32_t *chain, uint32_t chain_len,
                               int32_t end_node, const float *params)
{
    sinew_dyn_params p;
    memset(&p, 0, sizeof p);
    if (params) {
        p.frequency_root = params[0];
        p.frequency_tip = params[1];
        p.damping_ratio = params[2];
        p.gravity = params[3];
        p.carry = params[4];
        p.rest_curve = params[5];
        p.curvature = params[6];
        p.coupling_rate = params[7];
        p.bend_limit = params[8];
        p.floor_height = params[9];
        p.floor_clearance = params[10];
        p.contact_damping = params[11];
        p.max_step = params[12];
        p.max_substeps = params[13] > 0 ? (uint32_t)params[13] : 0u;
        p.teleport_distance = params[14];
        p.reference_size = params[15];
        p.disable = params[16] > 0 ? (uint32_t)params[16] : 0u;
    }
    sinew_dyn_chain_desc desc = {chain, chain_len, end_node, NULL, 0, NULL, 0};
    sinew_dyn_rig *rig = NULL;
    if (sinew_dyn_rig_create(&m->model, chain ? &desc : NULL, &p, NULL, &rig, &last_error) !=
        SINEW_OK)
        return NULL;
    return rig;
}
EXPORT("sdyn_rig_free") void sdyn_rig_free(sinew_dyn_rig *rig)
{
    sinew_dyn_rig_free(rig);
}
EXPORT("sdyn_rig_joint_count") uint32_t sdyn_rig_joint_count(const sinew_dyn_rig *rig)
{
    return sinew_dyn_rig_joint_count(rig);
}
EXPORT("sdyn_rig_joint_node") int32_t sdyn_rig_joint_node(const sinew_dyn_rig *rig, uint32_t i)
{
    return sinew_dyn_rig_joint_node(rig, i);
}
EXPORT("sdyn_rig_parent_node") int32_t sdyn_rig_parent_node(const sinew_dyn_rig *rig)
{
    return sinew_dyn_rig_parent_node(rig);
}
EXPORT("sdyn_rig_node_count") uint32_t sdyn_rig_node_count(const sinew_dyn_rig *rig)
{
    return sinew_dyn_rig_node_count(rig);
}

EXPORT("sdyn_state_bytes") uint32_t sdyn_state_bytes(const sinew_dyn_rig *rig)
{
    return (uint32_t)sinew_dyn_state_bytes(rig);
}
/* A fresh state in its own (8-byte aligned) allocation; free it with sdyn_free. */
EXPORT("sdyn_state_new") sinew_dyn_state *sdyn_state_new(const sinew_dyn_rig *rig)
{
    size_t bytes = sinew_dyn_state_bytes(rig);
    void *mem = aligned_alloc(8, (bytes + 7) & ~(size_t)7);
    if (!mem) return NULL;
    return sinew_dyn_state_init(rig, mem, bytes);
}
EXPORT("sdyn_state_reset") void sdyn_state_reset(sinew_dyn_state *s)
{
    sinew_dyn_state_reset(s);
}
EXPORT("sdyn_state_get")
void sdyn_state_get(const sinew_dyn_state *s, sinew_vec3 *positions, sinew_vec3 *velocities)
{
    sinew_dyn_state_get(s, positions, velocities);
}
EXPORT("sdyn_state_copy")
void sdyn_state_copy(const sinew_dyn_rig *rig, sinew_dyn_state *dst, const sinew_dyn_state *src)
{
    memcpy(dst, src, sinew_dyn_state_bytes(rig));
}

/* One step: world = world_count column-major matrices; out = joint_count quaternions.
 * floor_mode -1: the params' floor, 0: off, 1: on at floor_height. Returns a sinew_result. */
EXPORT("sdyn_step")
int sdyn_step(const sinew_dyn_rig *rig, sinew_dyn_state *state, const sinew_mat4 *world,
              uint32_t world_count, float dt, sinew_quat *out, int floor_mode, float floor_height)
{
    sinew_dyn_floor fl = {floor_mode > 0, floor_height};
    sinew_dyn_step_job job = {
        rig, state, world, world_count, dt, out, floor_mode >= 0 ? &fl : NULL};
    return (int)sinew_dyn_step_run(&job, &last_error);
}
