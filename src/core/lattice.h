// lattice.h - sums over an ideal cubic lattice of particles at rest spacing.
// They calibrate the particle mass (so the lattice has exactly the rest
// density) and the scale of the constraint gradient of a particle at rest,
// and measure how PBF's density iterations and artificial pressure act on
// the lattice at a kernel radius (lattice.cpp).
#pragma once

#include "core/sph_kernels.h"

namespace pbf {

struct LatticeSums {
  double sum_w;        // sum_j W(x_j), self included [1/m^3]
  double sum_grad2;    // sum_j |grad W(x_j)|^2 [1/m^8]
};

inline LatticeSums lattice_sums(float spacing, const KernelConstants& k) {
  LatticeSums s{0.0, 0.0};
  const int n = static_cast<int>(std::ceil(k.h / spacing)) + 1;
  for (int z = -n; z <= n; ++z)
    for (int y = -n; y <= n; ++y)
      for (int x = -n; x <= n; ++x) {
        const Vec3 r{x * spacing, y * spacing, z * spacing};
        s.sum_w += poly6(k, length_squared(r));
        s.sum_grad2 += length_squared(spiky_gradient(k, r));
      }
  return s;
}

// sum_j W(x_j) of the cubic spline over the lattice, self included [1/m^3].
inline double cubic_lattice_sum(float spacing, const CubicKernel& k) {
  double sum = 0.0;
  const int n = static_cast<int>(std::ceil(k.h / spacing)) + 1;
  for (int z = -n; z <= n; ++z)
    for (int y = -n; y <= n; ++y)
      for (int x = -n; x <= n; ++x) {
        const Vec3 r{x * spacing, y * spacing, z * spacing};
        sum += cubic(k, length_squared(r));
      }
  return sum;
}

// The lattice points closer than `radius` to one of them, itself included:
// at rest, the particles whose density constraints hold a particle (its own
// and its neighbours').
inline int lattice_points_within(float spacing, float radius) {
  const int n = static_cast<int>(std::ceil(radius / spacing)) + 1;
  const double r2 = double(radius) * radius;
  int count = 0;
  for (int z = -n; z <= n; ++z)
    for (int y = -n; y <= n; ++y)
      for (int x = -n; x <= n; ++x)
        if ((double(x) * x + double(y) * y + double(z) * z) * spacing * spacing < r2) ++count;
  return count;
}

// The most that one Jacobi sweep of PBF's density constraints (Macklin &
// Mueller 2013, eq. 8-12) can amplify a pattern on the lattice at rest, with
// kernel radius `ratio` spacings. Linearised there, a displacement pattern
// u e^(i k.x) changes each constraint by i (sum_j gP_j sin(k.x_j)) . u, and
// the sweep answers with the displacements of lambda = -C / sum_j |gS_j|^2
// along sum_j gS_j sin(k.x_j), so the pattern's constraint is multiplied by
// 1 - mu(k), mu(k) = (sum_j gP_j sin(k.x_j)) . (sum_j gS_j sin(k.x_j)) /
// sum_j |gS_j|^2 (gP: Poly6's gradient, which the density has; gS: Spiky's,
// which the constraint gradients take; j over the lattice points within the
// kernel). A pattern with mu(k) > 2 grows at every sweep. Returns the largest
// mu over the wave vectors of [0, pi / s]^3 sampled at pi / 16 s (each of
// their signs and orders gives the same mu): 2.81 at the default 2 spacings,
// 6.0 at 3 and 12.6 at 4 (docs/PHYSICS.md, "Kernel radius").
double density_sweep_gain(double ratio);

// The factor omega that PBF's lambda is scaled by (Jacobi under-relaxation)
// at kernel radius `ratio` spacings: 1 where density_sweep_gain() is at
// most the default kernel's (2 spacings), else the default's gain over this
// one, so that no kernel amplifies a pattern more than the default does.
// Bilateral constraints (`unilateral` false) act at every particle, where
// unilateral ones act only at the compressed (about half of those a growing
// pattern moves): half of it. Remembers the last ratio per thread, so that
// a step pays for the scan once.
double density_sweep_relaxation(double ratio, bool unilateral);

// The displacement, in spacings, that one density iteration's artificial
// pressure (eq. 13: s_corr = -k (W / W(dq))^n beside lambda, in units of
// lambda as make_pbf_constants() scales it, k = 1) gives a particle on the
// flat free surface of the lattice at rest, with kernel radius `ratio`
// spacings, dq = dq_fraction x the kernel radius: the push that acts on a
// free surface, which no constraint opposes (positive, along the outward
// normal).
double surface_scorr_push(double ratio, double dq_fraction, double n);

}  // namespace pbf
