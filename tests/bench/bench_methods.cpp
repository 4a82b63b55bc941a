// bench_methods - PBF and Projective Fluids on the same dam break, so that
// their cost can be compared at equal density error. A 15^3 block of water
// (3375 particles, 2.5 cm spacing) collapses in a 4 x 3 x 1.5 block-side box
// on the CPU; each benchmark iteration simulates 0.25 s from rest in frames
// of 1/60 s. Arguments: the method (0 = PBF, 1 = Projective Fluids) and its
// iteration count (PBF: density iterations with 4 substeps per frame;
// Projective Fluids: the most local/global iterations per step, with the
// adaptive CFL step), and whether the run is set up for accuracy (1: the
// domain walls carry boundary particles; Projective Fluids then also takes
// the settings of docs/API.md §3.3 "Accuracy": steps of at most 2 ms and
// no early stop), and Projective Fluids' Chebyshev rho in hundredths (0: the
// paper's plain alternation; the library's default is 98). Counters: wall
// seconds per simulated second, and the mean and largest density error over
// the frames. BM_MethodStep times single steps of either method at a fixed
// dt = 1 ms on the reference scene (59k particles), 1M and 4M particles on
// CUDA, and a small scene on the CPU, to set the methods side by side per step.
// BM_ProjectiveCompression measures what Projective Fluids' iterations leave
// in the two scenes of docs/PHYSICS.md §7's table.
#include <benchmark/benchmark.h>
#include <pbf/pbf.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_scenes.h"

namespace {

void check(pbf_status status) { pbf_bench::check(status, "bench_methods"); }

// A cube of `side` particles in the corner of the dam-break box, its walls
// sampled by boundary particles when `sampled_walls`.
pbf_solver* make_dam_break(pbf_method method, int side, bool sampled_walls, pbf_backend backend = PBF_BACKEND_CPU) {
  const float spacing = 0.025f, block = side * spacing;
  pbf_solver_desc desc = pbf_bench::dam_break_desc(backend, side, spacing);
  desc.method = method;
  pbf_solver* solver = nullptr;
  check(pbf_solver_create(&desc, &solver));
  const float lo[3] = {0, 0, 0}, hi[3] = {block, block, block};
  check(pbf_solver_fill_box(solver, lo, hi, nullptr, nullptr));
  if (sampled_walls) check(pbf_solver_add_domain_boundary_particles(solver, nullptr));
  return solver;
}

// Wall time and statistics summed over the calls of pbf_solver_step.
struct Tally {
  double wall = 0.0, error_sum = 0.0, error_max = 0.0, substeps = 0.0, iterations = 0.0;
  double calls = 0.0;
};

void step_and_tally(pbf_solver* solver, int calls, float dt, uint32_t substeps, Tally& t) {
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < calls; ++k) {
    check(pbf_solver_step(solver, dt, substeps));
    pbf_stats stats = pbf_stats_default();
    check(pbf_solver_get_stats(solver, &stats));
    t.error_sum += stats.avg_density_error;
    t.error_max = std::max(t.error_max, double(stats.max_density_error));
    t.substeps += stats.substeps;
    t.iterations += stats.local_global_iterations;
  }
  t.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.calls += calls;
}

void BM_DamBreakMethod(benchmark::State& state) {
  const auto method = static_cast<pbf_method>(state.range(0));
  const auto iterations = static_cast<uint32_t>(state.range(1));
  const bool accurate = state.range(2) != 0;
  const float chebyshev_rho = static_cast<float>(state.range(3)) / 100.0f;  // Projective Fluids only
  const int frames = 15;  // 0.25 s
  Tally t;
  for (auto _ : state) {
    state.PauseTiming();
    pbf_solver* solver = make_dam_break(method, 15, accurate);
    pbf_params params = pbf_params_default();
    if (method == PBF_METHOD_PBF) {
      params.iterations = iterations;
    } else {
      params.projective_iterations = iterations;
      params.projective_chebyshev_rho = chebyshev_rho;
      if (accurate) {
        params.max_dt = 0.002f;
        params.projective_tolerance = 0.0f;
      }
    }
    check(pbf_solver_set_params(solver, &params));
    state.ResumeTiming();
    step_and_tally(solver, frames, 1.0f / 60.0f, method == PBF_METHOD_PBF ? 4u : 1u, t);
    state.PauseTiming();
    pbf_solver_destroy(solver);
    state.ResumeTiming();
  }
  state.counters["s_per_sim_s"] = t.wall / (t.calls / 60.0);
  state.counters["avg_density_error"] = t.error_sum / t.calls;
  state.counters["max_density_error"] = t.error_max;
  state.counters["steps_per_frame"] = t.substeps / t.calls;
}

