// struct_size across versions, seen only through <pbf/pbf.h>: a program
// compiled against the first layout of pbf_solver_desc, pbf_params and
// pbf_stats (pbf 0.1 before Projective Fluids appended fields to each), or
// the second of pbf_params (before PBF's density tolerance), passes its
// smaller structs. The library reads only the fields they hold, takes
// its defaults for the rest, writes no byte past their struct_size, and
// refuses every size that is not one of a struct's layouts, naming the
// argument and the sizes it knows.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capi/expect_refused.h"

namespace {

// The first layouts, field for field as pbf.h declared them then.
struct DescV1 {
  size_t struct_size;
  pbf_backend backend;
  int32_t device_index;
  uint32_t max_particles;
  float particle_spacing;
  float kernel_radius;
  float rest_density;
  float domain_min[3];
  float domain_max[3];
  int32_t thread_count;
  uint32_t max_neighbors;
};

struct ParamsV1 {
  size_t struct_size;
  float gravity[3];
  uint32_t iterations;
  float relaxation;
  int32_t unilateral;
  float artificial_pressure_k;
  float artificial_pressure_n;
  float artificial_pressure_dq;
  float xsph_viscosity;
  float vorticity_epsilon;
  float restitution;
  float friction;
  float max_speed;
};

// The second layout of pbf_params: the first and Projective Fluids' fields, with its tail padding.
struct ParamsV2 {
  ParamsV1 first;
  float projective_stiffness;
  uint32_t projective_iterations;
  float projective_tolerance;
  uint32_t cg_max_iterations;
  float cg_tolerance;
  uint32_t newton_iterations;
  float newton_tolerance;
  int32_t adaptive_dt;
  float cfl_number;
  float max_dt;
  float projective_chebyshev_rho;
};

struct StatsV1 {
  size_t struct_size;
  uint32_t particle_count;
  uint32_t substeps;
  uint32_t iterations;
  float avg_density_error;
  float max_density_error;
  float avg_neighbors;
  uint32_t max_neighbors;
  uint32_t neighbor_overflows;
  float max_speed;
  double time_total_ms;
  double time_predict_ms;
  double time_grid_ms;
  double time_neighbors_ms;
  double time_constraints_ms;
  double time_velocity_ms;
  double time_vorticity_viscosity_ms;
};

// Each first layout is a prefix of the current struct that ends where the first appended field begins.
static_assert(offsetof(DescV1, max_neighbors) == offsetof(pbf_solver_desc, max_neighbors), "desc prefix");
static_assert(sizeof(DescV1) == offsetof(pbf_solver_desc, method), "desc ends before method");
static_assert(offsetof(ParamsV1, max_speed) == offsetof(pbf_params, max_speed), "params prefix");
static_assert(sizeof(ParamsV1) == offsetof(pbf_params, projective_stiffness), "params ends before projective_stiffness");
static_assert(offsetof(ParamsV2, projective_chebyshev_rho) == offsetof(pbf_params, projective_chebyshev_rho),
              "params second prefix");
static_assert(sizeof(ParamsV2) == offsetof(pbf_params, density_tolerance), "params ends before density_tolerance");
static_assert(offsetof(StatsV1, time_vorticity_viscosity_ms) == offsetof(pbf_stats, time_vorticity_viscosity_ms),
              "stats prefix");
static_assert(sizeof(StatsV1) == offsetof(pbf_stats, local_global_iterations),
              "stats ends before local_global_iterations");

constexpr size_t kGuard = 32;
constexpr unsigned char kPoison = 0xA5;

// A caller's output struct of `size` bytes followed by kGuard guard bytes, all poisoned but struct_size.
struct GuardedOut {
  explicit GuardedOut(size_t size) : size(size), bytes(size + kGuard, kPoison) {
    std::memcpy(bytes.data(), &size, sizeof size);
  }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(bytes.data());
  }
  size_t struct_size() const {
    size_t s = 0;
    std::memcpy(&s, bytes.data(), sizeof s);
    return s;
  }
  bool guard_intact() const {
    for (size_t i = size; i < bytes.size(); ++i)
      if (bytes[i] != kPoison) return false;
    return true;
  }
  bool untouched_after_struct_size() const {
    for (size_t i = sizeof(size_t); i < bytes.size(); ++i)
      if (bytes[i] != kPoison) return false;
    return true;
  }
  size_t size;
  std::vector<unsigned char> bytes;
};

