/* Entry points of the spring-chain step: checks, placement, the fixed-step schedule of a
 * call, the uncommitted step that covers the lag, the guard, and the batching of run_many
 * into vector lanes. The physics of a substep is dyn_lanes.h, at width one here. */
#include "dyn_internal.h"
#include "dyn_math.h"

#include <string.h>

/* frame_from_matrix without the finiteness test, for matrices check_job already passed;
 * with f NULL only the singularity test (what run_many's validation pass needs). */
static int frame_from_finite_matrix(const sinew_mat4 *m, dyn_frame *f)
{
    float len[3];
    sinew_mat4 r = *m;
    for (int c = 0; c < 3; c++) {
        len[c] = sqrtf(r.m[c * 4] * r.m[c * 4] + r.m[c * 4 + 1] * r.m[c * 4 + 1] +
                       r.m[c * 4 + 2] * r.m[c * 4 + 2]);
        if (!(len[c] > 1e-20f)) return 0;
        if (!f) continue;
        for (int k = 0; k < 3; k++)
            r.m[c * 4 + k] /= len[c];
    }
    if (!f) return 1;
    f->position = sinew_mat4_translation(m);
    f->rotation = sinew_quat_from_mat4(&r);
    f->scale = (len[0] + len[1] + len[2]) * (1.0f / 3.0f);
    return 1;
}
static int frame_from_matrix(const sinew_mat4 *m, dyn_frame *f)
{
    return sinew_mat4_is_finite(m) && frame_from_finite_matrix(m, f);
}

static dyn_frame frame_lerp(const dyn_frame *a, const dyn_frame *b, float t)
{
    dyn_frame f;
    f.position = sinew_vec3_lerp(a->position, b->position, t);
    f.rotation = dyn_slerp(a->rotation, b->rotation, t);
    f.scale = a->scale + (b->scale - a->scale) * t;
    return f;
}

/* The drivers' `turn` (hips frame) of the root link's rest, written in the chain parent's
 * own frame: B_p^-1 turn B_p, B_p the parent's bind rotation (the hips frame is the parent's
 * frame turned back by it). */
static sinew_quat driven_in_parent(const sinew_dyn_rig *rig, sinew_quat turn)
{
    return sinew_quat_normalize(sinew_quat_mul(sinew_quat_mul(rig->parent_bind_inv, turn),
                                               sinew_quat_conjugate(rig->parent_bind_inv)));
}

/* Puts the chain at rest in frame f: particles on the rest targets, zero velocity (the rest
 * turned by the drivers' turn of the state, for a rig with drivers). */
static void place_at_rest(const sinew_dyn_rig *rig, sinew_dyn_state *st, const dyn_frame *f)
{
    sinew_vec3 *p = dyn_state_positions(st), *v = dyn_state_velocities(st);
    sinew_quat *bend = dyn_state_bends(st);
    sinew_vec3 ppos = f->position;
    sinew_quat prot = f->rotation;
    float pscale = f->scale;
    for (uint32_t i = 0; i < rig->joint_count; i++) {
        const dyn_link *L = &rig->links[i];
        sinew_vec3 head = sinew_vec3_madd(ppos, sinew_quat_rotate(prot, L->head), pscale);
        /* the drivers turn the root link's rest about its head, which stays where it is (the
         * step's rule, dyn_lanes.h) */
        if (i == 0 && rig->driver_count)
            prot = sinew_quat_mul(prot, driven_in_parent(rig, *dyn_state_drive(st)));
        sinew_quat rrest = sinew_quat_mul(prot, L->rest);
        float scale = pscale * L->own_scale;
        p[i] = sinew_vec3_madd(head, sinew_quat_rotate(rrest, L->dir), scale * L->length);
        v[i] = sinew_vec3_make(0, 0, 0);
        bend[i] = sinew_quat_identity();
        ppos = head;
        prot = rrest;
        pscale = scale;
    }
    st->placed = 1;
}

/* How far from the origin the chain can reach, world units: the largest coordinate the step
 * forms squares of. Float carries squares up to 3e38; 1e15 leaves 1e8 of it for the spring's
 * omega^2 and the sums of three squares (a parent scaled by 1e20 turned the state to NaN
 * while the step returned OK). Real scenes are far inside it: a planet in millimetres is
 * 1e10. */
