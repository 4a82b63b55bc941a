// A scene with dynamic obstacles resumes from a checkpoint: pbf-sim saves the
// bodies' poses and velocities beside it (the library's checkpoints leave
// obstacles to the scene) and puts them back, so that the resumed run goes on
// where the uninterrupted one went; a missing, mangled or stale file (one
// saved with another checkpoint) is refused by name before anything is
// simulated.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"

namespace {

// A wooden ball thrown into a shallow tank: it sinks in, turns and bobs.
pbf_sim::Scene ball_scene() {
  return pbf_sim::parse_scene(
      R"({"domain": {"min": [0, 0, 0], "max": [0.4, 0.5, 0.4]}, "spacing": 0.04, "backend": "cpu",
          "time": {"fps": 60, "frames": 8, "substeps": 2}, "output": {"ply": false},
          "fluid": [{"box": {"min": [0, 0, 0], "max": [0.4, 0.16, 0.4]}}],
          "obstacles": [{"sphere": {"radius": 0.07}, "position": [0.2, 0.3, 0.2], "density": 600,
                         "velocity": [0.3, -1, 0], "angular_velocity": [0, 0, 2], "boundary_particles": true}]})",
      "ball.json");
}

struct Body {
  float rotation[4], translation[3], linear[3], angular[3];
};

Body body_of(const pbf_sim::SceneRunner& r) {
  Body b{};
  EXPECT_EQ(pbf_solver_get_obstacle_pose(r.solver(), 0, b.rotation, b.translation), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_get_obstacle_velocity(r.solver(), 0, b.linear, b.angular), PBF_OK) << pbf_last_error();
  return b;
}

std::vector<float> positions_of(const pbf_sim::SceneRunner& r) {
  std::vector<float> x(3 * r.particle_count());
  EXPECT_EQ(pbf_solver_get_positions(r.solver(), x.data(), x.size()), PBF_OK) << pbf_last_error();
  return x;
}

TEST(ResumeWithDynamicBodies, TheBodiesGoOnFromWhereTheCheckpointLeftThem) {
  const std::string dir = sim_test::fresh_dir();
  const std::string checkpoint = dir + "/state.pbfc";
  pbf_sim::SceneRunner first(ball_scene());
  for (int f = 0; f < 4; ++f) first.advance();
  first.save_checkpoint(checkpoint);
  ASSERT_TRUE(std::filesystem::is_regular_file(pbf_sim::bodies_checkpoint_path(checkpoint)))
      << "the bodies are saved beside the checkpoint, as " << pbf_sim::bodies_checkpoint_path(checkpoint);
  const Body saved = body_of(first);
  for (int f = 0; f < 4; ++f) first.advance();  // the uninterrupted run, to frame 8

  pbf_sim::SceneRunner second(ball_scene());
  const Body start = body_of(second);
  second.resume(checkpoint, 4);
  const Body restored = body_of(second);
  // Where the water had taken it, not where the scene starts it (it fell 0.1 m and more in 4 frames).
  EXPECT_GT(start.translation[1] - restored.translation[1], 0.05f);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(restored.translation[a], saved.translation[a]) << "axis " << a;
    EXPECT_EQ(restored.linear[a], saved.linear[a]) << "axis " << a;
    EXPECT_EQ(restored.angular[a], saved.angular[a]) << "axis " << a;
  }
  for (int a = 0; a < 4; ++a) EXPECT_EQ(restored.rotation[a], saved.rotation[a]) << "component " << a;

  for (int f = 0; f < 4; ++f) second.advance();
  // The library integrates a body in double precision and its API gives floats: the resumed run starts
  // from the pose and velocities rounded to floats and follows the uninterrupted one closely, not to
  // the bit (a ball dropped into a tank: 6e-8 m after a frame, 2e-6 m after ten).
  const Body a = body_of(first), b = body_of(second);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(b.translation[k], a.translation[k], 1e-4f) << "axis " << k;
    EXPECT_NEAR(b.linear[k], a.linear[k], 1e-2f) << "axis " << k;
  }
  const std::vector<float> xa = positions_of(first), xb = positions_of(second);
  ASSERT_EQ(xa.size(), xb.size());
  double worst = 0.0;
  for (size_t k = 0; k < xa.size(); ++k) worst = std::max(worst, std::fabs(double(xa[k]) - xb[k]));
  EXPECT_LT(worst, 1e-3) << "the water follows the uninterrupted run's, within a fortieth of a spacing";
}

