// particle_surface.cpp - the particles' density splatted on a grid, in
// parallel over z-planes with oneTBB, then marching cubes; with isotropic
// kernels, or with Yu & Turk 2013's anisotropic ones.
#include "surface/particle_surface.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
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

// Yu & Turk 2013's constants: neighbours below which a particle keeps a
// round kernel (N_eps), the largest ratio of its covariance's eigenvalues
// (k_r), and the Laplacian smoothing of the centres at full strength
// (lambda): 0.2, not their 0.9, which pulls a ball of 10 spacings' radius 8 %
// below its water's volume (0.2: 0.2 %) for a top face flatter by a third.
constexpr int kMinNeighbors = 25;
constexpr double kMaxEigenRatio = 4.0;
constexpr double kCentreSmoothing = 0.2;

// Yu & Turk's weight w_ij = 1 - (r / Rn)^3 within the neighbourhood Rn (their eq. 6).
double neighbor_weight(double r2, double Rn2) {
  if (r2 >= Rn2) return 0.0;
  const double q = std::sqrt(r2 / Rn2);
  return 1.0 - q * q * q;
}

// The eigenvalues of the symmetric 3x3 matrix `a` (row-major), largest
// first, into `value`, and their unit eigenvectors into the columns of `v`,
// by cyclic Jacobi rotations: robust for repeated eigenvalues, and the same
// operations whatever the thread.
void symmetric_eigen(const double a_in[9], double value[3], double v[9]) {
  double a[9];
  std::copy(a_in, a_in + 9, a);
  for (int i = 0; i < 9; ++i) v[i] = (i % 4 == 0) ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 32; ++sweep) {
    const double off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
    const double diag = a[0] * a[0] + a[4] * a[4] + a[8] * a[8];
    if (off <= 1e-30 * diag || off == 0.0) break;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        const double apq = a[3 * p + q];
        if (apq == 0.0) continue;
        // The rotation that zeroes a_pq (Golub & Van Loan, algorithm 8.4.1), in its stable form.
        const double theta = (a[3 * q + q] - a[3 * p + p]) / (2.0 * apq);
        const double t = (theta >= 0.0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 3; ++k) {  // a <- a J
          const double akp = a[3 * k + p], akq = a[3 * k + q];
          a[3 * k + p] = c * akp - s * akq;
          a[3 * k + q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {  // a <- J^T a
          const double apk = a[3 * p + k], aqk = a[3 * q + k];
          a[3 * p + k] = c * apk - s * aqk;
          a[3 * q + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; ++k) {  // v <- v J
          const double vkp = v[3 * k + p], vkq = v[3 * k + q];
          v[3 * k + p] = c * vkp - s * vkq;
          v[3 * k + q] = s * vkp + c * vkq;
        }
      }
  }
  int order[3] = {0, 1, 2};
  std::sort(order, order + 3, [&](int x, int y) { return a[4 * x] > a[4 * y] || (a[4 * x] == a[4 * y] && x < y); });
  double vs[9];
  for (int c = 0; c < 3; ++c) {
    value[c] = a[4 * order[c]];
    for (int r = 0; r < 3; ++r) vs[3 * r + c] = v[3 * r + order[c]];
  }
  std::copy(vs, vs + 9, v);
}

// One particle's kernel: phi gains scale * P(|G (x - centre)|), which is
// nonzero within `extent` of the centre along each axis [m].
struct AnisotropicKernel {
  double centre[3];
  double G[9];  // row-major [1/m]
  double scale;
  double extent[3];
};

// Every particle's kernel (Yu & Turk 2013, eq. 5, 6, 9 and 10) at strength
// a in (0, 1], for smoothing radius R [m]. Each
// particle's kernel depends on its neighbours alone, in an order fixed by
// their positions, so it is the same whatever the thread count.
std::vector<AnisotropicKernel> anisotropic_kernels(const float* positions, size_t count, double R, double a,
                                                   const double lo[3]) {
  const double Rn = 2.0 * R, Rn2 = Rn * Rn;  // the paper's neighbourhood: twice the kernel's support
  const double Rs2 = R * R;                   // the centres are smoothed over the kernel's own support
  const double lambda = kCentreSmoothing * a;
  // Particles sorted by cell of edge Rn, so that the neighbours of a row of three cells are one range.
  auto cell_of = [&](size_t p, int axis) { return static_cast<int64_t>(std::floor((positions[3 * p + axis] - lo[axis]) / Rn)); };
  int64_t dims[3] = {1, 1, 1};
  for (size_t p = 0; p < count; ++p)
    for (int axis = 0; axis < 3; ++axis) dims[axis] = std::max(dims[axis], cell_of(p, axis) + 1);
  auto key_of = [&](int64_t x, int64_t y, int64_t z) { return (z * dims[1] + y) * dims[0] + x; };
  std::vector<std::pair<int64_t, uint32_t>> sorted(count);
  for (size_t p = 0; p < count; ++p)
    sorted[p] = {key_of(cell_of(p, 0), cell_of(p, 1), cell_of(p, 2)), static_cast<uint32_t>(p)};
  std::sort(sorted.begin(), sorted.end());
  std::vector<AnisotropicKernel> kernels(count);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, count, 256), [&](const tbb::blocked_range<size_t>& r) {
    std::vector<uint32_t> near;
    for (size_t p = r.begin(); p < r.end(); ++p) {
      const float* x = positions + 3 * p;
      const int64_t c[3] = {cell_of(p, 0), cell_of(p, 1), cell_of(p, 2)};
      near.clear();
      for (int64_t z = std::max<int64_t>(0, c[2] - 1); z <= std::min(dims[2] - 1, c[2] + 1); ++z)
        for (int64_t y = std::max<int64_t>(0, c[1] - 1); y <= std::min(dims[1] - 1, c[1] + 1); ++y) {
          const auto first = std::lower_bound(sorted.begin(), sorted.end(),
                                              std::make_pair(key_of(std::max<int64_t>(0, c[0] - 1), y, z), uint32_t(0)));
          const int64_t end_key = key_of(std::min(dims[0] - 1, c[0] + 1), y, z);
          for (auto it = first; it != sorted.end() && it->first <= end_key; ++it) near.push_back(it->second);
        }
      // The weighted means of the neighbours (the particle itself included) within 2R, for the
      // covariance about it, and within R, for the centre (eq. 6).
      double sum_w = 0.0, mean[3] = {0, 0, 0}, sum_ws = 0.0, smean[3] = {0, 0, 0};
      int neighbors = 0;
      for (uint32_t q : near) {
        const float* y = positions + 3 * static_cast<size_t>(q);
        const double d[3] = {double(y[0]) - x[0], double(y[1]) - x[1], double(y[2]) - x[2]};
        const double w = neighbor_weight(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], Rn2);
        if (w <= 0.0) continue;
        neighbors += q != p ? 1 : 0;
        sum_w += w;
        for (int axis = 0; axis < 3; ++axis) mean[axis] += w * d[axis];
        const double ws = neighbor_weight(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], Rs2);
        sum_ws += ws;
        for (int axis = 0; axis < 3; ++axis) smean[axis] += ws * d[axis];
      }
      for (int axis = 0; axis < 3; ++axis) mean[axis] /= sum_w;  // relative to x; sum_w >= 1 (the particle itself)
      AnisotropicKernel& k = kernels[p];
      for (int axis = 0; axis < 3; ++axis) k.centre[axis] = x[axis] + lambda * smean[axis] / sum_ws;
      double stretch[3] = {1.0, 1.0, 1.0}, axes[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
      if (neighbors >= kMinNeighbors) {
        double C[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        for (uint32_t q : near) {
          const float* y = positions + 3 * static_cast<size_t>(q);
          const double d[3] = {double(y[0]) - x[0], double(y[1]) - x[1], double(y[2]) - x[2]};
          const double w = neighbor_weight(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], Rn2);
          if (w <= 0.0) continue;
          const double e[3] = {d[0] - mean[0], d[1] - mean[1], d[2] - mean[2]};
          for (int row = 0; row < 3; ++row)
            for (int col = 0; col < 3; ++col) C[3 * row + col] += w * e[row] * e[col] / sum_w;
        }
        double sigma[3];
        symmetric_eigen(C, sigma, axes);
        // Eq. 10: no axis shorter than 1/k_r of the longest. k_s is 1/cbrt(sigma_1 sigma_2 sigma_3), so that
        // every kernel has the isotropic one's volume: an inner particle's (a round covariance) is the isotropic
        // kernel exactly, and a surface particle's keeps its mass within the surface's thickness.
        if (sigma[0] > 0.0) {  // neighbours all at one point have no shape: the round kernel
          for (int axis = 0; axis < 3; ++axis) sigma[axis] = std::max(sigma[axis], sigma[0] / kMaxEigenRatio);
          const double ks = 1.0 / std::cbrt(sigma[0] * sigma[1] * sigma[2]);
          for (int axis = 0; axis < 3; ++axis)
            stretch[axis] = (1.0 - a) + a * ks * sigma[axis];  // blended with the sphere by a
        }
      }
      // Eq. 9: G = (1/R) V diag(1/stretch) V^T; its inverse R V diag(stretch) V^T bounds the support.
      for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col) {
          double g = 0.0;
          for (int e = 0; e < 3; ++e) g += axes[3 * row + e] * axes[3 * col + e] / stretch[e];
          k.G[3 * row + col] = g / R;
        }
      for (int row = 0; row < 3; ++row) {
        double e2 = 0.0;
        for (int e = 0; e < 3; ++e) e2 += (axes[3 * row + e] * stretch[e]) * (axes[3 * row + e] * stretch[e]);
        k.extent[row] = R * std::sqrt(e2);
      }
      k.scale = 1.0 / (stretch[0] * stretch[1] * stretch[2]);  // det(G) R^3: each kernel holds the same mass
    }
  });
  return kernels;
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

