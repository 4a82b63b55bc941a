// ErrorTests.cs - every failure of the library reaches C# as a PbfException
// with the library's status and message, and the solver stays usable.
using System;
using System.IO;

namespace Pbf.Tests {

/// <summary>Every error path through the binding.</summary>
public sealed class ErrorTests {
  static Solver Small() {
    var solver = new Solver(new SolverDesc { ParticleSpacing = 0.1f, MaxParticles = 200 });
    solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.3f, 0.3f, 0.3f });  // 27 particles
    return solver;
  }

  /// <summary>After a failed call the solver has its 27 particles and still steps.</summary>
  static void StillUsable(Solver solver, int particles = 27) {
    Expect.Equal(particles, solver.ParticleCount, "particles after the failed call");
    solver.Step(0.01f, 1);
    Expect.Equal(particles, solver.GetPositions().Length / 3, "positions after a step");
  }

  [Test]
  public void AnInvalidDescriptionNamesTheField() {
    Expect.Status(Status.InvalidArgument, "pbf_solver_create: desc->max_particles must be in [1, 268435456], got 0",
                  () => new Solver(new SolverDesc { MaxParticles = 0 }));
    PbfException e = Expect.Status(Status.InvalidArgument, "pbf_solver_create:",
                                   () => new Solver(new SolverDesc { ParticleSpacing = float.NaN }));
    Expect.True(e.Message.Contains("particle_spacing"), "names particle_spacing: " + e.Message);
    e = Expect.Status(Status.InvalidArgument, "pbf_solver_create:",
                      () => new Solver(new SolverDesc { DomainMax = new[] { 0.01f, 1f, 1f } }));
    Expect.True(e.Message.Contains("domain"), "names the domain: " + e.Message);
    Expect.Throws<ArgumentException>(() => new Solver(new SolverDesc { DomainMin = new[] { 0f, 0f } }), "2-float DomainMin");
    Expect.Throws<ArgumentNullException>(() => new Solver(null), "null description");
  }

  [Test]
  public void InvalidParametersChangeNothing() {
    using (Solver solver = Small()) {
      SolverParams p = solver.GetParams();
      p.Iterations = 0;
      PbfException e = Expect.Status(Status.InvalidArgument, "pbf_solver_set_params:", () => solver.SetParams(p));
      Expect.True(e.Message.Contains("iterations"), "names iterations: " + e.Message);
      p = solver.GetParams();
      p.Gravity = new[] { 0f, float.PositiveInfinity, 0f };
      Expect.Status(Status.InvalidArgument, "pbf_solver_set_params:", () => solver.SetParams(p));
      Expect.Equal(4u, solver.GetParams().Iterations, "iterations kept");
      Expect.Equal(-9.81f, solver.GetParams().Gravity[1], "gravity kept");
      StillUsable(solver);
    }
  }

  [Test]
  public void BadParticlesAreRefusedWhole() {
    using (Solver solver = Small()) {
      PbfException e = Expect.Status(Status.InvalidArgument, "pbf_solver_add_particles:",
                                     () => solver.AddParticles(new[] { 0.5f, 0.5f, 0.5f, 2.0f, 0.5f, 0.5f }));
      Expect.True(e.Message.Contains("1"), "names the particle: " + e.Message);
      Expect.Status(Status.InvalidArgument, "pbf_solver_add_particles:",
                    () => solver.AddParticles(new[] { 0.5f, float.NaN, 0.5f }));
      Expect.Status(Status.InvalidArgument, "pbf_solver_add_particles:",
                    () => solver.AddParticles(new[] { 0.5f, 0.5f, 0.5f }, new[] { 0f, float.NaN, 0f }));
      Expect.Throws<ArgumentException>(() => solver.AddParticles(new[] { 0.5f, 0.5f }), "2 floats");
      Expect.Throws<ArgumentException>(() => solver.AddParticles(new[] { 0.5f, 0.5f, 0.5f }, new float[6]),
                                       "velocities longer than positions");
      Expect.Throws<ArgumentNullException>(() => solver.AddParticles(null), "null positions");
      StillUsable(solver);
    }
  }

  [Test]
  public void CapacityIsEnforced() {
    using (Solver solver = Small()) {
      Expect.Status(Status.CapacityExceeded, "pbf_solver_add_particles:", () => solver.AddParticles(new float[3 * 174]));
      Expect.Status(Status.CapacityExceeded, "pbf_solver_fill_box:",
                    () => solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 1f, 1f, 1f }));
      StillUsable(solver);
      for (int i = 0; i < 64; ++i) Expect.Equal(i, solver.AddPlane(new[] { 0f, 1f, 0f }, 0f), "plane index");
      Expect.Status(Status.CapacityExceeded, "pbf_solver_add_plane:", () => solver.AddPlane(new[] { 0f, 1f, 0f }, 0f));
      StillUsable(solver);
    }
  }

  [Test]
  public void BadBoxesAndPlanesAreRefused() {
    using (Solver solver = Small()) {
      Expect.Status(Status.InvalidArgument, "pbf_solver_fill_box:",
                    () => solver.FillBox(new[] { 0.5f, 0f, 0f }, new[] { 0.4f, 1f, 1f }));
      Expect.Throws<ArgumentException>(() => solver.FillBox(new[] { 0f, 0f }, new[] { 1f, 1f, 1f }), "2-float lo");
      Expect.Status(Status.InvalidArgument, "pbf_solver_add_plane:", () => solver.AddPlane(new[] { 0f, 0f, 0f }, 0f));
      Expect.Status(Status.InvalidArgument, "pbf_solver_add_plane:", () => solver.AddPlane(new[] { 0f, 1f, 0f }, float.NaN));
      StillUsable(solver);
    }
  }

  [Test]
  public void ArraysOfTheWrongLengthAreRefused() {
    using (Solver solver = Small()) {
      Expect.Status(Status.BufferTooSmall, "pbf_solver_get_positions:", () => solver.GetPositions(new float[80]));
      Expect.Status(Status.BufferTooSmall, "pbf_solver_get_velocities:", () => solver.GetVelocities(new float[3]));
      Expect.Status(Status.BufferTooSmall, "pbf_solver_get_densities:", () => solver.GetDensities(new float[26]));
      Expect.Status(Status.BufferTooSmall, "pbf_solver_set_positions:", () => solver.SetPositions(new float[80]));
      Expect.Status(Status.InvalidArgument, "pbf_solver_set_positions:", () => solver.SetPositions(new float[84]));
      Expect.Status(Status.BufferTooSmall, "pbf_solver_set_velocities:", () => solver.SetVelocities(new float[3]));
      float[] outside = solver.GetPositions();
      outside[4] = -1.0f;
      Expect.Status(Status.InvalidArgument, "pbf_solver_set_positions:", () => solver.SetPositions(outside));
      StillUsable(solver);
    }
  }

  [Test]
  public void BadIndicesAreRefused() {
    using (Solver solver = Small()) {
      Expect.Status(Status.InvalidArgument, "pbf_solver_remove_particles:", () => solver.RemoveParticles(new uint[] { 27 }));
      Expect.Status(Status.InvalidArgument, "pbf_solver_remove_particles:", () => solver.RemoveParticles(new uint[] { 3, 3 }));
      StillUsable(solver);
    }
  }

  [Test]
  public void BadStepsNameTheArgument() {
    using (Solver solver = Small()) {
      Expect.Status(Status.InvalidArgument, "pbf_solver_step: substeps must be in [1, 1000], got 0", () => solver.Step(0.01f, 0));
      Expect.Status(Status.InvalidArgument, "pbf_solver_step: dt", () => solver.Step(0f, 1));
      Expect.Status(Status.InvalidArgument, "pbf_solver_step: dt", () => solver.Step(float.NaN, 1));
      Expect.Status(Status.InvalidArgument, "pbf_solver_step: dt", () => solver.Step(11f, 1));
      StillUsable(solver);
    }
  }

  [Test]
  public void FilesThatCannotBeWrittenOrReadAreIoErrors() {
    string missing = Path.Combine(Path.GetTempPath(), "pbf-no-such-dir-" + Guid.NewGuid().ToString("N"));
    using (Solver solver = Small()) {
      PbfException e = Expect.Status(Status.Io, "pbf_solver_write_ply:",
                                     () => solver.WritePly(Path.Combine(missing, "frame.ply")));
      Expect.True(e.Message.Contains(missing), "names the path: " + e.Message);
      Expect.Status(Status.InvalidArgument, "pbf_solver_write_ply:", () => solver.WritePly(""));
      Expect.Status(Status.Io, "pbf_solver_load_checkpoint:", () => solver.LoadCheckpoint(Path.Combine(missing, "c.pbf")));
      Expect.Status(Status.Io, "pbf_solver_save_checkpoint:", () => solver.SaveCheckpoint(Path.Combine(missing, "c.pbf")));
      Expect.Throws<ArgumentNullException>(() => solver.WritePly(null), "null path");
      StillUsable(solver);
    }
  }

  [Test]
  public void TheMessageIsTheOneOfTheCallingThread() {
    using (Solver solver = Small()) {
      PbfException main = Expect.Throws<PbfException>(() => solver.Step(0.01f, 0), "main thread");
      PbfException other = null;
      var thread = new System.Threading.Thread(() => {
        try {
          solver.Step(0.01f, 2000);
        } catch (PbfException e) {
          other = e;
        }
      });
      thread.Start();
      thread.Join();
      Expect.True(other != null && other.Message.EndsWith("got 2000", StringComparison.Ordinal), "other thread's message");
      Expect.True(main.Message.EndsWith("got 0", StringComparison.Ordinal), "main thread's message");
      StillUsable(solver);
    }
  }
}

}  // namespace Pbf.Tests
