/* Parameter defaults and the size rule (the numbers of Sidorkin, "Animating tails the
 * auto-rigger never gave a bone", are for its 1.91 m fox). Lengths and accelerations scale by
 * s = reference_size / 1.91; frequencies, the damping ratio, rates in 1/s and angles do not,
 * so a model s times the fox's size swings with the same timing through s times the
 * distances. */
#include "dyn_internal.h"

#include <stddef.h>
#include <string.h>

#define DEG (float)(SINEW_PI / 180.0)

/* The tail's values, what every preset starts from. */
static void tail_defaults(sinew_dyn_params *out)
{
    memset(out, 0, sizeof *out);
    out->frequency_root = 0.9f; /* the article's root segment swings at 0.9 Hz */
    out->frequency_tip = 0.45f; /* ... and the tip at half of it */
    out->damping_ratio = 0.65f; /* the mouse update raised 0.45 to 0.65 */
    out->damping_tip = 0.65f;   /* the same all along the tail */
    out->gravity = 1.0f;        /* 1 m/s^2, not 9.8: a tail has muscles */
    out->carry = 50.0f * DEG;   /* whole-tail elevation, shared among links */
    out->rest_curve = 0.0f;     /* centred arc */
    out->curvature = 0.0f;
    out->coupling_rate = 12.0f;    /* k = 12 /s */
    out->bend_limit = 30.0f * DEG; /* theta_max = pi / 6 */
    out->floor_height = 0.0f;
    out->floor_clearance = 0.025f; /* rho */
    out->contact_damping = 8.0f;   /* gamma = 8 /s */
    out->max_step = 1.0f / 60.0f;
    out->max_substeps = 8;
    out->teleport_distance = 1.0f;
    out->reference_size = SINEW_DYN_REFERENCE_SIZE;
    out->disable = 0;
    out->bind_limit = 25.0f * DEG; /* bind cone: 0 torn tail samples (see dyn.h) */
    out->frequency_curve = SINEW_DYN_CURVE_LINEAR;
    out->damping_curve = SINEW_DYN_CURVE_LINEAR;
    out->preset = SINEW_DYN_PRESET_TAIL;
}

void sinew_dyn_params_default(sinew_dyn_params *out)
{
    sinew_dyn_params_preset(SINEW_DYN_PRESET_TAIL, out);
}

/* The float fields and the values each accepts (0 takes the default where `zero_default`).
 * The bounds are where the spring is still a tail's and its arithmetic stays far from float
 * overflow, not tuned values: a spring slower than 0.01 Hz takes minutes to swing once, one
 * above 100 Hz needs a step under 1.6 ms to stay stable (see sinew_dyn_stable_frequency);
 * a damping ratio of 10 is ten times critical; angles reach half a turn; rates of 1000 /s
 * decay within a millisecond, so more changes nothing; lengths and accelerations of 1e3 to
 * 1e9 (metres at the reference size, or file units) leave 1e20 of float range for the
 * products the step forms.
 * Each field also carries how people see it (the unit and the factor from the library's
 * value to it): angles are radians here and degrees to people (base.h), so that a message
 * reads in the units a CLI or panel takes. */
typedef struct param_field {
    const char *name;
    size_t offset;
    float min, max;
    int zero_default;
    const char *unit; /* as shown, "" for none */
    double shown;     /* shown value = library value * shown */
} param_field;

