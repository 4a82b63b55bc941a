// Unit tests of the per-particle equations of Position Based Fluids
// (methods/pbf/pbf_equations.h) against an independent double-precision
// evaluation of Macklin & Mueller (2013), eq. 1-2, 8, 11, 13-15, on small
// particle sets with brute-force neighbour lists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/config.h"
#include "methods/pbf/pbf_equations.h"

namespace {

using pbf::NeighborLists;
using pbf::PbfConstants;
using pbf::PbfParams;
using pbf::Plane;
using pbf::SolverConfig;
using pbf::Vec3;

constexpr double kPiD = 3.14159265358979323846;
constexpr float kSpacing = 0.1f;
constexpr float kRadius = 2.0f * kSpacing;  // h
constexpr float kDt = 1.0f / 120.0f;

SolverConfig make_config() {
  SolverConfig config;
  config.max_particles = 4096;
  config.particle_spacing = kSpacing;
  config.kernel_radius = kRadius;
  config.rest_density = 1000.0f;
  config.domain_min = Vec3{-1.0f, -1.0f, -1.0f};
  config.domain_max = Vec3{1.0f, 1.0f, 1.0f};
  config.thread_count = 1;
  config.max_neighbors = 64;
  return config;
}

// --- an independent double-precision evaluation of the paper -------------

struct D3 {
  double x, y, z;
};
D3 operator+(D3 a, D3 b) { return D3{a.x + b.x, a.y + b.y, a.z + b.z}; }
D3 operator-(D3 a, D3 b) { return D3{a.x - b.x, a.y - b.y, a.z - b.z}; }
D3 operator*(D3 a, double s) { return D3{a.x * s, a.y * s, a.z * s}; }
double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
double norm(D3 a) { return std::sqrt(dot(a, a)); }
D3 to_d(Vec3 v) { return D3{v.x, v.y, v.z}; }

// Poly6, W(r) = 315 / (64 pi h^9) (h^2 - r^2)^3 for r < h.
double w_poly6(double h, D3 r) {
  const double r2 = dot(r, r);
  if (r2 >= h * h) return 0.0;
  const double d = h * h - r2;
  return 315.0 / (64.0 * kPiD * std::pow(h, 9)) * d * d * d;
}

// Gradient of Spiky, W(r) = 15 / (pi h^6) (h - r)^3, with respect to p_i for r = p_i - p_j.
D3 grad_spiky(double h, D3 r) {
  const double len = norm(r);
  if (len <= 0.0 || len >= h) return D3{0, 0, 0};
  return r * (-45.0 / (kPiD * std::pow(h, 6)) * (h - len) * (h - len) / len);
}

// The ideal lattice's sums, computed here again in double.
struct RestSums {
  double sum_w;      // sum_j W(x_j), self included
  double sum_grad2;  // sum_j |grad W(x_j)|^2
};
RestSums rest_sums(double spacing, double h) {
  RestSums s{0.0, 0.0};
  const int n = static_cast<int>(std::ceil(h / spacing)) + 1;
  for (int z = -n; z <= n; ++z)
    for (int y = -n; y <= n; ++y)
      for (int x = -n; x <= n; ++x) {
        const D3 r{x * spacing, y * spacing, z * spacing};
        s.sum_w += w_poly6(h, r);
        s.sum_grad2 += dot(grad_spiky(h, r), grad_spiky(h, r));
      }
  return s;
}

struct Reference {
  double h, rho0, mass, volume;  // volume = m / rho0
  double rest_grad2;             // sum_k |grad_k C|^2 of a particle of the ideal lattice
  double eps;                    // CFM epsilon of eq. 11
  double omega;                  // lambda's under-relaxation (core/lattice.h)
  double scorr_k, scorr_n, w_dq;
  bool unilateral;
};

Reference make_reference(const SolverConfig& config, const PbfParams& p, const PbfConstants& c) {
  Reference r;
  r.h = config.kernel_radius;
  r.rho0 = config.rest_density;
  const RestSums s = rest_sums(config.particle_spacing, config.kernel_radius);
  r.mass = r.rho0 / s.sum_w;
  r.volume = r.mass / r.rho0;
  r.rest_grad2 = r.volume * r.volume * s.sum_grad2;
  r.eps = c.cfm;  // eq. 11's epsilon is the solver's choice; its derivation is checked separately
  // 1 for unilateral constraints at the default kernel, 1/2 for bilateral ones; test_lattice.cpp checks it.
  r.omega = pbf::density_sweep_relaxation(double(r.h) / config.particle_spacing, p.unilateral);
  // s_corr is expressed in units of lambda (see make_pbf_constants): k / rest_grad2.
  r.scorr_k = p.artificial_pressure_k / r.rest_grad2 *
              pbf::artificial_pressure_kernel_factor(double(r.h) / config.particle_spacing,
                                                     p.artificial_pressure_dq, p.artificial_pressure_n);
  r.scorr_n = p.artificial_pressure_n;
  const double dq = static_cast<double>(p.artificial_pressure_dq) * r.h;
  r.w_dq = w_poly6(r.h, D3{dq, 0.0, 0.0});
  r.unilateral = p.unilateral;
  return r;
}

struct DensityResult {
  std::vector<double> rho, constraint, lambda, denominator;
};

// eq. 2, 1, 8 and 11, summing over every particle (no neighbour lists).
DensityResult reference_density_lambda(const Reference& ref, const std::vector<Vec3>& x) {
  const size_t n = x.size();
  DensityResult out;
  for (size_t i = 0; i < n; ++i) {
    const D3 xi = to_d(x[i]);
    double rho = 0.0;
    for (size_t j = 0; j < n; ++j) rho += ref.mass * w_poly6(ref.h, xi - to_d(x[j]));  // self included
    double c = rho / ref.rho0 - 1.0;
    if (ref.unilateral && c < 0.0) c = 0.0;
    // eq. 8: grad_{p_i} C_i = (m / rho0) sum_j grad W_ij, grad_{p_j} C_i = -(m / rho0) grad W_ij.
    D3 grad_i{0, 0, 0};
    double sum2 = 0.0;
    for (size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const D3 g = grad_spiky(ref.h, xi - to_d(x[j])) * ref.volume;
      grad_i = grad_i + g;
      const D3 grad_j = g * -1.0;
      sum2 += dot(grad_j, grad_j);
    }
    sum2 += dot(grad_i, grad_i);
    out.rho.push_back(rho);
    out.constraint.push_back(c);
    out.denominator.push_back(sum2 + ref.eps);
    out.lambda.push_back(-ref.omega * c / (sum2 + ref.eps));  // eq. 11, under-relaxed
  }
  return out;
}

struct Correction {
  D3 dp;
  double scale;  // (m / rho0) sum_j |(lambda_i + lambda_j + s_corr) grad W_ij|: the size of the terms
};

// eq. 14 with s_corr of eq. 13, for given lambdas.
Correction reference_position_correction(const Reference& ref, const std::vector<Vec3>& x,
                                         const std::vector<float>& lambda, size_t i) {
  Correction out{D3{0, 0, 0}, 0.0};
  const D3 xi = to_d(x[i]);
  for (size_t j = 0; j < x.size(); ++j) {
    if (j == i) continue;
    const D3 r = xi - to_d(x[j]);
    const double s_corr = -ref.scorr_k * std::pow(w_poly6(ref.h, r) / ref.w_dq, ref.scorr_n);
    const D3 g = grad_spiky(ref.h, r);
    const double f = static_cast<double>(lambda[i]) + lambda[j] + s_corr;
    out.dp = out.dp + g * (f * ref.volume);
    out.scale += std::fabs(f) * norm(g) * ref.volume;
  }
  return out;
}

// --- particle sets and brute-force neighbour lists -------------------------

struct Lists {
  std::vector<uint32_t> index, count;
  uint32_t stride = 0;
  NeighborLists view() const { return NeighborLists::particle_major(index.data(), count.data(), stride); }
};

Lists brute_force_lists(const std::vector<Vec3>& x, float h) {
  Lists l;
  l.stride = static_cast<uint32_t>(x.size());
  l.index.assign(x.size() * x.size(), 0u);
  l.count.assign(x.size(), 0u);
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = 0; j < x.size(); ++j)
      if (j != i && pbf::length_squared(x[i] - x[j]) < h * h)
        l.index[i * l.stride + l.count[i]++] = static_cast<uint32_t>(j);
  return l;
}

