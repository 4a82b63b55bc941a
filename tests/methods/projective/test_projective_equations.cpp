// Unit tests of Projective Fluids (methods/projective/): the local projection
// of one density constraint (Weiler et al. 2016, Algorithm 1, eq. 8-11), the
// matrix-free global system (eq. 5), its closed-form solve, and the CPU
// backend's local and global steps, on small particle sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "core/config.h"
#include "core/error.h"
#include "methods/projective/cpu/projective_cpu_stages.h"
#include "methods/projective/projective_equations.h"
#include "summed_push.h"

namespace {

using pbf::LaneVector;
using pbf::NeighborLists;
using pbf::PbfParams;
using pbf::ProjectiveConstants;
using pbf::SolverConfig;
using pbf::Vec3;

constexpr float kSpacing = 0.1f;
constexpr float kDt = 0.005f;
constexpr pbf::ProjectionWalls kNoWalls{nullptr, 0u, 0.0f, nullptr};
const pbf::BoundarySamples kNoBoundary{};

SolverConfig make_config() {
  SolverConfig config;
  config.method = pbf::Method::Projective;
  config.max_particles = 4096;
  config.particle_spacing = kSpacing;
  config.kernel_radius = 2.0f * kSpacing;
  config.rest_density = 1000.0f;
  config.domain_min = Vec3{-2.0f, -2.0f, -2.0f};
  config.domain_max = Vec3{2.0f, 2.0f, 2.0f};
  config.thread_count = 2;
  config.max_neighbors = 64;
  return config;
}

// A cube of k^3 particles at `factor` x the rest spacing, jittered.
std::vector<Vec3> squeezed_cube(int k, float factor, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jitter(-0.05f * kSpacing, 0.05f * kSpacing);
  std::vector<Vec3> x;
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b)
      for (int c = 0; c < k; ++c)
        x.push_back(Vec3{(a - k / 2) * kSpacing * factor + jitter(rng), (b - k / 2) * kSpacing * factor + jitter(rng),
                         (c - k / 2) * kSpacing * factor + jitter(rng)});
  return x;
}

// Brute-force neighbour lists (ascending, self excluded), as the grid makes them.
struct Lists {
  std::vector<uint32_t> index, count;
  uint32_t stride;
  NeighborLists view() const { return NeighborLists::particle_major(index.data(), count.data(), stride); }
};
Lists brute_force(const std::vector<Vec3>& x, float h, uint32_t stride) {
  Lists l{std::vector<uint32_t>(x.size() * stride), std::vector<uint32_t>(x.size()), stride};
  for (uint32_t i = 0; i < x.size(); ++i)
    for (uint32_t j = 0; j < x.size(); ++j)
      if (j != i && pbf::length_squared(x[i] - x[j]) < h * h) l.index[i * stride + l.count[i]++] = j;
  return l;
}

// C_i of eq. 8 at positions where member k of constraint i is displaced by d[k].
double constraint_at(const ProjectiveConstants& c, uint32_t i, const Lists& nb, const std::vector<Vec3>& x,
                     const std::vector<Vec3>& d) {
  const Vec3 pi = x[i] + d[0];
  double sum = pbf::cubic(c.kernel, 0.0f);
  for (uint32_t k = 0; k < nb.count[i]; ++k)
    sum += pbf::cubic(c.kernel, pbf::length_squared(pi - (x[nb.index[i * nb.stride + k]] + d[1 + k])));
  return c.mass_over_rho0 * sum - 1.0;
}

// Projections run to a tight tolerance: 50 Newton steps at most, C <= 1e-5.
PbfParams newton_to_convergence() {
  PbfParams p;
  p.newton_iterations = 50;
  p.newton_tolerance = 1e-5f;
  return p;
}

TEST(ProjectiveLocalStep, NewtonProjectionReachesTheConstraintManifold) {
  const SolverConfig config = make_config();
  const PbfParams p = newton_to_convergence();
  const ProjectiveConstants c = pbf::make_projective_constants(config, p, kDt);
  const std::vector<Vec3> x = squeezed_cube(5, 0.85f, 1);  // about 60 % denser than rest
  const Lists nb = brute_force(x, config.kernel_radius, config.max_neighbors);
  int projected = 0;
  for (uint32_t i = 0; i < x.size(); ++i) {
    std::vector<Vec3> d(c.slots);
    const pbf::Projection result =
        pbf::project_density_constraint(c, i, nb.view(), kNoBoundary, pbf::DensityWalls{}, kNoWalls, x.data(), d.data());
    const double before = constraint_at(c, i, nb, x, std::vector<Vec3>(c.slots, Vec3{0, 0, 0}));
    EXPECT_NEAR(result.compression, std::max(before, 0.0), 1e-5);
    if (before <= p.newton_tolerance) {
      EXPECT_EQ(result.steps, 0u) << "a constraint that is not compressed is already projected";
      continue;
    }
    ++projected;
    // Float evaluation of ~60 kernel terms leaves ~1e-6 of round-off.
    const double after = constraint_at(c, i, nb, x, d);
    EXPECT_LE(after, p.newton_tolerance + 2e-6) << "particle " << i << " after " << result.steps << " steps";
    EXPECT_GT(after, -0.05) << "the projection lands near C = 0, not far beyond it";
    EXPECT_NEAR(after, result.remaining, 2e-6);
  }
  EXPECT_GT(projected, 50);
}

