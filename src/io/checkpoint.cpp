#include "io/checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/file_access.h"
#include "core/hash.h"

namespace pbf {

namespace {

constexpr char kMagic[8] = {'P', 'B', 'F', 'C', 'H', 'K', 'P', 'T'};
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8;
// The most particles a solver holds (pbf_solver_desc.max_particles).
constexpr uint32_t kMaxParticles = uint32_t(1) << 28;
// The largest payload: config, params, the plane count, kMaxPlanes planes,
// stats, the particle count, then 32 bytes per particle.
constexpr uint64_t kMaxPayloadBytes =
    13 * 4 + 27 * 4 + 4 + uint64_t(kMaxPlanes) * 16 + 15 * 4 + 7 * 8 + 8 + uint64_t(kMaxParticles) * 32;

// Appends values little-endian, whatever the host's byte order.
class Writer {
 public:
  std::vector<unsigned char> bytes;

  void u32(uint32_t v) {
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<unsigned char>(v >> (8 * b)));
  }
  void u64(uint64_t v) {
    for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<unsigned char>(v >> (8 * b)));
  }
  void f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    u32(bits);
  }
  void vec3(Vec3 v) {
    f32(v.x);
    f32(v.y);
    f32(v.z);
  }
};

// Reads values back; running past the end is a corrupt file.
class Reader {
 public:
  Reader(const unsigned char* data, size_t size, const std::string& path) : data_(data), size_(size), path_(path) {}

