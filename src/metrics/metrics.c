/* Weighted bone distance and edge stretch (see sinew/metrics.h). */
#include "sinew/metrics.h"

#include <stdlib.h>
#include <string.h>

sinew_result sinew_metrics_weighted_bone_distance(const sinew_model *model,
                                                  const uint32_t *vertices, uint32_t count,
                                                  float *out, float *mean, sinew_error *err)
{
    const sinew_allocator *a = &model->allocator;
    uint32_t bound = sinew_model_bone_segment_bound(model);
    sinew_bone_segment *segs = sinew_alloc(a, bound, sizeof *segs);
    if (!segs) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "bone segments: out of memory");
    uint32_t nseg = sinew_model_bone_segments(model, 0.05f * model->size.scale, segs);
    double sum = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = vertices ? vertices[i] : i;
        const sinew_vec3 p = model->mesh.positions[v];
        const uint16_t *joints = &model->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        const float *weights = &model->mesh.influence_weights[(size_t)v * SINEW_MAX_INFLUENCES];
        double d = 0;
        for (int k = 0; k < SINEW_MAX_INFLUENCES && weights[k] > 0; k++) {
            float best = INFINITY;
            for (uint32_t s = 0; s < nseg; s++)
                if (segs[s].joint == joints[k])
                    best = fminf(best, sinew_segment_distance(p, segs[s].head, segs[s].tail));
            if (isfinite(best)) d += weights[k] * best;
        }
        if (out) out[i] = (float)d;
        sum += d;
    }
    sinew_free(a, segs);
    if (mean) *mean = count ? (float)(sum / count) : 0.0f;
    return SINEW_OK;
}

static int compare_edges(const void *pa, const void *pb)
{
    const uint32_t *a = pa, *b = pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    if (a[1] != b[1]) return a[1] < b[1] ? -1 : 1;
    return 0;
}

void sinew_metrics_edges_free(sinew_metrics_edges *edges)
{
    if (!edges) return;
    sinew_free(&edges->allocator, edges->pairs);
    memset(edges, 0, sizeof *edges);
}

sinew_result sinew_metrics_unique_edges(const sinew_model *model, sinew_metrics_edges *out,
                                        sinew_error *err)
{
    memset(out, 0, sizeof *out);
    const sinew_mesh *mesh = &model->mesh;
    const sinew_allocator *a = &model->allocator;
    uint32_t *e = sinew_alloc(a, (size_t)mesh->triangle_count * 6, sizeof *e);
    if (!e) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "mesh edges: out of memory");
    uint32_t n = 0;
    for (uint32_t t = 0; t < mesh->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t u = mesh->weld[mesh->triangles[3 * t + k]];
            uint32_t v = mesh->weld[mesh->triangles[3 * t + (k + 1) % 3]];
            if (u == v) continue; /* degenerate after welding */
            e[2 * n] = u < v ? u : v;
            e[2 * n + 1] = u < v ? v : u;
            n++;
        }
    qsort(e, n, 2 * sizeof *e, compare_edges);
    uint32_t unique = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (unique && e[2 * (unique - 1)] == e[2 * i] && e[2 * (unique - 1) + 1] == e[2 * i + 1])
            continue;
        e[2 * unique] = e[2 * i];
        e[2 * unique + 1] = e[2 * i + 1];
        unique++;
    }
    out->pairs = e;
    out->count = unique;
    out->allocator = *a;
    return SINEW_OK;
}

static int compare_floats(const void *pa, const void *pb)
{
    float a = *(const float *)pa, b = *(const float *)pb;
    return (a > b) - (a < b);
}

/* Nearest-rank percentile of sorted values. */
static float percentile(const float *sorted, size_t n, double p)
{
    if (n == 0) return 0;
    size_t rank = (size_t)ceil(p * (double)n);
    if (rank < 1) rank = 1;
    return sorted[rank - 1];
}

