/* Skeletons, tubes, weights, poses and clips for the procedural creatures (builder.h). */
#include "creature/builder.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

/* ---- skeleton ---- */

/* Rest (file) transforms from bind positions and rotations under each joint's parent. */
static void rest_from_bind(creature_skeleton *s)
{
    for (uint32_t j = 0; j < s->count; j++) {
        int32_t p = s->parent[j];
        if (p < 0) {
            s->rest_rot[j] = s->rot[j];
            s->rest_pos[j] = s->pos[j];
        } else {
            sinew_quat inv = sinew_quat_conjugate(s->rot[p]);
            s->rest_rot[j] = sinew_quat_normalize(sinew_quat_mul(inv, s->rot[j]));
            s->rest_pos[j] = sinew_quat_rotate(inv, sinew_vec3_sub(s->pos[j], s->pos[p]));
        }
    }
}

int32_t creature_skeleton_add(creature_skeleton *s, const char *prefix, const char *name,
                              int32_t parent, sinew_vec3 pos)
{
    if (s->count >= CREATURE_MAX_JOINTS) return -1;
    int32_t j = (int32_t)s->count++;
    snprintf(s->name[j], SINEW_CREATURE_NAME_MAX, "%s%s", prefix ? prefix : "", name);
    s->parent[j] = parent;
    s->child[j] = -1;
    s->pos[j] = pos;
    if (parent >= 0 && s->child[parent] < 0) s->child[parent] = j;
    return j;
}

void creature_skeleton_finish(creature_skeleton *s, float terminal_frac)
{
    const sinew_vec3 y = sinew_vec3_make(0, 1, 0);
    for (uint32_t j = 0; j < s->count; j++) {
        sinew_vec3 dir;
        int32_t p = s->parent[j];
        if (s->child[j] >= 0) {
            s->tip[j] = s->pos[s->child[j]];
            dir = sinew_vec3_normalize_or(sinew_vec3_sub(s->tip[j], s->pos[j]), y);
        } else {
            sinew_vec3 pd = p >= 0 ? sinew_vec3_sub(s->pos[j], s->pos[p]) : y;
            float plen = sinew_vec3_length(pd);
            dir = sinew_vec3_normalize_or(pd, y);
            s->tip[j] = sinew_vec3_madd(s->pos[j], dir, plen * terminal_frac);
        }
        /* Mixamo's convention: the bone's local +Y points down the bone; the roll is the
         * shortest swing from +Y, so legs pointing down carry ~180 degrees about Z. */
        s->rot[j] = sinew_quat_swing(y, dir);
    }
    s->segment_count = 0;
    for (uint32_t j = 0; j < s->count; j++) {
        int children = 0;
        for (uint32_t c = j + 1; c < s->count; c++) {
            if (s->parent[c] != (int32_t)j || s->segment_count >= CREATURE_MAX_SEGMENTS) continue;
            s->segment_joint[s->segment_count] = (int32_t)j;
            s->segment_head[s->segment_count] = s->pos[j];
            s->segment_tail[s->segment_count++] = s->pos[c];
            children++;
        }
        if (!children && s->segment_count < CREATURE_MAX_SEGMENTS) {
            s->segment_joint[s->segment_count] = (int32_t)j;
            s->segment_head[s->segment_count] = s->pos[j];
            s->segment_tail[s->segment_count++] = s->tip[j];
        }
    }
    rest_from_bind(s);
}

void creature_skeleton_apply_map(creature_skeleton *s, const creature_file_map *map)
{
    for (uint32_t j = 0; j < s->count; j++) {
        s->parent[j] = map->parent[j];
        s->rot[j] = sinew_quat_normalize(sinew_quat_mul(s->rot[j], map->axes[j]));
    }
    rest_from_bind(s);
}

/* ---- tubes ---- */

/* Centripetal Catmull-Rom through n >= 5 points, u in [0, 1] spread evenly over the n - 1
 * spans, the end spans closed by mirrored phantom points (Barry and Goldman's pyramid as in
 * Yuksel, Schaefer and Keyser, "Parameterization and applications of Catmull-Rom curves",
 * CAD 2011: the centripetal knots never cusp or loop inside a span). */
static sinew_vec3 spline(const sinew_vec3 *c, uint32_t n, float u)
{
    float x = u * (float)(n - 1);
    uint32_t i = x >= (float)(n - 1) ? n - 2 : (uint32_t)x;
    float f = x - (float)i;
    sinew_vec3 p1 = c[i], p2 = c[i + 1];
    sinew_vec3 p0 = i > 0 ? c[i - 1] : sinew_vec3_sub(sinew_vec3_scale(p1, 2.0f), p2);
    sinew_vec3 p3 = i + 2 < n ? c[i + 2] : sinew_vec3_sub(sinew_vec3_scale(p2, 2.0f), p1);
    /* knot gaps: the square root of each chord (centripetal), never zero */
    float d01 = sqrtf(fmaxf(sinew_vec3_distance(p0, p1), 1e-12f));
    float d12 = sqrtf(fmaxf(sinew_vec3_distance(p1, p2), 1e-12f));
    float d23 = sqrtf(fmaxf(sinew_vec3_distance(p2, p3), 1e-12f));
    float t0 = 0, t1 = d01, t2 = t1 + d12, t3 = t2 + d23;
    float t = t1 + f * d12;
    sinew_vec3 a1 = sinew_vec3_add(sinew_vec3_scale(p0, (t1 - t) / (t1 - t0)),
                                   sinew_vec3_scale(p1, (t - t0) / (t1 - t0)));
    sinew_vec3 a2 = sinew_vec3_add(sinew_vec3_scale(p1, (t2 - t) / (t2 - t1)),
                                   sinew_vec3_scale(p2, (t - t1) / (t2 - t1)));
    sinew_vec3 a3 = sinew_vec3_add(sinew_vec3_scale(p2, (t3 - t) / (t3 - t2)),
                                   sinew_vec3_scale(p3, (t - t2) / (t3 - t2)));
    sinew_vec3 b1 = sinew_vec3_add(sinew_vec3_scale(a1, (t2 - t) / (t2 - t0)),
                                   sinew_vec3_scale(a2, (t - t0) / (t2 - t0)));
    sinew_vec3 b2 = sinew_vec3_add(sinew_vec3_scale(a2, (t3 - t) / (t3 - t1)),
                                   sinew_vec3_scale(a3, (t - t1) / (t3 - t1)));
    return sinew_vec3_add(sinew_vec3_scale(b1, (t2 - t) / (t2 - t1)),
                          sinew_vec3_scale(b2, (t - t1) / (t2 - t1)));
}

