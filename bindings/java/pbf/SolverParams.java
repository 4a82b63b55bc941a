// SolverParams.java - the physics that may change between steps (pbf_params).
package pbf;

/**
 * Tunable physics, applied from the next step by {@link Solver#setParams}. A new
 * instance holds the defaults of {@code pbf_params_default()}, which follow
 * Macklin and Mueller (2013). A feature whose strength is 0 is switched off.
 * The library checks every value; an invalid one leaves the solver's
 * parameters unchanged. Setters return {@code this}.
 */
public final class SolverParams implements Cloneable {
  private float[] gravity = {0.0f, -9.81f, 0.0f};
  private int iterations = 4;
  private float relaxation = 0.01f;
  private boolean unilateral = true;
  private float artificialPressureK = 0.1f;
  private float artificialPressureN = 4.0f;
  private float artificialPressureDq = 0.2f;
  private float xsphViscosity = 0.01f;
  private float vorticityEpsilon = 0.01f;
  private float restitution = 0.0f;
  private float friction = 0.0f;
  private float maxSpeed = 100.0f;
  private float projectiveStiffness = 1.0e6f;
  private int projectiveIterations = 30;
  private float projectiveTolerance = 1.0e-4f;
  private int cgMaxIterations = 100;
  private float cgTolerance = 1.0e-4f;
  private int newtonIterations = 5;
  private float newtonTolerance = 1.0e-5f;
  private boolean adaptiveDt = true;
  private float cflNumber = 0.4f;
  private float maxDt = 0.005f;
  private float projectiveChebyshevRho = 0.98f;
  private float densityTolerance = 0.001f;
  private int maxIterations = 20;

  /** @return a copy of the body acceleration [m/s^2]; default (0, -9.81, 0) */
  public float[] getGravity() { return gravity.clone(); }
  /** @param x acceleration x [m/s^2] @param y acceleration y @param z acceleration z @return this */
  public SolverParams setGravity(float x, float y, float z) { gravity = new float[] {x, y, z}; return this; }

  /** @return density-constraint iterations per substep; default 4 */
  public int getIterations() { return iterations; }
  /** @param value iterations per substep, 1 .. 100 @return this */
  public SolverParams setIterations(int value) { iterations = Checks.count(value, "iterations"); return this; }

  /** @return the constraint-force mixing epsilon of eq. 11 (relative); default 0.01 */
  public float getRelaxation() { return relaxation; }
  /** @param value relaxation, 0 .. 100 @return this */
  public SolverParams setRelaxation(float value) { relaxation = value; return this; }

  /** @return true when only compression is corrected; default true */
  public boolean isUnilateral() { return unilateral; }
  /** @param value false = the paper's two-sided constraint @return this */
  public SolverParams setUnilateral(boolean value) { unilateral = value; return this; }

  /** @return k of the artificial pressure s_corr (eq. 13); default 0.1 */
  public float getArtificialPressureK() { return artificialPressureK; }
  /** @param value k, 0 .. 1, 0 = off @return this */
  public SolverParams setArtificialPressureK(float value) { artificialPressureK = value; return this; }

  /** @return the exponent n of s_corr; default 4 */
  public float getArtificialPressureN() { return artificialPressureN; }
  /** @param value n, 1 .. 8 @return this */
  public SolverParams setArtificialPressureN(float value) { artificialPressureN = value; return this; }

  /** @return |dq| of s_corr as a fraction of the kernel radius; default 0.2 */
  public float getArtificialPressureDq() { return artificialPressureDq; }
  /** @param value |dq| / h, 0 .. 0.9 @return this */
  public SolverParams setArtificialPressureDq(float value) { artificialPressureDq = value; return this; }

  /** @return the XSPH viscosity c (eq. 17); default 0.01 */
  public float getXsphViscosity() { return xsphViscosity; }
  /** @param value c, 0 .. 1, 0 = off @return this */
  public SolverParams setXsphViscosity(float value) { xsphViscosity = value; return this; }

  /** @return the vorticity confinement epsilon (eq. 16) [m/s]; default 0.01 */
  public float getVorticityEpsilon() { return vorticityEpsilon; }
  /** @param value epsilon, 0 .. 10, 0 = off @return this */
  public SolverParams setVorticityEpsilon(float value) { vorticityEpsilon = value; return this; }

