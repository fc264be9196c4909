/* Landmarks: pelvis, spine, thighs and head on any skeleton (docs/appendages.md, "Landmarks").
 *
 * Names lie (Quaternius dinosaurs call the upper torso "Hips" and hang the tail from "Back"),
 * Sketchfab exports call joints "Bone.023_25", and CesiumMan has no names at all, so the
 * topology and the geometry decide; names only break ties and stand in when no joint has two
 * legs:
 *   up      world +Y (glTF's up) carried into bind space by the skinning matrices of the poses
 *           the file plays (its clips, else its own pose), weighted by how much skin each joint
 *           moves, and snapped to a bind-space axis when within 45 degrees of one (bind spaces
 *           are Y-up or, from FBX, Z-up). The rest pose alone is not enough: a Sketchfab
 *           export's inverse bind matrices can put its cat on its back.
 *   leg     a child branch c of a joint x whose skin or joints reach the lowest 35% of the
 *           body, that drops at least 20% of it below x, whose joints drop too (5%), holds at
 *           least two joints, and has no two-legged joint inside it (the torso branch of a
 *           quadruped holds the front legs and is not itself a leg).
 *   pelvis  the shallowest joint with two legs (the joint where the legs branch: Mixamo Hips,
 *           Quaternius Back or Body, Khronos b_Hip_01); when that joint moves no skin (a flat
 *           export's root, every chain hanging from it), the first spine joint that does.
 *   head    a joint named "head" outside every leg, else the end of the most central path
 *           through the biggest branch of the pelvis that is not a leg.
 *   thighs  the pelvis's two legs farthest from the head, side by side (a rat hangs all four
 *           legs from one joint). */
#include "rig_internal.h"

#include <ctype.h>
#include <float.h>
#include <string.h>

/* A joint deforms when it moves some vertex with weight above this: IK targets and pole
 * helpers (Quaternius rigs) carry exactly 0; 0.05 ignores a stray hairline weight. */
#define DEFORM_WEIGHT 0.05f
/* Snap "up" to a bind-space axis within 45 degrees of it (the nearest axis then is the only
 * candidate): measured on the shared models the clip-weighted estimate lies within 12 degrees
 * of the bind space's up axis, except RobotExpressive's at 35 (its clips swing its arms). */
#define UP_SNAP_COS 0.7071f
/* A leg reaches the lowest LEG_REACH of the body height and drops LEG_DROP of it below its
 * branch joint (feet stand on the ground; a crouching rat's hind-leg skin still reaches its
 * lowest 10%). */
#define LEG_REACH 0.35f
#define LEG_DROP 0.20f
/* ... and its joints themselves drop below its top by this much: skin reaches low only as
 * its rigger weighted it, and a template rigger hangs a long tail's skin on the hips (random
 * seed 738, a flat export whose spine chain, hips to head, then reached the floor and passed
 * for a leg: no pelvis, no head, the tail's fur left on a "limb"). Measured over the shared
 * models' legs (the least 0.123 of the height, the UM bunny's thighs) and random creatures
 * 0-899 (the least 0.131, a rigged tail hanging 0.089): that spine chain's joints drop 0.
 * Anything from 0.01 to 0.1 passes the same creatures. */
#define LEG_JOINT_DROP 0.05f

int32_t rig_parent_joint(const sinew_model *m, uint32_t j)
{
    for (int32_t p = m->nodes[m->skin.joints[j].node].parent; p >= 0; p = m->nodes[p].parent)
        if (m->nodes[p].joint >= 0) return m->nodes[p].joint;
    return -1;
}

int rig_name_says_tail(const char *name)
{
    for (const char *p = name; p && p[0]; p++)
        if (tolower((unsigned char)p[0]) == 't' && tolower((unsigned char)p[1]) == 'a' &&
            tolower((unsigned char)p[2]) == 'i' && tolower((unsigned char)p[3]) == 'l')
            return 1;
    return 0;
}

