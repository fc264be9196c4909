/* ns per joint-step of sinew's spring-chain runtime: 10,000 chains of 8 joints (one rig, one
 * state per chain, each with its own hips motion), coupling, elastic limit and floor on,
 * 60 calls per second (one fixed 1/60 s step per call). Fixed motions, no randomness.
 * Anchor: at most 40 ns per joint-step, and at least 20x faster than three-vrm's
 * VRMSpringBoneManager on the same chains (bench/dyn/run.sh prints both). Then the same
 * chains with four body capsules each (two legs of two bones under the hips, sinew/dyn.h
 * "body colliders"), printed beside it: goal at most 10 ns per joint-step more.
 * Usage: bench_dyn [chains] [frames] [single]   (single: sinew_dyn_step_run per chain
 * instead of sinew_dyn_step_run_many) */
#include <math.h>
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

/* Root, Hips, Tail_1..Tail_8, Tail_End (the same chain three-vrm gets), then two legs of two
 * bones under the hips (LeftUpLeg, LeftLeg, LeftFoot and the right ones), which only the
 * capsule case reads. */
enum { TAIL_NODES = K + 3, LEG_NODES = 6, N = TAIL_NODES + LEG_NODES, CAPSULES = 4 };

typedef struct bench_model {
    sinew_node nodes[N];
    sinew_joint joints[N];
    char names[N][16];
    sinew_model model;
} bench_model;

static void bench_model_build(bench_model *b)
{
    memset(b, 0, sizeof *b);
    sinew_vec3 pos[N];
    pos[0] = sinew_vec3_make(0, 0, 0);
    pos[1] = sinew_vec3_make(0, 1, 0);
    sinew_vec3 d =
        sinew_vec3_normalize_or(sinew_vec3_make(0, -1, -0.5f), sinew_vec3_make(0, 0, -1));
    pos[2] = sinew_vec3_make(0, 0.95f, -0.12f);
    for (int i = 3; i < TAIL_NODES; i++)
        pos[i] = sinew_vec3_madd(pos[i - 1], d, 0.1f);
    /* hind legs a little behind the hips, where a swinging tail passes them */
    for (int s = 0; s < 2; s++) {
        const float x = s ? -0.15f : 0.15f;
        pos[TAIL_NODES + 3 * s] = sinew_vec3_make(x, 0.9f, -0.2f);
        pos[TAIL_NODES + 3 * s + 1] = sinew_vec3_make(x, 0.5f, -0.25f);
        pos[TAIL_NODES + 3 * s + 2] = sinew_vec3_make(x, 0.05f, -0.2f);
    }
    static const char *const legs[LEG_NODES] = {"LeftUpLeg",  "LeftLeg",  "LeftFoot",
                                                "RightUpLeg", "RightLeg", "RightFoot"};
    for (int i = 0; i < N; i++) {
        int parent = i - 1;
        if (i == 0)
            snprintf(b->names[i], sizeof b->names[i], "Root");
        else if (i == 1)
            snprintf(b->names[i], sizeof b->names[i], "Hips");
        else if (i == TAIL_NODES - 1)
            snprintf(b->names[i], sizeof b->names[i], "Tail_End");
        else if (i < TAIL_NODES)
            snprintf(b->names[i], sizeof b->names[i], "Tail_%d", i - 1);
        else {
            snprintf(b->names[i], sizeof b->names[i], "%s", legs[i - TAIL_NODES]);
            parent = (i - TAIL_NODES) % 3 == 0 ? 1 : i - 1;
        }
        b->nodes[i].name = b->names[i];
        b->nodes[i].parent = parent;
        b->nodes[i].gltf_node = -1;
        b->nodes[i].joint = i;
        b->nodes[i].rest = sinew_transform_identity();
        b->nodes[i].rest.translation = i ? sinew_vec3_sub(pos[i], pos[parent]) : pos[0];
        b->nodes[i].local = b->nodes[i].rest;
        b->joints[i].node = i;
        b->joints[i].bind = trs(pos[i], sinew_quat_identity());
        b->joints[i].inverse_bind = trs(sinew_vec3_scale(pos[i], -1), sinew_quat_identity());
    }
    b->model.node_count = N;
    b->model.nodes = b->nodes;
    b->model.skin.joint_count = N;
    b->model.skin.joints = b->joints;
    b->model.size.scale = 1.91f;
}

/* Steps `chains` chains of `rig` for `frames` frames (after 30 of warm-up) and returns the
 * CPU seconds the steps took; prints nothing. */
