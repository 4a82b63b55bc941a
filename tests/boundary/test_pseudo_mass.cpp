// Unit tests of the boundary samples' pseudo-masses (Akinci et al. 2012,
// eq. 5) against a brute-force sum in double, for both density kernels,
// several bodies, samples far apart and far outside any domain; and the
// backend's use of them for an obstacle far outside a small domain.
#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <cmath>
#include <random>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "boundary/boundary_equations.h"
#include "boundary/pseudo_mass.h"
#include "core/config.h"
#include "core/sph_kernels.h"

namespace {

using pbf::DensityKernel;
using pbf::Vec3;

constexpr double kPiD = 3.14159265358979323846;
constexpr float kRadius = 0.2f;
constexpr float kRho0 = 1000.0f;

double poly6(double h, double r2) {
  if (r2 >= h * h) return 0.0;
  const double d = h * h - r2;
  return 315.0 / (64.0 * kPiD * std::pow(h, 9)) * d * d * d;
}

double cubic(double h, double r2) {
  const double q = std::sqrt(r2) / h;
  const double sigma = 8.0 / (kPiD * h * h * h);
  if (q > 1.0) return 0.0;
  if (q <= 0.5) return sigma * (6.0 * q * q * q - 6.0 * q * q + 1.0);
  return sigma * 2.0 * std::pow(1.0 - q, 3);
}

double dist2(Vec3 a, Vec3 b) {
  const double x = double(a.x) - b.x, y = double(a.y) - b.y, z = double(a.z) - b.z;
  return x * x + y * y + z * z;
}

// rho0 / sum over the samples of b's body, in double.
std::vector<double> brute_force(const std::vector<Vec3>& x, const std::vector<uint32_t>& body, DensityKernel kernel) {
  std::vector<double> psi(x.size());
  for (size_t b = 0; b < x.size(); ++b) {
    double sum = 0.0;
    for (size_t k = 0; k < x.size(); ++k)
      if (body[k] == body[b])
        sum += kernel == DensityKernel::Poly6 ? poly6(kRadius, dist2(x[b], x[k])) : cubic(kRadius, dist2(x[b], x[k]));
    psi[b] = kRho0 / sum;
  }
  return psi;
}

// Three bodies in random clusters: the static one about the origin, obstacle 0
// overlapping it, obstacle 1 a kilometre away, with cells at negative and
// positive coordinates.
void random_bodies(std::vector<Vec3>& x, std::vector<uint32_t>& body) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-0.4f, 0.4f);
  const Vec3 centre[3] = {{0.0f, 0.0f, 0.0f}, {0.1f, 0.05f, 0.0f}, {1000.0f, -700.0f, 300.0f}};
  const uint32_t id[3] = {pbf::kStaticBoundary, 0u, 1u};
  for (int k = 0; k < 900; ++k) {
    const int c = k % 3;
    x.push_back(Vec3{centre[c].x + u(rng), centre[c].y + u(rng), centre[c].z + u(rng)});
    body.push_back(id[c]);
  }
}

class PseudoMassKernels : public ::testing::TestWithParam<DensityKernel> {};

TEST_P(PseudoMassKernels, EachSampleGetsRestDensityOverTheKernelSumOfItsOwnBody) {
  std::vector<Vec3> x;
  std::vector<uint32_t> body;
  random_bodies(x, body);
  const std::vector<float> psi = pbf::boundary_pseudo_masses(x.data(), body.data(), x.size(), GetParam(), kRadius, kRho0);
  const std::vector<double> expected = brute_force(x, body, GetParam());
  ASSERT_EQ(psi.size(), x.size());
  for (size_t b = 0; b < x.size(); ++b)  // float sums of a few hundred terms: 1e-4 relative
    EXPECT_NEAR(psi[b], expected[b], 1e-4 * expected[b]) << "sample " << b;
}

TEST_P(PseudoMassKernels, WithoutBodiesEverySampleCountsForEveryOther) {
  std::vector<Vec3> x;
  std::vector<uint32_t> body;
  random_bodies(x, body);
  const std::vector<float> psi = pbf::boundary_pseudo_masses(x.data(), nullptr, x.size(), GetParam(), kRadius, kRho0);
  const std::vector<double> expected = brute_force(x, std::vector<uint32_t>(x.size(), 0u), GetParam());
  for (size_t b = 0; b < x.size(); ++b) EXPECT_NEAR(psi[b], expected[b], 1e-4 * expected[b]) << "sample " << b;
}

