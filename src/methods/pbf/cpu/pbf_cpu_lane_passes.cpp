// The baseline copy of PBF's lane passes, and the choice among the copies.
#include "methods/pbf/cpu/pbf_cpu_lane_passes.h"

#define PBF_LANE_BYTES 16
#define PBF_LANE_TARGET baseline
#include "backend/cpu/lanes.h"
#include "methods/pbf/cpu/pbf_cpu_lanes.h"

namespace pbf {

namespace baseline {

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

}  // namespace baseline

PbfLanePasses pbf_lane_passes_baseline() {
  return PbfLanePasses{baseline::fluid_kernel_sum,
                       baseline::fluid_density_sums,
                       baseline::fluid_position_correction,
                       baseline::vorticity,
                       baseline::vorticity_viscosity_sums};
}

PbfLanePasses pbf_lane_passes(LaneTarget target) {
  if (target == LaneTarget::Avx2 && lane_target_runs_here(LaneTarget::Avx2)) return pbf_lane_passes_avx2();
  return pbf_lane_passes_baseline();
}

}  // namespace pbf
