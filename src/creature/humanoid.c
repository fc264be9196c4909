/* The humanoid creatures: fox, mouse, caped, skirt, quiver, rabbit.
 *
 * One body laid out in "fox units" (metres for the 1.91 m fox; creature.c rescales every kind
 * to its height): a 22-bone Mixamo skeleton (Hips, Spine, Spine1, Spine2, Neck, Head, and per
 * side Shoulder, Arm, ForeArm, Hand, UpLeg, Leg, Foot, ToeBase), tubes and ellipsoids around
 * the bones weighted by a template rigger's distance falloff, and per kind the piece a
 * template has no bone for: a tail dumped on the left shin and both thighs (the fox of
 * Sidorkin, "Animating tails the auto-rigger never gave a bone"), a cape, a skirt, a quiver,
 * ears.
 *
 * The torso is deliberately thick: its skin lies farther than 7% of the height from the spine
 * all round the chest, so a rigger meets far skin whose centroid falls back on the bone (the
 * article's test of appendage or body) and must not call it an appendage.
 */
#include "creature/builder.h"

#include <stdio.h>
#include <string.h>

enum { L = 0, R = 1 };

typedef struct humanoid {
    int32_t hips, spine, spine1, spine2, neck, head;
    int32_t shoulder[2], arm[2], forearm[2], hand[2];
    int32_t upleg[2], leg[2], foot[2], toe[2];
} humanoid;

typedef struct gait {
    const humanoid *h;
    float stride;    /* metres: ankle travel per step */
    float duty;      /* stance fraction of the cycle */
    float lift;      /* metres: ankle lift at mid swing */
    float lean;      /* degrees: forward lean of the spine */
    float arm_swing; /* degrees */
    float elbow;     /* degrees: elbow bend */
    float yaw;       /* degrees: pelvis yaw amplitude */
    float sway;      /* metres: lateral hips shift */
} gait;

static float sx(int side)
{
    return side == L ? 1.0f : -1.0f;
}

static sinew_vec3 v3(float x, float y, float z)
{
    return sinew_vec3_make(x, y, z);
}

static void build_skeleton(creature_skeleton *s, humanoid *h, const char *prefix)
{
    memset(s, 0, sizeof *s);
    h->hips = creature_skeleton_add(s, prefix, "Hips", -1, v3(0, 1.00f, 0.0f));
    h->spine = creature_skeleton_add(s, prefix, "Spine", h->hips, v3(0, 1.10f, 0.010f));
    h->spine1 = creature_skeleton_add(s, prefix, "Spine1", h->spine, v3(0, 1.22f, 0.015f));
    h->spine2 = creature_skeleton_add(s, prefix, "Spine2", h->spine1, v3(0, 1.35f, 0.005f));
    h->neck = creature_skeleton_add(s, prefix, "Neck", h->spine2, v3(0, 1.52f, -0.010f));
    h->head = creature_skeleton_add(s, prefix, "Head", h->neck, v3(0, 1.62f, 0.010f));
    static const char *side_name[2] = {"Left", "Right"};
    char n[64];
    for (int k = 0; k < 2; k++) {
        float x = sx(k);
        snprintf(n, sizeof n, "%sShoulder", side_name[k]);
        h->shoulder[k] =
            creature_skeleton_add(s, prefix, n, h->spine2, v3(0.05f * x, 1.46f, -0.005f));
        snprintf(n, sizeof n, "%sArm", side_name[k]);
        h->arm[k] =
            creature_skeleton_add(s, prefix, n, h->shoulder[k], v3(0.17f * x, 1.45f, -0.02f));
        snprintf(n, sizeof n, "%sForeArm", side_name[k]);
        h->forearm[k] =
            creature_skeleton_add(s, prefix, n, h->arm[k], v3(0.45f * x, 1.45f, -0.035f));
        snprintf(n, sizeof n, "%sHand", side_name[k]);
        h->hand[k] =
            creature_skeleton_add(s, prefix, n, h->forearm[k], v3(0.70f * x, 1.45f, -0.02f));
    }
    for (int k = 0; k < 2; k++) {
        float x = sx(k);
        snprintf(n, sizeof n, "%sUpLeg", side_name[k]);
        h->upleg[k] = creature_skeleton_add(s, prefix, n, h->hips, v3(0.10f * x, 0.93f, 0.0f));
        snprintf(n, sizeof n, "%sLeg", side_name[k]);
        h->leg[k] = creature_skeleton_add(s, prefix, n, h->upleg[k], v3(0.10f * x, 0.51f, 0.015f));
        snprintf(n, sizeof n, "%sFoot", side_name[k]);
        h->foot[k] = creature_skeleton_add(s, prefix, n, h->leg[k], v3(0.10f * x, 0.09f, -0.015f));
        snprintf(n, sizeof n, "%sToeBase", side_name[k]);
        h->toe[k] = creature_skeleton_add(s, prefix, n, h->foot[k], v3(0.10f * x, 0.02f, 0.12f));
    }
    creature_skeleton_finish(s, 0.5f);
}

