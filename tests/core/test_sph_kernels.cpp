// Unit tests of the SPH kernels (core/sph_kernels.h): Poly6 for density and
// the gradient of the Spiky kernel, W_spiky(r) = 15 / (pi h^6) (h - r)^3
// (Mueller et al. 2003), as PBF uses them (Macklin & Mueller 2013, eq. 2, 8).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/sph_kernels.h"

namespace {

using pbf::KernelConstants;
using pbf::Vec3;

constexpr double kPiD = 3.14159265358979323846;

// The Spiky kernel itself, in double precision, written from the formula.
double spiky_w(double h, double r) {
  if (r >= h) return 0.0;
  const double d = h - r;
  return 15.0 / (kPiD * std::pow(h, 6)) * d * d * d;
}

// The gradient of Poly6, derived by hand: grad W = -6 * poly6 * (h^2 - r^2)^2 * r.
Vec3 poly6_gradient(const KernelConstants& k, Vec3 r) {
  const float d = std::fmax(k.h2 - pbf::length_squared(r), 0.0f);
  return r * (-6.0f * k.poly6 * d * d);
}

Vec3 random_point_in_ball(std::mt19937& rng, float radius_lo, float radius_hi) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> u(radius_lo, radius_hi);
  double x = normal(rng), y = normal(rng), z = normal(rng);
  const double len = std::sqrt(x * x + y * y + z * z);
  const double r = u(rng);
  return Vec3{static_cast<float>(x / len * r), static_cast<float>(y / len * r), static_cast<float>(z / len * r)};
}

TEST(SphKernels, KernelConstantsMatchTheirFormulas) {
  for (double h : {0.01, 0.1, 0.25, 1.0, 2.0}) {
    const KernelConstants k = KernelConstants::make(static_cast<float>(h));
    // Float round-off of each constant: a few ulps.
    const double tol = 4e-7;
    EXPECT_FLOAT_EQ(k.h, static_cast<float>(h));
    EXPECT_NEAR(k.h2, h * h, tol * h * h);
    const double poly6 = 315.0 / (64.0 * kPiD * std::pow(h, 9));
    EXPECT_NEAR(k.poly6, poly6, tol * poly6) << "h = " << h;
    const double spiky_grad = -45.0 / (kPiD * std::pow(h, 6));
    EXPECT_NEAR(k.spiky_grad, spiky_grad, tol * std::fabs(spiky_grad)) << "h = " << h;
  }
}

TEST(SphKernels, Poly6IntegratesToOneByRadialQuadrature) {
  for (float h : {0.05f, 0.2f, 1.0f}) {
    const KernelConstants k = KernelConstants::make(h);
    // Composite Simpson rule of 4 pi r^2 W(r) on [0, h]; the integrand is a
    // polynomial of degree 8, so the rule is essentially exact at 2000 panels.
    const int n = 2000;
    const double dr = static_cast<double>(h) / n;
    double sum = 0.0;
    for (int i = 0; i <= n; ++i) {
      const double r = i * dr;
      const double f = 4.0 * kPiD * r * r * pbf::poly6(k, static_cast<float>(r * r));
      sum += f * (i == 0 || i == n ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0));
    }
    const double integral = sum * dr / 3.0;
    // Only float evaluation of W (relative 1e-6) remains.
    EXPECT_NEAR(integral, 1.0, 1e-5) << "h = " << h;
  }
}

TEST(SphKernels, Poly6IntegratesToOneByMidpointGridSum) {
  const float h = 0.1f;
  const KernelConstants k = KernelConstants::make(h);
  // Midpoint rule on a 128^3 grid over the cube [-h, h]^3: W is C^2 across the
  // support boundary, so the error is O(dx^2) and small (measured 2e-7); 1e-5
  // leaves room for the float evaluation of W but catches any wrong constant.
  const int n = 128;
  const double dx = 2.0 * h / n;
  double sum = 0.0;
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const double px = -h + (x + 0.5) * dx, py = -h + (y + 0.5) * dx, pz = -h + (z + 0.5) * dx;
        sum += pbf::poly6(k, static_cast<float>(px * px + py * py + pz * pz));
      }
  EXPECT_NEAR(sum * dx * dx * dx, 1.0, 1e-5);
}

