#include "geometry/signed_distance_field.h"

#include <embree3/rtcore.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <unordered_map>

#include "core/error.h"
#include "core/lattice_fill.h"

namespace pbf {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

[[noreturn]] void invalid(const std::string& message) { throw Error(Status::InvalidArgument, message); }

std::string str(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// A grid of spacing `cell` centred on [lo, hi], reaching `margin` cells past it.
SignedDistanceField make_grid(Vec3 lo, Vec3 hi, float cell, int32_t margin) {
  if (!(cell >= kMinSdfCell && cell <= kMaxSdfCell))
    invalid("cell must be " + str(kMinSdfCell) + " .. " + str(kMaxSdfCell) + " m, got " + str(cell));
  if (margin < 1 || margin > 64) invalid("margin must be 1 .. 64 cells, got " + str(margin));
  SignedDistanceField f;
  const double los[3] = {lo.x, lo.y, lo.z}, his[3] = {hi.x, hi.y, hi.z};
  int64_t dims[3];
  double origin[3];
  for (int a = 0; a < 3; ++a) {
    const double cells = std::ceil((his[a] - los[a]) / cell);
    if (!(cells <= double(kMaxSdfDim)))
      invalid("cell: " + str(cell) + " m over an extent of " + str(his[a] - los[a]) + " m along axis " +
              std::to_string(a) + " needs more than " + std::to_string(kMaxSdfDim) + " samples");
    dims[a] = int64_t(cells) + 1 + 2 * int64_t(margin);
    origin[a] = 0.5 * (los[a] + his[a]) - 0.5 * double(dims[a] - 1) * cell;
  }
  const uint64_t samples = uint64_t(dims[0]) * uint64_t(dims[1]) * uint64_t(dims[2]);
  for (int a = 0; a < 3; ++a) {
    const double reach = std::max(std::fabs(origin[a]), std::fabs(origin[a] + double(dims[a] - 1) * cell));
    if (!(reach <= kMaxSdfCellsFromOrigin * cell))
      invalid("cell: the solid's grid reaches " + str(reach) + " m from the origin along axis " + std::to_string(a) +
              ", more than 2^20 cells of " + str(cell) + " m, where floats no longer resolve a cell; place the "
              "solid nearer the origin (and move it with the obstacle's pose) or choose a larger cell");
  }
  if (dims[0] > kMaxSdfDim || dims[1] > kMaxSdfDim || dims[2] > kMaxSdfDim || samples > kMaxSdfSamples)
    invalid("cell: " + str(cell) + " m makes a grid of " + std::to_string(dims[0]) + " x " + std::to_string(dims[1]) +
            " x " + std::to_string(dims[2]) + " samples, more than " + std::to_string(kMaxSdfSamples) +
            " (2^27) or more than " + std::to_string(kMaxSdfDim) + " along an axis; choose a larger cell");
  f.nx = int32_t(dims[0]);
  f.ny = int32_t(dims[1]);
  f.nz = int32_t(dims[2]);
  f.origin = Vec3{float(origin[0]), float(origin[1]), float(origin[2])};
  f.cell = cell;
  f.values.assign(samples, 0.0f);
  return f;
}

Vec3 sample_position(const SignedDistanceField& f, int32_t i, int32_t j, int32_t k) {
  return Vec3{f.origin.x + float(i) * f.cell, f.origin.y + float(j) * f.cell, f.origin.z + float(k) * f.cell};
}

// The closest point of triangle abc to p (Ericson, Real-Time Collision
// Detection, 5.1.5), by the Voronoi region of p.
Vec3 closest_point_on_triangle(Vec3 p, Vec3 a, Vec3 b, Vec3 c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const float d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0.0f && d2 <= 0.0f) return a;
  const Vec3 bp = p - b;
  const float d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0.0f && d4 <= d3) return b;
  const float vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) return a + ab * (d1 / (d1 - d3));
  const Vec3 cp = p - c;
  const float d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0.0f && d5 <= d6) return c;
  const float vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) return a + ac * (d2 / (d2 - d6));
  const float va = d3 * d6 - d5 * d4;
  if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const float sum = va + vb + vc;
  if (!(sum > 0.0f)) {
    // A degenerate (flat) triangle: the closest of its edges' points.
    auto on_segment = [&](Vec3 s, Vec3 e) {
      const Vec3 d = e - s;
      const float l2 = dot(d, d);
      const float t = l2 > 0.0f ? clampf(dot(p - s, d) / l2, 0.0f, 1.0f) : 0.0f;
      return s + d * t;
    };
    const Vec3 q[3] = {on_segment(a, b), on_segment(b, c), on_segment(c, a)};
    int best = 0;
    for (int e = 1; e < 3; ++e)
      if (length_squared(q[e] - p) < length_squared(q[best] - p)) best = e;
    return q[best];
  }
  const float denom = 1.0f / sum;
  return a + ab * (vb * denom) + ac * (vc * denom);
}

