// test_surface_mesh.cpp - the liquid surface meshes: closed, oriented outward,
// enclosing the water's volume, and written to PLY files that read back as built.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <utility>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"
#include "surface_mesh.h"

namespace {

using pbf_sim::SurfaceMesh;

// Particles on the rest lattice (centres at corner + (i + 1/2) s) of an nx x ny x nz block.
std::vector<float> lattice_box(int nx, int ny, int nz, float s, const float corner[3]) {
  std::vector<float> p;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        p.push_back(corner[0] + (i + 0.5f) * s);
        p.push_back(corner[1] + (j + 0.5f) * s);
        p.push_back(corner[2] + (k + 0.5f) * s);
      }
  return p;
}

// Lattice points (centre + (i + 1/2) s) within r of the centre, as pbf-sim places a sphere.
std::vector<float> lattice_sphere(float r, float s, const float centre[3]) {
  std::vector<float> p;
  const int m = static_cast<int>(std::ceil(r / s)) + 1;
  for (int k = -m; k < m; ++k)
    for (int j = -m; j < m; ++j)
      for (int i = -m; i < m; ++i) {
        const double o[3] = {(i + 0.5) * s, (j + 0.5) * s, (k + 0.5) * s};
        if (o[0] * o[0] + o[1] * o[1] + o[2] * o[2] > static_cast<double>(r) * r) continue;
        for (int a = 0; a < 3; ++a) p.push_back(static_cast<float>(centre[a] + o[a]));
      }
  return p;
}

// Every directed edge appears once and its reverse once: each edge is shared by exactly two
// triangles that traverse it in opposite directions. Returns the first problem, or "".
std::string closure_problem(const SurfaceMesh& m) {
  std::map<std::pair<uint32_t, uint32_t>, int> directed;
  for (size_t t = 0; t < m.triangle_count(); ++t) {
    const uint32_t* v = &m.triangles[3 * t];
    for (int c = 0; c < 3; ++c) {
      if (v[c] >= m.vertex_count()) return "index out of range in triangle " + std::to_string(t);
      if (v[c] == v[(c + 1) % 3]) return "degenerate triangle " + std::to_string(t);
      if (++directed[{v[c], v[(c + 1) % 3]}] > 1) return "directed edge used twice in triangle " + std::to_string(t);
    }
  }
  for (const auto& [edge, count] : directed)
    if (!directed.count({edge.second, edge.first}))
      return "edge " + std::to_string(edge.first) + "-" + std::to_string(edge.second) + " has no opposite";
  return "";
}

// The enclosed volume by the divergence theorem: sum of signed tetrahedra (origin, triangle).
// Positive when the triangles are counter-clockwise seen from outside.
double signed_volume(const SurfaceMesh& m) {
  double c[3] = {0, 0, 0};  // measured from the vertices' centroid to keep the sum well conditioned
  for (size_t i = 0; i < m.vertex_count(); ++i)
    for (int a = 0; a < 3; ++a) c[a] += m.vertices[3 * i + a] / static_cast<double>(m.vertex_count());
  double v = 0.0;
  for (size_t t = 0; t < m.triangle_count(); ++t) {
    double p[3][3];
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) p[k][a] = m.vertices[3 * m.triangles[3 * t + k] + a] - c[a];
    v += p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) - p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
         p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0]);
  }
  return v / 6.0;
}

