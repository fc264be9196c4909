/* Document edits. Each appends (nodes, accessors, buffer data, channels) or replaces exactly
 * what it changes; accessors are never modified in place, so a primitive sharing an old
 * accessor keeps it. New data goes to one "edit buffer" that the writer repacks; an accessor
 * an edit stops using is released, and the writer drops it when nothing else uses it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/internal.h"

/* Appends `size` bytes (4-byte aligned) to the edit buffer; returns the offset or -1. */
static int64_t append_bytes(sinew_document *doc, const void *data, size_t size)
{
    if (doc->edit_buffer < 0) {
        int32_t b = io_buffer_add(doc);
        if (b < 0) return -1;
        doc->buffers[b] = (io_buffer){NULL, 0, 0};
        cJSON *entry = cJSON_CreateObject();
        if (!cJSON_AddNumberToObject(entry, "byteLength", 0)) {
            cJSON_Delete(entry);
            entry = NULL;
        }
        if (io_append(doc, IO_BUFFERS, entry) < 0) {
            doc->buffer_count--; /* the JSON and the bytes keep one count */
            return -1;
        }
        doc->edit_buffer = b;
    }
    io_buffer *buf = &doc->buffers[doc->edit_buffer];
    size_t off = (buf->size + 3) & ~(size_t)3;
    if (off + size > buf->capacity) {
        size_t cap = buf->capacity ? buf->capacity : 4096;
        while (cap < off + size)
            cap *= 2;
        uint8_t *grown = sinew_realloc(&doc->alloc, buf->data, buf->capacity, cap, 1);
        if (!grown) return -1;
        buf->data = grown;
        buf->capacity = cap;
    }
    memset(buf->data + buf->size, 0, off - buf->size);
    memcpy(buf->data + off, data, size);
    buf->size = off + size;
    /* The entry made above holds a byteLength number: set in place, nothing to allocate. */
    cJSON *length = cJSON_GetObjectItemCaseSensitive(
        io_item(doc, IO_BUFFERS, (uint32_t)doc->edit_buffer), "byteLength");
    cJSON_SetNumberValue(length, (double)buf->size);
    return (int64_t)off;
}

int32_t io_add_view(sinew_document *doc, const void *data, size_t size)
{
    int64_t off = append_bytes(doc, data, size);
    if (off < 0) return -1;
    cJSON *view = cJSON_CreateObject();
    if (!cJSON_AddNumberToObject(view, "buffer", doc->edit_buffer) ||
        !cJSON_AddNumberToObject(view, "byteOffset", (double)off) ||
        !cJSON_AddNumberToObject(view, "byteLength", (double)size)) {
        cJSON_Delete(view);
        view = NULL;
    }
    return io_append(doc, IO_BUFFER_VIEWS, view);
}

int32_t io_add_accessor(sinew_document *doc, const void *data, uint32_t component_type,
                        const char *type, uint32_t count, int normalized, int with_min_max,
                        sinew_error *err)
{
    uint32_t rows, comps = io_type_components(type, &rows);
    uint32_t csize = component_type == IO_FLOAT || component_type == IO_UINT     ? 4
                     : component_type == IO_SHORT || component_type == IO_USHORT ? 2
                                                                                 : 1;
    size_t size = (size_t)count * comps * csize;
    if (count == 0) {
        sinew_error_set(err, SINEW_ERR_ARGUMENT, "%s: an accessor needs at least one element",
                        doc->name);
        return -1;
    }
    int32_t view_index = io_add_view(doc, data, size);
    if (view_index < 0) {
        io_oom(doc, err);
        return -1;
    }
    cJSON *acc = cJSON_CreateObject();
    int ok = cJSON_AddNumberToObject(acc, "bufferView", view_index) &&
             cJSON_AddNumberToObject(acc, "componentType", component_type) &&
             (!normalized || cJSON_AddTrueToObject(acc, "normalized")) &&
             cJSON_AddNumberToObject(acc, "count", count) &&
             cJSON_AddStringToObject(acc, "type", type);
    if (ok && with_min_max && component_type == IO_FLOAT) {
        float lo[16], hi[16];
        const float *f = data;
        for (uint32_t c = 0; c < comps; c++)
            lo[c] = hi[c] = f[c];
        for (uint32_t i = 1; i < count; i++)
            for (uint32_t c = 0; c < comps; c++) {
                float v = f[(size_t)i * comps + c];
                lo[c] = v < lo[c] ? v : lo[c];
                hi[c] = v > hi[c] ? v : hi[c];
            }
        ok = io_add(acc, "min", io_float_array(lo, (int)comps)) &&
             io_add(acc, "max", io_float_array(hi, (int)comps));
    }
    if (!ok) {
        cJSON_Delete(acc);
        acc = NULL;
    }
    int32_t index = io_append(doc, IO_ACCESSORS, acc);
    if (index < 0) io_oom(doc, err);
    return index;
}

