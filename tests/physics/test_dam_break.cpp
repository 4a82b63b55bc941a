// A dam break stays finite and inside its box for 10 simulated seconds, and
// absurd time steps lose accuracy but never produce NaN.
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

TEST_P(DamBreak, ThirtyThousandParticlesStayFiniteAndInsideForTenSeconds) {
  const float box[3] = {3.2f, 2.0f, 0.8f};
  const float block[3] = {0.8f, 0.75f, 0.8f};  // 32 x 30 x 32 = 30,720 particles
  SolverPtr s = make_dam_break(0.025f, box, block, 0, GetParam());
  const size_t n = count_of(s.get());
  ASSERT_GE(n, 30000u);
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

PBF_EVERY_BACKEND(DamBreak);

}  // namespace
}  // namespace pbf_test
