// A dynamic body's substep on its own (rigid/rigid_body.h): gravity comes in
// the advance; a yield moves the body by the velocity change its impulse
// will make, carried over the substep, and leaves its velocities alone; the
// advance, the yields and the respond leave the pose where the substep's new
// velocity carries it, so a body the water holds up stays where it is, at rest.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "geometry/signed_distance_field.h"
#include "rigid/rigid_body.h"

namespace {

using pbf::RigidBody;
using pbf::RigidPose;
using pbf::Vec3;

// A 0.2 m cube's field on a grid of 2 cm, centred on its frame's origin.
pbf::SignedDistanceField cube_field() { return pbf::box_sdf(pbf::Vec3{0.1f, 0.1f, 0.1f}, 0.02f); }

// The moment about the world's origin [N m s] of an impulse j [N s] through the point at.
struct Moment {
  double v[3];
};
Moment through(const double at[3], const double j[3]) {
  return Moment{{at[1] * j[2] - at[2] * j[1], at[2] * j[0] - at[0] * j[2], at[0] * j[1] - at[1] * j[0]}};
}

// 4 kg, its inertia that of a uniform 0.2 m cube, about its centre at the origin of its frame.
pbf::RigidMass cube_mass() {
  const double m = 4.0, i = m * (0.2 * 0.2 + 0.2 * 0.2) / 12.0;
  return pbf::RigidMass{m, {0, 0, 0}, {i, 0, 0, 0, i, 0, 0, 0, i}};
}

RigidPose at(double x, double y, double z) { return RigidPose{{0, 0, 0, 1}, {x, y, z}}; }

// Nothing to bump into.
const pbf::RigidSurroundings kNothing{nullptr, 0, nullptr, 0, 0.0};

TEST(RigidBody, AYieldMovesTheBodyByItsVelocityChangeOverTheSubstep) {
  const pbf::SignedDistanceField field = cube_field();
  RigidBody b = pbf::make_rigid_body(cube_mass(), field.view());
  b.velocity[0] = 0.5;
  RigidPose pose = at(0.3, 0.4, 0.5);
  const double h = 1.0 / 240.0;
  // 0.02 N s along y at the centre, and a moment of 0.01 N m s about z there (about the origin: plus c x j).
  const double j[3] = {0.0, 0.02, 0.0};
  Moment moment = through(pose.t, j);
  moment.v[2] += 0.01;
  pbf::rigid_yield(b, pose, h, j, moment.v, nullptr, nullptr, kNothing);
  EXPECT_DOUBLE_EQ(pose.t[0], 0.3);
  EXPECT_NEAR(pose.t[1], 0.4 + 0.02 / 4.0 * h, 1e-15);
  EXPECT_DOUBLE_EQ(pose.t[2], 0.5);
  // Turned about z by I^-1 0.01 h: q = (0, 0, sin(a/2), cos(a/2)) to the first order the
  // integration keeps (its error a^3 / 24, 1.6e-10 here).
  const double angle = 0.01 / b.mass.inertia[8] * h;
  EXPECT_NEAR(pose.q[2], std::sin(0.5 * angle), 1e-9);
  EXPECT_NEAR(pose.q[3], std::cos(0.5 * angle), 1e-9);
  EXPECT_EQ(pose.q[0], 0.0);
  EXPECT_EQ(pose.q[1], 0.0);
  EXPECT_EQ(b.velocity[0], 0.5) << "a yield leaves the velocities alone";
  EXPECT_EQ(b.velocity[1], 0.0);
  EXPECT_EQ(b.angular_velocity[2], 0.0);
}

TEST(RigidBody, ASubstepEndsWhereItsNewVelocityCarriesTheBody) {
  const pbf::SignedDistanceField field = cube_field();
  RigidBody b = pbf::make_rigid_body(cube_mass(), field.view());
  b.velocity[1] = -1.0;
  RigidPose pose = at(0.5, 0.5, 0.5);
  const double h = 0.01;
  const pbf::Vec3 g{0.0f, -9.81f, 0.0f};
  pbf::rigid_advance(b, pose, g, h, kNothing);
  // The water's impulse in three parts, yielded to one by one.
  const double parts[3][3] = {{0.0, 0.3, 0.1}, {0.0, 0.2, 0.0}, {0.05, 0.1, 0.0}};
  double total[3] = {0, 0, 0};
  for (const auto& part : parts) {
    // Through the centre where it is: no moment about it.
    pbf::rigid_yield(b, pose, h, part, through(pose.t, part).v, nullptr, nullptr, kNothing);
    for (int a = 0; a < 3; ++a) total[a] += part[a];
  }
  pbf::rigid_respond(b, pose, h, total, through(pose.t, total).v, kNothing);
  const double v[3] = {total[0] / 4.0, -1.0 - double(9.81f) * h + total[1] / 4.0, total[2] / 4.0};
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(b.velocity[a], v[a], 1e-12) << "axis " << a;
    EXPECT_NEAR(pose.t[a], 0.5 + v[a] * h, 1e-12) << "axis " << a;
  }
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(b.angular_velocity[a], 0.0, 1e-12) << "pushed through its centre: no turn";
}

