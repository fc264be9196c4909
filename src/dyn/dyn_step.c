/* The spring-chain step (after Sidorkin, "Animating tails the auto-rigger never gave a bone":
 * step three, and what the mouse taught us).
 * Per link i, root to tip, in world space with Y up:
 *   T_i  = h_i + l_i rot(R_parent q^rest_i, b_i)          rest target from the parent's
 *                                                          current (simulated) frame
 *   p'' = w^2 (T - p) - 2 zeta w p' + g                    semi-implicit Euler
 *   q_i  = swing(H^-1 r_i, H^-1 d_i)                       bend in the common hips frame
 *   q*_i = slerp(q_i, slerp(q_{i-1}^old, q_{i+1}^old, 1/2), 1 - exp(-k dt))   coupling
 *   q^lim = slerp(I, q*, theta_max / theta) if theta > theta_max               elastic limit
 *   then the same kind of cone about the link's bind direction (bind_limit, the skin's bend)
 *   then the forward plane at the tail root and the floor (sphere/plane intersection,
 *   u = (F - h_y) / l clamped, F = g0 + rho) override the limit; the particle is put back
 *   on its rope sphere without feeding the correction into the velocity; the radial
 *   velocity, the velocity into the limit or plane and, in contact, the downward velocity
 *   are removed, and sliding decays by exp(-gamma dt).
 * The rotation of link i is the swing from its rest direction to its final direction. */
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

/* The unit vector nearest to d whose component along the unit normal n is exactly u. */
static sinew_vec3 on_circle(sinew_vec3 d, sinew_vec3 n, float u, sinew_vec3 fallback)
{
    if (u > 1.0f) u = 1.0f;
    if (u < -1.0f) u = -1.0f;
    sinew_vec3 t = sinew_vec3_madd(d, n, -sinew_vec3_dot(d, n));
    float tl = sinew_vec3_length(t);
    if (!(tl > 1e-6f)) {
        t = sinew_vec3_madd(fallback, n, -sinew_vec3_dot(fallback, n));
        tl = sinew_vec3_length(t);
        if (!(tl > 1e-6f)) {
            t = sinew_vec3_cross(n, fabsf(n.x) < 0.9f ? sinew_vec3_make(1, 0, 0)
                                                      : sinew_vec3_make(0, 1, 0));
            tl = sinew_vec3_length(t);
        }
    }
    t = sinew_vec3_scale(t, 1.0f / tl);
    float s = sqrtf(fmaxf(0.0f, 1.0f - u * u));
    return sinew_vec3_add(sinew_vec3_scale(t, s), sinew_vec3_scale(n, u));
}

static inline sinew_vec3 rot3_apply(const rot3 *m, sinew_vec3 v)
{
    return sinew_vec3_make(sinew_vec3_dot(m->r0, v), sinew_vec3_dot(m->r1, v),
                           sinew_vec3_dot(m->r2, v));
}
static inline sinew_vec3 rot3_apply_inverse(const rot3 *m, sinew_vec3 v)
{
    return sinew_vec3_add(
        sinew_vec3_add(sinew_vec3_scale(m->r0, v.x), sinew_vec3_scale(m->r1, v.y)),
        sinew_vec3_scale(m->r2, v.z));
}

/* slerp(a, b, 1/2) exactly: the normalised sum on the shorter arc. */
static sinew_quat quat_mid(sinew_quat a, sinew_quat b)
{
    if (sinew_quat_dot(a, b) < 0.0f) b = sinew_quat_make(-b.x, -b.y, -b.z, -b.w);
    return sinew_quat_normalize(sinew_quat_make(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w));
}

typedef struct step_ctx {
    const sinew_dyn_rig *rig;
    sinew_dyn_state *state;
    sinew_vec3 *p, *v; /* the particles being advanced: committed or scratch */
    sinew_quat *bend;
    int floor_on;
    float floor_y; /* F = g0 + rho */
} step_ctx;

