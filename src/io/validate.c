/* Load-time validation: everything the model view, the edits and the writer read is checked
 * here once, with a message naming the file, the object and its index, so later code never
 * reads out of bounds or meets NaN. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/internal.h"

static const char *const compressed[] = {"KHR_draco_mesh_compression", "EXT_meshopt_compression",
                                         "KHR_meshopt_compression"};

/* Required extensions a file may name and still load (io_extension_is_known). extensionsRequired
 * lists what a client needs to load the file properly (glTF 2.0 spec, "Specifying Extensions"), so
 * a client lacking one refuses the file. sinew reads quantized attributes itself, and the others
 * change only materials, textures, lights or metadata, which sinew never reads and writes back
 * unchanged. Anything else (instancing, animation pointers, vendor extensions) may change the
 * geometry, skin or motion sinew works on. */
static const char *const required_ok[] = {"KHR_mesh_quantization", "KHR_lights_punctual",
                                          "KHR_xmp_json_ld"};
static const char *const required_ok_prefix[] = {"KHR_materials_", "EXT_materials_", "KHR_texture_",
                                                 "EXT_texture_"};

int io_extension_is_known(const char *name)
{
    for (size_t i = 0; i < sizeof required_ok / sizeof required_ok[0]; i++)
        if (!strcmp(name, required_ok[i])) return 1;
    for (size_t i = 0; i < sizeof required_ok_prefix / sizeof required_ok_prefix[0]; i++)
        if (!strncmp(name, required_ok_prefix[i], strlen(required_ok_prefix[i]))) return 1;
    return 0;
}

static sinew_result check_required(const sinew_document *doc, sinew_error *err)
{
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(doc->root, "extensionsRequired");
    const cJSON *e;
    if (req && !cJSON_IsArray(req))
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: extensionsRequired is not an array",
                               doc->name);
    cJSON_ArrayForEach(e, req)
    {
        if (!cJSON_IsString(e))
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: extensionsRequired holds a non-string", doc->name);
        for (size_t i = 0; i < sizeof compressed / sizeof compressed[0]; i++)
            if (!strcmp(e->valuestring, compressed[i]))
                return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                                       "%s: unsupported: %s (decompress the file first, e.g. "
                                       "with gltf-transform)",
                                       doc->name, compressed[i]);
        if (!io_extension_is_known(e->valuestring))
            return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                                   "%s: unsupported: the file requires extension %.64s, which "
                                   "sinew cannot read",
                                   doc->name, e->valuestring);
    }
    return SINEW_OK;
}

sinew_result io_validate_top(sinew_document *doc, sinew_error *err)
{
    const cJSON *root = doc->root;
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(root, "asset");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
    if (!cJSON_IsObject(asset) || !cJSON_IsString(version))
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: missing asset.version", doc->name);
    if (strncmp(version->valuestring, "2.", 2) != 0)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "%s: glTF version \"%.20s\" is not supported (only 2.x)", doc->name,
                               version->valuestring);
    sinew_result r = check_required(doc, err);
    if (r) return r;
    const cJSON *e;
    for (int kind = 0; kind < IO_KIND_COUNT; kind++) {
        const char *key = io_kind_key((io_kind)kind);
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
        if (!a) continue;
        if (!cJSON_IsArray(a))
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: \"%s\" is not an array", doc->name,
                                   key);
        int k = 0;
        cJSON_ArrayForEach(e, a)
        {
            if (!cJSON_IsObject(e))
                return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s[%d] is not an object",
                                       doc->name, key, k);
            k++;
        }
    }
    return SINEW_OK;
}

