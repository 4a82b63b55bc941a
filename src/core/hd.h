// hd.h - PBF_HD marks code compiled for both host and device, and the small
// vector type every stage is written with.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define PBF_HD __host__ __device__ __forceinline__
#else
#define PBF_HD inline
#endif

// PBF_HD_RARE marks the rare branch of a PBF_HD function split in two (a
// narrow phase most calls skip): kept out of line on the host, so that its
// callers' loops do not pay for its registers; inlined on the device, as
// PBF_HD is.
#if defined(__CUDACC__)
#define PBF_HD_RARE __host__ __device__ __forceinline__
#elif defined(_MSC_VER)
#define PBF_HD_RARE __declspec(noinline) inline
#else
#define PBF_HD_RARE __attribute__((noinline)) inline
#endif

namespace pbf {

struct Vec3 {
  float x, y, z;
};

PBF_HD Vec3 make_vec3(float x, float y, float z) { return Vec3{x, y, z}; }
PBF_HD Vec3 operator+(Vec3 a, Vec3 b) { return Vec3{a.x + b.x, a.y + b.y, a.z + b.z}; }
PBF_HD Vec3 operator-(Vec3 a, Vec3 b) { return Vec3{a.x - b.x, a.y - b.y, a.z - b.z}; }
PBF_HD Vec3 operator-(Vec3 a) { return Vec3{-a.x, -a.y, -a.z}; }
PBF_HD Vec3 operator*(Vec3 a, float s) { return Vec3{a.x * s, a.y * s, a.z * s}; }
PBF_HD Vec3 operator*(float s, Vec3 a) { return Vec3{a.x * s, a.y * s, a.z * s}; }
PBF_HD Vec3& operator+=(Vec3& a, Vec3 b) { a.x += b.x; a.y += b.y; a.z += b.z; return a; }
PBF_HD Vec3& operator-=(Vec3& a, Vec3 b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; return a; }
PBF_HD float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
PBF_HD Vec3 cross(Vec3 a, Vec3 b) {
  return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
PBF_HD float length_squared(Vec3 a) { return dot(a, a); }
PBF_HD float length(Vec3 a) { return sqrtf(dot(a, a)); }
// v within [lo, hi] (lo <= hi, neither NaN); NaN becomes lo, as with
// fminf(fmaxf(v, lo), hi). Written as two selects, which compile to one
// instruction each: GCC calls the library's fminf and fmaxf for their NaN rules.
PBF_HD float clampf(float v, float lo, float hi) {
  const float above = v > lo ? v : lo;
  return above < hi ? above : hi;
}
// The componentwise smaller and larger of a and b: a bounding box's corners.
PBF_HD Vec3 min_each(Vec3 a, Vec3 b) {
  return Vec3{a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
PBF_HD Vec3 max_each(Vec3 a, Vec3 b) {
  return Vec3{a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}
PBF_HD bool is_finite(Vec3 a) { return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z); }

// What the equations templated on their lane type (a float here, eight on
// the CPU: backend/cpu/lanes.h) call for a choice and a square root.
PBF_HD float select(bool take_a, float a, float b) { return take_a ? a : b; }
PBF_HD float square_root(float v) { return sqrtf(v); }
PBF_HD float power(float v, float e) { return powf(v, e); }

}  // namespace pbf