/* Puts the chain at rest in frame f: particles on the rest targets, zero velocity. */
static void place_at_rest(const step_ctx *cx, const dyn_frame *f)
{
    const sinew_dyn_rig *rig = cx->rig;
    sinew_vec3 *p = cx->p, *v = cx->v;
    sinew_quat *bend = cx->bend;
    sinew_vec3 ppos = f->position;
    sinew_quat prot = f->rotation;
    float pscale = f->scale;
    for (uint32_t i = 0; i < rig->joint_count; i++) {
        const dyn_link *L = &rig->links[i];
        sinew_vec3 head = sinew_vec3_madd(ppos, sinew_quat_rotate(prot, L->head), pscale);
        sinew_quat rrest = sinew_quat_mul(prot, L->rest);
        float scale = pscale * L->own_scale;
        p[i] = sinew_vec3_madd(head, sinew_quat_rotate(rrest, L->dir), scale * L->length);
        v[i] = sinew_vec3_make(0, 0, 0);
        bend[i] = sinew_quat_identity();
        ppos = head;
        prot = rrest;
        pscale = scale;
    }
    cx->state->placed = 1;
}

/* One substep of length h (0: constraints only) with the parent at frame f. Writes the
 * local rotations when `out` is not NULL. */
static void substep(const step_ctx *cx, const dyn_frame *f, float h, sinew_quat *out)
{
    const sinew_dyn_rig *rig = cx->rig;
    const sinew_dyn_params *prm = &rig->params;
    sinew_vec3 *p = cx->p, *v = cx->v;
    sinew_quat *bend = cx->bend;
    const uint32_t n = rig->joint_count;

    const sinew_quat H = sinew_quat_normalize(sinew_quat_mul(f->rotation, rig->parent_bind_inv));
    const rot3 Hm = rot3_from_quat(H);
    /* the full step h = max_step has its decays precomputed in the rig (the same bits) */
    const int full = h == prm->max_step;
    const float alpha =
        (n > 1 && !(prm->disable & SINEW_DYN_NO_COUPLING) && h > 0.0f)
            ? (full ? rig->step_alpha
                    : 1.0f - (float)dyn_exp_neg(-(double)prm->coupling_rate * (double)h))
            : 0.0f;
    const int limit_on = !(prm->disable & SINEW_DYN_NO_LIMIT);
    const int plane_on = !(prm->disable & SINEW_DYN_NO_FORWARD_PLANE);
    const float decay =
        full ? rig->step_decay : (float)dyn_exp_neg((double)(-prm->contact_damping * h));
    const sinew_vec3 fwd = sinew_quat_rotate(H, sinew_vec3_make(0, 0, 1));
    const sinew_vec3 back_h =
        sinew_vec3_normalize_or(sinew_vec3_make(-fwd.x, 0, -fwd.z), sinew_vec3_make(0, 0, -1));
    const float gy = -prm->gravity;

    /* Orientations are tracked in the hips frame (H^-1 world): there the chain parent's
     * frame is its constant bind rotation, bends are compared as the article asks, and local
     * rotations come out without H. Positions stay in world (gravity, floor). */
    sinew_quat ph = sinew_quat_conjugate(rig->parent_bind_inv); /* parent, hips frame */
    float scale = f->scale;
    sinew_vec3 head =
        sinew_vec3_madd(f->position, sinew_quat_rotate(f->rotation, rig->links[0].head), scale);
    const sinew_vec3 root = head;
    sinew_quat prev_old = sinew_quat_identity(); /* q_{i-1}^old; the hips' support at i=0 */

    for (uint32_t i = 0; i < n; i++) {
        const dyn_link *L = &rig->links[i];
        scale *= L->own_scale;
        const float len = scale * L->length;
        const sinew_quat rrest = sinew_quat_mul(ph, L->rest);   /* rest frame, hips space */
        const sinew_vec3 rh = sinew_quat_rotate(rrest, L->dir); /* rest direction, hips */
        const sinew_vec3 rdir = rot3_apply(&Hm, rh);            /* ... and world */

        /* Damped spring toward the rest target, semi-implicit Euler. */
        sinew_vec3 target = sinew_vec3_madd(head, rdir, len);
        sinew_vec3 acc = sinew_vec3_sub(sinew_vec3_scale(sinew_vec3_sub(target, p[i]), L->omega2),
                                        sinew_vec3_scale(v[i], L->two_zeta_omega));
        acc.y += gy;
        v[i] = sinew_vec3_madd(v[i], acc, h);
        p[i] = sinew_vec3_madd(p[i], v[i], h);
        sinew_vec3 d = sinew_vec3_normalize_or(sinew_vec3_sub(p[i], head), rdir);

        /* Bend in the common hips frame, coupled to the neighbours' snapshots. */
        sinew_quat qb = sinew_quat_swing(rh, rot3_apply_inverse(&Hm, d));
        sinew_quat old = bend[i];
        if (alpha > 0.0f) {
            sinew_quat target_q;
            if (i == 0)
                target_q = quat_mid(sinew_quat_identity(), bend[1]);
            else if (i + 1 == n)
                target_q = prev_old;
            else
                target_q = quat_mid(prev_old, bend[i + 1]);
            qb = dyn_slerp_fast(qb, target_q, alpha);
        }
        prev_old = old;

        /* Elastic bend limit: slerp(I, q, theta_max / theta) keeps the axis, sets the angle. */
        int limited = 0;
        sinew_vec3 dc = d; /* where the particle pushes: the velocity toward it is removed
                              when coupling or the limit holds the link elsewhere */
        if (limit_on && fabsf(qb.w) < rig->cos_half_limit) {
            float sgn = qb.w < 0.0f ? -1.0f : 1.0f;
            sinew_vec3 axis = sinew_vec3_normalize_or(
                sinew_vec3_make(qb.x * sgn, qb.y * sgn, qb.z * sgn), sinew_vec3_make(1, 0, 0));
            dc = rot3_apply(&Hm, sinew_quat_rotate(qb, rh));
            qb = sinew_quat_make(axis.x * rig->sin_half_limit, axis.y * rig->sin_half_limit,
                                 axis.z * rig->sin_half_limit, rig->cos_half_limit);
            limited = 1;
        }
        sinew_vec3 dfin_h = sinew_quat_rotate(qb, rh);
        /* Bind cone: the bend from BIND (what deforms the skin) is kept within bind_limit,
         * along the same great circle, on top of the limit from the rest direction above. */
        if (limit_on) {
            const sinew_vec3 bh = sinew_quat_rotate(ph, L->bind_dir);
            /* outside the cone when the angle from bind is over it: a dot product decides,
             * the swing is built only then */
            if (sinew_vec3_dot(bh, dfin_h) < L->cos_bind) {
                sinew_quat qk = sinew_quat_swing(bh, dfin_h);
                float sgn = qk.w < 0.0f ? -1.0f : 1.0f;
                sinew_vec3 axis = sinew_vec3_normalize_or(
                    sinew_vec3_make(qk.x * sgn, qk.y * sgn, qk.z * sgn), sinew_vec3_make(1, 0, 0));
                qk = sinew_quat_make(axis.x * L->sin_half_bind, axis.y * L->sin_half_bind,
                                     axis.z * L->sin_half_bind, L->cos_half_bind);
                dfin_h = sinew_quat_rotate(qk, bh);
                limited = 1;
            }
        }
        sinew_vec3 dfin = rot3_apply(&Hm, dfin_h);

        /* Forward plane through the tail root: (h + l d - root) . fwd <= 0. */
        int plane_hit = 0;
        if (plane_on) {
            float umax = -sinew_vec3_dot(sinew_vec3_sub(head, root), fwd) / len;
            if (sinew_vec3_dot(dfin, fwd) > umax) {
                dfin = on_circle(dfin, fwd, umax, rdir);
                plane_hit = 1;
            }
        }
        /* Floor: the sphere/plane intersection, u clamped (never stretch the bone or lift
         * the body); contact overrides the bend limit. */
        int contact = 0;
        if (cx->floor_on && head.y + len * dfin.y < cx->floor_y) {
            float u = (cx->floor_y - head.y) / len;
            if (u > 1.0f) u = 1.0f;
            if (u < -1.0f) u = -1.0f;
            sinew_vec3 t = sinew_vec3_make(dfin.x, 0, dfin.z);
            if (sinew_vec3_dot(t, t) < 1e-12f) t = sinew_vec3_make(rdir.x, 0, rdir.z);
            if (sinew_vec3_dot(t, t) < 1e-12f) t = back_h;
            t = sinew_vec3_normalize_or(t, back_h);
            sinew_vec3 cand = sinew_vec3_madd(sinew_vec3_scale(t, sqrtf(1.0f - u * u)),
                                              sinew_vec3_make(0, 1, 0), u);
            if (plane_on && sinew_vec3_dot(sinew_vec3_madd(sinew_vec3_sub(head, root), cand, len),
                                           fwd) > 0.0f) {
                /* keep the allowed (rear) part of the contact circle */
                float tf = sinew_vec3_dot(t, back_h);
                if (tf < 0.0f) t = sinew_vec3_normalize_or(sinew_vec3_madd(t, back_h, -tf), back_h);
                cand = sinew_vec3_madd(sinew_vec3_scale(t, sqrtf(1.0f - u * u)),
                                       sinew_vec3_make(0, 1, 0), u);
            }
            dfin = cand;
            contact = 1;
        }
        if (plane_hit || contact) dfin_h = rot3_apply_inverse(&Hm, dfin);
        p[i] = sinew_vec3_madd(head, dfin, len);

        /* Velocity: the rope drops its radial part (the correction is never fed back). */
        sinew_vec3 vi = sinew_vec3_madd(v[i], dfin, -sinew_vec3_dot(v[i], dfin));
        if ((limited || alpha > 0.0f) && !contact) {
            /* The push toward where the particle wanted to be, across the rope. Against the
             * bend limit it all goes, as in the article. Against coupling only what would
             * undo this substep's correction goes: removing more makes the chain stick like
             * dry friction, with no single cycle for a looping clip to settle on. */
            sinew_vec3 w = sinew_vec3_madd(dc, dfin, -sinew_vec3_dot(dc, dfin));
            float wl = sqrtf(sinew_vec3_dot(w, w));
            if (wl > 1e-9f) {
                sinew_vec3 wu = sinew_vec3_scale(w, 1.0f / wl);
                float into = sinew_vec3_dot(vi, wu);
                if (!limited) into = fminf(into, len * wl / h);
                if (into > 0.0f) vi = sinew_vec3_madd(vi, wu, -into);
            }
        }
        if (plane_hit) {
            float into = sinew_vec3_dot(vi, fwd);
            if (into > 0.0f) vi = sinew_vec3_madd(vi, fwd, -into);
        }
        if (contact) {
            /* Downward contact velocity goes: on the rope sphere "down" is along the
             * meridian through dfin, so remove that part before the world-y clamp (else the
             * projection keeps killing a ghost velocity that never decays). */
            sinew_vec3 up = sinew_vec3_madd(sinew_vec3_make(0, 1, 0), dfin, -dfin.y);
            float uu = sinew_vec3_dot(up, up);
            float down = sinew_vec3_dot(vi, up);
            if (uu > 1e-12f && down < 0.0f) vi = sinew_vec3_madd(vi, up, -down / uu);
            if (vi.y < 0.0f) vi.y = 0.0f;
            vi = sinew_vec3_scale(vi, decay);
        }
        v[i] = vi;

        /* The link's rotation: the swing from its rest direction to where it points (twist
         * free, as in the article), kept as the bend snapshot for the neighbours' next
         * coupling. */
        sinew_quat sw = sinew_quat_swing(rh, dfin_h);
        bend[i] = sw;
        sinew_quat g = sinew_quat_mul(sw, rrest); /* unit to rounding; ph restarts each substep */
        if (out) out[i] = sinew_quat_mul(sinew_quat_conjugate(ph), g); /* unit: both are */
        ph = g;
        head = p[i]; /* the next link's head is this link's tip */
    }
}

