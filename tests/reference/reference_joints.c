/* reference_joints: sinew's world joint positions of a baked tail, for the Blender play test.
 *
 * usage: reference_joints MODEL.glb OUT.json
 *
 * Loads MODEL with the io module (default skin choice), finds the tail chain by name (every
 * node called Tail_<n> or Tail_End, as the bake writes them) and the node Tail_1 hangs from,
 * and writes the world-space position (glTF world: Y up, the file's units) of each of those
 * nodes at chosen (clip, time) pairs, sampled and composed by the model API exactly as the
 * library plays a clip (sinew_clip_sample, sinew_pose_to_world):
 *   {"file": "...", "world_diagonal": 2.718,        (sinew_model.world_size.diagonal)
 *    "bones": ["Hips", "Tail_1", ..., "Tail_End"],  (the tail's parent first)
 *    "samples": [{"clip": "Walk", "gltf_animation": 0, "time": 0.0333, "kind": "key",
 *                 "parent_world": [16 numbers],  (the tail's parent's world matrix,
 *                                                 column-major)
 *                 "positions": [[x, y, z], ...]}, ...]}  (one per bone, in "bones" order)
 * Samples: first one of kind "file" (no clip: the file's pose, sinew_pose_file, clip null),
 * then per clip times ON the keys of Tail_1's rotation channel (the baked keys; kind "key"):
 * up to KEYS_PER_CLIP of those where the body is on its own keys too and up to
 * MIXED_KEYS_PER_CLIP of the others (see "ancestors_on_keys" below), each set evenly spread
 * over its key indices, first and last included; and up to BETWEEN_PER_CLIP midpoints of two
 * consecutive baked keys (kind "between"), where a player that interpolates quaternions
 * component-wise (Blender) legitimately differs a little from glTF's slerp. A clip without a
 * Tail_1 rotation channel gets no samples and is listed in "unbaked_clips" so that the caller
 * can fail on it.
 * Times are the exact floats of the file's keys (midpoints rounded to float), written as
 * doubles, so another tool can be driven at the same instants.
 * Each clip sample also says "ancestors_on_keys": false when some ancestor of Tail_1 has, in
 * that clip, a LINEAR rotation or a CUBICSPLINE channel whose keys the time falls strictly
 * between (more than 1e-6 s from its nearest key). The body's own keys need not coincide
 * with the baked ones (the Khronos fox's Run has a 0.2 s gap in its hip keys), and there a
 * player that interpolates rotations component-wise moves the whole tail a little even on a
 * baked key.
 * Exit codes: 0 ok, 1 the model could not be loaded or has no Tail_1, 2 usage, 3 output not
 * written. A test tool: built with the tests, never installed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sinew/document.h"
#include "sinew/model.h"

#include "reference_util.h"

#define KEYS_PER_CLIP 16      /* baked keys where the body is on its own keys too */
#define MIXED_KEYS_PER_CLIP 8 /* baked keys where some ancestor is between its keys */
#define BETWEEN_PER_CLIP 8    /* midpoints between baked keys */

