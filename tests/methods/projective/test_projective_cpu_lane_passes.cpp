// Tests of Projective Fluids' local step on the CPU in lanes of eight
// (methods/projective/cpu/projective_cpu_lane_passes.h): each copy, one per
// instruction set the library holds and this processor runs, against the
// one-neighbour loop of projective_equations.h (the CUDA backend's), and the
// copies against each other bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/lane_targets.h"
#include "core/config.h"
#include "methods/projective/cpu/projective_cpu_lane_passes.h"
#include "methods/projective/projective_equations.h"

namespace {

using pbf::LaneTarget;
using pbf::NeighborLists;
using pbf::Projection;
using pbf::ProjectiveConstants;
using pbf::ProjectiveLanePasses;
using pbf::Vec3;

constexpr float kSpacing = 0.1f;
constexpr float kRadius = 2.0f * kSpacing;
constexpr float kParticleRadius = 0.5f * kSpacing;

ProjectiveConstants constants() {
  pbf::SolverConfig config;
  config.particle_spacing = kSpacing;
  config.kernel_radius = kRadius;
  config.rest_density = 1000.0f;
  config.max_neighbors = 128;
  return pbf::make_projective_constants(config, pbf::PbfParams{}, 1.0f / 240.0f);
}

pbf::SolverConfig backend_config() {
  pbf::SolverConfig config;
  config.particle_spacing = kSpacing;
  config.kernel_radius = kRadius;
  config.rest_density = 1000.0f;
  config.max_particles = 1024;
  config.max_neighbors = 128;
  config.domain_min = Vec3{-1.0f, -1.0f, -1.0f};
  config.domain_max = Vec3{6.0f, 6.0f, 6.0f};
  config.thread_count = 1;
  return config;
}

// A jittered block squeezed to 0.8 of the rest spacing whose lowest layer
// rests on a floor (a plane that also adds density) and whose side x = 0
// faces a wall of boundary samples, so that lists end everywhere within a
// group of eight, members rest on a wall and samples of many rows are near;
// a few particles put on top of another (coincident pairs), and one left
// alone.
struct Scene {
  std::unique_ptr<pbf::CpuBackend> samples = std::make_unique<pbf::CpuBackend>(backend_config());
  std::vector<Vec3> x;
  std::vector<uint32_t> index, count;
  std::vector<uint8_t> touching;
  pbf::Plane floor{};
  uint32_t stride = 128, head = 128;  // head < stride: split as the CPU backend's lists (split_lists())
  NeighborLists lists() const {
    return NeighborLists::particle_major_split(index.data(), count.data(), stride, head, count.size());
  }
  pbf::ProjectionWalls walls() const {
    return pbf::ProjectionWalls{&floor, 1u, pbf::wall_contact_distance(kParticleRadius), touching.data()};
  }
};

// `sample_spacing`: of the sample wall; at 0.01 m more samples are near a
// particle than the lane loop copies (NearSamples), so it scans the grid.
Scene make_scene(uint32_t seed, float sample_spacing = 0.05f) {
  Scene s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jitter(-0.15f * kSpacing, 0.15f * kSpacing);
  const float step = 0.8f * kSpacing;
  for (int k = 0; k < 6; ++k)
    for (int j = 0; j < 5; ++j)
      for (int i = 0; i < 7; ++i)
        s.x.push_back(Vec3{i * step + jitter(rng), j == 0 ? 0.0f : j * step + jitter(rng), k * step + jitter(rng)});
  for (int c = 0; c < 4; ++c) s.x.push_back(s.x[static_cast<size_t>(c) * 37 + 50]);  // coincident with another
  s.x.push_back(Vec3{5.0f, 5.0f, 5.0f});                                          // no neighbours
  s.floor = pbf::Plane{Vec3{0.0f, 1.0f, 0.0f}, kParticleRadius};                  // y = -radius
  std::vector<Vec3> wall;
  for (int k = 0; k * sample_spacing <= 0.5f; ++k)
    for (int j = 0; j * sample_spacing <= 0.4f; ++j)
      wall.push_back(Vec3{-0.7f * kSpacing, j * sample_spacing, k * sample_spacing});
  s.samples->set_boundary_particles(wall.data(), nullptr, nullptr, wall.size(), pbf::DensityKernel::CubicSpline);
  const size_t n = s.x.size();
  s.index.assign(n * s.stride, 0u);
  s.count.assign(n, 0u);
  for (size_t i = 0; i < n; ++i) {
    s.touching.push_back(pbf::touches_wall(&s.floor, 1, pbf::wall_contact_distance(kParticleRadius), s.x[i]));
    for (size_t j = 0; j < n; ++j)
      if (j != i && pbf::length_squared(s.x[i] - s.x[j]) < kRadius * kRadius)
        s.index[i * s.stride + s.count[i]++] = static_cast<uint32_t>(j);
  }
  return s;
}

// The scene's lists with their first `head` slots apart from the rest, as
// the CPU backend keeps them (NeighborLists::particle_major_split()).
void split_lists(Scene& s, uint32_t head) {
  const size_t n = s.count.size();
  std::vector<uint32_t> parted(n * s.stride, 0u);
  const pbf::ListRows rows = pbf::ListRows::split(parted.data(), n, head, s.stride);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < s.count[i]; ++k) rows.slot(i, k) = s.index[i * s.stride + k];
  s.index.swap(parted);
  s.head = head;
}

