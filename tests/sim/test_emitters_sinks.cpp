// Emitters add discs of particles on schedule, no closer to the water in their
// way than to each other and not at a wall, stop at their stop time and at
// max_particles (with one message); sinks remove the particles inside them.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "emitter.h"
#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"

namespace {

pbf_sim::EmitterSpec inlet(float radius, float speed) {
  pbf_sim::EmitterSpec e;
  e.position = {0.5f, 0.5f, 0.5f};
  e.direction = {1.0f, 0.0f, 0.0f};
  e.radius = radius;
  e.speed = speed;
  return e;
}

// A 1 m box without gravity holding one emitter at its centre, spacing 0.05 m,
// 20 frames per second: with speed 1 m/s one disc is due every frame.
pbf_sim::Scene inlet_scene(const pbf_sim::EmitterSpec& e) {
  pbf_sim::Scene s = pbf_sim::parse_scene(R"({
    "domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "backend": "cpu", "spacing": 0.05,
    "parameters": {"gravity": [0, 0, 0]},
    "time": {"fps": 20, "frames": 10, "substeps": 2}, "output": {"ply": false}})",
                                          "inlet.json");
  s.emitters.push_back(e);
  return s;
}

TEST(Emitter, ADiscHoldsTheLatticePointsWithinItsRadius) {
  // Radius 2 spacings: the points (i, j) with i^2 + j^2 <= 4: 1 + 4 + 4 + 4 = 13.
  const pbf_sim::Emitter e(inlet(0.1f, 1.0f), 0.05f);
  EXPECT_EQ(e.disc_size(), 13u);
  EXPECT_EQ(pbf_sim::Emitter(inlet(0.01f, 1.0f), 0.05f).disc_size(), 1u) << "the centre alone";
}

TEST(Emitter, DiscsAreOneSpacingApartAlongTheFlowWithTheFlowsVelocity) {
  pbf_sim::EmitterSpec spec = inlet(0.1f, 2.0f);
  spec.direction = {0.0f, 0.6f, 0.8f};
  pbf_sim::Emitter e(spec, 0.05f);
  EXPECT_NEAR(e.interval(), 0.05 / 2.0, 1e-9);
  std::vector<float> x, v;
  // Discs due at 0 and 0.025 s, emitted at 0.05 s: carried 0.1 m and 0.05 m downstream.
  ASSERT_EQ(e.emit(0.05, x, v), 26u);
  for (size_t i = 0; i < 26; ++i) {
    const double along = (x[3 * i] - 0.5) * 0.0 + (x[3 * i + 1] - 0.5) * 0.6 + (x[3 * i + 2] - 0.5) * 0.8;
    EXPECT_NEAR(along, i < 13 ? 0.1 : 0.05, 1e-6) << "particle " << i;
    EXPECT_NEAR(v[3 * i], 0.0f, 1e-6);
    EXPECT_NEAR(v[3 * i + 1], 1.2f, 1e-6);
    EXPECT_NEAR(v[3 * i + 2], 1.6f, 1e-6);
  }
  EXPECT_EQ(e.emit(0.05, x, v), 0u) << "nothing twice";
}

// Where a disc lies along the flow of `spec`: its first particle's distance downstream of the inlet.
double along(const pbf_sim::EmitterSpec& spec, const float* p) {
  double d = 0.0;
  for (int k = 0; k < 3; ++k) d += (double{p[k]} - spec.position[k]) * spec.direction[k];
  return d;
}

