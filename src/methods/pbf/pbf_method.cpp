#include "methods/pbf/pbf_method.h"

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
    substeps = pbf_substep_count(step.dt, substeps, now.max_speed, length(params.gravity), params.cfl_number,
                                 config_.particle_spacing);
  }
  s.substeps = substeps;
  s.min_substep_dt = s.max_substep_dt = step.dt / static_cast<float>(substeps);
  const size_t count = step.obstacles->count();
  for (size_t k = 0; k < count; ++k) step.loads[k] = ObstacleLoad{};
  if (!particles) {
    // Dynamic bodies still fall (and meet walls) without water to push them.
    if (count > 0 && step.obstacles->responds()) {
      poses_.resize(count);
      const ObstacleImpulse none[kMaxObstacles] = {};
      for (uint32_t k = 0; k < substeps; ++k) {
        step.obstacles->advance(float(k) / float(substeps), float(k + 1) / float(substeps),
                                step.dt / static_cast<float>(substeps), poses_.data());
        step.obstacles->respond(none);
      }
    }
    return;
  }
  const PbfConstants c = make_pbf_constants(config_, params, step.dt / static_cast<float>(substeps));
  // A particle of mass m displaced by d in a substep got the impulse m d / dt
  // from the obstacle; the obstacle got the opposite.
  const double to_impulse = -static_cast<double>(c.mass) / static_cast<double>(c.dt);
  ObstacleImpulse total[kMaxObstacles] = {};
  const auto add_pushes = [&](ObstacleImpulse* out) {
    backend_.take_obstacle_pushes(pushes_, static_cast<uint32_t>(count));
    for (size_t k = 0; k < count; ++k)
      for (int a = 0; a < 3; ++a) {
        out[k].impulse[a] = pushes_[k].d[a] * to_impulse;
        out[k].moment[a] = pushes_[k].moment[a] * to_impulse;
        total[k].impulse[a] += out[k].impulse[a];
        total[k].moment[a] += out[k].moment[a];
      }
  };
  if (count > 0 && step.obstacles->responds()) {
    // Dynamic bodies: substep by substep, each moved by the water's impulses of the one before.
    poses_.resize(count);
    ObstacleImpulse impulses[kMaxObstacles];
    for (uint32_t k = 0; k < substeps; ++k) {
      step.obstacles->advance(float(k) / float(substeps), float(k + 1) / float(substeps), c.dt, poses_.data());
      pbf_step(backend_, *stages_, step.ctx, c, poses_.data(), 1, iterations, s);
      add_pushes(impulses);
      step.obstacles->respond(impulses);
    }
  } else {
    // Every substep's poses at once, so that a backend can record the whole step.
    poses_.resize(count * substeps);
    for (uint32_t k = 0; k < substeps; ++k)
      step.obstacles->between(float(k) / float(substeps), float(k + 1) / float(substeps),
                              poses_.data() + k * count);
    pbf_step(backend_, *stages_, step.ctx, c, poses_.data(), substeps, iterations, s);
    if (count == 0) return;
    ObstacleImpulse ignored[kMaxObstacles];
    add_pushes(ignored);
  }
  // + 0.0: an untouched obstacle's sums give +0, not -0.
  const double per_second = 1.0 / static_cast<double>(step.dt);
  const auto scaled = [per_second](const double v[3]) {
    return Vec3{float(v[0] * per_second + 0.0), float(v[1] * per_second + 0.0), float(v[2] * per_second + 0.0)};
  };
  for (size_t k = 0; k < count; ++k) {
    step.loads[k].force = scaled(total[k].impulse);
    step.loads[k].moment = scaled(total[k].moment);
  }
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
  if (ctx.obstacle_count > 0) backend_.take_obstacle_pushes(pushes_, ctx.obstacle_count);  // nothing moved: no load
}

}  // namespace pbf
