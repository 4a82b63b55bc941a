// pbf_cuda_stages.cu - Position Based Fluids' stages on the CUDA backend:
// density and position correction, the update of velocities, and vorticity
// confinement with XSPH viscosity. Each kernel calls pbf_equations.h for one
// particle and writes only that particle; the stages read the device's
// neighbour lists, boundary samples and obstacles, write its positions,
// velocities, predicted positions, densities and scratch, and keep each
// particle's predicted point with its lambda (one 16-byte load a neighbour in
// the correction) and the vorticity in buffers of their own. The density
// iterations end on the GPU at the tolerance (k_iteration_gate).
#include "methods/pbf/cuda/pbf_cuda_entry.h"

#include "backend/cuda/cuda_backend.cuh"
#include "backend/cuda/cuda_launch.cuh"
#include "methods/pbf/pbf_equations.h"

namespace pbf {

namespace {

// The density iterations' kernels return at once when the substep's
// iterations have converged: every thread reads the same flag, set before the
// kernel began. With `partials`, each block's sum and largest compression
// (block_reduce) go to the gate after the correction.
// The boundary samples' gradient at a particle near them goes to
// grad_keep[i] (the buffer k_correct writes its result to, free until then),
// so that k_correct does not sum it again at the same point. Each particle's
// point goes to x_lambda with its lambda, which k_correct reads together.
__global__ void k_density_lambda(size_t n, PbfConstants c, PlaneSet planes, NeighborLists nb,
                                 BoundarySamples boundary, const Vec3* xp, float* rho, PointValue* x_lambda,
                                 Vec3* grad_keep, double* partials, float* partial_max,
                                 const IterationDeviceState* state) {
  if (state->converged) return;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  float e = 0.0f;
  if (i < n) {
    float r, l;
    const uint32_t id = static_cast<uint32_t>(i);
    const DensityWalls walls = pbf_density_walls(c, planes.plane, planes.count, planes.density_first);
    density_lambda(c, id, fluid_density_sums(c, id, nb, xp), xp, boundary, walls, r, l, grad_keep);
    rho[i] = r;
    x_lambda[i] = PointValue{xp[i], l};
    e = compression(r, c.inv_rest_density);
  }
  if (partials) block_reduce(e, e, partials, partial_max);
}

// Writes the corrected positions to `out`, which the stage then swaps with
// xp (the obstacles' pushes to `pushes`, null: none); once converged it copies xp there unchanged, so that the swap (recorded
// with the graph) keeps them. A particle near boundary samples reads their
// gradient from out[i], where k_density_lambda left it. The collision
// records go to `record` (xp, unread unless converged) and `collided`.
__global__ void k_correct(size_t n, PbfConstants c, PlaneSet planes, const Obstacle* obstacles,
                          uint32_t obstacle_count, NeighborLists nb, BoundarySamples boundary, const Vec3* xp,
                          const PointValue* x_lambda, const float* rho, const Vec3* x, Vec3* out,
                          IterationDeviceState* state, ObstaclePush* pushes, bool couple, Vec3* record,
                          uint8_t* collided) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (state->converged) {
    if (i < n) out[i] = xp[i];
    return;
  }
  if (i == 0) state->iterations += 1;
  if (i >= n) return;
  const DensityWalls walls = pbf_density_walls(c, planes.plane, planes.count, planes.density_first);
  const uint32_t id = static_cast<uint32_t>(i);
  const bool near = boundary_scan(boundary, id);
  const Vec3 grad_b = near ? out[i] : Vec3{0.0f, 0.0f, 0.0f};
  const PointValue own = x_lambda[id];  // as position_correction() indexes it, so that the load is shared
  with_push_sink(pushes, couple, [&](const auto& push) {
    const Vec3 moved = own.p + (position_correction(c, id, nb, x_lambda) +
                                boundary_correction_given(c, own.p, own.value, rho[id], near, grad_b, boundary,
                                                          walls, push));
    out[i] = collide_keeping(c, planes.plane, planes.count, obstacles, obstacle_count, moved, x[i], push,
                             couple ? &record[i] : nullptr, &collided[i]);
  });
}

// body_yield_relief() for each particle near a body's samples, at the last iteration's points, lambdas and
// densities, and collision_relief() for each with a collision record (in `record`, scratch, and `collided`),
// added to xp; the pushes to `pushes`. `yields` holds the rounds' totals before this round, then
// after it (kMaxObstacles each).
__global__ void k_relieve_body_yields(size_t n, PbfConstants c, PlaneSet planes, uint32_t obstacle_count,
                                      BoundarySamples boundary, const PointValue* x_lambda, const float* rho,
                                      const Vec3* record, const uint8_t* collided, const BodyYield* yields,
                                      const Vec3* x, Vec3* xp, ObstaclePush* pushes) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const uint32_t id = static_cast<uint32_t>(i);
  const bool near = boundary_body_scan(boundary, id);
  if (!near && collided[i] == kNoCollision) return;  // nothing to give back: the particle stays
  const CudaPushSink push{pushes, true};
  Vec3 p = xp[i];
  if (near) {
    const PointValue own = x_lambda[id];
    p += body_yield_relief(c, own.p, own.value, rho[id], boundary, yields, yields + kMaxObstacles, push);
  }
  p += collision_relief(record[i], collided[i], p, obstacle_count, yields, yields + kMaxObstacles, push);
  xp[i] = relieved(c, planes.plane, planes.count, xp[i], p, x[i]);
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

class PbfCudaStages final : public PbfStages {
 public:
  explicit PbfCudaStages(CudaBackend& device) : device_(device) {}

