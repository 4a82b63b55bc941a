// fuzz_checkpoint - a libFuzzer target for checkpoint files
// (pbf_solver_load_checkpoint).
//
// An input is a checkpoint's payload behind one byte that chooses the
// method of the solver it loads into (bit 7: Projective Fluids) and the
// format version the header announces (the other bits, modulo the versions
// read). The target writes the payload under a correct header (magic,
// version, the payload's size and FNV-1a hash): a changed byte would
// otherwise never pass the hash, and the fuzzer would never reach the checks
// of the values behind it, which a forged file passes too. The corpus starts
// from a checkpoint of each method, saved by this process.
//
// Fails the run: a crash or a sanitizer report; a status other than PBF_OK,
// PBF_ERROR_IO, PBF_ERROR_INVALID_ARGUMENT or PBF_ERROR_CAPACITY_EXCEEDED; a
// refusal whose message does not name the function, or that changed the
// solver's particles; a loaded state whose parameters the solver refuses
// back, or whose next step (with its iteration counts kept light) fails or
// leaves a position or velocity that is not finite.
#include <pbf/pbf.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/hash.h"
#include "fuzz_files.h"
#include "io/checkpoint.h"

namespace {

using pbf_fuzz::fail;

constexpr size_t kHeaderBytes = 32;  // magic, version, reserved, payload size, payload hash
constexpr unsigned char kProjectiveBit = 0x80;

pbf_solver* make_solver(bool projective) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.method = projective ? PBF_METHOD_PROJECTIVE : PBF_METHOD_PBF;
  d.thread_count = 1;
  d.particle_spacing = 0.05f;
  d.max_particles = 512;
  for (int a = 0; a < 3; ++a) d.domain_max[a] = 0.5f;
  pbf_solver* s = nullptr;
  if (pbf_solver_create(&d, &s) != PBF_OK) fail(std::string("pbf_solver_create: ") + pbf_last_error());
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.15f, 0.15f, 0.15f};  // 27 particles
  if (pbf_solver_fill_box(s, lo, hi, nullptr, nullptr) != PBF_OK) fail(pbf_last_error());
  return s;
}

std::vector<float> field_of(pbf_solver* s, pbf_field field) {
  size_t n = 0;
  if (pbf_solver_particle_count(s, &n) != PBF_OK) fail(pbf_last_error());
  std::vector<float> values(3 * n);
  const pbf_status status = field == PBF_FIELD_POSITIONS ? pbf_solver_get_positions(s, values.data(), values.size())
                                                         : pbf_solver_get_velocities(s, values.data(), values.size());
  if (status != PBF_OK) fail(pbf_last_error());
  return values;
}

// The seed of one method: its byte, then the payload of a checkpoint saved after two steps.
std::vector<unsigned char> seed_of(bool projective) {
  pbf_solver* s = make_solver(projective);
  for (int k = 0; k < 2; ++k)
    if (pbf_solver_step(s, 1.0f / 60.0f, 1) != PBF_OK) fail(pbf_last_error());
  const pbf_fuzz::ScratchFile saved("fuzz_checkpoint_seed");
  if (pbf_solver_save_checkpoint(s, saved.path().c_str()) != PBF_OK) fail(pbf_last_error());
  pbf_solver_destroy(s);
  const std::vector<unsigned char> file = pbf_fuzz::read_file(saved.path());
  if (file.size() <= kHeaderBytes) fail("the seed checkpoint is empty");
  std::vector<unsigned char> seed{static_cast<unsigned char>(
      (pbf::kCheckpointVersion - pbf::kOldestCheckpointVersion) | (projective ? kProjectiveBit : 0))};
  seed.insert(seed.end(), file.begin() + kHeaderBytes, file.end());
  return seed;
}

