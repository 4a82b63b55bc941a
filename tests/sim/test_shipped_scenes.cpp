// Every scene in samples/scenes/ parses and runs: coarsened so that its
// initial fluid holds at most about 3000 particles, for three frames, with
// PLY and VTP output, as `pbf-sim samples/scenes/X.json` runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"

namespace {

const char* const kScenes[] = {"dam_break",  "double_dam_break", "inlet",         "crown_splash",
                               "torus_drop", "boulder_splash",   "obstacle_dam_break", "zero_gravity",
                               "floating_crates", "ball_drop", "wave_paddle"};

std::string scene_path(const std::string& name) { return std::string(PBF_SIM_SCENES_DIR) + "/" + name + ".json"; }

// The volume of the initial fluid [m^3], blocks clipped to the domain (spheres are not).
double fluid_volume(const pbf_sim::Scene& s) {
  double v = 0.0;
  for (const pbf_sim::FluidBlock& b : s.fluid) {
    if (b.shape == pbf_sim::FluidBlock::Shape::Sphere) {
      v += 4.0 / 3.0 * 3.14159265 * b.radius * b.radius * b.radius;
      continue;
    }
    if (b.shape == pbf_sim::FluidBlock::Shape::Mesh) {
      pbf_sdf* field = nullptr;
      float inside = 0.0f;
      EXPECT_EQ(pbf_sdf_from_mesh_file(b.mesh.path.c_str(), b.mesh.scale.data(), nullptr, nullptr, 0.02f, 0.1f, &field),
                PBF_OK)
          << pbf_last_error();
      EXPECT_EQ(pbf_sdf_volume(field, &inside), PBF_OK) << pbf_last_error();
      pbf_sdf_destroy(field);
      v += inside;
      continue;
    }
    double box = 1.0;
    for (int a = 0; a < 3; ++a)
      box *= std::max(0.0, static_cast<double>(std::min(b.box.max[a], s.domain.max[a]) - std::max(b.box.min[a], s.domain.min[a])));
    v += box;
  }
  return v;
}

class ShippedScene : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedScene, ParsesWithADescriptionAndSomethingToSimulate) {
  const pbf_sim::Scene s = pbf_sim::load_scene(scene_path(GetParam()));
  EXPECT_FALSE(s.description.empty());
  EXPECT_FALSE(s.fluid.empty() && s.emitters.empty());
  EXPECT_TRUE(s.output.ply);
  EXPECT_TRUE(s.output.vtp);
  EXPECT_EQ(s.output.dir, std::string("pbf-out/") + GetParam()) << "each scene writes to its own folder";
}

TEST_P(ShippedScene, RunsThreeFramesAndWritesThem) {
  pbf_sim::Scene s = pbf_sim::load_scene(scene_path(GetParam()));
  const double volume = fluid_volume(s);
  const float coarse = static_cast<float>(std::cbrt(volume / 3000.0));
  if (coarse > s.spacing) pbf_sim::set_spacing(s, coarse);
  s.time.frames = 3;
  s.backend = PBF_BACKEND_CPU;
  s.output.dir = sim_test::fresh_dir();
  pbf_sim::SceneRunner runner(s);
  EXPECT_LE(runner.particle_count(), 4500u);
  runner.write_output();
  for (int k = 0; k < 3; ++k) {
    runner.advance();
    if (runner.output_due()) runner.write_output();
  }
  EXPECT_EQ(runner.frame(), 3);
  const size_t n = runner.particle_count();
  EXPECT_GT(n, 0u);
  if (std::string(GetParam()) == "inlet") {
    EXPECT_EQ(runner.totals().initial_particles, 0u);
    EXPECT_GT(runner.totals().emitted, 0u);
  }
  // Every particle is finite and in the domain.
  std::vector<float> x(3 * n);
  ASSERT_EQ(pbf_solver_get_positions(runner.solver(), x.data(), x.size()), PBF_OK) << pbf_last_error();
  for (size_t i = 0; i < 3 * n; ++i) {
    ASSERT_TRUE(std::isfinite(x[i]));
    ASSERT_GE(x[i], s.domain.min[i % 3]);
    ASSERT_LE(x[i], s.domain.max[i % 3]);
  }
  for (int f = 0; f <= 3; ++f) {
    const std::string stem = s.output.dir + "/frame_000" + std::to_string(f);
    EXPECT_TRUE(std::filesystem::exists(stem + ".ply")) << stem;
    EXPECT_TRUE(std::filesystem::exists(stem + ".vtp")) << stem;
  }
  EXPECT_EQ(sim_test::read_pvd(runner.pvd_path()).size(), 4u);
  EXPECT_TRUE(sim_test::partial_files(s.output.dir).empty());
  // The substeps taken: at least those asked for (the CFL split and adaptive steps may take more).
  EXPECT_GE(runner.totals().substeps, 3u * static_cast<unsigned>(s.time.substeps));
}