/* ---- tube helpers ---- */

static void along(creature_tube *t, int32_t j, float from, float to)
{
    uint32_t i = t->weights.count;
    if (j < 0 || i >= CREATURE_MAX_CANDIDATES) return;
    t->weights.mode = CREATURE_WEIGHT_ALONG;
    t->weights.joints[i] = j;
    t->weights.from[i] = from;
    t->weights.to[i] = to;
    t->weights.count = i + 1;
}

/* A template rigger's tail weights (see CREATURE_WEIGHT_TEMPLATE): `main` from `from` to `to`
 * along the tail, `extra` (optional) likewise, the rest split between the thighs by side. */
static void template_weights(creature_tube *t, int32_t main, float from, float to, int32_t left,
                             int32_t right, int32_t extra, float extra_from, float extra_to)
{
    creature_weights *w = &t->weights;
    memset(w, 0, sizeof *w);
    w->mode = CREATURE_WEIGHT_TEMPLATE;
    w->count = extra >= 0 ? 4 : 3;
    w->joints[0] = main, w->from[0] = from, w->to[0] = to;
    w->joints[1] = left;
    w->joints[2] = right;
    w->joints[3] = extra >= 0 ? extra : 0, w->from[3] = extra_from, w->to[3] = extra_to;
    w->side_width = 0.014f;
}

/* ---- the body ---- */

