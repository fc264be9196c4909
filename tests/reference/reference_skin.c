/* reference_skin: sinew's skinned positions for the three.js agreement test.
 *
 * usage: reference_skin MODEL.glb OUT_PREFIX
 *
 * Loads MODEL with the io module, builds the model view (default skin choice) and, for every
 * clip, skins the mesh at 10 evenly spaced times t_k = duration * k / 9 (k = 0..9). Writes
 *   OUT_PREFIX.json  metadata: vertex_count, size (sinew_model.size: the bind-space box),
 *                    world_size (min, max, diagonal of the skinned mesh in the file's pose,
 *                    in world space: the scale the comparison is relative to),
 *                    ranges (gltf_mesh, gltf_primitive, gltf_node, first_vertex,
 *                    vertex_count) and clips (name, gltf_animation, duration, times);
 *   OUT_PREFIX.bin   float32 little-endian positions, clip-major then time then vertex:
 *                    clip c, time k, vertex v, axis a at
 *                    ((c * 10 + k) * vertex_count + v) * 3 + a.
 * Positions are sinew's world positions: sum_j w_j (world(joint_j) IBM_j) v, which ignore the
 * skinned mesh node's own transform, as glTF requires (see three_agreement.mjs for how three's
 * getVertexPosition relates to them).
 * Exit codes: 0 ok, 1 the model could not be loaded, 2 usage, 3 output not written.
 * A test tool: built with the tests, never installed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sinew/document.h"
#include "sinew/model.h"

#include "reference_util.h"

#define TIMES 10

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: reference_skin MODEL.glb OUT_PREFIX\n");
        return 2;
    }
    sinew_document *doc;
    sinew_model *model;
    if (!load_model("reference_skin", argv[1], &doc, &model)) return 1;

    const uint32_t nv = model->mesh.vertex_count;
    sinew_transform *pose = calloc(model->node_count ? model->node_count : 1, sizeof *pose);
    sinew_mat4 *world = calloc(model->node_count ? model->node_count : 1, sizeof *world);
    sinew_mat4 *skin = calloc(model->skin.joint_count ? model->skin.joint_count : 1, sizeof *skin);
    sinew_vec3 *out = calloc(nv ? nv : 1, sizeof *out);
    char path[4096];
    snprintf(path, sizeof path, "%s.bin", argv[2]);
    FILE *bin = fopen(path, "wb");
    int status = 0;
    if (!pose || !world || !skin || !out || !bin) {
        fprintf(stderr, "reference_skin: cannot allocate or open %s\n", path);
        status = 3;
    }

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "file", argv[1]);
    cJSON_AddNumberToObject(root, "vertex_count", nv);
    cJSON_AddNumberToObject(root, "times_per_clip", TIMES);
    cJSON *size = cJSON_AddObjectToObject(root, "size");
    cJSON_AddItemToObject(size, "min", vec3_json(model->size.min));
    cJSON_AddItemToObject(size, "max", vec3_json(model->size.max));
    cJSON_AddNumberToObject(size, "height", model->size.height);
    cJSON_AddNumberToObject(size, "length", model->size.length);
    cJSON_AddNumberToObject(size, "diagonal", model->size.diagonal);

    /* The world-space box of the skinned mesh in the file's pose. The bind-space box
     * (model->size) can be far from what a viewer shows: quaternius_TRex's vertices are
     * stored 0.35 units across and skinned by matrices that scale them ~40x. Errors are
     * measured against the size the user sees. */
    if (status == 0) {
        sinew_pose_file(model, pose);
        sinew_pose_to_world(model, pose, world);
        sinew_skin_matrices(model, world, skin);
        sinew_skin_positions(model, skin, out);
    }
    sinew_vec3 lo = {0, 0, 0}, hi = {0, 0, 0};
    for (uint32_t v = 0; status == 0 && v < nv; v++) {
        sinew_vec3 p = out[v];
        if (v == 0) lo = hi = p;
        lo = sinew_vec3_make(p.x < lo.x ? p.x : lo.x, p.y < lo.y ? p.y : lo.y,
                             p.z < lo.z ? p.z : lo.z);
        hi = sinew_vec3_make(p.x > hi.x ? p.x : hi.x, p.y > hi.y ? p.y : hi.y,
                             p.z > hi.z ? p.z : hi.z);
    }
    cJSON *wsize = cJSON_AddObjectToObject(root, "world_size");
    cJSON_AddItemToObject(wsize, "min", vec3_json(lo));
    cJSON_AddItemToObject(wsize, "max", vec3_json(hi));
    cJSON_AddNumberToObject(wsize, "diagonal", sinew_vec3_distance(lo, hi));

    cJSON *ranges = cJSON_AddArrayToObject(root, "ranges");
    for (uint32_t r = 0; r < model->mesh.range_count; r++) {
        const sinew_primitive_range *pr = &model->mesh.ranges[r];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "gltf_mesh", pr->gltf_mesh);
        cJSON_AddNumberToObject(o, "gltf_primitive", pr->gltf_primitive);
        cJSON_AddNumberToObject(o, "gltf_node", pr->gltf_node);
        cJSON_AddNumberToObject(o, "first_vertex", pr->first_vertex);
        cJSON_AddNumberToObject(o, "vertex_count", pr->vertex_count);
        cJSON_AddItemToArray(ranges, o);
    }
    cJSON *clips = cJSON_AddArrayToObject(root, "clips");
    for (uint32_t c = 0; c < model->clip_count && status == 0; c++) {
        const sinew_clip *clip = &model->clips[c];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", clip->name);
        cJSON_AddNumberToObject(o, "gltf_animation", clip->gltf_animation);
        cJSON_AddNumberToObject(o, "duration", clip->duration);
        cJSON *times = cJSON_AddArrayToObject(o, "times");
        cJSON_AddItemToArray(clips, o);
        for (int k = 0; k < TIMES; k++) {
            /* Exactly the float the library samples at, so three gets the same instant. */
            float t = clip->duration * (float)k / (float)(TIMES - 1);
            cJSON_AddItemToArray(times, cJSON_CreateNumber(t));
            sinew_clip_sample(model, clip, t, pose);
            sinew_pose_to_world(model, pose, world);
            sinew_skin_matrices(model, world, skin);
            sinew_skin_positions(model, skin, out);
            if (nv && fwrite(out, sizeof *out, nv, bin) != nv) status = 3;
        }
    }
    if (bin && fclose(bin) != 0) status = 3;
    char *text = cJSON_Print(root);
    snprintf(path, sizeof path, "%s.json", argv[2]);
    if (status == 0 && (!text || !write_text(path, text))) status = 3;
    if (status == 3) fprintf(stderr, "reference_skin: cannot write %s\n", path);
    cJSON_free(text);
    cJSON_Delete(root);
    free(out);
    free(skin);
    free(world);
    free(pose);
    sinew_model_free(model);
    sinew_document_free(doc);
    return status;
}
