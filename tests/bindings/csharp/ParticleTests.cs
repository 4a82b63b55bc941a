// ParticleTests.cs - particles, planes, parameters, statistics and files
// through the binding: whole arrays in user order.
using System;
using System.IO;

namespace Pbf.Tests {

/// <summary>Data in and out of a solver.</summary>
public sealed class ParticleTests {
  static Solver Empty() {
    return new Solver(new SolverDesc { ParticleSpacing = 0.1f, MaxParticles = 1000 });
  }

  [Test]
  public void ParticlesComeBackInTheOrderTheyWereAdded() {
    using (Solver solver = Empty()) {
      var x = new[] { 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f };
      var v = new[] { 1f, 2f, 3f, 4f, 5f, 6f, 7f, 8f, 9f };
      solver.AddParticles(x, v);
      Expect.Equal(3, solver.ParticleCount, "count");
      Reference.BitIdentical(x, 0, solver.GetPositions(), "positions");
      Reference.BitIdentical(v, 0, solver.GetVelocities(), "velocities");
      Reference.BitIdentical(new float[3], 0, solver.GetDensities(), "densities before a step");
      solver.RemoveParticles(new uint[] { 1 });
      Reference.BitIdentical(new[] { 0.1f, 0.2f, 0.3f, 0.7f, 0.8f, 0.9f }, 0, solver.GetPositions(), "after removal");
      solver.AddParticles(new[] { 0.5f, 0.5f, 0.5f });
      Reference.BitIdentical(new[] { 0f, 0f, 0f }, 0, TakeLast3(solver), "a particle added without velocities rests");
      solver.ClearParticles();
      Expect.Equal(0, solver.ParticleCount, "count after clear");
      Expect.Equal(0, solver.GetPositions().Length, "no positions");
    }
  }

