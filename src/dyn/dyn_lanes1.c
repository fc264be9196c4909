/* The step of one chain, plain ISO C floats: what sinew_dyn_step_run runs, and what
 * sinew_dyn_step_run_many runs where there are no vector lanes. See dyn_lanes.h. */
#define DYN_W 1
#define DYN_LANES_FN dyn_substep_lanes1
#include "dyn_lanes.h"
