#include "io/ply_writer.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/file_access.h"

namespace pbf {

namespace {

void store_le(float v, unsigned char* out) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  for (int b = 0; b < 4; ++b) out[b] = static_cast<unsigned char>(bits >> (8 * b));
}

// x y z vx vy vz density, all float, and no other element.
std::string ply_header(size_t n) {
  return "ply\nformat binary_little_endian 1.0\ncomment written by pbf\n"
         "comment x y z: position [m]; vx vy vz: velocity [m/s]; density: [kg/m^3]\n"
         "element vertex " + std::to_string(n) +
         "\nproperty float x\nproperty float y\nproperty float z\n"
         "property float vx\nproperty float vy\nproperty float vz\nproperty float density\nend_header\n";
}

}  // namespace

void write_ply(const std::string& path, size_t n, const float* positions, const float* velocities,
               const float* densities) {
  const std::string header = ply_header(n);
  constexpr size_t kRecord = 7 * 4;
  std::vector<unsigned char> records(n * kRecord);
  for (size_t i = 0; i < n; ++i) {
    unsigned char* rec = records.data() + i * kRecord;
    for (int a = 0; a < 3; ++a) store_le(positions[3 * i + a], rec + 4 * a);
    for (int a = 0; a < 3; ++a) store_le(velocities[3 * i + a], rec + 12 + 4 * a);
    store_le(densities[i], rec + 24);
  }
  // A unique temporary name, flushed, renamed onto a regular file only.
  save_atomically(path, {{header.data(), header.size()}, {records.data(), records.size()}});
}

}  // namespace pbf