static sinew_vec3 bezier(const creature_tube *t, float u)
{
    const sinew_vec3 *c = t->ctrl;
    float v = 1.0f - u;
    switch (t->ctrl_count) {
    case 3: {
        sinew_vec3 r = sinew_vec3_scale(c[0], v * v);
        r = sinew_vec3_madd(r, c[1], 2.0f * u * v);
        return sinew_vec3_madd(r, c[2], u * u);
    }
    case 4: {
        sinew_vec3 r = sinew_vec3_scale(c[0], v * v * v);
        r = sinew_vec3_madd(r, c[1], 3.0f * u * v * v);
        r = sinew_vec3_madd(r, c[2], 3.0f * u * u * v);
        return sinew_vec3_madd(r, c[3], u * u * u);
    }
    default:
        if (t->ctrl_count >= 5) return spline(c, t->ctrl_count, u);
        return sinew_vec3_lerp(c[0], c[1], u);
    }
}

#define ARC_SAMPLES 128

/* Cumulative arc length at ARC_SAMPLES + 1 uniform parameter values. */
static float arc_table(const creature_tube *t, float *cum)
{
    sinew_vec3 prev = bezier(t, 0.0f);
    cum[0] = 0.0f;
    for (int i = 1; i <= ARC_SAMPLES; i++) {
        sinew_vec3 p = bezier(t, (float)i / ARC_SAMPLES);
        cum[i] = cum[i - 1] + sinew_vec3_distance(p, prev);
        prev = p;
    }
    return cum[ARC_SAMPLES];
}

/* Bezier parameter at arc-length fraction s. */
static float arc_param(const float *cum, float s)
{
    float target = s * cum[ARC_SAMPLES];
    int i = 1;
    while (i < ARC_SAMPLES && cum[i] < target)
        i++;
    float seg = cum[i] - cum[i - 1];
    float f = seg > 0 ? (target - cum[i - 1]) / seg : 0.0f;
    f = f < 0 ? 0 : (f > 1 ? 1 : f);
    return ((float)(i - 1) + f) / ARC_SAMPLES;
}

float creature_tube_length(const creature_tube *t)
{
    float cum[ARC_SAMPLES + 1];
    return arc_table(t, cum);
}

float creature_tube_radius(const creature_tube *t)
{
    float r = 0;
    for (uint32_t i = 0; i < t->profile_count; i++)
        r = fmaxf(r, fmaxf(t->prof_a[i], t->prof_b[i]));
    return r;
}

static void profile(const creature_tube *t, float s, float *a, float *b, float *off)
{
    uint32_t n = t->profile_count;
    if (n == 0) {
        *a = *b = *off = 0;
        return;
    }
    if (s <= t->prof_t[0] || n == 1) {
        *a = t->prof_a[0], *b = t->prof_b[0], *off = t->prof_off[0];
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        if (s <= t->prof_t[i]) {
            float span = t->prof_t[i] - t->prof_t[i - 1];
            float f = span > 0 ? (s - t->prof_t[i - 1]) / span : 1.0f;
            /* smoothstep between control radii: no creases at the profile's knots */
            f = f * f * (3.0f - 2.0f * f);
            *a = t->prof_a[i - 1] + (t->prof_a[i] - t->prof_a[i - 1]) * f;
            *b = t->prof_b[i - 1] + (t->prof_b[i] - t->prof_b[i - 1]) * f;
            *off = t->prof_off[i - 1] + (t->prof_off[i] - t->prof_off[i - 1]) * f;
            return;
        }
    }
    *a = t->prof_a[n - 1], *b = t->prof_b[n - 1], *off = t->prof_off[n - 1];
}

/* Fixed integer hash (xorshift-multiply) of grid indices: deterministic fur noise. */
static float hash_noise(uint32_t seed, uint32_t i, uint32_t j)
{
    uint32_t h = seed * 0x9E3779B9u ^ (i * 0x85EBCA6Bu) ^ (j * 0xC2B2AE35u);
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return (float)(h & 0xFFFFu) / 32767.5f - 1.0f; /* [-1, 1] */
}

