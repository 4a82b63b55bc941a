// The CUDA backend against the CPU backend, through the C API: the same
// scene agrees step by step within float round-off at first and
// statistically later; particle bookkeeping in user order and checkpoints
// work on the GPU. Every test is skipped, with the reason, where no CUDA
// device is usable.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "physics/physics_scenes.h"

#ifdef PBF_TEST_CUDART
#include <cuda_runtime_api.h>  // to read back what the solver lends on the GPU
#endif

namespace pbf_test {
namespace {

class CudaBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    int available = 0;
    ASSERT_EQ(pbf_backend_available(PBF_BACKEND_CUDA, &available), PBF_OK);
    if (available) return;
    pbf_solver_desc d = pbf_solver_desc_default();
    d.backend = PBF_BACKEND_CUDA;
    pbf_solver* s = nullptr;
    EXPECT_EQ(pbf_solver_create(&d, &s), PBF_ERROR_BACKEND_UNAVAILABLE);
    GTEST_SKIP() << "no usable CUDA device: " << pbf_last_error();
  }
};

const float kBox[3] = {1.6f, 1.0f, 0.6f};
const float kBlock[3] = {0.5f, 0.6f, 0.6f};

SolverPtr dam_break(pbf_backend backend) { return make_dam_break(0.04f, kBox, kBlock, 0, backend); }

float max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  float d = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

struct Summary {
  double centre[3] = {0, 0, 0};
  double kinetic = 0.0;  // per unit mass: sum v^2 / 2n
};

Summary summary_of(pbf_solver* s) {
  const std::vector<float> x = positions_of(s), v = velocities_of(s);
  const size_t n = x.size() / 3;
  Summary out;
  for (size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      out.centre[a] += x[3 * i + a] / static_cast<double>(n);
      out.kinetic += 0.5 * double(v[3 * i + a]) * v[3 * i + a] / static_cast<double>(n);
    }
  return out;
}

TEST_F(CudaBackend, TheFirstStepsAgreeWithTheCpuWithinRoundOff) {
  SolverPtr cpu = dam_break(PBF_BACKEND_CPU), gpu = dam_break(PBF_BACKEND_CUDA);
  ASSERT_EQ(count_of(cpu.get()), count_of(gpu.get()));
  EXPECT_EQ(positions_of(cpu.get()), positions_of(gpu.get())) << "the same particles to start with";
  for (int step = 1; step <= 5; ++step) {
    PBF_ASSERT_OK(pbf_solver_step(cpu.get(), 1.0f / 240.0f, 1));
    PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 240.0f, 1));
    // Contracted multiply-adds on the GPU differ from the CPU in the last
    // bits; over a few steps that stays far below a micrometre.
    EXPECT_LT(max_difference(positions_of(cpu.get()), positions_of(gpu.get())), 1e-5f) << "step " << step;
    EXPECT_LT(max_difference(velocities_of(cpu.get()), velocities_of(gpu.get())), 1e-3f) << "step " << step;
  }
  const pbf_stats a = stats_of(cpu.get()), b = stats_of(gpu.get());
  EXPECT_EQ(a.particle_count, b.particle_count);
  EXPECT_NEAR(a.avg_neighbors, b.avg_neighbors, 0.01f);
  EXPECT_EQ(a.max_neighbors, b.max_neighbors);
  EXPECT_NEAR(a.avg_density_error, b.avg_density_error, 1e-4f);
}

