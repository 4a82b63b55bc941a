// Unit tests of boundary particles (Akinci et al. 2012): the pseudo-masses
// the CPU backend gives a set of samples, the density a wall adds to fluid
// resting on it, and the boundary terms of the density constraint against a
// direct double-precision evaluation and finite differences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "core/config.h"
#include "core/error.h"
#include "boundary/boundary_equations.h"
#include "boundary/boundary_sampling.h"
#include "methods/pbf/pbf_equations.h"
#include "solver/solver.h"
#include "summed_push.h"

namespace {

using pbf::BoundarySamples;
using pbf::CpuBackend;
using pbf::KernelConstants;
using pbf::SolverConfig;
using pbf::Vec3;

constexpr double kPiD = 3.14159265358979323846;
constexpr float kSpacing = 0.1f;
constexpr float kRadius = 2.0f * kSpacing;

SolverConfig make_config() {
  SolverConfig config;
  config.max_particles = 4096;
  config.particle_spacing = kSpacing;
  config.kernel_radius = kRadius;
  config.rest_density = 1000.0f;
  config.domain_min = Vec3{-1.0f, -1.0f, -1.0f};
  config.domain_max = Vec3{1.0f, 1.0f, 1.0f};
  config.thread_count = 2;
  config.max_neighbors = 64;
  return config;
}

double poly6(double h, double r2) {
  if (r2 >= h * h) return 0.0;
  const double d = h * h - r2;
  return 315.0 / (64.0 * kPiD * std::pow(h, 9)) * d * d * d;
}

// The Spiky kernel itself, 15 / (pi h^6) (h - r)^3: PBF takes its gradient
// where the Poly6 density would need one.
double spiky(double h, double r) { return r >= h ? 0.0 : 15.0 / (kPiD * std::pow(h, 6)) * std::pow(h - r, 3); }

double dist2(Vec3 a, Vec3 b) {
  const double x = double(a.x) - b.x, y = double(a.y) - b.y, z = double(a.z) - b.z;
  return x * x + y * y + z * z;
}

// The samples of a view, in its order, as plain vectors.
std::vector<Vec3> positions_of(const BoundarySamples& b) { return std::vector<Vec3>(b.x, b.x + b.count); }

TEST(BoundaryPseudoMass, EachSampleGetsRestDensityOverItsOwnKernelSum) {
  // Random samples: psi_b = rho0 / sum_k W(x_b - x_k), the sum over all
  // samples (b included), evaluated here by brute force in double.
  const SolverConfig config = make_config();
  CpuBackend backend(config);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-0.3f, 0.3f);
  std::vector<Vec3> samples(400);
  for (Vec3& s : samples) s = Vec3{u(rng), u(rng), u(rng)};
  backend.set_boundary_particles(samples.data(), nullptr, nullptr, samples.size(), pbf::DensityKernel::Poly6);
  const BoundarySamples b = backend.boundary_samples();
  ASSERT_EQ(b.count, samples.size());
  const std::vector<Vec3> sorted = positions_of(b);
  for (uint32_t i = 0; i < b.count; ++i) {
    double sum = 0.0;
    for (const Vec3& s : sorted) sum += poly6(kRadius, dist2(sorted[i], s));
    EXPECT_NEAR(b.psi[i], 1000.0 / sum, 1e-4 * 1000.0 / sum) << "sample " << i;  // float sums: 1e-4 relative
  }
}

TEST(BoundaryPseudoMass, ClearingTheSamplesLeavesNone) {
  CpuBackend backend(make_config());
  const Vec3 one{0.0f, 0.0f, 0.0f};
  backend.set_boundary_particles(&one, nullptr, nullptr, 1, pbf::DensityKernel::Poly6);
  EXPECT_EQ(backend.boundary_samples().count, 1u);
  // A lone sample: psi = rho0 / W(0).
  EXPECT_NEAR(backend.boundary_samples().psi[0], 1000.0 / poly6(kRadius, 0.0), 1e-3);
  backend.set_boundary_particles(nullptr, nullptr, nullptr, 0, pbf::DensityKernel::Poly6);
  EXPECT_EQ(backend.boundary_samples().count, 0u);
  EXPECT_EQ(pbf::boundary_density(KernelConstants::make(kRadius), backend.boundary_samples(), one), 0.0f);
}

// The pseudo-mass of each sample of a view, by its position.
float psi_at(const BoundarySamples& b, Vec3 p) {
  for (uint32_t k = 0; k < b.count; ++k)
    if (dist2(b.x[k], p) < 1e-12) return b.psi[k];
  ADD_FAILURE() << "no sample at (" << p.x << ", " << p.y << ", " << p.z << ")";
  return 0.0f;
}

