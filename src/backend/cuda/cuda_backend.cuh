// cuda_backend.cuh - the CUDA backend. Particle data lives on one GPU in cell
// order, as arrays of Vec3/float/uint32; `id_` maps each place back to the
// user's index. Every stage is a kernel per particle that calls the same
// functions as the CPU backend (core/motion.h, the methods' equations) and
// writes only its own particle. Sorting by cell is CUB's stable radix sort,
// so the order (and therefore every sum) is the CPU backend's order.
// Included only by .cu files. One class, its methods defined by concern
// across this folder's .cu files: cuda_backend.cu (construction, the particle
// store, measure), cuda_grid.cu, cuda_boundary.cu, cuda_predict.cu and
// cuda_recording.cu. The methods' CUDA stages
// (methods/<method>/cuda/) launch their kernels on the same stream, on the
// buffers the accessors below lend, and keep buffers of their own only for
// what lives within a substep.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/device_buffer.cuh"
#include "boundary/boundary_equations.h"
#include "core/grid_spec.h"
#include "core/neighbor_lists.h"

namespace pbf {

// Per-block partial results of measure(), summed on the host in block order.
struct CudaMeasures {
  double error_sum;
  double neighbor_sum;
  float error_max;
  float speed2_max;
  uint32_t neighbor_max;
  Vec3 lower;  // the block's particles' bounding box
  Vec3 upper;
};

// The methods' iterations on the GPU, so that a substep needs no answer
// from the host (PbfStages::solve_density, ProjectiveStages::local_step):
// whether the substep's iterations have ended, and the tally since it was
// last read.
struct IterationDeviceState {
  uint32_t converged;
  uint32_t iterations;  // PBF: density iterations; Projective Fluids: global steps
  float mean_compression;
  float max_compression;
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(const SolverConfig& config);
  ~CudaBackend() override;

  BackendKind kind() const override { return BackendKind::Cuda; }
  size_t size() const override { return n_; }
  void append(const float* positions, const float* velocities, size_t n) override;
  void read(Field field, float* out) const override;
  void write(Field field, const float* in) override;
  const float* map(Field field, bool device, Vec3 offset) override;
  void export_state(ParticleState& out) const override;
  void import_state(const ParticleState& in) override;
  void set_obstacle_fields(const SdfGridView* fields, uint32_t count) override;
  void set_obstacle_friction(const float* friction, uint32_t count) override;
  void set_boundary_particles(const Vec3* positions, const uint32_t* body, const Vec3* local, size_t count,
                              DensityKernel kernel) override;

  void predict(const StepContext& ctx) override;
  void build_grid(const StepContext& ctx) override;
  void find_neighbors(const StepContext& ctx) override;
  void measure(StepStats& stats) const override;
  IterationTally iteration_tally() override;
  void take_obstacle_pushes(ObstaclePush* out, uint32_t count) override;
  void follow_obstacles(const StepContext& ctx) override;
  void relieve_collisions(const StepContext& ctx, const BodyYield* before, const BodyYield* moved) override;

  // Records a step by stream capture and runs it as one CUDA graph
  // (updated in place from step to step while its shape stays the same).
  bool begin_recording(const StepContext& ctx, const ObstaclePose* poses, uint32_t substeps) override;
  bool run_recording(StepStats& timing) override;
  void abandon_recording() noexcept override;

