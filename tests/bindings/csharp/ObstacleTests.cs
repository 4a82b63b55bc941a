// ObstacleTests.cs - signed distance fields, solid obstacles and boundary
// particles through the binding.
using System;
using System.IO;

namespace Pbf.Tests {

/// <summary>Solids in a solver: fields, obstacles, fills and boundary particles.</summary>
public sealed class ObstacleTests {
  const float Radius = 0.2f;

  static Solver DamBreak(Method method = Method.Pbf) {
    return new Solver(new SolverDesc { ParticleSpacing = 0.05f, MaxParticles = 10000, Backend = Backend.Cpu,
                                       Method = method });
  }

  /// <summary>The particle nearest to <paramref name="centre"/>: its distance [m].</summary>
  static float Nearest(Solver solver, float[] centre) {
    float[] x = solver.GetPositions();
    float nearest = float.MaxValue;
    for (int i = 0; i < x.Length; i += 3) {
      float dx = x[i] - centre[0], dy = x[i + 1] - centre[1], dz = x[i + 2] - centre[2];
      nearest = Math.Min(nearest, (float)Math.Sqrt(dx * dx + dy * dy + dz * dz));
    }
    return nearest;
  }

  [Test]
  public void ADamBreakFlowsAroundASphereAndItsMove() {
    using (Solver solver = DamBreak())
    using (SignedDistanceField ball = SignedDistanceField.Sphere(Radius, 0.02f)) {
      var centre = new[] { 0.6f, 0.2f, 0.5f };
      int index = solver.AddObstacle(ball, null, centre);
      Expect.Equal(0, index, "first obstacle's index");
      Expect.Equal(1, solver.ObstacleCount, "obstacle count");
      int added = solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.3f, 0.6f, 1f });
      Expect.True(added > 1000, "the column holds " + added + " particles");
      for (int frame = 0; frame < 30; ++frame) solver.Step(1f / 60f, 2);
      // The sphere keeps particles a radius (2.5 cm) outside; its 2 cm grid is within a few mm.
      float nearest = Nearest(solver, centre);
      Expect.True(nearest > Radius, "nearest particle " + nearest + " m from the centre is outside the sphere");

