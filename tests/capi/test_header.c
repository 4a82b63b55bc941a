/*
 * test_header.c - the public header compiles as strict C99 on its own
 * (-std=c99 -Wall -Wextra -Wpedantic -Werror), its constants have their
 * documented values, and a C program can create, fill, step and destroy a
 * solver. Prints every failed check and returns 1 if any failed, else 0.
 */
#include <pbf/pbf.h>
#include <stdio.h>
#include <string.h>

static int g_failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

/* A call that must succeed; prints pbf_last_error() when it does not. */
#define CHECK_OK(call)                                                                                               \
  do {                                                                                                               \
    pbf_status check_ok_status_ = (call);                                                                            \
    if (check_ok_status_ != PBF_OK) {                                                                                \
      fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #call, pbf_status_string(check_ok_status_), \
              pbf_last_error());                                                                                     \
      ++g_failures;                                                                                                  \
    }                                                                                                                \
  } while (0)

static void check_version(void) {
  char expected[64];
  CHECK(pbf_version() == PBF_VERSION);
  CHECK(PBF_VERSION == PBF_VERSION_MAJOR * 10000 + PBF_VERSION_MINOR * 100 + PBF_VERSION_PATCH);
  CHECK(pbf_version_string() != NULL);
  CHECK(strcmp(pbf_version_string(), PBF_VERSION_STRING) == 0);
  sprintf(expected, "%d.%d.%d", PBF_VERSION_MAJOR, PBF_VERSION_MINOR, PBF_VERSION_PATCH);
  CHECK(strcmp(pbf_version_string(), expected) == 0);
}

static void check_enum_values(void) {
  CHECK(PBF_OK == 0);
  CHECK(PBF_ERROR_INVALID_ARGUMENT == 1);
  CHECK(PBF_ERROR_NULL_POINTER == 2);
  CHECK(PBF_ERROR_BUFFER_TOO_SMALL == 3);
  CHECK(PBF_ERROR_CAPACITY_EXCEEDED == 4);
  CHECK(PBF_ERROR_BACKEND_UNAVAILABLE == 5);
  CHECK(PBF_ERROR_OUT_OF_MEMORY == 6);
  CHECK(PBF_ERROR_VERSION_MISMATCH == 7);
  CHECK(PBF_ERROR_IO == 8);
  CHECK(PBF_ERROR_INTERNAL == 9);
  CHECK(PBF_ERROR_BUSY == 10);
  CHECK(PBF_BACKEND_AUTO == 0);
  CHECK(PBF_BACKEND_CPU == 1);
  CHECK(PBF_BACKEND_CUDA == 2);
  CHECK(sizeof(pbf_backend) == sizeof(int32_t) && sizeof(pbf_status) == sizeof(int32_t)); /* C++ sees : int */
  CHECK(strcmp(pbf_status_string(PBF_ERROR_IO), "PBF_ERROR_IO") == 0);
  CHECK(strcmp(pbf_backend_name(PBF_BACKEND_CPU), "cpu") == 0);
  CHECK(PBF_METHOD_PBF == 0);
  CHECK(PBF_METHOD_PROJECTIVE == 1);
  CHECK(sizeof(pbf_method) == sizeof(int32_t));
  CHECK(strcmp(pbf_method_name(PBF_METHOD_PROJECTIVE), "projective") == 0);
  CHECK(strcmp(pbf_method_name(PBF_METHOD_PBF), "pbf") == 0);
  CHECK(strcmp(pbf_method_name((pbf_method)7), "unknown") == 0);
}

static void check_defaults(void) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  pbf_params params = pbf_params_default();
  pbf_stats stats = pbf_stats_default();
  CHECK(desc.struct_size == sizeof(pbf_solver_desc));
  CHECK(params.struct_size == sizeof(pbf_params));
  CHECK(stats.struct_size == sizeof(pbf_stats));
  CHECK(desc.backend == PBF_BACKEND_AUTO);
  CHECK(desc.max_particles == 1000000u);
  CHECK(desc.particle_spacing == 0.025f);
  CHECK(desc.kernel_radius == 0.0f);
  CHECK(params.iterations == 4u);
  CHECK(params.gravity[1] == -9.81f);
  CHECK(stats.particle_count == 0u);
  CHECK(desc.method == PBF_METHOD_PBF);
  CHECK(params.projective_stiffness == 1.0e6f);
  CHECK(params.projective_iterations == 30u);
  CHECK(params.cg_max_iterations == 100u);
  CHECK(params.newton_iterations == 5u);
  CHECK(params.adaptive_dt == 1);
  CHECK(params.max_dt == 0.005f);
  CHECK(params.projective_chebyshev_rho == 0.98f);
  CHECK(params.density_tolerance == 0.001f);
  CHECK(params.max_iterations == 20u);
  CHECK(stats.density_iterations == 0u);
  CHECK(stats.cg_iterations == 0u);
  /* Fields are only appended: the new ones come last. */
  CHECK(offsetof(pbf_solver_desc, method) > offsetof(pbf_solver_desc, max_neighbors));
  CHECK(offsetof(pbf_params, projective_stiffness) > offsetof(pbf_params, max_speed));
  CHECK(offsetof(pbf_params, projective_chebyshev_rho) > offsetof(pbf_params, max_dt));
  CHECK(offsetof(pbf_params, density_tolerance) > offsetof(pbf_params, projective_chebyshev_rho));
  CHECK(offsetof(pbf_params, max_iterations) > offsetof(pbf_params, density_tolerance));
  CHECK(offsetof(pbf_stats, density_iterations) > offsetof(pbf_stats, max_substep_dt));
  CHECK(offsetof(pbf_stats, local_global_iterations) > offsetof(pbf_stats, time_vorticity_viscosity_ms));
}