#define FIELD(f) #f, offsetof(sinew_dyn_params, f)
#define DEGREES "degrees", 180.0 / SINEW_PI
static const param_field fields[] = {
    {FIELD(frequency_root), 0.01f, 100.0f, 1, "Hz", 1.0},
    {FIELD(frequency_tip), 0.01f, 100.0f, 1, "Hz", 1.0},
    {FIELD(damping_ratio), 0.01f, 10.0f, 1, "", 1.0},
    {FIELD(damping_tip), 0.01f, 10.0f, 1, "", 1.0},
    {FIELD(gravity), 0.0f, 1000.0f, 1, "m/s^2 at the reference size", 1.0},
    {FIELD(carry), 0.0f, (float)SINEW_PI, 1, DEGREES},
    {FIELD(rest_curve), 0.0f, 1.0f, 1, "", 1.0}, /* 0 takes the preset's (the tail's is 0) */
    {FIELD(curvature), -4.0f * (float)SINEW_PI, 4.0f * (float)SINEW_PI, 0, DEGREES},
    {FIELD(coupling_rate), 0.0f, 1000.0f, 1, "/s", 1.0},
    {FIELD(bend_limit), 0.0f, (float)SINEW_PI, 1, DEGREES},
    {FIELD(floor_height), -1e9f, 1e9f, 0, "file units", 1.0},
    {FIELD(floor_clearance), 0.0f, 1000.0f, 1, "m at the reference size", 1.0},
    {FIELD(contact_damping), 0.0f, 1000.0f, 1, "/s", 1.0},
    {FIELD(max_step), 0.0f, 1.0f, 1, "s", 1.0},
    {FIELD(teleport_distance), 0.0f, 1e9f, 1, "m at the reference size", 1.0},
    {FIELD(reference_size), 0.0f, 1e9f, 1, "file units", 1.0},
    {FIELD(bind_limit), 0.0f, (float)SINEW_PI, 1, DEGREES},
    /* a quarter turn of sway is already more than the bind cone lets the skin bend; a
     * period of 1e6 s (11 days) is beyond any clip, and still whole steps in a uint32 */
    {FIELD(idle), 0.0f, 0.25f * (float)SINEW_PI, 0, DEGREES},
    {FIELD(idle_period), 0.0f, 1e6f, 0, "s", 1.0},
};
#undef DEGREES
#undef FIELD
#define FIELD_COUNT (sizeof fields / sizeof fields[0])

static float *field_of(sinew_dyn_params *p, const param_field *f)
{
    return (float *)(void *)((char *)p + f->offset);
}
static float field_value(const sinew_dyn_params *p, const param_field *f)
{
    float v;
    memcpy(&v, (const char *)p + f->offset, sizeof v);
    return v;
}

static const param_field *field_named(const char *name)
{
    for (size_t i = 0; name && i < FIELD_COUNT; i++)
        if (!strcmp(fields[i].name, name)) return &fields[i];
    return NULL;
}

/* The presets, in the units people give them (each field's shown unit: Hz, degrees, m/s^2 at
 * the reference size); a field a preset does not name keeps the tail's value. The tables of
 * docs/springs.md are these rows, and tests/dyn/test_dyn_presets.c reads them back from that
 * page. Where each number was measured, and how far it may move, is said beside it. */
typedef struct preset_value {
    const char *field; /* a float field, as the fields table names it */
    double shown;      /* its value in that field's shown unit */
} preset_value;

#define PRESET_VALUES 12
typedef struct preset_row {
    const char *name;
    uint32_t frequency_curve, damping_curve;
    preset_value values[PRESET_VALUES]; /* until a NULL field */
} preset_row;

/* The fields a preset sets; every other field is the caller's (floor, planes, idle, steps). */
static const char *const preset_fields[] = {
    "frequency_root", "frequency_tip", "damping_ratio", "damping_tip", "gravity",
    "carry",          "rest_curve",    "bend_limit",    "bind_limit",
};
#define PRESET_FIELD_COUNT (sizeof preset_fields / sizeof preset_fields[0])

