// The CPU backend's vectorised neighbour loops (cpu_pbf_loops.h) compute the
// same pair terms in the same order as the reference equations in
// pbf_equations.h, so they must agree bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "backend/cpu/cpu_pbf_loops.h"

namespace pbf {
namespace {

struct Cloud {
  std::vector<Vec3> x, v, omega;
  std::vector<float> rho, lambda;
  std::vector<uint32_t> index, count;
  uint32_t stride = 0;
  NeighborLists lists() const { return NeighborLists{index.data(), count.data(), stride}; }
};

// A jittered, slightly compressed lattice with random velocities and brute-force
// neighbour lists; some particles have more than one batch of neighbours.
Cloud make_cloud(const PbfConstants& c, float spacing) {
  Cloud cl;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> jitter(-0.2f, 0.2f), speed(-1.0f, 1.0f), dens(900.0f, 1100.0f);
  const int side = 9;
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j)
      for (int k = 0; k < side; ++k) {
        cl.x.push_back(Vec3{(i + jitter(rng)) * 0.8f * spacing, (j + jitter(rng)) * 0.8f * spacing,
                            (k + jitter(rng)) * 0.8f * spacing});
        cl.v.push_back(Vec3{speed(rng), speed(rng), speed(rng)});
        cl.omega.push_back(Vec3{speed(rng), speed(rng), speed(rng)});
        cl.rho.push_back(dens(rng));
        cl.lambda.push_back(-1e-5f * dens(rng));
      }
  const size_t n = cl.x.size();
  cl.stride = 128;
  cl.index.assign(n * cl.stride, 0);
  cl.count.assign(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (j != i && length_squared(cl.x[i] - cl.x[j]) < c.kernel.h2 && cl.count[i] < cl.stride)
        cl.index[i * cl.stride + cl.count[i]++] = static_cast<uint32_t>(j);
  return cl;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(Vec3 a, Vec3 b) { return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z); }

class CpuPbfLoops : public ::testing::TestWithParam<float> {};  // parameter: artificial pressure n

TEST_P(CpuPbfLoops, EqualTheReferenceEquationsBitForBit) {
  SolverConfig config;
  config.particle_spacing = 0.05f;
  config.kernel_radius = 0.1f;
  config.rest_density = 1000.0f;
  config.domain_max = Vec3{1, 1, 1};
  PbfParams params;
  params.artificial_pressure_n = GetParam();
  params.unilateral = false;
  const PbfConstants c = make_pbf_constants(config, params, 0.004f);
  const Cloud cl = make_cloud(c, config.particle_spacing);
  const NeighborLists nb = cl.lists();
  uint32_t most = 0;
  for (const uint32_t n : cl.count) most = std::max(most, n);
  ASSERT_GT(most, cpu::kBatch) << "the cloud must exercise more than one batch";

  for (uint32_t i = 0; i < cl.x.size(); ++i) {
    float rho_ref, lambda_ref, rho_cpu, lambda_cpu;
    density_lambda(c, i, nb, cl.x.data(), rho_ref, lambda_ref);
    cpu::density_lambda(c, i, nb, cl.x.data(), rho_cpu, lambda_cpu);
    ASSERT_TRUE(same_bits(rho_ref, rho_cpu)) << i;
    ASSERT_TRUE(same_bits(lambda_ref, lambda_cpu)) << i;
    ASSERT_TRUE(same_bits(density(c, i, nb, cl.x.data()), cpu::density(c, i, nb, cl.x.data()))) << i;
    ASSERT_TRUE(same_bits(position_correction(c, i, nb, cl.x.data(), cl.lambda.data()),
                          cpu::position_correction(c, i, nb, cl.x.data(), cl.lambda.data())))
        << i;
    ASSERT_TRUE(same_bits(vorticity(c, i, nb, cl.x.data(), cl.v.data(), cl.rho.data()),
                          cpu::vorticity(c, i, nb, cl.x.data(), cl.v.data(), cl.rho.data())))
        << i;
    ASSERT_TRUE(
        same_bits(vorticity_viscosity(c, i, nb, cl.x.data(), cl.v.data(), cl.rho.data(), cl.omega.data()),
                  cpu::vorticity_viscosity(c, i, nb, cl.x.data(), cl.v.data(), cl.rho.data(), cl.omega.data())))
        << i;
  }
}

// n = 4 takes the vectorised artificial-pressure path, n = 3 the general one.
INSTANTIATE_TEST_SUITE_P(ArtificialPressureExponent, CpuPbfLoops, ::testing::Values(4.0f, 3.0f));

}  // namespace
}  // namespace pbf