uint32_t rig_mark_deforming(const sinew_model *m, uint8_t *deforms)
{
    const uint32_t n = m->skin.joint_count;
    uint32_t any = 0;
    memset(deforms, 0, n);
    for (size_t s = 0; s < (size_t)m->mesh.vertex_count * SINEW_MAX_INFLUENCES; s++) {
        uint16_t j = m->mesh.influence_joints[s];
        if (m->mesh.influence_weights[s] > DEFORM_WEIGHT && j < n && !deforms[j])
            deforms[j] = 1, any++;
    }
    if (!any) memset(deforms, 1, n); /* no weights at all: every joint is a bone */
    return any ? any : n;
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
 * "b_Hip_01" -> "hip", "head_018" -> "head", "pelvis_jnt" -> "pelvisjnt". */
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
    /* Maya-style suffixes: "pelvis_jnt", "head_joint". */
    static const char *const suffixes[] = {"jnt", "joint", "bind"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && !strcmp(out + n - k, suffixes[i])) out[n - k] = 0;
    }
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
    float *low;  /* lowest height in the subtree: deforming joints and the skin they dominate */
    float *high; /* highest deforming joint in the subtree */
    float *joint_low;       /* lowest deforming joint in the subtree */
    float *h;               /* joint height along up */
    uint8_t *leg_of_parent; /* 1 when the joint is a leg of its parent (see the header) */
    uint8_t *has_two_legs;  /* 1 when the subtree holds a joint with two legs */
    uint32_t *legs;         /* legs of each joint (count of leg children) */
    sinew_vec3 *pos;
} tree;

static int is_ancestor(const tree *t, uint32_t anc, uint32_t j)
{
    for (int32_t p = (int32_t)j; p >= 0; p = t->parent[p])
        if ((uint32_t)p == anc) return 1;
    return 0;
}

/* 1 when j lies inside a leg (some ancestor-or-self is a leg of its parent). */
static int in_leg(const tree *t, uint32_t j)
{
    for (int32_t p = (int32_t)j; p >= 0; p = t->parent[p])
        if (t->leg_of_parent[p]) return 1;
    return 0;
}

/* Adds world +Y seen from every joint's skinning frame at `pose`, weighted by skin moved. */
static sinew_vec3 up_at(const sinew_model *m, const sinew_transform *pose, sinew_mat4 *world,
                        const float *moved, sinew_vec3 sum)
{
    sinew_pose_to_world(m, pose, world);
    for (uint32_t j = 0; j < m->skin.joint_count; j++) {
        if (!(moved[j] > 0)) continue;
        sinew_mat4 skin =
            sinew_mat4_mul(&world[m->skin.joints[j].node], &m->skin.joints[j].inverse_bind);
        sinew_mat4 inv;
        if (!sinew_mat4_invert_affine(&skin, &inv)) continue;
        sinew_vec3 d = sinew_mat4_transform_dir(&inv, sinew_vec3_make(0, 1, 0));
        d = sinew_vec3_normalize_or(d, sinew_vec3_make(0, 0, 0));
        if (isfinite(d.x + d.y + d.z)) sum = sinew_vec3_madd(sum, d, moved[j]);
    }
    return sum;
}

/* World up in bind space (see the header). `moved` is the total skin weight per joint. */
static sinew_vec3 find_up(const sinew_model *m, sinew_transform *pose, sinew_mat4 *world,
                          const float *moved)
{
    const sinew_vec3 fallback = sinew_vec3_make(0, 1, 0);
    enum { MOMENTS = 8 };
    sinew_vec3 sum = sinew_vec3_make(0, 0, 0);
    for (uint32_t c = 0; c < m->clip_count; c++)
        for (int k = 0; k < MOMENTS; k++) {
            sinew_clip_sample(m, &m->clips[c], m->clips[c].duration * (float)k / MOMENTS, pose);
            sum = up_at(m, pose, world, moved, sum);
        }
    if (m->clip_count == 0) {
        sinew_pose_file(m, pose);
        sum = up_at(m, pose, world, moved, sum);
    }
    sinew_vec3 up = sinew_vec3_normalize_or(sum, fallback);
    if (!isfinite(up.x + up.y + up.z)) return fallback;
    const float *c = &up.x;
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (fabsf(c[k]) > fabsf(c[axis])) axis = k;
    if (fabsf(c[axis]) >= UP_SNAP_COS) {
        float snapped[3] = {0, 0, 0};
        snapped[axis] = c[axis] > 0 ? 1.0f : -1.0f;
        up = sinew_vec3_make(snapped[0], snapped[1], snapped[2]);
    }
    return up;
}

/* Legs bottom-up in node order (children after parents, so reverse order sees children
 * first): a child is a leg when it reaches low, drops far enough, has two joints, and holds
 * no two-legged joint. */