#define DYN_MAX_REACH 1e15f
/* The reach of a chain hung from m: its largest translation component plus m's axis scale
 * (dyn_frame.scale, sinew_mat4_axis_scale) times the chain's length. */
static float matrix_reach(const sinew_mat4 *m, float scale, const sinew_dyn_rig *rig)
{
    const sinew_vec3 p = sinew_mat4_translation(m);
    return fmaxf(fabsf(p.x), fmaxf(fabsf(p.y), fabsf(p.z))) + scale * rig->chain_length;
}

/* 1 when the committed particles, velocities and bends and the n output rotations are all
 * finite. */
static int step_finite(sinew_dyn_state *st, const sinew_quat *out, uint32_t n)
{
    const float *d = st->data;
    /* one NaN or infinity anywhere makes a sum so; four sums, so that the adds are not one
     * chain of 14 n dependent additions (bench_dyn 10,000 chains, perf: one sum's latency
     * made the guard ~8% of the run, more in the capsule case; with four, four runs each:
     * ~37.5 -> ~36 ns per joint-step, capsules ~+9 -> ~+7 beside none) */
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    uint32_t k = 0;
    for (; k + 4 <= DYN_STATE_COMMITTED_PER_JOINT * n; k += 4)
        for (int j = 0; j < 4; j++)
            sum[j] += d[k + (uint32_t)j] * 0.0f;
    for (; k < DYN_STATE_COMMITTED_PER_JOINT * n; k++)
        sum[0] += d[k] * 0.0f;
    for (uint32_t i = 0; i < n; i++) {
        sum[0] += out[i].x * 0.0f;
        sum[1] += out[i].y * 0.0f;
        sum[2] += out[i].z * 0.0f;
        sum[3] += out[i].w * 0.0f;
    }
    return (sum[0] + sum[1]) + (sum[2] + sum[3]) == 0.0f;
}

/* The guard every step ends with, alone or in lanes: a state the step left not finite
 * (inputs beyond what the checks foresee) is put back at rest in the parent's frame f, its
 * output the rest rotations, and counted in state->resets, so that no NaN ever leaves a step
 * and the next one starts from a sound state. */
static void guard_step(const sinew_dyn_rig *rig, sinew_dyn_state *st, const dyn_frame *f,
                       sinew_quat *out)
{
    if (step_finite(st, out, rig->joint_count)) return;
    place_at_rest(rig, st, f);
    for (uint32_t i = 0; i < rig->joint_count; i++)
        out[i] = rig->links[i].rest;
    if (rig->driver_count)
        out[0] = sinew_quat_normalize(
            sinew_quat_mul(driven_in_parent(rig, *dyn_state_drive(st)), rig->links[0].rest));
    st->previous = *f;
    st->lag = 0.0f;
    st->resets++;
}

/* f may be NULL: the job is checked, its parent frame not built. */
static sinew_result check_job(const sinew_dyn_step_job *job, sinew_error *err, dyn_frame *f)
{
    if (!job || !job->rig || !job->state || !job->world || !job->local_rotations)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "dyn step: rig, state, world and local_rotations are required");
    const sinew_dyn_rig *rig = job->rig;
    if (job->state->magic != DYN_STATE_MAGIC || job->state->joint_count != rig->joint_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "dyn step: the state was not made for this rig (%u joints)",
                               rig->joint_count);
    if (job->world_count < rig->node_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "dyn step: %u world transforms for a %u-node skeleton",
                               job->world_count, rig->node_count);
    if (!isfinite(job->dt) || job->dt < 0.0f)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "dyn step: dt must be finite and >= 0 (got %g)", (double)job->dt);
    if (job->floor && !isfinite(job->floor->height))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "dyn step: floor height is not finite");
    const sinew_mat4 *m = &job->world[rig->parent_node];
    if (!frame_from_matrix(m, f))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "dyn step: the world transform of the chain parent (node %d) is "
                               "not finite or is singular",
                               rig->parent_node);
    const float scale = sinew_mat4_axis_scale(m), reach = matrix_reach(m, scale, rig);
    if (!(reach <= DYN_MAX_REACH))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "dyn step: the chain parent (node %d) at scale %g puts the chain "
                               "%g units from the origin, beyond the %g the step computes in",
                               rig->parent_node, (double)scale, (double)reach,
                               (double)DYN_MAX_REACH);
    return SINEW_OK;
}

