/*
 * unity_package_loader.c - loads a libpbf.so the way a Unity player does
 * (dlopen by path, nothing on LD_LIBRARY_PATH), steps a small solver on it,
 * and prints the path of every shared object then in the process, one per
 * line after "loaded: ", for check_unity_package.cmake to judge where each
 * library came from.
 *
 *   unity_package_loader <path to libpbf.so>
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>

#include <pbf/pbf.h>

typedef pbf_status (*create_fn)(const pbf_solver_desc*, pbf_solver**);
typedef pbf_status (*fill_box_fn)(pbf_solver*, const float*, const float*, const float*, size_t*);
typedef pbf_status (*step_fn)(pbf_solver*, float, uint32_t);
typedef pbf_status (*destroy_fn)(pbf_solver*);
typedef const char* (*last_error_fn)(void);

static int print_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  (void)data;
  if (info->dlpi_name && info->dlpi_name[0]) printf("loaded: %s\n", info->dlpi_name);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: unity_package_loader <path to libpbf.so>\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "FAILED: dlopen: %s\n", dlerror());
    return 1;
  }
  create_fn create = (create_fn)dlsym(library, "pbf_solver_create");
  fill_box_fn fill_box = (fill_box_fn)dlsym(library, "pbf_solver_fill_box");
  step_fn step = (step_fn)dlsym(library, "pbf_solver_step");
  destroy_fn destroy = (destroy_fn)dlsym(library, "pbf_solver_destroy");
  last_error_fn last_error = (last_error_fn)dlsym(library, "pbf_last_error");
  if (!create || !fill_box || !step || !destroy || !last_error) {
    fprintf(stderr, "FAILED: a pbf_ function is missing from %s\n", argv[1]);
    return 1;
  }
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = PBF_BACKEND_CPU;
  desc.particle_spacing = 0.1f;
  desc.max_particles = 1000;
  pbf_solver* solver = NULL;
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.4f, 0.4f, 0.4f};
  size_t added = 0;
  if (create(&desc, &solver) != PBF_OK || fill_box(solver, lo, hi, NULL, &added) != PBF_OK ||
      step(solver, 1.0f / 60.0f, 2) != PBF_OK) {
    fprintf(stderr, "FAILED: %s\n", last_error());
    return 1;
  }
  printf("stepped %zu particles\n", added);
  dl_iterate_phdr(print_object, NULL);
  destroy(solver);
  dlclose(library);
  return 0;
}
