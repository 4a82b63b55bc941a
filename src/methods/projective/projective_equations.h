// projective_equations.h - the per-particle equations of Projective Fluids
// (Weiler, Koschier & Bender 2016), written once for every backend.
//
// One substep is an implicit Euler step (eq. 1) found as the minimum of
//   1/(2 dt^2) |M^1/2 (x - s)|^2 + sum_i w/2 |S_i x - p_i|^2      (eq. 4, D = P = I)
// where s is the inertial prediction x + dt v + dt^2 g, S_i selects particle i
// and its neighbours (the particles of density constraint i) and p_i is their
// projection onto the constraint C_i = rho_i / rho0 - 1 <= 0 (eq. 6-8,
// clamped to compression). Local step: project every constraint with a few
// Newton steps (Algorithm 1). Global step: solve
//   (M/dt^2 + sum_i w S_i^T S_i) x = M/dt^2 s + sum_i w S_i^T p_i    (eq. 5)
// With D = P = I the matrix is diagonal (global_row()), so the global step
// solves it in closed form, row by row (global_correction()): one pass over
// the particles, no reduction. Every function below writes only to
// its own particle (or its own constraint's slots), so results do not depend
// on the order or the thread count.
#pragma once

#include <cstdint>

#include "boundary/boundary_equations.h"
#include "core/config.h"
#include "core/hd.h"
#include "core/lattice.h"
#include "core/motion.h"
#include "core/obstacle.h"
#include "core/sph_kernels.h"
#include "methods/pbf/pbf_equations.h"