TEST(BoundaryPseudoMass, EachBodyCountsOnlyItsOwnSamples) {
  // A static layer at y = 0 and an obstacle's layer half a kernel radius
  // above it: each keeps the pseudo-masses it has alone, so an obstacle's
  // stay the same wherever it moves.
  const SolverConfig config = make_config();
  std::vector<Vec3> wall, lid;
  for (int i = -3; i <= 3; ++i)
    for (int k = -3; k <= 3; ++k) {
      wall.push_back(Vec3{i * kSpacing, 0.0f, k * kSpacing});
      lid.push_back(Vec3{i * kSpacing + 0.03f, 0.5f * kRadius, k * kSpacing});
    }
  CpuBackend alone(config);
  alone.set_boundary_particles(wall.data(), nullptr, nullptr, wall.size(), pbf::DensityKernel::Poly6);
  const std::vector<float> wall_psi(alone.boundary_samples().psi, alone.boundary_samples().psi + wall.size());
  std::vector<Vec3> wall_sorted = positions_of(alone.boundary_samples());
  alone.set_boundary_particles(lid.data(), nullptr, nullptr, lid.size(), pbf::DensityKernel::Poly6);
  std::vector<float> lid_psi;
  for (const Vec3& p : lid) lid_psi.push_back(psi_at(alone.boundary_samples(), p));

  std::vector<Vec3> both = wall;
  both.insert(both.end(), lid.begin(), lid.end());
  std::vector<uint32_t> body(wall.size(), pbf::kStaticBoundary);
  body.resize(both.size(), 0u);  // the lid moves with obstacle 0, here where it is (local = world)
  CpuBackend backend(config);
  backend.set_boundary_particles(both.data(), body.data(), both.data(), both.size(), pbf::DensityKernel::Poly6);
  const BoundarySamples b = backend.boundary_samples();
  ASSERT_EQ(b.count, both.size());
  for (size_t k = 0; k < wall.size(); ++k)
    EXPECT_FLOAT_EQ(psi_at(b, wall_sorted[k]), wall_psi[k]) << "wall sample " << k;
  for (size_t k = 0; k < lid.size(); ++k) EXPECT_FLOAT_EQ(psi_at(b, lid[k]), lid_psi[k]) << "lid sample " << k;
}

// A small box obstacle's field: 0.1 m across, centred on its frame's origin, on a grid of 4^3 samples 5 cm apart.
struct SmallBox {
  std::vector<float> values = std::vector<float>(4 * 4 * 4);
  pbf::SdfGridView field{values.data(), 4, 4, 4, Vec3{-0.075f, -0.075f, -0.075f}, 0.05f};
  SmallBox() {
    for (int z = 0; z < 4; ++z)
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x)
          values[x + 4 * (y + 4 * z)] =
              std::max({std::fabs(x - 1.5f), std::fabs(y - 1.5f), std::fabs(z - 1.5f)}) * 0.05f - 0.05f;
  }
  SmallBox(const SmallBox&) = delete;
  SmallBox& operator=(const SmallBox&) = delete;
};

TEST(BoundaryMoving, SamplesAttachedToAnObstacleFollowItsPose) {
  // An obstacle (a small box field) with samples in its own frame, moved and
  // turned by one step: afterwards the backend holds every sample at
  // pose * local (float round-off: 1e-5 m), and the static ones where they were.
  SolverConfig config = make_config();
  config.backend = pbf::BackendKind::Cpu;
  pbf::Solver solver(pbf::resolve_config(config));
  const SmallBox box;
  const pbf::SdfGridView& field = box.field;
  const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  const uint32_t index = solver.add_obstacle(field, identity, Vec3{-0.5f, -0.5f, -0.5f});
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.05f, 0.05f);
  std::vector<Vec3> local(60);
  for (Vec3& p : local) p = Vec3{u(rng), u(rng), u(rng)};
  const float fixed[3] = {0.8f, -0.9f, 0.8f};
  solver.add_boundary_particles(fixed, 1);
  solver.add_obstacle_boundary_particles(index, local.data(), local.size());
  EXPECT_EQ(solver.boundary_particle_count(), local.size() + 1);
  const float far[3] = {0.8f, 0.8f, 0.8f};  // one fluid particle, far from both, so that the step runs
  solver.add_particles(far, nullptr, 1);

  const float half = 0.5f * 0.6f;  // a turn of 0.6 rad about z
  const float turn[4] = {0.0f, 0.0f, std::sin(half), std::cos(half)};
  const Vec3 to{0.2f, -0.1f, 0.3f};
  solver.set_obstacle_pose(index, turn, to);
  solver.step(1.0f / 60.0f, 3);
  const auto& backend = static_cast<const CpuBackend&>(solver.backend());
  const BoundarySamples b = backend.boundary_samples();
  ASSERT_EQ(b.count, local.size() + 1);
  const pbf::RigidTransform pose = pbf::rigid_transform(turn, to);
  auto nearest = [&](Vec3 p) {
    double best = 1e30;
    for (uint32_t k = 0; k < b.count; ++k) best = std::min(best, dist2(b.x[k], p));
    return std::sqrt(best);
  };
  for (size_t k = 0; k < local.size(); ++k)
    EXPECT_LT(nearest(pbf::to_world(pose, local[k])), 1e-5) << "sample " << k;
  EXPECT_LT(nearest(Vec3{fixed[0], fixed[1], fixed[2]}), 1e-7) << "the static sample";
  // And still in cell order of the grid, as the density stages expect.
  for (uint32_t k = 0; k + 1 < b.count; ++k)
    EXPECT_LE(b.grid.cell_index(b.x[k]), b.grid.cell_index(b.x[k + 1])) << "place " << k;

  // Clearing the obstacles takes their samples along; the static one stays.
  solver.clear_obstacles();
  EXPECT_EQ(solver.boundary_particle_count(), 1u);
  EXPECT_EQ(static_cast<const CpuBackend&>(solver.backend()).boundary_samples().count, 1u);
  EXPECT_THROW(solver.add_obstacle_boundary_particles(0, local.data(), 1), pbf::Error);
}

