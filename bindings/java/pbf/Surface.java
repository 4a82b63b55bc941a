// Surface.java - a triangle mesh of the liquid's (or a solid's) surface, the
// idiomatic face of pbf_surface.
package pbf;

import java.lang.ref.Reference;

/**
 * A closed triangle mesh: the liquid's surface built from a solver's particles, or a solid's from
 * its signed distance field. Vertices in metres, one unit normal per vertex pointing out of the
 * liquid (or solid), triangles counter-clockwise seen from outside. Rebuild one surface every
 * frame to reuse its native memory; close it (try-with-resources) to free that memory at once.
 *
 * <p>Every failed call throws {@link PbfException} with the library's message; calls on a closed
 * surface throw {@link IllegalStateException}. A surface is used by one thread at a time.
 *
 * <pre>{@code
 * try (Surface surface = new Surface()) {
 *   surface.build(solver, new SurfaceParams().setCellSize(0.5f));
 *   float[] vertices = surface.vertices(), normals = surface.normals();
 *   int[] triangles = surface.triangles();
 * }
 * }</pre>
 */
public final class Surface implements AutoCloseable {
  private final NativeHandle handle;

  /** An empty surface: no vertices, no triangles. */
  public Surface() {
    long[] created = new long[1];
    PbfException.check(PbfNative.pbf_surface_create(created));
    handle = new NativeHandle(this, created[0], PbfNative::pbf_surface_destroy, "the surface is closed");
  }

  /** @return whether {@link #close} has run */
  public boolean isClosed() {
    return handle.isClosed();
  }

  /** Destroys the native surface; calling it again does nothing. */
  @Override
  public void close() {
    handle.close();
  }

  /**
   * Replaces the mesh by the liquid surface of the solver's particles at their current positions;
   * a solver with no particles gives an empty mesh. The mesh does not depend on the thread count or
   * the backend. On failure the mesh stays as it was.
   *
   * @param solver the solver whose particles are meshed
   * @param params how, or null for the defaults
   * @throws PbfException INVALID_ARGUMENT naming a parameter out of range; CAPACITY_EXCEEDED,
   *     naming params-&gt;cell_size, for a grid beyond PBF_MAX_SURFACE_GRID_POINTS; BUSY during an
   *     asynchronous step
   */
  public void build(Solver solver, SurfaceParams params) {
    Checks.nonNull(solver, "solver");
    try {
      PbfException.check(PbfNative.pbf_solver_build_surface(solver.live(),
          params == null ? null : params.toNative(), live()));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(solver);
    }
  }

  /**
   * Replaces the mesh by the surface of the field's solid, in the field's own frame; normals point
   * out of the solid.
   *
   * @param field the solid
   */
  public void build(SignedDistanceField field) {
    Checks.nonNull(field, "field");
    try {
      PbfException.check(PbfNative.pbf_sdf_build_surface(field.live(), live()));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(field);
    }
  }

  /** @return the number of vertices */
  public int getVertexCount() {
    return Math.toIntExact(counts()[0]);
  }

  /** @return the number of triangles */
  public int getTriangleCount() {
    return Math.toIntExact(counts()[1]);
  }

  /** @return the vertex positions [m], x, y, z per vertex, in a new array */
  public float[] vertices() {
    float[] out = new float[3 * getVertexCount()];
    getVertices(out);
    return out;
  }

  /**
   * Copies the vertex positions into {@code destination} (at least 3 x vertex count floats).
   *
   * @param destination the array to fill
   * @throws PbfException BUFFER_TOO_SMALL, saying how many floats are needed
   */
  public void getVertices(float[] destination) {
    Checks.nonNull(destination, "destination");
    try {
      PbfException.check(PbfNative.pbf_surface_get_vertices(live(), destination));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return the unit normals, x, y, z per vertex, pointing out of the liquid, in a new array */
  public float[] normals() {
    float[] out = new float[3 * getVertexCount()];
    getNormals(out);
    return out;
  }

  /**
   * Copies the normals into {@code destination} (at least 3 x vertex count floats).
   *
   * @param destination the array to fill
   * @throws PbfException BUFFER_TOO_SMALL, saying how many floats are needed
   */
  public void getNormals(float[] destination) {
    Checks.nonNull(destination, "destination");
    try {
      PbfException.check(PbfNative.pbf_surface_get_normals(live(), destination));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return the triangles, 3 vertex indices each (below 2^31), counter-clockwise seen from outside */
  public int[] triangles() {
    int[] out = new int[3 * getTriangleCount()];
    getTriangles(out);
    return out;
  }

  /**
   * Copies the triangles into {@code destination} (at least 3 x triangle count indices).
   *
   * @param destination the array to fill
   * @throws PbfException BUFFER_TOO_SMALL, saying how many indices are needed
   */
  public void getTriangles(int[] destination) {
    Checks.nonNull(destination, "destination");
    try {
      PbfException.check(PbfNative.pbf_surface_get_triangles(live(), destination));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Writes the mesh as binary PLY with normals; the file appears complete or not at all.
   *
   * @param path the file to write
   * @throws PbfException IO with the path and the reason
   */
  public void writePly(String path) {
    Checks.nonNull(path, "path");
    try {
      PbfException.check(PbfNative.pbf_surface_write_ply(live(), path));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  private long[] counts() {
    long[] vertices = new long[1], triangles = new long[1];
    try {
      PbfException.check(PbfNative.pbf_surface_get_counts(live(), vertices, triangles));
    } finally {
      Reference.reachabilityFence(this);
    }
    return new long[] {vertices[0], triangles[0]};
  }

  private long live() {
    return handle.live();
  }
}
