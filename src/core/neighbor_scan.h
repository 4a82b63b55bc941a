// neighbor_scan.h - the neighbour search of one particle in a cell-sorted
// grid, written once for every backend: given where each cell's particles
// start in the sorted order, list the particles within `radius` of x_i.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/grid_spec.h"
#include "core/hd.h"

namespace pbf {

// Writes to list[0], list[list_step], .. list[(stride-1) * list_step] (the
// slots of i in NeighborLists' layout) the sorted indices j != i with
// |x_i - x_j| < radius, in sorted order, and returns how many there are
// (at most stride); *overflow tells whether more were found than fit.
// `start` has cell_count() + 1 entries: cell c holds the places
// start[c] .. start[c+1]-1. Any radius works; one cell size is the fastest.
// The scan stops at the first neighbour that does not fit: the overflow is
// then known, and particles crowded at one point cost stride pair tests each
// instead of one per particle in their cells. The list then holds the first
// `stride` in the scan's order; the backends keep the nearest instead, as
// scan_nearest_neighbors() gives them (CUDA scans such a particle again with
// it; the CPU's scans choose them from the neighbours they collected,
// finish_list() in backend/cpu/cpu_neighbor_scan.h).
PBF_HD uint32_t scan_neighbors(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t i,
                               float radius, uint32_t stride, uint32_t* list, size_t list_step,
                               bool* overflow) {
  const float r2max = radius * radius;
  const Vec3 xi = x[i];
  int lo[3], hi[3];
  spec.cell_block(xi, radius, lo, hi);
  uint32_t found = 0;
  for (int z = lo[2]; z <= hi[2]; ++z) {
    for (int y = lo[1]; y <= hi[1]; ++y) {
      // The cells of a row are contiguous in the sorted order.
      const uint32_t b = start[spec.linear(lo[0], y, z)];
      const uint32_t e = start[spec.linear(hi[0], y, z) + 1];
      for (uint32_t j = b; j < e; ++j) {
        if (j == i || length_squared(xi - x[j]) >= r2max) continue;
        if (found == stride) {
          *overflow = true;
          return found;
        }
        list[found++ * list_step] = j;
      }
    }
  }
  *overflow = false;
  return found;
}

// How far scan_nearest_neighbors() looks past a full list: it weighs the
// first (1 + kNearestScanExtra) x stride neighbours it finds.
constexpr uint32_t kNearestScanExtra = 3;

// Neighbours in the order of distance: nearer first, at equal distances the
// lower index first (a NaN distance counts as the farthest).
PBF_HD bool nearer_neighbor(float d2a, uint32_t a, float d2b, uint32_t b) {
  const bool nan_a = !(d2a == d2a), nan_b = !(d2b == d2b);
  if (nan_a || nan_b) return !nan_a || (nan_b && a < b);
  return d2a < d2b || (d2a == d2b && a < b);
}

// The farthest (nearer_neighbor()) of the `count` neighbours in list[0],
// list[list_step], ...: its slot, index and squared distance from xi.
struct FarthestNeighbor {
  uint32_t slot, j;
  float d2;
};
PBF_HD FarthestNeighbor farthest_neighbor(Vec3 xi, const Vec3* x, const uint32_t* list, size_t list_step,
                                          uint32_t count) {
  FarthestNeighbor far{0, list[0], length_squared(xi - x[list[0]])};
  for (uint32_t k = 1; k < count; ++k) {
    const uint32_t j = list[k * list_step];
    const float d2 = length_squared(xi - x[j]);
    if (nearer_neighbor(far.d2, far.j, d2, j)) far = FarthestNeighbor{k, j, d2};
  }
  return far;
}

// The list of a particle whose neighbours do not all fit (scan_neighbors()
// set *overflow): the `stride` nearest of them (nearer_neighbor()), in
// ascending order as scan_neighbors() writes them, and *overflow as it sets
// it. Leaving out the farthest leaves out the neighbours that weigh least in
// every sum (the kernels fall to zero at the radius) and takes them from
// every side alike, where the first `stride` in the scan's order would leave
// out one side of the particle (the cells scanned last), whose neighbours
// would then push it one way only. The scan weighs the first
// (1 + kNearestScanExtra) x stride neighbours in the scan's order, so the
// list holds the nearest of any particle that has up to that many, and
// particles crowded at one point still cost a bounded number of pair tests
// each. Where fewer than stride + 1 are found, the list is scan_neighbors()'s.
PBF_HD uint32_t scan_nearest_neighbors(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t i,
                                       float radius, uint32_t stride, uint32_t* list, size_t list_step,
                                       bool* overflow) {
  if (stride == 0) return scan_neighbors(spec, start, x, i, radius, 0, list, list_step, overflow);
  const float r2max = radius * radius;
  const Vec3 xi = x[i];
  int lo[3], hi[3];
  spec.cell_block(xi, radius, lo, hi);
  const uint32_t most = stride * (1u + kNearestScanExtra);
  uint32_t found = 0;
  FarthestNeighbor far{};  // once the list is full
  bool done = false;
  for (int z = lo[2]; z <= hi[2] && !done; ++z) {
    for (int y = lo[1]; y <= hi[1] && !done; ++y) {
      const uint32_t b = start[spec.linear(lo[0], y, z)];
      const uint32_t e = start[spec.linear(hi[0], y, z) + 1];
      for (uint32_t j = b; j < e && !done; ++j) {
        if (j == i) continue;
        const float d2 = length_squared(xi - x[j]);
        if (d2 >= r2max) continue;
        ++found;
        if (found <= stride) {
          list[(found - 1) * list_step] = j;
          if (found == stride) far = farthest_neighbor(xi, x, list, list_step, stride);
        } else if (nearer_neighbor(d2, j, far.d2, far.j)) {
          list[far.slot * list_step] = j;
          far = farthest_neighbor(xi, x, list, list_step, stride);
        }
        done = found == most;
      }
    }
  }
  *overflow = found > stride;
  const uint32_t kept = found < stride ? found : stride;
  // Back to ascending order (insertion: the replaced slots are few).
  for (uint32_t k = 1; k < kept; ++k) {
    const uint32_t v = list[k * list_step];
    uint32_t m = k;
    for (; m > 0 && list[(m - 1) * list_step] > v; --m) list[m * list_step] = list[(m - 1) * list_step];
    list[m * list_step] = v;
  }
  return kept;
}

}  // namespace pbf