TEST(BoundaryMoving, SamplesFollowAYieldingObstacleInPlace) {
  // Between a substep's iterations a dynamic body yields (docs/PHYSICS.md
  // §13): follow_obstacles() moves the samples attached to it to its new end
  // pose without sorting them again. Every sample of the obstacle is then at
  // new pose * local, in the place (and with the pseudo-mass) the substep's
  // sort gave it; the static one keeps its place and position.
  const SolverConfig config = make_config();
  CpuBackend backend(config);
  const SmallBox box;
  const pbf::SdfGridView& field = box.field;
  backend.set_obstacle_fields(&field, 1);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-0.05f, 0.05f);
  std::vector<Vec3> local(60), world(61);
  std::vector<uint32_t> body(61, 0u);
  for (Vec3& p : local) p = Vec3{u(rng), u(rng), u(rng)};
  const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  const pbf::RigidTransform start = pbf::rigid_transform(identity, Vec3{0.1f, 0.2f, -0.3f});
  for (size_t k = 0; k < local.size(); ++k) world[k] = pbf::to_world(start, local[k]);
  local.push_back(Vec3{0.8f, -0.9f, 0.8f});  // the static one: its world position
  world[60] = local[60];
  body[60] = pbf::kStaticBoundary;
  backend.set_boundary_particles(world.data(), body.data(), local.data(), world.size(), pbf::DensityKernel::Poly6);
  const float far[3] = {0.8f, 0.8f, 0.8f};
  backend.append(far, nullptr, 1);

  pbf::PbfParams params;
  pbf::ObstaclePose pose{start, start};
  pbf::StepContext ctx{};
  ctx.motion = pbf::make_pbf_constants(config, params, 1.0f / 240.0f);
  ctx.obstacle_poses = &pose;
  ctx.obstacle_count = 1;
  backend.predict(ctx);
  backend.build_grid(ctx);
  const BoundarySamples sorted = backend.boundary_samples();
  const std::vector<Vec3> before = positions_of(sorted);
  const std::vector<float> psi(sorted.psi, sorted.psi + sorted.count);

  // A yield: 4 mm along x and 0.02 rad about y.
  const float turn[4] = {0.0f, std::sin(0.01f), 0.0f, std::cos(0.01f)};
  pose.end = pbf::rigid_transform(turn, Vec3{0.104f, 0.2f, -0.3f});
  backend.follow_obstacles(ctx);
  const BoundarySamples b = backend.boundary_samples();
  ASSERT_EQ(b.count, world.size());
  EXPECT_EQ(b.cell_start, sorted.cell_start) << "the same grid";
  for (uint32_t k = 0; k < b.count; ++k) {
    EXPECT_EQ(b.psi[k], psi[k]) << "place " << k;
    if (b.body[k] == pbf::kStaticBoundary) {
      EXPECT_EQ(b.x[k].x, before[k].x);
      EXPECT_EQ(b.x[k].y, before[k].y);
      EXPECT_EQ(b.x[k].z, before[k].z);
      continue;
    }
    // The sample of this place: the one whose start position the sort put here.
    size_t which = local.size();
    for (size_t i = 0; i + 1 < local.size(); ++i)
      if (dist2(pbf::to_world(start, local[i]), before[k]) < 1e-14) which = i;
    ASSERT_LT(which, local.size() - 1) << "place " << k;
    EXPECT_LT(std::sqrt(dist2(b.x[k], pbf::to_world(pose.end, local[which]))), 1e-6) << "place " << k;
    EXPECT_GT(std::sqrt(dist2(b.x[k], before[k])), 0.003) << "place " << k << " moved";
  }
}

TEST(BoundaryWalls, FluidRestingOnTheFloorHasRestDensity) {
  // A rest lattice of fluid whose bottom layer sits half a spacing above the
  // floor of the domain (where collisions keep it and fill_box puts it),
  // over the solver's own samples of the six walls.
  const SolverConfig config = make_config();
  CpuBackend backend(config);
  const std::vector<Vec3> walls = pbf::sample_domain_walls(config, size_t(1) << 26);
  backend.set_boundary_particles(walls.data(), nullptr, nullptr, walls.size(), pbf::DensityKernel::Poly6);
  const BoundarySamples b = backend.boundary_samples();
  const KernelConstants k = KernelConstants::make(kRadius);
  const double mass = pbf::pbf_particle_mass(config);
  // Fluid neighbours of a bottom particle at p: the half lattice above it.
  auto fluid_density = [&](Vec3 p) {
    double sum = 0.0;
    for (int x = -3; x <= 3; ++x)
      for (int y = 0; y <= 3; ++y)
        for (int z = -3; z <= 3; ++z) {
          const Vec3 q{p.x + x * kSpacing, p.y + y * kSpacing, p.z + z * kSpacing};
          sum += poly6(kRadius, dist2(p, q));
        }
    return mass * sum;
  };
  const float floor_y = config.domain_min.y + 0.5f * kSpacing;
  double worst = 0.0;
  for (const float x : {-0.45f, -0.05f, 0.0f, 0.35f})
    for (const float z : {-0.25f, 0.05f, 0.5f}) {
      const Vec3 p{x, floor_y, z};
      const double without = fluid_density(p);
      const double with = without + pbf::boundary_density(k, b, p);
      // Without the wall the bottom layer lacks the lower half of its kernel: about 19 % at h = 2 s.
      EXPECT_LT(without, 0.85 * 1000.0);
      // The boundary density rises towards the wall, so the gradient points into it.
      float rho_b = 0.0f;
      Vec3 grad{};
      pbf::boundary_density_gradient(k, b, p, rho_b, grad);
      EXPECT_LT(grad.y, 0.0f);
      EXPECT_LT(std::fabs(grad.x) + std::fabs(grad.z), 0.05f * std::fabs(grad.y));
      worst = std::max(worst, std::fabs(with / 1000.0 - 1.0));
    }
  // 1 %: the wall's samples do not line up with the fluid lattice, and their
  // step is rounded to fit the domain; the setback assumes the average alignment.
  EXPECT_LT(worst, 0.01);
}

