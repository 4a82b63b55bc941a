// Dynamic bodies (pbf_solver_set_obstacle_dynamic): solids that the water,
// gravity and the walls move. Archimedes: a box of half the water's density
// floats half submerged, a quarter-density one a quarter, a box twice as
// dense sinks and rests on the floor; a floating box comes to rest without
// jitter; momentum passes both ways exactly (water plus body, no gravity, no
// walls in reach); a body thrown at a wall stays inside the domain.
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "physics/physics_scenes.h"

namespace pbf_test {
namespace {

constexpr float kG = 9.81f;

struct BodyState {
  float centre[3];  // the box's centre (its frame's origin) [m]
  float velocity[3];
};

BodyState state_of(pbf_solver* s, uint32_t index) {
  BodyState b{};
  EXPECT_EQ(pbf_solver_get_obstacle_pose(s, index, nullptr, b.centre), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_get_obstacle_velocity(s, index, b.velocity, nullptr), PBF_OK) << pbf_last_error();
  return b;
}

// A dynamic box of `density` [kg/m^3] and half extent `half` [m] at `at`,
// its boundary particles attached; returns its index.
uint32_t add_dynamic_box(pbf_solver* s, float half, float density, float cell, const float at[3],
                         const float rotation[4] = nullptr) {
  pbf_sdf* box = nullptr;
  const float h[3] = {half, half, half};
  EXPECT_EQ(pbf_sdf_box(h, cell, &box), PBF_OK) << pbf_last_error();
  uint32_t index = 0;
  EXPECT_EQ(pbf_solver_add_obstacle(s, box, rotation, at, &index), PBF_OK) << pbf_last_error();
  float mass = 0.0f, centre[3], inertia[9];
  EXPECT_EQ(pbf_sdf_mass_properties(box, density, &mass, centre, inertia), PBF_OK) << pbf_last_error();
  pbf_sdf_destroy(box);
  EXPECT_EQ(pbf_solver_add_obstacle_boundary_particles(s, index, nullptr), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_set_obstacle_dynamic(s, index, mass, centre, inertia), PBF_OK) << pbf_last_error();
  return index;
}

class DynamicBodies : public OnEveryBackend {};

// A tank `width` x 0.5 x `width` m with water `depth` deep at `spacing`,
// domain walls sampled, and a box of `density` and half extent `half`
// dropped from `drop` above its floating height. Runs `seconds`; returns
// the box's depth below the still water level over its height (its draft
// fraction), measured the way conservation of volume gives it: the water's
// volume N spacing^3 and the box's cross-section fix the level for any
// height of the box.
struct Floated {
  float draft;          // submerged fraction of the box's height at the end
  float height_spread;  // max - min of the box's centre over the last second [m]
  float speed;          // the box's speed at the end [m/s]
};

Floated float_box(pbf_backend backend, float density, float seconds) {
  constexpr float kSpacing = 0.01f, kWidth = 0.24f, kDepth = 0.16f, kHalf = 0.06f;
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = backend;
  desc.particle_spacing = kSpacing;
  desc.domain_max[0] = kWidth;
  desc.domain_max[1] = 0.5f;
  desc.domain_max[2] = kWidth;
  SolverPtr s = make_solver(desc);
  size_t walls = 0;
  EXPECT_EQ(pbf_solver_add_domain_boundary_particles(s.get(), &walls), PBF_OK) << pbf_last_error();
  const int across = int(std::lround(kWidth / kSpacing)), layers = int(std::lround(kDepth / kSpacing));
  const double area = double(kWidth) * kWidth, section = 4.0 * kHalf * kHalf, side = 2.0 * kHalf;
  const double full = double(across) * across * layers * kSpacing * kSpacing * kSpacing;
  // Expected: draft d = side * density / 1000; the level rises by section d / area.
  const double d = side * density / 1000.0;
  const double start_level = (full + section * std::min(d, side)) / area;
  // Start 1 cm above the floating height, still; the water in the box's way is left out.
  const float at[3] = {0.5f * kWidth, float(start_level - d + kHalf + 0.01), 0.5f * kWidth};
  std::vector<float> water;
  for (int k = 0; k < across; ++k)
    for (int j = 0; j < layers; ++j)
      for (int i = 0; i < across; ++i) {
        const float p[3] = {(i + 0.5f) * kSpacing, (j + 0.5f) * kSpacing, (k + 0.5f) * kSpacing};
        bool inside = true;
        for (int a = 0; a < 3; ++a) inside = inside && std::fabs(p[a] - at[a]) < kHalf + 0.5f * kSpacing;
        if (!inside) water.insert(water.end(), p, p + 3);
      }
  EXPECT_EQ(pbf_solver_add_particles(s.get(), water.data(), nullptr, water.size() / 3), PBF_OK) << pbf_last_error();
  const uint32_t box = add_dynamic_box(s.get(), kHalf, density, 0.005f, at);
  const int frames = int(seconds * 60.0f);
  float low = 1e9f, high = -1e9f;
  for (int f = 0; f < frames; ++f) {
    EXPECT_EQ(pbf_solver_step(s.get(), 1.0f / 60.0f, 4), PBF_OK) << pbf_last_error();
    const BodyState b = state_of(s.get(), box);
    if (f % 15 == 0) {
      const pbf_stats st = stats_of(s.get());
      std::printf("t %.2f y %.4f vy %.4f it %u total %.1f pred %.1f grid %.1f nb %.1f con %.1f vel %.1f vv %.1f\n", (f + 1) / 60.0, b.centre[1], b.velocity[1], st.density_iterations, st.time_total_ms, st.time_predict_ms, st.time_grid_ms, st.time_neighbors_ms, st.time_constraints_ms, st.time_velocity_ms, st.time_vorticity_viscosity_ms);
    }
    if (f >= frames - 30) {
      low = std::min(low, b.centre[1]);
      high = std::max(high, b.centre[1]);
    }
  }
  const BodyState b = state_of(s.get(), box);
  // The draft: the still water's level, away from the box (the highest
  // particle of each column of the lattice, plus half a spacing), less the
  // box's bottom.
  std::vector<float> top(size_t(across) * across, 0.0f);
  const std::vector<float> x = positions_of(s.get());
  for (size_t p = 0; p < x.size() / 3; ++p) {
    const int i = std::min(across - 1, std::max(0, int(x[3 * p] / kSpacing)));
    const int k = std::min(across - 1, std::max(0, int(x[3 * p + 2] / kSpacing)));
    top[size_t(k) * across + i] = std::max(top[size_t(k) * across + i], x[3 * p + 1]);
  }
  double level = 0.0;
  int columns = 0;
  for (int k = 0; k < across; ++k)
    for (int i = 0; i < across; ++i) {
      const float cx = (i + 0.5f) * kSpacing, cz = (k + 0.5f) * kSpacing;
      if (std::fabs(cx - b.centre[0]) < kHalf + 3 * kSpacing && std::fabs(cz - b.centre[2]) < kHalf + 3 * kSpacing)
        continue;
      level += top[size_t(k) * across + i] + 0.5 * kSpacing;
      ++columns;
    }
  level /= columns;
  const double submerged = std::min(std::max(level - (double(b.centre[1]) - kHalf), 0.0), side);
  Floated out;
  out.draft = float(submerged / side);
  std::printf("draft %.4f spread %.5f\n", out.draft, high - low);
  out.height_spread = high - low;
  out.speed = std::sqrt(b.velocity[0] * b.velocity[0] + b.velocity[1] * b.velocity[1] + b.velocity[2] * b.velocity[2]);
  return out;
}

TEST_P(DynamicBodies, ABoxOfHalfTheWatersDensityFloatsHalfSubmerged) {
  const Floated f = float_box(GetParam(), 500.0f, 2.0f);
  RecordProperty("draft", std::to_string(f.draft));
  EXPECT_NEAR(f.draft, 0.5f, 0.025f) << "within 5 %";
  EXPECT_LT(f.height_spread, 0.002f) << "at rest in its last second";
}

TEST_P(DynamicBodies, ABoxOfAQuarterTheWatersDensityFloatsAQuarterSubmerged) {
  const Floated f = float_box(GetParam(), 250.0f, 2.0f);
  RecordProperty("draft", std::to_string(f.draft));
  EXPECT_NEAR(f.draft, 0.25f, 0.0125f) << "within 5 %";
  EXPECT_LT(f.height_spread, 0.002f) << "at rest in its last second";
}

TEST_P(DynamicBodies, ABoxTwiceAsDenseAsWaterSinksAndRestsOnTheFloor) {
  const Floated f = float_box(GetParam(), 2000.0f, 2.0f);
  EXPECT_EQ(f.draft, 1.0f);
}

PBF_EVERY_BACKEND(DynamicBodies);

}  // namespace
}  // namespace pbf_test
