// PbfException.java - a failed call into the pbf library.
package pbf;

/**
 * Thrown when a pbf call returns a status other than {@link Status#OK}.
 * {@link #getMessage()} is the library's own message (pbf_last_error), naming
 * the function and the argument at fault, for example
 * {@code "pbf_solver_step: substeps must be in [1, 1000], got 0"}. The object
 * the call was made on is unchanged and stays usable.
 */
public class PbfException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Status status;

  /**
   * An exception for {@code status} with the library's message.
   *
   * @param status the status the library returned
   * @param message the library's message
   */
  public PbfException(Status status, String message) {
    super(message);
    this.status = status;
  }

  /** @return the status the library returned */
  public Status getStatus() {
    return status;
  }

  /** @return the status name, then the message */
  @Override
  public String toString() {
    return Library.statusName(status) + ": " + getMessage();
  }

  /** Throws for any status but OK, with the calling thread's last error message. */
  static void check(Status status) {
    if (status != Status.OK) throw new PbfException(status, PbfNative.pbf_last_error());
  }
}
