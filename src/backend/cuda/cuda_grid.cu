// cuda_grid.cu - sorting by cell and the neighbour search: cell keys, CUB's
// stable radix sort and exclusive scan (so the order, and every sum, is the
// CPU backend's), the gather of x_, v_, xp_ and id_ into cell order, and the
// fixed-stride neighbour lists (slot-major, NeighborLists) with their overflow count and, per particle,
// whether a boundary sample is within reach. Touches the grid and neighbour
// buffers and those four arrays (swapping with scratch_ and id_scratch_);
// moves the boundary samples first when some follow obstacles.
#include "backend/cuda/cuda_backend.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <cstddef>

#include "backend/cuda/cuda_launch.cuh"
#include "core/neighbor_scan.h"
#include "boundary/boundary_equations.h"

namespace pbf {

namespace {

__global__ void k_cell_keys(size_t n, GridSpec grid, const Vec3* xp, uint32_t* keys, uint32_t* places,
                            uint32_t* cell_count) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const uint32_t key = grid.cell_index(xp[i]);
  keys[i] = key;
  places[i] = static_cast<uint32_t>(i);
  atomicAdd(cell_count + key, 1u);
}

// The nearest neighbours of a particle whose list overflowed, out of line, so
// that the scan every particle runs keeps the registers of its own.
__device__ __noinline__ uint32_t nearest_neighbors(const GridSpec& grid, const uint32_t* start, const Vec3* xp,
                                                   uint32_t i, float radius, uint32_t stride, uint32_t* list,
                                                   size_t list_step) {
  bool overflow = false;
  return scan_nearest_neighbors(grid, start, xp, i, radius, stride, list, list_step, &overflow);
}

__global__ void k_neighbors(size_t n, GridSpec grid, const uint32_t* start, const Vec3* xp, float radius,
                            uint32_t stride, uint32_t* index, uint32_t* count, uint32_t* overflows) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  bool overflow = false;
  count[i] = scan_neighbors(grid, start, xp, static_cast<uint32_t>(i), radius, stride, index + i, n, &overflow);
  if (overflow) {
    // The nearest kept, as on the CPU (core/neighbor_scan.h).
    count[i] = nearest_neighbors(grid, start, xp, static_cast<uint32_t>(i), radius, stride, index + i, n);
    atomicAdd(overflows, 1u);
  }
}

__global__ void k_boundary_near(size_t n, BoundarySamples boundary, float reach, const Vec3* xp, uint8_t* near) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) near[i] = boundary_near_mark(boundary, xp[i], reach);
}

}  // namespace

NeighborLists CudaBackend::neighbor_lists() const {
  // Slot-major: a warp's 32 particles read their k-th neighbours as 32 consecutive words.
  return NeighborLists::slot_major(nb_index_.data(), nb_count_.data(), stride_, nb_n_);
}

void CudaBackend::build_grid(const StepContext& ctx) {
  use_device();
  begin_stage(&StepStats::time_grid_ms);
  if (boundary_moving_) move_boundary(ctx);
  cuda_check(cudaMemsetAsync(cell_count_.data(), 0, (cells_ + 1) * sizeof(uint32_t), stream_), "cudaMemset");
  k_cell_keys<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, grid_, xp_.data(), keys_.data(), places_.data(),
                                                       cell_count_.data());
  check_launch("k_cell_keys");
  size_t bytes = cub_temp_.capacity();
  // Stable: particles of one cell keep their order, as on the CPU.
  cuda_check(cub::DeviceRadixSort::SortPairs(cub_temp_.data(), bytes, keys_.data(), keys_sorted_.data(),
                                             places_.data(), order_.data(), static_cast<int>(n_), 0, key_bits_,
                                             stream_),
             "cub::DeviceRadixSort::SortPairs");
  bytes = cub_temp_.capacity();
  cuda_check(cub::DeviceScan::ExclusiveSum(cub_temp_.data(), bytes, cell_count_.data(), cell_start_.data(),
                                           static_cast<int>(cells_ + 1), stream_),
             "cub::DeviceScan::ExclusiveSum");
  const unsigned b = blocks_for(n_);
  k_gather<<<b, kBlock, 0, stream_>>>(n_, order_.data(), x_.data(), scratch_.data());
  x_.swap(scratch_);
  k_gather<<<b, kBlock, 0, stream_>>>(n_, order_.data(), v_.data(), scratch_.data());
  v_.swap(scratch_);
  k_gather<<<b, kBlock, 0, stream_>>>(n_, order_.data(), xp_.data(), scratch_.data());
  xp_.swap(scratch_);
  k_gather<<<b, kBlock, 0, stream_>>>(n_, order_.data(), id_.data(), id_scratch_.data());
  id_.swap(id_scratch_);
  check_launch("k_gather");
  finish("build_grid");
}

void CudaBackend::find_neighbors(const StepContext&) {
  use_device();
  begin_stage(&StepStats::time_neighbors_ms);
  cuda_check(cudaMemsetAsync(overflows_.data(), 0, sizeof(uint32_t), stream_), "cudaMemset");
  nb_n_ = n_;
  k_neighbors<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, grid_, cell_start_.data(), xp_.data(),
                                                       config_.kernel_radius, stride_, nb_index_.data(),
                                                       nb_count_.data(), overflows_.data());
  check_launch("k_neighbors");
  if (boundary_n_ > 0) {
    k_boundary_near<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, boundary_samples(),
                                                             kBoundaryNearReach * config_.kernel_radius, xp_.data(),
                                                             boundary_near_.data());
    check_launch("k_boundary_near");
  }
  cuda_check(cudaMemcpyAsync(overflow_host_, overflows_.data(), sizeof(uint32_t), cudaMemcpyDeviceToHost, stream_),
             "cudaMemcpy");
  finish("find_neighbors");
}

}  // namespace pbf
