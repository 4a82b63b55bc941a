/*
 * binding_reference.c - writes what the binding tests compare against: the
 * C structs' sizes and defaults, and the particles of a small dam break run
 * through the C API. The C# and Java tests run the same scene through their
 * bindings and must match it bit for bit on the CPU.
 *
 *   binding_reference <out-dir>   writes <out-dir>/facts.txt and <out-dir>/dam_break.f32
 *
 * facts.txt holds "key=value" lines: integers in decimal, floats as the hex
 * of their IEEE-754 bits (so that nothing is lost in printing). dam_break.f32
 * holds little-endian float32: positions (3n), velocities (3n), densities (n).
 *
 * The scene (keep it in step with the tests: BindingTests.cs, ReferenceTest.java):
 *   desc: CPU, spacing 0.05, max_particles 20000, domain (0,0,0)-(1.6,1.0,0.6)
 *   params: defaults with iterations 3, xsph 0.02, vorticity 0.02, friction 0.1
 *   particles: fill_box (0,0,0)-(0.5,0.6,0.4) at rest, then 2 x 2 x 2 particles
 *     at (1.2 + 0.05 i, 0.7 + 0.05 j, 0.2 + 0.05 k) moving at (-1, 0, 0.5)
 *   plane: normal (-1, 0.2, 0), offset 1.5
 *   40 steps of 1/60 s with 2 substeps
 */
#include <pbf/pbf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    pbf_status status_ = (call);                                                                \
    if (status_ != PBF_OK) {                                                                    \
      fprintf(stderr, "binding_reference: %s: %s\n", pbf_status_string(status_), pbf_last_error()); \
      exit(EXIT_FAILURE);                                                                       \
    }                                                                                           \
  } while (0)

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static void put_float(FILE* f, const char* key, float value) { fprintf(f, "%s=%08x\n", key, (unsigned)bits(value)); }
static void put_int(FILE* f, const char* key, long long value) { fprintf(f, "%s=%lld\n", key, value); }

static void write_defaults(FILE* f) {
  pbf_solver_desc d = pbf_solver_desc_default();
  pbf_params p = pbf_params_default();
  put_int(f, "sizeof.pbf_solver_desc", (long long)sizeof(pbf_solver_desc));
  put_int(f, "sizeof.pbf_params", (long long)sizeof(pbf_params));
  put_int(f, "sizeof.pbf_stats", (long long)sizeof(pbf_stats));
  put_int(f, "version", (long long)PBF_VERSION);
  put_int(f, "desc.backend", d.backend);
  put_int(f, "desc.device_index", d.device_index);
  put_int(f, "desc.max_particles", d.max_particles);
  put_float(f, "desc.particle_spacing", d.particle_spacing);
  put_float(f, "desc.kernel_radius", d.kernel_radius);
  put_float(f, "desc.rest_density", d.rest_density);
  for (int a = 0; a < 3; ++a) {
    char key[32];
    snprintf(key, sizeof key, "desc.domain_min.%d", a);
    put_float(f, key, d.domain_min[a]);
    snprintf(key, sizeof key, "desc.domain_max.%d", a);
    put_float(f, key, d.domain_max[a]);
    snprintf(key, sizeof key, "params.gravity.%d", a);
    put_float(f, key, p.gravity[a]);
  }
  put_int(f, "desc.thread_count", d.thread_count);
  put_int(f, "desc.max_neighbors", d.max_neighbors);
  put_int(f, "params.iterations", p.iterations);
  put_float(f, "params.relaxation", p.relaxation);
  put_int(f, "params.unilateral", p.unilateral);
  put_float(f, "params.artificial_pressure_k", p.artificial_pressure_k);
  put_float(f, "params.artificial_pressure_n", p.artificial_pressure_n);
  put_float(f, "params.artificial_pressure_dq", p.artificial_pressure_dq);
  put_float(f, "params.xsph_viscosity", p.xsph_viscosity);
  put_float(f, "params.vorticity_epsilon", p.vorticity_epsilon);
  put_float(f, "params.restitution", p.restitution);
  put_float(f, "params.friction", p.friction);
  put_float(f, "params.max_speed", p.max_speed);
}

static void write_floats(FILE* f, const float* v, size_t n) {
  for (size_t i = 0; i < n; ++i) {  /* little-endian whatever the host */
    uint32_t u = bits(v[i]);
    unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
    fwrite(b, 1, 4, f);
  }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: binding_reference <out-dir>\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/facts.txt", argv[1]);
  FILE* facts = fopen(path, "w");
  if (!facts) {
    perror(path);
    return 1;
  }
  write_defaults(facts);

  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = PBF_BACKEND_CPU;
  desc.particle_spacing = 0.05f;
  desc.max_particles = 20000u;
  desc.domain_max[0] = 1.6f;
  desc.domain_max[1] = 1.0f;
  desc.domain_max[2] = 0.6f;
  pbf_solver* solver = NULL;
  CHECK(pbf_solver_create(&desc, &solver));

  pbf_params params = pbf_params_default();
  params.iterations = 3u;
  params.xsph_viscosity = 0.02f;
  params.vorticity_epsilon = 0.02f;
  params.friction = 0.1f;
  CHECK(pbf_solver_set_params(solver, &params));

  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.5f, 0.6f, 0.4f};
  CHECK(pbf_solver_fill_box(solver, lo, hi, NULL, NULL));
  float drop[24], drop_v[24];
  int k = 0;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x, ++k) {
        drop[3 * k] = 1.2f + 0.05f * x;
        drop[3 * k + 1] = 0.7f + 0.05f * y;
        drop[3 * k + 2] = 0.2f + 0.05f * z;
        drop_v[3 * k] = -1.0f;
        drop_v[3 * k + 1] = 0.0f;
        drop_v[3 * k + 2] = 0.5f;
      }
  CHECK(pbf_solver_add_particles(solver, drop, drop_v, 8));
  const float normal[3] = {-1.0f, 0.2f, 0.0f};
  CHECK(pbf_solver_add_plane(solver, normal, 1.5f, NULL));

  for (int step = 0; step < 40; ++step) CHECK(pbf_solver_step(solver, 1.0f / 60.0f, 2));

  size_t n = 0;
  CHECK(pbf_solver_particle_count(solver, &n));
  float* data = malloc(7 * n * sizeof *data + 1);
  if (!data) return 1;
  CHECK(pbf_solver_get_positions(solver, data, 3 * n));
  CHECK(pbf_solver_get_velocities(solver, data + 3 * n, 3 * n));
  CHECK(pbf_solver_get_densities(solver, data + 6 * n, n));
  pbf_stats stats = pbf_stats_default();
  CHECK(pbf_solver_get_stats(solver, &stats));
  put_int(facts, "dam_break.count", (long long)n);
  put_float(facts, "dam_break.avg_density_error", stats.avg_density_error);
  float mass = 0.0f;
  CHECK(pbf_solver_get_particle_mass(solver, &mass));
  put_float(facts, "dam_break.mass", mass);
  CHECK(pbf_solver_destroy(solver));

  snprintf(path, sizeof path, "%s/dam_break.f32", argv[1]);
  FILE* out = fopen(path, "wb");
  if (!out) {
    perror(path);
    return 1;
  }
  write_floats(out, data, 7 * n);
  free(data);
  if (fclose(out) != 0 || fclose(facts) != 0) {
    perror("binding_reference");
    return 1;
  }
  return 0;
}
