#include "backend/cpu/cpu_neighbor_grid.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_scan.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace pbf {

namespace {
constexpr size_t kGrain = 1024;
}  // namespace

CpuNeighborGrid::CpuNeighborGrid(const GridSpec& spec, LaneTarget scan)
    : spec_(spec),
      scan_(neighbor_scan_for(scan)),
      cell_indices_(cell_indices_for(scan)),
      cells_(static_cast<size_t>(spec.cell_count())),
      cursor_(new std::atomic<uint32_t>[cells_ + 1]),
      cell_start_(cells_ + 2, 0u) {}

void CpuNeighborGrid::sort_into(const Vec3* positions, size_t n, uint32_t* order, bool set_aside) {
  if (cell_of_.size() < n) cell_of_.resize(n);
  uint32_t* cell_of = cell_of_.data();
  std::atomic<uint32_t>* cursor = cursor_.get();
  // The cells, and with set_aside the bucket after them (GridSpec::bucket_index).
  const size_t buckets = cells_ + (set_aside ? 1 : 0);

  tbb::parallel_for(tbb::blocked_range<size_t>(0, buckets, 4 * kGrain), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t c = r.begin(); c < r.end(); ++c) cursor[c].store(0u, std::memory_order_relaxed);
  });
  // Particles come mostly in the cell order of the last sort, so that runs
  // of them share a cell: one atomic addition per run.
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kGrain), [&](const tbb::blocked_range<size_t>& r) {
    cell_indices_(spec_, positions, static_cast<uint32_t>(r.begin()), static_cast<uint32_t>(r.end()), set_aside,
                  cell_of);
    uint32_t run_cell = 0, run = 0;
    for (size_t i = r.begin(); i < r.end(); ++i) {
      const uint32_t c = cell_of[i];
      if (c != run_cell) {
        if (run > 0) cursor[run_cell].fetch_add(run, std::memory_order_relaxed);
        run_cell = c;
        run = 0;
      }
      ++run;
    }
    if (run > 0) cursor[run_cell].fetch_add(run, std::memory_order_relaxed);
  });
  // Exclusive prefix sum of the counts gives each bucket's first place.
  uint32_t* start = cell_start_.data();
  tbb::parallel_scan(
      tbb::blocked_range<size_t>(0, buckets, 4 * kGrain), 0u,
      [&](const tbb::blocked_range<size_t>& r, uint32_t sum, bool final_pass) {
        for (size_t c = r.begin(); c < r.end(); ++c) {
          const uint32_t count = cursor[c].load(std::memory_order_relaxed);
          if (final_pass) start[c] = sum;
          sum += count;
        }
        return sum;
      },
      [](uint32_t a, uint32_t b) { return a + b; });
  start[buckets] = static_cast<uint32_t>(n);
  start[cells_ + 1] = static_cast<uint32_t>(n);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, buckets, 4 * kGrain), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t c = r.begin(); c < r.end(); ++c) cursor[c].store(start[c], std::memory_order_relaxed);
  });
  // A run of particles in one cell takes its places with one atomic
  // addition, and fills them in ascending order.
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kGrain), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i < r.end();) {
      const uint32_t c = cell_of[i];
      size_t end = i + 1;
      while (end < r.end() && cell_of[end] == c) ++end;
      uint32_t place = cursor[c].fetch_add(static_cast<uint32_t>(end - i), std::memory_order_relaxed);
      for (; i < end; ++i) order[place++] = static_cast<uint32_t>(i);
    }
  });
  // The scatter's order within a cell depends on thread timing; sorting each
  // cell's few indices restores a deterministic (stable) order.
  tbb::parallel_for(tbb::blocked_range<size_t>(0, buckets, 4 * kGrain), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t c = r.begin(); c < r.end(); ++c) {
      const uint32_t b = start[c], e = start[c + 1];
      if (e - b > 1) std::sort(order + b, order + e);
    }
  });
}

uint32_t CpuNeighborGrid::find_neighbors(const Vec3* x, size_t n, float radius, uint32_t stride, uint32_t head,
                                         uint32_t* index, uint32_t* count) const {
  if (stride > kMaxListSlots || head > stride || (head != stride && head % kLaneGroup != 0))
    throw Error(Status::Internal, "CpuNeighborGrid::find_neighbors: lists of more than 1024 slots, or a head of "
                                  "neither the stride nor a multiple of eight within it");
  const uint32_t* start = cell_start_.data();
  const ListRows rows = ListRows::split(index, n, head, stride);
  std::atomic<uint32_t> overflows{0};
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 256), [&](const tbb::blocked_range<size_t>& range) {
    const uint32_t begin = static_cast<uint32_t>(range.begin()), end = static_cast<uint32_t>(range.end());
    overflows.fetch_add(scan_(spec_, start, x, static_cast<uint32_t>(n), begin, end, radius, rows, count),
                        std::memory_order_relaxed);
  });
  return overflows.load();
}

}  // namespace pbf
