// lattice_fill.h - particles on a cubic lattice filling a box.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/hd.h"

namespace pbf {

// How far every fill keeps its lattice points from the domain's walls, in
// spacings: a point nearer a wall would start inside its reach, compressed
// against it, and be thrown off it in the first step.
constexpr float kFillWallMargin = 0.5f;

// The indices [first, last) along one axis of the lattice points
// anchor + (i + 1/2) * spacing, i >= 0, that lie in [lo, hi] (hi met within
// 1e-6 spacings) and at least `margin` inside [keep_lo, keep_hi] (met within
// 1e-3 spacings where margin > 0, for the round-off of the bounds themselves:
// without it a layer flush with a wall could be lost). last >= first.
void lattice_axis_range(double anchor, double lo, double hi, double spacing, double keep_lo, double keep_hi,
                        double margin, int64_t& first, int64_t& last);

// Whether a fill may place a lattice point (true) or must leave it out.
using LatticeKeep = std::function<bool(Vec3)>;

// Lattice points lo + (i + 1/2) * spacing that lie in [lo, hi] and at least
// `margin` inside the box [keep_min, keep_max] (as lattice_axis_range()), and
// that `keep` keeps (empty: every one), as x, y, z triples.
std::vector<float> lattice_fill(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max, float margin = 0.0f,
                                const LatticeKeep& keep = {});

// How many points lattice_fill() would return, without making them: at once
// without `keep`, point by point with it.
size_t lattice_fill_count(Vec3 lo, Vec3 hi, float spacing, Vec3 keep_min, Vec3 keep_max, float margin = 0.0f,
                          const LatticeKeep& keep = {});

}  // namespace pbf