// An independent reader of the surface PLY: header fields, vertices and triangle faces.
SurfaceMesh read_surface_ply(const std::string& path) {
  SurfaceMesh m;
  const std::vector<unsigned char> bytes = sim_test::read_bytes(path);
  const std::string text(bytes.begin(), bytes.end());
  const size_t end = text.find("end_header\n");
  EXPECT_NE(end, std::string::npos) << path;
  if (end == std::string::npos) return m;
  const std::string header = text.substr(0, end);
  EXPECT_EQ(header.rfind("ply\nformat binary_little_endian 1.0\n", 0), 0u);
  std::smatch v, f;
  EXPECT_TRUE(std::regex_search(header, v, std::regex("element vertex ([0-9]+)\nproperty float x\nproperty float y\n"
                                                      "property float z\n")));
  EXPECT_TRUE(
      std::regex_search(header, f, std::regex("element face ([0-9]+)\nproperty list uchar uint vertex_indices\n")));
  if (v.empty() || f.empty()) return m;
  const size_t nv = std::stoul(v[1]), nf = std::stoul(f[1]);
  const size_t base = end + 11;
  EXPECT_EQ(bytes.size() - base, 12 * nv + 13 * nf) << "payload of " << path;
  if (bytes.size() - base != 12 * nv + 13 * nf) return m;
  for (size_t i = 0; i < 3 * nv; ++i) m.vertices.push_back(sim_test::load_f32(&bytes[base + 4 * i]));
  for (size_t t = 0; t < nf; ++t) {
    const unsigned char* rec = &bytes[base + 12 * nv + 13 * t];
    EXPECT_EQ(rec[0], 3) << "face " << t << " is a triangle";
    for (int c = 0; c < 3; ++c) m.triangles.push_back(static_cast<uint32_t>(sim_test::load_le(rec + 1 + 4 * c, 4)));
  }
  return m;
}

TEST(SurfaceMesh, BoxOnTheLatticeIsClosedAndEnclosesTheWatersVolume) {
  const float s = 0.025f, corner[3] = {0.1f, 0.2f, 0.3f};
  const std::vector<float> p = lattice_box(20, 16, 12, s, corner);
  const SurfaceMesh m = pbf_sim::build_surface_mesh(p.data(), p.size() / 3, s);
  ASSERT_GT(m.triangle_count(), 0u);
  EXPECT_EQ(closure_problem(m), "");
  const double water = (p.size() / 3) * static_cast<double>(s) * s * s;
  // 3%: the iso-surface rounds the block's edges and corners by about a kernel radius.
  EXPECT_NEAR(signed_volume(m), water, 0.03 * water) << "positive: the normals point out of the water";
}

TEST(SurfaceMesh, SphereIsClosedWithItsVolumeAndRadius) {
  const float s = 0.02f, r = 0.2f, centre[3] = {1.0f, 1.0f, 1.0f};
  const std::vector<float> p = lattice_sphere(r, s, centre);
  const SurfaceMesh m = pbf_sim::build_surface_mesh(p.data(), p.size() / 3, s);
  ASSERT_GT(m.triangle_count(), 0u);
  EXPECT_EQ(closure_problem(m), "");
  const double sphere = 4.0 / 3.0 * M_PI * r * r * r;
  EXPECT_NEAR(signed_volume(m), sphere, 0.03 * sphere) << "within 3% of 4/3 pi r^3";
  double worst = 0.0;
  for (size_t i = 0; i < m.vertex_count(); ++i) {
    const float* v = &m.vertices[3 * i];
    const double d = std::sqrt((v[0] - centre[0]) * (v[0] - centre[0]) + (v[1] - centre[1]) * (v[1] - centre[1]) +
                               (v[2] - centre[2]) * (v[2] - centre[2]));
    worst = std::max(worst, std::fabs(d - r));
  }
  EXPECT_LT(worst, 0.5 * s) << "every vertex within half a spacing of the radius (the lattice's own roughness)";
}

TEST(SurfaceMesh, ScatteredParticlesGiveClosedSurfacesInEveryCase) {
  // Random clouds at a fine cell size exercise the ambiguous cases of the table:
  // the surface stays closed however the field crosses the cells.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 0.3f);
  std::vector<float> p(3 * 400);
  for (float& x : p) x = u(rng);
  pbf_sim::SurfaceMeshOptions o;
  o.cell_size = 0.3f;
  const SurfaceMesh m = pbf_sim::build_surface_mesh(p.data(), p.size() / 3, 0.025f, o);
  ASSERT_GT(m.triangle_count(), 0u);
  EXPECT_EQ(closure_problem(m), "");
  EXPECT_GT(signed_volume(m), 0.0);
}

TEST(SurfaceMesh, NoParticlesGiveAnEmptyMesh) {
  const SurfaceMesh m = pbf_sim::build_surface_mesh(nullptr, 0, 0.025f);
  EXPECT_EQ(m.vertex_count(), 0u);
  EXPECT_EQ(m.triangle_count(), 0u);
}

