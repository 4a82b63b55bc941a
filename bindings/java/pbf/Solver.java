// Solver.java - one fluid simulation, the idiomatic face of pbf_solver.
package pbf;

import java.lang.ref.Reference;
import java.nio.FloatBuffer;

/**
 * A Position Based Fluids solver: its particles, collision planes, parameters
 * and the statistics of its last step. Close it (try-with-resources) to free
 * its native memory at once; a solver that is never closed is freed once it
 * is unreachable. A solver may be used from any thread, but by one thread at a
 * time; any number of solvers may exist at once.
 *
 * <p>Particles keep the order in which they were added. Vectors travel as flat
 * float arrays, x, y, z per particle, copied in one native call per array.
 * Every failed call throws {@link PbfException} with the library's message and
 * status and leaves the solver as it was; calls on a closed solver throw
 * {@link IllegalStateException}.
 *
 * <pre>{@code
 * try (Solver solver = new Solver(new SolverDesc().setParticleSpacing(0.05f))) {
 *   solver.fillBox(new float[] {0, 0, 0}, new float[] {0.5f, 0.5f, 0.5f});
 *   for (int frame = 0; frame < 60; ++frame) solver.step(1 / 60f, 2);
 *   float[] xyz = solver.getPositions();
 * }
 * }</pre>
 */
public final class Solver implements AutoCloseable {
  private final NativeHandle handle;
  private final MappedField[] mapped = new MappedField[3];  // by field; keeps open views reachable

  /** Creates a solver with the default description (see {@link SolverDesc}). */
  public Solver() {
    this(new SolverDesc());
  }

