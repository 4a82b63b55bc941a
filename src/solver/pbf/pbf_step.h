// pbf_step.h - one substep of Position Based Fluids (Algorithm 1 of Macklin &
// Mueller 2013) as a sequence of backend stages, timed per phase.
#pragma once

#include "backend/backend.h"

namespace pbf {

// Runs one substep; adds the time of each phase to `timing`.
void pbf_substep(Backend& backend, const StepContext& ctx, uint32_t iterations, StepStats& timing);

}  // namespace pbf