  void reserve(size_t n) override {
    device_.use_device();
    x_lambda_.reserve(n, 0);
    omega_.reserve(n, 0);
  }
  void solve_density(const StepContext& ctx, const PbfConstants& c, float tolerance) override;
  void relieve_body_yields(const StepContext& ctx, const PbfConstants& c, const BodyYield* before,
                           const BodyYield* moved) override;
  void update_velocities(const StepContext& ctx, const PbfConstants& c) override;
  void apply_vorticity_viscosity(const StepContext& ctx, const PbfConstants& c) override;

 private:
  CudaBackend& device_;
  DeviceBuffer<PointValue> x_lambda_;  // each particle's predicted point and lambda
  DeviceBuffer<Vec3> omega_;  // vorticity
};

void PbfCudaStages::solve_density(const StepContext& ctx, const PbfConstants& c, float tolerance) {
  CudaBackend& d = device_;
  d.use_device();
  d.begin_stage(&StepStats::time_constraints_ms);
  const size_t n = d.size();
  const unsigned b = blocks_for(n);
  const cudaStream_t stream = d.stream();
  const NeighborLists nb = d.neighbor_lists();
  const BoundarySamples boundary = d.boundary_samples();
  const bool gate = tolerance >= 0.0f;
  k_density_lambda<<<b, kBlock, 0, stream>>>(n, c, plane_set(ctx), nb, boundary, d.predicted_positions().data(),
                                             d.densities().data(), x_lambda_.data(), d.scratch().data(),
                                             gate ? d.iteration_partials() : nullptr, d.iteration_partial_max(),
                                             d.iteration_state());
  check_launch("k_density_lambda");
  const Obstacle* obstacles = d.obstacles_for(ctx);
  k_correct<<<b, kBlock, 0, stream>>>(n, c, plane_set(ctx), obstacles, ctx.obstacle_count, nb, boundary,
                                      d.predicted_positions().data(), x_lambda_.data(), d.densities().data(),
                                      d.positions().data(), d.scratch().data(), d.iteration_state(),
                                      d.obstacle_push_sums(ctx), ctx.bodies_couple, d.predicted_positions().data(),
                                      d.collided().data());
  check_launch("k_correct");
  d.predicted_positions().swap(d.scratch());
  // After the correction, which this iteration makes whatever the gate finds.
  if (gate) {
    k_iteration_gate<<<1, kBlock, 0, stream>>>(b, n, tolerance, d.iteration_partials(), d.iteration_partial_max(),
                                                d.iteration_state());
    check_launch("k_iteration_gate");
  }
  d.finish("solve_density");
}

void PbfCudaStages::relieve_body_yields(const StepContext& ctx, const PbfConstants& c, const BodyYield* before,
                                        const BodyYield* moved) {
  CudaBackend& d = device_;
  const BoundarySamples boundary = d.boundary_samples();
  ObstaclePush* pushes = d.obstacle_push_sums(ctx);
  if (pushes == nullptr) return;
  d.use_device();
  d.begin_stage(&StepStats::time_constraints_ms);
  const size_t n = d.size();
  const cudaStream_t stream = d.stream();
  const BodyYield* yields = d.upload_body_yields(before, moved, ctx.obstacle_count);
  k_relieve_body_yields<<<blocks_for(n), kBlock, 0, stream>>>(
      n, c, plane_set(ctx), ctx.obstacle_count, boundary, x_lambda_.data(), d.densities().data(), d.scratch().data(),
      d.collided().data(), yields, d.positions().data(), d.predicted_positions().data(), pushes);
  check_launch("k_relieve_body_yields");
  d.finish("relieve_body_yields");
}

void PbfCudaStages::update_velocities(const StepContext& ctx, const PbfConstants& c) {
  CudaBackend& d = device_;
  d.use_device();
  d.begin_stage(&StepStats::time_velocity_ms);
  const size_t n = d.size();
  k_update_velocity<<<blocks_for(n), kBlock, 0, d.stream()>>>(n, c, plane_set(ctx), d.neighbor_lists(),
                                                               d.boundary_samples(), d.positions().data(),
                                                               d.predicted_positions().data(), d.velocities().data(),
                                                               d.densities().data());
  check_launch("k_update_velocity");
  d.copy_tally_to_host();
  d.finish("update_velocities");
}

void PbfCudaStages::apply_vorticity_viscosity(const StepContext&, const PbfConstants& c) {
  if (c.vorticity <= 0.0f && c.xsph <= 0.0f) return;
  CudaBackend& d = device_;
  d.use_device();
  d.begin_stage(&StepStats::time_vorticity_viscosity_ms);
  const size_t n = d.size();
  const unsigned b = blocks_for(n);
  const cudaStream_t stream = d.stream();
  const NeighborLists nb = d.neighbor_lists();
  if (c.vorticity > 0.0f) {
    k_vorticity<<<b, kBlock, 0, stream>>>(n, c, nb, d.positions().data(), d.velocities().data(),
                                          d.densities().data(), omega_.data());
    check_launch("k_vorticity");
  }
  k_vorticity_viscosity<<<b, kBlock, 0, stream>>>(n, c, nb, d.positions().data(), d.velocities().data(),
                                                  d.densities().data(), omega_.data(), d.scratch().data());
  check_launch("k_vorticity_viscosity");
  d.velocities().swap(d.scratch());
  d.finish("apply_vorticity_viscosity");
}

}  // namespace

std::unique_ptr<PbfStages> make_pbf_cuda_stages(Backend& backend) {
  auto* device = dynamic_cast<CudaBackend*>(&backend);
  if (!device) throw Error(Status::Internal, "make_pbf_cuda_stages: not the CUDA backend");
  return std::make_unique<PbfCudaStages>(*device);
}

}  // namespace pbf
