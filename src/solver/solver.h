// solver.h - a fluid solver: its config, parameters, planes and backend, and
// the step that runs the method's stages on that backend. The C API wraps
// exactly this class; it has already checked every argument it passes in.
// Every position, plane and pose it takes or gives is in the world's
// coordinates; it keeps them, and its backend and method work, in the frame
// of an origin near the domain (core/local_frame.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/config.h"
#include "core/lattice_fill.h"
#include "core/local_frame.h"
#include "io/checkpoint.h"
#include "methods/method.h"
#include "rigid/rigid_body.h"

namespace pbf {

// The most cells of kernel-radius size a domain may span.
constexpr uint64_t kMaxGridCells = uint64_t(1) << 26;

// The most boundary samples a solver holds (PBF_MAX_BOUNDARY_PARTICLES).
constexpr size_t kMaxBoundaryParticles = size_t(1) << 26;

// Fills in the automatic values of a requested config (kernel radius 0,
// thread count 0, max_neighbors 0, backend Auto). Throws Error when the
// config cannot be simulated (its message names the field).
SolverConfig resolve_config(const SolverConfig& requested);

class Solver {
 public:
  explicit Solver(const SolverConfig& config);  // config as resolve_config() returned it

  // The config as created, in the world's coordinates.
  const SolverConfig& config() const { return config_; }
  // Where the solver keeps positions: relative to frame().origin.
  const LocalFrame& frame() const { return frame_; }
  // The config with its domain in the frame: what the backend and the method were given.
  const SolverConfig& config_in_frame() const { return local_config_; }
  float particle_mass() const { return method_->particle_mass(); }
  // The shortest step the method computes in float range [s] (FluidMethod::min_substep).
  float min_substep() const { return method_->min_substep(); }
  const PbfParams& params() const { return params_; }
  void set_params(const PbfParams& params) { params_ = params; }

  size_t size() const { return backend_->size(); }
  // Where the positions handed to add_particles() and add_boundary_particles() are: in the world's
  // coordinates (the C API's), or already in the frame (fills and samples computed there, which
  // far from the world's origin are finer than the world's floats: 1/32 m 262 km out).
  enum class Given { InWorld, InFrame };
  void add_particles(const float* positions, const float* velocities, size_t n, Given given = Given::InWorld);
  // Returns the number of particles added; the lattice is computed in the frame.
  size_t fill_box(Vec3 lo, Vec3 hi, Vec3 velocity);
  // Which points (in the frame) a fill may place, where the obstacles are now: none inside an obstacle
  // or nearer its surface than kFillWallMargin spacings, where it would start pressed into the solid and
  // be thrown out of it in the first step (a body placed in the water with it). Empty without obstacles.
  LatticeKeep outside_obstacles() const;
  // `remove` has one entry per particle; non-zero entries are removed.
  void remove_particles(const std::vector<uint8_t>& remove);
  void read(Field field, float* out) const;
  void write(Field field, const float* in);
  // A user-order copy the backend lends (Backend::map): on its GPU when `device`.
  const float* map(Field field, bool device);

  uint32_t add_plane(const Plane& plane);
  void clear_planes();
  uint32_t user_plane_count() const { return static_cast<uint32_t>(planes_.size() - 6); }

  // Solid obstacles: a signed distance field in the solid's own frame
  // (copied) and its placement, a rotation as a unit quaternion (x, y, z, w)
  // and a translation. Returns the obstacle's index.
  uint32_t add_obstacle(const SdfGridView& field, const float rotation[4], Vec3 translation);
  // The placement obstacle `index` reaches at the end of the next step; the
  // substeps move it there from where it is now (rotation by slerp,
  // translation linearly).
  void set_obstacle_pose(uint32_t index, const float rotation[4], Vec3 translation);
  // Removes every obstacle and the boundary samples attached to them (the static ones stay).
  void clear_obstacles();
  // The placement set for the end of the next step (the current one when none was set).
  void obstacle_target(uint32_t index, float rotation[4], Vec3& translation) const;
  uint32_t obstacle_count() const { return static_cast<uint32_t>(obstacles_.size()); }
  // Where obstacle `index` is now (after the last step, or where it was placed).
  void obstacle_pose(uint32_t index, float rotation[4], Vec3& translation) const;
  // Makes obstacle `index` a dynamic body of mass properties `mass` (src/rigid/), at rest where it
  // is now, moved every substep by gravity, the water and its contacts with the planes and the other
  // obstacles; nullptr makes it kinematic again, staying where it is. Throws Error(InvalidArgument)
  // for a field without a surface.
  void set_obstacle_dynamic(uint32_t index, const RigidMass* mass);
  // A dynamic body's velocity (of its centre of mass) [m/s] and angular velocity [rad/s], world axes.
  // Throws Error(InvalidArgument) for a kinematic obstacle.
  void set_obstacle_velocity(uint32_t index, Vec3 linear, Vec3 angular);
  void obstacle_velocity(uint32_t index, Vec3& linear, Vec3& angular) const;
  // Obstacle `index`'s surface: the Coulomb friction of the water and of a dynamic body's contacts
  // against it, and its restitution in those contacts (rigid_contact_material()). Without one of its
  // own (`material` null; the state every obstacle starts in) it has the parameters'. Throws
  // Error(InvalidArgument) for an index that names no obstacle; the values are the caller's to check.
  void set_obstacle_material(uint32_t index, const RigidMaterial* material);
  RigidMaterial obstacle_material(uint32_t index) const;
  // Obstacle `index`'s field, in its own frame.
  const SdfGridView& obstacle_field(uint32_t index) const { return obstacles_.at(index).view; }

