#include "io/ply_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
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

// x y z vx vy vz density as float, red green blue as uchar; no other element.
std::string ply_header(size_t n, float speed_scale) {
  char scale[96];
  std::snprintf(scale, sizeof scale, "comment red green blue: speed, 0 (deep blue) to %.4g m/s and above (white)\n",
                static_cast<double>(speed_scale));
  return "ply\nformat binary_little_endian 1.0\ncomment written by pbf\n"
         "comment x y z: position [m]; vx vy vz: velocity [m/s]; density: [kg/m^3]\n" +
         std::string(scale) + "element vertex " + std::to_string(n) +
         "\nproperty float x\nproperty float y\nproperty float z\n"
         "property float vx\nproperty float vy\nproperty float vz\nproperty float density\n"
         "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n";
}

}  // namespace

float ply_speed_scale(const float gravity[3], const float domain_min[3], const float domain_max[3]) {
  double fall = 0.0;
  for (int a = 0; a < 3; ++a)
    fall += std::fabs(static_cast<double>(gravity[a])) * (static_cast<double>(domain_max[a]) - domain_min[a]);
  const double top = std::sqrt(std::max(fall, 0.0) * 2.0);
  return static_cast<float>(std::isfinite(top) ? std::max(top, 0.1) : 0.1);
}

void ply_speed_colour(float t, unsigned char rgb[3]) {
  static const float stops[5][3] = {
      {0.04f, 0.16f, 0.50f}, {0.07f, 0.38f, 0.80f}, {0.18f, 0.66f, 0.92f}, {0.60f, 0.88f, 0.97f}, {0.98f, 0.99f, 1.0f}};
  t = std::isfinite(t) ? std::clamp(t, 0.0f, 1.0f) : 0.0f;
  const float x = t * 4.0f;
  const int i = std::min(static_cast<int>(x), 3);
  const float w = x - static_cast<float>(i);
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<unsigned char>(std::lround(255.0f * ((1.0f - w) * stops[i][c] + w * stops[i + 1][c])));
}

void write_ply(const std::string& path, size_t n, const float* positions, const float* velocities,
               const float* densities, float speed_scale) {
  const std::string header = ply_header(n, speed_scale);
  constexpr size_t kRecord = 7 * 4 + 3;
  const float inv_scale = speed_scale > 0.0f ? 1.0f / speed_scale : 0.0f;
  std::vector<unsigned char> records(n * kRecord);
  for (size_t i = 0; i < n; ++i) {
    unsigned char* rec = records.data() + i * kRecord;
    const float* v = velocities + 3 * i;
    for (int a = 0; a < 3; ++a) store_le(positions[3 * i + a], rec + 4 * a);
    for (int a = 0; a < 3; ++a) store_le(v[a], rec + 12 + 4 * a);
    store_le(densities[i], rec + 24);
    ply_speed_colour(std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * inv_scale, rec + 28);
  }
  // A unique temporary name, flushed, renamed onto a regular file only.
  save_atomically(path, {{header.data(), header.size()}, {records.data(), records.size()}});
}

}  // namespace pbf