      // Raised by 5 cm a frame; each frame's substeps carry the fluid it meets.
      for (int frame = 1; frame <= 6; ++frame) {
        centre[1] = 0.2f + 0.05f * frame;
        solver.SetObstaclePose(index, new[] { 0f, 0f, 0f, 1f }, centre);
        solver.Step(1f / 60f, 4);
      }
      nearest = Nearest(solver, centre);
      Expect.True(nearest > Radius - 0.01f, "nearest particle " + nearest + " m from the moved centre");
      solver.ClearObstacles();
      Expect.Equal(0, solver.ObstacleCount, "obstacles after clear");
    }
  }

  [Test]
  public void AFloorObstacleCarriesTheWeightOfTheWaterOnIt() {
    using (Solver solver = DamBreak())
    using (SignedDistanceField floor = SignedDistanceField.Box(new[] { 0.6f, 0.1f, 0.6f }, 0.025f)) {
      // A box wider than the domain, its top at y = 0.1 m: the water rests on it alone.
      int index = solver.AddObstacle(floor, null, new[] { 0.5f, 0f, 0.5f });
      solver.AddObstacleBoundaryParticles(index);
      var force = new float[3];
      var torque = new float[3];
      solver.GetObstacleForce(index, force, torque);
      Expect.True(force[0] == 0f && force[1] == 0f && force[2] == 0f, "zero before the first step");
      int added = solver.FillBox(new[] { 0f, 0.1f, 0f }, new[] { 1f, 0.3f, 1f });
      for (int frame = 0; frame < 90; ++frame) solver.Step(1f / 60f, 4);
      double weight = 0;
      for (int frame = 0; frame < 30; ++frame) {
        solver.Step(1f / 60f, 4);
        solver.GetObstacleForce(index, force, null);
        weight -= force[1] / 30.0;
      }
      double expected = added * solver.ParticleMass * 9.81;
      Expect.True(Math.Abs(weight - expected) < 0.03 * expected, "the floor carries " + weight + " N of " + expected);
      solver.GetObstacleForce(index, null, torque);
      Expect.True(!float.IsNaN(torque[0]) && !float.IsNaN(torque[1]) && !float.IsNaN(torque[2]), "a finite torque");
      Expect.Throws<ArgumentException>(() => solver.GetObstacleForce(index, new float[2]), "a force of 2 floats");
      Expect.Status(Status.InvalidArgument, "pbf_solver_get_obstacle_force",
                    () => solver.GetObstacleForce(index + 1, force));
    }
    // Projective Fluids measures them too: zero before its first step; water that lands on a ball pushes it down.
    using (Solver solver = DamBreak(Method.Projective))
    using (SignedDistanceField ball = SignedDistanceField.Sphere(Radius, 0.02f)) {
      int index = solver.AddObstacle(ball, null, new[] { 0.5f, 0.5f, 0.5f });
      var force = new[] { 1f, 1f, 1f };
      solver.GetObstacleForce(index, force);
      Expect.True(force[0] == 0f && force[1] == 0f && force[2] == 0f, "zero before the first step");
      solver.FillBox(new[] { 0.35f, 0.75f, 0.35f }, new[] { 0.65f, 0.85f, 0.65f });
      double down = 0;
      for (int frame = 0; frame < 12; ++frame) {
        solver.Step(1f / 60f, 2);
        solver.GetObstacleForce(index, force);
        foreach (float f in force) Expect.True(!float.IsNaN(f) && !float.IsInfinity(f), "a finite force");
        down = Math.Min(down, force[1]);
      }
      Expect.True(down < -0.1, "the landing water pushes the ball down: " + down + " N");
    }
  }

  [Test]
  public void ABallOfHalfTheWatersDensityDroppedIntoWaterFloats() {
    using (Solver solver = DamBreak())
    using (SignedDistanceField ball = SignedDistanceField.Sphere(0.1f, 0.02f)) {
      solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 1f, 0.3f, 1f });
      int index = solver.AddObstacle(ball, null, new[] { 0.5f, 0.6f, 0.5f });
      solver.AddObstacleBoundaryParticles(index);
      var velocity = new float[3];
      Expect.Status(Status.InvalidArgument, "pbf_solver_get_obstacle_velocity",
                    () => solver.GetObstacleVelocity(index, velocity));
      var centre = new float[3];
      var inertia = new float[9];
      float mass = ball.MassProperties(500f, centre, inertia);
      solver.SetObstacleDynamic(index, mass, centre, inertia);
      for (int frame = 0; frame < 120; ++frame) solver.Step(1f / 60f, 4);
      var at = new float[3];
      solver.GetObstaclePose(index, null, at);
      solver.GetObstacleVelocity(index, velocity);
      // It fell from 0.6 m onto water 0.3 m deep and floats there, its centre near the surface.
      Expect.True(at[1] > 0.2f && at[1] < 0.4f, "the ball floats with its centre at " + at[1] + " m");
      double speed = Math.Sqrt(velocity[0] * velocity[0] + velocity[1] * velocity[1] + velocity[2] * velocity[2]);
      Expect.True(speed < 0.2, "nearly still: " + speed + " m/s");
      Expect.Throws<ArgumentException>(() => solver.SetObstacleDynamic(index, mass, centre, new float[3]),
                                       "an inertia of 3 floats");
      solver.SetObstacleDynamic(index, 0f, null, null);
      Expect.Status(Status.InvalidArgument, "pbf_solver_set_obstacle_velocity",
                    () => solver.SetObstacleVelocity(index, velocity));
    }
  }

  /// <summary>Fails unless obstacle <paramref name="index"/>'s surface has this friction and restitution.</summary>
  static void HasMaterial(Solver solver, int index, float friction, float restitution, string what) {
    float f, r;
    solver.GetObstacleMaterial(index, out f, out r);
    // Stored and returned as the same floats: exact.
    Expect.Equal(friction, f, what + ": friction");
    Expect.Equal(restitution, r, what + ": restitution");
  }

  [Test]
  public void AnObstacleFollowsTheParametersMaterialUntilGivenItsOwn() {
    using (Solver solver = DamBreak())
    using (SignedDistanceField ball = SignedDistanceField.Sphere(Radius, 0.05f)) {
      SolverParams p = solver.GetParams();
      p.Friction = 0.25f;
      p.Restitution = 0.5f;
      solver.SetParams(p);
      int index = solver.AddObstacle(ball, null, new[] { 0.5f, 0.5f, 0.5f });
      HasMaterial(solver, index, 0.25f, 0.5f, "the parameters' before a material of its own");
      solver.SetObstacleMaterial(index, 0.8f, 0.3f);
      HasMaterial(solver, index, 0.8f, 0.3f, "its own");

      Expect.Status(Status.InvalidArgument, "pbf_solver_set_obstacle_material",
                    () => solver.SetObstacleMaterial(index, float.NaN, 0.3f));
      Expect.Status(Status.InvalidArgument, "pbf_solver_set_obstacle_material",
                    () => solver.SetObstacleMaterial(index, 11f, 0.3f));
      Expect.Status(Status.InvalidArgument, "pbf_solver_set_obstacle_material",
                    () => solver.SetObstacleMaterial(index, 0.8f, 1.5f));
      Expect.Status(Status.InvalidArgument, "pbf_solver_set_obstacle_material",
                    () => solver.SetObstacleMaterial(index + 1, 0.5f, 0.5f));
      Expect.Throws<ArgumentOutOfRangeException>(() => solver.SetObstacleMaterial(-1, 0.5f, 0.5f), "a negative index");
      HasMaterial(solver, index, 0.8f, 0.3f, "kept after the refused calls");
      Expect.Status(Status.InvalidArgument, "pbf_solver_get_obstacle_material", () => {
        float f, r;
        solver.GetObstacleMaterial(index + 1, out f, out r);
      });
      Expect.Status(Status.InvalidArgument, "pbf_solver_clear_obstacle_material",
                    () => solver.ClearObstacleMaterial(index + 1));
      HasMaterial(solver, index, 0.8f, 0.3f, "kept after clearing an obstacle that is not there");

      solver.ClearObstacleMaterial(index);
      HasMaterial(solver, index, 0.25f, 0.5f, "the parameters' again after clear");
      p.Friction = 0.1f;
      solver.SetParams(p);
      HasMaterial(solver, index, 0.1f, 0.5f, "following the parameters as they change");
    }
  }

  [Test]
  public void SampledFieldsAreObstaclesToo() {
    using (Solver solver = DamBreak())
    using (SignedDistanceField ball = SignedDistanceField.Sphere(Radius, 0.02f)) {
      uint[] dims = ball.Dims;
      Expect.Equal(dims[0] * dims[1] * dims[2], (uint)ball.Values().Length, "one value per sample");
      solver.AddObstacle(ball);
      int index = solver.AddObstacleSdf(ball.Values(), dims, ball.Origin, ball.Cell, null, new[] { 0.5f, 0.5f, 0.5f });
      Expect.Equal(1, index, "second obstacle's index");
      Expect.Equal(2, solver.ObstacleCount, "obstacle count");
      Expect.Status(Status.InvalidArgument, "pbf_solver_set_obstacle_pose",
                    () => solver.SetObstaclePose(2, null, new[] { 0f, 0f, 0f }));
      Expect.Throws<ArgumentException>(() => solver.SetObstaclePose(0, new[] { 0f, 0f, 1f }, null),
                                       "a rotation of 3 floats");
    }
  }

  [Test]
  public void ABoxHasTheMassAndInertiaOfItsSolid() {
    using (SignedDistanceField box = SignedDistanceField.Box(new[] { 0.1f, 0.2f, 0.3f }, 0.01f)) {
      var centre = new float[3];
      var inertia = new float[9];
      float mass = box.MassProperties(500f, centre, inertia);
      double expected = 500.0 * 0.2 * 0.4 * 0.6;  // 24 kg; I_xx = M (0.2^2 + 0.3^2) / 3 with half extents
      Expect.True(Math.Abs(mass - expected) < 0.02 * expected, "mass " + mass + " kg of " + expected);
      Expect.True(Math.Abs(centre[0]) < 1e-3f && Math.Abs(centre[1]) < 1e-3f && Math.Abs(centre[2]) < 1e-3f,
                  "centred at the origin");
      double ixx = expected * (0.04 + 0.09) / 3.0, izz = expected * (0.01 + 0.04) / 3.0;
      Expect.True(Math.Abs(inertia[0] - ixx) < 0.02 * ixx, "I_xx " + inertia[0] + " of " + ixx);
      Expect.True(Math.Abs(inertia[8] - izz) < 0.02 * ixx, "I_zz " + inertia[8] + " of " + izz);
      Expect.True(Math.Abs(inertia[1]) < 0.001 * ixx, "no product of inertia");
      Expect.Equal(mass, box.MassProperties(500f), "mass alone");
      Expect.Throws<ArgumentException>(() => box.MassProperties(500f, null, new float[3]), "an inertia of 3 floats");
      Expect.Status(Status.InvalidArgument, "pbf_sdf_mass_properties", () => box.MassProperties(0f));
    }
  }

  [Test]
  public void FillingASphereGivesItsVolumeOverTheSpacingCubed() {
    using (Solver solver = DamBreak())
    using (SignedDistanceField ball = SignedDistanceField.Sphere(Radius, 0.02f)) {
      double exact = 4.0 / 3.0 * Math.PI * Radius * Radius * Radius;
      Expect.True(Math.Abs(ball.Volume() - exact) < 0.03 * exact, "volume " + ball.Volume() + " m^3 of " + exact);
      int added = solver.FillSdf(ball, null, new[] { 0.5f, 0.5f, 0.5f }, new[] { 0f, -1f, 0f });
      double expected = exact / (0.05 * 0.05 * 0.05);  // about 268
      // A lattice of spacing 0.05 m meets a sphere 8 spacings across within a few percent.
      Expect.True(Math.Abs(added - expected) < 0.1 * expected, added + " particles, about " + expected + " expected");
      Expect.Equal(added, solver.ParticleCount, "particle count");
      Expect.Equal(-1f, solver.GetVelocities()[1], "fill velocity");
      // Trilinear between samples 2 cm apart: within 2 mm away from the centre, where the field has a kink.
      float deep = ball.Distance(new[] { 0.1f, 0f, 0f });
      Expect.True(Math.Abs(deep + 0.1f) < 2e-3f, "0.1 m from the centre is " + deep + " m deep, not 0.1 m");
      Expect.True(Math.Abs(ball.Distance(new[] { 0.3f, 0f, 0f }) - 0.1f) < 2e-3f, "0.1 m outside");
    }
  }

  [Test]
  public void FieldsSurviveASaveAndLoadAndMeshFilesBecomeFields() {
    string dir = Path.Combine(Path.GetTempPath(), "pbf-csharp-" + Guid.NewGuid().ToString("N"));
    Directory.CreateDirectory(dir);
    try {
      string path = Path.Combine(dir, "box.sdf");
      using (SignedDistanceField box = SignedDistanceField.Box(new[] { 0.1f, 0.2f, 0.3f }, 0.02f)) {
        box.Save(path);
        using (SignedDistanceField loaded = SignedDistanceField.Load(path)) {
          Reference.BitIdentical(box.Values(), 0, loaded.Values(), "values");
          Expect.Equal(string.Join(",", box.Dims), string.Join(",", loaded.Dims), "dims");
          Reference.BitIdentical(box.Origin, 0, loaded.Origin, "origin");
          Expect.Equal(box.Cell, loaded.Cell, "cell");
        }
      }
      // A cube of side 0.4 m centred at the origin.
      string obj = Path.Combine(dir, "cube.obj");
      File.WriteAllText(obj, "v -0.2 -0.2 -0.2\nv 0.2 -0.2 -0.2\nv 0.2 0.2 -0.2\nv -0.2 0.2 -0.2\n" +
                             "v -0.2 -0.2 0.2\nv 0.2 -0.2 0.2\nv 0.2 0.2 0.2\nv -0.2 0.2 0.2\n" +
                             "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 3 4 8 7\nf 2 3 7 6\nf 1 5 8 4\n");
      using (SignedDistanceField cube = SignedDistanceField.FromMeshFile(obj, new[] { 1f, 1f, 1f }, null,
                                                                        new[] { 0.5f, 0.5f, 0.5f }, 0.02f, 0f)) {
        Expect.True(Math.Abs(cube.Volume() - 0.064f) < 0.03f * 0.064f, "cube volume " + cube.Volume() + " m^3");
        Expect.True(Math.Abs(cube.Distance(new[] { 0.5f, 0.5f, 0.5f }) + 0.2f) < 2e-3f, "centre 0.2 m deep");
      }
      Expect.Status(Status.Io, "pbf_sdf_load", () => SignedDistanceField.Load(Path.Combine(dir, "missing.sdf")));
    } finally {
      Directory.Delete(dir, true);
    }
  }

  [Test]
  public void ABadCellIsRefusedByName() {
    PbfException e = Expect.Status(Status.InvalidArgument, "pbf_sdf_sphere",
                                   () => SignedDistanceField.Sphere(Radius, 0f));
    Expect.True(e.Message.Contains("cell"), "\"" + e.Message + "\" names cell");
    e = Expect.Status(Status.InvalidArgument, "pbf_sdf_box",
                      () => SignedDistanceField.Box(new[] { 0.1f, 0.1f, 0.1f }, -1f));
    Expect.True(e.Message.Contains("cell"), "\"" + e.Message + "\" names cell");
    Expect.Throws<ArgumentException>(() => SignedDistanceField.Box(new[] { 0.1f }, 0.02f), "two half extents short");
  }

  [Test]
  public void ADisposedFieldThrowsAndDisposesTwice() {
    SignedDistanceField ball = SignedDistanceField.Sphere(Radius, 0.05f);
    Expect.True(!ball.IsDisposed, "live");
    ball.Dispose();
    ball.Dispose();
    Expect.True(ball.IsDisposed, "disposed");
    Expect.Throws<ObjectDisposedException>(() => ball.Volume(), "Volume after Dispose");
    Expect.Throws<ObjectDisposedException>(() => ball.Values(), "Values after Dispose");
    using (Solver solver = DamBreak()) {
      Expect.Throws<ObjectDisposedException>(() => solver.AddObstacle(ball), "AddObstacle of a disposed field");
      Expect.Throws<ObjectDisposedException>(() => solver.FillSdf(ball), "FillSdf of a disposed field");
      Expect.Equal(0, solver.ObstacleCount, "nothing added");
    }
  }

  [Test]
  public void DomainWallsAreSampledWithBoundaryParticles() {
    using (Solver solver = DamBreak()) {
      Expect.Equal(0, solver.BoundaryParticleCount, "none at first");
      int walls = solver.AddDomainBoundaryParticles();
      Expect.True(walls > 0, walls + " wall samples");
      Expect.Equal(walls, solver.BoundaryParticleCount, "count after the walls");
      solver.AddBoundaryParticles(new[] { 0.5f, 0.5f, 0.5f, 0.55f, 0.5f, 0.5f });
      Expect.Equal(walls + 2, solver.BoundaryParticleCount, "count after two more");
      solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.3f, 0.3f, 0.3f });
      solver.Step(1f / 60f, 2);
      Expect.Status(Status.InvalidArgument, "pbf_solver_add_boundary_particles",
                    () => solver.AddBoundaryParticles(new[] { float.NaN, 0f, 0f }));
      solver.ClearBoundaryParticles();
      Expect.Equal(0, solver.BoundaryParticleCount, "none after clear");
      using (SignedDistanceField box = SignedDistanceField.Box(new[] { 0.1f, 0.1f, 0.1f }, 0.01f)) {
        int samples = solver.AddSdfBoundaryParticles(box, null, new[] { 0.5f, 0.2f, 0.5f });
        Expect.True(samples > 20, samples + " samples of the box's surface");
        Expect.Equal(samples, solver.BoundaryParticleCount, "count after the box");
      }
    }
  }

  [Test]
  public void AnObstaclesBoundaryParticlesMoveWithItAndGoWithIt() {
    using (Solver solver = DamBreak()) {
      int wall = solver.AddDomainBoundaryParticles();
      using (SignedDistanceField box = SignedDistanceField.Box(new[] { 0.1f, 0.1f, 0.1f }, 0.01f)) {
        int index = solver.AddObstacle(box, null, new[] { 0.5f, 0.5f, 0.5f });
        int samples = solver.AddObstacleBoundaryParticles(index);
        Expect.True(samples > 20, samples + " samples of the box's surface");
        Expect.Equal(wall + samples, solver.BoundaryParticleCount, "count with the box's");
        solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.3f, 0.3f, 0.3f });
        solver.SetObstaclePose(index, null, new[] { 0.6f, 0.5f, 0.5f });
        solver.Step(1f / 60f, 2);
        Expect.Status(Status.InvalidArgument, "pbf_solver_add_obstacle_boundary_particles",
                      () => solver.AddObstacleBoundaryParticles(index + 1));
        Expect.Throws<ArgumentOutOfRangeException>(() => solver.AddObstacleBoundaryParticles(-1), "a negative index");
        Expect.Equal(samples, solver.RemoveObstacleBoundaryParticles(index), "the box's samples removed");
        Expect.Equal(wall, solver.BoundaryParticleCount, "the walls' after removing the box's");
        Expect.Equal(0, solver.RemoveObstacleBoundaryParticles(index), "none left to remove");
        Expect.Status(Status.InvalidArgument, "pbf_solver_remove_obstacle_boundary_particles",
                      () => solver.RemoveObstacleBoundaryParticles(index + 1));
        Expect.Throws<ArgumentOutOfRangeException>(() => solver.RemoveObstacleBoundaryParticles(-1),
                                                   "a negative index");
        solver.Step(1f / 60f, 2);
        Expect.Equal(samples, solver.AddObstacleBoundaryParticles(index), "the box sampled again");
        solver.ClearObstacles();
        Expect.Equal(wall, solver.BoundaryParticleCount, "the walls' after clearing the obstacles");
      }
    }
  }

  [Test]
  public void AProjectiveSolverTakesBoundaryParticles() {
    using (Solver solver = DamBreak(Method.Projective)) {
      int walls = solver.AddDomainBoundaryParticles();
      Expect.True(walls > 0, "domain walls sampled");
      solver.AddBoundaryParticles(new[] { 0.5f, 0.5f, 0.5f });
      Expect.Equal(walls + 1, solver.BoundaryParticleCount, "walls and one sample");
      solver.Step(1.0f / 60.0f, 1);
    }
  }
}

}  // namespace Pbf.Tests
