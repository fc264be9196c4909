/* live_tail: sinew's spring-chain runtime in a game loop, the way an engine would call it.
 *
 *   live_tail MODEL.glb [CLIP] [--fps N] [--seconds S]
 *
 * MODEL must have a Tail_1..Tail_K chain (the output of `sinew tail IN -o MODEL.glb`). Each
 * frame: sample the clip (the engine's animation), turn the pose into world transforms, step
 * the springs with the frame's dt, and put the returned local rotations on the tail nodes
 * before the engine skins and draws. Twice a second it prints the tail tip's world position
 * and its swing: the angle, seen from the tail's parent (the hips), between where the tip is
 * and where it rested when the chain was placed.
 *
 * The loop allocates nothing: the rig, its state and every buffer are made once up front.
 * Build: part of `make` (build/bin/live_tail); tests/examples runs it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/document.h"
#include "sinew/dyn.h"
#include "sinew/model.h"

static int usage(void)
{
    fprintf(stderr, "usage: live_tail MODEL.glb [CLIP] [--fps N] [--seconds S]\n");
    return 2;
}

/* Degrees between two unit directions. */
static double angle_deg(sinew_vec3 a, sinew_vec3 b)
{
    double c = sinew_vec3_dot(a, b);
    return acos(c > 1 ? 1 : (c < -1 ? -1 : c)) * 180.0 / SINEW_PI;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *clip_name = NULL;
    double fps = 60, seconds = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fps") && i + 1 < argc) {
            fps = atof(argv[++i]);
            if (!(fps >= 1 && fps <= 1000)) return usage();
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = atof(argv[++i]);
            if (!(seconds > 0 && seconds <= 3600)) return usage();
        } else if (argv[i][0] == '-') {
            return usage();
        } else if (!path) {
            path = argv[i];
        } else if (!clip_name) {
            clip_name = argv[i];
        } else {
            return usage();
        }
    }
    if (!path) return usage();

    /* Once, at load time. */
    sinew_error err = {0};
    sinew_document *doc = NULL;
    sinew_model *model = NULL;
    sinew_dyn_rig *rig = NULL;
    int code = 1;
    if (sinew_document_load_file(path, NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &model, &err) != SINEW_OK ||
        sinew_dyn_rig_create(model, NULL, NULL, NULL, &rig, &err) != SINEW_OK) {
        fprintf(stderr, "live_tail: %s: %s\n", path, err.message);
        goto done;
    }
    if (model->clip_count == 0) {
        fprintf(stderr, "live_tail: %s has no animation\n", path);
        goto done;
    }
    int32_t c = clip_name ? sinew_model_find_clip(model, clip_name) : 0;
    if (c < 0) {
        fprintf(stderr, "live_tail: %s has no clip named \"%s\"\n", path, clip_name);
        goto done;
    }
    const sinew_clip *clip = &model->clips[c];
    if (seconds == 0) seconds = 2.0 * (clip->duration > 0 ? clip->duration : 1.0);

    const uint32_t n = model->node_count, links = sinew_dyn_rig_joint_count(rig);
    sinew_transform *pose = malloc(n * sizeof *pose);
    sinew_mat4 *world = malloc(n * sizeof *world);
    sinew_quat *rotations = malloc(links * sizeof *rotations);
    void *state_memory = malloc(sinew_dyn_state_bytes(rig)); /* malloc aligns to 8 or more */
    sinew_dyn_state *state =
        state_memory ? sinew_dyn_state_init(rig, state_memory, sinew_dyn_state_bytes(rig)) : NULL;
    if (!pose || !world || !rotations || !state) {
        fprintf(stderr, "live_tail: out of memory\n");
        goto free_buffers;
    }
    const int32_t tip = sinew_dyn_rig_joint_node(rig, links - 1);
    printf("%s, clip \"%s\" (%.2f s) at %.0f fps for %.2f s: %u tail links\n", path, clip->name,
           (double)clip->duration, fps, seconds, links);
    printf("%8s %30s %14s\n", "time s", "tail tip (world)", "swing deg");

    /* Every frame. */
    const float dt = (float)(1.0 / fps);
    const long frames = lround(seconds * fps);
    double largest_swing = 0;
    sinew_vec3 rest_dir = sinew_vec3_make(0, 0, -1); /* the tip seen from the parent, frame 0 */
    for (long f = 0; f <= frames; f++) {
        const float t = (float)f * dt;
        const float clip_time = clip->duration > 0 ? fmodf(t, clip->duration) : 0.0f;
        sinew_clip_sample(model, clip, clip_time, pose); /* the engine's animation */
        sinew_pose_to_world(model, pose, world);
        /* dt 0 on the first frame: the chain is placed at rest in this pose */
        sinew_dyn_step_job job = {rig, state, world, n, f == 0 ? 0.0f : dt, rotations, NULL};
        if (sinew_dyn_step_run(&job, &err) != SINEW_OK) {
            fprintf(stderr, "live_tail: step: %s\n", err.message);
            goto free_buffers;
        }
        for (uint32_t i = 0; i < links; i++) /* the springs own the tail's rotations */
            pose[sinew_dyn_rig_joint_node(rig, i)].rotation = rotations[i];
        sinew_pose_to_world(model, pose, world); /* what the engine skins and draws */
        const sinew_vec3 p = sinew_mat4_translation(&world[tip]);
        const int32_t parent = sinew_dyn_rig_parent_node(rig);
        sinew_mat4 to_parent;
        if (!sinew_mat4_invert_affine(&world[parent], &to_parent)) {
            fprintf(stderr, "live_tail: the tail's parent is singular at %.3f s\n", (double)t);
            goto free_buffers;
        }
        const sinew_vec3 dir = sinew_vec3_normalize_or(sinew_mat4_transform_point(&to_parent, p),
                                                       sinew_vec3_make(0, 0, -1));
        if (f == 0) rest_dir = dir;
        const double swing = angle_deg(dir, rest_dir);
        if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z) || !isfinite(swing)) {
            fprintf(stderr, "live_tail: the tail went non-finite at %.3f s\n", (double)t);
            goto free_buffers;
        }
        if (swing > largest_swing) largest_swing = swing;
        if (f % lround(fps / 2) == 0)
            printf("%8.2f   (%8.4g, %8.4g, %8.4g) %14.1f\n", (double)t, (double)p.x, (double)p.y,
                   (double)p.z, swing);
    }
    printf("largest swing of the tip from its rest: %.1f degrees\n", largest_swing);
    code = 0;
free_buffers:
    free(pose);
    free(world);
    free(rotations);
    free(state_memory);
done:
    sinew_dyn_rig_free(rig);
    sinew_model_free(model);
    sinew_document_free(doc);
    return code;
}
