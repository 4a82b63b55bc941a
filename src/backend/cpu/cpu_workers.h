// cpu_workers.h - the lifetime of oneTBB's worker threads.
//
// oneTBB starts its worker threads on first use and, left alone, keeps them
// until the process ends. Hosts that unload native code at exit (mono, Unity)
// then unmap the library under threads that are still running, and the
// process dies with SIGSEGV after its Main has returned. So the library
// counts the CPU solvers alive in the process and, when the last one is
// destroyed, terminates oneTBB's workers and waits until they have exited.
// The next solver starts them again.
#pragma once

namespace pbf {

// Held by every CPU solver for its whole lifetime: it must be acquired before
// the solver's task arena is first used and released after the arena is gone.
// Releasing the last lease in the process terminates oneTBB's worker threads
// and waits for them (a few milliseconds); see cpu_workers.cpp for when that
// cannot be done at once.
class CpuWorkerLease {
 public:
  CpuWorkerLease();
  ~CpuWorkerLease();
  CpuWorkerLease(const CpuWorkerLease&) = delete;
  CpuWorkerLease& operator=(const CpuWorkerLease&) = delete;
};

// The number of CPU solvers alive in the process.
int cpu_live_solvers();

// True while oneTBB's worker threads may still be running after the last CPU
// solver was destroyed (their termination failed and awaits a retry).
bool cpu_workers_pending();

}  // namespace pbf
