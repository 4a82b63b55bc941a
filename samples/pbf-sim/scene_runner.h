// scene_runner.h - builds a solver from a Scene and runs it frame by frame:
// step, emit, drain, write.
#ifndef PBF_SIM_SCENE_RUNNER_H
#define PBF_SIM_SCENE_RUNNER_H

#include <pbf/pbf.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "emitter.h"
#include "scene.h"
#include "stats_writer.h"
#include "surface_mesh.h"
#include "vtp_writer.h"

namespace pbf_sim {

class FrameRenderer;

/** A failed pbf call or output file while running; what() says which and why. */
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/** How to run a scene, beyond what the scene file says. */
struct RunOptions {
  int threads = 0;  ///< CPU worker threads, 0 = all
  /** Receives notices such as the refusal of particles beyond max_particles; default: stderr. */
  std::function<void(const std::string&)> message;
};

/**
 * A notice for a domain so large that float positions may resolve it coarser than 5e-4 of the
 * particle spacing (where the flow measurably loses energy, docs/PHYSICS.md §9), or "" for one
 * small enough. Where the domain lies does not matter: the library keeps positions relative to
 * an origin within 2.5 of the domain's extents of every point of it (docs/API.md, `domain_min`).
 */
std::string large_domain_notice(const float domain_min[3], const float domain_max[3], float spacing);

/** A frame that ends with its water compressed by more than this on average (1 %, ten times PBF's default
 *  density_tolerance) is noticed: the method did not hold the water at the scene's steps. */
constexpr float kCompressedMean = 0.01f;

/**
 * Where pbf-sim keeps the poses and velocities of a scene's dynamic obstacles beside the checkpoint
 * `checkpoint` (the library's checkpoints leave obstacles to the scene): `checkpoint` + ".bodies.json".
 */
std::string bodies_checkpoint_path(const std::string& checkpoint);

/** What a run has done so far. */
struct RunTotals {
  size_t initial_particles = 0;  ///< after the fluid blocks were placed (or the checkpoint loaded)
  size_t emitted = 0;            ///< particles added by emitters
  size_t refused = 0;            ///< emitted particles refused because the solver was full
  size_t clipped = 0;            ///< emitted particles outside the domain or nearer than half a spacing to a wall
  size_t obstructed = 0;         ///< emitted particles inside an obstacle or nearer than half a spacing to one
  size_t blocked = 0;            ///< particles of discs that found no room at their inlet (Emitter::emit())
  size_t removed = 0;            ///< particles removed by sinks
  int overflow_frames = 0;       ///< frames whose last substep had neighbour lists overflow (pbf_stats.neighbor_overflows)
  size_t overflows_max = 0;      ///< most particles with overflowing lists after one frame
  int compressed_frames = 0;     ///< frames that ended with the water compressed by more than kCompressedMean on average
  int frames = 0;                ///< frames advanced
  uint64_t substeps = 0;         ///< solver substeps taken
  uint64_t density_iterations = 0;  ///< density iterations run, over every substep (pbf_stats.density_iterations)
  double step_ms = 0.0;          ///< wall-clock time inside pbf_solver_step [ms]
  double density_error_sum = 0.0;  ///< sum over frames of the average compression
  float density_error_max = 0.0f;  ///< largest compression seen after any frame
  size_t ply_files = 0;          ///< PLY frames written
  size_t vtp_files = 0;          ///< VTP frames written
  size_t surface_files = 0;      ///< frames whose surface mesh was written (as PLY, OBJ or both)
  double surface_ms = 0.0;       ///< wall-clock time building surface meshes [ms]
  size_t vdb_files = 0;          ///< frames whose liquid was written as OpenVDB grids (surface_NNNN.vdb)
  double vdb_ms = 0.0;           ///< wall-clock time turning surface meshes into OpenVDB grids and writing them [ms]
  size_t png_files = 0;          ///< pictures written
  double render_ms = 0.0;        ///< wall-clock time rendering pictures, without writing them [ms]
  size_t stale_files = 0;        ///< an earlier run's frame files removed from output.dir and not written again
};

/**
 * One run of a scene. The constructor creates the solver (backend, spacing,
 * kernel radius, rest density, domain, capacity), sets the parameters, adds
 * the planes and the obstacles (signed distance fields of boxes, spheres and
 * meshes) and places the fluid blocks; errors are thrown as RunError
 * naming the scene file and the key whose value the library refused.
 */
class SceneRunner {
 public:
  /** Builds the solver for `scene`; throws RunError. */
  SceneRunner(Scene scene, RunOptions options = {});
  /** Destroys the solver. */
  ~SceneRunner();
  SceneRunner(const SceneRunner&) = delete;
  SceneRunner& operator=(const SceneRunner&) = delete;

