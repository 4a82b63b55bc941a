// ply_writer.h - particles as binary little-endian PLY files.
#pragma once

#include <cstddef>
#include <string>

namespace pbf {

// Writes n particles with float properties x y z vx vy vz density.
// positions and velocities hold 3n floats, densities n. The file is written
// with save_atomically() (core/file_access.h): a unique temporary name beside
// `path`, flushed and renamed, so readers never see a half-written file and
// nothing but a regular file is replaced. Throws Error(Status::Io) naming
// the path on failure. Only readers that keep a PLY's own vertex properties
// see velocity and density: VTK's PLY reader, and so ParaView's, keeps
// positions, normals, colours and texture coordinates only.
void write_ply(const std::string& path, size_t n, const float* positions, const float* velocities,
               const float* densities);

}  // namespace pbf
