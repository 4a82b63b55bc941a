/*
 * worker_threads_test.c - the library stops its worker threads when the last
 * solver goes, so that a host which unloads native code at exit survives it.
 *
 * mono unloads libpbf (and with it oneTBB) when it exits; any oneTBB worker
 * thread still alive then runs into unmapped code and the process dies with
 * SIGSEGV after Main has returned. This program plays such a host: it loads
 * libpbf with dlopen(), runs solvers, and checks by counting the process's
 * threads (/proc/self/task) that
 *   same-thread:  destroying the last solver joins every worker at once;
 *   cross-thread: when the last solver is destroyed on another thread than
 *                 the one that stepped it (a garbage collector's finalizer),
 *                 the workers are joined at the latest when libpbf is unloaded;
 *   restart:      solvers created after that start workers again and work;
 * and then unloads the library and exits 0.
 *
 *   worker_threads_test <path to libpbf.so> same-thread|cross-thread|restart
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pbf/pbf.h>

typedef pbf_status (*create_fn)(const pbf_solver_desc*, pbf_solver**);
typedef pbf_status (*destroy_fn)(pbf_solver*);
typedef pbf_status (*fill_box_fn)(pbf_solver*, const float*, const float*, const float*, size_t*);
typedef pbf_status (*step_fn)(pbf_solver*, float, uint32_t);
typedef const char* (*last_error_fn)(void);

static create_fn create;
static destroy_fn destroy;
static fill_box_fn fill_box;
static step_fn step;
static last_error_fn last_error;

static int failures = 0;

#define EXPECT(cond, ...)                       \
  do {                                          \
    if (!(cond)) {                              \
      fprintf(stderr, "FAILED: " __VA_ARGS__);  \
      fprintf(stderr, "\n");                    \
      ++failures;                               \
    }                                           \
  } while (0)

static int thread_count(void) {
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return -1;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(dir)) != NULL)
    if (e->d_name[0] != '.') ++n;
  closedir(dir);
  return n;
}

/* POSIX's way to store a dlsym() result in a function pointer. */
#define LOAD(lib, fn, name)                                                              \
  do {                                                                                  \
    *(void**)(&(fn)) = dlsym((lib), (name));                                            \
    if (!(fn)) {                                                                        \
      fprintf(stderr, "worker_threads_test: %s not found: %s\n", (name), dlerror());    \
      return EXIT_FAILURE;                                                              \
    }                                                                                   \
  } while (0)

/* A solver on all hardware threads, stepped once. */
static pbf_solver* make_and_step(void) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = PBF_BACKEND_CPU;
  desc.particle_spacing = 0.05f;
  desc.max_particles = 10000u;
  pbf_solver* s = NULL;
  if (create(&desc, &s) != PBF_OK) {
    fprintf(stderr, "worker_threads_test: create: %s\n", last_error());
    exit(EXIT_FAILURE);
  }
  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.5f, 0.5f, 0.5f};
  if (fill_box(s, lo, hi, NULL, NULL) != PBF_OK || step(s, 0.01f, 2) != PBF_OK) {
    fprintf(stderr, "worker_threads_test: %s\n", last_error());
    exit(EXIT_FAILURE);
  }
  return s;
}

static void* destroy_on_thread(void* solver) {
  destroy((pbf_solver*)solver);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: worker_threads_test <libpbf.so> same-thread|cross-thread|restart\n");
    return 2;
  }
  const char* mode = argv[2];
  const int base = thread_count();
  EXPECT(base > 0, "cannot count threads in /proc/self/task");

  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "worker_threads_test: %s\n", dlerror());
    return 1;
  }
  LOAD(lib, create, "pbf_solver_create");
  LOAD(lib, destroy, "pbf_solver_destroy");
  LOAD(lib, fill_box, "pbf_solver_fill_box");
  LOAD(lib, step, "pbf_solver_step");
  LOAD(lib, last_error, "pbf_last_error");

  if (strcmp(mode, "same-thread") == 0 || strcmp(mode, "restart") == 0) {
    const int rounds = strcmp(mode, "restart") == 0 ? 3 : 1;
    for (int round = 0; round < rounds; ++round) {
      pbf_solver* a = make_and_step();
      pbf_solver* b = make_and_step();
      destroy(a);
      destroy(b);
      EXPECT(thread_count() == base, "round %d: %d threads after the last solver was destroyed, %d before the first",
             round, thread_count(), base);
    }
  } else if (strcmp(mode, "cross-thread") == 0) {
    pthread_t t;
    pbf_solver* s = make_and_step();
    if (pthread_create(&t, NULL, destroy_on_thread, s) != 0 || pthread_join(t, NULL) != 0) return 1;
  } else {
    fprintf(stderr, "worker_threads_test: unknown mode %s\n", mode);
    return 2;
  }

  /* The host unloads the library, as mono does at exit. */
  EXPECT(dlclose(lib) == 0, "dlclose: %s", dlerror());
  EXPECT(dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD) == NULL, "libpbf is still loaded after dlclose");
  EXPECT(thread_count() == base, "%d threads after libpbf was unloaded, %d before it was loaded", thread_count(),
         base);
  usleep(20000);  /* a worker left running in unmapped code would fault here */
  if (failures == 0) printf("worker_threads_test %s: ok\n", mode);
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
