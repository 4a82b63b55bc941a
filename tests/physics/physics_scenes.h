// physics_scenes.h - small scenes shared by the physics tests, built through
// the public C API only.
#pragma once

#include <pbf/pbf.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace pbf_test {

struct SolverDeleter {
  void operator()(pbf_solver* s) const { pbf_solver_destroy(s); }
};
using SolverPtr = std::unique_ptr<pbf_solver, SolverDeleter>;

// Asserts a call succeeded and shows the library's message when it did not.
#define PBF_ASSERT_OK(call) ASSERT_EQ((call), PBF_OK) << pbf_last_error()

inline SolverPtr make_solver(const pbf_solver_desc& desc) {
  pbf_solver* raw = nullptr;
  EXPECT_EQ(pbf_solver_create(&desc, &raw), PBF_OK) << pbf_last_error();
  return SolverPtr(raw);
}

// A tank `width` x `height` x `width` m at `spacing` on `backend`, its walls sampled with boundary particles.
inline SolverPtr sampled_tank(pbf_backend backend, float spacing, float width, float height,
                              pbf_method method = PBF_METHOD_PBF) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = backend;
  desc.method = method;
  desc.particle_spacing = spacing;
  desc.domain_max[0] = width;
  desc.domain_max[1] = height;
  desc.domain_max[2] = width;
  SolverPtr s = make_solver(desc);
  EXPECT_EQ(pbf_solver_add_domain_boundary_particles(s.get(), nullptr), PBF_OK) << pbf_last_error();
  return s;
}

inline size_t count_of(pbf_solver* s) {
  size_t n = 0;
  EXPECT_EQ(pbf_solver_particle_count(s, &n), PBF_OK);
  return n;
}

inline std::vector<float> positions_of(pbf_solver* s) {
  std::vector<float> p(3 * count_of(s));
  EXPECT_EQ(pbf_solver_get_positions(s, p.data(), p.size()), PBF_OK) << pbf_last_error();
  return p;
}

inline std::vector<float> velocities_of(pbf_solver* s) {
  std::vector<float> v(3 * count_of(s));
  EXPECT_EQ(pbf_solver_get_velocities(s, v.data(), v.size()), PBF_OK) << pbf_last_error();
  return v;
}

// The fastest particle's speed and the rms speed [m/s].
struct Speeds {
  float fastest = 0.0f;
  float rms = 0.0f;
};

inline Speeds speeds_of(pbf_solver* s) {
  const std::vector<float> v = velocities_of(s);
  Speeds out;
  double sum = 0.0;
  for (size_t i = 0; i < v.size(); i += 3) {
    const float s2 = v[i] * v[i] + v[i + 1] * v[i + 1] + v[i + 2] * v[i + 2];
    out.fastest = std::max(out.fastest, std::sqrt(s2));
    sum += s2;
  }
  out.rms = v.empty() ? 0.0f : static_cast<float>(std::sqrt(sum / static_cast<double>(v.size() / 3)));
  return out;
}

// The speed [m/s] of a fall from `height` [m] under 9.81 m/s^2: the scale
// of a collapsing column's flow.
inline float free_fall_speed(float height) { return std::sqrt(2.0f * 9.81f * height); }

inline pbf_stats stats_of(pbf_solver* s) {
  pbf_stats st = pbf_stats_default();
  EXPECT_EQ(pbf_solver_get_stats(s, &st), PBF_OK) << pbf_last_error();
  return st;
}

// Physics tests run on every backend: TEST_P on this fixture, instantiated
// with PBF_EVERY_BACKEND(Suite). A backend that cannot run here is skipped,
// and the skip says why.
class OnEveryBackend : public ::testing::TestWithParam<pbf_backend> {
 protected:
  void SetUp() override {
    int available = 0;
    ASSERT_EQ(pbf_backend_available(GetParam(), &available), PBF_OK) << pbf_last_error();
    if (available) return;
    pbf_solver_desc d = pbf_solver_desc_default();
    d.backend = GetParam();
    d.max_particles = 1;
    pbf_solver* s = nullptr;
    pbf_solver_create(&d, &s);
    pbf_solver_destroy(s);
    GTEST_SKIP() << "the " << pbf_backend_name(GetParam()) << " backend cannot run here: " << pbf_last_error();
  }
};

#define PBF_EVERY_BACKEND(suite)                                                                       \
  INSTANTIATE_TEST_SUITE_P(Backends, suite, ::testing::Values(PBF_BACKEND_CPU, PBF_BACKEND_CUDA),     \
                           [](const ::testing::TestParamInfo<pbf_backend>& info) {                   \
                             return std::string(pbf_backend_name(info.param));                       \
                           })

// A dam break: a block of side `block` [m] in the corner of a box.
inline SolverPtr make_dam_break(float spacing, const float box[3], const float block[3], int threads,
                                pbf_backend backend = PBF_BACKEND_CPU, uint32_t max_neighbors = 0) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = backend;
  desc.max_neighbors = max_neighbors;
  desc.particle_spacing = spacing;
  for (int a = 0; a < 3; ++a) desc.domain_max[a] = box[a];
  desc.thread_count = threads;
  desc.max_particles = 200000;
  SolverPtr s = make_solver(desc);
  const float lo[3] = {0.0f, 0.0f, 0.0f};
  EXPECT_EQ(pbf_solver_fill_box(s.get(), lo, block, nullptr, nullptr), PBF_OK) << pbf_last_error();
  return s;
}

}  // namespace pbf_test
