#include "core/lattice_fill.h"

#include <algorithm>
#include <cmath>

namespace pbf {

namespace {

// The lattice indices [first, last) along one axis.
void axis_range(float lo, float hi, float spacing, float keep_lo, float keep_hi, long& first, long& last) {
  // Points p_i = lo + (i + 0.5) s with lo <= p_i <= hi and keep_lo <= p_i <= keep_hi.
  const double a = std::max(static_cast<double>(lo), static_cast<double>(keep_lo));
  const double b = std::min(static_cast<double>(hi), static_cast<double>(keep_hi));
  first = static_cast<long>(std::ceil((a - lo) / spacing - 0.5));
  last = static_cast<long>(std::floor((b - lo) / spacing - 0.5 + 1e-6)) + 1;
  first = std::max(first, 0L);
  if (last < first) last = first;
}

}  // namespace

size_t lattice_fill_count(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max) {
  long f[3], l[3];
  axis_range(lo.x, hi.x, spacing, keep_min.x, keep_max.x, f[0], l[0]);
  axis_range(lo.y, hi.y, spacing, keep_min.y, keep_max.y, f[1], l[1]);
  axis_range(lo.z, hi.z, spacing, keep_min.z, keep_max.z, f[2], l[2]);
  return static_cast<size_t>(l[0] - f[0]) * static_cast<size_t>(l[1] - f[1]) * static_cast<size_t>(l[2] - f[2]);
}

std::vector<float> lattice_fill(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max) {
  long f[3], l[3];
  axis_range(lo.x, hi.x, spacing, keep_min.x, keep_max.x, f[0], l[0]);
  axis_range(lo.y, hi.y, spacing, keep_min.y, keep_max.y, f[1], l[1]);
  axis_range(lo.z, hi.z, spacing, keep_min.z, keep_max.z, f[2], l[2]);
  std::vector<float> points;
  points.reserve(3 * lattice_fill_count(lo, hi, spacing, keep_min, keep_max));
  for (long z = f[2]; z < l[2]; ++z)
    for (long y = f[1]; y < l[1]; ++y)
      for (long x = f[0]; x < l[0]; ++x) {
        points.push_back(static_cast<float>(lo.x + (x + 0.5) * spacing));
        points.push_back(static_cast<float>(lo.y + (y + 0.5) * spacing));
        points.push_back(static_cast<float>(lo.z + (z + 0.5) * spacing));
      }
  return points;
}

}  // namespace pbf
