// The working paths of the C API, seen only through <pbf/pbf.h>: versions,
// descriptions and parameters, particles in the user's order, boxes, planes,
// statistics, several solvers on several threads, and PLY output.
#include <gtest/gtest.h>
#include <pbf/pbf.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr float kDt = 1.0f / 60.0f;

// A small solver: 0.05 m spacing (kernel radius 0.1 m) in the unit box.
pbf_solver_desc small_desc(uint32_t max_particles = 64) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.max_particles = max_particles;
  d.particle_spacing = 0.05f;
  return d;
}

// RAII for a solver created from `desc`.
class Solver {
 public:
  explicit Solver(const pbf_solver_desc& desc) { status_ = pbf_solver_create(&desc, &s_); }
  ~Solver() { pbf_solver_destroy(s_); }
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;
  pbf_solver* get() const { return s_; }
  pbf_status status() const { return status_; }

 private:
  pbf_solver* s_ = nullptr;
  pbf_status status_ = PBF_ERROR_INTERNAL;
};

size_t count_of(const pbf_solver* s) {
  size_t n = 0;
  EXPECT_EQ(pbf_solver_particle_count(s, &n), PBF_OK) << pbf_last_error();
  return n;
}

std::vector<float> positions_of(const pbf_solver* s) {
  std::vector<float> v(3 * count_of(s));
  EXPECT_EQ(pbf_solver_get_positions(s, v.data(), v.size()), PBF_OK) << pbf_last_error();
  return v;
}

std::vector<float> velocities_of(const pbf_solver* s) {
  std::vector<float> v(3 * count_of(s));
  EXPECT_EQ(pbf_solver_get_velocities(s, v.data(), v.size()), PBF_OK) << pbf_last_error();
  return v;
}

std::vector<float> densities_of(const pbf_solver* s) {
  std::vector<float> v(count_of(s));
  EXPECT_EQ(pbf_solver_get_densities(s, v.data(), v.size()), PBF_OK) << pbf_last_error();
  return v;
}

// Gravity off and every optional feature off: isolated particles then move
// only with their own velocity.
pbf_params quiet_params() {
  pbf_params p = pbf_params_default();
  p.gravity[0] = p.gravity[1] = p.gravity[2] = 0.0f;
  p.artificial_pressure_k = 0.0f;
  p.xsph_viscosity = 0.0f;
  p.vorticity_epsilon = 0.0f;
  return p;
}

// Points of the lattice 0.3 + 0.2 * {0, 1, 2} (0.2 m apart, twice the kernel
// radius), listed in a scrambled order so that the solver's grid sort must
// reorder them internally.
std::vector<float> scrambled_far_apart_points() {
  std::vector<float> x;
  for (int k = 0; k < 27; ++k) {
    const int cell = (k * 10) % 27;  // 10 is coprime with 27: a permutation
    x.insert(x.end(), {0.3f + 0.2f * (cell % 3), 0.3f + 0.2f * ((cell / 3) % 3), 0.3f + 0.2f * (cell / 9)});
  }
  return x;
}

std::string temp_path(const char* what) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("pbf_capi_particles_") + what + "_" + std::to_string(::getpid());
  if (info != nullptr) name += std::string("_") + info->name();
  return (fs::path(::testing::TempDir()) / name).string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

float load_le_float(const std::string& bytes, size_t offset) {
  uint32_t bits = 0;
  for (int b = 0; b < 4; ++b) bits |= uint32_t(static_cast<unsigned char>(bytes[offset + b])) << (8 * b);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// ---------------------------------------------------------------------------
// Version and backends
// ---------------------------------------------------------------------------

TEST(CApiVersion, HeaderMacrosEqualTheRunTimeVersion) {
  EXPECT_EQ(PBF_VERSION, PBF_VERSION_MAJOR * 10000 + PBF_VERSION_MINOR * 100 + PBF_VERSION_PATCH);
  EXPECT_EQ(pbf_version(), static_cast<uint32_t>(PBF_VERSION));
  EXPECT_STREQ(pbf_version_string(), PBF_VERSION_STRING);
  const std::string expected = std::to_string(PBF_VERSION_MAJOR) + "." + std::to_string(PBF_VERSION_MINOR) + "." +
                               std::to_string(PBF_VERSION_PATCH);
  EXPECT_EQ(std::string(pbf_version_string()), expected);
}

TEST(CApiBackendsAvailable, AutoAndCpuAreAvailable) {
  int available = -1;
  ASSERT_EQ(pbf_backend_available(PBF_BACKEND_AUTO, &available), PBF_OK) << pbf_last_error();
  EXPECT_EQ(available, 1);
  available = -1;
  ASSERT_EQ(pbf_backend_available(PBF_BACKEND_CPU, &available), PBF_OK) << pbf_last_error();
  EXPECT_EQ(available, 1);
}

// ---------------------------------------------------------------------------
// Descriptions and parameters
// ---------------------------------------------------------------------------

TEST(CApiSolverDesc, DefaultDescResolvesEveryAutomaticValue) {
  const pbf_solver_desc d = pbf_solver_desc_default();
  EXPECT_EQ(d.struct_size, sizeof(pbf_solver_desc));
  Solver s(d);
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();

  // Garbage in every field but struct_size: get_desc must fill them all.
  pbf_solver_desc out = pbf_solver_desc_default();
  std::memset(reinterpret_cast<unsigned char*>(&out) + sizeof(size_t), 0x5a, sizeof out - sizeof(size_t));
  ASSERT_EQ(pbf_solver_get_desc(s.get(), &out), PBF_OK) << pbf_last_error();
  EXPECT_EQ(out.struct_size, sizeof(pbf_solver_desc));
  int cuda = 0;
  ASSERT_EQ(pbf_backend_available(PBF_BACKEND_CUDA, &cuda), PBF_OK);
  EXPECT_EQ(out.backend, cuda ? PBF_BACKEND_CUDA : PBF_BACKEND_CPU) << "AUTO resolves to CUDA where it is usable";
  EXPECT_EQ(out.device_index, 0);
  EXPECT_EQ(out.max_particles, d.max_particles);
  EXPECT_EQ(out.particle_spacing, d.particle_spacing);
  EXPECT_FLOAT_EQ(out.kernel_radius, 2.0f * d.particle_spacing);
  EXPECT_EQ(out.rest_density, d.rest_density);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(out.domain_min[a], d.domain_min[a]);
    EXPECT_EQ(out.domain_max[a], d.domain_max[a]);
  }
  EXPECT_GT(out.thread_count, 0);
  EXPECT_LE(out.thread_count, 1024);
  EXPECT_GE(out.max_neighbors, 8u);
  EXPECT_LE(out.max_neighbors, 1024u);
}

