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

namespace avx2 {

// Everything the passes call is inlined into them, so that all of it is
// compiled for this file's instruction set.
__attribute__((flatten)) float fluid_kernel_sum(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                                const Vec3* x) {
  return fluid_kernel_sum_lanes(c, i, nb, x);
}

__attribute__((flatten)) FluidDensitySums<float, Vec3> fluid_density_sums(const PbfConstants& c, uint32_t i,
                                                                         const NeighborLists& nb, const Vec3* x) {
  return fluid_density_sums_lanes(c, i, nb, x);
}

__attribute__((flatten)) Vec3 fluid_position_correction(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                                        const Vec3* x, const float* lambda) {
  return position_correction_lanes(c, i, nb, x, lambda);
}

__attribute__((flatten)) Vec3 vorticity(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                                        const Vec3* v, const float* rho) {
  return vorticity_lanes(c, i, nb, x, v, rho);
}

__attribute__((flatten)) VorticityViscositySums vorticity_viscosity_sums(const PbfConstants& c, uint32_t i,
                                                                        const NeighborLists& nb, const Vec3* x,
                                                                        const Vec3* v, const float* rho,
                                                                        const float* omega_length) {
  return vorticity_viscosity_sums_lanes(c, i, nb, x, v, rho, omega_length);
}

}  // namespace avx2

PbfLanePasses pbf_lane_passes_avx2() {
  return PbfLanePasses{avx2::fluid_kernel_sum,
                       avx2::fluid_density_sums,
                       avx2::fluid_position_correction,
                       avx2::vorticity,
                       avx2::vorticity_viscosity_sums};
}

}  // namespace pbf

#pragma GCC pop_options

#else

namespace pbf {

PbfLanePasses pbf_lane_passes_avx2() { return pbf_lane_passes_baseline(); }

}  // namespace pbf

#endif