namespace {

// Refuses a grid of more than kMaxSurfaceGridPoints points, naming cell_size.
void require_grid_fits(const double cells[3], float cell_size) {
  // Checked in doubles before any conversion: a grid of far-flung particles may not fit an int.
  const double grid_points = (cells[0] + 1.0) * (cells[1] + 1.0) * (cells[2] + 1.0);
  if (!(grid_points <= static_cast<double>(kMaxSurfaceGridPoints))) {
    std::ostringstream m;
    m << "cell_size " << cell_size << " spacings makes a surface grid of " << cells[0] + 1.0 << " x "
      << cells[1] + 1.0 << " x " << cells[2] + 1.0 << " points over the particles' bounds, more than the "
      << kMaxSurfaceGridPoints << " allowed; use a larger cell_size";
    throw Error(Status::CapacityExceeded, m.str());
  }
}

}  // namespace

SurfaceMesh particle_surface(const float* positions, size_t count, float spacing, const ParticleSurfaceOptions& o) {
  if (!(spacing > 0.0f) || !std::isfinite(spacing))
    throw Error(Status::InvalidArgument, "spacing must be finite and > 0");
  if (!(o.cell_size > 0.0f) || !std::isfinite(o.cell_size))
    throw Error(Status::InvalidArgument, "cell_size must be finite and > 0");
  if (!(o.smoothing_radius > 0.0f) || !std::isfinite(o.smoothing_radius))
    throw Error(Status::InvalidArgument, "smoothing_radius must be finite and > 0");
  if (!(o.iso_level > 0.0f && o.iso_level < 1.0f))
    throw Error(Status::InvalidArgument, "iso_level must be in (0, 1)");
  if (!(o.anisotropy >= 0.0f && o.anisotropy <= 1.0f))
    throw Error(Status::InvalidArgument, "anisotropy must be in [0, 1]");
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
  require_grid_fits(cells, o.cell_size);

  // Anisotropic kernels move and stretch the supports: the grid covers their bounds instead.
  const bool anisotropic = o.anisotropy > 0.0f;
  std::vector<AnisotropicKernel> kernels;
  double max_extent[3] = {R, R, R};
  if (anisotropic) {
    kernels = anisotropic_kernels(positions, count, R, o.anisotropy, lo);
    double klo[3], khi[3];
    for (int a = 0; a < 3; ++a) {
      klo[a] = kernels[0].centre[a] - kernels[0].extent[a];
      khi[a] = kernels[0].centre[a] + kernels[0].extent[a];
      max_extent[a] = 0.0;
    }
    for (const AnisotropicKernel& k : kernels)
      for (int a = 0; a < 3; ++a) {
        klo[a] = std::min(klo[a], k.centre[a] - k.extent[a]);
        khi[a] = std::max(khi[a], k.centre[a] + k.extent[a]);
        max_extent[a] = std::max(max_extent[a], k.extent[a]);
      }
    for (int a = 0; a < 3; ++a) {
      origin[a] = klo[a] - kPadding * h;
      cells[a] = std::ceil((khi[a] - klo[a] + 2.0 * kPadding * h) / h);
    }
    require_grid_fits(cells, o.cell_size);
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
  const int reach = static_cast<int>(std::ceil(max_extent[2] / h)) + 1;
  std::vector<uint32_t> bucket_start(nz + 1, 0), order(count);
  auto centre_z = [&](size_t p) { return anisotropic ? kernels[p].centre[2] : static_cast<double>(positions[3 * p + 2]); };
  auto plane_of = [&](size_t p) {
    const long k = std::lround((centre_z(p) - origin[2]) / h);
    return static_cast<size_t>(std::clamp<long>(k, 0, static_cast<long>(nz) - 1));
  };
  for (size_t p = 0; p < count; ++p) ++bucket_start[plane_of(p) + 1];
  for (size_t k = 0; k < nz; ++k) bucket_start[k + 1] += bucket_start[k];
  {
    std::vector<uint32_t> fill(bucket_start.begin(), bucket_start.end() - 1);
    for (size_t p = 0; p < count; ++p) order[fill[plane_of(p)]++] = static_cast<uint32_t>(p);
  }
  // The isotropic kernel around one particle, within planes [z0, z1).
  auto splat_isotropic = [&](size_t p, long z0, long z1) {
    const float* x = positions + 3 * p;
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
  };
  // The ellipsoidal kernel det(G) R^3 P(|G (x - c)|) over its bounding box, within planes [z0, z1).
  auto splat_anisotropic = [&](size_t p, long z0, long z1) {
    const AnisotropicKernel& ker = kernels[p];
    const double* G = ker.G;
    long first[3], last[3];
    double g[3];
    for (int a = 0; a < 3; ++a) {
      g[a] = (ker.centre[a] - origin[a]) / h;
      first[a] = std::max(0L, static_cast<long>(std::ceil(g[a] - ker.extent[a] / h)));
      last[a] = std::min(static_cast<long>(n[a]) - 1, static_cast<long>(std::floor(g[a] + ker.extent[a] / h)));
    }
    first[2] = std::max(first[2], z0);
    last[2] = std::min(last[2], z1 - 1);
    for (long k = first[2]; k <= last[2]; ++k) {
      const double dz = (k - g[2]) * h;
      for (long j = first[1]; j <= last[1]; ++j) {
        const double dy = (j - g[1]) * h;
        const double uyz[3] = {G[1] * dy + G[2] * dz, G[4] * dy + G[5] * dz, G[7] * dy + G[8] * dz};
        float* row = field.data() + static_cast<size_t>(k) * plane + static_cast<size_t>(j) * nx;
        for (long i = first[0]; i <= last[0]; ++i) {
          const double dx = (i - g[0]) * h;
          const double u[3] = {uyz[0] + G[0] * dx, uyz[1] + G[3] * dx, uyz[2] + G[6] * dx};
          const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
          if (u2 < 1.0) row[i] += static_cast<float>(ker.scale * kernel(u2, 1.0));
        }
      }
    }
  };
  const int grain = 4;
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, nz, grain),
      [&](const tbb::blocked_range<size_t>& r) {
        const long z0 = static_cast<long>(r.begin()), z1 = static_cast<long>(r.end());
        const size_t b0 = bucket_start[static_cast<size_t>(std::max(0L, z0 - reach))];
        const size_t b1 = bucket_start[static_cast<size_t>(std::min(static_cast<long>(nz), z1 + reach))];
        for (size_t b = b0; b < b1; ++b) {
          if (anisotropic)
            splat_anisotropic(order[b], z0, z1);
          else
            splat_isotropic(order[b], z0, z1);
        }
      },
      tbb::simple_partitioner());

  return extract_iso_surface(field, n, origin, h, iso);
}

}  // namespace pbf