// A 4 x 4 x 3 block of particles on a lattice compressed to 85 % of the rest
// spacing and jittered by up to 15 % of that, so that inner particles are
// compressed (C_i > 0) and the outer ones are not (C_i < 0).
std::vector<Vec3> compressed_block(uint32_t seed) {
  std::mt19937 rng(seed);
  const float s = 0.85f * kSpacing;
  std::uniform_real_distribution<float> jitter(-0.15f * s, 0.15f * s);
  std::vector<Vec3> x;
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i)
        x.push_back(Vec3{(i - 1.5f) * s + jitter(rng), (j - 1.5f) * s + jitter(rng), (k - 1.0f) * s + jitter(rng)});
  return x;
}

PbfParams params_with(bool unilateral, float k, float n = 4.0f) {
  PbfParams p;
  p.unilateral = unilateral;
  p.artificial_pressure_k = k;
  p.artificial_pressure_n = n;
  return p;
}

// ---------------------------------------------------------------------------

TEST(PbfEquations, ConstantsFollowTheLatticeCalibration) {
  const SolverConfig config = make_config();
  const PbfParams p = params_with(true, 0.1f);
  const PbfConstants c = pbf::make_pbf_constants(config, p, kDt);
  const Reference ref = make_reference(config, p, c);
  // Float rounding of each derived constant: 1e-5 relative is generous.
  const double tol = 1e-5;
  EXPECT_NEAR(c.mass, ref.mass, tol * ref.mass);
  EXPECT_NEAR(c.mass_over_rho0, ref.volume, tol * ref.volume);
  EXPECT_NEAR(c.rest_density, 1000.0, 0.0);
  EXPECT_NEAR(c.inv_rest_density, 1e-3, tol * 1e-3);
  EXPECT_NEAR(c.particle_radius, 0.5 * kSpacing, tol * kSpacing);
  // eq. 11's epsilon: the relaxation times the rest value of sum_k |grad_k C|^2.
  EXPECT_NEAR(c.cfm, p.relaxation * ref.rest_grad2, tol * p.relaxation * ref.rest_grad2);
  EXPECT_NEAR(c.scorr_scale, ref.scorr_k, tol * ref.scorr_k);
  EXPECT_NEAR(c.scorr_inv_wdq, 1.0 / ref.w_dq, tol / ref.w_dq);
  EXPECT_EQ(c.scorr_n, 4.0f);
  EXPECT_NEAR(c.inv_dt, 120.0, tol * 120.0);
  EXPECT_FLOAT_EQ(c.box_min.x, -1.0f + 0.5f * kSpacing);
  EXPECT_FLOAT_EQ(c.box_max.z, 1.0f - 0.5f * kSpacing);
  // A particle of the ideal lattice has C = 0: m sum_j W = rho0 (checked in test_lattice).
}

