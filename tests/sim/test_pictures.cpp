// Pictures of water: the water style shades the liquid's surface blue-green
// over the grey floor, which shows through shallow water; the time is written
// in the top-left corner; the particles style keeps one colour scale for the
// whole run, so water at rest is not white; the surface mesh as OBJ has the
// library mesh's vertices, normals and triangles and is listed in frames.json.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "render.h"
#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"

namespace {

using pbf_sim::Image;
using pbf_sim::Vec3;

const uint8_t* pixel(const Image& im, int x, int y) { return &im.rgb[3 * (static_cast<size_t>(y) * im.width + x)]; }

// Water is blue-green: green and blue 25 levels above red, green at least 60% of blue. The particles
// style's blues (green a third of blue at rest) and the grey floor are not.
bool water_colored(const uint8_t* p) { return p[1] >= 0.6 * p[2] && p[2] > p[0] + 25 && p[1] > p[0] + 25; }

// The floor is grey: its channels within 12 levels of each other.
bool grey(const uint8_t* p) { return std::abs(p[0] - p[2]) <= 12 && std::abs(p[0] - p[1]) <= 12; }

// The pixel a point of the scene lands on with the default camera.
std::pair<int, int> pixel_of(const pbf_sim::Scene& s, const Vec3& point) {
  const pbf_sim::CameraSpec camera = pbf_sim::default_camera(s.domain, s.output.image_width, s.output.image_height);
  float q[2] = {-1.0f, -1.0f};
  EXPECT_TRUE(pbf_sim::project(camera, s.output.image_width, s.output.image_height, point, q));
  return {static_cast<int>(q[0]), static_cast<int>(q[1])};
}

// A run of `scene_json` (output into a fresh folder) that has written frame 0.
struct FrameZeroRun {
  std::string dir;
  pbf_sim::Scene scene;
  std::unique_ptr<pbf_sim::SceneRunner> runner;
  FrameZeroRun(const std::string& scene_json, const std::string& tag = "") {
    dir = sim_test::fresh_dir(tag);
    scene = pbf_sim::parse_scene(scene_json, "scene.json");
    scene.output.dir = dir;
    runner = std::make_unique<pbf_sim::SceneRunner>(scene);
    runner->write_output();
  }
  Image frame0() const { return pbf_sim::read_png(dir + "/frame_0000.png"); }
};

// A 0.4 m cube of water at rest in the middle of the floor of a 1 m box.
const char* kBlock = R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "backend": "cpu", "spacing": 0.04,
  "fluid": [{"box": {"min": [0.3, 0, 0.3], "max": [0.7, 0.4, 0.7]}}],
  "output": {"ply": false, "png": true, "image": [240, 135]}})";

TEST(WaterPictures, ABlockOfWaterIsWaterColouredWhereItIsAndTheFloorElsewhere) {
  FrameZeroRun run(kBlock);
  EXPECT_EQ(run.scene.output.image_style, pbf_sim::OutputSpec::ImageStyle::Water) << "water is the default style";
  const Image im = run.frame0();
  ASSERT_EQ(im.width, 240);
  // The middle of the block's top and of its front face; a floor point near the front-left corner.
  for (const Vec3& p : {Vec3{0.5f, 0.4f, 0.5f}, Vec3{0.5f, 0.2f, 0.7f}}) {
    const auto [x, y] = pixel_of(run.scene, p);
    const uint8_t* c = pixel(im, x, y);
    EXPECT_TRUE(water_colored(c)) << "at (" << p[0] << ", " << p[1] << ", " << p[2] << "): " << int(c[0]) << " "
                                  << int(c[1]) << " " << int(c[2]);
  }
  const auto [fx, fy] = pixel_of(run.scene, {0.1f, 0.0f, 0.9f});
  const uint8_t* floor = pixel(im, fx, fy);
  EXPECT_TRUE(grey(floor)) << int(floor[0]) << " " << int(floor[1]) << " " << int(floor[2]);
  EXPECT_FALSE(water_colored(floor));
}

