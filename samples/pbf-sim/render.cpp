// render.cpp - Embree ray tracing of the liquid's surface (or the particles as
// spheres), one primary ray per pixel (rows in parallel with oneTBB), one
// refracted ray through the water, a shadow ray for the floor, the domain's
// edges drawn with a depth test, a 5 x 7 bitmap font for the time, and PNG
// through libpng's simplified API (no setjmp in C++ code).
#include "render.h"

#include "atomic_file.h"

#include <embree3/rtcore.h>
#include <png.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace pbf_sim {

namespace {

constexpr float kPi = 3.14159265358979f;

struct V3 {
  float x, y, z;
};
V3 v3(const Vec3& a) { return {a[0], a[1], a[2]}; }
V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V3 operator*(float s, V3 a) { return {s * a.x, s * a.y, s * a.z}; }
float dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
V3 normalize(V3 a) {
  const float l = std::sqrt(dot(a, a));
  return l > 0.0f ? (1.0f / l) * a : a;
}

// The camera's orthonormal frame and the image plane's half extents at distance 1.
struct Frame {
  V3 eye, forward, right, up;
  float half_w, half_h;
};

Frame camera_frame(const CameraSpec& c, int width, int height) {
  Frame f;
  f.eye = v3(c.position);
  f.forward = normalize(v3(c.look_at) - f.eye);
  f.right = normalize(cross(f.forward, v3(c.up)));
  f.up = cross(f.right, f.forward);
  f.half_h = std::tan(0.5f * c.fov * kPi / 180.0f);
  f.half_w = f.half_h * static_cast<float>(width) / static_cast<float>(height);
  return f;
}

// A fixed light from above, a little from the left and the front (y is up).
const V3 kLight = normalize({-0.35f, 1.0f, 0.55f});
constexpr float kAmbient = 0.28f;

// Geometry IDs in the scene: the particles (or spray), the liquid's surface, then one per solid.
constexpr unsigned kParticles = 0;
constexpr unsigned kLiquid = 1;
constexpr unsigned kFirstSolid = 2;

// Water: Schlick's reflectance at normal incidence for n = 1.33, the absorption over the domain's
// longest side (red most, blue least), and the colour light scattered in deep water takes.
constexpr float kWaterIor = 1.33f;
constexpr float kFresnel0 = 0.02f;
const V3 kAbsorption = {7.0f, 2.4f, 1.6f};
const V3 kDeepWater = {0.04f, 0.27f, 0.33f};
const V3 kSpray = {0.86f, 0.91f, 0.95f};

// The sky the water reflects: pale at the horizon, blue at the zenith, the floor's grey below.
V3 sky(V3 d) {
  if (d.y < 0.0f) return V3{0.42f, 0.43f, 0.45f};
  const float s = std::sqrt(std::min(d.y, 1.0f));
  return (1.0f - s) * V3{0.82f, 0.88f, 0.93f} + s * V3{0.28f, 0.48f, 0.80f};
}

V3 mul(V3 a, V3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }

// 5 x 7 glyphs, one byte per row, bit 4 the leftmost pixel.
struct Glyph {
  char c;
  uint8_t rows[7];
};
constexpr Glyph kFont[] = {
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}}, {'s', {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E}},
    {'f', {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}}, {'r', {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10}},
    {'a', {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}}, {'m', {0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11}},
    {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}}, {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}}, {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}},
};

const uint8_t* glyph_rows(char c) {
  for (const Glyph& g : kFont)
    if (g.c == c) return g.rows;
  return nullptr;  // a blank
}

// Background: a dark vertical gradient, so that the white end of the ramp stands out.
V3 background(float v) { return (1.0f - v) * V3{0.20f, 0.21f, 0.25f} + v * V3{0.09f, 0.09f, 0.11f}; }

uint8_t to_byte(float c) { return static_cast<uint8_t>(std::lround(std::clamp(c, 0.0f, 1.0f) * 255.0f)); }

void check_device(RTCDevice device, const char* what) {
  const RTCError e = rtcGetDeviceError(device);
  if (e != RTC_ERROR_NONE)
    throw std::runtime_error(std::string("Embree: ") + what + " failed (error " + std::to_string(static_cast<int>(e)) +
                             (e == RTC_ERROR_OUT_OF_MEMORY ? ", out of memory)" : ")"));
}

}  // namespace

