// backend.cpp - what every device does the same way, written once.
#include "backend/backend.h"

#include <cstddef>

namespace pbf {

void Backend::remove(const std::vector<uint8_t>& remove) {
  ParticleState s;
  export_state(s);
  // New user index = old index minus the removed particles before it.
  std::vector<uint32_t> renumber(remove.size());
  uint32_t next = 0;
  for (size_t u = 0; u < remove.size(); ++u) renumber[u] = remove[u] ? UINT32_MAX : next++;
  size_t kept = 0;
  for (size_t k = 0; k < s.positions.size(); ++k) {
    if (remove[s.user_ids[k]]) continue;
    s.positions[kept] = s.positions[k];
    s.velocities[kept] = s.velocities[k];
    s.densities[kept] = s.densities[k];
    s.user_ids[kept] = renumber[s.user_ids[k]];
    ++kept;
  }
  s.positions.resize(kept);
  s.velocities.resize(kept);
  s.densities.resize(kept);
  s.user_ids.resize(kept);
  import_state(s);  // throws with the particles as they were
}

}  // namespace pbf