struct EmbreeDeviceDeleter {
  void operator()(RTCDeviceTy* d) const { rtcReleaseDevice(d); }
};
struct EmbreeSceneDeleter {
  void operator()(RTCSceneTy* s) const { rtcReleaseScene(s); }
};

void check_embree(RTCDevice device, const char* what) {
  const RTCError e = rtcGetDeviceError(device);
  if (e == RTC_ERROR_NONE) return;
  if (e == RTC_ERROR_OUT_OF_MEMORY) throw std::bad_alloc();
  throw Error(Status::Internal, std::string("Embree failed to ") + what + " (error " + std::to_string(int(e)) + ")");
}

// A point query's state: the mesh, and the squared distance found so far.
struct ClosestQuery {
  const Vec3* vertices;
  const std::array<uint32_t, 3>* triangles;
  float best2;
  Vec3 closest;
  bool found;
};

bool closest_triangle(RTCPointQueryFunctionArguments* args) {
  ClosestQuery* q = static_cast<ClosestQuery*>(args->userPtr);
  const std::array<uint32_t, 3>& t = q->triangles[args->primID];
  const Vec3 p{args->query->x, args->query->y, args->query->z};
  const Vec3 c = closest_point_on_triangle(p, q->vertices[t[0]], q->vertices[t[1]], q->vertices[t[2]]);
  const float d2 = length_squared(c - p);
  if (d2 < q->best2) {
    q->best2 = d2;
    q->closest = c;
    q->found = true;
    args->query->radius = std::sqrt(d2);  // only closer triangles matter from now on
    return true;
  }
  return false;
}

// A ray's context: every surface crossing is recorded and rejected, so that
// the ray goes on through the whole mesh.
struct CrossingContext {
  RTCIntersectContext base;
  std::vector<float>* hits;
};

void record_crossing(const RTCFilterFunctionNArguments* args) {
  CrossingContext* context = reinterpret_cast<CrossingContext*>(args->context);
  for (unsigned i = 0; i < args->N; ++i) {
    if (args->valid[i] == 0) continue;
    context->hits->push_back(RTCRayN_tfar(args->ray, args->N, i));
    args->valid[i] = 0;
  }
}

// The triangles of a mesh in an Embree scene.
class MeshScene {
 public:
  explicit MeshScene(const TriangleMesh& mesh) : mesh_(mesh) {
    device_.reset(rtcNewDevice(nullptr));
    if (!device_) throw Error(Status::Internal, "Embree could not create a device");
    scene_.reset(rtcNewScene(device_.get()));
    check_embree(device_.get(), "create a scene");
    rtcSetSceneFlags(scene_.get(), RTC_SCENE_FLAG_ROBUST);  // the exact tests, for rays passing close to edges
    RTCGeometry geometry = rtcNewGeometry(device_.get(), RTC_GEOMETRY_TYPE_TRIANGLE);
    check_embree(device_.get(), "create a triangle geometry");
    float* v = static_cast<float*>(rtcSetNewGeometryBuffer(geometry, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                                           3 * sizeof(float), mesh.vertices.size()));
    unsigned* t = static_cast<unsigned*>(rtcSetNewGeometryBuffer(geometry, RTC_BUFFER_TYPE_INDEX, 0,
                                                                 RTC_FORMAT_UINT3, 3 * sizeof(unsigned),
                                                                 mesh.triangles.size()));
    if (v == nullptr || t == nullptr) {
      rtcReleaseGeometry(geometry);
      check_embree(device_.get(), "allocate the mesh's buffers");
      throw std::bad_alloc();
    }
    for (size_t i = 0; i < mesh.vertices.size(); ++i) {
      v[3 * i] = mesh.vertices[i].x;
      v[3 * i + 1] = mesh.vertices[i].y;
      v[3 * i + 2] = mesh.vertices[i].z;
    }
    for (size_t i = 0; i < mesh.triangles.size(); ++i)
      for (int c = 0; c < 3; ++c) t[3 * i + c] = mesh.triangles[i][c];
    rtcSetGeometryPointQueryFunction(geometry, closest_triangle);
    rtcSetGeometryIntersectFilterFunction(geometry, record_crossing);
    rtcCommitGeometry(geometry);
    rtcAttachGeometry(scene_.get(), geometry);
    rtcReleaseGeometry(geometry);
    rtcCommitScene(scene_.get());
    check_embree(device_.get(), "build the triangles' hierarchy");
  }

  // The distance from p to the closest triangle, if it is below `radius`;
  // else infinity. The closest point goes to *closest when one is found.
  float distance(Vec3 p, float radius, Vec3* closest) const {
    RTCPointQuery query;
    query.x = p.x;
    query.y = p.y;
    query.z = p.z;
    query.time = 0.0f;
    query.radius = radius;
    RTCPointQueryContext context;
    rtcInitPointQueryContext(&context);
    ClosestQuery state{mesh_.vertices.data(), mesh_.triangles.data(), radius == kInf ? kInf : radius * radius, p,
                       false};
    rtcPointQuery(scene_.get(), &query, &context, nullptr, &state);
    if (!state.found) return kInf;
    *closest = state.closest;
    return std::sqrt(state.best2);
  }

