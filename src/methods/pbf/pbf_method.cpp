#include "methods/pbf/pbf_method.h"

#include <algorithm>
#include <functional>

#include "methods/obstacle_loads.h"
#include "methods/pbf/pbf_equations.h"
#include "methods/pbf/pbf_step.h"

namespace pbf {

PbfMethod::PbfMethod(const SolverConfig& config, Backend& backend)
    : config_(config), backend_(backend), stages_(make_pbf_stages(backend)) {}

float PbfMethod::particle_mass() const { return pbf_particle_mass(config_); }

void PbfMethod::reserve(size_t n, uint32_t obstacles) {
  // A step holds the poses of all its substeps; the CFL split may take up to kMaxAdaptiveSubsteps.
  poses_.reserve(static_cast<size_t>(obstacles) * kMaxAdaptiveSubsteps);
  stages_->reserve(n);
}

void PbfMethod::step(const StepRequest& step, StepStats& s) {
  const PbfParams& params = *step.params;
  const DensityIterations iterations = density_iterations(params);
  s.iterations = iterations.most;
  uint32_t substeps = step.substeps;
  const bool particles = backend_.size() > 0;
  if (particles && params.adaptive_dt) {
    StepStats now;
    backend_.measure(now);
    // How fast this water compresses under its sweeps (measured where the step before ran the most
    // it could), and the substeps that keep it within the limit.
    s.compression_rate = pbf_compression_rate(*step.last, now.avg_density_error);
    // Water no step has measured (most particles added since the last step with particles: all of them on
    // a solver's first) takes at least the substeps that would hold confined water as deep as its
    // particles reach (not kept: the next step measures what this one left).
    const bool unmeasured = 2 * step.unmeasured > backend_.size();
    const float rate =
        unmeasured ? std::max(s.compression_rate, pbf_first_step_rate(now, params.gravity, config_.particle_spacing))
                   : s.compression_rate;
    const float limit = std::max(kCompressionLimit, params.density_tolerance);
    const double compressed = pbf_compression_substeps(step.dt, rate, iterations.most, step.last->substeps, limit);
    substeps = pbf_substep_count(step.dt, substeps, now.max_speed, length(params.gravity), params.cfl_number,
                                 config_.particle_spacing, compressed);
  }
  s.substeps = substeps;
  s.min_substep_dt = s.max_substep_dt = step.dt / static_cast<float>(substeps);
  const size_t count = step.obstacles->count();
  ObstacleLoadTally loads(count);
  const bool bodies = count > 0 && step.obstacles->responds();
  if (!particles) {
    if (bodies) advance_bodies_without_water(*step.obstacles, substeps, step.dt, poses_);
    loads.finish(step.dt, step.loads);
    return;
  }
  const PbfConstants c = make_pbf_constants(config_, params, step.dt / static_cast<float>(substeps));
  if (bodies) {
    // Dynamic bodies: substep by substep, stage by stage, each body yielding to the water between the
    // iterations as its part of the joint solve with the density constraints that pushed it, the water
    // giving back what the body's motion took over (BodySubstep).
    poses_.resize(count);
    StepContext ctx = step.ctx;
    ctx.motion = c;
    ctx.obstacle_poses = poses_.data();
    ctx.bodies_couple = true;
    const auto relieve = [&](const BodyYield* before, const BodyYield* moved) {
      stages_->relieve_body_yields(ctx, c, before, moved);
    };
    for (uint32_t k = 0; k < substeps; ++k) {
      step.obstacles->advance(float(k) / float(substeps), float(k + 1) / float(substeps), c.dt, poses_.data());
      // By reference: a std::function holding the lambda itself would allocate.
      BodySubstep body(backend_, *step.obstacles, loads, ctx, poses_.data(), c.mass, c.dt, std::cref(relieve));
      pbf_substep(backend_, *stages_, ctx, c, iterations, s, [&body] { body.yield(); });
      s.density_iterations += backend_.iteration_tally().iterations;
      body.respond();
    }
  } else {
    // Every substep's poses at once, so that a backend can record the whole step.
    poses_.resize(count * substeps);
    for (uint32_t k = 0; k < substeps; ++k)
      step.obstacles->between(float(k) / float(substeps), float(k + 1) / float(substeps),
                              poses_.data() + k * count);
    pbf_step(backend_, *stages_, step.ctx, c, poses_.data(), substeps, iterations, s);
    loads.take(backend_, c.mass, c.dt, nullptr);
  }
  loads.finish(step.dt, step.loads);
}

void PbfMethod::update_densities(const PbfParams& params, StepContext ctx) {
  PbfParams p = params;
  p.gravity = Vec3{0.0f, 0.0f, 0.0f};
  const PbfConstants c = make_pbf_constants(config_, p, 1.0f / 240.0f);  // any valid step: nothing moves
  ctx.motion = c;
  backend_.predict(ctx);
  backend_.build_grid(ctx);
  backend_.find_neighbors(ctx);
  stages_->update_velocities(ctx, c);
  ObstacleLoadTally(ctx.obstacle_count).take(backend_, c.mass, c.dt, nullptr);  // nothing moved: no load
}

}  // namespace pbf
