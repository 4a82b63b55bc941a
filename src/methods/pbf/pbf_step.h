// pbf_step.h - Position Based Fluids (Algorithm 1 of Macklin & Mueller 2013)
// as a sequence of stages, the device's (Backend) and the method's own
// (PbfStages), timed per phase: the method's whole control logic, written
// once for every backend.
#pragma once

#include "backend/backend.h"
#include "methods/pbf/pbf_stages.h"

namespace pbf {

// When the CFL condition asks for more substeps, a step takes at most kMaxAdaptiveSubsteps
// (core/config.h) and at most kMaxAdaptiveSplit times the substeps asked for: where speeds come from
// particles squeezed between walls rather than from the flow, shorter substeps make the collisions'
// pushes faster still, and the split must not make such a step arbitrarily expensive.
constexpr uint32_t kMaxAdaptiveSplit = 32;

// How many equal substeps a step of `dt` seconds takes so that a particle at
// `max_speed`, plus what `gravity` adds in a substep, travels at most
// cfl x spacing per substep: at least `substeps`, at most kMaxAdaptiveSplit x
// `substeps` and kMaxAdaptiveSubsteps, and never so many that a substep is
// shorter than kMinSubstep.
// The count is chosen once per step, from the speeds at its start, so that a
// backend can record the whole step (Backend::begin_recording).
uint32_t pbf_substep_count(float dt, uint32_t substeps, float max_speed, float gravity, float cfl, float spacing);

// Runs one substep with constants `c` (ctx.motion is c's motion) and
// `iterations.least` to `iterations.most` density iterations (the stages end
// them where they meet the tolerance); adds the time of each phase to `timing`.
void pbf_substep(Backend& backend, PbfStages& stages, const StepContext& ctx, const PbfConstants& c,
                 const DensityIterations& iterations, StepStats& timing);

// Runs `substeps` substeps, substep k with the obstacle poses
// poses[k * ctx.obstacle_count ...]: recorded and run as one unit of work
// where the backend can (Backend::begin_recording), else stage by stage.
// Adds the time of each phase to `timing`, and the density iterations run to
// timing.density_iterations.
void pbf_step(Backend& backend, PbfStages& stages, StepContext ctx, const PbfConstants& c, const ObstaclePose* poses,
              uint32_t substeps, const DensityIterations& iterations, StepStats& timing);

}  // namespace pbf
