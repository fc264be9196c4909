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

/* The influences of the midpoint of a and b: the two vertices' weights averaged by joint, the
 * largest SINEW_MAX_INFLUENCES kept, sorted descending, normalised. */
static void mix_influences(const sinew_mesh *m, uint32_t a, uint32_t b, uint16_t *joints,
                           float *weights)
{
    uint16_t j[2 * SINEW_MAX_INFLUENCES];
    float w[2 * SINEW_MAX_INFLUENCES];
    uint32_t n = 0;
    const uint32_t ends[2] = {a, b};
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
            const size_t slot = (size_t)ends[e] * SINEW_MAX_INFLUENCES + (size_t)k;
            const float x = 0.5f * m->influence_weights[slot];
            if (!(x > 0)) continue;
            uint32_t i = 0;
            while (i < n && j[i] != m->influence_joints[slot])
                i++;
            if (i == n) j[n] = m->influence_joints[slot], w[n++] = 0;
            w[i] += x;
        }
    for (uint32_t i = 1; i < n; i++) /* insertion sort, descending */
        for (uint32_t k = i; k > 0 && w[k] > w[k - 1]; k--) {
            float tw = w[k];
            uint16_t tj = j[k];
            w[k] = w[k - 1], j[k] = j[k - 1], w[k - 1] = tw, j[k - 1] = tj;
        }
    if (n > SINEW_MAX_INFLUENCES) n = SINEW_MAX_INFLUENCES;
    float sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += w[i];
    for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
        joints[k] = (uint32_t)k < n ? j[k] : 0;
        weights[k] = (uint32_t)k < n && sum > 0 ? w[k] / sum : 0;
    }
}

#define SUBDIVIDED_VERTICES 250000u

typedef struct edge_ref {
    uint32_t lo, hi, corner; /* corner: 3 * triangle + the edge's first corner */
} edge_ref;

static int cmp_edge(const void *x, const void *y)
{
    const edge_ref *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return (a->corner > b->corner) - (a->corner < b->corner);
}

/* Splits every triangle of m into four at its edge midpoints (one new vertex per index pair,
 * so split seams stay split, as in the file). Returns 0 when out of memory. */
static int subdivide(sinew_model *model)
{
    sinew_mesh *m = &model->mesh;
    const uint32_t nt = m->triangle_count, nv = m->vertex_count;
    edge_ref *e = malloc((size_t)3 * nt * sizeof *e);
    uint32_t *mid = malloc((size_t)3 * nt * sizeof *mid);
    if (!e || !mid) return free(e), free(mid), 0;
    for (uint32_t t = 0; t < nt; t++)
        for (int c = 0; c < 3; c++) {
            uint32_t a = m->triangles[3 * t + c], b = m->triangles[3 * t + (c + 1) % 3];
            e[3 * t + c] = (edge_ref){a < b ? a : b, a < b ? b : a, 3 * t + (uint32_t)c};
        }
    qsort(e, (size_t)3 * nt, sizeof *e, cmp_edge);
    uint32_t added = 0;
    for (uint32_t i = 0; i < 3 * nt; i++) {
        if (i == 0 || e[i].lo != e[i - 1].lo || e[i].hi != e[i - 1].hi) added++;
        mid[e[i].corner] = nv + added - 1;
    }
    const uint32_t vn = nv + added;
    sinew_allocator *al = &model->allocator;
    sinew_vec3 *pos = sinew_alloc(al, vn, sizeof *pos);
    uint32_t *tri = sinew_alloc(al, (size_t)12 * nt, sizeof *tri);
    uint16_t *ij = sinew_alloc(al, (size_t)vn * SINEW_MAX_INFLUENCES, sizeof *ij);
    float *iw = sinew_alloc(al, (size_t)vn * SINEW_MAX_INFLUENCES, sizeof *iw);
    uint32_t *weld = sinew_alloc(al, vn, sizeof *weld), *scratch = malloc((size_t)vn * 4);
    int ok = pos && tri && ij && iw && weld && scratch;
    if (ok) {
        memcpy(pos, m->positions, nv * sizeof *pos);
        memcpy(ij, m->influence_joints, (size_t)nv * SINEW_MAX_INFLUENCES * sizeof *ij);
        memcpy(iw, m->influence_weights, (size_t)nv * SINEW_MAX_INFLUENCES * sizeof *iw);
        for (uint32_t i = 0; i < 3 * nt; i++) {
            if (i && e[i].lo == e[i - 1].lo && e[i].hi == e[i - 1].hi) continue;
            const uint32_t v = mid[e[i].corner];
            pos[v] = sinew_vec3_lerp(m->positions[e[i].lo], m->positions[e[i].hi], 0.5f);
            mix_influences(m, e[i].lo, e[i].hi, ij + (size_t)v * SINEW_MAX_INFLUENCES,
                           iw + (size_t)v * SINEW_MAX_INFLUENCES);
        }
        for (uint32_t t = 0; t < nt; t++) {
            const uint32_t *x = &m->triangles[3 * t], *h = &mid[3 * t];
            const uint32_t quad[12] = {x[0], h[0], h[2], h[0], x[1], h[1],
                                       h[2], h[1], x[2], h[0], h[1], h[2]};
            memcpy(&tri[12 * (size_t)t], quad, sizeof quad);
        }
        sinew_free(al, m->positions), sinew_free(al, m->triangles);
        sinew_free(al, m->influence_joints), sinew_free(al, m->influence_weights);
        sinew_free(al, m->weld), sinew_free(al, m->ranges);
        m->positions = pos, m->triangles = tri, m->influence_joints = ij;
        m->influence_weights = iw, m->weld = weld;
        m->vertex_count = vn, m->triangle_count = 4 * nt;
        m->ranges = NULL, m->range_count = 0; /* no longer the document's primitives */
        sinew_mesh_weld(m, scratch);
    } else {
        sinew_free(al, pos), sinew_free(al, tri), sinew_free(al, ij), sinew_free(al, iw);
        sinew_free(al, weld);
    }
    free(scratch), free(e), free(mid);
    return ok;
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
            ok = subdivide(m), levels++;
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
