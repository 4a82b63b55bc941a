// pbf_solver_map()/pbf_solver_unmap(): a lent field equals what the copying
// getters return, stays valid while particles cannot change, and every
// misuse is refused with a status and a message.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

pbf_solver* make_scene(pbf_backend backend = PBF_BACKEND_CPU) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = backend;
  d.particle_spacing = 0.05f;
  pbf_solver* s = nullptr;
  EXPECT_EQ(pbf_solver_create(&d, &s), PBF_OK) << pbf_last_error();
  const float lo[3] = {0, 0, 0}, hi[3] = {0.4f, 0.5f, 0.4f};
  EXPECT_EQ(pbf_solver_fill_box(s, lo, hi, nullptr, nullptr), PBF_OK) << pbf_last_error();
  for (int k = 0; k < 5; ++k) EXPECT_EQ(pbf_solver_step(s, 1.0f / 60.0f, 2), PBF_OK) << pbf_last_error();
  const uint32_t gone[] = {3, 4};  // user order now differs from the solver's
  EXPECT_EQ(pbf_solver_remove_particles(s, gone, 2), PBF_OK) << pbf_last_error();
  return s;
}

size_t count_of(const pbf_solver* s) {
  size_t n = 0;
  EXPECT_EQ(pbf_solver_particle_count(s, &n), PBF_OK);
  return n;
}

