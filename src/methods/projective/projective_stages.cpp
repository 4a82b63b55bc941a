// projective_stages.cpp - which implementation of Projective Fluids' stages a backend gets.
#include "methods/projective/projective_stages.h"

#include "backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "methods/projective/cpu/projective_cpu_stages.h"
#ifdef PBF_HAVE_CUDA
#include "methods/projective/cuda/projective_cuda_entry.h"
#endif

namespace pbf {

std::unique_ptr<ProjectiveStages> make_projective_stages(Backend& backend) {
  if (auto* cpu = dynamic_cast<CpuBackend*>(&backend)) return std::make_unique<ProjectiveCpuStages>(*cpu);
#ifdef PBF_HAVE_CUDA
  if (backend.kind() == BackendKind::Cuda) return make_projective_cuda_stages(backend);
#endif
  throw Error(Status::Internal, "Projective Fluids has no stages for this backend");
}

}  // namespace pbf
