// ParticleTest.java - particles, planes, parameters, statistics and files
// through the binding: whole arrays in user order.
package pbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParticleTest {
  private static Solver empty() {
    return new Solver(new SolverDesc().setParticleSpacing(0.1f).setMaxParticles(1000));
  }

  @Test
  void particlesComeBackInTheOrderTheyWereAdded() {
    try (Solver solver = empty()) {
      float[] x = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f};
      float[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9};
      solver.addParticles(x, v);
      assertEquals(3, solver.getParticleCount());
      assertArrayEquals(x, solver.getPositions());
      assertArrayEquals(v, solver.getVelocities());
      assertArrayEquals(new float[3], solver.getDensities());
      solver.removeParticles(new int[] {1});
      assertArrayEquals(new float[] {0.1f, 0.2f, 0.3f, 0.7f, 0.8f, 0.9f}, solver.getPositions());
      solver.addParticles(new float[] {0.5f, 0.5f, 0.5f});
      float[] all = solver.getVelocities();
      assertArrayEquals(new float[3], Arrays.copyOfRange(all, 6, 9), "a particle added without velocities rests");
      solver.clearParticles();
      assertEquals(0, solver.getParticleCount());
      assertEquals(0, solver.getPositions().length);
    }
  }

  @Test
  void densitiesCanBeEvaluatedBeforeTheFirstStep() {
    try (Solver solver = empty()) {
      solver.fillBox(new float[] {0, 0, 0}, new float[] {1, 1, 1}, null);  // the whole domain
      float[] x = solver.getPositions();
      solver.updateDensities();
      // The placed lattice with the walls' own density: rest density within 2.5 % everywhere.
      for (float r : solver.getDensities()) assertTrue(Math.abs(r - 1000f) < 25f, "density " + r);
      assertArrayEquals(x, solver.getPositions());
    }
  }

  @Test
  void positionsAndVelocitiesCanBeOverwritten() {
    try (Solver solver = empty()) {
      assertEquals(8, solver.fillBox(new float[] {0, 0, 0}, new float[] {0.2f, 0.2f, 0.2f}, new float[] {1, 0, 0}));
      float[] v = solver.getVelocities();
      for (int i = 0; i < 8; ++i) assertEquals(1f, v[3 * i]);
      float[] x = solver.getPositions();
      for (int i = 0; i < x.length; ++i) x[i] += 0.5f;
      solver.setPositions(x);
      assertArrayEquals(x, solver.getPositions());
      solver.setVelocities(new float[24]);
      assertArrayEquals(new float[24], solver.getVelocities());
      float[] big = new float[100];
      solver.getPositions(big);
      assertArrayEquals(x, Arrays.copyOf(big, 24));
    }
  }

  @Test
  void projectiveFluidsStepsAndReportsItsIterations() {
    try (Solver solver = new Solver(new SolverDesc().setParticleSpacing(0.1f).setMaxParticles(1000)
        .setMethod(Method.PROJECTIVE))) {
      assertEquals(Method.PROJECTIVE, solver.getDesc().getMethod());
      solver.fillBox(new float[] {0, 0, 0}, new float[] {0.5f, 0.5f, 0.5f});
      solver.setParams(new SolverParams().setProjectiveIterations(6).setProjectiveStiffness(2e5f)
          .setAdaptiveDt(false).setMaxDt(0.005f).setProjectiveChebyshevRho(0.5f));
      SolverParams q = solver.getParams();
      assertEquals(6, q.getProjectiveIterations());
      assertEquals(2e5f, q.getProjectiveStiffness());
      assertFalse(q.getAdaptiveDt());
      assertEquals(0.005f, q.getMaxDt());
      assertEquals(0.5f, q.getProjectiveChebyshevRho());
      solver.step(1f / 60f, 2);
      SolverStats s = solver.getStats();
      assertEquals(2, s.getSubsteps());
      assertTrue(s.getLocalGlobalIterations() > 0 && s.getCgIterations() > 0);
      assertTrue(s.getMaxSubstepDt() > 0f);
    }
  }

  @Test
  void pbfRunsMoreIterationsWhereTheDensityToleranceAsks() {
    try (Solver solver = new Solver(new SolverDesc().setParticleSpacing(0.1f).setMaxParticles(1000))) {
      solver.fillBox(new float[] {0, 0, 0}, new float[] {0.5f, 0.5f, 0.5f});
      // A tolerance no step meets runs every iteration up to maxIterations; one every step meets, iterations.
      solver.setParams(new SolverParams().setIterations(2).setDensityTolerance(1e-9f).setMaxIterations(9));
      SolverParams q = solver.getParams();
      assertEquals(1e-9f, q.getDensityTolerance());
      assertEquals(9, q.getMaxIterations());
      solver.step(1f / 60f, 1);
      assertEquals(9, solver.getStats().getDensityIterations());
      assertEquals(9, solver.getStats().getIterations());
      solver.setParams(new SolverParams().setIterations(2).setDensityTolerance(1f).setMaxIterations(9));
      solver.step(1f / 60f, 1);
      assertEquals(2, solver.getStats().getDensityIterations());
    }
  }

  @Test
  void aStepFillsStatisticsAndDensities() {
    try (Solver solver = empty()) {
      solver.fillBox(new float[] {0, 0, 0}, new float[] {0.5f, 0.5f, 0.5f});
      assertEquals(0, solver.getStats().getParticleCount());
      solver.step(1f / 60f, 3);
      SolverStats s = solver.getStats();
      assertEquals(125, s.getParticleCount());
      assertEquals(3, s.getSubsteps());
      assertEquals(20, s.getIterations());  // at most: the density tolerance may add up to maxIterations
      assertTrue(s.getDensityIterations() >= 3 * 4 && s.getDensityIterations() <= 3 * 20);
      assertTrue(s.getTimeTotalMs() > 0.0);
      assertTrue(s.getTimeTotalMs() >= s.getTimeConstraintsMs());
      assertTrue(s.getAvgNeighbors() > 0f && s.getMaxNeighbors() > 0);
      for (float rho : solver.getDensities()) assertTrue(rho > 0f);
      SolverDesc d = solver.getDesc();
      assertEquals(0.2f, d.getKernelRadius());
      assertTrue(d.getThreadCount() >= 1);
      assertTrue(d.getMaxNeighbors() >= 16);
    }
  }

  @Test
  void parametersRoundTrip() {
    try (Solver solver = empty()) {
      solver.setParams(new SolverParams().setGravity(1, -2, 3).setIterations(7).setRelaxation(0.5f)
          .setUnilateral(false).setArtificialPressureK(0.3f).setArtificialPressureN(2f)
          .setArtificialPressureDq(0.1f).setXsphViscosity(0.4f).setVorticityEpsilon(0.6f).setRestitution(0.7f)
          .setFriction(0.8f).setMaxSpeed(9f));
      SolverParams q = solver.getParams();
      assertArrayEquals(new float[] {1, -2, 3}, q.getGravity());
      assertEquals(7, q.getIterations());
      assertEquals(0.5f, q.getRelaxation());
      assertFalse(q.isUnilateral());
      assertEquals(0.3f, q.getArtificialPressureK());
      assertEquals(2f, q.getArtificialPressureN());
      assertEquals(0.1f, q.getArtificialPressureDq());
      assertEquals(0.4f, q.getXsphViscosity());
      assertEquals(0.6f, q.getVorticityEpsilon());
      assertEquals(0.7f, q.getRestitution());
      assertEquals(0.8f, q.getFriction());
      assertEquals(9f, q.getMaxSpeed());
    }
  }

  @Test
  void planesAreNumberedFromZeroAgainAfterClearing() {
    try (Solver solver = empty()) {
      assertEquals(0, solver.addPlane(new float[] {0, 1, 0}, -0.2f));
      assertEquals(1, solver.addPlane(new float[] {1, 0, 0}, -0.1f));
      solver.clearPlanes();
      assertEquals(0, solver.addPlane(new float[] {0, 2, 0}, -0.4f));
      solver.fillBox(new float[] {0, 0, 0}, new float[] {1, 1, 1});
      solver.step(0.02f, 2);
      float[] x = solver.getPositions();
      for (int i = 1; i < x.length; i += 3) assertTrue(x[i] >= 0.2f, "kept above the plane y = 0.2");
    }
  }

  @Test
  void plyFilesAndCheckpointsAreWritten(@TempDir Path dir) throws IOException {
    try (Solver solver = empty()) {
      solver.fillBox(new float[] {0, 0, 0}, new float[] {0.3f, 0.3f, 0.3f});
      solver.step(0.01f);
      Path ply = dir.resolve("frame.ply");
      solver.writePly(ply.toString());
      assertTrue(Files.size(ply) > 27 * 28);
      Path checkpoint = dir.resolve("state.pbf");
      solver.saveCheckpoint(checkpoint.toString());
      float[] saved = solver.getPositions();
      for (int k = 0; k < 5; ++k) solver.step(0.01f);
      solver.loadCheckpoint(checkpoint.toString());
      Reference.assertBitIdentical(saved, 0, solver.getPositions(), "positions restored");
    }
  }
}