static void summarise(float *ratios, size_t n, sinew_stretch_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0) return;
    qsort(ratios, n, sizeof *ratios, compare_floats);
    size_t torn = 0;
    for (size_t i = 0; i < n; i++)
        if (ratios[i] > SINEW_STRETCH_TORN_HIGH || ratios[i] < SINEW_STRETCH_TORN_LOW) torn++;
    out->samples = n;
    out->p95 = percentile(ratios, n, 0.95);
    out->p99 = percentile(ratios, n, 0.99);
    out->min = ratios[0];
    out->max = ratios[n - 1];
    out->torn_share = (float)((double)torn / (double)n);
}

/* Skinned positions at the rest pose and at the moments of a clip, one moment at a time. */
typedef struct skinner {
    const sinew_model *model;
    sinew_transform *pose;
    sinew_mat4 *world, *skin;
    sinew_vec3 *rest, *pos;
} skinner;

static void skinner_free(skinner *s)
{
    const sinew_allocator *a = &s->model->allocator;
    sinew_free(a, s->pose);
    sinew_free(a, s->world);
    sinew_free(a, s->skin);
    sinew_free(a, s->rest);
    sinew_free(a, s->pos);
}

static void skin_pose(skinner *s, sinew_vec3 *out)
{
    sinew_pose_to_world(s->model, s->pose, s->world);
    sinew_skin_matrices(s->model, s->world, s->skin);
    sinew_skin_positions(s->model, s->skin, out);
}

/* Lengths are compared with the mesh skinned at the rest pose, in the same world units as the
 * posed mesh: an armature may scale bind space (the Quaternius T-Rex by 100). */
static sinew_result skinner_init(skinner *s, const sinew_model *model, sinew_error *err)
{
    const sinew_allocator *a = &model->allocator;
    memset(s, 0, sizeof *s);
    s->model = model;
    s->pose = sinew_alloc(a, model->node_count, sizeof *s->pose);
    s->world = sinew_alloc(a, model->node_count, sizeof *s->world);
    s->skin = sinew_alloc(a, model->skin.joint_count, sizeof *s->skin);
    s->rest = sinew_alloc(a, model->mesh.vertex_count, sizeof *s->rest);
    s->pos = sinew_alloc(a, model->mesh.vertex_count, sizeof *s->pos);
    if (!s->pose || !s->world || !s->skin || !s->rest || !s->pos) {
        skinner_free(s);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "edge stretch: out of memory");
    }
    sinew_pose_rest(model, s->pose);
    skin_pose(s, s->rest);
    return SINEW_OK;
}

static void skinner_at(skinner *s, const sinew_clip *clip, uint32_t k, uint32_t samples)
{
    sinew_clip_sample(s->model, clip, clip->duration * (float)k / (float)samples, s->pose);
    skin_pose(s, s->pos);
}

/* Skinned over rest length of edge u-v at the current moment; 0 when it has no rest length. */
static float edge_ratio(const skinner *s, uint32_t u, uint32_t v)
{
    float rest_length = sinew_vec3_distance(s->rest[u], s->rest[v]);
    return rest_length > 0 ? sinew_vec3_distance(s->pos[u], s->pos[v]) / rest_length : 0.0f;
}

