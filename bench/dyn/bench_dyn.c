/* ns per joint-step of sinew's spring-chain runtime: 10,000 chains of 8 joints (one rig, one
 * state per chain, each with its own hips motion), coupling, elastic limit and floor on,
 * 60 calls per second (one fixed 1/60 s step per call). Fixed motions, no randomness.
 * Anchor: at most 40 ns per joint-step, and at least 20x faster than three-vrm's
 * VRMSpringBoneManager on the same chains (bench/dyn/run.sh prints both).
 * Usage: bench_dyn [chains] [frames] [single]   (single: sinew_dyn_step_run per chain
 * instead of sinew_dyn_step_run_many) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_util.h"
#include "sinew/dyn.h"

#define K 8

static double now(void)
{
    return bench_seconds(CLOCK_PROCESS_CPUTIME_ID); /* CPU time: the machine may be shared */
}

static sinew_mat4 trs(sinew_vec3 t, sinew_quat q)
{
    sinew_transform tr = {t, q, {1, 1, 1}};
    return sinew_mat4_from_transform(tr);
}

int main(int argc, char **argv)
{
    int chains = argc > 1 ? atoi(argv[1]) : 10000;
    int frames = argc > 2 ? atoi(argv[2]) : 120;
    int single = argc > 3 && strcmp(argv[3], "single") == 0;
    if (chains <= 0 || frames <= 0) return 2;
    /* Root, Hips, Tail_1..Tail_8, Tail_End: the same chain three-vrm gets */
    enum { N = K + 3 };
    sinew_node nodes[N];
    sinew_joint joints[N];
    char names[N][16];
    memset(nodes, 0, sizeof nodes);
    memset(joints, 0, sizeof joints);
    sinew_vec3 pos[N];
    pos[0] = sinew_vec3_make(0, 0, 0);
    pos[1] = sinew_vec3_make(0, 1, 0);
    sinew_vec3 d =
        sinew_vec3_normalize_or(sinew_vec3_make(0, -1, -0.5f), sinew_vec3_make(0, 0, -1));
    pos[2] = sinew_vec3_make(0, 0.95f, -0.12f);
    for (int i = 3; i < N; i++)
        pos[i] = sinew_vec3_madd(pos[i - 1], d, 0.1f);
    for (int i = 0; i < N; i++) {
        if (i == 0)
            snprintf(names[i], sizeof names[i], "Root");
        else if (i == 1)
            snprintf(names[i], sizeof names[i], "Hips");
        else if (i == N - 1)
            snprintf(names[i], sizeof names[i], "Tail_End");
        else
            snprintf(names[i], sizeof names[i], "Tail_%d", i - 1);
        nodes[i].name = names[i];
        nodes[i].parent = i - 1;
        nodes[i].gltf_node = -1;
        nodes[i].joint = i;
        nodes[i].rest = sinew_transform_identity();
        nodes[i].rest.translation = i ? sinew_vec3_sub(pos[i], pos[i - 1]) : pos[0];
        nodes[i].local = nodes[i].rest;
        joints[i].node = i;
        joints[i].bind = trs(pos[i], sinew_quat_identity());
        joints[i].inverse_bind = trs(sinew_vec3_scale(pos[i], -1), sinew_quat_identity());
    }
    sinew_model model;
    memset(&model, 0, sizeof model);
    model.node_count = N;
    model.nodes = nodes;
    model.skin.joint_count = N;
    model.skin.joints = joints;
    model.size.scale = 1.91f;

    sinew_dyn_rig *rig;
    sinew_error err;
    if (sinew_dyn_rig_create(&model, NULL, NULL, NULL, &rig, &err) != SINEW_OK) {
        fprintf(stderr, "bench_dyn: %s\n", err.message);
        return 1;
    }
    size_t bytes = (sinew_dyn_state_bytes(rig) + 7) & ~(size_t)7;
    char *mem = aligned_alloc(64, bytes * (size_t)chains + 64);
    sinew_dyn_state **st = malloc(sizeof *st * (size_t)chains);
    if (!mem || !st) return 1;
    for (int c = 0; c < chains; c++)
        st[c] = sinew_dyn_state_init(rig, mem + bytes * (size_t)c, bytes);
    /* one world array per chain (only its hips entry changes), one job per chain; all jobs
     * of a frame go to sinew_dyn_step_run_many, which runs them four at a time */
    sinew_mat4 *world = malloc(sizeof *world * N * (size_t)chains);
    sinew_quat *out = malloc(sizeof *out * K * (size_t)chains);
    sinew_dyn_step_job *jobs = malloc(sizeof *jobs * (size_t)chains);
    if (!world || !out || !jobs) return 1;
    for (int c = 0; c < chains; c++)
        for (int i = 0; i < N; i++)
            world[c * N + i] = joints[i].bind;
    double checksum = 0;
    const float dt = 1.0f / 60.0f;
    int contacts = 0;
    float lowest = 1e30f;
    double elapsed = 0;
    int warm = 30;
    for (int f = -warm; f < frames; f++) {
        float t = (float)(f + warm) * dt;
        for (int c = 0; c < chains; c++) {
            float ph = (float)c * 0.37f;
            /* a trot with deep crouches: the tail swings, hits the floor, and the limit and
             * coupling work */
            sinew_vec3 p = sinew_vec3_make((float)(c % 100) * 3.0f + 0.2f * sinf(5.0f * t + ph),
                                           0.45f + 0.3f * sinf(2.1f * t + ph),
                                           (float)(c / 100) * 3.0f + 1.5f * t);
            sinew_quat q =
                sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 0.6f * sinf(3.3f * t + ph));
            world[c * N + 1] = trs(p, q);
            jobs[c] = (sinew_dyn_step_job){
                rig, st[c], world + c * N, N, f == -warm ? 0.0f : dt, out + c * K, NULL};
        }
        double t0 = now();
        if (single) {
            for (int c = 0; c < chains; c++)
                if (sinew_dyn_step_run(&jobs[c], &err) != SINEW_OK) break;
        } else {
            if (sinew_dyn_step_run_many(jobs, (uint32_t)chains, &err) != SINEW_OK) {
                fprintf(stderr, "bench_dyn: %s\n", err.message);
                return 1;
            }
        }
        if (f >= 0) elapsed += now() - t0;
        for (int c = 0; c < chains; c++) {
            checksum += (double)out[c * K + K - 1].x;
            if (f >= 0 && f % 10 == 0) {
                sinew_vec3 tips[K];
                sinew_dyn_state_get(st[c], tips, NULL);
                for (int k = 0; k < K; k++)
                    if (tips[k].y < lowest) lowest = tips[k].y;
                for (int k = 0; k < K; k++)
                    if (tips[k].y < 0.03f) {
                        contacts++;
                        break;
                    }
            }
        }
    }
    double steps = (double)chains * K * frames;
    char how[32];
    snprintf(how, sizeof how, "run_many, %u lanes", sinew_dyn_lane_width());
    printf("sinew dyn (%s): %d chains x %d joints x %d frames at 60 fps: %.1f ns per joint-step "
           "(goal <= 40 ns); %.2f ms per frame for all chains; %d chain-frames touching the floor "
           "(sampled every 10th frame)"
           " lowest tip %.3f (checksum %.6f)\n",
           single ? "one job at a time" : how, chains, K, frames, 1e9 * elapsed / steps,
           1e3 * elapsed / frames, contacts, (double)lowest, checksum);
    printf("RESULT sinew_ns_per_joint_step %.3f\n", 1e9 * elapsed / steps);
    sinew_dyn_rig_free(rig);
    free(mem);
    free(st);
    free(world);
    free(out);
    free(jobs);
    return 0;
}
