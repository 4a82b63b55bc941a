// particle_state.h - the complete per-particle state of a solver, in the
// backend's own order: what a checkpoint stores so that a resumed run
// continues bit-identically (the order decides the order of every sum).
#pragma once

#include <cstdint>
#include <vector>

#include "core/hd.h"

namespace pbf {

struct ParticleState {
  std::vector<Vec3> positions;
  std::vector<Vec3> velocities;
  std::vector<float> densities;  // as the last step left them
  std::vector<uint32_t> user_ids;  // place -> user index, a permutation of 0 .. n-1
};

}  // namespace pbf