/* The floor a job steps against: its own when given, else the rig's parameters. */
static void job_floor(const sinew_dyn_step_job *job, int *on, float *y)
{
    const sinew_dyn_params *prm = &job->rig->params;
    if (job->floor) {
        *on = job->floor->enabled != 0;
        *y = job->floor->height + prm->floor_clearance;
    } else {
        *on = !(prm->disable & SINEW_DYN_NO_FLOOR);
        *y = prm->floor_height + prm->floor_clearance;
    }
    *on = *on && job->rig->floor_allowed;
}

sinew_result sinew_dyn_step_validate(const sinew_dyn_step_job *job, sinew_error *err)
{
    dyn_frame f;
    return check_job(job, err, &f);
}

/* How a call of dt advances a state lagging by lag0: `steps` committed substeps of h =
 * max_step, the input time then left (< h), and whether the call was a hitch (more steps
 * than max_substeps: the time beyond the cap is dropped). */
typedef struct dyn_schedule {
    uint32_t steps;
    float lag;
    int hitch;
} dyn_schedule;

static dyn_schedule schedule(const sinew_dyn_params *prm, float lag0, float dt)
{
    dyn_schedule s = {0, 0.0f, 0};
    const float h = prm->max_step, budget = lag0 + dt;
    float fsteps = floorf(budget / h + 1e-3f);
    s.steps = fsteps < 0.0f                       ? 0u
              : fsteps > (float)prm->max_substeps ? prm->max_substeps + 1u
                                                  : (uint32_t)fsteps;
    if (s.steps > prm->max_substeps) {
        s.steps = prm->max_substeps;
        s.hitch = 1;
    } else {
        s.lag = budget - (float)s.steps * h;
        if (s.lag < 1e-3f * h) s.lag = 0.0f;
    }
    return s;
}

/* The parent's frame at committed substep j of a call: substeps happen at (previous time -
 * lag0) + j h, where the frame is interpolated between the previous call's and this one's;
 * a hitch spreads its capped steps evenly over the call. */
static float substep_fraction(const dyn_schedule *s, uint32_t j, float lag0, float dt, float h)
{
    if (j == s->steps && s->lag == 0.0f) return 1.0f;
    float f = s->hitch ? (float)j / (float)s->steps : dt > 0.0f ? ((float)j * h - lag0) / dt : 1.0f;
    return f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
}
static dyn_frame substep_frame(float f, const dyn_frame *prev, const dyn_frame *cur)
{
    return f >= 1.0f ? *cur : frame_lerp(prev, cur, f);
}

/* The capsules' ends at this call, from the job's world transforms (check_job passed them). */
static void capsules_now(const sinew_dyn_rig *rig, const sinew_mat4 *world, dyn_capsule_pose *out)
{
    for (uint32_t c = 0; c < rig->capsule_count; c++) {
        const float *a = world[rig->capsules[c].node_a].m + 12,
                    *b = world[rig->capsules[c].node_b].m + 12;
        const float s = rig->capsules[c].start;
        out[c].b = sinew_vec3_make(b[0], b[1], b[2]);
        out[c].a = s > 0.0f ? sinew_vec3_make(a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s,
                                              a[2] + (b[2] - a[2]) * s)
                            : sinew_vec3_make(a[0], a[1], a[2]);
    }
}
/* ... and at fraction f of the call, between the previous call's ends and these (as
 * substep_frame moves the parent). */
static void capsules_at(uint32_t count, float f, const dyn_capsule_pose *prev,
                        const dyn_capsule_pose *cur, dyn_capsule_pose *out)
{
    for (uint32_t c = 0; c < count; c++) {
        out[c].a = f >= 1.0f ? cur[c].a : sinew_vec3_lerp(prev[c].a, cur[c].a, f);
        out[c].b = f >= 1.0f ? cur[c].b : sinew_vec3_lerp(prev[c].b, cur[c].b, f);
    }
}

