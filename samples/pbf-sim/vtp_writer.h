// vtp_writer.h - particles as VTK XML PolyData (.vtp) and the ParaView
// collection file (.pvd) that lists the frames with their times.
#ifndef PBF_SIM_VTP_WRITER_H
#define PBF_SIM_VTP_WRITER_H

#include <cstddef>
#include <string>
#include <vector>

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

/** One frame of a .pvd collection: its time [s] and its file, relative to the .pvd. */
struct PvdEntry {
  double time = 0.0;
  std::string file;
};

/**
 * Writes the collection file that ParaView (and importers that follow it)
 * opens as one time series: a VTKFile of type "Collection" with a DataSet
 * (timestep, file) per entry. Written under a temporary name and renamed,
 * like write_vtp(); throws std::runtime_error on failure.
 */
void write_pvd(const std::string& path, const std::vector<PvdEntry>& entries);

}  // namespace pbf_sim

#endif  // PBF_SIM_VTP_WRITER_H