/* How far from the origin the chain can reach, world units: the largest coordinate the step
 * forms squares of. Float carries squares up to 3e38; 1e15 leaves 1e8 of it for the spring's
 * omega^2 and the sums of three squares (a parent scaled by 1e20 turned the state to NaN
 * while the step returned OK). Real scenes are far inside it: a planet in millimetres is
 * 1e10. */
#define DYN_MAX_REACH 1e15f
/* The mean length of a matrix's three axes (dyn_frame.scale), and the reach of a chain hung
 * from it: its largest translation component plus that scale times the chain's length. */
static float matrix_scale(const sinew_mat4 *m)
{
    float sum = 0.0f;
    for (int c = 0; c < 3; c++)
        sum += sqrtf(m->m[c * 4] * m->m[c * 4] + m->m[c * 4 + 1] * m->m[c * 4 + 1] +
                     m->m[c * 4 + 2] * m->m[c * 4 + 2]);
    return sum * (1.0f / 3.0f);
}
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
    float sum = 0.0f; /* one NaN or infinity anywhere makes the sum so */
    for (uint32_t k = 0; k < 10u * n; k++)
        sum += d[k] * 0.0f;
    for (uint32_t i = 0; i < n; i++)
        sum += (out[i].x + out[i].y + out[i].z + out[i].w) * 0.0f;
    return sum == 0.0f;
}

