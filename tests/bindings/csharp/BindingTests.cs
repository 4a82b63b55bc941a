// BindingTests.cs - the C# binding against the C library: defaults and struct
// layouts, a dam break compared bit for bit with the same run through the C
// API (binding_reference.c), and every backend.
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;

namespace Pbf.Tests {

/// <summary>What binding_reference wrote: facts.txt and dam_break.f32.</summary>
public static class Reference {
  static Dictionary<string, string> facts;

  /// <summary>A fact as written: decimal integers, floats as the hex of their bits.</summary>
  public static string Fact(string key) {
    if (facts == null) {
      facts = new Dictionary<string, string>();
      foreach (string line in File.ReadAllLines(Path.Combine(BindingTests.ReferenceDir, "facts.txt"))) {
        int eq = line.IndexOf('=');
        if (eq > 0) facts[line.Substring(0, eq)] = line.Substring(eq + 1);
      }
    }
    string value;
    if (!facts.TryGetValue(key, out value)) throw new TestFailure("facts.txt has no " + key);
    return value;
  }

  /// <summary>An integer fact.</summary>
  public static long Int(string key) { return long.Parse(Fact(key)); }

  /// <summary>A float fact, bit for bit.</summary>
  public static float Float(string key) {
    return BitConverter.ToSingle(BitConverter.GetBytes(Convert.ToUInt32(Fact(key), 16)), 0);
  }

  /// <summary>dam_break.f32: positions, velocities, densities of the C run.</summary>
  public static float[] DamBreak() {
    byte[] bytes = File.ReadAllBytes(Path.Combine(BindingTests.ReferenceDir, "dam_break.f32"));
    if (!BitConverter.IsLittleEndian) throw new TestFailure("the reference is little-endian");
    var values = new float[bytes.Length / 4];
    Buffer.BlockCopy(bytes, 0, values, 0, bytes.Length);
    return values;
  }

  /// <summary>Fails unless the arrays hold the same bits.</summary>
  public static void BitIdentical(float[] expected, int offset, float[] actual, string what) {
    var a = new int[actual.Length];
    var e = new int[actual.Length];
    Buffer.BlockCopy(actual, 0, a, 0, 4 * actual.Length);
    Buffer.BlockCopy(expected, 4 * offset, e, 0, 4 * actual.Length);
    int differ = 0, first = -1;
    for (int i = 0; i < a.Length; ++i)
      if (a[i] != e[i]) {
        if (first < 0) first = i;
        ++differ;
      }
    if (differ > 0)
      throw new TestFailure(what + ": " + differ + " of " + a.Length + " floats differ from the C run, first at [" +
                            first + "]: " + actual[first].ToString("R") + " != " +
                            expected[offset + first].ToString("R"));
  }
}

/// <summary>The binding against the C library itself.</summary>
public sealed class BindingTests {
  /// <summary>Where binding_reference wrote its files (the runner's first argument).</summary>
  public static string ReferenceDir;

