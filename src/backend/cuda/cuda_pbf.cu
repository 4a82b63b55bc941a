// cuda_pbf.cu - Position Based Fluids' stages on the GPU: prediction with
// collisions, density and position correction, the update of velocities, and
// vorticity confinement with XSPH viscosity. Each kernel calls pbf_equations.h
// for one particle and writes only that particle; the stages read the
// neighbour lists (cuda_grid.cu) and the boundary samples and obstacles
// (cuda_boundary.cu), and write x_, v_, xp_, rho_, lambda_, omega_ and scratch_;
// the density iterations end on the GPU at the tolerance (k_iteration_gate).
#include "backend/cuda/cuda_backend.cuh"

#include "backend/cuda/cuda_launch.cuh"
#include "solver/pbf/pbf_equations.h"

namespace pbf {

namespace {

// Starts a substep: its density iterations are open again.
__global__ void k_predict(size_t n, PbfConstants c, PlaneSet planes, const Obstacle* obstacles,
                          uint32_t obstacle_count, const Vec3* x, Vec3* v, Vec3* xp, IterationDeviceState* state) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i == 0) state->converged = 0;
  if (i >= n) return;
  Vec3 vi = v[i];
  Vec3 p;
  predict(c, x[i], vi, p);
  v[i] = vi;
  xp[i] = collide(c, planes.plane, planes.count, obstacles, obstacle_count, p, x[i]);
}

// The density iterations' kernels return at once when the substep's
// iterations have converged: every thread reads the same flag, set before the
// kernel began. With `partials`, each block's sum and largest compression
// (block_reduce) go to the gate after the correction.
__global__ void k_density_lambda(size_t n, PbfConstants c, PlaneSet planes, NeighborLists nb,
                                 BoundarySamples boundary, const Vec3* xp, float* rho, float* lambda,
                                 double* partials, float* partial_max, const IterationDeviceState* state) {
  if (state->converged) return;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  float e = 0.0f;
  if (i < n) {
    float r, l;
    const DensityWalls walls = pbf_density_walls(c, planes.plane, planes.count, planes.density_first);
    density_lambda(c, static_cast<uint32_t>(i), nb, xp, boundary, walls, r, l);
    rho[i] = r;
    lambda[i] = l;
    e = compression(r, c.inv_rest_density);
  }
  if (partials) block_reduce(e, e, partials, partial_max);
}

// Writes the corrected positions to `out`, which the stage then swaps with
// xp; once converged it copies xp there unchanged, so that the swap (recorded
// with the graph) keeps them.
__global__ void k_correct(size_t n, PbfConstants c, PlaneSet planes, const Obstacle* obstacles,
                          uint32_t obstacle_count, NeighborLists nb, BoundarySamples boundary, const Vec3* xp,
                          const float* lambda, const Vec3* x, Vec3* out, IterationDeviceState* state) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (state->converged) {
    if (i < n) out[i] = xp[i];
    return;
  }
  if (i == 0) state->iterations += 1;
  if (i >= n) return;
  const DensityWalls walls = pbf_density_walls(c, planes.plane, planes.count, planes.density_first);
  const Vec3 moved = xp[i] + position_correction(c, static_cast<uint32_t>(i), nb, xp, lambda, boundary, walls);
  out[i] = collide(c, planes.plane, planes.count, obstacles, obstacle_count, moved, x[i]);
}

__global__ void k_update_velocity(size_t n, PbfConstants c, PlaneSet planes, NeighborLists nb,
                                  BoundarySamples boundary, Vec3* x, const Vec3* xp, Vec3* v, float* rho) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  v[i] = updated_velocity(c, planes.plane, planes.count, x[i], xp[i], v[i]);
  x[i] = xp[i];
  rho[i] = density(c, static_cast<uint32_t>(i), nb, xp, boundary,
                   pbf_density_walls(c, planes.plane, planes.count, planes.density_first));
}

