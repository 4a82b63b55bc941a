// SignedDistanceField.java - a solid as a sampled signed distance field, the
// idiomatic face of pbf_sdf.
package pbf;

import java.lang.ref.Reference;

/**
 * A solid described by its signed distance field: distances [m] sampled on a regular grid in the
 * solid's own frame, negative inside. Built from a mesh file, an analytic box or sphere, or a file
 * saved earlier; used by any number of solvers as an obstacle ({@link Solver#addObstacle}) or as a
 * shape to fill with fluid ({@link Solver#fillSdf}), both of which copy it. Close it
 * (try-with-resources) to free its native memory at once; a field that is never closed is freed
 * once it is unreachable.
 *
 * <p>Every failed call throws {@link PbfException} with the library's message; calls on a closed
 * field throw {@link IllegalStateException}. A field may be read from several threads at once.
 *
 * <pre>{@code
 * try (SignedDistanceField ball = SignedDistanceField.sphere(0.2f, 0.02f)) {
 *   int index = solver.addObstacle(ball, null, new float[] {0.5f, 0.3f, 0.5f});
 * }
 * }</pre>
 */
public final class SignedDistanceField implements AutoCloseable {
  private final NativeHandle handle;

  private SignedDistanceField(long pointer) {
    handle = new NativeHandle(this, pointer, PbfNative::pbf_sdf_destroy, "the signed distance field is closed");
  }

  /**
   * The field of the triangle mesh in a file (OBJ, STL, PLY or OFF), placed as x = R (S x_file) + t.
   *
   * @param path the mesh file
   * @param scale S per axis, 3 floats each finite and non-zero, or null for 1, 1, 1
   * @param rotation R as a quaternion x, y, z, w (4 floats, normalised here), or null for none
   * @param translation t [m], 3 floats, or null for the origin
   * @param cell the grid spacing [m], &gt; 0; the grid reaches 4 cells beyond the mesh
   * @param band distances are exact within this distance [m] of the surface: 0 everywhere,
   *     otherwise at least 2 x cell (a few particle spacings suit an obstacle and build fast)
   * @return the new field
   * @throws PbfException IO with the path and the reason; INVALID_ARGUMENT naming the argument
   */
  public static SignedDistanceField fromMeshFile(String path, float[] scale, float[] rotation,
      float[] translation, float cell, float band) {
    Checks.nonNull(path, "path");
    if (scale != null) Checks.vec3(scale, "scale");
    Checks.pose(rotation, translation);
    long[] created = new long[1];
    PbfException.check(PbfNative.pbf_sdf_from_mesh_file(path, scale, rotation, translation, cell, band, created));
    return new SignedDistanceField(created[0]);
  }

  /**
   * The exact field of a box centred at the origin, sampled 4 cells beyond it.
   *
   * @param halfExtents half its size along x, y, z [m], each &gt; 0
   * @param cell the grid spacing [m], &gt; 0
   * @return the new field
   * @throws PbfException INVALID_ARGUMENT naming the argument
   */
  public static SignedDistanceField box(float[] halfExtents, float cell) {
    Checks.vec3(halfExtents, "halfExtents");
    long[] created = new long[1];
    PbfException.check(PbfNative.pbf_sdf_box(halfExtents, cell, created));
    return new SignedDistanceField(created[0]);
  }

  /**
   * The exact field of a sphere centred at the origin, sampled 4 cells beyond it.
   *
   * @param radius its radius [m], &gt; 0
   * @param cell the grid spacing [m], &gt; 0
   * @return the new field
   * @throws PbfException INVALID_ARGUMENT naming the argument
   */
  public static SignedDistanceField sphere(float radius, float cell) {
    long[] created = new long[1];
    PbfException.check(PbfNative.pbf_sdf_sphere(radius, cell, created));
    return new SignedDistanceField(created[0]);
  }