  /** @return the normal bounce off walls and planes; default 0 */
  public float getRestitution() { return restitution; }
  /** @param value restitution, 0 .. 1 @return this */
  public SolverParams setRestitution(float value) { restitution = value; return this; }

  /** @return the Coulomb friction against walls and planes; default 0 */
  public float getFriction() { return friction; }
  /** @param value friction, 0 .. 10 @return this */
  public SolverParams setFriction(float value) { friction = value; return this; }

  /** @return the speed particles are clamped to [m/s]; default 100 */
  public float getMaxSpeed() { return maxSpeed; }
  /** @param value speed limit [m/s], &gt; 0 @return this */
  public SolverParams setMaxSpeed(float value) { maxSpeed = value; return this; }

  /** @return Projective Fluids: weight w of every density constraint [N/m], 1 .. 1e9; default 1e6. Water needs
   *  it well above rest density x g x depth x spacing (docs/PHYSICS.md §7, "The low end of w"). */
  public float getProjectiveStiffness() { return projectiveStiffness; }
  /** @param value see the getter @return this */
  public SolverParams setProjectiveStiffness(float value) { projectiveStiffness = value; return this; }

  /** @return Projective Fluids: local/global iterations per substep at most, 1 .. 1000; default 30. */
  public int getProjectiveIterations() { return projectiveIterations; }
  /** @param value see the getter @return this */
  public SolverParams setProjectiveIterations(int value) { projectiveIterations = Checks.count(value, "projectiveIterations"); return this; }

  /** @return Projective Fluids: mean compression that ends the iterations, 0 .. 1; default 1e-4. */
  public float getProjectiveTolerance() { return projectiveTolerance; }
  /** @param value see the getter @return this */
  public SolverParams setProjectiveTolerance(float value) { projectiveTolerance = value; return this; }

  /** @return Projective Fluids: conjugate-gradient iterations per global step at most, 1 .. 10000; default 100. */
  public int getCgMaxIterations() { return cgMaxIterations; }
  /** @param value see the getter @return this */
  public SolverParams setCgMaxIterations(int value) { cgMaxIterations = Checks.count(value, "cgMaxIterations"); return this; }

  /** @return Projective Fluids: residual reduction that ends a global solve, (0, 1]; default 1e-4. */
  public float getCgTolerance() { return cgTolerance; }
  /** @param value see the getter @return this */
  public SolverParams setCgTolerance(float value) { cgTolerance = value; return this; }

  /** @return Projective Fluids: Newton steps per constraint projection at most, 1 .. 100; default 5. */
  public int getNewtonIterations() { return newtonIterations; }
  /** @param value see the getter @return this */
  public SolverParams setNewtonIterations(int value) { newtonIterations = Checks.count(value, "newtonIterations"); return this; }

  /** @return Projective Fluids: constraint value that ends a projection, 0 .. 1; default 1e-5. */
  public float getNewtonTolerance() { return newtonTolerance; }
  /** @param value see the getter @return this */
  public SolverParams setNewtonTolerance(float value) { newtonTolerance = value; return this; }

  /** @return both methods: split substeps as the CFL condition asks; default true. */
  public boolean getAdaptiveDt() { return adaptiveDt; }
  /** @param value see the getter @return this */
  public SolverParams setAdaptiveDt(boolean value) { adaptiveDt = value; return this; }

  /** @return both methods: fraction of a spacing a particle may travel per substep, (0, 1]; default 0.4. */
  public float getCflNumber() { return cflNumber; }
  /** @param value see the getter @return this */
  public SolverParams setCflNumber(float value) { cflNumber = value; return this; }

  /** @return Projective Fluids: the largest adaptive step [s], 1e-6 .. 1; default 0.005. */
  public float getMaxDt() { return maxDt; }
  /** @param value see the getter @return this */
  public SolverParams setMaxDt(float value) { maxDt = value; return this; }

