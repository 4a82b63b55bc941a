// Signed distance fields from meshes against the exact distance of the
// shapes they approximate, on open meshes, and from analytic shapes.
#include <gtest/gtest.h>

#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/error.h"
#include "geometry/mesh_loader.h"
#include "geometry/signed_distance_field.h"
#include "geometry/test_meshes.h"

namespace {

using pbf::SignedDistanceField;
using pbf::Vec3;

Vec3 position(const SignedDistanceField& f, int i, int j, int k) {
  return Vec3{f.origin.x + i * f.cell, f.origin.y + j * f.cell, f.origin.z + k * f.cell};
}

float at(const SignedDistanceField& f, int i, int j, int k) {
  return f.values[i + size_t(f.nx) * (j + size_t(f.ny) * k)];
}

float box_distance(Vec3 h, Vec3 p) {
  const float q[3] = {std::fabs(p.x) - h.x, std::fabs(p.y) - h.y, std::fabs(p.z) - h.z};
  float outside = 0.0f;
  for (float v : q) outside += std::max(v, 0.0f) * std::max(v, 0.0f);
  return std::sqrt(outside) + std::min(std::max(q[0], std::max(q[1], q[2])), 0.0f);
}

pbf::SdfOptions options(float cell, float band = 0.0f) {
  pbf::SdfOptions o;
  o.cell = cell;
  o.band = band;
  return o;
}

TEST(SignedDistanceField, AMeshedSphereMatchesTheSphereAtEverySample) {
  const float r = 0.5f, cell = 0.05f;
  const SignedDistanceField f = pbf::build_sdf(pbf_test::icosphere(4, r), options(cell));
  ASSERT_GE(f.nx, 20 + 8);
  // Samples hold the exact distance to the polyhedron, which lies within
  // its sagitta (under 1 mm at 5120 triangles) inside the sphere.
  const float tolerance = 1.2e-3f;
  float worst = 0.0f;
  for (int k = 0; k < f.nz; ++k)
    for (int j = 0; j < f.ny; ++j)
      for (int i = 0; i < f.nx; ++i) {
        const float exact = pbf::length(position(f, i, j, k)) - r;
        worst = std::max(worst, std::fabs(at(f, i, j, k) - exact));
      }
  EXPECT_LT(worst, tolerance);
}

TEST(SignedDistanceField, BetweenSamplesTheFieldIsWithinACellFractionOfTheSphere) {
  const float r = 0.5f, cell = 0.05f;
  const SignedDistanceField f = pbf::build_sdf(pbf_test::icosphere(4, r), options(cell));
  std::mt19937 random(7);
  std::uniform_real_distribution<float> u(-0.7f, 0.7f);
  // Trilinear interpolation of |p| - r errs by about cell^2 / (8 |p|) where
  // the field curves; 0.1 cell bounds it away from the centre.
  for (int n = 0; n < 2000; ++n) {
    const Vec3 p{u(random), u(random), u(random)};
    if (pbf::length(p) < 0.2f) continue;
    EXPECT_NEAR(pbf::sdf_sample(f.view(), p, nullptr), pbf::length(p) - r, 0.1f * cell);
  }
}

TEST(SignedDistanceField, AMeshedBoxMatchesTheBoxExactly) {
  // The box's faces lie on sample planes and its edges on sample lines: the
  // rays that decide the sign must not be fooled by them.
  const Vec3 h{0.3f, 0.2f, 0.1f};
  const float cell = 0.025f;
  const SignedDistanceField f = pbf::build_sdf(pbf_test::box_mesh(h.x, h.y, h.z), options(cell));
  int wrong_sign = 0;
  for (int k = 0; k < f.nz; ++k)
    for (int j = 0; j < f.ny; ++j)
      for (int i = 0; i < f.nx; ++i) {
        const float exact = box_distance(h, position(f, i, j, k));
        const float got = at(f, i, j, k);
        EXPECT_NEAR(std::fabs(got), std::fabs(exact), 1e-5f);
        if (std::fabs(exact) > 1e-5f && (got < 0.0f) != (exact < 0.0f)) ++wrong_sign;
      }
  EXPECT_EQ(wrong_sign, 0);
}

TEST(SignedDistanceField, ANarrowBandIsExactInsideItAndClampedBeyond) {
  const float r = 0.5f, cell = 0.05f, band = 3 * cell;
  const pbf::TriangleMesh mesh = pbf_test::icosphere(4, r);
  const SignedDistanceField exact = pbf::build_sdf(mesh, options(cell));
  const SignedDistanceField banded = pbf::build_sdf(mesh, options(cell, band));
  ASSERT_EQ(exact.values.size(), banded.values.size());
  for (size_t n = 0; n < exact.values.size(); ++n) {
    const float e = exact.values[n];
    const float expected = std::fabs(e) < band ? e : std::copysign(band, e);
    // Within float rounding: at exactly the band's distance either form may be stored.
    ASSERT_NEAR(banded.values[n], expected, 1e-6f) << "sample " << n;
  }
}

TEST(SignedDistanceField, TheResultDoesNotDependOnTheThreadCount) {
  const pbf::TriangleMesh mesh = pbf_test::torus(0.4f, 0.1f, 48, 24);
  SignedDistanceField one, many;
  {
    tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 1);
    one = pbf::build_sdf(mesh, options(0.02f, 0.06f));
  }
  {
    tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 4);
    many = pbf::build_sdf(mesh, options(0.02f, 0.06f));
  }
  EXPECT_EQ(one.values, many.values);
}

