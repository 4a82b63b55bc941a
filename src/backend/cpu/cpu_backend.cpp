#include "backend/cpu/cpu_backend.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cmath>

#include "boundary/pseudo_mass.h"
#include "core/error.h"
#include "core/local_frame.h"

namespace pbf {

namespace {

GridSpec grid_for(const SolverConfig& config) {
  GridSpec g{};
  g.origin = config.domain_min;
  g.inv_cell = 1.0f / config.kernel_radius;
  const Vec3 extent = config.domain_max - config.domain_min;
  const float e[3] = {extent.x, extent.y, extent.z};
  for (int a = 0; a < 3; ++a)
    g.dim[a] = std::max(1, static_cast<int>(std::ceil(e[a] / config.kernel_radius)));
  return g;
}

template <class Array>
void gather(const std::vector<uint32_t>& order, const Array& from, Array& to, size_t n) {
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 2048), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t k = r.begin(); k < r.end(); ++k) to[k] = from[order[k]];
  });
}

// The slots of each neighbour list kept in its head row: as many as a
// kernel sphere holds at 20 % compression, to the nearest multiple of the lanes'
// groups (40 of the 56 the automatic max_neighbors keeps at the default
// kernel radius of two spacings), so that the passes over every particle
// stream the slots that lists fill and not the room kept past them.
uint32_t list_head(const SolverConfig& config) {
  const double filled = 1.2 * particles_in_kernel_at_rest(config.kernel_radius, config.particle_spacing);
  const uint32_t head = static_cast<uint32_t>(std::lround(filled / kLaneGroup)) * kLaneGroup;
  return std::min(config.max_neighbors, std::max(head, kLaneGroup));
}

}  // namespace

CpuBackend::CpuBackend(const SolverConfig& config)
    : config_(config),
      stride_(config.max_neighbors),
      head_(list_head(config)),
      arena_(config.thread_count),
      grid_(grid_for(config)) {
  if (stride_ > kMaxListSlots)
    throw Error(Status::InvalidArgument, "max_neighbors: the CPU backend keeps at most 1024 neighbours a particle");
}

void CpuBackend::resize(size_t n) {
  // Reserve everything first: if an allocation fails, every array still has
  // its old size and the solver its old state. Afterwards nothing allocates,
  // here or in any later step with at most n particles.
  for (auto* a : {&x_, &v_, &xp_, &scratch_}) a->reserve(n);
  rho_.reserve(n);
  for (auto* a : {&id_, &order_, &nb_count_}) a->reserve(n);
  boundary_near_.reserve(n);
  collided_.reserve(n);
  nb_index_.reserve(n * static_cast<size_t>(stride_));
  grid_.reserve(n);
  fit_pushes(n, obstacles_.size());
  for (auto* a : {&x_, &v_, &xp_, &scratch_}) a->resize(n);
  rho_.resize(n);
  id_.resize(n);
  order_.resize(n);
  nb_count_.assign(n, 0u);
  boundary_near_.assign(n, kNearSample | kNearBody);
  collided_.assign(n, kNoCollision);
  nb_index_.resize(n * static_cast<size_t>(stride_));
}

void CpuBackend::append(const float* positions, const float* velocities, size_t n) {
  const size_t old = x_.size();
  resize(old + n);
  for (size_t i = 0; i < n; ++i) {
    const size_t k = old + i;
    x_[k] = Vec3{positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]};
    v_[k] = velocities ? Vec3{velocities[3 * i], velocities[3 * i + 1], velocities[3 * i + 2]} : Vec3{0, 0, 0};
    xp_[k] = x_[k];
    rho_[k] = 0.0f;
    id_[k] = static_cast<uint32_t>(k);
  }
}

void CpuBackend::read(Field field, float* out) const {
  const size_t n = x_.size();
  for (size_t k = 0; k < n; ++k) {
    const size_t u = id_[k];
    if (field == Field::Density) {
      out[u] = rho_[k];
      continue;
    }
    const Vec3 a = field == Field::Position ? x_[k] : v_[k];
    out[3 * u] = a.x;
    out[3 * u + 1] = a.y;
    out[3 * u + 2] = a.z;
  }
}

void CpuBackend::write(Field field, const float* in) {
  LaneVector<Vec3>& a = field == Field::Position ? x_ : v_;
  for (size_t k = 0; k < x_.size(); ++k) {
    const size_t u = id_[k];
    a[k] = Vec3{in[3 * u], in[3 * u + 1], in[3 * u + 2]};
  }
}

const float* CpuBackend::map(Field field, bool device, Vec3 offset) {
  if (device) throw Error(Status::InvalidArgument, "memory: the CPU backend has no device memory");
  std::vector<float>& copy = mapped_[static_cast<int>(field)];
  copy.resize((field == Field::Density ? 1 : 3) * x_.size());
  read(field, copy.data());
  if (field != Field::Density) LocalFrame{offset}.to_world(copy.data(), x_.size());
  return copy.data();
}

