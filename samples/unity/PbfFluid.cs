// PbfFluid.cs - a Unity component that runs a pbf solver and draws its
// particles with procedural GPU instancing, or the liquid's surface. Put it on an empty GameObject; the
// fluid's box spans [0, DomainSize] in the object's local space. See README.md.
// Needs Unity 2021.2 or later (Graphics.RenderMeshPrimitives) and unsafe code
// (the package's Pbf.Unity.asmdef allows it).
using Pbf;
using Unity.Collections;
using Unity.Collections.LowLevel.Unsafe;
using UnityEngine;
using UnityEngine.Rendering;

/// <summary>
/// Simulates a block of water collapsing in a box (a dam break) with the pbf
/// native plugin and draws every particle as an instance of one mesh. Each
/// frame the solver lends its positions (Solver.Map), Unity uploads them from
/// that memory straight into a GraphicsBuffer, and PbfParticles.shader places
/// instance i at particle i: no managed copy and no per-particle matrix. The
/// solver steps on its own threads while Unity renders: each frame waits for
/// the step started the frame before, uploads and draws, and starts the next.
/// </summary>
public sealed class PbfFluid : MonoBehaviour {
  [Tooltip("Auto picks CUDA when the plugin has it and a GPU is usable, else the CPU. " +
           "An unavailable backend falls back to the CPU with a warning.")]
  public Backend backend = Backend.Auto;

  [Tooltip("Rest distance between particles [m]. Halving it makes 8 times as many particles.")]
  public float particleSpacing = 0.05f;

  [Tooltip("The box the fluid is kept in [m], from the object's origin.")]
  public Vector3 domainSize = new Vector3(4.0f, 3.0f, 1.5f);

  [Tooltip("The block of water at the start [m], in the domain's corner.")]
  public Vector3 blockSize = new Vector3(1.0f, 1.0f, 1.0f);

  [Range(1, 16)] public int substeps = 4;
  [Range(1, 20)] public int iterations = 4;

  [Tooltip("Step while Unity renders (StartStep/WaitStep) instead of inside Update.")]
  public bool stepWhileRendering = true;

  [Tooltip("Drawn per particle; a sphere when empty.")]
  public Mesh particleMesh;

  [Tooltip("A material with the Pbf/Particles shader (it reads the positions buffer); made at run time when empty.")]
  public Material particleMaterial;

  [Tooltip("A solid sphere that follows this transform (move it by hand or animate it); none when empty.")]
  public Transform obstacle;

  [Tooltip("The obstacle sphere's radius [m].")]
  public float obstacleRadius = 0.3f;

  [Tooltip("When the obstacle carries a non-kinematic Rigidbody, the water pushes it: each step's force and torque on the sphere go to the Rigidbody.")]
  public bool obstacleFeelsWater = true;

  [Tooltip("When > 0 [kg/m^3], the plugin moves the obstacle itself as a dynamic body of this density (it floats, sinks, is carried by the water) and the transform follows it; a Rigidbody on it is then ignored.")]
  public float obstacleDensity = 0.0f;

  [Tooltip("Draw the liquid's surface (a mesh the plugin builds each frame) instead of the particles.")]
  public bool drawSurface = false;

  [Tooltip("A material for the liquid's surface (any lit, e.g. transparent, material); made at run time when empty.")]
  public Material surfaceMaterial;

  [Tooltip("The surface grid's cell [particle spacings]: smaller is finer and slower (the work grows as its inverse cube).")]
  [Range(0.25f, 2.0f)] public float surfaceCellSize = 0.75f;

  private Solver solver;
  private GraphicsBuffer positionsBuffer;  // 3 floats per particle, what _Positions reads
  private int particleCount;
  private MaterialPropertyBlock properties;
  private bool stepping;
  private static readonly int PositionsId = Shader.PropertyToID("_Positions");
  private static readonly int FluidToWorldId = Shader.PropertyToID("_FluidToWorld");
  private static readonly int ParticleScaleId = Shader.PropertyToID("_ParticleScale");
  private Surface surface;        // the liquid's surface, rebuilt each frame while drawSurface is on
  private Mesh surfaceMesh;
  private float[] surfaceVertices = new float[0], surfaceNormals = new float[0];
  private uint[] surfaceTriangles = new uint[0];
  private int obstacleIndex = -1;
  private readonly float[] obstacleRotation = new float[4], obstacleTranslation = new float[3];
  private Rigidbody obstacleBody;  // the obstacle's, when it has one: it receives the water's push
  private readonly float[] obstacleForce = new float[3], obstacleTorque = new float[3];

