// Tests of PBF's sums over fluid neighbours on the CPU in lanes of eight
// (methods/pbf/cpu/pbf_cpu_lane_passes.h): each copy, one per instruction set
// the library holds and this processor runs, against the one-neighbour loops
// of pbf_equations.h (the CUDA backend's), and the copies against each other
// bit for bit; and each copy's boundary sums and flags of the points near
// boundary samples against the one-sample loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_neighbor_grid.h"
#include "backend/cpu/cpu_neighbor_scan.h"
#include "backend/cpu/lane_targets.h"
#include "backend/cpu/lane_vector.h"
#include "core/config.h"
#include "methods/pbf/cpu/pbf_cpu_lane_passes.h"
#include "methods/pbf/pbf_equations.h"

namespace {

using pbf::LaneTarget;
using pbf::LaneVector;
using pbf::NeighborLists;
using pbf::PbfConstants;
using pbf::PbfLanePasses;
using pbf::Vec3;

constexpr float kSpacing = 0.1f;
constexpr float kRadius = 2.0f * kSpacing;

PbfConstants constants(float artificial_pressure_n = 4.0f) {
  pbf::SolverConfig config;
  config.particle_spacing = kSpacing;
  config.kernel_radius = kRadius;
  config.rest_density = 1000.0f;
  pbf::PbfParams p;
  p.artificial_pressure_k = 0.1f;
  p.artificial_pressure_n = artificial_pressure_n;
  p.vorticity_epsilon = 0.01f;
  p.xsph_viscosity = 0.01f;
  return pbf::make_pbf_constants(config, p, 1.0f / 240.0f);
}

// How a scene keeps its lists: one row per particle, of a stride that is not
// a multiple of eight (the last group of the longest lists copied) or is
// (every last group read from the list); or split as the CPU backend's, the
// first eight slots of each particle in one row and the rest in another
// (NeighborLists::particle_major_split()), of the stride that is not.
enum class Layout { OtherStride, StrideOfEights, Split };
const char* layout_name(Layout l) {
  return l == Layout::OtherStride ? "other stride" : l == Layout::StrideOfEights ? "stride of eights" : "split";
}

// A jittered, compressed block with neighbour counts from 0 to beyond 16, so
// that lists end everywhere within a group of eight, a few particles put on
// top of another (coincident pairs), and one left alone. The lists are
// stored and padded as the CPU backend stores them (put_list()).
struct Scene {
  LaneVector<Vec3> x, v, omega;
  std::vector<float> rho, lambda, omega_length;
  std::vector<uint32_t> index, count;
  uint32_t stride = 0, head = 0;
  uint32_t lone = 0;  // the particle with no neighbours (the last one has some: its point is read)
  NeighborLists lists() const {
    return NeighborLists::particle_major_split(index.data(), count.data(), stride, head, count.size());
  }
  // Each particle's point and lambda, as the Δp pass reads them; point and
  // |omega|, and velocity and volume m / rho, as the vorticity passes do.
  std::vector<pbf::PointValue> x_lambda() const { return pack(x, lambda); }
  std::vector<pbf::PointValue> x_omega() const { return pack(x, omega_length); }
  std::vector<pbf::PointValue> v_volume(const PbfConstants& c) const {
    std::vector<float> volume;
    for (const float r : rho) volume.push_back(c.mass / r);
    return pack(v, volume);
  }
  static std::vector<pbf::PointValue> pack(const LaneVector<Vec3>& p, const std::vector<float>& value) {
    std::vector<pbf::PointValue> q;
    for (size_t i = 0; i < p.size(); ++i) q.push_back(pbf::PointValue{p[i], value[i]});
    return q;
  }
};

Scene make_scene(uint32_t seed, Layout layout = Layout::OtherStride) {
  Scene s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jitter(-0.3f * kSpacing, 0.3f * kSpacing), unit(-1.0f, 1.0f);
  const float step = 0.8f * kSpacing;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 5; ++j)
      for (int i = 0; i < 6; ++i)
        s.x.push_back(Vec3{i * step + jitter(rng), j * step + jitter(rng), k * step + jitter(rng)});
  s.lone = static_cast<uint32_t>(s.x.size());
  s.x.push_back(Vec3{5.0f, 5.0f, 5.0f});                                          // no neighbours
  for (int c = 0; c < 4; ++c) s.x.push_back(s.x[static_cast<size_t>(c) * 17 + 3]);  // coincident with another
  const size_t n = s.x.size();
  for (size_t i = 0; i < n; ++i) {
    s.v.push_back(Vec3{unit(rng), unit(rng), unit(rng)});
    s.omega.push_back(Vec3{10.0f * unit(rng), 10.0f * unit(rng), 10.0f * unit(rng)});
    s.omega_length.push_back(pbf::length(s.omega.back()));
    s.rho.push_back(1000.0f * (1.0f + 0.1f * unit(rng)));
    s.lambda.push_back(1e-3f * unit(rng));
  }
  s.stride = static_cast<uint32_t>(layout == Layout::StrideOfEights ? (n + 7) / 8 * 8 : n);
  s.head = layout == Layout::Split ? 8u : s.stride;
  s.index.assign(n * s.stride, UINT32_MAX);
  s.count.assign(n, 0u);
  const pbf::ListRows rows = pbf::ListRows::split(s.index.data(), n, s.head, s.stride);
  std::vector<uint32_t> row(s.stride + pbf::kLaneGroup, 0u);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < n; ++j)
      if (j != i && pbf::length_squared(s.x[i] - s.x[j]) < kRadius * kRadius) row[s.count[i]++] = j;
    pbf::put_list(row.data(), s.count[i], rows, i);
  }
  // No room past the last point but the LaneVector's tail, which the lanes read (AddressSanitizer checks).
  s.x.shrink_to_fit();
  s.v.shrink_to_fit();
  return s;
}

