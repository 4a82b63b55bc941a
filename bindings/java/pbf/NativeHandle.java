package pbf;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * One native pointer of a binding object ({@link Solver}, {@link SignedDistanceField}), destroyed
 * once: by the owner's {@code close()}, or by the cleaner once the owner is unreachable. The
 * cleaner's action holds only this handle, never the owner. While it is pinned (by a {@link
 * MappedField}, whose buffer points into the solver's memory) closing it refuses further calls at
 * once but destroys the pointer only when the last pin is released.
 */
final class NativeHandle implements Runnable {
  static final Cleaner CLEANER = Cleaner.create();

  private volatile long pointer;
  private long deferred;  // closed while pinned: destroyed by the last unpin()
  private int pins;
  private final LongConsumer destroy;
  private final String closedMessage;
  private final Cleaner.Cleanable cleanable;

  /**
   * @param owner the object whose unreachability frees the pointer
   * @param pointer the native pointer it owns from now on
   * @param destroy the C function that destroys it
   * @param closedMessage what {@link #live()} says once it is destroyed
   */
  NativeHandle(Object owner, long pointer, LongConsumer destroy, String closedMessage) {
    this.pointer = pointer;
    this.destroy = destroy;
    this.closedMessage = closedMessage;
    this.cleanable = CLEANER.register(owner, this);
  }

  /** The cleaner's action: destroys the pointer once. */
  @Override
  public synchronized void run() {
    if (pointer != 0) {
      long p = pointer;
      pointer = 0;
      if (pins == 0) {
        destroy.accept(p);
      } else {
        deferred = p;
      }
    }
  }

  /** The live pointer, kept from destruction until {@link #unpin()}. */
  synchronized long pin() {
    long p = live();
    ++pins;
    return p;
  }

  /** Releases one {@link #pin()}; destroys the pointer if it was closed meanwhile and this was the last. */
  synchronized void unpin() {
    if (pins > 0 && --pins == 0 && deferred != 0) {
      destroy.accept(deferred);
      deferred = 0;
    }
  }

  /** Destroys the pointer now; calling it again does nothing. */
  void close() {
    cleanable.clean();
  }

  boolean isClosed() {
    return pointer == 0;
  }

  /** The native pointer, or IllegalStateException once destroyed; callers fence the owner. */
  long live() {
    long p = pointer;
    if (p == 0) throw new IllegalStateException(closedMessage);
    return p;
  }
}
