// SolverDesc.cs - what is fixed when a solver is created (pbf_solver_desc).
using System;

namespace Pbf {

/// <summary>
/// Capacities and the fluid's resolution, fixed for a solver's lifetime. A new
/// instance holds the defaults of pbf_solver_desc_default(); SI units. The
/// library checks every value when the solver is created.
/// </summary>
public sealed class SolverDesc {
  /// <summary>Where to run; default <see cref="Backend.Auto"/> (CUDA when usable, else CPU).</summary>
  public Backend Backend { get; set; } = Backend.Auto;

  /// <summary>GPU ordinal for <see cref="Backend.Cuda"/>, &gt;= 0; default 0.</summary>
  public int DeviceIndex { get; set; } = 0;

  /// <summary>Particle capacity, 1 .. 2^28; default 1,000,000. Memory grows with the particles added.</summary>
  public uint MaxParticles { get; set; } = 1000000u;

  /// <summary>Rest distance between particles [m], &gt; 0; default 0.025.</summary>
  public float ParticleSpacing { get; set; } = 0.025f;

  /// <summary>SPH smoothing radius h [m]; 0 = 2 x spacing, else (spacing, 5 x spacing]; default 0.</summary>
  public float KernelRadius { get; set; } = 0.0f;

  /// <summary>Rest density rho0 [kg/m^3], &gt; 0; default 1000 (water).</summary>
  public float RestDensity { get; set; } = 1000.0f;

  /// <summary>Lower corner of the box the fluid is kept in [m], 3 floats; default (0, 0, 0).</summary>
  public float[] DomainMin { get; set; } = { 0.0f, 0.0f, 0.0f };

  /// <summary>Upper corner [m], 3 floats, each at least DomainMin + 2 x spacing; default (1, 1, 1).</summary>
  public float[] DomainMax { get; set; } = { 1.0f, 1.0f, 1.0f };

  /// <summary>CPU worker threads, 0 = all hardware threads, else 1 .. 1024; default 0. Results do not depend on it.</summary>
  public int ThreadCount { get; set; } = 0;

  /// <summary>Neighbours kept per particle, 0 = chosen from the kernel radius, else 8 .. 1024; default 0. A particle with more keeps the nearest (<see cref="SolverStats.NeighborOverflows"/> counts them).</summary>
  public uint MaxNeighbors { get; set; } = 0u;

  /// <summary>The simulation method; default <see cref="Method.Pbf"/>. It also sets the particle mass.</summary>
  public Method Method { get; set; } = Method.Pbf;

  /// <summary>A copy with its own arrays.</summary>
  public SolverDesc Clone() {
    var copy = (SolverDesc)MemberwiseClone();
    copy.DomainMin = (float[])Vec3(DomainMin, "DomainMin").Clone();
    copy.DomainMax = (float[])Vec3(DomainMax, "DomainMax").Clone();
    return copy;
  }

  internal NativeSolverDesc ToNative() {
    float[] lo = Vec3(DomainMin, "DomainMin"), hi = Vec3(DomainMax, "DomainMax");
    NativeSolverDesc d = NativeSolverDesc.Sized();
    d.backend = (int)Backend;
    d.device_index = DeviceIndex;
    d.max_particles = MaxParticles;
    d.particle_spacing = ParticleSpacing;
    d.kernel_radius = KernelRadius;
    d.rest_density = RestDensity;
    d.domain_min_x = lo[0]; d.domain_min_y = lo[1]; d.domain_min_z = lo[2];
    d.domain_max_x = hi[0]; d.domain_max_y = hi[1]; d.domain_max_z = hi[2];
    d.thread_count = ThreadCount;
    d.max_neighbors = MaxNeighbors;
    d.method = (int)Method;
    return d;
  }

  internal static SolverDesc FromNative(NativeSolverDesc d) {
    return new SolverDesc {
      Backend = (Backend)d.backend,
      DeviceIndex = d.device_index,
      MaxParticles = d.max_particles,
      ParticleSpacing = d.particle_spacing,
      KernelRadius = d.kernel_radius,
      RestDensity = d.rest_density,
      DomainMin = new[] { d.domain_min_x, d.domain_min_y, d.domain_min_z },
      DomainMax = new[] { d.domain_max_x, d.domain_max_y, d.domain_max_z },
      ThreadCount = d.thread_count,
      MaxNeighbors = d.max_neighbors,
      Method = (Method)d.method,
    };
  }

  /// <summary>Checks that a vector property holds exactly 3 floats.</summary>
  internal static float[] Vec3(float[] v, string name) {
    if (v == null) throw new ArgumentNullException(name);
    if (v.Length != 3) throw new ArgumentException(name + " must hold 3 floats, not " + v.Length, name);
    return v;
  }
}

}  // namespace Pbf
