/* A mirrored pair of chains sinew grew (wings Wing_L_* / Wing_R_*, ears Ear_L_* / Ear_R_*) on
 * one clip of the baked model: the skin those joints dominate is torn on at most 0.5% of its
 * edge samples, its p99 within max(body p99, 1.30); and the first of their bones has keys in
 * the clip (the springs' motion was baked). `kind` is "Wing" or "Ear"; at least `min_joints`
 * of the pair's joints (their chains and ends). With the pieces a verdict counts and the mirror
 * a pair is checked against. Header-only, for the rig tests. */
#ifndef SINEW_TEST_PAIR_SKIN_H
#define SINEW_TEST_PAIR_SKIN_H

#include "test_util.h"

#include <math.h>

#include "sinew/metrics.h"
#include "sinew/rig.h"

/* The pieces of the report with verdict v (a pair's: WING, EAR). */
static inline uint32_t count_verdict(const sinew_rig_report *rep, sinew_rig_verdict v)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < rep->piece_count; p++)
        n += rep->pieces[p].verdict == v;
    return n;
}

/* x reflected across the plane n . x = d (n unit): where a pair's other half should be. */
static inline sinew_vec3 reflect(sinew_vec3 x, sinew_vec3 n, float d)
{
    return sinew_vec3_madd(x, n, -2.0f * (sinew_vec3_dot(n, x) - d));
}

static inline void check_pair_skin(const sinew_model *m, uint32_t c, const char *kind,
                                   uint32_t min_joints)
{
    char left[16], right[16];
    snprintf(left, sizeof left, "%s_L_", kind);
    snprintf(right, sizeof right, "%s_R_", kind);
    int32_t joints[2 * (SINEW_RIG_MAX_SEGMENTS + 1)];
    uint32_t n = 0;
    for (uint32_t j = 0; j < m->skin.joint_count && n < 2 * (SINEW_RIG_MAX_SEGMENTS + 1); j++) {
        const char *jn = m->nodes[m->skin.joints[j].node].name;
        if (jn && (!strncmp(jn, left, strlen(left)) || !strncmp(jn, right, strlen(right))))
            joints[n++] = (int32_t)j;
    }
    assert_true(n >= min_joints);
    uint8_t *mask = calloc(m->mesh.vertex_count, 1);
    assert_non_null(mask);
    sinew_metrics_dominated_by(m, joints, n, mask);
    sinew_stretch_options opt = {24};
    sinew_stretch_stats pair, body;
    sinew_error err;
    assert_int_equal(sinew_metrics_stretch(m, &m->clips[c], &opt, mask, &pair, &body, &err),
                     SINEW_OK);
    printf("%s: %s p99 %.3f torn %.2f%% (%llu samples), body p99 %.3f\n", m->clips[c].name, kind,
           (double)pair.p99, 100.0 * pair.torn_share, (unsigned long long)pair.samples,
           (double)body.p99);
    assert_true(pair.samples > 0);
    assert_true(pair.torn_share <= 0.005f);
    assert_true(pair.p99 <= fmaxf(body.p99, 1.30f));
    int keyed = 0;
    for (uint32_t t = 0; t < m->clips[c].channel_count; t++)
        keyed |= m->clips[c].channels[t].node == m->skin.joints[joints[0]].node;
    assert_true(keyed);
    free(mask);
}

#endif
