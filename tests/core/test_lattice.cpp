// Unit tests of the ideal-lattice sums (core/lattice.h) that calibrate the
// particle mass and the rest gradient norm, and of lattice_fill
// (core/lattice_fill.h), which places particles on a cubic lattice in a box.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/config.h"
#include "core/lattice.h"
#include "core/lattice_fill.h"
#include "methods/pbf/pbf_equations.h"

namespace {

using pbf::KernelConstants;
using pbf::LatticeSums;
using pbf::Vec3;

constexpr double kPiD = 3.14159265358979323846;

// The lattice sums written again in double precision from the kernel formulas.
LatticeSums reference_sums(double spacing, double h) {
  LatticeSums s{0.0, 0.0};
  const int n = static_cast<int>(std::ceil(h / spacing)) + 2;
  const double poly6 = 315.0 / (64.0 * kPiD * std::pow(h, 9));
  const double spiky = 45.0 / (kPiD * std::pow(h, 6));
  for (int z = -n; z <= n; ++z)
    for (int y = -n; y <= n; ++y)
      for (int x = -n; x <= n; ++x) {
        const double r = spacing * std::sqrt(static_cast<double>(x * x + y * y + z * z));
        if (r >= h) continue;
        const double d = h * h - r * r;
        s.sum_w += poly6 * d * d * d;
        if (r > 0.0) s.sum_grad2 += std::pow(spiky * (h - r) * (h - r), 2);
      }
  return s;
}

TEST(LatticeSums, MatchADoublePrecisionSumOverTheLattice) {
  // Ratios h / spacing of 2 (the solver's default) and non-integer ones.
  for (double ratio : {1.5, 2.0, 2.3, 3.0}) {
    const float spacing = 0.1f;
    const float h = static_cast<float>(ratio) * spacing;
    const LatticeSums s = pbf::lattice_sums(spacing, KernelConstants::make(h));
    const LatticeSums ref = reference_sums(spacing, h);
    // Float evaluation of each term: ~1e-6 relative, no cancellation (all terms >= 0).
    EXPECT_NEAR(s.sum_w, ref.sum_w, 1e-5 * ref.sum_w) << "h / spacing = " << ratio;
    EXPECT_NEAR(s.sum_grad2, ref.sum_grad2, 1e-5 * ref.sum_grad2) << "h / spacing = " << ratio;
  }
}

TEST(LatticeSums, CalibratedMassGivesTheIdealLatticeExactlyTheRestDensity) {
  for (float spacing : {0.01f, 0.05f, 0.1f}) {
    pbf::SolverConfig config;
    config.particle_spacing = spacing;
    config.kernel_radius = 2.0f * spacing;
    config.rest_density = 1000.0f;
    const KernelConstants k = KernelConstants::make(config.kernel_radius);
    const LatticeSums s = pbf::lattice_sums(spacing, k);
    const double mass = pbf::pbf_particle_mass(config);
    // By construction, up to the rounding of the mass to float (6e-8 relative).
    EXPECT_NEAR(mass * s.sum_w, 1000.0, 1e-4) << "spacing = " << spacing;

    // The same holds for the density that the solver computes (eq. 2) at the
    // centre of a real lattice, with the neighbours found by brute force.
    const pbf::PbfConstants c = pbf::make_pbf_constants(config, pbf::PbfParams{}, 1.0f / 60.0f);
    std::vector<Vec3> x;
    for (int i = -3; i <= 3; ++i)
      for (int j = -3; j <= 3; ++j)
        for (int l = -3; l <= 3; ++l) x.push_back(Vec3{i * spacing, j * spacing, l * spacing});
    const uint32_t centre = static_cast<uint32_t>(x.size() / 2);  // the point (0, 0, 0)
    const uint32_t stride = static_cast<uint32_t>(x.size());
    std::vector<uint32_t> index(x.size() * stride), count(x.size(), 0u);
    for (uint32_t i = 0; i < x.size(); ++i)
      for (uint32_t j = 0; j < x.size(); ++j)
        if (j != i && pbf::length_squared(x[i] - x[j]) < k.h2) index[i * stride + count[i]++] = j;
    const pbf::NeighborLists nb = pbf::NeighborLists::particle_major(index.data(), count.data(), stride);
    const float rho = pbf::density(c, centre, nb, x.data());
    // Float sums of ~33 terms: a few 1e-7 relative.
    EXPECT_NEAR(rho, 1000.0f, 1e-3f) << "spacing = " << spacing;
  }
}

TEST(LatticeSums, SumOfWeightsIsCloseToTheLatticeNumberDensity) {
  // The Poly6 normalisation makes sum_j W(x_j) a quadrature of the integral of
  // W times the number density 1 / spacing^3. At h = 2 spacing the quadrature
  // is coarse (measured 1.0 % high); 3 % allows for that and still catches a
  // wrong normalisation constant.
  for (float spacing : {0.01f, 0.1f, 1.0f}) {
    const LatticeSums s = pbf::lattice_sums(spacing, KernelConstants::make(2.0f * spacing));
    const double n = 1.0 / std::pow(static_cast<double>(spacing), 3);
    EXPECT_NEAR(s.sum_w, n, 0.03 * n) << "spacing = " << spacing;
  }
  // With more neighbours (h = 4 spacing) the quadrature is much better
  // (measured 2e-6 relative); 1e-4 allows for float round-off.
  const LatticeSums fine = pbf::lattice_sums(0.1f, KernelConstants::make(0.4f));
  EXPECT_NEAR(fine.sum_w, 1000.0, 1e-4 * 1000.0);
}

TEST(LatticeSums, GradientSumIsPositiveAndScalesAsSpacingToTheMinusEight) {
  // |grad W|^2 ~ h^-8 and the number of lattice points in the support is fixed
  // when spacing and h scale together, so sum_grad2 * spacing^8 is invariant.
  const double base = pbf::lattice_sums(1.0f, KernelConstants::make(2.0f)).sum_grad2;
  ASSERT_GT(base, 0.0);
  for (float spacing : {0.005f, 0.05f, 0.5f, 4.0f}) {
    const LatticeSums s = pbf::lattice_sums(spacing, KernelConstants::make(2.0f * spacing));
    EXPECT_GT(s.sum_grad2, 0.0);
    // Float round-off of the scaled constants and offsets: ~1e-6 relative.
    EXPECT_NEAR(s.sum_grad2 * std::pow(static_cast<double>(spacing), 8), base, 1e-5 * base)
        << "spacing = " << spacing;
    // The same dimensional argument for sum_w ~ spacing^-3.
    const double base_w = pbf::lattice_sums(1.0f, KernelConstants::make(2.0f)).sum_w;
    EXPECT_NEAR(s.sum_w * std::pow(static_cast<double>(spacing), 3), base_w, 1e-5 * base_w)
        << "spacing = " << spacing;
  }
}

// --- lattice_fill ----------------------------------------------------------

// How far p is from the nearest lattice point lo + (i + 1/2) spacing, in units of spacing.
double lattice_offset(float p, float lo, float spacing) {
  const double t = (static_cast<double>(p) - lo) / spacing - 0.5;
  return std::fabs(t - std::round(t));
}

TEST(LatticeFill, FillsTheWholeBoxWhenTheKeepBoxContainsIt) {
  const Vec3 lo{0.0f, 0.0f, 0.0f}, hi{1.0f, 0.5f, 0.3f};
  const std::vector<float> p = pbf::lattice_fill(lo, hi, 0.1f, Vec3{-5, -5, -5}, Vec3{5, 5, 5});
  EXPECT_EQ(p.size(), 3u * 10u * 5u * 3u);
  EXPECT_EQ(pbf::lattice_fill_count(lo, hi, 0.1f, Vec3{-5, -5, -5}, Vec3{5, 5, 5}), 10u * 5u * 3u);
  // The first point is half a spacing in from the corner, x varying fastest.
  ASSERT_GE(p.size(), 6u);
  EXPECT_FLOAT_EQ(p[0], 0.05f);
  EXPECT_FLOAT_EQ(p[1], 0.05f);
  EXPECT_FLOAT_EQ(p[2], 0.05f);
  EXPECT_FLOAT_EQ(p[3], 0.15f);
  EXPECT_FLOAT_EQ(p[4], 0.05f);
}

TEST(LatticeFill, PointsLieOnTheLatticeInsideBothBoxesAndMatchTheCount) {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_real_distribution<float> ext(0.0f, 1.5f);
  std::uniform_real_distribution<float> sp(0.03f, 0.2f);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 lo{u(rng), u(rng), u(rng)};
    const Vec3 hi = lo + Vec3{ext(rng), ext(rng), ext(rng)};
    const Vec3 kmin{u(rng), u(rng), u(rng)};
    const Vec3 kmax = kmin + Vec3{ext(rng), ext(rng), ext(rng)};
    const float s = sp(rng);
    const std::vector<float> p = pbf::lattice_fill(lo, hi, s, kmin, kmax);
    ASSERT_EQ(p.size() % 3, 0u);
    EXPECT_EQ(pbf::lattice_fill_count(lo, hi, s, kmin, kmax), p.size() / 3) << "trial " << trial;

    // Brute force in double: every index i >= 0 with the point inside [lo, hi]
    // and the keep box. The random boxes' faces are almost surely not within
    // round-off of a lattice point, so the count must match exactly.
    size_t expected[3];
    const float l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
    const float a[3] = {kmin.x, kmin.y, kmin.z}, b[3] = {kmax.x, kmax.y, kmax.z};
    for (int axis = 0; axis < 3; ++axis) {
      expected[axis] = 0;
      for (int i = 0;; ++i) {
        const double q = l[axis] + (i + 0.5) * static_cast<double>(s);
        if (q > h[axis]) break;
        if (q >= a[axis] && q <= b[axis]) ++expected[axis];
      }
    }
    EXPECT_EQ(p.size() / 3, expected[0] * expected[1] * expected[2]) << "trial " << trial;

    // Each point on the lattice (to float round-off of the coordinates,
    // ~1e-6 of a unit coordinate, i.e. < 1e-4 of the smallest spacing), and in
    // the keep box and [lo, hi] up to that round-off.
    const double tol = 1e-6 * 4.0;
    for (size_t k = 0; k < p.size(); k += 3) {
      for (int axis = 0; axis < 3; ++axis) {
        const float v = p[k + axis];
        EXPECT_LT(lattice_offset(v, l[axis], s), 1e-4) << "trial " << trial;
        EXPECT_GE(v, a[axis] - tol);
        EXPECT_LE(v, b[axis] + tol);
        EXPECT_GE(v, l[axis] - tol);
        EXPECT_LE(v, h[axis] + tol);
      }
    }
  }
}

