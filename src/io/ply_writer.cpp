#include "io/ply_writer.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <vector>

#include "core/error.h"

namespace pbf {

namespace {

void store_le(float v, unsigned char* out) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  for (int b = 0; b < 4; ++b) out[b] = static_cast<unsigned char>(bits >> (8 * b));
}

[[noreturn]] void fail(const std::string& path, const char* what) {
  throw Error(Status::Io, "path: cannot " + std::string(what) + " '" + path + "': " + std::strerror(errno));
}

}  // namespace

void write_ply(const std::string& path, size_t n, const float* positions, const float* velocities,
               const float* densities) {
  const std::string temp = path + ".partial";
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) fail(temp, "create");
  std::string header =
      "ply\nformat binary_little_endian 1.0\ncomment written by pbf\nelement vertex " + std::to_string(n) +
      "\nproperty float x\nproperty float y\nproperty float z\n"
      "property float vx\nproperty float vy\nproperty float vz\nproperty float density\nend_header\n";
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  constexpr size_t kRecord = 7 * 4;
  constexpr size_t kBatch = 4096;
  std::vector<unsigned char> buffer(kBatch * kRecord);
  for (size_t first = 0; ok && first < n; first += kBatch) {
    const size_t count = std::min(kBatch, n - first);
    for (size_t k = 0; k < count; ++k) {
      const size_t i = first + k;
      unsigned char* rec = buffer.data() + k * kRecord;
      for (int a = 0; a < 3; ++a) store_le(positions[3 * i + a], rec + 4 * a);
      for (int a = 0; a < 3; ++a) store_le(velocities[3 * i + a], rec + 12 + 4 * a);
      store_le(densities[i], rec + 24);
    }
    ok = std::fwrite(buffer.data(), 1, count * kRecord, f) == count * kRecord;
  }
  if (std::fclose(f) != 0) ok = false;
  if (!ok) {
    const int saved = errno;
    std::remove(temp.c_str());
    errno = saved;
    fail(temp, "write");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    std::remove(temp.c_str());
    errno = saved;
    fail(path, "rename onto");
  }
}

}  // namespace pbf