TEST(RigidBody, ABodyTheWaterHoldsUpStaysWhereItIsAtRest) {
  const pbf::SignedDistanceField field = cube_field();
  RigidBody b = pbf::make_rigid_body(cube_mass(), field.view());
  RigidPose pose = at(0.5, 0.5, 0.5);
  const double h = 1.0 / 240.0;
  const pbf::Vec3 g{0.0f, -9.81f, 0.0f};
  for (int substep = 0; substep < 100; ++substep) {
    pbf::rigid_advance(b, pose, g, h, kNothing);
    // The water gives it its weight's impulse, through its centre, in two iterations.
    const double half[3] = {0.0, 0.5 * 4.0 * double(9.81f) * h, 0.0};
    for (int k = 0; k < 2; ++k) pbf::rigid_yield(b, pose, h, half, through(pose.t, half).v, nullptr, nullptr, kNothing);
    const double whole[3] = {0.0, 4.0 * double(9.81f) * h, 0.0};
    pbf::rigid_respond(b, pose, h, whole, through(pose.t, whole).v, kNothing);
  }
  EXPECT_NEAR(pose.t[1], 0.5, 1e-12) << "where it was";
  EXPECT_NEAR(b.velocity[1], 0.0, 1e-12) << "at rest";
}

TEST(RigidBody, NoYieldCarriesTheBodyThroughAWall) {
  // Water blown up around a body far too light for it (docs/PHYSICS.md §13) gives it impulses that
  // would carry it metres in a substep: each yield moves it at most a sweep step (two cells of its
  // field), then out of the walls, as the advance does.
  const pbf::SignedDistanceField field = cube_field();
  RigidBody b = pbf::make_rigid_body(cube_mass(), field.view());
  const pbf::Plane floor{pbf::Vec3{0.0f, 1.0f, 0.0f}, 0.0f};  // y >= 0 is inside
  const pbf::RigidSurroundings around{&floor, 1, nullptr, 0, 0.0};
  RigidPose pose = at(0.5, 0.15, 0.5);
  const double h = 1.0 / 240.0;
  const double down[3] = {0.0, -1e4, 0.0};  // 10 km/s for 4 kg over h: 10 m
  for (int k = 0; k < 20; ++k) {
    const double y = pose.t[1];
    pbf::rigid_yield(b, pose, h, down, through(pose.t, down).v, nullptr, nullptr, around);
    EXPECT_GE(pose.t[1], y - b.sweep_step - 1e-12) << "yield " << k << ": at most a sweep step";
    EXPECT_GE(pose.t[1], 0.1 - 1e-6) << "yield " << k << ": on the floor, not through it";
  }
  EXPECT_NEAR(pose.t[1], 0.1, 1e-3) << "down to the floor";
}

// The added mass [kg, kg m, kg m^2] about the world's origin of one constraint
// whose gradient with respect to the body's translation is `normal` (unit),
// acting along the line through `at`, with the water's share `mass` [kg]
// (core/obstacle.h: w a a^T, a = (d, at x d), w = 1 / |d|^2).
struct Added {
  double v[pbf::kSymmetric6];
};
Added added_mass(Vec3 normal, Vec3 at, double mass) {
  Added a{};
  pbf::for_each_added_mass_term(normal, at, 1.0f, [&](int e, double value) { a.v[e] = mass * value; });
  return a;
}

