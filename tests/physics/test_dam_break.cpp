// A dam break stays finite and inside its box for 10 simulated seconds, and
// absurd time steps lose accuracy but never produce NaN.
#include <algorithm>
#include <array>

#include "physics/physics_scenes.h"

namespace pbf_test {
namespace {

class DamBreak : public OnEveryBackend {};

void expect_finite_and_inside(pbf_solver* s, const float box[3]) {
  const std::vector<float> x = positions_of(s);
  const std::vector<float> v = velocities_of(s);
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const int a = static_cast<int>(i % 3);
    if (!std::isfinite(x[i]) || !std::isfinite(v[i]) || x[i] < 0.0f || x[i] > box[a]) ++bad;
  }
  EXPECT_EQ(bad, 0u) << "coordinates that are NaN/Inf or outside the box";
}

// Ten seconds take the water through the collapse, the impact on the far
// wall and many sloshes back and forth; the reference scene below checks the
// impact at DESIGN section 7's finer spacing.
TEST_P(DamBreak, FourteenThousandParticlesStayFiniteAndInsideForTenSeconds) {
  const float box[3] = {3.2f, 2.0f, 0.8f};
  const float block[3] = {0.8f, 0.75f, 0.8f};  // 25 x 23 x 25 = 14,375 particles
  SolverPtr s = make_dam_break(0.032f, box, block, 0, GetParam());
  const size_t n = count_of(s.get());
  ASSERT_GE(n, 14000u);
  float max_speed = 0.0f;
  for (int frame = 0; frame < 600; ++frame) {  // the paper's 4 substeps per 1/60 s frame
    PBF_ASSERT_OK(pbf_solver_step(s.get(), 1.0f / 60.0f, 4));
    const pbf_stats st = stats_of(s.get());
    ASSERT_TRUE(std::isfinite(st.max_speed)) << "frame " << frame;
    max_speed = std::max(max_speed, st.max_speed);
    if (frame % 60 == 59) expect_finite_and_inside(s.get(), box);
  }
  // Water falling 0.8 m reaches about 4 m/s; splashes at the wall may double it.
  EXPECT_LT(max_speed, 12.0f);
  const pbf_stats st = stats_of(s.get());
  EXPECT_LT(st.avg_density_error, 0.01f);
}

TEST_P(DamBreak, HugeTimeStepsNeverProduceNaN) {
  const float box[3] = {1.0f, 1.0f, 1.0f};
  const float block[3] = {0.5f, 0.5f, 0.5f};
  SolverPtr s = make_dam_break(0.05f, box, block, 0, GetParam());
  for (const float dt : {0.5f, 10.0f, 10.0f, 1e-3f, 3.0f}) {
    PBF_ASSERT_OK(pbf_solver_step(s.get(), dt, 1));
    expect_finite_and_inside(s.get(), box);
  }
}

TEST_P(DamBreak, ParticlesHeadingOutOfTheDomainAreKeptInside) {
  const float box[3] = {1.0f, 1.0f, 1.0f};
  const float block[3] = {1.0f, 0.3f, 1.0f};
  SolverPtr s = make_dam_break(0.05f, box, block, 0, GetParam());
  std::vector<float> v(3 * count_of(s.get()));
  for (size_t i = 0; i < v.size(); i += 3) {
    v[i] = (i % 2) ? 50.0f : -50.0f;
    v[i + 1] = 30.0f;
    v[i + 2] = -40.0f;
  }
  PBF_ASSERT_OK(pbf_solver_set_velocities(s.get(), v.data(), v.size()));
  for (int k = 0; k < 30; ++k) {
    PBF_ASSERT_OK(pbf_solver_step(s.get(), 1.0f / 60.0f, 1));
    expect_finite_and_inside(s.get(), box);
  }
}

TEST_P(DamBreak, CoincidentParticlesSeparate) {
  // Equal positions give equal neighbourhoods; only the pair's own gradient
  // can tell the copies apart. Double every tenth particle of water at rest
  // in a tank.
  const float box[3] = {1.0f, 1.0f, 1.0f};
  const float block[3] = {1.0f, 0.3f, 1.0f};
  SolverPtr s = make_dam_break(0.05f, box, block, 0, GetParam());
  const std::vector<float> x = positions_of(s.get());
  std::vector<float> copies;
  for (size_t i = 0; i < x.size(); i += 30) copies.insert(copies.end(), x.begin() + i, x.begin() + i + 3);
  PBF_ASSERT_OK(pbf_solver_add_particles(s.get(), copies.data(), nullptr, copies.size() / 3));
  for (int k = 0; k < 30; ++k) PBF_ASSERT_OK(pbf_solver_step(s.get(), 1.0f / 60.0f, 4));
  std::vector<float> y = positions_of(s.get());
  std::vector<std::array<float, 3>> points;
  for (size_t i = 0; i < y.size(); i += 3) points.push_back({y[i], y[i + 1], y[i + 2]});
  std::sort(points.begin(), points.end());
  EXPECT_EQ(std::adjacent_find(points.begin(), points.end()), points.end()) << "two particles still share a point";
  expect_finite_and_inside(s.get(), box);
}

TEST_P(DamBreak, TheReferenceSceneStaysStableThroughTheImpactOnTheFarWall) {
  // DESIGN section 7's scene with pbf-sim's 4 substeps per frame: the front
  // hits the far wall after about 0.9 s. Particles pushed into the corners
  // there once landed on the same points and the flow came apart.
  const float box[3] = {4.0f, 3.0f, 1.5f};
  const float block[3] = {0.975f, 0.975f, 0.975f};
  SolverPtr s = make_dam_break(0.025f, box, block, 0, GetParam());
  ASSERT_EQ(count_of(s.get()), 59319u);
  float worst_error = 0.0f;
  for (int frame = 0; frame < 84; ++frame) {  // 1.4 s
    PBF_ASSERT_OK(pbf_solver_step(s.get(), 1.0f / 60.0f, 4));
    worst_error = std::max(worst_error, stats_of(s.get()).avg_density_error);
  }
  EXPECT_LT(worst_error, 0.01f) << "average compression over 1 % in some frame";
  EXPECT_LT(stats_of(s.get()).max_density_error, 0.5f);
  expect_finite_and_inside(s.get(), box);
}

PBF_EVERY_BACKEND(DamBreak);

}  // namespace
}  // namespace pbf_test
