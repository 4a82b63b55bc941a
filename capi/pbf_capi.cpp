// pbf_capi.cpp - the C API: checks every argument, converts between the C
// structs and the C++ core, and never lets an exception through.
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "capi/capi_guard.h"
#include "capi/capi_solver.h"
#include "capi/capi_struct_size.h"
#include "io/checkpoint.h"
#include "io/ply_writer.h"
#include "pbf/pbf.h"
#include "solver/solver.h"

namespace pbf::capi {

void require_idle(const pbf_solver* solver) {
  if (solver->started.load(std::memory_order_acquire))
    reject(PBF_ERROR_BUSY, "solver is running an asynchronous step; call pbf_solver_wait() first");
}

void require_obstacle_index(const pbf_solver* solver, uint32_t index) {
  const uint32_t count = solver->impl.obstacle_count();
  if (index >= count)
    reject(PBF_ERROR_INVALID_ARGUMENT,
           "index " + describe(index) + " names no obstacle; the solver holds " + describe(count));
}

void require_boundary_room(const pbf_solver* solver, size_t n, const std::string& adding) {
  const size_t held = solver->impl.boundary_particle_count();
  if (n > PBF_MAX_BOUNDARY_PARTICLES - std::min<size_t>(PBF_MAX_BOUNDARY_PARTICLES, held))
    reject(PBF_ERROR_CAPACITY_EXCEEDED, adding + " and the " + describe(held) +
                                            " boundary particles held would exceed PBF_MAX_BOUNDARY_PARTICLES (" +
                                            describe(PBF_MAX_BOUNDARY_PARTICLES) + ")");
}

void require_unmapped(const pbf_solver* solver) {
  static const char* const names[3] = {"positions", "velocities", "densities"};
  for (int f = 0; f < 3; ++f)
    if (solver->mapped[f])
      reject(PBF_ERROR_BUSY, std::string("solver: its ") + names[f] +
                                 " are mapped; call pbf_solver_unmap() before changing particles");
}

void require_step_arguments(const pbf_solver* solver, float dt, uint32_t substeps) {
  require_positive(dt, "dt");
  if (dt > 10.0f) reject(PBF_ERROR_INVALID_ARGUMENT, "dt must be at most 10 s, got " + describe(dt));
  if (substeps < 1 || substeps > 1000)
    reject(PBF_ERROR_INVALID_ARGUMENT, "substeps must be in [1, 1000], got " + describe(substeps));
  // Below it 1/dt, the velocities (x* - x) / dt and m / dt^2 would leave float range.
  const float shortest = solver->impl.min_substep();
  if (!(dt / static_cast<float>(substeps) >= shortest)) {
    const std::string why =
        shortest > kMinSubstep
            ? " for this solver (Projective Fluids needs particle mass x particle_spacing / dt^2 <= 1e17 N)"
            : "";
    reject(PBF_ERROR_INVALID_ARGUMENT, "dt / substeps must be at least " + describe(shortest) + " s" + why +
                                           ", got dt " + describe(dt) + " s in " + describe(substeps) + " substeps");
  }
}

void require_vec3_finite(const float v[3], const std::string& name) {
  for (int a = 0; a < 3; ++a) require_finite(v[a], name + "[" + std::to_string(a) + "]");
}

void read_pose(const float rotation[4], const float translation[3], float q[4], Vec3& t) {
  if (rotation) {
    double norm = 0.0;
    for (int k = 0; k < 4; ++k) {
      if (!std::isfinite(rotation[k]))
        reject(PBF_ERROR_INVALID_ARGUMENT,
               "rotation[" + std::to_string(k) + "] must be finite, got " + describe(rotation[k]));
      norm += double(rotation[k]) * rotation[k];
    }
    if (!(norm > 0.0)) reject(PBF_ERROR_INVALID_ARGUMENT, "rotation must be a non-zero quaternion, got (0, 0, 0, 0)");
    for (int k = 0; k < 4; ++k) q[k] = rotation[k];
  }
  if (translation) {
    require_vec3_finite(translation, "translation");
    t = Vec3{translation[0], translation[1], translation[2]};
  }
}

namespace {

thread_local std::string t_last_error;

Vec3 to_vec3(const float v[3]) { return Vec3{v[0], v[1], v[2]}; }
void from_vec3(Vec3 v, float out[3]) {
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
}

bool valid_backend(pbf_backend b) {
  return b == PBF_BACKEND_AUTO || b == PBF_BACKEND_CPU || b == PBF_BACKEND_CUDA;
}

bool valid_method(int m) { return m == PBF_METHOD_PBF || m == PBF_METHOD_PROJECTIVE; }

// `d` is in this version's layout (read_struct).
SolverConfig config_from(const pbf_solver_desc& d) {
  if (!valid_backend(d.backend))
    reject(PBF_ERROR_INVALID_ARGUMENT,
           "desc->backend has the value " + describe(static_cast<int>(d.backend)) + ", not a pbf_backend");
  if (d.device_index < 0)
    reject(PBF_ERROR_INVALID_ARGUMENT, "desc->device_index must be >= 0, got " + describe(d.device_index));
  if (d.max_particles < 1 || d.max_particles > (1u << 28))
    reject(PBF_ERROR_INVALID_ARGUMENT,
           "desc->max_particles must be in [1, 268435456], got " + describe(d.max_particles));
  require_in_range(d.particle_spacing, kMinParticleSpacing, kMaxParticleSpacing, "desc->particle_spacing");
  require_finite(d.kernel_radius, "desc->kernel_radius");
  if (d.kernel_radius != 0.0f &&
      (d.kernel_radius <= d.particle_spacing || d.kernel_radius > 5.0f * d.particle_spacing))
    reject(PBF_ERROR_INVALID_ARGUMENT,
           "desc->kernel_radius must be 0 (automatic) or greater than particle_spacing (" +
               describe(d.particle_spacing) + ") and at most 5 x particle_spacing, got " +
               describe(d.kernel_radius));
  require_in_range(d.rest_density, kMinRestDensity, kMaxRestDensity, "desc->rest_density");
  require_vec3_finite(d.domain_min, "desc->domain_min");
  require_vec3_finite(d.domain_max, "desc->domain_max");
  for (int a = 0; a < 3; ++a) {
    if (!(d.domain_max[a] - d.domain_min[a] >= 2.0f * d.particle_spacing))
      reject(PBF_ERROR_INVALID_ARGUMENT,
             "desc->domain_max[" + describe(a) + "] (" + describe(d.domain_max[a]) +
                 ") must exceed desc->domain_min[" + describe(a) + "] (" + describe(d.domain_min[a]) +
                 ") by at least two particle spacings");
  }
  if (d.thread_count < 0 || d.thread_count > 1024)
    reject(PBF_ERROR_INVALID_ARGUMENT, "desc->thread_count must be in [0, 1024], got " + describe(d.thread_count));
  if (d.max_neighbors != 0 && (d.max_neighbors < 8 || d.max_neighbors > 1024))
    reject(PBF_ERROR_INVALID_ARGUMENT,
           "desc->max_neighbors must be 0 (automatic) or in [8, 1024], got " + describe(d.max_neighbors));
  int method = 0;
  std::memcpy(&method, &d.method, sizeof method);
  if (!valid_method(method))
    reject(PBF_ERROR_INVALID_ARGUMENT,
           "desc->method has the value " + describe(method) + ", not a pbf_method (PBF_METHOD_PBF = 0, "
           "PBF_METHOD_PROJECTIVE = 1)");
  SolverConfig c;
  c.method = static_cast<Method>(method);
  c.backend = static_cast<BackendKind>(d.backend);
  c.device_index = d.device_index;
  c.max_particles = d.max_particles;
  c.particle_spacing = d.particle_spacing;
  c.kernel_radius = d.kernel_radius;
  c.rest_density = d.rest_density;
  c.domain_min = to_vec3(d.domain_min);
  c.domain_max = to_vec3(d.domain_max);
  c.thread_count = d.thread_count;
  c.max_neighbors = d.max_neighbors;
  return c;
}

// The largest projective_chebyshev_rho accepted. The weights tend to
// 2 / (1 + sqrt(1 - rho^2)) (1.67 here, 1.75 at 0.99), and a particle whose
// constraints let go of it coasts on 1 / (2 - omega) times its last move:
// above this particles left the water faster than twice its free fall, up
// to 100 m/s at 0.9999 (docs/PHYSICS.md §7), where the range ended until
// 2026-11-30.
constexpr float kTopChebyshevRho = 0.98f;
constexpr float kFormerTopChebyshevRho = 0.9999f;

// `p` is in this version's layout (read_struct).
PbfParams params_from(const pbf_params& p) {
  for (int a = 0; a < 3; ++a)
    require_in_range(p.gravity[a], -kMaxGravity, kMaxGravity, "params->gravity[" + std::to_string(a) + "]");
  if (p.iterations < 1 || p.iterations > 100)
    reject(PBF_ERROR_INVALID_ARGUMENT, "params->iterations must be in [1, 100], got " + describe(p.iterations));
  require_in_range(p.relaxation, 0.0f, 100.0f, "params->relaxation");
  if (p.unilateral != 0 && p.unilateral != 1)
    reject(PBF_ERROR_INVALID_ARGUMENT, "params->unilateral must be 0 or 1, got " + describe(p.unilateral));
  require_in_range(p.artificial_pressure_k, 0.0f, 1.0f, "params->artificial_pressure_k");
  require_in_range(p.artificial_pressure_n, 1.0f, 8.0f, "params->artificial_pressure_n");
  require_in_range(p.artificial_pressure_dq, 0.0f, 0.9f, "params->artificial_pressure_dq");
  require_in_range(p.xsph_viscosity, 0.0f, 1.0f, "params->xsph_viscosity");
  require_in_range(p.vorticity_epsilon, 0.0f, 10.0f, "params->vorticity_epsilon");
  require_in_range(p.restitution, 0.0f, 1.0f, "params->restitution");
  require_in_range(p.friction, 0.0f, 10.0f, "params->friction");
  require_positive(p.max_speed, "params->max_speed");
  if (p.max_speed > kMaxSpeedLimit)
    reject(PBF_ERROR_INVALID_ARGUMENT, "params->max_speed must be at most " + describe(kMaxSpeedLimit) +
                                           " m/s (the speed of light), got " + describe(p.max_speed));
  require_in_range(p.projective_stiffness, 1.0f, 1.0e9f, "params->projective_stiffness");
  if (p.projective_iterations < 1 || p.projective_iterations > 1000)
    reject(PBF_ERROR_INVALID_ARGUMENT,
           "params->projective_iterations must be in [1, 1000], got " + describe(p.projective_iterations));
  require_in_range(p.projective_tolerance, 0.0f, 1.0f, "params->projective_tolerance");
  if (p.cg_max_iterations < 1 || p.cg_max_iterations > 10000)
    reject(PBF_ERROR_INVALID_ARGUMENT,
           "params->cg_max_iterations must be in [1, 10000], got " + describe(p.cg_max_iterations));
  require_in_range(p.cg_tolerance, 0.0f, 1.0f, "params->cg_tolerance");
  if (!(p.cg_tolerance > 0.0f))
    reject(PBF_ERROR_INVALID_ARGUMENT, "params->cg_tolerance must be greater than 0, got " + describe(p.cg_tolerance));
  if (p.newton_iterations < 1 || p.newton_iterations > 100)
    reject(PBF_ERROR_INVALID_ARGUMENT,
           "params->newton_iterations must be in [1, 100], got " + describe(p.newton_iterations));
  require_in_range(p.newton_tolerance, 0.0f, 1.0f, "params->newton_tolerance");
  if (p.adaptive_dt != 0 && p.adaptive_dt != 1)
    reject(PBF_ERROR_INVALID_ARGUMENT, "params->adaptive_dt must be 0 or 1, got " + describe(p.adaptive_dt));
  require_in_range(p.cfl_number, 0.0f, 1.0f, "params->cfl_number");
  if (!(p.cfl_number > 0.0f))
    reject(PBF_ERROR_INVALID_ARGUMENT, "params->cfl_number must be greater than 0, got " + describe(p.cfl_number));
  require_in_range(p.max_dt, 1.0e-6f, 1.0f, "params->max_dt");
  require_in_range(p.projective_chebyshev_rho, 0.0f, kTopChebyshevRho, "params->projective_chebyshev_rho");
  require_in_range(p.density_tolerance, 0.0f, 1.0f, "params->density_tolerance");
  if (p.max_iterations < 1 || p.max_iterations > 1000)
    reject(PBF_ERROR_INVALID_ARGUMENT, "params->max_iterations must be in [1, 1000], got " + describe(p.max_iterations));
  PbfParams q;
  q.gravity = to_vec3(p.gravity);
  q.iterations = p.iterations;
  q.relaxation = p.relaxation;
  q.unilateral = p.unilateral != 0;
  q.artificial_pressure_k = p.artificial_pressure_k;
  q.artificial_pressure_n = p.artificial_pressure_n;
  q.artificial_pressure_dq = p.artificial_pressure_dq;
  q.xsph_viscosity = p.xsph_viscosity;
  q.vorticity_epsilon = p.vorticity_epsilon;
  q.restitution = p.restitution;
  q.friction = p.friction;
  q.max_speed = p.max_speed;
  q.projective_stiffness = p.projective_stiffness;
  q.projective_iterations = p.projective_iterations;
  q.projective_tolerance = p.projective_tolerance;
  q.cg_max_iterations = p.cg_max_iterations;
  q.cg_tolerance = p.cg_tolerance;
  q.newton_iterations = p.newton_iterations;
  q.newton_tolerance = p.newton_tolerance;
  q.adaptive_dt = p.adaptive_dt != 0;
  q.cfl_number = p.cfl_number;
  q.max_dt = p.max_dt;
  q.projective_chebyshev_rho = p.projective_chebyshev_rho;
  q.density_tolerance = p.density_tolerance;
  q.max_iterations = p.max_iterations;
  return q;
}

// The C form of parameters; out.struct_size is left as it is.
void copy_params(const PbfParams& p, pbf_params& out) {
  from_vec3(p.gravity, out.gravity);
  out.iterations = p.iterations;
  out.relaxation = p.relaxation;
  out.unilateral = p.unilateral ? 1 : 0;
  out.artificial_pressure_k = p.artificial_pressure_k;
  out.artificial_pressure_n = p.artificial_pressure_n;
  out.artificial_pressure_dq = p.artificial_pressure_dq;
  out.xsph_viscosity = p.xsph_viscosity;
  out.vorticity_epsilon = p.vorticity_epsilon;
  out.restitution = p.restitution;
  out.friction = p.friction;
  out.max_speed = p.max_speed;
  out.projective_stiffness = p.projective_stiffness;
  out.projective_iterations = p.projective_iterations;
  out.projective_tolerance = p.projective_tolerance;
  out.cg_max_iterations = p.cg_max_iterations;
  out.cg_tolerance = p.cg_tolerance;
  out.newton_iterations = p.newton_iterations;
  out.newton_tolerance = p.newton_tolerance;
  out.adaptive_dt = p.adaptive_dt ? 1 : 0;
  out.cfl_number = p.cfl_number;
  out.max_dt = p.max_dt;
  out.projective_chebyshev_rho = p.projective_chebyshev_rho;
  out.reserved = 0u;
  out.density_tolerance = p.density_tolerance;
  out.max_iterations = p.max_iterations;
}

// Positions must be finite and inside the domain; velocities finite.
void require_particles(const Solver& s, const float* values, size_t n, Field field, const char* name) {
  const SolverConfig& c = s.config();
  for (size_t i = 0; i < n; ++i) {
    const float* v = values + 3 * i;
    for (int a = 0; a < 3; ++a) {
      if (!std::isfinite(v[a]))
        reject(PBF_ERROR_INVALID_ARGUMENT, std::string(name) + "[" + describe(3 * i + a) + "] (particle " +
                                               describe(i) + ") must be finite, got " + describe(v[a]));
    }
    if (field != Field::Position) continue;
    const Vec3 p{v[0], v[1], v[2]};
    if (p.x < c.domain_min.x || p.y < c.domain_min.y || p.z < c.domain_min.z || p.x > c.domain_max.x ||
        p.y > c.domain_max.y || p.z > c.domain_max.z)
      reject(PBF_ERROR_INVALID_ARGUMENT, std::string(name) + ": particle " + describe(i) + " at (" + describe(p.x) +
                                             ", " + describe(p.y) + ", " + describe(p.z) +
                                             ") lies outside the domain");
  }
}

pbf_status get_field(const char* fn, const pbf_solver* solver, Field field, float* out, size_t capacity) {
  return guarded(fn, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    const size_t n = solver->impl.size();
    const size_t needed = (field == Field::Density ? 1 : 3) * n;
    if (needed == 0) return;
    require_not_null(out, "out");
    if (capacity < needed)
      reject(PBF_ERROR_BUFFER_TOO_SMALL, "capacity is " + describe(capacity) + " floats; " + describe(n) +
                                             " particles need " + describe(needed));
    solver->impl.read(field, out);
  });
}

pbf_status set_field(const char* fn, pbf_solver* solver, Field field, const float* in, size_t length,
                     const char* name) {
  return guarded(fn, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_unmapped(solver);
    const size_t n = solver->impl.size();
    if (length != 3 * n) {
      reject(length < 3 * n ? PBF_ERROR_BUFFER_TOO_SMALL : PBF_ERROR_INVALID_ARGUMENT,
             "length is " + describe(length) + " floats; the solver's " + describe(n) + " particles need exactly " +
                 describe(3 * n));
    }
    if (n == 0) return;
    require_not_null(in, name);
    require_particles(solver->impl, in, n, field, name);
    solver->impl.write(field, in);
  });
}

}  // namespace