TEST(SurfaceMesh, RejectsANonPositiveSpacingOrCellSize) {
  const float p[3] = {0, 0, 0};
  EXPECT_THROW(pbf_sim::build_surface_mesh(p, 1, 0.0f), std::invalid_argument);
  pbf_sim::SurfaceMeshOptions o;
  o.cell_size = 0.0f;
  EXPECT_THROW(pbf_sim::build_surface_mesh(p, 1, 0.025f, o), std::invalid_argument);
}

pbf_sim::Scene tank_scene(const std::string& dir) {
  pbf_sim::Scene s;
  s.source = "surface test";
  s.domain.max = {0.5f, 0.5f, 0.5f};
  s.spacing = 0.05f;
  s.backend = PBF_BACKEND_CPU;
  s.time.frames = 2;
  pbf_sim::FluidBlock b;  // touches three walls of the domain
  b.box.max = {0.3f, 0.2f, 0.5f};
  s.fluid.push_back(b);
  s.output.dir = dir;
  s.output.ply = false;
  s.output.surface = true;
  return s;
}

TEST(SurfaceMesh, RunnerWritesClosedMeshesThatReadBackAsBuilt) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::SceneRunner runner(tank_scene(dir));
  runner.write_output();
  runner.advance();
  runner.write_output();
  EXPECT_EQ(runner.totals().surface_files, 2u);
  EXPECT_TRUE(sim_test::partial_files(dir).empty());
  for (const char* name : {"surface_0000.ply", "surface_0001.ply"})
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / name)) << name;

  std::vector<float> p(3 * runner.particle_count());
  ASSERT_EQ(pbf_solver_get_positions(runner.solver(), p.data(), p.size()), PBF_OK);
  const SurfaceMesh built = pbf_sim::build_surface_mesh(p.data(), p.size() / 3, runner.scene().spacing);
  const SurfaceMesh read = read_surface_ply((std::filesystem::path(dir) / "surface_0001.ply").string());
  EXPECT_EQ(read.vertices, built.vertices) << "floats round-trip bit for bit";
  EXPECT_EQ(read.triangles, built.triangles);
  EXPECT_EQ(closure_problem(read), "") << "closed where the water touches the walls";
  EXPECT_GT(signed_volume(read), 0.0);
}

TEST(SurfaceMesh, EmptySolverWritesAValidEmptyFile) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene s = tank_scene(dir);
  s.fluid.clear();
  pbf_sim::SceneRunner runner(s);
  runner.write_output();
  const std::string path = (std::filesystem::path(dir) / "surface_0000.ply").string();
  ASSERT_TRUE(std::filesystem::exists(path));
  const SurfaceMesh m = read_surface_ply(path);
  EXPECT_EQ(m.vertex_count(), 0u);
  EXPECT_EQ(m.triangle_count(), 0u);
  EXPECT_NE(sim_test::read_text(path).find("element vertex 0\n"), std::string::npos);
  EXPECT_TRUE(sim_test::partial_files(dir).empty());
}

TEST(SurfaceMesh, SceneKeysAreReadAndChecked) {
  const std::string base = R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.05, "output": )";
  const pbf_sim::Scene defaults = pbf_sim::parse_scene(base + "{}}", "s.json");
  EXPECT_FALSE(defaults.output.surface);
  EXPECT_FLOAT_EQ(defaults.output.surface_resolution, 0.5f);
  const pbf_sim::Scene on = pbf_sim::parse_scene(base + R"({"surface": true, "surface_resolution": 0.25}})", "s.json");
  EXPECT_TRUE(on.output.surface);
  EXPECT_FLOAT_EQ(on.output.surface_resolution, 0.25f);
  auto error = [&](const std::string& output) {
    try {
      pbf_sim::parse_scene(base + output + "}", "s.json");
    } catch (const pbf_sim::SceneError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(R"({"surface": "yes"})").find("s.json: output.surface: expected"), std::string::npos);
  EXPECT_NE(error(R"({"surface_resolution": 0})").find("s.json: output.surface_resolution: expected"),
            std::string::npos);
  EXPECT_NE(error(R"({"surface_resolution": 3})").find("s.json: output.surface_resolution: expected a cell size"),
            std::string::npos);
}

}  // namespace
