// Checkpoints through the C API: a resumed run is bit-identical to the run
// that never stopped; damaged, foreign or mismatched checkpoints, and paths
// that are not regular files, are refused with PBF_ERROR_IO /
// INVALID_ARGUMENT / CAPACITY_EXCEEDED and the solver keeps its state; a
// save never replaces anything but a regular file and never loses the old
// checkpoint when it fails.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "hostile_files.h"

namespace {

using pbf_test::ChildOutcome;
using pbf_test::TempFolder;

constexpr float kDt = 1.0f / 60.0f;
constexpr size_t kHeaderBytes = 32;

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "pbf_checkpoint_" + name; }

std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The FNV-1a hash the format stores, so that a test can forge a file whose
// hash is right but whose contents are not.
void rehash(std::vector<unsigned char>& bytes) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = kHeaderBytes; i < bytes.size(); ++i) {
    h ^= bytes[i];
    h *= 1099511628211ull;
  }
  for (int b = 0; b < 8; ++b) bytes[24 + b] = static_cast<unsigned char>(h >> (8 * b));
}

pbf_solver_desc scene_desc(int threads) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.particle_spacing = 0.05f;
  d.max_particles = 4000;
  d.domain_max[0] = 1.5f;
  d.thread_count = threads;
  return d;
}

pbf_solver* make_solver(int threads) {
  const pbf_solver_desc d = scene_desc(threads);
  pbf_solver* s = nullptr;
  EXPECT_EQ(pbf_solver_create(&d, &s), PBF_OK) << pbf_last_error();
  return s;
}

