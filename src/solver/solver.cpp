#include "solver/solver.h"

#include <tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "core/error.h"
#include "core/lattice_fill.h"
#include "core/sdf_grid.h"
#include "boundary/boundary_equations.h"
#include "boundary/boundary_sampling.h"

namespace pbf {

SolverConfig resolve_config(const SolverConfig& requested) {
  SolverConfig c = requested;
  if (c.kernel_radius == 0.0f) c.kernel_radius = 2.0f * c.particle_spacing;
  if (c.thread_count == 0) c.thread_count = tbb::info::default_concurrency();
  if (c.backend == BackendKind::Auto)
    c.backend = backend_unavailable_reason(BackendKind::Cuda, c.device_index).empty() ? BackendKind::Cuda
                                                                                      : BackendKind::Cpu;
  const std::string unavailable = backend_unavailable_reason(c.backend, c.device_index);
  if (!unavailable.empty())
    throw Error(Status::BackendUnavailable, std::string("desc->backend: ") +
                                                (c.backend == BackendKind::Cuda ? "PBF_BACKEND_CUDA" : "backend") +
                                                " is not available: " + unavailable);
  if (c.max_neighbors == 0) {
    // Neighbours inside the kernel sphere at rest, with room for 60 %
    // compression (splashes landing), rounded up to a multiple of 8.
    const double at_rest = particles_in_kernel_at_rest(c.kernel_radius, c.particle_spacing);
    c.max_neighbors = static_cast<uint32_t>(std::ceil(at_rest * 1.6 / 8.0)) * 8u;
    if (c.max_neighbors < 16) c.max_neighbors = 16;
  }
  const Vec3 extent = c.domain_max - c.domain_min;
  const double cells = std::ceil(extent.x / c.kernel_radius) * std::ceil(extent.y / c.kernel_radius) *
                       std::ceil(extent.z / c.kernel_radius);
  if (cells > static_cast<double>(kMaxGridCells)) {
    std::ostringstream msg;
    msg << "desc->domain_min/desc->domain_max: the domain spans ";
    if (cells < 1.0e18) msg << static_cast<uint64_t>(cells);  // converting more than 2^64 would be undefined
    else msg << "more than 10^18";
    msg << " grid cells of the kernel radius " << c.kernel_radius << " m, more than the " << kMaxGridCells
        << " supported; shrink the domain or enlarge particle_spacing";
    throw Error(Status::InvalidArgument, msg.str());
  }
  const uint64_t neighbor_bytes = uint64_t(c.max_particles) * c.max_neighbors * 4u;
  if (neighbor_bytes > (uint64_t(1) << 34)) {
    throw Error(Status::InvalidArgument,
                "desc->max_neighbors: desc->max_particles x max_neighbors needs more than 16 GiB of neighbour lists");
  }
  return c;
}

namespace {

std::vector<Plane> domain_walls(const SolverConfig& c) {
  const Vec3 lo = c.domain_min, hi = c.domain_max;
  return {
      Plane{{1, 0, 0}, -lo.x}, Plane{{-1, 0, 0}, hi.x}, Plane{{0, 1, 0}, -lo.y},
      Plane{{0, -1, 0}, hi.y}, Plane{{0, 0, 1}, -lo.z}, Plane{{0, 0, -1}, hi.z},
  };
}

SolverConfig in_frame(const SolverConfig& c, const LocalFrame& frame) {
  SolverConfig local = c;
  local.domain_min = frame.to_local(c.domain_min);
  local.domain_max = frame.to_local(c.domain_max);
  return local;
}

// n positions (3 floats each) moved into the frame: a copy, or the input itself at the world's origin.
const float* positions_in_frame(const float* world, size_t n, const LocalFrame& frame, std::vector<float>& copy) {
  if (frame.is_world()) return world;
  copy.assign(world, world + 3 * n);
  frame.to_local(copy.data(), n);
  return copy.data();
}

}  // namespace

Solver::Solver(const SolverConfig& config)
    : config_(config),
      frame_{frame_origin(config.domain_min, config.domain_max)},
      local_config_(in_frame(config, frame_)),
      planes_(domain_walls(local_config_)),
      backend_(create_backend(local_config_)),
      method_(create_method(local_config_, *backend_)) {}

void Solver::reserve_particles(size_t n) { method_->reserve(n, obstacle_count()); }

void Solver::add_particles(const float* positions, const float* velocities, size_t n, Given given) {
  if (size() + n > config_.max_particles) {
    std::ostringstream msg;
    msg << "count: adding " << n << " particles to " << size() << " would exceed max_particles ("
        << config_.max_particles << ")";
    throw Error(Status::CapacityExceeded, msg.str());
  }
  std::vector<float> local;
  const float* in_frame = given == Given::InFrame ? positions : positions_in_frame(positions, n, frame_, local);
  reserve_particles(size() + n);
  backend_->append(in_frame, velocities, n);
  unmeasured_ += n;
}

namespace {
// The most lattice points a fill tests one by one against the obstacles (outside_obstacles()); a box of
// more is counted whole, and refused as the capacity's excess.
constexpr size_t kMaxFillLattice = size_t(1) << 28;
}  // namespace

size_t Solver::fill_box(Vec3 lo, Vec3 hi, Vec3 velocity) {
  // The lattice is anchored at lo. Farther than 2^24 spacings from the domain
  // its points inside the domain are not representable in float precision.
  const double reach = 16777216.0 * config_.particle_spacing;
  const float los[3] = {lo.x, lo.y, lo.z}, his[3] = {hi.x, hi.y, hi.z};
  const float dmin[3] = {config_.domain_min.x, config_.domain_min.y, config_.domain_min.z};
  const float dmax[3] = {config_.domain_max.x, config_.domain_max.y, config_.domain_max.z};
  for (int a = 0; a < 3; ++a) {
    if (static_cast<double>(dmin[a]) - los[a] > reach) {
      std::ostringstream msg;
      msg << "lo[" << a << "] (" << los[a] << ") lies more than 2^24 particle spacings below the domain ("
          << dmin[a] << "); the lattice anchored there cannot be placed in float precision";
      throw Error(Status::InvalidArgument, msg.str());
    }
    if (static_cast<double>(his[a]) - dmax[a] > reach) {
      std::ostringstream msg;
      msg << "hi[" << a << "] (" << his[a] << ") lies more than 2^24 particle spacings above the domain ("
          << dmax[a] << ")";
      throw Error(Status::InvalidArgument, msg.str());
    }
  }
  // The lattice is anchored at lo moved into the frame, and computed there: far from the world's
  // origin its points are then as exact as near it (the world's floats would round them).
  const Vec3 local_lo = frame_.to_local(lo), local_hi = frame_.to_local(hi);
  // A point closer than kFillWallMargin to a domain wall is left out (a box of 0.8 m at 0.03 m
  // spacing flush with two walls put its last column 5 mm from them, 25 % above rest density, and
  // Projective Fluids threw one at 5.8 m/s).
  const Vec3 keep_min = local_config_.domain_min, keep_max = local_config_.domain_max;
  const float margin = kFillWallMargin * config_.particle_spacing;
  // Nor inside the obstacles: where the whole lattice would not fit, those kept are counted point by
  // point (where the box's lattice is not beyond all reason) before any is made.
  const LatticeKeep keep = outside_obstacles();
  size_t n = lattice_fill_count(local_lo, local_hi, config_.particle_spacing, keep_min, keep_max, margin);
  if (keep && size() + n > config_.max_particles && n <= kMaxFillLattice)
    n = lattice_fill_count(local_lo, local_hi, config_.particle_spacing, keep_min, keep_max, margin, keep);
  if (size() + n > config_.max_particles) {
    std::ostringstream msg;
    msg << "lo/hi: the box holds " << n << " particles; with the " << size()
        << " present that would exceed max_particles (" << config_.max_particles << ")";
    throw Error(Status::CapacityExceeded, msg.str());
  }
  const std::vector<float> points =
      lattice_fill(local_lo, local_hi, config_.particle_spacing, keep_min, keep_max, margin, keep);
  n = points.size() / 3;  // the count kept, where the lattice was too large to count point by point
  std::vector<float> velocities(points.size());
  for (size_t i = 0; i < n; ++i) {
    velocities[3 * i] = velocity.x;
    velocities[3 * i + 1] = velocity.y;
    velocities[3 * i + 2] = velocity.z;
  }
  reserve_particles(size() + n);
  backend_->append(points.data(), velocities.data(), n);
  unmeasured_ += n;
  return n;
}

LatticeKeep Solver::outside_obstacles() const {
  if (obstacles_.empty()) return {};
  struct Placed {
    SdfGridView field;
    RigidTransform pose;
  };
  std::vector<Placed> placed;
  for (const ObstacleRecord& o : obstacles_)
    placed.push_back(Placed{o.view, rigid_transform(o.rotation, o.translation)});
  // Met within 1e-3 spacings, as the domain's walls are (lattice_axis_range()): a layer a margin from a flat
  // face stays, whatever the round-off of the field's interpolation.
  const float margin = (kFillWallMargin - 1e-3f) * config_.particle_spacing;
  // Outside a field's grid sdf_sample() gives an upper bound of the distance, as the collisions take it.
  return [placed = std::move(placed), margin](Vec3 p) {
    for (const Placed& o : placed)
      if (sdf_sample(o.field, to_local(o.pose, p), nullptr) < margin) return false;
    return true;
  };
}

void Solver::remove_particles(const std::vector<uint8_t>& remove) {
  backend_->remove(remove);
  unmeasured_ = std::min(unmeasured_, size());  // which of them went is not known: at most what is left
}

void Solver::read(Field field, float* out) const {
  backend_->read(field, out);
  if (field == Field::Position) frame_.to_world(out, size());
}

void Solver::write(Field field, const float* in) {
  std::vector<float> local;
  backend_->write(field, field == Field::Position ? positions_in_frame(in, size(), frame_, local) : in);
}

const float* Solver::map(Field field, bool device) {
  return backend_->map(field, device, field == Field::Position ? frame_.origin : Vec3{0.0f, 0.0f, 0.0f});
}

uint32_t Solver::add_plane(const Plane& plane) {
  if (user_plane_count() >= kMaxPlanes) {
    throw Error(Status::CapacityExceeded,
                "solver: already " + std::to_string(kMaxPlanes) + " planes, the most a solver holds");
  }
  planes_.push_back(frame_.to_local(plane));
  return user_plane_count() - 1;
}

void Solver::clear_planes() { planes_.resize(6); }

namespace {

// The same placement in double, for a dynamic body.
RigidPose rigid_pose(const float q[4], Vec3 t) { return RigidPose{{q[0], q[1], q[2], q[3]}, {t.x, t.y, t.z}}; }

// The placement a fraction s of the way from (qa, ta) to (qb, tb): slerp
// along the shorter arc, translation linearly.
RigidTransform interpolate(const float qa[4], Vec3 ta, const float qb[4], Vec3 tb, float s) {
  double cosine = 0.0;
  for (int k = 0; k < 4; ++k) cosine += double(qa[k]) * qb[k];
  const double sign = cosine < 0.0 ? -1.0 : 1.0;
  cosine = std::fabs(cosine);
  double wa = 1.0 - s, wb = s;
  if (cosine < 0.9995) {
    const double angle = std::acos(std::min(cosine, 1.0));
    wa = std::sin((1.0 - s) * angle) / std::sin(angle);
    wb = std::sin(s * angle) / std::sin(angle);
  }
  double q[4], norm = 0.0;
  for (int k = 0; k < 4; ++k) {
    q[k] = wa * qa[k] + sign * wb * qb[k];
    norm += q[k] * q[k];
  }
  norm = std::sqrt(norm);
  const float qf[4] = {float(q[0] / norm), float(q[1] / norm), float(q[2] / norm), float(q[3] / norm)};
  return rigid_transform(qf, ta + (tb - ta) * s);
}

}  // namespace

uint32_t Solver::add_obstacle(const SdfGridView& field, const float rotation[4], Vec3 translation) {
  if (obstacles_.size() >= kMaxObstacles)
    throw Error(Status::CapacityExceeded,
                "solver: already " + std::to_string(kMaxObstacles) + " obstacles, the most a solver holds");
  ObstacleRecord o;
  o.values.assign(field.values, field.values + size_t(field.nx) * field.ny * field.nz);
  // A narrow band's far marks (FLT_MAX, 1e10) would send pushes that large
  // into the collisions and the force sums: the copy takes every distance
  // beyond the bound as the bound, which keeps every sign and zero.
  const uint32_t dims[3] = {uint32_t(field.nx), uint32_t(field.ny), uint32_t(field.nz)};
  const float far = static_cast<float>(sdf_distance_bound(dims, field.cell));
  for (float& v : o.values) v = std::clamp(v, -far, far);
  o.view = field;
  o.view.values = o.values.data();
  normalize_quaternion(rotation, o.rotation);
  o.translation = frame_.to_local(translation);
  std::copy(o.rotation, o.rotation + 4, o.target_rotation);
  o.target_translation = o.translation;
  obstacles_.push_back(std::move(o));
  loads_[obstacles_.size() - 1] = ObstacleLoad{};
  try {
    method_->reserve(size(), obstacle_count());
    poses_now_.reserve(obstacles_.size());
    upload_obstacle_fields();
  } catch (...) {
    obstacles_.pop_back();
    throw;
  }
  return static_cast<uint32_t>(obstacles_.size() - 1);
}

void Solver::upload_obstacle_fields() {
  std::vector<SdfGridView> views;
  for (const ObstacleRecord& o : obstacles_) views.push_back(o.view);
  backend_->set_obstacle_fields(views.data(), static_cast<uint32_t>(views.size()));
}

void Solver::set_obstacle_pose(uint32_t index, const float rotation[4], Vec3 translation) {
  ObstacleRecord& o = obstacles_.at(index);
  if (o.body) {
    // A dynamic body turned where it cannot fit is refused (where it is now, it was let in).
    float turned[4];
    normalize_quaternion(rotation, turned);
    if (!std::equal(turned, turned + 4, o.rotation)) require_fits(index, *o.body, turned, "rotation");
  }
  normalize_quaternion(rotation, o.target_rotation);
  o.target_translation = frame_.to_local(translation);
  if (o.body) {
    // A dynamic body goes there at once, keeping its velocities.
    std::copy(o.target_rotation, o.target_rotation + 4, o.rotation);
    o.translation = o.target_translation;
    o.pose = rigid_pose(o.rotation, o.translation);
  }
}

void Solver::obstacle_pose(uint32_t index, float rotation[4], Vec3& translation) const {
  const ObstacleRecord& o = obstacles_.at(index);
  std::copy(o.rotation, o.rotation + 4, rotation);
  translation = frame_.to_world(o.translation);
}

void Solver::set_obstacle_dynamic(uint32_t index, const RigidMass* mass) {
  require_obstacle(index);
  ObstacleRecord& o = obstacles_[index];
  if (!mass) {
    o.body.reset();
    return;
  }
  RigidBody body = make_rigid_body(*mass, o.view);
  require_fits(index, body, o.rotation, "index");
  // It starts at rest where it is now; a placement set for the next step is dropped.
  std::copy(o.rotation, o.rotation + 4, o.target_rotation);
  o.target_translation = o.translation;
  o.pose = rigid_pose(o.rotation, o.translation);
  o.body = std::move(body);
}

const RigidBody& Solver::dynamic_body(uint32_t index) const {
  require_obstacle(index);
  const ObstacleRecord& o = obstacles_[index];
  if (!o.body)
    throw Error(Status::InvalidArgument, "index: obstacle " + std::to_string(index) +
                                             " is kinematic (pbf_solver_set_obstacle_pose() moves it); make it "
                                             "dynamic first");
  return *o.body;
}

void Solver::set_obstacle_velocity(uint32_t index, Vec3 linear, Vec3 angular) {
  dynamic_body(index);
  RigidBody& b = *obstacles_[index].body;
  const float l[3] = {linear.x, linear.y, linear.z}, a[3] = {angular.x, angular.y, angular.z};
  for (int k = 0; k < 3; ++k) {
    b.velocity[k] = l[k];
    b.angular_velocity[k] = a[k];
  }
}

void Solver::obstacle_velocity(uint32_t index, Vec3& linear, Vec3& angular) const {
  const RigidBody& b = dynamic_body(index);
  linear = Vec3{float(b.velocity[0]), float(b.velocity[1]), float(b.velocity[2])};
  angular = Vec3{float(b.angular_velocity[0]), float(b.angular_velocity[1]), float(b.angular_velocity[2])};
}

void Solver::set_obstacle_material(uint32_t index, const RigidMaterial* material) {
  require_obstacle(index);
  if (material) obstacles_[index].material = *material;
  else obstacles_[index].material.reset();
}

RigidMaterial Solver::obstacle_material(uint32_t index) const {
  require_obstacle(index);
  return surface_of(obstacles_[index], params_);
}

void Solver::obstacle_target(uint32_t index, float rotation[4], Vec3& translation) const {
  const ObstacleRecord& o = obstacles_.at(index);
  std::copy(o.target_rotation, o.target_rotation + 4, rotation);
  translation = frame_.to_world(o.target_translation);
}

void Solver::clear_obstacles() {
  // The samples attached to the obstacles go with them; the static ones stay.
  remove_boundary_of([](uint32_t body) { return body != kStaticBoundary; });
  backend_->set_obstacle_fields(nullptr, 0);
  obstacles_.clear();
}

void Solver::replace_boundary(std::vector<Vec3>&& samples, std::vector<uint32_t>&& bodies) {
  if (samples.size() > kMaxBoundaryParticles) {
    std::ostringstream msg;
    msg << "solver: " << samples.size() << " boundary particles would exceed the " << kMaxBoundaryParticles
        << " a solver holds";
    throw Error(Status::CapacityExceeded, msg.str());
  }
  const bool moving = std::any_of(bodies.begin(), bodies.end(), [](uint32_t b) { return b != kStaticBoundary; });
  if (!moving) {
    backend_->set_boundary_particles(samples.data(), nullptr, nullptr, samples.size(), method_->density_kernel());
  } else {
    // World positions at the obstacles' present placements, where the backend computes the pseudo-masses.
    std::vector<RigidTransform> now;
    for (const ObstacleRecord& o : obstacles_) now.push_back(rigid_transform(o.rotation, o.translation));
    std::vector<Vec3> world(samples.size());
    for (size_t k = 0; k < samples.size(); ++k)
      world[k] = bodies[k] == kStaticBoundary ? samples[k] : to_world(now.at(bodies[k]), samples[k]);
    backend_->set_boundary_particles(world.data(), bodies.data(), samples.data(), samples.size(),
                                     method_->density_kernel());
  }
  boundary_.swap(samples);
  boundary_body_.swap(bodies);
}

void Solver::require_boundary_room(size_t n) const {
  if (n > kMaxBoundaryParticles - std::min(kMaxBoundaryParticles, boundary_.size())) {
    std::ostringstream msg;
    msg << "count: adding " << n << " boundary particles to " << boundary_.size() << " would exceed the "
        << kMaxBoundaryParticles << " a solver holds";
    throw Error(Status::CapacityExceeded, msg.str());
  }
}

void Solver::append_boundary(const Vec3* samples, size_t n, uint32_t body) {
  require_boundary_room(n);
  std::vector<Vec3> all;
  all.reserve(boundary_.size() + n);
  all = boundary_;
  all.insert(all.end(), samples, samples + n);
  std::vector<uint32_t> bodies;
  bodies.reserve(all.size());
  bodies = boundary_body_;
  bodies.resize(all.size(), body);
  replace_boundary(std::move(all), std::move(bodies));
}

template <class Pred>
size_t Solver::remove_boundary_of(Pred remove) {
  const size_t removed = static_cast<size_t>(std::count_if(boundary_body_.begin(), boundary_body_.end(), remove));
  if (removed == 0) return 0;
  std::vector<Vec3> samples;
  std::vector<uint32_t> bodies;
  samples.reserve(boundary_.size() - removed);
  bodies.reserve(boundary_.size() - removed);
  for (size_t k = 0; k < boundary_.size(); ++k)
    if (!remove(boundary_body_[k])) {
      samples.push_back(boundary_[k]);
      bodies.push_back(boundary_body_[k]);
    }
  replace_boundary(std::move(samples), std::move(bodies));
  return removed;
}

void Solver::require_fits(uint32_t index, const RigidBody& body, const float rotation[4],
                          const char* argument) const {
  const double q[4] = {rotation[0], rotation[1], rotation[2], rotation[3]};
  double extent[3];
  rigid_extent(body, q, extent);
  const Vec3 room = local_config_.domain_max - local_config_.domain_min;
  const double rooms[3] = {room.x, room.y, room.z};
  for (int axis = 0; axis < 3; ++axis) {
    if (extent[axis] <= rooms[axis]) continue;
    std::ostringstream m;
    m << argument << ": obstacle " << index << " as a dynamic body reaches " << extent[axis] << " m along "
      << "xyz"[axis] << " at this rotation, more than the domain's " << rooms[axis]
      << " m: no place inside the domain's walls holds it";
    throw Error(Status::InvalidArgument, m.str());
  }
}

void Solver::require_obstacle(uint32_t index) const {
  if (index >= obstacles_.size())
    throw Error(Status::InvalidArgument, "index: " + std::to_string(index) + " names no obstacle; the solver holds " +
                                             std::to_string(obstacles_.size()));
}

void Solver::add_boundary_particles(const float* positions, size_t n, Given given) {
  std::vector<Vec3> samples(n);
  for (size_t k = 0; k < n; ++k) {
    const Vec3 p{positions[3 * k], positions[3 * k + 1], positions[3 * k + 2]};
    samples[k] = given == Given::InFrame ? p : frame_.to_local(p);
  }
  append_boundary(samples.data(), n, kStaticBoundary);
}

void Solver::add_obstacle_boundary_particles(uint32_t index, const Vec3* local, size_t n) {
  require_obstacle(index);
  append_boundary(local, n, index);
}

size_t Solver::remove_obstacle_boundary_particles(uint32_t index) {
  require_obstacle(index);
  return remove_boundary_of([index](uint32_t body) { return body == index; });
}

size_t Solver::add_domain_boundary_particles() {
  const std::vector<Vec3> walls =
      sample_domain_walls(local_config_, kMaxBoundaryParticles - std::min(kMaxBoundaryParticles, boundary_.size()));
  append_boundary(walls.data(), walls.size(), kStaticBoundary);
  if (!walls.empty()) domain_walls_sampled_ = true;
  return walls.size();
}

void Solver::clear_boundary_particles() {
  backend_->set_boundary_particles(nullptr, nullptr, nullptr, 0, method_->density_kernel());
  boundary_.clear();
  boundary_body_.clear();
  domain_walls_sampled_ = false;
}

Solver::Path::Path(std::vector<ObstacleRecord>& obstacles, const std::vector<Plane>& planes, const PbfParams& params)
    : obstacles_(obstacles), planes_(planes), params_(params) {
  responds_ = std::any_of(obstacles.begin(), obstacles.end(), [](const ObstacleRecord& o) { return o.body.has_value(); });
}

void Solver::Path::between(float s0, float s1, ObstaclePose* out) const {
  for (size_t b = 0; b < obstacles_.size(); ++b) {
    const ObstacleRecord& o = obstacles_[b];
    out[b].start = interpolate(o.rotation, o.translation, o.target_rotation, o.target_translation, s0);
    out[b].end = interpolate(o.rotation, o.translation, o.target_rotation, o.target_translation, s1);
  }
}

void Solver::Path::advance(float s0, float s1, float h, ObstaclePose* out) {
  between(s0, s1, out);  // the kinematic ones; the dynamic ones start where they are
  h_ = static_cast<double>(h);
  // What the dynamic bodies bump into: the planes, the kinematic obstacles where this substep leaves them,
  // and each other where they are (each body, moved in turn, meets those before it where they went).
  solid_count_ = 0;
  for (size_t b = 0; b < obstacles_.size(); ++b)
    if (!obstacles_[b].body) {
      solids_[solid_count_] = rigid_contact_solid(out[b].start, out[b].end, h_, &obstacles_[b].view);
      solids_[solid_count_++].material = surface_of(obstacles_[b], params_);
    }
  for (size_t b = 0; b < obstacles_.size(); ++b)
    if (obstacles_[b].body) {
      obstacles_[b].body->material = surface_of(obstacles_[b], params_);
      solid_of_[b] = solid_count_;
      solids_[solid_count_++] = rigid_contact_solid(obstacles_[b].pose, &obstacles_[b].view, static_cast<uint32_t>(b));
    }
  rank_bodies();
  size_t bodies = 0;
  for (size_t b = 0; b < obstacles_.size(); ++b) {
    ObstacleRecord& o = obstacles_[b];
    if (!o.body) continue;
    rigid_advance(*o.body, o.pose, params_.gravity, h_, moving_out(b));
    keep_body_pose(b, out[b]);
    ++bodies;
  }
  // Each body moved out of the others where they were when it moved: bodies pressed together (a stack) are
  // pushed out of each other again, in turn, until no round moves one.
  for (int round = 0; round < kSettleRounds && bodies > 1; ++round) {
    bool moved = false;
    for (size_t b = 0; b < obstacles_.size(); ++b) {
      ObstacleRecord& o = obstacles_[b];
      if (!o.body || !(rigid_settle(*o.body, o.pose, moving_out(b)) > 0.0)) continue;
      moved = true;
      keep_body_pose(b, out[b]);
    }
    if (!moved) break;
  }
}

void Solver::Path::keep_body_pose(size_t b, ObstaclePose& out) {
  ObstacleRecord& o = obstacles_[b];
  solids_[solid_of_[b]] = rigid_contact_solid(o.pose, &o.view, static_cast<uint32_t>(b));
  out.end = rigid_transform(o.pose);
  for (int k = 0; k < 4; ++k) o.rotation[k] = o.target_rotation[k] = static_cast<float>(o.pose.q[k]);
  o.translation = o.target_translation = Vec3{float(o.pose.t[0]), float(o.pose.t[1]), float(o.pose.t[2])};
}

double Solver::Path::yield(const ObstacleImpulse* impulses, ObstaclePose* out, BodyYield* moved, bool again) {
  const auto single = [](const double v[3]) { return Vec3{float(v[0]), float(v[1]), float(v[2])}; };
  const auto size = [](const double v[3]) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); };
  double longest = 0.0;
  for (size_t b = 0; b < obstacles_.size(); ++b) {
    ObstacleRecord& o = obstacles_[b];
    moved[b] = BodyYield{};
    if (!o.body) continue;
    const RigidYield before = yielded_[b];
    yielded_[b] = rigid_yield(*o.body, o.pose, h_, impulses[b].impulse, impulses[b].moment, impulses[b].added,
                              again ? &before : nullptr, moving_out(b));
    const RigidYield& y = yielded_[b];
    double step[3], turn[3];
    for (int a = 0; a < 3; ++a) {
      step[a] = y.shift[a] - (again ? before.shift[a] : 0.0);
      turn[a] = y.turn[a] - (again ? before.turn[a] : 0.0);
    }
    longest = std::max(longest, size(step) + size(turn) * o.body->reach);
    moved[b] = BodyYield{single(y.shift), single(y.turn), single(y.centre)};
    keep_body_pose(b, out[b]);
  }
  return longest;
}

