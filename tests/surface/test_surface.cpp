// test_surface.cpp - liquid and solid surfaces through the C API: closed,
// consistently oriented meshes with outward unit normals that enclose the
// water's volume, the errors of every entry point, and the PLY file.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "capi/expect_refused.h"

namespace {

using pbf_test::expect_refused;

struct Mesh {
  std::vector<float> vertices, normals;
  std::vector<uint32_t> triangles;
  size_t vertex_count() const { return vertices.size() / 3; }
  size_t triangle_count() const { return triangles.size() / 3; }
};

// RAII owners, so that a failed assertion leaks nothing under the sanitizers.
struct SolverOwner {
  pbf_solver* s = nullptr;
  ~SolverOwner() { pbf_solver_destroy(s); }
};
struct SurfaceOwner {
  pbf_surface* s = nullptr;
  SurfaceOwner() { EXPECT_EQ(pbf_surface_create(&s), PBF_OK); }
  ~SurfaceOwner() { pbf_surface_destroy(s); }
};

// A CPU solver of spacing s over the unit cube holding `positions`.
void make_solver(SolverOwner& o, float s, const std::vector<float>& positions, int32_t threads = 0) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.particle_spacing = s;
  d.max_particles = 100000;
  d.thread_count = threads;
  ASSERT_EQ(pbf_solver_create(&d, &o.s), PBF_OK) << pbf_last_error();
  if (!positions.empty())
    ASSERT_EQ(pbf_solver_add_particles(o.s, positions.data(), nullptr, positions.size() / 3), PBF_OK)
        << pbf_last_error();
}

Mesh read_mesh(const pbf_surface* surface) {
  Mesh m;
  size_t nv = 0, nt = 0;
  EXPECT_EQ(pbf_surface_get_counts(surface, &nv, &nt), PBF_OK);
  m.vertices.resize(3 * nv);
  m.normals.resize(3 * nv);
  m.triangles.resize(3 * nt);
  EXPECT_EQ(pbf_surface_get_vertices(surface, m.vertices.data(), m.vertices.size()), PBF_OK);
  EXPECT_EQ(pbf_surface_get_normals(surface, m.normals.data(), m.normals.size()), PBF_OK);
  EXPECT_EQ(pbf_surface_get_triangles(surface, m.triangles.data(), m.triangles.size()), PBF_OK);
  return m;
}

// The liquid surface of `positions` at spacing s.
Mesh liquid_surface(const std::vector<float>& positions, float s, float cell_size, int32_t threads = 0,
                    float anisotropy = 0.0f) {
  SolverOwner solver;
  make_solver(solver, s, positions, threads);
  SurfaceOwner surface;
  pbf_surface_params p = pbf_surface_params_default();
  p.cell_size = cell_size;
  p.anisotropy = anisotropy;
  EXPECT_EQ(pbf_solver_build_surface(solver.s, &p, surface.s), PBF_OK) << pbf_last_error();
  return read_mesh(surface.s);
}

// Particles on the rest lattice (centres at corner + (i + 1/2) s) of an nx x ny x nz block.
std::vector<float> lattice_box(int nx, int ny, int nz, float s, const float corner[3]) {
  std::vector<float> p;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        p.push_back(corner[0] + (i + 0.5f) * s);
        p.push_back(corner[1] + (j + 0.5f) * s);
        p.push_back(corner[2] + (k + 0.5f) * s);
      }
  return p;
}

// Lattice points (centre + (i + 1/2) s) within r of the centre.
std::vector<float> lattice_sphere(float r, float s, const float centre[3]) {
  std::vector<float> p;
  const int m = static_cast<int>(std::ceil(r / s)) + 1;
  for (int k = -m; k < m; ++k)
    for (int j = -m; j < m; ++j)
      for (int i = -m; i < m; ++i) {
        const double o[3] = {(i + 0.5) * s, (j + 0.5) * s, (k + 0.5) * s};
        if (o[0] * o[0] + o[1] * o[1] + o[2] * o[2] > static_cast<double>(r) * r) continue;
        for (int a = 0; a < 3; ++a) p.push_back(static_cast<float>(centre[a] + o[a]));
      }
  return p;
}

