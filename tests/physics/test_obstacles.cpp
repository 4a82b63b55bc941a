// Solid obstacles in running scenes: a dam break around a sphere leaves no
// particle inside it, water in a cup that is shaken fast (more than two
// particle radii per substep) stays in the cup, and water sliding along an
// obstacle feels that obstacle's own friction.
#include <algorithm>
#include <cmath>

#include "physics/obstacle_fields.h"
#include "physics/physics_scenes.h"

namespace pbf_test {
namespace {

// A call inside a helper that returns a value, where ASSERT cannot return.
#define PBF_EXPECT_OK(call) EXPECT_EQ((call), PBF_OK) << pbf_last_error()

class Obstacles : public OnEveryBackend {};

TEST_P(Obstacles, ADamBreakAroundASphereLeavesNoParticleInsideIt) {
  const float spacing = 0.04f, radius = 0.5f * spacing;
  const float box[3] = {1.6f, 1.0f, 0.6f}, block[3] = {0.4f, 0.6f, 0.6f};
  SolverPtr s = make_dam_break(spacing, box, block, 0, GetParam());
  const float r = 0.2f, centre[3] = {0.9f, 0.18f, 0.3f};
  const SampledField sphere = sphere_field(r, 0.02f, 0.08f);
  PBF_ASSERT_OK(pbf_solver_add_obstacle_sdf(s.get(), sphere.values.data(), sphere.values.size(), sphere.dims,
                                            sphere.origin, sphere.cell, nullptr, centre, nullptr));
  float closest = 1e9f;
  int hits = 0;  // particles that came within two spacings of the sphere: the water reached it
  for (int frame = 0; frame < 90; ++frame) {  // 1.5 s
    PBF_ASSERT_OK(pbf_solver_step(s.get(), 1.0f / 60.0f, 4));
    const std::vector<float> x = positions_of(s.get());
    for (size_t i = 0; i < x.size(); i += 3) {
      const float dx = x[i] - centre[0], dy = x[i + 1] - centre[1], dz = x[i + 2] - centre[2];
      const float d = std::sqrt(dx * dx + dy * dy + dz * dz);
      ASSERT_TRUE(std::isfinite(d)) << "frame " << frame;
      closest = std::min(closest, d);
      if (d < r + 2.0f * spacing) ++hits;
    }
  }
  EXPECT_GT(hits, 1000) << "the water flowed around the sphere";
  // Kept one radius out; the grid's interpolation (2 cm cells) may cost a few percent of it.
  EXPECT_GE(closest, r + 0.8f * radius);
}

// A sheet of water two layers deep sent at 1 m/s along the top of a
// kinematic slab, clear of the domain's walls: with the slab's own friction
// (pbf_solver_set_obstacle_material()) 0 it slides on, whatever the
// parameters' friction (the walls'); with the slab's friction 1 and the
// parameters' 0, the slab stops it.
TEST_P(Obstacles, WaterSlidingAlongAnObstacleFeelsThatObstaclesFriction) {
  const auto mean_speed_after = [&](float walls, float slab) {
    pbf_solver_desc desc = pbf_solver_desc_default();
    desc.backend = GetParam();
    desc.particle_spacing = 0.04f;
    desc.domain_max[0] = 2.0f;
    SolverPtr s = make_solver(desc);
    pbf_params p = pbf_params_default();
    p.friction = walls;
    PBF_EXPECT_OK(pbf_solver_set_params(s.get(), &p));
    const float c[3] = {0, 0, 0}, h[3] = {0.6f, 0.05f, 0.4f};
    const float lo[3] = {-0.7f, -0.15f, -0.5f}, hi[3] = {0.7f, 0.15f, 0.5f};
    const SampledField box =
        sample_field(lo, hi, 0.02f, [&](float x, float y, float z) { return box_distance(c, h, x, y, z); });
    const float at[3] = {1.0f, 0.3f, 0.5f};  // its top at 0.35 m, from x = 0.4 to 1.6 m
    uint32_t index = 0;
    PBF_EXPECT_OK(pbf_solver_add_obstacle_sdf(s.get(), box.values.data(), box.values.size(), box.dims, box.origin,
                                              box.cell, nullptr, at, &index));
    PBF_EXPECT_OK(pbf_solver_set_obstacle_material(s.get(), index, slab, 0.0f));
    const float wlo[3] = {0.5f, 0.35f, 0.3f}, whi[3] = {0.8f, 0.43f, 0.7f}, v[3] = {1.0f, 0.0f, 0.0f};
    size_t n = 0;
    PBF_EXPECT_OK(pbf_solver_fill_box(s.get(), wlo, whi, v, &n));
    EXPECT_GT(n, 100u);
    for (int frame = 0; frame < 18; ++frame) PBF_EXPECT_OK(pbf_solver_step(s.get(), 1.0f / 60.0f, 4));  // 0.3 s
    const std::vector<float> u = velocities_of(s.get());
    double sum = 0.0;
    for (size_t i = 0; i < u.size(); i += 3) sum += u[i];
    return sum / double(u.size() / 3);
  };
  const double slides = mean_speed_after(1.0f, 0.0f), held = mean_speed_after(0.0f, 1.0f);
  RecordProperty("slides", std::to_string(slides));
  RecordProperty("held", std::to_string(held));
  EXPECT_GT(slides, 0.9) << "a frictionless slab: the walls' friction does not touch it";
  EXPECT_LT(held, 0.2) << "the slab's own friction";
}

TEST_P(Obstacles, WaterInACupShakenFastStaysInTheCup) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = GetParam();
  desc.particle_spacing = 0.025f;
  desc.domain_min[0] = desc.domain_min[2] = -0.8f;
  desc.domain_max[0] = desc.domain_max[2] = 0.8f;
  desc.domain_min[1] = 0.0f;
  desc.domain_max[1] = 1.0f;
  SolverPtr s = make_solver(desc);
  pbf_params p = pbf_params_default();
  p.artificial_pressure_k = 0.0f;  // no spray out of the free surface
  p.adaptive_dt = 0;               // one substep per frame, as asked: the walls must jump 2 radii
  PBF_ASSERT_OK(pbf_solver_set_params(s.get(), &p));

