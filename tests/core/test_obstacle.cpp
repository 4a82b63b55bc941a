// Unit tests of signed distance grids (core/sdf_grid.h) and of a particle's
// collision with a solid obstacle (core/obstacle.h): interpolation against
// the exact distance, pushing out along the normal, friction, rotated and
// fast-moving solids; and the push sink that also sums what it is handed
// (TalliedPush).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/motion.h"
#include "core/obstacle.h"
#include "physics/obstacle_fields.h"

namespace {

using pbf::Obstacle;
using pbf::RigidTransform;
using pbf::SdfGridView;
using pbf::Vec3;
using pbf_test::SampledField;

SdfGridView view_of(const SampledField& f) {
  return SdfGridView{f.values.data(),
                     int32_t(f.dims[0]),
                     int32_t(f.dims[1]),
                     int32_t(f.dims[2]),
                     Vec3{f.origin[0], f.origin[1], f.origin[2]},
                     f.cell};
}

RigidTransform identity_at(Vec3 t) { return RigidTransform{{1, 0, 0, 0, 1, 0, 0, 0, 1}, t}; }

Obstacle still(const SampledField& f, Vec3 at) {
  return Obstacle{view_of(f), {identity_at(at), identity_at(at)}};
}

// A slab |y| <= half_thickness, 1 m square in x and z, sampled at 1 cm.
SampledField slab(float half_thickness) {
  const float c[3] = {0, 0, 0}, h[3] = {0.5f, half_thickness, 0.5f};
  const float lo[3] = {-0.6f, -half_thickness - 0.1f, -0.6f}, hi[3] = {0.6f, half_thickness + 0.1f, 0.6f};
  return pbf_test::sample_field(lo, hi, 0.01f,
                                [&](float x, float y, float z) { return pbf_test::box_distance(c, h, x, y, z); });
}

constexpr float kRadius = 0.0125f;

TEST(SdfGrid, TrilinearSamplesOfASphereMatchItsDistanceAndNormal) {
  const float r = 0.3f, cell = 0.02f;
  const SampledField f = pbf_test::sphere_field(r, cell, 0.1f);
  const SdfGridView g = view_of(f);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-0.39f, 0.39f);
  int checked = 0;
  for (int k = 0; k < 2000; ++k) {
    const Vec3 p{u(rng), u(rng), u(rng)};
    const float d = pbf::length(p);
    if (d < 0.1f) continue;
    Vec3 grad;
    const float value = pbf::sdf_sample(g, p, &grad);
    // Interpolating |x| errs by at most 3/8 cell^2 times its curvature 1/|x|.
    EXPECT_NEAR(value, d - r, 0.375f * cell * cell / d + 1e-5f) << p.x << " " << p.y << " " << p.z;
    EXPECT_GT(pbf::dot(grad, p) / (pbf::length(grad) * d), 0.99f) << "the gradient points away from the centre";
    ++checked;
  }
  EXPECT_GT(checked, 1500);
}

TEST(SdfGrid, OutsideTheGridTheDistanceGrowsAwayFromIt) {
  const SampledField f = pbf_test::sphere_field(0.3f, 0.02f, 0.1f);
  const SdfGridView g = view_of(f);
  Vec3 grad;
  const float edge = pbf::sdf_sample(g, Vec3{0.4f, 0.0f, 0.0f}, nullptr);
  const float far = pbf::sdf_sample(g, Vec3{1.4f, 0.0f, 0.0f}, &grad);
  EXPECT_NEAR(far, edge + 1.0f, 1e-4f);
  EXPECT_NEAR(grad.x, 1.0f, 1e-6f);
  // Never below the true distance: the particles stay outside.
  EXPECT_GE(pbf::sdf_sample(g, Vec3{1.0f, 1.0f, 1.0f}, nullptr), std::sqrt(3.0f) - 0.3f - 1e-4f);
}

TEST(ObstacleCollision, AParticleInsideASphereGoesOutAlongTheNormal) {
  const SampledField f = pbf_test::sphere_field(0.3f, 0.01f, 0.05f);
  const Vec3 centre{1.0f, 2.0f, 3.0f};
  const Obstacle o = still(f, centre);
  const Vec3 p = centre + Vec3{0.1f, 0.2f, -0.05f};
  const Vec3 q = pbf::collide_obstacle(o, kRadius, 0.0f, p, p);
  const Vec3 d = q - centre;
  EXPECT_NEAR(pbf::length(d), 0.3f + kRadius, 1e-3f) << "one particle radius outside the surface";
  const Vec3 dir = (p - centre) * (1.0f / pbf::length(p - centre));
  EXPECT_GT(pbf::dot(d, dir) / pbf::length(d), 0.999f) << "along the normal";
}

