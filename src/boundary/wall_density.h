// wall_density.h - the density a plane adds to the fluid near it. A plane is
// the face of a solid; without samples on it, fluid next to it misses the
// density of the solid's side, so the layer at a wall is under-dense, does not
// resist, and particles gather and run along the edges of the domain
// (docs/PHYSICS.md §9). Here the half space behind each plane counts as water
// at rest: the kernel integrated over that half space is a polynomial in the
// distance to the plane, so no samples are needed. Written once for every
// backend; the density stages of both methods add it per particle.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/config.h"
#include "core/hd.h"
#include "core/sph_kernels.h"

namespace pbf {

// The kernels over a half space, in q = d / h with d the distance from the
// plane to the particle (negative behind it): the fraction of a kernel's
// weight behind the plane, and the kernel's integral over the plane itself
// (the cross section, times h), which is the derivative of that fraction
// with respect to -q. Each is exact for the kernel of sph_kernels.h.

// Poly6: 315/256 times the integral of (1 - u^2)^3 (times 2 pi u) over the
// section, (1 - q^2)^4 / 8 per unit of 2 pi; the fraction behind the plane
// is 1/2 - 315/256 P(q) with P(u) = u - 4u^3/3 + 6u^5/5 - 4u^7/7 + u^9/9.
PBF_HD float poly6_half_space(float q) {
  if (q >= 1.0f) return 0.0f;
  if (q <= -1.0f) return 1.0f;
  const float u2 = q * q;
  const float p = q * (1.0f + u2 * (-4.0f / 3.0f + u2 * (6.0f / 5.0f + u2 * (-4.0f / 7.0f + u2 * (1.0f / 9.0f)))));
  return 0.5f - (315.0f / 256.0f) * p;
}

// Spiky: h times its cross section, 3/2 (1 - |q|)^4 (1 + 4|q|); PBF takes its
// constraint gradients from the Spiky kernel, so a wall's gradient is this.
PBF_HD float spiky_section(float q) {
  const float a = fabsf(q);
  if (a >= 1.0f) return 0.0f;
  const float b = 1.0f - a;
  return 1.5f * (b * b) * (b * b) * (1.0f + 4.0f * a);
}

// Cubic spline (sph_kernels.h): h times its cross section, 16 G(|q|) with
// G(a) = integral from a to 1 of u f(u) du and f the spline's shape.
PBF_HD float cubic_section(float q) {
  const float a = fabsf(q);
  if (a >= 1.0f) return 0.0f;
  const float a2 = a * a;
  if (a >= 0.5f) return 16.0f * (0.1f - a2 * (1.0f + a * (-2.0f + a * (1.5f - 0.4f * a))));
  return 16.0f * (0.0875f - a2 * (0.5f + a2 * (-1.5f + 1.2f * a)));
}

// The cubic spline's fraction behind the plane: 16 times the integral of G
// from q to 1.
PBF_HD float cubic_half_space(float q) {
  if (q >= 1.0f) return 0.0f;
  if (q <= -1.0f) return 1.0f;
  if (q < 0.0f) return 1.0f - cubic_half_space(-q);
  // Antiderivatives of G: K2 on [1/2, 1] (G = 0.1 - u^2 + 2u^3 - 1.5u^4 + 0.4u^5),
  // K1 on [0, 1/2] (G = 0.0875 - 0.5u^2 + 1.5u^4 - 1.2u^5).
  const auto k2 = [](float u) {
    return u * (0.1f + u * u * (-1.0f / 3.0f + u * (0.5f + u * (-0.3f + u * (1.0f / 15.0f)))));
  };
  const auto k1 = [](float u) {
    return u * (0.0875f + u * u * (-1.0f / 6.0f + u * u * (0.3f - 0.2f * u)));
  };
  if (q >= 0.5f) return 16.0f * (k2(1.0f) - k2(q));
  return 16.0f * (k2(1.0f) - k2(0.5f) + k1(0.5f) - k1(q));
}

// The planes whose far side is solid, and how much density that solid adds.
// A plane k alone adds rho0 f_k with f_k = calibration x the half-space
// fraction at the particle (wall_calibration()). Several planes (an edge, a
// corner) add rho0 (1 - prod_k (1 - f_k)): the solid behind any of them,
// counted once. Summing them instead would count the quarter space behind an
// edge twice; against the lattice at an edge or corner of the default kernel
// the product is within 0.6 % resp. 1.5 % of rho0, the sum 3 % resp. 9 % over.
// calibration zero (or no planes) adds nothing. Planes sampled with boundary
// particles are left out by the solver (their samples already add the
// density).
struct DensityWalls {
  const Plane* planes;
  uint32_t count;
  float rest_density;  // rho0 [kg/m^3]
  float calibration;   // wall_calibration() of the method's kernel
  float inv_h;         // 1 / kernel radius [1/m]
};

// q = (n . p + offset) / h of plane `plane` at p = (px, py, pz), in lanes of
// T (a float, or the CPU's lanes): the plane's solid adds density at p where
// q < 1, that is, where !(q >= 1) (NaN included), as wall_density_gradient()
// decides.
template <class T>
PBF_HD T wall_q(const DensityWalls& w, const Plane& plane, T px, T py, T pz) {
  return plane_distance(plane, px, py, pz) * T(w.inv_h);
}

// The same walls with none of their planes: wall_density_gradient() gives
// with them exactly what it gives with `w` at a point that no plane of w
// reaches (wall_q() >= 1 for every one), so a caller that has tested the
// planes for many points at once may pass these instead.
PBF_HD DensityWalls without_planes(const DensityWalls& w) {
  return DensityWalls{w.planes, 0u, w.rest_density, w.calibration, w.inv_h};
}

// The density the walls add at p [kg/m^3] and its gradient with respect to p
// [kg/m^4], with the method's kernels: `Cubic` false, Poly6 density with
// Spiky gradient (PBF); true, the cubic spline for both (Projective Fluids).
template <bool Cubic>
PBF_HD void wall_density_gradient(const DensityWalls& w, Vec3 p, float& rho, Vec3& grad) {
  rho = 0.0f;
  grad = Vec3{0.0f, 0.0f, 0.0f};
  if (w.calibration <= 0.0f) return;
  // open: prod_k (1 - f_k), the part of the kernel no wall covers.
  float open = 1.0f;
  for (uint32_t k = 0; k < w.count; ++k) {
    const float q = wall_q(w, w.planes[k], p.x, p.y, p.z);
    if (q >= 1.0f) continue;
    const float f = w.calibration * (Cubic ? cubic_half_space(q) : poly6_half_space(q));
    // d(1 - open)/dp gains -d(1 - f_k)/dp x the others' product; dq/dp = n / h
    // and d(fraction)/dq = -section. Scaling what came before by (1 - f_k)
    // keeps every term's product over the other planes.
    const Vec3 df = w.planes[k].normal * (-w.calibration * w.inv_h * (Cubic ? cubic_section(q) : spiky_section(q)));
    grad = grad * (1.0f - f) + df * open;
    open *= 1.0f - f;
  }
  rho = w.rest_density * (1.0f - open);
  grad = grad * w.rest_density;
}

// The calibration of a wall: the fraction of a particle's rest density that
// the lattice misses at a wall (the particle half a spacing from the plane,
// the lattice filling the other side), divided by the half-space fraction
// the kernel has there. Particles rest half a spacing from a wall, and with
// it the wall completes the density of the layer there to exactly rho0, as
// the particle mass does for a particle inside the lattice. `w` is the
// density kernel (Poly6 or the cubic spline) as a function of r^2.
template <class Kernel, class HalfSpace>
double wall_calibration(float spacing, float h, Kernel w, HalfSpace half_space) {
  const int n = static_cast<int>(std::ceil(h / spacing)) + 1;
  double all = 0.0, lattice_side = 0.0;
  for (int z = -n; z <= n; ++z)
    for (int y = -n; y <= n; ++y)
      for (int x = -n; x <= n; ++x) {
        const double r2 = (double(x) * x + double(y) * y + double(z) * z) * double(spacing) * spacing;
        const double wr = w(static_cast<float>(r2));
        all += wr;
        if (z >= 0) lattice_side += wr;  // the particle's own layer and those beyond it
      }
  const double missing = 1.0 - lattice_side / all;
  const double kernel = half_space(0.5f * spacing / h);
  return kernel > 0.0 ? missing / kernel : 0.0;
}

}  // namespace pbf
