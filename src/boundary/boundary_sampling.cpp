#include "boundary/boundary_sampling.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.h"
#include "core/sph_kernels.h"

namespace pbf {

namespace {

// The shapes of the density kernels (sph_kernels.h) in double; only ratios
// of their sums are used, so they are left unnormalised.
using KernelShape = double (*)(double h, double r2);

double poly6_shape(double h, double r2) {
  if (r2 >= h * h) return 0.0;
  const double d = (h * h - r2) / (h * h);
  return d * d * d;
}

double cubic_shape(double h, double r2) {
  if (r2 >= h * h) return 0.0;
  const double q = std::sqrt(r2) / h;
  if (q <= 0.5) return 6.0 * q * q * (q - 1.0) + 1.0;
  const double d = 1.0 - q;
  return 2.0 * d * d * d;
}

// Kernel sum over an infinite square layer of spacing s at distance d below
// a point, averaged over the four placements of the point over the layer
// (above a sample, above an edge midpoint either way, above a cell centre):
// the fluid does not line up with the samples.
double layer_sum(KernelShape w, double s, double h, double d) {
  const int n = static_cast<int>(std::ceil(h / s)) + 1;
  double sum = 0.0;
  for (const double ox : {0.0, 0.5})
    for (const double oz : {0.0, 0.5})
      for (int i = -n; i <= n; ++i)
        for (int k = -n; k <= n; ++k) {
          const double x = (i + ox) * s, z = (k + oz) * s;
          sum += w(h, x * x + d * d + z * z);
        }
  return 0.25 * sum;
}

}  // namespace

float wall_sample_setback(float spacing, float kernel_radius, Method method) {
  const KernelShape kernel = method == Method::Projective ? cubic_shape : poly6_shape;
  const double s = spacing, h = kernel_radius;
  const int n = static_cast<int>(std::ceil(h / s)) + 1;
  // The full rest lattice and its upper half (the particle's own layer included).
  double full = 0.0, half = 0.0;
  for (int z = -n; z <= n; ++z)
    for (int y = -n; y <= n; ++y)
      for (int x = -n; x <= n; ++x) {
        const double w = kernel(h, (double(x) * x + double(y) * y + double(z) * z) * s * s);
        full += w;
        if (y >= 0) half += w;
      }
  const double target = 1.0 - half / full;
  // The pseudo-mass of a sample inside an infinite layer: the layer's own sum at d = 0, on a sample.
  double own = 0.0;
  for (int i = -n; i <= n; ++i)
    for (int k = -n; k <= n; ++k) own += kernel(h, (double(i) * i + double(k) * k) * s * s);
  // layer_sum(d) / own falls from about 1 at d = 0 to 0 at d = h.
  double lo = 0.0, hi = h;
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (layer_sum(kernel, s, h, mid) / own > target) lo = mid;
    else hi = mid;
  }
  return static_cast<float>(std::max(0.0, 0.5 * (lo + hi) - 0.5 * s));
}

std::vector<Vec3> sample_domain_walls(const SolverConfig& config, size_t max_count) {
  const float back = wall_sample_setback(config.particle_spacing, config.kernel_radius, config.method);
  const double lo[3] = {double(config.domain_min.x) - back, double(config.domain_min.y) - back,
                        double(config.domain_min.z) - back};
  const double hi[3] = {double(config.domain_max.x) + back, double(config.domain_max.y) + back,
                        double(config.domain_max.z) + back};
  // Along each axis: intervals[a] steps of about one spacing from lo to hi, both ends included.
  long intervals[3];
  for (int a = 0; a < 3; ++a)
    intervals[a] = std::max(1L, std::lround((hi[a] - lo[a]) / config.particle_spacing));
  const double nx = double(intervals[0]), ny = double(intervals[1]), nz = double(intervals[2]);
  const double count = 2.0 * (ny + 1.0) * (nz + 1.0) + 2.0 * (nx - 1.0) * (nz + 1.0) + 2.0 * (nx - 1.0) * (ny - 1.0);
  if (count > double(max_count)) {
    std::ostringstream msg;
    msg << "solver: the domain walls need " << std::llround(count) << " boundary particles at the spacing "
        << config.particle_spacing << " m, more than the " << max_count << " a solver holds";
    throw Error(Status::CapacityExceeded, msg.str());
  }
  auto at = [&](int a, long i) {
    return i == intervals[a] ? hi[a] : lo[a] + (hi[a] - lo[a]) * double(i) / double(intervals[a]);
  };
  std::vector<Vec3> out;
  out.reserve(static_cast<size_t>(count));
  auto emit = [&](double x, double y, double z) {
    out.push_back(Vec3{static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)});
  };
  // x faces hold their whole rectangle, y faces all but the x edges, z faces only their interior.
  for (const long i : {0L, intervals[0]})
    for (long j = 0; j <= intervals[1]; ++j)
      for (long k = 0; k <= intervals[2]; ++k) emit(at(0, i), at(1, j), at(2, k));
  for (const long j : {0L, intervals[1]})
    for (long i = 1; i < intervals[0]; ++i)
      for (long k = 0; k <= intervals[2]; ++k) emit(at(0, i), at(1, j), at(2, k));
  for (const long k : {0L, intervals[2]})
    for (long i = 1; i < intervals[0]; ++i)
      for (long j = 1; j < intervals[1]; ++j) emit(at(0, i), at(1, j), at(2, k));
  return out;
}

}  // namespace pbf