/* Releases the accessor obj[key] names, when it names one. */
static void release_member(sinew_document *doc, const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsNumber(v)) io_release_accessor(doc, (int64_t)v->valuedouble);
}

static int all_finite(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

sinew_result sinew_document_add_node(sinew_document *doc, const char *name, int32_t parent_node,
                                     sinew_transform local, int32_t *out_node, sinew_error *err)
{
    if (!doc || !name || !out_node)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_add_node: NULL");
    uint32_t n = io_count(doc, IO_NODES);
    if (parent_node < 0 || (uint32_t)parent_node >= n)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "%s: add node \"%s\": parent node %d does not exist (%u nodes)",
                               doc->name, name, parent_node, n);
    float v[10] = {local.translation.x, local.translation.y, local.translation.z, local.rotation.x,
                   local.rotation.y,    local.rotation.z,    local.rotation.w,    local.scale.x,
                   local.scale.y,       local.scale.z};
    if (!all_finite(v, 10))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "%s: add node \"%s\": transform is not finite", doc->name, name);
    cJSON *node = cJSON_CreateObject();
    int ok = cJSON_AddStringToObject(node, "name", name) &&
             io_add(node, "translation", io_float_array(v, 3)) &&
             io_add(node, "rotation", io_float_array(v + 3, 4)) &&
             io_add(node, "scale", io_float_array(v + 7, 3));
    /* Everything the parent gets is made before the node is appended; after it nothing
     * allocates, so a failure leaves the document as it was. */
    cJSON *parent = io_item(doc, IO_NODES, (uint32_t)parent_node);
    cJSON *children = cJSON_GetObjectItemCaseSensitive(parent, "children");
    cJSON *made = cJSON_IsArray(children) ? NULL : cJSON_CreateArray();
    cJSON *child = cJSON_CreateNumber(n);
    if (!ok || !child || (!made && !cJSON_IsArray(children))) {
        cJSON_Delete(node);
        node = NULL;
    }
    if (io_append(doc, IO_NODES, node) < 0) { /* deletes node */
        cJSON_Delete(made);
        cJSON_Delete(child);
        return io_oom(doc, err);
    }
    io_push(made ? made : children, child);
    if (made) io_put(parent, "children", made);
    *out_node = (int32_t)n;
    return SINEW_OK;
}

