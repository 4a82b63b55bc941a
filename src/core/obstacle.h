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
// backend that runs the step, and its pose.
struct Obstacle {
  SdfGridView field;
  ObstaclePose pose;
};

// How the stages tell what obstacles did to the water: each time obstacle k
// displaces a particle that stands at `at` by d (a collision, or the
// boundary samples attached to k), they call push.add(k, d, at). The water's
// force on k follows from the sum: a displacement d of a particle of mass m
// in a substep dt is an impulse m d / dt that k gave it (docs/PHYSICS.md
// §12). NoPush drops them; each backend has a sink that sums them.
struct NoPush {
  static constexpr bool kActive = false;
  PBF_HD void add(uint32_t, Vec3, Vec3) const {}
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
};

// What the pushes on one obstacle sum to: the displacements [m] and their
// moments about the world's origin, sum at x d [m^2], in double.
struct ObstaclePush {
  double d[3];
  double moment[3];
};

// The most samples of the swept test below.
constexpr int kSweepSamples = 32;

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
PBF_HD Vec3 collide_obstacle(const Obstacle& o, float radius, float friction, Vec3 p, Vec3 x_start) {
  const Vec3 q0 = to_local(o.pose.start, x_start);
  const Vec3 q1 = to_local(o.pose.end, p);
  // Broad phase: a motion whose box stays a radius clear of the field's grid
  // cannot touch the solid (the grid encloses it with a margin), so most
  // particles skip the samples below.
  const float gx = o.field.origin.x, gy = o.field.origin.y, gz = o.field.origin.z;
  const float hx = gx + float(o.field.nx - 1) * o.field.cell, hy = gy + float(o.field.ny - 1) * o.field.cell,
              hz = gz + float(o.field.nz - 1) * o.field.cell;
  if (fmaxf(q0.x, q1.x) < gx - radius || fminf(q0.x, q1.x) > hx + radius || fmaxf(q0.y, q1.y) < gy - radius ||
      fminf(q0.y, q1.y) > hy + radius || fmaxf(q0.z, q1.z) < gz - radius || fminf(q0.z, q1.z) > hz + radius)
    return p;
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

}  // namespace pbf
