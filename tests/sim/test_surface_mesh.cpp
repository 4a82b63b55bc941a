// test_surface_mesh.cpp - pbf-sim's liquid surface output: the library's meshes
// (tests/surface checks the meshes themselves) written as PLY files with
// normals and, with VTP output, as surface_NNNN.vtp listed in frames.pvd.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <utility>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"
#include "surface_mesh.h"
#include "vdb_writer.h"

namespace {

using pbf_sim::SurfaceMesh;

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

// An independent reader of the surface PLY: header fields, vertices with normals and triangle faces.
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
                                                      "property float z\nproperty float nx\nproperty float ny\n"
                                                      "property float nz\n")));
  EXPECT_TRUE(
      std::regex_search(header, f, std::regex("element face ([0-9]+)\nproperty list uchar uint vertex_indices\n")));
  if (v.empty() || f.empty()) return m;
  const size_t nv = std::stoul(v[1]), nf = std::stoul(f[1]);
  const size_t base = end + 11;
  EXPECT_EQ(bytes.size() - base, 24 * nv + 13 * nf) << "payload of " << path;
  if (bytes.size() - base != 24 * nv + 13 * nf) return m;
  for (size_t i = 0; i < nv; ++i)
    for (int a = 0; a < 6; ++a)
      (a < 3 ? m.vertices : m.normals).push_back(sim_test::load_f32(&bytes[base + 24 * i + 4 * a]));
  for (size_t t = 0; t < nf; ++t) {
    const unsigned char* rec = &bytes[base + 24 * nv + 13 * t];
    EXPECT_EQ(rec[0], 3) << "face " << t << " is a triangle";
    for (int c = 0; c < 3; ++c) m.triangles.push_back(static_cast<uint32_t>(sim_test::load_le(rec + 1 + 4 * c, 4)));
  }
  return m;
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

  pbf_surface* surface = nullptr;
  ASSERT_EQ(pbf_surface_create(&surface), PBF_OK);
  pbf_surface_params params = pbf_surface_params_default();
  params.cell_size = runner.scene().output.surface_resolution;
  ASSERT_EQ(pbf_solver_build_surface(runner.solver(), &params, surface), PBF_OK) << pbf_last_error();
  const SurfaceMesh built = pbf_sim::copy_surface(surface);
  pbf_surface_destroy(surface);
  const SurfaceMesh read = read_surface_ply((std::filesystem::path(dir) / "surface_0001.ply").string());
  ASSERT_GT(built.triangle_count(), 0u);
  EXPECT_EQ(read.vertices, built.vertices) << "floats round-trip bit for bit";
  EXPECT_EQ(read.normals, built.normals) << "with the library's normals";
  EXPECT_EQ(read.triangles, built.triangles);
  EXPECT_EQ(closure_problem(read), "") << "closed where the water touches the walls";
  EXPECT_GT(signed_volume(read), 0.0);
}

// output.surface_anisotropy reaches the library: the written mesh is the one
// built with anisotropic kernels, not the round kernels' one.
TEST(SurfaceMesh, TheRunnerWritesAnisotropicMeshesWhenAsked) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene scene = tank_scene(dir);
  scene.output.surface_anisotropy = 1.0f;
  pbf_sim::SceneRunner runner(scene);
  runner.write_output();
  const SurfaceMesh read = read_surface_ply((std::filesystem::path(dir) / "surface_0000.ply").string());
  auto built = [&](float anisotropy) {
    pbf_surface* surface = nullptr;
    EXPECT_EQ(pbf_surface_create(&surface), PBF_OK);
    pbf_surface_params params = pbf_surface_params_default();
    params.cell_size = runner.scene().output.surface_resolution;
    params.anisotropy = anisotropy;
    EXPECT_EQ(pbf_solver_build_surface(runner.solver(), &params, surface), PBF_OK) << pbf_last_error();
    const SurfaceMesh mesh = pbf_sim::copy_surface(surface);
    pbf_surface_destroy(surface);
    return mesh;
  };
  const SurfaceMesh anisotropic = built(1.0f), round = built(0.0f);
  ASSERT_GT(read.triangle_count(), 0u);
  EXPECT_EQ(read.vertices, anisotropic.vertices);
  EXPECT_NE(read.vertices, round.vertices);
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