TEST(Emitter, ADiscKeepsItsGapFromTheWaterInItsWay) {
  pbf_sim::EmitterSpec spec = inlet(0.1f, 2.0f);
  spec.direction = {0.0f, 0.6f, 0.8f};
  pbf_sim::Emitter e(spec, 0.05f);
  std::vector<float> x, v;
  // Due at 0 and 0.025 s, emitted at 0.05 s: the flow would have carried them 0.1 and 0.05 m,
  // but water lies 0.12 m downstream: a spacing (0.05 m) short of it, and of each other.
  size_t blocked = 0;
  ASSERT_EQ(e.emit(0.05, x, v, 0.12, &blocked), 26u);
  EXPECT_EQ(blocked, 0u);
  for (size_t i = 0; i < 26; ++i) {
    EXPECT_NEAR(along(spec, &x[3 * i]), i < 13 ? 0.07 : 0.02, 1e-6) << "particle " << i;
    EXPECT_NEAR(v[3 * i + 1], 1.2f, 1e-6) << "the inlet's velocity wherever the disc lands";
    EXPECT_NEAR(v[3 * i + 2], 1.6f, 1e-6);
  }
}

TEST(Emitter, ADiscWithNoRoomAtTheInletIsHeldBackAndCounted) {
  const pbf_sim::EmitterSpec spec = inlet(0.1f, 2.0f);
  std::vector<float> x, v;
  size_t blocked = 0;
  // Water 0.06 m downstream: the first disc fits 0.01 m out, the second would lie 0.04 m
  // upstream of the inlet, more than half its gap: held back, and the schedule goes on.
  pbf_sim::Emitter a(spec, 0.05f);
  EXPECT_EQ(a.emit(0.05, x, v, 0.06, &blocked), 13u);
  EXPECT_EQ(blocked, 13u);
  EXPECT_EQ(a.discs_emitted(), 2u);
  EXPECT_NEAR(along(spec, &x[0]), 0.01, 1e-6);
  // Water 0.08 m downstream: the second lies 0.02 m upstream, less than half its gap: emitted there.
  x.clear();
  v.clear();
  blocked = 0;
  pbf_sim::Emitter b(spec, 0.05f);
  EXPECT_EQ(b.emit(0.05, x, v, 0.08, &blocked), 26u);
  EXPECT_EQ(blocked, 0u);
  EXPECT_NEAR(along(spec, &x[3 * 13]), -0.02, 1e-6);
  // No water in the way: where the flow carries the discs.
  x.clear();
  v.clear();
  pbf_sim::Emitter c(spec, 0.05f);
  EXPECT_EQ(c.emit(0.05, x, v), 26u);
  EXPECT_NEAR(along(spec, &x[0]), 0.1, 1e-6);
  EXPECT_NEAR(along(spec, &x[3 * 13]), 0.05, 1e-6);
}

TEST(Emitter, ItsRoomIsTheRearmostWaterInItsWay) {
  const pbf_sim::Emitter e(inlet(0.1f, 1.0f), 0.05f);  // at (0.5, 0.5, 0.5) along +x, radius 0.1
  const std::vector<float> water = {
      0.8f,  0.5f,  0.5f,    // on the axis, 0.3 m downstream
      0.7f,  0.66f, 0.5f,    // 0.2 m downstream but 0.16 m off the axis: past radius and spacing
      0.4f,  0.5f,  0.5f,    // 0.1 m upstream: more than a spacing behind the inlet
      0.46f, 0.62f, 0.52f};  // 0.04 m upstream, 0.12 m off the axis: within radius and spacing
  EXPECT_NEAR(e.room(water.data(), 4), -0.04, 1e-6);
  EXPECT_NEAR(e.room(water.data(), 3), 0.3, 1e-6);
  EXPECT_EQ(e.room(water.data(), 0), std::numeric_limits<double>::infinity());
}

TEST(Emitter, AGivenRateSetsTheIntervalBetweenDiscs) {
  pbf_sim::EmitterSpec spec = inlet(0.1f, 1.0f);
  spec.rate = 130.0f;  // 13 particles per disc: one disc every 0.1 s
  pbf_sim::Emitter e(spec, 0.05f);
  EXPECT_NEAR(e.interval(), 0.1, 1e-9);
  EXPECT_NEAR(e.rate(), 130.0, 1e-6);
  std::vector<float> x, v;
  EXPECT_EQ(e.emit(0.95, x, v), 10u * 13u);
}

