// obstacle_fields.h - signed distance fields of simple solids sampled on a
// grid, in the layout pbf_solver_add_obstacle_sdf() takes, for tests that
// need obstacles without meshes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace pbf_test {

struct SampledField {
  std::vector<float> values;
  uint32_t dims[3];
  float origin[3];
  float cell;
};

// Samples distance(x, y, z) on the grid covering [lo, hi] (grown to whole cells) at `cell`.
template <class Distance>
SampledField sample_field(const float lo[3], const float hi[3], float cell, Distance distance) {
  SampledField f;
  f.cell = cell;
  for (int a = 0; a < 3; ++a) {
    f.origin[a] = lo[a];
    f.dims[a] = static_cast<uint32_t>(std::ceil((hi[a] - lo[a]) / cell)) + 1;
  }
  f.values.resize(size_t(f.dims[0]) * f.dims[1] * f.dims[2]);
  for (uint32_t k = 0; k < f.dims[2]; ++k)
    for (uint32_t j = 0; j < f.dims[1]; ++j)
      for (uint32_t i = 0; i < f.dims[0]; ++i)
        f.values[i + f.dims[0] * (j + size_t(f.dims[1]) * k)] =
            distance(f.origin[0] + i * cell, f.origin[1] + j * cell, f.origin[2] + k * cell);
  return f;
}

// Exact signed distance to an axis-aligned box centred at c with half extents h.
inline float box_distance(const float c[3], const float h[3], float x, float y, float z) {
  const float q[3] = {std::fabs(x - c[0]) - h[0], std::fabs(y - c[1]) - h[1], std::fabs(z - c[2]) - h[2]};
  float outside = 0.0f;
  for (float v : q) outside += std::max(v, 0.0f) * std::max(v, 0.0f);
  return std::sqrt(outside) + std::min(std::max(q[0], std::max(q[1], q[2])), 0.0f);
}

// A sphere of radius r at the origin, sampled over its bounding box grown by `margin`.
inline SampledField sphere_field(float r, float cell, float margin) {
  const float lo[3] = {-r - margin, -r - margin, -r - margin}, hi[3] = {r + margin, r + margin, r + margin};
  return sample_field(lo, hi, cell, [r](float x, float y, float z) { return std::sqrt(x * x + y * y + z * z) - r; });
}

// An open-topped cup centred at the origin: outer half extents `outer`, a
// wall and bottom `wall` thick, the cavity open upwards (+y).
inline SampledField cup_field(const float outer[3], float wall, float cell, float margin) {
  const float c[3] = {0.0f, 0.0f, 0.0f};
  // The cavity reaches past the rim so that the top is open.
  const float inner_c[3] = {0.0f, wall + margin, 0.0f};
  const float inner_h[3] = {outer[0] - wall, outer[1] + margin, outer[2] - wall};
  const float lo[3] = {-outer[0] - margin, -outer[1] - margin, -outer[2] - margin};
  const float hi[3] = {outer[0] + margin, outer[1] + margin, outer[2] + margin};
  return sample_field(lo, hi, cell, [&](float x, float y, float z) {
    return std::max(box_distance(c, outer, x, y, z), -box_distance(inner_c, inner_h, x, y, z));
  });
}

}  // namespace pbf_test
