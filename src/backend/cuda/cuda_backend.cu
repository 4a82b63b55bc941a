#include "backend/cuda/cuda_backend.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_entry.h"
#include "backend/cuda/cuda_launch.cuh"
#include "core/neighbor_scan.h"
#include "solver/pbf/pbf_equations.h"

namespace pbf {

namespace {

constexpr int kMeasureBlock = 256;
GridSpec grid_for(const SolverConfig& config) {
  GridSpec g{};
  g.origin = config.domain_min;
  g.inv_cell = 1.0f / config.kernel_radius;
  const Vec3 extent = config.domain_max - config.domain_min;
  const float e[3] = {extent.x, extent.y, extent.z};
  for (int a = 0; a < 3; ++a) g.dim[a] = std::max(1, static_cast<int>(std::ceil(e[a] / config.kernel_radius)));
  return g;
}

// ---------------------------------------------------------------- kernels

__global__ void k_iota(uint32_t* out, uint32_t first, size_t n) {
  const size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (k < n) out[k] = first + static_cast<uint32_t>(k);
}

// to[k] = from[id[k]]: user order in, backend order out.
template <class T>
__global__ void k_from_user(size_t n, const uint32_t* id, const T* from, T* to) {
  const size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (k < n) to[k] = from[id[k]];
}

// Akinci eq. 5: psi_b = rho0 / sum_k W_bk over the samples near b (b included) of its body (body null: all),
// with the method's density kernel (the cubic spline for Projective Fluids).
__global__ void k_boundary_psi(size_t n, KernelConstants kernel, CubicKernel cubic_kernel, bool projective, float rho0,
                               BoundarySamples boundary, const uint32_t* body, float* psi) {
  const size_t b = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (b >= n) return;
  const uint32_t index = static_cast<uint32_t>(b);
  psi[b] = rho0 / (projective ? boundary_kernel_sum(cubic_kernel, boundary, index, body)
                              : boundary_kernel_sum(kernel, boundary, index, body));
}

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

// The radix-sort bits of the boundary keys: the cells and the set-aside bucket after them.
int boundary_key_bits(size_t cells) {
  int bits = 1;
  while ((size_t(1) << bits) < cells + 1) ++bits;
  return bits;
}

// One CudaMeasures per block, reduced in a fixed tree order.
__global__ void k_measure(size_t n, float inv_rho0, const float* rho, const uint32_t* nb_count, const Vec3* v,
                          CudaMeasures* partials) {
  __shared__ double error_sum[kMeasureBlock];
  __shared__ double neighbor_sum[kMeasureBlock];
  __shared__ float error_max[kMeasureBlock];
  __shared__ float speed2_max[kMeasureBlock];
  __shared__ uint32_t neighbor_max[kMeasureBlock];
  const unsigned t = threadIdx.x;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + t;
  float e = 0.0f, s2 = 0.0f;
  uint32_t count = 0;
  if (i < n) {
    e = fmaxf(rho[i] * inv_rho0 - 1.0f, 0.0f);
    count = nb_count[i];
    s2 = length_squared(v[i]);
  }
  error_sum[t] = e;
  neighbor_sum[t] = count;
  error_max[t] = e;
  speed2_max[t] = s2;
  neighbor_max[t] = count;
  __syncthreads();
  for (unsigned half = kMeasureBlock / 2; half > 0; half /= 2) {
    if (t < half) {
      error_sum[t] += error_sum[t + half];
      neighbor_sum[t] += neighbor_sum[t + half];
      error_max[t] = fmaxf(error_max[t], error_max[t + half]);
      speed2_max[t] = fmaxf(speed2_max[t], speed2_max[t + half]);
      neighbor_max[t] = max(neighbor_max[t], neighbor_max[t + half]);
    }
    __syncthreads();
  }
  if (t == 0)
    partials[blockIdx.x] = CudaMeasures{error_sum[0], neighbor_sum[0], error_max[0], speed2_max[0], neighbor_max[0]};
}

}  // namespace

// ---------------------------------------------------------------- device queries

bool cuda_device_usable(int device_index, std::string* reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // reset the runtime's last error, so that it is not reported again later
    if (reason)
      *reason = std::string("no usable CUDA driver or device (") + cudaGetErrorName(status) + ": " +
                cudaGetErrorString(status) + ")";
    return false;
  }
  if (device_index < 0 || device_index >= count) {
    if (reason)
      *reason = "device_index " + std::to_string(device_index) + " is out of range: this machine has " +
                std::to_string(count) + " CUDA device(s)";
    return false;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device_index) != cudaSuccess) {
    cudaGetLastError();
    if (reason) *reason = "cannot query CUDA device " + std::to_string(device_index);
    return false;
  }
  if (prop.major * 10 + prop.minor < 75) {
    if (reason)
      *reason = std::string("CUDA device ") + std::to_string(device_index) + " (" + prop.name +
                ") has compute capability " + std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                "; this build runs on 7.5 (Turing) and newer";
    return false;
  }
  return true;
}

