// marching_cubes.h - iso-surfaces of fields sampled on regular grids
// (Lorensen & Cline 1987), with normals from the field's gradient.
#pragma once

#include <cstdint>
#include <vector>

#include "surface/surface_mesh.h"

namespace pbf {

// The iso-surface {field = iso} of n[0] x n[1] x n[2] samples (x fastest),
// sample (i, j, k) at origin + (i, j, k) * cell; the inside is where the field
// is above `iso`. Each grid edge the surface crosses gives one vertex, placed
// by linear interpolation; its normal is minus the field's gradient (central
// differences at the edge's ends, interpolated like the position), normalised.
// The mesh is closed where the inside does not touch the grid's faces. Runs
// parallel over z-planes with oneTBB; the result does not depend on the
// number of threads. Every n[a] must be at least 2 and the grid below 2^31
// samples (the caller checks).
SurfaceMesh extract_iso_surface(const std::vector<float>& field, const int n[3], const double origin[3], double cell,
                                float iso);

// The same for a grid the caller holds, whose inside is above `iso` when
// `inside_above` (densities) and below it otherwise (signed distances).
// Throws Error(InvalidArgument) for a dimension below 2 or a cell that is not
// positive.
SurfaceMesh grid_iso_surface(const float* values, const int dims[3], const float origin[3], float cell, float iso,
                             bool inside_above);

}  // namespace pbf
