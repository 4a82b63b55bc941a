// pbf_step.h - Position Based Fluids (Algorithm 1 of Macklin & Mueller 2013)
// as a sequence of backend stages, timed per phase.
#pragma once

#include "backend/backend.h"

namespace pbf {

// Runs one substep; adds the time of each phase to `timing`.
void pbf_substep(Backend& backend, const StepContext& ctx, uint32_t iterations, StepStats& timing);

// Runs `substeps` substeps, substep k with the obstacle poses
// poses[k * ctx.obstacle_count ...]: recorded and run as one unit of work
// where the backend can (Backend::begin_recording), else stage by stage.
// Adds the time of each phase to `timing`.
void pbf_step(Backend& backend, StepContext ctx, const ObstaclePose* poses, uint32_t substeps, uint32_t iterations,
              StepStats& timing);

}  // namespace pbf