// A compressed block whose bottom layer rests on a floor: members on the
// floor are not pushed into it (the floor takes that push), yet every
// constraint still reaches its manifold. Without the floor the same
// projections do push floor particles downwards.
TEST(ProjectiveLocalStep, MembersRestingOnAWallAreNotPushedIntoIt) {
  const SolverConfig config = make_config();
  const PbfParams p = newton_to_convergence();
  const ProjectiveConstants c = pbf::make_projective_constants(config, p, kDt);
  std::vector<Vec3> x = squeezed_cube(5, 0.85f, 4);
  float bottom = x[0].y;
  for (const Vec3& q : x) bottom = std::min(bottom, q.y);
  const float radius = 0.5f * kSpacing;
  const pbf::Plane floor{Vec3{0.0f, 1.0f, 0.0f}, -(bottom - radius)};  // y = bottom - radius
  std::vector<uint8_t> touching(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].y < bottom + 0.3f * kSpacing) x[i].y = bottom;  // the lowest layer rests on the floor
    touching[i] = pbf::touches_wall(&floor, 1, pbf::wall_contact_distance(radius), x[i]);
  }
  const pbf::ProjectionWalls walls{&floor, 1u, pbf::wall_contact_distance(radius), touching.data()};
  const Lists nb = brute_force(x, config.kernel_radius, config.max_neighbors);
  int on_floor = 0, pushed_down_without = 0, projected = 0;
  for (const uint8_t t : touching) on_floor += t;
  EXPECT_EQ(on_floor, 25);
  for (uint32_t i = 0; i < x.size(); ++i) {
    std::vector<Vec3> d(c.slots), free(c.slots);
    const pbf::Projection with =
        pbf::project_density_constraint(c, i, nb.view(), kNoBoundary, pbf::DensityWalls{}, walls, x.data(), d.data());
    pbf::project_density_constraint(c, i, nb.view(), kNoBoundary, pbf::DensityWalls{}, kNoWalls, x.data(), free.data());
    if (with.steps == 0) continue;
    ++projected;
    EXPECT_LE(constraint_at(c, i, nb, x, d), p.newton_tolerance + 2e-6) << "constraint " << i;
    for (uint32_t k = 0; k <= nb.count[i]; ++k) {
      const uint32_t member = k == 0 ? i : nb.index[i * nb.stride + k - 1];
      if (!touching[member]) continue;
      EXPECT_GE(d[k].y, 0.0f) << "constraint " << i << " pushes particle " << member << " into the floor";
      if (free[k].y < -1e-6f) ++pushed_down_without;
    }
  }
  EXPECT_GT(projected, 50);
  EXPECT_GT(pushed_down_without, 20);
}

TEST(ProjectiveLocalStep, NeighbourSlotFindsEveryListedParticle) {
  const std::vector<Vec3> x = squeezed_cube(4, 1.0f, 2);
  const Lists nb = brute_force(x, 0.2f, 64);
  for (uint32_t i = 0; i < x.size(); ++i) {
    for (uint32_t k = 0; k < nb.count[i]; ++k) EXPECT_EQ(nb.view().slot_of(i, nb.index[i * 64 + k]), k);
    EXPECT_EQ(nb.view().slot_of(i, i), 0xFFFFFFFFu);
  }
}

// The slots looked up once per step are the ones the binary search finds,
// also where a list does not hold the particle (a list cut short, as an
// overflowing one is), and a global row reads the same from either.
TEST(ProjectiveLocalStep, BackSlotsAreTheSlotsTheSearchFinds) {
  const SolverConfig config = make_config();
  const ProjectiveConstants c = pbf::make_projective_constants(config, PbfParams{}, kDt);
  const std::vector<Vec3> x = squeezed_cube(4, 1.0f, 2);
  Lists nb = brute_force(x, config.kernel_radius, 64);
  nb.count[5] /= 2;  // particle 5 lost the far half of its list
  std::vector<uint32_t> back(nb.index.size(), 7u);
  uint32_t missing = 0;
  for (uint32_t l = 0; l < x.size(); ++l) {
    pbf::fill_back_slots(nb.view(), l, back.data());
    for (uint32_t k = 0; k < nb.count[l]; ++k) {
      const uint32_t slot = back[l * nb.stride + k];
      EXPECT_EQ(slot, nb.view().slot_of(nb.index[l * nb.stride + k], l));
      missing += slot == 0xFFFFFFFFu ? 1u : 0u;
    }
  }
  EXPECT_GT(missing, 0u);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.01f, 0.01f);
  std::vector<Vec3> d(x.size() * c.slots), s(x.size());
  for (Vec3& v : d) v = Vec3{u(rng), u(rng), u(rng)};
  for (Vec3& v : s) v = Vec3{u(rng), u(rng), u(rng)};
  std::vector<uint8_t> active(x.size());
  for (uint32_t i = 0; i < x.size(); ++i) active[i] = i % 3 != 0;
  for (uint32_t l = 0; l < x.size(); ++l) {
    Vec3 searched, looked_up;
    float diagonal_searched, diagonal_looked_up;
    pbf::global_row(c, l, nb.view(), nullptr, s.data(), x.data(), d.data(), active.data(),
                    searched, diagonal_searched);
    pbf::global_row(c, l, nb.view(), back.data(), s.data(), x.data(), d.data(), active.data(),
                    looked_up, diagonal_looked_up);
    EXPECT_EQ(std::memcmp(&searched, &looked_up, sizeof(Vec3)), 0) << l;
    EXPECT_EQ(diagonal_searched, diagonal_looked_up) << l;
  }
  // The displacements kept by the particles that receive them (the CPU's
  // layout) give every row bit for bit; a slot no constraint writes (its
  // list does not hold the particle) is not read.
  std::vector<Vec3> received(d.size(), Vec3{std::nanf(""), 0.0f, 0.0f});
  for (uint32_t i = 0; i < x.size(); ++i)
    pbf::receive_displacements(c, i, nb.view(), back.data(), d.data() + static_cast<size_t>(i) * c.slots,
                               received.data());
  for (uint32_t l = 0; l < x.size(); ++l) {
    Vec3 want, got;
    float diagonal_want, diagonal_got;
    pbf::global_row(c, l, nb.view(), back.data(), s.data(), x.data(), d.data(), active.data(), want, diagonal_want);
    pbf::global_row_received(c, l, nb.view(), back.data(), s.data(), x.data(), received.data(), active.data(), got,
                             diagonal_got);
    EXPECT_EQ(std::memcmp(&want, &got, sizeof(Vec3)), 0) << l;
    EXPECT_EQ(diagonal_want, diagonal_got) << l;
  }
}

