// surface_mesh.cpp - copying a pbf_surface's mesh out through the C API.
#include "surface_mesh.h"

#include <stdexcept>
#include <string>

namespace pbf_sim {

SurfaceMesh copy_surface(const pbf_surface* surface) {
  auto check = [](pbf_status s) {
    if (s != PBF_OK) throw std::runtime_error(pbf_last_error());
  };
  size_t nv = 0, nt = 0;
  check(pbf_surface_get_counts(surface, &nv, &nt));
  SurfaceMesh m;
  m.vertices.resize(3 * nv);
  m.normals.resize(3 * nv);
  m.triangles.resize(3 * nt);
  check(pbf_surface_get_vertices(surface, m.vertices.data(), m.vertices.size()));
  check(pbf_surface_get_normals(surface, m.normals.data(), m.normals.size()));
  check(pbf_surface_get_triangles(surface, m.triangles.data(), m.triangles.size()));
  return m;
}

}  // namespace pbf_sim
