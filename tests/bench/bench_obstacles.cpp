// bench_obstacles - what solid obstacles add to a step: the reference dam
// break (39^3 = 59,319 particles at 2.5 cm in a 3.9 x 2.9 x 1.46 m box, 4
// iterations, every feature on) with 0, 1, 8 and 32 obstacles, each a ball
// of radius 10 cm as a 24^3 signed distance field, standing on the floor in
// the path of the flow. Each benchmark first runs 30 steps of 1 ms so that
// the block is falling, then times single steps of 1 ms. Static and moving
// obstacles cost the same per step (the pose is interpolated either way);
// the moving case sets a new pose before each step. `samples` adds boundary
// particles: 1 on the domain's walls, 2 on the walls and on every ball,
// attached to it (pbf_solver_add_obstacle_boundary_particles), so that every
// substep places them at the ball's pose and sorts all the samples again.
#include <benchmark/benchmark.h>
#include <pbf/pbf.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <array>
#include <vector>

#include "bench_scenes.h"

namespace {

void check(pbf_status status) { pbf_bench::check(status, "bench_obstacles"); }

void BM_DamBreakWithObstacles(benchmark::State& state) {
  const int obstacles = static_cast<int>(state.range(0));
  const bool moving = state.range(1) != 0;
  const int samples = static_cast<int>(state.range(2));
  const int side = 39;
  const float spacing = 0.025f, block = side * spacing;
  const pbf_solver_desc desc = pbf_bench::dam_break_desc(PBF_BACKEND_CPU, side, spacing);
  pbf_solver* solver = nullptr;
  check(pbf_solver_create(&desc, &solver));
  const float lo[3] = {0, 0, 0}, hi[3] = {block, block, block};
  size_t n = 0;
  check(pbf_solver_fill_box(solver, lo, hi, nullptr, &n));

  // A ball of radius 0.1 m sampled every 1 cm with a margin of 2 cells.
  const uint32_t cells = 24;
  const float cell = 0.01f, r = 0.1f;
  const uint32_t dims[3] = {cells, cells, cells};
  const float origin[3] = {-0.115f, -0.115f, -0.115f};
  std::vector<float> ball(cells * cells * cells);
  for (uint32_t k = 0; k < cells; ++k)
    for (uint32_t j = 0; j < cells; ++j)
      for (uint32_t i = 0; i < cells; ++i) {
        const float x = origin[0] + i * cell, y = origin[1] + j * cell, z = origin[2] + k * cell;
        ball[i + cells * (j + cells * k)] = std::sqrt(x * x + y * y + z * z) - r;
      }
  // On the floor ahead of the block, on a grid of 8 columns (x) by 4 rows (z).
  std::vector<std::array<float, 3>> where;
  for (int b = 0; b < obstacles; ++b) {
    const float x = block + 0.2f + 0.3f * (b % 8), z = 0.2f + 0.3f * ((b / 8) % 4);
    where.push_back({x, r, z});
    check(pbf_solver_add_obstacle_sdf(solver, ball.data(), ball.size(), dims, origin, cell, nullptr,
                                      where.back().data(), nullptr));
    if (samples >= 2) check(pbf_solver_add_obstacle_boundary_particles(solver, static_cast<uint32_t>(b), nullptr));
  }
  if (samples >= 1) check(pbf_solver_add_domain_boundary_particles(solver, nullptr));
  size_t boundary = 0;
  check(pbf_solver_get_boundary_particle_count(solver, &boundary));
  for (int k = 0; k < 30; ++k) check(pbf_solver_step(solver, 0.001f, 1));

  pbf_stats stats = pbf_stats_default();
  double constraints = 0, grid = 0;
  long step = 0;
  for (auto _ : state) {
    if (moving)
      for (int b = 0; b < obstacles; ++b) {
        const float t[3] = {where[b][0], where[b][1] + 0.01f * (step & 1), where[b][2]};
        check(pbf_solver_set_obstacle_pose(solver, static_cast<uint32_t>(b), nullptr, t));
      }
    check(pbf_solver_step(solver, 0.001f, 1));
    check(pbf_solver_get_stats(solver, &stats));
    constraints += stats.time_constraints_ms;
    grid += stats.time_grid_ms;
    ++step;
  }
  const double steps = static_cast<double>(state.iterations());
  state.counters["particles"] = static_cast<double>(n);
  state.counters["boundary"] = static_cast<double>(boundary);
  state.counters["constraints_ms"] = constraints / steps;
  state.counters["grid_ms"] = grid / steps;  // the cell sort, and the samples' placement and sort
  check(pbf_solver_destroy(solver));
}

}  // namespace

BENCHMARK(BM_DamBreakWithObstacles)
    ->ArgNames({"obstacles", "moving", "samples"})
    ->Args({0, 0, 0})
    ->Args({1, 0, 0})
    ->Args({8, 0, 0})
    ->Args({32, 0, 0})
    ->Args({8, 1, 0})
    ->Args({8, 1, 1})
    ->Args({8, 1, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
