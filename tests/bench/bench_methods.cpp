// bench_methods - PBF and Projective Fluids on the same dam break, so that
// their cost can be compared at equal density error. A 15^3 block of water
// (3375 particles, 2.5 cm spacing) collapses in a 4 x 3 x 1.5 block-side box
// on the CPU; each benchmark iteration simulates 0.25 s from rest in frames
// of 1/60 s. Arguments: the method (0 = PBF, 1 = Projective Fluids) and its
// iteration count (PBF: density iterations with 4 substeps per frame;
// Projective Fluids: the most local/global iterations per step, with the
// adaptive CFL step). Counters: wall seconds per simulated second, and the
// mean and largest density error over the frames.
#include <benchmark/benchmark.h>
#include <pbf/pbf.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "bench_scenes.h"

namespace {

void check(pbf_status status) { pbf_bench::check(status, "bench_methods"); }

void BM_DamBreakMethod(benchmark::State& state) {
  const auto method = static_cast<pbf_method>(state.range(0));
  const auto iterations = static_cast<uint32_t>(state.range(1));
  const int side = 15;
  const float spacing = 0.025f, block = side * spacing;
  const int frames = 15;  // 0.25 s
  double wall = 0.0, error_sum = 0.0, error_max = 0.0, steps = 0.0;
  for (auto _ : state) {
    state.PauseTiming();
    pbf_solver_desc desc = pbf_bench::dam_break_desc(PBF_BACKEND_CPU, side, spacing);
    desc.method = method;
    pbf_solver* solver = nullptr;
    check(pbf_solver_create(&desc, &solver));
    const float lo[3] = {0, 0, 0}, hi[3] = {block, block, block};
    check(pbf_solver_fill_box(solver, lo, hi, nullptr, nullptr));
    pbf_params params = pbf_params_default();
    if (method == PBF_METHOD_PBF) params.iterations = iterations;
    else params.projective_iterations = iterations;
    check(pbf_solver_set_params(solver, &params));
    const uint32_t substeps = method == PBF_METHOD_PBF ? 4u : 1u;
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    for (int f = 0; f < frames; ++f) {
      check(pbf_solver_step(solver, 1.0f / 60.0f, substeps));
      pbf_stats stats = pbf_stats_default();
      check(pbf_solver_get_stats(solver, &stats));
      error_sum += stats.avg_density_error;
      error_max = std::max(error_max, double(stats.max_density_error));
      steps += stats.substeps;
    }
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.PauseTiming();
    pbf_solver_destroy(solver);
    state.ResumeTiming();
  }
  const double runs = static_cast<double>(state.iterations());
  state.counters["s_per_sim_s"] = wall / (runs * frames / 60.0);
  state.counters["avg_density_error"] = error_sum / (runs * frames);
  state.counters["max_density_error"] = error_max;
  state.counters["steps_per_frame"] = steps / (runs * frames);
}

BENCHMARK(BM_DamBreakMethod)
    ->ArgNames({"method", "iterations"})
    ->Args({0, 2})
    ->Args({0, 4})
    ->Args({0, 8})
    ->Args({1, 10})
    ->Args({1, 30})
    ->Args({1, 60})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
