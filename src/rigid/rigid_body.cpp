#include "rigid/rigid_body.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace pbf {

namespace {

struct D3 {
  double x, y, z;
};
D3 operator+(D3 a, D3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
D3 operator-(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
D3 operator*(D3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
D3 cross(D3 a, D3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
D3 load(const double v[3]) { return {v[0], v[1], v[2]}; }
D3 load(Vec3 v) { return {v.x, v.y, v.z}; }
void store(D3 a, double v[3]) {
  v[0] = a.x;
  v[1] = a.y;
  v[2] = a.z;
}

// The rotation matrix of a unit quaternion (x, y, z, w), row-major.
void rotation(const double q[4], double r[9]) {
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  r[0] = 1 - 2 * (y * y + z * z);
  r[1] = 2 * (x * y - z * w);
  r[2] = 2 * (x * z + y * w);
  r[3] = 2 * (x * y + z * w);
  r[4] = 1 - 2 * (x * x + z * z);
  r[5] = 2 * (y * z - x * w);
  r[6] = 2 * (x * z - y * w);
  r[7] = 2 * (y * z + x * w);
  r[8] = 1 - 2 * (x * x + y * y);
}

D3 mul(const double m[9], D3 v) {
  return {m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
          m[6] * v.x + m[7] * v.y + m[8] * v.z};
}
D3 mul_transposed(const double m[9], D3 v) {
  return {m[0] * v.x + m[3] * v.y + m[6] * v.z, m[1] * v.x + m[4] * v.y + m[7] * v.z,
          m[2] * v.x + m[5] * v.y + m[8] * v.z};
}

// The inverse of a symmetric 3x3 matrix; false unless it is positive definite.
bool invert_spd(const double a[9], double out[9]) {
  const double m0 = a[0], m1 = a[0] * a[4] - a[1] * a[3];
  const double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                     a[2] * (a[3] * a[7] - a[4] * a[6]);
  if (!(m0 > 0.0 && m1 > 0.0 && det > 0.0)) return false;  // Sylvester's criterion
  out[0] = (a[4] * a[8] - a[5] * a[7]) / det;
  out[1] = (a[2] * a[7] - a[1] * a[8]) / det;
  out[2] = (a[1] * a[5] - a[2] * a[4]) / det;
  out[3] = (a[5] * a[6] - a[3] * a[8]) / det;
  out[4] = (a[0] * a[8] - a[2] * a[6]) / det;
  out[5] = (a[2] * a[3] - a[0] * a[5]) / det;
  out[6] = (a[3] * a[7] - a[4] * a[6]) / det;
  out[7] = (a[1] * a[6] - a[0] * a[7]) / det;
  out[8] = (a[0] * a[4] - a[1] * a[3]) / det;
  return true;
}

// R I^-1 R^T w: the world inverse inertia applied to a world vector.
D3 apply_inverse_inertia(const RigidBody& b, const double r[9], D3 w) {
  return mul(r, mul(b.inverse_inertia, mul_transposed(r, w)));
}

// Solves k x = rhs for a symmetric positive definite 6x6 k (row-major) by
// Cholesky's factorisation, in place of rhs; false (rhs untouched) unless k is
// positive definite.
bool solve_spd6(const double k[36], double rhs[6]) {
  double l[36] = {};
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c <= r; ++c) {
      double sum = k[r * 6 + c];
      for (int m = 0; m < c; ++m) sum -= l[r * 6 + m] * l[c * 6 + m];
      if (r == c) {
        if (!(sum > 0.0)) return false;
        l[r * 6 + r] = std::sqrt(sum);
      } else {
        l[r * 6 + c] = sum / l[c * 6 + c];
      }
    }
  double y[6];
  for (int r = 0; r < 6; ++r) {
    double sum = rhs[r];
    for (int m = 0; m < r; ++m) sum -= l[r * 6 + m] * y[m];
    y[r] = sum / l[r * 6 + r];
  }
  for (int r = 5; r >= 0; --r) {
    double sum = y[r];
    for (int m = r + 1; m < 6; ++m) sum -= l[m * 6 + r] * rhs[m];
    rhs[r] = sum / l[r * 6 + r];
  }
  return true;
}

// R I R^T w: the world inertia applied to a world vector.
D3 apply_inertia(const RigidBody& b, const double r[9], D3 w) {
  return mul(r, mul(b.mass.inertia, mul_transposed(r, w)));
}

D3 centre_of(const RigidBody& b, const double r[9], const RigidPose& pose) {
  return mul(r, load(b.mass.centre)) + load(pose.t);
}

// A hull point's gradient at least this long: the body's surface is flat
// there (a distance's gradient has length 1; across an edge or a corner the
// grid's interpolation blends the faces' normals into a shorter one).
constexpr float kFlatGradient = 0.99f;

// Whether a field is flat about the local point q: the grid's cell that holds q holds an affine field (a
// face's distance, its eight samples on one plane to within a hundredth of a cell), not an edge or a
// corner, whose field the interpolation rounds, its gradient slanted though as long as a distance's.
bool flat_at(const SdfGridView& f, Vec3 q) {
  const float inv = 1.0f / f.cell;
  const int32_t i = std::clamp(int32_t(std::floor((q.x - f.origin.x) * inv)), 0, int32_t(f.nx) - 2);
  const int32_t j = std::clamp(int32_t(std::floor((q.y - f.origin.y) * inv)), 0, int32_t(f.ny) - 2);
  const int32_t k = std::clamp(int32_t(std::floor((q.z - f.origin.z) * inv)), 0, int32_t(f.nz) - 2);
  const int64_t sx = 1, sy = f.nx, sz = int64_t(f.nx) * f.ny;
  const float* c = f.values + (i * sx + j * sy + k * sz);
  const float gx = c[sx] - c[0], gy = c[sy] - c[0], gz = c[sz] - c[0], most = 0.01f * f.cell;
  return std::fabs(c[sx + sy] - (c[0] + gx + gy)) <= most && std::fabs(c[sx + sz] - (c[0] + gx + gz)) <= most &&
         std::fabs(c[sy + sz] - (c[0] + gy + gz)) <= most &&
         std::fabs(c[sx + sy + sz] - (c[0] + gx + gy + gz)) <= most;
}

// Whether a body moved out of the surroundings s leaves `solid` out: itself, and a body of a higher place
// (RigidSurroundings::rank).
bool left_out(const RigidSurroundings& s, const RigidContactSolid& solid) {
  if (solid.body == kNoBody || s.self == kNoBody) return false;
  return solid.body == s.self || (s.rank && s.rank[solid.body] > s.rank[s.self]);
}

// How deep a world point lies in the surroundings (> 0 inside) and the
// normal out of them there, with the body whose surface that is in *which
// (kNoBody: a plane or a kinematic obstacle) and, where it is a kinematic
// obstacle's, that obstacle in *kinematic (else null); -inf where no surface
// is near; *flat (where asked) tells whether that surface is flat there: a
// plane, or a solid's face away from its edges and corners (flat_at()).
// The solid that is the surroundings' `self` is left out, and another body's
// surface that p lies farther outside than `least` below zero (the caller
// asks nothing of it) is not looked at further.
double penetration(const RigidSurroundings& s, Vec3 p, D3& normal, uint32_t* which = nullptr,
                   double least = -INFINITY, const RigidContactSolid** kinematic = nullptr, bool* flat = nullptr) {
  double deepest = -INFINITY;
  bool deepest_flat = true;
  uint32_t deepest_body = kNoBody;
  const RigidContactSolid* deepest_kinematic = nullptr;
  for (uint32_t k = 0; k < s.plane_count; ++k) {
    const Plane& pl = s.planes[k];
    const double depth = -(double(pl.normal.x) * p.x + double(pl.normal.y) * p.y + double(pl.normal.z) * p.z +
                           double(pl.offset));
    if (depth > deepest) {
      deepest = depth;
      normal = load(pl.normal);
      deepest_kinematic = nullptr;
      deepest_flat = true;
    }
  }
  for (uint32_t k = 0; k < s.solid_count; ++k) {
    const RigidContactSolid& solid = s.solids[k];
    if (left_out(s, solid)) continue;
    // A solid whose field's grid p lies outside: tested without turning p into its frame.
    if (p.x < solid.lo.x || p.y < solid.lo.y || p.z < solid.lo.z || p.x > solid.hi.x || p.y > solid.hi.y ||
        p.z > solid.hi.z)
      continue;
    // Outside the field's grid the solid is farther than the grid's margin: no contact.
    const SdfGridView& f = *solid.field;
    const Vec3 q = to_local(solid.pose, p);
    if (q.x < f.origin.x || q.y < f.origin.y || q.z < f.origin.z || q.x > f.origin.x + float(f.nx - 1) * f.cell ||
        q.y > f.origin.y + float(f.ny - 1) * f.cell || q.z > f.origin.z + float(f.nz - 1) * f.cell)
      continue;
    if (solid.body != kNoBody && -double(sdf_sample(f, q, nullptr)) < least) continue;
    Vec3 g;
    const double depth = -double(sdf_sample(f, q, &g));
    const double g2 = double(length_squared(g));
    if (depth > deepest && g2 > 0.0) {
      deepest = depth;
      deepest_body = solid.body;
      deepest_kinematic = solid.body == kNoBody ? &solid : nullptr;
      const Vec3 n = rotate(solid.pose.r, g);
      normal = load(n) * (1.0 / std::sqrt(g2));
      deepest_flat = flat != nullptr && flat_at(f, q);  // looked at only where asked
    }
  }
  if (flat) *flat = deepest_flat;
  if (which) *which = deepest_body;
  if (kinematic) *kinematic = deepest_kinematic;
  return deepest;
}

// Perpendicular unit vectors to a unit n.
void tangents(D3 n, D3 out[2]) {
  const D3 a = std::fabs(n.x) < 0.6 ? D3{1, 0, 0} : D3{0, 1, 0};
  D3 t = cross(n, a);
  t = t * (1.0 / std::sqrt(dot(t, t)));
  out[0] = t;
  out[1] = cross(n, t);
}

// The part of `around` that a hull within `reach` of c can touch deeper than
// `least` (penetration()'s), copied into `near`: the planes that come that
// near c and the solids (self left out) whose boxes do, so that each hull
// point's penetration() looks at those alone. Nothing it leaves out could
// have given a depth above `least`: the same contacts, at a fraction of the
// cost where a body has few neighbours.
struct NearSurroundings {
  Plane planes[kDomainWalls + kMaxPlanes];
  RigidContactSolid solids[kMaxObstacles];
  RigidSurroundings around;
};

void gather_near(const RigidSurroundings& s, D3 c, double reach, double least, NearSurroundings& near) {
  near.around = s;
  // A hull point's float rounding, and the depth asked about, on top of the reach.
  const double r = reach * (1.0 + 1e-4) + 1e-6 + std::max(-least, 0.0);
  if (s.plane_count <= kDomainWalls + kMaxPlanes) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < s.plane_count; ++k) {
      const Plane& pl = s.planes[k];
      if (-(double(pl.normal.x) * c.x + double(pl.normal.y) * c.y + double(pl.normal.z) * c.z + double(pl.offset)) >
          -r)
        near.planes[n++] = pl;
    }
    near.around.planes = near.planes;
    near.around.plane_count = n;
  }
  if (s.solid_count <= kMaxObstacles) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < s.solid_count; ++k) {
      const RigidContactSolid& solid = s.solids[k];
      if (left_out(s, solid)) continue;
      if (c.x + r < solid.lo.x || c.y + r < solid.lo.y || c.z + r < solid.lo.z || c.x - r > solid.hi.x ||
          c.y - r > solid.hi.y || c.z - r > solid.hi.z)
        continue;
      near.solids[n++] = solid;
    }
    near.around.solids = near.solids;
    near.around.solid_count = n;
  }
}

}  // namespace

