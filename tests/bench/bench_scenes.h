// bench_scenes.h - what the solver benchmarks share: ending the program on a
// failed call, and the dam-break box of DESIGN.md §7 (a cube of water of
// `side` particles at `spacing` in the corner of a box 4 x 3 x 1.5 times
// the cube's side).
#pragma once

#include <pbf/pbf.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace pbf_bench {

inline void check(pbf_status status, const char* program) {
  if (status != PBF_OK) {
    std::fprintf(stderr, "%s: %s\n", program, pbf_last_error());
    std::exit(1);
  }
}

inline pbf_solver_desc dam_break_desc(pbf_backend backend, int side, float spacing) {
  const float block = side * spacing;
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = backend;
  desc.particle_spacing = spacing;
  desc.domain_max[0] = 4.0f * block;
  desc.domain_max[1] = 3.0f * block;
  desc.domain_max[2] = 1.5f * block;
  desc.max_particles = static_cast<uint32_t>(side) * side * side;
  return desc;
}

}  // namespace pbf_bench
