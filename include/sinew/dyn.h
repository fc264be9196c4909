/* sinew dyn: the spring-chain runtime that swings tail bones, its floor contact, and the
 * body-grounding measures that keep tail skin from lifting the pelvis (after Sidorkin,
 * "Animating tails the auto-rigger never gave a bone": step three, and what the mouse taught us).
 *
 * Manual
 * ------
 * 1. Offline (allocates once): sinew_dyn_rig_create() reads a sinew_model and finds the
 *    chain Tail_1..Tail_K (+ optional Tail_End) by name, as the article's createAnimator does,
 *    or takes the caller's list of node indices. The rig is immutable afterwards: rest
 *    frames from the inverse bind matrices (never from the loaded pose), the centred rest
 *    arc with carry and restCurve, per-link frequency, all lengths and accelerations scaled
 *    to the model's size.
 * 2. State in caller memory: sinew_dyn_state_bytes() says how much; sinew_dyn_state_init()
 *    lays a state out in it. A state holds no pointers, so memcpy of those bytes is a
 *    complete snapshot (the bake saves and compares them to close loops).
 * 3. Per frame (allocates nothing): fill a sinew_dyn_step_job with the world transforms of
 *    the animated skeleton at this instant (only the chain's parent, normally Hips, is
 *    read) and the time since the previous call; sinew_dyn_step_run() advances the state
 *    and writes the local rotation of every chain joint. It never writes the hips, the feet,
 *    the model or the input transforms: the caller puts the rotations on the tail nodes.
 *    Many chains per frame: sinew_dyn_step_run_many runs eight at a time in vector lanes
 *    (AVX2, chosen at run time) or four (SSE or generic vectors), with the same results
 *    bit for bit: one step is compiled at every width. Compilers without GNU vector
 *    extensions (or a build with SINEW_DYN_PORTABLE) get one chain at a time in ISO C.
 *
 * Mechanisms, as in the article: one tip particle per link on a damped spring toward the rest
 * target (semi-implicit Euler), rope projection dropping radial velocity, bends coupled to the
 * neighbours' snapshots in the hips frame (alpha = 1 - exp(-k dt)), the elastic bend limit,
 * a forward plane at the tail root, floor contact by sphere/plane intersection overriding the
 * limit. Beyond the article: when coupling or the limit holds a link away from where its
 * particle pushes, the velocity component toward that push is removed as the article does for
 * the limit, so a held link does not keep a ghost velocity that never shows as motion; and a
 * bind cone (bind_limit) also bounds each link's bend from its bind direction, the bend that
 * deforms the skin.
 *
 * Units and scaling. Lengths are in the file's units. The article's values are for its 1.91 m
 * fox; sinew scales them with the model: s = reference_size / 1.91, where reference_size is
 * sinew_model.world_size.scale (max of height and horizontal length of the skinned mesh at the
 * file's pose; size.scale when the world size is unknown). Lengths (rho, the
 * teleport distance) and accelerations (gravity) are multiplied by s; frequencies, damping
 * ratio, rates (1/s) and angles are dimensionless in length and kept. The model of size s
 * then moves exactly like the fox scaled by s, with the same timing.
 *
 * Time stepping. The chain advances by a fixed internal step h (max_step, default 1/60 s),
 * as many per call as the elapsed time holds, at most max_substeps (time beyond that is
 * dropped, like a hitch). The parent frame of each substep is interpolated (lerp + slerp)
 * between the previous call's and this one's. Time left over (< h) is covered for the
 * output by an uncommitted step on scratch copies, so each call reports the chain at its own
 * instant and 30, 60 and 144 calls per second integrate the same motion. A parent that
 * jumps farther than the teleport distance in one call puts the chain at rest in the new
 * place instead of whipping it.
 *
 * Frames. The "hips frame" is the chain parent's world rotation times the inverse of its bind
 * rotation: at bind it equals the world axes, so +X is the lateral axis and +Z forward (glTF
 * characters face +Z). Carry and curvature rotate about +X (positive raises a tail that
 * hangs behind a +Z-facing body); the forward plane at the tail root has normal +Z.
 */
#ifndef SINEW_DYN_H
#define SINEW_DYN_H

#include "sinew/base.h"
#include "sinew/math.h"
#include "sinew/model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SINEW_DYN_REFERENCE_SIZE 1.91f /* the article's fox, metres: size defaults are for */
#define SINEW_DYN_MAX_JOINTS 64        /* longest chain a rig accepts */

/* Mechanisms a caller can switch off (bits of sinew_dyn_params.disable); zero keeps all on. */
enum {
    SINEW_DYN_NO_COUPLING = 1u << 0,      /* bend coupling between neighbours */
    SINEW_DYN_NO_LIMIT = 1u << 1,         /* elastic bend limit */
    SINEW_DYN_NO_FLOOR = 1u << 2,         /* floor contact */
    SINEW_DYN_NO_FORWARD_PLANE = 1u << 3, /* plane through the tail root keeping it behind */
    SINEW_DYN_NO_GRAVITY = 1u << 4,
    SINEW_DYN_NO_CARRY = 1u << 5,    /* carry = 0 (curvature still applies) */
    SINEW_DYN_NO_TELEPORT = 1u << 6, /* never reset on a jump */
    /* a particle's contact radius with a body capsule is the capsule's alone, not widened by
     * the skin its link dominates (still capped at the bind gap, see "body colliders"): a
     * garment's chains lie on its sheet, whose skin spreads across to the neighbouring chains
     * rather than round the bone (the coupled bake keeps the sheet between them out) */
    SINEW_DYN_NO_SKIN_CONTACT = 1u << 7
};

