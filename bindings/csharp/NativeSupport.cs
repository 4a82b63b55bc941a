// NativeSupport.cs - what the generated low-level layer (PbfNative, NativeMethods)
// needs besides the C functions: the solver's SafeHandle, blittable mirrors of
// the C structs, and UTF-8 strings. Everything here is internal.
using System;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

// The binding's tests check the struct mirrors against the C layout.
[assembly: System.Runtime.CompilerServices.InternalsVisibleTo("PbfTests")]

namespace Pbf {

/// <summary>
/// Owns one pbf_solver*. The marshaller holds a reference while a call is in
/// flight, so a solver is never destroyed under a running step; the critical
/// finalizer destroys a solver that was never disposed.
/// </summary>
internal sealed class SolverHandle : SafeHandleZeroOrMinusOneIsInvalid {
  /// <summary>Called by the marshaller for the out parameter of pbf_solver_create.</summary>
  public SolverHandle() : base(true) {}

  /// <summary>Destroys the solver; runs once, on Dispose or on finalization.</summary>
  protected override bool ReleaseHandle() {
    return PbfNative.pbf_solver_destroy(handle) == Status.Ok;
  }
}

/// <summary>
/// Owns one pbf_sdf*, as <see cref="SolverHandle"/> owns a solver: kept alive
/// while a call uses it, destroyed once on Dispose or by the critical finalizer.
/// </summary>
internal sealed class SdfHandle : SafeHandleZeroOrMinusOneIsInvalid {
  /// <summary>Called by the marshaller for the out parameter of the pbf_sdf_* factories.</summary>
  public SdfHandle() : base(true) {}

  /// <summary>Destroys the field; runs once, on Dispose or on finalization.</summary>
  protected override bool ReleaseHandle() {
    return PbfNative.pbf_sdf_destroy(handle) == Status.Ok;
  }
}

/// <summary>
/// Owns a native pbf_surface, as <see cref="SdfHandle"/> owns a field.
/// </summary>
internal sealed class SurfaceHandle : SafeHandleZeroOrMinusOneIsInvalid {
  /// <summary>Called by the marshaller for the out parameter of pbf_surface_create.</summary>
  public SurfaceHandle() : base(true) {}

  /// <summary>Destroys the surface; runs once, on Dispose or on finalization.</summary>
  protected override bool ReleaseHandle() {
    return PbfNative.pbf_surface_destroy(handle) == Status.Ok;
  }
}

/// <summary>pbf_surface_params, field for field (32 bytes on 64-bit platforms).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct NativeSurfaceParams {
  public UIntPtr struct_size;
  public float cell_size;
  public float smoothing_radius;
  public float iso_level;
  public uint reserved;
  public float anisotropy;
}

/// <summary>pbf_solver_desc, field for field (72 bytes on 64-bit platforms).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct NativeSolverDesc {
  public UIntPtr struct_size;
  public int backend;
  public int device_index;
  public uint max_particles;
  public float particle_spacing;
  public float kernel_radius;
  public float rest_density;
  public float domain_min_x, domain_min_y, domain_min_z;
  public float domain_max_x, domain_max_y, domain_max_z;
  public int thread_count;
  public uint max_neighbors;
  public int method;

  /// <summary>A zeroed struct with struct_size set, as the library requires.</summary>
  public static NativeSolverDesc Sized() {
    var d = new NativeSolverDesc();
    d.struct_size = (UIntPtr)Marshal.SizeOf(typeof(NativeSolverDesc));
    return d;
  }
}

/// <summary>pbf_params, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct NativeParams {
  public UIntPtr struct_size;
  public float gravity_x, gravity_y, gravity_z;
  public uint iterations;
  public float relaxation;
  public int unilateral;
  public float artificial_pressure_k;
  public float artificial_pressure_n;
  public float artificial_pressure_dq;
  public float xsph_viscosity;
  public float vorticity_epsilon;
  public float restitution;
  public float friction;
  public float max_speed;
  public float projective_stiffness;
  public uint projective_iterations;
  public float projective_tolerance;
  public uint cg_max_iterations;
  public float cg_tolerance;
  public uint newton_iterations;
  public float newton_tolerance;
  public int adaptive_dt;
  public float cfl_number;
  public float max_dt;
  public float projective_chebyshev_rho;
  public uint reserved;
  public float density_tolerance;
  public uint max_iterations;

  /// <summary>A zeroed struct with struct_size set, as the library requires.</summary>
  public static NativeParams Sized() {
    var p = new NativeParams();
    p.struct_size = (UIntPtr)Marshal.SizeOf(typeof(NativeParams));
    return p;
  }
}