  /**
   * Creates a solver from {@code desc}, with default parameters and no particles.
   *
   * @param desc the description; copied
   * @throws PbfException INVALID_ARGUMENT naming the field out of range; BACKEND_UNAVAILABLE when
   *     the backend cannot run here; OUT_OF_MEMORY
   */
  public Solver(SolverDesc desc) {
    Checks.nonNull(desc, "desc");
    NativeSolverDesc native_ = desc.toNative();
    long[] created = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_create(native_, created));
    } finally {
      native_.delete();
    }
    handle = new NativeHandle(this, created[0], PbfNative::pbf_solver_destroy, "the solver is closed");
  }

  /** Destroys the native solver. Calling it again does nothing. */
  @Override
  public void close() {
    handle.close();
  }

  /** @return true once {@link #close()} has run */
  public boolean isClosed() {
    return handle.isClosed();
  }

  /**
   * @return the description with every automatic value resolved: the backend chosen for AUTO, the
   *     kernel radius, the thread count and the neighbour capacity
   */
  public SolverDesc getDesc() {
    NativeSolverDesc d = PbfNative.pbf_solver_desc_default();
    try {
      PbfException.check(PbfNative.pbf_solver_get_desc(live(), d));
      return SolverDesc.fromNative(d);
    } finally {
      d.delete();
      Reference.reachabilityFence(this);
    }
  }

  /** @return the mass of one particle [kg], from spacing, kernel radius and rest density */
  public float getParticleMass() {
    float[] mass = new float[1];
    try {
      PbfException.check(PbfNative.pbf_solver_get_particle_mass(live(), mass));
      return mass[0];
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return a copy of the current parameters */
  public SolverParams getParams() {
    NativeParams p = PbfNative.pbf_params_default();
    try {
      PbfException.check(PbfNative.pbf_solver_get_params(live(), p));
      return SolverParams.fromNative(p);
    } finally {
      p.delete();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Replaces all parameters from the next step; an invalid field changes nothing.
   *
   * @param params the new parameters; copied
   * @throws PbfException INVALID_ARGUMENT naming the field
   */
  public void setParams(SolverParams params) {
    Checks.nonNull(params, "params");
    NativeParams p = params.toNative();
    try {
      PbfException.check(PbfNative.pbf_solver_set_params(live(), p));
    } finally {
      p.delete();
      Reference.reachabilityFence(this);
    }
  }

  /** @return the number of particles now in the solver */
  public int getParticleCount() {
    long[] count = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_particle_count(live(), count));
      return Math.toIntExact(count[0]);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Appends particles at rest.
   *
   * @param positions x, y, z per particle [m], each inside the domain
   * @throws PbfException CAPACITY_EXCEEDED; INVALID_ARGUMENT for NaN/Inf or a position outside the
   *     domain (nothing is added)
   */
  public void addParticles(float[] positions) {
    addParticles(positions, null);
  }

  /**
   * Appends particles; either every particle is added or none.
   *
   * @param positions x, y, z per particle [m], each inside the domain
   * @param velocities as long as {@code positions} [m/s], or null for particles at rest
   * @throws PbfException CAPACITY_EXCEEDED; INVALID_ARGUMENT for NaN/Inf or a position outside the
   *     domain
   */
  public void addParticles(float[] positions, float[] velocities) {
    int count = Checks.triples(positions, "positions");
    if (velocities != null && velocities.length != positions.length) {
      throw new IllegalArgumentException("velocities must be as long as positions (" + positions.length
          + " floats), not " + velocities.length);
    }
    try {
      PbfException.check(PbfNative.pbf_solver_add_particles(live(), positions, velocities, count));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Fills a box with particles at rest on a cubic lattice at the rest spacing.
   *
   * @param lo lower corner [m], 3 floats
   * @param hi upper corner [m], 3 floats
   * @return the number of particles added
   */
  public int fillBox(float[] lo, float[] hi) {
    return fillBox(lo, hi, null);
  }

  /**
   * Fills the box [lo, hi] with particles on a cubic lattice at the rest spacing;
   * lattice points outside the domain, or closer than half a spacing to one of its
   * walls (they would start compressed against it), are skipped.
   *
   * @param lo lower corner [m], 3 floats
   * @param hi upper corner [m], 3 floats
   * @param velocity the particles' velocity [m/s], 3 floats, or null for rest
   * @return the number of particles added
   * @throws PbfException INVALID_ARGUMENT; CAPACITY_EXCEEDED (nothing is added)
   */
  public int fillBox(float[] lo, float[] hi, float[] velocity) {
    Checks.vec3(lo, "lo");
    Checks.vec3(hi, "hi");
    if (velocity != null) Checks.vec3(velocity, "velocity");
    long[] added = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_fill_box(live(), lo, hi, velocity, added));
      return Math.toIntExact(added[0]);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Removes particles; the rest close up and keep their order.
   *
   * @param indices user-order indices, any order, no duplicates
   * @throws PbfException INVALID_ARGUMENT for an index out of range or repeated
   */
  public void removeParticles(int[] indices) {
    Checks.nonNull(indices, "indices");
    try {
      PbfException.check(PbfNative.pbf_solver_remove_particles(live(), indices));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Removes every particle; planes and parameters stay. */
  public void clearParticles() {
    try {
      PbfException.check(PbfNative.pbf_solver_clear_particles(live()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return every particle's position [m], x, y, z per particle, in a new array */
  public float[] getPositions() {
    float[] result = new float[3 * getParticleCount()];
    getPositions(result);
    return result;
  }

  /**
   * Copies every position; reusing one array avoids an allocation per frame.
   *
   * @param destination at least 3 x count floats
   * @throws PbfException BUFFER_TOO_SMALL
   */
  public void getPositions(float[] destination) {
    Checks.nonNull(destination, "destination");
    try {
      PbfException.check(PbfNative.pbf_solver_get_positions(live(), destination));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return every particle's velocity [m/s], x, y, z per particle, in a new array */
  public float[] getVelocities() {
    float[] result = new float[3 * getParticleCount()];
    getVelocities(result);
    return result;
  }

  /**
   * Copies every velocity.
   *
   * @param destination at least 3 x count floats
   * @throws PbfException BUFFER_TOO_SMALL
   */
  public void getVelocities(float[] destination) {
    Checks.nonNull(destination, "destination");
    try {
      PbfException.check(PbfNative.pbf_solver_get_velocities(live(), destination));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Evaluates every particle's density at its current position, moving nothing, so that
   * getDensities() describes the state as it is (e.g. before the first step);
   * pbf_solver_update_densities().
   */
  public void updateDensities() {
    try {
      PbfException.check(PbfNative.pbf_solver_update_densities(live()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return every particle's density [kg/m^3] at the end of the last step (0 before it, unless updateDensities() ran) */
  public float[] getDensities() {
    float[] result = new float[getParticleCount()];
    getDensities(result);
    return result;
  }

  /**
   * Copies every density.
   *
   * @param destination at least count floats
   * @throws PbfException BUFFER_TOO_SMALL
   */
  public void getDensities(float[] destination) {
    Checks.nonNull(destination, "destination");
    try {
      PbfException.check(PbfNative.pbf_solver_get_densities(live(), destination));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Copies every position into a direct buffer, from its position on; the position does not move.
   * One copy, into memory the caller owns (a buffer to upload to the GPU, say).
   *
   * @param destination a direct FloatBuffer in the native byte order with at least 3 x count floats
   *     remaining
   * @throws IllegalArgumentException for a heap, read-only or non-native-order buffer
   * @throws PbfException BUFFER_TOO_SMALL
   */
  public void getPositions(FloatBuffer destination) {
    getField(Field.POSITIONS, destination);
  }

  /**
   * Copies every velocity [m/s] into a direct buffer, as {@link #getPositions(FloatBuffer)}.
   *
   * @param destination a direct native-order FloatBuffer with at least 3 x count floats remaining
   * @throws IllegalArgumentException for a heap, read-only or non-native-order buffer
   * @throws PbfException BUFFER_TOO_SMALL
   */
  public void getVelocities(FloatBuffer destination) {
    getField(Field.VELOCITIES, destination);
  }

  /**
   * Copies every density into a direct buffer, as {@link #getPositions(FloatBuffer)}.
   *
   * @param destination a direct native-order FloatBuffer with at least count floats remaining
   * @throws IllegalArgumentException for a heap, read-only or non-native-order buffer
   * @throws PbfException BUFFER_TOO_SMALL
   */
  public void getDensities(FloatBuffer destination) {
    getField(Field.DENSITIES, destination);
  }

  private void getField(Field field, FloatBuffer destination) {
    Checks.direct(destination, "destination", true);
    try {
      PbfException.check(PbfNative.pbf_java_get_field(
          live(), field.swigValue(), destination, destination.position(), destination.remaining()));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(destination);
    }
  }

  /**
   * Overwrites every position from a direct buffer: its remaining floats, from its position on,
   * exactly 3 x count; the position does not move.
   *
   * @param source a direct FloatBuffer in the native byte order
   * @throws IllegalArgumentException for a heap or non-native-order buffer
   * @throws PbfException BUFFER_TOO_SMALL or INVALID_ARGUMENT naming the length; INVALID_ARGUMENT for
   *     a bad value
   */
  public void setPositions(FloatBuffer source) {
    setField(Field.POSITIONS, source);
  }

  /**
   * Overwrites every velocity [m/s] from a direct buffer, as {@link #setPositions(FloatBuffer)}.
   *
   * @param source a direct FloatBuffer in the native byte order, exactly 3 x count floats remaining
   * @throws IllegalArgumentException for a heap or non-native-order buffer
   * @throws PbfException BUFFER_TOO_SMALL or INVALID_ARGUMENT
   */
  public void setVelocities(FloatBuffer source) {
    setField(Field.VELOCITIES, source);
  }

  private void setField(Field field, FloatBuffer source) {
    Checks.direct(source, "source", false);
    try {
      PbfException.check(
          PbfNative.pbf_java_set_field(live(), field.swigValue(), source, source.position(), source.remaining()));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(source);
    }
  }

  /**
   * Lends a field in host memory without a copy; as {@link #map(Field, Memory)} with {@link
   * Memory#HOST}.
   *
   * @param field the field to lend
   * @return the view; close it before changing particles
   * @throws PbfException INVALID_ARGUMENT when the field is already mapped; BUSY during an
   *     asynchronous step
   */
  public MappedField map(Field field) {
    return map(field, Memory.HOST);
  }

  /**
   * Lends one field without a copy until the returned view is closed (pbf_solver_map): host memory
   * that a direct buffer reads in place, or (CUDA backend, {@link Memory#DEVICE}) a device address.
   * While it is mapped, calls that change particles throw {@link PbfException} with {@link
   * Status#BUSY}. See {@link MappedField} for the lifetime rules.
   *
   * @param field the field to lend
   * @param memory where
   * @return the view; close it (try-with-resources) before changing particles
   * @throws PbfException INVALID_ARGUMENT when the field is already mapped or for device memory on a
   *     CPU solver; BUSY during an asynchronous step
   */
  public MappedField map(Field field, Memory memory) {
    Checks.nonNull(field, "field");
    Checks.nonNull(memory, "memory");
    // The view pins the handle: a solver closed under it is destroyed only once its views are.
    long p = handle.pin();
    boolean lent = false;
    try {
      long[] data = new long[1];
      long[] count = new long[1];
      PbfException.check(PbfNative.pbf_solver_map(p, field, memory, data, count));
      lent = true;
      MappedField view = new MappedField(this, handle, field, memory, data[0], Math.toIntExact(count[0]));
      mapped[field.swigValue()] = view;
      return view;
    } catch (RuntimeException | Error e) {
      if (lent) PbfNative.pbf_solver_unmap(p, field);
      handle.unpin();
      throw e;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Called by a view that ends its loan. */
  void unmapped(MappedField view) {
    int f = view.getField().swigValue();
    if (f >= 0 && f < mapped.length && mapped[f] == view) mapped[f] = null;
  }

  /**
   * Overwrites every position.
   *
   * @param positions exactly 3 x count floats, all inside the domain
   * @throws PbfException BUFFER_TOO_SMALL when shorter; INVALID_ARGUMENT when longer or a value is bad
   */
  public void setPositions(float[] positions) {
    Checks.nonNull(positions, "positions");
    try {
      PbfException.check(PbfNative.pbf_solver_set_positions(live(), positions));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Overwrites every velocity.
   *
   * @param velocities exactly 3 x count floats [m/s]
   * @throws PbfException BUFFER_TOO_SMALL when shorter; INVALID_ARGUMENT when longer or a value is bad
   */
  public void setVelocities(float[] velocities) {
    Checks.nonNull(velocities, "velocities");
    try {
      PbfException.check(PbfNative.pbf_solver_set_velocities(live(), velocities));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Adds the static plane {x : dot(normal, x) + offset = 0}; the fluid stays on the side the
   * normal points to. At most 64 planes.
   *
   * @param normal 3 floats, finite and non-zero
   * @param offset [m]
   * @return the plane's index: 0, 1, ... in the order added
   * @throws PbfException INVALID_ARGUMENT; CAPACITY_EXCEEDED for the 65th plane
   */
  public int addPlane(float[] normal, float offset) {
    Checks.vec3(normal, "normal");
    long[] index = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_add_plane(live(), normal, offset, index));
      return (int) index[0];
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Removes every plane added with {@link #addPlane}; the domain box stays. */
  public void clearPlanes() {
    try {
      PbfException.check(PbfNative.pbf_solver_clear_planes(live()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Adds the solid of {@code sdf} as an obstacle: a rigid body that particles stay one radius
   * outside of, slide along with the parameters' friction and are carried by when it moves. The
   * solver copies the field; {@code sdf} may be closed at once. At most 64 obstacles.
   *
   * @param sdf the solid, in its own frame
   * @param rotation its rotation as a quaternion x, y, z, w (4 floats, normalised), or null for none
   * @param translation its position [m], 3 floats, or null for the origin
   * @return the obstacle's index: 0, 1, ... in the order added
   * @throws PbfException INVALID_ARGUMENT naming the argument; CAPACITY_EXCEEDED for the 65th
   */
  public int addObstacle(SignedDistanceField sdf, float[] rotation, float[] translation) {
    Checks.nonNull(sdf, "sdf");
    Checks.pose(rotation, translation);
    long[] index = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_add_obstacle(live(), sdf.live(), rotation, translation, index));
      return (int) index[0];
    } finally {
      Reference.reachabilityFence(sdf);
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Adds an obstacle from samples of its signed distance field [m] (negative inside), x varying
   * fastest: sample (i, j, k) at index i + dims[0] * (j + dims[1] * k), lying at
   * origin + (i, j, k) x cell in the obstacle's frame. The grid must enclose the solid with a
   * margin of a few cells. The solver copies the samples.
   *
   * @param values dims[0] x dims[1] x dims[2] finite distances [m]
   * @param dims samples along x, y, z, each 2 .. 4096
   * @param origin position [m] of sample (0, 0, 0), 3 floats
   * @param cell sample spacing [m], &gt; 0
   * @param rotation quaternion x, y, z, w (4 floats), or null for none
   * @param translation position [m], 3 floats, or null for the origin
   * @return the obstacle's index
   * @throws PbfException INVALID_ARGUMENT naming the argument; CAPACITY_EXCEEDED for the 65th
   */
  public int addObstacleSdf(float[] values, int[] dims, float[] origin, float cell, float[] rotation,
      float[] translation) {
    Checks.nonNull(values, "values");
    Checks.nonNull(dims, "dims");
    if (dims.length != 3) throw new IllegalArgumentException("dims must hold 3 values, not " + dims.length);
    Checks.vec3(origin, "origin");
    Checks.pose(rotation, translation);
    long[] index = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_add_obstacle_sdf(live(), values, dims, origin, cell, rotation,
          translation, index));
      return (int) index[0];
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Sets where an obstacle will be at the end of the next step; its substeps move it there
   * (rotation by slerp, translation linearly), carrying the fluid it touches. Call it once per
   * frame, before the step, for an obstacle that moves.
   *
   * @param index the index {@link #addObstacle} returned
   * @param rotation quaternion x, y, z, w (4 floats), or null to keep the rotation
   * @param translation position [m], 3 floats, or null to keep the position
   * @throws PbfException INVALID_ARGUMENT for an unknown index or a bad value
   */
  public void setObstaclePose(int index, float[] rotation, float[] translation) {
    Checks.count(index, "index");
    Checks.pose(rotation, translation);
    try {
      PbfException.check(PbfNative.pbf_solver_set_obstacle_pose(live(), index, rotation, translation));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return the number of obstacles */
  public int getObstacleCount() {
    long[] count = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_get_obstacle_count(live(), count));
      return (int) count[0];
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * What the liquid exerted on an obstacle during the last step, averaged over it: the force [N]
   * and the torque [N m] about the obstacle's origin (its translation where the step left it), in
   * world axes. A host engine that drives the obstacle with {@link #setObstaclePose} applies them
   * to its own rigid body. Attach boundary particles to the obstacle
   * ({@link #addObstacleBoundaryParticles}) for accurate forces.
   *
   * @param index the index {@link #addObstacle} returned
   * @param force receives the force, 3 floats, or null
   * @param torque receives the torque, 3 floats, or null
   * @throws PbfException INVALID_ARGUMENT for an unknown index or the Projective Fluids method
   */
  public void getObstacleForce(int index, float[] force, float[] torque) {
    Checks.count(index, "index");
    if (force != null) Checks.vec3(force, "force");
    if (torque != null) Checks.vec3(torque, "torque");
    try {
      PbfException.check(PbfNative.pbf_solver_get_obstacle_force(live(), index, force, torque));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Where an obstacle is now (after the last step, or where it was placed): a dynamic body's pose is
   * where the water, gravity and the walls have taken it.
   *
   * @param index the index {@link #addObstacle} returned
   * @param rotation receives the quaternion x, y, z, w (4 floats), or null
   * @param translation receives the position [m], 3 floats, or null
   * @throws PbfException INVALID_ARGUMENT for an unknown index
   */
  public void getObstaclePose(int index, float[] rotation, float[] translation) {
    Checks.count(index, "index");
    Checks.pose(rotation, translation);
    try {
      PbfException.check(PbfNative.pbf_solver_get_obstacle_pose(live(), index, rotation, translation));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Makes an obstacle a dynamic body: gravity, the water and contacts with the walls, planes and
   * kinematic obstacles move it every substep. It starts at rest where it is.
   *
   * @param index the index {@link #addObstacle} returned
   * @param mass its mass [kg], or 0 to make it kinematic again (centre and inertia may then be null)
   * @param centre its centre of mass in its own frame [m], 3 floats
   * @param inertia its inertia tensor about that centre [kg m^2], 9 floats, row-major
   *     ({@link SignedDistanceField#massProperties} gives all three)
   * @throws PbfException INVALID_ARGUMENT for a bad index or mass properties, or Projective Fluids
   */
  public void setObstacleDynamic(int index, float mass, float[] centre, float[] inertia) {
    Checks.count(index, "index");
    if (mass != 0.0f) {
      Checks.vec3(centre, "centre");
      Checks.nonNull(inertia, "inertia");
      if (inertia.length != 9) throw new IllegalArgumentException("inertia must hold 9 floats, not " + inertia.length);
    }
    try {
      PbfException.check(PbfNative.pbf_solver_set_obstacle_dynamic(live(), index, mass, centre, inertia));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Sets a dynamic obstacle's velocity (of its centre of mass) and angular velocity, world axes.
   *
   * @param index the index {@link #addObstacle} returned
   * @param linear [m/s], 3 floats, or null to keep it
   * @param angular [rad/s], 3 floats, or null to keep it
   * @throws PbfException INVALID_ARGUMENT for a kinematic obstacle, an unknown index or a bad value
   */
  public void setObstacleVelocity(int index, float[] linear, float[] angular) {
    Checks.count(index, "index");
    if (linear != null) Checks.vec3(linear, "linear");
    if (angular != null) Checks.vec3(angular, "angular");
    try {
      PbfException.check(PbfNative.pbf_solver_set_obstacle_velocity(live(), index, linear, angular));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A dynamic obstacle's velocity (of its centre of mass) and angular velocity, world axes.
   *
   * @param index the index {@link #addObstacle} returned
   * @param linear receives [m/s], 3 floats, or null
   * @param angular receives [rad/s], 3 floats, or null
   * @throws PbfException INVALID_ARGUMENT for a kinematic obstacle or an unknown index
   */
  public void getObstacleVelocity(int index, float[] linear, float[] angular) {
    Checks.count(index, "index");
    if (linear != null) Checks.vec3(linear, "linear");
    if (angular != null) Checks.vec3(angular, "angular");
    try {
      PbfException.check(PbfNative.pbf_solver_get_obstacle_velocity(live(), index, linear, angular));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Gives an obstacle (kinematic or dynamic) a surface material of its own in place of the
   * parameters' friction and restitution ({@link SolverParams#setFriction},
   * {@link SolverParams#setRestitution}), which every obstacle follows until it is given one (and
   * again after {@link #clearObstacleMaterial}); the domain walls and the planes keep the
   * parameters'. Where a dynamic body touches something, the contact takes the geometric mean of the
   * two surfaces' frictions and the larger of their restitutions (a wall or a plane counts with the
   * parameters'). Water does not bounce off obstacles whatever their restitution. The material stays
   * with the obstacle while it turns dynamic or kinematic.
   *
   * @param index the index {@link #addObstacle} returned
   * @param friction Coulomb friction along it, 0 .. 10: 0 slips freely, a large value holds
   * @param restitution a contact's normal speed leaving over arriving, 0 .. 1
   * @throws PbfException INVALID_ARGUMENT for an unknown index or a bad value; nothing changes then
   */
  public void setObstacleMaterial(int index, float friction, float restitution) {
    Checks.count(index, "index");
    try {
      PbfException.check(PbfNative.pbf_solver_set_obstacle_material(live(), index, friction, restitution));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Makes an obstacle follow the parameters' friction and restitution again
   * ({@link #setObstacleMaterial}).
   *
   * @param index the index {@link #addObstacle} returned
   * @throws PbfException INVALID_ARGUMENT for an unknown index
   */
  public void clearObstacleMaterial(int index) {
    Checks.count(index, "index");
    try {
      PbfException.check(PbfNative.pbf_solver_clear_obstacle_material(live(), index));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The friction and restitution an obstacle's surface has now: its own material's
   * ({@link #setObstacleMaterial}), or the parameters' where it has none.
   *
   * @param index the index {@link #addObstacle} returned
   * @return {friction (0 .. 10), restitution (0 .. 1)}
   * @throws PbfException INVALID_ARGUMENT for an unknown index
   */
  public float[] getObstacleMaterial(int index) {
    Checks.count(index, "index");
    float[] friction = new float[1];
    float[] restitution = new float[1];
    try {
      PbfException.check(PbfNative.pbf_solver_get_obstacle_material(live(), index, friction, restitution));
      return new float[] {friction[0], restitution[0]};
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Removes every obstacle and the boundary particles attached to them. */
  public void clearObstacles() {
    try {
      PbfException.check(PbfNative.pbf_solver_clear_obstacles(live()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Fills the inside of a solid with particles at the rest spacing on the lattice of
   * {@link #fillBox}; points outside the domain, or closer than half a spacing to one of
   * its walls, are skipped. All or nothing.
   *
   * @param sdf the solid, in its own frame
   * @param rotation quaternion x, y, z, w (4 floats), or null for none
   * @param translation position [m], 3 floats, or null for the origin
   * @param velocity the particles' velocity [m/s], 3 floats, or null for rest
   * @return the number of particles added
   * @throws PbfException CAPACITY_EXCEEDED, saying how many the solid holds; INVALID_ARGUMENT
   */
  public int fillSdf(SignedDistanceField sdf, float[] rotation, float[] translation, float[] velocity) {
    Checks.nonNull(sdf, "sdf");
    Checks.pose(rotation, translation);
    if (velocity != null) Checks.vec3(velocity, "velocity");
    long[] added = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_fill_sdf(live(), sdf.live(), rotation, translation, velocity, added));
      return Math.toIntExact(added[0]);
    } finally {
      Reference.reachabilityFence(sdf);
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Adds boundary particles for the surface of the solid of {@code sdf}, placed by {@code rotation}
   * and {@code translation}: points spread evenly about a particle spacing apart, set back inside
   * the solid as the domain walls' samples are, so that fluid resting on it has the rest density.
   * For solids that do not move (see {@link #addObstacleBoundaryParticles}).
   *
   * @param sdf the solid, in its own frame
   * @param rotation quaternion x, y, z, w (4 floats), or null for none
   * @param translation position [m] (3 floats), or null for the origin
   * @return the number of boundary particles added
   * @throws PbfException INVALID_ARGUMENT (also for a PROJECTIVE solver); CAPACITY_EXCEEDED
   */
  public int addSdfBoundaryParticles(SignedDistanceField sdf, float[] rotation, float[] translation) {
    Checks.nonNull(sdf, "sdf");
    Checks.pose(rotation, translation);
    long[] added = new long[1];
    try {
      PbfException.check(
          PbfNative.pbf_solver_add_sdf_boundary_particles(live(), sdf.live(), rotation, translation, added));
      return Math.toIntExact(added[0]);
    } finally {
      Reference.reachabilityFence(sdf);
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Adds boundary particles attached to an obstacle: its own surface sampled as
   * {@link #addSdfBoundaryParticles} samples a solid, in its frame. They move with the obstacle
   * (every substep places them at its pose), so fluid resting on a moving solid has the rest
   * density. {@link #removeObstacleBoundaryParticles} removes them and keeps the obstacle;
   * {@link #clearObstacles} removes them with the obstacle.
   *
   * @param index the index {@link #addObstacle} returned
   * @return the number of boundary particles added
   * @throws PbfException INVALID_ARGUMENT for an unknown index or a PROJECTIVE solver; CAPACITY_EXCEEDED
   */
  public int addObstacleBoundaryParticles(int index) {
    Checks.count(index, "index");
    long[] added = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_add_obstacle_boundary_particles(live(), index, added));
      return Math.toIntExact(added[0]);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Removes the boundary particles attached to an obstacle and keeps the obstacle; every other
   * boundary particle stays as it was.
   *
   * @param index the index {@link #addObstacle} returned
   * @return the number of boundary particles removed (0 when the obstacle had none)
   * @throws PbfException INVALID_ARGUMENT for an unknown index; nothing changes then
   */
  public int removeObstacleBoundaryParticles(int index) {
    Checks.count(index, "index");
    long[] removed = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_remove_obstacle_boundary_particles(live(), index, removed));
      return Math.toIntExact(removed[0]);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Adds static boundary particles (Akinci et al. 2012), samples of a solid surface at about the
   * particle spacing that add density to the fluid near them. Each must lie within one kernel
   * radius of the domain. Nothing is added on failure.
   *
   * @param positions x, y, z per particle [m], world frame
   * @throws PbfException INVALID_ARGUMENT naming the first bad value, or for a PROJECTIVE solver;
   *     CAPACITY_EXCEEDED
   */
  public void addBoundaryParticles(float[] positions) {
    int count = Checks.triples(positions, "positions");
    try {
      PbfException.check(PbfNative.pbf_solver_add_boundary_particles(live(), positions, count));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Samples the six walls of the domain box with boundary particles, set back so that fluid
   * resting against a wall has the rest density. Call it once; {@link #clearBoundaryParticles()}
   * undoes it.
   *
   * @return the number of boundary particles added
   * @throws PbfException CAPACITY_EXCEEDED; INVALID_ARGUMENT for a PROJECTIVE solver
   */
  public int addDomainBoundaryParticles() {
    long[] added = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_add_domain_boundary_particles(live(), added));
      return Math.toIntExact(added[0]);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return the number of boundary particles, the domain walls' included */
  public int getBoundaryParticleCount() {
    long[] count = new long[1];
    try {
      PbfException.check(PbfNative.pbf_solver_get_boundary_particle_count(live(), count));
      return Math.toIntExact(count[0]);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Removes every boundary particle, the domain walls' included. */
  public void clearBoundaryParticles() {
    try {
      PbfException.check(PbfNative.pbf_solver_clear_boundary_particles(live()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Advances the simulation by {@code dt} seconds in one substep.
   *
   * @param dt seconds, 0 &lt; dt &lt;= 10
   */
  public void step(float dt) {
    step(dt, 1);
  }

  /**
   * Advances the simulation by {@code dt} seconds in {@code substeps} equal substeps.
   *
   * @param dt seconds, 0 &lt; dt &lt;= 10
   * @param substeps 1 .. 1000
   * @throws PbfException INVALID_ARGUMENT
   */
  public void step(float dt, int substeps) {
    Checks.count(substeps, "substeps");
    try {
      PbfException.check(PbfNative.pbf_solver_step(live(), dt, substeps));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Starts the step {@link #step(float, int)} would run and returns at once; it runs on a thread
   * the solver starts (and on its worker threads or GPU). Until {@link #waitStep()} returns, every
   * other call on this solver throws {@link PbfException} with {@link Status#BUSY}, except
   * {@link #isStepDone()}, {@link #waitStep()} and {@link #close()} (which waits). A game engine
   * simulates the next frame this way while it renders the last one.
   *
   * @param dt seconds, 0 &lt; dt &lt;= 10
   * @param substeps 1 .. 1000
   * @throws PbfException INVALID_ARGUMENT, checked here as by step; BUSY when a step is running
   */
  public void startStep(float dt, int substeps) {
    Checks.count(substeps, "substeps");
    try {
      PbfException.check(PbfNative.pbf_solver_step_async(live(), dt, substeps));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Waits for the step started by {@link #startStep}; returns at once when none was started.
   *
   * @throws PbfException the status and message of a step that failed
   */
  public void waitStep() {
    try {
      PbfException.check(PbfNative.pbf_solver_wait(live()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return false while a step started by {@link #startStep} runs; never blocks */
  public boolean isStepDone() {
    int[] done = new int[1];
    try {
      PbfException.check(PbfNative.pbf_solver_poll(live(), done));
      return done[0] != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** @return statistics of the last step */
  public SolverStats getStats() {
    NativeStats s = PbfNative.pbf_stats_default();
    try {
      PbfException.check(PbfNative.pbf_solver_get_stats(live(), s));
      return SolverStats.fromNative(s);
    } finally {
      s.delete();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Writes the particles as a binary PLY file (x y z vx vy vz density, and red green blue coloured by
   * speed, per vertex) that Blender, Houdini, MeshLab and ParaView open; complete or not at all.
   *
   * @param path the file to write
   * @throws PbfException IO with the path and the system's reason
   */
  public void writePly(String path) {
    Checks.nonNull(path, "path");
    try {
      PbfException.check(PbfNative.pbf_solver_write_ply(live(), path));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Saves the complete state (description, parameters, planes, statistics, particles); the file
   * appears complete or not at all.
   *
   * @param path the file to write
   * @throws PbfException IO with the path and the reason
   */
  public void saveCheckpoint(String path) {
    Checks.nonNull(path, "path");
    try {
      PbfException.check(PbfNative.pbf_solver_save_checkpoint(live(), path));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Replaces the state by a checkpoint; stepping on continues exactly as the saved run would have
   * (bit for bit on the CPU). On failure nothing changes.
   *
   * @param path the checkpoint to read
   * @throws PbfException IO for a missing, foreign or damaged file; INVALID_ARGUMENT when the
   *     solver's description differs from the checkpoint's; CAPACITY_EXCEEDED
   */
  public void loadCheckpoint(String path) {
    Checks.nonNull(path, "path");
    try {
      PbfException.check(PbfNative.pbf_solver_load_checkpoint(live(), path));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** The native pointer, or IllegalStateException once closed. */
  long live() {
    return handle.live();
  }
}
