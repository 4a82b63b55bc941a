// The CPU backend gives bit-identical results for any number of threads: the
// neighbour order is fixed by the sort, every particle sums its own
// neighbours in that order, and reductions split the same way every time.
#include <tbb/global_control.h>

#include <cstring>

#include "physics/physics_scenes.h"

namespace pbf_test {
namespace {

struct RunResult {
  std::vector<float> x, v;
  pbf_stats stats;
};

RunResult dam_break_with_threads(int threads) {
  const float box[3] = {1.2f, 1.0f, 0.5f};
  const float block[3] = {0.5f, 0.5f, 0.5f};
  SolverPtr s = make_dam_break(0.025f, box, block, threads);
  pbf_params p = pbf_params_default();
  p.friction = 0.2f;  // every feature on
  p.restitution = 0.1f;
  EXPECT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK);
  for (int frame = 0; frame < 40; ++frame) EXPECT_EQ(pbf_solver_step(s.get(), 1.0f / 60.0f, 2), PBF_OK);
  return RunResult{positions_of(s.get()), velocities_of(s.get()), stats_of(s.get())};
}

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(Determinism, OneTwoAndSevenThreadsGiveBitIdenticalResults) {
  // Let oneTBB run 7 workers even on a 2-core machine, so the work is split differently.
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 8);
  const RunResult one = dam_break_with_threads(1);
  ASSERT_EQ(one.x.size(), 3u * 20u * 20u * 20u);
  for (const int threads : {2, 7}) {
    const RunResult many = dam_break_with_threads(threads);
    EXPECT_TRUE(bitwise_equal(one.x, many.x)) << threads << " threads: positions differ";
    EXPECT_TRUE(bitwise_equal(one.v, many.v)) << threads << " threads: velocities differ";
    EXPECT_EQ(one.stats.avg_density_error, many.stats.avg_density_error);
    EXPECT_EQ(one.stats.max_speed, many.stats.max_speed);
  }
}

TEST(Determinism, TheSameRunTwiceIsBitIdentical) {
  EXPECT_TRUE(bitwise_equal(dam_break_with_threads(0).x, dam_break_with_threads(0).x));
}

}  // namespace
}  // namespace pbf_test