/* Spring-chain parameters. A zeroed struct means the article's defaults (the defaults written
 * below are the tail preset's; with `preset` set, a zero field takes that preset's value
 * instead, see sinew_dyn_preset); every length or acceleration is given for the 1.91 m
 * reference fox and scaled to the model (see top). The values each field accepts:
 * sinew_dyn_param_range; outside them sinew_dyn_rig_create refuses the parameters
 * (sinew_dyn_params_check says so without a model). */
typedef struct sinew_dyn_params {
    float frequency_root;  /* Hz, the root link's spring; default: 0.9 Hz */
    float frequency_tip;   /* Hz, the last link's, along frequency_curve in between; default:
                              frequency_root times the preset's tip-to-root ratio (the tail's:
                              frequency_root/2) */
    float damping_ratio;   /* zeta of the root link, dimensionless; default: 0.65 */
    float gravity;         /* m/s^2 at reference size, downward -Y; default: 1.0 */
    float carry;           /* radians, elevation of the whole tail shared among its links as
                              an arc; default: 50 degrees (0.8727) */
    float rest_curve;      /* beta in [0, 1]: 0 = centred arc, 1 = the modelled curve; default: 0 */
    float curvature;       /* radians, total extra curvature C about the lateral axis, added to
                              carry and shared the same way; default: 0 */
    float coupling_rate;   /* k, 1/s: alpha = 1 - exp(-k dt); default: 12 /s */
    float bend_limit;      /* radians, elastic limit of a link's bend past its rest direction;
                              default: 30 degrees (pi/6) */
    float floor_height;    /* world units (not scaled), the floor plane y = g0; default: 0 */
    float floor_clearance; /* rho, m at reference size, centre line kept above the floor;
                              default: 0.025 */
    float contact_damping; /* gamma, 1/s, sliding damping while touching; default: 8 /s */
    float max_step;        /* s, the fixed internal step h; default: 1/60 s. A bake at a fixed
                              frame time dt should pass dt / ceil(dt * 60): every frame is then
                              whole steps, the committed state sits at the frame's instant
                              and states one loop apart can close exactly */
    uint32_t max_substeps; /* substeps per call at most; default: 8 */
    float teleport_distance; /* m at reference size: a parent jump this long in one call
                                resets the chain at rest; default: 1.0 */
    float reference_size; /* the model's size in its units; default: sinew_model.world_size.scale,
                             or the skeleton's extent when that is 0 */
    uint32_t disable;     /* SINEW_DYN_NO_* bits; default: 0 (everything on) */
    float bind_limit;     /* radians, the bind cone: largest bend of a link from its BIND
                             direction (what deforms the skin), on top of bend_limit, which
                             counts from the rest arc (itself 12-22 degrees from bind), so
                             bends from bind reached 44 degrees and the skin folded
                             (quaternius_Fox Gallop: 22 torn tail samples, min ratio 0.61;
                             cone 30: 2 torn, 28 and 26: 0; 25: 0, min 0.72). A link's cone
                             is never narrower than its rest arc's own bend from bind.
                             Switched off with the bend limit (SINEW_DYN_NO_LIMIT); last
                             field so positional initialisers of the older fields still hold;
                             default: 25 degrees */
    /* Idle life (see docs/appendages.md, "Idle sway"): a slow, seeded sway of the rest arc,
     * so a tail on a standing body keeps moving. Every link's rest frame turns by the same
     * small angle (it compounds down the chain, like a curl), side to side about the axis
     * across the rest chord and the lateral axis and, at 0.35 of it, up and down about the
     * lateral axis, sized so that the rest chord from root to tip turns by up to `idle`.
     * Each axis is a sum of three sinusoids between 0.1 and 0.6 Hz (below the springs, so
     * the chain follows), weights summing to one, frequencies and phases drawn from the
     * state's seed (sinew_dyn_state_set_idle_seed). A chain whose root sits off the centre
     * line sways with the side of its root, so a mirrored left/right pair sways as mirror
     * images. Off by default: on, every output changes. */
    float idle;         /* radians, peak turn of the rest chord, 0 .. pi/4; default: 0 (off:
                           the step is bit for bit what it is without this field) */
    float idle_period;  /* s: when > 0 every frequency is a whole multiple of 1 / idle_period
                           (at least 1 / idle_period: a short loop sways at its own rate) and
                           the clock counts whole internal steps, so the sway repeats exactly
                           every idle_period (a bake sets the clip's duration, so its loop
                           closes); 0 .. 1e6; default: 0 (free-running, never repeating) */
    uint32_t idle_seed; /* the seed a new state takes (sinew_dyn_state_init); default: 0 */
    /* Curves along the chain (see sinew_dyn_curve): the spring of each link is the value its
     * curve takes at the link's place, from the root link's (frequency_root, damping_ratio)
     * to the last link's (frequency_tip, damping_tip). A tip left at 0 keeps the preset's
     * ratio of tip to root (the tail's: half the frequency, the same damping). */
    float damping_tip;        /* zeta of the last link; default: the preset's ratio times
                                 damping_ratio (the tail's: damping_ratio all along) */
    uint32_t frequency_curve; /* sinew_dyn_curve from frequency_root to frequency_tip;
                                 default: the preset's (the tail's: linear) */
    uint32_t damping_curve;   /* sinew_dyn_curve from damping_ratio to damping_tip; default:
                                 the preset's (linear) */
    /* sinew_dyn_preset: the values every field left at 0 takes instead of the tail's defaults,
     * so a caller's own settings override a preset's; default: SINEW_DYN_PRESET_TAIL */
    uint32_t preset;
} sinew_dyn_params;