static sinew_result check_views(sinew_document *doc, sinew_error *err)
{
    uint32_t n = io_count(doc, IO_BUFFER_VIEWS);
    for (uint32_t i = 0; i < n; i++) {
        char ctx[64];
        snprintf(ctx, sizeof ctx, "bufferView %u", i);
        const cJSON *v = io_item(doc, IO_BUFFER_VIEWS, i);
        int32_t buffer;
        uint64_t off, len, stride;
        sinew_result r;
        if ((r = io_get_index(doc, ctx, v, "buffer", "buffer", doc->buffer_count, 1, &buffer,
                              err)) ||
            (r = io_get_uint(doc, ctx, v, "byteOffset", 0, (uint64_t)1 << 40, &off, err)) ||
            (r = io_get_uint(doc, ctx, v, "byteLength", -1, (uint64_t)1 << 40, &len, err)) ||
            (r = io_get_uint(doc, ctx, v, "byteStride", 0, 252, &stride, err)))
            return r;
        if (len == 0)
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: byteLength is 0", doc->name,
                                   ctx);
        if (cJSON_GetObjectItemCaseSensitive(v, "byteStride") && (stride < 4 || stride % 4))
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: byteStride %llu is not a multiple of 4 in [4, 252]",
                                   doc->name, ctx, (unsigned long long)stride);
        if (off + len > doc->buffers[buffer].size)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: range %llu+%llu exceeds buffer %d length %zu",
                                   doc->name, ctx, (unsigned long long)off, (unsigned long long)len,
                                   buffer, doc->buffers[buffer].size);
    }
    return SINEW_OK;
}

/* Resolves the accessor whose index is `v`, a member of an object such as "attributes". */
static sinew_result member_accessor(sinew_document *doc, const char *ctx, const cJSON *v,
                                    io_accessor *acc, sinew_error *err)
{
    int32_t index;
    sinew_result r = io_index_of(doc, ctx, v, "accessor", io_count(doc, IO_ACCESSORS), &index, err);
    return r ? r : io_accessor_resolve(doc, (uint32_t)index, acc, err);
}

/* Resolves accessor obj[key] into *acc; *present = 0 when absent and not required. */
static sinew_result get_accessor(sinew_document *doc, const char *ctx, const cJSON *obj,
                                 const char *key, int required, io_accessor *acc, int *present,
                                 sinew_error *err)
{
    int32_t index;
    *present = 0;
    sinew_result r = io_get_index(doc, ctx, obj, key, "accessor", io_count(doc, IO_ACCESSORS),
                                  required, &index, err);
    if (r || index < 0) return r;
    *present = 1;
    return io_accessor_resolve(doc, (uint32_t)index, acc, err);
}

/* Decodes an accessor to floats and checks every value is finite. */
static sinew_result finite_floats(sinew_document *doc, const char *ctx, const char *what,
                                  const io_accessor *acc, float **out, sinew_error *err)
{
    size_t n = (size_t)acc->count * acc->components;
    float *v = sinew_alloc(&doc->alloc, n, sizeof *v);
    if (!v) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    io_accessor_read_float(acc, v);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) {
            sinew_free(&doc->alloc, v);
            return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                                   "%s: %s: %s (accessor %u) element %zu is not finite", doc->name,
                                   ctx, what, acc->index, i / acc->components);
        }
    if (out)
        *out = v;
    else
        sinew_free(&doc->alloc, v);
    return SINEW_OK;
}

/* A node on a cycle of the hierarchy, or -1. Every node has one parent at most, so walking
 * up from each node finds any cycle; colouring the walks keeps the total linear, however
 * deep the tree (state: 0 unseen, 1 on the current walk, 2 known to reach a root). */
static int32_t node_on_cycle(const int32_t *parent, uint8_t *state, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        int32_t p = (int32_t)i;
        while (p >= 0 && state[p] == 0) {
            state[p] = 1;
            p = parent[p];
        }
        if (p >= 0 && state[p] == 1) return p; /* the walk met itself */
        for (int32_t q = (int32_t)i; q >= 0 && state[q] == 1; q = parent[q])
            state[q] = 2;
    }
    return -1;
}