TEST(SphKernels, Poly6IsZeroOutsideItsSupportAndPeaksAtTheCentre) {
  const KernelConstants k = KernelConstants::make(0.2f);
  EXPECT_EQ(pbf::poly6(k, k.h2), 0.0f);
  EXPECT_EQ(pbf::poly6(k, 1.0001f * k.h2), 0.0f);
  EXPECT_EQ(pbf::poly6(k, 4.0f * k.h2), 0.0f);
  // W(0) = 315 / (64 pi h^3); float round-off only.
  EXPECT_NEAR(pbf::poly6(k, 0.0f), 315.0 / (64.0 * kPiD * std::pow(0.2, 3)), 1e-5 * pbf::poly6(k, 0.0f));
  EXPECT_GT(pbf::poly6(k, 0.0f), pbf::poly6(k, 0.25f * k.h2));
  EXPECT_GT(pbf::poly6(k, 0.25f * k.h2), pbf::poly6(k, 0.81f * k.h2));
  EXPECT_GT(pbf::poly6(k, 0.81f * k.h2), 0.0f);
}

TEST(SphKernels, SpikyGradientMatchesFiniteDifferencesOfTheSpikyKernel) {
  std::mt19937 rng(12345);
  for (float h : {0.1f, 1.0f}) {
    const KernelConstants k = KernelConstants::make(h);
    const double gmax = 45.0 / (kPiD * std::pow(static_cast<double>(h), 5));  // |grad W| at r -> 0
    for (int trial = 0; trial < 2000; ++trial) {
      const Vec3 p = random_point_in_ball(rng, 0.02f * h, 0.999f * h);
      const Vec3 g = pbf::spiky_gradient(k, p);
      const double x[3] = {p.x, p.y, p.z};
      const double step = 1e-6 * h;
      const float ga[3] = {g.x, g.y, g.z};
      for (int a = 0; a < 3; ++a) {
        double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
        xp[a] += step;
        xm[a] -= step;
        const double rp = std::sqrt(xp[0] * xp[0] + xp[1] * xp[1] + xp[2] * xp[2]);
        const double rm = std::sqrt(xm[0] * xm[0] + xm[1] * xm[1] + xm[2] * xm[2]);
        const double fd = (spiky_w(h, rp) - spiky_w(h, rm)) / (2.0 * step);
        // Float evaluation of the gradient (~1e-6 relative) and the O(step^2)
        // truncation of the difference; the absolute floor covers components
        // that nearly cancel.
        EXPECT_NEAR(ga[a], fd, 1e-4 * std::fabs(fd) + 1e-6 * gmax)
            << "h = " << h << " point " << p.x << " " << p.y << " " << p.z << " axis " << a;
      }
    }
  }
}

TEST(SphKernels, Poly6GradientMatchesFiniteDifferencesOfPoly6) {
  std::mt19937 rng(777);
  for (float h : {0.1f, 1.0f}) {
    const KernelConstants k = KernelConstants::make(h);
    // max |grad W| = 6 poly6 max_r r (h^2 - r^2)^2 = (96 / (25 sqrt 5)) poly6 h^5, at r = h / sqrt 5.
    const double gmax = 96.0 / (25.0 * std::sqrt(5.0)) * k.poly6 * std::pow(static_cast<double>(h), 5);
    for (int trial = 0; trial < 1000; ++trial) {
      const Vec3 p = random_point_in_ball(rng, 0.0f, 0.99f * h);
      const Vec3 g = poly6_gradient(k, p);
      const float ga[3] = {g.x, g.y, g.z};
      // A float step of 1e-3 h: poly6() is evaluated in float, so a smaller step
      // would drown in round-off; the O(step^2) truncation is ~1e-6 relative.
      const float step = 1e-3f * h;
      for (int a = 0; a < 3; ++a) {
        Vec3 pp = p, pm = p;
        (a == 0 ? pp.x : a == 1 ? pp.y : pp.z) += step;
        (a == 0 ? pm.x : a == 1 ? pm.y : pm.z) -= step;
        const double actual_step = 0.5 * ((a == 0 ? pp.x - pm.x : a == 1 ? pp.y - pm.y : pp.z - pm.z));
        const double fd = (static_cast<double>(pbf::poly6(k, pbf::length_squared(pp))) -
                           static_cast<double>(pbf::poly6(k, pbf::length_squared(pm)))) /
                          (2.0 * actual_step);
        // Round-off of W (~1e-7 of W(0)) divided by the step dominates: ~2e-5 of gmax.
        EXPECT_NEAR(ga[a], fd, 2e-4 * gmax) << "h = " << h << " axis " << a;
      }
    }
  }
}

