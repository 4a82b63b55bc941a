// projective_cuda_entry.h - Projective Fluids' CUDA stages as plain C++ sees
// them (defined in projective_cuda_stages.cu; only where the build has the
// CUDA backend).
#pragma once

#include <memory>

#include "methods/projective/projective_stages.h"

namespace pbf {

// `backend` must be the CUDA backend.
std::unique_ptr<ProjectiveStages> make_projective_cuda_stages(Backend& backend);

}  // namespace pbf
