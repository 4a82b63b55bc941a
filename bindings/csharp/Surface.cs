// Surface.cs - a triangle mesh of the liquid's (or a solid's) surface, the
// idiomatic face of pbf_surface, and the parameters that build it.
using System;
using System.Runtime.InteropServices;

namespace Pbf {

/// <summary>
/// How <see cref="Surface.Build(Solver, SurfaceParams)"/> meshes the liquid: every length is in
/// particle spacings. The defaults are pbf_surface_params_default()'s.
/// </summary>
public sealed class SurfaceParams {
  /// <summary>Edge of the sampling grid's cells [spacings], 0.05 .. 4; default 0.5. Smaller is finer
  /// and slower (the work grows as its inverse cube).</summary>
  public float CellSize { get; set; } = 0.5f;
  /// <summary>Reach of each particle's contribution [spacings], 1 .. 5; default 2. Larger is smoother.</summary>
  public float SmoothingRadius { get; set; } = 2f;
  /// <summary>The surface's level as a fraction of the field inside the liquid at rest, strictly
  /// between 0 and 1; default 0.5 (a block at rest encloses its particles' volume).</summary>
  public float IsoLevel { get; set; } = 0.5f;
  /// <summary>0 .. 1; default 0 (round kernels). Above 0 each particle's kernel follows its neighbours
  /// (Yu &amp; Turk 2013): flatter free surfaces, at about 14 times the build time.</summary>
  public float Anisotropy { get; set; } = 0f;

  internal NativeSurfaceParams ToNative() {
    var p = new NativeSurfaceParams();
    p.struct_size = (UIntPtr)Marshal.SizeOf(typeof(NativeSurfaceParams));
    p.cell_size = CellSize;
    p.smoothing_radius = SmoothingRadius;
    p.iso_level = IsoLevel;
    p.anisotropy = Anisotropy;
    return p;
  }
}

/// <summary>
/// A closed triangle mesh: the liquid's surface built from a solver's particles, or a solid's from its
/// signed distance field. Vertices in metres, one unit normal per vertex pointing out of the liquid
/// (or solid), triangles counter-clockwise seen from outside. Rebuild one surface every frame to
/// reuse its native memory. Dispose it (a <c>using</c> block) to free that memory at once.
/// </summary>
/// <remarks>
/// Every failed call throws <see cref="PbfException"/> with the library's message; calls on a
/// disposed surface throw <see cref="ObjectDisposedException"/>. A surface is used by one thread at a time.
/// </remarks>
/// <example>
/// <code>
/// using (var surface = new Surface()) {
///   surface.Build(solver, new SurfaceParams { CellSize = 0.5f });
///   float[] vertices = surface.Vertices(), normals = surface.Normals();
///   uint[] triangles = surface.Triangles();
/// }
/// </code>
/// </example>
public sealed class Surface : IDisposable {
  private readonly SurfaceHandle handle;

  /// <summary>An empty surface: no vertices, no triangles.</summary>
  public Surface() {
    SurfaceHandle created;
    Status status = PbfNative.pbf_surface_create(out created);
    if (status != Status.Ok) {
      string message = PbfNative.pbf_last_error();
      if (created != null) created.Dispose();  // holds NULL; nothing to destroy
      throw new PbfException(status, message);
    }
    handle = created;
  }

  /// <summary>True once <see cref="Dispose"/> has run.</summary>
  public bool IsDisposed { get { return handle.IsClosed; } }

  /// <summary>Destroys the native surface. Calling it again does nothing.</summary>
  public void Dispose() { handle.Dispose(); }

  /// <summary>
  /// Replaces the mesh by the liquid surface of <paramref name="solver"/>'s particles at their current
  /// positions; a solver with no particles gives an empty mesh. The mesh does not depend on the thread
  /// count or the backend.
  /// </summary>
  /// <param name="solver">The solver whose particles are meshed.</param>
  /// <param name="parameters">How, or null for the defaults.</param>
  /// <exception cref="PbfException">InvalidArgument naming a parameter out of range; CapacityExceeded,
  /// naming params->cell_size, for a grid beyond PBF_MAX_SURFACE_GRID_POINTS; Busy during an
  /// asynchronous step. The mesh stays as it was.</exception>
  public void Build(Solver solver, SurfaceParams parameters = null) {
    if (solver == null) throw new ArgumentNullException("solver");
    NativeSurfaceParams p = (parameters ?? new SurfaceParams()).ToNative();
    PbfException.Check(PbfNative.pbf_solver_build_surface(solver.Live(), ref p, Live()));
  }

