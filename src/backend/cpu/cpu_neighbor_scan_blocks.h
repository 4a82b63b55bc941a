// cpu_neighbor_scan_blocks.h - the run of the CPU's neighbour scans in lanes
// (cpu_neighbor_scan_avx2.cpp, cpu_neighbor_scan_avx512.cpp): the particles
// of a run in groups that share a block of cells, each group scanned at
// once. Included after backend/cpu/lanes.h, in the target's namespace, so
// that it is compiled for the target's instruction set (for the baseline,
// SSE2, each of cell_block()'s six floorf() is a dozen instructions and a
// branch; with AVX, one rounding instruction).
#include <cstdint>
#include <cstring>

#include "backend/cpu/cpu_neighbor_scan.h"
#include "core/grid_spec.h"

namespace pbf {
namespace PBF_LANE_TARGET {

// The most particles one pass over a block's candidates serves.
constexpr uint32_t kScanShared = 16;

// The rows the scans collect lists in, on the stack, for kScanShared
// particles at a time: `stride` slots each, and a group of sixteen more, so
// that a group of packed neighbours is stored whole wherever the list ends.
constexpr uint32_t kScanRowSlots = kScanShared * (kMaxListSlots + 16);
inline uint32_t scan_row_step(const ListRows& rows) { return rows.stride + 16; }

// Within the target's code, no standard algorithm: a header first included
// here would be compiled for the target, and its inline functions might be
// the copies that the baseline's code links to.

// to[0 .. k - 1] = from[0 .. k - 1], sixteen, then eight at a time.
inline void copy_slots(const uint32_t* from, uint32_t k, uint32_t* to) {
  uint32_t s = 0;
  for (; s + 16 <= k; s += 16)
    for (uint32_t l = 0; l < 16; ++l) to[s + l] = from[s + l];
  if (s + 8 <= k) {
    for (uint32_t l = 0; l < 8; ++l) to[s + l] = from[s + l];
    s += 8;
  }
  for (; s < k; ++s) to[s] = from[s];
}

// Pads particle i's list of `count` neighbours, collected in `row` (of
// scan_row_step() slots), for the lane loops (pad_lane_group()), and copies
// it to i's head and tail rows, a group of eight at a time. The head row is
// copied whole, whatever the list fills of it: the same number of groups
// for every particle, which the processor predicts (the slots past the
// padded end are never read).
inline void put_list(uint32_t* row, uint32_t count, const ListRows& rows, uint32_t i) {
  for (uint32_t l = 0; l < 8; ++l) row[count + l] = i;
  copy_slots(row, rows.head, rows.head_of(i));
  const uint32_t whole = (count + 7) / 8 * 8, filled = whole < rows.stride ? whole : rows.stride;
  if (filled > rows.head) copy_slots(row + rows.head, filled - rows.head, rows.tail_of(i));
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

}  // namespace PBF_LANE_TARGET
}  // namespace pbf