  /** @return Projective Fluids: spectral radius estimate for Chebyshev acceleration, 0 .. 0.98, 0 = off; default 0.98. */
  public float getProjectiveChebyshevRho() { return projectiveChebyshevRho; }
  /** @param value see the getter @return this */
  public SolverParams setProjectiveChebyshevRho(float value) { projectiveChebyshevRho = value; return this; }

  /**
   * @return PBF: after the first {@code iterations} density iterations of a substep, more run until the mean
   *     compression an iteration starts from is at most this, 0 .. 1, 0 = exactly {@code iterations}; default 0.001.
   */
  public float getDensityTolerance() { return densityTolerance; }
  /** @param value see the getter @return this */
  public SolverParams setDensityTolerance(float value) { densityTolerance = value; return this; }

  /** @return PBF: the most density iterations a substep runs with densityTolerance, 1 .. 1000; default 20. */
  public int getMaxIterations() { return maxIterations; }
  /** @param value see the getter @return this */
  public SolverParams setMaxIterations(int value) { maxIterations = Checks.count(value, "maxIterations"); return this; }

  /** @return a copy */
  @Override
  public SolverParams clone() {
    try {
      SolverParams copy = (SolverParams) super.clone();
      copy.gravity = gravity.clone();
      return copy;
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  /** The C struct, from pbf_params_default() so that struct_size is the library's; delete() it. */
  NativeParams toNative() {
    NativeParams p = PbfNative.pbf_params_default();
    p.setGravity(gravity);
    p.setIterations(iterations);
    p.setRelaxation(relaxation);
    p.setUnilateral(unilateral ? 1 : 0);
    p.setArtificial_pressure_k(artificialPressureK);
    p.setArtificial_pressure_n(artificialPressureN);
    p.setArtificial_pressure_dq(artificialPressureDq);
    p.setXsph_viscosity(xsphViscosity);
    p.setVorticity_epsilon(vorticityEpsilon);
    p.setRestitution(restitution);
    p.setFriction(friction);
    p.setMax_speed(maxSpeed);
    p.setProjective_stiffness(projectiveStiffness);
    p.setProjective_iterations(projectiveIterations);
    p.setProjective_tolerance(projectiveTolerance);
    p.setCg_max_iterations(cgMaxIterations);
    p.setCg_tolerance(cgTolerance);
    p.setNewton_iterations(newtonIterations);
    p.setNewton_tolerance(newtonTolerance);
    p.setAdaptive_dt(adaptiveDt ? 1 : 0);
    p.setCfl_number(cflNumber);
    p.setMax_dt(maxDt);
    p.setProjective_chebyshev_rho(projectiveChebyshevRho);
    p.setDensity_tolerance(densityTolerance);
    p.setMax_iterations(maxIterations);
    return p;
  }

  static SolverParams fromNative(NativeParams p) {
    SolverParams params = new SolverParams();
    params.gravity = p.getGravity();
    params.iterations = (int) p.getIterations();
    params.relaxation = p.getRelaxation();
    params.unilateral = p.getUnilateral() != 0;
    params.artificialPressureK = p.getArtificial_pressure_k();
    params.artificialPressureN = p.getArtificial_pressure_n();
    params.artificialPressureDq = p.getArtificial_pressure_dq();
    params.xsphViscosity = p.getXsph_viscosity();
    params.vorticityEpsilon = p.getVorticity_epsilon();
    params.restitution = p.getRestitution();
    params.friction = p.getFriction();
    params.maxSpeed = p.getMax_speed();
    params.projectiveStiffness = p.getProjective_stiffness();
    params.projectiveIterations = (int) p.getProjective_iterations();
    params.projectiveTolerance = p.getProjective_tolerance();
    params.cgMaxIterations = (int) p.getCg_max_iterations();
    params.cgTolerance = p.getCg_tolerance();
    params.newtonIterations = (int) p.getNewton_iterations();
    params.newtonTolerance = p.getNewton_tolerance();
    params.adaptiveDt = p.getAdaptive_dt() != 0;
    params.cflNumber = p.getCfl_number();
    params.maxDt = p.getMax_dt();
    params.projectiveChebyshevRho = p.getProjective_chebyshev_rho();
    params.densityTolerance = p.getDensity_tolerance();
    params.maxIterations = (int) p.getMax_iterations();
    return params;
  }
}
