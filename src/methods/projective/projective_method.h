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
  // Not yet: its local steps spread a boundary sample's share of a
  // constraint over the constraint's members, which the global step then
  // averages, so a sample's push on one particle is not told apart.
  bool measures_obstacle_loads() const override { return false; }

 private:
  // The device sums the pushes of its collisions for any method; they are dropped after each step.
  void drop_obstacle_pushes(uint32_t count);
  SolverConfig config_;
  Backend& backend_;
  float mass_;
  std::unique_ptr<ProjectiveStages> stages_;
  std::unique_ptr<PbfStages> viscosity_;  // PBF's XSPH stage
  std::vector<ObstaclePose> poses_;
  ObstaclePush pushes_[kMaxObstacles];
};

}  // namespace pbf
