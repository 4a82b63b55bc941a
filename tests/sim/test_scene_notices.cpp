// pbf-sim's notices about a scene that runs but will not run well: a domain
// so far from the origin that float positions resolve it too coarsely for
// the flow (docs/PHYSICS.md §9).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scene.h"
#include "scene_runner.h"

namespace {

TEST(FarFromOriginNotice, SaysNothingForADomainNearTheOrigin) {
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {4.0f, 3.0f, 1.5f};
  EXPECT_EQ(pbf_sim::far_from_origin_notice(lo, hi, 0.025f), "");
  // 100 m out a position resolves 7.6e-6 m, 3e-4 of 2.5 cm: the flow keeps its energy within 1 %.
  const float lo100[3] = {100.0f, 0.0f, 0.0f}, hi100[3] = {104.0f, 3.0f, 1.5f};
  EXPECT_EQ(pbf_sim::far_from_origin_notice(lo100, hi100, 0.025f), "");
}

TEST(FarFromOriginNotice, NamesTheDistanceAndTheResolutionPastFiveTenThousandthsOfTheSpacing) {
  // 200 m out: 1.5e-5 m, 6e-4 of 2.5 cm (the dam break lost 5.5 % of its energy there).
  const float lo[3] = {200.0f, 0.0f, 0.0f}, hi[3] = {204.0f, 3.0f, 1.5f};
  const std::string notice = pbf_sim::far_from_origin_notice(lo, hi, 0.025f);
  EXPECT_NE(notice.find("204 m from the origin"), std::string::npos) << notice;
  EXPECT_NE(notice.find("1.53e-05 m"), std::string::npos) << notice;
  // Negative coordinates count by their size; a coarser spacing tolerates more.
  const float neg_lo[3] = {0.0f, -204.0f, 0.0f}, neg_hi[3] = {4.0f, -200.0f, 1.5f};
  EXPECT_NE(pbf_sim::far_from_origin_notice(neg_lo, neg_hi, 0.025f), "");
  EXPECT_EQ(pbf_sim::far_from_origin_notice(lo, hi, 0.05f), "");
}

TEST(FarFromOriginNotice, IsSaidOnceWhenAFarSceneStarts) {
  for (const bool far : {false, true}) {
    const std::string lo = far ? "1000" : "0", hi = far ? "1001" : "1";
    pbf_sim::Scene s = pbf_sim::parse_scene(
        R"({"domain": {"min": [)" + lo + R"(, 0, 0], "max": [)" + hi +
            R"(, 1, 1]}, "backend": "cpu", "spacing": 0.1, "time": {"frames": 1}, "output": {"ply": false}})",
        "far.json");
    std::vector<std::string> messages;
    pbf_sim::RunOptions options;
    options.message = [&](const std::string& m) { messages.push_back(m); };
    pbf_sim::SceneRunner r(s, options);
    r.advance();
    if (far) {
      ASSERT_EQ(messages.size(), 1u);
      EXPECT_EQ(messages[0].rfind("far.json: the domain reaches 1001 m from the origin", 0), 0u) << messages[0];
    } else {
      EXPECT_TRUE(messages.empty()) << (messages.empty() ? "" : messages[0]);
    }
  }
}

}  // namespace
