// projective_step.h - one substep of Projective Fluids (Weiler, Koschier &
// Bender 2016) as a sequence of backend stages, timed per phase.
#pragma once

#include "backend/backend.h"

namespace pbf {

// Runs one substep of size ctx.constants.dt: prediction and neighbours as in
// PBF, then up to params.projective_iterations local/global iterations,
// stopping early once the mean compression of the iterate is at most
// params.projective_tolerance; then velocities and XSPH viscosity. Adds the
// time of each phase and the iteration counts to `stats`.
void projective_substep(Backend& backend, const StepContext& ctx, const PbfParams& params, StepStats& stats);

}  // namespace pbf
