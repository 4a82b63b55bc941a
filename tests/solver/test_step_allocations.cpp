// No step allocates memory after the first: the solver's arrays are sized
// when particles are added, and the hot loops reuse them. And an allocation
// that fails while particles are added leaves the solver as it was. This
// executable replaces the global operator new to count the library's
// allocations and to make the k-th one fail.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

namespace {
std::atomic<long> g_allocations{0};
std::atomic<long> g_fail_at{-1};  // the allocation count that throws; -1: none
}

void* operator new(std::size_t size) {
  const long count = g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (count == g_fail_at.load(std::memory_order_relaxed)) throw std::bad_alloc();
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

// A CPU solver at 5 cm spacing with the given method; null on failure.
pbf_solver* cpu_solver(pbf_method method) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = PBF_BACKEND_CPU;
  desc.method = method;
  desc.particle_spacing = 0.05f;
  pbf_solver* solver = nullptr;
  return pbf_solver_create(&desc, &solver) == PBF_OK ? solver : nullptr;
}

// A block of water in the corner of the default domain.
pbf_status fill_block(pbf_solver* solver) {
  const float lo[3] = {0, 0, 0}, hi[3] = {0.5f, 0.6f, 0.5f};
  return pbf_solver_fill_box(solver, lo, hi, nullptr, nullptr);
}

// operator new calls during `frames` frames, each `before(frame)` and then a
// step of `substeps` (every call expected to succeed).
template <class Before>
long allocations_during(pbf_solver* solver, int frames, uint32_t substeps, Before before) {
  const long start = g_allocations.load();
  for (int frame = 0; frame < frames; ++frame) {
    before(frame);
    EXPECT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, substeps), PBF_OK) << pbf_last_error();
  }
  return g_allocations.load() - start;
}

TEST(StepAllocations, StepsAfterTheFirstAllocateNothing) {
  pbf_solver* solver = cpu_solver(PBF_METHOD_PBF);
  ASSERT_NE(solver, nullptr) << pbf_last_error();
  ASSERT_EQ(fill_block(solver), PBF_OK);
  const float normal[3] = {-1.0f, 1.0f, 0.0f};
  ASSERT_EQ(pbf_solver_add_plane(solver, normal, 0.3f, nullptr), PBF_OK);  // every feature in use
  ASSERT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, 2), PBF_OK);

  pbf_stats stats = pbf_stats_default();
  const long allocations =
      allocations_during(solver, 20, 2, [&](int) { ASSERT_EQ(pbf_solver_get_stats(solver, &stats), PBF_OK); });
  EXPECT_EQ(allocations, 0) << "operator new calls during 20 steps";
  ASSERT_EQ(pbf_solver_get_stats(solver, &stats), PBF_OK);
  EXPECT_GT(stats.max_speed, 0.5f);  // the water really moved
  pbf_solver_destroy(solver);
}

TEST(StepAllocations, ProjectiveFluidsStepsAfterTheFirstAllocateNothing) {
  pbf_solver* solver = cpu_solver(PBF_METHOD_PROJECTIVE);
  ASSERT_NE(solver, nullptr) << pbf_last_error();
  ASSERT_EQ(fill_block(solver), PBF_OK);
  pbf_params params = pbf_params_default();
  params.projective_iterations = 5;  // the work does not matter, only its allocations
  ASSERT_EQ(pbf_solver_set_params(solver, &params), PBF_OK);
  ASSERT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, 1), PBF_OK);

  EXPECT_EQ(allocations_during(solver, 10, 1, [](int) {}), 0) << "operator new calls during 10 steps";
  pbf_stats stats = pbf_stats_default();
  ASSERT_EQ(pbf_solver_get_stats(solver, &stats), PBF_OK);
  EXPECT_GT(stats.local_global_iterations, 0u);
  pbf_solver_destroy(solver);
}

TEST(StepAllocations, AFailedAllocationWhileAddingParticlesKeepsTheSolver) {
  pbf_solver* solver = cpu_solver(PBF_METHOD_PBF);
  ASSERT_NE(solver, nullptr) << pbf_last_error();
  const float lo[3] = {0, 0, 0}, hi[3] = {0.3f, 0.3f, 0.3f};
  size_t first = 0;
  ASSERT_EQ(pbf_solver_fill_box(solver, lo, hi, nullptr, &first), PBF_OK);
  ASSERT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, 2), PBF_OK);

  // Make the 1st, 2nd, ... allocation of a second fill fail, until the fill
  // needs fewer allocations than that and succeeds.
  const float lo2[3] = {0.5f, 0.0f, 0.5f}, hi2[3] = {0.9f, 0.4f, 0.9f};
  int failures = 0;
  for (long k = 0; k < 1000; ++k) {
    g_fail_at.store(g_allocations.load() + k);
    size_t added = 0;
    const pbf_status status = pbf_solver_fill_box(solver, lo2, hi2, nullptr, &added);
    g_fail_at.store(-1);
    if (status == PBF_OK) break;
    ++failures;
    ASSERT_EQ(status, PBF_ERROR_OUT_OF_MEMORY) << pbf_last_error();
    size_t count = 0;
    ASSERT_EQ(pbf_solver_particle_count(solver, &count), PBF_OK);
    ASSERT_EQ(count, first) << "a failed fill changed the particle count (allocation " << k << ")";
    ASSERT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
    std::vector<float> x(3 * count);
    ASSERT_EQ(pbf_solver_get_positions(solver, x.data(), x.size()), PBF_OK);
  }
  EXPECT_GT(failures, 5) << "the fill should allocate several arrays";
  size_t count = 0;
  ASSERT_EQ(pbf_solver_particle_count(solver, &count), PBF_OK);
  EXPECT_GT(count, first);
  EXPECT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
  pbf_solver_destroy(solver);
}

