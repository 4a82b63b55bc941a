// DamBreak.cs - the dam break of pbf-sim through the C# binding: a 1 m block
// of water collapses in a 4 x 3 x 1.5 m tank. Prints the density error, the
// neighbour counts and the time of each phase, as pbf-sim does.
//
//   mono DamBreak.exe [--frames 120] [--spacing 0.05] [--substeps 4] [--iterations 4] [--backend auto|cpu|cuda]
using System;
using Pbf;

static class DamBreak {
  static int Main(string[] args) {
    int frames = 120, substeps = 4, iterations = 4;
    float spacing = 0.05f;
    Backend backend = Backend.Auto;
    for (int i = 0; i + 1 < args.Length; i += 2) {
      switch (args[i]) {
        case "--frames": frames = int.Parse(args[i + 1]); break;
        case "--spacing": spacing = float.Parse(args[i + 1], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--substeps": substeps = int.Parse(args[i + 1]); break;
        case "--iterations": iterations = int.Parse(args[i + 1]); break;
        case "--backend": backend = (Backend)Enum.Parse(typeof(Backend), args[i + 1], true); break;
        default:
          Console.Error.WriteLine("usage: DamBreak.exe [--frames N] [--spacing m] [--substeps N] [--iterations N] " +
                                  "[--backend auto|cpu|cuda]");
          return 2;
      }
    }

    try {
      using (var solver = new Solver(new SolverDesc {
               Backend = backend,
               ParticleSpacing = spacing,
               MaxParticles = 4000000,
               DomainMax = new[] { 4.0f, 3.0f, 1.5f },
             })) {
        SolverParams p = solver.GetParams();
        p.Iterations = (uint)iterations;
        solver.SetParams(p);
        // Lattice centres at (i + 1/2) s: a block k spacings wide holds k particles per axis.
        float side = (float)Math.Round(1.0f / spacing) * spacing;
        int n = solver.FillBox(new[] { 0f, 0f, 0f }, new[] { side, side, side });
        SolverDesc d = solver.GetDesc();
        Console.WriteLine("pbf {0}  dam break: {1} particles, backend {2}, {3} threads, {4} frames of {5} substeps x {6} iterations",
                          Library.VersionString, n, Library.BackendName(d.Backend), d.ThreadCount, frames, substeps,
                          iterations);

        var phases = new double[7];  // total, predict, grid, neighbours, constraints, velocity, vorticity+xsph
        for (int frame = 1; frame <= frames; ++frame) {
          solver.Step(1.0f / 60.0f, substeps);
          SolverStats s = solver.GetStats();
          phases[0] += s.TimeTotalMs;
          phases[1] += s.TimePredictMs;
          phases[2] += s.TimeGridMs;
          phases[3] += s.TimeNeighborsMs;
          phases[4] += s.TimeConstraintsMs;
          phases[5] += s.TimeVelocityMs;
          phases[6] += s.TimeVorticityViscosityMs;
          if (frame % 10 == 0 || frame == frames)
            Console.WriteLine("frame {0,4}  t={1,6:F3} s  {2,8:F2} ms/frame  density error avg {3:F4}% max {4:F3}%  " +
                              "neighbours avg {5:F1} max {6}  max speed {7:F2} m/s",
                              frame, frame / 60.0, s.TimeTotalMs, 100.0 * s.AvgDensityError, 100.0 * s.MaxDensityError,
                              s.AvgNeighbors, s.MaxNeighbors, s.MaxSpeed);
        }
        // The water front, read in place from the solver's memory (no copy); unmapped before any further step.
        using (MappedField x = solver.Map(Field.Positions)) {
          ReadOnlySpan<float> xyz = x.AsSpan();
          float front = 0f;
          for (int i = 0; i < xyz.Length; i += 3) front = Math.Max(front, xyz[i]);
          Console.WriteLine("front at x = {0:F3} m", front);
        }
        string[] names = { "predict", "grid", "neighbors", "constraints", "velocity", "vorticity+xsph" };
        Console.WriteLine("mean ms per frame: {0:F3}", phases[0] / frames);
        for (int k = 0; k < names.Length; ++k) Console.WriteLine("  {0,-16} {1,8:F3} ms", names[k], phases[k + 1] / frames);
        Console.WriteLine("done: {0} particles, {1} frames, {2:F2} ms per frame ({3:F2} ms per substep)", n, frames,
                          phases[0] / frames, phases[0] / frames / substeps);
      }
    } catch (PbfException e) {
      Console.Error.WriteLine("DamBreak: " + e.Status + ": " + e.Message);
      return 1;
    }
    return 0;
  }
}