pbf_status fail(const char* function, pbf_status status, const std::string& message) {
  try {
    t_last_error = std::string(function) + ": " + message;
  } catch (...) {
    // Out of memory while reporting: keep the previous message.
  }
  return status;
}

}  // namespace pbf::capi

using namespace pbf;
using namespace pbf::capi;

namespace {

// A vector into a caller's 3 floats, where the caller wants it (not NULL).
void store_vec3(Vec3 v, float* out) {
  if (!out) return;
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
}

}  // namespace

static_assert(PBF_MAX_BODY_SPEED == kMaxBodySpeed && PBF_MAX_BODY_SPIN == kMaxBodySpin,
              "the documented limits are the ones enforced");

extern "C" {

const char* pbf_last_error(void) { return t_last_error.c_str(); }

const char* pbf_status_string(pbf_status status) {
  switch (status) {
    case PBF_OK: return "PBF_OK";
    case PBF_ERROR_INVALID_ARGUMENT: return "PBF_ERROR_INVALID_ARGUMENT";
    case PBF_ERROR_NULL_POINTER: return "PBF_ERROR_NULL_POINTER";
    case PBF_ERROR_BUFFER_TOO_SMALL: return "PBF_ERROR_BUFFER_TOO_SMALL";
    case PBF_ERROR_CAPACITY_EXCEEDED: return "PBF_ERROR_CAPACITY_EXCEEDED";
    case PBF_ERROR_BACKEND_UNAVAILABLE: return "PBF_ERROR_BACKEND_UNAVAILABLE";
    case PBF_ERROR_OUT_OF_MEMORY: return "PBF_ERROR_OUT_OF_MEMORY";
    case PBF_ERROR_VERSION_MISMATCH: return "PBF_ERROR_VERSION_MISMATCH";
    case PBF_ERROR_IO: return "PBF_ERROR_IO";
    case PBF_ERROR_INTERNAL: return "PBF_ERROR_INTERNAL";
    case PBF_ERROR_BUSY: return "PBF_ERROR_BUSY";
  }
  return "unknown status";
}

uint32_t pbf_version(void) { return PBF_VERSION; }

const char* pbf_version_string(void) { return PBF_VERSION_STRING; }

pbf_status pbf_backend_available(pbf_backend backend, int* available) {
  return guarded(__func__, [&] {
    if (!valid_backend(backend))
      reject(PBF_ERROR_INVALID_ARGUMENT,
             "backend has the value " + describe(static_cast<int>(backend)) + ", not a pbf_backend");
    require_not_null(available, "available");
    *available = pbf::backend_available(static_cast<BackendKind>(backend)) ? 1 : 0;
  });
}

const char* pbf_backend_name(pbf_backend backend) {
  switch (backend) {
    case PBF_BACKEND_AUTO: return "auto";
    case PBF_BACKEND_CPU: return "cpu";
    case PBF_BACKEND_CUDA: return "cuda";
  }
  return "unknown";
}

const char* pbf_method_name(pbf_method method) {
  int m = 0;
  std::memcpy(&m, &method, sizeof m);
  switch (m) {
    case PBF_METHOD_PBF: return "pbf";
    case PBF_METHOD_PROJECTIVE: return "projective";
  }
  return "unknown";
}

pbf_status pbf_solver_create(const pbf_solver_desc* desc, pbf_solver** out_solver) {
  if (out_solver) *out_solver = nullptr;
  return guarded(__func__, [&] {
    require_not_null(desc, "desc");
    require_not_null(out_solver, "out_solver");
    const SolverConfig config = resolve_config(config_from(read_struct(desc, "desc")));
    *out_solver = new pbf_solver(config);
  });
}

pbf_status pbf_solver_destroy(pbf_solver* solver) {
  return guarded(__func__, [&] { delete solver; });  // waits for an asynchronous step
}

pbf_status pbf_solver_get_desc(const pbf_solver* solver, pbf_solver_desc* out) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(out, "out");
    const SolverConfig& c = solver->impl.config();
    write_struct(out, "out", [&](pbf_solver_desc& d) {
      d.backend = static_cast<pbf_backend>(c.backend);
      d.device_index = c.device_index;
      d.max_particles = c.max_particles;
      d.particle_spacing = c.particle_spacing;
      d.kernel_radius = c.kernel_radius;
      d.rest_density = c.rest_density;
      from_vec3(c.domain_min, d.domain_min);
      from_vec3(c.domain_max, d.domain_max);
      d.thread_count = c.thread_count;
      d.max_neighbors = c.max_neighbors;
      d.method = static_cast<pbf_method>(c.method);
    });
  });
}

