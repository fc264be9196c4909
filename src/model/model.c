/* The model: lifetime, size, rest transforms from inverse bind matrices, position welding,
 * look-ups, a clip's key spacing. */
#include "sinew/model.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

void sinew_model_free(sinew_model *model)
{
    if (!model) return;
    const sinew_allocator a = model->allocator;
    for (uint32_t i = 0; i < model->node_count; i++)
        sinew_free(&a, model->nodes[i].name);
    sinew_free(&a, model->nodes);
    sinew_free(&a, model->skin.joints);
    sinew_free(&a, model->mesh.positions);
    sinew_free(&a, model->mesh.triangles);
    sinew_free(&a, model->mesh.influence_joints);
    sinew_free(&a, model->mesh.influence_weights);
    sinew_free(&a, model->mesh.weld);
    sinew_free(&a, model->mesh.ranges);
    for (uint32_t c = 0; c < model->clip_count; c++) {
        sinew_clip *clip = &model->clips[c];
        for (uint32_t k = 0; k < clip->channel_count; k++) {
            sinew_free(&a, clip->channels[k].times);
            sinew_free(&a, clip->channels[k].values);
        }
        sinew_free(&a, clip->channels);
        sinew_free(&a, clip->name);
    }
    sinew_free(&a, model->clips);
    sinew_free(&a, model);
}

/* Box measures of a point set; zeros for an empty set. */
static sinew_size measure(const sinew_vec3 *points, uint32_t count, size_t stride_bytes)
{
    sinew_size s;
    memset(&s, 0, sizeof s);
    if (count == 0) return s;
    sinew_vec3 lo = sinew_vec3_make(FLT_MAX, FLT_MAX, FLT_MAX), hi = sinew_vec3_scale(lo, -1);
    for (uint32_t i = 0; i < count; i++) {
        sinew_vec3 p = *(const sinew_vec3 *)((const char *)points + i * stride_bytes);
        lo = sinew_vec3_make(fminf(lo.x, p.x), fminf(lo.y, p.y), fminf(lo.z, p.z));
        hi = sinew_vec3_make(fmaxf(hi.x, p.x), fmaxf(hi.y, p.y), fmaxf(hi.z, p.z));
    }
    s.min = lo;
    s.max = hi;
    s.height = hi.y - lo.y;
    s.length = fmaxf(hi.x - lo.x, hi.z - lo.z);
    s.diagonal = sinew_vec3_distance(hi, lo);
    s.scale = fmaxf(s.height, s.length);
    return s;
}

sinew_result sinew_model_update_size(sinew_model *model)
{
    const sinew_mesh *mesh = &model->mesh;
    if (mesh->vertex_count)
        model->size = measure(mesh->positions, mesh->vertex_count, sizeof *mesh->positions);
    else if (model->skin.joint_count)
        model->size = measure((const sinew_vec3 *)&model->skin.joints[0].bind.m[12],
                              model->skin.joint_count, sizeof *model->skin.joints);
    else
        model->size = measure(NULL, 0, 0);
    model->world_size = model->size;

    const sinew_allocator *a = &model->allocator;
    sinew_transform *pose = sinew_alloc(a, model->node_count, sizeof *pose);
    sinew_mat4 *world = sinew_alloc(a, model->node_count, sizeof *world);
    sinew_mat4 *skin = sinew_alloc(a, model->skin.joint_count, sizeof *skin);
    sinew_vec3 *posed = sinew_alloc(a, mesh->vertex_count, sizeof *posed);
    int ok = pose && world && skin && posed;
    if (ok) {
        sinew_pose_file(model, pose);
        sinew_pose_to_world(model, pose, world);
        if (mesh->vertex_count) {
            sinew_skin_matrices(model, world, skin);
            sinew_skin_positions(model, skin, posed);
            model->world_size = measure(posed, mesh->vertex_count, sizeof *posed);
        } else if (model->node_count) {
            model->world_size =
                measure((const sinew_vec3 *)&world[0].m[12], model->node_count, sizeof *world);
        }
    }
    sinew_free(a, pose);
    sinew_free(a, world);
    sinew_free(a, skin);
    sinew_free(a, posed);
    return ok ? SINEW_OK : SINEW_ERR_OUT_OF_MEMORY;
}

