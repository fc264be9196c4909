/* The random family's skeleton as files spell it, and its clips.
 *
 * Names are only hints to a rigger, so every style a real file shows occurs: Mixamo's
 * (mixamorig:LeftUpLeg, the front legs of a quadruped named as arms), Quaternius's (Body,
 * Back, Torso, FrontLeg.L, BackLeg.R, IKBackLeg.L, PoleTarget.L), Maya-style (pelvis_jnt,
 * l_thigh_jnt), Sketchfab exports ("_rootJoint", Blender names with the node index appended
 * or generic "Bone.023_25") and unnamed (bone_7). The hierarchy is the anatomy's, except a
 * flat Sketchfab export, where every chain (spine, each limb, the tail) hangs from the root
 * joint. Clips pose the anatomy (builder.c's world-axis deltas and leg IK) and are written
 * through the file map: local to each joint's file parent, in its file frame.
 */
#include "creature/random.h"

#include <stdio.h>
#include <string.h>

/* ---- names ---- */

typedef struct namer {
    const random_creature *c;
    const char *prefix; /* Mixamo's "mixamorig:" */
    int generic;        /* Sketchfab: "Bone.023_25" instead of Blender names */
    uint32_t bones;     /* generic Sketchfab names handed out so far */
} namer;

static const char *lr(int side, const char *left, const char *right)
{
    return side == 1 ? left : right;
}

/* Which limb joint j belongs to (-1 for none). */
static int limb_of(const random_creature *c, uint32_t j)
{
    for (uint32_t k = 0; k < c->limb_count; k++) {
        const rc_limb *l = &c->limb[k];
        int32_t js[8] = {l->girdle, l->upper, l->lower, l->foot, l->toe, l->end, l->ik, l->pole};
        for (int i = 0; i < 8; i++)
            if (js[i] == (int32_t)j) return (int)k;
    }
    return -1;
}

/* What every style's name for a joint is made of. */
typedef struct joint_facts {
    rc_role role;
    int arm;  /* on an arm or a front leg */
    int quad; /* the creature is a quadruped */
    int side; /* 1 left, else right */
    int idx;  /* its place along its chain (spine, neck, tail) */
} joint_facts;

static joint_facts facts_of(const random_creature *c, uint32_t j)
{
    const int li = limb_of(c, j);
    return (joint_facts){(rc_role)c->role[j], li >= 0 && c->limb[li].arm, !c->biped, c->side[j],
                         c->index[j]};
}

/* Mixamo names: a humanoid template on any body ("mixamorig:LeftUpLeg"). */
static void name_mixamo(const namer *n, const joint_facts *f, uint32_t j, char *out, size_t size)
{
    const random_creature *c = n->c;
    const char *Left = lr(f->side, "Left", "Right");
    /* a humanoid template on any body: front legs are arms */
    static const char *limb_arm[] = {"Shoulder", "Arm",        "ForeArm",
                                     "Hand",     "HandIndex1", "HandIndex4"};
    static const char *limb_leg[] = {"", "UpLeg", "Leg", "Foot", "ToeBase", "Toe_End"};
    const char **names = f->arm ? limb_arm : limb_leg;
    switch (f->role) {
    case RC_ROLE_HIPS:
        snprintf(out, size, "%sHips", n->prefix);
        return;
    case RC_ROLE_SPINE:
        if (f->idx == 1)
            snprintf(out, size, "%sSpine", n->prefix);
        else
            snprintf(out, size, "%sSpine%d", n->prefix, f->idx - 1);
        return;
    case RC_ROLE_NECK:
        if (f->idx == 1)
            snprintf(out, size, "%sNeck", n->prefix);
        else
            snprintf(out, size, "%sNeck%d", n->prefix, f->idx - 1);
        return;
    case RC_ROLE_HEAD:
        snprintf(out, size, "%sHead", n->prefix);
        return;
    case RC_ROLE_HEAD_END:
        snprintf(out, size, "%sHeadTop_End", n->prefix);
        return;
    case RC_ROLE_GIRDLE:
        snprintf(out, size, "%s%s%s", n->prefix, Left, names[0]);
        return;
    case RC_ROLE_UPPER:
        snprintf(out, size, "%s%s%s", n->prefix, Left, names[1]);
        return;
    case RC_ROLE_LOWER:
        snprintf(out, size, "%s%s%s", n->prefix, Left, names[2]);
        return;
    case RC_ROLE_FOOT:
        snprintf(out, size, "%s%s%s", n->prefix, Left, names[3]);
        return;
    case RC_ROLE_TOE:
        snprintf(out, size, "%s%s%s", n->prefix, Left, names[4]);
        return;
    case RC_ROLE_LIMB_END:
        snprintf(out, size, "%s%s%s", n->prefix, Left, c->biped && f->arm ? names[4] : names[5]);
        return;
    case RC_ROLE_TAIL:
        snprintf(out, size, "%sTail%d", n->prefix, f->idx);
        return;
    case RC_ROLE_TAIL_END:
        snprintf(out, size, "%sTail_End", n->prefix);
        return;
    default: /* Mixamo rigs have no root or helpers; name them plainly if asked */
        snprintf(out, size, "%sHelper%u", n->prefix, j);
        return;
    }
}