// A dam break with a sloped plane, changed parameters and some particles
// removed, so that user order and internal order differ.
pbf_solver* make_scene(int threads) {
  pbf_solver* s = make_solver(threads);
  const float lo[3] = {0, 0, 0}, hi[3] = {0.5f, 0.6f, 0.5f};
  EXPECT_EQ(pbf_solver_fill_box(s, lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  const float normal[3] = {-1.0f, 2.0f, 0.0f};
  EXPECT_EQ(pbf_solver_add_plane(s, normal, 1.0f, nullptr), PBF_OK) << pbf_last_error();
  pbf_params p = pbf_params_default();
  p.vorticity_epsilon = 0.05f;
  p.friction = 0.2f;
  p.iterations = 3;
  p.density_tolerance = 0.0005f;
  p.max_iterations = 7;
  EXPECT_EQ(pbf_solver_set_params(s, &p), PBF_OK) << pbf_last_error();
  for (int k = 0; k < 10; ++k) EXPECT_EQ(pbf_solver_step(s, kDt, 2), PBF_OK) << pbf_last_error();
  const uint32_t remove[] = {0, 7, 100, 101, 600};
  EXPECT_EQ(pbf_solver_remove_particles(s, remove, 5), PBF_OK) << pbf_last_error();
  for (int k = 0; k < 5; ++k) EXPECT_EQ(pbf_solver_step(s, kDt, 2), PBF_OK) << pbf_last_error();
  return s;
}

struct State {
  std::vector<float> x, v, rho;
  bool operator==(const State& o) const {
    return x.size() == o.x.size() && std::memcmp(x.data(), o.x.data(), x.size() * 4) == 0 &&
           std::memcmp(v.data(), o.v.data(), v.size() * 4) == 0 &&
           std::memcmp(rho.data(), o.rho.data(), rho.size() * 4) == 0;
  }
};

State state_of(const pbf_solver* s) {
  size_t n = 0;
  EXPECT_EQ(pbf_solver_particle_count(s, &n), PBF_OK);
  State st{std::vector<float>(3 * n), std::vector<float>(3 * n), std::vector<float>(n)};
  EXPECT_EQ(pbf_solver_get_positions(s, st.x.data(), st.x.size()), PBF_OK);
  EXPECT_EQ(pbf_solver_get_velocities(s, st.v.data(), st.v.size()), PBF_OK);
  EXPECT_EQ(pbf_solver_get_densities(s, st.rho.data(), st.rho.size()), PBF_OK);
  return st;
}

TEST(Checkpoint, AResumedRunIsBitIdenticalToTheRunThatNeverStopped) {
  const std::string path = temp_path("resume.pbfc");
  pbf_solver* original = make_scene(2);
  ASSERT_EQ(pbf_solver_save_checkpoint(original, path.c_str()), PBF_OK) << pbf_last_error();
  const State at_save = state_of(original);
  for (int k = 0; k < 20; ++k) ASSERT_EQ(pbf_solver_step(original, kDt, 2), PBF_OK);

  pbf_solver* resumed = make_solver(1);  // another thread count: results do not depend on it
  ASSERT_EQ(pbf_solver_load_checkpoint(resumed, path.c_str()), PBF_OK) << pbf_last_error();
  EXPECT_TRUE(state_of(resumed) == at_save) << "the loaded state differs from the saved one";
  pbf_params p = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(resumed, &p), PBF_OK);
  EXPECT_EQ(p.iterations, 3u);
  EXPECT_EQ(p.vorticity_epsilon, 0.05f);
  EXPECT_EQ(p.friction, 0.2f);
  EXPECT_EQ(p.density_tolerance, 0.0005f);
  EXPECT_EQ(p.max_iterations, 7u);
  pbf_stats saved = pbf_stats_default();
  ASSERT_EQ(pbf_solver_get_stats(resumed, &saved), PBF_OK);
  EXPECT_GE(saved.density_iterations, 2u * 3u) << "the last step's two substeps ran at least 3 iterations each";
  for (int k = 0; k < 20; ++k) ASSERT_EQ(pbf_solver_step(resumed, kDt, 2), PBF_OK);

  const State a = state_of(original), b = state_of(resumed);
  ASSERT_EQ(a.x.size(), b.x.size());
  EXPECT_TRUE(a == b) << "the resumed run drifted from the original";
  pbf_stats sa = pbf_stats_default(), sb = pbf_stats_default();
  ASSERT_EQ(pbf_solver_get_stats(original, &sa), PBF_OK);
  ASSERT_EQ(pbf_solver_get_stats(resumed, &sb), PBF_OK);
  EXPECT_EQ(sa.avg_density_error, sb.avg_density_error);
  EXPECT_EQ(sa.max_neighbors, sb.max_neighbors);
  pbf_solver_destroy(original);
  pbf_solver_destroy(resumed);
  std::remove(path.c_str());
}

// The current file of a state as an older version held it: version 5 without
// the count of particles no step has moved (version 6); version 2 also
// without PBF's density tolerance (version 3) and the statistics' density
// iterations (version 3) and compression rate (version 5).
std::vector<unsigned char> as_version(std::vector<unsigned char> bytes, uint32_t planes, uint32_t version) {
  const size_t payload = kHeaderBytes;
  const size_t params_end = payload + 13 * 4 + 25 * 4;  // config, the version 2 parameters
  const size_t stats_end = params_end + 8 + 4 + planes * 16 + 9 * 4 + 7 * 8 + 5 * 4;
  const auto at = [&](size_t offset) { return bytes.begin() + static_cast<long>(offset); };
  if (version == 5) {
    bytes.erase(at(stats_end + 8), at(stats_end + 12));
  } else {
    bytes.erase(at(stats_end), at(stats_end + 12));
    bytes.erase(at(params_end), at(params_end + 8));
  }
  bytes[8] = static_cast<unsigned char>(version);
  const uint64_t size = bytes.size() - kHeaderBytes;
  for (int b = 0; b < 8; ++b) bytes[16 + b] = static_cast<unsigned char>(size >> (8 * b));
  rehash(bytes);
  return bytes;
}

TEST(Checkpoint, AVersion2CheckpointLoadsWithTheNewParametersAtTheirDefaults) {
  const std::string path = temp_path("version2.pbfc");
  pbf_solver* original = make_scene(2);
  ASSERT_EQ(pbf_solver_save_checkpoint(original, path.c_str()), PBF_OK) << pbf_last_error();
  const State at_save = state_of(original);
  write_file(path, as_version(read_file(path), 1, 2));
  pbf_solver* resumed = make_solver(2);
  ASSERT_EQ(pbf_solver_load_checkpoint(resumed, path.c_str()), PBF_OK) << pbf_last_error();
  EXPECT_TRUE(state_of(resumed) == at_save);
  pbf_params p = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(resumed, &p), PBF_OK);
  const pbf_params d = pbf_params_default();
  EXPECT_EQ(p.iterations, 3u) << "the fields version 2 held are read";
  EXPECT_EQ(p.friction, 0.2f);
  EXPECT_EQ(p.density_tolerance, d.density_tolerance) << "version 2 had none: the default";
  EXPECT_EQ(p.max_iterations, d.max_iterations);
  EXPECT_EQ(pbf_solver_step(resumed, kDt, 2), PBF_OK) << pbf_last_error();
  pbf_solver_destroy(original);
  pbf_solver_destroy(resumed);
  std::remove(path.c_str());
}

