#include "methods/projective/projective_step.h"

#include "core/error.h"
#include "methods/phase_timer.h"
#include "methods/recorded_step.h"

namespace pbf {

ProjectiveStepConstants make_projective_step_constants(const SolverConfig& config, const PbfParams& params, float dt) {
  ProjectiveStepConstants c;
  c.projective = make_projective_constants(config, params, dt);
  c.viscosity = make_pbf_constants(config, params, dt);
  c.viscosity.mass = c.projective.mass;
  c.viscosity.mass_over_rho0 = c.projective.mass_over_rho0;
  c.viscosity.vorticity = 0.0f;  // vorticity confinement belongs to PBF
  // Its settling is measured with XSPH blending c per step, whatever the step's length.
  c.viscosity.xsph = params.xsph_viscosity;
  return c;
}

void projective_substep(Backend& backend, const ProjectiveStageSet& stages, const StepContext& ctx,
                        const ProjectiveStepConstants& c, const PbfParams& params, StepStats& timing,
                        const std::function<void()>& between) {
  {
    PhaseTimer t(timing.time_predict_ms);
    backend.predict(ctx);  // s = x + dt v + dt^2 g (eq. 2), kept out of walls
    if (between) between();
  }
  {
    PhaseTimer t(timing.time_grid_ms);
    backend.build_grid(ctx);
  }
  {
    PhaseTimer t(timing.time_neighbors_ms);
    backend.find_neighbors(ctx);
  }
  {
    PhaseTimer t(timing.time_constraints_ms);
    stages.projective.begin(ctx, c.projective);
    ChebyshevWeights weights(params.projective_chebyshev_rho);
    for (uint32_t k = 0; k < params.projective_iterations; ++k) {
      stages.projective.local_step(ctx, c.projective, params.projective_tolerance);
      stages.projective.global_step(ctx, c.projective, weights.next());
      if (between) between();
    }
  }
  {
    PhaseTimer t(timing.time_velocity_ms);
    stages.projective.update_velocities(ctx, c.projective);
  }
  {
    PhaseTimer t(timing.time_vorticity_viscosity_ms);
    stages.viscosity.apply_vorticity_viscosity(ctx, c.viscosity);  // XSPH only: no vorticity
  }
}

namespace {

void run_substeps(Backend& backend, const ProjectiveStageSet& stages, StepContext ctx,
                  const ProjectiveStepConstants& c, const ObstaclePose* poses, uint32_t substeps,
                  const PbfParams& params, StepStats& timing) {
  for (uint32_t k = 0; k < substeps; ++k) {
    ctx.obstacle_poses = poses + static_cast<size_t>(k) * ctx.obstacle_count;
    projective_substep(backend, stages, ctx, c, params, timing);
  }
}

}  // namespace

void projective_step(Backend& backend, const ProjectiveStageSet& stages, StepContext ctx,
                     const ProjectiveStepConstants& c, const ObstaclePose* poses, uint32_t substeps,
                     const PbfParams& params, StepStats& stats) {
  ctx.motion = c.viscosity;
  run_recorded(backend, ctx, poses, substeps, stats,
               [&](StepStats& s) { run_substeps(backend, stages, ctx, c, poses, substeps, params, s); });
  add_projective_tally(backend, stats);
}

void add_projective_tally(Backend& backend, StepStats& stats) {
  const IterationTally tally = backend.iteration_tally();
  stats.local_global_iterations += tally.iterations;
  stats.density_iterations += tally.iterations;
  stats.cg_iterations += tally.iterations;
  stats.cg_residual = 0.0f;
}

}  // namespace pbf
