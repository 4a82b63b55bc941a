// The AVX-512 copy of Projective Fluids' lane passes (backend/cpu/lane_targets.h):
// a constraint's members sixteen at a time, two groups of eight to a 512-bit
// vector (backend/cpu/lanes.h with PBF_LANE_PARTICLES 2), whose sums are
// folded into eight lanes one group after the other (fold()), so that every
// copy gives the same bits. Built as PBF's AVX-512 copy
// (methods/pbf/cpu/pbf_cpu_lane_passes_avx512.cpp): the shared headers
// first, compiled for the baseline; only the lane code below the target
// pragma, in its own namespace, is compiled for AVX-512.
#include "methods/projective/cpu/projective_cpu_lane_passes.h"

#include "methods/projective/projective_equations.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#pragma GCC push_options
#pragma GCC target("avx2,avx512f,avx512vl,avx512dq,avx512bw")
// GCC 12's AVX-512 headers pass an undefined vector to the builtins of
// _mm512_unpacklo_ps() and kin, which -Wmaybe-uninitialized reports (GCC bug
// 105593, fixed in GCC 13); the lanes never read it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define PBF_LANE_BYTES 64
#define PBF_LANE_PARTICLES 2
#define PBF_LANE_TARGET avx512
#include "backend/cpu/lanes.h"
#include "methods/projective/cpu/projective_cpu_lanes.h"

namespace pbf {

ProjectiveLanePasses projective_lane_passes_avx512() { return avx512::lane_passes(); }

}  // namespace pbf

#pragma GCC diagnostic pop
#pragma GCC pop_options

#else

namespace pbf {

ProjectiveLanePasses projective_lane_passes_avx512() { return projective_lane_passes_avx2(); }

}  // namespace pbf

#endif
