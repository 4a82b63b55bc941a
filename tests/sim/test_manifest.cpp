// frames.json: every frame written is listed with its number, time, particle
// count and files; a resumed run keeps the frames before it and replaces the
// ones it writes again.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"

namespace {

pbf_sim::Scene small_scene(const std::string& dir) {
  pbf_sim::Scene s = pbf_sim::parse_scene(R"({"domain": {"min": [0, 0, 0], "max": [0.5, 0.5, 0.5]}, "spacing": 0.05,
    "backend": "cpu", "time": {"fps": 50, "frames": 3, "substeps": 1},
    "fluid": [{"box": {"min": [0, 0, 0], "max": [0.25, 0.25, 0.25]}}],
    "output": {"ply": true, "vtp": true, "png": true, "image": [32, 18]}})",
                                          "scene.json");
  s.output.dir = dir;
  return s;
}

nlohmann::json read_manifest(const pbf_sim::SceneRunner& runner) {
  std::ifstream in(runner.manifest_path());
  EXPECT_TRUE(in.good()) << runner.manifest_path();
  return nlohmann::json::parse(in);
}

TEST(Manifest, ListsEveryFrameWithItsTimeParticlesAndFiles) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::SceneRunner runner(small_scene(dir));
  runner.write_output();
  for (int k = 0; k < 3; ++k) {
    runner.advance();
    runner.write_output();
  }
  const nlohmann::json m = read_manifest(runner);
  EXPECT_EQ(m["format"], "pbf-sim frames");
  EXPECT_EQ(m["version"], 1);
  EXPECT_EQ(m["fps"], 50.0);
  ASSERT_EQ(m["frames"].size(), 4u);
  for (int k = 0; k < 4; ++k) {
    const nlohmann::json& f = m["frames"][k];
    EXPECT_EQ(f["frame"], k);
    EXPECT_DOUBLE_EQ(f["time"].get<double>(), k / 50.0);
    EXPECT_EQ(f["particles"], runner.particle_count());
    const std::string number = "000" + std::to_string(k);
    EXPECT_EQ(f["ply"], "frame_" + number + ".ply");
    EXPECT_EQ(f["vtp"], "frame_" + number + ".vtp");
    EXPECT_EQ(f["png"], "frame_" + number + ".png");
    EXPECT_FALSE(f.contains("surface")) << "only the kinds written are listed";
    for (const char* kind : {"ply", "vtp", "png"})
      EXPECT_TRUE(std::filesystem::exists(dir + "/" + f[kind].get<std::string>())) << f[kind];
  }
  EXPECT_FALSE(std::filesystem::exists(runner.manifest_path() + ".partial"));
}

TEST(Manifest, AResumedRunKeepsTheEarlierFramesAndReplacesItsOwn) {
  const std::string dir = sim_test::fresh_dir();
  const std::string checkpoint = dir + "/state.pbfc";
  {
    pbf_sim::SceneRunner first(small_scene(dir));
    first.write_output();
    first.advance();
    first.write_output();
    first.save_checkpoint(checkpoint);
    first.advance();
    first.write_output();  // frame 2 of the first run, replaced below
  }
  pbf_sim::SceneRunner second(small_scene(dir));
  second.resume(checkpoint, 1);
  second.advance();
  second.write_output();
  const nlohmann::json m = read_manifest(second);
  ASSERT_EQ(m["frames"].size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(m["frames"][k]["frame"], k);
}

}  // namespace
