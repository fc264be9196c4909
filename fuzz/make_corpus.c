/* Writes the fuzz seed corpus: small valid and nearly valid glTF files (a few hundred bytes
 * to a few KB) covering each feature the loader reads, and one low-poly creature with a tail
 * for the pipeline harness. Run once; the files are committed:
 *   build/bin/fuzz_make_corpus fuzz/corpus */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/io/fixture.h"
#include "../tests/simplify_mesh.h"
#include "sinew/creature.h"
#include "sinew/document.h"

static const char *dir;

static void save(const char *name, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

static void save_glb(const char *name, fixture *fx)
{
    size_t size;
    uint8_t *g = fixture_glb(fx, &size);
    save(name, g, size);
    free(g);
}

static void save_gltf(const char *name, fixture *fx)
{
    char *t = fixture_gltf(fx);
    save(name, t, strlen(t));
    free(t);
}

/* Loads the fixture, applies sinew's own edits, and saves what the writer produces. */
static void save_edited(const char *name, fixture *fx)
{
    size_t size;
    uint8_t *g = fixture_glb(fx, &size);
    sinew_document *doc = NULL;
    sinew_error err;
    if (sinew_document_load_memory(g, size, NULL, &doc, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    free(g);
    int32_t node, joint, anim;
    sinew_transform t = sinew_transform_identity();
    sinew_document_add_node(doc, "tail", 1, t, &node, &err);
    sinew_mat4 ibm = sinew_mat4_identity();
    sinew_document_add_skin_joint(doc, 0, node, &ibm, &joint, &err);
    uint16_t j[32] = {0};
    float w[32] = {0};
    for (int v = 0; v < 4; v++) {
        j[v * 8] = 0, w[v * 8] = 0.5f;
        j[v * 8 + 5] = 2, w[v * 8 + 5] = 0.5f;
    }
    sinew_document_set_influences(doc, 0, 0, 4, j, w, &err);
    sinew_document_find_animation(doc, "swing", 1, &anim, &err);
    float times[2] = {0, 1}, cubic[2 * 3 * 4] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
                                                 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    sinew_document_set_channel(doc, anim, node, SINEW_PATH_ROTATION, SINEW_INTERP_CUBICSPLINE, 2,
                               times, cubic, &err);
    float tr[6] = {0, 0, 0, 0, 1, 0};
    sinew_document_set_channel(doc, anim, node, SINEW_PATH_TRANSLATION, SINEW_INTERP_STEP, 2, times,
                               tr, &err);
    sinew_document_set_note(doc, "tail", "fuzz seed", &err);
    sinew_bytes out;
    if (sinew_document_write_glb_memory(doc, &out, &err)) exit(1);
    save(name, out.data, out.size);
    sinew_bytes_free(&out);
    /* The edited document's model, rebuilt as a minimal document of its own. */
    sinew_model *model = NULL;
    sinew_document *made = NULL;
    if (sinew_model_from_document(doc, NULL, &model, &err) ||
        sinew_document_from_model(model, &made, &err) ||
        sinew_document_write_glb_memory(made, &out, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    save("from_model.glb", out.data, out.size);
    sinew_bytes_free(&out);
    sinew_document_free(made);
    sinew_model_free(model);
    sinew_document_free(doc);
}

/* The lizard creature (a tail with no bones on a skinned, animated body) simplified to 2% of
 * its triangles: 135 vertices and both clips in 59 KB, under the harness's 64 KB -max_len.
 * The loader's seeds hold no mesh the finder takes a tail on; this one does, so the pipeline
 * harness's mutations reach the chain, the re-weighting, the do-no-harm check and the bake. */
static void save_tailed_lowpoly(const char *name)
{
    sinew_model *model = NULL;
    sinew_document *doc = NULL;
    sinew_bytes out;
    sinew_error err;
    if (sinew_creature_build(SINEW_CREATURE_LIZARD, NULL, &model, NULL, &err)) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        exit(1);
    }
    if (!simplify_mesh(model, 0.02f, NULL)) {
        fprintf(stderr, "%s: out of memory\n", name);
        exit(1);
    }
    if (sinew_document_from_model(model, &doc, &err) ||
        sinew_document_write_glb_memory(doc, &out, &err)) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        exit(1);
    }
    save(name, out.data, out.size);
    sinew_bytes_free(&out);
    sinew_document_free(doc);
    sinew_model_free(model);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_make_corpus DIR\n");
        return 2;
    }
    dir = argv[1];
    fixture fx;
    fixture_init(&fx);
    save_glb("base.glb", &fx);
    save_gltf("base.gltf", &fx);
    save_edited("edited.glb", &fx);
    fixture_free(&fx);
    save_tailed_lowpoly("lizard-lowpoly.glb");

    static const struct {
        const char *name, *path, *key, *value;
    } edits[] = {
        {"strip.glb", "meshes/0/primitives/0", "mode", "5"},
        {"fan.glb", "meshes/0/primitives/0", "mode", "6"},
        {"points.glb", "meshes/0/primitives/0", "mode", "0"},
        {"matrix.glb", "nodes/1", "matrix", "[2,0,0,0,0,2,0,0,0,0,2,0,0,3,0,1]"},
        {"step.glb", "animations/0/samplers/0", "interpolation", "\"STEP\""},
        {"sparse.glb", "accessors/0", "sparse",
         "{\"count\":2,\"indices\":{\"bufferView\":1,\"componentType\":5123},"
         "\"values\":{\"bufferView\":0}}"},
        {"virtual.glb", "accessors/5", "bufferView", "null"},
        {"stride.glb", "bufferViews/0", "byteStride", "12"},
        {"quantized_rot.glb", "accessors/6", "componentType", "5122"},
        {"normalized_w.glb", "accessors/3", "normalized", "true"},
        {"noibm.glb", "skins/0", "inverseBindMatrices", "null"},
        {"weights_path.glb", "animations/0/channels/0/target", "path", "\"weights\""},
        {"draco.glb", "", "extensionsRequired", "[\"KHR_draco_mesh_compression\"]"},
        {"two_parents.glb", "nodes/2", "children", "[1]"},
        {"joints1.glb", "meshes/0/primitives/0/attributes", "JOINTS_1", "2"},
        {"external.gltf", "buffers/0", "uri", "\"data.bin\""},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        fixture_init(&fx);
        if (!strcmp(edits[i].value, "null")) {
            fx_del(&fx, edits[i].path, edits[i].key);
        } else if (!*edits[i].path) {
            cJSON_AddItemToObject(fx.json, edits[i].key, cJSON_Parse(edits[i].value));
        } else {
            fx_set(&fx, edits[i].path, edits[i].key, edits[i].value);
        }
        if (!strcmp(edits[i].name, "joints1.glb"))
            fx_set(&fx, "meshes/0/primitives/0/attributes", "WEIGHTS_1", "3");
        if (strstr(edits[i].name, ".gltf")) {
            char *t = cJSON_PrintUnformatted(fx.json);
            save(edits[i].name, t, strlen(t));
            free(t);
        } else {
            save_glb(edits[i].name, &fx);
        }
        fixture_free(&fx);
    }
    printf("corpus written to %s\n", dir);
    return 0;
}