float speed_scale(const Scene& scene, const float* velocities, size_t count) {
  if (scene.output.speed_max > 0.0f) return scene.output.speed_max;
  // The height a particle can fall is the domain's extent along gravity.
  double fall = 0.0;
  for (int a = 0; a < 3; ++a)
    fall += std::fabs(static_cast<double>(scene.params.gravity[a])) * (scene.domain.max[a] - scene.domain.min[a]);
  float top = static_cast<float>(std::sqrt(2.0 * fall));
  for (size_t i = 0; velocities && i < count; ++i) {
    const float* v = velocities + 3 * i;
    const float speed = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (std::isfinite(speed)) top = std::max(top, speed);
  }
  return std::max(top, 0.1f);
}

std::vector<float> spray_particles(const float* positions, size_t count, float spacing) {
  std::vector<float> spray;
  if (count == 0 || !(spacing > 0.0f)) return spray;
  // Particles per cell of one spacing, keyed by the cell's packed coordinates.
  auto key = [](long i, long j, long k) {
    return (static_cast<uint64_t>(i & 0x1FFFFF) << 42) | (static_cast<uint64_t>(j & 0x1FFFFF) << 21) |
           static_cast<uint64_t>(k & 0x1FFFFF);
  };
  const float inv = 1.0f / spacing;
  std::vector<std::array<long, 3>> cell(count);
  std::unordered_map<uint64_t, uint32_t> occupancy;
  occupancy.reserve(count);
  for (size_t p = 0; p < count; ++p) {
    for (int a = 0; a < 3; ++a) cell[p][a] = static_cast<long>(std::floor(positions[3 * p + a] * inv));
    ++occupancy[key(cell[p][0], cell[p][1], cell[p][2])];
  }
  for (size_t p = 0; p < count; ++p) {
    uint32_t near = 0;
    for (long dk = -1; dk <= 1; ++dk)
      for (long dj = -1; dj <= 1; ++dj)
        for (long di = -1; di <= 1; ++di) {
          const auto it = occupancy.find(key(cell[p][0] + di, cell[p][1] + dj, cell[p][2] + dk));
          if (it != occupancy.end()) near += it->second;
        }
    if (near - 1 < 4) spray.insert(spray.end(), positions + 3 * p, positions + 3 * p + 3);
  }
  return spray;
}

int label_scale(int height) { return std::max(1, height / 270); }

void draw_text(Image& image, const std::string& text, int x, int y, int scale) {
  if (text.empty() || scale < 1) return;
  const int pad = 2 * scale, advance = 6 * scale;
  const int box_w = static_cast<int>(text.size()) * advance - scale + 2 * pad, box_h = 7 * scale + 2 * pad;
  auto pixel = [&](int px, int py) -> uint8_t* {
    if (px < 0 || py < 0 || px >= image.width || py >= image.height) return nullptr;
    return &image.rgb[3 * (static_cast<size_t>(py) * image.width + px)];
  };
  // Darken the box behind the text so that it reads on the sky and on white water alike.
  for (int py = y; py < y + box_h; ++py)
    for (int px = x; px < x + box_w; ++px)
      if (uint8_t* q = pixel(px, py))
        for (int c = 0; c < 3; ++c) q[c] = static_cast<uint8_t>(q[c] * 3 / 10);
  for (size_t i = 0; i < text.size(); ++i) {
    const uint8_t* rows = glyph_rows(text[i]);
    if (!rows) continue;
    const int gx = x + pad + static_cast<int>(i) * advance, gy = y + pad;
    for (int r = 0; r < 7; ++r)
      for (int col = 0; col < 5; ++col) {
        if (!(rows[r] & (0x10 >> col))) continue;
        for (int sy = 0; sy < scale; ++sy)
          for (int sx = 0; sx < scale; ++sx)
            if (uint8_t* q = pixel(gx + col * scale + sx, gy + r * scale + sy)) q[0] = q[1] = q[2] = 245;
      }
  }
}

CameraSpec default_camera(const Box& domain, int width, int height) {
  const V3 lo = v3(domain.min), hi = v3(domain.max);
  const V3 centre = 0.5f * (lo + hi);
  const float radius = 0.5f * std::sqrt(dot(hi - lo, hi - lo));
  CameraSpec c;
  c.fov = 40.0f;
  // The bounding sphere fits the narrower of the two fields of view.
  const float half_v = 0.5f * c.fov * kPi / 180.0f;
  const float half_h = std::atan(std::tan(half_v) * static_cast<float>(width) / static_cast<float>(height));
  const float distance = radius / std::sin(std::min(half_v, half_h));
  const V3 view = normalize({0.55f, 0.45f, 1.0f});  // from the front (+z), right (+x) and above (+y)
  const V3 eye = centre + distance * view;
  c.position = {eye.x, eye.y, eye.z};
  c.look_at = {centre.x, centre.y, centre.z};
  c.up = {0.0f, 1.0f, 0.0f};
  return c;
}