TEST(LatticeFill, ClipsToTheKeepBox) {
  // Box [0, 1]^3 at spacing 0.1: x in 0.05 .. 0.95; keep x in [0.3, 0.62] keeps
  // 0.35, 0.45, 0.55 and y, z in [-1, 0.2] keep 0.05, 0.15.
  const Vec3 lo{0, 0, 0}, hi{1, 1, 1};
  const Vec3 kmin{0.3f, -1.0f, -1.0f}, kmax{0.62f, 0.2f, 0.2f};
  const std::vector<float> p = pbf::lattice_fill(lo, hi, 0.1f, kmin, kmax);
  EXPECT_EQ(p.size(), 3u * 3u * 2u * 2u);
  EXPECT_EQ(pbf::lattice_fill_count(lo, hi, 0.1f, kmin, kmax), 3u * 2u * 2u);
  for (size_t k = 0; k < p.size(); k += 3) {
    EXPECT_GT(p[k], 0.3f);
    EXPECT_LT(p[k], 0.62f);
    EXPECT_LT(p[k + 1], 0.2f);
    EXPECT_LT(p[k + 2], 0.2f);
  }
}

TEST(LatticeFill, KeepsPointsExactlyOnTheFacesOfEitherBox) {
  // Spacing 0.25 and faces at multiples of 0.125 are exact in binary, so the
  // closed intervals [lo, hi] and [keep_min, keep_max] are tested exactly.
  const Vec3 lo{0, 0, 0};
  // Points 0.125, 0.375, 0.625, 0.875 along each axis; hi = 0.875 keeps the last.
  EXPECT_EQ(pbf::lattice_fill_count(lo, Vec3{0.875f, 0.875f, 0.875f}, 0.25f, Vec3{-1, -1, -1}, Vec3{2, 2, 2}),
            64u);
  // keep x in [0.375, 0.625] keeps exactly the two points on its faces.
  const std::vector<float> p =
      pbf::lattice_fill(lo, Vec3{1, 1, 1}, 0.25f, Vec3{0.375f, 0.125f, 0.125f}, Vec3{0.625f, 0.125f, 0.125f});
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(p[0], 0.375f);
  EXPECT_EQ(p[3], 0.625f);
  EXPECT_EQ(p[1], 0.125f);
  EXPECT_EQ(p[2], 0.125f);
}

