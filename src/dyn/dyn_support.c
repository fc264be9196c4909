/* Support samples for body grounding (Sidorkin, "Animating tails the auto-rigger never gave a
 * bone", on the tail that may touch the floor but may not lift the mouse: "the implementation
 * samples the skin grouped by dominant bone, instead of evaluating every vertex in every
 * frame").
 *
 * S is built once: per skin joint, the vertices it dominates (T removed, E split off), and
 * of those only the extreme vertices along a fixed direction set in the bone's bind frame.
 * Why that is enough: under a rigid motion M of the bone, a vertex's world height is
 * e_y . (M p) = (IBM^T d) . p + const with d = the world up axis seen in the bone's frame,
 * so the lowest vertex of the group is the one extreme along -IBM^T d: a vertex of the
 * group's convex hull. Sampling d over the cube-surface directions keeps those hull
 * vertices that are lowest for some orientation of the bone. Per frame only the samples
 * are skinned, with their full LBS, so each sample's height is exact; what sampling can
 * miss is a hull vertex extreme only between two directions, or one that blending near a
 * joint carries lower than its group's rigid motion says (measured in tests/dyn). */
#include "dyn_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DIRECTIONS                                                                             \
    (24 * SINEW_DYN_SUPPORT_MAX_RESOLUTION * SINEW_DYN_SUPPORT_MAX_RESOLUTION + 2)

/* The integer points on the surface of [-n, n]^3 (not normalised: only argmax along each
 * matters, and it does not change with a direction's length). Returns their number. */
static uint32_t cube_directions(int n, sinew_vec3 *out)
{
    uint32_t count = 0;
    for (int x = -n; x <= n; x++)
        for (int y = -n; y <= n; y++)
            for (int z = -n; z <= n; z++) {
                if (x != -n && x != n && y != -n && y != n && z != -n && z != n) continue;
                out[count++] = sinew_vec3_make((float)x, (float)y, (float)z);
            }
    return count;
}

/* Vertices whose skinning is the same map have their lowest point on the hull of their
 * group, whatever that map (LBS with fixed weights is one affine map, and an affine map keeps
 * a point set's hull): so groups are made of vertices with the same dominant joint, the same
 * second joint and a dominant weight in the same band of BAND_WIDTH (rigid vertices, weight
 * >= 0.999, one band of their own). Measured on the shared models: with only rigid/blended
 * bands, a blended vertex that rigid motion would put lowest hid a rigid one that was really
 * lowest (quaternius_TRex Death: 0.33% of the world size off), and the quaternius Character's
 * smooth low-poly skin was 1.0% off at every resolution; grouped by blend, both under 0.13%. */
#define RIGID_WEIGHT 0.999f
#define BAND_WIDTH 0.1f

typedef struct group_key {
    uint32_t key[3]; /* flags (limb contact), second joint + 1 (0: rigid), weight band */
    uint32_t vertex;
} group_key;

static int cmp_keys(const void *a, const void *b)
{
    const group_key *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x->key[i] != y->key[i]) return x->key[i] < y->key[i] ? -1 : 1;
    return (x->vertex > y->vertex) - (x->vertex < y->vertex);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