TEST(CApiSolverDesc, ExplicitValuesAreKeptAsGiven) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.max_particles = 500;
  d.particle_spacing = 0.05f;
  d.kernel_radius = 0.12f;
  d.rest_density = 998.0f;
  d.domain_min[0] = -0.5f;
  d.domain_min[1] = 0.0f;
  d.domain_min[2] = -0.25f;
  d.domain_max[0] = 0.5f;
  d.domain_max[1] = 2.0f;
  d.domain_max[2] = 0.25f;
  d.thread_count = 1;
  d.max_neighbors = 32;
  Solver s(d);
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  pbf_solver_desc out = pbf_solver_desc_default();
  ASSERT_EQ(pbf_solver_get_desc(s.get(), &out), PBF_OK) << pbf_last_error();
  EXPECT_EQ(out.backend, PBF_BACKEND_CPU);
  EXPECT_EQ(out.max_particles, 500u);
  EXPECT_EQ(out.particle_spacing, 0.05f);
  EXPECT_EQ(out.kernel_radius, 0.12f);
  EXPECT_EQ(out.rest_density, 998.0f);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(out.domain_min[a], d.domain_min[a]);
    EXPECT_EQ(out.domain_max[a], d.domain_max[a]);
  }
  EXPECT_EQ(out.thread_count, 1);
  EXPECT_EQ(out.max_neighbors, 32u);
}

TEST(CApiSolverDesc, ParticleMassIsPositiveAndProportionalToRestDensity) {
  pbf_solver_desc d = small_desc();
  Solver water(d);
  d.rest_density = 2000.0f;
  Solver heavy(d);
  ASSERT_EQ(water.status(), PBF_OK) << pbf_last_error();
  ASSERT_EQ(heavy.status(), PBF_OK) << pbf_last_error();
  float m1 = 0.0f, m2 = 0.0f;
  ASSERT_EQ(pbf_solver_get_particle_mass(water.get(), &m1), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_get_particle_mass(heavy.get(), &m2), PBF_OK) << pbf_last_error();
  EXPECT_TRUE(std::isfinite(m1));
  EXPECT_GT(m1, 0.0f);
  EXPECT_FLOAT_EQ(m2, 2.0f * m1);
  // A lattice cell of 0.05 m water weighs about 0.125 kg.
  EXPECT_NEAR(m1, 1000.0f * 0.05f * 0.05f * 0.05f, 0.1f * 0.125f);
}

TEST(CApiParams, NewSolverHasTheDefaultParams) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const pbf_params def = pbf_params_default();
  pbf_params out = pbf_params_default();
  std::memset(reinterpret_cast<unsigned char*>(&out) + sizeof(size_t), 0x5a, sizeof out - sizeof(size_t));
  ASSERT_EQ(pbf_solver_get_params(s.get(), &out), PBF_OK) << pbf_last_error();
  EXPECT_EQ(out.struct_size, sizeof(pbf_params));
  for (int a = 0; a < 3; ++a) EXPECT_EQ(out.gravity[a], def.gravity[a]);
  EXPECT_EQ(out.iterations, def.iterations);
  EXPECT_EQ(out.relaxation, def.relaxation);
  EXPECT_EQ(out.unilateral, def.unilateral);
  EXPECT_EQ(out.artificial_pressure_k, def.artificial_pressure_k);
  EXPECT_EQ(out.artificial_pressure_n, def.artificial_pressure_n);
  EXPECT_EQ(out.artificial_pressure_dq, def.artificial_pressure_dq);
  EXPECT_EQ(out.xsph_viscosity, def.xsph_viscosity);
  EXPECT_EQ(out.vorticity_epsilon, def.vorticity_epsilon);
  EXPECT_EQ(out.restitution, def.restitution);
  EXPECT_EQ(out.friction, def.friction);
  EXPECT_EQ(out.max_speed, def.max_speed);
}

