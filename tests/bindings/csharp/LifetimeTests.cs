// LifetimeTests.cs - disposing, using after dispose, many solvers, finalizers.
using System;
using System.Collections.Generic;
using System.Threading;

namespace Pbf.Tests {

/// <summary>Solver lifetimes.</summary>
public sealed class LifetimeTests {
  static Solver Make() {
    var solver = new Solver(new SolverDesc { ParticleSpacing = 0.1f, MaxParticles = 1000 });
    solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.4f, 0.4f, 0.4f });
    return solver;
  }

  [Test]
  public void DisposingTwiceDoesNothing() {
    Solver solver = Make();
    Expect.True(!solver.IsDisposed, "alive");
    solver.Dispose();
    Expect.True(solver.IsDisposed, "disposed");
    solver.Dispose();
    Expect.True(solver.IsDisposed, "still disposed");
  }

  [Test]
  public void EveryCallAfterDisposeIsAnException() {
    Solver solver = Make();
    solver.Dispose();
    SignedDistanceField ball = SignedDistanceField.Sphere(0.1f, 0.05f);  // live: the solver is what is disposed
    var calls = new Dictionary<string, Action> {
      { "Step", () => solver.Step(0.01f) },
      { "GetDesc", () => solver.GetDesc() },
      { "ParticleMass", () => { float m = solver.ParticleMass; } },
      { "GetParams", () => solver.GetParams() },
      { "SetParams", () => solver.SetParams(new SolverParams()) },
      { "ParticleCount", () => { int n = solver.ParticleCount; } },
      { "AddParticles", () => solver.AddParticles(new[] { 0.5f, 0.5f, 0.5f }) },
      { "FillBox", () => solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 1f, 1f, 1f }) },
      { "RemoveParticles", () => solver.RemoveParticles(new uint[] { 0 }) },
      { "ClearParticles", () => solver.ClearParticles() },
      { "GetPositions", () => solver.GetPositions() },
      { "GetVelocities", () => solver.GetVelocities(new float[3]) },
      { "GetDensities", () => solver.GetDensities() },
      { "SetPositions", () => solver.SetPositions(new float[3]) },
      { "SetVelocities", () => solver.SetVelocities(new float[3]) },
      { "AddPlane", () => solver.AddPlane(new[] { 0f, 1f, 0f }, 0f) },
      { "ClearPlanes", () => solver.ClearPlanes() },
      { "GetStats", () => solver.GetStats() },
      { "WritePly", () => solver.WritePly("never.ply") },
      { "SaveCheckpoint", () => solver.SaveCheckpoint("never.pbf") },
      { "LoadCheckpoint", () => solver.LoadCheckpoint("never.pbf") },
      { "StartStep", () => solver.StartStep(0.01f) },
      { "WaitStep", () => solver.WaitStep() },
      { "IsStepDone", () => { bool done = solver.IsStepDone; } },
      { "AddObstacle", () => solver.AddObstacle(ball) },
      { "AddObstacleSdf", () => solver.AddObstacleSdf(new float[8], new uint[] { 2, 2, 2 }, new float[3], 0.1f) },
      { "SetObstaclePose", () => solver.SetObstaclePose(0, null, new float[3]) },
      { "ObstacleCount", () => { int n = solver.ObstacleCount; } },
      { "ClearObstacles", () => solver.ClearObstacles() },
      { "FillSdf", () => solver.FillSdf(ball) },
      { "AddBoundaryParticles", () => solver.AddBoundaryParticles(new[] { 0.5f, 0.5f, 0.5f }) },
      { "AddDomainBoundaryParticles", () => solver.AddDomainBoundaryParticles() },
      { "BoundaryParticleCount", () => { int n = solver.BoundaryParticleCount; } },
      { "ClearBoundaryParticles", () => solver.ClearBoundaryParticles() },
      { "AddObstacleBoundaryParticles", () => solver.AddObstacleBoundaryParticles(0) },
      { "RemoveObstacleBoundaryParticles", () => solver.RemoveObstacleBoundaryParticles(0) },
    };
    using (ball) {
      foreach (KeyValuePair<string, Action> call in calls)
        Expect.Throws<ObjectDisposedException>(call.Value, call.Key + " after Dispose");
    }
  }

  [Test]
  public void ManySolversLiveAtOnce() {
    var solvers = new List<Solver>();
    try {
      for (int i = 0; i < 40; ++i) solvers.Add(Make());
      foreach (Solver s in solvers) s.Step(0.01f, 2);
      float[] first = solvers[0].GetPositions();
      foreach (Solver s in solvers) Reference.BitIdentical(first, 0, s.GetPositions(), "every solver the same");
    } finally {
      foreach (Solver s in solvers) s.Dispose();
    }
  }

  [Test]
  public void SolversRunOnManyThreadsAtOnce() {
    var results = new float[4][];
    var errors = new List<Exception>();
    var threads = new List<Thread>();
    for (int t = 0; t < results.Length; ++t) {
      int index = t;
      threads.Add(new Thread(() => {
        try {
          using (Solver s = Make()) {
            for (int k = 0; k < 5; ++k) s.Step(0.01f, 2);
            results[index] = s.GetPositions();
          }
        } catch (Exception e) {
          lock (errors) errors.Add(e);
        }
      }));
    }
    foreach (Thread t in threads) t.Start();
    foreach (Thread t in threads) t.Join();
    Expect.Equal(0, errors.Count, "errors on the threads" + (errors.Count > 0 ? ": " + errors[0] : ""));
    for (int t = 1; t < results.Length; ++t) Reference.BitIdentical(results[0], 0, results[t], "thread " + t);
  }

  [Test]
  public void AnUndisposedSolverIsFreedByTheFinalizer() {
    for (int i = 0; i < 10; ++i) Make().Step(0.01f);
    GC.Collect();
    GC.WaitForPendingFinalizers();
    using (Solver solver = Make()) solver.Step(0.01f);
  }

  [Test]
  public void SolversWorkAgainAfterTheLastOneWasDisposed() {
    for (int round = 0; round < 3; ++round) {
      using (Solver solver = Make()) {
        solver.Step(0.01f, 2);
        Expect.Equal(64, solver.ParticleCount, "particles in round " + round);
      }
    }
  }
}

}  // namespace Pbf.Tests