sinew_result sinew_model_update_rest(sinew_model *model, sinew_error *err)
{
    for (uint32_t j = 0; j < model->skin.joint_count; j++) {
        sinew_joint *joint = &model->skin.joints[j];
        if (!sinew_mat4_invert_affine(&joint->inverse_bind, &joint->bind) &&
            !sinew_mat4_invert(&joint->inverse_bind, &joint->bind))
            return sinew_error_set(
                err, SINEW_ERR_INVALID_VALUE,
                "joint %u (\"%s\"): inverse bind matrix is singular or not finite", j,
                model->nodes[joint->node].name);
    }
    for (uint32_t i = 0; i < model->node_count; i++) {
        sinew_node *node = &model->nodes[i];
        node->rest = node->local;
        if (node->joint < 0 || node->parent < 0) continue;
        const sinew_node *parent = &model->nodes[node->parent];
        if (parent->joint < 0) continue;
        /* L0 = inv(W0_parent) W0: the rest transform recovered from the inverse bind matrices. */
        const sinew_joint *pj = &model->skin.joints[parent->joint];
        sinew_mat4 local = sinew_mat4_mul(&pj->inverse_bind, &model->skin.joints[node->joint].bind);
        node->rest = sinew_mat4_decompose(&local);
    }
    return SINEW_OK;
}

/* Orders vertex indices by position (x, then y, then z). */
static int position_less(const sinew_vec3 *p, uint32_t a, uint32_t b)
{
    if (p[a].x != p[b].x) return p[a].x < p[b].x;
    if (p[a].y != p[b].y) return p[a].y < p[b].y;
    if (p[a].z != p[b].z) return p[a].z < p[b].z;
    return a < b;
}

static void sift_down(uint32_t *heap, uint32_t root, uint32_t count, const sinew_vec3 *p)
{
    for (;;) {
        uint32_t child = 2 * root + 1;
        if (child >= count) return;
        if (child + 1 < count && position_less(p, heap[child], heap[child + 1])) child++;
        if (!position_less(p, heap[root], heap[child])) return;
        uint32_t t = heap[root];
        heap[root] = heap[child];
        heap[child] = t;
        root = child;
    }
}

void sinew_mesh_weld(sinew_mesh *mesh, uint32_t *scratch)
{
    /* Heap sort (in place, no allocation, deterministic), then equal runs share the first
     * (smallest) index, because ties sort by index. */
    const uint32_t n = mesh->vertex_count;
    const sinew_vec3 *p = mesh->positions;
    for (uint32_t i = 0; i < n; i++)
        scratch[i] = i;
    for (uint32_t i = n / 2; i-- > 0;)
        sift_down(scratch, i, n, p);
    for (uint32_t end = n; end-- > 1;) {
        uint32_t t = scratch[0];
        scratch[0] = scratch[end];
        scratch[end] = t;
        sift_down(scratch, 0, end, p);
    }
    uint32_t run_first = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = scratch[i];
        if (i == 0 || p[v].x != p[run_first].x || p[v].y != p[run_first].y ||
            p[v].z != p[run_first].z)
            run_first = v;
        mesh->weld[v] = run_first;
    }
}

int32_t sinew_model_find_node(const sinew_model *model, const char *name)
{
    for (uint32_t i = 0; i < model->node_count; i++)
        if (model->nodes[i].name && !strcmp(model->nodes[i].name, name)) return (int32_t)i;
    return -1;
}

int32_t sinew_model_find_clip(const sinew_model *model, const char *name)
{
    for (uint32_t i = 0; i < model->clip_count; i++)
        if (model->clips[i].name && !strcmp(model->clips[i].name, name)) return (int32_t)i;
    return -1;
}

static int compare_floats(const void *pa, const void *pb)
{
    float a = *(const float *)pa, b = *(const float *)pb;
    return (a > b) - (a < b);
}

float sinew_clip_key_spacing(const sinew_clip *clip, const sinew_allocator *allocator)
{
    size_t n = 0;
    for (uint32_t c = 0; c < clip->channel_count; c++)
        n += clip->channels[c].key_count > 1 ? clip->channels[c].key_count - 1 : 0;
    float *gaps = n ? sinew_alloc(allocator, n, sizeof *gaps) : NULL;
    if (!gaps) return 0.0f;
    size_t k = 0;
    for (uint32_t c = 0; c < clip->channel_count; c++)
        for (uint32_t i = 1; i < clip->channels[c].key_count; i++)
            gaps[k++] = clip->channels[c].times[i] - clip->channels[c].times[i - 1];
    qsort(gaps, n, sizeof *gaps, compare_floats);
    const float median = gaps[n / 2];
    sinew_free(allocator, gaps);
    return median > 0.0f ? median : 0.0f;
}
