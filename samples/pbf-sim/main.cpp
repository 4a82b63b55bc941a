// pbf-sim - runs a scene file (docs/SCENES.md) or, without one, the built-in
// dam break with the pbf C API, writing PLY and VTP frames; with --bench,
// times the reference scene of docs/PERFORMANCE.md.
#include <pbf/pbf.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "scene.h"
#include "scene_runner.h"

namespace {

using pbf_sim::Scene;
using pbf_sim::SceneRunner;

struct Options {
  std::string scene;  // empty: the built-in dam break
  std::string backend = "auto";
  std::string method = "pbf";
  int frames = 120;
  float fps = 60.0f;
  int substeps = 4;
  int iterations = 4;
  float density_tolerance = 0.0f;
  float spacing = 0.025f;
  int threads = 0;
  int max_neighbors = 0;
  std::string out = "pbf-out";
  bool no_output = false;
  bool ply = true;
  bool vtp = false;
  bool surface = false;
  bool vdb = false;
  bool png = false;
  std::string image_style;     // water or particles
  std::string surface_format;  // ply, obj or both
  int every = 1;
  bool bench = false;
  float bench_dt = 0.001f;
  float bench_seconds = 1.0f;
  float vorticity = 0.0f;
  float xsph = 0.0f;
  bool boundary_particles = false;
  std::string checkpoint;  // save the state here after the last frame
  std::string resume;      // load the state from here before the first frame
  std::string stats;       // CSV of per-frame statistics
  std::string forces;      // CSV of the forces on the obstacles, per frame
  std::string bodies;      // CSV of the dynamic obstacles' poses and velocities, per frame
  int start_frame = 0;     // number of the frame a resumed run starts from
};

void print_progress(int done, int total, double elapsed_s) {
  const int width = 30;
  const int filled = total > 0 ? done * width / total : width;
  const double eta = done > 0 ? elapsed_s / done * (total - done) : 0.0;
  std::fprintf(stderr, "\r[%.*s%*s] %d/%d  elapsed %.1f s  eta %.1f s ", filled, "##############################",
               width - filled, "", done, total, elapsed_s, eta);
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

// The scene's name in the first line: the file, or "dam break" for the built-in one.
std::string scene_name(const Scene& s, bool builtin) { return builtin ? "dam break" : s.source; }

// Where the density tolerance may add PBF iterations: up to how many, above what compression.
void print_density_tolerance(const pbf_params& p) {
  if (p.density_tolerance > 0.0f && p.max_iterations > p.iterations)
    std::printf(" (up to %u above %.3g%% compression)", p.max_iterations, 100.0 * p.density_tolerance);
}

// A run with no particles and no emitter to add any would only write empty frames: refuse it.
void require_particles(const SceneRunner& runner, bool builtin) {
  if (runner.particle_count() > 0 || !runner.emitters().empty()) return;
  throw pbf_sim::RunError(scene_name(runner.scene(), builtin) +
                          ": the scene has no particles: no fluid block places any inside the domain and no "
                          "emitter adds any (check fluid[] against domain, and spacing)");
}

// --version: the library's version (pbf_version_string()) and which backends can run here.
int print_version() {
  std::printf("pbf-sim: pbf library %s (built with pbf.h %s)\n", pbf_version_string(), PBF_VERSION_STRING);
  std::printf("backends:");
  for (pbf_backend b : {PBF_BACKEND_CPU, PBF_BACKEND_CUDA}) {
    int available = 0;
    if (pbf_backend_available(b, &available) != PBF_OK) available = 0;
    std::printf(" %s %s%s", pbf_backend_name(b), available ? "available" : "not available",
                b == PBF_BACKEND_CPU ? "," : "");
  }
  std::printf("\n");
  return 0;
}

int run_frames(SceneRunner& runner, const Options& o, bool builtin) {
  const Scene& scene = runner.scene();
  const pbf_solver_desc& desc = runner.desc();
  size_t n = runner.particle_count();
  const bool projective = desc.method == PBF_METHOD_PROJECTIVE;
  const pbf_params& params = scene.params;
  std::printf("pbf %s  %s: %zu particles, %s, backend %s, %d threads, %d frames of %d substeps x %u iterations",
              pbf_version_string(), scene_name(scene, builtin).c_str(), n,
              projective ? "Projective Fluids" : "Position Based Fluids", pbf_backend_name(desc.backend),
              desc.thread_count, scene.time.frames, scene.time.substeps,
              projective ? params.projective_iterations : params.iterations);
  if (projective)
    std::printf(" at most");
  else
    print_density_tolerance(params);
  std::printf("\n");
  if (!builtin && !scene.description.empty()) std::printf("  %s\n", scene.description.c_str());
  size_t samples = 0;
  if (pbf_solver_get_boundary_particle_count(runner.solver(), &samples) == PBF_OK && samples > 0)
    std::printf("  %zu boundary particles%s\n", samples, scene.boundary_particles ? ", the domain walls sampled" : "");
  if (!runner.emitters().empty()) {
    for (size_t i = 0; i < runner.emitters().size(); ++i)
      std::printf("  emitter %zu: %zu particles per disc, %.0f particles/s\n", i, runner.emitters()[i].disc_size(),
                  runner.emitters()[i].rate());
  }
  if (!o.resume.empty()) {
    runner.resume(o.resume, o.start_frame);
    n = runner.particle_count();
    std::printf("resumed from '%s' at frame %d: %zu particles\n", o.resume.c_str(), o.start_frame, n);
    if (runner.dynamic_obstacle_count() > 0)
      std::printf("  %zu dynamic obstacles placed and moving as '%s' says\n", runner.dynamic_obstacle_count(),
                  pbf_sim::bodies_checkpoint_path(o.resume).c_str());
  }
  require_particles(runner, builtin);
  if (o.resume.empty()) {
    runner.write_output();
  }
  runner.write_stats();
  const bool dynamic_count = !scene.emitters.empty() || !scene.sinks.empty();
  const bool tty = isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  const int frames = scene.time.frames;
  for (int k = 1; k <= frames; ++k) {
    runner.advance();
    if (runner.output_due()) runner.write_output();
    runner.write_stats();
    const pbf_stats& stats = runner.last_stats();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (tty) print_progress(k, frames, elapsed);
    if (!tty || k == frames || k % 10 == 0) {
      std::printf("frame %4d  t=%6.3f s  %8.2f ms/frame  density error avg %.4f%% max %.3f%%  max speed %.2f m/s",
                  runner.frame(), runner.time(), stats.time_total_ms, 100.0 * stats.avg_density_error,
                  100.0 * stats.max_density_error, stats.max_speed);
      if (dynamic_count) std::printf("  %zu particles", runner.particle_count());
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  const std::string sheet = runner.write_contact_sheet();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const pbf_sim::RunTotals& t = runner.totals();
  n = runner.particle_count();
  std::printf("done: %zu particles, %d frames, %.2f ms per frame (%.2f ms per substep), %llu substeps, %.1f s wall\n",
              n, t.frames, t.step_ms / std::max(t.frames, 1),
              t.step_ms / static_cast<double>(std::max<uint64_t>(t.substeps, 1)),
              static_cast<unsigned long long>(t.substeps), wall);
  std::printf("density error: average over frames %.4f%%, maximum %.3f%%; %.2f density iterations per substep\n",
              100.0 * t.density_error_sum / std::max(t.frames, 1), 100.0 * t.density_error_max,
              static_cast<double>(t.density_iterations) / static_cast<double>(std::max<uint64_t>(t.substeps, 1)));
  if (t.overflow_frames > 0)
    std::printf("neighbour lists: overflowed in %d of %d frames, up to %zu particles at a frame's end "
                "(max_neighbors %u; --max-neighbors raises it)\n",
                t.overflow_frames, t.frames, t.overflows_max, static_cast<unsigned>(runner.desc().max_neighbors));
  if (t.compressed_frames > 0)
    std::printf("compression: the water ended %d of %d frames compressed by more than %.0f%% on average\n",
                t.compressed_frames, t.frames, 100.0 * pbf_sim::kCompressedMean);
  if (dynamic_count)
    std::printf("particles: %zu at the start, %zu emitted, %zu removed by sinks, %zu refused (max_particles %u), "
                "%zu emitted outside the domain or within half a spacing of a wall, %zu into an obstacle or "
                "within half a spacing of one, %zu held back by water in an inlet's way\n",
                t.initial_particles, t.emitted, t.removed, t.refused, static_cast<unsigned>(desc.max_particles),
                t.clipped, t.obstructed, t.blocked);
  if (t.ply_files + t.vtp_files + t.surface_files + t.vdb_files + t.png_files == 0) {
    std::printf("output: none\n");
  } else {
    std::printf("output: %zu PLY and %zu VTP frames", t.ply_files, t.vtp_files);
    if (t.surface_files > 0)
      std::printf(" and %zu surface meshes (%.1f ms per mesh)", t.surface_files, t.surface_ms / t.surface_files);
    if (t.vdb_files > 0)
      std::printf(" and %zu OpenVDB files (%.1f ms per file, after its mesh)", t.vdb_files, t.vdb_ms / t.vdb_files);
    if (t.png_files > 0) std::printf(" and %zu pictures (%.1f ms per picture)", t.png_files, t.render_ms / t.png_files);
    std::printf(" in %s", scene.output.dir.c_str());
    if (t.vtp_files > 0) std::printf(" (open %s in ParaView)", runner.pvd_path().c_str());
    std::printf("\n");
    // ParaView's PLY reader keeps positions and colours only: say where velocity and density are for it.
    if (t.ply_files > 0 && t.vtp_files == 0)
      std::printf("ParaView shows PLY particles coloured by speed, without velocity or density: add --vtp and open "
                  "frames.pvd\n");
    if (!sheet.empty()) std::printf("contact sheet: %s\n", sheet.c_str());
  }
  if (t.stale_files > 0)
    std::printf("removed %zu frame files of an earlier run from %s (frames.json listed them)\n", t.stale_files,
                scene.output.dir.c_str());
  if (runner.stats_rows() > 0)
    std::printf("statistics: %zu rows in %s\n", runner.stats_rows(), scene.output.stats.c_str());
  if (!scene.output.forces.empty())
    std::printf("forces on obstacles: %zu rows in %s%s\n", runner.forces_rows(), scene.output.forces.c_str(),
                runner.forces_rows() == 0 ? " (the scene has no obstacles)" : "");
  if (!scene.output.bodies.empty())
    std::printf("dynamic bodies: %zu rows in %s%s\n", runner.bodies_rows(), scene.output.bodies.c_str(),
                runner.bodies_rows() == 0 ? " (the scene has no dynamic obstacles)" : "");
  if (!o.checkpoint.empty()) {
    runner.save_checkpoint(o.checkpoint);
    std::printf("state saved to '%s'; go on with --resume %s --start-frame %d\n", o.checkpoint.c_str(),
                o.checkpoint.c_str(), runner.frame());
    if (runner.dynamic_obstacle_count() > 0)
      std::printf("  the dynamic obstacles' poses and velocities to '%s', which --resume reads too\n",
                  pbf_sim::bodies_checkpoint_path(o.checkpoint).c_str());
  }
  return 0;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run_bench(SceneRunner& runner, const Options& o, bool builtin) {
  require_particles(runner, builtin);
  pbf_solver* solver = runner.solver();
  const size_t n = runner.particle_count();
  const int steps = static_cast<int>(o.bench_seconds / o.bench_dt + 0.5f);
  const pbf_params& params = runner.scene().params;
  std::printf("pbf %s  %s: %zu particles, backend %s, %d threads, dt %.4f s, %u iterations", pbf_version_string(),
              builtin ? "reference dam break" : runner.scene().source.c_str(), n,
              pbf_backend_name(runner.desc().backend), runner.desc().thread_count, o.bench_dt, params.iterations);
  print_density_tolerance(params);
  std::printf(", %d steps\n", steps);
  if (!runner.scene().emitters.empty() || !runner.scene().sinks.empty())
    std::printf("(emitters and sinks do not run in --bench: the initial fluid is timed)\n");
  std::map<std::string, std::vector<double>> t;
  double err_sum = 0.0, err_max = 0.0, iterations = 0.0, substeps = 0.0;
  int overflow_steps = 0;
  uint32_t overflows_max = 0;
  pbf_stats s = pbf_stats_default();
  for (int k = 0; k < steps; ++k) {
    if (pbf_solver_step(solver, o.bench_dt, 1) != PBF_OK || pbf_solver_get_stats(solver, &s) != PBF_OK)
      throw pbf_sim::RunError(pbf_last_error());
    t["total"].push_back(s.time_total_ms);
    t["predict"].push_back(s.time_predict_ms);
    t["grid"].push_back(s.time_grid_ms);
    t["neighbors"].push_back(s.time_neighbors_ms);
    t["constraints"].push_back(s.time_constraints_ms);
    t["velocity"].push_back(s.time_velocity_ms);
    t["vorticity+xsph"].push_back(s.time_vorticity_viscosity_ms);
    err_sum += s.avg_density_error;
    iterations += s.density_iterations;
    substeps += s.substeps;
    err_max = std::max(err_max, static_cast<double>(s.max_density_error));
    if (s.neighbor_overflows > 0) {
      ++overflow_steps;
      overflows_max = std::max(overflows_max, s.neighbor_overflows);
    }
    if (isatty(STDERR_FILENO) && (k + 1) % 50 == 0)
      print_progress(k + 1, steps, 0.001 * std::accumulate(t["total"].begin(), t["total"].end(), 0.0));
  }
  std::printf("median ms per step: %.3f\n", median(t["total"]));
  for (const char* phase : {"predict", "grid", "neighbors", "constraints", "velocity", "vorticity+xsph"})
    std::printf("  %-16s %8.3f ms\n", phase, median(t[phase]));
  std::printf("density error: average over steps %.4f%%, maximum %.3f%%\n", 100.0 * err_sum / std::max(steps, 1),
              100.0 * err_max);
  std::printf("density iterations per substep: %.2f on average\n", iterations / std::max(substeps, 1.0));
  // Lists that overflow keep their nearest neighbours, which the search chooses: the times above include it.
  if (overflow_steps > 0)
    std::printf("neighbour lists: overflowed in %d of %d steps, up to %u particles at a step's end (max_neighbors %u; "
                "--max-neighbors raises it; the times include choosing those lists' nearest)\n",
                overflow_steps, steps, static_cast<unsigned>(overflows_max),
                static_cast<unsigned>(runner.desc().max_neighbors));
  std::printf("particle-iterations per second: %.3g\n",
              static_cast<double>(n) * iterations / (std::accumulate(t["total"].begin(), t["total"].end(), 0.0) * 1e-3));
  return 0;
}

pbf_backend parse_backend(const std::string& name) {
  if (name == "cpu") return PBF_BACKEND_CPU;
  if (name == "cuda") return PBF_BACKEND_CUDA;
  return PBF_BACKEND_AUTO;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "pbf-sim: Position Based Fluids from a scene file (docs/SCENES.md), written as PLY and VTP frames.\n"
      "Without a scene it runs the built-in dam break (59,319 particles in a 4 x 3 x 1.5 m box)."};
  app.add_option("scene", o.scene, "scene file (JSON); samples/scenes/ has examples")->check(CLI::ExistingFile);
  app.add_option("--backend", o.backend, "auto, cpu or cuda (overrides the scene)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  app.add_option("--method", o.method, "pbf or projective (overrides the scene)")
      ->check(CLI::IsMember({"pbf", "projective"}));
  app.add_option("--frames", o.frames, "frames to simulate (overrides time.frames; default 120)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--fps", o.fps, "frames per simulated second (overrides time.fps; default 60)")
      ->check(CLI::Range(1.0f, 10000.0f));
  app.add_option("--substeps", o.substeps, "substeps per frame (overrides time.substeps; default 4)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--iterations", o.iterations, "density iterations per substep (overrides parameters.iterations)")
      ->check(CLI::Range(1, 100));
  app.add_option("--density-tolerance", o.density_tolerance,
                 "PBF: mean compression above which a substep runs more density iterations, up to "
                 "parameters.max_iterations; 0 = exactly --iterations (overrides parameters.density_tolerance)")
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--spacing", o.spacing,
                 "particle spacing [m] (overrides the scene's; an explicit kernel_radius scales with it); "
                 "built-in: 0.025 gives 59,319 particles, 0.05 gives 8,000 (the block keeps its size)")
      ->check(CLI::Range(0.001f, 1.0f));
  app.add_option("--threads", o.threads, "CPU threads, 0 = all")->check(CLI::Range(0, 1024));
  app.add_option("--max-neighbors", o.max_neighbors,
                 "neighbours kept per particle, 0 = automatic (56 at the default kernel radius) or 8 to 1024; "
                 "raise it where the run says the lists overflowed (overrides max_neighbors)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--vorticity", o.vorticity, "vorticity confinement epsilon [m/s], 0 = off (overrides the scene)")
      ->check(CLI::Range(0.0f, 10.0f));
  app.add_option("--xsph", o.xsph, "XSPH viscosity c, 0 = off (overrides the scene)")->check(CLI::Range(0.0f, 1.0f));
  auto* walls = app.add_flag("--boundary-particles,!--no-boundary-particles", o.boundary_particles,
                             "sample (or not) the domain walls with boundary particles, so that water at the walls "
                             "is at rest density (overrides boundary_particles; built-in scene: off)");
  app.add_option("--out", o.out, "folder for frame_NNNN.ply/.vtp and frames.pvd (overrides output.dir; default pbf-out)");
  auto* ply = app.add_flag("--ply,!--no-ply", o.ply, "write (or not) a binary PLY per frame (overrides output.ply; built-in scene: on)");
  auto* vtp = app.add_flag("--vtp,!--no-vtp", o.vtp, "write (or not) a VTK .vtp per frame and frames.pvd (overrides output.vtp; built-in scene: off)");
  auto* surface = app.add_flag("--surface,!--no-surface", o.surface,
                               "write (or not) the liquid surface mesh per frame as surface_NNNN.ply and/or .obj (overrides output.surface; default off)");
  auto* png = app.add_flag("--png,!--no-png", o.png,
                           "write (or not) a picture per frame as frame_NNNN.png, and at the end contact_sheet.png (overrides output.png; default off)");
  app.add_option("--image-style", o.image_style,
                 "water (the liquid's surface shaded as water, spray as droplets) or particles (spheres coloured by "
                 "speed) in the pictures (overrides output.image_style; default water)")
      ->check(CLI::IsMember({"water", "particles"}));
  auto* vdb = app.add_flag("--vdb,!--no-vdb", o.vdb,
                           "write (or not) the liquid per frame as OpenVDB grids, surface_NNNN.vdb: a level set "
                           "\"surface\" and a fog volume \"density\" (overrides output.vdb; default off; needs a "
                           "pbf-sim built with OpenVDB)");
  app.add_option("--surface-format", o.surface_format,
                 "ply, obj or both: the files of --surface (overrides output.surface_format; default ply)")
      ->check(CLI::IsMember({"ply", "obj", "both"}));
  app.add_option("--every", o.every, "write every n-th frame (overrides output.every; default 1)")
      ->check(CLI::Range(1, 100000000));
  app.add_flag("--no-output", o.no_output, "write no frame files");
  app.add_option("--stats", o.stats,
                 "write one CSV row of statistics per frame to this file (overrides output.stats; docs/SCENES.md "
                 "lists the columns; tools/plot_stats.py plots them)");
  app.add_option("--forces", o.forces,
                 "write the force and torque the water exerts on each obstacle, a CSV row per obstacle per frame, "
                 "to this file (overrides output.forces)");
  app.add_option("--bodies", o.bodies,
                 "write the pose and velocity of each dynamic obstacle (one with a \"density\"), a CSV row per "
                 "body per frame, to this file (overrides output.bodies)");
  app.add_option("--checkpoint", o.checkpoint, "save the complete state to this file after the last frame");
  app.add_option("--resume", o.resume, "start from a state saved with --checkpoint (same scene and --spacing)");
  app.add_option("--start-frame", o.start_frame, "number of the first frame of a resumed run")
      ->check(CLI::Range(0, 100000000));
  bool version = false;
  app.add_flag("--version", version, "print the pbf library's version and the backends available here, and exit");
  app.add_flag("--bench", o.bench, "time the scene's first steps (default: the reference dam break; no output files)");
  app.add_option("--bench-dt", o.bench_dt, "time step of --bench [s]")->check(CLI::Range(1e-5f, 0.1f));
  app.add_option("--bench-seconds", o.bench_seconds, "simulated time of --bench [s]")->check(CLI::Range(0.001f, 100.0f));
  app.footer(
      "Command-line options override the scene file. Examples:\n"
      "  pbf-sim samples/scenes/dam_break.json\n"
      "  pbf-sim samples/scenes/inlet.json --frames 60 --out inlet-out --vtp\n"
      "  pbf-sim --frames 120 --out pbf-out            (the built-in dam break)\n"
      "  pbf-sim --boundary-particles --png             (the same with sampled walls, and pictures)\n"
      "  pbf-sim --no-output --stats stats.csv          (statistics only; python3 tools/plot_stats.py stats.csv)\n"
      "  pbf-sim --bench                                (the reference benchmark)");
  CLI11_PARSE(app, argc, argv);
  if (version) return print_version();

  try {
    const bool builtin = o.scene.empty();
    Scene scene = builtin ? pbf_sim::builtin_dam_break(o.spacing) : pbf_sim::load_scene(o.scene);
    if (!builtin && app.count("--spacing")) pbf_sim::set_spacing(scene, o.spacing);
    if (app.count("--backend")) scene.backend = parse_backend(o.backend);
    if (app.count("--method")) scene.method = o.method == "projective" ? PBF_METHOD_PROJECTIVE : PBF_METHOD_PBF;
    if (app.count("--frames")) scene.time.frames = o.frames;
    if (app.count("--fps")) scene.time.fps = o.fps;
    if (app.count("--substeps")) scene.time.substeps = o.substeps;
    if (app.count("--max-neighbors")) {
      if (o.max_neighbors > 0 && o.max_neighbors < 8)
        throw std::runtime_error("--max-neighbors: expected 0 (automatic) or 8 to 1024, got " +
                                 std::to_string(o.max_neighbors));
      scene.max_neighbors = static_cast<uint32_t>(o.max_neighbors);
    }
    if (app.count("--iterations")) scene.params.iterations = static_cast<uint32_t>(o.iterations);
    if (app.count("--density-tolerance")) scene.params.density_tolerance = o.density_tolerance;
    if (app.count("--vorticity")) scene.params.vorticity_epsilon = o.vorticity;
    if (app.count("--xsph")) scene.params.xsph_viscosity = o.xsph;
    if (walls->count()) scene.boundary_particles = o.boundary_particles;
    if (app.count("--out")) scene.output.dir = o.out;
    if (ply->count()) scene.output.ply = o.ply;
    if (vtp->count()) scene.output.vtp = o.vtp;
    if (surface->count()) scene.output.surface = o.surface;
    if (vdb->count()) scene.output.vdb = o.vdb;
    if (png->count()) scene.output.png = o.png;
    if (app.count("--image-style"))
      scene.output.image_style = o.image_style == "particles" ? pbf_sim::OutputSpec::ImageStyle::Particles
                                                             : pbf_sim::OutputSpec::ImageStyle::Water;
    if (app.count("--surface-format"))
      scene.output.surface_format = o.surface_format == "obj"    ? pbf_sim::OutputSpec::SurfaceFormat::Obj
                                    : o.surface_format == "both" ? pbf_sim::OutputSpec::SurfaceFormat::Both
                                                                 : pbf_sim::OutputSpec::SurfaceFormat::Ply;
    if (app.count("--every")) scene.output.every = o.every;
    if (app.count("--stats")) scene.output.stats = o.stats;
    if (app.count("--forces")) scene.output.forces = o.forces;
    if (app.count("--bodies")) scene.output.bodies = o.bodies;
    if (o.no_output || o.bench) scene.output.ply = scene.output.vtp = scene.output.surface = scene.output.vdb = false;
    if (o.no_output || o.bench) scene.output.png = scene.output.contact_sheet = false;

    pbf_sim::RunOptions run;
    run.threads = o.threads;
    SceneRunner runner(std::move(scene), run);
    return o.bench ? run_bench(runner, o, builtin) : run_frames(runner, o, builtin);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "pbf-sim: %s\n", e.what());
    return 1;
  }
}