  uint32_t u32() {
    need(4);
    uint32_t v = 0;
    for (int b = 0; b < 4; ++b) v |= static_cast<uint32_t>(data_[at_ + b]) << (8 * b);
    at_ += 4;
    return v;
  }
  uint64_t u64() {
    const uint64_t lo = u32();
    const uint64_t hi = u32();
    return lo | (hi << 32);
  }
  float f32() {
    const uint32_t bits = u32();
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  Vec3 vec3() {
    const float x = f32(), y = f32(), z = f32();
    return Vec3{x, y, z};
  }
  size_t remaining() const { return size_ - at_; }
  void need(size_t n) const {
    if (n > size_ - at_) corrupt("its payload ends early");
  }
  [[noreturn]] void corrupt(const std::string& what) const {
    throw Error(Status::Io, "path: checkpoint '" + path_ + "' is corrupt: " + what);
  }

 private:
  const unsigned char* data_;
  size_t size_;
  size_t at_ = 0;
  const std::string& path_;
};

void encode(const Checkpoint& c, Writer& w) {
  w.u32(static_cast<uint32_t>(c.config.backend));
  w.u32(c.config.max_particles);
  w.f32(c.config.particle_spacing);
  w.f32(c.config.kernel_radius);
  w.f32(c.config.rest_density);
  w.vec3(c.config.domain_min);
  w.vec3(c.config.domain_max);
  w.u32(c.config.max_neighbors);
  w.u32(static_cast<uint32_t>(c.config.method));

  const PbfParams& p = c.params;
  w.vec3(p.gravity);
  w.u32(p.iterations);
  w.f32(p.relaxation);
  w.u32(p.unilateral ? 1u : 0u);
  w.f32(p.artificial_pressure_k);
  w.f32(p.artificial_pressure_n);
  w.f32(p.artificial_pressure_dq);
  w.f32(p.xsph_viscosity);
  w.f32(p.vorticity_epsilon);
  w.f32(p.restitution);
  w.f32(p.friction);
  w.f32(p.max_speed);
  w.f32(p.projective_stiffness);
  w.u32(p.projective_iterations);
  w.f32(p.projective_tolerance);
  w.u32(p.cg_max_iterations);
  w.f32(p.cg_tolerance);
  w.u32(p.newton_iterations);
  w.f32(p.newton_tolerance);
  w.u32(p.adaptive_dt ? 1u : 0u);
  w.f32(p.cfl_number);
  w.f32(p.max_dt);
  w.f32(p.projective_chebyshev_rho);
  w.f32(p.density_tolerance);
  w.u32(p.max_iterations);

  w.u32(static_cast<uint32_t>(c.planes.size()));
  for (const Plane& plane : c.planes) {
    w.vec3(plane.normal);
    w.f32(plane.offset);
  }

  const StepStats& s = c.stats;
  w.u32(s.particle_count);
  w.u32(s.substeps);
  w.u32(s.iterations);
  w.f32(s.avg_density_error);
  w.f32(s.max_density_error);
  w.f32(s.avg_neighbors);
  w.u32(s.max_neighbors);
  w.u32(s.neighbor_overflows);
  w.f32(s.max_speed);
  for (double t : {s.time_total_ms, s.time_predict_ms, s.time_grid_ms, s.time_neighbors_ms, s.time_constraints_ms,
                   s.time_velocity_ms, s.time_vorticity_viscosity_ms}) {
    uint64_t bits;
    std::memcpy(&bits, &t, 8);
    w.u64(bits);
  }
  w.u32(s.local_global_iterations);
  w.u32(s.cg_iterations);
  w.f32(s.cg_residual);
  w.f32(s.min_substep_dt);
  w.f32(s.max_substep_dt);
  w.u32(s.density_iterations);
  w.f32(s.compression_rate);
  w.u32(c.unmeasured);

  const ParticleState& ps = c.particles;
  const size_t n = ps.positions.size();
  w.u64(n);
  w.bytes.reserve(w.bytes.size() + n * 32);
  for (size_t i = 0; i < n; ++i) w.vec3(ps.positions[i]);
  for (size_t i = 0; i < n; ++i) w.vec3(ps.velocities[i]);
  for (size_t i = 0; i < n; ++i) w.f32(ps.densities[i]);
  for (size_t i = 0; i < n; ++i) w.u32(ps.user_ids[i]);
}

bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// Every number a checkpoint holds is checked as it is read: finite, and
// within the range its meaning allows, or the file is corrupt. `version` is
// the file's (kOldestCheckpointVersion .. kCheckpointVersion).
Checkpoint decode(Reader& r, uint32_t version) {
  auto number = [&](float v, const char* name) {
    if (!std::isfinite(v)) r.corrupt(std::string(name) + " is " + std::to_string(v) + ", not a finite number");
    return v;
  };
  auto at_least_zero = [&](float v, const char* name) {
    if (!(number(v, name) >= 0.0f)) r.corrupt(std::string(name) + " is " + std::to_string(v) + ", not >= 0");
    return v;
  };
  auto positive = [&](float v, const char* name) {
    if (!(number(v, name) > 0.0f)) r.corrupt(std::string(name) + " is " + std::to_string(v) + ", not > 0");
    return v;
  };
  auto vec3 = [&](const char* name) {
    const Vec3 v = r.vec3();
    if (!finite(v)) r.corrupt(std::string(name) + " is not three finite numbers");
    return v;
  };

  Checkpoint c;
  const uint32_t backend = r.u32();
  if (backend != static_cast<uint32_t>(BackendKind::Cpu) && backend != static_cast<uint32_t>(BackendKind::Cuda))
    r.corrupt("unknown backend " + std::to_string(backend));
  c.config.backend = static_cast<BackendKind>(backend);
  c.config.max_particles = r.u32();
  if (c.config.max_particles < 1 || c.config.max_particles > kMaxParticles)
    r.corrupt("config.max_particles is " + std::to_string(c.config.max_particles) + ", not 1 .. " +
              std::to_string(kMaxParticles));
  c.config.particle_spacing = positive(r.f32(), "config.particle_spacing");
  c.config.kernel_radius = positive(r.f32(), "config.kernel_radius");
  c.config.rest_density = positive(r.f32(), "config.rest_density");
  c.config.domain_min = vec3("config.domain_min");
  c.config.domain_max = vec3("config.domain_max");
  if (!(c.config.domain_min.x < c.config.domain_max.x && c.config.domain_min.y < c.config.domain_max.y &&
        c.config.domain_min.z < c.config.domain_max.z))
    r.corrupt("config.domain_min is not below config.domain_max on every axis");
  c.config.max_neighbors = r.u32();
  if (c.config.max_neighbors < 1) r.corrupt("config.max_neighbors is 0");
  const uint32_t method = r.u32();
  if (method > static_cast<uint32_t>(Method::Projective)) r.corrupt("unknown method " + std::to_string(method));
  c.config.method = static_cast<Method>(method);

  // Parameters: finite here; their ranges are pbf_solver_set_params()'s, which the C API applies.
  PbfParams& p = c.params;
  p.gravity = vec3("params.gravity");
  p.iterations = r.u32();
  p.relaxation = number(r.f32(), "params.relaxation");
  const uint32_t unilateral = r.u32();
  if (unilateral > 1) r.corrupt("unilateral is " + std::to_string(unilateral));
  p.unilateral = unilateral == 1;
  p.artificial_pressure_k = number(r.f32(), "params.artificial_pressure_k");
  p.artificial_pressure_n = number(r.f32(), "params.artificial_pressure_n");
  p.artificial_pressure_dq = number(r.f32(), "params.artificial_pressure_dq");
  p.xsph_viscosity = number(r.f32(), "params.xsph_viscosity");
  p.vorticity_epsilon = number(r.f32(), "params.vorticity_epsilon");
  p.restitution = number(r.f32(), "params.restitution");
  p.friction = number(r.f32(), "params.friction");
  p.max_speed = number(r.f32(), "params.max_speed");
  p.projective_stiffness = number(r.f32(), "params.projective_stiffness");
  p.projective_iterations = r.u32();
  p.projective_tolerance = number(r.f32(), "params.projective_tolerance");
  p.cg_max_iterations = r.u32();
  p.cg_tolerance = number(r.f32(), "params.cg_tolerance");
  p.newton_iterations = r.u32();
  p.newton_tolerance = number(r.f32(), "params.newton_tolerance");
  const uint32_t adaptive = r.u32();
  if (adaptive > 1) r.corrupt("adaptive_dt is " + std::to_string(adaptive));
  p.adaptive_dt = adaptive == 1;
  p.cfl_number = number(r.f32(), "params.cfl_number");
  p.max_dt = number(r.f32(), "params.max_dt");
  p.projective_chebyshev_rho = number(r.f32(), "params.projective_chebyshev_rho");
  if (version >= 3) {
    p.density_tolerance = number(r.f32(), "params.density_tolerance");
    p.max_iterations = r.u32();
  }

  const uint32_t planes = r.u32();
  if (planes > kMaxPlanes)
    r.corrupt("it holds " + std::to_string(planes) + " planes, more than the " + std::to_string(kMaxPlanes) +
              " a solver holds");
  r.need(static_cast<size_t>(planes) * 16);
  c.planes.resize(planes);
  for (Plane& plane : c.planes) {
    plane.normal = r.vec3();
    plane.offset = r.f32();
    const float len = std::sqrt(length_squared(plane.normal));
    if (!finite(plane.normal) || !std::isfinite(plane.offset) || !(std::fabs(len - 1.0f) < 1e-3f))
      r.corrupt("a plane is not a unit normal and a finite offset");
  }

  // Statistics: counts within the solver's capacities, measures finite and >= 0.
  StepStats& s = c.stats;
  s.particle_count = r.u32();
  if (s.particle_count > c.config.max_particles)
    r.corrupt("stats.particle_count is " + std::to_string(s.particle_count) + ", more than config.max_particles");
  s.substeps = r.u32();
  s.iterations = r.u32();
  s.avg_density_error = at_least_zero(r.f32(), "stats.avg_density_error");
  s.max_density_error = at_least_zero(r.f32(), "stats.max_density_error");
  s.avg_neighbors = at_least_zero(r.f32(), "stats.avg_neighbors");
  s.max_neighbors = r.u32();
  if (s.avg_neighbors > float(c.config.max_neighbors) || s.max_neighbors > c.config.max_neighbors)
    r.corrupt("stats.avg_neighbors or stats.max_neighbors exceeds config.max_neighbors");
  s.neighbor_overflows = r.u32();
  s.max_speed = at_least_zero(r.f32(), "stats.max_speed");
  const char* time_names[] = {"stats.time_total_ms",        "stats.time_predict_ms",   "stats.time_grid_ms",
                              "stats.time_neighbors_ms",    "stats.time_constraints_ms", "stats.time_velocity_ms",
                              "stats.time_vorticity_viscosity_ms"};
  double* times[] = {&s.time_total_ms,       &s.time_predict_ms,  &s.time_grid_ms,
                     &s.time_neighbors_ms,   &s.time_constraints_ms, &s.time_velocity_ms,
                     &s.time_vorticity_viscosity_ms};
  for (int t = 0; t < 7; ++t) {
    const uint64_t bits = r.u64();
    std::memcpy(times[t], &bits, 8);
    if (!(std::isfinite(*times[t]) && *times[t] >= 0.0))
      r.corrupt(std::string(time_names[t]) + " is " + std::to_string(*times[t]) + ", not a finite time >= 0");
  }
  s.local_global_iterations = r.u32();
  s.cg_iterations = r.u32();
  s.cg_residual = at_least_zero(r.f32(), "stats.cg_residual");
  s.min_substep_dt = at_least_zero(r.f32(), "stats.min_substep_dt");
  s.max_substep_dt = at_least_zero(r.f32(), "stats.max_substep_dt");
  if (s.min_substep_dt > s.max_substep_dt) r.corrupt("stats.min_substep_dt exceeds stats.max_substep_dt");
  if (version >= 3) s.density_iterations = r.u32();
  if (version >= 5) s.compression_rate = at_least_zero(r.f32(), "stats.compression_rate");
  const bool has_unmeasured = version >= 6;
  if (has_unmeasured) c.unmeasured = r.u32();

  const uint64_t n = r.u64();
  if (n > c.config.max_particles || n * 32 != r.remaining())
    r.corrupt("it declares " + std::to_string(n) + " particles (config.max_particles " +
              std::to_string(c.config.max_particles) + ") but holds " + std::to_string(r.remaining()) +
              " bytes of particle data");
  ParticleState& ps = c.particles;
  ps.positions.resize(n);
  ps.velocities.resize(n);
  ps.densities.resize(n);
  ps.user_ids.resize(n);
  for (Vec3& x : ps.positions) x = r.vec3();
  for (Vec3& v : ps.velocities) v = r.vec3();
  for (float& rho : ps.densities) rho = r.f32();
  for (uint32_t& id : ps.user_ids) id = r.u32();
  c.in_frame = version >= 4;
  std::vector<uint8_t> seen(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!finite(ps.positions[i]) || !finite(ps.velocities[i]) || !std::isfinite(ps.densities[i]))
      r.corrupt("particle " + std::to_string(i) + " has a non-finite value");
    if (ps.densities[i] < 0.0f) r.corrupt("particle " + std::to_string(i) + " has a negative density");
    const uint32_t id = ps.user_ids[i];
    if (id >= n || seen[id]) r.corrupt("its particle ids are not a permutation");
    seen[id] = 1;
  }
  // Before version 6: the particles beyond those its statistics' last step moved were added since.
  if (!has_unmeasured) c.unmeasured = static_cast<uint32_t>(n - std::min<uint64_t>(n, s.particle_count));
  if (c.unmeasured > n)
    r.corrupt("unmeasured is " + std::to_string(c.unmeasured) + ", more than its " + std::to_string(n) +
              " particles");
  return c;
}

}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint) {
  Writer payload;
  encode(checkpoint, payload);
  Writer header;
  for (char ch : kMagic) header.bytes.push_back(static_cast<unsigned char>(ch));
  header.u32(kCheckpointVersion);
  header.u32(0);
  header.u64(payload.bytes.size());
  header.u64(fnv1a(payload.bytes.data(), payload.bytes.size()));
  save_atomically(path, {{header.bytes.data(), header.bytes.size()}, {payload.bytes.data(), payload.bytes.size()}});
}

