// point_value.h - a particle's point with one value of its own, packed in 16
// bytes, for the passes that read both for every neighbour: one aligned load
// of four floats where a Vec3 array and a float array take two (the CPU's
// lanes, backend/cpu/lanes.h) or four (a CUDA thread's scalar loads).
#pragma once

#include "core/hd.h"

namespace pbf {

// A point and one value of its particle (PBF's lambda, the vorticity stage's |omega|
// or volume).
struct alignas(16) PointValue {
  Vec3 p;
  float value;
};
static_assert(sizeof(PointValue) == 16, "four packed floats");

}  // namespace pbf
