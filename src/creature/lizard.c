/* The lizard: a horizontal quadruped (length > height) with Quaternius-like names (Hips, Back,
 * Chest, Neck, Head, FrontLeg.L, FrontShin.L, FrontFoot.L, BackLeg.L ..) and a long tail behind
 * the pelvis that the template gave no bones, weighted to the left hind shin, both hind thighs
 * and the hips. It proves nothing downstream assumes Mixamo names or a biped. */
#include "creature/builder.h"

#include <string.h>

typedef struct lizard {
    int32_t hips, back, chest, neck, head;
    int32_t leg[4], shin[4], foot[4]; /* front L, front R, back L, back R */
} lizard;

static sinew_vec3 v3(float x, float y, float z)
{
    return sinew_vec3_make(x, y, z);
}

typedef struct lizard_gait {
    const lizard *z;
    float sweep; /* degrees: leg sweep forward/back */
    float lift;  /* degrees: leg lift in swing */
    float wave;  /* degrees: lateral spine undulation */
    float duty;  /* stance fraction */
} lizard_gait;

/* A trot: diagonal pairs (front left with back right) swing together; legs sweep about the
 * vertical, lift about the body axis in swing; the spine undulates sideways. */
static void lizard_walk(const creature_skeleton *s, const void *ctx, float phase, creature_pose *p)
{
    const lizard_gait *g = ctx;
    const lizard *z = g->z;
    const float tau = (float)(2.0 * SINEW_PI);
    static const float offset[4] = {0.0f, 0.5f, 0.5f, 0.0f};
    for (int k = 0; k < 4; k++) {
        float ph = phase + offset[k];
        ph -= floorf(ph);
        float fwd, up = 0;
        if (ph < g->duty) {
            fwd = 1.0f - 2.0f * ph / g->duty; /* +1 (front) .. -1 (back) */
        } else {
            float q = (ph - g->duty) / (1.0f - g->duty);
            fwd = -cosf((float)SINEW_PI * q);
            up = sinf((float)SINEW_PI * q);
        }
        float side = (k % 2 == 0) ? 1.0f : -1.0f; /* left legs point +x */
        /* forward: a +x leg turns towards +z about -y; lift: about +z for a +x leg */
        sinew_quat sweep = creature_rot(0, 1, 0, -side * g->sweep * fwd);
        sinew_quat lift = creature_rot(0, 0, 1, side * g->lift * up);
        p->delta[z->leg[k]] = sinew_quat_mul(sweep, lift);
        p->delta[z->shin[k]] = creature_rot(0, 0, 1, -side * 0.6f * g->lift * up);
    }
    float w = sinf(tau * phase);
    p->delta[z->hips] = creature_rot(0, 1, 0, g->wave * w);
    p->delta[z->back] = creature_rot(0, 1, 0, -1.2f * g->wave * w);
    p->delta[z->chest] = creature_rot(0, 1, 0, 0.6f * g->wave * w);
    p->delta[z->neck] = creature_rot(0, 1, 0, -0.4f * g->wave * w);
    p->root.y = s->pos[z->hips].y + 0.006f * cosf(2.0f * tau * phase);
}

static void lizard_idle(const creature_skeleton *s, const void *ctx, float phase, creature_pose *p)
{
    const lizard *z = ctx;
    const float tau = (float)(2.0 * SINEW_PI);
    float br = sinf(tau * phase);
    p->root.y = s->pos[z->hips].y - 0.004f * (1.0f + br);
    p->delta[z->neck] = creature_rot(1, 0, 0, 4.0f * br);
    p->delta[z->head] = creature_rot(0, 1, 0, 10.0f * sinf(tau * phase + 0.7f));
}