  /// <summary>The scene of binding_reference.c, built through the binding.</summary>
  public static Solver DamBreakScene(Backend backend, int threads = 0) {
    var solver = new Solver(new SolverDesc {
      Backend = backend,
      ThreadCount = threads,
      ParticleSpacing = 0.05f,
      MaxParticles = 20000,
      DomainMax = new[] { 1.6f, 1.0f, 0.6f },
    });
    SolverParams p = solver.GetParams();
    p.Iterations = 3;
    p.XsphViscosity = 0.02f;
    p.VorticityEpsilon = 0.02f;
    p.Friction = 0.1f;
    solver.SetParams(p);
    solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.5f, 0.6f, 0.4f });
    var drop = new List<float>();
    var dropVelocity = new List<float>();
    for (int z = 0; z < 2; ++z)
      for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 2; ++x) {
          drop.AddRange(new[] { 1.2f + 0.05f * x, 0.7f + 0.05f * y, 0.2f + 0.05f * z });
          dropVelocity.AddRange(new[] { -1.0f, 0.0f, 0.5f });
        }
    solver.AddParticles(drop.ToArray(), dropVelocity.ToArray());
    solver.AddPlane(new[] { -1.0f, 0.2f, 0.0f }, 1.5f);
    return solver;
  }

  [Test]
  public void VersionOfTheLoadedLibraryIsTheBindingsVersion() {
    Expect.Equal(Library.BindingVersion, Library.Version, "pbf_version()");
    Expect.Equal((long)Library.BindingVersion, Reference.Int("version"), "PBF_VERSION of the C helper");
    uint v = Library.Version;
    Expect.Equal((v / 10000) + "." + (v / 100 % 100) + "." + (v % 100), Library.VersionString, "version string");
  }

  [Test]
  public void NativeStructsHaveTheCLayout() {
    Expect.Equal(Reference.Int("sizeof.pbf_solver_desc"), (long)Marshal.SizeOf(typeof(NativeSolverDesc)), "pbf_solver_desc");
    Expect.Equal(Reference.Int("sizeof.pbf_params"), (long)Marshal.SizeOf(typeof(NativeParams)), "pbf_params");
    Expect.Equal(Reference.Int("sizeof.pbf_stats"), (long)Marshal.SizeOf(typeof(NativeStats)), "pbf_stats");
    Expect.Equal(48L, (long)Marshal.OffsetOf(typeof(NativeStats), "time_total_ms"), "pbf_stats.time_total_ms offset");
  }

  [Test]
  public void DescriptionDefaultsAreTheCDefaults() {
    var d = new SolverDesc();
    Expect.Equal(Reference.Int("desc.backend"), (long)d.Backend, "Backend");
    Expect.Equal(Reference.Int("desc.device_index"), (long)d.DeviceIndex, "DeviceIndex");
    Expect.Equal(Reference.Int("desc.max_particles"), (long)d.MaxParticles, "MaxParticles");
    Expect.Equal(Reference.Float("desc.particle_spacing"), d.ParticleSpacing, "ParticleSpacing");
    Expect.Equal(Reference.Float("desc.kernel_radius"), d.KernelRadius, "KernelRadius");
    Expect.Equal(Reference.Float("desc.rest_density"), d.RestDensity, "RestDensity");
    for (int a = 0; a < 3; ++a) {
      Expect.Equal(Reference.Float("desc.domain_min." + a), d.DomainMin[a], "DomainMin[" + a + "]");
      Expect.Equal(Reference.Float("desc.domain_max." + a), d.DomainMax[a], "DomainMax[" + a + "]");
    }
    Expect.Equal(Reference.Int("desc.thread_count"), (long)d.ThreadCount, "ThreadCount");
    Expect.Equal(Reference.Int("desc.max_neighbors"), (long)d.MaxNeighbors, "MaxNeighbors");
  }

  [Test]
  public void ParameterDefaultsAreTheCDefaults() {
    var p = new SolverParams();
    for (int a = 0; a < 3; ++a) Expect.Equal(Reference.Float("params.gravity." + a), p.Gravity[a], "Gravity[" + a + "]");
    Expect.Equal(Reference.Int("params.iterations"), (long)p.Iterations, "Iterations");
    Expect.Equal(Reference.Float("params.relaxation"), p.Relaxation, "Relaxation");
    Expect.Equal(Reference.Int("params.unilateral") != 0, p.Unilateral, "Unilateral");
    Expect.Equal(Reference.Float("params.artificial_pressure_k"), p.ArtificialPressureK, "ArtificialPressureK");
    Expect.Equal(Reference.Float("params.artificial_pressure_n"), p.ArtificialPressureN, "ArtificialPressureN");
    Expect.Equal(Reference.Float("params.artificial_pressure_dq"), p.ArtificialPressureDq, "ArtificialPressureDq");
    Expect.Equal(Reference.Float("params.xsph_viscosity"), p.XsphViscosity, "XsphViscosity");
    Expect.Equal(Reference.Float("params.vorticity_epsilon"), p.VorticityEpsilon, "VorticityEpsilon");
    Expect.Equal(Reference.Float("params.restitution"), p.Restitution, "Restitution");
    Expect.Equal(Reference.Float("params.friction"), p.Friction, "Friction");
    Expect.Equal(Reference.Float("params.max_speed"), p.MaxSpeed, "MaxSpeed");
  }

  [Test]
  public void ANewSolverHasTheDefaultParameters() {
    using (var solver = new Solver()) {
      SolverParams p = solver.GetParams(), d = new SolverParams();
      Expect.Equal(d.Iterations, p.Iterations, "Iterations");
      Expect.Equal(d.Gravity[1], p.Gravity[1], "Gravity.y");
      Expect.Equal(d.VorticityEpsilon, p.VorticityEpsilon, "VorticityEpsilon");
      Expect.Equal(d.Unilateral, p.Unilateral, "Unilateral");
    }
  }

  [Test]
  public void DamBreakIsBitIdenticalToTheSameRunThroughTheCApi() {
    float[] expected = Reference.DamBreak();
    int n = (int)Reference.Int("dam_break.count");
    using (Solver solver = DamBreakScene(Backend.Cpu)) {
      for (int step = 0; step < 40; ++step) solver.Step(1.0f / 60.0f, 2);
      Expect.Equal(n, solver.ParticleCount, "particles");
      Expect.Equal(7 * n, expected.Length, "floats in dam_break.f32");
      Reference.BitIdentical(expected, 0, solver.GetPositions(), "positions");
      Reference.BitIdentical(expected, 3 * n, solver.GetVelocities(), "velocities");
      Reference.BitIdentical(expected, 6 * n, solver.GetDensities(), "densities");
      Expect.Equal(Reference.Float("dam_break.avg_density_error"), solver.GetStats().AvgDensityError, "density error");
      Expect.Equal(Reference.Float("dam_break.mass"), solver.ParticleMass, "particle mass");
    }
  }

  [Test]
  public void TheCpuRunDoesNotDependOnTheThreadCount() {
    float[] two, one;
    using (Solver solver = DamBreakScene(Backend.Cpu, 2)) {
      for (int step = 0; step < 10; ++step) solver.Step(1.0f / 60.0f, 2);
      two = solver.GetPositions();
    }
    using (Solver solver = DamBreakScene(Backend.Cpu, 1)) {
      for (int step = 0; step < 10; ++step) solver.Step(1.0f / 60.0f, 2);
      one = solver.GetPositions();
    }
    Reference.BitIdentical(two, 0, one, "positions with 1 thread against 2");
  }

  [Test]
  public void EveryAvailableBackendRunsADamBreak() {
    foreach (Backend backend in new[] { Backend.Auto, Backend.Cpu, Backend.Cuda }) {
      if (!Library.IsAvailable(backend)) continue;
      using (Solver solver = DamBreakScene(backend)) {
        Backend resolved = solver.GetDesc().Backend;
        Expect.True(resolved == Backend.Cpu || resolved == Backend.Cuda, backend + " resolves to a real backend");
        if (backend != Backend.Auto) Expect.Equal(backend, resolved, "resolved backend");
        int n = solver.ParticleCount;
        for (int step = 0; step < 10; ++step) solver.Step(1.0f / 60.0f, 2);
        Expect.Equal(n, solver.ParticleCount, backend + ": particles");
        SolverStats stats = solver.GetStats();
        Expect.Equal((uint)n, stats.ParticleCount, backend + ": stats particles");
        Expect.Equal(2u, stats.Substeps, backend + ": substeps");
        Expect.True(stats.AvgNeighbors > 5.0f, backend + ": neighbours found");
        float[] x = solver.GetPositions();
        float[] lo = solver.GetDesc().DomainMin, hi = solver.GetDesc().DomainMax;
        for (int i = 0; i < x.Length; ++i)
          Expect.True(x[i] >= lo[i % 3] && x[i] <= hi[i % 3], backend + ": particle inside the domain");
      }
    }
  }

  [Test]
  public void AutoAndCpuAreAlwaysAvailable() {
    Expect.True(Library.IsAvailable(Backend.Auto), "Auto");
    Expect.True(Library.IsAvailable(Backend.Cpu), "Cpu");
    Expect.Equal("cpu", Library.BackendName(Backend.Cpu), "name of Cpu");
    Expect.Equal("cuda", Library.BackendName(Backend.Cuda), "name of Cuda");
    Expect.Equal("PBF_ERROR_IO", Library.StatusName(Status.Io), "name of Io");
  }

  [Test]
  public void AnUnavailableCudaBackendIsAnExceptionThatSaysSo() {
    if (Library.IsAvailable(Backend.Cuda)) return;  // covered by EveryAvailableBackendRunsADamBreak
    PbfException e = Expect.Status(Status.BackendUnavailable, "pbf_solver_create:",
                                   () => new Solver(new SolverDesc { Backend = Backend.Cuda }));
    Expect.True(e.Message.Contains("PBF_BACKEND_CUDA is not available"), "message says CUDA is unavailable: " + e.Message);
    Expect.True(e.ToString().StartsWith("PBF_ERROR_BACKEND_UNAVAILABLE: ", StringComparison.Ordinal), "ToString names the status");
  }

  [Test]
  public void AnUnknownBackendValueIsRefused() {
    Expect.Status(Status.InvalidArgument, "pbf_backend_available:", () => Library.IsAvailable((Backend)7));
    Expect.Status(Status.InvalidArgument, "pbf_solver_create:", () => new Solver(new SolverDesc { Backend = (Backend)7 }));
    Expect.Equal("unknown", Library.BackendName((Backend)7), "name of an unknown backend");
  }
}

}  // namespace Pbf.Tests
