// backend_factory.cpp - the only code that knows which backends exist.
#include <string>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "core/error.h"
#if defined(PBF_HAVE_CUDA)
#include "backend/cuda/cuda_entry.h"
#endif

namespace pbf {

std::string backend_unavailable_reason(BackendKind kind, int device_index) {
  switch (kind) {
    case BackendKind::Auto:
    case BackendKind::Cpu:
      return "";
    case BackendKind::Cuda: {
#if defined(PBF_HAVE_CUDA)
      std::string reason;
      return cuda_device_usable(device_index, &reason) ? "" : reason;
#else
      (void)device_index;
      return "this build of pbf has no CUDA backend (it was built without nvcc)";
#endif
    }
  }
  return "unknown backend";
}

bool backend_available(BackendKind kind) { return backend_unavailable_reason(kind, 0).empty(); }

std::unique_ptr<Backend> create_backend(const SolverConfig& config) {
  switch (config.backend) {
    case BackendKind::Cpu:
      return std::make_unique<CpuBackend>(config);
    case BackendKind::Cuda:
#if defined(PBF_HAVE_CUDA)
      return create_cuda_backend(config);
#else
      throw Error(Status::BackendUnavailable, "desc->backend: PBF_BACKEND_CUDA is not available: " +
                                                  backend_unavailable_reason(BackendKind::Cuda, 0));
#endif
    case BackendKind::Auto:
      break;
  }
  throw Error(Status::Internal, "backend: unresolved backend kind " +
                                    std::to_string(static_cast<int>(config.backend)));
}

}  // namespace pbf
