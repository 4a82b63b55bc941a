// surface_mesh.h - a triangle mesh copied out of the library's pbf_surface:
// the liquid's surface for the .vtp writer, the obstacles' for the pictures.
#ifndef PBF_SIM_SURFACE_MESH_H
#define PBF_SIM_SURFACE_MESH_H

#include <pbf/pbf.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pbf_sim {

/**
 * An indexed triangle mesh: 3 floats per vertex [m] and per unit normal
 * (pointing out of the liquid or solid), 3 vertex indices per triangle,
 * counter-clockwise seen from outside.
 */
struct SurfaceMesh {
  std::vector<float> vertices;
  std::vector<float> normals;
  std::vector<uint32_t> triangles;

  size_t vertex_count() const { return vertices.size() / 3; }
  size_t triangle_count() const { return triangles.size() / 3; }
};

/** The mesh `surface` holds. Throws std::runtime_error with the library's message on failure. */
SurfaceMesh copy_surface(const pbf_surface* surface);

}  // namespace pbf_sim

#endif  // PBF_SIM_SURFACE_MESH_H
