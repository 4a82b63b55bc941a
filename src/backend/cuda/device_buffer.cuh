// device_buffer.cuh - a typed array in GPU memory that grows but never
// shrinks, and the check that turns a CUDA error into an Error.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/error.h"

namespace pbf {

// Throws Error for a failed CUDA call: OutOfMemory for an allocation
// failure, Internal otherwise, with CUDA's own message and the call.
inline void cuda_check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  const Status kind = status == cudaErrorMemoryAllocation ? Status::OutOfMemory : Status::Internal;
  throw Error(kind, std::string("CUDA: ") + what + " failed: " + cudaGetErrorName(status) + ": " +
                        cudaGetErrorString(status));
}

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }

  T* data() const { return data_; }
  size_t capacity() const { return capacity_; }

  // Makes room for n elements, keeping the first `keep` of them. Throws
  // (leaving the buffer as it was) when the allocation fails.
  void reserve(size_t n, size_t keep) {
    if (n <= capacity_) return;
    size_t grown = capacity_ + capacity_ / 2;
    if (grown < n) grown = n;
    T* fresh = nullptr;
    cuda_check(cudaMalloc(reinterpret_cast<void**>(&fresh), grown * sizeof(T)), "cudaMalloc");
    if (keep > 0) {
      // Synchronous, so the old memory is free to go.
      cudaError_t copied = cudaMemcpy(fresh, data_, keep * sizeof(T), cudaMemcpyDeviceToDevice);
      if (copied == cudaSuccess) copied = cudaDeviceSynchronize();
      if (copied != cudaSuccess) {
        cudaFree(fresh);
        cuda_check(copied, "cudaMemcpy (growing a buffer)");
      }
    }
    if (data_) cudaFree(data_);
    data_ = fresh;
    capacity_ = grown;
  }

  void swap(DeviceBuffer& other) {
    std::swap(data_, other.data_);
    std::swap(capacity_, other.capacity_);
  }

 private:
  T* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace pbf
