// triangle_mesh.h - a triangle soup with shared vertices, as meshes are
// loaded (mesh_loader.h) or generated, and the measures a caller checks
// before turning it into a signed distance field.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/hd.h"

namespace pbf {

struct TriangleMesh {
  std::vector<Vec3> vertices;                    // [m]
  std::vector<std::array<uint32_t, 3>> triangles;  // indices into vertices, counter-clockwise seen from outside
};

struct Bounds {
  Vec3 lo, hi;  // lo > hi on every axis when empty
};

// The axis-aligned box of the vertices used by triangles.
Bounds mesh_bounds(const TriangleMesh& mesh);

// The enclosed volume [m^3] by the divergence theorem: positive when the
// triangles face outwards, exact for a closed mesh, meaningless for an open one.
double mesh_volume(const TriangleMesh& mesh);

// Edges that belong to exactly one triangle (0 for a closed mesh). Vertices
// at the same position count as one, so a mesh split into pieces at seams
// (as many file formats store it) is still seen as closed.
size_t boundary_edge_count(const TriangleMesh& mesh);

}  // namespace pbf
