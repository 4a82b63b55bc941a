// cuda_boundary.cu - what the fluid meets besides the domain walls: the
// obstacles' signed distance fields on the GPU with the poses of a substep (or
// of every substep of a recorded step), and the boundary samples, sorted by
// cell once on the host with their pseudo-masses (Akinci eq. 5, computed on
// the host by the CPU backend's code), then placed at their obstacles' poses
// and sorted again by CUB each substep when some move. Touches the obstacle
// and boundary_* buffers only, never a particle array.
#include "backend/cuda/cuda_backend.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "backend/cpu/cpu_neighbor_grid.h"
#include "backend/cuda/cuda_launch.cuh"
#include "boundary/boundary_equations.h"
#include "boundary/pseudo_mass.h"

namespace pbf {

namespace {

// Sample k at its body's end pose of the substep (static ones where they are), with its bucket key:
// its cell, or the bucket after the last cell when it lies beyond reach of the domain.
__global__ void k_boundary_place(size_t n, GridSpec grid, const Obstacle* obstacles, const uint32_t* body,
                                 const Vec3* local, Vec3* world, uint32_t* keys, uint32_t* places,
                                 uint32_t* cell_count) {
  const size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const uint32_t b = body[k];
  const Vec3 p = b == kStaticBoundary ? local[k] : to_world(obstacles[b].pose.end, local[k]);
  world[k] = p;
  const uint32_t key = grid.bucket_index(p);
  keys[k] = key;
  places[k] = static_cast<uint32_t>(k);
  atomicAdd(cell_count + key, 1u);
}

// Sample k of the cell order, where it moves with an obstacle, at that obstacle's end pose; in place, in its cell.
__global__ void k_boundary_follow(size_t n, const Obstacle* obstacles, const uint32_t* body_sorted,
                                  const uint32_t* order, const Vec3* local, Vec3* x) {
  const size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const uint32_t b = body_sorted[k];
  if (b != kStaticBoundary) x[k] = to_world(obstacles[b].pose.end, local[order[k]]);
}

// The radix-sort bits of the boundary keys: the cells and the set-aside bucket after them.
int boundary_key_bits(size_t cells) {
  int bits = 1;
  while ((size_t(1) << bits) < cells + 1) ++bits;
  return bits;
}

}  // namespace

void CudaBackend::set_obstacle_fields(const SdfGridView* fields, uint32_t count) {
  use_device();
  std::vector<std::unique_ptr<DeviceBuffer<float>>> buffers;
  std::vector<Obstacle> obstacles(count);
  for (uint32_t k = 0; k < count; ++k) {
    const SdfGridView& f = fields[k];
    const size_t n = size_t(f.nx) * f.ny * f.nz;
    buffers.push_back(std::make_unique<DeviceBuffer<float>>());
    buffers.back()->reserve(n, 0);
    cuda_check(cudaMemcpy(buffers.back()->data(), f.values, n * sizeof(float), cudaMemcpyHostToDevice),
               "cudaMemcpy (obstacle field)");
    obstacles[k].field = f;
    obstacles[k].field.values = buffers.back()->data();
  }
  obstacles_device_.reserve(std::max<size_t>(count, 1), 0);
  fields_.swap(buffers);
  obstacles_.swap(obstacles);
}

void CudaBackend::set_obstacle_friction(const float* friction, uint32_t count) {
  if (count != obstacles_.size())
    throw Error(Status::Internal, "CUDA backend: friction for another number of obstacles than it holds");
  // The host's copies: upload_obstacles() stages them with each substep's poses.
  for (uint32_t k = 0; k < count; ++k) obstacles_[k].friction = friction[k];
}

void CudaBackend::set_boundary_particles(const Vec3* positions, const uint32_t* body, const Vec3* local,
                                         size_t count, DensityKernel density_kernel) {
  use_device();
  if (count == 0) {
    DeviceBuffer<Vec3> no_x;
    DeviceBuffer<uint32_t> no_start;
    DeviceBuffer<float> no_psi;
    boundary_x_.swap(no_x);  // the old buffers are freed on the way out
    boundary_start_.swap(no_start);
    boundary_psi_.swap(no_psi);
    boundary_n_ = 0;
    boundary_moving_ = false;
    return;
  }
  const bool moving =
      body != nullptr && std::any_of(body, body + count, [](uint32_t b) { return b != kStaticBoundary; });
  // Akinci eq. 5 on the host, by the code the CPU backend runs, so that both hold the same pseudo-masses
  // (in the order given). Then sorted once by the CPU backend's grid (a stable counting sort by cell), so
  // that both backends hold the samples in one order, with those beyond reach of the domain in the bucket
  // after the last cell, as move_boundary() puts them.
  const std::vector<float> psi_given_host = boundary_pseudo_masses(
      positions, moving ? body : nullptr, count, density_kernel, config_.kernel_radius, config_.rest_density);
  CpuNeighborGrid host_grid(grid_);
  host_grid.reserve(count);
  std::vector<uint32_t> order(count);  // place -> index given
  host_grid.sort_setting_aside(positions, count, order.data());
  const std::vector<uint32_t> start(host_grid.cell_start(), host_grid.cell_start() + cells_ + 1);
  std::vector<Vec3> sorted(count);
  std::vector<float> psi_sorted(count);
  for (size_t k = 0; k < count; ++k) {
    sorted[k] = positions[order[k]];
    psi_sorted[k] = psi_given_host[order[k]];
  }
  // New buffers, swapped in once they are filled: a failure leaves the previous set.
  DeviceBuffer<Vec3> x;
  DeviceBuffer<uint32_t> cell_start;
  DeviceBuffer<float> psi;
  x.reserve(count, 0);
  cell_start.reserve(cells_ + 1, 0);
  psi.reserve(count, 0);
  cuda_check(cudaMemcpyAsync(x.data(), sorted.data(), count * sizeof(Vec3), cudaMemcpyHostToDevice, stream_),
             "cudaMemcpy (boundary samples)");
  cuda_check(cudaMemcpyAsync(cell_start.data(), start.data(), (cells_ + 1) * sizeof(uint32_t),
                             cudaMemcpyHostToDevice, stream_),
             "cudaMemcpy (boundary grid)");
  cuda_check(cudaMemcpyAsync(psi.data(), psi_sorted.data(), count * sizeof(float), cudaMemcpyHostToDevice,
                             stream_),
             "cudaMemcpy (boundary pseudo-masses)");
  if (!moving) {
    finish("set_boundary_particles");
    boundary_x_.swap(x);
    boundary_start_.swap(cell_start);
    boundary_psi_.swap(psi);
    boundary_n_ = count;
    boundary_moving_ = false;
    return;
  }
  // Some samples move: the pseudo-masses kept in the order given (each body's the same at every pose),
  // and the buffers of the per-substep placement and sort.
  std::vector<uint32_t> sorted_body(count);
  std::vector<Vec3> locals(count);
  uint32_t max_body = 0;
  for (size_t k = 0; k < count; ++k) {
    sorted_body[k] = body[order[k]];
    locals[k] = body[k] == kStaticBoundary ? positions[k] : local[k];
    if (body[k] != kStaticBoundary) max_body = std::max(max_body, body[k]);
  }
  DeviceBuffer<uint32_t> bodies, bodies_sorted, places, keys, keys_sorted, order_device, cell_count;
  DeviceBuffer<Vec3> local_device, world;
  DeviceBuffer<float> psi_given;
  DeviceBuffer<unsigned char> temp;
  for (auto* b : {&bodies, &bodies_sorted, &places, &keys, &keys_sorted, &order_device}) b->reserve(count, 0);
  cell_count.reserve(cells_ + 1, 0);
  local_device.reserve(count, 0);
  world.reserve(count, 0);
  psi_given.reserve(count, 0);
  size_t sort_bytes = 0, scan_bytes = 0;
  cuda_check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys.data(), keys_sorted.data(), places.data(),
                                             order_device.data(), static_cast<int>(count), 0,
                                             boundary_key_bits(cells_), stream_),
             "cub::DeviceRadixSort (size query)");
  cuda_check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cell_count.data(), cell_start.data(),
                                           static_cast<int>(cells_ + 1), stream_),
             "cub::DeviceScan (size query)");
  temp.reserve(std::max(sort_bytes, scan_bytes), 0);
  cuda_check(cudaMemcpyAsync(bodies.data(), body, count * sizeof(uint32_t), cudaMemcpyHostToDevice, stream_),
             "cudaMemcpy (boundary bodies)");
  cuda_check(cudaMemcpyAsync(bodies_sorted.data(), sorted_body.data(), count * sizeof(uint32_t),
                             cudaMemcpyHostToDevice, stream_),
             "cudaMemcpy (boundary bodies)");
  cuda_check(cudaMemcpyAsync(order_device.data(), order.data(), count * sizeof(uint32_t), cudaMemcpyHostToDevice,
                             stream_),
             "cudaMemcpy (boundary order)");
  cuda_check(cudaMemcpyAsync(local_device.data(), locals.data(), count * sizeof(Vec3), cudaMemcpyHostToDevice,
                             stream_),
             "cudaMemcpy (boundary samples)");
  cuda_check(cudaMemcpyAsync(psi_given.data(), psi_given_host.data(), count * sizeof(float), cudaMemcpyHostToDevice,
                             stream_),
             "cudaMemcpy (boundary pseudo-masses)");
  finish("set_boundary_particles");
  boundary_x_.swap(x);
  boundary_start_.swap(cell_start);
  boundary_psi_.swap(psi);
  boundary_n_ = count;
  boundary_body_.swap(bodies);
  boundary_body_sorted_.swap(bodies_sorted);
  boundary_local_.swap(local_device);
  boundary_world_.swap(world);
  boundary_psi_given_.swap(psi_given);
  boundary_keys_.swap(keys);
  boundary_keys_sorted_.swap(keys_sorted);
  boundary_places_.swap(places);
  boundary_order_.swap(order_device);
  boundary_cell_count_.swap(cell_count);
  boundary_temp_.swap(temp);
  boundary_max_body_ = max_body;
  boundary_moving_ = true;
}