RigidMaterial rigid_contact_material(const RigidMaterial& a, const RigidMaterial& b) {
  RigidMaterial m;
  m.friction = a.friction == b.friction ? a.friction : std::sqrt(a.friction * b.friction);
  m.restitution = std::max(a.restitution, b.restitution);
  return m;
}

RigidContactSolid rigid_contact_solid(const RigidPose& pose, const SdfGridView* field, uint32_t index) {
  return rigid_contact_solid(rigid_transform(pose), field, index);
}

RigidContactSolid rigid_contact_solid(const RigidTransform& pose, const SdfGridView* field, uint32_t index) {
  RigidContactSolid s{field, pose, index};
  // The corners of its field's grid, in the world.
  const Vec3 far{float(field->nx - 1) * field->cell, float(field->ny - 1) * field->cell,
                 float(field->nz - 1) * field->cell};
  s.lo = s.hi = to_world(s.pose, field->origin);
  for (int corner = 1; corner < 8; ++corner) {
    const Vec3 at = field->origin + make_vec3(corner & 1 ? far.x : 0.0f, corner & 2 ? far.y : 0.0f,
                                              corner & 4 ? far.z : 0.0f);
    const Vec3 w = to_world(s.pose, at);
    s.lo = Vec3{std::min(s.lo.x, w.x), std::min(s.lo.y, w.y), std::min(s.lo.z, w.z)};
    s.hi = Vec3{std::max(s.hi.x, w.x), std::max(s.hi.y, w.y), std::max(s.hi.z, w.z)};
  }
  return s;
}

