// projective_stages.h - the stages Projective Fluids runs on a device besides
// the device's own (Backend::predict, build_grid, find_neighbors): the start
// of a substep's iterations, the local and global steps, and the update of
// velocities and densities. XSPH viscosity is PBF's stage
// (methods/pbf/pbf_stages.h), run with this method's mass and no vorticity.
// One implementation per backend, each calling projective_equations.h for one
// particle (or constraint) at a time: cpu/projective_cpu_stages.h and
// cuda/projective_cuda_stages.cu. projective_step.h decides what runs when;
// a stage asks the host nothing, so that a device can record a whole step.
#pragma once

#include <cstddef>
#include <memory>

#include "backend/backend.h"
#include "methods/projective/projective_equations.h"

namespace pbf {

class ProjectiveStages {
 public:
  virtual ~ProjectiveStages() = default;
  // Room for n particles in the stages' own arrays, called before the device
  // grows to n, so that no later step allocates; on failure nothing changed.
  virtual void reserve(size_t n) = 0;
  // After predict, build_grid and find_neighbors: keeps the predicted
  // positions as the inertial target s and as the first iterate, and starts
  // the substep's local/global iterations.
  virtual void begin(const StepContext& ctx, const ProjectiveConstants& c) = 0;
  // Local step: projects every density constraint at the current iterate.
  // When the mean compression there (deterministic for any thread count) is
  // at most `tolerance`, the substep's iterations have converged: this and
  // every later local and global step of the substep do nothing. The stage
  // decides that itself (CUDA: on the device).
  virtual void local_step(const StepContext& ctx, const ProjectiveConstants& c, float tolerance) = 0;
  // Global step: the diagonal system of eq. 5 solved in closed form from the
  // current iterate y_k, then the Chebyshev extrapolation y_k-1 + omega
  // (y - y_k-1) (omega = 1: none) and collisions (global_step_particle(),
  // which keeps y_k and y_k-1 as displacements from the inertial target, and
  // whose y_k-1 leaves out what the obstacles pushed). Nothing once the
  // substep has converged.
  virtual void global_step(const StepContext& ctx, const ProjectiveConstants& c, float omega) = 0;
  // After a global step whose pushes moved dynamic bodies (BodySubstep), in
  // a round of their yield from `before` to `moved` (indexed by obstacle):
  // each particle near boundary samples gives back what the bodies' motion
  // made unneeded of its push (projective_body_yield_relief(), with the last
  // local step's projection and the global step's omega), and each that a
  // body's collision pushed (its collision record) likewise
  // (collision_relief()), in one pass, moving the iterate and the previous
  // one alike (what the obstacles did is left out of the extrapolation);
  // what they give back is pushed on the bodies through the device's sink.
  // Nothing once the substep has converged.
  virtual void relieve_body_yields(const StepContext& ctx, const ProjectiveConstants& c, const BodyYield* before,
                                   const BodyYield* moved) = 0;
  // v = (x - x_n) / dt with restitution, x_n+1 = x, cubic-spline density.
  virtual void update_velocities(const StepContext& ctx, const ProjectiveConstants& c) = 0;
};

// The stages for `backend`'s device. Throws Error(Internal) for a backend
// that has none.
std::unique_ptr<ProjectiveStages> make_projective_stages(Backend& backend);

}  // namespace pbf
