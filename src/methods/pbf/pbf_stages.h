// pbf_stages.h - the stages Position Based Fluids runs on a device besides the
// device's own (Backend::predict, build_grid, find_neighbors): the density
// iterations, the update of velocities and densities, and vorticity
// confinement with XSPH viscosity. One implementation per backend, each
// calling pbf_equations.h for one particle at a time: cpu/pbf_cpu_stages.h
// and cuda/pbf_cuda_stages.cu. pbf_step.h decides what runs when.
#pragma once

#include <cstddef>
#include <memory>

#include "backend/backend.h"
#include "methods/pbf/pbf_equations.h"

namespace pbf {

class PbfStages {
 public:
  virtual ~PbfStages() = default;
  // Room for n particles in the stages' own arrays, called before the device
  // grows to n, so that no later step allocates; on failure nothing changed.
  virtual void reserve(size_t n) = 0;
  // One Jacobi iteration of the density constraints with collisions
  // (Algorithm 1, lines 8-19). With `tolerance` >= 0, when the mean
  // compression max(rho / rho0 - 1, 0) of the positions this iteration
  // starts from (deterministic for any thread count) is at most `tolerance`,
  // the substep's iterations have converged: this one still corrects, every
  // later one of the substep does nothing. The stage decides that itself
  // (CUDA: on the device), so that a step can be recorded whole. Negative:
  // no check.
  virtual void solve_density(const StepContext& ctx, const PbfConstants& c, float tolerance) = 0;
  // After an iteration whose pushes moved dynamic bodies (BodySubstep), in
  // a round of their yield from `before` to `moved` (indexed by obstacle):
  // each particle near boundary samples gives back what the bodies' motion
  // made unneeded of its push (body_yield_relief(), at the iteration's
  // points, lambdas and densities), and each that a body's collision pushed
  // (its collision record) likewise (collision_relief(), as
  // Backend::relieve_collisions() after the prediction), in one pass; what
  // they give back is pushed on the bodies through the device's sink.
  virtual void relieve_body_yields(const StepContext& ctx, const PbfConstants& c, const BodyYield* before,
                                   const BodyYield* moved) = 0;
  // v = (x* - x) / dt, x = x*, density at the new positions (lines 21, 23).
  virtual void update_velocities(const StepContext& ctx, const PbfConstants& c) = 0;
  // Vorticity confinement and XSPH viscosity (line 22).
  virtual void apply_vorticity_viscosity(const StepContext& ctx, const PbfConstants& c) = 0;
};

// The stages for `backend`'s device. Throws Error(Internal) for a backend
// that has none.
std::unique_ptr<PbfStages> make_pbf_stages(Backend& backend);

}  // namespace pbf
