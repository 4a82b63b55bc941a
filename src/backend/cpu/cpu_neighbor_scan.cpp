#include "backend/cpu/cpu_neighbor_scan.h"

#include <algorithm>
#include <cstring>

#include "boundary/boundary_equations.h"
#include "core/neighbor_scan.h"

namespace pbf {

namespace {

// A neighbour j at squared distance d2 as one integer that orders as
// nearer_neighbor() does: d2's bits above (a float that is not negative
// orders as its bits; d2 is never negative, and a NaN goes last), j below.
uint64_t nearness_key(float d2, uint32_t j) {
  uint32_t bits;
  std::memcpy(&bits, &d2, sizeof bits);
  if (!(d2 == d2)) bits = 0xFFFFFFFFu;
  return static_cast<uint64_t>(bits) << 32 | j;
}

// Each list scanned into a row on the stack, finished by finish_list(), then stored by put_list().
uint32_t scan_neighbor_run_baseline(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t /*n*/,
                                    uint32_t begin, uint32_t end, float radius, const ListRows& rows,
                                    uint32_t* count) {
  uint32_t overflows = 0;
  uint32_t row[kMaxListSlots + kLaneGroup] = {};
  const uint32_t collected = collected_slots(rows.stride);
  for (uint32_t i = begin; i < end; ++i) {
    bool full = false, overflowed = false;
    const uint32_t found = scan_neighbors(spec, start, x, i, radius, collected, row, 1, &full);
    count[i] = finish_list(spec, start, x, i, radius, rows.stride, row, found, full, &overflowed);
    put_list(row, count[i], rows, i);
    overflows += overflowed ? 1u : 0u;
  }
  return overflows;
}

void cell_indices_baseline(const GridSpec& spec, const Vec3* x, uint32_t begin, uint32_t end, bool set_aside,
                           uint32_t* cell) {
  for (uint32_t i = begin; i < end; ++i) cell[i] = set_aside ? spec.bucket_index(x[i]) : spec.cell_index(x[i]);
}

void boundary_near_baseline(const BoundarySamples& b, const Vec3* x, uint32_t begin, uint32_t end, float reach,
                            uint8_t* near) {
  for (uint32_t i = begin; i < end; ++i) near[i] = boundary_near_mark(b, x[i], reach);
}

}  // namespace

uint32_t finish_list(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t i, float radius,
                     uint32_t stride, uint32_t* row, uint32_t found, bool full, bool* overflowed) {
  if (collected_slots(stride) == stride) {  // rows without room to weigh: scanned again where it overflowed
    *overflowed = full;
    return full ? scan_nearest_neighbors(spec, start, x, i, radius, stride, row, 1, overflowed) : found;
  }
  *overflowed = found > stride;
  if (!*overflowed) return found;
  // The stride-th nearest by selection, then the list filtered in its order.
  uint64_t key[kMaxListSlots], order[kMaxListSlots];
  const Vec3 xi = x[i];
  for (uint32_t k = 0; k < found; ++k) order[k] = key[k] = nearness_key(length_squared(xi - x[row[k]]), row[k]);
  std::nth_element(order, order + (stride - 1), order + found);
  const uint64_t last = order[stride - 1];  // the stride-th nearest
  uint32_t kept = 0;  // at most k: each slot is read before it is written
  for (uint32_t k = 0; k < found; ++k)
    if (key[k] <= last) row[kept++] = row[k];
  return kept;
}

BoundaryNear boundary_near_for(LaneTarget target) {
  if ((target == LaneTarget::Avx2 || target == LaneTarget::Avx512) && lane_target_runs_here(LaneTarget::Avx2))
    return boundary_near_avx2;
  return boundary_near_baseline;
}

CellIndices cell_indices_for(LaneTarget target) {
  if ((target == LaneTarget::Avx2 || target == LaneTarget::Avx512) && lane_target_runs_here(LaneTarget::Avx2))
    return cell_indices_avx2;
  return cell_indices_baseline;
}

NeighborScan neighbor_scan_for(LaneTarget target) {
  if (target == LaneTarget::Avx512 && lane_target_runs_here(LaneTarget::Avx512)) return scan_neighbor_run_avx512;
  if (target == LaneTarget::Avx2 && lane_target_runs_here(LaneTarget::Avx2)) return scan_neighbor_run_avx2;
  return scan_neighbor_run_baseline;
}

}  // namespace pbf
