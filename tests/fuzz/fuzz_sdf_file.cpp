// fuzz_sdf_file - a libFuzzer target for signed distance field files
// (pbf_sdf_load).
//
// An input is what a field file holds between its magic and version and its
// hash: the dimensions, origin, cell and values. The target writes it with
// the magic, format version 1 and the FNV-1a hash of every byte before it, so
// that the fuzzer reaches the checks of the values (a changed byte would
// otherwise never pass the hash). The corpus starts from a small sphere's
// file, saved by this process. A field that loads is used as a user would:
// its grid and a distance read back, then an obstacle, a body of water filled
// from it, its surface sampled, and a step of the solver.
//
// Fails the run: a crash or a sanitizer report; a load refused with a status
// other than PBF_ERROR_IO or with a message that does not name the function;
// a loaded field whose use fails (but for a fill beyond the solver's room),
// reads a distance that is not finite, or whose step leaves a position that
// is not finite.
#include <pbf/pbf.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/hash.h"
#include "fuzz_files.h"
#include "geometry/sdf_file.h"

namespace {

using pbf_fuzz::fail;

constexpr size_t kMagicAndVersion = 12;  // "PBFSDF\0\n", u32 version
constexpr size_t kHashBytes = 8;

void expect_ok(pbf_status status, const char* what) {
  if (status != PBF_OK) fail(std::string(what) + " of a loaded field failed: " + pbf_last_error());
}

std::vector<unsigned char> seed() {
  pbf_sdf* sphere = nullptr;
  expect_ok(pbf_sdf_sphere(0.1f, 0.05f, &sphere), "pbf_sdf_sphere");
  const pbf_fuzz::ScratchFile saved("fuzz_sdf_seed");
  expect_ok(pbf_sdf_save(sphere, saved.path().c_str()), "pbf_sdf_save");
  pbf_sdf_destroy(sphere);
  const std::vector<unsigned char> file = pbf_fuzz::read_file(saved.path());
  if (file.size() <= kMagicAndVersion + kHashBytes) fail("the seed field's file is empty");
  return std::vector<unsigned char>(file.begin() + kMagicAndVersion, file.end() - kHashBytes);
}

std::vector<unsigned char> field_file(const uint8_t* data, size_t size) {
  std::vector<unsigned char> file(kMagicAndVersion);
  std::memcpy(file.data(), "PBFSDF\0\n", 8);
  const uint32_t version = pbf::kSdfFileVersion;
  std::memcpy(&file[8], &version, 4);  // little-endian, as is every machine this runs on
  file.insert(file.end(), data, data + size);
  const uint64_t hash = pbf::fnv1a(file.data(), file.size());
  const unsigned char* h = reinterpret_cast<const unsigned char*>(&hash);
  file.insert(file.end(), h, h + kHashBytes);
  return file;
}

// What a user does with a field: reads it, and puts it in a solver as an obstacle and as water.
void use(const pbf_sdf* field) {
  uint32_t dims[3] = {0, 0, 0};
  float origin[3] = {0, 0, 0}, cell = 0.0f;
  expect_ok(pbf_sdf_get_grid(field, dims, origin, &cell), "pbf_sdf_get_grid");
  const float centre[3] = {origin[0] + 0.5f * cell * float(dims[0] - 1), origin[1] + 0.5f * cell * float(dims[1] - 1),
                           origin[2] + 0.5f * cell * float(dims[2] - 1)};
  float distance = NAN;
  expect_ok(pbf_sdf_distance(field, centre, &distance), "pbf_sdf_distance");
  if (!std::isfinite(distance)) fail("a loaded field's distance is not finite");

  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CPU;
  d.thread_count = 1;
  d.particle_spacing = 0.05f;
  d.max_particles = 4096;
  for (int a = 0; a < 3; ++a) d.domain_max[a] = 0.5f;
  pbf_solver* s = nullptr;
  expect_ok(pbf_solver_create(&d, &s), "pbf_solver_create");
  const float at[3] = {0.25f, 0.25f, 0.25f}, above[3] = {0.25f, 0.4f, 0.25f};
  expect_ok(pbf_solver_add_obstacle(s, field, nullptr, at, nullptr), "pbf_solver_add_obstacle");
  const pbf_status filled = pbf_solver_fill_sdf(s, field, nullptr, above, nullptr, nullptr);
  if (filled != PBF_OK && filled != PBF_ERROR_CAPACITY_EXCEEDED) expect_ok(filled, "pbf_solver_fill_sdf");
  const pbf_status sampled = pbf_solver_add_sdf_boundary_particles(s, field, nullptr, at, nullptr);
  if (sampled != PBF_OK && sampled != PBF_ERROR_CAPACITY_EXCEEDED)
    expect_ok(sampled, "pbf_solver_add_sdf_boundary_particles");
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.5f, 0.1f, 0.5f};
  expect_ok(pbf_solver_fill_box(s, lo, hi, nullptr, nullptr), "pbf_solver_fill_box");
  expect_ok(pbf_solver_step(s, 1.0f / 60.0f, 1), "pbf_solver_step");
  size_t n = 0;
  expect_ok(pbf_solver_particle_count(s, &n), "pbf_solver_particle_count");
  std::vector<float> x(3 * n);
  expect_ok(pbf_solver_get_positions(s, x.data(), x.size()), "pbf_solver_get_positions");
  for (float v : x)
    if (!std::isfinite(v)) fail("a step with a loaded field left a position that is not finite");
  pbf_solver_destroy(s);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  pbf_fuzz::seed_corpus(*argc, *argv, "seed_sphere", seed());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const pbf_fuzz::ScratchFile file("fuzz_sdf_file.pbfsdf");
  const std::string& path = file.path();
  pbf_fuzz::write_file(path, field_file(data, size));
  pbf_sdf* field = nullptr;
  const pbf_status status = pbf_sdf_load(path.c_str(), &field);
  if (status == PBF_OK) {
    if (field == nullptr) fail("pbf_sdf_load returned PBF_OK and no field");
    use(field);
    pbf_sdf_destroy(field);
  } else if (status == PBF_ERROR_IO) {
    if (std::string(pbf_last_error()).find("pbf_sdf_load") == std::string::npos)
      fail(std::string("a refusal that does not name the function: ") + pbf_last_error());
    if (field != nullptr) fail("a refused load returned a field");
  } else {
    fail(std::string("pbf_sdf_load returned ") + pbf_status_string(status) + ": " + pbf_last_error());
  }
  return 0;
}