sinew_result sinew_document_add_skin_joint(sinew_document *doc, int32_t skin, int32_t node,
                                           const sinew_mat4 *ibm, int32_t *out_joint,
                                           sinew_error *err)
{
    if (!doc || !ibm || !out_joint)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_add_skin_joint: NULL");
    uint32_t skins = io_count(doc, IO_SKINS), nodes = io_count(doc, IO_NODES);
    if (skin < 0 || (uint32_t)skin >= skins || node < 0 || (uint32_t)node >= nodes)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "%s: add joint: skin %d or node %d does not exist", doc->name, skin,
                               node);
    if (!sinew_mat4_is_finite(ibm))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "%s: add joint: inverse bind matrix is not finite", doc->name);
    cJSON *sk = io_item(doc, IO_SKINS, (uint32_t)skin);
    cJSON *joints = cJSON_GetObjectItemCaseSensitive(sk, "joints");
    uint32_t jc = (uint32_t)cJSON_GetArraySize(joints);
    const cJSON *j;
    cJSON_ArrayForEach(j, joints) if ((int32_t)j->valuedouble == node) return sinew_error_set(
        err, SINEW_ERR_ARGUMENT, "%s: node %d is already a joint of skin %d", doc->name, node,
        skin);
    float *m = sinew_alloc(&doc->alloc, (size_t)(jc + 1) * 16, sizeof *m);
    if (!m) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    const cJSON *old = cJSON_GetObjectItemCaseSensitive(sk, "inverseBindMatrices");
    if (old) {
        io_accessor acc;
        sinew_result r = io_accessor_resolve(doc, (uint32_t)old->valuedouble, &acc, err);
        if (r) {
            sinew_free(&doc->alloc, m);
            return r;
        }
        float *all = sinew_alloc(&doc->alloc, (size_t)acc.count * 16, sizeof *all);
        if (!all) {
            sinew_free(&doc->alloc, m);
            return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
        }
        io_accessor_read_float(&acc, all);
        memcpy(m, all, (size_t)jc * 16 * sizeof *m);
        sinew_free(&doc->alloc, all);
    } else {
        sinew_mat4 id = sinew_mat4_identity();
        for (uint32_t k = 0; k < jc; k++)
            memcpy(m + (size_t)k * 16, id.m, sizeof id.m);
    }
    memcpy(m + (size_t)jc * 16, ibm->m, sizeof ibm->m);
    /* The two numbers are made first, so that after the accessor nothing can fail. */
    cJSON *ibm_index = cJSON_CreateNumber(0), *joint = cJSON_CreateNumber(node);
    int32_t acc = ibm_index && joint && io_reserve_released(doc, 1)
                      ? io_add_accessor(doc, m, IO_FLOAT, "MAT4", jc + 1, 0, 0, err)
                      : (io_oom(doc, err), -1);
    sinew_free(&doc->alloc, m);
    if (acc < 0) {
        cJSON_Delete(ibm_index);
        cJSON_Delete(joint);
        return err ? err->code : SINEW_ERR_OUT_OF_MEMORY;
    }
    cJSON_SetNumberValue(ibm_index, acc);
    release_member(doc, sk, "inverseBindMatrices");
    io_put(sk, "inverseBindMatrices", ibm_index);
    io_push(joints, joint);
    *out_joint = (int32_t)jc;
    return SINEW_OK;
}

/* The attributes object of mesh/primitive and its vertex count (POSITION's). */
/* The attributes object of mesh/primitive, after checking that it exists, has POSITION and
 * holds exactly `vertex_count` vertices (what an edit of per-vertex data must match). */
static sinew_result primitive_attrs(sinew_document *doc, int32_t mesh, int32_t primitive,
                                    uint32_t vertex_count, cJSON **attrs, sinew_error *err)
{
    cJSON *prims =
        (cJSON *)io_array(io_item(doc, IO_MESHES, (uint32_t)(mesh < 0 ? 0 : mesh)), "primitives");
    cJSON *prim =
        mesh >= 0 && primitive >= 0 && prims ? cJSON_GetArrayItem(prims, primitive) : NULL;
    *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(*attrs, "POSITION");
    if (!pos)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "%s: mesh %d primitive %d does not exist or has no POSITION",
                               doc->name, mesh, primitive);
    const cJSON *acc = io_item(doc, IO_ACCESSORS, (uint32_t)pos->valuedouble);
    uint32_t vc = (uint32_t)cJSON_GetObjectItemCaseSensitive(acc, "count")->valuedouble;
    if (vc != vertex_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "%s: mesh %d primitive %d has %u vertices, not %u", doc->name, mesh,
                               primitive, vc, vertex_count);
    return SINEW_OK;
}