BENCHMARK(BM_DamBreakMethod)
    ->ArgNames({"method", "iterations", "accurate", "rho"})
    ->Args({0, 2, 0, 0})
    ->Args({0, 4, 0, 0})
    ->Args({0, 8, 0, 0})
    ->Args({1, 10, 0, 0})
    ->Args({1, 30, 0, 0})
    ->Args({1, 60, 0, 0})
    ->Args({1, 120, 0, 0})
    ->Args({1, 240, 0, 0})
    ->Args({1, 10, 0, 90})
    ->Args({1, 30, 0, 90})
    ->Args({1, 60, 0, 90})
    ->Args({1, 120, 0, 90})
    ->Args({1, 30, 0, 98})
    ->Args({1, 60, 0, 98})
    ->Args({1, 120, 0, 98})
    ->Args({0, 8, 1, 0})
    ->Args({0, 32, 1, 0})
    ->Args({1, 60, 1, 90})
    ->Args({1, 150, 1, 90})
    ->Args({1, 75, 1, 98})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// The anchor of Weiler et al. (2016), Table 1: a breaking dam of 200,000
// particles took 11.30 s per step on two 12-core Xeon E5-2697 at 2.7 GHz,
// with at most 30 local/global iterations and steps of 2.07 ms on average.
// Here: a 59^3 block (205,379 particles) in the DESIGN.md §7 box with its
// walls sampled by boundary particles (as the paper's solids were), steps of
// 2.07 ms, at most 30 iterations with the default early stop; 50 steps
// (0.1 s of the collapse) from rest. Counter: wall seconds per step.
void BM_PaperDamBreak(benchmark::State& state) {
  const int side = 59;
  Tally t;
  for (auto _ : state) {
    state.PauseTiming();
    pbf_solver* solver = make_dam_break(PBF_METHOD_PROJECTIVE, side, true);
    pbf_params params = pbf_params_default();
    params.adaptive_dt = 0;
    check(pbf_solver_set_params(solver, &params));
    state.ResumeTiming();
    step_and_tally(solver, 50, 0.00207f, 1, t);
    state.PauseTiming();
    pbf_solver_destroy(solver);
    state.ResumeTiming();
  }
  state.counters["particles"] = double(side) * side * side;
  state.counters["s_per_step"] = t.wall / t.calls;
  state.counters["iterations_per_step"] = t.iterations / t.calls;
  state.counters["avg_density_error"] = t.error_sum / t.calls;
  state.counters["max_density_error"] = t.error_max;
}

BENCHMARK(BM_PaperDamBreak)->Iterations(1)->Unit(benchmark::kSecond);

// One step of dt = 1 ms (Projective Fluids with its adaptive step off, so
// that both methods advance the same time), after 30 steps from rest so the
// block has started to fall. Arguments: the method, particles (rounded to a
// cube number) and the backend. Counters: the density error, and Projective
// Fluids' local/global iterations per step.
void BM_MethodStep(benchmark::State& state) {
  const auto method = static_cast<pbf_method>(state.range(0));
  const int side = static_cast<int>(std::lround(std::cbrt(static_cast<double>(state.range(1)))));
  const auto backend = static_cast<pbf_backend>(state.range(2));
  int available = 0;
  check(pbf_backend_available(backend, &available));
  if (!available) {
    state.SkipWithError("backend not usable on this machine");
    for (auto _ : state) {
    }
    return;
  }
  pbf_solver* solver = make_dam_break(method, side, false, backend);
  pbf_params params = pbf_params_default();
  params.adaptive_dt = 0;
  check(pbf_solver_set_params(solver, &params));
  for (int k = 0; k < 30; ++k) check(pbf_solver_step(solver, 0.001f, 1));
  Tally t;
  for (auto _ : state) step_and_tally(solver, 1, 0.001f, 1, t);
  state.counters["particles"] = double(side) * side * side;
  state.counters["avg_density_error"] = t.error_sum / t.calls;
  state.counters["max_density_error"] = t.error_max;
  state.counters["iterations_per_step"] = t.iterations / t.calls;
  check(pbf_solver_destroy(solver));
}