pbf_status pbf_solver_get_particle_mass(const pbf_solver* solver, float* out_mass) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(out_mass, "out_mass");
    *out_mass = solver->impl.particle_mass();
  });
}

pbf_status pbf_solver_get_params(const pbf_solver* solver, pbf_params* out) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(out, "out");
    write_struct(out, "out", [&](pbf_params& p) { copy_params(solver->impl.params(), p); });
  });
}

pbf_status pbf_solver_set_params(pbf_solver* solver, const pbf_params* params) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(params, "params");
    solver->impl.set_params(params_from(read_struct(params, "params")));
  });
}

pbf_status pbf_solver_particle_count(const pbf_solver* solver, size_t* out_count) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(out_count, "out_count");
    *out_count = solver->impl.size();
  });
}

pbf_status pbf_solver_add_particles(pbf_solver* solver, const float* positions, const float* velocities,
                                    size_t count) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_unmapped(solver);
    if (count == 0) return;
    require_not_null(positions, "positions");
    const size_t capacity = solver->impl.config().max_particles;
    if (count > capacity - std::min(capacity, solver->impl.size()))
      reject(PBF_ERROR_CAPACITY_EXCEEDED, "count: adding " + describe(count) + " particles to " +
                                              describe(solver->impl.size()) + " would exceed max_particles (" +
                                              describe(capacity) + ")");
    require_particles(solver->impl, positions, count, Field::Position, "positions");
    if (velocities) require_particles(solver->impl, velocities, count, Field::Velocity, "velocities");
    solver->impl.add_particles(positions, velocities, count);
  });
}