// |a - b| within `tolerance` of the scale of the terms summed.
void expect_near(Vec3 a, Vec3 b, float scale, const char* what, uint32_t i) {
  const float tolerance = 2e-6f * scale;
  EXPECT_NEAR(a.x, b.x, tolerance) << what << " of particle " << i;
  EXPECT_NEAR(a.y, b.y, tolerance) << what << " of particle " << i;
  EXPECT_NEAR(a.z, b.z, tolerance) << what << " of particle " << i;
}

// Every pass of `lanes` over all of the scene's particles, called on runs of
// `run` particles (the last one shorter). What no pass writes stays NaN.
struct PassResults {
  std::vector<float> kernel_sums;
  std::vector<pbf::FluidDensitySums<float, Vec3>> density_sums;
  std::vector<Vec3> corrections, vorticities;
  std::vector<pbf::VorticityViscositySums> vorticity_viscosity;
};

PassResults run_passes(const PbfLanePasses& lanes, const PbfConstants& c, const Scene& s, uint32_t run) {
  const uint32_t n = static_cast<uint32_t>(s.x.size());
  const NeighborLists nb = s.lists();
  const float nan = std::nanf("");
  const Vec3 nan3{nan, nan, nan};
  PassResults r;
  r.kernel_sums.assign(n, nan);
  r.density_sums.assign(n, pbf::FluidDensitySums<float, Vec3>{nan, nan3, nan});
  r.corrections.assign(n, nan3);
  r.vorticities.assign(n, nan3);
  r.vorticity_viscosity.assign(n, pbf::VorticityViscositySums{nan3, nan3});
  const std::vector<pbf::PointValue> x_lambda = s.x_lambda(), x_omega = s.x_omega(), v_volume = s.v_volume(c);
  for (uint32_t b = 0; b < n; b += run) {
    const uint32_t e = std::min(n, b + run);
    lanes.fluid_kernel_sums(c, b, e, nb, s.x.data(), r.kernel_sums.data() + b);
    lanes.fluid_density_sums(c, b, e, nb, s.x.data(), r.density_sums.data() + b);
    lanes.fluid_position_corrections(c, b, e, nb, x_lambda.data(), r.corrections.data() + b);
    lanes.vorticities(c, b, e, nb, s.x.data(), v_volume.data(), r.vorticities.data() + b);
    lanes.vorticity_viscosity_sums(c, b, e, nb, x_omega.data(), v_volume.data(),
                                   r.vorticity_viscosity.data() + b);
  }
  return r;
}