/* How a spring parameter goes from its root value to its tip value along a chain. The place
 * of link i is t_i = (arc length from the chain's root to link i's head) / (arc length to the
 * last link's head), in bind space: 0 at the root link, 1 at the last (0 for a one-link
 * chain), so links of unequal lengths get the values of where they are. */
typedef enum sinew_dyn_curve {
    SINEW_DYN_CURVE_DEFAULT = 0, /* the preset's curve (linear for every preset but garment) */
    SINEW_DYN_CURVE_LINEAR,      /* root + (tip - root) t */
    SINEW_DYN_CURVE_SMOOTHSTEP,  /* root + (tip - root) t^2 (3 - 2 t): level at both ends, so
                                    the links near the root share its value, and those near
                                    the tip the tip's */
    SINEW_DYN_CURVE_COUNT
} sinew_dyn_curve;

/* The value of `curve` from `root` (t = 0) to `tip` (t = 1) at t, clamped to [0, 1].
 * SINEW_DYN_CURVE_DEFAULT and unknown values are linear. */
float sinew_dyn_curve_value(sinew_dyn_curve curve, float root, float tip, float t);

/* Spring presets: a table of the spring parameters in physical units (Hz, damping ratios,
 * degrees, m/s^2 at the reference size), for the appendages sinew rigs. docs/springs.md
 * lists each preset's values and says where they were measured. A preset sets the springs
 * only (frequencies, damping, their curves, gravity, carry, rest curve, bend limits); the
 * floor, the forward plane, the idle sway and the time step stay the caller's. */
typedef enum sinew_dyn_preset {
    SINEW_DYN_PRESET_TAIL = 0, /* the published method's tail: 0.9 Hz falling to half, 0.65 */
    SINEW_DYN_PRESET_STIFF,    /* a tail that follows the body closely (short, thick) */
    SINEW_DYN_PRESET_LOOSE,    /* a tail that lags and swings wide (long, thin, a whip) */
    SINEW_DYN_PRESET_WING,     /* a wing held out by its muscles: stiff, as modelled */
    SINEW_DYN_PRESET_EAR,      /* an ear held by cartilage: stiffer still, well damped */
    SINEW_DYN_PRESET_GARMENT,  /* cloth: hangs as modelled under gravity, softer towards the
                                  hem */
    SINEW_DYN_PRESET_COUNT
} sinew_dyn_preset;

/* Short lower-case name of a preset ("tail", "ear", ...), or NULL when out of range. */
const char *sinew_dyn_preset_name(sinew_dyn_preset preset);
/* The preset named `name` (as sinew_dyn_preset_name spells it) into *out: returns 1, or 0 for
 * a name that is no preset (*out unchanged). */
int sinew_dyn_preset_from_name(const char *name, sinew_dyn_preset *out);
/* Fills `out` with every field's value under `preset` (unscaled, as sinew_dyn_params_default
 * does for the tail), `out->preset` included. An out-of-range preset gives the tail's. */
void sinew_dyn_params_preset(sinew_dyn_preset preset, sinew_dyn_params *out);
/* Clears the fields a preset sets (springs, their curves, gravity, carry, rest curve, bend
 * limits) and sets `preset`: a chain of another kind (a wing, an ear) then runs with that
 * preset's springs and `params`' floor, planes, idle sway and steps. */
void sinew_dyn_params_use_preset(sinew_dyn_params *params, sinew_dyn_preset preset);
/* ---- body colliders: capsules along the body's bones (legs, torso) that the chain's
 * particles stay out of. A capsule's axis runs between two body nodes' world positions,
 * read from sinew_dyn_step_job.world at every call (interpolated over its substeps like the
 * chain's parent), so it follows the animated body; the step only reads those transforms
 * and never moves the body. The step does not check the capsules' ends: an end that is not
 * finite makes that capsule touch nothing (no comparison with it holds), one beyond the range
 * of float squares leaves a sphere at the other end; neither can make the state not finite
 * (tests/dyn/test_dyn_capsule.c). Each particle is a sphere whose radius is the skin its link
 * dominates (sinew_dyn_skin_radius); where it would enter a capsule it is put back on its
 * rope sphere at the nearest direction outside (the sphere/sphere circle about the nearest
 * point of the axis, as the floor's sphere/plane one), and that contact overrides the bend
 * limits as floor contact does. Two rules keep the modelled shape allowed: a link's contact
 * radius with a capsule is never more than its bind tip's distance from that capsule's bind
 * axis (skin modelled against a leg stays where it was modelled), and a link whose head is
 * inside a capsule (its own radius, without the link's skin) ignores it (a tail root inside
 * the torso's capsule); a head outside it but within the contact radius turns the link
 * straight away from the axis. sinew_dyn_rig_create refuses (SINEW_ERR_ARGUMENT, naming the
 * capsule) more than SINEW_DYN_MAX_CAPSULES, a node outside the model or on the chain, a
 * radius that is not a finite number > 0, a start outside [0, 1). See docs/appendages.md,
 * "Body colliders". ---- */