TEST(PbfEquations, DensityAndLambdaMatchEquations1To11) {
  const SolverConfig config = make_config();
  for (uint32_t seed : {1u, 2u, 3u}) {
    const std::vector<Vec3> x = compressed_block(seed);
    const Lists nb = brute_force_lists(x, kRadius);
    for (bool unilateral : {true, false}) {
      const PbfParams p = params_with(unilateral, 0.1f);
      const PbfConstants c = pbf::make_pbf_constants(config, p, kDt);
      const Reference ref = make_reference(config, p, c);
      const DensityResult want = reference_density_lambda(ref, x);
      int compressed = 0, stretched = 0;
      for (uint32_t i = 0; i < x.size(); ++i) {
        float rho = 0.0f, lambda = 0.0f;
        pbf::density_lambda(c, i, nb.view(), x.data(), rho, lambda);
        // Float sums of ~20-40 positive terms: ~1e-6 relative; 1e-5 to spare.
        EXPECT_NEAR(rho, want.rho[i], 1e-5 * want.rho[i]) << "seed " << seed << " particle " << i;
        // The same, on C (absolute 1e-5 of rho0) propagated through eq. 11, plus
        // the float error of the denominator.
        EXPECT_NEAR(lambda, want.lambda[i], 1e-5 / want.denominator[i] + 1e-5 * std::fabs(want.lambda[i]))
            << "seed " << seed << " particle " << i << " unilateral " << unilateral << " C " << want.constraint[i];
        // The same density from density() (eq. 2 alone).
        EXPECT_NEAR(pbf::density(c, i, nb.view(), x.data()), want.rho[i], 1e-5 * want.rho[i]);
        const double raw_c = want.rho[i] / ref.rho0 - 1.0;
        if (raw_c > 0.02) ++compressed;
        if (raw_c < -0.02) ++stretched;
        // Unilateral: a stretched particle has no constraint force at all.
        if (unilateral && raw_c < 0.0) {
          EXPECT_EQ(lambda, 0.0f) << "particle " << i;
        }
        // Compression gives lambda < 0 (the correction pushes neighbours apart).
        if (raw_c > 1e-3) {
          EXPECT_LT(lambda, 0.0f) << "particle " << i;
        }
      }
      // The scene must exercise both signs of C_i, or the test proves little.
      EXPECT_GE(compressed, 5) << "seed " << seed;
      EXPECT_GE(stretched, 5) << "seed " << seed;
    }
  }
}

TEST(PbfEquations, WithoutRelaxationAParticleWithoutNeighboursGetsNoLambda) {
  // relaxation = 0 (eq. 11 without its epsilon) is in range: a particle with
  // no neighbour and no wall near has no constraint gradient at all, and
  // -C / 0 was NaN (0 / 0 where unilateral); it reached the neighbours'
  // corrections and the 5 cm dam break ran at 100 m/s. Nothing can move it
  // along a zero gradient: lambda is 0.
  const SolverConfig config = make_config();
  for (bool unilateral : {true, false}) {
    PbfParams p = params_with(unilateral, 0.1f);
    p.relaxation = 0.0f;
    const PbfConstants c = pbf::make_pbf_constants(config, p, kDt);
    ASSERT_EQ(c.cfm, 0.0f);
    const std::vector<Vec3> x = {Vec3{0.0f, 0.0f, 0.0f}, Vec3{5.0f * kRadius, 0.0f, 0.0f}};
    const Lists nb = brute_force_lists(x, kRadius);
    float rho = 0.0f, lambda = 1.0f;
    pbf::density_lambda(c, 0, nb.view(), x.data(), rho, lambda);
    EXPECT_EQ(lambda, 0.0f) << "unilateral " << unilateral;
    EXPECT_FLOAT_EQ(rho, c.mass * pbf::poly6(c.kernel, 0.0f));
  }
}

TEST(PbfEquations, PositionCorrectionMatchesEquation14) {
  const SolverConfig config = make_config();
  struct Variant {
    bool unilateral;
    float k, n;
  };
  const Variant variants[] = {{true, 0.0f, 4.0f}, {true, 0.1f, 4.0f}, {false, 0.0f, 4.0f},
                              {false, 0.1f, 4.0f}, {true, 0.1f, 2.5f}};
  for (uint32_t seed : {4u, 5u}) {
    const std::vector<Vec3> x = compressed_block(seed);
    const Lists nb = brute_force_lists(x, kRadius);
    for (const Variant& v : variants) {
      const PbfParams p = params_with(v.unilateral, v.k, v.n);
      const PbfConstants c = pbf::make_pbf_constants(config, p, kDt);
      const Reference ref = make_reference(config, p, c);
      std::vector<float> rho(x.size()), lambda(x.size());
      for (uint32_t i = 0; i < x.size(); ++i) pbf::density_lambda(c, i, nb.view(), x.data(), rho[i], lambda[i]);
      for (uint32_t i = 0; i < x.size(); ++i) {
        // Both sides use the solver's lambdas, so that only eq. 14 is compared.
        const Vec3 dp = pbf::position_correction(c, i, nb.view(), x.data(), lambda.data());
        const Correction want = reference_position_correction(ref, x, lambda, i);
        ASSERT_GT(want.scale, 0.0);
        // Float round-off of a sum of terms of either sign: 1e-5 of the sum of
        // their magnitudes.
        const double tol = 1e-5 * want.scale;
        EXPECT_NEAR(dp.x, want.dp.x, tol) << "seed " << seed << " k " << v.k << " n " << v.n << " particle " << i;
        EXPECT_NEAR(dp.y, want.dp.y, tol) << "seed " << seed << " k " << v.k << " n " << v.n << " particle " << i;
        EXPECT_NEAR(dp.z, want.dp.z, tol) << "seed " << seed << " k " << v.k << " n " << v.n << " particle " << i;
      }
    }
  }
}