sinew_result sinew_metrics_stretch(const sinew_model *model, const sinew_clip *clip,
                                   const sinew_stretch_options *options, const uint8_t *selected,
                                   sinew_stretch_stats *in_selected, sinew_stretch_stats *in_others,
                                   sinew_error *err)
{
    const sinew_allocator *a = &model->allocator;
    const uint32_t samples = options && options->samples ? options->samples : 24;
    sinew_metrics_edges unique;
    sinew_result r = sinew_metrics_unique_edges(model, &unique, err);
    if (r != SINEW_OK) return r;
    const uint32_t *edges = unique.pairs, edge_count = unique.count;
    const size_t total = (size_t)edge_count * samples;
    float *ratios = sinew_alloc(a, total + 1, sizeof *ratios);
    if (!ratios)
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "edge stretch: out of memory");
    else
        r = sinew_metrics_edge_ratios(model, clip, samples, edges, edge_count, ratios, err);
    if (r == SINEW_OK) {
        /* Selected edges (both ends selected) to the front, the others behind; an edge with
         * one end in each counts in neither, so its ratios are dropped (0 = no sample). */
        size_t nsel = 0;
        for (size_t i = 0; i < total; i++) {
            const uint32_t e = (uint32_t)(i % edge_count);
            const int su = selected && selected[edges[2 * e]],
                      sv = selected && selected[edges[2 * e + 1]];
            if (su != sv) {
                ratios[i] = 0.0f;
            } else if (su) {
                float t = ratios[nsel];
                ratios[nsel++] = ratios[i];
                ratios[i] = t;
            }
        }
        if (in_selected) sinew_stretch_summarise(ratios, nsel, in_selected);
        if (in_others) sinew_stretch_summarise(ratios + nsel, total - nsel, in_others);
    }
    sinew_metrics_edges_free(&unique);
    sinew_free(a, ratios);
    return r;
}

sinew_result sinew_metrics_edge_ratios(const sinew_model *model, const sinew_clip *clip,
                                       uint32_t samples, const uint32_t *edges, uint32_t edge_count,
                                       float *out, sinew_error *err)
{
    if (!samples) samples = 24;
    skinner s;
    sinew_result r = skinner_init(&s, model, err);
    if (r != SINEW_OK) return r;
    for (uint32_t k = 0; k < samples; k++) {
        skinner_at(&s, clip, k, samples);
        for (uint32_t e = 0; e < edge_count; e++)
            out[(size_t)k * edge_count + e] = edge_ratio(&s, edges[2 * e], edges[2 * e + 1]);
    }
    skinner_free(&s);
    return SINEW_OK;
}

void sinew_stretch_summarise(float *ratios, size_t count, sinew_stretch_stats *out)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (ratios[i] > 0) ratios[n++] = ratios[i];
    summarise(ratios, n, out);
}

void sinew_metrics_dominated_by(const sinew_model *model, const int32_t *joints,
                                uint32_t joint_count, uint8_t *out)
{
    for (uint32_t v = 0; v < model->mesh.vertex_count; v++) {
        /* Slots are sorted by weight, so slot 0 holds the dominant joint. */
        uint16_t dominant = model->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        out[v] = 0;
        for (uint32_t k = 0; k < joint_count; k++)
            if (joints[k] == dominant) out[v] = 1;
    }
}

/* Depth (a share of the radius) by which a sample must pass its modelled depth to count: the
 * rest pose skinned in float lands within 4e-7 H of the bind pose (the procedural fox), so skin
 * held as modelled differs from its bind depth by about 1e-6 of a radius; a thousandth keeps
 * that noise out and counts any intrusion a player could see. */
#define MODELLED_SLACK 1e-3f

/* How deep inside each capsule each selected vertex was modelled (bind space: the capsule
 * between its nodes' bind positions, its radius as given), 1 - distance / radius where inside,
 * else 0: vertex-major, capsule_count a vertex. NULL when out of memory. A capsule whose ends are
 * not joints has no bind place here and counts nothing as modelled. */