static sinew_result check_nodes(sinew_document *doc, sinew_error *err)
{
    uint32_t n = io_count(doc, IO_NODES);
    if (!n) return SINEW_OK;
    int32_t *parent = sinew_alloc(&doc->alloc, n, sizeof *parent);
    if (!parent)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    sinew_result r = SINEW_OK;
    for (uint32_t i = 0; i < n; i++)
        parent[i] = -1;
    uint32_t meshes = io_count(doc, IO_MESHES), skins = io_count(doc, IO_SKINS),
             cameras = io_count(doc, IO_CAMERAS);
    for (uint32_t i = 0; i < n && !r; i++) {
        char ctx[64];
        snprintf(ctx, sizeof ctx, "node %u", i);
        const cJSON *node = io_item(doc, IO_NODES, i);
        int32_t idx;
        float m[16];
        int present;
        if ((r = io_get_index(doc, ctx, node, "mesh", "mesh", meshes, 0, &idx, err)) ||
            (r = io_get_index(doc, ctx, node, "skin", "skin", skins, 0, &idx, err)) ||
            (r = io_get_index(doc, ctx, node, "camera", "camera", cameras, 0, &idx, err)) ||
            (r = io_get_floats(doc, ctx, node, "matrix", 16, m, &present, err)) ||
            (r = io_get_floats(doc, ctx, node, "translation", 3, m, &present, err)) ||
            (r = io_get_floats(doc, ctx, node, "rotation", 4, m, &present, err)) ||
            (r = io_get_floats(doc, ctx, node, "scale", 3, m, &present, err)))
            break;
        const cJSON *children = cJSON_GetObjectItemCaseSensitive(node, "children");
        if (children && !cJSON_IsArray(children)) {
            r = sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: children is not an array",
                                doc->name, ctx);
            break;
        }
        const cJSON *c;
        cJSON_ArrayForEach(c, children)
        {
            double v = cJSON_IsNumber(c) ? c->valuedouble : -1.0;
            if (!(v >= 0 && v < n && floor(v) == v)) {
                r = sinew_error_set(err, SINEW_ERR_FORMAT,
                                    "%s: %s: child %g is not a node index (the file has %u)",
                                    doc->name, ctx, v, n);
                break;
            }
            uint32_t ci = (uint32_t)v;
            if (ci == i) {
                r = sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s is its own child (a cycle)",
                                    doc->name, ctx);
                break;
            }
            if (parent[ci] >= 0) {
                r = sinew_error_set(err, SINEW_ERR_FORMAT,
                                    "%s: node %u has two parents: node %d and node %u", doc->name,
                                    ci, parent[ci], i);
                break;
            }
            parent[ci] = (int32_t)i;
        }
    }
    uint8_t *state = r ? NULL : sinew_alloc(&doc->alloc, n, sizeof *state);
    if (!r && !state)
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    int32_t looped = r ? -1 : node_on_cycle(parent, state, n);
    if (looped >= 0)
        r = sinew_error_set(err, SINEW_ERR_FORMAT, "%s: node %d: the node hierarchy has a cycle",
                            doc->name, looped);
    sinew_free(&doc->alloc, state);
    sinew_free(&doc->alloc, parent);
    return r;
}

static sinew_result check_scenes(sinew_document *doc, sinew_error *err)
{
    uint32_t n = io_count(doc, IO_SCENES), nodes = io_count(doc, IO_NODES);
    int32_t idx;
    sinew_result r = io_get_index(doc, "root", doc->root, "scene", "scene", n, 0, &idx, err);
    for (uint32_t i = 0; i < n && !r; i++) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(io_item(doc, IO_SCENES, i), "nodes");
        const cJSON *c;
        if (!cJSON_IsArray(list)) list = NULL;
        cJSON_ArrayForEach(c, list)
        {
            double v = cJSON_IsNumber(c) ? c->valuedouble : -1.0;
            if (!(v >= 0 && v < nodes && floor(v) == v))
                return sinew_error_set(err, SINEW_ERR_FORMAT,
                                       "%s: scene %u: %g is not a node index (the file has %u)",
                                       doc->name, i, v, nodes);
        }
    }
    return r;
}

