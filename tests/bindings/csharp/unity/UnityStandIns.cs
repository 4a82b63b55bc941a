// UnityStandIns.cs - the part of Unity's API that samples/unity/PbfFluid.cs
// uses, with Unity's signatures, so that mcs compiles the component as Unity
// would and UnitySampleTests.cs can drive it without Unity. Nothing renders:
// buffers, meshes and draw calls record what the component gave them. What
// this checks is the component's own logic and its use of the pbf binding;
// Unity's rendering itself is not simulated. Transforms are the identity.
using System;
using System.Collections.Generic;

namespace UnityEngine {

public class Object {
  public string name;
  public static readonly List<Object> Destroyed = new List<Object>();
  public static void Destroy(Object obj) { Destroyed.Add(obj); }
}

public class Component : Object {
  private readonly Dictionary<Type, Component> components = new Dictionary<Type, Component>();
  private Transform ownTransform;
  public Transform transform {
    get {
      if (ownTransform == null) ownTransform = this as Transform ?? new Transform();
      return ownTransform;
    }
  }
  public T GetComponent<T>() where T : Component {
    Component c;
    return components.TryGetValue(typeof(T), out c) ? (T)c : null;
  }
  /// <summary>Stand-in only: what GetComponent returns for T.</summary>
  public void Attach<T>(T component) where T : Component { components[typeof(T)] = component; }
}

public class Behaviour : Component {}
public class MonoBehaviour : Behaviour {}

public class Transform : Component {
  public Vector3 position;
  public Quaternion rotation = Quaternion.identity;
  public Matrix4x4 localToWorldMatrix { get { return Matrix4x4.identity; } }
  public Vector3 TransformPoint(Vector3 p) { return p; }
  public Vector3 InverseTransformPoint(Vector3 p) { return p; }
  public Vector3 TransformDirection(Vector3 d) { return d; }
}

public class Rigidbody : Component {
  public bool isKinematic;
  public Vector3 worldCenterOfMass;
  public readonly List<Vector3> Forces = new List<Vector3>(), Torques = new List<Vector3>();
  public void AddForce(Vector3 force) { Forces.Add(force); }
  public void AddTorque(Vector3 torque) { Torques.Add(torque); }
}

public class MeshFilter : Component {
  public Mesh sharedMesh;
}

public enum PrimitiveType { Sphere, Capsule, Cylinder, Cube, Plane, Quad }

public class GameObject : Object {
  public static GameObject CreatePrimitive(PrimitiveType type) {
    var g = new GameObject();
    g.filter.sharedMesh = new Mesh { name = type.ToString() };
    return g;
  }
  private readonly MeshFilter filter = new MeshFilter();
  public T GetComponent<T>() where T : Component { return filter as T; }
}

public struct Vector3 {
  public float x, y, z;
  public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
  public static Vector3 zero { get { return new Vector3(0, 0, 0); } }
  public static Vector3 operator +(Vector3 a, Vector3 b) { return new Vector3(a.x + b.x, a.y + b.y, a.z + b.z); }
  public static Vector3 operator -(Vector3 a, Vector3 b) { return new Vector3(a.x - b.x, a.y - b.y, a.z - b.z); }
  public static Vector3 operator *(Vector3 a, float s) { return new Vector3(a.x * s, a.y * s, a.z * s); }
  public static Vector3 operator *(float s, Vector3 a) { return a * s; }
  public static Vector3 Cross(Vector3 a, Vector3 b) {
    return new Vector3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
  }
  public float magnitude { get { return (float)Math.Sqrt(x * x + y * y + z * z); } }
}

public struct Quaternion {
  public float x, y, z, w;
  public Quaternion(float x, float y, float z, float w) { this.x = x; this.y = y; this.z = z; this.w = w; }
  public static Quaternion identity { get { return new Quaternion(0, 0, 0, 1); } }
  public static Quaternion Inverse(Quaternion q) { return new Quaternion(-q.x, -q.y, -q.z, q.w); }
  public static Quaternion operator *(Quaternion a, Quaternion b) {
    return new Quaternion(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
  }
}

public struct Matrix4x4 {
  public static Matrix4x4 identity { get { return new Matrix4x4(); } }
}

public struct Color {
  public float r, g, b, a;
  public Color(float r, float g, float b, float a = 1.0f) { this.r = r; this.g = g; this.b = b; this.a = a; }
  public static Color cyan { get { return new Color(0, 1, 1); } }
}

public struct Bounds {
  public Vector3 center, size;
  public Bounds(Vector3 center, Vector3 size) { this.center = center; this.size = size; }
  public void Encapsulate(Vector3 point) {
    Vector3 lo = center - size * 0.5f, hi = center + size * 0.5f;
    lo = new Vector3(Math.Min(lo.x, point.x), Math.Min(lo.y, point.y), Math.Min(lo.z, point.z));
    hi = new Vector3(Math.Max(hi.x, point.x), Math.Max(hi.y, point.y), Math.Max(hi.z, point.z));
    center = (lo + hi) * 0.5f;
    size = hi - lo;
  }
}

public static class Mathf {
  public static float Min(float a, float b) { return Math.Min(a, b); }
  public static int Max(int a, int b) { return Math.Max(a, b); }
}

public static class Time {
  public static float deltaTime = 1.0f / 60.0f;
}

public static class Debug {
  public static readonly List<string> Messages = new List<string>();
  public static void Log(object message) { Messages.Add("log: " + message); }
  public static void LogWarning(object message) { Messages.Add("warning: " + message); }
  public static void LogError(object message) { Messages.Add("error: " + message); }
}

[AttributeUsage(AttributeTargets.Field)]
public sealed class TooltipAttribute : Attribute {
  public TooltipAttribute(string tooltip) {}
}

[AttributeUsage(AttributeTargets.Field)]
public sealed class RangeAttribute : Attribute {
  public RangeAttribute(float min, float max) {}
}

public class Shader : Object {
  public static int PropertyToID(string name) { return name.GetHashCode(); }
  public static Shader Find(string name) { return new Shader { name = name }; }
}

public class Material : Object {
  public Material(Shader shader) { this.shader = shader; }
  public Shader shader;
  public Color color;
}

public sealed class MaterialPropertyBlock {
  public readonly Dictionary<int, object> Values = new Dictionary<int, object>();
  public void SetBuffer(int nameID, GraphicsBuffer value) { Values[nameID] = value; }
  public void SetMatrix(int nameID, Matrix4x4 value) { Values[nameID] = value; }
  public void SetFloat(int nameID, float value) { Values[nameID] = value; }
}

public sealed class GraphicsBuffer : IDisposable {
  public enum Target { Vertex = 1, Index = 2, Structured = 16 }
  public GraphicsBuffer(Target target, int count, int stride) {
    if (count <= 0 || stride <= 0) throw new ArgumentException("GraphicsBuffer: count and stride must be positive");
    this.count = count;
    Data = new float[count];
    Live.Add(this);
  }
  public int count { get; private set; }
  /// <summary>Stand-in only: the buffer's contents, as floats.</summary>
  public readonly float[] Data;
  public static readonly List<GraphicsBuffer> Live = new List<GraphicsBuffer>();
  public void SetData<T>(Unity.Collections.NativeArray<T> data, int nativeBufferStartIndex, int graphicsBufferStartIndex,
                         int count) where T : struct {
    if (Released) throw new InvalidOperationException("GraphicsBuffer: SetData after Release");
    if (graphicsBufferStartIndex + count > this.count) throw new ArgumentException("GraphicsBuffer: SetData past the end");
    float[] values = data.CopyOut(nativeBufferStartIndex, count);
    Array.Copy(values, 0, Data, graphicsBufferStartIndex, count);
  }
  public bool Released { get; private set; }
  public void Release() {
    Released = true;
    Live.Remove(this);
  }
  public void Dispose() { Release(); }
}

public class Mesh : Object {
  public Bounds bounds;
  public int subMeshCount;
  public int VertexCount, IndexCount;
  public readonly Dictionary<int, float[]> Streams = new Dictionary<int, float[]>();
  public uint[] Indices = new uint[0];
  public Rendering.SubMeshDescriptor SubMesh;
  public void MarkDynamic() {}
  public void SetVertexBufferParams(int vertexCount, params Rendering.VertexAttributeDescriptor[] attributes) {
    VertexCount = vertexCount;
    foreach (Rendering.VertexAttributeDescriptor a in attributes) Streams[a.stream] = new float[a.dimension * vertexCount];
  }
  public void SetVertexBufferData<T>(T[] data, int dataStart, int meshBufferStart, int count, int stream = 0,
                                     Rendering.MeshUpdateFlags flags = Rendering.MeshUpdateFlags.Default) where T : struct {
    float[] target = Streams[stream];
    if (meshBufferStart + count > target.Length) throw new ArgumentException("Mesh: vertex data past the stream's end");
    Array.Copy((float[])(object)data, dataStart, target, meshBufferStart, count);
  }
  public void SetIndexBufferParams(int indexCount, Rendering.IndexFormat format) {
    IndexCount = indexCount;
    Indices = new uint[indexCount];
  }
  public void SetIndexBufferData<T>(T[] data, int dataStart, int meshBufferStart, int count,
                                    Rendering.MeshUpdateFlags flags = Rendering.MeshUpdateFlags.Default) where T : struct {
    if (meshBufferStart + count > Indices.Length) throw new ArgumentException("Mesh: index data past the buffer's end");
    Array.Copy((uint[])(object)data, dataStart, Indices, meshBufferStart, count);
  }
  public void SetSubMesh(int index, Rendering.SubMeshDescriptor desc,
                         Rendering.MeshUpdateFlags flags = Rendering.MeshUpdateFlags.Default) {
    SubMesh = desc;
  }
}

public struct RenderParams {
  public RenderParams(Material mat) {
    material = mat;
    worldBounds = new Bounds();
    matProps = null;
  }
  public Material material { get; set; }
  public Bounds worldBounds { get; set; }
  public MaterialPropertyBlock matProps { get; set; }
}

// Unity passes RenderParams as `in`; mcs (C# 7.0) has no `in` parameters, and a call site is the same.
public static class Graphics {
  public static readonly List<string> Calls = new List<string>();
  public static int LastInstanceCount;
  public static Mesh LastMesh;
  public static void RenderMesh(RenderParams rparams, Mesh mesh, int submeshIndex, Matrix4x4 objectToWorld,
                                Matrix4x4? prevObjectToWorld = null) {
    Calls.Add("RenderMesh");
    LastMesh = mesh;
  }
  public static void RenderMeshPrimitives(RenderParams rparams, Mesh mesh, int submeshIndex, int instanceCount = 1) {
    Calls.Add("RenderMeshPrimitives");
    LastInstanceCount = instanceCount;
    LastMesh = mesh;
  }
}

public static class Gizmos {
  public static Matrix4x4 matrix;
  public static Color color;
  public static void DrawWireCube(Vector3 center, Vector3 size) {}
}

}  // namespace UnityEngine

namespace UnityEngine.Rendering {

public enum VertexAttribute { Position, Normal, Tangent, Color, TexCoord0 }
public enum VertexAttributeFormat { Float32, Float16, UNorm8 }
public enum IndexFormat { UInt16, UInt32 }
public enum MeshTopology { Triangles, Quads, Lines, LineStrip, Points }

[Flags]
public enum MeshUpdateFlags {
  Default = 0,
  DontValidateIndices = 1,
  DontResetBoneBounds = 2,
  DontNotifyMeshUsers = 4,
  DontRecalculateBounds = 8
}

public struct VertexAttributeDescriptor {
  public VertexAttributeDescriptor(VertexAttribute attribute = VertexAttribute.Position,
                                   VertexAttributeFormat format = VertexAttributeFormat.Float32, int dimension = 3,
                                   int stream = 0) {
    this.attribute = attribute;
    this.format = format;
    this.dimension = dimension;
    this.stream = stream;
  }
  public VertexAttribute attribute { get; set; }
  public VertexAttributeFormat format { get; set; }
  public int dimension { get; set; }
  public int stream { get; set; }
}

public struct SubMeshDescriptor {
  public SubMeshDescriptor(int indexStart, int indexCount, MeshTopology topology = MeshTopology.Triangles) {
    this.indexStart = indexStart;
    this.indexCount = indexCount;
  }
  public int indexStart { get; set; }
  public int indexCount { get; set; }
}

}  // namespace UnityEngine.Rendering

namespace Unity.Collections {

public enum Allocator { Invalid, None, Temp, TempJob, Persistent }

/// <summary>A view of native memory, as Unity's: here only a pointer and a length.</summary>
public unsafe struct NativeArray<T> where T : struct {
  internal void* pointer;
  internal int length;
  public int Length { get { return length; } }
  /// <summary>Stand-in only: copies `count` floats from `start` (T is float here).</summary>
  internal float[] CopyOut(int start, int count) {
    if (typeof(T) != typeof(float)) throw new NotSupportedException("stand-in NativeArray: float only");
    if (start < 0 || start + count > length) throw new ArgumentException("NativeArray: range past the end");
    var values = new float[count];
    float* p = (float*)pointer;
    for (int i = 0; i < count; ++i) values[i] = p[start + i];
    return values;
  }
}

}  // namespace Unity.Collections

namespace Unity.Collections.LowLevel.Unsafe {

public static class NativeArrayUnsafeUtility {
  public static unsafe NativeArray<T> ConvertExistingDataToNativeArray<T>(void* dataPointer, int length,
                                                                          Allocator allocator) where T : struct {
    if (dataPointer == null && length > 0) throw new ArgumentException("NativeArray: null pointer");
    return new NativeArray<T> { pointer = dataPointer, length = length };
  }
}

}  // namespace Unity.Collections.LowLevel.Unsafe
