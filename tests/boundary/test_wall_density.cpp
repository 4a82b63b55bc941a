// Unit tests of the density a plane adds (boundary/wall_density.h):
// the kernels' half-space integrals against direct quadrature, their
// sections against finite differences, the calibration against the lattice
// at a wall, an edge and a corner, and the terms the density constraints of
// both methods gain from a wall.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "core/config.h"
#include "core/lattice.h"
#include "boundary/wall_density.h"
#include "methods/pbf/pbf_equations.h"
#include "methods/projective/projective_equations.h"

namespace {

using pbf::Plane;
using pbf::Vec3;

constexpr double kPiD = 3.14159265358979323846;

// The kernels as functions of u = r / h with unit radius (so that they
// integrate to 1 over the unit ball).
double poly6_unit(double u) { return u < 1.0 ? 315.0 / (64.0 * kPiD) * std::pow(1.0 - u * u, 3) : 0.0; }
double spiky_unit(double u) { return u < 1.0 ? 15.0 / kPiD * std::pow(1.0 - u, 3) : 0.0; }
double cubic_unit(double u) {
  const double s = 8.0 / kPiD;
  if (u <= 0.5) return s * (6.0 * u * u * u - 6.0 * u * u + 1.0);
  return u < 1.0 ? s * 2.0 * std::pow(1.0 - u, 3) : 0.0;
}

// The integral of a radial kernel over the plane z = q (its section), by the
// midpoint rule in the plane's radius.
double section(const std::function<double(double)>& w, double q) {
  const double a = std::fabs(q);
  if (a >= 1.0) return 0.0;
  const int n = 4000;
  const double top = std::sqrt(1.0 - a * a);
  double sum = 0.0;
  for (int k = 0; k < n; ++k) {
    const double rho = (k + 0.5) * top / n;
    sum += 2.0 * kPiD * rho * w(std::sqrt(rho * rho + a * a)) * top / n;
  }
  return sum;
}

// The kernel's weight beyond z = q (behind a plane the particle is q radii from).
double half_space(const std::function<double(double)>& w, double q) {
  const int n = 800;
  double sum = 0.0;
  // The half space behind the plane is z < -q in the particle's frame.
  const double lo = -1.0, hi = std::min(-q, 1.0);
  if (hi <= lo) return 0.0;
  for (int k = 0; k < n; ++k) {
    const double z = lo + (k + 0.5) * (hi - lo) / n;
    sum += section(w, z) * (hi - lo) / n;
  }
  return sum;
}

TEST(WallKernels, TheHalfSpaceFractionsAreTheKernelsIntegralsBehindThePlane) {
  for (const double q : {-0.9, -0.4, 0.0, 0.1, 0.25, 0.5, 0.6, 0.75, 0.95}) {
    EXPECT_NEAR(pbf::poly6_half_space(float(q)), half_space(poly6_unit, q), 2e-5) << "Poly6, q = " << q;
    EXPECT_NEAR(pbf::cubic_half_space(float(q)), half_space(cubic_unit, q), 2e-5) << "cubic spline, q = " << q;
  }
  EXPECT_NEAR(pbf::poly6_half_space(0.0f), 0.5f, 1e-6f);
  EXPECT_NEAR(pbf::cubic_half_space(0.0f), 0.5f, 1e-6f);
  EXPECT_EQ(pbf::poly6_half_space(1.0f), 0.0f);
  EXPECT_EQ(pbf::cubic_half_space(1.5f), 0.0f);
  EXPECT_EQ(pbf::poly6_half_space(-1.0f), 1.0f);
  EXPECT_EQ(pbf::cubic_half_space(-2.0f), 1.0f);
}

TEST(WallKernels, TheSectionsAreTheKernelsIntegralsOverThePlane) {
  for (const double q : {-0.7, 0.0, 0.2, 0.45, 0.5, 0.55, 0.8, 0.99}) {
    EXPECT_NEAR(pbf::spiky_section(float(q)), section(spiky_unit, q), 1e-4) << "Spiky, q = " << q;
    EXPECT_NEAR(pbf::cubic_section(float(q)), section(cubic_unit, q), 1e-4) << "cubic spline, q = " << q;
  }
  // The Spiky kernel's weight behind the plane has the same form, so its
  // section integrates to one half from the plane on.
  double total = 0.0;
  for (int k = 0; k < 1000; ++k) total += pbf::spiky_section((k + 0.5f) / 1000.0f) / 1000.0;
  EXPECT_NEAR(total, 0.5, 1e-5);
}

TEST(WallKernels, TheCubicSectionIsMinusTheDerivativeOfItsFraction) {
  // Projective Fluids' Newton steps need the exact gradient of its density.
  const float e = 1e-3f;
  for (const float q : {-0.6f, 0.1f, 0.3f, 0.52f, 0.7f, 0.9f}) {
    const double fd = (pbf::cubic_half_space(q - e) - pbf::cubic_half_space(q + e)) / (2.0 * e);
    EXPECT_NEAR(pbf::cubic_section(q), fd, 2e-3) << "q = " << q;
  }
}

// The density the lattice gives a particle half a spacing from `planes`
// (planes through the origin, normals into the water), the missing part
// completed by the walls with `calibration`, relative to rho0: the lattice
// sum over the water side only, divided by the sum over the whole lattice,
// plus the walls' fraction.
template <bool Cubic>
double lattice_with_walls(const std::vector<Plane>& planes, float spacing, float h) {
  const pbf::KernelConstants k6 = pbf::KernelConstants::make(h);
  const pbf::CubicKernel kc = pbf::CubicKernel::make(h);
  const auto w = [&](float r2) { return Cubic ? pbf::cubic(kc, r2) : pbf::poly6(k6, r2); };
  const Vec3 p{0.5f * spacing, 0.5f * spacing, 0.5f * spacing};
  const int n = static_cast<int>(std::ceil(h / spacing)) + 2;
  double all = 0.0, water = 0.0;
  for (int z = -n; z <= n; ++z)
    for (int y = -n; y <= n; ++y)
      for (int x = -n; x <= n; ++x) {
        const Vec3 at = p + Vec3{x * spacing, y * spacing, z * spacing};
        const double wr = w(pbf::length_squared(at - p));
        all += wr;
        bool inside = true;
        for (const Plane& pl : planes) inside = inside && pbf::dot(pl.normal, at) + pl.offset > 0.0f;
        if (inside) water += wr;
      }
  const double calibration = Cubic ? pbf::wall_calibration(spacing, h, w, pbf::cubic_half_space)
                                   : pbf::wall_calibration(spacing, h, w, pbf::poly6_half_space);
  const pbf::DensityWalls walls{planes.data(), static_cast<uint32_t>(planes.size()), 1.0f,
                                static_cast<float>(calibration), 1.0f / h};
  float rho_w;
  Vec3 grad;
  pbf::wall_density_gradient<Cubic>(walls, p, rho_w, grad);
  return water / all + rho_w;
}

TEST(WallDensity, CompletesTheLatticeAtAWallAnEdgeAndACorner) {
  const std::vector<Plane> floor{{Vec3{0, 1, 0}, 0.0f}};
  const std::vector<Plane> edge{{Vec3{0, 1, 0}, 0.0f}, {Vec3{1, 0, 0}, 0.0f}};
  const std::vector<Plane> corner{{Vec3{0, 1, 0}, 0.0f}, {Vec3{1, 0, 0}, 0.0f}, {Vec3{0, 0, 1}, 0.0f}};
  for (const float ratio : {1.5f, 2.0f, 3.0f}) {
    // A wall alone: exact by the calibration's definition.
    EXPECT_NEAR(lattice_with_walls<false>(floor, 0.1f, 0.1f * ratio), 1.0, 1e-5) << "Poly6, h/s = " << ratio;
    EXPECT_NEAR(lattice_with_walls<true>(floor, 0.1f, 0.1f * ratio), 1.0, 1e-5) << "cubic, h/s = " << ratio;
    // Edges and corners: the solid behind any wall counted once, within 2 %
    // of rest density (summing the walls gave up to 9 % too much at h = 2 s).
    EXPECT_NEAR(lattice_with_walls<false>(edge, 0.1f, 0.1f * ratio), 1.0, 0.02) << "Poly6 edge, h/s = " << ratio;
    EXPECT_NEAR(lattice_with_walls<false>(corner, 0.1f, 0.1f * ratio), 1.0, 0.02) << "Poly6 corner, h/s = " << ratio;
    EXPECT_NEAR(lattice_with_walls<true>(edge, 0.1f, 0.1f * ratio), 1.0, 0.02) << "cubic edge, h/s = " << ratio;
    EXPECT_NEAR(lattice_with_walls<true>(corner, 0.1f, 0.1f * ratio), 1.0, 0.02) << "cubic corner, h/s = " << ratio;
  }
}

TEST(WallDensity, TheCubicGradientIsTheDerivativeOfTheDensityInACorner) {
  const std::vector<Plane> planes{{Vec3{0, 1, 0}, 0.0f}, {Vec3{1, 0, 0}, 0.0f}, {Vec3{0.6f, 0, 0.8f}, 0.02f}};
  const float h = 0.2f;
  const pbf::DensityWalls walls{planes.data(), 3, 1000.0f, 0.8f, 1.0f / h};
  const Vec3 p{0.05f, 0.07f, 0.03f};
  float rho;
  Vec3 grad;
  pbf::wall_density_gradient<true>(walls, p, rho, grad);
  EXPECT_GT(rho, 0.0f);
  const float e = 1e-4f;
  const Vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const float g[3] = {grad.x, grad.y, grad.z};
  for (int a = 0; a < 3; ++a) {
    float plus, minus;
    Vec3 unused;
    pbf::wall_density_gradient<true>(walls, p + axes[a] * e, plus, unused);
    pbf::wall_density_gradient<true>(walls, p - axes[a] * e, minus, unused);
    const double fd = (double(plus) - minus) / (2.0 * e);
    EXPECT_NEAR(g[a], fd, 1e-3 * std::fabs(fd) + 20.0) << "axis " << a;  // [kg/m^4]; |grad| ~ 1e4
  }
}

TEST(WallDensity, PlanesFartherThanTheKernelRadiusAddNothing) {
  const std::vector<Plane> planes{{Vec3{0, 1, 0}, 0.0f}};
  const pbf::DensityWalls walls{planes.data(), 1, 1000.0f, 0.9f, 1.0f / 0.2f};
  float rho;
  Vec3 grad;
  pbf::wall_density_gradient<false>(walls, Vec3{0.0f, 0.2f, 0.0f}, rho, grad);
  EXPECT_EQ(rho, 0.0f);
  EXPECT_EQ(pbf::length(grad), 0.0f);
  pbf::wall_density_gradient<false>(walls, Vec3{0.0f, 0.1f, 0.0f}, rho, grad);
  EXPECT_GT(rho, 0.0f);
  EXPECT_LT(grad.y, 0.0f) << "the density grows towards the wall";
}

pbf::SolverConfig wall_config(pbf::Method method) {
  pbf::SolverConfig config;
  config.method = method;
  config.max_particles = 64;
  config.particle_spacing = 0.1f;
  config.kernel_radius = 0.2f;
  config.rest_density = 1000.0f;
  config.max_neighbors = 64;
  config.domain_min = Vec3{-1.0f, -1.0f, -1.0f};
  config.domain_max = Vec3{1.0f, 1.0f, 1.0f};
  return config;
}

// Three layers of the rest lattice pressed against a floor, the first a
// fifth of a spacing from it instead of half a spacing; particle 0 in its
// middle, and everyone's neighbours (brute force).
struct PressedLayer {
  std::vector<Vec3> x;
  std::vector<uint32_t> index, count;
  uint32_t stride = 0;
  explicit PressedLayer(float spacing, float h) {
    x.push_back(Vec3{0.0f, 0.2f * spacing, 0.0f});
    for (int k = 0; k < 3; ++k)
      for (int i = -3; i <= 3; ++i)
        for (int j = -3; j <= 3; ++j)
          if (i != 0 || j != 0 || k != 0) x.push_back(Vec3{i * spacing, (k + 0.2f) * spacing, j * spacing});
    stride = static_cast<uint32_t>(x.size());
    index.assign(x.size() * stride, 0u);
    count.assign(x.size(), 0u);
    for (uint32_t i = 0; i < x.size(); ++i)
      for (uint32_t j = 0; j < x.size(); ++j)
        if (j != i && pbf::length_squared(x[i] - x[j]) < h * h) index[i * stride + count[i]++] = j;
  }
  pbf::NeighborLists lists() const { return pbf::NeighborLists::particle_major(index.data(), count.data(), stride); }
};

// The wall's density makes particle 0's constraint more compressed, and
// PBF's correction moves it further away from the wall, along the normal, as
// boundary samples would.
TEST(WallDensity, PbfsConstraintPushesAParticleOutOfTheWall) {
  const pbf::SolverConfig config = wall_config(pbf::Method::Pbf);
  const pbf::PbfConstants c = pbf::make_pbf_constants(config, pbf::PbfParams{}, 1.0f / 240.0f);
  const PressedLayer layer(config.particle_spacing, config.kernel_radius);
  const pbf::NeighborLists nb = layer.lists();
  const Plane floor{Vec3{0, 1, 0}, 0.0f};
  const pbf::DensityWalls walls = pbf::pbf_density_walls(c, &floor, 1, 0);
  const pbf::DensityWalls none = pbf::pbf_density_walls(c, &floor, 1, 1);  // the floor left out: from plane 1 on
  std::vector<float> with(layer.x.size(), 0.0f), without(layer.x.size(), 0.0f);
  float rho_with, rho_without;
  pbf::density_lambda(c, 0, nb, layer.x.data(), pbf::BoundarySamples{}, walls, rho_with, with[0]);
  pbf::density_lambda(c, 0, nb, layer.x.data(), pbf::BoundarySamples{}, none, rho_without, without[0]);
  EXPECT_GT(rho_with, rho_without + 0.3f * 1000.0f) << "the wall adds most of half a kernel of water";
  EXPECT_LT(with[0], without[0]) << "a larger compression";
  const Vec3 dp_with = pbf::position_correction(c, 0, nb, layer.x.data(), with.data(), pbf::BoundarySamples{}, walls);
  const Vec3 dp_without =
      pbf::position_correction(c, 0, nb, layer.x.data(), without.data(), pbf::BoundarySamples{}, none);
  EXPECT_GT(dp_with.y, dp_without.y);
  EXPECT_GT(dp_with.y, 0.0f);
  EXPECT_NEAR(dp_with.x, 0.0f, 1e-6f);
  EXPECT_NEAR(dp_with.z, 0.0f, 1e-6f);
}

TEST(WallDensity, ProjectiveFluidsProjectsAParticleOutOfTheWall) {
  const pbf::SolverConfig config = wall_config(pbf::Method::Projective);
  const pbf::ProjectiveConstants c = pbf::make_projective_constants(config, pbf::PbfParams{}, 1.0f / 240.0f);
  const PressedLayer layer(config.particle_spacing, config.kernel_radius);
  const pbf::NeighborLists nb = layer.lists();
  const Plane floor{Vec3{0, 1, 0}, 0.0f};
  const pbf::DensityWalls solid = pbf::projective_density_walls(c, &floor, 1, 0);
  const pbf::ProjectionWalls no_contact{nullptr, 0, 0.0f, nullptr};
  std::vector<Vec3> d(c.slots);
  const pbf::Projection with =
      pbf::project_density_constraint(c, 0, nb, pbf::BoundarySamples{}, solid, no_contact, layer.x.data(), d.data());
  EXPECT_GT(d[0].y, 0.0f) << "the projection moves the particle away from the floor";
  EXPECT_NEAR(d[0].x, 0.0f, 1e-6f);
  EXPECT_NEAR(d[0].z, 0.0f, 1e-6f);
  const float projected_up = d[0].y;
  const pbf::Projection without = pbf::project_density_constraint(c, 0, nb, pbf::BoundarySamples{},
                                                                  pbf::DensityWalls{}, no_contact, layer.x.data(),
                                                                  d.data());
  EXPECT_GT(with.compression, without.compression + 0.1f);  // the wall adds its density
  EXPECT_GT(projected_up, d[0].y);
  EXPECT_LE(with.remaining, std::max(c.newton_tolerance, 0.5f * with.compression));
  EXPECT_NEAR(pbf::cubic_density(c, 0, nb, pbf::BoundarySamples{}, solid, layer.x.data()), with.density, 1e-3f * with.density);
}

}  // namespace
