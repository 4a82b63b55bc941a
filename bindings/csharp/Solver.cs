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
  private readonly MappedField[] mapped = new MappedField[3];  // by Field; keeps live views reachable
  private bool disposed;  // the handle stays open while a view holds a reference to it

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
  public bool IsDisposed { get { return disposed || handle.IsClosed; } }

  /// <summary>
  /// Destroys the native solver. Calling it again does nothing. Under a <see cref="MappedField"/> not yet
  /// disposed, the solver refuses every call at once but its native memory lives until the view is disposed.
  /// </summary>
  public void Dispose() {
    disposed = true;
    handle.Dispose();
  }

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
  /// <paramref name="velocity"/> (null = at rest); points outside the domain, or closer than half a
  /// spacing to one of its walls (they would start compressed against it), are skipped.
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

  /// <summary>As <see cref="RemoveParticles(uint[])"/>, with int indices.</summary>
  /// <exception cref="ArgumentOutOfRangeException">An index is negative (nothing is removed).</exception>
  public void RemoveParticles(int[] indices) {
    RemoveParticles(Unsigned(indices, "indices"));
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

  /// <summary>Evaluates every particle's density at its current position, moving nothing, so that
  /// GetDensities() describes the state as it is (e.g. before the first step); pbf_solver_update_densities().</summary>
  public void UpdateDensities() {
    PbfException.Check(PbfNative.pbf_solver_update_densities(Live()));
  }

  /// <summary>Every particle's density [kg/m^3] at the end of the last step (0 before it, unless UpdateDensities() ran), one float each.</summary>
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

  /// <summary>
  /// Copies every position into native memory the caller owns: <paramref name="capacity"/> floats at
  /// <paramref name="destination"/>, at least 3 x count (a Unity <c>NativeArray</c>'s pointer and length,
  /// a mapped <c>GraphicsBuffer</c>). One copy, no managed array.
  /// </summary>
  /// <exception cref="ArgumentOutOfRangeException">capacity is negative.</exception>
  /// <exception cref="PbfException">BufferTooSmall naming capacity; NullPointer for a zero pointer when
  /// there are particles.</exception>
  public void GetPositions(IntPtr destination, int capacity) {
    PbfException.Check(NativeCopies.GetPositions(Live(), destination, Capacity(capacity, "capacity")));
  }

  /// <summary>Copies every position into <paramref name="destination"/> (at least 3 x count floats).</summary>
  /// <exception cref="PbfException">BufferTooSmall.</exception>
  public void GetPositions(Span<float> destination) {
    SolverHandle h = Live();
    float none = 0f;  // an empty span has no first float; the library then says how many it needed
    if (destination.Length == 0) PbfException.Check(NativeCopies.GetPositions(h, ref none, UIntPtr.Zero));
    else PbfException.Check(NativeCopies.GetPositions(h, ref destination[0], (UIntPtr)(uint)destination.Length));
  }

  /// <summary>Copies every velocity [m/s] into caller-owned native memory, as <see cref="GetPositions(IntPtr, int)"/>.</summary>
  /// <exception cref="ArgumentOutOfRangeException">capacity is negative.</exception>
  /// <exception cref="PbfException">BufferTooSmall naming capacity.</exception>
  public void GetVelocities(IntPtr destination, int capacity) {
    PbfException.Check(NativeCopies.GetVelocities(Live(), destination, Capacity(capacity, "capacity")));
  }

  /// <summary>Copies every velocity into <paramref name="destination"/> (at least 3 x count floats).</summary>
  /// <exception cref="PbfException">BufferTooSmall.</exception>
  public void GetVelocities(Span<float> destination) {
    SolverHandle h = Live();
    float none = 0f;  // an empty span has no first float; the library then says how many it needed
    if (destination.Length == 0) PbfException.Check(NativeCopies.GetVelocities(h, ref none, UIntPtr.Zero));
    else PbfException.Check(NativeCopies.GetVelocities(h, ref destination[0], (UIntPtr)(uint)destination.Length));
  }

  /// <summary>Copies every density into caller-owned native memory (at least count floats).</summary>
  /// <exception cref="ArgumentOutOfRangeException">capacity is negative.</exception>
  /// <exception cref="PbfException">BufferTooSmall naming capacity.</exception>
  public void GetDensities(IntPtr destination, int capacity) {
    PbfException.Check(NativeCopies.GetDensities(Live(), destination, Capacity(capacity, "capacity")));
  }

  /// <summary>Copies every density into <paramref name="destination"/> (at least count floats).</summary>
  /// <exception cref="PbfException">BufferTooSmall.</exception>
  public void GetDensities(Span<float> destination) {
    SolverHandle h = Live();
    float none = 0f;  // an empty span has no first float; the library then says how many it needed
    if (destination.Length == 0) PbfException.Check(NativeCopies.GetDensities(h, ref none, UIntPtr.Zero));
    else PbfException.Check(NativeCopies.GetDensities(h, ref destination[0], (UIntPtr)(uint)destination.Length));
  }

  /// <summary>
  /// Lends one field without a copy until the returned view is disposed (pbf_solver_map): host memory
  /// that a span, the indexer or a GPU upload reads in place, or (CUDA backend, <see cref="Memory.Device"/>)
  /// a device pointer. While it is mapped, calls that change particles throw <see cref="PbfException"/>
  /// with <see cref="Status.Busy"/>. See <see cref="MappedField"/> for the lifetime rules.
  /// </summary>
  /// <exception cref="PbfException">InvalidArgument when the field is already mapped or for device memory
  /// on a CPU solver; Busy during an asynchronous step.</exception>
  public MappedField Map(Field field, Memory memory = Memory.Host) {
    SolverHandle h = Live();
    bool added = false;
    // The view holds a reference on the handle: a disposed solver is destroyed only once its views are.
    h.DangerousAddRef(ref added);
    try {
      IntPtr data;
      UIntPtr count;
      PbfException.Check(PbfNative.pbf_solver_map(h, field, memory, out data, out count));
      var view = new MappedField(this, h, field, memory, data, checked((int)count.ToUInt64()));
      mapped[(int)field] = view;
      added = false;  // the view releases it
      return view;
    } finally {
      if (added) h.DangerousRelease();
    }
  }

  /// <summary>Called by a view that ends its loan.</summary>
  internal void Unmapped(MappedField view) {
    int f = (int)view.Field;
    if (f >= 0 && f < mapped.Length && ReferenceEquals(mapped[f], view)) mapped[f] = null;
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

  /// <summary>Overwrites every position from caller-owned native memory: exactly 3 x count floats at
  /// <paramref name="source"/>.</summary>
  /// <exception cref="ArgumentOutOfRangeException">length is negative.</exception>
  /// <exception cref="PbfException">BufferTooSmall or InvalidArgument naming length; InvalidArgument for a bad value.</exception>
  public void SetPositions(IntPtr source, int length) {
    PbfException.Check(NativeCopies.SetPositions(Live(), source, Capacity(length, "length")));
  }

  /// <summary>Overwrites every position from <paramref name="source"/> (exactly 3 x count floats).</summary>
  public void SetPositions(ReadOnlySpan<float> source) {
    SolverHandle h = Live();
    float none = 0f;
    if (source.Length == 0) PbfException.Check(NativeCopies.SetPositions(h, ref none, UIntPtr.Zero));
    else PbfException.Check(NativeCopies.SetPositions(h, ref System.Runtime.InteropServices.MemoryMarshal.GetReference(source),
                                                      (UIntPtr)(uint)source.Length));
  }

  /// <summary>Overwrites every velocity [m/s] from caller-owned native memory (exactly 3 x count floats).</summary>
  /// <exception cref="ArgumentOutOfRangeException">length is negative.</exception>
  public void SetVelocities(IntPtr source, int length) {
    PbfException.Check(NativeCopies.SetVelocities(Live(), source, Capacity(length, "length")));
  }

  /// <summary>Overwrites every velocity [m/s] from <paramref name="source"/> (exactly 3 x count floats).</summary>
  public void SetVelocities(ReadOnlySpan<float> source) {
    SolverHandle h = Live();
    float none = 0f;
    if (source.Length == 0) PbfException.Check(NativeCopies.SetVelocities(h, ref none, UIntPtr.Zero));
    else PbfException.Check(NativeCopies.SetVelocities(h, ref System.Runtime.InteropServices.MemoryMarshal.GetReference(source),
                                                       (UIntPtr)(uint)source.Length));
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
  /// Adds the solid of <paramref name="sdf"/> as an obstacle: a rigid body that particles stay one
  /// radius outside of, slide along with the parameters' friction and are carried by when it moves.
  /// The solver copies the field; <paramref name="sdf"/> may be disposed at once. At most 64 obstacles.
  /// </summary>
  /// <param name="sdf">The solid, in its own frame.</param>
  /// <param name="rotation">Its rotation as a quaternion x, y, z, w (4 floats, normalised), or null for none.</param>
  /// <param name="translation">Its position [m] (3 floats), or null for the origin.</param>
  /// <returns>The obstacle's index: 0, 1, ... in the order added.</returns>
  /// <exception cref="PbfException">InvalidArgument naming the argument; CapacityExceeded for the 65th.</exception>
  public int AddObstacle(SignedDistanceField sdf, float[] rotation = null, float[] translation = null) {
    if (sdf == null) throw new ArgumentNullException("sdf");
    Pose(rotation, translation);
    uint index;
    PbfException.Check(PbfNative.pbf_solver_add_obstacle(Live(), sdf.Live(), rotation, translation, out index));
    return (int)index;
  }

  /// <summary>
  /// Adds an obstacle from samples of its signed distance field [m] (negative inside), x varying
  /// fastest: sample (i, j, k) at index i + dims[0] * (j + dims[1] * k), lying at
  /// origin + (i, j, k) x cell in the obstacle's frame. The grid must enclose the solid with a margin
  /// of a few cells. The solver copies the samples.
  /// </summary>
  /// <param name="values">dims[0] x dims[1] x dims[2] finite distances [m].</param>
  /// <param name="dims">Samples along x, y, z, each 2 .. 4096.</param>
  /// <param name="origin">Position [m] of sample (0, 0, 0), 3 floats.</param>
  /// <param name="cell">Sample spacing [m], &gt; 0.</param>
  /// <param name="rotation">Quaternion x, y, z, w (4 floats), or null for none.</param>
  /// <param name="translation">Position [m] (3 floats), or null for the origin.</param>
  /// <returns>The obstacle's index.</returns>
  /// <exception cref="PbfException">InvalidArgument naming the argument; CapacityExceeded for the 65th.</exception>
  public int AddObstacleSdf(float[] values, uint[] dims, float[] origin, float cell, float[] rotation = null,
                            float[] translation = null) {
    if (values == null) throw new ArgumentNullException("values");
    if (dims == null) throw new ArgumentNullException("dims");
    if (dims.Length != 3) throw new ArgumentException("dims must hold 3 values, not " + dims.Length, "dims");
    SolverDesc.Vec3(origin, "origin");
    Pose(rotation, translation);
    uint index;
    PbfException.Check(PbfNative.pbf_solver_add_obstacle_sdf(Live(), values, (UIntPtr)(uint)values.Length, dims,
                                                             origin, cell, rotation, translation, out index));
    return (int)index;
  }

  /// <summary>As <see cref="AddObstacleSdf(float[], uint[], float[], float, float[], float[])"/>, with int dims.</summary>
  /// <exception cref="ArgumentOutOfRangeException">A dimension is negative.</exception>
  public int AddObstacleSdf(float[] values, int[] dims, float[] origin, float cell, float[] rotation = null,
                            float[] translation = null) {
    return AddObstacleSdf(values, Unsigned(dims, "dims"), origin, cell, rotation, translation);
  }

  /// <summary>
  /// Sets where obstacle <paramref name="index"/> will be at the end of the next step; its substeps
  /// move it there (rotation by slerp, translation linearly), carrying the fluid it touches. Call it
  /// once per frame, before the step, for an obstacle that moves.
  /// </summary>
  /// <param name="index">The index <see cref="AddObstacle"/> returned.</param>
  /// <param name="rotation">Quaternion x, y, z, w (4 floats), or null to keep the rotation.</param>
  /// <param name="translation">Position [m] (3 floats), or null to keep the position.</param>
  /// <exception cref="PbfException">InvalidArgument for an unknown index or a bad value.</exception>
  public void SetObstaclePose(int index, float[] rotation, float[] translation) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    Pose(rotation, translation);
    PbfException.Check(PbfNative.pbf_solver_set_obstacle_pose(Live(), (uint)index, rotation, translation));
  }

  /// <summary>The number of obstacles.</summary>
  public int ObstacleCount {
    get {
      uint count;
      PbfException.Check(PbfNative.pbf_solver_get_obstacle_count(Live(), out count));
      return (int)count;
    }
  }

  /// <summary>
  /// What the liquid exerted on obstacle <paramref name="index"/> during the last step, averaged over
  /// it: the force [N] and the torque [N m] about the obstacle's origin (its translation where the step
  /// left it), in world axes. A host engine that drives the obstacle with <see cref="SetObstaclePose"/>
  /// applies them to its own rigid body (Unity: <c>Rigidbody.AddForce</c> and, about the centre of mass
  /// c, <c>AddTorque(torque + Vector3.Cross(origin - c, force))</c>). Attach boundary particles to the
  /// obstacle (<see cref="AddObstacleBoundaryParticles"/>) for accurate forces.
  /// </summary>
  /// <param name="index">The index <see cref="AddObstacle"/> returned.</param>
  /// <param name="force">Receives the force (3 floats), or null.</param>
  /// <param name="torque">Receives the torque (3 floats), or null.</param>
  /// <exception cref="PbfException">InvalidArgument for an unknown index or the Projective Fluids method.</exception>
  public void GetObstacleForce(int index, float[] force, float[] torque = null) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    if (force != null) SolverDesc.Vec3(force, "force");
    if (torque != null) SolverDesc.Vec3(torque, "torque");
    PbfException.Check(PbfNative.pbf_solver_get_obstacle_force(Live(), (uint)index, force, torque));
  }

  /// <summary>
  /// Where obstacle <paramref name="index"/> is now (after the last step, or where it was placed): a
  /// dynamic body's pose is where the water, gravity and the walls have taken it.
  /// </summary>
  /// <param name="index">The index <see cref="AddObstacle"/> returned.</param>
  /// <param name="rotation">Receives the quaternion x, y, z, w (4 floats), or null.</param>
  /// <param name="translation">Receives the position [m] (3 floats), or null.</param>
  /// <exception cref="PbfException">InvalidArgument for an unknown index.</exception>
  public void GetObstaclePose(int index, float[] rotation, float[] translation) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    Pose(rotation, translation);
    PbfException.Check(PbfNative.pbf_solver_get_obstacle_pose(Live(), (uint)index, rotation, translation));
  }

  /// <summary>
  /// Makes obstacle <paramref name="index"/> a dynamic body of <paramref name="mass"/> [kg], its centre
  /// of mass at <paramref name="centre"/> in its own frame [m] and its inertia tensor about that centre
  /// <paramref name="inertia"/> [kg m^2] (9 floats, row-major; <see cref="SignedDistanceField.MassProperties"/>
  /// gives all three). From then on gravity, the water and contacts with the walls, planes and kinematic
  /// obstacles move it every substep. It starts at rest where it is. Mass 0 makes it kinematic again
  /// (centre and inertia may then be null).
  /// </summary>
  /// <exception cref="PbfException">InvalidArgument for a bad index or mass properties, or Projective Fluids.</exception>
  public void SetObstacleDynamic(int index, float mass, float[] centre, float[] inertia) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    if (mass != 0.0f) {
      SolverDesc.Vec3(centre, "centre");
      if (inertia == null) throw new ArgumentNullException("inertia");
      if (inertia.Length != 9) throw new ArgumentException("inertia must hold 9 floats, not " + inertia.Length, "inertia");
    }
    PbfException.Check(PbfNative.pbf_solver_set_obstacle_dynamic(Live(), (uint)index, mass, centre, inertia));
  }

  /// <summary>
  /// Sets dynamic obstacle <paramref name="index"/>'s velocity [m/s] (of its centre of mass) and angular
  /// velocity [rad/s], world axes; null keeps that part.
  /// </summary>
  /// <exception cref="PbfException">InvalidArgument for a kinematic obstacle, an unknown index or a bad value.</exception>
  public void SetObstacleVelocity(int index, float[] linear, float[] angular = null) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    if (linear != null) SolverDesc.Vec3(linear, "linear");
    if (angular != null) SolverDesc.Vec3(angular, "angular");
    PbfException.Check(PbfNative.pbf_solver_set_obstacle_velocity(Live(), (uint)index, linear, angular));
  }

  /// <summary>
  /// Dynamic obstacle <paramref name="index"/>'s velocity [m/s] (of its centre of mass) and angular
  /// velocity [rad/s], world axes, into the arrays given (3 floats each, or null).
  /// </summary>
  /// <exception cref="PbfException">InvalidArgument for a kinematic obstacle or an unknown index.</exception>
  public void GetObstacleVelocity(int index, float[] linear, float[] angular = null) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    if (linear != null) SolverDesc.Vec3(linear, "linear");
    if (angular != null) SolverDesc.Vec3(angular, "angular");
    PbfException.Check(PbfNative.pbf_solver_get_obstacle_velocity(Live(), (uint)index, linear, angular));
  }

  /// <summary>
  /// Gives obstacle <paramref name="index"/> (kinematic or dynamic) a surface material of its own in place
  /// of the parameters' <see cref="SolverParams.Friction"/> and <see cref="SolverParams.Restitution"/>,
  /// which every obstacle follows until it is given one (and again after
  /// <see cref="ClearObstacleMaterial"/>); the domain walls and the planes keep the parameters'. Where a
  /// dynamic body touches something, the contact takes the geometric mean of the two surfaces' frictions
  /// and the larger of their restitutions (a wall or a plane counts with the parameters'). Water does not
  /// bounce off obstacles whatever their restitution. The material stays with the obstacle while it turns
  /// dynamic or kinematic.
  /// </summary>
  /// <param name="index">The index <see cref="AddObstacle"/> returned.</param>
  /// <param name="friction">Coulomb friction along it, 0 .. 10: 0 slips freely, a large value holds.</param>
  /// <param name="restitution">A contact's normal speed leaving over arriving, 0 .. 1.</param>
  /// <exception cref="PbfException">InvalidArgument for an unknown index or a bad value (nothing changes).</exception>
  public void SetObstacleMaterial(int index, float friction, float restitution) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    PbfException.Check(PbfNative.pbf_solver_set_obstacle_material(Live(), (uint)index, friction, restitution));
  }

  /// <summary>
  /// Makes obstacle <paramref name="index"/> follow the parameters' friction and restitution again
  /// (<see cref="SetObstacleMaterial"/>).
  /// </summary>
  /// <param name="index">The index <see cref="AddObstacle"/> returned.</param>
  /// <exception cref="PbfException">InvalidArgument for an unknown index.</exception>
  public void ClearObstacleMaterial(int index) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    PbfException.Check(PbfNative.pbf_solver_clear_obstacle_material(Live(), (uint)index));
  }

  /// <summary>
  /// The friction and restitution obstacle <paramref name="index"/>'s surface has now: its own material's
  /// (<see cref="SetObstacleMaterial"/>), or the parameters' where it has none.
  /// </summary>
  /// <param name="index">The index <see cref="AddObstacle"/> returned.</param>
  /// <param name="friction">Receives the Coulomb friction, 0 .. 10.</param>
  /// <param name="restitution">Receives the restitution, 0 .. 1.</param>
  /// <exception cref="PbfException">InvalidArgument for an unknown index.</exception>
  public void GetObstacleMaterial(int index, out float friction, out float restitution) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    PbfException.Check(
        PbfNative.pbf_solver_get_obstacle_material(Live(), (uint)index, out friction, out restitution));
  }

  /// <summary>Removes every obstacle and the boundary particles attached to them.</summary>
  public void ClearObstacles() { PbfException.Check(PbfNative.pbf_solver_clear_obstacles(Live())); }

  /// <summary>
  /// Fills the inside of the solid of <paramref name="sdf"/>, placed by <paramref name="rotation"/> and
  /// <paramref name="translation"/>, with particles at the rest spacing on the lattice of
  /// <see cref="FillBox"/>; points outside the domain, or closer than half a spacing to one of its
  /// walls, are skipped. All or nothing.
  /// </summary>
  /// <param name="sdf">The solid, in its own frame.</param>
  /// <param name="rotation">Quaternion x, y, z, w (4 floats), or null for none.</param>
  /// <param name="translation">Position [m] (3 floats), or null for the origin.</param>
  /// <param name="velocity">The particles' velocity [m/s] (3 floats), or null for rest.</param>
  /// <returns>The number of particles added.</returns>
  /// <exception cref="PbfException">CapacityExceeded, saying how many the solid holds; InvalidArgument.</exception>
  public int FillSdf(SignedDistanceField sdf, float[] rotation = null, float[] translation = null,
                     float[] velocity = null) {
    if (sdf == null) throw new ArgumentNullException("sdf");
    Pose(rotation, translation);
    if (velocity != null) SolverDesc.Vec3(velocity, "velocity");
    UIntPtr added;
    PbfException.Check(PbfNative.pbf_solver_fill_sdf(Live(), sdf.Live(), rotation, translation, velocity, out added));
    return checked((int)added.ToUInt64());
  }

  /// <summary>
  /// Adds boundary particles for the surface of the solid of <paramref name="sdf"/>, placed by
  /// <paramref name="rotation"/> and <paramref name="translation"/>: points spread evenly about a
  /// particle spacing apart, set back inside the solid as the domain walls' samples are, so that
  /// fluid resting on it has the rest density. For solids that do not move (see
  /// <see cref="AddObstacleBoundaryParticles"/>).
  /// </summary>
  /// <param name="sdf">The solid, in its own frame.</param>
  /// <param name="rotation">Quaternion x, y, z, w (4 floats), or null for none.</param>
  /// <param name="translation">Position [m] (3 floats), or null for the origin.</param>
  /// <returns>The number of boundary particles added.</returns>
  /// <exception cref="PbfException">InvalidArgument (also for a Projective solver); CapacityExceeded.</exception>
  public int AddSdfBoundaryParticles(SignedDistanceField sdf, float[] rotation = null, float[] translation = null) {
    if (sdf == null) throw new ArgumentNullException("sdf");
    Pose(rotation, translation);
    UIntPtr added;
    PbfException.Check(
        PbfNative.pbf_solver_add_sdf_boundary_particles(Live(), sdf.Live(), rotation, translation, out added));
    return checked((int)added.ToUInt64());
  }

  /// <summary>
  /// Adds boundary particles attached to obstacle <paramref name="index"/>: its own surface sampled
  /// as <see cref="AddSdfBoundaryParticles"/> samples a solid, in its frame. They move with the
  /// obstacle (every substep places them at its pose), so fluid resting on a moving solid has the
  /// rest density. <see cref="RemoveObstacleBoundaryParticles"/> removes them and keeps the obstacle;
  /// <see cref="ClearObstacles"/> removes them with the obstacle.
  /// </summary>
  /// <param name="index">The index <see cref="AddObstacle"/> returned.</param>
  /// <returns>The number of boundary particles added.</returns>
  /// <exception cref="PbfException">InvalidArgument for an unknown index or a Projective solver; CapacityExceeded.</exception>
  public int AddObstacleBoundaryParticles(int index) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    UIntPtr added;
    PbfException.Check(PbfNative.pbf_solver_add_obstacle_boundary_particles(Live(), (uint)index, out added));
    return checked((int)added.ToUInt64());
  }

  /// <summary>
  /// Removes the boundary particles attached to obstacle <paramref name="index"/> and keeps the
  /// obstacle; every other boundary particle stays as it was.
  /// </summary>
  /// <param name="index">The index <see cref="AddObstacle"/> returned.</param>
  /// <returns>The number of boundary particles removed (0 when the obstacle had none).</returns>
  /// <exception cref="PbfException">InvalidArgument for an unknown index; nothing changes then.</exception>
  public int RemoveObstacleBoundaryParticles(int index) {
    if (index < 0) throw new ArgumentOutOfRangeException("index", index, "index must not be negative");
    UIntPtr removed;
    PbfException.Check(PbfNative.pbf_solver_remove_obstacle_boundary_particles(Live(), (uint)index, out removed));
    return checked((int)removed.ToUInt64());
  }

  /// <summary>
  /// Adds static boundary particles (Akinci et al. 2012), samples of a solid surface at about the
  /// particle spacing that add density to the fluid near them. Each must lie within one kernel
  /// radius of the domain.
  /// </summary>
  /// <param name="positions">x, y, z per particle [m], world frame.</param>
  /// <exception cref="PbfException">InvalidArgument naming the first bad value, or for a Projective
  /// solver; CapacityExceeded. Nothing is added on failure.</exception>
  public void AddBoundaryParticles(float[] positions) {
    int count = Triples(positions, "positions");
    PbfException.Check(PbfNative.pbf_solver_add_boundary_particles(Live(), positions, (UIntPtr)(uint)count));
  }

  /// <summary>
  /// Samples the six walls of the domain box with boundary particles, set back so that fluid resting
  /// against a wall has the rest density. Call it once; <see cref="ClearBoundaryParticles"/> undoes it.
  /// </summary>
  /// <returns>The number of boundary particles added.</returns>
  /// <exception cref="PbfException">CapacityExceeded; InvalidArgument for a Projective solver.</exception>
  public int AddDomainBoundaryParticles() {
    UIntPtr added;
    PbfException.Check(PbfNative.pbf_solver_add_domain_boundary_particles(Live(), out added));
    return checked((int)added.ToUInt64());
  }

  /// <summary>The number of boundary particles, the domain walls' included.</summary>
  public int BoundaryParticleCount {
    get {
      UIntPtr count;
      PbfException.Check(PbfNative.pbf_solver_get_boundary_particle_count(Live(), out count));
      return checked((int)count.ToUInt64());
    }
  }

  /// <summary>Removes every boundary particle, the domain walls' included.</summary>
  public void ClearBoundaryParticles() { PbfException.Check(PbfNative.pbf_solver_clear_boundary_particles(Live())); }

  /// <summary>
  /// Advances the simulation by <paramref name="dt"/> seconds (0 &lt; dt &lt;= 10) in
  /// <paramref name="substeps"/> equal substeps (1 .. 1000).
  /// </summary>
  /// <exception cref="PbfException">InvalidArgument.</exception>
  public void Step(float dt, uint substeps = 1) {
    PbfException.Check(PbfNative.pbf_solver_step(Live(), dt, substeps));
  }

  /// <summary>As <see cref="Step(float, uint)"/>, so that <c>Step(dt, n)</c> takes an int.</summary>
  /// <exception cref="ArgumentOutOfRangeException">substeps is negative.</exception>
  /// <exception cref="PbfException">InvalidArgument (0 or more than 1000 substeps, a bad dt).</exception>
  public void Step(float dt, int substeps) {
    Step(dt, NonNegative(substeps, "substeps"));
  }

  /// <summary>
  /// Starts the step <see cref="Step(float, uint)"/> would run and returns at once; it runs on a thread the
  /// solver starts (and on its worker threads or GPU). Until <see cref="WaitStep"/> returns, every
  /// other call on this solver throws <see cref="PbfException"/> with <see cref="Status.Busy"/>,
  /// except <see cref="IsStepDone"/>, <see cref="WaitStep"/> and <see cref="Dispose"/> (which waits).
  /// A game engine simulates the next frame this way while it renders the last one.
  /// </summary>
  /// <exception cref="PbfException">InvalidArgument, checked here as by Step; Busy when a step is running.</exception>
  public void StartStep(float dt, uint substeps = 1) {
    PbfException.Check(PbfNative.pbf_solver_step_async(Live(), dt, substeps));
  }

  /// <summary>As <see cref="StartStep(float, uint)"/>, with an int substep count.</summary>
  /// <exception cref="ArgumentOutOfRangeException">substeps is negative.</exception>
  public void StartStep(float dt, int substeps) {
    StartStep(dt, NonNegative(substeps, "substeps"));
  }

  /// <summary>Waits for the step started by <see cref="StartStep(float, uint)"/>; returns at once when none was started.</summary>
  /// <exception cref="PbfException">The status and message of a step that failed.</exception>
  public void WaitStep() { PbfException.Check(PbfNative.pbf_solver_wait(Live())); }

  /// <summary>False while a step started by <see cref="StartStep(float, uint)"/> runs; never blocks.</summary>
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
  /// Writes the particles as a binary PLY file (x y z vx vy vz density, and red green blue
  /// coloured by speed, per vertex) that Blender, Houdini, MeshLab and ParaView open; complete or not at all.
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
  internal SolverHandle Live() {
    if (IsDisposed) throw new ObjectDisposedException("Solver", "the solver has been disposed");
    return handle;
  }

  /// <summary>Checks the shapes of an optional rotation (4 floats) and translation (3 floats).</summary>
  private static void Pose(float[] rotation, float[] translation) {
    if (rotation != null) SignedDistanceField.Quaternion(rotation, "rotation");
    if (translation != null) SolverDesc.Vec3(translation, "translation");
  }

  /// <summary>An unsigned C count given as an int.</summary>
  private static uint NonNegative(int value, string name) {
    if (value < 0) throw new ArgumentOutOfRangeException(name, value, name + " must not be negative");
    return (uint)value;
  }

  /// <summary>A length in floats of caller-owned memory, as the C size_t.</summary>
  private static UIntPtr Capacity(int value, string name) {
    return (UIntPtr)NonNegative(value, name);
  }

  /// <summary>An int array as the C uint32_t array, refusing negative values by index.</summary>
  private static uint[] Unsigned(int[] values, string name) {
    if (values == null) throw new ArgumentNullException(name);
    var result = new uint[values.Length];
    for (int i = 0; i < values.Length; ++i) {
      if (values[i] < 0)
        throw new ArgumentOutOfRangeException(name, values[i], name + "[" + i + "] must not be negative");
      result[i] = (uint)values[i];
    }
    return result;
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
