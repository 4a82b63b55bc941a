// scene.cpp - reads a scene from JSON: a SAX pass finds syntax errors and
// duplicate keys with the path where they occur, then the document is
// checked key by key into the plain Scene struct.
#include "scene.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

namespace pbf_sim {

namespace {

using json = nlohmann::json;

// The largest particle capacity pbf_solver_desc accepts (2^28).
constexpr int64_t kMaxParticles = int64_t{1} << 28;
// pbf_solver_desc.max_neighbors when given (docs/API.md).
constexpr int64_t kMinNeighbors = 8;
constexpr int64_t kMaxNeighbors = 1024;

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

std::string at_index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

[[noreturn]] void fail(const std::string& source, const std::string& path, const std::string& reason) {
  throw SceneError(source + ": " + (path.empty() ? "" : path + ": ") + reason);
}

// Follows the parser through the text so that a syntax error or a repeated
// key can be reported with the key path it occurred at.
class PathTracker : public nlohmann::json_sax<json> {
 public:
  explicit PathTracker(const std::string& text) : text_(text) {}

  bool null() override { return element_done(); }
  bool boolean(bool) override { return element_done(); }
  bool number_integer(number_integer_t) override { return element_done(); }
  bool number_unsigned(number_unsigned_t) override { return element_done(); }
  bool number_float(number_float_t, const string_t&) override { return element_done(); }
  bool string(string_t&) override { return element_done(); }
  bool binary(binary_t&) override { return element_done(); }
  bool start_object(std::size_t) override {
    stack_.push_back(Frame{});
    return true;
  }
  bool key(string_t& k) override {
    Frame& f = stack_.back();
    if (!f.keys.insert(k).second) {
      path_ = join(path(stack_.size() - 1), k);
      reason_ = "duplicate key (each key may appear once per object)";
      return false;
    }
    f.key = k;
    f.has_key = true;
    return true;
  }
  bool end_object() override { return end_container(); }
  bool start_array(std::size_t) override {
    Frame f;
    f.array = true;
    stack_.push_back(f);
    return true;
  }
  bool end_array() override { return end_container(); }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) override {
    path_ = path(stack_.size());
    reason_ = ex.what();
    // "[json.exception.parse_error.101] parse error at line 3, ..." -> "parse error at line 3, ..."
    const size_t close = reason_.find("] ");
    if (reason_.rfind("[json.exception", 0) == 0 && close != std::string::npos) reason_.erase(0, close + 2);
    // A value that starts like NaN or Infinity is the commonest invalid literal: say why it is refused.
    const size_t end = std::min(position, text_.size());
    const size_t begin = end > last_token.size() + 1 ? end - last_token.size() - 1 : 0;
    std::string near = text_.substr(begin, end - begin + 3);
    for (char& c : near) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (near.find("nan") != std::string::npos || near.find("inf") != std::string::npos)
      reason_ += " (JSON has no NaN or Infinity: numbers must be finite)";
    return false;
  }

  const std::string& error_path() const { return path_; }
  const std::string& error_reason() const { return reason_; }

 private:
  struct Frame {
    bool array = false;
    size_t index = 0;
    bool has_key = false;
    std::string key;
    std::set<std::string> keys;
  };

  bool element_done() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
    return true;
  }
  bool end_container() {
    stack_.pop_back();
    return element_done();
  }
  // The path through the first `depth` open containers.
  std::string path(size_t depth) const {
    std::string p;
    for (size_t d = 0; d < depth; ++d) {
      const Frame& f = stack_[d];
      if (f.array)
        p = at_index(p, f.index);
      else if (f.has_key)
        p = join(p, f.key);
    }
    return p;
  }

  const std::string& text_;
  std::vector<Frame> stack_;
  std::string path_;
  std::string reason_;
};

