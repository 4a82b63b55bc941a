// pbf-sim's notices about a scene that runs but will not run well: a domain
// so large that float positions may resolve it too coarsely for the flow
// (docs/PHYSICS.md §9; where the domain lies does not matter: the library
// keeps positions relative to an origin near it), and neighbour lists that
// overflow (the scene's max_neighbors, said once and counted in the totals),
// and water left compressed by more than 1 % on average at a frame's end (the
// method did not hold it at the scene's steps: said once, with what holds it).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scene.h"
#include "scene_runner.h"

namespace {

// Run options that collect the run's notices in `messages`.
pbf_sim::RunOptions collecting(std::vector<std::string>& messages) {
  pbf_sim::RunOptions options;
  options.message = [&messages](const std::string& m) { messages.push_back(m); };
  return options;
}

TEST(LargeDomainNotice, SaysNothingForADomainOfAFewMetresWhereverItLies) {
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {4.0f, 3.0f, 1.5f};
  EXPECT_EQ(pbf_sim::large_domain_notice(lo, hi, 0.025f), "");
  // 10 km out: the library's frame resolves it as it resolves the domain at the origin.
  const float lo_far[3] = {10000.0f, -5000.0f, 0.0f}, hi_far[3] = {10004.0f, -4997.0f, 1.5f};
  EXPECT_EQ(pbf_sim::large_domain_notice(lo_far, hi_far, 0.025f), "");
  // 40 m: positions at most 100 m from the frame's origin, 3e-4 of 2.5 cm.
  const float hi40[3] = {40.0f, 3.0f, 1.5f};
  EXPECT_EQ(pbf_sim::large_domain_notice(lo, hi40, 0.025f), "");
}

TEST(LargeDomainNotice, NamesTheExtentAndTheResolutionPastFiveTenThousandthsOfTheSpacing) {
  // 200 m along z: positions up to 500 m from the frame's origin, 3.05e-5 m, 1.2e-3 of 2.5 cm.
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {4.0f, 3.0f, 200.0f};
  const std::string notice = pbf_sim::large_domain_notice(lo, hi, 0.025f);
  EXPECT_NE(notice.find("spans 200 m along axis 2"), std::string::npos) << notice;
  EXPECT_NE(notice.find("3.05e-05 m"), std::string::npos) << notice;
  // A coarser spacing tolerates more.
  EXPECT_EQ(pbf_sim::large_domain_notice(lo, hi, 0.1f), "");
}

TEST(LargeDomainNotice, IsSaidOnceWhenALargeSceneStartsAndNotForAFarSmallOne) {
  for (const char* domain : {R"({"min": [0, 0, 0], "max": [300, 1, 1]})", R"({"min": [1000, 0, 0], "max": [1001, 1, 1]})"}) {
    const bool large = std::string(domain).find("300") != std::string::npos;
    pbf_sim::Scene s = pbf_sim::parse_scene(
        std::string(R"({"domain": )") + domain +
            R"(, "backend": "cpu", "spacing": 0.1, "time": {"frames": 1}, "output": {"ply": false}})",
        "scene.json");
    std::vector<std::string> messages;
    const pbf_sim::RunOptions options = collecting(messages);
    pbf_sim::SceneRunner r(s, options);
    r.advance();
    if (large) {
      ASSERT_EQ(messages.size(), 1u);
      EXPECT_EQ(messages[0].rfind("scene.json: the domain spans 300 m along axis 0", 0), 0u) << messages[0];
    } else {
      EXPECT_TRUE(messages.empty()) << (messages.empty() ? "" : messages[0]);
    }
  }
}

// A resting block at h = 2 spacings: an inner particle has about 33 neighbours.
pbf_sim::Scene block_scene(const char* extra) {
  return pbf_sim::parse_scene(
      std::string(R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "backend": "cpu", "spacing": 0.1,)") + extra +
          R"( "fluid": [{"box": {"min": [0, 0, 0], "max": [0.6, 0.6, 0.6]}}], "time": {"frames": 3},
              "output": {"ply": false}})",
      "scene.json");
}

TEST(NeighborOverflowNotice, IsSaidOnceNamingTheCapacityAndTheFramesAreCounted) {
  std::vector<std::string> messages;
  const pbf_sim::RunOptions options = collecting(messages);
  pbf_sim::SceneRunner r(block_scene(R"( "max_neighbors": 8,)"), options);
  EXPECT_EQ(r.desc().max_neighbors, 8u) << "the scene's max_neighbors reaches the solver";
  for (int f = 0; f < 3; ++f) r.advance();
  ASSERT_EQ(messages.size(), 1u) << "said once, however many frames overflow";
  EXPECT_EQ(messages[0].rfind("scene.json: neighbour lists overflowed at frame 1 (t = 0.017 s): ", 0), 0u) << messages[0];
  EXPECT_NE(messages[0].find("than the 8 a list keeps (max_neighbors)"), std::string::npos) << messages[0];
  EXPECT_NE(messages[0].find("--max-neighbors"), std::string::npos) << messages[0];
  EXPECT_EQ(r.totals().overflow_frames, 3);
  // The block's 216 particles: the inner ones have far more than 8 neighbours, its corners 7 or 8 (with themselves).
  EXPECT_GT(r.totals().overflows_max, 100u);
  EXPECT_LE(r.totals().overflows_max, 216u);
}