std::vector<unsigned char> checkpoint_file(uint32_t version, const uint8_t* payload, size_t size) {
  std::vector<unsigned char> file(kHeaderBytes);
  std::memcpy(file.data(), "PBFCHKPT", 8);
  const uint32_t reserved = 0;
  const uint64_t bytes = size, hash = pbf::fnv1a(payload, size);
  std::memcpy(&file[8], &version, 4);  // the header is little-endian, as is every machine this runs on
  std::memcpy(&file[12], &reserved, 4);
  std::memcpy(&file[16], &bytes, 8);
  std::memcpy(&file[24], &hash, 8);
  file.insert(file.end(), payload, payload + size);
  return file;
}

// A loaded checkpoint's parameters may be valid and still make a step take minutes (the CFL split
// takes up to 1000 pieces, each up to max_iterations or projective_iterations long): the step that
// checks the loaded state runs with them kept light, as tests/hostile/hostile_caller.cpp keeps them.
void lighten(pbf_solver* s) {
  pbf_params p = pbf_params_default();
  if (pbf_solver_get_params(s, &p) != PBF_OK) fail(pbf_last_error());
  p.iterations = std::min(p.iterations, 8u);
  p.max_iterations = std::min(p.max_iterations, 8u);
  p.projective_iterations = std::min(p.projective_iterations, 6u);
  p.cg_max_iterations = std::min(p.cg_max_iterations, 20u);
  p.newton_iterations = std::min(p.newton_iterations, 4u);
  p.max_speed = std::min(p.max_speed, 5.0f);
  p.cfl_number = std::max(p.cfl_number, 0.1f);
  for (float& g : p.gravity) g = std::max(-100.0f, std::min(g, 100.0f));
  if (pbf_solver_set_params(s, &p) != PBF_OK) fail(std::string("a loaded checkpoint's parameters: ") + pbf_last_error());
}

bool all_finite(const std::vector<float>& values) {
  for (float v : values)
    if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  pbf_fuzz::seed_corpus(*argc, *argv, "seed_pbf", seed_of(false));
  pbf_fuzz::seed_corpus(*argc, *argv, "seed_projective", seed_of(true));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool projective = (data[0] & kProjectiveBit) != 0;
  const uint32_t versions = pbf::kCheckpointVersion - pbf::kOldestCheckpointVersion + 1;
  const uint32_t version = pbf::kOldestCheckpointVersion + (data[0] & ~kProjectiveBit) % versions;
  static const pbf_fuzz::ScratchFile file("fuzz_checkpoint.pbfc");
  const std::string& path = file.path();
  pbf_fuzz::write_file(path, checkpoint_file(version, data + 1, size - 1));

  pbf_solver* s = make_solver(projective);
  const std::vector<float> before = field_of(s, PBF_FIELD_POSITIONS);
  const pbf_status status = pbf_solver_load_checkpoint(s, path.c_str());
  if (status == PBF_OK) {
    lighten(s);
    if (pbf_solver_step(s, 1.0f / 60.0f, 1) != PBF_OK)
      fail(std::string("a loaded checkpoint's step failed: ") + pbf_last_error());
    if (!all_finite(field_of(s, PBF_FIELD_POSITIONS)) || !all_finite(field_of(s, PBF_FIELD_VELOCITIES)))
      fail("a loaded checkpoint's step left a position or velocity that is not finite");
  } else if (status == PBF_ERROR_IO || status == PBF_ERROR_INVALID_ARGUMENT ||
             status == PBF_ERROR_CAPACITY_EXCEEDED) {
    if (std::string(pbf_last_error()).find("pbf_solver_load_checkpoint") == std::string::npos)
      fail(std::string("a refusal that does not name the function: ") + pbf_last_error());
    if (field_of(s, PBF_FIELD_POSITIONS) != before) fail("a refused checkpoint changed the solver's particles");
  } else {
    fail(std::string("pbf_solver_load_checkpoint returned ") + pbf_status_string(status) + ": " + pbf_last_error());
  }
  pbf_solver_destroy(s);
  return 0;
}