// Lists too short for every neighbour keep the nearest on both backends
// (core/neighbor_scan.h): the same lists, so the first steps agree as they
// do with room for all.
TEST_F(CudaBackend, WithListsTooShortTheFirstStepsAgreeWithTheCpu) {
  SolverPtr cpu = make_dam_break(0.04f, kBox, kBlock, 0, PBF_BACKEND_CPU, 20);
  SolverPtr gpu = make_dam_break(0.04f, kBox, kBlock, 0, PBF_BACKEND_CUDA, 20);
  for (int step = 1; step <= 5; ++step) {
    PBF_ASSERT_OK(pbf_solver_step(cpu.get(), 1.0f / 240.0f, 1));
    PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 240.0f, 1));
    const pbf_stats a = stats_of(cpu.get()), b = stats_of(gpu.get());
    EXPECT_GT(a.neighbor_overflows, 1000u) << "step " << step << ": the lists must overflow";
    EXPECT_EQ(a.neighbor_overflows, b.neighbor_overflows) << "step " << step;
    EXPECT_NEAR(a.avg_neighbors, b.avg_neighbors, 0.01f) << "step " << step;
    EXPECT_LT(max_difference(positions_of(cpu.get()), positions_of(gpu.get())), 1e-5f) << "step " << step;
    EXPECT_LT(max_difference(velocities_of(cpu.get()), velocities_of(gpu.get())), 1e-3f) << "step " << step;
  }
}

// A column 60 particles tall stepped one 1/60 s frame: 4 iterations leave it
// compressed above the density tolerance, so more run, ended on the GPU by
// its gate (graph or stages) after as many as on the CPU.
TEST_F(CudaBackend, TheDensityToleranceRunsAsManyIterationsAsOnTheCpu) {
  const float box[3] = {0.4f, 0.8f, 0.04f}, column[3] = {0.1f, 0.6f, 0.04f};
  SolverPtr cpu = make_dam_break(0.01f, box, column, 0, PBF_BACKEND_CPU);
  SolverPtr gpu = make_dam_break(0.01f, box, column, 0, PBF_BACKEND_CUDA);
  for (int frame = 1; frame <= 3; ++frame) {
    PBF_ASSERT_OK(pbf_solver_step(cpu.get(), 1.0f / 60.0f, 1));
    PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 60.0f, 1));
    const pbf_stats a = stats_of(cpu.get()), b = stats_of(gpu.get());
    EXPECT_GT(a.density_iterations, a.substeps * pbf_params_default().iterations) << "frame " << frame;
    // The means are summed in another order on the GPU: one iteration more or fewer at the threshold.
    EXPECT_NEAR(double(a.density_iterations), double(b.density_iterations), double(a.substeps)) << "frame " << frame;
    EXPECT_LT(max_difference(positions_of(cpu.get()), positions_of(gpu.get())), 1e-4f) << "frame " << frame;
  }
}

// Projective Fluids on both backends: the same local/global iterations and
// the same closed-form global steps, so the first steps agree within
// round-off too.
TEST_F(CudaBackend, ProjectiveFluidsAgreesWithTheCpuOverTheFirstSteps) {
  auto make = [](pbf_backend backend) {
    pbf_solver_desc desc = pbf_solver_desc_default();
    desc.backend = backend;
    desc.method = PBF_METHOD_PROJECTIVE;
    desc.particle_spacing = 0.04f;
    for (int a = 0; a < 3; ++a) desc.domain_max[a] = kBox[a];
    desc.max_particles = 20000;
    SolverPtr s = make_solver(desc);
    const float lo[3] = {0.0f, 0.0f, 0.0f};
    EXPECT_EQ(pbf_solver_fill_box(s.get(), lo, kBlock, nullptr, nullptr), PBF_OK) << pbf_last_error();
    pbf_params p = pbf_params_default();
    p.adaptive_dt = 0;
    p.projective_iterations = 10;
    EXPECT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK) << pbf_last_error();
    return s;
  };
  SolverPtr cpu = make(PBF_BACKEND_CPU), gpu = make(PBF_BACKEND_CUDA);
  for (int step = 1; step <= 5; ++step) {
    PBF_ASSERT_OK(pbf_solver_step(cpu.get(), 1.0f / 240.0f, 1));
    PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 240.0f, 1));
    EXPECT_LT(max_difference(positions_of(cpu.get()), positions_of(gpu.get())), 1e-4f) << "step " << step;
  }
  const pbf_stats a = stats_of(cpu.get()), b = stats_of(gpu.get());
  EXPECT_EQ(a.local_global_iterations, b.local_global_iterations);
  EXPECT_NEAR(a.avg_density_error, b.avg_density_error, 1e-3f);
}