TEST(ObstacleCollision, AParticleClearOfTheSolidIsLeftExactlyWhereItIs) {
  const SampledField f = pbf_test::sphere_field(0.3f, 0.01f, 0.05f);
  const Obstacle o = still(f, Vec3{0, 0, 0});
  const Vec3 start{0.33f, 0.0f, 0.0f}, p{0.34f, 0.01f, 0.0f};
  const Vec3 q = pbf::collide_obstacle(o, kRadius, 1.0f, p, start);
  EXPECT_EQ(q.x, p.x);
  EXPECT_EQ(q.y, p.y);
  EXPECT_EQ(q.z, p.z);
}

TEST(ObstacleCollision, FrictionHoldsBackSlidingAndZeroFrictionDoesNot) {
  const SampledField f = slab(0.05f);
  const Obstacle floor = still(f, Vec3{0.0f, -0.05f, 0.0f});  // top face at y = 0
  const Vec3 start{0.0f, kRadius, 0.0f}, moved{0.1f, -0.01f, 0.0f};
  const Vec3 slides = pbf::collide_obstacle(floor, kRadius, 0.0f, moved, start);
  EXPECT_NEAR(slides.y, kRadius, 2e-4f);
  EXPECT_NEAR(slides.x, 0.1f, 1e-5f) << "no friction: the tangential motion stays";
  // Friction 10 x the depth pushed out (about 2.25 cm) exceeds the 10 cm slide.
  const Vec3 held = pbf::collide_obstacle(floor, kRadius, 10.0f, moved, start);
  EXPECT_NEAR(held.y, kRadius, 2e-4f);
  EXPECT_NEAR(held.x, 0.0f, 1e-5f);
  // A little friction removes friction x depth of the slide.
  const Vec3 some = pbf::collide_obstacle(floor, kRadius, 1.0f, moved, start);
  EXPECT_NEAR(some.x, 0.1f - (kRadius + 0.01f), 3e-4f);
}

// collide() slides a particle along each obstacle with that obstacle's own
// friction (Obstacle::friction, its material or the parameters'), whatever
// the friction of the planes (the motion constants').
TEST(ObstacleCollision, EachObstacleHoldsBackSlidingWithItsOwnFriction) {
  const SampledField f = slab(0.05f);
  pbf::MotionConstants c{};
  c.particle_radius = kRadius;
  c.box_min = Vec3{-10.0f, -10.0f, -10.0f};
  c.box_max = Vec3{10.0f, 10.0f, 10.0f};
  const Vec3 start{0.0f, kRadius, 0.0f}, moved{0.1f, -0.01f, 0.0f};
  for (const float planes : {0.0f, 10.0f}) {
    c.friction = planes;
    Obstacle floor = still(f, Vec3{0.0f, -0.05f, 0.0f});  // top face at y = 0
    floor.friction = 0.0f;
    EXPECT_NEAR(pbf::collide(c, nullptr, 0, &floor, 1, moved, start).x, 0.1f, 1e-5f) << "slides, planes " << planes;
    floor.friction = 10.0f;
    EXPECT_NEAR(pbf::collide(c, nullptr, 0, &floor, 1, moved, start).x, 0.0f, 1e-5f) << "held, planes " << planes;
    floor.friction = 1.0f;
    EXPECT_NEAR(pbf::collide(c, nullptr, 0, &floor, 1, moved, start).x, 0.1f - (kRadius + 0.01f), 3e-4f);
  }
}

TEST(ObstacleCollision, ARotatedSolidCollidesInItsRotatedFrame) {
  // A slab thin in y, turned 90 degrees about z: in the world it is thin in x.
  const SampledField f = slab(0.05f);
  const RigidTransform turned{{0, -1, 0, 1, 0, 0, 0, 0, 1}, Vec3{0, 0, 0}};
  const Obstacle o{view_of(f), {turned, turned}};
  const Vec3 p{0.02f, 0.3f, 0.1f};
  const Vec3 q = pbf::collide_obstacle(o, kRadius, 0.0f, p, p);
  EXPECT_NEAR(q.x, 0.05f + kRadius, 3e-4f);
  EXPECT_NEAR(q.y, 0.3f, 1e-5f);
  EXPECT_NEAR(q.z, 0.1f, 1e-5f);
}