TEST(Emitter, StartingLateSkipsTheDiscsAlreadyDue) {
  pbf_sim::Emitter a(inlet(0.1f, 1.0f), 0.05f), b(inlet(0.1f, 1.0f), 0.05f);
  std::vector<float> x, v;
  for (int f = 1; f <= 7; ++f) a.emit(f / 20.0, x, v);
  b.start_at(7 / 20.0);
  EXPECT_EQ(a.discs_emitted(), b.discs_emitted());
}

TEST(Emitters, AddTheirDiscsFrameByFrameUntilTheirStopTime) {
  pbf_sim::EmitterSpec spec = inlet(0.1f, 1.0f);
  spec.start = 0.01;  // discs due at 0.01, 0.06, 0.11, ...: one in each 1/20 s frame
  spec.stop = 0.24;   // the last is due at 0.21
  pbf_sim::SceneRunner r(inlet_scene(spec));
  EXPECT_EQ(r.particle_count(), 0u);
  for (int f = 1; f <= 8; ++f) {
    r.advance();
    EXPECT_EQ(r.particle_count(), 13u * static_cast<size_t>(std::min(f, 5))) << "after frame " << f;
  }
  EXPECT_EQ(r.totals().emitted, 65u);
  EXPECT_EQ(r.totals().refused, 0u);
}

TEST(Emitters, StopAtMaxParticlesWithOneMessage) {
  pbf_sim::Scene s = inlet_scene(inlet(0.1f, 1.0f));
  s.max_particles = 30;
  std::vector<std::string> messages;
  pbf_sim::RunOptions options;
  options.message = [&](const std::string& m) { messages.push_back(m); };
  pbf_sim::SceneRunner r(s, options);
  for (int f = 0; f < 6; ++f) r.advance();
  EXPECT_EQ(r.particle_count(), 30u);
  EXPECT_EQ(r.totals().emitted, 30u);
  EXPECT_EQ(r.totals().refused, 6u * 13u - 30u);
  ASSERT_EQ(messages.size(), 1u) << "said once, however many frames refuse particles";
  EXPECT_NE(messages[0].find("max_particles (30) reached at frame 3"), std::string::npos) << messages[0];
}

TEST(Emitters, ParticlesCarriedOutOfTheDomainAreDropped) {
  pbf_sim::EmitterSpec spec = inlet(0.1f, 1.0f);
  spec.position = {0.98f, 0.5f, 0.5f};  // pointing at the wall 2 cm away
  spec.rate = 13.0f * 4.0f;             // a disc every 0.25 s: the first is carried 0.25 m
  pbf_sim::Scene s = inlet_scene(spec);
  s.time.fps = 4.0f;
  pbf_sim::SceneRunner r(s);
  r.advance();
  EXPECT_EQ(r.particle_count(), 0u);
  EXPECT_EQ(r.totals().clipped, 13u);
}

TEST(Emitters, AResumedRunEmitsWhatTheUninterruptedRunEmits) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::EmitterSpec spec = inlet(0.1f, 1.5f);
  pbf_sim::SceneRunner whole(inlet_scene(spec));
  for (int f = 0; f < 6; ++f) whole.advance();
  {
    pbf_sim::SceneRunner first(inlet_scene(spec));
    for (int f = 0; f < 3; ++f) first.advance();
    first.save_checkpoint(dir + "/state.pbfc");
  }
  pbf_sim::SceneRunner second(inlet_scene(spec));
  second.resume(dir + "/state.pbfc", 3);
  for (int f = 0; f < 3; ++f) second.advance();
  const size_t n = whole.particle_count();
  ASSERT_EQ(second.particle_count(), n);
  std::vector<float> a(3 * n), b(3 * n);
  ASSERT_EQ(pbf_solver_get_positions(whole.solver(), a.data(), a.size()), PBF_OK);
  ASSERT_EQ(pbf_solver_get_positions(second.solver(), b.data(), b.size()), PBF_OK);
  EXPECT_EQ(a, b) << "bit-identical on the CPU";
}

