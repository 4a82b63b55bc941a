// cpu_neighbor_grid.h - the uniform-grid neighbour search of the CPU backend:
// a counting sort of particles by cell, and fixed-capacity neighbour lists.
// Both are deterministic: the same positions give the same order and lists
// whatever the number of threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "backend/cpu/cpu_neighbor_scan.h"
#include "backend/cpu/lane_targets.h"
#include "core/grid_spec.h"

namespace pbf {

class CpuNeighborGrid {
 public:
  // find_neighbors() scans with the copy of `scan` (the same lists from
  // every target; they differ in speed).
  explicit CpuNeighborGrid(const GridSpec& spec, LaneTarget scan = best_lane_target());

  const GridSpec& spec() const { return spec_; }
  // Where each cell's places start after sort(): cell_count() + 1 entries
  // (and one more, the end of the set-aside bucket, always n).
  const uint32_t* cell_start() const { return cell_start_.data(); }

  // Makes room for n particles, so that sort() of up to n does not allocate.
  void reserve(size_t n) {
    if (cell_of_.size() < n) cell_of_.resize(n);
  }

  // Cell-sorted order of the n positions: order[k] is the index of the
  // particle that belongs at place k. Within a cell, indices ascend.
  // `order` must hold n entries. Call inside a task arena.
  void sort(const Vec3* positions, size_t n, uint32_t* order) { sort_into(positions, n, order, false); }
  // As sort(), but positions beyond reach of the grid's box
  // (GridSpec::beyond_reach) go to a bucket after the last cell, the
  // places cell_start()[cell_count()] .. n - 1, which no scan reads. For
  // boundary samples of an obstacle parked far outside the domain.
  void sort_setting_aside(const Vec3* positions, size_t n, uint32_t* order) {
    sort_into(positions, n, order, true);
  }

  // Neighbour lists of positions already in the order sort() gave: for each
  // i, the j != i with |x_i - x_j| < radius, at most `stride` of them, in
  // cell order, padded for the lane loops (put_list()), in the layout of
  // NeighborLists::particle_major_split(index, count, stride, head, n)
  // (index: n * stride slots; head a multiple of kLaneGroup, at most
  // stride; head = stride: plain particle-major rows). Any radius works;
  // one cell size is the fastest. Returns the number of particles that had
  // more than `stride`.
  uint32_t find_neighbors(const Vec3* sorted_positions, size_t n, float radius, uint32_t stride, uint32_t head,
                          uint32_t* index, uint32_t* count) const;

 private:
  void sort_into(const Vec3* positions, size_t n, uint32_t* order, bool set_aside);

  GridSpec spec_;
  NeighborScan scan_;
  CellIndices cell_indices_;
  size_t cells_;
  std::unique_ptr<std::atomic<uint32_t>[]> cursor_;  // cells_ + 1 entries (the set-aside bucket last)
  std::vector<uint32_t> cell_start_;                 // cells_ + 2 entries
  std::vector<uint32_t> cell_of_;                    // per particle
};

}  // namespace pbf
