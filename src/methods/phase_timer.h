// phase_timer.h - adds the wall-clock time of a scope to one of StepStats'
// per-phase totals [ms]; used by the substep functions of both methods.
#pragma once

#include <chrono>

namespace pbf {

class PhaseTimer {
 public:
  explicit PhaseTimer(double& total_ms) : total_ms_(total_ms), start_(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() {
    total_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  double& total_ms_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pbf
