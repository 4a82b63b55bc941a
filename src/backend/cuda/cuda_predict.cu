// cuda_predict.cu - the stage every method's substep starts with on the GPU:
// gravity, the predicted position and collisions (core/motion.h), one thread
// per particle; it opens the substep's iterations (IterationDeviceState).
#include "backend/cuda/cuda_backend.cuh"

#include "backend/cuda/cuda_launch.cuh"
#include "core/motion.h"

namespace pbf {

namespace {

// Starts a substep: its iterations are open again.
// The obstacles' pushes go to `pushes` (null: none), the collision records to `record` and `collided`.
__global__ void k_predict(size_t n, MotionConstants c, PlaneSet planes, const Obstacle* obstacles,
                          uint32_t obstacle_count, const Vec3* x, Vec3* v, Vec3* xp, IterationDeviceState* state,
                          ObstaclePush* pushes, bool couple, Vec3* record, uint8_t* collided) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i == 0) state->converged = 0;
  if (i >= n) return;
  Vec3 vi = v[i];
  Vec3 p;
  predict(c, x[i], vi, p);
  v[i] = vi;
  with_push_sink(pushes, couple, [&](const auto& push) {
    xp[i] = collide_keeping(c, planes.plane, planes.count, obstacles, obstacle_count, p, x[i], push,
                            couple ? &record[i] : nullptr, &collided[i]);
  });
}

// collision_yield_relief() for each particle with a collision record, added to xp and held out of the walls
// (relieved()); the pushes to `pushes`. `yields` holds the rounds' totals before this round, then after it
// (kMaxObstacles each).
__global__ void k_relieve_collisions(size_t n, MotionConstants c, PlaneSet planes, uint32_t obstacle_count,
                                     const Vec3* record, const uint8_t* collided, const BodyYield* yields,
                                     const Vec3* x, Vec3* xp, ObstaclePush* pushes) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n || collided[i] == kNoCollision) return;  // nothing to give back: the particle stays
  const CudaPushSink push{pushes, true};
  const Vec3 p = xp[i];
  const Vec3 relief =
      collision_relief(record[i], collided[i], p, obstacle_count, yields, yields + kMaxObstacles, push);
  xp[i] = relieved(c, planes.plane, planes.count, p, p + relief, x[i]);
}

}  // namespace

void CudaBackend::predict(const StepContext& ctx) {
  use_device();
  begin_stage(&StepStats::time_predict_ms);
  const Obstacle* obstacles = obstacles_for(ctx);
  k_predict<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, ctx.motion, plane_set(ctx), obstacles, ctx.obstacle_count,
                                                     x_.data(), v_.data(), xp_.data(), iteration_state_.data(),
                                                     obstacle_push_sums(ctx), ctx.bodies_couple, scratch_.data(),
                                                     collided_.data());
  check_launch("k_predict");
  finish("predict");
}

const BodyYield* CudaBackend::upload_body_yields(const BodyYield* before, const BodyYield* moved, uint32_t count) {
  cuda_check(cudaMemcpyAsync(body_yields_.data(), before, count * sizeof(BodyYield), cudaMemcpyHostToDevice, stream_),
             "cudaMemcpy (body yields)");
  cuda_check(cudaMemcpyAsync(body_yields_.data() + kMaxObstacles, moved, count * sizeof(BodyYield),
                             cudaMemcpyHostToDevice, stream_),
             "cudaMemcpy (body yields)");
  return body_yields_.data();
}

void CudaBackend::relieve_collisions(const StepContext& ctx, const BodyYield* before, const BodyYield* moved) {
  ObstaclePush* pushes = obstacle_push_sums(ctx);
  if (pushes == nullptr) return;
  use_device();
  begin_stage(&StepStats::time_constraints_ms);
  const BodyYield* yields = upload_body_yields(before, moved, ctx.obstacle_count);
  k_relieve_collisions<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, ctx.motion, plane_set(ctx), ctx.obstacle_count,
                                                              scratch_.data(), collided_.data(), yields, x_.data(),
                                                              xp_.data(), pushes);
  check_launch("k_relieve_collisions");
  finish("relieve_collisions");
}

}  // namespace pbf