TEST(RigidBody, AYieldWithTheWatersAddedMassIsTheBodysPartOfTheJointSolve) {
  // (M + A_c) (shift, turn) = h (j, L - c x j), A_c the added mass about the centre: checked here as
  // a residual, with A_c built directly from the constraint's arm about the centre.
  const pbf::SignedDistanceField field = cube_field();
  RigidBody b = pbf::make_rigid_body(cube_mass(), field.view());
  RigidPose pose = at(0.3, 0.4, 0.5);
  const double h = 1.0 / 240.0;
  const Vec3 normal{0.0f, 1.0f, 0.0f}, under{0.35f, 0.3f, 0.5f};  // off the centre: the push also turns it
  const double water = 2.0;                                        // kg
  const Added added = added_mass(normal, under, water);
  const double j[3] = {0.0, 0.05, 0.0};
  const double push_point[3] = {under.x, under.y, under.z};
  const Moment moment = through(push_point, j);
  const pbf::RigidYield y = pbf::rigid_yield(b, pose, h, j, moment.v, added.v, nullptr, kNothing);
  // The pose moved as the yield says (the centre is the frame's origin).
  EXPECT_NEAR(pose.t[1] - 0.4, y.shift[1], 1e-15);
  EXPECT_DOUBLE_EQ(y.centre[0], 0.3);
  // A_c x = water (n . (shift + turn x r)) (n, r x n), r = under - c.
  const double r[3] = {under.x - 0.3, under.y - 0.4, under.z - 0.5};
  const double rxn[3] = {r[1] * normal.z - r[2] * normal.y, r[2] * normal.x - r[0] * normal.z,
                         r[0] * normal.y - r[1] * normal.x};
  const double turn_x_r[3] = {y.turn[1] * r[2] - y.turn[2] * r[1], y.turn[2] * r[0] - y.turn[0] * r[2],
                              y.turn[0] * r[1] - y.turn[1] * r[0]};
  const double along = water * (normal.x * (y.shift[0] + turn_x_r[0]) + normal.y * (y.shift[1] + turn_x_r[1]) +
                                normal.z * (y.shift[2] + turn_x_r[2]));
  const double n[3] = {normal.x, normal.y, normal.z};
  const Moment about_centre = through(r, j);
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(b.mass.mass * y.shift[a] + along * n[a], h * j[a], 1e-12) << a;
    // The cube's inertia is isotropic, so I_world turn is inertia x turn.
    EXPECT_NEAR(b.mass.inertia[0] * y.turn[a] + along * rxn[a], h * about_centre.v[a], 1e-12) << a;
  }
  // It moved less than its own mass alone would have carried it: the water shares the push.
  EXPECT_GT(y.shift[1], 0.0);
  EXPECT_LT(y.shift[1], h * j[1] / b.mass.mass);
}

TEST(RigidBody, ABodyFarLighterThanTheWaterMovesAsFarAsTheWaterLetsIt) {
  // A 4 g cube pushed through its centre by constraints of 2 kg of water: it moves h j / (M + A), about
  // h j / A, where its own mass would have carried it 500 times further (capped at a sweep step).
  const pbf::SignedDistanceField field = cube_field();
  pbf::RigidMass light = cube_mass();
  light.mass *= 1e-3;
  for (double& i : light.inertia) i *= 1e-3;
  RigidBody b = pbf::make_rigid_body(light, field.view());
  RigidPose pose = at(0.3, 0.4, 0.5);
  const double h = 1.0 / 240.0;
  const Added added = added_mass(Vec3{0.0f, 1.0f, 0.0f}, Vec3{0.3f, 0.4f, 0.5f}, 2.0);
  const double j[3] = {0.0, 0.2, 0.0};
  const Moment moment = through(pose.t, j);
  const pbf::RigidYield y = pbf::rigid_yield(b, pose, h, j, moment.v, added.v, nullptr, kNothing);
  // (To 1e-9: the push's point is the float nearest the centre, a few 1e-9 m beside it.)
  const double expected = h * j[1] / (light.mass + 2.0);
  EXPECT_NEAR(y.shift[1], expected, 1e-9 * expected);
  EXPECT_NEAR(pose.t[1] - 0.4, expected, 1e-9 * expected);
  EXPECT_NEAR(y.turn[0], 0.0, 1e-9);
  // Without the added mass: a sweep step (two cells of its field), about 100 times as far.
  RigidPose alone = at(0.3, 0.4, 0.5);
  pbf::rigid_yield(b, alone, h, j, moment.v, nullptr, nullptr, kNothing);
  EXPECT_NEAR(alone.t[1] - 0.4, b.sweep_step, 1e-12);
}