TEST(CApiParams, SetParamsRoundTripsEveryFieldIncludingTheRangeEnds) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  pbf_params p = pbf_params_default();
  p.gravity[0] = 1.5f;
  p.gravity[1] = -3.0f;
  p.gravity[2] = 0.25f;
  p.iterations = 100;
  p.relaxation = 100.0f;
  p.unilateral = 0;
  p.artificial_pressure_k = 1.0f;
  p.artificial_pressure_n = 8.0f;
  p.artificial_pressure_dq = 0.9f;
  p.xsph_viscosity = 1.0f;
  p.vorticity_epsilon = 10.0f;
  p.restitution = 1.0f;
  p.friction = 10.0f;
  p.max_speed = 3.5f;
  ASSERT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK) << pbf_last_error();
  pbf_params out = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(s.get(), &out), PBF_OK) << pbf_last_error();
  for (int a = 0; a < 3; ++a) EXPECT_EQ(out.gravity[a], p.gravity[a]);
  EXPECT_EQ(out.iterations, p.iterations);
  EXPECT_EQ(out.relaxation, p.relaxation);
  EXPECT_EQ(out.unilateral, p.unilateral);
  EXPECT_EQ(out.artificial_pressure_k, p.artificial_pressure_k);
  EXPECT_EQ(out.artificial_pressure_n, p.artificial_pressure_n);
  EXPECT_EQ(out.artificial_pressure_dq, p.artificial_pressure_dq);
  EXPECT_EQ(out.xsph_viscosity, p.xsph_viscosity);
  EXPECT_EQ(out.vorticity_epsilon, p.vorticity_epsilon);
  EXPECT_EQ(out.restitution, p.restitution);
  EXPECT_EQ(out.friction, p.friction);
  EXPECT_EQ(out.max_speed, p.max_speed);

  // The lower ends of every range are accepted too.
  pbf_params low = pbf_params_default();
  low.iterations = 1;
  low.relaxation = 0.0f;
  low.artificial_pressure_k = 0.0f;
  low.artificial_pressure_n = 1.0f;
  low.artificial_pressure_dq = 0.0f;
  low.xsph_viscosity = 0.0f;
  low.vorticity_epsilon = 0.0f;
  low.restitution = 0.0f;
  low.friction = 0.0f;
  ASSERT_EQ(pbf_solver_set_params(s.get(), &low), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_get_params(s.get(), &out), PBF_OK) << pbf_last_error();
  EXPECT_EQ(out.iterations, 1u);
  EXPECT_EQ(out.artificial_pressure_n, 1.0f);
  EXPECT_EQ(out.max_speed, low.max_speed);
}

// ---------------------------------------------------------------------------
// Particles keep the user's order
// ---------------------------------------------------------------------------

TEST(CApiParticles, AddThenGetReturnsExactlyWhatWasAdded) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const std::vector<float> x = scrambled_far_apart_points();
  std::vector<float> v;
  for (int k = 0; k < 27; ++k) v.insert(v.end(), {0.01f * k, -0.02f * k, 0.5f - 0.03f * k});
  ASSERT_EQ(pbf_solver_add_particles(s.get(), x.data(), v.data(), 27), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count_of(s.get()), 27u);
  EXPECT_EQ(positions_of(s.get()), x);
  EXPECT_EQ(velocities_of(s.get()), v);
}

TEST(CApiParticles, NullVelocitiesAddParticlesAtRest) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float x[6] = {0.2f, 0.3f, 0.4f, 0.6f, 0.7f, 0.8f};
  ASSERT_EQ(pbf_solver_add_particles(s.get(), x, nullptr, 2), PBF_OK) << pbf_last_error();
  EXPECT_EQ(velocities_of(s.get()), std::vector<float>(6, 0.0f));
}

TEST(CApiParticles, ParticlesOnTheDomainBoundaryAreInside) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float x[6] = {0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f};
  EXPECT_EQ(pbf_solver_add_particles(s.get(), x, nullptr, 2), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count_of(s.get()), 2u);
}

TEST(CApiParticles, ParticlesAtRestFarApartStayExactlyWhereTheyWereAddedAcrossSteps) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const pbf_params p = quiet_params();
  ASSERT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK) << pbf_last_error();
  const std::vector<float> x = scrambled_far_apart_points();
  ASSERT_EQ(pbf_solver_add_particles(s.get(), x.data(), nullptr, 27), PBF_OK) << pbf_last_error();
  for (int k = 0; k < 4; ++k) ASSERT_EQ(pbf_solver_step(s.get(), kDt, 2), PBF_OK) << pbf_last_error();
  EXPECT_EQ(positions_of(s.get()), x);
  EXPECT_EQ(velocities_of(s.get()), std::vector<float>(x.size(), 0.0f));
}

TEST(CApiParticles, EachParticleKeepsItsIndexAcrossStepsIdentifiedByItsVelocity) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const pbf_params p = quiet_params();
  ASSERT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK) << pbf_last_error();
  const std::vector<float> x = scrambled_far_apart_points();
  std::vector<float> v;
  for (int k = 0; k < 27; ++k) v.insert(v.end(), {0.01f * (k + 1), -0.005f * k, 0.002f * k - 0.02f});
  ASSERT_EQ(pbf_solver_add_particles(s.get(), x.data(), v.data(), 27), PBF_OK) << pbf_last_error();
  const int steps = 5;
  for (int k = 0; k < steps; ++k) ASSERT_EQ(pbf_solver_step(s.get(), kDt, 2), PBF_OK) << pbf_last_error();

  // Nothing acts on an isolated particle: it keeps its velocity and drifts.
  const std::vector<float> xn = positions_of(s.get());
  const std::vector<float> vn = velocities_of(s.get());
  ASSERT_EQ(xn.size(), x.size());
  ASSERT_EQ(vn.size(), v.size());
  const float t = steps * kDt;
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_NEAR(vn[i], v[i], 1e-4f) << "particle " << i / 3 << " axis " << i % 3;
    EXPECT_NEAR(xn[i], x[i] + v[i] * t, 1e-5f) << "particle " << i / 3 << " axis " << i % 3;
  }
}

