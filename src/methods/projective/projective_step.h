// projective_step.h - Projective Fluids (Weiler, Koschier & Bender 2016) as
// a sequence of stages, the device's (Backend) and the method's own
// (ProjectiveStages, and PBF's XSPH stage), timed per phase: the method's
// whole control logic, written once for every backend.
#pragma once

#include <cstdint>
#include <functional>

#include "backend/backend.h"
#include "methods/pbf/pbf_stages.h"
#include "methods/projective/projective_stages.h"

namespace pbf {

// The constants of one Projective Fluids substep: its own, and PBF's for
// XSPH viscosity (this method's mass and density kernel volume, no vorticity,
// XSPH blending params.xsph_viscosity per step whatever its length).
struct ProjectiveStepConstants {
  ProjectiveConstants projective;
  PbfConstants viscosity;
};
ProjectiveStepConstants make_projective_step_constants(const SolverConfig& config, const PbfParams& params, float dt);

// The Chebyshev semi-iterative weights (Wang 2015) of a substep's
// local/global iterations, omega for iteration k = 0, 1, ... The first
// kChebyshevPlainIterations run plain (omega = 1): while what touches what
// is still changing from the prediction, extrapolating the iterates' moves
// threw single particles out of their flow at rho near its top (docs/
// PHYSICS.md §7). Then omega = 2 / (2 - rho^2) and omega' = 4 / (4 - rho^2
// omega), tending to 2 / (1 + sqrt(1 - rho^2)). rho = 0 gives omega = 1
// throughout: the paper's plain alternation.
constexpr uint32_t kChebyshevPlainIterations = 6;
class ChebyshevWeights {
 public:
  explicit ChebyshevWeights(float rho) : rho2_(rho * rho) {}
  // The weight of the next iteration.
  float next() {
    if (k_ == kChebyshevPlainIterations) omega_ = 2.0f / (2.0f - rho2_);
    else if (k_ > kChebyshevPlainIterations) omega_ = 4.0f / (4.0f - rho2_ * omega_);
    ++k_;
    return omega_;
  }

 private:
  float rho2_;
  float omega_ = 1.0f;
  uint32_t k_ = 0;
};

// The stages one Projective Fluids substep runs.
struct ProjectiveStageSet {
  ProjectiveStages& projective;
  PbfStages& viscosity;  // PBF's apply_vorticity_viscosity, XSPH only
};

// Records one substep of size c.viscosity.dt: prediction and neighbours as
// in PBF, then params.projective_iterations local/global iterations, the
// global steps weighted by ChebyshevWeights(params.projective_chebyshev_rho),
// which
// the stages end early once the mean compression of the iterate is at most
// params.projective_tolerance (ProjectiveStages::local_step); then
// velocities and XSPH viscosity. Adds the time of each phase to `timing`.
// The global system is diagonal and solved in closed form, so the stages
// take no answer from the backend: the sequence is the same for every
// substep, and a backend may record it.
// `between` (where given) runs after the prediction and after each global
// step (BodySubstep::yield()); a substep with it is not recorded.
void projective_substep(Backend& backend, const ProjectiveStageSet& stages, const StepContext& ctx,
                        const ProjectiveStepConstants& c, const PbfParams& params, StepStats& timing,
                        const std::function<void()>& between = {});

// Adds the iterations the substeps since the last call ran to `stats`, as
// projective_step() does.
void add_projective_tally(Backend& backend, StepStats& stats);

// Runs `substeps` substeps of size c.viscosity.dt, substep k with the
// obstacle poses poses[k * ctx.obstacle_count ...]: recorded and run as one
// unit of work where the backend can (Backend::begin_recording), else stage
// by stage. Adds the time of each phase and the iteration counts to `stats`:
// local_global_iterations and cg_iterations both count the global steps run
// (a closed-form solve is one iteration); cg_residual is 0, the system being
// solved exactly up to float round-off.
void projective_step(Backend& backend, const ProjectiveStageSet& stages, StepContext ctx,
                     const ProjectiveStepConstants& c, const ObstaclePose* poses, uint32_t substeps,
                     const PbfParams& params, StepStats& stats);

}  // namespace pbf
