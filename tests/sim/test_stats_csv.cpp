// pbf-sim --stats: the CSV read back has its header, one row per frame from
// frame 0 and values that agree with the C API and with physics: water at
// rest has no kinetic energy, energy and speeds are the particles', mass is
// particle mass times count, and a falling block's centre of mass follows
// gravity.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"
#include "stats_writer.h"

namespace {

// A CSV with a header row, read independently of the writer: every column by name.
struct Csv {
  std::vector<std::string> header;
  std::map<std::string, std::vector<double>> column;
  size_t rows = 0;
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  return cells;
}

Csv read_csv(const std::string& path) {
  Csv csv;
  std::stringstream in(sim_test::read_text(path));
  std::string line;
  if (!std::getline(in, line)) return csv;
  csv.header = split(line);
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line);
    EXPECT_EQ(cells.size(), csv.header.size()) << "row " << csv.rows << ": " << line;
    for (size_t c = 0; c < cells.size() && c < csv.header.size(); ++c)
      csv.column[csv.header[c]].push_back(std::stod(cells[c]));
    ++csv.rows;
  }
  return csv;
}

// A scene on the CPU at spacing 0.05 m with `fluid` and 1/30 s frames of 2 substeps, writing only the CSV.
pbf_sim::Scene scene_with(const std::string& fluid, int frames, const std::string& csv) {
  pbf_sim::Scene s = pbf_sim::parse_scene(R"({
    "domain": {"min": [0, 0, 0], "max": [0.5, 1.0, 0.5]}, "backend": "cpu", "spacing": 0.05,
    "time": {"fps": 30, "frames": )" + std::to_string(frames) + R"(, "substeps": 2},
    "fluid": [)" + fluid + R"(], "output": {"ply": false, "stats": "ignored.csv"}})",
                                          "stats.json");
  s.output.stats = csv;
  return s;
}

// Runs every frame of the runner's scene, writing a row per frame, as pbf-sim does.
void run(pbf_sim::SceneRunner& r) {
  r.write_stats();
  for (int k = 0; k < r.scene().time.frames; ++k) {
    r.advance();
    r.write_stats();
  }
}

TEST(StatsCsv, HasTheHeaderAndOneRowPerFrameFromFrameZero) {
  const std::string path = sim_test::fresh_dir() + "/stats.csv";
  pbf_sim::SceneRunner runner(scene_with(R"({"box": {"min": [0, 0, 0], "max": [0.2, 0.3, 0.2]}})", 4, path));
  run(runner);
  EXPECT_EQ(runner.stats_rows(), 5u);
  const Csv csv = read_csv(path);
  EXPECT_EQ(csv.header, pbf_sim::StatsWriter::columns());
  for (const char* name : {"frame", "time_s", "particles", "substeps", "iterations", "avg_density_error",
                           "max_density_error", "avg_neighbors", "max_speed_m_s", "rms_speed_m_s", "kinetic_energy_J",
                           "mass_kg", "com_x_m", "com_y_m", "com_z_m", "time_total_ms", "time_predict_ms",
                           "time_grid_ms", "time_neighbors_ms", "time_constraints_ms", "time_velocity_ms",
                           "time_vorticity_viscosity_ms", "density_iterations"})
    EXPECT_EQ(csv.column.count(name), 1u) << "column " << name;
  ASSERT_EQ(csv.rows, 5u);
  for (size_t k = 0; k < csv.rows; ++k) {
    EXPECT_EQ(csv.column.at("frame")[k], static_cast<double>(k));
    EXPECT_NEAR(csv.column.at("time_s")[k], k / 30.0, 1e-8) << "time = frame x frame time";
    EXPECT_EQ(csv.column.at("particles")[k], 4.0 * 6.0 * 4.0);
  }
  // Frame 0 was reached by no step: its step statistics are 0; every later row has them.
  EXPECT_EQ(csv.column.at("substeps")[0], 0.0);
  EXPECT_EQ(csv.column.at("time_total_ms")[0], 0.0);
  for (size_t k = 1; k < csv.rows; ++k) {
    EXPECT_GE(csv.column.at("substeps")[k], 2.0);  // the 2 asked for, or more where the CFL split took more
    // The most a substep may run (max_iterations, the density tolerance being on), and those that ran.
    const pbf_params d = pbf_params_default();
    EXPECT_EQ(csv.column.at("iterations")[k], static_cast<double>(d.max_iterations));
    EXPECT_GE(csv.column.at("density_iterations")[k], csv.column.at("substeps")[k] * d.iterations);
    EXPECT_LE(csv.column.at("density_iterations")[k], csv.column.at("substeps")[k] * d.max_iterations);
    EXPECT_GT(csv.column.at("time_total_ms")[k], 0.0);
    EXPECT_GT(csv.column.at("avg_neighbors")[k], 0.0);
  }
}

