/* CLI pieces shared by `sinew bake` and `sinew tail`: spring options and the bake table. */
#include "bake_cli.h"

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

typedef struct float_option {
    const char *name;
    float min, max, scale; /* scale converts CLI units (degrees) to the library's (radians) */
    size_t offset;
} float_option;

static const float_option options[] = {
    {"--frequency", 0.01f, 100.0f, 1.0f, offsetof(sinew_dyn_params, frequency_root)},
    {"--damping", 0.01f, 10.0f, 1.0f, offsetof(sinew_dyn_params, damping_ratio)},
    {"--gravity", 0.0f, 1000.0f, 1.0f, offsetof(sinew_dyn_params, gravity)},
    {"--carry", -180.0f, 180.0f, (float)(SINEW_PI / 180.0), offsetof(sinew_dyn_params, carry)},
    {"--rest-curve", 0.0f, 1.0f, 1.0f, offsetof(sinew_dyn_params, rest_curve)},
    {"--bind-limit", 0.0f, 180.0f, (float)(SINEW_PI / 180.0),
     offsetof(sinew_dyn_params, bind_limit)},
};

int bake_cli_parse_option(const char *command, int argc, char **argv, int *i,
                          sinew_dyn_params *params)
{
    const char *arg = argv[*i];
    if (!strcmp(arg, "--floor")) {
        const char *v = cli_option_value(command, argc, argv, i);
        if (!v) return -1;
        if (!strcmp(v, "off")) {
            params->disable |= SINEW_DYN_NO_FLOOR;
            return 1;
        }
        if (!cli_parse_float(v, -1e9f, 1e9f, &params->floor_height)) {
            cli_usage_error(command, "--floor wants a height or 'off', not '%s'", v);
            return -1;
        }
        return 1;
    }
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
        if (strcmp(arg, options[k].name)) continue;
        const char *v = cli_option_value(command, argc, argv, i);
        float value;
        if (!v) return -1;
        if (!cli_parse_float(v, options[k].min, options[k].max, &value)) {
            cli_usage_error(command, "%s wants a number from %g to %g, not '%s'", arg,
                            (double)options[k].min, (double)options[k].max, v);
            return -1;
        }
        value *= options[k].scale;
        /* Zero means "default" in sinew_dyn_params: keep an explicit 0 as a tiny value. */
        if (value == 0.0f) value = 1e-12f;
        memcpy((char *)params + options[k].offset, &value, sizeof value);
        return 1;
    }
    return 0;
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
