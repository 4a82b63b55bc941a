// Every error path of the C API, seen only through <pbf/pbf.h>: each failing
// call must return the documented status, leave a message in pbf_last_error()
// that names the function and the argument, and change nothing the caller
// holds - after it the solver has the same particles, values and parameters
// as before and still steps.
#include <gtest/gtest.h>
#include <pbf/pbf.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kDt = 1.0f / 60.0f;

// A small solver: 0.05 m spacing in the default unit box, room for 64 particles.
pbf_solver_desc small_desc() {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.max_particles = 64;
  d.particle_spacing = 0.05f;
  return d;
}

// Valid parameters that differ from the defaults in every field, so that a
// failed pbf_solver_set_params() visibly keeps them.
pbf_params custom_params() {
  pbf_params p = pbf_params_default();
  p.gravity[0] = 0.5f;
  p.gravity[1] = -9.0f;
  p.gravity[2] = 0.25f;
  p.iterations = 3;
  p.relaxation = 0.02f;
  p.unilateral = 0;
  p.artificial_pressure_k = 0.05f;
  p.artificial_pressure_n = 3.0f;
  p.artificial_pressure_dq = 0.25f;
  p.xsph_viscosity = 0.02f;
  p.vorticity_epsilon = 0.005f;
  p.restitution = 0.1f;
  p.friction = 0.2f;
  p.max_speed = 50.0f;
  p.projective_stiffness = 2.0e5f;
  p.projective_iterations = 12;
  p.cg_tolerance = 1e-3f;
  p.adaptive_dt = 0;
  p.max_dt = 0.005f;
  p.density_tolerance = 0.004f;
  p.max_iterations = 9;
  return p;
}

// Writes an int into an enum field byte for byte, as a C caller may.
template <class Enum>
void store_enum(Enum& field, int value) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized here");
  std::memcpy(&field, &value, sizeof value);
}

std::string unique_name(const char* what) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("pbf_capi_errors_") + what + "_" + std::to_string(::getpid());
  if (info != nullptr) name += std::string("_") + info->name();
  for (char& c : name)
    if (c == '/') c = '_';
  return name;
}

// Leaves a known message from a function other than `function` in
// pbf_last_error(), so that a check of the next message cannot pass on a stale one.
void prime_last_error(const std::string& function) {
  if (function == "pbf_solver_particle_count") {
    ASSERT_EQ(pbf_solver_clear_planes(nullptr), PBF_ERROR_NULL_POINTER);
    ASSERT_NE(std::string(pbf_last_error()).find("pbf_solver_clear_planes"), std::string::npos);
  } else {
    ASSERT_EQ(pbf_solver_particle_count(nullptr, nullptr), PBF_ERROR_NULL_POINTER);
    ASSERT_NE(std::string(pbf_last_error()).find("pbf_solver_particle_count"), std::string::npos);
  }
}

// Runs `call`, which must fail with `status`, and checks that the message
// names `function` and contains `argument`.
template <class Call>
void expect_failure(Call&& call, pbf_status status, const std::string& function, const std::string& argument) {
  prime_last_error(function);
  const pbf_status got = call();
  const std::string message = pbf_last_error();
  EXPECT_EQ(got, status) << "got " << pbf_status_string(got) << ", message: " << message;
  EXPECT_NE(message.find(function), std::string::npos) << "message does not name " << function << ": " << message;
  EXPECT_NE(message.find(argument), std::string::npos) << "message does not name " << argument << ": " << message;
}

#define EXPECT_PBF_FAILURE(call, status, function, argument)            \
  do {                                                                  \
    SCOPED_TRACE(#call);                                                \
    expect_failure([&] { return (call); }, status, function, argument); \
  } while (0)

std::vector<float> read_field(const pbf_solver* s, pbf_status (*get)(const pbf_solver*, float*, size_t),
                              size_t per_particle) {
  size_t n = 0;
  EXPECT_EQ(pbf_solver_particle_count(s, &n), PBF_OK) << pbf_last_error();
  std::vector<float> v(per_particle * n);
  EXPECT_EQ(get(s, v.data(), v.size()), PBF_OK) << pbf_last_error();
  return v;
}

void expect_params_equal(const pbf_params& a, const pbf_params& b) {
  EXPECT_EQ(a.struct_size, b.struct_size);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(a.gravity[k], b.gravity[k]) << "gravity[" << k << "]";
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.relaxation, b.relaxation);
  EXPECT_EQ(a.unilateral, b.unilateral);
  EXPECT_EQ(a.artificial_pressure_k, b.artificial_pressure_k);
  EXPECT_EQ(a.artificial_pressure_n, b.artificial_pressure_n);
  EXPECT_EQ(a.artificial_pressure_dq, b.artificial_pressure_dq);
  EXPECT_EQ(a.xsph_viscosity, b.xsph_viscosity);
  EXPECT_EQ(a.vorticity_epsilon, b.vorticity_epsilon);
  EXPECT_EQ(a.restitution, b.restitution);
  EXPECT_EQ(a.friction, b.friction);
  EXPECT_EQ(a.max_speed, b.max_speed);
  EXPECT_EQ(a.projective_stiffness, b.projective_stiffness);
  EXPECT_EQ(a.projective_iterations, b.projective_iterations);
  EXPECT_EQ(a.projective_tolerance, b.projective_tolerance);
  EXPECT_EQ(a.cg_max_iterations, b.cg_max_iterations);
  EXPECT_EQ(a.cg_tolerance, b.cg_tolerance);
  EXPECT_EQ(a.newton_iterations, b.newton_iterations);
  EXPECT_EQ(a.newton_tolerance, b.newton_tolerance);
  EXPECT_EQ(a.adaptive_dt, b.adaptive_dt);
  EXPECT_EQ(a.cfl_number, b.cfl_number);
  EXPECT_EQ(a.max_dt, b.max_dt);
  EXPECT_EQ(a.projective_chebyshev_rho, b.projective_chebyshev_rho);
  EXPECT_EQ(a.density_tolerance, b.density_tolerance);
  EXPECT_EQ(a.max_iterations, b.max_iterations);
}

void expect_desc_equal(const pbf_solver_desc& a, const pbf_solver_desc& b) {
  EXPECT_EQ(a.struct_size, b.struct_size);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.device_index, b.device_index);
  EXPECT_EQ(a.max_particles, b.max_particles);
  EXPECT_EQ(a.particle_spacing, b.particle_spacing);
  EXPECT_EQ(a.kernel_radius, b.kernel_radius);
  EXPECT_EQ(a.rest_density, b.rest_density);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(a.domain_min[k], b.domain_min[k]);
    EXPECT_EQ(a.domain_max[k], b.domain_max[k]);
  }
  EXPECT_EQ(a.thread_count, b.thread_count);
  EXPECT_EQ(a.max_neighbors, b.max_neighbors);
  EXPECT_EQ(a.method, b.method);
}

void expect_stats_equal(const pbf_stats& a, const pbf_stats& b) {
  EXPECT_EQ(a.particle_count, b.particle_count);
  EXPECT_EQ(a.substeps, b.substeps);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.avg_density_error, b.avg_density_error);
  EXPECT_EQ(a.max_density_error, b.max_density_error);
  EXPECT_EQ(a.avg_neighbors, b.avg_neighbors);
  EXPECT_EQ(a.max_neighbors, b.max_neighbors);
  EXPECT_EQ(a.neighbor_overflows, b.neighbor_overflows);
  EXPECT_EQ(a.max_speed, b.max_speed);
  EXPECT_EQ(a.time_total_ms, b.time_total_ms);
  EXPECT_EQ(a.time_predict_ms, b.time_predict_ms);
  EXPECT_EQ(a.time_grid_ms, b.time_grid_ms);
  EXPECT_EQ(a.time_neighbors_ms, b.time_neighbors_ms);
  EXPECT_EQ(a.time_constraints_ms, b.time_constraints_ms);
  EXPECT_EQ(a.time_velocity_ms, b.time_velocity_ms);
  EXPECT_EQ(a.time_vorticity_viscosity_ms, b.time_vorticity_viscosity_ms);
}

// Everything a user can observe of a solver.
struct Snapshot {
  size_t count = 0;
  std::vector<float> positions, velocities, densities;
  pbf_params params = pbf_params_default();
  pbf_solver_desc desc = pbf_solver_desc_default();
  pbf_stats stats = pbf_stats_default();
};

Snapshot capture(const pbf_solver* s) {
  Snapshot snap;
  EXPECT_EQ(pbf_solver_particle_count(s, &snap.count), PBF_OK) << pbf_last_error();
  snap.positions = read_field(s, pbf_solver_get_positions, 3);
  snap.velocities = read_field(s, pbf_solver_get_velocities, 3);
  snap.densities = read_field(s, pbf_solver_get_densities, 1);
  EXPECT_EQ(pbf_solver_get_params(s, &snap.params), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_get_desc(s, &snap.desc), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_get_stats(s, &snap.stats), PBF_OK) << pbf_last_error();
  return snap;
}

void expect_same(const Snapshot& before, const Snapshot& now) {
  EXPECT_EQ(now.count, before.count) << "particle count changed";
  EXPECT_EQ(now.positions, before.positions) << "positions changed";
  EXPECT_EQ(now.velocities, before.velocities) << "velocities changed";
  EXPECT_EQ(now.densities, before.densities) << "densities changed";
  {
    SCOPED_TRACE("params");
    expect_params_equal(now.params, before.params);
  }
  {
    SCOPED_TRACE("desc");
    expect_desc_equal(now.desc, before.desc);
  }
  {
    SCOPED_TRACE("stats");
    expect_stats_equal(now.stats, before.stats);
  }
}

// Owns a small solver holding eight particles with distinct positions and
// velocities, custom parameters and one step behind it (so densities and
// stats are set and the solver has reordered its particles internally).
template <class Base>
class WithSolver : public Base {
 protected:
  static constexpr size_t kParticles = 8;