/* Checks that joint `max_joint` exists in the skin of every node instantiating `mesh`. */
static sinew_result joints_fit_skins(sinew_document *doc, int32_t mesh, uint16_t max_joint,
                                     sinew_error *err)
{
    uint32_t *joint_counts = io_skin_joint_counts(doc);
    if (!joint_counts)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    sinew_result r = SINEW_OK;
    uint32_t nodes = io_count(doc, IO_NODES);
    for (uint32_t i = 0; i < nodes && !r; i++) {
        const cJSON *node = io_item(doc, IO_NODES, i);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(node, "mesh");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(node, "skin");
        if (!m || !s || (int32_t)m->valuedouble != mesh) continue;
        uint32_t jc = joint_counts[(uint32_t)s->valuedouble];
        if (max_joint >= jc)
            r = sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                "%s: mesh %d: joint %u past skin %d's %u joints", doc->name, mesh,
                                max_joint, (int)s->valuedouble, jc);
    }
    sinew_free(&doc->alloc, joint_counts);
    return r;
}

sinew_result sinew_document_set_influences(sinew_document *doc, int32_t mesh, int32_t primitive,
                                           uint32_t vertex_count, const uint16_t *joints,
                                           const float *weights, sinew_error *err)
{
    if (!doc || !joints || !weights)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_set_influences: NULL");
    cJSON *attrs;
    sinew_result r = primitive_attrs(doc, mesh, primitive, vertex_count, &attrs, err);
    if (r != SINEW_OK) return r;
    size_t n = (size_t)vertex_count * SINEW_MAX_INFLUENCES;
    if (!all_finite(weights, n))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE, "%s: weights are not finite",
                               doc->name);
    /* Joints must exist in every skin that instantiates this mesh. */
    uint16_t max_joint = 0;
    int two_sets = 0;
    for (size_t i = 0; i < n; i++) {
        if (joints[i] > max_joint) max_joint = joints[i];
        if (weights[i] != 0.0f && i % SINEW_MAX_INFLUENCES >= 4) two_sets = 1;
    }
    if ((r = joints_fit_skins(doc, mesh, max_joint, err))) return r;
    int sets = two_sets ? 2 : 1;
    int use_u8 = max_joint < 256;
    void *jbuf = sinew_alloc(&doc->alloc, (size_t)vertex_count * 4, use_u8 ? 1 : 2);
    float *wbuf = sinew_alloc(&doc->alloc, (size_t)vertex_count * 4, sizeof *wbuf);
    cJSON *index[4] = {NULL, NULL, NULL, NULL}; /* JOINTS_s and WEIGHTS_s, s = 0, 1 */
    int made = 1;
    for (int k = 0; k < 2 * sets; k++)
        made = (index[k] = cJSON_CreateNumber(0)) != NULL && made;
    r = jbuf && wbuf && made && io_reserve_released(doc, 4) ? SINEW_OK : io_oom(doc, err);
    for (int s = 0; s < sets && !r; s++) {
        for (uint32_t v = 0; v < vertex_count; v++)
            for (int k = 0; k < 4; k++) {
                size_t src = (size_t)v * SINEW_MAX_INFLUENCES + (size_t)s * 4 + (size_t)k;
                size_t dst = (size_t)v * 4 + (size_t)k;
                uint16_t jv = weights[src] != 0.0f ? joints[src] : 0;
                if (use_u8)
                    ((uint8_t *)jbuf)[dst] = (uint8_t)jv;
                else
                    ((uint16_t *)jbuf)[dst] = jv;
                wbuf[dst] = weights[src];
            }
        int32_t ja = io_add_accessor(doc, jbuf, use_u8 ? IO_UBYTE : IO_USHORT, "VEC4", vertex_count,
                                     0, 0, err);
        int32_t wa =
            ja < 0 ? -1 : io_add_accessor(doc, wbuf, IO_FLOAT, "VEC4", vertex_count, 0, 0, err);
        if (wa < 0) {
            r = err ? err->code : SINEW_ERR_OUT_OF_MEMORY;
            break;
        }
        cJSON_SetNumberValue(index[2 * s], ja);
        cJSON_SetNumberValue(index[2 * s + 1], wa);
    }
    /* The attributes change only once every accessor exists, and without allocating: the
     * primitive keeps its old joints and weights whole or gets the new ones whole. What they
     * replace is released for the writer to drop. */
    if (!r) {
        static const char *const keys[4] = {"JOINTS_0", "WEIGHTS_0", "JOINTS_1", "WEIGHTS_1"};
        for (int k = 0; k < 2 * sets; k++) {
            release_member(doc, attrs, keys[k]);
            io_put(attrs, keys[k], index[k]);
            index[k] = NULL;
        }
        if (sets == 1) {
            release_member(doc, attrs, "JOINTS_1");
            release_member(doc, attrs, "WEIGHTS_1");
            cJSON_DeleteItemFromObjectCaseSensitive(attrs, "JOINTS_1");
            cJSON_DeleteItemFromObjectCaseSensitive(attrs, "WEIGHTS_1");
        }
    }
    for (int k = 0; k < 4; k++)
        cJSON_Delete(index[k]);
    sinew_free(&doc->alloc, jbuf);
    sinew_free(&doc->alloc, wbuf);
    return r;
}

