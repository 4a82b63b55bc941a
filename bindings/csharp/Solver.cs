// Solver.cs - one fluid simulation, the idiomatic face of pbf_solver.
using System;

namespace Pbf {

/// <summary>
/// A Position Based Fluids solver: its particles, collision planes, parameters
/// and the statistics of its last step. Dispose it (a <c>using</c> block) to free
/// its native memory at once; a solver that is never disposed is freed by the
/// garbage collector. A solver may be used from any thread, but by one thread
/// at a time; any number of solvers may exist at once.
/// </summary>
/// <remarks>
/// Particles keep the order in which they were added. Vectors travel as flat
/// float arrays, x, y, z per particle, copied in one native call per array.
/// Every failed call throws <see cref="PbfException"/> with the library's message
/// and status and leaves the solver as it was; calls on a disposed solver throw
/// <see cref="ObjectDisposedException"/>.
/// </remarks>
/// <example>
/// <code>
/// using (var solver = new Solver(new SolverDesc { ParticleSpacing = 0.05f })) {
///   solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.5f, 0.5f, 0.5f });
///   for (int frame = 0; frame &lt; 60; ++frame) solver.Step(1f / 60f, 2);
///   float[] xyz = solver.GetPositions();
/// }
/// </code>
/// </example>
public sealed class Solver : IDisposable {
  private readonly SolverHandle handle;

  /// <summary>Creates a solver with the default description (see <see cref="SolverDesc"/>).</summary>
  public Solver() : this(new SolverDesc()) {}

  /// <summary>Creates a solver from <paramref name="desc"/>, with default parameters and no particles.</summary>
  /// <exception cref="PbfException">InvalidArgument naming the field out of range; BackendUnavailable
  /// when the backend cannot run here; OutOfMemory.</exception>
  public Solver(SolverDesc desc) {
    if (desc == null) throw new ArgumentNullException("desc");
    NativeSolverDesc native = desc.ToNative();
    SolverHandle created;
    Status status = PbfNative.pbf_solver_create(ref native, out created);
    if (status != Status.Ok) {
      string message = PbfNative.pbf_last_error();
      if (created != null) created.Dispose();  // holds NULL; nothing to destroy
      throw new PbfException(status, message);
    }
    handle = created;
  }

  /// <summary>True once <see cref="Dispose"/> has run.</summary>
  public bool IsDisposed { get { return handle.IsClosed; } }

  /// <summary>Destroys the native solver. Calling it again does nothing.</summary>
  public void Dispose() { handle.Dispose(); }

  /// <summary>
  /// The description with every automatic value resolved: the backend chosen for
  /// Auto, the kernel radius, the thread count and the neighbour capacity.
  /// </summary>
  public SolverDesc GetDesc() {
    NativeSolverDesc d = NativeSolverDesc.Sized();
    PbfException.Check(PbfNative.pbf_solver_get_desc(Live(), ref d));
    return SolverDesc.FromNative(d);
  }

  /// <summary>The mass of one particle [kg], from spacing, kernel radius and rest density.</summary>
  public float ParticleMass {
    get {
      float mass;
      PbfException.Check(PbfNative.pbf_solver_get_particle_mass(Live(), out mass));
      return mass;
    }
  }

  /// <summary>A copy of the current parameters.</summary>
  public SolverParams GetParams() {
    NativeParams p = NativeParams.Sized();
    PbfException.Check(PbfNative.pbf_solver_get_params(Live(), ref p));
    return SolverParams.FromNative(p);
  }

  /// <summary>Replaces all parameters from the next step; an invalid field changes nothing.</summary>
  /// <exception cref="PbfException">InvalidArgument naming the field.</exception>
  public void SetParams(SolverParams parameters) {
    if (parameters == null) throw new ArgumentNullException("parameters");
    NativeParams p = parameters.ToNative();
    PbfException.Check(PbfNative.pbf_solver_set_params(Live(), ref p));
  }

  /// <summary>The number of particles now in the solver.</summary>
  public int ParticleCount {
    get {
      UIntPtr count;
      PbfException.Check(PbfNative.pbf_solver_particle_count(Live(), out count));
      return checked((int)count.ToUInt64());
    }
  }

  /// <summary>
  /// Appends particles: <paramref name="positions"/> holds x, y, z per particle,
  /// each inside the domain; <paramref name="velocities"/> [m/s] is as long, or
  /// null for particles at rest. Either every particle is added or none.
  /// </summary>
  /// <exception cref="PbfException">CapacityExceeded; InvalidArgument for NaN/Inf or a position outside the domain.</exception>
  public void AddParticles(float[] positions, float[] velocities = null) {
    int count = Triples(positions, "positions");
    if (velocities != null && velocities.Length != positions.Length)
      throw new ArgumentException("velocities must be as long as positions (" + positions.Length + " floats), not " +
                                  velocities.Length, "velocities");
    PbfException.Check(PbfNative.pbf_solver_add_particles(Live(), positions, velocities, (UIntPtr)(uint)count));
  }