// With a margin (pbf_solver_fill_box(): half a spacing from the domain's
// walls) a box that fills the keep box in a whole number n of spacings keeps
// all n points per axis, whatever float round-off the decimal bounds carry
// (the first and last lie exactly half a spacing in), and one a fraction of
// a spacing longer still n: its extra point would lie within half a spacing
// of the wall.
TEST(LatticeFill, AMarginOfHalfASpacingKeepsWholeBoxesWholeAndLeavesOutPartialColumns) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> sp(0.001f, 0.1f), origin(-3.0f, 3.0f), part(0.55f, 0.95f);
  std::uniform_int_distribution<int> count(1, 2000);
  for (int trial = 0; trial < 2000; ++trial) {
    const float s = sp(rng), o = origin(rng);
    const int n = count(rng);
    const float top = static_cast<float>(o + n * double(s));
    const Vec3 lo{o, o, o}, hi{top, top, top};
    const size_t all = pbf::lattice_fill_count(lo, hi, s, lo, hi, 0.5f * s);
    const long got = static_cast<long>(std::lround(std::cbrt(static_cast<double>(all))));
    ASSERT_EQ(got, n) << "trial " << trial << ": spacing " << s << ", origin " << o;
    const float longer = static_cast<float>(o + (n + part(rng)) * double(s));
    const Vec3 far{longer, longer, longer};
    ASSERT_EQ(pbf::lattice_fill_count(lo, far, s, lo, far, 0.5f * s), size_t(n) * n * n)
        << "trial " << trial << ": the partial column lies within half a spacing of the wall";
    ASSERT_EQ(pbf::lattice_fill_count(lo, far, s, lo, far), size_t(n + 1) * (n + 1) * (n + 1))
        << "trial " << trial << ": without a margin it is kept";
  }
}