TEST(PbfCpuLanePasses, TheSceneCoversEveryPlaceWhereAListEnds) {
  const Scene s = make_scene(1);
  std::vector<bool> seen(8, false);
  uint32_t most = 0, coincident = 0;
  for (size_t i = 0; i < s.x.size(); ++i) {
    seen[s.count[i] % 8] = true;
    most = std::max(most, s.count[i]);
    for (uint32_t k = 0; k < s.count[i]; ++k)
      if (pbf::length_squared(s.x[i] - s.x[s.index[i * s.stride + k]]) == 0.0f) ++coincident;
  }
  for (uint32_t r = 0; r < 8; ++r) EXPECT_TRUE(seen[r]) << "no list of 8k + " << r << " neighbours";
  EXPECT_GT(most, 16u);
  EXPECT_GE(coincident, 8u);
  EXPECT_EQ(s.count[s.lone], 0u);
  EXPECT_GT(s.count.back(), 0u);
}

TEST(PbfCpuLanePasses, EachCopyAgreesWithTheOneNeighbourLoops) {
  for (const float n_scorr : {4.0f, 3.0f}) {  // n = 4 multiplies; other n call powf
    for (const Layout layout : {Layout::OtherStride, Layout::StrideOfEights, Layout::Split}) {
      SCOPED_TRACE(layout_name(layout));
      const PbfConstants c = constants(n_scorr);
      const Scene s = make_scene(7, layout);
      const NeighborLists nb = s.lists();
      for (const LaneTarget target : pbf::lane_targets_here()) {
        SCOPED_TRACE(pbf::lane_target_name(target));
        const PassResults got = run_passes(pbf::pbf_lane_passes(target), c, s, 5);
        for (uint32_t i = 0; i < s.x.size(); ++i) {
          const auto want = pbf::fluid_density_sums(c, i, nb, s.x.data());
          const float w0 = pbf::poly6(c.kernel, 0.0f);
          EXPECT_NEAR(got.kernel_sums[i], pbf::fluid_kernel_sum(c, i, nb, s.x.data()), 2e-6f * w0 * (1.0f + s.count[i]))
              << "sum W of particle " << i;
          EXPECT_NEAR(got.density_sums[i].w, want.w, 2e-6f * w0 * (1.0f + s.count[i])) << "sum W of particle " << i;
          const float g = c.mass_over_rho0 * std::fabs(c.kernel.spiky_grad) * c.kernel.h2 * (1.0f + s.count[i]);
          expect_near(got.density_sums[i].grad, want.grad, g, "gradient", i);
          EXPECT_NEAR(got.density_sums[i].grad2, want.grad2, 2e-6f * g * g) << "sum |grad|^2 of particle " << i;

          const Vec3 dp_want = pbf::position_correction(c, i, nb, s.x.data(), s.lambda.data());
          expect_near(got.corrections[i], dp_want, g * 3e-3f, "position correction", i);

          const float curl =
              std::fabs(c.kernel.spiky_grad) * c.kernel.h2 * 2.0f * c.mass / 900.0f * (1.0f + s.count[i]);
          expect_near(got.vorticities[i], pbf::vorticity(c, i, nb, s.x.data(), s.v.data(), s.rho.data()), curl,
                      "vorticity", i);
          const auto sums_want = pbf::vorticity_viscosity_sums(c, i, nb, s.x.data(), s.v.data(), s.rho.data(),
                                                               s.omega.data());
          expect_near(got.vorticity_viscosity[i].eta, sums_want.eta, curl * 20.0f, "eta", i);
          expect_near(got.vorticity_viscosity[i].blend, sums_want.blend,
                      2.0f * c.mass / 900.0f * w0 * (1.0f + s.count[i]), "blend", i);
        }
      }
    }
  }
}

