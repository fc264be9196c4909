/* Two-bone IK by the law of cosines and FK arms (after Sidorkin, "Animating a stick figure
 * with two-bone IK in HTML canvas": legs use IK, arms mostly FK). */
#include "internal.h"

sinew_vec2 sinew_anim2d_ik(sinew_vec2 root, sinew_vec2 target, float l1, float l2, float sign,
                           sinew_vec2 *end)
{
    /* Double inside: near full extension the knee's offset from the line is sqrt(1 - ca^2),
     * badly conditioned in float; the result is rounded to float once, at the end. */
    double dx = (double)target.x - root.x, dy = (double)target.y - root.y;
    double raw = sqrt(dx * dx + dy * dy);
    /* Non-finite targets would poison everything downstream: treat them as "straight down". */
    if (!isfinite(raw)) {
        dx = 0.0;
        dy = 1.0;
        raw = 1.0;
    }
    /* Clamp one: the distance stays just inside [|l1-l2|, l1+l2], so a triangle exists. */
    double a = l1, b = l2;
    double lo = fabs(a - b) + 0.01, hi = a + b - 0.01;
    double d = raw < lo ? lo : raw > hi ? hi : raw;
    /* base = atan2(dy, dx) as a unit vector; a target on the root has no direction, so the
     * chain reaches straight down (+y) rather than divide by zero. */
    double ux = 0.0, uy = 1.0;
    if (raw > 1e-9) {
        ux = dx / raw;
        uy = dy / raw;
    }
    /* Clamp two: rounding may push the cosine past 1, where acos would give NaN. */
    double ca = (a * a + d * d - b * b) / (2.0 * a * d);
    ca = ca < -1.0 ? -1.0 : ca > 1.0 ? 1.0 : ca;
    double sa = sqrt(1.0 - ca * ca);
    if (sign < 0.0f) sa = -sa;
    /* The joint at angle base + sign * acos(ca): u turned by that angle - the article's
     * cos/sin of jointAng, without the trigonometry. */
    sinew_vec2 joint =
        v2((float)(root.x + (ux * ca - uy * sa) * a), (float)(root.y + (uy * ca + ux * sa) * a));
    if (end) {
        if (raw >= lo && raw <= hi)
            *end = target;
        else /* the end of the stretched (or folded) chain, on the line toward the target */
            *end = v2((float)(root.x + ux * d), (float)(root.y + uy * d));
    }
    return joint;
}

sinew_vec2 sinew_anim2d_leg_ik(sinew_vec2 hip, sinew_vec2 target, sinew_vec2 *foot)
{
    const float reach = SINEW_ANIM2D_THIGH + SINEW_ANIM2D_SHIN - SINEW_ANIM2D_LEG_SLACK;
    sinew_vec2 d = v2_sub(target, hip);
    float len = v2_len(d);
    /* The leg's extra safety net: never let the knee straighten fully (no visible snap). */
    if (isfinite(len) && len > reach) target = v2_madd(hip, d, reach / len);
    /* Knees bend forward: with the hip above the foot that is sign -1 (y down). */
    return sinew_anim2d_ik(hip, target, SINEW_ANIM2D_THIGH, SINEW_ANIM2D_SHIN, -1.0f, foot);
}

void sinew_anim2d_arm_fk(sinew_vec2 shoulder, float a_up, float flex, sinew_vec2 *elbow,
                         sinew_vec2 *hand)
{
    /* 0 points straight down, positive swings forward: direction (sin a, cos a), y down. */
    *elbow = v2(shoulder.x + sinf(a_up) * SINEW_ANIM2D_UARM,
                shoulder.y + cosf(a_up) * SINEW_ANIM2D_UARM);
    *hand = v2(elbow->x + sinf(a_up + flex) * SINEW_ANIM2D_FARM,
               elbow->y + cosf(a_up + flex) * SINEW_ANIM2D_FARM);
}