TEST(CApiMap, EveryMappedFieldEqualsTheCopyingGetter) {
  pbf_solver* s = make_scene();
  const size_t n = count_of(s);
  std::vector<float> x(3 * n), v(3 * n), rho(n);
  ASSERT_EQ(pbf_solver_get_positions(s, x.data(), x.size()), PBF_OK);
  ASSERT_EQ(pbf_solver_get_velocities(s, v.data(), v.size()), PBF_OK);
  ASSERT_EQ(pbf_solver_get_densities(s, rho.data(), rho.size()), PBF_OK);
  const float *mx = nullptr, *mv = nullptr, *mrho = nullptr;
  size_t count = 0;
  ASSERT_EQ(pbf_solver_map(s, PBF_FIELD_POSITIONS, PBF_MEMORY_HOST, &mx, &count), PBF_OK) << pbf_last_error();
  EXPECT_EQ(count, n);
  ASSERT_EQ(pbf_solver_map(s, PBF_FIELD_VELOCITIES, PBF_MEMORY_HOST, &mv, nullptr), PBF_OK) << pbf_last_error();
  ASSERT_EQ(pbf_solver_map(s, PBF_FIELD_DENSITIES, PBF_MEMORY_HOST, &mrho, nullptr), PBF_OK) << pbf_last_error();
  EXPECT_EQ(std::memcmp(mx, x.data(), x.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(mv, v.data(), v.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(mrho, rho.data(), rho.size() * sizeof(float)), 0);
  for (pbf_field f : {PBF_FIELD_POSITIONS, PBF_FIELD_VELOCITIES, PBF_FIELD_DENSITIES})
    EXPECT_EQ(pbf_solver_unmap(s, f), PBF_OK) << pbf_last_error();
  pbf_solver_destroy(s);
}

TEST(CApiMap, ParticlesCannotChangeWhileAFieldIsMapped) {
  pbf_solver* s = make_scene();
  const size_t n = count_of(s);
  const float* mx = nullptr;
  ASSERT_EQ(pbf_solver_map(s, PBF_FIELD_POSITIONS, PBF_MEMORY_HOST, &mx, nullptr), PBF_OK);
  const std::vector<float> lent(mx, mx + 3 * n);
  std::vector<float> x(lent);
  const float lo[3] = {0.8f, 0, 0}, hi[3] = {0.9f, 0.1f, 0.1f};
  const uint32_t first = 0;
  EXPECT_EQ(pbf_solver_step(s, 1.0f / 60.0f, 1), PBF_ERROR_BUSY);
  EXPECT_NE(std::string(pbf_last_error()).find("pbf_solver_unmap"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(pbf_solver_step_async(s, 1.0f / 60.0f, 1), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_set_positions(s, x.data(), x.size()), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_set_velocities(s, x.data(), x.size()), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_add_particles(s, x.data(), nullptr, 1), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_fill_box(s, lo, hi, nullptr, nullptr), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_remove_particles(s, &first, 1), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_clear_particles(s), PBF_ERROR_BUSY);
  EXPECT_EQ(pbf_solver_load_checkpoint(s, "none.pbfc"), PBF_ERROR_BUSY);
  // Reading, parameters and planes still work.
  std::vector<float> copy(3 * n);
  EXPECT_EQ(pbf_solver_get_positions(s, copy.data(), copy.size()), PBF_OK);
  pbf_params p = pbf_params_default();
  EXPECT_EQ(pbf_solver_set_params(s, &p), PBF_OK);
  const float up[3] = {0, 1, 0};
  EXPECT_EQ(pbf_solver_add_plane(s, up, 0.0f, nullptr), PBF_OK);
  EXPECT_EQ(count_of(s), n);
  EXPECT_EQ(std::memcmp(mx, lent.data(), lent.size() * sizeof(float)), 0) << "the lent memory changed";
  ASSERT_EQ(pbf_solver_unmap(s, PBF_FIELD_POSITIONS), PBF_OK);
  EXPECT_EQ(pbf_solver_step(s, 1.0f / 60.0f, 1), PBF_OK) << pbf_last_error();
  pbf_solver_destroy(s);
}

TEST(CApiMap, MisuseIsRefused) {
  pbf_solver* s = make_scene();
  const float* data = nullptr;
  EXPECT_EQ(pbf_solver_map(nullptr, PBF_FIELD_POSITIONS, PBF_MEMORY_HOST, &data, nullptr), PBF_ERROR_NULL_POINTER);
  EXPECT_EQ(pbf_solver_map(s, PBF_FIELD_POSITIONS, PBF_MEMORY_HOST, nullptr, nullptr), PBF_ERROR_NULL_POINTER);
  EXPECT_EQ(pbf_solver_map(s, static_cast<pbf_field>(3), PBF_MEMORY_HOST, &data, nullptr),
            PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("field"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(pbf_solver_map(s, PBF_FIELD_POSITIONS, static_cast<pbf_memory>(-1), &data, nullptr),
            PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("memory"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(pbf_solver_map(s, PBF_FIELD_POSITIONS, PBF_MEMORY_DEVICE, &data, nullptr), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("PBF_BACKEND_CUDA"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(data, nullptr) << "nothing was lent";
  EXPECT_EQ(pbf_solver_unmap(s, PBF_FIELD_VELOCITIES), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("not mapped"), std::string::npos) << pbf_last_error();
  ASSERT_EQ(pbf_solver_map(s, PBF_FIELD_VELOCITIES, PBF_MEMORY_HOST, &data, nullptr), PBF_OK);
  EXPECT_EQ(pbf_solver_map(s, PBF_FIELD_VELOCITIES, PBF_MEMORY_HOST, &data, nullptr), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(pbf_last_error()).find("already mapped"), std::string::npos) << pbf_last_error();
  EXPECT_EQ(pbf_solver_unmap(s, PBF_FIELD_VELOCITIES), PBF_OK);
  EXPECT_EQ(pbf_solver_unmap(s, static_cast<pbf_field>(7)), PBF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(pbf_solver_step(s, 1.0f / 60.0f, 1), PBF_OK) << "the solver is usable after all that";
  pbf_solver_destroy(s);
}

TEST(CApiMap, NothingCanBeMappedDuringAnAsynchronousStep) {
  pbf_solver* s = make_scene();
  const float* data = nullptr;
  ASSERT_EQ(pbf_solver_step_async(s, 1.0f / 60.0f, 2), PBF_OK);
  EXPECT_EQ(pbf_solver_map(s, PBF_FIELD_POSITIONS, PBF_MEMORY_HOST, &data, nullptr), PBF_ERROR_BUSY);
  ASSERT_EQ(pbf_solver_wait(s), PBF_OK);
  EXPECT_EQ(pbf_solver_map(s, PBF_FIELD_POSITIONS, PBF_MEMORY_HOST, &data, nullptr), PBF_OK);
  EXPECT_EQ(pbf_solver_destroy(s), PBF_OK) << "destroying a solver with a mapped field is allowed";
}

}  // namespace