TEST(BoundaryWalls, SamplesCoverEveryWallOnceAtAboutTheSpacing) {
  const SolverConfig config = make_config();
  const float back = pbf::wall_sample_setback(kSpacing, kRadius, pbf::Method::Pbf);
  // About 0.66 spacings at h = 2 s; never more than the kernel radius.
  EXPECT_NEAR(back / kSpacing, 0.66, 0.02);
  const std::vector<Vec3> walls = pbf::sample_domain_walls(config, size_t(1) << 26);
  // The grown box is 2.13 m wide: 21 intervals of 0.1015 m on each axis, 22 points;
  // its surface holds 22^3 - 20^3 lattice points.
  EXPECT_EQ(walls.size(), size_t(22 * 22 * 22 - 20 * 20 * 20));
  const float out = 1.0f + back;
  for (const Vec3& s : walls) {
    const float m = std::max(std::fabs(s.x), std::max(std::fabs(s.y), std::fabs(s.z)));
    EXPECT_NEAR(m, out, 1e-5f);  // on the surface of the grown box
  }
  // More samples than allowed are refused before they are made.
  EXPECT_THROW(pbf::sample_domain_walls(config, walls.size() - 1), pbf::Error);
  for (size_t i = 0; i < walls.size(); ++i)
    for (size_t j = i + 1; j < walls.size(); ++j) ASSERT_GT(dist2(walls[i], walls[j]), 0.5 * kSpacing * kSpacing);
}

TEST(BoundaryNear, OnlyParticlesWithinReachOfASampleAreMarkedAndUnmarkedOnesSkipTheScan) {
  CpuBackend backend(make_config());
  const Vec3 sample{0.0f, 0.0f, 0.0f};
  backend.set_boundary_particles(&sample, nullptr, nullptr, 1, pbf::DensityKernel::Poly6);
  BoundarySamples b = backend.boundary_samples();
  const float reach = pbf::kBoundaryNearReach * kRadius;
  EXPECT_EQ(pbf::boundary_near_mark(b, Vec3{0.99f * reach, 0.0f, 0.0f}, reach), pbf::kNearSample);
  EXPECT_EQ(pbf::boundary_near_mark(b, Vec3{0.0f, 1.01f * reach, 0.0f}, reach), 0u);
  // A fluid particle at half the kernel radius: marked, it gets the sample's density; unmarked, none.
  pbf::PbfParams params;
  const pbf::PbfConstants c = pbf::make_pbf_constants(make_config(), params, 1.0f / 120.0f);
  const Vec3 x[1] = {Vec3{0.5f * kRadius, 0.0f, 0.0f}};
  const uint32_t index[1] = {0}, count[1] = {0};
  const pbf::NeighborLists nb = pbf::NeighborLists::particle_major(index, count, 1);
  const uint8_t marked[1] = {1}, unmarked[1] = {0};
  b.near = marked;
  const float with = pbf::density(c, 0, nb, x, b, pbf::DensityWalls{});
  b.near = unmarked;
  EXPECT_EQ(pbf::density(c, 0, nb, x, b, pbf::DensityWalls{}), pbf::density(c, 0, nb, x));
  EXPECT_GT(with, pbf::density(c, 0, nb, x));
}

