// MappedField.cs - a field of a solver lent without a copy (pbf_solver_map).
using System;
using System.Runtime.InteropServices;

namespace Pbf {

/// <summary>
/// A read-only view of one particle field in memory the solver owns, from
/// <see cref="Solver.Map"/> until <see cref="Dispose"/> (pbf_solver_map, pbf_solver_unmap).
/// Host memory is read through <see cref="AsSpan"/>, the indexer, <see cref="CopyTo(float[])"/>
/// or the raw <see cref="Pointer"/> (a Unity <c>NativeArray</c> view, a GPU upload); device
/// memory (CUDA backend) only through <see cref="Pointer"/>, by CUDA or graphics interop.
/// </summary>
/// <remarks>
/// While any field is mapped, calls that change particles (Step, StartStep, SetPositions, AddParticles,
/// FillBox, RemoveParticles, ClearParticles, LoadCheckpoint, ...) throw <see cref="PbfException"/>
/// with <see cref="Status.Busy"/>; reads, parameters and planes still work. Map, read, dispose, then
/// step. Every member but <see cref="Dispose"/> throws <see cref="ObjectDisposedException"/> once the
/// view is disposed or its solver is. The lent memory itself outlives both until this view is
/// disposed (or collected): disposing the solver first defers the native destroy, so that a span or
/// pointer taken earlier never points at freed memory. What the binding cannot stop: a span or
/// pointer kept after <see cref="Dispose"/> reads memory the solver may since have rewritten or
/// freed; take them inside a <c>using</c> block and do not keep them.
/// </remarks>
/// <example>
/// <code>
/// using (MappedField x = solver.Map(Field.Positions)) {
///   ReadOnlySpan&lt;float&gt; xyz = x.AsSpan();   // 3 floats per particle, no copy
///   float height = xyz[1];
/// }
/// solver.Step(1f / 60f, 2);
/// </code>
/// </example>
public sealed class MappedField : IDisposable {
  private readonly Solver owner;  // kept reachable: a solver is not collected under its view
  private readonly SolverHandle handle;
  private readonly IntPtr data;
  private bool ended;

  internal MappedField(Solver owner, SolverHandle handle, Field field, Memory memory, IntPtr data, int count) {
    this.owner = owner;
    this.handle = handle;
    this.data = data;
    Field = field;
    Memory = memory;
    Count = count;
    Length = (field == Field.Densities ? 1 : 3) * count;
  }

  /// <summary>Unmaps once the view and its solver are both unreachable; never calls the library.</summary>
  ~MappedField() {
    if (!ended) {
      ended = true;
      handle.DangerousRelease();
    }
  }

  /// <summary>The field lent.</summary>
  public Field Field { get; private set; }

  /// <summary>Where it lies: <see cref="Memory.Host"/> or <see cref="Memory.Device"/>.</summary>
  public Memory Memory { get; private set; }

  /// <summary>The number of particles it covers.</summary>
  public int Count { get; private set; }

  /// <summary>Its length in floats: 3 x <see cref="Count"/>, or <see cref="Count"/> for densities.</summary>
  public int Length { get; private set; }

  /// <summary>False once this view or its solver is disposed.</summary>
  public bool IsMapped { get { return !ended && !owner.IsDisposed; } }

  /// <summary>
  /// The address of the first float (host or device memory, as <see cref="Memory"/> says);
  /// <see cref="IntPtr.Zero"/> may come with no particles.
  /// </summary>
  /// <exception cref="ObjectDisposedException">The view or its solver is disposed.</exception>
  public IntPtr Pointer { get { Live(); return data; } }

  /// <summary>Float <paramref name="index"/> of the field, read from host memory with a bounds check.</summary>
  /// <exception cref="ArgumentOutOfRangeException">index outside [0, Length).</exception>
  /// <exception cref="InvalidOperationException">The field lies in device memory.</exception>
  /// <exception cref="ObjectDisposedException">The view or its solver is disposed.</exception>
  public float this[int index] {
    get {
      Host();
      if (index < 0 || index >= Length)
        throw new ArgumentOutOfRangeException("index", index, "index must be in [0, " + Length + ")");
      unsafe { return ((float*)data)[index]; }
    }
  }

  /// <summary>
  /// The whole field as a span over the lent host memory, no copy. Valid until this view is
  /// disposed; a span is a stack-only type, so it cannot be stored in a field by mistake.
  /// </summary>
  /// <exception cref="InvalidOperationException">The field lies in device memory.</exception>
  /// <exception cref="ObjectDisposedException">The view or its solver is disposed.</exception>
  public ReadOnlySpan<float> AsSpan() {
    Host();
    if (Length == 0) return ReadOnlySpan<float>.Empty;
    unsafe { return new ReadOnlySpan<float>((void*)data, Length); }
  }

  /// <summary>Copies the field into <paramref name="destination"/>, which must hold at least <see cref="Length"/> floats.</summary>
  /// <exception cref="ArgumentException">destination is shorter than Length.</exception>
  /// <exception cref="InvalidOperationException">The field lies in device memory.</exception>
  public void CopyTo(float[] destination) {
    if (destination == null) throw new ArgumentNullException("destination");
    Host();
    if (destination.Length < Length)
      throw new ArgumentException("destination holds " + destination.Length + " floats; the field has " + Length,
                                  "destination");
    if (Length > 0) Marshal.Copy(data, destination, 0, Length);
  }

  /// <summary>
  /// Ends the loan (pbf_solver_unmap). Calling it again does nothing. After the solver was
  /// disposed it releases the solver's native memory, which the view had kept alive.
  /// </summary>
  public void Dispose() {
    if (ended) return;
    ended = true;
    GC.SuppressFinalize(this);
    owner.Unmapped(this);
    try {
      // A disposed solver ends its loans when it is destroyed, which the release below allows.
      if (!owner.IsDisposed) PbfException.Check(PbfNative.pbf_solver_unmap(handle, Field));
    } finally {
      handle.DangerousRelease();
    }
  }

  private void Live() {
    if (ended) throw new ObjectDisposedException("MappedField", "the " + Name() + " are unmapped");
    if (owner.IsDisposed)
      throw new ObjectDisposedException("MappedField", "the solver of the mapped " + Name() + " has been disposed");
  }

  private void Host() {
    Live();
    if (Memory != Memory.Host)
      throw new InvalidOperationException("the " + Name() + " lie in device memory; only Pointer reaches them");
  }

  private string Name() { return Field.ToString().ToLowerInvariant(); }
}

}  // namespace Pbf
