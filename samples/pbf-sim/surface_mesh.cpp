// surface_mesh.cpp - marching cubes (Lorensen & Cline 1987, "Marching Cubes: A
// High Resolution 3D Surface Construction Algorithm", SIGGRAPH '87) over a
// particle density splatted on a grid, in three passes parallel over z-planes
// with oneTBB: splat, classify grid edges, emit triangles.
#include "surface_mesh.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "atomic_file.h"
#include "vtp_writer.h"

namespace pbf_sim {

namespace {

// ---------------------------------------------------------------------------
// The case table. Corner c of a cell sits at (c & 1, c >> 1 & 1, c >> 2 & 1);
// edge e runs along axis e / 4 from the corner whose other two coordinates are
// the bits of e % 4. The 256 cases are derived here from the cell's faces
// rather than typed in: on each face, every run of inside corners is cut off
// by one segment from the edge where the run starts to the edge where it ends
// (walking the face counter-clockwise seen from outside the cell). This is the
// Lorensen & Cline table with each ambiguous face resolved by separating the
// inside corners; the rule depends only on the face's four values, so both
// cells that share a face cut it the same way and the mesh has no holes. The
// segments join into loops around the cell, each loop a polygon fanned into
// triangles whose normals point from inside (field above the iso-level) out.
// ---------------------------------------------------------------------------

struct CaseTable {
  std::array<std::array<int8_t, 37>, 256> triangles;  // edge triples, -1 ends the list
  std::array<uint8_t, 12> edge_axis;
  std::array<uint8_t, 12> edge_base;  // the corner the edge starts from
};

int edge_between(int a, int b) {
  const int diff = a ^ b;
  const int axis = diff == 1 ? 0 : diff == 2 ? 1 : 2;
  const int base = std::min(a, b);
  const int u = (axis + 1) % 3, v = (axis + 2) % 3;
  const int lo = std::min(u, v), hi = std::max(u, v);
  return 4 * axis + ((base >> lo) & 1) + 2 * ((base >> hi) & 1);
}

CaseTable make_case_table() {
  CaseTable t{};
  for (int e = 0; e < 12; ++e) {
    const int axis = e / 4;
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    const int lo = std::min(u, v), hi = std::max(u, v);
    t.edge_axis[e] = static_cast<uint8_t>(axis);
    t.edge_base[e] = static_cast<uint8_t>(((e & 1) << lo) | (((e >> 1) & 1) << hi));
  }
  // Faces as corner cycles, counter-clockwise seen from outside: with (a, u, v)
  // cyclic, u x v = +a, so (0,0) (1,0) (1,1) (0,1) in (u, v) turns around +a.
  std::array<std::array<int, 4>, 6> faces;
  for (int a = 0; a < 3; ++a) {
    const int u = (a + 1) % 3, v = (a + 2) % 3;
    const int uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    for (int side = 0; side < 2; ++side)
      for (int i = 0; i < 4; ++i) {
        const int k = side == 1 ? i : (4 - i) % 4;  // the far side turns the other way
        faces[2 * a + side][i] = (side << a) | (uv[k][0] << u) | (uv[k][1] << v);
      }
  }
  for (int m = 0; m < 256; ++m) {
    std::array<int, 12> next;
    next.fill(-1);
    for (const auto& f : faces) {
      bool in[4];
      for (int i = 0; i < 4; ++i) in[i] = (m >> f[i]) & 1;
      for (int i = 0; i < 4; ++i) {
        if (!in[i] || in[(i + 1) % 4]) continue;  // not the end of an inside run
        int j = i;
        while (in[(j + 3) % 4]) j = (j + 3) % 4;  // back to the run's start (a face is never all inside here)
        next[edge_between(f[(j + 3) % 4], f[j])] = edge_between(f[i], f[(i + 1) % 4]);
      }
    }
    int n = 0;
    bool seen[12] = {};
    for (int start = 0; start < 12; ++start) {
      if (next[start] < 0 || seen[start]) continue;
      int loop[12], len = 0;
      for (int e = start; !seen[e]; e = next[e]) {
        seen[e] = true;
        loop[len++] = e;
      }
      for (int i = 1; i + 1 < len; ++i) {
        t.triangles[m][n++] = static_cast<int8_t>(loop[0]);
        t.triangles[m][n++] = static_cast<int8_t>(loop[i]);
        t.triangles[m][n++] = static_cast<int8_t>(loop[i + 1]);
      }
    }
    t.triangles[m][n] = -1;
  }
  return t;
}

const CaseTable& case_table() {
  static const CaseTable table = make_case_table();  // immutable once built
  return table;
}

double kernel(double r2, double R2) {
  if (r2 >= R2) return 0.0;
  const double q = 1.0 - r2 / R2;
  return q * q * q;
}

// Mask bits per grid point: the field is above the iso-level (inside), and
// which of the three edges leaving the point along +x, +y, +z cross it.
constexpr uint8_t kInside = 8;

// Passes 2 to 4 of marching cubes over a field on an nx x ny x nz grid (x
// fastest) whose point (i, j, k) lies at origin + (i, j, k) * h; the inside
// is where the field is above `iso`.
SurfaceMesh extract_iso_surface(const std::vector<float>& field, const int n[3], const double origin[3], double h,
                                float iso) {
  SurfaceMesh mesh;
  const size_t nx = n[0], ny = n[1], nz = n[2], plane = nx * ny;
  const size_t points = plane * nz;
  // Pass 2: classify points and their three forward edges; count crossing
  // edges per plane. The grid's outer layer is empty, so edges that would
  // leave the grid never cross.
  std::vector<uint8_t> mask(points, 0);
  std::vector<uint32_t> plane_vertices(nz + 1, 0);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, nz), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t k = r.begin(); k < r.end(); ++k) {
      uint32_t crossings = 0;
      for (size_t j = 0; j < ny; ++j)
        for (size_t i = 0; i < nx; ++i) {
          const size_t id = k * plane + j * nx + i;
          const bool in = field[id] > iso;
          uint8_t m = in ? kInside : 0;
          if (i + 1 < nx && (field[id + 1] > iso) != in) m |= 1;
          if (j + 1 < ny && (field[id + nx] > iso) != in) m |= 2;
          if (k + 1 < nz && (field[id + plane] > iso) != in) m |= 4;
          mask[id] = m;
          crossings += (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1);
        }
      plane_vertices[k + 1] = crossings;
    }
  });
  for (size_t k = 0; k < nz; ++k) plane_vertices[k + 1] += plane_vertices[k];
  if (plane_vertices[nz] == 0) return mesh;

  // Pass 3: one vertex per crossing edge, numbered plane by plane, row by
  // row, point by point, x before y before z edge; placed by linear
  // interpolation of the field along the edge.
  mesh.vertices.resize(3 * static_cast<size_t>(plane_vertices[nz]));
  tbb::parallel_for(tbb::blocked_range<size_t>(0, nz), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t k = r.begin(); k < r.end(); ++k) {
      float* out = mesh.vertices.data() + 3 * static_cast<size_t>(plane_vertices[k]);
      for (size_t j = 0; j < ny; ++j)
        for (size_t i = 0; i < nx; ++i) {
          const size_t id = k * plane + j * nx + i;
          for (int a = 0; a < 3; ++a) {
            if (!((mask[id] >> a) & 1)) continue;
            const size_t other = id + (a == 0 ? 1 : a == 1 ? nx : plane);
            const double f0 = field[id], f1 = field[other];
            const double t = (iso - f0) / (f1 - f0);
            const double p[3] = {static_cast<double>(i), static_cast<double>(j), static_cast<double>(k)};
            for (int c = 0; c < 3; ++c) *out++ = static_cast<float>(origin[c] + h * (p[c] + (c == a ? t : 0.0)));
          }
        }
    }
  });

  // Pass 4: triangles, by slabs of cell layers. Each slab numbers the edges
  // of the planes it touches the same way pass 3 did, then looks up each
  // cell's case.
  const CaseTable& table = case_table();
  const size_t layers = nz - 1, slab = 4, slabs = (layers + slab - 1) / slab;
  std::vector<std::vector<uint32_t>> slab_triangles(slabs);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, slabs), [&](const tbb::blocked_range<size_t>& r) {
    std::vector<uint32_t> ids[2] = {std::vector<uint32_t>(3 * plane), std::vector<uint32_t>(3 * plane)};
    auto number_plane = [&](size_t k, std::vector<uint32_t>& out) {
      uint32_t next = plane_vertices[k];
      for (size_t q = 0; q < plane; ++q)
        for (int a = 0; a < 3; ++a)
          if ((mask[k * plane + q] >> a) & 1) out[3 * q + a] = next++;
    };
    for (size_t s = r.begin(); s < r.end(); ++s) {
      std::vector<uint32_t>& tris = slab_triangles[s];
      const size_t k0 = s * slab, k1 = std::min(layers, k0 + slab);
      number_plane(k0, ids[0]);
      for (size_t k = k0; k < k1; ++k) {
        std::vector<uint32_t>& below = ids[(k - k0) & 1];
        std::vector<uint32_t>& above = ids[(k - k0 + 1) & 1];
        number_plane(k + 1, above);
        for (size_t j = 0; j + 1 < ny; ++j)
          for (size_t i = 0; i + 1 < nx; ++i) {
            const size_t id = k * plane + j * nx + i;
            const size_t corner[8] = {id,         id + 1,         id + nx,         id + nx + 1,
                                      id + plane, id + plane + 1, id + plane + nx, id + plane + nx + 1};
            int c = 0;
            for (int b = 0; b < 8; ++b) c |= (mask[corner[b]] & kInside) ? 1 << b : 0;
            if (c == 0 || c == 255) continue;
            for (const int8_t* e = table.triangles[c].data(); *e >= 0; ++e) {
              const int base = table.edge_base[*e];
              const size_t q = (j + ((base >> 1) & 1)) * nx + i + (base & 1);
              const std::vector<uint32_t>& layer = (base >> 2) & 1 ? above : below;
              tris.push_back(layer[3 * q + table.edge_axis[*e]]);
            }
          }
      }
    }
  });
  size_t total = 0;
  for (const auto& t : slab_triangles) total += t.size();
  mesh.triangles.reserve(total);
  for (const auto& t : slab_triangles) mesh.triangles.insert(mesh.triangles.end(), t.begin(), t.end());
  return mesh;
}

}  // namespace

