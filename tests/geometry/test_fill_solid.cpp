// Filling solids with particles: the count matches the solid's volume, the
// placement moves the particles with it, the domain clips them, and a
// capacity is never exceeded.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "geometry/signed_distance_field.h"
#include "geometry/test_meshes.h"

namespace {

using pbf::Vec3;

const float kIdentity[4] = {0.0f, 0.0f, 0.0f, 1.0f};

TEST(FillSolid, ASphereGetsItsVolumeInParticles) {
  const float r = 0.2f, spacing = 0.01f;
  const pbf::SignedDistanceField f = pbf::sphere_sdf(r, 0.01f);
  const pbf::RigidTransform at = pbf::rigid_transform(kIdentity, Vec3{0.5f, 0.5f, 0.5f});
  const std::vector<float> points = pbf::fill_solid(f.view(), at, spacing, Vec3{0, 0, 0}, Vec3{1, 1, 1});
  const double volume = double(points.size() / 3) * spacing * spacing * spacing;
  const double exact = 4.0 / 3.0 * M_PI * r * r * r;
  EXPECT_NEAR(volume, exact, 0.02 * exact);  // a lattice of 40 points across: within 2 %
  for (size_t i = 0; i < points.size(); i += 3) {
    const Vec3 p{points[i] - 0.5f, points[i + 1] - 0.5f, points[i + 2] - 0.5f};
    ASSERT_LT(pbf::length(p), r + 1e-3f);
    // On the lattice of the domain's corner: (i + 1/2) spacing.
    const float cells = points[i] / spacing - 0.5f;
    ASSERT_NEAR(cells, std::round(cells), 1e-3f);
  }
}

TEST(FillSolid, AMeshedSphereFillsLikeTheAnalyticOne) {
  pbf::SdfOptions o;
  o.cell = 0.02f;
  o.band = 0.06f;
  const pbf::SignedDistanceField meshed = pbf::build_sdf(pbf_test::icosphere(4, 0.2f), o);
  const pbf::SignedDistanceField exact = pbf::sphere_sdf(0.2f, 0.02f);
  const pbf::RigidTransform at = pbf::rigid_transform(kIdentity, Vec3{0.5f, 0.5f, 0.5f});
  const size_t a = pbf::fill_solid(meshed.view(), at, 0.01f, Vec3{0, 0, 0}, Vec3{1, 1, 1}).size();
  const size_t b = pbf::fill_solid(exact.view(), at, 0.01f, Vec3{0, 0, 0}, Vec3{1, 1, 1}).size();
  EXPECT_NEAR(double(a), double(b), 0.02 * double(b));
}

TEST(FillSolid, ARotatedBoxIsFilledWhereItIsPlaced) {
  // A 0.4 x 0.2 x 0.2 box turned a quarter about z becomes 0.2 x 0.4 x 0.2.
  const pbf::SignedDistanceField box = pbf::box_sdf(Vec3{0.2f, 0.1f, 0.1f}, 0.01f);
  const float s = std::sqrt(0.5f);
  const float quarter[4] = {0.0f, 0.0f, s, s};
  const pbf::RigidTransform at = pbf::rigid_transform(quarter, Vec3{0.5f, 0.5f, 0.5f});
  const std::vector<float> points = pbf::fill_solid(box.view(), at, 0.02f, Vec3{0, 0, 0}, Vec3{1, 1, 1});
  EXPECT_EQ(points.size() / 3, 10u * 20u * 10u);
  for (size_t i = 0; i < points.size(); i += 3) {
    ASSERT_LT(std::fabs(points[i] - 0.5f), 0.1f);
    ASSERT_LT(std::fabs(points[i + 1] - 0.5f), 0.2f);
  }
}

TEST(FillSolid, TheDomainClipsAndTheCapacityIsKept) {
  const pbf::SignedDistanceField box = pbf::box_sdf(Vec3{0.2f, 0.2f, 0.2f}, 0.02f);
  const pbf::RigidTransform at = pbf::rigid_transform(kIdentity, Vec3{0.0f, 0.0f, 0.0f});
  // Only the octant x, y, z > 0 lies in the domain.
  const std::vector<float> octant = pbf::fill_solid(box.view(), at, 0.02f, Vec3{0, 0, 0}, Vec3{1, 1, 1});
  EXPECT_EQ(octant.size() / 3, 10u * 10u * 10u);
  try {
    pbf::fill_solid(box.view(), at, 0.02f, Vec3{0, 0, 0}, Vec3{1, 1, 1}, 999);
    ADD_FAILURE() << "filled past the capacity";
  } catch (const pbf::Error& e) {
    EXPECT_EQ(e.status(), pbf::Status::CapacityExceeded);
    EXPECT_NE(std::string(e.what()).find("1000"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(pbf::fill_solid(box.view(), at, 0.02f, Vec3{5, 5, 5}, Vec3{6, 6, 6}).empty());
  EXPECT_THROW(pbf::fill_solid(box.view(), at, 1e-5f, Vec3{0, 0, 0}, Vec3{1, 1, 1}), pbf::Error);
}

// A predicate leaves points out before they are counted: the points kept are
// those of the whole fill that it keeps, in the same order, and the capacity
// is measured against them alone.
TEST(FillSolid, APredicateLeavesPointsOutBeforeTheCapacityIsCounted) {
  const pbf::SignedDistanceField box = pbf::box_sdf(Vec3{0.2f, 0.2f, 0.2f}, 0.02f);
  const pbf::RigidTransform at = pbf::rigid_transform(kIdentity, Vec3{0.5f, 0.5f, 0.5f});
  const auto low_corner = [](Vec3 p) { return p.x < 0.4f && p.y < 0.4f && p.z < 0.4f; };  // 5^3 of 20^3
  const std::vector<float> all = pbf::fill_solid(box.view(), at, 0.02f, Vec3{0, 0, 0}, Vec3{1, 1, 1});
  std::vector<float> expected;
  for (size_t i = 0; i < all.size(); i += 3)
    if (low_corner(Vec3{all[i], all[i + 1], all[i + 2]})) expected.insert(expected.end(), &all[i], &all[i] + 3);
  ASSERT_EQ(expected.size() / 3, 125u);
  EXPECT_EQ(pbf::fill_solid(box.view(), at, 0.02f, Vec3{0, 0, 0}, Vec3{1, 1, 1}, 125, low_corner), expected);
  try {
    pbf::fill_solid(box.view(), at, 0.02f, Vec3{0, 0, 0}, Vec3{1, 1, 1}, 124, low_corner);
    ADD_FAILURE() << "filled past the capacity";
  } catch (const pbf::Error& e) {
    EXPECT_EQ(e.status(), pbf::Status::CapacityExceeded);
    EXPECT_NE(std::string(e.what()).find("holds 125 "), std::string::npos) << e.what();
  }
}

}  // namespace
