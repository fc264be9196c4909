/* Idle sway: a slow, seeded turn of the chain's rest arc, so a tail on a standing body keeps
 * moving (see sinew_dyn_params.idle). Two axes in the hips frame, each a sum of three
 * sinusoids; evaluated once per lane and substep in double with dyn_math's sine (the native
 * and WebAssembly builds agree), so every lane width and entry point sees the same bits. */
#include "dyn_internal.h"
#include "dyn_math.h"

#define IDLE_TERMS 3
#define TWO_PI (2.0 * SINEW_PI)

/* Centre frequencies, Hz, side to side then up and down, each drawn from +-20% about them.
 * Chosen below the default tip spring (0.45 Hz) and far below the root's (0.9 Hz), so the
 * chain follows its moving rest almost in phase and the tip swings by about `idle` (the
 * demo fox and quaternius_Fox idle clips: see docs/appendages.md); the ratios are far from
 * small fractions so the free-running sum does not visibly repeat. Any band from 0.05 Hz
 * (a minute per swing) to about the root's frequency is safe: the drive moves a rest
 * direction, it adds no energy the damping cannot take, so it cannot destabilise the step;
 * above the springs the tail lags and swings less. */
static const double idle_centre[2][IDLE_TERMS] = {{0.17, 0.29, 0.47}, {0.13, 0.23, 0.37}};
/* Weights: the slowest term dominates (a calm sway with finer ripples); they sum to one,
 * so the peak is never more than the amplitude. */
static const double idle_weight[IDLE_TERMS] = {0.5, 0.3, 0.2};
/* Up and down sways this fraction of side to side: a tail sways sideways far more than it
 * nods (the lateral is what reads as "alive"; a larger nod reads as the body breathing). */
#define IDLE_VERTICAL 0.35

/* A uniform number in [0, 1) from the seed and a draw index (a 32-bit integer mix, after
 * C. Wellons, "Prospecting for hash functions", 2018). */
static double idle_uniform(uint32_t seed, uint32_t draw)
{
    uint32_t x = seed * 0x9e3779b9u + draw * 0x85ebca6bu + 0x27d4eb2fu;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return (double)x * (1.0 / 4294967296.0);
}

/* sin x for any x, reduced to [-pi, pi] for dyn_sin */
static double idle_sin(double x)
{
    double r = fmod(x, TWO_PI);
    if (r > SINEW_PI) r -= TWO_PI;
    if (r < -SINEW_PI) r += TWO_PI;
    return dyn_sin(r);
}

/* One axis: the weighted sum of its sinusoids at `steps` internal steps, in [-1, 1]. With a
 * cycle of N steps every frequency is k / (N h) with k a whole number (the drawn frequency
 * rounded, at least 1), so the sum repeats exactly every N steps. On a short loop terms
 * round onto one multiple (a 2.5 s idle: all three onto 0.4 Hz); such a term takes the
 * phase of the first one there, so they add up instead of cancelling. */
static double idle_axis(const sinew_dyn_rig *rig, uint32_t seed, int axis, double steps)
{
    const double h = (double)rig->params.max_step;
    const uint32_t cycle = rig->idle_cycle;
    double sum = 0.0, ks[IDLE_TERMS], phases[IDLE_TERMS];
    for (int j = 0; j < IDLE_TERMS; j++) {
        const uint32_t draw = (uint32_t)(axis * IDLE_TERMS + j) * 2u;
        const double f = idle_centre[axis][j] * (0.8 + 0.4 * idle_uniform(seed, draw));
        double phase = TWO_PI * idle_uniform(seed, draw + 1u);
        double turns;
        if (cycle) {
            double k = floor(f * (double)cycle * h + 0.5);
            if (k < 1.0) k = 1.0;
            for (int m = 0; m < j; m++)
                if (ks[m] == k) {
                    phase = phases[m];
                    break;
                }
            ks[j] = k;
            phases[j] = phase;
            turns = k * (fmod(steps, (double)cycle) / (double)cycle);
        } else {
            turns = f * steps * h;
        }
        sum += idle_weight[j] * idle_sin(TWO_PI * turns + phase);
    }
    return sum;
}

sinew_quat dyn_idle_sway(const sinew_dyn_rig *rig, uint32_t seed, double steps)
{
    /* every link turns by the same share, so the chord from root to tip turns by the whole */
    const double share = (double)rig->params.idle * (double)rig->idle_share;
    const double yaw = share * (double)rig->idle_side * idle_axis(rig, seed, 0, steps);
    const double pitch = share * IDLE_VERTICAL * idle_axis(rig, seed, 1, steps);
    /* side to side about idle_axis (across the rest chord and the lateral axis: no lateral
     * component, so a mirrored chain's turn is the mirror image with yaw negated), then up
     * and down about the lateral +X; half angles below pi/8 */
    const double cy = dyn_cos(0.5 * yaw), sy = dyn_sin(0.5 * yaw);
    const double cp = dyn_cos(0.5 * pitch), sp = dyn_sin(0.5 * pitch);
    const sinew_vec3 a = rig->idle_axis;
    /* (a sy, cy) (x sp, cp) with a.x = 0 */
    const double ay = (double)a.y, az = (double)a.z;
    return sinew_quat_make((float)(cy * sp), (float)(ay * sy * cp + az * sy * sp),
                           (float)(az * sy * cp - ay * sy * sp), (float)(cy * cp));
}