bool project(const CameraSpec& camera, int width, int height, const Vec3& point, float pixel[2]) {
  const Frame f = camera_frame(camera, width, height);
  const V3 d = v3(point) - f.eye;
  const float z = dot(d, f.forward);
  if (!(z > 1e-6f)) return false;
  pixel[0] = 0.5f * width * (1.0f + dot(d, f.right) / (z * f.half_w));
  pixel[1] = 0.5f * height * (1.0f - dot(d, f.up) / (z * f.half_h));
  return true;
}

void speed_color(float t, float rgb[3]) {
  // Deep blue -> blue -> cyan -> white: lightness rises monotonically with speed.
  static const float stops[5][3] = {
      {0.04f, 0.16f, 0.50f}, {0.07f, 0.38f, 0.80f}, {0.18f, 0.66f, 0.92f}, {0.60f, 0.88f, 0.97f}, {0.98f, 0.99f, 1.0f}};
  t = std::isfinite(t) ? std::clamp(t, 0.0f, 1.0f) : 0.0f;
  const float x = t * 4.0f;
  const int i = std::min(static_cast<int>(x), 3);
  const float w = x - static_cast<float>(i);
  for (int c = 0; c < 3; ++c) rgb[c] = (1.0f - w) * stops[i][c] + w * stops[i + 1][c];
}

struct FrameRenderer::Impl {
  RTCDevice device = nullptr;
  std::string error;  // the last message of Embree's error callback
};

FrameRenderer::FrameRenderer() : impl_(new Impl) {
  impl_->device = rtcNewDevice(nullptr);
  if (!impl_->device) throw std::runtime_error("Embree: cannot create a device (rtcNewDevice)");
}

FrameRenderer::~FrameRenderer() {
  if (impl_ && impl_->device) rtcReleaseDevice(impl_->device);
}

namespace {

// Attaches an indexed triangle mesh to `scene` under `id`.
void attach_mesh(RTCDevice device, RTCScene scene, const SurfaceMesh& mesh, unsigned id, const char* what) {
  RTCGeometry geom = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_TRIANGLE);
  check_device(device, "rtcNewGeometry");
  auto* vertices = static_cast<float*>(rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                                               3 * sizeof(float), mesh.vertex_count()));
  auto* indices = static_cast<uint32_t*>(rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                                                 3 * sizeof(uint32_t), mesh.triangle_count()));
  if (!vertices || !indices) {
    rtcReleaseGeometry(geom);
    check_device(device, "rtcSetNewGeometryBuffer");
    throw std::runtime_error(std::string("Embree: cannot allocate ") + what);
  }
  std::memcpy(vertices, mesh.vertices.data(), mesh.vertices.size() * sizeof(float));
  std::memcpy(indices, mesh.triangles.data(), mesh.triangles.size() * sizeof(uint32_t));
  rtcCommitGeometry(geom);
  rtcAttachGeometryByID(scene, geom, id);
  rtcReleaseGeometry(geom);
}

RTCRayHit make_ray(V3 o, V3 d, float tnear, float tfar) {
  RTCRayHit rh;
  rh.ray.org_x = o.x;
  rh.ray.org_y = o.y;
  rh.ray.org_z = o.z;
  rh.ray.dir_x = d.x;
  rh.ray.dir_y = d.y;
  rh.ray.dir_z = d.z;
  rh.ray.tnear = tnear;
  rh.ray.tfar = tfar;
  rh.ray.time = 0.0f;
  rh.ray.mask = 0xFFFFFFFFu;
  rh.ray.id = 0;
  rh.ray.flags = 0;
  rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
  rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
  return rh;
}

}  // namespace

