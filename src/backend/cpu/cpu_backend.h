// cpu_backend.h - the oneTBB backend. Particle data lives in cell order in
// structure-of-arrays form; `id_` maps each place back to the user's index.
// Every stage is a parallel loop over particles that writes only its own
// particle, inside the solver's own task arena. The methods' CPU stages
// (methods/<method>/cpu/) work on the same arrays through the accessors below,
// and keep arrays of their own only for what lives within a substep.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/cpu_neighbor_grid.h"
#include "backend/cpu/cpu_workers.h"
#include "backend/cpu/lane_vector.h"
#include "boundary/boundary_equations.h"
#include "core/error.h"
#include "core/neighbor_lists.h"

namespace pbf {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const SolverConfig& config);

  BackendKind kind() const override { return BackendKind::Cpu; }
  size_t size() const override { return x_.size(); }
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

  // --- what the methods' CPU stages work on; every array in cell order ---
  const SolverConfig& config() const { return config_; }
  // Positions x, velocities v, predicted positions x* and densities, n each;
  // scratch() is n spare vectors that a stage may fill and swap with x* or v;
  // what it holds does not last past the stage (build_grid() reorders through it).
  LaneVector<Vec3>& positions() { return x_; }
  LaneVector<Vec3>& velocities() { return v_; }
  LaneVector<Vec3>& predicted_positions() { return xp_; }
  LaneVector<Vec3>& scratch() { return scratch_; }
  // Per particle, the obstacle of its collision record (core/obstacle.h), whose push a stage that collides
  // keeps in the array that scratch() holds after the stage.
  std::vector<uint8_t>& collided() { return collided_; }
  std::vector<float>& densities() { return rho_; }
  const LaneVector<Vec3>& predicted_positions() const { return xp_; }
  const std::vector<float>& densities() const { return rho_; }
  const std::vector<uint32_t>& user_ids() const { return id_; }
  NeighborLists neighbor_lists() const {
    return NeighborLists::particle_major_split(nb_index_.data(), nb_count_.data(), stride_, head_, x_.size());
  }
  // The boundary samples in cell order, with their pseudo-masses (count 0 when there are none).
  BoundarySamples boundary_samples() const;
  // The obstacles with the poses of the substep `ctx` describes.
  const Obstacle* obstacles_for(const StepContext& ctx);
  // Whether the substep's iterations have converged (predict() opens them
  // again) and what they did since the last iteration_tally().
  struct Iterations {
    bool converged = false;
    IterationTally tally;
  };
  Iterations& iterations() { return iterations_; }

  // body(i) for every particle i in parallel, inside the solver's arena.
  template <class Body>
  void for_each_particle(Body&& body) const {
    const size_t n = x_.size();
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 256), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i < r.end(); ++i) body(static_cast<uint32_t>(i));
      });
    });
  }
  // The longest run of particles that for_each_run() hands its body.
  static constexpr uint32_t kRun = 64;
  // body(begin, end) for runs of at most kRun consecutive particles that
  // together hold every particle once, in parallel, inside the solver's
  // arena: for stages that work on a run at a time (the lane passes).
  template <class Body>
  void for_each_run(Body&& body) const {
    const size_t n = x_.size();
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 256), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t b = r.begin(); b < r.end(); b += kRun)
          body(static_cast<uint32_t>(b), static_cast<uint32_t>(std::min(r.end(), b + kRun)));
      });
    });
  }
  // The sink of the obstacles' pushes (core/obstacle.h) of one block of
  // particles: each block sums its own, in particle order, so the sums do
  // not depend on how the blocks are shared among threads.
  struct PushSink {
    static constexpr bool kActive = true;
    ObstaclePush* sums;  // one per obstacle
    bool couple_added;   // StepContext::bodies_couple
    void add(uint32_t k, Vec3 d, Vec3 at) const {
      ObstaclePush& s = sums[k];
      const Vec3 m = cross(at, d);
      s.d[0] += d.x;
      s.d[1] += d.y;
      s.d[2] += d.z;
      s.moment[0] += m.x;
      s.moment[1] += m.y;
      s.moment[2] += m.z;
    }
    void couple(uint32_t k, Vec3 d, Vec3 at, float weight) const {
      add(k, d, at);
      if (!couple_added) return;
      double* added = sums[k].added;
      for_each_added_mass_term(d, at, weight, [added](int e, double value) { added[e] += value; });
    }
    bool couples() const { return couple_added; }
  };
  // body(i, push) for every particle i in parallel, with a sink for the
  // pushes of the obstacles of the substep `ctx` describes: NoPush without
  // obstacles, else its block's PushSink (take_obstacle_pushes() sums them).
  template <class Body>
  void for_each_particle_pushing(const StepContext& ctx, Body&& body) {
    if (ctx.obstacle_count == 0) {
      NoPush none;
      for_each_particle([&](uint32_t i) { body(i, none); });
      return;
    }
    for_each_block_pushing(ctx, [&](size_t begin, size_t end, const PushSink& push) {
      for (size_t i = begin; i < end; ++i) body(static_cast<uint32_t>(i), push);
    });
  }
  // for_each_run() with a sink for the obstacles' pushes, as
  // for_each_particle_pushing(): body(begin, end, push); no run crosses the
  // pushes' blocks.
  template <class Body>
  void for_each_run_pushing(const StepContext& ctx, Body&& body) {
    static_assert(kPushBlock % kRun == 0, "runs tile the pushes' blocks");
    if (ctx.obstacle_count == 0) {
      NoPush none;
      for_each_run([&](uint32_t begin, uint32_t end) { body(begin, end, none); });
      return;
    }
    for_each_block_pushing(ctx, [&](size_t begin, size_t end, const PushSink& push) {
      for (size_t b = begin; b < end; b += kRun)
        body(static_cast<uint32_t>(b), static_cast<uint32_t>(std::min(end, b + kRun)), push);
    });
  }
  // sum_i term(i) in double over fixed blocks joined in a fixed order: the
  // same result for any thread count.
  template <class Term>
  double deterministic_sum(Term&& term) const {
    const size_t n = x_.size();
    double total = 0.0;
    arena_.execute([&] {
      total = tbb::parallel_deterministic_reduce(
          tbb::blocked_range<size_t>(0, n, 4096), 0.0,
          [&](const tbb::blocked_range<size_t>& r, double acc) {
            for (size_t i = r.begin(); i < r.end(); ++i) acc += term(static_cast<uint32_t>(i));
            return acc;
          },
          [](double a, double b) { return a + b; }, tbb::simple_partitioner());
    });
    return total;
  }

 private:
  void resize(size_t n);
  // body(begin, end, push) for each block of kPushBlock particles in
  // parallel, with the block's sink for the pushes of ctx's obstacles.
  template <class Body>
  void for_each_block_pushing(const StepContext& ctx, Body&& body) {
    const size_t n = x_.size();
    const size_t blocks = (n + kPushBlock - 1) / kPushBlock;
    const uint32_t count = ctx.obstacle_count;
    if (pushes_.size() < blocks * count)
      throw Error(Status::Internal, "CPU backend: no room for the obstacles' pushes");
    ObstaclePush* sums = pushes_.data();
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<size_t>(0, blocks, 1), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t b = r.begin(); b < r.end(); ++b)
          body(b * kPushBlock, std::min(n, (b + 1) * kPushBlock), PushSink{sums + b * count, ctx.bodies_couple});
      });
    });
  }

  SolverConfig config_;
  uint32_t stride_;
  uint32_t head_;  // the slots of each list kept apart from the rest (NeighborLists::particle_major_split())
  CpuWorkerLease workers_;  // before arena_: outlives it, so the last solver can stop the workers
  mutable tbb::task_arena arena_;
  CpuNeighborGrid grid_;
  uint32_t overflows_ = 0;

  // The arrays that the lanes read points from are LaneVectors (lane_vector.h).
  LaneVector<Vec3> x_, v_, xp_;             // positions, velocities, predicted positions
  LaneVector<Vec3> scratch_;                // spare points (reordering; the methods' Jacobi updates)
  std::vector<float> rho_;
  std::vector<uint32_t> id_;            // place -> user index
  std::vector<uint32_t> order_;         // the grid's sort: place -> the place before (then spare)
  std::vector<uint32_t> nb_index_, nb_count_;
  std::vector<float> mapped_[3];        // user-order copies lent by map(), by Field
  std::vector<std::vector<float>> field_values_;  // obstacle fields' samples
  std::vector<Obstacle> obstacles_;     // views of them with this substep's poses
  // Boundary samples: their own grid (built when they change), positions in its cell order, pseudo-masses.
  std::unique_ptr<CpuNeighborGrid> boundary_grid_;
  LaneVector<Vec3> boundary_x_;
  std::vector<float> boundary_psi_;
  std::vector<uint8_t> boundary_near_;  // per particle: boundary_near_mark() at the neighbour search
  std::vector<uint8_t> collided_;       // per particle: collided()
  // Only when some samples move with obstacles (empty otherwise), in the order given: each sample's body,
  // its position in its body's frame (world for static ones), its pseudo-mass; and the scratch of the
  // per-substep sort (world positions, cell order).
  std::vector<uint32_t> boundary_body_;
  std::vector<uint32_t> boundary_body_sorted_;  // each sample's body in cell order (boundary_x_'s)
  std::vector<Vec3> boundary_local_, boundary_world_;
  std::vector<float> boundary_psi_given_;
  std::vector<uint32_t> boundary_order_;
  uint32_t boundary_max_body_ = 0;  // the largest obstacle index a sample moves with
  // Places the samples that move with obstacles at the substep's end poses and sorts the set again.
  void move_boundary(const StepContext& ctx);

  Iterations iterations_;
  // The obstacles' pushes, per block of kPushBlock particles and obstacle
  // (block after block), for room for the particles and obstacles held.
  static constexpr size_t kPushBlock = 1024;
  std::vector<ObstaclePush> pushes_;
  // Room for the pushes of n particles and `count` obstacles.
  void fit_pushes(size_t n, size_t count);
};

}  // namespace pbf