// Every directed edge appears once and its reverse once: each edge is shared by exactly two
// triangles that traverse it in opposite directions. Returns the first problem, or "".
std::string closure_problem(const Mesh& m) {
  std::map<std::pair<uint32_t, uint32_t>, int> directed;
  for (size_t t = 0; t < m.triangle_count(); ++t) {
    const uint32_t* v = &m.triangles[3 * t];
    for (int c = 0; c < 3; ++c) {
      if (v[c] >= m.vertex_count()) return "index out of range in triangle " + std::to_string(t);
      if (v[c] == v[(c + 1) % 3]) return "degenerate triangle " + std::to_string(t);
      if (++directed[{v[c], v[(c + 1) % 3]}] > 1) return "directed edge used twice in triangle " + std::to_string(t);
    }
  }
  for (const auto& [edge, count] : directed)
    if (!directed.count({edge.second, edge.first}))
      return "edge " + std::to_string(edge.first) + "-" + std::to_string(edge.second) + " has no opposite";
  return "";
}

// V - E + F of a closed mesh, whose every edge has two triangles: E = 3F / 2.
long euler_characteristic(const Mesh& m) {
  return static_cast<long>(m.vertex_count()) - static_cast<long>(3 * m.triangle_count() / 2) +
         static_cast<long>(m.triangle_count());
}

std::array<double, 3> centroid(const Mesh& m) {
  std::array<double, 3> c{0, 0, 0};
  for (size_t i = 0; i < m.vertex_count(); ++i)
    for (int a = 0; a < 3; ++a) c[a] += m.vertices[3 * i + a] / static_cast<double>(m.vertex_count());
  return c;
}

// The enclosed volume by the divergence theorem: positive when the triangles are
// counter-clockwise seen from outside.
double signed_volume(const Mesh& m) {
  const std::array<double, 3> c = centroid(m);  // measured from the centroid to keep the sum well conditioned
  double v = 0.0;
  for (size_t t = 0; t < m.triangle_count(); ++t) {
    double p[3][3];
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) p[k][a] = m.vertices[3 * m.triangles[3 * t + k] + a] - c[a];
    v += p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) - p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
         p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0]);
  }
  return v / 6.0;
}

// The largest | |n| - 1 | over the normals.
double worst_normal_length_error(const Mesh& m) {
  double worst = 0.0;
  for (size_t i = 0; i < m.vertex_count(); ++i) {
    const float* n = &m.normals[3 * i];
    worst = std::max(worst, std::fabs(std::sqrt(double(n[0]) * n[0] + double(n[1]) * n[1] + double(n[2]) * n[2]) - 1.0));
  }
  return worst;
}

// Vertices whose normal does not point away from `c` (for a ball, every normal should).
size_t inward_normals(const Mesh& m, const std::array<double, 3>& c) {
  size_t inward = 0;
  for (size_t i = 0; i < m.vertex_count(); ++i) {
    double dot = 0.0;
    for (int a = 0; a < 3; ++a) dot += m.normals[3 * i + a] * (m.vertices[3 * i + a] - c[a]);
    inward += dot > 0.0 ? 0 : 1;
  }
  return inward;
}