template <class A, class B>
float max_distance(const A& a, const B& b) {
  float most = 0.0f;
  for (size_t l = 0; l < a.size(); ++l) most = std::max(most, pbf::length(a[l] - b[l]));
  return most;
}

// The CPU's local step projects a constraint on the stack, into room for
// the C API's largest max_neighbors (1024); lists longer than that are
// refused when the stages are made, not overrun.
TEST(ProjectiveLocalStep, TheCpuBackendRefusesListsLongerThanTheStagesRoom) {
  SolverConfig config = make_config();
  config.max_particles = 64;
  config.max_neighbors = 1024;
  pbf::CpuBackend fits(config);
  EXPECT_NO_THROW(pbf::ProjectiveCpuStages{fits});
  config.max_neighbors = 1032;
  try {
    pbf::CpuBackend too_long(config);
    ADD_FAILURE() << "no error";
  } catch (const pbf::Error& e) {
    EXPECT_EQ(e.status(), pbf::Status::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("max_neighbors"), std::string::npos) << e.what();
  }
}

// The CPU backend's stages on a squeezed cube in the middle of a large
// domain (so that no wall moves a particle) and without gravity: one local
// step, then one global step.
class ProjectiveGlobalStep : public ::testing::Test {
 protected:
  void run() {
    config_ = make_config();
    params_.gravity = Vec3{0.0f, 0.0f, 0.0f};
    backend_ = std::make_unique<pbf::CpuBackend>(config_);
    stages_ = std::make_unique<pbf::ProjectiveCpuStages>(*backend_);
    const std::vector<Vec3> x = squeezed_cube(6, 0.9f, 3);
    std::vector<float> flat;
    for (const Vec3& v : x) flat.insert(flat.end(), {v.x, v.y, v.z});
    backend_->append(flat.data(), nullptr, x.size());
    ctx_ = pbf::StepContext{};
    ctx_.motion = pbf::make_motion_constants(config_, params_, kDt);
    c_ = pbf::make_projective_constants(config_, params_, kDt);
    planes_ = {};
    ctx_.planes = planes_.data();
    ctx_.plane_count = 0;
    backend_->predict(ctx_);
    backend_->build_grid(ctx_);
    backend_->find_neighbors(ctx_);
    stages_->begin(ctx_, c_);
    stages_->local_step(ctx_, c_, 0.0f);
    before_ = backend_->predicted_positions();
    stages_->global_step(ctx_, c_, 1.0f);
    after_ = backend_->predicted_positions();
    tally_ = backend_->iteration_tally();
  }

  SolverConfig config_;
  PbfParams params_;
  std::unique_ptr<pbf::CpuBackend> backend_;
  std::unique_ptr<pbf::ProjectiveCpuStages> stages_;
  pbf::StepContext ctx_;
  ProjectiveConstants c_;
  std::vector<pbf::Plane> planes_;
  pbf::IterationTally tally_;
  LaneVector<Vec3> before_, after_;
};

TEST_F(ProjectiveGlobalStep, TheTallyCountsTheGlobalStepAndTheCompressionItStartedFrom) {
  run();
  EXPECT_GT(tally_.mean_compression, 0.05f) << "the cube starts compressed";
  EXPECT_GE(tally_.max_compression, tally_.mean_compression);
  EXPECT_EQ(tally_.iterations, 1u);
  const pbf::IterationTally next = backend_->iteration_tally();
  EXPECT_EQ(next.iterations, 0u) << "a tally starts anew after it is read";
}