BENCHMARK(BM_MethodStep)
    ->ArgNames({"method", "particles", "backend"})
    ->ArgsProduct({{PBF_METHOD_PBF, PBF_METHOD_PROJECTIVE}, {8000}, {PBF_BACKEND_CPU}})
    ->ArgsProduct({{PBF_METHOD_PBF, PBF_METHOD_PROJECTIVE}, {59319, 1000000, 4000000}, {PBF_BACKEND_CUDA}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The compression Projective Fluids leaves, in the two scenes of
// tests/physics/test_projective.cpp and docs/PHYSICS.md §7 ("What it
// reaches"): a 12 x 10 x 12 tank on the rest lattice (worst frame of the last
// 0.5 s of 1 s) and a 0.2 x 0.3 x 0.2 m column collapsing in a 0.8 x 0.5 x
// 0.2 m box (worst frame of 1 s; its front, where 99 % of the particles are
// behind, at 0.3 s), frames of 1/60 s, CPU. Arguments: max_dt in
// microseconds, projective_iterations, projective_chebyshev_rho in
// hundredths, whether the domain walls are sampled by boundary particles,
// and whether every iteration runs (projective_tolerance 0). Counters: the tank's and the dam's worst mean and largest
// compression [%], the dam's adaptive steps in its 1 s and its front [m].
void BM_ProjectiveCompression(benchmark::State& state) {
  pbf_params params = pbf_params_default();
  params.max_dt = static_cast<float>(state.range(0)) * 1e-6f;
  params.projective_iterations = static_cast<uint32_t>(state.range(1));
  params.projective_chebyshev_rho = static_cast<float>(state.range(2)) / 100.0f;
  const bool sampled_walls = state.range(3) != 0;
  if (state.range(4) != 0) params.projective_tolerance = 0.0f;
  auto make = [&](float x, float y, float z, const float* fill) {
    pbf_solver_desc desc = pbf_solver_desc_default();
    desc.backend = PBF_BACKEND_CPU;
    desc.method = PBF_METHOD_PROJECTIVE;
    desc.particle_spacing = 0.025f;
    desc.domain_max[0] = x;
    desc.domain_max[1] = y;
    desc.domain_max[2] = z;
    desc.max_particles = 20000;
    pbf_solver* solver = nullptr;
    check(pbf_solver_create(&desc, &solver));
    const float lo[3] = {0.0f, 0.0f, 0.0f};
    check(pbf_solver_fill_box(solver, lo, fill, nullptr, nullptr));
    if (sampled_walls) check(pbf_solver_add_domain_boundary_particles(solver, nullptr));
    check(pbf_solver_set_params(solver, &params));
    return solver;
  };
  double tank_mean = 0, tank_max = 0, dam_mean = 0, dam_max = 0, steps = 0, front = 0;
  for (auto _ : state) {
    const float tank_fill[3] = {0.3f, 0.25f, 0.3f}, dam_fill[3] = {0.2f, 0.3f, 0.2f};
    pbf_solver* tank = make(0.3f, 0.5f, 0.3f, tank_fill);
    pbf_solver* dam = make(0.8f, 0.5f, 0.2f, dam_fill);
    for (int frame = 0; frame < 60; ++frame) {
      pbf_stats st = pbf_stats_default();
      check(pbf_solver_step(tank, 1.0f / 60.0f, 1));
      check(pbf_solver_get_stats(tank, &st));
      if (frame >= 30) {
        tank_mean = std::max(tank_mean, double(st.avg_density_error));
        tank_max = std::max(tank_max, double(st.max_density_error));
      }
      check(pbf_solver_step(dam, 1.0f / 60.0f, 1));
      check(pbf_solver_get_stats(dam, &st));
      dam_mean = std::max(dam_mean, double(st.avg_density_error));
      dam_max = std::max(dam_max, double(st.max_density_error));
      steps += st.substeps;
      if (frame == 17) {  // 0.3 s
        size_t n = 0;
        check(pbf_solver_particle_count(dam, &n));
        std::vector<float> x(3 * n), along;
        check(pbf_solver_get_positions(dam, x.data(), x.size()));
        for (size_t i = 0; i < n; ++i) along.push_back(x[3 * i]);
        std::sort(along.begin(), along.end());
        front = along[along.size() * 99 / 100];
      }
    }
    check(pbf_solver_destroy(tank));
    check(pbf_solver_destroy(dam));
  }
  state.counters["tank_mean_pct"] = 100.0 * tank_mean;
  state.counters["tank_largest_pct"] = 100.0 * tank_max;
  state.counters["dam_mean_pct"] = 100.0 * dam_mean;
  state.counters["dam_largest_pct"] = 100.0 * dam_max;
  state.counters["dam_steps"] = steps / double(state.iterations());
  state.counters["front_m"] = front;
}

BENCHMARK(BM_ProjectiveCompression)
    ->ArgNames({"max_dt_us", "iterations", "rho", "sampled_walls", "all"})
    ->ArgsProduct({{10000, 5000}, {30}, {0, 98}, {0}, {0}})
    ->ArgsProduct({{5000, 2000, 1000}, {60}, {0, 98}, {0}, {0}})
    ->Args({5000, 30, 0, 1, 0})
    ->Args({5000, 30, 98, 1, 0})
    ->Args({2000, 60, 98, 1, 0})
    ->Args({2000, 75, 98, 1, 1})  // the accuracy settings of docs/API.md section 3.3
    ->Args({1000, 100, 98, 1, 1})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
