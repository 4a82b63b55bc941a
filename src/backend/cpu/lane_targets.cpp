#include "backend/cpu/lane_targets.h"

namespace pbf {

namespace {

// The files compiled for AVX2 and AVX-512 (methods/*/cpu/*_avx2.cpp, *_avx512.cpp) exist where this holds.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
constexpr bool kHaveAvx2 = true;
#else
constexpr bool kHaveAvx2 = false;
#endif

}  // namespace

bool lane_target_runs_here(LaneTarget target) {
  switch (target) {
    case LaneTarget::Baseline:
      return true;
    case LaneTarget::Avx2:
#if defined(__x86_64__) && defined(__GNUC__)
      // libgcc's test also asks whether the operating system saves the AVX registers.
      return kHaveAvx2 && __builtin_cpu_supports("avx2");
#else
      return false;
#endif
    case LaneTarget::Avx512:
#if defined(__x86_64__) && defined(__GNUC__)
      // As for AVX2: the test also asks whether the operating system saves the AVX-512 state.
      return kHaveAvx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512bw");
#else
      return false;
#endif
  }
  return false;
}

LaneTarget best_lane_target() {
  static const LaneTarget best = lane_target_runs_here(LaneTarget::Avx512) ? LaneTarget::Avx512
                                 : lane_target_runs_here(LaneTarget::Avx2) ? LaneTarget::Avx2
                                                                           : LaneTarget::Baseline;
  return best;
}

std::vector<LaneTarget> lane_targets_here() {
  std::vector<LaneTarget> targets{LaneTarget::Baseline};
  for (const LaneTarget t : {LaneTarget::Avx2, LaneTarget::Avx512})
    if (lane_target_runs_here(t)) targets.push_back(t);
  return targets;
}

const char* lane_target_name(LaneTarget target) {
  switch (target) {
    case LaneTarget::Avx2:
      return "avx2";
    case LaneTarget::Avx512:
      return "avx512";
    case LaneTarget::Baseline:
      break;
  }
  return "baseline";
}

}  // namespace pbf
