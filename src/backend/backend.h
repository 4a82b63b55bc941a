// backend.h - the interface every backend implements: a particle store that
// speaks the user's particle order, and the stages of a PBF substep. The
// solver (src/solver/) decides what runs when; a backend only runs stages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/obstacle.h"
#include "core/particle_state.h"
#include "solver/pbf/pbf_equations.h"
#include "solver/projective/projective_equations.h"

namespace pbf {

enum class Field { Position, Velocity, Density };

// Everything a stage needs besides the particles. Planes start with the six
// walls of the domain box, then the user's planes; those from
// `density_planes_first` on add the density of the solid behind them
// (solver/boundary/wall_density.h): 6 when boundary particles sample the
// domain's walls, 0 otherwise.
// Obstacles: obstacle k has the field the backend was given as fields[k] by
// set_obstacle_fields() and the pose obstacle_poses[k] for this substep.
struct StepContext {
  PbfConstants constants;
  ProjectiveConstants projective;  // Projective Fluids substeps only
  const Plane* planes;
  uint32_t plane_count;
  uint32_t density_planes_first;
  const ObstaclePose* obstacle_poses;
  uint32_t obstacle_count;
};

// What a backend's iterations report, summed since the last
// Backend::iteration_tally(): PBF's density iterations (solve_density) or
// Projective Fluids' global steps.
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
  // Removes the particles whose user index has remove[i] != 0; the rest keep their order.
  virtual void remove(const std::vector<uint8_t>& remove) = 0;
  virtual void read(Field field, float* out) const = 0;
  // Field::Density cannot be written.
  virtual void write(Field field, const float* in) = 0;
  // A user-order copy of a field in memory the backend owns (on its GPU when
  // `device`), valid until the next map() of the same field or a change of
  // the particles. Throws Error(InvalidArgument) for `device` on a backend
  // without a device.
  virtual const float* map(Field field, bool device) = 0;
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

  // Boundary samples (solver/boundary/boundary_equations.h), replacing the
  // previous set (count 0: none). `positions` are world positions [m] now;
  // `body` (null: every sample static) gives each sample's body, either
  // kStaticBoundary or the index of the obstacle it moves with, and `local`
  // (read only where a body is an obstacle) its position in that obstacle's
  // frame. The backend sorts them into a grid of its own (those beyond reach
  // of the domain, GridSpec::beyond_reach, into no cell) and gives each its
  // pseudo-mass rho0 / sum_k W(x_b - x_k) over the samples k of its own body
  // near it, once here. A set without moving samples stays sorted; when some
  // move, build_grid() places them at the substep's end pose (where the
  // collisions hold the obstacle) and sorts the set again. The density
  // stages count them. Either succeeds or throws leaving the previous set.
  virtual void set_boundary_particles(const Vec3* positions, const uint32_t* body, const Vec3* local,
                                      size_t count) = 0;

  // --- the stages of one substep, in the order the PBF solver runs them ---
  // Gravity and prediction, then collisions (Algorithm 1, lines 1-4). Starts
  // a substep: its density iterations are open again (solve_density).
  virtual void predict(const StepContext& ctx) = 0;
  // Sorts particles by grid cell and reorders their data (line 5); moves
  // the boundary samples attached to obstacles to this substep's poses.
  virtual void build_grid(const StepContext& ctx) = 0;
  // Neighbour lists from the predicted positions (line 6).
  virtual void find_neighbors(const StepContext& ctx) = 0;
  // One Jacobi iteration of the density constraints with collisions (lines
  // 8-19). With `tolerance` >= 0, when the mean compression max(rho / rho0 - 1,
  // 0) of the positions this iteration starts from (deterministic for any
  // thread count) is at most `tolerance`, the substep's iterations have
  // converged: this one still corrects, every later one of the substep does
  // nothing. The backend decides that itself (CUDA: on the device), so that a
  // step can be recorded whole. Negative: no check.
  virtual void solve_density(const StepContext& ctx, float tolerance) = 0;
  // v = (x* - x) / dt, x = x*, density at the new positions (lines 21, 23).
  virtual void update_velocities(const StepContext& ctx) = 0;
  // Vorticity confinement and XSPH viscosity (line 22).
  virtual void apply_vorticity_viscosity(const StepContext& ctx) = 0;
  // Density error, neighbour counts and speeds of the current state.
  virtual void measure(StepStats& stats) const = 0;

  // --- recording a step (solver/pbf/pbf_step.h, solver/projective/projective_step.h) ---
  // A backend may record the stages of a whole step instead of running them
  // as they are called, and run the recording as one unit of work (CUDA: one
  // graph launch, so that small scenes are not bound by launch latency).
  // begin_recording() returns false when the backend runs stages as they come;
  // when it returns true, the stages of `substeps` substeps of the solver's method
  // (PBF or Projective Fluids) follow, substep k
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

  // --- the stages of a Projective Fluids substep (solver/projective/projective_step.h) ---
  // Their control logic is the solver's; a stage asks the host nothing, so
  // that a backend can record a whole step of them (begin_recording()).
  // After predict, build_grid and find_neighbors: keeps the predicted
  // positions as the inertial target s and as the first iterate, and starts
  // the substep's local/global iterations.
  virtual void projective_begin(const StepContext& ctx) = 0;
  // Local step: projects every density constraint at the current iterate.
  // When the mean compression there (deterministic for any thread count) is
  // at most `tolerance`, the substep's iterations have converged: this and
  // every later local and global step of the substep do nothing. The backend
  // decides that itself (CUDA: on the device).
  virtual void projective_local_step(const StepContext& ctx, float tolerance) = 0;
  // Global step: the diagonal system of eq. 5 solved in closed form from the
  // current iterate y_k (global_step_position()), then the Chebyshev
  // extrapolation y_k-1 + omega (y - y_k-1) (omega = 1: none) and collisions.
  // Nothing once the substep has converged.
  virtual void projective_global_step(const StepContext& ctx, float omega) = 0;
  // v = (x - x_n) / dt with restitution, x_n+1 = x, cubic-spline density.
  virtual void projective_update_velocities(const StepContext& ctx) = 0;

  // --- both methods ---
  // What the iterations did since the previous call, which starts a new
  // tally. Called once the stages (or their recording) have run; CUDA's
  // velocity updates copy it to host memory as they go, so it waits for nothing.
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