RigidContactSolid rigid_contact_solid(const RigidTransform& from, const RigidTransform& to, double h,
                                      const SdfGridView* field) {
  RigidContactSolid s = rigid_contact_solid(to, field, kNoBody);
  const bool still = std::equal(from.r, from.r + 9, to.r) && from.t.x == to.t.x && from.t.y == to.t.y &&
                     from.t.z == to.t.z;
  if (!still && h > 0.0) {
    s.from = from;
    s.inverse_h = 1.0 / h;
  }
  return s;
}

Vec3 rigid_surface_velocity(const RigidContactSolid& solid, Vec3 p) {
  if (solid.body != kNoBody || solid.inverse_h == 0.0) return Vec3{0.0f, 0.0f, 0.0f};
  const D3 was = load(to_world(solid.from, to_local(solid.pose, p)));
  const D3 v = (load(p) - was) * solid.inverse_h;
  return Vec3{float(v.x), float(v.y), float(v.z)};
}

void rigid_extent(const RigidBody& b, const double q[4], double out[3]) {
  double r[9];
  rotation(q, r);
  D3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  for (const Vec3& p : b.hull) {
    const D3 w = mul(r, load(p));
    lo = D3{std::min(lo.x, w.x), std::min(lo.y, w.y), std::min(lo.z, w.z)};
    hi = D3{std::max(hi.x, w.x), std::max(hi.y, w.y), std::max(hi.z, w.z)};
  }
  store(b.hull.empty() ? D3{0, 0, 0} : hi - lo, out);
}

