#include "methods/obstacle_loads.h"

#include <algorithm>

namespace pbf {

void ObstacleLoadTally::take(Backend& backend, float mass, float h, ObstacleImpulse* out) {
  if (count_ == 0) return;
  backend.take_obstacle_pushes(pushes_, static_cast<uint32_t>(count_));
  // A particle of mass m displaced by d in a substep got the impulse m d / h
  // from the obstacle; the obstacle got the opposite.
  const double to_impulse = -static_cast<double>(mass) / static_cast<double>(h);
  for (size_t k = 0; k < count_; ++k)
    for (int a = 0; a < 3; ++a) {
      const double impulse = pushes_[k].d[a] * to_impulse, moment = pushes_[k].moment[a] * to_impulse;
      if (out) {
        out[k].impulse[a] = impulse;
        out[k].moment[a] = moment;
      }
      total_[k].impulse[a] += impulse;
      total_[k].moment[a] += moment;
    }
  // The added mass in units of a particle's mass, made kilograms (ObstaclePush::added).
  if (out)
    for (size_t k = 0; k < count_; ++k)
      for (int e = 0; e < kSymmetric6; ++e) out[k].added[e] = pushes_[k].added[e] * static_cast<double>(mass);
}

void ObstacleLoadTally::finish(float dt, ObstacleLoad* loads) const {
  // + 0.0: an untouched obstacle's sums give +0, not -0.
  const double per_second = 1.0 / static_cast<double>(dt);
  const auto scaled = [per_second](const double v[3]) {
    return Vec3{float(v[0] * per_second + 0.0), float(v[1] * per_second + 0.0), float(v[2] * per_second + 0.0)};
  };
  for (size_t k = 0; k < count_; ++k) {
    loads[k].force = scaled(total_[k].impulse);
    loads[k].moment = scaled(total_[k].moment);
  }
}

void BodySubstep::take(ObstacleImpulse* now) {
  loads_.take(backend_, mass_, h_, now);
  for (uint32_t k = 0; k < ctx_.obstacle_count; ++k)
    for (int a = 0; a < 3; ++a) {
      total_[k].impulse[a] += now[k].impulse[a];
      total_[k].moment[a] += now[k].moment[a];
    }
}

void BodySubstep::yield() {
  ObstacleImpulse since[kMaxObstacles];  // all the water gave since the yield began
  take(since);
  // Water that pushed no body (none near one, or iterations that the density tolerance has ended): no body
  // moves (the advance settled them among each other), so there is nothing to yield or follow.
  bool pushed = false;
  for (uint32_t k = 0; k < ctx_.obstacle_count && !pushed; ++k) {
    for (int a = 0; a < 3; ++a) pushed = pushed || since[k].impulse[a] != 0.0 || since[k].moment[a] != 0.0;
    for (int e = 0; e < kSymmetric6; ++e) pushed = pushed || since[k].added[e] != 0.0;
  }
  if (!pushed) {
    after_prediction_ = false;
    return;
  }
  BodyYield before[kMaxObstacles] = {}, moved[kMaxObstacles] = {};
  const double first = obstacles_.yield(since, poses_, moved, false);
  // Only a body that moved against an added mass has anything to take back (the kinematic obstacles'
  // pushes carry added mass too, but they do not move here). The sinks sum added mass only where the
  // method couples its bodies (ctx.bodies_couple, with its relief).
  bool coupled = false;
  for (uint32_t k = 0; k < ctx_.obstacle_count && !coupled; ++k) {
    const BodyYield& y = moved[k];
    const bool moving = y.shift.x != 0.0f || y.shift.y != 0.0f || y.shift.z != 0.0f || y.turn.x != 0.0f ||
                        y.turn.y != 0.0f || y.turn.z != 0.0f;
    for (int e = 0; e < kSymmetric6 && moving && !coupled; ++e) coupled = since[k].added[e] != 0.0;
  }
  // The water gives back what the bodies' motion took over, before the samples follow them: the
  // collisions' pushes, and after an iteration the density constraints'. Where some constraints let go
  // of a body, what the water still pushes exceeds what moved it: Newton's rounds on that balance,
  // with the added mass of the constraints still pushing, until a round moves the bodies little.
  for (int round = 0; coupled; ++round) {
    if (after_prediction_) backend_.relieve_collisions(ctx_, before, moved);
    else if (relieve_iteration_) relieve_iteration_(before, moved);
    ObstacleImpulse relief[kMaxObstacles];
    take(relief);
    if (round + 1 == kYieldRounds) break;
    for (uint32_t k = 0; k < ctx_.obstacle_count; ++k) {
      for (int a = 0; a < 3; ++a) {
        since[k].impulse[a] += relief[k].impulse[a];
        since[k].moment[a] += relief[k].moment[a];
      }
      std::copy(relief[k].added, relief[k].added + kSymmetric6, since[k].added);
      before[k] = moved[k];
    }
    if (!(obstacles_.yield(since, poses_, moved, true) > kYieldRoundEnough * first)) {
      // Too little to take back: this round's motion stays with the bodies alone (respond balances it).
      break;
    }
  }
  after_prediction_ = false;
  backend_.follow_obstacles(ctx_);
}

void BodySubstep::respond() {
  ObstacleImpulse now[kMaxObstacles];
  take(now);
  obstacles_.respond(total_);
}

void advance_bodies_without_water(ObstaclePath& obstacles, uint32_t substeps, float dt,
                                  std::vector<ObstaclePose>& poses) {
  poses.resize(obstacles.count());
  const ObstacleImpulse none[kMaxObstacles] = {};
  for (uint32_t k = 0; k < substeps; ++k) {
    obstacles.advance(float(k) / float(substeps), float(k + 1) / float(substeps), dt / static_cast<float>(substeps),
                      poses.data());
    obstacles.respond(none);
  }
}

}  // namespace pbf
