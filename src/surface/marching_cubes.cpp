// marching_cubes.cpp - marching cubes (Lorensen & Cline 1987, "Marching Cubes: A
// High Resolution 3D Surface Construction Algorithm", SIGGRAPH '87) in three
// passes parallel over z-planes with oneTBB: classify grid edges, place
// vertices and their normals, emit triangles.
#include "surface/marching_cubes.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "core/error.h"

namespace pbf {

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

// Mask bits per grid point: the field is above the iso-level (inside), and
// which of the three edges leaving the point along +x, +y, +z cross it.
constexpr uint8_t kInside = 8;

}  // namespace

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
  // interpolation of the field along the edge, its normal by the same
  // interpolation of the gradient at the edge's two ends.
  const size_t vertex_count = plane_vertices[nz];
  mesh.vertices.resize(3 * vertex_count);
  mesh.normals.resize(3 * vertex_count);
  const size_t step[3] = {1, nx, plane};
  const size_t extent[3] = {nx, ny, nz};
  // The field's gradient at a point: central differences, one-sided on the grid's faces.
  auto gradient = [&](size_t id, const size_t p[3], double g[3]) {
    for (int a = 0; a < 3; ++a) {
      const bool low = p[a] > 0, high = p[a] + 1 < extent[a];
      const double f_lo = low ? field[id - step[a]] : field[id];
      const double f_hi = high ? field[id + step[a]] : field[id];
      g[a] = (f_hi - f_lo) / ((low && high ? 2.0 : 1.0) * h);
    }
  };
  tbb::parallel_for(tbb::blocked_range<size_t>(0, nz), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t k = r.begin(); k < r.end(); ++k) {
      const size_t first = 3 * static_cast<size_t>(plane_vertices[k]);
      float* out = mesh.vertices.data() + first;
      float* out_normal = mesh.normals.data() + first;
      for (size_t j = 0; j < ny; ++j)
        for (size_t i = 0; i < nx; ++i) {
          const size_t id = k * plane + j * nx + i;
          const size_t p[3] = {i, j, k};
          for (int a = 0; a < 3; ++a) {
            if (!((mask[id] >> a) & 1)) continue;
            const size_t other = id + step[a];
            const double f0 = field[id], f1 = field[other];
            const double t = (iso - f0) / (f1 - f0);
            for (int c = 0; c < 3; ++c)
              *out++ = static_cast<float>(origin[c] + h * (static_cast<double>(p[c]) + (c == a ? t : 0.0)));
            size_t q[3] = {i, j, k};
            ++q[a];
            double g0[3], g1[3], nrm[3], len2 = 0.0;
            gradient(id, p, g0);
            gradient(other, q, g1);
            for (int c = 0; c < 3; ++c) {
              nrm[c] = -((1.0 - t) * g0[c] + t * g1[c]);  // the field falls going out of the inside
              len2 += nrm[c] * nrm[c];
            }
            if (len2 > 0.0 && std::isfinite(len2)) {
              const double inv = 1.0 / std::sqrt(len2);
              for (int c = 0; c < 3; ++c) *out_normal++ = static_cast<float>(nrm[c] * inv);
            } else {  // a flat field between the ends: the edge itself, from its inside end out
              for (int c = 0; c < 3; ++c) *out_normal++ = c != a ? 0.0f : f0 > iso ? 1.0f : -1.0f;
            }
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


SurfaceMesh grid_iso_surface(const float* values, const int dims[3], const float origin[3], float cell, float iso,
                             bool inside_above) {
  for (int a = 0; a < 3; ++a)
    if (dims[a] < 2)
      throw Error(Status::InvalidArgument, "dims[" + std::to_string(a) + "] must be at least 2, got " +
                                               std::to_string(dims[a]));
  if (!(cell > 0.0f)) throw Error(Status::InvalidArgument, "cell must be > 0");
  const size_t points = static_cast<size_t>(dims[0]) * dims[1] * dims[2];
  std::vector<float> field(values, values + points);
  if (!inside_above) {
    for (float& v : field) v = -v;
    iso = -iso;
  }
  const double o[3] = {origin[0], origin[1], origin[2]};
  return extract_iso_surface(field, dims, o, cell, iso);
}

}  // namespace pbf
