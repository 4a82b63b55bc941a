// How pbf_step() (methods/pbf/pbf_step.h) drives a device and PBF's stages:
// substep after substep with each substep's obstacle poses, and, for a
// backend that records
// a step (the CUDA backend's graphs), the recording protocol: a recording
// that runs replaces the stage calls; one that cannot run, or a stage that
// fails while recording, falls back to the stages one by one with the same
// result, and a real failure still reaches the caller.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/error.h"
#include "methods/forwarding_backend.h"
#include "methods/pbf/pbf_step.h"

namespace {

using pbf::Backend;
using pbf::Error;
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
  config.max_particles = 4096;
  config.particle_spacing = 0.05f;
  config.kernel_radius = 0.1f;
  config.domain_min = Vec3{0.0f, 0.0f, 0.0f};
  config.domain_max = Vec3{1.0f, 1.0f, 1.0f};
  config.thread_count = 1;
  return config;
}

// A block of water 8 x 8 x 8 spacings above the floor.
std::unique_ptr<Backend> make_block(const SolverConfig& config) {
  std::unique_ptr<Backend> backend = pbf::create_backend(config);
  std::vector<float> x;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 8; ++k) {
        x.push_back(0.3f + 0.05f * i);
        x.push_back(0.02f + 0.05f * j);
        x.push_back(0.3f + 0.05f * k);
      }
  backend->append(x.data(), nullptr, x.size() / 3);
  return backend;
}

std::vector<float> positions(const Backend& backend) {
  std::vector<float> x(3 * backend.size());
  backend.read(Field::Position, x.data());
  return x;
}

// Forwards every stage to a CPU backend (ForwardingBackend) and logs it. As
// a recording backend it only logs while recording (nothing runs), and can
// be told to refuse the recording at its end or to fail in a stage while
// recording. Its stages() are PBF's CPU stages on the same device, logged
// the same way.
class LoggingBackend final : public pbf_test::ForwardingBackend {
 public:
  enum class Recording { None, Runs, CannotRun, StageFails };

  LoggingBackend(const SolverConfig& config, Recording mode)
      : ForwardingBackend(make_block(config)),
        inner_stages_(pbf::make_pbf_stages(*inner_)),
        stages_(*this),
        mode_(mode) {}

  std::vector<std::string> log;
  std::vector<const ObstaclePose*> poses_seen;  // ctx.obstacle_poses at each predict
  std::vector<float> tolerances;                // of each solve_density call
  bool abandoned = false;
  bool fail_every_stage = false;                // a real failure: recorded or not

  void predict(const StepContext& ctx) override {
    poses_seen.push_back(ctx.obstacle_poses);
    stage("predict", [&] { inner_->predict(ctx); });
  }
  void build_grid(const StepContext& ctx) override { stage("grid", [&] { inner_->build_grid(ctx); }); }
  void find_neighbors(const StepContext& ctx) override { stage("neighbors", [&] { inner_->find_neighbors(ctx); }); }

  bool begin_recording(const StepContext&, const ObstaclePose*, uint32_t substeps) override {
    if (mode_ == Recording::None) return false;
    recording_ = true;
    recorded_substeps_ = substeps;
    log.push_back("begin");
    return true;
  }
  bool run_recording(StepStats& timing) override {
    recording_ = false;
    log.push_back("run");
    if (mode_ == Recording::CannotRun) return false;
    // What a graph launch does: the recorded stages, timed on the device.
    timing.time_constraints_ms += 1000.0;
    return true;
  }
  void abandon_recording() noexcept override {
    recording_ = false;
    abandoned = true;
    log.push_back("abandon");
  }

  pbf::PbfStages& stages() { return stages_; }

  template <class Run>
  void stage(const char* name, Run run) {
    if (fail_every_stage || (recording_ && mode_ == Recording::StageFails && std::string(name) == "density"))
      throw Error(pbf::Status::Internal, std::string("stage failed: ") + name);
    log.push_back(recording_ ? std::string("rec:") + name : std::string(name));
    if (!recording_) run();
  }