TEST(StatsCsv, MassIsParticleMassTimesCount) {
  const std::string path = sim_test::fresh_dir() + "/stats.csv";
  pbf_sim::SceneRunner runner(scene_with(R"({"box": {"min": [0, 0, 0], "max": [0.2, 0.3, 0.2]}})", 2, path));
  run(runner);
  float mass = 0.0f;
  ASSERT_EQ(pbf_solver_get_particle_mass(runner.solver(), &mass), PBF_OK);
  const Csv csv = read_csv(path);
  ASSERT_EQ(csv.rows, 3u);
  for (size_t k = 0; k < csv.rows; ++k)
    EXPECT_NEAR(csv.column.at("mass_kg")[k], mass * csv.column.at("particles")[k], 1e-6 * mass * 96.0);
  // The lattice at rest density weighs what its volume of water does, within 10 %.
  EXPECT_NEAR(csv.column.at("mass_kg")[0], 1000.0 * 0.2 * 0.3 * 0.2, 0.1 * 12.0);
}

TEST(StatsCsv, WaterAtRestHasNoKineticEnergy) {
  const std::string path = sim_test::fresh_dir() + "/stats.csv";
  pbf_sim::SceneRunner runner(scene_with(R"({"box": {"min": [0, 0, 0], "max": [0.5, 0.2, 0.5]}})", 1, path));
  EXPECT_TRUE(runner.write_stats());
  const Csv csv = read_csv(path);
  ASSERT_EQ(csv.rows, 1u);
  EXPECT_EQ(csv.column.at("kinetic_energy_J")[0], 0.0);
  EXPECT_EQ(csv.column.at("max_speed_m_s")[0], 0.0);
  EXPECT_EQ(csv.column.at("rms_speed_m_s")[0], 0.0);
  EXPECT_GT(csv.column.at("mass_kg")[0], 0.0);
}

TEST(StatsCsv, SpeedsAndKineticEnergyAreThoseOfTheParticles) {
  const std::string path = sim_test::fresh_dir() + "/stats.csv";
  pbf_sim::SceneRunner runner(scene_with(R"({"box": {"min": [0, 0, 0], "max": [0.2, 0.4, 0.2]}})", 6, path));
  run(runner);
  // Recomputed here from the velocities the C API gives after the last frame.
  const size_t n = runner.particle_count();
  std::vector<float> v(3 * n);
  ASSERT_EQ(pbf_solver_get_velocities(runner.solver(), v.data(), v.size()), PBF_OK);
  float mass = 0.0f;
  ASSERT_EQ(pbf_solver_get_particle_mass(runner.solver(), &mass), PBF_OK);
  double sum = 0.0, largest = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double v2 = double(v[3 * i]) * v[3 * i] + double(v[3 * i + 1]) * v[3 * i + 1] + double(v[3 * i + 2]) * v[3 * i + 2];
    sum += v2;
    largest = std::max(largest, v2);
  }
  const Csv csv = read_csv(path);
  ASSERT_EQ(csv.rows, 7u);
  ASSERT_GT(sum, 0.0) << "the column collapsed";
  // Within the CSV's 9 significant digits.
  EXPECT_NEAR(csv.column.at("kinetic_energy_J")[6], 0.5 * mass * sum, 1e-7 * 0.5 * mass * sum);
  EXPECT_NEAR(csv.column.at("max_speed_m_s")[6], std::sqrt(largest), 1e-7 * std::sqrt(largest));
  EXPECT_NEAR(csv.column.at("rms_speed_m_s")[6], std::sqrt(sum / n), 1e-7 * std::sqrt(sum / n));
  for (size_t k = 0; k < csv.rows; ++k)
    EXPECT_LE(csv.column.at("rms_speed_m_s")[k], csv.column.at("max_speed_m_s")[k] * (1.0 + 1e-8)) << "frame " << k;
}