/* The guard every step ends with, scalar or in lanes: a state the step left not finite
 * (inputs beyond what the checks foresee) is put back at rest in the parent's frame f, its
 * output the rest rotations, and counted in state->resets, so that no NaN ever leaves a step
 * and the next one starts from a sound state. */
static void guard_step(const sinew_dyn_rig *rig, sinew_dyn_state *st, const dyn_frame *f,
                       sinew_quat *out)
{
    if (step_finite(st, out, rig->joint_count)) return;
    step_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.rig = rig;
    cx.state = st;
    cx.p = dyn_state_positions(st);
    cx.v = dyn_state_velocities(st);
    cx.bend = dyn_state_bends(st);
    place_at_rest(&cx, f);
    for (uint32_t i = 0; i < rig->joint_count; i++)
        out[i] = rig->links[i].rest;
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
    const float scale = matrix_scale(m), reach = matrix_reach(m, scale, rig);
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

sinew_result sinew_dyn_step_run(const sinew_dyn_step_job *job, sinew_error *err)
{
    dyn_frame cur;
    sinew_result r = check_job(job, err, &cur);
    if (r != SINEW_OK) return r;
    const sinew_dyn_rig *rig = job->rig;
    const sinew_dyn_params *prm = &rig->params;
    sinew_dyn_state *st = job->state;
    const uint32_t n = rig->joint_count;

    step_ctx cx;
    cx.rig = rig;
    cx.state = st;
    cx.p = dyn_state_positions(st);
    cx.v = dyn_state_velocities(st);
    cx.bend = dyn_state_bends(st);
    job_floor(job, &cx.floor_on, &cx.floor_y);

    if (st->placed && !(prm->disable & SINEW_DYN_NO_TELEPORT) &&
        !(sinew_vec3_distance(st->previous.position, cur.position) <= prm->teleport_distance))
        st->placed = 0;
    if (!st->placed) {
        place_at_rest(&cx, &cur);
        substep(&cx, &cur, 0.0f, job->local_rotations);
        st->previous = cur;
        st->lag = 0.0f;
        guard_step(rig, st, &cur, job->local_rotations);
        return SINEW_OK;
    }

    /* Fixed internal step h: the committed particles lag the input by st->lag < h. The
     * substeps of this call happen at (previous time - lag) + j h, where the parent frame
     * is interpolated between the previous call's and this one's. */
    const float h = prm->max_step, dt = job->dt;
    const float budget = st->lag + dt;
    float fsteps = floorf(budget / h + 1e-3f);
    uint32_t steps = fsteps < 0.0f                       ? 0u
                     : fsteps > (float)prm->max_substeps ? prm->max_substeps + 1u
                                                         : (uint32_t)fsteps;
    float lag;
    if (steps > prm->max_substeps) {
        steps = prm->max_substeps; /* a hitch: drop the time beyond the cap */
        lag = 0.0f;
    } else {
        lag = budget - (float)steps * h;
        if (lag < 1e-3f * h) lag = 0.0f;
    }
    const dyn_frame prev = st->previous;
    for (uint32_t j = 1; j <= steps; j++) {
        float f = 1.0f;
        if (j < steps || lag > 0.0f) {
            f = dt > 0.0f ? ((float)j * h - st->lag) / dt : 1.0f;
            if (steps == prm->max_substeps && lag == 0.0f) f = (float)j / (float)steps;
            f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
        }
        dyn_frame fr = f >= 1.0f ? cur : frame_lerp(&prev, &cur, f);
        int last = j == steps && lag == 0.0f;
        substep(&cx, &fr, h, last ? job->local_rotations : NULL);
    }
    if (steps == 0 || lag > 0.0f) {
        /* The output covers the remaining lag with an uncommitted step on scratch copies,
         * so every call reports the chain at its own instant. */
        float *scratch = st->data + 10u * n;
        memcpy(scratch, st->data, 10u * n * sizeof(float));
        step_ctx px = cx;
        px.p = (sinew_vec3 *)(void *)scratch;
        px.v = (sinew_vec3 *)(void *)(scratch + 3u * n);
        px.bend = (sinew_quat *)(void *)(scratch + 6u * n);
        substep(&px, &cur, lag, job->local_rotations);
    }
    st->previous = cur;
    st->lag = lag;
    guard_step(rig, st, &cur, job->local_rotations);
    return SINEW_OK;
}

/* Jobs can share one vector pass when they use one rig, one dt and one floor, their states
 * are distinct and placed, none teleports, their lags agree, and the call ends on a whole
 * step. */
static int batchable(const sinew_dyn_step_job *j, int width, const dyn_frame *cur, uint32_t *steps)
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
    const float h = prm->max_step, budget = j[0].state->lag + j[0].dt;
    float fsteps = floorf(budget / h + 1e-3f);
    if (fsteps < 1.0f || fsteps > (float)prm->max_substeps) return 0;
    float lag = budget - fsteps * h;
    if (!(lag < 1e-3f * h)) return 0;
    *steps = (uint32_t)fsteps;
    return 1;
}