double rest_lattice_field(float kernel_radius) {
  const double R = kernel_radius, R2 = R * R;
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

SurfaceMesh build_surface_mesh(const float* positions, size_t count, float spacing, const SurfaceMeshOptions& o) {
  if (!(spacing > 0.0f) || !(o.cell_size > 0.0f) || !(o.kernel_radius > 0.0f) || !(o.iso_fraction > 0.0f) ||
      !(o.iso_fraction < 1.0f) || o.padding < 1)
    throw std::invalid_argument("build_surface_mesh: spacing, cell size and kernel radius must be positive, "
                                "the iso fraction in (0, 1) and the padding at least 1");
  SurfaceMesh mesh;
  if (count == 0) return mesh;

  const double h = static_cast<double>(o.cell_size) * spacing;
  const double R = static_cast<double>(o.kernel_radius) * spacing, R2 = R * R;
  const float iso = static_cast<float>(o.iso_fraction * rest_lattice_field(o.kernel_radius));
  double lo[3], hi[3];
  for (int a = 0; a < 3; ++a) lo[a] = hi[a] = positions[a];
  for (size_t p = 1; p < count; ++p)
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], static_cast<double>(positions[3 * p + a]));
      hi[a] = std::max(hi[a], static_cast<double>(positions[3 * p + a]));
    }
  double origin[3];
  int n[3];
  for (int a = 0; a < 3; ++a) {
    origin[a] = lo[a] - R - o.padding * h;
    const double cells = std::ceil((hi[a] - lo[a] + 2.0 * (R + o.padding * h)) / h);
    if (!(cells < 1 << 20)) throw std::length_error("build_surface_mesh: the grid would exceed 2^31 points");
    n[a] = static_cast<int>(cells) + 1;
  }
  const size_t nx = n[0], ny = n[1], nz = n[2], plane = nx * ny;
  if (static_cast<double>(plane) * nz > 2147483647.0)
    throw std::length_error("build_surface_mesh: the grid would exceed 2^31 points; use a larger cell size");
  const size_t points = plane * nz;

  // Pass 1: splat. Particles are bucketed by the plane nearest to them; the
  // task owning planes [z0, z1) adds the part of each nearby particle's
  // support inside its planes, so no two tasks write the same point.
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
          const float* x = positions + 3 * order[b];
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

