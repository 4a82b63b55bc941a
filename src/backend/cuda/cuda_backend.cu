// cuda_backend.cu - the CUDA backend's construction and particle store:
// whether a device is usable, the factory, the buffers and their growth
// (reserve() sizes them all, CUB's scratch included), append (removal is
// every backend's Backend::remove), the bulk read, write and map in user
// order, checkpoints (export_state,
// import_state), measure() and the iterations' tally. It runs no stage: the
// stages live beside it, one concern a file (cuda_grid.cu, cuda_boundary.cu,
// cuda_predict.cu) with the recording of a step in cuda_recording.cu, and
// the methods' stages in methods/<method>/cuda/.
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
#include "core/local_frame.h"

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

// One CudaMeasures per block, reduced in a fixed tree order.
__global__ void k_measure(size_t n, float inv_rho0, const float* rho, const uint32_t* nb_count, const Vec3* v,
                          const Vec3* x, CudaMeasures* partials) {
  __shared__ double error_sum[kMeasureBlock];
  __shared__ double neighbor_sum[kMeasureBlock];
  __shared__ float error_max[kMeasureBlock];
  __shared__ float speed2_max[kMeasureBlock];
  __shared__ uint32_t neighbor_max[kMeasureBlock];
  __shared__ Vec3 lower[kMeasureBlock];
  __shared__ Vec3 upper[kMeasureBlock];
  const unsigned t = threadIdx.x;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + t;
  float e = 0.0f, s2 = 0.0f;
  uint32_t count = 0;
  Vec3 lo{HUGE_VALF, HUGE_VALF, HUGE_VALF}, hi{-HUGE_VALF, -HUGE_VALF, -HUGE_VALF};
  if (i < n) {
    e = compression(rho[i], inv_rho0);
    count = nb_count[i];
    s2 = length_squared(v[i]);
    lo = hi = x[i];
  }
  error_sum[t] = e;
  neighbor_sum[t] = count;
  error_max[t] = e;
  speed2_max[t] = s2;
  neighbor_max[t] = count;
  lower[t] = lo;
  upper[t] = hi;
  __syncthreads();
  for (unsigned half = kMeasureBlock / 2; half > 0; half /= 2) {
    if (t < half) {
      error_sum[t] += error_sum[t + half];
      neighbor_sum[t] += neighbor_sum[t + half];
      error_max[t] = fmaxf(error_max[t], error_max[t + half]);
      speed2_max[t] = fmaxf(speed2_max[t], speed2_max[t + half]);
      neighbor_max[t] = max(neighbor_max[t], neighbor_max[t + half]);
      lower[t] = min_each(lower[t], lower[t + half]);
      upper[t] = max_each(upper[t], upper[t + half]);
    }
    __syncthreads();
  }
  if (t == 0)
    partials[blockIdx.x] =
        CudaMeasures{error_sum[0], neighbor_sum[0], error_max[0], speed2_max[0], neighbor_max[0], lower[0], upper[0]};
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
    pushes_.reserve(kMaxObstacles, 0);
    body_yields_.reserve(2 * kMaxObstacles, 0);
    cuda_check(cudaMemset(pushes_.data(), 0, kMaxObstacles * sizeof(ObstaclePush)), "cudaMemset (pushes)");
    iteration_state_.reserve(1, 0);
    cuda_check(cudaMemset(iteration_state_.data(), 0, sizeof(IterationDeviceState)), "cudaMemset (tally)");
    cuda_check(cudaMallocHost(reinterpret_cast<void**>(&iteration_state_host_), sizeof(IterationDeviceState)),
               "cudaMallocHost");
    *iteration_state_host_ = IterationDeviceState{};
  } catch (...) {
    if (overflow_host_) cudaFreeHost(overflow_host_);
    if (iteration_state_host_) cudaFreeHost(iteration_state_host_);
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
  if (iteration_state_host_) cudaFreeHost(iteration_state_host_);
}

void CudaBackend::use_device() const { cuda_check(cudaSetDevice(config_.device_index), "cudaSetDevice"); }

void CudaBackend::finish(const char* stage) const {
  if (!recording_) cuda_check(cudaStreamSynchronize(stream_), stage);
}

void CudaBackend::reserve(size_t n) {
  const size_t keep = n_;
  for (auto* b : {&x_, &v_, &xp_, &scratch_}) b->reserve(n, keep);
  rho_.reserve(n, keep);
  for (auto* b : {&id_, &id_scratch_}) b->reserve(n, keep);
  for (auto* b : {&keys_, &keys_sorted_, &places_, &order_, &nb_count_}) b->reserve(n, 0);
  boundary_near_.reserve(n, 0);  // filled by every neighbour search before it is read
  collided_.reserve(n, 0);       // filled by every stage that collides before it is read
  nb_index_.reserve(n * static_cast<size_t>(stride_), 0);
  const size_t blocks = std::max<size_t>(1, blocks_for(n, kMeasureBlock));
  partials_.reserve(blocks, 0);
  if (host_partials_.size() < blocks) host_partials_.resize(blocks);
  const size_t iteration_blocks = std::max<size_t>(1, blocks_for(n));
  iteration_partials_.reserve(iteration_blocks, 0);
  iteration_partial_max_.reserve(iteration_blocks, 0);
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
  cuda_check(cudaMemsetAsync(rho_.data() + at, 0, n * sizeof(float), stream_), "cudaMemset");
  k_iota<<<blocks_for(n), kBlock, 0, stream_>>>(id_.data() + at, static_cast<uint32_t>(at), n);
  check_launch("k_iota");
  finish("append");
  n_ += n;
}

