// Frame 0 carries the densities of the placed fluid (pbf_solver_update_densities),
// not zeros: the value a step would compute at the same positions, on every
// method and backend, with nothing moved.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <cmath>
#include <string>
#include <vector>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"

namespace {

// A block resting on the floor of a box with sampled walls, on the CPU.
pbf_sim::Scene block_scene(const std::string& dir, const char* method) {
  pbf_sim::Scene s = pbf_sim::parse_scene(std::string(R"({
    "domain": {"min": [0, 0, 0], "max": [0.6, 0.6, 0.6]}, "backend": "cpu", "spacing": 0.05, "method": ")") +
                                              method + R"(", "boundary_particles": true,
    "time": {"fps": 60, "frames": 1, "substeps": 2},
    "fluid": [{"box": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.4]}}],
    "output": {"ply": true, "vtp": false}})",
                                          "block.json");
  s.output.dir = dir;
  return s;
}

enum class Field { Positions, Velocities, Densities };

// A whole field of the solver, in user order.
std::vector<float> read_field(const pbf_solver* s, Field which) {
  size_t n = 0;
  EXPECT_EQ(pbf_solver_particle_count(s, &n), PBF_OK);
  std::vector<float> out(which == Field::Densities ? n : 3 * n);
  if (n == 0) return out;
  const pbf_status status = which == Field::Positions    ? pbf_solver_get_positions(s, out.data(), out.size())
                            : which == Field::Velocities ? pbf_solver_get_velocities(s, out.data(), out.size())
                                                         : pbf_solver_get_densities(s, out.data(), out.size());
  EXPECT_EQ(status, PBF_OK) << pbf_last_error();
  return out;
}

class FrameZero : public ::testing::TestWithParam<const char*> {};

TEST_P(FrameZero, PlyDensitiesAreThoseOfTheRestLatticeNotZero) {
  // The block fills the corner of the box (x, y, z < 0.4 m); its particles against the walls or inside
  // (all but the outer layer at x, y or z > 0.35 m, which has air beside it) are within 2 % of the
  // rest density: the kernel sum over the lattice and the walls' samples. Every particle has more than
  // a third of it.
  const std::string dir = sim_test::fresh_dir(std::string("_") + GetParam());
  pbf_sim::SceneRunner r(block_scene(dir, GetParam()));
  r.write_output();
  const sim_test::PlyData ply = sim_test::read_ply(dir + "/frame_0000.ply");
  ASSERT_EQ(ply.count, 512u);
  size_t inner = 0;
  for (size_t i = 0; i < ply.count; ++i) {
    const float* x = &ply.positions[3 * i];
    EXPECT_GT(ply.densities[i], 1000.0f / 3.0f) << "particle " << i;
    if (x[0] > 0.35f || x[1] > 0.35f || x[2] > 0.35f) continue;
    EXPECT_NEAR(ply.densities[i], 1000.0f, 20.0f) << "particle " << i << " at " << x[0] << " " << x[1] << " " << x[2];
    ++inner;
  }
  EXPECT_EQ(inner, 343u);
}

TEST_P(FrameZero, UpdatingDensitiesMovesNothingAndAgreesWithAStep) {
  const std::string dir = sim_test::fresh_dir(std::string("_") + GetParam());
  pbf_sim::SceneRunner r(block_scene(dir, GetParam()));
  pbf_solver* s = r.solver();
  ASSERT_EQ(pbf_solver_step(s, 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
  const std::vector<float> x = read_field(s, Field::Positions), v = read_field(s, Field::Velocities),
                           rho = read_field(s, Field::Densities);
  pbf_stats before = pbf_stats_default(), after = pbf_stats_default();
  ASSERT_EQ(pbf_solver_get_stats(s, &before), PBF_OK);
  ASSERT_EQ(pbf_solver_update_densities(s), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_get_stats(s, &after), PBF_OK);
  EXPECT_EQ(read_field(s, Field::Positions), x) << "positions bit for bit";
  EXPECT_EQ(read_field(s, Field::Velocities), v) << "velocities bit for bit";
  EXPECT_EQ(after.avg_density_error, before.avg_density_error) << "the last step's statistics stay";
  // The step evaluated its densities at these very positions; only the order of the sums may differ.
  const std::vector<float> again = read_field(s, Field::Densities);
  ASSERT_EQ(again.size(), rho.size());
  for (size_t i = 0; i < rho.size(); ++i) EXPECT_NEAR(again[i], rho[i], 1e-4f * rho[i]) << "particle " << i;
}

INSTANTIATE_TEST_SUITE_P(Methods, FrameZero, ::testing::Values("pbf", "projective"));

TEST(FrameZeroErrors, UpdatingDensitiesWantsASolverThatIsNotMapped) {
  EXPECT_EQ(pbf_solver_update_densities(nullptr), PBF_ERROR_NULL_POINTER);
  EXPECT_NE(std::string(pbf_last_error()).find("solver"), std::string::npos) << pbf_last_error();
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::SceneRunner r(block_scene(dir, "pbf"));
  const float* data = nullptr;
  ASSERT_EQ(pbf_solver_map(r.solver(), PBF_FIELD_DENSITIES, PBF_MEMORY_HOST, &data, nullptr), PBF_OK);
  EXPECT_EQ(pbf_solver_update_densities(r.solver()), PBF_ERROR_BUSY);
  ASSERT_EQ(pbf_solver_unmap(r.solver(), PBF_FIELD_DENSITIES), PBF_OK);
  EXPECT_EQ(pbf_solver_update_densities(r.solver()), PBF_OK) << pbf_last_error();
}

}  // namespace
