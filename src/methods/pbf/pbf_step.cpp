#include "methods/pbf/pbf_step.h"

#include <algorithm>
#include <cmath>

#include "core/config.h"
#include "core/error.h"
#include "methods/phase_timer.h"
#include "methods/recorded_step.h"

namespace pbf {

float pbf_compression_rate(const StepStats& last, float mean_now) {
  if (last.substeps == 0 || !(last.max_substep_dt > 0.0f)) return 0.0f;
  const double dt = last.max_substep_dt;
  const double elapsed = dt * last.substeps;
  const double kept = static_cast<double>(last.compression_rate) * std::exp(-elapsed / kCompressionRateMemory);
  const bool at_most = last.iterations > 0 && last.density_iterations >= last.substeps * last.iterations;
  const double measured = at_most ? static_cast<double>(mean_now) * last.iterations / (dt * dt) : 0.0;
  const double rate = std::max(kept, measured);
  return std::isfinite(rate) ? static_cast<float>(rate) : 0.0f;
}

float pbf_first_step_rate(const StepStats& now, Vec3 gravity, float spacing) {
  const double g = length(gravity);
  if (now.particle_count == 0 || !(g > 0.0) || !(spacing > 0.0f)) return 0.0f;
  const Vec3 extent = now.upper - now.lower;
  const double depth =
      (std::fabs(gravity.x) * extent.x + std::fabs(gravity.y) * extent.y + std::fabs(gravity.z) * extent.z) / g +
      spacing;
  const double rate = kConfinedCompression * g * depth / (double(spacing) * spacing);
  return std::isfinite(rate) ? static_cast<float>(rate) : 0.0f;
}

double pbf_compression_substeps(float dt, float rate, uint32_t sweeps, uint32_t last_substeps, float limit) {
  if (!(rate > 0.0f) || !(limit > 0.0f) || !(dt > 0.0f) || sweeps == 0) return 1.0;
  // rate x (dt / n)^2 / sweeps <= limit  <=>  n >= dt sqrt(rate / (sweeps x limit)).
  const double least = static_cast<double>(dt) * std::sqrt(static_cast<double>(rate) / (double(sweeps) * limit));
  const double up = std::ceil(least - 1e-9);                 // leaves the limit
  const double down = std::ceil(least * std::sqrt(2.0) - 1e-9);  // leaves half of it
  return std::max(1.0, std::min(std::max(static_cast<double>(last_substeps), up), down));
}

uint32_t pbf_substep_count(float dt, uint32_t substeps, float max_speed, float gravity, float cfl, float spacing,
                           double compressed) {
  uint32_t n = substeps > 0 ? substeps : 1;
  if (!(dt > 0.0f)) return n;
  // Never below the shortest substep the API accepts (core/config.h).
  const double most =
      std::min(static_cast<double>(max_adaptive_substeps(n)), std::floor(static_cast<double>(dt) / kMinSubstep));
  compressed = std::min(most, compressed);
  if (compressed > n) n = static_cast<uint32_t>(compressed);
  if (!(cfl > 0.0f) || !(spacing > 0.0f)) return n;
  const double reach = static_cast<double>(cfl) * spacing;
  for (; n < most; ++n) {
    const double h = static_cast<double>(dt) / n;
    // The substep's speed at its end: gravity acts on it the whole substep.
    if ((static_cast<double>(max_speed) + static_cast<double>(gravity) * h) * h <= reach) break;
  }
  return n;
}

void pbf_substep(Backend& backend, PbfStages& stages, const StepContext& ctx, const PbfConstants& c,
                 const DensityIterations& iterations, StepStats& timing, const std::function<void()>& between) {
  {
    PhaseTimer t(timing.time_predict_ms);
    backend.predict(ctx);
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
    // The last required iteration measures whether the substep needs more (PbfStages::solve_density).
    // Artificial pressure acts in the required iterations only: it is scaled to push as hard per
    // substep as in the paper's 4 iterations (artificial_pressure_step_factor()), and the iterations
    // the tolerance adds would push again and again, the more the more compressed the substep.
    PbfConstants without_scorr = c;
    without_scorr.scorr_scale = 0.0f;
    for (uint32_t k = 0; k < iterations.most; ++k) {
      stages.solve_density(ctx, k < iterations.least ? c : without_scorr,
                           k + 1 < iterations.least ? -1.0f : iterations.tolerance);
      if (between) between();
    }
  }
  {
    PhaseTimer t(timing.time_velocity_ms);
    stages.update_velocities(ctx, c);
  }
  {
    PhaseTimer t(timing.time_vorticity_viscosity_ms);
    stages.apply_vorticity_viscosity(ctx, c);
  }
}

namespace {

void run_substeps(Backend& backend, PbfStages& stages, StepContext ctx, const PbfConstants& c,
                  const ObstaclePose* poses, uint32_t substeps, const DensityIterations& iterations,
                  StepStats& timing) {
  for (uint32_t k = 0; k < substeps; ++k) {
    ctx.obstacle_poses = poses + static_cast<size_t>(k) * ctx.obstacle_count;
    pbf_substep(backend, stages, ctx, c, iterations, timing);
  }
}

}  // namespace

void pbf_step(Backend& backend, PbfStages& stages, StepContext ctx, const PbfConstants& c, const ObstaclePose* poses,
              uint32_t substeps, const DensityIterations& iterations, StepStats& timing) {
  ctx.motion = c;
  run_recorded(backend, ctx, poses, substeps, timing,
               [&](StepStats& s) { run_substeps(backend, stages, ctx, c, poses, substeps, iterations, s); });
  timing.density_iterations += backend.iteration_tally().iterations;
}

}  // namespace pbf