TEST(CApiParticles, RemoveKeepsTheRemainingParticlesInOrder) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const pbf_params p = quiet_params();
  ASSERT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK) << pbf_last_error();
  std::vector<float> x = scrambled_far_apart_points();
  ASSERT_EQ(pbf_solver_add_particles(s.get(), x.data(), nullptr, 27), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 1), PBF_OK) << pbf_last_error();  // reorders internally

  auto drop = [&](std::vector<uint32_t> indices) {
    std::sort(indices.rbegin(), indices.rend());
    for (uint32_t i : indices) x.erase(x.begin() + 3 * i, x.begin() + 3 * i + 3);
  };
  const uint32_t first[3] = {7, 2, 0};  // any order
  ASSERT_EQ(pbf_solver_remove_particles(s.get(), first, 3), PBF_OK) << pbf_last_error();
  drop({7, 2, 0});
  EXPECT_EQ(count_of(s.get()), 24u);
  EXPECT_EQ(positions_of(s.get()), x);

  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 1), PBF_OK) << pbf_last_error();
  EXPECT_EQ(positions_of(s.get()), x);

  const uint32_t second[2] = {23, 10};  // the last particle and one in the middle
  ASSERT_EQ(pbf_solver_remove_particles(s.get(), second, 2), PBF_OK) << pbf_last_error();
  drop({23, 10});
  EXPECT_EQ(count_of(s.get()), 22u);
  EXPECT_EQ(positions_of(s.get()), x);
  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 1), PBF_OK) << pbf_last_error();
  EXPECT_EQ(positions_of(s.get()), x);
}

TEST(CApiParticles, RemoveKeepsEachParticlesVelocityWithIt) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const std::vector<float> x = scrambled_far_apart_points();
  std::vector<float> v;
  for (int k = 0; k < 27; ++k) v.insert(v.end(), {float(k), float(-k), 0.5f * k});
  ASSERT_EQ(pbf_solver_add_particles(s.get(), x.data(), v.data(), 27), PBF_OK) << pbf_last_error();
  const uint32_t indices[4] = {26, 0, 13, 5};
  ASSERT_EQ(pbf_solver_remove_particles(s.get(), indices, 4), PBF_OK) << pbf_last_error();
  std::vector<float> expected;
  for (int k = 0; k < 27; ++k)
    if (k != 26 && k != 0 && k != 13 && k != 5) expected.insert(expected.end(), {float(k), float(-k), 0.5f * k});
  EXPECT_EQ(velocities_of(s.get()), expected);
}

TEST(CApiParticles, RemovingEveryParticleLeavesAnEmptySolver) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float x[9] = {0.2f, 0.2f, 0.2f, 0.5f, 0.5f, 0.5f, 0.8f, 0.8f, 0.8f};
  ASSERT_EQ(pbf_solver_add_particles(s.get(), x, nullptr, 3), PBF_OK) << pbf_last_error();
  const uint32_t all[3] = {1, 2, 0};
  ASSERT_EQ(pbf_solver_remove_particles(s.get(), all, 3), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count_of(s.get()), 0u);
  EXPECT_EQ(pbf_solver_step(s.get(), kDt, 1), PBF_OK) << pbf_last_error();
}

TEST(CApiParticles, ClearRemovesEveryParticleAndFreesTheCapacity) {
  Solver s(small_desc(64));
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const std::vector<float> x = scrambled_far_apart_points();
  ASSERT_EQ(pbf_solver_add_particles(s.get(), x.data(), nullptr, 27), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 1), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_clear_particles(s.get()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count_of(s.get()), 0u);
  // An empty solver needs no buffer.
  EXPECT_EQ(pbf_solver_get_positions(s.get(), nullptr, 0), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_get_velocities(s.get(), nullptr, 0), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_get_densities(s.get(), nullptr, 0), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_step(s.get(), kDt, 1), PBF_OK) << pbf_last_error();

  // The whole capacity is free again.
  std::vector<float> full(3 * 64, 0.5f);
  EXPECT_EQ(pbf_solver_add_particles(s.get(), full.data(), nullptr, 64), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count_of(s.get()), 64u);
}

TEST(CApiParticles, ClearOnAnEmptySolverSucceeds) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_clear_particles(s.get()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count_of(s.get()), 0u);
}

TEST(CApiParticles, SetPositionsAndVelocitiesRoundTripInUserOrder) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const std::vector<float> x = scrambled_far_apart_points();
  ASSERT_EQ(pbf_solver_add_particles(s.get(), x.data(), nullptr, 27), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 2), PBF_OK) << pbf_last_error();  // reorders internally

  std::vector<float> nx(x.size()), nv(x.size());
  for (size_t i = 0; i < nx.size(); ++i) {
    nx[i] = 0.05f + 0.03f * static_cast<float>(i % 30);
    nv[i] = -1.0f + 0.01f * static_cast<float>(i);
  }
  ASSERT_EQ(pbf_solver_set_positions(s.get(), nx.data(), nx.size()), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_set_velocities(s.get(), nv.data(), nv.size()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(positions_of(s.get()), nx);
  EXPECT_EQ(velocities_of(s.get()), nv);
  EXPECT_EQ(count_of(s.get()), 27u);
}

TEST(CApiParticles, SetPositionsOnAnEmptySolverAcceptsLengthZero) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_set_positions(s.get(), nullptr, 0), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_set_velocities(s.get(), nullptr, 0), PBF_OK) << pbf_last_error();
}

// ---------------------------------------------------------------------------
// fill_box
// ---------------------------------------------------------------------------

