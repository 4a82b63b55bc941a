// config.h - the backend-neutral description of a solver (fixed at creation),
// its tunable parameters, collision planes and step statistics.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace pbf {

enum class BackendKind : int { Auto = 0, Cpu = 1, Cuda = 2 };

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
};

// The most planes a user may add; a solver also has the domain's six walls.
constexpr uint32_t kMaxPlanes = 64;
constexpr uint32_t kDomainWalls = 6;

// A half space {x : dot(normal, x) + offset >= 0}, normal of unit length.
struct Plane {
  Vec3 normal;
  float offset;
};

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
};

}  // namespace pbf
