/* sinew anim2d: 2D procedural animation of a stick figure (after Sidorkin, "Animating a stick
 * figure with two-bone IK in HTML canvas").
 *
 * Manual
 * ------
 * Everything here lives in canvas space: units are canvas units (the figure is about 150
 * tall; a page scales its canvas so the drawing space is about 440 units tall), y points
 * DOWN as in an HTML canvas, x points forward (the figure faces +x), time is in seconds and
 * angles in radians. By default the origin is the ground point under the figure (the squash
 * pivot); sinew_anim2d_options moves it.
 *
 * The building blocks are plain functions: two-bone IK by the law of cosines with its two
 * clamps (sinew_anim2d_ik), FK arms, the gait cycle (one phase, walk/run blend, duty factor,
 * foot path, ground scroll = stride x cadence / duty), eased keyframe tracks where a repeated
 * key holds a pose, squash and stretch about the ground point, a damped spring and a 4-point
 * Verlet chain.
 *
 * sinew_anim2d_figure puts them together: pick a motion (walk, run, throw, jump, spear form,
 * spear run), trigger actions (jump, thrust) in the spear run, and call
 * sinew_anim2d_figure_build_pose(fig, dt, &pose) once per frame: it returns every joint in
 * canvas units, and drawing is the caller's business. Switching motion at any moment blends
 * over options.blend_time, so no joint jumps. The head lags on its spring (260, 26) but is held
 * within 6 units of its place on the neck (a jump's 160-unit rise would otherwise leave it
 * behind); the hair's last constraint pass walks out from the pin, so its lengths come out
 * exact however hard the head jerks. Nothing here allocates, prints or reads a clock; the
 * same calls give the same bits.
 */
#ifndef SINEW_ANIM2D_H
#define SINEW_ANIM2D_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_vec2 {
    float x, y;
} sinew_vec2;

/* The skeleton of lengths, canvas units (the article's skeleton made of numbers).
 * HIP_H < THIGH + SHIN: the standing figure never locks its knees. */
#define SINEW_ANIM2D_SPINE 54.0f
#define SINEW_ANIM2D_NECK 13.0f
#define SINEW_ANIM2D_HEADR 12.0f
#define SINEW_ANIM2D_UARM 27.0f
#define SINEW_ANIM2D_FARM 25.0f
#define SINEW_ANIM2D_THIGH 37.0f
#define SINEW_ANIM2D_SHIN 37.0f
#define SINEW_ANIM2D_HIP_H 66.0f
/* The leg's extra safety net: a foot target farther than THIGH + SHIN - 1.5 from the hip is
 * pulled back along the same line, so the leg never snaps straight. */
#define SINEW_ANIM2D_LEG_SLACK 1.5f
/* The spear: total length and where the front hand holds it (units from the butt). */
#define SINEW_ANIM2D_SPEAR_LENGTH 150.0f
#define SINEW_ANIM2D_SPEAR_GRIP 62.0f
/* Distance between the two hands on the shaft (the back hand is nearer the butt). */
#define SINEW_ANIM2D_SPEAR_HANDS 28.0f
#define SINEW_ANIM2D_HAIR_POINTS 4

/* ---- two-bone IK and FK ---- */

/* Two-bone IK by the law of cosines: returns the middle joint
 * (knee or elbow) of the chain root -(l1)- joint -(l2)- end that reaches toward `target`.
 * The root-target distance is clamped to [|l1-l2| + 0.01, l1 + l2 - 0.01] and the cosine to
 * [-1, 1], so the result is never NaN for finite input: out of reach, the chain stretches as
 * far as it can toward the target. `sign` (+1 or -1) picks one of the two mirrored
 * solutions: the joint lies at angle base + sign * a, base = atan2(dy, dx) in canvas space
 * (y down); with the root above the target, sign -1 bends the joint forward (+x).
 * When `end` is not NULL it receives where the chain's end actually is: the target itself
 * when reachable, else the point the stretched chain reaches. l1, l2 > 0. */
sinew_vec2 sinew_anim2d_ik(sinew_vec2 root, sinew_vec2 target, float l1, float l2, float sign,
                           sinew_vec2 *end);