TEST(PbfCpuLanePasses, CoincidentNeighboursGetTheDrawnDirection) {
  // Particle 0 with one neighbour on top of it and none else: its gradient
  // is the drawn direction of pair_gradient() alone, not zero.
  const PbfConstants c = constants();
  const LaneVector<Vec3> x{Vec3{0.1f, 0.2f, 0.3f}, Vec3{0.1f, 0.2f, 0.3f}};
  const std::vector<uint32_t> index{1u, 0u}, count{1u, 1u};
  const NeighborLists nb = NeighborLists::particle_major(index.data(), count.data(), 1);
  const Vec3 drawn = pbf::pair_gradient(c.kernel, Vec3{0.0f, 0.0f, 0.0f}, 0.0f, 0, 1) * c.mass_over_rho0;
  ASSERT_GT(pbf::length(drawn), 0.0f);
  for (const LaneTarget target : pbf::lane_targets_here()) {
    SCOPED_TRACE(pbf::lane_target_name(target));
    pbf::FluidDensitySums<float, Vec3> s;
    pbf::pbf_lane_passes(target).fluid_density_sums(c, 0, 1, nb, x.data(), &s);
    EXPECT_EQ(s.grad.x, drawn.x);
    EXPECT_EQ(s.grad.y, drawn.y);
    EXPECT_EQ(s.grad.z, drawn.z);
  }
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(Vec3 a, Vec3 b) { return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z); }

void expect_same_bits(const PassResults& a, const PassResults& b) {
  ASSERT_EQ(a.kernel_sums.size(), b.kernel_sums.size());
  for (size_t i = 0; i < a.kernel_sums.size(); ++i) {
    EXPECT_TRUE(same_bits(a.kernel_sums[i], b.kernel_sums[i])) << "sum W of particle " << i;
    const auto& da = a.density_sums[i];
    const auto& db = b.density_sums[i];
    EXPECT_TRUE(same_bits(da.w, db.w) && same_bits(da.grad, db.grad) && same_bits(da.grad2, db.grad2))
        << "density sums of particle " << i;
    EXPECT_TRUE(same_bits(a.corrections[i], b.corrections[i])) << "position correction of particle " << i;
    EXPECT_TRUE(same_bits(a.vorticities[i], b.vorticities[i])) << "vorticity of particle " << i;
    const auto& va = a.vorticity_viscosity[i];
    const auto& vb = b.vorticity_viscosity[i];
    EXPECT_TRUE(same_bits(va.eta, vb.eta) && same_bits(va.blend, vb.blend)) << "eta, blend of particle " << i;
  }
}

TEST(PbfCpuLanePasses, EveryCopyGivesTheSameBits) {
  const std::vector<LaneTarget> here = pbf::lane_targets_here();
  if (here.size() < 2)
    GTEST_SKIP() << "this processor runs only the baseline copy (no AVX2, or a library built without it)";
  const PbfConstants c = constants();
  for (const Layout layout : {Layout::OtherStride, Layout::StrideOfEights, Layout::Split}) {
    SCOPED_TRACE(layout_name(layout));
    const Scene s = make_scene(11, layout);
    const PassResults baseline = run_passes(pbf::pbf_lane_passes(LaneTarget::Baseline), c, s, 64);
    for (const LaneTarget target : here) {
      SCOPED_TRACE(pbf::lane_target_name(target));
      expect_same_bits(run_passes(pbf::pbf_lane_passes(target), c, s, 64), baseline);
    }
  }
}

// The same neighbours in the same order give the same bits in every layout:
// where a list's slots lie changes no sum.
TEST(PbfCpuLanePasses, EveryLayoutGivesTheSameBits) {
  const PbfConstants c = constants();
  const Scene plain = make_scene(17, Layout::OtherStride);
  for (const Layout layout : {Layout::StrideOfEights, Layout::Split}) {
    SCOPED_TRACE(layout_name(layout));
    const Scene s = make_scene(17, layout);
    ASSERT_EQ(s.count, plain.count);
    for (const LaneTarget target : pbf::lane_targets_here()) {
      SCOPED_TRACE(pbf::lane_target_name(target));
      const PbfLanePasses lanes = pbf::pbf_lane_passes(target);
      expect_same_bits(run_passes(lanes, c, s, 64), run_passes(lanes, c, plain, 64));
    }
  }
}

