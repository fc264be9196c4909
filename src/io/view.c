/* The model view of a validated document: skeleton (skin joints and their ancestors,
 * parent-before-child), skin, concatenated bind-space mesh (of that skin and its copies),
 * clips. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/internal.h"

typedef struct view_ctx {
    const sinew_document *doc;
    sinew_model *model;
    const sinew_allocator *a;
    uint32_t node_total;
    int32_t *parent; /* per document node */
    int32_t *map;    /* document node -> model node, -1 outside the skeleton */
    uint64_t held;   /* bytes of decoded mesh and keys so far (see take_budget) */
    uint64_t file;   /* the file's own binary data (io_binary_bytes), summed once */
} view_ctx;

/* A file can make the model view hold far more than its own size: primitives or channels
 * that share one accessor each get their own decoded copy, and an accessor without a
 * bufferView holds a million elements in no bytes at all. Real files stay near their own
 * size (measured on the 31 shared models, against the whole file: 0.32x to 1.27x, the most
 * the Quaternius rat's many clips with key times shared by every channel); 16x the file's
 * binary data plus 64 MB leaves an order of magnitude of room for quantized meshes and
 * keeps a hostile 4 MB file below 1 GB. */
static sinew_result take_budget(view_ctx *c, uint64_t bytes, const char *what, sinew_error *err)
{
    const uint64_t file = c->file;
    const uint64_t budget = IO_EXPANSION_BUDGET(file);
    c->held += bytes;
    if (c->held <= budget) return SINEW_OK;
    return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                           "%s: %s would make the model view hold %llu MB from %llu KB of binary "
                           "data (at most 16x plus 64 MB): shared or virtual accessors amplify it; "
                           "refused",
                           c->doc->name, what, (unsigned long long)(c->held >> 20),
                           (unsigned long long)(file >> 10));
}

static const cJSON *node_json(const sinew_document *doc, uint32_t i)
{
    return io_item(doc, IO_NODES, i);
}

static int32_t json_int(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? (int32_t)v->valuedouble : -1;
}

/* Triangle count of a primitive the model view uses; 0 for points, lines and skipped ones. */
static uint32_t primitive_triangles(const sinew_document *doc, const cJSON *prim,
                                    uint32_t *vertex_count)
{
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    int32_t pos = json_int(attrs, "POSITION");
    int32_t mode = cJSON_GetObjectItemCaseSensitive(prim, "mode") ? json_int(prim, "mode") : 4;
    *vertex_count = 0;
    if (pos < 0 || mode < 4 || json_int(attrs, "JOINTS_0") < 0 || json_int(attrs, "WEIGHTS_0") < 0)
        return 0;
    const cJSON *acc = io_item(doc, IO_ACCESSORS, (uint32_t)pos);
    *vertex_count = (uint32_t)cJSON_GetObjectItemCaseSensitive(acc, "count")->valuedouble;
    uint32_t n = *vertex_count;
    int32_t ind = json_int(prim, "indices");
    if (ind >= 0)
        n = (uint32_t)cJSON_GetObjectItemCaseSensitive(io_item(doc, IO_ACCESSORS, (uint32_t)ind),
                                                       "count")
                ->valuedouble;
    if (mode == 4) return n / 3;
    return n >= 3 ? n - 2 : 0; /* strip or fan */
}

static sinew_result oom(const view_ctx *c, sinew_error *err)
{
    return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", c->doc->name);
}

/* The skin that skins the most vertices (the first of equals), or -1 without skins; one
 * pass over the nodes, however many skins there are. */
static sinew_result choose_skin(const view_ctx *c, int32_t *out, sinew_error *err)
{
    const sinew_document *doc = c->doc;
    uint32_t skins = io_count(doc, IO_SKINS);
    *out = -1;
    if (!skins) return SINEW_OK;
    uint64_t *vertices = sinew_alloc(c->a, skins, sizeof *vertices);
    if (!vertices) return oom(c, err);
    for (uint32_t i = 0; i < c->node_total; i++) {
        const cJSON *node = node_json(doc, i);
        int32_t skin = json_int(node, "skin"), mesh = json_int(node, "mesh");
        if (skin < 0 || mesh < 0) continue;
        const cJSON *prim;
        cJSON_ArrayForEach(prim, io_array(io_item(doc, IO_MESHES, (uint32_t)mesh), "primitives"))
        {
            uint32_t v;
            if (primitive_triangles(doc, prim, &v)) vertices[skin] += v;
        }
    }
    *out = 0;
    for (uint32_t s = 1; s < skins; s++)
        if (vertices[s] > vertices[*out]) *out = (int32_t)s;
    sinew_free(c->a, vertices);
    return SINEW_OK;
}

