/* WebAssembly bindings for anim2d: one figure per module instance, its pose in linear memory
 * where JavaScript reads it as a Float32Array (layout: sinew_anim2d_pose, all floats).
 * The library has no globals; these statics are the host's instance, like a JS `let`. */
#include "sinew/anim2d.h"

#define EXPORT(name) __attribute__((export_name(name)))

static sinew_anim2d_figure figure;
static sinew_anim2d_pose pose;

/* Starts a fresh figure standing on (anchor_x, ground_y), in the spear run. */
EXPORT("a2_init") void a2_init(float anchor_x, float ground_y)
{
    sinew_anim2d_options opt = {0};
    opt.anchor_x = anchor_x;
    opt.ground_y = ground_y;
    sinew_anim2d_figure_init(&figure, &opt);
}

/* Moves the figure's ground point (canvas resized) without touching its motion state. */
EXPORT("a2_set_anchor") void a2_set_anchor(float anchor_x, float ground_y)
{
    figure.opt.anchor_x = anchor_x;
    figure.opt.ground_y = ground_y;
}

EXPORT("a2_set_motion") int a2_set_motion(int motion)
{
    return sinew_anim2d_figure_set_motion(&figure, (sinew_anim2d_motion)motion);
}
EXPORT("a2_set_gait") void a2_set_gait(float target, int immediate)
{
    sinew_anim2d_figure_set_gait(&figure, target, immediate);
}
EXPORT("a2_trigger") int a2_trigger(int action)
{
    return sinew_anim2d_figure_trigger(&figure, (sinew_anim2d_action)action);
}
EXPORT("a2_motion") int a2_motion(void)
{
    return (int)figure.motion;
}

/* Advances dt seconds and returns the address of the pose. */
EXPORT("a2_build_pose") sinew_anim2d_pose *a2_build_pose(float dt)
{
    sinew_anim2d_figure_build_pose(&figure, dt, &pose);
    return &pose;
}
EXPORT("a2_pose") sinew_anim2d_pose *a2_pose(void)
{
    return &pose;
}
EXPORT("a2_pose_floats") int a2_pose_floats(void)
{
    return (int)(sizeof pose / sizeof(float));
}
EXPORT("a2_joint_count") int a2_joint_count(void)
{
    return SINEW_ANIM2D_JOINT_COUNT;
}
