// pbf_cpu_lane_passes.h - PBF's sums over fluid neighbours on the CPU, in
// lanes (pbf_cpu_lanes.h), compiled once per instruction set
// (backend/cpu/lane_targets.h); the stages call the copy this processor runs
// best. Every copy gives the same bits.
#pragma once

#include <cstdint>

#include "backend/cpu/cpu_neighbor_grid.h"  // kLaneGroup, pad_lane_group()
#include "backend/cpu/lane_targets.h"
#include "methods/pbf/pbf_equations.h"

namespace pbf {

// Every pass takes the CPU backend's neighbour lists: particle-major and
// padded to groups of eight (pad_lane_group(), backend/cpu/cpu_neighbor_grid.h).
struct PbfLanePasses {
  // fluid_kernel_sum() of particle i.
  float (*fluid_kernel_sum)(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x);
  // fluid_density_sums() of particle i.
  FluidDensitySums<float, Vec3> (*fluid_density_sums)(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                                      const Vec3* x);
  // The fluid part of position_correction() of particle i.
  Vec3 (*fluid_position_correction)(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                                    const float* lambda);
  // vorticity() of particle i.
  Vec3 (*vorticity)(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x, const Vec3* v,
                    const float* rho);
  // vorticity_viscosity_sums() of particle i, with |omega| of every particle in omega_length.
  VorticityViscositySums (*vorticity_viscosity_sums)(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                                     const Vec3* x, const Vec3* v, const float* rho,
                                                     const float* omega_length);
};

// The copy compiled for `target` (the baseline copy where the library has none for it).
PbfLanePasses pbf_lane_passes(LaneTarget target);

// Each target's copy, one file each.
PbfLanePasses pbf_lane_passes_baseline();
PbfLanePasses pbf_lane_passes_avx2();

}  // namespace pbf
