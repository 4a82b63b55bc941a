// Water at rest in a tank has its rest density at every depth and beside
// every wall, with plain walls (the planes' own density, docs/PHYSICS.md §11)
// and with sampled walls (boundary particles, §10), for both methods: no
// under-dense layer at a wall, no layers stacked closer to make up for one,
// and the column keeps its volume.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <vector>

#include "physics/physics_scenes.h"

namespace pbf_test {
namespace {

constexpr float kSpacing = 0.025f;
constexpr int kLayers = 16;  // 12 x 16 x 12 particles

struct Profile {
  std::vector<double> slab_density;  // mean density of each slab of four spacings, from the floor [kg/m^3]
  double wall_density = 0.0;         // mean density of the particles within a spacing of a side wall
  double top = 0.0;                  // the highest particle's centre [m]
  double mean_height = 0.0;          // the particles' mean height [m]
  float max_speed = 0.0f;
};

// An empty CPU tank `width` square and `height` high, its corner at the origin.
SolverPtr empty_tank(pbf_method method, float spacing, float width, float height) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = PBF_BACKEND_CPU;
  desc.method = method;
  desc.particle_spacing = spacing;
  desc.domain_max[0] = width;
  desc.domain_max[1] = height;
  desc.domain_max[2] = width;
  return make_solver(desc);
}

Profile settle(pbf_method method, bool sampled) {
  SolverPtr s = empty_tank(method, kSpacing, 12 * kSpacing, 0.6f);
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {12 * kSpacing, kLayers * kSpacing, 12 * kSpacing};
  size_t n = 0;
  EXPECT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, &n), PBF_OK) << pbf_last_error();
  EXPECT_EQ(n, 12u * kLayers * 12u);
  if (sampled) EXPECT_EQ(pbf_solver_add_domain_boundary_particles(s.get(), nullptr), PBF_OK) << pbf_last_error();
  for (int frame = 0; frame < 90; ++frame) EXPECT_EQ(pbf_solver_step(s.get(), 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();

  Profile p;
  p.max_speed = stats_of(s.get()).max_speed;
  const std::vector<float> x = positions_of(s.get());
  std::vector<float> rho(n);
  EXPECT_EQ(pbf_solver_get_densities(s.get(), rho.data(), rho.size()), PBF_OK) << pbf_last_error();
  for (size_t i = 0; i < n; ++i) {
    p.top = std::max(p.top, double(x[3 * i + 1]));
    p.mean_height += x[3 * i + 1] / double(n);
  }
  const int slabs = kLayers / 4 - 1;  // the top slab lacks neighbours above
  std::vector<double> sum(slabs, 0.0);
  std::vector<int> count(slabs, 0);
  double wall_sum = 0.0;
  int wall_count = 0;
  const float side = 12 * kSpacing;
  for (size_t i = 0; i < n; ++i) {
    const float px = x[3 * i], py = x[3 * i + 1], pz = x[3 * i + 2];
    const int k = static_cast<int>(py / (4 * kSpacing));
    if (k >= 0 && k < slabs) {
      sum[k] += rho[i];
      ++count[k];
    }
    const bool beside = px < kSpacing || px > side - kSpacing || pz < kSpacing || pz > side - kSpacing;
    if (beside && py < p.top - 2 * kSpacing) {
      wall_sum += rho[i];
      ++wall_count;
    }
  }
  for (int k = 0; k < slabs; ++k) p.slab_density.push_back(count[k] ? sum[k] / count[k] : 0.0);
  p.wall_density = wall_count ? wall_sum / wall_count : 0.0;
  return p;
}

class WallsAtRest : public ::testing::TestWithParam<std::tuple<pbf_method, bool>> {};

TEST_P(WallsAtRest, TheWaterHasItsRestDensityAtEveryDepthAndBesideEveryWall) {
  const auto [method, sampled] = GetParam();
  const Profile p = settle(method, sampled);
  std::printf("%s, %s walls: mean height %.4f m, top %.4f m, max speed %.3f m/s, beside the side walls %.1f kg/m^3, slabs from the floor:",
              method == PBF_METHOD_PBF ? "PBF" : "Projective Fluids", sampled ? "sampled" : "plain", p.mean_height, p.top,
              p.max_speed, p.wall_density);
  for (const double d : p.slab_density) std::printf(" %.1f", d);
  std::printf("\n");
  // A hydrostatic profile: the density does not fall with depth (within 0.5 %, the noise of a
  // slab's mean), the floor's slab of four layers included, which without the walls' density was about 5 %
  // lighter than the slab above it; every slab within 4 % of rest density (the compression the
  // iterations leave under the column's weight).
  for (size_t k = 0; k < p.slab_density.size(); ++k) {
    EXPECT_GT(p.slab_density[k], 995.0) << "slab " << k << " from the floor";
    EXPECT_LT(p.slab_density[k], 1040.0) << "slab " << k << " from the floor";
    if (k > 0) EXPECT_GT(p.slab_density[k - 1], p.slab_density[k] - 5.0) << "slab " << k - 1 << " below slab " << k;
  }
  // Beside the side walls as dense as the water on average, within 1 %.
  double mean = 0.0;
  for (const double d : p.slab_density) mean += d / double(p.slab_density.size());
  EXPECT_NEAR(p.wall_density, mean, 10.0) << "beside the side walls";
  // The volume is kept: 16 layers at rest spacing have their mean height at 8 spacings; the
  // compression above takes up to a quarter spacing of it (layers packed closer to make up
  // for light ones at the walls lowered it by more).
  EXPECT_NEAR(p.mean_height, 0.5 * kLayers * kSpacing, 0.25 * kSpacing);
  EXPECT_LT(p.max_speed, 0.5f);
}

// A box filled flush with the walls whose size is no multiple of the
// spacing (0.2 m at 0.0155 m: 12.9 spacings) starts at rest: its last column
// is left out where it would lie closer than half a spacing to a wall
// (pbf_solver_fill_box()). While it was kept (6.25 mm from two walls here;
// ball_drop at 0.03 m had its own 5 mm from them), its particles started
// compressed against the walls and the first frame threw them out. The fastest particle after one
// frame stays below the 0.16 m/s of a frame's free fall plus a margin.
TEST_P(WallsAtRest, ABoxFilledFlushWithTheWallsStartsAtRest) {
  const auto [method, sampled] = GetParam();
  SolverPtr s = empty_tank(method, 0.0155f, 0.2f, 0.3f);
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.2f, 0.1f, 0.2f};
  size_t n = 0;
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, &n), PBF_OK) << pbf_last_error();
  EXPECT_EQ(n, 12u * 6u * 12u) << "0.00775 .. 0.17825 m across, 0.00775 .. 0.08525 m up";
  if (sampled) EXPECT_EQ(pbf_solver_add_domain_boundary_particles(s.get(), nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s.get(), 1.0f / 60.0f, 4), PBF_OK) << pbf_last_error();
  const float fastest = stats_of(s.get()).max_speed;
  std::printf("%s, %s walls, a box of 12.9 spacings flush with them: after one frame the fastest particle %.3f m/s\n",
              method == PBF_METHOD_PBF ? "PBF" : "Projective Fluids", sampled ? "sampled" : "plain", fastest);
  EXPECT_LT(fastest, 0.5f);
}

INSTANTIATE_TEST_SUITE_P(MethodsAndWalls, WallsAtRest,
                         ::testing::Combine(::testing::Values(PBF_METHOD_PBF, PBF_METHOD_PROJECTIVE),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<pbf_method, bool>>& info) {
                           return std::string(std::get<0>(info.param) == PBF_METHOD_PBF ? "Pbf" : "Projective") +
                                  (std::get<1>(info.param) ? "SampledWalls" : "PlainWalls");
                         });

}  // namespace
}  // namespace pbf_test