/* Checks skin `i`'s joint list. joint_of[node] is -1 for every node on entry and on return;
 * in between it holds the node's position in the list, so a repeat is found in one pass. */
static sinew_result check_joints(sinew_document *doc, const char *ctx, const cJSON *joints,
                                 int32_t *joint_of, sinew_error *err)
{
    uint32_t nodes = io_count(doc, IO_NODES), j = 0;
    sinew_result r = SINEW_OK;
    const cJSON *c;
    cJSON_ArrayForEach(c, joints)
    {
        double v = cJSON_IsNumber(c) ? c->valuedouble : -1.0;
        if (!(v >= 0 && v < nodes && floor(v) == v)) {
            r = sinew_error_set(err, SINEW_ERR_FORMAT,
                                "%s: %s: joint %u is not a node index (the file has %u)", doc->name,
                                ctx, j, nodes);
            break;
        }
        uint32_t node = (uint32_t)v;
        if (joint_of[node] >= 0) {
            r = sinew_error_set(err, SINEW_ERR_FORMAT,
                                "%s: %s: node %u is listed twice (joints %d and %u)", doc->name,
                                ctx, node, joint_of[node], j);
            break;
        }
        joint_of[node] = (int32_t)j++;
    }
    /* Undo the marks set so far: exactly the first j entries are valid, unique nodes. */
    uint32_t k = 0;
    cJSON_ArrayForEach(c, joints)
    {
        if (k++ == j) break;
        joint_of[(uint32_t)c->valuedouble] = -1;
    }
    return r;
}

static sinew_result check_skin(sinew_document *doc, uint32_t i, int32_t *joint_of, sinew_error *err)
{
    char ctx[64];
    snprintf(ctx, sizeof ctx, "skin %u", i);
    const cJSON *skin = io_item(doc, IO_SKINS, i);
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(skin, "joints");
    int32_t idx;
    sinew_result r =
        io_get_index(doc, ctx, skin, "skeleton", "node", io_count(doc, IO_NODES), 0, &idx, err);
    if (r) return r;
    if (!cJSON_IsArray(joints) || cJSON_GetArraySize(joints) == 0)
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: joints is missing or empty",
                               doc->name, ctx);
    uint32_t jc = (uint32_t)cJSON_GetArraySize(joints);
    if (jc > 65535)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "%s: %s: %u joints (sinew handles at most 65535)", doc->name, ctx,
                               jc);
    if ((r = check_joints(doc, ctx, joints, joint_of, err))) return r;
    io_accessor acc;
    int present;
    if ((r = get_accessor(doc, ctx, skin, "inverseBindMatrices", 0, &acc, &present, err))) return r;
    if (!present) return SINEW_OK;
    if (acc.components != 16 || acc.rows != 4 || acc.component_type != IO_FLOAT)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: inverseBindMatrices (accessor %u) must be float MAT4",
                               doc->name, ctx, acc.index);
    if (acc.count < jc)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: inverseBindMatrices (accessor %u) holds %u matrices "
                               "for %u joints",
                               doc->name, ctx, acc.index, acc.count, jc);
    return finite_floats(doc, ctx, "inverseBindMatrices", &acc, NULL, err);
}

static sinew_result check_skins(sinew_document *doc, sinew_error *err)
{
    uint32_t n = io_count(doc, IO_SKINS), nodes = io_count(doc, IO_NODES);
    if (!n) return SINEW_OK;
    int32_t *joint_of = sinew_alloc(&doc->alloc, nodes, sizeof *joint_of);
    if (!joint_of)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    for (uint32_t i = 0; i < nodes; i++)
        joint_of[i] = -1;
    sinew_result r = SINEW_OK;
    for (uint32_t i = 0; i < n && !r; i++)
        r = check_skin(doc, i, joint_of, err);
    sinew_free(&doc->alloc, joint_of);
    return r;
}

static int attr_is(const char *name, const char *prefix, int set)
{
    char want[32];
    snprintf(want, sizeof want, "%s_%d", prefix, set);
    return !strcmp(name, want);
}

