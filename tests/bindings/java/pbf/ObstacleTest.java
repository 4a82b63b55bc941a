// ObstacleTest.java - signed distance fields, solid obstacles and boundary
// particles through the binding.
package pbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObstacleTest {
  private static final float RADIUS = 0.2f;

  private static Solver damBreak(Method method) {
    return new Solver(new SolverDesc().setParticleSpacing(0.05f).setMaxParticles(10000).setBackend(Backend.CPU)
        .setMethod(method));
  }

  /** The distance [m] from {@code centre} to the nearest particle. */
  private static float nearest(Solver solver, float[] centre) {
    float[] x = solver.getPositions();
    float nearest = Float.MAX_VALUE;
    for (int i = 0; i < x.length; i += 3) {
      float dx = x[i] - centre[0], dy = x[i + 1] - centre[1], dz = x[i + 2] - centre[2];
      nearest = Math.min(nearest, (float) Math.sqrt(dx * dx + dy * dy + dz * dz));
    }
    return nearest;
  }

  private static PbfException refused(Status status, String function, Runnable call) {
    PbfException e = assertThrows(PbfException.class, call::run);
    assertEquals(status, e.getStatus(), e.getMessage());
    assertTrue(e.getMessage().startsWith(function), e.getMessage());
    return e;
  }

  @Test
  void aDamBreakFlowsAroundASphereAndItsMove() {
    try (Solver solver = damBreak(Method.PBF);
        SignedDistanceField ball = SignedDistanceField.sphere(RADIUS, 0.02f)) {
      float[] centre = {0.6f, 0.2f, 0.5f};
      int index = solver.addObstacle(ball, null, centre);
      assertEquals(0, index);
      assertEquals(1, solver.getObstacleCount());
      int added = solver.fillBox(new float[] {0, 0, 0}, new float[] {0.3f, 0.6f, 1});
      assertTrue(added > 1000, added + " particles");
      for (int frame = 0; frame < 30; ++frame) solver.step(1 / 60f, 2);
      // The sphere keeps particles a radius (2.5 cm) outside; its 2 cm grid is within a few mm.
      float d = nearest(solver, centre);
      assertTrue(d > RADIUS, "nearest particle " + d + " m from the centre is outside the sphere");

      // Raised by 5 cm a frame; each frame's substeps carry the fluid it meets.
      for (int frame = 1; frame <= 6; ++frame) {
        centre[1] = 0.2f + 0.05f * frame;
        solver.setObstaclePose(index, new float[] {0, 0, 0, 1}, centre);
        solver.step(1 / 60f, 4);
      }
      d = nearest(solver, centre);
      assertTrue(d > RADIUS - 0.01f, "nearest particle " + d + " m from the moved centre");
      solver.clearObstacles();
      assertEquals(0, solver.getObstacleCount());
    }
  }

  @Test
  void aFloorObstacleCarriesTheWeightOfTheWaterOnIt() {
    try (Solver solver = damBreak(Method.PBF);
        SignedDistanceField floor = SignedDistanceField.box(new float[] {0.6f, 0.1f, 0.6f}, 0.025f)) {
      // A box wider than the domain, its top at y = 0.1 m: the water rests on it alone.
      int index = solver.addObstacle(floor, null, new float[] {0.5f, 0f, 0.5f});
      solver.addObstacleBoundaryParticles(index);
      float[] force = new float[3];
      float[] torque = new float[3];
      solver.getObstacleForce(index, force, torque);
      assertArrayEquals(new float[] {0f, 0f, 0f}, force, "zero before the first step");
      int added = solver.fillBox(new float[] {0f, 0.1f, 0f}, new float[] {1f, 0.3f, 1f});
      for (int frame = 0; frame < 90; ++frame) solver.step(1f / 60f, 4);
      double weight = 0;
      for (int frame = 0; frame < 30; ++frame) {
        solver.step(1f / 60f, 4);
        solver.getObstacleForce(index, force, null);
        weight -= force[1] / 30.0;
      }
      double expected = added * solver.getParticleMass() * 9.81;
      assertEquals(expected, weight, 0.03 * expected, "the floor carries the water's weight");
      solver.getObstacleForce(index, null, torque);
      for (float t : torque) assertTrue(Float.isFinite(t), "a finite torque");
      assertThrows(IllegalArgumentException.class, () -> solver.getObstacleForce(index, new float[2], null));
      refused(Status.INVALID_ARGUMENT, "pbf_solver_get_obstacle_force",
          () -> solver.getObstacleForce(index + 1, force, null));
    }
    // Projective Fluids measures them too: zero before its first step; water that lands on a ball pushes it down.
    try (Solver solver = damBreak(Method.PROJECTIVE);
        SignedDistanceField ball = SignedDistanceField.sphere(RADIUS, 0.02f)) {
      int index = solver.addObstacle(ball, null, new float[] {0.5f, 0.5f, 0.5f});
      float[] force = new float[] {1f, 1f, 1f};
      solver.getObstacleForce(index, force, null);
      assertArrayEquals(new float[] {0f, 0f, 0f}, force, "zero before the first step");
      solver.fillBox(new float[] {0.35f, 0.75f, 0.35f}, new float[] {0.65f, 0.85f, 0.65f});
      double down = 0;
      for (int frame = 0; frame < 12; ++frame) {
        solver.step(1f / 60f, 2);
        solver.getObstacleForce(index, force, null);
        for (float f : force) assertTrue(Float.isFinite(f), "a finite force");
        down = Math.min(down, force[1]);
      }
      assertTrue(down < -0.1, "the landing water pushes the ball down: " + down + " N");
    }
  }

  @Test
  void aBallOfHalfTheWatersDensityDroppedIntoWaterFloats() {
    try (Solver solver = damBreak(Method.PBF);
        SignedDistanceField ball = SignedDistanceField.sphere(0.1f, 0.02f)) {
      solver.fillBox(new float[] {0f, 0f, 0f}, new float[] {1f, 0.3f, 1f});
      int index = solver.addObstacle(ball, null, new float[] {0.5f, 0.6f, 0.5f});
      solver.addObstacleBoundaryParticles(index);
      float[] velocity = new float[3];
      refused(Status.INVALID_ARGUMENT, "pbf_solver_get_obstacle_velocity",
          () -> solver.getObstacleVelocity(index, velocity, null));
      float[] centre = new float[3];
      float[] inertia = new float[9];
      float mass = ball.massProperties(500f, centre, inertia);
      solver.setObstacleDynamic(index, mass, centre, inertia);
      for (int frame = 0; frame < 120; ++frame) solver.step(1f / 60f, 4);
      float[] at = new float[3];
      solver.getObstaclePose(index, null, at);
      solver.getObstacleVelocity(index, velocity, null);
      // It fell from 0.6 m onto water 0.3 m deep and floats there, its centre near the surface.
      assertTrue(at[1] > 0.2f && at[1] < 0.4f, "the ball floats with its centre at " + at[1] + " m");
      double speed = Math.sqrt(velocity[0] * velocity[0] + velocity[1] * velocity[1] + velocity[2] * velocity[2]);
      assertTrue(speed < 0.2, "nearly still: " + speed + " m/s");
      assertThrows(IllegalArgumentException.class, () -> solver.setObstacleDynamic(index, mass, centre, new float[3]));
      solver.setObstacleDynamic(index, 0f, null, null);
      refused(Status.INVALID_ARGUMENT, "pbf_solver_set_obstacle_velocity",
          () -> solver.setObstacleVelocity(index, velocity, null));
    }
  }

  @Test
  void anObstacleFollowsTheParametersMaterialUntilGivenItsOwn() {
    try (Solver solver = damBreak(Method.PBF);
        SignedDistanceField ball = SignedDistanceField.sphere(RADIUS, 0.05f)) {
      solver.setParams(solver.getParams().setFriction(0.25f).setRestitution(0.5f));
      int index = solver.addObstacle(ball, null, new float[] {0.5f, 0.5f, 0.5f});
      // Stored and returned as the same floats: exact.
      assertArrayEquals(new float[] {0.25f, 0.5f}, solver.getObstacleMaterial(index),
          "the parameters' before a material of its own");
      solver.setObstacleMaterial(index, 0.8f, 0.3f);
      assertArrayEquals(new float[] {0.8f, 0.3f}, solver.getObstacleMaterial(index), "its own");

      refused(Status.INVALID_ARGUMENT, "pbf_solver_set_obstacle_material",
          () -> solver.setObstacleMaterial(index, Float.NaN, 0.3f));
      refused(Status.INVALID_ARGUMENT, "pbf_solver_set_obstacle_material",
          () -> solver.setObstacleMaterial(index, 11f, 0.3f));
      refused(Status.INVALID_ARGUMENT, "pbf_solver_set_obstacle_material",
          () -> solver.setObstacleMaterial(index, 0.8f, 1.5f));
      refused(Status.INVALID_ARGUMENT, "pbf_solver_set_obstacle_material",
          () -> solver.setObstacleMaterial(index + 1, 0.5f, 0.5f));
      assertThrows(IllegalArgumentException.class, () -> solver.setObstacleMaterial(-1, 0.5f, 0.5f));
      assertArrayEquals(new float[] {0.8f, 0.3f}, solver.getObstacleMaterial(index), "kept after the refused calls");
      refused(Status.INVALID_ARGUMENT, "pbf_solver_get_obstacle_material", () -> solver.getObstacleMaterial(index + 1));
      refused(Status.INVALID_ARGUMENT, "pbf_solver_clear_obstacle_material",
          () -> solver.clearObstacleMaterial(index + 1));
      assertArrayEquals(new float[] {0.8f, 0.3f}, solver.getObstacleMaterial(index),
          "kept after clearing an obstacle that is not there");

      solver.clearObstacleMaterial(index);
      assertArrayEquals(new float[] {0.25f, 0.5f}, solver.getObstacleMaterial(index),
          "the parameters' again after clear");
      solver.setParams(solver.getParams().setFriction(0.1f));
      assertArrayEquals(new float[] {0.1f, 0.5f}, solver.getObstacleMaterial(index),
          "following the parameters as they change");
    }
  }

  @Test
  void sampledFieldsAreObstaclesToo() {
    try (Solver solver = damBreak(Method.PBF);
        SignedDistanceField ball = SignedDistanceField.sphere(RADIUS, 0.02f)) {
      int[] dims = ball.getDims();
      assertEquals(dims[0] * dims[1] * dims[2], ball.values().length);
      solver.addObstacle(ball, null, null);
      int index = solver.addObstacleSdf(ball.values(), dims, ball.getOrigin(), ball.getCell(), null,
          new float[] {0.5f, 0.5f, 0.5f});
      assertEquals(1, index);
      assertEquals(2, solver.getObstacleCount());
      refused(Status.INVALID_ARGUMENT, "pbf_solver_set_obstacle_pose",
          () -> solver.setObstaclePose(2, null, new float[] {0, 0, 0}));
      assertThrows(IllegalArgumentException.class, () -> solver.setObstaclePose(0, new float[] {0, 0, 1}, null));
    }
  }

  @Test
  void aBoxHasTheMassAndInertiaOfItsSolid() {
    try (SignedDistanceField box = SignedDistanceField.box(new float[] {0.1f, 0.2f, 0.3f}, 0.01f)) {
      float[] centre = new float[3];
      float[] inertia = new float[9];
      float mass = box.massProperties(500f, centre, inertia);
      double expected = 500.0 * 0.2 * 0.4 * 0.6;  // 24 kg; I_xx = M (0.2^2 + 0.3^2) / 3 with half extents
      assertEquals(expected, mass, 0.02 * expected, "mass");
      for (float c : centre) assertEquals(0.0, c, 1e-3, "centred at the origin");
      double ixx = expected * (0.04 + 0.09) / 3.0, izz = expected * (0.01 + 0.04) / 3.0;
      assertEquals(ixx, inertia[0], 0.02 * ixx, "I_xx");
      assertEquals(izz, inertia[8], 0.02 * ixx, "I_zz");
      assertEquals(0.0, inertia[1], 0.001 * ixx, "no product of inertia");
      assertEquals(mass, box.massProperties(500f, null, null), "mass alone");
      assertThrows(IllegalArgumentException.class, () -> box.massProperties(500f, null, new float[3]));
      refused(Status.INVALID_ARGUMENT, "pbf_sdf_mass_properties", () -> box.massProperties(0f, null, null));
    }
  }

  @Test
  void fillingASphereGivesItsVolumeOverTheSpacingCubed() {
    try (Solver solver = damBreak(Method.PBF);
        SignedDistanceField ball = SignedDistanceField.sphere(RADIUS, 0.02f)) {
      double exact = 4.0 / 3.0 * Math.PI * RADIUS * RADIUS * RADIUS;
      assertEquals(exact, ball.volume(), 0.03 * exact);
      int added = solver.fillSdf(ball, null, new float[] {0.5f, 0.5f, 0.5f}, new float[] {0, -1, 0});
      double expected = exact / (0.05 * 0.05 * 0.05);  // about 268
      // A lattice of spacing 0.05 m meets a sphere 8 spacings across within a few percent.
      assertEquals(expected, added, 0.1 * expected);
      assertEquals(added, solver.getParticleCount());
      assertEquals(-1f, solver.getVelocities()[1]);
      // Trilinear between samples 2 cm apart: within 2 mm away from the centre, where the field has a kink.
      assertEquals(-0.1f, ball.distance(new float[] {0.1f, 0, 0}), 2e-3f, "0.1 m from the centre");
      assertEquals(0.1f, ball.distance(new float[] {0.3f, 0, 0}), 2e-3f);
    }
  }

  @Test
  void fieldsSurviveASaveAndLoadAndMeshFilesBecomeFields(@TempDir Path dir) throws IOException {
    String path = dir.resolve("box.sdf").toString();
    try (SignedDistanceField box = SignedDistanceField.box(new float[] {0.1f, 0.2f, 0.3f}, 0.02f)) {
      box.save(path);
      try (SignedDistanceField loaded = SignedDistanceField.load(path)) {
        assertArrayEquals(box.values(), loaded.values());
        assertArrayEquals(box.getDims(), loaded.getDims());
        assertArrayEquals(box.getOrigin(), loaded.getOrigin());
        assertEquals(box.getCell(), loaded.getCell());
      }
    }
    // A cube of side 0.4 m centred at the origin.
    Path obj = dir.resolve("cube.obj");
    Files.writeString(obj, "v -0.2 -0.2 -0.2\nv 0.2 -0.2 -0.2\nv 0.2 0.2 -0.2\nv -0.2 0.2 -0.2\n"
        + "v -0.2 -0.2 0.2\nv 0.2 -0.2 0.2\nv 0.2 0.2 0.2\nv -0.2 0.2 0.2\n"
        + "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 3 4 8 7\nf 2 3 7 6\nf 1 5 8 4\n");
    try (SignedDistanceField cube = SignedDistanceField.fromMeshFile(obj.toString(), new float[] {1, 1, 1}, null,
        new float[] {0.5f, 0.5f, 0.5f}, 0.02f, 0)) {
      assertEquals(0.064f, cube.volume(), 0.03f * 0.064f);
      assertEquals(-0.2f, cube.distance(new float[] {0.5f, 0.5f, 0.5f}), 2e-3f);
    }
    refused(Status.IO, "pbf_sdf_load", () -> SignedDistanceField.load(dir.resolve("missing.sdf").toString()));
  }

  @Test
  void aBadCellIsRefusedByName() {
    PbfException e = refused(Status.INVALID_ARGUMENT, "pbf_sdf_sphere", () -> SignedDistanceField.sphere(RADIUS, 0));
    assertTrue(e.getMessage().contains("cell"), e.getMessage());
    e = refused(Status.INVALID_ARGUMENT, "pbf_sdf_box",
        () -> SignedDistanceField.box(new float[] {0.1f, 0.1f, 0.1f}, -1));
    assertTrue(e.getMessage().contains("cell"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> SignedDistanceField.box(new float[] {0.1f}, 0.02f));
  }

  @Test
  void aClosedFieldThrowsAndClosesTwice() {
    SignedDistanceField ball = SignedDistanceField.sphere(RADIUS, 0.05f);
    assertFalse(ball.isClosed());
    ball.close();
    ball.close();
    assertTrue(ball.isClosed());
    assertThrows(IllegalStateException.class, ball::volume);
    assertThrows(IllegalStateException.class, ball::values);
    try (Solver solver = damBreak(Method.PBF)) {
      assertThrows(IllegalStateException.class, () -> solver.addObstacle(ball, null, null));
      assertThrows(IllegalStateException.class, () -> solver.fillSdf(ball, null, null, null));
      assertEquals(0, solver.getObstacleCount());
    }
  }

  @Test
  void domainWallsAreSampledWithBoundaryParticles() {
    try (Solver solver = damBreak(Method.PBF)) {
      assertEquals(0, solver.getBoundaryParticleCount());
      int walls = solver.addDomainBoundaryParticles();
      assertTrue(walls > 0, walls + " wall samples");
      assertEquals(walls, solver.getBoundaryParticleCount());
      solver.addBoundaryParticles(new float[] {0.5f, 0.5f, 0.5f, 0.55f, 0.5f, 0.5f});
      assertEquals(walls + 2, solver.getBoundaryParticleCount());
      solver.fillBox(new float[] {0, 0, 0}, new float[] {0.3f, 0.3f, 0.3f});
      solver.step(1 / 60f, 2);
      refused(Status.INVALID_ARGUMENT, "pbf_solver_add_boundary_particles",
          () -> solver.addBoundaryParticles(new float[] {Float.NaN, 0, 0}));
      solver.clearBoundaryParticles();
      assertEquals(0, solver.getBoundaryParticleCount());
      try (SignedDistanceField box = SignedDistanceField.box(new float[] {0.1f, 0.1f, 0.1f}, 0.01f)) {
        int samples = solver.addSdfBoundaryParticles(box, null, new float[] {0.5f, 0.2f, 0.5f});
        assertTrue(samples > 20, samples + " samples of the box's surface");
        assertEquals(samples, solver.getBoundaryParticleCount());
      }
    }
  }

  @Test
  void anObstaclesBoundaryParticlesMoveWithItAndGoWithIt() {
    try (Solver solver = damBreak(Method.PBF)) {
      int wall = solver.addDomainBoundaryParticles();
      try (SignedDistanceField box = SignedDistanceField.box(new float[] {0.1f, 0.1f, 0.1f}, 0.01f)) {
        int index = solver.addObstacle(box, null, new float[] {0.5f, 0.5f, 0.5f});
        int samples = solver.addObstacleBoundaryParticles(index);
        assertTrue(samples > 20, samples + " samples of the box's surface");
        assertEquals(wall + samples, solver.getBoundaryParticleCount());
        solver.fillBox(new float[] {0, 0, 0}, new float[] {0.3f, 0.3f, 0.3f});
        solver.setObstaclePose(index, null, new float[] {0.6f, 0.5f, 0.5f});
        solver.step(1 / 60f, 2);
        refused(Status.INVALID_ARGUMENT, "pbf_solver_add_obstacle_boundary_particles",
            () -> solver.addObstacleBoundaryParticles(index + 1));
        assertThrows(IllegalArgumentException.class, () -> solver.addObstacleBoundaryParticles(-1));
        assertEquals(samples, solver.removeObstacleBoundaryParticles(index));
        assertEquals(wall, solver.getBoundaryParticleCount(), "the walls' after removing the box's");
        assertEquals(0, solver.removeObstacleBoundaryParticles(index), "none left to remove");
        refused(Status.INVALID_ARGUMENT, "pbf_solver_remove_obstacle_boundary_particles",
            () -> solver.removeObstacleBoundaryParticles(index + 1));
        assertThrows(IllegalArgumentException.class, () -> solver.removeObstacleBoundaryParticles(-1));
        solver.step(1 / 60f, 2);
        assertEquals(samples, solver.addObstacleBoundaryParticles(index), "the box sampled again");
        solver.clearObstacles();
        assertEquals(wall, solver.getBoundaryParticleCount());
      }
    }
  }

  @Test
  void aProjectiveSolverTakesBoundaryParticles() {
    try (Solver solver = damBreak(Method.PROJECTIVE)) {
      int walls = solver.addDomainBoundaryParticles();
      assertTrue(walls > 0);
      solver.addBoundaryParticles(new float[] {0.5f, 0.5f, 0.5f});
      assertEquals(walls + 1, solver.getBoundaryParticleCount());
      solver.step(1.0f / 60.0f, 1);
    }
  }
}