struct Projected {
  Projection p;
  std::vector<Vec3> d;
};

Projected project(const ProjectiveConstants& c, const Scene& s, uint32_t i, const ProjectiveLanePasses* lanes) {
  Projected out{Projection{}, std::vector<Vec3>(c.slots, Vec3{7.0f, 7.0f, 7.0f})};
  const pbf::DensityWalls solid = pbf::projective_density_walls(c, &s.floor, 1, 0);
  const NeighborLists nb = s.lists();
  const pbf::BoundarySamples boundary = s.samples->boundary_samples();
  out.p = lanes ? lanes->project_density_constraint(c, i, nb, boundary, solid, s.walls(), s.x.data(), out.d.data())
                : pbf::project_density_constraint(c, i, nb, boundary, solid, s.walls(), s.x.data(), out.d.data());
  return out;
}

TEST(ProjectiveCpuLanePasses, TheSceneCoversEveryPlaceWhereAListEndsAndEveryCase) {
  const ProjectiveConstants c = constants();
  const Scene s = make_scene(1);
  std::vector<bool> seen(8, false);
  uint32_t coincident = 0, resting = 0, projected = 0, capped = 0, beside_samples = 0;
  const pbf::BoundarySamples boundary = s.samples->boundary_samples();
  ASSERT_EQ(boundary.count, 99u);
  for (uint32_t i = 0; i < s.x.size(); ++i) {
    seen[s.count[i] % 8] = true;
    resting += s.touching[i];
    for (uint32_t k = 0; k < s.count[i]; ++k)
      if (pbf::length_squared(s.x[i] - s.x[s.index[i * s.stride + k]]) == 0.0f) ++coincident;
    float rho_b;
    Vec3 grad_b;
    pbf::boundary_density_gradient(c.kernel, boundary, s.x[i], rho_b, grad_b);
    beside_samples += rho_b > 0.05f * c.rest_density ? 1u : 0u;
    const Projection p = project(c, s, i, nullptr).p;
    projected += p.steps > 0 ? 1u : 0u;
    capped += p.steps == c.newton_iterations ? 1u : 0u;
  }
  for (uint32_t r = 0; r < 8; ++r) EXPECT_TRUE(seen[r]) << "no list of 8k + " << r << " neighbours";
  EXPECT_GE(coincident, 8u);
  EXPECT_GE(resting, 35u);
  EXPECT_EQ(s.count.back(), 0u);
  EXPECT_GT(projected, 150u) << "most constraints are compressed";
  EXPECT_GT(capped, 0u) << "some use every Newton step";
  EXPECT_GT(beside_samples, 25u) << "the sample wall adds density to the layers beside it";
}

// Both ways of summing the samples' density: a copy of the samples near a
// particle (sparse), and the grid where more are near than the copy holds
// (dense).
TEST(ProjectiveCpuLanePasses, EachCopyAgreesWithTheOneNeighbourLoop) {
  const ProjectiveConstants c = constants();
  for (const float sample_spacing : {0.05f, 0.01f}) {
    SCOPED_TRACE(sample_spacing == 0.05f ? "sparse samples" : "dense samples");
    const Scene s = make_scene(7, sample_spacing);
    for (const LaneTarget target : pbf::lane_targets_here()) {
      SCOPED_TRACE(pbf::lane_target_name(target));
      const ProjectiveLanePasses lanes = pbf::projective_lane_passes(target);
      for (uint32_t i = 0; i < s.x.size(); ++i) {
        const Projected want = project(c, s, i, nullptr), got = project(c, s, i, &lanes);
        // C_i sums 1 + n terms of at most m/rho0 W(0) ~ 0.5 in float, in another order.
        const float sum_tolerance = 1e-7f * (1.0f + static_cast<float>(s.count[i]));
        ASSERT_EQ(got.p.steps, want.p.steps) << "constraint " << i;
        EXPECT_NEAR(got.p.compression, want.p.compression, sum_tolerance) << "constraint " << i;
        EXPECT_NEAR(got.p.remaining, want.p.remaining, sum_tolerance) << "constraint " << i;
        EXPECT_NEAR(got.p.density, want.p.density, 1000.0f * sum_tolerance) << "constraint " << i;
        EXPECT_NEAR(got.p.step_sum, want.p.step_sum, 1e-5f * std::max(1.0f, want.p.step_sum)) << "constraint " << i;
        for (uint32_t k = 0; k <= s.count[i]; ++k) {
          const float tolerance = 1e-6f * kSpacing;
          EXPECT_NEAR(got.d[k].x, want.d[k].x, tolerance) << "constraint " << i << ", member " << k;
          EXPECT_NEAR(got.d[k].y, want.d[k].y, tolerance) << "constraint " << i << ", member " << k;
          EXPECT_NEAR(got.d[k].z, want.d[k].z, tolerance) << "constraint " << i << ", member " << k;
        }
        EXPECT_EQ(got.d[s.count[i] + 1].x, 7.0f) << "constraint " << i << " writes past its members";
      }
    }
  }
}

