// cpu_workers.cpp - counts the live CPU solvers and terminates oneTBB's
// worker threads when the last one goes (see cpu_workers.h for why).
//
// oneTBB (2021.x) terminates its workers through a task_scheduler_handle:
// tbb::finalize() joins every worker, provided no task arena and no other
// thread still uses the scheduler. A CPU solver's arena is gone by the time
// its lease is released, and finalize() itself releases the calling thread's
// own scheduler state. One case is left: when a solver was stepped on one
// thread and the last solver is destroyed on another (a garbage collector's
// finalizer thread, say), the stepping thread still holds its scheduler state
// until it exits, and finalize() refuses without waiting. The termination is
// then retried when the next last solver goes, and when the library is
// unloaded or the process exits.
#include "backend/cpu/cpu_workers.h"

#include <tbb/global_control.h>

#include <mutex>
#include <new>

namespace pbf {

namespace {

// The one process-wide state of the library: oneTBB's thread pool is itself
// global to the process, so its owners must be counted process-wide.
class WorkerRegistry {
 public:
  WorkerRegistry() = default;
  WorkerRegistry(const WorkerRegistry&) = delete;
  WorkerRegistry& operator=(const WorkerRegistry&) = delete;

  // Runs when the library is unloaded or the process exits. With solvers
  // still alive their arenas may be in use on other threads: leave them be.
  ~WorkerRegistry() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (live_ == 0 && pending_) terminate_locked();
  }

  void acquire() {
    std::lock_guard<std::mutex> lock(mutex_);
    // Held from before the first arena is used, as oneTBB documents for the handle.
    if (live_++ == 0 && !handle_) handle_ = tbb::task_scheduler_handle(tbb::attach{});
    pending_ = true;
  }

  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--live_ == 0) terminate_locked();
  }

  int live() {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_;
  }

  bool pending() {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_ == 0 && pending_;
  }

 private:
  // Joins every worker thread; false (and the workers keep running) when
  // another thread still uses the scheduler. finalize() empties the handle
  // either way. Holding the mutex keeps a new solver from starting workers
  // while the old ones are being joined.
  void terminate_locked() {
    if (!handle_) handle_ = tbb::task_scheduler_handle(tbb::attach{});
    pending_ = !tbb::finalize(handle_, std::nothrow);
  }

  std::mutex mutex_;
  int live_ = 0;
  bool pending_ = false;  // workers may be running although no solver is alive
  tbb::task_scheduler_handle handle_;
};

WorkerRegistry registry;

}  // namespace

CpuWorkerLease::CpuWorkerLease() { registry.acquire(); }

CpuWorkerLease::~CpuWorkerLease() { registry.release(); }

int cpu_live_solvers() { return registry.live(); }

bool cpu_workers_pending() { return registry.pending(); }

}  // namespace pbf