static int build_body(creature_build *b, const humanoid *h, int snout)
{
    creature_mesh *m = &b->mesh;
    const creature_skeleton *s = &b->skel;
    const sinew_vec3 X = v3(1, 0, 0), Y = v3(0, 1, 0);
    int ok = 1;

    /* torso: crotch to the base of the neck; thick around the chest (see the file comment).
     * `b` radii run along -z here (tangent +y x side +x), so a negative offset is forward. */
    creature_tube t =
        creature_tube_make(0, 56, 52, v3(0, 0.82f, 0.005f), v3(0, 1.58f, 0.0f), X, 0.10f, 0.10f);
    creature_tube_profile(&t, 0.00f, 0.120f, 0.075f, 0.0f);
    creature_tube_profile(&t, 0.15f, 0.175f, 0.102f, 0.0f);
    creature_tube_profile(&t, 0.30f, 0.165f, 0.122f, -0.005f);
    creature_tube_profile(&t, 0.45f, 0.190f, 0.158f, -0.012f);
    creature_tube_profile(&t, 0.62f, 0.215f, 0.168f, -0.008f);
    creature_tube_profile(&t, 0.78f, 0.215f, 0.152f, 0.0f);
    creature_tube_profile(&t, 0.92f, 0.150f, 0.110f, 0.0f);
    creature_tube_profile(&t, 1.00f, 0.080f, 0.070f, 0.0f);
    creature_tube_candidate(&t, h->hips), creature_tube_candidate(&t, h->spine),
        creature_tube_candidate(&t, h->spine1), creature_tube_candidate(&t, h->spine2);
    creature_tube_candidate(&t, h->neck), creature_tube_candidate(&t, h->shoulder[L]),
        creature_tube_candidate(&t, h->shoulder[R]);
    creature_tube_candidate(&t, h->upleg[L]), creature_tube_candidate(&t, h->upleg[R]);
    ok &= creature_mesh_tube(m, s, &t);

    /* neck */
    t = creature_tube_make(0, 28, 12, v3(0, 1.47f, -0.01f), v3(0, 1.70f, 0.01f), X, 0, 0);
    creature_tube_profile(&t, 0, 0.075f, 0.070f, 0);
    creature_tube_candidate(&t, h->spine2), creature_tube_candidate(&t, h->neck),
        creature_tube_candidate(&t, h->head);
    ok &= creature_mesh_tube(m, s, &t);

    /* head: an ellipsoid above the Head joint */
    t = creature_tube_make(0, 48, 34, v3(0, 1.60f, 0.0f), v3(0, 1.84f, 0.02f), X, 0.5f, 0.5f);
    creature_tube_profile(&t, 0, 0.100f, 0.105f, 0);
    creature_tube_candidate(&t, h->head), creature_tube_candidate(&t, h->neck);
    ok &= creature_mesh_tube(m, s, &t);

    if (snout) {
        t = creature_tube_make(0, 24, 14, v3(0, 1.70f, 0.06f), v3(0, 1.665f, 0.25f), X, 0, 0.25f);
        creature_tube_profile(&t, 0, 0.055f, 0.050f, 0);
        creature_tube_profile(&t, 1, 0.022f, 0.020f, 0);
        creature_tube_candidate(&t, h->head);
        ok &= creature_mesh_tube(m, s, &t);
    }

    for (int k = 0; k < 2 && ok; k++) {
        float x = sx(k);
        /* upper arm, forearm, paw (T-pose, along x; `a` is vertical, `b` along z) */
        t = creature_tube_make(0, 28, 24, v3(0.14f * x, 1.45f, -0.02f),
                               v3(0.48f * x, 1.45f, -0.035f), Y, 0.15f, 0.15f);
        creature_tube_profile(&t, 0, 0.062f, 0.060f, 0);
        creature_tube_profile(&t, 1, 0.048f, 0.046f, 0);
        creature_tube_candidate(&t, h->spine2), creature_tube_candidate(&t, h->shoulder[k]),
            creature_tube_candidate(&t, h->arm[k]), creature_tube_candidate(&t, h->forearm[k]);
        ok &= creature_mesh_tube(m, s, &t);

        t = creature_tube_make(0, 28, 24, v3(0.42f * x, 1.45f, -0.035f),
                               v3(0.73f * x, 1.45f, -0.02f), Y, 0.12f, 0.15f);
        creature_tube_profile(&t, 0, 0.048f, 0.046f, 0);
        creature_tube_profile(&t, 1, 0.036f, 0.036f, 0);
        creature_tube_candidate(&t, h->arm[k]), creature_tube_candidate(&t, h->forearm[k]),
            creature_tube_candidate(&t, h->hand[k]);
        ok &= creature_mesh_tube(m, s, &t);

        t = creature_tube_make(0, 24, 14, v3(0.67f * x, 1.45f, -0.02f),
                               v3(0.82f * x, 1.44f, -0.01f), Y, 0.5f, 0.5f);
        creature_tube_profile(&t, 0, 0.028f, 0.046f, 0);
        creature_tube_candidate(&t, h->forearm[k]), creature_tube_candidate(&t, h->hand[k]);
        ok &= creature_mesh_tube(m, s, &t);

        /* thigh, shin, foot (`a` along x, `b` along z) */
        t = creature_tube_make(0, 32, 30, v3(0.10f * x, 0.99f, 0.0f), v3(0.10f * x, 0.46f, 0.02f),
                               X, 0.12f, 0.12f);
        creature_tube_profile(&t, 0.0f, 0.100f, 0.095f, 0);
        creature_tube_profile(&t, 0.5f, 0.085f, 0.085f, 0);
        creature_tube_profile(&t, 1.0f, 0.062f, 0.062f, 0);
        creature_tube_candidate(&t, h->hips), creature_tube_candidate(&t, h->upleg[k]),
            creature_tube_candidate(&t, h->leg[k]);
        ok &= creature_mesh_tube(m, s, &t);

        t = creature_tube_make(0, 32, 30, v3(0.10f * x, 0.56f, 0.012f),
                               v3(0.10f * x, 0.05f, -0.015f), X, 0.10f, 0.10f);
        creature_tube_profile(&t, 0.0f, 0.062f, 0.062f, 0);
        creature_tube_profile(&t, 0.3f, 0.064f, 0.068f, 0.008f);
        creature_tube_profile(&t, 1.0f, 0.040f, 0.040f, 0);
        creature_tube_candidate(&t, h->upleg[k]), creature_tube_candidate(&t, h->leg[k]),
            creature_tube_candidate(&t, h->foot[k]);
        ok &= creature_mesh_tube(m, s, &t);

        /* foot: heel to toe tip, sole at y = 0 */
        t = creature_tube_make(0, 28, 20, v3(0.10f * x, 0.045f, -0.07f),
                               v3(0.10f * x, 0.045f, 0.21f), X, 0.5f, 0.5f);
        creature_tube_profile(&t, 0, 0.052f, 0.045f, 0);
        creature_tube_candidate(&t, h->leg[k]), creature_tube_candidate(&t, h->foot[k]),
            creature_tube_candidate(&t, h->toe[k]);
        ok &= creature_mesh_tube(m, s, &t);
    }
    return ok && !m->failed;
}

