/* The distance field over the skeleton (after Sidorkin, "Animating tails the auto-rigger never
 * gave a bone", on finding the tail):
 * d(p, ab) = |p - (a + t (b - a))|, t = clamp((p - a).(b - a) / |b - a|^2, 0, 1), and a vertex's
 * distance to the skeleton is the minimum over all bone segments.
 *
 * Which segments: only joints that deform skin (some weight > 0.05) make bones, so IK targets
 * and pole helpers (Quaternius rigs) do not pass for a tail's bone; a deforming joint links
 * to its nearest deforming ancestor (bridging unweighted helpers in between). A deforming
 * joint with no deforming child gets its lone end helper as the bone's tip (HeadTop_End,
 * Tail_End) or else a short extension: a third of its incoming bone, at most 5% of H, so that
 * a snout or a hand is not "far" from its own bone. */
#include "rig_internal.h"

#include <float.h>
#include <string.h>

float rig_segment_distance(const rig_segment *s, sinew_vec3 p)
{
    sinew_vec3 ab = sinew_vec3_sub(s->b, s->a), ap = sinew_vec3_sub(p, s->a);
    float l2 = sinew_vec3_dot(ab, ab);
    float t = l2 > 0 ? sinew_vec3_dot(ap, ab) / l2 : 0.0f;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return sinew_vec3_distance(p, sinew_vec3_madd(s->a, ab, t));
}

float rig_skeleton_distance(const rig_segment *segs, uint32_t count, sinew_vec3 p)
{
    float best = FLT_MAX;
    for (uint32_t i = 0; i < count; i++) {
        /* A cheap rejection first: the segment lies within its end points' box. */
        float dx = fmaxf(fmaxf(fminf(segs[i].a.x, segs[i].b.x) - p.x, 0),
                         p.x - fmaxf(segs[i].a.x, segs[i].b.x));
        if (dx * dx >= best) continue;
        /* Squared distance inline: this is the hot loop of the whole pipeline. */
        sinew_vec3 ab = sinew_vec3_sub(segs[i].b, segs[i].a), ap = sinew_vec3_sub(p, segs[i].a);
        float l2 = sinew_vec3_dot(ab, ab);
        float t = l2 > 0 ? sinew_vec3_dot(ap, ab) / l2 : 0.0f;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        sinew_vec3 d = sinew_vec3_madd(ap, ab, -t);
        float d2 = sinew_vec3_dot(d, d);
        if (d2 < best) best = d2;
    }
    return best < FLT_MAX ? sqrtf(best) : FLT_MAX;
}

sinew_result rig_build_segments(sinew_rig_analysis *a, const sinew_model *m, float H,
                                sinew_error *err)
{
    const uint32_t n = m->skin.joint_count;
    a->deforms = sinew_alloc(&a->alloc, n, 1);
    a->segments = sinew_alloc(&a->alloc, 2 * (size_t)n + 1, sizeof *a->segments);
    int32_t *dparent = sinew_alloc(&a->alloc, n, sizeof *dparent);
    uint32_t *dkids = sinew_alloc(&a->alloc, n, sizeof *dkids);
    if (!a->deforms || !a->segments || !dparent || !dkids) {
        sinew_free(&a->alloc, dparent);
        sinew_free(&a->alloc, dkids);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "distance field: out of memory");
    }
    rig_mark_deforming(m, a->deforms);
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = rig_parent_joint(m, j);
        while (p >= 0 && !a->deforms[p])
            p = rig_parent_joint(m, (uint32_t)p);
        dparent[j] = p;
        if (a->deforms[j] && p >= 0) dkids[p]++;
    }
    uint32_t c = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (!a->deforms[j]) continue;
        sinew_vec3 head = rig_joint_position(m, j);
        if (dparent[j] >= 0)
            a->segments[c++] =
                (rig_segment){rig_joint_position(m, (uint32_t)dparent[j]), head, dparent[j]};
        if (dkids[j]) continue;
        /* Terminal: a lone unweighted end helper, else a short extension. */
        int32_t only = -1, kids = 0;
        for (uint32_t k = 0; k < n; k++)
            if (rig_parent_joint(m, k) == (int32_t)j) {
                kids++;
                only = (int32_t)k;
            }
        sinew_vec3 tip = head;
        if (kids == 1 && !a->deforms[only]) {
            int leaf = 1;
            for (uint32_t k = 0; k < n && leaf; k++)
                if (rig_parent_joint(m, k) == only) leaf = 0;
            if (leaf) tip = rig_joint_position(m, (uint32_t)only);
        }
        if (tip.x == head.x && tip.y == head.y && tip.z == head.z && dparent[j] >= 0) {
            sinew_vec3 in = sinew_vec3_sub(head, rig_joint_position(m, (uint32_t)dparent[j]));
            float len = sinew_vec3_length(in) / 3.0f;
            float cap = 0.05f * H;
            if (len > cap) len = cap;
            tip = sinew_vec3_madd(head, sinew_vec3_normalize_or(in, sinew_vec3_make(0, 0, 0)), len);
        }
        a->segments[c++] = (rig_segment){head, tip, (int32_t)j};
    }
    a->segment_count = c;
    sinew_free(&a->alloc, dparent);
    sinew_free(&a->alloc, dkids);
    return SINEW_OK;
}

float rig_weighted_distance(const sinew_vec3 *positions, const uint32_t *verts, uint32_t count,
                            const uint16_t *joints, const float *weights, const rig_segment *segs,
                            uint32_t seg_count, const sinew_vec3 *joint_pos, uint32_t joint_count)
{
    if (count == 0) return 0;
    /* The bone of joint j is every segment it owns (to its children, or its tip); a joint
     * without one is its position. Skeletons are small, so a scan per influence is fine. */
    double sum = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = verts[i];
        sinew_vec3 p = positions[v];
        double dv = 0;
        for (uint32_t s = 0; s < SINEW_MAX_INFLUENCES; s++) {
            float w = weights[v * SINEW_MAX_INFLUENCES + s];
            if (w <= 0) continue;
            uint32_t j = joints[v * SINEW_MAX_INFLUENCES + s];
            if (j >= joint_count) continue;
            float best = FLT_MAX;
            for (uint32_t k = 0; k < seg_count; k++)
                if ((uint32_t)segs[k].owner == j) {
                    float d = rig_segment_distance(&segs[k], p);
                    if (d < best) best = d;
                }
            if (best == FLT_MAX) best = sinew_vec3_distance(p, joint_pos[j]);
            dv += (double)w * best;
        }
        sum += dv;
    }
    return (float)(sum / count);
}