TEST(CApiFillBox, FillsTheLatticeCentresOfTheBox) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.max_particles = 100;
  d.particle_spacing = 0.025f;
  Solver s(d);
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.1f, 0.1f, 0.1f};
  const float velocity[3] = {0.5f, -1.0f, 2.0f};
  size_t added = 0;
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, velocity, &added), PBF_OK) << pbf_last_error();
  EXPECT_EQ(added, 64u);
  ASSERT_EQ(count_of(s.get()), 64u);

  // Every particle sits on a centre (i + 1/2) * spacing, each centre once.
  const std::vector<float> x = positions_of(s.get());
  std::set<std::tuple<int, int, int>> centres;
  for (size_t p = 0; p < 64; ++p) {
    int ijk[3];
    for (int a = 0; a < 3; ++a) {
      const float c = x[3 * p + a] / 0.025f - 0.5f;
      ijk[a] = static_cast<int>(std::lround(c));
      EXPECT_NEAR(c, static_cast<float>(ijk[a]), 1e-4f) << "particle " << p;
      EXPECT_GE(ijk[a], 0);
      EXPECT_LE(ijk[a], 3);
    }
    centres.insert({ijk[0], ijk[1], ijk[2]});
  }
  EXPECT_EQ(centres.size(), 64u);

  const std::vector<float> v = velocities_of(s.get());
  for (size_t p = 0; p < 64; ++p)
    for (int a = 0; a < 3; ++a) EXPECT_EQ(v[3 * p + a], velocity[a]) << "particle " << p;
}

TEST(CApiFillBox, AppendsAfterTheExistingParticlesAtRestWithNullVelocity) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float first[3] = {0.9f, 0.9f, 0.9f};
  ASSERT_EQ(pbf_solver_add_particles(s.get(), first, nullptr, 1), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.1f, 0.1f, 0.1f}, hi[3] = {0.2f, 0.2f, 0.2f};
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(count_of(s.get()), 1u + 8u);
  const std::vector<float> x = positions_of(s.get());
  EXPECT_EQ(x[0], 0.9f);
  EXPECT_EQ(x[1], 0.9f);
  EXPECT_EQ(x[2], 0.9f);
  EXPECT_EQ(velocities_of(s.get()), std::vector<float>(27, 0.0f));
}

TEST(CApiFillBox, ClipsABoxThatReachesOutOfTheDomain) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  // Below the domain along x: centres -0.475, -0.425, ... of which 0.025 ..
  // 0.175 lie inside [0, 0.2]: 4 x 2 x 2.
  const float lo[3] = {-0.5f, 0.0f, 0.0f}, hi[3] = {0.2f, 0.1f, 0.1f};
  size_t added = 0;
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, &added), PBF_OK) << pbf_last_error();
  EXPECT_EQ(added, 16u);
  // Above the domain: centres 0.925 and 0.975 inside, 1.025 outside: 2 x 2 x 2.
  const float lo2[3] = {0.9f, 0.9f, 0.9f}, hi2[3] = {1.5f, 1.5f, 1.5f};
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo2, hi2, nullptr, &added), PBF_OK) << pbf_last_error();
  EXPECT_EQ(added, 8u);
  EXPECT_EQ(count_of(s.get()), 24u);
  const std::vector<float> x = positions_of(s.get());
  for (size_t p = 0; p < 16; ++p) {
    const float c = x[3 * p] / 0.05f - 0.5f;
    EXPECT_NEAR(c, std::round(c), 1e-4f) << "particle " << p << " is off the box's lattice";
    EXPECT_GT(x[3 * p], 0.0f);
    EXPECT_LT(x[3 * p], 0.2f);
  }
  for (float f : x) {
    EXPECT_GE(f, 0.0f);
    EXPECT_LE(f, 1.0f);
  }
}

// A point closer than half a spacing to a domain wall is left out: its
// particle would start compressed against the wall. A box flush with the
// walls that is a whole number of spacings keeps every point (the first and
// last exactly half a spacing in); one that is not loses its last column
// against the wall, not against its own open face.
TEST(CApiFillBox, LeavesOutPointsCloserThanHalfASpacingToADomainWall) {
  for (const float spacing : {0.03f, 0.02f}) {
    pbf_solver_desc d = pbf_solver_desc_default();
    d.max_particles = 40000;
    d.particle_spacing = spacing;
    d.domain_max[0] = 0.8f;
    d.domain_max[1] = 0.9f;
    d.domain_max[2] = 0.8f;
    Solver s(d);
    ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
    const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.8f, 0.4f, 0.8f};
    size_t added = 0;
    ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, &added), PBF_OK) << pbf_last_error();
    // 0.03: 0.015 .. 0.765 across (0.795 lay 5 mm from the wall), 0.015 .. 0.375 up (the
    // box's top is no wall); 0.02: 0.01 .. 0.79 across, all 40.
    const size_t across = spacing == 0.03f ? 26u : 40u, up = spacing == 0.03f ? 13u : 20u;
    EXPECT_EQ(added, across * up * across) << "spacing " << spacing;
    const std::vector<float> x = positions_of(s.get());
    for (size_t p = 0; p < added; ++p)
      for (int a : {0, 2}) {
        EXPECT_GE(x[3 * p + a], 0.5f * spacing - 1e-6f) << "particle " << p;
        EXPECT_LE(x[3 * p + a], 0.8f - 0.5f * spacing + 1e-6f) << "particle " << p;
      }
  }
}

TEST(CApiFillBox, AFlatBoxHoldsNoParticle) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.1f, 0.1f, 0.1f}, hi[3] = {0.3f, 0.1f, 0.3f};  // zero height
  size_t added = 99;
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, &added), PBF_OK) << pbf_last_error();
  EXPECT_EQ(added, 0u);
  EXPECT_EQ(count_of(s.get()), 0u);
}