/* ---- pieces a template rigger has no bone for ---- */

/* Scales a cubic centre line about its first point so that its arc length is `length`. */
static void fit_length(creature_tube *t, float length)
{
    float cur = creature_tube_length(t);
    if (!(cur > 0)) return;
    float k = length / cur;
    for (uint32_t i = 1; i < t->ctrl_count; i++)
        t->ctrl[i] = sinew_vec3_madd(t->ctrl[0], sinew_vec3_sub(t->ctrl[i], t->ctrl[0]), k);
}

/* The fox's bushy tail: hangs down and back between the legs as two overlapping shells (fur
 * over skin, never welded: distinct radii everywhere, the skin's tip short of the fur's),
 * weighted to the left shin and both thighs as a template rigger dumps it (the article's fox). */
static int fox_tail(creature_build *b, const humanoid *h, uint8_t piece)
{
    creature_tube fur =
        creature_tube_make(piece, 32, 36, v3(0, 0, 0), v3(0, 0, 0), v3(1, 0, 0), 0, 0.12f);
    fur.ctrl_count = 4;
    fur.ctrl[0] = v3(0, 0.93f, -0.09f);
    fur.ctrl[1] = v3(0, 0.87f, -0.42f);
    fur.ctrl[2] = v3(0, 0.70f, -0.75f);
    fur.ctrl[3] = v3(0, 0.44f, -0.90f);
    fit_length(&fur, 0.81f);
    creature_tube_profile(&fur, 0.00f, 0.065f, 0.065f, 0);
    creature_tube_profile(&fur, 0.15f, 0.100f, 0.095f, 0);
    creature_tube_profile(&fur, 0.45f, 0.140f, 0.130f, 0);
    creature_tube_profile(&fur, 0.75f, 0.112f, 0.105f, 0);
    creature_tube_profile(&fur, 0.92f, 0.060f, 0.058f, 0);
    creature_tube_profile(&fur, 1.00f, 0.025f, 0.025f, 0);
    fur.noise = 0.07f;
    fur.seed = 1;
    fur.weights.count = 0;
    template_weights(&fur, h->leg[L], 0.30f, 0.55f, h->upleg[L], h->upleg[R], -1, 0, 0);

    creature_tube skin = fur;
    skin.segments = 20;
    skin.rings = 28;
    skin.noise = 0;
    skin.profile_count = 0;
    for (uint32_t i = 1; i < 4; i++) /* 8% shorter: its tip stays inside the fur */
        skin.ctrl[i] =
            sinew_vec3_madd(skin.ctrl[0], sinew_vec3_sub(skin.ctrl[i], skin.ctrl[0]), 0.92f);
    skin.cap1 = 0.15f;
    creature_tube_profile(&skin, 0.00f, 0.045f, 0.045f, 0);
    creature_tube_profile(&skin, 0.30f, 0.062f, 0.060f, 0);
    creature_tube_profile(&skin, 0.70f, 0.052f, 0.050f, 0);
    creature_tube_profile(&skin, 1.00f, 0.022f, 0.022f, 0);

    sinew_creature_piece *p = &b->truth->pieces[piece];
    p->shell_count = 2;
    p->length = creature_tube_length(&fur);
    p->radius = creature_tube_radius(&fur);
    return creature_mesh_tube(&b->mesh, &b->skel, &skin) &&
           creature_mesh_tube(&b->mesh, &b->skel, &fur);
}

/* The mouse's tail: long and thin, down to the floor, then curving to the character's left
 * along the ground in bind pose (like the article's mouse). */
