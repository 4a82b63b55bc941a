// How projective_step() (methods/projective/projective_step.h) drives a
// device and the method's stages: the same stage sequence for every substep,
// with no answer taken from the device inside the step (the early stop is the
// stages'), the
// iteration tally read once at the end, and, for a backend that records a
// step (the CUDA backend's graphs), the whole step offered as one recording,
// with the stages one by one as the fallback giving the same result.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/error.h"
#include "methods/forwarding_backend.h"
#include "methods/projective/projective_equations.h"
#include "methods/projective/projective_step.h"

namespace {

using pbf::Backend;
using pbf::Field;
using pbf::ObstaclePose;
using pbf::Plane;
using pbf::SolverConfig;
using pbf::StepContext;
using pbf::StepStats;
using pbf::Vec3;

SolverConfig make_config() {
  SolverConfig config;
  config.backend = pbf::BackendKind::Cpu;
  config.method = pbf::Method::Projective;
  config.max_particles = 4096;
  config.particle_spacing = 0.05f;
  config.kernel_radius = 0.1f;
  config.domain_min = Vec3{0.0f, 0.0f, 0.0f};
  config.domain_max = Vec3{1.0f, 1.0f, 1.0f};
  config.rest_density = 1000.0f;
  config.max_neighbors = 64;
  config.thread_count = 1;
  return config;
}

// A block of water 6 x 6 x 6 spacings, squeezed to 0.9 spacings, above the floor.
std::unique_ptr<Backend> make_block(const SolverConfig& config) {
  std::unique_ptr<Backend> backend = pbf::create_backend(config);
  std::vector<float> x;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 6; ++k) {
        x.push_back(0.3f + 0.045f * i);
        x.push_back(0.02f + 0.045f * j);
        x.push_back(0.3f + 0.045f * k);
      }
  backend->append(x.data(), nullptr, x.size() / 3);
  return backend;
}

std::vector<float> positions(const Backend& backend) {
  std::vector<float> x(3 * backend.size());
  backend.read(Field::Position, x.data());
  return x;
}

// Forwards every stage to a CPU backend (ForwardingBackend) and logs it; as
// a recording backend it only logs while recording (nothing runs), and can
// be told to refuse the recording at its end. Its stages() are Projective
// Fluids' and PBF's CPU stages on the same device, logged the same way.
class LoggingBackend final : public pbf_test::ForwardingBackend {
 public:
  enum class Recording { None, Runs, CannotRun };

  LoggingBackend(const SolverConfig& config, Recording mode)
      : ForwardingBackend(make_block(config)),
        inner_projective_(pbf::make_projective_stages(*inner_)),
        inner_pbf_(pbf::make_pbf_stages(*inner_)),
        projective_(*this),
        viscosity_(*this),
        mode_(mode) {}

  std::vector<std::string> log;
  std::vector<float> omegas;  // the weight of every global step, recorded or run
  uint32_t recorded_substeps = 0;

  void predict(const StepContext& ctx) override { stage("predict", [&] { inner_->predict(ctx); }); }
  void build_grid(const StepContext& ctx) override { stage("grid", [&] { inner_->build_grid(ctx); }); }
  void find_neighbors(const StepContext& ctx) override { stage("neighbors", [&] { inner_->find_neighbors(ctx); }); }
  pbf::IterationTally iteration_tally() override {
    log.push_back("tally");
    return inner_->iteration_tally();
  }

  bool begin_recording(const StepContext&, const ObstaclePose*, uint32_t substeps) override {
    if (mode_ == Recording::None) return false;
    recording_ = true;
    recorded_substeps = substeps;
    log.push_back("record");
    return true;
  }
  bool run_recording(StepStats&) override {
    recording_ = false;
    log.push_back("run");
    return mode_ == Recording::Runs;
  }
  void abandon_recording() noexcept override { recording_ = false; }

  pbf::ProjectiveStageSet stages() { return pbf::ProjectiveStageSet{projective_, viscosity_}; }

  template <class Run>
  void stage(const char* name, Run run) {
    log.push_back(recording_ ? std::string("rec:") + name : std::string(name));
    if (!recording_) run();
  }

