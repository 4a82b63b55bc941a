// Scene obstacles and fluid bodies of a shape: paths interpolate as
// documented, mesh files are found from the scene's folder, a missing mesh
// is named by its key, a sphere of water keeps clear of the walls, obstacles
// keep the water out and are drawn.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "render.h"
#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"

namespace {

using pbf_sim::parse_scene;

const std::string kMeshDir = std::string(PBF_SIM_SCENES_DIR) + "/meshes";

std::string scene_with(const std::string& extra) {
  return R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.05, "backend": "cpu")" +
         (extra.empty() ? std::string() : ", " + extra) + "}";
}

TEST(ObstaclePath, HoldsBeforeAndAfterAndInterpolatesBetweenKeys) {
  const pbf_sim::Scene s = parse_scene(scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}, "path": [
      {"time": 1, "position": [0, 0, 0]},
      {"time": 3, "position": [2, 4, 0], "rotation": {"axis": [0, 0, 1], "degrees": 90}}]}])"),
                                       "scene.json");
  ASSERT_EQ(s.obstacles.size(), 1u);
  const pbf_sim::ObstacleSpec& o = s.obstacles[0];
  const pbf_sim::Pose before = pbf_sim::obstacle_pose(o, 0.0);
  EXPECT_EQ(before.position, (pbf_sim::Vec3{0.0f, 0.0f, 0.0f}));
  EXPECT_FLOAT_EQ(before.rotation[3], 1.0f);
  const pbf_sim::Pose mid = pbf_sim::obstacle_pose(o, 2.0);
  EXPECT_NEAR(mid.position[0], 1.0f, 1e-6f);
  EXPECT_NEAR(mid.position[1], 2.0f, 1e-6f);
  // Halfway through a 90 degree turn about z: 45 degrees.
  EXPECT_NEAR(mid.rotation[2], std::sin(0.5 * 45.0 * M_PI / 180.0), 1e-6);
  EXPECT_NEAR(mid.rotation[3], std::cos(0.5 * 45.0 * M_PI / 180.0), 1e-6);
  const pbf_sim::Pose after = pbf_sim::obstacle_pose(o, 10.0);
  EXPECT_EQ(after.position, (pbf_sim::Vec3{2.0f, 4.0f, 0.0f}));
  EXPECT_NEAR(after.rotation[2], std::sin(0.5 * 90.0 * M_PI / 180.0), 1e-6);
}

TEST(ObstaclePath, AStaticObstacleKeepsItsPose) {
  const pbf_sim::Scene s = parse_scene(
      scene_with(R"("obstacles": [{"box": {"half_extents": [0.1, 0.2, 0.3]}, "position": [0.5, 0.25, 0.5],
                                   "rotation": {"axis": [0, 2, 0], "degrees": 180}}])"),
      "scene.json");
  const pbf_sim::Pose p = pbf_sim::obstacle_pose(s.obstacles[0], 5.0);
  EXPECT_EQ(p.position, (pbf_sim::Vec3{0.5f, 0.25f, 0.5f}));
  EXPECT_NEAR(p.rotation[1], 1.0f, 1e-6f) << "the axis is normalised";
  EXPECT_NEAR(p.rotation[3], 0.0f, 1e-6f);
}

TEST(SceneMeshes, FilesAreFoundFromTheSceneFilesFolder) {
  const std::string dir = sim_test::fresh_dir();
  const std::string path = dir + "/scene.json";
  sim_test::write_text(path, scene_with(R"("obstacles": [{"mesh": {"file": "meshes/rock.obj", "scale": 2}}],
                                           "fluid": [{"mesh": {"file": "/abs/torus.obj", "scale": [1, 2, 3]}}])"));
  const pbf_sim::Scene s = pbf_sim::load_scene(path);
  EXPECT_EQ(s.obstacles[0].mesh.file, "meshes/rock.obj");
  EXPECT_EQ(std::filesystem::path(s.obstacles[0].mesh.path), std::filesystem::path(dir) / "meshes/rock.obj");
  EXPECT_EQ(s.obstacles[0].mesh.scale, (pbf_sim::Vec3{2.0f, 2.0f, 2.0f}));
  EXPECT_EQ(s.fluid[0].mesh.path, "/abs/torus.obj") << "absolute paths stay as they are";
  EXPECT_EQ(s.fluid[0].mesh.scale, (pbf_sim::Vec3{1.0f, 2.0f, 3.0f}));
}

TEST(SceneMeshes, AMissingMeshIsNamedByItsKey) {
  const pbf_sim::Scene s =
      parse_scene(scene_with(R"("obstacles": [{"sphere": {"radius": 0.1}}, {"mesh": {"file": "no_such.obj"}}])"),
                  "scene.json");
  try {
    pbf_sim::SceneRunner runner(s);
    FAIL() << "ran with a missing mesh";
  } catch (const pbf_sim::RunError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("scene.json: obstacles[1].mesh.file: ", 0), 0u) << message;
    EXPECT_NE(message.find("no_such.obj"), std::string::npos) << message;
  }
}

