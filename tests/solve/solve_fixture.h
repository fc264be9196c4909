/* A procedural creature for the solve tests and benchmark: a branching quadruped skeleton
 * (spine, neck and head, jaw, ears, four legs, a tail), a blobby tube mesh around every bone
 * whose surface is a smooth function of position (so meshes of different resolution are the
 * same creature), smooth weights with up to three influences, and a random smooth clip.
 * Deterministic (fixed-seed LCG). Test and bench code only. */
#ifndef SINEW_SOLVE_FIXTURE_H
#define SINEW_SOLVE_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/model.h"

typedef struct fixture_params {
    uint32_t rings;  /* rings per bone segment */
    uint32_t sides;  /* vertices per ring */
    uint32_t tail;   /* tail joints */
    uint32_t keys;   /* keys per clip (24 fps) */
    uint32_t seed;   /* clip randomness */
    float amplitude; /* radians of the largest joint swing */
    float scale;     /* overall size (body length ~ 2 * scale) */
} fixture_params;

static inline uint32_t fixture_lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}
static inline float fixture_rand(uint32_t *s)
{
    return (float)fixture_lcg(s) / 16777216.0f;
}

static inline char *fixture_strdup(const char *s)
{
    char *d = sinew_alloc(NULL, strlen(s) + 1, 1);
    if (d) memcpy(d, s, strlen(s) + 1);
    return d;
}

/* Skeleton: node 0 "Armature" (not a joint, scale 1, a small rotation to exercise non-joint
 * ancestors), then joints. Returns node count; fills parent and rest translations. */
#define FIXTURE_MAX_NODES 128
typedef struct fixture_skeleton {
    uint32_t count;
    int32_t parent[FIXTURE_MAX_NODES];
    sinew_vec3 offset[FIXTURE_MAX_NODES]; /* rest translation in the parent's frame */
    char name[FIXTURE_MAX_NODES][32];
} fixture_skeleton;

static inline uint32_t fixture_add(fixture_skeleton *k, int32_t parent, sinew_vec3 off,
                                   const char *name)
{
    uint32_t i = k->count++;
    k->parent[i] = parent;
    k->offset[i] = off;
    snprintf(k->name[i], sizeof k->name[i], "%s", name);
    return i;
}

static inline uint32_t fixture_chain(fixture_skeleton *k, int32_t parent, uint32_t n,
                                     sinew_vec3 step, const char *prefix)
{
    char name[32];
    for (uint32_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s%u", prefix, i + 1);
        parent = (int32_t)fixture_add(k, parent, step, name);
    }
    return (uint32_t)parent;
}

static inline void fixture_build_skeleton(fixture_skeleton *k, const fixture_params *p)
{
    const float s = p->scale;
    memset(k, 0, sizeof *k);
    fixture_add(k, -1, sinew_vec3_make(0, 0, 0), "Armature");
    int32_t hips = (int32_t)fixture_add(k, 0, sinew_vec3_make(0, 1.0f * s, 0), "Hips");
    uint32_t chest = fixture_chain(k, hips, 6, sinew_vec3_make(0, 0.02f * s, 0.14f * s), "Spine");
    uint32_t head =
        fixture_chain(k, (int32_t)chest, 3, sinew_vec3_make(0, 0.12f * s, 0.08f * s), "Neck");
    head = fixture_add(k, (int32_t)head, sinew_vec3_make(0, 0.05f * s, 0.12f * s), "Head");
    fixture_add(k, (int32_t)head, sinew_vec3_make(0, -0.06f * s, 0.15f * s), "Jaw");
    for (int e = 0; e < 2; e++)
        fixture_chain(k, (int32_t)head, 2,
                      sinew_vec3_make(e ? 0.06f * s : -0.06f * s, 0.09f * s, 0),
                      e ? "EarL" : "EarR");
    const char *legs[4] = {"LegFL", "LegFR", "LegBL", "LegBR"};
    for (int l = 0; l < 4; l++) {
        int32_t at = l < 2 ? (int32_t)chest : hips;
        float x = (l % 2 ? 1.0f : -1.0f) * 0.16f * s;
        int32_t top = (int32_t)fixture_add(k, at, sinew_vec3_make(x, -0.08f * s, 0), legs[l]);
        char pre[16];
        snprintf(pre, sizeof pre, "%s_", legs[l]);
        /* bent legs: knee forward/back */
        int32_t a = (int32_t)fixture_add(
            k, top, sinew_vec3_make(0, -0.3f * s, (l < 2 ? -0.05f : 0.06f) * s), pre);
        a = (int32_t)fixture_add(k, a, sinew_vec3_make(0, -0.3f * s, (l < 2 ? 0.05f : -0.07f) * s),
                                 "knee");
        a = (int32_t)fixture_add(k, a, sinew_vec3_make(0, -0.25f * s, 0.02f * s), "ankle");
        fixture_add(k, a, sinew_vec3_make(0, -0.06f * s, 0.08f * s), "toe");
    }
    fixture_chain(k, hips, p->tail, sinew_vec3_make(0, 0.01f * s, -0.16f * s), "Tail");
}

