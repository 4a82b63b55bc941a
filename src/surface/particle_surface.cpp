// particle_surface.cpp - the particles' density splatted on a grid, in
// parallel over z-planes with oneTBB, then marching cubes.
#include "surface/particle_surface.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "surface/marching_cubes.h"

namespace pbf {

namespace {

// Empty cells around the particles' support, so the field is zero on the grid's faces.
constexpr int kPadding = 2;

double kernel(double r2, double R2) {
  if (r2 >= R2) return 0.0;
  const double q = 1.0 - r2 / R2;
  return q * q * q;
}

}  // namespace

double rest_lattice_field(float smoothing_radius) {
  const double R = smoothing_radius, R2 = R * R;
  const int m = static_cast<int>(std::ceil(R)) + 1;
  const int samples = 4;  // sample points per axis within one lattice cell
  double sum = 0.0;
  for (int sz = 0; sz < samples; ++sz)
    for (int sy = 0; sy < samples; ++sy)
      for (int sx = 0; sx < samples; ++sx) {
        const double x[3] = {(sx + 0.5) / samples, (sy + 0.5) / samples, (sz + 0.5) / samples};
        for (int k = -m; k <= m; ++k)
          for (int j = -m; j <= m; ++j)
            for (int i = -m; i <= m; ++i) {
              const double d[3] = {x[0] - i, x[1] - j, x[2] - k};
              sum += kernel(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], R2);
            }
      }
  return sum / (samples * samples * samples);
}

SurfaceMesh particle_surface(const float* positions, size_t count, float spacing, const ParticleSurfaceOptions& o) {
  if (!(spacing > 0.0f) || !std::isfinite(spacing))
    throw Error(Status::InvalidArgument, "spacing must be finite and > 0");
  if (!(o.cell_size > 0.0f) || !std::isfinite(o.cell_size))
    throw Error(Status::InvalidArgument, "cell_size must be finite and > 0");
  if (!(o.smoothing_radius > 0.0f) || !std::isfinite(o.smoothing_radius))
    throw Error(Status::InvalidArgument, "smoothing_radius must be finite and > 0");
  if (!(o.iso_level > 0.0f && o.iso_level < 1.0f))
    throw Error(Status::InvalidArgument, "iso_level must be in (0, 1)");
  SurfaceMesh mesh;
  if (count == 0) return mesh;

  const double h = static_cast<double>(o.cell_size) * spacing;
  const double R = static_cast<double>(o.smoothing_radius) * spacing, R2 = R * R;
  const float iso = static_cast<float>(o.iso_level * rest_lattice_field(o.smoothing_radius));
  double lo[3], hi[3];
  for (int a = 0; a < 3; ++a) lo[a] = hi[a] = positions[a];
  for (size_t p = 1; p < count; ++p)
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], static_cast<double>(positions[3 * p + a]));
      hi[a] = std::max(hi[a], static_cast<double>(positions[3 * p + a]));
    }
  double origin[3], cells[3];
  for (int a = 0; a < 3; ++a) {
    origin[a] = lo[a] - R - kPadding * h;
    cells[a] = std::ceil((hi[a] - lo[a] + 2.0 * (R + kPadding * h)) / h);
  }
  // Checked in doubles before any conversion: a grid of far-flung particles may not fit an int.
  const double grid_points = (cells[0] + 1.0) * (cells[1] + 1.0) * (cells[2] + 1.0);
  if (!(grid_points <= static_cast<double>(kMaxSurfaceGridPoints))) {
    std::ostringstream m;
    m << "cell_size " << o.cell_size << " spacings makes a surface grid of " << cells[0] + 1.0 << " x "
      << cells[1] + 1.0 << " x " << cells[2] + 1.0 << " points over the particles' bounds, more than the "
      << kMaxSurfaceGridPoints << " allowed; use a larger cell_size";
    throw Error(Status::CapacityExceeded, m.str());
  }
  int n[3];
  for (int a = 0; a < 3; ++a) n[a] = static_cast<int>(cells[a]) + 1;
  const size_t nx = n[0], ny = n[1], nz = n[2], plane = nx * ny;
  const size_t points = plane * nz;

  // Splat. Particles are bucketed by the plane nearest to them; the task
  // owning planes [z0, z1) adds the part of each nearby particle's support
  // inside its planes, so no two tasks write the same point, and each point
  // sums its particles in the same order whatever the thread count.
  std::vector<float> field(points, 0.0f);
  const int reach = static_cast<int>(std::ceil(R / h)) + 1;
  std::vector<uint32_t> bucket_start(nz + 1, 0), order(count);
  auto plane_of = [&](size_t p) {
    const long k = std::lround((positions[3 * p + 2] - origin[2]) / h);
    return static_cast<size_t>(std::clamp<long>(k, 0, static_cast<long>(nz) - 1));
  };
  for (size_t p = 0; p < count; ++p) ++bucket_start[plane_of(p) + 1];
  for (size_t k = 0; k < nz; ++k) bucket_start[k + 1] += bucket_start[k];
  {
    std::vector<uint32_t> fill(bucket_start.begin(), bucket_start.end() - 1);
    for (size_t p = 0; p < count; ++p) order[fill[plane_of(p)]++] = static_cast<uint32_t>(p);
  }
  const int grain = 4;
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, nz, grain),
      [&](const tbb::blocked_range<size_t>& r) {
        const long z0 = static_cast<long>(r.begin()), z1 = static_cast<long>(r.end());
        const size_t b0 = bucket_start[static_cast<size_t>(std::max(0L, z0 - reach))];
        const size_t b1 = bucket_start[static_cast<size_t>(std::min(static_cast<long>(nz), z1 + reach))];
        for (size_t b = b0; b < b1; ++b) {
          const float* x = positions + 3 * static_cast<size_t>(order[b]);
          long first[3], last[3];
          double g[3];
          for (int a = 0; a < 3; ++a) {
            g[a] = (x[a] - origin[a]) / h;
            first[a] = std::max(0L, static_cast<long>(std::ceil(g[a] - R / h)));
            last[a] = std::min(static_cast<long>(n[a]) - 1, static_cast<long>(std::floor(g[a] + R / h)));
          }
          first[2] = std::max(first[2], z0);
          last[2] = std::min(last[2], z1 - 1);
          for (long k = first[2]; k <= last[2]; ++k) {
            const double dz = (k - g[2]) * h;
            for (long j = first[1]; j <= last[1]; ++j) {
              const double dy = (j - g[1]) * h;
              const double dyz = dy * dy + dz * dz;
              if (dyz >= R2) continue;
              float* row = field.data() + static_cast<size_t>(k) * plane + static_cast<size_t>(j) * nx;
              for (long i = first[0]; i <= last[0]; ++i) {
                const double dx = (i - g[0]) * h;
                row[i] += static_cast<float>(kernel(dx * dx + dyz, R2));
              }
            }
          }
        }
      },
      tbb::simple_partitioner());

  return extract_iso_surface(field, n, origin, h, iso);
}

}  // namespace pbf
