// pbf-sim - runs a dam break with the pbf C API and writes one PLY file per
// frame; with --bench, times the reference scene of docs/PERFORMANCE.md.
#include <pbf/pbf.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string backend = "auto";
  int frames = 120;
  float fps = 60.0f;
  int substeps = 4;
  int iterations = 4;
  float spacing = 0.025f;
  int threads = 0;
  std::string out = "pbf-out";
  bool no_output = false;
  bool bench = false;
  float bench_dt = 0.001f;
  float bench_seconds = 1.0f;
  float vorticity = -1.0f;  // < 0: library default
  float xsph = -1.0f;
  std::string checkpoint;  // save the state here after the last frame
  std::string resume;      // load the state from here before the first frame
  int start_frame = 0;     // number of the frame a resumed run starts from
};

// Exits with a message when a pbf call fails.
void check(pbf_status status, const char* what) {
  if (status == PBF_OK) return;
  std::fprintf(stderr, "pbf-sim: %s failed: %s (%s)\n", what, pbf_last_error(), pbf_status_string(status));
  std::exit(1);
}

pbf_backend parse_backend(const std::string& name) {
  if (name == "cpu") return PBF_BACKEND_CPU;
  if (name == "cuda") return PBF_BACKEND_CUDA;
  return PBF_BACKEND_AUTO;
}

// The dam break of DESIGN.md section 7: a block of water of 39 particles per
// side at the given spacing (1 m at 0.025 m) in a 4 x 3 x 1.5 m box.
pbf_solver* make_dam_break(const Options& o, size_t* particles) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = parse_backend(o.backend);
  desc.particle_spacing = o.spacing;
  desc.domain_max[0] = 4.0f;
  desc.domain_max[1] = 3.0f;
  desc.domain_max[2] = 1.5f;
  desc.thread_count = o.threads;
  desc.max_particles = 4000000u;
  pbf_solver* solver = nullptr;
  check(pbf_solver_create(&desc, &solver), "pbf_solver_create");

  pbf_params params = pbf_params_default();
  params.iterations = static_cast<uint32_t>(o.iterations);
  if (o.vorticity >= 0.0f) params.vorticity_epsilon = o.vorticity;
  if (o.xsph >= 0.0f) params.xsph_viscosity = o.xsph;
  check(pbf_solver_set_params(solver, &params), "pbf_solver_set_params");

  // Lattice centres at (i + 1/2) s from the corner: 39 s wide holds 39 per axis.
  const float side = 39.0f * o.spacing;
  const float lo[3] = {0.0f, 0.0f, 0.0f};
  const float hi[3] = {side, side, side};
  check(pbf_solver_fill_box(solver, lo, hi, nullptr, particles), "pbf_solver_fill_box");
  return solver;
}

