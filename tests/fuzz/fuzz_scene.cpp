// fuzz_scene - a libFuzzer target for pbf-sim's scene files (parse_scene and
// the SceneRunner that builds a run from a scene, and writes what it asks for).
//
// An input is the JSON text of a scene. The corpus starts from the shipped
// scenes (samples/scenes, also the folder mesh files are found from) with a
// dictionary of the scene keys (scene.dict). A scene that parses is run as
// pbf-sim runs it, for two frames, within limits that keep an input to a
// fraction of a second or two: at most 4000 particles (a scene whose blocks
// hold more than about 500 is run at a coarser spacing, as pbf-sim --spacing
// runs it), a domain of at most a million
// grid cells, obstacle and mesh fields of at most 2^19 samples each (2^20 in
// all), 4 substeps asked for a frame, one thread. Mesh files are those of the
// shipped scenes only (samples/scenes/meshes; any other path the input names
// skips it: mesh files have their own target, fuzz_mesh_loader). Every
// output the scene asks for is written as pbf-sim writes it (each frame's
// files, the statistics, forces and bodies tables, the contact sheet), into a
// folder of this process's own in the temporary folder, whatever paths the
// input names, with pictures of at most 64 x 64 pixels and surface cells of
// at least half a spacing.
//
// Fails the run: a crash, a hang (-timeout) or a sanitizer report; any
// exception but a SceneError from the parser or a RunError from the run; a
// SceneError that does not begin with the file's name; an empty notice or
// RunError; a run that leaves a position that is not finite; a manifest
// (frames.json) that does not list every frame written, or a table that does
// not hold a header and the rows the runner says it wrote.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "fuzz_files.h"
#include "geometry/mesh_loader.h"
#include "geometry/triangle_mesh.h"
#include "scene.h"
#include "scene_runner.h"

namespace {

using pbf_fuzz::fail;
namespace fs = std::filesystem;

constexpr uint32_t kMaxParticles = 4000;
constexpr double kBlockParticles = 500;  // a scene's blocks are run at a spacing that gives them about this many
constexpr double kMaxCells = 1e6;
constexpr double kMaxFieldSamples = 1 << 19, kMaxAllFieldSamples = 1 << 20;
constexpr int kMaxPicture = 64;          // pixels along either side
constexpr float kMinSurfaceCell = 0.5f;  // spacings
constexpr int kFrames = 2;

// A mesh file of the shipped scenes and the extents of its bounds at scale 1 [m].
struct KnownMesh {
  fs::path path;  // canonical
  double extent[3];
};

const std::vector<KnownMesh>& known_meshes() {
  static const std::vector<KnownMesh> meshes = [] {
    std::vector<KnownMesh> found;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(fs::path(PBF_FUZZ_SCENES_DIR) / "meshes", ec)) {
      KnownMesh m;
      m.path = fs::canonical(e.path(), ec);
      if (ec) continue;
      try {
        const pbf::Bounds b = pbf::mesh_bounds(pbf::load_mesh(m.path.string()));
        m.extent[0] = double{b.hi.x} - b.lo.x;
        m.extent[1] = double{b.hi.y} - b.lo.y;
        m.extent[2] = double{b.hi.z} - b.lo.z;
      } catch (const pbf::Error&) {
        continue;  // not a mesh file (the folder's README)
      }
      found.push_back(m);
    }
    if (found.empty()) fail("no mesh of the shipped scenes could be read from " PBF_FUZZ_SCENES_DIR "/meshes");
    return found;
  }();
  return meshes;
}

// The extents of the shipped mesh `mesh` names, scaled; false for any other file.
bool scaled_mesh_extent(const pbf_sim::MeshFile& mesh, double extent[3]) {
  std::error_code ec;
  const fs::path path = fs::weakly_canonical(mesh.path, ec);
  if (ec) return false;
  for (const KnownMesh& m : known_meshes()) {
    if (m.path != path) continue;
    for (int a = 0; a < 3; ++a) extent[a] = m.extent[a] * std::fabs(double{mesh.scale[a]});
    return true;
  }
  return false;
}

