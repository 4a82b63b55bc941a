// projective_cuda_stages.cu - Projective Fluids' stages on the CUDA backend:
// the start of a substep's iterations, the local step (the projection of
// every density constraint, with the compression reduced per block in a
// fixed order), the gate that ends the iterations on the GPU
// (cuda_launch.cuh) so that the host never waits, the global step and the
// update of velocities and densities. Its kernels call
// projective_equations.h; they write the device's positions, velocities,
// predicted positions and densities, keep the inertial target, previous
// iterate and displacements in buffers of their own, and hand the host the
// iterations' tally (CudaBackend::copy_tally_to_host()).
#include "methods/projective/cuda/projective_cuda_entry.h"

#include <algorithm>

#include "backend/cuda/cuda_backend.cuh"
#include "backend/cuda/cuda_launch.cuh"
#include "methods/projective/projective_equations.h"

namespace pbf {

namespace {

// Starts a substep's iterations: the prediction is the inertial target and
// the first (and previous) iterate, each of them kept as its displacement
// from the target (global_step_particle()); the iterations are open again.
__global__ void k_pf_begin(size_t n, const Vec3* xp, Vec3* s, Vec3* offset, Vec3* prev, IterationDeviceState* state) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i == 0) state->converged = 0;
  if (i >= n) return;
  s[i] = xp[i];
  offset[i] = Vec3{0.0f, 0.0f, 0.0f};
  prev[i] = Vec3{0.0f, 0.0f, 0.0f};
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
                           const uint8_t* touching, const Vec3* xp, Vec3* disp, uint8_t* active, float* step_sum,
                           float* compression, float* rho, double* partials, float* partial_max,
                           const IterationDeviceState* state) {
  if (state->converged) return;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  float e = 0.0f;
  if (i < n) {
    const ProjectionWalls walls{planes.plane, planes.count, contact, touching};
    const DensityWalls solid = projective_density_walls(c, planes.plane, planes.count, planes.density_first);
    const Projection p = project_density_constraint(c, static_cast<uint32_t>(i), nb, boundary, solid, walls, xp,
                                                    disp + i * c.slots);
    active[i] = p.steps > 0 ? 1 : 0;
    step_sum[i] = p.step_sum;
    compression[i] = p.compression;
    rho[i] = p.density;
    e = p.compression;
  }
  block_reduce(e, e, partials, partial_max);
}

// The global step in one pass (global_row(), global_step_particle()): the
// diagonal system solved row by row, Chebyshev extrapolation, collisions
// (the obstacles' pushes to `pushes`, null: none; their added mass where
// `couple`, with the collision records in `record` and `collided`). A row
// reads only its own particle's iterate, so the iterate is overwritten in
// place.
__global__ void k_pf_global(size_t n, ProjectiveConstants c, MotionConstants motion, NeighborLists nb,
                            BoundarySamples boundary, PlaneSet planes, const Obstacle* obstacles,
                            uint32_t obstacle_count, float omega, const Vec3* s, const Vec3* x, const Vec3* disp,
                            const uint8_t* active, const float* step_sum, const float* compression, Vec3* offset,
                            Vec3* prev, Vec3* xp, IterationDeviceState* state, ObstaclePush* pushes, bool couple,
                            Vec3* record, uint8_t* collided) {
  if (state->converged) return;
  const size_t l = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (l == 0) state->iterations += 1;
  if (l >= n) return;
  with_push_sink(pushes, couple, [&](const auto& push) {
    Vec3 residual;
    float diagonal;
    global_row(c, static_cast<uint32_t>(l), nb, nullptr, s, xp, disp, active, residual, diagonal);  // slots by search
    global_step_particle(c, motion, planes.plane, planes.count, obstacles, obstacle_count, static_cast<uint32_t>(l),
                         residual, diagonal, boundary, active, step_sum, compression, x[l], omega, s[l], xp,
                         offset[l], prev[l], push, couple ? &record[l] : nullptr, &collided[l]);
  });
}