void CpuBackend::export_state(ParticleState& out) const {
  out.positions.assign(x_.begin(), x_.end());
  out.velocities.assign(v_.begin(), v_.end());
  out.densities = rho_;
  out.user_ids = id_;
}

void CpuBackend::import_state(const ParticleState& in) {
  resize(in.positions.size());  // reserves first: throws with the old state intact
  std::copy(in.positions.begin(), in.positions.end(), x_.begin());
  std::copy(in.velocities.begin(), in.velocities.end(), v_.begin());
  std::copy(in.positions.begin(), in.positions.end(), xp_.begin());
  std::copy(in.densities.begin(), in.densities.end(), rho_.begin());
  std::copy(in.user_ids.begin(), in.user_ids.end(), id_.begin());
}

void CpuBackend::set_obstacle_fields(const SdfGridView* fields, uint32_t count) {
  std::vector<std::vector<float>> values(count);
  std::vector<Obstacle> obstacles(count);
  for (uint32_t k = 0; k < count; ++k) {
    const SdfGridView& f = fields[k];
    values[k].assign(f.values, f.values + size_t(f.nx) * f.ny * f.nz);
    obstacles[k].field = f;
    obstacles[k].field.values = values[k].data();
  }
  fit_pushes(x_.size(), count);
  field_values_.swap(values);
  obstacles_.swap(obstacles);
}

void CpuBackend::set_obstacle_friction(const float* friction, uint32_t count) {
  if (count != obstacles_.size())
    throw Error(Status::Internal, "CPU backend: friction for another number of obstacles than it holds");
  for (uint32_t k = 0; k < count; ++k) obstacles_[k].friction = friction[k];
}

void CpuBackend::fit_pushes(size_t n, size_t count) {
  const size_t size = (n + kPushBlock - 1) / kPushBlock * count;
  if (pushes_.size() < size) pushes_.resize(size, ObstaclePush{});
  std::fill(pushes_.begin(), pushes_.end(), ObstaclePush{});
}

void CpuBackend::take_obstacle_pushes(ObstaclePush* out, uint32_t count) {
  for (uint32_t k = 0; k < count; ++k) out[k] = ObstaclePush{};
  const size_t have = obstacles_.size();
  if (have == 0 || count > have) {
    std::fill(pushes_.begin(), pushes_.end(), ObstaclePush{});
    return;
  }
  // In block order: the same sums for any thread count.
  const size_t blocks = pushes_.size() / have;
  for (size_t b = 0; b < blocks; ++b)
    for (uint32_t k = 0; k < count; ++k) {
      ObstaclePush& s = pushes_[b * have + k];
      for (int a = 0; a < 3; ++a) {
        out[k].d[a] += s.d[a];
        out[k].moment[a] += s.moment[a];
      }
      for (int e = 0; e < kSymmetric6; ++e) out[k].added[e] += s.added[e];
      s = ObstaclePush{};
    }
}

void CpuBackend::set_boundary_particles(const Vec3* positions, const uint32_t* body, const Vec3* local,
                                        size_t count, DensityKernel density_kernel) {
  if (count == 0) {
    boundary_grid_.reset();
    boundary_x_ = {};
    boundary_psi_ = {};
    boundary_body_ = {};
    boundary_body_sorted_ = {};
    boundary_local_ = {};
    boundary_world_ = {};
    boundary_psi_given_ = {};
    boundary_order_ = {};
    return;
  }
  const bool moving =
      body != nullptr && std::any_of(body, body + count, [](uint32_t b) { return b != kStaticBoundary; });
  // Everything is built aside and swapped in at the end, so a failed allocation changes nothing.
  auto grid = std::make_unique<CpuNeighborGrid>(grid_.spec());
  grid->reserve(count);
  std::vector<uint32_t> order(count);
  LaneVector<Vec3> sorted(count);
  std::vector<float> psi(count);
  std::vector<uint32_t> sorted_body(moving ? count : 0);
  std::vector<uint32_t> bodies;
  std::vector<Vec3> locals, world;
  std::vector<float> psi_given;
  uint32_t max_body = 0;
  if (moving) {
    bodies.assign(body, body + count);
    locals.resize(count);
    for (size_t k = 0; k < count; ++k) {
      locals[k] = body[k] == kStaticBoundary ? positions[k] : local[k];
      if (body[k] != kStaticBoundary) max_body = std::max(max_body, body[k]);
    }
    world.resize(count);
  }
  // Akinci eq. 5, each body's sums over its own samples, in the order given; a rigid body's do not
  // change with its pose, so they are computed once, here.
  arena_.execute([&] {
    psi_given = boundary_pseudo_masses(positions, moving ? body : nullptr, count, density_kernel,
                                       config_.kernel_radius, config_.rest_density);
    // Samples beyond reach of the domain (an obstacle parked far outside) go to the bucket after the
    // last cell, where no fluid particle's scan reads them, as move_boundary() places them.
    grid->sort_setting_aside(positions, count, order.data());
    tbb::parallel_for(tbb::blocked_range<size_t>(0, count, 2048), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t k = r.begin(); k < r.end(); ++k) {
        sorted[k] = positions[order[k]];
        psi[k] = psi_given[order[k]];
        if (moving) sorted_body[k] = body[order[k]];
      }
    });
  });
  if (!moving) psi_given = {};
  boundary_grid_.swap(grid);
  boundary_x_.swap(sorted);
  boundary_psi_.swap(psi);
  boundary_body_.swap(bodies);
  boundary_body_sorted_.swap(sorted_body);
  boundary_local_.swap(locals);
  boundary_world_.swap(world);
  boundary_psi_given_.swap(psi_given);
  boundary_order_.swap(order);
  if (!moving) boundary_order_ = {};
  boundary_max_body_ = max_body;
}

