/* Transcendental functions for dyn, written with + - * /, sqrt and fmod only (all exact or
 * correctly rounded in IEEE arithmetic), in double, so that
 * the native and the WebAssembly builds (glibc vs wasi-libc libm) give the same bits: the
 * wasm agreement test holds them to 1e-6 over hundreds of chaotic steps. Accurate to ~1e-15
 * on the ranges dyn uses; results are rounded to float by the callers. */
#ifndef SINEW_DYN_MATH_H
#define SINEW_DYN_MATH_H

#include "sinew/math.h"

/* e^x for x <= 0 (dyn's decays exp(-k h), exp(-gamma h)); 0 below -700. */
static inline double dyn_exp_neg(double x)
{
    if (!(x > -700.0)) return 0.0;
    if (x > 0.0) x = 0.0;
    /* e^x = (e^(x / 2^k))^(2^k) with |x / 2^k| <= 1/16, Taylor to x^10 */
    int k = 0;
    while (x < -0.0625) {
        x *= 0.5;
        k++;
    }
    double term = 1.0, sum = 1.0;
    for (int i = 1; i <= 10; i++) {
        term *= x / (double)i;
        sum += term;
    }
    while (k-- > 0)
        sum *= sum;
    return sum;
}

/* sin x for |x| <= pi (Taylor to x^23: error below 1e-15). */
static inline double dyn_sin(double x)
{
    double x2 = x * x, term = x, sum = x;
    for (int i = 1; i <= 11; i++) {
        term *= -x2 / (double)((2 * i) * (2 * i + 1));
        sum += term;
    }
    return sum;
}
static inline double dyn_cos(double x)
{
    double x2 = x * x, term = 1.0, sum = 1.0;
    for (int i = 1; i <= 12; i++) {
        term *= -x2 / (double)((2 * i - 1) * (2 * i));
        sum += term;
    }
    return sum;
}

/* sin x for |x| <= pi / 2, the slerp range (Taylor to x^15: error below 1e-11). */
static inline double dyn_sin_half_pi(double x)
{
    double x2 = x * x;
    return x *
           (1.0 +
            x2 * (-1.0 / 6 +
                  x2 * (1.0 / 120 +
                        x2 * (-1.0 / 5040 +
                              x2 * (1.0 / 362880 + x2 * (-1.0 / 39916800 +
                                                         x2 * (1.0 / 6227020800.0 +
                                                               x2 * (-1.0 / 1307674368000.0))))))));
}

/* atan x for x >= 0: two half-angle reductions bring x under tan(pi/16), then Taylor. */
static inline double dyn_atan_pos(double x)
{
    int invert = x > 1.0;
    if (invert) x = 1.0 / x;
    for (int i = 0; i < 2; i++)
        x = x / (1.0 + sqrt(1.0 + x * x));
    double x2 = x * x, term = x, sum = x;
    for (int i = 1; i <= 7; i++) { /* x <= 0.2: error below 1e-12 */
        term *= -x2;
        sum += term / (double)(2 * i + 1);
    }
    sum *= 4.0;
    return invert ? SINEW_PI / 2.0 - sum : sum;
}

/* acos c for c in [-1, 1] (clamped). */
static inline double dyn_acos(double c)
{
    if (c >= 1.0) return 0.0;
    if (c <= -1.0) return SINEW_PI;
    double s = sqrt(1.0 - c * c);
    if (c > 0.0) return dyn_atan_pos(s / c);
    if (c < 0.0) return SINEW_PI - dyn_atan_pos(s / -c);
    return SINEW_PI / 2.0;
}

static inline sinew_quat dyn_axis_angle(sinew_vec3 unit_axis, float radians)
{
    double h = 0.5 * (double)radians;
    /* keep |h| <= pi for the series; fmod is exact in IEEE arithmetic (the same bits in every
     * libm), where subtracting 2 pi in a loop never ends for a huge angle (1e16: each step
     * is lost to rounding) */
    if (fabs(h) > SINEW_PI) {
        h = fmod(h, 2.0 * SINEW_PI);
        if (h > SINEW_PI) h -= 2.0 * SINEW_PI;
        if (h < -SINEW_PI) h += 2.0 * SINEW_PI;
    }
    float s = (float)dyn_sin(h);
    return sinew_quat_make(unit_axis.x * s, unit_axis.y * s, unit_axis.z * s, (float)dyn_cos(h));
}

/* Shortest-path slerp, as sinew_quat_slerp but with dyn's portable trigonometry. */
static inline sinew_quat dyn_slerp(sinew_quat a, sinew_quat b, float t)
{
    float c = sinew_quat_dot(a, b);
    if (c < 0.0f) {
        c = -c;
        b = sinew_quat_make(-b.x, -b.y, -b.z, -b.w);
    }
    float ka, kb;
    if (c > 0.9995f) {
        ka = 1.0f - t;
        kb = t;
    } else {
        double th = dyn_acos((double)c), s = dyn_sin_half_pi(th); /* th <= pi / 2 */
        ka = (float)(dyn_sin_half_pi((1.0 - (double)t) * th) / s);
        kb = (float)(dyn_sin_half_pi((double)t * th) / s);
    }
    return sinew_quat_normalize(sinew_quat_make(a.x * ka + b.x * kb, a.y * ka + b.y * kb,
                                                a.z * ka + b.z * kb, a.w * ka + b.w * kb));
}

#endif