  [Test]
  public void DensitiesCanBeEvaluatedBeforeTheFirstStep() {
    using (Solver solver = Empty()) {
      solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 1f, 1f, 1f });  // the whole domain
      float[] x = solver.GetPositions();
      solver.UpdateDensities();
      float[] rho = solver.GetDensities();
      // The placed lattice with the walls' own density: rest density within 2.5 % everywhere.
      foreach (float r in rho) Expect.True(Math.Abs(r - 1000f) < 25f, "density " + r + " near 1000 kg/m^3");
      Reference.BitIdentical(x, 0, solver.GetPositions(), "nothing moved");
    }
  }

  static float[] TakeLast3(Solver solver) {
    float[] all = solver.GetVelocities();
    return new[] { all[all.Length - 3], all[all.Length - 2], all[all.Length - 1] };
  }

  [Test]
  public void ProjectiveFluidsStepsAndReportsItsIterations() {
    using (var solver = new Solver(new SolverDesc { ParticleSpacing = 0.1f, MaxParticles = 1000,
                                                    Method = Method.Projective })) {
      Expect.Equal(Method.Projective, solver.GetDesc().Method, "method");
      solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.5f, 0.5f, 0.5f });
      var p = new SolverParams { ProjectiveIterations = 6, ProjectiveStiffness = 2e5f, AdaptiveDt = false,
                                 MaxDt = 0.005f, ProjectiveChebyshevRho = 0.5f };
      solver.SetParams(p);
      SolverParams q = solver.GetParams();
      Expect.Equal(6u, q.ProjectiveIterations, "projective iterations");
      Expect.Equal(2e5f, q.ProjectiveStiffness, "stiffness");
      Expect.Equal(false, q.AdaptiveDt, "adaptive dt");
      Expect.Equal(0.005f, q.MaxDt, "max dt");
      Expect.Equal(0.5f, q.ProjectiveChebyshevRho, "chebyshev rho");
      solver.Step(1f / 60f, 2);
      SolverStats s = solver.GetStats();
      Expect.Equal(2u, s.Substeps, "steps taken");
      Expect.True(s.LocalGlobalIterations > 0 && s.CgIterations > 0, "iterations reported");
      Expect.True(s.MaxSubstepDt > 0f, "step size reported");
    }
  }

  [Test]
  public void PbfRunsMoreIterationsWhereTheDensityToleranceAsks() {
    using (var solver = new Solver(new SolverDesc { ParticleSpacing = 0.1f, MaxParticles = 1000 })) {
      solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.5f, 0.5f, 0.5f });
      // A tolerance no step meets runs every iteration up to MaxIterations; one every step meets, Iterations.
      solver.SetParams(new SolverParams { Iterations = 2, DensityTolerance = 1e-9f, MaxIterations = 9 });
      SolverParams q = solver.GetParams();
      Expect.Equal(1e-9f, q.DensityTolerance, "density tolerance");
      Expect.Equal(9u, q.MaxIterations, "max iterations");
      solver.Step(1f / 60f, 1);
      Expect.Equal(9u, solver.GetStats().DensityIterations, "iterations up to the most");
      Expect.Equal(9u, solver.GetStats().Iterations, "the most a substep may run");
      solver.SetParams(new SolverParams { Iterations = 2, DensityTolerance = 1f, MaxIterations = 9 });
      solver.Step(1f / 60f, 1);
      Expect.Equal(2u, solver.GetStats().DensityIterations, "the tolerance met at once");
    }
  }

  [Test]
  public void PositionsAndVelocitiesCanBeOverwritten() {
    using (Solver solver = Empty()) {
      Expect.Equal(8, solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.2f, 0.2f, 0.2f }, new[] { 1f, 0f, 0f }), "added");
      float[] v = solver.GetVelocities();
      for (int i = 0; i < 8; ++i) Expect.Equal(1f, v[3 * i], "fill velocity");
      float[] x = solver.GetPositions();
      for (int i = 0; i < x.Length; ++i) x[i] += 0.5f;
      solver.SetPositions(x);
      Reference.BitIdentical(x, 0, solver.GetPositions(), "overwritten positions");
      solver.SetVelocities(new float[24]);
      Reference.BitIdentical(new float[24], 0, solver.GetVelocities(), "overwritten velocities");
      var big = new float[100];
      solver.GetPositions(big);
      var head = new float[24];
      Array.Copy(big, head, 24);
      Reference.BitIdentical(x, 0, head, "into a larger array");
    }
  }

  [Test]
  public void AStepFillsStatisticsAndDensities() {
    using (Solver solver = Empty()) {
      solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.5f, 0.5f, 0.5f });
      Expect.Equal(0u, solver.GetStats().ParticleCount, "no statistics before a step");
      solver.Step(1f / 60f, 3);
      SolverStats s = solver.GetStats();
      Expect.Equal(125u, s.ParticleCount, "particles");
      Expect.Equal(3u, s.Substeps, "substeps");
      Expect.Equal(20u, s.Iterations, "iterations at most: the density tolerance may add up to MaxIterations");
      Expect.True(s.DensityIterations >= 3 * 4 && s.DensityIterations <= 3 * 20, "iterations run");
      Expect.True(s.TimeTotalMs > 0.0, "time measured");
      Expect.True(s.TimeTotalMs >= s.TimeConstraintsMs, "total covers the constraints");
      Expect.True(s.AvgNeighbors > 0f && s.MaxNeighbors > 0, "neighbours");
      foreach (float rho in solver.GetDensities()) Expect.True(rho > 0f, "a density after the step");
      SolverDesc d = solver.GetDesc();
      Expect.Equal(Backend.Cpu, d.Backend, "Auto resolves to the CPU here");
      Expect.Equal(0.2f, d.KernelRadius, "kernel radius resolved to 2 x spacing");
      Expect.True(d.ThreadCount >= 1, "thread count resolved");
      Expect.True(d.MaxNeighbors >= 16, "neighbour capacity resolved");
    }
  }

  [Test]
  public void ParametersRoundTrip() {
    using (Solver solver = Empty()) {
      var p = new SolverParams {
        Gravity = new[] { 1f, -2f, 3f }, Iterations = 7, Relaxation = 0.5f, Unilateral = false,
        ArtificialPressureK = 0.3f, ArtificialPressureN = 2f, ArtificialPressureDq = 0.1f, XsphViscosity = 0.4f,
        VorticityEpsilon = 0.6f, Restitution = 0.7f, Friction = 0.8f, MaxSpeed = 9f,
      };
      solver.SetParams(p);
      SolverParams q = solver.GetParams();
      Expect.Equal(3f, q.Gravity[2], "gravity z");
      Expect.Equal(7u, q.Iterations, "iterations");
      Expect.Equal(0.5f, q.Relaxation, "relaxation");
      Expect.Equal(false, q.Unilateral, "unilateral");
      Expect.Equal(0.3f, q.ArtificialPressureK, "k");
      Expect.Equal(2f, q.ArtificialPressureN, "n");
      Expect.Equal(0.1f, q.ArtificialPressureDq, "dq");
      Expect.Equal(0.4f, q.XsphViscosity, "xsph");
      Expect.Equal(0.6f, q.VorticityEpsilon, "vorticity");
      Expect.Equal(0.7f, q.Restitution, "restitution");
      Expect.Equal(0.8f, q.Friction, "friction");
      Expect.Equal(9f, q.MaxSpeed, "max speed");
      SolverParams copy = q.Clone();
      copy.Gravity[0] = 5f;
      Expect.Equal(1f, q.Gravity[0], "Clone copies the gravity array");
    }
  }

  [Test]
  public void PlanesAreNumberedFromZeroAgainAfterClearing() {
    using (Solver solver = Empty()) {
      Expect.Equal(0, solver.AddPlane(new[] { 0f, 1f, 0f }, -0.2f), "first plane");
      Expect.Equal(1, solver.AddPlane(new[] { 1f, 0f, 0f }, -0.1f), "second plane");
      solver.ClearPlanes();
      Expect.Equal(0, solver.AddPlane(new[] { 0f, 2f, 0f }, -0.4f), "first plane again");
      solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 1f, 1f, 1f });
      solver.Step(0.02f, 2);
      foreach (float y in Every(solver.GetPositions(), 1)) Expect.True(y >= 0.2f, "kept above the plane y = 0.2");
    }
  }

  static float[] Every(float[] xyz, int axis) {
    var r = new float[xyz.Length / 3];
    for (int i = 0; i < r.Length; ++i) r[i] = xyz[3 * i + axis];
    return r;
  }

  [Test]
  public void PlyFilesAndCheckpointsAreWritten() {
    string dir = Path.Combine(Path.GetTempPath(), "pbf-csharp-" + Guid.NewGuid().ToString("N"));
    Directory.CreateDirectory(dir);
    try {
      using (Solver solver = Empty()) {
        solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.3f, 0.3f, 0.3f });
        solver.Step(0.01f);
        string ply = Path.Combine(dir, "frame.ply");
        solver.WritePly(ply);
        Expect.True(new FileInfo(ply).Length > 27 * 28, "27 vertices of 28 bytes");
        string checkpoint = Path.Combine(dir, "state.pbf");
        solver.SaveCheckpoint(checkpoint);
        float[] saved = solver.GetPositions();
        for (int k = 0; k < 5; ++k) solver.Step(0.01f);
        solver.LoadCheckpoint(checkpoint);
        Reference.BitIdentical(saved, 0, solver.GetPositions(), "positions restored");
      }
    } finally {
      Directory.Delete(dir, true);
    }
  }
}

}  // namespace Pbf.Tests
