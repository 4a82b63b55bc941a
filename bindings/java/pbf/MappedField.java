// MappedField.java - a field of a solver lent without a copy (pbf_solver_map).
package pbf;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * A read-only view of one particle field in memory the solver owns, from {@link Solver#map} until
 * {@link #close()} (pbf_solver_map, pbf_solver_unmap). Host memory is read through {@link
 * #buffer()} (a direct, read-only {@link FloatBuffer} over the lent memory, no copy), {@link
 * #get(int)} or {@link #copyTo(float[])}; device memory (CUDA backend) only through {@link
 * #address()}.
 *
 * <p>While any field is mapped, calls that change particles (step, startStep, setPositions,
 * addParticles, fillBox, removeParticles, clearParticles, loadCheckpoint, ...) throw {@link
 * PbfException} with {@link Status#BUSY}; reads, parameters and planes still work. Every method but
 * {@link #close()} throws {@link IllegalStateException} once the view or its solver is closed. The
 * lent memory outlives both until this view is closed (or unreachable): closing the solver first
 * defers the native destroy, so that a buffer taken earlier never points at freed memory. What the
 * binding cannot stop: a buffer kept after {@link #close()} reads memory that the solver may since
 * have rewritten or freed (a direct buffer cannot be revoked; reading freed memory may crash the
 * JVM). Take buffers inside a try-with-resources block and do not keep them.
 *
 * <pre>{@code
 * try (MappedField x = solver.map(Field.POSITIONS)) {
 *   FloatBuffer xyz = x.buffer();   // 3 floats per particle, no copy
 *   float height = xyz.get(1);
 * }
 * solver.step(1 / 60f, 2);
 * }</pre>
 */
public final class MappedField implements AutoCloseable {
  private final Solver owner;  // kept reachable: a solver is not cleaned under its view
  private final NativeHandle handle;
  private final Field field;
  private final Memory memory;
  private final long address;
  private final int count;
  private final int length;
  private final FloatBuffer floats;  // null in device memory
  private final Cleaner.Cleanable unpin;
  private boolean closed;

  MappedField(Solver owner, NativeHandle handle, Field field, Memory memory, long address, int count) {
    this.owner = owner;
    this.handle = handle;
    this.field = field;
    this.memory = memory;
    this.address = address;
    this.count = count;
    this.length = (field == Field.DENSITIES ? 1 : 3) * count;
    if (memory != Memory.HOST) {
      floats = null;
    } else {
      ByteBuffer bytes = length == 0 || address == 0 ? ByteBuffer.allocateDirect(0)
                                                      : PbfNative.pbf_java_wrap_memory(address, 4L * length);
      if (bytes == null) throw new IllegalStateException("this JVM cannot wrap native memory in a direct buffer");
      floats = bytes.order(ByteOrder.nativeOrder()).asFloatBuffer().asReadOnlyBuffer();
    }
    // Once the view and its solver are both unreachable the pin goes; the action holds the handle only.
    unpin = NativeHandle.CLEANER.register(this, handle::unpin);
  }

  /** @return the field lent */
  public Field getField() {
    return field;
  }

  /** @return where it lies: {@link Memory#HOST} or {@link Memory#DEVICE} */
  public Memory getMemory() {
    return memory;
  }

  /** @return the number of particles it covers */
  public int getCount() {
    return count;
  }

  /** @return its length in floats: 3 x count, or count for densities */
  public int getLength() {
    return length;
  }

  /** @return false once this view or its solver is closed */
  public boolean isMapped() {
    return !closed && !owner.isClosed();
  }

  /**
   * @return the address of the first float, host or device memory as {@link #getMemory()} says; 0
   *     may come with no particles
   * @throws IllegalStateException once the view or its solver is closed
   */
  public long address() {
    live();
    return address;
  }

  /**
   * @return a new read-only direct buffer over the lent host memory, position 0, limit {@link
   *     #getLength()}, in the native byte order; valid until {@link #close()}
   * @throws IllegalStateException for device memory, or once the view or its solver is closed
   */
  public FloatBuffer buffer() {
    return host().duplicate();
  }

  /**
   * @param index a float of the field, in [0, length)
   * @return that float, read from the lent host memory
   * @throws IndexOutOfBoundsException for an index outside [0, length)
   * @throws IllegalStateException for device memory, or once the view or its solver is closed
   */
  public float get(int index) {
    FloatBuffer f = host();
    if (index < 0 || index >= length) {
      throw new IndexOutOfBoundsException("index must be in [0, " + length + "), got " + index);
    }
    return f.get(index);
  }

  /**
   * Copies the field into {@code destination}.
   *
   * @param destination at least {@link #getLength()} floats
   * @throws IllegalArgumentException when destination is shorter
   * @throws IllegalStateException for device memory, or once the view or its solver is closed
   */
  public void copyTo(float[] destination) {
    Checks.nonNull(destination, "destination");
    FloatBuffer f = host();
    if (destination.length < length) {
      throw new IllegalArgumentException("destination holds " + destination.length + " floats; the field has " + length);
    }
    f.duplicate().get(destination, 0, length);
  }

  /**
   * Ends the loan (pbf_solver_unmap). Calling it again does nothing. After the solver was closed it
   * destroys the solver's native memory, which the view had kept alive.
   */
  @Override
  public void close() {
    if (closed) return;
    closed = true;
    owner.unmapped(this);
    try {
      // A closed solver ends its loans when it is destroyed, which the unpin below allows.
      if (!owner.isClosed()) PbfException.check(PbfNative.pbf_solver_unmap(handle.live(), field));
    } finally {
      unpin.clean();
    }
  }

  private void live() {
    if (closed) throw new IllegalStateException("the " + name() + " are unmapped");
    if (owner.isClosed()) throw new IllegalStateException("the solver of the mapped " + name() + " is closed");
  }

  private FloatBuffer host() {
    live();
    if (floats == null) throw new IllegalStateException("the " + name() + " lie in device memory; only address() reaches them");
    return floats;
  }

  private String name() {
    return field.name().toLowerCase(java.util.Locale.ROOT);
  }
}