// Triangles whose winding disagrees with their vertices' normals.
size_t normals_against_winding(const Mesh& m) {
  size_t against = 0;
  for (size_t t = 0; t < m.triangle_count(); ++t) {
    const uint32_t* v = &m.triangles[3 * t];
    double e1[3], e2[3], n[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a) {
      e1[a] = m.vertices[3 * v[1] + a] - m.vertices[3 * v[0] + a];
      e2[a] = m.vertices[3 * v[2] + a] - m.vertices[3 * v[0] + a];
      for (int c = 0; c < 3; ++c) n[a] += m.normals[3 * v[c] + a];
    }
    const double face[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    against += face[0] * n[0] + face[1] * n[1] + face[2] * n[2] > 0.0 ? 0 : 1;
  }
  return against;
}

// A ball of water, the lattice points within 0.2 m of the unit cube's centre at spacing 0.02 m.
constexpr float kBallSpacing = 0.02f, kBallRadius = 0.2f;
constexpr float kCentre[3] = {0.5f, 0.5f, 0.5f};

class LiquidBall : public ::testing::TestWithParam<float> {};

TEST_P(LiquidBall, IsAClosedSphereWithOutwardUnitNormalsAndTheWatersVolume) {
  const std::vector<float> p = lattice_sphere(kBallRadius, kBallSpacing, kCentre);
  const Mesh m = liquid_surface(p, kBallSpacing, GetParam());
  ASSERT_GT(m.triangle_count(), 100u);
  EXPECT_EQ(closure_problem(m), "");
  EXPECT_EQ(euler_characteristic(m), 2) << "one closed surface of genus 0";
  EXPECT_LT(worst_normal_length_error(m), 1e-5) << "unit normals, to float rounding";
  EXPECT_EQ(inward_normals(m, centroid(m)), 0u) << "every normal points away from the ball's centre";
  EXPECT_EQ(normals_against_winding(m), 0u) << "normals on the side the triangles face";
  const double water = (p.size() / 3) * double(kBallSpacing) * kBallSpacing * kBallSpacing;
  // 3%: the iso-surface sits a little inside the lattice's cells at the ball's rim (1.3% low at both cells).
  EXPECT_NEAR(signed_volume(m), water, 0.03 * water) << "N x spacing^3; positive: wound outward";
}

INSTANTIATE_TEST_SUITE_P(AtTwoResolutions, LiquidBall, ::testing::Values(0.5f, 0.25f));

class LiquidBox : public ::testing::TestWithParam<float> {};

TEST_P(LiquidBox, IsClosedAndEnclosesTheWatersVolume) {
  const float s = 0.025f, corner[3] = {0.1f, 0.2f, 0.3f};
  const std::vector<float> p = lattice_box(20, 16, 12, s, corner);
  const Mesh m = liquid_surface(p, s, GetParam());
  ASSERT_GT(m.triangle_count(), 100u);
  EXPECT_EQ(closure_problem(m), "");
  EXPECT_EQ(euler_characteristic(m), 2);
  EXPECT_LT(worst_normal_length_error(m), 1e-5);
  EXPECT_EQ(normals_against_winding(m), 0u);
  const double water = (p.size() / 3) * double(s) * s * s;
  // 3%: the iso-surface rounds the block's edges and corners (1.5 to 1.7% low at these two cells).
  EXPECT_NEAR(signed_volume(m), water, 0.03 * water);
}

INSTANTIATE_TEST_SUITE_P(AtTwoResolutions, LiquidBox, ::testing::Values(0.5f, 0.25f));

TEST(LiquidSurface, ScatteredParticlesGiveClosedSurfacesInEveryCase) {
  // Random clouds at a fine cell size exercise the ambiguous cases of the case table.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.2f, 0.5f);
  std::vector<float> p(3 * 400);
  for (float& x : p) x = u(rng);
  const Mesh m = liquid_surface(p, 0.025f, 0.3f);
  ASSERT_GT(m.triangle_count(), 0u);
  EXPECT_EQ(closure_problem(m), "");
  EXPECT_LT(worst_normal_length_error(m), 1e-5);
  EXPECT_GT(signed_volume(m), 0.0);
}

TEST(LiquidSurface, IsTheSameForEveryThreadCount) {
  const std::vector<float> p = lattice_sphere(kBallRadius, kBallSpacing, kCentre);
  const Mesh one = liquid_surface(p, kBallSpacing, 0.5f, 1);
  const Mesh three = liquid_surface(p, kBallSpacing, 0.5f, 3);
  EXPECT_EQ(one.vertices, three.vertices) << "bit for bit";
  EXPECT_EQ(one.normals, three.normals);
  EXPECT_EQ(one.triangles, three.triangles);
}

// The standard deviation of the heights of the vertices on a block's top face, more than
// `margin` inside its edges (whose rounding is not the bumps measured).
double top_face_height_spread(const Mesh& m, const float lo[3], const float hi[3], float margin) {
  double top = -1e30;
  for (size_t i = 0; i < m.vertex_count(); ++i) top = std::max(top, double(m.vertices[3 * i + 1]));
  double sum = 0.0, sum2 = 0.0;
  size_t n = 0;
  for (size_t i = 0; i < m.vertex_count(); ++i) {
    const float* v = &m.vertices[3 * i];
    if (v[0] < lo[0] + margin || v[0] > hi[0] - margin || v[2] < lo[2] + margin || v[2] > hi[2] - margin) continue;
    if (v[1] < top - 0.5 * margin) continue;  // the bottom face, or the sides
    sum += v[1];
    sum2 += double(v[1]) * v[1];
    ++n;
  }
  EXPECT_GT(n, 100u) << "vertices on the top face";
  const double mean = sum / n;
  return std::sqrt(std::max(0.0, sum2 / n - mean * mean));
}

TEST(AnisotropicSurface, FlattensTheTopOfABlockAtRest) {
  // A 24 x 8 x 24 block on the rest lattice; its top face, 4 spacings inside its edges, at a quarter-spacing grid.
  const float s = 0.025f, corner[3] = {0.2f, 0.2f, 0.2f};
  const float hi[3] = {corner[0] + 24 * s, corner[1] + 8 * s, corner[2] + 24 * s};
  std::vector<float> p = lattice_box(24, 8, 24, s, corner);
  // Particles of water at rest sit off the lattice: each moved up to 0.2 spacings along each axis.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> jitter(-0.2f * s, 0.2f * s);
  for (float& x : p) x += jitter(rng);
  const double round = top_face_height_spread(liquid_surface(p, s, 0.25f, 0, 0.0f), corner, hi, 4 * s);
  const double flat = top_face_height_spread(liquid_surface(p, s, 0.25f, 0, 1.0f), corner, hi, 4 * s);
  // Measured: 0.063 spacings round, 0.039 anisotropic (on the exact lattice 0.0036 and 0.0013);
  // 0.75 x leaves room for rounding yet fails for kernels that do not follow the surface.
  EXPECT_LT(flat, 0.75 * round) << "round " << round / s << " spacings, anisotropic " << flat / s << " spacings";
}

TEST(AnisotropicSurface, KeepsABallClosedWithOutwardNormalsAndTheWatersVolume) {
  const std::vector<float> p = lattice_sphere(kBallRadius, kBallSpacing, kCentre);
  const Mesh m = liquid_surface(p, kBallSpacing, 0.5f, 0, 1.0f);
  ASSERT_GT(m.triangle_count(), 100u);
  EXPECT_EQ(closure_problem(m), "");
  EXPECT_EQ(euler_characteristic(m), 2) << "one closed surface of genus 0";
  EXPECT_LT(worst_normal_length_error(m), 1e-5);
  EXPECT_EQ(inward_normals(m, centroid(m)), 0u) << "every normal points away from the ball's centre";
  EXPECT_EQ(normals_against_winding(m), 0u);
  const double water = (p.size() / 3) * double(kBallSpacing) * kBallSpacing * kBallSpacing;
  // 3%, as for round kernels (measured: 0.2% low).
  EXPECT_NEAR(signed_volume(m), water, 0.03 * water);
}

TEST(AnisotropicSurface, IsTheSameForEveryThreadCount) {
  const std::vector<float> p = lattice_sphere(kBallRadius, kBallSpacing, kCentre);
  const Mesh one = liquid_surface(p, kBallSpacing, 0.5f, 1, 1.0f);
  const Mesh three = liquid_surface(p, kBallSpacing, 0.5f, 3, 1.0f);
  ASSERT_GT(one.triangle_count(), 100u);
  EXPECT_EQ(one.vertices, three.vertices) << "bit for bit";
  EXPECT_EQ(one.normals, three.normals);
  EXPECT_EQ(one.triangles, three.triangles);
}

TEST(AnisotropicSurface, ScatteredParticlesStillGiveAClosedSurface) {
  // Clouds mix particles with many neighbours and isolated ones that keep round kernels.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.2f, 0.4f);
  std::vector<float> p(3 * 2000);
  for (float& x : p) x = u(rng);
  const Mesh m = liquid_surface(p, 0.025f, 0.5f, 0, 1.0f);
  ASSERT_GT(m.triangle_count(), 0u);
  EXPECT_EQ(closure_problem(m), "");
  EXPECT_LT(worst_normal_length_error(m), 1e-5);
  EXPECT_GT(signed_volume(m), 0.0);
}

// pbf_surface_params as first released, before anisotropy was appended.
struct SurfaceParamsV1 {
  size_t struct_size;
  float cell_size, smoothing_radius, iso_level;
};

TEST(AnisotropicSurface, TheFirstLayoutOfTheParametersMeansRoundKernels) {
  const std::vector<float> p = lattice_sphere(0.1f, kBallSpacing, kCentre);
  SolverOwner solver;
  make_solver(solver, kBallSpacing, p);
  SurfaceOwner old_layout, round;
  // The old struct's tail padding holds garbage, as a caller's may: it must not be read as a field.
  unsigned char bytes[sizeof(pbf_surface_params)];
  std::memset(bytes, 0xFF, sizeof bytes);
  const SurfaceParamsV1 v1 = {sizeof(SurfaceParamsV1), 0.5f, 2.0f, 0.5f};
  std::memcpy(bytes, &v1, offsetof(SurfaceParamsV1, iso_level) + sizeof(float));
  ASSERT_EQ(pbf_solver_build_surface(solver.s, reinterpret_cast<const pbf_surface_params*>(bytes), old_layout.s),
            PBF_OK)
      << pbf_last_error();
  const pbf_surface_params defaults = pbf_surface_params_default();
  EXPECT_EQ(defaults.anisotropy, 0.0f) << "round kernels by default";
  ASSERT_EQ(pbf_solver_build_surface(solver.s, &defaults, round.s), PBF_OK);
  const Mesh a = read_mesh(old_layout.s), b = read_mesh(round.s);
  ASSERT_GT(a.triangle_count(), 100u);
  EXPECT_EQ(a.vertices, b.vertices);
  EXPECT_EQ(a.triangles, b.triangles);
}

TEST(LiquidSurface, NoParticlesGiveAnEmptyMeshThatNullBuffersRead) {
  SolverOwner solver;
  make_solver(solver, 0.025f, {});
  SurfaceOwner surface;
  ASSERT_EQ(pbf_solver_build_surface(solver.s, nullptr, surface.s), PBF_OK) << pbf_last_error();
  size_t nv = 1, nt = 1;
  EXPECT_EQ(pbf_surface_get_counts(surface.s, &nv, &nt), PBF_OK);
  EXPECT_EQ(nv, 0u);
  EXPECT_EQ(nt, 0u);
  EXPECT_EQ(pbf_surface_get_vertices(surface.s, nullptr, 0), PBF_OK);
  EXPECT_EQ(pbf_surface_get_normals(surface.s, nullptr, 0), PBF_OK);
  EXPECT_EQ(pbf_surface_get_triangles(surface.s, nullptr, 0), PBF_OK);
}

TEST(LiquidSurface, NullParamsMeanTheDefaults) {
  const std::vector<float> p = lattice_sphere(0.1f, kBallSpacing, kCentre);
  SolverOwner solver;
  make_solver(solver, kBallSpacing, p);
  SurfaceOwner a, b;
  const pbf_surface_params defaults = pbf_surface_params_default();
  ASSERT_EQ(pbf_solver_build_surface(solver.s, nullptr, a.s), PBF_OK);
  ASSERT_EQ(pbf_solver_build_surface(solver.s, &defaults, b.s), PBF_OK);
  const Mesh ma = read_mesh(a.s), mb = read_mesh(b.s);
  EXPECT_EQ(ma.vertices, mb.vertices);
  EXPECT_EQ(ma.triangles, mb.triangles);
}

class SurfaceErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    make_solver(solver_, kBallSpacing, lattice_sphere(0.06f, kBallSpacing, kCentre));
    ASSERT_EQ(pbf_solver_build_surface(solver_.s, nullptr, surface_.s), PBF_OK);
    before_ = read_mesh(surface_.s);
    ASSERT_GT(before_.vertex_count(), 0u);
  }
  // A refused build leaves the surface's mesh as it was.
  void expect_unchanged() {
    const Mesh now = read_mesh(surface_.s);
    EXPECT_EQ(now.vertices, before_.vertices);
    EXPECT_EQ(now.triangles, before_.triangles);
  }
  SolverOwner solver_;
  SurfaceOwner surface_;
  Mesh before_;
};

