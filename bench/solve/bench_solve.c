/* bench_solve: ms per clip of the surface solve on procedural quadrupeds with 46 joints and
 * 24 frames: (a) 5,000 vertices, (b) 180,000 vertices, each solved (control run) to a
 * relative RMS error of 1e-6 of the diagonal, on one core. Prints the anchors beside:
 * Sidorkin, "Solve the surface, not the skeleton" (0.5 s to a few s per clip per rig, browser
 * JavaScript) and Dem Bones 1.2.1 (C++/Eigen, transforms only, one thread: (a) 341 ms, (b)
 * 718 ms of which 430 ms moments).
 * Usage: bench_solve [a|b|all] (default all). Fixed seeds; timing is the bench's, never the
 * library's, and is the thread's CPU time (one core is the measure; other load on a shared
 * machine barely moves it, where wall time varied by 2x between runs). The figure is the
 * fastest repetition; the median is printed beside it. "ms per clip" = solver creation (rig moments
 * uuT) + every frame's moments vuT and sweeps; skinning the source clip into targets is printed
 * apart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_util.h"
#include "solve/solve_internal.h"
#include "solve_fixture.h"

static double now_ms(void)
{
    return bench_ms(CLOCK_THREAD_CPUTIME_ID);
}

static void run(const char *label, uint32_t rings, uint32_t sides, int reps, double anchor_dem,
                double goal)
{
    fixture_params p = fixture_default();
    p.rings = rings;
    p.sides = sides;
    p.tail = 10; /* 46 joints */
    p.keys = 24;
    sinew_model *m = fixture_creature(&p);
    const uint32_t V = m->mesh.vertex_count, J = m->skin.joint_count, F = p.keys;
    float times[64];
    sinew_solve_frame_times(&m->clips[0], 0, times, 64);
    sinew_vec3 *targets = malloc((size_t)F * V * sizeof *targets);
    double t0 = now_ms();
    sinew_solve_targets(m, &m->clips[0], times, F, m, NULL, NULL, targets, NULL);
    const double ms_targets = now_ms() - t0;
    sinew_solve_options opt = {0};
    opt.error_tolerance = 1e-6f; /* relative RMSE goal of the issue */
    sinew_mat4 *M = malloc(J * sizeof *M);
    double *total = malloc(reps * sizeof(double)), *moments = malloc(reps * sizeof(double)),
           *create = malloc(reps * sizeof(double));
    double worst_rms = 0, sweeps = 0, influences = 0;
    for (int r = 0; r < reps; r++) {
        t0 = now_ms();
        sinew_solver *s = NULL;
        sinew_solver_create(m, &opt, &s, NULL);
        const double t1 = now_ms();
        worst_rms = 0;
        sweeps = 0;
        for (uint32_t f = 0; f < F; f++) {
            sinew_solve_frame_stats st;
            sinew_solver_frame(s, &targets[(size_t)f * V], M, &st, NULL);
            if (st.rms_error > worst_rms) worst_rms = st.rms_error;
            sweeps += st.sweeps;
        }
        const double t2 = now_ms();
        /* the per-frame moments alone, for the breakdown */
        for (uint32_t f = 0; f < F; f++)
            solve_frame_moments(s, &targets[(size_t)f * V]);
        const double t3 = now_ms();
        influences = 0; /* w_ij > 0 of the constraint vertices: the per-frame pass's unit */
        for (uint32_t g = 0; g < s->block_group[s->block_count]; g++)
            influences += (double)(s->group[g].end - s->group[g].begin) * s->group[g].joints;
        create[r] = t1 - t0;
        total[r] = t2 - t0;
        moments[r] = t3 - t2;
        sinew_solver_free(s);
    }
    /* Direct check of the figure's accuracy (not timed): skin the rig with the solved matrices
     * and measure the RMS distance to the targets over every vertex and frame. */
    double direct = 0;
    {
        sinew_solver *s = NULL;
        sinew_solver_create(m, &opt, &s, NULL);
        sinew_vec3 *x = malloc(V * sizeof *x);
        for (uint32_t f = 0; f < F; f++) {
            sinew_solver_frame(s, &targets[(size_t)f * V], M, NULL, NULL);
            sinew_skin_positions(m, M, x);
            for (uint32_t i = 0; i < V; i++) {
                const double d = sinew_vec3_distance(x[i], targets[(size_t)f * V + i]);
                direct += d * d;
            }
        }
        direct = sqrt(direct / ((double)F * V)) / m->size.diagonal;
        free(x);
        sinew_solver_free(s);
    }
    bench_sort(total, (size_t)reps);
    bench_sort(moments, (size_t)reps);
    bench_sort(create, (size_t)reps);
    printf("(%s) %u vertices x %u frames x %u bones: %.2f ms per clip (fastest of %d; median %.2f; "
           "rig moments "
           "uuT %.2f ms, frame moments vuT %.2f ms, sweeps %.1f per frame); worst frame RMS "
           "%.2e of diagonal\n",
           label, V, F, J, total[0], reps, total[reps / 2], create[0], moments[0], sweeps / F,
           worst_rms / m->size.diagonal);
    const double rest = total[0] - create[0] - moments[0];
    printf("    per unit: %.0f ns per vertex (solver creation), %.2f ns per influence per frame "
           "(moments vuT, %.0f influences), %.2f us per bone per sweep (sweeps and the rest of the "
           "frame: %.2f ms)\n",
           create[0] * 1e6 / V, moments[0] * 1e6 / (influences * F), influences,
           rest * 1e3 / (J * sweeps), rest);
    printf("    RMS error re-skinned directly: %.2e of the diagonal; targets (skinning the source "
           "clip, not in the figure): %.2f ms\n",
           direct, ms_targets);
    printf("    anchors: goal <= %.0f ms; Dem Bones 1.2.1 one thread %.0f ms%s; published browser "
           "JS 500-3000 ms\n",
           goal, anchor_dem, anchor_dem > 500 ? " (430 ms of it moments)" : "");
    free(total);
    free(moments);
    free(create);
    free(M);
    free(targets);
    sinew_model_free(m);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    if (!strcmp(which, "a") || !strcmp(which, "all")) run("a", 10, 11, 21, 341, 15);
    if (!strcmp(which, "b") || !strcmp(which, "all")) run("b", 50, 80, 9, 718, 30);
    return 0;
}