static int grow(creature_mesh *m, uint32_t add_v, uint32_t add_t)
{
    if (m->failed) return 0;
    if (m->vertex_count + add_v > m->vertex_cap) {
        uint32_t cap = m->vertex_cap ? m->vertex_cap : 4096;
        while (cap < m->vertex_count + add_v)
            cap *= 2;
        sinew_vec3 *p = sinew_realloc(m->alloc, m->positions, m->vertex_cap, cap, sizeof *p);
        if (p) m->positions = p;
        uint8_t *pc = sinew_realloc(m->alloc, m->piece, m->vertex_cap, cap, 1);
        if (pc) m->piece = pc;
        uint16_t *jn = sinew_realloc(m->alloc, m->joints, m->vertex_cap * 4, cap * 4, 2);
        if (jn) m->joints = jn;
        float *w = sinew_realloc(m->alloc, m->weights, m->vertex_cap * 4, cap * 4, 4);
        if (w) m->weights = w;
        if (!p || !pc || !jn || !w) {
            m->failed = 1;
            return 0;
        }
        m->vertex_cap = cap;
    }
    if (m->triangle_count + add_t > m->triangle_cap) {
        uint32_t cap = m->triangle_cap ? m->triangle_cap : 8192;
        while (cap < m->triangle_count + add_t)
            cap *= 2;
        uint32_t *t = sinew_realloc(m->alloc, m->triangles, m->triangle_cap * 3, cap * 3, 4);
        if (!t) {
            m->failed = 1;
            return 0;
        }
        m->triangles = t;
        m->triangle_cap = cap;
    }
    return 1;
}

/* Keeps the 4 largest, drops tiny ones, normalises, sorts descending. */
static void finish_weights(uint32_t n, const int32_t *joints, const float *w, uint16_t out_j[4],
                           float out_w[4])
{
    int32_t bj[4] = {0, 0, 0, 0};
    float bw[4] = {0, 0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        float x = w[i];
        int32_t jx = joints[i];
        for (int k = 0; k < 4; k++) {
            if (x > bw[k]) {
                float tw = bw[k];
                int32_t tj = bj[k];
                bw[k] = x, bj[k] = jx;
                x = tw, jx = tj;
            }
        }
    }
    float sum = bw[0] + bw[1] + bw[2] + bw[3];
    for (int k = 0; k < 4; k++)
        if (bw[k] < 0.01f * sum) bw[k] = 0, bj[k] = 0;
    sum = bw[0] + bw[1] + bw[2] + bw[3];
    for (int k = 0; k < 4; k++) {
        out_w[k] = sum > 0 ? bw[k] / sum : (k == 0 ? 1.0f : 0.0f);
        out_j[k] = (uint16_t)bj[k];
    }
}

/* NEAREST_TWO: 1/d^2 to the two candidates whose bone segments come nearest p, 0 to the
 * others. */
static void nearest_two(const creature_skeleton *s, const creature_weights *wr, sinew_vec3 p,
                        float *w)
{
    float d[CREATURE_MAX_JOINTS];
    for (uint32_t j = 0; j < s->count; j++)
        d[j] = FLT_MAX;
    for (uint32_t k = 0; k < s->segment_count; k++) {
        int32_t j = s->segment_joint[k];
        d[j] = fminf(d[j], sinew_segment_distance(p, s->segment_head[k], s->segment_tail[k]));
    }
    uint32_t best = 0, second = UINT32_MAX;
    for (uint32_t i = 1; i < wr->count; i++) {
        float di = d[wr->joints[i]];
        if (di < d[wr->joints[best]]) {
            second = best;
            best = i;
        } else if (second == UINT32_MAX || di < d[wr->joints[second]]) {
            second = i;
        }
    }
    for (uint32_t i = 0; i < wr->count; i++)
        w[i] = 0;
    /* a floor far below any modelled distance keeps a vertex on a bone finite */
    const float floor2 = 1e-12f;
    float d0 = d[wr->joints[best]];
    w[best] = 1.0f / (d0 * d0 + floor2);
    if (second != UINT32_MAX) {
        float d1 = d[wr->joints[second]];
        w[second] = 1.0f / (d1 * d1 + floor2);
    }
}

static void point_weights(const creature_skeleton *s, const creature_weights *wr, sinew_vec3 p,
                          float t, uint16_t out_j[4], float out_w[4])
{
    float w[CREATURE_MAX_CANDIDATES];
    uint32_t n = wr->count;
    if (wr->remap) t = wr->t0 + (wr->t1 - wr->t0) * t;
    if (wr->mode == CREATURE_WEIGHT_NEAREST_TWO && n >= 1) {
        nearest_two(s, wr, p, w);
    } else if (wr->mode == CREATURE_WEIGHT_ALONG) {
        for (uint32_t i = 0; i < n; i++)
            w[i] = wr->from[i] + (wr->to[i] - wr->from[i]) * t;
    } else if (wr->mode == CREATURE_WEIGHT_SIDE && n >= 3) {
        /* a garment at the waist: hips at the top, the thighs below, each thigh owning its
         * side with a smooth split through the middle */
        float hips = wr->from[0] + (wr->to[0] - wr->from[0]) * t;
        float side = 0.5f + p.x / 0.16f;
        side = side < 0 ? 0 : (side > 1 ? 1 : side);
        side = side * side * (3.0f - 2.0f * side);
        w[0] = hips;
        w[1] = (1.0f - hips) * side;
        w[2] = (1.0f - hips) * (1.0f - side);
        n = 3;
    } else if (wr->mode == CREATURE_WEIGHT_TEMPLATE && n >= 3) {
        w[0] = wr->from[0] + (wr->to[0] - wr->from[0]) * t;
        w[3] = n >= 4 ? wr->from[3] + (wr->to[3] - wr->from[3]) * t : 0.0f;
        float rest = fmaxf(0.0f, 1.0f - w[0] - w[3]);
        float side = 1.0f / (1.0f + expf(-p.x / fmaxf(wr->side_width, 1e-6f)));
        w[1] = rest * side;
        w[2] = rest * (1.0f - side);
        n = n >= 4 ? 4 : 3;
    } else {
        /* a template rigger's distance falloff: w ~ 1 / d^4 to each candidate bone */
        for (uint32_t i = 0; i < n; i++) {
            int32_t j = wr->joints[i];
            float d = sinew_segment_distance(p, s->pos[j], s->tip[j]);
            float d2 = d * d + 1e-4f;
            w[i] = 1.0f / (d2 * d2);
        }
    }
    finish_weights(n, wr->joints, w, out_j, out_w);
}