/* Tail_<digits> or Tail_End: the names sinew's rig and bake give the chain. */
static int is_tail_name(const char *name)
{
    if (strncmp(name, "Tail_", 5) != 0) return 0;
    const char *s = name + 5;
    if (strcmp(s, "End") == 0) return 1;
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

/* Whether every ancestor of `node` that `clip` animates with a rotation slerp or a cubic
 * spline is on one of its own keys at `time` (within 1e-6 s). */
static int ancestors_on_keys(const sinew_model *model, const sinew_clip *clip, int32_t node,
                             float time)
{
    for (uint32_t c = 0; c < clip->channel_count; c++) {
        const sinew_channel *ch = &clip->channels[c];
        if (ch->interpolation != SINEW_INTERP_CUBICSPLINE &&
            !(ch->path == SINEW_PATH_ROTATION && ch->interpolation == SINEW_INTERP_LINEAR))
            continue;
        int is_ancestor = 0;
        for (int32_t a = model->nodes[node].parent; a >= 0 && !is_ancestor;
             a = model->nodes[a].parent)
            is_ancestor = a == ch->node;
        if (!is_ancestor || ch->key_count < 2) continue;
        if (time <= ch->times[0] || time >= ch->times[ch->key_count - 1]) continue;
        int on_key = 0;
        for (uint32_t k = 0; k < ch->key_count && !on_key; k++)
            on_key = fabsf(ch->times[k] - time) <= 1e-6f;
        if (!on_key) return 0;
    }
    return 1;
}

/* One sample: the world positions of the chosen nodes at `time` of `clip` (NULL: the file's
 * pose), appended to `samples`; tail1 is the chain's first joint. */
static void add_sample(const sinew_model *model, const sinew_clip *clip, float time,
                       const char *kind, int32_t tail1, const int32_t *nodes, uint32_t node_count,
                       sinew_transform *pose, sinew_mat4 *world, cJSON *samples)
{
    if (clip)
        sinew_clip_sample(model, clip, time, pose);
    else
        sinew_pose_file(model, pose);
    sinew_pose_to_world(model, pose, world);
    cJSON *o = cJSON_CreateObject();
    if (clip) {
        cJSON_AddStringToObject(o, "clip", clip->name);
        cJSON_AddNumberToObject(o, "gltf_animation", clip->gltf_animation);
        cJSON_AddBoolToObject(o, "ancestors_on_keys", ancestors_on_keys(model, clip, tail1, time));
    } else {
        cJSON_AddNullToObject(o, "clip");
    }
    cJSON_AddNumberToObject(o, "time", time);
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON *parent = cJSON_AddArrayToObject(o, "parent_world");
    for (int k = 0; k < 16; k++)
        cJSON_AddItemToArray(parent, cJSON_CreateNumber(world[nodes[0]].m[k]));
    cJSON *positions = cJSON_AddArrayToObject(o, "positions");
    for (uint32_t i = 0; i < node_count; i++)
        cJSON_AddItemToArray(positions, vec3_json(sinew_mat4_translation(&world[nodes[i]])));
    cJSON_AddItemToArray(samples, o);
}

/* The k-th of `count` indices spread evenly over [0, last], first and last included. */
static uint32_t spread(uint32_t k, uint32_t count, uint32_t last)
{
    if (count <= 1) return 0;
    return (uint32_t)(((uint64_t)k * last * 2 + (count - 1)) / ((uint64_t)(count - 1) * 2));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: reference_joints MODEL.glb OUT.json\n");
        return 2;
    }
    sinew_document *doc;
    sinew_model *model;
    if (!load_model("reference_joints", argv[1], &doc, &model)) return 1;
    const int32_t tail1 = sinew_model_find_node(model, "Tail_1");
    if (tail1 < 0 || model->nodes[tail1].parent < 0) {
        fprintf(stderr, "reference_joints: %s: %s\n", argv[1],
                tail1 < 0 ? "no node named Tail_1 in the skeleton" : "Tail_1 has no parent node");
        sinew_model_free(model);
        sinew_document_free(doc);
        return 1;
    }

    const size_t n = model->node_count;
    int32_t *nodes = calloc(n, sizeof *nodes);
    sinew_transform *pose = calloc(n, sizeof *pose);
    sinew_mat4 *world = calloc(n, sizeof *world);
    int status = 0;
    if (!nodes || !pose || !world) {
        fprintf(stderr, "reference_joints: out of memory\n");
        status = 3;
    }
    /* The tail's parent first, then the chain in skeleton order (parent before child). */
    uint32_t count = 0;
    if (status == 0) {
        nodes[count++] = model->nodes[tail1].parent;
        for (uint32_t i = 0; i < model->node_count; i++)
            if (is_tail_name(model->nodes[i].name)) nodes[count++] = (int32_t)i;
    }

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "file", argv[1]);
    cJSON_AddNumberToObject(root, "world_diagonal", model->world_size.diagonal);
    cJSON *bones = cJSON_AddArrayToObject(root, "bones");
    for (uint32_t i = 0; i < count; i++)
        cJSON_AddItemToArray(bones, cJSON_CreateString(model->nodes[nodes[i]].name));
    cJSON *unbaked = cJSON_AddArrayToObject(root, "unbaked_clips");
    cJSON *samples = cJSON_AddArrayToObject(root, "samples");
    if (status == 0)
        add_sample(model, NULL, 0.0f, "file", tail1, nodes, count, pose, world, samples);
    for (uint32_t c = 0; c < model->clip_count && status == 0; c++) {
        const sinew_clip *clip = &model->clips[c];
        const sinew_channel *keys = NULL;
        for (uint32_t k = 0; k < clip->channel_count; k++)
            if (clip->channels[k].node == tail1 && clip->channels[k].path == SINEW_PATH_ROTATION)
                keys = &clip->channels[k];
        if (!keys || keys->key_count == 0) {
            cJSON_AddItemToArray(unbaked, cJSON_CreateString(clip->name));
            continue;
        }
        const uint32_t nk = keys->key_count;
        uint32_t *pure = calloc(2 * (size_t)nk, sizeof *pure), *mixed = pure + nk;
        if (!pure) {
            fprintf(stderr, "reference_joints: out of memory\n");
            status = 3;
            break;
        }
        /* Keys where the body is on its own keys too judge the bake alone; the others also
         * measure how another player interpolates the body between its keys. */
        uint32_t n_pure = 0, n_mixed = 0;
        for (uint32_t k = 0; k < nk; k++) {
            if (ancestors_on_keys(model, clip, tail1, keys->times[k]))
                pure[n_pure++] = k;
            else
                mixed[n_mixed++] = k;
        }
        const uint32_t on = n_pure < KEYS_PER_CLIP ? n_pure : KEYS_PER_CLIP;
        for (uint32_t k = 0; k < on; k++)
            add_sample(model, clip, keys->times[pure[spread(k, on, n_pure - 1)]], "key", tail1,
                       nodes, count, pose, world, samples);
        const uint32_t off = n_mixed < MIXED_KEYS_PER_CLIP ? n_mixed : MIXED_KEYS_PER_CLIP;
        for (uint32_t k = 0; k < off; k++)
            add_sample(model, clip, keys->times[mixed[spread(k, off, n_mixed - 1)]], "key", tail1,
                       nodes, count, pose, world, samples);
        free(pure);
        const uint32_t between = nk - 1 < BETWEEN_PER_CLIP ? nk - 1 : BETWEEN_PER_CLIP;
        for (uint32_t k = 0; k < between; k++) {
            const uint32_t i = spread(k, between, nk - 2);
            const float t = 0.5f * (keys->times[i] + keys->times[i + 1]);
            add_sample(model, clip, t, "between", tail1, nodes, count, pose, world, samples);
        }
    }
    char *text = cJSON_Print(root);
    if (status == 0 && (!text || !write_text(argv[2], text))) {
        fprintf(stderr, "reference_joints: cannot write %s\n", argv[2]);
        status = 3;
    }
    cJSON_free(text);
    cJSON_Delete(root);
    free(world);
    free(pose);
    free(nodes);
    sinew_model_free(model);
    sinew_document_free(doc);
    return status;
}