TEST(LatticeFill, EmptyBoxesGiveNoPoints) {
  const Vec3 lo{0, 0, 0}, hi{1, 1, 1};
  // Keep box disjoint from the box.
  EXPECT_EQ(pbf::lattice_fill_count(lo, hi, 0.1f, Vec3{2, 2, 2}, Vec3{3, 3, 3}), 0u);
  EXPECT_TRUE(pbf::lattice_fill(lo, hi, 0.1f, Vec3{2, 2, 2}, Vec3{3, 3, 3}).empty());
  EXPECT_EQ(pbf::lattice_fill_count(lo, hi, 0.1f, Vec3{-3, -3, -3}, Vec3{-2, -2, -2}), 0u);
  EXPECT_TRUE(pbf::lattice_fill(lo, hi, 0.1f, Vec3{-3, -3, -3}, Vec3{-2, -2, -2}).empty());
  // Inverted keep box.
  EXPECT_EQ(pbf::lattice_fill_count(lo, hi, 0.1f, Vec3{1, 1, 1}, Vec3{0, 0, 0}), 0u);
  EXPECT_TRUE(pbf::lattice_fill(lo, hi, 0.1f, Vec3{1, 1, 1}, Vec3{0, 0, 0}).empty());
  // Box thinner than half a spacing along one axis: no lattice point fits.
  EXPECT_EQ(pbf::lattice_fill_count(lo, Vec3{1, 0.04f, 1}, 0.1f, lo, hi), 0u);
  EXPECT_TRUE(pbf::lattice_fill(lo, Vec3{1, 0.04f, 1}, 0.1f, lo, hi).empty());
  // Inverted box.
  EXPECT_EQ(pbf::lattice_fill_count(hi, lo, 0.1f, Vec3{-5, -5, -5}, Vec3{5, 5, 5}), 0u);
  EXPECT_TRUE(pbf::lattice_fill(hi, lo, 0.1f, Vec3{-5, -5, -5}, Vec3{5, 5, 5}).empty());
  // A keep box between two lattice planes.
  EXPECT_EQ(pbf::lattice_fill_count(lo, hi, 0.1f, Vec3{0.06f, 0, 0}, Vec3{0.14f, 1, 1}), 0u);
}

// The points of a cubic lattice strictly within a radius of one of them:
// itself, then the 6 faces at 1, 12 edges at sqrt 2 and 8 corners at
// sqrt 3 spacings, and the 6 at 2 once the radius passes 2 spacings.
TEST(LatticePointsWithin, CountsTheShellsInsideTheRadius) {
  EXPECT_EQ(pbf::lattice_points_within(0.1f, 0.05f), 1);
  EXPECT_EQ(pbf::lattice_points_within(0.1f, 0.15f), 19);
  EXPECT_EQ(pbf::lattice_points_within(0.025f, 0.05f), 27);  // the kernel radius of twice the spacing
  EXPECT_EQ(pbf::lattice_points_within(0.1f, 0.201f), 33);
}

}  // namespace

