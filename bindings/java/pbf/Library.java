// Library.java - what the native library says about itself.
package pbf;

/** Version and backend queries on the loaded native library. */
public final class Library {
  private Library() {}

  /** @return the version of the native library loaded at run time, MAJOR * 10000 + MINOR * 100 + PATCH */
  public static int version() {
    return (int) PbfNative.pbf_version();
  }

  /** @return the run-time version as "MAJOR.MINOR.PATCH" */
  public static String versionString() {
    return PbfNative.pbf_version_string();
  }

  /** @return the version of the header the bindings were built from, encoded as {@link #version()} */
  public static int bindingVersion() {
    return (int) PbfNative.pbf_binding_version();
  }

  /**
   * Whether {@code backend} can run on this machine. {@link Backend#AUTO} and
   * {@link Backend#CPU} always can; {@link Backend#CUDA} needs a build with CUDA and a device.
   *
   * @param backend the backend to ask about
   * @return true when a solver can be created on it
   */
  public static boolean isAvailable(Backend backend) {
    if (backend == null) throw new NullPointerException("backend");
    int[] available = new int[1];
    PbfException.check(PbfNative.pbf_backend_available(backend, available));
    return available[0] != 0;
  }

  /**
   * @param backend a backend
   * @return "auto", "cpu" or "cuda"
   */
  public static String backendName(Backend backend) {
    if (backend == null) throw new NullPointerException("backend");
    return PbfNative.pbf_backend_name(backend);
  }

  /**
   * @param status a status
   * @return its C name: "PBF_OK", "PBF_ERROR_INVALID_ARGUMENT", ...
   */
  public static String statusName(Status status) {
    if (status == null) throw new NullPointerException("status");
    return PbfNative.pbf_status_string(status);
  }
}