Image FrameRenderer::render(const float* positions, const float* velocities, size_t count, const RenderSettings& rs) {
  const int w = rs.width, h = rs.height;
  RTCDevice device = impl_->device;
  const bool water = rs.style == ImageStyle::Water;

  // Colour scale: the given top speed, or the frame's largest.
  std::vector<float> speed(water ? 0 : count, 0.0f);
  float top = rs.speed_max;
  if (!water && velocities && count > 0) {
    const float frame_max = tbb::parallel_reduce(
        tbb::blocked_range<size_t>(0, count), 0.0f,
        [&](const tbb::blocked_range<size_t>& r, float m) {
          for (size_t i = r.begin(); i < r.end(); ++i) {
            const float* v = velocities + 3 * i;
            speed[i] = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (std::isfinite(speed[i])) m = std::max(m, speed[i]);
          }
          return m;
        },
        [](float a, float b) { return std::max(a, b); });
    if (!(top > 0.0f)) top = frame_max;
  }
  const float inv_top = top > 0.0f ? 1.0f / top : 0.0f;

  // The spheres: one point geometry, radius in the fourth component.
  RTCScene scene = rtcNewScene(device);
  check_device(device, "rtcNewScene");
  struct SceneOwner {
    RTCScene s;
    ~SceneOwner() { rtcReleaseScene(s); }
  } owner{scene};
  if (count > 0) {
    RTCGeometry geom = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_SPHERE_POINT);
    check_device(device, "rtcNewGeometry");
    auto* points = static_cast<float*>(
        rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT4, 4 * sizeof(float), count));
    if (!points) {
      rtcReleaseGeometry(geom);
      check_device(device, "rtcSetNewGeometryBuffer");
      throw std::runtime_error("Embree: cannot allocate the particle buffer");
    }
    tbb::parallel_for(tbb::blocked_range<size_t>(0, count), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t i = r.begin(); i < r.end(); ++i) {
        std::memcpy(points + 4 * i, positions + 3 * i, 3 * sizeof(float));
        points[4 * i + 3] = rs.radius;
      }
    });
    rtcCommitGeometry(geom);
    rtcAttachGeometryByID(scene, geom, kParticles);
    rtcReleaseGeometry(geom);
  }
  // The liquid's surface, with its per-vertex normals kept here for smooth shading.
  const SurfaceMesh* liquid = water && rs.liquid && rs.liquid->triangle_count() > 0 ? rs.liquid : nullptr;
  if (liquid) attach_mesh(device, scene, *liquid, kLiquid, "the liquid's surface");
  // The solids: one triangle geometry each, IDs after the liquid's.
  bool any_solid = false;
  for (size_t m = 0; m < rs.solids.size(); ++m) {
    if (rs.solids[m].triangle_count() == 0) continue;
    attach_mesh(device, scene, rs.solids[m], kFirstSolid + static_cast<unsigned>(m), "a solid's buffers");
    any_solid = true;
  }
  const bool anything = count > 0 || any_solid || liquid;
  rtcCommitScene(scene);
  check_device(device, "rtcCommitScene");

  const Frame f = camera_frame(rs.camera, w, h);
  const V3 lo = v3(rs.domain.min), hi = v3(rs.domain.max);
  const float floor_y = lo.y;
  const float longest = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
  const float cell = longest / 8.0f;                                  // checker squares on the floor
  const float margin = 0.5f * std::max(hi.x - lo.x, hi.z - lo.z);    // plain floor around the domain
  const float eps = 1e-4f * std::max(1.0f, longest);                  // ray offsets off a surface [m]
  const V3 absorption = (1.0f / std::max(longest, 1e-6f)) * kAbsorption;  // per metre
  const float inf = std::numeric_limits<float>::infinity();

  std::vector<float> color(3 * static_cast<size_t>(w) * h);
  std::vector<float> depth(static_cast<size_t>(w) * h, inf);  // distance along each pixel's ray [m]

  tbb::parallel_for(tbb::blocked_range<int>(0, h, 2), [&](const tbb::blocked_range<int>& rows) {
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);

    // The light reaching a floor point: shadows of solids and spheres are dark, water's lighter.
    auto light_at = [&](V3 p) {
      if (!anything) return 1.0f;
      float lit = 1.0f;
      V3 o = p + eps * kLight;
      for (int k = 0; k < 8 && lit > 0.0f; ++k) {
        RTCRayHit s = make_ray(o, kLight, 0.0f, inf);
        rtcIntersect1(scene, &context, &s);
        if (s.hit.geomID == RTC_INVALID_GEOMETRY_ID) break;
        // Spray is too fine to cast a shadow; each crossing of the water's surface dims the light (in and out: about half).
        if (s.hit.geomID == kLiquid)
          lit *= 0.75f;
        else if (!(water && s.hit.geomID == kParticles))
          return 0.0f;
        o = o + (s.ray.tfar + eps) * kLight;
      }
      return lit;
    };

    // The floor at the end of a ray from `o` along `d` (t_floor away), or the background.
    auto floor_or_background = [&](V3 o, V3 d, float t_floor, float v) -> V3 {
      if (!(t_floor < inf)) return background(v);
      const V3 p = o + t_floor * d;
      const bool inside = p.x >= lo.x && p.x <= hi.x && p.z >= lo.z && p.z <= hi.z;
      const bool near = p.x >= lo.x - margin && p.x <= hi.x + margin && p.z >= lo.z - margin && p.z <= hi.z + margin;
      if (!near) return background(v);
      float shade = 0.50f;
      if (inside) {
        const long i = static_cast<long>(std::floor((p.x - lo.x) / cell));
        const long k = static_cast<long>(std::floor((p.z - lo.z) / cell));
        shade = ((i + k) & 1) ? 0.66f : 0.74f;
      }
      const float light = 0.45f + 0.55f * light_at(p) * kLight.y;
      return (shade * light) * V3{1.0f, 1.0f, 1.0f};
    };

    // A sphere's or a solid's colour at a hit, lit from the light.
    auto opaque = [&](const RTCRayHit& rh, V3 d) -> V3 {
      V3 n = normalize({rh.hit.Ng_x, rh.hit.Ng_y, rh.hit.Ng_z});
      if (dot(n, d) > 0.0f) n = -1.0f * n;
      V3 base{0.70f, 0.67f, 0.62f};  // solids: warm grey
      if (rh.hit.geomID == kParticles) {
        if (water) {
          base = kSpray;
        } else {
          float c[3];
          speed_color(speed.empty() ? 0.0f : speed[rh.hit.primID] * inv_top, c);
          base = {c[0], c[1], c[2]};
        }
      }
      const float light = kAmbient + 0.62f * std::max(0.0f, dot(n, kLight)) + 0.10f * std::max(0.0f, -dot(n, d));
      return light * base;
    };

    // The floor's distance along a ray, or infinity when the ray does not go down to it.
    auto floor_distance = [&](V3 o, V3 d) { return d.y < 0.0f && o.y > floor_y ? (floor_y - o.y) / d.y : inf; };

    // Water at a hit on its surface seen along `d`: reflection, highlight and the refracted view.
    auto shade_water = [&](V3 p, const RTCRayHit& rh, V3 d, float v) -> V3 {
      const uint32_t* tri = &liquid->triangles[3 * static_cast<size_t>(rh.hit.primID)];
      const float b1 = rh.hit.u, b2 = rh.hit.v, b0 = 1.0f - b1 - b2;
      const float* nv = liquid->normals.data();
      V3 n = normalize(b0 * V3{nv[3 * tri[0]], nv[3 * tri[0] + 1], nv[3 * tri[0] + 2]} +
                       b1 * V3{nv[3 * tri[1]], nv[3 * tri[1] + 1], nv[3 * tri[1] + 2]} +
                       b2 * V3{nv[3 * tri[2]], nv[3 * tri[2] + 1], nv[3 * tri[2] + 2]});
      if (dot(n, d) > 0.0f) n = -1.0f * n;  // seen from inside (a camera under water): face the eye
      const float cos_i = std::min(1.0f, -dot(n, d));
      const float fresnel = kFresnel0 + (1.0f - kFresnel0) * std::pow(1.0f - cos_i, 5.0f);
      const V3 r = d + (2.0f * cos_i) * n;
      // Refraction into the water (Snell), then straight on: through the water to what lies behind.
      const float eta = 1.0f / kWaterIor;
      const float k = 1.0f - eta * eta * (1.0f - cos_i * cos_i);
      const V3 t = normalize(eta * d + (eta * cos_i - std::sqrt(std::max(k, 0.0f))) * n);
      float in_water = 0.0f;
      bool wet = true;
      V3 o = p - eps * n;
      V3 behind = kDeepWater;  // a path that crosses the surface more often than this ends in deep water
      for (int bounce = 0; bounce < 6; ++bounce) {
        // The mesh closes a little below the floor: a ray that leaves it there meets the floor at once.
        const float t_floor = t.y < 0.0f ? std::max(0.0f, (floor_y - o.y) / t.y) : inf;
        RTCRayHit q = make_ray(o, t, 0.0f, t_floor);
        rtcIntersect1(scene, &context, &q);
        if (q.hit.geomID == kLiquid) {
          if (wet) in_water += q.ray.tfar;
          wet = !wet;
          o = o + (q.ray.tfar + eps) * t;
          continue;
        }
        if (q.hit.geomID != RTC_INVALID_GEOMETRY_ID) {
          if (wet) in_water += q.ray.tfar;
          behind = opaque(q, t);
        } else {
          if (wet && t_floor < inf) in_water += t_floor;
          behind = floor_or_background(o, t, t_floor, v);
        }
        break;
      }
      const V3 through = {std::exp(-absorption.x * in_water), std::exp(-absorption.y * in_water),
                          std::exp(-absorption.z * in_water)};
      const V3 body = mul(behind, through) + mul(V3{1.0f - through.x, 1.0f - through.y, 1.0f - through.z}, kDeepWater);
      const V3 half = normalize(kLight - d);
      const float highlight = 0.9f * std::pow(std::max(0.0f, dot(n, half)), 150.0f);
      const float diffuse = 0.8f + 0.2f * std::max(0.0f, dot(n, kLight));
      return (1.0f - fresnel) * diffuse * body + fresnel * sky(r) + highlight * V3{1.0f, 0.98f, 0.92f};
    };

    for (int y = rows.begin(); y < rows.end(); ++y) {
      const float sy = (1.0f - 2.0f * (y + 0.5f) / h) * f.half_h;
      const float v = static_cast<float>(y) / h;
      for (int x = 0; x < w; ++x) {
        const float sx = (2.0f * (x + 0.5f) / w - 1.0f) * f.half_w;
        const V3 dir = normalize(f.forward + sx * f.right + sy * f.up);
        // The floor plane y = floor_y caps the ray; anything in front of it wins.
        const float t_floor = floor_distance(f.eye, dir);
        RTCRayHit rh = make_ray(f.eye, dir, 0.0f, t_floor);
        rtcIntersect1(scene, &context, &rh);
        const size_t pix = static_cast<size_t>(y) * w + x;
        V3 c;
        if (rh.hit.geomID == kLiquid) {
          c = shade_water(f.eye + rh.ray.tfar * dir, rh, dir, v);
          depth[pix] = rh.ray.tfar;
        } else if (rh.hit.geomID != RTC_INVALID_GEOMETRY_ID) {
          c = opaque(rh, dir);
          depth[pix] = rh.ray.tfar;
        } else {
          c = floor_or_background(f.eye, dir, t_floor, v);
          if (t_floor < inf) depth[pix] = t_floor;
        }
        color[3 * pix] = c.x;
        color[3 * pix + 1] = c.y;
        color[3 * pix + 2] = c.z;
      }
    }
  });

  // The domain's 12 edges, hidden where something nearer covers them.
  const V3 corner[8] = {{lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {lo.x, hi.y, lo.z}, {hi.x, hi.y, lo.z},
                        {lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {lo.x, hi.y, hi.z}, {hi.x, hi.y, hi.z}};
  const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  const float near_z = 1e-3f;
  for (const auto& e : edges) {
    V3 a = corner[e[0]], b = corner[e[1]];
    float za = dot(a - f.eye, f.forward), zb = dot(b - f.eye, f.forward);
    if (za < near_z && zb < near_z) continue;
    // Clip the part behind the camera.
    if (za < near_z) a = a + ((near_z - za) / (zb - za)) * (b - a);
    if (zb < near_z) b = b + ((near_z - zb) / (za - zb)) * (a - b);
    float pa[2], pb[2];
    if (!project(rs.camera, w, h, {a.x, a.y, a.z}, pa) || !project(rs.camera, w, h, {b.x, b.y, b.z}, pb)) continue;
    const float len = std::hypot(pb[0] - pa[0], pb[1] - pa[1]);
    const int steps = static_cast<int>(std::min(2.0f * len, 40000.0f)) + 1;
    for (int s = 0; s <= steps; ++s) {
      const float t = static_cast<float>(s) / steps;
      // Perspective-correct point on the edge for this screen position: interpolate in 3D and project.
      const V3 p = a + t * (b - a);
      float q[2];
      if (!project(rs.camera, w, h, {p.x, p.y, p.z}, q)) continue;
      const long x = static_cast<long>(std::floor(q[0])), y = static_cast<long>(std::floor(q[1]));
      if (x < 0 || y < 0 || x >= w || y >= h) continue;
      const size_t pix = static_cast<size_t>(y) * w + x;
      const V3 d = p - f.eye;
      const float dist = std::sqrt(dot(d, d));
      if (dist > depth[pix] * 1.01f + 2.0f * rs.radius) continue;
      for (int ch = 0; ch < 3; ++ch) color[3 * pix + ch] = 0.35f * color[3 * pix + ch] + 0.65f * 0.92f;
    }
  }

  Image image;
  image.width = w;
  image.height = h;
  image.rgb.resize(color.size());
  for (size_t i = 0; i < color.size(); ++i) image.rgb[i] = to_byte(color[i]);
  const int scale = label_scale(h);
  draw_text(image, rs.label, 4 * scale, 4 * scale, scale);
  return image;
}

void write_png(const std::string& path, const Image& image) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  png.flags = PNG_IMAGE_FLAG_FAST;  // a frame is written once: favour speed over size
  if (image.rgb.size() != static_cast<size_t>(image.width) * image.height * 3 || image.width <= 0 || image.height <= 0)
    throw std::runtime_error("cannot write PNG '" + path + "': the picture's size does not match its pixels");
  std::string reason;
  try {
    AtomicFile file(path);
    errno = 0;
    if (png_image_write_to_stdio(&png, file.stream(), 0, image.rgb.data(), 0, nullptr)) {
      file.commit();
      return;
    }
    reason = png.message[0] ? png.message : std::strerror(errno);
    png_image_free(&png);
  } catch (const std::runtime_error& e) {
    reason = e.what();
  }
  throw std::runtime_error("cannot write PNG '" + path + "': " + reason);
}

