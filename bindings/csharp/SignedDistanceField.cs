// SignedDistanceField.cs - a solid as a sampled signed distance field, the
// idiomatic face of pbf_sdf.
using System;

namespace Pbf {

/// <summary>
/// A solid described by its signed distance field: distances [m] sampled on a
/// regular grid in the solid's own frame, negative inside. Built from a mesh
/// file, an analytic box or sphere, or a file saved earlier; used by any number
/// of solvers as an obstacle (<see cref="Solver.AddObstacle"/>) or as a shape to
/// fill with fluid (<see cref="Solver.FillSdf"/>), both of which copy it.
/// Dispose it (a <c>using</c> block) to free its native memory at once; a field
/// that is never disposed is freed by the garbage collector.
/// </summary>
/// <remarks>
/// Every failed call throws <see cref="PbfException"/> with the library's message;
/// calls on a disposed field throw <see cref="ObjectDisposedException"/>.
/// A field may be read from several threads at once.
/// </remarks>
/// <example>
/// <code>
/// using (var ball = SignedDistanceField.Sphere(0.2f, 0.02f)) {
///   int index = solver.AddObstacle(ball, null, new[] { 0.5f, 0.3f, 0.5f });
/// }
/// </code>
/// </example>
public sealed class SignedDistanceField : IDisposable {
  private readonly SdfHandle handle;

  private SignedDistanceField(SdfHandle created) { handle = created; }

  /// <summary>Wraps a field a factory returned, or throws with the library's message.</summary>
  private static SignedDistanceField Created(Status status, SdfHandle created) {
    if (status != Status.Ok) {
      string message = PbfNative.pbf_last_error();
      if (created != null) created.Dispose();  // holds NULL; nothing to destroy
      throw new PbfException(status, message);
    }
    return new SignedDistanceField(created);
  }

  /// <summary>
  /// The field of the triangle mesh in the file at <paramref name="path"/> (OBJ, STL, PLY
  /// or OFF), placed as x = R (S x_file) + t.
  /// </summary>
  /// <param name="path">The mesh file.</param>
  /// <param name="scale">S per axis (3 floats, each finite and non-zero), or null for 1, 1, 1.</param>
  /// <param name="rotation">R as a quaternion x, y, z, w (4 floats, normalised here), or null for none.</param>
  /// <param name="translation">t [m] (3 floats), or null for the origin.</param>
  /// <param name="cell">The grid spacing [m], &gt; 0; the grid reaches 4 cells beyond the mesh.</param>
  /// <param name="band">Distances are exact within this distance [m] of the surface: 0 everywhere,
  /// otherwise at least 2 x cell (a few particle spacings suit an obstacle and build fast).</param>
  /// <exception cref="PbfException">Io with the path and the reason; InvalidArgument naming the argument.</exception>
  public static SignedDistanceField FromMeshFile(string path, float[] scale, float[] rotation, float[] translation,
                                                 float cell, float band = 0f) {
    if (path == null) throw new ArgumentNullException("path");
    if (scale != null) SolverDesc.Vec3(scale, "scale");
    if (rotation != null) Quaternion(rotation, "rotation");
    if (translation != null) SolverDesc.Vec3(translation, "translation");
    SdfHandle created;
    Status status = PbfNative.pbf_sdf_from_mesh_file(path, scale, rotation, translation, cell, band, out created);
    return Created(status, created);
  }

  /// <summary>The exact field of a box centred at the origin, sampled 4 cells beyond it.</summary>
  /// <param name="halfExtents">Half its size along x, y, z [m], each &gt; 0.</param>
  /// <param name="cell">The grid spacing [m], &gt; 0.</param>
  /// <exception cref="PbfException">InvalidArgument naming the argument.</exception>
  public static SignedDistanceField Box(float[] halfExtents, float cell) {
    SolverDesc.Vec3(halfExtents, "halfExtents");
    SdfHandle created;
    Status status = PbfNative.pbf_sdf_box(halfExtents, cell, out created);
    return Created(status, created);
  }

  /// <summary>The exact field of a sphere centred at the origin, sampled 4 cells beyond it.</summary>
  /// <param name="radius">Its radius [m], &gt; 0.</param>
  /// <param name="cell">The grid spacing [m], &gt; 0.</param>
  /// <exception cref="PbfException">InvalidArgument naming the argument.</exception>
  public static SignedDistanceField Sphere(float radius, float cell) {
    SdfHandle created;
    Status status = PbfNative.pbf_sdf_sphere(radius, cell, out created);
    return Created(status, created);
  }

