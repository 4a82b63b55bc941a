// The solver method, the Projective Fluids parameters and the domain-wall
// boundary particles of a scene reach the solver.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"

namespace {

using pbf_sim::parse_scene;

const char* kTank = R"({"domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.4]}, "spacing": 0.04, "backend": "cpu",
  "time": {"fps": 60, "frames": 3, "substeps": 2}, "output": {"ply": false},
  "fluid": [{"box": {"min": [0, 0, 0], "max": [0.4, 0.2, 0.4]}}])";

std::string tank_with(const std::string& extra) { return std::string(kTank) + ", " + extra + "}"; }

TEST(SceneMethod, ProjectiveFluidsAndItsParametersReachTheSolver) {
  const pbf_sim::Scene s = parse_scene(
      tank_with(R"("method": "projective", "parameters": {"projective_stiffness": 5e5, "projective_iterations": 12,
                    "adaptive_dt": false, "cg_max_iterations": 50, "max_dt": 0.005})"),
      "scene.json");
  EXPECT_EQ(s.method, PBF_METHOD_PROJECTIVE);
  pbf_sim::SceneRunner runner(s);
  EXPECT_EQ(runner.desc().method, PBF_METHOD_PROJECTIVE);
  pbf_params p = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(runner.solver(), &p), PBF_OK);
  EXPECT_EQ(p.projective_stiffness, 5e5f);
  EXPECT_EQ(p.projective_iterations, 12u);
  EXPECT_EQ(p.adaptive_dt, 0);
  EXPECT_EQ(p.cg_max_iterations, 50u);
  EXPECT_EQ(p.max_dt, 0.005f);
  for (int f = 0; f < 3; ++f) runner.advance();
  EXPECT_GT(runner.last_stats().cg_iterations, 0u) << "the step ran the global solves";
}

TEST(SceneMethod, PbfIsTheDefaultAndAnUnknownMethodIsNamed) {
  EXPECT_EQ(parse_scene(tank_with(R"("description": "")"), "scene.json").method, PBF_METHOD_PBF);
  try {
    parse_scene(tank_with(R"("method": "sph")"), "scene.json");
    FAIL() << "accepted method sph";
  } catch (const pbf_sim::SceneError& e) {
    EXPECT_EQ(std::string(e.what()), "scene.json: method: expected \"pbf\" or \"projective\", got \"sph\"");
  }
  try {
    parse_scene(tank_with(R"("parameters": {"projective_iterations": 0})"), "scene.json");
    FAIL() << "accepted 0 iterations";
  } catch (const pbf_sim::SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scene.json: parameters.projective_iterations: expected an integer in [1, 1000000], got 0");
  }
}

TEST(SceneBoundaryParticles, SampleTheDomainWalls) {
  pbf_sim::SceneRunner off(parse_scene(tank_with(R"("boundary_particles": false)"), "scene.json"));
  size_t count = 1;
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(off.solver(), &count), PBF_OK);
  EXPECT_EQ(count, 0u);
  pbf_sim::SceneRunner on(parse_scene(tank_with(R"("boundary_particles": true)"), "scene.json"));
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(on.solver(), &count), PBF_OK);
  // Six walls of 0.4 m at 4 cm: about 6 x 10 x 10 samples.
  EXPECT_GT(count, 500u);
  EXPECT_LT(count, 800u);
  for (int f = 0; f < 3; ++f) on.advance();
  EXPECT_TRUE(std::isfinite(on.last_stats().avg_density_error));
}


TEST(SceneBoundaryParticles, SampleStaticObstaclesAndMovingOnes) {
  pbf_sim::SceneRunner runner(parse_scene(
      tank_with(R"("obstacles": [{"sphere": {"radius": 0.08}, "position": [0.2, 0.3, 0.2], "boundary_particles": true}])"),
      "scene.json"));
  size_t count = 0;
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(runner.solver(), &count), PBF_OK);
  // A ball of radius 8 cm sampled 2.6 cm inside (the walls' setback at 4 cm spacing): about
  // 4 pi (0.054 m)^2 / (0.04 m)^2 = 23 samples, on a sphere this small rather fewer.
  EXPECT_GT(count, 10u);
  EXPECT_LT(count, 60u);
  // The same ball on a path: its samples are attached to it, about as many as the static ball's.
  pbf_sim::SceneRunner moving(parse_scene(
      tank_with(R"("obstacles": [{"sphere": {"radius": 0.08}, "boundary_particles": true,
                                  "path": [{"time": 0, "position": [0.2, 0.3, 0.2]},
                                           {"time": 1, "position": [0.3, 0.3, 0.2]}]}])"),
      "scene.json"));
  size_t moving_count = 0;
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(moving.solver(), &moving_count), PBF_OK);
  EXPECT_GT(moving_count, 10u);
  EXPECT_LT(moving_count, 60u);
  // A resumed run adds the obstacles again, and their attached samples with them, once.
  const std::string dir = sim_test::fresh_dir();
  moving.advance();
  moving.save_checkpoint(dir + "/state.pbfc");
  pbf_sim::SceneRunner resumed(parse_scene(
      tank_with(R"("obstacles": [{"sphere": {"radius": 0.08}, "boundary_particles": true,
                                  "path": [{"time": 0, "position": [0.2, 0.3, 0.2]},
                                           {"time": 1, "position": [0.3, 0.3, 0.2]}]}])"),
      "scene.json"));
  resumed.resume(dir + "/state.pbfc", 1);
  size_t resumed_count = 0;
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(resumed.solver(), &resumed_count), PBF_OK);
  EXPECT_EQ(resumed_count, moving_count);
  resumed.advance();
}

}  // namespace
