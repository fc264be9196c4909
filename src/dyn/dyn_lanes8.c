/* The 8-wide lane step, built with -mavx2 on x86-64 (src/dyn/CMakeLists.txt defines
 * SINEW_DYN_LANES8 there, dyn_internal.h DYN_LANES8 when the compiler also has the vectors
 * and __builtin_cpu_supports); sinew_dyn_step_run_many calls it only on CPUs with AVX2.
 * Other targets (WebAssembly, compilers without GNU vectors) compile this file to nothing.
 * See dyn_lanes.h. */
#include "dyn_internal.h"
#if defined(DYN_LANES8)
#define DYN_W 8
#define DYN_LANES_FN dyn_substep_lanes8
#include "dyn_lanes.h"
#else
typedef int dyn_lanes8_not_built; /* ISO C wants a declaration in every translation unit */
#endif
