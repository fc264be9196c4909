/* A small harness around one rig + state for the dyn tests: steps the hips, runs forward
 * kinematics of the tail from the returned local rotations, and measures lengths and bends. */
#ifndef SINEW_TEST_DYN_RUNNER_H
#define SINEW_TEST_DYN_RUNNER_H

#include "dyn_fixture.h"

typedef struct runner {
    fixture fx;
    sinew_dyn_rig *rig;
    sinew_dyn_state *st;
    uint64_t mem[1024];
    sinew_mat4 world[FX_MAX_NODES];
    sinew_mat4 hips;
    sinew_quat rot[SINEW_DYN_MAX_JOINTS];
    sinew_vec3 pts[SINEW_DYN_MAX_JOINTS + 1]; /* joint heads then the tip, world */
    sinew_vec3 tip_offset;                    /* last bone's tip when there is no Tail_End */
    const sinew_dyn_floor *floor;
} runner;

static inline void runner_init_fixture(runner *r, const fixture *fx, const sinew_dyn_params *p)
{
    memset(r, 0, sizeof *r);
    r->fx = *fx;
    r->fx.model.nodes = r->fx.nodes;
    r->fx.model.skin.joints = r->fx.joints;
    if (r->fx.model.mesh.positions) {
        r->fx.model.mesh.positions = r->fx.positions;
        r->fx.model.mesh.influence_joints = r->fx.inf_joints;
        r->fx.model.mesh.influence_weights = r->fx.inf_weights;
    }
    for (uint32_t i = 0; i < r->fx.model.node_count; i++)
        r->fx.nodes[i].name = r->fx.names[i];
    sinew_error err;
    sinew_result res = sinew_dyn_rig_create(&r->fx.model, NULL, p, NULL, &r->rig, &err);
    if (res != SINEW_OK) print_error("rig: %s\n", err.message);
    assert_int_equal(res, SINEW_OK);
    r->st = sinew_dyn_state_init(r->rig, r->mem, sizeof r->mem);
    assert_non_null(r->st);
    int last = r->fx.tail0 + r->fx.tail_count - 1;
    int prev = r->fx.tail_count > 1 ? last - 1 : r->fx.hips;
    sinew_mat4 inv;
    sinew_mat4_invert_affine(&r->fx.bind[last], &inv);
    r->tip_offset =
        sinew_mat4_transform_dir(&inv, sinew_vec3_sub(sinew_mat4_translation(&r->fx.bind[last]),
                                                      sinew_mat4_translation(&r->fx.bind[prev])));
}

static inline void runner_init(runner *r, const fixture_opts *o, const sinew_dyn_params *p)
{
    static fixture fx; /* large: keep it off the stack */
    fixture_build(&fx, o);
    runner_init_fixture(r, &fx, p);
}

static inline void runner_free(runner *r)
{
    sinew_dyn_rig_free(r->rig);
}

static inline void runner_step(runner *r, sinew_vec3 p, sinew_quat q, float dt)
{
    r->hips = fx_hips_world(p, q);
    fx_world(&r->fx, &r->hips, r->world);
    sinew_dyn_step_job job = {r->rig, r->st,  r->world, r->fx.model.node_count,
                              dt,     r->rot, r->floor};
    sinew_error err;
    sinew_result res = sinew_dyn_step_run(&job, &err);
    if (res != SINEW_OK) print_error("step: %s\n", err.message);
    assert_int_equal(res, SINEW_OK);
    fx_tail_points(&r->fx, &r->hips, r->rot, r->tip_offset, r->pts, NULL);
}

static inline int runner_finite(const runner *r)
{
    for (int k = 0; k <= r->fx.tail_count; k++)
        if (!isfinite(r->pts[k].x) || !isfinite(r->pts[k].y) || !isfinite(r->pts[k].z)) return 0;
    for (int k = 0; k < r->fx.tail_count; k++)
        if (!isfinite(r->rot[k].w) || fabsf(sinew_quat_dot(r->rot[k], r->rot[k]) - 1.0f) > 1e-4f)
            return 0;
    return 1;
}

/* Largest |skinned length / bind length - 1| over the tail's bones. */
static inline float runner_length_error(const runner *r)
{
    float worst = 0;
    for (int k = 0; k < r->fx.tail_count; k++) {
        float len = sinew_vec3_distance(r->pts[k + 1], r->pts[k]);
        float bind = sinew_dyn_rig_link_length(r->rig, (uint32_t)k);
        worst = fmaxf(worst, fabsf(len / bind - 1.0f));
    }
    return worst;
}

static inline sinew_vec3 runner_dir(const runner *r, int k)
{
    return sinew_vec3_normalize_or(sinew_vec3_sub(r->pts[k + 1], r->pts[k]),
                                   sinew_vec3_make(0, 0, 1));
}

/* Largest angle between neighbouring links' directions, radians. */
static inline float runner_max_neighbour_bend(const runner *r)
{
    float worst = 0;
    for (int k = 0; k + 1 < r->fx.tail_count; k++) {
        float c = sinew_vec3_dot(runner_dir(r, k), runner_dir(r, k + 1));
        worst = fmaxf(worst, acosf(fmaxf(-1.0f, fminf(1.0f, c))));
    }
    return worst;
}

/* Largest change of the turning vector between neighbouring joints (radians, small-angle):
 * a hinge that folds while its neighbours stay straight scores high. */
static inline float runner_max_bend_difference(const runner *r)
{
    float worst = 0;
    sinew_vec3 prev = sinew_vec3_make(0, 0, 0);
    for (int k = 0; k + 1 < r->fx.tail_count; k++) {
        sinew_vec3 kappa = sinew_vec3_cross(runner_dir(r, k), runner_dir(r, k + 1));
        if (k > 0) worst = fmaxf(worst, sinew_vec3_distance(kappa, prev));
        prev = kappa;
    }
    return worst;
}

#endif