/* The skin the options name, or else the one skinning the most vertices. */
static sinew_result pick_skin(const view_ctx *c, const sinew_model_options *options, int32_t *skin,
                              sinew_error *err)
{
    uint32_t skins = io_count(c->doc, IO_SKINS);
    if (options && (options->skin_is_set || options->skin > 0)) {
        *skin = options->skin;
        if (*skin < 0 || (uint32_t)*skin >= skins)
            return sinew_error_set(err, SINEW_ERR_NOT_FOUND,
                                   "%s: skin %d does not exist (%u skins)", c->doc->name, *skin,
                                   skins);
        return SINEW_OK;
    }
    sinew_result r = choose_skin(c, skin, err);
    if (!r && *skin < 0)
        r = sinew_error_set(err, SINEW_ERR_NOT_FOUND,
                            "%s: the file has no skin (sinew needs a skinned mesh)", c->doc->name);
    return r;
}

/* Skin `skin`'s joint count and inverse bind matrices (16 floats per joint, identity when the
 * skin has none) in a fresh array. */
static sinew_result read_ibms(view_ctx *c, int32_t skin, uint32_t *count, float **out,
                              sinew_error *err)
{
    const cJSON *skin_json = io_item(c->doc, IO_SKINS, (uint32_t)skin);
    *count = (uint32_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(skin_json, "joints"));
    *out = sinew_alloc(c->a, (size_t)*count * 16 + 1, sizeof **out);
    if (!*out) return oom(c, err);
    int32_t ibm_index = json_int(skin_json, "inverseBindMatrices");
    if (ibm_index < 0) {
        static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        for (uint32_t k = 0; k < *count; k++)
            memcpy(*out + (size_t)k * 16, identity, sizeof identity);
        return SINEW_OK;
    }
    io_accessor acc; /* validated: at least one matrix per joint */
    sinew_result r = io_accessor_resolve(c->doc, (uint32_t)ibm_index, &acc, err);
    float *all = r ? NULL : sinew_alloc(c->a, (size_t)acc.count * 16, sizeof *all);
    if (!r && !all) r = oom(c, err);
    if (!r) {
        io_accessor_read_float(&acc, all);
        memcpy(*out, all, (size_t)*count * 16 * sizeof *all);
    }
    sinew_free(c->a, all);
    if (r) {
        sinew_free(c->a, *out);
        *out = NULL;
    }
    return r;
}

/* take[s] = 1 for `skin` and every skin equal to it: the same joint nodes in the same order
 * with the same inverse bind matrices. Exporters give each mesh of one character its own copy
 * of the skin (the Quaternius character's four meshes, RobotExpressive's two hands); such
 * copies skin their meshes exactly as the chosen skin would, with the same joint indices, so
 * their primitives join the model's mesh unchanged. Matrices may differ by float rounding of a
 * re-export: entries within 1e-5 relative (of 1 + |entry|) are equal; the copies in the shared
 * models are bit-identical, and a vertex skinned with matrices 1e-5 off moves 1e-5 of its
 * distance from the joint, far below anything measured on the surface. Other skins (other
 * joints or other bind poses) stay out: their indices would mean other joints. */
