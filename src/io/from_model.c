/* A minimal, deterministic document holding one model: its skeleton nodes, one skin, one
 * mesh with one primitive, one animation per clip that has channels. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/internal.h"

static cJSON *trs_node(const sinew_node *n)
{
    cJSON *node = cJSON_CreateObject();
    cJSON_AddStringToObject(node, "name", n->name ? n->name : "");
    const sinew_transform *t = &n->local;
    float tr[3] = {t->translation.x, t->translation.y, t->translation.z};
    float q[4] = {t->rotation.x, t->rotation.y, t->rotation.z, t->rotation.w};
    float s[3] = {t->scale.x, t->scale.y, t->scale.z};
    cJSON_AddItemToObject(node, "translation", io_float_array(tr, 3));
    cJSON_AddItemToObject(node, "rotation", io_float_array(q, 4));
    cJSON_AddItemToObject(node, "scale", io_float_array(s, 3));
    return node;
}

static sinew_result oom(sinew_error *err)
{
    return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "model: out of memory");
}

static sinew_result build(sinew_document *doc, sinew_model *model, sinew_error *err)
{
    const sinew_mesh *mesh = &model->mesh;
    cJSON *root = doc->root;
    cJSON *asset = cJSON_CreateObject();
    cJSON_AddStringToObject(asset, "generator", "sinew");
    cJSON_AddStringToObject(asset, "version", "2.0");
    cJSON_AddItemToObject(root, "asset", asset);
    cJSON_AddNumberToObject(root, "scene", 0);
    uint32_t nn = model->node_count;
    for (uint32_t i = 0; i < nn; i++) {
        int32_t p = model->nodes[i].parent;
        if (p >= (int32_t)i || !sinew_vec3_length(model->nodes[i].local.scale) ||
            !isfinite(model->nodes[i].local.translation.x))
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "model: node %u: parent %d is not before it (or bad transform)",
                                   i, p);
    }
    for (uint32_t i = 0; i < nn; i++)
        if (io_append(doc, IO_NODES, trs_node(&model->nodes[i])) < 0) return oom(err);
    for (uint32_t i = 0; i < nn; i++) {
        int32_t p = model->nodes[i].parent;
        if (p < 0) continue;
        cJSON *parent = io_item(doc, IO_NODES, (uint32_t)p);
        cJSON *kids = cJSON_GetObjectItemCaseSensitive(parent, "children");
        if (!kids) {
            kids = cJSON_CreateArray();
            cJSON_AddItemToObject(parent, "children", kids);
        }
        cJSON_AddItemToArray(kids, cJSON_CreateNumber(i));
    }
    int has_mesh = mesh->vertex_count > 0 && mesh->triangle_count > 0 && model->skin.joint_count;
    cJSON *scene_nodes = cJSON_CreateArray();
    for (uint32_t i = 0; i < nn; i++)
        if (model->nodes[i].parent < 0) cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber(i));
    if (has_mesh) {
        cJSON *mnode = cJSON_CreateObject();
        cJSON_AddStringToObject(mnode, "name", "mesh");
        cJSON_AddNumberToObject(mnode, "mesh", 0);
        cJSON_AddNumberToObject(mnode, "skin", 0);
        cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber(nn));
        if (io_append(doc, IO_NODES, mnode) < 0) {
            cJSON_Delete(scene_nodes);
            return oom(err);
        }
    }
    cJSON *scene = cJSON_CreateObject();
    cJSON_AddItemToObject(scene, "nodes", scene_nodes);
    if (io_append(doc, IO_SCENES, scene) < 0) return oom(err);

    uint32_t jc = model->skin.joint_count, vc = mesh->vertex_count;
    if (jc) {
        float *ibm = sinew_alloc(&doc->alloc, (size_t)jc * 16, sizeof *ibm);
        if (!ibm) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "model: out of memory");
        cJSON *joints = cJSON_CreateArray();
        for (uint32_t j = 0; j < jc; j++) {
            int32_t node = model->skin.joints[j].node;
            if (node < 0 || (uint32_t)node >= nn) {
                sinew_free(&doc->alloc, ibm);
                cJSON_Delete(joints);
                return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                       "model: joint %u: node %d does not exist", j, node);
            }
            cJSON_AddItemToArray(joints, cJSON_CreateNumber(node));
            memcpy(ibm + (size_t)j * 16, model->skin.joints[j].inverse_bind.m, 16 * sizeof(float));
        }
        int32_t acc = io_add_accessor(doc, ibm, IO_FLOAT, "MAT4", jc, 0, 0, err);
        sinew_free(&doc->alloc, ibm);
        if (acc < 0) {
            cJSON_Delete(joints);
            return err ? err->code : SINEW_ERR_OUT_OF_MEMORY;
        }
        cJSON *skin = cJSON_CreateObject();
        cJSON_AddNumberToObject(skin, "inverseBindMatrices", acc);
        cJSON_AddItemToObject(skin, "joints", joints);
        if (io_append(doc, IO_SKINS, skin) < 0) return oom(err);
    }
    if (has_mesh) {
        /* Area-weighted normals from the triangles; isolated vertices point up. */
        sinew_vec3 *normals = sinew_alloc(&doc->alloc, vc, sizeof *normals);
        if (!normals) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "model: out of memory");
        for (uint32_t t = 0; t < mesh->triangle_count; t++) {
            const uint32_t *tri = mesh->triangles + 3 * (size_t)t;
            if (tri[0] >= vc || tri[1] >= vc || tri[2] >= vc) {
                sinew_free(&doc->alloc, normals);
                return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                       "model: triangle %u indexes past %u vertices", t, vc);
            }
            sinew_vec3 a = mesh->positions[tri[0]], b = mesh->positions[tri[1]],
                       c = mesh->positions[tri[2]];
            sinew_vec3 n = sinew_vec3_cross(sinew_vec3_sub(b, a), sinew_vec3_sub(c, a));
            for (int k = 0; k < 3; k++)
                normals[tri[k]] = sinew_vec3_add(normals[tri[k]], n);
        }
        for (uint32_t v = 0; v < vc; v++)
            normals[v] = sinew_vec3_normalize_or(normals[v], sinew_vec3_make(0, 1, 0));
        int two = 0;
        uint16_t max_joint = 0;
        for (size_t i = 0; i < (size_t)vc * SINEW_MAX_INFLUENCES; i++) {
            if (i % SINEW_MAX_INFLUENCES >= 4 && mesh->influence_weights[i] != 0.0f) two = 1;
            if (mesh->influence_joints[i] > max_joint) max_joint = mesh->influence_joints[i];
        }
        if (max_joint >= jc) {
            sinew_free(&doc->alloc, normals);
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "model: influence joint %u past %u joints", max_joint, jc);
        }
        int32_t pos = io_add_accessor(doc, mesh->positions, IO_FLOAT, "VEC3", vc, 0, 1, err);
        int32_t nor = pos < 0 ? -1 : io_add_accessor(doc, normals, IO_FLOAT, "VEC3", vc, 0, 0, err);
        sinew_free(&doc->alloc, normals);
        if (nor < 0) return err ? err->code : SINEW_ERR_OUT_OF_MEMORY;
        int32_t ind;
        size_t ni = (size_t)mesh->triangle_count * 3;
        if (vc <= 65535) {
            uint16_t *i16 = sinew_alloc(&doc->alloc, ni, sizeof *i16);
            if (!i16) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "model: out of memory");
            for (size_t i = 0; i < ni; i++)
                i16[i] = (uint16_t)mesh->triangles[i];
            ind = io_add_accessor(doc, i16, IO_USHORT, "SCALAR", (uint32_t)ni, 0, 0, err);
            sinew_free(&doc->alloc, i16);
        } else {
            ind = io_add_accessor(doc, mesh->triangles, IO_UINT, "SCALAR", (uint32_t)ni, 0, 0, err);
        }
        if (ind < 0) return err ? err->code : SINEW_ERR_OUT_OF_MEMORY;
        cJSON *attrs = cJSON_CreateObject();
        cJSON_AddNumberToObject(attrs, "POSITION", pos);
        cJSON_AddNumberToObject(attrs, "NORMAL", nor);
        uint16_t *jb = sinew_alloc(&doc->alloc, (size_t)vc * 4, sizeof *jb);
        float *wb = sinew_alloc(&doc->alloc, (size_t)vc * 4, sizeof *wb);
        sinew_result r =
            jb && wb ? SINEW_OK
                     : sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "model: out of memory");
        for (int s = 0; s < (two ? 2 : 1) && !r; s++) {
            for (uint32_t v = 0; v < vc; v++)
                for (int k = 0; k < 4; k++) {
                    size_t src = (size_t)v * SINEW_MAX_INFLUENCES + (size_t)s * 4 + (size_t)k;
                    wb[v * 4 + (uint32_t)k] = mesh->influence_weights[src];
                    jb[v * 4 + (uint32_t)k] =
                        mesh->influence_weights[src] != 0.0f ? mesh->influence_joints[src] : 0;
                }
            int32_t ja = io_add_accessor(doc, jb, IO_USHORT, "VEC4", vc, 0, 0, err);
            int32_t wa = ja < 0 ? -1 : io_add_accessor(doc, wb, IO_FLOAT, "VEC4", vc, 0, 0, err);
            if (wa < 0) {
                r = err ? err->code : SINEW_ERR_OUT_OF_MEMORY;
                break;
            }
            cJSON_AddNumberToObject(attrs, s ? "JOINTS_1" : "JOINTS_0", ja);
            cJSON_AddNumberToObject(attrs, s ? "WEIGHTS_1" : "WEIGHTS_0", wa);
        }
        sinew_free(&doc->alloc, jb);
        sinew_free(&doc->alloc, wb);
        if (r) {
            cJSON_Delete(attrs);
            return r;
        }
        cJSON *prim = cJSON_CreateObject();
        cJSON_AddItemToObject(prim, "attributes", attrs);
        cJSON_AddNumberToObject(prim, "indices", ind);
        cJSON_AddNumberToObject(prim, "mode", 4);
        cJSON *prims = cJSON_CreateArray();
        cJSON_AddItemToArray(prims, prim);
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "name", "mesh");
        cJSON_AddItemToObject(m, "primitives", prims);
        if (io_append(doc, IO_MESHES, m) < 0) return oom(err);
    }
    for (uint32_t c = 0; c < model->clip_count; c++) {
        const sinew_clip *clip = &model->clips[c];
        if (!clip->channel_count) continue; /* glTF animations need a channel */
        cJSON *anim = cJSON_CreateObject();
        cJSON_AddStringToObject(anim, "name", clip->name ? clip->name : "");
        cJSON_AddItemToObject(anim, "channels", cJSON_CreateArray());
        cJSON_AddItemToObject(anim, "samplers", cJSON_CreateArray());
        int32_t ai = io_append(doc, IO_ANIMATIONS, anim);
        if (ai < 0) return oom(err);
        sinew_result r;
        for (uint32_t k = 0; k < clip->channel_count; k++) {
            const sinew_channel *ch = &clip->channels[k];
            if (ch->node < 0 || (uint32_t)ch->node >= nn)
                return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                       "model: clip \"%s\" channel %u: node %d does not exist",
                                       clip->name ? clip->name : "", k, ch->node);
            if ((r = sinew_document_set_channel(doc, ai, ch->node, ch->path, ch->interpolation,
                                                ch->key_count, ch->times, ch->values, err)))
                return r;
        }
    }
    return SINEW_OK;
}