TEST_F(CudaBackend, AfterTwoSecondsTheFlowAgreesStatistically) {
  SolverPtr cpu = dam_break(PBF_BACKEND_CPU), gpu = dam_break(PBF_BACKEND_CUDA);
  for (int frame = 0; frame < 120; ++frame) {
    PBF_ASSERT_OK(pbf_solver_step(cpu.get(), 1.0f / 60.0f, 4));
    PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 60.0f, 4));
  }
  const Summary a = summary_of(cpu.get()), b = summary_of(gpu.get());
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(a.centre[k], b.centre[k], 0.03) << "centre of mass, axis " << k;
  EXPECT_NEAR(a.kinetic, b.kinetic, 0.15 * std::max(a.kinetic, 0.05)) << "kinetic energy per kg";
  const pbf_stats sa = stats_of(cpu.get()), sb = stats_of(gpu.get());
  EXPECT_LT(sb.avg_density_error, 0.01f);
  EXPECT_NEAR(sa.avg_density_error, sb.avg_density_error, std::max(0.5f * sa.avg_density_error, 0.002f));
}

TEST_F(CudaBackend, WithBoundaryParticlesTheFirstStepsAgreeWithTheCpu) {
  // The domain walls' samples and a patch of the user's own: the GPU sorts
  // them into the CPU's order, so pseudo-masses and densities agree to round-off.
  SolverPtr cpu = dam_break(PBF_BACKEND_CPU), gpu = dam_break(PBF_BACKEND_CUDA);
  std::vector<float> patch;
  for (int i = 0; i < 10; ++i)
    for (int k = 0; k < 10; ++k) {
      patch.push_back(0.8f + 0.04f * float(i));
      patch.push_back(0.02f);
      patch.push_back(0.1f + 0.04f * float(k));
    }
  for (pbf_solver* s : {cpu.get(), gpu.get()}) {
    PBF_ASSERT_OK(pbf_solver_add_domain_boundary_particles(s, nullptr));
    PBF_ASSERT_OK(pbf_solver_add_boundary_particles(s, patch.data(), patch.size() / 3));
  }
  for (int step = 1; step <= 5; ++step) {
    PBF_ASSERT_OK(pbf_solver_step(cpu.get(), 1.0f / 240.0f, 1));
    PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 240.0f, 1));
    EXPECT_LT(max_difference(positions_of(cpu.get()), positions_of(gpu.get())), 1e-5f) << "step " << step;
  }
  const size_t n = count_of(cpu.get());
  std::vector<float> rc(n), rg(n);
  PBF_ASSERT_OK(pbf_solver_get_densities(cpu.get(), rc.data(), n));
  PBF_ASSERT_OK(pbf_solver_get_densities(gpu.get(), rg.data(), n));
  EXPECT_LT(max_difference(rc, rg), 0.05f) << "kg/m^3";
  // Clearing them on the GPU leaves a plain dam break that still steps.
  PBF_ASSERT_OK(pbf_solver_clear_boundary_particles(gpu.get()));
  PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 240.0f, 1));
}

