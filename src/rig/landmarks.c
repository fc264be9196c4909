/* Landmarks: pelvis, spine, thighs and head on any skeleton (issue 3, method 8).
 *
 * Names lie (Quaternius dinosaurs call the upper torso "Hips" and hang the tail from "Back"),
 * and CesiumMan has none, so the topology decides: a leg is a chain of joints that reaches
 * the ground, and the pelvis is the shallowest joint with two legs. Names only break ties and
 * stand in when no joint has two legs. Up comes from the scene graph, because bind space is
 * not always Y-up (FBX2glTF puts Z up there). */
#include "rig_internal.h"

#include <ctype.h>
#include <float.h>
#include <string.h>

int32_t rig_parent_joint(const sinew_model *m, uint32_t j)
{
    for (int32_t p = m->nodes[m->skin.joints[j].node].parent; p >= 0; p = m->nodes[p].parent)
        if (m->nodes[p].joint >= 0) return m->nodes[p].joint;
    return -1;
}

const char *sinew_rig_region_name(sinew_rig_region region)
{
    switch (region) {
    case SINEW_RIG_REGION_PELVIS:
        return "pelvis";
    case SINEW_RIG_REGION_SPINE:
        return "spine";
    case SINEW_RIG_REGION_HEAD:
        return "head";
    case SINEW_RIG_REGION_THIGH:
        return "thigh";
    case SINEW_RIG_REGION_LEG:
        return "leg";
    case SINEW_RIG_REGION_LIMB:
        return "limb";
    case SINEW_RIG_REGION_OTHER:
        return "other";
    default:
        return "invalid";
    }
}

/* The alphabetic core of a joint name, lower case: "mixamorig:LeftUpLeg" -> "leftupleg",
 * "b_Hip_01" -> "hip", "Head" -> "head". */
static void name_core(const char *name, char *out, size_t size)
{
    size_t n = 0;
    if (!name) name = "";
    const char *colon = strrchr(name, ':');
    if (colon) name = colon + 1;
    if (!strncmp(name, "mixamorig", 9)) name += 9;
    if ((name[0] == 'b' || name[0] == 'B') && name[1] == '_') name += 2;
    for (; *name && n + 1 < size; name++)
        if (isalpha((unsigned char)*name)) out[n++] = (char)tolower((unsigned char)*name);
    out[n] = 0;
}

static int name_is_pelvis(const char *name)
{
    char core[64];
    name_core(name, core, sizeof core);
    return !strcmp(core, "hips") || !strcmp(core, "hip") || !strcmp(core, "pelvis");
}

static int name_is_head(const char *name)
{
    char core[64];
    name_core(name, core, sizeof core);
    return !strcmp(core, "head");
}

typedef struct tree {
    uint32_t n;
    int32_t *parent; /* joint parent (nearest joint ancestor) */
    uint32_t *first; /* children CSR */
    uint32_t *kids;
    uint32_t *size; /* subtree joint count */
    uint32_t *depth;
    float *min_h; /* lowest joint height in the subtree */
    float *h;     /* joint height along up */
    sinew_vec3 *pos;
} tree;

static int is_ancestor(const tree *t, uint32_t anc, uint32_t j)
{
    for (int32_t p = (int32_t)j; p >= 0; p = t->parent[p])
        if ((uint32_t)p == anc) return 1;
    return 0;
}

/* World up in bind space: skinning matrix of a root joint at rest, inverted, applied to +Y. */
static sinew_vec3 find_up(const sinew_model *m, sinew_transform *pose, sinew_mat4 *world,
                          const tree *t)
{
    sinew_vec3 fallback = sinew_vec3_make(0, 1, 0);
    uint32_t root = RIG_NONE;
    for (uint32_t j = 0; j < t->n; j++)
        if (t->parent[j] < 0 && (root == RIG_NONE || t->size[j] > t->size[root])) root = j;
    if (root == RIG_NONE) return fallback;
    sinew_pose_rest(m, pose);
    sinew_pose_to_world(m, pose, world);
    sinew_mat4 skin =
        sinew_mat4_mul(&world[m->skin.joints[root].node], &m->skin.joints[root].inverse_bind);
    sinew_mat4 inv;
    if (!sinew_mat4_invert_affine(&skin, &inv)) return fallback;
    sinew_vec3 up = sinew_mat4_transform_dir(&inv, sinew_vec3_make(0, 1, 0));
    if (!(sinew_vec3_length(up) > 1e-20f) || !isfinite(up.x + up.y + up.z)) return fallback;
    return sinew_vec3_normalize_or(up, fallback);
}

