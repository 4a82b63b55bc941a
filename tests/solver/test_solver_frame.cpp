// The solver keeps its particles, planes and poses in its frame
// (core/local_frame.h) and speaks the world's coordinates at its interface;
// checkpoints of the versions before the frame (positions in the world's
// coordinates) are moved into it as they are loaded.
#include <gtest/gtest.h>

#include <vector>

#include "backend/backend.h"
#include "core/error.h"
#include "solver/solver.h"

namespace {

using pbf::Field;
using pbf::Solver;
using pbf::Vec3;

pbf::SolverConfig far_config() {
  pbf::SolverConfig c;
  c.backend = pbf::BackendKind::Cpu;
  c.max_particles = 64;
  c.particle_spacing = 0.125f;
  c.rest_density = 1000.0f;
  c.domain_min = Vec3{1000.0f, 2000.0f, -3000.0f};
  c.domain_max = Vec3{1001.0f, 2001.0f, -2999.0f};
  return pbf::resolve_config(c);
}

TEST(SolverFrame, KeepsParticlesNearItsOriginAndGivesThemBackInTheWorld) {
  Solver s(far_config());
  EXPECT_EQ(s.frame().origin.x, 1000.0f);
  EXPECT_EQ(s.frame().origin.y, 2000.0f);
  EXPECT_EQ(s.frame().origin.z, -3000.0f);
  EXPECT_EQ(s.config().domain_min.x, 1000.0f) << "the description stays the user's";
  const std::vector<float> world{1000.25f, 2000.5f, -2999.75f};
  s.add_particles(world.data(), nullptr, 1);
  std::vector<float> inside(3), out(3);
  s.backend().read(Field::Position, inside.data());
  EXPECT_EQ(inside, (std::vector<float>{0.25f, 0.5f, 0.25f}));
  s.read(Field::Position, out.data());
  EXPECT_EQ(out, world);
}

TEST(SolverFrame, ACheckpointInTheWorldsCoordinatesIsMovedIntoTheFrame) {
  Solver s(far_config());
  const std::vector<float> world{1000.25f, 2000.5f, -2999.75f, 1000.5f, 2000.25f, -2999.5f};
  s.add_particles(world.data(), nullptr, 2);
  s.add_plane(pbf::Plane{Vec3{0, 1, 0}, -2000.125f});
  pbf::Checkpoint saved = s.checkpoint();
  EXPECT_TRUE(saved.in_frame);
  EXPECT_EQ(saved.particles.positions[0].x, 0.25f) << "a checkpoint holds the frame's positions";
  EXPECT_EQ(saved.planes.at(0).offset, -0.125f);

  // A file of version 3 holds the same state in the world's coordinates.
  pbf::Checkpoint old = saved;
  old.in_frame = false;
  for (Vec3& x : old.particles.positions) x = x + s.frame().origin;
  old.planes.at(0).offset = -2000.125f;
  Solver t(far_config());
  t.restore(old, "old.ckpt");
  std::vector<float> out(6);
  t.read(Field::Position, out.data());
  EXPECT_EQ(out, world);
  EXPECT_EQ(t.checkpoint().planes.at(0).offset, -0.125f);

  // Read as if it were in the frame, the same file puts its particles far outside the domain: refused.
  old.in_frame = true;
  Solver u(far_config());
  EXPECT_THROW(u.restore(old, "old.ckpt"), pbf::Error);
  EXPECT_EQ(u.size(), 0u);
}

}  // namespace