static const preset_row presets[SINEW_DYN_PRESET_COUNT] = {
    /* The published method's tail (see tail_defaults). */
    [SINEW_DYN_PRESET_TAIL] = {"tail", SINEW_DYN_CURVE_LINEAR, SINEW_DYN_CURVE_LINEAR, {{0}}},
    /* Twice the tail's frequencies and more damping: the tail lags the body half as long and
     * overshoots less (a short thick tail, a lizard's). Measured with loose beside it on the
     * procedural fox and the notail Quaternius fox, wolf and rat: tail skin torn within 0.07
     * points of the tail preset's on every model (docs/springs.md); the skin is kept whole by
     * the bend limits, which no preset changes, so the frequencies may range over the
     * stable ones. */
    [SINEW_DYN_PRESET_STIFF] = {"stiff",
                                SINEW_DYN_CURVE_LINEAR,
                                SINEW_DYN_CURVE_LINEAR,
                                {{"frequency_root", 1.8},
                                 {"frequency_tip", 0.9},
                                 {"damping_ratio", 0.8},
                                 {"damping_tip", 0.8}}},
    /* Two thirds of the tail's frequencies and less damping: a long thin tail that lags and
     * swings wide; the bend limits stay the tail's, which keep its skin whole. */
    [SINEW_DYN_PRESET_LOOSE] = {"loose",
                                SINEW_DYN_CURVE_LINEAR,
                                SINEW_DYN_CURVE_LINEAR,
                                {{"frequency_root", 0.6},
                                 {"frequency_tip", 0.3},
                                 {"damping_ratio", 0.5},
                                 {"damping_tip", 0.5}}},
    /* A wing: 3 Hz at the root, 2 at the tip, damping 0.8, resting as modelled with no carry
     * and no sag. Measured on the boneless pigeon's Fast_Flying and Flying_Idle and the UM
     * demon's Walk (wing skin p99 1.03-1.09, nothing torn): any root frequency from 1.5 to
     * 6 Hz meets the stretch bars; 3 Hz is the middle of that range. */
    [SINEW_DYN_PRESET_WING] = {"wing",
                               SINEW_DYN_CURVE_LINEAR,
                               SINEW_DYN_CURVE_LINEAR,
                               {{"frequency_root", 3.0},
                                {"frequency_tip", 2.0},
                                {"damping_ratio", 0.8},
                                {"damping_tip", 0.8},
                                {"gravity", 0.0},
                                {"carry", 0.0},
                                {"rest_curve", 1.0}}},
    /* An ear: stiffer than a wing and damped near critically, so it flicks and settles within
     * a stride instead of flapping, resting as modelled without sag. Measured on the
     * procedural rabbit and four random creatures with ears (seeds 9, 23, 60, 61) over all
     * their clips: 0.9 to 6 Hz at the root keep the ear skin's p99 within 1.15 and tear at
     * most 0.01%; 4 Hz leaves the rabbit's ear tips a 16.5 degree flick, half the stable
     * bound (8.5 Hz at damping 0.9, 60 steps a second). The bend limits, 10 degrees a link
     * from the modelled shape, change nothing there, and on the real ears --ears finds (the
     * Quaternius cow's and character's, the UM demon's) they hold the tips' swing from the
     * head at 28-33 degrees instead of the tail's cones' 41-58 (ear skin p99 1.05-1.13
     * instead of 1.10-1.23); 5 degrees holds them at 15-26. */
    [SINEW_DYN_PRESET_EAR] = {"ear",
                              SINEW_DYN_CURVE_LINEAR,
                              SINEW_DYN_CURVE_LINEAR,
                              {{"frequency_root", 4.0},
                               {"frequency_tip", 3.0},
                               {"damping_ratio", 0.9},
                               {"damping_tip", 0.8},
                               {"gravity", 0.0},
                               {"carry", 0.0},
                               {"rest_curve", 1.0},
                               {"bend_limit", 10.0},
                               {"bind_limit", 10.0}}},
    /* Cloth: hangs as modelled under full tail gravity, the frequency easing from the
     * shoulder's 1.2 Hz to the hem's 0.6 Hz and the damping from 0.7 to 0.4 along a
     * smoothstep, so the top follows the body and the hem swings. Measured with the procedural
     * caped creature's cape as one chain: p99 1.11-1.19, nothing torn, as the tail preset. */
    [SINEW_DYN_PRESET_GARMENT] = {"garment",
                                  SINEW_DYN_CURVE_SMOOTHSTEP,
                                  SINEW_DYN_CURVE_SMOOTHSTEP,
                                  {{"frequency_root", 1.2},
                                   {"frequency_tip", 0.6},
                                   {"damping_ratio", 0.7},
                                   {"damping_tip", 0.4},
                                   {"carry", 0.0},
                                   {"rest_curve", 1.0}}},
};