void Solver::Path::respond(const ObstacleImpulse* impulses) {
  // Every body at once: their contacts with each other act on both.
  RigidBodyEnd ends[kMaxObstacles];
  for (size_t b = 0; b < obstacles_.size(); ++b) {
    ObstacleRecord& o = obstacles_[b];
    ends[b] = o.body ? RigidBodyEnd{&*o.body, &o.pose, impulses[b].impulse, impulses[b].moment}
                     : RigidBodyEnd{nullptr, nullptr, nullptr, nullptr};
  }
  // The contacts bounce with the parameters' restitution where they arrive faster than gravity brings a
  // body to rest on a floor in two substeps.
  RigidSurroundings around = surroundings_of(kNoBody);
  around.restitution = params_.restitution;
  around.resting_speed = 2.0 * double(length(params_.gravity)) * h_;
  rigid_respond_together(ends, static_cast<uint32_t>(obstacles_.size()), h_, around);
}

RigidMaterial Solver::surface_of(const ObstacleRecord& o, const PbfParams& params) {
  if (o.material) return *o.material;
  return RigidMaterial{static_cast<double>(params.friction), static_cast<double>(params.restitution)};
}

void Solver::Path::rank_bodies() {
  // Lowest first along gravity, at the substep's start (without gravity: in the order of their indices).
  const Vec3 g = params_.gravity;
  uint32_t order[kMaxObstacles];
  double height[kMaxObstacles];
  for (size_t b = 0; b < obstacles_.size(); ++b) {
    order[b] = static_cast<uint32_t>(b);
    height[b] = 0.0;
    if (!obstacles_[b].body) continue;
    double centre[3];
    rigid_centre(*obstacles_[b].body, obstacles_[b].pose, centre);
    height[b] = -(double(g.x) * centre[0] + double(g.y) * centre[1] + double(g.z) * centre[2]);
  }
  std::sort(order, order + obstacles_.size(),  // std::stable_sort would allocate: ties go by index
            [&](uint32_t a, uint32_t b) { return height[a] < height[b] || (height[a] == height[b] && a < b); });
  for (size_t k = 0; k < obstacles_.size(); ++k) rank_[order[k]] = static_cast<uint32_t>(k);
}