// A short description of a JSON value for messages: the value itself, or its kind.
std::string describe(const json& j) {
  if (j.is_object()) return "an object";
  if (j.is_array()) return j.empty() ? "an empty array" : "an array of " + std::to_string(j.size()) + " elements";
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

std::string number_text(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

// Checks and converts values, naming the key path of each failure.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& reason) const {
    pbf_sim::fail(source_, path, reason);
  }

  // `j` must be an object whose keys are all among `known`.
  void object(const json& j, const std::string& path, std::initializer_list<const char*> known) const {
    if (!j.is_object()) fail(path, "expected an object, got " + describe(j));
    for (auto it = j.begin(); it != j.end(); ++it) {
      bool ok = false;
      for (const char* k : known) ok = ok || it.key() == k;
      if (ok) continue;
      std::string list;
      for (const char* k : known) list += std::string(list.empty() ? "" : ", ") + k;
      fail(join(path, it.key()), "unknown key (known keys here: " + list + ")");
    }
  }

  const json* find(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  const json& require(const json& obj, const std::string& path, const char* key) const {
    const json* v = find(obj, key);
    if (!v) fail(join(path, key), "required key is missing");
    return *v;
  }

  // A finite number that a float can hold.
  float real(const json& j, const std::string& path) const {
    if (!j.is_number()) fail(path, "expected a number, got " + describe(j));
    const double v = j.get<double>();
    if (!std::isfinite(v)) fail(path, "expected a finite number, got " + describe(j));
    if (std::fabs(v) > 3.4e38) fail(path, "expected a number within single precision (|x| <= 3.4e38), got " + describe(j));
    return static_cast<float>(v);
  }

  // As real(), in double precision (times).
  double real_double(const json& j, const std::string& path) const {
    if (!j.is_number()) fail(path, "expected a number, got " + describe(j));
    const double v = j.get<double>();
    if (!std::isfinite(v)) fail(path, "expected a finite number, got " + describe(j));
    return v;
  }

  float positive(const json& j, const std::string& path) const {
    const float v = real(j, path);
    if (!(v > 0.0f)) fail(path, "expected a number > 0, got " + describe(j));
    return v;
  }

  float non_negative(const json& j, const std::string& path) const {
    const float v = real(j, path);
    if (v < 0.0f) fail(path, "expected a number >= 0, got " + describe(j));
    return v;
  }

  // A whole number in [lo, hi]; 3.0 counts as 3.
  int64_t integer(const json& j, const std::string& path, int64_t lo, int64_t hi) const {
    if (!j.is_number()) fail(path, "expected an integer, got " + describe(j));
    int64_t v = 0;
    if (j.is_number_unsigned()) {
      const uint64_t u = j.get<uint64_t>();
      if (u > static_cast<uint64_t>(hi)) fail(path, range_text(lo, hi) + ", got " + describe(j));
      v = static_cast<int64_t>(u);
    } else if (j.is_number_integer()) {
      v = j.get<int64_t>();
    } else {
      const double d = j.get<double>();
      if (!std::isfinite(d) || d != std::floor(d)) fail(path, "expected an integer, got " + describe(j));
      if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) fail(path, range_text(lo, hi) + ", got " + describe(j));
      v = static_cast<int64_t>(d);
    }
    if (v < lo || v > hi) fail(path, range_text(lo, hi) + ", got " + describe(j));
    return v;
  }

  bool boolean(const json& j, const std::string& path) const {
    if (!j.is_boolean()) fail(path, "expected true or false, got " + describe(j));
    return j.get<bool>();
  }

  std::string text(const json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, "expected a string, got " + describe(j));
    return j.get<std::string>();
  }

  Vec3 vec3(const json& j, const std::string& path) const {
    if (!j.is_array() || j.size() != 3) fail(path, "expected an array of 3 numbers, got " + describe(j));
    Vec3 v;
    for (size_t a = 0; a < 3; ++a) v[a] = real(j[a], at_index(path, a));
    return v;
  }

  Vec3 nonzero_vec3(const json& j, const std::string& path) const {
    const Vec3 v = vec3(j, path);
    if (v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f) fail(path, "expected a non-zero vector, got [0, 0, 0]");
    return v;
  }

  // {"min": [x, y, z], "max": [x, y, z]} with max >= min (max > min when `strict`).
  Box box(const json& j, const std::string& path, bool strict) const {
    object(j, path, {"min", "max"});
    Box b;
    b.min = vec3(require(j, path, "min"), join(path, "min"));
    b.max = vec3(require(j, path, "max"), join(path, "max"));
    for (int a = 0; a < 3; ++a) {
      const bool bad = strict ? !(b.max[a] > b.min[a]) : b.max[a] < b.min[a];
      if (bad)
        fail(at_index(join(path, "max"), a), std::string("must be ") + (strict ? "greater than" : "at least") + " min[" +
                                              std::to_string(a) + "] = " + number_text(b.min[a]) + ", got " +
                                              number_text(b.max[a]));
    }
    return b;
  }

  // A list under `key` (optional: an absent key is an empty list).
  const json* list(const json& obj, const std::string& path, const char* key) const {
    const json* v = find(obj, key);
    if (v && !v->is_array()) fail(join(path, key), "expected an array, got " + describe(*v));
    return v;
  }

 private:
  static std::string range_text(int64_t lo, int64_t hi) {
    if (hi == INT64_MAX) return "expected an integer >= " + std::to_string(lo);
    return "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  }

  std::string source_;
};

json parse_json(const std::string& text, const std::string& source) {
  PathTracker tracker(text);
  if (!json::sax_parse(text, &tracker)) fail(source, tracker.error_path(), tracker.error_reason());
  return json::parse(text);
}

