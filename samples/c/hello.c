/* hello.c - the smallest pbf program: a block of water falls for one second. */
#include <pbf/pbf.h>
#include <stdio.h>
#include <stdlib.h>

static void check(pbf_status status) {
  if (status != PBF_OK) {
    fprintf(stderr, "pbf error: %s\n", pbf_last_error());
    exit(1);
  }
}

int main(void) {
  if (pbf_version() != PBF_VERSION) {
    fprintf(stderr, "header %s but library %s\n", PBF_VERSION_STRING, pbf_version_string());
    return 1;
  }
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.particle_spacing = 0.05f;
  pbf_solver* solver = NULL;
  check(pbf_solver_create(&desc, &solver));

  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.5f, 0.5f, 0.5f};
  size_t count = 0;
  check(pbf_solver_fill_box(solver, lo, hi, NULL, &count));
  for (int frame = 0; frame < 60; ++frame) check(pbf_solver_step(solver, 1.0f / 60.0f, 4));

  pbf_stats stats = pbf_stats_default();
  check(pbf_solver_get_stats(solver, &stats));
  float* positions = (float*)malloc(3 * count * sizeof(float));
  check(pbf_solver_get_positions(solver, positions, 3 * count));
  printf("pbf %s: %zu particles, particle 0 at (%.3f, %.3f, %.3f), average density error %.3f%%\n",
         pbf_version_string(), count, positions[0], positions[1], positions[2], 100.0 * stats.avg_density_error);
  free(positions);
  check(pbf_solver_destroy(solver));
  return 0;
}