/* The leg: the foot target is first pulled back along the hip-target line to at most
 * THIGH + SHIN - LEG_SLACK from the hip, then solved with the knee bending forward (+x).
 * Returns the knee and writes the foot actually reached (NULL allowed). */
sinew_vec2 sinew_anim2d_leg_ik(sinew_vec2 hip, sinew_vec2 target, sinew_vec2 *foot);

/* FK arm (the article's armFK): angles measured from straight down, positive swinging forward;
 * the elbow is at shoulder + UARM (sin a_up, cos a_up) and the hand FARM further at angle
 * a_up + flex. `elbow` and `hand` must not be NULL. */
void sinew_anim2d_arm_fk(sinew_vec2 shoulder, float a_up, float flex, sinew_vec2 *elbow,
                         sinew_vec2 *hand);

/* ---- eased keyframe tracks ---- */

typedef enum sinew_anim2d_ease {
    SINEW_ANIM2D_EASE_DEFAULT = 0, /* a key's segment uses the track's fallback ease */
    SINEW_ANIM2D_EASE_LINEAR,
    SINEW_ANIM2D_EASE_SMOOTH,    /* smoothstep 3u^2 - 2u^3, the article's default */
    SINEW_ANIM2D_EASE_IN_CUBIC,  /* u^3: slow start, accelerating (falling) */
    SINEW_ANIM2D_EASE_OUT_CUBIC, /* 1 - (1-u)^3: fast start, settling (thrusts, rising) */
    SINEW_ANIM2D_EASE_IN_OUT_CUBIC,
    SINEW_ANIM2D_EASE_COUNT
} sinew_anim2d_ease;

/* Eased u for u in [0, 1] (clamped outside); DEFAULT and unknown kinds mean SMOOTH. */
float sinew_anim2d_ease_apply(sinew_anim2d_ease kind, float u);

/* One key of a track: the value at normalised time t, and the ease of the segment that ENDS
 * at this key (DEFAULT: the track's fallback). Two keys with equal values hold a pose. */
typedef struct sinew_anim2d_key {
    float t;                /* normalised time, non-decreasing along the track */
    float v;                /* value, in the unit of the animated property */
    sinew_anim2d_ease ease; /* ease of the segment ending here; default: the track's */
} sinew_anim2d_key;

/* Samples a track at normalised time t (the article's track()): before the first key its value,
 * after the last key the last value, else lerp between the two keys around t with the
 * segment's ease. Keys sharing a time do not divide by zero. count 0 gives 0. */
float sinew_anim2d_track(const sinew_anim2d_key *keys, size_t count, float t,
                         sinew_anim2d_ease fallback);

/* ---- gait ---- */

/* Gait parameters at one walk-run blend value. */
typedef struct sinew_anim2d_gait {
    float stride;      /* units the foot travels relative to the hip during stance */
    float cadence;     /* cycles per second (one cycle = two steps) */
    float duty;        /* fraction of the cycle a foot is on the ground; < 0.5 means flight */
    float step_height; /* units: swing lift at mid-swing */
    float bob;         /* units: hip rise at its peak, twice per cycle */
    float bob_shift;   /* cycles: phase delay of the bob (run: peak in flight) */
    float lean;        /* radians: body lean forward */
    float crouch;      /* units: hips lowered below HIP_H */
    float foot_push;   /* units per radian of lean: feet pushed forward under the mass */
    float arm_swing;   /* radians: arm swing amplitude */
    float elbow_flex;  /* radians: base elbow bend */
} sinew_anim2d_gait;

/* The gait at blend `gait` (0 walk: stride 44, cadence 1.5, duty 0.62; 1 run: 60, 2.55,
 * 0.40), every parameter interpolated linearly; gait is clamped to [0, 1]. */
sinew_anim2d_gait sinew_anim2d_gait_at(float gait);

/* Ground speed in units/s that keeps the stance foot still: stride x cadence / duty. */
float sinew_anim2d_gait_scroll_speed(const sinew_anim2d_gait *g);

/* One foot's offset from the point under the hips at cycle phase `phase` (any real; wrapped
 * to [0, 1)): during stance (phase < duty) x slides linearly from +stride/2 to -stride/2 on
 * the ground (y 0); during swing x returns by smoothstep, lifted (y negative, up) by
 * step_height * sin(pi u). The lean push is not included. */