  // --- what the methods' CUDA stages work on; every buffer in cell order ---
  const SolverConfig& config() const { return config_; }
  cudaStream_t stream() const { return stream_; }
  // Makes the solver's device current (before any CUDA call of a stage).
  void use_device() const;
  // Called as a stage starts: while recording, marks where the phase
  // `phase` (a StepStats time) begins if the previous stage's was another.
  void begin_stage(double StepStats::*phase);
  // Called as a stage ends: waits for the stream; a failed kernel surfaces
  // here as an Error. While a step is being recorded nothing has run, and
  // there is nothing to wait for.
  void finish(const char* stage) const;
  // Positions x, velocities v, predicted positions x* and densities, size()
  // each; scratch() is size() spare vectors that a stage may fill and swap
  // with x* or v (a recording restores such swaps when it is dropped).
  DeviceBuffer<Vec3>& positions() { return x_; }
  DeviceBuffer<Vec3>& velocities() { return v_; }
  DeviceBuffer<Vec3>& predicted_positions() { return xp_; }
  DeviceBuffer<Vec3>& scratch() { return scratch_; }
  // Per particle, the obstacle of its collision record (core/obstacle.h), whose push a stage that collides
  // keeps in the buffer that scratch() holds after the stage.
  DeviceBuffer<uint8_t>& collided() { return collided_; }
  // A round of the dynamic bodies' yield on the GPU for a relief kernel: `before`, then `moved` (count each),
  // at the returned place and kMaxObstacles after it (enqueued on the stream).
  const BodyYield* upload_body_yields(const BodyYield* before, const BodyYield* moved, uint32_t count);
  DeviceBuffer<float>& densities() { return rho_; }
  NeighborLists neighbor_lists() const;
  // The boundary samples on the GPU (count 0 when there are none).
  BoundarySamples boundary_samples() const;
  // Uploads the obstacles of the substep `ctx` describes; returns them on the GPU.
  const Obstacle* obstacles_for(const StepContext& ctx);
  // The iterations' state on the GPU (predict() opens a substep's
  // iterations), and room for one partial sum and maximum of an iteration's
  // compression per block of kBlock particles (cuda_launch.cuh's block_reduce
  // and k_iteration_gate).
  IterationDeviceState* iteration_state() { return iteration_state_.data(); }
  double* iteration_partials() { return iteration_partials_.data(); }
  float* iteration_partial_max() { return iteration_partial_max_.data(); }
  // The obstacles' pushes on the GPU (CudaPushSink), one sum per obstacle,
  // for a step whose context names obstacles; null otherwise.
  ObstaclePush* obstacle_push_sums(const StepContext& ctx) {
    return ctx.obstacle_count > 0 ? pushes_.data() : nullptr;
  }
  // Enqueues the copy of the iterations' tally to host memory (a node of the
  // graph when recorded), for iteration_tally(); the methods' last stage of a
  // substep calls it.
  void copy_tally_to_host();

 private:
  // Puts the buffers that stages swap back where they were when the recording began.
  void restore_swapped_buffers() noexcept;
  // Ends the capture of a recording that will not run; later steps run stage by stage.
  void drop_recording() noexcept;
  // Room for n particles in every buffer; on failure nothing has changed.
  void reserve(size_t n);
  // Copies the obstacles to the GPU with `substeps` sets of poses (substep after substep) from `poses`.
  void upload_obstacles(const ObstaclePose* poses, uint32_t substeps);

  SolverConfig config_;
  GridSpec grid_;
  size_t cells_;
  int key_bits_;
  uint32_t stride_;
  size_t n_ = 0;
  cudaStream_t stream_ = nullptr;

