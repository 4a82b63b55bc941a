#include "core/lattice.h"

#include <algorithm>
#include <cmath>

namespace pbf {

namespace {

constexpr double kPiDouble = 3.14159265358979323846;

// Poly6's and Spiky's gradient magnitudes at distance r for kernel radius h (sph_kernels.h), in double.
double poly6_gradient_magnitude(double r, double h) {
  const double d = h * h - r * r;
  return 6.0 * 315.0 / (64.0 * kPiDouble * std::pow(h, 9)) * r * d * d;
}

double spiky_gradient_magnitude(double r, double h) {
  const double d = h - r;
  return 45.0 / (kPiDouble * std::pow(h, 6)) * d * d;
}

struct LatticeNeighbor {
  double x, y, z;   // offset in spacings
  double gp, gs;    // Poly6's and Spiky's gradient magnitudes over the distance (the gradient is g r)
};

// Calls f(LatticeNeighbor) for each lattice point within `ratio` spacings of one, itself left out
// (computed as it goes: these run in a step, which allocates nothing).
template <class F>
void for_each_neighbor_within(double ratio, F f) {
  const int n = static_cast<int>(std::ceil(ratio)) + 1;
  for (int z = -n; z <= n; ++z)
    for (int y = -n; y <= n; ++y)
      for (int x = -n; x <= n; ++x) {
        const double r = std::sqrt(double(x) * x + double(y) * y + double(z) * z);
        if (r <= 0.0 || r >= ratio) continue;
        f(LatticeNeighbor{double(x), double(y), double(z), poly6_gradient_magnitude(r, ratio) / r,
                          spiky_gradient_magnitude(r, ratio) / r});
      }
}

}  // namespace

double density_sweep_gain(double ratio) {
  if (!(ratio > 0.0)) return 0.0;
  double norm = 0.0;
  for_each_neighbor_within(ratio, [&](const LatticeNeighbor& j) {
    norm += j.gs * j.gs * (j.x * j.x + j.y * j.y + j.z * j.z);
  });
  if (!(norm > 0.0)) return 0.0;
  constexpr int kSteps = 16;
  double most = 0.0;
  for (int a = 0; a <= kSteps; ++a)
    for (int b = 0; b <= a; ++b)
      for (int c = 0; c <= b; ++c) {
        const double kx = kPiDouble * a / kSteps, ky = kPiDouble * b / kSteps, kz = kPiDouble * c / kSteps;
        double p[3] = {0.0, 0.0, 0.0}, s[3] = {0.0, 0.0, 0.0};
        for_each_neighbor_within(ratio, [&](const LatticeNeighbor& j) {
          const double sn = std::sin(kx * j.x + ky * j.y + kz * j.z);
          const double r[3] = {j.x, j.y, j.z};
          for (int t = 0; t < 3; ++t) {
            p[t] += j.gp * sn * r[t];
            s[t] += j.gs * sn * r[t];
          }
        });
        most = std::max(most, (p[0] * s[0] + p[1] * s[1] + p[2] * s[2]) / norm);
      }
  return most;
}

double density_sweep_relaxation(double ratio, bool unilateral) {
  const double bilateral_share = unilateral ? 1.0 : 0.5;
  if (ratio == 2.0) return bilateral_share;  // the default kernel itself: no scan
  static const double kDefaultGain = density_sweep_gain(2.0);
  thread_local double last_ratio = 0.0, last_gain = 0.0;
  if (ratio != last_ratio) {
    last_gain = density_sweep_gain(ratio);
    last_ratio = ratio;
  }
  const double omega = last_gain > kDefaultGain ? kDefaultGain / last_gain : 1.0;
  return bilateral_share * omega;
}

double surface_scorr_push(double ratio, double dq_fraction, double n) {
  if (!(ratio > 0.0)) return 0.0;
  const double h2 = ratio * ratio;
  const auto poly6_shape = [&](double r2) { return r2 < h2 ? std::pow(h2 - r2, 3) : 0.0; };
  // lambda's unit: the rest norm sum_j |(m / rho0) grad W_j|^2, with m / rho0 = 1 / sum_j W_j (spacing 1).
  double sum_w = std::pow(h2, 3), norm = 0.0;  // the self term of sum_w
  for_each_neighbor_within(ratio, [&](const LatticeNeighbor& j) {
    const double r2 = j.x * j.x + j.y * j.y + j.z * j.z;
    sum_w += poly6_shape(r2);
    norm += j.gs * j.gs * r2;
  });
  const double volume = 1.0 / (315.0 / (64.0 * kPiDouble * std::pow(ratio, 9)) * sum_w);
  const double wdq = poly6_shape(dq_fraction * dq_fraction * h2);
  if (!(wdq > 0.0)) return 0.0;
  // The neighbours of the surface particle lie in its layer and below it (z <= 0); each moves it by
  // s_corr x (m / rho0) grad W(p_i - p_j), along -z for j below: outward is +z.
  double push = 0.0;
  for_each_neighbor_within(ratio, [&](const LatticeNeighbor& j) {
    if (j.z > 0.0) return;
    const double scorr = std::pow(poly6_shape(j.x * j.x + j.y * j.y + j.z * j.z) / wdq, n);
    push += scorr * volume * j.gs * (-j.z);
  });
  return push / (volume * volume * norm);
}

}  // namespace pbf