 private:
  class Projective final : public pbf::ProjectiveStages {
   public:
    explicit Projective(LoggingBackend& device) : d_(device) {}
    void reserve(size_t n) override { d_.inner_projective_->reserve(n); }
    void begin(const StepContext& ctx, const pbf::ProjectiveConstants& c) override {
      d_.stage("begin", [&] { d_.inner_projective_->begin(ctx, c); });
    }
    void local_step(const StepContext& ctx, const pbf::ProjectiveConstants& c, float tolerance) override {
      d_.stage("local", [&] { d_.inner_projective_->local_step(ctx, c, tolerance); });
    }
    void global_step(const StepContext& ctx, const pbf::ProjectiveConstants& c, float omega) override {
      d_.omegas.push_back(omega);
      d_.stage("global", [&] { d_.inner_projective_->global_step(ctx, c, omega); });
    }
    void relieve_body_yields(const StepContext& ctx, const pbf::ProjectiveConstants& c, const pbf::BodyYield* before,
                             const pbf::BodyYield* moved) override {
      d_.stage("relief", [&] { d_.inner_projective_->relieve_body_yields(ctx, c, before, moved); });
    }
    void update_velocities(const StepContext& ctx, const pbf::ProjectiveConstants& c) override {
      d_.stage("velocity", [&] { d_.inner_projective_->update_velocities(ctx, c); });
    }

   private:
    LoggingBackend& d_;
  };
  class Viscosity final : public pbf::PbfStages {
   public:
    explicit Viscosity(LoggingBackend& device) : d_(device) {}
    void reserve(size_t n) override { d_.inner_pbf_->reserve(n); }
    void solve_density(const StepContext& ctx, const pbf::PbfConstants& c, float tolerance) override {
      d_.stage("density", [&] { d_.inner_pbf_->solve_density(ctx, c, tolerance); });
    }
    void relieve_body_yields(const StepContext& ctx, const pbf::PbfConstants& c, const pbf::BodyYield* before,
                             const pbf::BodyYield* moved) override {
      d_.stage("relief", [&] { d_.inner_pbf_->relieve_body_yields(ctx, c, before, moved); });
    }
    void update_velocities(const StepContext& ctx, const pbf::PbfConstants& c) override {
      d_.stage("pbf velocity", [&] { d_.inner_pbf_->update_velocities(ctx, c); });
    }
    void apply_vorticity_viscosity(const StepContext& ctx, const pbf::PbfConstants& c) override {
      d_.stage("viscosity", [&] { d_.inner_pbf_->apply_vorticity_viscosity(ctx, c); });
    }

   private:
    LoggingBackend& d_;
  };

  std::unique_ptr<pbf::ProjectiveStages> inner_projective_;
  std::unique_ptr<pbf::PbfStages> inner_pbf_;
  Projective projective_;
  Viscosity viscosity_;
  Recording mode_;
  bool recording_ = false;
};

// Three local/global iterations at most, no early stop unless asked for.
struct Step {
  SolverConfig config = make_config();
  pbf::PbfParams params;
  std::vector<Plane> planes;
  std::vector<ObstaclePose> poses;  // none: no obstacles
  StepContext ctx{};
  pbf::ProjectiveStepConstants constants;

  Step() {
    params.projective_iterations = 3;
    params.projective_tolerance = 0.0f;
    planes.push_back(Plane{Vec3{0.0f, 1.0f, 0.0f}, 0.0f});  // the floor
    constants = pbf::make_projective_step_constants(config, params, 1.0f / 120.0f);
    ctx.planes = planes.data();
    ctx.plane_count = static_cast<uint32_t>(planes.size());
  }
  void run(Backend& backend, const pbf::ProjectiveStageSet& stages, uint32_t substeps, StepStats& stats) {
    pbf::projective_step(backend, stages, ctx, constants, poses.data(), substeps, params, stats);
  }
  void run(LoggingBackend& backend, uint32_t substeps, StepStats& stats) {
    run(backend, backend.stages(), substeps, stats);
  }
};

std::vector<std::string> substep_log(const std::string& prefix) {
  return {prefix + "predict", prefix + "grid",   prefix + "neighbors", prefix + "begin",    prefix + "local",
          prefix + "global",  prefix + "local",  prefix + "global",    prefix + "local",    prefix + "global",
          prefix + "velocity", prefix + "viscosity"};
}