  // The distances along the ray from `origin` in direction `axis` (a unit
  // axis) at which it crosses the surface, sorted, up to `length`.
  void crossings(Vec3 origin, int axis, float length, std::vector<float>& hits) const {
    hits.clear();
    CrossingContext context;
    rtcInitIntersectContext(&context.base);
    context.hits = &hits;
    RTCRayHit ray{};
    ray.ray.org_x = origin.x;
    ray.ray.org_y = origin.y;
    ray.ray.org_z = origin.z;
    ray.ray.dir_x = axis == 0 ? 1.0f : 0.0f;
    ray.ray.dir_y = axis == 1 ? 1.0f : 0.0f;
    ray.ray.dir_z = axis == 2 ? 1.0f : 0.0f;
    ray.ray.tnear = 0.0f;
    ray.ray.tfar = length;
    ray.ray.mask = 0xFFFFFFFFu;
    ray.ray.flags = 0;
    ray.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(scene_.get(), &context.base, &ray);
    std::sort(hits.begin(), hits.end());
  }

 private:
  const TriangleMesh& mesh_;
  std::unique_ptr<RTCDeviceTy, EmbreeDeviceDeleter> device_;
  std::unique_ptr<RTCSceneTy, EmbreeSceneDeleter> scene_;
};

void check_mesh(const TriangleMesh& mesh) {
  if (mesh.triangles.empty()) invalid("mesh: it has no triangles");
  if (mesh.triangles.size() > std::numeric_limits<uint32_t>::max() ||
      mesh.vertices.size() > std::numeric_limits<uint32_t>::max())
    invalid("mesh: more than 2^32 triangles or vertices");
  for (const auto& t : mesh.triangles)
    for (uint32_t i : t)
      if (i >= mesh.vertices.size()) invalid("mesh: a triangle names vertex " + std::to_string(i) + " of " +
                                             std::to_string(mesh.vertices.size()));
  for (const Vec3& v : mesh.vertices)
    if (!is_finite(v)) invalid("mesh: a vertex is not finite");
}

// Marks the samples within `band` of some triangle's bounding box. The
// reach is computed in double and clamped to the grid before it becomes an
// index, so that any band, however wide, marks the right samples.
std::vector<uint8_t> near_surface(const TriangleMesh& mesh, const SignedDistanceField& f, float band) {
  std::vector<uint8_t> near(f.size(), 0);
  const double inv = 1.0 / double(f.cell);
  const int32_t n[3] = {f.nx, f.ny, f.nz};
  const double o[3] = {f.origin.x, f.origin.y, f.origin.z};
  for (const auto& t : mesh.triangles) {
    int32_t first[3], last[3];
    for (int a = 0; a < 3; ++a) {
      float lo = kInf, hi = -kInf;
      for (uint32_t v : t) {
        const float c = a == 0 ? mesh.vertices[v].x : a == 1 ? mesh.vertices[v].y : mesh.vertices[v].z;
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      }
      const double from = std::ceil((double(lo) - band - o[a]) * inv);
      const double to = std::floor((double(hi) + band - o[a]) * inv);
      first[a] = int32_t(std::min(std::max(from, 0.0), double(n[a])));
      last[a] = int32_t(std::max(std::min(to, double(n[a] - 1)), -1.0));
    }
    for (int32_t k = first[2]; k <= last[2]; ++k)
      for (int32_t j = first[1]; j <= last[1]; ++j) {
        uint8_t* row = near.data() + size_t(f.nx) * (j + size_t(f.ny) * k);
        for (int32_t i = first[0]; i <= last[0]; ++i) row[i] = 1;
      }
  }
  return near;
}

}  // namespace