void read_params(const Reader& r, const json& j, const std::string& path, pbf_params& p) {
  r.object(j, path,
           {"gravity", "iterations", "relaxation", "unilateral", "artificial_pressure_k", "artificial_pressure_n",
            "artificial_pressure_dq", "xsph_viscosity", "vorticity_epsilon", "restitution", "friction", "max_speed",
            "projective_stiffness", "projective_iterations", "projective_tolerance", "cg_max_iterations",
            "cg_tolerance", "newton_iterations", "newton_tolerance", "adaptive_dt", "cfl_number", "max_dt",
            "projective_chebyshev_rho", "density_tolerance", "max_iterations"});
  if (const json* v = r.find(j, "gravity")) {
    const Vec3 g = r.vec3(*v, join(path, "gravity"));
    for (int a = 0; a < 3; ++a) p.gravity[a] = g[a];
  }
  if (const json* v = r.find(j, "iterations"))
    p.iterations = static_cast<uint32_t>(r.integer(*v, join(path, "iterations"), 1, 100));
  // Flags: true/false, or 1/0.
  struct Flag {
    const char* key;
    int32_t* value;
  };
  for (const Flag& f : {Flag{"unilateral", &p.unilateral}, Flag{"adaptive_dt", &p.adaptive_dt}})
    if (const json* v = r.find(j, f.key)) {
      if (v->is_boolean())
        *f.value = v->get<bool>() ? 1 : 0;
      else
        *f.value = static_cast<int32_t>(r.integer(*v, join(path, f.key), 0, 1));
    }
  // Counts; their ranges are the library's.
  struct Count {
    const char* key;
    uint32_t* value;
  };
  for (const Count& c : {Count{"projective_iterations", &p.projective_iterations},
                         Count{"cg_max_iterations", &p.cg_max_iterations},
                         Count{"newton_iterations", &p.newton_iterations},
                         Count{"max_iterations", &p.max_iterations}})
    if (const json* v = r.find(j, c.key))
      *c.value = static_cast<uint32_t>(r.integer(*v, join(path, c.key), 1, 1000000));
  // Ranges of the remaining fields are the library's: pbf_solver_set_params names the field.
  struct Field {
    const char* key;
    float* value;
  };
  const Field fields[] = {{"relaxation", &p.relaxation},
                          {"artificial_pressure_k", &p.artificial_pressure_k},
                          {"artificial_pressure_n", &p.artificial_pressure_n},
                          {"artificial_pressure_dq", &p.artificial_pressure_dq},
                          {"xsph_viscosity", &p.xsph_viscosity},
                          {"vorticity_epsilon", &p.vorticity_epsilon},
                          {"restitution", &p.restitution},
                          {"friction", &p.friction},
                          {"max_speed", &p.max_speed},
                          {"projective_stiffness", &p.projective_stiffness},
                          {"projective_tolerance", &p.projective_tolerance},
                          {"cg_tolerance", &p.cg_tolerance},
                          {"newton_tolerance", &p.newton_tolerance},
                          {"cfl_number", &p.cfl_number},
                          {"max_dt", &p.max_dt},
                          {"projective_chebyshev_rho", &p.projective_chebyshev_rho},
                          {"density_tolerance", &p.density_tolerance}};
  for (const Field& f : fields)
    if (const json* v = r.find(j, f.key)) *f.value = r.real(*v, join(path, f.key));
}

bool overlaps(const Box& a, const Box& b) {
  for (int k = 0; k < 3; ++k)
    if (a.max[k] < b.min[k] || a.min[k] > b.max[k]) return false;
  return true;
}

bool contains(const Box& b, const Vec3& p) {
  for (int k = 0; k < 3; ++k)
    if (p[k] < b.min[k] || p[k] > b.max[k]) return false;
  return true;
}

// {"axis": [x, y, z], "degrees": a}: a turn of a degrees about the axis (right-handed).
Quat read_rotation(const Reader& r, const json& j, const std::string& path) {
  r.object(j, path, {"axis", "degrees"});
  const Vec3 axis = r.nonzero_vec3(r.require(j, path, "axis"), join(path, "axis"));
  const double degrees = r.real_double(r.require(j, path, "degrees"), join(path, "degrees"));
  const double len = std::sqrt(double{axis[0]} * axis[0] + double{axis[1]} * axis[1] + double{axis[2]} * axis[2]);
  const double half = 0.5 * degrees * 3.14159265358979323846 / 180.0;
  const double s = std::sin(half) / len;
  return {static_cast<float>(axis[0] * s), static_cast<float>(axis[1] * s), static_cast<float>(axis[2] * s),
          static_cast<float>(std::cos(half))};
}

