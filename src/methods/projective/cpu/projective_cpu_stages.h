// projective_cpu_stages.h - Projective Fluids' stages on the CPU backend:
// each a parallel loop over the device's particles (cell order) that writes
// only its own particle or its own constraint's slots. Keeps the per-substep
// arrays of its own (inertial target, previous iterate, displacements).
#pragma once

#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/lane_targets.h"
#include "methods/projective/cpu/projective_cpu_lane_passes.h"
#include "methods/projective/projective_stages.h"

namespace pbf {

class ProjectiveCpuStages final : public ProjectiveStages {
 public:
  // `lanes`: the instruction set of the local step's lane loops (a test may
  // choose one; every copy gives the same bits).
  // Throws where the device's lists hold more than 1024 neighbours (the C
  // API's largest max_neighbors): the local step projects a constraint
  // into a buffer of that many on the stack.
  explicit ProjectiveCpuStages(CpuBackend& device, LaneTarget lanes = best_lane_target());

  void reserve(size_t n) override;
  void begin(const StepContext& ctx, const ProjectiveConstants& c) override;
  void local_step(const StepContext& ctx, const ProjectiveConstants& c, float tolerance) override;
  void global_step(const StepContext& ctx, const ProjectiveConstants& c, float omega) override;
  void relieve_body_yields(const StepContext& ctx, const ProjectiveConstants& c, const BodyYield* before,
                           const BodyYield* moved) override;
  void update_velocities(const StepContext& ctx, const ProjectiveConstants& c) override;

  // The inertial target, the constraints' displacements as their members
  // receive them (receive_displacements()), each particle's places in its
  // neighbours' lists (fill_back_slots()) and the active flags, in cell
  // order (for tests).
  const std::vector<Vec3>& target() const { return s_; }
  const std::vector<Vec3>& displacements() const { return disp_; }
  const std::vector<uint32_t>& back_slots() const { return back_; }
  const std::vector<uint8_t>& active() const { return active_; }

 private:
  // Sizes the stages' arrays to the device's particles (no allocation after reserve()).
  void fit();

  CpuBackend& device_;
  const ProjectiveLanePasses lanes_;  // the local step, for this processor
  // Inertial target s, the iterate and the previous one (Chebyshev) as
  // displacements from s (global_step_particle()), each constraint's
  // compression, the displacements by the particle that receives them
  // (max_neighbors + 1 slots per particle: receive_displacements()), and
  // per neighbour slot the particle's place in that neighbour's list
  // (fill_back_slots(), once per substep).
  std::vector<Vec3> s_, offset_, prev_, disp_;
  std::vector<uint32_t> back_;
  std::vector<float> compression_;
  std::vector<float> step_sum_;  // per constraint: Projection::step_sum (the obstacles' pushes)
  std::vector<uint8_t> active_;
  std::vector<uint8_t> touching_;  // per particle: rests on a plane (projective_equations.h)
  float omega_ = 1.0f;             // the last global step's Chebyshev weight (its pushes')
};

}  // namespace pbf