INSTANTIATE_TEST_SUITE_P(BoundaryPseudoMass, PseudoMassKernels,
                         ::testing::Values(DensityKernel::Poly6, DensityKernel::CubicSpline),
                         [](const ::testing::TestParamInfo<DensityKernel>& info) {
                           return info.param == DensityKernel::Poly6 ? std::string("Poly6")
                                                                     : std::string("CubicSpline");
                         });

TEST(BoundaryPseudoMass, ALoneSampleAndSamplesAKernelRadiusApartWeighRestDensityOverW0) {
  // Samples exactly one kernel radius apart (W vanishes at h) and far apart:
  // each sums W(0) alone.
  const std::vector<Vec3> x = {{0.0f, 0.0f, 0.0f}, {kRadius, 0.0f, 0.0f}, {-3.0e6f, 2.0e7f, 1.0e30f}};
  const std::vector<float> psi = pbf::boundary_pseudo_masses(x.data(), nullptr, x.size(), DensityKernel::Poly6, kRadius, kRho0);
  for (size_t b = 0; b < x.size(); ++b) EXPECT_NEAR(psi[b], kRho0 / poly6(kRadius, 0.0), 1e-3) << "sample " << b;
}

TEST(BoundaryPseudoMass, GiveTheSameBitsOnOneThreadAsOnTwo) {
  std::vector<Vec3> x;
  std::vector<uint32_t> body;
  random_bodies(x, body);
  std::vector<float> one, two;
  tbb::task_arena(1).execute([&] {
    one = pbf::boundary_pseudo_masses(x.data(), body.data(), x.size(), DensityKernel::Poly6, kRadius, kRho0);
  });
  tbb::task_arena(2).execute([&] {
    two = pbf::boundary_pseudo_masses(x.data(), body.data(), x.size(), DensityKernel::Poly6, kRadius, kRho0);
  });
  ASSERT_EQ(one.size(), two.size());
  for (size_t b = 0; b < one.size(); ++b) EXPECT_EQ(one[b], two[b]) << "sample " << b;
}

TEST(BoundaryPseudoMass, AnObstacleFarOutsideASmallDomainGetsTheSumsOfItsOwnLattice) {
  // A 1 m domain and an obstacle's 200 x 200 lattice of samples parked 50 m
  // away: the fluid's grid would clamp all 40,000 into a few border cells
  // (where summing over them all took minutes under the sanitizers). Each
  // sample's pseudo-mass is that of its lattice, here where it is; the
  // samples are set aside, beyond every scan.
  pbf::SolverConfig config;
  config.max_particles = 64;
  config.particle_spacing = 0.1f;
  config.kernel_radius = kRadius;
  config.rest_density = kRho0;
  config.domain_min = Vec3{0.0f, 0.0f, 0.0f};
  config.domain_max = Vec3{1.0f, 1.0f, 1.0f};
  config.thread_count = 2;
  config.max_neighbors = 64;
  pbf::CpuBackend backend(config);
  const float step = 0.1f;
  std::vector<Vec3> x;
  for (int i = 0; i < 200; ++i)
    for (int k = 0; k < 200; ++k) x.push_back(Vec3{50.0f + i * step, 60.0f, -30.0f + k * step});
  const std::vector<uint32_t> body(x.size(), 0u);
  backend.set_boundary_particles(x.data(), body.data(), x.data(), x.size(), DensityKernel::Poly6);
  const pbf::BoundarySamples b = backend.boundary_samples();
  ASSERT_EQ(b.count, x.size());
  EXPECT_EQ(b.cell_start[b.grid.cell_count()], 0u) << "every sample lies in the set-aside bucket";
  // An interior sample of a square lattice of step h/2 sums W over its 5 x 5 block within reach.
  double sum = 0.0;
  for (int i = -2; i <= 2; ++i)
    for (int k = -2; k <= 2; ++k) sum += poly6(kRadius, double(i * step) * (i * step) + double(k * step) * (k * step));
  const double interior = kRho0 / sum;
  int checked = 0;
  for (uint32_t s = 0; s < b.count; ++s) {
    const float i = (b.x[s].x - 50.0f) / step, k = (b.x[s].z + 30.0f) / step;
    if (i < 1.5f || i > 197.5f || k < 1.5f || k > 197.5f) continue;  // a full 5 x 5 block
    EXPECT_NEAR(b.psi[s], interior, 1e-4 * interior) << "sample " << s;
    ++checked;
  }
  EXPECT_EQ(checked, 196 * 196);
}

}  // namespace
