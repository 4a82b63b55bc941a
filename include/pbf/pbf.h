/*
 * pbf.h - the stable C interface of the pbf particle-fluid library.
 *
 * pbf simulates liquids with Position Based Fluids (Macklin & Mueller 2013)
 * or Projective Fluids (Weiler, Koschier & Bender 2016); see pbf_method.
 * Everything is in SI units: metres, seconds, kilograms.
 *
 * Rules that hold for every function below:
 *  - Every function that can fail returns a pbf_status; results go through
 *    pointer arguments. On failure nothing the caller holds is changed, and
 *    pbf_last_error() returns a message naming the function and the argument.
 *  - Structs passed in or filled carry their size in `struct_size`; obtain
 *    them from the matching `*_default()` initializer, which sets the size of
 *    the struct as this header declares it. Fields are only ever appended,
 *    and the library accepts the size of every released layout of a struct:
 *    from an older program's smaller struct it reads only the fields that
 *    struct holds (the rest take their defaults), and into it it writes no
 *    byte past its struct_size. Any other size (larger than this header's,
 *    smaller than the first layout, or ending inside or between the fields of
 *    a layout) is refused with PBF_ERROR_VERSION_MISMATCH and a message that
 *    lists the sizes accepted.
 *  - Particles keep the order in which they were added ("user order"),
 *    whatever the solver does internally. Removing particles closes the gap.
 *  - A solver may be used from any thread, but by one thread at a time.
 *    Any number of solvers may exist at once.
 *
 * Typical use:
 *
 *     pbf_solver_desc desc = pbf_solver_desc_default();
 *     pbf_solver* solver = NULL;
 *     pbf_solver_create(&desc, &solver);
 *     pbf_solver_fill_box(solver, lo, hi, NULL, NULL);
 *     for (int frame = 0; frame < 60; ++frame) pbf_solver_step(solver, 1.0f / 60.0f, 2);
 *     pbf_solver_destroy(solver);
 */
#ifndef PBF_PBF_H
#define PBF_PBF_H

#include <stddef.h>
#include <stdint.h>

#include "pbf/pbf_version.h"

#if defined(_WIN32)
#  if defined(PBF_BUILDING_LIBRARY)
#    define PBF_API __declspec(dllexport)
#  else
#    define PBF_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define PBF_API __attribute__((visibility("default")))
#else
#  define PBF_API
#endif

/*
 * Enumerations are 32-bit ints in both languages. C++ gets the fixed
 * underlying type spelled out, so that any int a C caller passes is a value
 * of the enum there too (and is refused with a message, not misread).
 */
#ifdef __cplusplus
#  define PBF_ENUM_INT : int
#else
#  define PBF_ENUM_INT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status codes and errors                                                  */
/* ------------------------------------------------------------------------ */

/** Result of every fallible call. Values are fixed and never reused. */
typedef enum pbf_status PBF_ENUM_INT {
  PBF_OK = 0,                        /**< success */
  PBF_ERROR_INVALID_ARGUMENT = 1,    /**< a value is NaN/Inf, negative, zero, or out of its range */
  PBF_ERROR_NULL_POINTER = 2,        /**< a required pointer or handle is NULL */
  PBF_ERROR_BUFFER_TOO_SMALL = 3,    /**< an output buffer cannot hold the result */
  PBF_ERROR_CAPACITY_EXCEEDED = 4,   /**< more particles (or planes) than the solver holds */
  PBF_ERROR_BACKEND_UNAVAILABLE = 5, /**< the backend is not built in, or no device is present */
  PBF_ERROR_OUT_OF_MEMORY = 6,       /**< an allocation failed; the solver keeps its state */
  PBF_ERROR_VERSION_MISMATCH = 7,    /**< a struct_size this library does not know */
  PBF_ERROR_IO = 8,                  /**< a file could not be written or read */
  PBF_ERROR_INTERNAL = 9,            /**< a bug in pbf; please report the message */
  PBF_ERROR_BUSY = 10                /**< the solver is running an asynchronous step */
} pbf_status;

/**
 * The message of the last failed call on this thread ("" when none failed
 * yet). Valid until the next pbf call on the same thread. Never NULL.
 */
PBF_API const char* pbf_last_error(void);