const char *sinew_dyn_preset_name(sinew_dyn_preset preset)
{
    return (unsigned)preset < SINEW_DYN_PRESET_COUNT ? presets[preset].name : NULL;
}

int sinew_dyn_preset_from_name(const char *name, sinew_dyn_preset *out)
{
    for (unsigned k = 0; name && k < SINEW_DYN_PRESET_COUNT; k++)
        if (!strcmp(presets[k].name, name)) {
            *out = (sinew_dyn_preset)k;
            return 1;
        }
    return 0;
}

void sinew_dyn_params_preset(sinew_dyn_preset preset, sinew_dyn_params *out)
{
    tail_defaults(out);
    if ((unsigned)preset >= SINEW_DYN_PRESET_COUNT) return;
    const preset_row *row = &presets[preset];
    for (int k = 0; k < PRESET_VALUES && row->values[k].field; k++) {
        const param_field *f = field_named(row->values[k].field);
        if (f) *field_of(out, f) = (float)(row->values[k].shown / f->shown);
    }
    out->frequency_curve = row->frequency_curve;
    out->damping_curve = row->damping_curve;
    out->preset = (uint32_t)preset;
}

void sinew_dyn_params_use_preset(sinew_dyn_params *params, sinew_dyn_preset preset)
{
    for (size_t k = 0; k < PRESET_FIELD_COUNT; k++)
        *field_of(params, field_named(preset_fields[k])) = 0.0f;
    params->frequency_curve = params->damping_curve = SINEW_DYN_CURVE_DEFAULT;
    params->preset = (uint32_t)preset;
}

float sinew_dyn_curve_value(sinew_dyn_curve curve, float root, float tip, float t)
{
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    if (curve == SINEW_DYN_CURVE_SMOOTHSTEP) t = t * t * (3.0f - 2.0f * t);
    return root + (tip - root) * t;
}

int sinew_dyn_param_range(const char *name, float *min, float *max)
{
    const param_field *f = field_named(name);
    if (!f) return 0;
    if (min) *min = f->min;
    if (max) *max = f->max;
    return 1;
}

int sinew_dyn_param_unit(const char *name, const char **unit, double *shown)
{
    const param_field *f = field_named(name);
    if (!f) return 0;
    if (unit) *unit = f->unit;
    if (shown) *shown = f->shown;
    return 1;
}

/* Semi-implicit Euler on x'' = -w^2 x - 2 zeta w x' with step h has the update matrix of
 * trace 2 - a^2 - 2 zeta a and determinant 1 - 2 zeta a (a = w h); its eigenvalues stay inside
 * the unit circle (Jury's test) while a < 2 / (zeta + sqrt(zeta^2 + 1)), which also keeps
 * zeta a < 1. Beyond it the particles grow without bound until they are not finite. */
float sinew_dyn_stable_frequency(float damping_ratio, float max_step)
{
    const double zeta = damping_ratio > 0 ? damping_ratio : 0.0;
    const double a = 2.0 / (zeta + sqrt(zeta * zeta + 1.0));
    return max_step > 0 ? (float)(a / (2.0 * SINEW_PI * (double)max_step)) : INFINITY;
}

/* Every float field in its range (zero allowed where it means the default); the message
 * names the field, its value and the range, in the field's shown unit. */
static sinew_result check_ranges(const sinew_dyn_params *p, sinew_error *err)
{
    for (size_t i = 0; i < FIELD_COUNT; i++) {
        const param_field *f = &fields[i];
        const float v = field_value(p, f);
        if (f->zero_default && v == 0.0f) continue;
        if (!(v >= f->min && v <= f->max))
            return sinew_error_set(
                err, SINEW_ERR_ARGUMENT, "dyn params: %s must be from %g to %g%s%s%s (got %g)",
                f->name, f->min * f->shown, f->max * f->shown, *f->unit ? " " : "", f->unit,
                f->zero_default ? ", or 0 for the default" : "", v * f->shown);
    }
    return SINEW_OK;
}

