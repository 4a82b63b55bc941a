// pbf_equations.h - the per-particle equations of Position Based Fluids
// (Macklin & Mueller 2013), written once for every backend. PBF's stages on
// each backend (cpu/, cuda/) run each function for all particles in
// parallel; none writes to another particle, so the result does not depend
// on the order or the thread count. The motion it shares with Projective
// Fluids (prediction, collisions, the velocity update) is core/motion.h.
#pragma once

#include <cmath>
#include <cstdint>

#include "boundary/boundary_equations.h"
#include "boundary/wall_density.h"
#include "core/config.h"
#include "core/hd.h"
#include "core/lattice.h"
#include "core/motion.h"
#include "core/neighbor_lists.h"
#include "core/obstacle.h"
#include "core/point_value.h"
#include "core/sph_kernels.h"

namespace pbf {

// Constants of one substep, derived from the solver's config and parameters:
// the motion every method shares (core/motion.h) and PBF's own.
struct PbfConstants : MotionConstants {
  KernelConstants kernel;
  float mass;               // particle mass [kg]
  float rest_density;       // rho0 [kg/m^3]
  float inv_rest_density;   // 1 / rho0
  float mass_over_rho0;     // m / rho0 [m^3]: the volume of a particle at rest
  float wall_calibration;   // DensityWalls::calibration of Poly6
  float cfm;                // epsilon of eq. 11 [1/m^2]
  float lambda_relaxation;  // omega, lambda's factor: density_sweep_relaxation() (core/lattice.h)
  float scorr_scale;        // k of eq. 13 divided by the rest gradient norm [m^2]
  float scorr_inv_wdq;      // 1 / W(dq)
  float scorr_n;            // n of eq. 13
  float scorr_w_min;        // the least W(r) / W(dq) given s_corr: 2^(-64 / n) (artificial_pressure())
  bool unilateral;          // clamp C_i to compression
  float xsph;               // c of eq. 17
  float vorticity;          // epsilon of eq. 16 [m/s]
};

// Particle mass so that the ideal lattice at `spacing` has density rho0,
// measured with PBF's density kernel, Poly6.
inline float pbf_particle_mass(const SolverConfig& config) {
  const KernelConstants k = KernelConstants::make(config.kernel_radius);
  return static_cast<float>(config.rest_density / lattice_sums(config.particle_spacing, k).sum_w);
}

// The substep and iteration count at which artificial pressure (eq. 13) and
// XSPH (eq. 17) act exactly as their parameters say: the paper's 4 substeps
// of a 1/60 s frame with 4 iterations.
constexpr double kReferenceSubstep = 1.0 / 240.0;  // [s]
constexpr double kReferenceIterations = 4.0;

// s_corr moves particles by a distance in every iteration, which acts on the
// velocity like a force of that distance / dt^2: at 16 substeps a tank swelled
// to 1.4 times its height. Scaled by (dt / dt_ref)^2 and by
// iterations_ref / iterations it pushes as hard per second at any substep and
// iteration count; above dt_ref and below iterations_ref it keeps the
// reference push, so that no sweep pushes harder than the paper's: one sweep
// pushing 4 sweeps' worth (1 iteration) threw the dam break's particles at
// 100 m/s (docs/PHYSICS.md §3).
inline double artificial_pressure_step_factor(double dt, uint32_t iterations) {
  const double r = dt / kReferenceSubstep;
  const double sweeps = static_cast<double>(iterations);
  return (r < 1.0 ? r * r : 1.0) * (sweeps > kReferenceIterations ? kReferenceIterations / sweeps : 1.0);
}

// 1 where artificial pressure's shape (dq, n) pushes a flat free surface of
// the lattice with a kernel of `ratio` spacings no harder than the defaults'
// (dq = 0.2, n = 4, 2 spacings) at the same k, else the factor that makes it
// as hard: k sets the strength, dq, n and the kernel only the shape. Without
// it dq = 0.9 (W(dq) small) multiplied every pair's s_corr by 10^7.
inline double artificial_pressure_kernel_factor(double ratio, float dq, float n) {
  if (ratio == 2.0 && dq == 0.2f && n == 4.0f) return 1.0;  // the defaults' shape itself
  static const double reference = surface_scorr_push(2.0, static_cast<double>(0.2f), 4.0);
  const double here = surface_scorr_push(ratio, static_cast<double>(dq), static_cast<double>(n));
  return here > reference ? reference / here : 1.0;
}

// XSPH blends a fraction c of the neighbours' velocity in per substep; as a
// rate that is 1 - (1 - c)^(dt / dt_ref), the same blend per second at any
// substep count.
inline float xsph_step_fraction(float c, double dt) {
  if (c <= 0.0f) return 0.0f;
  if (c >= 1.0f) return 1.0f;
  return static_cast<float>(1.0 - std::pow(1.0 - static_cast<double>(c), dt / kReferenceSubstep));
}

inline PbfConstants make_pbf_constants(const SolverConfig& config, const PbfParams& p, float dt) {
  PbfConstants c{};
  static_cast<MotionConstants&>(c) = make_motion_constants(config, p, dt);
  c.kernel = KernelConstants::make(config.kernel_radius);
  const LatticeSums lattice = lattice_sums(config.particle_spacing, c.kernel);
  c.rest_density = config.rest_density;
  c.mass = static_cast<float>(config.rest_density / lattice.sum_w);
  c.inv_rest_density = 1.0f / config.rest_density;
  c.mass_over_rho0 = c.mass * c.inv_rest_density;
  c.wall_calibration = static_cast<float>(wall_calibration(
      config.particle_spacing, config.kernel_radius, [&](float r2) { return poly6(c.kernel, r2); }, poly6_half_space));
  // sum_k |grad_k C_i|^2 of a particle at rest (eq. 8-9): the sum of
  // gradients vanishes by symmetry, leaving the neighbour terms.
  const double v = c.mass_over_rho0;
  const double rest_grad2 = v * v * lattice.sum_grad2;
  c.cfm = static_cast<float>(p.relaxation * rest_grad2);
  // Kernels wider than the default couple each constraint to more of its
  // neighbours' and their Jacobi sweeps would amplify short patterns
  // (docs/PHYSICS.md, "Kernel radius").
  const double ratio = static_cast<double>(config.kernel_radius) / config.particle_spacing;
  c.lambda_relaxation = static_cast<float>(density_sweep_relaxation(ratio, p.unilateral));
  // s_corr (eq. 13) enters beside lambda, which is C / |grad C|^2; scaling by
  // the rest norm makes k the size of the constraint violation it imitates.
  // On a free surface nothing opposes it, and a wider kernel sums it over
  // more neighbours nearer dq (as a larger dq or a smaller n weighs more of
  // them): there it pushes no harder than with the defaults' shape
  // (surface_scorr_push()).
  c.scorr_scale = static_cast<float>(p.artificial_pressure_k / rest_grad2 *
                                     artificial_pressure_step_factor(dt, p.iterations) *
                                     artificial_pressure_kernel_factor(ratio, p.artificial_pressure_dq,
                                                                       p.artificial_pressure_n));
  const float dq = p.artificial_pressure_dq * config.kernel_radius;
  c.scorr_inv_wdq = 1.0f / poly6(c.kernel, dq * dq);
  c.scorr_n = p.artificial_pressure_n;
  c.scorr_w_min = static_cast<float>(std::pow(2.0, -64.0 / static_cast<double>(p.artificial_pressure_n)));
  c.unilateral = p.unilateral;
  c.xsph = xsph_step_fraction(p.xsph_viscosity, dt);
  c.vorticity = p.vorticity_epsilon;
  return c;
}

// sum_j W_ij over the fluid neighbours j of i: eq. 2 without the self term and the mass.
PBF_HD float fluid_kernel_sum(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x) {
  const Vec3 xi = x[i];
  float sum = 0.0f;
  nb.for_each(i, [&](uint32_t j) { sum += poly6(c.kernel, length_squared(xi - x[j])); });
  return sum;
}

// SPH density (eq. 2) at particle i; the self term included.
PBF_HD float density(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x) {
  return c.mass * (poly6(c.kernel, 0.0f) + fluid_kernel_sum(c, i, nb, x));
}

// The planes of a substep that add density: those from `first` on (the
// solver leaves out the domain's walls when boundary particles sample them).
PBF_HD DensityWalls pbf_density_walls(const PbfConstants& c, const Plane* planes, uint32_t count, uint32_t first) {
  return DensityWalls{planes + first, count > first ? count - first : 0u, c.rest_density, c.wall_calibration,
                      1.0f / c.kernel.h};
}

// The density with static boundary samples (Akinci et al. 2012, eq. 6) and
// plane walls (wall_density.h): rho_i = m sum_j W_ij + sum_b psi_b W_ib + rho_walls,
// from the fluid's fluid_kernel_sum().
PBF_HD float density(const PbfConstants& c, uint32_t i, float fluid_sum, const Vec3* x,
                     const BoundarySamples& boundary, const DensityWalls& walls) {
  float rho = c.mass * (poly6(c.kernel, 0.0f) + fluid_sum);
  if (boundary_scan(boundary, i)) rho += boundary_density(c.kernel, boundary, x[i]);
  float rho_w;
  Vec3 unused;
  wall_density_gradient<false>(walls, x[i], rho_w, unused);
  return rho + rho_w;
}

PBF_HD float density(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                     const BoundarySamples& boundary, const DensityWalls& walls) {
  return density(c, i, fluid_kernel_sum(c, i, nb, x), x, boundary, walls);
}

// The Spiky gradient grad_i W(x_i - x_j) of the pair (i, j), r = x_i - x_j.
// Where two particles coincide (r = 0) the gradient has no direction; there
// the pair gets an antisymmetric direction drawn from its two indices, with
// the gradient's limit magnitude. Without it coincident particles (which
// collisions make: several particles pushed into a corner land on the same
// point) would see equal neighbourhoods, get equal corrections and stay one
// point forever, with a density that no iteration can lower.
PBF_HD Vec3 pair_gradient(const KernelConstants& k, Vec3 r, float r2, uint32_t i, uint32_t j) {
  if (r2 > 0.0f) return r * spiky_gradient_scale(k, r2);
  const uint32_t lo = i < j ? i : j, hi = i < j ? j : i;
  uint32_t h = lo * 0x9E3779B1u ^ (hi * 0x85EBCA77u + 0x165667B1u);
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  const Vec3 u{static_cast<float>(h & 1023u) - 511.5f, static_cast<float>((h >> 10) & 1023u) - 511.5f,
               static_cast<float>((h >> 20) & 1023u) - 511.5f};
  const float sign = i < j ? 1.0f : -1.0f;
  return u * (sign * k.spiky_grad * k.h2 / length(u));
}

// The fluid neighbours' part of the sums behind eq. 2 and eq. 8-11, in
// lanes of T (core/sph_kernels.h): one neighbour per lane.
template <class T, class V>
struct FluidDensitySums {
  T w;      // sum_j W_ij, the self term excluded
  V grad;   // sum_j -grad_{p_j} C_i = (m / rho0) sum_j grad W_ij
  T grad2;  // sum_j |grad_{p_j} C_i|^2
};

// Adds the pair (i, j) at squared distance r2 with the kernel gradient g
// (pair_gradient()) to the sums.
template <class T, class V>
PBF_HD void add_density_pair(const PbfConstants& c, T r2, V g, FluidDensitySums<T, V>& s) {
  s.w += poly6(c.kernel, r2);
  g = g * T(c.mass_over_rho0);  // -grad_{p_j} C_i
  s.grad += g;
  s.grad2 += length_squared(g);
}

// The sums over the fluid neighbours of i, one neighbour at a time.
PBF_HD FluidDensitySums<float, Vec3> fluid_density_sums(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                                        const Vec3* x) {
  const Vec3 xi = x[i];
  FluidDensitySums<float, Vec3> s{0.0f, Vec3{0.0f, 0.0f, 0.0f}, 0.0f};
  nb.for_each(i, [&](uint32_t j) {
    const Vec3 r = xi - x[j];
    const float r2 = length_squared(r);
    add_density_pair(c, r2, pair_gradient(c.kernel, r, r2, i, j), s);
  });
  return s;
}

// Density (eq. 2), constraint C_i = rho_i / rho0 - 1 (eq. 1) and its scaling
// factor lambda_i (eq. 11) with gradients from eq. 8, from the fluid sums.
//
// With boundary samples (Akinci et al. 2012) the density gains
// sum_b psi_b W_ib and the gradient with respect to x_i gains
// (1/rho0) sum_b psi_b grad W_ib; the samples do not move, so they add no
// gradient of their own to the denominator. Plane walls (wall_density.h)
// add their density and gradient the same way.
//
// density_lambda_given_boundary() takes the samples' density rho_b and
// gradient grad_b at x_i as boundary_density_gradient() gave them, zero
// where no sample is near (a backend may keep grad_b for
// boundary_correction_given() at the same point).
PBF_HD void density_lambda_given_boundary(const PbfConstants& c, const FluidDensitySums<float, Vec3>& fluid, Vec3 xi,
                                          float rho_b, Vec3 grad_b, const DensityWalls& walls, float& rho_out,
                                          float& lambda_out) {
  Vec3 grad_i = fluid.grad + grad_b * c.inv_rest_density;
  float rho_w;
  Vec3 grad_w;
  wall_density_gradient<false>(walls, xi, rho_w, grad_w);
  grad_i += grad_w * c.inv_rest_density;
  const float rho = c.mass * (poly6(c.kernel, 0.0f) + fluid.w) + rho_b + rho_w;
  float constraint = rho * c.inv_rest_density - 1.0f;
  // Written as a select, not a branch on the sign: which particles are
  // compressed is no pattern a processor predicts (about 5 % of the CPU's
  // density iterations).
  const float compressed = constraint < 0.0f ? 0.0f : constraint;
  if (c.unilateral) constraint = compressed;
  rho_out = rho;
  // Without relaxation (cfm 0) a particle with no neighbour and no wall near has no gradient at
  // all: nothing moves it along one, and lambda is 0, not -C / 0 (NaN, which reached its
  // neighbours' corrections).
  const float denominator = fluid.grad2 + length_squared(grad_i) + c.cfm;
  lambda_out = denominator > 0.0f ? -(c.lambda_relaxation * constraint) / denominator : 0.0f;
}

// With `keep_grad`, the samples' gradient at a particle near them is also
// written to keep_grad[i], for boundary_correction_given() at the same point.
PBF_HD void density_lambda(const PbfConstants& c, uint32_t i, const FluidDensitySums<float, Vec3>& fluid,
                           const Vec3* x, const BoundarySamples& boundary, const DensityWalls& walls, float& rho_out,
                           float& lambda_out, Vec3* keep_grad = nullptr) {
  const Vec3 xi = x[i];
  float rho_b = 0.0f;
  Vec3 grad_b{0.0f, 0.0f, 0.0f};
  if (boundary_scan(boundary, i)) {
    boundary_density_gradient(c.kernel, boundary, xi, rho_b, grad_b);
    if (keep_grad) keep_grad[i] = grad_b;
  }
  density_lambda_given_boundary(c, fluid, xi, rho_b, grad_b, walls, rho_out, lambda_out);
}

PBF_HD void density_lambda(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                           const BoundarySamples& boundary, const DensityWalls& walls, float& rho_out,
                           float& lambda_out) {
  density_lambda(c, i, fluid_density_sums(c, i, nb, x), x, boundary, walls, rho_out, lambda_out);
}

// Density and lambda without boundary samples or walls.
PBF_HD void density_lambda(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                           float& rho_out, float& lambda_out) {
  density_lambda(c, i, nb, x, BoundarySamples{}, DensityWalls{}, rho_out, lambda_out);
}

// Artificial pressure s_corr = -k (W(r) / W(dq))^n (eq. 13), in units of lambda.
// A pair whose (W(r) / W(dq))^n would be under 2^-64 (the outer percent or
// so of the kernel's radius for n = 4) gets none: such a term is far below
// what a float holds beside lambda, and its powers run into subnormal
// floats, which x86 processors multiply in microcode (about a fifth of the
// CPU's constraint time went to them). No term that counts is changed.
template <class T>
PBF_HD T artificial_pressure(const PbfConstants& c, T r2) {
  if (c.scorr_scale <= 0.0f) return T(0.0f);
  const T ratio = poly6(c.kernel, r2) * T(c.scorr_inv_wdq);
  const T w = select(ratio < c.scorr_w_min, T(0.0f), ratio);
  const T wn = (c.scorr_n == 4.0f) ? (w * w) * (w * w) : power(w, c.scorr_n);
  return T(-c.scorr_scale) * wn;
}

// The pair (i, j)'s term of eq. 12 with s_corr (eq. 14), from its kernel
// gradient g (pair_gradient()) and squared distance r2.
template <class T, class V>
PBF_HD V correction_pair_term(const PbfConstants& c, T r2, V g, T lambda_i, T lambda_j) {
  return g * (lambda_i + lambda_j + artificial_pressure(c, r2));
}

// Position correction dp_i (eq. 12 with s_corr of eq. 14), with particle j's
// point and lambda from point_lambda(j) (a PointValue).
template <class PointLambda>
PBF_HD Vec3 position_correction_of(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                   PointLambda point_lambda) {
  const PointValue own = point_lambda(i);
  Vec3 dp{0.0f, 0.0f, 0.0f};
  nb.for_each(i, [&](uint32_t j) {
    const PointValue q = point_lambda(j);
    const Vec3 r = own.p - q.p;
    const float r2 = length_squared(r);
    if (r2 >= c.kernel.h2) return;
    dp += correction_pair_term(c, r2, pair_gradient(c.kernel, r, r2, i, j), own.value, q.value);
  });
  return dp * c.mass_over_rho0;
}

// Position correction dp_i (eq. 12 with s_corr of eq. 14).
PBF_HD Vec3 position_correction(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                const Vec3* x, const float* lambda) {
  return position_correction_of(c, i, nb, [&](uint32_t j) { return PointValue{x[j], lambda[j]}; });
}

// The same with each particle's point and lambda packed together (one load a
// neighbour: the CUDA stages').
PBF_HD Vec3 position_correction(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                const PointValue* x_lambda) {
  return position_correction_of(c, i, nb, [&](uint32_t j) { return x_lambda[j]; });
}

// The weight of particle i's density constraint in the added mass of the
// bodies it pushes (core/obstacle.h, for_each_added_mass_term()):
// 1 / (lambda^2 D), with D the constraint's denominator, from
// lambda = -omega C / D: -1 / (omega C lambda). Zero where the constraint
// pushes nothing (C or lambda zero).
PBF_HD float coupling_weight(const PbfConstants& c, float rho_i, float lambda_i) {
  float constraint = rho_i * c.inv_rest_density - 1.0f;
  if (c.unilateral) constraint = constraint < 0.0f ? 0.0f : constraint;
  const float product = c.lambda_relaxation * constraint * lambda_i;
  return product < -1e-30f ? -1.0f / product : 0.0f;
}

// The part of the position correction that static boundary samples and plane
// walls give: the step along the boundary part of grad_i C_i,
// (lambda_i / rho0) (sum_b psi_b grad W_ib + grad rho_walls). A sample or a
// wall has no lambda of its own and does not move, so the pair is not
// symmetrised and gets no s_corr. The part each obstacle's samples give goes
// to `push` (core/obstacle.h), with the constraint's weight in the
// obstacles' added mass (coupling_weight(), from the density rho_i that
// gave lambda_i).
//
// boundary_correction_given() takes the samples' gradient sum_b psi_b
// grad W_ib at x_i as boundary_density_gradient() gave it where `near` (the
// CPU keeps the one that density_lambda_given_boundary() took at the same
// point); without, the samples are not summed.
template <class Push>
PBF_HD Vec3 boundary_correction_given(const PbfConstants& c, Vec3 xi, float lambda_i, float rho_i, bool near,
                                      Vec3 grad_b, const BoundarySamples& boundary, const DensityWalls& walls,
                                      Push& push) {
  float rho_w;
  Vec3 grad;
  wall_density_gradient<false>(walls, xi, rho_w, grad);
  const float scale = lambda_i * c.inv_rest_density;
  if (near) {
    grad += grad_b;
    if (Push::kActive)
      boundary_push(c.kernel, boundary, xi, scale, push, push.couples() ? coupling_weight(c, rho_i, lambda_i) : 0.0f);
  }
  return grad * scale;
}

template <class Push>
PBF_HD Vec3 boundary_correction(const PbfConstants& c, uint32_t i, const Vec3* x, const float* lambda,
                                const BoundarySamples& boundary, const DensityWalls& walls, Push& push) {
  const bool near = boundary_scan(boundary, i);
  float rho_b = 0.0f;
  Vec3 grad_b{0.0f, 0.0f, 0.0f};
  if (near) boundary_density_gradient(c.kernel, boundary, x[i], rho_b, grad_b);
  // No density at hand: the pushes carry no added mass.
  return boundary_correction_given(c, x[i], lambda[i], 0.0f, near, grad_b, boundary, walls, push);
}

// What the water gives back where dynamic bodies yielded after an iteration
// (BodySubstep, docs/PHYSICS.md §13), in a round of the yield from `before`
// to `moved` (indexed by obstacle: the rounds' totals, zero before the
// first and for those that did not yield): the correction of particle i,
// made at p with lambda_i from the density rho_i, pushed each body's samples
// away as if the body could not move. A body's motion u (at p) changes C_i
// by -g . u (g = sum_b psi_b grad W(p - x_b) / rho0 over its samples), so
// the joint solve of the body's motion with the constraint has lambda_i
// larger by g . u / D, and the particle gives back (g . u / D) g of its push
// (never more than the push where the constraint is unilateral: lambda_i
// stays at most 0). Each body's part goes to push_relief(). Returns the
// particle's displacement.
template <class Push>
PBF_HD Vec3 body_yield_relief(const PbfConstants& c, Vec3 p, float lambda_i, float rho_i,
                              const BoundarySamples& boundary, const BodyYield* before, const BodyYield* moved,
                              Push& push) {
  const float weight = coupling_weight(c, rho_i, lambda_i);
  if (!(weight > 0.0f)) return Vec3{0.0f, 0.0f, 0.0f};
  const float inverse_denominator = lambda_i * lambda_i * weight;  // 1 / D
  return body_relief_with(Poly6Spiky{c.kernel}, boundary, p, c.inv_rest_density, 1.0f, inverse_denominator,
                          c.unilateral ? -lambda_i : INFINITY, before, moved, push);
}

// Position correction with static boundary samples and plane walls: the
// fluid part of eq. 12 plus the boundary part.
template <class Push>
PBF_HD Vec3 position_correction(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                                const float* lambda, const BoundarySamples& boundary, const DensityWalls& walls,
                                Push& push) {
  return position_correction(c, i, nb, x, lambda) + boundary_correction(c, i, x, lambda, boundary, walls, push);
}

PBF_HD Vec3 position_correction(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                                const float* lambda, const BoundarySamples& boundary, const DensityWalls& walls) {
  NoPush none;
  return position_correction(c, i, nb, x, lambda, boundary, walls, none);
}

// The pair (i, j)'s term of the vorticity (eq. 15): V_j grad W_ij x (v_j - v_i),
// with r = x_i - x_j, r2 = |r|^2, dv = v_j - v_i and V_j = m / rho_j.
template <class T, class V>
PBF_HD V vorticity_pair_term(const PbfConstants& c, V r, T r2, V dv, T volume_j) {
  return cross(r * spiky_gradient_scale(c.kernel, r2), dv) * volume_j;
}

// The pair's term of eta = grad |omega| (eq. 16), from |omega_j| - |omega_i|.
template <class T, class V>
PBF_HD V confinement_pair_term(const PbfConstants& c, V r, T r2, T volume_j, T omega_difference) {
  return r * (spiky_gradient_scale(c.kernel, r2) * (volume_j * omega_difference));
}

// The pair's term of XSPH (eq. 17): (v_j - v_i) V_j W_ij.
template <class T, class V>
PBF_HD V viscosity_pair_term(const PbfConstants& c, T r2, V dv, T volume_j) {
  return dv * (volume_j * poly6(c.kernel, r2));
}

// Vorticity omega_i (eq. 15) as the SPH curl: sum_j V_j grad W_ij x (v_j - v_i).
PBF_HD Vec3 vorticity(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                      const Vec3* v, const float* rho) {
  const Vec3 xi = x[i];
  const Vec3 vi = v[i];
  Vec3 w{0.0f, 0.0f, 0.0f};
  nb.for_each(i, [&](uint32_t j) {
    const Vec3 r = xi - x[j];
    w += vorticity_pair_term(c, r, length_squared(r), v[j] - vi, c.mass / rho[j]);
  });
  return w;
}

// The sums of vorticity confinement (eta of eq. 16) and XSPH (eq. 17) over the
// neighbours of i.
struct VorticityViscositySums {
  Vec3 eta;    // sum_j V_j (|omega_j| - |omega_i|) grad W_ij
  Vec3 blend;  // sum_j V_j W_ij (v_j - v_i)
};

PBF_HD VorticityViscositySums vorticity_viscosity_sums(const PbfConstants& c, uint32_t i, const NeighborLists& nb,
                                                       const Vec3* x, const Vec3* v, const float* rho,
                                                       const Vec3* omega) {
  const Vec3 xi = x[i];
  const Vec3 vi = v[i];
  const float wi = c.vorticity > 0.0f ? length(omega[i]) : 0.0f;
  VorticityViscositySums s{Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.0f, 0.0f, 0.0f}};
  nb.for_each(i, [&](uint32_t j) {
    const Vec3 r = xi - x[j];
    const float r2 = length_squared(r);
    const float volume = c.mass / rho[j];
    if (c.vorticity > 0.0f) s.eta += confinement_pair_term(c, r, r2, volume, length(omega[j]) - wi);
    if (c.xsph > 0.0f) s.blend += viscosity_pair_term(c, r2, v[j] - vi, volume);
  });
  return s;
}

// New velocity after vorticity confinement (eq. 16) and XSPH viscosity
// (eq. 17), both from the same old velocities (Jacobi), from the sums.
// `omega` is read only where c.vorticity > 0 (may be null otherwise).
PBF_HD Vec3 vorticity_viscosity(const PbfConstants& c, uint32_t i, const VorticityViscositySums& s, const Vec3* v,
                                const Vec3* omega) {
  Vec3 result = v[i] + s.blend * c.xsph;
  const float eta_len = length(s.eta);
  if (c.vorticity > 0.0f && eta_len > 1e-12f) {
    const Vec3 n = s.eta * (1.0f / eta_len);
    result += cross(n, omega[i]) * (c.vorticity * c.dt);
  }
  return clamp_speed(result, c.max_speed);
}

// The same, summing over the neighbours.
PBF_HD Vec3 vorticity_viscosity(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                                const Vec3* v, const float* rho, const Vec3* omega) {
  return vorticity_viscosity(c, i, vorticity_viscosity_sums(c, i, nb, x, v, rho, omega), v, omega);
}

}  // namespace pbf
