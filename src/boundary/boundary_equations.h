// boundary_equations.h - static boundary particles (Akinci et al. 2012,
// "Versatile rigid-fluid coupling for incompressible SPH"): samples of a
// solid surface that add their pseudo-mass to the density of nearby fluid,
// so that fluid at a wall sees a full neighbourhood. Written once for every
// backend; a backend keeps the samples sorted by grid cell and calls these
// per sample (pseudo-mass) or per fluid particle (density, gradient,
// correction). Samples are static or move rigidly with an obstacle (the
// backend places those at each substep's pose); they carry no velocity, so
// only the fluid particle's position carries a gradient.
#pragma once

#include <cstdint>

#include "core/grid_spec.h"
#include "core/hd.h"
#include "core/obstacle.h"
#include "core/sph_kernels.h"

namespace pbf {

// The boundary samples as a backend holds them: positions in cell order of
// `grid` (the fluid's grid), where cell c holds places
// cell_start[c] .. cell_start[c + 1] - 1, and each sample's pseudo-mass
// psi [kg]. Samples beyond reach of the grid's box (GridSpec::beyond_reach)
// follow the last cell, at places cell_start[cell_count()] .. count - 1,
// which no scan reads. count == 0 means no boundary; then the pointers may
// be null.
// `body` (optional, in the same cell order) names each sample's body where
// some samples move with obstacles, so that their push on the fluid can be
// told apart (boundary_push()).
// `near` (optional) marks, per fluid particle in the backend's current order,
// whether a sample lay within kBoundaryNearReach kernel radii of it at this
// substep's neighbour search, and whether one of them was a body's
// (boundary_near_mark()); the per-particle terms of pbf_equations.h skip the
// scan for unmarked particles, which are most of them, and the reliefs after
// a body's yield for particles with no body's sample near. Null: every
// particle scans.
// The body of a sample that moves with no obstacle (a static sample); any
// other body is the index of the obstacle whose frame the sample is fixed in.
constexpr uint32_t kStaticBoundary = 0xffffffffu;

struct BoundarySamples {
  GridSpec grid;
  const uint32_t* cell_start;  // grid.cell_count() + 1 entries
  const Vec3* x;               // [m]
  const float* psi;            // [kg]
  uint32_t count;
  const uint8_t* near;         // per fluid particle, or null
  const uint32_t* body = nullptr;  // per sample: kStaticBoundary or its obstacle; null: every sample static
};

// How far, in kernel radii, a fluid particle looks for samples when the
// neighbour search marks it: the extra quarter radius covers its motion
// during the substep's iterations (a sample that comes into reach then adds
// almost nothing anyway, since W and grad W vanish at the kernel radius).
constexpr float kBoundaryNearReach = 1.25f;


// f(first, last) for each row of cells of the block within `reach` of p
// (GridSpec::cell_block()): the samples [first, last) of the row's cells, in
// the grid's order.
template <class F>
PBF_HD void for_each_sample_row(const BoundarySamples& b, Vec3 p, float reach, F&& f) {
  int lo[3], hi[3];
  b.grid.cell_block(p, reach, lo, hi);
  for (int z = lo[2]; z <= hi[2]; ++z)
    for (int y = lo[1]; y <= hi[1]; ++y)
      f(b.cell_start[b.grid.linear(lo[0], y, z)], b.cell_start[b.grid.linear(hi[0], y, z) + 1]);
}

// The density kernel of a method as the sums below use it: W from r^2, and
// grad W(r) = gradient_scale(r^2) r. PBF: Poly6 with the Spiky gradient, as
// for its fluid pairs; Projective Fluids: the cubic spline.
struct Poly6Spiky {
  KernelConstants k;
  PBF_HD float radius() const { return k.h; }
  PBF_HD float h2() const { return k.h2; }
  template <class T>
  PBF_HD T w(T r2) const { return poly6(k, r2); }
  template <class T>
  PBF_HD T gradient_scale(T r2) const { return spiky_gradient_scale(k, r2); }
};

struct CubicSpline {
  CubicKernel k;
  PBF_HD float radius() const { return k.h; }
  PBF_HD float h2() const { return k.h2; }
  template <class T>
  PBF_HD T w(T r2) const { return cubic(k, r2); }
  template <class T>
  PBF_HD T gradient_scale(T r2) const { return cubic_gradient_scale(k, r2); }
};

// Adds a sample of pseudo-mass psi at r = p - x_b (|r|^2 = r2) to the
// density at p and its gradient (below); zero beyond the kernel radius. T is
// a float or, on the CPU, a lane type (backend/cpu/boundary_lanes.h); V its
// vector.
template <class Kernel, class T, class V>
PBF_HD void add_boundary_sample(const Kernel& k, const V& r, T r2, T psi, T& rho, V& grad) {
  rho += psi * k.w(r2);
  grad += r * (psi * k.gradient_scale(r2));
}

// What the samples add at a fluid particle at p: the density
// sum_b psi_b W(p - x_b) [kg/m^3] (Akinci eq. 6) and the gradient of that sum
// with respect to p, sum_b psi_b grad W(p - x_b) [kg/m^4]. Samples do not
// move, so only p carries a gradient.
template <class Kernel>
PBF_HD void boundary_density_gradient_with(const Kernel& k, const BoundarySamples& b, Vec3 p, float& rho,
                                           Vec3& grad) {
  rho = 0.0f;
  grad = Vec3{0.0f, 0.0f, 0.0f};
  if (b.count == 0) return;
  for_each_sample_row(b, p, k.radius(), [&](uint32_t first, uint32_t last) {
    for (uint32_t s = first; s < last; ++s) {
      const Vec3 r = p - b.x[s];
      const float r2 = length_squared(r);
      if (r2 >= k.h2()) continue;
      add_boundary_sample(k, r, r2, b.psi[s], rho, grad);
    }
  });
}

PBF_HD void boundary_density_gradient(const KernelConstants& k, const BoundarySamples& b, Vec3 p, float& rho,
                                      Vec3& grad) {
  boundary_density_gradient_with(Poly6Spiky{k}, b, p, rho, grad);
}

PBF_HD void boundary_density_gradient(const CubicKernel& k, const BoundarySamples& b, Vec3 p, float& rho,
                                      Vec3& grad) {
  boundary_density_gradient_with(CubicSpline{k}, b, p, rho, grad);
}

// The most bodies whose samples a fluid particle's kernel meets at once,
// summed apart (for_each_body_gradient()).
constexpr int kBodiesNear = 4;

// f(body, sum) for each obstacle whose samples lie within the kernel radius
// of p, with sum = sum_b psi_b grad W(p - x_b) over that obstacle's samples
// [kg/m^4]: static samples give none. A particle meeting more than
// kBodiesNear bodies hands the first of them on early, in pieces.
template <class Kernel, class F>
PBF_HD void for_each_body_gradient(const Kernel& k, const BoundarySamples& b, Vec3 p, F&& f) {
  if (b.count == 0 || b.body == nullptr) return;
  uint32_t bodies[kBodiesNear];
  Vec3 sums[kBodiesNear];
  int n = 0;
  for_each_sample_row(b, p, k.radius(), [&](uint32_t first, uint32_t last) {
    for (uint32_t s = first; s < last; ++s) {
      const uint32_t body = b.body[s];
      if (body == kStaticBoundary) continue;
      const Vec3 r = p - b.x[s];
      const float r2 = length_squared(r);
      if (r2 >= k.h2()) continue;
      int slot = 0;
      while (slot < n && bodies[slot] != body) ++slot;
      if (slot == n) {
        if (n == kBodiesNear) {
          f(bodies[0], sums[0]);
          for (int m = 1; m < n; ++m) {
            bodies[m - 1] = bodies[m];
            sums[m - 1] = sums[m];
          }
          slot = n - 1;
        } else {
          ++n;
        }
        bodies[slot] = body;
        sums[slot] = Vec3{0.0f, 0.0f, 0.0f};
      }
      sums[slot] += r * (b.psi[s] * k.gradient_scale(r2));
    }
  });
  for (int m = 0; m < n; ++m) f(bodies[m], sums[m]);
}

// The part of a step `scale` x sum_b psi_b grad W(p - x_b) (PBF's position
// correction along the samples' gradient; a Newton step of a Projective
// Fluids constraint) that each obstacle's samples give a fluid particle at
// p, to push (core/obstacle.h): push.couple() with `weight` > 0, the
// weight of the particle's density constraint (pbf_equations.h), so that
// the obstacle also learns its added mass; push.add() otherwise. Nothing
// without bodies.
template <class Kernel, class Push>
PBF_HD void boundary_push_with(const Kernel& k, const BoundarySamples& b, Vec3 p, float scale, Push& push,
                               float weight) {
  if (weight > 0.0f) {
    // The added mass is quadratic in each body's whole sum.
    for_each_body_gradient(k, b, p, [&](uint32_t body, Vec3 sum) { push.couple(body, sum * scale, p, weight); });
    return;
  }
  if (b.count == 0 || b.body == nullptr) return;
  // The pushes alone add up: consecutive samples of one body are summed before they are handed on.
  uint32_t body = kStaticBoundary;
  Vec3 sum{0.0f, 0.0f, 0.0f};
  for_each_sample_row(b, p, k.radius(), [&](uint32_t first, uint32_t last) {
    for (uint32_t s = first; s < last; ++s) {
      if (b.body[s] == kStaticBoundary) continue;
      const Vec3 r = p - b.x[s];
      const float r2 = length_squared(r);
      if (r2 >= k.h2()) continue;
      if (b.body[s] != body) {
        if (body != kStaticBoundary) push.add(body, sum * scale, p);
        body = b.body[s];
        sum = Vec3{0.0f, 0.0f, 0.0f};
      }
      sum += r * (b.psi[s] * k.gradient_scale(r2));
    }
  });
  if (body != kStaticBoundary) push.add(body, sum * scale, p);
}

template <class Push>
PBF_HD void boundary_push(const KernelConstants& k, const BoundarySamples& b, Vec3 p, float scale, Push& push,
                          float weight = 0.0f) {
  boundary_push_with(Poly6Spiky{k}, b, p, scale, push, weight);
}

template <class Push>
PBF_HD void boundary_push(const CubicKernel& k, const BoundarySamples& b, Vec3 p, float scale, Push& push,
                          float weight = 0.0f) {
  boundary_push_with(CubicSpline{k}, b, p, scale, push, weight);
}

// What a particle at p gives back of its samples' push in a round of the
// dynamic bodies' yield from `before` to `moved` (indexed by obstacle; the
// rounds' totals), the part of the joint solve that falls to the water
// (docs/PHYSICS.md §13), written once for both methods: for each body, with
// g = sum_b psi_b grad W(p - x_b) / rho0 over its samples, the body's motion
// u at p lowers the constraint's multiplier by more = (g . u) / D
// (`inverse_denominator` = 1 / D), at most `most` (the whole push: the
// constraint is unilateral; infinity where it is not), and the particle
// moves by more times share g, share the part of the multiplier's step that
// reaches it; the added mass of a constraint still pushing is
// share g g^T / D. Each body's part goes to push_relief(). Returns the
// particle's displacement.
template <class Kernel, class Push>
PBF_HD Vec3 body_relief_with(const Kernel& k, const BoundarySamples& b, Vec3 p, float inv_rho0, float share,
                             float inverse_denominator, float most, const BodyYield* before, const BodyYield* moved,
                             Push& push) {
  Vec3 relief{0.0f, 0.0f, 0.0f};
  for_each_body_gradient(k, b, p, [&](uint32_t body, Vec3 sum) {
    const Vec3 g = sum * inv_rho0;
    const BodyYield& b0 = before[body];
    const BodyYield& b1 = moved[body];
    const float was = fminf(dot(g, b0.shift + cross(b0.turn, p - b0.centre)) * inverse_denominator, most);
    const float unbounded = dot(g, b1.shift + cross(b1.turn, p - b1.centre)) * inverse_denominator;
    // weight (now - was)^2 share^2 g g^T = share g g^T / D while the constraint still pushes.
    const YieldRelief r =
        yield_relief_between(g * share, was, fminf(unbounded, most), unbounded < most, inverse_denominator / share);
    push_relief(push, body, r, p);
    relief += r.d;
  });
  return relief;
}

// The bits of a particle's `near` mark: some sample lies within reach; one
// of them is a body's (its b.body is not kStaticBoundary).
constexpr uint8_t kNearSample = 1u;
constexpr uint8_t kNearBody = 2u;

// The mark of `near` for a particle at p: 0 where no sample lies within
// `radius` of p, kNearSample where some does, with kNearBody where one of
// them is a body's. Without b.body the first sample found ends the search.
PBF_HD uint8_t boundary_near_mark(const BoundarySamples& b, Vec3 p, float radius) {
  if (b.count == 0) return 0u;
  int lo[3], hi[3];
  b.grid.cell_block(p, radius, lo, hi);
  const float r2max = radius * radius;
  uint8_t mark = 0u;
  for (int z = lo[2]; z <= hi[2]; ++z)
    for (int y = lo[1]; y <= hi[1]; ++y) {
      const uint32_t first = b.cell_start[b.grid.linear(lo[0], y, z)];
      const uint32_t last = b.cell_start[b.grid.linear(hi[0], y, z) + 1];
      for (uint32_t s = first; s < last; ++s)
        if (length_squared(p - b.x[s]) < r2max) {
          if (b.body == nullptr) return kNearSample;
          if (b.body[s] != kStaticBoundary) return kNearSample | kNearBody;
          mark = kNearSample;
        }
    }
  return mark;
}

// Whether fluid particle i must scan the samples (see BoundarySamples::near).
PBF_HD bool boundary_scan(const BoundarySamples& b, uint32_t i) {
  return b.count > 0 && (b.near == nullptr || b.near[i] != 0);
}

// Whether a body's sample may lie near fluid particle i, so that the relief
// after a body's yield must scan the samples for it.
PBF_HD bool boundary_body_scan(const BoundarySamples& b, uint32_t i) {
  return b.count > 0 && b.body != nullptr && (b.near == nullptr || (b.near[i] & kNearBody) != 0);
}

// The density the samples add at p [kg/m^3] (Akinci eq. 6).
PBF_HD float boundary_density(const KernelConstants& k, const BoundarySamples& b, Vec3 p) {
  if (b.count == 0) return 0.0f;
  float rho = 0.0f;
  for_each_sample_row(b, p, k.h, [&](uint32_t first, uint32_t last) {
    for (uint32_t s = first; s < last; ++s) rho += b.psi[s] * poly6(k, length_squared(p - b.x[s]));
  });
  return rho;
}

}  // namespace pbf