TEST(SphKernels, GradientsAreAntisymmetric) {
  std::mt19937 rng(42);
  const KernelConstants k = KernelConstants::make(0.3f);
  for (int trial = 0; trial < 1000; ++trial) {
    const Vec3 p = random_point_in_ball(rng, 0.0f, 1.2f * k.h);
    const Vec3 g = pbf::spiky_gradient(k, p);
    const Vec3 gm = pbf::spiky_gradient(k, -p);
    // Negation is exact in floating point, so the antisymmetry is exact.
    EXPECT_EQ(g.x, -gm.x);
    EXPECT_EQ(g.y, -gm.y);
    EXPECT_EQ(g.z, -gm.z);
    const Vec3 q = poly6_gradient(k, p);
    const Vec3 qm = poly6_gradient(k, -p);
    EXPECT_EQ(q.x, -qm.x);
    EXPECT_EQ(q.y, -qm.y);
    EXPECT_EQ(q.z, -qm.z);
  }
}

TEST(SphKernels, SpikyGradientPointsFromTheNeighbourInward) {
  // grad_{p_i} W(p_i - p_j) of a decreasing kernel points from p_i towards p_j,
  // i.e. against r = p_i - p_j.
  std::mt19937 rng(9);
  const KernelConstants k = KernelConstants::make(0.2f);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 r = random_point_in_ball(rng, 0.01f * k.h, 0.99f * k.h);
    EXPECT_LT(pbf::dot(pbf::spiky_gradient(k, r), r), 0.0f);
  }
}

TEST(SphKernels, SpikyGradientVanishesOutsideTheSupportAndAtTheCentre) {
  const KernelConstants k = KernelConstants::make(0.2f);
  const Vec3 zero{0.0f, 0.0f, 0.0f};
  const Vec3 g0 = pbf::spiky_gradient(k, zero);
  EXPECT_EQ(g0.x, 0.0f);
  EXPECT_EQ(g0.y, 0.0f);
  EXPECT_EQ(g0.z, 0.0f);
  EXPECT_EQ(pbf::spiky_gradient_scale(k, 0.0f), 0.0f);
  for (float s : {1.0f, 1.0001f, 1.5f, 10.0f}) {
    const Vec3 r{0.6f * s * k.h, 0.0f, 0.8f * s * k.h};
    const Vec3 g = pbf::spiky_gradient(k, r);
    EXPECT_EQ(g.x, 0.0f) << "s = " << s;
    EXPECT_EQ(g.y, 0.0f) << "s = " << s;
    EXPECT_EQ(g.z, 0.0f) << "s = " << s;
  }
  // The Poly6 gradient, too, vanishes at the centre and outside.
  const Vec3 q0 = poly6_gradient(k, zero);
  EXPECT_EQ(pbf::length_squared(q0), 0.0f);
  EXPECT_EQ(pbf::length_squared(poly6_gradient(k, Vec3{0.0f, 1.01f * k.h, 0.0f})), 0.0f);
  // Just inside the support both gradients are nonzero.
  EXPECT_GT(pbf::length_squared(pbf::spiky_gradient(k, Vec3{0.0f, 0.99f * k.h, 0.0f})), 0.0f);
}

TEST(SphKernels, SpikyGradientMagnitudeMatchesTheClosedForm) {
  // |grad W| = 45 / (pi h^6) (h - r)^2; float round-off only.
  const KernelConstants k = KernelConstants::make(0.5f);
  for (double r : {0.01, 0.1, 0.25, 0.4, 0.49}) {
    const Vec3 p{0.0f, 0.0f, static_cast<float>(r)};
    const double expected = 45.0 / (kPiD * std::pow(0.5, 6)) * (0.5 - r) * (0.5 - r);
    EXPECT_NEAR(pbf::length(pbf::spiky_gradient(k, p)), expected, 1e-5 * expected) << "r = " << r;
  }
}

}  // namespace

// --- the cubic spline of Projective Fluids (Weiler et al. 2016, eq. 7) ---

TEST(CubicKernel, ConstantsMatchTheirFormulas) {
  for (float h : {0.05f, 0.2f, 1.0f}) {
    const pbf::CubicKernel k = pbf::CubicKernel::make(h);
    const double hd = h;
    EXPECT_NEAR(k.sigma, 8.0 / (kPiD * hd * hd * hd), 1e-6 * k.sigma) << "h = " << h;
    EXPECT_NEAR(k.grad, 48.0 / (kPiD * hd * hd * hd * hd), 1e-6 * k.grad) << "h = " << h;
    EXPECT_NEAR(pbf::cubic(k, 0.0f), k.sigma, 1e-6 * k.sigma);
  }
}