RigidTransform rigid_transform(const RigidPose& pose) {
  const float q[4] = {float(pose.q[0]), float(pose.q[1]), float(pose.q[2]), float(pose.q[3])};
  return rigid_transform(q, Vec3{float(pose.t[0]), float(pose.t[1]), float(pose.t[2])});
}

RigidBody make_rigid_body(const RigidMass& m, const SdfGridView& field) {
  RigidBody b{};
  b.mass = m;
  if (!invert_spd(m.inertia, b.inverse_inertia))
    throw Error(Status::InvalidArgument, "inertia: the inertia tensor must be positive definite");
  const auto at = [&](int32_t i, int32_t j, int32_t k) {
    return field.values[i + int64_t(field.nx) * (j + int64_t(field.ny) * k)];
  };
  const auto on_grid = [&](int32_t i, int32_t j, int32_t k) {
    return i >= 0 && j >= 0 && k >= 0 && i < field.nx && j < field.ny && k < field.nz;
  };
  const auto inside = [&](int32_t i, int32_t j, int32_t k) { return on_grid(i, j, k) && at(i, j, k) <= 0.0f; };
  const auto outside = [&](int32_t i, int32_t j, int32_t k) { return on_grid(i, j, k) && at(i, j, k) > 0.0f; };
  // The field's gradient at a node by central differences (one-sided at the grid's faces).
  const auto node_gradient = [&](int32_t i, int32_t j, int32_t k) {
    const auto diff = [&](int32_t di, int32_t dj, int32_t dk, int32_t n, int32_t at_axis) {
      const int32_t lo = at_axis > 0 ? -1 : 0, hi = at_axis + 1 < n ? 1 : 0;
      if (hi == lo) return 0.0f;
      return (at(i + hi * di, j + hi * dj, k + hi * dk) - at(i + lo * di, j + lo * dj, k + lo * dk)) /
             (float(hi - lo) * field.cell);
    };
    return make_vec3(diff(1, 0, 0, field.nx, i), diff(0, 1, 0, field.ny, j), diff(0, 0, 1, field.nz, k));
  };
  std::vector<Vec3> points, normals;
  std::vector<Vec3> creases;
  for (int32_t k = 0; k < field.nz; ++k)
    for (int32_t j = 0; j < field.ny; ++j)
      for (int32_t i = 0; i < field.nx; ++i) {
        const bool face = inside(i - 1, j, k) || inside(i + 1, j, k) || inside(i, j - 1, k) ||
                          inside(i, j + 1, k) || inside(i, j, k - 1) || inside(i, j, k + 1);
        const Vec3 node = field.origin + make_vec3(float(i), float(j), float(k)) * field.cell;
        if (at(i, j, k) <= 0.0f) {
          // Inside, next to a node outside: onto the surface along the gradient (by central differences, so
          // that a solid symmetric about the grid has a hull symmetric as well); where it is not that of a
          // distance (|g| far below 1, at a crease) the node itself, which lies within a cell of the surface.
          const bool edge = outside(i - 1, j, k) || outside(i + 1, j, k) || outside(i, j - 1, k) ||
                            outside(i, j + 1, k) || outside(i, j, k - 1) || outside(i, j, k + 1);
          if (!edge) continue;
          const Vec3 g = node_gradient(i, j, k);
          const float norm = length(g);
          points.push_back(norm > 0.5f ? node - g * (at(i, j, k) / norm) : node);
          normals.push_back(norm > kFlatGradient ? g * (1.0f / norm) : make_vec3(0.0f, 0.0f, 0.0f));
          creases.push_back(make_vec3(0.0f, 0.0f, 0.0f));
          continue;
        }
        // Outside, touching the inside only across an edge or a corner of its cell: beyond a convex edge or
        // corner of the solid, which the nodes inside, set onto the nearest face, leave up to a cell and a
        // half short of (a box's footprint a cell and a half narrower each side, so that it tipped at a
        // friction of 0.7 where a cube holds to 1). Set along its gradient, the direction to the nearest
        // surface point, onto the edge or the corner itself; unless a node inside already lies there (an edge
        // on the grid's nodes), which a second point at the same place would only slow the contacts' sweeps.
        if (face) continue;
        const Vec3 g = node_gradient(i, j, k);
        const float norm = length(g);
        if (norm <= 0.5f) continue;  // no clear direction: the nodes inside cover it
        const Vec3 p = node - g * (at(i, j, k) / norm);
        bool diagonal = false, covered = false;
        for (int32_t dk = -1; dk <= 1; ++dk)
          for (int32_t dj = -1; dj <= 1; ++dj)
            for (int32_t di = -1; di <= 1; ++di) {
              if (!inside(i + di, j + dj, k + dk)) continue;
              diagonal = true;
              const Vec3 there = node + make_vec3(float(di), float(dj), float(dk)) * field.cell;
              covered = covered || length(there - p) < 0.25f * field.cell;
            }
        if (!diagonal || covered) continue;
        points.push_back(p);
        normals.push_back(norm > kFlatGradient ? g * (1.0f / norm) : make_vec3(0.0f, 0.0f, 0.0f));
        creases.push_back(g * (1.0f / norm));
      }
  if (points.empty())
    throw Error(Status::InvalidArgument, "obstacle: its field holds no surface (no sample inside next to one outside)");
  const size_t stride = (points.size() + kMaxHullPoints - 1) / kMaxHullPoints;
  for (size_t k = 0; k < points.size(); k += stride) {
    b.hull.push_back(points[k]);
    b.hull_normal.push_back(normals[k]);
    b.hull_crease.push_back(creases[k]);
  }
  b.contacts.reserve(b.hull.size());
  b.contact_slop = 0.05f * field.cell;
  b.sweep_step = 2.0 * field.cell;
  b.reach = 0.0;
  for (const Vec3& p : b.hull) b.reach = std::max(b.reach, std::sqrt(dot(load(p) - load(m.centre), load(p) - load(m.centre))));
  return b;
}