TEST(Checkpoint, TheSavedPlaneIsRestored) {
  // A solver without the plane would let the water run up the slope.
  const std::string path = temp_path("plane.pbfc");
  pbf_solver* original = make_scene(2);
  ASSERT_EQ(pbf_solver_save_checkpoint(original, path.c_str()), PBF_OK) << pbf_last_error();
  pbf_solver* resumed = make_solver(2);
  const float up[3] = {0, 1, 0};
  for (int k = 0; k < 3; ++k) ASSERT_EQ(pbf_solver_add_plane(resumed, up, 0.0f, nullptr), PBF_OK);
  ASSERT_EQ(pbf_solver_load_checkpoint(resumed, path.c_str()), PBF_OK) << pbf_last_error();
  uint32_t index = 99;
  ASSERT_EQ(pbf_solver_add_plane(resumed, up, 0.0f, &index), PBF_OK);
  EXPECT_EQ(index, 1u) << "the checkpoint holds one plane; the solver's own three are replaced";
  pbf_solver_destroy(original);
  pbf_solver_destroy(resumed);
  std::remove(path.c_str());
}

// A solver with a state of its own, to check that failed loads keep it.
class CheckpointRefusal : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = temp_path(::testing::UnitTest::GetInstance()->current_test_info()->name());
    pbf_solver* saved = make_scene(2);
    ASSERT_EQ(pbf_solver_save_checkpoint(saved, path_.c_str()), PBF_OK) << pbf_last_error();
    pbf_solver_destroy(saved);
    good_ = read_file(path_);
    ASSERT_GT(good_.size(), kHeaderBytes);

    solver_ = make_solver(2);
    const float lo[3] = {0.8f, 0, 0}, hi[3] = {1.2f, 0.3f, 0.3f};
    ASSERT_EQ(pbf_solver_fill_box(solver_, lo, hi, nullptr, nullptr), PBF_OK);
    ASSERT_EQ(pbf_solver_step(solver_, kDt, 2), PBF_OK);
    before_ = state_of(solver_);
  }
  void TearDown() override {
    pbf_solver_destroy(solver_);
    std::remove(path_.c_str());
  }

  void expect_refused(pbf_status expected, const std::string& words) {
    const pbf_status got = pbf_solver_load_checkpoint(solver_, path_.c_str());
    EXPECT_EQ(got, expected) << pbf_status_string(got) << ": " << pbf_last_error();
    const std::string message = pbf_last_error();
    EXPECT_NE(message.find("pbf_solver_load_checkpoint"), std::string::npos) << message;
    EXPECT_NE(message.find(words), std::string::npos) << message;
    EXPECT_TRUE(state_of(solver_) == before_) << "a refused checkpoint changed the solver";
    EXPECT_EQ(pbf_solver_step(solver_, kDt, 2), PBF_OK) << pbf_last_error();
  }

  std::string path_;
  std::vector<unsigned char> good_;
  pbf_solver* solver_ = nullptr;
  State before_;
};

TEST_F(CheckpointRefusal, AMissingFile) {
  std::remove(path_.c_str());
  expect_refused(PBF_ERROR_IO, "cannot open");
}

TEST_F(CheckpointRefusal, AFileThatIsNotACheckpoint) {
  write_file(path_, {'p', 'l', 'y', '\n', 'f', 'o', 'r', 'm', 'a', 't'});
  expect_refused(PBF_ERROR_IO, "not a pbf checkpoint");
}

TEST_F(CheckpointRefusal, AnEmptyFile) {
  write_file(path_, {});
  expect_refused(PBF_ERROR_IO, "not a pbf checkpoint");
}

TEST_F(CheckpointRefusal, AnotherFormatVersion) {
  std::vector<unsigned char> bytes = good_;
  bytes[8] = 7;
  write_file(path_, bytes);
  expect_refused(PBF_ERROR_IO, "format version 7");
}

TEST_F(CheckpointRefusal, EveryTruncation) {
  for (size_t keep : {size_t(8), kHeaderBytes - 1, kHeaderBytes, kHeaderBytes + 1, good_.size() / 2,
                      good_.size() - 4, good_.size() - 1}) {
    SCOPED_TRACE(keep);
    write_file(path_, std::vector<unsigned char>(good_.begin(), good_.begin() + static_cast<long>(keep)));
    const pbf_status got = pbf_solver_load_checkpoint(solver_, path_.c_str());
    EXPECT_EQ(got, PBF_ERROR_IO) << pbf_last_error();
    EXPECT_TRUE(state_of(solver_) == before_);
  }
}

TEST_F(CheckpointRefusal, BytesAppended) {
  std::vector<unsigned char> bytes = good_;
  bytes.push_back(0);
  write_file(path_, bytes);
  expect_refused(PBF_ERROR_IO, "truncated or appended");
}