// A 2 m/s jet of radius 0.08 m (49 particles a disc) leaving the inlet level, at `x` from the
// wall, into the shipped inlet scene's box, spacing 0.02 m, 60 frames a second, for 20 frames:
// before it reaches the far wall.
pbf_sim::Scene level_jet(float x) {
  pbf_sim::Scene s = pbf_sim::parse_scene(R"({
    "domain": {"min": [0, 0, 0], "max": [0.8, 1.0, 0.6]}, "backend": "cpu", "spacing": 0.02,
    "parameters": {"artificial_pressure_k": 0},
    "time": {"fps": 60, "frames": 20, "substeps": 4}, "output": {"ply": false}})",
                                          "jet.json");
  pbf_sim::EmitterSpec e = inlet(0.08f, 2.0f);
  e.position = {x, 0.8f, 0.3f};
  s.emitters.push_back(e);
  return s;
}

TEST(Emitters, ALevelJetLeavesItsInletAsAJet) {
  // Placed where a jet moving at the inlet's speed would have room, the discs landed on the jet's
  // end as soon as it lagged: within a third, then a seventh, of a spacing of the water there,
  // which threw particles at 8 m/s by frame 11 and 14 to 17 m/s by frame 16. Nothing here comes
  // near the wall or anything else: the jet only falls, and no particle may be faster than its
  // fall makes it, sqrt(2^2 + (g t)^2) = 3.83 m/s after 20 frames.
  pbf_sim::SceneRunner r(level_jet(0.04f));
  float most = 0.0f;
  for (int f = 0; f < 20; ++f) {
    r.advance();
    most = std::max(most, r.last_stats().max_speed);  // the fastest particle after the step
  }
  EXPECT_LT(most, 4.0f);
  EXPECT_EQ(r.totals().emitted, 34u * 49u) << "every disc due in 1/3 s, none held back";
  EXPECT_EQ(r.totals().blocked, 0u);
  EXPECT_EQ(r.totals().clipped, 0u);
}

TEST(Emitters, AnInletOnAWallEmitsHalfASpacingFromIt) {
  // The inlet in the wall itself: the particles of a disc not yet half a spacing out are left
  // out, as the fills leave out points that near a wall, where they would start compressed
  // against it (that threw particles at 17 m/s by frame 19).
  pbf_sim::SceneRunner r(level_jet(0.0f));
  float most = 0.0f;
  for (int f = 0; f < 20; ++f) {
    r.advance();
    const size_t n = r.particle_count();
    std::vector<float> x(3 * n);
    ASSERT_EQ(pbf_solver_get_positions(r.solver(), x.data(), x.size()), PBF_OK);
    most = std::max(most, r.last_stats().max_speed);  // the fastest particle after the step
    for (size_t i = 0; i < n; ++i) ASSERT_GE(x[3 * i], 0.0099f) << "frame " << f + 1 << ", particle " << i;
  }
  EXPECT_LT(most, 4.0f);
  EXPECT_GT(r.totals().clipped, 0u);
  EXPECT_EQ(r.totals().emitted + r.totals().clipped, 34u * 49u);
}

// level_jet(x) with a plate across the lower half of its way: a box obstacle 4 cm thick along the
// flow, from 0.72 m up to the inlet's axis (0.8 m), centred `plate_x` along the flow, as deep as the domain.
pbf_sim::Scene jet_at_a_plate(float x, float plate_x) {
  pbf_sim::Scene s = level_jet(x);
  pbf_sim::ObstacleSpec plate;
  plate.shape = pbf_sim::ObstacleSpec::Shape::Box;
  plate.half_extents = {0.02f, 0.04f, 0.3f};
  plate.pose.position = {plate_x, 0.76f, 0.3f};
  s.obstacles.push_back(plate);
  return s;
}

