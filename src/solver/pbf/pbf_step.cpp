#include "solver/pbf/pbf_step.h"

#include "solver/phase_timer.h"

namespace pbf {

void pbf_substep(Backend& backend, const StepContext& ctx, uint32_t iterations, StepStats& timing) {
  {
    PhaseTimer t(timing.time_predict_ms);
    backend.predict(ctx);
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
    for (uint32_t k = 0; k < iterations; ++k) backend.solve_density(ctx);
  }
  {
    PhaseTimer t(timing.time_velocity_ms);
    backend.update_velocities(ctx);
  }
  {
    PhaseTimer t(timing.time_vorticity_viscosity_ms);
    backend.apply_vorticity_viscosity(ctx);
  }
}

}  // namespace pbf