pbf_status pbf_solver_fill_box(pbf_solver* solver, const float lo[3], const float hi[3], const float velocity[3],
                               size_t* out_added) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_unmapped(solver);
    require_not_null(lo, "lo");
    require_not_null(hi, "hi");
    require_vec3_finite(lo, "lo");
    require_vec3_finite(hi, "hi");
    for (int a = 0; a < 3; ++a)
      if (hi[a] < lo[a])
        reject(PBF_ERROR_INVALID_ARGUMENT, "hi[" + describe(a) + "] (" + describe(hi[a]) + ") is below lo[" +
                                               describe(a) + "] (" + describe(lo[a]) + ")");
    Vec3 v{0, 0, 0};
    if (velocity) {
      require_vec3_finite(velocity, "velocity");
      v = to_vec3(velocity);
    }
    const size_t added = solver->impl.fill_box(to_vec3(lo), to_vec3(hi), v);
    if (out_added) *out_added = added;
  });
}

pbf_status pbf_solver_remove_particles(pbf_solver* solver, const uint32_t* indices, size_t count) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_unmapped(solver);
    if (count == 0) return;
    require_not_null(indices, "indices");
    const size_t n = solver->impl.size();
    if (count > n)
      reject(PBF_ERROR_INVALID_ARGUMENT,
             "count (" + describe(count) + ") exceeds the particle count (" + describe(n) + ")");
    std::vector<uint8_t> remove(n, 0);
    for (size_t k = 0; k < count; ++k) {
      const uint32_t i = indices[k];
      if (i >= n)
        reject(PBF_ERROR_INVALID_ARGUMENT, "indices[" + describe(k) + "] is " + describe(i) +
                                               ", not below the particle count " + describe(n));
      if (remove[i])
        reject(PBF_ERROR_INVALID_ARGUMENT, "indices[" + describe(k) + "]: particle " + describe(i) +
                                               " is listed twice");
      remove[i] = 1;
    }
    solver->impl.remove_particles(remove);
  });
}