TEST_F(ProjectiveGlobalStep, SolutionSatisfiesTheGlobalSystem) {
  run();
  // Evaluate eq. 5 directly, row by row: with p_i = S_i x_k + d_i fixed by
  // the local step, A x - b at the new x is r_k - A (x - x_k), where r_k is
  // the residual at the old iterate x_k.
  const ProjectiveConstants& c = c_;
  const NeighborLists nb = backend_->neighbor_lists();
  const auto& s = stages_->target();
  const auto& received = stages_->displacements();  // by the particle that receives them
  const auto& back = stages_->back_slots();
  const auto& active = stages_->active();
  double r0 = 0.0, rn = 0.0;
  for (uint32_t l = 0; l < before_.size(); ++l) {
    Vec3 row;
    float diagonal;
    pbf::global_row_received(c, l, nb, back.data(), s.data(), before_.data(), received.data(), active.data(), row,
                             diagonal);
    const Vec3 rest = row - (after_[l] - before_[l]) * diagonal;
    r0 += pbf::length_squared(row);
    rn += pbf::length_squared(rest);
  }
  ASSERT_GT(r0, 0.0);
  std::cout << "relative residual at the new iterate: " << std::sqrt(rn / r0) << "\n";
  // Solved exactly (ProjectiveClosedForm): what remains is the float
  // round-off of x_k + delta at positions of tenths of a metre (measured:
  // 3.7e-6 of the first residual).
  EXPECT_LT(std::sqrt(rn / r0), 1e-5);
}

TEST_F(ProjectiveGlobalStep, TheGlobalStepLowersTheCompression) {
  run();
  const float first = tally_.mean_compression;
  for (int k = 0; k < 10; ++k) {
    stages_->local_step(ctx_, c_, 0.0f);
    stages_->global_step(ctx_, c_, 1.0f);
  }
  stages_->local_step(ctx_, c_, 0.0f);
  const float later = backend_->iteration_tally().mean_compression;
  EXPECT_LT(later, 0.5f * first) << "first " << first;
}

// A local step that finds the mean compression at most the tolerance ends
// the substep's iterations on the backend: the global step and later local
// steps change nothing, until the next substep begins.
TEST_F(ProjectiveGlobalStep, ALocalStepWithinTheToleranceEndsTheSubstepsIterations) {
  run();
  stages_->local_step(ctx_, c_, 1.0f);  // any compression is within 100 %
  const std::vector<float> densities = std::as_const(*backend_).densities();
  const LaneVector<Vec3> converged = std::as_const(*backend_).predicted_positions();
  for (int k = 0; k < 3; ++k) {
    stages_->global_step(ctx_, c_, 1.0f);
    stages_->local_step(ctx_, c_, 0.0f);
  }
  EXPECT_EQ(max_distance(backend_->predicted_positions(), converged), 0.0f);
  EXPECT_EQ(backend_->densities(), densities);
  EXPECT_EQ(backend_->iteration_tally().iterations, 0u);
  stages_->begin(ctx_, c_);
  stages_->local_step(ctx_, c_, 0.0f);
  stages_->global_step(ctx_, c_, 1.0f);
  EXPECT_GT(max_distance(backend_->predicted_positions(), converged), 0.0f) << "a new substep iterates again";
  EXPECT_EQ(backend_->iteration_tally().iterations, 1u);
}

// A random global system from global_row(): the iterate, the targets and the
// constraints' displacements of a jittered squeezed cube, a third of the
// constraints inactive.
struct RandomSystem {
  SolverConfig config = make_config();
  ProjectiveConstants c = pbf::make_projective_constants(config, PbfParams{}, kDt);
  std::vector<Vec3> x = squeezed_cube(5, 0.9f, 11);
  Lists nb = brute_force(x, config.kernel_radius, 64);
  std::vector<Vec3> s, d;
  std::vector<uint8_t> active;

  explicit RandomSystem(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-0.01f, 0.01f);
    d.resize(x.size() * c.slots);
    s.resize(x.size());
    active.resize(x.size());
    for (Vec3& v : d) v = Vec3{u(rng), u(rng), u(rng)};
    for (uint32_t i = 0; i < x.size(); ++i) {
      s[i] = x[i] + Vec3{u(rng), u(rng), u(rng)};
      active[i] = i % 3 != 0;
    }
  }
  void row(uint32_t l, const std::vector<Vec3>& at, Vec3& residual, float& diagonal) const {
    pbf::global_row(c, l, nb.view(), nullptr, s.data(), at.data(),
                    d.data(), active.data(), residual, diagonal);
  }
};

