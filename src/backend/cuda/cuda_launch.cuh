// cuda_launch.cuh - what the CUDA backend's .cu files and the methods' CUDA
// stages (methods/<method>/cuda/) share to launch
// kernels: the block size, the planes of a step passed to kernels by value,
// the gathers between orders (cell order, user order), the launch check, and
// the reductions and gate that end both methods' iterations on the GPU.
// All of it has internal linkage (an unnamed namespace), so that each .cu file
// compiles its own copy and no kernel is launched from another translation
// unit than the one that defines it (no relocatable device code). Touches no
// buffer of CudaBackend; included only by .cu files.
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

// The same for vectors moved by `offset` (positions into the world: core/local_frame.h).
__global__ void k_to_user_moved(size_t n, const uint32_t* id, const Vec3* from, Vec3 offset, Vec3* to) {
  const size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (k < n) to[id[k]] = from[k] + offset;
}

void check_launch(const char* kernel) { cuda_check(cudaGetLastError(), kernel); }

// The sink of the obstacles' pushes (core/obstacle.h) on the GPU: atomic
// sums in double, one per obstacle (CudaBackend::take_obstacle_pushes()). Their
// order, and so the last bits of the sums, varies from run to run.
struct CudaPushSink {
  static constexpr bool kActive = true;
  ObstaclePush* sums;
  bool couple_added;  // StepContext::bodies_couple
  __device__ void add(uint32_t k, Vec3 d, Vec3 at) const {
    ObstaclePush& s = sums[k];
    const Vec3 m = cross(at, d);
    atomicAdd(&s.d[0], static_cast<double>(d.x));
    atomicAdd(&s.d[1], static_cast<double>(d.y));
    atomicAdd(&s.d[2], static_cast<double>(d.z));
    atomicAdd(&s.moment[0], static_cast<double>(m.x));
    atomicAdd(&s.moment[1], static_cast<double>(m.y));
    atomicAdd(&s.moment[2], static_cast<double>(m.z));
  }
  __device__ void couple(uint32_t k, Vec3 d, Vec3 at, float weight) const {
    add(k, d, at);
    if (!couple_added) return;
    double* added = sums[k].added;
    for_each_added_mass_term(d, at, weight, [added](int e, double value) { atomicAdd(&added[e], value); });
  }
  __device__ bool couples() const { return couple_added; }
};

// body(push) with the step's sink where it has obstacles (`sums` not null), NoPush otherwise; `couple`:
// StepContext::bodies_couple.
template <class Body>
__device__ void with_push_sink(ObstaclePush* sums, bool couple, Body&& body) {
  if (sums) {
    const CudaPushSink push{sums, couple};
    body(push);
  } else {
    const NoPush none;
    body(none);
  }
}

// Reduces sum[] and top[] (kBlock entries in shared memory, each thread's
// written) to sum[0] and top[0] in a fixed tree order. Every thread must call it.
__device__ void tree_reduce(double* sum, float* top) {
  const unsigned t = threadIdx.x;
  __syncthreads();
  for (unsigned half = kBlock / 2; half > 0; half /= 2) {
    if (t < half) {
      sum[t] += sum[t + half];
      top[t] = fmaxf(top[t], top[t + half]);
    }
    __syncthreads();
  }
}

// Sums `value` (and takes the max of `largest`) over the block in a fixed
// tree order; thread 0 writes the block's results. Every thread must call it.
__device__ void block_reduce(double value, float largest, double* partials, float* partial_max) {
  __shared__ double sum[kBlock];
  __shared__ float top[kBlock];
  const unsigned t = threadIdx.x;
  sum[t] = value;
  top[t] = largest;
  tree_reduce(sum, top);
  if (t == 0) {
    partials[blockIdx.x] = sum[0];
    if (partial_max) partial_max[blockIdx.x] = top[0];
  }
}

// One block: an iteration's mean and largest compression from its per-block
// partials (block_reduce), summed in a fixed order (deterministic), and
// whether they end the substep's iterations (mean at most `tolerance`). The
// host never waits for it.
__global__ void k_iteration_gate(unsigned blocks, size_t n, float tolerance, const double* partials,
                                 const float* partial_max, IterationDeviceState* state) {
  if (state->converged) return;
  __shared__ double sum[kBlock];
  __shared__ float top[kBlock];
  const unsigned t = threadIdx.x;
  double acc = 0.0;
  float largest = 0.0f;
  for (unsigned k = t; k < blocks; k += kBlock) {
    acc += partials[k];
    largest = fmaxf(largest, partial_max[k]);
  }
  sum[t] = acc;
  top[t] = largest;
  tree_reduce(sum, top);
  if (t == 0) {
    const float mean = n > 0 ? static_cast<float>(sum[0] / static_cast<double>(n)) : 0.0f;
    state->mean_compression = mean;
    state->max_compression = top[0];
    if (mean <= tolerance) state->converged = 1;
  }
}

}  // namespace
}  // namespace pbf
