// bench_sdf - building the signed distance field of a 102,400-triangle torus
// (tilted by 45 degrees so that its box is nearly a cube) on grids of about
// 64^3 and 128^3 samples, exactly everywhere and in a narrow band of three
// cells. Reports triangles x samples per second.
//
//   build/release/tests/bench_sdf
#include <benchmark/benchmark.h>

#include <cmath>

#include "geometry/mesh_loader.h"
#include "geometry/signed_distance_field.h"
#include "geometry/test_meshes.h"

namespace {

const pbf::TriangleMesh& torus_mesh() {
  static const pbf::TriangleMesh mesh = [] {
    pbf::TriangleMesh m = pbf_test::torus(0.4f, 0.15f, 320, 160);  // 102,400 triangles
    pbf::MeshTransform tilt;
    tilt.rotation[0] = std::sin(0.3927f);  // 45 degrees about x
    tilt.rotation[3] = std::cos(0.3927f);
    pbf::transform_mesh(m, tilt);
    return m;
  }();
  return mesh;
}

// args: samples across the torus's longest side, band in cells (0 = exact).
void BM_BuildSdf(benchmark::State& state) {
  const pbf::TriangleMesh& mesh = torus_mesh();
  const int across = int(state.range(0));
  const pbf::Bounds b = pbf::mesh_bounds(mesh);
  pbf::SdfOptions options;
  options.margin = 2;
  // The grid's longest axis holds `across` samples: extent / cell + 1 + 2 margin.
  options.cell = (b.hi.x - b.lo.x) / float(across - 1 - 2 * options.margin) * 1.0001f;
  options.band = float(state.range(1)) * options.cell;
  size_t samples = 0;
  for (auto _ : state) {
    const pbf::SignedDistanceField f = pbf::build_sdf(mesh, options);
    samples = f.values.size();
    benchmark::DoNotOptimize(f.values.data());
  }
  state.counters["triangles"] = double(mesh.triangles.size());
  state.counters["samples"] = double(samples);
  state.counters["tri_samples_per_s"] = benchmark::Counter(double(mesh.triangles.size()) * double(samples),
                                                           benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_BuildSdf)
    ->ArgNames({"across", "band_cells"})
    ->Args({64, 0})
    ->Args({64, 3})
    ->Args({128, 0})
    ->Args({128, 3})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