static sinew_result merge_skins(view_ctx *c, int32_t skin, uint8_t *take, sinew_error *err)
{
    uint32_t skins = io_count(c->doc, IO_SKINS), count, other_count;
    float *ibm = NULL, *other = NULL;
    sinew_result r = read_ibms(c, skin, &count, &ibm, err);
    const cJSON *joints =
        cJSON_GetObjectItemCaseSensitive(io_item(c->doc, IO_SKINS, (uint32_t)skin), "joints");
    for (uint32_t s = 0; s < skins && !r; s++) {
        take[s] = s == (uint32_t)skin;
        if (take[s]) continue;
        const cJSON *oj = cJSON_GetObjectItemCaseSensitive(io_item(c->doc, IO_SKINS, s), "joints");
        if ((uint32_t)cJSON_GetArraySize(oj) != count) continue;
        int same = 1;
        for (const cJSON *a = joints->child, *b = oj->child; a && b && same;
             a = a->next, b = b->next)
            same = a->valuedouble == b->valuedouble;
        if (!same || (r = read_ibms(c, (int32_t)s, &other_count, &other, err))) continue;
        for (size_t i = 0; i < (size_t)count * 16 && same; i++)
            same = fabsf(ibm[i] - other[i]) <= 1e-5f * (1.0f + fabsf(ibm[i]));
        sinew_free(c->a, other);
        other = NULL;
        take[s] = (uint8_t)same;
    }
    sinew_free(c->a, ibm);
    return r;
}

static sinew_result build_skeleton(view_ctx *c, int32_t skin, sinew_error *err)
{
    const sinew_document *doc = c->doc;
    uint32_t n = c->node_total;
    for (uint32_t i = 0; i < n; i++)
        c->parent[i] = -1, c->map[i] = -1;
    for (uint32_t i = 0; i < n; i++) {
        const cJSON *ch;
        cJSON_ArrayForEach(ch, io_array(node_json(doc, i), "children"))
            c->parent[(uint32_t)ch->valuedouble] = (int32_t)i;
    }
    /* Mark joints and every ancestor (map = -2 means "in the set, not placed yet"). */
    const cJSON *joints =
        cJSON_GetObjectItemCaseSensitive(io_item(doc, IO_SKINS, (uint32_t)skin), "joints");
    const cJSON *j;
    cJSON_ArrayForEach(j, joints)
    {
        for (int32_t k = (int32_t)j->valuedouble; k >= 0 && c->map[k] == -1; k = c->parent[k])
            c->map[k] = -2;
    }
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        count += c->map[i] == -2;
    sinew_model *m = c->model;
    m->nodes = sinew_alloc(c->a, count, sizeof *m->nodes);
    uint32_t *stack = sinew_alloc(c->a, count + 1, sizeof *stack);
    if (!m->nodes || !stack) {
        sinew_free(c->a, stack);
        return oom(c, err);
    }
    /* Depth-first from each root in index order, children in file order: parents first. */
    uint32_t placed = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (c->map[r] != -2 || c->parent[r] >= 0) continue;
        uint32_t top = 0;
        stack[top++] = r;
        while (top) {
            uint32_t i = stack[--top];
            c->map[i] = (int32_t)placed;
            sinew_node *node = &m->nodes[placed++];
            m->node_count = placed;
            const cJSON *nj = node_json(doc, i);
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(nj, "name");
            char fallback[32];
            snprintf(fallback, sizeof fallback, "node_%u", i);
            node->name = io_strdup(c->a, cJSON_IsString(name) ? name->valuestring : fallback);
            if (!node->name) {
                sinew_free(c->a, stack);
                return oom(c, err);
            }
            node->parent = c->parent[i] >= 0 ? c->map[c->parent[i]] : -1;
            node->gltf_node = (int32_t)i;
            node->joint = -1;
            sinew_transform t = sinew_transform_identity();
            float v[16];
            int present;
            if (!io_get_floats(doc, "node", nj, "matrix", 16, v, &present, NULL) && present) {
                sinew_mat4 mat;
                memcpy(mat.m, v, sizeof v);
                t = sinew_mat4_decompose(&mat);
            }
            if (!io_get_floats(doc, "node", nj, "translation", 3, v, &present, NULL) && present)
                t.translation = sinew_vec3_make(v[0], v[1], v[2]);
            if (!io_get_floats(doc, "node", nj, "rotation", 4, v, &present, NULL) && present)
                t.rotation = sinew_quat_make(v[0], v[1], v[2], v[3]);
            if (!io_get_floats(doc, "node", nj, "scale", 3, v, &present, NULL) && present)
                t.scale = sinew_vec3_make(v[0], v[1], v[2]);
            node->local = t;
            node->rest = t;
            /* Push the children, then reverse them on the stack so they pop in file order. */
            uint32_t first = top;
            const cJSON *kid;
            cJSON_ArrayForEach(kid, io_array(nj, "children"))
            {
                uint32_t ci = (uint32_t)kid->valuedouble;
                if (c->map[ci] == -2 && top < count) stack[top++] = ci;
            }
            for (uint32_t lo = first, hi = top; hi > lo + 1; lo++, hi--) {
                uint32_t swap = stack[lo];
                stack[lo] = stack[hi - 1];
                stack[hi - 1] = swap;
            }
        }
    }
    sinew_free(c->a, stack);
    /* Skin joints. */
    uint32_t jc = (uint32_t)cJSON_GetArraySize(joints);
    m->skin.gltf_skin = skin;
    m->skin.joints = sinew_alloc(c->a, jc, sizeof *m->skin.joints);
    if (!m->skin.joints) return oom(c, err);
    m->skin.joint_count = jc;
    float *ibm = NULL;
    uint32_t ibm_count;
    sinew_result r = read_ibms(c, skin, &ibm_count, &ibm, err);
    if (r) return r;
    uint32_t k = 0;
    cJSON_ArrayForEach(j, joints)
    {
        sinew_joint *joint = &m->skin.joints[k];
        joint->node = c->map[(uint32_t)j->valuedouble];
        m->nodes[joint->node].joint = (int32_t)k;
        memcpy(joint->inverse_bind.m, ibm + (size_t)k * 16, sizeof joint->inverse_bind.m);
        k++;
    }
    sinew_free(c->a, ibm);
    return SINEW_OK;
}