sinew_result sinew_document_set_colors(sinew_document *doc, int32_t mesh, int32_t primitive,
                                       uint32_t vertex_count, const float *rgba, sinew_error *err)
{
    if (!doc || !rgba)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_set_colors: NULL");
    cJSON *attrs;
    sinew_result r = primitive_attrs(doc, mesh, primitive, vertex_count, &attrs, err);
    if (r != SINEW_OK) return r;
    if (!all_finite(rgba, (size_t)vertex_count * 4))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE, "%s: colours are not finite",
                               doc->name);
    cJSON *index = cJSON_CreateNumber(0);
    if (!index || !io_reserve_released(doc, 1)) {
        cJSON_Delete(index);
        return io_oom(doc, err);
    }
    int32_t a = io_add_accessor(doc, rgba, IO_FLOAT, "VEC4", vertex_count, 0, 0, err);
    if (a < 0) {
        cJSON_Delete(index);
        return err ? err->code : SINEW_ERR_OUT_OF_MEMORY;
    }
    cJSON_SetNumberValue(index, a);
    release_member(doc, attrs, "COLOR_0");
    io_put(attrs, "COLOR_0", index);
    return SINEW_OK;
}

int32_t io_add_animation(sinew_document *doc, const char *name)
{
    cJSON *anim = cJSON_CreateObject();
    if (!cJSON_AddStringToObject(anim, "name", name) || !cJSON_AddArrayToObject(anim, "channels") ||
        !cJSON_AddArrayToObject(anim, "samplers")) {
        cJSON_Delete(anim);
        anim = NULL;
    }
    return io_append(doc, IO_ANIMATIONS, anim);
}

sinew_result sinew_document_find_animation(sinew_document *doc, const char *name, int create,
                                           int32_t *out_animation, sinew_error *err)
{
    if (!doc || !name || !out_animation)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_find_animation: NULL");
    uint32_t n = io_count(doc, IO_ANIMATIONS);
    for (uint32_t i = 0; i < n; i++)
        if (sinew_document_animation_named(doc, i, name)) {
            *out_animation = (int32_t)i;
            return SINEW_OK;
        }
    if (!create)
        return sinew_error_set(err, SINEW_ERR_NOT_FOUND, "%s: no animation named \"%s\"", doc->name,
                               name);
    if ((*out_animation = io_add_animation(doc, name)) < 0) return io_oom(doc, err);
    return SINEW_OK;
}