TEST(SignedDistanceField, AnOpenBoxKeepsItsInsideWhereRaysDoNotLeaveThroughTheHole) {
  // The box without its +z face: an open mesh. Inside samples away from the
  // opening still come out inside, outside samples outside.
  const Vec3 h{0.3f, 0.3f, 0.3f};
  pbf::TriangleMesh open = pbf_test::box_mesh(h.x, h.y, h.z);
  open.triangles.erase(open.triangles.begin() + 2, open.triangles.begin() + 4);  // the +z face
  ASSERT_EQ(pbf::boundary_edge_count(open), 4u);
  const SignedDistanceField f = pbf::build_sdf(open, options(0.05f));
  for (int k = 0; k < f.nz; ++k)
    for (int j = 0; j < f.ny; ++j)
      for (int i = 0; i < f.nx; ++i) {
        const Vec3 p = position(f, i, j, k);
        const float exact = box_distance(h, p);
        if (exact < -0.06f && p.z < 0.15f) EXPECT_LT(at(f, i, j, k), 0.0f) << p.x << " " << p.y << " " << p.z;
        if (exact > 0.01f) EXPECT_GT(at(f, i, j, k), 0.0f) << p.x << " " << p.y << " " << p.z;
      }
}

TEST(SignedDistanceField, TheSphereWithAHoleHasItsInsideInside) {
  const std::string models = PBF_TEST_MODELS_DIR;
  if (models.empty()) GTEST_SKIP() << "assimp-testmodels is not installed";
  const pbf::TriangleMesh mesh = pbf::load_mesh(models + "/STL/sphereWithHole.stl");
  ASSERT_GT(pbf::boundary_edge_count(mesh), 0u) << "the model should be open";
  const pbf::Bounds b = pbf::mesh_bounds(mesh);
  const Vec3 centre = (b.lo + b.hi) * 0.5f;
  const float radius = 0.5f * std::min({b.hi.x - b.lo.x, b.hi.y - b.lo.y, b.hi.z - b.lo.z});
  const float cell = radius / 16.0f;
  const SignedDistanceField f = pbf::build_sdf(mesh, options(cell));
  // Judged against the sphere the mesh nearly is, away from its surface.
  size_t inside = 0, outside = 0, wrong = 0;
  for (int k = 0; k < f.nz; ++k)
    for (int j = 0; j < f.ny; ++j)
      for (int i = 0; i < f.nx; ++i) {
        const float d = pbf::length(position(f, i, j, k) - centre) - radius;
        if (std::fabs(d) < 0.15f * radius) continue;
        (d < 0.0f ? inside : outside) += 1;
        if ((at(f, i, j, k) < 0.0f) != (d < 0.0f)) ++wrong;
      }
  EXPECT_GT(inside, 1000u);
  EXPECT_GT(outside, 1000u);
  EXPECT_EQ(wrong, 0u) << "of " << inside + outside;
  EXPECT_LT(pbf::sdf_sample(f.view(), centre, nullptr), -0.5f * radius);
}