/// <summary>pbf_stats, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct NativeStats {
  public UIntPtr struct_size;
  public uint particle_count;
  public uint substeps;
  public uint iterations;
  public float avg_density_error;
  public float max_density_error;
  public float avg_neighbors;
  public uint max_neighbors;
  public uint neighbor_overflows;
  public float max_speed;
  public double time_total_ms;
  public double time_predict_ms;
  public double time_grid_ms;
  public double time_neighbors_ms;
  public double time_constraints_ms;
  public double time_velocity_ms;
  public double time_vorticity_viscosity_ms;
  public uint local_global_iterations;
  public uint cg_iterations;
  public float cg_residual;
  public float min_substep_dt;
  public float max_substep_dt;
  public uint density_iterations;

  /// <summary>A zeroed struct with struct_size set, as the library requires.</summary>
  public static NativeStats Sized() {
    var s = new NativeStats();
    s.struct_size = (UIntPtr)Marshal.SizeOf(typeof(NativeStats));
    return s;
  }
}

/// <summary>
/// The bulk copies of pbf.h again, declared by hand with a raw pointer (IntPtr) or a
/// reference to the first float (a span's) in place of the float[] that SWIG declares:
/// one C function may have only one generated declaration. Same functions, same ABI.
/// </summary>
internal static class NativeCopies {
  private const string Lib = "pbf";

  [DllImport(Lib, EntryPoint = "pbf_solver_get_positions")]
  public static extern Status GetPositions(SolverHandle solver, IntPtr out_, UIntPtr capacity);
  [DllImport(Lib, EntryPoint = "pbf_solver_get_velocities")]
  public static extern Status GetVelocities(SolverHandle solver, IntPtr out_, UIntPtr capacity);
  [DllImport(Lib, EntryPoint = "pbf_solver_get_densities")]
  public static extern Status GetDensities(SolverHandle solver, IntPtr out_, UIntPtr capacity);
  [DllImport(Lib, EntryPoint = "pbf_solver_set_positions")]
  public static extern Status SetPositions(SolverHandle solver, IntPtr positions, UIntPtr length);
  [DllImport(Lib, EntryPoint = "pbf_solver_set_velocities")]
  public static extern Status SetVelocities(SolverHandle solver, IntPtr velocities, UIntPtr length);

  [DllImport(Lib, EntryPoint = "pbf_solver_get_positions")]
  public static extern Status GetPositions(SolverHandle solver, ref float out_, UIntPtr capacity);
  [DllImport(Lib, EntryPoint = "pbf_solver_get_velocities")]
  public static extern Status GetVelocities(SolverHandle solver, ref float out_, UIntPtr capacity);
  [DllImport(Lib, EntryPoint = "pbf_solver_get_densities")]
  public static extern Status GetDensities(SolverHandle solver, ref float out_, UIntPtr capacity);
  [DllImport(Lib, EntryPoint = "pbf_solver_set_positions")]
  public static extern Status SetPositions(SolverHandle solver, ref float positions, UIntPtr length);
  [DllImport(Lib, EntryPoint = "pbf_solver_set_velocities")]
  public static extern Status SetVelocities(SolverHandle solver, ref float velocities, UIntPtr length);
}

/// <summary>The library's strings: constant or thread-local, NUL-terminated UTF-8.</summary>
internal static class Utf8 {
  /// <summary>Copies a C string into a managed one; "" for NULL.</summary>
  public static string FromNative(IntPtr text) {
    if (text == IntPtr.Zero) return "";
    int length = 0;
    while (Marshal.ReadByte(text, length) != 0) ++length;
    var bytes = new byte[length];
    Marshal.Copy(text, bytes, 0, length);
    return System.Text.Encoding.UTF8.GetString(bytes);
  }
}

}  // namespace Pbf