TEST_F(CudaBackend, ForcesOnAMovingObstacleWithSamplesAgreeWithTheCpu) {
  // A box driven into the dam break with its own samples: the GPU's atomic
  // sums of collisions and sample pushes give the CPU's force and torque.
  SolverPtr cpu = dam_break(PBF_BACKEND_CPU), gpu = dam_break(PBF_BACKEND_CUDA);
  pbf_sdf* box = nullptr;
  const float half[3] = {0.1f, 0.1f, 0.1f};
  PBF_ASSERT_OK(pbf_sdf_box(half, 0.02f, &box));
  float at[3] = {0.62f, 0.15f, 0.3f};  // its face 2 cm from the water
  for (pbf_solver* s : {cpu.get(), gpu.get()}) {
    PBF_ASSERT_OK(pbf_solver_add_obstacle(s, box, nullptr, at, nullptr));
    PBF_ASSERT_OK(pbf_solver_add_obstacle_boundary_particles(s, 0, nullptr));
  }
  pbf_sdf_destroy(box);
  for (int step = 1; step <= 5; ++step) {
    at[0] -= 0.01f;  // into the water at 2.4 m/s
    float fc[3], tc[3], fg[3], tg[3];
    for (pbf_solver* s : {cpu.get(), gpu.get()}) {
      PBF_ASSERT_OK(pbf_solver_set_obstacle_pose(s, 0, nullptr, at));
      PBF_ASSERT_OK(pbf_solver_step(s, 1.0f / 240.0f, 1));
    }
    PBF_ASSERT_OK(pbf_solver_get_obstacle_force(cpu.get(), 0, fc, tc));
    PBF_ASSERT_OK(pbf_solver_get_obstacle_force(gpu.get(), 0, fg, tg));
    if (step == 5) EXPECT_GT(fc[0], 0.1f) << "the water pushes back on the box [N]";
    const float scale = std::max(1.0f, std::sqrt(fc[0] * fc[0] + fc[1] * fc[1] + fc[2] * fc[2]));
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(fg[a], fc[a], 1e-3f * scale) << "force, step " << step << " axis " << a;
      EXPECT_NEAR(tg[a], tc[a], 1e-3f * scale) << "torque, step " << step << " axis " << a;
    }
  }
}

TEST_F(CudaBackend, ParticlesKeepTheUserOrderThroughStepsRemovalAndWrites) {
  SolverPtr gpu = dam_break(PBF_BACKEND_CUDA);
  for (int k = 0; k < 10; ++k) PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 60.0f, 2));
  const std::vector<float> before = positions_of(gpu.get());
  const uint32_t remove[] = {0, 5, 6, 200};
  PBF_ASSERT_OK(pbf_solver_remove_particles(gpu.get(), remove, 4));
  const std::vector<float> after = positions_of(gpu.get());
  ASSERT_EQ(after.size(), before.size() - 12);
  // Particle 1 of the user is now 0; user particle 7 is now 4.
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(after[a], before[3 + a]);
    EXPECT_EQ(after[12 + a], before[21 + a]);
  }
  // Writes land on the right particles whatever the order inside.
  std::vector<float> x = after;
  for (size_t i = 0; i < x.size(); i += 3) x[i] = 0.1f + 1e-5f * static_cast<float>(i / 3 % 1000);
  PBF_ASSERT_OK(pbf_solver_set_positions(gpu.get(), x.data(), x.size()));
  EXPECT_EQ(positions_of(gpu.get()), x);
  const float more[6] = {1.0f, 0.5f, 0.3f, 1.1f, 0.5f, 0.3f};
  PBF_ASSERT_OK(pbf_solver_add_particles(gpu.get(), more, nullptr, 2));
  const std::vector<float> last = positions_of(gpu.get());
  for (int k = 0; k < 6; ++k) EXPECT_EQ(last[x.size() + k], more[k]);
}

TEST_F(CudaBackend, ACheckpointResumesBitIdenticallyOnTheGpu) {
  // The GPU backend is deterministic too: a sorted order, integer atomics only.
  const std::string path = ::testing::TempDir() + "pbf_cuda_checkpoint.pbfc";
  SolverPtr a = dam_break(PBF_BACKEND_CUDA);
  for (int k = 0; k < 10; ++k) PBF_ASSERT_OK(pbf_solver_step(a.get(), 1.0f / 60.0f, 2));
  PBF_ASSERT_OK(pbf_solver_save_checkpoint(a.get(), path.c_str()));
  SolverPtr b = dam_break(PBF_BACKEND_CUDA);
  PBF_ASSERT_OK(pbf_solver_load_checkpoint(b.get(), path.c_str()));
  for (int k = 0; k < 10; ++k) {
    PBF_ASSERT_OK(pbf_solver_step(a.get(), 1.0f / 60.0f, 2));
    PBF_ASSERT_OK(pbf_solver_step(b.get(), 1.0f / 60.0f, 2));
  }
  EXPECT_EQ(positions_of(a.get()), positions_of(b.get()));
  EXPECT_EQ(velocities_of(a.get()), velocities_of(b.get()));
  std::remove(path.c_str());
}

