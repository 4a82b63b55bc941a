// projective_cpu_lanes.h - Projective Fluids' local step on the CPU, eight
// members of a constraint at a time (sixteen on AVX-512, folded into eight
// lanes: backend/cpu/lanes.h), with the parts of projective_equations.h
// that the one-neighbour loop there is made of: the same equations, with the
// sums over the members taken in eight lanes and then added in a fixed
// order. Included by projective_cpu_lane_passes*.cpp, once per instruction
// set, after backend/cpu/lanes.h. The boundary samples' density is summed in
// lanes too (backend/cpu/boundary_lanes.h).
#include <cstdint>

#include "backend/cpu/boundary_lanes.h"
#include "backend/cpu/cpu_neighbor_scan.h"  // kMaxListSlots
#include "methods/projective/cpu/projective_cpu_lane_passes.h"
#include "methods/projective/projective_equations.h"

namespace pbf {
namespace PBF_LANE_TARGET {

// The most members (neighbours) of one constraint the lane loop holds: the
// most a CPU list keeps (the C API's largest max_neighbors). Longer lists
// would take the one-neighbour loop.
constexpr uint32_t kProjectionMembers = kMaxListSlots;

// A constraint's members in columns of kLanes lanes, coordinate by
// coordinate: their positions x_j, their displacements, and their
// directions u_j of the last Newton step. Lanes past the last member hold
// particle i with no displacement; `walls` has bit l of vector g set where
// member kLanes g + l rests on a plane (ProjectionWalls::touching).
struct ProjectionMembers {
  alignas(64) float x[3][kProjectionMembers];
  alignas(64) float d[3][kProjectionMembers];
  alignas(64) float u[3][kProjectionMembers];
  uint32_t walls[kProjectionMembers / kLanes];
};
static_assert(kLanes <= 32, "a vector's walls in 32 bits");

// The sums of one Newton step over kLanes members: add(t) adds their terms
// to t, which with eight lanes is the step's sums themselves; with sixteen
// (two groups of eight to a vector) the terms are summed apart and folded
// into the sums one group after the other (backend/cpu/lanes.h), as the
// eight-lane copies add their groups.
template <class Add>
inline void add_members(ProjectionSums<Lanes, Vec3Lanes>& sums, Add&& add) {
  if constexpr (kParticles == 1) {
    add(sums);
  } else {
    ProjectionSums<Lanes, Vec3Lanes> t{Lanes(0.0f), Vec3Lanes{0.0f, 0.0f, 0.0f}, Lanes(0.0f)};
    add(t);
    sums.constraint = fold(sums.constraint, t.constraint);
    sums.grad = fold(sums.grad, t.grad);
    sums.grad2 = fold(sums.grad2, t.grad2);
  }
}

inline Vec3Lanes load3(const float (*a)[kProjectionMembers], uint32_t k) {
  return Vec3Lanes{load(a[0] + k), load(a[1] + k), load(a[2] + k)};
}

inline void store3(float (*a)[kProjectionMembers], uint32_t k, const Vec3Lanes& v) {
  store(a[0] + k, v.x);
  store(a[1] + k, v.y);
  store(a[2] + k, v.z);
}

// along_walls() of eight members at x: those whose bit is set in `resting`
// (ProjectionMembers::walls) lose their displacement u's components into the
// planes they are within contact of.
inline Vec3Lanes along_walls_lanes(const ProjectionWalls& w, uint32_t resting, const Vec3Lanes& x, Vec3Lanes u) {
  LaneMask rests;
  for (uint32_t q = 0; q < kLaneParts; ++q)
    for (uint32_t l = 0; l < kLanesPerPart; ++l)
      rests.p[q][l] = (resting >> (q * kLanesPerPart + l)) & 1u ? -1 : 0;
  for (uint32_t k = 0; k < w.plane_count; ++k) {
    const Vec3 n = w.planes[k].normal;
    const Lanes distance = plane_distance(w.planes[k], x.x, x.y, x.z);
    const Lanes into = u.x * n.x + u.y * n.y + u.z * n.z;  // dot(u, n)
    const LaneMask pushed = rests & (distance <= Lanes(w.contact)) & (into < Lanes(0.0f));
    u.x = select(pushed, u.x - n.x * into, u.x);
    u.y = select(pushed, u.y - n.y * into, u.y);
    u.z = select(pushed, u.z - n.z * into, u.z);
  }
  return u;
}

// project_density_constraint() with its sums over the members in lanes.
inline Projection project_density_constraint_lanes(const ProjectiveConstants& c, uint32_t i, const NeighborLists& nb,
                                                   const BoundarySamples& boundary, const DensityWalls& solid,
                                                   const ProjectionWalls& walls, const Vec3* x, Vec3* d) {
  const uint32_t n = nb.size(i);
  if (n > kProjectionMembers) return project_density_constraint(c, i, nb, boundary, solid, walls, x, d);
  const Vec3 xi = x[i];
  const uint32_t padded = (n + kLanes - 1) / kLanes * kLanes;
  ProjectionMembers m;
  // The members' points in columns, and per group of lanes the members that rest on a wall (a group's
  // bits gathered in a register, stored once the group is whole).
  uint32_t bits = 0;
  const uint8_t* touching = walls.touching;
  nb.for_each_slot(i, [&](uint32_t k, uint32_t j) {
    const Vec3 xj = x[j];
    m.x[0][k] = xj.x;
    m.x[1][k] = xj.y;
    m.x[2][k] = xj.z;
    if (touching != nullptr) bits |= (touching[j] != 0 ? 1u : 0u) << (k % kLanes);
    if (k % kLanes == kLanes - 1) {
      m.walls[k / kLanes] = bits;
      bits = 0;
    }
  });
  if (n % kLanes != 0) m.walls[n / kLanes] = bits;
  for (uint32_t k = n; k < padded; ++k) {
    m.x[0][k] = xi.x;
    m.x[1][k] = xi.y;
    m.x[2][k] = xi.z;
  }
  const bool scan = boundary_scan(boundary, i);
  // From the second Newton step on, the samples near particle i are summed
  // from a copy, while the steps keep it within max_projection of x_i (the
  // second step at least: a step moves it at most that far).
  NearSamples near;
  bool copied = false;
  Projection out{0.0f, 0.0f, 0.0f, 0u, 0.0f};
  Vec3 d0{0.0f, 0.0f, 0.0f};
  for (uint32_t step = 0;; ++step) {
    const Vec3 pi = xi + d0;
    float rho_b = 0.0f, constraint;
    Vec3 grad_b{0.0f, 0.0f, 0.0f}, grad_i;
    if (scan && step == 1) copied = copy_near_samples(CubicSpline{c.kernel}, boundary, xi, c.max_projection, near);
    if (copied && near_samples_cover(near, pi))
      near_samples_density_gradient(CubicSpline{c.kernel}, near, pi, rho_b, grad_b);
    else if (scan)
      boundary_density_gradient_lanes(CubicSpline{c.kernel}, boundary, pi, rho_b, grad_b);
    projection_solid_terms(c, rho_b, grad_b, solid, pi, constraint, grad_i);
    ProjectionSums<Lanes, Vec3Lanes> sums{Lanes(0.0f), Vec3Lanes{0.0f, 0.0f, 0.0f}, Lanes(0.0f)};
    for (uint32_t k = 0; k < padded; k += kLanes) {
      const LaneMask valid = LaneMask::below(k, n);
      const Vec3Lanes xj = load3(m.x, k);
      const Vec3Lanes r = step == 0 ? pi - xj : pi - (xj + load3(m.d, k));  // no displacements before the first step
      const Lanes r2 = select(valid, length_squared(r), Lanes(c.kernel.h2));
      Vec3Lanes gradient = r * cubic_gradient_scale(c.kernel, r2);
      const LaneMask coincident = (r2 == Lanes(0.0f)) & valid;
      if (any(coincident))
        for (uint32_t l = 0; l < kLanes; ++l)
          if (coincident[l]) set_lane(gradient, l, cubic_pair_gradient(c.kernel, lane(r, l), 0.0f, i, nb.at(i, k + l)));
      add_members(sums, [&](ProjectionSums<Lanes, Vec3Lanes>& t) {
        Vec3Lanes u = add_projection_pair(c, r2, gradient, t);
        if (const uint32_t resting = m.walls[k / kLanes]) u = along_walls_lanes(walls, resting, xj, u);
        store3(m.u, k, u);
        t.grad2 += length_squared(u);
      });
    }
    float s;
    if (!projection_newton_step(c, i, xi, walls, step, constraint + lane_sum(sums.constraint),
                                grad_i + lane_sum(sums.grad), lane_sum(sums.grad2), out, d0, s))
      break;
    const Lanes step_length(s);
    for (uint32_t a = 0; a < 3; ++a)
      for (uint32_t k = 0; k < padded; k += kLanes)
        store(m.d[a] + k, (step == 0 ? Lanes(0.0f) : load(m.d[a] + k)) + load(m.u[a] + k) * step_length);
  }
  d[0] = d0;
  if (out.steps == 0)
    for (uint32_t k = 0; k < n; ++k) d[1 + k] = Vec3{0.0f, 0.0f, 0.0f};
  else
    for (uint32_t k = 0; k < n; ++k) d[1 + k] = Vec3{m.d[0][k], m.d[1][k], m.d[2][k]};
  return out;
}

// The passes of this target for ProjectiveLanePasses (static: one copy for
// the file that includes this one), with everything they call inlined into
// them (flatten), so that all of it is compiled for that file's instruction set.
__attribute__((flatten)) static Projection pass_project_density_constraint(
    const ProjectiveConstants& c, uint32_t i, const NeighborLists& nb, const BoundarySamples& boundary,
    const DensityWalls& solid, const ProjectionWalls& walls, const Vec3* x, Vec3* d) {
  return project_density_constraint_lanes(c, i, nb, boundary, solid, walls, x, d);
}

static ProjectiveLanePasses lane_passes() { return ProjectiveLanePasses{pass_project_density_constraint}; }

}  // namespace PBF_LANE_TARGET
}  // namespace pbf
