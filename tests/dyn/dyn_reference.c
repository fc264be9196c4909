/* Native reference run for the WebAssembly agreement test (test_wasm.mjs): reads a scenario
 * (skeleton, chain, params, per-frame world matrices and dt) as whitespace-separated text,
 * runs sinew's dyn runtime and prints, per frame, the chain's local rotations then the tip
 * particles, with 9 significant digits. Usage: dyn_reference SCENARIO.txt
 *
 * Scenario: "sinew-dyn-scenario 1", "nodes N size S", N x (name parent ibm[16] rest[10]),
 * "chain M i_1..i_M end E" (M = 0: find Tail_* by name), "params" 17 floats, "frames F",
 * F x (dt floor_mode floor_height world[16 N]). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/dyn.h"

static int fail(const char *what)
{
    fprintf(stderr, "dyn_reference: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) return fail("usage: dyn_reference SCENARIO.txt");
    FILE *f = fopen(argv[1], "r");
    if (!f) return fail("cannot open the scenario");
    char word[64];
    int version = 0;
    unsigned n = 0;
    float size = 0;
    if (fscanf(f, "%63s %d nodes %u size %f", word, &version, &n, &size) != 4 ||
        strcmp(word, "sinew-dyn-scenario") != 0 || version != 1 || n == 0 || n > 1024)
        return fail("bad header");
    sinew_node *nodes = calloc(n, sizeof *nodes);
    sinew_joint *joints = calloc(n, sizeof *joints);
    char(*names)[64] = calloc(n, sizeof *names);
    sinew_mat4 *world = calloc(n, sizeof *world);
    if (!nodes || !joints || !names || !world) return fail("out of memory");
    for (unsigned i = 0; i < n; i++) {
        int parent;
        float r[10];
        if (fscanf(f, "%63s %d", names[i], &parent) != 2) return fail("bad node");
        for (int k = 0; k < 16; k++)
            if (fscanf(f, "%f", &joints[i].inverse_bind.m[k]) != 1) return fail("bad ibm");
        for (int k = 0; k < 10; k++)
            if (fscanf(f, "%f", &r[k]) != 1) return fail("bad rest");
        nodes[i].name = names[i];
        nodes[i].parent = parent;
        nodes[i].gltf_node = -1;
        nodes[i].joint = (int32_t)i;
        nodes[i].rest.translation = sinew_vec3_make(r[0], r[1], r[2]);
        nodes[i].rest.rotation = sinew_quat_make(r[3], r[4], r[5], r[6]);
        nodes[i].rest.scale = sinew_vec3_make(r[7], r[8], r[9]);
        nodes[i].local = nodes[i].rest;
        joints[i].node = (int32_t)i;
        sinew_mat4_invert_affine(&joints[i].inverse_bind, &joints[i].bind);
    }
    sinew_model model;
    memset(&model, 0, sizeof model);
    model.node_count = n;
    model.nodes = nodes;
    model.skin.gltf_skin = -1;
    model.skin.joint_count = n;
    model.skin.joints = joints;
    model.size.scale = size;

    unsigned m = 0;
    int32_t chain[SINEW_DYN_MAX_JOINTS];
    int end = -1;
    if (fscanf(f, " chain %u", &m) != 1 || m > SINEW_DYN_MAX_JOINTS) return fail("bad chain");
    for (unsigned i = 0; i < m; i++)
        if (fscanf(f, "%d", &chain[i]) != 1) return fail("bad chain node");
    if (fscanf(f, " end %d params", &end) != 1) return fail("bad end");
    float pv[17];
    for (int k = 0; k < 17; k++)
        if (fscanf(f, "%f", &pv[k]) != 1) return fail("bad params");
    sinew_dyn_params p = {pv[0],
                          pv[1],
                          pv[2],
                          pv[3],
                          pv[4],
                          pv[5],
                          pv[6],
                          pv[7],
                          pv[8],
                          pv[9],
                          pv[10],
                          pv[11],
                          pv[12],
                          pv[13] > 0 ? (uint32_t)pv[13] : 0u,
                          pv[14],
                          pv[15],
                          pv[16] > 0 ? (uint32_t)pv[16] : 0u,
                          0.0f /* bind_limit: the default */,
                          0.0f /* idle: off */,
                          0.0f,
                          0u,
                          0.0f /* damping_tip: damping_ratio all along */,
                          0u,
                          0u,
                          0u /* the tail preset */};
    sinew_dyn_chain_desc desc = {chain, m, end, NULL, 0, NULL, 0};
    sinew_dyn_rig *rig = NULL;
    sinew_error err;
    if (sinew_dyn_rig_create(&model, m ? &desc : NULL, &p, NULL, &rig, &err) != SINEW_OK)
        return fail(err.message);
    uint32_t joint_count = sinew_dyn_rig_joint_count(rig);
    size_t bytes = sinew_dyn_state_bytes(rig);
    void *mem = calloc(1, bytes);
    sinew_dyn_state *st = sinew_dyn_state_init(rig, mem, bytes);
    sinew_quat out[SINEW_DYN_MAX_JOINTS];
    sinew_vec3 pos[SINEW_DYN_MAX_JOINTS];
    unsigned frames = 0;
    if (!st || fscanf(f, " frames %u", &frames) != 1) return fail("bad frames");
    for (unsigned fr = 0; fr < frames; fr++) {
        float dt, height;
        int mode;
        if (fscanf(f, "%f %d %f", &dt, &mode, &height) != 3) return fail("bad frame");
        for (unsigned i = 0; i < n; i++)
            for (int k = 0; k < 16; k++)
                if (fscanf(f, "%f", &world[i].m[k]) != 1) return fail("bad world");
        sinew_dyn_floor fl = {mode > 0, height};
        sinew_dyn_step_job job = {rig, st, world, n, dt, out, mode >= 0 ? &fl : NULL};
        if (sinew_dyn_step_run(&job, &err) != SINEW_OK) return fail(err.message);
        sinew_dyn_state_get(st, pos, NULL);
        for (uint32_t j = 0; j < joint_count; j++)
            printf("%.9g %.9g %.9g %.9g ", (double)out[j].x, (double)out[j].y, (double)out[j].z,
                   (double)out[j].w);
        for (uint32_t j = 0; j < joint_count; j++)
            printf("%.9g %.9g %.9g ", (double)pos[j].x, (double)pos[j].y, (double)pos[j].z);
        printf("\n");
    }
    fclose(f);
    sinew_dyn_rig_free(rig);
    free(mem), free(nodes), free(joints), free(names), free(world);
    return 0;
}
