// grid_spec.h - the uniform grid over the domain that the neighbour search
// sorts particles into. Cells are one kernel radius wide, so every neighbour
// of a particle lies in the block of cells that its kernel sphere touches
// (3x3x3 cells, or 2 where the sphere does not reach a neighbouring cell).
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace pbf {

struct GridSpec {
  Vec3 origin;        // lower corner of cell (0,0,0) [m]
  float inv_cell;     // 1 / cell size
  int dim[3];         // cells per axis, each >= 1

  PBF_HD int axis_cell(float v, float o, int n) const {
    // Clamping keeps particles outside the domain in the border cells; it is
    // monotone and 1-Lipschitz, so neighbours never end up >1 cell apart.
    const float c = floorf((v - o) * inv_cell);
    if (!(c >= 0.0f)) return 0;  // also catches NaN
    if (c >= static_cast<float>(n - 1)) return n - 1;
    return static_cast<int>(c);
  }
  PBF_HD void cell_of(Vec3 p, int& cx, int& cy, int& cz) const {
    cx = axis_cell(p.x, origin.x, dim[0]);
    cy = axis_cell(p.y, origin.y, dim[1]);
    cz = axis_cell(p.z, origin.z, dim[2]);
  }
  // Linear index with x fastest, so the three cells of a row are contiguous.
  PBF_HD uint32_t linear(int cx, int cy, int cz) const {
    return static_cast<uint32_t>((cz * dim[1] + cy) * dim[0] + cx);
  }
  PBF_HD uint32_t cell_index(Vec3 p) const {
    int cx, cy, cz;
    cell_of(p, cx, cy, cz);
    return linear(cx, cy, cz);
  }
  // The cells that cover [p - r, p + r] on each axis, lo[a] .. hi[a],
  // widened by the round-off of that subtraction: cell_of() is monotone, so
  // a point within r of p always lies in this block, however its cell index
  // was rounded.
  PBF_HD void cell_block(Vec3 p, float r, int lo[3], int hi[3]) const {
    const float c[3] = {p.x, p.y, p.z};
    const float o[3] = {origin.x, origin.y, origin.z};
    for (int a = 0; a < 3; ++a) {
      const float reach = r + 4.8e-7f * (fabsf(c[a]) + r);  // 2^-21 relative
      lo[a] = axis_cell(c[a] - reach, o[a], dim[a]);
      hi[a] = axis_cell(c[a] + reach, o[a], dim[a]);
    }
  }
  // Whether p lies more than one cell (one kernel radius) beyond the grid's
  // box on some axis, so that no point in the box, and no fluid particle,
  // is within reach of it. Clamped into a border cell, such a point would
  // lengthen the scans along that wall for nothing. NaN is not beyond.
  PBF_HD bool beyond_reach(Vec3 p) const {
    return axis_beyond(p.x, origin.x, dim[0]) || axis_beyond(p.y, origin.y, dim[1]) ||
           axis_beyond(p.z, origin.z, dim[2]);
  }
  // The bucket after the last cell, where boundary samples beyond reach go;
  // every scan reads cells only, so it never reads this one.
  PBF_HD uint32_t set_aside_bucket() const { return static_cast<uint32_t>(dim[0] * dim[1] * dim[2]); }
  // A boundary sample's bucket: its cell, or set_aside_bucket() beyond reach.
  PBF_HD uint32_t bucket_index(Vec3 p) const { return beyond_reach(p) ? set_aside_bucket() : cell_index(p); }
  PBF_HD bool axis_beyond(float v, float o, int n) const {
    const float c = (v - o) * inv_cell;
    return c < -1.0f || c > static_cast<float>(n + 1);
  }
  uint64_t cell_count() const {
    return static_cast<uint64_t>(dim[0]) * static_cast<uint64_t>(dim[1]) * static_cast<uint64_t>(dim[2]);
  }
};

}  // namespace pbf