/* Radius of the tube around the bone ending at joint node c, at parameter t and angle a:
 * a smooth function so that any resolution samples the same surface. */
static inline float fixture_radius(uint32_t c, float t, float a, float s)
{
    float base = 0.05f * s * (1.0f + 0.3f * sinf(1.7f * (float)c));
    return base *
           (1.0f + 0.25f * sinf(3 * a + 2.0f * t + (float)c) + 0.15f * sinf(3.14159265f * t));
}

/* Builds the creature. The returned model frees with sinew_model_free. */
static inline sinew_model *fixture_creature(const fixture_params *p)
{
    fixture_skeleton k;
    fixture_build_skeleton(&k, p);
    sinew_model *m = sinew_alloc(NULL, 1, sizeof *m);
    const uint32_t N = k.count, J = N - 1;
    m->node_count = N;
    m->nodes = sinew_alloc(NULL, N, sizeof(sinew_node));
    m->skin.gltf_skin = -1;
    m->skin.joint_count = J;
    m->skin.joints = sinew_alloc(NULL, J, sizeof(sinew_joint));
    sinew_mat4 world[FIXTURE_MAX_NODES];
    for (uint32_t i = 0; i < N; i++) {
        sinew_node *n = &m->nodes[i];
        n->name = fixture_strdup(k.name[i]);
        n->parent = k.parent[i];
        n->gltf_node = -1;
        n->joint = i == 0 ? -1 : (int32_t)(i - 1);
        n->local = sinew_transform_identity();
        n->local.translation = k.offset[i];
        if (i == 0) /* a tilted armature: world != bind-space coordinates of joints */
            n->local.rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 0.3f);
        n->rest = n->local;
        sinew_mat4 l = sinew_mat4_from_transform(n->local);
        world[i] = n->parent < 0 ? l : sinew_mat4_mul(&world[n->parent], &l);
        if (i > 0) {
            m->skin.joints[i - 1].node = (int32_t)i;
            sinew_mat4_invert_affine(&world[i], &m->skin.joints[i - 1].inverse_bind);
        }
    }
    /* Mesh: one tube per bone (joint with a joint parent), from parent to child. */
    const uint32_t R = p->rings, S = p->sides;
    uint32_t bones = 0;
    for (uint32_t i = 2; i < N; i++)
        bones++;
    const uint32_t V = bones * R * S;
    sinew_mesh *mesh = &m->mesh;
    mesh->vertex_count = V;
    mesh->positions = sinew_alloc(NULL, V, sizeof(sinew_vec3));
    mesh->influence_joints = sinew_alloc(NULL, (size_t)V * SINEW_MAX_INFLUENCES, sizeof(uint16_t));
    mesh->influence_weights = sinew_alloc(NULL, (size_t)V * SINEW_MAX_INFLUENCES, sizeof(float));
    mesh->weld = sinew_alloc(NULL, V, sizeof(uint32_t));
    mesh->triangle_count = bones * (R - 1) * S * 2;
    mesh->triangles = sinew_alloc(NULL, (size_t)mesh->triangle_count * 3, sizeof(uint32_t));
    uint32_t v = 0, t = 0;
    for (uint32_t c = 2; c < N; c++) {
        const uint32_t pn = (uint32_t)k.parent[c];
        const int32_t ppn = k.parent[pn];
        const sinew_vec3 a = sinew_mat4_translation(&world[pn]),
                         b = sinew_mat4_translation(&world[c]);
        const sinew_vec3 dir =
            sinew_vec3_normalize_or(sinew_vec3_sub(b, a), sinew_vec3_make(0, 1, 0));
        sinew_vec3 u = sinew_vec3_cross(dir, sinew_vec3_make(0.3f, 0.8f, 0.5f));
        u = sinew_vec3_normalize_or(u, sinew_vec3_make(1, 0, 0));
        const sinew_vec3 w = sinew_vec3_cross(dir, u);
        const uint32_t first = v;
        for (uint32_t r = 0; r < R; r++) {
            const float tt = R > 1 ? (float)r / (float)(R - 1) : 0.5f;
            const sinew_vec3 centre = sinew_vec3_lerp(a, b, 0.05f + 0.9f * tt);
            for (uint32_t q = 0; q < S; q++, v++) {
                const float ang = 2.0f * (float)SINEW_PI * (float)q / (float)S;
                const float rad = fixture_radius(c, tt, ang, p->scale);
                mesh->positions[v] =
                    sinew_vec3_add(centre, sinew_vec3_add(sinew_vec3_scale(u, rad * cosf(ang)),
                                                          sinew_vec3_scale(w, rad * sinf(ang))));
                /* the segment moves with joint pn; blend toward its parent near the start
                 * and toward the child joint c near the end */
                float wj[3] = {1.0f, 0, 0};
                uint16_t jj[3] = {(uint16_t)(pn - 1), (uint16_t)(c - 1), 0};
                wj[1] = tt > 0.5f ? 0.5f * (tt - 0.5f) * (tt - 0.5f) * 4 : 0;
                if (ppn >= 1) {
                    jj[2] = (uint16_t)(ppn - 1);
                    wj[2] = tt < 0.5f ? 0.5f * (0.5f - tt) * (0.5f - tt) * 4 : 0;
                }
                const float sum = wj[0] + wj[1] + wj[2];
                /* sorted descending, unused slots weight 0 joint 0 */
                uint16_t *oj = &mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
                float *ow = &mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES];
                int n = 0;
                oj[n] = jj[0], ow[n++] = wj[0] / sum;
                int second = wj[1] >= wj[2] ? 1 : 2;
                if (wj[second] > 0) oj[n] = jj[second], ow[n++] = wj[second] / sum;
                if (wj[3 - second] > 0) oj[n] = jj[3 - second], ow[n++] = wj[3 - second] / sum;
                mesh->weld[v] = v;
            }
        }
        for (uint32_t r = 0; r + 1 < R; r++)
            for (uint32_t q = 0; q < S; q++) {
                const uint32_t i0 = first + r * S + q, i1 = first + r * S + (q + 1) % S;
                const uint32_t i2 = i0 + S, i3 = i1 + S;
                uint32_t *tri = &mesh->triangles[(size_t)t * 3];
                tri[0] = i0, tri[1] = i1, tri[2] = i2, tri[3] = i1, tri[4] = i3, tri[5] = i2;
                t += 2;
            }
    }
    mesh->range_count = 1;
    mesh->ranges = sinew_alloc(NULL, 1, sizeof(sinew_primitive_range));
    mesh->ranges[0].gltf_mesh = -1;
    mesh->ranges[0].vertex_count = V;
    mesh->ranges[0].triangle_count = mesh->triangle_count;
    /* Clip: every joint rotates by a sum of two sines about a random axis; hips travel. */
    uint32_t seed = p->seed * 2654435761u + 12345u;
    m->clip_count = 1;
    m->clips = sinew_alloc(NULL, 1, sizeof(sinew_clip));
    sinew_clip *clip = &m->clips[0];
    clip->name = fixture_strdup("Walk");
    clip->gltf_animation = -1;
    const uint32_t K = p->keys;
    clip->duration = (float)(K - 1) / 24.0f;
    clip->channel_count = J + 1;
    clip->channels = sinew_alloc(NULL, clip->channel_count, sizeof(sinew_channel));
    for (uint32_t j = 0; j < J; j++) {
        const uint32_t node = j + 1;
        sinew_channel *ch = &clip->channels[j];
        ch->node = (int32_t)node;
        ch->path = SINEW_PATH_ROTATION;
        ch->interpolation = SINEW_INTERP_LINEAR;
        ch->key_count = K;
        ch->times = sinew_alloc(NULL, K, sizeof(float));
        ch->values = sinew_alloc(NULL, (size_t)K * 4, sizeof(float));
        sinew_vec3 axis = sinew_vec3_make(fixture_rand(&seed) - 0.5f, fixture_rand(&seed) - 0.5f,
                                          fixture_rand(&seed) - 0.5f);
        axis = sinew_vec3_normalize_or(axis, sinew_vec3_make(1, 0, 0));
        const float amp = p->amplitude * (0.3f + 0.7f * fixture_rand(&seed));
        const float ph = 6.2831853f * fixture_rand(&seed), ph2 = 6.2831853f * fixture_rand(&seed);
        for (uint32_t i = 0; i < K; i++) {
            const float time = (float)i / 24.0f;
            const float x = 6.2831853f * time / (clip->duration > 0 ? clip->duration : 1);
            const float ang = amp * (0.8f * sinf(x + ph) + 0.3f * sinf(2 * x + ph2));
            sinew_quat q = sinew_quat_from_axis_angle(axis, ang);
            ch->times[i] = time;
            memcpy(&ch->values[i * 4], &q, sizeof q);
        }
    }
    sinew_channel *tr = &clip->channels[J];
    tr->node = 1;
    tr->path = SINEW_PATH_TRANSLATION;
    tr->interpolation = SINEW_INTERP_LINEAR;
    tr->key_count = K;
    tr->times = sinew_alloc(NULL, K, sizeof(float));
    tr->values = sinew_alloc(NULL, (size_t)K * 3, sizeof(float));
    for (uint32_t i = 0; i < K; i++) {
        const float time = (float)i / 24.0f;
        tr->times[i] = time;
        tr->values[i * 3 + 0] = 0.05f * p->scale * sinf(6.0f * time);
        tr->values[i * 3 + 1] = p->scale * (1.0f + 0.05f * sinf(12.0f * time));
        tr->values[i * 3 + 2] = 1.5f * p->scale * time; /* walks forward */
    }
    sinew_model_update_rest(m, NULL);
    sinew_model_update_size(m);
    return m;
}