// ---------------------------------------------------------------------------
// Densities
// ---------------------------------------------------------------------------

TEST(CApiDensities, AreZeroBeforeTheFirstStep) {
  Solver s(small_desc(512));
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.2f, 0.2f, 0.2f}, hi[3] = {0.4f, 0.4f, 0.4f};
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  EXPECT_EQ(densities_of(s.get()), std::vector<float>(64, 0.0f));
}

TEST(CApiDensities, InteriorOfARestingBlockIsAtRestDensityAfterOneStep) {
  Solver s(small_desc(512));
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  pbf_params p = pbf_params_default();
  p.gravity[1] = 0.0f;
  ASSERT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.2f, 0.2f, 0.2f}, hi[3] = {0.6f, 0.6f, 0.6f};  // 8^3 particles
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 1), PBF_OK) << pbf_last_error();

  const std::vector<float> x = positions_of(s.get());
  const std::vector<float> rho = densities_of(s.get());
  ASSERT_EQ(rho.size(), 512u);
  size_t interior = 0;
  for (size_t i = 0; i < rho.size(); ++i) {
    EXPECT_GT(rho[i], 0.0f) << "particle " << i;
    EXPECT_LT(rho[i], 1010.0f) << "particle " << i;
    // A full kernel sphere (radius 0.1 m) of neighbours: 0.3 < x < 0.5.
    bool inside = true;
    for (int a = 0; a < 3; ++a) inside = inside && x[3 * i + a] > 0.3f && x[3 * i + a] < 0.5f;
    if (!inside) continue;
    ++interior;
    EXPECT_NEAR(rho[i], 1000.0f, 10.0f) << "interior particle " << i;
  }
  EXPECT_EQ(interior, 64u);
}

// ---------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------

TEST(CApiStats, DescribeTheLastStep) {
  Solver s(small_desc(512));
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  pbf_params p = pbf_params_default();
  p.iterations = 5;
  ASSERT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.2f, 0.2f, 0.2f}, hi[3] = {0.45f, 0.45f, 0.45f};  // 5^3 particles
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 3), PBF_OK) << pbf_last_error();

  pbf_stats st = pbf_stats_default();
  ASSERT_EQ(pbf_solver_get_stats(s.get(), &st), PBF_OK) << pbf_last_error();
  EXPECT_EQ(st.struct_size, sizeof(pbf_stats));
  EXPECT_EQ(st.particle_count, 125u);
  EXPECT_EQ(st.substeps, 3u);
  EXPECT_EQ(st.iterations, p.max_iterations) << "the most a substep may run, the density tolerance being on";
  // A block in free fall is not compressed: each substep ran its 5 iterations and no more.
  EXPECT_EQ(st.density_iterations, 3u * 5u);
  EXPECT_GE(st.avg_density_error, 0.0f);
  EXPECT_GE(st.max_density_error, st.avg_density_error);
  EXPECT_GT(st.avg_neighbors, 0.0f);
  EXPECT_GE(static_cast<float>(st.max_neighbors), st.avg_neighbors);
  EXPECT_EQ(st.neighbor_overflows, 0u);
  // The block fell freely for 1/60 s: about 9.81 / 60 = 0.16 m/s.
  EXPECT_GT(st.max_speed, 0.1f);
  EXPECT_LT(st.max_speed, 1.0f);
  const double phases[] = {st.time_predict_ms,     st.time_grid_ms,     st.time_neighbors_ms,
                           st.time_constraints_ms, st.time_velocity_ms, st.time_vorticity_viscosity_ms};
  double sum = 0.0;
  for (double t : phases) {
    EXPECT_GE(t, 0.0);
    sum += t;
  }
  EXPECT_GT(st.time_total_ms, 0.0);
  EXPECT_GE(st.time_total_ms + 1e-9, sum) << "the phases lie within the whole step";
}

TEST(CApiStats, FollowTheMostRecentStep) {
  Solver s(small_desc(512));
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.2f, 0.2f, 0.2f}, hi[3] = {0.3f, 0.3f, 0.3f};
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 4), PBF_OK) << pbf_last_error();
  const uint32_t one = 0;
  ASSERT_EQ(pbf_solver_remove_particles(s.get(), &one, 1), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 2), PBF_OK) << pbf_last_error();
  pbf_stats st = pbf_stats_default();
  ASSERT_EQ(pbf_solver_get_stats(s.get(), &st), PBF_OK) << pbf_last_error();
  EXPECT_EQ(st.particle_count, 7u);
  EXPECT_EQ(st.substeps, 2u);
}

TEST(CApiStats, SteppingAnEmptySolverSucceedsAndCountsNoParticles) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 4), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count_of(s.get()), 0u);
  pbf_stats st = pbf_stats_default();
  st.particle_count = 99;
  ASSERT_EQ(pbf_solver_get_stats(s.get(), &st), PBF_OK) << pbf_last_error();
  EXPECT_EQ(st.particle_count, 0u);
  EXPECT_EQ(st.substeps, 4u);
  EXPECT_EQ(st.neighbor_overflows, 0u);
  EXPECT_EQ(st.max_speed, 0.0f);
}

// ---------------------------------------------------------------------------
// Planes
// ---------------------------------------------------------------------------