/* Reads accessor obj[key] of a validated primitive as floats / uints into a fresh array;
 * NULL when absent. */
static void *read_attr(view_ctx *c, const cJSON *attrs, const char *key, int as_float,
                       sinew_error *err, sinew_result *r)
{
    int32_t index = json_int(attrs, key);
    if (index < 0) return NULL;
    io_accessor acc;
    if ((*r = io_accessor_resolve(c->doc, (uint32_t)index, &acc, err))) return NULL;
    void *out = sinew_alloc(c->a, (size_t)acc.count * acc.components, 4);
    if (!out) {
        *r = oom(c, err);
        return NULL;
    }
    if (as_float)
        io_accessor_read_float(&acc, out);
    else
        io_accessor_read_u32(&acc, out);
    return out;
}

static sinew_result add_primitive(view_ctx *c, uint32_t node, int32_t skin, uint32_t mesh,
                                  uint32_t p, const cJSON *prim, sinew_error *err)
{
    sinew_mesh *m = &c->model->mesh;
    sinew_primitive_range *range = &m->ranges[m->range_count];
    uint32_t vcount, tcount = primitive_triangles(c->doc, prim, &vcount);
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    int32_t mode = cJSON_GetObjectItemCaseSensitive(prim, "mode") ? json_int(prim, "mode") : 4;
    sinew_result r = SINEW_OK;
    float *pos = read_attr(c, attrs, "POSITION", 1, err, &r);
    uint32_t *j0 = r ? NULL : read_attr(c, attrs, "JOINTS_0", 0, err, &r);
    float *w0 = r ? NULL : read_attr(c, attrs, "WEIGHTS_0", 1, err, &r);
    uint32_t *j1 = r ? NULL : read_attr(c, attrs, "JOINTS_1", 0, err, &r);
    float *w1 = r ? NULL : read_attr(c, attrs, "WEIGHTS_1", 1, err, &r);
    uint32_t *idx = NULL;
    if (!r && json_int(prim, "indices") >= 0) {
        idx = read_attr(c, prim, "indices", 0, err, &r); /* same reader: prim["indices"] */
    }
    if (!r) {
        uint32_t v0 = m->vertex_count, t0 = m->triangle_count;
        for (uint32_t v = 0; v < vcount; v++) {
            m->positions[v0 + v] = sinew_vec3_make(pos[v * 3], pos[v * 3 + 1], pos[v * 3 + 2]);
            uint16_t js[SINEW_MAX_INFLUENCES];
            float ws[SINEW_MAX_INFLUENCES];
            double sum = 0;
            for (uint32_t s = 0; s < SINEW_MAX_INFLUENCES; s++) {
                const uint32_t *jj = s < 4 ? j0 : j1;
                const float *ww = s < 4 ? w0 : w1;
                uint32_t slot = v * 4 + (s & 3);
                ws[s] = ww && jj ? ww[slot] : 0.0f;
                js[s] = ws[s] > 0.0f ? (uint16_t)jj[slot] : 0;
                sum += ws[s];
            }
            /* Stable insertion sort, weight descending. */
            for (uint32_t s = 1; s < SINEW_MAX_INFLUENCES; s++)
                for (uint32_t t = s; t > 0 && ws[t] > ws[t - 1]; t--) {
                    float fw = ws[t];
                    ws[t] = ws[t - 1];
                    ws[t - 1] = fw;
                    uint16_t fj = js[t];
                    js[t] = js[t - 1];
                    js[t - 1] = fj;
                }
            if (sum <= 0) { /* no weight at all: joint 0 (warned at load) */
                ws[0] = 1.0f;
                js[0] = 0;
                sum = 1.0;
            }
            for (uint32_t s = 0; s < SINEW_MAX_INFLUENCES; s++) {
                m->influence_joints[(size_t)(v0 + v) * SINEW_MAX_INFLUENCES + s] = js[s];
                m->influence_weights[(size_t)(v0 + v) * SINEW_MAX_INFLUENCES + s] =
                    (float)(ws[s] / sum);
            }
        }
        uint32_t *tri = m->triangles + (size_t)t0 * 3;
        for (uint32_t t = 0; t < tcount; t++) {
            uint32_t a, b, d;
            if (mode == 4) {
                a = 3 * t, b = 3 * t + 1, d = 3 * t + 2;
            } else if (mode == 5) { /* strip: keep the winding of even triangles (spec 3.7.2.1) */
                a = t % 2 ? t + 1 : t, b = t % 2 ? t : t + 1, d = t + 2;
            } else { /* fan */
                a = t + 1, b = t + 2, d = 0;
            }
            tri[3 * t] = v0 + (idx ? idx[a] : a);
            tri[3 * t + 1] = v0 + (idx ? idx[b] : b);
            tri[3 * t + 2] = v0 + (idx ? idx[d] : d);
        }
        range->gltf_mesh = (int32_t)mesh;
        range->gltf_primitive = (int32_t)p;
        range->gltf_node = (int32_t)node;
        range->gltf_skin = skin;
        range->first_vertex = v0;
        range->vertex_count = vcount;
        range->first_triangle = t0;
        range->triangle_count = tcount;
        m->vertex_count += vcount;
        m->triangle_count += tcount;
        m->range_count++;
    }
    sinew_free(c->a, pos);
    sinew_free(c->a, j0);
    sinew_free(c->a, w0);
    sinew_free(c->a, j1);
    sinew_free(c->a, w1);
    sinew_free(c->a, idx);
    return r;
}