/** A constant English name for a status ("PBF_OK", ...); "unknown status" otherwise. Never NULL. */
PBF_API const char* pbf_status_string(pbf_status status);

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * The run-time version as PBF_VERSION_MAJOR * 10000 + MINOR * 100 + PATCH.
 * Compare with PBF_VERSION (the header's) to detect a mismatched library.
 */
PBF_API uint32_t pbf_version(void);

/** The run-time version as "MAJOR.MINOR.PATCH". Never NULL. */
PBF_API const char* pbf_version_string(void);

/* ------------------------------------------------------------------------ */
/* Backends                                                                 */
/* ------------------------------------------------------------------------ */

/** Where a solver runs. */
typedef enum pbf_backend PBF_ENUM_INT {
  PBF_BACKEND_AUTO = 0, /**< the fastest available: CUDA when a device is usable, else CPU */
  PBF_BACKEND_CPU = 1,  /**< multicore CPU (oneTBB) */
  PBF_BACKEND_CUDA = 2  /**< an NVIDIA GPU */
} pbf_backend;

/**
 * Reports in *available whether `backend` can run on this machine (1) or not
 * (0). PBF_BACKEND_AUTO is always available. Fails with
 * PBF_ERROR_INVALID_ARGUMENT for a value outside pbf_backend.
 */
PBF_API pbf_status pbf_backend_available(pbf_backend backend, int* available);

/** A constant name for a backend ("auto", "cpu", "cuda"); "unknown" otherwise. Never NULL. */
PBF_API const char* pbf_backend_name(pbf_backend backend);

/* ------------------------------------------------------------------------ */
/* Methods                                                                  */
/* ------------------------------------------------------------------------ */

/** How a solver keeps the fluid incompressible; chosen when it is created. */
typedef enum pbf_method PBF_ENUM_INT {
  PBF_METHOD_PBF = 0,       /**< Position Based Fluids (Macklin & Mueller 2013): Jacobi iterations of
                                 density constraints, Poly6/Spiky kernels */
  PBF_METHOD_PROJECTIVE = 1 /**< Projective Fluids (Weiler, Koschier & Bender 2016): implicit Euler by
                                 Projective Dynamics with local constraint projections and a global
                                 conjugate-gradient solve, cubic spline kernel, adaptive time step */
} pbf_method;

/** A constant name for a method ("pbf", "projective"); "unknown" otherwise. Never NULL. */
PBF_API const char* pbf_method_name(pbf_method method);

/* ------------------------------------------------------------------------ */
/* Solver description: what is fixed when a solver is created               */
/* ------------------------------------------------------------------------ */

/** Capacities and the fluid's resolution, fixed for a solver's lifetime. */
typedef struct pbf_solver_desc {
  size_t struct_size;        /**< sizeof(pbf_solver_desc); set by pbf_solver_desc_default(). Also
                                  accepted: the first layout, which ends before `method` */
  pbf_backend backend;       /**< where to run; default PBF_BACKEND_AUTO */
  int32_t device_index;      /**< GPU ordinal for PBF_BACKEND_CUDA, >= 0; default 0 */
  uint32_t max_particles;    /**< capacity, 1 .. 2^28; default 1,000,000. Memory grows with
                                  the particles added, not with the capacity; the capacity
                                  is also bounded by the neighbour-list limit below (about
                                  76 million with the automatic max_neighbors of 56). */
  float particle_spacing;    /**< rest distance between particles [m], 1e-4 .. 1e3 (the kernel
                                  constants, h^-9 and h^9, stay normal floats); default 0.025.
                                  Particle mass is chosen so that a cubic lattice at this
                                  spacing has exactly the rest density. */
  float kernel_radius;       /**< SPH smoothing radius h [m]; 0 = 2 x particle_spacing;
                                  otherwise greater than particle_spacing and at most
                                  5 x particle_spacing; default 0. Above 2 spacings PBF
                                  under-relaxes its density sweeps and scales artificial
                                  pressure to act as at 2 (docs/PHYSICS.md §1), so each
                                  iteration corrects less (0.47 x at 3 spacings). */
  float rest_density;        /**< rho0 [kg/m^3], 1e-3 .. 1e5 (the particle mass, about
                                  rho0 x spacing^3, stays finite); default 1000 (water) */
  float domain_min[3];       /**< lower corner of the box the fluid is kept in [m]; default (0,0,0).
                                  It may lie anywhere: the solver keeps positions relative to an
                                  origin near the domain, so water 10 km out is resolved as finely
                                  as at the origin; every call still speaks world coordinates
                                  (docs/API.md §3.3, docs/PHYSICS.md §9) */
  float domain_max[3];       /**< upper corner [m], each at least domain_min + 2 x particle_spacing;
                                  default (1,1,1). The domain may span at most 2^26 grid
                                  cells of kernel_radius. */
  int32_t thread_count;      /**< CPU worker threads, 0 = all hardware threads, else 1 .. 1024; default 0.
                                  Results do not depend on it. */
  uint32_t max_neighbors;    /**< neighbours kept per particle, 0 = chosen from kernel_radius,
                                  else 8 .. 1024; default 0. A particle with more keeps the nearest
                                  (docs/API.md §3.3); overflows are counted in pbf_stats.
                                  max_particles x max_neighbors x 4 bytes may not exceed 16 GiB. */
  pbf_method method;         /**< the simulation method; default PBF_METHOD_PBF. It also sets the
                                  particle mass (each method's density kernel gives the lattice at
                                  particle_spacing the rest density). PBF_METHOD_PROJECTIVE keeps
                                  (max_neighbors + 1) x 12 bytes of constraint projections per particle,
                                  and on the CPU max_neighbors x 4 bytes more for the global step. */
} pbf_solver_desc;

/** A description with every default filled in. */
static inline pbf_solver_desc pbf_solver_desc_default(void) {
  pbf_solver_desc d;
  d.struct_size = sizeof(pbf_solver_desc);
  d.backend = PBF_BACKEND_AUTO;
  d.device_index = 0;
  d.max_particles = 1000000u;
  d.particle_spacing = 0.025f;
  d.kernel_radius = 0.0f;
  d.rest_density = 1000.0f;
  d.domain_min[0] = 0.0f; d.domain_min[1] = 0.0f; d.domain_min[2] = 0.0f;
  d.domain_max[0] = 1.0f; d.domain_max[1] = 1.0f; d.domain_max[2] = 1.0f;
  d.thread_count = 0;
  d.max_neighbors = 0u;
  d.method = PBF_METHOD_PBF;
  return d;
}

/* ------------------------------------------------------------------------ */
/* Parameters: what may change between steps                                */
/* ------------------------------------------------------------------------ */

/**
 * Tunable physics. Defaults follow Macklin & Mueller (2013) and, for the
 * fields marked "Projective Fluids", Weiler et al. (2016). A feature whose
 * strength is 0 is switched off and costs nothing. Fields of one method are
 * checked but ignored by the other. Projective Fluids uses gravity,
 * xsph_viscosity, restitution, friction and max_speed too; PBF's iterations,
 * relaxation, unilateral, artificial pressure and vorticity do not apply to it.
 */
typedef struct pbf_params {
  size_t struct_size;            /**< sizeof(pbf_params); set by pbf_params_default(). Also accepted:
                                      the first layout, which ends before `projective_stiffness`, and
                                      the second, which ends before `reserved` (112 bytes on 64-bit
                                      platforms); the fields they lack take their defaults */
  float gravity[3];              /**< body acceleration [m/s^2], each -1e6 .. 1e6; default (0, -9.81, 0) */
  uint32_t iterations;           /**< density-constraint iterations per substep, 1 .. 100; default 4 */
  float relaxation;              /**< constraint-force mixing epsilon of eq. 11, as a fraction of the
                                      constraint gradient norm of a particle at rest, 0 .. 100; default 0.01.
                                      0 = eq. 11 without it (a constraint with no gradient, at a
                                      particle with no neighbour or wall near, gets lambda 0) */
  int32_t unilateral;            /**< 1 = only compression is corrected; 0 = the paper's two-sided
                                      constraint, which also pulls free-surface particles (they lack
                                      neighbours) inwards and clumps them, its lambda under-relaxed
                                      by half so that its sweeps do not explode; the surface still
                                      snaps inward in the first frames (particles at 7-16 m/s in
                                      the dam break, docs/PHYSICS.md §3); default 1 */
  float artificial_pressure_k;   /**< k of s_corr (eq. 13), 0 .. 1, 0 = off; default 0.1. s_corr acts like
                                      a compression of k (W(r)/W(dq))^n in each of 4 iterations of a
                                      1/240 s substep; at more iterations and shorter substeps it is
                                      scaled to push as hard per second, at fewer and longer ones it
                                      keeps that push per iteration (docs/PHYSICS.md §3). It
                                      acts in the first `iterations` of a substep only, not in
                                      those the density tolerance adds */
  float artificial_pressure_n;   /**< exponent n of s_corr, 1 .. 8; default 4. n, dq and the kernel
                                      radius set s_corr's shape: one that would push a free surface
                                      harder than the defaults' is scaled down to their push
                                      (docs/PHYSICS.md §1), so k alone sets the strength */
  float artificial_pressure_dq;  /**< |dq| of s_corr as a fraction of the kernel radius, 0 .. 0.9; default 0.2
                                      (a shape, as artificial_pressure_n) */
  float xsph_viscosity;          /**< XSPH c (eq. 17), 0 .. 1, 0 = off; default 0.01: the fraction of
                                      the neighbours' velocity blended in per 1/240 s; a PBF substep
                                      of dt blends 1 - (1 - c)^(240 dt), the same per second
                                      (Projective Fluids blends c per step) */
  float vorticity_epsilon;       /**< vorticity confinement epsilon (eq. 16) [m/s], 0 .. 10, 0 = off;
                                      acceleration = epsilon (N x omega); default 0.01. It adds
                                      energy: above about 15 x kernel_radius per second (0.75 m/s
                                      at the default 2.5 cm spacing) the water boils
                                      (docs/PHYSICS.md §3, step 6) */
  float restitution;             /**< normal bounce off walls and planes, 0 .. 1; default 0. Off several
                                      planes at once a particle leaves no faster than it arrived.
                                      Dynamic bodies' contacts bounce with it too, where they
                                      arrive faster than twice what a substep's gravity gives */
  float friction;                /**< Coulomb friction against walls, planes and the obstacles that
                                      have no material of their own
                                      (pbf_solver_set_obstacle_material()), 0 .. 10; default 0 */
  float max_speed;               /**< particle speeds are clamped to this [m/s], > 0 and at most 3e8
                                      (the speed of light); any finite velocity set is clamped too;
                                      default 100 */
  float projective_stiffness;    /**< Projective Fluids: weight w of every density constraint [N/m],
                                      1 .. 1e9; default 1e6. Higher is less compressible (the constraints
                                      are soft); no value blows the step up, but water needs it
                                      well above rest_density x g x depth x spacing: at 1e3 a 1 m
                                      column at 5 cm stayed 7 % compressed, at 1e2 it sprang back like
                                      a gas (docs/PHYSICS.md §7, "The low end of w") */
  uint32_t projective_iterations; /**< Projective Fluids: local/global iterations per substep at most,
                                      1 .. 1000; default 30 */
  float projective_tolerance;    /**< Projective Fluids: the iterations stop once the mean compression
                                      (rho - rho0) / rho0 of the iterate is at most this, 0 .. 1;
                                      default 1e-4 (0.01 %). 0 runs every iteration: single
                                      particles can stay compressed well above the mean (docs/API.md
                                      §3.3 "Accuracy" keeps every particle under 0.1 %) */
  uint32_t cg_max_iterations;    /**< Projective Fluids: checked (1 .. 10000; default 100) and kept,
                                      no longer used: the global system is diagonal and solved in
                                      closed form (docs/PHYSICS.md §7) */
  float cg_tolerance;            /**< Projective Fluids: checked (0 .. 1, exclusive of 0; default
                                      1e-4) and kept, no longer used, as cg_max_iterations */
  uint32_t newton_iterations;    /**< Projective Fluids: Newton steps per constraint projection at most,
                                      1 .. 100; default 5 */
  float newton_tolerance;        /**< Projective Fluids: a projection stops once the constraint
                                      rho / rho0 - 1 is at most this, 0 .. 1; default 1e-5 */
  int32_t adaptive_dt;           /**< both methods: 1 = take more substeps than asked where the CFL
                                      condition needs them, 0 = take the substeps as given; default 1.
                                      PBF chooses the count once per step from the speeds at its
                                      start, and also takes as many as keep the mean compression
                                      its sweeps leave within 1 % (or density_tolerance, if
                                      larger) where water is too deep for them (docs/API.md §3.9);
                                      Projective Fluids after every step, each at most max_dt.
                                      pbf_stats.substeps reports the count taken */
  float cfl_number;              /**< both methods: a particle travels at most cfl_number x
                                      particle_spacing per substep (with adaptive_dt), 0 .. 1
                                      (exclusive of 0); default 0.4 */
  float max_dt;                  /**< Projective Fluids: the largest adaptive step [s], 1e-6 .. 1;
                                      default 0.005. Compression left after the iterations grows
                                      with the step's square (docs/PHYSICS.md); 0.01 is the paper's
                                      largest and stays stable. The split takes at most 32 steps
                                      per substep asked for and 1000 a step, as PBF's */
  float projective_chebyshev_rho; /**< Projective Fluids: estimated spectral radius of the local/global
                                      iteration for Chebyshev acceleration (Wang 2015), 0 .. 0.98 (above,
                                      particles that their constraints let go coast through the
                                      iterations and left the water faster than twice its free
                                      fall; a checkpoint saved with up to 0.9999 resumes at 0.98);
                                      0 = the paper's plain alternation. The first six iterations
                                      of a substep run plain, the weights start at the seventh.
                                      So begun, 0.98 left 1.6 to 2.9 times less mean compression
                                      on the shipped scenes for the same iterations than 0.9 begun
                                      at the second (the default until 2026-11-30), which already
                                      reached plain alternation's in about half of them
                                      (docs/PHYSICS.md §7); default 0.98 */
  /* Appended after the second layout (which ends at projective_chebyshev_rho, 112 bytes with its
     tail padding on 64-bit platforms). */
  uint32_t reserved;             /**< ignored; set to 0 by pbf_params_default(). It keeps the fields
                                      below past the second layout's tail padding, which a program
                                      built against it leaves undefined */
  float density_tolerance;       /**< PBF: after the first `iterations` density iterations of a
                                      substep, more run until the mean compression
                                      max(rho / rho0 - 1, 0) that an iteration starts from is at most
                                      this, 0 .. 1; 0 = exactly `iterations`. Default 0.001 (0.1 %):
                                      a deep column stepped at one or two substeps per 1/60 s frame
                                      keeps its height instead of sinking into itself, and steps
                                      that already meet it (the reference dam break at 1 ms) run
                                      no extra iteration (docs/PHYSICS.md §3) */
  uint32_t max_iterations;       /**< PBF: the most density iterations a substep runs with
                                      density_tolerance, 1 .. 1000 (never fewer than `iterations`);
                                      default 20 */
} pbf_params;

/** Parameters with every default filled in. */
static inline pbf_params pbf_params_default(void) {
  pbf_params p;
  p.struct_size = sizeof(pbf_params);
  p.gravity[0] = 0.0f; p.gravity[1] = -9.81f; p.gravity[2] = 0.0f;
  p.iterations = 4u;
  p.relaxation = 0.01f;
  p.unilateral = 1;
  p.artificial_pressure_k = 0.1f;
  p.artificial_pressure_n = 4.0f;
  p.artificial_pressure_dq = 0.2f;
  p.xsph_viscosity = 0.01f;
  p.vorticity_epsilon = 0.01f;
  p.restitution = 0.0f;
  p.friction = 0.0f;
  p.max_speed = 100.0f;
  p.projective_stiffness = 1.0e6f;
  p.projective_iterations = 30u;
  p.projective_tolerance = 1.0e-4f;
  p.cg_max_iterations = 100u;
  p.cg_tolerance = 1.0e-4f;
  p.newton_iterations = 5u;
  p.newton_tolerance = 1.0e-5f;
  p.adaptive_dt = 1;
  p.cfl_number = 0.4f;
  p.max_dt = 0.005f;
  p.projective_chebyshev_rho = 0.98f;
  p.reserved = 0u;
  p.density_tolerance = 0.001f;
  p.max_iterations = 20u;
  return p;
}

/* ------------------------------------------------------------------------ */
/* Statistics of the last step                                              */
/* ------------------------------------------------------------------------ */

/**
 * What the last pbf_solver_step() did. Density error is the compression
 * (rho - rho0) / rho0 counted where positive, as SPH solvers report it: a
 * free-surface particle lacks neighbours and is not "wrong" when lighter.
 * Times are wall-clock milliseconds summed over the substeps; on CUDA, where
 * a PBF step runs as one graph, the phase times are GPU times between events
 * the graph records.
 */
typedef struct pbf_stats {
  size_t struct_size;            /**< sizeof(pbf_stats); set by pbf_stats_default(). Also accepted: the
                                      first layout, which ends before `local_global_iterations` */
  uint32_t particle_count;       /**< particles stepped */
  uint32_t substeps;             /**< substeps the last step took (more than asked for where
                                      adaptive_dt split it) */
  uint32_t iterations;           /**< density iterations a substep may run at most (PBF: `iterations`,
                                      or max_iterations where density_tolerance is on; Projective
                                      Fluids: projective_iterations); density_iterations says how
                                      many ran */
  float avg_density_error;       /**< mean compression after the last substep (0.01 = 1 %) */
  float max_density_error;       /**< largest compression after the last substep */
  float avg_neighbors;           /**< mean neighbours kept per particle (self excluded) */
  uint32_t max_neighbors;        /**< largest neighbour count kept; at most the list capacity
                                      (see neighbor_overflows) */
  uint32_t neighbor_overflows;   /**< particles that had more neighbours than the solver keeps
                                      (each kept its nearest, in the last substep) */
  float max_speed;               /**< largest particle speed after the step [m/s] */
  double time_total_ms;          /**< the whole step */
  double time_predict_ms;        /**< external forces and prediction */
  double time_grid_ms;           /**< neighbour grid: cell sort and reordering */
  double time_neighbors_ms;      /**< neighbour lists */
  double time_constraints_ms;    /**< density iterations, including collisions */
  double time_velocity_ms;       /**< velocity update, density for statistics */
  double time_vorticity_viscosity_ms; /**< vorticity confinement and XSPH viscosity */
  uint32_t local_global_iterations; /**< Projective Fluids: local/global iterations, summed over the
                                         substeps (0 for PBF) */
  uint32_t cg_iterations;        /**< Projective Fluids: global solves, summed over the substeps; each
                                      is one closed-form pass counted as one iteration, so this
                                      equals local_global_iterations */
  float cg_residual;             /**< Projective Fluids: 0: the diagonal global system is solved
                                      exactly (up to float round-off, about 1e-7 relative) */
  float min_substep_dt;          /**< smallest substep taken [s] (adaptive_dt) */
  float max_substep_dt;          /**< largest substep taken [s] */
  /* Appended after the second layout; it lies in that layout's tail padding on 64-bit platforms,
     so a program built against it has the same size and never reads it. */
  uint32_t density_iterations;   /**< density iterations run, summed over the substeps (PBF: from
                                      `iterations` to max_iterations each; Projective Fluids: its
                                      local/global iterations, as local_global_iterations) */
} pbf_stats;

/** Zeroed statistics with struct_size set. */
static inline pbf_stats pbf_stats_default(void) {
  pbf_stats s;
  s.struct_size = sizeof(pbf_stats);
  s.particle_count = 0u; s.substeps = 0u; s.iterations = 0u;
  s.avg_density_error = 0.0f; s.max_density_error = 0.0f;
  s.avg_neighbors = 0.0f; s.max_neighbors = 0u; s.neighbor_overflows = 0u;
  s.max_speed = 0.0f;
  s.time_total_ms = 0.0; s.time_predict_ms = 0.0; s.time_grid_ms = 0.0;
  s.time_neighbors_ms = 0.0; s.time_constraints_ms = 0.0; s.time_velocity_ms = 0.0;
  s.time_vorticity_viscosity_ms = 0.0;
  s.local_global_iterations = 0u; s.cg_iterations = 0u; s.cg_residual = 0.0f;
  s.min_substep_dt = 0.0f; s.max_substep_dt = 0.0f;
  s.density_iterations = 0u;
  return s;
}

/* ------------------------------------------------------------------------ */
/* Solver lifetime                                                          */
/* ------------------------------------------------------------------------ */

/** An opaque solver. */
typedef struct pbf_solver pbf_solver;

/**
 * Creates a solver from `desc` with default parameters and no particles.
 * On success *out_solver owns the new solver; on failure it is set to NULL.
 * PBF_ERROR_INVALID_ARGUMENT names the field of `desc` that is out of range
 * (see pbf_solver_desc for each range); PBF_ERROR_BACKEND_UNAVAILABLE when
 * the requested backend cannot run here; PBF_ERROR_OUT_OF_MEMORY when the
 * neighbour grid over the domain cannot be allocated.
 */
PBF_API pbf_status pbf_solver_create(const pbf_solver_desc* desc, pbf_solver** out_solver);

/** Destroys a solver and frees its memory. NULL is accepted and ignored. */
PBF_API pbf_status pbf_solver_destroy(pbf_solver* solver);

/**
 * Copies the solver's description into *out, with every automatic value
 * resolved: the backend chosen for PBF_BACKEND_AUTO, the kernel radius, the
 * thread count and the neighbour capacity. out->struct_size must be set; no
 * byte past it is written.
 */
PBF_API pbf_status pbf_solver_get_desc(const pbf_solver* solver, pbf_solver_desc* out);

/** The mass of one particle [kg], derived from spacing, kernel radius and rest density. */
PBF_API pbf_status pbf_solver_get_particle_mass(const pbf_solver* solver, float* out_mass);

/** Copies the current parameters into *out. out->struct_size must be set; no byte past it is written. */
PBF_API pbf_status pbf_solver_get_params(const pbf_solver* solver, pbf_params* out);

/**
 * Replaces all parameters. Every field is checked first; if any is invalid
 * the solver keeps its previous parameters and the message names the field.
 * Fields that an older layout of `params` lacks are set to their defaults.
 */
PBF_API pbf_status pbf_solver_set_params(pbf_solver* solver, const pbf_params* params);

/* ------------------------------------------------------------------------ */
/* Particles                                                                */
/* ------------------------------------------------------------------------ */

/** The number of particles now in the solver. */
PBF_API pbf_status pbf_solver_particle_count(const pbf_solver* solver, size_t* out_count);

/**
 * Appends `count` particles after the existing ones. `positions` holds
 * 3 * count floats (x, y, z per particle), each inside the domain.
 * `velocities` (3 * count floats) may be NULL for particles at rest.
 * Each is placed where it is given: one inside an obstacle, or nearer than
 * half a spacing to an obstacle's surface or a wall, starts pressed into it
 * and is thrown off it in the next step. An emitter should leave such points
 * out (pbf_sdf_distance() with the obstacle's pose), as the fills do.
 * Fails without adding anything if a value is NaN/Inf, a position lies
 * outside the domain, or the capacity would be exceeded.
 */
PBF_API pbf_status pbf_solver_add_particles(pbf_solver* solver, const float* positions,
                                            const float* velocities, size_t count);

/**
 * Fills the box [lo, hi] with particles on a cubic lattice at the rest
 * spacing, at centres lo + (i + 1/2) * spacing, all with `velocity` (NULL =
 * at rest). Lattice points outside the domain, or closer than half a spacing
 * to one of its walls (where a particle would start compressed against the
 * wall), are skipped, and so are those inside an obstacle (kinematic or
 * dynamic, where it is now) or closer than half a spacing to its surface,
 * where a particle would be thrown out of the solid in the first step: add
 * the obstacles first and fill around them. The number added
 * goes to *out_added when out_added is not NULL. Fails without adding
 * anything if hi[a] < lo[a] on an axis (PBF_ERROR_INVALID_ARGUMENT), if the
 * capacity would be exceeded, or if lo or hi lies more than
 * 2^24 spacings outside the domain (the lattice could not be placed in float
 * precision).
 */
PBF_API pbf_status pbf_solver_fill_box(pbf_solver* solver, const float lo[3], const float hi[3],
                                       const float velocity[3], size_t* out_added);

/**
 * Removes the particles at the given user-order indices (any order, no
 * duplicates, each < particle count). The rest close up, keeping their order.
 */
PBF_API pbf_status pbf_solver_remove_particles(pbf_solver* solver, const uint32_t* indices,
                                               size_t count);

/** Removes every particle. */
PBF_API pbf_status pbf_solver_clear_particles(pbf_solver* solver);

/**
 * Copies all positions, in user order, into `out` (x, y, z per particle).
 * `capacity` is the number of floats `out` can hold, at least 3 * count.
 */
PBF_API pbf_status pbf_solver_get_positions(const pbf_solver* solver, float* out, size_t capacity);

/** Copies all velocities [m/s], in user order; as pbf_solver_get_positions(). */
PBF_API pbf_status pbf_solver_get_velocities(const pbf_solver* solver, float* out, size_t capacity);

/**
 * Copies all densities [kg/m^3], one float per particle, in user order, as
 * evaluated at the end of the last step or by pbf_solver_update_densities()
 * (0 before either).
 */
PBF_API pbf_status pbf_solver_get_densities(const pbf_solver* solver, float* out, size_t capacity);

/** A per-particle field, for pbf_solver_map(). */
typedef enum pbf_field PBF_ENUM_INT {
  PBF_FIELD_POSITIONS = 0,  /**< 3 floats per particle [m] */
  PBF_FIELD_VELOCITIES = 1, /**< 3 floats per particle [m/s] */
  PBF_FIELD_DENSITIES = 2   /**< 1 float per particle [kg/m^3] */
} pbf_field;

/** Where pbf_solver_map() lends memory. */
typedef enum pbf_memory PBF_ENUM_INT {
  PBF_MEMORY_HOST = 0,  /**< host memory (page-locked on the CUDA backend, for fast uploads) */
  PBF_MEMORY_DEVICE = 1 /**< CUDA device memory of the solver's GPU (CUDA backend only) */
} pbf_memory;

/**
 * Lends a read-only view of a field in user order, so that a renderer can
 * read it (or a CUDA program use it on the GPU) without copying it into
 * memory of its own. *out_data points to 3 floats per particle (1 for
 * densities) and stays valid and unchanged until pbf_solver_unmap(); the
 * particle count goes to *out_count when it is not NULL. While any field is
 * mapped, calls that change particles (step, step_async, set, add, fill,
 * remove, clear, load_checkpoint) fail with PBF_ERROR_BUSY; reads, parameters
 * and planes still work. PBF_MEMORY_DEVICE on a CPU solver, an unknown field
 * or memory, and mapping a field twice fail with PBF_ERROR_INVALID_ARGUMENT.
 */
PBF_API pbf_status pbf_solver_map(pbf_solver* solver, pbf_field field, pbf_memory memory, const float** out_data,
                                  size_t* out_count);

/** Ends the loan of pbf_solver_map(); the pointer must not be used afterwards. */
PBF_API pbf_status pbf_solver_unmap(pbf_solver* solver, pbf_field field);

/**
 * Overwrites all positions, in user order. `length` must equal 3 * count:
 * a shorter array fails with PBF_ERROR_BUFFER_TOO_SMALL, a longer one with
 * PBF_ERROR_INVALID_ARGUMENT. Fails
 * without changing anything if a value is NaN/Inf or outside the domain.
 */
PBF_API pbf_status pbf_solver_set_positions(pbf_solver* solver, const float* positions, size_t length);

/** Overwrites all velocities [m/s], in user order; as pbf_solver_set_positions(). */
PBF_API pbf_status pbf_solver_set_velocities(pbf_solver* solver, const float* velocities,
                                             size_t length);

/* ------------------------------------------------------------------------ */
/* Collision planes                                                         */
/* ------------------------------------------------------------------------ */

/**
 * Adds a static plane {x : dot(normal, x) + offset = 0}; the fluid is kept on
 * the side where dot(normal, x) + offset >= particle radius. Like the domain's
 * walls, the plane is the face of a solid: fluid within a kernel radius of it
 * gets the density of water at rest behind it, so that water resting on it
 * has its full density without boundary particles. `normal` must be finite
 * and non-zero (it is normalised). The plane's index (0, 1, ...) goes to
 * *out_index when it is not NULL. A solver holds at most 64 planes; the 65th
 * fails with PBF_ERROR_CAPACITY_EXCEEDED.
 */
PBF_API pbf_status pbf_solver_add_plane(pbf_solver* solver, const float normal[3], float offset,
                                        uint32_t* out_index);

/** Removes every plane added with pbf_solver_add_plane(); the domain box stays. */
PBF_API pbf_status pbf_solver_clear_planes(pbf_solver* solver);

/* ------------------------------------------------------------------------ */
/* Solid obstacles                                                          */
/* ------------------------------------------------------------------------ */

/*
 * An obstacle is a rigid solid given by a signed distance field in its own
 * frame, and a placement in the world: a rotation as a unit quaternion
 * (x, y, z, w) and a translation [m]. Particles are kept one particle radius
 * outside its surface inside the constraint iterations, slide along it with
 * the parameters' friction (or its own, pbf_solver_set_obstacle_material()),
 * and are carried by it when it moves. A moving
 * obstacle is kinematic: the user gives its placement at the end of each
 * step, and the substeps move it there (rotation by slerp, translation
 * linearly); a wall moving several particle radii per substep still carries
 * its fluid, provided it is thicker than a particle radius. An obstacle can
 * instead be dynamic (pbf_solver_set_obstacle_dynamic()): a rigid body that
 * the water, gravity and the walls move. Obstacles are part of the scene,
 * not of the state: checkpoints do not hold them.
 */

/** The most obstacles a solver holds. */
#define PBF_MAX_OBSTACLES 64

/**
 * Adds an obstacle whose signed distance field is sampled on a regular grid:
 * `values` holds dims[0] x dims[1] x dims[2] finite distances [m], negative
 * inside the solid, x varying fastest (value (i, j, k) at index
 * i + dims[0] * (j + dims[1] * k)); `length` is the number of floats and must
 * equal that product. Sample (i, j, k) lies at origin + (i, j, k) * cell in
 * the obstacle's frame; each dims[a] is 2 .. 4096 and the product at most
 * 2^28; cell > 0 [m]. Between samples the field is interpolated trilinearly;
 * outside the grid it grows with the distance to the grid box, so the grid
 * must enclose the solid with a margin of a few cells. No point of the grid
 * lies farther than its diagonal from a surface inside it, so the copy takes
 * larger values (a narrow band's far marks, FLT_MAX) as the diagonal (plus a
 * cell), with their signs. `rotation` (NULL:
 * none) is normalised and must be finite and non-zero; `translation` (NULL:
 * the origin) finite. The library copies the field. Its index (0, 1, ...)
 * goes to *out_index when it is not NULL. The 65th obstacle fails with
 * PBF_ERROR_CAPACITY_EXCEEDED.
 */
PBF_API pbf_status pbf_solver_add_obstacle_sdf(pbf_solver* solver, const float* values, size_t length,
                                               const uint32_t dims[3], const float origin[3], float cell,
                                               const float rotation[4], const float translation[3],
                                               uint32_t* out_index);

/**
 * Sets where obstacle `index` will be at the end of the next step (rotation
 * and translation as for pbf_solver_add_obstacle_sdf(); NULL keeps that part
 * of its placement). Until the next step the obstacle stays where it is;
 * during it, each substep moves it a fraction of the way. Call it once per
 * frame, before the step, for an obstacle that moves. A dynamic body
 * (pbf_solver_set_obstacle_dynamic()) goes there at once, keeping its
 * velocities; a new rotation that would leave it reaching farther along an
 * axis than the domain box is refused (PBF_ERROR_INVALID_ARGUMENT naming
 * `rotation`), its pose unchanged.
 */
PBF_API pbf_status pbf_solver_set_obstacle_pose(pbf_solver* solver, uint32_t index, const float rotation[4],
                                                const float translation[3]);

/** The number of obstacles in *out_count. */
PBF_API pbf_status pbf_solver_get_obstacle_count(const pbf_solver* solver, uint32_t* out_count);

/**
 * What the liquid exerted on obstacle `index` during the last step, averaged
 * over that step: the force [N] in out_force[3] and the torque [N m] about
 * the obstacle's origin (its translation, where the step left it) in
 * out_torque[3], both in world axes. Either pointer may be NULL when that
 * part is not wanted. A host physics engine that drives the obstacle
 * (pbf_solver_set_obstacle_pose()) applies them to its own rigid body; the
 * torque about the body's centre of mass c is out_torque + (o - c) x
 * out_force, with o the obstacle's origin.
 *
 * Measured from what the obstacle did to the particles: each push a
 * collision with it, or a boundary particle attached to it
 * (pbf_solver_add_obstacle_boundary_particles()), gives a particle of mass m
 * in a substep dt is an impulse m d / dt, and the obstacle takes the
 * opposite. Boundary particles that are not attached to the obstacle belong
 * to the scenery and count for no obstacle. Attach boundary particles to an
 * obstacle whose forces matter: with collisions alone the liquid next to it
 * misses density, and the force is less accurate (docs/PHYSICS.md §12).
 * With PBF_METHOD_PROJECTIVE a boundary particle's push is its share of the
 * density constraints' projections as the global step moves the particle by
 * it. Zero before the first step, for an obstacle added since, and after a
 * checkpoint is loaded. Both methods; PBF_ERROR_INVALID_ARGUMENT for an
 * `index` that names no obstacle.
 */
PBF_API pbf_status pbf_solver_get_obstacle_force(const pbf_solver* solver, uint32_t index, float out_force[3],
                                                 float out_torque[3]);

/**
 * Where obstacle `index` is now (after the last step, or where it was
 * placed): its rotation as a unit quaternion (x, y, z, w) into
 * out_rotation[4] and its translation [m] into out_translation[3]; either
 * may be NULL. For a kinematic obstacle a placement set for the next step
 * shows only after that step; a dynamic body's is where the water and
 * gravity have taken it. PBF_ERROR_INVALID_ARGUMENT for an `index` that
 * names no obstacle.
 */
PBF_API pbf_status pbf_solver_get_obstacle_pose(const pbf_solver* solver, uint32_t index, float out_rotation[4],
                                                float out_translation[3]);

/**
 * Makes obstacle `index` a dynamic body: a rigid solid of `mass` [kg]
 * (finite, > 0) whose centre of mass lies at centre[3] in its own frame [m]
 * and whose inertia tensor about that centre, in its own axes, is
 * inertia[9] [kg m^2] (row-major, symmetric, positive definite).
 * pbf_sdf_mass_properties() gives all three for a solid of uniform density.
 * It starts at rest where it is now (a placement set for the next step is
 * dropped; pbf_solver_set_obstacle_velocity() gives it a velocity). From
 * then on every substep moves it: gravity (the parameters' gravity), the
 * water's force and torque as pbf_solver_get_obstacle_force() measures
 * them, substep by substep, so that momentum passes both ways, and contacts
 * with the domain walls, the planes and the kinematic obstacles, which keep
 * its surface out of them (bouncing with the parameters' restitution,
 * inelastic at its default 0, with the parameters' friction as Coulomb
 * friction, or with the materials of the surfaces that touch,
 * pbf_solver_set_obstacle_material(); a moving kinematic obstacle's surface
 * throws and carries it
 * with its own velocity), and with the other dynamic bodies, whose impulses
 * act on both, equal and opposite.
 * pbf_solver_set_obstacle_pose() moves it at once, keeping its velocities.
 * Attach boundary particles to it (pbf_solver_add_obstacle_boundary_particles())
 * for accurate buoyancy (docs/PHYSICS.md §12). Its pose and velocities are
 * part of the scene: checkpoints do not hold them. Within a substep the body
 * yields to the water between the iterations (moved by the pushes so far),
 * so water pinched between it and a wall stops it whatever the number of
 * iterations (docs/API.md §3.8.1, "Dynamic bodies"). With either method
 * each yield is the body's part of a joint solve with the water's
 * constraints (the water's added mass counts, and the water gives back what
 * the body's motion took over), so bodies far lighter than the water, such
 * as a 1 cm plank of a few kg/m^3 at 1 cm spacing, float calmly.
 *
 * `mass` = 0 (centre and inertia may then be NULL) makes it kinematic again,
 * staying where it is. A step with a dynamic body runs its substeps one at a
 * time and their stages one by one (on CUDA: kernel by kernel, waiting for
 * the water's pushes after every iteration, instead of one graph per step).
 *
 * Both methods (with PBF_METHOD_PROJECTIVE and adaptive_dt, the body moves
 * with each of the CFL pieces). PBF_ERROR_INVALID_ARGUMENT names a bad
 * `index`, `mass`, `centre` or `inertia`, an obstacle whose field holds no
 * surface, or (`index`) one that reaches farther along an axis than the
 * domain box at its rotation, which no place inside the walls could hold;
 * PBF_ERROR_NULL_POINTER a NULL centre or inertia with mass > 0.
 */
PBF_API pbf_status pbf_solver_set_obstacle_dynamic(pbf_solver* solver, uint32_t index, float mass,
                                                   const float centre[3], const float inertia[9]);

/**
 * Sets the velocity of dynamic obstacle `index`'s centre of mass [m/s] from
 * linear[3] and its angular velocity [rad/s] from angular[3], both in world
 * axes and finite; NULL keeps that part. A dynamic body moves at most
 * PBF_MAX_BODY_SPEED and turns at most PBF_MAX_BODY_SPIN (faster values are
 * refused here, and the step never makes it faster), so that its pose stays
 * finite whatever its mass. PBF_ERROR_INVALID_ARGUMENT for a
 * kinematic obstacle (its motion is what pbf_solver_set_obstacle_pose()
 * gives it) or an `index` that names no obstacle.
 */
/** The fastest a dynamic body moves [m/s]. */
#define PBF_MAX_BODY_SPEED 1000.0f
/** The fastest a dynamic body turns [rad/s]. */
#define PBF_MAX_BODY_SPIN 1000.0f

PBF_API pbf_status pbf_solver_set_obstacle_velocity(pbf_solver* solver, uint32_t index, const float linear[3],
                                                    const float angular[3]);

/**
 * The velocity of dynamic obstacle `index`'s centre of mass [m/s] into
 * out_linear[3] and its angular velocity [rad/s] into out_angular[3], world
 * axes; either may be NULL. PBF_ERROR_INVALID_ARGUMENT for a kinematic
 * obstacle or an `index` that names no obstacle.
 */
PBF_API pbf_status pbf_solver_get_obstacle_velocity(const pbf_solver* solver, uint32_t index, float out_linear[3],
                                                    float out_angular[3]);

/**
 * Gives obstacle `index` (kinematic or dynamic) a surface material of its
 * own in place of the parameters' friction and restitution, which every
 * obstacle follows until it is given one (and again after
 * pbf_solver_clear_obstacle_material()); the domain walls and the planes
 * keep the parameters'. `friction` (0 .. 10) is the Coulomb friction of the
 * water sliding along this solid, as the parameters' friction is at the
 * walls (docs/PHYSICS.md §5): 0 lets it slip freely (an oiled or icy
 * solid), a large value holds it (a rough one). Where a dynamic body touches
 * something, the contact takes the geometric mean of the two surfaces'
 * frictions, sqrt(friction_a * friction_b) (so a frictionless surface on
 * either side slips), and the larger of their restitutions (0 .. 1: the
 * normal speed a contact leaves with, over the speed it arrived with); a
 * wall or a plane counts with the parameters' values. Water does not bounce
 * off obstacles whatever their restitution (docs/PHYSICS.md §5). The
 * material stays with the obstacle while it turns dynamic or kinematic.
 * PBF_ERROR_INVALID_ARGUMENT names a bad `index`, `friction` or
 * `restitution` (NaN, or out of range); nothing changes then.
 */
PBF_API pbf_status pbf_solver_set_obstacle_material(pbf_solver* solver, uint32_t index, float friction,
                                                    float restitution);

/**
 * Makes obstacle `index` follow the parameters' friction and restitution
 * again (pbf_solver_set_obstacle_material()). PBF_ERROR_INVALID_ARGUMENT for
 * an `index` that names no obstacle.
 */
PBF_API pbf_status pbf_solver_clear_obstacle_material(pbf_solver* solver, uint32_t index);

/**
 * The friction and restitution obstacle `index`'s surface has now: its own
 * material's, or the parameters' where it has none, into *out_friction and
 * *out_restitution (either may be NULL). PBF_ERROR_INVALID_ARGUMENT for an
 * `index` that names no obstacle.
 */
PBF_API pbf_status pbf_solver_get_obstacle_material(const pbf_solver* solver, uint32_t index, float* out_friction,
                                                    float* out_restitution);

/**
 * Removes every obstacle, and the boundary particles attached to them by
 * pbf_solver_add_obstacle_boundary_particles(); the other boundary particles
 * stay.
 */
PBF_API pbf_status pbf_solver_clear_obstacles(pbf_solver* solver);

/* ------------------------------------------------------------------------ */
/* Boundary particles                                                       */
/* ------------------------------------------------------------------------ */

/*
 * Boundary particles (Akinci et al. 2012) are samples of solid surfaces,
 * static or attached to a moving obstacle
 * (pbf_solver_add_obstacle_boundary_particles()). Each gets a pseudo-mass,
 * rest_density / sum W over the boundary particles of its own body near it
 * (so a densely sampled spot weighs no more than a sparse one), and adds it
 * to the density of the fluid within the kernel radius. The static ones
 * form one body; the samples of each obstacle form another, so an
 * obstacle's pseudo-masses do not change as it moves past a wall.
 * Fluid resting on a sampled solid then has its full density, instead of
 * being under-dense there (and drawn into the wall by its neighbours) or
 * stacking up; planes and the domain's walls give it that density without
 * samples (pbf_solver_add_plane()), obstacles only with them. Sample a surface evenly at about the particle spacing, one
 * layer thick. Boundary particles only add density: collisions with the
 * domain, planes and obstacles still keep particles where they belong, so a
 * solid needs both its collision shape and its samples. Static ones do not
 * move; none carries a velocity. Adding or clearing them rebuilds their grid
 * and pseudo-masses once (proportional to their number); while some are
 * attached to obstacles, every substep places those at the obstacle's pose
 * and sorts all the boundary particles into their grid again (a cost
 * proportional to their number, which a solver without attached ones does
 * not pay).
 * Like obstacles they are part of the scene: checkpoints do not hold them.
 * Both methods count them in their density constraints, each with its own
 * density kernel (Poly6 for PBF, the cubic spline for Projective Fluids).
 */

/** The most boundary particles a solver holds. */
#define PBF_MAX_BOUNDARY_PARTICLES 67108864u

/**
 * Adds `count` boundary particles at `positions` (3 * count floats, x, y, z
 * per particle [m], world frame), after those already added. Each position
 * must be finite and lie within one kernel radius of the domain box (farther
 * ones could never touch the fluid). count = 0 does nothing (positions may
 * then be NULL). Fails without adding anything: PBF_ERROR_NULL_POINTER for a
 * NULL positions, PBF_ERROR_INVALID_ARGUMENT naming the first bad value,
 * PBF_ERROR_CAPACITY_EXCEEDED past PBF_MAX_BOUNDARY_PARTICLES.
 */
PBF_API pbf_status pbf_solver_add_boundary_particles(pbf_solver* solver, const float* positions, size_t count);

/**
 * Switches on boundary particles for the six walls of the domain box (which
 * then stop adding their own density, see pbf_solver_add_plane()): adds a
 * layer of samples at about the particle spacing on each wall, set back
 * behind the wall (by about 0.66 spacings at the default kernel radius) so
 * that fluid resting against the wall at the collision distance of half a
 * spacing has exactly the rest density. The number added goes to
 * *out_added when out_added is not NULL. Call it once: a second call adds
 * the walls a second time. pbf_solver_clear_boundary_particles() switches
 * them off (with every other boundary particle). Fails with
 * PBF_ERROR_CAPACITY_EXCEEDED, adding nothing, when the walls would take the
 * solver past PBF_MAX_BOUNDARY_PARTICLES (a large domain at a fine spacing).
 */
PBF_API pbf_status pbf_solver_add_domain_boundary_particles(pbf_solver* solver, size_t* out_added);

/** The number of boundary particles in *out_count (the domain walls' and those attached to obstacles included). */
PBF_API pbf_status pbf_solver_get_boundary_particle_count(const pbf_solver* solver, size_t* out_count);

/** Removes every boundary particle, the domain walls' and those attached to obstacles included. */
PBF_API pbf_status pbf_solver_clear_boundary_particles(pbf_solver* solver);

/* ------------------------------------------------------------------------ */
/* Stepping                                                                 */
/* ------------------------------------------------------------------------ */

/**
 * Advances the simulation by `dt` seconds in `substeps` equal substeps
 * (dt > 0 and finite, at most 10 s; substeps 1 .. 1000; dt / substeps at
 * least 1e-9 s, so that 1/dt and the velocities stay finite, and with
 * PBF_METHOD_PROJECTIVE at least sqrt(particle mass x particle_spacing /
 * 1e17 N), so that its global step's m/dt^2 terms do; the message of a
 * refused step names the shortest step accepted). An empty solver
 * steps successfully and does nothing. With params.adaptive_dt (the
 * default) `substeps` is the least count: PBF takes as many equal substeps as
 * keep the fastest particle within cfl_number spacings per substep and the
 * mean compression its density iterations leave within 1 % (measured on the
 * steps before; on the first step with particles, or where most particles
 * were added since the last step, at least what water at rest as deep as the
 * particles reach along gravity needs; chosen at the start of the step; at
 * most 32 x substeps and 1000, never shorter than those floors), Projective
 * Fluids splits each substep into equal steps of at most params.max_dt that
 * do (measured after every step; at most 32 steps per substep asked for and
 * 1000 in all, as PBF; pbf_stats.substeps counts the steps taken). So a
 * real-time caller may pass 1 or 2 substeps per frame and stay stable; set
 * adaptive_dt = 0 for exactly `substeps`.
 */
PBF_API pbf_status pbf_solver_step(pbf_solver* solver, float dt, uint32_t substeps);

/**
 * Starts the step that pbf_solver_step() would run and returns at once; the
 * step runs on a thread the solver starts for it (and, on the CPU backend, on
 * the solver's worker threads; on CUDA, on its GPU). Arguments are checked
 * here, as by
 * pbf_solver_step(). Until pbf_solver_wait() has returned, the solver's data
 * must be left alone: every other call on this solver fails with
 * PBF_ERROR_BUSY and changes nothing, except pbf_solver_poll(),
 * pbf_solver_wait() and pbf_solver_destroy() (which waits for the step).
 * Game engines use this to simulate while they render the previous frame.
 */
PBF_API pbf_status pbf_solver_step_async(pbf_solver* solver, float dt, uint32_t substeps);

/**
 * Waits for the step started by pbf_solver_step_async() and returns its
 * status; on failure pbf_last_error() on the calling thread says why. Returns
 * PBF_OK at once when no asynchronous step was started. Afterwards the
 * solver accepts every call again.
 */
PBF_API pbf_status pbf_solver_wait(pbf_solver* solver);

/**
 * Sets *out_done to 1 when no asynchronous step is running (it has finished,
 * or none was started), so that pbf_solver_wait() would return at once; 0
 * while it runs. Never blocks.
 */
PBF_API pbf_status pbf_solver_poll(const pbf_solver* solver, int* out_done);

/**
 * Evaluates every particle's density [kg/m^3] at its current position, as a
 * step ends (the method's density kernel, boundary particles and the planes'
 * walls included), without moving a particle or changing its velocity:
 * afterwards pbf_solver_get_densities() and pbf_solver_write_ply() give the
 * densities of the state as it is, e.g. before the first step (where they are
 * otherwise 0) or after positions were written. A particle inside a solid
 * obstacle or outside a plane is evaluated where the next step's collisions
 * put it. The statistics of the last step are left alone. Fails with
 * PBF_ERROR_BUSY while the solver runs an asynchronous step or a field is
 * mapped.
 */
PBF_API pbf_status pbf_solver_update_densities(pbf_solver* solver);

/**
 * Statistics of the last step. out->struct_size must be set (pbf_stats_default());
 * no byte past it is written.
 */
PBF_API pbf_status pbf_solver_get_stats(const pbf_solver* solver, pbf_stats* out);

/* ------------------------------------------------------------------------ */
/* Output                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * Writes the particles, in user order, as a binary little-endian PLY file with
 * float properties x y z vx vy vz density and uchar red green blue: the speed
 * from deep blue at rest to white at the free-fall speed over the domain's
 * extent along gravity (at least 0.1 m/s; the header's comment gives it), one
 * scale for every frame of a solver. Houdini, meshio and plyfile keep every
 * property; ParaView's PLY reader and Blender's importer show the points with
 * their colour (ParaView without velocity or density).
 * The file appears complete or not at all: it is written to a unique
 * temporary name beside `path`, flushed and renamed; only a regular file at
 * `path` is replaced (PBF_ERROR_IO otherwise).
 */
PBF_API pbf_status pbf_solver_write_ply(const pbf_solver* solver, const char* path);

/* ------------------------------------------------------------------------ */
/* Checkpoints                                                              */
/* ------------------------------------------------------------------------ */

/**
 * Saves the complete state of the solver to `path`: its description,
 * parameters, planes, the statistics of the last step, how many particles no
 * step has moved yet and every particle in the solver's internal order. It
 * is written to a temporary file beside `path`, flushed to the disk and
 * renamed onto `path`: the file appears complete or not at all, and an older
 * checkpoint there is kept whole when the save fails. Only a regular file is
 * ever replaced: when `path` is a directory, a FIFO, a device or a socket the
 * save fails and leaves it alone. PBF_ERROR_IO (the message names the path
 * and the reason) when it cannot be written or `path` is not a regular file.
 */
PBF_API pbf_status pbf_solver_save_checkpoint(const pbf_solver* solver, const char* path);

/**
 * Replaces the state of `solver` (particles, parameters, planes, statistics)
 * by the checkpoint at `path`. Stepping on continues exactly as the saved run
 * would have: bit-identically on the CPU backend, whatever the thread count.
 * The solver must have been created with the checkpoint's particle_spacing,
 * kernel_radius, rest_density, domain, max_neighbors and method (a
 * checkpoint of a Projective Fluids solver does not load into a PBF one, nor
 * the reverse; PBF_ERROR_INVALID_ARGUMENT names the field that differs) and
 * room for its
 * particles (PBF_ERROR_CAPACITY_EXCEEDED). Only regular files are read (a
 * symbolic link to one is followed): a directory, a FIFO, a device or a
 * socket is refused at once, without blocking or reading it. The header is
 * read first, and the payload only when the file holds exactly the size it
 * announces; then the checksum and every number the checkpoint holds
 * (description, parameters, planes, statistics, particles) are checked. A
 * file that is missing, not a regular file, not a checkpoint, of another
 * format version, truncated or corrupted, or that holds a number out of
 * range (NaN, infinite, negative where meaningless) fails with PBF_ERROR_IO
 * and a message naming the field. On any failure the solver keeps its state.
 * A checkpoint saved while projective_chebyshev_rho could reach 0.9999
 * resumes with 0.98, the top of its range now (pbf_params).
 */
PBF_API pbf_status pbf_solver_load_checkpoint(pbf_solver* solver, const char* path);

/* ------------------------------------------------------------------------ */
/* Signed distance fields and meshes                                        */
/* ------------------------------------------------------------------------ */

/*
 * A pbf_sdf is a solid described by its signed distance field: distances
 * [m] sampled on a regular grid in the solid's own frame, negative inside.
 * It is built from a mesh file, from an analytic shape, or loaded from a
 * file saved earlier, and then used by any number of solvers as an obstacle
 * (pbf_solver_add_obstacle(), which copies it) or as a shape to fill with
 * fluid (pbf_solver_fill_sdf()). A field may be used from several threads
 * at once; destroying it while another thread uses it is an error.
 *
 * Grids hold at most 2^27 samples (512^3) and at most 4096 along an axis, of
 * a cell of 1e-6 .. 1e6 m, and reach at most 2^20 cells from the origin
 * (beyond that floats no longer resolve a cell: build a solid near the
 * origin and place it with the obstacle's pose). A cell outside that range
 * or that would make a larger grid is refused with
 * PBF_ERROR_INVALID_ARGUMENT naming `cell`.
 */

/** An opaque signed distance field. */
typedef struct pbf_sdf pbf_sdf;

/**
 * Builds the signed distance field of the triangle mesh in the file at
 * `path`: an OBJ, STL, PLY or OFF file, named by its extension, read with
 * the Assimp library. All meshes of the file's scene are
 * joined, each placed by its node's transform; polygons are triangulated,
 * points and lines ignored. The mesh is then placed in the field's frame:
 * x = R (S x_file) + t, with `scale` S per axis (NULL: 1, 1, 1; each finite
 * and non-zero, negative mirrors), `rotation` R a quaternion x, y, z, w
 * (NULL: none; finite, non-zero, normalised here) and `translation` t [m]
 * (NULL: 0). The grid has spacing `cell` [m] (1e-6 .. 1e6) and reaches 4
 * cells beyond the mesh's bounds. Distances are exact within `band` [m] of
 * the surface and stored as +-band beyond it: `band` 0 computes them
 * exactly everywhere, any other value must be at least 2 x cell (finite);
 * a band at least as long as the grid's diagonal clamps nothing and gives
 * the exact field. A band of a few particle spacings is all an obstacle
 * needs and builds much faster.
 * Inside and outside are decided by a vote of rays along the three axes,
 * which tolerates open meshes and small holes (a point is inside when most
 * rays from it cross the surface an odd number of times).
 * No file can crash, hang or exhaust the calling process: the file (at
 * most 2 GiB) is checked whole before Assimp sees it (headers to their end,
 * every announced element present, binary sizes exact), and on POSIX
 * systems Assimp runs in a child process limited to 30 s + 0.25 s per MiB
 * and 1 GiB + 64 bytes per byte of the file (docs/API.md, section 3.12).
 * On success *out_sdf owns the new field; on failure it is set to NULL.
 * PBF_ERROR_IO, with the path and the reason, when the file is missing,
 * unreadable, not one of the four formats (the message lists them), fails
 * the checks, makes the importer fail, crash or exceed its limits, or holds
 * no triangles.
 */
PBF_API pbf_status pbf_sdf_from_mesh_file(const char* path, const float scale[3], const float rotation[4],
                                          const float translation[3], float cell, float band, pbf_sdf** out_sdf);

/**
 * The exact signed distance field of a box centred at the origin with
 * `half_extents` [m] (each finite, > 0), sampled at spacing `cell` [m]
 * (1e-6 .. 1e6) 4 cells beyond the box. *out_sdf as for
 * pbf_sdf_from_mesh_file().
 */
PBF_API pbf_status pbf_sdf_box(const float half_extents[3], float cell, pbf_sdf** out_sdf);

/**
 * The exact signed distance field of a sphere of `radius` [m] (finite, > 0)
 * centred at the origin, sampled at spacing `cell` [m] (1e-6 .. 1e6) 4 cells
 * beyond it. *out_sdf as for pbf_sdf_from_mesh_file().
 */
PBF_API pbf_status pbf_sdf_sphere(float radius, float cell, pbf_sdf** out_sdf);

/**
 * Saves the field to `path` in pbf's small binary format (grid, values and
 * a checksum), through a temporary file beside `path` that is flushed and
 * renamed: the file appears complete or not at all, and an older file there
 * is kept whole when the save fails. Only a regular file is ever replaced.
 * PBF_ERROR_IO, with the path and the reason, when it cannot be written or
 * `path` is a directory, a FIFO, a device or a socket.
 */
PBF_API pbf_status pbf_sdf_save(const pbf_sdf* sdf, const char* path);

/**
 * Loads a field saved by pbf_sdf_save(); *out_sdf as for
 * pbf_sdf_from_mesh_file(). Only regular files are read (symbolic links
 * are followed); the header is read first and the values only when the file
 * holds exactly the size it announces. A file that is missing, not a
 * regular file (refused at once, without blocking), not such a file, of
 * another format version, truncated or corrupted, or that holds a number
 * out of range (a dimension, the origin, the cell outside 1e-6 .. 1e6 m, a
 * grid reaching more than 2^20 cells from the origin, or a value that is not
 * finite or is farther than the grid's diagonal) fails with PBF_ERROR_IO
 * and a message saying which.
 */
PBF_API pbf_status pbf_sdf_load(const char* path, pbf_sdf** out_sdf);

/**
 * The field's grid: the number of samples along x, y and z in dims, the
 * position of sample (0, 0, 0) in origin [m] and the sample spacing in
 * *cell [m]. Sample (i, j, k) lies at origin + (i, j, k) * cell. Any of
 * the three outputs may be NULL.
 */
PBF_API pbf_status pbf_sdf_get_grid(const pbf_sdf* sdf, uint32_t dims[3], float origin[3], float* cell);

/**
 * Copies the samples [m] into `out`, x varying fastest (sample (i, j, k) at
 * index i + dims[0] * (j + dims[1] * k)), the layout
 * pbf_solver_add_obstacle_sdf() takes. `length` is the number of floats
 * `out` can hold, at least dims[0] * dims[1] * dims[2]
 * (PBF_ERROR_BUFFER_TOO_SMALL otherwise).
 */
PBF_API pbf_status pbf_sdf_get_values(const pbf_sdf* sdf, float* out, size_t length);

/**
 * The field at `point` [m] (finite), in the field's frame, into
 * *out_distance [m]: trilinear between samples; outside the grid, the value
 * at the nearest point of the grid plus the distance to it, computed so that
 * it cannot overflow (a distance beyond FLT_MAX, only possible for points
 * near +-FLT_MAX, is reported as FLT_MAX).
 */
PBF_API pbf_status pbf_sdf_distance(const pbf_sdf* sdf, const float point[3], float* out_distance);

/**
 * The volume of the solid [m^3] into *out_volume: each sample stands for a
 * cube of cell^3, counted by the fraction of it the field puts inside.
 * Within a few percent of the true volume once the solid is several cells
 * across.
 */
PBF_API pbf_status pbf_sdf_volume(const pbf_sdf* sdf, float* out_volume);

/**
 * What a rigid body of uniform `density` [kg/m^3] (finite, > 0) filling the
 * solid weighs and how it turns, for a host engine's rigid body (or a
 * crate's buoyancy: it floats where the water it displaces weighs out_mass):
 * its mass [kg] into *out_mass, its centre of mass in the field's frame [m]
 * into out_centre[3], and its inertia tensor about the centre of mass in the
 * field's axes [kg m^2] into out_inertia[9], row-major. Each may be NULL
 * when not wanted. Counted as pbf_sdf_volume() counts, so within a few
 * percent once the solid is several cells across. A field with nothing
 * inside gives zeros. PBF_ERROR_INVALID_ARGUMENT names a bad `density`,
 * one so large that the mass or inertia would leave float range included
 * (then nothing is written).
 */
PBF_API pbf_status pbf_sdf_mass_properties(const pbf_sdf* sdf, float density, float* out_mass, float out_centre[3],
                                           float out_inertia[9]);

/** Destroys a field. Solvers keep their own copies of it. NULL is accepted and ignored. */
PBF_API pbf_status pbf_sdf_destroy(pbf_sdf* sdf);

/**
 * Adds the solid of `sdf` as an obstacle of `solver`, placed by `rotation`
 * and `translation` as for pbf_solver_add_obstacle_sdf() (NULL: none and
 * the origin). The solver copies the field; `sdf` may be destroyed at once.
 * Its index goes to *out_index when it is not NULL. The 65th obstacle fails
 * with PBF_ERROR_CAPACITY_EXCEEDED.
 */
PBF_API pbf_status pbf_solver_add_obstacle(pbf_solver* solver, const pbf_sdf* sdf, const float rotation[4],
                                           const float translation[3], uint32_t* out_index);

/**
 * Fills the inside of the solid of `sdf`, placed by `rotation` and
 * `translation` (as for pbf_solver_add_obstacle()), with particles at the
 * solver's rest spacing, all with `velocity` [m/s] (NULL: at rest): every
 * point of the lattice domain_min + (i + 1/2) * spacing (that of
 * pbf_solver_fill_box() for a box anchored at the domain's corner) where
 * the field is negative. Points outside the domain, or closer than half a
 * spacing to one of its walls, and points inside the solver's obstacles or
 * closer than half a spacing to their surfaces (as pbf_solver_fill_box()
 * leaves them out), are skipped. The number added goes to *out_added when it
 * is not NULL. All or nothing: when the particles would exceed max_particles
 * nothing is added and the call fails with PBF_ERROR_CAPACITY_EXCEEDED,
 * saying how many particles the solid holds outside the obstacles.
 */
PBF_API pbf_status pbf_solver_fill_sdf(pbf_solver* solver, const pbf_sdf* sdf, const float rotation[4],
                                       const float translation[3], const float velocity[3], size_t* out_added);

/**
 * Adds boundary particles (see "Boundary particles") for the surface of the
 * solid of `sdf`, placed by `rotation` and `translation` (as for
 * pbf_solver_add_obstacle()): points spread evenly, about the solver's
 * particle spacing apart (no two closer than 0.8 spacings), one layer set
 * back inside the solid by the distance the domain walls' samples are set
 * back (pbf_solver_add_domain_boundary_particles()), so that fluid resting
 * on a flat face has the rest density. Points farther
 * than a kernel radius outside the domain are left out, and only the part
 * of the surface near the domain is sampled, so that a solid much larger
 * than the domain costs no more than that part. The number added
 * goes to *out_added when it is not NULL. For solids that stay where they
 * are: the samples do not follow an obstacle moved by
 * pbf_solver_set_obstacle_pose() (for those, see
 * pbf_solver_add_obstacle_boundary_particles()). Fails without adding anything:
 * PBF_ERROR_INVALID_ARGUMENT for a bad pose,
 * PBF_ERROR_CAPACITY_EXCEEDED past PBF_MAX_BOUNDARY_PARTICLES.
 */
PBF_API pbf_status pbf_solver_add_sdf_boundary_particles(pbf_solver* solver, const pbf_sdf* sdf,
                                                         const float rotation[4], const float translation[3],
                                                         size_t* out_added);

/**
 * Adds boundary particles (see "Boundary particles") attached to obstacle
 * `index`: its own field's surface sampled as
 * pbf_solver_add_sdf_boundary_particles() samples a solid (about a particle
 * spacing apart, one layer set back inside the solid), in the obstacle's
 * frame. They move with the obstacle: every substep places them at the pose
 * its collisions use (pbf_solver_set_obstacle_pose()), so fluid resting on
 * or carried by a moving solid has the rest density there. Their
 * pseudo-masses count only the obstacle's own samples and are computed once.
 * All of the surface is sampled, inside the domain or not, since the
 * obstacle may move; the work follows the surface (the grid cells it
 * crosses), not the grid's box. The number added goes to *out_added when it is not
 * NULL. A second call adds the samples a second time.
 * pbf_solver_remove_obstacle_boundary_particles() removes this obstacle's
 * and keeps the obstacle; pbf_solver_clear_obstacles() removes them with the
 * obstacles; pbf_solver_clear_boundary_particles() removes them with every
 * other boundary particle. Fails without adding anything:
 * PBF_ERROR_INVALID_ARGUMENT for an `index` that names no obstacle,
 * PBF_ERROR_CAPACITY_EXCEEDED past PBF_MAX_BOUNDARY_PARTICLES.
 */
PBF_API pbf_status pbf_solver_add_obstacle_boundary_particles(pbf_solver* solver, uint32_t index,
                                                              size_t* out_added);

/**
 * Removes the boundary particles attached to obstacle `index` (every call of
 * pbf_solver_add_obstacle_boundary_particles() for it) and keeps the
 * obstacle, its collisions and every other boundary particle: the static
 * ones, the domain walls' and other obstacles' stay in their order with
 * their pseudo-masses (each body's count only its own samples). Rebuilds the
 * boundary grid once, as adding does. The number removed goes to
 * *out_removed when it is not NULL; 0 when the obstacle has none. Fails,
 * changing nothing: PBF_ERROR_NULL_POINTER for a NULL solver,
 * PBF_ERROR_INVALID_ARGUMENT for an `index` that names no obstacle.
 */
PBF_API pbf_status pbf_solver_remove_obstacle_boundary_particles(pbf_solver* solver, uint32_t index,
                                                                 size_t* out_removed);

/* ------------------------------------------------------------------------ */
/* Surfaces                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * A pbf_surface holds a closed triangle mesh built by marching cubes
 * (Lorensen & Cline 1987): the liquid's surface, from a solver's particles
 * (pbf_solver_build_surface()), or a solid's, from a signed distance field
 * (pbf_sdf_build_surface()). Vertices are in metres, one unit normal per
 * vertex points out of the liquid (or solid), and triangles are
 * counter-clockwise seen from outside. Every edge is shared by exactly two
 * triangles that run along it in opposite directions, so a mesh has no holes
 * and encloses a volume. A surface is rebuilt in place, keeping its memory
 * from frame to frame; it is read with pbf_surface_get_counts() and the
 * copy-out getters, or written with pbf_surface_write_ply(). A surface is
 * used by one thread at a time; any number may exist.
 */

/** The most grid points a liquid surface is sampled on: 2^27 (512^3), 5 bytes each. */
#define PBF_MAX_SURFACE_GRID_POINTS 134217728u

/**
 * How a liquid surface is built. The liquid is the region where the smoothed
 * particle density phi(x) = sum_i (1 - |x - x_i|^2 / R^2)^3 (for |x - x_i| < R)
 * exceeds iso_level times the value phi takes inside a block of particles at
 * rest spacing. Every length is in particle spacings (pbf_solver_desc's
 * particle_spacing), so one set of parameters suits every resolution.
 */
typedef struct pbf_surface_params {
  size_t struct_size;       /**< sizeof(pbf_surface_params); set by pbf_surface_params_default() */
  float cell_size;          /**< edge of the sampling grid's cells [spacings], 0.05 .. 4; default 0.5.
                                 Smaller is finer and slower: the work grows as its inverse cube. */
  float smoothing_radius;   /**< R, the reach of each particle's contribution [spacings], 1 .. 5;
                                 default 2. Larger is smoother and rounds corners more. */
  float iso_level;          /**< the surface's level as a fraction of the field inside the liquid at
                                 rest, strictly between 0 and 1; default 0.5, at which a block or
                                 ball of N particles at rest encloses N x spacing^3 to within 2 %.
                                 Lower levels give a larger, rounder liquid. */
  /* Appended after the first layout (which ends at iso_level, 24 bytes with its tail padding on
     64-bit platforms). */
  uint32_t reserved;        /**< ignored; set to 0 by pbf_surface_params_default(). It keeps the fields
                                 below past the first layout's tail padding, which a program built
                                 against it leaves undefined */
  float anisotropy;         /**< 0 .. 1; default 0 (isotropic kernels). Above 0, each particle's kernel
                                 follows its neighbours (Yu & Turk 2013): its centre moves 0.9 x
                                 anisotropy of the way to the neighbours' weighted mean, and it
                                 flattens across the liquid's surface and stretches along it, by the
                                 weighted covariance of its neighbours within 2R (eigenvalues at most
                                 4 to 1; fewer than 25 neighbours keep a round kernel), blended with
                                 the round kernel by `anisotropy`. 1 makes a resting block's top face
                                 flatter (height spread 0.039 spacings against 0.063) and keeps a
                                 ball's volume to 0.2 %, at about 14 times the build time (API.md 3.13) */
} pbf_surface_params;

/** Surface parameters with every default filled in. */
static inline pbf_surface_params pbf_surface_params_default(void) {
  pbf_surface_params p;
  p.struct_size = sizeof(pbf_surface_params);
  p.cell_size = 0.5f;
  p.smoothing_radius = 2.0f;
  p.iso_level = 0.5f;
  p.reserved = 0u;
  p.anisotropy = 0.0f;
  return p;
}

/** An opaque surface mesh. */
typedef struct pbf_surface pbf_surface;

/** Creates an empty surface (no vertices, no triangles) into *out_surface; NULL there on failure. */
PBF_API pbf_status pbf_surface_create(pbf_surface** out_surface);

/** Destroys a surface. NULL is accepted and ignored. */
PBF_API pbf_status pbf_surface_destroy(pbf_surface* surface);

/**
 * Replaces the mesh of `surface` by the liquid surface of the particles of
 * `solver` at their current positions (read back from the device on CUDA),
 * built as `params` says (NULL: pbf_surface_params_default()). The field is
 * sampled on a grid over the particles' bounds grown by the smoothing radius
 * and two cells, so the mesh is closed even where the liquid touches the
 * domain's walls. A solver with no particles gives an empty mesh. The mesh
 * does not depend on the solver's thread count or backend; the work runs on
 * the CPU, on up to the solver's thread_count threads.
 * Fails, leaving the surface as it was: PBF_ERROR_INVALID_ARGUMENT naming
 * the field for a parameter out of range; PBF_ERROR_VERSION_MISMATCH for an
 * unknown params->struct_size; PBF_ERROR_CAPACITY_EXCEEDED, naming
 * params->cell_size, when the grid would hold more than
 * PBF_MAX_SURFACE_GRID_POINTS points (particles spread far apart, or a small
 * cell_size); PBF_ERROR_BUSY during an asynchronous step.
 */
PBF_API pbf_status pbf_solver_build_surface(const pbf_solver* solver, const pbf_surface_params* params,
                                            pbf_surface* surface);

/**
 * Replaces the mesh of `surface` by the zero level set of `sdf`, in the
 * field's own frame (place it as the obstacle's pose places the solid),
 * sampled on the field's own grid; normals point out of the solid. Closed
 * wherever the solid does not reach the grid's faces (solids built by this
 * library never do). Fails, leaving the surface as it was, only for a NULL
 * argument or when memory runs out.
 */
PBF_API pbf_status pbf_sdf_build_surface(const pbf_sdf* sdf, pbf_surface* surface);

/**
 * The number of vertices and of triangles of the mesh into
 * *out_vertex_count and *out_triangle_count; either pointer may be NULL.
 */
PBF_API pbf_status pbf_surface_get_counts(const pbf_surface* surface, size_t* out_vertex_count,
                                          size_t* out_triangle_count);

/**
 * Copies the vertex positions [m], x y z per vertex, into `out`, which holds
 * `capacity` floats, at least 3 x the vertex count (PBF_ERROR_BUFFER_TOO_SMALL,
 * saying how many are needed, otherwise). `out` may be NULL for an empty mesh.
 */
PBF_API pbf_status pbf_surface_get_vertices(const pbf_surface* surface, float* out, size_t capacity);

/**
 * Copies the unit normals, x y z per vertex in the order of the vertices,
 * pointing out of the liquid (minus the field's gradient), into `out`, as
 * for pbf_surface_get_vertices().
 */
PBF_API pbf_status pbf_surface_get_normals(const pbf_surface* surface, float* out, size_t capacity);

/**
 * Copies the triangles, 3 vertex indices each, counter-clockwise seen from
 * outside, into `out`, which holds `capacity` indices, at least 3 x the
 * triangle count (PBF_ERROR_BUFFER_TOO_SMALL, saying how many are needed,
 * otherwise). `out` may be NULL for an empty mesh.
 */
PBF_API pbf_status pbf_surface_get_triangles(const pbf_surface* surface, uint32_t* out, size_t capacity);

/**
 * Writes the mesh to `path` as a binary little-endian PLY file: "element
 * vertex" with float x y z nx ny nz, then "element face" with "property list
 * uchar uint vertex_indices", 3 per face (Blender, Houdini, MeshLab and
 * ParaView read it with its normals). An empty mesh gives a valid file with
 * no vertices and no faces. The file appears complete or not at all, as for
 * pbf_solver_write_ply(); PBF_ERROR_IO, naming the path and the reason, when
 * it cannot be written or `path` is not a regular file.
 */
PBF_API pbf_status pbf_surface_write_ply(const pbf_surface* surface, const char* path);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PBF_PBF_H */
