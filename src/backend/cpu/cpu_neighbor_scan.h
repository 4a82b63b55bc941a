// cpu_neighbor_scan.h - the CPU's neighbour scan of a run of particles into
// their particle-major lists, per lane target (backend/cpu/lane_targets.h):
// the baseline runs core/neighbor_scan.h's scan_neighbors(); the AVX2 copy
// tests eight candidates at a time, the AVX-512 copy sixteen, and both give
// the same lists, counts and overflows. Beside it, per target too, the
// grid sort's cell of each particle and the flags of the particles near
// boundary samples.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backend/cpu/lane_targets.h"
#include "core/grid_spec.h"
#include "core/neighbor_scan.h"

namespace pbf {

// The most slots a list may have here: the C API's largest max_neighbors
// (the solver's automatic one is at most 840).
constexpr uint32_t kMaxListSlots = 1024;

// The neighbours the CPU's lane loops take at a time (backend/cpu/lanes.h's
// kLanes, which holds to this).
constexpr uint32_t kLaneGroup = 8;

// Where the scans write the lists: particle i's first `head` slots at
// head_of(i), its slots past them at tail_of(i), `stride` in all
// (NeighborLists::particle_major_split()'s layout; head = stride: one row
// per particle). head is a multiple of eight or the stride, stride at most
// kMaxListSlots.
struct ListRows {
  uint32_t* head_rows;
  uint32_t* tail_rows;
  uint32_t head, stride;
  // The rows of `particles` lists in index[0 .. particles * stride - 1]:
  // every particle's head row, then every particle's tail row.
  static ListRows split(uint32_t* index, size_t particles, uint32_t head, uint32_t stride) {
    return ListRows{index, index + particles * head, head, stride};
  }
  uint32_t* head_of(uint32_t i) const { return head_rows + static_cast<size_t>(i) * head; }
  uint32_t* tail_of(uint32_t i) const { return tail_rows + static_cast<size_t>(i) * (stride - head); }
  // Slot k of particle i.
  uint32_t& slot(uint32_t i, uint32_t k) const { return k < head ? head_of(i)[k] : tail_of(i)[k - head]; }
};

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

// Stores particle i's list of `count` neighbours, collected in `row`, in
// its head and tail rows, padded for the lane loops: the slots from its end
// to the next multiple of kLaneGroup within the stride hold i itself. The
// loops then read a list's last group straight from the list, as they read
// every full group, instead of copying it, and the lanes past the end,
// which they leave out of their sums, hold a particle that exists. `row`
// holds at least stride + kLaneGroup slots, each with a value: the padding
// is written there as one group after the end, with no branch on where the
// list ends, and the head row is copied whole, whatever the list fills of
// it (the same number of groups for every particle, which the processor
// predicts; the slots past the padded end are never read).
inline void put_list(uint32_t* row, uint32_t count, const ListRows& rows, uint32_t i) {
  for (uint32_t l = 0; l < kLaneGroup; ++l) row[count + l] = i;
  copy_slots(row, rows.head, rows.head_of(i));
  const uint32_t whole = (count + kLaneGroup - 1) / kLaneGroup * kLaneGroup;
  const uint32_t filled = whole < rows.stride ? whole : rows.stride;
  if (filled > rows.head) copy_slots(row + rows.head, filled - rows.head, rows.tail_of(i));
}

// How many neighbours the CPU's scans collect for a list of `stride` slots:
// the (1 + kNearestScanExtra) x stride that scan_nearest_neighbors() weighs
// (core/neighbor_scan.h), where a row has room for them (stride 1 to 256),
// so that a list that overflows keeps its nearest without a second scan;
// else the stride.
inline uint32_t collected_slots(uint32_t stride) {
  const uint32_t most = stride * (1u + kNearestScanExtra);
  return stride > 0 && most <= kMaxListSlots ? most : stride;
}

// Particle i's list of `stride` slots, as scan_nearest_neighbors() gives it,
// from the `found` neighbours that a scan collected in row (ascending, at
// most collected_slots(stride); `full`: it found more than that): where it
// collected more than the stride, the nearest by selection, left at the
// front of row in ascending order; where it collected only the stride and
// found more, the particle scanned again by scan_nearest_neighbors().
// Returns the list's length; *overflowed tells whether i had more
// neighbours than the stride. For every copy of the scan (the lanes':
// cpu_neighbor_scan_blocks.h); compiled once, for the baseline.
uint32_t finish_list(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t i, float radius,
                     uint32_t stride, uint32_t* row, uint32_t found, bool full, bool* overflowed);

// The lists of the particles begin .. end - 1, where x holds the n sorted
// positions: particle i's list in `rows` and its length in count[i], each as
// scan_neighbors(spec, start, x, i, radius, stride, list, 1, overflow)
// gives them, or scan_nearest_neighbors() where it overflows (core/
// neighbor_scan.h), stored by put_list(). Returns how many overflowed (had
// more neighbours than `stride`).
typedef uint32_t (*NeighborScan)(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n,
                                 uint32_t begin, uint32_t end, float radius, const ListRows& rows, uint32_t* count);

// The scan of `target`; the baseline's runs the scalar scan_neighbors() particle by particle.
NeighborScan neighbor_scan_for(LaneTarget target);

// For the grid's sort: cell[i] = spec.cell_index(x[i]) for i in begin ..
// end - 1, or spec.bucket_index(x[i]) with set_aside. The copies differ in
// speed only: where AVX2 runs, each floorf is one rounding instruction
// (SSE2 has none: a dozen instructions and a branch).
typedef void (*CellIndices)(const GridSpec& spec, const Vec3* x, uint32_t begin, uint32_t end, bool set_aside,
                            uint32_t* cell);

// The copy for `target` (AVX-512 processors take AVX2's).
CellIndices cell_indices_for(LaneTarget target);

struct BoundarySamples;  // boundary/boundary_equations.h

// near[i] = boundary_near_mark(b, x[i], reach) (whether some boundary sample,
// and some body's, lies within reach of x[i]) for i in begin .. end - 1; as
// CellIndices, the copies differ in speed only.
typedef void (*BoundaryNear)(const BoundarySamples& b, const Vec3* x, uint32_t begin, uint32_t end, float reach,
                             uint8_t* near);

// The copy for `target` (AVX-512 processors take AVX2's).
BoundaryNear boundary_near_for(LaneTarget target);

// The AVX2 copy (cpu_neighbor_scan_avx2.cpp) and the AVX-512 copy
// (cpu_neighbor_scan_avx512.cpp); where the library has none, the baseline's.
uint32_t scan_neighbor_run_avx2(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n,
                                uint32_t begin, uint32_t end, float radius, const ListRows& rows, uint32_t* count);
uint32_t scan_neighbor_run_avx512(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n,
                                  uint32_t begin, uint32_t end, float radius, const ListRows& rows, uint32_t* count);
void cell_indices_avx2(const GridSpec& spec, const Vec3* x, uint32_t begin, uint32_t end, bool set_aside,
                       uint32_t* cell);
void boundary_near_avx2(const BoundarySamples& b, const Vec3* x, uint32_t begin, uint32_t end, float reach,
                        uint8_t* near);

}  // namespace pbf