namespace {

// A world point of the body's hull, for its rotation r and centre c.
Vec3 hull_point(const RigidBody& b, const double r[9], D3 c, Vec3 local) {
  const D3 p = mul(r, load(local) - load(b.mass.centre)) + c;
  return Vec3{float(p.x), float(p.y), float(p.z)};
}

// q <- q + dt/2 (w, 0) q, normalised: a unit quaternion turned at the angular velocity w for dt.
void turn(double q[4], D3 w, double dt) {
  const double dq[4] = {w.x * q[3] + w.y * q[2] - w.z * q[1], -w.x * q[2] + w.y * q[3] + w.z * q[0],
                        w.x * q[1] - w.y * q[0] + w.z * q[3], -w.x * q[0] - w.y * q[1] - w.z * q[2]};
  double norm = 0.0;
  for (int k = 0; k < 4; ++k) {
    q[k] += 0.5 * dt * dq[k];
    norm += q[k] * q[k];
  }
  norm = std::sqrt(norm);
  for (int k = 0; k < 4; ++k) q[k] /= norm;
}

// The normal of a contact of hull point k (body turned by r) with another
// body, whose surface's normal there is n: the opposite of the body's own
// where its surface is flat at the point and roughly faces the other's (two
// faces that touch: exact, however the other's field blends its faces'
// normals near its edges), else the other's (an edge or a corner on a
// face). With a plane or a kinematic obstacle: n.
D3 contact_normal(const RigidBody& b, const double r[9], size_t k, D3 n, uint32_t other) {
  const Vec3 own = b.hull_normal[k];
  if (other == kNoBody || (own.x == 0.0f && own.y == 0.0f && own.z == 0.0f)) return n;
  const D3 facing = mul(r, load(own)) * -1.0;
  return dot(facing, n) > 0.5 ? facing : n;
}

// Whether hull point k (body turned by r) touches a surface of normal n there, flat or not
// (penetration()'s): a point from inside always; one set onto an edge or a corner where that surface is
// flat and faces it, its normal within 60 degrees of the point's outward direction reversed (as a face's
// is, touching an edge or a corner of a box, at 45 or 55 degrees). Not where the other's edge or corner
// rounds its field (two stacked crates whose edges met were pushed apart sideways), and not through the
// other's nearest face when the point has sunk past its edge. on_crease(): whether k is such a point.
bool on_crease(const RigidBody& b, size_t k) {
  const Vec3 crease = b.hull_crease[k];
  return crease.x != 0.0f || crease.y != 0.0f || crease.z != 0.0f;
}
bool touches(const RigidBody& b, const double r[9], size_t k, D3 n, bool flat) {
  return !on_crease(b, k) || (flat && dot(mul(r, load(b.hull_crease[k])), n) < -0.5);
}

// The centre c of a body turned by r, moved out of the surroundings along the deepest contact's normal,
// a few times for corners: until no hull point lies deeper than a thousandth of the contact slop (a body
// resting on a face, set back onto it, finds its points at the surface give or take the floats' round-off).
D3 out_of_walls(const RigidBody& b, const double r[9], D3 c, const RigidSurroundings& around) {
  NearSurroundings near;
  const double enough = 1e-3 * double(b.contact_slop);
  for (int pass = 0; pass < 4; ++pass) {
    gather_near(around, c, b.reach, 0.0, near);
    if (near.around.plane_count == 0 && near.around.solid_count == 0) break;
    double deepest = enough;
    D3 normal{0, 0, 0};
    for (size_t k = 0; k < b.hull.size(); ++k) {
      D3 n{0, 0, 0};
      uint32_t other = kNoBody;
      bool flat = true;  // asked of the surroundings for an edge's or a corner's point only
      const double d = penetration(near.around, hull_point(b, r, c, b.hull[k]), n, &other, 0.0, nullptr,
                                   on_crease(b, k) ? &flat : nullptr);
      if (d > deepest && touches(b, r, k, n, flat)) {
        deepest = d;
        normal = contact_normal(b, r, k, n, other);
      }
    }
    if (deepest <= enough) break;
    c = c + normal * deepest;
  }
  return c;
}

}  // namespace

