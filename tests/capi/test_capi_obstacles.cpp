// The obstacle functions of the C API: every bad argument is refused with its
// status and a message naming the function and the argument, leaving the
// obstacles as they were; a valid obstacle keeps particles out; a new pose
// takes effect over the next step, not before.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "physics/obstacle_fields.h"
#include "capi/expect_refused.h"
#include "physics/physics_scenes.h"

namespace {

using pbf_test::SampledField;
using pbf_test::expect_refused;
using pbf_test::SolverPtr;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

class CApiObstacles : public ::testing::Test {
 protected:
  void SetUp() override {
    pbf_solver_desc d = pbf_solver_desc_default();
    d.backend = PBF_BACKEND_CPU;
    d.max_particles = 64;
    d.particle_spacing = 0.05f;
    solver_ = pbf_test::make_solver(d);
    ASSERT_TRUE(solver_);
  }

  uint32_t count() {
    uint32_t n = 999;
    EXPECT_EQ(pbf_solver_get_obstacle_count(solver_.get(), &n), PBF_OK) << pbf_last_error();
    return n;
  }

  pbf_status add(const SampledField& f, const float* rotation = nullptr, const float* translation = nullptr,
                 uint32_t* index = nullptr) {
    return pbf_solver_add_obstacle_sdf(solver_.get(), f.values.data(), f.values.size(), f.dims, f.origin, f.cell,
                                       rotation, translation, index);
  }