// A small CPU solver with a block of water that has taken one step.
class CApiStructSize : public ::testing::Test {
 protected:
  void SetUp() override {
    pbf_solver_desc d = pbf_solver_desc_default();
    d.backend = PBF_BACKEND_CPU;
    d.max_particles = 512;
    d.particle_spacing = 0.05f;
    d.thread_count = 1;
    ASSERT_EQ(pbf_solver_create(&d, &solver_), PBF_OK) << pbf_last_error();
    const float lo[3] = {0.1f, 0.1f, 0.1f}, hi[3] = {0.4f, 0.4f, 0.4f};
    ASSERT_EQ(pbf_solver_fill_box(solver_, lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
    ASSERT_EQ(pbf_solver_step(solver_, 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
  }
  void TearDown() override { pbf_solver_destroy(solver_); }

  pbf_solver* solver_ = nullptr;
};

// ---------------------------------------------------------------------------
// The first layouts are read and written
// ---------------------------------------------------------------------------

TEST(CApiStructSizeCreate, AFirstLayoutDescriptionCreatesASolverWithTheDefaultMethod) {
  // On the heap at its own size, so that the sanitizer build sees any read past it.
  auto v1 = std::make_unique<DescV1>();
  v1->struct_size = sizeof(DescV1);
  v1->backend = PBF_BACKEND_CPU;
  v1->device_index = 0;
  v1->max_particles = 777;
  v1->particle_spacing = 0.04f;
  v1->kernel_radius = 0.1f;
  v1->rest_density = 900.0f;
  for (int a = 0; a < 3; ++a) {
    v1->domain_min[a] = -0.5f;
    v1->domain_max[a] = 0.75f;
  }
  v1->thread_count = 1;
  v1->max_neighbors = 40;
  pbf_solver* s = nullptr;
  ASSERT_EQ(pbf_solver_create(reinterpret_cast<const pbf_solver_desc*>(v1.get()), &s), PBF_OK) << pbf_last_error();

  pbf_solver_desc out = pbf_solver_desc_default();
  ASSERT_EQ(pbf_solver_get_desc(s, &out), PBF_OK) << pbf_last_error();
  EXPECT_EQ(out.backend, PBF_BACKEND_CPU);
  EXPECT_EQ(out.max_particles, 777u);
  EXPECT_EQ(out.particle_spacing, 0.04f);
  EXPECT_EQ(out.kernel_radius, 0.1f);
  EXPECT_EQ(out.rest_density, 900.0f);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(out.domain_min[a], -0.5f);
    EXPECT_EQ(out.domain_max[a], 0.75f);
  }
  EXPECT_EQ(out.thread_count, 1);
  EXPECT_EQ(out.max_neighbors, 40u);
  EXPECT_EQ(out.method, pbf_solver_desc_default().method) << "a field the layout lacks takes its default";
  pbf_solver_destroy(s);
}

TEST_F(CApiStructSize, GetDescFillsAFirstLayoutAndWritesNoBytePastIt) {
  pbf_solver_desc full = pbf_solver_desc_default();
  ASSERT_EQ(pbf_solver_get_desc(solver_, &full), PBF_OK) << pbf_last_error();
  GuardedOut out(sizeof(DescV1));
  ASSERT_EQ(pbf_solver_get_desc(solver_, out.as<pbf_solver_desc>()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(out.struct_size(), sizeof(DescV1));
  EXPECT_EQ(std::memcmp(out.bytes.data() + sizeof(size_t), reinterpret_cast<const unsigned char*>(&full) + sizeof(size_t),
                        sizeof(DescV1) - sizeof(size_t)),
            0)
      << "every field of the first layout is the solver's";
  EXPECT_TRUE(out.guard_intact()) << "no byte past struct_size is written";
}

TEST_F(CApiStructSize, AFirstLayoutParamsSetItsFieldsAndTheDefaultsForTheRest) {
  // Projective Fluids fields away from their defaults first, so that the defaults are seen to return.
  pbf_params before = pbf_params_default();
  before.projective_stiffness = 5.0e5f;
  before.projective_iterations = 7;
  before.adaptive_dt = 0;
  before.max_dt = 0.002f;
  ASSERT_EQ(pbf_solver_set_params(solver_, &before), PBF_OK) << pbf_last_error();

  auto v1 = std::make_unique<ParamsV1>();
  v1->struct_size = sizeof(ParamsV1);
  v1->gravity[0] = 1.0f;
  v1->gravity[1] = -5.0f;
  v1->gravity[2] = 0.5f;
  v1->iterations = 3;
  v1->relaxation = 0.02f;
  v1->unilateral = 0;
  v1->artificial_pressure_k = 0.05f;
  v1->artificial_pressure_n = 3.0f;
  v1->artificial_pressure_dq = 0.25f;
  v1->xsph_viscosity = 0.03f;
  v1->vorticity_epsilon = 0.002f;
  v1->restitution = 0.1f;
  v1->friction = 0.2f;
  v1->max_speed = 50.0f;
  ASSERT_EQ(pbf_solver_set_params(solver_, reinterpret_cast<const pbf_params*>(v1.get())), PBF_OK)
      << pbf_last_error();

  pbf_params now = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(solver_, &now), PBF_OK) << pbf_last_error();
  EXPECT_EQ(std::memcmp(reinterpret_cast<const unsigned char*>(&now) + sizeof(size_t),
                        reinterpret_cast<const unsigned char*>(v1.get()) + sizeof(size_t),
                        sizeof(ParamsV1) - sizeof(size_t)),
            0)
      << "every field of the first layout is the caller's";
  const pbf_params d = pbf_params_default();
  EXPECT_EQ(now.projective_stiffness, d.projective_stiffness);
  EXPECT_EQ(now.projective_iterations, d.projective_iterations);
  EXPECT_EQ(now.projective_tolerance, d.projective_tolerance);
  EXPECT_EQ(now.cg_max_iterations, d.cg_max_iterations);
  EXPECT_EQ(now.cg_tolerance, d.cg_tolerance);
  EXPECT_EQ(now.newton_iterations, d.newton_iterations);
  EXPECT_EQ(now.newton_tolerance, d.newton_tolerance);
  EXPECT_EQ(now.adaptive_dt, d.adaptive_dt);
  EXPECT_EQ(now.cfl_number, d.cfl_number);
  EXPECT_EQ(now.max_dt, d.max_dt);
  EXPECT_EQ(now.projective_chebyshev_rho, d.projective_chebyshev_rho);
  EXPECT_EQ(pbf_solver_step(solver_, 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
}

TEST_F(CApiStructSize, GetParamsFillsAFirstLayoutAndWritesNoBytePastIt) {
  pbf_params full = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(solver_, &full), PBF_OK) << pbf_last_error();
  GuardedOut out(sizeof(ParamsV1));
  ASSERT_EQ(pbf_solver_get_params(solver_, out.as<pbf_params>()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(out.struct_size(), sizeof(ParamsV1));
  EXPECT_EQ(std::memcmp(out.bytes.data() + sizeof(size_t), reinterpret_cast<const unsigned char*>(&full) + sizeof(size_t),
                        sizeof(ParamsV1) - sizeof(size_t)),
            0)
      << "every field of the first layout is the solver's";
  EXPECT_TRUE(out.guard_intact()) << "no byte past struct_size is written";
}

TEST_F(CApiStructSize, ASecondLayoutParamsSetItsFieldsAndTheDefaultsForTheRest) {
  pbf_params before = pbf_params_default();
  before.density_tolerance = 0.05f;
  before.max_iterations = 3;
  ASSERT_EQ(pbf_solver_set_params(solver_, &before), PBF_OK) << pbf_last_error();

  // The caller's struct as a program built against the second layout leaves it: its tail padding undefined.
  std::vector<unsigned char> bytes(sizeof(ParamsV2), kPoison);
  pbf_params current = pbf_params_default();
  current.iterations = 5;
  current.projective_iterations = 9;
  current.projective_chebyshev_rho = 0.25f;
  std::memcpy(bytes.data(), &current, offsetof(ParamsV2, projective_chebyshev_rho) + sizeof(float));
  const size_t size = sizeof(ParamsV2);
  std::memcpy(bytes.data(), &size, sizeof size);
  ASSERT_EQ(pbf_solver_set_params(solver_, reinterpret_cast<const pbf_params*>(bytes.data())), PBF_OK)
      << pbf_last_error();

  pbf_params now = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(solver_, &now), PBF_OK) << pbf_last_error();
  EXPECT_EQ(now.iterations, 5u);
  EXPECT_EQ(now.projective_iterations, 9u);
  EXPECT_EQ(now.projective_chebyshev_rho, 0.25f) << "every field of the second layout is the caller's";
  const pbf_params d = pbf_params_default();
  EXPECT_EQ(now.density_tolerance, d.density_tolerance) << "the fields it lacks take their defaults";
  EXPECT_EQ(now.max_iterations, d.max_iterations);
  EXPECT_EQ(pbf_solver_step(solver_, 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
}

TEST_F(CApiStructSize, GetParamsFillsASecondLayoutAndWritesNoBytePastIt) {
  pbf_params full = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(solver_, &full), PBF_OK) << pbf_last_error();
  GuardedOut out(sizeof(ParamsV2));
  ASSERT_EQ(pbf_solver_get_params(solver_, out.as<pbf_params>()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(out.struct_size(), sizeof(ParamsV2));
  const size_t fields = offsetof(ParamsV2, projective_chebyshev_rho) + sizeof(float);
  EXPECT_EQ(std::memcmp(out.bytes.data() + sizeof(size_t), reinterpret_cast<const unsigned char*>(&full) + sizeof(size_t),
                        fields - sizeof(size_t)),
            0)
      << "every field of the second layout is the solver's";
  EXPECT_TRUE(out.guard_intact()) << "no byte past struct_size is written";
}

TEST_F(CApiStructSize, GetStatsFillsAFirstLayoutAndWritesNoBytePastIt) {
  GuardedOut current(sizeof(pbf_stats));
  ASSERT_EQ(pbf_solver_get_stats(solver_, current.as<pbf_stats>()), PBF_OK) << pbf_last_error();
  EXPECT_TRUE(current.guard_intact());
  pbf_stats full;
  std::memcpy(&full, current.bytes.data(), sizeof full);
  ASSERT_GT(full.particle_count, 0u);
  EXPECT_GT(full.max_substep_dt, 0.0f) << "the current layout is written whole";
  GuardedOut out(sizeof(StatsV1));
  ASSERT_EQ(pbf_solver_get_stats(solver_, out.as<pbf_stats>()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(out.struct_size(), sizeof(StatsV1));
  StatsV1 v1;
  std::memcpy(&v1, out.bytes.data(), sizeof v1);
  EXPECT_EQ(v1.particle_count, full.particle_count);
  EXPECT_EQ(v1.substeps, full.substeps);
  EXPECT_EQ(v1.iterations, full.iterations);
  EXPECT_EQ(v1.avg_density_error, full.avg_density_error);
  EXPECT_EQ(v1.max_neighbors, full.max_neighbors);
  EXPECT_EQ(v1.max_speed, full.max_speed);
  EXPECT_EQ(v1.time_total_ms, full.time_total_ms);
  EXPECT_EQ(v1.time_vorticity_viscosity_ms, full.time_vorticity_viscosity_ms);
  EXPECT_TRUE(out.guard_intact()) << "no byte past struct_size is written";
}

// ---------------------------------------------------------------------------
// Every other size is refused, and nothing is written
// ---------------------------------------------------------------------------

// Sizes no layout has: larger than the current, inside a field, a field boundary that ends no layout,
// smaller than the first layout.
template <class T>
std::vector<size_t> unknown_sizes(size_t first, size_t inside_a_field, size_t field_boundary) {
  return {0, 1, sizeof(size_t), first - 4, first + 4, inside_a_field, field_boundary,
          sizeof(T) + 8, sizeof(T) * 2, SIZE_MAX};
}

std::string known(size_t first, size_t current) {
  return "(" + std::to_string(first) + " or " + std::to_string(current) + ")";
}

std::string known(size_t first, size_t second, size_t current) {
  return "(" + std::to_string(first) + ", " + std::to_string(second) + " or " + std::to_string(current) + ")";
}

TEST(CApiStructSizeCreate, CreateRefusesEveryUnknownDescriptionSize) {
  const size_t first = offsetof(pbf_solver_desc, method);
  for (size_t size : unknown_sizes<pbf_solver_desc>(first, first + 2, first + sizeof(pbf_method))) {
    SCOPED_TRACE("struct_size " + std::to_string(size));
    pbf_solver_desc d = pbf_solver_desc_default();
    d.struct_size = size;
    pbf_solver* s = nullptr;
    pbf_test::expect_refused(pbf_solver_create(&d, &s), PBF_ERROR_VERSION_MISMATCH, "pbf_solver_create",
                             "desc->struct_size is " + std::to_string(size));
    EXPECT_NE(std::string(pbf_last_error()).find(known(first, sizeof(pbf_solver_desc))), std::string::npos)
        << "the message names the sizes accepted: " << pbf_last_error();
    EXPECT_EQ(s, nullptr);
  }
}

TEST_F(CApiStructSize, SetParamsRefusesEveryUnknownSizeAndKeepsItsParameters) {
  pbf_params before = pbf_params_default();
  before.iterations = 6;
  ASSERT_EQ(pbf_solver_set_params(solver_, &before), PBF_OK) << pbf_last_error();
  const size_t first = offsetof(pbf_params, projective_stiffness);
  for (size_t size : unknown_sizes<pbf_params>(first, first + 1, offsetof(pbf_params, projective_iterations))) {
    SCOPED_TRACE("struct_size " + std::to_string(size));
    pbf_params p = pbf_params_default();
    p.struct_size = size;
    p.iterations = 2;
    pbf_test::expect_refused(pbf_solver_set_params(solver_, &p), PBF_ERROR_VERSION_MISMATCH, "pbf_solver_set_params",
                             "params->struct_size is " + std::to_string(size));
    EXPECT_NE(std::string(pbf_last_error()).find(known(first, sizeof(ParamsV2), sizeof(pbf_params))),
              std::string::npos)
        << pbf_last_error();
    pbf_params now = pbf_params_default();
    ASSERT_EQ(pbf_solver_get_params(solver_, &now), PBF_OK);
    EXPECT_EQ(now.iterations, 6u);
  }
}

TEST_F(CApiStructSize, GettersRefuseEveryUnknownSizeAndWriteNothing) {
  const size_t desc1 = offsetof(pbf_solver_desc, method);
  const size_t params1 = offsetof(pbf_params, projective_stiffness);
  const size_t stats1 = offsetof(pbf_stats, local_global_iterations);
  // Output buffers are sized to the struct_size claimed (at most a few current structs), plus the guard.
  const auto bounded = [](std::vector<size_t> sizes) {
    std::vector<size_t> kept;
    for (size_t s : sizes)
      if (s <= 1024) kept.push_back(s);
    return kept;
  };
  for (size_t size : bounded(unknown_sizes<pbf_solver_desc>(desc1, desc1 + 2, desc1 + sizeof(pbf_method)))) {
    SCOPED_TRACE("pbf_solver_desc of " + std::to_string(size));
    GuardedOut out(size < sizeof(size_t) ? sizeof(size_t) : size);
    std::memcpy(out.bytes.data(), &size, sizeof size);
    pbf_test::expect_refused(pbf_solver_get_desc(solver_, out.as<pbf_solver_desc>()), PBF_ERROR_VERSION_MISMATCH,
                             "pbf_solver_get_desc", "out->struct_size is " + std::to_string(size));
    EXPECT_NE(std::string(pbf_last_error()).find(known(desc1, sizeof(pbf_solver_desc))), std::string::npos);
    EXPECT_EQ(out.struct_size(), size);
    EXPECT_TRUE(out.untouched_after_struct_size());
  }
  for (size_t size : bounded(unknown_sizes<pbf_params>(params1, params1 + 3, offsetof(pbf_params, cg_tolerance)))) {
    SCOPED_TRACE("pbf_params of " + std::to_string(size));
    GuardedOut out(size < sizeof(size_t) ? sizeof(size_t) : size);
    std::memcpy(out.bytes.data(), &size, sizeof size);
    pbf_test::expect_refused(pbf_solver_get_params(solver_, out.as<pbf_params>()), PBF_ERROR_VERSION_MISMATCH,
                             "pbf_solver_get_params", "out->struct_size is " + std::to_string(size));
    EXPECT_NE(std::string(pbf_last_error()).find(known(params1, sizeof(ParamsV2), sizeof(pbf_params))),
              std::string::npos);
    EXPECT_TRUE(out.untouched_after_struct_size());
  }
  for (size_t size :
       bounded(unknown_sizes<pbf_stats>(stats1, offsetof(pbf_stats, time_grid_ms) + 4, offsetof(pbf_stats, cg_residual)))) {
    SCOPED_TRACE("pbf_stats of " + std::to_string(size));
    GuardedOut out(size < sizeof(size_t) ? sizeof(size_t) : size);
    std::memcpy(out.bytes.data(), &size, sizeof size);
    pbf_test::expect_refused(pbf_solver_get_stats(solver_, out.as<pbf_stats>()), PBF_ERROR_VERSION_MISMATCH,
                             "pbf_solver_get_stats", "out->struct_size is " + std::to_string(size));
    EXPECT_NE(std::string(pbf_last_error()).find(known(stats1, sizeof(pbf_stats))), std::string::npos);
    EXPECT_TRUE(out.untouched_after_struct_size());
  }
}

}  // namespace
