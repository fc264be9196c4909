/* CLI pieces shared by `sinew bake` and `sinew tail`: spring options and the bake table. */
#include "bake_cli.h"

#include <float.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "safe_text.h"

const char *bake_cli_options_help =
    "spring options (defaults tuned on a 1.91 m fox, scaled to the model's size):\n"
    "  --frequency HZ    root link frequency, the tip gets half (default 0.9)\n"
    "  --damping Z       damping ratio (default 0.65)\n"
    "  --gravity G       m/s^2 at the reference size (default 1)\n"
    "  --carry DEG       elevation of the whole tail, shared among its joints (default 50)\n"
    "  --rest-curve B    0 = centred rest arc, 1 = the modelled curve (default 0)\n"
    "  --bind-limit DEG  largest bend of a tail link from its bind direction, what folds the\n"
    "                    skin; 0 to 180 (default 25)\n"
    "  --floor Y|off     floor plane height in file units, or no floor contact (default 0)\n";

/* A spring option and the sinew_dyn_params field it sets: the accepted values are the
 * library's own (sinew_dyn_param_range), shown in the option's unit. */
typedef struct float_option {
    const char *name;
    const char *field; /* the sinew_dyn_params field, as sinew_dyn_param_range names it */
    size_t offset;     /* of that field */
    double scale;      /* converts CLI units (degrees) to the library's (radians) */
} float_option;

#define DEGREES (SINEW_PI / 180.0)
#define FIELD(f) #f, offsetof(sinew_dyn_params, f)
static const float_option options[] = {
    {"--frequency", FIELD(frequency_root), 1.0}, {"--damping", FIELD(damping_ratio), 1.0},
    {"--gravity", FIELD(gravity), 1.0},          {"--carry", FIELD(carry), DEGREES},
    {"--rest-curve", FIELD(rest_curve), 1.0},    {"--bind-limit", FIELD(bind_limit), DEGREES},
};
#undef FIELD

/* Parses `text` as a value of `field` given in CLI units (`scale` to the library's) into
 * *out, library units; 0 when it is not a number in the library's range, then *lo and *hi
 * hold that range in CLI units for the message. */
static int parse_field(const char *text, const char *field, double scale, float *out, double *lo,
                       double *hi)
{
    float min = 0, max = 0, value;
    sinew_dyn_param_range(field, &min, &max);
    *lo = (double)min / scale;
    *hi = (double)max / scale;
    if (!cli_parse_float(text, -FLT_MAX, FLT_MAX, &value)) return 0;
    *out = (float)((double)value * scale);
    return *out >= min && *out <= max;
}

int bake_cli_parse_option(const char *command, int argc, char **argv, int *i,
                          sinew_dyn_params *params)
{
    const char *arg = argv[*i];
    double lo, hi;
    if (!strcmp(arg, "--floor")) {
        const char *v = cli_option_value(command, argc, argv, i);
        if (!v) return -1;
        if (!strcmp(v, "off")) {
            params->disable |= SINEW_DYN_NO_FLOOR;
            return 1;
        }
        if (!parse_field(v, "floor_height", 1.0, &params->floor_height, &lo, &hi)) {
            cli_usage_error(command, "--floor wants a height from %g to %g or 'off', not '%s'", lo,
                            hi, v);
            return -1;
        }
        return 1;
    }
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
        if (strcmp(arg, options[k].name)) continue;
        const char *v = cli_option_value(command, argc, argv, i);
        float value;
        if (!v) return -1;
        if (!parse_field(v, options[k].field, options[k].scale, &value, &lo, &hi)) {
            cli_usage_error(command, "%s wants a number from %g to %g, not '%s'", arg, lo, hi, v);
            return -1;
        }
        /* Zero means "default" in sinew_dyn_params: keep an explicit 0 as a tiny value. */
        if (value == 0.0f) value = 1e-12f;
        memcpy((char *)params + options[k].offset, &value, sizeof value);
        return 1;
    }
    return 0;
}

int bake_cli_check(const char *command, const sinew_dyn_params *params)
{
    sinew_error err = {0};
    if (sinew_dyn_params_check(params, &err) == SINEW_OK) return 0;
    /* Every option was in its range, so what is left is the pairing the library checks:
     * the spring's frequency against the fastest the step integrates at that damping. */
    sinew_dyn_params d;
    sinew_dyn_params_default(&d);
    const float zeta = params->damping_ratio > 0 ? params->damping_ratio : d.damping_ratio;
    const float f = params->frequency_root > 0 ? params->frequency_root : d.frequency_root;
    const float stable = sinew_dyn_stable_frequency(zeta, d.max_step);
    float lo = 0;
    sinew_dyn_param_range("frequency_root", &lo, NULL);
    if (f > stable)
        cli_usage_error(command,
                        "--frequency wants a number from %g to %g at --damping %g (the fastest "
                        "spring the step integrates stably), not %g",
                        (double)lo, (double)stable, (double)zeta, (double)f);
    else
        cli_usage_error(command, "spring options: %s", err.message);
    return -1;
}

void bake_cli_print(const sinew_model *model, const sinew_bake_track *summaries)
{
    printf("  %-24s %5s %6s %5s %7s %8s %8s %8s\n", "clip", "keys", "rate", "loop", "passes",
           "drift", "seam", "swing");
    for (uint32_t c = 0; c < model->clip_count; c++) {
        const sinew_bake_track *t = &summaries[c];
        printf("  %s %5u %6.1f %5s %7u %7.2f° %7.2f° %7.1f°%s\n",
               safe_text_pad(model->clips[c].name, 24).s, t->key_count, (double)t->rate,
               t->looping ? "yes" : "no", t->passes, (double)t->drift_degrees,
               (double)t->seam_degrees, (double)t->swing_degrees,
               t->looping && !t->closed
                   ? "  (state did not return within the pass limit: drift spread over the loop)"
                   : "");
    }
}
