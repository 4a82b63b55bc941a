// pbf_cpu_stages.h - Position Based Fluids' stages on the CPU backend: each a
// parallel loop over the device's particles (cell order) that writes only its
// own particle. Keeps the per-substep arrays of its own (the points with a
// value, the velocities with volumes); the vorticity lives in the device's
// scratch for its stage.
// The sums over fluid neighbours run eight neighbours at a time
// (pbf_cpu_lane_passes.h).
#pragma once

#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "methods/pbf/cpu/pbf_cpu_lane_passes.h"
#include "methods/pbf/pbf_stages.h"

namespace pbf {

class PbfCpuStages final : public PbfStages {
 public:
  explicit PbfCpuStages(CpuBackend& device, LaneTarget lanes = best_lane_target())
      : device_(device), lanes_(pbf_lane_passes(lanes)) {}

  void reserve(size_t n) override;
  void solve_density(const StepContext& ctx, const PbfConstants& c, float tolerance) override;
  void relieve_body_yields(const StepContext& ctx, const PbfConstants& c, const BodyYield* before,
                           const BodyYield* moved) override;
  void update_velocities(const StepContext& ctx, const PbfConstants& c) override;
  void apply_vorticity_viscosity(const StepContext& ctx, const PbfConstants& c) override;

 private:
  // Sizes the stages' arrays to the device's particles (no allocation after reserve()).
  void fit();

  CpuBackend& device_;
  const PbfLanePasses lanes_;  // the sums over fluid neighbours, for this processor
  // Each particle's point with one value, read by the lane passes with one
  // load: (x_p, lambda) in the density iterations (the correction's stage
  // reads its own particle's there too), (x, |omega|) in the vorticity stage.
  std::vector<PointValue> points_;
  // Whether a density plane reaches each particle's x_p (walls_reach()), from
  // the lambda stage for the correction's.
  std::vector<uint8_t> reach_;
  std::vector<PointValue> v_volume_;  // each particle's velocity and volume m / rho, in the vorticity stage
};

}  // namespace pbf