TEST(RigidBody, AnotherRoundOfAYieldMovesItByWhatItsMomentumStillLacks) {
  // Round one shares a push with 2 kg of water; if all of that water then lets go (its constraints
  // give back what they pushed and no added mass remains), round two moves the body on by the rest of
  // the impulse over its own mass: in total h j / M, its whole velocity change carried over h.
  const pbf::SignedDistanceField field = cube_field();
  RigidBody b = pbf::make_rigid_body(cube_mass(), field.view());
  RigidPose pose = at(0.3, 0.4, 0.5);
  const double h = 1.0 / 240.0;
  const Added added = added_mass(Vec3{0.0f, 1.0f, 0.0f}, Vec3{0.3f, 0.4f, 0.5f}, 2.0);
  const double j[3] = {0.0, 0.2, 0.0};
  const Moment moment = through(pose.t, j);
  const pbf::RigidYield first = pbf::rigid_yield(b, pose, h, j, moment.v, added.v, nullptr, kNothing);
  EXPECT_NEAR(first.shift[1], h * j[1] / (b.mass.mass + 2.0), 1e-9 * first.shift[1]);
  const pbf::RigidYield second = pbf::rigid_yield(b, pose, h, j, moment.v, nullptr, &first, kNothing);
  EXPECT_NEAR(second.shift[1], h * j[1] / b.mass.mass, 1e-9 * second.shift[1]);
  EXPECT_NEAR(pose.t[1] - 0.4, h * j[1] / b.mass.mass, 1e-9 * second.shift[1]);
  EXPECT_EQ(second.centre[1], first.centre[1]);  // the rounds' total about the first round's centre
  EXPECT_NEAR(second.turn[2], 0.0, 1e-9);
}

// Two 0.2 m cubes of 4 kg in free space, their faces 2 mm into each other at
// x = 0.198 m apart, one moving at 1 m/s into the other at rest, a little
// off its centre line (so that the contact turns them): the respond of both
// at once leaves them not closing any more and keeps their momentum, linear
// and angular, to round-off. Each is the other's solid (RigidContactSolid::body).
TEST(RigidBody, TwoBodiesThatMeetStopClosingAndKeepTheirMomentum) {
  const pbf::SignedDistanceField field = cube_field();
  RigidBody a = pbf::make_rigid_body(cube_mass(), field.view());
  RigidBody b = pbf::make_rigid_body(cube_mass(), field.view());
  a.contacts.reserve(a.hull.size());
  b.contacts.reserve(b.hull.size());
  a.velocity[0] = 1.0;
  const RigidPose pa = at(0.3, 0.5, 0.5), pb = at(0.498, 0.53, 0.5);
  const pbf::SdfGridView view = field.view();
  const pbf::RigidContactSolid solids[2] = {pbf::rigid_contact_solid(pa, &view, 0u),
                                            pbf::rigid_contact_solid(pb, &view, 1u)};
  const pbf::RigidSurroundings around{nullptr, 0, solids, 2, 0.3};
  const double none[3] = {0, 0, 0};
  pbf::RigidBodyEnd ends[2] = {{&a, &pa, none, none}, {&b, &pb, none, none}};
  const auto momentum = [&](int axis) { return 4.0 * (a.velocity[axis] + b.velocity[axis]); };
  // About the origin: sum m c x v + I w (the cubes' inertia is isotropic: I w = i w in any axes).
  const double i = cube_mass().inertia[0];
  const auto spin_about_origin = [&](int axis) {
    double l = 0.0;
    for (const auto& [body, pose] : {std::pair<const RigidBody*, const RigidPose*>{&a, &pa}, {&b, &pb}}) {
      const double* c = pose->t;
      const double* v = body->velocity;
      const double cv[3] = {c[1] * v[2] - c[2] * v[1], c[2] * v[0] - c[0] * v[2], c[0] * v[1] - c[1] * v[0]};
      l += 4.0 * cv[axis] + i * body->angular_velocity[axis];
    }
    return l;
  };
  double p0[3], l0[3];
  for (int axis = 0; axis < 3; ++axis) {
    p0[axis] = momentum(axis);
    l0[axis] = spin_about_origin(axis);
  }
  pbf::rigid_respond_together(ends, 2, 1.0 / 240.0, around);
  EXPECT_FALSE(a.contacts.empty());
  EXPECT_FALSE(b.contacts.empty()) << "each touches the other";
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_NEAR(momentum(axis), p0[axis], 1e-9) << axis;
    EXPECT_NEAR(spin_about_origin(axis), l0[axis], 1e-9) << axis;
  }
  // The faces no longer close (to 1 % of the speed they met at, the sweeps' remainder): where they
  // touch, at x = 0.399 m, z = 0.5 m, the x component of v + w x (p - c) is no larger on a than on b.
  for (const double y : {0.43, 0.5, 0.6}) {
    const auto along_x = [&](const RigidBody& body, const RigidPose& pose) {
      return body.velocity[0] - body.angular_velocity[2] * (y - pose.t[1]);
    };
    EXPECT_LE(along_x(a, pa) - along_x(b, pb), 0.01) << "at y = " << y;
  }
  EXPECT_LT(a.velocity[0], 0.75) << "a gave b a share of its momentum";
  EXPECT_GT(b.velocity[0], 0.25);
}

