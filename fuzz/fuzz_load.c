/* libFuzzer harness: load from memory, build the model view, pose it, write a GLB. */
#include <stdint.h>
#include <stdlib.h>

#include "sinew/document.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sinew_document *doc = NULL;
    sinew_error err;
    if (sinew_document_load_memory(data, size, NULL, &doc, &err) != SINEW_OK) return 0;
    sinew_model *model = NULL;
    if (sinew_model_from_document(doc, NULL, &model, &err) == SINEW_OK) {
        /* Sample every clip once and skin: exercises what the view produced. */
        sinew_transform *pose = calloc(model->node_count + 1, sizeof *pose);
        sinew_mat4 *world = calloc(model->node_count + 1, sizeof *world);
        sinew_mat4 *skin = calloc(model->skin.joint_count + 1, sizeof *skin);
        sinew_vec3 *pos = calloc(model->mesh.vertex_count + 1, sizeof *pos);
        if (pose && world && skin && pos) {
            for (uint32_t c = 0; c < model->clip_count; c++) {
                sinew_clip_sample(model, &model->clips[c], model->clips[c].duration * 0.5f, pose);
                sinew_pose_to_world(model, pose, world);
                sinew_skin_matrices(model, world, skin);
                sinew_skin_positions(model, skin, pos);
            }
        }
        free(pose);
        free(world);
        free(skin);
        free(pos);
        sinew_model_free(model);
    }
    sinew_bytes glb;
    if (sinew_document_write_glb_memory(doc, &glb, &err) == SINEW_OK) {
        /* What we write must load again. */
        sinew_document *again = NULL;
        if (sinew_document_load_memory(glb.data, glb.size, NULL, &again, &err) != SINEW_OK) abort();
        sinew_document_free(again);
        sinew_bytes_free(&glb);
    }
    sinew_document_free(doc);
    return 0;
}
