#include "methods/projective/cpu/projective_cpu_stages.h"

#include <algorithm>

namespace pbf {

ProjectiveCpuStages::ProjectiveCpuStages(CpuBackend& device, LaneTarget lanes)
    : device_(device), lanes_(projective_lane_passes(lanes)) {}

void ProjectiveCpuStages::reserve(size_t n) {
  const size_t stride = device_.config().max_neighbors;
  for (auto* a : {&s_, &offset_, &prev_}) a->reserve(n);
  compression_.reserve(n);
  step_sum_.reserve(n);
  active_.reserve(n);
  touching_.reserve(n);
  disp_.reserve(n * (stride + 1));
  back_.reserve(n * stride);
}

void ProjectiveCpuStages::fit() {
  const size_t n = device_.positions().size();
  const size_t stride = device_.config().max_neighbors;
  if (s_.size() == n) return;
  for (auto* a : {&s_, &offset_, &prev_}) a->resize(n);
  compression_.resize(n);
  step_sum_.resize(n);
  active_.resize(n);
  touching_.resize(n);
  disp_.resize(n * (stride + 1));
  back_.resize(n * stride);
}

void ProjectiveCpuStages::begin(const StepContext&, const ProjectiveConstants&) {
  fit();
  const LaneVector<Vec3>& xp = device_.predicted_positions();
  const NeighborLists nb = device_.neighbor_lists();
  device_.for_each_particle([&](uint32_t i) {
    s_[i] = xp[i];
    offset_[i] = Vec3{0.0f, 0.0f, 0.0f};
    prev_[i] = Vec3{0.0f, 0.0f, 0.0f};
    fill_back_slots(nb, i, back_.data());
  });
  device_.iterations().converged = false;
}

void ProjectiveCpuStages::local_step(const StepContext& ctx, const ProjectiveConstants& c, float tolerance) {
  CpuBackend::Iterations& state = device_.iterations();
  if (state.converged) return;
  fit();
  const LaneVector<Vec3>& xp = device_.predicted_positions();
  std::vector<float>& rho = device_.densities();
  const NeighborLists nb = device_.neighbor_lists();
  const float contact = wall_contact_distance(ctx.motion.particle_radius);
  device_.for_each_particle(
      [&](uint32_t i) { touching_[i] = touches_wall(ctx.planes, ctx.plane_count, contact, xp[i]); });
  const ProjectionWalls walls{ctx.planes, ctx.plane_count, contact, touching_.data()};
  const BoundarySamples boundary = device_.boundary_samples();
  const DensityWalls solid = projective_density_walls(c, ctx.planes, ctx.plane_count, ctx.density_planes_first);
  // Each constraint's displacements go to the particles that receive them
  // (receive_displacements()), so that the global step reads each
  // particle's in a row.
  device_.for_each_particle([&](uint32_t i) {
    Vec3 d[kMaxListSlots + 1];  // the constraint's particle and its neighbours
    const Projection p = lanes_.project_density_constraint(c, i, nb, boundary, solid, walls, xp.data(), d);
    if (p.steps > 0) receive_displacements(c, i, nb, back_.data(), d, disp_.data());
    compression_[i] = p.compression;
    step_sum_[i] = p.step_sum;
    active_[i] = p.steps > 0 ? 1 : 0;
    rho[i] = p.density;
  });
  const size_t n = xp.size();
  float largest = 0.0f;
  for (size_t i = 0; i < n; ++i) largest = std::max(largest, compression_[i]);  // max is order-free
  const double sum = device_.deterministic_sum([&](uint32_t i) { return static_cast<double>(compression_[i]); });
  const float mean = n > 0 ? static_cast<float>(sum / static_cast<double>(n)) : 0.0f;
  state.tally.mean_compression = mean;
  state.tally.max_compression = largest;
  state.converged = mean <= tolerance;
}

void ProjectiveCpuStages::global_step(const StepContext& ctx, const ProjectiveConstants& c, float omega) {
  CpuBackend::Iterations& state = device_.iterations();
  if (state.converged) return;
  fit();
  const LaneVector<Vec3>& x = device_.positions();
  LaneVector<Vec3>& xp = device_.predicted_positions();
  const NeighborLists nb = device_.neighbor_lists();
  const BoundarySamples boundary = device_.boundary_samples();
  const Obstacle* obstacles = device_.obstacles_for(ctx);
  // The collision records go to scratch, which the iterations do not use otherwise.
  LaneVector<Vec3>& record = device_.scratch();
  std::vector<uint8_t>& collided = device_.collided();
  omega_ = omega;
  // One pass: the system is diagonal, and a particle's row reads only its own iterate.
  device_.for_each_particle_pushing(ctx, [&](uint32_t l, const auto& push) {
    Vec3 residual;
    float diagonal;
    global_row_received(c, l, nb, back_.data(), s_.data(), xp.data(), disp_.data(), active_.data(), residual,
                        diagonal);
    global_step_particle(c, ctx.motion, ctx.planes, ctx.plane_count, obstacles, ctx.obstacle_count, l, residual,
                         diagonal, boundary, active_.data(), step_sum_.data(), compression_.data(), x[l], omega,
                         s_[l], xp.data(), offset_[l], prev_[l], push, ctx.bodies_couple ? &record[l] : nullptr,
                         &collided[l]);
  });
  ++state.tally.iterations;
}

void ProjectiveCpuStages::relieve_body_yields(const StepContext& ctx, const ProjectiveConstants& c,
                                              const BodyYield* before, const BodyYield* moved) {
  if (device_.iterations().converged) return;
  const LaneVector<Vec3>& x = device_.positions();
  LaneVector<Vec3>& xp = device_.predicted_positions();
  const LaneVector<Vec3>& record = device_.scratch();  // the global step's collision records
  const std::vector<uint8_t>& collided = device_.collided();
  const BoundarySamples boundary = device_.boundary_samples();
  // The last local step's projections and the global step's omega; the samples have not moved since.
  // A particle with neither a collision record nor a body's samples near gives nothing back and stays.
  device_.for_each_particle_pushing(ctx, [&](uint32_t l, const auto& push) {
    const bool near = active_[l] && boundary_body_scan(boundary, l);
    if (!near && collided[l] == kNoCollision) return;
    Vec3 relief{0.0f, 0.0f, 0.0f};
    if (near)
      relief = projective_body_yield_relief(c, xp[l], compression_[l], step_sum_[l], omega_, boundary, before,
                                            moved, push);
    relief += collision_relief(record[l], collided[l], xp[l] + relief, ctx.obstacle_count, before, moved, push);
    // Held out of the walls; the iterate and the extrapolation's previous iterate move alike.
    const Vec3 p = relieved(ctx.motion, ctx.planes, ctx.plane_count, xp[l], xp[l] + relief, x[l]);
    offset_[l] += p - xp[l];
    prev_[l] += p - xp[l];
    xp[l] = p;
  });
}

void ProjectiveCpuStages::update_velocities(const StepContext& ctx, const ProjectiveConstants& c) {
  LaneVector<Vec3>& x = device_.positions();
  LaneVector<Vec3>& v = device_.velocities();
  const LaneVector<Vec3>& xp = device_.predicted_positions();
  std::vector<float>& rho = device_.densities();
  const NeighborLists nb = device_.neighbor_lists();
  device_.for_each_particle([&](uint32_t i) {
    v[i] = updated_velocity(ctx.motion, ctx.planes, ctx.plane_count, x[i], xp[i], v[i]);
    x[i] = xp[i];
  });
  const BoundarySamples boundary = device_.boundary_samples();
  const DensityWalls solid = projective_density_walls(c, ctx.planes, ctx.plane_count, ctx.density_planes_first);
  device_.for_each_particle([&](uint32_t i) { rho[i] = cubic_density(c, i, nb, boundary, solid, xp.data()); });
}

}  // namespace pbf
