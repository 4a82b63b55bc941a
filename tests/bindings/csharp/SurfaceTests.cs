// SurfaceTests.cs - liquid and solid surface meshes through the binding.
using System;
using System.IO;

namespace Pbf.Tests {

/// <summary>Surfaces: built from a solver and from a field, read back, refused, written.</summary>
public sealed class SurfaceTests {
  static Solver BallOfWater() {
    var solver = new Solver(new SolverDesc { ParticleSpacing = 0.02f, MaxParticles = 10000, Backend = Backend.Cpu });
    var p = new System.Collections.Generic.List<float>();
    for (int k = -6; k < 6; ++k)
      for (int j = -6; j < 6; ++j)
        for (int i = -6; i < 6; ++i) {
          float x = (i + 0.5f) * 0.02f, y = (j + 0.5f) * 0.02f, z = (k + 0.5f) * 0.02f;
          if (x * x + y * y + z * z > 0.1f * 0.1f) continue;
          p.Add(0.5f + x); p.Add(0.5f + y); p.Add(0.5f + z);
        }
    solver.AddParticles(p.ToArray());
    return solver;
  }

  [Test]
  public void ABallOfWaterGivesAClosedMeshWithOutwardUnitNormals() {
    using (Solver solver = BallOfWater())
    using (var surface = new Surface()) {
      surface.Build(solver, new SurfaceParams { CellSize = 0.5f });
      float[] v = surface.Vertices(), n = surface.Normals();
      uint[] t = surface.Triangles();
      Expect.True(surface.TriangleCount > 100, surface.TriangleCount + " triangles");
      Expect.Equal(3 * surface.VertexCount, v.Length, "3 floats a vertex");
      Expect.Equal(v.Length, n.Length, "a normal a vertex");
      Expect.Equal(2L, (long)surface.VertexCount - 3L * surface.TriangleCount / 2 + surface.TriangleCount,
                   "Euler characteristic of a closed ball");
      for (int i = 0; i < v.Length; i += 3) {
        double length = Math.Sqrt(n[i] * n[i] + n[i + 1] * n[i + 1] + n[i + 2] * n[i + 2]);
        Expect.True(Math.Abs(length - 1.0) < 1e-5, "unit normal, got length " + length);
        double outward = n[i] * (v[i] - 0.5f) + n[i + 1] * (v[i + 1] - 0.5f) + n[i + 2] * (v[i + 2] - 0.5f);
        Expect.True(outward > 0, "normal " + i / 3 + " points out of the ball");
      }
      foreach (uint index in t) Expect.True(index < surface.VertexCount, "index " + index + " names a vertex");
    }
  }

  [Test]
  public void ASolidsFieldGivesItsSurfaceAndAnEmptySolverAnEmptyMesh() {
    using (var surface = new Surface())
    using (SignedDistanceField ball = SignedDistanceField.Sphere(0.1f, 0.01f))
    using (var empty = new Solver(new SolverDesc { Backend = Backend.Cpu })) {
      surface.Build(ball);
      Expect.True(surface.TriangleCount > 100, surface.TriangleCount + " triangles of the solid");
      surface.Build(empty);
      Expect.Equal(0, surface.VertexCount, "no vertices without particles");
      Expect.Equal(0, surface.Triangles().Length, "no triangles");
    }
  }

  [Test]
  public void BadParametersAndShortArraysAreRefusedByName() {
    using (Solver solver = BallOfWater())
    using (var surface = new Surface()) {
      Expect.Status(Status.InvalidArgument, "pbf_solver_build_surface: params->cell_size",
                    () => surface.Build(solver, new SurfaceParams { CellSize = 0f }));
      Expect.Status(Status.InvalidArgument, "pbf_solver_build_surface: params->iso_level",
                    () => surface.Build(solver, new SurfaceParams { IsoLevel = 1f }));
      surface.Build(solver);
      Expect.Status(Status.BufferTooSmall, "pbf_surface_get_vertices: capacity",
                    () => surface.GetVertices(new float[2]));
      Expect.Status(Status.BufferTooSmall, "pbf_surface_get_triangles: capacity",
                    () => surface.GetTriangles(new uint[2]));
      surface.Dispose();
      Expect.Throws<ObjectDisposedException>(() => surface.Build(solver), "a disposed surface");
    }
  }

  [Test]
  public void WritePlyWritesTheMeshWithNormals() {
    string path = Path.Combine(Path.GetTempPath(), "pbf_cs_surface_" + Guid.NewGuid().ToString("N") + ".ply");
    using (Solver solver = BallOfWater())
    using (var surface = new Surface()) {
      surface.Build(solver);
      surface.WritePly(path);
      string text = File.ReadAllText(path);
      Expect.True(text.Contains("element vertex " + surface.VertexCount + "\n"), "vertex count in the header");
      Expect.True(text.Contains("property float nx\n"), "normals in the header");
      File.Delete(path);
      Expect.Status(Status.Io, "pbf_surface_write_ply: ", () => surface.WritePly(Path.GetTempPath()));
    }
  }
}

}  // namespace Pbf.Tests
