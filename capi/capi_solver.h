// capi_solver.h - the C handle of a solver and the checks that the C API's
// files share (pbf_capi.cpp defines them).
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "capi/capi_guard.h"
#include "pbf/pbf.h"
#include "solver/solver.h"

struct pbf_solver {
  explicit pbf_solver(const pbf::SolverConfig& config) : impl(config) {}
  ~pbf_solver() {
    if (worker.joinable()) worker.join();
  }
  pbf::Solver impl;

  // An asynchronous step: started by pbf_solver_step_async(), collected by
  // pbf_solver_wait(). While `started`, only the worker touches `impl`.
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  std::thread worker;
  pbf_status async_status = PBF_OK;
  std::string async_message;

  // Fields lent by pbf_solver_map(), indexed by pbf_field.
  bool mapped[3] = {false, false, false};
};

namespace pbf::capi {

// Every call but pbf_solver_wait(), pbf_solver_poll() and pbf_solver_destroy()
// is refused while an asynchronous step has not been collected.
void require_idle(const pbf_solver* solver);

// `index` names one of the solver's obstacles.
void require_obstacle_index(const pbf_solver* solver, uint32_t index);

// Room for n more boundary particles below PBF_MAX_BOUNDARY_PARTICLES;
// `adding` begins the message ("count: 12 boundary particles").
void require_boundary_room(const pbf_solver* solver, size_t n, const std::string& adding);

// Calls that change particles are refused while a field is lent out.
void require_unmapped(const pbf_solver* solver);

void require_vec3_finite(const float v[3], const std::string& name);

// Checks a rotation (a quaternion x, y, z, w; the solver normalises it) and
// a translation into q and t; a NULL one leaves q or t as they are.
void read_pose(const float rotation[4], const float translation[3], float q[4], Vec3& t);

}  // namespace pbf::capi
