// surface_mesh.h - the liquid's surface as a closed triangle mesh: marching
// cubes (Lorensen & Cline 1987) over a smoothed particle density, written as
// binary PLY.
#ifndef PBF_SIM_SURFACE_MESH_H
#define PBF_SIM_SURFACE_MESH_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pbf_sim {

/** How the density field is sampled; every length is in particle spacings. */
struct SurfaceMeshOptions {
  float cell_size = 0.5f;      ///< grid cell edge [spacings], > 0 (output.surface_resolution)
  float kernel_radius = 2.0f;  ///< support of the smoothing kernel [spacings], > 0
  float iso_fraction = 0.5f;   ///< iso-level as a fraction of the field inside the rest lattice, (0, 1)
  int padding = 2;             ///< empty cells around the particles' support, >= 1, so the mesh is closed
};

/**
 * An indexed triangle mesh: 3 floats per vertex [m], 3 vertex indices per
 * triangle, counter-clockwise seen from outside the liquid (normals point
 * out of the water). Every edge is shared by exactly two triangles that use
 * it in opposite directions.
 */
struct SurfaceMesh {
  std::vector<float> vertices;
  std::vector<uint32_t> triangles;

  size_t vertex_count() const { return vertices.size() / 3; }
  size_t triangle_count() const { return triangles.size() / 3; }
};

/**
 * The iso-surface of phi(x) = sum_i w(|x - x_i|), w(r) = (1 - r^2/R^2)^3 for
 * r < R, at iso_fraction times the value phi takes inside a block of
 * particles on the rest lattice at `spacing` [m]. The field is sampled on a
 * grid over the particles' bounding box grown by R and `padding` cells, so
 * the field is zero on the grid's faces and the mesh is closed wherever the
 * liquid is. Vertices on the grid edges are shared: each crossing edge gives
 * one vertex. No particles: an empty mesh. Runs on the calling thread's
 * oneTBB arena; the result does not depend on the number of threads.
 * Throws std::invalid_argument for a non-positive spacing or bad options and
 * std::length_error when the grid would exceed 2^31 points.
 */
SurfaceMesh build_surface_mesh(const float* positions, size_t count, float spacing,
                               const SurfaceMeshOptions& options = {});

/**
 * The iso-surface {field = iso} of a field sampled on a regular grid:
 * dims[0] x dims[1] x dims[2] values, x fastest, point (i, j, k) at
 * origin + (i, j, k) * cell, by the same marching cubes. The inside is where
 * the field is above `iso` when `inside_above` (densities) and below it
 * otherwise (signed distances); normals point out of the inside. The mesh is
 * closed where the inside does not touch the grid's faces. Throws
 * std::invalid_argument for a dimension below 2 or a non-positive cell.
 */
SurfaceMesh iso_surface(const float* values, const int dims[3], const float origin[3], float cell, float iso,
                        bool inside_above);

/**
 * The value phi takes inside the rest lattice (particles at spacing 1,
 * averaged over positions within a lattice cell), in units where spacing = 1:
 * the reference for the iso-level.
 */
double rest_lattice_field(float kernel_radius);

/**
 * Writes `mesh` to `path` as binary little-endian PLY: "element vertex N"
 * with float x y z, then "element face M" with "property list uchar uint
 * vertex_indices" (3 per face). An empty mesh gives a valid file with N = M
 * = 0. Written through an AtomicFile, so the file is complete or
 * absent. Throws std::runtime_error naming the path and the reason.
 */
void write_surface_ply(const std::string& path, const SurfaceMesh& mesh);

}  // namespace pbf_sim

#endif  // PBF_SIM_SURFACE_MESH_H