sinew_result sinew_rig_find_landmarks(const sinew_model *m, sinew_rig_landmarks *out,
                                      uint8_t *regions, sinew_error *err)
{
    memset(out, 0, sizeof *out);
    out->pelvis = out->head = out->thigh[0] = out->thigh[1] = -1;
    out->up = sinew_vec3_make(0, 1, 0);
    const uint32_t n = m->skin.joint_count;
    if (n == 0) return sinew_error_set(err, SINEW_ERR_ARGUMENT, "the model has no joints");
    const sinew_allocator *al = &m->allocator;
    tree t;
    memset(&t, 0, sizeof t);
    t.n = n;
    t.parent = sinew_alloc(al, n, sizeof *t.parent);
    t.first = sinew_alloc(al, n + 1, sizeof *t.first);
    t.kids = sinew_alloc(al, n, sizeof *t.kids);
    t.size = sinew_alloc(al, n, sizeof *t.size);
    t.depth = sinew_alloc(al, n, sizeof *t.depth);
    t.min_h = sinew_alloc(al, n, sizeof *t.min_h);
    t.h = sinew_alloc(al, n, sizeof *t.h);
    t.pos = sinew_alloc(al, n, sizeof *t.pos);
    sinew_transform *pose = sinew_alloc(al, m->node_count, sizeof *pose);
    sinew_mat4 *world = sinew_alloc(al, m->node_count, sizeof *world);
    uint8_t *reg = sinew_alloc(al, n, 1);
    sinew_result r = SINEW_OK;
    if (!t.parent || !t.first || !t.kids || !t.size || !t.depth || !t.min_h || !t.h || !t.pos ||
        !pose || !world || !reg) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "landmarks: out of memory");
        goto done;
    }
    /* Tree in joint space. Joints are stored parent-before-child in node order, but skin
     * joint order is arbitrary, so depth and subtree sums iterate in node order. */
    for (uint32_t j = 0; j < n; j++) {
        t.parent[j] = rig_parent_joint(m, j);
        t.pos[j] = rig_joint_position(m, j);
        if (t.parent[j] >= 0) t.first[t.parent[j] + 1]++;
    }
    for (uint32_t j = 0; j < n; j++)
        t.first[j + 1] += t.first[j];
    {
        uint32_t *fill = t.size; /* borrowed as a cursor, reset below */
        for (uint32_t j = 0; j < n; j++)
            fill[j] = t.first[j];
        for (uint32_t j = 0; j < n; j++)
            if (t.parent[j] >= 0) t.kids[fill[t.parent[j]]++] = j;
    }
    out->up = find_up(m, pose, world, &t);
    /* Heights along up; the ground is the mesh's lowest point. */
    float ground = FLT_MAX, top = -FLT_MAX;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        float h = sinew_vec3_dot(m->mesh.positions[v], out->up);
        ground = fminf(ground, h);
        top = fmaxf(top, h);
    }
    for (uint32_t j = 0; j < n; j++) {
        t.h[j] = sinew_vec3_dot(t.pos[j], out->up);
        if (m->mesh.vertex_count == 0) {
            ground = fminf(ground, t.h[j]);
            top = fmaxf(top, t.h[j]);
        }
    }
    float span = top - ground;
    if (!(span > 0)) span = 1;
    /* Depth (parents first) and subtree aggregates (children first), in node order. */
    for (uint32_t i = 0; i < m->node_count; i++) {
        int32_t j = m->nodes[i].joint;
        if (j < 0 || (uint32_t)j >= n) continue;
        t.depth[j] = t.parent[j] >= 0 ? t.depth[t.parent[j]] + 1 : 0;
        t.size[j] = 1;
        t.min_h[j] = t.h[j];
    }
    for (uint32_t i = m->node_count; i-- > 0;) {
        int32_t j = m->nodes[i].joint;
        if (j < 0 || (uint32_t)j >= n || t.parent[j] < 0) continue;
        t.size[t.parent[j]] += t.size[j];
        t.min_h[t.parent[j]] = fminf(t.min_h[t.parent[j]], t.min_h[j]);
    }
    /* Legs: a child chain (>= 2 joints) reaching the lowest 35% and dropping >= 20%. */
