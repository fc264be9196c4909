/* bench_bake: the bake of every clip of quaternius_Fox (goal: at most 50 ms for
 * all 12 clips).
 *
 * usage: bench_bake [--repeat N] [FILE]
 *
 * FILE defaults to ../shared/models/notail/quaternius_Fox.glb (the input a template rigger
 * leaves; exits 77, saying so, when absent). Untimed, once per run: load the file, then what
 * `sinew tail` does in memory (sinew_rig_find_appendages, sinew_rig_build_chain,
 * sinew_rig_apply_document) and the model view of the edited document. Timed:
 *   - all:      sinew_bake_all(doc, model, defaults): every clip simulated, warmed up until
 *               its loop closes, keyed and written into the document and the model, the
 *               figure the goal is about;
 *   - per clip: sinew_bake_clip alone for each clip (simulation and keys, no apply), with the
 *               warm-up passes it took and its key count.
 * Each figure is the median of N runs (default 11). Timing uses the thread's CPU clock, in
 * the bench only (the library never reads clocks); wall time of `all` is printed too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_util.h"
#include "sinew/bake.h"
#include "sinew/document.h"
#include "sinew/rig.h"

#define GOAL_MS 50.0

/* Loads `path` and gives it a tail chain in memory, as `sinew tail` does. */
static int load_rigged(const char *path, sinew_document **doc, sinew_model **model, uint32_t *bones)
{
    sinew_error err = {0};
    sinew_rig_report rep;
    sinew_rig_plan plan;
    memset(&rep, 0, sizeof rep);
    memset(&plan, 0, sizeof plan);
    *doc = NULL;
    *model = NULL;
    int ok = sinew_document_load_file(path, NULL, doc, &err) == SINEW_OK &&
             sinew_model_from_document(*doc, NULL, model, &err) == SINEW_OK &&
             sinew_rig_find_appendages(*model, NULL, &rep, &err) == SINEW_OK &&
             sinew_rig_build_chain(*model, NULL, &rep, &plan, &err) == SINEW_OK &&
             sinew_rig_apply_document(*doc, *model, &plan, &err) == SINEW_OK;
    /* The model view is rebuilt from the edited document rather than patched with
     * sinew_rig_apply_model: that call leaves the new nodes' gltf_node at -1, and
     * sinew_bake_apply_document then refuses them ("joint Tail_1 does not come from the
     * document"). Rebuilding is what `sinew bake` sees after `sinew tail` wrote the file. */
    if (ok) {
        sinew_model_free(*model);
        *model = NULL;
        ok = sinew_model_from_document(*doc, NULL, model, &err) == SINEW_OK;
    }
    if (ok && plan.chain_count == 0) {
        snprintf(err.message, sizeof err.message, "no tail chain found");
        ok = 0;
    }
    if (ok) *bones = plan.chains[0].bone_count;
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    if (!ok) {
        fprintf(stderr, "bench_bake: %s: %s\n", path, err.message);
        sinew_model_free(*model);
        sinew_document_free(*doc);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int repeat = 11;
    const char *path = SINEW_MODELS_DIR "/notail/quaternius_Fox.glb";
    if (bench_args(argc, argv, "bench_bake", &path, &repeat, 1000)) return 2;
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        printf("SKIP: %s is absent\n", path);
        return 77;
    }
    fclose(probe);

    sinew_document *doc;
    sinew_model *model;
    uint32_t bones = 0;
    if (!load_rigged(path, &doc, &model, &bones)) return 1;
    const uint32_t clips = model->clip_count;
    double *all = calloc((size_t)repeat, sizeof *all), *wall = calloc((size_t)repeat, sizeof *wall);
    double *per = calloc((size_t)repeat * clips + 1, sizeof *per);
    sinew_bake_track *sum = calloc(clips + 1, sizeof *sum),
                     *tracks = calloc(clips + 1, sizeof *tracks);
    double *col = calloc((size_t)repeat, sizeof *col);
    if (!all || !wall || !per || !sum || !tracks || !col) return 1;
    printf("%s: %u vertices, %u joints, %u clips, chain of %u bones (Tail_End included)\n", path,
           model->mesh.vertex_count, model->skin.joint_count, clips, bones);

    /* Per clip: sinew_bake_clip on the rigged model, which it only reads. */
    for (int r = 0; r < repeat; r++)
        for (uint32_t c = 0; c < clips; c++) {
            sinew_error err = {0};
            double t0 = bench_ms(CLOCK_THREAD_CPUTIME_ID);
            if (sinew_bake_clip(model, NULL, c, NULL, &tracks[c], &err) != SINEW_OK) {
                fprintf(stderr, "bench_bake: clip %u: %s\n", c, err.message);
                return 1;
            }
            per[(size_t)c * repeat + r] = bench_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
            if (r + 1 < repeat) sinew_bake_track_free(&tracks[c]);
        }
    sinew_model_free(model);
    sinew_document_free(doc);

    /* All clips: a fresh document and model each run (the bake writes its keys into both). */
    for (int r = 0; r < repeat; r++) {
        sinew_error err = {0};
        if (!load_rigged(path, &doc, &model, &bones)) return 1;
        double w0 = bench_ms(CLOCK_MONOTONIC), t0 = bench_ms(CLOCK_THREAD_CPUTIME_ID);
        sinew_result res = sinew_bake_all(doc, model, NULL, sum, &err);
        all[r] = bench_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
        wall[r] = bench_ms(CLOCK_MONOTONIC) - w0;
        if (res != SINEW_OK) {
            fprintf(stderr, "bench_bake: %s\n", err.message);
            return 1;
        }
        if (r + 1 < repeat) {
            sinew_model_free(model);
            sinew_document_free(doc);
        }
    }

    printf("  %-18s %9s %7s %6s %5s %8s\n", "clip", "duration", "passes", "closed", "keys", "ms");
    double per_sum = 0;
    for (uint32_t c = 0; c < clips; c++) {
        for (int r = 0; r < repeat; r++)
            col[r] = per[(size_t)c * repeat + r];
        double ms = bench_median(col, (size_t)repeat);
        per_sum += ms;
        printf("  %-18.18s %8.2fs %7u %6s %5u %8.2f\n", model->clips[c].name,
               (double)model->clips[c].duration, tracks[c].passes,
               tracks[c].looping ? (tracks[c].closed ? "yes" : "NO") : "-", tracks[c].key_count,
               ms);
        sinew_bake_track_free(&tracks[c]);
    }
    printf("  sum of per-clip medians      %8.2f ms\n", per_sum);
    double m_all = bench_median(all, (size_t)repeat), m_wall = bench_median(wall, (size_t)repeat);
    printf("  sinew_bake_all, %u clips     %8.2f ms CPU (wall %.2f ms), median of %d   "
           "(goal <= %.0f ms: %s)\n",
           clips, m_all, m_wall, repeat, GOAL_MS, m_all <= GOAL_MS ? "met" : "NOT met");
    sinew_model_free(model);
    sinew_document_free(doc);
    free(all), free(wall), free(per), free(sum), free(tracks), free(col);
    return 0;
}
