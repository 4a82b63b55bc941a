// projective_step.h - Projective Fluids (Weiler, Koschier & Bender 2016) as
// a sequence of backend stages, timed per phase: the method's whole control
// logic, written once for every backend.
#pragma once

#include "backend/backend.h"

namespace pbf {

// Records one substep of size ctx.constants.dt: prediction and neighbours as
// in PBF, then params.projective_iterations local/global iterations, which
// the backend ends early once the mean compression of the iterate is at most
// params.projective_tolerance (Backend::projective_local_step); then
// velocities and XSPH viscosity. Adds the time of each phase to `timing`.
// The global system is diagonal and solved in closed form, so the stages
// take no answer from the backend: the sequence is the same for every
// substep, and a backend may record it.
void projective_substep(Backend& backend, const StepContext& ctx, const PbfParams& params, StepStats& timing);

// Runs `substeps` substeps of size ctx.constants.dt, substep k with the
// obstacle poses poses[k * ctx.obstacle_count ...]: recorded and run as one
// unit of work where the backend can (Backend::begin_recording), else stage
// by stage. Adds the time of each phase and the iteration counts to `stats`:
// local_global_iterations and cg_iterations both count the global steps run
// (a closed-form solve is one iteration); cg_residual is 0, the system being
// solved exactly up to float round-off.
void projective_step(Backend& backend, StepContext ctx, const ObstaclePose* poses, uint32_t substeps,
                     const PbfParams& params, StepStats& stats);

}  // namespace pbf
