// BackendTest.java - solvers on every backend that is available; a clear
// exception for one that is not.
package pbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class BackendTest {
  @ParameterizedTest
  @EnumSource(Backend.class)
  void everyAvailableBackendRunsADamBreak(Backend backend) {
    if (!Library.isAvailable(backend)) return;
    try (Solver solver = Reference.damBreakScene(backend, 0)) {
      Backend resolved = solver.getDesc().getBackend();
      assertTrue(resolved == Backend.CPU || resolved == Backend.CUDA, "resolves to a real backend");
      if (backend != Backend.AUTO) assertEquals(backend, resolved);
      int n = solver.getParticleCount();
      for (int step = 0; step < 10; ++step) solver.step(1.0f / 60.0f, 2);
      assertEquals(n, solver.getParticleCount());
      SolverStats stats = solver.getStats();
      assertEquals(n, stats.getParticleCount());
      assertEquals(2, stats.getSubsteps());
      assertTrue(stats.getAvgNeighbors() > 5.0f, "neighbours found");
      float[] x = solver.getPositions();
      float[] lo = solver.getDesc().getDomainMin();
      float[] hi = solver.getDesc().getDomainMax();
      for (int i = 0; i < x.length; ++i) assertTrue(x[i] >= lo[i % 3] && x[i] <= hi[i % 3], "inside the domain");
    }
  }

  @Test
  void autoAndCpuAreAlwaysAvailable() {
    assertTrue(Library.isAvailable(Backend.AUTO));
    assertTrue(Library.isAvailable(Backend.CPU));
    assertEquals("cpu", Library.backendName(Backend.CPU));
    assertEquals("cuda", Library.backendName(Backend.CUDA));
    assertEquals("PBF_ERROR_IO", Library.statusName(Status.IO));
  }

  @Test
  void anUnavailableCudaBackendIsAnExceptionThatSaysSo() {
    assumeFalse(Library.isAvailable(Backend.CUDA), "CUDA is available here");
    PbfException e = assertThrows(PbfException.class, () -> new Solver(new SolverDesc().setBackend(Backend.CUDA)));
    assertEquals(Status.BACKEND_UNAVAILABLE, e.getStatus());
    assertTrue(e.getMessage().startsWith("pbf_solver_create:"), e.getMessage());
    assertTrue(e.getMessage().contains("PBF_BACKEND_CUDA is not available"), e.getMessage());
    assertTrue(e.toString().startsWith("PBF_ERROR_BACKEND_UNAVAILABLE: "), e.toString());
  }
}
