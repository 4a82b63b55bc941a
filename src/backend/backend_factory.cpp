// backend_factory.cpp - the only code that knows which backends exist.
#include <string>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "core/error.h"

namespace pbf {

bool backend_available(BackendKind kind) {
  switch (kind) {
    case BackendKind::Auto:
    case BackendKind::Cpu:
      return true;
    case BackendKind::Cuda:
      return false;  // this build has no CUDA backend
  }
  return false;
}

std::unique_ptr<Backend> create_backend(const SolverConfig& config) {
  switch (config.backend) {
    case BackendKind::Cpu:
      return std::make_unique<CpuBackend>(config);
    case BackendKind::Cuda:
      throw Error(Status::BackendUnavailable,
                  "backend: PBF_BACKEND_CUDA is not available: this build of pbf has no CUDA backend");
    case BackendKind::Auto:
      break;
  }
  throw Error(Status::Internal, "backend: unresolved backend kind " +
                                    std::to_string(static_cast<int>(config.backend)));
}

}  // namespace pbf
