// sdf_grid.h - a signed distance field sampled on a regular grid, and its
// trilinear interpolation, written once for the CPU and the GPU. Distances
// are in metres, negative inside the solid. Whoever builds the field
// (src/geometry/ from meshes, or analytic shapes) stores values only; the
// backends read them through SdfGridView.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/hd.h"

namespace pbf {

// A read-only view of a field: value (i, j, k) lies at origin + (i, j, k) * cell
// and is stored at values[i + nx * (j + ny * k)]; nx, ny, nz >= 2.
struct SdfGridView {
  const float* values;
  int32_t nx, ny, nz;
  Vec3 origin;  // the first sample [m]
  float cell;   // sample spacing [m], > 0
};

// The largest distance a field on this grid may hold [m]: a surface inside
// the grid (as every solid's field has) is no farther from any sample than
// the grid's diagonal; the slack covers rounding. Bounding the values keeps
// sampling's differences, and the push-outs derived from them, finite.
inline double sdf_distance_bound(const uint32_t dims[3], float cell) {
  double diagonal2 = 0.0;
  for (int a = 0; a < 3; ++a) diagonal2 += (double(dims[a]) - 1.0) * (double(dims[a]) - 1.0);
  return std::sqrt(diagonal2) * cell * (1.0 + 1e-3) + cell;
}

// The field at p and its gradient (not normalised). Inside the grid:
// trilinear interpolation and its exact derivative. Outside it: the value at
// the nearest point of the grid box plus the distance to that box (an upper
// bound of the true distance, positive when the grid encloses the solid with
// a margin), with the gradient pointing away from the box.
PBF_HD float sdf_sample(const SdfGridView& g, Vec3 p, Vec3* gradient) {
  const float inv = 1.0f / g.cell;
  const Vec3 u = (p - g.origin) * inv;  // in cells
  const float ux = clampf(u.x, 0.0f, float(g.nx - 1));
  const float uy = clampf(u.y, 0.0f, float(g.ny - 1));
  const float uz = clampf(u.z, 0.0f, float(g.nz - 1));
  const int32_t i = int32_t(fminf(floorf(ux), float(g.nx - 2)));
  const int32_t j = int32_t(fminf(floorf(uy), float(g.ny - 2)));
  const int32_t k = int32_t(fminf(floorf(uz), float(g.nz - 2)));
  const float fx = ux - float(i), fy = uy - float(j), fz = uz - float(k);
  const int64_t sx = 1, sy = g.nx, sz = int64_t(g.nx) * g.ny;
  const float* c = g.values + (i * sx + j * sy + k * sz);
  const float c000 = c[0], c100 = c[sx], c010 = c[sy], c110 = c[sx + sy];
  const float c001 = c[sz], c101 = c[sx + sz], c011 = c[sy + sz], c111 = c[sx + sy + sz];
  // Interpolate along x, then y, then z; the gradient differentiates each.
  const float c00 = c000 + fx * (c100 - c000), c10 = c010 + fx * (c110 - c010);
  const float c01 = c001 + fx * (c101 - c001), c11 = c011 + fx * (c111 - c011);
  const float c0 = c00 + fy * (c10 - c00), c1 = c01 + fy * (c11 - c01);
  float value = c0 + fz * (c1 - c0);
  Vec3 grad;
  const float dx0 = (c100 - c000) + fy * ((c110 - c010) - (c100 - c000));
  const float dx1 = (c101 - c001) + fy * ((c111 - c011) - (c101 - c001));
  grad.x = (dx0 + fz * (dx1 - dx0)) * inv;
  grad.y = ((c10 - c00) + fz * ((c11 - c01) - (c10 - c00))) * inv;
  grad.z = (c1 - c0) * inv;
  // Outside the grid box: add the distance to it and point away from it.
  const Vec3 outside = make_vec3(u.x - ux, u.y - uy, u.z - uz) * g.cell;
  const float d2 = length_squared(outside);
  if (d2 > 0.0f) {
    const float d = sqrtf(d2);
    value += d;
    grad = outside * (1.0f / d);
  }
  if (gradient) *gradient = grad;
  return value;
}

// A rigid placement x_world = R x_local + t, R a rotation (row-major).
struct RigidTransform {
  float r[9];
  Vec3 t;
};

// The placement of a unit quaternion (x, y, z, w) and a translation.
PBF_HD RigidTransform rigid_transform(const float q[4], Vec3 t) {
  const float x = q[0], y = q[1], z = q[2], w = q[3];
  RigidTransform r;
  r.r[0] = 1 - 2 * (y * y + z * z);
  r.r[1] = 2 * (x * y - z * w);
  r.r[2] = 2 * (x * z + y * w);
  r.r[3] = 2 * (x * y + z * w);
  r.r[4] = 1 - 2 * (x * x + z * z);
  r.r[5] = 2 * (y * z - x * w);
  r.r[6] = 2 * (x * z - y * w);
  r.r[7] = 2 * (y * z + x * w);
  r.r[8] = 1 - 2 * (x * x + y * y);
  r.t = t;
  return r;
}

// A quaternion scaled to unit length (in double precision), as every
// placement the library stores is (host only; `in` must be non-zero).
inline void normalize_quaternion(const float in[4], float out[4]) {
  double norm = 0.0;
  for (int k = 0; k < 4; ++k) norm += double(in[k]) * in[k];
  norm = std::sqrt(norm);
  for (int k = 0; k < 4; ++k) out[k] = float(in[k] / norm);
}

PBF_HD Vec3 rotate(const float r[9], Vec3 v) {
  return make_vec3(r[0] * v.x + r[1] * v.y + r[2] * v.z, r[3] * v.x + r[4] * v.y + r[5] * v.z,
                   r[6] * v.x + r[7] * v.y + r[8] * v.z);
}

PBF_HD Vec3 rotate_transposed(const float r[9], Vec3 v) {
  return make_vec3(r[0] * v.x + r[3] * v.y + r[6] * v.z, r[1] * v.x + r[4] * v.y + r[7] * v.z,
                   r[2] * v.x + r[5] * v.y + r[8] * v.z);
}

PBF_HD Vec3 to_local(const RigidTransform& x, Vec3 world) { return rotate_transposed(x.r, world - x.t); }
PBF_HD Vec3 to_world(const RigidTransform& x, Vec3 local) { return rotate(x.r, local) + x.t; }

}  // namespace pbf