// Jacobi-preconditioned conjugate gradients (Shewchuk 1994) on A delta = r
// for a matrix given by `apply` (q = A p) and its diagonal, as the backends
// ran it before the closed form: float vectors, sums in double. Returns the
// iterations taken to the relative residual `tolerance`.
template <class Apply>
uint32_t conjugate_gradients(const std::vector<Vec3>& r0, const std::vector<float>& diag, Apply apply,
                             float tolerance, uint32_t max_iterations, std::vector<Vec3>& delta) {
  const size_t n = r0.size();
  std::vector<Vec3> r = r0, p(n), q(n);
  delta.assign(n, Vec3{0.0f, 0.0f, 0.0f});
  double rr0 = 0.0, rz = 0.0;
  for (size_t l = 0; l < n; ++l) {
    p[l] = r[l] * (1.0f / diag[l]);
    rr0 += pbf::length_squared(r[l]);
    rz += pbf::dot(r[l], p[l]);
  }
  double rr = rr0;
  uint32_t k = 0;
  while (rr0 > 0.0 && k < max_iterations && rr > double(tolerance) * tolerance * rr0) {
    apply(p, q);
    double pq = 0.0;
    for (size_t l = 0; l < n; ++l) pq += pbf::dot(p[l], q[l]);
    if (!(pq > 0.0)) break;
    const float alpha = static_cast<float>(rz / pq);
    rr = 0.0;
    for (size_t l = 0; l < n; ++l) {
      delta[l] += p[l] * alpha;
      r[l] -= q[l] * alpha;
      rr += pbf::length_squared(r[l]);
    }
    ++k;
    if (rr <= double(tolerance) * tolerance * rr0) break;
    double rz_next = 0.0;
    for (size_t l = 0; l < n; ++l) rz_next += pbf::dot(r[l], r[l] * (1.0f / diag[l]));
    const float beta = static_cast<float>(rz_next / rz);
    rz = rz_next;
    for (size_t l = 0; l < n; ++l) p[l] = r[l] * (1.0f / diag[l]) + p[l] * beta;
  }
  return k;
}

float max_length(const std::vector<Vec3>& a) {
  float most = 0.0f;
  for (const Vec3& v : a) most = std::max(most, pbf::length(v));
  return most;
}

// The closed form r_l / A_ll is what conjugate gradients converge to on the
// diagonal system, in one iteration, to float round-off (1e-6 of the
// largest correction: a few ulps). With an off-diagonal coupling in A (as
// D != I or P != I would bring), CG's solution moves away from it by far
// more, so the comparison would see such a term.
TEST(ProjectiveClosedForm, EqualsConjugateGradientsOnARandomDiagonalSystem) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const RandomSystem sys(seed);
    const size_t n = sys.x.size();
    std::vector<Vec3> r(n), closed(n);
    std::vector<float> diag(n);
    for (uint32_t l = 0; l < n; ++l) {
      sys.row(l, sys.x, r[l], diag[l]);
      closed[l] = pbf::global_correction(r[l], diag[l]);
    }
    double rr = 0.0, left = 0.0;  // |r|^2 and |r - A delta|^2
    for (uint32_t l = 0; l < n; ++l) {
      rr += pbf::length_squared(r[l]);
      left += pbf::length_squared(r[l] - closed[l] * diag[l]);
    }
    std::cout << "seed " << seed << ": closed form's relative residual " << std::sqrt(left / rr) << "\n";
    EXPECT_LT(std::sqrt(left / rr), 1e-6) << "seed " << seed << ": float round-off only";
    const auto diagonal = [&](const std::vector<Vec3>& p, std::vector<Vec3>& q) {
      for (size_t l = 0; l < n; ++l) q[l] = p[l] * diag[l];
    };
    std::vector<Vec3> cg;
    EXPECT_EQ(conjugate_gradients(r, diag, diagonal, 1e-4f, 100, cg), 1u) << "seed " << seed;
    const float scale = max_length(closed);
    ASSERT_GT(scale, 0.0f);
    std::cout << "seed " << seed << ": closed form and CG differ by " << max_distance(closed, cg) / scale
              << " of the largest correction\n";
    EXPECT_LE(max_distance(closed, cg), 1e-6f * scale) << "seed " << seed;
    // A coupling of each particle to its neighbours, 1 % of the stiffness:
    // A stays symmetric positive definite, its solution is another.
    const float coupling = 0.01f * sys.c.stiffness;
    const auto coupled = [&](const std::vector<Vec3>& p, std::vector<Vec3>& q) {
      for (uint32_t l = 0; l < n; ++l) {
        q[l] = p[l] * diag[l];
        for (uint32_t k = 0; k < sys.nb.count[l]; ++k) q[l] += (p[l] - p[sys.nb.index[l * sys.nb.stride + k]]) * coupling;
      }
    };
    std::vector<Vec3> cg_coupled;
    EXPECT_GT(conjugate_gradients(r, diag, coupled, 1e-6f, 100, cg_coupled), 1u);
    EXPECT_GT(max_distance(closed, cg_coupled), 1e-3f * scale) << "seed " << seed;
  }
}

// Whether row l's residual and diagonal depend only on particle l's iterate:
// every other particle is moved by up to a centimetre and row l must keep
// its bits.
template <class Row>
bool rows_read_only_their_own_iterate(const RandomSystem& sys, Row row) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-0.01f, 0.01f);
  for (uint32_t l = 0; l < sys.x.size(); ++l) {
    std::vector<Vec3> moved = sys.x;
    for (uint32_t j = 0; j < moved.size(); ++j)
      if (j != l) moved[j] += Vec3{u(rng), u(rng), u(rng)};
    Vec3 r_before, r_after;
    float d_before, d_after;
    row(l, sys.x, r_before, d_before);
    row(l, moved, r_after, d_after);
    if (std::memcmp(&r_before, &r_after, sizeof(Vec3)) != 0 || d_before != d_after) return false;
  }
  return true;
}