  // Boundary samples (Akinci et al. 2012): static positions whose
  // pseudo-masses add to the density of the fluid near them. The solver keeps
  // them in the order added and hands the whole set to the backend, which
  // rebuilds its boundary grid and the pseudo-masses, whenever it changes.
  // `positions` holds 3 floats per sample, already checked. Throws
  // Error(CapacityExceeded) beyond kMaxBoundaryParticles.
  void add_boundary_particles(const float* positions, size_t n, Given given = Given::InWorld);
  // Adds samples of the six domain walls (boundary/boundary_sampling.h);
  // returns how many.
  size_t add_domain_boundary_particles();
  // Adds n samples fixed in obstacle `index`'s frame, at `local` positions
  // in that frame [m]: they move with the obstacle, placed at every
  // substep's pose. Their pseudo-masses count only the obstacle's own
  // samples. Throws Error(CapacityExceeded) beyond kMaxBoundaryParticles.
  void add_obstacle_boundary_particles(uint32_t index, const Vec3* local, size_t n);
  // Removes the samples attached to obstacle `index` and returns how many;
  // the others keep their order and pseudo-masses (each body's are its own).
  // Throws Error(InvalidArgument) for an index that names no obstacle.
  size_t remove_obstacle_boundary_particles(uint32_t index);
  // Removes every boundary sample, those attached to obstacles included.
  void clear_boundary_particles();
  size_t boundary_particle_count() const { return boundary_.size(); }

  void step(float dt, uint32_t substeps);
  // What the water exerted on obstacle `index` during the last step,
  // averaged over it: the force [N] and the torque about the obstacle's
  // origin where the step left it [N m]; zero before the first step and
  // after a checkpoint is loaded. Throws Error(InvalidArgument) for an index
  // that names no obstacle.
  void obstacle_load(uint32_t index, Vec3& force, Vec3& torque) const;
  const StepStats& stats() const { return stats_; }
  // Evaluates every particle's density at its current position with the
  // method's kernel, boundary samples included, as a step ends; positions
  // and velocities stay bit for bit (the stages of a step that moves
  // nothing: no gravity, velocities zero, both put back after).
  void update_densities();

  // The complete state, for a checkpoint file: positions and planes in the solver's frame.
  Checkpoint checkpoint() const;
  // Replaces the whole state by a checkpoint's (already read and checked by
  // read_checkpoint()). Throws Error, leaving the solver as it was, when the
  // checkpoint belongs to a solver of another description, holds more
  // particles than max_particles, or puts a particle outside the domain.
  void restore(const Checkpoint& checkpoint, const std::string& path);

  // The device, for tests that look at a backend's own state (positions in
  // the solver's frame); the C API goes through the calls above.
  Backend& backend() { return *backend_; }