// Samples of a field of `cell` over `extent`, as the library lays its grids out (4 cells either side).
double field_samples(const double extent[3], double cell) {
  double n = 1.0;
  for (int a = 0; a < 3; ++a) n *= std::ceil(extent[a] / cell) + 9.0;
  return n;
}

// This process's own output folder, emptied for each input and removed when the run ends.
class OutputFolder {
 public:
  OutputFolder() : path_(fs::temp_directory_path() / ("fuzz_scene." + std::to_string(getpid()))) {}
  ~OutputFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& fresh() const {
    std::error_code ec;
    fs::remove_all(path_, ec);
    fs::create_directories(path_, ec);
    if (ec) fail("cannot create " + path_.string() + ": " + ec.message());
    return path_;
  }

 private:
  fs::path path_;
};

// About how many particles the scene's fluid blocks hold at its spacing (a mesh's block as its bounds');
// negative for a mesh of a file not shipped.
double block_particles(const pbf_sim::Scene& s) {
  double volume = 0.0;
  for (const pbf_sim::FluidBlock& b : s.fluid) {
    double extent[3] = {0.0, 0.0, 0.0};
    if (b.shape == pbf_sim::FluidBlock::Shape::Box) {
      for (int a = 0; a < 3; ++a) extent[a] = std::max(0.0, double{b.box.max[a]} - b.box.min[a]);
    } else if (b.shape == pbf_sim::FluidBlock::Shape::Sphere) {
      for (int a = 0; a < 3; ++a) extent[a] = 2.0 * b.radius;
    } else if (!scaled_mesh_extent(b.mesh, extent)) {
      return -1.0;
    }
    volume += extent[0] * extent[1] * extent[2];
  }
  return volume / (double{s.spacing} * s.spacing * s.spacing);
}

// Whether a parsed scene is small enough to run here, and made so: its spacing, capacity, steps, fields and
// output. A scene whose blocks hold more than kBlockParticles is run coarser, as pbf-sim --spacing would
// run it, rather than refused for its capacity.
bool limit(pbf_sim::Scene& s, const fs::path& folder) {
  const double particles = block_particles(s);
  if (particles < 0.0) return false;
  if (particles > kBlockParticles) {
    const double spacing = s.spacing * std::cbrt(particles / kBlockParticles);
    if (!(spacing <= 1e6)) return false;
    pbf_sim::set_spacing(s, float(spacing));
  }
  const double h = s.kernel_radius > 0.0f ? s.kernel_radius : 2.0 * s.spacing;
  double cells = 1.0;
  for (int a = 0; a < 3; ++a) cells *= std::ceil((double{s.domain.max[a]} - s.domain.min[a]) / h);
  if (!(cells <= kMaxCells)) return false;
  double all = 0.0;
  const auto fits = [&](const double extent[3], double cell) {
    const double n = field_samples(extent, cell);
    all += n;
    return n <= kMaxFieldSamples && all <= kMaxAllFieldSamples;
  };
  for (const pbf_sim::FluidBlock& b : s.fluid) {
    double extent[3];
    if (b.shape == pbf_sim::FluidBlock::Shape::Mesh &&
        !(scaled_mesh_extent(b.mesh, extent) && fits(extent, 0.5 * s.spacing)))
      return false;
  }
  for (const pbf_sim::ObstacleSpec& o : s.obstacles) {
    double extent[3];
    if (o.shape == pbf_sim::ObstacleSpec::Shape::Mesh) {
      if (!scaled_mesh_extent(o.mesh, extent)) return false;
    } else {
      for (int a = 0; a < 3; ++a)
        extent[a] = o.shape == pbf_sim::ObstacleSpec::Shape::Box ? 2.0 * o.half_extents[a] : 2.0 * o.radius;
    }
    if (!fits(extent, o.cell > 0.0f ? o.cell : 0.5 * s.spacing)) return false;
  }
  s.max_particles = std::min(s.max_particles, kMaxParticles);
  s.time.substeps = std::min(s.time.substeps, 4);
  s.time.frames = kFrames;
  pbf_sim::OutputSpec& out = s.output;
  out.dir = (folder / "out").string();
  const auto keep_inside = [&](std::string& table, const char* name) {
    if (!table.empty()) table = (folder / name).string();
  };
  keep_inside(out.stats, "stats.csv");
  keep_inside(out.forces, "forces.csv");
  keep_inside(out.bodies, "bodies.csv");
  out.image_width = std::min(out.image_width, kMaxPicture);
  out.image_height = std::min(out.image_height, kMaxPicture);
  out.surface_resolution = std::max(out.surface_resolution, kMinSurfaceCell);
  return true;
}