// The closed form needs A diagonal: r_l = b_l - (A x)_l then depends on no
// other particle's iterate. global_row() holds to that; a row with an
// off-diagonal term (a pull towards the neighbours' iterates) does not, and
// the check sees it.
TEST(ProjectiveClosedForm, TheGlobalSystemIsDiagonal) {
  const RandomSystem sys(7);
  EXPECT_TRUE(rows_read_only_their_own_iterate(
      sys, [&](uint32_t l, const std::vector<Vec3>& at, Vec3& r, float& d) { sys.row(l, at, r, d); }));
  const auto coupled_row = [&](uint32_t l, const std::vector<Vec3>& at, Vec3& r, float& d) {
    sys.row(l, at, r, d);
    for (uint32_t k = 0; k < sys.nb.count[l]; ++k) r += (at[sys.nb.index[l * sys.nb.stride + k]] - at[l]) * 0.01f;
  };
  EXPECT_FALSE(rows_read_only_their_own_iterate(sys, coupled_row));
}

// Two particles half a spacing apart, each in the other's constraint, with
// inertial targets a centimetre below them.
class ProjectiveGlobalRow : public ::testing::Test {
 protected:
  // Row l of the global system with the displacements d_.
  void row(uint32_t l, const std::vector<uint8_t>& active, Vec3& residual, float& diagonal) const {
    pbf::global_row(c_, l, nb_.view(), nullptr, s_.data(), x_.data(), d_.data(), active.data(), residual,
                    diagonal);
  }

  const SolverConfig config_ = make_config();
  const ProjectiveConstants c_ = pbf::make_projective_constants(config_, PbfParams{}, kDt);
  const std::vector<Vec3> x_ = {Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.5f * kSpacing, 0.0f, 0.0f}};
  const std::vector<Vec3> s_ = {Vec3{0.0f, -0.01f, 0.0f}, Vec3{0.5f * kSpacing, -0.01f, 0.0f}};
  const Lists nb_ = brute_force(x_, config_.kernel_radius, 64);
  std::vector<Vec3> d_ = std::vector<Vec3>(2 * c_.slots, Vec3{0.0f, 0.0f, 0.0f});
};

// A particle that no compressed constraint holds keeps the iterate: its row
// of the global system has no residual, whatever its inertial target s
// (sent back to s, a small cluster would be compressed again and the
// iterations would cycle; see global_row()).
TEST_F(ProjectiveGlobalRow, AParticleNoCompressedConstraintHoldsStaysPut) {
  for (uint32_t l = 0; l < 2; ++l) {
    Vec3 residual;
    float diagonal;
    row(l, {0, 0}, residual, diagonal);
    EXPECT_EQ(pbf::length_squared(residual), 0.0f);
    EXPECT_GT(diagonal, 0.0f);
  }
}

// Every row that a compressed constraint holds counts the constraints of a
// particle inside the rest lattice, however many hold it: the satisfied
// ones raise its diagonal and leave its residual (and the solution) alone,
// and with one diagonal for all the global step moves no momentum: equal
// and opposite displacements of a constraint's members move them by equal
// and opposite amounts.
TEST_F(ProjectiveGlobalRow, EveryHeldRowHasTheDiagonalOfARowInsideTheWater) {
  EXPECT_EQ(c_.rest_members, 27.0f);
  d_[0] = Vec3{-0.01f, 0.0f, 0.0f};            // constraint 0 moves particle 0 ...
  d_[1] = Vec3{0.01f, 0.0f, 0.0f};             // ... and particle 1
  d_[c_.slots] = Vec3{0.03f, 0.0f, 0.0f};      // constraint 1 moves particle 1 ...
  d_[c_.slots + 1] = Vec3{-0.03f, 0.0f, 0.0f};  // ... and particle 0
  Vec3 r[2];
  for (uint32_t l = 0; l < 2; ++l) {
    float diagonal;
    row(l, {1, 1}, r[l], diagonal);
    EXPECT_EQ(diagonal, c_.inertia + 27.0f * c_.stiffness) << l;
    Vec3 one_active;
    row(l, {1, 0}, one_active, diagonal);
    EXPECT_EQ(diagonal, c_.inertia + 27.0f * c_.stiffness) << "one compressed constraint of two, " << l;
  }
  // The inertial terms are equal (both targets 1 cm below); the constraints' parts cancel.
  const float inertial = -0.01f * c_.inertia;
  EXPECT_FLOAT_EQ(r[0].y, inertial);
  EXPECT_FLOAT_EQ(r[1].y, inertial);
  EXPECT_FLOAT_EQ(r[0].x, -0.04f * c_.stiffness);
  EXPECT_FLOAT_EQ(r[0].x + r[1].x, 0.0f);
}

