// Boundary particles on a solid's surface (pbf_solver_add_sdf_boundary_particles,
// and pbf_solver_add_obstacle_boundary_particles for a solid that moves):
// water resting on a box obstacle that serves as a raised floor reaches rest
// density in the layer on top of it, where without the samples that layer is
// under-dense; the same when the floor rises under the water.
#include "physics/physics_scenes.h"

namespace pbf_test {
namespace {

constexpr float kSpacing = 0.025f;
constexpr float kTop = 0.1f;  // the box's top face [m]

// A tank `width` x `height` x `width` [m] with its walls sampled.
SolverPtr sampled_tank(float width, float height) {
  return pbf_test::sampled_tank(PBF_BACKEND_CPU, kSpacing, width, height);
}

// Mean density [kg/m^3] of the particles within a spacing above `top`;
// every particle must be above it (none inside the solid). Sets *count to
// how many were in the layer.
double density_above(pbf_solver* s, float top, size_t* count) {
  const std::vector<float> x = positions_of(s);
  std::vector<float> rho(x.size() / 3);
  EXPECT_EQ(pbf_solver_get_densities(s, rho.data(), rho.size()), PBF_OK);
  double sum = 0.0;
  *count = 0;
  for (size_t i = 0; i < rho.size(); ++i) {
    EXPECT_GE(x[3 * i + 1], top) << "particle " << i << " inside the box";
    if (x[3 * i + 1] < top + kSpacing) {
      sum += rho[i];
      ++*count;
    }
  }
  return *count ? sum / double(*count) : 0.0;
}

// Mean density [kg/m^3] of the particles within a spacing of the box's top
// after 20 x 12 x 20 particles settle on it for 2 s, with the box's surface
// sampled or not (the domain's walls are sampled in both cases).
double layer_density(bool box_samples) {
  SolverPtr s = sampled_tank(0.5f, 0.6f);
  // A box wider than the domain, its top face at y = kTop.
  pbf_sdf* box = nullptr;
  const float half[3] = {0.35f, 0.05f, 0.35f}, at[3] = {0.25f, kTop - 0.05f, 0.25f};
  EXPECT_EQ(pbf_sdf_box(half, 0.0125f, &box), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_add_obstacle(s.get(), box, nullptr, at, nullptr), PBF_OK) << pbf_last_error();
  if (box_samples) {
    size_t added = 0;
    EXPECT_EQ(pbf_solver_add_sdf_boundary_particles(s.get(), box, nullptr, at, &added), PBF_OK) << pbf_last_error();
    EXPECT_GT(added, 400u) << "the top face alone holds 20 x 20 samples";
  }
  pbf_sdf_destroy(box);
  const float lo[3] = {0.0f, kTop, 0.0f}, hi[3] = {0.5f, kTop + 0.3f, 0.5f};
  EXPECT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  for (int frame = 0; frame < 120; ++frame) EXPECT_EQ(pbf_solver_step(s.get(), 1.0f / 60.0f, 4), PBF_OK);
  size_t count = 0;
  const double density = density_above(s.get(), kTop, &count);
  EXPECT_GT(count, 300u);
  return density;
}

TEST(ObstacleBoundaryParticles, WaterRestingOnASampledSolidIsAtRestDensity) {
  const double with = layer_density(true), without = layer_density(false);
  RecordProperty("layer_density_with_samples", std::to_string(with));
  RecordProperty("layer_density_without_samples", std::to_string(without));
  EXPECT_NEAR(with, 1000.0, 15.0) << "with the box's surface sampled";
  EXPECT_LT(without, 980.0) << "without samples the layer on the box lacks the solid's share";
}

constexpr float kRise = 0.05f;  // how far the moving floor rises in 2 s [m]

// As layer_density() on a smaller tank (12 x 8 x 12 particles, 3 substeps,
// to keep the test short), with the box rising slowly (2.5 cm/s) from its
// top at kTop to kTop + kRise over the 2 s, posed at the end of every frame,
// and its samples attached to it or absent. The layer is measured over the
// top where it ends, while it still moves.
double rising_layer_density(bool box_samples) {
  SolverPtr s = sampled_tank(0.3f, 0.5f);
  pbf_sdf* box = nullptr;
  const float half[3] = {0.25f, 0.05f, 0.25f};
  float at[3] = {0.15f, kTop - 0.05f, 0.15f};
  EXPECT_EQ(pbf_sdf_box(half, 0.0125f, &box), PBF_OK) << pbf_last_error();
  uint32_t index = 0;
  EXPECT_EQ(pbf_solver_add_obstacle(s.get(), box, nullptr, at, &index), PBF_OK) << pbf_last_error();
  pbf_sdf_destroy(box);
  if (box_samples) {
    size_t added = 0;
    EXPECT_EQ(pbf_solver_add_obstacle_boundary_particles(s.get(), index, &added), PBF_OK) << pbf_last_error();
    EXPECT_GT(added, 400u) << "the top face alone holds 20 x 20 samples";
  }
  const float lo[3] = {0.0f, kTop, 0.0f}, hi[3] = {0.3f, kTop + 0.2f, 0.3f};
  EXPECT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  constexpr int kFrames = 120;
  for (int frame = 0; frame < kFrames; ++frame) {
    at[1] = kTop - 0.05f + kRise * float(frame + 1) / float(kFrames);
    EXPECT_EQ(pbf_solver_set_obstacle_pose(s.get(), index, nullptr, at), PBF_OK) << pbf_last_error();
    EXPECT_EQ(pbf_solver_step(s.get(), 1.0f / 60.0f, 3), PBF_OK);
  }
  size_t count = 0;
  const double density = density_above(s.get(), kTop + kRise, &count);
  EXPECT_GT(count, 100u) << "the layer holds 12 x 12 particles";
  return density;
}

TEST(ObstacleBoundaryParticles, WaterOnARisingFloorWithSamplesAttachedIsAtRestDensity) {
  const double with = rising_layer_density(true), without = rising_layer_density(false);
  RecordProperty("layer_density_with_samples", std::to_string(with));
  RecordProperty("layer_density_without_samples", std::to_string(without));
  EXPECT_NEAR(with, 1000.0, 15.0) << "with the samples attached to the rising box";
  EXPECT_LT(without, 980.0) << "without samples the layer on the box lacks the solid's share";
}

}  // namespace
}  // namespace pbf_test