TEST_F(CheckpointRefusal, AFlippedBitAnywhereInThePayload) {
  for (size_t at : {kHeaderBytes, kHeaderBytes + 40, good_.size() / 2, good_.size() - 1}) {
    SCOPED_TRACE(at);
    std::vector<unsigned char> bytes = good_;
    bytes[at] ^= 0x10;
    write_file(path_, bytes);
    const pbf_status got = pbf_solver_load_checkpoint(solver_, path_.c_str());
    EXPECT_EQ(got, PBF_ERROR_IO) << pbf_last_error();
    EXPECT_NE(std::string(pbf_last_error()).find("checksum"), std::string::npos) << pbf_last_error();
    EXPECT_TRUE(state_of(solver_) == before_);
  }
}

TEST_F(CheckpointRefusal, AForgedFileWhoseIdsAreNotAPermutation) {
  // The last 4 x n bytes are the user ids; make the last equal the one before.
  std::vector<unsigned char> bytes = good_;
  std::memcpy(&bytes[bytes.size() - 4], &bytes[bytes.size() - 8], 4);
  rehash(bytes);
  write_file(path_, bytes);
  expect_refused(PBF_ERROR_IO, "permutation");
}

TEST_F(CheckpointRefusal, AForgedFileWithANaNPosition) {
  // Payload: 13 config words, 27 param words, 1 plane count + 4 plane words,
  // 23 stats words (7 of them doubles), the count of particles no step has
  // moved, the particle count (8 bytes), then positions. Overwrite the first
  // position's x with NaN.
  std::vector<unsigned char> bytes = good_;
  const size_t first_position = kHeaderBytes + 4 * (13 + 27 + 1 + 4 + 9 + 7 + 1) + 8 * 7 + 8;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(&bytes[first_position], &nan, 4);
  rehash(bytes);
  write_file(path_, bytes);
  expect_refused(PBF_ERROR_IO, "non-finite");
}

TEST(Checkpoint, ARunWhoseSubstepsTheCompressionChoseResumesBitIdentically) {
  // Water 1 m deep stepped at one substep asked per frame: adaptive_dt keeps
  // an estimate of how fast it compresses, and chooses the substeps from it
  // (methods/pbf/pbf_step.h). The checkpoint holds the estimate.
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.domain_max[0] = d.domain_max[2] = 0.15f;
  d.domain_max[1] = 1.5f;
  const float lo[3] = {0, 0, 0}, hi[3] = {0.15f, 1.0f, 0.15f};
  pbf_solver* original = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &original), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_fill_box(original, lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  uint32_t most = 0;
  for (int k = 0; k < 6; ++k) {
    ASSERT_EQ(pbf_solver_step(original, kDt, 1), PBF_OK) << pbf_last_error();
    pbf_stats st = pbf_stats_default();
    ASSERT_EQ(pbf_solver_get_stats(original, &st), PBF_OK);
    most = std::max(most, st.substeps);
  }
  ASSERT_GT(most, 1u) << "the compression should have asked for more substeps";
  const std::string path = temp_path("compression.pbfc");
  ASSERT_EQ(pbf_solver_save_checkpoint(original, path.c_str()), PBF_OK) << pbf_last_error();
  pbf_solver* resumed = nullptr;
  d.thread_count = 1;
  ASSERT_EQ(pbf_solver_create(&d, &resumed), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_load_checkpoint(resumed, path.c_str()), PBF_OK) << pbf_last_error();
  for (int k = 0; k < 30; ++k) {
    ASSERT_EQ(pbf_solver_step(original, kDt, 1), PBF_OK);
    ASSERT_EQ(pbf_solver_step(resumed, kDt, 1), PBF_OK);
    pbf_stats a = pbf_stats_default(), b = pbf_stats_default();
    ASSERT_EQ(pbf_solver_get_stats(original, &a), PBF_OK);
    ASSERT_EQ(pbf_solver_get_stats(resumed, &b), PBF_OK);
    ASSERT_EQ(a.substeps, b.substeps) << "frame " << k << " after the checkpoint";
  }
  EXPECT_TRUE(state_of(original) == state_of(resumed)) << "the resumed run drifted from the original";
  pbf_solver_destroy(original);
  pbf_solver_destroy(resumed);
  std::remove(path.c_str());
}

// Steps `solver` 0.1 s in one substep asked: long enough that water no step
// has measured takes the first step's split (methods/pbf/pbf_step.h), so a
// checkpoint that forgot which water is new would resume with fewer substeps.
uint32_t long_step(pbf_solver* solver) {
  EXPECT_EQ(pbf_solver_step(solver, 0.1f, 1), PBF_OK) << pbf_last_error();
  pbf_stats st = pbf_stats_default();
  EXPECT_EQ(pbf_solver_get_stats(solver, &st), PBF_OK);
  return st.substeps;
}