  void SetUp() override {
    desc_ = small_desc();
    ASSERT_EQ(pbf_solver_create(&desc_, &solver_), PBF_OK) << pbf_last_error();
    params_ = custom_params();
    ASSERT_EQ(pbf_solver_set_params(solver_, &params_), PBF_OK) << pbf_last_error();
    std::vector<float> x, v;
    for (size_t i = 0; i < kParticles; ++i) {
      // Reverse x order, so the neighbour grid's sort reorders them.
      x.insert(x.end(), {0.85f - 0.1f * i, 0.5f + 0.03f * i, 0.5f - 0.02f * i});
      v.insert(v.end(), {0.1f * i, -0.05f * i, 0.02f * i + 0.01f});
    }
    ASSERT_EQ(pbf_solver_add_particles(solver_, x.data(), v.data(), kParticles), PBF_OK) << pbf_last_error();
    ASSERT_EQ(pbf_solver_step(solver_, kDt, 1), PBF_OK) << pbf_last_error();
    before_ = capture(solver_);
    ASSERT_EQ(before_.count, kParticles);
  }

  void TearDown() override { EXPECT_EQ(pbf_solver_destroy(solver_), PBF_OK); }

  // After a failed call: nothing observable changed, and the solver still steps.
  void expect_untouched_and_steppable() {
    {
      SCOPED_TRACE("solver state after the failed call");
      expect_same(before_, capture(solver_));
    }
    EXPECT_EQ(pbf_solver_step(solver_, kDt, 1), PBF_OK) << pbf_last_error();
    size_t n = 0;
    EXPECT_EQ(pbf_solver_particle_count(solver_, &n), PBF_OK);
    EXPECT_EQ(n, before_.count);
  }

  pbf_solver_desc desc_{};
  pbf_params params_{};
  pbf_solver* solver_ = nullptr;
  Snapshot before_;
};

class CApiErrors : public WithSolver<::testing::Test> {};

// A pointer value that is not NULL, to see pbf_solver_create() overwrite it.
pbf_solver* not_null_solver() {
  static int dummy;
  return reinterpret_cast<pbf_solver*>(&dummy);
}

// ---------------------------------------------------------------------------
// Status strings, backend names, destroy(NULL)
// ---------------------------------------------------------------------------

TEST(CApiStatus, StatusStringNamesEveryStatus) {
  EXPECT_STREQ(pbf_status_string(PBF_OK), "PBF_OK");
  EXPECT_STREQ(pbf_status_string(PBF_ERROR_INVALID_ARGUMENT), "PBF_ERROR_INVALID_ARGUMENT");
  EXPECT_STREQ(pbf_status_string(PBF_ERROR_NULL_POINTER), "PBF_ERROR_NULL_POINTER");
  EXPECT_STREQ(pbf_status_string(PBF_ERROR_BUFFER_TOO_SMALL), "PBF_ERROR_BUFFER_TOO_SMALL");
  EXPECT_STREQ(pbf_status_string(PBF_ERROR_CAPACITY_EXCEEDED), "PBF_ERROR_CAPACITY_EXCEEDED");
  EXPECT_STREQ(pbf_status_string(PBF_ERROR_BACKEND_UNAVAILABLE), "PBF_ERROR_BACKEND_UNAVAILABLE");
  EXPECT_STREQ(pbf_status_string(PBF_ERROR_OUT_OF_MEMORY), "PBF_ERROR_OUT_OF_MEMORY");
  EXPECT_STREQ(pbf_status_string(PBF_ERROR_VERSION_MISMATCH), "PBF_ERROR_VERSION_MISMATCH");
  EXPECT_STREQ(pbf_status_string(PBF_ERROR_IO), "PBF_ERROR_IO");
  EXPECT_STREQ(pbf_status_string(PBF_ERROR_INTERNAL), "PBF_ERROR_INTERNAL");
  EXPECT_STREQ(pbf_status_string(PBF_ERROR_BUSY), "PBF_ERROR_BUSY");
}

TEST(CApiStatus, StatusStringCallsAnUnknownValueUnknownStatus) {
  EXPECT_STREQ(pbf_status_string(static_cast<pbf_status>(11)), "unknown status");
  EXPECT_STREQ(pbf_status_string(static_cast<pbf_status>(15)), "unknown status");
}

TEST(CApiStatus, StatusStringCallsAnOutOfRangeValueUnknownStatus) {
  // Values a C caller may pass: any int fits a C enum.
  EXPECT_STREQ(pbf_status_string(static_cast<pbf_status>(42)), "unknown status");
  EXPECT_STREQ(pbf_status_string(static_cast<pbf_status>(-1)), "unknown status");
}

TEST(CApiStatus, BackendNameNamesEveryBackend) {
  EXPECT_STREQ(pbf_backend_name(PBF_BACKEND_AUTO), "auto");
  EXPECT_STREQ(pbf_backend_name(PBF_BACKEND_CPU), "cpu");
  EXPECT_STREQ(pbf_backend_name(PBF_BACKEND_CUDA), "cuda");
}

TEST(CApiStatus, BackendNameCallsAnInvalidValueUnknown) {
  EXPECT_STREQ(pbf_backend_name(static_cast<pbf_backend>(3)), "unknown");
  EXPECT_STREQ(pbf_backend_name(static_cast<pbf_backend>(7)), "unknown");
  EXPECT_STREQ(pbf_backend_name(static_cast<pbf_backend>(-1)), "unknown");
}

TEST(CApiDestroy, AcceptsNull) { EXPECT_EQ(pbf_solver_destroy(nullptr), PBF_OK); }

// ---------------------------------------------------------------------------
// The thread-local last error
// ---------------------------------------------------------------------------

TEST(CApiLastError, IsEmptyOnAThreadWhereNothingFailed) {
  std::string seen = "not run";
  bool was_null = true;
  std::thread t([&] {
    const char* m = pbf_last_error();
    was_null = m == nullptr;
    if (m) seen = m;
  });
  t.join();
  EXPECT_FALSE(was_null);
  EXPECT_EQ(seen, "");
}

TEST(CApiLastError, IsNotChangedByAFailureOnAnotherThread) {
  ASSERT_EQ(pbf_solver_step(nullptr, kDt, 1), PBF_ERROR_NULL_POINTER);
  const std::string mine = pbf_last_error();
  ASSERT_NE(mine.find("pbf_solver_step"), std::string::npos) << mine;

  std::string theirs;
  pbf_status their_status = PBF_OK;
  std::thread t([&] {
    their_status = pbf_backend_available(PBF_BACKEND_CPU, nullptr);
    theirs = pbf_last_error();
  });
  t.join();

  EXPECT_EQ(their_status, PBF_ERROR_NULL_POINTER);
  EXPECT_NE(theirs.find("pbf_backend_available"), std::string::npos) << theirs;
  EXPECT_EQ(std::string(pbf_last_error()), mine);
}

// ---------------------------------------------------------------------------
// Backends
// ---------------------------------------------------------------------------

bool cuda_available() {
  int available = 0;
  EXPECT_EQ(pbf_backend_available(PBF_BACKEND_CUDA, &available), PBF_OK) << pbf_last_error();
  return available != 0;
}

TEST(CApiBackends, CudaAvailabilityIsZeroOrOne) {
  int available = 7;
  ASSERT_EQ(pbf_backend_available(PBF_BACKEND_CUDA, &available), PBF_OK) << pbf_last_error();
  EXPECT_TRUE(available == 0 || available == 1) << available;
}

TEST(CApiBackends, CreateRefusesCudaWithBackendUnavailableWhereThereIsNone) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is usable here; the refusal cannot be seen";
  pbf_solver_desc d = small_desc();
  d.backend = PBF_BACKEND_CUDA;
  pbf_solver* s = not_null_solver();
  EXPECT_PBF_FAILURE(pbf_solver_create(&d, &s), PBF_ERROR_BACKEND_UNAVAILABLE, "pbf_solver_create", "backend");
  EXPECT_NE(std::string(pbf_last_error()).find("CUDA"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(s, nullptr);
}

TEST(CApiBackends, CreateRefusesACudaDeviceIndexBeyondTheDevices) {
  pbf_solver_desc d = small_desc();
  d.backend = PBF_BACKEND_CUDA;
  d.device_index = 1000;
  pbf_solver* s = not_null_solver();
  EXPECT_PBF_FAILURE(pbf_solver_create(&d, &s), PBF_ERROR_BACKEND_UNAVAILABLE, "pbf_solver_create", "backend");
  EXPECT_EQ(s, nullptr);
}

TEST(CApiBackends, AutoPicksCudaExactlyWhenItIsAvailable) {
  pbf_solver_desc d = small_desc();
  d.backend = PBF_BACKEND_AUTO;
  pbf_solver* s = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &s), PBF_OK) << pbf_last_error();
  pbf_solver_desc got = pbf_solver_desc_default();
  ASSERT_EQ(pbf_solver_get_desc(s, &got), PBF_OK);
  EXPECT_EQ(got.backend, cuda_available() ? PBF_BACKEND_CUDA : PBF_BACKEND_CPU);
  EXPECT_EQ(pbf_solver_destroy(s), PBF_OK);
}

