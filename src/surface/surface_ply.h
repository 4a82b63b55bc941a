// surface_ply.h - surface meshes as binary little-endian PLY files.
#pragma once

#include <string>

#include "surface/surface_mesh.h"

namespace pbf {

// Writes `mesh`: "element vertex N" with float x y z nx ny nz, then
// "element face M" with "property list uchar uint vertex_indices" (3 per
// face). An empty mesh gives a valid file with N = M = 0. Written with
// save_atomically() (core/file_access.h): complete or absent, and only a
// regular file is replaced. Throws Error(Status::Io) naming the path.
void write_surface_ply(const std::string& path, const SurfaceMesh& mesh);

}  // namespace pbf
