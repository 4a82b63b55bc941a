// motion.h - how particles move between their constraints, the same for
// every method and device: gravity and the predicted position, collisions
// with planes, obstacles and the domain box, and the velocity a substep
// leaves (Macklin & Mueller 2013, Algorithm 1, lines 1-4 and 21). A backend's
// predict() runs the first two; the methods' iterations collide again after
// each correction and derive the velocity at the end of a substep.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/config.h"
#include "core/hd.h"
#include "core/obstacle.h"

namespace pbf {

// What a substep's motion needs, derived from the solver's config and
// parameters (make_motion_constants()).
struct MotionConstants {
  float particle_radius;  // half the spacing: how far particles stay from walls [m]
  float restitution;
  float friction;
  float max_speed;        // [m/s]
  Vec3 gravity;           // [m/s^2]
  float dt;               // substep [s]
  float inv_dt;
  Vec3 box_min;           // domain shrunk by the particle radius
  Vec3 box_max;
};

inline MotionConstants make_motion_constants(const SolverConfig& config, const PbfParams& p, float dt) {
  MotionConstants c{};
  c.particle_radius = 0.5f * config.particle_spacing;
  c.restitution = p.restitution;
  c.friction = p.friction;
  c.max_speed = p.max_speed;
  c.gravity = p.gravity;
  c.dt = dt;
  c.inv_dt = 1.0f / dt;
  const float r = c.particle_radius;
  c.box_min = config.domain_min + Vec3{r, r, r};
  c.box_max = config.domain_max - Vec3{r, r, r};
  return c;
}

// v shortened to max_speed where it is faster. A velocity whose square
// overflows (a caller may set any finite velocity) is measured in units of its
// largest component instead, so it is clamped too, to a finite vector.
PBF_HD Vec3 clamp_speed(Vec3 v, float max_speed) {
  const float s2 = length_squared(v);
  if (s2 <= 3.0e38f) {
    if (s2 > max_speed * max_speed) return v * (max_speed / sqrtf(s2));
    return v;
  }
  const float a = fmaxf(fabsf(v.x), fmaxf(fabsf(v.y), fabsf(v.z)));
  const Vec3 u{v.x / a, v.y / a, v.z / a};  // largest component +-1
  const float len = length(u);               // 1 .. sqrt(3)
  if (a <= max_speed / len) return v;
  return u * (max_speed / len);
}

// Algorithm 1, lines 1-3: apply gravity and predict the position.
PBF_HD void predict(const MotionConstants& c, Vec3 x, Vec3& v, Vec3& x_pred) {
  v = clamp_speed(v + c.gravity * c.dt, c.max_speed);
  x_pred = x + v * c.dt;
}

// p held inside the domain box.
PBF_HD Vec3 clamp_to_box(const MotionConstants& c, Vec3 p) {
  return Vec3{clampf(p.x, c.box_min.x, c.box_max.x), clampf(p.y, c.box_min.y, c.box_max.y),
              clampf(p.z, c.box_min.z, c.box_max.z)};
}

// The depth of p = (px, py, pz) within plane `plane`, particle radius -
// (n . p + offset), in lanes of T (a float, or the CPU's lanes): collide()
// pushes p off the plane where !(depth <= 0) (NaN included).
template <class T>
PBF_HD T plane_depth(const MotionConstants& c, const Plane& plane, T px, T py, T pz) {
  return T(c.particle_radius) - plane_distance(plane, px, py, pz);
}

// Keeps a predicted position out of every plane, with Coulomb friction on the
// tangential motion since the start of the substep (x_start), then out of
// every obstacle (core/obstacle.h, each with its own friction), and finally
// inside the domain box whatever the planes and obstacles did. A plane that
// leaves no room inside the box could set a particle far outside it: the box
// holds it before the obstacles see it, so their pushes stay within the
// domain's scale.
// Each obstacle's displacement of the particle goes to `push` (core/obstacle.h).
// With no plane whose depth at p is not <= 0 (plane_depth()), the planes
// leave p as it is: a caller that has tested them for many points at once
// may pass plane_count 0 for such a point and gets the same result.
template <class Push>
PBF_HD Vec3 collide(const MotionConstants& c, const Plane* planes, uint32_t plane_count, const Obstacle* obstacles,
                    uint32_t obstacle_count, Vec3 p, Vec3 x_start, Push& push) {
  for (uint32_t k = 0; k < plane_count; ++k) {
    const Vec3 n = planes[k].normal;
    const float depth = plane_depth(c, planes[k], p.x, p.y, p.z);
    if (depth <= 0.0f) continue;
    p += n * depth;
    if (c.friction > 0.0f) {
      const Vec3 moved = p - x_start;
      const Vec3 tangential = moved - n * dot(moved, n);
      const float t = length(tangential);
      const float limit = c.friction * depth;
      if (t > 0.0f) p -= tangential * fminf(1.0f, limit / t);
    }
  }
  if (obstacle_count > 0) p = clamp_to_box(c, p);
  for (uint32_t k = 0; k < obstacle_count; ++k) {
    const Vec3 before = p;
    p = collide_obstacle(obstacles[k], c.particle_radius, obstacles[k].friction, p, x_start);
    if (Push::kActive && (p.x != before.x || p.y != before.y || p.z != before.z)) {
      // The collision's constraint has the unit normal for its gradient: its weight in the obstacle's
      // added mass is 1 / |d|^2 (core/obstacle.h).
      const Vec3 d = p - before;
      const float d2 = length_squared(d);
      if (d2 > 1e-30f) push.couple(k, d, before, 1.0f / d2);
      else push.add(k, d, before);
    }
  }
  return clamp_to_box(c, p);
}

PBF_HD Vec3 collide(const MotionConstants& c, const Plane* planes, uint32_t plane_count, const Obstacle* obstacles,
                    uint32_t obstacle_count, Vec3 p, Vec3 x_start) {
  NoPush none;
  return collide(c, planes, plane_count, obstacles, obstacle_count, p, x_start, none);
}

// p moved to `moved` by the water's give to the dynamic bodies' yield (the
// reliefs of core/obstacle.h and boundary/boundary_equations.h), held as
// collide() holds an obstacle's push: out of the planes and inside the
// domain box. A body pressing water against a wall moves it no further than
// the wall; what the relief handed to the body stands (the wall takes the
// rest, as it takes every push that collide() undoes). A particle the relief
// did not move keeps p.
PBF_HD Vec3 relieved(const MotionConstants& c, const Plane* planes, uint32_t plane_count, Vec3 p, Vec3 moved,
                     Vec3 x_start) {
  if (moved.x == p.x && moved.y == p.y && moved.z == p.z) return p;
  return collide(c, planes, plane_count, nullptr, 0u, moved, x_start);
}

// collide(), keeping the particle's collision record (core/obstacle.h) in
// *record and *obstacle where `record` is given (StepContext::bodies_couple;
// null: none kept).
template <class Push>
PBF_HD Vec3 collide_keeping(const MotionConstants& c, const Plane* planes, uint32_t plane_count,
                            const Obstacle* obstacles, uint32_t obstacle_count, Vec3 p, Vec3 x_start, Push& push,
                            Vec3* record, uint8_t* obstacle) {
  if (record == nullptr) return collide(c, planes, plane_count, obstacles, obstacle_count, p, x_start, push);
  *obstacle = kNoCollision;
  auto recording = recorded(push, *record, *obstacle);
  return collide(c, planes, plane_count, obstacles, obstacle_count, p, x_start, recording);
}

// Algorithm 1, line 21: v = (x* - x) / dt, then restitution against every
// plane the particle touches: the normal velocity leaving the wall is at
// least -restitution times the velocity it arrived with (v_pred). A particle
// that bounces off several planes at once leaves no faster than it arrived or
// than x* - x moved it (the first bounce excepted): raising the normal speed
// off each plane in turn, along normals that are not orthogonal, lowers it off
// the others, and a particle squeezed between planes gained speed without
// bound, bounce after bounce.
PBF_HD Vec3 updated_velocity(const MotionConstants& c, const Plane* planes, uint32_t plane_count,
                             Vec3 x, Vec3 x_pred, Vec3 v_pred) {
  Vec3 v = (x_pred - x) * c.inv_dt;
  const float contact = c.particle_radius * 1.001f;
  // The square of the largest speed a further bounce may leave; < 0 before the first.
  float speed2 = -1.0f;
  for (uint32_t k = 0; k < plane_count; ++k) {
    const Vec3 n = planes[k].normal;
    if (plane_distance(planes[k], x_pred.x, x_pred.y, x_pred.z) > contact) continue;
    const float arriving = dot(v_pred, n);
    if (arriving >= 0.0f) continue;
    float wanted = -c.restitution * arriving;
    const float leaving = dot(v, n);
    if (leaving >= wanted) continue;
    if (speed2 < 0.0f) {
      speed2 = fmaxf(length_squared(v), length_squared(v_pred));
    } else {
      // v keeps its part along the plane, so the normal part may be at most this.
      const float room = speed2 - (length_squared(v) - leaving * leaving);
      if (wanted * wanted > room) wanted = room > 0.0f ? sqrtf(room) : 0.0f;
      if (leaving >= wanted) continue;
    }
    v += n * (wanted - leaving);
  }
  return clamp_speed(v, c.max_speed);
}

}  // namespace pbf