// {"file": "name.obj", "scale": s or [sx, sy, sz]}; the file is found from base_dir.
MeshFile read_mesh_file(const Reader& r, const json& j, const std::string& path, const std::string& base_dir) {
  r.object(j, path, {"file", "scale"});
  MeshFile m;
  m.file = r.text(r.require(j, path, "file"), join(path, "file"));
  if (m.file.empty()) r.fail(join(path, "file"), "expected a mesh file name, got \"\"");
  m.path = (base_dir.empty() || m.file.front() == '/') ? m.file : base_dir + "/" + m.file;
  if (const json* v = r.find(j, "scale")) {
    const std::string sp = join(path, "scale");
    if (v->is_number()) {
      const float k = r.positive(*v, sp);
      m.scale = {k, k, k};
    } else {
      m.scale = r.vec3(*v, sp);
      for (int a = 0; a < 3; ++a)
        if (!(m.scale[a] > 0.0f)) r.fail(at_index(sp, a), "expected a number > 0, got " + number_text(m.scale[a]));
    }
  }
  return m;
}

// "position" and "rotation" of an object, into `pose` (absent keys keep its values).
void read_pose(const Reader& r, const json& j, const std::string& path, Pose& pose) {
  if (const json* v = r.find(j, "position")) pose.position = r.vec3(*v, join(path, "position"));
  if (const json* v = r.find(j, "rotation")) pose.rotation = read_rotation(r, *v, join(path, "rotation"));
}

ObstacleSpec read_obstacle(const Reader& r, const json& j, const std::string& path, const std::string& base_dir) {
  r.object(j, path, {"box", "sphere", "mesh", "position", "rotation", "path", "cell", "boundary_particles", "density",
                     "velocity", "angular_velocity", "friction", "restitution"});
  const char* shapes[3] = {"box", "sphere", "mesh"};
  int given = 0;
  for (const char* k : shapes) given += r.find(j, k) ? 1 : 0;
  if (given != 1)
    r.fail(path, given == 0 ? "required key is missing: give a \"box\", a \"sphere\" or a \"mesh\""
                            : "has more than one of \"box\", \"sphere\" and \"mesh\"; give one shape per obstacle");
  ObstacleSpec o;
  if (const json* v = r.find(j, "box")) {
    const std::string sp = join(path, "box");
    r.object(*v, sp, {"half_extents"});
    o.shape = ObstacleSpec::Shape::Box;
    o.half_extents = r.vec3(r.require(*v, sp, "half_extents"), join(sp, "half_extents"));
    for (int a = 0; a < 3; ++a)
      if (!(o.half_extents[a] > 0.0f))
        r.fail(at_index(join(sp, "half_extents"), a), "expected a number > 0, got " + number_text(o.half_extents[a]));
  } else if (const json* v = r.find(j, "sphere")) {
    const std::string sp = join(path, "sphere");
    r.object(*v, sp, {"radius"});
    o.shape = ObstacleSpec::Shape::Sphere;
    o.radius = r.positive(r.require(*v, sp, "radius"), join(sp, "radius"));
  } else {
    o.shape = ObstacleSpec::Shape::Mesh;
    o.mesh = read_mesh_file(r, *r.find(j, "mesh"), join(path, "mesh"), base_dir);
  }
  read_pose(r, j, path, o.pose);
  if (const json* v = r.find(j, "cell")) o.cell = r.positive(*v, join(path, "cell"));
  if (const json* v = r.find(j, "boundary_particles")) {
    o.boundary_particles = r.boolean(*v, join(path, "boundary_particles"));
  }
  if (const json* list = r.list(j, path, "path")) {
    const std::string pp = join(path, "path");
    if (list->empty()) r.fail(pp, "expected at least one key, got []");
    if (r.find(j, "position") || r.find(j, "rotation"))
      r.fail(pp, "give either \"position\"/\"rotation\" (a static obstacle) or a \"path\", not both");
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string kp = at_index(pp, i);
      const json& k = (*list)[i];
      r.object(k, kp, {"time", "position", "rotation"});
      PoseKey key;
      key.time = r.real_double(r.require(k, kp, "time"), join(kp, "time"));
      if (key.time < 0.0) r.fail(join(kp, "time"), "expected a time >= 0, got " + describe(k["time"]));
      if (i > 0 && !(key.time > o.path.back().time))
        r.fail(join(kp, "time"), "must be later than the previous key's time = " + number_text(o.path.back().time) +
                                     ", got " + describe(k["time"]));
      key.pose = i > 0 ? o.path.back().pose : Pose{};
      r.require(k, kp, "position");
      read_pose(r, k, kp, key.pose);
      o.path.push_back(key);
    }
    o.pose = o.path.front().pose;
  }
  if (const json* v = r.find(j, "density")) {
    o.density = r.positive(*v, join(path, "density"));
    if (!o.path.empty())
      r.fail(join(path, "density"), "a dynamic body moves with the water; it cannot follow a \"path\" too");
  }
  for (const char* k : {"velocity", "angular_velocity"}) {
    const json* v = r.find(j, k);
    if (!v) continue;
    if (o.density == 0.0f)
      r.fail(join(path, k), "applies to a dynamic body only: give its \"density\" [kg/m^3]");
    (std::string(k) == "velocity" ? o.velocity : o.angular_velocity) = r.vec3(*v, join(path, k));
  }
  // Its surface's material, in the ranges of the parameters' friction and restitution.
  if (const json* v = r.find(j, "friction")) {
    o.friction = r.non_negative(*v, join(path, "friction"));
    if (*o.friction > 10.0f) r.fail(join(path, "friction"), "expected a number in [0, 10], got " + describe(*v));
  }
  if (const json* v = r.find(j, "restitution")) {
    o.restitution = r.non_negative(*v, join(path, "restitution"));
    if (*o.restitution > 1.0f) r.fail(join(path, "restitution"), "expected a number in [0, 1], got " + describe(*v));
  }
  return o;
}