pbf_status pbf_solver_clear_particles(pbf_solver* solver) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_unmapped(solver);
    solver->impl.remove_particles(std::vector<uint8_t>(solver->impl.size(), 1));
  });
}

pbf_status pbf_solver_get_positions(const pbf_solver* solver, float* out, size_t capacity) {
  return get_field(__func__, solver, Field::Position, out, capacity);
}

pbf_status pbf_solver_get_velocities(const pbf_solver* solver, float* out, size_t capacity) {
  return get_field(__func__, solver, Field::Velocity, out, capacity);
}

pbf_status pbf_solver_get_densities(const pbf_solver* solver, float* out, size_t capacity) {
  return get_field(__func__, solver, Field::Density, out, capacity);
}

pbf_status pbf_solver_set_positions(pbf_solver* solver, const float* positions, size_t length) {
  return set_field(__func__, solver, Field::Position, positions, length, "positions");
}

pbf_status pbf_solver_set_velocities(pbf_solver* solver, const float* velocities, size_t length) {
  return set_field(__func__, solver, Field::Velocity, velocities, length, "velocities");
}

pbf_status pbf_solver_add_plane(pbf_solver* solver, const float normal[3], float offset, uint32_t* out_index) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(normal, "normal");
    require_vec3_finite(normal, "normal");
    require_finite(offset, "offset");
    // Normalised in double: any finite non-zero float vector has a finite,
    // non-zero double length.
    const double nx = normal[0], ny = normal[1], nz = normal[2];
    const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
    if (!(len > 0.0)) reject(PBF_ERROR_INVALID_ARGUMENT, "normal must be non-zero, got (0, 0, 0)");
    const Vec3 n{static_cast<float>(nx / len), static_cast<float>(ny / len), static_cast<float>(nz / len)};
    const double d = offset / len;
    if (!std::isfinite(static_cast<float>(d)))
      reject(PBF_ERROR_INVALID_ARGUMENT, "offset / |normal| (" + describe(d) + ") overflows a float");
    const uint32_t index = solver->impl.add_plane(Plane{n, static_cast<float>(d)});
    if (out_index) *out_index = index;
  });
}

pbf_status pbf_solver_clear_planes(pbf_solver* solver) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    solver->impl.clear_planes();
  });
}

