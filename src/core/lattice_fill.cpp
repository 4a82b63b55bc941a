#include "core/lattice_fill.h"

#include <algorithm>
#include <cmath>

namespace pbf {

namespace {

// The lattice indices [first, last) along one axis: points p_i = lo + (i + 0.5) s with lo <= p_i <= hi
// and keep_lo + margin <= p_i <= keep_hi - margin. The margin's bounds are met within 1e-3 s, for the
// float round-off of the bounds themselves (without it a layer flush with a wall could be lost).
void axis_range(float lo, float hi, float spacing, float keep_lo, float keep_hi, double margin, long& first,
                long& last) {
  const double s = spacing, tolerance = margin > 0.0 ? 1e-3 : 0.0;
  first = static_cast<long>(std::ceil((static_cast<double>(keep_lo) + margin - lo) / s - 0.5 - tolerance));
  first = std::max(first, 0L);
  const double top = std::min(static_cast<double>(hi) - lo + 1e-6 * s,
                              static_cast<double>(keep_hi) - margin - lo + std::max(1e-6, tolerance) * s);
  last = static_cast<long>(std::floor(top / s - 0.5)) + 1;
  if (last < first) last = first;
}

}  // namespace

size_t lattice_fill_count(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max, float margin) {
  long f[3], l[3];
  axis_range(lo.x, hi.x, spacing, keep_min.x, keep_max.x, margin, f[0], l[0]);
  axis_range(lo.y, hi.y, spacing, keep_min.y, keep_max.y, margin, f[1], l[1]);
  axis_range(lo.z, hi.z, spacing, keep_min.z, keep_max.z, margin, f[2], l[2]);
  return static_cast<size_t>(l[0] - f[0]) * static_cast<size_t>(l[1] - f[1]) * static_cast<size_t>(l[2] - f[2]);
}

std::vector<float> lattice_fill(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max, float margin) {
  long f[3], l[3];
  axis_range(lo.x, hi.x, spacing, keep_min.x, keep_max.x, margin, f[0], l[0]);
  axis_range(lo.y, hi.y, spacing, keep_min.y, keep_max.y, margin, f[1], l[1]);
  axis_range(lo.z, hi.z, spacing, keep_min.z, keep_max.z, margin, f[2], l[2]);
  std::vector<float> points;
  points.reserve(3 * lattice_fill_count(lo, hi, spacing, keep_min, keep_max, margin));
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