 private:
  class Stages final : public pbf::PbfStages {
   public:
    explicit Stages(LoggingBackend& device) : device_(device) {}
    void reserve(size_t n) override { device_.inner_stages_->reserve(n); }
    void solve_density(const StepContext& ctx, const pbf::PbfConstants& c, float tolerance) override {
      device_.tolerances.push_back(tolerance);
      device_.stage("density", [&] { device_.inner_stages_->solve_density(ctx, c, tolerance); });
    }
    void relieve_body_yields(const StepContext& ctx, const pbf::PbfConstants& c, const pbf::BodyYield* before,
                             const pbf::BodyYield* moved) override {
      device_.stage("relief", [&] { device_.inner_stages_->relieve_body_yields(ctx, c, before, moved); });
    }
    void update_velocities(const StepContext& ctx, const pbf::PbfConstants& c) override {
      device_.stage("velocity", [&] { device_.inner_stages_->update_velocities(ctx, c); });
    }
    void apply_vorticity_viscosity(const StepContext& ctx, const pbf::PbfConstants& c) override {
      device_.stage("viscosity", [&] { device_.inner_stages_->apply_vorticity_viscosity(ctx, c); });
    }

   private:
    LoggingBackend& device_;
  };

  std::unique_ptr<pbf::PbfStages> inner_stages_;
  Stages stages_;
  Recording mode_;
  bool recording_ = false;
  uint32_t recorded_substeps_ = 0;
};

struct Step {
  SolverConfig config = make_config();
  pbf::PbfParams params;
  std::vector<Plane> planes;
  std::vector<ObstaclePose> poses;  // none: no obstacles
  StepContext ctx{};
  pbf::PbfConstants constants{};

  Step() {
    params.iterations = 2;
    params.density_tolerance = 0.0f;  // exactly 2 iterations
    planes.push_back(Plane{Vec3{0.0f, 1.0f, 0.0f}, 0.0f});  // the floor
    constants = pbf::make_pbf_constants(config, params, 1.0f / 120.0f);
    ctx.planes = planes.data();
    ctx.plane_count = static_cast<uint32_t>(planes.size());
  }
  void run(Backend& backend, pbf::PbfStages& stages, uint32_t substeps, StepStats& timing) {
    pbf::pbf_step(backend, stages, ctx, constants, poses.data(), substeps, pbf::density_iterations(params), timing);
  }
  void run(LoggingBackend& backend, uint32_t substeps, StepStats& timing) {
    run(backend, backend.stages(), substeps, timing);
  }
};

std::vector<std::string> substep_log(const std::string& prefix) {
  return {prefix + "predict", prefix + "grid",     prefix + "neighbors", prefix + "density",
          prefix + "density", prefix + "velocity", prefix + "viscosity"};
}