// The mark's second bit: set where a body's sample lies within reach, whether
// or not a static one lies nearer; the reliefs after a body's yield scan
// only the particles it marks.
TEST(BoundaryNear, TheMarkTellsParticlesNearABodysSampleFromThoseNearOnlyStaticOnes) {
  CpuBackend backend(make_config());
  const float reach = pbf::kBoundaryNearReach * kRadius;
  const Vec3 samples[2] = {Vec3{-0.5f, 0.0f, 0.0f}, Vec3{-0.5f + 1.5f * reach, 0.0f, 0.0f}};
  const uint32_t body[2] = {pbf::kStaticBoundary, 0u};
  backend.set_boundary_particles(samples, body, samples, 2, pbf::DensityKernel::Poly6);
  BoundarySamples b = backend.boundary_samples();
  const uint8_t both = pbf::kNearSample | pbf::kNearBody;
  const Vec3 near_static{-0.5f - 0.5f * reach, 0.0f, 0.0f};
  const Vec3 between{-0.5f + 0.75f * reach, 0.0f, 0.0f};  // both within reach, the static one first in x
  const Vec3 near_body{-0.5f + 2.0f * reach, 0.0f, 0.0f};
  const Vec3 far{-0.5f, 0.0f, 0.9f};
  EXPECT_EQ(pbf::boundary_near_mark(b, near_static, reach), pbf::kNearSample);
  EXPECT_EQ(pbf::boundary_near_mark(b, between, reach), both);
  EXPECT_EQ(pbf::boundary_near_mark(b, near_body, reach), both);
  EXPECT_EQ(pbf::boundary_near_mark(b, far, reach), 0u);
  // Which particles the density terms and the reliefs scan, by their marks.
  const uint8_t marks[3] = {0u, pbf::kNearSample, both};
  b.near = marks;
  EXPECT_FALSE(pbf::boundary_scan(b, 0));
  EXPECT_TRUE(pbf::boundary_scan(b, 1));
  EXPECT_TRUE(pbf::boundary_scan(b, 2));
  EXPECT_FALSE(pbf::boundary_body_scan(b, 0));
  EXPECT_FALSE(pbf::boundary_body_scan(b, 1));
  EXPECT_TRUE(pbf::boundary_body_scan(b, 2));
  b.near = nullptr;  // every particle scans
  EXPECT_TRUE(pbf::boundary_body_scan(b, 0));
  // Without bodies the mark has no second bit, and no particle scans for a body's samples.
  b.body = nullptr;
  EXPECT_EQ(pbf::boundary_near_mark(b, between, reach), pbf::kNearSample);
  EXPECT_FALSE(pbf::boundary_body_scan(b, 0));
}

// A random cloud of samples around a fluid point, and the point itself;
// `attached`: all of them attached to obstacle 0 (where they are: local =
// world), else static.
struct Cloud {
  SolverConfig config = make_config();
  CpuBackend backend{config};
  BoundarySamples b{};
  explicit Cloud(bool attached = false) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-0.25f, 0.25f);
    std::vector<Vec3> samples(300);
    for (Vec3& s : samples) s = Vec3{u(rng), u(rng) - 0.15f, u(rng)};
    const std::vector<uint32_t> body(samples.size(), 0u);
    backend.set_boundary_particles(samples.data(), attached ? body.data() : nullptr,
                                   attached ? samples.data() : nullptr, samples.size(), pbf::DensityKernel::Poly6);
    b = backend.boundary_samples();
    b.near = nullptr;  // the fluid particles here are the test's own: every one scans
  }
};

TEST(BoundaryTerms, DensityAndGradientMatchADirectEvaluation) {
  Cloud cloud;
  const KernelConstants k = KernelConstants::make(kRadius);
  for (const Vec3 p : {Vec3{0.01f, 0.02f, -0.03f}, Vec3{0.1f, -0.05f, 0.07f}, Vec3{-0.12f, 0.11f, 0.0f}}) {
    float rho = 0.0f;
    Vec3 grad{};
    pbf::boundary_density_gradient(k, cloud.b, p, rho, grad);
    double rho_ref = 0.0;
    for (uint32_t s = 0; s < cloud.b.count; ++s) rho_ref += cloud.b.psi[s] * poly6(kRadius, dist2(p, cloud.b.x[s]));
    ASSERT_GT(rho_ref, 100.0);  // the point is well inside the cloud
    EXPECT_NEAR(rho, rho_ref, 1e-5 * rho_ref);
    EXPECT_NEAR(pbf::boundary_density(k, cloud.b, p), rho_ref, 1e-5 * rho_ref);

    // The gradient is that of sum_b psi_b W_spiky(p - x_b), by central
    // differences in double (step 1e-6 m: truncation ~1e-12, far below float).
    auto spiky_sum = [&](double dx, double dy, double dz) {
      double sum = 0.0;
      for (uint32_t s = 0; s < cloud.b.count; ++s) {
        const double x = p.x + dx - cloud.b.x[s].x, y = p.y + dy - cloud.b.x[s].y, z = p.z + dz - cloud.b.x[s].z;
        sum += cloud.b.psi[s] * spiky(kRadius, std::sqrt(x * x + y * y + z * z));
      }
      return sum;
    };
    const double e = 1e-6;
    const double fd[3] = {(spiky_sum(e, 0, 0) - spiky_sum(-e, 0, 0)) / (2 * e),
                          (spiky_sum(0, e, 0) - spiky_sum(0, -e, 0)) / (2 * e),
                          (spiky_sum(0, 0, e) - spiky_sum(0, 0, -e)) / (2 * e)};
    const double scale = std::sqrt(fd[0] * fd[0] + fd[1] * fd[1] + fd[2] * fd[2]);
    ASSERT_GT(scale, 0.0);
    EXPECT_NEAR(grad.x, fd[0], 1e-4 * scale);
    EXPECT_NEAR(grad.y, fd[1], 1e-4 * scale);
    EXPECT_NEAR(grad.z, fd[2], 1e-4 * scale);

  }
}

