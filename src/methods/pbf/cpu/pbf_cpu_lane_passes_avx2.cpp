// The AVX2 copy of PBF's lane passes (backend/cpu/lane_targets.h). The
// shared headers come first, compiled for the baseline like everywhere else,
// so that no inline function of theirs reaches the link in an AVX2 copy;
// only the lane code below the target pragma, in its own namespace, is
// compiled for AVX2, and runs only where best_lane_target() chose it.
#include "methods/pbf/cpu/pbf_cpu_lane_passes.h"

#include "methods/pbf/pbf_equations.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#pragma GCC push_options
#pragma GCC target("avx2")

#define PBF_LANE_BYTES 32
#define PBF_LANE_TARGET avx2
#include "backend/cpu/lanes.h"
#include "methods/pbf/cpu/pbf_cpu_lanes.h"

namespace pbf {

PbfLanePasses pbf_lane_passes_avx2() { return avx2::lane_passes(); }

}  // namespace pbf

#pragma GCC pop_options

#else

namespace pbf {

PbfLanePasses pbf_lane_passes_avx2() { return pbf_lane_passes_baseline(); }

}  // namespace pbf

#endif
