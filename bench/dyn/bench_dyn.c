/* ns per joint-step of sinew's spring-chain runtime: 10,000 chains of 8 joints (one rig, one
 * state per chain, each with its own hips motion), coupling, elastic limit and floor on,
 * 60 calls per second (one fixed 1/60 s step per call). Fixed motions, no randomness.
 * Anchor: at most 40 ns per joint-step, and at least 20x faster than three-vrm's
 * VRMSpringBoneManager on the same chains (bench/dyn/run.sh prints both). Then the same
 * chains with four body capsules each (two legs of two bones under the hips, sinew/dyn.h
 * "body colliders"), stepped in turn with them frame by frame and printed beside them: goal
 * at most 10 ns per joint-step more.
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

/* One case of the benchmark: a rig and its chains' states, jobs and outputs, and what was
 * measured. */
typedef struct bench_case {
    const sinew_dyn_rig *rig;
    const sinew_dyn_capsule *legs; /* its capsules (NULL: none), to count tips on them */
    char *mem;
    sinew_dyn_state **st;
    sinew_quat *out;
    sinew_dyn_step_job *jobs;
    double elapsed; /* CPU seconds in the step over the measured frames */
    int contacts, leg_contacts;
    float lowest;
    double checksum;
} bench_case;

static void case_init(bench_case *k, const sinew_dyn_rig *rig, const sinew_dyn_capsule *legs,
                      int chains)
{
    memset(k, 0, sizeof *k);
    k->rig = rig;
    k->legs = legs;
    size_t bytes = (sinew_dyn_state_bytes(rig) + 7) & ~(size_t)7;
    k->mem = aligned_alloc(64, bytes * (size_t)chains + 64);
    k->st = malloc(sizeof *k->st * (size_t)chains);
    k->out = malloc(sizeof *k->out * K * (size_t)chains);
    k->jobs = malloc(sizeof *k->jobs * (size_t)chains);
    if (!k->mem || !k->st || !k->out || !k->jobs) exit(1);
    for (int c = 0; c < chains; c++)
        k->st[c] = sinew_dyn_state_init(rig, k->mem + bytes * (size_t)c, bytes);
    k->lowest = 1e30f;
}

static void case_free(bench_case *k)
{
    free(k->mem);
    free(k->st);
    free(k->out);
    free(k->jobs);
}

/* Steps every case's `chains` chains for `frames` frames (after 30 of warm-up) on the same
 * body motion, the cases taking turns within each frame (in alternating order), so that a
 * neighbour slowing the shared machine slows both alike. */
static void run(const bench_model *b, bench_case *cases, int ncases, int chains, int frames,
                int single)
{
    sinew_error err;
    /* one world array per chain (its hips and legs change), one job per chain; all jobs of a
     * frame go to sinew_dyn_step_run_many, which runs them in vector lanes */
    sinew_mat4 *world = malloc(sizeof *world * N * (size_t)chains);
    if (!world) exit(1);
    for (int c = 0; c < chains; c++)
        for (int i = 0; i < N; i++)
            world[c * N + i] = b->joints[i].bind;
    const float dt = 1.0f / 60.0f;
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
        }
        for (int turn = 0; turn < ncases; turn++) {
            bench_case *k = &cases[(f & 1) ? ncases - 1 - turn : turn];
            for (int c = 0; c < chains; c++)
                k->jobs[c] = (sinew_dyn_step_job){
                    k->rig,         k->st[c], world + c * N, N, f == -warm ? 0.0f : dt,
                    k->out + c * K, NULL};
            double t0 = now();
            if (single) {
                for (int c = 0; c < chains; c++)
                    if (sinew_dyn_step_run(&k->jobs[c], &err) != SINEW_OK) break;
            } else if (sinew_dyn_step_run_many(k->jobs, (uint32_t)chains, &err) != SINEW_OK) {
                fprintf(stderr, "bench_dyn: %s\n", err.message);
                exit(1);
            }
            if (f >= 0) k->elapsed += now() - t0;
            for (int c = 0; c < chains; c++) {
                k->checksum += (double)k->out[c * K + K - 1].x;
                if (f < 0 || f % 10 != 0) continue;
                sinew_vec3 tips[K];
                sinew_dyn_state_get(k->st[c], tips, NULL);
                for (int j = 0; j < K; j++)
                    if (tips[j].y < k->lowest) k->lowest = tips[j].y;
                for (int j = 0; j < K; j++)
                    if (tips[j].y < 0.03f) {
                        k->contacts++;
                        break;
                    }
                /* tips on a leg capsule (the capsule case only) */
                const sinew_mat4 *wc = world + c * N;
                for (int j = 0; j < K && k->legs; j++) {
                    int on = 0;
                    for (int l = 0; l < CAPSULES; l++)
                        on |= sinew_segment_distance(
                                  tips[j], sinew_mat4_translation(&wc[k->legs[l].node_a]),
                                  sinew_mat4_translation(&wc[k->legs[l].node_b])) <
                              1.01f * k->legs[l].radius;
                    if (on) {
                        k->leg_contacts++;
                        break;
                    }
                }
            }
        }
    }
    free(world);
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
    const sinew_dyn_chain_desc with_legs = {NULL, 0, -1, caps, CAPSULES, NULL, 0};
    if (sinew_dyn_rig_create(&b.model, NULL, NULL, NULL, &rig, &err) != SINEW_OK ||
        sinew_dyn_rig_create(&b.model, &with_legs, NULL, NULL, &legged, &err) != SINEW_OK) {
        fprintf(stderr, "bench_dyn: %s\n", err.message);
        return 1;
    }
    bench_case cases[2];
    case_init(&cases[0], rig, NULL, chains);
    case_init(&cases[1], legged, caps, chains);
    run(&b, cases, 2, chains, frames, single);
    const double elapsed = cases[0].elapsed, with_caps = cases[1].elapsed;
    double steps = (double)chains * K * frames;
    char how[32];
    snprintf(how, sizeof how, "run_many, %u lanes", sinew_dyn_lane_width());
    printf("sinew dyn (%s): %d chains x %d joints x %d frames at 60 fps: %.1f ns per joint-step "
           "(goal <= 40 ns); %.2f ms per frame for all chains; %d chain-frames touching the floor "
           "(sampled every 10th frame)"
           " lowest tip %.3f (checksum %.6f)\n",
           single ? "one job at a time" : how, chains, K, frames, 1e9 * elapsed / steps,
           1e3 * elapsed / frames, cases[0].contacts, (double)cases[0].lowest, cases[0].checksum);
    printf("with %d leg capsules per chain: %.1f ns per joint-step, %+.1f ns beside none (goal "
           "<= +10 ns); %d chain-frames touching the floor, %d touching a leg (checksum %.6f)\n",
           CAPSULES, 1e9 * with_caps / steps, 1e9 * (with_caps - elapsed) / steps,
           cases[1].contacts, cases[1].leg_contacts, cases[1].checksum);
    printf("RESULT sinew_ns_per_joint_step %.3f\n", 1e9 * elapsed / steps);
    printf("RESULT sinew_ns_per_joint_step_capsules %.3f\n", 1e9 * with_caps / steps);
    case_free(&cases[0]);
    case_free(&cases[1]);
    sinew_dyn_rig_free(rig);
    sinew_dyn_rig_free(legged);
    return 0;
}