  private void OnEnable() {
    SolverDesc desc = new SolverDesc {
      Backend = backend,
      ParticleSpacing = particleSpacing,
      MaxParticles = 4000000,
      DomainMin = new[] { 0.0f, 0.0f, 0.0f },
      DomainMax = new[] { domainSize.x, domainSize.y, domainSize.z },
    };
    try {
      solver = new Solver(desc);
    } catch (PbfException e) {
      if (e.Status != Status.BackendUnavailable) throw;
      Debug.LogWarning("pbf: " + e.Message + "; using the CPU");
      desc.Backend = Backend.Cpu;
      solver = new Solver(desc);
    }
    SolverParams p = solver.GetParams();
    p.Iterations = (uint)iterations;  // a property: uint, unlike the int overloads of Step
    solver.SetParams(p);
    if (obstacle != null) {
      // The solver copies the field: it is freed at once.
      using (SignedDistanceField ball = SignedDistanceField.Sphere(obstacleRadius, 0.5f * particleSpacing)) {
        ObstaclePose();
        obstacleIndex = solver.AddObstacle(ball, obstacleRotation, obstacleTranslation);
        // Boundary particles on the sphere give the water beside it its full density, and the force on it
        // its full measure (only those attached to an obstacle count in its force).
        solver.AddObstacleBoundaryParticles(obstacleIndex);
        if (obstacleDensity > 0.0f) {
          // The plugin moves it: mass, centre and inertia of a ball of that density, at rest where it is.
          var centre = new float[3];
          var inertia = new float[9];
          float mass = ball.MassProperties(obstacleDensity, centre, inertia);
          solver.SetObstacleDynamic(obstacleIndex, mass, centre, inertia);
        }
      }
      obstacleBody = obstacleDensity > 0.0f ? null : obstacle.GetComponent<Rigidbody>();
    }
    int count = solver.FillBox(new[] { 0.0f, 0.0f, 0.0f }, new[] { blockSize.x, blockSize.y, blockSize.z });
    positionsBuffer = new GraphicsBuffer(GraphicsBuffer.Target.Structured, Mathf.Max(3 * count, 3), sizeof(float));
    properties = new MaterialPropertyBlock();
    Upload();
    Debug.Log("pbf " + Library.VersionString + ": " + count + " particles on " +
              Library.BackendName(solver.GetDesc().Backend));

    if (particleMesh == null) {
      GameObject sphere = GameObject.CreatePrimitive(PrimitiveType.Sphere);
      particleMesh = sphere.GetComponent<MeshFilter>().sharedMesh;
      Destroy(sphere);
    }
    if (particleMaterial == null) {
      // A player has the shader only if something references it: assign a material, or list
      // Pbf/Particles under Project Settings > Graphics > Always Included Shaders.
      Shader shader = Shader.Find("Pbf/Particles");
      if (shader == null) Debug.LogError("pbf: the shader Pbf/Particles is not in this build; assign Particle Material");
      else particleMaterial = new Material(shader);
    }
  }

  private void Update() {
    if (solver == null) return;
    // At most 1/30 s per frame: a long hitch would otherwise make one huge step.
    float dt = Mathf.Min(Time.deltaTime, 1.0f / 30.0f);
    if (stepWhileRendering) {
      if (stepping) {
        solver.WaitStep();  // the step started last frame
        PushObstacleBody();
      }
      stepping = false;
      Upload();  // maps and unmaps: the solver refuses to step while its positions are lent
      BuildSurface();  // between steps: the solver refuses to mesh while it steps
      Draw();
      if (dt > 0.0f) {
        MoveObstacle();
        solver.StartStep(dt, substeps);
        stepping = true;
      }
    } else {
      if (dt > 0.0f) {
        MoveObstacle();
        solver.Step(dt, substeps);
        PushObstacleBody();
      }
      Upload();
      BuildSurface();
      Draw();
    }
  }