TEST(ProjectiveCpuLanePasses, MembersOnTheFloorAreNotPushedIntoIt) {
  const ProjectiveConstants c = constants();
  const Scene s = make_scene(3);
  uint32_t held = 0;
  for (const LaneTarget target : pbf::lane_targets_here()) {
    const ProjectiveLanePasses lanes = pbf::projective_lane_passes(target);
    for (uint32_t i = 0; i < s.x.size(); ++i) {
      const Projected got = project(c, s, i, &lanes);
      for (uint32_t k = 0; k <= s.count[i]; ++k) {
        const uint32_t member = k == 0 ? i : s.index[i * s.stride + k - 1];
        if (!s.touching[member] || got.p.steps == 0) continue;
        EXPECT_GE(got.d[k].y, 0.0f) << "constraint " << i << " pushes particle " << member << " into the floor";
        ++held;
      }
    }
  }
  EXPECT_GT(held, 100u);
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Each copy against the baseline's, both ways of summing the samples'
// density: the AVX-512 copy takes sixteen members and samples at a time and
// folds them into eight lanes (backend/cpu/lanes.h, fold()).
TEST(ProjectiveCpuLanePasses, EveryCopyGivesTheSameBits) {
  if (!pbf::lane_target_runs_here(LaneTarget::Avx2))
    GTEST_SKIP() << "this processor runs only the baseline copy (no AVX2, or a library built without it)";
  const ProjectiveConstants c = constants();
  const ProjectiveLanePasses a = pbf::projective_lane_passes(LaneTarget::Baseline);
  for (const float sample_spacing : {0.05f, 0.01f}) {
    SCOPED_TRACE(sample_spacing == 0.05f ? "sparse samples" : "dense samples");
    const Scene s = make_scene(11, sample_spacing);
    for (const LaneTarget target : pbf::lane_targets_here()) {
      if (target == LaneTarget::Baseline) continue;
      SCOPED_TRACE(pbf::lane_target_name(target));
      const ProjectiveLanePasses b = pbf::projective_lane_passes(target);
      for (uint32_t i = 0; i < s.x.size(); ++i) {
        const Projected pa = project(c, s, i, &a), pb = project(c, s, i, &b);
        EXPECT_EQ(pa.p.steps, pb.p.steps) << i;
        EXPECT_TRUE(same_bits(pa.p.remaining, pb.p.remaining) && same_bits(pa.p.step_sum, pb.p.step_sum) &&
                    same_bits(pa.p.density, pb.p.density) && same_bits(pa.p.compression, pb.p.compression))
            << i;
        EXPECT_EQ(std::memcmp(pa.d.data(), pb.d.data(), pa.d.size() * sizeof(Vec3)), 0) << i;
      }
    }
  }
}

// Where a list's slots lie changes nothing: the lists split as the CPU
// backend's give the bits of one row per particle, in every copy.
TEST(ProjectiveCpuLanePasses, SplitListsGiveTheSameBits) {
  const ProjectiveConstants c = constants();
  Scene s = make_scene(19);
  std::vector<std::vector<Projected>> plain;
  for (const LaneTarget target : pbf::lane_targets_here()) {
    const ProjectiveLanePasses lanes = pbf::projective_lane_passes(target);
    plain.emplace_back();
    for (uint32_t i = 0; i < s.x.size(); ++i) plain.back().push_back(project(c, s, i, &lanes));
  }
  split_lists(s, 8);
  ASSERT_GT(*std::max_element(s.count.begin(), s.count.end()), 16u) << "lists run into their tails";
  size_t t = 0;
  for (const LaneTarget target : pbf::lane_targets_here()) {
    SCOPED_TRACE(pbf::lane_target_name(target));
    const ProjectiveLanePasses lanes = pbf::projective_lane_passes(target);
    for (uint32_t i = 0; i < s.x.size(); ++i) {
      const Projected& pa = plain[t][i];
      const Projected pb = project(c, s, i, &lanes);
      EXPECT_EQ(pa.p.steps, pb.p.steps) << i;
      EXPECT_TRUE(same_bits(pa.p.remaining, pb.p.remaining) && same_bits(pa.p.step_sum, pb.p.step_sum) &&
                  same_bits(pa.p.density, pb.p.density) && same_bits(pa.p.compression, pb.p.compression))
          << i;
      EXPECT_EQ(std::memcmp(pa.d.data(), pb.d.data(), pa.d.size() * sizeof(Vec3)), 0) << i;
    }
    ++t;
  }
}

}  // namespace