/* Quaternius names ("BackLowerLeg.L" on a quadruped, "UpperLeg.L" on a biped, "Torso"). */
static void name_quaternius(const namer *n, const joint_facts *f, uint32_t j, char *out,
                            size_t size)
{
    const random_creature *c = n->c;
    const char *L = lr(f->side, "L", "R");
    static const char *qspine[] = {"Back", "Torso", "Torso2"};
    static const char *bspine[] = {"Abdomen", "Torso", "Chest"};
    const char *pre = f->quad ? (f->arm ? "Front" : "Back") : "";
    switch (f->role) {
    case RC_ROLE_ROOT:
        snprintf(out, size, "Root");
        return;
    case RC_ROLE_HIPS:
        snprintf(out, size, f->quad ? "Body" : "Hips");
        return;
    case RC_ROLE_SPINE:
        snprintf(out, size, "%s", (f->quad ? qspine : bspine)[(f->idx - 1) % 3]);
        return;
    case RC_ROLE_NECK:
        if (f->idx == 1)
            snprintf(out, size, "Neck");
        else
            snprintf(out, size, "Neck%d", f->idx);
        return;
    case RC_ROLE_HEAD:
        snprintf(out, size, "Head");
        return;
    case RC_ROLE_HEAD_END:
        snprintf(out, size, "Head_end");
        return;
    case RC_ROLE_GIRDLE:
        snprintf(out, size, "%sShoulder.%s", pre, L);
        return;
    case RC_ROLE_UPPER:
        if (f->quad)
            snprintf(out, size, "%sLeg.%s", pre, L);
        else
            snprintf(out, size, "%s.%s", f->arm ? "UpperArm" : "UpperLeg", L);
        return;
    case RC_ROLE_LOWER:
        if (f->quad)
            snprintf(out, size, "%sLowerLeg.%s", pre, L);
        else
            snprintf(out, size, "%s.%s", f->arm ? "LowerArm" : "LowerLeg", L);
        return;
    case RC_ROLE_FOOT:
        snprintf(out, size, "%s%s.%s", pre, c->biped && f->arm ? "Fist" : "Foot", L);
        return;
    case RC_ROLE_TOE:
        snprintf(out, size, "%sToe.%s", pre, L);
        return;
    case RC_ROLE_LIMB_END:
        snprintf(out, size, "%s%s_end.%s", pre, c->biped && f->arm ? "Fist" : "Toe", L);
        return;
    case RC_ROLE_TAIL:
        snprintf(out, size, "Tail%d", f->idx);
        return;
    case RC_ROLE_TAIL_END:
        snprintf(out, size, "Tail_end");
        return;
    case RC_ROLE_IK:
        if (f->quad)
            snprintf(out, size, "IK%sLeg.%s", pre, L);
        else
            snprintf(out, size, "IKLeg.%s", L);
        return;
    case RC_ROLE_POLE:
        snprintf(out, size, "PoleTarget%s.%s", f->quad && !f->arm ? "Back" : "", L);
        return;
    default:
        snprintf(out, size, "Joint%u", j);
        return;
    }
}

