// The boundary-particle functions of the C API: every bad argument is refused
// with its status and a message naming the function and the argument,
// leaving the boundary particles as they were; valid samples are counted,
// the domain walls are sampled, clearing removes them all, and removing one
// obstacle's samples leaves the others as they were.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "capi/expect_refused.h"
#include "physics/physics_scenes.h"

namespace {

using pbf_test::expect_refused;
using pbf_test::SolverPtr;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

class CApiBoundary : public ::testing::Test {
 protected:
  void SetUp() override {
    pbf_solver_desc d = pbf_solver_desc_default();
    d.backend = PBF_BACKEND_CPU;
    d.max_particles = 64;
    d.particle_spacing = 0.05f;  // kernel radius 0.1 m; domain (0,0,0)-(1,1,1)
    solver_ = pbf_test::make_solver(d);
    ASSERT_TRUE(solver_);
  }

  size_t count() {
    size_t n = 999;
    EXPECT_EQ(pbf_solver_get_boundary_particle_count(solver_.get(), &n), PBF_OK) << pbf_last_error();
    return n;
  }

  SolverPtr solver_;
  std::vector<float> three_ = {0.5f, 0.0f, 0.5f, 0.55f, 0.0f, 0.5f, 0.6f, 0.0f, 0.5f};
};

TEST_F(CApiBoundary, ASolverStartsWithoutBoundaryParticles) { EXPECT_EQ(count(), 0u); }

TEST_F(CApiBoundary, ValidSamplesAreAddedAfterThoseAlreadyThere) {
  ASSERT_EQ(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), 3), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 3u);
  ASSERT_EQ(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), 2), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 5u);
}

TEST_F(CApiBoundary, NothingToAddIsAcceptedWithoutPositions) {
  EXPECT_EQ(pbf_solver_add_boundary_particles(solver_.get(), nullptr, 0), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 0u);
}

TEST_F(CApiBoundary, SamplesUpToAKernelRadiusOutsideTheDomainAreAccepted) {
  const float p[6] = {-0.099f, 0.5f, 0.5f, 1.099f, 1.099f, -0.099f};
  EXPECT_EQ(pbf_solver_add_boundary_particles(solver_.get(), p, 2), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 2u);
}

TEST_F(CApiBoundary, NullArgumentsAreRefused) {
  expect_refused(pbf_solver_add_boundary_particles(nullptr, three_.data(), 3), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_add_boundary_particles", "solver");
  expect_refused(pbf_solver_add_boundary_particles(solver_.get(), nullptr, 3), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_add_boundary_particles", "positions");
  expect_refused(pbf_solver_add_domain_boundary_particles(nullptr, nullptr), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_add_domain_boundary_particles", "solver");
  size_t n = 0;
  expect_refused(pbf_solver_get_boundary_particle_count(nullptr, &n), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_get_boundary_particle_count", "solver");
  expect_refused(pbf_solver_get_boundary_particle_count(solver_.get(), nullptr), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_get_boundary_particle_count", "out_count");
  expect_refused(pbf_solver_clear_boundary_particles(nullptr), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_clear_boundary_particles", "solver");
  EXPECT_EQ(count(), 0u);
}

TEST_F(CApiBoundary, NonFiniteValuesAreRefusedByIndexAndNothingIsAdded) {
  ASSERT_EQ(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), 1), PBF_OK) << pbf_last_error();
  for (const float bad : {kNaN, kInf, -kInf}) {
    std::vector<float> p = three_;
    p[7] = bad;  // particle 2, y
    expect_refused(pbf_solver_add_boundary_particles(solver_.get(), p.data(), 3), PBF_ERROR_INVALID_ARGUMENT,
                   "pbf_solver_add_boundary_particles", "positions[7] (boundary particle 2) must be finite");
    EXPECT_EQ(count(), 1u);
  }
}

TEST_F(CApiBoundary, SamplesFartherThanAKernelRadiusOutsideTheDomainAreRefused) {
  for (const int axis : {0, 1, 2}) {
    for (const float v : {-0.11f, 1.11f}) {
      std::vector<float> p = three_;
      p[3 + axis] = v;  // particle 1
      expect_refused(pbf_solver_add_boundary_particles(solver_.get(), p.data(), 3), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_add_boundary_particles",
                     "positions[" + std::to_string(3 + axis) + "] (boundary particle 1)");
      EXPECT_NE(std::string(pbf_last_error()).find("outside the domain on axis " + std::to_string(axis)),
                std::string::npos)
          << pbf_last_error();
    }
  }
  EXPECT_EQ(count(), 0u);
}

TEST_F(CApiBoundary, CountsBeyondTheCapacityAreRefusedBeforeAnyValueIsRead) {
  // positions holds 3 particles; the count is refused before it is read past them.
  expect_refused(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), size_t(PBF_MAX_BOUNDARY_PARTICLES) + 1),
                 PBF_ERROR_CAPACITY_EXCEEDED, "pbf_solver_add_boundary_particles", "count");
  ASSERT_EQ(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), 3), PBF_OK) << pbf_last_error();
  expect_refused(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), PBF_MAX_BOUNDARY_PARTICLES - 2),
                 PBF_ERROR_CAPACITY_EXCEEDED, "pbf_solver_add_boundary_particles", "count");
  expect_refused(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), std::numeric_limits<size_t>::max()),
                 PBF_ERROR_CAPACITY_EXCEEDED, "pbf_solver_add_boundary_particles", "count");
  EXPECT_EQ(count(), 3u);
}

