// vtp_writer.cpp - VTK XML PolyData with raw appended data, and .pvd files.
#include "vtp_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "atomic_file.h"

namespace pbf_sim {

namespace {

void store_le32(uint32_t bits, unsigned char* out) {
  for (int b = 0; b < 4; ++b) out[b] = static_cast<unsigned char>(bits >> (8 * b));
}

void store_le(float v, unsigned char* out) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  store_le32(bits, out);
}

void write_u64(AtomicFile& f, uint64_t v) {
  unsigned char b[8];
  for (int k = 0; k < 8; ++k) b[k] = static_cast<unsigned char>(v >> (8 * k));
  f.write(b, 8);
}

// Streams `count` records of `width` 32-bit little-endian values, each made
// by `make(i, out)`, in batches so that a million particles need no copy.
template <typename Make>
void write_block(AtomicFile& f, size_t count, size_t width, Make make) {
  write_u64(f, static_cast<uint64_t>(count) * width * 4);
  constexpr size_t kBatch = 4096;
  std::vector<unsigned char> buffer(kBatch * width * 4);
  for (size_t first = 0; first < count; first += kBatch) {
    const size_t n = std::min(kBatch, count - first);
    for (size_t k = 0; k < n; ++k) make(first + k, buffer.data() + k * width * 4);
    f.write(buffer.data(), n * width * 4);
  }
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

void write_vtp(const std::string& path, size_t count, const float* positions, const float* velocities,
               const float* densities) {
  if (count > 0x7fffffffu) throw std::runtime_error("cannot write '" + path + "': too many particles for Int32 cells");
  // Appended blocks in file order: a UInt64 byte count, then the data.
  const uint64_t vec = 8 + 12 * static_cast<uint64_t>(count);
  const uint64_t scalar = 8 + 4 * static_cast<uint64_t>(count);
  const uint64_t off_points = 0;
  const uint64_t off_velocity = off_points + vec;
  const uint64_t off_speed = off_velocity + vec;
  const uint64_t off_density = off_speed + scalar;
  const uint64_t off_connectivity = off_density + scalar;
  const uint64_t off_offsets = off_connectivity + scalar;
  const std::string n = std::to_string(count);
  auto array = [](const char* type, const char* name, int components, uint64_t offset) {
    return std::string("        <DataArray type=\"") + type + "\" Name=\"" + name + "\"" +
           (components > 1 ? " NumberOfComponents=\"" + std::to_string(components) + "\"" : std::string()) +
           " format=\"appended\" offset=\"" + std::to_string(offset) + "\"/>\n";
  };
  const std::string header =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      "  <PolyData>\n"
      "    <Piece NumberOfPoints=\"" + n + "\" NumberOfVerts=\"" + n +
      "\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
      "      <PointData Scalars=\"density\" Vectors=\"velocity\">\n" +
      array("Float32", "velocity", 3, off_velocity) + array("Float32", "speed", 1, off_speed) +
      array("Float32", "density", 1, off_density) +
      "      </PointData>\n"
      "      <Points>\n" +
      array("Float32", "Points", 3, off_points) +
      "      </Points>\n"
      "      <Verts>\n" +
      array("Int32", "connectivity", 1, off_connectivity) + array("Int32", "offsets", 1, off_offsets) +
      "      </Verts>\n"
      "    </Piece>\n"
      "  </PolyData>\n"
      "  <AppendedData encoding=\"raw\">\n"
      "   _";
  AtomicFile f(path);
  f.write(header);
  write_block(f, count, 3, [&](size_t i, unsigned char* out) {
    for (int a = 0; a < 3; ++a) store_le(positions[3 * i + a], out + 4 * a);
  });
  write_block(f, count, 3, [&](size_t i, unsigned char* out) {
    for (int a = 0; a < 3; ++a) store_le(velocities[3 * i + a], out + 4 * a);
  });
  write_block(f, count, 1, [&](size_t i, unsigned char* out) {
    const float* v = velocities + 3 * i;
    store_le(std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), out);
  });
  write_block(f, count, 1, [&](size_t i, unsigned char* out) { store_le(densities[i], out); });
  // One vertex cell per particle: connectivity i, offsets i + 1 (end of each cell).
  write_block(f, count, 1, [](size_t i, unsigned char* out) { store_le32(static_cast<uint32_t>(i), out); });
  write_block(f, count, 1, [](size_t i, unsigned char* out) { store_le32(static_cast<uint32_t>(i + 1), out); });
  f.write("\n  </AppendedData>\n</VTKFile>\n");
  f.commit();
}

void write_surface_vtp(const std::string& path, const SurfaceMesh& mesh) {
  const size_t nv = mesh.vertex_count(), nt = mesh.triangle_count();
  if (nv > 0x7fffffffu || 3 * nt > 0x7fffffffu)
    throw std::runtime_error("cannot write '" + path + "': too large a mesh for Int32 cells");
  const uint64_t vec = 8 + 12 * static_cast<uint64_t>(nv);
  const uint64_t off_points = 0;
  const uint64_t off_normals = off_points + vec;
  const uint64_t off_connectivity = off_normals + vec;
  const uint64_t off_offsets = off_connectivity + 8 + 12 * static_cast<uint64_t>(nt);
  auto array = [](const char* type, const char* name, int components, uint64_t offset) {
    return std::string("        <DataArray type=\"") + type + "\" Name=\"" + name + "\"" +
           (components > 1 ? " NumberOfComponents=\"" + std::to_string(components) + "\"" : std::string()) +
           " format=\"appended\" offset=\"" + std::to_string(offset) + "\"/>\n";
  };
  const std::string header =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      "  <PolyData>\n"
      "    <Piece NumberOfPoints=\"" + std::to_string(nv) +
      "\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"" + std::to_string(nt) +
      "\">\n"
      "      <PointData Normals=\"Normals\">\n" +
      array("Float32", "Normals", 3, off_normals) +
      "      </PointData>\n"
      "      <Points>\n" +
      array("Float32", "Points", 3, off_points) +
      "      </Points>\n"
      "      <Polys>\n" +
      array("Int32", "connectivity", 1, off_connectivity) + array("Int32", "offsets", 1, off_offsets) +
      "      </Polys>\n"
      "    </Piece>\n"
      "  </PolyData>\n"
      "  <AppendedData encoding=\"raw\">\n"
      "   _";
  AtomicFile f(path);
  f.write(header);
  write_block(f, nv, 3, [&](size_t i, unsigned char* out) {
    for (int a = 0; a < 3; ++a) store_le(mesh.vertices[3 * i + a], out + 4 * a);
  });
  write_block(f, nv, 3, [&](size_t i, unsigned char* out) {
    for (int a = 0; a < 3; ++a) store_le(mesh.normals[3 * i + a], out + 4 * a);
  });
  write_block(f, nt, 3, [&](size_t t, unsigned char* out) {
    for (int c = 0; c < 3; ++c) store_le32(mesh.triangles[3 * t + c], out + 4 * c);
  });
  // Offsets: the end of each triangle's three indices.
  write_block(f, nt, 1, [](size_t t, unsigned char* out) { store_le32(static_cast<uint32_t>(3 * (t + 1)), out); });
  f.write("\n  </AppendedData>\n</VTKFile>\n");
  f.commit();
}

void write_pvd(const std::string& path, const std::vector<PvdEntry>& entries) {
  std::string text =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n";
  char time[32];
  for (const PvdEntry& e : entries) {
    std::snprintf(time, sizeof time, "%.9g", e.time);
    text += std::string("    <DataSet timestep=\"") + time + "\" group=\"\" part=\"" + std::to_string(e.part) +
            "\" file=\"" + xml_escape(e.file) + "\"/>\n";
  }
  text += "  </Collection>\n</VTKFile>\n";
  write_text_atomically(path, text);
}

}  // namespace pbf_sim