TEST(ObstacleCollision, AWallMovingFortyRadiiInOneSubstepCarriesTheParticleInFrontOfIt) {
  // The slab rises from y = 0 to y = 0.5 m in one substep; a particle at
  // rest 0.2 m above it must end on top of it, not be left behind below it.
  const SampledField f = slab(0.05f);
  const Obstacle o{view_of(f), {identity_at(Vec3{0, 0, 0}), identity_at(Vec3{0, 0.5f, 0})}};
  const Vec3 p{0.1f, 0.2f, -0.1f};
  const Vec3 q = pbf::collide_obstacle(o, kRadius, 0.0f, p, p);
  EXPECT_NEAR(q.y, 0.55f + kRadius, 1e-3f);
  EXPECT_NEAR(q.x, 0.1f, 1e-4f);
  EXPECT_NEAR(q.z, -0.1f, 1e-4f);
  // Sliding along the surface of a still solid is not mistaken for crossing it.
  const Obstacle floor = still(f, Vec3{0.0f, -0.05f, 0.0f});
  const Vec3 start{0.0f, kRadius, 0.0f}, along{0.2f, kRadius, 0.0f};
  const Vec3 r = pbf::collide_obstacle(floor, kRadius, 0.0f, along, start);
  EXPECT_NEAR(r.x, along.x, 1e-6f);
  EXPECT_NEAR(r.y, along.y, 1e-6f);
}

// A sink that records what it is handed, as the backends' sinks sum it.
struct RecordingPush {
  static constexpr bool kActive = true;
  std::vector<uint32_t> obstacle;
  std::vector<Vec3> d, at;
  void add(uint32_t k, Vec3 dk, Vec3 a) {
    obstacle.push_back(k);
    d.push_back(dk);
    at.push_back(a);
  }
  void couple(uint32_t k, Vec3 dk, Vec3 a, float w) {
    add(k, dk, a);
    weight.push_back(w);
  }
  bool couples() const { return true; }
  std::vector<float> weight;
};

TEST(TalliedPush, HandsEveryPushOnAndSumsTheDisplacements) {
  RecordingPush inner;
  pbf::TalliedPush<RecordingPush> tallied{inner, Vec3{0.0f, 0.0f, 0.0f}};
  static_assert(pbf::TalliedPush<RecordingPush>::kActive, "active where the inner sink is");
  static_assert(!pbf::TalliedPush<const pbf::NoPush>::kActive, "inactive where the inner sink is");
  tallied.add(2, Vec3{0.5f, -1.0f, 0.25f}, Vec3{1.0f, 2.0f, 3.0f});
  tallied.add(0, Vec3{0.25f, 0.5f, -0.25f}, Vec3{4.0f, 5.0f, 6.0f});
  ASSERT_EQ(inner.obstacle.size(), 2u);
  EXPECT_EQ(inner.obstacle[0], 2u);
  EXPECT_EQ(inner.obstacle[1], 0u);
  EXPECT_EQ(inner.d[1].y, 0.5f);
  EXPECT_EQ(inner.at[0].z, 3.0f);
  EXPECT_EQ(inner.at[1].x, 4.0f);
  EXPECT_EQ(tallied.total.x, 0.75f);
  EXPECT_EQ(tallied.total.y, -0.5f);
  EXPECT_EQ(tallied.total.z, 0.0f);
}

TEST(RecordedPush, KeepsTheLastCollisionPushAndItsObstacleAndHandsEveryPushOn) {
  RecordingPush inner;
  Vec3 d{0.0f, 0.0f, 0.0f};
  uint8_t obstacle = pbf::kNoCollision;
  auto record = pbf::recorded(inner, d, obstacle);
  record.add(3, Vec3{1.0f, 0.0f, 0.0f}, Vec3{0.0f, 0.0f, 0.0f});  // a density constraint's push: not a collision
  EXPECT_EQ(obstacle, pbf::kNoCollision);
  record.couple(5, Vec3{0.0f, 0.25f, 0.0f}, Vec3{1.0f, 0.0f, 0.0f}, 16.0f);
  record.couple(2, Vec3{0.0f, 0.0f, 0.5f}, Vec3{1.0f, 0.0f, 0.0f}, 4.0f);
  EXPECT_EQ(obstacle, 2u);
  EXPECT_EQ(d.z, 0.5f);
  EXPECT_EQ(d.y, 0.0f);
  ASSERT_EQ(inner.obstacle.size(), 3u);
  ASSERT_EQ(inner.weight.size(), 2u);
  EXPECT_EQ(inner.weight[0], 16.0f);
}