#define SINEW_DYN_MAX_CAPSULES 16 /* capsules a rig accepts */

typedef struct sinew_dyn_capsule {
    int32_t node_a; /* model node at one end of the axis (a leg bone's joint) */
    int32_t node_b; /* model node at the other end (its child joint); may equal node_a (a
                       sphere) */
    float radius;   /* bind-space units (those of sinew_mesh.positions), > 0: how far the
                       body skin about the axis reaches (sinew_dyn_skin_radius) */
    float start;    /* 0 .. 1 (below 1): the axis begins this fraction of the way from node_a
                       to node_b, so the capsule leaves out the skin round node_a (a thigh's
                       round the hip joint, which is the pelvis's); default 0: at node_a */
} sinew_dyn_capsule;

/* The radius of the skin a bone dominates: the distance from the segment head-tail (bind
 * space) that `fraction` (0 .. 1; 0.5: the median) of the vertices whose largest weight is on
 * skin joint `joint` lie within (nearest rank). sinew_body_capsules uses the median, not the
 * mean or the largest (a rig's particle takes its link's farthest, dyn_capsule.c, so that it
 * keeps all of that skin out): a bone's dominated skin has outliers on both sides
 * (vertices at the joints blend toward the neighbours, and on a leg's top lies skin of the
 * pelvis or of an appendage a template rigger handed the leg). 0 when the joint dominates no
 * vertex or the model has no weights. Allocates (model's allocator) one float per dominated
 * vertex and frees it; returns -1 when that fails. */
float sinew_dyn_skin_radius(const sinew_model *model, uint32_t joint, sinew_vec3 head,
                            sinew_vec3 tail, float fraction);

/* ---- rest drivers: a body bone whose swing turns a chain's rest, the target its springs pull
 * toward (the driven skirt bones of games: the panel over a thigh swings with the thigh, and
 * the springs add their secondary motion on top). At every call the step reads the bone's
 * direction, head node to tip node, from sinew_dyn_step_job.world, takes it into the hips
 * frame (see "Frames" above: the chain parent's rotation relative to its bind) and forms the
 * bone's swing there, S = swing(its bind direction, its direction now): what the bone has
 * turned relative to the chain's parent, twist left out. A driver's share of S is its weight
 * times how squarely the bone swings toward the chain: seen from above in the hips frame,
 * with c the cosine between the way the bone's tip has moved from its bind place and the way
 * from the chain parent's head (the body's centre, for a skirt the hips) to the chain's root
 * at bind, the share is weight ((1 + c) / 2)^(1/4): the whole weight straight toward the
 * chain, 0.84 of it across, 0 only straight away (a thigh swinging forward leaves the panels
 * behind it down; src/dyn/dyn_drive.c says why so flat). A bone near its bind direction
 * turns S by almost nothing whatever c. With several drivers the chain's turn is the slerp
 * from identity by the largest share toward the share-weighted mean of their swings (both
 * thighs forward in a crouch: a panel between them takes their mean, not their sum). The
 * turn is applied, in the hips frame, to the root link's rest frame about its head (the
 * root's head stays where it is: a skirt's waist line does not move) and so to the whole
 * chain's rest, the root link's bind cone with it; bend limits count from the turned rest.
 * Over a call's substeps it is interpolated from the previous call's, as the parent's frame
 * is, and a state placed at rest (first step, teleport, the guard) is placed at the turned
 * rest. A driver bone whose world transforms are not finite turns nothing. Rotations only:
 * link lengths are kept. Chains without drivers step bit for bit as without these fields. ---- */

#define SINEW_DYN_MAX_DRIVERS 4 /* drivers a rig accepts */

typedef struct sinew_dyn_driver {
    int32_t node;     /* model node at the driving bone's head (a thigh's joint); not on the
                         chain */
    int32_t tip_node; /* model node at its tip (the knee's joint), another node: the bone
                         points from node to tip_node */
    float weight;     /* 0 .. 1: the share of the bone's swing the chain's rest takes when the
                         bone swings straight toward the chain's root (seen from the body's
                         centre) */
} sinew_dyn_driver;

/* The chain to simulate, when the caller names it (NULL desc: find Tail_* by name). */
typedef struct sinew_dyn_chain_desc {
    const int32_t *nodes; /* node indices root to tip; each one's parent is the previous
                             (the first one's parent is the animated attachment, e.g. Hips);
                             NULL with node_count 0: find Tail_* by name, as a NULL desc does
                             (a desc that only brings capsules) */
    uint32_t node_count;  /* 1 .. SINEW_DYN_MAX_JOINTS (0 with nodes NULL) */
    int32_t end_node;     /* the tip helper (Tail_End) child of the last node, or -1: then
                             the last link continues its incoming tangent in its own frame */
    /* Body colliders the chain stays out of (see above); NULL / 0: none (the step is then
     * bit for bit what it is without these fields). At most SINEW_DYN_MAX_CAPSULES. Last
     * fields, so positional initialisers of the older ones still hold. */
    const sinew_dyn_capsule *capsules;
    uint32_t capsule_count;
    /* Rest drivers (see above); NULL / 0: none. At most SINEW_DYN_MAX_DRIVERS; refused
     * (SINEW_ERR_ARGUMENT, naming the driver) with a node outside the model or on the chain,
     * a tip equal to its node or at its bind place, or a weight outside [0, 1]. */
    const sinew_dyn_driver *drivers;
    uint32_t driver_count;
} sinew_dyn_chain_desc;