/* The primitives of every node skinned by `skin` or a skin merged with it (take[]). */
static sinew_result build_mesh(view_ctx *c, int32_t skin, const uint8_t *take, sinew_error *err)
{
    const sinew_document *doc = c->doc;
    uint64_t verts = 0, tris = 0;
    uint32_t prims = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < c->node_total; i++) {
            const cJSON *node = node_json(doc, i);
            int32_t mesh = json_int(node, "mesh"), node_skin = json_int(node, "skin");
            if (node_skin < 0 || !take[node_skin] || mesh < 0) continue;
            uint32_t p = 0;
            const cJSON *prim;
            cJSON_ArrayForEach(prim,
                               io_array(io_item(doc, IO_MESHES, (uint32_t)mesh), "primitives"))
            {
                uint32_t v, t = primitive_triangles(doc, prim, &v);
                if (t && pass == 0) {
                    verts += v, tris += t, prims++;
                } else if (t) {
                    sinew_result r = add_primitive(c, i, node_skin, (uint32_t)mesh, p, prim, err);
                    if (r) return r;
                }
                p++;
            }
        }
        if (pass == 0) {
            if (verts > IO_MAX_MODEL_VERTICES || tris > 4 * (uint64_t)IO_MAX_MODEL_VERTICES)
                return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                                       "%s: skin %d: %llu vertices, %llu triangles: too large "
                                       "for the model view",
                                       doc->name, skin, (unsigned long long)verts,
                                       (unsigned long long)tris);
            /* positions, influences, weld and weld scratch; triangles */
            const uint64_t per_vertex = sizeof(sinew_vec3) +
                                        SINEW_MAX_INFLUENCES * (sizeof(uint16_t) + sizeof(float)) +
                                        2 * sizeof(uint32_t);
            sinew_result r =
                take_budget(c, verts * per_vertex + tris * 3 * sizeof(uint32_t), "the mesh", err);
            if (r) return r;
            sinew_mesh *m = &c->model->mesh;
            m->positions = sinew_alloc(c->a, (size_t)verts, sizeof *m->positions);
            m->triangles = sinew_alloc(c->a, (size_t)tris * 3, sizeof *m->triangles);
            m->influence_joints =
                sinew_alloc(c->a, (size_t)verts * SINEW_MAX_INFLUENCES, sizeof(uint16_t));
            m->influence_weights =
                sinew_alloc(c->a, (size_t)verts * SINEW_MAX_INFLUENCES, sizeof(float));
            m->weld = sinew_alloc(c->a, (size_t)verts, sizeof *m->weld);
            m->ranges = sinew_alloc(c->a, prims, sizeof *m->ranges);
            if (!m->positions || !m->triangles || !m->influence_joints || !m->influence_weights ||
                !m->weld || !m->ranges)
                return oom(c, err);
        }
    }
    sinew_mesh *m = &c->model->mesh;
    uint32_t *scratch = sinew_alloc(c->a, m->vertex_count, sizeof *scratch);
    if (!scratch) return oom(c, err);
    sinew_mesh_weld(m, scratch);
    sinew_free(c->a, scratch);
    return SINEW_OK;
}