/* The radius factor of the rounded caps at arc fraction `sarc`. */
static float cap_factor(const creature_tube *t, float sarc)
{
    float e = 1.0f;
    if (t->cap0 > 0 && sarc < t->cap0) {
        float x = 1.0f - sarc / t->cap0;
        e *= sqrtf(fmaxf(0.0f, 1.0f - x * x));
    }
    if (t->cap1 > 0 && sarc > 1.0f - t->cap1) {
        float x = 1.0f - (1.0f - sarc) / t->cap1;
        e *= sqrtf(fmaxf(0.0f, 1.0f - x * x));
    }
    return e;
}

void creature_tube_grid(const creature_tube *t, sinew_vec3 *gp)
{
    const uint32_t segs = t->segments, rings = t->rings;
    if (segs < 3 || rings < 2) return;
    /* Rings at uniform arc length with a rotation-minimising frame (parallel transport). */
    float cum[ARC_SAMPLES + 1];
    arc_table(t, cum);
    sinew_vec3 prev_tan = sinew_vec3_make(0, 0, 0), n1 = sinew_vec3_make(0, 0, 0);
    const float du = 1e-3f;
    for (uint32_t j = 0; j < rings; j++) {
        float sarc = (float)j / (float)(rings - 1);
        float u = arc_param(cum, sarc);
        sinew_vec3 c = bezier(t, u);
        float u0 = u - du < 0 ? 0 : u - du, u1 = u + du > 1 ? 1 : u + du;
        sinew_vec3 tan = sinew_vec3_normalize_or(sinew_vec3_sub(bezier(t, u1), bezier(t, u0)),
                                                 sinew_vec3_make(0, 1, 0));
        if (j == 0) {
            n1 = sinew_vec3_sub(t->side, sinew_vec3_scale(tan, sinew_vec3_dot(t->side, tan)));
        } else {
            n1 = sinew_quat_rotate(sinew_quat_swing(prev_tan, tan), n1);
            n1 = sinew_vec3_sub(n1, sinew_vec3_scale(tan, sinew_vec3_dot(n1, tan)));
        }
        n1 = sinew_vec3_normalize_or(n1, sinew_vec3_make(1, 0, 0));
        prev_tan = tan;
        sinew_vec3 n2 = sinew_vec3_cross(tan, n1);

        float a, b, off;
        profile(t, sarc, &a, &b, &off);
        float e = cap_factor(t, sarc);
        int pole = (j == 0 && t->cap0 > 0) || (j == rings - 1 && t->cap1 > 0);
        sinew_vec3 centre = sinew_vec3_madd(c, n2, off);
        for (uint32_t i = 0; i < segs; i++) {
            sinew_vec3 p = centre;
            if (j == 0 && t->ring0) {
                p = t->ring0[i];
            } else if (!pole) {
                float th = (float)(2.0 * SINEW_PI) * (float)i / (float)segs;
                float k = e;
                if (t->noise > 0) k *= 1.0f + t->noise * hash_noise(t->seed, i, j);
                p = sinew_vec3_madd(p, n1, a * k * cosf(th));
                p = sinew_vec3_madd(p, n2, b * k * sinf(th));
            }
            gp[j * segs + i] = p;
        }
    }
}

float creature_tube_ctrl_fraction(const creature_tube *t, uint32_t i)
{
    if (t->ctrl_count < 2) return 0;
    float cum[ARC_SAMPLES + 1];
    float total = arc_table(t, cum);
    if (!(total > 0)) return 0;
    /* the spline passes point i at u = i / (n - 1): interpolate the arc table there */
    float x = (float)i / (float)(t->ctrl_count - 1) * ARC_SAMPLES;
    int k = (int)x;
    if (k >= ARC_SAMPLES) return 1.0f;
    float f = x - (float)k;
    return (cum[k] + (cum[k + 1] - cum[k]) * f) / total;
}

void creature_tube_section(const creature_tube *t, float s, sinew_vec3 *centre, sinew_vec3 *tangent,
                           float *a, float *b)
{
    float cum[ARC_SAMPLES + 1];
    arc_table(t, cum);
    const float du = 1e-3f;
    float u = arc_param(cum, s < 0 ? 0 : (s > 1 ? 1 : s));
    float u0 = u - du < 0 ? 0 : u - du, u1 = u + du > 1 ? 1 : u + du;
    *centre = bezier(t, u);
    *tangent = sinew_vec3_normalize_or(sinew_vec3_sub(bezier(t, u1), bezier(t, u0)),
                                       sinew_vec3_make(0, 1, 0));
    float off;
    profile(t, s, a, b, &off);
    float e = cap_factor(t, s);
    *a *= e, *b *= e;
}