std::vector<std::string> concat(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

TEST(ProjectiveStep, RunsTheSameStagesInEverySubstepAndReadsTheTallyOnce) {
  Step step;
  LoggingBackend backend(step.config, LoggingBackend::Recording::None);
  StepStats stats;
  step.run(backend, 2, stats);
  EXPECT_EQ(backend.log, concat({substep_log(""), substep_log(""), {"tally"}}));
  EXPECT_EQ(stats.local_global_iterations, 6u) << "no early stop: every global step ran";
  EXPECT_EQ(stats.cg_iterations, 6u) << "one closed-form solve per global step";
  EXPECT_EQ(stats.cg_residual, 0.0f);
}

// With a tolerance every compression meets, the backend ends each
// substep's iterations at its first local step: the stages are the same,
// the tally counts no global step.
TEST(ProjectiveStep, TheEarlyStopIsTheBackendsAndTheTallyCountsOnlyGlobalStepsRun) {
  Step step;
  step.params.projective_tolerance = 1.0f;
  LoggingBackend backend(step.config, LoggingBackend::Recording::None);
  StepStats stats;
  step.run(backend, 2, stats);
  EXPECT_EQ(backend.log, concat({substep_log(""), substep_log(""), {"tally"}}));
  EXPECT_EQ(stats.local_global_iterations, 0u);
  EXPECT_EQ(stats.cg_iterations, 0u);
}

// The Chebyshev weights (Wang 2015): plain for the first
// kChebyshevPlainIterations iterations, then 2 / (2 - rho^2) and the
// recurrence 4 / (4 - rho^2 omega), tending to 2 / (1 + sqrt(1 - rho^2)).
TEST(ChebyshevWeights, RunPlainFirstThenFollowTheRecurrenceToTheirLimit) {
  static_assert(pbf::kChebyshevPlainIterations == 6, "docs/PHYSICS.md §7 and pbf.h name six");
  const double rho = 0.98, rho2 = rho * rho;
  pbf::ChebyshevWeights weights(static_cast<float>(rho));
  double expected = 1.0;
  for (uint32_t k = 0; k < 200; ++k) {
    if (k == pbf::kChebyshevPlainIterations) expected = 2.0 / (2.0 - rho2);
    else if (k > pbf::kChebyshevPlainIterations) expected = 4.0 / (4.0 - rho2 * expected);
    const float omega = weights.next();
    if (k < pbf::kChebyshevPlainIterations) EXPECT_EQ(omega, 1.0f) << "iteration " << k;
    EXPECT_NEAR(omega, expected, 1e-5) << "iteration " << k;
  }
  EXPECT_NEAR(expected, 2.0 / (1.0 + std::sqrt(1.0 - rho2)), 1e-9);
  pbf::ChebyshevWeights plain(0.0f);
  for (int k = 0; k < 20; ++k) EXPECT_EQ(plain.next(), 1.0f) << "rho = 0 is the paper's plain alternation";
}

// Every substep of a step starts the weights again, and a recording gets
// the same weights as the stages run one by one.
TEST(ProjectiveStep, EverySubstepWeighsItsGlobalStepsFromTheFirst) {
  Step step;
  step.params.projective_iterations = 9;
  step.params.projective_chebyshev_rho = 0.9f;
  std::vector<float> substep;
  pbf::ChebyshevWeights weights(0.9f);
  for (uint32_t k = 0; k < 9; ++k) substep.push_back(weights.next());
  ASSERT_GT(substep.back(), 1.2f);
  std::vector<float> two = substep;
  two.insert(two.end(), substep.begin(), substep.end());
  for (const auto mode : {LoggingBackend::Recording::None, LoggingBackend::Recording::Runs}) {
    LoggingBackend backend(step.config, mode);
    StepStats stats;
    step.run(backend, 2, stats);
    EXPECT_EQ(backend.omegas, two) << (mode == LoggingBackend::Recording::None ? "run" : "recorded");
  }
}

TEST(ProjectiveStep, ARecordingBackendGetsTheWholeStepAsOneRecording) {
  Step step;
  LoggingBackend backend(step.config, LoggingBackend::Recording::Runs);
  StepStats stats;
  step.run(backend, 3, stats);
  EXPECT_EQ(backend.recorded_substeps, 3u);
  EXPECT_EQ(backend.log,
            concat({{"record"}, substep_log("rec:"), substep_log("rec:"), substep_log("rec:"), {"run", "tally"}}));
}

TEST(ProjectiveStep, ARecordingThatCannotRunFallsBackToTheStagesWithTheSameResult) {
  Step step;
  std::unique_ptr<Backend> reference = make_block(step.config);
  std::unique_ptr<pbf::ProjectiveStages> projective = pbf::make_projective_stages(*reference);
  std::unique_ptr<pbf::PbfStages> viscosity = pbf::make_pbf_stages(*reference);
  StepStats reference_stats;
  step.run(*reference, pbf::ProjectiveStageSet{*projective, *viscosity}, 2, reference_stats);
  LoggingBackend backend(step.config, LoggingBackend::Recording::CannotRun);
  StepStats stats;
  step.run(backend, 2, stats);
  EXPECT_EQ(backend.log, concat({{"record"}, substep_log("rec:"), substep_log("rec:"), {"run"}, substep_log(""),
                                 substep_log(""), {"tally"}}));
  EXPECT_EQ(positions(backend), positions(*reference));
  EXPECT_EQ(stats.local_global_iterations, reference_stats.local_global_iterations);
}

}  // namespace