std::unique_ptr<Backend> create_cuda_backend(const SolverConfig& config) {
  std::string reason;
  if (!cuda_device_usable(config.device_index, &reason))
    throw Error(Status::BackendUnavailable, "desc->backend: PBF_BACKEND_CUDA is not available: " + reason);
  return std::make_unique<CudaBackend>(config);
}

// ---------------------------------------------------------------- CudaBackend

CudaBackend::CudaBackend(const SolverConfig& config)
    : config_(config),
      grid_(grid_for(config)),
      cells_(static_cast<size_t>(grid_.cell_count())),
      key_bits_(1),
      stride_(config.max_neighbors) {
  while ((size_t(1) << key_bits_) < cells_) ++key_bits_;
  use_device();
  cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  const char* graphs = std::getenv("PBF_CUDA_GRAPHS");
  graphs_ = !(graphs && std::strcmp(graphs, "0") == 0);
  try {
    cell_count_.reserve(cells_ + 1, 0);
    cell_start_.reserve(cells_ + 1, 0);
    overflows_.reserve(1, 0);
    cuda_check(cudaMallocHost(reinterpret_cast<void**>(&overflow_host_), sizeof(uint32_t)), "cudaMallocHost");
    *overflow_host_ = 0;
    if (config_.method == Method::Projective) {
      pf_state_.reserve(1, 0);
      cuda_check(cudaMemset(pf_state_.data(), 0, sizeof(ProjectiveDeviceState)), "cudaMemset (tally)");
      cuda_check(cudaMallocHost(reinterpret_cast<void**>(&pf_state_host_), sizeof(ProjectiveDeviceState)),
                 "cudaMallocHost");
      *pf_state_host_ = ProjectiveDeviceState{};
    }
  } catch (...) {
    if (overflow_host_) cudaFreeHost(overflow_host_);
    cudaStreamDestroy(stream_);
    throw;
  }
}