static void check_solver(void) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  pbf_solver* solver = NULL;
  const float lo[3] = {0.2f, 0.2f, 0.2f};
  const float hi[3] = {0.4f, 0.4f, 0.4f};
  size_t added = 0;
  size_t count = 0;
  pbf_stats stats = pbf_stats_default();
  float positions[3 * 64];
  int available = -1;
  size_t i;

  CHECK_OK(pbf_backend_available(PBF_BACKEND_CPU, &available));
  CHECK(available == 1);

  desc.max_particles = 1000;
  desc.particle_spacing = 0.05f;
  CHECK_OK(pbf_solver_create(&desc, &solver));
  if (solver == NULL) {
    fprintf(stderr, "no solver: %s\n", pbf_last_error());
    ++g_failures;
    return;
  }
  CHECK_OK(pbf_solver_fill_box(solver, lo, hi, NULL, &added));
  CHECK(added == 64u); /* [0.2, 0.4]^3 at 0.05 m: 4^3 lattice centres */
  CHECK_OK(pbf_solver_particle_count(solver, &count));
  CHECK(count == 64u);
  CHECK_OK(pbf_solver_step(solver, 1.0f / 60.0f, 2));
  CHECK_OK(pbf_solver_get_stats(solver, &stats));
  CHECK(stats.particle_count == 64u);
  CHECK(stats.substeps == 2u);
  CHECK_OK(pbf_solver_get_positions(solver, positions, sizeof positions / sizeof positions[0]));
  for (i = 0; i < sizeof positions / sizeof positions[0]; ++i) {
    CHECK(positions[i] >= 0.0f && positions[i] <= 1.0f);
  }
  /* An error reaches C callers as a status and a message. */
  CHECK(pbf_solver_step(solver, -1.0f, 1) == PBF_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(pbf_last_error(), "dt") != NULL);
  CHECK_OK(pbf_solver_destroy(solver));
  CHECK_OK(pbf_solver_destroy(NULL));
}

static void check_sdf(void) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  pbf_solver* solver = NULL;
  pbf_sdf* ball = NULL;
  const float centre[3] = {0.5f, 0.5f, 0.5f};
  const float inside[3] = {0.1f, 0.0f, 0.0f};
  uint32_t dims[3] = {0u, 0u, 0u};
  uint32_t index = 99u;
  float distance = 1.0f;
  size_t added = 0;

  desc.max_particles = 1000;
  desc.particle_spacing = 0.05f;
  CHECK_OK(pbf_solver_create(&desc, &solver));
  CHECK_OK(pbf_sdf_sphere(0.2f, 0.02f, &ball));
  if (solver == NULL || ball == NULL) {
    fprintf(stderr, "no solver or field: %s\n", pbf_last_error());
    ++g_failures;
    pbf_solver_destroy(solver);
    pbf_sdf_destroy(ball);
    return;
  }
  CHECK_OK(pbf_sdf_get_grid(ball, dims, NULL, NULL));
  CHECK(dims[0] >= 20u + 8u);
  CHECK_OK(pbf_sdf_distance(ball, inside, &distance));
  CHECK(distance < -0.097f && distance > -0.103f); /* trilinear: within a tenth of a cell */
  CHECK_OK(pbf_solver_fill_sdf(solver, ball, NULL, centre, NULL, &added));
  CHECK(added > 100u && added < 400u); /* 4/3 pi 0.2^3 / 0.05^3 = 268 */
  CHECK_OK(pbf_solver_add_obstacle(solver, ball, NULL, centre, &index));
  CHECK(index == 0u);
  CHECK_OK(pbf_sdf_destroy(ball)); /* the solver keeps its own copy */
  CHECK(pbf_sdf_sphere(-1.0f, 0.02f, &ball) == PBF_ERROR_INVALID_ARGUMENT);
  CHECK(ball == NULL);
  CHECK(strstr(pbf_last_error(), "radius") != NULL);
  CHECK_OK(pbf_sdf_destroy(NULL));
  CHECK_OK(pbf_solver_step(solver, 1.0f / 60.0f, 1));
  CHECK_OK(pbf_solver_destroy(solver));
}

int main(void) {
  check_version();
  check_enum_values();
  check_defaults();
  check_solver();
  check_sdf();
  if (g_failures != 0) {
    fprintf(stderr, "test_header_c: %d check(s) failed\n", g_failures);
    return 1;
  }
  printf("test_header_c: all checks passed\n");
  return 0;
}
