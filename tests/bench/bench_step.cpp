// bench_step - one PBF step of a dam break at several sizes, every feature on
// (4 iterations, artificial pressure, vorticity confinement, XSPH), on the
// CPU (30k, 125k, 500k particles) and on CUDA (the 59k reference scene of
// DESIGN.md §7, 128k, 1M, 4M; reported as skipped where no device is usable). Each benchmark first runs 30 steps so
// the block has started to fall and the neighbour grid is warm, then times
// single steps of dt = 1 ms. BM_DamBreakWallsStep runs the same scene with
// and without boundary particles on the domain walls (walls:1 / walls:0), to
// show what they add to a step. BM_CudaGraphStep times CUDA steps of 2
// substeps run as one CUDA graph (graphs:1) against the same kernels launched
// stage by stage (graphs:0, as PBF_CUDA_GRAPHS=0 asks), from a small scene
// that launch latency decides to the reference scene and a million particles.
// BM_TankScalingStep measures how the cost grows with the particle count: a
// layer of water of one depth (0.5 m) filling a square tank whose side grows
// with the count, so that every size has the same pressure profile and
// neighbour counts and only the number of particles differs; it reports
// nanoseconds per particle for each phase and the memory the solver holds per
// particle (the heap it took, from glibc's mallinfo2). Every size times the
// same steps, 31 to 60 after the tank is filled, so that all are measured in
// the same state of the flow (a time limit would time a small tank over
// hundreds of steps and a large one over its first few, while it still
// leaves its lattice).
// BM_CoincidentStep steps particles that all sit at one point (a caller's
// mistake, or a corner that collisions crowded): each neighbour search stops
// once a particle's list has overflowed, so the step costs about
// particles x max_neighbors pair tests rather than particles^2.
#include <benchmark/benchmark.h>
#include <pbf/pbf.h>

#include <malloc.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_scenes.h"

