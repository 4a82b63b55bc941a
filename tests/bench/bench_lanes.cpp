// bench_lanes - PBF's sums over fluid neighbours and Projective Fluids'
// constraint projection (its local step) on one thread, one neighbour at a
// time (pbf_equations.h, projective_equations.h: the CUDA backend's loops)
// and eight at a time in each copy this processor runs (baseline, AVX2;
// methods/pbf/cpu/pbf_cpu_lane_passes.h,
// methods/projective/cpu/projective_cpu_lane_passes.h), on a jittered block
// of 39^3 particles at 0.024 m spacing with h = 0.05 m (about 30 neighbours
// each, the reference scene's; 0.96 of the rest spacing, so that most
// projections take Newton steps). Reports neighbour pairs per second (per
// pass over the neighbours, or per projection).
//
//   build/release/tests/bench_lanes
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "backend/cpu/cpu_backend.h"  // CpuBackend::kRun
#include "backend/cpu/cpu_neighbor_grid.h"
#include "backend/cpu/lane_targets.h"
#include "backend/cpu/lane_vector.h"
#include "methods/pbf/cpu/pbf_cpu_lane_passes.h"
#include "methods/pbf/pbf_equations.h"
#include "methods/projective/cpu/projective_cpu_lane_passes.h"
#include "methods/projective/projective_equations.h"

namespace {

using pbf::LaneVector;
using pbf::Vec3;

struct Block {
  pbf::PbfConstants c;
  pbf::ProjectiveConstants projective;
  LaneVector<Vec3> x, v;
  std::vector<float> rho, lambda, omega_length;
  std::vector<pbf::PointValue> x_lambda, v_volume;  // as the Δp and vorticity passes read them
  std::vector<uint32_t> index, count;
  uint32_t stride = 56;
  double pairs = 0;
  pbf::NeighborLists lists() const { return pbf::NeighborLists::particle_major(index.data(), count.data(), stride); }
};

const Block& block() {
  static const Block b = [] {
    Block s;
    pbf::SolverConfig config;
    config.kernel_radius = 0.05f;
    config.particle_spacing = 0.025f;
    config.rest_density = 1000.0f;
    pbf::PbfParams p;
    s.c = pbf::make_pbf_constants(config, p, 0.001f);
    config.max_neighbors = s.stride;
    s.projective = pbf::make_projective_constants(config, p, 0.001f);
    const int n = 39;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> jitter(-0.002f, 0.002f), unit(-1.0f, 1.0f);
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          s.x.push_back(Vec3{i * 0.024f + jitter(rng), j * 0.024f + jitter(rng), k * 0.024f + jitter(rng)});
    const size_t count = s.x.size();
    s.index.assign(count * s.stride, 0u);
    s.count.assign(count, 0u);
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const uint32_t a = static_cast<uint32_t>((k * n + j) * n + i);
          for (int dk = -3; dk <= 3; ++dk)
            for (int dj = -3; dj <= 3; ++dj)
              for (int di = -3; di <= 3; ++di) {
                const int kk = k + dk, jj = j + dj, ii = i + di;
                if (kk < 0 || jj < 0 || ii < 0 || kk >= n || jj >= n || ii >= n) continue;
                const uint32_t o = static_cast<uint32_t>((kk * n + jj) * n + ii);
                if (o != a && pbf::length_squared(s.x[a] - s.x[o]) < s.c.kernel.h2 && s.count[a] < s.stride)
                  s.index[a * s.stride + s.count[a]++] = o;
              }
          std::sort(s.index.begin() + a * s.stride, s.index.begin() + a * s.stride + s.count[a]);
          // Padded as the CPU backend's lists, in place: one row per particle, and room for the padding.
          std::vector<uint32_t> row(s.index.begin() + a * s.stride, s.index.begin() + (a + 1) * s.stride);
          row.resize(s.stride + pbf::kLaneGroup, 0u);
          pbf::put_list(row.data(), s.count[a], pbf::ListRows::split(s.index.data(), count, s.stride, s.stride), a);
          s.pairs += s.count[a];
        }
    for (size_t i = 0; i < count; ++i) {
      s.v.push_back(Vec3{unit(rng), unit(rng), unit(rng)});
      s.rho.push_back(1000.0f + 10.0f * unit(rng));
      s.lambda.push_back(1e-4f * unit(rng));
      s.omega_length.push_back(1.0f + unit(rng));
    }
    for (size_t i = 0; i < s.x.size(); ++i) {
      s.x_lambda.push_back(pbf::PointValue{s.x[i], s.lambda[i]});
      s.v_volume.push_back(pbf::PointValue{s.v[i], s.c.mass / s.rho[i]});
    }
    return s;
  }();
  return b;
}

