// Meshes from files: real models load with plausible bounds and the
// transform applied; missing, unknown, broken and hostile files give an
// Error naming the file and the reason, never a crash, a hang or a host
// process out of memory. The models come from Debian's assimp-testmodels
// (those tests are skipped without it) and from tests/geometry/data.
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <new>
#include <string>
#include <vector>

#include "core/error.h"
#include "geometry/mesh_format.h"
#include "geometry/mesh_import_process.h"
#include "geometry/mesh_loader.h"

namespace {

const std::string kModels = PBF_TEST_MODELS_DIR;
const std::string kData = PBF_TEST_DATA_DIR;

std::string read_data(const std::string& name) {
  std::ifstream in(kData + "/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

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

TEST(MeshLoader, AFileOfNoKnownFormatIsRefused) {
  const std::string path = ::testing::TempDir() + "/garbage.xyzmesh";
  std::ofstream(path) << "this is not a mesh\n";
  expect_load_error(path, "cannot load a mesh");
  expect_load_error(path, "not a mesh format pbf reads");
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

TEST(MeshLoader, TheTestModelsOfTheAcceptedFormatsPassTheChecksAndLoad) {
  REQUIRE_MODELS();
  for (const char* name : {"OBJ/WusonOBJ.obj", "OBJ/spider.obj", "OBJ/box_longline.obj", "OBJ/concave_polygon.obj",
                           "STL/Spider_ascii.stl", "STL/3DSMaxExport.STL", "STL/triangle_with_two_solids.stl",
                           "PLY/cube_binary.ply", "PLY/cube_uv.ply", "PLY/float-color.ply", "OFF/Cube.off",
                           "OFF/Wuson.off"}) {
    try {
      EXPECT_FALSE(pbf::load_mesh(model(name)).triangles.empty()) << name;
    } catch (const pbf::Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
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

// ---------------------------------------------------------------- hostile files

// Each case once reached Assimp and crashed, aborted, hung or exhausted the
// process; now each is refused before Assimp sees it.

TEST(MeshLoader, ABinaryPlyWhoseHeaderLostOneNewlineIsRefused) {
  std::string bytes = read_data("cube_binary.ply");
  const size_t at = bytes.find("\nend_header");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = '_';
  expect_load_error(write_temp("header_newline_mangled.ply", bytes), "end_header");
}

TEST(MeshLoader, AnAsciiPlyCutShortIsRefused) {
  const std::string bytes = read_data("cube_ascii.ply");
  const size_t body = bytes.find("end_header\n") + 11;
  expect_load_error(write_temp("cut_after_header.ply", bytes.substr(0, body)), "the file ends before element 'vertex'");
  // Cut at bytes 175 and 200 of 282, this file made Assimp abort in its triangulation.
  expect_load_error(write_temp("cut_in_a_vertex.ply", bytes.substr(0, body + 2)),
                    "element 'vertex' number 1 of 8 has fewer values");
  expect_load_error(write_temp("cut_in_a_vertex.ply", bytes.substr(0, body + 27)),
                    "element 'vertex' number 5 of 8 has fewer values");
  expect_load_error(write_temp("cut_in_a_face.ply", bytes.substr(0, bytes.size() - 3)),
                    "element 'face' number 6 of 6 has fewer values");
}

TEST(MeshLoader, APlyHeaderThatNeverEndsIsRefused) {
  expect_load_error(write_temp("no_end_header.ply", "ply\nformat ascii 1.0\n"), "end_header");
  // A header longer than any real one is refused after its first mebibyte.
  std::string endless = "ply\nformat ascii 1.0\n";
  while (endless.size() <= pbf::kMaxMeshHeaderBytes) endless += "comment more and more\n";
  expect_load_error(write_temp("endless_header.ply", endless), "no end_header line within");
}

// Over 4 KiB of comments, then a count no file of this size can hold.
std::string comments(size_t bytes) {
  std::string out;
  while (out.size() < bytes) out += "# a comment line to push the counts past the first 4096 bytes\n";
  return out;
}

TEST(MeshLoader, AnOffAnnouncingABillionVerticesAfterLongCommentsIsRefused) {
  const std::string path = write_temp("huge_count.off", "OFF\n" + comments(5000) + "1000000000 1 0\n0 0 0\n3 0 0 0\n");
  expect_load_error(path, "more than its remaining");
}

TEST(MeshLoader, APlyAnnouncingABillionVerticesAfterLongCommentsIsRefused) {
  std::string header = "ply\nformat ascii 1.0\n";
  for (int k = 0; k < 100; ++k) header += "comment a comment line to push the counts past the first 4096 bytes\n";
  const std::string elements = "element vertex 1000000000\nproperty float x\nproperty float y\nproperty float z\n"
                               "element face 1\nproperty list uchar int vertex_indices\nend_header\n";
  expect_load_error(write_temp("huge_count_ascii.ply", header + elements + "0 0 0\n1 0 0\n0 1 0\n"),
                    "the file ends before element 'vertex' number 4 of 1000000000");
  header.replace(header.find("ascii"), 5, "binary_little_endian");
  expect_load_error(write_temp("huge_count_binary.ply", header + elements + std::string(40, '\0')),
                    "the file ends inside element 'vertex' number 4 of 1000000000");
}

TEST(MeshLoader, AFileOfAnotherFormatIsRefusedListingTheAcceptedOnes) {
  for (const char* name : {"scene.fbx", "scene.gltf", "model.3ds", "noextension", "cube.ply.bak"}) {
    const std::string path = write_temp(name, read_data("cube.obj"));
    expect_load_error(path, "not a mesh format pbf reads (accepted: .obj, .stl, .ply, .off)");
  }
}

TEST(MeshLoader, AFileWhoseContentIsNotItsExtensionsFormatIsRefused) {
  expect_load_error(write_temp("obj_text.ply", read_data("cube.obj")), "not a PLY file");
  expect_load_error(write_temp("obj_text.off", read_data("cube.obj")), "not an OFF file");
  expect_load_error(write_temp("obj_text.stl", read_data("cube.obj")), "not an STL file");
  expect_load_error(write_temp("binary.obj", read_data("cube_binary.stl")), "NUL byte");
}

TEST(MeshLoader, BinaryFilesMustHaveExactlyTheBytesTheirHeadersAnnounce) {
  const std::string ply = read_data("cube_binary.ply");
  expect_load_error(write_temp("one_byte_more.ply", ply + '\0'), "1 bytes follow the last element");
  const std::string stl = read_data("cube_binary.stl");
  expect_load_error(write_temp("one_byte_more.stl", stl + '\0'), "not an STL file");
  expect_load_error(write_temp("one_byte_less.stl", stl.substr(0, stl.size() - 1)), "not an STL file");
}

TEST(MeshLoader, AnObjNamingAMaterialFileThatNeverEndsLoadsWithoutIt) {
  // A FIFO nobody writes to: reading it would block the importer forever.
  const std::string fifo = ::testing::TempDir() + "/never_written.mtl";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string path = write_temp("names_a_fifo.obj", "mtllib never_written.mtl\n" + read_data("cube.obj"));
  EXPECT_EQ(pbf::load_mesh(path).triangles.size(), 12u);
  std::remove(fifo.c_str());
}

TEST(MeshLoader, EveryShippedTestMeshLoadsAsAUnitCube) {
  for (const char* name :
       {"cube.obj", "cube.off", "cube_ascii.ply", "cube_binary.ply", "cube_ascii.stl", "cube_binary.stl"}) {
    const pbf::TriangleMesh m = pbf::load_mesh(kData + "/" + name);
    EXPECT_EQ(m.triangles.size(), 12u) << name;
    EXPECT_EQ(pbf::boundary_edge_count(m), 0u) << name;
    EXPECT_NEAR(std::fabs(pbf::mesh_volume(m)), 1.0, 1e-6) << name;
  }
}

// Loads mangled bytes: a clean mesh (triangles naming existing, finite
// vertices) or an Io error naming the file; anything else fails the test,
// and a crash, an abort or a hang of the importer must not reach this process.
void expect_mesh_or_io_error(const std::string& path, const std::string& bytes, const pbf::MeshImportLimits& limits) {
  try {
    const pbf::TriangleMesh m = pbf::load_mesh_data(path, bytes.data(), bytes.size(), pbf::MeshTransform{}, limits);
    ASSERT_FALSE(m.triangles.empty()) << path;
    for (const auto& t : m.triangles)
      for (uint32_t v : t) ASSERT_LT(v, m.vertices.size()) << path;
    for (const pbf::Vec3& v : m.vertices) ASSERT_TRUE(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z));
  } catch (const pbf::Error& e) {
    ASSERT_EQ(e.status(), pbf::Status::Io) << e.what();
    ASSERT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(MeshLoader, SystematicallyMangledMeshesLoadOrGiveAnIoError) {
  // Truncations at every 5th byte and 40 byte changes (seeded, so every run
  // tries the same ones) of each test mesh; 10 s is far beyond what any of
  // these takes, and only a hang would reach it.
  pbf::MeshImportLimits limits = pbf::mesh_import_limits(1 << 16);
  limits.seconds = 10.0;
  const unsigned char values[] = {0, '\n', ' ', '-', '0', '9', 'e', '#', 0x7f, 0xff};
  uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
  size_t tried = 0;
  for (const char* name :
       {"cube.obj", "cube.off", "cube_ascii.ply", "cube_binary.ply", "cube_ascii.stl", "cube_binary.stl"}) {
    const std::string bytes = read_data(name);
    ASSERT_FALSE(bytes.empty()) << name;
    const std::string path = std::string("mangled/") + name;
    for (size_t cut = 0; cut < bytes.size(); cut += 5, ++tried) expect_mesh_or_io_error(path, bytes.substr(0, cut), limits);
    for (int k = 0; k < 40; ++k, ++tried) {
      std::string changed = bytes;
      changed[next() % changed.size()] = char(values[next() % sizeof(values)]);
      expect_mesh_or_io_error(path, changed, limits);
    }
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(tried, 400u);
}

// ---------------------------------------------------------------- the importer process

// The importer's own failures, made on purpose: each becomes an Io error
// in this process, which goes on.

pbf::TriangleMesh one_triangle() {
  pbf::TriangleMesh m;
  m.vertices = {pbf::Vec3{0, 0, 0}, pbf::Vec3{1, 0, 0}, pbf::Vec3{0, 1, 0}};
  m.triangles = {{0, 1, 2}};
  return m;
}

void expect_import_error(const pbf::MeshImportLimits& limits, const std::function<pbf::TriangleMesh()>& import,
                         const std::string& reason) {
  const std::string path = "importer/test.obj";
  try {
    pbf::run_mesh_import(path, limits, import);
    ADD_FAILURE() << "the import succeeded";
  } catch (const pbf::Error& e) {
    EXPECT_EQ(e.status(), pbf::Status::Io);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
}

#define REQUIRE_ISOLATION() \
  if (!pbf::mesh_import_isolated()) GTEST_SKIP() << "imports run in this process here"

TEST(MeshImportProcess, ACrashingImporterBecomesAnError) {
  REQUIRE_ISOLATION();
  expect_import_error({}, [] {
    ::raise(SIGSEGV);
    return one_triangle();
  }, "the importer crashed on it (signal 11");
  expect_import_error({}, []() -> pbf::TriangleMesh { std::abort(); }, "crashed on it (signal 6");
}

TEST(MeshImportProcess, AHangingImporterIsStoppedAtItsTimeLimit) {
  REQUIRE_ISOLATION();
  pbf::MeshImportLimits limits;
  limits.seconds = 0.5;
  expect_import_error(limits, []() -> pbf::TriangleMesh {
    for (;;) ::pause();
  }, "the importer took longer than 0.5 s");
}

TEST(MeshImportProcess, AnImporterOutOfMemoryBecomesAnError) {
  REQUIRE_ISOLATION();
  if (!pbf::mesh_import_memory_limited()) GTEST_SKIP() << "no memory limit under the sanitizers";
  pbf::MeshImportLimits limits;
  limits.memory_bytes = uint64_t(256) << 20;
  expect_import_error(limits, [] {
    std::vector<char> huge(size_t(8) << 30, 1);  // 8 GiB: refused by the 256 MiB limit
    return one_triangle();
  }, "the importer ran out of memory (its limit is 256 MiB)");
}

TEST(MeshImportProcess, AnImporterEndingWithoutAnAnswerBecomesAnError) {
  REQUIRE_ISOLATION();
  expect_import_error({}, []() -> pbf::TriangleMesh { ::_exit(0); }, "without a complete answer");
  expect_import_error({}, []() -> pbf::TriangleMesh { ::_exit(7); }, "exit status 7");
  expect_import_error({}, []() -> pbf::TriangleMesh { throw std::runtime_error("no such thing"); }, "no such thing");
}

TEST(MeshImportProcess, AMeshOfAMillionTrianglesComesBackWhole) {
  // Far more than a pipe holds: the parent must read while the child writes.
  pbf::TriangleMesh grid;
  const uint32_t n = 708;  // 707 x 707 x 2 = 999,698 triangles
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t i = 0; i < n; ++i) grid.vertices.push_back(pbf::Vec3{float(i), float(j), float(i ^ j)});
  for (uint32_t j = 0; j + 1 < n; ++j)
    for (uint32_t i = 0; i + 1 < n; ++i) {
      const uint32_t v = j * n + i;
      grid.triangles.push_back({v, v + 1, v + n + 1});
      grid.triangles.push_back({v, v + n + 1, v + n});
    }
  const pbf::TriangleMesh back = pbf::run_mesh_import("grid.obj", pbf::MeshImportLimits{}, [&] { return grid; });
  ASSERT_EQ(back.triangles, grid.triangles);
  ASSERT_EQ(back.vertices.size(), grid.vertices.size());
  EXPECT_EQ(std::memcmp(back.vertices.data(), grid.vertices.data(), grid.vertices.size() * sizeof(pbf::Vec3)), 0);
}

TEST(MeshImportProcess, TheParentTrustsNothingInTheChildsAnswer) {
  const std::string good = pbf::encode_mesh_reply(one_triangle());
  auto refused = [](const std::string& reply, const std::string& reason) {
    try {
      pbf::decode_mesh_reply("reply.obj", reply.data(), reply.size());
      ADD_FAILURE() << "accepted";
    } catch (const pbf::Error& e) {
      EXPECT_EQ(e.status(), pbf::Status::Io);
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  };
  EXPECT_EQ(pbf::decode_mesh_reply("reply.obj", good.data(), good.size()).triangles.size(), 1u);
  refused(good.substr(0, good.size() - 1), "without a complete answer");
  refused(good + '\0', "without a complete answer");
  refused("XXXX" + good.substr(4), "answered garbage");
  std::string bad_index = good;
  bad_index[bad_index.size() - 1] = 1;  // the last index becomes 2 + 2^24
  refused(bad_index, "a face names a vertex that does not exist");
  pbf::TriangleMesh loose = one_triangle();
  for (int k = 0; k < 3; ++k) loose.vertices.push_back(pbf::Vec3{2, 2, 2});  // 6 vertices for 1 triangle
  const std::string too_many = pbf::encode_mesh_reply(loose);
  refused(too_many, "answered garbage");
  refused(pbf::encode_error_reply("a message that names another file"), "failed without a reason");
}

}  // namespace