TEST(CApiBackends, AvailableRefusesAnUnnamedValueInsideTheEnumRange) {
  int available = 42;
  EXPECT_PBF_FAILURE(pbf_backend_available(static_cast<pbf_backend>(3), &available), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_backend_available", "backend");
  EXPECT_NE(std::string(pbf_last_error()).find("3"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(available, 42) << "the result was written on failure";
}

TEST(CApiBackends, AvailableRefusesAValueBeyondTheEnumRange) {
  for (int value : {7, -1}) {
    SCOPED_TRACE(value);
    int available = 42;
    EXPECT_PBF_FAILURE(pbf_backend_available(static_cast<pbf_backend>(value), &available), PBF_ERROR_INVALID_ARGUMENT,
                       "pbf_backend_available", "backend");
    EXPECT_NE(std::string(pbf_last_error()).find(std::to_string(value)), std::string::npos) << pbf_last_error();
    EXPECT_EQ(available, 42) << "the result was written on failure";
  }
}

TEST(CApiBackends, AvailableRefusesANullResult) {
  EXPECT_PBF_FAILURE(pbf_backend_available(PBF_BACKEND_CPU, nullptr), PBF_ERROR_NULL_POINTER, "pbf_backend_available",
                     "available");
}

// ---------------------------------------------------------------------------
// pbf_solver_create: NULL arguments and every field of pbf_solver_desc
// ---------------------------------------------------------------------------

TEST(CApiCreate, RefusesANullDescAndSetsOutSolverToNull) {
  pbf_solver* s = not_null_solver();
  EXPECT_PBF_FAILURE(pbf_solver_create(nullptr, &s), PBF_ERROR_NULL_POINTER, "pbf_solver_create", "desc");
  EXPECT_EQ(s, nullptr);
}

TEST(CApiCreate, RefusesANullOutSolver) {
  const pbf_solver_desc d = small_desc();
  EXPECT_PBF_FAILURE(pbf_solver_create(&d, nullptr), PBF_ERROR_NULL_POINTER, "pbf_solver_create", "out_solver");
}

struct DescCase {
  const char* name;
  void (*mutate)(pbf_solver_desc&);
  pbf_status status;
  const char* names;  // what the message must contain
};

void PrintTo(const DescCase& c, std::ostream* os) { *os << c.name; }

class CApiCreateDesc : public ::testing::TestWithParam<DescCase> {};

TEST_P(CApiCreateDesc, RefusesTheFieldAndSetsOutSolverToNull) {
  const DescCase& c = GetParam();
  pbf_solver_desc d = small_desc();
  c.mutate(d);
  pbf_solver* s = not_null_solver();
  EXPECT_PBF_FAILURE(pbf_solver_create(&d, &s), c.status, "pbf_solver_create", c.names);
  EXPECT_EQ(s, nullptr);
  if (s != nullptr && s != not_null_solver()) pbf_solver_destroy(s);
}

const DescCase kDescCases[] = {
    {"struct_size_zero", [](pbf_solver_desc& d) { d.struct_size = 0; }, PBF_ERROR_VERSION_MISMATCH, "struct_size"},
    {"method_2", [](pbf_solver_desc& d) { d.method = static_cast<pbf_method>(2); }, PBF_ERROR_INVALID_ARGUMENT,
     "method"},
    {"method_minus_1", [](pbf_solver_desc& d) { d.method = static_cast<pbf_method>(-1); }, PBF_ERROR_INVALID_ARGUMENT,
     "method"},
    {"struct_size_larger", [](pbf_solver_desc& d) { d.struct_size = sizeof(pbf_solver_desc) + 8; },
     PBF_ERROR_VERSION_MISMATCH, "struct_size"},
    {"struct_size_smaller", [](pbf_solver_desc& d) { d.struct_size = sizeof(pbf_solver_desc) - 4; },
     PBF_ERROR_VERSION_MISMATCH, "struct_size"},
    {"backend_3", [](pbf_solver_desc& d) { store_enum(d.backend, 3); }, PBF_ERROR_INVALID_ARGUMENT, "backend"},
    {"device_index_minus_1", [](pbf_solver_desc& d) { d.device_index = -1; }, PBF_ERROR_INVALID_ARGUMENT,
     "device_index"},
    {"max_particles_zero", [](pbf_solver_desc& d) { d.max_particles = 0; }, PBF_ERROR_INVALID_ARGUMENT,
     "max_particles"},
    {"max_particles_above_2_pow_28", [](pbf_solver_desc& d) { d.max_particles = (1u << 28) + 1; },
     PBF_ERROR_INVALID_ARGUMENT, "max_particles"},
    {"max_particles_uint32_max", [](pbf_solver_desc& d) { d.max_particles = UINT32_MAX; }, PBF_ERROR_INVALID_ARGUMENT,
     "max_particles"},
    {"particle_spacing_zero", [](pbf_solver_desc& d) { d.particle_spacing = 0.0f; }, PBF_ERROR_INVALID_ARGUMENT,
     "particle_spacing"},
    {"particle_spacing_negative", [](pbf_solver_desc& d) { d.particle_spacing = -0.05f; }, PBF_ERROR_INVALID_ARGUMENT,
     "particle_spacing"},
    {"particle_spacing_nan", [](pbf_solver_desc& d) { d.particle_spacing = kNaN; }, PBF_ERROR_INVALID_ARGUMENT,
     "particle_spacing"},
    {"particle_spacing_inf", [](pbf_solver_desc& d) { d.particle_spacing = kInf; }, PBF_ERROR_INVALID_ARGUMENT,
     "particle_spacing"},
    // Larger than the domain: no particle fits (the message may blame the domain).
    {"particle_spacing_absurd", [](pbf_solver_desc& d) { d.particle_spacing = 1e30f; }, PBF_ERROR_INVALID_ARGUMENT,
     "spacing"},
    // Poly6's 1/h^9 and the particle mass leave float range beyond 1e-4 .. 1e3 m.
    {"particle_spacing_below_1e_4", [](pbf_solver_desc& d) { d.particle_spacing = 1e-5f; },
     PBF_ERROR_INVALID_ARGUMENT, "particle_spacing must be in [0.0001, 1000]"},
    {"particle_spacing_above_1e3", [](pbf_solver_desc& d) { d.particle_spacing = 1e5f; }, PBF_ERROR_INVALID_ARGUMENT,
     "particle_spacing must be in [0.0001, 1000]"},
    {"kernel_radius_nan", [](pbf_solver_desc& d) { d.kernel_radius = kNaN; }, PBF_ERROR_INVALID_ARGUMENT,
     "kernel_radius"},
    {"kernel_radius_inf", [](pbf_solver_desc& d) { d.kernel_radius = kInf; }, PBF_ERROR_INVALID_ARGUMENT,
     "kernel_radius"},
    {"kernel_radius_negative", [](pbf_solver_desc& d) { d.kernel_radius = -0.1f; }, PBF_ERROR_INVALID_ARGUMENT,
     "kernel_radius"},
    {"kernel_radius_below_spacing", [](pbf_solver_desc& d) { d.kernel_radius = 0.04f; }, PBF_ERROR_INVALID_ARGUMENT,
     "kernel_radius"},
    {"kernel_radius_above_five_spacings", [](pbf_solver_desc& d) { d.kernel_radius = 0.26f; },
     PBF_ERROR_INVALID_ARGUMENT, "kernel_radius"},
    {"rest_density_zero", [](pbf_solver_desc& d) { d.rest_density = 0.0f; }, PBF_ERROR_INVALID_ARGUMENT,
     "rest_density"},
    {"rest_density_negative", [](pbf_solver_desc& d) { d.rest_density = -1000.0f; }, PBF_ERROR_INVALID_ARGUMENT,
     "rest_density"},
    {"rest_density_nan", [](pbf_solver_desc& d) { d.rest_density = kNaN; }, PBF_ERROR_INVALID_ARGUMENT, "rest_density"},
    {"rest_density_inf", [](pbf_solver_desc& d) { d.rest_density = kInf; }, PBF_ERROR_INVALID_ARGUMENT, "rest_density"},
    // The particle mass overflowed and stepping gave NaN.
    {"rest_density_flt_max", [](pbf_solver_desc& d) { d.rest_density = 3.4e38f; }, PBF_ERROR_INVALID_ARGUMENT,
     "rest_density must be in [0.001, 100000]"},
    {"rest_density_below_1e_3", [](pbf_solver_desc& d) { d.rest_density = 1e-4f; }, PBF_ERROR_INVALID_ARGUMENT,
     "rest_density must be in [0.001, 100000]"},
    {"domain_min_x_nan", [](pbf_solver_desc& d) { d.domain_min[0] = kNaN; }, PBF_ERROR_INVALID_ARGUMENT,
     "domain_min[0]"},
    {"domain_min_y_minus_inf", [](pbf_solver_desc& d) { d.domain_min[1] = -kInf; }, PBF_ERROR_INVALID_ARGUMENT,
     "domain_min[1]"},
    {"domain_max_z_nan", [](pbf_solver_desc& d) { d.domain_max[2] = kNaN; }, PBF_ERROR_INVALID_ARGUMENT,
     "domain_max[2]"},
    {"domain_max_x_inf", [](pbf_solver_desc& d) { d.domain_max[0] = kInf; }, PBF_ERROR_INVALID_ARGUMENT,
     "domain_max[0]"},
    {"domain_max_y_equal_to_min", [](pbf_solver_desc& d) { d.domain_max[1] = d.domain_min[1]; },
     PBF_ERROR_INVALID_ARGUMENT, "domain_max[1]"},
    {"domain_max_z_below_min", [](pbf_solver_desc& d) { d.domain_max[2] = -1.0f; }, PBF_ERROR_INVALID_ARGUMENT,
     "domain_max[2]"},
    // 10^7 kernel-radius cells per axis: no grid can hold it.
    {"domain_absurdly_large", [](pbf_solver_desc& d) { d.domain_max[0] = d.domain_max[1] = d.domain_max[2] = 1e6f; },
     PBF_ERROR_INVALID_ARGUMENT, "domain_max"},
    {"thread_count_minus_1", [](pbf_solver_desc& d) { d.thread_count = -1; }, PBF_ERROR_INVALID_ARGUMENT,
     "thread_count"},
    {"thread_count_1025", [](pbf_solver_desc& d) { d.thread_count = 1025; }, PBF_ERROR_INVALID_ARGUMENT,
     "thread_count"},
    {"thread_count_int32_min", [](pbf_solver_desc& d) { d.thread_count = INT32_MIN; }, PBF_ERROR_INVALID_ARGUMENT,
     "thread_count"},
    {"max_neighbors_7", [](pbf_solver_desc& d) { d.max_neighbors = 7; }, PBF_ERROR_INVALID_ARGUMENT, "max_neighbors"},
    {"max_neighbors_1025", [](pbf_solver_desc& d) { d.max_neighbors = 1025; }, PBF_ERROR_INVALID_ARGUMENT,
     "max_neighbors"},
    // 2^28 particles x 1024 neighbours x 4 bytes = 1 TiB of neighbour lists.
    {"max_particles_times_max_neighbors_absurd",
     [](pbf_solver_desc& d) {
       d.max_particles = 1u << 28;
       d.max_neighbors = 1024;
     },
     PBF_ERROR_INVALID_ARGUMENT, "max_neighbors"},
};

INSTANTIATE_TEST_SUITE_P(EveryField, CApiCreateDesc, ::testing::ValuesIn(kDescCases),
                         [](const ::testing::TestParamInfo<DescCase>& info) { return std::string(info.param.name); });

TEST(CApiCreate, RefusesABackendValueBeyondTheEnumRange) {
  for (int value : {7, -1}) {
    SCOPED_TRACE(value);
    pbf_solver_desc d = small_desc();
    store_enum(d.backend, value);
    pbf_solver* s = not_null_solver();
    EXPECT_PBF_FAILURE(pbf_solver_create(&d, &s), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_create", "backend");
    EXPECT_EQ(s, nullptr);
  }
}

// Boundaries the header documents as valid.

TEST(CApiCreate, AcceptsKernelRadiusOfFiveSpacings) {
  pbf_solver_desc d = small_desc();
  d.kernel_radius = 0.25f;
  pbf_solver* s = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &s), PBF_OK) << pbf_last_error();
  pbf_solver_desc got = pbf_solver_desc_default();
  EXPECT_EQ(pbf_solver_get_desc(s, &got), PBF_OK);
  EXPECT_EQ(got.kernel_radius, 0.25f);
  EXPECT_EQ(pbf_solver_destroy(s), PBF_OK);
}

TEST(CApiCreate, RefusesKernelRadiusEqualToSpacing) {
  // The header asks for a kernel radius greater than the spacing: at h = s a
  // particle has no neighbours on the rest lattice and the density is its own.
  pbf_solver_desc d = small_desc();
  d.kernel_radius = d.particle_spacing;
  pbf_solver* s = not_null_solver();
  EXPECT_PBF_FAILURE(pbf_solver_create(&d, &s), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_create", "kernel_radius");
  EXPECT_EQ(s, nullptr);
}

TEST(CApiCreate, AcceptsKernelRadiusJustAboveSpacing) {
  pbf_solver_desc d = small_desc();
  d.kernel_radius = 1.01f * d.particle_spacing;
  pbf_solver* s = nullptr;
  EXPECT_EQ(pbf_solver_create(&d, &s), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_destroy(s), PBF_OK);
}

TEST(CApiCreate, RefusesADomainNarrowerThanTwoSpacings) {
  pbf_solver_desc d = small_desc();
  d.domain_max[1] = d.domain_min[1] + 1.5f * d.particle_spacing;
  pbf_solver* s = not_null_solver();
  EXPECT_PBF_FAILURE(pbf_solver_create(&d, &s), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_create", "domain_max[1]");
  EXPECT_EQ(s, nullptr);
}

TEST(CApiCreate, AcceptsADomainOfExactlyTwoSpacings) {
  pbf_solver_desc d = small_desc();
  d.domain_max[1] = d.domain_min[1] + 2.0f * d.particle_spacing;
  pbf_solver* s = nullptr;
  EXPECT_EQ(pbf_solver_create(&d, &s), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_destroy(s), PBF_OK);
}

TEST(CApiCreate, AcceptsTheLargestDocumentedCapacity) {
  pbf_solver_desc d = small_desc();
  d.max_particles = 1u << 28;
  d.max_neighbors = 8;  // 2^28 x 8 x 4 bytes = 8 GiB of neighbour lists at most, reserved lazily
  pbf_solver* s = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &s), PBF_OK) << pbf_last_error();
  pbf_solver_desc got = pbf_solver_desc_default();
  EXPECT_EQ(pbf_solver_get_desc(s, &got), PBF_OK);
  EXPECT_EQ(got.max_particles, 1u << 28);
  EXPECT_EQ(pbf_solver_destroy(s), PBF_OK);
}

// ---------------------------------------------------------------------------
// A NULL solver, for every function that takes one
// ---------------------------------------------------------------------------

struct NullSolverCase {
  const char* function;
  pbf_status (*call)();
};

void PrintTo(const NullSolverCase& c, std::ostream* os) { *os << c.function; }

const float kInside[3] = {0.5f, 0.5f, 0.5f};
const float kLo[3] = {0.1f, 0.1f, 0.1f};
const float kHi[3] = {0.2f, 0.2f, 0.2f};
const float kUp[3] = {0.0f, 1.0f, 0.0f};

const NullSolverCase kNullSolverCases[] = {
    {"pbf_solver_get_desc",
     [] {
       pbf_solver_desc d = pbf_solver_desc_default();
       return pbf_solver_get_desc(nullptr, &d);
     }},
    {"pbf_solver_get_particle_mass",
     [] {
       float m = 0;
       return pbf_solver_get_particle_mass(nullptr, &m);
     }},
    {"pbf_solver_get_params",
     [] {
       pbf_params p = pbf_params_default();
       return pbf_solver_get_params(nullptr, &p);
     }},
    {"pbf_solver_set_params",
     [] {
       const pbf_params p = pbf_params_default();
       return pbf_solver_set_params(nullptr, &p);
     }},
    {"pbf_solver_particle_count",
     [] {
       size_t n = 0;
       return pbf_solver_particle_count(nullptr, &n);
     }},
    {"pbf_solver_add_particles", [] { return pbf_solver_add_particles(nullptr, kInside, nullptr, 1); }},
    {"pbf_solver_fill_box", [] { return pbf_solver_fill_box(nullptr, kLo, kHi, nullptr, nullptr); }},
    {"pbf_solver_remove_particles",
     [] {
       const uint32_t index = 0;
       return pbf_solver_remove_particles(nullptr, &index, 1);
     }},
    {"pbf_solver_clear_particles", [] { return pbf_solver_clear_particles(nullptr); }},
    {"pbf_solver_get_positions",
     [] {
       float out[3];
       return pbf_solver_get_positions(nullptr, out, 3);
     }},
    {"pbf_solver_get_velocities",
     [] {
       float out[3];
       return pbf_solver_get_velocities(nullptr, out, 3);
     }},
    {"pbf_solver_get_densities",
     [] {
       float out[1];
       return pbf_solver_get_densities(nullptr, out, 1);
     }},
    {"pbf_solver_set_positions", [] { return pbf_solver_set_positions(nullptr, kInside, 3); }},
    {"pbf_solver_set_velocities", [] { return pbf_solver_set_velocities(nullptr, kInside, 3); }},
    {"pbf_solver_add_plane",
     [] {
       uint32_t index = 0;
       return pbf_solver_add_plane(nullptr, kUp, 0.0f, &index);
     }},
    {"pbf_solver_clear_planes", [] { return pbf_solver_clear_planes(nullptr); }},
    {"pbf_solver_step", [] { return pbf_solver_step(nullptr, kDt, 1); }},
    {"pbf_solver_get_stats",
     [] {
       pbf_stats st = pbf_stats_default();
       return pbf_solver_get_stats(nullptr, &st);
     }},
    {"pbf_solver_write_ply",
     [] {
       const std::string path = ::testing::TempDir() + unique_name("null_solver") + ".ply";
       return pbf_solver_write_ply(nullptr, path.c_str());
     }},
};

class CApiNullSolver : public ::testing::TestWithParam<NullSolverCase> {};

TEST_P(CApiNullSolver, IsRefusedWithNullPointer) {
  const NullSolverCase& c = GetParam();
  EXPECT_PBF_FAILURE(c.call(), PBF_ERROR_NULL_POINTER, c.function, "solver");
}

INSTANTIATE_TEST_SUITE_P(EveryFunction, CApiNullSolver, ::testing::ValuesIn(kNullSolverCases),
                         [](const ::testing::TestParamInfo<NullSolverCase>& info) {
                           return std::string(info.param.function);
                         });

// ---------------------------------------------------------------------------
// NULL input and output pointers on a live solver
// ---------------------------------------------------------------------------

struct NullArgumentCase {
  const char* name;
  const char* function;
  const char* argument;
  pbf_status (*call)(pbf_solver*);
};

void PrintTo(const NullArgumentCase& c, std::ostream* os) { *os << c.name; }

const NullArgumentCase kNullArgumentCases[] = {
    {"get_desc_out", "pbf_solver_get_desc", "out", [](pbf_solver* s) { return pbf_solver_get_desc(s, nullptr); }},
    {"get_particle_mass_out", "pbf_solver_get_particle_mass", "out_mass",
     [](pbf_solver* s) { return pbf_solver_get_particle_mass(s, nullptr); }},
    {"get_params_out", "pbf_solver_get_params", "out", [](pbf_solver* s) { return pbf_solver_get_params(s, nullptr); }},
    {"set_params_params", "pbf_solver_set_params", "params",
     [](pbf_solver* s) { return pbf_solver_set_params(s, nullptr); }},
    {"particle_count_out", "pbf_solver_particle_count", "out_count",
     [](pbf_solver* s) { return pbf_solver_particle_count(s, nullptr); }},
    {"add_particles_positions", "pbf_solver_add_particles", "positions",
     [](pbf_solver* s) { return pbf_solver_add_particles(s, nullptr, kInside, 1); }},
    {"fill_box_lo", "pbf_solver_fill_box", "lo",
     [](pbf_solver* s) { return pbf_solver_fill_box(s, nullptr, kHi, nullptr, nullptr); }},
    {"fill_box_hi", "pbf_solver_fill_box", "hi",
     [](pbf_solver* s) { return pbf_solver_fill_box(s, kLo, nullptr, nullptr, nullptr); }},
    {"remove_particles_indices", "pbf_solver_remove_particles", "indices",
     [](pbf_solver* s) { return pbf_solver_remove_particles(s, nullptr, 1); }},
    {"get_positions_out", "pbf_solver_get_positions", "out",
     [](pbf_solver* s) { return pbf_solver_get_positions(s, nullptr, 1000); }},
    {"get_velocities_out", "pbf_solver_get_velocities", "out",
     [](pbf_solver* s) { return pbf_solver_get_velocities(s, nullptr, 1000); }},
    {"get_densities_out", "pbf_solver_get_densities", "out",
     [](pbf_solver* s) { return pbf_solver_get_densities(s, nullptr, 1000); }},
    {"set_positions_positions", "pbf_solver_set_positions", "positions",
     [](pbf_solver* s) { return pbf_solver_set_positions(s, nullptr, 3 * 8); }},
    {"set_velocities_velocities", "pbf_solver_set_velocities", "velocities",
     [](pbf_solver* s) { return pbf_solver_set_velocities(s, nullptr, 3 * 8); }},
    {"add_plane_normal", "pbf_solver_add_plane", "normal",
     [](pbf_solver* s) { return pbf_solver_add_plane(s, nullptr, 0.0f, nullptr); }},
    {"get_stats_out", "pbf_solver_get_stats", "out", [](pbf_solver* s) { return pbf_solver_get_stats(s, nullptr); }},
    {"write_ply_path", "pbf_solver_write_ply", "path", [](pbf_solver* s) { return pbf_solver_write_ply(s, nullptr); }},
};

class CApiNullArgument : public WithSolver<::testing::TestWithParam<NullArgumentCase>> {};

TEST_P(CApiNullArgument, IsRefusedAndTheSolverIsUntouched) {
  const NullArgumentCase& c = GetParam();
  ASSERT_EQ(before_.count, 8u);  // the set_* cases pass 3 * 8 floats
  EXPECT_PBF_FAILURE(c.call(solver_), PBF_ERROR_NULL_POINTER, c.function, c.argument);
  expect_untouched_and_steppable();
}

INSTANTIATE_TEST_SUITE_P(EveryPointer, CApiNullArgument, ::testing::ValuesIn(kNullArgumentCases),
                         [](const ::testing::TestParamInfo<NullArgumentCase>& info) {
                           return std::string(info.param.name);
                         });

// ---------------------------------------------------------------------------
// pbf_solver_set_params: every field
// ---------------------------------------------------------------------------

struct ParamsCase {
  const char* name;
  void (*mutate)(pbf_params&);
  pbf_status status;
  const char* field;
};

void PrintTo(const ParamsCase& c, std::ostream* os) { *os << c.name; }

class CApiSetParams : public WithSolver<::testing::TestWithParam<ParamsCase>> {};

TEST_P(CApiSetParams, RefusesTheFieldAndKeepsThePreviousParams) {
  const ParamsCase& c = GetParam();
  pbf_params p = custom_params();
  p.iterations = 5;  // valid on its own: a partly applied call would show it
  p.gravity[1] = -3.0f;
  c.mutate(p);
  EXPECT_PBF_FAILURE(pbf_solver_set_params(solver_, &p), c.status, "pbf_solver_set_params", c.field);
  pbf_params now = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(solver_, &now), PBF_OK);
  expect_params_equal(now, params_);
  expect_untouched_and_steppable();
}

const ParamsCase kParamsCases[] = {
    {"struct_size_zero", [](pbf_params& p) { p.struct_size = 0; }, PBF_ERROR_VERSION_MISMATCH, "struct_size"},
    {"projective_stiffness_zero", [](pbf_params& p) { p.projective_stiffness = 0.0f; }, PBF_ERROR_INVALID_ARGUMENT,
     "projective_stiffness"},
    {"projective_stiffness_nan", [](pbf_params& p) { p.projective_stiffness = kNaN; }, PBF_ERROR_INVALID_ARGUMENT,
     "projective_stiffness"},
    {"projective_stiffness_2e9", [](pbf_params& p) { p.projective_stiffness = 2e9f; }, PBF_ERROR_INVALID_ARGUMENT,
     "projective_stiffness"},
    {"projective_iterations_zero", [](pbf_params& p) { p.projective_iterations = 0; }, PBF_ERROR_INVALID_ARGUMENT,
     "projective_iterations"},
    {"projective_iterations_1001", [](pbf_params& p) { p.projective_iterations = 1001; }, PBF_ERROR_INVALID_ARGUMENT,
     "projective_iterations"},
    {"projective_tolerance_negative", [](pbf_params& p) { p.projective_tolerance = -1e-3f; },
     PBF_ERROR_INVALID_ARGUMENT, "projective_tolerance"},
    {"cg_max_iterations_zero", [](pbf_params& p) { p.cg_max_iterations = 0; }, PBF_ERROR_INVALID_ARGUMENT,
     "cg_max_iterations"},
    {"cg_tolerance_zero", [](pbf_params& p) { p.cg_tolerance = 0.0f; }, PBF_ERROR_INVALID_ARGUMENT, "cg_tolerance"},
    {"cg_tolerance_inf", [](pbf_params& p) { p.cg_tolerance = kInf; }, PBF_ERROR_INVALID_ARGUMENT, "cg_tolerance"},
    {"newton_iterations_101", [](pbf_params& p) { p.newton_iterations = 101; }, PBF_ERROR_INVALID_ARGUMENT,
     "newton_iterations"},
    {"newton_tolerance_nan", [](pbf_params& p) { p.newton_tolerance = kNaN; }, PBF_ERROR_INVALID_ARGUMENT,
     "newton_tolerance"},
    {"adaptive_dt_2", [](pbf_params& p) { p.adaptive_dt = 2; }, PBF_ERROR_INVALID_ARGUMENT, "adaptive_dt"},
    {"cfl_number_zero", [](pbf_params& p) { p.cfl_number = 0.0f; }, PBF_ERROR_INVALID_ARGUMENT, "cfl_number"},
    {"cfl_number_above_1", [](pbf_params& p) { p.cfl_number = 1.5f; }, PBF_ERROR_INVALID_ARGUMENT, "cfl_number"},
    {"max_dt_zero", [](pbf_params& p) { p.max_dt = 0.0f; }, PBF_ERROR_INVALID_ARGUMENT, "max_dt"},
    {"max_dt_2", [](pbf_params& p) { p.max_dt = 2.0f; }, PBF_ERROR_INVALID_ARGUMENT, "max_dt"},
    {"chebyshev_rho_1", [](pbf_params& p) { p.projective_chebyshev_rho = 1.0f; }, PBF_ERROR_INVALID_ARGUMENT,
     "projective_chebyshev_rho"},
    {"chebyshev_rho_0_99", [](pbf_params& p) { p.projective_chebyshev_rho = 0.99f; }, PBF_ERROR_INVALID_ARGUMENT,
     "projective_chebyshev_rho must be in [0, 0.98]"},
    {"density_tolerance_negative", [](pbf_params& p) { p.density_tolerance = -0.01f; }, PBF_ERROR_INVALID_ARGUMENT,
     "density_tolerance"},
    {"density_tolerance_above_1", [](pbf_params& p) { p.density_tolerance = 1.5f; }, PBF_ERROR_INVALID_ARGUMENT,
     "density_tolerance"},
    {"density_tolerance_nan", [](pbf_params& p) { p.density_tolerance = kNaN; }, PBF_ERROR_INVALID_ARGUMENT,
     "density_tolerance"},
    {"max_iterations_zero", [](pbf_params& p) { p.max_iterations = 0; }, PBF_ERROR_INVALID_ARGUMENT,
     "max_iterations"},
    {"max_iterations_1001", [](pbf_params& p) { p.max_iterations = 1001; }, PBF_ERROR_INVALID_ARGUMENT,
     "max_iterations"},
    {"struct_size_larger", [](pbf_params& p) { p.struct_size = sizeof(pbf_params) + 8; }, PBF_ERROR_VERSION_MISMATCH,
     "struct_size"},
    {"gravity_x_nan", [](pbf_params& p) { p.gravity[0] = kNaN; }, PBF_ERROR_INVALID_ARGUMENT, "gravity[0]"},
    {"gravity_y_inf", [](pbf_params& p) { p.gravity[1] = kInf; }, PBF_ERROR_INVALID_ARGUMENT, "gravity[1]"},
    {"gravity_z_minus_inf", [](pbf_params& p) { p.gravity[2] = -kInf; }, PBF_ERROR_INVALID_ARGUMENT, "gravity[2]"},
    {"iterations_zero", [](pbf_params& p) { p.iterations = 0; }, PBF_ERROR_INVALID_ARGUMENT, "iterations"},
    {"iterations_101", [](pbf_params& p) { p.iterations = 101; }, PBF_ERROR_INVALID_ARGUMENT, "iterations"},
    {"iterations_uint32_max", [](pbf_params& p) { p.iterations = UINT32_MAX; }, PBF_ERROR_INVALID_ARGUMENT,
     "iterations"},
    {"relaxation_negative", [](pbf_params& p) { p.relaxation = -0.01f; }, PBF_ERROR_INVALID_ARGUMENT, "relaxation"},
    {"relaxation_above_100", [](pbf_params& p) { p.relaxation = 100.5f; }, PBF_ERROR_INVALID_ARGUMENT, "relaxation"},
    {"relaxation_nan", [](pbf_params& p) { p.relaxation = kNaN; }, PBF_ERROR_INVALID_ARGUMENT, "relaxation"},
    {"unilateral_2", [](pbf_params& p) { p.unilateral = 2; }, PBF_ERROR_INVALID_ARGUMENT, "unilateral"},
    {"unilateral_minus_1", [](pbf_params& p) { p.unilateral = -1; }, PBF_ERROR_INVALID_ARGUMENT, "unilateral"},
    {"artificial_pressure_k_negative", [](pbf_params& p) { p.artificial_pressure_k = -0.1f; },
     PBF_ERROR_INVALID_ARGUMENT, "artificial_pressure_k"},
    {"artificial_pressure_k_above_1", [](pbf_params& p) { p.artificial_pressure_k = 1.5f; }, PBF_ERROR_INVALID_ARGUMENT,
     "artificial_pressure_k"},
    {"artificial_pressure_k_nan", [](pbf_params& p) { p.artificial_pressure_k = kNaN; }, PBF_ERROR_INVALID_ARGUMENT,
     "artificial_pressure_k"},
    {"artificial_pressure_n_below_1", [](pbf_params& p) { p.artificial_pressure_n = 0.5f; }, PBF_ERROR_INVALID_ARGUMENT,
     "artificial_pressure_n"},
    {"artificial_pressure_n_above_8", [](pbf_params& p) { p.artificial_pressure_n = 9.0f; }, PBF_ERROR_INVALID_ARGUMENT,
     "artificial_pressure_n"},
    {"artificial_pressure_n_inf", [](pbf_params& p) { p.artificial_pressure_n = kInf; }, PBF_ERROR_INVALID_ARGUMENT,
     "artificial_pressure_n"},
    {"artificial_pressure_dq_negative", [](pbf_params& p) { p.artificial_pressure_dq = -0.1f; },
     PBF_ERROR_INVALID_ARGUMENT, "artificial_pressure_dq"},
    {"artificial_pressure_dq_above_0_9", [](pbf_params& p) { p.artificial_pressure_dq = 0.95f; },
     PBF_ERROR_INVALID_ARGUMENT, "artificial_pressure_dq"},
    {"artificial_pressure_dq_nan", [](pbf_params& p) { p.artificial_pressure_dq = kNaN; }, PBF_ERROR_INVALID_ARGUMENT,
     "artificial_pressure_dq"},
    {"xsph_viscosity_negative", [](pbf_params& p) { p.xsph_viscosity = -0.1f; }, PBF_ERROR_INVALID_ARGUMENT,
     "xsph_viscosity"},
    {"xsph_viscosity_above_1", [](pbf_params& p) { p.xsph_viscosity = 1.1f; }, PBF_ERROR_INVALID_ARGUMENT,
     "xsph_viscosity"},
    {"xsph_viscosity_nan", [](pbf_params& p) { p.xsph_viscosity = kNaN; }, PBF_ERROR_INVALID_ARGUMENT,
     "xsph_viscosity"},
    {"vorticity_epsilon_negative", [](pbf_params& p) { p.vorticity_epsilon = -1.0f; }, PBF_ERROR_INVALID_ARGUMENT,
     "vorticity_epsilon"},
    {"vorticity_epsilon_above_10", [](pbf_params& p) { p.vorticity_epsilon = 11.0f; }, PBF_ERROR_INVALID_ARGUMENT,
     "vorticity_epsilon"},
    {"vorticity_epsilon_inf", [](pbf_params& p) { p.vorticity_epsilon = kInf; }, PBF_ERROR_INVALID_ARGUMENT,
     "vorticity_epsilon"},
    {"restitution_negative", [](pbf_params& p) { p.restitution = -0.1f; }, PBF_ERROR_INVALID_ARGUMENT, "restitution"},
    {"restitution_above_1", [](pbf_params& p) { p.restitution = 1.1f; }, PBF_ERROR_INVALID_ARGUMENT, "restitution"},
    {"restitution_nan", [](pbf_params& p) { p.restitution = kNaN; }, PBF_ERROR_INVALID_ARGUMENT, "restitution"},
    {"friction_negative", [](pbf_params& p) { p.friction = -1.0f; }, PBF_ERROR_INVALID_ARGUMENT, "friction"},
    {"friction_above_10", [](pbf_params& p) { p.friction = 11.0f; }, PBF_ERROR_INVALID_ARGUMENT, "friction"},
    {"friction_nan", [](pbf_params& p) { p.friction = kNaN; }, PBF_ERROR_INVALID_ARGUMENT, "friction"},
    {"max_speed_zero", [](pbf_params& p) { p.max_speed = 0.0f; }, PBF_ERROR_INVALID_ARGUMENT, "max_speed"},
    {"max_speed_negative", [](pbf_params& p) { p.max_speed = -1.0f; }, PBF_ERROR_INVALID_ARGUMENT, "max_speed"},
    {"max_speed_nan", [](pbf_params& p) { p.max_speed = kNaN; }, PBF_ERROR_INVALID_ARGUMENT, "max_speed"},
    {"max_speed_inf", [](pbf_params& p) { p.max_speed = kInf; }, PBF_ERROR_INVALID_ARGUMENT, "max_speed"},
    // Its square overflowed, so it never clamped.
    {"max_speed_flt_max", [](pbf_params& p) { p.max_speed = 3.4e38f; }, PBF_ERROR_INVALID_ARGUMENT,
     "max_speed must be at most 3e+08"},
    // gravity x dt overflowed.
    {"gravity_y_flt_max", [](pbf_params& p) { p.gravity[1] = -3.4e38f; }, PBF_ERROR_INVALID_ARGUMENT,
     "gravity[1] must be in [-1e+06, 1e+06]"},
};

INSTANTIATE_TEST_SUITE_P(EveryField, CApiSetParams, ::testing::ValuesIn(kParamsCases),
                         [](const ::testing::TestParamInfo<ParamsCase>& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------
// struct_size of output structs
// ---------------------------------------------------------------------------

TEST_F(CApiErrors, GetParamsRefusesAWrongStructSizeAndWritesNothing) {
  pbf_params out = pbf_params_default();
  out.struct_size = sizeof(pbf_params) + 4;
  out.iterations = 77;
  EXPECT_PBF_FAILURE(pbf_solver_get_params(solver_, &out), PBF_ERROR_VERSION_MISMATCH, "pbf_solver_get_params",
                     "struct_size");
  EXPECT_EQ(out.struct_size, sizeof(pbf_params) + 4);
  EXPECT_EQ(out.iterations, 77u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, GetDescRefusesAWrongStructSizeAndWritesNothing) {
  pbf_solver_desc out = pbf_solver_desc_default();
  out.struct_size = 0;
  out.max_particles = 12345;
  EXPECT_PBF_FAILURE(pbf_solver_get_desc(solver_, &out), PBF_ERROR_VERSION_MISMATCH, "pbf_solver_get_desc",
                     "struct_size");
  EXPECT_EQ(out.struct_size, 0u);
  EXPECT_EQ(out.max_particles, 12345u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, GetStatsRefusesAWrongStructSizeAndWritesNothing) {
  pbf_stats out = pbf_stats_default();
  out.struct_size = sizeof(pbf_stats) - 8;
  out.particle_count = 999;
  EXPECT_PBF_FAILURE(pbf_solver_get_stats(solver_, &out), PBF_ERROR_VERSION_MISMATCH, "pbf_solver_get_stats",
                     "struct_size");
  EXPECT_EQ(out.struct_size, sizeof(pbf_stats) - 8);
  EXPECT_EQ(out.particle_count, 999u);
  expect_untouched_and_steppable();
}

// ---------------------------------------------------------------------------
// Short and wrong-length buffers
// ---------------------------------------------------------------------------

TEST_F(CApiErrors, GetPositionsRefusesABufferOneFloatShortAndWritesNothing) {
  std::vector<float> out(3 * kParticles - 1, -7.0f);
  EXPECT_PBF_FAILURE(pbf_solver_get_positions(solver_, out.data(), out.size()), PBF_ERROR_BUFFER_TOO_SMALL,
                     "pbf_solver_get_positions", "capacity");
  EXPECT_EQ(out, std::vector<float>(3 * kParticles - 1, -7.0f));
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, GetPositionsRefusesAZeroCapacity) {
  float out[1] = {-7.0f};
  EXPECT_PBF_FAILURE(pbf_solver_get_positions(solver_, out, 0), PBF_ERROR_BUFFER_TOO_SMALL, "pbf_solver_get_positions",
                     "capacity");
  EXPECT_EQ(out[0], -7.0f);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, GetVelocitiesRefusesABufferOneFloatShortAndWritesNothing) {
  std::vector<float> out(3 * kParticles - 1, -7.0f);
  EXPECT_PBF_FAILURE(pbf_solver_get_velocities(solver_, out.data(), out.size()), PBF_ERROR_BUFFER_TOO_SMALL,
                     "pbf_solver_get_velocities", "capacity");
  EXPECT_EQ(out, std::vector<float>(3 * kParticles - 1, -7.0f));
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, GetDensitiesRefusesABufferOneFloatShortAndWritesNothing) {
  std::vector<float> out(kParticles - 1, -7.0f);
  EXPECT_PBF_FAILURE(pbf_solver_get_densities(solver_, out.data(), out.size()), PBF_ERROR_BUFFER_TOO_SMALL,
                     "pbf_solver_get_densities", "capacity");
  EXPECT_EQ(out, std::vector<float>(kParticles - 1, -7.0f));
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, SetPositionsRefusesALengthOneFloatShort) {
  std::vector<float> in = before_.positions;
  for (float& f : in) f = 0.5f;
  EXPECT_PBF_FAILURE(pbf_solver_set_positions(solver_, in.data(), in.size() - 1), PBF_ERROR_BUFFER_TOO_SMALL,
                     "pbf_solver_set_positions", "length");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, SetPositionsRefusesALengthOneParticleLong) {
  std::vector<float> in(3 * kParticles + 3, 0.5f);
  EXPECT_PBF_FAILURE(pbf_solver_set_positions(solver_, in.data(), in.size()), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_set_positions", "length");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, SetVelocitiesRefusesALengthOneFloatShort) {
  std::vector<float> in(3 * kParticles, 1.0f);
  EXPECT_PBF_FAILURE(pbf_solver_set_velocities(solver_, in.data(), in.size() - 1), PBF_ERROR_BUFFER_TOO_SMALL,
                     "pbf_solver_set_velocities", "length");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, SetVelocitiesRefusesALengthOneParticleLong) {
  std::vector<float> in(3 * kParticles + 3, 1.0f);
  EXPECT_PBF_FAILURE(pbf_solver_set_velocities(solver_, in.data(), in.size()), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_set_velocities", "length");
  expect_untouched_and_steppable();
}

// ---------------------------------------------------------------------------
// Values of set_positions / set_velocities: all or nothing
// ---------------------------------------------------------------------------

TEST_F(CApiErrors, SetPositionsRefusesNaNInTheLastParticleAndChangesNone) {
  std::vector<float> in(3 * kParticles, 0.5f);
  in.back() = kNaN;
  EXPECT_PBF_FAILURE(pbf_solver_set_positions(solver_, in.data(), in.size()), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_set_positions", "positions");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, SetPositionsRefusesAPositionOutsideTheDomainAndChangesNone) {
  std::vector<float> in(3 * kParticles, 0.5f);
  in[3 * 5 + 1] = 1.01f;  // particle 5 above domain_max
  EXPECT_PBF_FAILURE(pbf_solver_set_positions(solver_, in.data(), in.size()), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_set_positions", "positions");
  EXPECT_NE(std::string(pbf_last_error()).find("particle 5"), std::string::npos) << pbf_last_error();
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, SetPositionsRefusesANegativePositionAndChangesNone) {
  std::vector<float> in(3 * kParticles, 0.5f);
  in[0] = -0.01f;
  EXPECT_PBF_FAILURE(pbf_solver_set_positions(solver_, in.data(), in.size()), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_set_positions", "positions");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, SetVelocitiesRefusesInfinityAndChangesNone) {
  std::vector<float> in(3 * kParticles, 1.0f);
  in[3 * 6 + 2] = -kInf;
  EXPECT_PBF_FAILURE(pbf_solver_set_velocities(solver_, in.data(), in.size()), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_set_velocities", "velocities");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, SetVelocitiesRefusesNaNAndChangesNone) {
  std::vector<float> in(3 * kParticles, 1.0f);
  in[4] = kNaN;
  EXPECT_PBF_FAILURE(pbf_solver_set_velocities(solver_, in.data(), in.size()), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_set_velocities", "velocities");
  expect_untouched_and_steppable();
}

// ---------------------------------------------------------------------------
// pbf_solver_add_particles
// ---------------------------------------------------------------------------

TEST_F(CApiErrors, AddParticlesRefusesNaNPositionAndAddsNothing) {
  const float x[9] = {0.3f, 0.3f, 0.3f, 0.4f, 0.4f, 0.4f, 0.5f, kNaN, 0.5f};
  EXPECT_PBF_FAILURE(pbf_solver_add_particles(solver_, x, nullptr, 3), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_add_particles", "positions");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddParticlesRefusesInfinitePositionAndAddsNothing) {
  const float x[3] = {kInf, 0.5f, 0.5f};
  EXPECT_PBF_FAILURE(pbf_solver_add_particles(solver_, x, nullptr, 1), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_add_particles", "positions");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddParticlesRefusesAPositionAboveTheDomainAndAddsNothing) {
  const float x[6] = {0.3f, 0.3f, 0.3f, 0.5f, 0.5f, 1.5f};
  EXPECT_PBF_FAILURE(pbf_solver_add_particles(solver_, x, nullptr, 2), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_add_particles", "positions");
  EXPECT_NE(std::string(pbf_last_error()).find("outside the domain"), std::string::npos) << pbf_last_error();
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddParticlesRefusesANegativePositionBelowTheDomainAndAddsNothing) {
  const float x[3] = {0.5f, -0.2f, 0.5f};
  EXPECT_PBF_FAILURE(pbf_solver_add_particles(solver_, x, nullptr, 1), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_add_particles", "positions");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddParticlesRefusesNaNVelocityAndAddsNothing) {
  const float x[6] = {0.3f, 0.3f, 0.3f, 0.4f, 0.4f, 0.4f};
  const float v[6] = {0.0f, 0.0f, 0.0f, 0.0f, kNaN, 0.0f};
  EXPECT_PBF_FAILURE(pbf_solver_add_particles(solver_, x, v, 2), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_add_particles",
                     "velocities");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddParticlesRefusesInfiniteVelocityAndAddsNothing) {
  const float x[3] = {0.3f, 0.3f, 0.3f};
  const float v[3] = {-kInf, 0.0f, 0.0f};
  EXPECT_PBF_FAILURE(pbf_solver_add_particles(solver_, x, v, 1), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_add_particles",
                     "velocities");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddParticlesRefusesExceedingTheCapacityByOneAndAddsNothing) {
  const size_t room = 64 - kParticles;
  std::vector<float> x(3 * (room + 1), 0.5f);
  EXPECT_PBF_FAILURE(pbf_solver_add_particles(solver_, x.data(), nullptr, room + 1), PBF_ERROR_CAPACITY_EXCEEDED,
                     "pbf_solver_add_particles", "count");
  EXPECT_NE(std::string(pbf_last_error()).find("max_particles"), std::string::npos) << pbf_last_error();
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddParticlesRefusesAnAbsurdCountWithoutReadingTheArrays) {
  const float x[3] = {0.5f, 0.5f, 0.5f};
  EXPECT_PBF_FAILURE(pbf_solver_add_particles(solver_, x, nullptr, SIZE_MAX), PBF_ERROR_CAPACITY_EXCEEDED,
                     "pbf_solver_add_particles", "count");
  EXPECT_PBF_FAILURE(pbf_solver_add_particles(solver_, x, nullptr, SIZE_MAX / 3 + 1), PBF_ERROR_CAPACITY_EXCEEDED,
                     "pbf_solver_add_particles", "count");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddParticlesAcceptsExactlyTheRemainingCapacity) {
  const size_t room = 64 - kParticles;
  std::vector<float> x(3 * room, 0.5f);
  EXPECT_EQ(pbf_solver_add_particles(solver_, x.data(), nullptr, room), PBF_OK) << pbf_last_error();
  size_t n = 0;
  EXPECT_EQ(pbf_solver_particle_count(solver_, &n), PBF_OK);
  EXPECT_EQ(n, 64u);
  const float one[3] = {0.5f, 0.5f, 0.5f};
  EXPECT_PBF_FAILURE(pbf_solver_add_particles(solver_, one, nullptr, 1), PBF_ERROR_CAPACITY_EXCEEDED,
                     "pbf_solver_add_particles", "count");
}

TEST_F(CApiErrors, AddParticlesWithZeroCountIsANoOpEvenWithNullArrays) {
  EXPECT_EQ(pbf_solver_add_particles(solver_, nullptr, nullptr, 0), PBF_OK) << pbf_last_error();
  expect_untouched_and_steppable();
}

// ---------------------------------------------------------------------------
// pbf_solver_fill_box
// ---------------------------------------------------------------------------

TEST_F(CApiErrors, FillBoxRefusesNaNInLoAndAddsNothing) {
  const float lo[3] = {0.1f, kNaN, 0.1f};
  size_t added = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_fill_box(solver_, lo, kHi, nullptr, &added), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_fill_box", "lo[1]");
  EXPECT_EQ(added, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, FillBoxRefusesInfinityInHiAndAddsNothing) {
  const float hi[3] = {0.2f, 0.2f, kInf};
  size_t added = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_fill_box(solver_, kLo, hi, nullptr, &added), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_fill_box", "hi[2]");
  EXPECT_EQ(added, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, FillBoxRefusesHiBelowLoAndAddsNothing) {
  const float lo[3] = {0.1f, 0.3f, 0.1f};
  const float hi[3] = {0.2f, 0.2f, 0.2f};
  size_t added = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_fill_box(solver_, lo, hi, nullptr, &added), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_fill_box", "hi[1]");
  EXPECT_EQ(added, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, FillBoxRefusesNaNVelocityAndAddsNothing) {
  const float v[3] = {0.0f, kNaN, 0.0f};
  size_t added = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_fill_box(solver_, kLo, kHi, v, &added), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_fill_box", "velocity");
  EXPECT_EQ(added, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, FillBoxRefusesABoxBeyondTheCapacityAndAddsNothing) {
  // [0.1, 0.3]^3 at 0.05 m holds 4^3 = 64 lattice points; 8 are present.
  const float lo[3] = {0.1f, 0.1f, 0.1f};
  const float hi[3] = {0.3f, 0.3f, 0.3f};
  size_t added = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_fill_box(solver_, lo, hi, nullptr, &added), PBF_ERROR_CAPACITY_EXCEEDED,
                     "pbf_solver_fill_box", "lo");
  EXPECT_NE(std::string(pbf_last_error()).find("max_particles"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(added, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, FillBoxClipsAHugeBoxToTheDomainBeforeCheckingTheCapacity) {
  // The domain holds 20^3 lattice points of a box that covers it.
  const float lo[3] = {-1000.0f, -1000.0f, -1000.0f};
  const float hi[3] = {1000.0f, 1000.0f, 1000.0f};
  size_t added = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_fill_box(solver_, lo, hi, nullptr, &added), PBF_ERROR_CAPACITY_EXCEEDED,
                     "pbf_solver_fill_box", "lo");
  EXPECT_NE(std::string(pbf_last_error()).find("8000"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(added, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, FillBoxRefusesAnAstronomicalBoxThatCoversTheDomain) {
  // A lattice anchored 1e30 m away cannot be placed in float precision.
  const float lo[3] = {-1e30f, -1e30f, -1e30f};
  const float hi[3] = {1e30f, 1e30f, 1e30f};
  size_t added = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_fill_box(solver_, lo, hi, nullptr, &added), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_fill_box", "lo[0]");
  EXPECT_EQ(added, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, FillBoxRefusesAHiFarAboveTheDomain) {
  const float lo[3] = {0.0f, 0.0f, 0.0f};
  const float hi[3] = {0.5f, 1e30f, 0.5f};
  size_t added = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_fill_box(solver_, lo, hi, nullptr, &added), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_fill_box", "hi[1]");
  EXPECT_EQ(added, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, FillBoxOutsideTheDomainAddsNothingAndSucceeds) {
  const float lo[3] = {2.0f, 2.0f, 2.0f};
  const float hi[3] = {3.0f, 3.0f, 3.0f};
  size_t added = 1234;
  EXPECT_EQ(pbf_solver_fill_box(solver_, lo, hi, nullptr, &added), PBF_OK) << pbf_last_error();
  EXPECT_EQ(added, 0u);
  expect_untouched_and_steppable();
}

// ---------------------------------------------------------------------------
// pbf_solver_remove_particles
// ---------------------------------------------------------------------------

TEST_F(CApiErrors, RemoveRefusesADuplicateIndexAndRemovesNothing) {
  const uint32_t indices[3] = {1, 4, 1};
  EXPECT_PBF_FAILURE(pbf_solver_remove_particles(solver_, indices, 3), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_remove_particles", "indices[2]");
  EXPECT_NE(std::string(pbf_last_error()).find("twice"), std::string::npos) << pbf_last_error();
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, RemoveRefusesAnIndexEqualToTheCountAndRemovesNothing) {
  const uint32_t indices[2] = {0, static_cast<uint32_t>(kParticles)};
  EXPECT_PBF_FAILURE(pbf_solver_remove_particles(solver_, indices, 2), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_remove_particles", "indices[1]");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, RemoveRefusesTheLargestIndexAndRemovesNothing) {
  const uint32_t indices[1] = {UINT32_MAX};
  EXPECT_PBF_FAILURE(pbf_solver_remove_particles(solver_, indices, 1), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_remove_particles", "indices[0]");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, RemoveRefusesMoreIndicesThanParticles) {
  std::vector<uint32_t> indices(kParticles + 1);
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<uint32_t>(i % kParticles);
  EXPECT_PBF_FAILURE(pbf_solver_remove_particles(solver_, indices.data(), indices.size()), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_remove_particles", "count");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, RemoveRefusesAnAbsurdCount) {
  const uint32_t indices[1] = {0};
  EXPECT_PBF_FAILURE(pbf_solver_remove_particles(solver_, indices, SIZE_MAX), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_remove_particles", "count");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, RemoveWithZeroCountIsANoOpEvenWithNullIndices) {
  EXPECT_EQ(pbf_solver_remove_particles(solver_, nullptr, 0), PBF_OK) << pbf_last_error();
  expect_untouched_and_steppable();
}

TEST(CApiErrorsEmpty, RemoveFromAnEmptySolverRefusesIndexZero) {
  const pbf_solver_desc d = small_desc();
  pbf_solver* s = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &s), PBF_OK) << pbf_last_error();
  const uint32_t index = 0;
  EXPECT_PBF_FAILURE(pbf_solver_remove_particles(s, &index, 1), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_remove_particles", "count");
  size_t n = 99;
  EXPECT_EQ(pbf_solver_particle_count(s, &n), PBF_OK);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(pbf_solver_step(s, kDt, 1), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_destroy(s), PBF_OK);
}

// ---------------------------------------------------------------------------
// Planes
// ---------------------------------------------------------------------------

TEST_F(CApiErrors, AddPlaneRefusesAZeroNormal) {
  const float n[3] = {0.0f, 0.0f, 0.0f};
  uint32_t index = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_add_plane(solver_, n, 0.0f, &index), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_add_plane",
                     "normal");
  EXPECT_EQ(index, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddPlaneRefusesANaNNormal) {
  const float n[3] = {0.0f, kNaN, 0.0f};
  uint32_t index = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_add_plane(solver_, n, 0.0f, &index), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_add_plane",
                     "normal[1]");
  EXPECT_EQ(index, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddPlaneRefusesAnInfiniteNormal) {
  const float n[3] = {kInf, 1.0f, 0.0f};
  uint32_t index = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_add_plane(solver_, n, 0.0f, &index), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_add_plane",
                     "normal[0]");
  EXPECT_EQ(index, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddPlaneRefusesANaNOffset) {
  uint32_t index = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_add_plane(solver_, kUp, kNaN, &index), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_add_plane", "offset");
  EXPECT_EQ(index, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddPlaneRefusesAnInfiniteOffset) {
  uint32_t index = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_add_plane(solver_, kUp, -kInf, &index), PBF_ERROR_INVALID_ARGUMENT,
                     "pbf_solver_add_plane", "offset");
  EXPECT_EQ(index, 1234u);
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, AddPlaneRefusesA65thPlaneAndClearPlanesMakesRoomAgain) {
  // Far below the particles (y >= -10), so the planes never touch them.
  for (uint32_t k = 0; k < 64; ++k) {
    uint32_t index = 1234;
    ASSERT_EQ(pbf_solver_add_plane(solver_, kUp, 10.0f, &index), PBF_OK) << "plane " << k << ": " << pbf_last_error();
    EXPECT_EQ(index, k);
  }
  before_ = capture(solver_);
  uint32_t index = 1234;
  EXPECT_PBF_FAILURE(pbf_solver_add_plane(solver_, kUp, 10.0f, &index), PBF_ERROR_CAPACITY_EXCEEDED,
                     "pbf_solver_add_plane", "64");
  EXPECT_EQ(index, 1234u);
  expect_untouched_and_steppable();

  ASSERT_EQ(pbf_solver_clear_planes(solver_), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_add_plane(solver_, kUp, 10.0f, &index), PBF_OK) << pbf_last_error();
  EXPECT_EQ(index, 0u);
}

TEST_F(CApiErrors, AddPlaneAcceptsAHugeButFiniteNormal) {
  const float n[3] = {0.0f, 1e30f, 0.0f};
  uint32_t index = 1234;
  EXPECT_EQ(pbf_solver_add_plane(solver_, n, 0.0f, &index), PBF_OK) << pbf_last_error();
  EXPECT_EQ(index, 0u);
}

TEST_F(CApiErrors, AddPlaneAcceptsATinyButNonZeroNormal) {
  const float n[3] = {0.0f, 1e-30f, 0.0f};
  uint32_t index = 1234;
  EXPECT_EQ(pbf_solver_add_plane(solver_, n, 0.0f, &index), PBF_OK) << pbf_last_error();
  EXPECT_EQ(index, 0u);
}

// ---------------------------------------------------------------------------
// pbf_solver_step
// ---------------------------------------------------------------------------

TEST_F(CApiErrors, StepRefusesZeroDt) {
  EXPECT_PBF_FAILURE(pbf_solver_step(solver_, 0.0f, 1), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_step", "dt");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, StepRefusesNegativeDt) {
  EXPECT_PBF_FAILURE(pbf_solver_step(solver_, -kDt, 1), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_step", "dt");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, StepRefusesNaNDt) {
  EXPECT_PBF_FAILURE(pbf_solver_step(solver_, kNaN, 1), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_step", "dt");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, StepRefusesInfiniteDt) {
  EXPECT_PBF_FAILURE(pbf_solver_step(solver_, kInf, 1), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_step", "dt");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, StepRefusesDtAboveTenSeconds) {
  EXPECT_PBF_FAILURE(pbf_solver_step(solver_, 10.5f, 100), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_step", "dt");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, StepRefusesZeroSubsteps) {
  EXPECT_PBF_FAILURE(pbf_solver_step(solver_, kDt, 0), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_step", "substeps");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, StepRefuses1001Substeps) {
  EXPECT_PBF_FAILURE(pbf_solver_step(solver_, kDt, 1001), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_step", "substeps");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, StepAcceptsTenSecondsInAThousandSubsteps) {
  EXPECT_EQ(pbf_solver_step(solver_, 10.0f, 1000), PBF_OK) << pbf_last_error();
  pbf_stats st = pbf_stats_default();
  EXPECT_EQ(pbf_solver_get_stats(solver_, &st), PBF_OK);
  EXPECT_EQ(st.substeps, 1000u);
  // Every particle is still inside the domain, and finite.
  std::vector<float> x = read_field(solver_, pbf_solver_get_positions, 3);
  for (float f : x) {
    EXPECT_TRUE(std::isfinite(f));
    EXPECT_GE(f, 0.0f);
    EXPECT_LE(f, 1.0f);
  }
}

// ---------------------------------------------------------------------------
// pbf_solver_write_ply
// ---------------------------------------------------------------------------

TEST_F(CApiErrors, WritePlyRefusesAnEmptyPath) {
  EXPECT_PBF_FAILURE(pbf_solver_write_ply(solver_, ""), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_write_ply", "path");
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, WritePlyIntoAMissingDirectoryFailsWithIo) {
  const fs::path dir = fs::path(::testing::TempDir()) / unique_name("missing");
  fs::remove_all(dir);
  const std::string path = (dir / "sub" / "out.ply").string();
  EXPECT_PBF_FAILURE(pbf_solver_write_ply(solver_, path.c_str()), PBF_ERROR_IO, "pbf_solver_write_ply", "path");
  EXPECT_NE(std::string(pbf_last_error()).find(dir.string()), std::string::npos)
      << "the message should quote the path: " << pbf_last_error();
  EXPECT_FALSE(fs::exists(dir));
  expect_untouched_and_steppable();
}

TEST_F(CApiErrors, WritePlyOntoADirectoryFailsWithIoAndLeavesItAndNoPartialFile) {
  const fs::path dir = fs::path(::testing::TempDir()) / unique_name("keep");
  fs::remove_all(dir);
  ASSERT_TRUE(fs::create_directories(dir / "target"));
  // The target is a non-empty directory: the final rename must fail and leave it as it was.
  { std::ofstream(dir / "target" / "keep.txt") << "precious"; }
  EXPECT_PBF_FAILURE(pbf_solver_write_ply(solver_, (dir / "target").string().c_str()), PBF_ERROR_IO,
                     "pbf_solver_write_ply", "path");
  std::ifstream in(dir / "target" / "keep.txt");
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
  EXPECT_FALSE(fs::exists((dir / "target").string() + ".partial"));
  fs::remove_all(dir);
  expect_untouched_and_steppable();
}

// ---------------------------------------------------------------------------
// A failed step keeps the statistics of the last good one
// ---------------------------------------------------------------------------

TEST_F(CApiErrors, FailedStepKeepsTheStatisticsOfTheLastStep) {
  pbf_stats st = pbf_stats_default();
  ASSERT_EQ(pbf_solver_get_stats(solver_, &st), PBF_OK);
  ASSERT_EQ(st.substeps, 1u);
  ASSERT_EQ(st.particle_count, kParticles);
  EXPECT_PBF_FAILURE(pbf_solver_step(solver_, kDt, 5000), PBF_ERROR_INVALID_ARGUMENT, "pbf_solver_step", "substeps");
  pbf_stats now = pbf_stats_default();
  ASSERT_EQ(pbf_solver_get_stats(solver_, &now), PBF_OK);
  expect_stats_equal(now, st);
}

}  // namespace
