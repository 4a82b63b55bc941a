#include "solver/projective/projective_step.h"

#include "core/error.h"
#include "solver/phase_timer.h"
#include "solver/recorded_step.h"

namespace pbf {

void projective_substep(Backend& backend, const StepContext& ctx, const PbfParams& params, StepStats& timing) {
  {
    PhaseTimer t(timing.time_predict_ms);
    backend.predict(ctx);  // s = x + dt v + dt^2 g (eq. 2), kept out of walls
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
    backend.projective_begin(ctx);
    // Chebyshev semi-iterative weights (Wang 2015): omega_1 = 1,
    // omega_2 = 2 / (2 - rho^2), omega_k+1 = 4 / (4 - rho^2 omega_k).
    const float rho2 = params.projective_chebyshev_rho * params.projective_chebyshev_rho;
    float omega = 1.0f;
    for (uint32_t k = 0; k < params.projective_iterations; ++k) {
      if (k == 1) omega = 2.0f / (2.0f - rho2);
      else if (k > 1) omega = 4.0f / (4.0f - rho2 * omega);
      backend.projective_local_step(ctx, params.projective_tolerance);
      backend.projective_global_step(ctx, omega);
    }
  }
  {
    PhaseTimer t(timing.time_velocity_ms);
    backend.projective_update_velocities(ctx);
  }
  {
    PhaseTimer t(timing.time_vorticity_viscosity_ms);
    backend.apply_vorticity_viscosity(ctx);  // XSPH only: ctx.constants.vorticity is 0 for this method
  }
}

namespace {

void run_substeps(Backend& backend, StepContext ctx, const ObstaclePose* poses, uint32_t substeps,
                  const PbfParams& params, StepStats& timing) {
  for (uint32_t k = 0; k < substeps; ++k) {
    ctx.obstacle_poses = poses + static_cast<size_t>(k) * ctx.obstacle_count;
    projective_substep(backend, ctx, params, timing);
  }
}

}  // namespace

void projective_step(Backend& backend, StepContext ctx, const ObstaclePose* poses, uint32_t substeps,
                     const PbfParams& params, StepStats& stats) {
  run_recorded(backend, ctx, poses, substeps, stats,
               [&](StepStats& s) { run_substeps(backend, ctx, poses, substeps, params, s); });
  const IterationTally tally = backend.iteration_tally();
  stats.local_global_iterations += tally.iterations;
  stats.density_iterations += tally.iterations;
  stats.cg_iterations += tally.iterations;
  stats.cg_residual = 0.0f;
}

}  // namespace pbf