TEST_F(CApiBoundary, DomainWallsAreSampledAndCountedAndClearingRemovesEverything) {
  ASSERT_EQ(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), 3), PBF_OK) << pbf_last_error();
  size_t added = 0;
  ASSERT_EQ(pbf_solver_add_domain_boundary_particles(solver_.get(), &added), PBF_OK) << pbf_last_error();
  // Six faces of a box about 1 m wide at about 0.05 m: 21 or 22 points a side.
  EXPECT_GE(added, size_t(21 * 21 * 21 - 19 * 19 * 19));
  EXPECT_LE(added, size_t(23 * 23 * 23 - 21 * 21 * 21));
  EXPECT_EQ(count(), 3u + added);
  EXPECT_EQ(pbf_solver_add_domain_boundary_particles(solver_.get(), nullptr), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 3u + 2 * added);
  ASSERT_EQ(pbf_solver_clear_boundary_particles(solver_.get()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 0u);
}

TEST(CApiBoundaryWalls, WallsNeedingMoreThanTheCapacityAreRefusedAndNothingIsAdded) {
  // A flat 80 x 0.02 x 80 m domain at 1 cm: 16 million grid cells, but about
  // 128 million wall samples, more than PBF_MAX_BOUNDARY_PARTICLES.
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.max_particles = 16;
  d.particle_spacing = 0.01f;
  d.domain_max[0] = 80.0f;
  d.domain_max[1] = 0.02f;
  d.domain_max[2] = 80.0f;
  SolverPtr s = pbf_test::make_solver(d);
  ASSERT_TRUE(s);
  size_t added = 7;
  expect_refused(pbf_solver_add_domain_boundary_particles(s.get(), &added), PBF_ERROR_CAPACITY_EXCEEDED,
                 "pbf_solver_add_domain_boundary_particles", "boundary particles");
  EXPECT_EQ(added, 7u);
  size_t n = 99;
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(s.get(), &n), PBF_OK);
  EXPECT_EQ(n, 0u);
}

TEST_F(CApiBoundary, CallsDuringAnAsynchronousStepAreRefusedAsBusy) {
  const float lo[3] = {0.2f, 0.2f, 0.2f}, hi[3] = {0.4f, 0.4f, 0.4f};
  ASSERT_EQ(pbf_solver_fill_box(solver_.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step_async(solver_.get(), 0.01f, 1), PBF_OK) << pbf_last_error();
  size_t n = 0;
  expect_refused(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), 3), PBF_ERROR_BUSY,
                 "pbf_solver_add_boundary_particles", "pbf_solver_wait");
  expect_refused(pbf_solver_add_domain_boundary_particles(solver_.get(), nullptr), PBF_ERROR_BUSY,
                 "pbf_solver_add_domain_boundary_particles", "pbf_solver_wait");
  expect_refused(pbf_solver_get_boundary_particle_count(solver_.get(), &n), PBF_ERROR_BUSY,
                 "pbf_solver_get_boundary_particle_count", "pbf_solver_wait");
  expect_refused(pbf_solver_clear_boundary_particles(solver_.get()), PBF_ERROR_BUSY,
                 "pbf_solver_clear_boundary_particles", "pbf_solver_wait");
  ASSERT_EQ(pbf_solver_wait(solver_.get()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 0u);
}

