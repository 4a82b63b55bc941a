// particle_surface.h - the liquid's surface: the iso-surface of a smoothed
// particle density, sampled on a grid around the particles.
#pragma once

#include <cstddef>
#include <cstdint>

#include "surface/surface_mesh.h"

namespace pbf {

// The most grid points a surface may be sampled on (2^27, 512^3): the
// grid's field and classification take 5 bytes a point.
constexpr uint64_t kMaxSurfaceGridPoints = uint64_t(1) << 27;

// How the density field is sampled; every length is in particle spacings.
struct ParticleSurfaceOptions {
  float cell_size = 0.5f;         // grid cell edge, > 0
  float smoothing_radius = 2.0f;  // support of the smoothing kernel, > 0
  float iso_level = 0.5f;         // iso-level as a fraction of the field inside the rest lattice, (0, 1)
  float anisotropy = 0.0f;        // 0 isotropic kernels .. 1 Yu & Turk 2013's anisotropic ones, [0, 1]
};

// The value phi takes inside the rest lattice (particles at spacing 1,
// averaged over positions within a lattice cell), in units where the spacing
// is 1: the reference for the iso-level.
double rest_lattice_field(float smoothing_radius);

// The iso-surface of phi(x) = sum_i w(|x - x_i|), w(r) = (1 - r^2/R^2)^3 for
// r < R, at iso_level times the value phi takes inside a block of particles
// on the rest lattice at `spacing` [m]. With anisotropy a > 0 each particle
// has its own kernel (Yu & Turk 2013): phi(x) = sum_i det(G_i) R^3
// P(|G_i (x - c_i)|), P(u) = (1 - u^2)^3, centred on c_i, x_i moved 0.9 a of
// the way to the weighted mean of its neighbours within 2R (their eq. 6), and
// stretched along the principal axes of their weighted covariance (eq. 5, 9,
// 10), blended with the isotropic G = I / R by a; a = 0 is the isotropic
// field exactly. The field is sampled on a grid over
// the particles' bounding box grown by R and 2 cells, so that it is zero on
// the grid's faces and the mesh is closed. No particles: an empty mesh.
// Positions must be finite. Runs parallel with oneTBB; the result does not
// depend on the number of threads. Throws Error(InvalidArgument) for a
// spacing or options out of range and Error(CapacityExceeded), naming
// cell_size, when the grid would hold more than kMaxSurfaceGridPoints points.
SurfaceMesh particle_surface(const float* positions, size_t count, float spacing,
                             const ParticleSurfaceOptions& options);

}  // namespace pbf