  /** The solver, for callers that read or step it themselves (the benchmark, tests). */
  pbf_solver* solver() const { return solver_; }
  /** The scene being run, with command-line overrides applied. */
  const Scene& scene() const { return scene_; }
  /** The solver's description with automatic values resolved (backend, kernel radius, threads). */
  const pbf_solver_desc& desc() const { return desc_; }
  /** The emitters, in scene order. */
  const std::vector<Emitter>& emitters() const { return emitters_; }

  /** Particles now in the solver. */
  size_t particle_count() const;
  /** Number of the frame the state belongs to (0 before the first step). */
  int frame() const { return frame_; }
  /** Simulated time of the state [s]: frame / fps. */
  double time() const { return frame_ / static_cast<double>(scene_.time.fps); }
  /** The last frame this run advances to: the first frame plus time.frames. */
  int last_frame() const { return first_frame_ + scene_.time.frames; }
  /** Statistics of the last step. */
  const pbf_stats& last_stats() const { return stats_; }
  /** Totals of the run so far. */
  const RunTotals& totals() const { return totals_; }
  /** How many of the scene's obstacles are dynamic bodies (those with a density). */
  size_t dynamic_obstacle_count() const { return dynamic_obstacles_.size(); }

  /**
   * Replaces the state by a checkpoint saved at frame `start_frame` and
   * continues numbering (and emitting) from there. Frames of the earlier run
   * found in the output folder stay listed in the .pvd. A scene with dynamic
   * obstacles also reads their poses and velocities from
   * bodies_checkpoint_path(checkpoint); throws naming that file when it is
   * missing, unreadable or does not fit the scene's bodies.
   */
  void resume(const std::string& checkpoint, int start_frame);

  /**
   * Saves the complete solver state to `path` (pbf_solver_save_checkpoint),
   * and a scene's dynamic obstacles' poses and velocities, which the
   * library's checkpoints do not hold, to bodies_checkpoint_path(path).
   */
  void save_checkpoint(const std::string& path) const;

  /**
   * Advances one frame: steps 1/fps seconds in time.substeps substeps, then
   * adds the emitters' discs due in that frame (refusing those beyond
   * max_particles, with one message per run), then removes the particles
   * inside the sinks.
   */
  void advance();

  /** Whether the current frame is written: every output.every-th frame, frame 0 and the last. */
  bool output_due() const;

  /**
   * Writes the current frame in every format the scene asks for (none: nothing, no folder).
   * The first call of a run first removes the frame files an earlier run into
   * the same folder wrote and this run does not keep (all of them; a resumed
   * run keeps those up to its first frame): only files that the earlier
   * run's frames.json lists and that are named as pbf-sim names frames
   * (frame_NNNN.ply/.vtp/.png, surface_NNNN.ply/.vtp/.obj), never anything else, and
   * with them a frames.pvd or contact_sheet.png this run will not rewrite.
   */
  void write_output();

  /**
   * With output.stats, appends the current frame's row to that CSV
   * (StatsWriter), creating the file with its header at the first call; the
   * row of the run's first frame has no step statistics. With output.forces,
   * likewise a row per obstacle to that CSV, and with output.bodies a row per
   * dynamic obstacle (ObstacleTableWriter). Otherwise nothing. Returns
   * whether a statistics row was written.
   */
  bool write_stats();

  /** The speed the particles style draws white, fixed at the run's first picture (speed_scale()); 0 before it. */
  float picture_speed_scale() const { return picture_speed_scale_; }

  /** Statistics rows written so far (0 without output.stats). */
  size_t stats_rows() const { return stats_file_ ? stats_file_->rows() : 0; }
  /** Obstacle force rows written so far (0 without output.forces). */
  size_t forces_rows() const { return forces_file_ ? forces_file_->rows() : 0; }
  /** Dynamic body rows written so far (0 without output.bodies). */
  size_t bodies_rows() const { return bodies_file_ ? bodies_file_->rows() : 0; }

  /** The path of the current frame's file with extension `ext` ("ply", "vtp"). */
  std::string frame_path(const std::string& ext) const;

  /** The path of the .pvd collection (output.dir/frames.pvd). */
  std::string pvd_path() const;

