// projective_method.h - Projective Fluids as the solver drives it: each of a
// step's `substeps` intervals is one implicit Euler step, or, with
// adaptive_dt, as many equal steps as the CFL condition asks for; the
// obstacle poses and constants of each, and projective_step() on the device
// with the method's stages for it.
#pragma once

#include <memory>
#include <vector>

#include "methods/method.h"
#include "methods/pbf/pbf_stages.h"
#include "methods/projective/projective_stages.h"

namespace pbf {

class ProjectiveMethod final : public FluidMethod {
 public:
  ProjectiveMethod(const SolverConfig& config, Backend& backend);

  float particle_mass() const override { return mass_; }
  DensityKernel density_kernel() const override { return DensityKernel::CubicSpline; }
  // The global step weighs displacements by m/dt^2: the step that
  // kMaxProjectiveInertialForce allows, when longer than kMinSubstep.
  float min_substep() const override;
  void reserve(size_t n, uint32_t obstacles) override;
  void step(const StepRequest& step, StepStats& stats) override;
  void update_densities(const PbfParams& params, StepContext ctx) override;

 private:
  SolverConfig config_;
  Backend& backend_;
  float mass_;
  std::unique_ptr<ProjectiveStages> stages_;
  std::unique_ptr<PbfStages> viscosity_;  // PBF's XSPH stage
  std::vector<ObstaclePose> poses_;
};

}  // namespace pbf
