/* Private to src/creature: the random family (sinew_creature_build_random).
 *
 *   random.c         the integer generator, what a seed draws (traits), its description, and
 *                    the build in order: skeleton, names, mesh, clips, the file's hierarchy.
 *   random_body.c    the anatomy laid out with a body length of 1 (creature.c scales it): the
 *                    joints of a quadruped or a biped, the tubes of the body, the tail and the
 *                    extras, their truth pieces and weights.
 *   random_motion.c  joint names in each skeleton style, how the file writes the skeleton
 *                    (flat hierarchy, bone axes, helpers) and the Walk and Idle clips.
 */
#ifndef SINEW_CREATURE_RANDOM_H
#define SINEW_CREATURE_RANDOM_H

#include "creature/builder.h"

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
 * OOPSLA 2014): a 64-bit counter through a fixed mixer, so any seed, 0 included, is good. */
typedef struct creature_rng {
    uint64_t state;
} creature_rng;

uint64_t creature_rng_next(creature_rng *r);
/* Uniform in [0, 1) with 24 bits: exact in a float on every platform. */
float creature_rng_unit(creature_rng *r);
float creature_rng_range(creature_rng *r, float lo, float hi);
/* 1 with probability p. */
int creature_rng_chance(creature_rng *r, float p);
/* Uniform integer in [0, n); 0 when n is 0. */
uint32_t creature_rng_below(creature_rng *r, uint32_t n);

/* What a joint is, for naming it in each style. */
typedef enum rc_role {
    RC_ROLE_NONE = 0,
    RC_ROLE_ROOT,  /* the root joint on the floor (no weight) */
    RC_ROLE_ROOT2, /* a second root under it (Sketchfab's "root"), no weight */
    RC_ROLE_HIPS,  /* the pelvis */
    RC_ROLE_SPINE, /* index 1..3 */
    RC_ROLE_NECK,  /* index 1..2 */
    RC_ROLE_HEAD,
    RC_ROLE_HEAD_END, /* terminal, no weight */
    RC_ROLE_GIRDLE,   /* clavicle (arms) or scapula (front legs) */
    RC_ROLE_UPPER,    /* upper arm, thigh, upper front leg */
    RC_ROLE_LOWER,    /* forearm, shin, lower front leg */
    RC_ROLE_FOOT,     /* hand, foot, front foot (the IK end) */
    RC_ROLE_TOE,      /* toe (legs) */
    RC_ROLE_LIMB_END, /* terminal of a limb, no weight */
    RC_ROLE_TAIL,     /* index 1..n: bones of a rigged tail */
    RC_ROLE_TAIL_END, /* terminal of a rigged tail, no weight */
    RC_ROLE_IK,       /* IK target helper (no weight) */
    RC_ROLE_POLE      /* IK pole helper (no weight) */
} rc_role;

enum { RC_MAX_LIMBS = 4, RC_MAX_TAIL_BONES = 8, RC_MAX_TAIL_POINTS = 9 };

typedef struct rc_limb {
    int arm;  /* 1: an arm (biped) or a front leg (quadruped); 0: a (hind) leg */
    int side; /* 0: left (+X), 1: right */
    int32_t girdle, upper, lower, foot, toe, end, ik, pole; /* joints, -1 when absent */
    float radius;                                           /* at the top of the limb */
} rc_limb;

typedef struct random_creature {
    const sinew_creature_traits *tr;
    creature_rng rng; /* shape details the traits do not list */
    int biped;

    /* layout, body length 1 */
    float rx, ry; /* torso radii: sideways, and vertical (quadruped) or front-back (biped) */
    float leg;    /* hip joint height */
    float yc;     /* quadruped: torso centre line height */
    float z_hips, z_chest;
    float neck_len, neck_angle, neck_radius; /* angle: degrees above the horizontal */
    float head_len, head_radius;
    int snout;
    float arm_drop; /* bipeds: degrees the arms hang below the horizontal in bind pose */
    float limb_radius;
    uint32_t spine_count, neck_count;

    /* joints (-1 when absent) */
    int32_t root, root2, hips, spine[3], neck[2], head, head_end, tail_end;
    int32_t tail[RC_MAX_TAIL_BONES];
    uint32_t tail_count;
    uint32_t limb_count;
    rc_limb limb[RC_MAX_LIMBS];
    uint8_t role[CREATURE_MAX_JOINTS];
    uint8_t side[CREATURE_MAX_JOINTS];  /* 0 centre, 1 left, 2 right */
    uint8_t index[CREATURE_MAX_JOINTS]; /* 1-based position in its chain (spine, neck, tail) */
    uint8_t front[CREATURE_MAX_JOINTS]; /* quadrupeds: 1 on a front leg */

    /* the tail's centre line: where it starts inside the body, then points from where it
     * leaves the body (tail_point[0]) to its tip, and its radius profile */
    sinew_vec3 tail_inner;
    uint32_t tail_point_count;
    sinew_vec3 tail_point[RC_MAX_TAIL_POINTS];
    float tail_visible;               /* arc length from tail_point[0] to the tip */
    float tail_root_radius;           /* where it leaves the body */
    int32_t tail_ring;                /* bipeds: the torso grid ring it leaves from (segment S/4) */
    int32_t tail_loop_u, tail_loop_v; /* bipeds, welded: half-size of the loop, grid steps */
    int tail_bushy;

    /* joints that carry weight (the candidates of "nearest bones") */
    uint32_t deform_count;
    int32_t deform[CREATURE_MAX_JOINTS];

    creature_file_map map;
    int full; /* the skeleton ran out of joints */
    /* gait */
    float walk_duration, idle_duration;
} random_creature;

/* random_body.c */
int rc_build_skeleton(creature_build *b, random_creature *c);
int rc_build_mesh(creature_build *b, random_creature *c);
/* random_motion.c */
void rc_name_joints(creature_build *b, random_creature *c);
void rc_make_file_map(creature_build *b, random_creature *c);
int rc_add_clips(creature_build *b, random_creature *c);

#endif