  DeviceBuffer<Vec3> x_, v_, xp_, scratch_;
  DeviceBuffer<float> rho_;
  DeviceBuffer<uint32_t> id_, id_scratch_;
  DeviceBuffer<uint32_t> keys_, keys_sorted_, places_, order_;
  DeviceBuffer<uint32_t> cell_count_, cell_start_;  // cells_ + 1 entries each
  DeviceBuffer<uint32_t> nb_index_, nb_count_;     // slot-major lists (NeighborLists)
  size_t nb_n_ = 0;                                // the particles they were found for: their slot step
  DeviceBuffer<uint32_t> overflows_;               // one counter
  uint32_t* overflow_host_ = nullptr;              // its page-locked host copy
  DeviceBuffer<CudaMeasures> partials_;            // one per block of measure()
  DeviceBuffer<unsigned char> cub_temp_;
  mutable std::vector<CudaMeasures> host_partials_;
  // User-order copies lent by map(), by Field: on the GPU, and in page-locked host memory.
  DeviceBuffer<float> mapped_device_[3];
  float* mapped_host_[3] = {nullptr, nullptr, nullptr};
  size_t mapped_host_capacity_[3] = {0, 0, 0};
  // Obstacle fields on the GPU, views of them (host), and the views with a step's poses (host, then GPU).
  std::vector<std::unique_ptr<DeviceBuffer<float>>> fields_;
  std::vector<Obstacle> obstacles_;
  std::vector<Obstacle> staged_obstacles_;  // obstacles_ with the poses of upload_obstacles()
  DeviceBuffer<Obstacle> obstacles_device_;
  // Boundary samples in cell order of grid_, where each cell's samples start, and their pseudo-masses.
  DeviceBuffer<Vec3> boundary_x_;
  DeviceBuffer<uint32_t> boundary_start_;  // cells_ + 1 entries
  DeviceBuffer<float> boundary_psi_;
  DeviceBuffer<uint8_t> boundary_near_;    // per particle: boundary_near_mark() at the neighbour search
  DeviceBuffer<uint8_t> collided_;         // per particle: collided()
  DeviceBuffer<BodyYield> body_yields_;    // upload_body_yields(): before, then moved, kMaxObstacles each
  size_t boundary_n_ = 0;
  // Only when some samples move with obstacles (empty otherwise), in the order given: each sample's
  // body, its position in its body's frame (world for static ones), its pseudo-mass; and the scratch
  // of the per-substep sort (world positions, cell keys, CUB's radix sort and scan).
  bool boundary_moving_ = false;
  uint32_t boundary_max_body_ = 0;  // the largest obstacle index a sample moves with
  DeviceBuffer<uint32_t> boundary_body_;
  DeviceBuffer<uint32_t> boundary_body_sorted_;  // each sample's body in cell order (boundary_x_'s)
  DeviceBuffer<Vec3> boundary_local_, boundary_world_;
  DeviceBuffer<float> boundary_psi_given_;
  DeviceBuffer<uint32_t> boundary_keys_, boundary_keys_sorted_, boundary_places_, boundary_order_;
  DeviceBuffer<uint32_t> boundary_cell_count_;  // cells_ + 1 entries
  DeviceBuffer<unsigned char> boundary_temp_;
  // Places the samples that move with obstacles at the substep's end poses and sorts the set again.
  void move_boundary(const StepContext& ctx);
  // Recorded steps: whether steps are recorded (PBF_CUDA_GRAPHS=0 or a
  // failed recording turns it off), the recording under way, its obstacles
  // on the GPU (obstacles_device_ holds substep after substep), the graph
  // that runs it, and the events that mark where its phases begin (a
  // timing per mark, the last mark being the end).
  bool graphs_ = true;
  bool recording_ = false;
  const ObstaclePose* recorded_poses_ = nullptr;
  uint32_t recorded_substeps_ = 0;
  cudaGraphExec_t graph_exec_ = nullptr;
  std::vector<const void*> graph_shape_;  // graph_shape() of the graph graph_exec_ was made from
  std::vector<cudaEvent_t> phase_events_;
  std::vector<double StepStats::*> phase_of_mark_;
  size_t marks_ = 0;
  Vec3* swapped_vec3_[4] = {nullptr, nullptr, nullptr, nullptr};  // x_, v_, xp_, scratch_
  uint32_t* swapped_id_[2] = {nullptr, nullptr};                   // id_, id_scratch_
  // The methods' iterations: the per-block partial sums and maxima of the compression
  // an iteration measures (kBlock particles a block), and the iterations'
  // state on the GPU with its page-locked host copy.
  DeviceBuffer<double> iteration_partials_;
  DeviceBuffer<float> iteration_partial_max_;
  DeviceBuffer<IterationDeviceState> iteration_state_;
  IterationDeviceState* iteration_state_host_ = nullptr;
  // The obstacles' pushes since take_obstacle_pushes(), kMaxObstacles sums.
  DeviceBuffer<ObstaclePush> pushes_;
};

}  // namespace pbf
