// SurfaceParams.java - how a liquid surface is meshed (pbf_surface_params).
package pbf;

/**
 * How {@link Surface#build(Solver, SurfaceParams)} meshes the liquid; every length is in particle
 * spacings. The defaults are pbf_surface_params_default()'s; the library checks the ranges.
 */
public final class SurfaceParams {
  private float cellSize = 0.5f;
  private float smoothingRadius = 2.0f;
  private float isoLevel = 0.5f;
  private float anisotropy = 0.0f;

  /** @return the edge of the sampling grid's cells [spacings], 0.05 .. 4; default 0.5 */
  public float getCellSize() { return cellSize; }
  /** @param value cell edge [spacings]; smaller is finer and slower (work grows as its inverse cube) @return this */
  public SurfaceParams setCellSize(float value) { cellSize = value; return this; }
  /** @return the reach of each particle's contribution [spacings], 1 .. 5; default 2 */
  public float getSmoothingRadius() { return smoothingRadius; }
  /** @param value reach [spacings]; larger is smoother @return this */
  public SurfaceParams setSmoothingRadius(float value) { smoothingRadius = value; return this; }
  /** @return the surface's level as a fraction of the field inside the liquid at rest, in (0, 1); default 0.5 */
  public float getIsoLevel() { return isoLevel; }
  /** @param value level, strictly between 0 and 1 @return this */
  public SurfaceParams setIsoLevel(float value) { isoLevel = value; return this; }

  /** @return 0 .. 1; default 0 (round kernels); above 0 kernels follow the neighbours (Yu &amp; Turk 2013) */
  public float getAnisotropy() { return anisotropy; }
  /** @param value 0 .. 1; flatter free surfaces at about 14 times the build time @return this */
  public SurfaceParams setAnisotropy(float value) { anisotropy = value; return this; }

  NativeSurfaceParams toNative() {
    NativeSurfaceParams p = PbfNative.pbf_surface_params_default();
    p.setCell_size(cellSize);
    p.setSmoothing_radius(smoothingRadius);
    p.setIso_level(isoLevel);
    p.setAnisotropy(anisotropy);
    return p;
  }
}
