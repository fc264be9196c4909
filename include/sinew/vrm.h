/* sinew vrm: the tail's springs written as VRMC_springBone 1.0, so an engine that reads VRM
 * spring bones (three-vrm, UniVRM, VSeeFace, ...) swings the chain live instead of playing the
 * baked keys. The derivation of the fit is in docs/vrm-springs.md.
 *
 * VRM's joint update (the VRMC_springBone 1.0 specification,
 * https://github.com/vrm-c/vrm-specification/tree/master/specification/VRMC_springBone-1.0,
 * and three-vrm's VRMSpringBoneJoint.update) is Verlet in world space:
 *   next = cur + (cur - prev)(1 - dragForce) + dt stiffness restDir + dt gravityPower gravityDir
 * then put back at the bone's length from its head and pushed out of colliders. Linearised
 * about the rest direction at a fixed step h, for a link of world length L, it is the
 * two-step recursion (1 + k) x[n+1] = (2 - d) x[n] - (1 - d) x[n-1] + ..., k = stiffness h / L.
 * sinew's own step (semi-implicit Euler at the same h) is x[n+1] = (2 - 2 zeta w h - w^2 h^2)
 * x[n] - (1 - 2 zeta w h) x[n-1] + ..., so matching both coefficients gives, per link,
 *   1 + k     = 1 / (1 - w^2 h^2)
 *   dragForce = 1 - (1 - 2 zeta w h) / (1 - w^2 h^2)
 *   stiffness = k L / h,  gravityPower = g h / (1 - w^2 h^2)  (the same static sag g / w^2)
 * exactly at h (60 per second here; other rates drift). dragForce >= 0 needs
 * zeta >= w h / 2 = pi f h: a lighter damping is clamped to dragForce 0 and flagged. Beyond
 * small swings the two differ (VRM's Verlet turns each length correction into velocity,
 * sinew's rope does not): the fit then scales the whole chain's velocity retention and
 * stiffness by the pair, from a small grid, that tracks sinew best on the hip motion below.
 *
 * Written alongside, on the chain's joints: hitRadius, the skin's radius around each link;
 * the floor and the forward plane at the tail root as VRMC_springBone_extended_collider
 * planes, each with the fallback sphere that extension's exporter notes describe for readers
 * without it; the bend limit as a VRMC_springBone_limit cone per joint. The tail nodes' own
 * rotations become sinew's rest arc (carry and curve), the direction VRM's stiffness pulls
 * toward. The baked clips stay for players without VRM.
 */
#ifndef SINEW_VRM_H
#define SINEW_VRM_H

#include "sinew/document.h"
#include "sinew/dyn.h"
#include "sinew/model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SINEW_VRM_RATE 60.0f /* updates per second the fit is exact at */

/* The hip motion the fit simulates both runtimes on (and the three-vrm test replays): the
 * chain parent's file-pose world matrix W0 (translation c) moved as
 *   W(t) = T(c + H d(t)) R_y(yaw(t)) T(-c) W0,
 *   d(t) = (0.06 sin 5t, 0.04 sin 7t, 0.4 t),  yaw(t) = 0.35 sin 3.3t,
 * H the reference size, for SINEW_VRM_FIT_SECONDS at SINEW_VRM_RATE: a trot forward with a
 * sway, a bounce and a turning pelvis, all the ways a hip drives a tail. */
#define SINEW_VRM_FIT_SECONDS 6.0f

/* One VRM joint: link i of the chain (its tail is the next joint, or Tail_End). */
typedef struct sinew_vrm_joint {
    int32_t node;        /* model node index */
    float frequency;     /* Hz, sinew's spring for this link */
    float damping_ratio; /* sinew's zeta */
    float length;        /* world units, head to tail at the file's pose */
    float stiffness;     /* VRM's, fitted */
    float drag_force;    /* VRM's, fitted, in [0, 1] */
    float gravity_power; /* VRM's, fitted, world units / s */
    float hit_radius;    /* world units: the skin's median distance to this link */
    float min_damping;   /* the lightest zeta VRM can express here: pi f h */
    sinew_quat rest;     /* local rest rotation (sinew's rest arc): VRM's rest direction */
    int clamped;         /* 1 when damping_ratio < min_damping: dragForce clamped to 0 */
} sinew_vrm_joint;

typedef struct sinew_vrm_fit {
    uint32_t joint_count;
    sinew_vrm_joint joints[SINEW_DYN_MAX_JOINTS];
    int32_t end_node;     /* the last joint's tail node (Tail_End), -1 when none */
    int32_t parent_node;  /* the chain's parent (Hips) */
    float reference_size; /* H, world units */
    float gravity;        /* sinew's, world units / s^2 */
    float cone_angle;     /* radians: the bend limit, as the VRM cone; 0 when off */
    int floor;            /* 1 when the floor plane is written */
    float floor_height;   /* world y */
    int forward_plane;    /* 1 when the forward plane is written */
    uint32_t frames;      /* simulated */
    float swing_degrees;  /* sinew's tip direction, largest angle from its start (hips frame) */
    float error_degrees;  /* RMS angle between sinew's and VRM's tip directions */
    float error_percent;  /* error_degrees / swing_degrees, % */
    float linear_error_degrees; /* the same with the linear match alone (no refinement) */
    float retain_scale;         /* the refinement: VRM's 1 - dragForce times this ... */
    float stiffness_scale;      /* ... and its stiffness (and gravityPower) times this */
    uint32_t clamped;           /* joints whose damping VRM cannot express */
} sinew_vrm_fit;

/* Fits VRM parameters to the Tail_* chain of `model` with spring parameters `params` (NULL:
 * defaults) and predicts the error by simulating sinew's runtime and VRM's update rule on the
 * hip motion above (no floor for either: contact is the colliders' part). Errors of
 * sinew_dyn_rig_create pass through (SINEW_ERR_NOT_FOUND: no Tail_* chain). */
sinew_result sinew_vrm_fit_chain(const sinew_model *model, const sinew_dyn_params *params,
                                 sinew_vrm_fit *out, sinew_error *err);

/* Writes `fit` into `doc` (the document `model` was built from): the VRMC_springBone
 * extension with one spring, its colliders and limits, the extensions in extensionsUsed (not
 * required), and the rest arc as the chain nodes' rotations. Replaces a VRMC_springBone the
 * document had. */
sinew_result sinew_vrm_apply_document(sinew_document *doc, const sinew_model *model,
                                      const sinew_vrm_fit *fit, sinew_error *err);

#ifdef __cplusplus
}
#endif
#endif
