// cpu_neighbor_scan.h - the CPU's neighbour scan of one particle into its
// particle-major list, per lane target (backend/cpu/lane_targets.h): the
// baseline runs core/neighbor_scan.h's scan_neighbors(); the AVX2 copy tests
// eight candidates at a time and gives the same list, count and overflow.
#pragma once

#include <cstdint>

#include "backend/cpu/lane_targets.h"
#include "core/grid_spec.h"

namespace pbf {

// scan_neighbors(spec, start, x, i, radius, stride, list, 1, overflow), where x
// holds the n sorted positions.
typedef uint32_t (*NeighborScan)(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n,
                                 uint32_t i, float radius, uint32_t stride, uint32_t* list, bool* overflow);

// The scan of `target`; the baseline's is the scalar scan_neighbors().
NeighborScan neighbor_scan_for(LaneTarget target);

// The AVX2 copy (cpu_neighbor_scan_avx2.cpp); where the library has none,
// the baseline's.
uint32_t scan_neighbors_avx2(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n, uint32_t i,
                             float radius, uint32_t stride, uint32_t* list, bool* overflow);

}  // namespace pbf
