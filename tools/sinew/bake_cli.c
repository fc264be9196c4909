/* CLI pieces shared by `sinew bake` and `sinew tail`: spring options and the bake table. */
#include "bake_cli.h"

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "safe_text.h"

const char *bake_cli_options_help =
    "spring options (defaults tuned on a 1.91 m fox, scaled to the model's size):\n"
    "  --preset NAME     the tail's springs from a table in physical units (docs/springs.md):\n"
    "                    tail (default), stiff, loose, wing, ear or garment; the options\n"
    "                    below override its values, wherever they stand. Wings and ears\n"
    "                    always take the wing and ear presets\n"
    "  --frequency HZ    root link frequency, the tip gets the preset's share of it (the\n"
    "                    tail's: half) (default 0.9)\n"
    "  --damping Z       damping ratio (default 0.65)\n"
    "  --gravity G       m/s^2 at the reference size (default 1)\n"
    "  --carry DEG       elevation of the whole tail, shared among its joints (default 50)\n"
    "  --rest-curve B    0 = centred rest arc, 1 = the modelled curve (default 0)\n"
    "  --bind-limit DEG  largest bend of a tail link from its bind direction, what folds the\n"
    "                    skin; 0 to 180 (default 25)\n"
    "  --floor Y|off     floor plane height in file units, or no floor contact (default 0)\n"
    "  --idle DEG        idle sway: a slow seeded swing of the rest arc, its chord (root\n"
    "                    to tip) turning by up to DEG, so a standing tail lives; its\n"
    "                    frequencies fit each clip's loop; 0 to 45 (default 0: off)\n"
    "  --idle-seed N     seed of the idle sway, 0 to 4294967295 (default 0)\n"
    "  --colliders on|off  keep the chains out of capsules along the hind legs and the\n"
    "                    torso, each as thick as the skin its bone dominates (default: on for\n"
    "                    wings and ears, for a tail whose --carry is below 50 or whose\n"
    "                    --rest-curve is above 0, and for a garment the thighs drive (a skirt\n"
    "                    from the hips); off for other tails and garments, but `sinew tail`\n"
    "                    turns them on for a tail it finds entering a leg)\n";

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
    {"--floor", FIELD(floor_height)},       {"--idle", FIELD(idle)},
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
    /* Zero means "the preset's value" in sinew_dyn_params: keep an explicit 0 as a tiny value
     * where some preset's value is not 0 (so --rest-curve 0 holds against --preset wing,
     * wherever --preset stands), and as 0 where every preset's is (--idle 0 is off, bit for
     * bit). */
    int zero_is_a_value = 1;
    for (unsigned k = 0; k < SINEW_DYN_PRESET_COUNT; k++) {
        sinew_dyn_params preset;
        float fallback;
        sinew_dyn_params_preset((sinew_dyn_preset)k, &preset);
        memcpy(&fallback, (const char *)&preset + o->offset, sizeof fallback);
        zero_is_a_value &= fallback == 0.0f;
    }
    if (field == 0.0f && !zero_is_a_value) field = 1e-12f;
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
    if (!strcmp(arg, "--preset")) {
        const char *v = cli_option_value(command, argc, argv, i);
        if (!v) return -1;
        sinew_dyn_preset preset;
        if (!sinew_dyn_preset_from_name(v, &preset)) {
            char names[128] = "";
            size_t used = 0;
            for (unsigned k = 0; k < SINEW_DYN_PRESET_COUNT; k++) {
                int n = snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "",
                                 sinew_dyn_preset_name((sinew_dyn_preset)k));
                if (n > 0 && (size_t)n < sizeof names - used) used += (size_t)n;
            }
            cli_usage_error(command, "--preset wants one of %s, not '%s'", names, v);
            return -1;
        }
        /* The fields left at 0 take the preset's values: the other options override it
         * whether they come before or after. */
        params->preset = (uint32_t)preset;
        return 1;
    }
    if (!strcmp(arg, "--idle-seed")) {
        const char *v = cli_option_value(command, argc, argv, i);
        unsigned long seed;
        if (!v) return -1;
        if (!cli_parse_uint(v, 0, UINT32_MAX, &seed)) {
            cli_usage_error(command, "--idle-seed wants a whole number from 0 to %lu, not '%s'",
                            (unsigned long)UINT32_MAX, v);
            return -1;
        }
        params->idle_seed = (uint32_t)seed;
        return 1;
    }
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
        if (!strcmp(arg, options[k].name))
            return parse_value(command, &options[k], argc, argv, i, params);
    return 0;
}

int bake_cli_parse_colliders(const char *command, int argc, char **argv, int *i,
                             sinew_bake_colliders *colliders)
{
    if (strcmp(argv[*i], "--colliders") != 0) return 0;
    const char *v = cli_option_value(command, argc, argv, i);
    if (!v) return -1;
    if (!strcmp(v, "on"))
        *colliders = SINEW_BAKE_COLLIDERS_ON;
    else if (!strcmp(v, "off"))
        *colliders = SINEW_BAKE_COLLIDERS_OFF;
    else
        return cli_usage_error(command, "--colliders must be on or off, not '%s'", v), -1;
    return 1;
}

