// bench_surface - the liquid surface two ways, weighed by speed and quality:
// the library's own (pbf_solver_build_surface: a smoothed particle field
// sampled on a grid, marching cubes, normals) against OpenVDB's particle
// tools (ParticlesToLevelSet: a sphere per particle rasterised into a level
// set, the union as it is or eroded back to the liquid's edge and smoothed as
// a VFX tool would, then volumeToMesh). Both at the same cell: half a particle
// spacing.
//
// Two states of the reference block (DESIGN.md §7, 39^3 = 59,319 particles at
// 0.025 m): at rest with each particle moved up to 0.1 spacings at random
// (particles at rest are never on a perfect lattice), and after 0.4 s of the
// dam break (a splash). Counters: triangles; for the block at rest the
// enclosed volume against N spacing^3 (volume_ratio) and the top face's
// roughness, the RMS height of its vertices about their mean in spacings
// (top_rms_spacings; the jitter alone is 0.058).
//
//   build/release/tests/bench_surface --benchmark_min_time=2
#include <benchmark/benchmark.h>
#include <openvdb/openvdb.h>
#include <openvdb/tools/LevelSetFilter.h>
#include <openvdb/tools/ParticlesToLevelSet.h>
#include <openvdb/tools/VolumeToMesh.h>
#include <pbf/pbf.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "bench_scenes.h"

namespace {

constexpr int kSide = 39;
constexpr float kSpacing = 0.025f;
constexpr float kCell = 0.5f;  // [spacings]

void check(pbf_status status) { pbf_bench::check(status, "bench_surface"); }

// A triangle mesh as both pipelines give it: 3 floats per vertex, 3 indices per triangle.
struct Mesh {
  std::vector<float> vertices;
  std::vector<uint32_t> triangles;
};

// The particles of the reference block, at rest (jittered) or after `seconds` of the dam break.
std::vector<float> particles(double seconds) {
  pbf_solver_desc desc = pbf_bench::dam_break_desc(PBF_BACKEND_CPU, kSide, kSpacing);
  pbf_solver* solver = nullptr;
  check(pbf_solver_create(&desc, &solver));
  const float lo[3] = {0, 0, 0}, hi[3] = {kSide * kSpacing, kSide * kSpacing, kSide * kSpacing};
  check(pbf_solver_fill_box(solver, lo, hi, nullptr, nullptr));
  size_t n = 0;
  check(pbf_solver_particle_count(solver, &n));
  std::vector<float> x(3 * n);
  if (seconds > 0.0) {
    for (int frame = 0; frame < static_cast<int>(std::lround(seconds * 60.0)); ++frame)
      check(pbf_solver_step(solver, 1.0f / 60.0f, 4));
    check(pbf_solver_get_positions(solver, x.data(), x.size()));
  } else {
    check(pbf_solver_get_positions(solver, x.data(), x.size()));
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> jitter(-0.1f * kSpacing, 0.1f * kSpacing);
    for (float& c : x) c += jitter(rng);
  }
  pbf_solver_destroy(solver);
  return x;
}

Mesh library_surface(const std::vector<float>& x) {
  pbf_solver_desc desc = pbf_bench::dam_break_desc(PBF_BACKEND_CPU, kSide, kSpacing);
  pbf_solver* solver = nullptr;
  check(pbf_solver_create(&desc, &solver));
  const float lo[3] = {0, 0, 0}, hi[3] = {kSide * kSpacing, kSide * kSpacing, kSide * kSpacing};
  check(pbf_solver_fill_box(solver, lo, hi, nullptr, nullptr));
  check(pbf_solver_set_positions(solver, x.data(), x.size()));
  pbf_surface* surface = nullptr;
  check(pbf_surface_create(&surface));
  pbf_surface_params params = pbf_surface_params_default();
  params.cell_size = kCell;
  check(pbf_solver_build_surface(solver, &params, surface));
  size_t vertices = 0, triangles = 0;
  check(pbf_surface_get_counts(surface, &vertices, &triangles));
  Mesh m;
  m.vertices.resize(3 * vertices);
  m.triangles.resize(3 * triangles);
  check(pbf_surface_get_vertices(surface, m.vertices.data(), m.vertices.size()));
  check(pbf_surface_get_triangles(surface, m.triangles.data(), m.triangles.size()));
  pbf_surface_destroy(surface);
  pbf_solver_destroy(solver);
  return m;
}

// What OpenVDB's ParticlesToLevelSet reads: positions and one radius.
struct ParticleList {
  using PosType = openvdb::Vec3R;
  const std::vector<float>* x;
  double radius;
  size_t size() const { return x->size() / 3; }
  void getPos(size_t n, openvdb::Vec3R& p) const { p = openvdb::Vec3R((*x)[3 * n], (*x)[3 * n + 1], (*x)[3 * n + 2]); }
  void getPosRad(size_t n, openvdb::Vec3R& p, openvdb::Real& r) const {
    getPos(n, p);
    r = radius;
  }
};

// Spheres of one spacing (so that they overlap into a solid); `filtered`:
// eroded by half a spacing (the liquid's edge is half a spacing beyond the
// outer particles) and two mean-curvature smoothing passes. Then the zero
// level as quads split in two.
Mesh openvdb_surface(const std::vector<float>& x, bool filtered) {
  const double voxel = kCell * kSpacing;
  openvdb::FloatGrid::Ptr grid = openvdb::createLevelSet<openvdb::FloatGrid>(voxel, 3.0);
  openvdb::tools::ParticlesToLevelSet<openvdb::FloatGrid> raster(*grid);
  raster.setRmin(0.5);
  raster.rasterizeSpheres(ParticleList{&x, static_cast<double>(kSpacing)});
  raster.finalize(true);
  if (filtered) {
    openvdb::tools::LevelSetFilter<openvdb::FloatGrid> filter(*grid);
    filter.offset(0.5 * kSpacing);
    filter.meanCurvature();
    filter.meanCurvature();
  }
  std::vector<openvdb::Vec3s> points;
  std::vector<openvdb::Vec3I> triangles;
  std::vector<openvdb::Vec4I> quads;
  openvdb::tools::volumeToMesh(*grid, points, triangles, quads, 0.0, 0.0);
  Mesh m;
  for (const openvdb::Vec3s& p : points) m.vertices.insert(m.vertices.end(), {p.x(), p.y(), p.z()});
  // volumeToMesh winds its polygons the other way round from ours (clockwise seen from outside).
  for (const openvdb::Vec3I& t : triangles) m.triangles.insert(m.triangles.end(), {t[0], t[2], t[1]});
  for (const openvdb::Vec4I& q : quads) {
    m.triangles.insert(m.triangles.end(), {q[0], q[2], q[1]});
    m.triangles.insert(m.triangles.end(), {q[0], q[3], q[2]});
  }
  return m;
}

// Enclosed volume (divergence theorem), sign by winding; measured from the centroid.
double volume(const Mesh& m) {
  const size_t n = m.vertices.size() / 3;
  double c[3] = {0, 0, 0};
  for (size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) c[a] += m.vertices[3 * i + a] / static_cast<double>(n);
  double v = 0.0;
  for (size_t t = 0; t < m.triangles.size() / 3; ++t) {
    double p[3][3];
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) p[k][a] = m.vertices[3 * m.triangles[3 * t + k] + a] - c[a];
    v += p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) - p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
         p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0]);
  }
  return std::fabs(v / 6.0);
}