pbf_status pbf_solver_add_obstacle_sdf(pbf_solver* solver, const float* values, size_t length,
                                       const uint32_t dims[3], const float origin[3], float cell,
                                       const float rotation[4], const float translation[3], uint32_t* out_index) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(dims, "dims");
    uint64_t count = 1;
    for (int a = 0; a < 3; ++a) {
      if (dims[a] < 2 || dims[a] > 4096)
        reject(PBF_ERROR_INVALID_ARGUMENT,
               "dims[" + std::to_string(a) + "] must be 2 .. 4096 samples, got " + describe(dims[a]));
      count *= dims[a];
    }
    if (count > (uint64_t(1) << 28))
      reject(PBF_ERROR_INVALID_ARGUMENT, "dims hold " + describe(count) + " samples, more than 2^28");
    if (length != count)
      reject(length < count ? PBF_ERROR_BUFFER_TOO_SMALL : PBF_ERROR_INVALID_ARGUMENT,
             "length is " + describe(length) + " floats; dims hold " + describe(count) + " samples");
    require_not_null(values, "values");
    require_not_null(origin, "origin");
    require_vec3_finite(origin, "origin");
    if (!(std::isfinite(cell) && cell > 0.0f))
      reject(PBF_ERROR_INVALID_ARGUMENT, "cell must be a finite size > 0 m, got " + describe(cell));
    for (int a = 0; a < 3; ++a) {
      if (!std::isfinite(origin[a] + float(dims[a] - 1) * cell))
        reject(PBF_ERROR_INVALID_ARGUMENT, "origin + (dims - 1) * cell overflows a float along axis " +
                                               std::to_string(a));
    }
    for (size_t k = 0; k < count; ++k) {
      if (!std::isfinite(values[k]))
        reject(PBF_ERROR_INVALID_ARGUMENT, "values[" + describe(k) + "] must be finite, got " + describe(values[k]));
    }
    float q[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    Vec3 t{0.0f, 0.0f, 0.0f};
    read_pose(rotation, translation, q, t);
    SdfGridView field{values, int32_t(dims[0]), int32_t(dims[1]), int32_t(dims[2]),
                      Vec3{origin[0], origin[1], origin[2]}, cell};
    const uint32_t index = solver->impl.add_obstacle(field, q, t);
    if (out_index) *out_index = index;
  });
}

pbf_status pbf_solver_set_obstacle_pose(pbf_solver* solver, uint32_t index, const float rotation[4],
                                        const float translation[3]) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    float q[4];
    Vec3 t;
    solver->impl.obstacle_target(index, q, t);
    read_pose(rotation, translation, q, t);
    solver->impl.set_obstacle_pose(index, q, t);
  });
}

pbf_status pbf_solver_get_obstacle_count(const pbf_solver* solver, uint32_t* out_count) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(out_count, "out_count");
    *out_count = solver->impl.obstacle_count();
  });
}

pbf_status pbf_solver_get_obstacle_force(const pbf_solver* solver, uint32_t index, float out_force[3],
                                         float out_torque[3]) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    Vec3 force, torque;
    solver->impl.obstacle_load(index, force, torque);
    store_vec3(force, out_force);
    store_vec3(torque, out_torque);
  });
}

pbf_status pbf_solver_get_obstacle_pose(const pbf_solver* solver, uint32_t index, float out_rotation[4],
                                        float out_translation[3]) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    float q[4];
    Vec3 t;
    solver->impl.obstacle_pose(index, q, t);
    if (out_rotation) std::copy(q, q + 4, out_rotation);
    store_vec3(t, out_translation);
  });
}

pbf_status pbf_solver_set_obstacle_dynamic(pbf_solver* solver, uint32_t index, float mass, const float centre[3],
                                           const float inertia[9]) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    if (mass == 0.0f) {
      solver->impl.set_obstacle_dynamic(index, nullptr);
      return;
    }
    if (!(std::isfinite(mass) && mass > 0.0f))
      reject(PBF_ERROR_INVALID_ARGUMENT, "mass must be a finite mass > 0 kg (or 0 to make the obstacle kinematic), got " +
                                             describe(mass));
    require_not_null(centre, "centre");
    require_not_null(inertia, "inertia");
    require_vec3_finite(centre, "centre");
    double largest = 0.0;
    for (int k = 0; k < 9; ++k) {
      if (!std::isfinite(inertia[k]))
        reject(PBF_ERROR_INVALID_ARGUMENT, "inertia[" + std::to_string(k) + "] must be finite, got " + describe(inertia[k]));
      largest = std::max(largest, std::fabs(double(inertia[k])));
    }
    for (int i = 0; i < 3; ++i)
      for (int j = i + 1; j < 3; ++j)
        if (std::fabs(double(inertia[3 * i + j]) - inertia[3 * j + i]) > 1e-5 * largest)
          reject(PBF_ERROR_INVALID_ARGUMENT, "inertia must be symmetric: inertia[" + std::to_string(3 * i + j) +
                                                 "] is " + describe(inertia[3 * i + j]) + ", inertia[" +
                                                 std::to_string(3 * j + i) + "] " + describe(inertia[3 * j + i]));
    RigidMass m{};
    m.mass = mass;
    for (int a = 0; a < 3; ++a) m.centre[a] = centre[a];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m.inertia[3 * i + j] = 0.5 * (double(inertia[3 * i + j]) + inertia[3 * j + i]);
    solver->impl.set_obstacle_dynamic(index, &m);
  });
}

pbf_status pbf_solver_set_obstacle_velocity(pbf_solver* solver, uint32_t index, const float linear[3],
                                            const float angular[3]) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    Vec3 l, a;
    solver->impl.obstacle_velocity(index, l, a);
    const auto read = [](const float* in, const char* name, double most, const char* unit) {
      require_vec3_finite(in, name);
      const double size = std::sqrt(double(in[0]) * in[0] + double(in[1]) * in[1] + double(in[2]) * in[2]);
      if (size > most)
        reject(PBF_ERROR_INVALID_ARGUMENT, std::string(name) + " is " + describe(size) + " " + unit +
                                               ", more than the " + describe(most) + " a dynamic body reaches");
      return Vec3{in[0], in[1], in[2]};
    };
    if (linear) l = read(linear, "linear", kMaxBodySpeed, "m/s");
    if (angular) a = read(angular, "angular", kMaxBodySpin, "rad/s");
    solver->impl.set_obstacle_velocity(index, l, a);
  });
}

