// Water poured into a tank comes to rest at rest density: the average
// compression stays under 1 % and the motion dies away.
#include "physics/physics_scenes.h"

namespace pbf_test {
namespace {

class TankAtRest : public OnEveryBackend {};

TEST_P(TankAtRest, SettlesAtRestDensityAndSpeedsDecay) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = GetParam();
  desc.particle_spacing = 0.025f;
  desc.domain_max[0] = 0.5f;
  desc.domain_max[1] = 1.0f;
  desc.domain_max[2] = 0.5f;
  SolverPtr s = make_solver(desc);
  // 20 x 16 x 20 particles, dropped from 5 cm above the floor.
  const float lo[3] = {0.0f, 0.05f, 0.0f}, hi[3] = {0.5f, 0.45f, 0.5f};
  size_t n = 0;
  PBF_ASSERT_OK(pbf_solver_fill_box(s.get(), lo, hi, nullptr, &n));
  ASSERT_EQ(n, 20u * 16u * 20u);

  // Root-mean-square speed: robust to one jittering surface particle.
  auto rms_speed = [&] {
    const std::vector<float> v = velocities_of(s.get());
    double sum = 0.0;
    for (const float c : v) sum += double(c) * c;
    return std::sqrt(sum / double(n));
  };
  double early = 0.0;
  pbf_stats st{};
  const int frames = 180;  // 3 s at 60 frames per second
  for (int frame = 0; frame < frames; ++frame) {
    PBF_ASSERT_OK(pbf_solver_step(s.get(), 1.0f / 60.0f, 4));
    if (frame < 30) early = std::max(early, rms_speed());
  }
  st = stats_of(s.get());
  const double late = rms_speed();
  EXPECT_LT(st.avg_density_error, 0.01f);
  EXPECT_GT(early, 0.3);  // the 5 cm drop really moved the water
  EXPECT_LT(late, 0.05 * early) << "early rms speed " << early;
  EXPECT_LT(st.max_speed, 0.5f);

  // At rest the water column keeps its height: 16 layers of 2.5 cm.
  const std::vector<float> x = positions_of(s.get());
  float top = 0.0f;
  for (size_t i = 1; i < x.size(); i += 3) top = std::max(top, x[i]);
  EXPECT_NEAR(top, 0.4f, 0.05f);
}

PBF_EVERY_BACKEND(TankAtRest);

}  // namespace
}  // namespace pbf_test