// projective_body_yield_relief() for each particle near a body's samples
// whose constraint the last local step projected, and collision_relief() for
// each with a collision record (in `record`, scratch, and `collided`), added
// to the iterate xp and to its displacements offset and prev; the pushes to
// `pushes`. `yields` holds the rounds' totals before this round, then those
// after it (kMaxObstacles each).
__global__ void k_pf_relieve(size_t n, ProjectiveConstants c, MotionConstants motion, PlaneSet planes,
                             uint32_t obstacle_count, BoundarySamples boundary, float omega, const uint8_t* active,
                             const float* step_sum, const float* compression, const Vec3* record,
                             const uint8_t* collided, const BodyYield* yields, const Vec3* x, Vec3* xp, Vec3* offset,
                             Vec3* prev, ObstaclePush* pushes, const IterationDeviceState* state) {
  if (state->converged) return;
  const size_t l = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (l >= n) return;
  const uint32_t id = static_cast<uint32_t>(l);
  const bool near = active[l] && boundary_body_scan(boundary, id);
  if (!near && collided[l] == kNoCollision) return;  // nothing to give back: the particle stays
  const CudaPushSink push{pushes, true};
  const Vec3 p = xp[l];
  Vec3 relief{0.0f, 0.0f, 0.0f};
  if (near)
    relief = projective_body_yield_relief(c, p, compression[l], step_sum[l], omega, boundary, yields,
                                          yields + kMaxObstacles, push);
  relief += collision_relief(record[l], collided[l], p + relief, obstacle_count, yields, yields + kMaxObstacles,
                             push);
  // Held out of the walls; the iterate and the extrapolation's previous iterate move alike.
  const Vec3 q = relieved(motion, planes.plane, planes.count, p, p + relief, x[l]);
  xp[l] = q;
  offset[l] += q - p;
  prev[l] += q - p;
}

