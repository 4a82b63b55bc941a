// SolverStats.cs - what the last step did (pbf_stats).
namespace Pbf {

/// <summary>
/// Statistics of the last <see cref="Solver.Step(float, uint)"/>. Density error is the
/// compression (rho - rho0) / rho0 where positive (0.01 = 1 %). Times are
/// wall-clock milliseconds summed over the substeps. All zero before the first step.
/// </summary>
public sealed class SolverStats {
  /// <summary>Particles stepped.</summary>
  public uint ParticleCount { get; private set; }
  /// <summary>Substeps of the last step.</summary>
  public uint Substeps { get; private set; }
  /// <summary>Density iterations a substep may run at most (DensityIterations says how many ran).</summary>
  public uint Iterations { get; private set; }
  /// <summary>Mean compression after the last substep.</summary>
  public float AvgDensityError { get; private set; }
  /// <summary>Largest compression after the last substep.</summary>
  public float MaxDensityError { get; private set; }
  /// <summary>Mean neighbours kept per particle (self excluded).</summary>
  public float AvgNeighbors { get; private set; }
  /// <summary>Largest neighbour count kept.</summary>
  public uint MaxNeighbors { get; private set; }
  /// <summary>Particles that had more neighbours than the solver keeps (each kept its nearest).</summary>
  public uint NeighborOverflows { get; private set; }
  /// <summary>Largest particle speed after the step [m/s].</summary>
  public float MaxSpeed { get; private set; }
  /// <summary>The whole step [ms].</summary>
  public double TimeTotalMs { get; private set; }
  /// <summary>External forces and prediction [ms].</summary>
  public double TimePredictMs { get; private set; }
  /// <summary>Neighbour grid: cell sort and reordering [ms].</summary>
  public double TimeGridMs { get; private set; }
  /// <summary>Neighbour lists [ms].</summary>
  public double TimeNeighborsMs { get; private set; }
  /// <summary>Density iterations, including collisions [ms].</summary>
  public double TimeConstraintsMs { get; private set; }
  /// <summary>Velocity update and density for statistics [ms].</summary>
  public double TimeVelocityMs { get; private set; }
  /// <summary>Vorticity confinement and XSPH viscosity [ms].</summary>
  public double TimeVorticityViscosityMs { get; private set; }
  /// <summary>Projective Fluids: local/global iterations, summed over the substeps.</summary>
  public uint LocalGlobalIterations { get; private set; }
  /// <summary>Projective Fluids: conjugate-gradient iterations, summed over the step.</summary>
  public uint CgIterations { get; private set; }
  /// <summary>Projective Fluids: residual of the last global solve relative to its first.</summary>
  public float CgResidual { get; private set; }
  /// <summary>Projective Fluids: smallest step taken [s].</summary>
  public float MinSubstepDt { get; private set; }
  /// <summary>Projective Fluids: largest step taken [s].</summary>
  public float MaxSubstepDt { get; private set; }
  /// <summary>Density iterations run, summed over the substeps (PBF; Projective Fluids: as LocalGlobalIterations).</summary>
  public uint DensityIterations { get; private set; }

  internal static SolverStats FromNative(NativeStats s) {
    return new SolverStats {
      ParticleCount = s.particle_count,
      Substeps = s.substeps,
      Iterations = s.iterations,
      AvgDensityError = s.avg_density_error,
      MaxDensityError = s.max_density_error,
      AvgNeighbors = s.avg_neighbors,
      MaxNeighbors = s.max_neighbors,
      NeighborOverflows = s.neighbor_overflows,
      MaxSpeed = s.max_speed,
      TimeTotalMs = s.time_total_ms,
      TimePredictMs = s.time_predict_ms,
      TimeGridMs = s.time_grid_ms,
      TimeNeighborsMs = s.time_neighbors_ms,
      TimeConstraintsMs = s.time_constraints_ms,
      TimeVelocityMs = s.time_velocity_ms,
      TimeVorticityViscosityMs = s.time_vorticity_viscosity_ms,
      LocalGlobalIterations = s.local_global_iterations,
      CgIterations = s.cg_iterations,
      CgResidual = s.cg_residual,
      MinSubstepDt = s.min_substep_dt,
      MaxSubstepDt = s.max_substep_dt,
      DensityIterations = s.density_iterations,
    };
  }
}

}  // namespace Pbf
