// test_meshes.h - triangle meshes made in code for the geometry tests and
// benchmarks: an icosphere, a box and a torus, all closed and facing outwards.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

#include "geometry/triangle_mesh.h"

namespace pbf_test {

// An icosahedron subdivided `levels` times (20 x 4^levels triangles) with
// its vertices on the sphere of `radius` at the origin.
inline pbf::TriangleMesh icosphere(int levels, float radius) {
  const float t = (1.0f + std::sqrt(5.0f)) / 2.0f;
  pbf::TriangleMesh m;
  m.vertices = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  m.triangles = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8},   {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                 {3, 8, 9},  {4, 9, 5},  {2, 4, 11},  {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int level = 0; level < levels; ++level) {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> middle;
    auto mid = [&](uint32_t a, uint32_t b) {
      const auto key = std::make_pair(std::min(a, b), std::max(a, b));
      const auto found = middle.find(key);
      if (found != middle.end()) return found->second;
      const pbf::Vec3 p = (m.vertices[a] + m.vertices[b]) * 0.5f;
      m.vertices.push_back(p);
      return middle[key] = static_cast<uint32_t>(m.vertices.size() - 1);
    };
    std::vector<std::array<uint32_t, 3>> finer;
    for (const auto& tri : m.triangles) {
      const uint32_t a = mid(tri[0], tri[1]), b = mid(tri[1], tri[2]), c = mid(tri[2], tri[0]);
      finer.push_back({tri[0], a, c});
      finer.push_back({tri[1], b, a});
      finer.push_back({tri[2], c, b});
      finer.push_back({a, b, c});
    }
    m.triangles = std::move(finer);
  }
  for (pbf::Vec3& v : m.vertices) v = v * (radius / pbf::length(v));
  return m;
}

// An axis-aligned box centred at the origin: 8 vertices, 12 triangles.
inline pbf::TriangleMesh box_mesh(float hx, float hy, float hz) {
  pbf::TriangleMesh m;
  for (int k = 0; k < 8; ++k)
    m.vertices.push_back(pbf::Vec3{(k & 1) ? hx : -hx, (k & 2) ? hy : -hy, (k & 4) ? hz : -hz});
  m.triangles = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                 {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
  return m;
}

// A torus around the z axis: tube radius r at distance R from the axis,
// nu segments around the axis and nv around the tube (2 nu nv triangles).
inline pbf::TriangleMesh torus(float R, float r, uint32_t nu, uint32_t nv) {
  pbf::TriangleMesh m;
  const float pi2 = 6.28318530718f;
  for (uint32_t i = 0; i < nu; ++i)
    for (uint32_t j = 0; j < nv; ++j) {
      const float u = pi2 * i / nu, v = pi2 * j / nv;
      m.vertices.push_back(pbf::Vec3{(R + r * std::cos(v)) * std::cos(u), (R + r * std::cos(v)) * std::sin(u),
                                     r * std::sin(v)});
    }
  auto at = [&](uint32_t i, uint32_t j) { return (i % nu) * nv + (j % nv); };
  for (uint32_t i = 0; i < nu; ++i)
    for (uint32_t j = 0; j < nv; ++j) {
      m.triangles.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      m.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  return m;
}

}  // namespace pbf_test