__global__ void k_vorticity(size_t n, PbfConstants c, NeighborLists nb, const Vec3* x, const Vec3* v,
                            const float* rho, Vec3* omega) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) omega[i] = vorticity(c, static_cast<uint32_t>(i), nb, x, v, rho);
}

__global__ void k_vorticity_viscosity(size_t n, PbfConstants c, NeighborLists nb, const Vec3* x, const Vec3* v,
                                      const float* rho, const Vec3* omega, Vec3* out) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = vorticity_viscosity(c, static_cast<uint32_t>(i), nb, x, v, rho, omega);
}

}  // namespace

void CudaBackend::predict(const StepContext& ctx) {
  use_device();
  begin_stage(&StepStats::time_predict_ms);
  const Obstacle* obstacles = obstacles_for(ctx);
  k_predict<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, ctx.constants, plane_set(ctx), obstacles,
                                                     ctx.obstacle_count, x_.data(), v_.data(), xp_.data(),
                                                     iteration_state_.data());
  check_launch("k_predict");
  finish("predict");
}

void CudaBackend::solve_density(const StepContext& ctx, float tolerance) {
  use_device();
  begin_stage(&StepStats::time_constraints_ms);
  const unsigned b = blocks_for(n_);
  const NeighborLists nb = neighbor_lists();
  const BoundarySamples boundary = boundary_samples();
  const bool gate = tolerance >= 0.0f;
  k_density_lambda<<<b, kBlock, 0, stream_>>>(n_, ctx.constants, plane_set(ctx), nb, boundary, xp_.data(),
                                              rho_.data(), lambda_.data(),
                                              gate ? iteration_partials_.data() : nullptr,
                                              iteration_partial_max_.data(), iteration_state_.data());
  check_launch("k_density_lambda");
  const Obstacle* obstacles = obstacles_for(ctx);
  k_correct<<<b, kBlock, 0, stream_>>>(n_, ctx.constants, plane_set(ctx), obstacles, ctx.obstacle_count, nb,
                                       boundary, xp_.data(), lambda_.data(), x_.data(), scratch_.data(),
                                       iteration_state_.data());
  check_launch("k_correct");
  xp_.swap(scratch_);
  // After the correction, which this iteration makes whatever the gate finds.
  if (gate) {
    k_iteration_gate<<<1, kBlock, 0, stream_>>>(b, n_, tolerance, iteration_partials_.data(),
                                                 iteration_partial_max_.data(), iteration_state_.data());
    check_launch("k_iteration_gate");
  }
  finish("solve_density");
}

void CudaBackend::update_velocities(const StepContext& ctx) {
  use_device();
  begin_stage(&StepStats::time_velocity_ms);
  k_update_velocity<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, ctx.constants, plane_set(ctx), neighbor_lists(),
                                                             boundary_samples(), x_.data(), xp_.data(), v_.data(),
                                                             rho_.data());
  check_launch("k_update_velocity");
  copy_tally_to_host();
  finish("update_velocities");
}

void CudaBackend::apply_vorticity_viscosity(const StepContext& ctx) {
  const PbfConstants& c = ctx.constants;
  if (c.vorticity <= 0.0f && c.xsph <= 0.0f) return;
  use_device();
  begin_stage(&StepStats::time_vorticity_viscosity_ms);
  const unsigned b = blocks_for(n_);
  const NeighborLists nb = neighbor_lists();
  if (c.vorticity > 0.0f) {
    k_vorticity<<<b, kBlock, 0, stream_>>>(n_, c, nb, x_.data(), v_.data(), rho_.data(), omega_.data());
    check_launch("k_vorticity");
  }
  k_vorticity_viscosity<<<b, kBlock, 0, stream_>>>(n_, c, nb, x_.data(), v_.data(), rho_.data(), omega_.data(),
                                                   scratch_.data());
  check_launch("k_vorticity_viscosity");
  v_.swap(scratch_);
  finish("apply_vorticity_viscosity");
}

}  // namespace pbf