#define IS_LEG(x, c)                                                                               \
    (t.size[c] >= 2 && t.min_h[c] <= ground + 0.35f * span && t.h[x] - t.min_h[c] >= 0.2f * span)
    int32_t pelvis = -1;
    for (uint32_t x = 0; x < n; x++) {
        uint32_t legs = 0;
        for (uint32_t k = t.first[x]; k < t.first[x + 1]; k++)
            if (IS_LEG(x, t.kids[k])) legs++;
        if (legs < 2) continue;
        if (pelvis < 0 || t.depth[x] < t.depth[pelvis] ||
            (t.depth[x] == t.depth[pelvis] &&
             name_is_pelvis(m->nodes[m->skin.joints[x].node].name) &&
             !name_is_pelvis(m->nodes[m->skin.joints[pelvis].node].name)))
            pelvis = (int32_t)x;
    }
    if (pelvis < 0) { /* no two legs: a name, else the biggest root */
        out->pelvis_by_name = 1;
        for (uint32_t x = 0; x < n && pelvis < 0; x++)
            if (name_is_pelvis(m->nodes[m->skin.joints[x].node].name)) pelvis = (int32_t)x;
        if (pelvis < 0) {
            out->pelvis_by_name = 0;
            for (uint32_t x = 0; x < n; x++)
                if (t.parent[x] < 0 && (pelvis < 0 || t.size[x] > t.size[pelvis]))
                    pelvis = (int32_t)x;
        }
    }
    out->pelvis = pelvis;
    const uint32_t P = (uint32_t)pelvis;
    /* Thighs: the pair of leg children farthest apart across up. */
    int32_t la = -1, lb = -1;
    float best = -1;
    for (uint32_t i = t.first[P]; i < t.first[P + 1]; i++)
        for (uint32_t k = i + 1; k < t.first[P + 1]; k++) {
            uint32_t a = t.kids[i], b = t.kids[k];
            if (!IS_LEG(P, a) || !IS_LEG(P, b)) continue;
            sinew_vec3 d = sinew_vec3_sub(t.pos[b], t.pos[a]);
            d = sinew_vec3_madd(d, out->up, -sinew_vec3_dot(d, out->up));
            float len = sinew_vec3_length(d);
            if (len > best) {
                best = len;
                la = (int32_t)a;
                lb = (int32_t)b;
            }
        }