std::vector<std::string> concat(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// The reference: two steps of two substeps on the plain CPU backend.
std::vector<float> reference_positions() {
  Step step;
  std::unique_ptr<Backend> backend = make_block(step.config);
  std::unique_ptr<pbf::PbfStages> stages = pbf::make_pbf_stages(*backend);
  StepStats timing;
  for (int k = 0; k < 2; ++k) step.run(*backend, *stages, 2, timing);
  return positions(*backend);
}

TEST(PbfStep, RunsTheStagesOfEverySubstepInOrder) {
  Step step;
  LoggingBackend backend(step.config, LoggingBackend::Recording::None);
  StepStats timing;
  step.run(backend, 2, timing);
  EXPECT_EQ(backend.log, concat({substep_log(""), substep_log("")}));
  EXPECT_GT(timing.time_constraints_ms, 0.0);
  EXPECT_LT(timing.time_constraints_ms, 1000.0) << "wall-clock times of the stages";
}

TEST(PbfStep, EachSubstepSeesItsOwnObstaclePoses) {
  Step step;
  step.ctx.obstacle_count = 2;
  step.poses.resize(3 * 2);
  LoggingBackend backend(step.config, LoggingBackend::Recording::Runs);
  StepStats timing;
  // The logging backend holds no obstacles: only where each substep looks is checked.
  pbf::pbf_step(backend, backend.stages(), step.ctx, step.constants, step.poses.data(), 3,
                pbf::DensityIterations{0, 0, -1.0f}, timing);
  ASSERT_EQ(backend.poses_seen.size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(backend.poses_seen[k], step.poses.data() + 2 * k) << "substep " << k;
}

TEST(PbfStep, ARecordingThatRunsReplacesTheStageCalls) {
  Step step;
  LoggingBackend backend(step.config, LoggingBackend::Recording::Runs);
  StepStats timing;
  step.run(backend, 2, timing);
  EXPECT_EQ(backend.log, concat({{"begin"}, substep_log("rec:"), substep_log("rec:"), {"run"}}));
  EXPECT_EQ(timing.time_constraints_ms, 1000.0) << "the recording's own phase times, not the host's while recording";
  EXPECT_EQ(timing.time_predict_ms, 0.0);
}

TEST(PbfStep, ARecordingThatCannotRunFallsBackToTheStagesWithTheSameResult) {
  Step step;
  LoggingBackend backend(step.config, LoggingBackend::Recording::CannotRun);
  StepStats timing;
  for (int k = 0; k < 2; ++k) step.run(backend, 2, timing);
  const std::vector<std::string> one_step =
      concat({{"begin"}, substep_log("rec:"), substep_log("rec:"), {"run"}, substep_log(""), substep_log("")});
  EXPECT_EQ(backend.log, concat({one_step, one_step}));
  EXPECT_EQ(positions(backend), reference_positions());
}

TEST(PbfStep, AStageThatFailsWhileRecordingFallsBackToTheStagesWithTheSameResult) {
  Step step;
  LoggingBackend backend(step.config, LoggingBackend::Recording::StageFails);
  StepStats timing;
  for (int k = 0; k < 2; ++k) step.run(backend, 2, timing);
  EXPECT_TRUE(backend.abandoned);
  const std::vector<std::string> one_step = concat(
      {{"begin", "rec:predict", "rec:grid", "rec:neighbors", "abandon"}, substep_log(""), substep_log("")});
  EXPECT_EQ(backend.log, concat({one_step, one_step}));
  EXPECT_EQ(positions(backend), reference_positions());
}

TEST(PbfStep, PastTheRequiredIterationsTheToleranceDecidesUpToTheMost) {
  Step step;
  step.params.iterations = 3;
  step.params.density_tolerance = 0.002f;
  step.params.max_iterations = 6;
  LoggingBackend backend(step.config, LoggingBackend::Recording::None);
  StepStats timing;
  step.run(backend, 1, timing);
  // The first two need not measure; the third measures whether more run; all six are offered.
  EXPECT_EQ(backend.tolerances, (std::vector<float>{-1.0f, -1.0f, 0.002f, 0.002f, 0.002f, 0.002f}));
  EXPECT_GE(timing.density_iterations, 3u);
  EXPECT_LE(timing.density_iterations, 6u);
}

TEST(PbfStep, AMostBelowTheRequiredIterationsStillRunsThem) {
  pbf::PbfParams p;
  p.iterations = 8;
  p.max_iterations = 5;
  p.density_tolerance = 0.01f;
  const pbf::DensityIterations it = pbf::density_iterations(p);
  EXPECT_EQ(it.least, 8u);
  EXPECT_EQ(it.most, 8u);
  p.density_tolerance = 0.0f;
  EXPECT_EQ(pbf::density_iterations(p).most, 8u);
  EXPECT_LT(pbf::density_iterations(p).tolerance, 0.0f) << "no tolerance: nothing measured";
}

TEST(PbfStep, ARealFailureReachesTheCaller) {
  Step step;
  LoggingBackend backend(step.config, LoggingBackend::Recording::Runs);
  backend.fail_every_stage = true;
  StepStats timing;
  try {
    step.run(backend, 1, timing);
    FAIL() << "the step did not fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), pbf::Status::Internal);
    EXPECT_NE(std::string(e.what()).find("stage failed: predict"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(backend.abandoned);
}

}  // namespace

namespace pbf {
namespace {

TEST(PbfSubstepCount, KeepsTheRequestedSubstepsWhenTheyMeetTheCflCondition) {
  // Water at rest: gravity alone moves a particle 2.7 mm in 1/60 s, under 0.4 x 2.5 cm.
  EXPECT_EQ(pbf_substep_count(1.0f / 60.0f, 1, 0.0f, 9.81f, 0.4f, 0.025f), 1u);
  EXPECT_EQ(pbf_substep_count(1.0f / 60.0f, 4, 0.0f, 9.81f, 0.4f, 0.025f), 4u);
}

TEST(PbfSubstepCount, SplitsTheStepUntilNoParticleTravelsFartherThanCflSpacings) {
  // 5 m/s for 1/60 s is 8.3 cm; at most 1 cm per substep takes 9 substeps (8.9 mm, with gravity's 0.02 m/s).
  const uint32_t n = pbf_substep_count(1.0f / 60.0f, 1, 5.0f, 9.81f, 0.4f, 0.025f);
  EXPECT_EQ(n, 9u);
  const double h = (1.0 / 60.0) / n, reach = 0.4 * 0.025;
  EXPECT_LE((5.0 + 9.81 * h) * h, reach);
  const double longer = (1.0 / 60.0) / (n - 1);
  EXPECT_GT((5.0 + 9.81 * longer) * longer, reach) << "one substep fewer would have done";
}

TEST(PbfSubstepCount, StopsAtTheLargestCount) {
  EXPECT_EQ(pbf_substep_count(10.0f, 1, 100.0f, 9.81f, 0.4f, 0.025f), kMaxAdaptiveSplit) << "32 times what was asked";
  EXPECT_EQ(pbf_substep_count(10.0f, 100, 100.0f, 9.81f, 0.4f, 0.025f), kMaxAdaptiveSubsteps);
  EXPECT_EQ(pbf_substep_count(10.0f, 2000, 0.0f, 0.0f, 0.4f, 0.025f), 2000u) << "more substeps were asked for";
}

}  // namespace
}  // namespace pbf

namespace pbf {
namespace {

TEST(PbfSubstepCount, NeverSplitsBelowTheShortestSubstep) {
  // 1e-8 s at 1e8 m/s would want 100 substeps; about 10 of 1e-9 s is as short as a substep may be.
  const uint32_t n = pbf_substep_count(1.0e-8f, 1, 1.0e8f, 9.81f, 0.4f, 0.025f);
  EXPECT_GE(n, 9u);
  EXPECT_LE(n, 10u);
  EXPECT_GE(1.0e-8 / n, double(kMinSubstep));
}

// The step before: `substeps` substeps of `dt` that ran `sweeps` density iterations each, of at most `most`.
StepStats step_before(uint32_t substeps, float dt, uint32_t sweeps, uint32_t most, float rate = 0.0f) {
  StepStats s;
  s.substeps = substeps;
  s.min_substep_dt = s.max_substep_dt = dt;
  s.iterations = most;
  s.density_iterations = substeps * sweeps;
  s.compression_rate = rate;
  return s;
}

TEST(PbfCompression, TheRateIsMeasuredWhereEverySubstepRanTheMostSweeps) {
  const float frame = 1.0f / 60.0f;
  // 2 substeps of 20 sweeps left 0.97 %: rate = 0.0097 x 20 / (1/120)^2.
  EXPECT_NEAR(pbf_compression_rate(step_before(2, frame / 2, 20, 20), 0.0097f), 0.0097 * 20 * 120.0 * 120.0, 0.01);
  // Sweeps to spare (the tolerance was met): no measure, and nothing kept.
  EXPECT_EQ(pbf_compression_rate(step_before(2, frame / 2, 15, 20), 0.0097f), 0.0f);
  // What was kept fades over the step before's 1/60 s.
  EXPECT_NEAR(pbf_compression_rate(step_before(2, frame / 2, 15, 20, 1000.0f), 0.0f),
              1000.0 * std::exp(-1.0 / 60.0 / kCompressionRateMemory), 1e-3);
  // The larger of the two.
  EXPECT_NEAR(pbf_compression_rate(step_before(2, frame / 2, 20, 20, 1e6f), 0.0097f),
              1e6 * std::exp(-1.0 / 60.0 / kCompressionRateMemory), 1.0);
  // No step before.
  EXPECT_EQ(pbf_compression_rate(StepStats{}, 0.5f), 0.0f);
}

TEST(PbfCompression, SubstepsHoldTheCompressionWithinTheLimit) {
  const float frame = 1.0f / 60.0f;
  // One substep of 20 sweeps left 4.4 %: substeps of (1/60) / sqrt(4.4) leave 1 %: 3 of them (0.49 %).
  const float rate = 0.044f * 20 * 3600;
  EXPECT_EQ(pbf_compression_substeps(frame, rate, 20, 1, 0.01f), 3.0);
  const double held = pbf_compression_substeps(frame, rate, 20, 1, 0.01f);
  EXPECT_EQ(pbf_substep_count(frame, 1, 0.0f, 9.81f, 0.4f, 0.025f, held), 3u);
  // Nothing measured: what was asked for.
  EXPECT_EQ(pbf_compression_substeps(frame, 0.0f, 20, 7, 0.01f), 1.0);
  // The CFL condition asks more: its count.
  EXPECT_EQ(pbf_substep_count(frame, 1, 5.0f, 9.81f, 0.4f, 0.025f, 3.0), 9u);
  // At most 32 times what was asked for, however fast the water compresses.
  const double crushed = pbf_compression_substeps(frame, 1e9f, 20, 1, 0.01f);
  EXPECT_EQ(pbf_substep_count(frame, 1, 0.0f, 9.81f, 0.4f, 0.025f, crushed), kMaxAdaptiveSplit);
}

TEST(PbfCompression, TheFirstStepAssumesConfinedWaterAsDeepAsTheParticlesReach) {
  // 40 layers at 2.5 cm: the particles span 0.975 m, the water 1 m.
  StepStats now;
  now.particle_count = 64000;
  now.lower = Vec3{2.0f, 0.0125f, 0.0125f};
  now.upper = Vec3{2.975f, 0.9875f, 0.9875f};
  const float rate = pbf_first_step_rate(now, Vec3{0.0f, -9.81f, 0.0f}, 0.025f);
  EXPECT_NEAR(rate, kConfinedCompression * 9.81 * 1.0 / (0.025 * 0.025), 0.1);
  // A tenth of a second from rest, 20 sweeps: 0.1 x sqrt(4709 / (20 x 1 %)) = 15.3, so 16 substeps.
  EXPECT_EQ(pbf_compression_substeps(0.1f, rate, 20, 0, 0.01f), 16.0);
  // At a 1/60 s frame 3 (2.6): no more than the default 4 asked for.
  EXPECT_EQ(pbf_compression_substeps(1.0f / 60.0f, rate, 20, 0, 0.01f), 3.0);
  // Gravity along another axis reads the box along that axis; a slanted one, the box's extent along it.
  now.upper.x = 2.475f;  // 20 layers across x
  EXPECT_NEAR(pbf_first_step_rate(now, Vec3{9.81f, 0.0f, 0.0f}, 0.025f), kConfinedCompression * 9.81 * 0.5 / 0.000625,
              0.1);
  const float g = 9.81f / std::sqrt(2.0f);
  EXPECT_NEAR(pbf_first_step_rate(now, Vec3{-g, -g, 0.0f}, 0.025f),
              kConfinedCompression * 9.81 * ((0.475 + 0.975) / std::sqrt(2.0) + 0.025) / 0.000625, 0.5);
  // Nothing to assume without gravity or without particles.
  EXPECT_EQ(pbf_first_step_rate(now, Vec3{0.0f, 0.0f, 0.0f}, 0.025f), 0.0f);
  EXPECT_EQ(pbf_first_step_rate(StepStats{}, Vec3{0.0f, -9.81f, 0.0f}, 0.025f), 0.0f);
}

TEST(PbfCompression, FewerSubstepsOnlyWhereTheyLeaveHalfTheLimit) {
  const float frame = 1.0f / 60.0f;
  // 2 substeps of 20 sweeps leave 0.97 % here, 3 leave 0.43 %.
  const float rate = 0.0097f * 20 * 120 * 120;
  EXPECT_EQ(pbf_compression_substeps(frame, rate, 20, 1, 0.01f), 2.0) << "1 would leave 3.9 %";
  EXPECT_EQ(pbf_compression_substeps(frame, rate, 20, 2, 0.01f), 2.0);
  EXPECT_EQ(pbf_compression_substeps(frame, rate, 20, 3, 0.01f), 3.0) << "2 would leave more than half the limit";
  EXPECT_EQ(pbf_compression_substeps(frame, rate, 20, 9, 0.01f), 3.0) << "3 leave less than half";
  // Four times the sweeps, a quarter of the compression: 2 substeps leave 0.24 %; 1 would leave
  // 0.97 %, within the limit but over half of it.
  EXPECT_EQ(pbf_compression_substeps(frame, rate, 80, 3, 0.01f), 2.0);
  EXPECT_EQ(pbf_compression_substeps(frame, rate, 80, 1, 0.01f), 1.0);
}

}  // namespace
}  // namespace pbf
