// Reference.java - what binding_reference wrote, and the same scene built through the binding.
package pbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

/** Reads facts.txt and dam_break.f32 from -Dpbf.reference.dir, and builds the scene of binding_reference.c. */
final class Reference {
  private static Map<String, String> facts;

  private Reference() {}

  private static Path dir() {
    String dir = System.getProperty("pbf.reference.dir");
    if (dir == null) fail("run with -Dpbf.reference.dir=<folder binding_reference wrote>");
    return Paths.get(dir);
  }

  static synchronized String fact(String key) {
    if (facts == null) {
      facts = new HashMap<>();
      try {
        for (String line : Files.readAllLines(dir().resolve("facts.txt"))) {
          int eq = line.indexOf('=');
          if (eq > 0) facts.put(line.substring(0, eq), line.substring(eq + 1));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    String value = facts.get(key);
    if (value == null) fail("facts.txt has no " + key);
    return value;
  }

  static long integer(String key) {
    return Long.parseLong(fact(key));
  }

  /** A float fact, bit for bit (written as the hex of its IEEE-754 bits). */
  static float floating(String key) {
    return Float.intBitsToFloat(Integer.parseUnsignedInt(fact(key), 16));
  }

  /** Positions, velocities and densities of the C run. */
  static float[] damBreak() {
    try {
      ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(dir().resolve("dam_break.f32")));
      float[] values = new float[bytes.capacity() / 4];
      bytes.order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(values);
      return values;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Fails unless {@code actual} holds the bits of {@code expected} from {@code offset} on. */
  static void assertBitIdentical(float[] expected, int offset, float[] actual, String what) {
    int differ = 0;
    int first = -1;
    for (int i = 0; i < actual.length; ++i) {
      if (Float.floatToRawIntBits(actual[i]) != Float.floatToRawIntBits(expected[offset + i])) {
        if (first < 0) first = i;
        ++differ;
      }
    }
    if (differ > 0) {
      fail(what + ": " + differ + " of " + actual.length + " floats differ, first at [" + first + "]: "
          + actual[first] + " != " + expected[offset + first]);
    }
  }

  /** The scene of binding_reference.c. */
  static Solver damBreakScene(Backend backend, int threads) {
    Solver solver = new Solver(new SolverDesc().setBackend(backend).setThreadCount(threads)
        .setParticleSpacing(0.05f).setMaxParticles(20000).setDomainMax(1.6f, 1.0f, 0.6f));
    solver.setParams(solver.getParams().setIterations(3).setXsphViscosity(0.02f).setVorticityEpsilon(0.02f)
        .setFriction(0.1f));
    solver.fillBox(new float[] {0, 0, 0}, new float[] {0.5f, 0.6f, 0.4f});
    float[] drop = new float[24];
    float[] dropVelocity = new float[24];
    int k = 0;
    for (int z = 0; z < 2; ++z) {
      for (int y = 0; y < 2; ++y) {
        for (int x = 0; x < 2; ++x, ++k) {
          drop[3 * k] = 1.2f + 0.05f * x;
          drop[3 * k + 1] = 0.7f + 0.05f * y;
          drop[3 * k + 2] = 0.2f + 0.05f * z;
          dropVelocity[3 * k] = -1.0f;
          dropVelocity[3 * k + 2] = 0.5f;
        }
      }
    }
    solver.addParticles(drop, dropVelocity);
    assertEquals(0, solver.addPlane(new float[] {-1.0f, 0.2f, 0.0f}, 1.5f));
    return solver;
  }
}
