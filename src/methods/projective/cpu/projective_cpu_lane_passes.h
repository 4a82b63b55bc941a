// projective_cpu_lane_passes.h - Projective Fluids' local step on the CPU, in
// lanes (projective_cpu_lanes.h), compiled once per instruction set
// (backend/cpu/lane_targets.h); the stages call the copy this processor runs
// best. Every copy gives the same bits.
#pragma once

#include <cstdint>

#include "backend/cpu/lane_targets.h"
#include "methods/projective/projective_equations.h"

namespace pbf {

struct ProjectiveLanePasses {
  // project_density_constraint() of constraint i.
  Projection (*project_density_constraint)(const ProjectiveConstants& c, uint32_t i, const NeighborLists& nb,
                                           const BoundarySamples& boundary, const DensityWalls& solid,
                                           const ProjectionWalls& walls, const Vec3* x, Vec3* d);
};

// The copy compiled for `target` (the baseline copy where the library has none for it).
ProjectiveLanePasses projective_lane_passes(LaneTarget target);

// Each target's copy, one file each.
ProjectiveLanePasses projective_lane_passes_baseline();
ProjectiveLanePasses projective_lane_passes_avx2();
ProjectiveLanePasses projective_lane_passes_avx512();

}  // namespace pbf