  /**
   * The path of the manifest (output.dir/frames.json): every frame written,
   * with its number, time, particle count and the file of each kind ("ply",
   * "vtp", "surface", "surface_vtp", "surface_obj", "png"), rewritten atomically after each frame. A
   * resumed run keeps the earlier run's frames up to its first one.
   */
  std::string manifest_path() const;

  /**
   * With output.contact_sheet, tiles up to 16 of the pictures written so far
   * into output.dir/contact_sheet.png and returns its path; otherwise, or
   * without pictures, writes nothing and returns "".
   */
  std::string write_contact_sheet();

 private:
  void check(pbf_status status, const std::string& context) const;
  void place_sphere(const FluidBlock& block, size_t index);
  // Where each obstacle is now (pbf_solver_get_obstacle_pose()).
  std::vector<Pose> obstacle_poses() const;
  // Whether a point of a fluid block or an inlet's disc is clear of the obstacles at `poses`: outside each,
  // at least half a spacing from its surface, as pbf_solver_fill_box() and pbf_solver_fill_sdf() keep their
  // points (a point nearer starts pressed into the solid and is thrown out of it).
  bool clear_of_obstacles(const float p[3], const std::vector<Pose>& poses) const;
  void place_mesh(const FluidBlock& block, size_t index);
  // Builds the obstacles' fields (once) and adds them to the solver where they are at time t.
  void add_obstacles(double t);
  // The obstacles' surfaces where they are at time t, in world coordinates (for pictures).
  std::vector<SurfaceMesh> obstacle_surfaces(double t) const;
  void emit();
  void drain();
  void notify(const std::string& text) const;
  // Builds the scene's inlets. Throws RunError, naming the key, for one whose disc or whose particles
  // in one frame exceed max_particles; says how many of a disc's particles start outside the domain or
  // within half a spacing of a wall, where emit() drops them.
  void add_emitters();
  void note_overflows();
  void note_compression();
  void restore_bodies(const std::string& checkpoint);

  Scene scene_;
  RunOptions options_;
  pbf_solver* solver_ = nullptr;
  pbf_solver_desc desc_ = pbf_solver_desc_default();
  pbf_stats stats_ = pbf_stats_default();
  std::vector<Emitter> emitters_;
  RunTotals totals_;
  int frame_ = 0;
  int first_frame_ = 0;
  bool capacity_notice_ = false;
  bool overflow_notice_ = false;
  bool compression_notice_ = false;
  bool output_ready_ = false;
  std::vector<PvdEntry> pvd_;
  // Lists `file` (in output.dir) at the current time as `part` of frames.pvd and rewrites it.
  void add_to_pvd(const std::string& file, int part);
  struct ManifestEntry {
    int frame = 0;
    double time = 0.0;
    size_t particles = 0;
    std::vector<std::pair<std::string, std::string>> files;  // kind, file name in output.dir
  };
  std::vector<ManifestEntry> manifest_;  // in frame order
  void write_manifest(ManifestEntry entry);
  // Removes the earlier run's frame files that this run does not keep (write_output()).
  void remove_stale_frames();
  // Whether this run writes a file of `kind` named `name` (a frame it outputs, named as frame_path() names it).
  bool will_write(const std::string& kind, const std::string& name) const;
  std::vector<pbf_sdf*> obstacle_fields_;         // one per scene obstacle, owned
  std::vector<SurfaceMesh> obstacle_meshes_;      // their surfaces in their own frames, for pictures
  pbf_surface* surface_ = nullptr;                // owned; meshes the liquid and the obstacles (surface())
  // The scratch surface, created at its first use.
  pbf_surface* surface();
  bool moving_obstacles_ = false;
  bool obstacle_samples_added_ = false;  // static obstacles' boundary particles are in the solver
  std::unique_ptr<FrameRenderer> renderer_;  // created at the first picture
  std::unique_ptr<StatsWriter> stats_file_;  // created at the first row
  std::unique_ptr<ObstacleTableWriter> forces_file_;  // created at the first row
  std::unique_ptr<ObstacleTableWriter> bodies_file_;  // created at the first row
  std::vector<uint32_t> dynamic_obstacles_;           // the indices of the scene's dynamic obstacles
  std::vector<std::string> png_paths_;       // pictures written, for the contact sheet
  float picture_speed_scale_ = 0.0f;         // the speed drawn white, fixed at the run's first picture (speed_scale())
  // Scratch arrays reused every frame.
  std::vector<float> positions_, velocities_, densities_;
  std::vector<float> new_positions_, new_velocities_;
  std::vector<uint32_t> doomed_;
};

}  // namespace pbf_sim

#endif  // PBF_SIM_SCENE_RUNNER_H