sinew_result dyn_params_resolve(const sinew_dyn_params *in, float reference_size,
                                sinew_dyn_params *out, float *size_factor, sinew_error *err)
{
    sinew_dyn_params p;
    if (in)
        p = *in;
    else
        memset(&p, 0, sizeof p);
    if (p.preset >= SINEW_DYN_PRESET_COUNT)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "dyn params: preset %u is none (0 .. %d)",
                               p.preset, SINEW_DYN_PRESET_COUNT - 1);
    if (p.frequency_curve >= SINEW_DYN_CURVE_COUNT || p.damping_curve >= SINEW_DYN_CURVE_COUNT)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "dyn params: frequency_curve %u, damping_curve %u: a curve is "
                               "0 .. %d",
                               p.frequency_curve, p.damping_curve, SINEW_DYN_CURVE_COUNT - 1);
    /* Zero fields take the preset's values (the tail's by default). */
    sinew_dyn_params d;
    sinew_dyn_params_preset((sinew_dyn_preset)p.preset, &d);
    d.reference_size = reference_size;
    sinew_result r = check_ranges(&p, err);
    if (r != SINEW_OK) return r;
    for (size_t i = 0; i < FIELD_COUNT; i++) {
        float *v = field_of(&p, &fields[i]);
        if (fields[i].zero_default && *v == 0.0f) *v = *field_of(&d, &fields[i]);
    }
    /* A tip the caller left at zero keeps the preset's ratio to the caller's root. */
    if (in && in->frequency_tip == 0.0f)
        p.frequency_tip = p.frequency_root * (d.frequency_tip / d.frequency_root);
    if (in && in->damping_tip == 0.0f)
        p.damping_tip = p.damping_ratio * (d.damping_tip / d.damping_ratio);
    if (p.frequency_curve == SINEW_DYN_CURVE_DEFAULT) p.frequency_curve = d.frequency_curve;
    if (p.damping_curve == SINEW_DYN_CURVE_DEFAULT) p.damping_curve = d.damping_curve;
    if (p.max_substeps == 0) p.max_substeps = d.max_substeps;
    if (p.max_substeps > 1000) p.max_substeps = 1000;
    if (p.max_step < 1e-5f) p.max_step = 1e-5f;
    if (!(p.reference_size > 0.0f && p.reference_size <= 1e9f))
        p.reference_size = SINEW_DYN_REFERENCE_SIZE;
    /* Both curves run between their ends, so no link is faster, or more damped, than the
     * faster end, or the more damped: the stable bound falls with damping. */
    const float heaviest = fmaxf(p.damping_ratio, p.damping_tip);
    const float stable = sinew_dyn_stable_frequency(heaviest, p.max_step);
    const float fastest = fmaxf(p.frequency_root, p.frequency_tip);
    if (!(fastest <= stable))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "dyn params: a spring of %g Hz (frequency_root %g, frequency_tip "
                               "%g) is not stable at max_step %g s and damping %g: at "
                               "most %g Hz",
                               (double)fastest, (double)p.frequency_root, (double)p.frequency_tip,
                               (double)p.max_step, (double)heaviest, (double)stable);
    if (p.disable & SINEW_DYN_NO_CARRY) p.carry = 0.0f;
    if (p.disable & SINEW_DYN_NO_GRAVITY) p.gravity = 0.0f;

    float s = p.reference_size / SINEW_DYN_REFERENCE_SIZE;
    p.gravity *= s;
    p.floor_clearance *= s;
    p.teleport_distance *= s;
    *out = p;
    if (size_factor) *size_factor = s;
    return SINEW_OK;
}

sinew_result sinew_dyn_params_check(const sinew_dyn_params *params, sinew_error *err)
{
    sinew_dyn_params resolved;
    return dyn_params_resolve(params, SINEW_DYN_REFERENCE_SIZE, &resolved, NULL, err);
}