  /// <summary>
  /// Rebuilds the liquid's surface from the particles (the plugin meshes them on the CPU, with
  /// per-vertex normals) and copies it into a Unity mesh through the advanced Mesh API: positions
  /// in stream 0, normals in stream 1, 32-bit indices. The plugin's triangles run counter-clockwise
  /// seen from outside in its right-handed frame; read as Unity's left-handed local coordinates the
  /// same points wind clockwise from outside, which is Unity's front face, so no index is swapped.
  /// </summary>
  private void BuildSurface() {
    if (!drawSurface) return;
    if (surface == null) surface = new Surface();
    if (surfaceMesh == null) {
      surfaceMesh = new Mesh { name = "pbf liquid surface" };
      surfaceMesh.MarkDynamic();
    }
    surface.Build(solver, new SurfaceParams { CellSize = surfaceCellSize });
    int vertices = surface.VertexCount, triangles = surface.TriangleCount;
    if (surfaceVertices.Length < 3 * vertices) {
      surfaceVertices = new float[3 * vertices];
      surfaceNormals = new float[3 * vertices];
    }
    if (surfaceTriangles.Length < 3 * triangles) surfaceTriangles = new uint[3 * triangles];
    surface.GetVertices(surfaceVertices);
    surface.GetNormals(surfaceNormals);
    surface.GetTriangles(surfaceTriangles);
    const MeshUpdateFlags quiet = MeshUpdateFlags.DontValidateIndices | MeshUpdateFlags.DontRecalculateBounds;
    surfaceMesh.SetVertexBufferParams(vertices,
        new VertexAttributeDescriptor(VertexAttribute.Position, VertexAttributeFormat.Float32, 3, 0),
        new VertexAttributeDescriptor(VertexAttribute.Normal, VertexAttributeFormat.Float32, 3, 1));
    surfaceMesh.SetVertexBufferData(surfaceVertices, 0, 0, 3 * vertices, 0, quiet);
    surfaceMesh.SetVertexBufferData(surfaceNormals, 0, 0, 3 * vertices, 1, quiet);
    surfaceMesh.SetIndexBufferParams(3 * triangles, IndexFormat.UInt32);
    surfaceMesh.SetIndexBufferData(surfaceTriangles, 0, 0, 3 * triangles, quiet);
    surfaceMesh.subMeshCount = 1;
    surfaceMesh.SetSubMesh(0, new SubMeshDescriptor(0, 3 * triangles), quiet);
    surfaceMesh.bounds = new Bounds(0.5f * domainSize, domainSize);  // local space: no vertex leaves the domain
  }

  /// <summary>The obstacle's transform in the domain's frame, into obstacleRotation and obstacleTranslation.</summary>
  private void ObstaclePose() {
    Quaternion q = Quaternion.Inverse(transform.rotation) * obstacle.rotation;
    Vector3 t = transform.InverseTransformPoint(obstacle.position);
    obstacleRotation[0] = q.x; obstacleRotation[1] = q.y; obstacleRotation[2] = q.z; obstacleRotation[3] = q.w;
    obstacleTranslation[0] = t.x; obstacleTranslation[1] = t.y; obstacleTranslation[2] = t.z;
  }

  /// <summary>
  /// Gives the obstacle's Rigidbody the force and torque the water exerted on the sphere in the step that
  /// has just ended (Solver.GetObstacleForce, in the fluid's local space, the torque about the sphere's
  /// centre), turned into world space and moved to the body's centre of mass. Unity's physics applies
  /// them over its next fixed step; the body's pose goes back to the solver before the next step
  /// (MoveObstacle), so the body is driven by the host and pushed by the water.
  /// </summary>
  private void PushObstacleBody() {
    if (obstacleIndex < 0 || obstacleBody == null || obstacleBody.isKinematic || !obstacleFeelsWater) return;
    solver.GetObstacleForce(obstacleIndex, obstacleForce, obstacleTorque);
    Vector3 force = transform.TransformDirection(new Vector3(obstacleForce[0], obstacleForce[1], obstacleForce[2]));
    Vector3 torque = transform.TransformDirection(new Vector3(obstacleTorque[0], obstacleTorque[1], obstacleTorque[2]));
    torque += Vector3.Cross(obstacle.position - obstacleBody.worldCenterOfMass, force);
    obstacleBody.AddForce(force);
    obstacleBody.AddTorque(torque);
  }

  /// <summary>
  /// Tells the solver where the obstacle is to be at the end of the coming step; a dynamic one (obstacleDensity
  /// > 0) goes the other way: the transform is put where the water has taken the body.
  /// </summary>
  private void MoveObstacle() {
    if (obstacleIndex < 0 || obstacle == null) return;
    if (obstacleDensity > 0.0f) {
      solver.GetObstaclePose(obstacleIndex, obstacleRotation, obstacleTranslation);
      obstacle.position = transform.TransformPoint(new Vector3(obstacleTranslation[0], obstacleTranslation[1],
                                                               obstacleTranslation[2]));
      obstacle.rotation = transform.rotation * new Quaternion(obstacleRotation[0], obstacleRotation[1],
                                                              obstacleRotation[2], obstacleRotation[3]);
      return;
    }
    ObstaclePose();
    solver.SetObstaclePose(obstacleIndex, obstacleRotation, obstacleTranslation);
  }