TEST(CubicKernel, IntegratesToOneByRadialQuadrature) {
  for (float h : {0.05f, 0.2f, 1.0f}) {
    const pbf::CubicKernel k = pbf::CubicKernel::make(h);
    // Simpson on each half of [0, h] separately: W is a cubic polynomial on
    // each, so the rule is exact up to float evaluation of W (1e-6 relative).
    const int n = 1000;
    double integral = 0.0;
    for (int half = 0; half < 2; ++half) {
      const double a = half * 0.5 * h, dr = 0.5 * h / n;
      double sum = 0.0;
      for (int i = 0; i <= n; ++i) {
        const double r = a + i * dr;
        const double f = 4.0 * kPiD * r * r * pbf::cubic(k, static_cast<float>(r * r));
        sum += f * (i == 0 || i == n ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0));
      }
      integral += sum * dr / 3.0;
    }
    EXPECT_NEAR(integral, 1.0, 1e-5) << "h = " << h;
  }
}

TEST(CubicKernel, IsContinuousAtTheJoinAndZeroAtTheSupport) {
  const pbf::CubicKernel k = pbf::CubicKernel::make(0.1f);
  // At q = 1/2 both pieces give sigma / 4.
  EXPECT_NEAR(pbf::cubic(k, 0.05f * 0.05f), 0.25f * k.sigma, 1e-5f * k.sigma);
  EXPECT_EQ(pbf::cubic(k, 0.1f * 0.1f), 0.0f);
  EXPECT_EQ(pbf::cubic(k, 0.2f * 0.2f), 0.0f);
  EXPECT_EQ(pbf::cubic_gradient_scale(k, 0.0f), 0.0f);
  EXPECT_EQ(pbf::cubic_gradient_scale(k, 0.2f * 0.2f), 0.0f);
}

TEST(CubicKernel, GradientMatchesFiniteDifferences) {
  std::mt19937 rng(4242);
  for (float h : {0.1f, 1.0f}) {
    const pbf::CubicKernel k = pbf::CubicKernel::make(h);
    // max |grad W| = sigma * 6 / h * max(q (2 - 3q)) = sigma * 2 / h, at q = 1/3.
    const double gmax = 2.0 * k.sigma / h;
    for (int trial = 0; trial < 1000; ++trial) {
      const Vec3 p = random_point_in_ball(rng, 0.01f * h, 0.99f * h);
      const Vec3 g = pbf::cubic_gradient(k, p);
      const float ga[3] = {g.x, g.y, g.z};
      const float step = 1e-3f * h;
      for (int a = 0; a < 3; ++a) {
        Vec3 pp = p, pm = p;
        (a == 0 ? pp.x : a == 1 ? pp.y : pp.z) += step;
        (a == 0 ? pm.x : a == 1 ? pm.y : pm.z) -= step;
        const double actual_step = 0.5 * ((a == 0 ? pp.x - pm.x : a == 1 ? pp.y - pm.y : pp.z - pm.z));
        const double fd = (static_cast<double>(pbf::cubic(k, pbf::length_squared(pp))) -
                           static_cast<double>(pbf::cubic(k, pbf::length_squared(pm)))) /
                          (2.0 * actual_step);
        // Float round-off of W over the step (~1e-4 of gmax) and the kink of
        // the second derivative at q = 1/2 (O(step) there) bound the error.
        EXPECT_NEAR(ga[a], fd, 2e-3 * gmax) << "h = " << h << " axis " << a;
      }
    }
  }
}

TEST(CubicKernel, GradientPointsTowardTheNeighbourAndIsAntisymmetric) {
  const pbf::CubicKernel k = pbf::CubicKernel::make(0.1f);
  const Vec3 r{0.03f, -0.02f, 0.01f};
  const Vec3 g = pbf::cubic_gradient(k, r), gm = pbf::cubic_gradient(k, -r);
  EXPECT_LT(pbf::dot(g, r), 0.0f);  // W falls with distance: its gradient points back to the neighbour
  EXPECT_FLOAT_EQ(g.x, -gm.x);
  EXPECT_FLOAT_EQ(g.y, -gm.y);
  EXPECT_FLOAT_EQ(g.z, -gm.z);
}
