// scene_runner.cpp - a scene's solver and its frame loop, through the C API only.
#include "scene_runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

#include "atomic_file.h"
#include "render.h"
#include "surface_mesh.h"
#include "vdb_writer.h"

namespace pbf_sim {

namespace {

// The kinds of frame file frames.json lists: particles, liquid surface, pictures.
constexpr const char* kFrameKinds[] = {"ply", "vtp", "surface", "surface_vtp", "surface_obj", "surface_vdb", "png"};

// The surface grid's cell for pictures [spacings]: finer adds little at a picture's scale and costs its inverse cube.
constexpr float kPictureSurfaceCell = 1.0f;

// Writes `mesh` as a Wavefront OBJ with a normal per vertex (v, vn, f a//a b//b c//c), atomically.
void write_surface_obj(const std::string& path, const SurfaceMesh& mesh, const std::string& comment) {
  AtomicFile file(path);
  std::string text = "# " + comment + "\n# units: metres; vn: unit normals out of the liquid\n";
  char line[128];
  auto flush = [&] {
    if (text.size() > (1u << 16)) {
      file.write(text);
      text.clear();
    }
  };
  for (size_t v = 0; v < mesh.vertex_count(); ++v) {
    const float* p = &mesh.vertices[3 * v];
    text.append(line, static_cast<size_t>(std::snprintf(line, sizeof line, "v %.7g %.7g %.7g\n", p[0], p[1], p[2])));
    flush();
  }
  for (size_t v = 0; v < mesh.vertex_count(); ++v) {
    const float* n = &mesh.normals[3 * v];
    text.append(line, static_cast<size_t>(std::snprintf(line, sizeof line, "vn %.6g %.6g %.6g\n", n[0], n[1], n[2])));
    flush();
  }
  for (size_t t = 0; t < mesh.triangle_count(); ++t) {
    const uint32_t* i = &mesh.triangles[3 * t];  // OBJ counts from 1
    const unsigned long a = i[0] + 1ul, b = i[1] + 1ul, c = i[2] + 1ul;
    text.append(line, static_cast<size_t>(std::snprintf(line, sizeof line, "f %lu//%lu %lu//%lu %lu//%lu\n", a, a, b,
                                                        b, c, c)));
    flush();
  }
  file.write(text);
  file.commit();
}

std::string block_key(const char* list, size_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

// The field's grid cell: the obstacle's own, or half the particle spacing.
float field_cell(float cell, float spacing) { return cell > 0.0f ? cell : 0.5f * spacing; }

// Narrow band of mesh fields: exact distances within a few particle spacings of the surface suffice.
float field_band(float spacing) { return 4.0f * spacing; }

Vec3 rotate(const Quat& q, const Vec3& v) {
  // v + 2w (u x v) + 2 u x (u x v), u = (x, y, z)
  const float ux = q[0], uy = q[1], uz = q[2], w = q[3];
  const float tx = 2.0f * (uy * v[2] - uz * v[1]), ty = 2.0f * (uz * v[0] - ux * v[2]), tz = 2.0f * (ux * v[1] - uy * v[0]);
  return {v[0] + w * tx + (uy * tz - uz * ty), v[1] + w * ty + (uz * tx - ux * tz), v[2] + w * tz + (ux * ty - uy * tx)};
}

// Whether p lies in the box and at least `margin` inside each of its faces.
bool inside(const Box& b, const float* p, float margin = 0.0f) {
  for (int a = 0; a < 3; ++a)
    if (!(p[a] >= b.min[a] + margin && p[a] <= b.max[a] - margin)) return false;
  return true;
}

// How far from the domain's walls a placed particle stays: half a spacing, as pbf_solver_fill_box()
// and pbf_solver_fill_sdf() keep their points (a point nearer a wall would start compressed against
// it), less the fills' tolerance of a thousandth.
float wall_margin(double spacing) { return 0.5f * static_cast<float>(spacing) * (1.0f - 1e-3f); }

}  // namespace

std::string large_domain_notice(const float domain_min[3], const float domain_max[3], float spacing) {
  // Measured (docs/PHYSICS.md §9): the reference dam break at 2.5 cm kept its kinetic energy within
  // 1 % where a unit in the last place of its positions was 3e-4 of the spacing and lost 5.5 % at
  // 6e-4; so past 5e-4 of the spacing, at the farthest a position may lie from the library's origin.
  int axis = 0;
  for (int a = 1; a < 3; ++a)
    if (domain_max[a] - domain_min[a] > domain_max[axis] - domain_min[axis]) axis = a;
  const float extent = domain_max[axis] - domain_min[axis];
  const float far = 2.5f * extent;
  const float unit = std::nextafter(far, INFINITY) - far;
  if (!(unit > 5e-4f * spacing)) return "";
  char text[400];
  std::snprintf(text, sizeof text,
                "the domain spans %.6g m along axis %d, and positions in it may lie %.6g m from the origin the "
                "solver keeps them relative to, where a float resolves %.3g m, %.2g of the spacing: the water "
                "may lose energy it should keep (docs/PHYSICS.md section 9); use a smaller domain or a coarser "
                "spacing",
                static_cast<double>(extent), axis, static_cast<double>(far), static_cast<double>(unit),
                static_cast<double>(unit / spacing));
  return text;
}

SceneRunner::SceneRunner(Scene scene, RunOptions options) : scene_(std::move(scene)), options_(std::move(options)) {
  if (scene_.output.vdb && !vdb_available())
    throw RunError(scene_.source + ": output.vdb (--vdb): this pbf-sim was built without OpenVDB (Debian: "
                   "libopenvdb-dev), so it cannot write .vdb files");
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = scene_.backend;
  d.method = scene_.method;
  d.max_particles = scene_.max_particles;
  d.max_neighbors = scene_.max_neighbors;
  d.particle_spacing = scene_.spacing;
  d.kernel_radius = scene_.kernel_radius;
  d.rest_density = scene_.rest_density;
  for (int a = 0; a < 3; ++a) {
    d.domain_min[a] = scene_.domain.min[a];
    d.domain_max[a] = scene_.domain.max[a];
  }
  d.thread_count = options_.threads;
  check(pbf_solver_create(&d, &solver_), scene_.source);
  if (const std::string large = large_domain_notice(d.domain_min, d.domain_max, d.particle_spacing); !large.empty())
    notify(scene_.source + ": " + large);
  try {
    check(pbf_solver_get_desc(solver_, &desc_), scene_.source);
    scene_.params.struct_size = sizeof(pbf_params);
    check(pbf_solver_set_params(solver_, &scene_.params), scene_.source + ": parameters");
    for (size_t i = 0; i < scene_.planes.size(); ++i)
      check(pbf_solver_add_plane(solver_, scene_.planes[i].normal.data(), scene_.planes[i].offset, nullptr),
            scene_.source + ": " + block_key("planes", i));
    if (scene_.boundary_particles)
      check(pbf_solver_add_domain_boundary_particles(solver_, nullptr), scene_.source + ": boundary_particles");
    add_obstacles(0.0);
    for (size_t i = 0; i < scene_.fluid.size(); ++i) {
      const FluidBlock& b = scene_.fluid[i];
      if (b.shape == FluidBlock::Shape::Box)
        check(pbf_solver_fill_box(solver_, b.box.min.data(), b.box.max.data(), b.velocity.data(), nullptr),
              scene_.source + ": " + block_key("fluid", i));
      else if (b.shape == FluidBlock::Shape::Sphere)
        place_sphere(b, i);
      else
        place_mesh(b, i);
    }
    add_emitters();
    totals_.initial_particles = particle_count();
    // Frame 0 is written before any step: its densities are those of the placed fluid, not 0.
    check(pbf_solver_update_densities(solver_), scene_.source);
  } catch (...) {
    for (pbf_sdf* f : obstacle_fields_) pbf_sdf_destroy(f);
    pbf_surface_destroy(surface_);  // made for the obstacles' meshes, when the scene writes images
    pbf_solver_destroy(solver_);
    throw;
  }
}

SceneRunner::~SceneRunner() {
  for (pbf_sdf* f : obstacle_fields_) pbf_sdf_destroy(f);
  pbf_surface_destroy(surface_);
  pbf_solver_destroy(solver_);
}

pbf_surface* SceneRunner::surface() {
  if (!surface_) check(pbf_surface_create(&surface_), "");
  return surface_;
}

void SceneRunner::add_obstacles(double t) {
  check(pbf_solver_clear_obstacles(solver_), "");
  dynamic_obstacles_.clear();
  for (size_t i = 0; i < scene_.obstacles.size(); ++i) {
    const ObstacleSpec& o = scene_.obstacles[i];
    const std::string key = scene_.source + ": " + block_key("obstacles", i);
    if (obstacle_fields_.size() == i) {
      const float cell = field_cell(o.cell, scene_.spacing);
      pbf_sdf* field = nullptr;
      if (o.shape == ObstacleSpec::Shape::Box)
        check(pbf_sdf_box(o.half_extents.data(), cell, &field), key + ".box");
      else if (o.shape == ObstacleSpec::Shape::Sphere)
        check(pbf_sdf_sphere(o.radius, cell, &field), key + ".sphere");
      else
        check(pbf_sdf_from_mesh_file(o.mesh.path.c_str(), o.mesh.scale.data(), nullptr, nullptr, cell,
                                     field_band(scene_.spacing), &field),
              key + ".mesh.file");
      obstacle_fields_.push_back(field);
      if (!o.path.empty()) moving_obstacles_ = true;
      if (scene_.output.png) {
        check(pbf_sdf_build_surface(field, surface()), key);
        obstacle_meshes_.push_back(copy_surface(surface_));
      }
    }
    const Pose pose = obstacle_pose(o, t);
    uint32_t index = 0;
    check(pbf_solver_add_obstacle(solver_, obstacle_fields_[i], pose.rotation.data(), pose.position.data(), &index),
          key);
    if (o.friction || o.restitution)  // the one not given: the scene's parameters'
      check(pbf_solver_set_obstacle_material(solver_, index, o.friction.value_or(scene_.params.friction),
                                             o.restitution.value_or(scene_.params.restitution)),
            key + (o.friction ? ".friction" : ".restitution"));
    // A static solid's boundary particles are added once (a resumed run keeps them: checkpoints leave
    // them alone); a moving one's are attached to it, so they go with it when the obstacles are cleared
    // and come back with it here. So are a static one's when the forces are written: only attached
    // samples count in an obstacle's force.
    const bool dynamic = o.density > 0.0f;
    if (o.boundary_particles && (!o.path.empty() || dynamic || !scene_.output.forces.empty())) {
      check(pbf_solver_add_obstacle_boundary_particles(solver_, index, nullptr), key + ".boundary_particles");
    } else if (o.boundary_particles && !obstacle_samples_added_) {
      check(pbf_solver_add_sdf_boundary_particles(solver_, obstacle_fields_[i], pose.rotation.data(),
                                                  pose.position.data(), nullptr),
            key + ".boundary_particles");
    }
    if (dynamic) {
      // A body of uniform density: its mass properties from its field, thrown with its velocities.
      float mass = 0.0f, centre[3], inertia[9];
      check(pbf_sdf_mass_properties(obstacle_fields_[i], o.density, &mass, centre, inertia), key + ".density");
      check(pbf_solver_set_obstacle_dynamic(solver_, index, mass, centre, inertia), key + ".density");
      check(pbf_solver_set_obstacle_velocity(solver_, index, o.velocity.data(), o.angular_velocity.data()),
            key + ".velocity");
      dynamic_obstacles_.push_back(index);
    }
  }
  obstacle_samples_added_ = true;
}

std::vector<SurfaceMesh> SceneRunner::obstacle_surfaces(double t) const {
  std::vector<SurfaceMesh> out;
  for (size_t i = 0; i < obstacle_meshes_.size(); ++i) {
    Pose pose = obstacle_pose(scene_.obstacles[i], t);
    if (scene_.obstacles[i].density > 0.0f)  // a dynamic body is where the water has taken it
      check(pbf_solver_get_obstacle_pose(solver_, static_cast<uint32_t>(i), pose.rotation.data(), pose.position.data()),
            "");
    SurfaceMesh m = obstacle_meshes_[i];
    for (size_t v = 0; v < m.vertex_count(); ++v) {
      const Vec3 p = rotate(pose.rotation, {m.vertices[3 * v], m.vertices[3 * v + 1], m.vertices[3 * v + 2]});
      const Vec3 n = rotate(pose.rotation, {m.normals[3 * v], m.normals[3 * v + 1], m.normals[3 * v + 2]});
      for (int a = 0; a < 3; ++a) {
        m.vertices[3 * v + a] = p[a] + pose.position[a];
        m.normals[3 * v + a] = n[a];
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

// The rest lattice inside a closed mesh, placed and moving as the block says.
void SceneRunner::place_mesh(const FluidBlock& b, size_t index) {
  const std::string key = scene_.source + ": " + block_key("fluid", index);
  pbf_sdf* field = nullptr;
  check(pbf_sdf_from_mesh_file(b.mesh.path.c_str(), b.mesh.scale.data(), nullptr, nullptr, 0.5f * scene_.spacing,
                               field_band(scene_.spacing), &field),
        key + ".mesh.file");
  const pbf_status status =
      pbf_solver_fill_sdf(solver_, field, b.pose.rotation.data(), b.pose.position.data(), b.velocity.data(), nullptr);
  pbf_sdf_destroy(field);
  check(status, key);
}

void SceneRunner::check(pbf_status status, const std::string& context) const {
  if (status == PBF_OK) return;
  throw RunError((context.empty() ? "" : context + ": ") + pbf_last_error() + " (" + pbf_status_string(status) + ")");
}

void SceneRunner::add_emitters() {
  // An inlet whose disc, or whose flow in one frame, exceeds the solver's capacity can never do what
  // the scene says, and building its disc or its frame's discs would take time and memory without
  // bound (a radius of 1000 m, a rate of 1e30 particles/s, a speed of 3e38 m/s): the disc is counted
  // before it is built, and the flow checked with the emitter's own rate.
  const uint64_t capacity = desc_.max_particles;
  const float margin = wall_margin(scene_.spacing);
  const std::vector<Pose> poses = obstacle_poses();
  for (size_t i = 0; i < scene_.emitters.size(); ++i) {
    const EmitterSpec& spec = scene_.emitters[i];
    const std::string key = scene_.source + ": " + block_key("emitters", i);
    char text[512];
    if (Emitter::disc_count(spec.radius, scene_.spacing, capacity) > capacity) {
      std::snprintf(text, sizeof text,
                    ".radius: a disc of radius %g m at the spacing of %g m holds more particles than max_particles "
                    "(%llu); use a smaller radius, or a larger max_particles",
                    static_cast<double>(spec.radius), static_cast<double>(scene_.spacing),
                    static_cast<unsigned long long>(capacity));
      throw RunError(key + text);
    }
    const Emitter& e = emitters_.emplace_back(spec, scene_.spacing);
    const double per_frame = e.rate() / static_cast<double>(scene_.time.fps);
    if (!(per_frame <= static_cast<double>(capacity))) {
      if (spec.rate > 0.0f)
        std::snprintf(text, sizeof text,
                      ".rate: %g particles/s is %.3g particles a frame at %g frames/s, more than max_particles "
                      "(%llu) can hold; lower the rate, or raise max_particles",
                      static_cast<double>(spec.rate), per_frame, static_cast<double>(scene_.time.fps),
                      static_cast<unsigned long long>(capacity));
      else
        std::snprintf(text, sizeof text,
                      ".speed: at %g m/s discs of %zu particles leave one spacing (%g m) apart: %.3g particles "
                      "a frame at %g frames/s, more than max_particles (%llu) can hold; lower the speed or the "
                      "radius, or raise max_particles",
                      static_cast<double>(spec.speed), e.disc_size(), static_cast<double>(scene_.spacing), per_frame,
                      static_cast<double>(scene_.time.fps), static_cast<unsigned long long>(capacity));
      throw RunError(key + text);
    }
    // Particles of the disc dropped where the inlet places them (emit()): said once, when the run starts.
    const std::vector<float> disc = e.disc_on_plane();
    size_t near = 0, obstructed = 0;
    for (size_t p = 0; p < disc.size(); p += 3) {
      if (!inside(scene_.domain, &disc[p], margin)) ++near;
      else if (!clear_of_obstacles(&disc[p], poses)) ++obstructed;
    }
    if (near > 0) {
      std::snprintf(text, sizeof text,
                    ": %zu of the %zu particles of each disc lie outside the domain or nearer than half a "
                    "spacing (%g m) to one of its walls where the inlet places them: each is dropped until the "
                    "flow has carried it clear, if it does (the summary counts them); an inlet whose disc lies "
                    "at least half a spacing inside every wall emits all of them",
                    near, e.disc_size(), 0.5 * scene_.spacing);
      notify(key + text);
    }
    if (obstructed > 0) {
      std::snprintf(text, sizeof text,
                    ": %zu of the %zu particles of each disc lie inside an obstacle or nearer than half a spacing "
                    "(%g m) to one where the inlet places them at the start: each is dropped while it is there "
                    "(the summary counts them)",
                    obstructed, e.disc_size(), 0.5 * scene_.spacing);
      notify(key + text);
    }
  }
}

void SceneRunner::notify(const std::string& text) const {
  if (options_.message) {
    options_.message(text);
  } else {
    std::fprintf(stderr, "pbf-sim: %s\n", text.c_str());
    std::fflush(stderr);
  }
}

// The rest lattice (centres at centre + (i + 1/2) s) inside the sphere and at least half a spacing
// inside the domain, as pbf_solver_fill_box() and pbf_solver_fill_sdf() keep their points: a point
// nearer a wall would start compressed against it.
void SceneRunner::place_sphere(const FluidBlock& b, size_t index) {
  const double s = scene_.spacing;
  const double r = b.radius;
  const long m = static_cast<long>(std::ceil(r / s)) + 1;
  const std::vector<Pose> poses = obstacle_poses();
  std::vector<float> pos, vel;
  for (long k = -m; k < m; ++k)
    for (long j = -m; j < m; ++j)
      for (long i = -m; i < m; ++i) {
        const double o[3] = {(i + 0.5) * s, (j + 0.5) * s, (k + 0.5) * s};
        if (o[0] * o[0] + o[1] * o[1] + o[2] * o[2] > r * r) continue;
        float p[3];
        for (int a = 0; a < 3; ++a) p[a] = static_cast<float>(b.center[a] + o[a]);
        if (!inside(scene_.domain, p, wall_margin(s)) || !clear_of_obstacles(p, poses)) continue;
        pos.insert(pos.end(), p, p + 3);
        vel.insert(vel.end(), b.velocity.begin(), b.velocity.end());
      }
  check(pbf_solver_add_particles(solver_, pos.data(), vel.data(), pos.size() / 3),
        scene_.source + ": " + block_key("fluid", index));
}

std::vector<Pose> SceneRunner::obstacle_poses() const {
  std::vector<Pose> poses(obstacle_fields_.size());
  for (size_t i = 0; i < poses.size(); ++i)
    check(pbf_solver_get_obstacle_pose(solver_, static_cast<uint32_t>(i), poses[i].rotation.data(),
                                       poses[i].position.data()),
          "");
  return poses;
}

bool SceneRunner::clear_of_obstacles(const float p[3], const std::vector<Pose>& poses) const {
  for (size_t i = 0; i < poses.size(); ++i) {
    const Pose& pose = poses[i];
    // Into the obstacle's frame: p - position turned back by the conjugate rotation.
    const Quat back{-pose.rotation[0], -pose.rotation[1], -pose.rotation[2], pose.rotation[3]};
    const Vec3 local = rotate(back, {p[0] - pose.position[0], p[1] - pose.position[1], p[2] - pose.position[2]});
    float d = 0.0f;
    check(pbf_sdf_distance(obstacle_fields_[i], local.data(), &d), scene_.source + ": " + block_key("obstacles", i));
    if (d < wall_margin(scene_.spacing)) return false;
  }
  return true;
}

size_t SceneRunner::particle_count() const {
  size_t n = 0;
  check(pbf_solver_particle_count(solver_, &n), "");
  return n;
}

std::string bodies_checkpoint_path(const std::string& checkpoint) { return checkpoint + ".bodies.json"; }

namespace {

// The dynamic obstacles' poses and velocities as save_checkpoint() writes them: every number a float,
// written as the double it converts to exactly, so that it reads back to the same bits.
nlohmann::ordered_json bodies_json(pbf_solver* solver, const std::vector<uint32_t>& bodies) {
  nlohmann::ordered_json doc;
  doc["bodies"] = nlohmann::ordered_json::array();
  for (const uint32_t index : bodies) {
    float rotation[4], translation[3], linear[3], angular[3];
    if (pbf_solver_get_obstacle_pose(solver, index, rotation, translation) != PBF_OK ||
        pbf_solver_get_obstacle_velocity(solver, index, linear, angular) != PBF_OK)
      throw RunError(std::string("obstacle ") + std::to_string(index) + ": " + pbf_last_error());
    nlohmann::ordered_json b;
    b["obstacle"] = index;
    b["rotation"] = std::vector<double>(rotation, rotation + 4);
    b["translation"] = std::vector<double>(translation, translation + 3);
    b["velocity"] = std::vector<double>(linear, linear + 3);
    b["angular_velocity"] = std::vector<double>(angular, angular + 3);
    doc["bodies"].push_back(b);
  }
  return doc;
}

// The checkpoint file's bytes as a hash, which ties the bodies saved beside it to it: a bodies file left from
// another save of the same path is refused rather than read.
std::string checkpoint_fingerprint(const std::string& checkpoint) {
  std::ifstream in(checkpoint, std::ios::binary);
  if (!in) throw RunError(checkpoint + ": cannot be read");
  // Read in pieces, so that a checkpoint of millions of particles is never held whole.
  std::vector<char> piece(1 << 20);
  size_t bytes = 0, hash = 0;
  while (in) {
    in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
    const size_t got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    bytes += got;
    hash = hash * 1099511628211ull ^ std::hash<std::string_view>{}(std::string_view(piece.data(), got));
  }
  if (in.bad()) throw RunError(checkpoint + ": cannot be read");
  char text[48];
  std::snprintf(text, sizeof text, "%zu bytes, %016llx", bytes, static_cast<unsigned long long>(hash));
  return text;
}

// Reads `n` finite numbers of b[key] into out, or throws naming the file and the key.
void read_floats(const nlohmann::json& b, const char* key, size_t n, float* out, const std::string& where) {
  if (!b.contains(key) || !b[key].is_array() || b[key].size() != n)
    throw RunError(where + "." + key + ": expected " + std::to_string(n) + " numbers");
  for (size_t k = 0; k < n; ++k) {
    const nlohmann::json& v = b[key][k];
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      throw RunError(where + "." + key + "[" + std::to_string(k) + "]: expected a finite number");
    out[k] = static_cast<float>(v.get<double>());
  }
}

}  // namespace

void SceneRunner::resume(const std::string& checkpoint, int start_frame) {
  check(pbf_solver_load_checkpoint(solver_, checkpoint.c_str()), "");
  frame_ = first_frame_ = start_frame;
  if (!scene_.obstacles.empty()) add_obstacles(time());
  if (!dynamic_obstacles_.empty()) restore_bodies(checkpoint);
  // Keep the earlier run's frames up to this one in the manifest.
  manifest_.clear();
  std::ifstream in(manifest_path());
  if (in) {
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_object() && doc.contains("frames") && doc["frames"].is_array())
      for (const nlohmann::json& f : doc["frames"]) {
        if (!f.is_object() || !f.contains("frame") || !f["frame"].is_number_integer()) continue;
        ManifestEntry e;
        e.frame = f["frame"].get<int>();
        if (e.frame > start_frame) continue;
        if (f.contains("time") && f["time"].is_number()) e.time = f["time"].get<double>();
        if (f.contains("particles") && f["particles"].is_number_unsigned()) e.particles = f["particles"].get<size_t>();
        for (const char* kind : kFrameKinds)
          if (f.contains(kind) && f[kind].is_string()) e.files.emplace_back(kind, f[kind].get<std::string>());
        manifest_.push_back(std::move(e));
      }
    std::sort(manifest_.begin(), manifest_.end(),
              [](const ManifestEntry& a, const ManifestEntry& b) { return a.frame < b.frame; });
  }
  for (Emitter& e : emitters_) e.start_at(time());
  totals_.initial_particles = particle_count();
  // Keep the earlier run's VTP frames in the collection.
  pvd_.clear();
  std::error_code ec;
  if (scene_.output.vtp && std::filesystem::is_directory(scene_.output.dir, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(scene_.output.dir, ec)) {
      const std::string name = entry.path().filename().string();
      // frame_NNNN.vtp is part 0 of its time, surface_NNNN.vtp part 1.
      const int part = name.compare(0, 8, "surface_") == 0 ? 1 : 0;
      const size_t prefix = part == 1 ? 8 : 6;
      if (name.size() < prefix + 5 || name.compare(0, prefix, part == 1 ? "surface_" : "frame_") != 0 ||
          name.compare(name.size() - 4, 4, ".vtp") != 0)
        continue;
      const std::string digits = name.substr(prefix, name.size() - prefix - 4);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
      const int number = std::atoi(digits.c_str());
      if (number <= start_frame) pvd_.push_back({number / static_cast<double>(scene_.time.fps), name, part});
    }
    std::sort(pvd_.begin(), pvd_.end(), [](const PvdEntry& a, const PvdEntry& b) {
      return a.time != b.time ? a.time < b.time : a.part < b.part;
    });
  }
}

void SceneRunner::save_checkpoint(const std::string& path) const {
  check(pbf_solver_save_checkpoint(solver_, path.c_str()), "");
  if (dynamic_obstacles_.empty()) return;
  nlohmann::ordered_json doc = bodies_json(solver_, dynamic_obstacles_);
  doc["checkpoint"] = checkpoint_fingerprint(path);
  AtomicFile f(bodies_checkpoint_path(path));
  f.write(doc.dump(1) + "\n");
  f.commit();
}

// The scene's dynamic obstacles, placed where the scene starts them (add_obstacles()), are moved to
// the poses and given the velocities the checkpoint's run left them with.
void SceneRunner::restore_bodies(const std::string& checkpoint) {
  const std::string path = bodies_checkpoint_path(checkpoint);
  std::ifstream in(path);
  if (!in)
    throw RunError("--resume: " + path + ": cannot be read; the scene has dynamic obstacles, whose poses and "
                   "velocities pbf-sim saves there beside the checkpoint (--checkpoint)");
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("bodies") || !doc["bodies"].is_array())
    throw RunError(path + ": expected a JSON object with an array \"bodies\"");
  const std::string fingerprint = checkpoint_fingerprint(checkpoint);
  if (!doc.contains("checkpoint") || !doc["checkpoint"].is_string() || doc["checkpoint"] != fingerprint)
    throw RunError(path + ": saved with another checkpoint than " + checkpoint + " (" + fingerprint +
                   "); both are written by one --checkpoint");
  const nlohmann::json& bodies = doc["bodies"];
  if (bodies.size() != dynamic_obstacles_.size())
    throw RunError(path + ": holds " + std::to_string(bodies.size()) + " bodies, the scene has " +
                   std::to_string(dynamic_obstacles_.size()) + " dynamic obstacles");
  for (size_t k = 0; k < bodies.size(); ++k) {
    const std::string where = path + ": bodies[" + std::to_string(k) + "]";
    const nlohmann::json& b = bodies[k];
    if (!b.is_object() || !b.contains("obstacle") || !b["obstacle"].is_number_unsigned() ||
        b["obstacle"].get<uint64_t>() != dynamic_obstacles_[k])
      throw RunError(where + ".obstacle: expected " + std::to_string(dynamic_obstacles_[k]) +
                     ", the scene's dynamic obstacle in that place");
    float rotation[4], translation[3], linear[3], angular[3];
    read_floats(b, "rotation", 4, rotation, where);
    read_floats(b, "translation", 3, translation, where);
    read_floats(b, "velocity", 3, linear, where);
    read_floats(b, "angular_velocity", 3, angular, where);
    check(pbf_solver_set_obstacle_pose(solver_, dynamic_obstacles_[k], rotation, translation), where);
    check(pbf_solver_set_obstacle_velocity(solver_, dynamic_obstacles_[k], linear, angular), where);
  }
}

void SceneRunner::advance() {
  const float dt = 1.0f / scene_.time.fps;
  if (moving_obstacles_) {
    const double end = (frame_ + 1) / static_cast<double>(scene_.time.fps);
    for (size_t i = 0; i < scene_.obstacles.size(); ++i) {
      if (scene_.obstacles[i].path.empty()) continue;
      const Pose pose = obstacle_pose(scene_.obstacles[i], end);
      check(pbf_solver_set_obstacle_pose(solver_, static_cast<uint32_t>(i), pose.rotation.data(), pose.position.data()),
            scene_.source + ": " + block_key("obstacles", i));
    }
  }
  check(pbf_solver_step(solver_, dt, static_cast<uint32_t>(scene_.time.substeps)), "");
  check(pbf_solver_get_stats(solver_, &stats_), "");
  ++frame_;
  ++totals_.frames;
  totals_.substeps += stats_.substeps;  // those taken: the CFL split may take more than asked for
  totals_.density_iterations += stats_.density_iterations;
  totals_.step_ms += stats_.time_total_ms;
  totals_.density_error_sum += stats_.avg_density_error;
  totals_.density_error_max = std::max(totals_.density_error_max, stats_.max_density_error);
  if (stats_.neighbor_overflows > 0) note_overflows();
  if (stats_.avg_density_error > kCompressedMean) note_compression();
  if (!emitters_.empty()) emit();
  if (!scene_.sinks.empty()) drain();
}

// Lists that overflow keep the nearest neighbours and leave the farthest out of the sums (docs/API.md,
// max_neighbors): the water there reads a lower density than it has. Said once; the totals count every frame.
void SceneRunner::note_overflows() {
  ++totals_.overflow_frames;
  totals_.overflows_max = std::max<size_t>(totals_.overflows_max, stats_.neighbor_overflows);
  if (overflow_notice_) return;
  overflow_notice_ = true;
  char text[256];
  std::snprintf(text, sizeof text,
                ": neighbour lists overflowed at frame %d (t = %.3f s): %u particles had more neighbours than "
                "the %u a list keeps (max_neighbors)",
                frame_, time(), static_cast<unsigned>(stats_.neighbor_overflows),
                static_cast<unsigned>(desc_.max_neighbors));
  notify(scene_.source + text +
         ": each kept its nearest, and the farthest are left out of its density and forces, so water squeezed "
         "there reads a lower density than it has; raise max_neighbors (--max-neighbors) (the summary counts the "
         "frames)");
}

// Water left compressed by more than 1 % on average: the method did not hold it at these steps (docs/API.md,
// pbf_solver_step: deep water, real-time steps). Said once, with what holds it; the totals count every frame.
void SceneRunner::note_compression() {
  ++totals_.compressed_frames;
  if (compression_notice_) return;
  compression_notice_ = true;
  char text[512];
  const int n = std::snprintf(text, sizeof text,
                              ": the water ended frame %d (t = %.3f s) compressed by %.2f %% on average (%.1f %% at "
                              "the most compressed particle)",
                              frame_, time(), 100.0 * stats_.avg_density_error, 100.0 * stats_.max_density_error);
  const size_t at = static_cast<size_t>(std::max(n, 0));
  if (scene_.method == PBF_METHOD_PROJECTIVE) {
    std::snprintf(text + at, sizeof text - at,
                  ": Projective Fluids holds it with a higher projective_stiffness, more projective_iterations or "
                  "shorter steps (max_dt)");
  } else {
    const unsigned most = stats_.iterations;  // a substep's most: max_iterations where the tolerance is on
    std::snprintf(text + at, sizeof text - at,
                  ": substeps of %.3g ms with %u density iteration%s each do not reach through water this deep; "
                  "more substeps hold it (time.substeps, --substeps)%s",
                  1000.0 * stats_.max_substep_dt, most, most == 1 ? "" : "s",
                  scene_.params.adaptive_dt ? ""
                                            : ", and adaptive_dt (off in this scene) takes them where the water "
                                              "needs them");
  }
  notify(scene_.source + text + " (the summary counts the frames)");
}

void SceneRunner::emit() {
  new_positions_.clear();
  new_velocities_.clear();
  const double t = time();
  // Each inlet places its discs no closer to the water already in its way than to each other
  // (Emitter::emit()): the positions are read once a frame, while an emitter runs.
  const double frame = 1.0 / scene_.time.fps;
  const size_t present = particle_count();
  bool read = false;
  for (Emitter& e : emitters_) {
    double ahead = std::numeric_limits<double>::infinity();
    if (present > 0 && e.running(t - frame, t)) {
      if (!read) {
        positions_.resize(3 * present);
        check(pbf_solver_get_positions(solver_, positions_.data(), positions_.size()), "");
        read = true;
      }
      ahead = e.room(positions_.data(), present);
    }
    e.emit(t, new_positions_, new_velocities_, ahead, &totals_.blocked);
  }
  // Drop what the flow carried out of the domain or nearer than half a spacing to a wall, or into an
  // obstacle where it is now, as the fills leave such points out: the solver accepts only particles
  // inside, and a particle at a wall or in a solid starts pressed into it and is thrown off it.
  const float margin = wall_margin(scene_.spacing);
  size_t kept = 0;
  const size_t n = new_positions_.size() / 3;
  const std::vector<Pose> poses = n > 0 ? obstacle_poses() : std::vector<Pose>{};
  for (size_t i = 0; i < n; ++i) {
    if (!inside(scene_.domain, &new_positions_[3 * i], margin)) {
      ++totals_.clipped;
      continue;
    }
    if (!clear_of_obstacles(&new_positions_[3 * i], poses)) {
      ++totals_.obstructed;
      continue;
    }
    std::copy_n(&new_positions_[3 * i], 3, &new_positions_[3 * kept]);
    std::copy_n(&new_velocities_[3 * i], 3, &new_velocities_[3 * kept]);
    ++kept;
  }
  const size_t count = particle_count();
  const size_t room = count < desc_.max_particles ? desc_.max_particles - count : 0;
  const size_t added = std::min(kept, room);
  if (added < kept) {
    totals_.refused += kept - added;
    if (!capacity_notice_) {
      capacity_notice_ = true;
      char text[256];
      std::snprintf(text, sizeof text,
                    "%s: max_particles (%u) reached at frame %d (t = %.3f s): emitted particles beyond it are "
                    "refused from now on (the summary counts them)",
                    scene_.source.c_str(), static_cast<unsigned>(desc_.max_particles), frame_, t);
      notify(text);
    }
  }
  if (added > 0) {
    check(pbf_solver_add_particles(solver_, new_positions_.data(), new_velocities_.data(), added), "emitters");
    totals_.emitted += added;
  }
}

void SceneRunner::drain() {
  const size_t n = particle_count();
  positions_.resize(3 * n);
  if (n > 0) check(pbf_solver_get_positions(solver_, positions_.data(), positions_.size()), "");
  doomed_.clear();
  for (size_t i = 0; i < n; ++i)
    for (const Sink& s : scene_.sinks)
      if (inside(s.box, &positions_[3 * i])) {
        doomed_.push_back(static_cast<uint32_t>(i));
        break;
      }
  if (doomed_.empty()) return;
  check(pbf_solver_remove_particles(solver_, doomed_.data(), doomed_.size()), "sinks");
  totals_.removed += doomed_.size();
}

bool SceneRunner::output_due() const {
  return frame_ % scene_.output.every == 0 || frame_ == first_frame_ || frame_ == last_frame();
}

std::string SceneRunner::frame_path(const std::string& ext) const {
  const int width = std::max(4, static_cast<int>(std::to_string(std::max(last_frame(), frame_)).size()));
  char name[64];
  std::snprintf(name, sizeof name, "frame_%0*d.", width, frame_);
  return (std::filesystem::path(scene_.output.dir) / (name + ext)).string();
}

std::string SceneRunner::pvd_path() const { return (std::filesystem::path(scene_.output.dir) / "frames.pvd").string(); }

void SceneRunner::write_output() {
  if (!scene_.output.ply && !scene_.output.vtp && !scene_.output.surface && !scene_.output.vdb && !scene_.output.png)
    return;
  if (!output_ready_) {
    std::error_code ec;
    std::filesystem::create_directories(scene_.output.dir, ec);
    if (ec) throw RunError("cannot create the folder '" + scene_.output.dir + "': " + ec.message());
    remove_stale_frames();
    output_ready_ = true;
  }
  ManifestEntry written;
  written.frame = frame_;
  written.time = time();
  written.particles = particle_count();
  auto name_of = [](const std::string& path) { return std::filesystem::path(path).filename().string(); };
  if (scene_.output.ply) {
    check(pbf_solver_write_ply(solver_, frame_path("ply").c_str()), "");
    written.files.emplace_back("ply", name_of(frame_path("ply")));
    ++totals_.ply_files;
  }
  if (scene_.output.vtp) {
    const size_t n = particle_count();
    positions_.resize(3 * n);
    velocities_.resize(3 * n);
    densities_.resize(n);
    if (n > 0) {
      check(pbf_solver_get_positions(solver_, positions_.data(), positions_.size()), "");
      check(pbf_solver_get_velocities(solver_, velocities_.data(), velocities_.size()), "");
      check(pbf_solver_get_densities(solver_, densities_.data(), densities_.size()), "");
    }
    const std::string path = frame_path("vtp");
    try {
      write_vtp(path, n, positions_.data(), velocities_.data(), densities_.data());
      add_to_pvd(std::filesystem::path(path).filename().string(), 0);
    } catch (const std::runtime_error& e) {
      throw RunError(e.what());
    }
    written.files.emplace_back("vtp", name_of(path));
    ++totals_.vtp_files;
  }
  bool surface_built = false;  // surface_ holds this frame's liquid
  // One copy of surface_ for every writer that needs the mesh's arrays (OBJ, VTP, VDB, the picture),
  // made at the first that asks.
  std::optional<SurfaceMesh> surface_copy;
  auto copied_surface = [&]() -> const SurfaceMesh& {
    if (!surface_copy) surface_copy = copy_surface(surface_);
    return *surface_copy;
  };
  // surface_NNNN.ply/.obj/.vdb (and .vtp) beside frame_NNNN.ply, numbered the same way.
  const std::filesystem::path frame(frame_path("ply"));
  const std::string stem = (frame.parent_path() / ("surface_" + frame.filename().string().substr(6, frame.filename().string().size() - 10))).string();
  if (scene_.output.surface || scene_.output.vdb) {
    pbf_surface_params params = pbf_surface_params_default();
    params.cell_size = scene_.output.surface_resolution;
    params.anisotropy = scene_.output.surface_anisotropy;
    const auto start = std::chrono::steady_clock::now();
    if (pbf_solver_build_surface(solver_, &params, surface()) != PBF_OK)
      throw RunError(std::string("surface mesh: ") + pbf_last_error());
    totals_.surface_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    surface_built = true;
  }
  if (scene_.output.surface) {
    const bool ply = scene_.output.surface_format != OutputSpec::SurfaceFormat::Obj;
    const bool obj = scene_.output.surface_format != OutputSpec::SurfaceFormat::Ply;
    if (ply) {
      const std::string path = stem + ".ply";
      if (pbf_surface_write_ply(surface_, path.c_str()) != PBF_OK)
        throw RunError(std::string("surface mesh: ") + pbf_last_error());
      written.files.emplace_back("surface", name_of(path));
    }
    if (obj || scene_.output.vtp) {
      const SurfaceMesh& mesh = copied_surface();
      if (obj) {
        const std::string path = stem + ".obj";
        char comment[160];
        std::snprintf(comment, sizeof comment, "pbf-sim liquid surface, frame %d, t = %.6f s, %zu vertices, %zu triangles",
                      frame_, time(), mesh.vertex_count(), mesh.triangle_count());
        try {
          write_surface_obj(path, mesh, comment);
        } catch (const std::runtime_error& e) {
          throw RunError(std::string("surface mesh: ") + e.what());
        }
        written.files.emplace_back("surface_obj", name_of(path));
      }
      if (scene_.output.vtp) {
        const std::string vtp = stem + ".vtp";
        try {
          write_surface_vtp(vtp, mesh);
          add_to_pvd(std::filesystem::path(vtp).filename().string(), 1);
        } catch (const std::runtime_error& e) {
          throw RunError(std::string("surface mesh: ") + e.what());
        }
        written.files.emplace_back("surface_vtp", name_of(vtp));
      }
    }
    ++totals_.surface_files;
  }
  if (scene_.output.vdb) {
    const std::string path = stem + ".vdb";
    char description[160];
    std::snprintf(description, sizeof description, "pbf-sim liquid, frame %d, t = %.6f s, voxels of %g m", frame_,
                  time(), static_cast<double>(scene_.output.surface_resolution * scene_.spacing));
    const auto start = std::chrono::steady_clock::now();
    try {
      write_surface_vdb(path, copied_surface(), scene_.output.surface_resolution * scene_.spacing, description);
    } catch (const std::runtime_error& e) {
      throw RunError(std::string("output.vdb: ") + e.what());
    }
    totals_.vdb_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    written.files.emplace_back("surface_vdb", name_of(path));
    ++totals_.vdb_files;
  }
  if (scene_.output.png) {
    const size_t n = particle_count();
    positions_.resize(3 * n);
    velocities_.resize(3 * n);
    if (n > 0) {
      check(pbf_solver_get_positions(solver_, positions_.data(), positions_.size()), "");
      check(pbf_solver_get_velocities(solver_, velocities_.data(), velocities_.size()), "");
    }
    const std::string path = frame_path("png");
    try {
      const auto start = std::chrono::steady_clock::now();
      if (!renderer_) renderer_ = std::make_unique<FrameRenderer>();
      RenderSettings settings;
      settings.width = scene_.output.image_width;
      settings.height = scene_.output.image_height;
      settings.camera = scene_.output.has_camera ? scene_.output.camera
                                                 : default_camera(scene_.domain, settings.width, settings.height);
      settings.radius = 0.5f * scene_.spacing;
      settings.domain = scene_.domain;
      settings.solids = obstacle_surfaces(time());
      char label[64];
      std::snprintf(label, sizeof label, "t = %.3f s  frame %d", time(), frame_);
      settings.label = label;
      // One colour scale for the whole run, fixed at its first picture.
      if (!(picture_speed_scale_ > 0.0f)) picture_speed_scale_ = speed_scale(scene_, velocities_.data(), n);
      settings.speed_max = picture_speed_scale_;
      Image image;
      if (scene_.output.image_style == OutputSpec::ImageStyle::Water) {
        // The liquid's surface (the one just written, or one at the pictures' cell), and the spray it leaves out.
        if (!surface_built) {
          pbf_surface_params params = pbf_surface_params_default();
          params.cell_size = kPictureSurfaceCell;
          check(pbf_solver_build_surface(solver_, &params, surface()), "surface mesh");
        }
        const SurfaceMesh& liquid = copied_surface();
        const std::vector<float> spray = spray_particles(positions_.data(), n, scene_.spacing);
        settings.style = ImageStyle::Water;
        settings.liquid = &liquid;
        settings.radius = 0.35f * scene_.spacing;
        image = renderer_->render(spray.data(), nullptr, spray.size() / 3, settings);
      } else {
        settings.style = ImageStyle::Particles;
        image = renderer_->render(positions_.data(), velocities_.data(), n, settings);
      }
      totals_.render_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      write_png(path, image);
    } catch (const std::exception& e) {
      throw RunError(std::string("picture: ") + e.what());
    }
    if (std::find(png_paths_.begin(), png_paths_.end(), path) == png_paths_.end()) png_paths_.push_back(path);
    written.files.emplace_back("png", name_of(path));
    ++totals_.png_files;
  }
  write_manifest(std::move(written));
}

namespace {

// Whether `name` is a frame file as pbf-sim names them (frame_NNNN.ply/.vtp/.png, surface_NNNN.ply/.vtp/.obj).
bool frame_file_name(const std::string& name) {
  size_t digits = 0;
  if (name.compare(0, 6, "frame_") == 0)
    digits = 6;
  else if (name.compare(0, 8, "surface_") == 0)
    digits = 8;
  else
    return false;
  const size_t dot = name.find('.', digits);
  if (dot == std::string::npos || dot == digits) return false;
  if (name.find_first_not_of("0123456789", digits) != dot) return false;
  const std::string ext = name.substr(dot);
  return digits == 8 ? ext == ".ply" || ext == ".vtp" || ext == ".obj" || ext == ".vdb" : ext == ".ply" || ext == ".vtp" || ext == ".png";
}

}  // namespace

bool SceneRunner::will_write(const std::string& kind, const std::string& name) const {
  const bool ply_surface = scene_.output.surface_format != OutputSpec::SurfaceFormat::Obj;
  const bool obj_surface = scene_.output.surface_format != OutputSpec::SurfaceFormat::Ply;
  const bool on = kind == "ply" ? scene_.output.ply : kind == "vtp" ? scene_.output.vtp
                  : kind == "surface" ? scene_.output.surface && ply_surface
                  : kind == "surface_obj" ? scene_.output.surface && obj_surface
                  : kind == "surface_vtp" ? scene_.output.surface && scene_.output.vtp
                  : kind == "surface_vdb" ? scene_.output.vdb
                                          : kind == "png" && scene_.output.png;
  const size_t digits = name.find('_') + 1;  // surface_NNNN or frame_NNNN
  if (!on || digits == 0) return false;
  const long f = std::strtol(name.c_str() + digits, nullptr, 10);
  if (f < first_frame_ || f > last_frame() || !(f % scene_.output.every == 0 || f == first_frame_ || f == last_frame()))
    return false;
  const size_t width = std::max<size_t>(4, std::to_string(last_frame()).size());
  std::string number = std::to_string(f);
  if (number.size() < width) number.insert(0, width - number.size(), '0');
  if (kind == "surface") return name == "surface_" + number + ".ply";
  if (kind == "surface_vtp") return name == "surface_" + number + ".vtp";
  if (kind == "surface_vdb") return name == "surface_" + number + ".vdb";
  if (kind == "surface_obj") return name == "surface_" + number + ".obj";
  return name == "frame_" + number + "." + kind;
}

void SceneRunner::remove_stale_frames() {
  std::ifstream in(manifest_path());
  if (!in) return;
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (!doc.is_object() || doc.value("format", "") != "pbf-sim frames" || !doc.contains("frames") ||
      !doc["frames"].is_array())
    return;
  // What this run keeps of the earlier one: the frames up to a resumed run's first (resume()).
  std::vector<std::string> kept;
  for (const ManifestEntry& e : manifest_)
    for (const auto& kind_file : e.files) kept.push_back(kind_file.second);
  bool stale_vtp = false, stale_png = false;
  for (const nlohmann::json& f : doc["frames"]) {
    if (!f.is_object()) continue;
    for (const char* kind : kFrameKinds) {
      if (!f.contains(kind) || !f[kind].is_string()) continue;
      const std::string name = f[kind].get<std::string>();
      // Only what the manifest says pbf-sim wrote, named as pbf-sim names frames, and still a regular file.
      if (!frame_file_name(name) || std::find(kept.begin(), kept.end(), name) != kept.end()) continue;
      const std::filesystem::path file = std::filesystem::path(scene_.output.dir) / name;
      std::error_code ec;
      if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(file, ec))) continue;
      if (!std::filesystem::remove(file, ec) || ec) continue;
      if (!will_write(kind, name)) ++totals_.stale_files;
      stale_vtp = stale_vtp || std::string(kind) == "vtp" || std::string(kind) == "surface_vtp";
      stale_png = stale_png || std::string(kind) == "png";
    }
  }
  // The collection and the contact sheet of the earlier run's frames go with them, unless rewritten.
  std::error_code ec;
  if (stale_vtp && !scene_.output.vtp) std::filesystem::remove(pvd_path(), ec);
  if (stale_png && !(scene_.output.png && scene_.output.contact_sheet))
    std::filesystem::remove(std::filesystem::path(scene_.output.dir) / "contact_sheet.png", ec);
}

bool SceneRunner::write_stats() {
  try {
    // The first frame of this run was reached by no step of it.
    if (!scene_.output.forces.empty()) {
      if (!forces_file_)
        forces_file_ = std::make_unique<ObstacleTableWriter>(ObstacleTableWriter::Table::Forces, scene_.output.forces);
      forces_file_->write(frame_, time(), solver_, frame_ != first_frame_, dynamic_obstacles_);
    }
    if (!scene_.output.bodies.empty()) {
      if (!bodies_file_)
        bodies_file_ = std::make_unique<ObstacleTableWriter>(ObstacleTableWriter::Table::Bodies, scene_.output.bodies);
      bodies_file_->write(frame_, time(), solver_, frame_ != first_frame_, dynamic_obstacles_);
    }
    if (scene_.output.stats.empty()) return false;
    if (!stats_file_) stats_file_ = std::make_unique<StatsWriter>(scene_.output.stats);
    stats_file_->write(frame_, time(), solver_, frame_ == first_frame_ ? pbf_stats_default() : stats_);
  } catch (const std::runtime_error& e) {
    throw RunError(e.what());
  }
  return true;
}

std::string SceneRunner::manifest_path() const {
  return (std::filesystem::path(scene_.output.dir) / "frames.json").string();
}

void SceneRunner::add_to_pvd(const std::string& file, int part) {
  // A resumed run may rewrite a frame already listed: replace, never duplicate.
  pvd_.erase(std::remove_if(pvd_.begin(), pvd_.end(), [&](const PvdEntry& e) { return e.file == file; }), pvd_.end());
  pvd_.push_back({time(), file, part});
  write_pvd(pvd_path(), pvd_);
}

void SceneRunner::write_manifest(ManifestEntry entry) {
  // A resumed run may rewrite a frame already listed: replace it, keep frame order.
  manifest_.erase(std::remove_if(manifest_.begin(), manifest_.end(),
                                 [&](const ManifestEntry& e) { return e.frame == entry.frame; }),
                  manifest_.end());
  const auto at = std::upper_bound(manifest_.begin(), manifest_.end(), entry.frame,
                                   [](int f, const ManifestEntry& e) { return f < e.frame; });
  manifest_.insert(at, std::move(entry));
  nlohmann::ordered_json doc;
  doc["format"] = "pbf-sim frames";
  doc["version"] = 1;
  doc["scene"] = scene_.source;
  doc["fps"] = scene_.time.fps;
  doc["spacing"] = scene_.spacing;
  doc["frames"] = nlohmann::ordered_json::array();
  for (const ManifestEntry& e : manifest_) {
    nlohmann::ordered_json f;
    f["frame"] = e.frame;
    f["time"] = e.time;
    f["particles"] = e.particles;
    for (const auto& [kind, file] : e.files) f[kind] = file;
    doc["frames"].push_back(std::move(f));
  }
  try {
    write_text_atomically(manifest_path(), doc.dump(1) + "\n");
  } catch (const std::runtime_error& e) {
    throw RunError(e.what());
  }
}

std::string SceneRunner::write_contact_sheet() {
  if (!scene_.output.contact_sheet || png_paths_.empty()) return "";
  const std::string path = (std::filesystem::path(scene_.output.dir) / "contact_sheet.png").string();
  try {
    write_png(path, contact_sheet(png_paths_));
  } catch (const std::exception& e) {
    throw RunError(std::string("contact sheet: ") + e.what());
  }
  return path;
}

}  // namespace pbf_sim
