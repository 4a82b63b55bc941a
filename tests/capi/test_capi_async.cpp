// Asynchronous steps: pbf_solver_step_async() returns at once, the result
// equals the blocking step's bit for bit, every other call is refused with
// PBF_ERROR_BUSY until pbf_solver_wait(), and destroy waits for the step.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr float kDt = 1.0f / 60.0f;

pbf_solver* make_scene() {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.particle_spacing = 0.04f;
  pbf_solver* s = nullptr;
  EXPECT_EQ(pbf_solver_create(&d, &s), PBF_OK) << pbf_last_error();
  const float lo[3] = {0, 0, 0}, hi[3] = {0.5f, 0.6f, 0.5f};
  EXPECT_EQ(pbf_solver_fill_box(s, lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  return s;
}

std::vector<float> positions_of(const pbf_solver* s) {
  size_t n = 0;
  EXPECT_EQ(pbf_solver_particle_count(s, &n), PBF_OK) << pbf_last_error();
  std::vector<float> x(3 * n);
  EXPECT_EQ(pbf_solver_get_positions(s, x.data(), x.size()), PBF_OK) << pbf_last_error();
  return x;
}

TEST(CApiAsync, AnAsynchronousStepEqualsTheBlockingStepBitForBit) {
  pbf_solver* blocking = make_scene();
  pbf_solver* async = make_scene();
  for (int frame = 0; frame < 10; ++frame) {
    ASSERT_EQ(pbf_solver_step(blocking, kDt, 2), PBF_OK) << pbf_last_error();
    ASSERT_EQ(pbf_solver_step_async(async, kDt, 2), PBF_OK) << pbf_last_error();
    ASSERT_EQ(pbf_solver_wait(async), PBF_OK) << pbf_last_error();
  }
  const std::vector<float> a = positions_of(blocking), b = positions_of(async);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
  pbf_stats sa = pbf_stats_default(), sb = pbf_stats_default();
  ASSERT_EQ(pbf_solver_get_stats(blocking, &sa), PBF_OK);
  ASSERT_EQ(pbf_solver_get_stats(async, &sb), PBF_OK);
  EXPECT_EQ(sa.avg_density_error, sb.avg_density_error);
  pbf_solver_destroy(blocking);
  pbf_solver_destroy(async);
}

TEST(CApiAsync, EveryOtherCallIsRefusedAsBusyUntilTheWait) {
  pbf_solver* s = make_scene();
  const std::vector<float> before = positions_of(s);
  // Enough work that the step is still running when the calls below are made.
  ASSERT_EQ(pbf_solver_step_async(s, 0.5f, 60), PBF_OK) << pbf_last_error();
  std::vector<float> buffer(before.size());
  size_t count = 0;
  pbf_stats stats = pbf_stats_default();
  pbf_params params = pbf_params_default();
  const float normal[3] = {0, 1, 0};
  const uint32_t index = 0;
  // Until the wait every call is refused, whether or not the step is still running.
  EXPECT_EQ(pbf_solver_get_positions(s, buffer.data(), buffer.size()), PBF_ERROR_BUSY);
  EXPECT_NE(std::string(pbf_last_error()).find("pbf_solver_wait"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(pbf_solver_set_positions(s, before.data(), before.size()), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_particle_count(s, &count), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_get_stats(s, &stats), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_set_params(s, &params), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_add_plane(s, normal, 0.0f, nullptr), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_remove_particles(s, &index, 1), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_step(s, kDt, 1), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_step_async(s, kDt, 1), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_write_ply(s, "never.ply"), PBF_ERROR_BUSY);
  int done = -1;
  EXPECT_EQ(pbf_solver_poll(s, &done), PBF_OK);
  EXPECT_TRUE(done == 0 || done == 1);
  ASSERT_EQ(pbf_solver_wait(s), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_poll(s, &done), PBF_OK);
  EXPECT_EQ(done, 1);
  // Refused calls changed nothing: every particle is where the step put it, none was removed.
  const std::vector<float> after = positions_of(s);
  EXPECT_EQ(after.size(), before.size());
  EXPECT_NE(after, before) << "the step moved the water";
  EXPECT_EQ(pbf_solver_get_stats(s, &stats), PBF_OK);
  EXPECT_EQ(stats.substeps, 60u);
  pbf_solver_destroy(s);
}

TEST(CApiAsync, PollReportsDoneOnceTheStepHasFinished) {
  pbf_solver* s = make_scene();
  int done = -1;
  EXPECT_EQ(pbf_solver_poll(s, &done), PBF_OK);
  EXPECT_EQ(done, 1) << "no step started";
  ASSERT_EQ(pbf_solver_step_async(s, kDt, 2), PBF_OK);
  for (int spins = 0; spins < 1000000 && done != 1; ++spins) ASSERT_EQ(pbf_solver_poll(s, &done), PBF_OK);
  EXPECT_EQ(done, 1);
  EXPECT_EQ(pbf_solver_wait(s), PBF_OK);
  pbf_solver_destroy(s);
}

TEST(CApiAsync, WaitWithoutAStepReturnsAtOnceAndDestroyWaitsForARunningStep) {
  pbf_solver* s = make_scene();
  EXPECT_EQ(pbf_solver_wait(s), PBF_OK);
  EXPECT_EQ(pbf_solver_wait(nullptr), PBF_ERROR_NULL_POINTER);
  ASSERT_EQ(pbf_solver_step_async(s, 0.5f, 30), PBF_OK);
  EXPECT_EQ(pbf_solver_destroy(s), PBF_OK);  // joins the step; the sanitizers see no use after free
}

TEST(CApiAsync, BadArgumentsAreRefusedBeforeAnythingStarts) {
  pbf_solver* s = make_scene();
  EXPECT_EQ(pbf_solver_step_async(s, 0.0f, 1), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("dt"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(pbf_solver_step_async(s, kDt, 0), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(pbf_solver_step_async(nullptr, kDt, 1), PBF_ERROR_NULL_POINTER);
  int done = 0;
  EXPECT_EQ(pbf_solver_poll(s, &done), PBF_OK);
  EXPECT_EQ(done, 1) << "a refused start started nothing";
  EXPECT_EQ(pbf_solver_poll(s, nullptr), PBF_ERROR_NULL_POINTER);
  size_t n = 0;
  EXPECT_EQ(pbf_solver_particle_count(s, &n), PBF_OK) << "the solver is not busy";
  pbf_solver_destroy(s);
}

TEST(CApiAsync, ManySolversStepAsynchronouslyAtOnce) {
  std::vector<pbf_solver*> solvers;
  for (int k = 0; k < 4; ++k) solvers.push_back(make_scene());
  for (int frame = 0; frame < 3; ++frame) {
    for (pbf_solver* s : solvers) ASSERT_EQ(pbf_solver_step_async(s, kDt, 2), PBF_OK) << pbf_last_error();
    for (pbf_solver* s : solvers) ASSERT_EQ(pbf_solver_wait(s), PBF_OK) << pbf_last_error();
  }
  const std::vector<float> first = positions_of(solvers[0]);
  for (pbf_solver* s : solvers) {
    EXPECT_EQ(positions_of(s), first) << "the same scene gives the same result";
    pbf_solver_destroy(s);
  }
}

}  // namespace
