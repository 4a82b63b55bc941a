#include "methods/projective/projective_method.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "methods/obstacle_loads.h"
#include "methods/projective/projective_equations.h"
#include "methods/projective/projective_step.h"

namespace pbf {

ProjectiveMethod::ProjectiveMethod(const SolverConfig& config, Backend& backend)
    : config_(config),
      backend_(backend),
      mass_(projective_particle_mass(config)),
      stages_(make_projective_stages(backend)),
      viscosity_(make_pbf_stages(backend)) {}

float ProjectiveMethod::min_substep() const {
  const double inertial = std::sqrt(double(mass_) * config_.particle_spacing / kMaxProjectiveInertialForce);
  return std::max(kMinSubstep, static_cast<float>(inertial * (1.0 + 1e-6)));  // rounded up
}

void ProjectiveMethod::reserve(size_t n, uint32_t obstacles) {
  // Without adaptive_dt a step holds the poses of all its substeps (at most kMaxAdaptiveSubsteps).
  poses_.reserve(static_cast<size_t>(obstacles) * kMaxAdaptiveSubsteps);
  stages_->reserve(n);
  viscosity_->reserve(n);
}

// Without adaptive_dt and dynamic bodies the steps are known in advance and
// run as one projective_step() (one recording on CUDA); otherwise each step
// is one, since the next one's size waits for the speeds this one leaves, or
// a body's next pose for the water's impulses in this one. Obstacles move a
// fraction of the way per step, as in PBF.
void ProjectiveMethod::step(const StepRequest& step, StepStats& s) {
  const PbfParams& params = *step.params;
  s.iterations = params.projective_iterations;
  uint32_t steps = 0;
  const auto count_steps = [&](uint32_t n, float step_dt) {
    s.min_substep_dt = steps == 0 ? step_dt : std::min(s.min_substep_dt, step_dt);
    s.max_substep_dt = std::max(s.max_substep_dt, step_dt);
    steps += n;
  };
  const ProjectiveStageSet stages{*stages_, *viscosity_};
  const uint32_t substeps = step.substeps;
  const double interval = static_cast<double>(step.dt) / substeps;
  const size_t count = step.obstacles->count();
  ObstacleLoadTally loads(count);
  const bool bodies = count > 0 && step.obstacles->responds();
  s.substeps = substeps;
  if (backend_.size() == 0) {
    if (bodies) advance_bodies_without_water(*step.obstacles, substeps, step.dt, poses_);
    loads.finish(step.dt, step.loads);
    return;
  }
  if (!params.adaptive_dt && !bodies) {
    poses_.resize(count * substeps);
    for (uint32_t k = 0; k < substeps; ++k)
      step.obstacles->between(static_cast<float>(double(k) / substeps), static_cast<float>((k + 1.0) / substeps),
                              poses_.data() + k * count);
    const float h = static_cast<float>(interval);
    projective_step(backend_, stages, step.ctx, make_projective_step_constants(config_, params, h), poses_.data(),
                    substeps, params, s);
    loads.take(backend_, mass_, h, nullptr);
    count_steps(substeps, h);
  } else {
    poses_.resize(count);
    const float gravity = length(params.gravity);
    // PBF's bound on the whole step, whatever the speeds (core/config.h), shared by its substeps; one step a
    // substep without adaptive_dt.
    const uint32_t most = std::max(1u, max_adaptive_substeps(substeps) / substeps);
    for (uint32_t k = 0; k < substeps; ++k) {
      double used = 0.0;
      for (uint32_t piece = 0; used < interval; ++piece) {
        double h = interval - used;
        if (params.adaptive_dt && piece + 1 < most) {
          StepStats now;
          backend_.measure(now);
          const float speed = now.max_speed + gravity * params.max_dt;
          const double limit = std::max(
              {static_cast<double>(cfl_time_step(params.cfl_number, config_.particle_spacing, speed, params.max_dt)),
               interval / most, static_cast<double>(min_substep())});
          // (The division at the bound itself may round above the count it gives.)
          if (h > limit) h = (interval - used) / std::ceil((interval - used) / limit - 1e-9);
        }
        const float s0 = static_cast<float>((k + used / interval) / substeps);
        used = (h == interval - used) ? interval : used + h;
        const float s1 = static_cast<float>((k + used / interval) / substeps);
        const float piece_dt = static_cast<float>(h);
        const ProjectiveStepConstants c = make_projective_step_constants(config_, params, piece_dt);
        if (bodies) {
          // Stage by stage, each body yielding to the water between the iterations as its part of the joint
          // solve with the constraints that pushed it, the water giving back what the body's motion took over
          // (BodySubstep).
          step.obstacles->advance(s0, s1, piece_dt, poses_.data());
          StepContext ctx = step.ctx;
          ctx.motion = c.viscosity;
          ctx.obstacle_poses = poses_.data();
          ctx.bodies_couple = true;
          const auto relieve = [&](const BodyYield* before, const BodyYield* moved) {
            stages_->relieve_body_yields(ctx, c.projective, before, moved);
          };
          // By reference: a std::function holding the lambda itself would allocate.
          BodySubstep body(backend_, *step.obstacles, loads, ctx, poses_.data(), mass_, piece_dt, std::cref(relieve));
          projective_substep(backend_, stages, ctx, c, params, s, [&body] { body.yield(); });
          add_projective_tally(backend_, s);
          body.respond();
        } else {
          step.obstacles->between(s0, s1, poses_.data());
          projective_step(backend_, stages, step.ctx, c, poses_.data(), 1, params, s);
          loads.take(backend_, mass_, piece_dt, nullptr);
        }
        count_steps(1, piece_dt);
      }
    }
  }
  s.substeps = steps;
  loads.finish(step.dt, step.loads);
}

void ProjectiveMethod::update_densities(const PbfParams& params, StepContext ctx) {
  PbfParams p = params;
  p.gravity = Vec3{0.0f, 0.0f, 0.0f};
  const ProjectiveStepConstants c = make_projective_step_constants(config_, p, 1.0f / 240.0f);  // nothing moves
  ctx.motion = c.viscosity;
  backend_.predict(ctx);
  backend_.build_grid(ctx);
  backend_.find_neighbors(ctx);
  stages_->begin(ctx, c.projective);
  stages_->update_velocities(ctx, c.projective);
  ObstacleLoadTally(ctx.obstacle_count).take(backend_, mass_, 1.0f / 240.0f, nullptr);  // nothing moved: no load
}

}  // namespace pbf