namespace {

TEST(DensitySweep, GainGrowsWithTheKernelAndExceedsTwoAtTheDefault) {
  // Above 2 a sweep of bilateral constraints amplifies a pattern: the default
  // kernel's 2.81 is why bilateral PBF exploded there; unilateral constraints
  // act at about half the particles and held up to about 2.5 spacings.
  const double g15 = pbf::density_sweep_gain(1.5), g2 = pbf::density_sweep_gain(2.0);
  EXPECT_GT(g2, 2.6);
  EXPECT_LT(g2, 3.0);
  EXPECT_LT(g15, g2);
  double before = g2;
  for (double ratio : {3.0, 4.0, 5.0}) {
    const double g = pbf::density_sweep_gain(ratio);
    EXPECT_GT(g, 1.5 * before) << ratio;
    before = g;
  }
  EXPECT_EQ(pbf::density_sweep_gain(0.0), 0.0);
}

TEST(DensitySweep, RelaxationLeavesTheDefaultKernelAloneAndHoldsWiderOnesToItsGain) {
  EXPECT_EQ(pbf::density_sweep_relaxation(2.0, true), 1.0);
  EXPECT_EQ(pbf::density_sweep_relaxation(2.0, false), 0.5);
  EXPECT_EQ(pbf::density_sweep_relaxation(1.5, true), 1.0);
  const double g2 = pbf::density_sweep_gain(2.0);
  for (double ratio : {2.5, 3.0, 4.0, 5.0}) {
    const double omega = pbf::density_sweep_relaxation(ratio, true);
    EXPECT_LT(omega, 1.0) << ratio;
    EXPECT_NEAR(omega * pbf::density_sweep_gain(ratio), g2, 1e-12) << ratio;
    EXPECT_EQ(pbf::density_sweep_relaxation(ratio, false), 0.5 * omega) << ratio;
  }
  // Asked in turn for other ratios (the cache holds one), it answers the same.
  EXPECT_EQ(pbf::density_sweep_relaxation(3.0, true), pbf::density_sweep_relaxation(3.0, true));
  const double three = pbf::density_sweep_relaxation(3.0, true);
  pbf::density_sweep_relaxation(4.0, true);
  EXPECT_EQ(pbf::density_sweep_relaxation(3.0, true), three);
}

TEST(ArtificialPressure, PushesAFreeSurfaceNoHarderWithAWiderKernel) {
  // Unscaled, 0.1 x the push is 0.3 % of a spacing per iteration at the
  // default kernel, 5 % at 3 spacings and 69 % at 5.
  const double p2 = pbf::surface_scorr_push(2.0, double(0.2f), 4.0);
  EXPECT_GT(p2, 0.0);
  EXPECT_NEAR(0.1 * p2, 0.00315, 0.0001);
  EXPECT_EQ(pbf::artificial_pressure_kernel_factor(2.0, 0.2f, 4.0f), 1.0);
  EXPECT_EQ(pbf::artificial_pressure_kernel_factor(1.5, 0.2f, 4.0f), 1.0);  // weaker there: left as it is
  for (double ratio : {2.5, 3.0, 4.0, 5.0}) {
    const double here = pbf::surface_scorr_push(ratio, double(0.2f), 4.0);
    EXPECT_GT(here, p2) << ratio;
    EXPECT_NEAR(pbf::artificial_pressure_kernel_factor(ratio, 0.2f, 4.0f) * here, p2, 1e-9 * p2) << ratio;
  }
}

TEST(ArtificialPressure, PushesAFreeSurfaceNoHarderWithAnotherShape) {
  // dq = 0.9 divides by a W(dq) 60 times smaller than the default's and,
  // raised to n = 4, multiplied s_corr by about 10^7: the dam break's water
  // then ran at 100 m/s. n = 1 weighs the far neighbours more. A shape that
  // pushes less (n = 8, dq = 0) keeps its weaker push.
  const double p2 = pbf::surface_scorr_push(2.0, double(0.2f), 4.0);
  for (float dq : {0.5f, 0.9f}) {
    const double here = pbf::surface_scorr_push(2.0, dq, 4.0);
    EXPECT_GT(here, 10.0 * p2) << dq;
    EXPECT_NEAR(pbf::artificial_pressure_kernel_factor(2.0, dq, 4.0f) * here, p2, 1e-9 * p2) << dq;
  }
  const double n1 = pbf::surface_scorr_push(2.0, double(0.2f), 1.0);
  EXPECT_GT(n1, p2);
  EXPECT_NEAR(pbf::artificial_pressure_kernel_factor(2.0, 0.2f, 1.0f) * n1, p2, 1e-9 * p2);
  EXPECT_EQ(pbf::artificial_pressure_kernel_factor(2.0, 0.2f, 8.0f), 1.0);
  EXPECT_EQ(pbf::artificial_pressure_kernel_factor(2.0, 0.0f, 4.0f), 1.0);
}

}  // namespace