int creature_build_lizard(creature_build *b)
{
    creature_skeleton *s = &b->skel;
    lizard z;
    memset(s, 0, sizeof *s);
    z.hips = creature_skeleton_add(s, "", "Hips", -1, v3(0, 0.30f, -0.25f));
    z.back = creature_skeleton_add(s, "", "Back", z.hips, v3(0, 0.31f, 0.02f));
    z.chest = creature_skeleton_add(s, "", "Chest", z.back, v3(0, 0.31f, 0.28f));
    z.neck = creature_skeleton_add(s, "", "Neck", z.chest, v3(0, 0.33f, 0.44f));
    z.head = creature_skeleton_add(s, "", "Head", z.neck, v3(0, 0.37f, 0.56f));
    static const char *names[4][3] = {{"FrontLeg.L", "FrontShin.L", "FrontFoot.L"},
                                      {"FrontLeg.R", "FrontShin.R", "FrontFoot.R"},
                                      {"BackLeg.L", "BackShin.L", "BackFoot.L"},
                                      {"BackLeg.R", "BackShin.R", "BackFoot.R"}};
    for (int k = 0; k < 4; k++) {
        float x = (k % 2 == 0) ? 1.0f : -1.0f;
        int front = k < 2;
        float zc = front ? 0.30f : -0.26f, dz = 0.02f;
        z.leg[k] = creature_skeleton_add(s, "", names[k][0], front ? z.chest : z.hips,
                                         v3(0.09f * x, 0.29f, zc));
        z.shin[k] =
            creature_skeleton_add(s, "", names[k][1], z.leg[k], v3(0.27f * x, 0.24f, zc + dz));
        z.foot[k] =
            creature_skeleton_add(s, "", names[k][2], z.shin[k], v3(0.30f * x, 0.04f, zc + 2 * dz));
    }
    creature_skeleton_finish(s, 0.5f);

    creature_add_piece(b, "body", SINEW_CREATURE_PART_BODY, SINEW_CREATURE_VERDICT_UNCHANGED, "");
    creature_mesh *m = &b->mesh;
    int ok = 1;

    /* body along z (`a` along x, `b` vertical) */
    creature_tube t = creature_tube_make(0, 40, 40, v3(0, 0.30f, -0.40f), v3(0, 0.32f, 0.46f),
                                         v3(1, 0, 0), 0.08f, 0.08f);
    creature_tube_profile(&t, 0.00f, 0.100f, 0.085f, 0);
    creature_tube_profile(&t, 0.35f, 0.140f, 0.110f, 0);
    creature_tube_profile(&t, 0.75f, 0.125f, 0.100f, 0);
    creature_tube_profile(&t, 1.00f, 0.070f, 0.065f, 0);
    creature_tube_candidate(&t, z.hips), creature_tube_candidate(&t, z.back),
        creature_tube_candidate(&t, z.chest), creature_tube_candidate(&t, z.neck);
    for (int k = 0; k < 4; k++)
        creature_tube_candidate(&t, z.leg[k]);
    ok &= creature_mesh_tube(m, s, &t);

    /* neck and head to the snout */
    t = creature_tube_make(0, 28, 24, v3(0, 0.32f, 0.40f), v3(0, 0.36f, 0.78f), v3(1, 0, 0), 0,
                           0.15f);
    creature_tube_profile(&t, 0.00f, 0.070f, 0.060f, 0);
    creature_tube_profile(&t, 0.55f, 0.085f, 0.072f, 0);
    creature_tube_profile(&t, 1.00f, 0.030f, 0.025f, 0);
    creature_tube_candidate(&t, z.chest), creature_tube_candidate(&t, z.neck),
        creature_tube_candidate(&t, z.head);
    ok &= creature_mesh_tube(m, s, &t);

    for (int k = 0; k < 4; k++) {
        float x = (k % 2 == 0) ? 1.0f : -1.0f;
        int front = k < 2;
        sinew_vec3 hip = s->pos[z.leg[k]], knee = s->pos[z.shin[k]], ankle = s->pos[z.foot[k]];
        int32_t body = front ? z.chest : z.hips;
        t = creature_tube_make(0, 16, 12, sinew_vec3_make(hip.x - 0.04f * x, hip.y, hip.z), knee,
                               v3(1, 0, 0), 0.1f, 0.15f);
        creature_tube_profile(&t, 0, 0.048f, 0.045f, 0);
        creature_tube_profile(&t, 1, 0.036f, 0.034f, 0);
        creature_tube_candidate(&t, body), creature_tube_candidate(&t, z.leg[k]),
            creature_tube_candidate(&t, z.shin[k]);
        ok &= creature_mesh_tube(m, s, &t);
        t = creature_tube_make(0, 16, 14, sinew_vec3_madd(knee, sinew_vec3_sub(knee, ankle), 0.1f),
                               ankle, v3(1, 0, 0), 0.15f, 0.1f);
        creature_tube_profile(&t, 0, 0.034f, 0.032f, 0);
        creature_tube_profile(&t, 1, 0.026f, 0.026f, 0);
        creature_tube_candidate(&t, z.leg[k]), creature_tube_candidate(&t, z.shin[k]),
            creature_tube_candidate(&t, z.foot[k]);
        ok &= creature_mesh_tube(m, s, &t);
        sinew_vec3 heel = sinew_vec3_make(ankle.x, 0.02f, ankle.z - 0.04f);
        t = creature_tube_make(0, 16, 10, heel,
                               sinew_vec3_make(ankle.x + 0.02f * x, 0.02f, ankle.z + 0.12f),
                               v3(1, 0, 0), 0.5f, 0.5f);
        creature_tube_profile(&t, 0, 0.040f, 0.020f, 0);
        creature_tube_candidate(&t, z.shin[k]), creature_tube_candidate(&t, z.foot[k]);
        ok &= creature_mesh_tube(m, s, &t);
    }

    /* the tail: from inside the body's rear cap, back and down towards the ground */
    uint8_t pc = creature_add_piece(b, "tail", SINEW_CREATURE_PART_TAIL,
                                    SINEW_CREATURE_VERDICT_CHAIN, s->name[z.hips]);
    t = creature_tube_make(pc, 20, 56, v3(0, 0, 0), v3(0, 0, 0), v3(1, 0, 0), 0, 0.05f);
    t.ctrl_count = 4;
    t.ctrl[0] = v3(0, 0.295f, -0.35f);
    t.ctrl[1] = v3(0, 0.27f, -0.70f);
    t.ctrl[2] = v3(0, 0.14f, -1.05f);
    t.ctrl[3] = v3(0.06f, 0.05f, -1.45f);
    creature_tube_profile(&t, 0.0f, 0.075f, 0.068f, 0);
    creature_tube_profile(&t, 0.4f, 0.050f, 0.045f, 0);
    creature_tube_profile(&t, 1.0f, 0.014f, 0.012f, 0);
    /* a template rigger's dump (see CREATURE_WEIGHT_TEMPLATE): the left hind shin, the hips,
     * and the rest split between the hind thighs by side */
    memset(&t.weights, 0, sizeof t.weights);
    t.weights.mode = CREATURE_WEIGHT_TEMPLATE;
    t.weights.count = 4;
    t.weights.joints[0] = z.shin[2], t.weights.from[0] = 0.35f, t.weights.to[0] = 0.60f;
    t.weights.joints[1] = z.leg[2];
    t.weights.joints[2] = z.leg[3];
    t.weights.joints[3] = z.hips, t.weights.from[3] = 0.10f, t.weights.to[3] = 0.05f;
    t.weights.side_width = 0.014f;
    ok &= creature_mesh_piece(b, pc, &t);
    if (!ok || m->failed) return 0;

    lizard_gait walk = {&z, 22.0f, 25.0f, 7.0f, 0.6f};
    ok &= creature_add_clip(b, "Walk", 1.0f, lizard_walk, &walk);
    ok &= creature_add_clip(b, "Idle", 2.0f, lizard_idle, &z);
    return ok;
}