static cJSON *animation(sinew_document *doc, int32_t index, sinew_error *err)
{
    cJSON *a = index >= 0 ? (cJSON *)io_item(doc, IO_ANIMATIONS, (uint32_t)index) : NULL;
    if (!a)
        sinew_error_set(err, SINEW_ERR_ARGUMENT, "%s: animation %d does not exist", doc->name,
                        index);
    return a;
}

sinew_result sinew_document_clear_animation(sinew_document *doc, int32_t index, sinew_error *err)
{
    if (!doc)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_clear_animation: NULL");
    cJSON *a = animation(doc, index, err);
    if (!a) return SINEW_ERR_ARGUMENT;
    cJSON *channels = cJSON_CreateArray(), *samplers = cJSON_CreateArray();
    if (!channels || !samplers || !io_reserve_released(doc, 0)) {
        cJSON_Delete(channels);
        cJSON_Delete(samplers);
        return io_oom(doc, err);
    }
    const cJSON *smp;
    cJSON_ArrayForEach(smp, cJSON_GetObjectItemCaseSensitive(a, "samplers"))
    {
        release_member(doc, smp, "input");
        release_member(doc, smp, "output");
    }
    io_put(a, "channels", channels);
    io_put(a, "samplers", samplers);
    return SINEW_OK;
}