// The CUDA backend's slot-major lists (neighbor_lists.h) and the CPU
// backend's particle-major lists give every equation the same bits: the same
// neighbours are summed in the same order. So do the points and lambdas the
// CUDA stages' correction reads packed together (PointValue).
TEST(PbfEquations, SlotMajorListsGiveTheSameBitsAsParticleMajorLists) {
  const SolverConfig config = make_config();
  const std::vector<Vec3> x = compressed_block(6);
  const Lists nb = brute_force_lists(x, kRadius);
  const uint32_t n = static_cast<uint32_t>(x.size());
  std::vector<uint32_t> slot_major(static_cast<size_t>(n) * nb.stride, 0xDEADBEEFu);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < nb.count[i]; ++k) slot_major[static_cast<size_t>(k) * n + i] = nb.index[i * nb.stride + k];
  const NeighborLists sm = NeighborLists::slot_major(slot_major.data(), nb.count.data(), nb.stride, n);
  const PbfConstants c = pbf::make_pbf_constants(config, params_with(false, 0.1f), kDt);
  std::vector<float> rho(n), lambda(n), rho_s(n), lambda_s(n);
  std::vector<Vec3> v(n), omega(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = Vec3{0.1f * i, -0.03f * (i % 7), 0.02f * (i % 5)};
  for (uint32_t i = 0; i < n; ++i) {
    pbf::density_lambda(c, i, nb.view(), x.data(), rho[i], lambda[i]);
    pbf::density_lambda(c, i, sm, x.data(), rho_s[i], lambda_s[i]);
    ASSERT_EQ(rho[i], rho_s[i]) << "particle " << i;
    ASSERT_EQ(lambda[i], lambda_s[i]) << "particle " << i;
  }
  std::vector<pbf::PointValue> x_lambda(n);
  for (uint32_t i = 0; i < n; ++i) x_lambda[i] = pbf::PointValue{x[i], lambda[i]};
  for (uint32_t i = 0; i < n; ++i) {
    const Vec3 a = pbf::position_correction(c, i, nb.view(), x.data(), lambda.data());
    const Vec3 b = pbf::position_correction(c, i, sm, x.data(), lambda.data());
    EXPECT_TRUE(a.x == b.x && a.y == b.y && a.z == b.z) << "particle " << i;
    const Vec3 packed = pbf::position_correction(c, i, sm, x_lambda.data());
    EXPECT_TRUE(a.x == packed.x && a.y == packed.y && a.z == packed.z) << "particle " << i << ", packed";
    omega[i] = pbf::vorticity(c, i, nb.view(), x.data(), v.data(), rho.data());
    const Vec3 w = pbf::vorticity(c, i, sm, x.data(), v.data(), rho.data());
    EXPECT_TRUE(omega[i].x == w.x && omega[i].y == w.y && omega[i].z == w.z) << "particle " << i;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const Vec3 a = pbf::vorticity_viscosity(c, i, nb.view(), x.data(), v.data(), rho.data(), omega.data());
    const Vec3 b = pbf::vorticity_viscosity(c, i, sm, x.data(), v.data(), rho.data(), omega.data());
    EXPECT_TRUE(a.x == b.x && a.y == b.y && a.z == b.z) << "particle " << i;
  }
}

TEST(PbfEquations, ArtificialPressureAloneIsRepulsive) {
  // With every lambda zero, dp_i comes from s_corr alone (eq. 13-14): it must
  // push two close particles apart, and vanish when k = 0.
  const SolverConfig config = make_config();
  const std::vector<Vec3> x = {Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.05f, 0.02f, -0.01f}};
  const Lists nb = brute_force_lists(x, kRadius);
  const std::vector<float> lambda(2, 0.0f);
  const PbfConstants c = pbf::make_pbf_constants(config, params_with(true, 0.1f), kDt);
  const Vec3 dp0 = pbf::position_correction(c, 0, nb.view(), x.data(), lambda.data());
  const Vec3 dp1 = pbf::position_correction(c, 1, nb.view(), x.data(), lambda.data());
  EXPECT_GT(pbf::dot(dp0, x[0] - x[1]), 0.0f);
  EXPECT_GT(pbf::dot(dp1, x[1] - x[0]), 0.0f);
  EXPECT_LT(pbf::artificial_pressure(c, pbf::length_squared(x[0] - x[1])), 0.0f);
  // At |r| = dq, s_corr = -k (in units of lambda): W(dq) / W(dq) = 1; float round-off only.
  const float dq = 0.2f * kRadius;
  EXPECT_NEAR(pbf::artificial_pressure(c, dq * dq), -c.scorr_scale, 1e-5 * c.scorr_scale);
  const PbfConstants off = pbf::make_pbf_constants(config, params_with(true, 0.0f), kDt);
  const Vec3 none = pbf::position_correction(off, 0, nb.view(), x.data(), lambda.data());
  EXPECT_EQ(pbf::length_squared(none), 0.0f);
}

TEST(PbfEquations, ArtificialPressurePushesPerSecondAndNoSweepHarderThanThePapers) {
  // The paper's setting (4 iterations of a 1/240 s substep) pushes as written.
  const double ref = pbf::kReferenceSubstep;
  EXPECT_EQ(pbf::artificial_pressure_step_factor(ref, 4), 1.0);
  // Shorter substeps and more sweeps push less per sweep, as hard per second.
  EXPECT_DOUBLE_EQ(pbf::artificial_pressure_step_factor(ref / 2, 4), 0.25);
  EXPECT_DOUBLE_EQ(pbf::artificial_pressure_step_factor(ref, 8), 0.5);
  EXPECT_DOUBLE_EQ(pbf::artificial_pressure_step_factor(ref / 2, 20), 0.05);
  // Longer substeps and fewer sweeps keep the paper's push per sweep: more would act as a
  // stiff explicit force (one sweep pushing 4 sweeps' worth threw the dam break at 100 m/s).
  EXPECT_EQ(pbf::artificial_pressure_step_factor(4 * ref, 4), 1.0);
  EXPECT_EQ(pbf::artificial_pressure_step_factor(ref, 1), 1.0);
  EXPECT_EQ(pbf::artificial_pressure_step_factor(ref, 2), 1.0);
  EXPECT_EQ(pbf::artificial_pressure_step_factor(4 * ref, 1), 1.0);
}

