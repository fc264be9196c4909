/* reference_springs: sinew's spring runtime on a file's own Tail_* chain, driven by a hip
 * motion given frame by frame, for the three-vrm comparison (vrm_springs.mjs).
 *
 * usage: reference_springs MODEL.glb MOTION.txt [REFERENCE_SIZE]
 *
 * MOTION.txt: "frames F dt DT", then F lines of 16 numbers, the chain parent's world matrix
 * (column-major) at each frame. Loads MODEL with the io module, builds the rig with the
 * default spring parameters (REFERENCE_SIZE, when given, as the model's size: the one a fit
 * reported) (sinew_dyn_rig_create finds Tail_* by name; every other node
 * keeps its file-pose world matrix), places the chain at rest on the first frame (dt 0) and
 * steps DT between frames. Prints one line per frame: the tip particle of the last link, then
 * the head of the first (world, the file's units), 9 significant digits.
 * Exit codes: 0 ok, 1 the model or its chain could not be loaded, 2 usage or bad motion. A
 * test tool: built with the tests, never installed. */
#include <stdio.h>
#include <stdlib.h>

#include "sinew/document.h"
#include "sinew/dyn.h"

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: reference_springs MODEL.glb MOTION.txt [REFERENCE_SIZE]\n");
        return 2;
    }
    sinew_error err = {0};
    sinew_document *doc = NULL;
    sinew_model *model = NULL;
    sinew_dyn_rig *rig = NULL;
    sinew_dyn_params params = {0};
    if (argc == 4) params.reference_size = strtof(argv[3], NULL);
    if (sinew_document_load_file(argv[1], NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &model, &err) != SINEW_OK ||
        sinew_dyn_rig_create(model, NULL, &params, NULL, &rig, &err) != SINEW_OK) {
        fprintf(stderr, "reference_springs: %s\n", err.message);
        return 1;
    }
    FILE *f = fopen(argv[2], "r");
    unsigned frames = 0;
    float dt = 0;
    if (!f || fscanf(f, "frames %u dt %f", &frames, &dt) != 2 || !(dt > 0)) {
        fprintf(stderr, "reference_springs: bad motion file\n");
        return 2;
    }
    const uint32_t n = sinew_dyn_rig_joint_count(rig);
    const int32_t parent = sinew_dyn_rig_parent_node(rig), first = sinew_dyn_rig_joint_node(rig, 0);
    sinew_transform *pose = calloc(model->node_count, sizeof *pose);
    sinew_mat4 *world = calloc(model->node_count, sizeof *world);
    sinew_quat *rot = calloc(n, sizeof *rot);
    sinew_vec3 *tips = calloc(n, sizeof *tips);
    const size_t bytes = sinew_dyn_state_bytes(rig);
    void *memory = calloc(1, bytes);
    sinew_dyn_state *state = memory ? sinew_dyn_state_init(rig, memory, bytes) : NULL;
    if (!pose || !world || !rot || !tips || !state) {
        fprintf(stderr, "reference_springs: out of memory\n");
        return 1;
    }
    sinew_pose_file(model, pose);
    sinew_pose_to_world(model, pose, world);
    sinew_dyn_step_job job = {rig, state, world, model->node_count, 0.0f, rot, NULL};
    for (unsigned fr = 0; fr < frames; fr++) {
        for (int k = 0; k < 16; k++)
            if (fscanf(f, "%f", &world[parent].m[k]) != 1) {
                fprintf(stderr, "reference_springs: frame %u: bad matrix\n", fr);
                return 2;
            }
        job.dt = fr ? dt : 0.0f;
        if (sinew_dyn_step_run(&job, &err) != SINEW_OK) {
            fprintf(stderr, "reference_springs: frame %u: %s\n", fr, err.message);
            return 1;
        }
        sinew_dyn_state_get(state, tips, NULL);
        const sinew_vec3 root =
            sinew_mat4_transform_point(&world[parent], model->nodes[first].local.translation);
        printf("%.9g %.9g %.9g %.9g %.9g %.9g\n", (double)tips[n - 1].x, (double)tips[n - 1].y,
               (double)tips[n - 1].z, (double)root.x, (double)root.y, (double)root.z);
    }
    fclose(f);
    free(pose), free(world), free(rot), free(tips), free(memory);
    sinew_dyn_rig_free(rig);
    sinew_model_free(model);
    sinew_document_free(doc);
    return 0;
}