TEST(WaterPictures, TheFloorsCheckerShowsThroughShallowWater) {
  // A 0.1 m sheet of water over the whole floor; checker squares are 1/8 of the box (0.125 m).
  FrameZeroRun run(R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "backend": "cpu", "spacing": 0.025,
    "fluid": [{"box": {"min": [0, 0, 0], "max": [1, 0.1, 1]}}],
    "output": {"ply": false, "png": true, "image": [320, 180]}})");
  const Image im = run.frame0();
  // Along the row through the sheet's middle, away from its sides, the checker's edges are steps in
  // lightness; opaque water would change smoothly there (less than 12 levels summed over the channels
  // from pixel to pixel).
  const int y = pixel_of(run.scene, {0.5f, 0.1f, 0.5f}).second;
  const int x0 = pixel_of(run.scene, {0.25f, 0.1f, 0.5f}).first, x1 = pixel_of(run.scene, {0.75f, 0.1f, 0.5f}).first;
  int water = 0, steps = 0;
  for (int x = std::min(x0, x1) + 1; x <= std::max(x0, x1); ++x) {
    const uint8_t *a = pixel(im, x - 1, y), *b = pixel(im, x, y);
    if (!water_colored(a) || !water_colored(b)) continue;
    ++water;
    if (std::abs((a[0] + a[1] + a[2]) - (b[0] + b[1] + b[2])) > 12) ++steps;
  }
  EXPECT_GT(water, 30) << "the middle half of the sheet spans about 40 pixels";
  EXPECT_GE(steps, 3) << "the checker seen through 0.1 m of water";
}

TEST(TimeLabel, IsWrittenInTheTopLeftCornerAndChangesWithTheTime) {
  pbf_sim::RenderSettings rs;
  rs.width = 320;
  rs.height = 180;
  rs.domain = {{0, 0, 0}, {1, 1, 1}};
  rs.camera = pbf_sim::default_camera(rs.domain, rs.width, rs.height);
  pbf_sim::FrameRenderer renderer;
  const Image bare = renderer.render(nullptr, nullptr, 0, rs);
  rs.label = "t = 0.000 s  frame 0";
  const Image first = renderer.render(nullptr, nullptr, 0, rs);
  rs.label = "t = 1.234 s  frame 74";
  const Image later = renderer.render(nullptr, nullptr, 0, rs);
  // Magnification 1 at 180 pixels: 21 characters of 6 pixels and the box's margins fit in 140 x 20 from (4, 4).
  size_t labelled = 0, white = 0, outside = 0, changed = 0;
  for (int y = 0; y < rs.height; ++y)
    for (int x = 0; x < rs.width; ++x) {
      const bool corner = x < 140 && y < 20;
      const uint8_t* a = pixel(bare, x, y);
      const uint8_t* b = pixel(first, x, y);
      if (std::memcmp(a, b, 3) != 0) (corner ? labelled : outside) += 1;
      if (std::memcmp(pixel(later, x, y), b, 3) != 0) (corner ? changed : outside) += 1;
      if (corner && b[0] >= 240 && b[1] >= 240 && b[2] >= 240) ++white;
    }
  EXPECT_EQ(outside, 0u) << "the label stays in its corner";
  EXPECT_GT(labelled, 500u) << "the darkened box behind the text";
  EXPECT_GT(white, 100u) << "the glyphs are white";
  EXPECT_GT(changed, 20u) << "another time, other digits";
  EXPECT_EQ(pbf_sim::label_scale(540), 2) << "twice the font's size at the default picture height";
}

TEST(TimeLabel, ARunWritesEachFramesTimeAndNumber) {
  FrameZeroRun run(kBlock);
  run.runner->advance();
  run.runner->write_output();
  const Image a = run.frame0(), b = pbf_sim::read_png(run.dir + "/frame_0001.png");
  // Scale 1 at 135 pixels: "t = 0.000 s  frame 0" and "t = 0.017 s  frame 1" differ in their digits.
  size_t white = 0, differ = 0;
  for (int y = 4; y < 20; ++y)
    for (int x = 4; x < 140; ++x) {
      const uint8_t* p = pixel(a, x, y);
      if (p[0] >= 240 && p[1] >= 240 && p[2] >= 240) ++white;
      if (std::memcmp(p, pixel(b, x, y), 3) != 0) ++differ;
    }
  EXPECT_GT(white, 100u);
  EXPECT_GT(differ, 10u);
}

// A block of particles style in zero gravity: the scale comes from frame 0's fastest particle.
const char* kDrifting = R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "backend": "cpu", "spacing": 0.05,
  "parameters": {"gravity": [0, 0, 0]},
  "fluid": [{"box": {"min": [0.3, 0.3, 0.3], "max": [0.7, 0.7, 0.7]}}],
  "output": {"ply": false, "png": true, "image_style": "particles", "image": [160, 90]}})";

// Sets every particle's velocity to 0.3 m/s along x, particle 0's to `fastest`.
void set_speeds(pbf_solver* solver, size_t n, float fastest) {
  std::vector<float> v(3 * n, 0.0f);
  for (size_t i = 0; i < n; ++i) v[3 * i] = 0.3f;
  v[0] = fastest;
  ASSERT_EQ(pbf_solver_set_velocities(solver, v.data(), v.size()), PBF_OK) << pbf_last_error();
}