static void find_legs(const sinew_model *m, tree *t, float ground, float span)
{
    for (uint32_t i = m->node_count; i-- > 0;) {
        int32_t jj = m->nodes[i].joint;
        if (jj < 0 || (uint32_t)jj >= t->n) continue;
        const uint32_t x = (uint32_t)jj;
        uint32_t legs = 0;
        uint8_t inside = 0;
        for (uint32_t k = t->first[x]; k < t->first[x + 1]; k++) {
            uint32_t c = t->kids[k];
            inside |= t->has_two_legs[c];
            /* The drop counts from the higher of the branch joint and the chain's own first
             * joint: a flat export hangs every chain from a root joint at the ground. */
            const float top = fmaxf(t->h[x], t->h[c]);
            /* ... and it hangs: nothing in it climbs LEG_DROP above its top (a flat export's
             * spine chain, hips to head, reaches as low as a leg with its crotch skin). */
            int leg = t->size[c] >= 2 && t->low[c] <= ground + LEG_REACH * span &&
                      top - t->low[c] >= LEG_DROP * span && t->high[c] - top < LEG_DROP * span &&
                      !t->has_two_legs[c] && top - t->joint_low[c] >= LEG_JOINT_DROP * span;
            t->leg_of_parent[c] = (uint8_t)leg;
            legs += (uint32_t)leg;
        }
        t->legs[x] = legs;
        t->has_two_legs[x] = (uint8_t)(inside || legs >= 2);
    }
}

/* The pelvis's two hind legs: of the pairs of its legs that stand side by side (their roots
 * further apart across the body than along it: a rigged tail hanging to the ground has no
 * partner), the pair farthest from the head; without a head, the pair furthest apart across
 * up. */
static void pick_thighs(const sinew_model *m, const tree *t, uint32_t P, int32_t head,
                        sinew_vec3 up, int32_t *la, int32_t *lb)
{
    *la = *lb = -1;
    sinew_vec3 fwd = sinew_vec3_make(0, 0, 0);
    if (head >= 0) {
        fwd = sinew_vec3_sub(t->pos[head], t->pos[P]);
        fwd = sinew_vec3_normalize_or(sinew_vec3_madd(fwd, up, -sinew_vec3_dot(fwd, up)), fwd);
    }
    float best = -FLT_MAX;
    for (uint32_t i = t->first[P]; i < t->first[P + 1]; i++)
        for (uint32_t k = i + 1; k < t->first[P + 1]; k++) {
            uint32_t a = t->kids[i], b = t->kids[k];
            if (!t->leg_of_parent[a] || !t->leg_of_parent[b]) continue;
            /* A branch named tail is no thigh: a rigged tail down to the floor (a mouse's,
             * after `sinew tail`) reaches as low as a leg and, its root beside a thigh's, would
             * pass for the pair's other leg. */
            if (rig_name_says_tail(m->nodes[m->skin.joints[a].node].name) ||
                rig_name_says_tail(m->nodes[m->skin.joints[b].node].name))
                continue;
            sinew_vec3 d = sinew_vec3_sub(t->pos[b], t->pos[a]);
            d = sinew_vec3_madd(d, up, -sinew_vec3_dot(d, up));
            float along = fabsf(sinew_vec3_dot(d, fwd));
            float across = sinew_vec3_length(sinew_vec3_madd(d, fwd, -sinew_vec3_dot(d, fwd)));
            if (head >= 0 && across <= along) continue;
            float score = across;
            if (head >= 0)
                score = sinew_vec3_distance(t->pos[a], t->pos[head]) +
                        sinew_vec3_distance(t->pos[b], t->pos[head]);
            if (score > best) best = score, *la = (int32_t)a, *lb = (int32_t)b;
        }
}

/* No joint named head: follow the most central child (least lateral offset from the pelvis,
 * the bigger subtree on a tie) of the pelvis's biggest branch that is not a leg, to its end;
 * the head is the last joint on that path that moves skin (the end may be a head-top helper
 * with no weight, Mixamo's HeadTop_End). */
static int32_t head_by_shape(const tree *t, const uint8_t *deforms, uint32_t P, sinew_vec3 lateral,
                             float span)
{
    int32_t main_child = -1;
    for (uint32_t k = t->first[P]; k < t->first[P + 1]; k++) {
        uint32_t c = t->kids[k];
        if (t->leg_of_parent[c]) continue;
        if (main_child < 0 || t->size[c] > t->size[main_child]) main_child = (int32_t)c;
    }
    if (main_child < 0) return -1;
    uint32_t path[256], len = 0;
    int32_t cur = main_child;
    while (cur >= 0 && len < 256) {
        path[len++] = (uint32_t)cur;
        int32_t next = -1;
        float off = FLT_MAX;
        for (uint32_t k = t->first[cur]; k < t->first[cur + 1]; k++) {
            uint32_t c = t->kids[k];
            if (t->leg_of_parent[c]) continue;
            float o = fabsf(sinew_vec3_dot(sinew_vec3_sub(t->pos[c], t->pos[P]), lateral));
            if (o < off - 1e-4f * span ||
                (fabsf(o - off) <= 1e-4f * span && next >= 0 && t->size[c] > t->size[next])) {
                off = o;
                next = (int32_t)c;
            }
        }
        cur = next;
    }
    while (len > 1 && !deforms[path[len - 1]])
        len--;
    return (int32_t)path[len - 1];
}