pbf_status pbf_solver_get_obstacle_velocity(const pbf_solver* solver, uint32_t index, float out_linear[3],
                                            float out_angular[3]) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    Vec3 l, a;
    solver->impl.obstacle_velocity(index, l, a);
    store_vec3(l, out_linear);
    store_vec3(a, out_angular);
  });
}

pbf_status pbf_solver_set_obstacle_material(pbf_solver* solver, uint32_t index, float friction, float restitution) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    // The ranges of the parameters' friction and restitution (pbf_solver_set_params()).
    require_in_range(friction, 0.0f, 10.0f, "friction");
    require_in_range(restitution, 0.0f, 1.0f, "restitution");
    const RigidMaterial material{static_cast<double>(friction), static_cast<double>(restitution)};
    solver->impl.set_obstacle_material(index, &material);
  });
}

pbf_status pbf_solver_clear_obstacle_material(pbf_solver* solver, uint32_t index) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    solver->impl.set_obstacle_material(index, nullptr);
  });
}

pbf_status pbf_solver_get_obstacle_material(const pbf_solver* solver, uint32_t index, float* out_friction,
                                            float* out_restitution) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    const RigidMaterial m = solver->impl.obstacle_material(index);
    if (out_friction) *out_friction = static_cast<float>(m.friction);
    if (out_restitution) *out_restitution = static_cast<float>(m.restitution);
  });
}

pbf_status pbf_solver_clear_obstacles(pbf_solver* solver) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    solver->impl.clear_obstacles();
  });
}

pbf_status pbf_solver_add_boundary_particles(pbf_solver* solver, const float* positions, size_t count) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    if (count == 0) return;
    require_not_null(positions, "positions");
    require_boundary_room(solver, count, "count: " + describe(count) + " boundary particles");
    const SolverConfig& c = solver->impl.config();
    const float reach = c.kernel_radius;
    const float lo[3] = {c.domain_min.x - reach, c.domain_min.y - reach, c.domain_min.z - reach};
    const float hi[3] = {c.domain_max.x + reach, c.domain_max.y + reach, c.domain_max.z + reach};
    for (size_t i = 0; i < count; ++i) {
      for (int a = 0; a < 3; ++a) {
        const float v = positions[3 * i + a];
        if (!std::isfinite(v))
          reject(PBF_ERROR_INVALID_ARGUMENT, "positions[" + describe(3 * i + a) + "] (boundary particle " +
                                                 describe(i) + ") must be finite, got " + describe(v));
        if (v < lo[a] || v > hi[a])
          reject(PBF_ERROR_INVALID_ARGUMENT,
                 "positions[" + describe(3 * i + a) + "] (boundary particle " + describe(i) + ") is " + describe(v) +
                     ", farther than the kernel radius (" + describe(reach) + " m) outside the domain on axis " +
                     describe(a));
      }
    }
    solver->impl.add_boundary_particles(positions, count);
  });
}

pbf_status pbf_solver_add_domain_boundary_particles(pbf_solver* solver, size_t* out_added) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    const size_t added = solver->impl.add_domain_boundary_particles();
    if (out_added) *out_added = added;
  });
}

pbf_status pbf_solver_get_boundary_particle_count(const pbf_solver* solver, size_t* out_count) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(out_count, "out_count");
    *out_count = solver->impl.boundary_particle_count();
  });
}

pbf_status pbf_solver_clear_boundary_particles(pbf_solver* solver) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    solver->impl.clear_boundary_particles();
  });
}

pbf_status pbf_solver_step(pbf_solver* solver, float dt, uint32_t substeps) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_unmapped(solver);
    require_step_arguments(solver, dt, substeps);
    solver->impl.step(dt, substeps);
  });
}

pbf_status pbf_solver_step_async(pbf_solver* solver, float dt, uint32_t substeps) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_unmapped(solver);
    require_step_arguments(solver, dt, substeps);
    if (solver->worker.joinable()) solver->worker.join();  // the thread of a step already collected
    solver->finished.store(false, std::memory_order_relaxed);
    solver->started.store(true, std::memory_order_release);
    try {
      solver->worker = std::thread([solver, dt, substeps] {
        const pbf_status status = guarded("pbf_solver_step_async", [&] { solver->impl.step(dt, substeps); });
        solver->async_status = status;
        solver->async_message = status == PBF_OK ? "" : pbf_last_error();
        solver->finished.store(true, std::memory_order_release);
      });
    } catch (...) {
      solver->started.store(false, std::memory_order_release);
      throw;
    }
  });
}

pbf_status pbf_solver_map(pbf_solver* solver, pbf_field field, pbf_memory memory, const float** out_data,
                          size_t* out_count) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    int f = 0, m = 0;
    std::memcpy(&f, &field, sizeof f);
    std::memcpy(&m, &memory, sizeof m);
    if (f < PBF_FIELD_POSITIONS || f > PBF_FIELD_DENSITIES)
      reject(PBF_ERROR_INVALID_ARGUMENT, "field has the value " + describe(f) + ", not a pbf_field");
    if (m != PBF_MEMORY_HOST && m != PBF_MEMORY_DEVICE)
      reject(PBF_ERROR_INVALID_ARGUMENT, "memory has the value " + describe(m) + ", not a pbf_memory");
    require_not_null(out_data, "out_data");
    if (m == PBF_MEMORY_DEVICE && solver->impl.config().backend != BackendKind::Cuda)
      reject(PBF_ERROR_INVALID_ARGUMENT, "memory: PBF_MEMORY_DEVICE needs a solver on PBF_BACKEND_CUDA");
    if (solver->mapped[f]) reject(PBF_ERROR_INVALID_ARGUMENT, "field is already mapped");
    const Field which = f == PBF_FIELD_POSITIONS ? Field::Position : f == PBF_FIELD_VELOCITIES ? Field::Velocity
                                                                                              : Field::Density;
    const float* data = solver->impl.map(which, m == PBF_MEMORY_DEVICE);
    solver->mapped[f] = true;
    *out_data = data;
    if (out_count) *out_count = solver->impl.size();
  });
}