FluidBlock read_block(const Reader& r, const json& j, const std::string& path, const Box& domain,
                      const std::string& base_dir) {
  r.object(j, path, {"box", "sphere", "mesh", "position", "rotation", "velocity"});
  const json* box = r.find(j, "box");
  const json* sphere = r.find(j, "sphere");
  const json* mesh = r.find(j, "mesh");
  const int given = (box ? 1 : 0) + (sphere ? 1 : 0) + (mesh ? 1 : 0);
  if (given != 1)
    r.fail(path, given == 0 ? "required key is missing: give a \"box\", a \"sphere\" or a \"mesh\""
                            : "has more than one of \"box\", \"sphere\" and \"mesh\"; give one shape per block");
  if (!mesh)
    for (const char* k : {"position", "rotation"})
      if (r.find(j, k)) r.fail(join(path, k), "applies to a \"mesh\" block only (a box or sphere is placed by its own keys)");
  FluidBlock b;
  if (box) {
    b.shape = FluidBlock::Shape::Box;
    b.box = r.box(*box, join(path, "box"), false);
    if (!overlaps(b.box, domain)) r.fail(join(path, "box"), "lies entirely outside the domain");
  } else if (sphere) {
    const std::string sp = join(path, "sphere");
    r.object(*sphere, sp, {"center", "radius"});
    b.shape = FluidBlock::Shape::Sphere;
    b.center = r.vec3(r.require(*sphere, sp, "center"), join(sp, "center"));
    b.radius = r.positive(r.require(*sphere, sp, "radius"), join(sp, "radius"));
    Box extent;
    for (int a = 0; a < 3; ++a) {
      extent.min[a] = b.center[a] - b.radius;
      extent.max[a] = b.center[a] + b.radius;
    }
    if (!overlaps(extent, domain)) r.fail(sp, "lies entirely outside the domain");
  } else {
    b.shape = FluidBlock::Shape::Mesh;
    b.mesh = read_mesh_file(r, *mesh, join(path, "mesh"), base_dir);
    read_pose(r, j, path, b.pose);
  }
  if (const json* v = r.find(j, "velocity")) b.velocity = r.vec3(*v, join(path, "velocity"));
  return b;
}

EmitterSpec read_emitter(const Reader& r, const json& j, const std::string& path, const Box& domain) {
  r.object(j, path, {"position", "direction", "speed", "radius", "rate", "start", "stop"});
  EmitterSpec e;
  e.position = r.vec3(r.require(j, path, "position"), join(path, "position"));
  if (!contains(domain, e.position)) r.fail(join(path, "position"), "lies outside the domain");
  e.direction = r.nonzero_vec3(r.require(j, path, "direction"), join(path, "direction"));
  const double len = std::sqrt(double{e.direction[0]} * e.direction[0] + double{e.direction[1]} * e.direction[1] +
                               double{e.direction[2]} * e.direction[2]);
  for (int a = 0; a < 3; ++a) e.direction[a] = static_cast<float>(e.direction[a] / len);
  e.speed = r.positive(r.require(j, path, "speed"), join(path, "speed"));
  e.radius = r.positive(r.require(j, path, "radius"), join(path, "radius"));
  if (const json* v = r.find(j, "rate")) e.rate = r.non_negative(*v, join(path, "rate"));
  if (const json* v = r.find(j, "start")) {
    e.start = r.real_double(*v, join(path, "start"));
    if (e.start < 0.0) r.fail(join(path, "start"), "expected a time >= 0, got " + describe(*v));
  }
  if (const json* v = r.find(j, "stop")) {
    e.stop = r.real_double(*v, join(path, "stop"));
    if (!(e.stop > e.start)) r.fail(join(path, "stop"), "must be later than start = " + number_text(e.start) + ", got " + describe(*v));
  }
  return e;
}

