// cuda_projective.cu - Projective Fluids' stages on the GPU: the start of a
// substep's iterations, the local step (the projection of every density
// constraint, with the compression reduced per block in a fixed order), the
// gate that ends the iterations on the GPU so that the host never waits, the
// global step and the update of velocities and densities. Its kernels call
// projective_equations.h; it touches the pf_* buffers, x_, v_, xp_ and rho_,
// and hands the host the iterations' tally through pf_state_host_.
#include "backend/cuda/cuda_backend.cuh"

#include <algorithm>

#include "backend/cuda/cuda_launch.cuh"
#include "solver/pbf/pbf_equations.h"
#include "solver/projective/projective_equations.h"

namespace pbf {

namespace {

// Sums `value` (and takes the max of `largest`) over the block in a fixed
// tree order; thread 0 writes the block's results. Every thread must call it.
// Reduces sum[] and top[] (kBlock entries in shared memory, each thread's
// written) to sum[0] and top[0] in a fixed tree order. Every thread must call it.
__device__ void tree_reduce(double* sum, float* top) {
  const unsigned t = threadIdx.x;
  __syncthreads();
  for (unsigned half = kBlock / 2; half > 0; half /= 2) {
    if (t < half) {
      sum[t] += sum[t + half];
      top[t] = fmaxf(top[t], top[t + half]);
    }
    __syncthreads();
  }
}

__device__ void block_reduce(double value, float largest, double* partials, float* partial_max) {
  __shared__ double sum[kBlock];
  __shared__ float top[kBlock];
  const unsigned t = threadIdx.x;
  sum[t] = value;
  top[t] = largest;
  tree_reduce(sum, top);
  if (t == 0) {
    partials[blockIdx.x] = sum[0];
    if (partial_max) partial_max[blockIdx.x] = top[0];
  }
}

// Starts a substep's iterations: the prediction is the inertial target and
// the first (and previous) iterate; the iterations are open again.
__global__ void k_pf_begin(size_t n, const Vec3* xp, Vec3* s, Vec3* prev, ProjectiveDeviceState* state) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i == 0) state->converged = 0;
  if (i >= n) return;
  s[i] = xp[i];
  prev[i] = xp[i];
}

// The kernels below return at once when the substep's iterations have
// converged: every thread reads the same flag, set before the kernel began.
__global__ void k_pf_touching(size_t n, PlaneSet planes, float contact, const Vec3* xp, uint8_t* touching,
                              const ProjectiveDeviceState* state) {
  if (state->converged) return;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) touching[i] = touches_wall(planes.plane, planes.count, contact, xp[i]) ? 1 : 0;
}

__global__ void k_pf_local(size_t n, ProjectiveConstants c, NeighborLists nb, BoundarySamples boundary,
                           PlaneSet planes, float contact,
                           const uint8_t* touching, const Vec3* xp, Vec3* disp, uint8_t* active, float* rho,
                           double* partials, float* partial_max, const ProjectiveDeviceState* state) {
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

// One block: the local step's mean and largest compression from its
// per-block partials, summed in a fixed order (deterministic), and whether
// they end the substep's iterations. The host never waits for it.
__global__ void k_pf_gate(unsigned blocks, size_t n, float tolerance, const double* partials,
                          const float* partial_max, ProjectiveDeviceState* state) {
  if (state->converged) return;
  __shared__ double sum[kBlock];
  __shared__ float top[kBlock];
  const unsigned t = threadIdx.x;
  double acc = 0.0;
  float largest = 0.0f;
  for (unsigned k = t; k < blocks; k += kBlock) {
    acc += partials[k];
    largest = fmaxf(largest, partial_max[k]);
  }
  sum[t] = acc;
  top[t] = largest;
  tree_reduce(sum, top);
  if (t == 0) {
    const float mean = n > 0 ? static_cast<float>(sum[0] / static_cast<double>(n)) : 0.0f;
    state->mean_compression = mean;
    state->max_compression = top[0];
    if (mean <= tolerance) state->converged = 1;
  }
}

// The global step in one pass (global_step_position()): the diagonal system
// solved row by row, Chebyshev extrapolation, collisions. A row reads only
// its own particle's iterate, so the iterate is overwritten in place.
__global__ void k_pf_global(size_t n, ProjectiveConstants c, PbfConstants pc, NeighborLists nb,
                            BoundarySamples boundary, PlaneSet planes, const Obstacle* obstacles,
                            uint32_t obstacle_count, float omega, const Vec3* s, const Vec3* x, const Vec3* disp,
                            const uint8_t* active, Vec3* prev, Vec3* xp, ProjectiveDeviceState* state) {
  if (state->converged) return;
  const size_t l = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (l == 0) state->global_steps += 1;
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
                                                                   pf_state_.data());
  check_launch("k_pf_begin");
  finish("projective_begin");
}

void CudaBackend::projective_local_step(const StepContext& ctx, float tolerance) {
  use_device();
  begin_stage(&StepStats::time_constraints_ms);
  const unsigned b = blocks_for(n_);
  const PlaneSet planes = plane_set(ctx);
  const float contact = wall_contact_distance(ctx.constants.particle_radius);
  k_pf_touching<<<b, kBlock, 0, stream_>>>(n_, planes, contact, xp_.data(), pf_touching_.data(), pf_state_.data());
  check_launch("k_pf_touching");
  k_pf_local<<<b, kBlock, 0, stream_>>>(n_, ctx.projective, neighbor_lists(), boundary_samples(), planes, contact,
                                         pf_touching_.data(), xp_.data(), pf_disp_.data(), pf_active_.data(),
                                         rho_.data(), pf_partials_.data(), pf_partial_max_.data(), pf_state_.data());
  check_launch("k_pf_local");
  k_pf_gate<<<1, kBlock, 0, stream_>>>(b, n_, tolerance, pf_partials_.data(), pf_partial_max_.data(),
                                        pf_state_.data());
  check_launch("k_pf_gate");
  finish("projective_local_step");
}

void CudaBackend::projective_global_step(const StepContext& ctx, float omega) {
  use_device();
  begin_stage(&StepStats::time_constraints_ms);
  const Obstacle* obstacles = obstacles_for(ctx);
  k_pf_global<<<blocks_for(n_), kBlock, 0, stream_>>>(
      n_, ctx.projective, ctx.constants, neighbor_lists(), boundary_samples(), plane_set(ctx), obstacles,
      ctx.obstacle_count, omega, pf_s_.data(), x_.data(), pf_disp_.data(), pf_active_.data(), pf_prev_.data(),
      xp_.data(), pf_state_.data());
  check_launch("k_pf_global");
  finish("projective_global_step");
}

ProjectiveTally CudaBackend::projective_tally() {
  // Copied to host memory by the last substep's update of velocities, which its stage or graph waited for.
  const ProjectiveDeviceState now = *pf_state_host_;
  *pf_state_host_ = ProjectiveDeviceState{};
  use_device();
  cuda_check(cudaMemsetAsync(pf_state_.data(), 0, sizeof(ProjectiveDeviceState), stream_), "cudaMemset (tally)");
  ProjectiveTally t;
  t.global_steps = now.global_steps;
  t.mean_compression = now.mean_compression;
  t.max_compression = now.max_compression;
  return t;
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
  // The tally so far, to host memory in stream order (a node of the graph when recorded).
  cuda_check(cudaMemcpyAsync(pf_state_host_, pf_state_.data(), sizeof(ProjectiveDeviceState), cudaMemcpyDeviceToHost,
                             stream_),
             "cudaMemcpy (tally)");
  finish("projective_update_velocities");
}

}  // namespace pbf
