/* The spring-chain step (seed 000, "Etapa tres" and "O que o camundongo nos ensinou").
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
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

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

/* A rotation as a 3x3 matrix (rows), for the hips frame that rotates three vectors per link:
 * 15 flops per product instead of a quaternion rotation's 30. */
typedef struct rot3 {
    sinew_vec3 r0, r1, r2;
} rot3;

static rot3 rot3_from_quat(sinew_quat q)
{
    float x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    float xx = q.x * x2, xy = q.x * y2, xz = q.x * z2, yy = q.y * y2, yz = q.y * z2;
    float zz = q.z * z2, wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    rot3 m = {{1 - (yy + zz), xy - wz, xz + wy},
              {xy + wz, 1 - (xx + zz), yz - wx},
              {xz - wy, yz + wx, 1 - (xx + yy)}};
    return m;
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
    const float alpha = (n > 1 && !(prm->disable & SINEW_DYN_NO_COUPLING) && h > 0.0f)
                            ? 1.0f - (float)dyn_exp_neg(-(double)prm->coupling_rate * (double)h)
                            : 0.0f;
    const int limit_on = !(prm->disable & SINEW_DYN_NO_LIMIT);
    const int plane_on = !(prm->disable & SINEW_DYN_NO_FORWARD_PLANE);
    const float decay = (float)dyn_exp_neg((double)(-prm->contact_damping * h));
    const sinew_vec3 fwd = sinew_quat_rotate(H, sinew_vec3_make(0, 0, 1));
    const sinew_vec3 back_h =
        sinew_vec3_normalize_or(sinew_vec3_make(-fwd.x, 0, -fwd.z), sinew_vec3_make(0, 0, -1));
    const float gy = -prm->gravity;

    /* Orientations are tracked in the hips frame (H^-1 world): there the chain parent's
     * frame is its constant bind rotation, bends are compared as the seed asks, and local
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
            const sinew_vec3 bh = sinew_quat_rotate(sinew_quat_mul(ph, L->bind), L->dir);
            sinew_quat qk = sinew_quat_swing(bh, dfin_h);
            if (fabsf(qk.w) < L->cos_half_bind) {
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
             * bend limit it all goes (seed 000). Against coupling only what would undo this
             * substep's correction goes: removing more makes the chain stick like dry
             * friction, with no single cycle for a looping clip to settle on. */
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
         * free, seed 000), kept as the bend snapshot for the neighbours' next coupling. */
        sinew_quat sw = sinew_quat_swing(rh, dfin_h);
        bend[i] = sw;
        sinew_quat g = sinew_quat_mul(sw, rrest); /* unit to rounding; ph restarts each substep */
        if (out) out[i] = sinew_quat_mul(sinew_quat_conjugate(ph), g); /* unit: both are */
        ph = g;
        head = p[i]; /* the next link's head is this link's tip */
    }
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
    if (!frame_from_matrix(&job->world[rig->parent_node], f))
        return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                               "dyn step: the world transform of the chain parent (node %d) is "
                               "not finite or is singular",
                               rig->parent_node);
    return SINEW_OK;
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
    if (job->floor) {
        cx.floor_on = job->floor->enabled != 0;
        cx.floor_y = job->floor->height + prm->floor_clearance;
    } else {
        cx.floor_on = !(prm->disable & SINEW_DYN_NO_FLOOR);
        cx.floor_y = prm->floor_height + prm->floor_clearance;
    }

    if (st->placed && !(prm->disable & SINEW_DYN_NO_TELEPORT) &&
        !(sinew_vec3_distance(st->previous.position, cur.position) <= prm->teleport_distance))
        st->placed = 0;
    if (!st->placed) {
        place_at_rest(&cx, &cur);
        substep(&cx, &cur, 0.0f, job->local_rotations);
        st->previous = cur;
        st->lag = 0.0f;
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
    return SINEW_OK;
}