sinew_result sinew_document_set_channel(sinew_document *doc, int32_t anim_index, int32_t node,
                                        sinew_path path, sinew_interpolation interpolation,
                                        uint32_t key_count, const float *times, const float *values,
                                        sinew_error *err)
{
    if (!doc || !times || !values)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_set_channel: NULL");
    cJSON *anim = animation(doc, anim_index, err);
    if (!anim) return SINEW_ERR_ARGUMENT;
    static const char *const paths[] = {NULL, "translation", "rotation", "scale"};
    static const char *const interps[] = {NULL, "LINEAR", "STEP", "CUBICSPLINE"};
    if (path <= SINEW_PATH_INVALID || path > SINEW_PATH_SCALE ||
        interpolation <= SINEW_INTERP_INVALID || interpolation > SINEW_INTERP_CUBICSPLINE)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "%s: set channel: bad path or interpolation", doc->name);
    uint32_t nodes = io_count(doc, IO_NODES);
    if (node < 0 || (uint32_t)node >= nodes)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "%s: set channel: node %d does not exist",
                               doc->name, node);
    int cubic = interpolation == SINEW_INTERP_CUBICSPLINE;
    if (key_count < (cubic ? 2u : 1u))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "%s: set channel: %u keys is too few",
                               doc->name, key_count);
    for (uint32_t k = 0; k < key_count; k++)
        if (!isfinite(times[k]) || (k > 0 && !(times[k] > times[k - 1])))
            return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                                   "%s: set channel: key time %u is not finite or not strictly "
                                   "increasing",
                                   doc->name, k);
    uint32_t comps = path == SINEW_PATH_ROTATION ? 4 : 3;
    uint32_t out_count = key_count * (cubic ? 3u : 1u);
    if (!all_finite(values, (size_t)out_count * comps))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE, "%s: set channel: values not finite",
                               doc->name);
    if (!io_reserve_released(doc, 2)) return io_oom(doc, err);
    int32_t in = io_add_accessor(doc, times, IO_FLOAT, "SCALAR", key_count, 0, 1, err);
    int32_t out = in < 0 ? -1
                         : io_add_accessor(doc, values, IO_FLOAT, comps == 4 ? "VEC4" : "VEC3",
                                           out_count, 0, 0, err);
    if (out < 0) return err ? err->code : SINEW_ERR_OUT_OF_MEMORY;
    cJSON *samplers = cJSON_GetObjectItemCaseSensitive(anim, "samplers");
    cJSON *channels = cJSON_GetObjectItemCaseSensitive(anim, "channels");
    cJSON *ch, *found = NULL;
    cJSON_ArrayForEach(ch, channels)
    {
        cJSON *t = cJSON_GetObjectItemCaseSensitive(ch, "target");
        const cJSON *tn = cJSON_GetObjectItemCaseSensitive(t, "node");
        const cJSON *tp = cJSON_GetObjectItemCaseSensitive(t, "path");
        if (cJSON_IsNumber(tn) && (int32_t)tn->valuedouble == node && cJSON_IsString(tp) &&
            !strcmp(tp->valuestring, paths[path]))
            found = ch;
    }
    int32_t si = cJSON_GetArraySize(samplers); /* a new sampler, unless replaced in place */
    if (found) {
        /* Replace the sampler in place when this channel is its only user. */
        int32_t old = (int32_t)cJSON_GetObjectItemCaseSensitive(found, "sampler")->valuedouble;
        int users = 0;
        cJSON_ArrayForEach(ch, channels)
        {
            users += (int32_t)cJSON_GetObjectItemCaseSensitive(ch, "sampler")->valuedouble == old;
        }
        if (users == 1) si = old;
    }
    /* The sampler and the channel (or its new sampler index) are made whole before either
     * goes in, and going in allocates nothing: on failure the animation is as it was. */
    cJSON *smp = cJSON_CreateObject();
    int ok = cJSON_AddNumberToObject(smp, "input", in) &&
             cJSON_AddStringToObject(smp, "interpolation", interps[interpolation]) &&
             cJSON_AddNumberToObject(smp, "output", out);
    cJSON *c = NULL, *sampler_index = NULL;
    if (found) {
        ok = ok && (sampler_index = cJSON_CreateNumber(si));
    } else {
        c = cJSON_CreateObject();
        cJSON *t = NULL;
        ok = ok && cJSON_AddNumberToObject(c, "sampler", si) &&
             (t = cJSON_AddObjectToObject(c, "target")) &&
             cJSON_AddNumberToObject(t, "node", node) &&
             cJSON_AddStringToObject(t, "path", paths[path]);
    }
    if (!ok) {
        cJSON_Delete(smp);
        cJSON_Delete(c);
        cJSON_Delete(sampler_index);
        return io_oom(doc, err);
    }
    if (si < cJSON_GetArraySize(samplers)) {
        const cJSON *was = cJSON_GetArrayItem(samplers, si);
        release_member(doc, was, "input"); /* the writer drops what nothing else uses */
        release_member(doc, was, "output");
        cJSON_ReplaceItemInArray(samplers, si, smp);
    } else
        io_push(samplers, smp);
    if (found)
        io_put(found, "sampler", sampler_index);
    else
        io_push(channels, c);
    return SINEW_OK;
}

sinew_result sinew_document_set_note(sinew_document *doc, const char *key, const char *value,
                                     sinew_error *err)
{
    if (!doc || !key || !value)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_set_note: NULL");
    cJSON *asset = cJSON_GetObjectItemCaseSensitive(doc->root, "asset");
    cJSON *extras = cJSON_GetObjectItemCaseSensitive(asset, "extras");
    if (extras && !cJSON_IsObject(extras))
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "%s: asset.extras is not an object: cannot add a note", doc->name);
    cJSON *note = cJSON_CreateString(value);
    cJSON *sinew = cJSON_GetObjectItemCaseSensitive(extras, "sinew");
    if (cJSON_IsObject(sinew)) return io_set(sinew, key, note) ? SINEW_OK : io_oom(doc, err);
    /* New objects are filled before they go in, which then allocates nothing. */
    cJSON *made = extras ? NULL : cJSON_CreateObject();
    sinew = cJSON_CreateObject();
    if (!io_add(sinew, key, note) || (!extras && !made)) {
        cJSON_Delete(sinew);
        cJSON_Delete(made);
        return io_oom(doc, err);
    }
    io_put(extras ? extras : made, "sinew", sinew);
    if (made) io_put(asset, "extras", made);
    return SINEW_OK;
}