static float *bind_depths(const sinew_model *model, const uint8_t *selected,
                          const sinew_dyn_capsule *capsules, uint32_t capsule_count)
{
    const uint32_t V = model->mesh.vertex_count;
    float *out = sinew_alloc(&model->allocator, (size_t)V * capsule_count + 1, sizeof *out);
    if (!out) return NULL;
    for (uint32_t c = 0; c < capsule_count; c++) {
        const int32_t ja = model->nodes[capsules[c].node_a].joint,
                      jb = model->nodes[capsules[c].node_b].joint;
        const int placed = ja >= 0 && jb >= 0 && (uint32_t)ja < model->skin.joint_count &&
                           (uint32_t)jb < model->skin.joint_count && capsules[c].radius > 0;
        const sinew_vec3 b = placed ? sinew_mat4_translation(&model->skin.joints[jb].bind)
                                    : sinew_vec3_make(0, 0, 0);
        const sinew_vec3 a =
            placed ? sinew_vec3_lerp(sinew_mat4_translation(&model->skin.joints[ja].bind), b,
                                     capsules[c].start)
                   : b;
        for (uint32_t v = 0; v < V; v++) {
            float depth = 0.0f;
            if (placed && selected && selected[v]) {
                const float d = sinew_segment_distance(model->mesh.positions[v], a, b);
                if (d < capsules[c].radius) depth = 1.0f - d / capsules[c].radius;
            }
            out[(size_t)v * capsule_count + c] = depth;
        }
    }
    return out;
}

sinew_result sinew_metrics_capsule_share(const sinew_model *model, const sinew_clip *clip,
                                         uint32_t samples, const uint8_t *selected,
                                         const sinew_dyn_capsule *capsules, uint32_t capsule_count,
                                         sinew_capsule_share *out, sinew_error *err)
{
    memset(out, 0, sizeof *out);
    for (uint32_t c = 0; c < capsule_count; c++)
        if (capsules[c].node_a < 0 || (uint32_t)capsules[c].node_a >= model->node_count ||
            capsules[c].node_b < 0 || (uint32_t)capsules[c].node_b >= model->node_count)
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "capsule share: capsule %u has a node outside 0..%u", c,
                                   model->node_count - 1);
    if (!samples) samples = 24;
    const sinew_allocator *al = &model->allocator;
    /* each capsule at the current moment: its ends and its radius in world units */
    sinew_vec3 *ends = sinew_alloc(al, 2 * (size_t)capsule_count + 1, sizeof *ends);
    float *radius = sinew_alloc(al, (size_t)capsule_count + 1, sizeof *radius);
    float *modelled = bind_depths(model, selected, capsules, capsule_count);
    skinner s;
    sinew_result r = ends && radius && modelled ? skinner_init(&s, model, err)
                                                : sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY,
                                                                  "capsule share: out of memory");
    for (uint32_t k = 0; r == SINEW_OK && k < samples; k++) {
        skinner_at(&s, clip, k, samples);
        for (uint32_t c = 0; c < capsule_count; c++) {
            const int32_t joint = model->nodes[capsules[c].node_a].joint;
            const int skinned = joint >= 0 && (uint32_t)joint < model->skin.joint_count;
            radius[c] =
                capsules[c].radius * (skinned ? sinew_mat4_axis_scale(&s.skin[joint]) : 1.0f);
            ends[2 * c + 1] = sinew_mat4_translation(&s.world[capsules[c].node_b]);
            ends[2 * c] = sinew_vec3_lerp(sinew_mat4_translation(&s.world[capsules[c].node_a]),
                                          ends[2 * c + 1], capsules[c].start);
        }
        for (uint32_t v = 0; v < model->mesh.vertex_count; v++) {
            if (!selected || !selected[v]) continue;
            out->samples++;
            float depth = 0.0f; /* a vertex inside two capsules (at a knee) counts once */
            for (uint32_t c = 0; c < capsule_count; c++) {
                const float d = sinew_segment_distance(s.pos[v], ends[2 * c], ends[2 * c + 1]);
                const float deeper = 1.0f - d / radius[c] - modelled[(size_t)v * capsule_count + c];
                if (deeper > MODELLED_SLACK) depth = fmaxf(depth, deeper);
            }
            if (depth > 0.0f) out->inside++;
            out->deepest = fmaxf(out->deepest, depth);
        }
    }
    if (ends && radius && modelled && r == SINEW_OK) skinner_free(&s);
    sinew_free(al, ends);
    sinew_free(al, radius);
    sinew_free(al, modelled);
    out->share = out->samples ? (float)((double)out->inside / (double)out->samples) : 0.0f;
    return r;
}