TEST_F(CudaBackend, ACpuCheckpointRunsOnTheGpu) {
  const std::string path = ::testing::TempDir() + "pbf_cpu_to_cuda.pbfc";
  SolverPtr cpu = dam_break(PBF_BACKEND_CPU);
  for (int k = 0; k < 5; ++k) PBF_ASSERT_OK(pbf_solver_step(cpu.get(), 1.0f / 60.0f, 2));
  PBF_ASSERT_OK(pbf_solver_save_checkpoint(cpu.get(), path.c_str()));
  SolverPtr gpu = dam_break(PBF_BACKEND_CUDA);
  PBF_ASSERT_OK(pbf_solver_load_checkpoint(gpu.get(), path.c_str()));
  EXPECT_EQ(positions_of(cpu.get()), positions_of(gpu.get()));
  PBF_ASSERT_OK(pbf_solver_step(cpu.get(), 1.0f / 240.0f, 1));
  PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 240.0f, 1));
  EXPECT_LT(max_difference(positions_of(cpu.get()), positions_of(gpu.get())), 1e-5f);
  std::remove(path.c_str());
}

TEST_F(CudaBackend, MappedHostMemoryEqualsTheCopyingGetter) {
  SolverPtr gpu = dam_break(PBF_BACKEND_CUDA);
  for (int k = 0; k < 5; ++k) PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 60.0f, 2));
  const std::vector<float> x = positions_of(gpu.get());
  const float* lent = nullptr;
  size_t count = 0;
  PBF_ASSERT_OK(pbf_solver_map(gpu.get(), PBF_FIELD_POSITIONS, PBF_MEMORY_HOST, &lent, &count));
  ASSERT_EQ(3 * count, x.size());
  EXPECT_EQ(std::vector<float>(lent, lent + x.size()), x);
  const float* on_gpu = nullptr;
  PBF_ASSERT_OK(pbf_solver_map(gpu.get(), PBF_FIELD_VELOCITIES, PBF_MEMORY_DEVICE, &on_gpu, nullptr));
  EXPECT_NE(on_gpu, nullptr);
  EXPECT_EQ(pbf_solver_step(gpu.get(), 1.0f / 60.0f, 1), PBF_ERROR_BUSY);
  PBF_ASSERT_OK(pbf_solver_unmap(gpu.get(), PBF_FIELD_POSITIONS));
  PBF_ASSERT_OK(pbf_solver_unmap(gpu.get(), PBF_FIELD_VELOCITIES));
  PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 60.0f, 1));
}

// The dam break moved 1024 m along every axis: the solver keeps it near its own origin
// (core/local_frame.h) and lends its positions in the world's coordinates, on the host and
// on the GPU, as the copying getter gives them.
TEST_F(CudaBackend, AFarScenesMappedPositionsAreTheWorldsOnTheHostAndTheGpu) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CUDA;
  d.particle_spacing = 0.04f;
  d.max_particles = 20000;
  for (int a = 0; a < 3; ++a) {
    d.domain_min[a] = 1024.0f;
    d.domain_max[a] = 1024.0f + kBox[a];
  }
  SolverPtr gpu = make_solver(d);
  const float lo[3] = {1024.0f, 1024.0f, 1024.0f};
  const float hi[3] = {1024.0f + kBlock[0], 1024.0f + kBlock[1], 1024.0f + kBlock[2]};
  PBF_ASSERT_OK(pbf_solver_fill_box(gpu.get(), lo, hi, nullptr, nullptr));
  for (int k = 0; k < 5; ++k) PBF_ASSERT_OK(pbf_solver_step(gpu.get(), 1.0f / 60.0f, 2));
  const std::vector<float> x = positions_of(gpu.get());
  ASSERT_GT(x.size(), 0u);
  EXPECT_GT(*std::min_element(x.begin(), x.end()), 1023.9f) << "the world's coordinates";
  const float* lent = nullptr;
  size_t count = 0;
  PBF_ASSERT_OK(pbf_solver_map(gpu.get(), PBF_FIELD_POSITIONS, PBF_MEMORY_HOST, &lent, &count));
  ASSERT_EQ(3 * count, x.size());
  EXPECT_EQ(std::vector<float>(lent, lent + x.size()), x);
  PBF_ASSERT_OK(pbf_solver_unmap(gpu.get(), PBF_FIELD_POSITIONS));
