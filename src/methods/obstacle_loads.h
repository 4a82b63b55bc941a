// obstacle_loads.h - what the water gave the obstacles during a step, from
// the pushes the device summed (Backend::take_obstacle_pushes()): written
// once for every method, each of which pushes, for every obstacle, the
// displacements d it gave particles of mass m in a substep of h seconds, the
// impulse m d / h (core/obstacle.h, docs/PHYSICS.md §12).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "methods/method.h"

namespace pbf {

class ObstacleLoadTally {
 public:
  // A step with `count` obstacles (at most kMaxObstacles).
  explicit ObstacleLoadTally(size_t count) : count_(count) {}
  // Takes the device's sums of the substeps since the last take (particles
  // of `mass` [kg], substeps of h [s]): each obstacle's impulse and moment
  // (what the water gave it) to `out` (null: not wanted), added to the step's.
  void take(Backend& backend, float mass, float h, ObstacleImpulse* out);
  // The step's loads, its impulses over dt: the mean force and moment.
  void finish(float dt, ObstacleLoad* loads) const;

 private:
  size_t count_;
  ObstaclePush pushes_[kMaxObstacles];
  ObstacleImpulse total_[kMaxObstacles] = {};
};

// One substep with dynamic bodies, its poses (advance()'s) in `poses`, which
// ctx.obstacle_poses names: the method's stages call yield() after the
// prediction and after each of the substep's iterations, where the bodies
// give way to what the water pushed them with since the last call
// (ObstaclePath::yield(), the attached samples following them); respond()
// ends the substep with what the water gave them in the whole substep. So
// the water's iterations meet a body where their pushes move it, and water
// pinched between a body and a wall stops it instead of throwing it back
// (docs/PHYSICS.md §13).
//
// Where the method's iterations tell the bodies' added mass (Push::couple():
// the collisions' and the density constraints' pushes) and keep the
// collision records (core/obstacle.h), a body yields as its part of the
// joint solve with those constraints (rigid_yield()), and the water then
// gives back the part of its pushes that the bodies' motion made unneeded,
// as the joint solve would not have pushed it: after the prediction the
// collisions' (Backend::relieve_collisions()), after an iteration the
// density constraints' and the collisions' (the method's `relieve_iteration`:
// PBF's stage after a density iteration, Projective Fluids' after a global
// step). What
// it gives back is pushed on the bodies (Push::add()) and counted in the
// substep's impulse, so that the water's momentum and the bodies' still
// balance. A method that leaves StepContext::bodies_couple off (its sinks
// then sum no added mass) and passes no `relieve_iteration` keeps its
// bodies yielding by their own mass (docs/PHYSICS.md §13).
class BodySubstep {
 public:
  // The most rounds of a yield, and the part of the first round's motion below which a round ends them.
  static constexpr int kYieldRounds = 4;
  static constexpr double kYieldRoundEnough = 0.01;
  using Relief = std::function<void(const BodyYield* before, const BodyYield* moved)>;
  BodySubstep(Backend& backend, ObstaclePath& obstacles, ObstacleLoadTally& loads, const StepContext& ctx,
              ObstaclePose* poses, float mass, float h, Relief relieve_iteration = nullptr)
      : backend_(backend), obstacles_(obstacles), loads_(loads), ctx_(ctx), poses_(poses), mass_(mass), h_(h),
        relieve_iteration_(std::move(relieve_iteration)) {}
  void yield();
  void respond();

 private:
  Backend& backend_;
  ObstaclePath& obstacles_;
  ObstacleLoadTally& loads_;
  StepContext ctx_;
  ObstaclePose* poses_;
  float mass_, h_;
  Relief relieve_iteration_;
  bool after_prediction_ = true;  // the first yield of a substep follows the prediction
  ObstacleImpulse total_[kMaxObstacles] = {};
  // Takes the pushes since the last take into `now`, added to the substep's.
  void take(ObstacleImpulse* now);
};

// Dynamic bodies fall (and meet walls) without water to push them: moves
// them through `substeps` equal substeps of dt, `poses` room for their poses.
void advance_bodies_without_water(ObstaclePath& obstacles, uint32_t substeps, float dt,
                                  std::vector<ObstaclePose>& poses);

}  // namespace pbf