void rigid_advance(RigidBody& b, RigidPose& pose, Vec3 gravity, double h, const RigidSurroundings& around) {
  // Gravity first, as a particle's prediction takes it: the water then pushes against the weight of the
  // substep, and a body floating at rest is moved back by its yields (rigid_yield()) as far as gravity took it.
  store(load(b.velocity) + load(gravity) * h, b.velocity);
  const D3 v = load(b.velocity), w = load(b.angular_velocity);
  double r[9];
  rotation(pose.q, r);
  D3 c = centre_of(b, r, pose);
  // In pieces no longer than the sweep step (translation plus the hull's
  // reach turned), so that a fast body meets a wall or a thin obstacle
  // before it could pass it.
  const double travel = std::sqrt(dot(v, v)) * h + std::sqrt(dot(w, w)) * h * b.reach;
  const int pieces = int(std::min(std::ceil(travel / b.sweep_step), double(kMaxSweepPieces)));
  const double dt = h / std::max(pieces, 1);
  for (int piece = 0; piece < std::max(pieces, 1); ++piece) {
    c = c + v * dt;
    turn(pose.q, w, dt);
    rotation(pose.q, r);
    c = out_of_walls(b, r, c, around);
  }
  store(c - mul(r, load(b.mass.centre)), pose.t);
}

void rigid_centre(const RigidBody& b, const RigidPose& pose, double out[3]) {
  double r[9];
  rotation(pose.q, r);
  store(centre_of(b, r, pose), out);
}

double rigid_settle(const RigidBody& b, RigidPose& pose, const RigidSurroundings& around) {
  double r[9];
  rotation(pose.q, r);
  const D3 c = centre_of(b, r, pose);
  const D3 out = out_of_walls(b, r, c, around);
  if (out.x == c.x && out.y == c.y && out.z == c.z) return 0.0;
  store(out - mul(r, load(b.mass.centre)), pose.t);
  return std::sqrt(dot(out - c, out - c));
}

RigidYield rigid_yield(const RigidBody& b, RigidPose& pose, double h, const double impulse[3], const double moment[3],
                       const double added[kSymmetric6], const RigidYield* before, const RigidSurroundings& around) {
  double r[9];
  rotation(pose.q, r);
  const D3 c = centre_of(b, r, pose);
  const D3 j = load(impulse);
  D3 turning = load(moment) - cross(c, j);  // the moment about the centre
  // The velocity changes j / M and I^-1 (L - c x j) that rigid_respond() will give, carried over h;
  // less, in another round, what the rounds before moved it (their momentum M shift / h, I turn / h).
  D3 push = j;
  if (before) {
    const D3 spun = apply_inertia(b, r, load(before->turn));
    push = push - load(before->shift) * (b.mass.mass / h);
    turning = turning - spun * (1.0 / h);
  }
  D3 shift = push * (h / b.mass.mass);
  D3 w = apply_inverse_inertia(b, r, turning) * h;
  bool any_added = false;
  for (int e = 0; e < kSymmetric6 && added; ++e) any_added = any_added || added[e] != 0.0;
  if (any_added) {
    // With the water's added mass A (about the origin; about the centre T A T^T, T = [[1, 0], [-[c]x, 1]]):
    // (M + A_c) (shift, w) = h (j, L - c x j), the body's part of the joint solve of its constraints
    // with the water's (docs/PHYSICS.md §13).
    double a[36];
    for (int row = 0, e = 0; row < 6; ++row)
      for (int col = row; col < 6; ++col, ++e) a[row * 6 + col] = a[col * 6 + row] = added[e];
    // T A T^T: rows 3-5 of T A are A's rows 3-5 less c x (rows 0-2), column by column; then the same for columns.
    const auto shift_rows = [&c](double* m, int stride_row, int stride_col) {
      for (int k = 0; k < 6; ++k) {
        const D3 top{m[0 * stride_row + k * stride_col], m[1 * stride_row + k * stride_col],
                     m[2 * stride_row + k * stride_col]};
        const D3 moved = cross(c, top);
        m[3 * stride_row + k * stride_col] -= moved.x;
        m[4 * stride_row + k * stride_col] -= moved.y;
        m[5 * stride_row + k * stride_col] -= moved.z;
      }
    };
    shift_rows(a, 6, 1);  // T A
    shift_rows(a, 1, 6);  // (T A) T^T
    for (int col = 0; col < 3; ++col) {
      a[col * 6 + col] += b.mass.mass;
      // Column col of the world inertia.
      const D3 ie = apply_inertia(b, r, D3{col == 0 ? 1.0 : 0.0, col == 1 ? 1.0 : 0.0, col == 2 ? 1.0 : 0.0});
      a[3 * 6 + col + 3] += ie.x;
      a[4 * 6 + col + 3] += ie.y;
      a[5 * 6 + col + 3] += ie.z;
    }
    double x[6] = {push.x * h, push.y * h, push.z * h, turning.x * h, turning.y * h, turning.z * h};
    if (solve_spd6(a, x)) {
      shift = D3{x[0], x[1], x[2]};
      w = D3{x[3], x[4], x[5]};
    }
  }
  // At most a sweep step (translation plus the hull's reach turned), so that no impulse carries the body
  // through a wall (water that has blown up around a body far too light for it, §13).
  const double travel = std::sqrt(dot(shift, shift)) + std::sqrt(dot(w, w)) * b.reach;
  if (travel > b.sweep_step) {
    shift = shift * (b.sweep_step / travel);
    w = w * (b.sweep_step / travel);
  }
  RigidYield moved{};
  store(before ? load(before->shift) + shift : shift, moved.shift);
  store(before ? load(before->turn) + w : w, moved.turn);
  store(before ? load(before->centre) : c, moved.centre);
  turn(pose.q, w, 1.0);  // w is the angle already
  rotation(pose.q, r);
  store(out_of_walls(b, r, c + shift, around) - mul(r, load(b.mass.centre)), pose.t);
  return moved;
}