/* Maya-style names ("l_thigh_jnt", "tail_1_jnt"). */
static void name_maya(const namer *n, const joint_facts *f, uint32_t j, char *out, size_t size)
{
    const random_creature *c = n->c;
    const char *l = lr(f->side, "l", "r");
    const char *pre = f->quad ? (f->arm ? "front_" : "") : "";
    switch (f->role) {
    case RC_ROLE_ROOT:
        snprintf(out, size, "root_jnt");
        return;
    case RC_ROLE_HIPS:
        snprintf(out, size, "pelvis_jnt");
        return;
    case RC_ROLE_SPINE:
        snprintf(out, size, "spine_%d_jnt", f->idx);
        return;
    case RC_ROLE_NECK:
        snprintf(out, size, "neck_%d_jnt", f->idx);
        return;
    case RC_ROLE_HEAD:
        snprintf(out, size, "head_jnt");
        return;
    case RC_ROLE_HEAD_END:
        snprintf(out, size, "head_end_jnt");
        return;
    case RC_ROLE_GIRDLE:
        snprintf(out, size, "%s_%s_jnt", l, f->quad ? "scapula" : "clavicle");
        return;
    case RC_ROLE_UPPER:
        snprintf(out, size, "%s_%s%s_jnt", l, pre, f->arm ? "shoulder" : "thigh");
        return;
    case RC_ROLE_LOWER:
        snprintf(out, size, "%s_%s%s_jnt", l, pre, f->arm ? "elbow" : "knee");
        return;
    case RC_ROLE_FOOT:
        snprintf(out, size, "%s_%s%s_jnt", l, pre, f->arm ? "wrist" : (f->quad ? "hock" : "ankle"));
        return;
    case RC_ROLE_TOE:
        snprintf(out, size, "%s_%s%s_jnt", l, pre, f->quad ? "toe" : "ball");
        return;
    case RC_ROLE_LIMB_END:
        snprintf(out, size, "%s_%s%s_end_jnt", l, pre, c->biped && f->arm ? "hand" : "toe");
        return;
    case RC_ROLE_TAIL:
        snprintf(out, size, "tail_%d_jnt", f->idx);
        return;
    case RC_ROLE_TAIL_END:
        snprintf(out, size, "tail_end_jnt");
        return;
    case RC_ROLE_IK:
        snprintf(out, size, "%s_%sleg_ik_jnt", l, pre);
        return;
    case RC_ROLE_POLE:
        snprintf(out, size, "%s_%s%s_pv_jnt", l, pre, f->arm ? "elbow" : "knee");
        return;
    default:
        snprintf(out, size, "joint_%u_jnt", j);
        return;
    }
}

/* Sketchfab exports: Blender (rigify-like) names with the node index appended, or generic
 * "Bone.023_25" ones. */
static void name_sketchfab(const namer *n, const joint_facts *f, uint32_t j, char *out, size_t size)
{
    const random_creature *c = n->c;
    const char *L = lr(f->side, "L", "R");
    const char *fb = f->quad ? (f->arm ? ".F" : ".B") : "";
    char base[48];
    switch (f->role) {
    case RC_ROLE_ROOT:
        snprintf(out, size, "_rootJoint");
        return;
    case RC_ROLE_ROOT2:
        snprintf(base, sizeof base, "root");
        break;
    case RC_ROLE_HIPS:
        snprintf(base, sizeof base, f->quad ? "torso" : "pelvis");
        break;
    case RC_ROLE_SPINE:
        snprintf(base, sizeof base, "spine.%02d", f->idx);
        break;
    case RC_ROLE_NECK:
        snprintf(base, sizeof base, f->idx == 1 ? "neck" : "neck.%02d", f->idx);
        break;
    case RC_ROLE_HEAD:
        snprintf(base, sizeof base, "head");
        break;
    case RC_ROLE_HEAD_END:
        snprintf(base, sizeof base, "head.end");
        break;
    case RC_ROLE_GIRDLE:
        snprintf(base, sizeof base, "shoulder%s.%s", fb, L);
        break;
    case RC_ROLE_UPPER:
        snprintf(base, sizeof base,
                 f->quad ? "leg.upper%s.%s" : (f->arm ? "upper_arm.%s%s" : "thigh.%s%s"),
                 f->quad ? fb : L, f->quad ? L : "");
        break;
    case RC_ROLE_LOWER:
        snprintf(base, sizeof base,
                 f->quad ? "leg.lower%s.%s" : (f->arm ? "forearm.%s%s" : "shin.%s%s"),
                 f->quad ? fb : L, f->quad ? L : "");
        break;
    case RC_ROLE_FOOT:
        snprintf(base, sizeof base, "%s%s.%s", c->biped && f->arm ? "hand" : "foot", fb, L);
        break;
    case RC_ROLE_TOE:
        snprintf(base, sizeof base, "toe%s.%s", fb, L);
        break;
    case RC_ROLE_LIMB_END:
        snprintf(base, sizeof base, "%s%s.%s.end", c->biped && f->arm ? "hand" : "toe", fb, L);
        break;
    case RC_ROLE_TAIL:
        snprintf(base, sizeof base, f->idx == 1 ? "tail" : "tail.%02d", f->idx - 1);
        break;
    case RC_ROLE_TAIL_END:
        snprintf(base, sizeof base, "tail.end");
        break;
    case RC_ROLE_IK:
        snprintf(base, sizeof base, "foot%s.IK.%s", fb, L);
        break;
    case RC_ROLE_POLE:
        snprintf(base, sizeof base, "%s%s.pole.%s", f->arm ? "elbow" : "knee", fb, L);
        break;
    default:
        snprintf(base, sizeof base, "bone");
        break;
    }
    snprintf(out, size, "%s_%02u", base, j);
    return;
}
/* Mixamo, Quaternius, Maya and Sketchfab (Blender) names for one joint. */
static void name_joint(const namer *n, uint32_t j, char *out, size_t size)
{
    const joint_facts facts = facts_of(n->c, j), *f = &facts;
    switch (n->c->tr->style) {
    case SINEW_CREATURE_STYLE_MIXAMO:
        name_mixamo(n, f, j, out, size);
        return;
    case SINEW_CREATURE_STYLE_QUATERNIUS:
        name_quaternius(n, f, j, out, size);
        return;
    case SINEW_CREATURE_STYLE_MAYA:
        name_maya(n, f, j, out, size);
        return;
    default:
        name_sketchfab(n, f, j, out, size);
        return;
    }
}

