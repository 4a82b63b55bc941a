// pbf_cpu_lanes.h - PBF's sums over a particle's fluid neighbours on the CPU,
// eight neighbours at a time (backend/cpu/lanes.h), with the pair terms of
// pbf_equations.h: the same equations as the one-neighbour loops there, with
// the sums taken in eight lanes and then added in a fixed order. Where the
// lanes hold two particles' groups (AVX-512), each particle's eight lanes
// go through the same operations as with one. Included by
// pbf_cpu_lane_passes*.cpp, once per instruction set, after backend/cpu/lanes.h.
#include <cstdint>

#include "methods/pbf/cpu/pbf_cpu_lane_passes.h"
#include "methods/pbf/pbf_equations.h"

namespace pbf {
namespace PBF_LANE_TARGET {

// The neighbours of kParticles particles (one, or two: backend/cpu/lanes.h),
// a group of eight of each: j.j[p] points to particle p's eight indices.
// `valid` holds the lanes that hold a neighbour. A particle whose list ended
// before this group has none valid and is not `active`: its sums must stay
// as they were, as with one particle, where no such group is summed (its
// lanes' terms are not always zero: a NaN of the particle's own, such as
// its lambda, times a zero gradient is NaN).
struct LaneGroup {
  LaneIndex j;
  LaneMask valid, active;
  uint32_t neighbour(uint32_t l) const { return j.j[l / kGroup][l % kGroup]; }
};

// sum = add(sum), in the lanes of the group's active particles; with one
// particle, every group is active.
template <class S, class Add>
inline void accumulate(const LaneGroup& g, S& sum, Add&& add) {
  if constexpr (kParticles == 1) {
    add(sum);
  } else {
    S next = sum;
    add(next);
    sum = keep(g.active, next, sum);
  }
}
inline Lanes keep(LaneMask m, Lanes a, Lanes b) { return select(m, a, b); }
inline Vec3Lanes keep(LaneMask m, const Vec3Lanes& a, const Vec3Lanes& b) {
  return Vec3Lanes{select(m, a.x, b.x), select(m, a.y, b.y), select(m, a.z, b.z)};
}
inline FluidDensitySums<Lanes, Vec3Lanes> keep(LaneMask m, const FluidDensitySums<Lanes, Vec3Lanes>& a,
                                               const FluidDensitySums<Lanes, Vec3Lanes>& b) {
  return FluidDensitySums<Lanes, Vec3Lanes>{keep(m, a.w, b.w), keep(m, a.grad, b.grad), keep(m, a.grad2, b.grad2)};
}

// Particle i[p]'s value of v in the lanes of its group.
inline Lanes spread(const float* v, const uint32_t* i) {
  Lanes s;
  for (uint32_t p = 0; p < kParticles; ++p)
    for (uint32_t l = 0; l < kGroup; ++l) s.set(p * kGroup + l, v[i[p]]);
  return s;
}
inline Vec3Lanes spread(const Vec3* v, const uint32_t* i) {
  Vec3Lanes s;
  for (uint32_t p = 0; p < kParticles; ++p)
    for (uint32_t l = 0; l < kGroup; ++l) set_lane(s, p * kGroup + l, v[i[p]]);
  return s;
}

inline Vec3ValueLanes spread(const PointValue* v, const uint32_t* i) {
  Vec3ValueLanes s;
  for (uint32_t p = 0; p < kParticles; ++p)
    for (uint32_t l = 0; l < kGroup; ++l) {
      set_lane(s.p, p * kGroup + l, v[i[p]].p);
      s.value.set(p * kGroup + l, v[i[p]].value);
    }
  return s;
}

// f(group) for the neighbours of the particles i[0 .. kParticles - 1] in
// groups of eight, a group of each particle at a time: where a list ends
// within a group, the lanes past it hold the particle itself and are false
// in `valid`. The lists must be particle-major, split or not, with a head of
// whole groups, and padded (the CPU backend's: CpuNeighborGrid::
// find_neighbors(), put_list()): a last group that the head or the
// tail row holds whole is read from the list like the full ones, with no
// copy and no branch on where the list ends (about 4 % of the reference
// scene's step); only a group that would run past the stride (one not a
// multiple of eight) is copied. Each particle's groups come in the order of
// its list, as with one particle at a time.
static_assert(kGroup == kLaneGroup, "the lists are padded to the lanes' groups");
template <class F>
inline void for_each_lane_group(const NeighborLists& nb, const uint32_t* i, F&& f) {
  const uint32_t* list[kParticles];
  const uint32_t* tail[kParticles];
  uint32_t n[kParticles];
  uint32_t most = 0;
  for (uint32_t p = 0; p < kParticles; ++p) {
    list[p] = nb.head_row(i[p]);
    tail[p] = nb.tail_row(i[p]);
    n[p] = nb.count[i[p]];
    most = n[p] > most ? n[p] : most;
  }
  uint32_t copy[kParticles][kGroup];
  const LaneMask::Ends ends = LaneMask::ends(n);
  for (uint32_t k = 0; k < most; k += kGroup) {
    // One call of f for full and last groups alike, so that it is inlined.
    LaneGroup g;
    g.valid = kParticles == 1 ? LaneMask::below(k, n[0]) : LaneMask::below_each(k, ends);
    for (uint32_t p = 0; p < kParticles; ++p) {
      const uint32_t* group = k < nb.head ? list[p] + k : tail[p] + (k - nb.head);
      if (k + kGroup <= nb.stride && k < n[p]) {
        g.j.j[p] = group;
      } else {
        for (uint32_t l = 0; l < kGroup; ++l) copy[p][l] = k + l < n[p] ? group[l] : i[p];
        g.j.j[p] = copy[p];
      }
    }
    if constexpr (kParticles > 1) g.active = LaneMask::reaching(k, ends);
    f(static_cast<const LaneGroup&>(g));
  }
}

// The squared distances r2 of the group's pairs, with the lanes outside
// `valid` at the kernel radius, where every kernel and gradient is zero.
inline Lanes pair_distance_squared(const KernelConstants& k, const Vec3Lanes& r, LaneMask valid) {
  return select(valid, length_squared(r), Lanes(k.h2));
}

// pair_gradient() of the group's pairs (i[p], j): the Spiky gradient, zero
// where the two particles coincide; those lanes are added to `coincident`.
// With kDrawn, such lanes get the direction pair_gradient() draws for them
// instead.
template <bool kDrawn>
inline Vec3Lanes pair_gradient(const KernelConstants& k, const Vec3Lanes& r, Lanes r2, const LaneGroup& group,
                               const uint32_t* i, LaneMask& coincident) {
  Vec3Lanes g = r * spiky_gradient_scale(k, r2);
  const LaneMask here = (r2 == Lanes(0.0f)) & group.valid;
  coincident = coincident | here;
  if (kDrawn && any(here)) {
    for (uint32_t l = 0; l < kLanes; ++l) {
      if (!here[l]) continue;
      set_lane(g, l, pair_gradient(k, Vec3{0.0f, 0.0f, 0.0f}, 0.0f, i[l / kGroup], group.neighbour(l)));
    }
  }
  return g;
}

// The sums below, each for the particles i[0 .. kParticles - 1] into
// out[0 .. kParticles - 1], run first without looking for coincident pairs,
// which are rare, and again with kDrawn where they found one.

template <bool kDrawn>
inline bool fluid_density_sums_lanes(const PbfConstants& c, const uint32_t* i, const NeighborLists& nb,
                                     const Vec3* x, FluidDensitySums<float, Vec3>* out) {
  const Vec3Lanes xi = spread(x, i);
  FluidDensitySums<Lanes, Vec3Lanes> s{Lanes(0.0f), Vec3Lanes{0.0f, 0.0f, 0.0f}, Lanes(0.0f)};
  LaneMask coincident = LaneMask::none();
  for_each_lane_group(nb, i, [&](const LaneGroup& g) {
    const Vec3Lanes r = xi - gather(x, g.j);
    const Lanes r2 = pair_distance_squared(c.kernel, r, g.valid);
    const Vec3Lanes grad = pair_gradient<kDrawn>(c.kernel, r, r2, g, i, coincident);
    accumulate(g, s, [&](FluidDensitySums<Lanes, Vec3Lanes>& t) { add_density_pair(c, r2, grad, t); });
  });
  float sums[4 * kParticles], grad2[4 * kParticles];
  lane_sums(s.w, s.grad.x, s.grad.y, s.grad.z, sums);
  // grad2 by the shuffles of lane_sums() too: lane_sum()'s element reads
  // made the AVX-512 copy's density sums 11 % slower.
  lane_sums(s.grad2, s.grad2, s.grad2, s.grad2, grad2);
  for (uint32_t p = 0; p < kParticles; ++p)
    out[p] = FluidDensitySums<float, Vec3>{sums[4 * p], Vec3{sums[4 * p + 1], sums[4 * p + 2], sums[4 * p + 3]},
                                           grad2[4 * p]};
  return kDrawn || !any(coincident);
}

template <bool kDrawn>
inline bool position_correction_lanes(const PbfConstants& c, const uint32_t* i, const NeighborLists& nb,
                                      const PointValue* x_lambda, Vec3* out) {
  const Vec3ValueLanes own = spread(x_lambda, i);
  Vec3Lanes dp{0.0f, 0.0f, 0.0f};
  LaneMask coincident = LaneMask::none();
  for_each_lane_group(nb, i, [&](const LaneGroup& g) {
    const Vec3ValueLanes q = gather(x_lambda, g.j);  // the neighbours' points and lambdas, one load each
    const Vec3Lanes r = own.p - q.p;
    const Lanes r2 = pair_distance_squared(c.kernel, r, g.valid);
    const Vec3Lanes grad = pair_gradient<kDrawn>(c.kernel, r, r2, g, i, coincident);
    accumulate(g, dp, [&](Vec3Lanes& t) { t += correction_pair_term(c, r2, grad, own.value, q.value); });
  });
  lane_sums(dp, out);
  for (uint32_t p = 0; p < kParticles; ++p) out[p] = out[p] * c.mass_over_rho0;
  return kDrawn || !any(coincident);
}

// fluid_kernel_sum() in lanes.
inline void fluid_kernel_sums_lanes(const PbfConstants& c, const uint32_t* i, const NeighborLists& nb, const Vec3* x,
                                    float* out) {
  const Vec3Lanes xi = spread(x, i);
  Lanes sum(0.0f);
  for_each_lane_group(nb, i, [&](const LaneGroup& g) {
    const Lanes w = poly6(c.kernel, pair_distance_squared(c.kernel, xi - gather(x, g.j), g.valid));
    accumulate(g, sum, [&](Lanes& t) { t += w; });
  });
  float sums[4 * kParticles];
  lane_sums(sum, sum, sum, sum, sums);  // as grad2 in fluid_density_sums_lanes()
  for (uint32_t p = 0; p < kParticles; ++p) out[p] = sums[4 * p];
}

// vorticity() in lanes, with each particle's velocity and volume m / rho
// in v_volume (the same quotient as vorticity()'s, taken once per particle).
inline void vorticities_lanes(const PbfConstants& c, const uint32_t* i, const NeighborLists& nb, const Vec3* x,
                              const PointValue* v_volume, Vec3* out) {
  const Vec3Lanes xi = spread(x, i);
  const Vec3Lanes vi = spread(v_volume, i).p;
  Vec3Lanes w{0.0f, 0.0f, 0.0f};
  for_each_lane_group(nb, i, [&](const LaneGroup& g) {
    const Vec3Lanes r = xi - gather(x, g.j);
    const Vec3ValueLanes vj = gather(v_volume, g.j);
    const Vec3Lanes term =
        vorticity_pair_term(c, r, pair_distance_squared(c.kernel, r, g.valid), vj.p - vi, vj.value);
    accumulate(g, w, [&](Vec3Lanes& t) { t += term; });
  });
  lane_sums(w, out);
}

// vorticity_viscosity_sums() in lanes, with each particle's point and
// |omega| in x_omega (|omega| read only where c.vorticity > 0), and its
// velocity and volume m / rho in v_volume.
inline void vorticity_viscosity_sums_lanes(const PbfConstants& c, const uint32_t* i, const NeighborLists& nb,
                                           const PointValue* x_omega, const PointValue* v_volume,
                                           VorticityViscositySums* out) {
  const Vec3ValueLanes own = spread(x_omega, i);
  const Vec3Lanes vi = spread(v_volume, i).p;
  const bool confinement = c.vorticity > 0.0f, viscosity = c.xsph > 0.0f;
  const Lanes wi = confinement ? own.value : Lanes(0.0f);
  Vec3Lanes eta{0.0f, 0.0f, 0.0f}, blend{0.0f, 0.0f, 0.0f};
  for_each_lane_group(nb, i, [&](const LaneGroup& g) {
    const Vec3ValueLanes xj = gather(x_omega, g.j);
    const Vec3ValueLanes vj = gather(v_volume, g.j);
    const Vec3Lanes r = own.p - xj.p;
    const Lanes r2 = pair_distance_squared(c.kernel, r, g.valid);
    if (confinement) {
      const Vec3Lanes term = confinement_pair_term(c, r, r2, vj.value, xj.value - wi);
      accumulate(g, eta, [&](Vec3Lanes& t) { t += term; });
    }
    if (viscosity) {
      const Vec3Lanes term = viscosity_pair_term(c, r2, vj.p - vi, vj.value);
      accumulate(g, blend, [&](Vec3Lanes& t) { t += term; });
    }
  });
  Vec3 e[kParticles], b[kParticles];
  lane_sums(eta, e);
  lane_sums(blend, b);
  for (uint32_t p = 0; p < kParticles; ++p) out[p] = VorticityViscositySums{e[p], b[p]};
}

// pass(i, out) for the particles begin .. end - 1, kParticles at a time,
// writing particle i's result to out[i - begin]; where a run's last
// particle has no partner, it is computed twice.
template <class T, class Pass>
inline void for_each_lane_particles(uint32_t begin, uint32_t end, T* out, Pass&& pass) {
  for (uint32_t i = begin; i < end; i += kParticles) {
    uint32_t ids[kParticles];
    for (uint32_t p = 0; p < kParticles; ++p) ids[p] = i + p < end ? i + p : end - 1;
    if constexpr (kParticles == 1) {
      pass(ids, out + (i - begin));
    } else {
      T result[kParticles];
      pass(ids, result);
      for (uint32_t p = 0; p < kParticles && i + p < end; ++p) out[i + p - begin] = result[p];
    }
  }
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
  for_each_lane_particles(begin, end, out,
                          [&](const uint32_t* i, float* o) { fluid_kernel_sums_lanes(c, i, nb, x, o); });
}

__attribute__((flatten)) static void pass_fluid_density_sums(const PbfConstants& constants, uint32_t begin,
                                                             uint32_t end, const NeighborLists& nb, const Vec3* x,
                                                             FluidDensitySums<float, Vec3>* out) {
  const PbfConstants c = constants;
  for_each_lane_particles(begin, end, out, [&](const uint32_t* i, FluidDensitySums<float, Vec3>* o) {
    if (!fluid_density_sums_lanes<false>(c, i, nb, x, o)) fluid_density_sums_lanes<true>(c, i, nb, x, o);
  });
}

__attribute__((flatten)) static void pass_fluid_position_corrections(const PbfConstants& constants, uint32_t begin,
                                                                     uint32_t end, const NeighborLists& nb,
                                                                     const PointValue* x_lambda, Vec3* out) {
  const PbfConstants c = constants;
  for_each_lane_particles(begin, end, out, [&](const uint32_t* i, Vec3* o) {
    if (!position_correction_lanes<false>(c, i, nb, x_lambda, o)) position_correction_lanes<true>(c, i, nb, x_lambda, o);
  });
}

__attribute__((flatten)) static void pass_vorticities(const PbfConstants& constants, uint32_t begin, uint32_t end,
                                                      const NeighborLists& nb, const Vec3* x,
                                                      const PointValue* v_volume, Vec3* out) {
  const PbfConstants c = constants;
  for_each_lane_particles(begin, end, out,
                          [&](const uint32_t* i, Vec3* o) { vorticities_lanes(c, i, nb, x, v_volume, o); });
}

__attribute__((flatten)) static void pass_vorticity_viscosity_sums(const PbfConstants& constants, uint32_t begin,
                                                                   uint32_t end, const NeighborLists& nb,
                                                                   const PointValue* x_omega,
                                                                   const PointValue* v_volume,
                                                                   VorticityViscositySums* out) {
  const PbfConstants c = constants;
  for_each_lane_particles(begin, end, out, [&](const uint32_t* i, VorticityViscositySums* o) {
    vorticity_viscosity_sums_lanes(c, i, nb, x_omega, v_volume, o);
  });
}

__attribute__((flatten)) static void pass_boundary_density_gradient(const KernelConstants& k, const BoundarySamples& b,
                                                                    Vec3 p, float& rho, Vec3& grad) {
  boundary_density_gradient(k, b, p, rho, grad);
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
                       pass_vorticities, pass_vorticity_viscosity_sums, pass_boundary_density_gradient,
                       pass_walls_reach, pass_planes_touch};
}

}  // namespace PBF_LANE_TARGET
}  // namespace pbf
