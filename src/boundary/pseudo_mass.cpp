// pseudo_mass.cpp - Akinci eq. 5 over a sparse grid of the samples' own
// cells: the samples sorted by (body, cell z, y, x, index), then, for each
// occupied cell, the three rows of three cells around it found by binary
// search in the list of occupied cells, and its samples' sums over them.
#include "boundary/pseudo_mass.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "boundary/boundary_equations.h"

namespace pbf {

namespace {

// A sample's cell: its body first, so that a body's samples are contiguous
// and a sum never meets another body's.
struct SampleCell {
  uint32_t body;
  int64_t z, y, x;
  bool operator<(const SampleCell& o) const { return std::tie(body, z, y, x) < std::tie(o.body, o.z, o.y, o.x); }
  bool operator==(const SampleCell& o) const { return body == o.body && z == o.z && y == o.y && x == o.x; }
};

// floor(v / h) in double, held well inside int64 so that +-1 never overflows; a
// coordinate clamped there is more than 1e18 kernel radii out, where float
// positions are far more than a kernel radius apart anyway.
int64_t cell_coordinate(float v, double inv_h) {
  constexpr double kLimit = 1.0e18;
  const double c = std::floor(static_cast<double>(v) * inv_h);
  if (!(c > -kLimit)) return static_cast<int64_t>(-kLimit);  // NaN too
  if (c > kLimit) return static_cast<int64_t>(kLimit);
  return static_cast<int64_t>(c);
}

template <class Kernel>
std::vector<float> pseudo_masses(const Kernel& kernel, const Vec3* x, const uint32_t* body, size_t count,
                                 float rest_density) {
  const double inv_h = 1.0 / static_cast<double>(kernel.radius());
  std::vector<SampleCell> cell(count);
  std::vector<uint32_t> order(count);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, count, 4096), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t k = r.begin(); k < r.end(); ++k) {
      cell[k] = SampleCell{body != nullptr ? body[k] : kStaticBoundary, cell_coordinate(x[k].z, inv_h),
                           cell_coordinate(x[k].y, inv_h), cell_coordinate(x[k].x, inv_h)};
      order[k] = static_cast<uint32_t>(k);
    }
  });
  // A total order (ties broken by index), so any thread count sorts alike.
  tbb::parallel_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return cell[a] < cell[b] || (cell[a] == cell[b] && a < b);
  });
  // The occupied cells in sorted order and where each one's samples start.
  std::vector<SampleCell> occupied;
  std::vector<uint32_t> first;
  std::vector<Vec3> sorted(count);
  for (size_t s = 0; s < count; ++s) {
    const SampleCell& c = cell[order[s]];
    if (occupied.empty() || !(occupied.back() == c)) {
      occupied.push_back(c);
      first.push_back(static_cast<uint32_t>(s));
    }
    sorted[s] = x[order[s]];
  }
  first.push_back(static_cast<uint32_t>(count));

  // Per occupied cell: the places of the three cells of each of its nine rows, found once for all of
  // its samples; then each sample's sum over them, in that order.
  std::vector<float> psi(count);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, occupied.size(), 64), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t cell_index = r.begin(); cell_index < r.end(); ++cell_index) {
      const SampleCell& c = occupied[cell_index];
      uint32_t row_begin[9], row_end[9];
      int rows = 0;
      for (int64_t dz = -1; dz <= 1; ++dz)
        for (int64_t dy = -1; dy <= 1; ++dy) {
          const SampleCell row_first{c.body, c.z + dz, c.y + dy, c.x - 1};
          const SampleCell row_last{c.body, c.z + dz, c.y + dy, c.x + 1};
          const auto lo = std::lower_bound(occupied.begin(), occupied.end(), row_first);
          const auto hi = std::upper_bound(lo, occupied.end(), row_last);
          row_begin[rows] = first[static_cast<size_t>(lo - occupied.begin())];
          row_end[rows] = first[static_cast<size_t>(hi - occupied.begin())];
          ++rows;
        }
      for (uint32_t s = first[cell_index]; s < first[cell_index + 1]; ++s) {
        const Vec3 xb = sorted[s];
        float sum = 0.0f;
        for (int row = 0; row < rows; ++row)
          for (uint32_t k = row_begin[row]; k < row_end[row]; ++k) sum += kernel.w(length_squared(xb - sorted[k]));
        psi[order[s]] = rest_density / sum;
      }
    }
  });
  return psi;
}

}  // namespace

std::vector<float> boundary_pseudo_masses(const Vec3* x, const uint32_t* body, size_t count,
                                          DensityKernel kernel, float kernel_radius, float rest_density) {
  if (count == 0) return {};
  if (kernel == DensityKernel::CubicSpline)
    return pseudo_masses(CubicSpline{CubicKernel::make(kernel_radius)}, x, body, count, rest_density);
  return pseudo_masses(Poly6Spiky{KernelConstants::make(kernel_radius)}, x, body, count, rest_density);
}

}  // namespace pbf
