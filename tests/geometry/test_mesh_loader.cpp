// Meshes from files: real models load with plausible bounds and the
// transform applied; missing, unknown and broken files give an Error naming
// the file and the reason, never a crash. The models come from Debian's
// assimp-testmodels; without it those tests are skipped.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "geometry/mesh_loader.h"

namespace {

const std::string kModels = PBF_TEST_MODELS_DIR;

std::string model(const std::string& relative) { return kModels + "/" + relative; }

#define REQUIRE_MODELS() \
  if (kModels.empty()) GTEST_SKIP() << "assimp-testmodels is not installed"

// Loads `path` expecting an Error whose message holds `reason`.
void expect_load_error(const std::string& path, const std::string& reason) {
  try {
    pbf::load_mesh(path);
    ADD_FAILURE() << path << " loaded";
  } catch (const pbf::Error& e) {
    EXPECT_EQ(e.status(), pbf::Status::Io);
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
  }
}

TEST(MeshLoader, AMissingFileIsNamed) {
  expect_load_error(::testing::TempDir() + "/no_such_mesh.ply", "no such file");
}

TEST(MeshLoader, ADirectoryIsRefused) { expect_load_error(::testing::TempDir(), "not a regular file"); }

TEST(MeshLoader, AFileOfNoKnownFormatGivesAssimpsReason) {
  const std::string path = ::testing::TempDir() + "/garbage.xyzmesh";
  std::ofstream(path) << "this is not a mesh\n";
  expect_load_error(path, "cannot load a mesh");
  std::remove(path.c_str());
}

TEST(MeshLoader, AnEmptyObjHoldsNoTriangles) {
  const std::string path = ::testing::TempDir() + "/points_only.obj";
  std::ofstream(path) << "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2\n";
  try {
    pbf::load_mesh(path);
    ADD_FAILURE() << "loaded";
  } catch (const pbf::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(MeshLoader, AnObjWrittenHereLoadsWithTheTransformApplied) {
  const std::string path = ::testing::TempDir() + "/tetrahedron.obj";
  std::ofstream(path) << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  const pbf::TriangleMesh plain = pbf::load_mesh(path);
  ASSERT_EQ(plain.triangles.size(), 4u);
  EXPECT_EQ(pbf::boundary_edge_count(plain), 0u);
  EXPECT_NEAR(pbf::mesh_volume(plain), 1.0 / 6.0, 1e-6);

  // Scale (2, 3, 4), a quarter turn about z (x -> y), then a translation.
  pbf::MeshTransform t;
  t.scale[0] = 2.0f;
  t.scale[1] = 3.0f;
  t.scale[2] = 4.0f;
  const float s = std::sqrt(0.5f);
  t.rotation[2] = s;
  t.rotation[3] = s;
  t.translation = pbf::Vec3{10.0f, 20.0f, 30.0f};
  const pbf::TriangleMesh placed = pbf::load_mesh(path, t);
  const pbf::Bounds b = pbf::mesh_bounds(placed);
  EXPECT_NEAR(b.lo.x, 10.0f - 3.0f, 1e-5f);  // y scaled by 3 turned onto -x
  EXPECT_NEAR(b.hi.x, 10.0f, 1e-5f);
  EXPECT_NEAR(b.lo.y, 20.0f, 1e-5f);
  EXPECT_NEAR(b.hi.y, 20.0f + 2.0f, 1e-5f);  // x scaled by 2 turned onto y
  EXPECT_NEAR(b.lo.z, 30.0f, 1e-5f);
  EXPECT_NEAR(b.hi.z, 34.0f, 1e-5f);
  EXPECT_NEAR(pbf::mesh_volume(placed), 24.0 / 6.0, 1e-4);

  // A mirror keeps the triangles facing outwards: the volume stays positive.
  pbf::MeshTransform mirror;
  mirror.scale[0] = -1.0f;
  EXPECT_NEAR(pbf::mesh_volume(pbf::load_mesh(path, mirror)), 1.0 / 6.0, 1e-6);
  std::remove(path.c_str());
}

TEST(MeshLoader, WusonPlyLoadsWithPlausibleBoundsAndVolume) {
  REQUIRE_MODELS();
  const pbf::TriangleMesh m = pbf::load_mesh(model("PLY/Wuson.ply"));
  EXPECT_GT(m.triangles.size(), 1000u);
  const pbf::Bounds b = pbf::mesh_bounds(m);
  for (float extent : {b.hi.x - b.lo.x, b.hi.y - b.lo.y, b.hi.z - b.lo.z}) {
    EXPECT_GT(extent, 0.1f);
    EXPECT_LT(extent, 100.0f);
  }
  EXPECT_GT(pbf::mesh_volume(m), 0.5);  // about 1.14 m^3, its faces outwards
}

TEST(MeshLoader, SpiderStlLoadsWithPlausibleBounds) {
  REQUIRE_MODELS();
  const pbf::TriangleMesh m = pbf::load_mesh(model("STL/Spider_binary.stl"));
  EXPECT_GT(m.triangles.size(), 100u);
  const pbf::Bounds b = pbf::mesh_bounds(m);
  EXPECT_LT(b.lo.x, b.hi.x);
  EXPECT_LT(b.lo.y, b.hi.y);
  EXPECT_LT(b.lo.z, b.hi.z);
  EXPECT_LT(b.hi.x - b.lo.x, 1e4f);
}

TEST(MeshLoader, EveryInvalidModelGivesAnErrorOrLoadsCleanly) {
  REQUIRE_MODELS();
  const std::string dir = model("invalid");
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  std::vector<std::string> names;
  while (const dirent* e = readdir(d))
    if (e->d_name[0] != '.') names.push_back(e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  ASSERT_GE(names.size(), 10u);
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    try {
      const pbf::TriangleMesh m = pbf::load_mesh(path);
      EXPECT_FALSE(m.triangles.empty()) << path;  // a clean load has triangles
      for (const auto& t : m.triangles)
        for (uint32_t v : t) ASSERT_LT(v, m.vertices.size()) << path;
    } catch (const pbf::Error& e) {
      EXPECT_EQ(e.status(), pbf::Status::Io) << path;
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

}  // namespace