namespace {

void check(pbf_status status) { pbf_bench::check(status, "bench_step"); }

// Whether `backend` runs here; if not, marks the benchmark skipped (its loop run empty, as
// Google Benchmark asks).
bool usable(benchmark::State& state, pbf_backend backend) {
  int available = 0;
  check(pbf_backend_available(backend, &available));
  if (available) return true;
  state.SkipWithError("backend not usable on this machine");
  for (auto _ : state) {
  }
  return false;
}

// The phases' times [ms] and the counts of the steps timed, summed.
struct PhaseSums {
  double total = 0, grid = 0, neighbors = 0, constraints = 0, velocity = 0, vorticity_xsph = 0;
  double iterations = 0, avg_neighbors = 0;
  void add(const pbf_stats& s) {
    total += s.time_total_ms;
    grid += s.time_grid_ms;
    neighbors += s.time_neighbors_ms;
    constraints += s.time_constraints_ms;
    velocity += s.time_velocity_ms;
    vorticity_xsph += s.time_vorticity_viscosity_ms;
    iterations += s.density_iterations;
    avg_neighbors += s.avg_neighbors;
  }
};

// density_tolerance 0: every substep runs exactly `iterations` (4) density iterations.
void run_exact_iterations(pbf_solver* solver) {
  pbf_params params = pbf_params_default();
  check(pbf_solver_get_params(solver, &params));
  params.density_tolerance = 0.0f;
  check(pbf_solver_set_params(solver, &params));
}

// A cube of water of `particles` (rounded to a cube number) at 2.5 cm
// spacing in the corner of a box 4 x 3 x 1.5 times the cube's side.
// `graphs`: -1 leaves PBF_CUDA_GRAPHS as it is, 0 or 1 sets it for this solver.
// `fixed_iterations`: density_tolerance 0, so that every substep runs exactly
// `iterations` (4) density iterations; otherwise the default tolerance runs
// 4 to max_iterations (20) of them, as many as the compression needs, and the
// counter iterations_per_substep says how many ran.
void dam_break_step(benchmark::State& state, bool walls, int graphs = -1, uint32_t substeps = 1,
                    bool fixed_iterations = false) {
  const int side = static_cast<int>(std::lround(std::cbrt(static_cast<double>(state.range(0)))));
  const float spacing = 0.025f;
  const float block = side * spacing;
  const pbf_solver_desc desc = pbf_bench::dam_break_desc(static_cast<pbf_backend>(state.range(1)), side, spacing);
  if (!usable(state, desc.backend)) return;
  pbf_solver* solver = nullptr;
  if (graphs >= 0) setenv("PBF_CUDA_GRAPHS", graphs ? "1" : "0", 1);  // read when the solver is created
  check(pbf_solver_create(&desc, &solver));
  if (graphs >= 0) unsetenv("PBF_CUDA_GRAPHS");
  size_t boundary = 0;
  double boundary_setup_ms = 0.0;
  if (walls) {
    const auto start = std::chrono::steady_clock::now();
    check(pbf_solver_add_domain_boundary_particles(solver, &boundary));
    boundary_setup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  const float lo[3] = {0, 0, 0}, hi[3] = {block, block, block};
  size_t n = 0;
  check(pbf_solver_fill_box(solver, lo, hi, nullptr, &n));
  for (int k = 0; k < 30; ++k) check(pbf_solver_step(solver, 0.001f, 1));

  if (fixed_iterations) run_exact_iterations(solver);
  pbf_stats stats = pbf_stats_default();
  PhaseSums sums;
  for (auto _ : state) {
    check(pbf_solver_step(solver, 0.001f, substeps));
    check(pbf_solver_get_stats(solver, &stats));
    sums.add(stats);
  }
  const double steps = static_cast<double>(state.iterations());
  state.counters["particles"] = static_cast<double>(n);
  state.counters["iterations_per_substep"] = sums.iterations / (steps * substeps);
  state.counters["particle_iterations_per_s"] =
      benchmark::Counter(static_cast<double>(n) * sums.iterations, benchmark::Counter::kIsRate);
  state.counters["grid_ms"] = sums.grid / steps;
  state.counters["neighbors_ms"] = sums.neighbors / steps;
  state.counters["constraints_ms"] = sums.constraints / steps;
  state.counters["vorticity_xsph_ms"] = sums.vorticity_xsph / steps;
  state.counters["velocity_ms"] = sums.velocity / steps;
  state.counters["avg_density_error"] = stats.avg_density_error;
  if (walls) {
    state.counters["boundary_particles"] = static_cast<double>(boundary);
    state.counters["boundary_setup_ms"] = boundary_setup_ms;
  }
  check(pbf_solver_destroy(solver));
}

void BM_DamBreakStep(benchmark::State& state) { dam_break_step(state, false); }

void BM_DamBreakWallsStep(benchmark::State& state) { dam_break_step(state, state.range(2) != 0); }

// DESIGN.md §7's targets are for 4 iterations a substep: the same scene with exactly that many.
void BM_DamBreakFixedIterationsStep(benchmark::State& state) { dam_break_step(state, false, -1, 1, true); }

void BM_CudaGraphStep(benchmark::State& state) { dam_break_step(state, false, static_cast<int>(state.range(2)), 2); }

// Bytes the heap has handed out and not taken back (glibc's mallinfo2; 0 elsewhere).
double heap_in_use() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks) + static_cast<double>(m.hblkhd);
#else
  return 0.0;
#endif
}

constexpr int kTankWarmUpSteps = 30, kTankTimedSteps = 30;

void BM_TankScalingStep(benchmark::State& state) {
  const float spacing = 0.025f, depth = 0.5f;
  const int layers = static_cast<int>(std::lround(depth / spacing));
  const int side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(state.range(0)) / layers)));
  const float width = side * spacing;
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = static_cast<pbf_backend>(state.range(1));
  desc.particle_spacing = spacing;
  desc.domain_max[0] = width;
  desc.domain_max[1] = 2.0f * depth;
  desc.domain_max[2] = width;
  desc.max_particles = static_cast<uint32_t>(side) * static_cast<uint32_t>(side) * static_cast<uint32_t>(layers);
  if (!usable(state, desc.backend)) return;
  const double heap_before = heap_in_use();
  pbf_solver* solver = nullptr;
  check(pbf_solver_create(&desc, &solver));
  const float lo[3] = {0, 0, 0}, hi[3] = {width, depth, width};
  size_t n = 0;
  check(pbf_solver_fill_box(solver, lo, hi, nullptr, &n));
  run_exact_iterations(solver);  // the same work per particle at every size
  for (int k = 0; k < kTankWarmUpSteps; ++k) check(pbf_solver_step(solver, 0.001f, 1));
  const double bytes_per_particle = (heap_in_use() - heap_before) / static_cast<double>(n);
  pbf_stats stats = pbf_stats_default();
  PhaseSums sums;
  for (auto _ : state) {
    check(pbf_solver_step(solver, 0.001f, 1));
    check(pbf_solver_get_stats(solver, &stats));
    sums.add(stats);
  }
  const double steps = static_cast<double>(state.iterations());
  const double ns = 1e6 / (steps * static_cast<double>(n));  // ms summed over the steps -> ns per particle
  state.counters["particles"] = static_cast<double>(n);
  state.counters["ns_per_particle"] = sums.total * ns;
  state.counters["grid_ns"] = sums.grid * ns;
  state.counters["neighbors_ns"] = sums.neighbors * ns;
  state.counters["constraints_ns"] = sums.constraints * ns;
  state.counters["velocity_ns"] = sums.velocity * ns;
  state.counters["vorticity_xsph_ns"] = sums.vorticity_xsph * ns;
  state.counters["avg_neighbors"] = sums.avg_neighbors / steps;
  state.counters["bytes_per_particle"] = bytes_per_particle;
  state.counters["avg_density_error"] = stats.avg_density_error;
  check(pbf_solver_destroy(solver));
}

