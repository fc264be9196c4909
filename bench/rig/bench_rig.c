/* bench_rig: the tail finder and chain of `sinew tail` on one core.
 *
 * usage: bench_rig [--repeat N]
 *
 * For the 23,000-vertex creature fox (built in memory), for quaternius_Fox (skipped when
 * ../shared/models is absent) and for a copy of notail/quaternius_Wolf subdivided until it has
 * 250,000 vertices or more (every triangle into four at its edge midpoints, weights averaged:
 * what a sculpted or scanned creature brings) it prints the median of N runs (default 15; 3 for the
 * subdivided copy) of:
 *   - analysis: sinew_rig_find_appendages (distance field, weld, pieces, verdicts);
 *   - chain:    sinew_rig_build_chain (geodesics, joints, weights, distances);
 *   - pipeline: both, the figure the goal is about (<= 30 ms for the fox);
 *   - apply:    sinew_rig_apply_document on a fresh copy of the loaded document (file models).
 * Loading and writing the file are not part of the pipeline (see bench_io for those).
 * Timing uses the thread's CPU clock here, in the bench only: the library never reads clocks.
 * `valgrind --tool=callgrind bench_rig --repeat 1` gives repeatable instruction counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_util.h"
#include "split_mesh.h"
#include "sinew/creature.h"
#include "sinew/document.h"
#include "sinew/rig.h"

/* CPU time of this thread: the figure for "one core", unaffected by other processes
 * sharing the machine (wall time is printed too). */
static double now_ms(void)
{
    return bench_ms(CLOCK_THREAD_CPUTIME_ID);
}

/* Times the pipeline on `m`; returns 0 on success. */
#define SUBDIVIDED_VERTICES 250000u

static int bench_model(const char *label, const sinew_model *m, int repeat, const char *goal)
{
    double *ta = calloc((size_t)repeat, sizeof *ta), *tc = calloc((size_t)repeat, sizeof *tc);
    double *tp = calloc((size_t)repeat, sizeof *tp);
    uint32_t chains = 0, changed = 0;
    for (int i = 0; i < repeat; i++) {
        sinew_rig_report rep;
        sinew_rig_plan plan;
        sinew_error err;
        double t0 = now_ms();
        if (sinew_rig_find_appendages(m, NULL, &rep, &err) != SINEW_OK) {
            fprintf(stderr, "bench_rig: %s: %s\n", label, err.message);
            return 1;
        }
        double t1 = now_ms();
        if (sinew_rig_build_chain(m, NULL, &rep, &plan, &err) != SINEW_OK) {
            fprintf(stderr, "bench_rig: %s: %s\n", label, err.message);
            return 1;
        }
        double t2 = now_ms();
        ta[i] = t1 - t0, tc[i] = t2 - t1, tp[i] = t2 - t0;
        chains = plan.chain_count, changed = plan.changed_count;
        sinew_rig_plan_free(&plan);
        sinew_rig_report_free(&rep);
    }
    printf("%s: %u vertices, %u triangles, %u joints -> %u chain(s), %u vertices re-weighted\n",
           label, m->mesh.vertex_count, m->mesh.triangle_count, m->skin.joint_count, chains,
           changed);
    printf("  analysis  %8.2f ms\n", bench_median(ta, (size_t)repeat));
    printf("  chain     %8.2f ms\n", bench_median(tc, (size_t)repeat));
    printf("  pipeline  %8.2f ms per run   (%s)\n", bench_median(tp, (size_t)repeat), goal);
    free(ta), free(tc), free(tp);
    return 0;
}

int main(int argc, char **argv)
{
    int repeat = 15;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: bench_rig [--repeat N]\n");
            return 2;
        }
    }
    if (repeat < 1) repeat = 1;
    sinew_model *fox = NULL;
    sinew_error err;
    if (sinew_creature_build(SINEW_CREATURE_FOX, NULL, &fox, NULL, &err) != SINEW_OK) {
        fprintf(stderr, "bench_rig: creature fox: %s\n", err.message);
        return 1;
    }
    int rc = bench_model("creature fox", fox, repeat, "goal: <= 30 ms on one core");
    sinew_model_free(fox);
    const char *dir = getenv("SINEW_MODELS");
    if (!dir || !*dir) dir = SINEW_MODELS_DIR;
    char path[4096];
    snprintf(path, sizeof path, "%s/notail/quaternius_Fox.glb", dir);
    sinew_document *doc = NULL;
    sinew_model *m = NULL;
    if (sinew_document_load_file(path, NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &m, &err) != SINEW_OK) {
        printf("notail/quaternius_Fox: skipped (%s)\n", err.message);
    } else {
        rc |= bench_model("notail/quaternius_Fox", m, repeat, "no goal set");
        /* Apply to the document (the edit `sinew tail` makes before writing). */
        double *t = calloc((size_t)repeat, sizeof *t);
        for (int i = 0; i < repeat && !rc; i++) {
            sinew_document *d2 = NULL;
            sinew_rig_report rep;
            sinew_rig_plan plan;
            sinew_document_load_file(path, NULL, &d2, &err);
            sinew_rig_find_appendages(m, NULL, &rep, &err);
            sinew_rig_build_chain(m, NULL, &rep, &plan, &err);
            double t0 = now_ms();
            if (sinew_rig_apply_document(d2, m, &plan, &err) != SINEW_OK) rc = 1;
            t[i] = now_ms() - t0;
            sinew_rig_plan_free(&plan);
            sinew_rig_report_free(&rep);
            sinew_document_free(d2);
        }
        printf("  apply     %8.2f ms (document edit)\n", bench_median(t, (size_t)repeat));
        free(t);
    }
    sinew_model_free(m);
    sinew_document_free(doc);
    m = NULL, doc = NULL;
    snprintf(path, sizeof path, "%s/notail/quaternius_Wolf.glb", dir);
    if (sinew_document_load_file(path, NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &m, &err) != SINEW_OK) {
        printf("notail/quaternius_Wolf subdivided: skipped (%s)\n", err.message);
    } else {
        int ok = 1, levels = 0;
        while (ok && m->mesh.vertex_count < SUBDIVIDED_VERTICES)
            ok = split_mesh(m, NULL), levels++;
        if (!ok) {
            fprintf(stderr, "bench_rig: subdivision: out of memory\n");
            rc = 1;
        } else {
            char label[96];
            snprintf(label, sizeof label, "notail/quaternius_Wolf subdivided %d times", levels);
            rc |=
                bench_model(label, m, repeat < 3 ? repeat : 3, "goal: <= 1 s for 250,000 vertices");
        }
    }
    sinew_model_free(m);
    sinew_document_free(doc);
    return rc;
}
