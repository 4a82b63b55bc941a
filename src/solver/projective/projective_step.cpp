#include "solver/projective/projective_step.h"

#include "solver/phase_timer.h"

namespace pbf {

void projective_substep(Backend& backend, const StepContext& ctx, const PbfParams& params, StepStats& stats) {
  {
    PhaseTimer t(stats.time_predict_ms);
    backend.predict(ctx);  // s = x + dt v + dt^2 g (eq. 2), kept out of walls
  }
  {
    PhaseTimer t(stats.time_grid_ms);
    backend.build_grid(ctx);
  }
  {
    PhaseTimer t(stats.time_neighbors_ms);
    backend.find_neighbors(ctx);
  }
  {
    PhaseTimer t(stats.time_constraints_ms);
    backend.projective_begin(ctx);
    // Chebyshev semi-iterative weights (Wang 2015): omega_1 = 1,
    // omega_2 = 2 / (2 - rho^2), omega_k+1 = 4 / (4 - rho^2 omega_k).
    const float rho2 = params.projective_chebyshev_rho * params.projective_chebyshev_rho;
    float omega = 1.0f;
    for (uint32_t k = 0; k < params.projective_iterations; ++k) {
      if (k == 1) omega = 2.0f / (2.0f - rho2);
      else if (k > 1) omega = 4.0f / (4.0f - rho2 * omega);
      float largest = 0.0f;
      const float mean = backend.projective_local_step(ctx, &largest);
      if (mean <= params.projective_tolerance) break;
      uint32_t cg_iterations = 0;
      float residual = 0.0f;
      backend.projective_global_step(ctx, params.cg_max_iterations, params.cg_tolerance, omega, &cg_iterations,
                                     &residual);
      stats.local_global_iterations += 1;
      stats.cg_iterations += cg_iterations;
      stats.cg_residual = residual;
    }
  }
  {
    PhaseTimer t(stats.time_velocity_ms);
    backend.projective_update_velocities(ctx);
  }
  {
    PhaseTimer t(stats.time_vorticity_viscosity_ms);
    backend.apply_vorticity_viscosity(ctx);  // XSPH only: ctx.constants.vorticity is 0 for this method
  }
}

}  // namespace pbf