// A cube arriving flat on the floor leaves it with the restitution times the
// speed it arrived with, all of it along the normal; one that arrives no
// faster than the resting speed (what a substep's gravity gives a body at
// rest on the floor) keeps no bounce, whatever the restitution.
TEST(RigidBody, AContactBouncesWithTheRestitutionUnlessItIsResting) {
  const pbf::SignedDistanceField field = cube_field();
  const pbf::Plane floor{pbf::Vec3{0.0f, 1.0f, 0.0f}, 0.0f};  // y >= 0 is inside
  const double h = 1.0 / 240.0, resting = 2.0 * 9.81 * h;
  const double none[3] = {0, 0, 0};
  const struct {
    double restitution, arriving, leaving;
  } cases[] = {{0.0, 2.0, 0.0}, {0.5, 2.0, 1.0}, {1.0, 2.0, 2.0},
               {1.0, 9.81 * h, 0.0}, {0.8, 1.5 * resting, 0.8 * 1.5 * resting}};
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message() << "restitution " << c.restitution << ", arriving at " << c.arriving << " m/s");
    RigidBody b = pbf::make_rigid_body(cube_mass(), field.view());
    b.contacts.reserve(b.hull.size());
    b.velocity[1] = -c.arriving;
    pbf::RigidSurroundings around{&floor, 1, nullptr, 0, 0.0};
    around.restitution = c.restitution;
    around.resting_speed = resting;
    const RigidPose pose = at(0.5, 0.1, 0.5);  // its bottom face on the floor
    pbf::rigid_respond(b, pose, h, none, none, around);
    EXPECT_FALSE(b.contacts.empty());
    EXPECT_NEAR(b.velocity[1], c.leaving, 1e-3 * c.arriving) << "up from the floor";
    // The sweeps over the face's points leave a remainder of 10^-8 of the speed.
    EXPECT_LE(b.velocity[1], c.arriving * (1.0 + 1e-6)) << "never faster than it arrived";
    for (int axis = 0; axis < 3; ++axis) {
      if (axis != 1) EXPECT_NEAR(b.velocity[axis], 0.0, 1e-9) << axis;
      EXPECT_NEAR(b.angular_velocity[axis], 0.0, 1e-5) << "no spin from a flat landing, " << axis;
    }
  }
}

// A body that the water presses up against a ceiling (a light one, buoyed
// up at ten times its weight) is held there, not bounced off it, whatever
// the restitution: the water's impulse acts through the substep, as
// gravity does, and the bounce is from the velocity the body came with.
TEST(RigidBody, WaterPressingABodyAgainstASurfaceDoesNotBounceIt) {
  const pbf::SignedDistanceField field = cube_field();
  const pbf::Plane ceiling{pbf::Vec3{0.0f, -1.0f, 0.0f}, 1.0f};  // y <= 1 is inside
  const double h = 1.0 / 240.0, g = 9.81;
  RigidBody b = pbf::make_rigid_body(cube_mass(), field.view());
  b.contacts.reserve(b.hull.size());
  b.velocity[1] = -g * h;  // at rest, and the substep's gravity (rigid_advance())
  pbf::RigidSurroundings around{&ceiling, 1, nullptr, 0, 0.0};
  around.restitution = 1.0;
  around.resting_speed = 2.0 * g * h;
  const RigidPose pose = at(0.5, 0.9, 0.5);  // its top face at the ceiling
  const double up[3] = {0.0, 10.0 * 4.0 * g * h, 0.0};  // ten times its weight over the substep
  pbf::rigid_respond(b, pose, h, up, through(pose.t, up).v, around);
  EXPECT_FALSE(b.contacts.empty());
  EXPECT_NEAR(b.velocity[1], 0.0, 1e-6) << "held against the ceiling, not bounced down from it";
}