  /**
   * Loads a field written by {@link #save}.
   *
   * @param path the file to read
   * @return the loaded field
   * @throws PbfException IO for a missing, foreign, truncated or corrupted file, saying which
   */
  public static SignedDistanceField load(String path) {
    Checks.nonNull(path, "path");
    long[] created = new long[1];
    PbfException.check(PbfNative.pbf_sdf_load(path, created));
    return new SignedDistanceField(created[0]);
  }

  /** Destroys the native field; solvers keep their copies. Calling it again does nothing. */
  @Override
  public void close() {
    handle.close();
  }

  /** @return true once {@link #close()} has run */
  public boolean isClosed() {
    return handle.isClosed();
  }

  /**
   * Saves the field in pbf's small binary format; the file appears complete or not at all.
   *
   * @param path the file to write
   * @throws PbfException IO with the path and the reason
   */
  public void save(String path) {
    Checks.nonNull(path, "path");
    try {
      PbfException.check(PbfNative.pbf_sdf_save(live(), path));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return the number of samples along x, y and z */
  public int[] getDims() {
    int[] dims = new int[3];
    grid(dims, null);
    return dims;
  }

  /** @return the position [m] of sample (0, 0, 0); sample (i, j, k) lies at origin + (i, j, k) x cell */
  public float[] getOrigin() {
    float[] origin = new float[3];
    grid(null, origin);
    return origin;
  }

  /** @return the sample spacing [m] */
  public float getCell() {
    return grid(null, null);
  }

  /**
   * @return every sample [m] in a new array, x varying fastest (sample (i, j, k) at
   *     i + dims[0] * (j + dims[1] * k)): the layout {@link Solver#addObstacleSdf} takes
   */
  public float[] values() {
    int[] dims = getDims();
    float[] values = new float[Math.toIntExact((long) dims[0] * dims[1] * dims[2])];
    try {
      PbfException.check(PbfNative.pbf_sdf_get_values(live(), values));
      return values;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The field at a point: trilinear between samples; outside the grid, the value at its nearest
   * point plus the distance to it.
   *
   * @param point 3 floats [m], in the field's frame
   * @return the signed distance [m], negative inside
   */
  public float distance(float[] point) {
    Checks.vec3(point, "point");
    float[] distance = new float[1];
    try {
      PbfException.check(PbfNative.pbf_sdf_distance(live(), point, distance));
      return distance[0];
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return the volume of the solid [m^3], within a few percent once it is several cells across */
  public float volume() {
    float[] volume = new float[1];
    try {
      PbfException.check(PbfNative.pbf_sdf_volume(live(), volume));
      return volume[0];
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * What a rigid body of uniform density filling the solid weighs and how it turns (for a host
   * engine's rigid body). Within a few percent once the solid is several cells across.
   *
   * @param density [kg/m^3], finite and &gt; 0
   * @param centre receives the centre of mass in the field's frame [m], 3 floats, or null
   * @param inertia receives the inertia tensor about the centre of mass in the field's axes,
   *     row-major [kg m^2], 9 floats, or null
   * @return the mass [kg]
   * @throws PbfException INVALID_ARGUMENT for a density that is not finite and &gt; 0
   */
  public float massProperties(float density, float[] centre, float[] inertia) {
    if (centre != null) Checks.vec3(centre, "centre");
    if (inertia != null && inertia.length != 9) {
      throw new IllegalArgumentException("inertia must hold 9 floats, not " + inertia.length);
    }
    float[] mass = new float[1];
    try {
      PbfException.check(PbfNative.pbf_sdf_mass_properties(live(), density, mass, centre, inertia));
      return mass[0];
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** The grid into the arrays given (either may be null); returns the cell. */
  private float grid(int[] dims, float[] origin) {
    float[] cell = new float[1];
    try {
      PbfException.check(PbfNative.pbf_sdf_get_grid(live(), dims, origin, cell));
      return cell[0];
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** The native pointer, or IllegalStateException once closed; callers fence this object. */
  long live() {
    return handle.live();
  }
}
