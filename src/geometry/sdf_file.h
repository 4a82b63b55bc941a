// sdf_file.h - a signed distance field in a small binary file, so that a
// field built once from a mesh can be loaded in a moment.
//
// Layout, little-endian: the magic "PBFSDF\0\n", u32 format version (1),
// u32 nx, ny, nz, f32 origin x, y, z, f32 cell, nx*ny*nz f32 values (x
// fastest), u64 FNV-1a hash of every byte before it.
#pragma once

#include <string>

#include "geometry/signed_distance_field.h"

namespace pbf {

constexpr uint32_t kSdfFileVersion = 1;

// Writes `field` to `path` through save_atomically() (core/file_access.h):
// the file appears complete or not at all, and only a regular file is ever
// replaced. Throws Error (Io) naming the path and the system's reason.
void save_sdf(const std::string& path, const SignedDistanceField& field);

// Reads a field saved by save_sdf(): a regular file only (a FIFO or a device
// is refused without blocking), its header first, then the values if the
// file's size is exactly what the header announces. Throws Error (Io) naming
// the path and the reason when the file is missing, is not a regular file,
// is not such a file, has another format version, is truncated, or is
// corrupted (the hash does not match, or a dimension, the origin, the cell or
// a value is out of range: values farther than the grid's diagonal too).
SignedDistanceField load_sdf(const std::string& path);

}  // namespace pbf