void rc_name_joints(creature_build *b, random_creature *c)
{
    creature_skeleton *s = &b->skel;
    namer n = {c, "", 0, 0};
    const sinew_creature_traits *tr = c->tr;
    if (tr->style == SINEW_CREATURE_STYLE_MIXAMO) {
        float u = creature_rng_unit(&c->rng);
        n.prefix = u < 0.6f ? "mixamorig:" : (u < 0.75f ? "mixamorig1:" : "");
    }
    if (tr->style == SINEW_CREATURE_STYLE_SKETCHFAB) n.generic = creature_rng_chance(&c->rng, 0.5f);
    for (uint32_t j = 0; j < s->count; j++) {
        if (tr->style == SINEW_CREATURE_STYLE_UNNAMED) {
            snprintf(s->name[j], SINEW_CREATURE_NAME_MAX, "bone_%u", j);
        } else if (tr->style == SINEW_CREATURE_STYLE_SKETCHFAB && n.generic &&
                   c->role[j] != RC_ROLE_ROOT) {
            /* Blender's Bone, Bone.001 .. with the exporter's node index */
            if (n.bones == 0)
                snprintf(s->name[j], SINEW_CREATURE_NAME_MAX, "Bone_%02u", j);
            else
                snprintf(s->name[j], SINEW_CREATURE_NAME_MAX, "Bone.%03u_%02u", n.bones, j);
            n.bones++;
        } else {
            name_joint(&n, j, s->name[j], SINEW_CREATURE_NAME_MAX);
        }
    }
}

/* ---- the file's hierarchy and bone axes ---- */

/* IK targets follow their feet (position, and turn relative to their bind frames); poles stay
 * where FK leaves them. */
static void helpers_follow(const creature_skeleton *s, const void *ctx, creature_pose *p)
{
    const random_creature *c = ctx;
    for (uint32_t k = 0; k < c->limb_count; k++) {
        const rc_limb *l = &c->limb[k];
        if (l->ik < 0) continue;
        p->world_pos[l->ik] = p->world_pos[l->foot];
        sinew_quat turn = sinew_quat_mul(p->world[l->foot], sinew_quat_conjugate(s->rot[l->foot]));
        p->world[l->ik] = sinew_quat_normalize(sinew_quat_mul(turn, s->rot[l->ik]));
    }
    /* a root joint stays on the floor where it was bound: the hips carry the motion */
    if (c->root >= 0) p->world_pos[c->root] = s->pos[c->root];
}