#ifdef PBF_TEST_CUDART
  const float* on_gpu = nullptr;
  PBF_ASSERT_OK(pbf_solver_map(gpu.get(), PBF_FIELD_POSITIONS, PBF_MEMORY_DEVICE, &on_gpu, nullptr));
  std::vector<float> copied(x.size());
  ASSERT_EQ(cudaMemcpy(copied.data(), on_gpu, x.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(copied, x);
  PBF_ASSERT_OK(pbf_solver_unmap(gpu.get(), PBF_FIELD_POSITIONS));
#endif
}

TEST_F(CudaBackend, AnEmptySolverStepsAndReportsZeroes) {
  pbf_solver_desc d = pbf_solver_desc_default();
  d.backend = PBF_BACKEND_CUDA;
  SolverPtr s = make_solver(d);
  PBF_ASSERT_OK(pbf_solver_step(s.get(), 1.0f / 60.0f, 2));
  const pbf_stats st = stats_of(s.get());
  EXPECT_EQ(st.particle_count, 0u);
  EXPECT_EQ(st.avg_density_error, 0.0f);
}

// Steps run as one CUDA graph unless PBF_CUDA_GRAPHS=0 (read when a solver is
// created): the same kernels in the same order, so the same bits.
SolverPtr with_graphs(bool on, SolverPtr (*make)()) {
  if (!on) setenv("PBF_CUDA_GRAPHS", "0", 1);
  SolverPtr s = make();
  unsetenv("PBF_CUDA_GRAPHS");
  return s;
}

SolverPtr gpu_dam_break() { return dam_break(PBF_BACKEND_CUDA); }

// A dam break with a ball that crosses the flow, one pose per substep, and its boundary samples.
SolverPtr gpu_dam_break_with_a_moving_ball() {
  SolverPtr s = dam_break(PBF_BACKEND_CUDA);
  pbf_sdf* ball = nullptr;
  if (pbf_sdf_sphere(0.12f, 0.02f, &ball) != PBF_OK) return nullptr;
  const float at[3] = {0.9f, 0.15f, 0.3f};
  uint32_t index = 0;
  const pbf_status added = pbf_solver_add_obstacle(s.get(), ball, nullptr, at, &index);
  pbf_sdf_destroy(ball);
  if (added != PBF_OK || pbf_solver_add_obstacle_boundary_particles(s.get(), index, nullptr) != PBF_OK) return nullptr;
  return s;
}

void move_ball(pbf_solver* s, int step) {
  const float to[3] = {0.9f - 0.02f * float(step), 0.15f + 0.01f * float(step % 5), 0.3f};
  ASSERT_EQ(pbf_solver_set_obstacle_pose(s, 0, nullptr, to), PBF_OK) << pbf_last_error();
}

TEST_F(CudaBackend, AStepRunAsAGraphEqualsTheStagesOneByOne) {
  SolverPtr graph = with_graphs(true, gpu_dam_break), stages = with_graphs(false, gpu_dam_break);
  for (int step = 1; step <= 20; ++step) {
    // 2 substeps, then 3 (a new graph), then 2 again (updated in place).
    const uint32_t substeps = step > 8 && step <= 12 ? 3u : 2u;
    PBF_ASSERT_OK(pbf_solver_step(graph.get(), 1.0f / 60.0f, substeps));
    PBF_ASSERT_OK(pbf_solver_step(stages.get(), 1.0f / 60.0f, substeps));
    ASSERT_EQ(positions_of(graph.get()), positions_of(stages.get())) << "step " << step;
  }
  EXPECT_EQ(velocities_of(graph.get()), velocities_of(stages.get()));
  const pbf_stats a = stats_of(graph.get()), b = stats_of(stages.get());
  EXPECT_EQ(a.avg_density_error, b.avg_density_error);
  EXPECT_EQ(a.density_iterations, b.density_iterations) << "the GPU's gate ends the iterations as the stages do";
  EXPECT_EQ(a.neighbor_overflows, b.neighbor_overflows);
  EXPECT_EQ(a.max_neighbors, b.max_neighbors);
  // The graph's phases are timed on the GPU; they lie within the whole step.
  const double phases[] = {a.time_predict_ms,     a.time_grid_ms,     a.time_neighbors_ms,
                           a.time_constraints_ms, a.time_velocity_ms, a.time_vorticity_viscosity_ms};
  double sum = 0.0;
  for (double t : phases) {
    EXPECT_GT(t, 0.0);
    sum += t;
  }
  EXPECT_LE(sum, a.time_total_ms);
}

TEST_F(CudaBackend, AGraphStepMovesObstaclesAndTheirSamplesSubstepBySubstep) {
  SolverPtr graph = with_graphs(true, gpu_dam_break_with_a_moving_ball);
  SolverPtr stages = with_graphs(false, gpu_dam_break_with_a_moving_ball);
  ASSERT_TRUE(graph && stages) << pbf_last_error();
  for (int step = 1; step <= 10; ++step) {
    move_ball(graph.get(), step);
    move_ball(stages.get(), step);
    PBF_ASSERT_OK(pbf_solver_step(graph.get(), 1.0f / 60.0f, 3));
    PBF_ASSERT_OK(pbf_solver_step(stages.get(), 1.0f / 60.0f, 3));
    ASSERT_EQ(positions_of(graph.get()), positions_of(stages.get())) << "step " << step;
  }
}

TEST_F(CudaBackend, AGraphStepFollowsParticlesAddedAndRemoved) {
  SolverPtr graph = with_graphs(true, gpu_dam_break), stages = with_graphs(false, gpu_dam_break);
  const uint32_t remove[] = {1, 2, 3, 500};
  const float more[6] = {1.0f, 0.5f, 0.3f, 1.1f, 0.5f, 0.3f};
  for (int step = 1; step <= 9; ++step) {
    for (pbf_solver* s : {graph.get(), stages.get()}) {
      if (step == 4) PBF_ASSERT_OK(pbf_solver_remove_particles(s, remove, 4));
      if (step == 7) PBF_ASSERT_OK(pbf_solver_add_particles(s, more, nullptr, 2));
      PBF_ASSERT_OK(pbf_solver_step(s, 1.0f / 60.0f, 2));
    }
    ASSERT_EQ(positions_of(graph.get()), positions_of(stages.get())) << "step " << step;
  }
}

// A Projective Fluids dam break on the GPU: 10 local/global iterations at
// most, stopping once the mean compression is below 3 %, so that some
// substeps end their iterations on the device and others run all 10 (on the
// CPU the same scene stops at once in steps 1-3 and 13-14 and runs every
// iteration elsewhere; at the default 0.01 % it never stops early);
// adaptive_dt as given.
SolverPtr gpu_projective_dam_break(bool adaptive_dt) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = PBF_BACKEND_CUDA;
  desc.method = PBF_METHOD_PROJECTIVE;
  desc.particle_spacing = 0.04f;
  for (int a = 0; a < 3; ++a) desc.domain_max[a] = kBox[a];
  desc.max_particles = 20000;
  SolverPtr s = make_solver(desc);
  const float lo[3] = {0.0f, 0.0f, 0.0f};
  EXPECT_EQ(pbf_solver_fill_box(s.get(), lo, kBlock, nullptr, nullptr), PBF_OK) << pbf_last_error();
  pbf_params p = pbf_params_default();
  p.adaptive_dt = adaptive_dt ? 1 : 0;
  p.projective_iterations = 10;
  p.projective_tolerance = 0.03f;
  EXPECT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK) << pbf_last_error();
  return s;
}