TEST(StatsCsv, AFallingBlocksCentreOfMassFollowsGravity) {
  const std::string path = sim_test::fresh_dir() + "/stats.csv";
  // A block in the air, 0.5 m above the floor: three frames (0.1 s) of free fall.
  pbf_sim::SceneRunner runner(scene_with(R"({"box": {"min": [0.1, 0.5, 0.1], "max": [0.3, 0.7, 0.3]}})", 3, path));
  run(runner);
  const Csv csv = read_csv(path);
  ASSERT_EQ(csv.rows, 4u);
  const double g = 9.81, y0 = csv.column.at("com_y_m")[0], mass = csv.column.at("mass_kg")[0];
  EXPECT_NEAR(y0, 0.6, 1e-6);
  EXPECT_NEAR(csv.column.at("com_x_m")[0], 0.2, 1e-6);
  EXPECT_NEAR(csv.column.at("com_z_m")[0], 0.2, 1e-6);
  for (size_t k = 1; k < csv.rows; ++k) {
    const double t = k / 30.0, v = g * t;
    // Symplectic Euler with N substeps of dt falls g t^2 (N + 1) / (2 N); forces between particles cancel.
    const double steps = 2.0 * k, drop = g * t * t * (steps + 1.0) / (2.0 * steps);
    EXPECT_NEAR(y0 - csv.column.at("com_y_m")[k], drop, 0.001 * drop) << "frame " << k << ", within 0.1 %";
    EXPECT_NEAR(csv.column.at("com_x_m")[k], 0.2, 1e-5) << "no sideways drift";
    // The whole block's motion is part of its kinetic energy.
    EXPECT_GE(csv.column.at("kinetic_energy_J")[k], 0.999 * 0.5 * mass * v * v) << "frame " << k;
    EXPECT_GE(csv.column.at("rms_speed_m_s")[k], 0.999 * v) << "frame " << k;
  }
}

TEST(StatsCsv, WithoutOutputStatsNothingIsWritten) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene scene = scene_with(R"({"box": {"min": [0, 0, 0], "max": [0.2, 0.3, 0.2]}})", 1, "");
  pbf_sim::SceneRunner runner(std::move(scene));
  EXPECT_FALSE(runner.write_stats());
  runner.advance();
  EXPECT_FALSE(runner.write_stats());
  EXPECT_EQ(runner.stats_rows(), 0u);
}

TEST(StatsCsv, AFileThatCannotBeCreatedIsNamedInTheError) {
  const std::string path = sim_test::fresh_dir() + "/missing-folder/stats.csv";
  pbf_sim::SceneRunner runner(scene_with(R"({"box": {"min": [0, 0, 0], "max": [0.2, 0.3, 0.2]}})", 1, path));
  try {
    runner.write_stats();
    FAIL() << "wrote into a missing folder";
  } catch (const pbf_sim::RunError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": cannot create the statistics file"), std::string::npos) << e.what();
  }
}

TEST(StatsCsv, TheSceneKeyIsReadAndAnEmptyNameRefused) {
  const std::string base = R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.1, "output": )";
  EXPECT_EQ(pbf_sim::parse_scene(base + R"({"stats": "run/stats.csv"}})", "s.json").output.stats, "run/stats.csv");
  EXPECT_EQ(pbf_sim::parse_scene(base + "{}}", "s.json").output.stats, "");
  try {
    pbf_sim::parse_scene(base + R"({"stats": ""}})", "s.json");
    FAIL() << "an empty output.stats was accepted";
  } catch (const pbf_sim::SceneError& e) {
    EXPECT_STREQ(e.what(), "s.json: output.stats: expected a file name, got \"\"");
  }
}

}  // namespace
