// ReferenceTest.java - the Java binding against the C library: defaults, and a
// dam break compared bit for bit with the same run through the C API.
package pbf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ReferenceTest {
  @Test
  void versionOfTheLoadedLibraryIsTheBindingsVersion() {
    assertEquals(Library.bindingVersion(), Library.version());
    assertEquals(Reference.integer("version"), Library.version());
    int v = Library.version();
    assertEquals((v / 10000) + "." + (v / 100 % 100) + "." + (v % 100), Library.versionString());
  }

  @Test
  void descriptionDefaultsAreTheCDefaults() {
    SolverDesc d = new SolverDesc();
    assertEquals(Reference.integer("desc.backend"), d.getBackend().swigValue());
    assertEquals(Reference.integer("desc.device_index"), d.getDeviceIndex());
    assertEquals(Reference.integer("desc.max_particles"), d.getMaxParticles());
    assertEquals(Reference.floating("desc.particle_spacing"), d.getParticleSpacing());
    assertEquals(Reference.floating("desc.kernel_radius"), d.getKernelRadius());
    assertEquals(Reference.floating("desc.rest_density"), d.getRestDensity());
    for (int a = 0; a < 3; ++a) {
      assertEquals(Reference.floating("desc.domain_min." + a), d.getDomainMin()[a]);
      assertEquals(Reference.floating("desc.domain_max." + a), d.getDomainMax()[a]);
    }
    assertEquals(Reference.integer("desc.thread_count"), d.getThreadCount());
    assertEquals(Reference.integer("desc.max_neighbors"), d.getMaxNeighbors());
  }

  @Test
  void descriptionDefaultsAreThoseOfTheHeaderTheGlueWasBuiltWith() {
    NativeSolverDesc c = PbfNative.pbf_solver_desc_default();
    try {
      SolverDesc d = SolverDesc.fromNative(c);
      SolverDesc mine = new SolverDesc();
      assertEquals(mine.getMaxParticles(), d.getMaxParticles());
      assertEquals(mine.getParticleSpacing(), d.getParticleSpacing());
      assertEquals(mine.getDomainMax()[2], d.getDomainMax()[2]);
      assertEquals(Reference.integer("sizeof.pbf_solver_desc"), c.getStruct_size());
    } finally {
      c.delete();
    }
  }

  @Test
  void parameterDefaultsAreTheCDefaults() {
    SolverParams p = new SolverParams();
    for (int a = 0; a < 3; ++a) assertEquals(Reference.floating("params.gravity." + a), p.getGravity()[a]);
    assertEquals(Reference.integer("params.iterations"), p.getIterations());
    assertEquals(Reference.floating("params.relaxation"), p.getRelaxation());
    assertEquals(Reference.integer("params.unilateral") != 0, p.isUnilateral());
    assertEquals(Reference.floating("params.artificial_pressure_k"), p.getArtificialPressureK());
    assertEquals(Reference.floating("params.artificial_pressure_n"), p.getArtificialPressureN());
    assertEquals(Reference.floating("params.artificial_pressure_dq"), p.getArtificialPressureDq());
    assertEquals(Reference.floating("params.xsph_viscosity"), p.getXsphViscosity());
    assertEquals(Reference.floating("params.vorticity_epsilon"), p.getVorticityEpsilon());
    assertEquals(Reference.floating("params.restitution"), p.getRestitution());
    assertEquals(Reference.floating("params.friction"), p.getFriction());
    assertEquals(Reference.floating("params.max_speed"), p.getMaxSpeed());
    NativeParams c = PbfNative.pbf_params_default();
    try {
      assertEquals(Reference.integer("sizeof.pbf_params"), c.getStruct_size());
    } finally {
      c.delete();
    }
  }

  @Test
  void damBreakIsBitIdenticalToTheSameRunThroughTheCApi() {
    float[] expected = Reference.damBreak();
    int n = (int) Reference.integer("dam_break.count");
    assertEquals(7 * n, expected.length);
    try (Solver solver = Reference.damBreakScene(Backend.CPU, 0)) {
      for (int step = 0; step < 40; ++step) solver.step(1.0f / 60.0f, 2);
      assertEquals(n, solver.getParticleCount());
      Reference.assertBitIdentical(expected, 0, solver.getPositions(), "positions");
      Reference.assertBitIdentical(expected, 3 * n, solver.getVelocities(), "velocities");
      Reference.assertBitIdentical(expected, 6 * n, solver.getDensities(), "densities");
      assertEquals(Reference.floating("dam_break.avg_density_error"), solver.getStats().getAvgDensityError());
      assertEquals(Reference.floating("dam_break.mass"), solver.getParticleMass());
    }
  }

  @Test
  void theCpuRunDoesNotDependOnTheThreadCount() {
    float[] two;
    float[] one;
    try (Solver solver = Reference.damBreakScene(Backend.CPU, 2)) {
      for (int step = 0; step < 10; ++step) solver.step(1.0f / 60.0f, 2);
      two = solver.getPositions();
    }
    try (Solver solver = Reference.damBreakScene(Backend.CPU, 1)) {
      for (int step = 0; step < 10; ++step) solver.step(1.0f / 60.0f, 2);
      one = solver.getPositions();
    }
    Reference.assertBitIdentical(two, 0, one, "positions with 1 thread against 2");
  }
}
