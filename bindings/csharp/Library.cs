// Library.cs - what the native library says about itself.
namespace Pbf {

/// <summary>Version and backend queries on the loaded native library (libpbf, pbf.dll).</summary>
public static class Library {
  /// <summary>The version these bindings were generated from, MAJOR * 10000 + MINOR * 100 + PATCH.</summary>
  public const uint BindingVersion = (uint)PbfNative.PBF_VERSION;

  /// <summary>The version of the native library loaded at run time, encoded as <see cref="BindingVersion"/>.</summary>
  public static uint Version { get { return PbfNative.pbf_version(); } }

  /// <summary>The run-time version as "MAJOR.MINOR.PATCH".</summary>
  public static string VersionString { get { return PbfNative.pbf_version_string(); } }

  /// <summary>
  /// Whether <paramref name="backend"/> can run on this machine. <see cref="Backend.Auto"/>
  /// and <see cref="Backend.Cpu"/> always can; <see cref="Backend.Cuda"/> needs a build
  /// with CUDA and a device.
  /// </summary>
  /// <exception cref="PbfException">InvalidArgument for a value outside <see cref="Backend"/>.</exception>
  public static bool IsAvailable(Backend backend) {
    int available;
    PbfException.Check(PbfNative.pbf_backend_available(backend, out available));
    return available != 0;
  }

  /// <summary>"auto", "cpu" or "cuda"; "unknown" for any other value.</summary>
  public static string BackendName(Backend backend) { return PbfNative.pbf_backend_name(backend); }

  /// <summary>The C name of a status ("PBF_OK", "PBF_ERROR_INVALID_ARGUMENT", ...).</summary>
  public static string StatusName(Status status) { return PbfNative.pbf_status_string(status); }
}

}  // namespace Pbf
