// pbf_cpu_lane_passes.h - PBF's sums over fluid neighbours on the CPU, in
// lanes (pbf_cpu_lanes.h), compiled once per instruction set
// (backend/cpu/lane_targets.h); the stages call the copy this processor runs
// best. Every copy gives the same bits.
#pragma once

#include <cstdint>

#include "backend/cpu/cpu_neighbor_scan.h"  // kLaneGroup, put_list()
#include "backend/cpu/lane_targets.h"
#include "backend/cpu/lane_vector.h"  // PointValue
#include "methods/pbf/pbf_equations.h"

namespace pbf {

// Every pass takes the CPU backend's neighbour lists: particle-major, split
// or not, and padded to groups of eight (put_list(), backend/cpu/cpu_neighbor_scan.h),
// and points in arrays that may be read as vectors of four floats
// (LaneVector, backend/cpu/lane_vector.h). Each works on a run of particles,
// begin .. end - 1, and writes particle i's result to out[i - begin]: one
// call per run, so that the pass's constants are set up once per run, not
// once per particle.
struct PbfLanePasses {
  // fluid_kernel_sum() of each particle of the run.
  void (*fluid_kernel_sums)(const PbfConstants& c, uint32_t begin, uint32_t end, const NeighborLists& nb,
                            const Vec3* x, float* out);
  // fluid_density_sums() of each particle of the run.
  void (*fluid_density_sums)(const PbfConstants& c, uint32_t begin, uint32_t end, const NeighborLists& nb,
                             const Vec3* x, FluidDensitySums<float, Vec3>* out);
  // The fluid part of position_correction() of each particle of the run,
  // with each particle's point and lambda in x_lambda (one load per
  // neighbour for both; aligned, as a LaneVector's or std::vector's are).
  void (*fluid_position_corrections)(const PbfConstants& c, uint32_t begin, uint32_t end, const NeighborLists& nb,
                                     const PointValue* x_lambda, Vec3* out);
  // vorticity() of each particle of the run, with each particle's velocity
  // and volume m / rho in v_volume.
  void (*vorticities)(const PbfConstants& c, uint32_t begin, uint32_t end, const NeighborLists& nb, const Vec3* x,
                      const PointValue* v_volume, Vec3* out);
  // vorticity_viscosity_sums() of each particle of the run, with each
  // particle's point and |omega| in x_omega (|omega| read only where
  // c.vorticity > 0) and its velocity and volume m / rho in v_volume.
  void (*vorticity_viscosity_sums)(const PbfConstants& c, uint32_t begin, uint32_t end, const NeighborLists& nb,
                                   const PointValue* x_omega, const PointValue* v_volume,
                                   VorticityViscositySums* out);
  // boundary_density_gradient() at p, the one-sample loop compiled for this
  // copy's instruction set: the same bits, faster where AVX2 rounds down in
  // one instruction (the cell block's floorf).
  void (*boundary_density_gradient)(const KernelConstants& k, const BoundarySamples& b, Vec3 p, float& rho,
                                    Vec3& grad);
  // For the points x[0 .. count - 1]: reach[k] = 1 where some plane of
  // `walls` adds density at x[k] (wall_q() not >= 1, boundary/wall_density.h),
  // else 0. Where it is 0, the walls without their planes (without_planes())
  // give the same density and gradient.
  void (*walls_reach)(const DensityWalls& walls, const Vec3* x, uint32_t count, uint8_t* reach);
  // For the points x[0 .. count - 1]: touch[k] = 1 where collide() pushes
  // x[k] off one of the planes (plane_depth() not <= 0, core/motion.h), else
  // 0. Where it is 0, collide() with no planes gives the same position.
  void (*planes_touch)(const MotionConstants& c, const Plane* planes, uint32_t plane_count, const Vec3* x,
                       uint32_t count, uint8_t* touch);
};

// The copy compiled for `target` (the baseline copy where the library has none for it).
PbfLanePasses pbf_lane_passes(LaneTarget target);

// Each target's copy, one file each.
PbfLanePasses pbf_lane_passes_baseline();
PbfLanePasses pbf_lane_passes_avx2();
PbfLanePasses pbf_lane_passes_avx512();

}  // namespace pbf