// A particle 1.5 m from the origin, which its rows move by 1e-8 m a global
// step (a sixth of a unit in its position's last place): kept as a
// displacement from its inertial target, the steps add up to 1e-6 m after
// a hundred; added to the position one by one they are lost, every one
// (docs/PHYSICS.md §12: the water's momentum drifted with them).
TEST(ProjectiveIterate, ChangesBelowThePositionsRoundOffAddUp) {
  SolverConfig config = make_config();
  config.domain_min = Vec3{0.0f, 0.0f, 0.0f};
  config.domain_max = Vec3{4.0f, 4.0f, 4.0f};
  const ProjectiveConstants c = pbf::make_projective_constants(config, PbfParams{}, kDt);
  const pbf::MotionConstants motion = pbf::make_motion_constants(config, PbfParams{}, kDt);
  const Vec3 target{1.5f, 1.5f, 1.5f};
  const float step = 1e-8f;
  const float diagonal = c.inertia + c.rest_members * c.stiffness;
  const Vec3 residual{step * diagonal, 0.0f, 0.0f};
  const uint8_t active[1] = {1};
  const float step_sum[1] = {0.0f}, compression[1] = {0.0f};
  Vec3 x[1] = {target};
  Vec3 offset{0.0f, 0.0f, 0.0f}, previous{0.0f, 0.0f, 0.0f}, position = target;
  pbf::NoPush none;
  for (int k = 0; k < 100; ++k) {
    pbf::global_step_particle(c, motion, nullptr, 0u, nullptr, 0u, 0u, residual, diagonal, kNoBoundary, active,
                              step_sum, compression, target, 1.0f, target, x, offset, previous, none, nullptr,
                              nullptr);
    position = position + pbf::global_correction(residual, diagonal);
  }
  EXPECT_NEAR(offset.x, 100.0 * step, 1e-3 * 100.0 * step);
  EXPECT_EQ(offset.y, 0.0f);
  EXPECT_EQ(offset.z, 0.0f);
  // The position handed to the local step: the target plus the displacement, rounded once.
  EXPECT_NEAR(x[0].x, 1.5 + 100.0 * step, 0.6e-7);
  EXPECT_EQ(position.x, target.x) << "each change alone is under half a unit in the last place";
}

// A random cloud of boundary samples attached to obstacle 0 (where they are:
// local = world), with the cubic spline's pseudo masses, and one fluid
// particle at p with no fluid neighbour, its constraint projected by one
// Newton step: s = C / |g|^2, g the samples' part of grad C (the only part).
struct SampledParticle {
  SolverConfig config = make_config();
  pbf::CpuBackend backend{config};
  pbf::BoundarySamples b{};
  std::vector<Vec3> sorted;  // the samples in the backend's order
  ProjectiveConstants c{};
  explicit SampledParticle() {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-0.25f, 0.25f);
    std::vector<Vec3> samples(300);
    for (Vec3& x : samples) x = Vec3{u(rng), u(rng) - 0.3f, u(rng)};
    const std::vector<uint32_t> body(samples.size(), 0u);
    backend.set_boundary_particles(samples.data(), body.data(), samples.data(), samples.size(),
                                   pbf::DensityKernel::CubicSpline);
    b = backend.boundary_samples();
    b.near = nullptr;  // the particle here is the test's own: it scans
    sorted.assign(b.x, b.x + b.count);
    PbfParams params;
    params.newton_iterations = 1;
    c = pbf::make_projective_constants(config, params, kDt);
  }
  // The constraint of a particle at p projected with the samples moved by t u(x_s), u = shift + turn x (x_s -
  // centre).
  pbf::Projection project(Vec3 p, double t = 0.0, Vec3 shift = Vec3{}, Vec3 turn = Vec3{},
                          Vec3 centre = Vec3{}) const {
    std::vector<Vec3> moved(sorted);
    for (Vec3& x : moved) {
      const Vec3 u = shift + pbf::cross(turn, x - centre);
      x = Vec3{float(x.x + t * u.x), float(x.y + t * u.y), float(x.z + t * u.z)};
    }
    pbf::BoundarySamples at = b;
    at.x = moved.data();
    const Vec3 x[1] = {p};
    const uint32_t index[1] = {0}, count[1] = {0};
    const NeighborLists nb = NeighborLists::particle_major(index, count, 1);
    Vec3 d[1];
    return pbf::project_density_constraint(c, 0, nb, at, pbf::DensityWalls{}, kNoWalls, x, d);
  }
  // g at p, from the samples where they are.
  Vec3 gradient(Vec3 p) const {
    float rho_b = 0.0f;
    Vec3 grad_b{};
    pbf::boundary_density_gradient(c.kernel, b, p, rho_b, grad_b);
    return grad_b * (1.0f / c.rest_density);
  }
};

// Particles just inside the cloud's top (y = -0.05 m): compressed, and their
// one Newton step shorter than its cap.
const Vec3 kUnderTheCloudsTop[] = {Vec3{0.01f, -0.08f, -0.03f}, Vec3{0.01f, -0.06f, -0.03f}};

