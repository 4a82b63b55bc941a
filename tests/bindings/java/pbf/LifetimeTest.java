// LifetimeTest.java - closing, using after close, many solvers, the cleaner.
package pbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class LifetimeTest {
  private static Solver make() {
    Solver solver = new Solver(new SolverDesc().setParticleSpacing(0.1f).setMaxParticles(1000));
    solver.fillBox(new float[] {0, 0, 0}, new float[] {0.4f, 0.4f, 0.4f});
    return solver;
  }

  @Test
  void closingTwiceDoesNothing() {
    Solver solver = make();
    assertFalse(solver.isClosed());
    solver.close();
    assertTrue(solver.isClosed());
    solver.close();
    assertTrue(solver.isClosed());
  }

  @Test
  void everyCallAfterCloseIsAnException() {
    Solver solver = make();
    solver.close();
    Map<String, Executable> calls = new LinkedHashMap<>();
    calls.put("step", () -> solver.step(0.01f));
    calls.put("getDesc", solver::getDesc);
    calls.put("getParticleMass", solver::getParticleMass);
    calls.put("getParams", solver::getParams);
    calls.put("setParams", () -> solver.setParams(new SolverParams()));
    calls.put("getParticleCount", solver::getParticleCount);
    calls.put("addParticles", () -> solver.addParticles(new float[] {0.5f, 0.5f, 0.5f}));
    calls.put("fillBox", () -> solver.fillBox(new float[3], new float[] {1, 1, 1}));
    calls.put("removeParticles", () -> solver.removeParticles(new int[] {0}));
    calls.put("clearParticles", solver::clearParticles);
    calls.put("getPositions", () -> solver.getPositions());
    calls.put("getVelocities", () -> solver.getVelocities(new float[3]));
    calls.put("getDensities", () -> solver.getDensities());
    calls.put("setPositions", () -> solver.setPositions(new float[3]));
    calls.put("setVelocities", () -> solver.setVelocities(new float[3]));
    calls.put("addPlane", () -> solver.addPlane(new float[] {0, 1, 0}, 0));
    calls.put("clearPlanes", solver::clearPlanes);
    calls.put("getStats", solver::getStats);
    calls.put("writePly", () -> solver.writePly("never.ply"));
    calls.put("saveCheckpoint", () -> solver.saveCheckpoint("never.pbf"));
    calls.put("loadCheckpoint", () -> solver.loadCheckpoint("never.pbf"));
    calls.put("startStep", () -> solver.startStep(0.01f, 1));
    calls.put("waitStep", solver::waitStep);
    calls.put("isStepDone", solver::isStepDone);
    SignedDistanceField ball = SignedDistanceField.sphere(0.1f, 0.05f);  // open: the solver is what is closed
    calls.put("addObstacle", () -> solver.addObstacle(ball, null, null));
    calls.put("addObstacleSdf",
        () -> solver.addObstacleSdf(new float[8], new int[] {2, 2, 2}, new float[3], 0.1f, null, null));
    calls.put("setObstaclePose", () -> solver.setObstaclePose(0, null, new float[3]));
    calls.put("getObstacleCount", solver::getObstacleCount);
    calls.put("clearObstacles", solver::clearObstacles);
    calls.put("fillSdf", () -> solver.fillSdf(ball, null, null, null));
    calls.put("addBoundaryParticles", () -> solver.addBoundaryParticles(new float[] {0.5f, 0.5f, 0.5f}));
    calls.put("addDomainBoundaryParticles", solver::addDomainBoundaryParticles);
    calls.put("getBoundaryParticleCount", solver::getBoundaryParticleCount);
    calls.put("clearBoundaryParticles", solver::clearBoundaryParticles);
    calls.put("addObstacleBoundaryParticles", () -> solver.addObstacleBoundaryParticles(0));
    calls.put("removeObstacleBoundaryParticles", () -> solver.removeObstacleBoundaryParticles(0));
    for (Map.Entry<String, Executable> call : calls.entrySet()) {
      assertThrows(IllegalStateException.class, call.getValue(), call.getKey() + " after close");
    }
    ball.close();
  }

  @Test
  void manySolversLiveAtOnce() {
    List<Solver> solvers = new ArrayList<>();
    try {
      for (int i = 0; i < 40; ++i) solvers.add(make());
      for (Solver s : solvers) s.step(0.01f, 2);
      float[] first = solvers.get(0).getPositions();
      for (Solver s : solvers) Reference.assertBitIdentical(first, 0, s.getPositions(), "every solver the same");
    } finally {
      for (Solver s : solvers) s.close();
    }
  }

  @Test
  void solversRunOnManyThreadsAtOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<float[]>> results = new ArrayList<>();
      for (int t = 0; t < 4; ++t) {
        results.add(pool.submit(() -> {
          try (Solver s = make()) {
            for (int k = 0; k < 5; ++k) s.step(0.01f, 2);
            return s.getPositions();
          }
        }));
      }
      float[] first = results.get(0).get();
      for (Future<float[]> r : results) Reference.assertBitIdentical(first, 0, r.get(), "every thread the same");
    } finally {
      pool.shutdown();
    }
  }

  @Test
  void anUnclosedSolverIsFreedByTheCleaner() throws InterruptedException {
    for (int i = 0; i < 10; ++i) make().step(0.01f);
    System.gc();
    Thread.sleep(50);
    try (Solver solver = make()) {
      solver.step(0.01f);
    }
  }

  @Test
  void solversWorkAgainAfterTheLastOneWasClosed() {
    for (int round = 0; round < 3; ++round) {
      try (Solver solver = make()) {
        solver.step(0.01f, 2);
        assertEquals(64, solver.getParticleCount());
      }
    }
  }
}
