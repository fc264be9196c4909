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

/* A spring option and the sinew_dyn_params field it sets, in the unit the library shows that
 * field in (sinew_dyn_param_unit: degrees for angles). The values it accepts are checked
 * once, by the library, after every option is parsed (bake_cli_check), and the library's
 * message gives them in that same unit. */
typedef struct float_option {
    const char *name;
    const char *field; /* the sinew_dyn_params field, as sinew_dyn_param_unit names it */
    size_t offset;     /* of that field */
} float_option;

#define FIELD(f) #f, offsetof(sinew_dyn_params, f)
static const float_option options[] = {
    {"--frequency", FIELD(frequency_root)}, {"--damping", FIELD(damping_ratio)},
    {"--gravity", FIELD(gravity)},          {"--carry", FIELD(carry)},
    {"--rest-curve", FIELD(rest_curve)},    {"--bind-limit", FIELD(bind_limit)},
    {"--floor", FIELD(floor_height)},
};
#undef FIELD

/* The value of option `o` at argv[*i]: a finite number in the field's shown unit, set into
 * `params` in the library's. Returns 1, or -1 after a usage error. */
static int parse_value(const char *command, const float_option *o, int argc, char **argv, int *i,
                       sinew_dyn_params *params)
{
    const char *v = cli_option_value(command, argc, argv, i);
    if (!v) return -1;
    const char *unit = "";
    double shown = 1.0;
    sinew_dyn_param_unit(o->field, &unit, &shown);
    float value;
    if (!cli_parse_float(v, -FLT_MAX, FLT_MAX, &value)) {
        cli_usage_error(
            command, "%s wants a number%s%s%s, not '%s'", o->name, *unit ? " in " : "", unit,
            o->offset == offsetof(sinew_dyn_params, floor_height) ? " or 'off'" : "", v);
        return -1;
    }
    float field = (float)((double)value / shown);
    /* Zero means "default" in sinew_dyn_params: keep an explicit 0 as a tiny value. */
    if (field == 0.0f) field = 1e-12f;
    memcpy((char *)params + o->offset, &field, sizeof field);
    return 1;
}

int bake_cli_parse_option(const char *command, int argc, char **argv, int *i,
                          sinew_dyn_params *params)
{
    const char *arg = argv[*i];
    if (!strcmp(arg, "--floor") && *i + 1 < argc && !strcmp(argv[*i + 1], "off")) {
        *i += 1;
        params->disable |= SINEW_DYN_NO_FLOOR;
        return 1;
    }
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
        if (!strcmp(arg, options[k].name))
            return parse_value(command, &options[k], argc, argv, i, params);
    return 0;
}

int bake_cli_check(const char *command, const sinew_dyn_params *params)
{
    sinew_error err = {0};
    if (sinew_dyn_params_check(params, &err) == SINEW_OK) return 0;
    /* The options at fault, for the message, asked of the library too: each set option
     * whose field back at its default makes the parameters pass (two, for a frequency the
     * damping cannot hold). */
    char names[128] = "";
    size_t used = 0;
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
        sinew_dyn_params without = *params;
        float value, zero = 0.0f;
        memcpy(&value, (const char *)params + options[k].offset, sizeof value);
        memcpy((char *)&without + options[k].offset, &zero, sizeof zero);
        if (value == 0.0f || sinew_dyn_params_check(&without, NULL) != SINEW_OK) continue;
        int n =
            snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", options[k].name);
        if (n > 0 && (size_t)n < sizeof names - used) used += (size_t)n;
    }
    cli_usage_error(command, "%s: %s", used ? names : "spring options", err.message);
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