typedef void (*lanes_fn)(const sinew_dyn_rig *rig, sinew_dyn_state *const *st, const dyn_frame *f,
                         float h, int floor_on, float floor_y, sinew_quat *const *out);

/* The widest lane step this CPU runs: 8 lanes with AVX2 where built, else 4. */
static int lanes_widest(lanes_fn *fn)
{
#if defined(SINEW_DYN_LANES8)
    if (__builtin_cpu_supports("avx2")) {
        *fn = dyn_substep_lanes8;
        return 8;
    }
#endif
    *fn = dyn_substep_lanes4;
    return 4;
}

/* Advances `width` batchable jobs (batchable() said so, with `steps`) by their lane step. */
static void run_lanes(const sinew_dyn_step_job *j, int width, lanes_fn fn, const dyn_frame *cur,
                      uint32_t steps)
{
    enum { MAXW = 8 };
    const sinew_dyn_rig *rig = j[0].rig;
    const sinew_dyn_params *prm = &rig->params;
    sinew_dyn_state *st[MAXW];
    sinew_quat *out[MAXW];
    for (int k = 0; k < width; k++) {
        st[k] = j[k].state;
        out[k] = j[k].local_rotations;
    }
    int floor_on;
    float floor_y;
    job_floor(&j[0], &floor_on, &floor_y);
    const float h = prm->max_step, dt = j[0].dt, lag0 = st[0]->lag;
    for (uint32_t s = 1; s <= steps; s++) {
        dyn_frame fr[MAXW];
        for (int k = 0; k < width; k++) {
            float f = 1.0f;
            if (s < steps) {
                f = dt > 0.0f ? ((float)s * h - lag0) / dt : 1.0f;
                f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
            }
            fr[k] = f >= 1.0f ? cur[k] : frame_lerp(&st[k]->previous, &cur[k], f);
        }
        fn(rig, st, fr, h, floor_on, floor_y, s == steps ? out : NULL);
    }
    for (int k = 0; k < width; k++) {
        st[k]->previous = cur[k];
        st[k]->lag = 0.0f;
        guard_step(rig, st[k], &cur[k], out[k]);
    }
}