CudaBackend::~CudaBackend() {
  cudaSetDevice(config_.device_index);  // no throwing here: errors have nowhere to go
  if (stream_) {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
  for (cudaEvent_t e : phase_events_) cudaEventDestroy(e);
  for (float* p : mapped_host_)
    if (p) cudaFreeHost(p);
  if (overflow_host_) cudaFreeHost(overflow_host_);
  if (pf_state_host_) cudaFreeHost(pf_state_host_);
}

void CudaBackend::use_device() const { cuda_check(cudaSetDevice(config_.device_index), "cudaSetDevice"); }

void CudaBackend::finish(const char* stage) const {
  if (!recording_) cuda_check(cudaStreamSynchronize(stream_), stage);
}

void CudaBackend::reserve(size_t n) {
  const size_t keep = n_;
  for (auto* b : {&x_, &v_, &xp_, &scratch_, &omega_}) b->reserve(n, keep);
  for (auto* b : {&rho_, &lambda_}) b->reserve(n, keep);
  for (auto* b : {&id_, &id_scratch_}) b->reserve(n, keep);
  for (auto* b : {&keys_, &keys_sorted_, &places_, &order_, &nb_count_}) b->reserve(n, 0);
  boundary_near_.reserve(n, 0);  // filled by every neighbour search before it is read
  nb_index_.reserve(n * static_cast<size_t>(stride_), 0);
  const size_t blocks = std::max<size_t>(1, blocks_for(n, kMeasureBlock));
  partials_.reserve(blocks, 0);
  if (host_partials_.size() < blocks) host_partials_.resize(blocks);
  if (config_.method == Method::Projective) {
    for (auto* b : {&pf_s_, &pf_prev_}) b->reserve(n, 0);
    pf_active_.reserve(n, 0);
    pf_touching_.reserve(n, 0);
    pf_disp_.reserve(n * (static_cast<size_t>(stride_) + 1), 0);
    const size_t pf_blocks = std::max<size_t>(1, blocks_for(n));
    pf_partials_.reserve(pf_blocks, 0);
    pf_partial_max_.reserve(pf_blocks, 0);
  }
  // CUB's scratch for the sort of n keys and the scan of the cell counts.
  size_t sort_bytes = 0, scan_bytes = 0;
  cuda_check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys_.data(), keys_sorted_.data(), places_.data(),
                                             order_.data(), static_cast<int>(std::max<size_t>(n, 1)), 0, key_bits_,
                                             stream_),
             "cub::DeviceRadixSort (size query)");
  cuda_check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cell_count_.data(), cell_start_.data(),
                                           static_cast<int>(cells_ + 1), stream_),
             "cub::DeviceScan (size query)");
  cub_temp_.reserve(std::max(sort_bytes, scan_bytes), 0);
}

void CudaBackend::append(const float* positions, const float* velocities, size_t n) {
  if (n == 0) return;
  use_device();
  reserve(n_ + n);
  const size_t at = n_;
  cuda_check(cudaMemcpyAsync(x_.data() + at, positions, n * sizeof(Vec3), cudaMemcpyHostToDevice, stream_),
             "cudaMemcpy (positions)");
  cuda_check(cudaMemcpyAsync(xp_.data() + at, x_.data() + at, n * sizeof(Vec3), cudaMemcpyDeviceToDevice, stream_),
             "cudaMemcpy (predicted positions)");
  if (velocities)
    cuda_check(cudaMemcpyAsync(v_.data() + at, velocities, n * sizeof(Vec3), cudaMemcpyHostToDevice, stream_),
               "cudaMemcpy (velocities)");
  else
    cuda_check(cudaMemsetAsync(v_.data() + at, 0, n * sizeof(Vec3), stream_), "cudaMemset (velocities)");
  cuda_check(cudaMemsetAsync(omega_.data() + at, 0, n * sizeof(Vec3), stream_), "cudaMemset");
  cuda_check(cudaMemsetAsync(rho_.data() + at, 0, n * sizeof(float), stream_), "cudaMemset");
  cuda_check(cudaMemsetAsync(lambda_.data() + at, 0, n * sizeof(float), stream_), "cudaMemset");
  k_iota<<<blocks_for(n), kBlock, 0, stream_>>>(id_.data() + at, static_cast<uint32_t>(at), n);
  check_launch("k_iota");
  finish("append");
  n_ += n;
}

const float* CudaBackend::map(Field field, bool device) {
  use_device();
  const int f = static_cast<int>(field);
  const size_t count = (field == Field::Density ? 1 : 3) * n_;
  if (!device) {
    if (mapped_host_capacity_[f] < count) {
      float* fresh = nullptr;
      cuda_check(cudaMallocHost(reinterpret_cast<void**>(&fresh), count * sizeof(float)), "cudaMallocHost");
      if (mapped_host_[f]) cudaFreeHost(mapped_host_[f]);
      mapped_host_[f] = fresh;
      mapped_host_capacity_[f] = count;
    }
    read(field, mapped_host_[f]);
    return mapped_host_[f];
  }
  mapped_device_[f].reserve(std::max<size_t>(count, 1), 0);
  if (n_ > 0) {
    if (field == Field::Density) {
      k_to_user<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, id_.data(), rho_.data(), mapped_device_[f].data());
    } else {
      const Vec3* from = field == Field::Position ? x_.data() : v_.data();
      k_to_user<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, id_.data(), from,
                                                         reinterpret_cast<Vec3*>(mapped_device_[f].data()));
    }
    check_launch("k_to_user");
    finish("map");
  }
  return mapped_device_[f].data();
}