/* ---- four chains at once -------------------------------------------------------------
 * The per-link work of one chain is a long dependency chain (each link needs its parent's
 * rotation), so a single chain leaves most of the CPU idle. sinew_dyn_step_run_many runs
 * four chains of one rig in the lanes of 4-wide vectors: the same formulas as substep(),
 * branches turned into per-lane selects. */

typedef float v4 __attribute__((vector_size(16)));
typedef int32_t m4 __attribute__((vector_size(16)));
typedef struct V3 {
    v4 x, y, z;
} V3;
typedef struct Q4 {
    v4 x, y, z, w;
} Q4;

static inline v4 splat(float a)
{
    return (v4){a, a, a, a};
}
static inline v4 vsel(m4 m, v4 a, v4 b)
{
    return (v4)((m & (m4)a) | (~m & (m4)b));
}
static inline V3 V3sel(m4 m, V3 a, V3 b)
{
    return (V3){vsel(m, a.x, b.x), vsel(m, a.y, b.y), vsel(m, a.z, b.z)};
}
static inline Q4 Q4sel(m4 m, Q4 a, Q4 b)
{
    return (Q4){vsel(m, a.x, b.x), vsel(m, a.y, b.y), vsel(m, a.z, b.z), vsel(m, a.w, b.w)};
}
static inline v4 vsqrt(v4 a)
{
#if defined(__SSE__)
    return (v4)_mm_sqrt_ps((__m128)a); /* IEEE sqrt, the same bits as sqrtf per lane */
#else
    v4 r;
    for (int k = 0; k < 4; k++)
        r[k] = sqrtf(a[k]);
    return r;
#endif
}
/* Whether any / every lane of a mask is set: one movemask on SSE instead of four lane
 * extracts. substep4 uses them to skip work no lane needs (rare branches: the bend limit,
 * plane, floor, antiparallel swings, degenerate normalisations); the results are the same
 * bits, the work is less: callgrind on `bench_dyn 500 20` went from 128.1M to 95.4M
 * instructions with the other changes of that pass (precomputed rest/bind directions and
 * step constants, one gather per bend, SSE transposes, frames built once), and
 * `bench_dyn 10000 120` from ~62-65 to ~48-50 ns per joint-step. */