INSTANTIATE_TEST_SUITE_P(Samples, ShippedScene, ::testing::ValuesIn(kScenes),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// dam_break.json is the reference scene that pbf-sim also runs without a file.
TEST(ShippedScenes, DamBreakFileIsTheBuiltInReferenceScene) {
  const pbf_sim::Scene file = pbf_sim::load_scene(scene_path("dam_break"));
  const pbf_sim::Scene builtin = pbf_sim::builtin_dam_break();
  EXPECT_EQ(file.domain.min, builtin.domain.min);
  EXPECT_EQ(file.domain.max, builtin.domain.max);
  EXPECT_EQ(file.spacing, builtin.spacing);
  ASSERT_EQ(file.fluid.size(), 1u);
  EXPECT_EQ(file.fluid[0].box.min, builtin.fluid[0].box.min);
  EXPECT_EQ(file.fluid[0].box.max, builtin.fluid[0].box.max);
  EXPECT_EQ(file.time.fps, builtin.time.fps);
  EXPECT_EQ(file.time.frames, builtin.time.frames);
  EXPECT_EQ(file.time.substeps, builtin.time.substeps);
  EXPECT_EQ(file.params.iterations, builtin.params.iterations);
  EXPECT_EQ(file.params.gravity[1], builtin.params.gravity[1]);
}

// pbf-sim --spacing S without a scene runs dam_break.json at S: the same box and block, more or
// fewer particles. (The block once kept 39 particles per side at any spacing and overfilled the
// 4 x 3 x 1.5 m box above 0.038 m: at 0.2 m the box was packed full and the water jetted.)
TEST(ShippedScenes, TheBuiltInDamBreakKeepsItsGeometryAtAnySpacing) {
  for (float spacing : {0.2f, 0.05f, 0.025f, 0.0125f}) {
    pbf_sim::Scene file = pbf_sim::load_scene(scene_path("dam_break"));
    pbf_sim::set_spacing(file, spacing);
    const pbf_sim::Scene builtin = pbf_sim::builtin_dam_break(spacing);
    EXPECT_EQ(builtin.spacing, spacing);
    EXPECT_EQ(file.domain.max, builtin.domain.max) << spacing;
    ASSERT_EQ(builtin.fluid.size(), 1u);
    EXPECT_EQ(file.fluid[0].box.min, builtin.fluid[0].box.min) << spacing;
    EXPECT_EQ(file.fluid[0].box.max, builtin.fluid[0].box.max) << spacing;
    for (int a = 0; a < 3; ++a) EXPECT_LT(builtin.fluid[0].box.max[a], builtin.domain.max[a]) << spacing;
  }
}

// The complete example of docs/SCENES.md (its first json block) is a valid scene using every key.
TEST(ShippedScenes, TheExampleInScenesMdParsesAndBuilds) {
  const std::string doc = sim_test::read_text(PBF_SIM_SCENES_DOC);
  const size_t begin = doc.find("```json\n");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```", begin + 8);
  pbf_sim::Scene s = pbf_sim::parse_scene(doc.substr(begin + 8, end - begin - 8), "SCENES.md");
  EXPECT_EQ(s.fluid.size(), 2u);
  EXPECT_EQ(s.planes.size(), 1u);
  EXPECT_EQ(s.emitters.size(), 1u);
  EXPECT_EQ(s.sinks.size(), 1u);
  EXPECT_TRUE(s.output.vtp);
  EXPECT_EQ(s.output.every, 2);
  pbf_sim::set_spacing(s, 0.05f);
  s.backend = PBF_BACKEND_CPU;
  pbf_sim::SceneRunner runner(s);
  EXPECT_GT(runner.particle_count(), 0u);
}

TEST(ShippedScenes, SetSpacingScalesAnExplicitKernelRadius) {
  pbf_sim::Scene s = pbf_sim::builtin_dam_break();
  s.kernel_radius = 0.06f;
  pbf_sim::set_spacing(s, 0.05f);
  EXPECT_FLOAT_EQ(s.spacing, 0.05f);
  EXPECT_FLOAT_EQ(s.kernel_radius, 0.12f);
  s.kernel_radius = 0.0f;
  pbf_sim::set_spacing(s, 0.1f);
  EXPECT_EQ(s.kernel_radius, 0.0f) << "automatic stays automatic";
}

}  // namespace