void CudaBackend::move_boundary(const StepContext& ctx) {
  if (boundary_max_body_ >= ctx.obstacle_count)
    throw Error(Status::Internal, "CUDA backend: a boundary sample moves with an obstacle the step does not name");
  const Obstacle* obstacles = obstacles_for(ctx);
  const size_t count = boundary_n_;
  cuda_check(cudaMemsetAsync(boundary_cell_count_.data(), 0, (cells_ + 1) * sizeof(uint32_t), stream_),
             "cudaMemset");
  k_boundary_place<<<blocks_for(count), kBlock, 0, stream_>>>(
      count, grid_, obstacles, boundary_body_.data(), boundary_local_.data(), boundary_world_.data(),
      boundary_keys_.data(), boundary_places_.data(), boundary_cell_count_.data());
  check_launch("k_boundary_place");
  size_t bytes = boundary_temp_.capacity();
  // Stable, as the host's counting sort and the CPU backend's; the set-aside bucket sorts last.
  cuda_check(cub::DeviceRadixSort::SortPairs(boundary_temp_.data(), bytes, boundary_keys_.data(),
                                             boundary_keys_sorted_.data(), boundary_places_.data(),
                                             boundary_order_.data(), static_cast<int>(count), 0,
                                             boundary_key_bits(cells_), stream_),
             "cub::DeviceRadixSort::SortPairs (boundary)");
  bytes = boundary_temp_.capacity();
  cuda_check(cub::DeviceScan::ExclusiveSum(boundary_temp_.data(), bytes, boundary_cell_count_.data(),
                                           boundary_start_.data(), static_cast<int>(cells_ + 1), stream_),
             "cub::DeviceScan::ExclusiveSum (boundary)");
  const unsigned b = blocks_for(count);
  k_gather<<<b, kBlock, 0, stream_>>>(count, boundary_order_.data(), boundary_world_.data(), boundary_x_.data());
  k_gather<<<b, kBlock, 0, stream_>>>(count, boundary_order_.data(), boundary_psi_given_.data(),
                                      boundary_psi_.data());
  k_gather<<<b, kBlock, 0, stream_>>>(count, boundary_order_.data(), boundary_body_.data(),
                                      boundary_body_sorted_.data());
  check_launch("k_gather (boundary)");
}