// output.camera: position and look_at required, up and fov optional.
CameraSpec read_camera(const Reader& r, const json& j, const std::string& path) {
  r.object(j, path, {"position", "look_at", "up", "fov"});
  CameraSpec c;
  c.position = r.vec3(r.require(j, path, "position"), join(path, "position"));
  c.look_at = r.vec3(r.require(j, path, "look_at"), join(path, "look_at"));
  const double d[3] = {double{c.look_at[0]} - c.position[0], double{c.look_at[1]} - c.position[1],
                       double{c.look_at[2]} - c.position[2]};
  const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  if (!(dd > 0.0)) r.fail(join(path, "look_at"), "must differ from position");
  if (const json* v = r.find(j, "up")) c.up = r.nonzero_vec3(*v, join(path, "up"));
  // |up x d|^2 against |up|^2 |d|^2: refuse an up within about 0.06 degrees of the view direction.
  const double u[3] = {c.up[0], c.up[1], c.up[2]};
  const double x[3] = {u[1] * d[2] - u[2] * d[1], u[2] * d[0] - u[0] * d[2], u[0] * d[1] - u[1] * d[0]};
  const double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  if (x[0] * x[0] + x[1] * x[1] + x[2] * x[2] <= 1e-6 * uu * dd)
    r.fail(join(path, "up"), "must not point along the view (from position to look_at); give another up");
  if (const json* v = r.find(j, "fov")) {
    c.fov = r.real(*v, join(path, "fov"));
    if (!(c.fov > 0.0f && c.fov < 180.0f))
      r.fail(join(path, "fov"), "expected a vertical field of view in degrees, > 0 and < 180, got " + describe(*v));
  }
  return c;
}

}  // namespace

