#include "methods/pbf/cpu/pbf_cpu_stages.h"

namespace pbf {

void PbfCpuStages::reserve(size_t n) {
  points_.reserve(n);
  reach_.reserve(n);
  v_volume_.reserve(n);
}

void PbfCpuStages::fit() {
  const size_t n = device_.positions().size();
  if (points_.size() != n) points_.resize(n);
  if (reach_.size() != n) reach_.resize(n);
  if (v_volume_.size() != n) v_volume_.resize(n);
}

void PbfCpuStages::solve_density(const StepContext& ctx, const PbfConstants& c, float tolerance) {
  CpuBackend::Iterations& state = device_.iterations();
  if (state.converged) return;
  fit();
  LaneVector<Vec3>& x = device_.positions();
  LaneVector<Vec3>& xp = device_.predicted_positions();
  LaneVector<Vec3>& out = device_.scratch();
  std::vector<float>& rho = device_.densities();
  std::vector<uint8_t>& collided = device_.collided();
  const NeighborLists nb = device_.neighbor_lists();
  const Obstacle* obstacles = device_.obstacles_for(ctx);
  const BoundarySamples boundary = device_.boundary_samples();
  const DensityWalls walls = pbf_density_walls(c, ctx.planes, ctx.plane_count, ctx.density_planes_first);
  // The planes are tested for a run's particles at once (most are far from
  // every plane); those no plane reaches skip them, with the same result.
  const DensityWalls no_walls = without_planes(walls);
  // The boundary samples' gradient at a particle near them is kept in `out`
  // (free until the correction's stage, which reads it there: the particle
  // has not moved).
  device_.for_each_run([&](uint32_t begin, uint32_t end) {
    FluidDensitySums<float, Vec3> sums[CpuBackend::kRun];
    uint8_t* reach = reach_.data() + begin;
    lanes_.fluid_density_sums(c, begin, end, nb, xp.data(), sums);
    lanes_.walls_reach(walls, xp.data() + begin, end - begin, reach);
    for (uint32_t i = begin; i < end; ++i) {
      const bool near = boundary_scan(boundary, i);
      float rho_b = 0.0f;
      Vec3 grad_b{0.0f, 0.0f, 0.0f};
      if (near) {
        lanes_.boundary_density_gradient(c.kernel, boundary, xp[i], rho_b, grad_b);
        out[i] = grad_b;
      }
      float lambda;
      density_lambda_given_boundary(c, sums[i - begin], xp[i], rho_b, grad_b, reach[i - begin] ? walls : no_walls,
                                    rho[i], lambda);
      points_[i] = PointValue{xp[i], lambda};
    }
  });
  if (tolerance >= 0.0f && !x.empty()) {
    const double sum =
        device_.deterministic_sum([&](uint32_t i) { return double(compression(rho[i], c.inv_rest_density)); });
    state.converged = static_cast<float>(sum / static_cast<double>(x.size())) <= tolerance;  // as the CUDA gate
  }
  device_.for_each_run_pushing(ctx, [&](uint32_t begin, uint32_t end, const auto& push) {
    // The fluid's part first, for the whole run, into dp; then the boundary's part (from the
    // samples' gradient that the lambda stage kept in out), then the collisions. A run's pushes
    // on obstacles go to its block's sink in that order (its samples' pushes, particle by
    // particle, then its collisions'): a fixed order, whatever the threads.
    Vec3 dp[CpuBackend::kRun];
    lanes_.fluid_position_corrections(c, begin, end, nb, points_.data(), dp);
    const uint8_t* reach = reach_.data() + begin;  // the lambda stage's, at the same points
    uint8_t touch[CpuBackend::kRun];
    for (uint32_t i = begin; i < end; ++i) {
      const bool near = boundary_scan(boundary, i);
      const PointValue& own = points_[i];  // x_p and lambda
      out[i] = own.p + (dp[i - begin] + boundary_correction_given(c, own.p, own.value, rho[i], near,
                                                                  near ? out[i] : Vec3{0.0f, 0.0f, 0.0f}, boundary,
                                                                  reach[i - begin] ? walls : no_walls, push));
    }
    lanes_.planes_touch(c, ctx.planes, ctx.plane_count, out.data() + begin, end - begin, touch);
    // The collision records go to xp, which this stage no longer reads and which scratch holds after it.
    for (uint32_t i = begin; i < end; ++i)
      out[i] = collide_keeping(c, ctx.planes, touch[i - begin] ? ctx.plane_count : 0u, obstacles, ctx.obstacle_count,
                               out[i], x[i], push, ctx.bodies_couple ? &xp[i] : nullptr, &collided[i]);
  });
  xp.swap(out);
  ++state.tally.iterations;
}

void PbfCpuStages::relieve_body_yields(const StepContext& ctx, const PbfConstants& c, const BodyYield* before,
                                       const BodyYield* moved) {
  LaneVector<Vec3>& xp = device_.predicted_positions();
  const LaneVector<Vec3>& record = device_.scratch();  // the iteration's collision records
  const std::vector<uint8_t>& collided = device_.collided();
  const std::vector<float>& rho = device_.densities();
  const BoundarySamples boundary = device_.boundary_samples();
  const LaneVector<Vec3>& x = device_.positions();
  // points_ and rho hold the last iteration's points, lambdas and densities; the samples have not moved since.
  // A particle with neither a collision record nor a body's samples near gives nothing back and stays: most
  // particles, passed over without touching their positions.
  device_.for_each_particle_pushing(ctx, [&](uint32_t i, const auto& push) {
    const bool near = boundary_body_scan(boundary, i);
    if (!near && collided[i] == kNoCollision) return;
    Vec3 p = xp[i];
    if (near) p += body_yield_relief(c, points_[i].p, points_[i].value, rho[i], boundary, before, moved, push);
    p += collision_relief(record[i], collided[i], p, ctx.obstacle_count, before, moved, push);
    xp[i] = relieved(c, ctx.planes, ctx.plane_count, xp[i], p, x[i]);
  });
}

void PbfCpuStages::update_velocities(const StepContext& ctx, const PbfConstants& c) {
  LaneVector<Vec3>& x = device_.positions();
  LaneVector<Vec3>& v = device_.velocities();
  const LaneVector<Vec3>& xp = device_.predicted_positions();
  std::vector<float>& rho = device_.densities();
  const NeighborLists nb = device_.neighbor_lists();
  const BoundarySamples boundary = device_.boundary_samples();
  const DensityWalls walls = pbf_density_walls(c, ctx.planes, ctx.plane_count, ctx.density_planes_first);
  const DensityWalls no_walls = without_planes(walls);
  device_.for_each_run([&](uint32_t begin, uint32_t end) {
    // The fluid's kernel sums first, for the whole run, into rho.
    lanes_.fluid_kernel_sums(c, begin, end, nb, xp.data(), rho.data() + begin);
    uint8_t reach[CpuBackend::kRun];
    lanes_.walls_reach(walls, xp.data() + begin, end - begin, reach);
    for (uint32_t i = begin; i < end; ++i) {
      v[i] = updated_velocity(c, ctx.planes, ctx.plane_count, x[i], xp[i], v[i]);
      x[i] = xp[i];
      rho[i] = density(c, i, rho[i], xp.data(), boundary, reach[i - begin] ? walls : no_walls);
    }
  });
}

void PbfCpuStages::apply_vorticity_viscosity(const StepContext&, const PbfConstants& c) {
  if (c.vorticity <= 0.0f && c.xsph <= 0.0f) return;
  fit();
  const LaneVector<Vec3>& x = device_.positions();
  LaneVector<Vec3>& v = device_.velocities();
  LaneVector<Vec3>& out = device_.scratch();
  const std::vector<float>& rho = device_.densities();
  const NeighborLists nb = device_.neighbor_lists();
  // Each particle's velocity with its volume, and its point with |omega|,
  // for the passes to read with one load each (the volume as vorticity()
  // takes it; |omega| from the vorticity pass, unread without confinement).
  const bool confinement = c.vorticity > 0.0f;
  device_.for_each_run([&](uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; ++i) {
      v_volume_[i] = PointValue{v[i], c.mass / rho[i]};
      if (!confinement) points_[i] = PointValue{x[i], 0.0f};
    }
  });
  // Each particle's vorticity goes to `out`, where the last pass reads it
  // (only its own particle's, which it then overwrites with the velocity).
  Vec3* omega = out.data();
  if (confinement) {
    device_.for_each_run([&](uint32_t begin, uint32_t end) {
      lanes_.vorticities(c, begin, end, nb, x.data(), v_volume_.data(), omega + begin);
      for (uint32_t i = begin; i < end; ++i) points_[i] = PointValue{x[i], length(omega[i])};
    });
  }
  device_.for_each_run([&](uint32_t begin, uint32_t end) {
    VorticityViscositySums sums[CpuBackend::kRun];
    lanes_.vorticity_viscosity_sums(c, begin, end, nb, points_.data(), v_volume_.data(), sums);
    for (uint32_t i = begin; i < end; ++i) out[i] = vorticity_viscosity(c, i, sums[i - begin], v.data(), omega);
  });
  v.swap(out);
}

}  // namespace pbf