  /// <summary>
  /// Fills the box [<paramref name="lo"/>, <paramref name="hi"/>] (3 floats each) with
  /// particles on a cubic lattice at the rest spacing, all moving with
  /// <paramref name="velocity"/> (null = at rest); points outside the domain are skipped.
  /// </summary>
  /// <returns>The number of particles added.</returns>
  public int FillBox(float[] lo, float[] hi, float[] velocity = null) {
    SolverDesc.Vec3(lo, "lo");
    SolverDesc.Vec3(hi, "hi");
    if (velocity != null) SolverDesc.Vec3(velocity, "velocity");
    UIntPtr added;
    PbfException.Check(PbfNative.pbf_solver_fill_box(Live(), lo, hi, velocity, out added));
    return checked((int)added.ToUInt64());
  }

  /// <summary>Removes the particles at the given indices (any order, no duplicates); the rest close up in order.</summary>
  public void RemoveParticles(uint[] indices) {
    if (indices == null) throw new ArgumentNullException("indices");
    PbfException.Check(PbfNative.pbf_solver_remove_particles(Live(), indices, (UIntPtr)(uint)indices.Length));
  }

  /// <summary>Removes every particle; planes and parameters stay.</summary>
  public void ClearParticles() { PbfException.Check(PbfNative.pbf_solver_clear_particles(Live())); }

  /// <summary>Every particle's position [m], x, y, z per particle, in a new array.</summary>
  public float[] GetPositions() {
    var result = new float[3 * ParticleCount];
    GetPositions(result);
    return result;
  }

  /// <summary>Copies every position into <paramref name="destination"/>, which must hold at least 3 x count floats.
  /// Reusing one array avoids an allocation per frame.</summary>
  /// <exception cref="PbfException">BufferTooSmall.</exception>
  public void GetPositions(float[] destination) {
    if (destination == null) throw new ArgumentNullException("destination");
    PbfException.Check(PbfNative.pbf_solver_get_positions(Live(), destination, (UIntPtr)(uint)destination.Length));
  }

  /// <summary>Every particle's velocity [m/s], x, y, z per particle, in a new array.</summary>
  public float[] GetVelocities() {
    var result = new float[3 * ParticleCount];
    GetVelocities(result);
    return result;
  }

  /// <summary>Copies every velocity into <paramref name="destination"/> (at least 3 x count floats).</summary>
  /// <exception cref="PbfException">BufferTooSmall.</exception>
  public void GetVelocities(float[] destination) {
    if (destination == null) throw new ArgumentNullException("destination");
    PbfException.Check(PbfNative.pbf_solver_get_velocities(Live(), destination, (UIntPtr)(uint)destination.Length));
  }

  /// <summary>Every particle's density [kg/m^3] at the end of the last step (0 before it), one float each.</summary>
  public float[] GetDensities() {
    var result = new float[ParticleCount];
    GetDensities(result);
    return result;
  }

  /// <summary>Copies every density into <paramref name="destination"/> (at least count floats).</summary>
  /// <exception cref="PbfException">BufferTooSmall.</exception>
  public void GetDensities(float[] destination) {
    if (destination == null) throw new ArgumentNullException("destination");
    PbfException.Check(PbfNative.pbf_solver_get_densities(Live(), destination, (UIntPtr)(uint)destination.Length));
  }

  /// <summary>Overwrites every position; the array must hold exactly 3 x count floats, all inside the domain.</summary>
  /// <exception cref="PbfException">BufferTooSmall when shorter, InvalidArgument when longer or a value is bad.</exception>
  public void SetPositions(float[] positions) {
    if (positions == null) throw new ArgumentNullException("positions");
    PbfException.Check(PbfNative.pbf_solver_set_positions(Live(), positions, (UIntPtr)(uint)positions.Length));
  }

  /// <summary>Overwrites every velocity [m/s]; the array must hold exactly 3 x count floats.</summary>
  public void SetVelocities(float[] velocities) {
    if (velocities == null) throw new ArgumentNullException("velocities");
    PbfException.Check(PbfNative.pbf_solver_set_velocities(Live(), velocities, (UIntPtr)(uint)velocities.Length));
  }

  /// <summary>
  /// Adds the static plane {x : dot(normal, x) + offset = 0}; the fluid stays on the
  /// side the normal points to. At most 64 planes.
  /// </summary>
  /// <returns>The plane's index: 0, 1, ... in the order added.</returns>
  /// <exception cref="PbfException">InvalidArgument for a zero or non-finite normal; CapacityExceeded.</exception>
  public int AddPlane(float[] normal, float offset) {
    SolverDesc.Vec3(normal, "normal");
    uint index;
    PbfException.Check(PbfNative.pbf_solver_add_plane(Live(), normal, offset, out index));
    return (int)index;
  }