  /// <summary>Replaces the mesh by the surface of <paramref name="field"/>'s solid, in the field's own
  /// frame; normals point out of the solid.</summary>
  public void Build(SignedDistanceField field) {
    if (field == null) throw new ArgumentNullException("field");
    PbfException.Check(PbfNative.pbf_sdf_build_surface(field.Live(), Live()));
  }

  /// <summary>The number of vertices.</summary>
  public int VertexCount {
    get {
      UIntPtr vertices, triangles;
      PbfException.Check(PbfNative.pbf_surface_get_counts(Live(), out vertices, out triangles));
      return checked((int)(ulong)vertices);
    }
  }

  /// <summary>The number of triangles.</summary>
  public int TriangleCount {
    get {
      UIntPtr vertices, triangles;
      PbfException.Check(PbfNative.pbf_surface_get_counts(Live(), out vertices, out triangles));
      return checked((int)(ulong)triangles);
    }
  }

  /// <summary>The vertex positions [m], x, y, z per vertex, in a new array.</summary>
  public float[] Vertices() {
    var result = new float[checked(3 * VertexCount)];
    GetVertices(result);
    return result;
  }

  /// <summary>Copies the vertex positions into <paramref name="destination"/> (at least 3 x VertexCount floats).</summary>
  /// <exception cref="PbfException">BufferTooSmall, saying how many floats are needed.</exception>
  public void GetVertices(float[] destination) {
    if (destination == null) throw new ArgumentNullException("destination");
    PbfException.Check(PbfNative.pbf_surface_get_vertices(Live(), destination, (UIntPtr)(uint)destination.Length));
  }

  /// <summary>The unit normals, x, y, z per vertex, pointing out of the liquid, in a new array.</summary>
  public float[] Normals() {
    var result = new float[checked(3 * VertexCount)];
    GetNormals(result);
    return result;
  }

  /// <summary>Copies the normals into <paramref name="destination"/> (at least 3 x VertexCount floats).</summary>
  /// <exception cref="PbfException">BufferTooSmall, saying how many floats are needed.</exception>
  public void GetNormals(float[] destination) {
    if (destination == null) throw new ArgumentNullException("destination");
    PbfException.Check(PbfNative.pbf_surface_get_normals(Live(), destination, (UIntPtr)(uint)destination.Length));
  }

  /// <summary>The triangles, 3 vertex indices each, counter-clockwise seen from outside, in a new array
  /// (Unity's Mesh.triangles wants them as int: they are below 2^31).</summary>
  public uint[] Triangles() {
    var result = new uint[checked(3 * TriangleCount)];
    GetTriangles(result);
    return result;
  }

  /// <summary>Copies the triangles into <paramref name="destination"/> (at least 3 x TriangleCount indices).</summary>
  /// <exception cref="PbfException">BufferTooSmall, saying how many indices are needed.</exception>
  public void GetTriangles(uint[] destination) {
    if (destination == null) throw new ArgumentNullException("destination");
    PbfException.Check(PbfNative.pbf_surface_get_triangles(Live(), destination, (UIntPtr)(uint)destination.Length));
  }

  /// <summary>Writes the mesh as binary PLY with normals; the file appears complete or not at all.</summary>
  /// <exception cref="PbfException">Io with the path and the reason.</exception>
  public void WritePly(string path) {
    if (path == null) throw new ArgumentNullException("path");
    PbfException.Check(PbfNative.pbf_surface_write_ply(Live(), path));
  }

  /// <summary>The handle, or ObjectDisposedException once disposed.</summary>
  private SurfaceHandle Live() {
    if (handle.IsClosed) throw new ObjectDisposedException("Surface", "the surface has been disposed");
    return handle;
  }
}

}  // namespace Pbf