pbf_status pbf_solver_unmap(pbf_solver* solver, pbf_field field) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    int f = 0;
    std::memcpy(&f, &field, sizeof f);
    if (f < PBF_FIELD_POSITIONS || f > PBF_FIELD_DENSITIES)
      reject(PBF_ERROR_INVALID_ARGUMENT, "field has the value " + describe(f) + ", not a pbf_field");
    if (!solver->mapped[f]) reject(PBF_ERROR_INVALID_ARGUMENT, "field is not mapped");
    solver->mapped[f] = false;
  });
}

pbf_status pbf_solver_wait(pbf_solver* solver) {
  if (solver == nullptr) return fail(__func__, PBF_ERROR_NULL_POINTER, "solver is NULL");
  if (!solver->started.load(std::memory_order_acquire)) return PBF_OK;
  solver->worker.join();
  const pbf_status status = solver->async_status;
  const std::string message = solver->async_message;
  solver->started.store(false, std::memory_order_release);
  if (status != PBF_OK) {
    // The worker's message already names pbf_solver_step_async.
    try {
      t_last_error = message;
    } catch (...) {
    }
  }
  return status;
}

pbf_status pbf_solver_poll(const pbf_solver* solver, int* out_done) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_not_null(out_done, "out_done");
    *out_done = !solver->started.load(std::memory_order_acquire) || solver->finished.load(std::memory_order_acquire)
                    ? 1
                    : 0;
  });
}

pbf_status pbf_solver_update_densities(pbf_solver* solver) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_unmapped(solver);
    solver->impl.update_densities();
  });
}

pbf_status pbf_solver_get_stats(const pbf_solver* solver, pbf_stats* out) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(out, "out");
    const StepStats& s = solver->impl.stats();
    write_struct(out, "out", [&](pbf_stats& o) {
      o.particle_count = s.particle_count;
      o.substeps = s.substeps;
      o.iterations = s.iterations;
      o.avg_density_error = s.avg_density_error;
      o.max_density_error = s.max_density_error;
      o.avg_neighbors = s.avg_neighbors;
      o.max_neighbors = s.max_neighbors;
      o.neighbor_overflows = s.neighbor_overflows;
      o.max_speed = s.max_speed;
      o.time_total_ms = s.time_total_ms;
      o.time_predict_ms = s.time_predict_ms;
      o.time_grid_ms = s.time_grid_ms;
      o.time_neighbors_ms = s.time_neighbors_ms;
      o.time_constraints_ms = s.time_constraints_ms;
      o.time_velocity_ms = s.time_velocity_ms;
      o.time_vorticity_viscosity_ms = s.time_vorticity_viscosity_ms;
      o.local_global_iterations = s.local_global_iterations;
      o.cg_iterations = s.cg_iterations;
      o.cg_residual = s.cg_residual;
      o.min_substep_dt = s.min_substep_dt;
      o.max_substep_dt = s.max_substep_dt;
      o.density_iterations = s.density_iterations;
    });
  });
}

pbf_status pbf_solver_write_ply(const pbf_solver* solver, const char* path) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(path, "path");
    if (path[0] == '\0') reject(PBF_ERROR_INVALID_ARGUMENT, "path is empty");
    const size_t n = solver->impl.size();
    std::vector<float> positions(3 * n), velocities(3 * n), densities(n);
    solver->impl.read(Field::Position, positions.data());
    solver->impl.read(Field::Velocity, velocities.data());
    solver->impl.read(Field::Density, densities.data());
    const SolverConfig& config = solver->impl.config();
    const Vec3 g = solver->impl.params().gravity;
    const float gravity[3] = {g.x, g.y, g.z};
    const float lo[3] = {config.domain_min.x, config.domain_min.y, config.domain_min.z};
    const float hi[3] = {config.domain_max.x, config.domain_max.y, config.domain_max.z};
    write_ply(path, n, positions.data(), velocities.data(), densities.data(), ply_speed_scale(gravity, lo, hi));
  });
}

pbf_status pbf_solver_save_checkpoint(const pbf_solver* solver, const char* path) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(path, "path");
    if (path[0] == '\0') reject(PBF_ERROR_INVALID_ARGUMENT, "path is empty");
    write_checkpoint(path, solver->impl.checkpoint());
  });
}

pbf_status pbf_solver_load_checkpoint(pbf_solver* solver, const char* path) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_unmapped(solver);
    require_not_null(path, "path");
    if (path[0] == '\0') reject(PBF_ERROR_INVALID_ARGUMENT, "path is empty");
    Checkpoint checkpoint = read_checkpoint(path);
    // One saved while the acceleration's range reached 0.9999 resumes at the
    // top of today's range.
    float& rho = checkpoint.params.projective_chebyshev_rho;
    if (rho > kTopChebyshevRho && rho <= kFormerTopChebyshevRho) rho = kTopChebyshevRho;
    // Its parameters must be ones pbf_solver_set_params() would accept.
    pbf_params p = pbf_params_default();
    copy_params(checkpoint.params, p);
    try {
      params_from(p);
    } catch (const Error& e) {
      reject(PBF_ERROR_IO, std::string("path: checkpoint '") + path + "' is corrupt: " + e.what());
    }
    solver->impl.restore(checkpoint, path);
  });
}

}  // extern "C"