TEST(PbfEquations, ArtificialPressureGivesNoSubnormalFloats) {
  // Near the kernel's edge (W(r) / W(dq))^4 runs into subnormal floats, which
  // x86 processors multiply in microcode, many times slower. s_corr is zero
  // where that power would be under 2^-64, and unchanged elsewhere. The scan
  // of pairs from 0.9 h to h finds subnormal terms without the cut (so it
  // reaches them) and none with it.
  const SolverConfig config = make_config();
  const PbfConstants c = pbf::make_pbf_constants(config, params_with(true, 0.1f), kDt);
  PbfConstants uncut = c;
  uncut.scorr_w_min = 0.0f;
  const float h2 = c.kernel.h2;
  int subnormal_uncut = 0, cut = 0, kept = 0;
  for (int k = 0; k <= 4000; ++k) {
    const float gap = std::pow(10.0f, -1.0f - 7.0f * static_cast<float>(k) / 4000.0f);  // 1e-1 .. 1e-8
    const float r2 = h2 * (1.0f - gap);
    if (!(r2 < h2)) continue;
    const float s = pbf::artificial_pressure(c, r2);
    EXPECT_NE(std::fpclassify(s), FP_SUBNORMAL) << "r2 = " << r2;
    if (std::fpclassify(pbf::artificial_pressure(uncut, r2)) == FP_SUBNORMAL) ++subnormal_uncut;
    const float w = pbf::poly6(c.kernel, r2) * c.scorr_inv_wdq;
    if (w < c.scorr_w_min) {
      EXPECT_EQ(s, 0.0f) << "r2 = " << r2;
      ++cut;
    } else {
      EXPECT_EQ(s, -c.scorr_scale * ((w * w) * (w * w))) << "r2 = " << r2;
      ++kept;
    }
  }
  EXPECT_GT(subnormal_uncut, 0) << "the scan reaches the pairs whose terms are subnormal without the cut";
  EXPECT_GT(cut, 0);
  EXPECT_GT(kept, 0);
  EXPECT_EQ(c.scorr_w_min, std::ldexp(1.0f, -16)) << "2^(-64 / n) with n = 4";
}

TEST(PbfEquations, PositionCorrectionsSumToZero) {
  // Each pair term (lambda_i + lambda_j + s_corr) grad W(x_i - x_j) is
  // antisymmetric in i and j, so the corrections conserve linear momentum.
  const SolverConfig config = make_config();
  for (uint32_t seed : {6u, 7u, 8u}) {
    const std::vector<Vec3> x = compressed_block(seed);
    const Lists nb = brute_force_lists(x, kRadius);
    for (bool unilateral : {true, false}) {
      for (float k : {0.0f, 0.1f}) {
        const PbfConstants c = pbf::make_pbf_constants(config, params_with(unilateral, k), kDt);
        std::vector<float> rho(x.size()), lambda(x.size());
        for (uint32_t i = 0; i < x.size(); ++i) pbf::density_lambda(c, i, nb.view(), x.data(), rho[i], lambda[i]);
        D3 sum{0, 0, 0};
        double magnitude = 0.0;
        for (uint32_t i = 0; i < x.size(); ++i) {
          const Vec3 dp = pbf::position_correction(c, i, nb.view(), x.data(), lambda.data());
          sum = sum + to_d(dp);
          magnitude += norm(to_d(dp));
        }
        ASSERT_GT(magnitude, 0.0);
        // Float round-off of each dp_i (~1e-6 of the terms, which are of the
        // size of dp_i or a few times larger).
        EXPECT_LT(norm(sum), 1e-5 * magnitude) << "seed " << seed << " unilateral " << unilateral << " k " << k;
      }
    }
  }
}

TEST(PbfEquations, CoincidentParticlesGetOppositeGradientsOfTheLimitMagnitude) {
  const pbf::KernelConstants k = pbf::KernelConstants::make(kRadius);
  const Vec3 zero{0, 0, 0};
  for (uint32_t i : {0u, 5u, 1000u})
    for (uint32_t j : {1u, 6u, 77u}) {
      const Vec3 g = pbf::pair_gradient(k, zero, 0.0f, i, j);
      const Vec3 h = pbf::pair_gradient(k, zero, 0.0f, j, i);
      EXPECT_NEAR(g.x, -h.x, 1e-6f * pbf::length(g));
      EXPECT_NEAR(g.y, -h.y, 1e-6f * pbf::length(g));
      EXPECT_NEAR(g.z, -h.z, 1e-6f * pbf::length(g));
      // The Spiky gradient's magnitude tends to 45 h^2 / (pi h^6) as r -> 0.
      const double limit = 45.0 / (kPiD * std::pow(double(kRadius), 4));
      EXPECT_NEAR(pbf::length(g), limit, 1e-5 * limit) << i << " " << j;
    }
  // Elsewhere it is the Spiky gradient itself.
  const Vec3 r{0.03f, -0.02f, 0.05f};
  const Vec3 g = pbf::pair_gradient(k, r, pbf::length_squared(r), 3, 4);
  const Vec3 s = pbf::spiky_gradient(k, r);
  EXPECT_EQ(g.x, s.x);
  EXPECT_EQ(g.y, s.y);
  EXPECT_EQ(g.z, s.z);
}

TEST(PbfEquations, CoincidentParticlesArePushedApartAndMomentumIsKept) {
  // Two particles on the same point in a compressed block: with a gradient
  // of zero between them they would get equal corrections and never part.
  const SolverConfig config = make_config();
  const PbfConstants c = pbf::make_pbf_constants(config, params_with(true, 0.1f), kDt);
  std::vector<Vec3> x = compressed_block(9);
  const uint32_t a = 5, b = static_cast<uint32_t>(x.size());
  x.push_back(x[a]);
  const Lists nb = brute_force_lists(x, kRadius);
  std::vector<float> rho(x.size()), lambda(x.size());
  for (uint32_t i = 0; i < x.size(); ++i) pbf::density_lambda(c, i, nb.view(), x.data(), rho[i], lambda[i]);
  ASSERT_LT(lambda[a], 0.0f) << "the doubled particle is compressed";
  D3 sum{0, 0, 0};
  double magnitude = 0.0;
  std::vector<Vec3> dp(x.size());
  for (uint32_t i = 0; i < x.size(); ++i) {
    dp[i] = pbf::position_correction(c, i, nb.view(), x.data(), lambda.data());
    sum = sum + to_d(dp[i]);
    magnitude += norm(to_d(dp[i]));
  }
  const double apart = norm(to_d(dp[a]) - to_d(dp[b]));
  EXPECT_GT(apart, 0.01 * kSpacing) << "the two copies move apart";
  EXPECT_LT(norm(sum), 1e-5 * magnitude);
}