Scene parse_scene(const std::string& text, const std::string& source, const std::string& base_dir) {
  const json root = parse_json(text, source);
  const Reader r(source);
  r.object(root, "",
           {"description", "domain", "backend", "method", "spacing", "kernel_radius", "rest_density", "max_particles",
            "max_neighbors", "boundary_particles", "parameters", "time", "fluid", "planes", "obstacles", "emitters", "sinks", "output"});
  Scene s;
  s.source = source;
  s.base_dir = base_dir;
  if (const json* v = r.find(root, "description")) s.description = r.text(*v, "description");
  s.domain = r.box(r.require(root, "", "domain"), "domain", true);
  if (const json* v = r.find(root, "backend")) {
    const std::string name = r.text(*v, "backend");
    if (name == "auto")
      s.backend = PBF_BACKEND_AUTO;
    else if (name == "cpu")
      s.backend = PBF_BACKEND_CPU;
    else if (name == "cuda")
      s.backend = PBF_BACKEND_CUDA;
    else
      r.fail("backend", "expected \"auto\", \"cpu\" or \"cuda\", got " + describe(*v));
  }
  if (const json* v = r.find(root, "method")) {
    const std::string name = r.text(*v, "method");
    if (name == "pbf")
      s.method = PBF_METHOD_PBF;
    else if (name == "projective")
      s.method = PBF_METHOD_PROJECTIVE;
    else
      r.fail("method", "expected \"pbf\" or \"projective\", got " + describe(*v));
  }
  if (const json* v = r.find(root, "boundary_particles")) s.boundary_particles = r.boolean(*v, "boundary_particles");
  s.spacing = r.positive(r.require(root, "", "spacing"), "spacing");
  if (const json* v = r.find(root, "kernel_radius")) s.kernel_radius = r.non_negative(*v, "kernel_radius");
  if (const json* v = r.find(root, "rest_density")) s.rest_density = r.positive(*v, "rest_density");
  if (const json* v = r.find(root, "max_particles"))
    s.max_particles = static_cast<uint32_t>(r.integer(*v, "max_particles", 1, kMaxParticles));
  if (const json* v = r.find(root, "max_neighbors")) {
    // One message for every value out of range, below 8 or above 1024 alike.
    const int64_t n = r.integer(*v, "max_neighbors", -kMaxParticles, kMaxParticles);
    if (n != 0 && (n < kMinNeighbors || n > kMaxNeighbors))
      r.fail("max_neighbors", "expected 0 (automatic) or an integer in [8, 1024], got " + describe(*v));
    s.max_neighbors = static_cast<uint32_t>(n);
  }
  if (const json* v = r.find(root, "parameters")) read_params(r, *v, "parameters", s.params);

  if (const json* t = r.find(root, "time")) {
    r.object(*t, "time", {"fps", "frames", "substeps"});
    if (const json* v = r.find(*t, "fps")) {
      s.time.fps = r.positive(*v, "time.fps");
      if (s.time.fps < 0.1f) r.fail("time.fps", "expected at least 0.1 (a frame may last at most 10 s), got " + describe(*v));
    }
    if (const json* v = r.find(*t, "frames")) s.time.frames = static_cast<int>(r.integer(*v, "time.frames", 1, 100000000));
    if (const json* v = r.find(*t, "substeps")) s.time.substeps = static_cast<int>(r.integer(*v, "time.substeps", 1, 1000));
  }

  if (const json* list = r.list(root, "", "fluid"))
    for (size_t i = 0; i < list->size(); ++i) s.fluid.push_back(read_block(r, (*list)[i], at_index("fluid", i), s.domain, base_dir));

  if (const json* list = r.list(root, "", "planes"))
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string path = at_index("planes", i);
      const json& j = (*list)[i];
      r.object(j, path, {"normal", "offset"});
      Plane p;
      p.normal = r.nonzero_vec3(r.require(j, path, "normal"), join(path, "normal"));
      p.offset = r.real(r.require(j, path, "offset"), join(path, "offset"));
      s.planes.push_back(p);
    }

  if (const json* list = r.list(root, "", "obstacles"))
    for (size_t i = 0; i < list->size(); ++i) {
      s.obstacles.push_back(read_obstacle(r, (*list)[i], at_index("obstacles", i), base_dir));
    }

  if (const json* list = r.list(root, "", "emitters"))
    for (size_t i = 0; i < list->size(); ++i)
      s.emitters.push_back(read_emitter(r, (*list)[i], at_index("emitters", i), s.domain));

  if (const json* list = r.list(root, "", "sinks"))
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string path = at_index("sinks", i);
      const json& j = (*list)[i];
      r.object(j, path, {"box"});
      Sink k;
      k.box = r.box(r.require(j, path, "box"), join(path, "box"), false);
      s.sinks.push_back(k);
    }

  if (const json* o = r.find(root, "output")) {
    r.object(*o, "output", {"dir", "ply", "vtp", "every", "surface", "surface_resolution", "surface_anisotropy", "surface_format", "vdb", "png",
                            "contact_sheet", "image", "image_style", "camera", "speed_max", "stats", "forces",
                            "bodies"});
    if (const json* v = r.find(*o, "dir")) {
      s.output.dir = r.text(*v, "output.dir");
      if (s.output.dir.empty()) r.fail("output.dir", "expected a folder name, got \"\"");
    }
    if (const json* v = r.find(*o, "ply")) s.output.ply = r.boolean(*v, "output.ply");
    if (const json* v = r.find(*o, "vtp")) s.output.vtp = r.boolean(*v, "output.vtp");
    if (const json* v = r.find(*o, "every")) s.output.every = static_cast<int>(r.integer(*v, "output.every", 1, 100000000));
    if (const json* v = r.find(*o, "surface")) s.output.surface = r.boolean(*v, "output.surface");
    if (const json* v = r.find(*o, "surface_resolution")) {
      s.output.surface_resolution = r.positive(*v, "output.surface_resolution");
      if (s.output.surface_resolution < 0.05f || s.output.surface_resolution > 4.0f)
        r.fail("output.surface_resolution", "expected a cell size from 0.05 to 4 spacings, got " + describe(*v));
    }
    if (const json* v = r.find(*o, "surface_anisotropy")) {
      s.output.surface_anisotropy = r.non_negative(*v, "output.surface_anisotropy");
      if (s.output.surface_anisotropy > 1.0f)
        r.fail("output.surface_anisotropy", "expected a number from 0 to 1, got " + describe(*v));
    }
    if (const json* v = r.find(*o, "surface_format")) {
      const std::string name = r.text(*v, "output.surface_format");
      if (name == "ply")
        s.output.surface_format = OutputSpec::SurfaceFormat::Ply;
      else if (name == "obj")
        s.output.surface_format = OutputSpec::SurfaceFormat::Obj;
      else if (name == "both")
        s.output.surface_format = OutputSpec::SurfaceFormat::Both;
      else
        r.fail("output.surface_format", "expected \"ply\", \"obj\" or \"both\", got " + describe(*v));
    }
    if (const json* v = r.find(*o, "vdb")) s.output.vdb = r.boolean(*v, "output.vdb");
    if (const json* v = r.find(*o, "png")) s.output.png = r.boolean(*v, "output.png");
    if (const json* v = r.find(*o, "contact_sheet")) s.output.contact_sheet = r.boolean(*v, "output.contact_sheet");
    if (const json* v = r.find(*o, "image")) {
      if (!v->is_array() || v->size() != 2)
        r.fail("output.image", "expected [width, height] in pixels, got " + describe(*v));
      s.output.image_width = static_cast<int>(r.integer((*v)[0], "output.image[0]", 16, 8192));
      s.output.image_height = static_cast<int>(r.integer((*v)[1], "output.image[1]", 16, 8192));
    }
    if (const json* v = r.find(*o, "image_style")) {
      const std::string name = r.text(*v, "output.image_style");
      if (name == "water")
        s.output.image_style = OutputSpec::ImageStyle::Water;
      else if (name == "particles")
        s.output.image_style = OutputSpec::ImageStyle::Particles;
      else
        r.fail("output.image_style", "expected \"water\" or \"particles\", got " + describe(*v));
    }
    if (const json* v = r.find(*o, "camera")) {
      s.output.camera = read_camera(r, *v, "output.camera");
      s.output.has_camera = true;
    }
    if (const json* v = r.find(*o, "speed_max")) s.output.speed_max = r.non_negative(*v, "output.speed_max");
    if (const json* v = r.find(*o, "stats")) {
      s.output.stats = r.text(*v, "output.stats");
      if (s.output.stats.empty()) r.fail("output.stats", "expected a file name, got \"\"");
    }
    if (const json* v = r.find(*o, "bodies")) {
      s.output.bodies = r.text(*v, "output.bodies");
      if (s.output.bodies.empty()) r.fail("output.bodies", "expected a file name, got \"\"");
    }
    if (const json* v = r.find(*o, "forces")) {
      s.output.forces = r.text(*v, "output.forces");
      if (s.output.forces.empty()) r.fail("output.forces", "expected a file name, got \"\"");
    }
  }
  return s;
}

