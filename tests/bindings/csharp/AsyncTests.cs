// AsyncTests.cs - steps that run while the caller does something else.
using System;

namespace Pbf.Tests {

/// <summary>StartStep, IsStepDone and WaitStep.</summary>
public sealed class AsyncTests {
  [Test]
  public void AnAsynchronousStepGivesTheSameParticlesAsASynchronousOne() {
    float[] expected;
    using (Solver solver = BindingTests.DamBreakScene(Backend.Cpu)) {
      for (int k = 0; k < 5; ++k) solver.Step(1f / 60f, 2);
      expected = solver.GetPositions();
    }
    using (Solver solver = BindingTests.DamBreakScene(Backend.Cpu)) {
      for (int k = 0; k < 5; ++k) {
        solver.StartStep(1f / 60f, 2);
        solver.WaitStep();
        Expect.True(solver.IsStepDone, "done after WaitStep");
      }
      Reference.BitIdentical(expected, 0, solver.GetPositions(), "positions");
    }
  }

  [Test]
  public void EveryOtherCallIsBusyUntilTheWait() {
    using (Solver solver = BindingTests.DamBreakScene(Backend.Cpu)) {
      solver.StartStep(1f / 60f, 20);
      PbfException e = Expect.Throws<PbfException>(() => solver.GetPositions(new float[3 * 1000]), "read while busy");
      Expect.Equal(Status.Busy, e.Status, "status while busy: " + e.Message);
      Expect.Equal(Status.Busy, Expect.Throws<PbfException>(() => solver.StartStep(0.01f), "second start").Status,
                   "a second StartStep");
      Expect.Equal(Status.Busy, Expect.Throws<PbfException>(() => solver.Step(0.01f), "Step while busy").Status,
                   "Step while busy");
      solver.WaitStep();
      Expect.Equal(20u, solver.GetStats().Substeps, "the asynchronous step ran");
      solver.Step(0.01f);
    }
  }

  [Test]
  public void BadArgumentsAreRefusedWhenTheStepStarts() {
    using (Solver solver = BindingTests.DamBreakScene(Backend.Cpu)) {
      Expect.Status(Status.InvalidArgument, "pbf_solver_step_async: substeps must be in [1, 1000], got 0",
                    () => solver.StartStep(0.01f, 0));
      Expect.True(solver.IsStepDone, "nothing runs");
      solver.WaitStep();  // none was started: returns at once
      solver.Step(0.01f);
    }
  }

  [Test]
  public void DisposingWaitsForARunningStep() {
    Solver solver = BindingTests.DamBreakScene(Backend.Cpu);
    solver.StartStep(1f / 60f, 10);
    solver.Dispose();
    Expect.True(solver.IsDisposed, "disposed");
    Expect.Throws<ObjectDisposedException>(() => solver.WaitStep(), "WaitStep after Dispose");
  }
}

}  // namespace Pbf.Tests
