/* CLI pieces shared by `sinew bake` and `sinew tail`: spring options and the bake table. */
#ifndef SINEW_BAKE_CLI_H
#define SINEW_BAKE_CLI_H

#include <cjson/cJSON.h>

#include "sinew/bake.h"
#include "sinew/vrm.h"

/* Help text for the spring options, to append to a command's usage. */
extern const char *bake_cli_options_help;

/* Parses a spring option at argv[*i] into `params` (which starts zeroed = defaults): a number
 * in the unit the library shows the field in (sinew_dyn_param_unit), its range left to
 * bake_cli_check.
 * Returns 1 when it took the option (advancing *i past its value), 0 when argv[*i] is not a
 * spring option, and -1 after printing a usage error. */
int bake_cli_parse_option(const char *command, int argc, char **argv, int *i,
                          sinew_dyn_params *params);

/* After every option is parsed: checks `params` with the library (sinew_dyn_params_check:
 * each field's range, and a frequency the step cannot integrate stably at that damping),
 * whose message is in the options' units. Returns 0 when they are fine, else prints a usage
 * error and returns -1. */
int bake_cli_check(const char *command, const sinew_dyn_params *params);

/* Prints one line per clip: keys, rate, loop, warm-up passes, drift, seam, the largest joint
 * swing and the tip's swing relative to the body (sinew_bake_track), in degrees. */
void bake_cli_print(const sinew_model *model, const sinew_bake_track *summaries);

/* The same figures as JSON: one object per clip (name, keys, rate, looping, passes,
 * drift_degrees, seam_degrees, swing_degrees, tip_swing_degrees, closed), in an array; NULL
 * when out of memory. */
cJSON *bake_cli_json(const sinew_model *model, const sinew_bake_track *summaries);

/* Help text for --vrm-springs (both commands take it). */
extern const char *bake_cli_vrm_help;

/* The VRM fit as a table: per joint, sinew's spring and VRM's fitted parameters, then the
 * predicted error and a warning per joint whose damping VRM cannot express. */
void bake_cli_print_vrm(const sinew_model *model, const sinew_vrm_fit *fit);

/* The same as JSON (NULL when out of memory). */
cJSON *bake_cli_vrm_json(const sinew_model *model, const sinew_vrm_fit *fit);

#endif