TEST(BoundaryTerms, TheConstraintAndTheCorrectionCarryTheBoundaryTerms) {
  // One fluid particle (no fluid neighbours) inside the cloud: its density is
  // m W(0) plus the boundary density; lambda = -C / (|grad_i C|^2 + eps) with
  // grad_i C = (1/rho0) sum_b psi_b grad W_ib; dp = lambda grad_i C.
  Cloud cloud;
  pbf::PbfParams params;
  const pbf::PbfConstants c = pbf::make_pbf_constants(cloud.config, params, 1.0f / 120.0f);
  const Vec3 x[1] = {Vec3{0.01f, 0.02f, -0.03f}};
  const uint32_t index[1] = {0}, count[1] = {0};
  const pbf::NeighborLists nb = pbf::NeighborLists::particle_major(index, count, 1);
  float rho = 0.0f, lambda = 0.0f;
  pbf::density_lambda(c, 0, nb, x, cloud.b, pbf::DensityWalls{}, rho, lambda);
  float rho_b = 0.0f;
  Vec3 grad_b{};
  pbf::boundary_density_gradient(c.kernel, cloud.b, x[0], rho_b, grad_b);
  const double rho_ref = c.mass * poly6(kRadius, 0.0) + rho_b;
  EXPECT_NEAR(rho, rho_ref, 1e-5 * rho_ref);
  EXPECT_NEAR(pbf::density(c, 0, nb, x, cloud.b, pbf::DensityWalls{}), rho_ref, 1e-5 * rho_ref);
  ASSERT_GT(rho_ref, 1000.0);  // compressed, so the unilateral constraint acts
  const Vec3 g = grad_b * c.inv_rest_density;
  const double lambda_ref = -(rho_ref / 1000.0 - 1.0) / (double(dot(g, g)) + c.cfm);
  EXPECT_NEAR(lambda, lambda_ref, 1e-4 * std::fabs(lambda_ref));
  const float lambdas[1] = {lambda};
  const Vec3 dp = pbf::position_correction(c, 0, nb, x, lambdas, cloud.b, pbf::DensityWalls{});
  EXPECT_NEAR(dp.x, lambda * g.x, 1e-5f * std::fabs(lambda) * length(g));
  EXPECT_NEAR(dp.y, lambda * g.y, 1e-5f * std::fabs(lambda) * length(g));
  EXPECT_NEAR(dp.z, lambda * g.z, 1e-5f * std::fabs(lambda) * length(g));
  // The step lowers the density, to first order by |grad C|^2 lambda rho0.
  const Vec3 moved[1] = {x[0] + dp};
  EXPECT_LT(pbf::density(c, 0, nb, moved, cloud.b, pbf::DensityWalls{}), rho);
}

// One fluid particle at p (no fluid neighbour) in a cloud: PBF's constants
// with the defaults, the particle's density and lambda, and the samples'
// gradient sum there with its part of grad C, g.
struct LoneParticle {
  pbf::PbfConstants c;
  float rho = 0.0f, lambda = 0.0f;
  Vec3 grad_b{}, g{};
  LoneParticle(const Cloud& cloud, Vec3 p)
      : c(pbf::make_pbf_constants(cloud.config, pbf::PbfParams{}, 1.0f / 120.0f)) {
    const Vec3 x[1] = {p};
    const uint32_t index[1] = {0}, count[1] = {0};
    const pbf::NeighborLists nb = pbf::NeighborLists::particle_major(index, count, 1);
    pbf::density_lambda(c, 0, nb, x, cloud.b, pbf::DensityWalls{}, rho, lambda);
    float rho_b = 0.0f;
    pbf::boundary_density_gradient(c.kernel, cloud.b, p, rho_b, grad_b);
    g = grad_b * c.inv_rest_density;
  }
  // The constraint's denominator: grad_i C is the samples' alone.
  double denominator() const { return double(dot(g, g)) + c.cfm; }
};

TEST(BodyCoupling, APushCarriesItsConstraintsWeightOneOverLambdaSquaredTimesTheDenominator) {
  Cloud cloud(true);
  const Vec3 p{0.01f, 0.02f, -0.03f};
  const LoneParticle one(cloud, p);
  const pbf::PbfConstants& c = one.c;
  ASSERT_LT(one.lambda, 0.0f);  // compressed
  const double want = 1.0 / (double(one.lambda) * one.lambda * one.denominator());
  EXPECT_NEAR(pbf::coupling_weight(c, one.rho, one.lambda), want, 1e-4 * want);
  // The correction hands it on with the samples' push, lambda g.
  SummedPush push;
  pbf::boundary_correction_given(c, p, one.lambda, one.rho, true, one.grad_b, cloud.b, pbf::DensityWalls{}, push);
  EXPECT_EQ(push.weight, pbf::coupling_weight(c, one.rho, one.lambda));
  EXPECT_NEAR(push.d.y, one.lambda * one.g.y, 1e-5f * std::fabs(one.lambda * one.g.y));
  // A constraint that pushes nothing weighs nothing.
  EXPECT_EQ(pbf::coupling_weight(c, 900.0f, 0.0f), 0.0f);
  EXPECT_EQ(pbf::coupling_weight(c, 990.0f, 1e-3f), 0.0f);  // stretched: the unilateral constraint is off
}

