// obstacle.h - solid obstacles given by signed distance fields, static or
// moving rigidly, and the collision of a particle with one of them, written
// once for every backend and every method.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/sdf_grid.h"

namespace pbf {

// The most obstacles a solver holds.
constexpr uint32_t kMaxObstacles = 64;

// Where a solid is during one substep: its placement at the substep's start
// and at its end (the solver interpolates the user's per-step placements).
struct ObstaclePose {
  RigidTransform start;
  RigidTransform end;
};

// A solid for one substep: its field in its own frame, in memory of the
// backend that runs the step, its pose, and the Coulomb friction of the
// water sliding along it (Backend::set_obstacle_friction()).
struct Obstacle {
  SdfGridView field;
  ObstaclePose pose;
  float friction = 0.0f;
};

// How the stages tell what obstacles did to the water: each time obstacle k
// displaces a particle that stands at `at` by d (a collision, or the
// boundary samples attached to k), they call push.add(k, d, at). The water's
// force on k follows from the sum: a displacement d of a particle of mass m
// in a substep dt is an impulse m d / dt that k gave it (docs/PHYSICS.md
// §12). A push of a constraint (a density constraint through k's boundary
// samples, a collision with k) comes as push.couple(k, d, at, weight)
// instead, which adds the same and the constraint's share of k's added mass
// (for_each_added_mass_term(), §13); push.couples() says whether the sink
// sums the added mass (StepContext::bodies_couple), so that a stage need not
// work out what it would drop. NoPush drops them; each backend has a sink
// that sums them.
struct NoPush {
  static constexpr bool kActive = false;
  PBF_HD void add(uint32_t, Vec3, Vec3) const {}
  PBF_HD void couple(uint32_t, Vec3, Vec3, float) const {}
  PBF_HD bool couples() const { return false; }
};

// A sink that hands every push on to `inner` and also sums the
// displacements it was given: what the obstacles, all of them, did to one
// particle in a stage.
template <class Push>
struct TalliedPush {
  static constexpr bool kActive = Push::kActive;
  Push& inner;
  Vec3 total;
  PBF_HD void add(uint32_t k, Vec3 d, Vec3 at) {
    inner.add(k, d, at);
    total += d;
  }
  PBF_HD void couple(uint32_t k, Vec3 d, Vec3 at, float weight) {
    inner.couple(k, d, at, weight);
    total += d;
  }
  PBF_HD bool couples() const { return inner.couples(); }
};

// The entries of a symmetric 6 x 6 matrix kept as its upper triangle, row by
// row: (0,0) (0,1) ... (0,5) (1,1) ... (5,5).
constexpr int kSymmetric6 = 21;

// What the pushes on one obstacle sum to: the displacements [m] and their
// moments about the world's origin, sum at x d [m^2], in double; and, from
// the pushes of constraints (Push::couple()), the water's added
// mass: sum w a a^T with a = (d, at x d), upper triangle (kSymmetric6), in
// units of a particle's mass (ObstacleLoadTally scales it, docs/PHYSICS.md
// §13).
struct ObstaclePush {
  double d[3];
  double moment[3];
  double added[kSymmetric6];
};

// How a dynamic body moved in a yield between the water's iterations
// (ObstaclePath::yield()): the point x of the body moved by
// shift + turn x (x - centre) [m]. Zero for an obstacle that did not yield.
struct BodyYield {
  Vec3 shift;
  Vec3 turn;
  Vec3 centre;
};

// A particle's collision record: the last push an obstacle's collision gave
// it in a stage that collides (collide(), core/motion.h) and that obstacle,
// kNoCollision where none pushed it; a backend keeps one per particle, so
// that a body's yield can take back what its motion made unneeded
// (Backend::relieve_collisions()).
constexpr uint8_t kNoCollision = 0xff;

// A sink for collide() that hands its pushes on and records the particle's
// collision pushes (Push::couple()) in `d` and `obstacle`, which the caller
// sets to kNoCollision first.
template <class Push>
struct RecordedPush {
  static constexpr bool kActive = Push::kActive;
  Push& inner;
  Vec3& d;
  uint8_t& obstacle;
  PBF_HD void add(uint32_t k, Vec3 dk, Vec3 at) { inner.add(k, dk, at); }
  PBF_HD void couple(uint32_t k, Vec3 dk, Vec3 at, float weight) {
    inner.couple(k, dk, at, weight);
    d = dk;
    obstacle = static_cast<uint8_t>(k);
  }
  PBF_HD bool couples() const { return inner.couples(); }
};

template <class Push>
PBF_HD RecordedPush<Push> recorded(Push& push, Vec3& d, uint8_t& obstacle) {
  return RecordedPush<Push>{push, d, obstacle};
}

// What a particle gives back of its push in a round of a body's yield
// (BodySubstep): the displacement d, and the weight of its constraint in the
// body's added mass where that constraint still pushes after the round
// (Push::couple(), 0 where it has let go), so that the next round's Newton
// step knows the added mass of the constraints still pushing.
struct YieldRelief {
  Vec3 d;
  float weight;
};

// Hands a relief on to push: couple() where its constraint still pushes,
// add() otherwise.
template <class Push>
PBF_HD void push_relief(Push& push, uint32_t k, const YieldRelief& r, Vec3 at) {
  if (r.weight > 0.0f) push.couple(k, r.d, at, r.weight);
  else if (r.d.x != 0.0f || r.d.y != 0.0f || r.d.z != 0.0f) push.add(k, r.d, at);
}

// The relief of a constraint whose particle moves by `more` g for the body's
// motion, more going from `was` to `now` in a round: d = (now - was) g, and
// the weight 1 / ((now - was)^2 D) where the constraint still pushes (so
// that weight d d^T is g g^T / D; none where the round changed nothing).
PBF_HD YieldRelief yield_relief_between(Vec3 g, float was, float now, bool pushing, float inverse_denominator) {
  const float step = now - was;
  const float step2 = step * step;
  const float weight = pushing && step2 > 1e-30f ? inverse_denominator / step2 : 0.0f;
  return YieldRelief{g * step, weight};
}

// What a particle gives back of the push d that an obstacle's collision
// gave it once the obstacle yielded (docs/PHYSICS.md §13), in a round from
// `before` to `moved` (the rounds' totals; zero before the first). The
// collision's constraint (the particle a radius outside the surface, its
// gradient the unit normal n = d / |d|, its denominator 1) solved jointly
// with the body's motion moves the particle by (n . u) n more, u the body's
// displacement at p (the particle's position after the push): less where
// the body moved away, but never back beyond where the particle was before
// the push (where it has let go of the body).
PBF_HD YieldRelief collision_yield_relief(Vec3 d, Vec3 p, const BodyYield& before, const BodyYield& moved) {
  const float depth = sqrtf(length_squared(d));
  if (!(depth > 0.0f)) return YieldRelief{make_vec3(0.0f, 0.0f, 0.0f), 0.0f};
  const Vec3 n = d * (1.0f / depth);
  const float was = dot(n, before.shift + cross(before.turn, p - before.centre));
  const float now = dot(n, moved.shift + cross(moved.turn, p - moved.centre));
  return yield_relief_between(n, fmaxf(was, -depth), fmaxf(now, -depth), now > -depth, 1.0f);
}

// collision_yield_relief() for a particle with the collision record (d,
// obstacle) at p, handed to push; returns its displacement (zero without a
// record).
template <class Push>
PBF_HD Vec3 collision_relief(Vec3 d, uint8_t obstacle, Vec3 p, uint32_t obstacle_count, const BodyYield* before,
                             const BodyYield* moved, Push& push) {
  if (obstacle == kNoCollision || obstacle >= obstacle_count) return make_vec3(0.0f, 0.0f, 0.0f);
  // Where the push and the rounds before left it: they moved it along n only, which changes no n . u.
  const YieldRelief r = collision_yield_relief(d, p, before[obstacle], moved[obstacle]);
  push_relief(push, obstacle, r, p);
  return r.d;
}

// f(entry, value) for each entry of weight x a a^T, a = (d, at x d): what a
// push of a constraint adds to ObstaclePush::added. A sink's
// couple(k, d, at, weight) adds these besides what add(k, d, at) adds: the
// constraint C of the push's particle moves it by d = lambda grad C and has
// weight = 1 / (lambda^2 D), D its denominator (the sum of its squared
// gradients), so that w a a^T = J J^T / D with J the gradient of C with
// respect to the obstacle's translation and rotation.
template <class F>
PBF_HD void for_each_added_mass_term(Vec3 d, Vec3 at, float weight, F&& f) {
  const Vec3 m = cross(at, d);
  const double a[6] = {d.x, d.y, d.z, m.x, m.y, m.z};
  int e = 0;
  for (int r = 0; r < 6; ++r)
    for (int col = r; col < 6; ++col) f(e++, static_cast<double>(weight) * a[r] * a[col]);
}

// The most samples of the swept test below.
constexpr int kSweepSamples = 32;

// collide_obstacle() (below) for a particle whose motion in the solid's
// frame, from q0 to q1 (p in the world), its broad phase found within a
// radius of the field's grid: the swept test and the push out. Out of line
// on the host (PBF_HD_RARE): most particles never get here.
PBF_HD_RARE Vec3 collide_obstacle_near(const Obstacle& o, float radius, float friction, Vec3 p, Vec3 q0, Vec3 q1) {
  const Vec3 travel = q1 - q0;
  const float len2 = length_squared(travel);
  Vec3 q = q1;
  if (len2 > radius * radius && sdf_sample(o.field, q0, nullptr) >= 0.0f) {
    const float len = sqrtf(len2);
    const int samples = int(fminf(ceilf(len / radius), float(kSweepSamples)));
    float outside = 0.0f;
    for (int k = 1; k <= samples; ++k) {
      const float t = float(k) / float(samples);
      if (sdf_sample(o.field, q0 + travel * t, nullptr) >= 0.0f) {
        outside = t;
        continue;
      }
      float inside = t;
      for (int b = 0; b < 8; ++b) {
        const float mid = 0.5f * (outside + inside);
        if (sdf_sample(o.field, q0 + travel * mid, nullptr) >= 0.0f) outside = mid;
        else inside = mid;
      }
      const Vec3 entry = q0 + travel * outside;
      Vec3 n_entry, n_end;
      sdf_sample(o.field, entry, &n_entry);
      const bool beyond = sdf_sample(o.field, q1, &n_end) >= 0.0f || dot(n_entry, n_end) <= 0.0f;
      if (beyond) q = entry;
      break;
    }
  }
  Vec3 g;
  const float d = sdf_sample(o.field, q, &g) - radius;
  if (d >= 0.0f) return (q.x == q1.x && q.y == q1.y && q.z == q1.z) ? p : to_world(o.pose.end, q);
  const float g2 = length_squared(g);
  const Vec3 n = g2 > 0.0f ? g * (1.0f / sqrtf(g2)) : make_vec3(0.0f, 1.0f, 0.0f);
  q += n * (-d);
  // Deep inside, the interpolated gradient may tilt: one more projection from
  // the new point lands within interpolation error of the surface.
  const float d2 = sdf_sample(o.field, q, &g) - radius;
  if (d2 < 0.0f) {
    const float h2 = length_squared(g);
    if (h2 > 0.0f) q += g * (-d2 / sqrtf(h2));
  }
  const float depth = fmaxf(dot(q - q1, n), 0.0f);
  if (friction > 0.0f && depth > 0.0f) {
    const Vec3 moved = q - q0;
    const Vec3 tangential = moved - n * dot(moved, n);
    const float t = length(tangential);
    if (t > 0.0f) q -= tangential * fminf(1.0f, friction * depth / t);
  }
  return to_world(o.pose.end, q);
}

// Keeps a particle that moved from x_start (at the substep's start) to p
// (now) out of a solid whose own frame moved from pose.start to pose.end.
// The test runs in the solid's frame, where the solid is still: the particle
// travels from q0 = start^-1 x_start to q1 = end^-1 p. A particle within a
// radius of the surface is set one radius out along the field's gradient,
// and its motion along the surface relative to the solid is reduced by
// Coulomb friction (friction x the depth pushed out), as at planes. Fast
// relative motion could carry q1 through a wall, or past its middle so that
// the gradient points out of the far side: when the segment is longer than a
// radius it is sampled a radius apart, and if it entered the solid and q1
// lies beyond it (outside again, or where the surface faces the other way),
// the particle goes back to where it entered (found by bisection). So a wall
// moving several radii per substep carries its fluid instead of passing
// through it; walls must be thicker than a particle radius.
// The narrow phase is collide_obstacle_near(), above.
PBF_HD Vec3 collide_obstacle(const Obstacle& o, float radius, float friction, Vec3 p, Vec3 x_start) {
  const Vec3 q0 = to_local(o.pose.start, x_start);
  const Vec3 q1 = to_local(o.pose.end, p);
  // Broad phase: a motion whose box stays a radius clear of the field's grid
  // cannot touch the solid (the grid encloses it with a margin), so most
  // particles skip the samples below. (Both ends below a bound, and so on:
  // the bounding box's test, for the finite points that collide() passes.)
  const float gx = o.field.origin.x, gy = o.field.origin.y, gz = o.field.origin.z;
  const float hx = gx + float(o.field.nx - 1) * o.field.cell, hy = gy + float(o.field.ny - 1) * o.field.cell,
              hz = gz + float(o.field.nz - 1) * o.field.cell;
  const float lx = gx - radius, ly = gy - radius, lz = gz - radius;
  const float ux = hx + radius, uy = hy + radius, uz = hz + radius;
  if ((q0.x < lx && q1.x < lx) || (q0.x > ux && q1.x > ux) || (q0.y < ly && q1.y < ly) ||
      (q0.y > uy && q1.y > uy) || (q0.z < lz && q1.z < lz) || (q0.z > uz && q1.z > uz))
    return p;
  return collide_obstacle_near(o, radius, friction, p, q0, q1);
}

}  // namespace pbf