static int mouse_tail(creature_build *b, const humanoid *h, uint8_t piece)
{
    creature_tube t =
        creature_tube_make(piece, 12, 64, v3(0, 0, 0), v3(0, 0, 0), v3(1, 0, 0), 0, 0.03f);
    t.ctrl_count = 4;
    t.ctrl[0] = v3(0, 0.93f, -0.09f);
    t.ctrl[1] = v3(0, 0.50f, -0.55f);
    t.ctrl[2] = v3(0, 0.024f, -0.80f);
    t.ctrl[3] = v3(0.60f, 0.024f, -1.15f);
    creature_tube_profile(&t, 0.0f, 0.036f, 0.036f, 0);
    creature_tube_profile(&t, 0.5f, 0.022f, 0.022f, 0);
    creature_tube_profile(&t, 1.0f, 0.012f, 0.012f, 0);
    t.weights.count = 0;
    template_weights(&t, h->leg[L], 0.15f, 0.60f, h->upleg[L], h->upleg[R], h->hips, 0.30f, 0.10f);
    return creature_mesh_piece(b, piece, &t);
}

/* An ear from inside the head up to its tip; flat (wide along x, thin along z). */
static int ear(creature_build *b, const humanoid *h, uint8_t piece, sinew_vec3 base, sinew_vec3 tip,
               float width, float thickness, uint32_t rings)
{
    creature_tube t = creature_tube_make(piece, 16, rings, base, tip, v3(1, 0, 0), 0, 0.10f);
    creature_tube_profile(&t, 0.0f, width, thickness, 0);
    creature_tube_profile(&t, 0.4f, width * 1.05f, thickness, 0);
    creature_tube_profile(&t, 1.0f, width * 0.25f, thickness * 0.6f, 0);
    t.weights.count = 0;
    along(&t, h->head, 1.0f, 1.0f);
    sinew_creature_piece *p = &b->truth->pieces[piece];
    p->shell_count = 1;
    p->length = sinew_vec3_distance(base, tip);
    p->radius = creature_tube_radius(&t);
    return creature_mesh_tube(&b->mesh, &b->skel, &t);
}

/* A wide flat cape: a thin slab from the base of the neck over the back down to the knees. */
static int cape(creature_build *b, const humanoid *h, uint8_t piece)
{
    creature_tube t =
        creature_tube_make(piece, 48, 32, v3(0, 0, 0), v3(0, 0, 0), v3(1, 0, 0), 0.02f, 0.02f);
    t.ctrl_count = 4;
    t.ctrl[0] = v3(0, 1.55f, -0.07f);
    t.ctrl[1] = v3(0, 1.50f, -0.21f);
    t.ctrl[2] = v3(0, 1.20f, -0.25f);
    t.ctrl[3] = v3(0, 0.55f, -0.32f);
    creature_tube_profile(&t, 0.0f, 0.17f, 0.012f, 0);
    creature_tube_profile(&t, 0.3f, 0.27f, 0.012f, 0);
    creature_tube_profile(&t, 1.0f, 0.40f, 0.012f, 0);
    creature_tube_candidate(&t, h->hips), creature_tube_candidate(&t, h->spine),
        creature_tube_candidate(&t, h->spine1), creature_tube_candidate(&t, h->spine2);
    creature_tube_candidate(&t, h->neck), creature_tube_candidate(&t, h->shoulder[L]),
        creature_tube_candidate(&t, h->shoulder[R]);
    creature_tube_candidate(&t, h->upleg[L]), creature_tube_candidate(&t, h->upleg[R]);
    return creature_mesh_piece(b, piece, &t);
}

/* A skirt: an open cone from the waist to above the knees, hips at the top, each thigh owning
 * its side below. */
static int skirt(creature_build *b, const humanoid *h, uint8_t piece)
{
    creature_tube t = creature_tube_make(piece, 56, 22, v3(0, 0.99f, 0.0f), v3(0, 0.60f, -0.01f),
                                         v3(1, 0, 0), 0, 0);
    creature_tube_profile(&t, 0.0f, 0.195f, 0.125f, -0.005f);
    creature_tube_profile(&t, 0.3f, 0.235f, 0.190f, 0);
    creature_tube_profile(&t, 1.0f, 0.300f, 0.270f, 0);
    t.weights.mode = CREATURE_WEIGHT_SIDE;
    t.weights.count = 3;
    t.weights.joints[0] = h->hips, t.weights.from[0] = 0.90f, t.weights.to[0] = 0.15f;
    t.weights.joints[1] = h->upleg[L];
    t.weights.joints[2] = h->upleg[R];
    return creature_mesh_piece(b, piece, &t);
}