  /// <summary>
  /// Copies the positions from the solver's own memory into the GraphicsBuffer: the mapped memory
  /// (page-locked on the CUDA backend) is wrapped as a NativeArray without a copy, and SetData
  /// uploads it. The view ends before the solver steps again.
  /// </summary>
  private void Upload() {
    using (MappedField mapped = solver.Map(Field.Positions, Memory.Host)) {
      particleCount = mapped.Count;
      if (particleCount == 0) return;
      if (mapped.Length > positionsBuffer.count) {
        positionsBuffer.Release();
        positionsBuffer = new GraphicsBuffer(GraphicsBuffer.Target.Structured, mapped.Length, sizeof(float));
      }
      unsafe {
        NativeArray<float> view = NativeArrayUnsafeUtility.ConvertExistingDataToNativeArray<float>(
            (void*)mapped.Pointer, mapped.Length, Allocator.None);
#if ENABLE_UNITY_COLLECTIONS_CHECKS
        AtomicSafetyHandle safety = AtomicSafetyHandle.Create();
        NativeArrayUnsafeUtility.SetAtomicSafetyHandle(ref view, safety);
#endif
        positionsBuffer.SetData(view, 0, 0, mapped.Length);
#if ENABLE_UNITY_COLLECTIONS_CHECKS
        AtomicSafetyHandle.Release(safety);
#endif
      }
    }
  }

  /// <summary>Draws the liquid's surface, or every particle in one instanced call (the shader reads
  /// its position from the buffer).</summary>
  private void Draw() {
    if (drawSurface) {
      if (surfaceMesh == null) return;
      if (surfaceMaterial == null) {
        Shader lit = Shader.Find("Standard");
        if (lit != null) surfaceMaterial = new Material(lit) { color = new Color(0.25f, 0.55f, 0.85f) };
      }
      if (surfaceMaterial != null)
        Graphics.RenderMesh(new RenderParams(surfaceMaterial), surfaceMesh, 0, transform.localToWorldMatrix);
      return;
    }
    if (particleCount == 0 || particleMaterial == null) return;
    properties.SetBuffer(PositionsId, positionsBuffer);
    properties.SetMatrix(FluidToWorldId, transform.localToWorldMatrix);
    properties.SetFloat(ParticleScaleId, particleSpacing);
    var render = new RenderParams(particleMaterial) { worldBounds = WorldBounds(), matProps = properties };
    Graphics.RenderMeshPrimitives(render, particleMesh, 0, particleCount);
  }

  /// <summary>The domain box in world space, for culling: no particle leaves it.</summary>
  private Bounds WorldBounds() {
    var bounds = new Bounds(transform.TransformPoint(0.5f * domainSize), Vector3.zero);
    for (int corner = 0; corner < 8; ++corner) {
      var local = new Vector3((corner & 1) != 0 ? domainSize.x : 0.0f, (corner & 2) != 0 ? domainSize.y : 0.0f,
                              (corner & 4) != 0 ? domainSize.z : 0.0f);
      bounds.Encapsulate(transform.TransformPoint(local));
    }
    return bounds;
  }

  private void OnDisable() {
    // Dispose waits for a running step. Disposing the last solver also stops
    // the plugin's worker threads, which matters when Unity unloads it.
    if (solver != null) solver.Dispose();
    solver = null;
    stepping = false;
    obstacleIndex = -1;
    if (positionsBuffer != null) positionsBuffer.Release();
    positionsBuffer = null;
    if (surface != null) surface.Dispose();
    surface = null;
    if (surfaceMesh != null) Destroy(surfaceMesh);
    surfaceMesh = null;
    particleCount = 0;
  }

  private void OnDrawGizmos() {
    Gizmos.matrix = transform.localToWorldMatrix;
    Gizmos.color = Color.cyan;
    Gizmos.DrawWireCube(domainSize * 0.5f, domainSize);
    Gizmos.color = new Color(0.2f, 0.5f, 1.0f, 0.5f);
    Gizmos.DrawWireCube(blockSize * 0.5f, blockSize);
  }
}
