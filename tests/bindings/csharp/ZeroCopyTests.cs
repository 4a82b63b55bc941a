// ZeroCopyTests.cs - fields lent without a copy (Solver.Map), copies into
// memory the caller owns (IntPtr, spans), and the int overloads.
using System;
using System.Runtime.InteropServices;

namespace Pbf.Tests {

/// <summary>Zero-copy access and the int overloads.</summary>
public sealed class ZeroCopyTests {
  // A 0.4 m cube at 0.1 m spacing: 64 particles, stepped once so that densities are not 0.
  static Solver Stepped() {
    var solver = new Solver(new SolverDesc { ParticleSpacing = 0.1f, MaxParticles = 1000 });
    solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.4f, 0.4f, 0.4f });
    solver.Step(1f / 60f, 2);
    return solver;
  }

  static float[] ToArray(ReadOnlySpan<float> span) {
    var a = new float[span.Length];
    for (int i = 0; i < a.Length; ++i) a[i] = span[i];
    return a;
  }

  [Test]
  public void AMappedFieldIsTheSolversOwnDataBitForBit() {
    using (Solver solver = Stepped()) {
      int n = solver.ParticleCount;
      foreach (Field field in new[] { Field.Positions, Field.Velocities, Field.Densities }) {
        float[] copy = field == Field.Positions ? solver.GetPositions()
                       : field == Field.Velocities ? solver.GetVelocities() : solver.GetDensities();
        using (MappedField view = solver.Map(field)) {
          Expect.Equal(n, view.Count, field + " count");
          Expect.Equal(copy.Length, view.Length, field + " length");
          Expect.Equal(Memory.Host, view.Memory, field + " memory");
          Expect.True(view.IsMapped && view.Pointer != IntPtr.Zero, field + " is lent");
          Reference.BitIdentical(copy, 0, ToArray(view.AsSpan()), field + " through the span");
          var out_ = new float[view.Length];
          view.CopyTo(out_);
          Reference.BitIdentical(copy, 0, out_, field + " through CopyTo");
          Expect.Equal(copy[view.Length - 1], view[view.Length - 1], field + " through the indexer");
          Expect.True(solver.GetPositions().Length == 3 * n, "reads still work while mapped");
        }
      }
    }
  }

  [Test]
  public void AMappedSolverRefusesToChangeParticlesUntilTheViewIsDisposed() {
    using (Solver solver = Stepped()) {
      MappedField view = solver.Map(Field.Positions);
      Expect.Status(Status.Busy, "pbf_solver_step: ", () => solver.Step(0.01f, 1));
      Expect.Status(Status.Busy, "pbf_solver_set_positions: ", () => solver.SetPositions(solver.GetPositions()));
      Expect.Status(Status.InvalidArgument, "pbf_solver_map: field is already mapped",
                    () => solver.Map(Field.Positions));
      using (solver.Map(Field.Densities)) {}  // another field may be mapped at the same time
      view.Dispose();
      Expect.True(!view.IsMapped, "unmapped");
      Expect.Throws<ObjectDisposedException>(() => { IntPtr p = view.Pointer; }, "Pointer after Dispose");
      Expect.Throws<ObjectDisposedException>(() => view.AsSpan(), "AsSpan after Dispose");
      Expect.Throws<ObjectDisposedException>(() => { float x = view[0]; }, "indexer after Dispose");
      view.Dispose();  // twice does nothing
      solver.Step(0.01f, 1);
      using (solver.Map(Field.Positions)) {}  // mappable again
    }
  }

  [Test]
  public void MisuseOfAViewIsRefusedByName() {
    using (Solver solver = Stepped()) {
      Expect.Status(Status.InvalidArgument, "pbf_solver_map: memory: PBF_MEMORY_DEVICE needs a solver on PBF_BACKEND_CUDA",
                    () => solver.Map(Field.Positions, Memory.Device));
      using (MappedField view = solver.Map(Field.Velocities)) {  // the refused device map left nothing mapped
        var e = Expect.Throws<ArgumentOutOfRangeException>(() => { float x = view[view.Length]; }, "index past the end");
        Expect.Equal("index", e.ParamName, "names index");
        Expect.Throws<ArgumentOutOfRangeException>(() => { float x = view[-1]; }, "negative index");
        var a = Expect.Throws<ArgumentException>(() => view.CopyTo(new float[view.Length - 1]), "short array");
        Expect.Equal("destination", a.ParamName, "names destination");
      }
    }
  }

  [Test]
  public void DisposingTheSolverUnderAViewKeepsTheLentMemoryUntilTheViewIsDisposed() {
    Solver solver = Stepped();
    float[] expected = solver.GetPositions();
    MappedField view = solver.Map(Field.Positions);
    ReadOnlySpan<float> span = view.AsSpan();
    solver.Dispose();
    Expect.True(solver.IsDisposed, "the solver refuses calls at once");
    Expect.Throws<ObjectDisposedException>(() => solver.Step(0.01f, 1), "Step after Dispose");
    Expect.True(!view.IsMapped, "the view ends with its solver");
    var e = Expect.Throws<ObjectDisposedException>(() => { IntPtr p = view.Pointer; }, "Pointer after the solver");
    Expect.True(e.Message.Contains("solver"), "says the solver is disposed: " + e.Message);
    GC.Collect();
    GC.WaitForPendingFinalizers();
    // Freed memory would read garbage here (or crash); the view's reference keeps the native solver.
    Reference.BitIdentical(expected, 0, ToArray(span), "a span taken before the solver was disposed");
    view.Dispose();  // destroys the native solver now
    view.Dispose();
  }

  [Test]
  public void CopiesGoIntoNativeMemoryTheCallerOwns() {
    using (Solver solver = Stepped()) {
      int n = solver.ParticleCount;
      IntPtr buffer = Marshal.AllocHGlobal(4 * 3 * n);
      try {
        var back = new float[3 * n];
        solver.GetPositions(buffer, 3 * n);
        Marshal.Copy(buffer, back, 0, 3 * n);
        Reference.BitIdentical(solver.GetPositions(), 0, back, "positions into native memory");
        solver.GetVelocities(buffer, 3 * n);
        Marshal.Copy(buffer, back, 0, 3 * n);
        Reference.BitIdentical(solver.GetVelocities(), 0, back, "velocities into native memory");
        solver.GetDensities(buffer, n);
        var densities = new float[n];
        Marshal.Copy(buffer, densities, 0, n);
        Reference.BitIdentical(solver.GetDensities(), 0, densities, "densities into native memory");

        float[] moved = solver.GetPositions();
        for (int i = 0; i < moved.Length; ++i) moved[i] += 0.25f;
        Marshal.Copy(moved, 0, buffer, 3 * n);
        solver.SetPositions(buffer, 3 * n);
        Reference.BitIdentical(moved, 0, solver.GetPositions(), "positions from native memory");
        Marshal.Copy(new float[3 * n], 0, buffer, 3 * n);
        solver.SetVelocities(buffer, 3 * n);
        Reference.BitIdentical(new float[3 * n], 0, solver.GetVelocities(), "velocities from native memory");

        Expect.Status(Status.BufferTooSmall, "pbf_solver_get_positions: capacity is " + (3 * n - 1),
                      () => solver.GetPositions(buffer, 3 * n - 1));
        Expect.Status(Status.BufferTooSmall, "pbf_solver_get_densities: capacity is " + (n - 1),
                      () => solver.GetDensities(buffer, n - 1));
        Expect.Status(Status.InvalidArgument, "pbf_solver_set_positions: length is " + (3 * n + 1),
                      () => solver.SetPositions(buffer, 3 * n + 1));
        Expect.Status(Status.NullPointer, "pbf_solver_get_velocities: out", () => solver.GetVelocities(IntPtr.Zero, 3 * n));
        var c = Expect.Throws<ArgumentOutOfRangeException>(() => solver.GetPositions(buffer, -1), "negative capacity");
        Expect.Equal("capacity", c.ParamName, "names capacity");
        var l = Expect.Throws<ArgumentOutOfRangeException>(() => solver.SetVelocities(buffer, -3), "negative length");
        Expect.Equal("length", l.ParamName, "names length");
      } finally {
        Marshal.FreeHGlobal(buffer);
      }
    }
  }

  [Test]
  public void CopiesGoIntoAndOutOfSpans() {
    using (Solver solver = Stepped()) {
      int n = solver.ParticleCount;
      var big = new float[3 * n + 2];
      solver.GetPositions(new Span<float>(big, 1, 3 * n));  // a slice: the copy starts at its first float
      var slice = new float[3 * n];
      Array.Copy(big, 1, slice, 0, 3 * n);
      Reference.BitIdentical(solver.GetPositions(), 0, slice, "positions into a slice");
      Expect.Equal(0f, big[0], "nothing before the slice");
      Expect.Equal(0f, big[3 * n + 1], "nothing after it");
      var d = new float[n];
      solver.GetDensities(new Span<float>(d));
      Reference.BitIdentical(solver.GetDensities(), 0, d, "densities into a span");
      Expect.Status(Status.BufferTooSmall, "pbf_solver_get_velocities: capacity is 2",
                    () => solver.GetVelocities(new Span<float>(big, 0, 2)));
      Expect.Status(Status.BufferTooSmall, "pbf_solver_get_velocities: capacity is 0",
                    () => solver.GetVelocities(Span<float>.Empty));

      for (int i = 0; i < slice.Length; ++i) slice[i] += 0.125f;
      Array.Copy(slice, 0, big, 1, 3 * n);
      solver.SetPositions(new ReadOnlySpan<float>(big, 1, 3 * n));
      Reference.BitIdentical(slice, 0, solver.GetPositions(), "positions from a slice");
      solver.SetVelocities(new ReadOnlySpan<float>(new float[3 * n]));
      Reference.BitIdentical(new float[3 * n], 0, solver.GetVelocities(), "velocities from a span");
      Expect.Status(Status.BufferTooSmall, "pbf_solver_set_velocities: length is 0",
                    () => solver.SetVelocities(ReadOnlySpan<float>.Empty));
    }
  }

  [Test]
  public void IntArgumentsCompileAndNegativeOnesAreRefusedByName() {
    using (Solver solver = Stepped()) {
      int substeps = 2;
      solver.Step(0.01f, substeps);
      Expect.Equal(2u, solver.GetStats().Substeps, "int substeps");
      solver.StartStep(0.01f, substeps);
      solver.WaitStep();
      var e = Expect.Throws<ArgumentOutOfRangeException>(() => solver.Step(0.01f, -1), "negative substeps");
      Expect.Equal("substeps", e.ParamName, "names substeps");
      Expect.Throws<ArgumentOutOfRangeException>(() => solver.StartStep(0.01f, -1), "negative substeps, async");
      Expect.Status(Status.InvalidArgument, "pbf_solver_step: substeps must be in [1, 1000], got 0",
                    () => solver.Step(0.01f, 0));
      int before = solver.ParticleCount;
      var r = Expect.Throws<ArgumentOutOfRangeException>(() => solver.RemoveParticles(new[] { 0, -2 }), "negative index");
      Expect.True(r.Message.Contains("indices[1]"), "names the index: " + r.Message);
      Expect.Equal(before, solver.ParticleCount, "nothing removed");
      solver.RemoveParticles(new[] { 0, 1 });
      Expect.Equal(before - 2, solver.ParticleCount, "two removed by int index");
      var values = new float[8];
      for (int i = 0; i < values.Length; ++i) values[i] = 1f;
      Expect.Throws<ArgumentOutOfRangeException>(
          () => solver.AddObstacleSdf(values, new[] { 2, -2, 2 }, new[] { 0f, 0f, 0f }, 0.1f), "negative dims");
      Expect.Equal(0, solver.AddObstacleSdf(values, new[] { 2, 2, 2 }, new[] { 0f, 0f, 0f }, 0.1f), "int dims");
    }
  }
}

}  // namespace Pbf.Tests