/* A quiver: a long narrow closed cylinder lying diagonally on the upper back, its front sunk
 * into the back (so the rigger finds near skin along it) and its back far from the spine. */
static int quiver(creature_build *b, const humanoid *h, uint8_t piece)
{
    creature_tube t = creature_tube_make(piece, 20, 36, v3(0.08f, 1.56f, -0.16f),
                                         v3(-0.08f, 1.02f, -0.16f), v3(0, 0, 1), 0.05f, 0.05f);
    creature_tube_profile(&t, 0.0f, 0.052f, 0.048f, 0);
    creature_tube_profile(&t, 1.0f, 0.046f, 0.044f, 0);
    creature_tube_candidate(&t, h->spine), creature_tube_candidate(&t, h->spine1),
        creature_tube_candidate(&t, h->spine2), creature_tube_candidate(&t, h->neck);
    creature_tube_candidate(&t, h->shoulder[L]), creature_tube_candidate(&t, h->shoulder[R]);
    return creature_mesh_piece(b, piece, &t);
}

/* ---- clips ---- */

static float clamp01(float x)
{
    return x < 0 ? 0 : (x > 1 ? 1 : x);
}

static void arms_down(const humanoid *h, creature_pose *p, float down, float swing_l, float swing_r,
                      float elbow_l, float elbow_r)
{
    /* lower the T-pose arms about z, then swing them about x (positive = backwards) */
    p->delta[h->arm[L]] =
        sinew_quat_mul(creature_rot(1, 0, 0, swing_l), creature_rot(0, 0, 1, -down));
    p->delta[h->arm[R]] =
        sinew_quat_mul(creature_rot(1, 0, 0, swing_r), creature_rot(0, 0, 1, down));
    /* elbows bend forward: for a T-pose forearm that is about y */
    p->delta[h->forearm[L]] = creature_rot(0, 1, 0, -elbow_l);
    p->delta[h->forearm[R]] = creature_rot(0, 1, 0, elbow_r);
}

static void setup_legs(const creature_skeleton *s, const humanoid *h, creature_pose *p)
{
    p->leg_count = 2;
    for (int k = 0; k < 2; k++) {
        creature_leg *leg = &p->legs[k];
        leg->upper = h->upleg[k];
        leg->lower = h->leg[k];
        leg->foot = h->foot[k];
        leg->ankle = s->pos[h->foot[k]];
        leg->pole = v3(0, 0, 1);
        leg->foot_delta = sinew_quat_identity();
    }
}

/* A cyclic gait in place: stance slides the ankle back on the ground, swing lifts it forward. */
static void gait_pose(const creature_skeleton *s, const void *ctx, float phase, creature_pose *p)
{
    const gait *g = ctx;
    const humanoid *h = g->h;
    const float tau = (float)(2.0 * SINEW_PI);
    float c = cosf(tau * phase);
    setup_legs(s, h, p);
    for (int k = 0; k < 2; k++) {
        float ph = phase + (k == R ? 0.5f : 0.0f);
        ph -= floorf(ph);
        creature_leg *leg = &p->legs[k];
        if (ph < g->duty) {
            float q = ph / g->duty;
            leg->ankle.z += g->stride * (0.5f - q);
        } else {
            float q = (ph - g->duty) / (1.0f - g->duty);
            float sq = sinf((float)SINEW_PI * q);
            leg->ankle.z += g->stride * (-0.5f + 0.5f * (1.0f - cosf((float)SINEW_PI * q)));
            leg->ankle.y += g->lift * sq;
            leg->foot_delta = creature_rot(1, 0, 0, 18.0f * sq);
        }
    }
    /* pelvis: turns with the forward leg, shifts over the stance leg */
    p->delta[h->hips] = sinew_quat_mul(creature_rot(0, 1, 0, -g->yaw * c),
                                       creature_rot(0, 0, 1, 0.4f * g->yaw * sinf(tau * phase)));
    p->root.x = g->sway * cosf(tau * (phase - 0.5f * g->duty));
    p->root.z = 0.0f;
    /* spine counter-rotates and leans; head stays level */
    sinew_quat counter = creature_rot(0, 1, 0, 0.45f * g->yaw * c);
    p->delta[h->spine] = sinew_quat_mul(counter, creature_rot(1, 0, 0, g->lean));
    p->delta[h->spine1] = counter;
    p->delta[h->spine2] = counter;
    p->delta[h->neck] = creature_rot(1, 0, 0, -0.5f * g->lean);
    p->delta[h->head] = creature_rot(0, 1, 0, 0.3f * g->yaw * c);
    /* arms swing against the legs: the left arm is back while the left leg is forward */
    float swing = g->arm_swing * c;
    float fwd_l = clamp01(-c), fwd_r = clamp01(c);
    arms_down(h, p, 72.0f, swing, -swing, g->elbow * (0.6f + 0.6f * fwd_l),
              g->elbow * (0.6f + 0.6f * fwd_r));
    creature_pose_fit_root_height(s, p);
}