 private:
  SolverConfig config_;
  LocalFrame frame_;
  SolverConfig local_config_;  // config_ with its domain in the frame: what the backend and the method get
  PbfParams params_;
  std::vector<Plane> planes_;  // the six domain walls, then the user's planes, in the frame
  struct ObstacleRecord {
    std::vector<float> values;  // the field's samples; view.values points here
    SdfGridView view;
    float rotation[4];          // unit quaternion (x, y, z, w) now
    Vec3 translation;           // in the frame, as every placement here
    float target_rotation[4];   // at the end of the next step
    Vec3 target_translation;
    std::optional<RigidBody> body;  // a dynamic body's; its pose is rotation and translation in double
    RigidPose pose{};
    std::optional<RigidMaterial> material;  // its surface's own; none: the parameters'
  };
  // Obstacle o's surface: its own material, or the parameters' friction and restitution.
  static RigidMaterial surface_of(const ObstacleRecord& o, const PbfParams& params);
  std::vector<ObstacleRecord> obstacles_;
  // The obstacles' way from where they are to their targets, as a step's method asks for it.
  class Path final : public ObstaclePath {
   public:
    Path(std::vector<ObstacleRecord>& obstacles, const std::vector<Plane>& planes, const PbfParams& params);
    uint32_t count() const override { return static_cast<uint32_t>(obstacles_.size()); }
    // Each obstacle's placement at fractions s0 and s1 of the way (a substep's start and end).
    void between(float s0, float s1, ObstaclePose* out) const override;
    bool responds() const override { return responds_; }
    void advance(float s0, float s1, float h, ObstaclePose* out) override;
    double yield(const ObstacleImpulse* impulses, ObstaclePose* out, BodyYield* moved, bool again) override;
    void respond(const ObstacleImpulse* impulses) override;

   private:
    // What dynamic body `body` bumps into (kNoBody: what every body does, each leaving itself out).
    RigidSurroundings surroundings_of(size_t body) const;
    // The bodies' places in the order they are moved out of each other (RigidSurroundings::rank): the lowest
    // along gravity first, where they start the substep.
    void rank_bodies();
    // surroundings_of(body) as it is moved out of them: leaving out the bodies above it (rank_).
    RigidSurroundings moving_out(size_t body) const;
    // Dynamic body `b`'s pose, as its body moved it, to the substep's end pose `out`, the record's placements
    // and its solid for the others.
    void keep_body_pose(size_t b, ObstaclePose& out);
    std::vector<ObstacleRecord>& obstacles_;
    const std::vector<Plane>& planes_;
    const PbfParams& params_;
    bool responds_;
    // The substep of the last advance(): its length, the kinematic obstacles where it ends and the dynamic
    // bodies where they are now (each body's solid at solid_of_[its index]).
    double h_ = 0.0;
    RigidContactSolid solids_[kMaxObstacles];
    uint32_t solid_count_ = 0;
    uint32_t solid_of_[kMaxObstacles] = {};
    RigidYield yielded_[kMaxObstacles] = {};  // the rounds of the current yield so far
    uint32_t rank_[kMaxObstacles] = {};
  };
  std::vector<ObstaclePose> poses_now_;  // update_densities(): where the obstacles are
  // Throws Error(InvalidArgument) for an index that names no obstacle.
  void require_obstacle(uint32_t index) const;
  // Obstacle `index`'s body; throws Error(InvalidArgument) when it names no dynamic obstacle.
  const RigidBody& dynamic_body(uint32_t index) const;
  // Throws Error(InvalidArgument), naming `argument`, where `body` (obstacle `index`) turned by `rotation`
  // (x, y, z, w) reaches farther along an axis than the domain box: no place inside the walls could hold it,
  // and its contacts would push it from wall to wall without end.
  void require_fits(uint32_t index, const RigidBody& body, const float rotation[4], const char* argument) const;
  void upload_obstacle_fields();
  // Boundary samples in the order added [m]: positions in the frame of static ones, positions in their
  // obstacle's frame of attached ones; and each one's body (kStaticBoundary or the obstacle's index).
  std::vector<Vec3> boundary_;
  std::vector<uint32_t> boundary_body_;
  // Whether boundary particles sample the domain's walls: their planes then
  // add no density of their own (boundary/wall_density.h).
  bool domain_walls_sampled_ = false;
  // The planes and obstacle count every stage of a step needs; the method
  // adds the motion constants and poses.
  StepContext step_context() const;
  // Makes `samples` with their `bodies` the boundary set, on the backend first.
  void replace_boundary(std::vector<Vec3>&& samples, std::vector<uint32_t>&& bodies);
  void require_boundary_room(size_t n) const;
  // Adds n samples of one body (kStaticBoundary or an obstacle's index) after the others.
  void append_boundary(const Vec3* samples, size_t n, uint32_t body);
  // Removes the samples whose body `remove(body)` names and returns how many; the others keep their order.
  template <class Pred>
  size_t remove_boundary_of(Pred remove);
  // Room in the backend and the method for n particles: before the backend grows.
  void reserve_particles(size_t n);
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<FluidMethod> method_;  // runs on *backend_
  StepStats stats_;
  // Particles added since the last step with particles, at most size(): water no step has measured
  // (held by checkpoints: Checkpoint::unmeasured).
  size_t unmeasured_ = 0;
  ObstacleLoad loads_[kMaxObstacles] = {};  // the last step's, by obstacle
};

}  // namespace pbf