TEST(SceneMeshes, AMeshBlockHasTheMeshsVolume) {
  // The shipped torus: 2 pi^2 R r^2 with R = 0.25 m, r = 0.1 m, filled at 1 cm.
  const std::string text = R"({"domain": {"min": [-1, -1, -1], "max": [1, 1, 1]}, "spacing": 0.01, "backend": "cpu",
    "fluid": [{"mesh": {"file": "torus.obj"}, "rotation": {"axis": [1, 0, 0], "degrees": 90}}]})";
  pbf_sim::SceneRunner runner(parse_scene(text, "scene.json", kMeshDir));
  const double volume = runner.particle_count() * 1e-6;
  const double exact = 2.0 * M_PI * M_PI * 0.25 * 0.1 * 0.1;
  EXPECT_NEAR(volume, exact, 0.03 * exact);
}

// A sphere of water cut by the domain's walls keeps its lattice points at least half a spacing inside
// them, as the library's fills do: its centre lies 0.01 m from one wall's nearest layer and 0.03 m
// from another's, so without the margin particles would start 0.01 m (a quarter spacing) from a wall.
TEST(SceneFluidBlocks, ASphereCutByTheWallsStartsHalfASpacingInside) {
  const std::string text = R"({"domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.4]}, "spacing": 0.04, "backend": "cpu",
    "fluid": [{"sphere": {"center": [0.03, 0.2, 0.37], "radius": 0.15}}]})";
  pbf_sim::SceneRunner runner(parse_scene(text, "scene.json"));
  const size_t n = runner.particle_count();
  ASSERT_GT(n, 40u);  // about a quarter of the sphere's 221 (the walls cut it near its centre)
  std::vector<float> x(3 * n);
  ASSERT_EQ(pbf_solver_get_positions(runner.solver(), x.data(), x.size()), PBF_OK) << pbf_last_error();
  for (size_t p = 0; p < n; ++p)
    for (int a = 0; a < 3; ++a) {
      EXPECT_GE(x[3 * p + a], 0.02f - 1e-5f) << "particle " << p << ", axis " << a;
      EXPECT_LE(x[3 * p + a], 0.38f + 1e-5f) << "particle " << p << ", axis " << a;
    }
}

// Fluid blocks of every shape leave the obstacles they overlap empty, turned
// as they are: no particle starts inside a solid or within half a spacing of
// its surface, where it would be thrown out of it in the first step.
TEST(SceneFluidBlocks, BlocksLeaveTheObstaclesTheyOverlapEmpty) {
  const std::string text = R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.04, "backend": "cpu",
    "fluid": [{"box": {"min": [0, 0, 0], "max": [0.5, 0.5, 1]}},
              {"sphere": {"center": [0.7, 0.7, 0.5], "radius": 0.25}}],
    "obstacles": [{"box": {"half_extents": [0.15, 0.1, 0.2]}, "position": [0.55, 0.45, 0.5],
                   "rotation": {"axis": [0, 0, 1], "degrees": 30}}]})";
  pbf_sim::SceneRunner runner(parse_scene(text, "scene.json"));
  const size_t n = runner.particle_count();
  ASSERT_GT(n, 1000u);
  std::vector<float> x(3 * n);
  ASSERT_EQ(pbf_solver_get_positions(runner.solver(), x.data(), x.size()), PBF_OK) << pbf_last_error();
  const double c = std::cos(30.0 * M_PI / 180.0), sn = std::sin(30.0 * M_PI / 180.0), r = 0.5 * 0.04 - 1e-4;
  size_t near_box = 0;
  for (size_t i = 0; i < n; ++i) {
    const double p[3] = {x[3 * i] - 0.55, x[3 * i + 1] - 0.45, x[3 * i + 2] - 0.5};
    const double q[3] = {c * p[0] + sn * p[1], -sn * p[0] + c * p[1], p[2]};  // in the box's frame
    const bool inside = std::fabs(q[0]) < 0.15 + r && std::fabs(q[1]) < 0.1 + r && std::fabs(q[2]) < 0.2 + r;
    EXPECT_FALSE(inside) << "particle " << i << " starts in the box (or within half a spacing of it)";
    if (std::fabs(q[0]) < 0.15 + 3 * r && std::fabs(q[1]) < 0.1 + 3 * r && std::fabs(q[2]) < 0.2 + 3 * r) ++near_box;
  }
  EXPECT_GT(near_box, 50u) << "both blocks reach up to the box";
}