SignedDistanceField build_sdf(const TriangleMesh& mesh, const SdfOptions& options) {
  check_mesh(mesh);
  if (!(std::isfinite(options.band) && options.band >= 0.0f))
    invalid("band must be a finite distance >= 0 m, got " + str(options.band));
  const Bounds b = mesh_bounds(mesh);
  SignedDistanceField f = make_grid(b.lo, b.hi, options.cell, options.margin);
  const float cell = f.cell;
  if (options.band != 0.0f && options.band < kMinBandCells * cell)
    invalid("band must be 0 (exact everywhere) or at least " + str(kMinBandCells) + " cells (" +
            str(kMinBandCells * cell) + " m), got " + str(options.band));
  // No distance in the grid exceeds its diagonal: a band at least as wide
  // clamps nothing, and the field is computed exactly everywhere.
  const double diagonal = double(f.cell) * std::sqrt(double(f.nx - 1) * (f.nx - 1) + double(f.ny - 1) * (f.ny - 1) +
                                                     double(f.nz - 1) * (f.nz - 1));
  const bool banded = options.band > 0.0f && double(options.band) < diagonal;
  const float band = banded ? options.band : kInf;
  const MeshScene scene(mesh);
  const int32_t nx = f.nx, ny = f.ny, nz = f.nz;
  const int32_t dims[3] = {nx, ny, nz};

  // Inside or outside: along each axis a ray through every row of samples,
  // offset from the samples by a small fraction of a cell so that it does
  // not run along the mesh's edges or faces. Each sample gets one vote from
  // each side of each of its three lines (the parity of the crossings
  // before it, and after it): six votes, all equal for a closed mesh. A hole
  // misleads only the votes of the lines through it.
  std::vector<uint8_t> votes(f.size(), 0);
  const float offset[3] = {0.00123f * cell, 0.00071f * cell, 0.00097f * cell};
  auto cast_line = [&](int axis, int32_t i, int32_t j, int32_t k, std::vector<float>& hits) {
    Vec3 start = sample_position(f, i, j, k);
    float* s = &start.x;
    for (int a = 0; a < 3; ++a) s[a] += a == axis ? -cell : offset[a];
    scene.crossings(start, axis, float(dims[axis] + 1) * cell, hits);
    const size_t stride = axis == 0 ? 1 : axis == 1 ? size_t(nx) : size_t(nx) * ny;
    uint8_t* v = votes.data() + i + size_t(nx) * (j + size_t(ny) * k);
    size_t before = 0;
    for (int32_t s_index = 0; s_index < dims[axis]; ++s_index) {
      const float t = float(s_index + 1) * cell;
      while (before < hits.size() && hits[before] < t) ++before;
      const size_t after = hits.size() - before;
      v[s_index * stride] += uint8_t((before & 1) + (after & 1));
    }
  };
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, nz, 1), [&](const tbb::blocked_range<int32_t>& r) {
    std::vector<float> hits;
    for (int32_t k = r.begin(); k < r.end(); ++k) {
      for (int32_t j = 0; j < ny; ++j) cast_line(0, 0, j, k, hits);
      for (int32_t i = 0; i < nx; ++i) cast_line(1, i, 0, k, hits);
    }
  });
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, ny, 1), [&](const tbb::blocked_range<int32_t>& r) {
    std::vector<float> hits;
    for (int32_t j = r.begin(); j < r.end(); ++j)
      for (int32_t i = 0; i < nx; ++i) cast_line(2, i, j, 0, hits);
  });

  // Distances: within the band only, where a triangle's box comes close.
  const std::vector<uint8_t> near = banded ? near_surface(mesh, f, band) : std::vector<uint8_t>();
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, nz, 1), [&](const tbb::blocked_range<int32_t>& r) {
    for (int32_t k = r.begin(); k < r.end(); ++k)
      for (int32_t j = 0; j < ny; ++j) {
        // The previous sample's closest point is a point of the surface, so
        // its distance bounds this sample's distance and the search.
        bool have_previous = false;
        Vec3 previous{0.0f, 0.0f, 0.0f};
        for (int32_t i = 0; i < nx; ++i) {
          const size_t index = i + size_t(nx) * (j + size_t(ny) * k);
          float d = kInf;
          if (!banded || near[index]) {
            const Vec3 p = sample_position(f, i, j, k);
            const float bound = have_previous ? length(p - previous) * 1.0001f + 1e-30f : kInf;
            if (bound < band) d = scene.distance(p, bound, &previous);
            if (d == kInf) d = scene.distance(p, band, &previous);
          }
          have_previous = d != kInf;
          const float magnitude = std::min(d, band);
          f.values[index] = votes[index] >= 4 ? -magnitude : magnitude;
        }
      }
  });
  return f;
}

SignedDistanceField box_sdf(Vec3 half_extents, float cell, int32_t margin) {
  const float h[3] = {half_extents.x, half_extents.y, half_extents.z};
  for (int a = 0; a < 3; ++a)
    if (!(std::isfinite(h[a]) && h[a] > 0.0f))
      invalid("half_extents[" + std::to_string(a) + "] must be a finite size > 0 m, got " + str(h[a]));
  SignedDistanceField f = make_grid(-1.0f * half_extents, half_extents, cell, margin);
  tbb::parallel_for(0, f.nz, [&](int32_t k) {
    for (int32_t j = 0; j < f.ny; ++j)
      for (int32_t i = 0; i < f.nx; ++i) {
        const Vec3 p = sample_position(f, i, j, k);
        const double q[3] = {std::fabs(double(p.x)) - h[0], std::fabs(double(p.y)) - h[1],
                             std::fabs(double(p.z)) - h[2]};
        double outside = 0.0;
        for (double v : q) outside += std::max(v, 0.0) * std::max(v, 0.0);
        const double inside = std::min(std::max(q[0], std::max(q[1], q[2])), 0.0);
        f.values[i + size_t(f.nx) * (j + size_t(f.ny) * k)] = float(std::sqrt(outside) + inside);
      }
  });
  return f;
}

