// PBF at kernel radii other than the default two spacings (pbf_solver_desc's
// kernel_radius may be 1 to 5 spacings). A wider kernel couples each density
// constraint to more neighbours; their Jacobi sweeps then amplified short
// patterns and the water exploded in its first frame (the reference dam break
// at 3 spacings: 36 m/s, 6.4 m/s rms). lambda is now under-relaxed and the
// artificial pressure's push on a free surface held to the defaults' (core/lattice.h,
// docs/PHYSICS.md "Kernel radius"); bilateral constraints, which exploded at
// the default kernel too, take half of it.
#include <algorithm>
#include <cmath>

#include "physics/physics_scenes.h"

namespace pbf_test {
namespace {

class KernelRadius : public OnEveryBackend {};

// A block of water `block` [m] in the corner of a box `box` at spacing 0.025 m
// and kernel radius `ratio` spacings, with `p`; the worst speeds over `frames`
// frames of 1/60 s at 4 substeps.
Speeds worst_speeds(pbf_backend backend, float ratio, const float box[3], const float block[3],
                    const pbf_params& p, int frames) {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.backend = backend;
  desc.particle_spacing = 0.025f;
  desc.kernel_radius = ratio * desc.particle_spacing;
  for (int a = 0; a < 3; ++a) desc.domain_max[a] = box[a];
  SolverPtr s = make_solver(desc);
  const float lo[3] = {0.0f, 0.0f, 0.0f};
  EXPECT_EQ(pbf_solver_fill_box(s.get(), lo, block, nullptr, nullptr), PBF_OK) << pbf_last_error();
  EXPECT_EQ(pbf_solver_set_params(s.get(), &p), PBF_OK) << pbf_last_error();
  Speeds worst;
  for (int frame = 0; frame < frames; ++frame) {
    EXPECT_EQ(pbf_solver_step(s.get(), 1.0f / 60.0f, 4), PBF_OK) << pbf_last_error();
    const Speeds now = speeds_of(s.get());
    worst.fastest = std::max(worst.fastest, now.fastest);
    worst.rms = std::max(worst.rms, now.rms);
  }
  return worst;
}

TEST_P(KernelRadius, AStillBlockInACornerStaysStillWithAWideKernel) {
  // No gravity and no artificial pressure (which pushes a free surface out
  // by design): nothing should move but what the walls' model leaves (their
  // density at the second layer is 0.2 to 1 % over the lattice's with wider
  // kernels). Measured: worst rms speed 0.068, 0.061 and 0.042 m/s at 3, 4 and
  // 5 spacings (fastest 0.20, 0.16, 0.11 m/s); before, 0.20, 0.87 and 0.90 m/s
  // (fastest 2.6 and 2.5 m/s at 4 and 5).
  const float box[3] = {1.0f, 1.0f, 1.0f}, block[3] = {0.3f, 0.3f, 0.3f};
  pbf_params p = pbf_params_default();
  p.gravity[1] = 0.0f;
  p.artificial_pressure_k = 0.0f;
  for (float ratio : {3.0f, 4.0f, 5.0f}) {
    const Speeds w = worst_speeds(GetParam(), ratio, box, block, p, 20);
    EXPECT_LT(w.rms, 0.1f) << "kernel radius " << ratio << " spacings";
    EXPECT_LT(w.fastest, 0.5f) << "kernel radius " << ratio << " spacings";
  }
}

TEST_P(KernelRadius, ACollapsingColumnWithAWideKernelStaysBounded) {
  // Free fall from the column's top, sqrt(2 g H) = 3.4 m/s; DESIGN §7 allows
  // about twice that. The default kernel and 3 and 4 spacings, with every
  // default (artificial pressure, vorticity, XSPH). Measured: fastest 4.4,
  // 5.1 and 5.4 m/s; before, 15.6 m/s and 5.9 m/s rms.
  const float box[3] = {1.2f, 0.9f, 0.2f}, block[3] = {0.3f, 0.6f, 0.2f};
  const float free_fall = free_fall_speed(0.6f);
  for (float ratio : {2.0f, 3.0f, 4.0f}) {
    const Speeds w = worst_speeds(GetParam(), ratio, box, block, pbf_params_default(), 36);
    EXPECT_LT(w.fastest, 2.0f * free_fall) << "kernel radius " << ratio << " spacings";
    EXPECT_LT(w.rms, free_fall) << "kernel radius " << ratio << " spacings";
  }
}

TEST_P(KernelRadius, BilateralConstraintsKeepACollapsingColumnBounded) {
  // unilateral = 0 corrects stretched water too: every particle acts, and at
  // the default kernel the sweeps amplified short patterns (the reference dam
  // break reached 100 m/s within three frames). Measured now: the free
  // surface, 30 to 50 % under rest density, snaps inward in the first two
  // frames (fastest 7.1 m/s, rms 0.95 m/s), then the column collapses as with
  // unilateral constraints (fastest 2.4 to 4.2 m/s); before, 37 m/s and
  // 10.9 m/s rms.
  const float box[3] = {1.2f, 0.9f, 0.2f}, block[3] = {0.3f, 0.6f, 0.2f};
  const float free_fall = free_fall_speed(0.6f);
  pbf_params p = pbf_params_default();
  p.unilateral = 0;
  const Speeds w = worst_speeds(GetParam(), 2.0f, box, block, p, 36);
  EXPECT_LT(w.fastest, 3.0f * free_fall);
  EXPECT_LT(w.rms, free_fall);
}

TEST_P(KernelRadius, ArtificialPressureOfAnyShapeKeepsACollapsingColumnBounded) {
  // dq and n set s_corr's shape; k alone its strength. dq = 0.9 divided by a
  // W(dq) 60 times smaller than the default's (10^7 times the push at n = 4):
  // the dam break ran at 100 m/s. Measured now: the column at dq = 0.9 and at
  // n = 1 as with the defaults' shape.
  const float box[3] = {1.2f, 0.9f, 0.2f}, block[3] = {0.3f, 0.6f, 0.2f};
  const float free_fall = free_fall_speed(0.6f);
  const float shapes[2][2] = {{0.9f, 4.0f}, {0.2f, 1.0f}};
  for (const auto& shape : shapes) {
    pbf_params p = pbf_params_default();
    p.artificial_pressure_dq = shape[0];
    p.artificial_pressure_n = shape[1];
    const Speeds w = worst_speeds(GetParam(), 2.0f, box, block, p, 36);
    EXPECT_LT(w.fastest, 2.0f * free_fall) << "dq " << shape[0] << " n " << shape[1];
    EXPECT_LT(w.rms, free_fall) << "dq " << shape[0] << " n " << shape[1];
  }
}

PBF_EVERY_BACKEND(KernelRadius);

}  // namespace
}  // namespace pbf_test
