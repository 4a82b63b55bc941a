// No step allocates memory after the first: the solver's arrays are sized
// when particles are added, and the hot loops reuse them. This executable
// replaces the global operator new to count the library's allocations.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

TEST(StepAllocations, StepsAfterTheFirstAllocateNothing) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = PBF_BACKEND_CPU;
  desc.particle_spacing = 0.05f;
  pbf_solver* solver = nullptr;
  ASSERT_EQ(pbf_solver_create(&desc, &solver), PBF_OK) << pbf_last_error();
  const float lo[3] = {0, 0, 0}, hi[3] = {0.5f, 0.6f, 0.5f};
  ASSERT_EQ(pbf_solver_fill_box(solver, lo, hi, nullptr, nullptr), PBF_OK);
  const float normal[3] = {-1.0f, 1.0f, 0.0f};
  ASSERT_EQ(pbf_solver_add_plane(solver, normal, 0.3f, nullptr), PBF_OK);  // every feature in use
  ASSERT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, 2), PBF_OK);

  pbf_stats stats = pbf_stats_default();
  const long before = g_allocations.load();
  for (int frame = 0; frame < 20; ++frame) {
    ASSERT_EQ(pbf_solver_step(solver, 1.0f / 60.0f, 2), PBF_OK);
    ASSERT_EQ(pbf_solver_get_stats(solver, &stats), PBF_OK);
  }
  EXPECT_EQ(g_allocations.load() - before, 0) << "operator new calls during 20 steps";
  EXPECT_GT(stats.max_speed, 0.5f);  // the water really moved
  pbf_solver_destroy(solver);
}

}  // namespace