TEST(BodyCoupling, TheReliefIsTheChangeOfLambdaThatTheBodysMotionMakes) {
  // The body moved its samples by u(x_b) = shift + turn x (x_b - centre). PBF's constraint changes with
  // them, to first order, by -(1/rho0) sum_b psi_b grad W(x_i - x_b) . u(x_b) (W's Spiky gradient, as
  // PBF takes it): the derivative of sum_b psi_b W_spiky(|x_i - x_b - t u(x_b)|) at t = 0, by central
  // differences in double here. The joint solve's lambda_i is larger by minus that change over D, and
  // the particle gives back that times g of its push (body_yield_relief() takes u at x_i instead of at
  // each sample: the same, as each term lies along x_i - x_b and u(x_i) - u(x_b) is across it).
  const Vec3 shift{2e-5f, -3e-5f, 1e-5f}, turn{1e-4f, 2e-4f, -1e-4f}, centre{0.05f, -0.2f, 0.0f};
  Cloud cloud(true);
  for (const Vec3 p : {Vec3{0.01f, 0.02f, -0.03f}, Vec3{0.1f, -0.05f, 0.07f}}) {
    const LoneParticle one(cloud, p);
    ASSERT_LT(one.lambda, 0.0f);
    const auto spiky_sum = [&](double t) {
      double sum = 0.0;
      for (uint32_t s = 0; s < cloud.b.count; ++s) {
        const Vec3 xs = cloud.b.x[s];
        const Vec3 u = shift + cross(turn, xs - centre);
        const double dx = double(p.x) - xs.x - t * u.x, dy = double(p.y) - xs.y - t * u.y,
                     dz = double(p.z) - xs.z - t * u.z;
        sum += cloud.b.psi[s] * spiky(kRadius, std::sqrt(dx * dx + dy * dy + dz * dz));
      }
      return sum;
    };
    const double change = (spiky_sum(0.5) - spiky_sum(-0.5)) * one.c.inv_rest_density;  // of C, to first order
    const double more = -change / one.denominator();
    const Vec3 g = one.g;
    const pbf::BodyYield before[1] = {pbf::BodyYield{Vec3{}, Vec3{}, centre}};
    const pbf::BodyYield moved[1] = {pbf::BodyYield{shift, turn, centre}};
    SummedPush push;
    const Vec3 relief = pbf::body_yield_relief(one.c, p, one.lambda, one.rho, cloud.b, before, moved, push);
    const double size = std::fabs(more) * std::sqrt(double(dot(g, g)));
    ASSERT_GT(size, 0.0);
    EXPECT_NEAR(relief.x, more * g.x, 2e-3 * size);
    EXPECT_NEAR(relief.y, more * g.y, 2e-3 * size);
    EXPECT_NEAR(relief.z, more * g.z, 2e-3 * size);
    // What it gives back is pushed on the body.
    EXPECT_EQ(push.d.x, relief.x);
    EXPECT_EQ(push.d.y, relief.y);
  }
}

// A solver with the walls of its domain sampled, a layer of fluid on its floor
// (2000 particles) and one obstacle, a small box, at `at`; `plane` (when
// given) attaches a 3 x 3 m layer of samples 0.1 m apart to the obstacle.
struct ParkedScene {
  std::unique_ptr<pbf::Solver> solver;
  uint32_t obstacle = 0;
  size_t walls = 0;
  std::vector<float> values;
};

ParkedScene parked_scene(Vec3 at, bool plane) {
  ParkedScene s;
  SolverConfig config = make_config();
  config.backend = pbf::BackendKind::Cpu;
  s.solver = std::make_unique<pbf::Solver>(pbf::resolve_config(config));
  s.values.resize(4 * 4 * 4);
  for (int z = 0; z < 4; ++z)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x)
        s.values[x + 4 * (y + 4 * z)] =
            std::max({std::fabs(x - 1.5f), std::fabs(y - 1.5f), std::fabs(z - 1.5f)}) * 0.05f - 0.05f;
  const pbf::SdfGridView field{s.values.data(), 4, 4, 4, Vec3{-0.075f, -0.075f, -0.075f}, 0.05f};
  const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  s.walls = s.solver->add_domain_boundary_particles();
  s.obstacle = s.solver->add_obstacle(field, identity, at);
  if (plane) {
    std::vector<Vec3> local;
    for (int i = -15; i < 15; ++i)
      for (int k = -15; k < 15; ++k) local.push_back(Vec3{0.1f * float(i) + 0.05f, 0.0f, 0.1f * float(k) + 0.05f});
    s.solver->add_obstacle_boundary_particles(s.obstacle, local.data(), local.size());
  }
  s.solver->fill_box(Vec3{-1.0f, -1.0f, -1.0f}, Vec3{1.0f, -0.5f, 1.0f}, Vec3{0.0f, 0.0f, 0.0f});
  return s;
}

std::vector<float> densities_of(const pbf::Solver& solver) {
  std::vector<float> rho(solver.size());
  solver.read(pbf::Field::Density, rho.data());
  return rho;
}