TEST_F(CApiBoundary, SamplesUnderRestingFluidHoldItUpAndClearingThemLetsItSettle) {
  // Samples a spacing under a particle at rest push it up; without them it falls to the floor.
  const float p[3] = {0.5f, 0.2f, 0.5f};
  ASSERT_EQ(pbf_solver_add_particles(solver_.get(), p, nullptr, 1), PBF_OK) << pbf_last_error();
  std::vector<float> layer;
  for (int i = -3; i <= 3; ++i)
    for (int k = -3; k <= 3; ++k) {
      layer.push_back(0.5f + 0.05f * float(i));
      layer.push_back(0.17f);
      layer.push_back(0.5f + 0.05f * float(k));
    }
  ASSERT_EQ(pbf_solver_add_boundary_particles(solver_.get(), layer.data(), layer.size() / 3), PBF_OK)
      << pbf_last_error();
  for (int k = 0; k < 30; ++k) ASSERT_EQ(pbf_solver_step(solver_.get(), 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
  float x[3];
  ASSERT_EQ(pbf_solver_get_positions(solver_.get(), x, 3), PBF_OK) << pbf_last_error();
  EXPECT_GT(x[1], 0.17f);  // resting above the layer
  float rho = 0.0f;
  ASSERT_EQ(pbf_solver_get_densities(solver_.get(), &rho, 1), PBF_OK) << pbf_last_error();
  EXPECT_GT(rho, 0.0f);
  ASSERT_EQ(pbf_solver_clear_boundary_particles(solver_.get()), PBF_OK) << pbf_last_error();
  for (int k = 0; k < 60; ++k) ASSERT_EQ(pbf_solver_step(solver_.get(), 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_get_positions(solver_.get(), x, 3), PBF_OK) << pbf_last_error();
  EXPECT_LT(x[1], 0.03f);  // on the floor, half a spacing up
}

// A small CPU solver of the Projective Fluids method.
SolverPtr projective_solver() {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.max_particles = 64;
  d.particle_spacing = 0.05f;
  d.method = PBF_METHOD_PROJECTIVE;
  return pbf_test::make_solver(d);
}

// Projective Fluids counts boundary particles in its density, as PBF does:
// one particle with a sample beside it is denser than one alone.
TEST(CApiBoundaryMethod, AProjectiveFluidsSolverCountsBoundaryParticlesInItsDensity) {
  float density[2];
  for (const bool sample : {false, true}) {
    const SolverPtr solver = projective_solver();
    ASSERT_TRUE(solver);
    pbf_params p = pbf_params_default();
    p.gravity[1] = 0.0f;
    ASSERT_EQ(pbf_solver_set_params(solver.get(), &p), PBF_OK) << pbf_last_error();
    const float x[3] = {0.5f, 0.5f, 0.5f}, beside[3] = {0.55f, 0.5f, 0.5f};
    ASSERT_EQ(pbf_solver_add_particles(solver.get(), x, nullptr, 1), PBF_OK) << pbf_last_error();
    if (sample) ASSERT_EQ(pbf_solver_add_boundary_particles(solver.get(), beside, 1), PBF_OK) << pbf_last_error();
    size_t count = 9;
    ASSERT_EQ(pbf_solver_get_boundary_particle_count(solver.get(), &count), PBF_OK);
    EXPECT_EQ(count, sample ? 1u : 0u);
    ASSERT_EQ(pbf_solver_step(solver.get(), 1.0f / 60.0f, 1), PBF_OK) << pbf_last_error();
    ASSERT_EQ(pbf_solver_get_densities(solver.get(), &density[sample], 1), PBF_OK) << pbf_last_error();
  }
  EXPECT_GT(density[1], density[0] * 1.1f) << "alone " << density[0] << ", beside a sample " << density[1];
}

// An obstacle for the attached samples: a ball of radius 0.15 m at the domain's middle.
uint32_t add_ball(pbf_solver* solver) {
  pbf_sdf* ball = nullptr;
  EXPECT_EQ(pbf_sdf_sphere(0.15f, 0.025f, &ball), PBF_OK) << pbf_last_error();
  const float at[3] = {0.5f, 0.5f, 0.5f};
  uint32_t index = 99;
  EXPECT_EQ(pbf_solver_add_obstacle(solver, ball, nullptr, at, &index), PBF_OK) << pbf_last_error();
  pbf_sdf_destroy(ball);
  return index;
}

TEST_F(CApiBoundary, AnObstaclesSamplesAreCountedWithTheOthers) {
  const uint32_t ball = add_ball(solver_.get());
  size_t added = 0;
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver_.get(), ball, &added), PBF_OK) << pbf_last_error();
  // A ball of radius 0.15 m sampled about 0.033 m inside at 0.05 m: about 4 pi 0.117^2 / 0.05^2 = 69 samples.
  EXPECT_GT(added, 40u);
  EXPECT_LT(added, 120u);
  EXPECT_EQ(count(), added);
  ASSERT_EQ(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), 3), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), added + 3);
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver_.get(), ball, nullptr), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 2 * added + 3) << "a second call adds the samples a second time";
}