// The lines of the text file at `path` (0 when it cannot be read).
size_t line_count(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// The promises of the files a run wrote: every frame written listed in the manifest, in order, and each
// table a header and the rows the runner counted.
void check_files(const pbf_sim::SceneRunner& runner, const std::vector<int>& written) {
  const pbf_sim::OutputSpec& out = runner.scene().output;
  if (!written.empty()) {
    std::ifstream in(runner.manifest_path());
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.contains("frames") || !doc["frames"].is_array())
      fail("frames were written but " + runner.manifest_path() + " is not a manifest");
    std::vector<int> listed;
    for (const nlohmann::json& f : doc["frames"]) listed.push_back(f.value("frame", -1));
    if (listed != written) fail("the manifest does not list the frames written");
  }
  const auto table = [](const std::string& path, size_t rows, const char* what) {
    if (path.empty()) return;
    if (rows > 0 && line_count(path) != rows + 1)
      fail(std::string("the ") + what + " table does not hold a header and the " + std::to_string(rows) +
           " rows written");
  };
  table(out.stats, runner.stats_rows(), "statistics");
  table(out.forces, runner.forces_rows(), "forces");
  table(out.bodies, runner.bodies_rows(), "bodies");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const OutputFolder folder;
  const std::string text(reinterpret_cast<const char*>(data), size);
  pbf_sim::Scene scene;
  try {
    scene = pbf_sim::parse_scene(text, "fuzz.json", PBF_FUZZ_SCENES_DIR);
  } catch (const pbf_sim::SceneError& e) {
    if (std::string(e.what()).rfind("fuzz.json: ", 0) != 0)
      fail(std::string("a refusal without the file's name: ") + e.what());
    return 0;
  }
  if (!limit(scene, folder.fresh())) return 0;
  pbf_sim::RunOptions options;
  options.threads = 1;
  options.message = [](const std::string& m) {
    if (m.empty()) fail("an empty notice");
  };
  try {
    pbf_sim::SceneRunner runner(scene, options);
    std::vector<int> written;
    const auto write = [&] {
      if (runner.output_due()) {
        runner.write_output();
        const pbf_sim::OutputSpec& o = runner.scene().output;
        if (o.ply || o.vtp || o.surface || o.vdb || o.png) written.push_back(runner.frame());
      }
      runner.write_stats();
    };
    write();
    while (runner.frame() < runner.last_frame()) {
      runner.advance();
      write();
    }
    runner.write_contact_sheet();
    std::vector<float> x(3 * runner.particle_count());
    if (!x.empty() && pbf_solver_get_positions(runner.solver(), x.data(), x.size()) != PBF_OK)
      fail(std::string("reading the positions failed: ") + pbf_last_error());
    for (float v : x)
      if (!std::isfinite(v)) fail("a position that is not finite after two frames");
    check_files(runner, written);
  } catch (const pbf_sim::RunError& e) {
    if (std::string(e.what()).empty()) fail("a RunError without a message");
  }
  return 0;
}