uint32_t sinew_dyn_support_build(const sinew_model *model, const uint8_t *tail,
                                 const uint8_t *limb_contact,
                                 const sinew_dyn_support_options *options,
                                 sinew_dyn_support_sample *out, uint32_t capacity)
{
    if (!model) return 0;
    const sinew_mesh *m = &model->mesh;
    if (!m->positions || !m->influence_joints || !m->influence_weights) return 0;
    uint32_t n = options && options->resolution ? options->resolution : 6u;
    if (n > SINEW_DYN_SUPPORT_MAX_RESOLUTION) n = SINEW_DYN_SUPPORT_MAX_RESOLUTION;
    group_key *keys = sinew_alloc(&model->allocator, (size_t)m->vertex_count + 1, sizeof *keys);
    if (!keys) return 0;
    sinew_vec3 dir[MAX_DIRECTIONS]; /* ~30 KB of scratch at the largest resolution */
    float best[MAX_DIRECTIONS];
    uint32_t pick[MAX_DIRECTIONS];
    uint32_t dir_count = 0, count = 0;
    for (uint32_t j = 0; j < model->skin.joint_count; j++) {
        /* The joint's vertices, by group. */
        uint32_t nk = 0;
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            const size_t slot = (size_t)v * SINEW_MAX_INFLUENCES;
            const float w0 = m->influence_weights[slot];
            if (m->influence_joints[slot] != j || !(w0 > 0.0f) || (tail && tail[v])) continue;
            const int rigid = w0 >= RIGID_WEIGHT;
            group_key *k = &keys[nk++];
            k->key[0] = limb_contact && limb_contact[v] ? 1u : 0u;
            k->key[1] = rigid ? 0u : (uint32_t)m->influence_joints[slot + 1] + 1u;
            k->key[2] = rigid ? 0u : (uint32_t)(w0 / BAND_WIDTH) + 1u;
            k->vertex = v;
        }
        if (nk == 0) continue;
        qsort(keys, nk, sizeof *keys, cmp_keys);
        /* d in the bone's bind frame is IBM^T d in bind space (columns of IBM dotted with d) */
        const float *ibm = model->skin.joints[j].inverse_bind.m;
        dir_count = cube_directions((int)n, dir);
        for (uint32_t k = 0; k < dir_count; k++) {
            sinew_vec3 d = dir[k];
            dir[k] = sinew_vec3_make(ibm[0] * d.x + ibm[1] * d.y + ibm[2] * d.z,
                                     ibm[4] * d.x + ibm[5] * d.y + ibm[6] * d.z,
                                     ibm[8] * d.x + ibm[9] * d.y + ibm[10] * d.z);
        }
        for (uint32_t g0 = 0; g0 < nk;) {
            uint32_t g1 = g0 + 1;
            while (g1 < nk && !memcmp(keys[g1].key, keys[g0].key, sizeof keys[g0].key))
                g1++;
            for (uint32_t k = 0; k < dir_count; k++) {
                best[k] = -INFINITY;
                pick[k] = UINT32_MAX;
            }
            for (uint32_t i = g0; i < g1; i++) {
                const uint32_t v = keys[i].vertex;
                const sinew_vec3 p = m->positions[v];
                for (uint32_t k = 0; k < dir_count; k++) {
                    /* strict: of vertices at one position (seams) the first is kept */
                    float s = sinew_vec3_dot(dir[k], p);
                    if (s > best[k]) {
                        best[k] = s;
                        pick[k] = v;
                    }
                }
            }
            const uint32_t limb = keys[g0].key[0];
            g0 = g1;
            qsort(pick, dir_count, sizeof pick[0], cmp_u32);
            for (uint32_t k = 0; k < dir_count; k++) {
                if (k > 0 && pick[k] == pick[k - 1]) continue;
                if (count < capacity && out) {
                    const uint32_t v = pick[k];
                    const size_t slot = (size_t)v * SINEW_MAX_INFLUENCES;
                    sinew_dyn_support_sample *smp = &out[count];
                    smp->position = m->positions[v];
                    smp->vertex = v;
                    for (int i = 0; i < SINEW_MAX_INFLUENCES; i++) {
                        smp->joints[i] = m->influence_joints[slot + (size_t)i];
                        smp->weights[i] = m->influence_weights[slot + (size_t)i];
                    }
                    smp->flags = limb ? SINEW_DYN_SUPPORT_LIMB : 0u;
                }
                count++;
            }
        }
    }
    sinew_free(&model->allocator, keys);
    return count;
}

/* The y row of LBS, in the order sinew_skin_positions sums it (same bits for the same
 * matrices when neither contracts to FMA: the build uses -ffp-contract=off here). */
static inline float skinned_y(const sinew_dyn_support_sample *s, const sinew_mat4 *skin)
{
    const sinew_vec3 p = s->position;
    float y = 0;
    for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
        const float w = s->weights[k];
        if (w == 0.0f) break; /* slots are sorted by weight, descending */
        const float *mm = skin[s->joints[k]].m;
        y += w * (mm[1] * p.x + mm[5] * p.y + mm[9] * p.z + mm[13]);
    }
    return y;
}

void sinew_dyn_support_pose(const sinew_dyn_support_sample *samples, uint32_t count,
                            const sinew_mat4 *skin_matrices, sinew_vec3 *out_positions)
{
    for (uint32_t i = 0; i < count; i++) {
        const sinew_dyn_support_sample *s = &samples[i];
        const sinew_vec3 p = s->position;
        float x = 0, y = 0, z = 0;
        for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
            const float w = s->weights[k];
            if (w == 0.0f) break;
            const float *mm = skin_matrices[s->joints[k]].m;
            x += w * (mm[0] * p.x + mm[4] * p.y + mm[8] * p.z + mm[12]);
            y += w * (mm[1] * p.x + mm[5] * p.y + mm[9] * p.z + mm[13]);
            z += w * (mm[2] * p.x + mm[6] * p.y + mm[10] * p.z + mm[14]);
        }
        out_positions[i] = sinew_vec3_make(x, y, z);
    }
}

/* The lowest skinned y over the samples without any of the `skip` flags; +INFINITY when none
 * is left. */
static float lowest_sample_y(const sinew_dyn_support_sample *samples, uint32_t count,
                             const sinew_mat4 *skin_matrices, uint32_t skip)
{
    float lo = INFINITY;
    for (uint32_t i = 0; i < count; i++) {
        if (samples[i].flags & skip) continue;
        float y = skinned_y(&samples[i], skin_matrices);
        if (y < lo) lo = y;
    }
    return lo;
}

float sinew_dyn_support_reference(const sinew_dyn_support_sample *samples, uint32_t count,
                                  const sinew_mat4 *skin_matrices)
{
    return lowest_sample_y(samples, count, skin_matrices, 0u);
}

float sinew_dyn_support_clearance(const sinew_dyn_support_sample *samples, uint32_t count,
                                  const sinew_mat4 *skin_matrices, float reference)
{
    return lowest_sample_y(samples, count, skin_matrices, SINEW_DYN_SUPPORT_LIMB) - reference;
}
