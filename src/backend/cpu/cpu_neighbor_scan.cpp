#include "backend/cpu/cpu_neighbor_scan.h"

#include "core/neighbor_scan.h"

namespace pbf {

namespace {

uint32_t scan_neighbor_run_baseline(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t /*n*/,
                                    uint32_t begin, uint32_t end, float radius, uint32_t stride, uint32_t* index,
                                    uint32_t* count) {
  uint32_t overflows = 0;
  for (uint32_t i = begin; i < end; ++i) {
    bool overflow = false;
    count[i] = scan_neighbors(spec, start, x, i, radius, stride, index + static_cast<size_t>(i) * stride, 1,
                              &overflow);
    overflows += overflow ? 1u : 0u;
  }
  return overflows;
}

}  // namespace

NeighborScan neighbor_scan_for(LaneTarget target) {
  if (target == LaneTarget::Avx512 && lane_target_runs_here(LaneTarget::Avx512)) return scan_neighbor_run_avx512;
  if (target == LaneTarget::Avx2 && lane_target_runs_here(LaneTarget::Avx2)) return scan_neighbor_run_avx2;
  return scan_neighbor_run_baseline;
}

uint32_t scan_in_shared_blocks(SharedBlockScan block, uint32_t most, const GridSpec& spec, const uint32_t* start,
                               const Vec3* x, uint32_t n, uint32_t begin, uint32_t end, float radius,
                               uint32_t stride, uint32_t* index, uint32_t* count) {
  uint32_t overflows = 0;
  int lo[3], hi[3];
  if (begin < end) spec.cell_block(x[begin], radius, lo, hi);
  for (uint32_t first = begin; first < end;) {
    // The particles from `first` on whose block of cells is first's, up to
    // `most` of them; the block of the next one.
    uint32_t m = 1;
    int next_lo[3] = {lo[0], lo[1], lo[2]}, next_hi[3] = {hi[0], hi[1], hi[2]};
    for (; first + m < end; ++m) {
      spec.cell_block(x[first + m], radius, next_lo, next_hi);
      const bool same = next_lo[0] == lo[0] && next_lo[1] == lo[1] && next_lo[2] == lo[2] && next_hi[0] == hi[0] &&
                        next_hi[1] == hi[1] && next_hi[2] == hi[2];
      if (!same || m == most) break;
    }
    overflows += block(spec, start, x, n, first, m, lo, hi, radius, stride, index, count);
    first += m;
    for (int a = 0; a < 3; ++a) {
      lo[a] = next_lo[a];
      hi[a] = next_hi[a];
    }
  }
  return overflows;
}

}  // namespace pbf