// arg: -1 one neighbour at a time, else the LaneTarget, whose passes run on
// runs of particles as the CPU backend's (CpuBackend::kRun).
template <class Out, class Scalar, class Lanes>
void run(benchmark::State& state, Scalar scalar, Lanes lanes) {
  const Block& b = block();
  const int target = int(state.range(0));
  if (target >= 0 && !pbf::lane_target_runs_here(static_cast<pbf::LaneTarget>(target))) {
    state.SkipWithError("this processor does not run that copy");
    return;
  }
  const pbf::PbfLanePasses passes = pbf::pbf_lane_passes(static_cast<pbf::LaneTarget>(target < 0 ? 0 : target));
  const pbf::NeighborLists nb = b.lists();
  const uint32_t n = static_cast<uint32_t>(b.x.size());
  std::vector<Out> out(n);
  for (auto _ : state) {
    if (target < 0) {
      for (uint32_t i = 0; i < n; ++i) out[i] = scalar(b, nb, i);
    } else {
      for (uint32_t i = 0; i < n; i += pbf::CpuBackend::kRun)
        lanes(b, nb, passes, i, std::min(n, i + pbf::CpuBackend::kRun), out.data() + i);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(int64_t(state.iterations() * b.pairs));
  state.SetLabel(target < 0 ? "one at a time" : pbf::lane_target_name(static_cast<pbf::LaneTarget>(target)));
}

using Nb = pbf::NeighborLists;
using Passes = pbf::PbfLanePasses;

void BM_DensitySums(benchmark::State& state) {
  run<pbf::FluidDensitySums<float, Vec3>>(
      state, [](const Block& b, const Nb& nb, uint32_t i) { return pbf::fluid_density_sums(b.c, i, nb, b.x.data()); },
      [](const Block& b, const Nb& nb, const Passes& l, uint32_t begin, uint32_t end, auto* out) {
        l.fluid_density_sums(b.c, begin, end, nb, b.x.data(), out);
      });
}

void BM_PositionCorrection(benchmark::State& state) {
  run<Vec3>(
      state,
      [](const Block& b, const Nb& nb, uint32_t i) {
        return pbf::position_correction(b.c, i, nb, b.x.data(), b.lambda.data());
      },
      [](const Block& b, const Nb& nb, const Passes& l, uint32_t begin, uint32_t end, Vec3* out) {
        l.fluid_position_corrections(b.c, begin, end, nb, b.x_lambda.data(), out);
      });
}

void BM_Vorticity(benchmark::State& state) {
  run<Vec3>(
      state,
      [](const Block& b, const Nb& nb, uint32_t i) {
        return pbf::vorticity(b.c, i, nb, b.x.data(), b.v.data(), b.rho.data());
      },
      [](const Block& b, const Nb& nb, const Passes& l, uint32_t begin, uint32_t end, Vec3* out) {
        l.vorticities(b.c, begin, end, nb, b.x.data(), b.v_volume.data(), out);
      });
}

void BM_ProjectDensityConstraint(benchmark::State& state) {
  const Block& b = block();
  const int target = int(state.range(0));
  if (target >= 0 && !pbf::lane_target_runs_here(static_cast<pbf::LaneTarget>(target))) {
    state.SkipWithError("this processor does not run that copy");
    return;
  }
  const pbf::ProjectiveLanePasses lanes =
      pbf::projective_lane_passes(static_cast<pbf::LaneTarget>(target < 0 ? 0 : target));
  const pbf::NeighborLists nb = b.lists();
  const pbf::ProjectionWalls no_walls{nullptr, 0u, 0.0f, nullptr};
  LaneVector<Vec3> d(b.projective.slots);
  uint64_t steps = 0;
  for (auto _ : state)
    for (uint32_t i = 0; i < b.x.size(); ++i) {
      const pbf::Projection p =
          target < 0 ? pbf::project_density_constraint(b.projective, i, nb, pbf::BoundarySamples{}, pbf::DensityWalls{},
                                                       no_walls, b.x.data(), d.data())
                     : lanes.project_density_constraint(b.projective, i, nb, pbf::BoundarySamples{},
                                                        pbf::DensityWalls{}, no_walls, b.x.data(), d.data());
      steps += p.steps;
      benchmark::DoNotOptimize(d.data());
    }
  state.SetItemsProcessed(int64_t(state.iterations() * b.pairs));
  state.counters["newton_steps"] = double(steps) / double(state.iterations() * b.x.size());
  state.SetLabel(target < 0 ? "one at a time" : pbf::lane_target_name(static_cast<pbf::LaneTarget>(target)));
}

}  // namespace

BENCHMARK(BM_DensitySums)->Arg(-1)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PositionCorrection)->Arg(-1)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Vorticity)->Arg(-1)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProjectDensityConstraint)->Arg(-1)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