typedef struct sinew_dyn_rig sinew_dyn_rig;     /* immutable after creation */
typedef struct sinew_dyn_state sinew_dyn_state; /* lives in caller memory */

/* Fills `out` with the defaults written on sinew_dyn_params (unscaled): the tail preset. */
void sinew_dyn_params_default(sinew_dyn_params *out);

/* The values sinew_dyn_rig_create accepts for the float field of sinew_dyn_params named
 * `name` ("frequency_root", "carry", ...), in that field's unit (radians for angles): sets
 * *min and *max (either may be NULL) and returns 1, or returns 0 for a name that is no float
 * field. A field whose default is "0" also accepts 0. The ranges:
 *   frequency_root, frequency_tip   0.01 .. 100 Hz
 *   damping_ratio, damping_tip      0.01 .. 10
 *   gravity                         0 .. 1000 m/s^2 at reference size
 *   carry, bend_limit, bind_limit   0 .. pi
 *   rest_curve                      0 .. 1
 *   curvature                       -4 pi .. 4 pi
 *   coupling_rate, contact_damping  0 .. 1000 /s
 *   floor_height                    -1e9 .. 1e9 file units
 *   floor_clearance                 0 .. 1000 m at reference size
 *   max_step                        0 .. 1 s (below 1e-5 s it is taken as 1e-5)
 *   teleport_distance               0 .. 1e9 m at reference size
 *   reference_size                  0 .. 1e9 file units
 *   idle                            0 .. pi/4 (0: off)
 *   idle_period                     0 .. 1e6 s (0: free-running)
 * sinew_dyn_params_check and sinew_dyn_rig_create check these; a CLI or binding need not. */
int sinew_dyn_param_range(const char *name, float *min, float *max);

/* How the field `name` is shown to people, as the library's messages show it: sets *unit
 * ("degrees", "Hz", "" for a pure number) and *shown, the factor from the field's value to
 * that unit (180 / pi for angles, else 1), either may be NULL; returns 0 for a name that is
 * no float field. A CLI that takes a field in the shown unit divides by *shown, and the
 * library's range messages are then in the CLI's units. */
int sinew_dyn_param_unit(const char *name, const char **unit, double *shown);

/* The highest spring frequency, Hz, the step integrates stably with `damping_ratio` at the
 * internal step `max_step` s: semi-implicit Euler grows without bound once 2 pi f h exceeds
 * 2 / (zeta + sqrt(zeta^2 + 1)) (10.4 Hz at the defaults 0.65 and 1/60 s). */
float sinew_dyn_stable_frequency(float damping_ratio, float max_step);

/* Checks `params` as sinew_dyn_rig_create will, without a model: every float field in its
 * sinew_dyn_param_range, and the faster of frequency_root and frequency_tip at most
 * sinew_dyn_stable_frequency(the larger of damping_ratio and damping_tip, max_step) after
 * defaults (a curve between them stays within them); curves and the preset known values.
 * SINEW_ERR_ARGUMENT
 * with a message naming the field, its value and what is allowed. NULL is the defaults. */
sinew_result sinew_dyn_params_check(const sinew_dyn_params *params, sinew_error *err);

/* Builds a rig for `model`'s tail chain. `params` NULL or zeroed means defaults; `desc` NULL
 * means find nodes named Tail_1, Tail_2, .. (an optional "prefix:" or "prefix|" is ignored)
 * linked parent to child, plus Tail_End. Rest frames come from the skin's inverse bind
 * matrices when node and parent are joints (the loaded pose is not neutral), else
 * from sinew_node.rest. Errors: SINEW_ERR_NOT_FOUND (no Tail_* joints), SINEW_ERR_FORMAT
 * (chain not linked parent to child, zero-length link, parentless root),
 * SINEW_ERR_ARGUMENT (bad desc, or params outside sinew_dyn_params_check), SINEW_ERR_INVALID_VALUE
 * (non-finite or singular bind data), SINEW_ERR_OUT_OF_MEMORY. On failure *out is NULL. The model
 * is only read and may be freed after this call. */
sinew_result sinew_dyn_rig_create(const sinew_model *model, const sinew_dyn_chain_desc *desc,
                                  const sinew_dyn_params *params, const sinew_allocator *allocator,
                                  sinew_dyn_rig **out, sinew_error *err);
/* Frees a rig (NULL is fine). States made for it become unusable. */
void sinew_dyn_rig_free(sinew_dyn_rig *rig);