SurfaceMesh iso_surface(const float* values, const int dims[3], const float origin[3], float cell, float iso,
                        bool inside_above) {
  for (int a = 0; a < 3; ++a)
    if (dims[a] < 2) throw std::invalid_argument("iso_surface: every grid dimension must be at least 2");
  if (!(cell > 0.0f)) throw std::invalid_argument("iso_surface: the cell size must be positive");
  const size_t points = static_cast<size_t>(dims[0]) * dims[1] * dims[2];
  std::vector<float> field(values, values + points);
  if (!inside_above) {
    for (float& v : field) v = -v;
    iso = -iso;
  }
  const double o[3] = {origin[0], origin[1], origin[2]};
  return extract_iso_surface(field, dims, o, cell, iso);
}

void write_surface_ply(const std::string& path, const SurfaceMesh& mesh) {
  const size_t nv = mesh.vertex_count(), nt = mesh.triangle_count();
  std::string text = "ply\nformat binary_little_endian 1.0\ncomment pbf-sim liquid surface, metres\nelement vertex " +
                     std::to_string(nv) +
                     "\nproperty float x\nproperty float y\nproperty float z\nelement face " + std::to_string(nt) +
                     "\nproperty list uchar uint vertex_indices\nend_header\n";
  const size_t header = text.size();
  text.resize(header + 12 * nv + 13 * nt);
  unsigned char* out = reinterpret_cast<unsigned char*>(&text[header]);
  auto put32 = [&out](uint32_t bits) {
    for (int b = 0; b < 4; ++b) *out++ = static_cast<unsigned char>(bits >> (8 * b));
  };
  for (size_t i = 0; i < 3 * nv; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &mesh.vertices[i], 4);
    put32(bits);
  }
  for (size_t t = 0; t < nt; ++t) {
    *out++ = 3;
    for (int c = 0; c < 3; ++c) put32(mesh.triangles[3 * t + c]);
  }
  write_text_atomically(path, text);
}

}  // namespace pbf_sim
