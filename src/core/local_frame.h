// local_frame.h - where a solver keeps its positions: relative to an origin
// near its domain, so that water far from the world's origin is resolved as
// finely as water at it. A float holds about seven digits: 1 km out a
// position resolves 6e-5 m, and a sweep's correction smaller than half of
// that is lost; the reference dam break lost half its kinetic energy there
// (docs/PHYSICS.md §9). The solver (src/solver/) translates every position,
// plane and pose that crosses its interface; the backends and methods work
// in the frame and never see the world's coordinates.
#pragma once

#include <cmath>
#include <cstddef>

#include "core/config.h"

namespace pbf {

// The frame's origin for the domain [lo, hi], axis by axis. With p the
// smallest power of two at least the domain's extent along the axis and c
// its centre: 0 when |c| < p (a domain near the world's origin keeps the
// world's coordinates, bit for bit), otherwise the largest multiple of p not
// above c. Every point of the domain then lies less than 2.5 extents from the
// origin (half an extent from c, c less than p from the origin, p less than
// two extents), and a scene moved by a multiple of p lies in the frame where
// it lay before: the same floats, the same steps.
inline Vec3 frame_origin(Vec3 lo, Vec3 hi) {
  const float l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
  float o[3] = {0.0f, 0.0f, 0.0f};
  for (int a = 0; a < 3; ++a) {
    const double extent = static_cast<double>(h[a]) - l[a];
    const double centre = 0.5 * (static_cast<double>(h[a]) + l[a]);
    const double p = std::exp2(std::ceil(std::log2(extent)));
    // A multiple k p with |k| < 2^24 (the domain spans at least a unit in
    // the last place of its corners, so |c| / p stays below that): a float.
    if (std::fabs(centre) >= p) o[a] = static_cast<float>(p * std::floor(centre / p));
  }
  return Vec3{o[0], o[1], o[2]};
}

// The translation between the world and a solver's frame.
struct LocalFrame {
  Vec3 origin{0.0f, 0.0f, 0.0f};

  bool is_world() const { return origin.x == 0.0f && origin.y == 0.0f && origin.z == 0.0f; }
  // At the world's origin every translation leaves its input as it is (a zero's sign included).
  Vec3 to_local(Vec3 world) const { return is_world() ? world : world - origin; }
  Vec3 to_world(Vec3 local) const { return is_world() ? local : local + origin; }
  // {x : n.x + d = 0} in the world is {y : n.y + (d + n.origin) = 0} in the frame.
  Plane to_local(const Plane& world) const { return is_world() ? world : Plane{world.normal, shifted(world, 1.0)}; }
  Plane to_world(const Plane& local) const { return is_world() ? local : Plane{local.normal, shifted(local, -1.0)}; }
  // n floats as vectors (3 each), moved from the world into the frame, or back, in place.
  void to_local(float* xyz, size_t n) const { add(xyz, n, -origin); }
  void to_world(float* xyz, size_t n) const { add(xyz, n, origin); }

 private:
  float shifted(const Plane& plane, double sign) const {
    const Vec3 n = plane.normal;
    const double along = double(n.x) * origin.x + double(n.y) * origin.y + double(n.z) * origin.z;
    return static_cast<float>(double(plane.offset) + sign * along);
  }
  void add(float* xyz, size_t n, Vec3 by) const {
    if (is_world()) return;
    for (size_t i = 0; i < n; ++i) {
      xyz[3 * i] += by.x;
      xyz[3 * i + 1] += by.y;
      xyz[3 * i + 2] += by.z;
    }
  }
};

}  // namespace pbf
