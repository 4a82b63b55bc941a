// recorded_step.h - how a method's step is run on a backend that can record
// a whole step (CUDA: one graph), shared by both methods' steps: offer the
// recording, record the stages, run it; where recording is not offered, a
// stage fails to record, or the recording cannot run, run the stages one by
// one instead (where a real failure is then reported).
#pragma once

#include <cstdint>

#include "backend/backend.h"
#include "core/error.h"

namespace pbf {

// `stages(stats)` enqueues (while recording) or runs every stage of the step.
template <class Stages>
void run_recorded(Backend& backend, const StepContext& ctx, const ObstaclePose* poses, uint32_t substeps,
                  StepStats& stats, Stages&& stages) {
  if (backend.begin_recording(ctx, poses, substeps)) {
    bool recorded = false;
    try {
      StepStats recording;  // the host time of recording is not the step's
      stages(recording);
      recorded = true;
    } catch (const Error&) {
      backend.abandon_recording();  // nothing has run
    }
    if (recorded && backend.run_recording(stats)) return;
  }
  stages(stats);
}

}  // namespace pbf