Checkpoint read_checkpoint(const std::string& path) {
  InputFile file(path);
  // The header first, then only as much payload as it announces and the file holds.
  unsigned char head[kHeaderBytes];
  const size_t got = static_cast<size_t>(std::min<uint64_t>(file.size(), kHeaderBytes));
  file.read(head, got);
  if (got < kHeaderBytes || std::memcmp(head, kMagic, 8) != 0)
    throw Error(Status::Io, "path: '" + path + "' is not a pbf checkpoint");
  Reader header(head + 8, kHeaderBytes - 8, path);
  const uint32_t version = header.u32();
  if (version < kOldestCheckpointVersion || version > kCheckpointVersion)
    throw Error(Status::Io, "path: checkpoint '" + path + "' has format version " + std::to_string(version) +
                                "; this library reads versions " + std::to_string(kOldestCheckpointVersion) +
                                " to " + std::to_string(kCheckpointVersion));
  header.u32();
  const uint64_t size = header.u64();
  const uint64_t hash = header.u64();
  const uint64_t held = file.size() - kHeaderBytes;
  if (size != held)
    header.corrupt("the header announces " + std::to_string(size) + " bytes of payload, the file holds " +
                   std::to_string(held) + " (truncated or appended to)");
  if (size > kMaxPayloadBytes)
    header.corrupt("the header announces " + std::to_string(size) + " bytes of payload, more than the " +
                   std::to_string(kMaxPayloadBytes) + " a checkpoint of 2^28 particles and 64 planes takes");
  std::vector<unsigned char> payload(static_cast<size_t>(size));
  file.read(payload.data(), payload.size());
  if (fnv1a(payload.data(), payload.size()) != hash) header.corrupt("its checksum does not match its contents");
  Reader r(payload.data(), payload.size(), path);
  return decode(r, version);
}

}  // namespace pbf