TEST(BoundaryBeyondReach, SamplesOfAnObstacleParkedFarOutsideTheDomainAreInNoCell) {
  // An obstacle 1 m above the water, with or without a large layer of samples,
  // moved 5 m above the domain's lid and left there: the water's densities are
  // the same, bit for bit, and the parked samples lie in no cell of the
  // boundary grid, so no particle along the lid scans them.
  ParkedScene with = parked_scene(Vec3{0.0f, 0.5f, 0.0f}, true);
  ParkedScene without = parked_scene(Vec3{0.0f, 0.5f, 0.0f}, false);
  ASSERT_EQ(with.solver->boundary_particle_count(), with.walls + 900);
  ASSERT_GT(with.solver->size(), 1000u);
  const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  for (ParkedScene* s : {&with, &without}) {
    s->solver->set_obstacle_pose(s->obstacle, identity, Vec3{0.0f, 6.0f, 0.0f});
    for (int k = 0; k < 4; ++k) s->solver->step(1.0f / 60.0f, 2);
  }
  const std::vector<float> rho_with = densities_of(*with.solver), rho_without = densities_of(*without.solver);
  ASSERT_EQ(rho_with.size(), rho_without.size());
  for (size_t i = 0; i < rho_with.size(); ++i) EXPECT_EQ(rho_with[i], rho_without[i]) << "particle " << i;

  const BoundarySamples b = static_cast<const CpuBackend&>(with.solver->backend()).boundary_samples();
  ASSERT_EQ(b.count, with.walls + 900);
  const uint32_t cells = static_cast<uint32_t>(b.grid.cell_count());
  EXPECT_EQ(b.cell_start[cells], with.walls) << "only the walls' samples in cells";
  for (uint32_t k = 0; k < b.count; ++k) {
    if (k < b.cell_start[cells]) {
      EXPECT_FALSE(b.grid.beyond_reach(b.x[k])) << "place " << k;
      EXPECT_LT(b.x[k].y, 1.5f) << "place " << k;
    } else {
      EXPECT_NEAR(b.x[k].y, 6.0f, 1e-5f) << "place " << k;
    }
  }
}

TEST(BoundaryBeyondReach, SamplesAddedFarOutsideGetThePseudoMassesTheyHaveInside) {
  // The pseudo-masses of samples attached while their obstacle is parked far
  // outside are those of the same samples attached inside (the sums see the
  // same neighbours; 4 ulp for their order), and they reach the fluid once
  // the obstacle comes in.
  ParkedScene outside = parked_scene(Vec3{0.0f, 6.0f, 0.0f}, true);
  ParkedScene inside = parked_scene(Vec3{0.0f, 0.5f, 0.0f}, true);
  const BoundarySamples parked = static_cast<const CpuBackend&>(outside.solver->backend()).boundary_samples();
  ASSERT_EQ(parked.count, outside.walls + 900);
  EXPECT_EQ(parked.cell_start[parked.grid.cell_count()], outside.walls) << "set aside from the start";
  const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  outside.solver->set_obstacle_pose(outside.obstacle, identity, Vec3{0.0f, 0.5f, 0.0f});
  outside.solver->step(1.0f / 60.0f, 1);
  inside.solver->step(1.0f / 60.0f, 1);
  const BoundarySamples a = static_cast<const CpuBackend&>(outside.solver->backend()).boundary_samples();
  const BoundarySamples b = static_cast<const CpuBackend&>(inside.solver->backend()).boundary_samples();
  ASSERT_EQ(a.count, b.count);
  // Back in the cells, but for the layer's rim, which reaches beyond the domain's sides.
  EXPECT_EQ(a.cell_start[a.grid.cell_count()], outside.walls + 24 * 24);
  EXPECT_EQ(a.cell_start[a.grid.cell_count()], b.cell_start[b.grid.cell_count()]);
  for (uint32_t k = 0; k < a.count; ++k) {
    EXPECT_EQ(a.x[k].y, b.x[k].y) << "place " << k;
    EXPECT_FLOAT_EQ(a.psi[k], b.psi[k]) << "place " << k;
  }
}

TEST(BoundaryBeyondReach, StaticSamplesFarOutsideAreSetAsideAtSetUpWithTheirPseudoMasses) {
  // The backend itself: a 5 x 5 patch of static samples 4 m outside the
  // domain and the same patch inside; the far one follows the last cell with
  // the pseudo-masses of the near one (4 ulp for the sums' order).
  const SolverConfig config = make_config();
  CpuBackend backend(config);
  std::vector<Vec3> samples;
  for (const float x : {-5.0f, 0.0f})
    for (int i = 0; i < 5; ++i)
      for (int k = 0; k < 5; ++k) samples.push_back(Vec3{x, 0.1f * float(i), 0.1f * float(k)});
  backend.set_boundary_particles(samples.data(), nullptr, nullptr, samples.size(), pbf::DensityKernel::Poly6);
  const BoundarySamples b = backend.boundary_samples();
  ASSERT_EQ(b.count, 50u);
  const uint32_t cells = static_cast<uint32_t>(b.grid.cell_count());
  ASSERT_EQ(b.cell_start[cells], 25u);
  for (uint32_t k = 0; k < 25; ++k) {
    EXPECT_EQ(b.x[k].x, 0.0f) << "place " << k;
    EXPECT_EQ(b.x[25 + k].x, -5.0f) << "place " << 25 + k;
    EXPECT_EQ(b.x[25 + k].y, samples[k].y) << "in the order given";
    EXPECT_EQ(b.x[25 + k].z, samples[k].z) << "in the order given";
    EXPECT_FLOAT_EQ(b.psi[25 + k], psi_at(b, Vec3{0.0f, samples[k].y, samples[k].z})) << "sample " << k;
  }
}

}  // namespace
