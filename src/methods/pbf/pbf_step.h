// pbf_step.h - Position Based Fluids (Algorithm 1 of Macklin & Mueller 2013)
// as a sequence of stages, the device's (Backend) and the method's own
// (PbfStages), timed per phase: the method's whole control logic, written
// once for every backend.
#pragma once

#include <functional>

#include "backend/backend.h"
#include "methods/pbf/pbf_stages.h"

namespace pbf {

// The mean compression a PBF step may leave before adaptive_dt splits it more finely
// (pbf_compression_substeps), unless params.density_tolerance accepts more.
constexpr float kCompressionLimit = 0.01f;

// How long an estimate of the compression rate lasts without a new measure [s].
constexpr float kCompressionRateMemory = 1.0f;

// Water too deep for its density sweeps compresses: a substep of dt with N
// sweeps leaves a mean compression of about rate x dt^2 / N (docs/PHYSICS.md
// §9). The rate a step keeps (StepStats::compression_rate), from `last`, the
// step before's statistics, and `mean_now`, the mean compression its last
// substep left: where every substep of it ran the most sweeps it could, its
// measure mean_now x N / dt^2; the rate `last` kept, decayed by exp(-t /
// kCompressionRateMemory) over that step's t seconds; the larger of the two.
float pbf_compression_rate(const StepStats& last, float mean_now);

// Confined water of depth H at spacing s compresses at a rate of about
// kConfinedCompression x g H / s^2 under gravity g (docs/PHYSICS.md §9, "How
// deep water compresses"); water with a free side compresses less.
constexpr float kConfinedCompression = 0.3f;

// The rate that water no step has measured yet assumes (a solver's first
// step with particles, or one where most particles are new since the last):
// confined water as deep as `now`'s particles reach along `gravity` (their
// bounding box's extent along it, plus a spacing for the particles' own
// extent), an upper bound for water at rest, 0 without gravity or particles.
// A run starts from water at rest, where the CFL condition sees no speed,
// and a step of a long frame (a tenth of a second from rest) left a wide
// column 2-4 % compressed on average, which sprang back at three times its
// free-fall speed.
float pbf_first_step_rate(const StepStats& now, Vec3 gravity, float spacing);

// The fewest substeps of a step of `dt` with `sweeps` sweeps each that leave a
// mean compression within `limit` at `rate`; fewer than `last_substeps` (the
// step before's count) only where the fewer leave at most half the limit, so
// that a step does not go back and forth between a count that holds the water
// and one that barely does. At least 1; 1 at rate 0.
double pbf_compression_substeps(float dt, float rate, uint32_t sweeps, uint32_t last_substeps, float limit);

// How many equal substeps a step of `dt` seconds takes so that a particle at
// `max_speed`, plus what `gravity` adds in a substep, travels at most
// cfl x spacing per substep, and at least `compressed` (pbf_compression_substeps):
// at least `substeps`, at most kMaxAdaptiveSplit x `substeps` and
// kMaxAdaptiveSubsteps, and never so many that a substep is shorter than kMinSubstep.
// The count is chosen once per step, from the speeds and densities at its start, so that a
// backend can record the whole step (Backend::begin_recording).
uint32_t pbf_substep_count(float dt, uint32_t substeps, float max_speed, float gravity, float cfl, float spacing,
                           double compressed = 1.0);

// Runs one substep with constants `c` (ctx.motion is c's motion) and
// `iterations.least` to `iterations.most` density iterations (the stages end
// them where they meet the tolerance); adds the time of each phase to `timing`.
// `between` (where given) runs after the prediction and after each density
// iteration (BodySubstep::yield()); a substep with it is not recorded.
void pbf_substep(Backend& backend, PbfStages& stages, const StepContext& ctx, const PbfConstants& c,
                 const DensityIterations& iterations, StepStats& timing, const std::function<void()>& between = {});

// Runs `substeps` substeps, substep k with the obstacle poses
// poses[k * ctx.obstacle_count ...]: recorded and run as one unit of work
// where the backend can (Backend::begin_recording), else stage by stage.
// Adds the time of each phase to `timing`, and the density iterations run to
// timing.density_iterations.
void pbf_step(Backend& backend, PbfStages& stages, StepContext ctx, const PbfConstants& c, const ObstaclePose* poses,
              uint32_t substeps, const DensityIterations& iterations, StepStats& timing);

}  // namespace pbf
