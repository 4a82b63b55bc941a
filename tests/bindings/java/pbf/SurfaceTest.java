// SurfaceTest.java - liquid and solid surface meshes through the binding.
package pbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SurfaceTest {
  /** Lattice points within 0.1 m of (0.5, 0.5, 0.5) at spacing 0.02 m. */
  private static Solver ballOfWater() {
    Solver solver = new Solver(new SolverDesc().setParticleSpacing(0.02f).setMaxParticles(10000)
        .setBackend(Backend.CPU));
    java.util.List<Float> p = new java.util.ArrayList<>();
    for (int k = -6; k < 6; ++k)
      for (int j = -6; j < 6; ++j)
        for (int i = -6; i < 6; ++i) {
          float x = (i + 0.5f) * 0.02f, y = (j + 0.5f) * 0.02f, z = (k + 0.5f) * 0.02f;
          if (x * x + y * y + z * z > 0.1f * 0.1f) continue;
          p.add(0.5f + x);
          p.add(0.5f + y);
          p.add(0.5f + z);
        }
    float[] positions = new float[p.size()];
    for (int i = 0; i < positions.length; ++i) positions[i] = p.get(i);
    solver.addParticles(positions, null);
    return solver;
  }

  private static PbfException refused(Status status, String prefix, Runnable call) {
    PbfException e = assertThrows(PbfException.class, call::run);
    assertEquals(status, e.getStatus(), e.getMessage());
    assertTrue(e.getMessage().startsWith(prefix), e.getMessage());
    return e;
  }

  @Test
  void aBallOfWaterGivesAClosedMeshWithOutwardUnitNormals() {
    try (Solver solver = ballOfWater(); Surface surface = new Surface()) {
      surface.build(solver, new SurfaceParams().setCellSize(0.5f));
      float[] v = surface.vertices(), n = surface.normals();
      int[] t = surface.triangles();
      int nv = surface.getVertexCount(), nt = surface.getTriangleCount();
      assertTrue(nt > 100, nt + " triangles");
      assertEquals(3 * nv, v.length);
      assertEquals(v.length, n.length, "a normal a vertex");
      assertEquals(3 * nt, t.length);
      assertEquals(2, nv - 3 * nt / 2 + nt, "Euler characteristic of a closed ball");
      for (int i = 0; i < v.length; i += 3) {
        double length = Math.sqrt(n[i] * n[i] + n[i + 1] * n[i + 1] + n[i + 2] * n[i + 2]);
        assertEquals(1.0, length, 1e-5, "unit normal");
        double outward = n[i] * (v[i] - 0.5f) + n[i + 1] * (v[i + 1] - 0.5f) + n[i + 2] * (v[i + 2] - 0.5f);
        assertTrue(outward > 0, "normal " + i / 3 + " points out of the ball");
      }
      for (int index : t) assertTrue(index >= 0 && index < nv, "index " + index + " names a vertex");
    }
  }

  @Test
  void aSolidsFieldGivesItsSurfaceAndAnEmptySolverAnEmptyMesh() {
    try (Surface surface = new Surface(); SignedDistanceField ball = SignedDistanceField.sphere(0.1f, 0.01f);
         Solver empty = new Solver(new SolverDesc().setBackend(Backend.CPU))) {
      surface.build(ball);
      assertTrue(surface.getTriangleCount() > 100, surface.getTriangleCount() + " triangles of the solid");
      surface.build(empty, null);
      assertEquals(0, surface.getVertexCount());
      assertEquals(0, surface.triangles().length);
    }
  }

  @Test
  void badParametersAndShortArraysAreRefusedByName() {
    try (Solver solver = ballOfWater()) {
      Surface surface = new Surface();
      refused(Status.INVALID_ARGUMENT, "pbf_solver_build_surface: params->cell_size",
          () -> surface.build(solver, new SurfaceParams().setCellSize(0f)));
      refused(Status.INVALID_ARGUMENT, "pbf_solver_build_surface: params->smoothing_radius",
          () -> surface.build(solver, new SurfaceParams().setSmoothingRadius(9f)));
      surface.build(solver, null);
      refused(Status.BUFFER_TOO_SMALL, "pbf_surface_get_normals: capacity", () -> surface.getNormals(new float[2]));
      refused(Status.BUFFER_TOO_SMALL, "pbf_surface_get_triangles: capacity", () -> surface.getTriangles(new int[2]));
      surface.close();
      assertThrows(IllegalStateException.class, () -> surface.build(solver, null));
    }
  }

  @Test
  void writePlyWritesTheMeshWithNormals(@TempDir Path dir) throws IOException {
    try (Solver solver = ballOfWater(); Surface surface = new Surface()) {
      surface.build(solver, null);
      Path path = dir.resolve("surface.ply");
      surface.writePly(path.toString());
      String text = new String(Files.readAllBytes(path), StandardCharsets.ISO_8859_1);
      assertTrue(text.contains("element vertex " + surface.getVertexCount() + "\n"), "vertex count in the header");
      assertTrue(text.contains("property float nx\n"), "normals in the header");
      refused(Status.IO, "pbf_surface_write_ply: ", () -> surface.writePly(dir.toString()));
    }
  }
}
