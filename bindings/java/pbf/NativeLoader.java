// NativeLoader.java - loads the JNI glue of the Java binding.
package pbf;

/**
 * Loads libpbf_java (pbf_java.dll, libpbf_java.dylib), the JNI glue that SWIG
 * generated, which in turn loads libpbf. The glue is found on
 * {@code java.library.path}; the system property {@code pbf.native.library}
 * names the file directly instead.
 */
final class NativeLoader {
  private NativeLoader() {}

  /** Loads the glue once; PbfNativeJNI's static initialiser calls it. */
  static void load() {
    String path = System.getProperty("pbf.native.library");
    try {
      if (path != null && !path.isEmpty()) {
        System.load(path);
      } else {
        System.loadLibrary("pbf_java");
      }
    } catch (UnsatisfiedLinkError e) {
      UnsatisfiedLinkError hint = new UnsatisfiedLinkError(
          "pbf: cannot load the native library pbf_java (" + e.getMessage() + "); put the folder holding it "
          + "(and libpbf) on -Djava.library.path, or name the file with -Dpbf.native.library=<path>");
      hint.initCause(e);
      throw hint;
    }
  }
}