TEST_F(CApiBoundary, ClearingTheObstaclesRemovesTheirSamplesAndKeepsTheStaticOnes) {
  const uint32_t ball = add_ball(solver_.get());
  ASSERT_EQ(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), 3), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver_.get(), ball, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_GT(count(), 3u);
  ASSERT_EQ(pbf_solver_clear_obstacles(solver_.get()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 3u);
}

TEST_F(CApiBoundary, ClearingTheBoundaryParticlesRemovesAnObstaclesSamplesAndKeepsTheObstacle) {
  const uint32_t ball = add_ball(solver_.get());
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver_.get(), ball, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_clear_boundary_particles(solver_.get()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 0u);
  uint32_t obstacles = 0;
  ASSERT_EQ(pbf_solver_get_obstacle_count(solver_.get(), &obstacles), PBF_OK) << pbf_last_error();
  EXPECT_EQ(obstacles, 1u);
  // A particle near the ball still steps with the ball moved (no samples left to move).
  const float p[3] = {0.5f, 0.8f, 0.5f}, to[3] = {0.45f, 0.5f, 0.5f};
  ASSERT_EQ(pbf_solver_add_particles(solver_.get(), p, nullptr, 1), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_set_obstacle_pose(solver_.get(), ball, nullptr, to), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_step(solver_.get(), 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
}

TEST_F(CApiBoundary, AnObstacleIndexThatNamesNoObstacleIsRefused) {
  size_t added = 7;
  expect_refused(pbf_solver_add_obstacle_boundary_particles(solver_.get(), 0, &added), PBF_ERROR_INVALID_ARGUMENT,
                 "pbf_solver_add_obstacle_boundary_particles", "index 0 names no obstacle");
  const uint32_t ball = add_ball(solver_.get());
  expect_refused(pbf_solver_add_obstacle_boundary_particles(solver_.get(), ball + 1, &added),
                 PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_add_obstacle_boundary_particles", "index 1");
  expect_refused(pbf_solver_add_obstacle_boundary_particles(nullptr, 0, &added), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_add_obstacle_boundary_particles", "solver");
  EXPECT_EQ(added, 7u) << "nothing written on failure";
  EXPECT_EQ(count(), 0u);
}

// A ball obstacle of `radius` at `at`, for scenes with more than one.
uint32_t add_ball_at(pbf_solver* solver, float radius, const float at[3]) {
  pbf_sdf* ball = nullptr;
  EXPECT_EQ(pbf_sdf_sphere(radius, 0.025f, &ball), PBF_OK) << pbf_last_error();
  uint32_t index = 99;
  EXPECT_EQ(pbf_solver_add_obstacle(solver, ball, nullptr, at, &index), PBF_OK) << pbf_last_error();
  pbf_sdf_destroy(ball);
  return index;
}

TEST_F(CApiBoundary, RemovingAnObstaclesSamplesKeepsEveryOtherSample) {
  const float at_a[3] = {0.3f, 0.5f, 0.5f}, at_b[3] = {0.7f, 0.5f, 0.5f};
  const uint32_t a = add_ball_at(solver_.get(), 0.12f, at_a);
  const uint32_t b = add_ball_at(solver_.get(), 0.12f, at_b);
  size_t walls = 0, on_a = 0, on_b = 0;
  ASSERT_EQ(pbf_solver_add_domain_boundary_particles(solver_.get(), &walls), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver_.get(), a, &on_a), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), 3), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver_.get(), b, &on_b), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver_.get(), a, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_GT(on_a, 0u);
  ASSERT_EQ(count(), walls + 2 * on_a + 3 + on_b);

  size_t removed = 0;
  ASSERT_EQ(pbf_solver_remove_obstacle_boundary_particles(solver_.get(), a, &removed), PBF_OK) << pbf_last_error();
  EXPECT_EQ(removed, 2 * on_a) << "both calls' samples go";
  EXPECT_EQ(count(), walls + 3 + on_b);
  removed = 7;
  ASSERT_EQ(pbf_solver_remove_obstacle_boundary_particles(solver_.get(), a, &removed), PBF_OK) << pbf_last_error();
  EXPECT_EQ(removed, 0u) << "none left on the obstacle";
  EXPECT_EQ(pbf_solver_remove_obstacle_boundary_particles(solver_.get(), b, nullptr), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), walls + 3);
  uint32_t obstacles = 0;
  ASSERT_EQ(pbf_solver_get_obstacle_count(solver_.get(), &obstacles), PBF_OK) << pbf_last_error();
  EXPECT_EQ(obstacles, 2u) << "the obstacles stay";
  // The obstacle takes samples again afterwards.
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver_.get(), a, &removed), PBF_OK) << pbf_last_error();
  EXPECT_EQ(removed, on_a);
}

