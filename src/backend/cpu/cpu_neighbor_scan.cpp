#include "backend/cpu/cpu_neighbor_scan.h"

#include "core/neighbor_scan.h"

namespace pbf {

namespace {

uint32_t scan_neighbors_baseline(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t /*n*/,
                                 uint32_t i, float radius, uint32_t stride, uint32_t* list, bool* overflow) {
  return scan_neighbors(spec, start, x, i, radius, stride, list, 1, overflow);
}

}  // namespace

NeighborScan neighbor_scan_for(LaneTarget target) {
  if (target == LaneTarget::Avx2 && lane_target_runs_here(LaneTarget::Avx2)) return scan_neighbors_avx2;
  return scan_neighbors_baseline;
}

}  // namespace pbf