static inline int any4(m4 m)
{
#if defined(__SSE__)
    return _mm_movemask_ps((__m128)m) != 0;
#else
    return (m[0] | m[1] | m[2] | m[3]) != 0;
#endif
}
static inline int all4(m4 m)
{
#if defined(__SSE__)
    return _mm_movemask_ps((__m128)m) == 15;
#else
    return (m[0] & m[1] & m[2] & m[3]) != 0;
#endif
}
static inline v4 vabs(v4 a)
{
    return (v4)((m4)a & (m4){0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff});
}
static inline V3 V3add(V3 a, V3 b)
{
    return (V3){a.x + b.x, a.y + b.y, a.z + b.z};
}
static inline V3 V3sub(V3 a, V3 b)
{
    return (V3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline V3 V3scale(V3 a, v4 s)
{
    return (V3){a.x * s, a.y * s, a.z * s};
}
static inline V3 V3madd(V3 a, V3 b, v4 s)
{
    return (V3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s};
}
static inline v4 V3dot(V3 a, V3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline V3 V3cross(V3 a, V3 b)
{
    return (V3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline V3 V3splat(sinew_vec3 a)
{
    return (V3){splat(a.x), splat(a.y), splat(a.z)};
}
static inline V3 V3normalize_or(V3 a, V3 fallback)
{
    v4 len = vsqrt(V3dot(a, a));
    m4 ok = len > splat(1e-12f);
    if (all4(ok)) return V3scale(a, splat(1.0f) / len); /* the usual case: no selects */
    v4 inv = splat(1.0f) / vsel(ok, len, splat(1.0f));
    return V3sel(ok, V3scale(a, inv), fallback);
}
static inline Q4 Q4normalize(Q4 q)
{
    v4 len = vsqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    m4 ok = len > splat(1e-12f);
    if (all4(ok)) { /* the usual case: no selects */
        v4 s = splat(1.0f) / len;
        return (Q4){q.x * s, q.y * s, q.z * s, q.w * s};
    }
    v4 s = splat(1.0f) / vsel(ok, len, splat(1.0f));
    Q4 n = {q.x * s, q.y * s, q.z * s, q.w * s};
    return Q4sel(ok, n, (Q4){splat(0), splat(0), splat(0), splat(1)});
}
static inline Q4 Q4mul(Q4 a, Q4 b)
{
    return (Q4){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
static inline Q4 Q4conj(Q4 q)
{
    return (Q4){-q.x, -q.y, -q.z, q.w};
}
static inline v4 Q4dot(Q4 a, Q4 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
static inline V3 Q4rotate(Q4 q, V3 v)
{
    V3 u = {q.x, q.y, q.z};
    V3 t = V3scale(V3cross(u, v), splat(2.0f));
    return V3add(V3add(v, V3scale(t, q.w)), V3cross(u, t));
}
static inline Q4 Q4swing(V3 a, V3 b)
{
    v4 d = V3dot(a, b);
    m4 opposite = d < splat(-0.999999f);
    V3 c = V3cross(a, b);
    Q4 q = Q4normalize((Q4){c.x, c.y, c.z, splat(1.0f) + d});
    /* antiparallel: pi about an axis perpendicular to a. Rare, so only built when a lane
     * needs it (three swings per link). */
    if (!any4(opposite)) return q;
    V3 axis = V3cross(V3splat(sinew_vec3_make(1, 0, 0)), a);
    V3 axis2 = V3cross(V3splat(sinew_vec3_make(0, 1, 0)), a);
    axis = V3sel(V3dot(axis, axis) < splat(1e-8f), axis2, axis);
    axis = V3normalize_or(axis, V3splat(sinew_vec3_make(0, 0, 1)));
    return Q4sel(opposite, (Q4){axis.x, axis.y, axis.z, splat(0)}, q);
}
static inline Q4 Q4mid(Q4 a, Q4 b)
{
    m4 flip = Q4dot(a, b) < splat(0.0f);
    v4 s = vsel(flip, splat(-1.0f), splat(1.0f));
    return Q4normalize((Q4){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s, a.w + b.w * s});
}
static inline Q4 Q4slerp_fast(Q4 a, Q4 b, float t)
{
    v4 c = Q4dot(a, b), d = vabs(c);
    v4 A = splat(1.0904f) + d * (splat(-3.2452f) + d * (splat(3.55645f) - d * splat(1.43519f)));
    v4 B = splat(0.848013f) + d * (splat(-1.06021f) + d * splat(0.215638f));
    v4 k = A * splat((t - 0.5f) * (t - 0.5f)) + B;
    v4 ot = splat(t) + splat(t * (t - 0.5f) * (t - 1.0f)) * k;
    v4 ka = splat(1.0f) - ot, kb = vsel(c < splat(0.0f), -ot, ot);
    return Q4normalize(
        (Q4){a.x * ka + b.x * kb, a.y * ka + b.y * kb, a.z * ka + b.z * kb, a.w * ka + b.w * kb});
}
typedef struct R3 {
    V3 r0, r1, r2;
} R3;
static inline V3 R3apply(const R3 *m, V3 v)
{
    return (V3){V3dot(m->r0, v), V3dot(m->r1, v), V3dot(m->r2, v)};
}
static inline V3 R3apply_inverse(const R3 *m, V3 v)
{
    return V3add(V3add(V3scale(m->r0, v.x), V3scale(m->r1, v.y)), V3scale(m->r2, v.z));
}
/* the unit vector nearest to d with component u along unit n (on_circle, per lane) */
static inline V3 V3on_circle(V3 d, V3 n, v4 u, V3 fallback)
{
    u = vsel(u > splat(1.0f), splat(1.0f), vsel(u < splat(-1.0f), splat(-1.0f), u));
    V3 t = V3madd(d, n, -V3dot(d, n));
    V3 tf = V3madd(fallback, n, -V3dot(fallback, n));
    V3 any = V3cross(n, V3sel(vabs(n.x) < splat(0.9f), V3splat(sinew_vec3_make(1, 0, 0)),
                              V3splat(sinew_vec3_make(0, 1, 0))));
    v4 tl = vsqrt(V3dot(t, t)), fl = vsqrt(V3dot(tf, tf));
    t = V3sel(tl > splat(1e-6f), t, V3sel(fl > splat(1e-6f), tf, any));
    t = V3normalize_or(t, any);
    v4 s = vsqrt(vsel(splat(1.0f) - u * u > splat(0.0f), splat(1.0f) - u * u, splat(0.0f)));
    return V3add(V3scale(t, s), V3scale(n, u));
}

static inline V3 gather3(sinew_vec3 *const *a, uint32_t i)
{
    return (V3){{a[0][i].x, a[1][i].x, a[2][i].x, a[3][i].x},
                {a[0][i].y, a[1][i].y, a[2][i].y, a[3][i].y},
                {a[0][i].z, a[1][i].z, a[2][i].z, a[3][i].z}};
}
static inline void scatter3(sinew_vec3 *const *a, uint32_t i, V3 v)
{
    for (int k = 0; k < 4; k++)
        a[k][i] = sinew_vec3_make(v.x[k], v.y[k], v.z[k]);
}
/* Quaternions are 4 floats: on SSE a 4x4 transpose of whole-quaternion loads/stores
 * replaces 16 lane inserts or extracts (bits unchanged). */
static inline Q4 gather4(sinew_quat *const *a, uint32_t i)
{
#if defined(__SSE__)
    __m128 r0 = _mm_loadu_ps(&a[0][i].x), r1 = _mm_loadu_ps(&a[1][i].x);
    __m128 r2 = _mm_loadu_ps(&a[2][i].x), r3 = _mm_loadu_ps(&a[3][i].x);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    return (Q4){(v4)r0, (v4)r1, (v4)r2, (v4)r3};
#else
    return (Q4){{a[0][i].x, a[1][i].x, a[2][i].x, a[3][i].x},
                {a[0][i].y, a[1][i].y, a[2][i].y, a[3][i].y},
                {a[0][i].z, a[1][i].z, a[2][i].z, a[3][i].z},
                {a[0][i].w, a[1][i].w, a[2][i].w, a[3][i].w}};
#endif
}
static inline void scatter4(sinew_quat *const *a, uint32_t i, Q4 q)
{
#if defined(__SSE__)
    __m128 r0 = (__m128)q.x, r1 = (__m128)q.y, r2 = (__m128)q.z, r3 = (__m128)q.w;
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(&a[0][i].x, r0);
    _mm_storeu_ps(&a[1][i].x, r1);
    _mm_storeu_ps(&a[2][i].x, r2);
    _mm_storeu_ps(&a[3][i].x, r3);
#else
    for (int k = 0; k < 4; k++)
        a[k][i] = sinew_quat_make(q.x[k], q.y[k], q.z[k], q.w[k]);
#endif
}
static inline Q4 Q4splat(sinew_quat q)
{
    return (Q4){splat(q.x), splat(q.y), splat(q.z), splat(q.w)};
}

/* substep() for four chains of one rig, each with its own parent frame. */
static void substep4(const sinew_dyn_rig *rig, sinew_dyn_state *const *st, const dyn_frame *f,
                     float h, int floor_on, float floor_y, sinew_quat *const *out)
{
    const sinew_dyn_params *prm = &rig->params;
    const uint32_t n = rig->joint_count;
    sinew_vec3 *p[4], *v[4];
    sinew_quat *bend[4];
    R3 Hm;
    V3 fwd, back_h, head;
    v4 scale;
    for (int k = 0; k < 4; k++) {
        p[k] = dyn_state_positions(st[k]);
        v[k] = dyn_state_velocities(st[k]);
        bend[k] = dyn_state_bends(st[k]);
        sinew_quat H = sinew_quat_normalize(sinew_quat_mul(f[k].rotation, rig->parent_bind_inv));
        rot3 m = rot3_from_quat(H);
        Hm.r0.x[k] = m.r0.x, Hm.r0.y[k] = m.r0.y, Hm.r0.z[k] = m.r0.z;
        Hm.r1.x[k] = m.r1.x, Hm.r1.y[k] = m.r1.y, Hm.r1.z[k] = m.r1.z;
        Hm.r2.x[k] = m.r2.x, Hm.r2.y[k] = m.r2.y, Hm.r2.z[k] = m.r2.z;
        sinew_vec3 fw = sinew_quat_rotate(H, sinew_vec3_make(0, 0, 1));
        sinew_vec3 bh =
            sinew_vec3_normalize_or(sinew_vec3_make(-fw.x, 0, -fw.z), sinew_vec3_make(0, 0, -1));
        sinew_vec3 hd = sinew_vec3_madd(
            f[k].position, sinew_quat_rotate(f[k].rotation, rig->links[0].head), f[k].scale);
        fwd.x[k] = fw.x, fwd.y[k] = fw.y, fwd.z[k] = fw.z;
        back_h.x[k] = bh.x, back_h.y[k] = bh.y, back_h.z[k] = bh.z;
        head.x[k] = hd.x, head.y[k] = hd.y, head.z[k] = hd.z;
        scale[k] = f[k].scale;
    }
    /* run_many always steps by h = max_step: alpha and decay come precomputed in the rig */
    const float alpha =
        (n > 1 && !(prm->disable & SINEW_DYN_NO_COUPLING) && h > 0.0f) ? rig->step_alpha : 0.0f;
    const int limit_on = !(prm->disable & SINEW_DYN_NO_LIMIT);
    const int plane_on = !(prm->disable & SINEW_DYN_NO_FORWARD_PLANE);
    const v4 decay = splat(rig->step_decay);
    const v4 gy = splat(-prm->gravity), hv = splat(h), zero = splat(0.0f), one = splat(1.0f);
    const V3 ey = V3splat(sinew_vec3_make(0, 1, 0));
    const V3 root = head;
    Q4 ph = Q4splat(sinew_quat_conjugate(rig->parent_bind_inv));
    Q4 prev_old = Q4splat(sinew_quat_identity());
    const Q4 ident = prev_old;
    const m4 all = {-1, -1, -1, -1}, none = {0, 0, 0, 0};
    /* the snapshot of link i, gathered once: link i-1 already read it as its next neighbour */
    Q4 cur_old = gather4(bend, 0);

    for (uint32_t i = 0; i < n; i++) {
        const dyn_link *L = &rig->links[i];
        scale = scale * splat(L->own_scale);
        const v4 len = scale * splat(L->length);
        const Q4 rrest = Q4mul(ph, Q4splat(L->rest));
        const V3 rh = Q4rotate(ph, V3splat(L->rest_dir)); /* = rot(ph rest, dir) */
        const V3 rdir = R3apply(&Hm, rh);
        V3 pi = gather3(p, i), vi = gather3(v, i);

        V3 target = V3madd(head, rdir, len);
        V3 acc = V3sub(V3scale(V3sub(target, pi), splat(L->omega2)),
                       V3scale(vi, splat(L->two_zeta_omega)));
        acc.y += gy;
        vi = V3madd(vi, acc, hv);
        pi = V3madd(pi, vi, hv);
        V3 d = V3normalize_or(V3sub(pi, head), rdir);

        Q4 qb = Q4swing(rh, R3apply_inverse(&Hm, d));
        const Q4 old = cur_old;
        const Q4 next_old = i + 1 < n ? gather4(bend, i + 1) : old; /* not yet overwritten */
        if (alpha > 0.0f) {
            Q4 target_q;
            if (i == 0)
                target_q = Q4mid(ident, next_old);
            else if (i + 1 == n)
                target_q = prev_old;
            else
                target_q = Q4mid(prev_old, next_old);
            qb = Q4slerp_fast(qb, target_q, alpha);
        }
        prev_old = old;
        cur_old = next_old;

        m4 limited = none;
        V3 dc = d;
        if (limit_on) {
            limited = vabs(qb.w) < splat(rig->cos_half_limit);
        }
        if (any4(limited)) { /* built only when needed */
            v4 sgn = vsel(qb.w < zero, splat(-1.0f), one);
            V3 axis = V3normalize_or((V3){qb.x * sgn, qb.y * sgn, qb.z * sgn},
                                     V3splat(sinew_vec3_make(1, 0, 0)));
            dc = V3sel(limited, R3apply(&Hm, Q4rotate(qb, rh)), d);
            Q4 ql = {axis.x * splat(rig->sin_half_limit), axis.y * splat(rig->sin_half_limit),
                     axis.z * splat(rig->sin_half_limit), splat(rig->cos_half_limit)};
            qb = Q4sel(limited, ql, qb);
        }
        V3 dfin_h = Q4rotate(qb, rh);
        if (limit_on) { /* the bind cone, as in substep() */
            const V3 bh = Q4rotate(ph, V3splat(L->bind_dir));
            Q4 qk = Q4swing(bh, dfin_h);
            m4 over = vabs(qk.w) < splat(L->cos_half_bind);
            if (any4(over)) {
                v4 sgn = vsel(qk.w < zero, splat(-1.0f), one);
                V3 axis = V3normalize_or((V3){qk.x * sgn, qk.y * sgn, qk.z * sgn},
                                         V3splat(sinew_vec3_make(1, 0, 0)));
                Q4 qc = {axis.x * splat(L->sin_half_bind), axis.y * splat(L->sin_half_bind),
                         axis.z * splat(L->sin_half_bind), splat(L->cos_half_bind)};
                dfin_h = V3sel(over, Q4rotate(qc, bh), dfin_h);
                limited |= over;
            }
        }
        V3 dfin = R3apply(&Hm, dfin_h);

        m4 plane_hit = none;
        if (plane_on) {
            v4 umax = -V3dot(V3sub(head, root), fwd) / len;
            plane_hit = V3dot(dfin, fwd) > umax;
            if (any4(plane_hit)) dfin = V3sel(plane_hit, V3on_circle(dfin, fwd, umax, rdir), dfin);
        }
        m4 contact = none;
        if (floor_on) {
            contact = head.y + len * dfin.y < splat(floor_y);
            if (any4(contact)) {
                v4 u = (splat(floor_y) - head.y) / len;
                u = vsel(u > one, one, vsel(u < -one, -one, u));
                V3 t = {dfin.x, zero, dfin.z};
                V3 tr = {rdir.x, zero, rdir.z};
                t = V3sel(V3dot(t, t) < splat(1e-12f), tr, t);
                t = V3sel(V3dot(t, t) < splat(1e-12f), back_h, t);
                t = V3normalize_or(t, back_h);
                v4 s = vsqrt(one - u * u);
                V3 cand = V3madd(V3scale(t, s), ey, u);
                if (plane_on) {
                    m4 bad = V3dot(V3madd(V3sub(head, root), cand, len), fwd) > zero;
                    v4 tf = V3dot(t, back_h);
                    m4 fix = bad & (tf < zero);
                    V3 t2 = V3normalize_or(V3madd(t, back_h, -tf), back_h);
                    t = V3sel(fix, t2, t);
                    cand = V3sel(bad, V3madd(V3scale(t, s), ey, u), cand);
                }
                dfin = V3sel(contact, cand, dfin);
            }
        }
        if (any4(plane_hit | contact)) /* skipped when no lane moved dfin */
            dfin_h = V3sel(plane_hit | contact, R3apply_inverse(&Hm, dfin), dfin_h);
        pi = V3madd(head, dfin, len);

        V3 vn = V3madd(vi, dfin, -V3dot(vi, dfin));
        if (limit_on || alpha > 0.0f) {
            m4 use = (alpha > 0.0f ? all : limited) & ~contact;
            V3 w = V3madd(dc, dfin, -V3dot(dc, dfin));
            v4 ww = V3dot(w, w), into = V3dot(vn, w);
            m4 rm = use & (ww > splat(1e-18f)) & (into > zero);
            vn = V3sel(rm, V3madd(vn, w, -into / vsel(rm, ww, one)), vn);
        }
        if (any4(plane_hit)) {
            v4 into = V3dot(vn, fwd);
            vn = V3sel(plane_hit & (into > zero), V3madd(vn, fwd, -into), vn);
        }
        if (any4(contact)) {
            V3 up = V3madd(ey, dfin, -dfin.y);
            v4 uu = V3dot(up, up), down = V3dot(vn, up);
            m4 rm = contact & (uu > splat(1e-12f)) & (down < zero);
            V3 c1 = V3sel(rm, V3madd(vn, up, -down / vsel(rm, uu, one)), vn);
            c1.y = vsel(c1.y < zero, zero, c1.y);
            c1 = V3scale(c1, decay);
            vn = V3sel(contact, c1, vn);
        }
        scatter3(p, i, pi);
        scatter3(v, i, vn);

        Q4 sw = Q4swing(rh, dfin_h);
        scatter4(bend, i, sw);
        Q4 g = Q4mul(sw, rrest);
        if (out) {
            scatter4(out, i, Q4mul(Q4conj(ph), g));
        }
        ph = g;
        head = pi;
    }
}

/* Four jobs can share one vector pass when they use one rig, one dt and one floor, their
 * states are distinct and placed, none teleports, their lags agree, and the call ends on a
 * whole step. */
static int batchable(const sinew_dyn_step_job *j, const dyn_frame *cur, uint32_t *steps)
{
    const sinew_dyn_rig *rig = j[0].rig;
    const sinew_dyn_params *prm = &rig->params;
    for (int k = 0; k < 4; k++) {
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
    uint32_t i = 0;
    while (i < count) {
        dyn_frame cur[4];
        uint32_t steps = 0;
        if (i + 4 <= count) {
            for (int k = 0; k < 4; k++) /* all jobs were checked above: skip the scan */
                frame_from_finite_matrix(&jobs[i + k].world[jobs[i + k].rig->parent_node], &cur[k]);
        }
        if (i + 4 <= count && batchable(&jobs[i], cur, &steps)) {
            const sinew_dyn_step_job *j = &jobs[i];
            const sinew_dyn_rig *rig = j[0].rig;
            const sinew_dyn_params *prm = &rig->params;
            sinew_dyn_state *st[4] = {j[0].state, j[1].state, j[2].state, j[3].state};
            sinew_quat *out[4] = {j[0].local_rotations, j[1].local_rotations, j[2].local_rotations,
                                  j[3].local_rotations};
            int floor_on;
            float floor_y;
            if (j[0].floor) {
                floor_on = j[0].floor->enabled != 0;
                floor_y = j[0].floor->height + prm->floor_clearance;
            } else {
                floor_on = !(prm->disable & SINEW_DYN_NO_FLOOR);
                floor_y = prm->floor_height + prm->floor_clearance;
            }
            const float h = prm->max_step, dt = j[0].dt, lag0 = st[0]->lag;
            for (uint32_t s = 1; s <= steps; s++) {
                dyn_frame fr[4];
                for (int k = 0; k < 4; k++) {
                    float f = 1.0f;
                    if (s < steps) {
                        f = dt > 0.0f ? ((float)s * h - lag0) / dt : 1.0f;
                        f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
                    }
                    fr[k] = f >= 1.0f ? cur[k] : frame_lerp(&st[k]->previous, &cur[k], f);
                }
                substep4(rig, st, fr, h, floor_on, floor_y, s == steps ? out : NULL);
            }
            for (int k = 0; k < 4; k++) {
                st[k]->previous = cur[k];
                st[k]->lag = 0.0f;
            }
            i += 4;
        } else {
            sinew_dyn_step_run(&jobs[i], err);
            i++;
        }
    }
    return SINEW_OK;
}