// Where a copy sums two particles side by side (AVX-512), a particle whose
// list is shorter than its partner's takes nothing from the groups past its
// end: a particle with no neighbours and a NaN lambda of its own gets the
// zero correction of the one-neighbour loop, whatever particle runs beside
// it, and the sums of every other particle are as in the baseline copy.
TEST(PbfCpuLanePasses, AShortListTakesNothingFromItsPartnersGroups) {
  const PbfConstants c = constants();
  Scene s = make_scene(13);
  s.lambda[s.lone] = std::nanf("");
  const NeighborLists nb = s.lists();
  const Vec3 want = pbf::position_correction(c, s.lone, nb, s.x.data(), s.lambda.data());
  ASSERT_TRUE(same_bits(want, Vec3{0.0f, 0.0f, 0.0f}));
  const std::vector<pbf::PointValue> x_lambda = s.x_lambda();
  for (const LaneTarget target : pbf::lane_targets_here()) {
    SCOPED_TRACE(pbf::lane_target_name(target));
    const PbfLanePasses lanes = pbf::pbf_lane_passes(target);
    // The lone particle first and second in a run, beside particles with
    // many neighbours (its neighbours in the scene's order).
    for (const uint32_t begin : {s.lone - 1, s.lone}) {
      Vec3 out[2];
      lanes.fluid_position_corrections(c, begin, begin + 2, nb, x_lambda.data(), out);
      EXPECT_TRUE(same_bits(out[s.lone - begin], want)) << "run from " << begin;
      const uint32_t other = begin == s.lone ? s.lone + 1 : s.lone - 1;
      ASSERT_GT(s.count[other], 8u);
      Vec3 alone;
      pbf::pbf_lane_passes(LaneTarget::Baseline)
          .fluid_position_corrections(c, other, other + 1, nb, x_lambda.data(), &alone);
      EXPECT_TRUE(same_bits(out[other - begin], alone)) << "partner " << other;
    }
  }
}

// A particle's sums do not depend on the run it is part of, nor where in
// the run it lies: runs of one particle, of seven and of the whole scene
// give the same bits.
TEST(PbfCpuLanePasses, ARunsSumsAreEachParticlesOwn) {
  const PbfConstants c = constants();
  const Scene s = make_scene(5);
  const uint32_t n = static_cast<uint32_t>(s.x.size());
  for (const LaneTarget target : pbf::lane_targets_here()) {
    SCOPED_TRACE(pbf::lane_target_name(target));
    const PbfLanePasses lanes = pbf::pbf_lane_passes(target);
    const PassResults whole = run_passes(lanes, c, s, n);
    expect_same_bits(run_passes(lanes, c, s, 1), whole);
    expect_same_bits(run_passes(lanes, c, s, 7), whole);
  }
}