// The scene with its water cleared and the box from the origin to `hi`
// filled instead, not yet stepped; `count` its particles, `last` those its
// last step moved.
pbf_solver* refilled_scene(const float hi[3], size_t& count, uint32_t& last) {
  pbf_solver* s = make_scene(2);
  EXPECT_EQ(pbf_solver_clear_particles(s), PBF_OK) << pbf_last_error();
  const float lo[3] = {0, 0, 0};
  EXPECT_EQ(pbf_solver_fill_box(s, lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  pbf_stats st = pbf_stats_default();
  EXPECT_EQ(pbf_solver_get_stats(s, &st), PBF_OK);
  last = st.particle_count;
  EXPECT_EQ(pbf_solver_particle_count(s, &count), PBF_OK);
  return s;
}

// Loads the checkpoint at `path` into another solver and takes one long step
// with it and with `original`: the same substeps and the same bits. Destroys
// both and removes the file.
void expect_resumed_as_the_original(pbf_solver* original, const std::string& path) {
  pbf_solver* resumed = make_solver(1);
  ASSERT_EQ(pbf_solver_load_checkpoint(resumed, path.c_str()), PBF_OK) << pbf_last_error();
  const uint32_t substeps = long_step(original);
  EXPECT_EQ(long_step(resumed), substeps) << "the resumed run split its step otherwise";
  EXPECT_TRUE(state_of(original) == state_of(resumed)) << "the resumed run drifted from the original";
  pbf_solver_destroy(original);
  pbf_solver_destroy(resumed);
  std::remove(path.c_str());
}

TEST(Checkpoint, WaterFilledAgainBeforeTheSaveResumesBitIdentically) {
  // The scene's water cleared and filled again, fewer particles than its
  // last step moved, and saved before a step: the count of particles no
  // step has moved is in the file (version 6), not derived from the count
  // of the last step's particles, which says none are new.
  const std::string path = temp_path("refilled.pbfc");
  const float hi[3] = {0.5f, 0.6f, 0.45f};
  size_t count = 0;
  uint32_t last = 0;
  pbf_solver* original = refilled_scene(hi, count, last);
  ASSERT_LE(count, last) << "no more particles than the last step moved";
  ASSERT_EQ(pbf_solver_save_checkpoint(original, path.c_str()), PBF_OK) << pbf_last_error();
  expect_resumed_as_the_original(original, path);
}

TEST(Checkpoint, AVersion5CheckpointCountsTheParticlesBeyondItsLastStepAsNew) {
  // Before version 6 a file did not hold which water is new; the particles
  // beyond those of its last step were added since. The scene's water
  // cleared and filled again, over twice as many particles as its last step
  // moved, and saved before a step, resumes as the run that never stopped.
  const std::string path = temp_path("version5.pbfc");
  const float hi[3] = {1.0f, 0.7f, 0.5f};
  size_t count = 0;
  uint32_t last = 0;
  pbf_solver* original = refilled_scene(hi, count, last);
  ASSERT_GT(count, 2 * size_t(last)) << "most of the particles beyond those the last step moved";
  ASSERT_EQ(pbf_solver_save_checkpoint(original, path.c_str()), PBF_OK) << pbf_last_error();
  write_file(path, as_version(read_file(path), 1, 5));
  expect_resumed_as_the_original(original, path);
}

TEST(Checkpoint, AProjectiveFluidsRunResumesBitIdentically) {
  const std::string path = temp_path("resume_projective.pbfc");
  pbf_solver_desc d = scene_desc(2);
  d.method = PBF_METHOD_PROJECTIVE;
  pbf_solver* original = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &original), PBF_OK) << pbf_last_error();
  const float lo[3] = {0, 0, 0}, hi[3] = {0.4f, 0.5f, 0.4f};
  ASSERT_EQ(pbf_solver_fill_box(original, lo, hi, nullptr, nullptr), PBF_OK);
  pbf_params p = pbf_params_default();
  p.projective_iterations = 7;
  p.projective_stiffness = 3e5f;
  ASSERT_EQ(pbf_solver_set_params(original, &p), PBF_OK);
  for (int k = 0; k < 5; ++k) ASSERT_EQ(pbf_solver_step(original, kDt, 1), PBF_OK);
  ASSERT_EQ(pbf_solver_save_checkpoint(original, path.c_str()), PBF_OK) << pbf_last_error();
  for (int k = 0; k < 5; ++k) ASSERT_EQ(pbf_solver_step(original, kDt, 1), PBF_OK);

  d.thread_count = 1;
  pbf_solver* resumed = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &resumed), PBF_OK);
  ASSERT_EQ(pbf_solver_load_checkpoint(resumed, path.c_str()), PBF_OK) << pbf_last_error();
  pbf_params q = pbf_params_default();
  ASSERT_EQ(pbf_solver_get_params(resumed, &q), PBF_OK);
  EXPECT_EQ(q.projective_iterations, 7u);
  EXPECT_EQ(q.projective_stiffness, 3e5f);
  for (int k = 0; k < 5; ++k) ASSERT_EQ(pbf_solver_step(resumed, kDt, 1), PBF_OK);
  EXPECT_TRUE(state_of(original) == state_of(resumed)) << "the resumed run drifted from the original";

  // A PBF solver of the same description refuses the checkpoint, naming the method.
  d.method = PBF_METHOD_PBF;
  pbf_solver* other = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &other), PBF_OK);
  EXPECT_EQ(pbf_solver_load_checkpoint(other, path.c_str()), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("method"), std::string::npos) << pbf_last_error();
  pbf_solver_destroy(other);
  pbf_solver_destroy(original);
  pbf_solver_destroy(resumed);
  std::remove(path.c_str());
}

