// cuda_entry.h - what the rest of the library may know of the CUDA backend:
// whether a device is usable, and a factory. Plain C++: including it needs
// no CUDA headers. Implemented in cuda_backend.cu, built only with nvcc.
#pragma once

#include <memory>
#include <string>

#include "backend/backend.h"

namespace pbf {

// Whether CUDA device `device_index` can run a solver. When it cannot,
// *reason says why in a sentence (no driver, no device, index out of range),
// with the CUDA runtime's own message.
bool cuda_device_usable(int device_index, std::string* reason);

// A CUDA backend on config.device_index. Throws Error(BackendUnavailable)
// when the device is not usable, Error(OutOfMemory) when it is full.
std::unique_ptr<Backend> create_cuda_backend(const SolverConfig& config);

}  // namespace pbf
