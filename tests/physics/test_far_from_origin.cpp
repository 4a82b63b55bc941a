// Water far from the world's origin flows as it does at the origin: the
// solver keeps positions relative to an origin near its domain
// (src/core/local_frame.h). A scene moved by a multiple of a power of two
// that exceeds its size steps the same bits (water filled in a box and in a
// solid, a user plane, static, sampled and attached boundary samples, a
// moving kinematic obstacle and a dynamic one, forces, checkpoints, mapped
// positions), 1024 m out and 262,144 m out, where a float resolves only
// 1/32 m and the library computes its fills and samples in the frame; a dam
// break 10 km out, not so aligned, keeps the kinetic energy it has at the
// origin. Before the frame, 1 km out the reference dam break lost half of
// it (docs/PHYSICS.md §9).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "physics/physics_scenes.h"

namespace pbf_test {
namespace {

constexpr float kDt = 1.0f / 60.0f;
// Lattice points at odd multiples of 1/64 m: floats 1024 m out, but not 262,144 m out (a unit in
// the last place is 1/32 m there), so a fill computed in the world's floats would be rounded.
constexpr float kSpacing = 1.0f / 32.0f;

struct Scene {
  SolverPtr solver;
  bool bodies = false;
  uint32_t kinematic = 0, dynamic = 0;
};

// A box 1 x 0.75 x 0.5 m with its corner at `at` (the same at every axis),
// walls sampled, a user plane inside it, a few static samples, a solid
// sampled with boundary particles, water in a corner and in a ball and,
// with `bodies`, a kinematic box with samples attached and a dynamic one
// over the water. Every coordinate the test gives is a multiple of 1/32 m: a
// float at `at` = 0, 1024 and 262,144 alike.
Scene far_scene(float at, bool bodies) {
  Scene sc;
  sc.bodies = bodies;
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.particle_spacing = kSpacing;
  d.max_particles = 20000;
  d.thread_count = 2;
  const float extent[3] = {1.0f, 0.75f, 0.5f};
  for (int a = 0; a < 3; ++a) {
    d.domain_min[a] = at;
    d.domain_max[a] = at + extent[a];
  }
  sc.solver = make_solver(d);
  pbf_solver* s = sc.solver.get();
  EXPECT_EQ(pbf_solver_add_domain_boundary_particles(s, nullptr), PBF_OK) << pbf_last_error();
  const float wall_normal[3] = {-1.0f, 0.0f, 0.0f};  // x <= at + 0.875
  EXPECT_EQ(pbf_solver_add_plane(s, wall_normal, at + 0.875f, nullptr), PBF_OK) << pbf_last_error();
  std::vector<float> posts;
  for (int k = 0; k < 8; ++k) {
    const float p[3] = {at + 0.5f, at + k / 32.0f, at + 0.4375f};
    posts.insert(posts.end(), p, p + 3);
  }
  EXPECT_EQ(pbf_solver_add_boundary_particles(s, posts.data(), 8), PBF_OK) << pbf_last_error();
  const float lo[3] = {at, at, at}, hi[3] = {at + 0.375f, at + 0.5f, at + 0.5f};
  const float push[3] = {0.25f, 0.0f, 0.125f};
  EXPECT_EQ(pbf_solver_fill_box(s, lo, hi, push, nullptr), PBF_OK) << pbf_last_error();
  pbf_sdf* ball = nullptr;
  EXPECT_EQ(pbf_sdf_sphere(3.0f / 32.0f, 1.0f / 64.0f, &ball), PBF_OK) << pbf_last_error();
  const float ball_at[3] = {at + 0.75f, at + 0.5f, at + 0.25f};
  size_t filled = 0;
  EXPECT_EQ(pbf_solver_fill_sdf(s, ball, nullptr, ball_at, nullptr, &filled), PBF_OK) << pbf_last_error();
  EXPECT_GT(filled, 50u);
  pbf_sdf_destroy(ball);
  pbf_sdf* step = nullptr;
  const float step_half[3] = {1.0f / 16.0f, 1.0f / 32.0f, 1.0f / 16.0f};
  EXPECT_EQ(pbf_sdf_box(step_half, 1.0f / 64.0f, &step), PBF_OK) << pbf_last_error();
  const float step_at[3] = {at + 0.8125f, at + 0.03125f, at + 0.375f};
  EXPECT_EQ(pbf_solver_add_sdf_boundary_particles(s, step, nullptr, step_at, nullptr), PBF_OK) << pbf_last_error();
  pbf_sdf_destroy(step);
  if (!bodies) return sc;

  pbf_sdf* post = nullptr;
  const float post_half[3] = {0.0625f, 0.125f, 0.0625f};
  EXPECT_EQ(pbf_sdf_box(post_half, 1.0f / 64.0f, &post), PBF_OK) << pbf_last_error();
  const float kin_at[3] = {at + 0.625f, at + 0.125f, at + 0.25f};
  EXPECT_EQ(pbf_solver_add_obstacle(s, post, nullptr, kin_at, &sc.kinematic), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_add_obstacle_boundary_particles(s, sc.kinematic, nullptr), PBF_OK) << pbf_last_error();
  pbf_sdf_destroy(post);
  pbf_sdf* cube = nullptr;
  const float cube_half[3] = {0.0625f, 0.0625f, 0.0625f};
  EXPECT_EQ(pbf_sdf_box(cube_half, 1.0f / 64.0f, &cube), PBF_OK) << pbf_last_error();
  const float dyn_at[3] = {at + 0.1875f, at + 0.625f, at + 0.25f};
  EXPECT_EQ(pbf_solver_add_obstacle(s, cube, nullptr, dyn_at, &sc.dynamic), PBF_OK) << pbf_last_error();
  float mass = 0.0f, centre[3], inertia[9];
  EXPECT_EQ(pbf_sdf_mass_properties(cube, 500.0f, &mass, centre, inertia), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_add_obstacle_boundary_particles(s, sc.dynamic, nullptr), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_set_obstacle_dynamic(s, sc.dynamic, mass, centre, inertia), PBF_OK) << pbf_last_error();
  pbf_sdf_destroy(cube);
  return sc;
}

// Frame k: the kinematic box moves 1/32 m towards the water every eighth frame (a float at every place).
void step_frame(const Scene& sc, float at, int k) {
  const float to[3] = {at + 0.625f - float((k + 1) / 8) / 32.0f, at + 0.125f, at + 0.25f};
  if (sc.bodies)
    EXPECT_EQ(pbf_solver_set_obstacle_pose(sc.solver.get(), sc.kinematic, nullptr, to), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_step(sc.solver.get(), kDt, 4), PBF_OK) << pbf_last_error();
}

// What a step reports besides its times (each float exactly as a double).
std::vector<double> stats_values(pbf_solver* s) {
  const pbf_stats st = stats_of(s);
  return {st.avg_density_error, st.max_density_error, st.avg_neighbors,      st.max_speed,
          st.min_substep_dt,    st.max_substep_dt,    double(st.substeps), double(st.max_neighbors),
          double(st.neighbor_overflows), double(st.density_iterations)};
}

// The world positions 1024 m out must be those at the origin moved by 1024, rounded once.
void expect_moved(const std::vector<float>& near, const std::vector<float>& far, float by, const char* what) {
  ASSERT_EQ(near.size(), far.size());
  size_t wrong = 0;
  for (size_t i = 0; i < near.size(); ++i)
    if (far[i] != near[i] + by) ++wrong;
  EXPECT_EQ(wrong, 0u) << what << ": values not the ones at the origin moved by " << by;
}

std::vector<float> body_state(pbf_solver* s, uint32_t index, bool dynamic) {
  std::vector<float> v(10 + 6 + (dynamic ? 6 : 0));
  EXPECT_EQ(pbf_solver_get_obstacle_pose(s, index, v.data(), v.data() + 4), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_get_obstacle_force(s, index, v.data() + 10, v.data() + 13), PBF_OK) << pbf_last_error();
  if (dynamic)
    EXPECT_EQ(pbf_solver_get_obstacle_velocity(s, index, v.data() + 16, v.data() + 19), PBF_OK) << pbf_last_error();
  return v;
}

class FarFromOrigin : public ::testing::TestWithParam<float> {};

TEST_P(FarFromOrigin, ASceneFarOutStepsTheBitsItStepsAtTheOrigin) {
  const float far = GetParam();
  const Scene a = far_scene(0.0f, true), b = far_scene(far, true);
  size_t samples_a = 0, samples_b = 0;
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(a.solver.get(), &samples_a), PBF_OK);
  ASSERT_EQ(pbf_solver_get_boundary_particle_count(b.solver.get(), &samples_b), PBF_OK);
  EXPECT_EQ(samples_a, samples_b);
  expect_moved(positions_of(a.solver.get()), positions_of(b.solver.get()), far, "the filled box");
  for (int k = 0; k < 24; ++k) {
    step_frame(a, 0.0f, k);
    step_frame(b, far, k);
    ASSERT_EQ(stats_values(a.solver.get()), stats_values(b.solver.get())) << "frame " << k;
    ASSERT_EQ(velocities_of(a.solver.get()), velocities_of(b.solver.get())) << "frame " << k;
  }
  EXPECT_GT(stats_of(a.solver.get()).max_speed, 0.5f);  // the water moved
  expect_moved(positions_of(a.solver.get()), positions_of(b.solver.get()), far, "positions after 24 frames");
  for (const bool dynamic : {false, true}) {
    const uint32_t index = dynamic ? a.dynamic : a.kinematic;
    const std::vector<float> sa = body_state(a.solver.get(), index, dynamic);
    const std::vector<float> sb = body_state(b.solver.get(), index, dynamic);
    for (size_t k = 0; k < sa.size(); ++k) {
      const bool translation = k >= 4 && k < 7;
      EXPECT_EQ(sb[k], translation ? sa[k] + far : sa[k]) << (dynamic ? "dynamic" : "kinematic") << " body, value "
                                                          << k;
    }
  }
  // The dynamic box fell onto the water: its pose is not where it started.
  EXPECT_LT(body_state(a.solver.get(), a.dynamic, true)[5], 0.625f - 0.01f);