void bake_cli_print_colliders(const sinew_model *model, const sinew_bake_track *summaries)
{
    for (uint32_t c = 0; c < model->clip_count; c++)
        if (summaries[c].capsule_count) {
            printf("  colliders: the tail kept out of %u body capsules (hind legs and torso)\n",
                   summaries[c].capsule_count);
            return;
        }
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
    printf("  %-24s %5s %6s %5s %7s %8s %8s %8s %8s\n", "clip", "keys", "rate", "loop", "passes",
           "drift", "seam", "swing", "tip");
    for (uint32_t c = 0; c < model->clip_count; c++) {
        const sinew_bake_track *t = &summaries[c];
        printf("  %s %5u %6.1f %5s %7u %7.2f° %7.2f° %7.1f° %7.2f°%s\n",
               safe_text_pad(model->clips[c].name, 24).s, t->key_count, (double)t->rate,
               t->looping ? "yes" : "no", t->passes, (double)t->drift_degrees,
               (double)t->seam_degrees, (double)t->swing_degrees, (double)t->tip_swing_degrees,
               t->looping && !t->closed
                   ? "  (state did not return within the pass limit: drift spread over the loop)"
                   : "");
    }
}

cJSON *bake_cli_json(const sinew_model *model, const sinew_bake_track *summaries)
{
    cJSON *clips = cJSON_CreateArray();
    for (uint32_t c = 0; clips && c < model->clip_count; c++) {
        const sinew_bake_track *t = &summaries[c];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", model->clips[c].name);
        cJSON_AddNumberToObject(o, "keys", t->key_count);
        cJSON_AddNumberToObject(o, "rate", t->rate);
        cJSON_AddBoolToObject(o, "looping", t->looping);
        cJSON_AddNumberToObject(o, "passes", t->passes);
        cJSON_AddNumberToObject(o, "drift_degrees", t->drift_degrees);
        cJSON_AddNumberToObject(o, "seam_degrees", t->seam_degrees);
        cJSON_AddNumberToObject(o, "swing_degrees", t->swing_degrees);
        cJSON_AddNumberToObject(o, "tip_swing_degrees", t->tip_swing_degrees);
        /* the table's note "state did not return within the pass limit" when false */
        cJSON_AddBoolToObject(o, "closed", t->closed);
        cJSON_AddItemToArray(clips, o);
    }
    return clips;
}

const char *bake_cli_vrm_help =
    "  --vrm-springs     also write the chain's springs as VRMC_springBone 1.0 (stiffness,\n"
    "                    dragForce, gravityPower fitted at 60 fps; hitRadius from the skin;\n"
    "                    floor and forward plane as extended-collider planes; the bend limit\n"
    "                    as a cone), so VRM engines swing the tail live; the baked clips stay.\n"
    "                    Prints the fit and its predicted error (see docs/vrm-springs.md)\n";

static const char *node_name(const sinew_model *m, int32_t node)
{
    return node >= 0 && (uint32_t)node < m->node_count && m->nodes[node].name ? m->nodes[node].name
                                                                              : "-";
}

void bake_cli_print_vrm(const sinew_model *model, const sinew_vrm_fit *fit)
{
    printf("VRM spring bones (VRMC_springBone 1.0), fitted at %.0f per second:\n",
           (double)SINEW_VRM_RATE);
    printf("  %-16s %7s %5s %10s %9s %12s %9s\n", "joint", "freq", "zeta", "stiffness", "dragForce",
           "gravityPower", "hitRadius");
    for (uint32_t i = 0; i < fit->joint_count; i++) {
        const sinew_vrm_joint *j = &fit->joints[i];
        printf("  %s %5.2fHz %5.2f %10.4g %9.4f %12.4g %9.4g\n",
               safe_text_pad(node_name(model, j->node), 16).s, (double)j->frequency,
               (double)j->damping_ratio, (double)j->stiffness, (double)j->drag_force,
               (double)j->gravity_power, (double)j->hit_radius);
    }
    printf("  colliders: %s%s%s; bend limit: %s\n", fit->floor ? "floor plane" : "",
           fit->floor && fit->forward_plane ? ", " : "",
           fit->forward_plane ? "forward plane at the tail root" : (fit->floor ? "" : "none"),
           fit->cone_angle > 0 ? "cone" : "none");
    if (fit->cone_angle > 0)
        printf("  cone angle %.1f°\n", (double)fit->cone_angle * 180.0 / SINEW_PI);
    printf("  predicted error on the fit's hip motion (%.0f s): tip direction RMS %.2f° from "
           "sinew's, %.1f%% of its %.1f° swing\n",
           (double)SINEW_VRM_FIT_SECONDS, (double)fit->error_degrees, (double)fit->error_percent,
           (double)fit->swing_degrees);
    printf("  (the linear match alone: %.2f°; refined with velocity retention x%.2f, stiffness "
           "x%.2f)\n",
           (double)fit->linear_error_degrees, (double)fit->retain_scale,
           (double)fit->stiffness_scale);
    for (uint32_t i = 0; i < fit->joint_count; i++) {
        const sinew_vrm_joint *j = &fit->joints[i];
        if (!j->clamped) continue;
        printf("  warning: %s: damping %.3g is below the lightest VRM expresses at %.2f Hz "
               "(%.3g): dragForce clamped to 0, so VRM damps it more than sinew\n",
               safe_text(node_name(model, j->node)).s, (double)j->damping_ratio,
               (double)j->frequency, (double)j->min_damping);
    }
}