/* Number of simulated links (chain joints), the length of every per-joint buffer below. */
uint32_t sinew_dyn_rig_joint_count(const sinew_dyn_rig *rig);
/* Model node index of link i (0 = root), or -1 when out of range. */
int32_t sinew_dyn_rig_joint_node(const sinew_dyn_rig *rig, uint32_t i);
/* The animated node the chain hangs from (parent of the root link). */
int32_t sinew_dyn_rig_parent_node(const sinew_dyn_rig *rig);
/* Number of model nodes the rig was built for: the length of sinew_dyn_step_job.world. */
uint32_t sinew_dyn_rig_node_count(const sinew_dyn_rig *rig);
/* Resolved parameters, after defaults and scaling (lengths in model units). */
void sinew_dyn_rig_params(const sinew_dyn_rig *rig, sinew_dyn_params *out);
/* The spring of link i: its place along the chain (t_i, see sinew_dyn_curve), frequency (Hz)
 * and damping ratio, as the curves give them; any pointer may be NULL. Returns 0 (and sets
 * nothing) when i is out of range. */
int sinew_dyn_rig_link_spring(const sinew_dyn_rig *rig, uint32_t i, float *place, float *frequency,
                              float *damping_ratio);
/* Length of link i in bind space, model units (0 when out of range). */
float sinew_dyn_rig_link_length(const sinew_dyn_rig *rig, uint32_t i);
/* Local rest rotation of link i with the centred arc and carry applied: what the chain
 * holds when nothing moves and gravity is off. Identity when out of range. */
sinew_quat sinew_dyn_rig_rest_rotation(const sinew_dyn_rig *rig, uint32_t i);
/* Number of rest drivers of the rig (sinew_dyn_chain_desc.drivers). */
uint32_t sinew_dyn_rig_driver_count(const sinew_dyn_rig *rig);
/* Driver i as the rig took it (nodes -1 and weight 0 when out of range). */
sinew_dyn_driver sinew_dyn_rig_driver(const sinew_dyn_rig *rig, uint32_t i);
/* Number of body capsules the rig's chain stays out of (sinew_dyn_chain_desc.capsules). */
uint32_t sinew_dyn_rig_capsule_count(const sinew_dyn_rig *rig);
/* Capsule i as the rig took it (nodes -1 and radius 0 when out of range). */
sinew_dyn_capsule sinew_dyn_rig_capsule(const sinew_dyn_rig *rig, uint32_t i);
/* Link i's contact radius with capsule c, bind-space units: the capsule's radius plus the
 * link's skin radius, capped at the link's bind tip distance from the capsule's bind axis
 * (0 when out of range). */
float sinew_dyn_rig_contact_radius(const sinew_dyn_rig *rig, uint32_t i, uint32_t c);

/* ---- state (caller memory; no pointers inside, so memcpy copies it) ---- */

/* Bytes a state for `rig` needs; the memory must be aligned to 8 bytes. */
size_t sinew_dyn_state_bytes(const sinew_dyn_rig *rig);
/* Lays out a fresh state in `memory` (`bytes` at least sinew_dyn_state_bytes). The state
 * starts "unplaced": the first step puts the chain at rest in the given pose. Returns NULL
 * when memory is NULL, misaligned or too small. */
sinew_dyn_state *sinew_dyn_state_init(const sinew_dyn_rig *rig, void *memory, size_t bytes);
/* Marks the state unplaced: the next step puts the chain at rest (zero velocity) in its
 * pose, as after a teleport. Use it when a clip starts or the character is placed. */
void sinew_dyn_state_reset(sinew_dyn_state *state);
/* Sets the seed the idle sway of this state draws its frequencies and phases from (a new
 * state takes sinew_dyn_params.idle_seed): characters sharing one rig sway apart. The same
 * seed gives the same bits. */
void sinew_dyn_state_set_idle_seed(sinew_dyn_state *state, uint32_t seed);
/* 1 when the chain has been placed (stepped at least once since init or reset). */
int sinew_dyn_state_placed(const sinew_dyn_state *state);
/* How many steps since init found this state not finite after stepping and put the chain
 * back at rest in the parent's pose instead (its output then the rest rotations). A step
 * never returns a NaN: with parameters inside sinew_dyn_params_check and parent frames the
 * step accepts this stays 0; a caller that sees it grow has fed the chain something
 * violent (particles set far away with sinew_dyn_state_set, say). Copied with the state. */
uint32_t sinew_dyn_state_resets(const sinew_dyn_state *state);
/* Copies the tip particles' world positions and velocities (model units, units/s) into
 * caller arrays of joint_count entries; either may be NULL. These are the committed
 * particles: with dt not a multiple of max_step they trail the last call by the leftover
 * time (< max_step) that the output covered with an uncommitted step. */
void sinew_dyn_state_get(const sinew_dyn_state *state, sinew_vec3 *positions,
                         sinew_vec3 *velocities);
/* Overwrites the particles (joint_count entries each, both required) and marks the state
 * placed. Bends used for coupling are left as they were. Returns SINEW_ERR_INVALID_VALUE
 * (and changes nothing) when a value is not finite. */
sinew_result sinew_dyn_state_set(sinew_dyn_state *state, const sinew_vec3 *positions,
                                 const sinew_vec3 *velocities, sinew_error *err);
/* Largest particle distance (model units) and velocity difference (units/s) between two
 * states of one rig; what the bake compares to decide that a loop has closed (compare
 * states taken at the same clip phase and call rate, so that their leftover times agree). */
void sinew_dyn_state_difference(const sinew_dyn_state *a, const sinew_dyn_state *b,
                                float *max_position, float *max_velocity);

/* ---- the step job ---- */

