// The AVX2 copy of Projective Fluids' lane passes (backend/cpu/lane_targets.h),
// built as PBF's (methods/pbf/cpu/pbf_cpu_lane_passes_avx2.cpp): the shared
// headers first, compiled for the baseline; only the lane code below the
// target pragma, in its own namespace, is compiled for AVX2.
#include "methods/projective/cpu/projective_cpu_lane_passes.h"

#include "methods/projective/projective_equations.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#pragma GCC push_options
#pragma GCC target("avx2")

#define PBF_LANE_BYTES 32
#define PBF_LANE_TARGET avx2
#include "backend/cpu/lanes.h"
#include "methods/projective/cpu/projective_cpu_lanes.h"

namespace pbf {

ProjectiveLanePasses projective_lane_passes_avx2() { return avx2::lane_passes(); }

}  // namespace pbf

#pragma GCC pop_options

#else

namespace pbf {

ProjectiveLanePasses projective_lane_passes_avx2() { return projective_lane_passes_baseline(); }

}  // namespace pbf

#endif