TEST_F(CheckpointRefusal, ASolverOfAnotherSpacing) {
  pbf_solver_desc d = scene_desc(2);
  d.particle_spacing = 0.04f;
  pbf_solver* other = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &other), PBF_OK);
  EXPECT_EQ(pbf_solver_load_checkpoint(other, path_.c_str()), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("particle_spacing"), std::string::npos) << pbf_last_error();
  size_t n = 1;
  EXPECT_EQ(pbf_solver_particle_count(other, &n), PBF_OK);
  EXPECT_EQ(n, 0u);
  pbf_solver_destroy(other);
}

TEST_F(CheckpointRefusal, ASolverOfAnotherDomain) {
  pbf_solver_desc d = scene_desc(2);
  d.domain_max[1] = 2.0f;
  pbf_solver* other = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &other), PBF_OK);
  EXPECT_EQ(pbf_solver_load_checkpoint(other, path_.c_str()), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("domain_max[1]"), std::string::npos) << pbf_last_error();
  pbf_solver_destroy(other);
}

TEST_F(CheckpointRefusal, ASolverTooSmallForTheParticles) {
  pbf_solver_desc d = scene_desc(2);
  d.max_particles = 100;
  pbf_solver* other = nullptr;
  ASSERT_EQ(pbf_solver_create(&d, &other), PBF_OK);
  EXPECT_EQ(pbf_solver_load_checkpoint(other, path_.c_str()), PBF_ERROR_CAPACITY_EXCEEDED);
  EXPECT_NE(std::string(pbf_last_error()).find("max_particles"), std::string::npos) << pbf_last_error();
  pbf_solver_destroy(other);
}

