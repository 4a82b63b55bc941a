// cpu_neighbor_scan_blocks.h - the run of the CPU's neighbour scans in lanes
// (cpu_neighbor_scan_avx2.cpp, cpu_neighbor_scan_avx512.cpp): the particles
// of a run in groups that share a block of cells, each group scanned at
// once. Included after backend/cpu/lanes.h, in the target's namespace, so
// that it is compiled for the target's instruction set (for the baseline,
// SSE2, each of cell_block()'s six floorf() is a dozen instructions and a
// branch; with AVX, one rounding instruction).
#include <cstdint>

#include "backend/cpu/cpu_neighbor_scan.h"
#include "core/grid_spec.h"
#include "core/neighbor_scan.h"

namespace pbf {
namespace PBF_LANE_TARGET {

// The most particles one pass over a block's candidates serves.
constexpr uint32_t kScanShared = 16;

// The rows the scans collect lists in, on the stack, for kScanShared
// particles at a time: as many slots as a scan collects (scan_run_in_rows()),
// and a group of sixteen more, so that a group of packed neighbours is
// stored whole wherever the list ends (and put_list() has its room for the
// padding).
constexpr uint32_t kScanRowSlots = kScanShared * (kMaxListSlots + 16);

// Counts in a group of k packed neighbours that a scan stored whole at slot
// `found` of a particle's row, or, where they pass the stride, marks the
// list full, as the scalar scan stops at the first neighbour that does not
// fit. Returns false where the list overflowed.
inline bool take_group(uint32_t k, uint32_t stride, uint32_t& found) {
  if (found + k <= stride) {
    found += k;
    return true;
  }
  found = stride;
  return false;
}

// The particles begin .. end - 1 in groups that share a block of cells (most
// of a cell's particles), up to kScanShared at a time: block(first, m, lo, hi)
// scans the lists of the m particles from `first`, whose block is lo .. hi
// (GridSpec::cell_block()), and returns how many overflowed. Returns the
// total.
template <class Block>
inline uint32_t scan_in_shared_blocks(const GridSpec& spec, const Vec3* x, uint32_t begin, uint32_t end, float radius,
                                      Block&& block) {
  uint32_t overflows = 0;
  int lo[3], hi[3];
  if (begin < end) spec.cell_block(x[begin], radius, lo, hi);
  for (uint32_t first = begin; first < end;) {
    // The particles from `first` on whose block of cells is first's, up to
    // kScanShared of them; the block of the next one.
    uint32_t m = 1;
    int next_lo[3] = {lo[0], lo[1], lo[2]}, next_hi[3] = {hi[0], hi[1], hi[2]};
    for (; first + m < end; ++m) {
      spec.cell_block(x[first + m], radius, next_lo, next_hi);
      const bool same = next_lo[0] == lo[0] && next_lo[1] == lo[1] && next_lo[2] == lo[2] && next_hi[0] == hi[0] &&
                        next_hi[1] == hi[1] && next_hi[2] == hi[2];
      if (!same || m == kScanShared) break;
    }
    overflows += block(first, m, static_cast<const int*>(lo), static_cast<const int*>(hi));
    first += m;
    for (int a = 0; a < 3; ++a) {
      lo[a] = next_lo[a];
      hi[a] = next_hi[a];
    }
  }
  return overflows;
}

// The lists of the particles begin .. end - 1 (scan_in_shared_blocks()),
// collected in rows on the stack, finished by finish_list() and stored with
// put_list(): block(first, m, lo, hi, collected, local, step) scans at most
// `collected` (collected_slots()) neighbours of each of the m particles from
// `first` into the rows local, local + step, ..., their counts into
// count[first ..], and returns the particles that had more (bit p: particle
// first + p). Returns how many had more neighbours than the stride.
template <class Block>
inline uint32_t scan_run_in_rows(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t begin,
                                 uint32_t end, float radius, const ListRows& rows, uint32_t* count, Block&& block) {
  alignas(64) uint32_t local[kScanRowSlots];
  const uint32_t collected = collected_slots(rows.stride), step = collected + 16;
  // Every slot the rows may copy out has a value (put_list() copies head rows whole).
  for (uint32_t p = 0; p < kScanShared; ++p)
    for (uint32_t k = 0; k < rows.head; ++k) local[p * step + k] = 0u;
  return scan_in_shared_blocks(spec, x, begin, end, radius,
                               [&](uint32_t first, uint32_t m, const int* lo, const int* hi) {
                                 const uint32_t full = block(first, m, lo, hi, collected, local, step);
                                 uint32_t overflows = 0;
                                 for (uint32_t p = 0; p < m; ++p) {
                                   uint32_t* row = local + p * step;
                                   const uint32_t i = first + p;
                                   bool overflowed = false;
                                   count[i] = finish_list(spec, start, x, i, radius, rows.stride, row, count[i],
                                                          ((full >> p) & 1u) != 0, &overflowed);
                                   put_list(row, count[i], rows, i);
                                   overflows += overflowed ? 1u : 0u;
                                 }
                                 return overflows;
                               });
}

}  // namespace PBF_LANE_TARGET
}  // namespace pbf