SolverPtr gpu_projective_fixed() { return gpu_projective_dam_break(false); }
SolverPtr gpu_projective_adaptive() { return gpu_projective_dam_break(true); }

// Without adaptive_dt a Projective Fluids step is one graph of all its
// substeps: the early stop of the iterations is decided on the GPU and the
// iterations are counted there, so the graph gives the stages' bits and counts.
TEST_F(CudaBackend, AProjectiveStepRunAsAGraphEqualsTheStagesOneByOne) {
  SolverPtr graph = with_graphs(true, gpu_projective_fixed), stages = with_graphs(false, gpu_projective_fixed);
  uint32_t iterations = 0, stopped_early = 0;
  for (int step = 1; step <= 20; ++step) {
    // 2 substeps, then 3 (a new graph), then 2 again (updated in place).
    const uint32_t substeps = step > 8 && step <= 12 ? 3u : 2u;
    PBF_ASSERT_OK(pbf_solver_step(graph.get(), 1.0f / 60.0f, substeps));
    PBF_ASSERT_OK(pbf_solver_step(stages.get(), 1.0f / 60.0f, substeps));
    ASSERT_EQ(positions_of(graph.get()), positions_of(stages.get())) << "step " << step;
    const pbf_stats a = stats_of(graph.get()), b = stats_of(stages.get());
    ASSERT_EQ(a.local_global_iterations, b.local_global_iterations) << "step " << step;
    EXPECT_EQ(a.cg_iterations, b.cg_iterations) << "step " << step;
    EXPECT_EQ(a.substeps, substeps);
    iterations += a.local_global_iterations;
    if (a.local_global_iterations < 10u * substeps) ++stopped_early;
  }
  EXPECT_GT(iterations, 0u);
  EXPECT_GT(stopped_early, 0u) << "some substeps end their iterations early";
  EXPECT_LT(stopped_early, 20u) << "some steps run their iterations to the end";
  EXPECT_EQ(velocities_of(graph.get()), velocities_of(stages.get()));
  const pbf_stats a = stats_of(graph.get()), b = stats_of(stages.get());
  EXPECT_EQ(a.avg_density_error, b.avg_density_error);
  EXPECT_EQ(a.cg_residual, 0.0f);
  // The graph's phases are timed on the GPU; they lie within the whole step.
  const double phases[] = {a.time_predict_ms,     a.time_grid_ms,     a.time_neighbors_ms,
                           a.time_constraints_ms, a.time_velocity_ms, a.time_vorticity_viscosity_ms};
  double sum = 0.0;
  for (double t : phases) {
    EXPECT_GT(t, 0.0);
    sum += t;
  }
  EXPECT_LE(sum, a.time_total_ms);
}