TEST(Emitters, DiscsCarriedIntoAnObstacleLeaveThoseParticlesOut) {
  // The plate stands 1 to 5 cm downstream of the inlet: the discs due during a frame are carried up
  // to 3.3 cm before they are placed, and those of their particles that would land inside the plate
  // or within half a spacing of it are left out, as the fills leave such points out. Placed, they
  // started pressed into the solid and were thrown out of it at 8 m/s by frame 2, 11 m/s by frame 7.
  pbf_sim::SceneRunner r(jet_at_a_plate(0.04f, 0.07f));
  float most = 0.0f;
  for (int f = 0; f < 20; ++f) {
    r.advance();
    most = std::max(most, r.last_stats().max_speed);  // the fastest particle after the step
    const size_t n = r.particle_count();
    std::vector<float> x(3 * n);
    ASSERT_EQ(pbf_solver_get_positions(r.solver(), x.data(), x.size()), PBF_OK);
    for (size_t i = 0; i < n; ++i)
      ASSERT_FALSE(x[3 * i] > 0.05f && x[3 * i] < 0.09f && x[3 * i + 1] > 0.72f && x[3 * i + 1] < 0.8f)
          << "inside the plate at frame " << f + 1 << ": particle " << i;
  }
  EXPECT_GT(r.totals().obstructed, 0u);
  EXPECT_EQ(r.totals().clipped, 0u);
  EXPECT_LT(most, 4.0f) << "no faster than the jet falls and splashes off the plate";
}

TEST(Emitters, AnInletWhoseDiscStartsAtAWallIsNamedWhenTheRunStarts) {
  // Particles of a disc outside the domain or within half a spacing of a wall are dropped where
  // the inlet places them (above): pbf-sim says so once, when the run starts, with the count.
  auto notices = [](const pbf_sim::Scene& s) {
    std::vector<std::string> messages;
    pbf_sim::RunOptions options;
    options.message = [&messages](const std::string& m) { messages.push_back(m); };
    pbf_sim::SceneRunner r(s, options);
    return messages;
  };
  for (float x : {0.0f, 0.005f}) {  // in the wall, and 5 mm of the 1 cm from it
    const std::vector<std::string> m = notices(level_jet(x));
    ASSERT_EQ(m.size(), 1u) << "inlet at x = " << x;
    EXPECT_EQ(m[0].rfind("jet.json: emitters[0]: 49 of the 49 particles of each disc lie outside the domain or "
                         "nearer than half a spacing (0.01 m) to one of its walls",
                         0),
              0u)
        << m[0];
  }
  EXPECT_TRUE(notices(level_jet(0.04f)).empty());
  // The plate over the inlet itself: the disc's points on its axis and below it (29 of 49: the rows of
  // 9, 7, 7, 5 and 1) lie in the plate or on its top face.
  const std::vector<std::string> plated = notices(jet_at_a_plate(0.04f, 0.04f));
  ASSERT_EQ(plated.size(), 1u);
  EXPECT_EQ(plated[0].rfind("jet.json: emitters[0]: 29 of the 49 particles of each disc lie inside an obstacle", 0),
            0u)
      << plated[0];
  // Pointing down beside a wall, its disc (radius 4 spacings) reaching past it: the lattice's
  // column 4 spacings towards the wall (1 point, x = -0.03) and the one 3 spacings (5 points,
  // x = -0.01) are outside the domain for good.
  pbf_sim::Scene s = level_jet(0.05f);
  s.emitters[0].direction = {0.0f, -1.0f, 0.0f};
  const std::vector<std::string> m = notices(s);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].rfind("jet.json: emitters[0]: 6 of the 49 particles", 0), 0u) << m[0];
}