void print_progress(int frame, int frames, double elapsed_s) {
  const int width = 30;
  const int filled = frames > 0 ? frame * width / frames : width;
  const double eta = frame > 0 ? elapsed_s / frame * (frames - frame) : 0.0;
  std::fprintf(stderr, "\r[%.*s%*s] %d/%d  elapsed %.1f s  eta %.1f s ", filled,
               "##############################", width - filled, "", frame, frames, elapsed_s, eta);
  if (frame == frames) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

int run_frames(const Options& o) {
  size_t n = 0;
  pbf_solver* solver = make_dam_break(o, &n);
  pbf_solver_desc desc = pbf_solver_desc_default();
  check(pbf_solver_get_desc(solver, &desc), "pbf_solver_get_desc");
  std::printf("pbf %s  dam break: %zu particles, backend %s, %d threads, %d frames of %d substeps x %d iterations\n",
              pbf_version_string(), n, pbf_backend_name(desc.backend), desc.thread_count, o.frames, o.substeps,
              o.iterations);
  if (!o.resume.empty()) {
    check(pbf_solver_load_checkpoint(solver, o.resume.c_str()), "pbf_solver_load_checkpoint");
    check(pbf_solver_particle_count(solver, &n), "pbf_solver_particle_count");
    std::printf("resumed from '%s' at frame %d: %zu particles\n", o.resume.c_str(), o.start_frame, n);
  }
  if (!o.no_output) {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) {
      std::fprintf(stderr, "pbf-sim: cannot create '%s': %s\n", o.out.c_str(), ec.message().c_str());
      return 1;
    }
    if (o.resume.empty())
      check(pbf_solver_write_ply(solver, (o.out + "/frame_0000.ply").c_str()), "pbf_solver_write_ply");
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  double step_ms_sum = 0.0;
  pbf_stats stats = pbf_stats_default();
  for (int frame = 1; frame <= o.frames; ++frame) {
    check(pbf_solver_step(solver, 1.0f / o.fps, static_cast<uint32_t>(o.substeps)), "pbf_solver_step");
    check(pbf_solver_get_stats(solver, &stats), "pbf_solver_get_stats");
    step_ms_sum += stats.time_total_ms;
    if (!o.no_output) {
      char name[64];
      std::snprintf(name, sizeof name, "/frame_%04d.ply", o.start_frame + frame);
      check(pbf_solver_write_ply(solver, (o.out + name).c_str()), "pbf_solver_write_ply");
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (tty) print_progress(frame, o.frames, elapsed);
    if (!tty || frame == o.frames || frame % 10 == 0) {
      std::printf("frame %4d  t=%6.3f s  %8.2f ms/frame  density error avg %.4f%% max %.3f%%  max speed %.2f m/s\n",
                  o.start_frame + frame, (o.start_frame + frame) / o.fps, stats.time_total_ms, 100.0 * stats.avg_density_error,
                  100.0 * stats.max_density_error, stats.max_speed);
      std::fflush(stdout);
    }
  }
  std::printf("done: %zu particles, %d frames, %.2f ms per frame (%.2f ms per substep)%s%s\n", n, o.frames,
              step_ms_sum / o.frames, step_ms_sum / o.frames / o.substeps, o.no_output ? "" : ", PLY frames in ",
              o.no_output ? "" : o.out.c_str());
  if (!o.checkpoint.empty()) {
    check(pbf_solver_save_checkpoint(solver, o.checkpoint.c_str()), "pbf_solver_save_checkpoint");
    std::printf("state saved to '%s'; go on with --resume %s --start-frame %d\n", o.checkpoint.c_str(),
                o.checkpoint.c_str(), o.start_frame + o.frames);
  }
  check(pbf_solver_destroy(solver), "pbf_solver_destroy");
  return 0;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run_bench(const Options& o) {
  size_t n = 0;
  pbf_solver* solver = make_dam_break(o, &n);
  pbf_solver_desc desc = pbf_solver_desc_default();
  check(pbf_solver_get_desc(solver, &desc), "pbf_solver_get_desc");
  const int steps = static_cast<int>(o.bench_seconds / o.bench_dt + 0.5f);
  std::printf("pbf %s  reference dam break: %zu particles, backend %s, %d threads, dt %.4f s, %d iterations, %d steps\n",
              pbf_version_string(), n, pbf_backend_name(desc.backend), desc.thread_count, o.bench_dt, o.iterations,
              steps);
  std::map<std::string, std::vector<double>> t;
  double err_sum = 0.0, err_max = 0.0;
  pbf_stats s = pbf_stats_default();
  for (int k = 0; k < steps; ++k) {
    check(pbf_solver_step(solver, o.bench_dt, 1), "pbf_solver_step");
    check(pbf_solver_get_stats(solver, &s), "pbf_solver_get_stats");
    t["total"].push_back(s.time_total_ms);
    t["predict"].push_back(s.time_predict_ms);
    t["grid"].push_back(s.time_grid_ms);
    t["neighbors"].push_back(s.time_neighbors_ms);
    t["constraints"].push_back(s.time_constraints_ms);
    t["velocity"].push_back(s.time_velocity_ms);
    t["vorticity+xsph"].push_back(s.time_vorticity_viscosity_ms);
    err_sum += s.avg_density_error;
    err_max = std::max(err_max, static_cast<double>(s.max_density_error));
    if (isatty(STDERR_FILENO) && (k + 1) % 50 == 0) print_progress(k + 1, steps, 0.001 * std::accumulate(t["total"].begin(), t["total"].end(), 0.0));
  }
  std::printf("median ms per step: %.3f\n", median(t["total"]));
  for (const char* phase : {"predict", "grid", "neighbors", "constraints", "velocity", "vorticity+xsph"})
    std::printf("  %-16s %8.3f ms\n", phase, median(t[phase]));
  std::printf("density error: average over steps %.4f%%, maximum %.3f%%\n", 100.0 * err_sum / std::max(steps, 1),
              100.0 * err_max);
  std::printf("particle-iterations per second: %.3g\n",
              static_cast<double>(n) * o.iterations / (median(t["total"]) * 1e-3));
  check(pbf_solver_destroy(solver), "pbf_solver_destroy");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"pbf-sim: a dam break with Position Based Fluids, written as PLY frames"};
  app.add_option("--backend", o.backend, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  app.add_option("--frames", o.frames, "frames to simulate")->check(CLI::Range(1, 1000000));
  app.add_option("--fps", o.fps, "frames per simulated second")->check(CLI::Range(1.0f, 10000.0f));
  app.add_option("--substeps", o.substeps, "substeps per frame")->check(CLI::Range(1, 1000));
  app.add_option("--iterations", o.iterations, "density iterations per substep")->check(CLI::Range(1, 100));
  app.add_option("--spacing", o.spacing, "particle spacing [m]; 0.025 gives 59,319 particles")
      ->check(CLI::Range(0.005f, 0.5f));
  app.add_option("--threads", o.threads, "CPU threads, 0 = all")->check(CLI::Range(0, 1024));
  app.add_option("--vorticity", o.vorticity, "vorticity confinement epsilon [m/s], 0 = off")
      ->check(CLI::Range(0.0f, 10.0f));
  app.add_option("--xsph", o.xsph, "XSPH viscosity c, 0 = off")->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--out", o.out, "folder for frame_NNNN.ply");
  app.add_flag("--no-output", o.no_output, "write no files");
  app.add_option("--checkpoint", o.checkpoint, "save the complete state to this file after the last frame");
  app.add_option("--resume", o.resume, "start from a state saved with --checkpoint (same --spacing)");
  app.add_option("--start-frame", o.start_frame, "number of the first frame of a resumed run")
      ->check(CLI::Range(0, 100000000));
  app.add_flag("--bench", o.bench, "time the reference dam break (no output files)");
  app.add_option("--bench-dt", o.bench_dt, "time step of --bench [s]")->check(CLI::Range(1e-5f, 0.1f));
  app.add_option("--bench-seconds", o.bench_seconds, "simulated time of --bench [s]")
      ->check(CLI::Range(0.001f, 100.0f));
  CLI11_PARSE(app, argc, argv);
  return o.bench ? run_bench(o) : run_frames(o);
}