RigidSurroundings Solver::Path::moving_out(size_t body) const {
  RigidSurroundings s = surroundings_of(body);
  s.rank = rank_;
  return s;
}

RigidSurroundings Solver::Path::surroundings_of(size_t body) const {
  RigidSurroundings s{planes_.data(), static_cast<uint32_t>(planes_.size()), solids_, solid_count_,
                      static_cast<double>(params_.friction)};
  s.self = static_cast<uint32_t>(body);
  return s;
}

StepContext Solver::step_context() const {
  StepContext ctx{};
  ctx.planes = planes_.data();
  ctx.plane_count = static_cast<uint32_t>(planes_.size());
  ctx.density_planes_first = domain_walls_sampled_ ? kDomainWalls : 0u;
  ctx.obstacle_count = static_cast<uint32_t>(obstacles_.size());
  return ctx;
}

void Solver::step(float dt, uint32_t substeps) {
  const auto start = std::chrono::steady_clock::now();
  StepStats s;
  Path path(obstacles_, planes_, params_);
  if (!obstacles_.empty()) {
    float friction[kMaxObstacles];
    for (size_t k = 0; k < obstacles_.size(); ++k) friction[k] = float(surface_of(obstacles_[k], params_).friction);
    backend_->set_obstacle_friction(friction, static_cast<uint32_t>(obstacles_.size()));
  }
  method_->step(StepRequest{dt, substeps, &stats_, unmeasured_, &params_, step_context(), &path, loads_}, s);
  if (size() > 0) unmeasured_ = 0;
  // The obstacles have arrived where the user placed them (with or without particles to move).
  for (ObstacleRecord& o : obstacles_) {
    std::copy(o.target_rotation, o.target_rotation + 4, o.rotation);
    o.translation = o.target_translation;
  }
  backend_->measure(s);
  s.time_total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  stats_ = s;
}