static sinew_result check_primitive(sinew_document *doc, uint32_t m, uint32_t p, const cJSON *prim,
                                    sinew_error *err)
{
    char ctx[64];
    snprintf(ctx, sizeof ctx, "mesh %u primitive %u", m, p);
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    if (!cJSON_IsObject(attrs))
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: attributes missing", doc->name, ctx);
    uint64_t mode;
    sinew_result r = io_get_uint(doc, ctx, prim, "mode", 4, 6, &mode, err);
    if (r) return r;
    io_accessor pos, acc;
    int has_pos, present;
    if ((r = get_accessor(doc, ctx, attrs, "POSITION", 0, &pos, &has_pos, err))) return r;
    const cJSON *a;
    uint32_t vcount = has_pos ? pos.count : 0;
    int first = !has_pos;
    cJSON_ArrayForEach(a, attrs)
    {
        if ((r = member_accessor(doc, ctx, a, &acc, err))) return r;
        if (first) vcount = acc.count, first = 0;
        if (acc.count != vcount)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: attribute %s has %u elements, POSITION has %u",
                                   doc->name, ctx, a->string, acc.count, vcount);
        for (int s = 0; s < 2; s++) {
            if (attr_is(a->string, "JOINTS", s) &&
                (acc.components != 4 || acc.rows != 4 ||
                 (acc.component_type != IO_UBYTE && acc.component_type != IO_USHORT)))
                return sinew_error_set(err, SINEW_ERR_FORMAT,
                                       "%s: %s: %s must be VEC4 of unsigned byte or short",
                                       doc->name, ctx, a->string);
            if (attr_is(a->string, "WEIGHTS", s) &&
                (acc.components != 4 || acc.rows != 4 ||
                 !(acc.component_type == IO_FLOAT ||
                   (acc.normalized &&
                    (acc.component_type == IO_UBYTE || acc.component_type == IO_USHORT)))))
                return sinew_error_set(err, SINEW_ERR_FORMAT,
                                       "%s: %s: %s must be VEC4 of float or normalized "
                                       "unsigned byte/short",
                                       doc->name, ctx, a->string);
        }
    }
    if (has_pos) {
        if (pos.components != 3 || pos.rows != 3 || pos.component_type == IO_UINT)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: POSITION (accessor %u) must be VEC3 of float, or of "
                                   "(normalized) byte/short under KHR_mesh_quantization",
                                   doc->name, ctx, pos.index);
        if ((r = finite_floats(doc, ctx, "POSITION", &pos, NULL, err))) return r;
    }
    if ((r = get_accessor(doc, ctx, prim, "indices", 0, &acc, &present, err))) return r;
    if (present) {
        if (acc.components != 1 ||
            (acc.component_type != IO_UBYTE && acc.component_type != IO_USHORT &&
             acc.component_type != IO_UINT))
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: indices (accessor %u) must be unsigned SCALAR",
                                   doc->name, ctx, acc.index);
        uint32_t *idx = sinew_alloc(&doc->alloc, acc.count, sizeof *idx);
        if (!idx)
            return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
        io_accessor_read_u32(&acc, idx);
        for (uint32_t i = 0; i < acc.count; i++)
            if (idx[i] >= vcount) {
                r = sinew_error_set(err, SINEW_ERR_FORMAT,
                                    "%s: %s: index %u is %u, past the vertex count %u", doc->name,
                                    ctx, i, idx[i], vcount);
                break;
            }
        sinew_free(&doc->alloc, idx);
        if (r) return r;
    }
    if (mode < 4) {
        static const char *const names[] = {"points", "lines", "line loop", "line strip"};
        io_warn(doc, "%s: %s: %s primitive ignored by the model view", doc->name, ctx, names[mode]);
    }
    /* Weights' values (NaN, negative, off a sum of 1) are repaired after validation. */
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(prim, "targets");
    if (targets && !cJSON_IsArray(targets))
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: targets is not an array", doc->name,
                               ctx);
    const cJSON *t;
    cJSON_ArrayForEach(t, targets)
    {
        cJSON_ArrayForEach(a, t)
        {
            if ((r = member_accessor(doc, ctx, a, &acc, err))) return r;
            if (acc.count != vcount)
                return sinew_error_set(err, SINEW_ERR_FORMAT,
                                       "%s: %s: morph target %s has %u elements for %u vertices",
                                       doc->name, ctx, a->string, acc.count, vcount);
        }
    }
    return SINEW_OK;
}

