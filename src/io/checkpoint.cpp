#include "io/checkpoint.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "core/hash.h"

namespace pbf {

namespace {

constexpr char kMagic[8] = {'P', 'B', 'F', 'C', 'H', 'K', 'P', 'T'};
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8;

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

Checkpoint decode(Reader& r) {
  Checkpoint c;
  const uint32_t backend = r.u32();
  if (backend != static_cast<uint32_t>(BackendKind::Cpu) && backend != static_cast<uint32_t>(BackendKind::Cuda))
    r.corrupt("unknown backend " + std::to_string(backend));
  c.config.backend = static_cast<BackendKind>(backend);
  c.config.max_particles = r.u32();
  c.config.particle_spacing = r.f32();
  c.config.kernel_radius = r.f32();
  c.config.rest_density = r.f32();
  c.config.domain_min = r.vec3();
  c.config.domain_max = r.vec3();
  c.config.max_neighbors = r.u32();
  const uint32_t method = r.u32();
  if (method > static_cast<uint32_t>(Method::Projective)) r.corrupt("unknown method " + std::to_string(method));
  c.config.method = static_cast<Method>(method);

  PbfParams& p = c.params;
  p.gravity = r.vec3();
  p.iterations = r.u32();
  p.relaxation = r.f32();
  const uint32_t unilateral = r.u32();
  if (unilateral > 1) r.corrupt("unilateral is " + std::to_string(unilateral));
  p.unilateral = unilateral == 1;
  p.artificial_pressure_k = r.f32();
  p.artificial_pressure_n = r.f32();
  p.artificial_pressure_dq = r.f32();
  p.xsph_viscosity = r.f32();
  p.vorticity_epsilon = r.f32();
  p.restitution = r.f32();
  p.friction = r.f32();
  p.max_speed = r.f32();
  p.projective_stiffness = r.f32();
  p.projective_iterations = r.u32();
  p.projective_tolerance = r.f32();
  p.cg_max_iterations = r.u32();
  p.cg_tolerance = r.f32();
  p.newton_iterations = r.u32();
  p.newton_tolerance = r.f32();
  const uint32_t adaptive = r.u32();
  if (adaptive > 1) r.corrupt("adaptive_dt is " + std::to_string(adaptive));
  p.adaptive_dt = adaptive == 1;
  p.cfl_number = r.f32();
  p.max_dt = r.f32();
  p.projective_chebyshev_rho = r.f32();

  const uint32_t planes = r.u32();
  r.need(static_cast<size_t>(planes) * 16);
  c.planes.resize(planes);
  for (Plane& plane : c.planes) {
    plane.normal = r.vec3();
    plane.offset = r.f32();
    const float len = std::sqrt(length_squared(plane.normal));
    if (!finite(plane.normal) || !std::isfinite(plane.offset) || !(std::fabs(len - 1.0f) < 1e-3f))
      r.corrupt("a plane is not a unit normal and a finite offset");
  }

  StepStats& s = c.stats;
  s.particle_count = r.u32();
  s.substeps = r.u32();
  s.iterations = r.u32();
  s.avg_density_error = r.f32();
  s.max_density_error = r.f32();
  s.avg_neighbors = r.f32();
  s.max_neighbors = r.u32();
  s.neighbor_overflows = r.u32();
  s.max_speed = r.f32();
  for (double* t : {&s.time_total_ms, &s.time_predict_ms, &s.time_grid_ms, &s.time_neighbors_ms,
                    &s.time_constraints_ms, &s.time_velocity_ms, &s.time_vorticity_viscosity_ms}) {
    const uint64_t bits = r.u64();
    std::memcpy(t, &bits, 8);
  }
  s.local_global_iterations = r.u32();
  s.cg_iterations = r.u32();
  s.cg_residual = r.f32();
  s.min_substep_dt = r.f32();
  s.max_substep_dt = r.f32();

  const uint64_t n = r.u64();
  if (n > (uint64_t(1) << 28) || n * 32 != r.remaining())
    r.corrupt("it declares " + std::to_string(n) + " particles but holds " + std::to_string(r.remaining()) +
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
  std::vector<uint8_t> seen(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!finite(ps.positions[i]) || !finite(ps.velocities[i]) || !std::isfinite(ps.densities[i]))
      r.corrupt("particle " + std::to_string(i) + " has a non-finite value");
    const uint32_t id = ps.user_ids[i];
    if (id >= n || seen[id]) r.corrupt("its particle ids are not a permutation");
    seen[id] = 1;
  }
  return c;
}

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error(Status::Io, "path: cannot " + what + " '" + path + "': " + std::strerror(errno));
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

  const std::string temp = path + ".partial";
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) fail("create", temp);
  bool ok = std::fwrite(header.bytes.data(), 1, header.bytes.size(), f) == header.bytes.size() &&
            std::fwrite(payload.bytes.data(), 1, payload.bytes.size(), f) == payload.bytes.size();
  if (std::fclose(f) != 0) ok = false;
  if (!ok) {
    const int saved = errno;
    std::remove(temp.c_str());
    errno = saved;
    fail("write", temp);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    std::remove(temp.c_str());
    errno = saved;
    fail("rename onto", path);
  }
}

Checkpoint read_checkpoint(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail("open", path);
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.insert(bytes.end(), chunk, chunk + got);
  const bool read_error = std::ferror(f) != 0;
  std::fclose(f);
  if (read_error) fail("read", path);

  Reader header(bytes.data(), bytes.size(), path);
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, 8) != 0)
    throw Error(Status::Io, "path: '" + path + "' is not a pbf checkpoint");
  header.need(8);
  for (int k = 0; k < 2; ++k) header.u32();  // the magic, read as words
  const uint32_t version = header.u32();
  if (version != kCheckpointVersion)
    throw Error(Status::Io, "path: checkpoint '" + path + "' has format version " + std::to_string(version) +
                                "; this library reads version " + std::to_string(kCheckpointVersion));
  header.u32();
  const uint64_t size = header.u64();
  const uint64_t hash = header.u64();
  if (size != bytes.size() - kHeaderBytes)
    header.corrupt("the header announces " + std::to_string(size) + " bytes of payload, the file holds " +
                   std::to_string(bytes.size() - kHeaderBytes) + " (truncated or appended to)");
  const unsigned char* payload = bytes.data() + kHeaderBytes;
  if (fnv1a(payload, size) != hash) header.corrupt("its checksum does not match its contents");
  Reader r(payload, size, path);
  return decode(r);
}

}  // namespace pbf
