// method.h - what the solver drives: a simulation method (PBF, Projective
// Fluids). A method owns its constants (derived from the parameters), its
// stage sequence (methods/<method>/<method>_step.h) and its stages on each
// backend (methods/<method>/<backend>/); it runs them on a device (Backend),
// which knows no method. Adding a method is a folder beside pbf/ and
// projective/ plus one line in create_method().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "backend/backend.h"
#include "core/config.h"

namespace pbf {

// What the water gave one obstacle in one substep: the impulse [N s] and its
// moment about the world's origin [N m s], world axes; and the added mass of
// the water whose density constraints gave it (ObstaclePush::added scaled
// to kg, kg m and kg m^2 about the world's origin), summed over them.
struct ObstacleImpulse {
  double impulse[3];
  double moment[3];
  double added[kSymmetric6];
};

// Where the solver's obstacles are during a step. Kinematic obstacles follow
// the user's placements; dynamic ones (src/rigid/) move with the water, so
// their poses in a substep depend on the water's impulses in the substeps
// before. A method runs the substeps (or pieces) of such a step one at a
// time, asking advance() for each in order and telling respond() what the
// water did in it; other steps ask between().
class ObstaclePath {
 public:
  virtual uint32_t count() const = 0;
  // Each obstacle's pose at the fractions s0 and s1 of the step (its start
  // and end); dynamic bodies stay where they are.
  virtual void between(float s0, float s1, ObstaclePose* out) const = 0;
  // Whether an obstacle moves with the water (and the substeps must run one at a time).
  virtual bool responds() const = 0;
  // Each obstacle's pose through the next substep, from fraction s0 to s1 of
  // the step, h seconds: kinematic ones as between(), dynamic bodies moved
  // through it by their velocities, gravity and contacts.
  virtual void advance(float s0, float s1, float h, ObstaclePose* out) = 0;
  // Within the substep of the last advance(), between the water's
  // iterations: the dynamic bodies moved as far as `impulses` (what the water
  // gave each obstacle since the last yield, with the water's added mass)
  // carry them over the substep (rigid_yield()), their end poses in `out`
  // (advance()'s) changed to match and how far they moved in `moved` (zero
  // for the others); their velocities change in respond(). With `again`,
  // another round of the same yield: `impulses` are all the water gave since
  // its first round, `moved` the total of the rounds. Returns the longest
  // way a body moved in this round [m] (translation plus its reach turned).
  virtual double yield(const ObstacleImpulse* impulses, ObstaclePose* out, BodyYield* moved, bool again) = 0;
  // What the water gave each obstacle (count() of them) in the substep of the last advance().
  virtual void respond(const ObstacleImpulse* impulses) = 0;

 protected:
  ~ObstaclePath() = default;
};

// What the water exerted on one obstacle during a step, averaged over the
// step: the force [N] and its moment about the world's origin [N m].
struct ObstacleLoad {
  Vec3 force;
  Vec3 moment;
};

// One step as the solver asks for it.
struct StepRequest {
  float dt;                         // [s]
  uint32_t substeps;                // as pbf_solver_step() was given them
  const StepStats* last;            // the step before's (the particles' densities are its last substep's)
  size_t unmeasured;                // particles no step has moved: added since the last step with particles
  const PbfParams* params;
  StepContext ctx;                  // planes and obstacle count; the method fills in motion and poses
  ObstaclePath* obstacles;
  ObstacleLoad* loads;              // one per obstacle, filled by the method
};

class FluidMethod {
 public:
  virtual ~FluidMethod() = default;
  // The particle mass at which the ideal lattice at the config's spacing has
  // the rest density, measured with the method's density kernel [kg].
  virtual float particle_mass() const = 0;
  // The kernel the method measures density with (boundary samples' pseudo-masses).
  virtual DensityKernel density_kernel() const = 0;
  // The shortest step the method computes in float range [s] (at least kMinSubstep).
  virtual float min_substep() const = 0;
  // Room for n particles and `obstacles` obstacles in the method's own
  // arrays, called before the device grows to n particles and before an
  // obstacle is added, so that no later step allocates; on failure nothing
  // changed.
  virtual void reserve(size_t n, uint32_t obstacles) = 0;
  // Advances the device's particles by step.dt: fills in the step's substep
  // counts and sizes, iteration counts and phase times (the solver adds the
  // measures and the total time), and what the water exerted on each
  // obstacle (StepRequest::loads, from the pushes of the obstacles'
  // collisions and boundary samples on the particles: obstacle_loads.h).
  // Without particles only the counts, and dynamic bodies fall.
  virtual void step(const StepRequest& step, StepStats& stats) = 0;
  // The density of every particle at the positions predicted from where it
  // is now with zero velocity, without gravity (pbf_solver_update_densities):
  // the particles' positions and velocities are the solver's to keep and
  // restore. ctx holds the planes and the obstacles where they are now.
  virtual void update_densities(const PbfParams& params, StepContext ctx) = 0;
};

// The method config.method names, running on `backend` (which outlives it).
std::unique_ptr<FluidMethod> create_method(const SolverConfig& config, Backend& backend);

}  // namespace pbf
