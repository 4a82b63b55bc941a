#include "core/lattice_fill.h"

#include <algorithm>
#include <cmath>

namespace pbf {

void lattice_axis_range(double anchor, double lo, double hi, double spacing, double keep_lo, double keep_hi,
                        double margin, int64_t& first, int64_t& last) {
  const double s = spacing, tolerance = margin > 0.0 ? 1e-3 : 0.0;
  first = std::max({int64_t(0), static_cast<int64_t>(std::ceil((lo - anchor) / s - 0.5)),
                    static_cast<int64_t>(std::ceil((keep_lo + margin - anchor) / s - 0.5 - tolerance))});
  const double top = std::min(hi - anchor + 1e-6 * s, keep_hi - margin - anchor + std::max(1e-6, tolerance) * s);
  last = std::max(first, static_cast<int64_t>(std::floor(top / s - 0.5)) + 1);
}

namespace {

// lattice_axis_range() of the lattice anchored at the box's own low corner, for each axis.
void box_ranges(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max, float margin, int64_t first[3],
                int64_t last[3]) {
  const float l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
  const float kl[3] = {keep_min.x, keep_min.y, keep_min.z}, kh[3] = {keep_max.x, keep_max.y, keep_max.z};
  for (int a = 0; a < 3; ++a) lattice_axis_range(l[a], l[a], h[a], spacing, kl[a], kh[a], margin, first[a], last[a]);
}

// f(point) for every lattice point of the box, in lattice order (x fastest).
template <class F>
void for_each_lattice_point(Vec3 lo, float spacing, const int64_t f[3], const int64_t l[3], F&& visit) {
  for (int64_t z = f[2]; z < l[2]; ++z)
    for (int64_t y = f[1]; y < l[1]; ++y)
      for (int64_t x = f[0]; x < l[0]; ++x)
        visit(Vec3{static_cast<float>(lo.x + (x + 0.5) * spacing), static_cast<float>(lo.y + (y + 0.5) * spacing),
                   static_cast<float>(lo.z + (z + 0.5) * spacing)});
}

}  // namespace

size_t lattice_fill_count(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max, float margin,
                          const LatticeKeep& keep) {
  int64_t f[3], l[3];
  box_ranges(lo, hi, spacing, keep_min, keep_max, margin, f, l);
  if (!keep)
    return static_cast<size_t>(l[0] - f[0]) * static_cast<size_t>(l[1] - f[1]) * static_cast<size_t>(l[2] - f[2]);
  size_t n = 0;
  for_each_lattice_point(lo, spacing, f, l, [&](Vec3 p) { n += keep(p) ? 1 : 0; });
  return n;
}

std::vector<float> lattice_fill(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max, float margin,
                                const LatticeKeep& keep) {
  int64_t f[3], l[3];
  box_ranges(lo, hi, spacing, keep_min, keep_max, margin, f, l);
  std::vector<float> points;
  points.reserve(3 * lattice_fill_count(lo, hi, spacing, keep_min, keep_max, margin));  // at most the lattice
  for_each_lattice_point(lo, spacing, f, l, [&](Vec3 p) {
    if (keep && !keep(p)) return;
    points.push_back(p.x);
    points.push_back(p.y);
    points.push_back(p.z);
  });
  return points;
}

}  // namespace pbf
