// lane_targets.h - the instruction sets for which the CPU's lane code
// (lanes.h) is compiled, and the one this processor runs. Every target
// computes the same bits (lanes.h); they differ only in speed.
#pragma once

#include <vector>

namespace pbf {

enum class LaneTarget {
  Baseline,  // what the library is compiled for (x86-64: SSE2)
  Avx2,      // x86-64 processors with AVX2, where the library was compiled with GCC
  Avx512,    // x86-64 processors with AVX-512 (F, VL, DQ, BW), where compiled with GCC: PBF's
             // sums for two particles at once in 512-bit vectors, the neighbour scan sixteen
             // candidates at a time, Projective Fluids' projection sixteen members at a time
};

// The fastest target compiled into the library that this processor runs.
LaneTarget best_lane_target();

// Whether this processor can run `target`.
bool lane_target_runs_here(LaneTarget target);

// Every target this processor runs, the baseline first (tests and
// benchmarks compare them).
std::vector<LaneTarget> lane_targets_here();

// "baseline", "avx2", "avx512".
const char* lane_target_name(LaneTarget target);

}  // namespace pbf