TEST(ColourScale, TheSameSpeedHasTheSameColourInFramesWithDifferentMaxima) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene s = pbf_sim::parse_scene(kDrifting, "scene.json");
  s.output.dir = dir;
  pbf_sim::SceneRunner runner(s);
  const size_t n = runner.particle_count();
  set_speeds(runner.solver(), n, 1.0f);
  runner.write_output();
  const Image slow = pbf_sim::read_png(dir + "/frame_0000.png");
  EXPECT_FLOAT_EQ(runner.picture_speed_scale(), 1.0f) << "frame 0's fastest, without gravity";
  set_speeds(runner.solver(), n, 3.0f);  // a faster particle elsewhere: the scale stays
  runner.write_output();
  const Image fast = pbf_sim::read_png(dir + "/frame_0000.png");
  EXPECT_FLOAT_EQ(runner.picture_speed_scale(), 1.0f);
  // The middle of the picture shows particles at 0.3 m/s in both (the fastest one sits at a corner).
  const uint8_t *a = pixel(slow, 80, 45), *b = pixel(fast, 80, 45);
  EXPECT_EQ(std::memcmp(a, b, 3), 0) << int(a[0]) << " " << int(a[1]) << " " << int(a[2]) << " vs " << int(b[0]) << " "
                                     << int(b[1]) << " " << int(b[2]);
  EXPECT_GT(a[2], a[0] + 25) << "0.3 of the scale is blue, not white";
}

TEST(ColourScale, WaterFallingAtOneSpeedIsNotWhiteInFrameZero) {
  // Every particle at 0.5 m/s: scaled to the frame's fastest they were all white.
  FrameZeroRun run(R"({"domain": {"min": [0, 0, 0], "max": [1, 2, 1]}, "backend": "cpu", "spacing": 0.05,
    "fluid": [{"box": {"min": [0.3, 0.8, 0.3], "max": [0.7, 1.2, 0.7]}, "velocity": [0, -0.5, 0]}],
    "output": {"ply": false, "png": true, "image_style": "particles", "image": [160, 90]}})");
  // The free-fall speed over the 2 m height: sqrt(2 x 9.81 x 2) = 6.26 m/s (float arithmetic: 1e-5).
  EXPECT_NEAR(run.runner->picture_speed_scale(), std::sqrt(2.0 * 9.81 * 2.0), 1e-5);
  const Image im = run.frame0();
  const auto [x, y] = pixel_of(run.scene, {0.5f, 1.0f, 0.7f});
  const uint8_t* c = pixel(im, x, y);
  EXPECT_LT(std::min({c[0], c[1], c[2]}), 150) << "not white: " << int(c[0]) << " " << int(c[1]) << " " << int(c[2]);
  EXPECT_GT(c[2], c[0] + 25) << "the blue end of the ramp";
}

TEST(ColourScale, SpeedScaleIsTheGivenMaximumOrTheFreeFallSpeedOrFrameZerosFastest) {
  pbf_sim::Scene s = pbf_sim::parse_scene(R"({"domain": {"min": [0, 0, 0], "max": [4, 3, 1.5]}, "spacing": 0.1})", "s");
  const float v[6] = {0.0f, 0.0f, 0.0f, 0.0f, -20.0f, 0.0f};
  EXPECT_NEAR(pbf_sim::speed_scale(s, v, 1), std::sqrt(2.0 * 9.81 * 3.0), 1e-5) << "over the 3 m height";
  EXPECT_FLOAT_EQ(pbf_sim::speed_scale(s, v, 2), 20.0f) << "a faster particle in the first picture";
  s.params.gravity[1] = 0.0f;
  EXPECT_FLOAT_EQ(pbf_sim::speed_scale(s, v, 1), 0.1f) << "at rest without gravity: the floor of 0.1 m/s";
  s.output.speed_max = 2.5f;
  EXPECT_FLOAT_EQ(pbf_sim::speed_scale(s, v, 2), 2.5f) << "output.speed_max wins";
}

// Counts of an OBJ file's lines by their first word, checking each face's a//a b//b c//c indices.
struct ObjCounts {
  size_t v = 0, vn = 0, f = 0, bad_faces = 0;
  std::vector<float> first_vertex, first_normal;
};

ObjCounts read_obj(const std::string& path) {
  ObjCounts c;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line;
  std::vector<std::string> faces;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word == "v" || word == "vn") {
      std::vector<float> xyz(3);
      words >> xyz[0] >> xyz[1] >> xyz[2];
      EXPECT_FALSE(words.fail()) << line;
      if (word == "v" && c.v++ == 0) c.first_vertex = xyz;
      if (word == "vn" && c.vn++ == 0) c.first_normal = xyz;
    } else if (word == "f") {
      ++c.f;
      faces.push_back(line);
    }
  }
  for (const std::string& face : faces) {
    unsigned long a[3], b[3];
    char rest = 0;
    const int got = std::sscanf(face.c_str(), "f %lu//%lu %lu//%lu %lu//%lu %c", &a[0], &b[0], &a[1], &b[1], &a[2], &b[2],
                                &rest);
    bool ok = got == 6;
    for (int k = 0; ok && k < 3; ++k) ok = a[k] == b[k] && a[k] >= 1 && a[k] <= c.v;
    if (!ok) ++c.bad_faces;
  }
  return c;
}

