// SolverStats.java - what the last step did (pbf_stats).
package pbf;

/**
 * Statistics of the last {@link Solver#step}. Density error is the compression
 * (rho - rho0) / rho0 where positive (0.01 = 1 %). Times are wall-clock
 * milliseconds summed over the substeps. All zero before the first step.
 */
public final class SolverStats {
  private int particleCount;
  private int substeps;
  private int iterations;
  private float avgDensityError;
  private float maxDensityError;
  private float avgNeighbors;
  private int maxNeighbors;
  private int neighborOverflows;
  private float maxSpeed;
  private int localGlobalIterations;
  private int cgIterations;
  private float cgResidual;
  private float minSubstepDt;
  private float maxSubstepDt;
  private int densityIterations;
  private double timeTotalMs;
  private double timePredictMs;
  private double timeGridMs;
  private double timeNeighborsMs;
  private double timeConstraintsMs;
  private double timeVelocityMs;
  private double timeVorticityViscosityMs;

  private SolverStats() {}

  /** @return particles stepped */
  public int getParticleCount() { return particleCount; }
  /** @return substeps of the last step */
  public int getSubsteps() { return substeps; }
  /** @return density iterations a substep may run at most */
  public int getIterations() { return iterations; }
  /** @return mean compression after the last substep */
  public float getAvgDensityError() { return avgDensityError; }
  /** @return largest compression after the last substep */
  public float getMaxDensityError() { return maxDensityError; }
  /** @return mean neighbours kept per particle (self excluded) */
  public float getAvgNeighbors() { return avgNeighbors; }
  /** @return largest neighbour count kept */
  public int getMaxNeighbors() { return maxNeighbors; }
  /** @return particles that had more neighbours than the solver keeps (each kept its nearest) */
  public int getNeighborOverflows() { return neighborOverflows; }
  /** @return largest particle speed after the step [m/s] */
  public float getMaxSpeed() { return maxSpeed; }
  /** @return the whole step [ms] */
  public double getTimeTotalMs() { return timeTotalMs; }
  /** @return external forces and prediction [ms] */
  public double getTimePredictMs() { return timePredictMs; }
  /** @return neighbour grid: cell sort and reordering [ms] */
  public double getTimeGridMs() { return timeGridMs; }
  /** @return neighbour lists [ms] */
  public double getTimeNeighborsMs() { return timeNeighborsMs; }
  /** @return density iterations, including collisions [ms] */
  public double getTimeConstraintsMs() { return timeConstraintsMs; }
  /** @return velocity update and density for statistics [ms] */
  public double getTimeVelocityMs() { return timeVelocityMs; }
  /** @return vorticity confinement and XSPH viscosity [ms] */
  public double getTimeVorticityViscosityMs() { return timeVorticityViscosityMs; }
  /** @return Projective Fluids: local/global iterations, summed over the substeps. */
  public int getLocalGlobalIterations() { return localGlobalIterations; }
  /** @return Projective Fluids: conjugate-gradient iterations, summed over the step. */
  public int getCgIterations() { return cgIterations; }
  /** @return Projective Fluids: residual of the last global solve relative to its first. */
  public float getCgResidual() { return cgResidual; }
  /** @return Projective Fluids: smallest step taken [s]. */
  public float getMinSubstepDt() { return minSubstepDt; }
  /** @return Projective Fluids: largest step taken [s]. */
  public float getMaxSubstepDt() { return maxSubstepDt; }
  /** @return density iterations run, summed over the substeps (PBF; Projective Fluids: as localGlobalIterations). */
  public int getDensityIterations() { return densityIterations; }

  static SolverStats fromNative(NativeStats s) {
    SolverStats stats = new SolverStats();
    stats.particleCount = (int) s.getParticle_count();
    stats.substeps = (int) s.getSubsteps();
    stats.iterations = (int) s.getIterations();
    stats.avgDensityError = s.getAvg_density_error();
    stats.maxDensityError = s.getMax_density_error();
    stats.avgNeighbors = s.getAvg_neighbors();
    stats.maxNeighbors = (int) s.getMax_neighbors();
    stats.neighborOverflows = (int) s.getNeighbor_overflows();
    stats.maxSpeed = s.getMax_speed();
    stats.timeTotalMs = s.getTime_total_ms();
    stats.timePredictMs = s.getTime_predict_ms();
    stats.timeGridMs = s.getTime_grid_ms();
    stats.timeNeighborsMs = s.getTime_neighbors_ms();
    stats.timeConstraintsMs = s.getTime_constraints_ms();
    stats.timeVelocityMs = s.getTime_velocity_ms();
    stats.timeVorticityViscosityMs = s.getTime_vorticity_viscosity_ms();
    stats.localGlobalIterations = (int) s.getLocal_global_iterations();
    stats.cgIterations = (int) s.getCg_iterations();
    stats.cgResidual = s.getCg_residual();
    stats.minSubstepDt = s.getMin_substep_dt();
    stats.maxSubstepDt = s.getMax_substep_dt();
    stats.densityIterations = (int) s.getDensity_iterations();
    return stats;
  }
}