TEST(NeighborOverflowNotice, SaysNothingWithTheAutomaticCapacityOrOneRaisedByTheScene) {
  for (const char* extra : {"", R"( "max_neighbors": 100,)"}) {
    std::vector<std::string> messages;
    const pbf_sim::RunOptions options = collecting(messages);
    pbf_sim::SceneRunner r(block_scene(extra), options);
    EXPECT_EQ(r.desc().max_neighbors, *extra ? 100u : 56u) << extra;
    for (int f = 0; f < 3; ++f) r.advance();
    EXPECT_TRUE(messages.empty()) << (messages.empty() ? "" : messages[0]);
    EXPECT_EQ(r.totals().overflow_frames, 0);
    EXPECT_EQ(r.totals().overflows_max, 0u);
    EXPECT_EQ(r.totals().compressed_frames, 0) << "a block 6 layers deep at rest stays within 1 %";
  }
}

// A column 20 layers deep at 5 cm, one 1/60 s substep a frame.
pbf_sim::Scene column_scene(const char* extra) {
  return pbf_sim::parse_scene(
      std::string(R"({"domain": {"min": [0, 0, 0], "max": [0.3, 1.2, 0.3]}, "backend": "cpu", "spacing": 0.05,)") +
          extra +
          R"( "fluid": [{"box": {"min": [0, 0, 0], "max": [0.3, 1.0, 0.3]}}], "time": {"frames": 6, "substeps": 1},
              "output": {"ply": false}})",
      "column.json");
}

TEST(CompressionNotice, IsSaidOnceWhenPbfsIterationsDoNotHoldTheWaterAndTheFramesAreCounted) {
  // Two iterations a substep, no density tolerance, no adaptive step: the column sinks into itself.
  std::vector<std::string> messages;
  const pbf_sim::RunOptions options = collecting(messages);
  pbf_sim::SceneRunner r(
      column_scene(R"( "parameters": {"adaptive_dt": 0, "density_tolerance": 0, "iterations": 2},)"), options);
  for (int f = 0; f < 6; ++f) r.advance();
  ASSERT_EQ(messages.size(), 1u) << "said once, however many frames are compressed";
  EXPECT_EQ(messages[0].rfind("column.json: the water ended frame ", 0), 0u) << messages[0];
  EXPECT_NE(messages[0].find("% on average"), std::string::npos) << messages[0];
  EXPECT_NE(messages[0].find(": substeps of 16.7 ms with 2 density iterations each"), std::string::npos) << messages[0];
  EXPECT_NE(messages[0].find("--substeps"), std::string::npos) << messages[0];
  EXPECT_NE(messages[0].find("adaptive_dt (off in this scene)"), std::string::npos) << messages[0];
  // It is compressed by more than 1 % from the second or third frame on (2 % by the third, 7 % by the sixth).
  EXPECT_GE(r.totals().compressed_frames, 4);
  EXPECT_LE(r.totals().compressed_frames, 5);
  EXPECT_GT(r.last_stats().avg_density_error, 0.03f);
}

TEST(CompressionNotice, SaysNothingWhereFourSubstepsHoldTheColumn) {
  std::vector<std::string> messages;
  const pbf_sim::RunOptions options = collecting(messages);
  pbf_sim::Scene s = column_scene("");
  s.time.substeps = 4;
  pbf_sim::SceneRunner r(s, options);
  for (int f = 0; f < 6; ++f) r.advance();
  EXPECT_TRUE(messages.empty()) << (messages.empty() ? "" : messages[0]);
  EXPECT_EQ(r.totals().compressed_frames, 0);
}

TEST(CompressionNotice, NamesProjectiveFluidsOwnRemediesForItsMethod) {
  // Projective Fluids with a stiffness far below what a column 1 m deep needs (docs/API.md, projective_stiffness).
  std::vector<std::string> messages;
  const pbf_sim::RunOptions options = collecting(messages);
  pbf_sim::SceneRunner r(column_scene(R"( "method": "projective", "parameters": {"projective_stiffness": 1000},)"),
                         options);
  for (int f = 0; f < 4; ++f) r.advance();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("Projective Fluids holds it with a higher projective_stiffness"), std::string::npos)
      << messages[0];
  EXPECT_EQ(messages[0].find("density iterations"), std::string::npos) << "PBF's remedy is not Projective Fluids'";
}

}  // namespace
