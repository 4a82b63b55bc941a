// pseudo_mass.h - the pseudo-masses of boundary samples (Akinci et al. 2012,
// eq. 4-5), computed once on the host for both backends when the samples
// are set. The samples are sorted into cells of their own, one kernel radius
// wide, wherever they lie: an obstacle's samples may lie far outside the
// domain, where the fluid's grid would clamp them into a few border cells
// and make each sum scan them all (quadratic in their number).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/hd.h"
#include "core/sph_kernels.h"

namespace pbf {

// psi_b = rest_density / sum_k W(x_b - x_k) [kg] for each sample b, in the
// order given, where the sum runs over the samples k of b's own body within
// kernel_radius of b (b itself included, so the sum is never 0) and W is the
// method's density kernel (Poly6 for PBF, the cubic spline for Projective
// Fluids). `body` names each sample's body (kStaticBoundary or an obstacle);
// null: one body. A body's pseudo-masses then depend only on its own
// samples, so a rigid body's stay valid at every pose. The sums run in a
// fixed order (cell, then index), so the result does not depend on the
// number of threads; the work is about n log n plus n times the samples
// within a kernel radius, wherever the samples lie. Runs in the calling
// thread's oneTBB arena. Throws std::bad_alloc when memory runs out.
std::vector<float> boundary_pseudo_masses(const Vec3* x, const uint32_t* body, size_t count,
                                          DensityKernel kernel, float kernel_radius, float rest_density);

}  // namespace pbf
