// backend.h - the interface every backend implements: a device. It holds the
// particle store (speaking the user's particle order), the neighbour grid,
// the boundary samples and the obstacles, runs the stages every method shares
// (prediction with collisions, the grid, the neighbour search, measurement)
// and can record a step. It knows no method: each method (src/methods/) runs
// its own stages on the device's data (methods/<method>/<backend>/) and
// decides what runs when.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/obstacle.h"
#include "core/motion.h"
#include "core/particle_state.h"
#include "core/sph_kernels.h"

namespace pbf {

enum class Field { Position, Velocity, Density };

// Everything a stage needs besides the particles. Planes start with the six
// walls of the domain box, then the user's planes; those from
// `density_planes_first` on add the density of the solid behind them
// (boundary/wall_density.h): 6 when boundary particles sample the
// domain's walls, 0 otherwise.
// Obstacles: obstacle k has the field the backend was given as fields[k] by
// set_obstacle_fields() and the pose obstacle_poses[k] for this substep.
struct StepContext {
  MotionConstants motion;
  const Plane* planes;
  uint32_t plane_count;
  uint32_t density_planes_first;
  const ObstaclePose* obstacle_poses;
  uint32_t obstacle_count;
  // The dynamic bodies yield as their part of a joint solve with the water's
  // constraints (BodySubstep with the method's relief): the sinks then sum
  // the added mass that Push::couple() hands them, and the stages that
  // collide keep each particle's collision record. Otherwise couple() sums
  // the push alone, and no stage keeps records.
  bool bodies_couple = false;
};

// What a method's iterations report, summed since the last
// Backend::iteration_tally(): PBF's density iterations or Projective Fluids'
// global steps. The device keeps it, with whether the substep's iterations
// have converged, so that every method ends its iterations the same way.
struct IterationTally {
  uint32_t iterations = 0;        // PBF: density iterations run; Projective Fluids: global steps run
  float mean_compression = 0.0f;  // Projective Fluids: of the last local step that ran
  float max_compression = 0.0f;   // Projective Fluids: of the last local step that ran
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;

  // --- particle store; every array is in user order, 3 floats per vector ---
  virtual size_t size() const = 0;
  // Appends n particles; velocities may be null (at rest).
  virtual void append(const float* positions, const float* velocities, size_t n) = 0;
  // Removes the particles whose user index has remove[i] != 0; the rest keep
  // their order (user and device). Either succeeds or throws leaving the
  // particles as they were. Written once for every device (backend.cpp):
  // export_state(), compacted, import_state().
  virtual void remove(const std::vector<uint8_t>& remove);
  virtual void read(Field field, float* out) const = 0;
  // Field::Density cannot be written.
  virtual void write(Field field, const float* in) = 0;
  // A user-order copy of a field in memory the backend owns (on its GPU when
  // `device`), with `offset` added to every vector (the solver's frame's
  // origin, for positions; ignored for densities), valid until the next map()
  // of the same field or a change of the particles. Throws
  // Error(InvalidArgument) for `device` on a backend without a device.
  virtual const float* map(Field field, bool device, Vec3 offset) = 0;
  // The whole particle state in the backend's own order (for checkpoints),
  // and its replacement by such a state. import_state() expects a checked
  // state (equal lengths, user_ids a permutation) and either succeeds or
  // throws leaving the particles as they were.
  virtual void export_state(ParticleState& out) const = 0;
  virtual void import_state(const ParticleState& in) = 0;

  // The solid obstacles' fields (core/obstacle.h), replacing the previous
  // set; the backend keeps its own copy (on its device for CUDA). Either
  // succeeds or throws leaving the previous set.
  virtual void set_obstacle_fields(const SdfGridView* fields, uint32_t count) = 0;
  // The Coulomb friction of the water against each obstacle, friction[k] for
  // the obstacle of fields[k], from the next stage on (0 after
  // set_obstacle_fields()). `count` is the number of obstacles held.
  virtual void set_obstacle_friction(const float* friction, uint32_t count) = 0;

  // Boundary samples (boundary/boundary_equations.h), replacing the
  // previous set (count 0: none). `positions` are world positions [m] now;
  // `body` (null: every sample static) gives each sample's body, either
  // kStaticBoundary or the index of the obstacle it moves with, and `local`
  // (read only where a body is an obstacle) its position in that obstacle's
  // frame. The backend sorts them into a grid of its own (those beyond reach
  // of the domain, GridSpec::beyond_reach, into no cell) and gives each its
  // pseudo-mass rho0 / sum_k W(x_b - x_k) over the samples k of its own body
  // near it, with W the method's density kernel `kernel`, once here. A set without moving samples stays sorted; when some
  // move, build_grid() places them at the substep's end pose (where the
  // collisions hold the obstacle) and sorts the set again. The density
  // stages count them. Either succeeds or throws leaving the previous set.
  virtual void set_boundary_particles(const Vec3* positions, const uint32_t* body, const Vec3* local,
                                      size_t count, DensityKernel kernel) = 0;

