// The solver's frame (core/local_frame.h): where its origin lies for a
// domain, and the translations of points and planes between the world and it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/local_frame.h"

namespace {

using pbf::LocalFrame;
using pbf::Plane;
using pbf::Vec3;

TEST(LocalFrame, ADomainNearTheWorldsOriginKeepsTheWorldsCoordinates) {
  // The reference scene's box, one centred on the origin, one off it by less than its size.
  for (const auto& box : {std::pair<Vec3, Vec3>{{0, 0, 0}, {4, 3, 1.5f}}, {{-2, -2, -2}, {2, 2, 2}},
                          {{-1, -0.5f, 0}, {3, 0.5f, 0.25f}}}) {
    const LocalFrame f{pbf::frame_origin(box.first, box.second)};
    EXPECT_TRUE(f.is_world());
    const Vec3 negative_zero{-0.0f, 1.0f, 2.0f};
    EXPECT_TRUE(std::signbit(f.to_world(f.to_local(negative_zero)).x)) << "nothing moves, not even a zero's sign";
  }
}

TEST(LocalFrame, AFarDomainLiesWithinTwoAndAHalfExtentsOfItsOriginAndItsCornersMoveExactly) {
  const float extents[] = {0.3f, 1.0f, 4.0f, 37.5f};
  const float places[] = {5.0f, -12.0f, 100.0f, 1000.3f, -10000.0f, 123456.0f, 3.0e6f};
  for (float e : extents)
    for (float at : places) {
      const Vec3 lo{at, 0.5f * at, -at}, hi{at + e, 0.5f * at + 2.0f * e, -at + 0.5f * e};
      const LocalFrame f{pbf::frame_origin(lo, hi)};
      const float l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z}, o[3] = {f.origin.x, f.origin.y,
                                                                                 f.origin.z};
      for (int a = 0; a < 3; ++a) {
        const double extent = double(h[a]) - l[a];
        for (float corner : {l[a], h[a]}) {
          EXPECT_LT(std::fabs(double(corner) - o[a]), 2.5 * extent) << "axis " << a << ", domain at " << at;
          EXPECT_EQ((corner - o[a]) + o[a], corner) << "axis " << a << ", domain at " << at;
        }
        const double p = std::exp2(std::ceil(std::log2(extent)));
        EXPECT_EQ(std::fmod(double(o[a]), p), 0.0) << "the origin is a multiple of " << p;
      }
    }
}

TEST(LocalFrame, ADomainMovedByAMultipleOfItsPowerOfTwoLiesInTheFrameWhereItLayBefore) {
  const Vec3 lo{0, 0, 0}, hi{4, 3, 1.5f};  // powers of two 4, 4 and 2
  const Vec3 by{1024.0f, -4096.0f, 2.0e4f};
  const LocalFrame moved{pbf::frame_origin(lo + by, hi + by)};
  EXPECT_EQ(moved.origin.x, by.x);
  EXPECT_EQ(moved.origin.y, by.y);
  EXPECT_EQ(moved.origin.z, by.z);
  const Vec3 p = moved.to_local(Vec3{1.5f, 2.25f, 0.75f} + by);
  EXPECT_EQ(p.x, 1.5f);
  EXPECT_EQ(p.y, 2.25f);
  EXPECT_EQ(p.z, 0.75f);
}

TEST(LocalFrame, APlaneHoldsTheSamePointsInTheFrame) {
  const LocalFrame f{Vec3{1024.0f, -512.0f, 2048.0f}};
  const float r = 1.0f / std::sqrt(3.0f);
  const Plane world{Vec3{r, r, -r}, 1500.0f};
  const Plane local = f.to_local(world);
  // A point of the world near the plane is as far from it in the frame (to the frame's round-off).
  const Vec3 x{1030.0f, -600.5f, 2000.25f};
  const double in_world = double(r) * x.x + double(r) * x.y - double(r) * x.z + world.offset;
  const Vec3 y = f.to_local(x);
  const double in_frame = double(r) * y.x + double(r) * y.y - double(r) * y.z + local.offset;
  EXPECT_NEAR(in_frame, in_world, 1e-4);
  EXPECT_NEAR(f.to_world(local).offset, world.offset, 2e-4);
  // An axis plane at a float moves exactly.
  const Plane floor{Vec3{0, 1, 0}, 512.25f};
  EXPECT_EQ(f.to_local(floor).offset, 0.25f);
  EXPECT_EQ(f.to_world(f.to_local(floor)).offset, 512.25f);
}

TEST(LocalFrame, ArraysOfPointsMoveBothWays) {
  const LocalFrame f{Vec3{8.0f, 16.0f, -32.0f}};
  std::vector<float> xyz{9.5f, 17.25f, -31.0f, 8.0f, 16.0f, -32.0f};
  f.to_local(xyz.data(), 2);
  EXPECT_EQ(xyz, (std::vector<float>{1.5f, 1.25f, 1.0f, 0.0f, 0.0f, 0.0f}));
  f.to_world(xyz.data(), 2);
  EXPECT_EQ(xyz, (std::vector<float>{9.5f, 17.25f, -31.0f, 8.0f, 16.0f, -32.0f}));
}

}  // namespace
