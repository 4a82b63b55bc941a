// pbf-sim's notices about a scene that runs but will not run well: a domain
// so large that float positions may resolve it too coarsely for the flow
// (docs/PHYSICS.md §9). Where the domain lies does not matter: the library
// keeps positions relative to an origin near it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scene.h"
#include "scene_runner.h"

namespace {

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
    pbf_sim::RunOptions options;
    options.message = [&](const std::string& m) { messages.push_back(m); };
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

}  // namespace