// An obstacle's "friction" and "restitution" become its surface's material; one not given is the
// parameters', and an obstacle with neither follows the parameters.
TEST(SceneObstacles, FrictionAndRestitutionGiveAnObstacleItsOwnSurface) {
  const std::string text = R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.04, "backend": "cpu",
    "parameters": {"friction": 0.2, "restitution": 0.1},
    "obstacles": [{"sphere": {"radius": 0.1}, "position": [0.3, 0.5, 0.5], "friction": 0.9, "restitution": 0.6},
                  {"sphere": {"radius": 0.1}, "position": [0.7, 0.5, 0.5], "density": 500, "restitution": 0.7},
                  {"sphere": {"radius": 0.1}, "position": [0.5, 0.8, 0.5]}]})";
  pbf_sim::SceneRunner runner(parse_scene(text, "scene.json"));
  const float expected[3][2] = {{0.9f, 0.6f}, {0.2f, 0.7f}, {0.2f, 0.1f}};
  for (uint32_t i = 0; i < 3; ++i) {
    float friction = -1.0f, restitution = -1.0f;
    ASSERT_EQ(pbf_solver_get_obstacle_material(runner.solver(), i, &friction, &restitution), PBF_OK);
    EXPECT_EQ(friction, expected[i][0]) << "obstacle " << i;
    EXPECT_EQ(restitution, expected[i][1]) << "obstacle " << i;
  }
}

// Water dropped on a sphere and a tilted box flows around them and never ends up inside.
TEST(SceneObstacles, WaterFallingOnSolidsStaysOutOfThem) {
  const std::string text = R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 0.5]}, "spacing": 0.025, "backend": "cpu",
    "time": {"fps": 60, "frames": 45, "substeps": 3},
    "fluid": [{"box": {"min": [0.2, 0.6, 0.1], "max": [0.8, 0.8, 0.4]}}],
    "obstacles": [{"sphere": {"radius": 0.15}, "position": [0.35, 0.25, 0.25]},
                  {"box": {"half_extents": [0.12, 0.05, 0.2]}, "position": [0.7, 0.3, 0.25],
                   "rotation": {"axis": [0, 0, 1], "degrees": 30}}],
    "output": {"ply": false}})";
  const pbf_sim::Scene s = parse_scene(text, "scene.json");
  pbf_sim::SceneRunner runner(s);
  const float radius = 0.5f * s.spacing;
  const double c = std::cos(30.0 * M_PI / 180.0), sn = std::sin(30.0 * M_PI / 180.0);
  for (int f = 0; f < s.time.frames; ++f) runner.advance();
  const size_t n = runner.particle_count();
  std::vector<float> x(3 * n);
  ASSERT_EQ(pbf_solver_get_positions(runner.solver(), x.data(), x.size()), PBF_OK);
  size_t on_sphere = 0;
  for (size_t i = 0; i < n; ++i) {
    const double p[3] = {x[3 * i], x[3 * i + 1], x[3 * i + 2]};
    const double d = std::sqrt((p[0] - 0.35) * (p[0] - 0.35) + (p[1] - 0.25) * (p[1] - 0.25) + (p[2] - 0.25) * (p[2] - 0.25));
    EXPECT_GT(d, 0.15 + 0.5 * radius) << "particle " << i << " inside the sphere";
    if (d < 0.15 + 3.0 * radius) ++on_sphere;
    // In the box's frame (turned 30 degrees about z).
    const double q[3] = {c * (p[0] - 0.7) + sn * (p[1] - 0.3), -sn * (p[0] - 0.7) + c * (p[1] - 0.3), p[2] - 0.25};
    const bool in_box = std::fabs(q[0]) < 0.12 && std::fabs(q[1]) < 0.05 && std::fabs(q[2]) < 0.2;
    EXPECT_FALSE(in_box) << "particle " << i << " inside the box";
  }
  EXPECT_GT(on_sphere, 0u) << "the water reached the sphere";
}

// Pixels of the solids' warm grey (red above blue, lit): none without a solid, many with one.
size_t warm_grey_pixels(const std::string& obstacles) {
  const std::string text = R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.05, "backend": "cpu",
    "obstacles": [)" + obstacles + R"(], "output": {"ply": false, "png": true, "image": [160, 90]}})";
  pbf_sim::Scene s = parse_scene(text, "scene.json");
  s.output.dir = sim_test::fresh_dir(obstacles.empty() ? "_none" : "_ball");
  pbf_sim::SceneRunner runner(s);
  runner.write_output();
  const pbf_sim::Image image = pbf_sim::read_png(runner.frame_path("png"));
  size_t grey = 0;
  for (size_t p = 0; p + 2 < image.rgb.size(); p += 3) {
    const int r = image.rgb[p], g = image.rgb[p + 1], b = image.rgb[p + 2];
    if (r > b + 6 && g > b && r > 40) ++grey;
  }
  return grey;
}

TEST(SceneObstacles, PicturesShowTheSolids) {
  EXPECT_EQ(warm_grey_pixels(""), 0u) << "the floor, the background and the edges are neutral";
  // A ball of radius 0.3 m seen from the default camera, about 2.5 m away with a 40 degree
  // field of view, is about 30 pixels across: some 5 % of the picture.
  EXPECT_GT(warm_grey_pixels(R"({"sphere": {"radius": 0.3}, "position": [0.5, 0.4, 0.5]})"), 160u * 90u / 50u);
}

}  // namespace