/* Checks that the JOINTS of every primitive a node skins index that node's skin.
 * passed[accessor] is the smallest joint count an accessor passed for (0: not yet checked);
 * joint_counts[skin] is each skin's. */
static sinew_result check_skinned_joints(sinew_document *doc, uint32_t *passed,
                                         const uint32_t *joint_counts, sinew_error *err)
{
    uint32_t nodes = io_count(doc, IO_NODES);
    for (uint32_t i = 0; i < nodes; i++) {
        const cJSON *node = io_item(doc, IO_NODES, i);
        const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(node, "mesh");
        const cJSON *skin = cJSON_GetObjectItemCaseSensitive(node, "skin");
        if (!mesh || !skin) continue;
        uint32_t jc = joint_counts[(uint32_t)skin->valuedouble];
        const cJSON *prims =
            io_array(io_item(doc, IO_MESHES, (uint32_t)mesh->valuedouble), "primitives");
        uint32_t p = 0;
        const cJSON *prim;
        cJSON_ArrayForEach(prim, prims)
        {
            const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
            if (!cJSON_GetObjectItemCaseSensitive(attrs, "JOINTS_0") ||
                !cJSON_GetObjectItemCaseSensitive(attrs, "WEIGHTS_0") ||
                !cJSON_GetObjectItemCaseSensitive(attrs, "POSITION"))
                io_warn(doc,
                        "%s: mesh %u primitive %u: skinned by node %u but lacks POSITION, "
                        "JOINTS_0 or WEIGHTS_0: left out of the model view",
                        doc->name, (uint32_t)mesh->valuedouble, p, i);
            for (int s = 0; s < 2; s++) {
                char key[16];
                snprintf(key, sizeof key, "JOINTS_%d", s);
                const cJSON *ji = cJSON_GetObjectItemCaseSensitive(attrs, key);
                if (!ji) continue;
                uint32_t ai = (uint32_t)ji->valuedouble;
                /* Passing for a smaller joint count implies passing for this one: each
                 * accessor is decoded once however many nodes share the mesh. */
                if (passed[ai] && passed[ai] <= jc) continue;
                io_accessor acc;
                sinew_result r = io_accessor_resolve(doc, ai, &acc, err);
                if (r) return r;
                uint32_t *j = sinew_alloc(&doc->alloc, (size_t)acc.count * 4, sizeof *j);
                if (!j)
                    return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory",
                                           doc->name);
                io_accessor_read_u32(&acc, j);
                for (size_t k = 0; k < (size_t)acc.count * 4 && !r; k++)
                    if (j[k] >= jc)
                        r = sinew_error_set(err, SINEW_ERR_FORMAT,
                                            "%s: mesh %u primitive %u: %s of vertex %zu is joint "
                                            "%u, but skin %d of node %u has %u joints",
                                            doc->name, (uint32_t)mesh->valuedouble, p, key, k / 4,
                                            j[k], (int)skin->valuedouble, i, jc);
                sinew_free(&doc->alloc, j);
                if (r) return r;
                passed[ai] = jc;
            }
            p++;
        }
    }
    return SINEW_OK;
}