void CudaBackend::export_state(ParticleState& out) const {
  use_device();
  ParticleState s;
  s.positions.resize(n_);
  s.velocities.resize(n_);
  s.densities.resize(n_);
  s.user_ids.resize(n_);
  if (n_ > 0) {
    const auto down = [&](void* to, const void* from, size_t bytes) {
      cuda_check(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpy (export)");
    };
    down(s.positions.data(), x_.data(), n_ * sizeof(Vec3));
    down(s.velocities.data(), v_.data(), n_ * sizeof(Vec3));
    down(s.densities.data(), rho_.data(), n_ * sizeof(float));
    down(s.user_ids.data(), id_.data(), n_ * sizeof(uint32_t));
    finish("export_state");
  }
  out = std::move(s);
}

void CudaBackend::import_state(const ParticleState& in) {
  use_device();
  const size_t n = in.positions.size();
  reserve(n);
  if (n > 0) {
    const auto up = [&](void* to, const void* from, size_t bytes) {
      cuda_check(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpy (import)");
    };
    up(x_.data(), in.positions.data(), n * sizeof(Vec3));
    up(xp_.data(), in.positions.data(), n * sizeof(Vec3));
    up(v_.data(), in.velocities.data(), n * sizeof(Vec3));
    up(rho_.data(), in.densities.data(), n * sizeof(float));
    up(id_.data(), in.user_ids.data(), n * sizeof(uint32_t));
    cuda_check(cudaMemsetAsync(omega_.data(), 0, n * sizeof(Vec3), stream_), "cudaMemset");
    cuda_check(cudaMemsetAsync(lambda_.data(), 0, n * sizeof(float), stream_), "cudaMemset");
    finish("import_state");
  }
  n_ = n;
}

void CudaBackend::remove(const std::vector<uint8_t>& remove) {
  // Rare and not on the step's path: done on the host, as the CPU backend does it.
  ParticleState s;
  export_state(s);
  std::vector<uint32_t> renumber(remove.size());
  uint32_t next = 0;
  for (size_t u = 0; u < remove.size(); ++u) renumber[u] = remove[u] ? UINT32_MAX : next++;
  size_t kept = 0;
  for (size_t k = 0; k < s.positions.size(); ++k) {
    if (remove[s.user_ids[k]]) continue;
    s.positions[kept] = s.positions[k];
    s.velocities[kept] = s.velocities[k];
    s.densities[kept] = s.densities[k];
    s.user_ids[kept] = renumber[s.user_ids[k]];
    ++kept;
  }
  for (auto* a : {&s.positions, &s.velocities}) a->resize(kept);
  s.densities.resize(kept);
  s.user_ids.resize(kept);
  import_state(s);
}

void CudaBackend::read(Field field, float* out) const {
  if (n_ == 0) return;
  use_device();
  // The user-order copy goes through the scratch buffer, which a step
  // overwrites before it reads it.
  Vec3* staging = scratch_.data();
  if (field == Field::Density) {
    float* user = reinterpret_cast<float*>(staging);
    k_to_user<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, id_.data(), rho_.data(), user);
    check_launch("k_to_user");
    cuda_check(cudaMemcpyAsync(out, user, n_ * sizeof(float), cudaMemcpyDeviceToHost, stream_), "cudaMemcpy");
  } else {
    const Vec3* from = field == Field::Position ? x_.data() : v_.data();
    k_to_user<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, id_.data(), from, staging);
    check_launch("k_to_user");
    cuda_check(cudaMemcpyAsync(out, staging, n_ * sizeof(Vec3), cudaMemcpyDeviceToHost, stream_), "cudaMemcpy");
  }
  finish("read");
}