typedef struct still {
    const humanoid *h;
    float depth; /* metres the hips drop at the bottom (crouch), 0 for idle */
} still;

/* Crouch: the hips sink `depth` and come back up, feet planted, torso leaning forward. */
static void crouch_pose(const creature_skeleton *s, const void *ctx, float phase, creature_pose *p)
{
    const still *c = ctx;
    const humanoid *h = c->h;
    float k = 0.5f * (1.0f - cosf((float)(2.0 * SINEW_PI) * phase)); /* 0 -> 1 -> 0 */
    setup_legs(s, h, p);
    p->root.y = s->pos[h->hips].y - 0.02f - c->depth * k;
    p->root.z = -0.06f * k;
    p->delta[h->hips] = creature_rot(1, 0, 0, 2.0f * k);
    p->delta[h->spine] = creature_rot(1, 0, 0, 18.0f * k);
    p->delta[h->spine1] = creature_rot(1, 0, 0, 8.0f * k);
    p->delta[h->neck] = creature_rot(1, 0, 0, -14.0f * k);
    p->delta[h->head] = creature_rot(1, 0, 0, -8.0f * k);
    arms_down(h, p, 72.0f - 12.0f * k, -35.0f * k, -35.0f * k, 20.0f + 25.0f * k,
              20.0f + 25.0f * k);
}

/* Idle: breathing and a slow weight shift, feet planted. */
static void idle_pose(const creature_skeleton *s, const void *ctx, float phase, creature_pose *p)
{
    const still *c = ctx;
    const humanoid *h = c->h;
    const float tau = (float)(2.0 * SINEW_PI);
    float br = sinf(tau * 2.0f * phase), shift = sinf(tau * phase);
    setup_legs(s, h, p);
    p->root.y = s->pos[h->hips].y - 0.025f - 0.006f * br;
    p->root.x = 0.02f * shift;
    p->delta[h->hips] = creature_rot(0, 0, 1, 1.5f * shift);
    p->delta[h->spine] = creature_rot(1, 0, 0, 1.5f * br);
    p->delta[h->spine2] = creature_rot(1, 0, 0, -1.0f * br);
    p->delta[h->neck] = creature_rot(0, 1, 0, 6.0f * sinf(tau * phase + 1.0f));
    arms_down(h, p, 74.0f + 2.0f * br, 4.0f * shift, -4.0f * shift, 12.0f, 12.0f);
}

/* ---- the kinds ---- */

