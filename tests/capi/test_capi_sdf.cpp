// The signed distance field functions of the C API: fields from shapes,
// mesh files and saved files; every bad argument refused with its status and
// a message naming the function and the argument, leaving outputs NULL and
// solvers unchanged; fields as obstacles and as shapes filled with fluid.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <cfloat>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "capi/expect_refused.h"
#include "hostile_files.h"
#include "physics/physics_scenes.h"

namespace {

using pbf_test::expect_refused;
using pbf_test::SolverPtr;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct SdfDeleter {
  void operator()(pbf_sdf* s) const { pbf_sdf_destroy(s); }
};
using SdfPtr = std::unique_ptr<pbf_sdf, SdfDeleter>;

std::string temp(const std::string& name) { return ::testing::TempDir() + "/" + name; }

// A cube of side 0.4 m centred at the origin, as an OBJ file.
// One file per test: ctest runs the tests in parallel, and each removes its file.
std::string write_cube_obj() {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string path = temp("cube_" + test + ".obj");
  std::ofstream out(path);
  out << "v -0.2 -0.2 -0.2\nv 0.2 -0.2 -0.2\nv -0.2 0.2 -0.2\nv 0.2 0.2 -0.2\n"
         "v -0.2 -0.2 0.2\nv 0.2 -0.2 0.2\nv -0.2 0.2 0.2\nv 0.2 0.2 0.2\n"
         "f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n";
  return path;
}

SdfPtr sphere(float radius, float cell) {
  pbf_sdf* raw = nullptr;
  EXPECT_EQ(pbf_sdf_sphere(radius, cell, &raw), PBF_OK) << pbf_last_error();
  return SdfPtr(raw);
}

float distance(const pbf_sdf* s, float x, float y, float z) {
  const float p[3] = {x, y, z};
  float d = kNaN;
  EXPECT_EQ(pbf_sdf_distance(s, p, &d), PBF_OK) << pbf_last_error();
  return d;
}

TEST(CApiSdf, ASphereDescribesItsGridValuesDistanceAndVolume) {
  const SdfPtr s = sphere(0.25f, 0.01f);
  ASSERT_TRUE(s);
  uint32_t dims[3] = {0, 0, 0};
  float origin[3] = {0, 0, 0}, cell = 0.0f;
  ASSERT_EQ(pbf_sdf_get_grid(s.get(), dims, origin, &cell), PBF_OK) << pbf_last_error();
  EXPECT_FLOAT_EQ(cell, 0.01f);
  EXPECT_GE(dims[0], 51u + 8u);
  EXPECT_LE(origin[0], -0.25f - 4 * 0.01f + 1e-5f);
  EXPECT_EQ(pbf_sdf_get_grid(s.get(), nullptr, nullptr, nullptr), PBF_OK);
  std::vector<float> values(size_t(dims[0]) * dims[1] * dims[2]);
  ASSERT_EQ(pbf_sdf_get_values(s.get(), values.data(), values.size()), PBF_OK) << pbf_last_error();
  // Sample (i, j, k) is at origin + (i, j, k) cell.
  const uint32_t i = 3, j = dims[1] / 2, k = dims[2] / 2;
  const float x = origin[0] + i * cell, y = origin[1] + j * cell, z = origin[2] + k * cell;
  EXPECT_NEAR(values[i + dims[0] * (j + size_t(dims[1]) * k)], std::sqrt(x * x + y * y + z * z) - 0.25f, 1e-6f);
  EXPECT_NEAR(distance(s.get(), 0.1f, 0.0f, 0.0f), -0.15f, 1e-3f);
  EXPECT_NEAR(distance(s.get(), 2.0f, 0.0f, 0.0f), 1.75f, 1e-3f);  // beyond the grid it still grows
  float volume = 0.0f;
  ASSERT_EQ(pbf_sdf_volume(s.get(), &volume), PBF_OK);
  EXPECT_NEAR(volume, 4.0 / 3.0 * M_PI * 0.25 * 0.25 * 0.25, 0.01 * 4.0 / 3.0 * M_PI * 0.25 * 0.25 * 0.25);
  EXPECT_EQ(pbf_sdf_destroy(nullptr), PBF_OK);
}

// Mass, centre and inertia tensor against a solid's analytic values, within `tol` of each.
void expect_mass_properties(const pbf_sdf* sdf, float density, double mass, const double centre[3],
                            const double inertia[9], double tol, const char* what) {
  float m = 0.0f, c[3] = {9, 9, 9}, i[9];
  ASSERT_EQ(pbf_sdf_mass_properties(sdf, density, &m, c, i), PBF_OK) << pbf_last_error();
  EXPECT_NEAR(m, mass, tol * mass) << what;
  const double size = std::cbrt(mass / density);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(c[a], centre[a], 1e-3 * size) << what << ": centre " << a;
  const double scale = std::max({inertia[0], inertia[4], inertia[8]});
  for (int a = 0; a < 9; ++a) EXPECT_NEAR(i[a], inertia[a], tol * scale) << what << ": inertia " << a;
}

TEST(CApiSdf, MassPropertiesAreThoseOfTheSolid) {
  // A box of half extents (0.1, 0.2, 0.3) m at 500 kg/m^3: I_xx = M (b^2 + c^2) / 3 with half extents.
  const float half[3] = {0.1f, 0.2f, 0.3f};
  pbf_sdf* raw = nullptr;
  ASSERT_EQ(pbf_sdf_box(half, 0.01f, &raw), PBF_OK) << pbf_last_error();
  SdfPtr box(raw);
  const double box_mass = 500.0 * 0.2 * 0.4 * 0.6, zero[3] = {0, 0, 0};
  const double box_inertia[9] = {box_mass * (0.04 + 0.09) / 3, 0, 0, 0, box_mass * (0.01 + 0.09) / 3, 0,
                                 0, 0, box_mass * (0.01 + 0.04) / 3};
  expect_mass_properties(box.get(), 500.0f, box_mass, zero, box_inertia, 0.02, "box");

  // A sphere of radius 0.25 m of water: I = 2/5 M r^2 on every axis.
  const SdfPtr ball = sphere(0.25f, 0.01f);
  const double ball_mass = 1000.0 * 4.0 / 3.0 * M_PI * 0.25 * 0.25 * 0.25, ri = 0.4 * ball_mass * 0.0625;
  const double ball_inertia[9] = {ri, 0, 0, 0, ri, 0, 0, 0, ri};
  expect_mass_properties(ball.get(), 1000.0f, ball_mass, zero, ball_inertia, 0.02, "sphere");

  // The mesh cube of edge 0.4 m stretched to 0.8 m along x, turned a quarter about z (its long
  // axis now along y), moved to (1, 0, 0), in a band of 0.06 m: the tensor is in the field's axes.
  const std::string path = write_cube_obj();
  const float scale[3] = {2.0f, 1.0f, 1.0f};
  const float quarter[4] = {0.0f, 0.0f, std::sqrt(0.5f), std::sqrt(0.5f)};
  const float move[3] = {1.0f, 0.0f, 0.0f};
  ASSERT_EQ(pbf_sdf_from_mesh_file(path.c_str(), scale, quarter, move, 0.02f, 0.06f, &raw), PBF_OK)
      << pbf_last_error();
  std::remove(path.c_str());
  SdfPtr bar(raw);
  const double bar_mass = 250.0 * 0.8 * 0.4 * 0.4, at[3] = {1.0, 0.0, 0.0};
  const double across = bar_mass * (0.64 + 0.16) / 12, along = bar_mass * (0.16 + 0.16) / 12;
  const double bar_inertia[9] = {across, 0, 0, 0, along, 0, 0, 0, across};
  expect_mass_properties(bar.get(), 250.0f, bar_mass, at, bar_inertia, 0.03, "turned bar");

  // Outputs may be left out; the density must be a finite density > 0.
  EXPECT_EQ(pbf_sdf_mass_properties(box.get(), 500.0f, nullptr, nullptr, nullptr), PBF_OK);
  for (float bad : {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    float m = 0.0f;
    EXPECT_EQ(pbf_sdf_mass_properties(box.get(), bad, &m, nullptr, nullptr), PBF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(pbf_last_error()).find("density"), std::string::npos) << pbf_last_error();
  }
  EXPECT_EQ(pbf_sdf_mass_properties(nullptr, 500.0f, nullptr, nullptr, nullptr), PBF_ERROR_NULL_POINTER);
  // A finite density whose mass leaves float range (0.048 m^3 x FLT_MAX fits; 8 m^3 x FLT_MAX does
  // not) is refused by name, and nothing is written.
  const float big_half[3] = {1.0f, 1.0f, 1.0f};
  ASSERT_EQ(pbf_sdf_box(big_half, 0.1f, &raw), PBF_OK) << pbf_last_error();
  SdfPtr big(raw);
  float m = -1.0f, c[3] = {-1.0f, -1.0f, -1.0f}, inertia[9];
  std::fill(inertia, inertia + 9, -1.0f);
  EXPECT_EQ(pbf_sdf_mass_properties(big.get(), std::numeric_limits<float>::max(), &m, c, inertia),
            PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("density"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(m, -1.0f);
  EXPECT_EQ(c[0], -1.0f);
  EXPECT_EQ(inertia[0], -1.0f);
  float m_small = 0.0f, i_small[9];
  ASSERT_EQ(pbf_sdf_mass_properties(box.get(), std::numeric_limits<float>::max(), &m_small, nullptr, i_small),
            PBF_OK)
      << pbf_last_error();
  EXPECT_TRUE(std::isfinite(m_small));
  for (float v : i_small) EXPECT_TRUE(std::isfinite(v));
}

TEST(CApiSdf, AMeshFileGivesTheFieldOfItsSolidPlacedAsAsked) {
  const std::string path = write_cube_obj();
  pbf_sdf* raw = nullptr;
  ASSERT_EQ(pbf_sdf_from_mesh_file(path.c_str(), nullptr, nullptr, nullptr, 0.02f, 0.0f, &raw), PBF_OK)
      << pbf_last_error();
  SdfPtr cube(raw);
  EXPECT_NEAR(distance(cube.get(), 0.1f, 0.0f, 0.0f), -0.1f, 1e-5f);
  EXPECT_NEAR(distance(cube.get(), 0.3f, 0.0f, 0.0f), 0.1f, 1e-5f);
  float volume = 0.0f;
  ASSERT_EQ(pbf_sdf_volume(cube.get(), &volume), PBF_OK);
  EXPECT_NEAR(volume, 0.064f, 0.01f * 0.064f);

  // Scaled by 2 along x, a quarter turn about z (x onto y), moved by (1, 0, 0), in a band.
  const float scale[3] = {2.0f, 1.0f, 1.0f};
  const float quarter[4] = {0.0f, 0.0f, std::sqrt(0.5f), std::sqrt(0.5f)};
  const float move[3] = {1.0f, 0.0f, 0.0f};
  ASSERT_EQ(pbf_sdf_from_mesh_file(path.c_str(), scale, quarter, move, 0.02f, 0.06f, &raw), PBF_OK)
      << pbf_last_error();
  SdfPtr placed(raw);
  EXPECT_NEAR(distance(placed.get(), 1.0f, 0.35f, 0.0f), -0.05f, 1e-4f);  // 0.4 m long along y now
  EXPECT_NEAR(distance(placed.get(), 1.25f, 0.0f, 0.0f), 0.05f, 1e-4f);   // 0.2 m wide along x
  EXPECT_NEAR(distance(placed.get(), 1.0f, 0.0f, 0.0f), -0.06f, 1e-6f);   // deep inside: the band's value
  std::remove(path.c_str());
}

std::vector<float> values_of(const pbf_sdf* s) {
  uint32_t dims[3] = {0, 0, 0};
  EXPECT_EQ(pbf_sdf_get_grid(s, dims, nullptr, nullptr), PBF_OK) << pbf_last_error();
  std::vector<float> values(size_t(dims[0]) * dims[1] * dims[2]);
  EXPECT_EQ(pbf_sdf_get_values(s, values.data(), values.size()), PBF_OK) << pbf_last_error();
  return values;
}

TEST(CApiSdf, ABandWiderThanTheGridGivesTheExactField) {
  // A band beyond every distance in the grid clamps nothing: the field is
  // the exact one, bit for bit, however wide the band (once an overflow of
  // the band in cells stored +-band everywhere).
  const std::string path = write_cube_obj();
  pbf_sdf* raw = nullptr;
  ASSERT_EQ(pbf_sdf_from_mesh_file(path.c_str(), nullptr, nullptr, nullptr, 0.02f, 0.0f, &raw), PBF_OK)
      << pbf_last_error();
  const SdfPtr exact(raw);
  for (float band : {1.0f, 1e9f, 1e30f, std::numeric_limits<float>::max()}) {
    SCOPED_TRACE(band);
    ASSERT_EQ(pbf_sdf_from_mesh_file(path.c_str(), nullptr, nullptr, nullptr, 0.02f, band, &raw), PBF_OK)
        << pbf_last_error();
    const SdfPtr wide(raw);
    EXPECT_NEAR(distance(wide.get(), 0.1f, 0.0f, 0.0f), -0.1f, 1e-5f);
    EXPECT_TRUE(values_of(wide.get()) == values_of(exact.get()));
  }
  std::remove(path.c_str());
}

TEST(CApiSdf, WusonBecomesAFieldWithAnInside) {
  const std::string models = PBF_TEST_MODELS_DIR;
  if (models.empty()) GTEST_SKIP() << "assimp-testmodels is not installed";
  pbf_sdf* raw = nullptr;
  ASSERT_EQ(pbf_sdf_from_mesh_file((models + "/PLY/Wuson.ply").c_str(), nullptr, nullptr, nullptr, 0.05f, 0.15f, &raw),
            PBF_OK)
      << pbf_last_error();
  SdfPtr wuson(raw);
  float volume = 0.0f;
  ASSERT_EQ(pbf_sdf_volume(wuson.get(), &volume), PBF_OK);
  EXPECT_GT(volume, 0.0f);
}

TEST(CApiSdf, ConstructorErrorsNameTheArgumentAndLeaveTheOutputNull) {
  const std::string cube = write_cube_obj();
  const char* path = cube.c_str();
  pbf_sdf* out = reinterpret_cast<pbf_sdf*>(0x1);
  const char* fn = "pbf_sdf_from_mesh_file";
  expect_refused(pbf_sdf_from_mesh_file(path, nullptr, nullptr, nullptr, 0.02f, 0.0f, nullptr), PBF_ERROR_NULL_POINTER,
                 fn, "out_sdf");
  expect_refused(pbf_sdf_from_mesh_file(nullptr, nullptr, nullptr, nullptr, 0.02f, 0.0f, &out),
                 PBF_ERROR_NULL_POINTER, fn, "path");
  EXPECT_EQ(out, nullptr);
  expect_refused(pbf_sdf_from_mesh_file("", nullptr, nullptr, nullptr, 0.02f, 0.0f, &out), PBF_ERROR_INVALID_ARGUMENT,
                 fn, "path");
  const std::string missing = temp("no_such_mesh.stl");
  expect_refused(pbf_sdf_from_mesh_file(missing.c_str(), nullptr, nullptr, nullptr, 0.02f, 0.0f, &out), PBF_ERROR_IO,
                 fn, missing);
  const std::string garbage = temp("garbage.stl");
  std::ofstream(garbage) << "solid nothing\nendsolid\n";
  expect_refused(pbf_sdf_from_mesh_file(garbage.c_str(), nullptr, nullptr, nullptr, 0.02f, 0.0f, &out), PBF_ERROR_IO,
                 fn, garbage);
  const float nan_scale[3] = {1.0f, kNaN, 1.0f}, zero_scale[3] = {1.0f, 1.0f, 0.0f};
  expect_refused(pbf_sdf_from_mesh_file(path, nan_scale, nullptr, nullptr, 0.02f, 0.0f, &out),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "scale[1]");
  expect_refused(pbf_sdf_from_mesh_file(path, zero_scale, nullptr, nullptr, 0.02f, 0.0f, &out),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "scale[2]");
  const float zero_rotation[4] = {0, 0, 0, 0}, inf_rotation[4] = {0, kInf, 0, 1};
  expect_refused(pbf_sdf_from_mesh_file(path, nullptr, zero_rotation, nullptr, 0.02f, 0.0f, &out),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "rotation");
  expect_refused(pbf_sdf_from_mesh_file(path, nullptr, inf_rotation, nullptr, 0.02f, 0.0f, &out),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "rotation[1]");
  const float nan_translation[3] = {0, 0, kNaN};
  expect_refused(pbf_sdf_from_mesh_file(path, nullptr, nullptr, nan_translation, 0.02f, 0.0f, &out),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "translation[2]");
  for (float cell : {0.0f, -0.1f, kNaN, kInf})
    expect_refused(pbf_sdf_from_mesh_file(path, nullptr, nullptr, nullptr, cell, 0.0f, &out),
                   PBF_ERROR_INVALID_ARGUMENT, fn, "cell");
  expect_refused(pbf_sdf_from_mesh_file(path, nullptr, nullptr, nullptr, 1e-4f, 0.0f, &out),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "cell");  // a 4000^3 grid
  for (float band : {-0.1f, kNaN, 0.03f})  // 0.03 is under two cells
    expect_refused(pbf_sdf_from_mesh_file(path, nullptr, nullptr, nullptr, 0.02f, band, &out),
                   PBF_ERROR_INVALID_ARGUMENT, fn, "band");
  EXPECT_EQ(out, nullptr);

  const float half[3] = {0.1f, 0.2f, 0.3f}, bad_half[3] = {0.1f, -0.2f, 0.3f};
  expect_refused(pbf_sdf_box(nullptr, 0.01f, &out), PBF_ERROR_NULL_POINTER, "pbf_sdf_box", "half_extents");
  expect_refused(pbf_sdf_box(bad_half, 0.01f, &out), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_box", "half_extents[1]");
  expect_refused(pbf_sdf_box(half, kNaN, &out), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_box", "cell");
  expect_refused(pbf_sdf_box(half, 1e-5f, &out), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_box", "cell");
  expect_refused(pbf_sdf_box(half, 0.01f, nullptr), PBF_ERROR_NULL_POINTER, "pbf_sdf_box", "out_sdf");
  expect_refused(pbf_sdf_sphere(kNaN, 0.01f, &out), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_sphere", "radius");
  expect_refused(pbf_sdf_sphere(0.0f, 0.01f, &out), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_sphere", "radius");
  expect_refused(pbf_sdf_sphere(0.1f, -1.0f, &out), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_sphere", "cell");
  expect_refused(pbf_sdf_sphere(0.1f, 0.01f, nullptr), PBF_ERROR_NULL_POINTER, "pbf_sdf_sphere", "out_sdf");
  EXPECT_EQ(out, nullptr);
  std::remove(cube.c_str());
  std::remove(garbage.c_str());
}

TEST(CApiSdf, QueryErrorsNameTheArgument) {
  const SdfPtr s = sphere(0.1f, 0.02f);
  float value = 0.0f;
  const float point[3] = {0, 0, 0}, nan_point[3] = {0, kNaN, 0};
  uint32_t dims[3];
  expect_refused(pbf_sdf_get_grid(nullptr, dims, nullptr, nullptr), PBF_ERROR_NULL_POINTER, "pbf_sdf_get_grid", "sdf");
  ASSERT_EQ(pbf_sdf_get_grid(s.get(), dims, nullptr, nullptr), PBF_OK);
  std::vector<float> values(size_t(dims[0]) * dims[1] * dims[2]);
  expect_refused(pbf_sdf_get_values(s.get(), values.data(), values.size() - 1), PBF_ERROR_BUFFER_TOO_SMALL,
                 "pbf_sdf_get_values", "length");
  expect_refused(pbf_sdf_get_values(s.get(), nullptr, values.size()), PBF_ERROR_NULL_POINTER, "pbf_sdf_get_values",
                 "out");
  expect_refused(pbf_sdf_get_values(nullptr, values.data(), values.size()), PBF_ERROR_NULL_POINTER,
                 "pbf_sdf_get_values", "sdf");
  expect_refused(pbf_sdf_distance(s.get(), nan_point, &value), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_distance",
                 "point[1]");
  expect_refused(pbf_sdf_distance(s.get(), nullptr, &value), PBF_ERROR_NULL_POINTER, "pbf_sdf_distance", "point");
  expect_refused(pbf_sdf_distance(s.get(), point, nullptr), PBF_ERROR_NULL_POINTER, "pbf_sdf_distance",
                 "out_distance");
  expect_refused(pbf_sdf_distance(nullptr, point, &value), PBF_ERROR_NULL_POINTER, "pbf_sdf_distance", "sdf");
  expect_refused(pbf_sdf_volume(s.get(), nullptr), PBF_ERROR_NULL_POINTER, "pbf_sdf_volume", "out_volume");
  expect_refused(pbf_sdf_volume(nullptr, &value), PBF_ERROR_NULL_POINTER, "pbf_sdf_volume", "sdf");
}

TEST(CApiSdf, ASavedFieldLoadsBackAndBadFilesAreRefused) {
  const SdfPtr s = sphere(0.2f, 0.02f);
  const std::string path = temp("capi_sphere.pbfsdf");
  ASSERT_EQ(pbf_sdf_save(s.get(), path.c_str()), PBF_OK) << pbf_last_error();
  pbf_sdf* raw = nullptr;
  ASSERT_EQ(pbf_sdf_load(path.c_str(), &raw), PBF_OK) << pbf_last_error();
  const SdfPtr back(raw);
  uint32_t d1[3], d2[3];
  float o1[3], o2[3], c1, c2;
  ASSERT_EQ(pbf_sdf_get_grid(s.get(), d1, o1, &c1), PBF_OK);
  ASSERT_EQ(pbf_sdf_get_grid(back.get(), d2, o2, &c2), PBF_OK);
  EXPECT_EQ(std::memcmp(d1, d2, sizeof d1), 0);
  EXPECT_EQ(std::memcmp(o1, o2, sizeof o1), 0);
  EXPECT_EQ(c1, c2);
  std::vector<float> v1(size_t(d1[0]) * d1[1] * d1[2]), v2(v1.size());
  ASSERT_EQ(pbf_sdf_get_values(s.get(), v1.data(), v1.size()), PBF_OK);
  ASSERT_EQ(pbf_sdf_get_values(back.get(), v2.data(), v2.size()), PBF_OK);
  EXPECT_EQ(std::memcmp(v1.data(), v2.data(), 4 * v1.size()), 0);

  expect_refused(pbf_sdf_save(nullptr, path.c_str()), PBF_ERROR_NULL_POINTER, "pbf_sdf_save", "sdf");
  expect_refused(pbf_sdf_save(s.get(), nullptr), PBF_ERROR_NULL_POINTER, "pbf_sdf_save", "path");
  expect_refused(pbf_sdf_save(s.get(), ""), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_save", "path");
  const std::string nowhere = temp("no_such_directory/field.pbfsdf");
  expect_refused(pbf_sdf_save(s.get(), nowhere.c_str()), PBF_ERROR_IO, "pbf_sdf_save", "no_such_directory");
  raw = reinterpret_cast<pbf_sdf*>(0x1);
  expect_refused(pbf_sdf_load(nowhere.c_str(), &raw), PBF_ERROR_IO, "pbf_sdf_load", "no_such_directory");
  EXPECT_EQ(raw, nullptr);
  expect_refused(pbf_sdf_load(path.c_str(), nullptr), PBF_ERROR_NULL_POINTER, "pbf_sdf_load", "out_sdf");
  expect_refused(pbf_sdf_load(nullptr, &raw), PBF_ERROR_NULL_POINTER, "pbf_sdf_load", "path");
  // Cut short.
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size() / 2));
  expect_refused(pbf_sdf_load(path.c_str(), &raw), PBF_ERROR_IO, "pbf_sdf_load", "truncated");
  std::remove(path.c_str());
}

TEST(CApiSdf, FilesThatAreNotRegularAreRefusedAndNeverReplaced) {
  pbf_test::TempFolder folder;
  const std::string fifo = folder / "fifo.pbfsdf";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  for (const std::string& path : {std::string("/dev/zero"), fifo, folder / ""}) {
    SCOPED_TRACE(path);
    // In a child process: a load that blocks or reads without end fails the test instead of hanging it.
    const pbf_test::ChildOutcome got = pbf_test::run_in_child([&](std::string& message) {
      pbf_sdf* out = reinterpret_cast<pbf_sdf*>(0x1);
      const pbf_status status = pbf_sdf_load(path.c_str(), &out);
      message = std::string(pbf_last_error()) + (out == nullptr ? "" : " (out_sdf not NULL)");
      return int(status);
    });
    ASSERT_TRUE(got.finished) << got.how;
    EXPECT_EQ(got.code, int(PBF_ERROR_IO)) << got.message;
    EXPECT_NE(got.message.find("pbf_sdf_load"), std::string::npos) << got.message;
    EXPECT_NE(got.message.find("not a regular file"), std::string::npos) << got.message;
    EXPECT_EQ(got.message.find("out_sdf not NULL"), std::string::npos) << got.message;
  }
  const SdfPtr s = sphere(0.1f, 0.05f);
  expect_refused(pbf_sdf_save(s.get(), fifo.c_str()), PBF_ERROR_IO, "pbf_sdf_save", "a FIFO, not a regular file");
  EXPECT_EQ(pbf_test::kind_of(fifo), mode_t(S_IFIFO)) << "the FIFO was replaced";
  EXPECT_EQ(folder.names().size(), 1u) << "a temporary file was left behind";
}

class CApiSdfSolver : public ::testing::Test {
 protected:
  void SetUp() override {
    pbf_solver_desc d = pbf_solver_desc_default();
    d.backend = PBF_BACKEND_CPU;
    d.max_particles = 5000;
    d.particle_spacing = 0.02f;
    solver_ = pbf_test::make_solver(d);
    ASSERT_TRUE(solver_);
  }
  size_t count() { return pbf_test::count_of(solver_.get()); }
  SolverPtr solver_;
  const float centre_[3] = {0.5f, 0.5f, 0.5f};
};

TEST_F(CApiSdfSolver, AFilledSphereHoldsItsVolumeInParticlesWithTheVelocityGiven) {
  const SdfPtr s = sphere(0.15f, 0.01f);
  const float velocity[3] = {0.0f, -1.0f, 0.5f};
  size_t added = 0;
  ASSERT_EQ(pbf_solver_fill_sdf(solver_.get(), s.get(), nullptr, centre_, velocity, &added), PBF_OK)
      << pbf_last_error();
  EXPECT_EQ(added, count());
  const double exact = 4.0 / 3.0 * M_PI * 0.15 * 0.15 * 0.15 / (0.02 * 0.02 * 0.02);  // about 1767
  EXPECT_NEAR(double(added), exact, 0.04 * exact);
  std::vector<float> v(3 * added);
  ASSERT_EQ(pbf_solver_get_velocities(solver_.get(), v.data(), v.size()), PBF_OK);
  EXPECT_EQ(v[1], -1.0f);
  EXPECT_EQ(v[3 * added - 1], 0.5f);
}

// A solid flush with the domain's walls fills as pbf_solver_fill_box() fills the same box: a lattice point
// closer than half a spacing to a wall is left out (it would start compressed against it), and a box a
// whole number of spacings long keeps its last layer.
TEST(CApiFillSdf, LeavesOutPointsCloserThanHalfASpacingToADomainWall) {
  for (const float spacing : {0.03f, 0.02f}) {
    pbf_solver_desc d = pbf_solver_desc_default();
    d.backend = PBF_BACKEND_CPU;
    d.max_particles = 40000;
    d.particle_spacing = spacing;
    d.domain_max[0] = 0.8f;
    d.domain_max[1] = 0.9f;
    d.domain_max[2] = 0.8f;
    const SolverPtr solver = pbf_test::make_solver(d);
    ASSERT_TRUE(solver);
    // The box 0 .. 0.8 across, 0 .. 0.4 up, reaching past the walls by a centimetre.
    const float half[3] = {0.41f, 0.21f, 0.41f}, at[3] = {0.4f, 0.19f, 0.4f};
    pbf_sdf* raw = nullptr;
    ASSERT_EQ(pbf_sdf_box(half, 0.01f, &raw), PBF_OK) << pbf_last_error();
    const SdfPtr box(raw);
    size_t added = 0;
    ASSERT_EQ(pbf_solver_fill_sdf(solver.get(), box.get(), nullptr, at, nullptr, &added), PBF_OK) << pbf_last_error();
    // 0.03: 0.015 .. 0.765 across (0.795 lies 5 mm from the wall), 0.015 .. 0.375 up (the box's top
    // is no wall); 0.02: 0.01 .. 0.79 across, all 40, and 0.01 .. 0.39 up.
    const size_t across = spacing == 0.03f ? 26u : 40u, up = spacing == 0.03f ? 13u : 20u;
    EXPECT_EQ(added, across * up * across) << "spacing " << spacing;
    const std::vector<float> x = pbf_test::positions_of(solver.get());
    ASSERT_EQ(x.size(), 3 * added);
    for (size_t p = 0; p < added; ++p)
      for (int a : {0, 1, 2}) {
        EXPECT_GE(x[3 * p + a], 0.5f * spacing - 1e-6f) << "particle " << p << ", spacing " << spacing;
        if (a != 1) EXPECT_LE(x[3 * p + a], 0.8f - 0.5f * spacing + 1e-6f) << "particle " << p;
      }
  }
}

// Fills leave the obstacles' insides empty: no lattice point inside an
// obstacle, or nearer its surface than half a spacing (where a particle
// would start pressed into the solid and be thrown out of it in the first
// step), is filled, by pbf_solver_fill_box() or pbf_solver_fill_sdf(), for a
// kinematic obstacle and a dynamic body alike; the rest of the lattice is
// filled as without the obstacles.
TEST_F(CApiSdfSolver, FillsLeaveTheObstaclesInsidesEmpty) {
  const SdfPtr ball = sphere(0.1f, 0.01f);
  const float r = 0.1f, spacing = 0.02f;
  for (const bool dynamic : {false, true}) {
    SCOPED_TRACE(dynamic ? "a dynamic body" : "a kinematic obstacle");
    ASSERT_EQ(pbf_solver_clear_particles(solver_.get()), PBF_OK);
    ASSERT_EQ(pbf_solver_clear_obstacles(solver_.get()), PBF_OK);
    // Without the obstacle: the box 0.34 .. 0.66 holds 16^3 lattice points, the sphere of 0.15 m about 1767.
    const float lo[3] = {0.34f, 0.34f, 0.34f}, hi[3] = {0.66f, 0.66f, 0.66f};
    const SdfPtr fluid = sphere(0.15f, 0.01f);
    uint32_t index = 0;
    ASSERT_EQ(pbf_solver_add_obstacle(solver_.get(), ball.get(), nullptr, centre_, &index), PBF_OK);
    if (dynamic) {
      float mass = 0.0f, c[3], inertia[9];
      ASSERT_EQ(pbf_sdf_mass_properties(ball.get(), 500.0f, &mass, c, inertia), PBF_OK);
      ASSERT_EQ(pbf_solver_set_obstacle_dynamic(solver_.get(), index, mass, c, inertia), PBF_OK) << pbf_last_error();
    }
    size_t in_box = 0, in_sphere = 0;
    ASSERT_EQ(pbf_solver_fill_box(solver_.get(), lo, hi, nullptr, &in_box), PBF_OK) << pbf_last_error();
    ASSERT_EQ(pbf_solver_fill_sdf(solver_.get(), fluid.get(), nullptr, centre_, nullptr, &in_sphere), PBF_OK)
        << pbf_last_error();
    ASSERT_EQ(count(), in_box + in_sphere);
    // The lattice points 0.01 + 0.02 i within r + spacing/2 of the centre: left out of both fills.
    size_t near = 0;
    for (int i = 0; i < 50; ++i)
      for (int j = 0; j < 50; ++j)
        for (int k = 0; k < 50; ++k) {
          const double x = 0.01 + 0.02 * i - 0.5, y = 0.01 + 0.02 * j - 0.5, z = 0.01 + 0.02 * k - 0.5;
          if (std::sqrt(x * x + y * y + z * z) < r + 0.5 * spacing - 1e-4) ++near;
        }
    EXPECT_EQ(in_box, 4096u - near) << "the box, less the points near the ball";
    EXPECT_GT(in_sphere, 0u);
    EXPECT_LT(in_sphere, 1767u - near + 60u) << "the sphere of water, less the points near the ball";
    const std::vector<float> x = pbf_test::positions_of(solver_.get());
    for (size_t p = 0; p < x.size() / 3; ++p) {
      const double dx = x[3 * p] - 0.5, dy = x[3 * p + 1] - 0.5, dz = x[3 * p + 2] - 0.5;
      ASSERT_GE(std::sqrt(dx * dx + dy * dy + dz * dz), r + 0.5 * spacing - 2e-3) << "particle " << p;
    }
  }
}

// The capacity counts what a fill keeps outside the obstacles: a solid (or a
// box) that holds ten times the room but leaves only the room outside an
// obstacle fills it exactly; one particle less room is refused, naming that
// count, and adds nothing.
TEST(CApiFillSdf, TheCapacityCountsThePointsOutsideTheObstacles) {
  const float centre[3] = {0.5f, 0.5f, 0.5f}, lo[3] = {0.4f, 0.4f, 0.4f}, hi[3] = {0.6f, 0.6f, 0.6f};
  // A sphere of 1767 points, a box of 1000; the ball leaves a 5 mm shell of the one and the other's corners.
  const SdfPtr fluid = sphere(0.15f, 0.01f), ball = sphere(0.135f, 0.01f);
  for (const bool box : {false, true}) {
    SCOPED_TRACE(box ? "pbf_solver_fill_box" : "pbf_solver_fill_sdf");
    const auto filled = [&](size_t max_particles, size_t* added) {
      pbf_solver_desc d = pbf_solver_desc_default();
      d.backend = PBF_BACKEND_CPU;
      d.max_particles = max_particles;
      d.particle_spacing = 0.02f;
      const SolverPtr solver = pbf_test::make_solver(d);
      EXPECT_TRUE(solver);
      EXPECT_EQ(pbf_solver_add_obstacle(solver.get(), ball.get(), nullptr, centre, nullptr), PBF_OK);
      const pbf_status status = box ? pbf_solver_fill_box(solver.get(), lo, hi, nullptr, added)
                                    : pbf_solver_fill_sdf(solver.get(), fluid.get(), nullptr, centre, nullptr, added);
      EXPECT_EQ(pbf_test::count_of(solver.get()), status == PBF_OK ? *added : 0u);
      return status;
    };
    size_t kept = 0;
    ASSERT_EQ(filled(5000, &kept), PBF_OK) << pbf_last_error();
    ASSERT_GT(kept, 0u);
    ASSERT_LT(10 * kept, box ? 1000u : 1767u) << "the obstacle is meant to leave a tenth or less";
    size_t added = 0;
    ASSERT_EQ(filled(kept, &added), PBF_OK) << pbf_last_error();
    EXPECT_EQ(added, kept);
    added = 77;
    const char* fn = box ? "pbf_solver_fill_box" : "pbf_solver_fill_sdf";
    expect_refused(filled(kept - 1, &added), PBF_ERROR_CAPACITY_EXCEEDED, fn, "holds " + std::to_string(kept) + " ");
    EXPECT_EQ(added, 77u);
  }
}

TEST_F(CApiSdfSolver, AFillBeyondTheCapacityAddsNothing) {
  const SdfPtr big = sphere(0.3f, 0.02f);  // about 14,000 particles
  size_t added = 77;
  expect_refused(pbf_solver_fill_sdf(solver_.get(), big.get(), nullptr, centre_, nullptr, &added),
                 PBF_ERROR_CAPACITY_EXCEEDED, "pbf_solver_fill_sdf", "max_particles");
  EXPECT_EQ(added, 77u);
  EXPECT_EQ(count(), 0u);
}

TEST_F(CApiSdfSolver, FillErrorsNameTheArgument) {
  const SdfPtr s = sphere(0.1f, 0.02f);
  const char* fn = "pbf_solver_fill_sdf";
  const float nan3[3] = {0, kNaN, 0}, zero4[4] = {0, 0, 0, 0};
  expect_refused(pbf_solver_fill_sdf(nullptr, s.get(), nullptr, centre_, nullptr, nullptr), PBF_ERROR_NULL_POINTER,
                 fn, "solver");
  expect_refused(pbf_solver_fill_sdf(solver_.get(), nullptr, nullptr, centre_, nullptr, nullptr),
                 PBF_ERROR_NULL_POINTER, fn, "sdf");
  expect_refused(pbf_solver_fill_sdf(solver_.get(), s.get(), zero4, centre_, nullptr, nullptr),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "rotation");
  expect_refused(pbf_solver_fill_sdf(solver_.get(), s.get(), nullptr, nan3, nullptr, nullptr),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "translation[1]");
  expect_refused(pbf_solver_fill_sdf(solver_.get(), s.get(), nullptr, centre_, nan3, nullptr),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "velocity[1]");
  const float* data = nullptr;
  ASSERT_EQ(pbf_solver_map(solver_.get(), PBF_FIELD_POSITIONS, PBF_MEMORY_HOST, &data, nullptr), PBF_OK);
  expect_refused(pbf_solver_fill_sdf(solver_.get(), s.get(), nullptr, centre_, nullptr, nullptr), PBF_ERROR_BUSY, fn,
                 "mapped");
  ASSERT_EQ(pbf_solver_unmap(solver_.get(), PBF_FIELD_POSITIONS), PBF_OK);
  EXPECT_EQ(count(), 0u);
  // Wholly outside the domain: nothing to add, and no error.
  const float far[3] = {10.0f, 10.0f, 10.0f};
  size_t added = 99;
  ASSERT_EQ(pbf_solver_fill_sdf(solver_.get(), s.get(), nullptr, far, nullptr, &added), PBF_OK) << pbf_last_error();
  EXPECT_EQ(added, 0u);
}

TEST_F(CApiSdfSolver, AFieldBecomesAnObstacleThatKeepsParticlesOut) {
  const SdfPtr s = sphere(0.2f, 0.02f);
  const char* fn = "pbf_solver_add_obstacle";
  const float zero4[4] = {0, 0, 0, 0}, nan3[3] = {kNaN, 0, 0};
  expect_refused(pbf_solver_add_obstacle(nullptr, s.get(), nullptr, centre_, nullptr), PBF_ERROR_NULL_POINTER, fn,
                 "solver");
  expect_refused(pbf_solver_add_obstacle(solver_.get(), nullptr, nullptr, centre_, nullptr), PBF_ERROR_NULL_POINTER,
                 fn, "sdf");
  expect_refused(pbf_solver_add_obstacle(solver_.get(), s.get(), zero4, centre_, nullptr), PBF_ERROR_INVALID_ARGUMENT,
                 fn, "rotation");
  expect_refused(pbf_solver_add_obstacle(solver_.get(), s.get(), nullptr, nan3, nullptr), PBF_ERROR_INVALID_ARGUMENT,
                 fn, "translation[0]");
  uint32_t obstacles = 9;
  ASSERT_EQ(pbf_solver_get_obstacle_count(solver_.get(), &obstacles), PBF_OK);
  EXPECT_EQ(obstacles, 0u);

  uint32_t index = 9;
  ASSERT_EQ(pbf_solver_add_obstacle(solver_.get(), s.get(), nullptr, centre_, &index), PBF_OK) << pbf_last_error();
  EXPECT_EQ(index, 0u);
  // A particle inside the sphere is out of it after a step.
  const float inside[3] = {0.55f, 0.5f, 0.5f};
  ASSERT_EQ(pbf_solver_add_particles(solver_.get(), inside, nullptr, 1), PBF_OK);
  pbf_params p = pbf_params_default();
  p.gravity[1] = 0.0f;
  ASSERT_EQ(pbf_solver_set_params(solver_.get(), &p), PBF_OK);
  ASSERT_EQ(pbf_solver_step(solver_.get(), 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
  const std::vector<float> x = pbf_test::positions_of(solver_.get());
  const float dx = x[0] - 0.5f, dy = x[1] - 0.5f, dz = x[2] - 0.5f;
  EXPECT_GT(std::sqrt(dx * dx + dy * dy + dz * dz), 0.2f);
}

TEST_F(CApiSdfSolver, ASolidsSurfaceBecomesBoundaryParticles) {
  const SdfPtr ball = sphere(0.2f, 0.02f);
  const float at[3] = {0.5f, 0.5f, 0.5f};
  size_t added = 0;
  ASSERT_EQ(pbf_solver_add_sdf_boundary_particles(solver_.get(), ball.get(), nullptr, at, &added), PBF_OK)
      << pbf_last_error();
  // About one sample per spacing^2 (the fixture's: 0.02 m) of the sphere the samples lie on: set back
  // inside the solid as the walls' are, 0.66 spacings at the default kernel radius.
  const double r = 0.2 - 0.66 * 0.02;
  const double area = 4.0 * M_PI * r * r / (0.02 * 0.02);
  EXPECT_GT(double(added), 0.8 * area);
  EXPECT_LT(double(added), 1.6 * area);
  size_t count = 0;
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(solver_.get(), &count), PBF_OK);
  EXPECT_EQ(count, added);
}

TEST_F(CApiSdfSolver, SurfaceSamplingErrorsNameTheArgumentAndAddNothing) {
  const SdfPtr ball = sphere(0.2f, 0.02f);
  expect_refused(pbf_solver_add_sdf_boundary_particles(nullptr, ball.get(), nullptr, nullptr, nullptr),
                 PBF_ERROR_NULL_POINTER, "pbf_solver_add_sdf_boundary_particles", "solver");
  expect_refused(pbf_solver_add_sdf_boundary_particles(solver_.get(), nullptr, nullptr, nullptr, nullptr),
                 PBF_ERROR_NULL_POINTER, "pbf_solver_add_sdf_boundary_particles", "sdf");
  const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  expect_refused(pbf_solver_add_sdf_boundary_particles(solver_.get(), ball.get(), zero, nullptr, nullptr),
                 PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_add_sdf_boundary_particles", "rotation");
  const float nan[3] = {kNaN, 0.0f, 0.0f};
  expect_refused(pbf_solver_add_sdf_boundary_particles(solver_.get(), ball.get(), nullptr, nan, nullptr),
                 PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_add_sdf_boundary_particles", "translation");
  size_t count = 1;
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(solver_.get(), &count), PBF_OK);
  EXPECT_EQ(count, 0u);

  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.particle_spacing = 0.02f;
  d.method = PBF_METHOD_PROJECTIVE;
  const SolverPtr projective = pbf_test::make_solver(d);
  ASSERT_TRUE(projective);
  size_t added = 0;
  ASSERT_EQ(pbf_solver_add_sdf_boundary_particles(projective.get(), ball.get(), nullptr, nullptr, &added), PBF_OK)
      << pbf_last_error();
  EXPECT_GT(added, 0u) << "Projective Fluids takes boundary particles too";
}

// Issue #16: a cell of FLT_MAX put the grid's origin at -Inf (every value Inf, the distance NaN), and
// one of FLT_MIN made a point 1e15 m away infinitely many cells out.
TEST(CApiSdf, ACellOutsideItsRangeIsRefusedAndItsEndsGiveFiniteFields) {
  pbf_sdf* out = reinterpret_cast<pbf_sdf*>(0x1);
  const float half[3] = {0.2f, 0.2f, 0.2f};
  for (float cell : {FLT_MAX, 1e37f, 2e6f, 5e-7f, FLT_MIN})
    expect_refused(pbf_sdf_box(half, cell, &out), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_box", "cell");
  expect_refused(pbf_sdf_sphere(0.2f, 1e37f, &out), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_sphere", "cell");
  expect_refused(pbf_sdf_sphere(FLT_MIN, FLT_MIN, &out), PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_sphere", "cell");
  EXPECT_EQ(out, nullptr);
  // The ends of the range, on solids far smaller than a cell: every value and distance finite.
  for (float cell : {1e6f, 1e-6f}) {
    const SdfPtr s = sphere(FLT_MIN, cell);
    ASSERT_TRUE(s);
    for (float v : values_of(s.get())) ASSERT_TRUE(std::isfinite(v)) << "cell " << cell;
    for (float x : {0.0f, 1e15f, -FLT_MAX}) EXPECT_TRUE(std::isfinite(distance(s.get(), x, 0.0f, 0.0f))) << x;
  }
}

// A solid built 1e30 m from the origin: its samples' coordinates were all the same float.
TEST(CApiSdf, AMeshBuiltWhereFloatsCannotResolveItsCellIsRefused) {
  const std::string cube = write_cube_obj();
  pbf_sdf* out = reinterpret_cast<pbf_sdf*>(0x1);
  const float far[3] = {1e30f, 0.0f, 0.0f}, near[3] = {1e3f, 0.0f, 0.0f};
  expect_refused(pbf_sdf_from_mesh_file(cube.c_str(), nullptr, nullptr, far, 0.05f, 0.0f, &out),
                 PBF_ERROR_INVALID_ARGUMENT, "pbf_sdf_from_mesh_file", "2^20 cells");
  EXPECT_EQ(out, nullptr);
  ASSERT_EQ(pbf_sdf_from_mesh_file(cube.c_str(), nullptr, nullptr, near, 0.05f, 0.0f, &out), PBF_OK)
      << pbf_last_error();
  const SdfPtr placed(out);
  // 0.1 m beyond a face, to float's step at 1e3 m (6e-5 m) and the samples' rounding.
  EXPECT_NEAR(distance(placed.get(), 1e3f + 0.3f, 0.0f, 0.0f), 0.1f, 5e-4f);
  std::remove(cube.c_str());
}

// Issue #16: outside the grid the distance to its box was squared in float, +Inf beyond about 1e19 m.
TEST(CApiSdf, TheDistanceFarFromTheGridIsFinite) {
  const SdfPtr s = sphere(0.25f, 0.05f);
  EXPECT_FLOAT_EQ(distance(s.get(), 1e20f, 0.0f, 0.0f), 1e20f);
  EXPECT_FLOAT_EQ(distance(s.get(), 0.0f, -1e30f, 1e30f), std::sqrt(2.0f) * 1e30f);
  // Beyond FLT_MAX: saturated.
  EXPECT_EQ(distance(s.get(), -FLT_MAX, 0.0f, 0.0f), FLT_MAX);
  EXPECT_EQ(distance(s.get(), FLT_MAX, FLT_MAX, -FLT_MAX), FLT_MAX);
  // Inside the grid, as before: trilinear between exact samples.
  EXPECT_NEAR(distance(s.get(), 0.4f, 0.0f, 0.0f), 0.15f, 1e-6f);
}

// Issue #16: the whole surface was walked before the samples near the domain were kept; a sphere of
// 50 m at 0.02 m spacing was refused as too many lattice points (and smaller ones took seconds).
TEST_F(CApiSdfSolver, ASolidMuchLargerThanTheDomainIsSampledWhereItMeetsIt) {
  const SdfPtr ball = sphere(50.0f, 0.5f);
  const float at[3] = {0.5f, 0.5f, -49.7f};  // its top at z = 0.3 m, nearly flat across the domain
  size_t added = 0;
  ASSERT_EQ(pbf_solver_add_sdf_boundary_particles(solver_.get(), ball.get(), nullptr, at, &added), PBF_OK)
      << pbf_last_error();
  // About one sample per spacing^2 of the cap within a kernel radius (0.04 m) of the domain [0, 1]^3.
  const double area = 1.08 * 1.08 / (0.02 * 0.02);
  EXPECT_GT(double(added), 0.8 * area);
  EXPECT_LT(double(added), 1.6 * area);
}

}  // namespace
