// PbfFluid.cs - a Unity component that runs a pbf solver and draws its
// particles with GPU instancing. Put it on an empty GameObject; the fluid's
// box spans [0, DomainSize] in the object's local space. See README.md.
using Pbf;
using UnityEngine;

/// <summary>
/// Simulates a block of water collapsing in a box (a dam break) with the pbf
/// native plugin and draws every particle as an instanced mesh. The solver
/// steps on its own threads while Unity renders: each frame waits for the step
/// started the frame before, draws its particles and starts the next one.
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

  [Range(1, 16)] public int substeps = 2;
  [Range(1, 20)] public int iterations = 4;

  [Tooltip("Step while Unity renders (StartStep/WaitStep) instead of inside Update.")]
  public bool stepWhileRendering = true;

  [Tooltip("Drawn per particle; a sphere when empty.")]
  public Mesh particleMesh;

  [Tooltip("Needs 'Enable GPU Instancing'; a Standard material when empty.")]
  public Material particleMaterial;

  [Tooltip("A solid sphere that follows this transform (move it by hand or animate it); none when empty.")]
  public Transform obstacle;

  [Tooltip("The obstacle sphere's radius [m].")]
  public float obstacleRadius = 0.3f;

  private Solver solver;
  private float[] positions = new float[0];
  private readonly Matrix4x4[] batch = new Matrix4x4[1023];  // DrawMeshInstanced's limit per call
  private bool stepping;
  private int obstacleIndex = -1;
  private readonly float[] obstacleRotation = new float[4], obstacleTranslation = new float[3];

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
    p.Iterations = (uint)iterations;
    solver.SetParams(p);
    if (obstacle != null) {
      // The solver copies the field: it is freed at once.
      using (SignedDistanceField ball = SignedDistanceField.Sphere(obstacleRadius, 0.5f * particleSpacing)) {
        ObstaclePose();
        obstacleIndex = solver.AddObstacle(ball, obstacleRotation, obstacleTranslation);
      }
    }
    int count = solver.FillBox(new[] { 0.0f, 0.0f, 0.0f }, new[] { blockSize.x, blockSize.y, blockSize.z });
    positions = new float[3 * count];
    solver.GetPositions(positions);
    Debug.Log("pbf " + Library.VersionString + ": " + count + " particles on " +
              Library.BackendName(solver.GetDesc().Backend));

    if (particleMesh == null) {
      GameObject sphere = GameObject.CreatePrimitive(PrimitiveType.Sphere);
      particleMesh = sphere.GetComponent<MeshFilter>().sharedMesh;
      Destroy(sphere);
    }
    if (particleMaterial == null) {
      particleMaterial = new Material(Shader.Find("Standard")) { enableInstancing = true, color = new Color(0.2f, 0.5f, 1.0f) };
    }
  }

  private void Update() {
    if (solver == null) return;
    // At most 1/30 s per frame: a long hitch would otherwise make one huge step.
    float dt = Mathf.Min(Time.deltaTime, 1.0f / 30.0f);
    if (stepWhileRendering) {
      if (stepping) solver.WaitStep();  // the step started last frame
      solver.GetPositions(positions);
      Draw();
      if (dt > 0.0f) {
        MoveObstacle();
        solver.StartStep(dt, (uint)substeps);
        stepping = true;
      }
    } else {
      if (dt > 0.0f) {
        MoveObstacle();
        solver.Step(dt, (uint)substeps);
      }
      solver.GetPositions(positions);
      Draw();
    }
  }

  /// <summary>The obstacle's transform in the domain's frame, into obstacleRotation and obstacleTranslation.</summary>
  private void ObstaclePose() {
    Quaternion q = Quaternion.Inverse(transform.rotation) * obstacle.rotation;
    Vector3 t = transform.InverseTransformPoint(obstacle.position);
    obstacleRotation[0] = q.x; obstacleRotation[1] = q.y; obstacleRotation[2] = q.z; obstacleRotation[3] = q.w;
    obstacleTranslation[0] = t.x; obstacleTranslation[1] = t.y; obstacleTranslation[2] = t.z;
  }

  /// <summary>Tells the solver where the obstacle is to be at the end of the coming step.</summary>
  private void MoveObstacle() {
    if (obstacleIndex < 0 || obstacle == null) return;
    ObstaclePose();
    solver.SetObstaclePose(obstacleIndex, obstacleRotation, obstacleTranslation);
  }

  /// <summary>Queues every particle for rendering this frame, 1023 at a time.</summary>
  private void Draw() {
    Matrix4x4 toWorld = transform.localToWorldMatrix;
    Vector3 scale = Vector3.one * particleSpacing;
    int n = positions.Length / 3, filled = 0;
    for (int i = 0; i < n; ++i) {
      Vector3 local = new Vector3(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]);
      batch[filled++] = toWorld * Matrix4x4.TRS(local, Quaternion.identity, scale);
      if (filled == batch.Length || i == n - 1) {
        Graphics.DrawMeshInstanced(particleMesh, 0, particleMaterial, batch, filled);
        filled = 0;
      }
    }
  }

  private void OnDisable() {
    // Dispose waits for a running step. Disposing the last solver also stops
    // the plugin's worker threads, which matters when Unity unloads it.
    if (solver != null) solver.Dispose();
    solver = null;
    stepping = false;
    obstacleIndex = -1;
  }

  private void OnDrawGizmos() {
    Gizmos.matrix = transform.localToWorldMatrix;
    Gizmos.color = Color.cyan;
    Gizmos.DrawWireCube(domainSize * 0.5f, domainSize);
    Gizmos.color = new Color(0.2f, 0.5f, 1.0f, 0.5f);
    Gizmos.DrawWireCube(blockSize * 0.5f, blockSize);
  }
}
