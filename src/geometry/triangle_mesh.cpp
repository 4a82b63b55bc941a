#include "geometry/triangle_mesh.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace pbf {

Bounds mesh_bounds(const TriangleMesh& mesh) {
  constexpr float kBig = 3.4e38f;
  Bounds b{Vec3{kBig, kBig, kBig}, Vec3{-kBig, -kBig, -kBig}};
  for (const auto& t : mesh.triangles)
    for (uint32_t i : t) {
      const Vec3 v = mesh.vertices[i];
      b.lo = Vec3{std::min(b.lo.x, v.x), std::min(b.lo.y, v.y), std::min(b.lo.z, v.z)};
      b.hi = Vec3{std::max(b.hi.x, v.x), std::max(b.hi.y, v.y), std::max(b.hi.z, v.z)};
    }
  return b;
}

double mesh_volume(const TriangleMesh& mesh) {
  // Sum of the signed volumes of the tetrahedra (origin, a, b, c); centred on
  // the first vertex to keep the sum well conditioned far from the origin.
  if (mesh.vertices.empty()) return 0.0;
  const Vec3 o = mesh.vertices[0];
  double volume = 0.0;
  for (const auto& t : mesh.triangles) {
    const Vec3 a = mesh.vertices[t[0]] - o, b = mesh.vertices[t[1]] - o, c = mesh.vertices[t[2]] - o;
    const double ax = a.x, ay = a.y, az = a.z, bx = b.x, by = b.y, bz = b.z, cx = c.x, cy = c.y, cz = c.z;
    volume += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx);
  }
  return volume / 6.0;
}

size_t boundary_edge_count(const TriangleMesh& mesh) {
  // Weld vertices at identical positions: each vertex gets the index of the
  // first vertex with its position in sorted order.
  const size_t n = mesh.vertices.size();
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
  auto key = [&](uint32_t i) { return std::make_tuple(mesh.vertices[i].x, mesh.vertices[i].y, mesh.vertices[i].z); };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  std::vector<uint32_t> weld(n);
  for (size_t k = 0; k < n; ++k)
    weld[order[k]] = (k > 0 && key(order[k]) == key(order[k - 1])) ? weld[order[k - 1]] : order[k];

  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(3 * mesh.triangles.size());
  for (const auto& t : mesh.triangles)
    for (int e = 0; e < 3; ++e) {
      const uint32_t a = weld[t[e]], b = weld[t[(e + 1) % 3]];
      if (a != b) edges.emplace_back(std::min(a, b), std::max(a, b));
    }
  std::sort(edges.begin(), edges.end());
  size_t boundary = 0;
  for (size_t i = 0; i < edges.size();) {
    size_t j = i;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if (j - i == 1) ++boundary;
    i = j;
  }
  return boundary;
}

}  // namespace pbf