TEST_F(CApiBoundary, RemovingSamplesOfAnIndexThatNamesNoObstacleIsRefusedAndChangesNothing) {
  size_t removed = 7;
  expect_refused(pbf_solver_remove_obstacle_boundary_particles(solver_.get(), 0, &removed),
                 PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_remove_obstacle_boundary_particles",
                 "index 0 names no obstacle");
  const uint32_t ball = add_ball(solver_.get());
  ASSERT_EQ(pbf_solver_add_boundary_particles(solver_.get(), three_.data(), 3), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver_.get(), ball, nullptr), PBF_OK) << pbf_last_error();
  const size_t before = count();
  expect_refused(pbf_solver_remove_obstacle_boundary_particles(solver_.get(), ball + 1, &removed),
                 PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_remove_obstacle_boundary_particles", "index 1");
  expect_refused(pbf_solver_remove_obstacle_boundary_particles(solver_.get(), UINT32_MAX, &removed),
                 PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_remove_obstacle_boundary_particles", "index 4294967295");
  expect_refused(pbf_solver_remove_obstacle_boundary_particles(nullptr, 0, &removed), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_remove_obstacle_boundary_particles", "solver");
  EXPECT_EQ(removed, 7u) << "nothing written on failure";
  EXPECT_EQ(count(), before);
}

TEST_F(CApiBoundary, RemovingSamplesDuringAnAsynchronousStepIsRefusedAsBusy) {
  const uint32_t ball = add_ball(solver_.get());
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver_.get(), ball, nullptr), PBF_OK) << pbf_last_error();
  const size_t before = count();
  const float lo[3] = {0.1f, 0.7f, 0.1f}, hi[3] = {0.3f, 0.9f, 0.3f};
  ASSERT_EQ(pbf_solver_fill_box(solver_.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step_async(solver_.get(), 0.01f, 1), PBF_OK) << pbf_last_error();
  expect_refused(pbf_solver_remove_obstacle_boundary_particles(solver_.get(), ball, nullptr), PBF_ERROR_BUSY,
                 "pbf_solver_remove_obstacle_boundary_particles", "pbf_solver_wait");
  ASSERT_EQ(pbf_solver_wait(solver_.get()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), before);
}

// Water in a tank with sampled walls and two half-submerged balls; `samples_on` says which balls
// carry samples (bit 0: ball A, bit 1: ball B), and `remove_a` adds A's samples first and removes
// them before stepping. Returns the densities after a few steps.
std::vector<float> densities_around_two_balls(unsigned samples_on, bool remove_a) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.max_particles = 4096;
  d.particle_spacing = 0.05f;  // kernel radius 0.1 m; domain (0,0,0)-(1,1,1)
  const SolverPtr solver = pbf_test::make_solver(d);
  if (!solver) return {};
  const float at_a[3] = {0.3f, 0.3f, 0.5f}, at_b[3] = {0.7f, 0.3f, 0.5f};
  const uint32_t a = add_ball_at(solver.get(), 0.12f, at_a);
  const uint32_t b = add_ball_at(solver.get(), 0.12f, at_b);
  EXPECT_EQ(pbf_solver_add_domain_boundary_particles(solver.get(), nullptr), PBF_OK) << pbf_last_error();
  if ((samples_on & 1u) || remove_a)
    EXPECT_EQ(pbf_solver_add_obstacle_boundary_particles(solver.get(), a, nullptr), PBF_OK) << pbf_last_error();
  if (samples_on & 2u)
    EXPECT_EQ(pbf_solver_add_obstacle_boundary_particles(solver.get(), b, nullptr), PBF_OK) << pbf_last_error();
  if (remove_a)
    EXPECT_EQ(pbf_solver_remove_obstacle_boundary_particles(solver.get(), a, nullptr), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {1.0f, 0.3f, 1.0f};
  EXPECT_EQ(pbf_solver_fill_box(solver.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  for (int k = 0; k < 5; ++k) EXPECT_EQ(pbf_solver_step(solver.get(), 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
  std::vector<float> rho(pbf_test::count_of(solver.get()));
  EXPECT_EQ(pbf_solver_get_densities(solver.get(), rho.data(), rho.size()), PBF_OK) << pbf_last_error();
  return rho;
}

TEST(CApiBoundaryRemoval, FluidMovesAsIfTheRemovedSamplesHadNeverBeenAddedAndTheRestKeepTheirPseudoMasses) {
  // The walls' and ball B's samples keep their order and pseudo-masses, so the densities after
  // removing A's samples equal, bit for bit, those of the scene where A never had any; ball A's
  // samples did matter while they were there.
  const std::vector<float> removed = densities_around_two_balls(2u, true);
  const std::vector<float> never = densities_around_two_balls(2u, false);
  const std::vector<float> kept = densities_around_two_balls(3u, false);
  ASSERT_EQ(removed.size(), never.size());
  ASSERT_EQ(removed.size(), kept.size());
  ASSERT_GT(removed.size(), 1000u);
  size_t different = 0;
  for (size_t i = 0; i < removed.size(); ++i) {
    EXPECT_EQ(removed[i], never[i]) << "particle " << i;
    if (kept[i] != never[i]) ++different;
  }
  EXPECT_GT(different, 0u) << "ball A's samples changed nothing while attached";
}

TEST_F(CApiBoundary, AttachingSamplesDuringAnAsynchronousStepIsRefusedAsBusy) {
  const uint32_t ball = add_ball(solver_.get());
  const float lo[3] = {0.1f, 0.7f, 0.1f}, hi[3] = {0.3f, 0.9f, 0.3f};
  ASSERT_EQ(pbf_solver_fill_box(solver_.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step_async(solver_.get(), 0.01f, 1), PBF_OK) << pbf_last_error();
  expect_refused(pbf_solver_add_obstacle_boundary_particles(solver_.get(), ball, nullptr), PBF_ERROR_BUSY,
                 "pbf_solver_add_obstacle_boundary_particles", "pbf_solver_wait");
  ASSERT_EQ(pbf_solver_wait(solver_.get()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count(), 0u);
}

TEST(CApiBoundaryMethod, AProjectiveFluidsSolverTakesAnObstaclesSamples) {
  const SolverPtr solver = projective_solver();
  ASSERT_TRUE(solver);
  const uint32_t ball = add_ball(solver.get());
  size_t added = 0;
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver.get(), ball, &added), PBF_OK) << pbf_last_error();
  EXPECT_GT(added, 0u);
  size_t count = 0;
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(solver.get(), &count), PBF_OK);
  EXPECT_EQ(count, added);
  ASSERT_EQ(pbf_solver_step(solver.get(), 1.0f / 60.0f, 1), PBF_OK) << pbf_last_error();
}

}  // namespace