  // A renderer's mapped positions are the world's too.
  const float* mapped = nullptr;
  size_t count = 0;
  ASSERT_EQ(pbf_solver_map(b.solver.get(), PBF_FIELD_POSITIONS, PBF_MEMORY_HOST, &mapped, &count), PBF_OK)
      << pbf_last_error();
  const std::vector<float> read = positions_of(b.solver.get());
  EXPECT_EQ(std::vector<float>(mapped, mapped + 3 * count), read);
  ASSERT_EQ(pbf_solver_unmap(b.solver.get(), PBF_FIELD_POSITIONS), PBF_OK);

  // Positions written in the world's coordinates are read back as written.
  ASSERT_EQ(pbf_solver_set_positions(b.solver.get(), read.data(), read.size()), PBF_OK) << pbf_last_error();
  EXPECT_EQ(positions_of(b.solver.get()), read);
}

INSTANTIATE_TEST_SUITE_P(Places, FarFromOrigin, ::testing::Values(1024.0f, 262144.0f),
                         [](const ::testing::TestParamInfo<float>& info) {
                           return "At" + std::to_string(static_cast<long>(info.param)) + "Metres";
                         });

TEST(FarFromOriginCheckpoint, ACheckpointFarOutResumesBitIdentically) {
  const float far = 1024.0f;
  const std::string path = ::testing::TempDir() + "pbf_far_checkpoint.ckpt";
  // The obstacles are part of the scene, not of the state (checkpoints do not hold them): water, planes and
  // samples only, the samples added again by the resumed solver.
  const Scene whole = far_scene(far, false);
  for (int k = 0; k < 6; ++k) step_frame(whole, far, k);
  ASSERT_EQ(pbf_solver_save_checkpoint(whole.solver.get(), path.c_str()), PBF_OK) << pbf_last_error();
  const Scene resumed = far_scene(far, false);
  ASSERT_EQ(pbf_solver_clear_planes(resumed.solver.get()), PBF_OK);  // the checkpoint brings the plane back
  ASSERT_EQ(pbf_solver_load_checkpoint(resumed.solver.get(), path.c_str()), PBF_OK) << pbf_last_error();
  std::remove(path.c_str());
  EXPECT_EQ(positions_of(resumed.solver.get()), positions_of(whole.solver.get()));
  for (int k = 6; k < 12; ++k) {
    step_frame(whole, far, k);
    step_frame(resumed, far, k);
    ASSERT_EQ(velocities_of(resumed.solver.get()), velocities_of(whole.solver.get())) << "frame " << k;
  }
  EXPECT_EQ(positions_of(resumed.solver.get()), positions_of(whole.solver.get()));
}

// The dam break of the reference scene, smaller: a 0.5 m block at 5 cm in a 2 x 1 x 0.5 m box.
double dam_break_kinetic_energy(float x_at, pbf_backend backend) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = backend;
  d.particle_spacing = 0.05f;
  d.max_particles = 2000;
  const float lo_d[3] = {x_at, 0.0f, 0.0f}, hi_d[3] = {x_at + 2.0f, 1.0f, 0.5f};
  std::memcpy(d.domain_min, lo_d, sizeof lo_d);
  std::memcpy(d.domain_max, hi_d, sizeof hi_d);
  SolverPtr s = make_solver(d);
  const float lo[3] = {x_at, 0.0f, 0.0f}, hi[3] = {x_at + 0.5f, 0.5f, 0.5f};
  EXPECT_EQ(pbf_solver_fill_box(s.get(), lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  for (int k = 0; k < 30; ++k) EXPECT_EQ(pbf_solver_step(s.get(), kDt, 4), PBF_OK) << pbf_last_error();
  double sum = 0.0;
  for (float v : velocities_of(s.get())) sum += 0.5 * double(v) * v;  // the kinetic energy over the particle mass
  return sum;
}

class FarFromOriginFlow : public OnEveryBackend {};

TEST_P(FarFromOriginFlow, ADamBreakTenKilometresOutKeepsTheEnergyItHasAtTheOrigin) {
  // 10 km out a float position resolves 1e-3 m, 2 % of the spacing: without the frame the column hardly
  // moved (docs/PHYSICS.md §9). 10,000.3 m is no multiple of a power of two near the domain's size, so
  // the inputs round and the run is not the same bits: the same flow within round-off.
  const double at_origin = dam_break_kinetic_energy(0.0f, GetParam());
  const double far_out = dam_break_kinetic_energy(10000.3f, GetParam());
  ASSERT_GT(at_origin, 0.0);
  EXPECT_NEAR(far_out / at_origin, 1.0, 0.02) << "kinetic energy after 0.5 s: " << far_out << " 10 km out, "
                                              << at_origin << " at the origin (sums of v^2 / 2)";
}

PBF_EVERY_BACKEND(FarFromOriginFlow);

}  // namespace
}  // namespace pbf_test