/* The tree's arrays for n joints; 0 when out of memory (free what was made with tree_free). */
static int tree_alloc(tree *t, const sinew_allocator *al, uint32_t n)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->parent = sinew_alloc(al, n, sizeof *t->parent);
    t->first = sinew_alloc(al, n + 1, sizeof *t->first);
    t->kids = sinew_alloc(al, n, sizeof *t->kids);
    t->size = sinew_alloc(al, n, sizeof *t->size);
    t->depth = sinew_alloc(al, n, sizeof *t->depth);
    t->low = sinew_alloc(al, n, sizeof *t->low);
    t->high = sinew_alloc(al, n, sizeof *t->high);
    t->joint_low = sinew_alloc(al, n, sizeof *t->joint_low);
    t->h = sinew_alloc(al, n, sizeof *t->h);
    t->leg_of_parent = sinew_alloc(al, n, 1);
    t->has_two_legs = sinew_alloc(al, n, 1);
    t->legs = sinew_alloc(al, n, sizeof *t->legs);
    t->pos = sinew_alloc(al, n, sizeof *t->pos);
    return t->parent && t->first && t->kids && t->size && t->depth && t->low && t->high &&
           t->joint_low && t->h && t->leg_of_parent && t->has_two_legs && t->legs && t->pos;
}

static void tree_free(tree *t, const sinew_allocator *al)
{
    void *blocks[] = {t->parent,       t->first, t->kids,      t->size, t->depth,
                      t->low,          t->high,  t->joint_low, t->h,    t->leg_of_parent,
                      t->has_two_legs, t->legs,  t->pos};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        sinew_free(al, blocks[i]);
}

/* Fills the tree in joint space: parents, children, positions, heights along `up`, depth
 * and subtree aggregates. Joints are stored parent-before-child in node order, but skin
 * joint order is arbitrary, so depth and subtree sums iterate in node order. Returns the
 * model's height span along up and sets *ground (the mesh's lowest point, else the lowest
 * joint's). */
static float tree_build(const sinew_model *m, tree *t, const uint8_t *deforms, sinew_vec3 up,
                        float *ground_out)
{
    const uint32_t n = t->n;
    for (uint32_t j = 0; j < n; j++) {
        t->parent[j] = rig_parent_joint(m, j);
        t->pos[j] = rig_joint_position(m, j);
        if (t->parent[j] >= 0) t->first[t->parent[j] + 1]++;
    }
    for (uint32_t j = 0; j < n; j++)
        t->first[j + 1] += t->first[j];
    {
        uint32_t *fill = t->size; /* borrowed as a cursor, reset below */
        for (uint32_t j = 0; j < n; j++)
            fill[j] = t->first[j];
        for (uint32_t j = 0; j < n; j++)
            if (t->parent[j] >= 0) t->kids[fill[t->parent[j]]++] = j;
    }
    /* Heights along up; the ground is the mesh's lowest point. */
    float ground = FLT_MAX, top = -FLT_MAX;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        float h = sinew_vec3_dot(m->mesh.positions[v], up);
        ground = fminf(ground, h);
        top = fmaxf(top, h);
    }
    for (uint32_t j = 0; j < n; j++) {
        t->h[j] = sinew_vec3_dot(t->pos[j], up);
        t->low[j] = deforms[j] ? t->h[j] : FLT_MAX;
        t->high[j] = deforms[j] ? t->h[j] : -FLT_MAX;
        t->joint_low[j] = deforms[j] ? t->h[j] : FLT_MAX;
        if (m->mesh.vertex_count == 0) {
            ground = fminf(ground, t->h[j]);
            top = fmaxf(top, t->h[j]);
        }
    }
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        uint16_t j = m->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        if (j < n) t->low[j] = fminf(t->low[j], sinew_vec3_dot(m->mesh.positions[v], up));
    }
    float span = top - ground;
    if (!(span > 0)) span = 1;
    /* Depth (parents first) and subtree aggregates (children first), in node order. */
    for (uint32_t i = 0; i < m->node_count; i++) {
        int32_t j = m->nodes[i].joint;
        if (j < 0 || (uint32_t)j >= n) continue;
        t->depth[j] = t->parent[j] >= 0 ? t->depth[t->parent[j]] + 1 : 0;
        t->size[j] = 1;
    }
    for (uint32_t i = m->node_count; i-- > 0;) {
        int32_t j = m->nodes[i].joint;
        if (j < 0 || (uint32_t)j >= n || t->parent[j] < 0) continue;
        t->size[t->parent[j]] += t->size[j];
        t->low[t->parent[j]] = fminf(t->low[t->parent[j]], t->low[j]);
        t->high[t->parent[j]] = fmaxf(t->high[t->parent[j]], t->high[j]);
        t->joint_low[t->parent[j]] = fminf(t->joint_low[t->parent[j]], t->joint_low[j]);
    }
    *ground_out = ground;
    return span;
}

