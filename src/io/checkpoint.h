// checkpoint.h - the complete state of a solver as a file: description,
// parameters, planes, statistics and every particle in the backend's order.
// A run resumed from a checkpoint continues bit-identically on the CPU.
//
// File layout (all little-endian):
//   "PBFCHKPT"  8 bytes magic
//   u32         format version (kCheckpointVersion)
//   u32         0 (reserved)
//   u64         payload size in bytes
//   u64         FNV-1a 64-bit hash of the payload
//   payload     config, params, planes, stats, particles (checkpoint.cpp)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/particle_state.h"

namespace pbf {

// Version 2 added the method, the Projective Fluids parameters and statistics;
// version 3 PBF's density tolerance, max_iterations and the density iterations
// run; version 4 holds positions and planes in the solver's frame
// (core/local_frame.h: relative to an origin near the domain, 0 for a domain
// near the world's origin), so that a run far from the origin resumes
// bit-identically. Version 2 and 3 files are still read (the parameters
// version 3 added take their defaults; their positions and planes are in the
// world's coordinates and are moved into the frame as they are loaded).
// Version 5 adds the statistics' compression rate (PBF's adaptive substeps,
// methods/pbf/pbf_step.h), so that a resumed run splits its steps as the run
// it continues; older files start from none. Version 6 adds the count of
// particles no step has moved yet (added since the last step with particles,
// Solver::unmeasured_), so that water filled again after clearing is held as
// new water when resumed; in older files it is the particles beyond those of
// the statistics' last step.
constexpr uint32_t kCheckpointVersion = 6;
constexpr uint32_t kOldestCheckpointVersion = 2;

struct Checkpoint {
  SolverConfig config;        // as resolved; thread_count and device_index are not stored
  PbfParams params;
  std::vector<Plane> planes;  // the user's planes, not the domain walls
  StepStats stats;
  // Particles no step has moved: added since the solver's last step with particles (at most
  // particles.size()).
  uint32_t unmeasured = 0;
  ParticleState particles;
  // Whether positions and planes are in the frame of frame_origin(config's domain) (version 4), or in
  // the world's coordinates (versions 2 and 3).
  bool in_frame = true;
};

// Writes through save_atomically() (core/file_access.h): an existing
// checkpoint is replaced only by a complete one and kept whole when the save
// fails, and nothing but a regular file is ever replaced. Throws
// Error(Status::Io) naming the path.
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);

// Reads and checks a checkpoint: a regular file (InputFile: a FIFO or a
// device is refused without blocking), its header first, then a payload of
// exactly the announced size, checked against the file's size before it is
// allocated; magic, version, hash, and that every value is one a solver
// could hold (finite numbers, sizes > 0, statistics >= 0, unit plane
// normals, a permutation of user ids). Throws Error(Status::Io) naming the
// path and the field that is wrong; the caller's state is untouched.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace pbf
