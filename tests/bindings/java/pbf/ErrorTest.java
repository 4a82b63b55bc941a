// ErrorTest.java - every failure of the library reaches Java as a PbfException
// with the library's status and message, and the solver stays usable.
package pbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class ErrorTest {
  /** 27 particles in a solver that holds 200. */
  private static Solver small() {
    Solver solver = new Solver(new SolverDesc().setParticleSpacing(0.1f).setMaxParticles(200));
    solver.fillBox(new float[] {0, 0, 0}, new float[] {0.3f, 0.3f, 0.3f});
    return solver;
  }

  /** After a failed call the solver has its particles and still steps. */
  private static void assertStillUsable(Solver solver) {
    assertEquals(27, solver.getParticleCount());
    solver.step(0.01f, 1);
    assertEquals(81, solver.getPositions().length);
  }

  private static PbfException assertStatus(Status status, String prefix, Executable call) {
    PbfException e = assertThrows(PbfException.class, call);
    assertEquals(status, e.getStatus(), e.getMessage());
    assertTrue(e.getMessage().startsWith(prefix), "\"" + e.getMessage() + "\" should start with \"" + prefix + "\"");
    return e;
  }

  @Test
  void anInvalidDescriptionNamesTheField() {
    assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_create: desc->max_particles must be in [1, 268435456], got 0",
        () -> new Solver(new SolverDesc().setMaxParticles(0)));
    PbfException e = assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_create:",
        () -> new Solver(new SolverDesc().setParticleSpacing(Float.NaN)));
    assertTrue(e.getMessage().contains("particle_spacing"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new SolverDesc().setMaxParticles(-1));
    assertThrows(NullPointerException.class, () -> new Solver(null));
  }

  @Test
  void invalidParametersChangeNothing() {
    try (Solver solver = small()) {
      PbfException e = assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_set_params:",
          () -> solver.setParams(solver.getParams().setIterations(0)));
      assertTrue(e.getMessage().contains("iterations"), e.getMessage());
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_set_params:",
          () -> solver.setParams(solver.getParams().setGravity(0, Float.POSITIVE_INFINITY, 0)));
      assertEquals(4, solver.getParams().getIterations());
      assertEquals(-9.81f, solver.getParams().getGravity()[1]);
      assertStillUsable(solver);
    }
  }

  @Test
  void badParticlesAreRefusedWhole() {
    try (Solver solver = small()) {
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_add_particles:",
          () -> solver.addParticles(new float[] {0.5f, 0.5f, 0.5f, 2.0f, 0.5f, 0.5f}));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_add_particles:",
          () -> solver.addParticles(new float[] {0.5f, Float.NaN, 0.5f}));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_add_particles:",
          () -> solver.addParticles(new float[] {0.5f, 0.5f, 0.5f}, new float[] {0, Float.NaN, 0}));
      assertThrows(IllegalArgumentException.class, () -> solver.addParticles(new float[] {0.5f, 0.5f}));
      assertThrows(IllegalArgumentException.class, () -> solver.addParticles(new float[3], new float[6]));
      assertThrows(NullPointerException.class, () -> solver.addParticles(null));
      assertStillUsable(solver);
    }
  }

  @Test
  void capacityIsEnforced() {
    try (Solver solver = small()) {
      assertStatus(Status.CAPACITY_EXCEEDED, "pbf_solver_add_particles:", () -> solver.addParticles(new float[3 * 174]));
      assertStatus(Status.CAPACITY_EXCEEDED, "pbf_solver_fill_box:",
          () -> solver.fillBox(new float[] {0, 0, 0}, new float[] {1, 1, 1}));
      assertStillUsable(solver);
      for (int i = 0; i < 64; ++i) assertEquals(i, solver.addPlane(new float[] {0, 1, 0}, 0));
      assertStatus(Status.CAPACITY_EXCEEDED, "pbf_solver_add_plane:", () -> solver.addPlane(new float[] {0, 1, 0}, 0));
      assertStillUsable(solver);
    }
  }

  @Test
  void badBoxesAndPlanesAreRefused() {
    try (Solver solver = small()) {
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_fill_box:",
          () -> solver.fillBox(new float[] {0.5f, 0, 0}, new float[] {0.4f, 1, 1}));
      assertThrows(IllegalArgumentException.class, () -> solver.fillBox(new float[2], new float[3]));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_add_plane:", () -> solver.addPlane(new float[3], 0));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_add_plane:",
          () -> solver.addPlane(new float[] {0, 1, 0}, Float.NaN));
      assertStillUsable(solver);
    }
  }

  @Test
  void arraysOfTheWrongLengthAreRefused() {
    try (Solver solver = small()) {
      assertStatus(Status.BUFFER_TOO_SMALL, "pbf_solver_get_positions:", () -> solver.getPositions(new float[80]));
      assertStatus(Status.BUFFER_TOO_SMALL, "pbf_solver_get_velocities:", () -> solver.getVelocities(new float[3]));
      assertStatus(Status.BUFFER_TOO_SMALL, "pbf_solver_get_densities:", () -> solver.getDensities(new float[26]));
      assertStatus(Status.BUFFER_TOO_SMALL, "pbf_solver_set_positions:", () -> solver.setPositions(new float[80]));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_set_positions:", () -> solver.setPositions(new float[84]));
      assertStatus(Status.BUFFER_TOO_SMALL, "pbf_solver_set_velocities:", () -> solver.setVelocities(new float[3]));
      float[] outside = solver.getPositions();
      outside[4] = -1.0f;
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_set_positions:", () -> solver.setPositions(outside));
      assertStillUsable(solver);
    }
  }

  @Test
  void badIndicesAreRefused() {
    try (Solver solver = small()) {
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_remove_particles:",
          () -> solver.removeParticles(new int[] {27}));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_remove_particles:",
          () -> solver.removeParticles(new int[] {3, 3}));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_remove_particles:",
          () -> solver.removeParticles(new int[] {-1}));
      assertStillUsable(solver);
    }
  }

  @Test
  void badStepsNameTheArgument() {
    try (Solver solver = small()) {
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_step: substeps must be in [1, 1000], got 0",
          () -> solver.step(0.01f, 0));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_step: dt", () -> solver.step(0f));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_step: dt", () -> solver.step(Float.NaN));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_step: dt", () -> solver.step(11f));
      assertThrows(IllegalArgumentException.class, () -> solver.step(0.01f, -1));
      assertStillUsable(solver);
    }
  }

  @Test
  void filesThatCannotBeWrittenOrReadAreIoErrors(@TempDir Path dir) {
    String missing = dir.resolve("no-such-dir").toString();
    try (Solver solver = small()) {
      PbfException e = assertStatus(Status.IO, "pbf_solver_write_ply:", () -> solver.writePly(missing + "/f.ply"));
      assertTrue(e.getMessage().contains(missing), e.getMessage());
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_write_ply:", () -> solver.writePly(""));
      assertStatus(Status.IO, "pbf_solver_load_checkpoint:", () -> solver.loadCheckpoint(missing + "/c.pbf"));
      assertStatus(Status.IO, "pbf_solver_save_checkpoint:", () -> solver.saveCheckpoint(missing + "/c.pbf"));
      assertThrows(NullPointerException.class, () -> solver.writePly(null));
      assertStillUsable(solver);
    }
  }

  @Test
  void theMessageIsTheOneOfTheCallingThread() throws InterruptedException {
    try (Solver solver = small()) {
      PbfException main = assertThrows(PbfException.class, () -> solver.step(0.01f, 0));
      PbfException[] other = new PbfException[1];
      Thread thread = new Thread(() -> {
        try {
          solver.step(0.01f, 2000);
        } catch (PbfException e) {
          other[0] = e;
        }
      });
      thread.start();
      thread.join();
      assertNotNull(other[0]);
      assertTrue(other[0].getMessage().endsWith("got 2000"), other[0].getMessage());
      assertTrue(main.getMessage().endsWith("got 0"), main.getMessage());
      assertStillUsable(solver);
    }
  }
}
