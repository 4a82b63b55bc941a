// cuda_recording.cu - recorded PBF steps: begin_recording() captures the
// stages' work on the stream, run_recording() runs it as one CUDA graph
// (updated in place while its shape stays the same) and reads the events that
// time its phases, abandon_recording() drops a capture that will not run.
// Stages swap buffers while they are captured without anything running, so a
// dropped capture puts x_, v_, xp_, scratch_, id_ and id_scratch_ back where
// they were (restore_swapped_buffers()). Touches the recording state and those
// swaps only; launches no kernel of its own.
#include "backend/cuda/cuda_backend.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pbf {

namespace {

// What cudaGraphExecUpdate() needs unchanged, as far as it can be read
// cheaply: the graph's node types and its kernel nodes' functions, sorted (a
// captured stream is a chain, so nodes in the same order make the same
// edges). A step whose shape differs from the last (another substep count,
// particles added, a sort that takes another path) is instantiated anew
// instead of calling an update that would fail: a failed call is an API
// error to compute-sanitizer and to anything watching the CUDA errors.
std::vector<const void*> graph_shape(cudaGraph_t graph) {
  std::vector<const void*> shape;
  size_t count = 0;
  if (cudaGraphGetNodes(graph, nullptr, &count) != cudaSuccess) {
    cudaGetLastError();
    return shape;
  }
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0 && cudaGraphGetNodes(graph, nodes.data(), &count) != cudaSuccess) {
    cudaGetLastError();
    return shape;
  }
  shape.reserve(count);
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
    if (cudaGraphNodeGetType(node, &type) != cudaSuccess) cudaGetLastError();
    const void* what = reinterpret_cast<const void*>(static_cast<uintptr_t>(type) + 1);  // never a function
    cudaKernelNodeParams params{};
    if (type == cudaGraphNodeTypeKernel) {
      if (cudaGraphKernelNodeGetParams(node, &params) == cudaSuccess) what = params.func;
      else cudaGetLastError();
    }
    shape.push_back(what);
  }
  std::sort(shape.begin(), shape.end());
  return shape;
}

}  // namespace

bool CudaBackend::begin_recording(const StepContext& ctx, const ObstaclePose* poses, uint32_t substeps) {
  if (!graphs_ || n_ == 0 || substeps == 0) return false;
  use_device();
  // A mark where each phase of each substep begins, and one at the end.
  const size_t marks = static_cast<size_t>(substeps) * 6 + 1;
  phase_events_.reserve(marks);
  while (phase_events_.size() < marks) {
    cudaEvent_t e = nullptr;
    cuda_check(cudaEventCreate(&e), "cudaEventCreate");
    phase_events_.push_back(e);
  }
  if (phase_of_mark_.size() < marks) phase_of_mark_.resize(marks);
  // Every substep's obstacles go to the GPU ahead of the graph, in stream order.
  if (ctx.obstacle_count != obstacles_.size())
    throw Error(Status::Internal, "CUDA backend: a step names another number of obstacles than it holds");
  upload_obstacles(poses, substeps);
  DeviceBuffer<Vec3>* vec3[4] = {&x_, &v_, &xp_, &scratch_};
  for (int k = 0; k < 4; ++k) swapped_vec3_[k] = vec3[k]->data();
  swapped_id_[0] = id_.data();
  swapped_id_[1] = id_scratch_.data();
  // Relaxed: other threads' solvers may allocate or synchronise while this one records.
  if (cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
    cudaGetLastError();
    graphs_ = false;
    return false;
  }
  recording_ = true;
  recorded_poses_ = poses;
  recorded_substeps_ = substeps;
  marks_ = 0;
  return true;
}

void CudaBackend::begin_stage(double StepStats::*phase) {
  if (!recording_ || marks_ + 1 >= phase_events_.size()) return;  // the last event is the end's
  if (marks_ > 0 && phase_of_mark_[marks_ - 1] == phase) return;
  // External: a node of the graph that records the event when it runs (a plain record would only order the capture).
  cuda_check(cudaEventRecordWithFlags(phase_events_[marks_], stream_, cudaEventRecordExternal), "cudaEventRecord");
  phase_of_mark_[marks_++] = phase;
}

void CudaBackend::restore_swapped_buffers() noexcept {
  DeviceBuffer<Vec3>* vec3[4] = {&x_, &v_, &xp_, &scratch_};
  for (int k = 0; k < 4; ++k)
    for (int j = k; j < 4; ++j)
      if (vec3[j]->data() == swapped_vec3_[k]) vec3[k]->swap(*vec3[j]);
  if (id_.data() != swapped_id_[0]) id_.swap(id_scratch_);
}

void CudaBackend::drop_recording() noexcept {
  if (recording_) {
    cudaGraph_t graph = nullptr;
    cudaStreamEndCapture(stream_, &graph);
    if (graph) cudaGraphDestroy(graph);
    recording_ = false;
  }
  cudaGetLastError();  // the capture's error is not the next call's
  restore_swapped_buffers();
  graphs_ = false;
}

void CudaBackend::abandon_recording() noexcept { drop_recording(); }

bool CudaBackend::run_recording(StepStats& timing) {
  if (!recording_) return false;
  use_device();
  const size_t end_mark = marks_;
  if (cudaEventRecordWithFlags(phase_events_[end_mark], stream_, cudaEventRecordExternal) != cudaSuccess) {
    drop_recording();
    return false;
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t captured = cudaStreamEndCapture(stream_, &graph);
  recording_ = false;
  if (captured != cudaSuccess || graph == nullptr) {
    if (graph) cudaGraphDestroy(graph);
    drop_recording();
    return false;
  }
  // The same kernels in the same order as the last step: update the graph in place (new pointers,
  // particle counts and constants); anything else: instantiate it anew.
  bool ready = false;
  std::vector<const void*> shape = graph_shape(graph);
  if (graph_exec_ && shape != graph_shape_) {
    cudaGraphExecDestroy(graph_exec_);
    graph_exec_ = nullptr;
  }
  if (graph_exec_) {
#if CUDART_VERSION >= 12000
    cudaGraphExecUpdateResultInfo info{};
    ready = cudaGraphExecUpdate(graph_exec_, graph, &info) == cudaSuccess;
#else
    cudaGraphNode_t node = nullptr;
    cudaGraphExecUpdateResult result{};
    ready = cudaGraphExecUpdate(graph_exec_, graph, &node, &result) == cudaSuccess;
#endif
    if (!ready) {
      cudaGetLastError();
      cudaGraphExecDestroy(graph_exec_);
      graph_exec_ = nullptr;
    }
  }
  if (!ready) {
#if CUDART_VERSION >= 12000
    const cudaError_t made = cudaGraphInstantiate(&graph_exec_, graph, 0);
#else
    const cudaError_t made = cudaGraphInstantiate(&graph_exec_, graph, nullptr, nullptr, 0);
#endif
    if (made != cudaSuccess) graph_exec_ = nullptr;
  }
  graph_shape_ = std::move(shape);
  cudaGraphDestroy(graph);
  if (graph_exec_ == nullptr || cudaGraphLaunch(graph_exec_, stream_) != cudaSuccess) {
    drop_recording();  // nothing has run
    return false;
  }
  finish("step (CUDA graph)");
  for (size_t m = 0; m < end_mark; ++m) {
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, phase_events_[m], phase_events_[m + 1]) == cudaSuccess)
      timing.*phase_of_mark_[m] += ms;
    else
      cudaGetLastError();
  }
  return true;
}

}  // namespace pbf