__global__ void k_pf_velocity(size_t n, MotionConstants c, PlaneSet planes, Vec3* x, const Vec3* xp, Vec3* v) {
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

class ProjectiveCudaStages final : public ProjectiveStages {
 public:
  explicit ProjectiveCudaStages(CudaBackend& device) : device_(device) {}

  void reserve(size_t n) override {
    device_.use_device();
    for (auto* b : {&s_, &offset_, &prev_}) b->reserve(n, 0);
    active_.reserve(n, 0);
    step_sum_.reserve(n, 0);
    compression_.reserve(n, 0);
    touching_.reserve(n, 0);
    disp_.reserve(n * (static_cast<size_t>(device_.config().max_neighbors) + 1), 0);
  }
  void begin(const StepContext& ctx, const ProjectiveConstants& c) override;
  void local_step(const StepContext& ctx, const ProjectiveConstants& c, float tolerance) override;
  void global_step(const StepContext& ctx, const ProjectiveConstants& c, float omega) override;
  void relieve_body_yields(const StepContext& ctx, const ProjectiveConstants& c, const BodyYield* before,
                           const BodyYield* moved) override;
  void update_velocities(const StepContext& ctx, const ProjectiveConstants& c) override;

 private:
  CudaBackend& device_;
  // Inertial target, the iterate and the previous one as displacements from
  // it, displacements (max_neighbors + 1 slots per constraint).
  DeviceBuffer<Vec3> s_, offset_, prev_, disp_;
  DeviceBuffer<uint8_t> active_, touching_;
  DeviceBuffer<float> step_sum_;  // per constraint: Projection::step_sum (the obstacles' pushes)
  DeviceBuffer<float> compression_;  // per constraint: Projection::compression (their added mass)
  float omega_ = 1.0f;               // the last global step's Chebyshev weight (its pushes')
};

void ProjectiveCudaStages::begin(const StepContext&, const ProjectiveConstants&) {
  CudaBackend& d = device_;
  d.use_device();
  d.begin_stage(&StepStats::time_constraints_ms);
  const size_t n = d.size();
  k_pf_begin<<<std::max(1u, blocks_for(n)), kBlock, 0, d.stream()>>>(n, d.predicted_positions().data(), s_.data(),
                                                                     offset_.data(), prev_.data(), d.iteration_state());
  check_launch("k_pf_begin");
  d.finish("projective_begin");
}

void ProjectiveCudaStages::local_step(const StepContext& ctx, const ProjectiveConstants& c, float tolerance) {
  CudaBackend& d = device_;
  d.use_device();
  d.begin_stage(&StepStats::time_constraints_ms);
  const size_t n = d.size();
  const unsigned b = blocks_for(n);
  const cudaStream_t stream = d.stream();
  const PlaneSet planes = plane_set(ctx);
  const float contact = wall_contact_distance(ctx.motion.particle_radius);
  k_pf_touching<<<b, kBlock, 0, stream>>>(n, planes, contact, d.predicted_positions().data(), touching_.data(),
                                          d.iteration_state());
  check_launch("k_pf_touching");
  k_pf_local<<<b, kBlock, 0, stream>>>(n, c, d.neighbor_lists(), d.boundary_samples(), planes, contact,
                                       touching_.data(), d.predicted_positions().data(), disp_.data(), active_.data(),
                                       step_sum_.data(), compression_.data(), d.densities().data(),
                                       d.iteration_partials(), d.iteration_partial_max(), d.iteration_state());
  check_launch("k_pf_local");
  k_iteration_gate<<<1, kBlock, 0, stream>>>(b, n, tolerance, d.iteration_partials(), d.iteration_partial_max(),
                                              d.iteration_state());
  check_launch("k_iteration_gate");
  d.finish("projective_local_step");
}

void ProjectiveCudaStages::global_step(const StepContext& ctx, const ProjectiveConstants& c, float omega) {
  CudaBackend& d = device_;
  d.use_device();
  d.begin_stage(&StepStats::time_constraints_ms);
  const size_t n = d.size();
  const Obstacle* obstacles = d.obstacles_for(ctx);
  omega_ = omega;
  // The collision records go to scratch, which the iterations do not use otherwise.
  k_pf_global<<<blocks_for(n), kBlock, 0, d.stream()>>>(
      n, c, ctx.motion, d.neighbor_lists(), d.boundary_samples(), plane_set(ctx), obstacles, ctx.obstacle_count,
      omega, s_.data(), d.positions().data(), disp_.data(), active_.data(), step_sum_.data(), compression_.data(),
      offset_.data(), prev_.data(), d.predicted_positions().data(), d.iteration_state(), d.obstacle_push_sums(ctx),
      ctx.bodies_couple, d.scratch().data(), d.collided().data());
  check_launch("k_pf_global");
  d.finish("projective_global_step");
}

void ProjectiveCudaStages::relieve_body_yields(const StepContext& ctx, const ProjectiveConstants& c,
                                               const BodyYield* before, const BodyYield* moved) {
  CudaBackend& d = device_;
  ObstaclePush* pushes = d.obstacle_push_sums(ctx);
  if (pushes == nullptr) return;
  d.use_device();
  d.begin_stage(&StepStats::time_constraints_ms);
  const size_t n = d.size();
  const BodyYield* yields = d.upload_body_yields(before, moved, ctx.obstacle_count);
  k_pf_relieve<<<blocks_for(n), kBlock, 0, d.stream()>>>(
      n, c, ctx.motion, plane_set(ctx), ctx.obstacle_count, d.boundary_samples(), omega_, active_.data(),
      step_sum_.data(), compression_.data(), d.scratch().data(), d.collided().data(), yields, d.positions().data(),
      d.predicted_positions().data(), offset_.data(), prev_.data(), pushes, d.iteration_state());
  check_launch("k_pf_relieve");
  d.finish("projective_relieve_body_yields");
}

void ProjectiveCudaStages::update_velocities(const StepContext& ctx, const ProjectiveConstants& c) {
  CudaBackend& d = device_;
  d.use_device();
  d.begin_stage(&StepStats::time_velocity_ms);
  const size_t n = d.size();
  const unsigned b = blocks_for(n);
  const cudaStream_t stream = d.stream();
  k_pf_velocity<<<b, kBlock, 0, stream>>>(n, ctx.motion, plane_set(ctx), d.positions().data(),
                                          d.predicted_positions().data(), d.velocities().data());
  check_launch("k_pf_velocity");
  k_pf_density<<<b, kBlock, 0, stream>>>(n, c, plane_set(ctx), d.neighbor_lists(), d.boundary_samples(),
                                         d.predicted_positions().data(), d.densities().data());
  check_launch("k_pf_density");
  d.copy_tally_to_host();
  d.finish("projective_update_velocities");
}

}  // namespace

std::unique_ptr<ProjectiveStages> make_projective_cuda_stages(Backend& backend) {
  auto* device = dynamic_cast<CudaBackend*>(&backend);
  if (!device) throw Error(Status::Internal, "make_projective_cuda_stages: not the CUDA backend");
  return std::make_unique<ProjectiveCudaStages>(*device);
}

}  // namespace pbf