// Resumes ball_scene() from `checkpoint` and returns the message it was refused with ("" if it was not).
std::string refusal(const std::string& checkpoint) {
  pbf_sim::SceneRunner r(ball_scene());
  try {
    r.resume(checkpoint, 4);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(ResumeWithDynamicBodies, AMissingMangledOrStaleBodiesFileIsRefusedByName) {
  const std::string dir = sim_test::fresh_dir();
  const std::string checkpoint = dir + "/state.pbfc", bodies = pbf_sim::bodies_checkpoint_path(checkpoint);
  const auto save_at = [&](int frames) {
    pbf_sim::SceneRunner r(ball_scene());
    for (int f = 0; f < frames; ++f) r.advance();
    r.save_checkpoint(checkpoint);
    std::ifstream in(bodies);
    return nlohmann::json::parse(in);
  };
  const nlohmann::json stale = save_at(2);
  const nlohmann::json saved = save_at(1);
  ASSERT_TRUE(saved["bodies"][0].contains("angular_velocity")) << saved.dump();
  ASSERT_TRUE(saved["checkpoint"].is_string()) << "the file names the checkpoint it was saved with";
  EXPECT_EQ(refusal(checkpoint), "") << "the file as saved";

  const auto with = [&](const std::string& contents) {
    std::ofstream(bodies, std::ios::trunc) << contents;
    return refusal(checkpoint);
  };
  // Each case: the file as saved with one thing changed.
  const auto changed = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json doc = saved;
    change(doc);
    return with(doc.dump(1));
  };
  std::filesystem::remove(bodies);
  std::string m = refusal(checkpoint);
  EXPECT_NE(m.find("--resume: " + bodies + ": cannot be read"), std::string::npos) << m;
  m = with("{\"bodies\": ");
  EXPECT_NE(m.find(bodies + ": expected a JSON object with an array \"bodies\""), std::string::npos) << m;
  // One left from another save to the same path (a frame later, then this one's save failed): refused, not read.
  m = with(stale.dump(1));
  EXPECT_NE(m.find(bodies + ": saved with another checkpoint than " + checkpoint), std::string::npos) << m;
  m = changed([](nlohmann::json& d) { d.erase("checkpoint"); });
  EXPECT_NE(m.find(bodies + ": saved with another checkpoint than " + checkpoint), std::string::npos) << m;
  m = changed([](nlohmann::json& d) { d["bodies"] = nlohmann::json::array(); });
  EXPECT_NE(m.find(bodies + ": holds 0 bodies, the scene has 1 dynamic obstacles"), std::string::npos) << m;
  m = changed([](nlohmann::json& d) { d["bodies"][0]["obstacle"] = 3; });
  EXPECT_NE(m.find(bodies + ": bodies[0].obstacle: expected 0"), std::string::npos) << m;
  m = changed([](nlohmann::json& d) { d["bodies"][0]["rotation"].push_back(0.5); });
  EXPECT_NE(m.find(bodies + ": bodies[0].rotation: expected 4 numbers"), std::string::npos) << m;
  m = changed([](nlohmann::json& d) { d["bodies"][0]["velocity"][1] = "fast"; });
  EXPECT_NE(m.find(bodies + ": bodies[0].velocity[1]: expected a finite number"), std::string::npos) << m;
  // A rotation that is no unit quaternion, refused by the library, with the file's place in the message.
  m = changed([](nlohmann::json& d) { d["bodies"][0]["rotation"] = {0, 0, 0, 0}; });
  EXPECT_NE(m.find(bodies + ": bodies[0]: "), std::string::npos) << m;
  EXPECT_NE(m.find("rotation"), std::string::npos) << m;
}

}  // namespace
