// vtp_writer.h - particles as VTK XML PolyData (.vtp) and the ParaView
// collection file (.pvd) that lists the frames with their times.
#ifndef PBF_SIM_VTP_WRITER_H
#define PBF_SIM_VTP_WRITER_H

#include <cstddef>
#include <string>
#include <vector>

#include "surface_mesh.h"

namespace pbf_sim {

/**
 * Writes `count` particles to `path` as a VTK XML PolyData file (version 1.0,
 * little-endian, raw appended data with UInt64 block headers): the positions
 * [m] as Points, one vertex cell per particle, and the point-data arrays
 * "velocity" [m/s] (3 components), "speed" [m/s] and "density" [kg/m^3].
 * Each array holds 3 or 1 floats per particle as named. The file appears
 * complete or not at all (AtomicFile: a unique temporary name, flushed and
 * renamed onto a regular file only). Throws std::runtime_error naming the path and the reason.
 */
void write_vtp(const std::string& path, size_t count, const float* positions, const float* velocities,
               const float* densities);

/**
 * Writes a triangle mesh to `path` as VTK XML PolyData (the same encoding as
 * write_vtp()): the vertices [m] as Points, one polygon cell per triangle,
 * and the point-data array "Normals" (3 components, unit length, the active
 * normals, so ParaView shades the surface smoothly). An empty mesh gives a
 * valid file with no points. Atomic like write_vtp(); throws
 * std::runtime_error naming the path and the reason.
 */
void write_surface_vtp(const std::string& path, const SurfaceMesh& mesh);

/**
 * One file of a .pvd collection: its time [s], its file relative to the .pvd
 * and its part (0 the particles, 1 the liquid surface: ParaView shows each
 * part as its own block of one time series).
 */
struct PvdEntry {
  double time = 0.0;
  std::string file;
  int part = 0;
};

/**
 * Writes the collection file that ParaView (and importers that follow it)
 * opens as one time series: a VTKFile of type "Collection" with a DataSet
 * (timestep, part, file) per entry. Written under a temporary name and renamed,
 * like write_vtp(); throws std::runtime_error on failure.
 */
void write_pvd(const std::string& path, const std::vector<PvdEntry>& entries);

}  // namespace pbf_sim

#endif  // PBF_SIM_VTP_WRITER_H
