// cuda_projective.cu - Projective Fluids' stages on the GPU: the start of a
// substep's iterations, the local step (the projection of every density
// constraint, with the compression reduced per block in a fixed order), the
// gate that ends the iterations on the GPU (cuda_launch.cuh) so that the host never waits, the
// global step and the update of velocities and densities. Its kernels call
// projective_equations.h; it touches the pf_* buffers, x_, v_, xp_ and rho_,
// and hands the host the iterations' tally (copy_tally_to_host()).
#include "backend/cuda/cuda_backend.cuh"

#include <algorithm>

#include "backend/cuda/cuda_launch.cuh"
#include "solver/pbf/pbf_equations.h"
#include "solver/projective/projective_equations.h"

namespace pbf {

namespace {

// Starts a substep's iterations: the prediction is the inertial target and
// the first (and previous) iterate; the iterations are open again.
__global__ void k_pf_begin(size_t n, const Vec3* xp, Vec3* s, Vec3* prev, IterationDeviceState* state) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i == 0) state->converged = 0;
  if (i >= n) return;
  s[i] = xp[i];
  prev[i] = xp[i];
}

// The kernels below return at once when the substep's iterations have
// converged: every thread reads the same flag, set before the kernel began.
__global__ void k_pf_touching(size_t n, PlaneSet planes, float contact, const Vec3* xp, uint8_t* touching,
                              const IterationDeviceState* state) {
  if (state->converged) return;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) touching[i] = touches_wall(planes.plane, planes.count, contact, xp[i]) ? 1 : 0;
}

__global__ void k_pf_local(size_t n, ProjectiveConstants c, NeighborLists nb, BoundarySamples boundary,
                           PlaneSet planes, float contact,
                           const uint8_t* touching, const Vec3* xp, Vec3* disp, uint8_t* active, float* rho,
                           double* partials, float* partial_max, const IterationDeviceState* state) {
  if (state->converged) return;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  float e = 0.0f;
  if (i < n) {
    const ProjectionWalls walls{planes.plane, planes.count, contact, touching};
    const DensityWalls solid = projective_density_walls(c, planes.plane, planes.count, planes.density_first);
    const Projection p = project_density_constraint(c, static_cast<uint32_t>(i), nb, boundary, solid, walls, xp,
                                                    disp + i * c.slots);
    active[i] = p.steps > 0 ? 1 : 0;
    rho[i] = p.density;
    e = p.compression;
  }
  block_reduce(e, e, partials, partial_max);
}

// The global step in one pass (global_step_position()): the diagonal system
// solved row by row, Chebyshev extrapolation, collisions. A row reads only
// its own particle's iterate, so the iterate is overwritten in place.
__global__ void k_pf_global(size_t n, ProjectiveConstants c, PbfConstants pc, NeighborLists nb,
                            BoundarySamples boundary, PlaneSet planes, const Obstacle* obstacles,
                            uint32_t obstacle_count, float omega, const Vec3* s, const Vec3* x, const Vec3* disp,
                            const uint8_t* active, Vec3* prev, Vec3* xp, IterationDeviceState* state) {
  if (state->converged) return;
  const size_t l = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (l == 0) state->iterations += 1;
  if (l >= n) return;
  const DensityWalls solid = projective_density_walls(c, planes.plane, planes.count, planes.density_first);
  const Vec3 moved = global_step_position(c, static_cast<uint32_t>(l), nb, nullptr, boundary, solid, s, xp, disp,
                                          active, prev[l], omega);  // slots by search
  prev[l] = xp[l];
  xp[l] = collide(pc, planes.plane, planes.count, obstacles, obstacle_count, moved, x[l]);
}

__global__ void k_pf_velocity(size_t n, PbfConstants c, PlaneSet planes, Vec3* x, const Vec3* xp, Vec3* v) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  v[i] = updated_velocity(c, planes.plane, planes.count, x[i], xp[i], v[i]);
  x[i] = xp[i];
}

__global__ void k_pf_density(size_t n, ProjectiveConstants c, PlaneSet planes, NeighborLists nb,
                             BoundarySamples boundary, const Vec3* xp, float* rho) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const DensityWalls solid = projective_density_walls(c, planes.plane, planes.count, planes.density_first);
  rho[i] = cubic_density(c, static_cast<uint32_t>(i), nb, boundary, solid, xp);
}

}  // namespace

void CudaBackend::projective_begin(const StepContext&) {
  use_device();
  begin_stage(&StepStats::time_constraints_ms);
  k_pf_begin<<<std::max(1u, blocks_for(n_)), kBlock, 0, stream_>>>(n_, xp_.data(), pf_s_.data(), pf_prev_.data(),
                                                                   iteration_state_.data());
  check_launch("k_pf_begin");
  finish("projective_begin");
}

void CudaBackend::projective_local_step(const StepContext& ctx, float tolerance) {
  use_device();
  begin_stage(&StepStats::time_constraints_ms);
  const unsigned b = blocks_for(n_);
  const PlaneSet planes = plane_set(ctx);
  const float contact = wall_contact_distance(ctx.constants.particle_radius);
  k_pf_touching<<<b, kBlock, 0, stream_>>>(n_, planes, contact, xp_.data(), pf_touching_.data(), iteration_state_.data());
  check_launch("k_pf_touching");
  k_pf_local<<<b, kBlock, 0, stream_>>>(n_, ctx.projective, neighbor_lists(), boundary_samples(), planes, contact,
                                         pf_touching_.data(), xp_.data(), pf_disp_.data(), pf_active_.data(),
                                         rho_.data(), iteration_partials_.data(), iteration_partial_max_.data(),
                                         iteration_state_.data());
  check_launch("k_pf_local");
  k_iteration_gate<<<1, kBlock, 0, stream_>>>(b, n_, tolerance, iteration_partials_.data(),
                                               iteration_partial_max_.data(), iteration_state_.data());
  check_launch("k_iteration_gate");
  finish("projective_local_step");
}

void CudaBackend::projective_global_step(const StepContext& ctx, float omega) {
  use_device();
  begin_stage(&StepStats::time_constraints_ms);
  const Obstacle* obstacles = obstacles_for(ctx);
  k_pf_global<<<blocks_for(n_), kBlock, 0, stream_>>>(
      n_, ctx.projective, ctx.constants, neighbor_lists(), boundary_samples(), plane_set(ctx), obstacles,
      ctx.obstacle_count, omega, pf_s_.data(), x_.data(), pf_disp_.data(), pf_active_.data(), pf_prev_.data(),
      xp_.data(), iteration_state_.data());
  check_launch("k_pf_global");
  finish("projective_global_step");
}

void CudaBackend::projective_update_velocities(const StepContext& ctx) {
  use_device();
  begin_stage(&StepStats::time_velocity_ms);
  const unsigned b = blocks_for(n_);
  k_pf_velocity<<<b, kBlock, 0, stream_>>>(n_, ctx.constants, plane_set(ctx), x_.data(), xp_.data(), v_.data());
  check_launch("k_pf_velocity");
  k_pf_density<<<b, kBlock, 0, stream_>>>(n_, ctx.projective, plane_set(ctx), neighbor_lists(), boundary_samples(),
                                           xp_.data(), rho_.data());
  check_launch("k_pf_density");
  copy_tally_to_host();
  finish("projective_update_velocities");
}

}  // namespace pbf