TEST(SurfaceMesh, WithVtpOutputTheSurfaceIsAVtpWithNormalsListedAsPartOneOfTheCollection) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene s = tank_scene(dir);
  s.output.vtp = true;
  pbf_sim::SceneRunner runner(s);
  runner.write_output();
  runner.advance();
  runner.write_output();
  EXPECT_TRUE(sim_test::partial_files(dir).empty());

  const SurfaceMesh ply = read_surface_ply((std::filesystem::path(dir) / "surface_0001.ply").string());
  const sim_test::VtpData vtp = sim_test::read_vtp((std::filesystem::path(dir) / "surface_0001.vtp").string());
  ASSERT_GT(ply.triangle_count(), 0u);
  EXPECT_EQ(vtp.points, ply.vertex_count());
  EXPECT_EQ(vtp.verts, 0u);
  EXPECT_NE(vtp.header.find("NumberOfPolys=\"" + std::to_string(ply.triangle_count()) + "\""), std::string::npos);
  EXPECT_NE(vtp.header.find("<PointData Normals=\"Normals\">"), std::string::npos) << "the active normals";
  ASSERT_EQ(vtp.arrays.count("Normals"), 1u);
  EXPECT_EQ(vtp.arrays.at("Normals").components, 3);
  EXPECT_EQ(vtp.arrays.at("Points").floats, ply.vertices) << "the same mesh as the PLY, bit for bit";
  EXPECT_EQ(vtp.arrays.at("Normals").floats, ply.normals);
  const std::vector<int32_t>& connectivity = vtp.arrays.at("connectivity").ints;
  ASSERT_EQ(connectivity.size(), ply.triangles.size());
  for (size_t i = 0; i < connectivity.size(); ++i) ASSERT_EQ(static_cast<uint32_t>(connectivity[i]), ply.triangles[i]);
  const std::vector<int32_t>& offsets = vtp.arrays.at("offsets").ints;
  ASSERT_EQ(offsets.size(), ply.triangle_count());
  EXPECT_EQ(offsets.back(), static_cast<int32_t>(3 * ply.triangle_count())) << "three indices a triangle";

  // frames.pvd: each time's particles as part 0 and its surface as part 1.
  const std::string pvd = sim_test::read_text(runner.pvd_path());
  for (const char* entry : {"part=\"0\" file=\"frame_0000.vtp\"", "part=\"1\" file=\"surface_0000.vtp\"",
                            "part=\"0\" file=\"frame_0001.vtp\"", "part=\"1\" file=\"surface_0001.vtp\""})
    EXPECT_NE(pvd.find(entry), std::string::npos) << entry << " in\n" << pvd;
  EXPECT_EQ(sim_test::read_pvd(runner.pvd_path()).size(), 4u);

  // frames.json lists them, so that a later run into the folder removes them.
  const std::string manifest = sim_test::read_text(runner.manifest_path());
  EXPECT_NE(manifest.find("\"surface_vtp\": \"surface_0001.vtp\""), std::string::npos) << manifest;
  pbf_sim::Scene again = tank_scene(dir);
  again.output.surface = false;
  again.output.ply = true;
  pbf_sim::SceneRunner rerun(again);
  rerun.write_output();
  for (const char* gone : {"surface_0000.vtp", "surface_0001.vtp", "surface_0001.ply", "frames.pvd"})
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir) / gone)) << gone << " is stale";
}