/* A floor for one call (sinew_dyn_step_job.floor). */
typedef struct sinew_dyn_floor {
    int enabled;  /* 1: contact on */
    float height; /* world y of the plane, model units */
} sinew_dyn_floor;

typedef struct sinew_dyn_step_job {
    const sinew_dyn_rig *rig;
    sinew_dyn_state *state;      /* in/out, made for `rig` */
    const sinew_mat4 *world;     /* node_count world transforms at this instant; only the
                                    chain parent's is read (tail entries are ignored) */
    uint32_t world_count;        /* must be >= sinew_dyn_rig_node_count */
    float dt;                    /* s since the previous call, >= 0 (0: constraints only) */
    sinew_quat *local_rotations; /* out: joint_count local rotations of the chain joints */
    /* Optional floor override for this call, NULL: the params' floor. A movable floor is a
     * height per call; set enabled 0 to switch contact off. */
    const sinew_dyn_floor *floor;
} sinew_dyn_step_job;

/* Checks a job without running it: SINEW_ERR_ARGUMENT for missing pointers, a state of
 * another size, too few world transforms, or dt negative or not finite;
 * SINEW_ERR_INVALID_VALUE when the parent's world transform is not finite or singular, or
 * puts the chain farther than 1e15 units from the origin (its largest translation component
 * plus its scale times the chain's bind length), where float squares overflow. */
sinew_result sinew_dyn_step_validate(const sinew_dyn_step_job *job, sinew_error *err);
/* Validates, then advances the state by dt and writes the chain's local rotations. Never
 * allocates and never writes anything but job->state and job->local_rotations; on error
 * neither is changed. A step that leaves the state not finite resets it at rest and counts
 * it (sinew_dyn_state_resets), in every path: single, in lanes, or alone in run_many. */
sinew_result sinew_dyn_step_run(const sinew_dyn_step_job *job, sinew_error *err);

/* Runs `count` jobs, as sinew_dyn_step_run on each in order, after validating all of them
 * (on error nothing has run and the message names the job). Jobs that share a rig, dt and
 * floor pointer are advanced eight at a time in vector lanes on CPUs with AVX2, else four (a
 * pose for many characters or many tails per frame); the results are the same bits as single
 * steps, whichever lane width runs them. */
sinew_result sinew_dyn_step_run_many(const sinew_dyn_step_job *jobs, uint32_t count,
                                     sinew_error *err);
/* How many chains sinew_dyn_step_run_many advances at once on this CPU: 8 (AVX2) or 4, or 1
 * in a build without vector lanes. Batches of this many jobs (then of 4) run in lanes; the
 * rest run one at a time. */
uint32_t sinew_dyn_lane_width(void);

/* ---- body grounding: the tail may touch the floor, it may not lift the body. Vertex sets
 * are byte masks of vertex_count entries (nonzero = member); a NULL mask is the empty set, a
 * NULL support mask is every vertex. ---- */

/* Tail-dominated mask: mask[v] = 1 when the skin weight of v on the rig's chain joints is
 * larger than its weight on all other joints together (ties go to the body). Works on the
 * model's mesh; `mask` holds mesh.vertex_count bytes. */
void sinew_dyn_tail_mask(const sinew_model *model, const sinew_dyn_rig *rig, uint8_t *mask);

/* Reference floor f_body = min over v in S \ T of y_v at calibration (bind or first pose).
 * Returns +INFINITY when S \ T is empty. */
float sinew_dyn_ground_reference(const sinew_vec3 *positions, uint32_t vertex_count,
                                 const uint8_t *support, const uint8_t *tail);
/* Clearance c(t) = min over v in S \ (T u E) of y_v(t) - f_body; E is the skin the limbs'
 * contact solvers own. +INFINITY when the set is empty. */
float sinew_dyn_ground_clearance(const sinew_vec3 *positions, uint32_t vertex_count,
                                 const uint8_t *support, const uint8_t *tail,
                                 const uint8_t *limb_contact, float reference);
/* Raw lift L_raw = max(0, a - c), `allowance` a <= 0 the tolerated depth below the reference
 * floor. The lift the pelvis would ask for before smoothing; 0 for an empty set. */
float sinew_dyn_ground_lift(float allowance, float clearance);
/* Viewer floor placement: the lowest y of skin that is not tail-dominated (the camera may
 * still frame all of it). +INFINITY when every vertex is tail. */
float sinew_dyn_floor_placement(const sinew_vec3 *positions, uint32_t vertex_count,
                                const uint8_t *tail);

/* ---- support samples: S as a few skin points grouped by dominant bone (the article: "the
 * implementation samples the skin grouped by dominant bone, instead of evaluating every
 * vertex in every frame"). Built once from the model (sinew_dyn_support_build); each frame
 * the caller's skinning matrices (sinew_skin_matrices in sinew/model.h: world * IBM per skin
 * joint) pose only these points, with their full linear blend skinning, so f_body, c(t) and
 * L_raw cost a few hundred points instead of the whole mesh.
 *
 * Which points. A vertex's group is its dominant joint (largest weight: slot 0). A group
 * moves nearly rigidly with its bone, and the lowest point of a rigid set along any
 * direction lies on its convex hull, at the vertex extreme along that direction. So each
 * group keeps its extreme vertices along a fixed set of directions in the bone's bind frame:
 * the integer points on the surface of the cube [-n, n]^3 (n = resolution), 24 n^2 + 2 of
 * them (n = 1: the 26 face, edge and corner directions). A direction d in the
 * bone's frame is the bind-space direction IBM^T d, so the selection is exact for a rigid
 * bone whose "down" falls on a sampled direction and off by a sliver of the group's size in
 * between; the blend near joints is covered by the measurement that chose the default (see
 * resolution). Tail-dominated vertices (T, a caller mask) are left out of every group, so the
 * tail exclusion holds in both minima; limb-contact vertices (E) form their own groups in
 * each bone and are marked, so the clearance can leave them out without losing the
 * non-contact skin's own extremes. Each group is split again by the dominant weight: rigid
 * (>= 0.999) and blended vertices, so a blended vertex that the bone's rigid motion would
 * put lowest (but the blend holds higher) cannot hide a rigid vertex that is lowest. ---- */