int creature_mesh_tube(creature_mesh *m, const creature_skeleton *s, const creature_tube *t)
{
    const uint32_t segs = t->segments, rings = t->rings;
    const uint32_t patch =
        t->patch ? (t->patch < CREATURE_MAX_PATCH ? t->patch : CREATURE_MAX_PATCH) : 4;
    if (segs < 3 || rings < 2) return 1;
    const uint32_t grid = segs * rings;
    sinew_vec3 *gp = sinew_alloc(m->alloc, grid, sizeof *gp);
    uint16_t *gj = sinew_alloc(m->alloc, grid * 4, sizeof *gj);
    float *gw = sinew_alloc(m->alloc, grid * 4, sizeof *gw);
    uint8_t *gpiece = sinew_alloc(m->alloc, rings, 1);
    if (!gp || !gj || !gw || !gpiece) {
        sinew_free(m->alloc, gp);
        sinew_free(m->alloc, gj);
        sinew_free(m->alloc, gw);
        sinew_free(m->alloc, gpiece);
        m->failed = 1;
        return 0;
    }
    creature_tube_grid(t, gp);
    for (uint32_t j = 0; j < rings; j++) {
        float sarc = (float)j / (float)(rings - 1);
        const creature_weights *wr = &t->weights;
        gpiece[j] = t->piece;
        if (t->split > 0 && sarc >= t->split) {
            wr = &t->weights_after;
            gpiece[j] = t->piece_after;
            sarc = t->split < 1 ? (sarc - t->split) / (1.0f - t->split) : 0.0f;
        }
        for (uint32_t i = 0; i < segs; i++) {
            uint32_t g = j * segs + i;
            point_weights(s, wr, gp[g], sarc, &gj[g * 4], &gw[g * 4]);
        }
    }

    /* Patches: each owns its vertices, so shared borders are duplicated (seams). Quads in
     * the hole are left out, and so are the vertices only they use. */
    const int hole = t->hole_u1 > t->hole_u0 && t->hole_v1 > t->hole_v0;
    uint32_t local[(CREATURE_MAX_PATCH + 1) * (CREATURE_MAX_PATCH + 1)];
    int ok = 1;
    for (uint32_t pv = 0; pv + 1 < rings && ok; pv += patch) {
        uint32_t v1 = pv + patch < rings - 1 ? pv + patch : rings - 1;
        for (uint32_t pu = 0; pu < segs && ok; pu += patch) {
            uint32_t u1 = pu + patch < segs ? pu + patch : segs;
            uint32_t w = u1 - pu + 1, h = v1 - pv + 1;
            if (!grow(m, w * h, 2 * (w - 1) * (h - 1))) {
                ok = 0;
                break;
            }
            for (uint32_t jv = pv; jv <= v1; jv++)
                for (uint32_t iu = pu; iu <= u1; iu++) {
                    uint32_t *slot = &local[(jv - pv) * w + (iu - pu)];
                    if (hole && iu > t->hole_u0 && iu < t->hole_u1 && jv > t->hole_v0 &&
                        jv < t->hole_v1) {
                        *slot = UINT32_MAX;
                        continue;
                    }
                    uint32_t g = jv * segs + (iu % segs);
                    uint32_t v = m->vertex_count++;
                    *slot = v;
                    m->positions[v] = gp[g];
                    m->piece[v] = gpiece[jv];
                    memcpy(&m->joints[v * 4], &gj[g * 4], 4 * sizeof *gj);
                    memcpy(&m->weights[v * 4], &gw[g * 4], 4 * sizeof *gw);
                }
            for (uint32_t jv = pv; jv < v1; jv++) {
                int pole0 = jv == 0 && t->cap0 > 0;
                int pole1 = jv + 1 == rings - 1 && t->cap1 > 0;
                for (uint32_t iu = pu; iu < u1; iu++) {
                    if (hole && iu >= t->hole_u0 && iu < t->hole_u1 && jv >= t->hole_v0 &&
                        jv < t->hole_v1)
                        continue;
                    uint32_t k = (jv - pv) * w + (iu - pu);
                    uint32_t a = local[k], b = local[k + 1], d = local[k + w], c = local[k + w + 1];
                    uint32_t *tri = &m->triangles[m->triangle_count * 3];
                    if (!pole0) {
                        tri[0] = a, tri[1] = b, tri[2] = c;
                        tri += 3;
                        m->triangle_count++;
                    }
                    if (!pole1) {
                        tri[0] = a, tri[1] = c, tri[2] = d;
                        m->triangle_count++;
                    }
                }
            }
        }
    }
    sinew_free(m->alloc, gp);
    sinew_free(m->alloc, gj);
    sinew_free(m->alloc, gw);
    sinew_free(m->alloc, gpiece);
    return ok;
}

void creature_mesh_free(creature_mesh *m)
{
    sinew_free(m->alloc, m->positions);
    sinew_free(m->alloc, m->piece);
    sinew_free(m->alloc, m->joints);
    sinew_free(m->alloc, m->weights);
    sinew_free(m->alloc, m->triangles);
    memset(m, 0, sizeof *m);
}

/* ---- poses ---- */

sinew_quat creature_rot(float ax, float ay, float az, float deg)
{
    sinew_vec3 axis =
        sinew_vec3_normalize_or(sinew_vec3_make(ax, ay, az), sinew_vec3_make(1, 0, 0));
    return sinew_quat_from_axis_angle(axis, deg * (float)(SINEW_PI / 180.0));
}

void creature_pose_reset(const creature_skeleton *s, creature_pose *p)
{
    memset(p, 0, sizeof *p);
    for (uint32_t j = 0; j < CREATURE_MAX_JOINTS; j++)
        p->delta[j] = sinew_quat_identity();
    p->root = s->count ? s->pos[0] : sinew_vec3_make(0, 0, 0);
}

