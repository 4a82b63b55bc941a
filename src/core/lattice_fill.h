// lattice_fill.h - particles on a cubic lattice filling a box.
#pragma once

#include <vector>

#include "core/hd.h"

namespace pbf {

// Lattice points lo + (i + 1/2) * spacing that lie in [lo, hi] and at least
// `margin` inside the box [keep_min, keep_max] (within 1e-3 spacings), as
// x, y, z triples.
std::vector<float> lattice_fill(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max, float margin = 0.0f);

// How many points lattice_fill() would return, without making them.
size_t lattice_fill_count(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max, float margin = 0.0f);

}  // namespace pbf