void Solver::obstacle_load(uint32_t index, Vec3& force, Vec3& torque) const {
  require_obstacle(index);
  const ObstacleLoad& l = loads_[index];
  force = l.force;
  // The moment about the world's origin, moved to the obstacle's origin o: M - o x F.
  torque = l.moment - cross(obstacles_[index].translation, l.force);
}

void Solver::update_densities() {
  const size_t n = size();
  if (n == 0) return;
  std::vector<float> x(3 * n), v(3 * n);
  backend_->read(Field::Position, x.data());
  backend_->read(Field::Velocity, v.data());
  const std::vector<float> still(3 * n, 0.0f);
  backend_->write(Field::Velocity, still.data());
  StepContext ctx = step_context();
  poses_now_.resize(obstacles_.size());
  Path(obstacles_, planes_, params_).between(0.0f, 0.0f, poses_now_.data());  // where they are now
  ctx.obstacle_poses = poses_now_.data();
  method_->update_densities(params_, ctx);
  backend_->write(Field::Position, x.data());
  backend_->write(Field::Velocity, v.data());
}

Checkpoint Solver::checkpoint() const {
  Checkpoint c;
  c.config = config_;
  c.in_frame = true;
  c.params = params_;
  c.planes.assign(planes_.begin() + 6, planes_.end());
  c.stats = stats_;
  c.unmeasured = static_cast<uint32_t>(unmeasured_);
  backend_->export_state(c.particles);
  return c;
}