/* The pelvis: the shallowest joint with two legs (a pelvis name breaks ties); with no two
 * legs, a joint named as one (*by_name = 1), else the biggest root. */
static int32_t choose_pelvis(const sinew_model *m, const tree *t, int *by_name)
{
    const uint32_t n = t->n;
    int32_t pelvis = -1;
    *by_name = 0;
    for (uint32_t x = 0; x < n; x++) {
        if (t->legs[x] < 2) continue;
        if (pelvis < 0 || t->depth[x] < t->depth[pelvis] ||
            (t->depth[x] == t->depth[pelvis] &&
             name_is_pelvis(m->nodes[m->skin.joints[x].node].name) &&
             !name_is_pelvis(m->nodes[m->skin.joints[pelvis].node].name)))
            pelvis = (int32_t)x;
    }
    if (pelvis >= 0) return pelvis;
    for (uint32_t x = 0; x < n && pelvis < 0; x++)
        if (name_is_pelvis(m->nodes[m->skin.joints[x].node].name)) pelvis = (int32_t)x;
    if (pelvis >= 0) {
        *by_name = 1;
        return pelvis;
    }
    for (uint32_t x = 0; x < n; x++)
        if (t->parent[x] < 0 && (pelvis < 0 || t->size[x] > t->size[pelvis])) pelvis = (int32_t)x;
    return pelvis;
}

/* Every joint's region from the pelvis, head, spine and the two legs' first joints la, lb. */
static void mark_regions(const tree *t, const sinew_rig_landmarks *out, int32_t la, int32_t lb,
                         uint8_t *reg)
{
    const int32_t pelvis = out->pelvis, head = out->head;
    for (uint32_t j = 0; j < t->n; j++)
        reg[j] = SINEW_RIG_REGION_OTHER;
    for (int32_t p = pelvis; p >= 0; p = t->parent[p])
        reg[p] = SINEW_RIG_REGION_PELVIS;
    for (uint32_t j = 0; j < t->n; j++) {
        if ((int32_t)j == pelvis || !is_ancestor(t, (uint32_t)pelvis, j)) continue;
        /* The child of the pelvis this joint descends from. */
        uint32_t c = j;
        while (t->parent[c] != pelvis)
            c = (uint32_t)t->parent[c];
        if ((int32_t)c == la || (int32_t)c == lb)
            reg[j] = SINEW_RIG_REGION_LEG;
        else if (head >= 0 && is_ancestor(t, (uint32_t)head, j))
            reg[j] = SINEW_RIG_REGION_HEAD;
        else if (t->size[c] == 1)
            reg[j] = SINEW_RIG_REGION_PELVIS; /* a helper leaf (Quaternius "Back" on a T-Rex) */
        else
            reg[j] = SINEW_RIG_REGION_LIMB;
    }
    for (uint32_t i = 0; i < out->spine_count; i++)
        reg[out->spine[i]] = SINEW_RIG_REGION_SPINE;
}

/* Thigh: leg joints from the pelvis child down to the first long bone's head. */
static void mark_thighs(const tree *t, int32_t la, int32_t lb, float span, sinew_rig_landmarks *out,
                        uint8_t *reg)
{
    int32_t legs[2] = {la, lb};
    for (int s = 0; s < 2; s++) {
        int32_t c = legs[s];
        if (c < 0) continue;
        for (int guard = 0; c >= 0 && guard < 8; guard++) {
            reg[c] = SINEW_RIG_REGION_THIGH;
            out->thigh[s] = c;
            int32_t next = -1;
            for (uint32_t k = t->first[c]; k < t->first[c + 1]; k++)
                if (next < 0 || t->size[t->kids[k]] > t->size[next]) next = (int32_t)t->kids[k];
            if (next < 0 || sinew_vec3_distance(t->pos[next], t->pos[c]) >= 0.08f * span) break;
            c = next;
        }
    }
}

