// SolverDesc.java - what is fixed when a solver is created (pbf_solver_desc).
package pbf;

/**
 * Capacities and the fluid's resolution, fixed for a solver's lifetime. A new
 * instance holds the defaults of {@code pbf_solver_desc_default()}; SI units.
 * Setters return {@code this} so that calls chain; counts reject negative
 * values, and the library checks every range when the solver is created.
 */
public final class SolverDesc implements Cloneable {
  private Backend backend = Backend.AUTO;
  private Method method = Method.PBF;
  private int deviceIndex = 0;
  private int maxParticles = 1000000;
  private float particleSpacing = 0.025f;
  private float kernelRadius = 0.0f;
  private float restDensity = 1000.0f;
  private float[] domainMin = {0.0f, 0.0f, 0.0f};
  private float[] domainMax = {1.0f, 1.0f, 1.0f};
  private int threadCount = 0;
  private int maxNeighbors = 0;

  /** @return where to run; default {@link Backend#AUTO} (CUDA when usable, else CPU) */
  public Backend getBackend() { return backend; }
  /** @param value where to run @return this */
  public SolverDesc setBackend(Backend value) { backend = Checks.nonNull(value, "backend"); return this; }

  /** @return the GPU ordinal for {@link Backend#CUDA}; default 0 */
  public int getDeviceIndex() { return deviceIndex; }
  /** @param value GPU ordinal, &gt;= 0 @return this */
  public SolverDesc setDeviceIndex(int value) { deviceIndex = value; return this; }

  /** @return the particle capacity, 1 .. 2^28; default 1,000,000 */
  public int getMaxParticles() { return maxParticles; }
  /** @param value particle capacity; memory grows with the particles added, not with it @return this */
  public SolverDesc setMaxParticles(int value) { maxParticles = Checks.count(value, "maxParticles"); return this; }

  /** @return the rest distance between particles [m]; default 0.025 */
  public float getParticleSpacing() { return particleSpacing; }
  /** @param value rest distance between particles [m], &gt; 0 @return this */
  public SolverDesc setParticleSpacing(float value) { particleSpacing = value; return this; }

  /** @return the SPH smoothing radius h [m], 0 = 2 x spacing; default 0 */
  public float getKernelRadius() { return kernelRadius; }
  /** @param value 0 (= 2 x spacing), or in (spacing, 5 x spacing] [m] @return this */
  public SolverDesc setKernelRadius(float value) { kernelRadius = value; return this; }

  /** @return the rest density rho0 [kg/m^3]; default 1000 (water) */
  public float getRestDensity() { return restDensity; }
  /** @param value rest density [kg/m^3], &gt; 0 @return this */
  public SolverDesc setRestDensity(float value) { restDensity = value; return this; }

  /** @return a copy of the lower corner of the domain box [m]; default (0, 0, 0) */
  public float[] getDomainMin() { return domainMin.clone(); }
  /** @param x lower corner x [m] @param y lower corner y [m] @param z lower corner z [m] @return this */
  public SolverDesc setDomainMin(float x, float y, float z) { domainMin = new float[] {x, y, z}; return this; }

  /** @return a copy of the upper corner of the domain box [m]; default (1, 1, 1) */
  public float[] getDomainMax() { return domainMax.clone(); }
  /**
   * @param x upper corner x [m], at least domain min + 2 x spacing
   * @param y upper corner y [m]
   * @param z upper corner z [m]
   * @return this
   */
  public SolverDesc setDomainMax(float x, float y, float z) { domainMax = new float[] {x, y, z}; return this; }

  /** @return CPU worker threads, 0 = all hardware threads; default 0 */
  public int getThreadCount() { return threadCount; }
  /** @param value 0 = all hardware threads, else 1 .. 1024; results do not depend on it @return this */
  public SolverDesc setThreadCount(int value) { threadCount = value; return this; }

  /** @return neighbours kept per particle, 0 = chosen from the kernel radius; default 0 */
  public int getMaxNeighbors() { return maxNeighbors; }
  /** @param value 0 = automatic, else 8 .. 1024; a particle with more keeps the nearest @return this */
  public SolverDesc setMaxNeighbors(int value) { maxNeighbors = Checks.count(value, "maxNeighbors"); return this; }

  /** @return the simulation method; default {@link Method#PBF} */
  public Method getMethod() { return method; }
  /** @param value the simulation method; it also sets the particle mass @return this */
  public SolverDesc setMethod(Method value) { method = Checks.nonNull(value, "method"); return this; }

  /** @return a copy */
  @Override
  public SolverDesc clone() {
    try {
      SolverDesc copy = (SolverDesc) super.clone();
      copy.domainMin = domainMin.clone();
      copy.domainMax = domainMax.clone();
      return copy;
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  /** The C struct, from pbf_solver_desc_default() so that struct_size is the library's; delete() it. */
  NativeSolverDesc toNative() {
    NativeSolverDesc d = PbfNative.pbf_solver_desc_default();
    d.setBackend(backend);
    d.setMethod(method);
    d.setDevice_index(deviceIndex);
    d.setMax_particles(maxParticles);
    d.setParticle_spacing(particleSpacing);
    d.setKernel_radius(kernelRadius);
    d.setRest_density(restDensity);
    d.setDomain_min(domainMin);
    d.setDomain_max(domainMax);
    d.setThread_count(threadCount);
    d.setMax_neighbors(maxNeighbors);
    return d;
  }

  static SolverDesc fromNative(NativeSolverDesc d) {
    SolverDesc desc = new SolverDesc();
    desc.backend = d.getBackend();
    desc.method = d.getMethod();
    desc.deviceIndex = d.getDevice_index();
    desc.maxParticles = (int) d.getMax_particles();
    desc.particleSpacing = d.getParticle_spacing();
    desc.kernelRadius = d.getKernel_radius();
    desc.restDensity = d.getRest_density();
    desc.domainMin = d.getDomain_min();
    desc.domainMax = d.getDomain_max();
    desc.threadCount = d.getThread_count();
    desc.maxNeighbors = (int) d.getMax_neighbors();
    return desc;
  }
}
