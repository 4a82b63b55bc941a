#include "methods/pbf/cpu/pbf_cpu_stages.h"

namespace pbf {

void PbfCpuStages::reserve(size_t n) {
  lambda_.reserve(n);
  omega_.reserve(n);
  omega_length_.reserve(n);
}

void PbfCpuStages::fit() {
  const size_t n = device_.positions().size();
  if (lambda_.size() != n) lambda_.resize(n);
  if (omega_.size() != n) omega_.resize(n);
  if (omega_length_.size() != n) omega_length_.resize(n);
}

void PbfCpuStages::solve_density(const StepContext& ctx, const PbfConstants& c, float tolerance) {
  CpuBackend::Iterations& state = device_.iterations();
  if (state.converged) return;
  fit();
  std::vector<Vec3>& x = device_.positions();
  std::vector<Vec3>& xp = device_.predicted_positions();
  std::vector<Vec3>& out = device_.scratch();
  std::vector<float>& rho = device_.densities();
  const NeighborLists nb = device_.neighbor_lists();
  const Obstacle* obstacles = device_.obstacles_for(ctx);
  const BoundarySamples boundary = device_.boundary_samples();
  const DensityWalls walls = pbf_density_walls(c, ctx.planes, ctx.plane_count, ctx.density_planes_first);
  device_.for_each_particle([&](uint32_t i) {
    density_lambda(c, i, lanes_.fluid_density_sums(c, i, nb, xp.data()), xp.data(), boundary, walls, rho[i],
                   lambda_[i]);
  });
  if (tolerance >= 0.0f && !x.empty()) {
    const double sum =
        device_.deterministic_sum([&](uint32_t i) { return double(compression(rho[i], c.inv_rest_density)); });
    state.converged = static_cast<float>(sum / static_cast<double>(x.size())) <= tolerance;  // as the CUDA gate
  }
  device_.for_each_particle_pushing(ctx, [&](uint32_t i, const auto& push) {
    const Vec3 moved = xp[i] + (lanes_.fluid_position_correction(c, i, nb, xp.data(), lambda_.data()) +
                                boundary_correction(c, i, xp.data(), lambda_.data(), boundary, walls, push));
    out[i] = collide(c, ctx.planes, ctx.plane_count, obstacles, ctx.obstacle_count, moved, x[i], push);
  });
  xp.swap(out);
  ++state.tally.iterations;
}

void PbfCpuStages::update_velocities(const StepContext& ctx, const PbfConstants& c) {
  std::vector<Vec3>& x = device_.positions();
  std::vector<Vec3>& v = device_.velocities();
  const std::vector<Vec3>& xp = device_.predicted_positions();
  std::vector<float>& rho = device_.densities();
  const NeighborLists nb = device_.neighbor_lists();
  const BoundarySamples boundary = device_.boundary_samples();
  const DensityWalls walls = pbf_density_walls(c, ctx.planes, ctx.plane_count, ctx.density_planes_first);
  device_.for_each_particle([&](uint32_t i) {
    v[i] = updated_velocity(c, ctx.planes, ctx.plane_count, x[i], xp[i], v[i]);
    x[i] = xp[i];
    rho[i] = density(c, i, lanes_.fluid_kernel_sum(c, i, nb, xp.data()), xp.data(), boundary, walls);
  });
}

void PbfCpuStages::apply_vorticity_viscosity(const StepContext&, const PbfConstants& c) {
  if (c.vorticity <= 0.0f && c.xsph <= 0.0f) return;
  fit();
  const std::vector<Vec3>& x = device_.positions();
  std::vector<Vec3>& v = device_.velocities();
  std::vector<Vec3>& out = device_.scratch();
  const std::vector<float>& rho = device_.densities();
  const NeighborLists nb = device_.neighbor_lists();
  if (c.vorticity > 0.0f) {
    device_.for_each_particle([&](uint32_t i) {
      omega_[i] = lanes_.vorticity(c, i, nb, x.data(), v.data(), rho.data());
      omega_length_[i] = length(omega_[i]);
    });
  }
  device_.for_each_particle([&](uint32_t i) {
    const VorticityViscositySums sums =
        lanes_.vorticity_viscosity_sums(c, i, nb, x.data(), v.data(), rho.data(), omega_length_.data());
    out[i] = vorticity_viscosity(c, i, sums, v.data(), omega_.data());
  });
  v.swap(out);
}

}  // namespace pbf