static sinew_result check_meshes(sinew_document *doc, sinew_error *err)
{
    uint32_t n = io_count(doc, IO_MESHES);
    for (uint32_t m = 0; m < n; m++) {
        const cJSON *prims = io_array(io_item(doc, IO_MESHES, m), "primitives");
        if (!prims || cJSON_GetArraySize(prims) == 0)
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: mesh %u: no primitives", doc->name,
                                   m);
        uint32_t p = 0;
        const cJSON *prim;
        cJSON_ArrayForEach(prim, prims)
        {
            if (!cJSON_IsObject(prim))
                return sinew_error_set(err, SINEW_ERR_FORMAT,
                                       "%s: mesh %u primitive %u is not an object", doc->name, m,
                                       p);
            sinew_result r = check_primitive(doc, m, p++, prim, err);
            if (r) return r;
        }
    }
    /* JOINTS must index the skin of every node that instantiates the mesh with a skin. */
    uint32_t *passed = sinew_alloc(&doc->alloc, io_count(doc, IO_ACCESSORS), sizeof *passed);
    uint32_t *joint_counts = io_skin_joint_counts(doc);
    sinew_result r = passed && joint_counts ? check_skinned_joints(doc, passed, joint_counts, err)
                                            : sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY,
                                                              "%s: out of memory", doc->name);
    sinew_free(&doc->alloc, passed);
    sinew_free(&doc->alloc, joint_counts);
    return r;
}

static sinew_result check_samplers(sinew_document *doc, uint32_t an, const cJSON *samplers,
                                   sinew_error *err)
{
    uint32_t s = 0;
    const cJSON *smp;
    sinew_result r;
    cJSON_ArrayForEach(smp, samplers)
    {
        char ctx[80];
        snprintf(ctx, sizeof ctx, "animation %u sampler %u", an, s++);
        io_accessor in, out;
        int present;
        if ((r = get_accessor(doc, ctx, smp, "input", 1, &in, &present, err)) ||
            (r = get_accessor(doc, ctx, smp, "output", 1, &out, &present, err)))
            return r;
        const cJSON *interp = cJSON_GetObjectItemCaseSensitive(smp, "interpolation");
        if (interp && (!cJSON_IsString(interp) || (strcmp(interp->valuestring, "LINEAR") &&
                                                   strcmp(interp->valuestring, "STEP") &&
                                                   strcmp(interp->valuestring, "CUBICSPLINE"))))
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: unknown interpolation",
                                   doc->name, ctx);
        if (in.components != 1 || in.component_type != IO_FLOAT)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: input (accessor %u) must be float SCALAR", doc->name,
                                   ctx, in.index);
        float *t;
        if ((r = finite_floats(doc, ctx, "key time", &in, &t, err))) return r;
        for (uint32_t k = 1; k < in.count && !r; k++)
            if (!(t[k] > t[k - 1]))
                r = sinew_error_set(err, SINEW_ERR_FORMAT,
                                    "%s: %s: key times not strictly increasing at key %u "
                                    "(%g after %g)",
                                    doc->name, ctx, k, (double)t[k], (double)t[k - 1]);
        sinew_free(&doc->alloc, t);
        if (r) return r;
        if ((r = finite_floats(doc, ctx, "output", &out, NULL, err))) return r;
    }
    return SINEW_OK;
}