// The global step moves the particle by -share s g (share = omega w / A_ll);
// the push carries the weight that makes weight d d^T the added mass
// share g g^T / D of docs/PHYSICS.md §13, D = |g|^2 here.
TEST(ProjectiveBodyCoupling, APushCarriesTheWeightOfItsConstraintsAddedMass) {
  const SampledParticle cloud;
  const ProjectiveConstants& c = cloud.c;
  const float omega = 1.3f, diagonal = pbf::held_diagonal(c);
  const double share = double(omega) * c.stiffness / diagonal;
  for (const Vec3 p : kUnderTheCloudsTop) {
    const pbf::Projection proj = cloud.project(p);
    const Vec3 g = cloud.gradient(p);
    ASSERT_GT(proj.compression, 0.0f);
    ASSERT_EQ(proj.steps, 1u);
    ASSERT_LT(proj.step_sum * pbf::length(g), c.max_projection) << "the Newton step is not capped";
    EXPECT_NEAR(proj.step_sum, proj.compression / pbf::dot(g, g), 1e-5 * proj.step_sum);
    SummedPush push;
    pbf::obstacle_sample_push(c, cloud.b, p, proj.step_sum, proj.compression, diagonal, omega, push);
    const double moved = -share * proj.step_sum;
    EXPECT_NEAR(push.d.x, moved * g.x, 1e-5 * std::fabs(moved) * pbf::length(g));
    EXPECT_NEAR(push.d.y, moved * g.y, 1e-5 * std::fabs(moved) * pbf::length(g));
    const double want = 1.0 / (share * double(proj.step_sum) * proj.step_sum * pbf::dot(g, g));
    EXPECT_NEAR(push.weight, want, 1e-4 * want);
    EXPECT_EQ(push.weight, pbf::projective_coupling_weight(c, proj.compression, proj.step_sum, diagonal, omega));
  }
    // A constraint that pushes nothing weighs nothing.
  EXPECT_EQ(pbf::projective_coupling_weight(c, 0.0f, 0.0f, diagonal, omega), 0.0f);
  EXPECT_EQ(pbf::projective_coupling_weight(c, 0.01f, 0.0f, diagonal, omega), 0.0f);
}

// The body moved its samples by u(x_s) = shift + turn x (x_s - centre). The
// constraint changes with them by dC: the derivative of the compression that
// the projection starts from with the samples moved by t u, by central
// differences of the projection itself. The joint solve's step changes by
// dC / D with the gradients held (as PBF's relief holds them), its push
// -share s g by -share (dC / D) g: that is the relief, pushed on the body.
TEST(ProjectiveBodyCoupling, TheReliefIsTheChangeOfTheConstraintThatTheBodysMotionMakes) {
  const SampledParticle cloud;
  const ProjectiveConstants& c = cloud.c;
  const float omega = 1.3f;
  const double share = double(omega) * c.stiffness / pbf::held_diagonal(c);
  const Vec3 shift{2e-5f, -3e-5f, 1e-5f}, turn{1e-4f, 2e-4f, -1e-4f}, centre{0.05f, -0.3f, 0.0f};
  for (const Vec3 p : kUnderTheCloudsTop) {
    const pbf::Projection proj = cloud.project(p);
    ASSERT_GT(proj.step_sum, 0.0f);
    const Vec3 g = cloud.gradient(p);
    const double dc = double(cloud.project(p, 0.5, shift, turn, centre).compression) -
                      double(cloud.project(p, -0.5, shift, turn, centre).compression);
    const double ds = dc / pbf::dot(g, g);  // the step's change, D = |g|^2 (one Newton step)
    const pbf::BodyYield before[1] = {pbf::BodyYield{Vec3{}, Vec3{}, centre}};
    const pbf::BodyYield moved[1] = {pbf::BodyYield{shift, turn, centre}};
    SummedPush push;
    const Vec3 relief = pbf::projective_body_yield_relief(c, p, proj.compression, proj.step_sum, omega, cloud.b,
                                                          before, moved, push);
    const double size = share * std::fabs(ds) * pbf::length(g);
    ASSERT_GT(size, 0.0);
    EXPECT_NEAR(relief.x, -share * ds * g.x, 2e-2 * size);
    EXPECT_NEAR(relief.y, -share * ds * g.y, 2e-2 * size);
    EXPECT_NEAR(relief.z, -share * ds * g.z, 2e-2 * size);
    EXPECT_EQ(push.d.x, relief.x);
    EXPECT_EQ(push.d.y, relief.y);
    EXPECT_GT(push.weight, 0.0f) << "the constraint still pushes";
    // A motion that would take more than the whole push gives back the push and no more.
    const pbf::BodyYield far[1] = {pbf::BodyYield{g * (2.0f * proj.step_sum), Vec3{}, centre}};  // away
    SummedPush all;
    const Vec3 whole = pbf::projective_body_yield_relief(c, p, proj.compression, proj.step_sum, omega, cloud.b,
                                                         before, far, all);
    const double pushed = share * proj.step_sum * pbf::length(g);
    EXPECT_NEAR(pbf::length(whole), pushed, 1e-5 * pushed);
    EXPECT_GT(pbf::dot(whole, g), 0.0f) << "back towards the body";
    EXPECT_EQ(all.weight, 0.0f) << "let go";
  }
}

TEST(ProjectiveTimeStep, CflLimitsTheStepByTheFastestParticle) {
  EXPECT_FLOAT_EQ(pbf::cfl_time_step(0.4f, 0.025f, 0.0f, 0.01f), 0.01f);
  EXPECT_FLOAT_EQ(pbf::cfl_time_step(0.4f, 0.025f, 1.0f, 0.01f), 0.01f);
  EXPECT_FLOAT_EQ(pbf::cfl_time_step(0.4f, 0.025f, 10.0f, 0.01f), 0.001f);
}

}  // namespace