void BM_CoincidentStep(benchmark::State& state) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = static_cast<pbf_backend>(state.range(1));
  desc.max_particles = static_cast<uint32_t>(state.range(0));
  if (!usable(state, desc.backend)) return;
  pbf_solver* solver = nullptr;
  check(pbf_solver_create(&desc, &solver));
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<float> positions(3 * n, 0.5f), velocities(3 * n, 0.0f);
  check(pbf_solver_add_particles(solver, positions.data(), nullptr, n));
  pbf_stats stats = pbf_stats_default();
  double neighbors = 0;
  for (auto _ : state) {
    state.PauseTiming();
    // Every step from rest at one point.
    check(pbf_solver_set_positions(solver, positions.data(), positions.size()));
    check(pbf_solver_set_velocities(solver, velocities.data(), velocities.size()));
    state.ResumeTiming();
    check(pbf_solver_step(solver, 0.001f, 1));
    check(pbf_solver_get_stats(solver, &stats));
    neighbors += stats.time_neighbors_ms;
  }
  state.counters["particles"] = static_cast<double>(n);
  state.counters["neighbors_ms"] = neighbors / static_cast<double>(state.iterations());
  state.counters["neighbor_overflows"] = stats.neighbor_overflows;
  check(pbf_solver_destroy(solver));
}

}  // namespace

BENCHMARK(BM_CoincidentStep)
    ->ArgNames({"particles", "backend"})
    ->Args({8000, PBF_BACKEND_CPU})
    ->Args({64000, PBF_BACKEND_CPU})
    ->Args({1000000, PBF_BACKEND_CUDA})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_DamBreakFixedIterationsStep)
    ->ArgNames({"particles", "backend"})
    ->Args({59319, PBF_BACKEND_CUDA})
    ->Args({1000000, PBF_BACKEND_CUDA})
    ->Args({4000000, PBF_BACKEND_CUDA})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_DamBreakStep)
    ->ArgNames({"particles", "backend"})
    ->Args({30000, PBF_BACKEND_CPU})
    ->Args({125000, PBF_BACKEND_CPU})
    ->Args({500000, PBF_BACKEND_CPU})
    ->Args({59319, PBF_BACKEND_CUDA})
    ->Args({128000, PBF_BACKEND_CUDA})
    ->Args({1000000, PBF_BACKEND_CUDA})
    ->Args({4000000, PBF_BACKEND_CUDA})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_DamBreakWallsStep)
    ->ArgNames({"particles", "backend", "walls"})
    ->Args({30000, PBF_BACKEND_CPU, 0})
    ->Args({30000, PBF_BACKEND_CPU, 1})
    ->Args({59319, PBF_BACKEND_CPU, 0})
    ->Args({59319, PBF_BACKEND_CPU, 1})
    ->Args({1000000, PBF_BACKEND_CUDA, 0})
    ->Args({1000000, PBF_BACKEND_CUDA, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_TankScalingStep)
    ->ArgNames({"particles", "backend"})
    ->ArgsProduct({{30000, 125000, 500000, 1000000, 2000000, 4000000}, {PBF_BACKEND_CPU}})
    ->Iterations(kTankTimedSteps)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_CudaGraphStep)
    ->ArgNames({"particles", "backend", "graphs"})
    ->ArgsProduct({{8000, 59319, 1000000}, {PBF_BACKEND_CUDA}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