/* Shuffles the mesh's vertex order in place (positions, influences, welds, triangles). */
static inline void fixture_shuffle(sinew_model *m, uint32_t seed)
{
    sinew_mesh *mesh = &m->mesh;
    const uint32_t V = mesh->vertex_count;
    uint32_t *perm = malloc(V * sizeof *perm), *inv = malloc(V * sizeof *inv);
    for (uint32_t i = 0; i < V; i++)
        perm[i] = i;
    for (uint32_t i = V - 1; i > 0; i--) {
        uint32_t j = fixture_lcg(&seed) % (i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    sinew_vec3 *pos = malloc(V * sizeof *pos);
    uint16_t *jt = malloc((size_t)V * SINEW_MAX_INFLUENCES * sizeof *jt);
    float *wt = malloc((size_t)V * SINEW_MAX_INFLUENCES * sizeof *wt);
    for (uint32_t i = 0; i < V; i++) { /* new vertex i is old vertex perm[i] */
        inv[perm[i]] = i;
        pos[i] = mesh->positions[perm[i]];
        memcpy(&jt[(size_t)i * SINEW_MAX_INFLUENCES],
               &mesh->influence_joints[(size_t)perm[i] * SINEW_MAX_INFLUENCES],
               SINEW_MAX_INFLUENCES * sizeof *jt);
        memcpy(&wt[(size_t)i * SINEW_MAX_INFLUENCES],
               &mesh->influence_weights[(size_t)perm[i] * SINEW_MAX_INFLUENCES],
               SINEW_MAX_INFLUENCES * sizeof *wt);
    }
    memcpy(mesh->positions, pos, V * sizeof *pos);
    memcpy(mesh->influence_joints, jt, (size_t)V * SINEW_MAX_INFLUENCES * sizeof *jt);
    memcpy(mesh->influence_weights, wt, (size_t)V * SINEW_MAX_INFLUENCES * sizeof *wt);
    for (uint32_t i = 0; i < mesh->triangle_count * 3; i++)
        mesh->triangles[i] = inv[mesh->triangles[i]];
    for (uint32_t i = 0; i < V; i++)
        mesh->weld[i] = i;
    free(perm);
    free(inv);
    free(pos);
    free(jt);
    free(wt);
}

static inline fixture_params fixture_default(void)
{
    fixture_params p = {10, 11, 8, 25, 1, 0.5f, 1.0f};
    return p;
}

/* Gives the weights of joints named prefix<from..> to joint prefix<into> (a coarser rig:
 * the merged joints stay in the skin with no weight). Returns how many joints were merged. */
static inline uint32_t fixture_merge_chain(sinew_model *m, const char *prefix, uint32_t into,
                                           uint32_t from)
{
    char name[64];
    snprintf(name, sizeof name, "%s%u", prefix, into);
    int32_t keep = sinew_model_find_node(m, name);
    if (keep < 0 || m->nodes[keep].joint < 0) return 0;
    uint32_t merged = 0;
    for (uint32_t i = from;; i++) {
        snprintf(name, sizeof name, "%s%u", prefix, i);
        int32_t n = sinew_model_find_node(m, name);
        if (n < 0 || m->nodes[n].joint < 0) break;
        merged++;
        for (uint32_t v = 0; v < m->mesh.vertex_count; v++)
            for (int s = 0; s < SINEW_MAX_INFLUENCES; s++) {
                size_t e = (size_t)v * SINEW_MAX_INFLUENCES + s;
                if (m->mesh.influence_weights[e] > 0 &&
                    m->mesh.influence_joints[e] == (uint16_t)m->nodes[n].joint)
                    m->mesh.influence_joints[e] = (uint16_t)m->nodes[keep].joint;
            }
    }
    return merged;
}

#endif