sinew_vec2 sinew_anim2d_gait_foot(const sinew_anim2d_gait *g, double phase);

/* Hip height offset (units, negative = up): -bob |sin(2 pi (phase - bob_shift))|. */
float sinew_anim2d_gait_bob(const sinew_anim2d_gait *g, double phase);

/* ---- squash, spring, hair ---- */

/* Width scale that keeps the volume: sx = 1 + (1 - sy) * 0.7. */
float sinew_anim2d_squash_sx(float sy);

/* Scales p about `pivot` (the ground point under the figure) by (sx(sy), sy): a point on the
 * ground line stays on it. */
sinew_vec2 sinew_anim2d_squash(sinew_vec2 p, sinew_vec2 pivot, float sy);

/* A damped spring pulling a point toward a target: x'' = k (target - x) - c x'. */
typedef struct sinew_anim2d_spring {
    sinew_vec2 pos; /* units */
    sinew_vec2 vel; /* units/s */
} sinew_anim2d_spring;

/* One semi-implicit Euler step of dt seconds with stiffness k (1/s^2) and damping c (1/s). */
void sinew_anim2d_spring_step(sinew_anim2d_spring *s, sinew_vec2 target, float k, float c,
                              float dt);

/* A Verlet chain of SINEW_ANIM2D_HAIR_POINTS points; velocity is pos - prev. */
typedef struct sinew_anim2d_hair {
    sinew_vec2 pos[SINEW_ANIM2D_HAIR_POINTS];  /* units */
    sinew_vec2 prev[SINEW_ANIM2D_HAIR_POINTS]; /* units: positions one step ago */
} sinew_anim2d_hair;

/* Settles the chain hanging straight down from `pin`, at rest. */
void sinew_anim2d_hair_reset(sinew_anim2d_hair *h, sinew_vec2 pin, float spacing);

/* One Verlet step (the article's Verlet hair): v = (pos - prev) * drag; pos += v +
 * (wind_x, gravity) * dt^2 * 60; then `iterations` passes of the distance constraint bring
 * every pair back to `spacing` with point 0 pinned at `pin`. */
void sinew_anim2d_hair_step(sinew_anim2d_hair *h, sinew_vec2 pin, float wind_x, float gravity,
                            float spacing, float drag, int iterations, float dt);

/* ---- the figure ---- */

typedef enum sinew_anim2d_motion {
    SINEW_ANIM2D_MOTION_INVALID = 0,
    SINEW_ANIM2D_MOTION_WALK,       /* lab: locomotion, gait target 0 */
    SINEW_ANIM2D_MOTION_RUN,        /* lab: locomotion, gait target 1 */
    SINEW_ANIM2D_MOTION_THROW,      /* lab: the unarmed throw, looping, no scroll */
    SINEW_ANIM2D_MOTION_JUMP,       /* lab: the standing jump, looping, no scroll */
    SINEW_ANIM2D_MOTION_SPEAR_FORM, /* lab: the 17-pose spear form, looping, no scroll */
    SINEW_ANIM2D_MOTION_SPEAR_RUN,  /* game: run carrying the spear; jump and thrust actions */
    SINEW_ANIM2D_MOTION_COUNT
} sinew_anim2d_motion;

typedef enum sinew_anim2d_action {
    SINEW_ANIM2D_ACTION_INVALID = 0,
    SINEW_ANIM2D_ACTION_JUMP,   /* spear run: jump (rootY and squash tracks), keeps running */
    SINEW_ANIM2D_ACTION_THRUST, /* spear run: two-handed forward thrust */
    SINEW_ANIM2D_ACTION_COUNT
} sinew_anim2d_action;

/* Joint indices into sinew_anim2d_pose.joints (an index enum, so it starts at 0). "Near" is
 * the limb on the viewer's side, "far" the one behind the body. */
