// ply_writer.h - particles as binary little-endian PLY files.
#pragma once

#include <cstddef>
#include <string>

namespace pbf {

// The speed that write_ply() colours white: the free-fall speed over the
// domain's extent along gravity, sqrt(2 |g . (max - min)|) summed per axis
// as |g_a| (max_a - min_a), and at least 0.1 m/s. It depends on the solver's
// set-up only, so every frame of a run shares one colour scale.
float ply_speed_scale(const float gravity[3], const float domain_min[3], const float domain_max[3]);

// The colour of `t` in [0, 1] (clamped; NaN counts as 0) on the speed ramp:
// deep blue (at rest) through blue and cyan to white, lightness rising with t.
void ply_speed_colour(float t, unsigned char rgb[3]);

// Writes n particles with float properties x y z vx vy vz density, then
// uchar red green blue: the speed |v| / speed_scale on ply_speed_colour()'s
// ramp. positions and velocities hold 3n floats, densities n. The colour is
// what readers that keep only a PLY's standard properties show: VTK's PLY
// reader, and so ParaView's, keeps positions, normals, colours and texture
// coordinates; Houdini, Blender 4.1 and later, meshio and plyfile keep every
// property. The file is written with save_atomically() (core/file_access.h):
// a unique temporary name beside `path`, flushed and renamed, so readers
// never see a half-written file and nothing but a regular file is replaced.
// Throws Error(Status::Io) naming the path on failure.
void write_ply(const std::string& path, size_t n, const float* positions, const float* velocities,
               const float* densities, float speed_scale);

}  // namespace pbf
