// pbf_cpu_lanes.h - PBF's sums over a particle's fluid neighbours on the CPU,
// eight neighbours at a time (backend/cpu/lanes.h), with the pair terms of
// pbf_equations.h: the same equations as the one-neighbour loops there, with
// the sums taken in eight lanes and then added in a fixed order. Included by
// pbf_cpu_lane_passes*.cpp, once per instruction set, after backend/cpu/lanes.h.
#include <cstdint>

#include "methods/pbf/cpu/pbf_cpu_lane_passes.h"
#include "methods/pbf/pbf_equations.h"

namespace pbf {
namespace PBF_LANE_TARGET {

// f(j, valid) for the neighbours of i in groups of eight: j points to eight
// neighbour indices; where the list ends within a group, the lanes past it
// hold i and are false in `valid`. The lists must be particle-major and
// padded (the CPU backend's: CpuNeighborGrid::find_neighbors(),
// pad_lane_group()): a last group that the stride holds whole is read from
// the list like the full ones, with no copy and no branch on where the list
// ends (about 4 % of the reference scene's step); only a group that would run
// past the stride (one not a multiple of eight) is copied.
static_assert(kLanes == kLaneGroup, "the lists are padded to the lanes' groups");
template <class F>
inline void for_each_lane_group(const NeighborLists& nb, uint32_t i, F&& f) {
  const uint32_t* list = nb.index + i * nb.particle_step;
  const int32_t n = static_cast<int32_t>(nb.count[i]);
  for (int32_t k = 0; k < n; k += static_cast<int32_t>(kLanes)) {
    // One call of f for full and last groups alike, so that it is inlined.
    const LaneMask valid = LaneMask::below(static_cast<uint32_t>(k), static_cast<uint32_t>(n));
    if (k + static_cast<int32_t>(kLanes) <= static_cast<int32_t>(nb.stride)) {
      f(list + k, valid);
    } else {
      uint32_t last[kLanes];
      for (int32_t l = 0; l < static_cast<int32_t>(kLanes); ++l) last[l] = k + l < n ? list[k + l] : i;
      f(last, valid);
    }
  }
}

// The squared distances r2 of eight pairs, with the lanes outside `valid` at
// the kernel radius, where every kernel and gradient is zero.
inline Lanes pair_distance_squared(const KernelConstants& k, const Vec3Lanes& r, LaneMask valid) {
  return select(valid, length_squared(r), Lanes(k.h2));
}

// pair_gradient() of eight pairs (i, j[l]): the Spiky gradient, zero where
// the two particles coincide; those lanes are added to `coincident`. With
// kDrawn, such lanes get the direction pair_gradient() draws for them instead.
template <bool kDrawn>
inline Vec3Lanes pair_gradient(const KernelConstants& k, const Vec3Lanes& r, Lanes r2, LaneMask valid, uint32_t i,
                               const uint32_t* j, LaneMask& coincident) {
  Vec3Lanes g = r * spiky_gradient_scale(k, r2);
  const LaneMask here = (r2 == Lanes(0.0f)) & valid;
  coincident = coincident | here;
  if (kDrawn && any(here)) {
    for (uint32_t l = 0; l < kLanes; ++l) {
      if (!here[l]) continue;
      set_lane(g, l, pair_gradient(k, Vec3{0.0f, 0.0f, 0.0f}, 0.0f, i, j[l]));
    }
  }
  return g;
}

// The sums below run first without looking for coincident pairs, which are
// rare, and again with kDrawn where they found one.

template <bool kDrawn>
inline bool fluid_density_sums_lanes(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                     const Vec3* x, FluidDensitySums<float, Vec3>& out) {
  const Vec3 xi = x[i];
  FluidDensitySums<Lanes, Vec3Lanes> s{Lanes(0.0f), Vec3Lanes{0.0f, 0.0f, 0.0f}, Lanes(0.0f)};
  LaneMask coincident = LaneMask::none();
  for_each_lane_group(nb, i, [&](const uint32_t* j, LaneMask valid) {
    const Vec3Lanes r = xi - gather(x, j);
    const Lanes r2 = pair_distance_squared(c.kernel, r, valid);
    add_density_pair(c, r2, pair_gradient<kDrawn>(c.kernel, r, r2, valid, i, j, coincident), s);
  });
  float sums[4];
  lane_sums(s.w, s.grad.x, s.grad.y, s.grad.z, sums);
  out = FluidDensitySums<float, Vec3>{sums[0], Vec3{sums[1], sums[2], sums[3]}, lane_sum(s.grad2)};
  return kDrawn || !any(coincident);
}

// fluid_density_sums() in lanes.
inline FluidDensitySums<float, Vec3> fluid_density_sums_lanes(const PbfConstants& c, uint32_t i,
                                                              const NeighborLists& nb, const Vec3* x) {
  FluidDensitySums<float, Vec3> s;
  if (!fluid_density_sums_lanes<false>(c, i, nb, x, s)) fluid_density_sums_lanes<true>(c, i, nb, x, s);
  return s;
}

template <bool kDrawn>
inline bool position_correction_lanes(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                      const Vec3* x, const float* lambda, Vec3& out) {
  const Vec3 xi = x[i];
  const Lanes li(lambda[i]);
  Vec3Lanes dp{0.0f, 0.0f, 0.0f};
  LaneMask coincident = LaneMask::none();
  for_each_lane_group(nb, i, [&](const uint32_t* j, LaneMask valid) {
    const Vec3Lanes r = xi - gather(x, j);
    const Lanes r2 = pair_distance_squared(c.kernel, r, valid);
    dp += correction_pair_term(c, r2, pair_gradient<kDrawn>(c.kernel, r, r2, valid, i, j, coincident), li,
                               gather(lambda, j));
  });
  out = lane_sum(dp) * c.mass_over_rho0;
  return kDrawn || !any(coincident);
}

// The fluid part of position_correction() in lanes.
inline Vec3 position_correction_lanes(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                      const Vec3* x, const float* lambda) {
  Vec3 dp;
  if (!position_correction_lanes<false>(c, i, nb, x, lambda, dp))
    position_correction_lanes<true>(c, i, nb, x, lambda, dp);
  return dp;
}

// fluid_kernel_sum() in lanes.
inline float fluid_kernel_sum_lanes(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x) {
  const Vec3 xi = x[i];
  Lanes sum(0.0f);
  for_each_lane_group(nb, i, [&](const uint32_t* j, LaneMask valid) {
    sum += poly6(c.kernel, pair_distance_squared(c.kernel, xi - gather(x, j), valid));
  });
  return lane_sum(sum);
}

// vorticity() in lanes.
inline Vec3 vorticity_lanes(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x, const Vec3* v,
                            const float* rho) {
  const Vec3 xi = x[i];
  const Vec3 vi = v[i];
  Vec3Lanes w{0.0f, 0.0f, 0.0f};
  for_each_lane_group(nb, i, [&](const uint32_t* j, LaneMask valid) {
    const Vec3Lanes r = xi - gather(x, j);
    const Lanes volume = Lanes(c.mass) / gather(rho, j);
    w += vorticity_pair_term(c, r, pair_distance_squared(c.kernel, r, valid), gather(v, j) - vi, volume);
  });
  return lane_sum(w);
}

// vorticity_viscosity_sums() in lanes, with |omega| of every particle in
// `omega_length` (read only where c.vorticity > 0).
inline VorticityViscositySums vorticity_viscosity_sums_lanes(const PbfConstants& c, uint32_t i,
                                                             const NeighborLists& nb, const Vec3* x, const Vec3* v,
                                                             const float* rho, const float* omega_length) {
  const Vec3 xi = x[i];
  const Vec3 vi = v[i];
  const bool confinement = c.vorticity > 0.0f, viscosity = c.xsph > 0.0f;
  const Lanes wi(confinement ? omega_length[i] : 0.0f);
  Vec3Lanes eta{0.0f, 0.0f, 0.0f}, blend{0.0f, 0.0f, 0.0f};
  for_each_lane_group(nb, i, [&](const uint32_t* j, LaneMask valid) {
    const Vec3Lanes r = xi - gather(x, j);
    const Lanes r2 = pair_distance_squared(c.kernel, r, valid);
    const Lanes volume = Lanes(c.mass) / gather(rho, j);
    if (confinement) eta += confinement_pair_term(c, r, r2, volume, gather(omega_length, j) - wi);
    if (viscosity) blend += viscosity_pair_term(c, r2, gather(v, j) - vi, volume);
  });
  return VorticityViscositySums{lane_sum(eta), lane_sum(blend)};
}

// The points x[k .. k + 7] of x[0 .. count - 1], k < count: where fewer
// than eight are left, the last one fills the lanes past it.
inline Vec3Lanes points_from(const Vec3* x, uint32_t k, uint32_t count) {
  if (k + kLanes <= count) return load_points(x + k);
  uint32_t index[kLanes];
  for (uint32_t l = 0; l < kLanes; ++l) index[l] = k + l < count ? k + l : count - 1;
  return gather(x, index);
}

// flags[k] = 1 where acts(p) is true in the lane of x[k], else 0, for the
// points x[0 .. count - 1] taken eight at a time (p: their Vec3Lanes).
template <class Acts>
inline void flag_points(const Vec3* x, uint32_t count, uint8_t* flags, Acts&& acts) {
  for (uint32_t k = 0; k < count; k += kLanes) {
    const LaneMask m = acts(points_from(x, k, count));
    for (uint32_t l = 0; l < kLanes && k + l < count; ++l) flags[k + l] = m[l] != 0 ? 1u : 0u;
  }
}

// The passes of this target for PbfLanePasses (static: one copy for the file
// that includes this one), each a loop over a run of particles. Everything
// they call is inlined into them (flatten), so that all of it is compiled for
// that file's instruction set. The constants are copied first: `out` may not
// alias a copy on the stack, so they stay in registers across the run.
__attribute__((flatten)) static void pass_fluid_kernel_sums(const PbfConstants& constants, uint32_t begin,
                                                            uint32_t end, const NeighborLists& nb, const Vec3* x,
                                                            float* out) {
  const PbfConstants c = constants;
  for (uint32_t i = begin; i < end; ++i) out[i - begin] = fluid_kernel_sum_lanes(c, i, nb, x);
}

__attribute__((flatten)) static void pass_fluid_density_sums(const PbfConstants& constants, uint32_t begin,
                                                             uint32_t end, const NeighborLists& nb, const Vec3* x,
                                                             FluidDensitySums<float, Vec3>* out) {
  const PbfConstants c = constants;
  for (uint32_t i = begin; i < end; ++i) out[i - begin] = fluid_density_sums_lanes(c, i, nb, x);
}

__attribute__((flatten)) static void pass_fluid_position_corrections(const PbfConstants& constants, uint32_t begin,
                                                                     uint32_t end, const NeighborLists& nb,
                                                                     const Vec3* x, const float* lambda, Vec3* out) {
  const PbfConstants c = constants;
  for (uint32_t i = begin; i < end; ++i) out[i - begin] = position_correction_lanes(c, i, nb, x, lambda);
}

__attribute__((flatten)) static void pass_vorticities(const PbfConstants& constants, uint32_t begin, uint32_t end,
                                                      const NeighborLists& nb, const Vec3* x, const Vec3* v,
                                                      const float* rho, Vec3* out) {
  const PbfConstants c = constants;
  for (uint32_t i = begin; i < end; ++i) out[i - begin] = vorticity_lanes(c, i, nb, x, v, rho);
}

__attribute__((flatten)) static void pass_vorticity_viscosity_sums(const PbfConstants& constants, uint32_t begin,
                                                                   uint32_t end, const NeighborLists& nb,
                                                                   const Vec3* x, const Vec3* v, const float* rho,
                                                                   const float* omega_length,
                                                                   VorticityViscositySums* out) {
  const PbfConstants c = constants;
  for (uint32_t i = begin; i < end; ++i)
    out[i - begin] = vorticity_viscosity_sums_lanes(c, i, nb, x, v, rho, omega_length);
}

__attribute__((flatten)) static void pass_walls_reach(const DensityWalls& walls, const Vec3* x, uint32_t count,
                                                      uint8_t* reach) {
  flag_points(x, count, reach, [&](const Vec3Lanes& p) {
    LaneMask near = LaneMask::none();
    for (uint32_t w = 0; w < walls.count; ++w) {
      const Lanes q = wall_q(walls, walls.planes[w], p.x, p.y, p.z);
      near = near | (q < Lanes(1.0f)) | (q != q);  // !(q >= 1)
    }
    return near;
  });
}

__attribute__((flatten)) static void pass_planes_touch(const MotionConstants& c, const Plane* planes,
                                                       uint32_t plane_count, const Vec3* x, uint32_t count,
                                                       uint8_t* touch) {
  flag_points(x, count, touch, [&](const Vec3Lanes& p) {
    LaneMask pushed = LaneMask::none();
    for (uint32_t w = 0; w < plane_count; ++w) {
      const Lanes depth = plane_depth(c, planes[w], p.x, p.y, p.z);
      pushed = pushed | (depth > Lanes(0.0f)) | (depth != depth);  // !(depth <= 0)
    }
    return pushed;
  });
}

static PbfLanePasses lane_passes() {
  return PbfLanePasses{pass_fluid_kernel_sums, pass_fluid_density_sums, pass_fluid_position_corrections,
                       pass_vorticities, pass_vorticity_viscosity_sums, pass_walls_reach, pass_planes_touch};
}

}  // namespace PBF_LANE_TARGET
}  // namespace pbf