TEST(CheckpointArguments, NullAndEmptyArgumentsAreRefused) {
  pbf_solver* s = make_solver(1);
  EXPECT_EQ(pbf_solver_save_checkpoint(nullptr, "x"), PBF_ERROR_NULL_POINTER);
  EXPECT_EQ(pbf_solver_save_checkpoint(s, nullptr), PBF_ERROR_NULL_POINTER);
  EXPECT_EQ(pbf_solver_save_checkpoint(s, ""), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(pbf_solver_load_checkpoint(nullptr, "x"), PBF_ERROR_NULL_POINTER);
  EXPECT_EQ(pbf_solver_load_checkpoint(s, nullptr), PBF_ERROR_NULL_POINTER);
  EXPECT_EQ(pbf_solver_load_checkpoint(s, ""), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("path"), std::string::npos);
  pbf_solver_destroy(s);
}

TEST(CheckpointArguments, SavingIntoAMissingFolderFailsAndKeepsNothing) {
  pbf_solver* s = make_solver(1);
  const std::string path = temp_path("no-such-folder/x.pbfc");
  EXPECT_EQ(pbf_solver_save_checkpoint(s, path.c_str()), PBF_ERROR_IO);
  EXPECT_NE(std::string(pbf_last_error()).find("no-such-folder"), std::string::npos) << pbf_last_error();
  pbf_solver_destroy(s);
}

TEST(CheckpointArguments, AnEmptySolverRoundTrips) {
  const std::string path = temp_path("empty.pbfc");
  pbf_solver* s = make_solver(1);
  ASSERT_EQ(pbf_solver_save_checkpoint(s, path.c_str()), PBF_OK) << pbf_last_error();
  pbf_solver* t = make_scene(1);
  ASSERT_EQ(pbf_solver_load_checkpoint(t, path.c_str()), PBF_OK) << pbf_last_error();
  size_t n = 1;
  EXPECT_EQ(pbf_solver_particle_count(t, &n), PBF_OK);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(pbf_solver_step(t, kDt, 2), PBF_OK);
  pbf_solver_destroy(s);
  pbf_solver_destroy(t);
  std::remove(path.c_str());
}

// Loads `path` into the fixture's solver in a child process, which cannot
// hang the test or take the machine's memory when the load misbehaves.
ChildOutcome load_in_child(pbf_solver* solver, const std::string& path) {
  return pbf_test::run_in_child([&](std::string& message) {
    const pbf_status status = pbf_solver_load_checkpoint(solver, path.c_str());
    message = pbf_last_error();
    return int(status);
  });
}

void expect_not_a_regular_file(const ChildOutcome& got, const std::string& path, const std::string& kind) {
  ASSERT_TRUE(got.finished) << path << ": " << got.how;
  EXPECT_EQ(got.code, int(PBF_ERROR_IO)) << got.message;
  EXPECT_NE(got.message.find(path), std::string::npos) << got.message;
  EXPECT_NE(got.message.find(kind + ", not a regular file"), std::string::npos) << got.message;
}

TEST_F(CheckpointRefusal, AnEndlessDeviceIsRefusedBeforeAnythingIsRead) {
  // /dev/zero never ends: a loader that reads before it looks runs out of memory.
  expect_not_a_regular_file(load_in_child(solver_, "/dev/zero"), "/dev/zero", "a character device");
}

TEST_F(CheckpointRefusal, AFifoIsRefusedWithoutWaitingForAWriter) {
  TempFolder folder;
  const std::string fifo = folder / "fifo.pbfc";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  expect_not_a_regular_file(load_in_child(solver_, fifo), fifo, "a FIFO");
}

TEST_F(CheckpointRefusal, AFolderIsRefused) {
  TempFolder folder;
  expect_not_a_regular_file(load_in_child(solver_, folder / ""), folder / "", "a directory");
}

TEST_F(CheckpointRefusal, AForgedFileWithAnImpossibleNumberAnywhere) {
  // Payload words: 13 config, 27 params (the last two the density tolerance
  // and max_iterations), 1 plane count + 4 plane words, then stats (count,
  // substeps, iterations, avg and max density error, avg neighbours, max
  // neighbours, overflows, max speed, 7 doubles of times, local/global and CG
  // iterations, CG residual, substep dts, density iterations, compression
  // rate), the count of particles no step has moved, particles.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const size_t tolerance = kHeaderBytes + 4 * (13 + 25);
  const size_t stats = kHeaderBytes + 4 * (13 + 27 + 1 + 4);
  const size_t times = stats + 4 * 9;
  const size_t unmeasured = times + 8 * 7 + 4 * 7;
  uint64_t n = 0;
  std::memcpy(&n, &good_[unmeasured + 4], 8);
  ASSERT_TRUE(n > 0 && n <= 4000u) << "the particle count where the layout puts it: " << n;
  const size_t densities = unmeasured + 4 + 8 + 24 * n;
  struct Forgery {
    size_t at;
    float value;
    const char* named;
  };
  for (const Forgery& f : {Forgery{kHeaderBytes + 4 * 4, nan, "config.rest_density"},
                           Forgery{tolerance, nan, "params.density_tolerance"},
                           Forgery{tolerance, 2.0f, "density_tolerance"},
                           Forgery{tolerance + 4, 0.0f, "max_iterations"},
                           Forgery{kHeaderBytes + 4 * 3, -0.1f, "config.kernel_radius"},
                           Forgery{stats + 4 * 3, nan, "stats.avg_density_error"},
                           Forgery{stats + 4 * 8, inf, "stats.max_speed"},
                           Forgery{times + 8 * 7 + 4 * 2, nan, "stats.cg_residual"},
                           Forgery{times + 8 * 7 + 4 * 3, -0.001f, "stats.min_substep_dt"},
                           Forgery{times + 8 * 7 + 4 * 6, inf, "stats.compression_rate"},
                           Forgery{densities + 4 * 5, -1000.0f, "negative density"}}) {
    SCOPED_TRACE(f.named);
    before_ = state_of(solver_);  // each refusal below steps the solver
    std::vector<unsigned char> bytes = good_;
    std::memcpy(&bytes[f.at], &f.value, 4);
    rehash(bytes);
    write_file(path_, bytes);
    expect_refused(PBF_ERROR_IO, f.named);
  }
  for (double t : {-1.0, double(nan)}) {  // the step time, a double
    before_ = state_of(solver_);
    std::vector<unsigned char> bytes = good_;
    std::memcpy(&bytes[times], &t, 8);
    rehash(bytes);
    write_file(path_, bytes);
    expect_refused(PBF_ERROR_IO, "stats.time_total_ms");
  }
  // More particles new than it holds.
  before_ = state_of(solver_);
  std::vector<unsigned char> bytes = good_;
  const uint32_t more = static_cast<uint32_t>(n + 1);
  std::memcpy(&bytes[unmeasured], &more, 4);
  rehash(bytes);
  write_file(path_, bytes);
  expect_refused(PBF_ERROR_IO, "unmeasured is");
}

// A checkpoint saved while projective_chebyshev_rho reached 0.9999 resumes
// with the top of today's range, 0.98 (above it the acceleration threw
// particles out of the water); one beyond the old range stays refused.
TEST_F(CheckpointRefusal, AnAccelerationAboveTodaysRangeResumesAtItsTop) {
  const size_t rho = kHeaderBytes + 4 * (13 + 24);
  float saved = 0.0f;
  std::memcpy(&saved, &good_[rho], 4);
  ASSERT_EQ(saved, pbf_params_default().projective_chebyshev_rho) << "the layout puts rho here";
  std::vector<unsigned char> bytes = good_;
  const float old_top = 0.9999f;
  std::memcpy(&bytes[rho], &old_top, 4);
  rehash(bytes);
  write_file(path_, bytes);
  ASSERT_EQ(pbf_solver_load_checkpoint(solver_, path_.c_str()), PBF_OK) << pbf_last_error();
  pbf_params p{};
  p.struct_size = sizeof(p);
  ASSERT_EQ(pbf_solver_get_params(solver_, &p), PBF_OK) << pbf_last_error();
  EXPECT_EQ(p.projective_chebyshev_rho, 0.98f);
  EXPECT_EQ(pbf_solver_step(solver_, kDt, 2), PBF_OK) << pbf_last_error();

  before_ = state_of(solver_);
  const float beyond = 1.0f;
  std::memcpy(&bytes[rho], &beyond, 4);
  rehash(bytes);
  write_file(path_, bytes);
  expect_refused(PBF_ERROR_IO, "projective_chebyshev_rho");
}

// A saved scene and a folder to save it in.
class CheckpointSave : public ::testing::Test {
 protected:
  void SetUp() override {
    solver_ = make_scene(2);
    ASSERT_NE(solver_, nullptr);
  }
  void TearDown() override { pbf_solver_destroy(solver_); }

  // Saving onto `target` is refused, naming it; it keeps its kind, and no
  // temporary file is left beside it.
  void expect_save_refused(const std::string& target, const std::string& kind) {
    const mode_t before = pbf_test::kind_of(target);
    const pbf_status got = pbf_solver_save_checkpoint(solver_, target.c_str());
    EXPECT_EQ(got, PBF_ERROR_IO) << pbf_last_error();
    const std::string message = pbf_last_error();
    EXPECT_NE(message.find(target), std::string::npos) << message;
    EXPECT_NE(message.find(kind + ", not a regular file"), std::string::npos) << message;
    EXPECT_EQ(pbf_test::kind_of(target), before) << target << " was replaced";
    EXPECT_EQ(folder_.names().size(), 1u) << "a temporary file was left beside " << target;
  }

  pbf_solver* solver_ = nullptr;
  TempFolder folder_;
};

TEST_F(CheckpointSave, ANullDeviceIsNeverReplaced) {
  // Saving onto /dev/null as root once renamed the checkpoint over the
  // device; a device node of our own stands in for it.
  const std::string device = folder_ / "null";
  if (!pbf_test::make_null_device(device)) GTEST_SKIP() << "this process may not make device nodes";
  expect_save_refused(device, "a character device");
}

TEST_F(CheckpointSave, AFifoIsNeverReplaced) {
  const std::string fifo = folder_ / "fifo.pbfc";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  expect_save_refused(fifo, "a FIFO");
}

TEST_F(CheckpointSave, AFolderIsNeverReplaced) {
  const std::string sub = folder_ / "sub";
  ASSERT_EQ(::mkdir(sub.c_str(), 0700), 0) << std::strerror(errno);
  expect_save_refused(sub, "a directory");
}

TEST_F(CheckpointSave, AFailedSaveKeepsTheOldCheckpointWhole) {
  const std::string path = folder_ / "run.pbfc";
  pbf_solver* empty = make_solver(1);
  ASSERT_EQ(pbf_solver_save_checkpoint(empty, path.c_str()), PBF_OK) << pbf_last_error();
  pbf_solver_destroy(empty);
  const std::vector<char> old = pbf_test::read_bytes(path);
  {
    // Writes past the old file's size fail, as on a full disk; the scene's checkpoint is larger.
    const pbf_test::FileSizeLimit limit(old.size() + 1);
    EXPECT_EQ(pbf_solver_save_checkpoint(solver_, path.c_str()), PBF_ERROR_IO);
  }
  EXPECT_NE(std::string(pbf_last_error()).find(path), std::string::npos) << pbf_last_error();
  EXPECT_TRUE(pbf_test::read_bytes(path) == old) << "the old checkpoint changed";
  EXPECT_EQ(folder_.names().size(), 1u) << "a temporary file was left behind";
  ASSERT_EQ(pbf_solver_load_checkpoint(solver_, path.c_str()), PBF_OK) << pbf_last_error();
}

}  // namespace