void CpuBackend::move_boundary(const StepContext& ctx) {
  if (boundary_max_body_ >= ctx.obstacle_count)
    throw Error(Status::Internal, "CPU backend: a boundary sample moves with an obstacle the step does not name");
  const size_t count = boundary_body_.size();
  arena_.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, count, 2048), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t k = r.begin(); k < r.end(); ++k) {
        const uint32_t b = boundary_body_[k];
        boundary_world_[k] =
            b == kStaticBoundary ? boundary_local_[k] : to_world(ctx.obstacle_poses[b].end, boundary_local_[k]);
      }
    });
    boundary_grid_->sort_setting_aside(boundary_world_.data(), count, boundary_order_.data());
    tbb::parallel_for(tbb::blocked_range<size_t>(0, count, 2048), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t k = r.begin(); k < r.end(); ++k) {
        boundary_x_[k] = boundary_world_[boundary_order_[k]];
        boundary_psi_[k] = boundary_psi_given_[boundary_order_[k]];
        boundary_body_sorted_[k] = boundary_body_[boundary_order_[k]];
      }
    });
  });
}

void CpuBackend::follow_obstacles(const StepContext& ctx) {
  if (boundary_order_.empty()) return;  // no sample moves
  if (boundary_max_body_ >= ctx.obstacle_count)
    throw Error(Status::Internal, "CPU backend: a boundary sample moves with an obstacle the step does not name");
  const size_t count = boundary_x_.size();
  arena_.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, count, 2048), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t k = r.begin(); k < r.end(); ++k) {
        const uint32_t b = boundary_body_sorted_[k];
        if (b != kStaticBoundary)
          boundary_x_[k] = to_world(ctx.obstacle_poses[b].end, boundary_local_[boundary_order_[k]]);
      }
    });
  });
}

BoundarySamples CpuBackend::boundary_samples() const {
  if (!boundary_grid_) return BoundarySamples{};
  return BoundarySamples{boundary_grid_->spec(), boundary_grid_->cell_start(), boundary_x_.data(),
                         boundary_psi_.data(), static_cast<uint32_t>(boundary_x_.size()), boundary_near_.data(),
                         boundary_body_sorted_.empty() ? nullptr : boundary_body_sorted_.data()};
}

const Obstacle* CpuBackend::obstacles_for(const StepContext& ctx) {
  if (ctx.obstacle_count != obstacles_.size())
    throw Error(Status::Internal, "CPU backend: a step names another number of obstacles than it holds");
  for (uint32_t k = 0; k < ctx.obstacle_count; ++k) obstacles_[k].pose = ctx.obstacle_poses[k];
  return obstacles_.data();
}

void CpuBackend::predict(const StepContext& ctx) {
  iterations_.converged = false;  // a new substep's iterations
  const MotionConstants& c = ctx.motion;
  const Obstacle* obstacles = obstacles_for(ctx);
  // The collision records go to scratch (free until the grid's sort) and collided_.
  for_each_particle_pushing(ctx, [&](uint32_t i, const auto& push) {
    pbf::predict(c, x_[i], v_[i], xp_[i]);
    xp_[i] = collide_keeping(c, ctx.planes, ctx.plane_count, obstacles, ctx.obstacle_count, xp_[i], x_[i], push,
                             ctx.bodies_couple ? &scratch_[i] : nullptr, &collided_[i]);
  });
}