void rc_make_file_map(creature_build *b, random_creature *c)
{
    const creature_skeleton *s = &b->skel;
    const sinew_creature_traits *tr = c->tr;
    creature_file_map *map = &c->map;
    memset(map, 0, sizeof *map);
    map->after_solve = helpers_follow;
    /* Maya's bones run along local +X: the file frame is the anatomical one turned 90
     * degrees about its own Z (which takes +X onto the bone's +Y) */
    const sinew_quat to_x =
        sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), (float)(SINEW_PI / 2.0));
    for (uint32_t j = 0; j < s->count; j++) {
        map->parent[j] = s->parent[j];
        switch (tr->axes) {
        case SINEW_CREATURE_AXES_X:
            map->axes[j] = to_x;
            break;
        case SINEW_CREATURE_AXES_WORLD:
            map->axes[j] = sinew_quat_conjugate(s->rot[j]);
            break;
        default:
            map->axes[j] = sinew_quat_identity();
            break;
        }
    }
    /* The root joint is keyed where it was bound; the motion rides on the joints below it. */
    map->translate[0] = 1;
    if (c->root >= 0) map->translate[c->hips] = 1;
    if (c->root2 >= 0) map->translate[c->root2] = 1;
    if (tr->flat_hierarchy && c->root >= 0) {
        /* every chain hangs from the root joint: limbs and the tail leave the trunk */
        for (uint32_t k = 0; k < c->limb_count; k++) {
            int32_t head = c->limb[k].girdle >= 0 ? c->limb[k].girdle : c->limb[k].upper;
            map->parent[head] = c->root;
            map->translate[head] = 1;
        }
        if (c->tail_count) {
            map->parent[c->tail[0]] = c->root;
            map->translate[c->tail[0]] = 1;
        }
        map->parent[c->hips] = c->root;
    }
    for (uint32_t k = 0; k < c->limb_count; k++)
        if (c->limb[k].ik >= 0) map->translate[c->limb[k].ik] = 1;
}

/* ---- clips ---- */

static sinew_quat rot(float ax, float ay, float az, float deg)
{
    return creature_rot(ax, ay, az, deg);
}

/* Legs on IK, ankles at their bind targets, knees forward (front legs: elbows back). */
static void setup_legs(const creature_skeleton *s, const random_creature *c, creature_pose *p)
{
    p->leg_count = 0;
    for (uint32_t k = 0; k < c->limb_count; k++) {
        const rc_limb *l = &c->limb[k];
        if (c->biped && l->arm) continue;
        creature_leg *leg = &p->legs[p->leg_count++];
        leg->upper = l->upper;
        leg->lower = l->lower;
        leg->foot = l->foot;
        leg->ankle = s->pos[l->foot];
        leg->pole = sinew_vec3_make(0, 0, l->arm ? -1.0f : 1.0f);
        leg->foot_delta = sinew_quat_identity();
    }
}

/* A rigged tail swings side to side, the wave running down it. */
static void tail_sway(const random_creature *c, creature_pose *p, float phase, float deg)
{
    const float tau = (float)(2.0 * SINEW_PI);
    for (uint32_t k = 0; k < c->tail_count; k++)
        p->delta[c->tail[k]] = rot(0, 1, 0, deg * sinf(tau * phase - 0.6f * (float)k));
}

/* Biped arms: lowered from the bind pose about Z, swung about X (positive: back), elbows
 * bent forward about Y. */
static void arms(const random_creature *c, creature_pose *p, float down, float swing_l,
                 float swing_r, float elbow_l, float elbow_r)
{
    for (uint32_t k = 0; k < c->limb_count; k++) {
        const rc_limb *l = &c->limb[k];
        if (!l->arm) continue;
        float sx = l->side == 0 ? 1.0f : -1.0f;
        float swing = l->side == 0 ? swing_l : swing_r, elbow = l->side == 0 ? elbow_l : elbow_r;
        p->delta[l->upper] = sinew_quat_mul(rot(1, 0, 0, swing), rot(0, 0, 1, -sx * down));
        p->delta[l->lower] = rot(0, 1, 0, -sx * elbow);
    }
}

/* One leg of a cyclic gait in place: stance slides the ankle back on the floor, swing lifts
 * it forward; `ph` is the leg's own phase. */
static void step(creature_leg *leg, float ph, float duty, float stride, float lift, float flick)
{
    if (ph < duty) {
        leg->ankle.z += stride * (0.5f - ph / duty);
    } else {
        float q = (ph - duty) / (1.0f - duty);
        float sq = sinf((float)SINEW_PI * q);
        leg->ankle.z += stride * (-0.5f + 0.5f * (1.0f - cosf((float)SINEW_PI * q)));
        leg->ankle.y += lift * sq;
        leg->foot_delta = rot(1, 0, 0, flick * sq);
    }
}

