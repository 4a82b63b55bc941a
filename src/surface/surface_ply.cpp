#include "surface/surface_ply.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/file_access.h"

namespace pbf {

namespace {

void put32(uint32_t bits, unsigned char*& out) {
  for (int b = 0; b < 4; ++b) *out++ = static_cast<unsigned char>(bits >> (8 * b));
}

void put_float(float v, unsigned char*& out) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  put32(bits, out);
}

}  // namespace

void write_surface_ply(const std::string& path, const SurfaceMesh& mesh) {
  const size_t nv = mesh.vertex_count(), nt = mesh.triangle_count();
  const std::string header =
      "ply\nformat binary_little_endian 1.0\ncomment written by pbf: a surface mesh\n"
      "comment x y z: position [m]; nx ny nz: unit normal, pointing outward\nelement vertex " +
      std::to_string(nv) +
      "\nproperty float x\nproperty float y\nproperty float z\n"
      "property float nx\nproperty float ny\nproperty float nz\nelement face " +
      std::to_string(nt) + "\nproperty list uchar uint vertex_indices\nend_header\n";
  std::vector<unsigned char> payload(24 * nv + 13 * nt);
  unsigned char* out = payload.data();
  for (size_t v = 0; v < nv; ++v) {
    for (int a = 0; a < 3; ++a) put_float(mesh.vertices[3 * v + a], out);
    for (int a = 0; a < 3; ++a) put_float(mesh.normals[3 * v + a], out);
  }
  for (size_t t = 0; t < nt; ++t) {
    *out++ = 3;
    for (int c = 0; c < 3; ++c) put32(mesh.triangles[3 * t + c], out);
  }
  save_atomically(path, {{header.data(), header.size()}, {payload.data(), payload.size()}});
}

}  // namespace pbf
