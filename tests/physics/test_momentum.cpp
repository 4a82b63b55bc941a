// The density corrections move particles in equal and opposite pairs, so they
// conserve linear momentum (Macklin & Mueller 2013, section 3: the constraint
// gradients sum to zero). So do Projective Fluids' local/global iterations:
// a constraint's displacements sum to zero, and the global step weighs every
// particle's alike (global_row()).
#include <random>
#include <string>

#include "physics/physics_scenes.h"

namespace pbf_test {
namespace {

struct MomentumSum {
  double x = 0, y = 0, z = 0, magnitude_sum = 0;
};

MomentumSum momentum(const std::vector<float>& v) {
  MomentumSum m;
  for (size_t i = 0; i < v.size(); i += 3) {
    m.x += v[i];
    m.y += v[i + 1];
    m.z += v[i + 2];
    m.magnitude_sum += std::sqrt(double(v[i]) * v[i] + double(v[i + 1]) * v[i + 1] + double(v[i + 2]) * v[i + 2]);
  }
  return m;
}

// A jittered lattice compressed to ~1.35x rest density, with random
// velocities, far from every wall.
SolverPtr compressed_cloud(float xsph, pbf_method method = PBF_METHOD_PBF) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = PBF_BACKEND_CPU;
  desc.method = method;
  desc.particle_spacing = 0.05f;
  for (int a = 0; a < 3; ++a) desc.domain_max[a] = 10.0f;
  SolverPtr s = make_solver(desc);
  pbf_params p = pbf_params_default();
  p.gravity[1] = 0.0f;
  p.vorticity_epsilon = 0.0f;
  p.xsph_viscosity = xsph;
  EXPECT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> jitter(-0.1f, 0.1f), vel(-0.5f, 0.5f);
  const int side = 12;
  const float h = 0.9f * desc.particle_spacing;
  std::vector<float> x, v;
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j)
      for (int k = 0; k < side; ++k) {
        for (const int c : {i, j, k}) x.push_back(5.0f + (c + jitter(rng)) * h);
        for (int a = 0; a < 3; ++a) v.push_back(vel(rng));
      }
  const size_t n = x.size() / 3;
  EXPECT_EQ(pbf_solver_add_particles(s.get(), x.data(), v.data(), n), PBF_OK) << pbf_last_error();
  return s;
}

class Momentum : public ::testing::TestWithParam<pbf_method> {};

TEST_P(Momentum, DensityCorrectionsConserveLinearMomentum) {
  SolverPtr s = compressed_cloud(0.0f, GetParam());
  const MomentumSum before = momentum(velocities_of(s.get()));
  PBF_ASSERT_OK(pbf_solver_step(s.get(), 0.005f, 1));
  const MomentumSum after = momentum(velocities_of(s.get()));
  // The cloud is strongly compressed, so the corrections are large...
  EXPECT_GT(after.magnitude_sum, 1.2 * before.magnitude_sum);
  // ...yet their sum vanishes: float round-off over 2000 particles and ~100
  // neighbours each stays below 1e-4 of the summed speeds.
  const double tol = 1e-4 * after.magnitude_sum;
  EXPECT_NEAR(after.x, before.x, tol);
  EXPECT_NEAR(after.y, before.y, tol);
  EXPECT_NEAR(after.z, before.z, tol);
}

TEST_P(Momentum, ManyStepsKeepTheCentreOfMassMovingUniformly) {
  SolverPtr s = compressed_cloud(0.0f, GetParam());
  const MomentumSum m0 = momentum(velocities_of(s.get()));
  for (int k = 0; k < 20; ++k) PBF_ASSERT_OK(pbf_solver_step(s.get(), 0.005f, 1));
  const MomentumSum m1 = momentum(velocities_of(s.get()));
  const double tol = 1e-3 * m1.magnitude_sum;
  EXPECT_NEAR(m1.x, m0.x, tol);
  EXPECT_NEAR(m1.y, m0.y, tol);
  EXPECT_NEAR(m1.z, m0.z, tol);
}

INSTANTIATE_TEST_SUITE_P(BothMethods, Momentum, ::testing::Values(PBF_METHOD_PBF, PBF_METHOD_PROJECTIVE),
                         [](const ::testing::TestParamInfo<pbf_method>& info) {
                           return info.param == PBF_METHOD_PBF ? std::string("pbf") : std::string("projective");
                         });

}  // namespace
}  // namespace pbf_test