void CudaBackend::write(Field field, const float* in) {
  if (n_ == 0 || field == Field::Density) return;
  use_device();
  cuda_check(cudaMemcpyAsync(scratch_.data(), in, n_ * sizeof(Vec3), cudaMemcpyHostToDevice, stream_), "cudaMemcpy");
  Vec3* to = field == Field::Position ? x_.data() : v_.data();
  k_from_user<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, id_.data(), scratch_.data(), to);
  check_launch("k_from_user");
  finish("write");
}

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

void CudaBackend::set_boundary_particles(const Vec3* positions, const uint32_t* body, const Vec3* local,
                                         size_t count) {
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
  // Sorted once on the host: a stable counting sort by cell, which gives the CPU backend's order.
  // Every sample in a cell (clamped into the border ones) for the pseudo-mass sums; `set_aside` puts
  // those beyond reach of the domain in the bucket after the last cell, as move_boundary() does.
  auto counting_sort = [&](bool set_aside, std::vector<uint32_t>& start, std::vector<Vec3>& sorted,
                           std::vector<uint32_t>& order) {
    start.assign(cells_ + 2, 0u);
    std::vector<uint32_t> cell(count);
    for (size_t k = 0; k < count; ++k) {
      cell[k] = set_aside ? grid_.bucket_index(positions[k]) : grid_.cell_index(positions[k]);
      ++start[cell[k] + 1];
    }
    for (size_t c = 0; c <= cells_; ++c) start[c + 1] += start[c];
    std::vector<uint32_t> cursor(start.begin(), start.end() - 1);
    sorted.resize(count);
    order.resize(count);  // place -> index given
    for (size_t k = 0; k < count; ++k) {
      const uint32_t place = cursor[cell[k]]++;
      sorted[place] = positions[k];
      order[place] = static_cast<uint32_t>(k);
    }
  };
  std::vector<uint32_t> start, order;
  std::vector<Vec3> sorted;
  counting_sort(false, start, sorted, order);
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
  const BoundarySamples view{grid_, cell_start.data(), x.data(), nullptr, static_cast<uint32_t>(count), nullptr};
  const KernelConstants kernel = KernelConstants::make(config_.kernel_radius);
  const CubicKernel cubic_kernel = CubicKernel::make(config_.kernel_radius);
  const bool projective = config_.method == Method::Projective;
  if (!moving) {
    k_boundary_psi<<<blocks_for(count), kBlock, 0, stream_>>>(count, kernel, cubic_kernel, projective,
                                                              config_.rest_density, view, nullptr, psi.data());
    check_launch("k_boundary_psi");
    DeviceBuffer<uint32_t> to_clamped;
    DeviceBuffer<float> psi_aside;
    if (std::any_of(positions, positions + count, [&](const Vec3& p) { return grid_.beyond_reach(p); })) {
      // The layout the density stages read, with the samples beyond reach set aside: each place's
      // sample and its pseudo-mass from where the clamped sort put it (the copies follow the kernel).
      std::vector<uint32_t> clamped_place(count), start_aside, order_aside;
      std::vector<Vec3> sorted_aside;
      for (size_t k = 0; k < count; ++k) clamped_place[order[k]] = static_cast<uint32_t>(k);
      counting_sort(true, start_aside, sorted_aside, order_aside);
      for (size_t k = 0; k < count; ++k) order_aside[k] = clamped_place[order_aside[k]];
      to_clamped.reserve(count, 0);
      psi_aside.reserve(count, 0);
      cuda_check(cudaMemcpyAsync(to_clamped.data(), order_aside.data(), count * sizeof(uint32_t),
                                 cudaMemcpyHostToDevice, stream_),
                 "cudaMemcpy (boundary order)");
      k_gather<<<blocks_for(count), kBlock, 0, stream_>>>(count, to_clamped.data(), psi.data(), psi_aside.data());
      check_launch("k_gather (boundary)");
      cuda_check(cudaMemcpyAsync(x.data(), sorted_aside.data(), count * sizeof(Vec3), cudaMemcpyHostToDevice,
                                 stream_),
                 "cudaMemcpy (boundary samples)");
      cuda_check(cudaMemcpyAsync(cell_start.data(), start_aside.data(), (cells_ + 1) * sizeof(uint32_t),
                                 cudaMemcpyHostToDevice, stream_),
                 "cudaMemcpy (boundary grid)");
      psi.swap(psi_aside);
    }
    finish("set_boundary_particles");
    boundary_x_.swap(x);
    boundary_start_.swap(cell_start);
    boundary_psi_.swap(psi);
    boundary_n_ = count;
    boundary_moving_ = false;
    return;
  }
  // Some samples move: each body's pseudo-masses from its own samples (the same at every pose), kept in
  // the order given, and the buffers of the per-substep placement and sort.
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
  k_boundary_psi<<<blocks_for(count), kBlock, 0, stream_>>>(count, kernel, cubic_kernel, projective,
                                                            config_.rest_density, view, bodies_sorted.data(),
                                                            psi.data());
  check_launch("k_boundary_psi");
  k_to_user<<<blocks_for(count), kBlock, 0, stream_>>>(count, order_device.data(), psi.data(), psi_given.data());
  check_launch("k_to_user");
  finish("set_boundary_particles");
  boundary_x_.swap(x);
  boundary_start_.swap(cell_start);
  boundary_psi_.swap(psi);
  boundary_n_ = count;
  boundary_body_.swap(bodies);
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
  check_launch("k_gather (boundary)");
}

