// SolverParams.cs - the physics that may change between steps (pbf_params).
namespace Pbf {

/// <summary>
/// Tunable physics, applied from the next step by <see cref="Solver.SetParams"/>.
/// A new instance holds the defaults of pbf_params_default(), which follow
/// Macklin and Mueller (2013). A feature whose strength is 0 is switched off.
/// The library checks every value; an invalid one leaves the solver's
/// parameters unchanged.
/// </summary>
public sealed class SolverParams {
  /// <summary>Body acceleration [m/s^2], 3 floats; default (0, -9.81, 0).</summary>
  public float[] Gravity { get; set; } = { 0.0f, -9.81f, 0.0f };

  /// <summary>Density-constraint iterations per substep, 1 .. 100; default 4.</summary>
  public uint Iterations { get; set; } = 4u;

  /// <summary>Constraint-force mixing epsilon (eq. 11), relative, 0 .. 100; default 0.01.</summary>
  public float Relaxation { get; set; } = 0.01f;

  /// <summary>true = only compression is corrected; false = the paper's two-sided constraint; default true.</summary>
  public bool Unilateral { get; set; } = true;

  /// <summary>k of the artificial pressure s_corr (eq. 13), 0 .. 1, 0 = off; default 0.1.</summary>
  public float ArtificialPressureK { get; set; } = 0.1f;

  /// <summary>Exponent n of s_corr, 1 .. 8; default 4.</summary>
  public float ArtificialPressureN { get; set; } = 4.0f;

  /// <summary>|dq| of s_corr as a fraction of the kernel radius, 0 .. 0.9; default 0.2.</summary>
  public float ArtificialPressureDq { get; set; } = 0.2f;

  /// <summary>XSPH viscosity c (eq. 17), 0 .. 1, 0 = off; default 0.01.</summary>
  public float XsphViscosity { get; set; } = 0.01f;

  /// <summary>Vorticity confinement epsilon (eq. 16) [m/s], 0 .. 10, 0 = off; default 0.01.</summary>
  public float VorticityEpsilon { get; set; } = 0.01f;

  /// <summary>Normal bounce off walls and planes, 0 .. 1; default 0.</summary>
  public float Restitution { get; set; } = 0.0f;

  /// <summary>Coulomb friction against walls and planes, 0 .. 10; default 0.</summary>
  public float Friction { get; set; } = 0.0f;

  /// <summary>Particle speeds are clamped to this [m/s], &gt; 0; default 100.</summary>
  public float MaxSpeed { get; set; } = 100.0f;

  /// <summary>Projective Fluids: weight w of every density constraint [N/m], 1 .. 1e9; default 1e6. Water needs
  /// it well above rest density x g x depth x spacing (docs/PHYSICS.md §7, "The low end of w").</summary>
  public float ProjectiveStiffness { get; set; } = 1.0e6f;

  /// <summary>Projective Fluids: local/global iterations per substep at most, 1 .. 1000; default 30.</summary>
  public uint ProjectiveIterations { get; set; } = 30u;

  /// <summary>Projective Fluids: mean compression that ends the iterations, 0 .. 1; default 1e-4.</summary>
  public float ProjectiveTolerance { get; set; } = 1.0e-4f;

  /// <summary>Projective Fluids: conjugate-gradient iterations per global step at most, 1 .. 10000; default 100.</summary>
  public uint CgMaxIterations { get; set; } = 100u;

  /// <summary>Projective Fluids: residual reduction that ends a global solve, (0, 1]; default 1e-4.</summary>
  public float CgTolerance { get; set; } = 1.0e-4f;

  /// <summary>Projective Fluids: Newton steps per constraint projection at most, 1 .. 100; default 5.</summary>
  public uint NewtonIterations { get; set; } = 5u;

  /// <summary>Projective Fluids: constraint value that ends a projection, 0 .. 1; default 1e-5.</summary>
  public float NewtonTolerance { get; set; } = 1.0e-5f;

  /// <summary>Both methods: split substeps as the CFL condition asks; default true.</summary>
  public bool AdaptiveDt { get; set; } = true;

