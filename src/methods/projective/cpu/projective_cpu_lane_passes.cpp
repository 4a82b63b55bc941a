// The baseline copy of Projective Fluids' lane passes, and the choice among the copies.
#include "methods/projective/cpu/projective_cpu_lane_passes.h"

#define PBF_LANE_BYTES 16
#define PBF_LANE_TARGET baseline
#include "backend/cpu/lanes.h"
#include "methods/projective/cpu/projective_cpu_lanes.h"

namespace pbf {

ProjectiveLanePasses projective_lane_passes_baseline() { return baseline::lane_passes(); }

ProjectiveLanePasses projective_lane_passes(LaneTarget target) {
  if (target == LaneTarget::Avx512 && lane_target_runs_here(LaneTarget::Avx512)) return projective_lane_passes_avx512();
  if (target == LaneTarget::Avx2 && lane_target_runs_here(LaneTarget::Avx2)) return projective_lane_passes_avx2();
  return projective_lane_passes_baseline();
}

}  // namespace pbf