SignedDistanceField sphere_sdf(float radius, float cell, int32_t margin) {
  if (!(std::isfinite(radius) && radius > 0.0f)) invalid("radius must be a finite size > 0 m, got " + str(radius));
  SignedDistanceField f = make_grid(Vec3{-radius, -radius, -radius}, Vec3{radius, radius, radius}, cell, margin);
  tbb::parallel_for(0, f.nz, [&](int32_t k) {
    for (int32_t j = 0; j < f.ny; ++j)
      for (int32_t i = 0; i < f.nx; ++i) {
        const Vec3 p = sample_position(f, i, j, k);
        const double r = std::sqrt(double(p.x) * p.x + double(p.y) * p.y + double(p.z) * p.z);
        f.values[i + size_t(f.nx) * (j + size_t(f.ny) * k)] = float(r - radius);
      }
  });
  return f;
}

float sdf_distance(const SdfGridView& field, Vec3 p) {
  const double o[3] = {field.origin.x, field.origin.y, field.origin.z};
  const int32_t n[3] = {field.nx, field.ny, field.nz};
  const double q[3] = {p.x, p.y, p.z};
  float at[3] = {p.x, p.y, p.z};
  double outside2 = 0.0;
  for (int a = 0; a < 3; ++a) {
    const double hi = o[a] + double(n[a] - 1) * field.cell;
    const double c = std::min(std::max(q[a], o[a]), hi);
    outside2 += (q[a] - c) * (q[a] - c);
    at[a] = float(c);
  }
  if (outside2 == 0.0) return sdf_sample(field, p, nullptr);
  // At most (2 FLT_MAX)^2 x 3 per square: finite in double.
  const double d = double(sdf_sample(field, Vec3{at[0], at[1], at[2]}, nullptr)) + std::sqrt(outside2);
  return float(std::min(d, double(std::numeric_limits<float>::max())));
}

double sdf_volume(const SdfGridView& field) {
  const size_t n = size_t(field.nx) * field.ny * field.nz;
  double inside = 0.0;
  for (size_t i = 0; i < n; ++i) inside += std::min(1.0, std::max(0.0, 0.5 - double(field.values[i]) / field.cell));
  return inside * double(field.cell) * field.cell * field.cell;
}

MassProperties sdf_mass_properties(const SdfGridView& field, double density) {
  const double cell = field.cell, cube = cell * cell * cell;
  const double origin[3] = {field.origin.x, field.origin.y, field.origin.z};
  // Sums of the fractions inside, their first and second moments about the grid's origin (in cells:
  // the indices), so that far-off origins do not cost precision.
  double m0 = 0.0, m1[3] = {0, 0, 0}, m2[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int32_t k = 0; k < field.nz; ++k)
    for (int32_t j = 0; j < field.ny; ++j)
      for (int32_t i = 0; i < field.nx; ++i) {
        const double d = field.values[size_t(i) + size_t(field.nx) * (size_t(j) + size_t(field.ny) * size_t(k))];
        const double f = std::min(1.0, std::max(0.0, 0.5 - d / cell));
        if (f == 0.0) continue;
        const double q[3] = {double(i), double(j), double(k)};
        m0 += f;
        for (int a = 0; a < 3; ++a) {
          m1[a] += f * q[a];
          for (int b = 0; b < 3; ++b) m2[a][b] += f * q[a] * q[b];
        }
      }
  MassProperties out{};
  if (m0 == 0.0) return out;
  out.mass = density * cube * m0;
  double c[3];  // centre in cells
  for (int a = 0; a < 3; ++a) {
    c[a] = m1[a] / m0;
    out.centre[a] = origin[a] + c[a] * cell;
  }
  // Second moments about the centre [kg m^2]: S_ab = rho cell^5 (m2_ab - m0 c_a c_b); I = tr(S) 1 - S.
  double s2[3][3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) s2[a][b] = density * cube * cell * cell * (m2[a][b] - m0 * c[a] * c[b]);
  const double trace = s2[0][0] + s2[1][1] + s2[2][2];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      out.inertia[3 * a + b] = (a == b ? trace + out.mass * cell * cell / 6.0 : 0.0) - s2[a][b];
  return out;
}

