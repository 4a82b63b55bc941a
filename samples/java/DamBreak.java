// DamBreak.java - the dam break of pbf-sim through the Java binding: a 1 m
// block of water collapses in a 4 x 3 x 1.5 m tank. Prints the density error,
// the neighbour counts and the time of each phase, as pbf-sim does.
//
//   java -cp pbf.jar:. -Djava.library.path=<dir of libpbf_java> DamBreak
//        [--frames 120] [--spacing 0.05] [--substeps 4] [--iterations 4] [--backend auto|cpu|cuda]

import java.nio.FloatBuffer;
import java.util.Locale;
import pbf.Backend;
import pbf.Field;
import pbf.Library;
import pbf.MappedField;
import pbf.PbfException;
import pbf.Solver;
import pbf.SolverDesc;
import pbf.SolverStats;

/** The dam break sample. */
public final class DamBreak {
  private DamBreak() {}

  /**
   * Runs the dam break.
   *
   * @param args options, see the file comment
   */
  public static void main(String[] args) {
    int frames = 120;
    int substeps = 4;
    int iterations = 4;
    float spacing = 0.05f;
    Backend backend = Backend.AUTO;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--frames": frames = Integer.parseInt(args[i + 1]); break;
        case "--spacing": spacing = Float.parseFloat(args[i + 1]); break;
        case "--substeps": substeps = Integer.parseInt(args[i + 1]); break;
        case "--iterations": iterations = Integer.parseInt(args[i + 1]); break;
        case "--backend": backend = Backend.valueOf(args[i + 1].toUpperCase(Locale.ROOT)); break;
        default:
          System.err.println("usage: DamBreak [--frames N] [--spacing m] [--substeps N] [--iterations N] "
              + "[--backend auto|cpu|cuda]");
          System.exit(2);
      }
    }

    SolverDesc desc = new SolverDesc().setBackend(backend).setParticleSpacing(spacing).setMaxParticles(4000000)
        .setDomainMax(4.0f, 3.0f, 1.5f);
    try (Solver solver = new Solver(desc)) {
      solver.setParams(solver.getParams().setIterations(iterations));
      // Lattice centres at (i + 1/2) s: a block k spacings wide holds k particles per axis.
      float side = Math.round(1.0f / spacing) * spacing;
      int n = solver.fillBox(new float[] {0, 0, 0}, new float[] {side, side, side});
      SolverDesc d = solver.getDesc();
      System.out.printf(Locale.ROOT,
          "pbf %s  dam break: %d particles, backend %s, %d threads, %d frames of %d substeps x %d iterations%n",
          Library.versionString(), n, Library.backendName(d.getBackend()), d.getThreadCount(), frames, substeps,
          iterations);

      double[] phases = new double[7];  // total, predict, grid, neighbours, constraints, velocity, vorticity+xsph
      for (int frame = 1; frame <= frames; ++frame) {
        solver.step(1.0f / 60.0f, substeps);
        SolverStats s = solver.getStats();
        phases[0] += s.getTimeTotalMs();
        phases[1] += s.getTimePredictMs();
        phases[2] += s.getTimeGridMs();
        phases[3] += s.getTimeNeighborsMs();
        phases[4] += s.getTimeConstraintsMs();
        phases[5] += s.getTimeVelocityMs();
        phases[6] += s.getTimeVorticityViscosityMs();
        if (frame % 10 == 0 || frame == frames) {
          System.out.printf(Locale.ROOT,
              "frame %4d  t=%6.3f s  %8.2f ms/frame  density error avg %.4f%% max %.3f%%  neighbours avg %.1f max %d"
              + "  max speed %.2f m/s%n",
              frame, frame / 60.0, s.getTimeTotalMs(), 100.0 * s.getAvgDensityError(), 100.0 * s.getMaxDensityError(),
              s.getAvgNeighbors(), s.getMaxNeighbors(), s.getMaxSpeed());
        }
      }
      // The water front, read in place from the solver's memory (no copy); unmapped before any further step.
      try (MappedField x = solver.map(Field.POSITIONS)) {
        FloatBuffer xyz = x.buffer();
        float front = 0;
        for (int i = 0; i < xyz.limit(); i += 3) front = Math.max(front, xyz.get(i));
        System.out.printf(Locale.ROOT, "front at x = %.3f m%n", front);
      }
      String[] names = {"predict", "grid", "neighbors", "constraints", "velocity", "vorticity+xsph"};
      System.out.printf(Locale.ROOT, "mean ms per frame: %.3f%n", phases[0] / frames);
      for (int k = 0; k < names.length; ++k) {
        System.out.printf(Locale.ROOT, "  %-16s %8.3f ms%n", names[k], phases[k + 1] / frames);
      }
      System.out.printf(Locale.ROOT, "done: %d particles, %d frames, %.2f ms per frame (%.2f ms per substep)%n", n,
          frames, phases[0] / frames, phases[0] / frames / substeps);
    } catch (PbfException e) {
      System.err.println("DamBreak: " + e);
      System.exit(1);
    }
  }
}