TEST(SignedDistanceField, RealModelsEncloseTheVolumeOfTheirMeshes) {
  // Wuson is stored in pieces (412 open edges) and the sphere has a hole;
  // at 64 samples across, the field's inside matches the divergence
  // theorem's volume within 1 %.
  const std::string models = PBF_TEST_MODELS_DIR;
  if (models.empty()) GTEST_SKIP() << "assimp-testmodels is not installed";
  for (const char* name : {"PLY/Wuson.ply", "STL/sphereWithHole.stl"}) {
    const pbf::TriangleMesh mesh = pbf::load_mesh(models + "/" + name);
    const pbf::Bounds b = pbf::mesh_bounds(mesh);
    const float extent = std::max({b.hi.x - b.lo.x, b.hi.y - b.lo.y, b.hi.z - b.lo.z});
    const SignedDistanceField f = pbf::build_sdf(mesh, options(extent / 64.0f, 3.0f * extent / 64.0f));
    const double expected = pbf::mesh_volume(mesh);
    EXPECT_NEAR(pbf::sdf_volume(f.view()), expected, 0.01 * expected) << name;
  }
}

TEST(SignedDistanceField, BadOptionsAreRefusedNamingTheOption) {
  const pbf::TriangleMesh mesh = pbf_test::box_mesh(1.0f, 1.0f, 1.0f);
  auto refused = [&](const pbf::SdfOptions& o, const std::string& word) {
    try {
      pbf::build_sdf(mesh, o);
      ADD_FAILURE() << "accepted";
    } catch (const pbf::Error& e) {
      EXPECT_EQ(e.status(), pbf::Status::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  };
  refused(options(0.0f), "cell");
  refused(options(-1.0f), "cell");
  refused(options(NAN), "cell");
  refused(options(1e-4f), "cell");        // 20000^3 samples
  refused(options(0.1f, 0.1f), "band");   // under two cells
  refused(options(0.1f, -1.0f), "band");
  pbf::SdfOptions o = options(0.1f);
  o.margin = 0;
  refused(o, "margin");
  pbf::TriangleMesh broken = mesh;
  broken.triangles[0][1] = 99;
  EXPECT_THROW(pbf::build_sdf(broken, options(0.1f)), pbf::Error);
  EXPECT_THROW(pbf::build_sdf(pbf::TriangleMesh{}, options(0.1f)), pbf::Error);
}

TEST(AnalyticSdf, BoxAndSphereAreExactAndCentred) {
  const SignedDistanceField box = pbf::box_sdf(Vec3{0.3f, 0.2f, 0.1f}, 0.02f, 3);
  for (int k = 0; k < box.nz; k += 3)
    for (int j = 0; j < box.ny; j += 3)
      for (int i = 0; i < box.nx; i += 3)
        ASSERT_NEAR(at(box, i, j, k), box_distance(Vec3{0.3f, 0.2f, 0.1f}, position(box, i, j, k)), 1e-6f);
  EXPECT_NEAR(box.origin.x + 0.5f * (box.nx - 1) * box.cell, 0.0f, 1e-6f);
  EXPECT_LE(box.origin.x, -0.3f - 3 * 0.02f + 1e-6f);

  const SignedDistanceField sphere = pbf::sphere_sdf(0.25f, 0.01f);
  EXPECT_NEAR(pbf::sdf_sample(sphere.view(), Vec3{0.1f, 0, 0}, nullptr), -0.15f, 1e-3f);
  EXPECT_NEAR(pbf::sdf_sample(sphere.view(), Vec3{0.25f, 0, 0}, nullptr), 0.0f, 1e-3f);
  EXPECT_THROW(pbf::sphere_sdf(0.0f, 0.01f), pbf::Error);
  EXPECT_THROW(pbf::sphere_sdf(1.0f, 1e-5f), pbf::Error);
  EXPECT_THROW(pbf::box_sdf(Vec3{1.0f, -1.0f, 1.0f}, 0.1f), pbf::Error);
}

TEST(AnalyticSdf, TheVolumeOfASphereIsWithinOnePercent) {
  const double exact = 4.0 / 3.0 * M_PI * 0.125;
  EXPECT_NEAR(pbf::sdf_volume(pbf::sphere_sdf(0.5f, 0.05f).view()), exact, 0.01 * exact);
  EXPECT_NEAR(pbf::sdf_volume(pbf::box_sdf(Vec3{0.3f, 0.2f, 0.1f}, 0.013f).view()), 0.6 * 0.4 * 0.2, 0.01 * 0.024);
}

}  // namespace