namespace {

void require_same(float saved, float here, const char* field, const std::string& path) {
  if (saved == here) return;
  std::ostringstream msg;
  msg << "path: checkpoint '" << path << "' was saved by a solver with " << field << " = " << saved
      << "; this solver has " << here << " (create it with the checkpoint's description)";
  throw Error(Status::InvalidArgument, msg.str());
}

}  // namespace

void Solver::restore(const Checkpoint& c, const std::string& path) {
  const SolverConfig& s = c.config;
  require_same(s.particle_spacing, config_.particle_spacing, "particle_spacing", path);
  require_same(s.kernel_radius, config_.kernel_radius, "kernel_radius", path);
  require_same(s.rest_density, config_.rest_density, "rest_density", path);
  const float smin[3] = {s.domain_min.x, s.domain_min.y, s.domain_min.z};
  const float smax[3] = {s.domain_max.x, s.domain_max.y, s.domain_max.z};
  const float dmin[3] = {config_.domain_min.x, config_.domain_min.y, config_.domain_min.z};
  const float dmax[3] = {config_.domain_max.x, config_.domain_max.y, config_.domain_max.z};
  const char* min_names[3] = {"domain_min[0]", "domain_min[1]", "domain_min[2]"};
  const char* max_names[3] = {"domain_max[0]", "domain_max[1]", "domain_max[2]"};
  for (int a = 0; a < 3; ++a) {
    require_same(smin[a], dmin[a], min_names[a], path);
    require_same(smax[a], dmax[a], max_names[a], path);
  }
  require_same(static_cast<float>(s.max_neighbors), static_cast<float>(config_.max_neighbors), "max_neighbors",
               path);
  require_same(static_cast<float>(s.method), static_cast<float>(config_.method), "method", path);
  // A checkpoint of the world's coordinates (versions 2 and 3) moves into the frame.
  ParticleState moved;
  const ParticleState* particles = &c.particles;
  std::vector<Plane> user_planes = c.planes;
  if (!c.in_frame && !frame_.is_world()) {
    moved = c.particles;
    for (Vec3& x : moved.positions) x = frame_.to_local(x);
    for (Plane& p : user_planes) p = frame_.to_local(p);
    particles = &moved;
  }
  const size_t n = particles->positions.size();
  if (n > config_.max_particles) {
    std::ostringstream msg;
    msg << "path: checkpoint '" << path << "' holds " << n << " particles, more than max_particles ("
        << config_.max_particles << ")";
    throw Error(Status::CapacityExceeded, msg.str());
  }
  if (c.planes.size() > kMaxPlanes)
    throw Error(Status::Io, "path: checkpoint '" + path + "' is corrupt: it holds more than 64 planes");
  const Vec3 lo = local_config_.domain_min, hi = local_config_.domain_max;
  for (const Vec3& x : particles->positions) {
    if (x.x < lo.x || x.y < lo.y || x.z < lo.z || x.x > hi.x || x.y > hi.y || x.z > hi.z)
      throw Error(Status::Io, "path: checkpoint '" + path + "' is corrupt: a particle lies outside the domain");
  }
  std::vector<Plane> planes = domain_walls(local_config_);
  planes.insert(planes.end(), user_planes.begin(), user_planes.end());
  reserve_particles(n);
  backend_->import_state(*particles);  // the last step that may fail
  planes_.swap(planes);
  params_ = c.params;
  stats_ = c.stats;
  unmeasured_ = c.unmeasured;
  for (ObstacleLoad& l : loads_) l = ObstacleLoad{};
}

}  // namespace pbf