  // --- the stages every method's substep starts with, in this order ---
  // Gravity and prediction, then collisions (Macklin & Mueller 2013,
  // Algorithm 1, lines 1-4). Starts a substep: its iterations are open again
  // (iteration_tally()).
  virtual void predict(const StepContext& ctx) = 0;
  // Sorts particles by grid cell and reorders their data (line 5); moves
  // the boundary samples attached to obstacles to this substep's poses.
  virtual void build_grid(const StepContext& ctx) = 0;
  // Neighbour lists from the predicted positions (line 6).
  virtual void find_neighbors(const StepContext& ctx) = 0;
  // Density error, neighbour counts and speeds of the current state.
  virtual void measure(StepStats& stats) const = 0;
  // Between a substep's iterations, where a dynamic body yields to the water
  // (ObstaclePath::yield): moves the boundary samples attached to obstacles
  // to ctx's end poses in place, in the cells build_grid() sorted them into.
  // A sample that moved a small part of a kernel radius since then is still
  // found by every particle it reaches but at the kernel's last fraction
  // (kBoundaryNearReach). Collisions take ctx's poses at every stage anyway.
  virtual void follow_obstacles(const StepContext& ctx) = 0;
  // After predict(), which keeps each particle's collision record (the push
  // in scratch until the next stage, its obstacle in a byte; PBF's density
  // iterations keep them too, and relieve them with their constraints,
  // PbfStages::relieve_body_yields()), in a round of a yield of the dynamic
  // bodies (BodySubstep) from `before` to `moved` (indexed by obstacle):
  // each particle that an obstacle's collision pushed gives back what the
  // obstacle's motion made unneeded (collision_yield_relief()), pushed on
  // the obstacle.
  virtual void relieve_collisions(const StepContext& ctx, const BodyYield* before, const BodyYield* moved) = 0;

  // What the obstacles did to the water since the previous call, which
  // starts the sums again: out[k] is the sum of obstacle k's pushes
  // (core/obstacle.h) over the stages that report them, k < count (the
  // step's obstacle count). The device's own stages report the collisions of
  // prediction; a method's stages report theirs through the device's sink.
  // Waits for the work that made them.
  virtual void take_obstacle_pushes(ObstaclePush* out, uint32_t count) = 0;

  // --- recording a step (methods/recorded_step.h) ---
  // A backend may record the stages of a whole step instead of running them
  // as they are called, and run the recording as one unit of work (CUDA: one
  // graph launch, so that small scenes are not bound by launch latency).
  // begin_recording() returns false when the backend runs stages as they come;
  // when it returns true, the stages of `substeps` substeps of the solver's
  // method (its own stages and the device's) follow, substep k
  // with ctx.obstacle_poses = poses + k * ctx.obstacle_count (the backend
  // takes every pose here), and only enqueue their work. run_recording() then
  // runs it, waits, and adds the time of each phase on the device to `timing`;
  // it returns false, having run nothing, when the recording could not be
  // made runnable, and the caller then calls the stages again one by one.
  // abandon_recording() ends a recording that a stage failed in: nothing of
  // it has run and the particles are as they were before it.
  virtual bool begin_recording(const StepContext& /*ctx*/, const ObstaclePose* /*poses*/, uint32_t /*substeps*/) {
    return false;
  }
  virtual bool run_recording(StepStats& /*timing*/) { return false; }
  virtual void abandon_recording() noexcept {}

  // What the methods' iterations did since the previous call, which starts a
  // new tally. Called once the stages (or their recording) have run; on CUDA
  // the methods' last stage of a substep copies it to host memory as it goes,
  // so it waits for nothing.
  virtual IterationTally iteration_tally() = 0;
};

// The one place that knows which backends exist. Throws Error with
// Status::BackendUnavailable when `config.backend` cannot run here.
std::unique_ptr<Backend> create_backend(const SolverConfig& config);

// Whether a backend can run on this machine (Auto: always; CUDA: on device 0).
bool backend_available(BackendKind kind);

// "" when `kind` can run here on device `device_index`; otherwise the reason,
// as a sentence for an error message.
std::string backend_unavailable_reason(BackendKind kind, int device_index);

}  // namespace pbf