  // A cup with 4 cm walls and a 30 x 30 cm cavity 66 cm deep (sloshing
  // water climbs its walls but stays below the rim); the bottom's top face
  // at y = 0.14 m.
  const float outer[3] = {0.19f, 0.35f, 0.19f}, wall = 0.04f;
  const SampledField cup = cup_field(outer, wall, 0.01f, 0.05f);
  float at[3] = {0.0f, 0.45f, 0.0f};
  uint32_t index = 0;
  PBF_ASSERT_OK(pbf_solver_add_obstacle_sdf(s.get(), cup.values.data(), cup.values.size(), cup.dims, cup.origin,
                                            cup.cell, nullptr, at, &index));
  const float inner = outer[0] - wall, floor_y = at[1] - outer[1] + wall;
  const float lo[3] = {-inner, floor_y, -inner}, hi[3] = {inner, floor_y + 0.1f, inner};
  size_t n = 0;
  PBF_ASSERT_OK(pbf_solver_fill_box(s.get(), lo, hi, nullptr, &n));
  ASSERT_GT(n, 500u);

  // Side to side +-30 cm at 0.8 Hz (1.5 m/s, 0.8 g at the ends) and rocking
  // +-10 degrees at 1 Hz, one substep per 1/60 s frame: the walls move up to
  // 2.5 cm, two particle radii, per substep.
  const double pi = 3.14159265358979;
  double max_step = 0.0, previous = 0.0;
  float highest = -1.0f;
  for (int frame = 1; frame <= 120; ++frame) {
    const double t = frame / 60.0;
    const double shift = 0.3 * std::sin(2.0 * pi * 0.8 * t);
    const double angle = 10.0 * pi / 180.0 * std::sin(2.0 * pi * 1.0 * t);
    const float rotation[4] = {0.0f, 0.0f, float(std::sin(0.5 * angle)), float(std::cos(0.5 * angle))};
    at[0] = float(shift);
    max_step = std::max(max_step, std::fabs(shift - previous));
    previous = shift;
    PBF_ASSERT_OK(pbf_solver_set_obstacle_pose(s.get(), index, rotation, at));
    PBF_ASSERT_OK(pbf_solver_step(s.get(), 1.0f / 60.0f, 1));
    // Every particle inside the cavity, in the cup's frame (rotate back about z).
    const std::vector<float> x = positions_of(s.get());
    const float c = float(std::cos(angle)), sn = float(std::sin(angle));
    for (size_t i = 0; i < x.size(); i += 3) {
      const float wx = x[i] - at[0], wy = x[i + 1] - at[1], wz = x[i + 2];
      const float lx = c * wx + sn * wy, ly = -sn * wx + c * wy;
      highest = std::max(highest, ly);
      ASSERT_LT(std::fabs(lx), inner + 0.005f) << "frame " << frame << " particle " << i / 3 << " left the cup";
      ASSERT_LT(std::fabs(wz), inner + 0.005f) << "frame " << frame << " particle " << i / 3;
      ASSERT_GT(ly, floor_y - at[1] - 0.005f) << "frame " << frame << " particle " << i / 3 << " fell through";
    }
  }
  EXPECT_GT(max_step, 2.0 * 0.0125) << "the cup moved more than two particle radii in a substep";
  EXPECT_LT(highest, outer[1]) << "no water reached the rim: the test sees leaks, not spills";
}

PBF_EVERY_BACKEND(Obstacles);

}  // namespace
}  // namespace pbf_test
