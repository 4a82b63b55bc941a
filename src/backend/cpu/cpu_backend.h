// cpu_backend.h - the oneTBB backend. Particle data lives in cell order in
// structure-of-arrays form; `id_` maps each place back to the user's index.
// Every stage is a parallel loop over particles that writes only its own
// particle, inside the solver's own task arena.
#pragma once

#include <tbb/task_arena.h>

#include <memory>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/cpu_neighbor_grid.h"
#include "backend/cpu/cpu_workers.h"

namespace pbf {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const SolverConfig& config);

  BackendKind kind() const override { return BackendKind::Cpu; }
  size_t size() const override { return x_.size(); }
  void append(const float* positions, const float* velocities, size_t n) override;
  void remove(const std::vector<uint8_t>& remove) override;
  void read(Field field, float* out) const override;
  void write(Field field, const float* in) override;
  const float* map(Field field, bool device) override;
  void export_state(ParticleState& out) const override;
  void import_state(const ParticleState& in) override;
  void set_obstacle_fields(const SdfGridView* fields, uint32_t count) override;
  void set_boundary_particles(const Vec3* positions, const uint32_t* body, const Vec3* local,
                              size_t count) override;

  void predict(const StepContext& ctx) override;
  void build_grid(const StepContext& ctx) override;
  void find_neighbors(const StepContext& ctx) override;
  void solve_density(const StepContext& ctx, float tolerance) override;
  void update_velocities(const StepContext& ctx) override;
  void apply_vorticity_viscosity(const StepContext& ctx) override;
  void measure(StepStats& stats) const override;
  IterationTally iteration_tally() override;

  void projective_begin(const StepContext& ctx) override;
  void projective_local_step(const StepContext& ctx, float tolerance) override;
  void projective_global_step(const StepContext& ctx, float omega) override;
  void projective_update_velocities(const StepContext& ctx) override;

  // Internal state in cell order, for tests of single stages.
  const std::vector<Vec3>& predicted_positions() const { return xp_; }
  const std::vector<float>& lambdas() const { return lambda_; }
  const std::vector<float>& densities() const { return rho_; }
  const std::vector<uint32_t>& user_ids() const { return id_; }
  NeighborLists neighbor_lists() const { return NeighborLists{nb_index_.data(), nb_count_.data(), stride_}; }
  // The boundary samples in cell order, with their pseudo-masses (count 0 when there are none).
  BoundarySamples boundary_samples() const;
  // Projective Fluids: the inertial target, constraint displacements and active flags, in cell order.
  const std::vector<Vec3>& projective_target() const { return pf_s_; }
  const std::vector<Vec3>& projective_displacements() const { return pf_disp_; }
  const std::vector<uint8_t>& projective_active() const { return pf_active_; }

 private:
  template <class Body>
  void for_each_particle(Body&& body) const;
  // sum_i term(i) in double over fixed blocks joined in a fixed order: the
  // same result for any thread count.
  template <class Term>
  double deterministic_sum(Term&& term) const;
  // The obstacles of the substep `ctx` describes, in obstacles_.
  const Obstacle* obstacles_for(const StepContext& ctx);
  void resize(size_t n);

  SolverConfig config_;
  uint32_t stride_;
  CpuWorkerLease workers_;  // before arena_: outlives it, so the last solver can stop the workers
  mutable tbb::task_arena arena_;
  CpuNeighborGrid grid_;
  uint32_t overflows_ = 0;

  std::vector<Vec3> x_, v_, xp_;        // positions, velocities, predicted positions
  std::vector<Vec3> scratch_a_, scratch_b_;  // double buffers (Jacobi updates, reordering)
  std::vector<Vec3> omega_;             // vorticity
  std::vector<float> rho_, lambda_;
  std::vector<uint32_t> id_;            // place -> user index
  std::vector<uint32_t> order_, id_scratch_;
  std::vector<uint32_t> nb_index_, nb_count_;
  std::vector<float> mapped_[3];        // user-order copies lent by map(), by Field
  std::vector<std::vector<float>> field_values_;  // obstacle fields' samples
  std::vector<Obstacle> obstacles_;     // views of them with this substep's poses
  // Boundary samples: their own grid (built when they change), positions in its cell order, pseudo-masses.
  std::unique_ptr<CpuNeighborGrid> boundary_grid_;
  std::vector<Vec3> boundary_x_;
  std::vector<float> boundary_psi_;
  std::vector<uint8_t> boundary_near_;  // per particle: a sample within reach at the neighbour search
  // Only when some samples move with obstacles (empty otherwise), in the order given: each sample's body,
  // its position in its body's frame (world for static ones), its pseudo-mass; and the scratch of the
  // per-substep sort (world positions, cell order).
  std::vector<uint32_t> boundary_body_;
  std::vector<Vec3> boundary_local_, boundary_world_;
  std::vector<float> boundary_psi_given_;
  std::vector<uint32_t> boundary_order_;
  uint32_t boundary_max_body_ = 0;  // the largest obstacle index a sample moves with
  // Places the samples that move with obstacles at the substep's end poses and sorts the set again.
  void move_boundary(const StepContext& ctx);

  // Projective Fluids only (empty for PBF): inertial target s, previous
  // iterate (Chebyshev), each constraint's compression and displacements
  // (max_neighbors + 1 slots per constraint), and per neighbour slot the
  // particle's place in that neighbour's list (fill_back_slots(), once per
  // step).
  std::vector<Vec3> pf_s_, pf_prev_, pf_disp_;
  std::vector<uint32_t> pf_back_;
  std::vector<float> pf_compression_;
  std::vector<uint8_t> pf_active_;
  std::vector<uint8_t> pf_touching_;  // per particle: rests on a plane (projective_equations.h)

  // Both methods: whether the substep's iterations have converged, and what they did since the last tally.
  bool converged_ = false;
  IterationTally tally_;
};

}  // namespace pbf
