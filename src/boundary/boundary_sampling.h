// boundary_sampling.h - boundary samples of the domain walls: one layer of
// samples per wall at the particle spacing, set back behind the wall so that
// fluid resting on it at the collision distance has the rest density.
#pragma once

#include <vector>

#include "core/config.h"
#include "core/hd.h"

namespace pbf {

// How far behind a flat wall [m] its layer of samples lies, so that the
// bottom layer of a rest lattice of fluid, half a spacing in front of the
// wall (where collisions keep it and where pbf_solver_fill_box() puts it),
// has exactly rest density: with pseudo-masses rho0 / sum W over the layer,
// the layer's density at distance d is rho0 P(d) / P(0), where P(d) is the
// kernel sum over the layer at distance d; the half lattice of fluid lacks
// rho0 (1 - F_half / F_full). The distance d solving P(d) / P(0) = 1 -
// F_half / F_full is found by bisection; the result is d - spacing / 2, at
// least 0. Independent of rho0; the kernel is the method's density kernel
// (Poly6 for PBF, the cubic spline for Projective Fluids).
float wall_sample_setback(float spacing, float kernel_radius, Method method);

// Samples of the six walls of the domain box, each moved outwards by
// wall_sample_setback(): the faces of the grown box, each on a square-ish
// lattice whose step is the particle spacing rounded so that the edges are
// sampled too, with every edge and corner point held by one face only.
// Throws Error(CapacityExceeded), before allocating them, when there would be
// more than max_count samples.
std::vector<Vec3> sample_domain_walls(const SolverConfig& config, size_t max_count);

}  // namespace pbf