void rigid_respond(RigidBody& b, const RigidPose& pose, double h, const double impulse[3], const double moment[3],
                   const RigidSurroundings& around) {
  RigidBodyEnd one{&b, &pose, impulse, moment};
  rigid_respond_together(&one, 1, h, around);
}

void rigid_respond_together(RigidBodyEnd* bodies, uint32_t count, double h, const RigidSurroundings& around) {
  if (count > kMaxObstacles) throw Error(Status::Internal, "rigid_respond_together: more bodies than obstacles");
  // Each body's rotation, centre and velocities, which its contacts change.
  struct Moving {
    double r[9];
    D3 c, v, w;
    D3 arrived_v, arrived_w;  // the velocities it came with: before the water's impulse of the substep
    double inverse_mass;
  };
  Moving m[kMaxObstacles] = {};
  for (uint32_t k = 0; k < count; ++k) {
    if (!bodies[k].body) continue;
    RigidBody& b = *bodies[k].body;
    Moving& s = m[k];
    rotation(bodies[k].pose->q, s.r);
    s.c = centre_of(b, s.r, *bodies[k].pose);
    s.inverse_mass = 1.0 / b.mass.mass;
    const D3 j = load(bodies[k].impulse);
    s.arrived_v = load(b.velocity);
    s.arrived_w = load(b.angular_velocity);
    // The water's impulse (gravity came in rigid_advance()); its moment about the centre is the one about the
    // origin less c x j.
    s.v = load(b.velocity) + j * s.inverse_mass;
    s.w = load(b.angular_velocity) + apply_inverse_inertia(b, s.r, load(bodies[k].moment) - cross(s.c, j));
    // The gyroscopic term of Euler's equations, w' = -I^-1 (w x I w).
    const D3 iw = apply_inertia(b, s.r, s.w);
    s.w = s.w - apply_inverse_inertia(b, s.r, cross(s.w, iw)) * h;
  }
  // Contacts: each body's hull points that touch the surroundings or another body.
  NearSurroundings near;
  for (uint32_t k = 0; k < count; ++k) {
    if (!bodies[k].body) continue;
    RigidBody& b = *bodies[k].body;
    const Moving& s = m[k];
    RigidSurroundings mine = around;
    mine.self = k;
    gather_near(mine, s.c, b.reach, -double(b.contact_slop), near);
    std::vector<RigidContact>& contacts = b.contacts;  // room reserved: a step allocates nothing
    contacts.clear();
    for (size_t point = 0; point < b.hull.size() && (near.around.plane_count > 0 || near.around.solid_count > 0);
         ++point) {
      D3 n{0, 0, 0};
      uint32_t other = kNoBody;
      const RigidContactSolid* kinematic = nullptr;
      const Vec3 p = hull_point(b, s.r, s.c, b.hull[point]);
      bool flat = true;  // asked of the surroundings for an edge's or a corner's point only
      if (penetration(near.around, p, n, &other, -double(b.contact_slop), &kinematic,
                      on_crease(b, point) ? &flat : nullptr) <
              -double(b.contact_slop) ||
          !touches(b, s.r, point, n, flat))
        continue;
      if (other >= count || !bodies[other].body) other = kNoBody;
      n = contact_normal(b, s.r, point, n, other);
      RigidContact c{};
      const RigidMaterial planes{around.friction, around.restitution};
      const RigidMaterial touched = other != kNoBody ? bodies[other].body->material
                                    : kinematic      ? kinematic->material
                                                     : planes;
      const RigidMaterial both = rigid_contact_material(b.material, touched);
      c.friction = both.friction;
      c.restitution = both.restitution;
      store(load(p) - s.c, c.arm);
      store(n, c.normal);
      D3 t[2];
      tangents(n, t);
      store(t[0], c.tangent[0]);
      store(t[1], c.tangent[1]);
      c.other = other;
      if (other != kNoBody) store(load(p) - m[other].c, c.other_arm);
      if (kinematic) store(load(rigid_surface_velocity(*kinematic, p)), c.surface);
      contacts.push_back(c);
    }
  }
  // Impulses at the touching points (sequential impulses with accumulated, clamped magnitudes) that leave
  // each with its bounce, Coulomb friction; between two bodies equal and opposite.
  const auto effective = [&](uint32_t k, D3 arm, D3 dir) {
    const Moving& s = m[k];
    return s.inverse_mass + dot(dir, cross(apply_inverse_inertia(*bodies[k].body, s.r, cross(arm, dir)), arm));
  };
  const auto apply = [&](uint32_t k, D3 arm, D3 push) {
    Moving& s = m[k];
    s.v = s.v + push * s.inverse_mass;
    s.w = s.w + apply_inverse_inertia(*bodies[k].body, s.r, cross(arm, push));
  };
  // The velocity of body k's point at arm, less that of the other body's point where the contact has one, or
  // that of a moving kinematic obstacle's surface there.
  const auto relative = [&](uint32_t k, const RigidContact& c, D3 arm) {
    D3 v = m[k].v + cross(m[k].w, arm);
    if (c.other != kNoBody) v = v - (m[c.other].v + cross(m[c.other].w, load(c.other_arm)));
    return v - load(c.surface);
  };
  const auto impulse = [&](uint32_t k, const RigidContact& c, D3 arm, D3 push) {
    apply(k, arm, push);
    if (c.other != kNoBody) apply(c.other, load(c.other_arm), push * -1.0);
  };
  const auto effective_of = [&](uint32_t k, const RigidContact& c, D3 arm, D3 dir) {
    double e = effective(k, arm, dir);
    if (c.other != kNoBody) e += effective(c.other, load(c.other_arm), dir);
    return e;
  };
  // Each point's bounce: restitution times the normal speed into the surface it arrived with, where that is
  // faster than a resting contact's. Arrived: with the velocities the body (and the other body) came with,
  // gravity's part of the substep included but not the water's impulse, which acts through the substep as
  // gravity does; a body that the water presses against a surface (a light one buoyed up against a
  // ceiling) is held there, not bounced off it every substep.
  for (uint32_t k = 0; k < count; ++k) {
    if (!bodies[k].body) continue;
    for (RigidContact& c : bodies[k].body->contacts) {
      const D3 arm = load(c.arm);
      D3 v = m[k].arrived_v + cross(m[k].arrived_w, arm);
      if (c.other != kNoBody) v = v - (m[c.other].arrived_v + cross(m[c.other].arrived_w, load(c.other_arm)));
      const double arriving = dot(v - load(c.surface), load(c.normal));
      c.bounce = arriving < -around.resting_speed ? -c.restitution * arriving : 0.0;
    }
  }
  // 12 sweeps: with the points on the edges (make_rigid_body()), 8 left a cube landing flat at 2 m/s
  // spinning at 1.5e-4 rad/s and one pressed up against a ceiling moving at 3e-6 m/s; 12 leave neither.
  for (int sweep = 0; sweep < 12; ++sweep) {
    bool any = false;
    for (uint32_t k = 0; k < count; ++k) {
      if (!bodies[k].body) continue;
      for (RigidContact& c : bodies[k].body->contacts) {
        any = true;
        const D3 arm = load(c.arm), normal = load(c.normal);
        const double vn = dot(relative(k, c, arm), normal);
        const double pushed = std::max(c.pushed - (vn - c.bounce) / effective_of(k, c, arm, normal), 0.0);
        impulse(k, c, arm, normal * (pushed - c.pushed));
        c.pushed = pushed;
        if (c.friction <= 0.0) continue;
        for (int t = 0; t < 2; ++t) {
          const D3 tangent = load(c.tangent[t]);
          const double vt = dot(relative(k, c, arm), tangent);
          const double limit = c.friction * c.pushed;
          const double rubbed = std::clamp(c.rubbed[t] - vt / effective_of(k, c, arm, tangent), -limit, limit);
          impulse(k, c, arm, tangent * (rubbed - c.rubbed[t]));
          c.rubbed[t] = rubbed;
        }
      }
    }
    if (!any) break;
  }
  const auto limit = [](D3 x, double most) {
    const double size = std::sqrt(dot(x, x));
    return size > most ? x * (most / size) : x;
  };
  for (uint32_t k = 0; k < count; ++k) {
    if (!bodies[k].body) continue;
    store(limit(m[k].v, kMaxBodySpeed), bodies[k].body->velocity);
    store(limit(m[k].w, kMaxBodySpin), bodies[k].body->angular_velocity);
  }
}

}  // namespace pbf