enum { DYN_MAX_LANES = 8 };

/* The idle clock `steps` committed steps on, wrapped to the rig's idle cycle when it has one
 * (so states one cycle apart hold the same clock) */
static uint32_t idle_clock(const sinew_dyn_rig *rig, uint32_t clock, uint32_t steps)
{
    if (!rig->idle_cycle) return clock + steps; /* wraps after 2^32 steps: 2.3 years at 60 Hz */
    return (uint32_t)(((uint64_t)clock + steps) % rig->idle_cycle);
}
/* The sway of state st `ahead` steps past its committed clock */
static void idle_at(const sinew_dyn_rig *rig, const sinew_dyn_state *st, double ahead,
                    sinew_quat *out)
{
    *out = dyn_idle_sway(rig, st->idle_seed, (double)st->idle_steps + ahead);
}

/* Advances `width` states of one rig whose lags agree by one call of dt planned as s, with
 * the step `fn` of that width: the committed substeps, then, when the call does not end on
 * a whole step, an uncommitted step over the remaining lag on scratch copies (so that every
 * call reports the chain at its own instant), then the guard. The first step asks the cache
 * for the jobs `ahead` (NULL: none). */
static void advance(const sinew_dyn_rig *rig, sinew_dyn_state *const *st, sinew_quat *const *out,
                    const dyn_frame *cur, const dyn_capsule_pose *cur_caps,
                    const sinew_quat *cur_drive, int width, dyn_lanes_fn fn, const dyn_schedule *s,
                    float dt, int floor_on, float floor_y, const dyn_ahead *ahead)
{
    const uint32_t n = rig->joint_count, nc = rig->capsule_count;
    const float h = rig->params.max_step, lag0 = st[0]->lag;
    float *chain[DYN_MAX_LANES];
    sinew_quat sway[DYN_MAX_LANES], drive[DYN_MAX_LANES];
    dyn_capsule_pose caps[DYN_MAX_LANES * SINEW_DYN_MAX_CAPSULES + 1]; /* + padding */
    const sinew_quat *turn = rig->params.idle > 0.0f ? sway : NULL;
    const sinew_quat *driven = rig->driver_count ? drive : NULL;
    for (int k = 0; k < width; k++)
        chain[k] = st[k]->data;
    if (nc) caps[(size_t)width * nc] = (dyn_capsule_pose){{0, 0, 0}, {0, 0, 0}}; /* the padding */
    for (uint32_t j = 1; j <= s->steps; j++) {
        dyn_frame fr[DYN_MAX_LANES];
        const float f = substep_fraction(s, j, lag0, dt, h);
        for (int k = 0; k < width; k++) {
            fr[k] = substep_frame(f, &st[k]->previous, &cur[k]);
            if (turn) idle_at(rig, st[k], (double)j, &sway[k]);
            /* the drivers' turn between the previous call's and this one's, as the frame */
            if (driven)
                drive[k] =
                    f >= 1.0f ? cur_drive[k] : dyn_slerp(*dyn_state_drive(st[k]), cur_drive[k], f);
            if (nc && f < 1.0f)
                capsules_at(nc, f, dyn_state_capsules(st[k]), &cur_caps[(size_t)k * nc],
                            &caps[(size_t)k * nc]);
        }
        /* at the call's instant (a call of one whole step: the usual case) the capsules are
         * this call's, used as they are */
        const dyn_capsule_pose *at = !nc ? NULL : f < 1.0f ? caps : cur_caps;
        fn(rig, chain, fr, turn, driven, at, h, floor_on, floor_y,
           j == s->steps && s->lag == 0.0f ? out : NULL, ahead);
        ahead = NULL;
    }
    if (s->steps == 0 || s->lag > 0.0f) {
        for (int k = 0; k < width; k++) {
            chain[k] = dyn_state_scratch(st[k]);
            memcpy(chain[k], st[k]->data, DYN_STATE_COMMITTED_PER_JOINT * n * sizeof(float));
            if (turn) idle_at(rig, st[k], (double)s->steps + (double)(s->lag / h), &sway[k]);
        }
        fn(rig, chain, cur, turn, driven ? cur_drive : NULL, nc ? cur_caps : NULL, s->lag, floor_on,
           floor_y, out, ahead);
    }
    for (int k = 0; k < width; k++) {
        st[k]->idle_steps = idle_clock(rig, st[k]->idle_steps, s->steps);
        if (driven) *dyn_state_drive(st[k]) = cur_drive[k];
        st[k]->previous = cur[k];
        if (nc) memcpy(dyn_state_capsules(st[k]), &cur_caps[(size_t)k * nc], nc * sizeof *caps);
        st[k]->lag = s->lag;
        guard_step(rig, st[k], &cur[k], out[k]);
    }
}

