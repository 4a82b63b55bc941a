// pbf-sim --forces and --bodies: the CSV of the forces on the obstacles has
// its header and a row per obstacle per frame from frame 0 (zero there, as no
// step reached it); a floor obstacle carries the weight of the water resting
// on it, with either method. The CSV of the dynamic bodies has a row per body per frame: a ball
// thrown down falls with gravity from its thrown speed and is stopped by the
// water.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"
#include "stats_writer.h"

namespace {

std::vector<std::vector<std::string>> read_rows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream in(sim_test::read_text(path));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    std::string cell;
    while (std::getline(cells_in, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// Water 0.2 m deep on a box obstacle that spans the tank (its top at y = 0.05 m), boundary
// particles on, 1/30 s frames of 2 substeps, CPU.
std::string floor_scene(const std::string& method, int frames) {
  return R"({
    "domain": {"min": [0, 0, 0], "max": [0.5, 0.6, 0.5]}, "backend": "cpu", "spacing": 0.05, "method": ")" +
         method + R"(", "time": {"fps": 30, "frames": )" + std::to_string(frames) + R"(, "substeps": 2},
    "obstacles": [{"box": {"half_extents": [0.5, 0.05, 0.5]}, "position": [0.25, 0.0, 0.25],
                   "boundary_particles": true}],
    "fluid": [{"box": {"min": [0, 0.05, 0], "max": [0.5, 0.25, 0.5]}}],
    "output": {"ply": false, "forces": "forces.csv"}})";
}

void expect_floor_carries_the_water(const std::string& method) {
  constexpr int kFrames = 45;
  pbf_sim::Scene scene = pbf_sim::parse_scene(floor_scene(method, kFrames), "forces.json");
  const std::string path = sim_test::fresh_dir() + "/forces.csv";
  scene.output.forces = path;
  pbf_sim::SceneRunner runner(std::move(scene));
  runner.write_stats();
  for (int k = 0; k < kFrames; ++k) {
    runner.advance();
    runner.write_stats();
  }
  EXPECT_EQ(runner.forces_rows(), size_t(kFrames + 1)) << "one obstacle, frames 0 .. 45";
  const std::vector<std::vector<std::string>> rows = read_rows(path);
  ASSERT_EQ(rows.size(), size_t(kFrames + 2));
  EXPECT_EQ(rows[0], pbf_sim::ObstacleTableWriter::columns(pbf_sim::ObstacleTableWriter::Table::Forces));
  for (size_t k = 1; k < rows.size(); ++k) {
    ASSERT_EQ(rows[k].size(), rows[0].size()) << "row " << k;
    EXPECT_EQ(std::stoi(rows[k][0]), int(k - 1)) << "frame";
    EXPECT_EQ(rows[k][2], "0") << "the obstacle's index";
  }
  for (size_t c = 3; c < rows[1].size(); ++c) EXPECT_EQ(std::stod(rows[1][c]), 0.0) << "frame 0: no step yet";
  // The last 15 frames (the last half second): the floor carries the water's weight.
  size_t n = 0;
  float mass = 0.0f;
  ASSERT_EQ(pbf_solver_particle_count(runner.solver(), &n), PBF_OK);
  ASSERT_EQ(pbf_solver_get_particle_mass(runner.solver(), &mass), PBF_OK);
  double carried = 0.0;
  for (size_t k = rows.size() - 15; k < rows.size(); ++k) carried -= std::stod(rows[k][4]) / 15.0;
  const double weight = double(n) * mass * 9.81;
  EXPECT_NEAR(carried, weight, 0.05 * weight) << "force_y_N against the water's weight";
}

TEST(ForcesCsv, AFloorObstacleCarriesTheWaterFromTheFirstStepOn) { expect_floor_carries_the_water("pbf"); }

TEST(ForcesCsv, AFloorObstacleCarriesProjectiveFluidsWaterToo) { expect_floor_carries_the_water("projective"); }

// A ball of 600 kg/m^3 thrown down at 1 m/s from 0.3 m above water 0.2 m deep, beside a kinematic
// box (which the bodies file leaves out), 1/30 s frames of 2 substeps, CPU.
TEST(BodiesCsv, AThrownBallFallsAndTheWaterStopsIt) {
  constexpr int kFrames = 30;
  pbf_sim::Scene scene = pbf_sim::parse_scene(R"({
    "domain": {"min": [0, 0, 0], "max": [0.5, 0.8, 0.5]}, "backend": "cpu", "spacing": 0.04, "boundary_particles": true,
    "time": {"fps": 30, "frames": 30, "substeps": 2},
    "obstacles": [{"box": {"half_extents": [0.05, 0.05, 0.05]}, "position": [0.1, 0.6, 0.1]},
                  {"sphere": {"radius": 0.08}, "position": [0.25, 0.5, 0.25], "density": 600,
                   "velocity": [0, -1, 0], "angular_velocity": [0, 2, 0], "boundary_particles": true}],
    "fluid": [{"box": {"min": [0, 0, 0], "max": [0.5, 0.2, 0.5]}}],
    "output": {"ply": false}})",
                                              "bodies.json");
  const std::string path = sim_test::fresh_dir() + "/bodies.csv";
  scene.output.bodies = path;
  pbf_sim::SceneRunner runner(std::move(scene));
  runner.write_stats();
  for (int k = 0; k < kFrames; ++k) {
    runner.advance();
    runner.write_stats();
  }
  EXPECT_EQ(runner.bodies_rows(), size_t(kFrames + 1)) << "one dynamic body, frames 0 .. 30";
  const std::vector<std::vector<std::string>> rows = read_rows(path);
  ASSERT_EQ(rows.size(), size_t(kFrames + 2));
  EXPECT_EQ(rows[0], pbf_sim::ObstacleTableWriter::columns(pbf_sim::ObstacleTableWriter::Table::Bodies));
  for (size_t k = 1; k < rows.size(); ++k) {
    ASSERT_EQ(rows[k].size(), rows[0].size()) << "row " << k;
    EXPECT_EQ(rows[k][2], "1") << "the ball's index, not the kinematic box's";
  }
  const auto y = [&](int frame) { return std::stod(rows[frame + 1][4]); };
  const auto vy = [&](int frame) { return std::stod(rows[frame + 1][11]); };
  EXPECT_EQ(y(0), 0.5);
  EXPECT_EQ(vy(0), -1.0) << "thrown down";
  EXPECT_EQ(std::stod(rows[1][14]), 2.0) << "spinning about y";
  // Free fall before it meets the water (its bottom reaches the surface at 0.1 m below).
  EXPECT_NEAR(vy(2), -1.0 - 9.81 * 2.0 / 30.0, 1e-3);
  EXPECT_LT(y(2), 0.5 - 2.0 / 30.0);
  // Then the water stops it: it neither reaches the floor nor keeps falling.
  double lowest = 1.0;
  for (int f = 0; f <= kFrames; ++f) lowest = std::min(lowest, y(f));
  EXPECT_GT(lowest, 0.08 + 0.01) << "never on the floor";
  EXPECT_GT(vy(kFrames), -0.2) << "no longer falling";
}

}  // namespace