typedef enum sinew_anim2d_joint {
    SINEW_ANIM2D_JOINT_PELVIS = 0, /* = the hip joint of both legs */
    SINEW_ANIM2D_JOINT_CHEST,      /* top of the spine */
    SINEW_ANIM2D_JOINT_SHOULDER,   /* both arms hang here */
    SINEW_ANIM2D_JOINT_NECK,       /* top of the neck */
    SINEW_ANIM2D_JOINT_HEAD,       /* centre of the head, after the spring */
    SINEW_ANIM2D_JOINT_KNEE_NEAR,
    SINEW_ANIM2D_JOINT_KNEE_FAR,
    SINEW_ANIM2D_JOINT_FOOT_NEAR,
    SINEW_ANIM2D_JOINT_FOOT_FAR,
    SINEW_ANIM2D_JOINT_ELBOW_NEAR,
    SINEW_ANIM2D_JOINT_ELBOW_FAR,
    SINEW_ANIM2D_JOINT_HAND_NEAR,
    SINEW_ANIM2D_JOINT_HAND_FAR,
    SINEW_ANIM2D_JOINT_SPEAR_TIP,
    SINEW_ANIM2D_JOINT_SPEAR_BUTT,
    SINEW_ANIM2D_JOINT_HAIR_0, /* pinned at the back of the head */
    SINEW_ANIM2D_JOINT_HAIR_1,
    SINEW_ANIM2D_JOINT_HAIR_2,
    SINEW_ANIM2D_JOINT_HAIR_3,
    SINEW_ANIM2D_JOINT_COUNT
} sinew_anim2d_joint;

/* One frame's output: plain floats so that a WebAssembly host can read it as a Float32Array
 * (joints first, x then y, then the scalars in this order). */
typedef struct sinew_anim2d_pose {
    sinew_vec2 joints[SINEW_ANIM2D_JOINT_COUNT]; /* canvas units, y down */
    float head_radius;                           /* units: HEADR scaled by the mean of sx and sy */
    float sx, sy;        /* squash scales applied about the ground point (1 = none) */
    float spear_alpha;   /* 0..1: how visible the spear is (fades during blends) */
    float scroll_speed;  /* units/s the ground moved backward this frame */
    float ground_offset; /* units: distance scrolled so far, wrapped to [0, 1024) */
    float thrust;        /* 0..1: extension of the spear-run thrust (1 = fully out) */
    float lift;          /* units: height of the lower foot above the ground (>= 0) */
    float blend;         /* 0..1: progress of the current motion blend (1 = settled) */
    float phase;         /* cycles in [0, 1): gait phase of the near foot */
    float gait;          /* 0 walk .. 1 run: the current (eased) gait blend */
    float motion_time;   /* seconds into the current motion's cycle or action */
} sinew_anim2d_pose;

/* Tuning. Zero-initialised means every default. */
typedef struct sinew_anim2d_options {
    float anchor_x;        /* units: x of the figure's ground point; default 0 */
    float ground_y;        /* units: y of the ground line; default 0 */
    float blend_time;      /* seconds to blend when switching motion; default 0.25 s */
    float gait_rate;       /* 1/s: gait approaches its target as 1 - exp(-rate dt); default 4 */
    float max_dt;          /* seconds: dt clamp per frame; default 0.033 s */
    float head_stiffness;  /* 1/s^2: head spring; default 260 */
    float head_damping;    /* 1/s: head spring; default 26 */
    float hair_spacing;    /* units between hair points; default 9 */
    float hair_drag;       /* Verlet velocity keep factor; default 0.86 */
    int hair_iterations;   /* distance-constraint passes; default 6 */
    float hair_gravity;    /* units/s^2 (times dt^2 * 60); default 40 */
    float wind_per_speed;  /* backward wind per unit/s of scroll; default 0.16 */
    float jump_wind;       /* extra backward wind while airborne; default 60 */
    float jump_duration;   /* seconds of the jump track (lab and game); default 0.8 s */
    float throw_duration;  /* seconds of one throw; default 1.5 s */
    float form_duration;   /* seconds of one pass through the spear form; default 14 s */
    float thrust_duration; /* seconds of one thrust; default 0.42 s */
} sinew_anim2d_options;

/* The whole state of one figure. Caller-owned (stack, static or heap); the fields are
 * private except where noted as readable. */
