// pbf_cuda_entry.h - PBF's CUDA stages as plain C++ sees them (defined in
// pbf_cuda_stages.cu; only where the build has the CUDA backend).
#pragma once

#include <memory>

#include "methods/pbf/pbf_stages.h"

namespace pbf {

// `backend` must be the CUDA backend.
std::unique_ptr<PbfStages> make_pbf_cuda_stages(Backend& backend);

}  // namespace pbf