sinew_result sinew_rig_find_landmarks(const sinew_model *m, sinew_rig_landmarks *out,
                                      uint8_t *regions, sinew_error *err)
{
    memset(out, 0, sizeof *out);
    out->pelvis = out->head = out->thigh[0] = out->thigh[1] = -1;
    out->up = sinew_vec3_make(0, 1, 0);
    const uint32_t n = m->skin.joint_count;
    if (n == 0) return sinew_error_set(err, SINEW_ERR_UNSUPPORTED, "the model has no joints");
    const sinew_allocator *al = &m->allocator;
    tree t;
    int made = tree_alloc(&t, al, n);
    sinew_transform *pose = sinew_alloc(al, m->node_count, sizeof *pose);
    sinew_mat4 *world = sinew_alloc(al, m->node_count, sizeof *world);
    uint8_t *reg = sinew_alloc(al, n, 1);
    uint8_t *deforms = sinew_alloc(al, n, 1);
    float *moved = sinew_alloc(al, n, sizeof *moved);
    sinew_result r = SINEW_OK;
    if (!made || !pose || !world || !reg || !deforms || !moved) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "landmarks: out of memory");
        goto done;
    }
    rig_mark_deforming(m, deforms);
    for (size_t s = 0; s < (size_t)m->mesh.vertex_count * SINEW_MAX_INFLUENCES; s++)
        if (m->mesh.influence_joints[s] < n)
            moved[m->mesh.influence_joints[s]] += m->mesh.influence_weights[s];
    out->up = find_up(m, pose, world, moved);
    float ground;
    const float span = tree_build(m, &t, deforms, out->up, &ground);
    find_legs(m, &t, ground, span);
    const int32_t pelvis = choose_pelvis(m, &t, &out->pelvis_by_name);
    out->pelvis = pelvis;
    const uint32_t P = (uint32_t)pelvis;
    /* Head: named, outside every leg, shallowest; else by shape. */
    int32_t head = -1;
    for (uint32_t x = 0; x < n; x++) {
        if ((int32_t)x == pelvis || !is_ancestor(&t, P, x) || in_leg(&t, x)) continue;
        if (name_is_head(m->nodes[m->skin.joints[x].node].name) &&
            (head < 0 || t.depth[x] < t.depth[head]))
            head = (int32_t)x;
    }
    int32_t la, lb;
    if (head >= 0) {
        pick_thighs(m, &t, P, head, out->up, &la, &lb);
    } else {
        /* The lateral axis orders the path to the head, and the thighs give it. */
        pick_thighs(m, &t, P, -1, out->up, &la, &lb);
        sinew_vec3 lateral = sinew_vec3_make(1, 0, 0);
        if (la >= 0 && lb >= 0)
            lateral = sinew_vec3_normalize_or(sinew_vec3_sub(t.pos[lb], t.pos[la]), lateral);
        head = head_by_shape(&t, deforms, P, lateral, span);
        if (head >= 0) pick_thighs(m, &t, P, head, out->up, &la, &lb);
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
    /* A joint that moves no skin is no pelvis (a flat export's root at the ground, every
     * chain hanging from it): the body's first deforming spine joint is. */
    uint32_t spine_from = 0;
    if (!deforms[P])
        while (spine_from < out->spine_count && !deforms[out->spine[spine_from]])
            spine_from++;
    mark_regions(&t, out, la, lb, reg);
    if (!deforms[P] && spine_from < out->spine_count) {
        out->pelvis = out->spine[spine_from];
        reg[out->pelvis] = SINEW_RIG_REGION_PELVIS;
        out->spine_count -= spine_from + 1;
        memmove(out->spine, out->spine + spine_from + 1, out->spine_count * sizeof out->spine[0]);
    }
    mark_thighs(&t, la, lb, span, out, reg);
    if (regions) memcpy(regions, reg, n);
done:
    tree_free(&t, al);
    sinew_free(al, pose);
    sinew_free(al, world);
    sinew_free(al, reg);
    sinew_free(al, deforms);
    sinew_free(al, moved);
    return r;
}