static void biped_walk(const creature_skeleton *s, const void *ctx, float phase, creature_pose *p)
{
    const random_creature *c = ctx;
    const float tau = (float)(2.0 * SINEW_PI), leg = c->leg;
    const float duty = 0.62f, yaw = 5.0f, lean = 3.0f, sway = 0.025f * leg;
    float cs = cosf(tau * phase);
    setup_legs(s, c, p);
    for (uint32_t k = 0; k < p->leg_count; k++) {
        float ph = phase + (k == 1 ? 0.5f : 0.0f);
        ph -= floorf(ph);
        step(&p->legs[k], ph, duty, 0.55f * leg, 0.1f * leg, 18.0f);
    }
    /* pelvis turns with the forward leg and shifts over the stance leg; the spine
     * counter-rotates and leans; the head stays level */
    p->delta[c->hips] =
        sinew_quat_mul(rot(0, 1, 0, -yaw * cs), rot(0, 0, 1, 0.4f * yaw * sinf(tau * phase)));
    p->root.x += sway * cosf(tau * (phase - 0.5f * duty));
    sinew_quat counter = rot(0, 1, 0, 0.45f * yaw * cs / (float)c->spine_count);
    for (uint32_t k = 0; k < c->spine_count; k++)
        p->delta[c->spine[k]] = k == 0 ? sinew_quat_mul(counter, rot(1, 0, 0, lean)) : counter;
    p->delta[c->neck[0]] = rot(1, 0, 0, -0.5f * lean);
    p->delta[c->head] = rot(0, 1, 0, 0.3f * yaw * cs);
    float swing = 22.0f * cs, fl = fmaxf(0.0f, -cs), fr = fmaxf(0.0f, cs);
    arms(c, p, 72.0f - c->arm_drop, swing, -swing, 18.0f * (0.6f + 0.6f * fl),
         18.0f * (0.6f + 0.6f * fr));
    tail_sway(c, p, phase, 8.0f);
    creature_pose_fit_root_height(s, p);
}

static void quad_walk(const creature_skeleton *s, const void *ctx, float phase, creature_pose *p)
{
    const random_creature *c = ctx;
    const float tau = (float)(2.0 * SINEW_PI), leg = c->leg;
    /* a lateral-sequence walk: hind left, front left, hind right, front right */
    setup_legs(s, c, p);
    for (uint32_t k = 0; k < p->leg_count; k++) {
        const rc_limb *l = &c->limb[k];
        float offset = l->arm ? (l->side == 0 ? 0.25f : 0.75f) : (l->side == 0 ? 0.0f : 0.5f);
        float ph = phase + offset;
        ph -= floorf(ph);
        step(&p->legs[k], ph, 0.68f, 0.5f * leg, 0.12f * leg, l->arm ? -15.0f : 15.0f);
    }
    float w = sinf(tau * phase), bob = sinf(2.0f * tau * phase);
    p->delta[c->hips] = sinew_quat_mul(rot(0, 1, 0, 3.0f * w), rot(0, 0, 1, 2.0f * w));
    for (uint32_t k = 0; k < c->spine_count; k++)
        p->delta[c->spine[k]] = rot(0, 1, 0, -3.0f * w / (float)c->spine_count);
    p->delta[c->neck[0]] = rot(1, 0, 0, 3.0f * bob);
    p->delta[c->head] = rot(1, 0, 0, -2.0f * bob);
    tail_sway(c, p, phase, 10.0f);
    creature_pose_fit_root_height(s, p);
    p->root.y -= 0.01f * leg * (1.0f + bob) * 0.5f;
}

static void idle(const creature_skeleton *s, const void *ctx, float phase, creature_pose *p)
{
    const random_creature *c = ctx;
    const float tau = (float)(2.0 * SINEW_PI);
    float br = sinf(2.0f * tau * phase);
    setup_legs(s, c, p);
    p->root.y -= 0.01f * c->leg * (1.0f + br);
    p->delta[c->spine[0]] = rot(1, 0, 0, 1.5f * br);
    p->delta[c->head] = rot(0, 1, 0, 12.0f * sinf(tau * phase + 1.0f));
    if (c->biped) arms(c, p, 74.0f - c->arm_drop + 2.0f * br, 0, 0, 12.0f, 12.0f);
    tail_sway(c, p, phase, 5.0f);
}

int rc_add_clips(creature_build *b, random_creature *c)
{
    int ok = creature_add_clip(b, "Walk", c->walk_duration, c->biped ? biped_walk : quad_walk, c);
    return ok && creature_add_clip(b, "Idle", c->idle_duration, idle, c);
}