/* local = rest * (B^-1 D B): D about world axes, applied in the joint's own frame. */
static sinew_quat delta_local(const creature_skeleton *s, const creature_pose *p, uint32_t j)
{
    sinew_quat b = s->rot[j];
    sinew_quat d = sinew_quat_mul(sinew_quat_conjugate(b), sinew_quat_mul(p->delta[j], b));
    return sinew_quat_normalize(sinew_quat_mul(s->rest_rot[j], d));
}

static int leg_of(const creature_pose *p, uint32_t j)
{
    for (uint32_t l = 0; l < p->leg_count; l++)
        if (p->legs[l].upper == (int32_t)j || p->legs[l].lower == (int32_t)j ||
            p->legs[l].foot == (int32_t)j)
            return (int)l;
    return -1;
}

/* Rotation taking the bone's current +Y (under `carried`) onto `dir`, applied on the left. */
static sinew_quat aim(sinew_quat carried, sinew_vec3 dir)
{
    sinew_vec3 cur = sinew_quat_rotate(carried, sinew_vec3_make(0, 1, 0));
    return sinew_quat_normalize(sinew_quat_mul(sinew_quat_swing(cur, dir), carried));
}

static void set_world(const creature_skeleton *s, creature_pose *p, uint32_t j, sinew_quat world)
{
    int32_t par = s->parent[j];
    sinew_quat wp = par >= 0 ? p->world[par] : sinew_quat_identity();
    p->world[j] = world;
    p->local[j] = sinew_quat_normalize(sinew_quat_mul(sinew_quat_conjugate(wp), world));
}

static void solve_leg(const creature_skeleton *s, creature_pose *p, const creature_leg *leg)
{
    const int32_t u = leg->upper, l = leg->lower, f = leg->foot, par = s->parent[u];
    sinew_quat wp = par >= 0 ? p->world[par] : sinew_quat_identity();
    sinew_vec3 pp = par >= 0 ? p->world_pos[par] : sinew_vec3_make(0, 0, 0);
    sinew_vec3 hip = sinew_vec3_add(pp, sinew_quat_rotate(wp, s->rest_pos[u]));
    float l1 = sinew_vec3_distance(s->pos[l], s->pos[u]);
    float l2 = sinew_vec3_distance(s->pos[f], s->pos[l]);
    sinew_vec3 to = sinew_vec3_sub(leg->ankle, hip);
    float d = sinew_vec3_length(to);
    float dmin = fabsf(l1 - l2) + 1e-4f, dmax = 0.9995f * (l1 + l2);
    d = d < dmin ? dmin : (d > dmax ? dmax : d);
    sinew_vec3 dir = sinew_vec3_normalize_or(to, sinew_vec3_make(0, -1, 0));
    /* law of cosines: the knee sits a along the hip-ankle line and h off it, towards the pole */
    float a = (l1 * l1 - l2 * l2 + d * d) / (2.0f * d);
    float h = sqrtf(fmaxf(0.0f, l1 * l1 - a * a));
    sinew_vec3 pole =
        sinew_vec3_sub(leg->pole, sinew_vec3_scale(dir, sinew_vec3_dot(leg->pole, dir)));
    pole = sinew_vec3_normalize_or(pole, sinew_vec3_make(0, 0, 1));
    sinew_vec3 knee = sinew_vec3_madd(sinew_vec3_madd(hip, dir, a), pole, h);
    sinew_vec3 ankle = sinew_vec3_madd(hip, dir, d);

    p->world_pos[u] = hip;
    set_world(s, p, (uint32_t)u,
              aim(sinew_quat_mul(wp, s->rest_rot[u]),
                  sinew_vec3_normalize_or(sinew_vec3_sub(knee, hip), dir)));
    p->world_pos[l] = sinew_vec3_add(hip, sinew_quat_rotate(p->world[u], s->rest_pos[l]));
    set_world(s, p, (uint32_t)l,
              aim(sinew_quat_mul(p->world[u], s->rest_rot[l]),
                  sinew_vec3_normalize_or(sinew_vec3_sub(ankle, p->world_pos[l]), dir)));
    p->world_pos[f] =
        sinew_vec3_add(p->world_pos[l], sinew_quat_rotate(p->world[l], s->rest_pos[f]));
    sinew_vec3 foot_dir =
        sinew_quat_rotate(leg->foot_delta, sinew_quat_rotate(s->rot[f], sinew_vec3_make(0, 1, 0)));
    set_world(s, p, (uint32_t)f, aim(sinew_quat_mul(p->world[l], s->rest_rot[f]), foot_dir));
}

void creature_pose_solve(const creature_skeleton *s, creature_pose *p)
{
    for (uint32_t j = 0; j < s->count; j++) {
        int leg = leg_of(p, j);
        if (leg >= 0) {
            if (p->legs[leg].upper == (int32_t)j) solve_leg(s, p, &p->legs[leg]);
            continue;
        }
        int32_t par = s->parent[j];
        p->local[j] = delta_local(s, p, j);
        if (par < 0) {
            p->world[j] = p->local[j];
            p->world_pos[j] = p->root;
        } else {
            p->world[j] = sinew_quat_normalize(sinew_quat_mul(p->world[par], p->local[j]));
            p->world_pos[j] =
                sinew_vec3_add(p->world_pos[par], sinew_quat_rotate(p->world[par], s->rest_pos[j]));
        }
    }
}

