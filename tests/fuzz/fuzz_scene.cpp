// fuzz_scene - a libFuzzer target for pbf-sim's scene files (parse_scene and
// the SceneRunner that builds a run from a scene).
//
// An input is the JSON text of a scene. The corpus starts from the shipped
// scenes (samples/scenes, also the folder mesh files are found from) with a
// dictionary of the scene keys (scene.dict). A scene that parses is run as
// pbf-sim runs it, for two frames, within limits that keep an input to a
// fraction of a second: at most 4000 particles, a domain of at most a million
// grid cells, 4 substeps asked for a frame, one thread, no output files; a
// scene that names mesh files is only parsed (mesh files have their own
// target, fuzz_mesh_loader).
//
// Fails the run: a crash, a hang (-timeout) or a sanitizer report; any
// exception but a SceneError from the parser or a RunError from the run; a
// SceneError that does not begin with the file's name; an empty notice or
// RunError; a run that leaves a position that is not finite.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_files.h"
#include "scene.h"
#include "scene_runner.h"

namespace {

using pbf_fuzz::fail;

constexpr uint32_t kMaxParticles = 4000;
constexpr double kMaxCells = 1e6;

// Whether a parsed scene is small enough to run here, and made so: its capacity, steps and output.
bool limit(pbf_sim::Scene& s) {
  for (const pbf_sim::FluidBlock& b : s.fluid)
    if (b.shape == pbf_sim::FluidBlock::Shape::Mesh) return false;
  for (const pbf_sim::ObstacleSpec& o : s.obstacles)
    if (o.shape == pbf_sim::ObstacleSpec::Shape::Mesh) return false;
  const double h = s.kernel_radius > 0.0f ? s.kernel_radius : 2.0 * s.spacing;
  double cells = 1.0;
  for (int a = 0; a < 3; ++a) cells *= std::ceil((double{s.domain.max[a]} - s.domain.min[a]) / h);
  if (!(cells <= kMaxCells)) return false;
  s.max_particles = std::min(s.max_particles, kMaxParticles);
  s.time.substeps = std::min(s.time.substeps, 4);
  s.output = pbf_sim::OutputSpec();
  s.output.ply = false;
  s.output.contact_sheet = false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  pbf_sim::Scene scene;
  try {
    scene = pbf_sim::parse_scene(text, "fuzz.json", PBF_FUZZ_SCENES_DIR);
  } catch (const pbf_sim::SceneError& e) {
    if (std::string(e.what()).rfind("fuzz.json: ", 0) != 0)
      fail(std::string("a refusal without the file's name: ") + e.what());
    return 0;
  }
  if (!limit(scene)) return 0;
  pbf_sim::RunOptions options;
  options.threads = 1;
  options.message = [](const std::string& m) {
    if (m.empty()) fail("an empty notice");
  };
  try {
    pbf_sim::SceneRunner runner(scene, options);
    for (int frame = 0; frame < 2; ++frame) runner.advance();
    std::vector<float> x(3 * runner.particle_count());
    if (!x.empty() && pbf_solver_get_positions(runner.solver(), x.data(), x.size()) != PBF_OK)
      fail(std::string("reading the positions failed: ") + pbf_last_error());
    for (float v : x)
      if (!std::isfinite(v)) fail("a position that is not finite after two frames");
  } catch (const pbf_sim::RunError& e) {
    if (std::string(e.what()).empty()) fail("a RunError without a message");
  }
  return 0;
}
