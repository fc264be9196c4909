/* The 4-wide lane step (SSE on x86, generic vectors elsewhere): see dyn_lanes.h. */
#define DYN_W 4
#define DYN_LANES_FN dyn_substep_lanes4
#include "dyn_lanes.h"