/* Channels of animation `an`, whose samplers (already checked) are sampler[0..ns). */
static sinew_result check_channels(sinew_document *doc, uint32_t an, const cJSON *channels,
                                   const cJSON *const *sampler, uint32_t ns, sinew_error *err)
{
    uint32_t nodes = io_count(doc, IO_NODES), c = 0;
    const cJSON *ch;
    sinew_result r;
    cJSON_ArrayForEach(ch, channels)
    {
        char ctx[80];
        snprintf(ctx, sizeof ctx, "animation %u channel %u", an, c++);
        int32_t si, node;
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(ch, "target");
        if ((r = io_get_index(doc, ctx, ch, "sampler", "sampler", ns, 1, &si, err))) return r;
        if (!cJSON_IsObject(target))
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: target missing", doc->name, ctx);
        if ((r = io_get_index(doc, ctx, target, "node", "node", nodes, 0, &node, err))) return r;
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(target, "path");
        if (!cJSON_IsString(path))
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: target.path missing", doc->name,
                                   ctx);
        uint32_t comps = !strcmp(path->valuestring, "rotation")      ? 4
                         : !strcmp(path->valuestring, "translation") ? 3
                         : !strcmp(path->valuestring, "scale")       ? 3
                                                                     : 0;
        if (!comps) continue; /* weights and extension paths pass through */
        const cJSON *smp = sampler[si];
        io_accessor in, out;
        io_accessor_resolve(
            doc, (uint32_t)cJSON_GetObjectItemCaseSensitive(smp, "input")->valuedouble, &in, err);
        io_accessor_resolve(
            doc, (uint32_t)cJSON_GetObjectItemCaseSensitive(smp, "output")->valuedouble, &out, err);
        const cJSON *interp = cJSON_GetObjectItemCaseSensitive(smp, "interpolation");
        int cubic = interp && !strcmp(interp->valuestring, "CUBICSPLINE");
        uint64_t want = cubic ? 3ull * in.count : in.count;
        if (out.components != comps)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: %s output (accessor %u) has %u components, needs %u",
                                   doc->name, ctx, path->valuestring, out.index, out.components,
                                   comps);
        if (out.count != want || (cubic && in.count < 2))
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: output (accessor %u) has %u values for %u keys%s",
                                   doc->name, ctx, out.index, out.count, in.count,
                                   cubic ? " (CUBICSPLINE needs 3 per key, 2+ keys)" : "");
    }
    return SINEW_OK;
}

static sinew_result check_animations(sinew_document *doc, sinew_error *err)
{
    uint32_t n = io_count(doc, IO_ANIMATIONS);
    for (uint32_t an = 0; an < n; an++) {
        const cJSON *anim = io_item(doc, IO_ANIMATIONS, an);
        const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(anim, "samplers");
        const cJSON *channels = cJSON_GetObjectItemCaseSensitive(anim, "channels");
        if (!cJSON_IsArray(samplers) || !cJSON_IsArray(channels))
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: animation %u: channels or samplers missing", doc->name, an);
        sinew_result r = check_samplers(doc, an, samplers, err);
        if (r) return r;
        uint32_t ns;
        const cJSON **sampler = io_array_items(&doc->alloc, samplers, &ns);
        r = sampler ? check_channels(doc, an, channels, sampler, ns, err)
                    : sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
        sinew_free(&doc->alloc, (void *)sampler);
        if (r) return r;
    }
    return SINEW_OK;
}

static void check_images(sinew_document *doc)
{
    uint32_t n = io_count(doc, IO_IMAGES);
    for (uint32_t i = 0; i < n; i++) {
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(io_item(doc, IO_IMAGES, i), "uri");
        if (cJSON_IsString(uri) && strncmp(uri->valuestring, "data:", 5) != 0)
            io_warn(doc, "%s: image %u: external file '%s' is kept as a reference, not copied",
                    doc->name, i, uri->valuestring);
    }
}

sinew_result io_validate(sinew_document *doc, sinew_error *err)
{
    sinew_result r;
    if ((r = check_views(doc, err))) return r;
    uint32_t n = io_count(doc, IO_ACCESSORS);
    for (uint32_t i = 0; i < n; i++) {
        io_accessor acc;
        if ((r = io_accessor_resolve(doc, i, &acc, err))) return r;
    }
    uint32_t views = io_count(doc, IO_BUFFER_VIEWS), images = io_count(doc, IO_IMAGES);
    for (uint32_t i = 0; i < images; i++) {
        int32_t v;
        char ctx[32];
        snprintf(ctx, sizeof ctx, "image %u", i);
        if ((r = io_get_index(doc, ctx, io_item(doc, IO_IMAGES, i), "bufferView", "bufferView",
                              views, 0, &v, err)))
            return r;
    }
    if ((r = check_nodes(doc, err)) || (r = check_scenes(doc, err)) ||
        (r = check_skins(doc, err)) || (r = check_meshes(doc, err)) ||
        (r = check_animations(doc, err)))
        return r;
    check_images(doc);
    return SINEW_OK;
}
