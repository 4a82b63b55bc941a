// config.h - the backend-neutral description of a solver (fixed at creation),
// its tunable parameters, collision planes and step statistics.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace pbf {

enum class BackendKind : int { Auto = 0, Cpu = 1, Cuda = 2 };

// The simulation method: Position Based Fluids (Macklin & Mueller 2013) or
// Projective Fluids (Weiler, Koschier & Bender 2016).
enum class Method : int { Pbf = 0, Projective = 1 };

// What a solver is created with; every automatic value already resolved.
struct SolverConfig {
  BackendKind backend = BackendKind::Cpu;
  int device_index = 0;
  uint32_t max_particles = 0;
  float particle_spacing = 0.0f;   // [m]
  float kernel_radius = 0.0f;      // h [m]
  float rest_density = 0.0f;       // [kg/m^3]
  Vec3 domain_min{0, 0, 0};        // [m]
  Vec3 domain_max{0, 0, 0};        // [m]
  int thread_count = 1;            // CPU worker threads
  uint32_t max_neighbors = 0;      // neighbour list capacity per particle
  Method method = Method::Pbf;
};

// Parameters that may change between steps (see pbf_params for meaning and ranges).
struct PbfParams {
  Vec3 gravity{0.0f, -9.81f, 0.0f};
  uint32_t iterations = 4;
  float relaxation = 0.01f;
  bool unilateral = true;
  float artificial_pressure_k = 0.1f;
  float artificial_pressure_n = 4.0f;
  float artificial_pressure_dq = 0.2f;
  float xsph_viscosity = 0.01f;
  float vorticity_epsilon = 0.01f;
  float restitution = 0.0f;
  float friction = 0.0f;
  float max_speed = 100.0f;
  // Projective Fluids only.
  float projective_stiffness = 1.0e6f;     // w [N/m]
  uint32_t projective_iterations = 30;     // local/global iterations per substep, at most
  float projective_tolerance = 1.0e-4f;    // mean compression that ends the iterations
  uint32_t cg_max_iterations = 100;
  float cg_tolerance = 1.0e-4f;            // residual reduction that ends a CG solve
  uint32_t newton_iterations = 5;          // per constraint projection, at most
  float newton_tolerance = 1.0e-5f;        // constraint value that ends a projection
  bool adaptive_dt = true;
  float projective_chebyshev_rho = 0.98f;  // spectral radius estimate; 0 = plain alternation
  float cfl_number = 0.4f;
  float max_dt = 0.005f;                   // [s]
  // PBF: more density iterations than `iterations`, up to max_iterations, until the mean compression
  // an iteration starts from is at most density_tolerance (0: exactly `iterations`).
  float density_tolerance = 0.001f;
  uint32_t max_iterations = 20;
};

// The density iterations a PBF substep runs: at least `least`; past them, while
// the mean compression is above `tolerance` (negative: never checked), at most `most`.
struct DensityIterations {
  uint32_t least;
  uint32_t most;
  float tolerance;
};

inline DensityIterations density_iterations(const PbfParams& p) {
  if (!(p.density_tolerance > 0.0f)) return DensityIterations{p.iterations, p.iterations, -1.0f};
  return DensityIterations{p.iterations, p.max_iterations > p.iterations ? p.max_iterations : p.iterations,
                           p.density_tolerance};
}