const char* kSurfaceScene = R"({"domain": {"min": [0, 0, 0], "max": [0.6, 0.6, 0.6]}, "backend": "cpu", "spacing": 0.05,
  "fluid": [{"sphere": {"center": [0.3, 0.25, 0.3], "radius": 0.2}}],
  "output": {"ply": false, "surface": true, "surface_format": "both"}})";

TEST(SurfaceObj, HasTheLibraryMeshsVerticesNormalsAndTriangles) {
  FrameZeroRun run(kSurfaceScene);
  const ObjCounts obj = read_obj(run.dir + "/surface_0000.obj");
  pbf_surface* surface = nullptr;
  ASSERT_EQ(pbf_surface_create(&surface), PBF_OK);
  pbf_surface_params params = pbf_surface_params_default();
  params.cell_size = run.scene.output.surface_resolution;
  ASSERT_EQ(pbf_solver_build_surface(run.runner->solver(), &params, surface), PBF_OK) << pbf_last_error();
  size_t vertices = 0, triangles = 0;
  ASSERT_EQ(pbf_surface_get_counts(surface, &vertices, &triangles), PBF_OK);
  std::vector<float> xyz(3 * vertices), normals(3 * vertices);
  ASSERT_EQ(pbf_surface_get_vertices(surface, xyz.data(), xyz.size()), PBF_OK);
  ASSERT_EQ(pbf_surface_get_normals(surface, normals.data(), normals.size()), PBF_OK);
  pbf_surface_destroy(surface);
  ASSERT_GT(triangles, 100u) << "a ball of water has a surface";
  EXPECT_EQ(obj.v, vertices);
  EXPECT_EQ(obj.vn, vertices) << "one normal per vertex";
  EXPECT_EQ(obj.f, triangles);
  EXPECT_EQ(obj.bad_faces, 0u) << "faces are v//vn triples within the vertex count";
  // Written with 7 significant digits (positions) and 6 (normals): 1e-6 m and 1e-5 suffice.
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(obj.first_vertex[a], xyz[a], 1e-6);
    EXPECT_NEAR(obj.first_normal[a], normals[a], 1e-5);
  }
  EXPECT_TRUE(std::filesystem::exists(run.dir + "/surface_0000.ply")) << "\"both\" writes the PLY too";
  EXPECT_TRUE(sim_test::partial_files(run.dir).empty());
  std::ifstream in(run.runner->manifest_path());
  const nlohmann::json m = nlohmann::json::parse(in);
  EXPECT_EQ(m["frames"][0]["surface_obj"], "surface_0000.obj");
  EXPECT_EQ(m["frames"][0]["surface"], "surface_0000.ply");
}

TEST(SurfaceObj, ARerunWritingPlyOnlyRemovesTheEarlierRunsObj) {
  FrameZeroRun run(kSurfaceScene);
  ASSERT_TRUE(std::filesystem::exists(run.dir + "/surface_0000.obj"));
  pbf_sim::Scene again = run.scene;
  again.output.surface_format = pbf_sim::OutputSpec::SurfaceFormat::Ply;
  pbf_sim::SceneRunner rerun(again);
  rerun.write_output();
  EXPECT_FALSE(std::filesystem::exists(run.dir + "/surface_0000.obj")) << "listed in frames.json, not written again";
  EXPECT_TRUE(std::filesystem::exists(run.dir + "/surface_0000.ply"));
  std::ifstream in(rerun.manifest_path());
  const nlohmann::json m = nlohmann::json::parse(in);
  EXPECT_FALSE(m["frames"][0].contains("surface_obj"));
}

TEST(PictureKeys, StyleAndSurfaceFormatAreRead) {
  const pbf_sim::Scene s = pbf_sim::parse_scene(
      R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.1,
          "output": {"image_style": "particles", "surface_format": "obj"}})",
      "scene.json");
  EXPECT_EQ(s.output.image_style, pbf_sim::OutputSpec::ImageStyle::Particles);
  EXPECT_EQ(s.output.surface_format, pbf_sim::OutputSpec::SurfaceFormat::Obj);
  const pbf_sim::Scene d = pbf_sim::parse_scene(R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.1})", "d");
  EXPECT_EQ(d.output.image_style, pbf_sim::OutputSpec::ImageStyle::Water);
  EXPECT_EQ(d.output.surface_format, pbf_sim::OutputSpec::SurfaceFormat::Ply);
}

}  // namespace
