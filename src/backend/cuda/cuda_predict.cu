// cuda_predict.cu - the stage every method's substep starts with on the GPU:
// gravity, the predicted position and collisions (core/motion.h), one thread
// per particle; it opens the substep's iterations (IterationDeviceState).
#include "backend/cuda/cuda_backend.cuh"

#include "backend/cuda/cuda_launch.cuh"
#include "core/motion.h"

namespace pbf {

namespace {

// Starts a substep: its iterations are open again.
// The obstacles' pushes go to `pushes` (null: none).
__global__ void k_predict(size_t n, MotionConstants c, PlaneSet planes, const Obstacle* obstacles,
                          uint32_t obstacle_count, const Vec3* x, Vec3* v, Vec3* xp, IterationDeviceState* state,
                          ObstaclePush* pushes) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i == 0) state->converged = 0;
  if (i >= n) return;
  Vec3 vi = v[i];
  Vec3 p;
  predict(c, x[i], vi, p);
  v[i] = vi;
  with_push_sink(pushes, [&](const auto& push) {
    xp[i] = collide(c, planes.plane, planes.count, obstacles, obstacle_count, p, x[i], push);
  });
}

}  // namespace

void CudaBackend::predict(const StepContext& ctx) {
  use_device();
  begin_stage(&StepStats::time_predict_ms);
  const Obstacle* obstacles = obstacles_for(ctx);
  k_predict<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, ctx.motion, plane_set(ctx), obstacles, ctx.obstacle_count,
                                                     x_.data(), v_.data(), xp_.data(), iteration_state_.data(),
                                                     obstacle_push_sums(ctx));
  check_launch("k_predict");
  finish("predict");
}

}  // namespace pbf