// Ranges that keep every derived constant a finite, normal float (see
// docs/API.md "Numeric ranges"): with spacing and kernel radius in
// [1e-4, 5e3] m, h^9 and 1/h^9 of Poly6 lie within about 1e-36 .. 1e36; with
// rest density in [1e-3, 1e5] kg/m^3 the particle mass m ~ rho0 s^3 lies in
// 1e-15 .. 1e14 kg; a substep of at least 1e-9 s keeps 1/dt <= 1e9 and m/dt^2
// finite; speeds up to the speed of light square to 9e16 (vorticity and
// speed statistics square them); gravity of at most 1e6 m/s^2 (1e5 g) adds at
// most 1e7 m/s in a 10 s step.
constexpr float kMinParticleSpacing = 1.0e-4f;  // [m]
constexpr float kMaxParticleSpacing = 1.0e3f;   // [m]
constexpr float kMinRestDensity = 1.0e-3f;      // [kg/m^3]
constexpr float kMaxRestDensity = 1.0e5f;       // [kg/m^3]
constexpr float kMinSubstep = 1.0e-9f;          // dt / substeps [s]
// The most substeps one step takes when the CFL condition asks for more (pbf_solver_step's own limit).
constexpr uint32_t kMaxAdaptiveSubsteps = 1000;
// ... and at most this many times the substeps asked for, with either method: where speeds come from
// particles squeezed between walls, or from gravity the step's length itself adds, rather than from the
// flow, shorter substeps make the collisions' pushes faster still, and the split must not make such a
// step arbitrarily expensive.
constexpr uint32_t kMaxAdaptiveSplit = 32;
// The most substeps (PBF) or CFL steps (Projective Fluids) a step asked for in `asked` substeps takes.
constexpr uint32_t max_adaptive_substeps(uint32_t asked) {
  const uint64_t split = uint64_t{kMaxAdaptiveSplit} * asked;
  return split < kMaxAdaptiveSubsteps ? static_cast<uint32_t>(split) : kMaxAdaptiveSubsteps;
}
// Projective Fluids' global step weighs each particle's displacement by m/dt^2
// and sums squares of the result in float: m/dt^2 x spacing (a force [N]) at
// most this keeps them finite, so its steps are also at least
// sqrt(m x spacing / kMaxProjectiveInertialForce).
constexpr double kMaxProjectiveInertialForce = 1.0e17;  // [N]
constexpr float kMaxSpeedLimit = 3.0e8f;        // params.max_speed at most [m/s]
constexpr float kMaxGravity = 1.0e6f;           // each component of params.gravity at most [m/s^2]

// The most planes a user may add; a solver also has the domain's six walls.
constexpr uint32_t kMaxPlanes = 64;
constexpr uint32_t kDomainWalls = 6;

// A half space {x : dot(normal, x) + offset >= 0}, normal of unit length.
struct Plane {
  Vec3 normal;
  float offset;
};

// The signed distance dot(normal, p) + offset of p = (px, py, pz) from the
// plane (positive on its open side), in lanes of T (a float, or the CPU's
// lanes). Every test against a plane takes it from here, in this order of
// operations, so that a test made for many points at once in lanes decides
// as the one-point loop does.
template <class T>
PBF_HD T plane_distance(const Plane& plane, T px, T py, T pz) {
  const Vec3 n = plane.normal;
  return ((T(n.x) * px + T(n.y) * py) + T(n.z) * pz) + T(plane.offset);
}

// The particles inside a particle's kernel sphere at rest density (itself
// included): the volume of the sphere over a particle's. The automatic
// max_neighbors keeps room for 60 % more (splashes landing).
inline double particles_in_kernel_at_rest(float kernel_radius, float particle_spacing) {
  const double ratio = static_cast<double>(kernel_radius) / particle_spacing;
  return 4.0 / 3.0 * 3.14159265358979 * ratio * ratio * ratio;
}

// The compression max(rho / rho0 - 1, 0) of a density, given 1 / rho0: the
// density error the statistics and the density tolerance count (a lighter
// free-surface particle is not wrong). A NaN density stays NaN, so that the
// statistics show it.
PBF_HD float compression(float rho, float inv_rest_density) {
  const float e = rho * inv_rest_density - 1.0f;
  return e < 0.0f ? 0.0f : e;
}

// What one step did; times are summed over its substeps.
struct StepStats {
  uint32_t particle_count = 0;
  uint32_t substeps = 0;
  uint32_t iterations = 0;
  float avg_density_error = 0.0f;
  float max_density_error = 0.0f;
  float avg_neighbors = 0.0f;
  uint32_t max_neighbors = 0;
  uint32_t neighbor_overflows = 0;
  float max_speed = 0.0f;
  double time_total_ms = 0.0;
  double time_predict_ms = 0.0;
  double time_grid_ms = 0.0;
  double time_neighbors_ms = 0.0;
  double time_constraints_ms = 0.0;
  double time_velocity_ms = 0.0;
  double time_vorticity_viscosity_ms = 0.0;
  // Projective Fluids only (zero for PBF).
  uint32_t local_global_iterations = 0;  // summed over the substeps
  uint32_t cg_iterations = 0;            // summed over every CG solve of the step
  float cg_residual = 0.0f;              // relative residual of the last CG solve
  float min_substep_dt = 0.0f;           // [s]
  float max_substep_dt = 0.0f;           // [s]
  uint32_t density_iterations = 0;       // summed over the substeps (both methods)
  float compression_rate = 0.0f;         // PBF with adaptive_dt: pbf_compression_rate() [1/s^2]
  Vec3 lower{0.0f, 0.0f, 0.0f};          // the particles' bounding box in the device's frame [m]
  Vec3 upper{0.0f, 0.0f, 0.0f};          // (Backend::measure(); zero without particles)
};

}  // namespace pbf