/* Reads the channels of a clip whose samplers are sampler[] (validated: indices are in
 * range); channels of nodes outside the skeleton, and weights, are left out. */
static sinew_result read_channels(view_ctx *c, sinew_clip *clip, const cJSON *channels,
                                  const cJSON *const *sampler, sinew_error *err)
{
    const sinew_document *doc = c->doc;
    const cJSON *ch;
    cJSON_ArrayForEach(ch, channels)
    {
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(ch, "target");
        const cJSON *smp = sampler[json_int(ch, "sampler")];
        int32_t in_index = json_int(smp, "input"), out_index = json_int(smp, "output");
        io_accessor in, out;
        sinew_result r;
        if ((r = io_accessor_resolve(doc, (uint32_t)in_index, &in, err)) ||
            (r = io_accessor_resolve(doc, (uint32_t)out_index, &out, err)))
            return r;
        char what[64];
        snprintf(what, sizeof what, "animation %d's keys", clip->gltf_animation);
        if ((r = take_budget(
                 c, ((uint64_t)in.count + (uint64_t)out.count * out.components) * sizeof(float),
                 what, err)))
            return r;
        /* Duration counts every channel, as players do (three.js resetDuration). */
        float *times = sinew_alloc(c->a, in.count, sizeof *times);
        if (!times) return oom(c, err);
        io_accessor_read_float(&in, times);
        if (times[in.count - 1] > clip->duration) clip->duration = times[in.count - 1];
        int32_t node = json_int(target, "node");
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(target, "path");
        sinew_path p = SINEW_PATH_INVALID;
        if (cJSON_IsString(path)) {
            if (!strcmp(path->valuestring, "translation")) p = SINEW_PATH_TRANSLATION;
            if (!strcmp(path->valuestring, "rotation")) p = SINEW_PATH_ROTATION;
            if (!strcmp(path->valuestring, "scale")) p = SINEW_PATH_SCALE;
        }
        if (node < 0 || c->map[node] < 0 || p == SINEW_PATH_INVALID) {
            sinew_free(c->a, times);
            continue;
        }
        float *values = sinew_alloc(c->a, (size_t)out.count * out.components, sizeof *values);
        if (!values) {
            sinew_free(c->a, times);
            return oom(c, err);
        }
        io_accessor_read_float(&out, values);
        const cJSON *interp = cJSON_GetObjectItemCaseSensitive(smp, "interpolation");
        sinew_channel *dst = &clip->channels[clip->channel_count++];
        dst->node = c->map[node];
        dst->path = p;
        dst->interpolation = !cJSON_IsString(interp)                  ? SINEW_INTERP_LINEAR
                             : !strcmp(interp->valuestring, "STEP")   ? SINEW_INTERP_STEP
                             : !strcmp(interp->valuestring, "LINEAR") ? SINEW_INTERP_LINEAR
                                                                      : SINEW_INTERP_CUBICSPLINE;
        dst->key_count = in.count;
        dst->times = times;
        dst->values = values;
    }
    return SINEW_OK;
}