// The planes' tests for many points at once flag exactly the points that
// some plane acts on, as the one-point loops decide (points on the
// thresholds and NaN included), and where they flag none, the walls without
// their planes and collide() without planes give the same bits.
TEST(PbfCpuLanePasses, PlaneTestsFlagExactlyThePointsAPlaneActsOn) {
  PbfConstants c = constants();
  c.friction = 0.3f;  // collide()'s friction path too
  const float h = c.kernel.h, radius = c.particle_radius;
  const float s = 0.57735026f;  // a tilted plane's normal, (1, 1, 1) / sqrt(3)
  const std::vector<pbf::Plane> planes{
      {Vec3{0, 1, 0}, 0.0f}, {Vec3{1, 0, 0}, 0.0f},  {Vec3{-1, 0, 0}, 1.0f},
      {Vec3{0, 0, 1}, 0.0f}, {Vec3{0, 0, -1}, 1.0f}, {Vec3{s, s, s}, -0.2f}};
  const pbf::DensityWalls walls{planes.data(), static_cast<uint32_t>(planes.size()), c.rest_density, 0.6f, 1.0f / h};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.3f, 1.3f);
  LaneVector<Vec3> x;
  for (int k = 0; k < 61; ++k) x.push_back(Vec3{u(rng), u(rng), u(rng)});
  x.push_back(Vec3{0.5f, h, 0.5f});                  // q = 1 at the floor: no density
  x.push_back(Vec3{0.5f, radius, 0.5f});             // depth 0 at the floor: not pushed
  x.push_back(Vec3{0.5f, std::nanf(""), 0.5f});      // NaN: every plane acts, as the loops decide
  x.push_back(Vec3{0.5f, 0.5f, 0.5f});               // inside, away from every plane
  x.shrink_to_fit();
  const uint32_t n = static_cast<uint32_t>(x.size());
  uint32_t reached = 0, touched = 0;
  for (const LaneTarget target : pbf::lane_targets_here()) {
    SCOPED_TRACE(pbf::lane_target_name(target));
    const PbfLanePasses lanes = pbf::pbf_lane_passes(target);
    std::vector<uint8_t> reach(n, 7u), touch(n, 7u);
    lanes.walls_reach(walls, x.data(), n, reach.data());
    lanes.planes_touch(c, planes.data(), static_cast<uint32_t>(planes.size()), x.data(), n, touch.data());
    reached = touched = 0;
    for (uint32_t k = 0; k < n; ++k) {
      bool any_reach = false, any_touch = false;
      for (const pbf::Plane& plane : planes) {
        any_reach = any_reach || !(pbf::wall_q(walls, plane, x[k].x, x[k].y, x[k].z) >= 1.0f);
        any_touch = any_touch || !(pbf::plane_depth(c, plane, x[k].x, x[k].y, x[k].z) <= 0.0f);
      }
      EXPECT_EQ(reach[k], any_reach ? 1u : 0u) << "point " << k;
      EXPECT_EQ(touch[k], any_touch ? 1u : 0u) << "point " << k;
      reached += reach[k];
      touched += touch[k];
      if (reach[k] == 0) {
        float rho_a, rho_b;
        Vec3 grad_a, grad_b;
        pbf::wall_density_gradient<false>(walls, x[k], rho_a, grad_a);
        pbf::wall_density_gradient<false>(pbf::without_planes(walls), x[k], rho_b, grad_b);
        EXPECT_TRUE(same_bits(rho_a, rho_b) && same_bits(grad_a, grad_b)) << "point " << k;
      }
      if (touch[k] == 0) {
        const Vec3 start{0.4f, 0.6f, 0.5f};
        const uint32_t all = static_cast<uint32_t>(planes.size());
        EXPECT_TRUE(same_bits(pbf::collide(c, planes.data(), all, nullptr, 0, x[k], start),
                              pbf::collide(c, planes.data(), 0, nullptr, 0, x[k], start)))
            << "point " << k;
      }
    }
  }
  EXPECT_GT(reached, 4u);
  EXPECT_LT(reached, n - 4);
  EXPECT_GT(touched, 4u);
  EXPECT_LT(touched, n - 4);
}

// A CPU backend holding a wall of boundary samples in the plane x = 0.
// `bodies`: the wall's upper half (z above 0.25 m) is attached to obstacle 0.
std::unique_ptr<pbf::CpuBackend> sample_wall(bool bodies = false) {
  pbf::SolverConfig config;
  config.particle_spacing = kSpacing;
  config.kernel_radius = kRadius;
  config.rest_density = 1000.0f;
  config.max_particles = 16;
  config.max_neighbors = 64;
  config.domain_min = Vec3{-1.0f, -1.0f, -1.0f};
  config.domain_max = Vec3{2.0f, 2.0f, 2.0f};
  config.thread_count = 1;
  auto samples = std::make_unique<pbf::CpuBackend>(config);
  std::vector<Vec3> wall;
  for (int k = 0; k <= 20; ++k)
    for (int j = 0; j <= 16; ++j) wall.push_back(Vec3{0.0f, 0.025f * j, 0.025f * k});
  std::vector<uint32_t> body;
  for (const Vec3& s : wall) body.push_back(s.z > 0.25f ? 0u : pbf::kStaticBoundary);
  samples->set_boundary_particles(wall.data(), bodies ? body.data() : nullptr, bodies ? wall.data() : nullptr,
                                  wall.size(), pbf::DensityKernel::Poly6);
  return samples;
}

// Points on, near and far from the wall of sample_wall() and between its cells.
std::vector<Vec3> points_about_the_wall() {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> unit(-0.3f, 0.6f);
  std::vector<Vec3> p;
  for (int n = 0; n < 400; ++n) p.push_back(Vec3{0.5f * unit(rng), unit(rng), unit(rng)});
  return p;
}