Image read_png(const std::string& path) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str()))
    throw std::runtime_error("cannot read PNG '" + path + "': " + png.message);
  png.format = PNG_FORMAT_RGB;
  Image image;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr)) {
    const std::string reason = png.message;
    png_image_free(&png);
    throw std::runtime_error("cannot read PNG '" + path + "': " + reason);
  }
  return image;
}

Image contact_sheet(const std::vector<std::string>& frames) {
  Image sheet;
  if (frames.empty()) return sheet;
  const size_t k = std::min<size_t>(16, frames.size());
  const int gap = 2;
  int tw = 0, th = 0, cols = 0, rows = 0;
  for (size_t j = 0; j < k; ++j) {
    // Evenly spaced, the first and the last frame included.
    const size_t index = k == 1 ? 0 : (j * (frames.size() - 1) + (k - 1) / 2) / (k - 1);
    const Image src = read_png(frames[index]);
    if (j == 0) {
      tw = std::max(1, src.width / 4);
      th = std::max(1, src.height / 4);
      cols = static_cast<int>(std::min<size_t>(4, k));
      rows = static_cast<int>((k + cols - 1) / cols);
      sheet.width = cols * tw + (cols + 1) * gap;
      sheet.height = rows * th + (rows + 1) * gap;
      sheet.rgb.assign(static_cast<size_t>(sheet.width) * sheet.height * 3, 24);
    }
    const int ox = gap + static_cast<int>(j % cols) * (tw + gap), oy = gap + static_cast<int>(j / cols) * (th + gap);
    // Box filter: each tile pixel averages the source pixels of its rectangle (any source size).
    for (int y = 0; y < th; ++y) {
      const int y0 = y * src.height / th, y1 = std::max(y0 + 1, (y + 1) * src.height / th);
      for (int x = 0; x < tw; ++x) {
        const int x0 = x * src.width / tw, x1 = std::max(x0 + 1, (x + 1) * src.width / tw);
        unsigned sum[3] = {0, 0, 0};
        for (int sy = y0; sy < y1; ++sy)
          for (int sx = x0; sx < x1; ++sx)
            for (int c = 0; c < 3; ++c) sum[c] += src.rgb[3 * (static_cast<size_t>(sy) * src.width + sx) + c];
        const unsigned n = static_cast<unsigned>((y1 - y0) * (x1 - x0));
        for (int c = 0; c < 3; ++c)
          sheet.rgb[3 * (static_cast<size_t>(oy + y) * sheet.width + ox + x) + c] = static_cast<uint8_t>((sum[c] + n / 2) / n);
      }
    }
  }
  return sheet;
}

}  // namespace pbf_sim