sinew_result sinew_document_from_model(sinew_model *model, sinew_document **out, sinew_error *err)
{
    if (out) *out = NULL;
    if (!model || !out)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "sinew_document_from_model: NULL");
    sinew_document *doc = io_document_new(&model->allocator, "<model>");
    if (!doc || !(doc->root = cJSON_CreateObject())) {
        sinew_document_free(doc);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "model: out of memory");
    }
    sinew_result r = build(doc, model, err);
    if (!r && model->mesh.vertex_count && model->mesh.triangle_count && model->skin.joint_count) {
        sinew_primitive_range *ranges = sinew_alloc(&model->allocator, 1, sizeof *ranges);
        if (!ranges) {
            r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "model: out of memory");
        } else {
            ranges->gltf_mesh = 0;
            ranges->gltf_primitive = 0;
            ranges->gltf_node = (int32_t)model->node_count;
            ranges->gltf_skin = 0;
            ranges->vertex_count = model->mesh.vertex_count;
            ranges->triangle_count = model->mesh.triangle_count;
            sinew_free(&model->allocator, model->mesh.ranges);
            model->mesh.ranges = ranges;
            model->mesh.range_count = 1;
        }
    }
    if (r) {
        sinew_document_free(doc);
        return r;
    }
    for (uint32_t i = 0; i < model->node_count; i++)
        model->nodes[i].gltf_node = (int32_t)i;
    model->skin.gltf_skin = model->skin.joint_count ? 0 : -1;
    int32_t a = 0;
    for (uint32_t c = 0; c < model->clip_count; c++)
        model->clips[c].gltf_animation = model->clips[c].channel_count ? a++ : -1;
    *out = doc;
    return SINEW_OK;
}
