// lattice.h - sums over an ideal cubic lattice of particles at rest spacing.
// They calibrate the particle mass (so the lattice has exactly the rest
// density) and the scale of the constraint gradient of a particle at rest.
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

}  // namespace pbf