#undef IS_LEG
    sinew_vec3 lateral = sinew_vec3_make(1, 0, 0);
    if (la >= 0) lateral = sinew_vec3_normalize_or(sinew_vec3_sub(t.pos[lb], t.pos[la]), lateral);
    /* Head: a joint named "head" under the pelvis (not in a leg), else follow the most central
     * child of the biggest non-leg branch to its end. */
    int32_t head = -1;
    for (uint32_t x = 0; x < n; x++) {
        if ((int32_t)x == pelvis || !is_ancestor(&t, P, x)) continue;
        if ((la >= 0 && is_ancestor(&t, (uint32_t)la, x)) ||
            (lb >= 0 && is_ancestor(&t, (uint32_t)lb, x)))
            continue;
        if (name_is_head(m->nodes[m->skin.joints[x].node].name) &&
            (head < 0 || t.depth[x] < t.depth[head]))
            head = (int32_t)x;
    }
    if (head < 0) {
        int32_t main_child = -1;
        for (uint32_t k = t.first[P]; k < t.first[P + 1]; k++) {
            uint32_t c = t.kids[k];
            if ((int32_t)c == la || (int32_t)c == lb) continue;
            if (main_child < 0 || t.size[c] > t.size[main_child]) main_child = (int32_t)c;
        }
        if (main_child >= 0) {
            uint32_t path[256], len = 0;
            int32_t cur = main_child;
            while (cur >= 0 && len < 256) {
                path[len++] = (uint32_t)cur;
                int32_t next = -1;
                float off = FLT_MAX;
                for (uint32_t k = t.first[cur]; k < t.first[cur + 1]; k++) {
                    uint32_t c = t.kids[k];
                    float o = fabsf(sinew_vec3_dot(sinew_vec3_sub(t.pos[c], t.pos[P]), lateral));
                    if (o < off - 1e-4f * span ||
                        (fabsf(o - off) <= 1e-4f * span && next >= 0 && t.size[c] > t.size[next])) {
                        off = o;
                        next = (int32_t)c;
                    }
                }
                cur = next;
            }
            head = (int32_t)(len >= 3 ? path[len - 2] : path[len - 1]);
        }
    }
    out->head = head;
    /* Spine: the path from the pelvis (excluded) up to the head (excluded). */
    if (head >= 0) {
        uint32_t tmp[SINEW_RIG_MAX_SPINE], c = 0;
        for (int32_t p = t.parent[head]; p >= 0 && p != pelvis && c < SINEW_RIG_MAX_SPINE;
             p = t.parent[p])
            tmp[c++] = (uint32_t)p;
        for (uint32_t i = 0; i < c; i++)
            out->spine[i] = (int32_t)tmp[c - 1 - i];
        out->spine_count = c;
    }
    /* Regions. */
    for (uint32_t j = 0; j < n; j++)
        reg[j] = SINEW_RIG_REGION_OTHER;
    for (int32_t p = pelvis; p >= 0; p = t.parent[p])
        reg[p] = SINEW_RIG_REGION_PELVIS;
    for (uint32_t j = 0; j < n; j++) {
        if ((int32_t)j == pelvis || !is_ancestor(&t, P, j)) continue;
        /* The child of the pelvis this joint descends from. */
        uint32_t c = j;
        while (t.parent[c] != pelvis)
            c = (uint32_t)t.parent[c];
        if ((int32_t)c == la || (int32_t)c == lb)
            reg[j] = SINEW_RIG_REGION_LEG;
        else if (head >= 0 && is_ancestor(&t, (uint32_t)head, j))
            reg[j] = SINEW_RIG_REGION_HEAD;
        else if (t.size[c] == 1)
            reg[j] = SINEW_RIG_REGION_PELVIS; /* a helper leaf (Quaternius "Back" on a T-Rex) */
        else
            reg[j] = SINEW_RIG_REGION_LIMB;
    }
    for (uint32_t i = 0; i < out->spine_count; i++)
        reg[out->spine[i]] = SINEW_RIG_REGION_SPINE;
    /* Thigh: leg joints from the pelvis child down to the first long bone's head. */
    int32_t legs[2] = {la, lb};
    for (int s = 0; s < 2; s++) {
        int32_t c = legs[s];
        if (c < 0) continue;
        for (int guard = 0; c >= 0 && guard < 8; guard++) {
            reg[c] = SINEW_RIG_REGION_THIGH;
            out->thigh[s] = c;
            int32_t next = -1;
            for (uint32_t k = t.first[c]; k < t.first[c + 1]; k++)
                if (next < 0 || t.size[t.kids[k]] > t.size[next]) next = (int32_t)t.kids[k];
            if (next < 0 || sinew_vec3_distance(t.pos[next], t.pos[c]) >= 0.08f * span) break;
            c = next;
        }
    }
    if (regions) memcpy(regions, reg, n);
done:
    sinew_free(al, t.parent);
    sinew_free(al, t.first);
    sinew_free(al, t.kids);
    sinew_free(al, t.size);
    sinew_free(al, t.depth);
    sinew_free(al, t.min_h);
    sinew_free(al, t.h);
    sinew_free(al, t.pos);
    sinew_free(al, pose);
    sinew_free(al, world);
    sinew_free(al, reg);
    return r;
}
