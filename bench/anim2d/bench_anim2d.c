/* bench_anim2d: what one frame of the stick figure costs natively: build_pose per motion
 * (IK, gait, tracks, blending, squash, spring, Verlet), and one two-bone IK solve.
 * Anchor: build_pose under 2 us per frame. Fixed inputs; prints ns per unit, the
 * best of REPEATS runs (the fastest run is the least disturbed by other load on the machine)
 * and the median. For load-proof numbers count instructions:
 * valgrind --tool=callgrind build/bin/bench_anim2d (about 2.5k instructions per walk frame, 4.4k
 * while blending). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../bench_util.h"
#include "sinew/anim2d.h"

static double now_s(void)
{
    return bench_seconds(CLOCK_MONOTONIC);
}

#define REPEATS 9

static volatile float sink;

int main(void)
{
    static const struct {
        sinew_anim2d_motion motion;
        const char *name;
    } motions[] = {
        {SINEW_ANIM2D_MOTION_WALK, "walk"},
        {SINEW_ANIM2D_MOTION_RUN, "run"},
        {SINEW_ANIM2D_MOTION_THROW, "throw"},
        {SINEW_ANIM2D_MOTION_JUMP, "jump"},
        {SINEW_ANIM2D_MOTION_SPEAR_FORM, "spear form"},
        {SINEW_ANIM2D_MOTION_SPEAR_RUN, "spear run (+ jump, thrust)"},
    };
    const int frames = 50000;
    printf("anim2d build_pose, %d frames at 60 Hz x %d runs (goal: < 2000 ns/frame native)\n",
           frames, REPEATS);
    printf("  %-28s %9s %9s\n", "motion", "best", "median");
    double worst = 0.0;
    for (size_t m = 0; m <= sizeof motions / sizeof motions[0]; m++) {
        int switching = m == sizeof motions / sizeof motions[0];
        double runs[REPEATS];
        sinew_anim2d_figure fig;
        sinew_anim2d_pose pose;
        sinew_anim2d_figure_init(&fig, NULL);
        if (!switching) sinew_anim2d_figure_set_motion(&fig, motions[m].motion);
        for (int i = 0; i < 100; i++)
            sinew_anim2d_figure_build_pose(&fig, 1.0f / 60.0f, &pose);
        for (int r = 0; r < REPEATS; r++) {
            double t0 = now_s();
            for (int i = 0; i < frames; i++) {
                if (switching && i % 10 == 0) /* two motions evaluated most of the time */
                    sinew_anim2d_figure_set_motion(&fig, (sinew_anim2d_motion)(1 + (i / 10) % 6));
                if (!switching && motions[m].motion == SINEW_ANIM2D_MOTION_SPEAR_RUN) {
                    if (i % 60 == 0) sinew_anim2d_figure_trigger(&fig, SINEW_ANIM2D_ACTION_JUMP);
                    if (i % 40 == 0) sinew_anim2d_figure_trigger(&fig, SINEW_ANIM2D_ACTION_THRUST);
                }
                sinew_anim2d_figure_build_pose(&fig, 1.0f / 60.0f, &pose);
            }
            runs[r] = (now_s() - t0) / frames * 1e9;
        }
        sink = pose.joints[SINEW_ANIM2D_JOINT_HEAD].x;
        bench_sort(runs, REPEATS);
        if (runs[0] > worst) worst = runs[0];
        printf("  %-28s %6.0f ns %6.0f ns\n",
               switching ? "switching every 10 frames" : motions[m].name, runs[0],
               runs[REPEATS / 2]);
    }
    {
        const int n = 4000000;
        sinew_vec2 root = {0.0f, 0.0f}, acc = {0.0f, 0.0f};
        double t0 = now_s();
        for (int i = 0; i < n; i++) {
            sinew_vec2 target = {(float)(i % 97) - 48.0f, 30.0f + (float)(i % 53)};
            sinew_vec2 k = sinew_anim2d_ik(root, target, 37.0f, 37.0f, -1.0f, NULL);
            acc.x += k.x;
            acc.y += k.y;
        }
        double ns = (now_s() - t0) / n * 1e9;
        sink = acc.x + acc.y;
        printf("  %-28s %7.1f ns/solve\n", "two-bone IK", ns);
    }
    printf("worst build_pose (best run): %.1f ns/frame = %.3f us (goal < 2 us): %s\n", worst,
           worst / 1000.0, worst < 2000.0 ? "met" : "MISSED");
    return 0;
}
