// cuda_launch.cuh - what the CUDA backend's .cu files share to launch
// kernels: the block size, the planes of a step passed to kernels by value,
// the gathers between orders (cell order, user order) and the launch check.
// All of it has internal linkage (an unnamed namespace), so that each .cu file
// compiles its own copy and no kernel is launched from another translation
// unit than the one that defines it (no relocatable device code). Touches no
// buffer of CudaBackend; included only by the backend's .cu files.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "backend/cuda/cuda_backend.cuh"

namespace pbf {

namespace {

constexpr int kBlock = 256;
constexpr size_t kMaxPlaneSet = kDomainWalls + kMaxPlanes;

// The planes of a step, passed to kernels by value (1.1 KB of parameters).
struct PlaneSet {
  Plane plane[kMaxPlaneSet];
  uint32_t count;
  uint32_t density_first;  // StepContext::density_planes_first
};

PlaneSet plane_set(const StepContext& ctx) {
  if (ctx.plane_count > kMaxPlaneSet) throw Error(Status::Internal, "CUDA backend: more planes than it can hold");
  PlaneSet s{};
  for (uint32_t k = 0; k < ctx.plane_count; ++k) s.plane[k] = ctx.planes[k];
  s.count = ctx.plane_count;
  s.density_first = ctx.density_planes_first;
  return s;
}

unsigned blocks_for(size_t n, int block = kBlock) { return static_cast<unsigned>((n + block - 1) / block); }

template <class T>
__global__ void k_gather(size_t n, const uint32_t* order, const T* from, T* to) {
  const size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (k < n) to[k] = from[order[k]];
}

// to[id[k]] = from[k]: backend order in, user order out.
template <class T>
__global__ void k_to_user(size_t n, const uint32_t* id, const T* from, T* to) {
  const size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (k < n) to[id[k]] = from[k];
}

void check_launch(const char* kernel) { cuda_check(cudaGetLastError(), kernel); }

}  // namespace
}  // namespace pbf
