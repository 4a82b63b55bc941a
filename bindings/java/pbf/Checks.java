// Checks.java - argument checks for what the C library cannot see.
package pbf;

/** Checks made in Java: nulls where the binding needs a value, negative counts, array shapes. */
final class Checks {
  private Checks() {}

  static <T> T nonNull(T value, String name) {
    if (value == null) throw new NullPointerException(name + " must not be null");
    return value;
  }

  /** An unsigned C count held in a Java int. */
  static int count(int value, String name) {
    if (value < 0) throw new IllegalArgumentException(name + " must not be negative, got " + value);
    return value;
  }

  /** A vector of exactly 3 floats. */
  static float[] vec3(float[] value, String name) {
    nonNull(value, name);
    if (value.length != 3) throw new IllegalArgumentException(name + " must hold 3 floats, not " + value.length);
    return value;
  }

  /** An optional rotation (a quaternion x, y, z, w: 4 floats) and translation (3 floats). */
  static void pose(float[] rotation, float[] translation) {
    if (rotation != null && rotation.length != 4) {
      throw new IllegalArgumentException("rotation must hold 4 floats (x, y, z, w), not " + rotation.length);
    }
    if (translation != null) vec3(translation, "translation");
  }

  /** A direct FloatBuffer in the native byte order that a C function may read (and write when writable). */
  static java.nio.FloatBuffer direct(java.nio.FloatBuffer value, String name, boolean writable) {
    nonNull(value, name);
    if (!value.isDirect()) {
      throw new IllegalArgumentException(name + " must be a direct FloatBuffer "
          + "(ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder()).asFloatBuffer()); "
          + "use the float[] overload for heap memory");
    }
    if (value.order() != java.nio.ByteOrder.nativeOrder()) {
      throw new IllegalArgumentException(
          name + " must be in the native byte order (" + java.nio.ByteOrder.nativeOrder() + "), not " + value.order());
    }
    if (writable && value.isReadOnly()) throw new IllegalArgumentException(name + " is read-only");
    return value;
  }

  /** The number of vectors in a flat x, y, z array. */
  static int triples(float[] values, String name) {
    nonNull(values, name);
    if (values.length % 3 != 0) {
      throw new IllegalArgumentException(
          name + " must hold 3 floats per particle; " + values.length + " is no multiple of 3");
    }
    return values.length / 3;
  }
}