std::vector<float> fill_solid(const SdfGridView& field, const RigidTransform& placement, float spacing,
                              Vec3 domain_min, Vec3 domain_max, size_t max_points, const LatticeKeep& keep) {
  if (!(std::isfinite(spacing) && spacing > 0.0f)) invalid("spacing must be a finite size > 0 m, got " + str(spacing));
  // The world box of the field's grid: its eight corners placed.
  const Vec3 extent{float(field.nx - 1) * field.cell, float(field.ny - 1) * field.cell,
                    float(field.nz - 1) * field.cell};
  double lo[3] = {kInf, kInf, kInf}, hi[3] = {-kInf, -kInf, -kInf};
  for (int c = 0; c < 8; ++c) {
    const Vec3 corner = to_world(placement, field.origin + Vec3{(c & 1) ? extent.x : 0.0f, (c & 2) ? extent.y : 0.0f,
                                                                (c & 4) ? extent.z : 0.0f});
    const float w[3] = {corner.x, corner.y, corner.z};
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], double(w[a]));
      hi[a] = std::max(hi[a], double(w[a]));
    }
  }
  // Lattice indices per axis whose points lie in the field's box and kFillWallMargin inside the
  // domain, as pbf_solver_fill_box() keeps them.
  const double dmin[3] = {domain_min.x, domain_min.y, domain_min.z};
  const double dmax[3] = {domain_max.x, domain_max.y, domain_max.z};
  int64_t first[3], count[3];
  double candidates = 1.0;
  for (int a = 0; a < 3; ++a) {
    int64_t last = 0;
    lattice_axis_range(dmin[a], lo[a], hi[a], spacing, dmin[a], dmax[a], kFillWallMargin * spacing, first[a], last);
    count[a] = last - first[a];
    candidates *= double(count[a]);
  }
  if (candidates == 0.0) return {};
  if (candidates > double(kMaxFillCandidates))
    invalid("spacing: the solid's box spans " + str(candidates) + " lattice points at " + str(spacing) +
            " m, more than " + std::to_string(kMaxFillCandidates) + "; choose a larger spacing");
  // One list per lattice plane, joined in order: the same points in the same
  // order whatever the thread count.
  std::vector<std::vector<float>> planes(static_cast<size_t>(count[2]));
  std::atomic<size_t> total{0};
  tbb::parallel_for(int64_t(0), count[2], [&](int64_t kz) {
    std::vector<float>& out = planes[size_t(kz)];
    size_t found = 0;
    const float z = float(dmin[2] + (double(first[2] + kz) + 0.5) * spacing);
    for (int64_t ky = 0; ky < count[1]; ++ky) {
      const float y = float(dmin[1] + (double(first[1] + ky) + 0.5) * spacing);
      for (int64_t kx = 0; kx < count[0]; ++kx) {
        const float x = float(dmin[0] + (double(first[0] + kx) + 0.5) * spacing);
        if (sdf_sample(field, to_local(placement, Vec3{x, y, z}), nullptr) >= 0.0f) continue;
        if (keep && !keep(Vec3{x, y, z})) continue;
        ++found;
        if (total.load(std::memory_order_relaxed) + found > max_points) continue;  // counted, not kept
        out.push_back(x);
        out.push_back(y);
        out.push_back(z);
      }
    }
    total.fetch_add(found, std::memory_order_relaxed);
  });
  const size_t n = total.load();
  if (n > max_points)
    throw Error(Status::CapacityExceeded, "the solid holds " + std::to_string(n) + " particles at " + str(spacing) +
                                              " m spacing, more than the " + std::to_string(max_points) +
                                              " that fit");
  std::vector<float> points;
  points.reserve(3 * n);
  for (const auto& plane : planes) points.insert(points.end(), plane.begin(), plane.end());
  return points;
}

}  // namespace pbf

namespace pbf {

namespace {

// Per cell i of one axis of the grid (0 .. n-2), the first lattice index k whose coordinate
// origin + k * spacing falls in cell i as sdf_sample() computes it; starts[n-1] = count. The cell
// sdf_sample() picks is monotone in k, so a binary search finds each start.
std::vector<int64_t> cell_starts(float origin, float cell, int32_t n, float spacing, int64_t count) {
  const float inv = 1.0f / cell;
  auto cell_of = [&](int64_t k) {
    const float p = origin + float(k * double(spacing));
    const float u = clampf((p - origin) * inv, 0.0f, float(n - 1));
    return int32_t(fminf(floorf(u), float(n - 2)));
  };
  std::vector<int64_t> starts(static_cast<size_t>(n));
  for (int32_t i = 0; i < n - 1; ++i) {
    int64_t lo = 0, hi = count;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (cell_of(mid) >= i) hi = mid;
      else lo = mid + 1;
    }
    starts[size_t(i)] = lo;
  }
  starts[size_t(n - 1)] = count;
  return starts;
}

struct SurfaceCandidate {
  int64_t k[3];  // lattice index, z first
  Vec3 q;        // the projected point, in the field's frame
};

}  // namespace