TEST(CApiPlanes, AnAddedPlaneHoldsUpAFallingParticleUntilCleared) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float x[3] = {0.5f, 0.8f, 0.5f};
  ASSERT_EQ(pbf_solver_add_particles(s.get(), x, nullptr, 1), PBF_OK) << pbf_last_error();
  // The floor y = 0.5, given with an unnormalised normal: 2y - 1 = 0.
  const float normal[3] = {0.0f, 2.0f, 0.0f};
  uint32_t index = 99;
  ASSERT_EQ(pbf_solver_add_plane(s.get(), normal, -1.0f, &index), PBF_OK) << pbf_last_error();
  EXPECT_EQ(index, 0u);
  const float wall[3] = {-1.0f, 0.0f, 0.0f};  // x <= 0.95, far from the particle
  ASSERT_EQ(pbf_solver_add_plane(s.get(), wall, 0.95f, &index), PBF_OK) << pbf_last_error();
  EXPECT_EQ(index, 1u);
  ASSERT_EQ(pbf_solver_add_plane(s.get(), wall, 0.95f, nullptr), PBF_OK) << pbf_last_error();

  for (int k = 0; k < 60; ++k) ASSERT_EQ(pbf_solver_step(s.get(), kDt, 2), PBF_OK) << pbf_last_error();
  // It rests one particle radius (0.025 m) above the plane.
  EXPECT_NEAR(positions_of(s.get())[1], 0.525f, 2e-3f);

  ASSERT_EQ(pbf_solver_clear_planes(s.get()), PBF_OK) << pbf_last_error();
  for (int k = 0; k < 60; ++k) ASSERT_EQ(pbf_solver_step(s.get(), kDt, 2), PBF_OK) << pbf_last_error();
  // Now it rests on the domain's floor, which clear_planes keeps.
  EXPECT_NEAR(positions_of(s.get())[1], 0.025f, 2e-3f);

  ASSERT_EQ(pbf_solver_add_plane(s.get(), normal, -1.0f, &index), PBF_OK) << pbf_last_error();
  EXPECT_EQ(index, 0u) << "plane indices restart after clear_planes";
}

// ---------------------------------------------------------------------------
// Several solvers, several threads
// ---------------------------------------------------------------------------

// One scene per k: a block whose size and placement depend on k, stepped
// three times. Returns the final positions.
std::vector<float> run_scene(int k) {
  pbf_solver_desc d = small_desc(512);
  d.thread_count = 1 + k % 2;
  Solver s(d);
  EXPECT_EQ(s.status(), PBF_OK) << pbf_last_error();
  if (s.status() != PBF_OK) return {};
  const float lo[3] = {0.1f + 0.05f * k, 0.1f, 0.1f};
  const float hi[3] = {lo[0] + 0.05f * (3 + k), 0.3f, 0.25f};
  EXPECT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  for (int step = 0; step < 3; ++step) EXPECT_EQ(pbf_solver_step(s.get(), kDt, 2), PBF_OK) << pbf_last_error();
  return positions_of(s.get());
}

TEST(CApiThreads, SolversOnSeveralThreadsStepIndependently) {
  constexpr int kThreads = 4;
  std::vector<std::vector<float>> expected(kThreads);
  for (int k = 0; k < kThreads; ++k) expected[k] = run_scene(k);

  // Every thread holds two solvers at once: its own scene twice.
  std::vector<std::vector<float>> got(kThreads), again(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      pbf_solver_desc d = small_desc(512);
      d.thread_count = 1 + k % 2;
      Solver extra(d);
      got[k] = run_scene(k);
      const float lo[3] = {0.5f, 0.5f, 0.5f}, hi[3] = {0.6f, 0.6f, 0.6f};
      EXPECT_EQ(pbf_solver_fill_box(extra.get(), lo, hi, nullptr, nullptr), PBF_OK);
      EXPECT_EQ(pbf_solver_step(extra.get(), kDt, 1), PBF_OK);
      EXPECT_EQ(count_of(extra.get()), 8u);
      again[k] = run_scene(k);
    });
  }
  for (std::thread& t : threads) t.join();

  for (int k = 0; k < kThreads; ++k) {
    SCOPED_TRACE("scene " + std::to_string(k));
    EXPECT_FALSE(expected[k].empty());
    EXPECT_EQ(got[k], expected[k]) << "the same scene gave different results on another thread";
    EXPECT_EQ(again[k], expected[k]);
    for (float f : got[k]) {
      EXPECT_TRUE(std::isfinite(f));
      EXPECT_GE(f, 0.0f);
      EXPECT_LE(f, 1.0f);
    }
  }
  // The scenes really differ, so equal results are not a coincidence.
  EXPECT_NE(expected[0].size(), expected[1].size());
}

// ---------------------------------------------------------------------------
// PLY output
// ---------------------------------------------------------------------------

// The header (through "end_header\n") of a PLY file's bytes; empty if none.
std::string ply_header(const std::string& bytes) {
  const std::string end = "end_header\n";
  const size_t at = bytes.find(end);
  return at == std::string::npos ? std::string() : bytes.substr(0, at + end.size());
}