TEST(StepAllocations, StepsWithBoundaryParticlesAllocateNothing) {
  pbf_solver* solver = cpu_solver(PBF_METHOD_PBF);
  ASSERT_NE(solver, nullptr) << pbf_last_error();
  ASSERT_EQ(pbf_solver_add_domain_boundary_particles(solver, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(fill_block(solver), PBF_OK);
  ASSERT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, 2), PBF_OK);
  EXPECT_EQ(allocations_during(solver, 20, 2, [](int) {}), 0) << "operator new calls during 20 steps";
  pbf_solver_destroy(solver);
}

TEST(StepAllocations, StepsWithBoundaryParticlesOnAMovingObstacleAllocateNothing) {
  pbf_solver* solver = cpu_solver(PBF_METHOD_PBF);
  ASSERT_NE(solver, nullptr) << pbf_last_error();
  ASSERT_EQ(pbf_solver_add_domain_boundary_particles(solver, nullptr), PBF_OK) << pbf_last_error();
  pbf_sdf* ball = nullptr;
  ASSERT_EQ(pbf_sdf_sphere(0.15f, 0.025f, &ball), PBF_OK) << pbf_last_error();
  float at[3] = {0.7f, 0.3f, 0.5f};
  uint32_t index = 0;
  ASSERT_EQ(pbf_solver_add_obstacle(solver, ball, nullptr, at, &index), PBF_OK) << pbf_last_error();
  pbf_sdf_destroy(ball);
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver, index, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(fill_block(solver), PBF_OK);
  ASSERT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, 2), PBF_OK);
  const long allocations = allocations_during(solver, 20, 2, [&](int) {
    at[0] -= 0.005f;  // the ball rolls into the water
    ASSERT_EQ(pbf_solver_set_obstacle_pose(solver, index, nullptr, at), PBF_OK) << pbf_last_error();
  });
  EXPECT_EQ(allocations, 0) << "operator new calls during 20 steps";
  pbf_solver_destroy(solver);
}

class StepAllocationsWithABody : public ::testing::TestWithParam<pbf_method> {};

TEST_P(StepAllocationsWithABody, StepsWithADynamicBodyAllocateNothing) {
  pbf_solver* solver = cpu_solver(GetParam());
  ASSERT_NE(solver, nullptr) << pbf_last_error();
  pbf_sdf* crate = nullptr;
  const float half[3] = {0.1f, 0.1f, 0.1f};
  ASSERT_EQ(pbf_sdf_box(half, 0.025f, &crate), PBF_OK) << pbf_last_error();
  const float at[3] = {0.7f, 0.6f, 0.5f};
  uint32_t index = 0;
  ASSERT_EQ(pbf_solver_add_obstacle(solver, crate, nullptr, at, &index), PBF_OK) << pbf_last_error();
  float mass = 0.0f, centre[3], inertia[9];
  ASSERT_EQ(pbf_sdf_mass_properties(crate, 500.0f, &mass, centre, inertia), PBF_OK) << pbf_last_error();
  pbf_sdf_destroy(crate);
  ASSERT_EQ(pbf_solver_add_obstacle_boundary_particles(solver, index, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_set_obstacle_dynamic(solver, index, mass, centre, inertia), PBF_OK) << pbf_last_error();
  ASSERT_EQ(fill_block(solver), PBF_OK);
  ASSERT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, 2), PBF_OK);
  // The crate falls onto the water and, by the end, onto whatever is below it: contacts and all.
  const long allocations = allocations_during(solver, 30, 2, [](int) {});
  EXPECT_EQ(allocations, 0) << "operator new calls during 30 steps";
  float y[3];
  ASSERT_EQ(pbf_solver_get_obstacle_pose(solver, index, nullptr, y), PBF_OK);
  // It fell and met the water (which stops it, both methods: PHYSICS.md §13).
  EXPECT_LT(y[1], 0.55f) << "the crate moved";
  pbf_solver_destroy(solver);
}

INSTANTIATE_TEST_SUITE_P(BothMethods, StepAllocationsWithABody,
                         ::testing::Values(PBF_METHOD_PBF, PBF_METHOD_PROJECTIVE),
                         [](const ::testing::TestParamInfo<pbf_method>& info) {
                           return info.param == PBF_METHOD_PBF ? std::string("pbf") : std::string("projective");
                         });

}  // namespace