std::vector<Vec3> sample_surface(const SdfGridView& field, const RigidTransform& placement, float spacing, float depth,
                                 const Bounds* region) {
  if (!(std::isfinite(spacing) && spacing > 0.0f)) invalid("spacing must be a finite size > 0 m, got " + str(spacing));
  if (!(std::isfinite(depth) && depth >= 0.0f)) invalid("depth must be a finite distance >= 0 m, got " + str(depth));
  // Candidates: the lattice at `spacing` over the grid box, in the field's frame.
  const int32_t n[3] = {field.nx, field.ny, field.nz};
  const double o[3] = {field.origin.x, field.origin.y, field.origin.z};
  double extent[3];
  int64_t count[3], first[3], last[3];
  for (int a = 0; a < 3; ++a) {
    extent[a] = double(n[a] - 1) * field.cell;
    const double c = std::floor(extent[a] / spacing) + 1.0;
    if (!(c <= double(kMaxFillCandidates)))
      invalid("spacing: the field's box spans " + str(c) + " lattice points along axis " + std::to_string(a) +
              " at " + str(spacing) + " m, more than " + std::to_string(kMaxFillCandidates) +
              "; choose a larger spacing");
    count[a] = int64_t(c);
    first[a] = 0;
    last[a] = count[a] - 1;
  }
  // Only the lattice points whose placed position lies within the region grown by two spacings:
  // the local box of the grown region's eight corners, in double.
  if (region != nullptr) {
    const double margin = 2.0 * double(spacing);
    const double rlo[3] = {double(region->lo.x) - margin, double(region->lo.y) - margin, double(region->lo.z) - margin};
    const double rhi[3] = {double(region->hi.x) + margin, double(region->hi.y) + margin, double(region->hi.z) + margin};
    const double t[3] = {placement.t.x, placement.t.y, placement.t.z};
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (int c = 0; c < 8; ++c) {
      const double w[3] = {(c & 1) ? rhi[0] : rlo[0], (c & 2) ? rhi[1] : rlo[1], (c & 4) ? rhi[2] : rlo[2]};
      for (int a = 0; a < 3; ++a) {
        // x_local = R^T (x_world - t)
        const double l = double(placement.r[a]) * (w[0] - t[0]) + double(placement.r[3 + a]) * (w[1] - t[1]) +
                         double(placement.r[6 + a]) * (w[2] - t[2]);
        lo[a] = std::min(lo[a], l);
        hi[a] = std::max(hi[a], l);
      }
    }
    for (int a = 0; a < 3; ++a) {
      const double from = std::ceil((lo[a] - o[a]) / spacing), to = std::floor((hi[a] - o[a]) / spacing);
      if (!(from <= to) || to < 0.0 || from > double(last[a])) return {};
      first[a] = from > 0.0 ? int64_t(from) : 0;
      last[a] = to < double(last[a]) ? int64_t(to) : last[a];
    }
  }
  // Only the lattice points in grid cells whose corners straddle the level within a spacing (the
  // trilinear value lies between its corners' values): the work follows the surface, not the box.
  std::vector<int64_t> starts[3];
  for (int a = 0; a < 3; ++a) {
    starts[a] = cell_starts(float(o[a]), field.cell, n[a], spacing, count[a]);
    for (int64_t& s : starts[a]) s = std::min(std::max(s, first[a]), last[a] + 1);
  }
  // Rounding slack: the float interpolation errs by a few ulps of its corners, and a lattice point
  // of the last cell may round past the grid box (sdf_sample() then adds that distance).
  const double far_coordinate = std::max({std::fabs(o[0]) + extent[0], std::fabs(o[1]) + extent[1],
                                          std::fabs(o[2]) + extent[2]});
  const int64_t sx = 1, sy = n[0], sz = int64_t(n[0]) * n[1];
  auto straddles = [&](int32_t i, int32_t j, int32_t k) {
    const float* c = field.values + (i * sx + j * sy + k * sz);
    const float corners[8] = {c[0], c[sx], c[sy], c[sx + sy], c[sz], c[sx + sz], c[sy + sz], c[sx + sy + sz]};
    double lo = HUGE_VAL, hi = -HUGE_VAL, big = 0.0;
    for (float v : corners) {
      lo = std::min(lo, double(v));
      hi = std::max(hi, double(v));
      big = std::max(big, std::fabs(double(v)));
    }
    double slack = 1e-5 * (big + depth + spacing);
    if (i == n[0] - 2 || j == n[1] - 2 || k == n[2] - 2) slack += 1e-6 * far_coordinate;
    return !(lo + depth >= spacing + slack || hi + depth <= -spacing - slack);
  };
  auto points_in = [&](int32_t i, int32_t j, int32_t k) {
    return double(starts[0][i + 1] - starts[0][i]) * double(starts[1][j + 1] - starts[1][j]) *
           double(starts[2][k + 1] - starts[2][k]);
  };
  std::vector<double> layer_points(size_t(n[2] - 1), 0.0);
  tbb::parallel_for(int32_t(0), n[2] - 1, [&](int32_t k) {
    if (starts[2][k + 1] == starts[2][k]) return;
    double sum = 0.0;
    for (int32_t j = 0; j < n[1] - 1; ++j) {
      if (starts[1][j + 1] == starts[1][j]) continue;
      for (int32_t i = 0; i < n[0] - 1; ++i)
        if (starts[0][i + 1] > starts[0][i] && straddles(i, j, k)) sum += points_in(i, j, k);
    }
    layer_points[size_t(k)] = sum;
  });
  double candidates = 0.0;
  for (double c : layer_points) candidates += c;
  if (candidates > double(kMaxFillCandidates))
    invalid("spacing: the field's surface passes near " + str(candidates) + " lattice points at " + str(spacing) +
            " m, more than " + std::to_string(kMaxFillCandidates) + "; choose a larger spacing");
  // Project each candidate near the surface onto it; one list per layer of cells, in lattice order.
  std::vector<std::vector<SurfaceCandidate>> layers(size_t(n[2] - 1));
  tbb::parallel_for(int32_t(0), n[2] - 1, [&](int32_t k) {
    if (layer_points[size_t(k)] == 0.0) return;
    std::vector<SurfaceCandidate>& out = layers[size_t(k)];
    for (int32_t j = 0; j < n[1] - 1; ++j)
      for (int32_t i = 0; i < n[0] - 1; ++i) {
        if (points_in(i, j, k) == 0.0 || !straddles(i, j, k)) continue;
        for (int64_t kz = starts[2][k]; kz < starts[2][k + 1]; ++kz)
          for (int64_t ky = starts[1][j]; ky < starts[1][j + 1]; ++ky)
            for (int64_t kx = starts[0][i]; kx < starts[0][i + 1]; ++kx) {
              const Vec3 start = field.origin + Vec3{float(kx * double(spacing)), float(ky * double(spacing)),
                                                     float(kz * double(spacing))};
              Vec3 q = start;
              Vec3 g;
              // d: the distance to the level the samples go to, depth inside the surface.
              float d = sdf_sample(field, q, &g) + depth;
              if (!(std::fabs(d) < spacing)) continue;
              for (int it = 0; it < 4 && std::fabs(d) > 1e-4f * spacing; ++it) {
                const float g2 = length_squared(g);
                if (!(g2 > 0.0f)) break;
                q -= g * (d / g2);
                d = sdf_sample(field, q, &g) + depth;
              }
              // Starting within a spacing of the level, a projection moves about |d|: one that went
              // farther than two spacings diverged (a field with near-flat or inconsistent values)
              // and found no point of this surface, whatever d says where it landed.
              if (std::fabs(d) <= 0.05f * spacing && length_squared(q - start) <= 4.0f * spacing * spacing)
                out.push_back(SurfaceCandidate{{kz, ky, kx}, q});
            }
      }
    std::sort(out.begin(), out.end(), [](const SurfaceCandidate& a, const SurfaceCandidate& b) {
      return std::lexicographical_compare(a.k, a.k + 3, b.k, b.k + 3);
    });
  });
  // Thinning in lattice order: a point is kept unless a kept point lies within 0.8 spacings.
  const float min_d = 0.8f * spacing, min_d2 = min_d * min_d;
  std::unordered_map<uint64_t, std::vector<Vec3>> buckets;
  auto key = [&](int64_t i, int64_t j, int64_t k) {
    return (uint64_t(i + (1 << 20)) << 42) | (uint64_t(j + (1 << 20)) << 21) | uint64_t(k + (1 << 20));
  };
  // A bucket of the thinning's hash; clamped so that the conversion is defined for any point (the
  // key aliases far buckets, which costs comparisons, never a wrong answer: distances decide).
  auto cell_of = [&](Vec3 p, int64_t c[3]) {
    const double u[3] = {(double(p.x) - field.origin.x) / min_d, (double(p.y) - field.origin.y) / min_d,
                         (double(p.z) - field.origin.z) / min_d};
    for (int a = 0; a < 3; ++a) {
      const double b = std::floor(u[a]);
      c[a] = b >= -1.0e15 && b <= 1.0e15 ? int64_t(b) : (b > 0.0 ? int64_t(1.0e15) : int64_t(-1.0e15));
    }
  };
  std::vector<Vec3> kept;
  for (const std::vector<SurfaceCandidate>& layer : layers)
    for (const SurfaceCandidate& candidate : layer) {
      const Vec3 p = candidate.q;
      int64_t c[3];
      cell_of(p, c);
      bool crowded = false;
      for (int64_t dk = -1; dk <= 1 && !crowded; ++dk)
        for (int64_t dj = -1; dj <= 1 && !crowded; ++dj)
          for (int64_t di = -1; di <= 1 && !crowded; ++di) {
            const auto it = buckets.find(key(c[0] + di, c[1] + dj, c[2] + dk));
            if (it == buckets.end()) continue;
            for (const Vec3& o : it->second)
              if (length_squared(o - p) < min_d2) {
                crowded = true;
                break;
              }
          }
      if (crowded) continue;
      buckets[key(c[0], c[1], c[2])].push_back(p);
      kept.push_back(p);
    }
  for (Vec3& p : kept) p = to_world(placement, p);
  return kept;
}

}  // namespace pbf