  /// <summary>Removes every plane added with <see cref="AddPlane"/>; the domain box stays.</summary>
  public void ClearPlanes() { PbfException.Check(PbfNative.pbf_solver_clear_planes(Live())); }

  /// <summary>
  /// Advances the simulation by <paramref name="dt"/> seconds (0 &lt; dt &lt;= 10) in
  /// <paramref name="substeps"/> equal substeps (1 .. 1000).
  /// </summary>
  /// <exception cref="PbfException">InvalidArgument.</exception>
  public void Step(float dt, uint substeps = 1) {
    PbfException.Check(PbfNative.pbf_solver_step(Live(), dt, substeps));
  }

  /// <summary>
  /// Starts the step <see cref="Step"/> would run and returns at once; it runs on a thread the
  /// solver starts (and on its worker threads or GPU). Until <see cref="WaitStep"/> returns, every
  /// other call on this solver throws <see cref="PbfException"/> with <see cref="Status.Busy"/>,
  /// except <see cref="IsStepDone"/>, <see cref="WaitStep"/> and <see cref="Dispose"/> (which waits).
  /// A game engine simulates the next frame this way while it renders the last one.
  /// </summary>
  /// <exception cref="PbfException">InvalidArgument, checked here as by Step; Busy when a step is running.</exception>
  public void StartStep(float dt, uint substeps = 1) {
    PbfException.Check(PbfNative.pbf_solver_step_async(Live(), dt, substeps));
  }

  /// <summary>Waits for the step started by <see cref="StartStep"/>; returns at once when none was started.</summary>
  /// <exception cref="PbfException">The status and message of a step that failed.</exception>
  public void WaitStep() { PbfException.Check(PbfNative.pbf_solver_wait(Live())); }

  /// <summary>False while a step started by <see cref="StartStep"/> runs; never blocks.</summary>
  public bool IsStepDone {
    get {
      int done;
      PbfException.Check(PbfNative.pbf_solver_poll(Live(), out done));
      return done != 0;
    }
  }

  /// <summary>Statistics of the last step.</summary>
  public SolverStats GetStats() {
    NativeStats s = NativeStats.Sized();
    PbfException.Check(PbfNative.pbf_solver_get_stats(Live(), ref s));
    return SolverStats.FromNative(s);
  }

  /// <summary>
  /// Writes the particles as a binary PLY file (x y z vx vy vz density per vertex)
  /// that Blender, Houdini, MeshLab and ParaView open; complete or not at all.
  /// </summary>
  /// <exception cref="PbfException">Io with the path and the system's reason.</exception>
  public void WritePly(string path) {
    if (path == null) throw new ArgumentNullException("path");
    PbfException.Check(PbfNative.pbf_solver_write_ply(Live(), path));
  }

  /// <summary>
  /// Saves the complete state (description, parameters, planes, statistics, particles) to
  /// <paramref name="path"/>; the file appears complete or not at all.
  /// </summary>
  /// <exception cref="PbfException">Io with the path and the reason.</exception>
  public void SaveCheckpoint(string path) {
    if (path == null) throw new ArgumentNullException("path");
    PbfException.Check(PbfNative.pbf_solver_save_checkpoint(Live(), path));
  }

  /// <summary>
  /// Replaces the state by the checkpoint at <paramref name="path"/>; stepping on continues
  /// exactly as the saved run would have (bit for bit on the CPU). On failure nothing changes.
  /// </summary>
  /// <exception cref="PbfException">Io for a missing, foreign or damaged file; InvalidArgument when
  /// the solver's description differs from the checkpoint's; CapacityExceeded.</exception>
  public void LoadCheckpoint(string path) {
    if (path == null) throw new ArgumentNullException("path");
    PbfException.Check(PbfNative.pbf_solver_load_checkpoint(Live(), path));
  }

  /// <summary>The handle, or ObjectDisposedException once disposed.</summary>
  private SolverHandle Live() {
    if (handle.IsClosed) throw new ObjectDisposedException("Solver", "the solver has been disposed");
    return handle;
  }

  /// <summary>The number of vectors in a flat x, y, z array.</summary>
  private static int Triples(float[] values, string name) {
    if (values == null) throw new ArgumentNullException(name);
    if (values.Length % 3 != 0)
      throw new ArgumentException(name + " must hold 3 floats per particle; " + values.Length + " is no multiple of 3",
                                  name);
    return values.Length / 3;
  }
}

}  // namespace Pbf