/* Asks the cache for the committed states (header, p, v, bends) of the next `width` jobs
 * while this batch computes: many characters' states do not fit in L2, and one batch's
 * arithmetic hides the fetch (bench_dyn 10,000 chains, five runs interleaved with a build
 * without it: 28.6-33.9 against 33.2-41.6 ns per joint-step). */
static void prefetch_states(const sinew_dyn_step_job *next, uint32_t left, int width)
{
    for (uint32_t k = 0; k < left && k < (uint32_t)width; k++) {
        const char *s = (const char *)next[k].state;
        size_t bytes = sizeof(sinew_dyn_state) + 10u * next[k].rig->joint_count * sizeof(float);
        for (size_t b = 0; b < bytes; b += 64)
            __builtin_prefetch(s + b, 1);
    }
}

uint32_t sinew_dyn_lane_width(void)
{
    lanes_fn fn;
    return (uint32_t)lanes_widest(&fn);
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
    lanes_fn wide;
    const int widest = lanes_widest(&wide);
    uint32_t i = 0;
    while (i < count) {
        /* the widest batch that fits, then 4 lanes, then one job alone */
        int done = 0;
        for (int width = widest; width >= 4 && !done; width /= 2) {
            if (i + (uint32_t)width > count) continue;
            dyn_frame cur[8];
            uint32_t steps = 0;
            for (int k = 0; k < width; k++) /* all jobs were checked above: skip the scan */
                frame_from_finite_matrix(&jobs[i + k].world[jobs[i + k].rig->parent_node], &cur[k]);
            if (!batchable(&jobs[i], width, cur, &steps)) continue;
            prefetch_states(jobs + i + width, count - i - (uint32_t)width, width);
            run_lanes(&jobs[i], width, width == widest ? wide : dyn_substep_lanes4, cur, steps);
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
