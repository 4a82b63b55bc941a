// surface_mesh.h - an indexed triangle mesh with a normal per vertex: what the
// iso-surface extraction returns and the surface writers take.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pbf {

// 3 floats per vertex [m] and per normal (unit length, pointing out of the
// inside), 3 vertex indices per triangle, counter-clockwise seen from
// outside. Every edge of a closed mesh is shared by exactly two triangles
// that use it in opposite directions.
struct SurfaceMesh {
  std::vector<float> vertices;
  std::vector<float> normals;
  std::vector<uint32_t> triangles;

  size_t vertex_count() const { return vertices.size() / 3; }
  size_t triangle_count() const { return triangles.size() / 3; }
};

}  // namespace pbf