sinew_vec3 creature_pose_joint_position(const creature_skeleton *s, const creature_pose *p,
                                        int32_t j)
{
    /* Walk up to the root collecting the chain, then FK down it with the deltas (no IK). */
    int32_t chain[CREATURE_MAX_JOINTS];
    int n = 0;
    for (int32_t k = j; k >= 0 && n < CREATURE_MAX_JOINTS; k = s->parent[k])
        chain[n++] = k;
    sinew_quat w = sinew_quat_identity();
    sinew_vec3 pos = p->root;
    for (int i = n - 1; i >= 0; i--) {
        uint32_t k = (uint32_t)chain[i];
        if (i != n - 1) pos = sinew_vec3_add(pos, sinew_quat_rotate(w, s->rest_pos[k]));
        w = sinew_quat_normalize(sinew_quat_mul(w, delta_local(s, p, k)));
    }
    return pos;
}

/* Lowers the root until every leg reaches its ankle target with a slightly bent knee. */
void creature_pose_fit_root_height(const creature_skeleton *s, creature_pose *p)
{
    float best = p->root.y;
    for (uint32_t k = 0; k < p->leg_count; k++) {
        const creature_leg *leg = &p->legs[k];
        sinew_vec3 hip = creature_pose_joint_position(s, p, leg->upper);
        float above = hip.y - p->root.y;
        float l = 0.985f * (sinew_vec3_distance(s->pos[leg->lower], s->pos[leg->upper]) +
                            sinew_vec3_distance(s->pos[leg->foot], s->pos[leg->lower]));
        float dx = leg->ankle.x - hip.x, dz = leg->ankle.z - hip.z;
        float horiz2 = dx * dx + dz * dz;
        float reach = l * l > horiz2 ? sqrtf(l * l - horiz2) : 0.0f;
        float top = leg->ankle.y + reach - above;
        if (top < best) best = top;
    }
    p->root.y = best;
}

/* ---- clips ---- */

/* A clip written through b->map (see creature_add_clip). */
static int add_mapped_clip(creature_build *b, sinew_clip *clip, uint32_t frames,
                           creature_pose_fn fn, const void *ctx)
{
    const sinew_allocator *a = &b->model->allocator;
    const creature_skeleton *s = &b->skel;
    const creature_file_map *map = b->map;
    const uint32_t keys = frames + 1;
    uint32_t moved = 0;
    for (uint32_t j = 0; j < s->count; j++)
        moved += map->translate[j] != 0;
    const uint32_t channels = moved + s->count;
    clip->channels = sinew_alloc(a, channels, sizeof *clip->channels);
    if (!clip->channels) return 0;
    uint32_t c = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t j = 0; j < s->count; j++) {
            if (pass == 0 && !map->translate[j]) continue;
            sinew_channel *ch = &clip->channels[c];
            uint32_t comps = pass == 0 ? 3 : 4;
            ch->node = (int32_t)j;
            ch->path = pass == 0 ? SINEW_PATH_TRANSLATION : SINEW_PATH_ROTATION;
            ch->interpolation = SINEW_INTERP_LINEAR;
            ch->key_count = keys;
            ch->times = sinew_alloc(a, keys, sizeof(float));
            ch->values = sinew_alloc(a, (size_t)keys * comps, sizeof(float));
            clip->channel_count = ++c;
            if (!ch->times || !ch->values) return 0;
            for (uint32_t k = 0; k < keys; k++)
                ch->times[k] = (float)k / CREATURE_FPS;
        }

    creature_pose pose;
    sinew_quat world[CREATURE_MAX_JOINTS];
    for (uint32_t k = 0; k < frames; k++) {
        creature_pose_reset(s, &pose);
        fn(s, ctx, (float)k / (float)frames, &pose);
        creature_pose_solve(s, &pose);
        if (map->after_solve) map->after_solve(s, ctx, &pose);
        for (uint32_t j = 0; j < s->count; j++)
            world[j] = sinew_quat_normalize(sinew_quat_mul(pose.world[j], map->axes[j]));
        c = 0;
        for (uint32_t j = 0; j < s->count; j++) {
            if (!map->translate[j]) continue;
            int32_t p = map->parent[j];
            sinew_vec3 t = pose.world_pos[j];
            if (p >= 0)
                t = sinew_quat_rotate(sinew_quat_conjugate(world[p]),
                                      sinew_vec3_sub(pose.world_pos[j], pose.world_pos[p]));
            float *tv = &clip->channels[c++].values[k * 3];
            tv[0] = t.x, tv[1] = t.y, tv[2] = t.z;
        }
        for (uint32_t j = 0; j < s->count; j++) {
            int32_t p = map->parent[j];
            sinew_quat r =
                p >= 0 ? sinew_quat_mul(sinew_quat_conjugate(world[p]), world[j]) : world[j];
            r = sinew_quat_normalize(r);
            float *q = &clip->channels[c++].values[k * 4];
            /* one hemisphere for consecutive keys, as below */
            if (k > 0 && r.x * q[-4] + r.y * q[-3] + r.z * q[-2] + r.w * q[-1] < 0)
                r = sinew_quat_make(-r.x, -r.y, -r.z, -r.w);
            q[0] = r.x, q[1] = r.y, q[2] = r.z, q[3] = r.w;
        }
    }
    for (c = 0; c < clip->channel_count; c++) {
        sinew_channel *ch = &clip->channels[c];
        uint32_t comps = ch->path == SINEW_PATH_TRANSLATION ? 3 : 4;
        memcpy(&ch->values[frames * comps], &ch->values[0], comps * sizeof(float));
    }
    return 1;
}

