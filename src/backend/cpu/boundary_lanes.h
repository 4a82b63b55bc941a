// boundary_lanes.h - the density and density gradient that boundary samples
// add at a fluid particle (boundary_density_gradient_with() of
// boundary/boundary_equations.h), summed over the samples eight at a time
// with the same sample term (add_boundary_sample()): from the grid, or from a
// copy of the samples near a particle that several sums at nearby points
// reuse. Included by a method's lane files after backend/cpu/lanes.h, once
// per instruction set.
#include <cstdint>

#include "boundary/boundary_equations.h"

namespace pbf {
namespace PBF_LANE_TARGET {

// add_boundary_sample() of kLanes samples to the sums, each group of eight
// after the one before it (fold(), backend/cpu/lanes.h).
template <class Kernel>
inline void add_boundary_samples(const Kernel& k, const Vec3Lanes& r, Lanes r2, Lanes psi, Lanes& rho_sum,
                                 Vec3Lanes& grad_sum) {
  if constexpr (kParticles == 1) {
    add_boundary_sample(k, r, r2, psi, rho_sum, grad_sum);
  } else {
    Lanes rho(0.0f);
    Vec3Lanes grad{0.0f, 0.0f, 0.0f};
    add_boundary_sample(k, r, r2, psi, rho, grad);
    rho_sum = fold(rho_sum, rho);
    grad_sum = fold(grad_sum, grad);
  }
}

// The samples of the cell block around p are taken in the grid's order, row
// after row, eight to a group (kLanes to a vector) whatever row they come from; the last group's
// lanes past the samples hold the first sample at the kernel radius (zero).
// Same bits on every instruction set (lanes.h).
template <class Kernel>
inline void boundary_density_gradient_lanes(const Kernel& k, const BoundarySamples& b, Vec3 p, float& rho,
                                            Vec3& grad) {
  rho = 0.0f;
  grad = Vec3{0.0f, 0.0f, 0.0f};
  if (b.count == 0) return;
  Lanes rho_sum(0.0f);
  Vec3Lanes grad_sum{0.0f, 0.0f, 0.0f};
  uint32_t group[kLanes];
  uint32_t filled = 0;
  const auto add_group = [&](LaneMask valid) {
    const Vec3Lanes r = p - gather(b.x, group);
    const Lanes r2 = select(valid, length_squared(r), Lanes(k.h2()));
    add_boundary_samples(k, r, r2, gather(b.psi, group), rho_sum, grad_sum);
  };
  const LaneMask all = LaneMask::below(0, kLanes);
  for_each_sample_row(b, p, k.radius(), [&](uint32_t first, uint32_t last) {
    for (uint32_t s = first; s < last; ++s) {
      group[filled++] = s;
      if (filled == kLanes) {
        add_group(all);
        filled = 0;
      }
    }
  });
  if (filled > 0) {
    for (uint32_t l = filled; l < kLanes; ++l) group[l] = group[0];
    add_group(LaneMask::below(0, filled));
  }
  rho = lane_sum(rho_sum);
  grad = lane_sum(grad_sum);
}

// The boundary samples within `reach` of a point, copied out of the grid
// column by column, for sums at points close to it: a Newton step's
// projected positions of one particle. Holds at most kNearSamples; lanes past
// the last hold no sample.
constexpr uint32_t kNearSamples = 512;

struct NearSamples {
  alignas(32) float x[3][kNearSamples + kLanes];  // room for one sample past the last (copy_near_samples())
  alignas(32) float psi[kNearSamples + kLanes];
  uint32_t count;
  Vec3 centre;
  float slack;  // sums at points within this distance of the centre may use the copy
};

// Copies the samples within h + slack of `centre` in the grid's order; false
// where there are more than kNearSamples of them (then the sums scan the
// grid).
template <class Kernel>
inline bool copy_near_samples(const Kernel& k, const BoundarySamples& b, Vec3 centre, float slack, NearSamples& out) {
  out.count = 0;
  out.centre = centre;
  out.slack = slack;
  if (b.count == 0) return true;
  // A sample within h of a point within `slack` of the centre is within
  // h + slack of the centre; the copy may hold a few more (they add zero).
  const float reach = (k.radius() + slack) * 1.0001f;
  uint32_t count = 0;
  for_each_sample_row(b, centre, reach, [&](uint32_t first, uint32_t last) {
    for (uint32_t s = first; s < last; ++s) {
      // Written in any case, kept where near: no branch on the distance.
      const Vec3 xb = b.x[s];
      const uint32_t at = count < kNearSamples ? count : kNearSamples;
      out.x[0][at] = xb.x;
      out.x[1][at] = xb.y;
      out.x[2][at] = xb.z;
      out.psi[at] = b.psi[s];
      count += length_squared(centre - xb) < reach * reach ? 1u : 0u;
    }
  });
  if (count > kNearSamples) return false;
  out.count = count;
  for (uint32_t l = count; l % kLanes != 0; ++l) {  // the last group's empty lanes
    for (uint32_t a = 0; a < 3; ++a) out.x[a][l] = 0.0f;
    out.psi[l] = 0.0f;
  }
  return true;
}

// Whether the density at p may be summed over the copy.
inline bool near_samples_cover(const NearSamples& near, Vec3 p) {
  return length_squared(p - near.centre) <= near.slack * near.slack;
}

// boundary_density_gradient_lanes() at a point p that the copy covers
// (near_samples_cover()), over the copied samples.
template <class Kernel>
inline void near_samples_density_gradient(const Kernel& k, const NearSamples& near, Vec3 p, float& rho, Vec3& grad) {
  Lanes rho_sum(0.0f);
  Vec3Lanes grad_sum{0.0f, 0.0f, 0.0f};
  for (uint32_t g = 0; g < near.count; g += kLanes) {
    const LaneMask valid = LaneMask::below(g, near.count);
    const Vec3Lanes r = p - Vec3Lanes{load(near.x[0] + g), load(near.x[1] + g), load(near.x[2] + g)};
    const Lanes r2 = select(valid, length_squared(r), Lanes(k.h2()));
    add_boundary_samples(k, r, r2, load(near.psi + g), rho_sum, grad_sum);
  }
  rho = lane_sum(rho_sum);
  grad = lane_sum(grad_sum);
}

}  // namespace PBF_LANE_TARGET
}  // namespace pbf