const char *sinew_document_note(const sinew_document *doc, const char *key)
{
    if (!doc || !key) return NULL;
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(doc->root, "asset");
    const cJSON *extras = cJSON_GetObjectItemCaseSensitive(asset, "extras");
    const cJSON *notes = cJSON_GetObjectItemCaseSensitive(extras, "sinew");
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(notes, key));
}

/* Adds `name` to the string array root[key] unless it is there. */
static sinew_result list_extension(sinew_document *doc, const char *key, const char *name,
                                   sinew_error *err)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(doc->root, key);
    if (list && !cJSON_IsArray(list))
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED, "%s: %s is not an array", doc->name,
                               key);
    if (!list) {
        list = cJSON_CreateArray();
        cJSON_AddItemToObject(doc->root, key, list);
    }
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        if (cJSON_IsString(item) && !strcmp(item->valuestring, name)) return SINEW_OK;
    }
    cJSON_AddItemToArray(list, cJSON_CreateString(name));
    return SINEW_OK;
}

sinew_result sinew_document_use_extension(sinew_document *doc, const char *name, sinew_error *err)
{
    if (!doc || !name || !*name)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_use_extension: no name");
    return list_extension(doc, "extensionsUsed", name, err);
}

sinew_result sinew_document_set_extension(sinew_document *doc, const char *name, const char *json,
                                          sinew_error *err)
{
    if (!doc || !name || !*name || !json)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_set_extension: NULL");
    cJSON *value = cJSON_Parse(json);
    if (!cJSON_IsObject(value)) {
        cJSON_Delete(value);
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "%s: extension %s: the value is not a JSON object", doc->name, name);
    }
    cJSON *extensions = cJSON_GetObjectItemCaseSensitive(doc->root, "extensions");
    if (extensions && !cJSON_IsObject(extensions)) {
        cJSON_Delete(value);
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "%s: extensions is not an object: cannot add %s", doc->name, name);
    }
    if (!extensions) {
        extensions = cJSON_CreateObject();
        cJSON_AddItemToObject(doc->root, "extensions", extensions);
    }
    io_set(extensions, name, value);
    return list_extension(doc, "extensionsUsed", name, err);
}

sinew_result sinew_document_set_node_rotation(sinew_document *doc, int32_t node, sinew_quat q,
                                              sinew_error *err)
{
    if (!doc)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_set_node_rotation: NULL");
    cJSON *item = node >= 0 ? io_item(doc, IO_NODES, (uint32_t)node) : NULL;
    if (!item)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "%s: set rotation: node %d does not exist",
                               doc->name, node);
    float v[4] = {q.x, q.y, q.z, q.w};
    if (!all_finite(v, 4))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "%s: set rotation of node %d: not finite", doc->name, node);
    float m[16];
    int present = 0;
    sinew_result r = io_get_floats(doc, "node", item, "matrix", 16, m, &present, err);
    if (r != SINEW_OK) return r;
    if (present) {
        /* TRS and matrix are exclusive in glTF: the matrix gives way to its own T and S. */
        sinew_mat4 a;
        memcpy(a.m, m, sizeof m);
        sinew_transform t = sinew_mat4_decompose(&a);
        float ts[3] = {t.translation.x, t.translation.y, t.translation.z};
        float sc[3] = {t.scale.x, t.scale.y, t.scale.z};
        cJSON_DeleteItemFromObjectCaseSensitive(item, "matrix");
        io_set(item, "translation", io_float_array(ts, 3));
        io_set(item, "scale", io_float_array(sc, 3));
    }
    io_set(item, "rotation", io_float_array(v, 4));
    return SINEW_OK;
}