int creature_add_clip(creature_build *b, const char *name, float duration, creature_pose_fn fn,
                      const void *ctx)
{
    sinew_model *model = b->model;
    const sinew_allocator *a = &model->allocator;
    const creature_skeleton *s = &b->skel;
    uint32_t frames = (uint32_t)lroundf(duration * CREATURE_FPS);
    if (frames < 2) frames = 2;
    const uint32_t keys = frames + 1;

    sinew_clip *clips =
        sinew_realloc(a, model->clips, model->clip_count, model->clip_count + 1, sizeof *clips);
    if (!clips) return 0;
    model->clips = clips;
    sinew_clip *clip = &clips[model->clip_count];
    memset(clip, 0, sizeof *clip);
    size_t nlen = strlen(name);
    clip->name = sinew_alloc(a, nlen + 1, 1);
    if (!b->map) clip->channels = sinew_alloc(a, s->count + 1, sizeof *clip->channels);
    model->clip_count++; /* from here the model owns (and frees) whatever was allocated */
    if (!clip->name || (!b->map && !clip->channels)) return 0;
    memcpy(clip->name, name, nlen + 1);
    clip->gltf_animation = -1;
    clip->duration = (float)frames / CREATURE_FPS;
    if (b->map) return add_mapped_clip(b, clip, frames, fn, ctx);

    /* channel 0: root translation; channels 1..count: rotations of every joint */
    for (uint32_t c = 0; c <= s->count; c++) {
        sinew_channel *ch = &clip->channels[c];
        uint32_t comps = c == 0 ? 3 : 4;
        ch->node = c == 0 ? 0 : (int32_t)(c - 1);
        ch->path = c == 0 ? SINEW_PATH_TRANSLATION : SINEW_PATH_ROTATION;
        ch->interpolation = SINEW_INTERP_LINEAR;
        ch->key_count = keys;
        ch->times = sinew_alloc(a, keys, sizeof(float));
        ch->values = sinew_alloc(a, (size_t)keys * comps, sizeof(float));
        clip->channel_count = c + 1;
        if (!ch->times || !ch->values) return 0;
        for (uint32_t k = 0; k < keys; k++)
            ch->times[k] = (float)k / CREATURE_FPS;
    }

    creature_pose pose;
    for (uint32_t k = 0; k < frames; k++) {
        creature_pose_reset(s, &pose);
        fn(s, ctx, (float)k / (float)frames, &pose);
        creature_pose_solve(s, &pose);
        float *tv = &clip->channels[0].values[k * 3];
        tv[0] = pose.root.x, tv[1] = pose.root.y, tv[2] = pose.root.z;
        for (uint32_t j = 0; j < s->count; j++) {
            float *q = &clip->channels[j + 1].values[k * 4];
            sinew_quat r = pose.local[j];
            /* keep consecutive keys in one hemisphere: players interpolate component-wise
             * neighbours more predictably */
            if (k > 0 && r.x * q[-4] + r.y * q[-3] + r.z * q[-2] + r.w * q[-1] < 0)
                r = sinew_quat_make(-r.x, -r.y, -r.z, -r.w);
            q[0] = r.x, q[1] = r.y, q[2] = r.z, q[3] = r.w;
        }
    }
    /* The loop closes exactly: the last key is the first, bit for bit. */
    for (uint32_t c = 0; c <= s->count; c++) {
        sinew_channel *ch = &clip->channels[c];
        uint32_t comps = c == 0 ? 3 : 4;
        memcpy(&ch->values[frames * comps], &ch->values[0], comps * sizeof(float));
    }
    return 1;
}

int creature_mesh_piece(creature_build *b, uint8_t piece, const creature_tube *t)
{
    sinew_creature_piece *p = &b->truth->pieces[piece];
    p->shell_count = 1;
    p->length = creature_tube_length(t);
    p->radius = creature_tube_radius(t);
    return creature_mesh_tube(&b->mesh, &b->skel, t);
}

uint8_t creature_add_piece(creature_build *b, const char *name, sinew_creature_part part,
                           sinew_creature_verdict verdict, const char *attach_joint)
{
    sinew_creature_truth *t = b->truth;
    if (t->piece_count >= SINEW_CREATURE_MAX_PIECES) return 0;
    uint32_t i = t->piece_count++;
    sinew_creature_piece *p = &t->pieces[i];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->part = part;
    p->verdict = verdict;
    snprintf(p->attach_joint, sizeof p->attach_joint, "%s", attach_joint ? attach_joint : "");
    return (uint8_t)i;
}

creature_tube creature_tube_make(uint8_t piece, uint32_t segments, uint32_t rings, sinew_vec3 a,
                                 sinew_vec3 b, sinew_vec3 side, float cap0, float cap1)
{
    creature_tube t;
    memset(&t, 0, sizeof t);
    t.piece = piece;
    t.segments = segments;
    t.rings = rings;
    t.patch = 4;
    t.ctrl_count = 2;
    t.ctrl[0] = a;
    t.ctrl[1] = b;
    t.side = side;
    t.cap0 = cap0;
    t.cap1 = cap1;
    t.weights.mode = CREATURE_WEIGHT_NEAREST;
    return t;
}

void creature_tube_profile(creature_tube *t, float at, float a, float b, float off)
{
    uint32_t i = t->profile_count;
    if (i >= CREATURE_MAX_PROFILE) return;
    t->prof_t[i] = at, t->prof_a[i] = a, t->prof_b[i] = b, t->prof_off[i] = off;
    t->profile_count = i + 1;
}

void creature_tube_candidate(creature_tube *t, int32_t j)
{
    if (j >= 0 && t->weights.count < CREATURE_MAX_CANDIDATES)
        t->weights.joints[t->weights.count++] = j;
}