int creature_build_humanoid(creature_build *b, sinew_creature_kind kind)
{
    humanoid h;
    const char *prefix = (kind == SINEW_CREATURE_FOX || kind == SINEW_CREATURE_CAPED ||
                          kind == SINEW_CREATURE_QUIVER)
                             ? "mixamorig:"
                             : "";
    build_skeleton(&b->skel, &h, prefix);
    creature_add_piece(b, "body", SINEW_CREATURE_PART_BODY, SINEW_CREATURE_VERDICT_UNCHANGED, "");
    if (!build_body(b, &h, 1)) return 0;

    const char *hips = b->skel.name[h.hips], *head = b->skel.name[h.head];
    int ok = 1;
    uint8_t pc;
    switch (kind) {
    case SINEW_CREATURE_FOX:
        pc = creature_add_piece(b, "tail", SINEW_CREATURE_PART_TAIL, SINEW_CREATURE_VERDICT_CHAIN,
                                hips);
        ok &= fox_tail(b, &h, pc);
        pc = creature_add_piece(b, "ear.L", SINEW_CREATURE_PART_EAR,
                                SINEW_CREATURE_VERDICT_UNCHANGED, head);
        ok &=
            ear(b, &h, pc, v3(0.055f, 1.76f, 0.0f), v3(0.095f, 1.91f, -0.02f), 0.045f, 0.018f, 12);
        pc = creature_add_piece(b, "ear.R", SINEW_CREATURE_PART_EAR,
                                SINEW_CREATURE_VERDICT_UNCHANGED, head);
        ok &= ear(b, &h, pc, v3(-0.055f, 1.76f, 0.0f), v3(-0.095f, 1.91f, -0.02f), 0.045f, 0.018f,
                  12);
        break;
    case SINEW_CREATURE_MOUSE:
        pc = creature_add_piece(b, "tail", SINEW_CREATURE_PART_TAIL, SINEW_CREATURE_VERDICT_CHAIN,
                                hips);
        ok &= mouse_tail(b, &h, pc);
        pc = creature_add_piece(b, "ear.L", SINEW_CREATURE_PART_EAR,
                                SINEW_CREATURE_VERDICT_UNCHANGED, head);
        ok &=
            ear(b, &h, pc, v3(0.06f, 1.76f, -0.01f), v3(0.12f, 1.87f, -0.02f), 0.065f, 0.015f, 10);
        pc = creature_add_piece(b, "ear.R", SINEW_CREATURE_PART_EAR,
                                SINEW_CREATURE_VERDICT_UNCHANGED, head);
        ok &= ear(b, &h, pc, v3(-0.06f, 1.76f, -0.01f), v3(-0.12f, 1.87f, -0.02f), 0.065f, 0.015f,
                  10);
        break;
    case SINEW_CREATURE_CAPED:
        pc = creature_add_piece(b, "cape", SINEW_CREATURE_PART_CAPE,
                                SINEW_CREATURE_VERDICT_UNCHANGED, b->skel.name[h.neck]);
        ok &= cape(b, &h, pc);
        break;
    case SINEW_CREATURE_SKIRT:
        pc = creature_add_piece(b, "skirt", SINEW_CREATURE_PART_SKIRT,
                                SINEW_CREATURE_VERDICT_UNCHANGED, hips);
        ok &= skirt(b, &h, pc);
        break;
    case SINEW_CREATURE_QUIVER:
        pc = creature_add_piece(b, "quiver", SINEW_CREATURE_PART_QUIVER,
                                SINEW_CREATURE_VERDICT_RIGID_ON_SPINE, b->skel.name[h.spine2]);
        ok &= quiver(b, &h, pc);
        break;
    case SINEW_CREATURE_RABBIT:
        pc = creature_add_piece(b, "ear.L", SINEW_CREATURE_PART_EAR,
                                SINEW_CREATURE_VERDICT_UNCHANGED, head);
        ok &=
            ear(b, &h, pc, v3(0.05f, 1.76f, -0.01f), v3(0.11f, 2.25f, -0.06f), 0.055f, 0.016f, 24);
        pc = creature_add_piece(b, "ear.R", SINEW_CREATURE_PART_EAR,
                                SINEW_CREATURE_VERDICT_UNCHANGED, head);
        ok &= ear(b, &h, pc, v3(-0.05f, 1.76f, -0.01f), v3(-0.11f, 2.25f, -0.06f), 0.055f, 0.016f,
                  24);
        break;
    default:
        break;
    }
    if (!ok || b->mesh.failed) return 0;

    gait walk = {&h, 0.55f, 0.62f, 0.10f, 3.0f, 22.0f, 18.0f, 5.0f, 0.025f};
    gait sprint = {&h, 0.95f, 0.38f, 0.24f, 12.0f, 45.0f, 75.0f, 8.0f, 0.015f};
    still crouch = {&h, 0.60f}, idle = {&h, 0.0f};
    ok &= creature_add_clip(b, "Walk", 1.1f, gait_pose, &walk);
    ok &= creature_add_clip(b, "Sprint", 0.66f, gait_pose, &sprint);
    ok &= creature_add_clip(b, "Crouch", 2.0f, crouch_pose, &crouch);
    ok &= creature_add_clip(b, "Idle", 2.5f, idle_pose, &idle);
    return ok;
}
