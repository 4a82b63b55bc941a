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
// The scan stops at the first neighbour that does not fit: the list is then
// final and the overflow known, and particles crowded at one point cost
// stride pair tests each instead of one per particle in their cells.
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

}  // namespace pbf
