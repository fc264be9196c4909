/* bench_ground: per-frame cost of the body-grounding clearance c(t) (after Sidorkin,
 * "Animating tails the auto-rigger never gave a bone") from the support samples grouped by
 * dominant bone (sinew_dyn_support_clearance) against the whole-mesh reference (every vertex
 * skinned by sinew_skin_positions, then sinew_dyn_ground_clearance).
 *
 * usage: bench_ground [MODEL.glb] [--repeat N]
 *   MODEL defaults to $SINEW_MODELS/quaternius_Fox.glb (the largest shared model with clips).
 *
 * Every clip is sampled at 30 frames per second and its skinning matrices computed once,
 * outside the timing (both ways need them; that cost, with the clip sampling and world
 * transforms, is printed on its own line). Then,
 * each as the median of N runs (default 7) over all those frames, CPU time on one core:
 *   - samples: c(t) from the support samples (only their y row of LBS);
 *   - every vertex: LBS of the whole mesh, then c(t) over it;
 * in microseconds per frame, and their ratio. No anchor is given for these figures in the
 * issue: each line says "(no anchor)". The bench reads a clock; the library never does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_util.h"
#include "sinew/document.h"
#include "sinew/dyn.h"
#include "sinew/model.h"

#define MAX_REPEAT 101

static double now_s(void)
{
    return bench_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int repeat = 7;
    if (bench_args(argc, argv, "bench_ground", &path, &repeat, MAX_REPEAT)) return 2;
    char def[4096];
    if (!path) path = bench_model_path(def, sizeof def, "quaternius_Fox.glb", SINEW_MODELS_DIR);
    sinew_error err = {0};
    sinew_document *doc = NULL;
    sinew_model *model = NULL;
    if (sinew_document_load_file(path, NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &model, &err) != SINEW_OK) {
        fprintf(stderr, "bench_ground: %s: %s (the shared models are needed)\n", path, err.message);
        sinew_document_free(doc);
        return 1;
    }
    const uint32_t nv = model->mesh.vertex_count, nj = model->skin.joint_count;
    uint32_t frames = 0;
    for (uint32_t c = 0; c < model->clip_count; c++)
        frames += (uint32_t)ceilf(model->clips[c].duration * 30.0f) + 1;
    if (!nv || !frames) {
        fprintf(stderr, "bench_ground: %s has no skinned mesh or no clips: nothing to time\n",
                path);
        return 1;
    }
    const uint32_t count = sinew_dyn_support_build(model, NULL, NULL, NULL, NULL, 0);
    sinew_dyn_support_sample *samples = calloc(count + 1, sizeof *samples);
    sinew_transform *pose = calloc(model->node_count, sizeof *pose);
    sinew_mat4 *world = calloc(model->node_count, sizeof *world);
    sinew_mat4 *skin = calloc((size_t)frames * nj, sizeof *skin);
    sinew_vec3 *posed = calloc(nv, sizeof *posed);
    if (!samples || !pose || !world || !skin || !posed) {
        fprintf(stderr, "bench_ground: out of memory\n");
        return 3;
    }
    sinew_dyn_support_build(model, NULL, NULL, NULL, samples, count);

    /* Skinning matrices of every frame (timed once, on its own). */
    double t0 = now_s();
    uint32_t f = 0;
    for (uint32_t c = 0; c < model->clip_count; c++) {
        const sinew_clip *clip = &model->clips[c];
        const uint32_t steps = (uint32_t)ceilf(clip->duration * 30.0f);
        for (uint32_t k = 0; k <= steps; k++, f++) {
            sinew_clip_sample(model, clip, steps ? clip->duration * (float)k / (float)steps : 0,
                              pose);
            sinew_pose_to_world(model, pose, world);
            sinew_skin_matrices(model, world, &skin[(size_t)f * nj]);
        }
    }
    const double matrices_us = 1e6 * (now_s() - t0) / frames;
    /* f_body at the file's pose, both ways */
    sinew_mat4 *file_skin = calloc(nj, sizeof *file_skin);
    if (!file_skin) return 3;
    sinew_pose_file(model, pose);
    sinew_pose_to_world(model, pose, world);
    sinew_skin_matrices(model, world, file_skin);
    const float ref_s = sinew_dyn_support_reference(samples, count, file_skin);
    sinew_skin_positions(model, file_skin, posed);
    const float ref_a = sinew_dyn_ground_reference(posed, nv, NULL, NULL);

    double us_s[MAX_REPEAT], us_a[MAX_REPEAT], sum_s = 0, sum_a = 0, worst = 0;
    for (int r = 0; r < repeat; r++) {
        t0 = now_s();
        for (f = 0; f < frames; f++)
            sum_s += sinew_dyn_support_clearance(samples, count, &skin[(size_t)f * nj], ref_s);
        double t1 = now_s();
        for (f = 0; f < frames; f++) {
            sinew_skin_positions(model, &skin[(size_t)f * nj], posed);
            sum_a += sinew_dyn_ground_clearance(posed, nv, NULL, NULL, NULL, ref_a);
        }
        double t2 = now_s();
        us_s[r] = 1e6 * (t1 - t0) / frames;
        us_a[r] = 1e6 * (t2 - t1) / frames;
    }
    for (f = 0; f < frames; f++) { /* the answers agree (what the bench times is the same c) */
        float cs = sinew_dyn_support_clearance(samples, count, &skin[(size_t)f * nj], ref_s);
        sinew_skin_positions(model, &skin[(size_t)f * nj], posed);
        float ca = sinew_dyn_ground_clearance(posed, nv, NULL, NULL, NULL, ref_a);
        worst = fmax(worst, fabs((double)cs - (double)ca));
    }
    const double ms = bench_median(us_s, (size_t)repeat), ma = bench_median(us_a, (size_t)repeat);
    printf("bench_ground: %s (%u vertices, %u joints, %u clips, %u frames at 30/s), median of %d "
           "runs, 1 core, CPU time\n",
           path, nv, nj, model->clip_count, frames, repeat);
    printf("  support samples  %5u points   %8.2f us/frame   (no anchor)\n", count, ms);
    printf("  every vertex     %5u points   %8.2f us/frame   (LBS + min; no anchor)\n", nv, ma);
    printf("  ratio            %8.1fx faster from samples   (no anchor)\n", ma / ms);
    printf("  clip sample + world + skin matrices (both need them; not in the figures above) %.2f "
           "us/frame\n",
           matrices_us);
    printf("  max |c_samples - c_all| %.3g (%.4f%% of the world size %.4g)   (checksum %.6g)\n",
           worst, 100.0 * worst / (double)model->world_size.scale, (double)model->world_size.scale,
           sum_s + sum_a);
    free(file_skin);
    free(posed);
    free(skin);
    free(world);
    free(pose);
    free(samples);
    sinew_model_free(model);
    sinew_document_free(doc);
    return 0;
}
