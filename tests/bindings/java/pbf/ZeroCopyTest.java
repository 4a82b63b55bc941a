// ZeroCopyTest.java - fields lent without a copy (Solver.map) and copies
// into and out of direct FloatBuffers the caller owns.
package pbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class ZeroCopyTest {
  // A 0.4 m cube at 0.1 m spacing: 64 particles, stepped once so that densities are not 0.
  private static Solver stepped() {
    Solver solver = new Solver(new SolverDesc().setParticleSpacing(0.1f).setMaxParticles(1000));
    solver.fillBox(new float[] {0, 0, 0}, new float[] {0.4f, 0.4f, 0.4f});
    solver.step(1 / 60f, 2);
    return solver;
  }

  private static FloatBuffer direct(int floats) {
    return ByteBuffer.allocateDirect(4 * floats).order(ByteOrder.nativeOrder()).asFloatBuffer();
  }

  private static float[] drain(FloatBuffer buffer) {
    float[] a = new float[buffer.remaining()];
    buffer.duplicate().get(a);
    return a;
  }

  private static void assertStatus(Status status, String prefix, Executable call) {
    PbfException e = assertThrows(PbfException.class, call);
    assertEquals(status, e.getStatus(), e.getMessage());
    assertTrue(e.getMessage().startsWith(prefix), "\"" + e.getMessage() + "\" should start with \"" + prefix + "\"");
  }

  @Test
  void aMappedFieldIsTheSolversOwnDataBitForBit() {
    try (Solver solver = stepped()) {
      int n = solver.getParticleCount();
      for (Field field : Field.values()) {
        float[] copy = field == Field.POSITIONS ? solver.getPositions()
            : field == Field.VELOCITIES ? solver.getVelocities() : solver.getDensities();
        try (MappedField view = solver.map(field)) {
          assertEquals(n, view.getCount());
          assertEquals(copy.length, view.getLength());
          assertEquals(Memory.HOST, view.getMemory());
          assertTrue(view.isMapped() && view.address() != 0);
          FloatBuffer b = view.buffer();
          assertTrue(b.isDirect() && b.isReadOnly(), "a read-only view of the lent memory");
          Reference.assertBitIdentical(copy, 0, drain(b), field + " through the buffer");
          float[] out = new float[copy.length];
          view.copyTo(out);
          Reference.assertBitIdentical(copy, 0, out, field + " through copyTo");
          assertEquals(copy[copy.length - 1], view.get(copy.length - 1));
          assertEquals(3 * n, solver.getPositions().length, "reads still work while mapped");
        }
      }
    }
  }

  @Test
  void aMappedSolverRefusesToChangeParticlesUntilTheViewIsClosed() {
    try (Solver solver = stepped()) {
      MappedField view = solver.map(Field.POSITIONS);
      assertStatus(Status.BUSY, "pbf_solver_step: ", () -> solver.step(0.01f, 1));
      assertStatus(Status.BUSY, "pbf_solver_set_positions: ", () -> solver.setPositions(solver.getPositions()));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_map: field is already mapped", () -> solver.map(Field.POSITIONS));
      try (MappedField densities = solver.map(Field.DENSITIES)) {
        assertTrue(densities.isMapped(), "another field may be mapped at the same time");
      }
      view.close();
      assertFalse(view.isMapped());
      assertThrows(IllegalStateException.class, view::address);
      assertThrows(IllegalStateException.class, view::buffer);
      assertThrows(IllegalStateException.class, () -> view.get(0));
      view.close();  // twice does nothing
      solver.step(0.01f, 1);
      solver.map(Field.POSITIONS).close();  // mappable again
    }
  }

  @Test
  void misuseOfAViewIsRefusedByName() {
    try (Solver solver = stepped()) {
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_map: memory: PBF_MEMORY_DEVICE needs a solver on PBF_BACKEND_CUDA",
          () -> solver.map(Field.POSITIONS, Memory.DEVICE));
      assertThrows(NullPointerException.class, () -> solver.map(null));
      try (MappedField view = solver.map(Field.VELOCITIES)) {  // the refused maps left nothing mapped
        assertThrows(IndexOutOfBoundsException.class, () -> view.get(view.getLength()));
        assertThrows(IndexOutOfBoundsException.class, () -> view.get(-1));
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> view.copyTo(new float[view.getLength() - 1]));
        assertTrue(e.getMessage().startsWith("destination holds"), e.getMessage());
      }
    }
  }

  @Test
  void closingTheSolverUnderAViewKeepsTheLentMemoryUntilTheViewIsClosed() {
    Solver solver = stepped();
    float[] expected = solver.getPositions();
    MappedField view = solver.map(Field.POSITIONS);
    FloatBuffer buffer = view.buffer();
    solver.close();
    assertTrue(solver.isClosed(), "the solver refuses calls at once");
    assertThrows(IllegalStateException.class, () -> solver.step(0.01f, 1));
    assertFalse(view.isMapped(), "the view ends with its solver");
    IllegalStateException e = assertThrows(IllegalStateException.class, view::buffer);
    assertTrue(e.getMessage().contains("solver"), e.getMessage());
    // Freed memory would read garbage here (or crash); the view's pin keeps the native solver.
    Reference.assertBitIdentical(expected, 0, drain(buffer), "a buffer taken before the solver was closed");
    view.close();  // destroys the native solver now
    view.close();
  }

  @Test
  void copiesGoIntoAndOutOfDirectBuffers() {
    try (Solver solver = stepped()) {
      int n = solver.getParticleCount();
      FloatBuffer big = direct(3 * n + 2);
      big.position(1);
      solver.getPositions(big);
      assertEquals(1, big.position(), "the position does not move");
      big.position(0);
      float[] all = drain(big);
      assertEquals(0f, all[0], "nothing before the position");
      assertEquals(0f, all[3 * n + 1], "nothing after the field");
      float[] x = solver.getPositions();
      Reference.assertBitIdentical(x, 0, java.util.Arrays.copyOfRange(all, 1, 3 * n + 1), "positions");
      FloatBuffer v = direct(3 * n);
      solver.getVelocities(v);
      Reference.assertBitIdentical(solver.getVelocities(), 0, drain(v), "velocities");
      FloatBuffer d = direct(n);
      solver.getDensities(d);
      Reference.assertBitIdentical(solver.getDensities(), 0, drain(d), "densities");

      for (int i = 0; i < x.length; ++i) x[i] += 0.125f;
      FloatBuffer source = direct(3 * n);
      source.put(x).flip();
      solver.setPositions(source);
      assertArrayEquals(x, solver.getPositions());
      solver.setVelocities(direct(3 * n));
      assertArrayEquals(new float[3 * n], solver.getVelocities());

      assertStatus(Status.BUFFER_TOO_SMALL, "pbf_solver_get_positions: capacity is " + (3 * n - 1),
          () -> solver.getPositions(direct(3 * n - 1)));
      assertStatus(Status.BUFFER_TOO_SMALL, "pbf_solver_get_densities: capacity is 0",
          () -> solver.getDensities(direct(n).position(n)));
      assertStatus(Status.INVALID_ARGUMENT, "pbf_solver_set_velocities: length is " + (3 * n + 1),
          () -> solver.setVelocities(direct(3 * n + 1)));
    }
  }

  @Test
  void buffersThatTheLibraryCannotUseAreRefusedByName() {
    try (Solver solver = stepped()) {
      int n = solver.getParticleCount();
      IllegalArgumentException heap =
          assertThrows(IllegalArgumentException.class, () -> solver.getPositions(FloatBuffer.allocate(3 * n)));
      assertTrue(heap.getMessage().startsWith("destination must be a direct FloatBuffer"), heap.getMessage());
      ByteOrder other = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
      FloatBuffer swapped = ByteBuffer.allocateDirect(12 * n).order(other).asFloatBuffer();
      IllegalArgumentException order = assertThrows(IllegalArgumentException.class, () -> solver.setPositions(swapped));
      assertTrue(order.getMessage().startsWith("source must be in the native byte order"), order.getMessage());
      IllegalArgumentException readOnly =
          assertThrows(IllegalArgumentException.class, () -> solver.getVelocities(direct(3 * n).asReadOnlyBuffer()));
      assertEquals("destination is read-only", readOnly.getMessage());
      assertThrows(NullPointerException.class, () -> solver.getDensities((FloatBuffer) null));
    }
  }
}