// --- collisions, velocities, vorticity ---------------------------------------

TEST(PbfEquations, CollideKeepsPointsOutOfAPlaneByTheParticleRadius) {
  const SolverConfig config = make_config();
  const PbfConstants c = pbf::make_pbf_constants(config, params_with(true, 0.1f), kDt);  // friction 0
  const float r = c.particle_radius;
  // The floor y >= -0.5 and a slanted plane through the origin.
  const float a = 1.0f / std::sqrt(1.0f + 4.0f + 0.25f);
  const Plane planes[] = {{Vec3{0.0f, 1.0f, 0.0f}, 0.5f}, {Vec3{a, 2.0f * a, -0.5f * a}, 0.1f}};
  // A point below the floor is lifted straight up to one radius above it.
  const Vec3 below = pbf::collide(c, planes, 1, nullptr, 0, Vec3{0.3f, -0.7f, 0.2f}, Vec3{0.3f, -0.4f, 0.2f});
  EXPECT_FLOAT_EQ(below.x, 0.3f);
  EXPECT_NEAR(below.y, -0.5f + r, 1e-6f);
  EXPECT_FLOAT_EQ(below.z, 0.2f);
  std::mt19937 rng(99);
  // Small enough that the push never reaches the domain box, which would clamp it.
  std::uniform_real_distribution<float> u(-0.4f, 0.4f);
  for (int trial = 0; trial < 500; ++trial) {
    const Vec3 p{u(rng), u(rng), u(rng)};
    const Vec3 q = pbf::collide(c, planes + 1, 1, nullptr, 0, p, p);
    const float before = pbf::dot(planes[1].normal, p) + planes[1].offset;
    const float after = pbf::dot(planes[1].normal, q) + planes[1].offset;
    // Float round-off of the projection: a few ulps of the coordinates.
    EXPECT_GE(after, r - 1e-6f) << "trial " << trial;
    if (before >= r) {
      EXPECT_EQ(q.x, p.x);  // points clear of the plane are untouched
      EXPECT_EQ(q.y, p.y);
      EXPECT_EQ(q.z, p.z);
    } else {
      EXPECT_NEAR(after, r, 1e-6f);  // pushed along the normal to exactly one radius
      const Vec3 moved = q - p;
      EXPECT_NEAR(pbf::length(moved), std::fabs(pbf::dot(moved, planes[1].normal)), 1e-6f);
    }
  }
}

TEST(PbfEquations, CollideKeepsPointsInsideTheDomainBox) {
  const SolverConfig config = make_config();
  const PbfConstants c = pbf::make_pbf_constants(config, params_with(true, 0.1f), kDt);
  std::mt19937 rng(100);
  std::uniform_real_distribution<float> u(-5.0f, 5.0f);
  for (int trial = 0; trial < 500; ++trial) {
    const Vec3 p{u(rng), u(rng), u(rng)};
    const Vec3 q = pbf::collide(c, nullptr, 0, nullptr, 0, p, p);
    // The box is the domain shrunk by the particle radius: [-0.95, 0.95]^3.
    for (float v : {q.x, q.y, q.z}) {
      EXPECT_GE(v, -1.0f + c.particle_radius);
      EXPECT_LE(v, 1.0f - c.particle_radius);
    }
    if (std::fabs(p.x) < 0.95f) {
      EXPECT_EQ(q.x, p.x);
    }
    if (std::fabs(p.y) < 0.95f) {
      EXPECT_EQ(q.y, p.y);
    }
    if (std::fabs(p.z) < 0.95f) {
      EXPECT_EQ(q.z, p.z);
    }
  }
}

// A dynamic body's relief (core/obstacle.h) moves a particle: relieved()
// holds the moved particle out of the planes and inside the domain box, and
// leaves one the relief did not move, or moved where the walls allow, where
// it is, bit for bit.
TEST(PbfEquations, RelievedHoldsAParticleMovedByABodysYieldOutOfThePlanesAndInsideTheBox) {
  const SolverConfig config = make_config();
  const PbfConstants c = pbf::make_pbf_constants(config, params_with(true, 0.1f), kDt);  // friction 0
  const float r = c.particle_radius;
  const Plane floor{Vec3{0.0f, 1.0f, 0.0f}, 0.5f};  // y >= -0.5
  const Vec3 p{0.3f, -0.45f, 0.2f};
  // Pressed 0.1 down, through the floor's contact plane: set back onto it.
  const Vec3 down = pbf::relieved(c, &floor, 1, p, Vec3{0.3f, -0.55f, 0.2f}, p);
  EXPECT_FLOAT_EQ(down.x, 0.3f);
  EXPECT_NEAR(down.y, -0.5f + r, 1e-6f);
  EXPECT_FLOAT_EQ(down.z, 0.2f);
  // Pressed 0.7 along x, past the domain's wall x = 1: held a radius inside it.
  const Vec3 side = pbf::relieved(c, &floor, 1, p, Vec3{1.0f, -0.45f, 0.2f}, p);
  EXPECT_EQ(side.x, 1.0f - r);
  EXPECT_EQ(side.y, p.y);
  // Moved where the walls allow, and not moved: kept exactly.
  const Vec3 free{0.1f, -0.3f, 0.25f};
  const Vec3 kept = pbf::relieved(c, &floor, 1, p, free, p);
  EXPECT_TRUE(kept.x == free.x && kept.y == free.y && kept.z == free.z);
  const Vec3 outside{0.3f, -0.6f, 0.2f};  // a caller's particle below the floor, not moved by the relief
  const Vec3 same = pbf::relieved(c, &floor, 1, outside, outside, outside);
  EXPECT_TRUE(same.x == outside.x && same.y == outside.y && same.z == outside.z);
}