TEST(AddedMass, APushAddsItsWeightTimesTheOuterProductOfItsDisplacementAndMoment) {
  // a = (d, at x d) = (0, 2, 0, 0, 0, 2) for d = 2 y through (1, 0, 0); weight 0.25: 0.25 a a^T.
  double added[pbf::kSymmetric6] = {};
  pbf::for_each_added_mass_term(Vec3{0.0f, 2.0f, 0.0f}, Vec3{1.0f, 0.0f, 0.0f}, 0.25f,
                                [&](int e, double value) { added[e] += value; });
  // The upper triangle row by row: (0,0..5) at 0-5, (1,1..5) at 6-10, (2,2..5) 11-14, (3,3..5) 15-17,
  // (4,4..5) 18-19, (5,5) 20.
  for (int e = 0; e < pbf::kSymmetric6; ++e) {
    const bool nonzero = e == 6 || e == 10 || e == 20;  // (1,1), (1,5), (5,5)
    EXPECT_EQ(added[e], nonzero ? 1.0 : 0.0) << e;
  }
}

TEST(CollisionRelief, AParticleGivesBackWhatTheBodysMotionMadeUnneededButNoMoreThanItsPush) {
  // Pushed 2 mm up (out of a body below it); the body then moved.
  const Vec3 d{0.0f, 0.002f, 0.0f}, p{0.1f, 0.2f, 0.0f};
  const pbf::BodyYield still{Vec3{}, Vec3{}, Vec3{0.1f, 0.0f, 0.0f}};
  const auto moved = [](Vec3 shift, Vec3 turn) { return pbf::BodyYield{shift, turn, Vec3{0.1f, 0.0f, 0.0f}}; };
  const auto relief = [&](const pbf::BodyYield& y) { return pbf::collision_yield_relief(d, p, still, y); };
  // Down by 1 mm, away from it: half the push comes back, and its constraint still pushes (one
  // particle's mass along n in the added mass: weight d d^T = n n^T).
  pbf::YieldRelief r = relief(moved(Vec3{0.0f, -0.001f, 0.0f}, Vec3{}));
  EXPECT_NEAR(r.d.y, -0.001f, 1e-9f);
  EXPECT_EQ(r.d.x, 0.0f);
  EXPECT_NEAR(r.weight * r.d.y * r.d.y, 1.0f, 1e-5f);
  // Down by 5 mm: the whole push, not more (the particle does not follow the body down); it has let go.
  r = relief(moved(Vec3{0.0f, -0.005f, 0.0f}, Vec3{}));
  EXPECT_NEAR(r.d.y, -0.002f, 1e-9f);
  EXPECT_EQ(r.weight, 0.0f);
  // Up by 1 mm, into it: 1 mm more. Sideways: nothing.
  r = relief(moved(Vec3{0.0f, 0.001f, 0.0f}, Vec3{}));
  EXPECT_NEAR(r.d.y, 0.001f, 1e-9f);
  r = relief(moved(Vec3{0.003f, 0.0f, 0.0f}, Vec3{}));
  EXPECT_EQ(r.d.y, 0.0f);
  // Turned by 0.01 rad about z at (0.1, 0, 0): the point 0.2 m above the centre moves by -0.002 m along x
  // only, and the particle keeps its push.
  r = relief(moved(Vec3{}, Vec3{0.0f, 0.0f, 0.01f}));
  EXPECT_NEAR(r.d.y, 0.0f, 1e-9f);
  // Turned about z at a centre 0.1 m to its left: its point moves down by 0.001 m: half comes back.
  const pbf::BodyYield from_left{Vec3{}, Vec3{}, Vec3{0.0f, 0.2f, 0.0f}};
  r = pbf::collision_yield_relief(d, p, from_left, pbf::BodyYield{Vec3{}, Vec3{0.0f, 0.0f, -0.01f}, from_left.centre});
  EXPECT_NEAR(r.d.y, -0.001f, 1e-8f);
  // A later round gives back only what it adds: from 1 mm down to 3 mm down, the last 1 mm of the push.
  r = pbf::collision_yield_relief(d, p, moved(Vec3{0.0f, -0.001f, 0.0f}, Vec3{}),
                                  moved(Vec3{0.0f, -0.003f, 0.0f}, Vec3{}));
  EXPECT_NEAR(r.d.y, -0.001f, 1e-9f);
  EXPECT_EQ(r.weight, 0.0f);
  // No push, nothing to give back.
  r = pbf::collision_yield_relief(Vec3{0.0f, 0.0f, 0.0f}, p, still, moved(Vec3{0.0f, -0.001f, 0.0f}, Vec3{}));
  EXPECT_EQ(r.d.y, 0.0f);
}

}  // namespace