// The RMS height about the mean [spacings] of the vertices on the block's top
// face: within a spacing of the highest vertex, two spacings or more from the sides.
double top_rms(const Mesh& m) {
  const size_t n = m.vertices.size() / 3;
  float top = -1e30f;
  for (size_t i = 0; i < n; ++i) top = std::max(top, m.vertices[3 * i + 1]);
  const float side = kSide * kSpacing, margin = 2.0f * kSpacing;
  std::vector<double> heights;
  for (size_t i = 0; i < n; ++i) {
    const float* p = &m.vertices[3 * i];
    if (p[1] > top - kSpacing && p[0] > margin && p[0] < side - margin && p[2] > margin && p[2] < side - margin)
      heights.push_back(p[1]);
  }
  double mean = 0.0, sq = 0.0;
  for (double h : heights) mean += h / heights.size();
  for (double h : heights) sq += (h - mean) * (h - mean) / heights.size();
  return std::sqrt(sq) / kSpacing;
}

const std::vector<float>& state(int which) {
  static const std::array<std::vector<float>, 2> states = {particles(0.0), particles(0.4)};
  return states[which];
}

void report(benchmark::State& bench, const Mesh& m, int which) {
  bench.counters["triangles"] = static_cast<double>(m.triangles.size() / 3);
  if (which == 0) {
    const double n = static_cast<double>(state(0).size() / 3);
    bench.counters["volume_ratio"] = volume(m) / (n * kSpacing * kSpacing * kSpacing);
    bench.counters["top_rms_spacings"] = top_rms(m);
  }
}

void BM_LibrarySurface(benchmark::State& bench) {
  const int which = static_cast<int>(bench.range(0));
  const std::vector<float>& x = state(which);
  Mesh m;
  for (auto _ : bench) m = library_surface(x);
  report(bench, m, which);
}

void BM_OpenVdbSurface(benchmark::State& bench) {
  openvdb::initialize();
  const int which = static_cast<int>(bench.range(0));
  const std::vector<float>& x = state(which);
  Mesh m;
  for (auto _ : bench) m = openvdb_surface(x, bench.range(1) != 0);
  report(bench, m, which);
}

}  // namespace

// state: 0 = the block at rest, 1 = the dam break after 0.4 s.
BENCHMARK(BM_LibrarySurface)->ArgName("state")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
// filtered: 0 = the spheres' union as it is, 1 = eroded to the liquid's edge and smoothed.
BENCHMARK(BM_OpenVdbSurface)->ArgNames({"state", "filtered"})->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