void CudaBackend::follow_obstacles(const StepContext& ctx) {
  if (!boundary_moving_) return;
  if (boundary_max_body_ >= ctx.obstacle_count)
    throw Error(Status::Internal, "CUDA backend: a boundary sample moves with an obstacle the step does not name");
  const Obstacle* obstacles = obstacles_for(ctx);
  const size_t count = boundary_n_;
  k_boundary_follow<<<blocks_for(count), kBlock, 0, stream_>>>(count, obstacles, boundary_body_sorted_.data(),
                                                              boundary_order_.data(), boundary_local_.data(),
                                                              boundary_x_.data());
  check_launch("k_boundary_follow");
}

BoundarySamples CudaBackend::boundary_samples() const {
  if (boundary_n_ == 0) return BoundarySamples{};
  return BoundarySamples{grid_, boundary_start_.data(), boundary_x_.data(), boundary_psi_.data(),
                         static_cast<uint32_t>(boundary_n_), boundary_near_.data(),
                         boundary_moving_ ? boundary_body_sorted_.data() : nullptr};
}

const Obstacle* CudaBackend::obstacles_for(const StepContext& ctx) {
  if (ctx.obstacle_count != obstacles_.size())
    throw Error(Status::Internal, "CUDA backend: a step names another number of obstacles than it holds");
  if (ctx.obstacle_count == 0) return nullptr;
  if (recording_) {
    // begin_recording() has put every substep's obstacles on the GPU; this substep's are at its offset.
    const ptrdiff_t offset = ctx.obstacle_poses - recorded_poses_;
    if (offset < 0 || offset % ctx.obstacle_count != 0 ||
        static_cast<size_t>(offset) >= static_cast<size_t>(recorded_substeps_) * ctx.obstacle_count)
      throw Error(Status::Internal, "CUDA backend: a recorded stage has poses of no recorded substep");
    return obstacles_device_.data() + offset;
  }
  upload_obstacles(ctx.obstacle_poses, 1);
  return obstacles_device_.data();
}

void CudaBackend::upload_obstacles(const ObstaclePose* poses, uint32_t substeps) {
  const size_t count = obstacles_.size();
  if (count == 0) return;
  staged_obstacles_.resize(count * substeps);
  for (size_t k = 0; k < staged_obstacles_.size(); ++k) {
    staged_obstacles_[k] = obstacles_[k % count];
    staged_obstacles_[k].pose = poses[k];
  }
  obstacles_device_.reserve(staged_obstacles_.size(), 0);
  // From pageable memory: the call returns once the data is staged, so staged_obstacles_ may change afterwards.
  cuda_check(cudaMemcpyAsync(obstacles_device_.data(), staged_obstacles_.data(),
                             staged_obstacles_.size() * sizeof(Obstacle), cudaMemcpyHostToDevice, stream_),
             "cudaMemcpy (obstacles)");
}

}  // namespace pbf
