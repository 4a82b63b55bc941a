// PbfException.cs - a failed call into the pbf library.
using System;

namespace Pbf {

/// <summary>
/// Thrown when a pbf call returns a status other than <see cref="Status.Ok"/>.
/// <see cref="Exception.Message"/> is the library's own message
/// (pbf_last_error), naming the function and the argument at fault, for example
/// "pbf_solver_step: substeps must be in [1, 1000], got 0". The object the call
/// was made on is unchanged and stays usable.
/// </summary>
[Serializable]
public class PbfException : Exception {
  /// <summary>The status the library returned.</summary>
  public Status Status { get; private set; }

  /// <summary>An exception for <paramref name="status"/> with the library's message.</summary>
  public PbfException(Status status, string message) : base(message) {
    Status = status;
  }

  /// <summary>The status name, then the message: "PBF_ERROR_INVALID_ARGUMENT: pbf_solver_step: ...".</summary>
  public override string ToString() {
    return Library.StatusName(Status) + ": " + base.ToString();
  }

  /// <summary>Throws for any status but Ok, with the calling thread's last error message.</summary>
  internal static void Check(Status status) {
    if (status != Status.Ok) throw new PbfException(status, PbfNative.pbf_last_error());
  }
}

}  // namespace Pbf