static double run(const bench_model *b, const sinew_dyn_rig *rig, const sinew_dyn_capsule *legs,
                  int chains, int frames, int single, int *contacts, int *leg_contacts,
                  float *lowest, double *checksum)
{
    sinew_error err;
    size_t bytes = (sinew_dyn_state_bytes(rig) + 7) & ~(size_t)7;
    char *mem = aligned_alloc(64, bytes * (size_t)chains + 64);
    sinew_dyn_state **st = malloc(sizeof *st * (size_t)chains);
    /* one world array per chain (its hips and legs change), one job per chain; all jobs of a
     * frame go to sinew_dyn_step_run_many, which runs them in vector lanes */
    sinew_mat4 *world = malloc(sizeof *world * N * (size_t)chains);
    sinew_quat *out = malloc(sizeof *out * K * (size_t)chains);
    sinew_dyn_step_job *jobs = malloc(sizeof *jobs * (size_t)chains);
    if (!mem || !st || !world || !out || !jobs) exit(1);
    for (int c = 0; c < chains; c++)
        st[c] = sinew_dyn_state_init(rig, mem + bytes * (size_t)c, bytes);
    for (int c = 0; c < chains; c++)
        for (int i = 0; i < N; i++)
            world[c * N + i] = b->joints[i].bind;
    const float dt = 1.0f / 60.0f;
    double elapsed = 0;
    int warm = 30;
    *contacts = *leg_contacts = 0;
    *lowest = 1e30f;
    *checksum = 0;
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
            sinew_mat4 *w = world + c * N;
            w[1] = trs(p, q);
            /* the legs swing at the trot's rate, opposite each other */
            for (int s = 0; s < 2; s++) {
                const float swing = 0.5f * sinf(5.0f * t + ph + (float)s * 3.14159265f);
                for (int k = 0; k < 3; k++) {
                    const int i = TAIL_NODES + 3 * s + k;
                    sinew_transform l = b->nodes[i].rest;
                    if (k == 0)
                        l.rotation = sinew_quat_from_axis_angle(sinew_vec3_make(1, 0, 0), swing);
                    sinew_mat4 lm = sinew_mat4_from_transform(l);
                    w[i] = sinew_mat4_mul(&w[b->nodes[i].parent], &lm);
                }
            }
            jobs[c] =
                (sinew_dyn_step_job){rig, st[c], w, N, f == -warm ? 0.0f : dt, out + c * K, NULL};
        }
        double t0 = now();
        if (single) {
            for (int c = 0; c < chains; c++)
                if (sinew_dyn_step_run(&jobs[c], &err) != SINEW_OK) break;
        } else {
            if (sinew_dyn_step_run_many(jobs, (uint32_t)chains, &err) != SINEW_OK) {
                fprintf(stderr, "bench_dyn: %s\n", err.message);
                exit(1);
            }
        }
        if (f >= 0) elapsed += now() - t0;
        for (int c = 0; c < chains; c++) {
            *checksum += (double)out[c * K + K - 1].x;
            if (f >= 0 && f % 10 == 0) {
                sinew_vec3 tips[K];
                sinew_dyn_state_get(st[c], tips, NULL);
                for (int k = 0; k < K; k++)
                    if (tips[k].y < *lowest) *lowest = tips[k].y;
                for (int k = 0; k < K; k++)
                    if (tips[k].y < 0.03f) {
                        (*contacts)++;
                        break;
                    }
                /* tips on a leg capsule (the capsule case only) */
                const sinew_mat4 *w = world + c * N;
                for (int k = 0; k < K && legs; k++) {
                    int on = 0;
                    for (int l = 0; l < CAPSULES; l++)
                        on |= sinew_segment_distance(tips[k],
                                                     sinew_mat4_translation(&w[legs[l].node_a]),
                                                     sinew_mat4_translation(&w[legs[l].node_b])) <
                              1.01f * legs[l].radius;
                    if (on) {
                        (*leg_contacts)++;
                        break;
                    }
                }
            }
        }
    }
    free(mem);
    free(st);
    free(world);
    free(out);
    free(jobs);
    return elapsed;
}

int main(int argc, char **argv)
{
    int chains = argc > 1 ? atoi(argv[1]) : 10000;
    int frames = argc > 2 ? atoi(argv[2]) : 120;
    int single = argc > 3 && strcmp(argv[3], "single") == 0;
    if (chains <= 0 || frames <= 0) return 2;
    static bench_model b;
    bench_model_build(&b);
    sinew_dyn_rig *rig, *legged;
    sinew_error err;
    /* thighs and shins, 0.07 and 0.05 m thick: a 1.91 m fox's */
    const sinew_dyn_capsule caps[CAPSULES] = {{TAIL_NODES + 0, TAIL_NODES + 1, 0.07f, 0.0f},
                                              {TAIL_NODES + 1, TAIL_NODES + 2, 0.05f, 0.0f},
                                              {TAIL_NODES + 3, TAIL_NODES + 4, 0.07f, 0.0f},
                                              {TAIL_NODES + 4, TAIL_NODES + 5, 0.05f, 0.0f}};
    const sinew_dyn_chain_desc with_legs = {NULL, 0, -1, caps, CAPSULES};
    if (sinew_dyn_rig_create(&b.model, NULL, NULL, NULL, &rig, &err) != SINEW_OK ||
        sinew_dyn_rig_create(&b.model, &with_legs, NULL, NULL, &legged, &err) != SINEW_OK) {
        fprintf(stderr, "bench_dyn: %s\n", err.message);
        return 1;
    }
    int contacts, legged_contacts, none, on_legs;
    float lowest, legged_lowest;
    double checksum, legged_checksum;
    /* the two cases alternate, three times each, and each keeps its fastest run: the
     * machine may be shared, and a run slowed by a neighbour says nothing of the step */
    double elapsed = 1e30, with_caps = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        elapsed = fmin(elapsed, run(&b, rig, NULL, chains, frames, single, &contacts, &none,
                                    &lowest, &checksum));
        with_caps = fmin(with_caps, run(&b, legged, caps, chains, frames, single, &legged_contacts,
                                        &on_legs, &legged_lowest, &legged_checksum));
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
    printf("with %d leg capsules per chain: %.1f ns per joint-step, %+.1f ns beside none (goal "
           "<= +10 ns); %d chain-frames touching the floor, %d touching a leg (checksum %.6f)\n",
           CAPSULES, 1e9 * with_caps / steps, 1e9 * (with_caps - elapsed) / steps, legged_contacts,
           on_legs, legged_checksum);
    printf("RESULT sinew_ns_per_joint_step %.3f\n", 1e9 * elapsed / steps);
    printf("RESULT sinew_ns_per_joint_step_capsules %.3f\n", 1e9 * with_caps / steps);
    sinew_dyn_rig_free(rig);
    sinew_dyn_rig_free(legged);
    return 0;
}