sinew_result sinew_dyn_step_run(const sinew_dyn_step_job *job, sinew_error *err)
{
    dyn_frame cur;
    sinew_result r = check_job(job, err, &cur);
    if (r != SINEW_OK) return r;
    const sinew_dyn_rig *rig = job->rig;
    const sinew_dyn_params *prm = &rig->params;
    sinew_dyn_state *st = job->state;
    sinew_quat *out = job->local_rotations;
    int floor_on;
    float floor_y;
    job_floor(job, &floor_on, &floor_y);
    dyn_capsule_pose caps[SINEW_DYN_MAX_CAPSULES + 1]; /* + padding */
    const uint32_t nc = rig->capsule_count;
    capsules_now(rig, job->world, caps);
    if (nc) caps[nc] = (dyn_capsule_pose){{0, 0, 0}, {0, 0, 0}}; /* the padding */

    if (st->placed && !(prm->disable & SINEW_DYN_NO_TELEPORT) &&
        !(sinew_vec3_distance(st->previous.position, cur.position) <= prm->teleport_distance))
        st->placed = 0;
    const sinew_quat drive = dyn_drive_turn(rig, job->world, &cur);
    if (!st->placed) {
        if (rig->driver_count) *dyn_state_drive(st) = drive;
        place_at_rest(rig, st, &cur);
        float *chain = st->data;
        sinew_quat sway;
        if (prm->idle > 0.0f) idle_at(rig, st, 0.0, &sway);
        dyn_substep_lanes1(rig, &chain, &cur, prm->idle > 0.0f ? &sway : NULL,
                           rig->driver_count ? &drive : NULL, nc ? caps : NULL, 0.0f, floor_on,
                           floor_y, &out, NULL);
        st->previous = cur;
        if (nc) memcpy(dyn_state_capsules(st), caps, nc * sizeof caps[0]);
        st->lag = 0.0f;
        guard_step(rig, st, &cur, out);
        return SINEW_OK;
    }
    const dyn_schedule s = schedule(prm, st->lag, job->dt);
    advance(rig, &st, &out, &cur, caps, &drive, 1, dyn_substep_lanes1, &s, job->dt, floor_on,
            floor_y, NULL);
    return SINEW_OK;
}

/* Jobs can share one vector pass when they use one rig, one dt and one floor, their states
 * are distinct and placed, none teleports, and their lags agree (so one schedule serves
 * them all). */
static int batchable(const sinew_dyn_step_job *j, int width, const dyn_frame *cur)
{
    const sinew_dyn_rig *rig = j[0].rig;
    const sinew_dyn_params *prm = &rig->params;
    for (int k = 0; k < width; k++) {
        const sinew_dyn_state *s = j[k].state;
        if (j[k].rig != rig || j[k].dt != j[0].dt || j[k].floor != j[0].floor || !s->placed ||
            s->lag != j[0].state->lag)
            return 0;
        for (int m = 0; m < k; m++)
            if (j[m].state == s) return 0;
        if (!(prm->disable & SINEW_DYN_NO_TELEPORT) &&
            !(sinew_vec3_distance(s->previous.position, cur[k].position) <= prm->teleport_distance))
            return 0;
    }
    return 1;
}

/* The widest lane step this build and CPU run: 8 lanes with AVX2 where built, else 4 where
 * the compiler has vectors, else one job at a time. */
