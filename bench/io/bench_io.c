/* bench_io: load + model-build cost per MB and skinning throughput on the largest shared
 * model.
 *
 * usage: bench_io [MODEL.glb] [--repeat N]
 *   MODEL defaults to $SINEW_MODELS/quaternius_Fox.glb (the largest shared model; the shared
 *   folder is ../shared/models unless SINEW_MODELS says otherwise).
 *
 * Prints, each as the median of N runs (default 7) on one core:
 *   - load: sinew_document_load_file, in ms per MB of file;
 *   - build: sinew_model_from_document, in ms per MB;
 *   - skinning: sinew_skin_positions alone, in vertices per second (LBS of a posed frame);
 *   - frame: clip sample + world transforms + skin matrices + LBS, in vertices per second.
 * No anchor is given for these figures in the issue; each line says "(no anchor)".
 * Timing uses CLOCK_MONOTONIC here, in the bench only: the library never reads clocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../bench_util.h"
#include "sinew/document.h"
#include "sinew/model.h"

static double now_s(void)
{
    return bench_seconds(CLOCK_MONOTONIC);
}

#define MAX_REPEAT 101

int main(int argc, char **argv)
{
    const char *path = NULL;
    int repeat = 7;
    if (bench_args(argc, argv, "bench_io", &path, &repeat, MAX_REPEAT)) return 2;
    char def[4096];
    if (!path) path = bench_model_path(def, sizeof def, "quaternius_Fox.glb", SINEW_MODELS_DIR);
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "bench_io: %s is absent (the shared models are needed): nothing to time\n",
                path);
        return 1;
    }
    const double mb = (double)st.st_size / (1024.0 * 1024.0);

    double load_ms[MAX_REPEAT], build_ms[MAX_REPEAT], lbs_vps[MAX_REPEAT], frame_vps[MAX_REPEAT];
    sinew_error err = {0};
    sinew_document *doc = NULL;
    sinew_model *model = NULL;
    for (int r = 0; r < repeat; r++) {
        sinew_document_free(doc);
        sinew_model_free(model);
        doc = NULL;
        model = NULL;
        double t0 = now_s();
        if (sinew_document_load_file(path, NULL, &doc, &err) != SINEW_OK) goto fail;
        double t1 = now_s();
        if (sinew_model_from_document(doc, NULL, &model, &err) != SINEW_OK) goto fail;
        double t2 = now_s();
        load_ms[r] = 1e3 * (t1 - t0);
        build_ms[r] = 1e3 * (t2 - t1);
    }

    const uint32_t nv = model->mesh.vertex_count;
    sinew_transform *pose = calloc(model->node_count + 1, sizeof *pose);
    sinew_mat4 *world = calloc(model->node_count + 1, sizeof *world);
    sinew_mat4 *skin = calloc(model->skin.joint_count + 1, sizeof *skin);
    sinew_vec3 *out = calloc(nv + 1, sizeof *out);
    if (!pose || !world || !skin || !out) {
        fprintf(stderr, "bench_io: out of memory\n");
        return 3;
    }
    const sinew_clip *clip = model->clip_count ? &model->clips[0] : NULL;
    /* Enough frames that one run takes tens of milliseconds. */
    const int frames = nv ? (int)(2000000u / nv) + 1 : 1;
    double checksum = 0;
    for (int r = 0; r < repeat; r++) {
        /* LBS alone, on one posed frame (the middle of the first clip). */
        if (clip)
            sinew_clip_sample(model, clip, 0.5f * clip->duration, pose);
        else
            sinew_pose_file(model, pose);
        sinew_pose_to_world(model, pose, world);
        sinew_skin_matrices(model, world, skin);
        double t0 = now_s();
        for (int f = 0; f < frames; f++) {
            sinew_skin_positions(model, skin, out);
            checksum += out[(uint32_t)f % (nv ? nv : 1)].x;
        }
        double t1 = now_s();
        lbs_vps[r] = (double)nv * frames / (t1 - t0);

        /* A whole frame: sample, world, matrices, LBS, at times across the clip. */
        t0 = now_s();
        for (int f = 0; f < frames; f++) {
            if (clip)
                sinew_clip_sample(model, clip, clip->duration * (float)f / (float)frames, pose);
            else
                sinew_pose_file(model, pose);
            sinew_pose_to_world(model, pose, world);
            sinew_skin_matrices(model, world, skin);
            sinew_skin_positions(model, skin, out);
            checksum += out[(uint32_t)f % (nv ? nv : 1)].y;
        }
        t1 = now_s();
        frame_vps[r] = (double)nv * frames / (t1 - t0);
    }

    printf("bench_io: %s (%.3f MB, %u vertices, %u joints, %u clips), median of %d runs, 1 core\n",
           path, mb, nv, model->skin.joint_count, model->clip_count, repeat);
    double load = bench_median(load_ms, (size_t)repeat),
           build = bench_median(build_ms, (size_t)repeat);
    printf("  load          %9.3f ms/MB   (%.3f ms for the file)   (no anchor)\n", load / mb, load);
    printf("  model build   %9.3f ms/MB   (%.3f ms for the file)   (no anchor)\n", build / mb,
           build);
    printf("  load + build  %9.3f ms/MB   (%.3f ms for the file)   (no anchor)\n",
           (load + build) / mb, load + build);
    printf("  skinning LBS  %9.1f M vertices/s   (%d frames per run)   (no anchor)\n",
           1e-6 * bench_median(lbs_vps, (size_t)repeat), frames);
    printf("  full frame    %9.1f M vertices/s   (sample + world + matrices + LBS)   (no anchor)\n",
           1e-6 * bench_median(frame_vps, (size_t)repeat));
    printf("  (checksum %.3g)\n", checksum);
    free(out);
    free(skin);
    free(world);
    free(pose);
    sinew_model_free(model);
    sinew_document_free(doc);
    return 0;

fail:
    fprintf(stderr, "bench_io: %s: %s\n", sinew_result_name(err.code), err.message);
    sinew_model_free(model);
    sinew_document_free(doc);
    return 1;
}