void CpuBackend::relieve_collisions(const StepContext& ctx, const BodyYield* before, const BodyYield* moved) {
  if (ctx.obstacle_count == 0) return;
  for_each_particle_pushing(ctx, [&](uint32_t i, const auto& push) {
    if (collided_[i] == kNoCollision) return;  // nothing to give back: the particle stays
    const Vec3 p = xp_[i];
    const Vec3 relief = collision_relief(scratch_[i], collided_[i], p, ctx.obstacle_count, before, moved, push);
    xp_[i] = relieved(ctx.motion, ctx.planes, ctx.plane_count, p, p + relief, x_[i]);
  });
}

void CpuBackend::build_grid(const StepContext& ctx) {
  if (!boundary_body_.empty()) move_boundary(ctx);
  const size_t n = x_.size();
  arena_.execute([&] {
    grid_.sort(xp_.data(), n, order_.data());
    // Each array of points into the stages' scratch, which holds nothing
    // between substeps, and swapped with it.
    gather(order_, x_, scratch_, n);
    x_.swap(scratch_);
    gather(order_, v_, scratch_, n);
    v_.swap(scratch_);
    gather(order_, xp_, scratch_, n);
    xp_.swap(scratch_);
    // The user indices last, in place of the order, which no one reads after
    // the gathers: order[k] becomes id[order[k]], and the two arrays swap.
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 2048), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t k = r.begin(); k < r.end(); ++k) order_[k] = id_[order_[k]];
    });
    id_.swap(order_);
  });
}

void CpuBackend::find_neighbors(const StepContext&) {
  arena_.execute([&] {
    overflows_ = grid_.find_neighbors(xp_.data(), x_.size(), config_.kernel_radius, stride_, head_, nb_index_.data(),
                                      nb_count_.data());
  });
  const BoundarySamples boundary = boundary_samples();
  if (boundary.count == 0) return;
  const float reach = kBoundaryNearReach * config_.kernel_radius;
  const BoundaryNear near = boundary_near_for(best_lane_target());
  for_each_run(
      [&](uint32_t begin, uint32_t end) { near(boundary, xp_.data(), begin, end, reach, boundary_near_.data()); });
}

namespace {
struct Measures {
  double error_sum = 0.0;
  float error_max = 0.0f;
  double neighbor_sum = 0.0;
  uint32_t neighbor_max = 0;
  float speed2_max = 0.0f;
  Vec3 lower{HUGE_VALF, HUGE_VALF, HUGE_VALF};
  Vec3 upper{-HUGE_VALF, -HUGE_VALF, -HUGE_VALF};
};
}  // namespace

void CpuBackend::measure(StepStats& stats) const {
  const size_t n = x_.size();
  const float inv_rho0 = 1.0f / config_.rest_density;
  Measures m;
  arena_.execute([&] {
    // A deterministic reduction: the same split and join order for any thread count.
    m = tbb::parallel_deterministic_reduce(
        tbb::blocked_range<size_t>(0, n, 4096), Measures{},
        [&](const tbb::blocked_range<size_t>& r, Measures acc) {
          for (size_t i = r.begin(); i < r.end(); ++i) {
            const float e = compression(rho_[i], inv_rho0);
            acc.error_sum += e;
            acc.error_max = std::max(acc.error_max, e);
            acc.neighbor_sum += nb_count_[i];
            acc.neighbor_max = std::max(acc.neighbor_max, nb_count_[i]);
            acc.speed2_max = std::max(acc.speed2_max, length_squared(v_[i]));
            acc.lower = min_each(acc.lower, x_[i]);
            acc.upper = max_each(acc.upper, x_[i]);
          }
          return acc;
        },
        [](Measures a, const Measures& b) {
          a.error_sum += b.error_sum;
          a.error_max = std::max(a.error_max, b.error_max);
          a.neighbor_sum += b.neighbor_sum;
          a.neighbor_max = std::max(a.neighbor_max, b.neighbor_max);
          a.speed2_max = std::max(a.speed2_max, b.speed2_max);
          a.lower = min_each(a.lower, b.lower);
          a.upper = max_each(a.upper, b.upper);
          return a;
        },
        tbb::simple_partitioner());
  });
  const double count = n > 0 ? static_cast<double>(n) : 1.0;
  stats.particle_count = static_cast<uint32_t>(n);
  stats.avg_density_error = static_cast<float>(m.error_sum / count);
  stats.max_density_error = m.error_max;
  stats.avg_neighbors = static_cast<float>(m.neighbor_sum / count);
  stats.max_neighbors = m.neighbor_max;
  stats.neighbor_overflows = overflows_;
  stats.max_speed = std::sqrt(m.speed2_max);
  stats.lower = n > 0 ? m.lower : Vec3{0.0f, 0.0f, 0.0f};
  stats.upper = n > 0 ? m.upper : Vec3{0.0f, 0.0f, 0.0f};
}

IterationTally CpuBackend::iteration_tally() {
  const IterationTally t = iterations_.tally;
  iterations_.tally = IterationTally{};
  return t;
}

}  // namespace pbf
