/* Helpers every C benchmark shares: a clock reading and order statistics over repetitions.
 * Header-only (static inline), so a bench needs no extra target. Timing belongs to the
 * benches only: the library never reads a clock, so its results are deterministic. */
#ifndef SINEW_BENCH_UTIL_H
#define SINEW_BENCH_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds on `clock`: CLOCK_MONOTONIC for wall time; CLOCK_PROCESS_CPUTIME_ID or
 * CLOCK_THREAD_CPUTIME_ID for CPU time, which other load on a shared machine barely moves.
 * Only differences between two readings on the same clock mean anything. */
static inline double bench_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The same reading in milliseconds. */
static inline double bench_ms(clockid_t clock)
{
    return 1e3 * bench_seconds(clock);
}

/* qsort comparator: ascending doubles. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v[n] ascending in place: v[0] is then the fastest repetition. */
static inline void bench_sort(double *v, size_t n)
{
    qsort(v, n, sizeof *v, bench_cmp_double);
}

/* The median of v[n] (n >= 1; the mean of the middle two when n is even). Sorts v. */
static inline double bench_median(double *v, size_t n)
{
    bench_sort(v, n);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The arguments every model bench takes: [MODEL] [--repeat N]. *path keeps its default when
 * no model is named; *repeat must end in 1..max_repeat. Returns 0, or 2 (the exit code)
 * after printing the usage of `name` to stderr. */
static inline int bench_args(int argc, char **argv, const char *name, const char **path,
                             int *repeat, int max_repeat)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            *repeat = atoi(argv[++i]);
            if (*repeat < 1 || *repeat > max_repeat) {
                fprintf(stderr, "%s: --repeat takes 1..%d\n", name, max_repeat);
                return 2;
            }
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: %s [MODEL.glb] [--repeat N]\n", name);
            return 2;
        } else {
            *path = argv[i];
        }
    }
    return 0;
}

/* A model of ../shared/models (or of $SINEW_MODELS) by file name, into buf. */
static inline const char *bench_model_path(char *buf, size_t size, const char *file,
                                           const char *models_dir)
{
    const char *dir = getenv("SINEW_MODELS");
    snprintf(buf, size, "%s/%s", dir && *dir ? dir : models_dir, file);
    return buf;
}

#endif
