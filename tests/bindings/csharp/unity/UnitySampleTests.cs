// UnitySampleTests.cs - drives samples/unity/PbfFluid.cs as Unity would
// (OnEnable, Update per frame, OnDisable) against the stand-ins of
// UnityStandIns.cs and the real pbf binding, and checks what the component
// hands to Unity: the positions buffer its particles are drawn from (equal to
// the solver's, copied from the mapped memory), the instance count, the
// liquid surface mesh, the water's push on a Rigidbody, and that it releases
// what it made. Prints one line per test and exits non-zero on a failure.
using System;
using System.Reflection;
using Pbf;
using UnityEngine;

public static class UnitySampleTests {
  private static int failures;

  private static void Check(bool ok, string what) {
    Console.WriteLine((ok ? "ok    " : "FAIL  ") + what);
    if (!ok) ++failures;
  }

  private static void Call(PbfFluid fluid, string method) {
    typeof(PbfFluid).GetMethod(method, BindingFlags.Instance | BindingFlags.NonPublic).Invoke(fluid, null);
  }

  private static T Field<T>(PbfFluid fluid, string name) {
    return (T)typeof(PbfFluid).GetField(name, BindingFlags.Instance | BindingFlags.NonPublic).GetValue(fluid);
  }

  private static PbfFluid Small() {
    return new PbfFluid {
      backend = Backend.Cpu,
      particleSpacing = 0.05f,
      domainSize = new Vector3(1.0f, 1.0f, 0.5f),
      blockSize = new Vector3(0.3f, 0.4f, 0.3f),
      substeps = 2,
    };
  }

  // The particles are drawn from the solver's own positions, in one instanced call.
  private static void ParticlesAreDrawnFromTheSolversPositions(bool whileRendering) {
    string mode = whileRendering ? " (stepping while rendering)" : " (stepping in Update)";
    PbfFluid fluid = Small();
    fluid.stepWhileRendering = whileRendering;
    Call(fluid, "OnEnable");
    Solver solver = Field<Solver>(fluid, "solver");
    int n = (int)solver.ParticleCount;
    Check(n == 6 * 8 * 6, "OnEnable fills the block: " + n + " particles" + mode);
    var start = new float[3 * n];
    solver.GetPositions(start);
    for (int frame = 0; frame < 3; ++frame) {
      Graphics.Calls.Clear();
      Call(fluid, "Update");
      Check(Graphics.Calls.Count == 1 && Graphics.Calls[0] == "RenderMeshPrimitives" && Graphics.LastInstanceCount == n,
            "frame " + frame + ": one RenderMeshPrimitives of " + Graphics.LastInstanceCount + " instances" + mode);
    }
    if (whileRendering) solver.WaitStep();  // the step Update started: the buffer holds the positions before it
    GraphicsBuffer buffer = Field<GraphicsBuffer>(fluid, "positionsBuffer");
    var now = new float[3 * n];
    solver.GetPositions(now);
    var drawn = new float[3 * n];
    Array.Copy(buffer.Data, drawn, 3 * n);
    if (!whileRendering) {
      Check(buffer.count >= 3 * n && ArraysEqual(drawn, now), "the positions buffer holds the solver's positions" + mode);
    } else {
      // Drawn: the positions after the second step; the third ran while "Unity rendered".
      Check(!ArraysEqual(drawn, now) && !ArraysEqual(drawn, start),
            "the positions buffer holds the last finished step's positions, not the running one's" + mode);
    }
    Check(!ArraysEqual(now, start), "the water moved" + mode);
    Call(fluid, "OnDisable");
    Check(buffer.Released && GraphicsBuffer.Live.Count == 0, "OnDisable releases the positions buffer" + mode);
    Check(Field<Solver>(fluid, "solver") == null, "OnDisable disposes of the solver" + mode);
  }

  // With drawSurface the component builds the liquid's mesh and draws it instead of the particles.
  private static void TheSurfaceMeshIsTheLibrarysSurface() {
    PbfFluid fluid = Small();
    fluid.stepWhileRendering = false;
    fluid.drawSurface = true;
    Call(fluid, "OnEnable");
    Graphics.Calls.Clear();
    Call(fluid, "Update");
    Mesh mesh = Field<Mesh>(fluid, "surfaceMesh");
    Check(Graphics.Calls.Count == 1 && Graphics.Calls[0] == "RenderMesh" && Graphics.LastMesh == mesh,
          "drawSurface: one RenderMesh of the surface mesh, no particles");
    using (var surface = new Surface()) {
      surface.Build(Field<Solver>(fluid, "solver"), new SurfaceParams { CellSize = fluid.surfaceCellSize });
      int v = surface.VertexCount, t = surface.TriangleCount;
      var vertices = new float[3 * v];
      var normals = new float[3 * v];
      var triangles = new uint[3 * t];
      surface.GetVertices(vertices);
      surface.GetNormals(normals);
      surface.GetTriangles(triangles);
      Check(v > 0 && mesh.VertexCount == v && mesh.IndexCount == 3 * t && mesh.SubMesh.indexCount == 3 * t,
            "the mesh has the library's " + v + " vertices and " + t + " triangles");
      Check(ArraysEqual(mesh.Streams[0], vertices) && ArraysEqual(mesh.Streams[1], normals),
            "positions in stream 0, normals in stream 1, as the library gives them");
      bool same = mesh.Indices.Length == triangles.Length;
      for (int i = 0; same && i < triangles.Length; ++i) same = mesh.Indices[i] == triangles[i];
      Check(same, "32-bit indices as the library gives them");
    }
    UnityEngine.Object.Destroyed.Clear();
    Call(fluid, "OnDisable");
    Check(UnityEngine.Object.Destroyed.Contains(mesh), "OnDisable destroys the surface mesh");
  }

  // A ball with a Rigidbody inside the falling water receives the water's push.
  private static void AnObstaclesRigidbodyFeelsTheWater() {
    PbfFluid fluid = Small();
    fluid.stepWhileRendering = false;
    var ball = new Transform { position = new Vector3(0.15f, 0.1f, 0.15f) };
    var body = new Rigidbody();
    ball.Attach(body);
    fluid.obstacle = ball;
    fluid.obstacleRadius = 0.08f;
    Call(fluid, "OnEnable");
    for (int frame = 0; frame < 10; ++frame) Call(fluid, "Update");
    Check(body.Forces.Count == 10 && body.Torques.Count == 10, "a force and a torque per step: " + body.Forces.Count);
    float largest = 0.0f;
    foreach (Vector3 f in body.Forces) largest = Math.Max(largest, f.magnitude);
    Check(largest > 0.1f, "the water pushes the ball (largest force " + largest + " N)");
    Call(fluid, "OnDisable");
  }

  private static bool ArraysEqual(float[] a, float[] b) {
    if (a.Length != b.Length) return false;
    for (int i = 0; i < a.Length; ++i)
      if (a[i] != b[i] && !(float.IsNaN(a[i]) && float.IsNaN(b[i]))) return false;
    return true;
  }

  public static int Main() {
    ParticlesAreDrawnFromTheSolversPositions(false);
    ParticlesAreDrawnFromTheSolversPositions(true);
    TheSurfaceMeshIsTheLibrarysSurface();
    AnObstaclesRigidbodyFeelsTheWater();
    foreach (string m in Debug.Messages)
      if (m.StartsWith("error", StringComparison.Ordinal)) Check(false, "the component logged " + m);
    Console.WriteLine(failures == 0 ? "all passed" : failures + " failed");
    return failures == 0 ? 0 : 1;
  }
}