  /// <summary>Both methods: fraction of a spacing a particle may travel per substep, (0, 1]; default 0.4.</summary>
  public float CflNumber { get; set; } = 0.4f;

  /// <summary>Projective Fluids: the largest adaptive step [s], 1e-6 .. 1; default 0.005.</summary>
  public float MaxDt { get; set; } = 0.005f;

  /// <summary>Projective Fluids: spectral radius estimate for Chebyshev acceleration, 0 .. 0.98, 0 = off; default 0.98.</summary>
  public float ProjectiveChebyshevRho { get; set; } = 0.98f;

  /// <summary>PBF: after the first <see cref="Iterations"/> density iterations of a substep, more run until the
  /// mean compression an iteration starts from is at most this, 0 .. 1, 0 = exactly Iterations; default 0.001.</summary>
  public float DensityTolerance { get; set; } = 0.001f;

  /// <summary>PBF: the most density iterations a substep runs with DensityTolerance, 1 .. 1000; default 20.</summary>
  public uint MaxIterations { get; set; } = 20u;

  /// <summary>A copy with its own array.</summary>
  public SolverParams Clone() {
    var copy = (SolverParams)MemberwiseClone();
    copy.Gravity = (float[])SolverDesc.Vec3(Gravity, "Gravity").Clone();
    return copy;
  }

  internal NativeParams ToNative() {
    float[] g = SolverDesc.Vec3(Gravity, "Gravity");
    NativeParams p = NativeParams.Sized();
    p.gravity_x = g[0]; p.gravity_y = g[1]; p.gravity_z = g[2];
    p.iterations = Iterations;
    p.relaxation = Relaxation;
    p.unilateral = Unilateral ? 1 : 0;
    p.artificial_pressure_k = ArtificialPressureK;
    p.artificial_pressure_n = ArtificialPressureN;
    p.artificial_pressure_dq = ArtificialPressureDq;
    p.xsph_viscosity = XsphViscosity;
    p.vorticity_epsilon = VorticityEpsilon;
    p.restitution = Restitution;
    p.friction = Friction;
    p.max_speed = MaxSpeed;
    p.projective_stiffness = ProjectiveStiffness;
    p.projective_iterations = ProjectiveIterations;
    p.projective_tolerance = ProjectiveTolerance;
    p.cg_max_iterations = CgMaxIterations;
    p.cg_tolerance = CgTolerance;
    p.newton_iterations = NewtonIterations;
    p.newton_tolerance = NewtonTolerance;
    p.adaptive_dt = AdaptiveDt ? 1 : 0;
    p.cfl_number = CflNumber;
    p.max_dt = MaxDt;
    p.projective_chebyshev_rho = ProjectiveChebyshevRho;
    p.density_tolerance = DensityTolerance;
    p.max_iterations = MaxIterations;
    return p;
  }

  internal static SolverParams FromNative(NativeParams p) {
    return new SolverParams {
      Gravity = new[] { p.gravity_x, p.gravity_y, p.gravity_z },
      Iterations = p.iterations,
      Relaxation = p.relaxation,
      Unilateral = p.unilateral != 0,
      ArtificialPressureK = p.artificial_pressure_k,
      ArtificialPressureN = p.artificial_pressure_n,
      ArtificialPressureDq = p.artificial_pressure_dq,
      XsphViscosity = p.xsph_viscosity,
      VorticityEpsilon = p.vorticity_epsilon,
      Restitution = p.restitution,
      Friction = p.friction,
      MaxSpeed = p.max_speed,
      ProjectiveStiffness = p.projective_stiffness,
      ProjectiveIterations = p.projective_iterations,
      ProjectiveTolerance = p.projective_tolerance,
      CgMaxIterations = p.cg_max_iterations,
      CgTolerance = p.cg_tolerance,
      NewtonIterations = p.newton_iterations,
      NewtonTolerance = p.newton_tolerance,
      AdaptiveDt = p.adaptive_dt != 0,
      CflNumber = p.cfl_number,
      MaxDt = p.max_dt,
      ProjectiveChebyshevRho = p.projective_chebyshev_rho,
      DensityTolerance = p.density_tolerance,
      MaxIterations = p.max_iterations,
    };
  }
}

}  // namespace Pbf
