// Surface samples for boundary particles: on the surface, never closer than
// 0.8 spacings, covering it about one per spacing^2, placed by the
// transform, and the same whatever the thread count.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "geometry/signed_distance_field.h"

namespace {

using pbf::Vec3;

const float kIdentity[4] = {0.0f, 0.0f, 0.0f, 1.0f};

TEST(SampleSurface, ASphereIsCoveredEvenlyOnItsSurface) {
  const float r = 0.3f, spacing = 0.025f;
  const pbf::SignedDistanceField f = pbf::sphere_sdf(r, 0.0125f);
  const Vec3 centre{1.0f, 2.0f, 3.0f};
  const std::vector<Vec3> s = pbf::sample_surface(f.view(), pbf::rigid_transform(kIdentity, centre), spacing);
  // A sphere of radius 12 spacings: area 4 pi r^2 / spacing^2 = 1810 spacing^2; points at least 0.8
  // spacings apart cover at most about 1.5 per spacing^2 and, spread as here, at least 0.8.
  const double area = 4.0 * M_PI * r * r / (spacing * spacing);
  EXPECT_GT(double(s.size()), 0.8 * area);
  EXPECT_LT(double(s.size()), 1.6 * area);
  double nearest_sum = 0.0;
  for (size_t i = 0; i < s.size(); ++i) {
    ASSERT_NEAR(pbf::length(s[i] - centre), r, 0.06f * spacing) << "sample " << i << " is on the surface";
    float nearest = 1e9f;
    for (size_t j = 0; j < s.size(); ++j)
      if (j != i) nearest = std::fmin(nearest, pbf::length(s[j] - s[i]));
    ASSERT_GE(nearest, 0.8f * spacing * 0.999f) << "sample " << i;
    nearest_sum += nearest;
  }
  const double mean_nearest = nearest_sum / double(s.size());
  EXPECT_LT(mean_nearest, 1.2 * spacing) << "no large gaps on average";
  // Every direction is covered: no point of the sphere is farther than 1.5 spacings from a sample.
  for (int k = 0; k < 200; ++k) {
    const double z = -1.0 + 2.0 * (k + 0.5) / 200.0, phi = k * 2.399963;
    const double rho = std::sqrt(1.0 - z * z);
    const Vec3 p = centre + Vec3{float(r * rho * std::cos(phi)), float(r * rho * std::sin(phi)), float(r * z)};
    float nearest = 1e9f;
    for (const Vec3& q : s) nearest = std::fmin(nearest, pbf::length(q - p));
    EXPECT_LT(nearest, 1.5f * spacing) << "direction " << k;
  }
}

TEST(SampleSurface, TheSamplesAreTheSameWithOneThreadOrMany) {
  const pbf::SignedDistanceField f = pbf::box_sdf(Vec3{0.2f, 0.1f, 0.3f}, 0.02f);
  const float q[4] = {0.0f, std::sin(0.3f), 0.0f, std::cos(0.3f)};
  const pbf::RigidTransform at = pbf::rigid_transform(q, Vec3{0.5f, 0.5f, 0.5f});
  std::vector<Vec3> one;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    one = pbf::sample_surface(f.view(), at, 0.03f);
  }
  const std::vector<Vec3> many = pbf::sample_surface(f.view(), at, 0.03f);
  ASSERT_EQ(one.size(), many.size());
  ASSERT_GT(one.size(), 100u);
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].x, many[i].x);
    EXPECT_EQ(one[i].y, many[i].y);
    EXPECT_EQ(one[i].z, many[i].z);
  }
}

TEST(SampleSurface, ABadSpacingIsRefused) {
  const pbf::SignedDistanceField f = pbf::sphere_sdf(0.1f, 0.01f);
  const pbf::RigidTransform at = pbf::rigid_transform(kIdentity, Vec3{0, 0, 0});
  for (float bad : {0.0f, -1.0f, NAN, INFINITY}) EXPECT_THROW(pbf::sample_surface(f.view(), at, bad), pbf::Error);
  EXPECT_THROW(pbf::sample_surface(f.view(), at, 1e-6f), pbf::Error) << "too many lattice points";
}


TEST(SampleSurface, SamplesCanBeSetBackInsideTheSolid) {
  const float r = 0.3f, spacing = 0.025f, depth = 0.016f;
  const pbf::SignedDistanceField f = pbf::sphere_sdf(r, 0.0125f);
  const std::vector<Vec3> s =
      pbf::sample_surface(f.view(), pbf::rigid_transform(kIdentity, Vec3{0, 0, 0}), spacing, depth);
  ASSERT_GT(s.size(), 500u);
  for (const Vec3& p : s) ASSERT_NEAR(pbf::length(p), r - depth, 0.06f * spacing);
  EXPECT_THROW(pbf::sample_surface(f.view(), pbf::rigid_transform(kIdentity, Vec3{0, 0, 0}), spacing, -0.01f),
               pbf::Error);
}

}  // namespace