  SolverPtr solver_;
  const SampledField sphere_ = pbf_test::sphere_field(0.2f, 0.02f, 0.06f);
};

TEST_F(CApiObstacles, AValidFieldIsAddedAndCounted) {
  const float centre[3] = {0.5f, 0.5f, 0.5f};
  uint32_t index = 99;
  ASSERT_EQ(add(sphere_, nullptr, centre, &index), PBF_OK) << pbf_last_error();
  EXPECT_EQ(index, 0u);
  ASSERT_EQ(add(sphere_, nullptr, centre, &index), PBF_OK) << pbf_last_error();
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(count(), 2u);
  EXPECT_EQ(pbf_solver_clear_obstacles(solver_.get()), PBF_OK);
  EXPECT_EQ(count(), 0u);
}

TEST_F(CApiObstacles, BadFieldsAreRefusedAndNothingIsAdded) {
  SampledField f = sphere_;
  const char* fn = "pbf_solver_add_obstacle_sdf";
  expect_refused(pbf_solver_add_obstacle_sdf(nullptr, f.values.data(), f.values.size(), f.dims, f.origin, f.cell,
                                             nullptr, nullptr, nullptr),
                 PBF_ERROR_NULL_POINTER, fn, "solver");
  expect_refused(pbf_solver_add_obstacle_sdf(solver_.get(), nullptr, f.values.size(), f.dims, f.origin, f.cell,
                                             nullptr, nullptr, nullptr),
                 PBF_ERROR_NULL_POINTER, fn, "values");
  expect_refused(pbf_solver_add_obstacle_sdf(solver_.get(), f.values.data(), f.values.size(), nullptr, f.origin,
                                             f.cell, nullptr, nullptr, nullptr),
                 PBF_ERROR_NULL_POINTER, fn, "dims");
  expect_refused(pbf_solver_add_obstacle_sdf(solver_.get(), f.values.data(), f.values.size(), f.dims, nullptr,
                                             f.cell, nullptr, nullptr, nullptr),
                 PBF_ERROR_NULL_POINTER, fn, "origin");
  expect_refused(pbf_solver_add_obstacle_sdf(solver_.get(), f.values.data(), f.values.size() - 1, f.dims, f.origin,
                                             f.cell, nullptr, nullptr, nullptr),
                 PBF_ERROR_BUFFER_TOO_SMALL, fn, "length");
  expect_refused(pbf_solver_add_obstacle_sdf(solver_.get(), f.values.data(), f.values.size() + 1, f.dims, f.origin,
                                             f.cell, nullptr, nullptr, nullptr),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "length");
  const uint32_t flat[3] = {f.dims[0], 1, f.dims[2]};
  expect_refused(pbf_solver_add_obstacle_sdf(solver_.get(), f.values.data(), f.values.size(), flat, f.origin,
                                             f.cell, nullptr, nullptr, nullptr),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "dims[1]");
  const uint32_t huge[3] = {4096, 4096, 4096};
  expect_refused(pbf_solver_add_obstacle_sdf(solver_.get(), f.values.data(), f.values.size(), huge, f.origin,
                                             f.cell, nullptr, nullptr, nullptr),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "dims");
  for (const float cell : {0.0f, -0.1f, kNaN})
    expect_refused(pbf_solver_add_obstacle_sdf(solver_.get(), f.values.data(), f.values.size(), f.dims, f.origin,
                                               cell, nullptr, nullptr, nullptr),
                   PBF_ERROR_INVALID_ARGUMENT, fn, "cell");
  const float bad_origin[3] = {0.0f, kNaN, 0.0f};
  expect_refused(pbf_solver_add_obstacle_sdf(solver_.get(), f.values.data(), f.values.size(), f.dims, bad_origin,
                                             f.cell, nullptr, nullptr, nullptr),
                 PBF_ERROR_INVALID_ARGUMENT, fn, "origin[1]");
  f.values[17] = kNaN;
  expect_refused(add(f), PBF_ERROR_INVALID_ARGUMENT, fn, "values[17]");
  const float zero_rotation[4] = {0, 0, 0, 0}, nan_rotation[4] = {0, 0, kNaN, 1};
  expect_refused(add(sphere_, zero_rotation), PBF_ERROR_INVALID_ARGUMENT, fn, "rotation");
  expect_refused(add(sphere_, nan_rotation), PBF_ERROR_INVALID_ARGUMENT, fn, "rotation[2]");
  const float nan_translation[3] = {kNaN, 0, 0};
  expect_refused(add(sphere_, nullptr, nan_translation), PBF_ERROR_INVALID_ARGUMENT, fn, "translation[0]");
  EXPECT_EQ(count(), 0u);
}

TEST_F(CApiObstacles, TheSixtyFifthObstacleExceedsTheCapacity) {
  const SampledField small = pbf_test::sphere_field(0.05f, 0.05f, 0.05f);
  for (int k = 0; k < PBF_MAX_OBSTACLES; ++k) ASSERT_EQ(add(small), PBF_OK) << k << ": " << pbf_last_error();
  expect_refused(add(small), PBF_ERROR_CAPACITY_EXCEEDED, "pbf_solver_add_obstacle_sdf", "64 obstacles");
  EXPECT_EQ(count(), uint32_t(PBF_MAX_OBSTACLES));
}

TEST_F(CApiObstacles, PoseErrorsNameTheArgument) {
  ASSERT_EQ(add(sphere_), PBF_OK) << pbf_last_error();
  const char* fn = "pbf_solver_set_obstacle_pose";
  const float t[3] = {0.5f, 0.5f, 0.5f};
  expect_refused(pbf_solver_set_obstacle_pose(nullptr, 0, nullptr, t), PBF_ERROR_NULL_POINTER, fn, "solver");
  expect_refused(pbf_solver_set_obstacle_pose(solver_.get(), 1, nullptr, t), PBF_ERROR_INVALID_ARGUMENT, fn,
                 "index 1");
  const float inf_t[3] = {0, std::numeric_limits<float>::infinity(), 0};
  expect_refused(pbf_solver_set_obstacle_pose(solver_.get(), 0, nullptr, inf_t), PBF_ERROR_INVALID_ARGUMENT, fn,
                 "translation[1]");
  const float zero_rotation[4] = {0, 0, 0, 0};
  expect_refused(pbf_solver_set_obstacle_pose(solver_.get(), 0, zero_rotation, nullptr), PBF_ERROR_INVALID_ARGUMENT,
                 fn, "rotation");
  expect_refused(pbf_solver_get_obstacle_count(solver_.get(), nullptr), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_get_obstacle_count", "out_count");
  expect_refused(pbf_solver_clear_obstacles(nullptr), PBF_ERROR_NULL_POINTER, "pbf_solver_clear_obstacles",
                 "solver");
}

TEST_F(CApiObstacles, AParticleInsideIsPushedOutByTheNextStep) {
  const float centre[3] = {0.5f, 0.5f, 0.5f};
  ASSERT_EQ(add(sphere_, nullptr, centre), PBF_OK) << pbf_last_error();
  pbf_params p = pbf_params_default();
  p.gravity[1] = 0.0f;
  ASSERT_EQ(pbf_solver_set_params(solver_.get(), &p), PBF_OK);
  const float x[3] = {0.62f, 0.5f, 0.5f};  // 8 cm deep
  ASSERT_EQ(pbf_solver_add_particles(solver_.get(), x, nullptr, 1), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(solver_.get(), 1.0f / 60.0f, 1), PBF_OK) << pbf_last_error();
  const std::vector<float> after = pbf_test::positions_of(solver_.get());
  const float dx = after[0] - 0.5f, dy = after[1] - 0.5f, dz = after[2] - 0.5f;
  // One particle radius (2.5 cm) outside the sphere, within the 2 cm grid's interpolation error.
  EXPECT_NEAR(std::sqrt(dx * dx + dy * dy + dz * dz), 0.2f + 0.025f, 1.5e-3f);
  EXPECT_GT(dx, 0.2f) << "pushed out along the normal, +x";
}

// A narrow band's far marks may be any finite number, FLT_MAX included: the
// surface and the push-out are those of true distances, and a particle deep
// among the marks is pushed out to finite places with a finite force.
// (Before, FLT_MAX samples sent pushes of FLT_MAX into the obstacle's force
// sums, which read NaN: hostile caller seed 55698623003468.)
TEST_F(CApiObstacles, FarMarksOfAnyFiniteSizeKeepTheSurfaceAndEveryOutputFinite) {
  const float centre[3] = {0.5f, 0.5f, 0.5f};
  SampledField banded = sphere_;
  for (float& v : banded.values)
    if (std::fabs(v) > 0.11f) v = std::copysign(std::numeric_limits<float>::max(), v);
  ASSERT_EQ(add(banded, nullptr, centre), PBF_OK) << pbf_last_error();
  pbf_params p = pbf_params_default();
  p.gravity[1] = 0.0f;
  ASSERT_EQ(pbf_solver_set_params(solver_.get(), &p), PBF_OK);
  const float x[6] = {0.62f, 0.5f, 0.5f,   // 8 cm deep, where the band holds true distances
                      0.5f, 0.51f, 0.5f};  // at the centre, among the far marks
  ASSERT_EQ(pbf_solver_add_particles(solver_.get(), x, nullptr, 2), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(solver_.get(), 1.0f / 60.0f, 1), PBF_OK) << pbf_last_error();
  const std::vector<float> after = pbf_test::positions_of(solver_.get());
  const float dx = after[0] - 0.5f, dy = after[1] - 0.5f, dz = after[2] - 0.5f;
  EXPECT_NEAR(std::sqrt(dx * dx + dy * dy + dz * dz), 0.2f + 0.025f, 1.5e-3f) << "the same surface";
  for (float c : after) {
    EXPECT_TRUE(std::isfinite(c));
    EXPECT_GE(c, 0.0f);
    EXPECT_LE(c, 1.0f);
  }
  float force[3], moment[3];
  ASSERT_EQ(pbf_solver_get_obstacle_force(solver_.get(), 0, force, moment), PBF_OK) << pbf_last_error();
  for (int a = 0; a < 3; ++a) {
    EXPECT_TRUE(std::isfinite(force[a])) << a;
    EXPECT_TRUE(std::isfinite(moment[a])) << a;
  }
  EXPECT_GT(std::fabs(force[0]), 0.0f) << "the particles pushed out pushed back";
}

TEST_F(CApiObstacles, ANewPoseTakesEffectOverTheNextStep) {
  // The sphere starts far from the particle and is moved onto it: after
  // set_obstacle_pose alone nothing changes; the step brings the sphere
  // there and pushes the particle out.
  const float away[3] = {0.2f, 0.8f, 0.5f}, onto[3] = {0.5f, 0.3f, 0.5f};
  uint32_t index = 0;
  ASSERT_EQ(add(sphere_, nullptr, away, &index), PBF_OK) << pbf_last_error();
  pbf_params p = pbf_params_default();
  p.gravity[1] = 0.0f;
  ASSERT_EQ(pbf_solver_set_params(solver_.get(), &p), PBF_OK);
  const float x[3] = {0.5f, 0.4f, 0.5f};
  ASSERT_EQ(pbf_solver_add_particles(solver_.get(), x, nullptr, 1), PBF_OK) << pbf_last_error();
  const float quarter_turn[4] = {0.0f, 0.0f, std::sqrt(0.5f), std::sqrt(0.5f)};
  ASSERT_EQ(pbf_solver_set_obstacle_pose(solver_.get(), index, quarter_turn, onto), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_test::positions_of(solver_.get())[1], 0.4f) << "nothing moves before the step";
  ASSERT_EQ(pbf_solver_step(solver_.get(), 1.0f / 60.0f, 4), PBF_OK) << pbf_last_error();
  const std::vector<float> after = pbf_test::positions_of(solver_.get());
  const float dx = after[0] - onto[0], dy = after[1] - onto[1], dz = after[2] - onto[2];
  EXPECT_GE(std::sqrt(dx * dx + dy * dy + dz * dz), 0.2f + 0.02f) << "outside the sphere where it arrived";
  // A second step without a new pose leaves the sphere where it arrived: a
  // particle put inside it there is pushed out from there.
  const float inside[3] = {onto[0], onto[1] + 0.1f, onto[2]}, rest[3] = {0, 0, 0};
  ASSERT_EQ(pbf_solver_set_positions(solver_.get(), inside, 3), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_set_velocities(solver_.get(), rest, 3), PBF_OK) << pbf_last_error();
  // One substep: the push becomes the particle's velocity, which later substeps would carry on.
  ASSERT_EQ(pbf_solver_step(solver_.get(), 1.0f / 60.0f, 1), PBF_OK) << pbf_last_error();
  const std::vector<float> later = pbf_test::positions_of(solver_.get());
  const float ex = later[0] - onto[0], ey = later[1] - onto[1], ez = later[2] - onto[2];
  EXPECT_NEAR(std::sqrt(ex * ex + ey * ey + ez * ez), 0.2f + 0.025f, 2e-3f) << "out of the sphere where it stayed";
  EXPECT_GT(ey, 0.2f) << "upwards, the way it went in; the 2 cm grid's gradient tilts the push by a few degrees";
}

}  // namespace

namespace {

// A unit-ish body: 1 kg, centre at its origin, inertia of a 0.1 m cube.
constexpr float kMass = 1.0f;
constexpr float kCentre[3] = {0.0f, 0.0f, 0.0f};
constexpr float kInertia[9] = {0.00167f, 0, 0, 0, 0.00167f, 0, 0, 0, 0.00167f};

TEST_F(CApiObstacles, PoseIsReadBackAndANewPoseShowsAfterTheStep) {
  const float at[3] = {0.5f, 0.5f, 0.5f};
  ASSERT_EQ(add(sphere_, nullptr, at), PBF_OK) << pbf_last_error();
  float q[4], t[3];
  ASSERT_EQ(pbf_solver_get_obstacle_pose(solver_.get(), 0, q, t), PBF_OK) << pbf_last_error();
  EXPECT_EQ(q[3], 1.0f);
  EXPECT_EQ(t[1], 0.5f);
  const float there[3] = {0.5f, 0.6f, 0.5f};
  ASSERT_EQ(pbf_solver_set_obstacle_pose(solver_.get(), 0, nullptr, there), PBF_OK);
  ASSERT_EQ(pbf_solver_get_obstacle_pose(solver_.get(), 0, nullptr, t), PBF_OK);
  EXPECT_EQ(t[1], 0.5f) << "still where it was until the step";
  ASSERT_EQ(pbf_solver_step(solver_.get(), 1.0f / 60.0f, 2), PBF_OK);
  ASSERT_EQ(pbf_solver_get_obstacle_pose(solver_.get(), 0, nullptr, t), PBF_OK);
  EXPECT_EQ(t[1], 0.6f);
  expect_refused(pbf_solver_get_obstacle_pose(solver_.get(), 1, q, t), PBF_ERROR_INVALID_ARGUMENT,
                 "pbf_solver_get_obstacle_pose", "index");
  expect_refused(pbf_solver_get_obstacle_pose(nullptr, 0, q, t), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_get_obstacle_pose", "solver");
}

// An obstacle follows the parameters' friction and restitution until it is
// given a material of its own, keeps that through changes of the parameters
// and through turning dynamic, and follows them again once it is cleared;
// bad values are refused naming the argument, and leave it as it was.
TEST_F(CApiObstacles, AnObstacleHasTheParametersMaterialUntilItIsGivenItsOwn) {
  pbf_solver* s = solver_.get();
  pbf_params p = pbf_params_default();
  p.friction = 0.25f;
  p.restitution = 0.5f;
  ASSERT_EQ(pbf_solver_set_params(s, &p), PBF_OK) << pbf_last_error();
  const float at[3] = {0.5f, 0.5f, 0.5f};
  ASSERT_EQ(add(sphere_, nullptr, at), PBF_OK) << pbf_last_error();
  const auto material = [&] {
    std::pair<float, float> m{-1.0f, -1.0f};
    EXPECT_EQ(pbf_solver_get_obstacle_material(s, 0, &m.first, &m.second), PBF_OK) << pbf_last_error();
    return m;
  };
  EXPECT_EQ(material(), std::make_pair(0.25f, 0.5f)) << "the parameters'";
  ASSERT_EQ(pbf_solver_set_obstacle_material(s, 0, 0.8f, 0.3f), PBF_OK) << pbf_last_error();
  EXPECT_EQ(material(), std::make_pair(0.8f, 0.3f));
  const char* f = "pbf_solver_set_obstacle_material";
  expect_refused(pbf_solver_set_obstacle_material(s, 0, kNaN, 0.3f), PBF_ERROR_INVALID_ARGUMENT, f, "friction");
  expect_refused(pbf_solver_set_obstacle_material(s, 0, -0.1f, 0.3f), PBF_ERROR_INVALID_ARGUMENT, f, "friction");
  expect_refused(pbf_solver_set_obstacle_material(s, 0, 10.5f, 0.3f), PBF_ERROR_INVALID_ARGUMENT, f, "friction");
  expect_refused(pbf_solver_set_obstacle_material(s, 0, 0.8f, 1.5f), PBF_ERROR_INVALID_ARGUMENT, f, "restitution");
  expect_refused(pbf_solver_set_obstacle_material(s, 0, 0.8f, kNaN), PBF_ERROR_INVALID_ARGUMENT, f, "restitution");
  expect_refused(pbf_solver_set_obstacle_material(s, 1, 0.8f, 0.3f), PBF_ERROR_INVALID_ARGUMENT, f, "index");
  expect_refused(pbf_solver_set_obstacle_material(nullptr, 0, 0.8f, 0.3f), PBF_ERROR_NULL_POINTER, f, "solver");
  expect_refused(pbf_solver_get_obstacle_material(s, 1, nullptr, nullptr), PBF_ERROR_INVALID_ARGUMENT,
                 "pbf_solver_get_obstacle_material", "index");
  expect_refused(pbf_solver_clear_obstacle_material(s, 1), PBF_ERROR_INVALID_ARGUMENT,
                 "pbf_solver_clear_obstacle_material", "index");
  EXPECT_EQ(material(), std::make_pair(0.8f, 0.3f)) << "unchanged by the refusals";
  p.friction = 0.1f;
  ASSERT_EQ(pbf_solver_set_params(s, &p), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_set_obstacle_dynamic(s, 0, kMass, kCentre, kInertia), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s, 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
  EXPECT_EQ(material(), std::make_pair(0.8f, 0.3f)) << "its own, through the parameters' change and the step";
  ASSERT_EQ(pbf_solver_clear_obstacle_material(s, 0), PBF_OK) << pbf_last_error();
  EXPECT_EQ(material(), std::make_pair(0.1f, 0.5f)) << "the parameters' again";
  ASSERT_EQ(pbf_solver_get_obstacle_material(s, 0, nullptr, nullptr), PBF_OK) << "either output may be NULL";
}

TEST_F(CApiObstacles, BadMassPropertiesAreRefusedAndTheObstacleStaysKinematic) {
  const float at[3] = {0.5f, 0.5f, 0.5f};
  ASSERT_EQ(add(sphere_, nullptr, at), PBF_OK) << pbf_last_error();
  pbf_solver* s = solver_.get();
  const char* f = "pbf_solver_set_obstacle_dynamic";
  expect_refused(pbf_solver_set_obstacle_dynamic(s, 0, -1.0f, kCentre, kInertia), PBF_ERROR_INVALID_ARGUMENT, f, "mass");
  expect_refused(pbf_solver_set_obstacle_dynamic(s, 0, kNaN, kCentre, kInertia), PBF_ERROR_INVALID_ARGUMENT, f, "mass");
  expect_refused(pbf_solver_set_obstacle_dynamic(s, 0, kMass, nullptr, kInertia), PBF_ERROR_NULL_POINTER, f, "centre");
  expect_refused(pbf_solver_set_obstacle_dynamic(s, 0, kMass, kCentre, nullptr), PBF_ERROR_NULL_POINTER, f, "inertia");
  const float far[3] = {kNaN, 0, 0};
  expect_refused(pbf_solver_set_obstacle_dynamic(s, 0, kMass, far, kInertia), PBF_ERROR_INVALID_ARGUMENT, f, "centre");
  float inertia[9];
  std::copy(kInertia, kInertia + 9, inertia);
  inertia[1] = 0.001f;  // not symmetric
  expect_refused(pbf_solver_set_obstacle_dynamic(s, 0, kMass, kCentre, inertia), PBF_ERROR_INVALID_ARGUMENT, f,
                 "symmetric");
  std::copy(kInertia, kInertia + 9, inertia);
  inertia[8] = -0.001f;  // not positive definite
  expect_refused(pbf_solver_set_obstacle_dynamic(s, 0, kMass, kCentre, inertia), PBF_ERROR_INVALID_ARGUMENT, f,
                 "positive definite");
  inertia[8] = std::numeric_limits<float>::infinity();
  expect_refused(pbf_solver_set_obstacle_dynamic(s, 0, kMass, kCentre, inertia), PBF_ERROR_INVALID_ARGUMENT, f,
                 "inertia[8]");
  expect_refused(pbf_solver_set_obstacle_dynamic(s, 1, kMass, kCentre, kInertia), PBF_ERROR_INVALID_ARGUMENT, f,
                 "index");
  // Still kinematic: velocities are refused, and a step leaves it where it is.
  float v[3];
  expect_refused(pbf_solver_get_obstacle_velocity(s, 0, v, nullptr), PBF_ERROR_INVALID_ARGUMENT,
                 "pbf_solver_get_obstacle_velocity", "kinematic");
  expect_refused(pbf_solver_set_obstacle_velocity(s, 0, v, nullptr), PBF_ERROR_INVALID_ARGUMENT,
                 "pbf_solver_set_obstacle_velocity", "kinematic");
  ASSERT_EQ(pbf_solver_step(s, 1.0f / 60.0f, 2), PBF_OK);
  float t[3];
  ASSERT_EQ(pbf_solver_get_obstacle_pose(s, 0, nullptr, t), PBF_OK);
  EXPECT_EQ(t[1], 0.5f);
}

// A dynamic body must fit between the domain's walls: one that reaches
// farther along an axis than the domain, at the rotation it is made dynamic
// with, is refused and stays kinematic; a rotation that would turn a
// dynamic body so that it no longer fits is refused and leaves its pose as it
// was. (Such a body was pushed from wall to wall by its contacts without end,
// the water around it crushed, and the steps slowed to seconds.)
TEST(CApiObstacleBodies, ABodyThatCannotFitInsideTheDomainIsRefused) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.particle_spacing = 0.05f;
  d.domain_max[1] = 0.5f;  // 1 x 0.5 x 1 m
  SolverPtr solver = pbf_test::make_solver(d);
  ASSERT_TRUE(solver);
  pbf_solver* s = solver.get();
  const char* f = "pbf_solver_set_obstacle_dynamic";
  const auto add_plank = [&](float half_length, float y) {
    const float half[3] = {half_length, 0.05f, 0.1f}, at[3] = {0.5f, y, 0.5f};
    pbf_sdf* box = nullptr;
    EXPECT_EQ(pbf_sdf_box(half, 0.02f, &box), PBF_OK) << pbf_last_error();
    uint32_t index = 0;
    EXPECT_EQ(pbf_solver_add_obstacle(s, box, nullptr, at, &index), PBF_OK) << pbf_last_error();
    float mass = 0.0f, centre[3], inertia[9];
    EXPECT_EQ(pbf_sdf_mass_properties(box, 500.0f, &mass, centre, inertia), PBF_OK) << pbf_last_error();
    pbf_sdf_destroy(box);
    return std::make_pair(index, pbf_solver_set_obstacle_dynamic(s, index, mass, centre, inertia));
  };
  const auto [wide, refused] = add_plank(0.6f, 0.1f);  // 1.2 m long in a 1 m domain
  expect_refused(refused, PBF_ERROR_INVALID_ARGUMENT, f, "index");
  EXPECT_NE(std::string(pbf_last_error()).find("along x"), std::string::npos) << pbf_last_error();
  float v[3];
  expect_refused(pbf_solver_get_obstacle_velocity(s, wide, v, nullptr), PBF_ERROR_INVALID_ARGUMENT,
                 "pbf_solver_get_obstacle_velocity", "kinematic");
  const auto [plank, made] = add_plank(0.4f, 0.3f);  // 0.8 m long: fits along x, not standing up
  ASSERT_EQ(made, PBF_OK) << pbf_last_error();
  const float upright[4] = {0.0f, 0.0f, 0.70710678f, 0.70710678f};  // 90 degrees about z
  const float there[3] = {0.5f, 0.2f, 0.5f};
  expect_refused(pbf_solver_set_obstacle_pose(s, plank, upright, there), PBF_ERROR_INVALID_ARGUMENT,
                 "pbf_solver_set_obstacle_pose", "rotation");
  float q[4], t[3];
  ASSERT_EQ(pbf_solver_get_obstacle_pose(s, plank, q, t), PBF_OK);
  EXPECT_EQ(q[3], 1.0f) << "not turned";
  EXPECT_EQ(t[1], 0.3f) << "not moved";
  const float tilted[4] = {0.0f, 0.0f, 0.08715574f, 0.9961947f};  // 10 degrees: it reaches 0.24 m up
  ASSERT_EQ(pbf_solver_set_obstacle_pose(s, plank, tilted, there), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_set_obstacle_pose(s, plank, nullptr, t), PBF_OK) << "the rotation it has";
  ASSERT_EQ(pbf_solver_step(s, 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
}

TEST_F(CApiObstacles, ADynamicObstacleFallsAndMassZeroHoldsItWhereItIs) {
  const float at[3] = {0.5f, 0.5f, 0.5f};
  ASSERT_EQ(add(sphere_, nullptr, at), PBF_OK) << pbf_last_error();
  pbf_solver* s = solver_.get();
  ASSERT_EQ(pbf_solver_set_obstacle_dynamic(s, 0, kMass, kCentre, kInertia), PBF_OK) << pbf_last_error();
  float v[3] = {1, 1, 1}, w[3] = {1, 1, 1};
  ASSERT_EQ(pbf_solver_get_obstacle_velocity(s, 0, v, w), PBF_OK) << pbf_last_error();
  for (int a = 0; a < 3; ++a) EXPECT_EQ(v[a], 0.0f) << "at rest when made dynamic";
  // Free fall, without water: v = g t after 0.1 s.
  for (int frame = 0; frame < 6; ++frame) ASSERT_EQ(pbf_solver_step(s, 1.0f / 60.0f, 4), PBF_OK);
  ASSERT_EQ(pbf_solver_get_obstacle_velocity(s, 0, v, w), PBF_OK);
  EXPECT_NEAR(v[1], -9.81f * 0.1f, 1e-4f);
  float t[3];
  ASSERT_EQ(pbf_solver_get_obstacle_pose(s, 0, nullptr, t), PBF_OK);
  // Semi-implicit Euler over 24 substeps of h, gravity before the move: the drop is g h^2 (1 + ... + 24).
  const double h = 1.0 / 240.0;
  EXPECT_NEAR(t[1], 0.5 - 9.81 * h * h * 24 * 25 / 2.0, 1e-5);
  // A set pose moves it at once and keeps its velocities.
  const float up[3] = {0.5f, 0.7f, 0.5f};
  ASSERT_EQ(pbf_solver_set_obstacle_pose(s, 0, nullptr, up), PBF_OK);
  ASSERT_EQ(pbf_solver_get_obstacle_pose(s, 0, nullptr, t), PBF_OK);
  EXPECT_EQ(t[1], 0.7f);
  float still[3];
  ASSERT_EQ(pbf_solver_get_obstacle_velocity(s, 0, still, nullptr), PBF_OK);
  EXPECT_EQ(still[1], v[1]);
  // Velocities set, NULL keeping the angular part; non-finite ones refused.
  const float sideways[3] = {0.5f, 0.0f, 0.0f};
  ASSERT_EQ(pbf_solver_set_obstacle_velocity(s, 0, sideways, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_get_obstacle_velocity(s, 0, v, nullptr), PBF_OK);
  EXPECT_EQ(v[0], 0.5f);
  const float bad[3] = {0.0f, kNaN, 0.0f};
  expect_refused(pbf_solver_set_obstacle_velocity(s, 0, nullptr, bad), PBF_ERROR_INVALID_ARGUMENT,
                 "pbf_solver_set_obstacle_velocity", "angular");
  // Kinematic again: it stays where it is.
  ASSERT_EQ(pbf_solver_set_obstacle_dynamic(s, 0, 0.0f, nullptr, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s, 1.0f / 60.0f, 4), PBF_OK);
  ASSERT_EQ(pbf_solver_get_obstacle_pose(s, 0, nullptr, t), PBF_OK);
  EXPECT_EQ(t[1], 0.7f);
}

// Projective Fluids moves dynamic bodies too; without water they fall
// freely, substep by substep: x = x0 - g t^2 / 2 to the substeps' error.
TEST(CApiDynamicObstacles, ProjectiveFluidsLetsThemFallWithoutWater) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.method = PBF_METHOD_PROJECTIVE;
  SolverPtr s = pbf_test::make_solver(d);
  pbf_sdf* box = nullptr;
  const float half[3] = {0.05f, 0.05f, 0.05f}, at[3] = {0.5f, 0.8f, 0.5f};
  ASSERT_EQ(pbf_sdf_box(half, 0.01f, &box), PBF_OK);
  ASSERT_EQ(pbf_solver_add_obstacle(s.get(), box, nullptr, at, nullptr), PBF_OK);
  pbf_sdf_destroy(box);
  ASSERT_EQ(pbf_solver_set_obstacle_dynamic(s.get(), 0, kMass, kCentre, kInertia), PBF_OK) << pbf_last_error();
  for (int frame = 0; frame < 12; ++frame) ASSERT_EQ(pbf_solver_step(s.get(), 1.0f / 60.0f, 4), PBF_OK);
  float t[3], v[3];
  ASSERT_EQ(pbf_solver_get_obstacle_pose(s.get(), 0, nullptr, t), PBF_OK);
  ASSERT_EQ(pbf_solver_get_obstacle_velocity(s.get(), 0, v, nullptr), PBF_OK);
  EXPECT_NEAR(v[1], -9.81f * 0.2f, 1e-3f);
  EXPECT_NEAR(t[1], 0.8f - 0.5f * 9.81f * 0.2f * 0.2f, 0.01f);
  EXPECT_EQ(t[0], 0.5f);
}

}  // namespace

namespace {

TEST_F(CApiObstacles, AFieldWithoutASurfaceCannotBeADynamicBody) {
  // Every sample outside: a field that holds no solid, so no mass and no surface to collide with.
  std::vector<float> values(8 * 8 * 8, 0.5f);
  const uint32_t dims[3] = {8, 8, 8};
  const float origin[3] = {0, 0, 0};
  ASSERT_EQ(pbf_solver_add_obstacle_sdf(solver_.get(), values.data(), values.size(), dims, origin, 0.05f, nullptr,
                                        nullptr, nullptr),
            PBF_OK)
      << pbf_last_error();
  expect_refused(pbf_solver_set_obstacle_dynamic(solver_.get(), 0, kMass, kCentre, kInertia),
                 PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_set_obstacle_dynamic", "no surface");
  float v[3];
  EXPECT_EQ(pbf_solver_get_obstacle_velocity(solver_.get(), 0, v, nullptr), PBF_ERROR_INVALID_ARGUMENT)
      << "still kinematic";
}

}  // namespace