// Each copy's boundary_density_gradient() is the one-sample loop compiled
// for its instruction set: the same bits.
TEST(PbfCpuLanePasses, EveryCopySumsTheBoundarySamplesAsTheOneSampleLoop) {
  const auto samples = sample_wall();
  pbf::BoundarySamples b = samples->boundary_samples();
  b.near = nullptr;
  const pbf::KernelConstants k = pbf::KernelConstants::make(kRadius);
  const std::vector<Vec3> points = points_about_the_wall();
  uint32_t touched = 0;
  for (size_t n = 0; n < points.size(); ++n) {
    const Vec3 p = points[n];
    float want_rho;
    Vec3 want_grad;
    pbf::boundary_density_gradient(k, b, p, want_rho, want_grad);
    touched += want_rho > 0.0f ? 1u : 0u;
    for (const LaneTarget target : pbf::lane_targets_here()) {
      float rho;
      Vec3 grad;
      pbf::pbf_lane_passes(target).boundary_density_gradient(k, b, p, rho, grad);
      EXPECT_EQ(std::memcmp(&rho, &want_rho, sizeof rho), 0) << pbf::lane_target_name(target) << " point " << n;
      EXPECT_EQ(std::memcmp(&grad, &want_grad, sizeof grad), 0) << pbf::lane_target_name(target) << " point " << n;
    }
  }
  EXPECT_GT(touched, 100u);
}

// The neighbour search's marks of the particles near samples, and near a
// body's (backend/cpu/cpu_neighbor_scan.h, boundary_near_for()): every copy
// gives boundary_near_mark()'s.
TEST(PbfCpuLanePasses, EveryCopyMarksThePointsNearTheSamplesAsTheOneSampleLoop) {
  const LaneVector<Vec3> points = [] {
    const std::vector<Vec3> p = points_about_the_wall();
    return LaneVector<Vec3>(p.begin(), p.end());
  }();
  const float reach = pbf::kBoundaryNearReach * kRadius;
  for (const bool bodies : {false, true}) {
    const auto samples = sample_wall(bodies);
    const pbf::BoundarySamples b = samples->boundary_samples();
    std::vector<uint8_t> want(points.size());
    uint32_t count[4] = {0, 0, 0, 0};
    for (size_t n = 0; n < points.size(); ++n) {
      want[n] = pbf::boundary_near_mark(b, points[n], reach);
      ASSERT_LT(want[n], 4u);
      ++count[want[n]];
    }
    EXPECT_GT(count[0], 10u);
    EXPECT_GT(count[pbf::kNearSample], bodies ? 30u : 100u);
    EXPECT_EQ(count[pbf::kNearBody], 0u);  // never without kNearSample
    EXPECT_EQ(count[pbf::kNearSample | pbf::kNearBody] > 30u, bodies);
    for (const LaneTarget target : pbf::lane_targets_here()) {
      std::vector<uint8_t> got(points.size(), 7u);
      pbf::boundary_near_for(target)(b, points.data(), 0, static_cast<uint32_t>(points.size()), reach, got.data());
      EXPECT_EQ(got, want) << pbf::lane_target_name(target) << (bodies ? " with bodies" : "");
    }
  }
}

TEST(PbfCpuLanePasses, TheBestTargetRunsHere) {
  EXPECT_TRUE(pbf::lane_target_runs_here(pbf::best_lane_target()));
  EXPECT_TRUE(pbf::lane_target_runs_here(LaneTarget::Baseline));
  const std::vector<LaneTarget> here = pbf::lane_targets_here();
  ASSERT_FALSE(here.empty());
  EXPECT_EQ(here.front(), LaneTarget::Baseline);
  EXPECT_NE(std::find(here.begin(), here.end(), pbf::best_lane_target()), here.end());
  size_t runs = 0;
  for (const LaneTarget t : {LaneTarget::Baseline, LaneTarget::Avx2, LaneTarget::Avx512})
    runs += pbf::lane_target_runs_here(t) ? 1u : 0u;
  EXPECT_EQ(here.size(), runs);
  // AVX-512 is chosen over AVX2 where both run; no processor runs AVX-512 without AVX2.
  if (pbf::lane_target_runs_here(LaneTarget::Avx512)) {
    EXPECT_EQ(pbf::best_lane_target(), LaneTarget::Avx512);
    EXPECT_TRUE(pbf::lane_target_runs_here(LaneTarget::Avx2));
  }
}

}  // namespace