namespace pbf {

// Constants of one Projective Fluids substep.
struct ProjectiveConstants {
  CubicKernel kernel;
  float mass;               // particle mass [kg]
  float mass_over_rho0;     // m / rho0 [m^3]
  float stiffness;          // w of eq. 3 [N/m]
  float inertia;            // m / dt^2 [N/m]
  uint32_t newton_iterations;
  float newton_tolerance;   // projection ends once C_i is at most this
  uint32_t slots;           // displacement slots per constraint: max_neighbors + 1 (itself first)
  float max_projection;     // longest displacement of one Newton step (half a spacing) [m]
  float rest_members;       // constraints holding a particle inside the rest lattice: every row's count (global_row())
  float rest_density;       // rho0 [kg/m^3]
  float wall_calibration;   // DensityWalls::calibration of the cubic spline
};

// Particle mass so that the ideal lattice at `spacing` has density rho0,
// measured with Projective Fluids' density kernel, the cubic spline.
inline float projective_particle_mass(const SolverConfig& config) {
  const CubicKernel k = CubicKernel::make(config.kernel_radius);
  return static_cast<float>(config.rest_density / cubic_lattice_sum(config.particle_spacing, k));
}

inline ProjectiveConstants make_projective_constants(const SolverConfig& config, const PbfParams& p, float dt) {
  ProjectiveConstants c{};
  c.kernel = CubicKernel::make(config.kernel_radius);
  c.mass = projective_particle_mass(config);
  c.mass_over_rho0 = c.mass / config.rest_density;
  c.stiffness = p.projective_stiffness;
  c.inertia = c.mass / (dt * dt);
  c.newton_iterations = p.newton_iterations;
  c.newton_tolerance = p.newton_tolerance;
  c.slots = config.max_neighbors + 1;
  c.max_projection = 0.5f * config.particle_spacing;
  c.rest_members = static_cast<float>(lattice_points_within(config.particle_spacing, config.kernel_radius));
  c.rest_density = config.rest_density;
  c.wall_calibration = static_cast<float>(wall_calibration(
      config.particle_spacing, config.kernel_radius, [&](float r2) { return cubic(c.kernel, r2); }, cubic_half_space));
  return c;
}

// The planes of a substep that add density (as pbf_density_walls()).
PBF_HD DensityWalls projective_density_walls(const ProjectiveConstants& c, const Plane* planes, uint32_t count,
                                             uint32_t first) {
  return DensityWalls{planes + first, count > first ? count - first : 0u, c.rest_density, c.wall_calibration,
                      c.kernel.inv_h};
}

// The cubic spline gradient grad_i W(x_i - x_j) of the pair (i, j). Where
// two particles coincide the gradient vanishes; as in pair_gradient() of PBF
// the pair then gets an antisymmetric direction drawn from its indices, here
// with the kernel's largest gradient magnitude, so that the projection can
// separate them.
PBF_HD Vec3 cubic_pair_gradient(const CubicKernel& k, Vec3 r, float r2, uint32_t i, uint32_t j) {
  if (r2 > 0.0f) return r * cubic_gradient_scale(k, r2);
  const Vec3 u = pair_gradient(KernelConstants{1.0f, 1.0f, 0.0f, 1.0f}, r, 0.0f, i, j);  // unit-free direction
  const float len = length(u);
  return u * ((2.0f * k.sigma * k.inv_h) / len);
}

// SPH density with the cubic spline (eq. 7), self term, boundary samples and
// plane walls included.
PBF_HD float cubic_density(const ProjectiveConstants& c, uint32_t i, const NeighborLists& nb,
                           const BoundarySamples& boundary, const DensityWalls& walls, const Vec3* x) {
  const Vec3 xi = x[i];
  float sum = cubic(c.kernel, 0.0f);
  nb.for_each(i, [&](uint32_t j) { sum += cubic(c.kernel, length_squared(xi - x[j])); });
  float rho_b = 0.0f;
  if (boundary_scan(boundary, i)) {
    Vec3 unused;
    boundary_density_gradient(c.kernel, boundary, xi, rho_b, unused);
  }
  float rho_w;
  Vec3 unused_w;
  wall_density_gradient<true>(walls, xi, rho_w, unused_w);
  return c.mass * sum + rho_b + rho_w;
}

// What the local step found for one constraint.
struct Projection {
  float compression;  // C_i at the current positions, clamped to >= 0 (eq. 8)
  float remaining;    // C_i after the Newton steps (<= newton_tolerance when converged)
  float density;      // rho_i at the current positions [kg/m^3]
  uint32_t steps;     // Newton steps taken
  float step_sum;     // the sum of the Newton steps' lengths s (obstacle_sample_push())
};

// The walls a constraint projection respects: the planes of the substep
// (the domain's walls first) and, per particle, whether it touches one of
// them. `touching` null: no walls.
struct ProjectionWalls {
  const Plane* planes;
  uint32_t plane_count;
  float contact;            // a particle this close to a plane touches it [m]
  const uint8_t* touching;  // per particle: 1 when it touches a plane (touches_wall())
};

// The distance collide() keeps a particle's centre from a plane, with a
// margin for round-off: particles at least this close rest on the plane.
PBF_HD float wall_contact_distance(float particle_radius) { return 1.01f * particle_radius; }

PBF_HD bool touches_wall(const Plane* planes, uint32_t plane_count, float contact, Vec3 x) {
  for (uint32_t k = 0; k < plane_count; ++k)
    if (plane_distance(planes[k], x.x, x.y, x.z) <= contact) return true;
  return false;
}

// A displacement u of particle j less its components into the planes j
// rests on: a wall takes the push a constraint would give a particle into
// it, as an infinitely heavy member of the constraint would.
PBF_HD Vec3 along_walls(const ProjectionWalls& w, uint32_t j, Vec3 at, Vec3 u) {
  if (w.touching == nullptr || !w.touching[j]) return u;
  for (uint32_t k = 0; k < w.plane_count; ++k) {
    const Vec3 n = w.planes[k].normal;
    if (plane_distance(w.planes[k], at.x, at.y, at.z) > w.contact) continue;
    const float into = dot(u, n);
    if (into < 0.0f) u -= n * into;
  }
  return u;
}

// The local step of constraint i (Algorithm 1, project_density_constraint()
// below), in parts that the CPU's lane loops (cpu/projective_cpu_lanes.h)
// share with the one-neighbour loop.

// C_i's terms of the solids at particle i's projected position pi: its own
// kernel value, minus one, plus the density rho_b of the boundary samples
// near it (boundary_density_gradient(), with its gradient grad_b; zero where
// boundary_scan() says none are near) and of the planes that add density
// (`solid`), relative to rho0; `grad_i` their gradient with respect to pi.
PBF_HD void projection_solid_terms(const ProjectiveConstants& c, float rho_b, Vec3 grad_b, const DensityWalls& solid,
                                   Vec3 pi, float& constraint, Vec3& grad_i) {
  const float inv_rho0 = c.mass_over_rho0 / c.mass;
  constraint = c.mass_over_rho0 * cubic(c.kernel, 0.0f) - 1.0f + rho_b * inv_rho0;
  grad_i = grad_b * inv_rho0;
  float rho_w;
  Vec3 grad_w;
  wall_density_gradient<true>(solid, pi, rho_w, grad_w);
  constraint += rho_w * inv_rho0;
  grad_i += grad_w * inv_rho0;
}

// The sums of one Newton step over the fluid members of constraint i: C_i's
// fluid part, its gradient with respect to p_i, and sum_j |u_j|^2 of the
// members' directions u_j (along_walls() of -grad_{p_j} C_i). T is a float or,
// on the CPU, a lane type; V its vector.
template <class T, class V>
struct ProjectionSums {
  T constraint;
  V grad;
  T grad2;
};

// Adds member j of constraint i to the sums, from its pair's squared distance
// r2 and cubic spline gradient (cubic_pair_gradient()); returns
// -grad_{p_j} C_i, which the caller takes along the walls (along_walls())
// and adds to grad2.
template <class T, class V>
PBF_HD V add_projection_pair(const ProjectiveConstants& c, T r2, const V& gradient, ProjectionSums<T, V>& s) {
  s.constraint += c.mass_over_rho0 * cubic(c.kernel, r2);
  const V g = gradient * T(c.mass_over_rho0);
  s.grad += g;
  return g;
}

// The end of Newton step `step` of constraint i, from C_i and grad_{p_i} C_i
// (solids and fluid) and grad2, the members' sum |u_j|^2: particle i's own
// direction taken along the walls it rests on, the constraint's density and
// compression recorded at the first step. Returns false where the projection
// ends (C_i at most the tolerance, the Newton steps used up, or no
// direction); otherwise the step length `s` (eq. 9-11; its length
// C / |grad C| is capped at max_projection, since the cubic spline's gradient
// vanishes as two particles meet and a crowded constraint could ask for an
// arbitrarily long step), with particle i moved: d0 -= grad_i s. Each member
// then moves by s u_j.
PBF_HD bool projection_newton_step(const ProjectiveConstants& c, uint32_t i, Vec3 xi, const ProjectionWalls& walls,
                                   uint32_t step, float constraint, Vec3 grad_i, float grad2, Projection& out,
                                   Vec3& d0, float& s) {
  grad_i = along_walls(walls, i, xi, grad_i * -1.0f) * -1.0f;
  grad2 += length_squared(grad_i);
  if (step == 0) {
    out.density = (constraint + 1.0f) / c.mass_over_rho0 * c.mass;
    out.compression = constraint > 0.0f ? constraint : 0.0f;
  }
  out.remaining = constraint;
  if (constraint <= c.newton_tolerance || step >= c.newton_iterations || !(grad2 > 0.0f)) return false;
  s = constraint / grad2;
  const float step_length = constraint / sqrtf(grad2);
  if (step_length > c.max_projection) s *= c.max_projection / step_length;
  d0 -= grad_i * s;
  out.step_sum += s;
  out.steps = step + 1;
  return true;
}

// Local step of constraint i (Algorithm 1): starting from p = S_i x, the
// positions of particle i and its neighbours, repeat the linearised step
// p <- p + s u with u the direction of -grad C(p) and
// s = C(p) / |u|^2 (eq. 9-11), at most max_projection long, until C(p) is
// at most the tolerance or the Newton iterations are used up. A member that
// rests on a wall does not move into it (along_walls()): the rest of the
// constraint then moves further, and the global step does not average the
// projection with a correction that the walls' collisions would undo.
// Boundary samples near particle i and the planes' walls (`solid`,
// wall_density.h) add their density to C_i and, since they do not move,
// their gradient to particle i's direction only.
// Writes the displacements p - S_i x to d[0] (particle i) and d[1 + k] (its
// k-th neighbour); a constraint that is not compressed is already on its
// manifold and gets zero displacements.
PBF_HD Projection project_density_constraint(const ProjectiveConstants& c, uint32_t i, const NeighborLists& nb,
                                             const BoundarySamples& boundary, const DensityWalls& solid,
                                             const ProjectionWalls& walls, const Vec3* x, Vec3* d) {
  const uint32_t n = nb.size(i);
  const Vec3 xi = x[i];
  for (uint32_t k = 0; k <= n; ++k) d[k] = Vec3{0.0f, 0.0f, 0.0f};
  const bool scan = boundary_scan(boundary, i);
  Projection out{0.0f, 0.0f, 0.0f, 0u, 0.0f};
  for (uint32_t step = 0;; ++step) {
    const Vec3 pi = xi + d[0];
    float rho_b = 0.0f, constraint;
    Vec3 grad_b{0.0f, 0.0f, 0.0f}, grad_i;
    if (scan) boundary_density_gradient(c.kernel, boundary, pi, rho_b, grad_b);
    projection_solid_terms(c, rho_b, grad_b, solid, pi, constraint, grad_i);
    ProjectionSums<float, Vec3> sums{0.0f, Vec3{0.0f, 0.0f, 0.0f}, 0.0f};
    nb.for_each_slot(i, [&](uint32_t k, uint32_t j) {
      const Vec3 r = pi - (x[j] + d[1 + k]);
      const float r2 = length_squared(r);
      const Vec3 g = add_projection_pair(c, r2, cubic_pair_gradient(c.kernel, r, r2, i, j), sums);
      sums.grad2 += length_squared(along_walls(walls, j, x[j], g));
    });
    float s;
    if (!projection_newton_step(c, i, xi, walls, step, constraint + sums.constraint, grad_i + sums.grad, sums.grad2,
                                out, d[0], s))
      break;
    nb.for_each_slot(i, [&](uint32_t k, uint32_t j) {
      const Vec3 r = pi - (x[j] + d[1 + k]);
      const float r2 = length_squared(r);
      d[1 + k] += along_walls(walls, j, x[j], cubic_pair_gradient(c.kernel, r, r2, i, j) * c.mass_over_rho0) * s;
    });
  }
  return out;
}

// For every neighbour slot k of every particle l, the place of l in the
// list of that neighbour (NeighborLists::slot_of()), UINT32_MAX where it is not
// there: the lists do not change during a step, so a backend may look them
// up once per step instead of in every global step (global_row()'s `back`).
PBF_HD void fill_back_slots(const NeighborLists& nb, uint32_t l, uint32_t* back) {
  nb.for_each_slot(l, [&](uint32_t k, uint32_t j) { back[nb.slot_index(l, k)] = nb.slot_of(j, l); });
}

// Row l of the global system (eq. 5) as a residual at the current iterate
// x: r_l = m/dt^2 (s_l - x_l) + w sum_{i : l in C_i} (p_{i,l} - x_l), and the
// diagonal A_ll = m/dt^2 + w n. With D = P = I every S_i^T S_i is diagonal,
// so A is too; it is never assembled, and r_l depends on no other
// particle's iterate (a test holds it to that). Writing the right-hand side
// relative to x (a warm start at the previous iterate) keeps the large terms
// w x_l from cancelling in float. Constraint l itself holds l; so does the
// constraint of each neighbour whose list holds l. `d` holds the
// displacements of project_density_constraint(), `slots` per constraint;
// `active[i]` is zero where constraint i was not compressed (zero
// displacements).
// A particle that no compressed constraint holds keeps the iterate (residual
// zero): with the inactive constraints' weights at zero its row alone would
// send it back to s, where it was compressed, and a small cluster then
// cycles with period three (compressed, half projected, free, back to s)
// and ends the iterations where it started. The paper's weights, kept for
// satisfied constraints with p = S_i x, would move it a fraction
// m/dt^2 / (m/dt^2 + w n) ~ 1e-4 of the way there.
// Every other row counts n = rest_members constraints, those of a particle
// inside the rest lattice, whatever number of them is compressed: the
// satisfied ones project to the iterate, as the paper keeps satisfied
// constraints in the system, so they add to the diagonal and not to the
// residual. With one diagonal for all, the global step moves the water by
// w / A_ll times the sum of every constraint's displacements, and a
// constraint among fluid particles alone displaces its members by a sum of
// zero: the step moves no momentum, and what a wall or an obstacle's samples
// give the water is their own share (obstacle_sample_push()). While each row
// counted only its compressed constraints, a particle at a wall or the free
// surface, held by fewer, moved further per iteration than the water beside
// it: the layer along a sampled wall rose and stirred a tank at rest, and
// the force read from a submerged box came out 23 % above its buoyancy
// (docs/PHYSICS.md §7).
//
// global_row_from() sums the row wherever the displacements are kept: `own`
// is constraint l's displacement of l, and given(k, i) that of the
// constraint of l's k-th neighbour i, or null where i's list does not hold
// l. global_row() reads them by constraint (`d`, as project_density_constraint()
// writes them); global_row_received() by receiver.
template <class Given>
PBF_HD void global_row_from(const ProjectiveConstants& c, uint32_t l, const NeighborLists& nb, const Vec3* s,
                            const Vec3* x, const uint8_t* active, const Vec3* own, Given&& given, Vec3& residual,
                            float& diagonal) {
  Vec3 pull{0.0f, 0.0f, 0.0f};
  uint32_t members = 0;
  if (active[l]) {
    pull = *own;
    members = 1;
  }
  nb.for_each_slot(l, [&](uint32_t k, uint32_t i) {
    if (!active[i]) return;
    const Vec3* d_i = given(k, i);
    if (d_i == nullptr) return;
    ++members;
    pull += *d_i;
  });
  diagonal = c.inertia + c.stiffness * c.rest_members;
  residual = members > 0 ? (s[l] - x[l]) * c.inertia + pull * c.stiffness : Vec3{0.0f, 0.0f, 0.0f};
}

PBF_HD void global_row(const ProjectiveConstants& c, uint32_t l, const NeighborLists& nb, const uint32_t* back,
                       const Vec3* s, const Vec3* x, const Vec3* d, const uint8_t* active, Vec3& residual,
                       float& diagonal) {
  global_row_from(
      c, l, nb, s, x, active, d + static_cast<size_t>(l) * c.slots,
      [&](uint32_t k, uint32_t i) -> const Vec3* {
        const uint32_t slot = back ? back[nb.slot_index(l, k)] : nb.slot_of(i, l);
        return slot == 0xFFFFFFFFu ? nullptr : d + static_cast<size_t>(i) * c.slots + 1 + slot;
      },
      residual, diagonal);
}

// The constraints' displacements kept by the particle that receives them:
// received[l * slots] is constraint l's d_0 (particle l's own), and
// received[l * slots + 1 + k] what the constraint of l's k-th neighbour i
// gives l, where i's list holds l. A global row then reads one particle's
// slots in a row, where the layout by constraint (global_row()'s d) takes
// one value from each neighbour's constraint. receive_displacements()
// writes constraint i's displacements d[0 .. count] there, with `back` as
// fill_back_slots() gives it (no two constraints write one slot).
PBF_HD void receive_displacements(const ProjectiveConstants& c, uint32_t i, const NeighborLists& nb,
                                  const uint32_t* back, const Vec3* d, Vec3* received) {
  received[static_cast<size_t>(i) * c.slots] = d[0];
  nb.for_each_slot(i, [&](uint32_t k, uint32_t j) {
    const uint32_t slot = back[nb.slot_index(i, k)];
    if (slot != 0xFFFFFFFFu) received[static_cast<size_t>(j) * c.slots + 1 + slot] = d[1 + k];
  });
}

// global_row() from the displacements as receive_displacements() keeps
// them: the same terms added in the same order, so the same row.
PBF_HD void global_row_received(const ProjectiveConstants& c, uint32_t l, const NeighborLists& nb,
                                const uint32_t* back, const Vec3* s, const Vec3* x, const Vec3* received,
                                const uint8_t* active, Vec3& residual, float& diagonal) {
  const Vec3* row = received + static_cast<size_t>(l) * c.slots;
  global_row_from(
      c, l, nb, s, x, active, row,
      [&](uint32_t k, uint32_t) -> const Vec3* {
        return back[nb.slot_index(l, k)] == 0xFFFFFFFFu ? nullptr : row + 1 + k;
      },
      residual, diagonal);
}

// The global step's correction of particle l from its row of eq. 5
// (global_row()): A is diagonal, so A delta = r is solved row by row,
// delta_l = r_l / A_ll, exact up to float round-off (a relative residual of
// about 1e-7). Written as r * (1 / A_ll), the Jacobi-preconditioned residual
// that the first conjugate-gradient iteration scales by its step length
// alpha: where alpha rounds to 1 (it does but for float round-off of its
// sums), one CG iteration gives these bits.
PBF_HD Vec3 global_correction(Vec3 residual, float diagonal) { return residual * (1.0f / diagonal); }

// The diagonal A_ll of every row that some compressed constraint holds
// (global_row()).
PBF_HD float held_diagonal(const ProjectiveConstants& c) { return c.inertia + c.stiffness * c.rest_members; }

// The weight of constraint l in the added mass of the bodies whose samples
// push particle l (core/obstacle.h, for_each_added_mass_term(); docs/PHYSICS.md
// §13): the global step moves l by -share s g, share = omega w / A_ll, with
// s the local step's step_sum and g the samples' part of grad_l C_l. A body's
// motion u changes C_l by -g . u, so s by -g . u / D, D the constraint's
// sum of squared gradients (its Newton step's |u|^2, D = C / s with C the
// compression the projection started from): the push changes by
// share (g . u / D) g, an added mass m share g g^T / D, which is
// weight d d^T for weight = 1 / (share s^2 D) = 1 / (share s C). Zero where
// the constraint pushes nothing.
PBF_HD float projective_coupling_weight(const ProjectiveConstants& c, float compression, float step_sum,
                                        float diagonal, float omega) {
  const float product = (c.stiffness / diagonal) * omega * step_sum * compression;
  return product > 1e-30f ? 1.0f / product : 0.0f;
}

// What the samples of each obstacle move particle l by in one global step,
// to push.add() (core/obstacle.h). The samples enter constraint l alone
// (the only one whose centre they reach), where the Newton steps moved l by
// -sum_s s grad_b / rho0: their share of d[0], the one part of a
// constraint's displacements that does not sum to zero over its members.
// The global step moves l by w / A_ll times its constraints' displacements,
// and the Chebyshev extrapolation by omega times that. The gradient is taken
// at the iterate, where the local step's first Newton step took it. Summed
// over the iterations, as PBF sums its corrections, these pushes and the
// collisions' are what the obstacle did to the water in the substep: the
// rest of the step moves no momentum (global_row()).
// Each push carries its constraint's weight in the bodies' added mass
// (projective_coupling_weight(), from the compression the projection
// started from) where the sink sums it (push.couples()).
template <class Push>
PBF_HD void obstacle_sample_push(const ProjectiveConstants& c, const BoundarySamples& boundary, Vec3 at,
                                 float step_sum, float compression, float diagonal, float omega, Push& push) {
  if (!(step_sum > 0.0f)) return;
  const float inv_rho0 = c.mass_over_rho0 / c.mass;
  boundary_push(c.kernel, boundary, at, -step_sum * inv_rho0 * (c.stiffness / diagonal) * omega, push,
                push.couples() ? projective_coupling_weight(c, compression, step_sum, diagonal, omega) : 0.0f);
}

// What the water gives back where dynamic bodies yielded after a global step
// (BodySubstep, docs/PHYSICS.md §13), in a round of the yield from `before`
// to `moved` (indexed by obstacle: the rounds' totals, zero before the first
// and for those that did not yield): particle l at p, whose constraint the
// local step projected from `compression` by `step_sum` and whose global
// step (Chebyshev weight omega) its samples pushed as if the bodies could
// not move (obstacle_sample_push()). A body's motion u (at p) lowers the
// constraint's step by g . u / D (projective_coupling_weight()), so the
// particle gives back share (g . u / D) g of its push, never more than the
// push (the step stays at least 0: the constraint is unilateral). Each
// body's part goes to push_relief(). Returns the particle's displacement.
template <class Push>
PBF_HD Vec3 projective_body_yield_relief(const ProjectiveConstants& c, Vec3 p, float compression, float step_sum,
                                         float omega, const BoundarySamples& boundary, const BodyYield* before,
                                         const BodyYield* moved, Push& push) {
  if (!(step_sum > 0.0f) || !(compression > 0.0f)) return Vec3{0.0f, 0.0f, 0.0f};
  const float share = (c.stiffness / held_diagonal(c)) * omega;
  const float inverse_denominator = step_sum / compression;  // 1 / D
  return body_relief_with(CubicSpline{c.kernel}, boundary, p, c.mass_over_rho0 / c.mass, share, inverse_denominator,
                          step_sum, before, moved, push);
}

// The global step of particle l before collisions: the solution y of eq. 5
// from the iterate y_k, then the Chebyshev extrapolation
// y_k-1 + omega (y - y_k-1) from the previous iterate `previous` (omega = 1:
// none), both measured from one origin (`iterate` is y_k from it; the
// result too). `at` is where the particle is, for the obstacles' samples.
// Reads only particle l's iterate, so a backend may write the result over
// it in the same pass. `step_sum` (per constraint, the local step's
// Projection::step_sum) gives the obstacles' samples' part of the motion to
// `push` (obstacle_sample_push()).
//
// It takes particle l's row as given (global_row(), or global_row_received()
// on the CPU).
template <class Push>
PBF_HD Vec3 global_step_from_row(const ProjectiveConstants& c, uint32_t l, Vec3 residual, float diagonal,
                                 const BoundarySamples& boundary, Vec3 at, Vec3 iterate, const uint8_t* active,
                                 const float* step_sum, const float* compression, Vec3 previous, float omega,
                                 Push& push) {
  if (Push::kActive && active[l] && boundary_scan(boundary, l))
    obstacle_sample_push(c, boundary, at, step_sum[l], compression[l], diagonal, omega, push);
  const Vec3 solved = iterate + global_correction(residual, diagonal);
  return previous + (solved - previous) * omega;
}

// Particle l's global step from its row (global_step_from_row()), then its
// collisions: x[l] becomes the next iterate.
//
// The iterates are kept as displacements from the inertial target
// `target` (s_l): `offset` is the iterate's, `previous` the one that the
// next global step's Chebyshev extrapolation starts from. A position is
// rounded to a float of its own size (a unit in the last place is 6e-8 m at
// 0.5 m, 1.2e-7 m at 1.5 m), and a particle's change in an iteration near
// convergence is of that size: added to the position iteration after
// iteration, the changes under half a unit were lost, and since which are
// lost follows the flow, the water's momentum drifted the way obstacles
// pushed it (a box thrown into water: water and box kept their momentum to
// 1.1e-3 of the total, 2.7e-3 with the scene 1 m further from the origin,
// 1.3e-2 with the acceleration; docs/PHYSICS.md §12). A displacement is
// rounded to a float of its own, far smaller size, and the position
// x[l] = target + offset is rounded afresh each iteration, its loss not
// carried into the next.
//
// `previous` is the iterate this step started from, moved by what the
// obstacles did to l in this step (their samples' share and their
// collisions, as pushed), so that the extrapolation repeats the water's own
// motion and the walls' but never an obstacle's push: the pushes summed over
// the iterations are then the momentum each obstacle gave the water.
// (Repeated, with omega up to 1.39 at rho = 0.9, they moved the water further
// than the pushes said: a box held under water felt 57 % of its buoyancy.)
// Without obstacles `previous` is the iterate the step started from.
//
// The collisions keep the particle's collision record (core/obstacle.h) in
// *record and *obstacle where `record` is given (StepContext::bodies_couple),
// so that a body's yield can take back what its motion made unneeded.
template <class Push>
PBF_HD void global_step_particle(const ProjectiveConstants& c, const MotionConstants& motion, const Plane* planes,
                                 uint32_t plane_count, const Obstacle* obstacles, uint32_t obstacle_count, uint32_t l,
                                 Vec3 residual, float diagonal, const BoundarySamples& boundary, const uint8_t* active,
                                 const float* step_sum, const float* compression, Vec3 start, float omega,
                                 Vec3 target, Vec3* x, Vec3& offset, Vec3& previous, Push& push, Vec3* record,
                                 uint8_t* obstacle) {
  TalliedPush<Push> tallied{push, Vec3{0.0f, 0.0f, 0.0f}};
  const Vec3 moved = global_step_from_row(c, l, residual, diagonal, boundary, x[l], offset, active, step_sum,
                                          compression, previous, omega, tallied);
  const Vec3 at = target + moved;
  const Vec3 collided =
      collide_keeping(motion, planes, plane_count, obstacles, obstacle_count, at, start, tallied, record, obstacle);
  const Vec3 from = offset;
  offset = moved + (collided - at);
  x[l] = collided;
  previous = Push::kActive ? from + tallied.total : from;
}

// Largest stable substep by the CFL condition: a particle may travel
// cfl x spacing in one substep at `speed` [m/s]; at most max_dt.
inline float cfl_time_step(float cfl, float spacing, float speed, float max_dt) {
  if (!(speed > 0.0f)) return max_dt;
  const float dt = cfl * spacing / speed;
  return dt < max_dt ? dt : max_dt;
}

}  // namespace pbf