// Two equal cubes that meet face on face, without friction: with
// restitution e their relative speed reverses to e times it, so at e = 1 the
// moving one stops and the other moves on with its velocity, at e = 0.5 they
// part at a quarter and three quarters of it; their momentum is kept.
TEST(RigidBody, TwoBodiesThatMeetHeadOnPartWithTheRestitution) {
  const pbf::SignedDistanceField field = cube_field();
  const pbf::SdfGridView view = field.view();
  for (const double e : {1.0, 0.5}) {
    SCOPED_TRACE(testing::Message() << "restitution " << e);
    RigidBody a = pbf::make_rigid_body(cube_mass(), view);
    RigidBody b = pbf::make_rigid_body(cube_mass(), view);
    a.contacts.reserve(a.hull.size());
    b.contacts.reserve(b.hull.size());
    a.velocity[0] = 1.0;
    a.material.restitution = e;  // the contact takes the larger of the two
    const RigidPose pa = at(0.3, 0.5, 0.5), pb = at(0.499, 0.5, 0.5);
    const pbf::RigidContactSolid solids[2] = {pbf::rigid_contact_solid(pa, &view, 0u),
                                              pbf::rigid_contact_solid(pb, &view, 1u)};
    pbf::RigidSurroundings around{nullptr, 0, solids, 2, 0.0};
    const double none[3] = {0, 0, 0};
    pbf::RigidBodyEnd ends[2] = {{&a, &pa, none, none}, {&b, &pb, none, none}};
    pbf::rigid_respond_together(ends, 2, 1.0 / 240.0, around);
    EXPECT_NEAR(a.velocity[0] + b.velocity[0], 1.0, 1e-9) << "momentum kept";
    EXPECT_NEAR(a.velocity[0], (1.0 - e) / 2.0, 0.01);
    EXPECT_NEAR(b.velocity[0], (1.0 + e) / 2.0, 0.01);
    EXPECT_LE(a.velocity[0] * a.velocity[0] + b.velocity[0] * b.velocity[0], 1.0 + 1e-6)
        << "no energy gained (but the sweeps' remainder, 10^-8)";
  }
}

// A kinematic obstacle that moves into a body at rest gives it its own
// velocity (inelastic), or bounces it off at (1 + e) times it: the contact
// takes out the body's velocity relative to the obstacle's moving surface.
// Standing still, the same obstacle leaves the body at rest.
TEST(RigidBody, AKinematicObstacleMovingIntoABodyThrowsIt) {
  const pbf::SignedDistanceField field = cube_field();
  const pbf::SdfGridView view = field.view();
  const double h = 1.0 / 240.0;
  const float speed = 1.0f;
  const pbf::RigidTransform to = pbf::rigid_transform(at(0.301, 0.5, 0.5));  // its +x face at 0.401, in the body
  pbf::RigidTransform from = to;
  from.t.x -= float(speed * h);
  for (const double e : {0.0, 0.5}) {
    for (const bool moving : {true, false}) {
      SCOPED_TRACE(testing::Message() << "restitution " << e << (moving ? ", moving" : ", still"));
      RigidBody b = pbf::make_rigid_body(cube_mass(), view);
      b.contacts.reserve(b.hull.size());
      const RigidPose pose = at(0.5, 0.5, 0.5);  // its -x face at 0.4
      pbf::RigidContactSolid paddle = pbf::rigid_contact_solid(moving ? from : to, to, h, &view);
      paddle.material.restitution = e;
      EXPECT_NEAR(pbf::rigid_surface_velocity(paddle, pbf::Vec3{0.4f, 0.45f, 0.52f}).x, moving ? speed : 0.0f,
                  1e-3f);
      pbf::RigidSurroundings around{nullptr, 0, &paddle, 1, 0.0};
      const double none[3] = {0, 0, 0};
      pbf::rigid_respond(b, pose, h, none, none, around);
      EXPECT_NEAR(b.velocity[0], moving ? (1.0 + e) * speed : 0.0, 2e-3) << "along the paddle's motion";
      EXPECT_NEAR(b.velocity[1], 0.0, 1e-6);
      EXPECT_NEAR(b.velocity[2], 0.0, 1e-6);
    }
  }
}

}  // namespace