static int lanes_widest(void)
{
#if defined(DYN_LANES8)
    if (__builtin_cpu_supports("avx2")) return 8;
#endif
#if defined(DYN_VECTORS)
    return 4;
#else
    return 1;
#endif
}
static dyn_lanes_fn lanes_fn(int width)
{
#if defined(DYN_LANES8)
    if (width == 8) return dyn_substep_lanes8;
#endif
#if defined(DYN_VECTORS)
    if (width == 4) return dyn_substep_lanes4;
#endif
    (void)width;
    return dyn_substep_lanes1;
}

/* Advances `width` batchable jobs (batchable() said so) by their lane step, asking the cache
 * for the jobs `ahead` meanwhile. */
static void run_lanes(const sinew_dyn_step_job *j, int width, const dyn_frame *cur,
                      const dyn_ahead *ahead)
{
    const sinew_dyn_rig *rig = j[0].rig;
    sinew_dyn_state *st[DYN_MAX_LANES];
    sinew_quat *out[DYN_MAX_LANES];
    for (int k = 0; k < width; k++) {
        st[k] = j[k].state;
        out[k] = j[k].local_rotations;
    }
    int floor_on;
    float floor_y;
    job_floor(&j[0], &floor_on, &floor_y);
    const uint32_t nc = rig->capsule_count;
    dyn_capsule_pose caps[DYN_MAX_LANES * SINEW_DYN_MAX_CAPSULES + 1]; /* + padding */
    for (int k = 0; k < width; k++)
        capsules_now(rig, j[k].world, &caps[(size_t)k * nc]);
    if (nc) caps[(size_t)width * nc] = (dyn_capsule_pose){{0, 0, 0}, {0, 0, 0}}; /* the padding */
    sinew_quat drive[DYN_MAX_LANES];
    for (int k = 0; k < width; k++)
        drive[k] = dyn_drive_turn(rig, j[k].world, &cur[k]);
    const dyn_schedule s = schedule(&rig->params, st[0]->lag, j[0].dt);
    advance(rig, st, out, cur, caps, drive, width, lanes_fn(width), &s, j[0].dt, floor_on, floor_y,
            ahead);
}

uint32_t sinew_dyn_lane_width(void)
{
    return (uint32_t)lanes_widest();
}

sinew_result sinew_dyn_step_run_many(const sinew_dyn_step_job *jobs, uint32_t count,
                                     sinew_error *err)
{
    if (count && !jobs)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "dyn step many: jobs is NULL");
    for (uint32_t i = 0; i < count; i++) {
        /* check only: the frames are built below, where they are used */
        sinew_result r = check_job(&jobs[i], err, NULL);
        if (r != SINEW_OK) {
            if (err) {
                char msg[SINEW_ERROR_MESSAGE_MAX];
                memcpy(msg, err->message, sizeof msg);
                msg[sizeof msg - 1] = 0;
                sinew_error_set(err, r, "job %u: %s", i, msg);
            }
            return r;
        }
    }
    const int widest = lanes_widest();
    uint32_t i = 0;
    while (i < count) {
        /* the widest batch that fits, then 4 lanes, then one job alone */
        int done = 0;
        for (int width = widest; width >= 4 && !done; width /= 2) {
            if (i + (uint32_t)width > count) continue;
            dyn_frame cur[DYN_MAX_LANES];
            for (int k = 0; k < width; k++) /* all jobs were checked above: skip the scan */
                frame_from_finite_matrix(&jobs[i + k].world[jobs[i + k].rig->parent_node], &cur[k]);
            if (!batchable(&jobs[i], width, cur)) continue;
            /* the next `width` jobs' memory, asked for while this batch computes: many
             * characters' states do not fit in L2, and one batch's arithmetic hides the fetch
             * (bench_dyn 10,000 chains, five runs interleaved with a build without it:
             * 28.6-33.9 against 33.2-41.6 ns per joint-step) */
            const uint32_t left = count - i - (uint32_t)width;
            const dyn_ahead ahead = {jobs + i + width,
                                     left < (uint32_t)width ? left : (uint32_t)width};
            run_lanes(&jobs[i], width, cur, left ? &ahead : NULL);
            i += (uint32_t)width;
            done = 1;
        }
        if (!done) {
            sinew_dyn_step_run(&jobs[i], err);
            i++;
        }
    }
    return SINEW_OK;
}
