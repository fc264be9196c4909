/* The 4-wide lane step (SSE on x86, generic vectors elsewhere), where the compiler has GNU
 * vectors (DYN_VECTORS, dyn_internal.h); elsewhere this file compiles to nothing. See
 * dyn_lanes.h. */
#include "dyn_internal.h"
#if defined(DYN_VECTORS)
#define DYN_W 4
#define DYN_LANES_FN dyn_substep_lanes4
#include "dyn_lanes.h"
#else
typedef int dyn_lanes4_not_built; /* ISO C wants a declaration in every translation unit */
#endif