Scene load_scene(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path + ": cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SceneError(path + ": cannot read the file");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_scene(text.str(), path, dir);
}

Scene builtin_dam_break(float spacing) {
  Scene s;
  s.source = "built-in dam break";
  s.description = "the reference dam break: a 0.975 m cube of water in a 4 x 3 x 1.5 m box";
  s.domain.min = {0.0f, 0.0f, 0.0f};
  s.domain.max = {4.0f, 3.0f, 1.5f};
  s.spacing = spacing;
  s.max_particles = 4000000u;
  // The block keeps its size at any spacing, as a scene file's blocks do (set_spacing()):
  // lattice centres at (i + 1/2) s from the corner, so 39 x 0.025 m holds 39 per axis at 0.025 m.
  FluidBlock block;
  const float side = 0.975f;  // 39 x 0.025 m
  block.box.max = {side, side, side};
  s.fluid.push_back(block);
  return s;
}

void set_spacing(Scene& scene, float spacing) {
  if (scene.kernel_radius > 0.0f) scene.kernel_radius *= spacing / scene.spacing;
  scene.spacing = spacing;
}

Pose obstacle_pose(const ObstacleSpec& o, double t) {
  if (o.path.empty()) return o.pose;
  if (t <= o.path.front().time) return o.path.front().pose;
  if (t >= o.path.back().time) return o.path.back().pose;
  size_t k = 1;
  while (o.path[k].time < t) ++k;
  const PoseKey& a = o.path[k - 1];
  const PoseKey& b = o.path[k];
  const double u = (t - a.time) / (b.time - a.time);
  Pose p;
  for (int i = 0; i < 3; ++i)
    p.position[i] = static_cast<float>(a.pose.position[i] + u * (double{b.pose.position[i]} - a.pose.position[i]));
  // Slerp along the shorter arc.
  double qa[4], qb[4], d = 0.0;
  for (int i = 0; i < 4; ++i) {
    qa[i] = a.pose.rotation[i];
    qb[i] = b.pose.rotation[i];
    d += qa[i] * qb[i];
  }
  if (d < 0.0) {
    d = -d;
    for (double& c : qb) c = -c;
  }
  double wa = 1.0 - u, wb = u;
  if (d < 0.9995) {
    const double theta = std::acos(std::min(d, 1.0));
    wa = std::sin((1.0 - u) * theta) / std::sin(theta);
    wb = std::sin(u * theta) / std::sin(theta);
  }
  double n = 0.0;
  for (int i = 0; i < 4; ++i) n += (wa * qa[i] + wb * qb[i]) * (wa * qa[i] + wb * qb[i]);
  n = std::sqrt(n);
  for (int i = 0; i < 4; ++i) p.rotation[i] = static_cast<float>((wa * qa[i] + wb * qb[i]) / n);
  return p;
}

const char* backend_key(pbf_backend backend) {
  switch (backend) {
    case PBF_BACKEND_CPU: return "cpu";
    case PBF_BACKEND_CUDA: return "cuda";
    default: return "auto";
  }
}

}  // namespace pbf_sim