TEST(PbfEquations, CollideFrictionLimitsTheTangentialMotionByMuTimesThePenetration) {
  const SolverConfig config = make_config();
  PbfParams p = params_with(true, 0.1f);
  p.friction = 0.5f;
  const PbfConstants c = pbf::make_pbf_constants(config, p, kDt);
  const Plane floor{Vec3{0.0f, 1.0f, 0.0f}, 0.0f};
  // Penetration depth = radius + 0.1 = 0.15; the tangential motion 0.2 is
  // reduced by mu * depth = 0.075, so x ends at 0.125; float round-off only.
  const Vec3 q = pbf::collide(c, &floor, 1, nullptr, 0, Vec3{0.2f, -0.1f, 0.0f}, Vec3{0.0f, 0.1f, 0.0f});
  EXPECT_NEAR(q.x, 0.125f, 1e-6f);
  EXPECT_NEAR(q.y, c.particle_radius, 1e-6f);
  EXPECT_NEAR(q.z, 0.0f, 1e-6f);
  // Strong friction stops the tangential motion entirely (static friction).
  p.friction = 100.0f;
  const PbfConstants sticky = pbf::make_pbf_constants(config, p, kDt);
  const Vec3 s = pbf::collide(sticky, &floor, 1, nullptr, 0, Vec3{0.2f, -0.1f, 0.05f}, Vec3{0.0f, 0.1f, 0.0f});
  EXPECT_NEAR(s.x, 0.0f, 1e-6f);
  EXPECT_NEAR(s.z, 0.0f, 1e-6f);
  EXPECT_NEAR(s.y, c.particle_radius, 1e-6f);
}

// The six walls of the domain box, as the solver builds them.
std::vector<Plane> domain_walls(const SolverConfig& config) {
  const Vec3 lo = config.domain_min, hi = config.domain_max;
  return {Plane{Vec3{1, 0, 0}, -lo.x}, Plane{Vec3{-1, 0, 0}, hi.x}, Plane{Vec3{0, 1, 0}, -lo.y},
          Plane{Vec3{0, -1, 0}, hi.y}, Plane{Vec3{0, 0, 1}, -lo.z}, Plane{Vec3{0, 0, -1}, hi.z}};
}

TEST(PbfEquations, UpdatedVelocityIsTheDisplacementOverDtAwayFromWalls) {
  const SolverConfig config = make_config();
  const PbfConstants c = pbf::make_pbf_constants(config, params_with(true, 0.1f), kDt);
  const std::vector<Plane> walls = domain_walls(config);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> pos(-0.5f, 0.5f), step(-0.01f, 0.01f);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 x{pos(rng), pos(rng), pos(rng)};
    const Vec3 xp = x + Vec3{step(rng), step(rng), step(rng)};
    const Vec3 v_pred{pos(rng), pos(rng), pos(rng)};  // ignored away from walls
    const Vec3 v = pbf::updated_velocity(c, walls.data(), static_cast<uint32_t>(walls.size()), x, xp, v_pred);
    const D3 want = (to_d(xp) - to_d(x)) * (1.0 / kDt);
    // Float subtraction (half an ulp of a coordinate, 3e-8) and scaling by
    // 1/dt, with a few ulps of margin: 3e-5 m/s on speeds of ~1 m/s.
    const double tol = 3e-5;
    EXPECT_NEAR(v.x, want.x, tol);
    EXPECT_NEAR(v.y, want.y, tol);
    EXPECT_NEAR(v.z, want.z, tol);
  }
}

TEST(PbfEquations, UpdatedVelocityAppliesRestitutionAtAWall) {
  const SolverConfig config = make_config();
  PbfParams p = params_with(true, 0.1f);
  p.restitution = 0.5f;
  const PbfConstants c = pbf::make_pbf_constants(config, p, kDt);
  const Plane floor{Vec3{0, 1, 0}, 0.0f};
  // Resting on the floor after sliding along x; it arrived at -2 m/s in y.
  const Vec3 xp{0.0f, c.particle_radius, 0.0f};
  const Vec3 x = xp - Vec3{kDt * 1.0f, 0.0f, 0.0f};
  const Vec3 v = pbf::updated_velocity(c, &floor, 1, x, xp, Vec3{1.0f, -2.0f, 0.0f});
  // Float round-off of (x_pred - x) / dt.
  EXPECT_NEAR(v.x, 1.0f, 1e-4f);
  EXPECT_NEAR(v.y, 1.0f, 1e-5f);  // leaves at restitution x arrival speed
  EXPECT_NEAR(v.z, 0.0f, 1e-6f);
}

TEST(PbfEquations, ClampSpeedCapsTheSpeedAndKeepsTheDirection) {
  const Vec3 fast{120.0f, -160.0f, 0.0f};  // 200 m/s
  const Vec3 capped = pbf::clamp_speed(fast, 100.0f);
  // Float round-off of the scaling.
  EXPECT_NEAR(pbf::length(capped), 100.0f, 1e-4f);
  EXPECT_NEAR(capped.x, 60.0f, 1e-4f);
  EXPECT_NEAR(capped.y, -80.0f, 1e-4f);
  const Vec3 slow{3.0f, 4.0f, -1.0f};
  const Vec3 same = pbf::clamp_speed(slow, 100.0f);
  EXPECT_EQ(same.x, slow.x);
  EXPECT_EQ(same.y, slow.y);
  EXPECT_EQ(same.z, slow.z);
  // predict() applies the cap after gravity.
  const PbfConstants c = pbf::make_pbf_constants(make_config(), PbfParams{}, kDt);
  Vec3 v{500.0f, 0.0f, 0.0f}, xp{};
  pbf::predict(c, Vec3{0, 0, 0}, v, xp);
  EXPECT_NEAR(pbf::length(v), c.max_speed, 1e-4f * c.max_speed);
}