#define SINEW_DYN_SUPPORT_LIMB 1u          /* sample flag: the vertex is in E (limb contact) */
#define SINEW_DYN_SUPPORT_MAX_RESOLUTION 8 /* 1538 directions */

typedef struct sinew_dyn_support_options {
    uint32_t resolution; /* n, 1..SINEW_DYN_SUPPORT_MAX_RESOLUTION (larger is clamped): the
                            directions are the 24 n^2 + 2 integer points on the surface of
                            the cube [-n, n]^3; default: 6 (866 directions). Measured over
                            every clip of every shared model (19 files) at 30 per second, max
                            |c_samples - c_all| / world size for n = 1 .. 6: 1.08%, 0.32%,
                            1.03%, 1.03%, 0.75%, 0.09% (the worst file: quaternius_UM_Demon,
                            UM_Pigeon, then quaternius_Character, whose blended four-influence
                            skin is not monotone in n; quaternius_TRex at 6), with at most 52%,
                            55% of a model's vertices sampled at n = 3, 6 (ToonCat, UM_Bunny:
                            many blended groups; 15-25% on the Quaternius animals). The choice
                            is empirical, not a bound: tests/dyn/test_dyn_ground.c re-measures
                            it on every model it can see */
} sinew_dyn_support_options;

/* One support point: a mesh vertex copied with its skin influences, so a frame poses it
 * without reading the mesh. */
typedef struct sinew_dyn_support_sample {
    sinew_vec3 position;                   /* bind space, file units (sinew_mesh.positions) */
    uint32_t vertex;                       /* index of the vertex in sinew_mesh */
    uint16_t joints[SINEW_MAX_INFLUENCES]; /* skin joint indices, as in sinew_mesh */
    float weights[SINEW_MAX_INFLUENCES];   /* dimensionless, as in sinew_mesh: sum 1,
                                              descending, unused slots 0 */
    uint32_t flags;                        /* SINEW_DYN_SUPPORT_LIMB when in E */
} sinew_dyn_support_sample;

/* Builds the support samples of `model`'s mesh: for every skin joint, the extreme vertices
 * along the option's directions of the vertices it dominates, not in `tail` (T, may be NULL:
 * no tail), split by `limb_contact` (E, may be NULL: empty). Both masks hold
 * mesh.vertex_count bytes, nonzero = member. Vertices without any weight follow no bone and
 * are never samples. Writes min(count, capacity) samples to `out` (NULL with capacity 0 to
 * query) and returns count, the number the whole set needs: call once to size a buffer and
 * again to fill it. Order: by joint, then body before limb, rigid before blended, then
 * vertex index. Reads the model only; deterministic. Scratch: one key per vertex from the
 * model's allocator, freed before it returns (and about 30 KB on the stack at the largest
 * resolution). Returns 0 for a NULL model, a mesh without influences, or when that scratch
 * cannot be allocated. */
uint32_t sinew_dyn_support_build(const sinew_model *model, const uint8_t *tail,
                                 const uint8_t *limb_contact,
                                 const sinew_dyn_support_options *options,
                                 sinew_dyn_support_sample *out, uint32_t capacity);

/* Poses `count` samples by linear blend skinning with `skin_matrices` (one per skin joint,
 * sinew_skin_matrices) into `out_positions` (count entries, world units): the same sums
 * sinew_skin_positions makes for those vertices. Per frame: allocates nothing. */
void sinew_dyn_support_pose(const sinew_dyn_support_sample *samples, uint32_t count,
                            const sinew_mat4 *skin_matrices, sinew_vec3 *out_positions);

/* Reference floor f_body = min over the samples (S \ T: T never enters) of the skinned y,
 * at calibration (the skinning matrices of the bind pose or the first frame). +INFINITY
 * when there are no samples. Computes only y; allocates nothing. */
float sinew_dyn_support_reference(const sinew_dyn_support_sample *samples, uint32_t count,
                                  const sinew_mat4 *skin_matrices);

/* Clearance c(t) = min over the samples not flagged SINEW_DYN_SUPPORT_LIMB (S \ (T u E)) of
 * the skinned y at this frame, minus `reference` (f_body). +INFINITY when that set is empty,
 * so sinew_dyn_ground_lift gives 0. Per frame: computes only y, allocates nothing. */
float sinew_dyn_support_clearance(const sinew_dyn_support_sample *samples, uint32_t count,
                                  const sinew_mat4 *skin_matrices, float reference);

#ifdef __cplusplus
}
#endif
#endif