  /// <summary>Loads a field written by <see cref="Save"/>.</summary>
  /// <exception cref="PbfException">Io for a missing, foreign, truncated or corrupted file, saying which.</exception>
  public static SignedDistanceField Load(string path) {
    if (path == null) throw new ArgumentNullException("path");
    SdfHandle created;
    Status status = PbfNative.pbf_sdf_load(path, out created);
    return Created(status, created);
  }

  /// <summary>True once <see cref="Dispose"/> has run.</summary>
  public bool IsDisposed { get { return handle.IsClosed; } }

  /// <summary>Destroys the native field; solvers keep their copies. Calling it again does nothing.</summary>
  public void Dispose() { handle.Dispose(); }

  /// <summary>Saves the field in pbf's small binary format; the file appears complete or not at all.</summary>
  /// <exception cref="PbfException">Io with the path and the reason.</exception>
  public void Save(string path) {
    if (path == null) throw new ArgumentNullException("path");
    PbfException.Check(PbfNative.pbf_sdf_save(Live(), path));
  }

  /// <summary>The number of samples along x, y and z.</summary>
  public uint[] Dims {
    get {
      var dims = new uint[3];
      float cell;
      PbfException.Check(PbfNative.pbf_sdf_get_grid(Live(), dims, null, out cell));
      return dims;
    }
  }

  /// <summary>The position [m] of sample (0, 0, 0) in the field's frame; sample (i, j, k) lies at
  /// Origin + (i, j, k) x Cell.</summary>
  public float[] Origin {
    get {
      var origin = new float[3];
      float cell;
      PbfException.Check(PbfNative.pbf_sdf_get_grid(Live(), null, origin, out cell));
      return origin;
    }
  }

  /// <summary>The sample spacing [m].</summary>
  public float Cell {
    get {
      float cell;
      PbfException.Check(PbfNative.pbf_sdf_get_grid(Live(), null, null, out cell));
      return cell;
    }
  }

  /// <summary>
  /// Every sample [m] in a new array, x varying fastest (sample (i, j, k) at
  /// i + Dims[0] * (j + Dims[1] * k)): the layout <see cref="Solver.AddObstacleSdf(float[], uint[], float[], float, float[], float[])"/> takes.
  /// </summary>
  public float[] Values() {
    uint[] dims = Dims;
    var values = new float[checked((int)(dims[0] * dims[1] * dims[2]))];
    PbfException.Check(PbfNative.pbf_sdf_get_values(Live(), values, (UIntPtr)(uint)values.Length));
    return values;
  }

  /// <summary>The field [m] at <paramref name="point"/> (3 floats [m], field's frame): trilinear between
  /// samples; outside the grid, the value at its nearest point plus the distance to it.</summary>
  public float Distance(float[] point) {
    SolverDesc.Vec3(point, "point");
    float distance;
    PbfException.Check(PbfNative.pbf_sdf_distance(Live(), point, out distance));
    return distance;
  }

  /// <summary>The volume of the solid [m^3], within a few percent once it is several cells across.</summary>
  public float Volume() {
    float volume;
    PbfException.Check(PbfNative.pbf_sdf_volume(Live(), out volume));
    return volume;
  }

  /// <summary>
  /// What a rigid body of uniform <paramref name="density"/> [kg/m^3] filling the solid weighs and how
  /// it turns (for a host engine's rigid body): returns its mass [kg]; its centre of mass in the field's
  /// frame [m] goes to <paramref name="centre"/> and its inertia tensor about the centre of mass, in the
  /// field's axes, row-major [kg m^2], to <paramref name="inertia"/> (either may be null). Within a few
  /// percent once the solid is several cells across.
  /// </summary>
  /// <exception cref="PbfException">InvalidArgument for a density that is not finite and > 0.</exception>
  public float MassProperties(float density, float[] centre = null, float[] inertia = null) {
    if (centre != null) SolverDesc.Vec3(centre, "centre");
    if (inertia != null && inertia.Length != 9)
      throw new ArgumentException("inertia must hold 9 floats, not " + inertia.Length, "inertia");
    float mass;
    PbfException.Check(PbfNative.pbf_sdf_mass_properties(Live(), density, out mass, centre, inertia));
    return mass;
  }

  /// <summary>The handle, or ObjectDisposedException once disposed.</summary>
  internal SdfHandle Live() {
    if (handle.IsClosed) throw new ObjectDisposedException("SignedDistanceField", "the field has been disposed");
    return handle;
  }

  /// <summary>Checks a quaternion x, y, z, w: exactly 4 floats.</summary>
  internal static float[] Quaternion(float[] value, string name) {
    if (value == null) throw new ArgumentNullException(name);
    if (value.Length != 4) throw new ArgumentException(name + " must hold 4 floats (x, y, z, w), not " + value.Length, name);
    return value;
  }
}

}  // namespace Pbf