/* A float field of a struct and its JSON key. */
typedef struct float_field {
    const char *key;
    size_t offset;
} float_field;

/* Adds obj[key] = the float at `offset` in `base`, for each field. */
static void add_floats(cJSON *obj, const void *base, const float_field *fields, size_t count)
{
    for (size_t k = 0; k < count; k++)
        cJSON_AddNumberToObject(obj, fields[k].key,
                                *(const float *)((const char *)base + fields[k].offset));
}

static const float_field joint_fields[] = {
    {"frequency", offsetof(sinew_vrm_joint, frequency)},
    {"damping_ratio", offsetof(sinew_vrm_joint, damping_ratio)},
    {"length", offsetof(sinew_vrm_joint, length)},
    {"stiffness", offsetof(sinew_vrm_joint, stiffness)},
    {"drag_force", offsetof(sinew_vrm_joint, drag_force)},
    {"gravity_power", offsetof(sinew_vrm_joint, gravity_power)},
    {"hit_radius", offsetof(sinew_vrm_joint, hit_radius)},
    {"min_damping_ratio", offsetof(sinew_vrm_joint, min_damping)},
};

static const float_field predicted_fields[] = {
    {"swing_degrees", offsetof(sinew_vrm_fit, swing_degrees)},
    {"error_degrees", offsetof(sinew_vrm_fit, error_degrees)},
    {"error_percent", offsetof(sinew_vrm_fit, error_percent)},
    {"linear_error_degrees", offsetof(sinew_vrm_fit, linear_error_degrees)},
    {"retain_scale", offsetof(sinew_vrm_fit, retain_scale)},
    {"stiffness_scale", offsetof(sinew_vrm_fit, stiffness_scale)},
};

cJSON *bake_cli_vrm_json(const sinew_model *model, const sinew_vrm_fit *fit)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "rate", SINEW_VRM_RATE);
    cJSON_AddNumberToObject(o, "reference_size", fit->reference_size);
    cJSON_AddNumberToObject(o, "gravity", fit->gravity);
    cJSON_AddStringToObject(o, "parent", node_name(model, fit->parent_node));
    cJSON_AddStringToObject(o, "end", node_name(model, fit->end_node));
    cJSON *joints = cJSON_AddArrayToObject(o, "joints");
    for (uint32_t i = 0; i < fit->joint_count; i++) {
        const sinew_vrm_joint *j = &fit->joints[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "node", node_name(model, j->node));
        add_floats(x, j, joint_fields, sizeof joint_fields / sizeof *joint_fields);
        cJSON_AddBoolToObject(x, "damping_clamped", j->clamped);
        cJSON_AddItemToArray(joints, x);
    }
    cJSON_AddBoolToObject(o, "floor_plane", fit->floor);
    cJSON_AddNumberToObject(o, "floor_height", fit->floor_height);
    cJSON_AddBoolToObject(o, "forward_plane", fit->forward_plane);
    cJSON_AddNumberToObject(o, "cone_angle", fit->cone_angle);
    cJSON *pred = cJSON_AddObjectToObject(o, "predicted");
    cJSON_AddNumberToObject(pred, "seconds", SINEW_VRM_FIT_SECONDS);
    cJSON_AddNumberToObject(pred, "frames", fit->frames);
    add_floats(pred, fit, predicted_fields, sizeof predicted_fields / sizeof *predicted_fields);
    cJSON *warn = cJSON_AddArrayToObject(o, "warnings");
    for (uint32_t i = 0; i < fit->joint_count; i++) {
        const sinew_vrm_joint *j = &fit->joints[i];
        if (!j->clamped) continue;
        char text[256];
        snprintf(text, sizeof text,
                 "%s: damping %.3g is below the lightest VRM expresses at %.2f Hz (%.3g): "
                 "dragForce clamped to 0",
                 node_name(model, j->node), (double)j->damping_ratio, (double)j->frequency,
                 (double)j->min_damping);
        cJSON_AddItemToArray(warn, cJSON_CreateString(text));
    }
    return o;
}
