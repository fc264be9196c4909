/* Parameter defaults and the size rule (the numbers of Sidorkin, "Animating tails the
 * auto-rigger never gave a bone", are for its 1.91 m fox). Lengths and accelerations scale by
 * s = reference_size / 1.91; frequencies, the damping ratio, rates in 1/s and angles do not,
 * so a model s times the fox's size swings with the same timing through s times the
 * distances. */
#include "dyn_internal.h"

#include <string.h>

#define DEG (float)(SINEW_PI / 180.0)

void sinew_dyn_params_default(sinew_dyn_params *out)
{
    memset(out, 0, sizeof *out);
    out->frequency_root = 0.9f; /* the article's root segment swings at 0.9 Hz */
    out->frequency_tip = 0.45f; /* ... and the tip at half of it */
    out->damping_ratio = 0.65f; /* the mouse update raised 0.45 to 0.65 */
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
}

static int bad(float v)
{
    return !isfinite(v) || v < 0.0f;
}

sinew_result dyn_params_resolve(const sinew_dyn_params *in, float reference_size,
                                sinew_dyn_params *out, float *size_factor, sinew_error *err)
{
    sinew_dyn_params d;
    sinew_dyn_params_default(&d);
    sinew_dyn_params p;
    if (in)
        p = *in;
    else
        memset(&p, 0, sizeof p);
    /* Every field but floor_height, rest_curve, curvature and disable must be >= 0 and
     * finite; zero takes the default. */
    const struct {
        const char *name;
        float *value;
        float def;
    } fields[] = {
        {"frequency_root", &p.frequency_root, d.frequency_root},
        {"damping_ratio", &p.damping_ratio, d.damping_ratio},
        {"gravity", &p.gravity, d.gravity},
        {"carry", &p.carry, d.carry},
        {"coupling_rate", &p.coupling_rate, d.coupling_rate},
        {"bend_limit", &p.bend_limit, d.bend_limit},
        {"bind_limit", &p.bind_limit, d.bind_limit},
        {"floor_clearance", &p.floor_clearance, d.floor_clearance},
        {"contact_damping", &p.contact_damping, d.contact_damping},
        {"max_step", &p.max_step, d.max_step},
        {"teleport_distance", &p.teleport_distance, d.teleport_distance},
        {"reference_size", &p.reference_size, reference_size},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (bad(*fields[i].value))
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "dyn params: %s must be finite and >= 0 (got %g)",
                                   fields[i].name, (double)*fields[i].value);
        if (*fields[i].value == 0.0f) *fields[i].value = fields[i].def;
    }
    if (bad(p.frequency_tip))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "dyn params: frequency_tip must be finite and >= 0 (got %g)",
                               (double)p.frequency_tip);
    if (p.frequency_tip == 0.0f) p.frequency_tip = 0.5f * p.frequency_root;
    if (!isfinite(p.rest_curve) || p.rest_curve < 0.0f || p.rest_curve > 1.0f)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "dyn params: rest_curve must be in [0, 1] (got %g)",
                               (double)p.rest_curve);
    if (!isfinite(p.curvature) || fabsf(p.curvature) > (float)SINEW_PI * 4.0f)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "dyn params: curvature must be finite, |C| <= 4 pi (got %g)",
                               (double)p.curvature);
    if (!isfinite(p.floor_height))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "dyn params: floor_height is not finite");
    if (p.bend_limit > (float)SINEW_PI) p.bend_limit = (float)SINEW_PI;
    if (p.bind_limit > (float)SINEW_PI) p.bind_limit = (float)SINEW_PI;
    if (p.max_substeps == 0) p.max_substeps = d.max_substeps;
    if (p.max_substeps > 1000) p.max_substeps = 1000;
    if (p.max_step < 1e-5f) p.max_step = 1e-5f;
    if (p.reference_size == 0.0f || !isfinite(p.reference_size))
        p.reference_size = SINEW_DYN_REFERENCE_SIZE;
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