const float* CudaBackend::map(Field field, bool device, Vec3 offset) {
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
    if (field != Field::Density) LocalFrame{offset}.to_world(mapped_host_[f], n_);
    return mapped_host_[f];
  }
  mapped_device_[f].reserve(std::max<size_t>(count, 1), 0);
  if (n_ > 0) {
    if (field == Field::Density) {
      k_to_user<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, id_.data(), rho_.data(), mapped_device_[f].data());
    } else {
      const Vec3* from = field == Field::Position ? x_.data() : v_.data();
      Vec3* to = reinterpret_cast<Vec3*>(mapped_device_[f].data());
      if (LocalFrame{offset}.is_world())
        k_to_user<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, id_.data(), from, to);
      else
        k_to_user_moved<<<blocks_for(n_), kBlock, 0, stream_>>>(n_, id_.data(), from, offset, to);
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
    finish("import_state");
  }
  n_ = n;
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

void CudaBackend::copy_tally_to_host() {
  cuda_check(cudaMemcpyAsync(iteration_state_host_, iteration_state_.data(), sizeof(IterationDeviceState),
                             cudaMemcpyDeviceToHost, stream_),
             "cudaMemcpy (tally)");
}

IterationTally CudaBackend::iteration_tally() {
  // Copied to host memory by the last substep's update of velocities, which its stage or graph waited for.
  const IterationDeviceState now = *iteration_state_host_;
  *iteration_state_host_ = IterationDeviceState{};
  use_device();
  cuda_check(cudaMemsetAsync(iteration_state_.data(), 0, sizeof(IterationDeviceState), stream_),
             "cudaMemset (tally)");
  IterationTally t;
  t.iterations = now.iterations;
  t.mean_compression = now.mean_compression;
  t.max_compression = now.max_compression;
  return t;
}

void CudaBackend::take_obstacle_pushes(ObstaclePush* out, uint32_t count) {
  if (count > kMaxObstacles) throw Error(Status::Internal, "CUDA backend: more obstacles than it holds");
  for (uint32_t k = 0; k < count; ++k) out[k] = ObstaclePush{};
  if (count == 0) return;
  use_device();
  cuda_check(cudaMemcpyAsync(out, pushes_.data(), count * sizeof(ObstaclePush), cudaMemcpyDeviceToHost, stream_),
             "cudaMemcpy (pushes)");
  cuda_check(cudaMemsetAsync(pushes_.data(), 0, kMaxObstacles * sizeof(ObstaclePush), stream_),
             "cudaMemset (pushes)");
  cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (pushes)");
}

void CudaBackend::measure(StepStats& stats) const {
  stats.particle_count = static_cast<uint32_t>(n_);
  stats.neighbor_overflows = *overflow_host_;  // the last neighbour search's, waited for by its stage or graph
  if (n_ == 0) {
    stats.avg_density_error = stats.max_density_error = stats.avg_neighbors = stats.max_speed = 0.0f;
    stats.max_neighbors = 0;
    stats.lower = stats.upper = Vec3{0.0f, 0.0f, 0.0f};
    return;
  }
  use_device();
  const unsigned blocks = blocks_for(n_, kMeasureBlock);
  k_measure<<<blocks, kMeasureBlock, 0, stream_>>>(n_, 1.0f / config_.rest_density, rho_.data(), nb_count_.data(),
                                                   v_.data(), x_.data(), partials_.data());
  check_launch("k_measure");
  std::vector<CudaMeasures>& parts = host_partials_;  // sized by reserve(): no allocation here
  cuda_check(cudaMemcpyAsync(parts.data(), partials_.data(), blocks * sizeof(CudaMeasures), cudaMemcpyDeviceToHost,
                             stream_),
             "cudaMemcpy");
  finish("measure");
  CudaMeasures m{0.0, 0.0, 0.0f, 0.0f, 0, parts[0].lower, parts[0].upper};
  for (unsigned k = 0; k < blocks; ++k) {
    const CudaMeasures& p = parts[k];
    m.error_sum += p.error_sum;
    m.neighbor_sum += p.neighbor_sum;
    m.error_max = std::max(m.error_max, p.error_max);
    m.speed2_max = std::max(m.speed2_max, p.speed2_max);
    m.neighbor_max = std::max(m.neighbor_max, p.neighbor_max);
    m.lower = min_each(m.lower, p.lower);
    m.upper = max_each(m.upper, p.upper);
  }
  const double count = static_cast<double>(n_);
  stats.avg_density_error = static_cast<float>(m.error_sum / count);
  stats.max_density_error = m.error_max;
  stats.avg_neighbors = static_cast<float>(m.neighbor_sum / count);
  stats.max_neighbors = m.neighbor_max;
  stats.max_speed = std::sqrt(m.speed2_max);
  stats.lower = m.lower;
  stats.upper = m.upper;
}

}  // namespace pbf
