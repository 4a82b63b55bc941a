// AsyncTest.java - steps that run while the caller does something else.
package pbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AsyncTest {
  @Test
  void anAsynchronousStepGivesTheSameParticlesAsASynchronousOne() {
    float[] expected;
    try (Solver solver = Reference.damBreakScene(Backend.CPU, 0)) {
      for (int k = 0; k < 5; ++k) solver.step(1f / 60f, 2);
      expected = solver.getPositions();
    }
    try (Solver solver = Reference.damBreakScene(Backend.CPU, 0)) {
      for (int k = 0; k < 5; ++k) {
        solver.startStep(1f / 60f, 2);
        solver.waitStep();
        assertTrue(solver.isStepDone());
      }
      Reference.assertBitIdentical(expected, 0, solver.getPositions(), "positions");
    }
  }

  @Test
  void everyOtherCallIsBusyUntilTheWait() {
    try (Solver solver = Reference.damBreakScene(Backend.CPU, 0)) {
      solver.startStep(1f / 60f, 20);
      assertEquals(Status.BUSY, assertThrows(PbfException.class, () -> solver.getPositions(new float[3000])).getStatus());
      assertEquals(Status.BUSY, assertThrows(PbfException.class, () -> solver.startStep(0.01f, 1)).getStatus());
      assertEquals(Status.BUSY, assertThrows(PbfException.class, () -> solver.step(0.01f)).getStatus());
      solver.waitStep();
      assertEquals(20, solver.getStats().getSubsteps());
      solver.step(0.01f);
    }
  }

  @Test
  void badArgumentsAreRefusedWhenTheStepStarts() {
    try (Solver solver = Reference.damBreakScene(Backend.CPU, 0)) {
      PbfException e = assertThrows(PbfException.class, () -> solver.startStep(0.01f, 0));
      assertEquals(Status.INVALID_ARGUMENT, e.getStatus());
      assertTrue(e.getMessage().startsWith("pbf_solver_step_async: substeps must be in [1, 1000], got 0"),
          e.getMessage());
      assertTrue(solver.isStepDone());
      solver.waitStep();
      solver.step(0.01f);
    }
  }

  @Test
  void closingWaitsForARunningStep() {
    Solver solver = Reference.damBreakScene(Backend.CPU, 0);
    solver.startStep(1f / 60f, 10);
    solver.close();
    assertTrue(solver.isClosed());
    assertThrows(IllegalStateException.class, solver::waitStep);
  }
}
