// ply_writer.h - particles as binary little-endian PLY files.
#pragma once

#include <cstddef>
#include <string>

namespace pbf {

// Writes n particles with float properties x y z vx vy vz density.
// positions and velocities hold 3n floats, densities n. The file is written
// under a temporary name beside `path` and renamed, so readers never see a
// half-written file. Throws Error(Status::Io) naming the path on failure.
void write_ply(const std::string& path, size_t n, const float* positions, const float* velocities,
               const float* densities);

}  // namespace pbf