TEST_F(SurfaceErrors, NullHandlesAreRefusedByName) {
  expect_refused(pbf_surface_create(nullptr), PBF_ERROR_NULL_POINTER, "pbf_surface_create", "out_surface");
  expect_refused(pbf_solver_build_surface(nullptr, nullptr, surface_.s), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_build_surface", "solver");
  expect_refused(pbf_solver_build_surface(solver_.s, nullptr, nullptr), PBF_ERROR_NULL_POINTER,
                 "pbf_solver_build_surface", "surface");
  expect_refused(pbf_sdf_build_surface(nullptr, surface_.s), PBF_ERROR_NULL_POINTER, "pbf_sdf_build_surface", "sdf");
  expect_refused(pbf_surface_get_counts(nullptr, nullptr, nullptr), PBF_ERROR_NULL_POINTER, "pbf_surface_get_counts",
                 "surface");
  expect_refused(pbf_surface_get_vertices(nullptr, nullptr, 0), PBF_ERROR_NULL_POINTER, "pbf_surface_get_vertices",
                 "surface");
  expect_refused(pbf_surface_write_ply(nullptr, "x.ply"), PBF_ERROR_NULL_POINTER, "pbf_surface_write_ply",
                 "surface");
  expect_refused(pbf_surface_write_ply(surface_.s, nullptr), PBF_ERROR_NULL_POINTER, "pbf_surface_write_ply", "path");
  expect_refused(pbf_surface_write_ply(surface_.s, ""), PBF_ERROR_INVALID_ARGUMENT, "pbf_surface_write_ply", "path");
  EXPECT_EQ(pbf_surface_destroy(nullptr), PBF_OK);
}

TEST_F(SurfaceErrors, ParametersOutOfRangeAreRefusedByNameAndKeepTheMesh) {
  const float nan = std::nanf("");
  struct Case {
    float pbf_surface_params::*field;
    float value;
    const char* name;
  };
  const Case cases[] = {
      {&pbf_surface_params::cell_size, 0.0f, "params->cell_size"},
      {&pbf_surface_params::cell_size, 0.04f, "params->cell_size"},
      {&pbf_surface_params::cell_size, 4.5f, "params->cell_size"},
      {&pbf_surface_params::cell_size, nan, "params->cell_size"},
      {&pbf_surface_params::smoothing_radius, 0.9f, "params->smoothing_radius"},
      {&pbf_surface_params::smoothing_radius, 5.5f, "params->smoothing_radius"},
      {&pbf_surface_params::smoothing_radius, INFINITY, "params->smoothing_radius"},
      {&pbf_surface_params::iso_level, 0.0f, "params->iso_level"},
      {&pbf_surface_params::iso_level, 1.0f, "params->iso_level"},
      {&pbf_surface_params::iso_level, -0.5f, "params->iso_level"},
      {&pbf_surface_params::iso_level, nan, "params->iso_level"},
      {&pbf_surface_params::anisotropy, -0.1f, "params->anisotropy"},
      {&pbf_surface_params::anisotropy, 1.5f, "params->anisotropy"},
      {&pbf_surface_params::anisotropy, nan, "params->anisotropy"},
  };
  for (const Case& c : cases) {
    pbf_surface_params p = pbf_surface_params_default();
    p.*(c.field) = c.value;
    SCOPED_TRACE(std::string(c.name) + " = " + std::to_string(c.value));
    expect_refused(pbf_solver_build_surface(solver_.s, &p, surface_.s), PBF_ERROR_INVALID_ARGUMENT,
                   "pbf_solver_build_surface", c.name);
  }
  expect_unchanged();
}

TEST_F(SurfaceErrors, AnUnknownStructSizeIsAVersionMismatch) {
  for (size_t size : {size_t(0), sizeof(pbf_surface_params) - 4, sizeof(pbf_surface_params) + 8}) {
    pbf_surface_params p = pbf_surface_params_default();
    p.struct_size = size;
    expect_refused(pbf_solver_build_surface(solver_.s, &p, surface_.s), PBF_ERROR_VERSION_MISMATCH,
                   "pbf_solver_build_surface", "params->struct_size");
  }
  expect_unchanged();
}

TEST_F(SurfaceErrors, AGridBeyondTheLimitIsRefusedNamingTheCellSize) {
  // Two particles at opposite corners of the unit cube at the finest cell: (1 m / 1 mm)^3 points.
  const float far[6] = {0.01f, 0.01f, 0.01f, 0.99f, 0.99f, 0.99f};
  ASSERT_EQ(pbf_solver_add_particles(solver_.s, far, nullptr, 2), PBF_OK);
  pbf_surface_params p = pbf_surface_params_default();
  p.cell_size = 0.05f;
  expect_refused(pbf_solver_build_surface(solver_.s, &p, surface_.s), PBF_ERROR_CAPACITY_EXCEEDED,
                 "pbf_solver_build_surface", "params->cell_size");
  EXPECT_NE(std::string(pbf_last_error()).find("134217728"), std::string::npos) << pbf_last_error();
  expect_unchanged();
}

TEST_F(SurfaceErrors, ASolverInAnAsynchronousStepIsBusy) {
  ASSERT_EQ(pbf_solver_step_async(solver_.s, 1.0f / 60.0f, 1), PBF_OK);
  const pbf_status got = pbf_solver_build_surface(solver_.s, nullptr, surface_.s);
  ASSERT_EQ(pbf_solver_wait(solver_.s), PBF_OK);
  EXPECT_EQ(got, PBF_ERROR_BUSY);
}

TEST_F(SurfaceErrors, ShortBuffersAreRefusedWithTheSizeNeeded) {
  const size_t nv = before_.vertex_count(), nt = before_.triangle_count();
  std::vector<float> floats(3 * nv, -1.0f);
  std::vector<uint32_t> indices(3 * nt, 7u);
  expect_refused(pbf_surface_get_vertices(surface_.s, floats.data(), 3 * nv - 1), PBF_ERROR_BUFFER_TOO_SMALL,
                 "pbf_surface_get_vertices", "capacity");
  EXPECT_NE(std::string(pbf_last_error()).find("need " + std::to_string(3 * nv)), std::string::npos)
      << pbf_last_error();
  expect_refused(pbf_surface_get_normals(surface_.s, floats.data(), 0), PBF_ERROR_BUFFER_TOO_SMALL,
                 "pbf_surface_get_normals", "capacity");
  expect_refused(pbf_surface_get_triangles(surface_.s, indices.data(), 3 * nt - 1), PBF_ERROR_BUFFER_TOO_SMALL,
                 "pbf_surface_get_triangles", "capacity");
  EXPECT_NE(std::string(pbf_last_error()).find("need " + std::to_string(3 * nt)), std::string::npos)
      << pbf_last_error();
  expect_refused(pbf_surface_get_vertices(surface_.s, nullptr, 3 * nv), PBF_ERROR_NULL_POINTER,
                 "pbf_surface_get_vertices", "out");
  EXPECT_EQ(floats, std::vector<float>(3 * nv, -1.0f)) << "nothing written on failure";
  EXPECT_EQ(indices, std::vector<uint32_t>(3 * nt, 7u));
}

float load_f32(const unsigned char* p) {
  uint32_t bits = 0;
  for (int b = 0; b < 4; ++b) bits |= uint32_t(p[b]) << (8 * b);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::string fresh_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("pbf_test_surface_" + name + "_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

TEST(SurfacePly, HoldsPositionsNormalsAndTrianglesAsTheGettersGiveThem) {
  const std::vector<float> p = lattice_sphere(0.1f, kBallSpacing, kCentre);
  SolverOwner solver;
  make_solver(solver, kBallSpacing, p);
  SurfaceOwner surface;
  ASSERT_EQ(pbf_solver_build_surface(solver.s, nullptr, surface.s), PBF_OK);
  const Mesh m = read_mesh(surface.s);
  const std::string dir = fresh_dir("ply");
  const std::string path = dir + "/surface.ply";
  ASSERT_EQ(pbf_surface_write_ply(surface.s, path.c_str()), PBF_OK) << pbf_last_error();

  std::ifstream in(path, std::ios::binary);
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string text(bytes.begin(), bytes.end());
  const size_t end = text.find("end_header\n");
  ASSERT_NE(end, std::string::npos);
  const std::string header = text.substr(0, end);
  EXPECT_EQ(header.rfind("ply\nformat binary_little_endian 1.0\n", 0), 0u);
  std::smatch v, f;
  ASSERT_TRUE(std::regex_search(header, v, std::regex("element vertex ([0-9]+)\nproperty float x\nproperty float y\n"
                                                      "property float z\nproperty float nx\nproperty float ny\n"
                                                      "property float nz\n")))
      << header;
  ASSERT_TRUE(std::regex_search(header, f, std::regex("element face ([0-9]+)\nproperty list uchar uint vertex_indices\n")))
      << header;
  const size_t nv = std::stoul(v[1]), nf = std::stoul(f[1]), base = end + 11;
  ASSERT_EQ(nv, m.vertex_count());
  ASSERT_EQ(nf, m.triangle_count());
  ASSERT_EQ(bytes.size() - base, 24 * nv + 13 * nf) << "payload";
  Mesh read;
  for (size_t i = 0; i < nv; ++i)
    for (int a = 0; a < 6; ++a) (a < 3 ? read.vertices : read.normals).push_back(load_f32(&bytes[base + 24 * i + 4 * a]));
  for (size_t t = 0; t < nf; ++t) {
    const unsigned char* rec = &bytes[base + 24 * nv + 13 * t];
    EXPECT_EQ(rec[0], 3) << "face " << t << " is a triangle";
    for (int c = 0; c < 3; ++c) {
      uint32_t index = 0;
      for (int b = 0; b < 4; ++b) index |= uint32_t(rec[1 + 4 * c + b]) << (8 * b);
      read.triangles.push_back(index);
    }
  }
  EXPECT_EQ(read.vertices, m.vertices) << "floats round-trip bit for bit";
  EXPECT_EQ(read.normals, m.normals);
  EXPECT_EQ(read.triangles, m.triangles);
  std::filesystem::remove_all(dir);
}

TEST(SurfacePly, AnEmptyMeshIsAValidFileAndADirectoryIsNotReplaced) {
  SurfaceOwner surface;
  const std::string dir = fresh_dir("empty");
  const std::string path = dir + "/empty.ply";
  ASSERT_EQ(pbf_surface_write_ply(surface.s, path.c_str()), PBF_OK) << pbf_last_error();
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("element vertex 0\n"), std::string::npos);
  EXPECT_NE(text.find("element face 0\n"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 11), "end_header\n") << "no payload";
  expect_refused(pbf_surface_write_ply(surface.s, dir.c_str()), PBF_ERROR_IO, "pbf_surface_write_ply", dir);
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  std::filesystem::remove_all(dir);
}

TEST(SolidSurface, ASpheresFieldGivesAClosedBallWithOutwardNormals) {
  pbf_sdf* sdf = nullptr;
  const float r = 0.1f, cell = 0.01f;
  ASSERT_EQ(pbf_sdf_sphere(r, cell, &sdf), PBF_OK);
  SurfaceOwner surface;
  ASSERT_EQ(pbf_sdf_build_surface(sdf, surface.s), PBF_OK) << pbf_last_error();
  pbf_sdf_destroy(sdf);
  const Mesh m = read_mesh(surface.s);
  ASSERT_GT(m.triangle_count(), 100u);
  EXPECT_EQ(closure_problem(m), "");
  EXPECT_EQ(euler_characteristic(m), 2);
  EXPECT_LT(worst_normal_length_error(m), 1e-5);
  EXPECT_EQ(inward_normals(m, {0.0, 0.0, 0.0}), 0u) << "out of the solid";
  const double ball = 4.0 / 3.0 * M_PI * r * r * r;
  // 2%: marching cubes cuts chords across a sphere ten cells in radius.
  EXPECT_NEAR(signed_volume(m), ball, 0.02 * ball);
}

}  // namespace