TEST(PbfEquations, ABounceOffTwoPlanesIsNoFasterThanTheArrival) {
  // The bottom of a V-shaped valley (normals 37 degrees from the vertical on
  // either side): the particle arrives straight down at 1 m/s and stays put.
  // Raising its speed off one plane to the arrival's normal part (0.8 m/s)
  // and then off the other, along another normal, sent it off at 1.11 m/s:
  // each such bounce gained energy.
  const SolverConfig config = make_config();
  PbfParams p = params_with(true, 0.1f);
  p.restitution = 1.0f;
  p.max_speed = 3e8f;
  const PbfConstants c = pbf::make_pbf_constants(config, p, kDt);
  const Plane valley[2] = {Plane{Vec3{0.6f, 0.8f, 0.0f}, -c.particle_radius},
                           Plane{Vec3{-0.6f, 0.8f, 0.0f}, -c.particle_radius}};
  const Vec3 x{0.0f, 0.0f, 0.0f};
  const Vec3 v_pred{0.0f, -1.0f, 0.0f};
  const Vec3 v = pbf::updated_velocity(c, valley, 2, x, x, v_pred);
  // Float round-off of the squares and the square root: 1e-6 m/s.
  EXPECT_LE(pbf::length(v), 1.0f + 1e-6f);
  // It still leaves both planes, at the most the arrival allows.
  EXPECT_GE(pbf::dot(v, valley[0].normal), 0.0f);
  EXPECT_GE(pbf::dot(v, valley[1].normal), -1e-6f);
  EXPECT_GT(v.y, 0.5f);
}

TEST(PbfEquations, ClampSpeedClampsVelocitiesWhoseSquareOverflows) {
  // |v|^2 overflows to infinity for these; they used to come back as zero
  // (v x max_speed / inf) or unchanged (max_speed^2 infinite as well).
  const float big = 3.0e38f;
  for (const Vec3 fast : {Vec3{big, -big, big}, Vec3{2e19f, 0.0f, 0.0f}, Vec3{-1e30f, 1.0f, 2e29f}}) {
    for (float limit : {100.0f, 3e8f, 1e25f}) {
      const Vec3 capped = pbf::clamp_speed(fast, limit);
      ASSERT_TRUE(pbf::is_finite(capped));
      // Float round-off of the scaling: 1e-6 relative.
      const double speed = norm(to_d(capped)), want = std::fmin(norm(to_d(fast)), double(limit));
      EXPECT_NEAR(speed, want, 1e-6 * want);
      // The same direction.
      const D3 u = to_d(capped) * (1.0 / speed), f = to_d(fast) * (1.0 / norm(to_d(fast)));
      EXPECT_NEAR(dot(u, f), 1.0, 1e-6);
    }
  }
  // A limit beyond sqrt(FLT_MAX) leaves slower velocities as they are.
  const Vec3 slow{2e19f, -1e19f, 0.0f};
  const Vec3 same = pbf::clamp_speed(slow, 3e38f);
  EXPECT_EQ(same.x, slow.x);
  EXPECT_EQ(same.y, slow.y);
}

TEST(PbfEquations, VorticityOfARigidRotationIsTwiceTheAngularVelocity) {
  // Particles at rest spacing on a 13^3 lattice move as v = Omega x r. The
  // curl of that field is 2 Omega; eq. 15 estimates it with SPH.
  const SolverConfig config = make_config();
  const PbfConstants c = pbf::make_pbf_constants(config, PbfParams{}, kDt);
  const int half = 6;
  std::vector<Vec3> x, v;
  std::vector<int> depth;  // lattice steps to the nearest face
  const Vec3 omega{0.3f, -0.5f, 0.8f};
  for (int k = -half; k <= half; ++k)
    for (int j = -half; j <= half; ++j)
      for (int i = -half; i <= half; ++i) {
        const Vec3 p{i * kSpacing, j * kSpacing, k * kSpacing};
        x.push_back(p);
        v.push_back(pbf::cross(omega, p));
        depth.push_back(half - std::max(std::abs(i), std::max(std::abs(j), std::abs(k))));
      }
  const Lists nb = brute_force_lists(x, kRadius);
  std::vector<float> rho(x.size());
  for (uint32_t i = 0; i < x.size(); ++i) rho[i] = pbf::density(c, i, nb.view(), x.data());

  // On the ideal lattice, sum_j V_j (x_j - x_i) (x) grad_i W_ij = alpha I by
  // cubic symmetry, so the estimate is exactly 2 alpha Omega; alpha measures
  // how well the coarse lattice (h = 2 spacing) integrates the kernel gradient.
  double alpha = 0.0;
  {
    const uint32_t centre = static_cast<uint32_t>(x.size() / 2);
    for (uint32_t k = 0; k < nb.count[centre]; ++k) {
      const uint32_t j = nb.index[centre * nb.stride + k];
      alpha += (c.mass / rho[j]) * pbf::dot(x[j] - x[centre], pbf::spiky_gradient(c.kernel, x[centre] - x[j]));
    }
    alpha /= 3.0;
  }
  // Measured 0.947: the lattice sum under-integrates by 5 %.
  EXPECT_NEAR(alpha, 1.0, 0.08);

  int checked = 0;
  for (uint32_t i = 0; i < x.size(); ++i) {
    // Interior: the particle and all its neighbours have full neighbourhoods.
    if (depth[i] < 4) continue;
    ++checked;
    const Vec3 w = pbf::vorticity(c, i, nb.view(), x.data(), v.data(), rho.data());
    // Float round-off of a sum of ~30 terms of size |Omega|: 1e-5 of 2|Omega|.
    const float tight = 1e-5f * 2.0f * pbf::length(omega);
    EXPECT_NEAR(w.x, 2.0 * alpha * omega.x, tight) << "particle " << i;
    EXPECT_NEAR(w.y, 2.0 * alpha * omega.y, tight) << "particle " << i;
    EXPECT_NEAR(w.z, 2.0 * alpha * omega.z, tight) << "particle " << i;
    // Against the exact curl: the lattice's 5 % under-integration, with room to 8 %.
    const float loose = 0.08f * 2.0f * pbf::length(omega);
    EXPECT_NEAR(w.x, 2.0f * omega.x, loose) << "particle " << i;
    EXPECT_NEAR(w.y, 2.0f * omega.y, loose) << "particle " << i;
    EXPECT_NEAR(w.z, 2.0f * omega.z, loose) << "particle " << i;
  }
  EXPECT_EQ(checked, 125);
}

}  // namespace