TEST(Emitters, AnInletBeyondTheSolversCapacityIsRefusedNamingItsKey) {
  // A disc, or a frame's discs, of more particles than max_particles can never be emitted; building
  // them took time and memory without bound (these three hung pbf-sim before they were refused).
  auto refusal = [](float radius, float speed, float rate) {
    pbf_sim::Scene s = level_jet(0.04f);
    s.emitters[0].radius = radius;
    s.emitters[0].speed = speed;
    s.emitters[0].rate = rate;
    try {
      pbf_sim::SceneRunner r(s);
    } catch (const pbf_sim::RunError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal(1000.0f, 2.0f, 0.0f).rfind("jet.json: emitters[0].radius: a disc of radius 1000 m at the spacing "
                                                "of 0.02 m holds more particles than max_particles (1000000)",
                                                0),
            0u)
      << refusal(1000.0f, 2.0f, 0.0f);
  EXPECT_EQ(refusal(0.08f, 2.0f, 1e30f).rfind("jet.json: emitters[0].rate: 1e+30 particles/s is 1.67e+28 particles a "
                                               "frame at 60 frames/s, more than max_particles (1000000)",
                                               0),
            0u)
      << refusal(0.08f, 2.0f, 1e30f);
  EXPECT_EQ(refusal(0.08f, 3e38f, 0.0f).rfind("jet.json: emitters[0].speed: at 3e+38 m/s discs of 49 particles leave "
                                               "one spacing (0.02 m) apart",
                                               0),
            0u)
      << refusal(0.08f, 3e38f, 0.0f);
  // The count the refusal rests on: a disc of 564 spacings holds 999,289 lattice points, within a
  // million; one of 565 spacings more (reported as the limit + 1); and it counts what an emitter places.
  EXPECT_EQ(pbf_sim::Emitter::disc_count(564.0 * 0.02, 0.02, 1000000), 999289u);
  EXPECT_EQ(pbf_sim::Emitter::disc_count(565.0 * 0.02, 0.02, 1000000), 1000001u);
  for (float spacing : {0.02f, 0.001f})  // 0.08 / 0.001 in floats lies a hair below 80: the edge of the square
    for (float radius : {0.08f, 0.1f, 0.41f, 1.0f})
      EXPECT_EQ(pbf_sim::Emitter::disc_count(radius, spacing, 10000000),
                pbf_sim::Emitter(inlet(radius, 2.0f), spacing).disc_size())
          << "radius " << radius << ", spacing " << spacing;
}

TEST(Sinks, RemoveEveryParticleInsideTheirBox) {
  // A block at rest without gravity; the sink takes the half x > 0.2 (a plane
  // between lattice columns at x = 0.175 and 0.225).
  pbf_sim::Scene s = pbf_sim::parse_scene(R"({
    "domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "backend": "cpu", "spacing": 0.05,
    "parameters": {"gravity": [0, 0, 0]}, "time": {"fps": 60, "frames": 3, "substeps": 2},
    "fluid": [{"box": {"min": [0, 0, 0], "max": [0.4, 0.3, 0.3]}}],
    "sinks": [{"box": {"min": [0.2, -1, -1], "max": [2, 2, 2]}}],
    "output": {"ply": false}})",
                                          "sink.json");
  pbf_sim::SceneRunner r(s);
  ASSERT_EQ(r.particle_count(), 8u * 6u * 6u);
  r.advance();
  EXPECT_EQ(r.particle_count(), 4u * 6u * 6u);
  EXPECT_EQ(r.totals().removed, 4u * 6u * 6u);
  r.advance();
  const size_t n = r.particle_count();
  std::vector<float> x(3 * n);
  ASSERT_EQ(pbf_solver_get_positions(r.solver(), x.data(), x.size()), PBF_OK);
  for (size_t i = 0; i < n; ++i) EXPECT_LT(x[3 * i], 0.2f) << "particle " << i << " is inside the sink";
}

TEST(Sinks, DrainWhatAnEmitterAdds) {
  // The jet runs straight into a sink: particles come and go, the count stays bounded.
  pbf_sim::EmitterSpec spec = inlet(0.1f, 1.0f);
  pbf_sim::Scene s = inlet_scene(spec);
  pbf_sim::Sink sink;
  sink.box.min = {0.6f, 0.0f, 0.0f};
  sink.box.max = {1.0f, 1.0f, 1.0f};
  s.sinks.push_back(sink);
  pbf_sim::SceneRunner r(s);
  for (int f = 0; f < 10; ++f) r.advance();
  EXPECT_EQ(r.totals().emitted, 130u);
  EXPECT_GT(r.totals().removed, 0u);
  EXPECT_EQ(r.particle_count(), r.totals().emitted - r.totals().removed);
}

}  // namespace
