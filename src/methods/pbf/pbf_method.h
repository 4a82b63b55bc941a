// pbf_method.h - Position Based Fluids as the solver drives it: the number of
// substeps a step takes (adaptive_dt), each substep's obstacle poses and
// constants, and pbf_step() on the device with PBF's stages for it.
#pragma once

#include <memory>
#include <vector>

#include "methods/method.h"
#include "methods/pbf/pbf_stages.h"

namespace pbf {

class PbfMethod final : public FluidMethod {
 public:
  PbfMethod(const SolverConfig& config, Backend& backend);

  float particle_mass() const override;
  DensityKernel density_kernel() const override { return DensityKernel::Poly6; }
  float min_substep() const override { return kMinSubstep; }
  void reserve(size_t n, uint32_t obstacles) override;
  void step(const StepRequest& step, StepStats& stats) override;
  void update_densities(const PbfParams& params, StepContext ctx) override;

 private:
  SolverConfig config_;
  Backend& backend_;
  std::unique_ptr<PbfStages> stages_;
  std::vector<ObstaclePose> poses_;  // every substep's, substep after substep
};

}  // namespace pbf