TEST(CApiPly, WritesAHeaderAndOneRecordOf31BytesPerParticleInUserOrder) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.2f, 0.2f, 0.2f}, hi[3] = {0.35f, 0.35f, 0.35f};  // 3^3 particles
  const float velocity[3] = {0.1f, 0.2f, -0.3f};
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, velocity, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_step(s.get(), kDt, 1), PBF_OK) << pbf_last_error();  // densities non-zero
  const std::vector<float> x = positions_of(s.get()), v = velocities_of(s.get()), rho = densities_of(s.get());
  ASSERT_EQ(rho.size(), 27u);

  const std::string path = temp_path("out") + ".ply";
  fs::remove(path);
  ASSERT_EQ(pbf_solver_write_ply(s.get(), path.c_str()), PBF_OK) << pbf_last_error();
  const std::string bytes = read_file(path);
  const std::string header = ply_header(bytes);
  ASSERT_FALSE(header.empty()) << "no end_header in " << path;
  EXPECT_EQ(header.rfind("ply\nformat binary_little_endian 1.0\n", 0), 0u) << header;
  EXPECT_NE(header.find("\nelement vertex 27\n"), std::string::npos) << header;
  EXPECT_NE(header.find("property float x\nproperty float y\nproperty float z\nproperty float vx\n"
                        "property float vy\nproperty float vz\nproperty float density\nproperty uchar red\n"
                        "property uchar green\nproperty uchar blue\nend_header\n"),
            std::string::npos)
      << header;
  ASSERT_EQ(bytes.size(), header.size() + 27 * 31);
  for (size_t i = 0; i < 27; ++i) {
    const size_t rec = header.size() + 31 * i;
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(load_le_float(bytes, rec + 4 * a), x[3 * i + a]) << "particle " << i;
      EXPECT_EQ(load_le_float(bytes, rec + 12 + 4 * a), v[3 * i + a]) << "particle " << i;
    }
    EXPECT_EQ(load_le_float(bytes, rec + 24), rho[i]) << "particle " << i;
  }
  EXPECT_FALSE(fs::exists(path + ".partial"));
  fs::remove(path);
}

// What ParaView's PLY reader shows of a particle is its colour: the speed on
// one scale for the solver, deep blue at rest, white from the free-fall speed
// over the domain's height on.
TEST(CApiPly, ColoursSpeedFromDeepBlueAtRestToWhiteAtTheDomainsFreeFallSpeed) {
  pbf_solver_desc d = small_desc();
  d.domain_min[0] = d.domain_min[1] = d.domain_min[2] = 0.0f;
  d.domain_max[0] = d.domain_max[2] = 1.0f;
  d.domain_max[1] = 2.0f;
  Solver s(d);
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  pbf_params p = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(s.get(), &p), PBF_OK) << pbf_last_error();
  p.gravity[0] = p.gravity[2] = 0.0f;
  p.gravity[1] = -4.0f;  // free fall over 2 m: sqrt(2 * 4 * 2) = 4 m/s
  ASSERT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.2f, 0.2f, 0.2f}, hi[3] = {0.35f, 0.25f, 0.25f};  // 3 particles
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  const float v[9] = {0.0f, 0.0f, 0.0f, 0.0f, -2.0f, 0.0f, 0.0f, 0.0f, 9.0f};  // at rest, half, above the scale
  ASSERT_EQ(pbf_solver_set_velocities(s.get(), v, 9), PBF_OK) << pbf_last_error();
  const std::string path = temp_path("colour") + ".ply";
  ASSERT_EQ(pbf_solver_write_ply(s.get(), path.c_str()), PBF_OK) << pbf_last_error();
  const std::string bytes = read_file(path);
  const std::string header = ply_header(bytes);
  EXPECT_NE(header.find("comment red green blue: speed, 0 (deep blue) to 4 m/s and above (white)\n"), std::string::npos)
      << header;
  ASSERT_EQ(bytes.size(), header.size() + 3 * 31);
  const unsigned char expected[3][3] = {{10, 41, 128}, {46, 168, 235}, {250, 252, 255}};
  for (size_t i = 0; i < 3; ++i)
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(static_cast<unsigned char>(bytes[header.size() + 31 * i + 28 + c]), expected[i][c])
          << "particle " << i << " channel " << c;
  fs::remove(path);
}

TEST(CApiPly, WritingOverAnExistingFileReplacesIt) {
  Solver s(small_desc());
  ASSERT_EQ(s.status(), PBF_OK) << pbf_last_error();
  const float lo[3] = {0.2f, 0.2f, 0.2f}, hi[3] = {0.35f, 0.35f, 0.35f};
  ASSERT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  const std::string path = temp_path("over") + ".ply";
  {
    // A longer unrelated file first: nothing of it may survive.
    std::ofstream old(path, std::ios::binary);
    old << std::string(10000, 'x');
  }
  ASSERT_EQ(pbf_solver_write_ply(s.get(), path.c_str()), PBF_OK) << pbf_last_error();
  std::string bytes = read_file(path);
  std::string header = ply_header(bytes);
  EXPECT_NE(header.find("\nelement vertex 27\n"), std::string::npos) << header;
  EXPECT_EQ(bytes.size(), header.size() + 27 * 31);

  std::vector<uint32_t> indices(19);
  for (uint32_t i = 0; i < 19; ++i) indices[i] = i;
  ASSERT_EQ(pbf_solver_remove_particles(s.get(), indices.data(), indices.size()), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_write_ply(s.get(), path.c_str()), PBF_OK) << pbf_last_error();
  bytes = read_file(path);
  header = ply_header(bytes);
  EXPECT_NE(header.find("\nelement vertex 8\n"), std::string::npos) << header;
  EXPECT_EQ(bytes.size(), header.size() + 8 * 31);

  ASSERT_EQ(pbf_solver_clear_particles(s.get()), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_write_ply(s.get(), path.c_str()), PBF_OK) << pbf_last_error();
  bytes = read_file(path);
  header = ply_header(bytes);
  EXPECT_NE(header.find("\nelement vertex 0\n"), std::string::npos) << header;
  EXPECT_EQ(bytes.size(), header.size());
  EXPECT_FALSE(fs::exists(path + ".partial"));
  fs::remove(path);
}

}  // namespace