TEST(SurfaceMesh, ResumedRunsKeepTheEarlierSurfacesInTheCollection) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene s = tank_scene(dir);
  s.output.vtp = true;
  const std::string checkpoint = dir + "/at1.ckpt";
  {
    pbf_sim::SceneRunner runner(s);
    runner.write_output();
    runner.advance();
    runner.write_output();
    runner.save_checkpoint(checkpoint);
  }
  pbf_sim::SceneRunner resumed(s);
  resumed.resume(checkpoint, 1);
  resumed.advance();
  resumed.write_output();
  const std::string pvd = sim_test::read_text(resumed.pvd_path());
  for (const char* file : {"surface_0000.vtp", "surface_0001.vtp", "surface_0002.vtp"})
    EXPECT_NE(pvd.find(std::string("part=\"1\" file=\"") + file + "\""), std::string::npos) << file << " in\n" << pvd;
  EXPECT_EQ(sim_test::read_pvd(resumed.pvd_path()).size(), 6u);
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
  EXPECT_NE(error(R"({"surface_resolution": 5})").find("s.json: output.surface_resolution: expected a cell size"),
            std::string::npos);
  EXPECT_FLOAT_EQ(pbf_sim::parse_scene(base + R"({"surface_resolution": 3}})", "s.json").output.surface_resolution, 3.0f);
  EXPECT_FLOAT_EQ(defaults.output.surface_anisotropy, 0.0f);
  EXPECT_FLOAT_EQ(pbf_sim::parse_scene(base + R"({"surface_anisotropy": 1}})", "s.json").output.surface_anisotropy, 1.0f);
  EXPECT_NE(error(R"({"surface_anisotropy": 1.5})").find("s.json: output.surface_anisotropy: expected a number from 0 to 1"),
            std::string::npos);
  EXPECT_NE(error(R"({"surface_anisotropy": -0.5})").find("s.json: output.surface_anisotropy:"), std::string::npos);
  EXPECT_FALSE(defaults.output.vdb);
  EXPECT_TRUE(pbf_sim::parse_scene(base + R"({"vdb": true}})", "s.json").output.vdb);
  EXPECT_NE(error(R"({"vdb": 1})").find("s.json: output.vdb: expected"), std::string::npos);
}

// output.vdb writes surface_NNNN.vdb for every written frame, alone or beside
// the meshes, lists it in frames.json, and removes an earlier run's; a pbf-sim
// without OpenVDB refuses the scene by name. tests/sim/real_readers.py --vdb
// reads the files with OpenVDB's own reader.
TEST(SurfaceMesh, OutputVdbWritesOneFilePerFrameOrIsRefusedByName) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene scene = tank_scene(dir);
  scene.output.surface = false;
  scene.output.vdb = true;
  if (!pbf_sim::vdb_available()) {
    try {
      pbf_sim::SceneRunner runner(scene);
      FAIL() << "a pbf-sim without OpenVDB accepted output.vdb";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("surface test: output.vdb (--vdb): this pbf-sim was built without OpenVDB"),
                std::string::npos)
          << e.what();
    }
    GTEST_SKIP() << "this pbf-sim was built without OpenVDB: only the refusal is tested";
  }
  {
    pbf_sim::SceneRunner runner(scene);
    runner.write_output();
    runner.advance();
    runner.write_output();
    EXPECT_EQ(runner.totals().vdb_files, 2u);
    EXPECT_EQ(runner.totals().surface_files, 0u) << "no mesh files without output.surface";
  }
  for (const char* name : {"surface_0000.vdb", "surface_0001.vdb"}) {
    const std::string bytes = sim_test::read_text((std::filesystem::path(dir) / name).string());
    ASSERT_GT(bytes.size(), 8u) << name;
    EXPECT_EQ(bytes.compare(0, 8, std::string(" BDV\0\0\0\0", 8)), 0) << name << ": OpenVDB's magic number";
  }
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir) / "surface_0000.ply"));
  const std::string manifest = sim_test::read_text((std::filesystem::path(dir) / "frames.json").string());
  EXPECT_NE(manifest.find("surface_0001.vdb"), std::string::npos) << manifest;
  EXPECT_TRUE(sim_test::partial_files(dir).empty());
  // A shorter rerun without VDB output removes the VDB frames the first run listed.
  scene.output.vdb = false;
  scene.output.ply = true;
  pbf_sim::SceneRunner rerun(scene);
  rerun.write_output();
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir) / "surface_0001.vdb"));
  EXPECT_EQ(rerun.totals().stale_files, 2u);
}

}  // namespace