static sinew_result build_clips(view_ctx *c, sinew_error *err)
{
    const sinew_document *doc = c->doc;
    sinew_model *m = c->model;
    uint32_t n = io_count(doc, IO_ANIMATIONS);
    m->clips = sinew_alloc(c->a, n, sizeof *m->clips);
    if (!m->clips) return oom(c, err);
    for (uint32_t an = 0; an < n; an++) {
        const cJSON *anim = io_item(doc, IO_ANIMATIONS, an);
        sinew_clip *clip = &m->clips[an];
        m->clip_count = an + 1;
        clip->gltf_animation = (int32_t)an;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(anim, "name");
        char fallback[32];
        snprintf(fallback, sizeof fallback, IO_UNNAMED_ANIMATION, an);
        clip->name = io_strdup(c->a, cJSON_IsString(name) && *name->valuestring ? name->valuestring
                                                                                : fallback);
        if (!clip->name) return oom(c, err);
        const cJSON *channels = io_array(anim, "channels");
        uint32_t nch = (uint32_t)cJSON_GetArraySize(channels);
        clip->channels = sinew_alloc(c->a, nch, sizeof *clip->channels);
        if (!clip->channels) return oom(c, err);
        uint32_t ns;
        const cJSON **sampler = io_array_items(c->a, io_array(anim, "samplers"), &ns);
        if (!sampler) return oom(c, err);
        sinew_result r = read_channels(c, clip, channels, sampler, err);
        sinew_free(c->a, (void *)sampler);
        if (r) return r;
    }
    return SINEW_OK;
}

sinew_result sinew_model_from_document(const sinew_document *doc,
                                       const sinew_model_options *options, sinew_model **out,
                                       sinew_error *err)
{
    if (out) *out = NULL;
    if (!doc || !out)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_model_from_document: NULL");
    sinew_allocator alloc = {0};
    if (options && options->allocator) alloc = *options->allocator;
    sinew_model *m = sinew_alloc(&alloc, 1, sizeof *m);
    if (!m) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    m->allocator = alloc;
    view_ctx c = {doc, m, &m->allocator, io_count(doc, IO_NODES), NULL, NULL, 0, 0};
    c.file = io_binary_bytes(doc);
    c.parent = sinew_alloc(c.a, c.node_total, sizeof *c.parent);
    c.map = sinew_alloc(c.a, c.node_total, sizeof *c.map);
    sinew_result r = c.parent && c.map ? SINEW_OK : oom(&c, err);
    int32_t skin = -1;
    uint8_t *take = NULL;
    if (!r) r = pick_skin(&c, options, &skin, err);
    if (!r && !(take = sinew_alloc(c.a, io_count(doc, IO_SKINS), sizeof *take))) r = oom(&c, err);
    if (!r) r = merge_skins(&c, skin, take, err);
    if (!r) r = build_skeleton(&c, skin, err);
    if (!r) r = build_mesh(&c, skin, take, err);
    if (!r) r = build_clips(&c, err);
    if (!r) {
        sinew_error inner;
        r = sinew_model_update_rest(m, &inner);
        if (r) sinew_error_set(err, r, "%s: skin %d: %s", doc->name, skin, inner.message);
    }
    sinew_free(c.a, take);
    sinew_free(c.a, c.parent);
    sinew_free(c.a, c.map);
    if (r) {
        sinew_model_free(m);
        return r;
    }
    if (sinew_model_update_size(m)) {
        sinew_model_free(m);
        return io_oom(doc, err);
    }
    *out = m;
    return SINEW_OK;
}