BoundarySamples CudaBackend::boundary_samples() const {
  if (boundary_n_ == 0) return BoundarySamples{};
  return BoundarySamples{grid_, boundary_start_.data(), boundary_x_.data(), boundary_psi_.data(),
                         static_cast<uint32_t>(boundary_n_), boundary_near_.data()};
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

void CudaBackend::measure(StepStats& stats) const {
  stats.particle_count = static_cast<uint32_t>(n_);
  stats.neighbor_overflows = *overflow_host_;  // the last neighbour search's, waited for by its stage or graph
  if (n_ == 0) {
    stats.avg_density_error = stats.max_density_error = stats.avg_neighbors = stats.max_speed = 0.0f;
    stats.max_neighbors = 0;
    return;
  }
  use_device();
  const unsigned blocks = blocks_for(n_, kMeasureBlock);
  k_measure<<<blocks, kMeasureBlock, 0, stream_>>>(n_, 1.0f / config_.rest_density, rho_.data(), nb_count_.data(),
                                                   v_.data(), partials_.data());
  check_launch("k_measure");
  std::vector<CudaMeasures>& parts = host_partials_;  // sized by reserve(): no allocation here
  cuda_check(cudaMemcpyAsync(parts.data(), partials_.data(), blocks * sizeof(CudaMeasures), cudaMemcpyDeviceToHost,
                             stream_),
             "cudaMemcpy");
  finish("measure");
  CudaMeasures m{0.0, 0.0, 0.0f, 0.0f, 0};
  for (unsigned k = 0; k < blocks; ++k) {
    const CudaMeasures& p = parts[k];
    m.error_sum += p.error_sum;
    m.neighbor_sum += p.neighbor_sum;
    m.error_max = std::max(m.error_max, p.error_max);
    m.speed2_max = std::max(m.speed2_max, p.speed2_max);
    m.neighbor_max = std::max(m.neighbor_max, p.neighbor_max);
  }
  const double count = static_cast<double>(n_);
  stats.avg_density_error = static_cast<float>(m.error_sum / count);
  stats.max_density_error = m.error_max;
  stats.avg_neighbors = static_cast<float>(m.neighbor_sum / count);
  stats.max_neighbors = m.neighbor_max;
  stats.max_speed = std::sqrt(m.speed2_max);
}

}  // namespace pbf