typedef struct sinew_anim2d_figure {
    sinew_anim2d_options opt;        /* with defaults filled in */
    sinew_anim2d_motion motion;      /* readable: current motion */
    sinew_anim2d_motion from_motion; /* motion being blended away from (INVALID: snapshot) */
    double phase;                    /* readable: gait phase of the near foot, [0, 1) */
    double distance;                 /* readable: units of ground scrolled so far */
    double ground_offset;            /* distance wrapped to [0, 1024) */
    float gait;                      /* readable: current gait blend, 0 walk .. 1 run */
    float gait_target;
    float time;        /* seconds into the current motion (cycles for looping motions) */
    float from_time;   /* seconds into the motion being blended away from */
    float blend;       /* 0..1 progress of the blend */
    float jump_time;   /* seconds into the spear-run jump; < 0: not jumping */
    float thrust_time; /* seconds into the spear-run thrust; < 0: not thrusting */
    int started;       /* 0 until the first frame initialises springs and hair */
    sinew_anim2d_spring head;
    sinew_anim2d_hair hair;
    sinew_vec2 snapshot[SINEW_ANIM2D_JOINT_COUNT]; /* pose blended from when re-switching */
    float snapshot_sy, snapshot_alpha, snapshot_scroll;
    sinew_vec2 last[SINEW_ANIM2D_JOINT_COUNT]; /* last unsquashed skeleton */
    float last_sy, last_alpha, last_scroll;
} sinew_anim2d_figure;

/* Initialises `fig` (motion SPEAR_RUN, gait 1) with `opt` (NULL: all defaults). */
void sinew_anim2d_figure_init(sinew_anim2d_figure *fig, const sinew_anim2d_options *opt);

/* Switches motion; the next frames blend from the current pose over opt.blend_time. WALK and
 * RUN between each other only move the gait target (the gait eases, no pose blend).
 * Returns 0 on success, -1 for an invalid motion (state unchanged). */
int sinew_anim2d_figure_set_motion(sinew_anim2d_figure *fig, sinew_anim2d_motion motion);

/* Sets the gait target in [0, 1] (clamped; the lab's walk-run slider). With `immediate`
 * non-zero the gait jumps there (tests), else it eases there. Meaningful for locomotion. */
void sinew_anim2d_figure_set_gait(sinew_anim2d_figure *fig, float target, int immediate);

/* Starts an action in the spear run. Returns 1 when it starts, 0 when ignored (another
 * motion, or the same action still under way; a thrust may start during a jump and a jump
 * during a thrust). */
int sinew_anim2d_figure_trigger(sinew_anim2d_figure *fig, sinew_anim2d_action action);

/* Advances the figure by dt seconds (clamped to [0, opt.max_dt]; NaN counts as 0) and
 * writes every joint of the new frame into `pose`. Allocation-free; deterministic. dt 0
 * re-poses without advancing time (a still frame). */
void sinew_anim2d_figure_build_pose(sinew_anim2d_figure *fig, float dt, sinew_anim2d_pose *pose);

/* ---- the spear form's data, for tests and tools ---- */

/* One waypoint of the spear form: the whole body (as in the article: spear angle, grip, lean,
 * weight shift, crouch, stance width, raise and squash). */
typedef struct sinew_anim2d_form_key {
    float t;                /* normalised time in [0, 1] */
    float spear_angle;      /* radians: direction butt->tip, 0 = forward, negative = up */
    float grip_x;           /* units: front hand relative to the shoulder, forward */
    float grip_y;           /* units: front hand relative to the shoulder, down */
    float lean;             /* radians forward */
    float shift;            /* units: hips forward of the ground point */
    float crouch;           /* units: hips lowered below HIP_H */
    float width;            /* units between the two feet (near in front) */
    float raise;            /* units: near foot lifted off the ground */
    float sy;               /* squash (1 = none) */
    sinew_anim2d_ease ease; /* ease of the segment ending here; default SMOOTH */
} sinew_anim2d_form_key;

/* The spear form's waypoints (18: 17 poses + the first again) and their count. */
const sinew_anim2d_form_key *sinew_anim2d_form_keys(size_t *count);

/* The form sampled at normalised time p in [0, 1]: every field eased per segment. */
sinew_anim2d_form_key sinew_anim2d_form_sample(float p);

#ifdef __cplusplus
}
#endif
#endif