// With adaptive_dt each of a step's pieces is a graph of its own (the next
// piece's size waits for the speeds this one leaves): the same pieces, the
// same bits as stage by stage.
TEST_F(CudaBackend, AnAdaptiveProjectiveStepRunsPieceByPieceAsTheStagesDo) {
  SolverPtr graph = with_graphs(true, gpu_projective_adaptive), stages = with_graphs(false, gpu_projective_adaptive);
  uint32_t pieces = 0;
  for (int step = 1; step <= 12; ++step) {
    PBF_ASSERT_OK(pbf_solver_step(graph.get(), 1.0f / 60.0f, 1));
    PBF_ASSERT_OK(pbf_solver_step(stages.get(), 1.0f / 60.0f, 1));
    ASSERT_EQ(positions_of(graph.get()), positions_of(stages.get())) << "step " << step;
    const pbf_stats a = stats_of(graph.get()), b = stats_of(stages.get());
    ASSERT_EQ(a.substeps, b.substeps) << "step " << step;
    ASSERT_EQ(a.local_global_iterations, b.local_global_iterations) << "step " << step;
    pieces += a.substeps;
  }
  EXPECT_GT(pieces, 12u) << "the CFL condition splits some steps";
  EXPECT_EQ(velocities_of(graph.get()), velocities_of(stages.get()));
}

}  // namespace
}  // namespace pbf_test
