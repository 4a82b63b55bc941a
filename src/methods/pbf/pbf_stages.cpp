// pbf_stages.cpp - which implementation of PBF's stages a backend gets.
#include "methods/pbf/pbf_stages.h"

#include "backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "methods/pbf/cpu/pbf_cpu_stages.h"
#ifdef PBF_HAVE_CUDA
#include "methods/pbf/cuda/pbf_cuda_entry.h"
#endif

namespace pbf {

std::unique_ptr<PbfStages> make_pbf_stages(Backend& backend) {
  if (auto* cpu = dynamic_cast<CpuBackend*>(&backend)) return std::make_unique<PbfCpuStages>(*cpu);
#ifdef PBF_HAVE_CUDA
  if (backend.kind() == BackendKind::Cuda) return make_pbf_cuda_stages(backend);
#endif
  throw Error(Status::Internal, "PBF has no stages for this backend");
}

}  // namespace pbf
