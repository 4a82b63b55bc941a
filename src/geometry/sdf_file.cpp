#include "geometry/sdf_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "core/file_access.h"
#include "core/hash.h"

namespace pbf {

namespace {

constexpr char kMagic[8] = {'P', 'B', 'F', 'S', 'D', 'F', '\0', '\n'};
constexpr size_t kHeaderBytes = 8 + 4 + 3 * 4 + 3 * 4 + 4;

void put_u32(std::vector<unsigned char>& out, uint32_t v) {
  for (int b = 0; b < 4; ++b) out.push_back(static_cast<unsigned char>(v >> (8 * b)));
}
void put_f32(std::vector<unsigned char>& out, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  put_u32(out, bits);
}
uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int b = 0; b < 4; ++b) v |= static_cast<uint32_t>(p[b]) << (8 * b);
  return v;
}
float get_f32(const unsigned char* p) {
  const uint32_t bits = get_u32(p);
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

[[noreturn]] void io_error(const std::string& path, const std::string& reason) {
  throw Error(Status::Io, "path: '" + path + "': " + reason);
}

}  // namespace

void save_sdf(const std::string& path, const SignedDistanceField& field) {
  std::vector<unsigned char> bytes(kMagic, kMagic + 8);
  bytes.reserve(kHeaderBytes + 4 * field.values.size() + 8);
  put_u32(bytes, kSdfFileVersion);
  put_u32(bytes, uint32_t(field.nx));
  put_u32(bytes, uint32_t(field.ny));
  put_u32(bytes, uint32_t(field.nz));
  put_f32(bytes, field.origin.x);
  put_f32(bytes, field.origin.y);
  put_f32(bytes, field.origin.z);
  put_f32(bytes, field.cell);
  for (float v : field.values) put_f32(bytes, v);
  const uint64_t hash = fnv1a(bytes.data(), bytes.size());
  for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<unsigned char>(hash >> (8 * b)));

  save_atomically(path, {{bytes.data(), bytes.size()}});
}

SignedDistanceField load_sdf(const std::string& path) {
  InputFile file(path);
  // The header first, then only as many values as it announces and the file holds.
  std::vector<unsigned char> bytes(kHeaderBytes);
  const size_t got = size_t(std::min<uint64_t>(file.size(), kHeaderBytes));
  file.read(bytes.data(), got);
  if (got < 8 || std::memcmp(bytes.data(), kMagic, 8) != 0) io_error(path, "not a pbf signed distance field file");
  if (got < kHeaderBytes) io_error(path, "truncated: the header is incomplete");
  const unsigned char* header = bytes.data();
  const uint32_t version = get_u32(header + 8);
  if (version != kSdfFileVersion)
    io_error(path, "format version " + std::to_string(version) + "; this library reads version " +
                       std::to_string(kSdfFileVersion));
  SignedDistanceField field;
  const uint32_t dims[3] = {get_u32(header + 12), get_u32(header + 16), get_u32(header + 20)};
  uint64_t samples = 1;
  for (int a = 0; a < 3; ++a) {
    if (dims[a] < 2 || dims[a] > uint32_t(kMaxSdfDim))
      io_error(path, "corrupt: dimension " + std::to_string(a) + " is " + std::to_string(dims[a]) +
                         ", not 2 .. " + std::to_string(kMaxSdfDim));
    samples *= dims[a];
  }
  if (samples > kMaxSdfSamples)
    io_error(path, "corrupt: " + std::to_string(samples) + " samples, more than " + std::to_string(kMaxSdfSamples));
  field.nx = int32_t(dims[0]);
  field.ny = int32_t(dims[1]);
  field.nz = int32_t(dims[2]);
  field.origin = Vec3{get_f32(header + 24), get_f32(header + 28), get_f32(header + 32)};
  field.cell = get_f32(header + 36);

  // The rest: the values and the hash, and nothing after them.
  const uint64_t whole = kHeaderBytes + samples * 4 + 8;
  if (file.size() < whole)
    io_error(path, "truncated: " + std::to_string(file.size()) + " bytes where the header announces " +
                       std::to_string(whole));
  if (file.size() > whole) io_error(path, "corrupt: bytes follow the end of the field");
  bytes.resize(size_t(whole));
  file.read(bytes.data() + kHeaderBytes, size_t(whole) - kHeaderBytes);
  const size_t payload = kHeaderBytes + size_t(samples) * 4;
  uint64_t stored = 0;
  for (int b = 0; b < 8; ++b) stored |= uint64_t(bytes[payload + b]) << (8 * b);
  if (fnv1a(bytes.data(), payload) != stored) io_error(path, "corrupt: its checksum does not match its contents");

  if (!is_finite(field.origin)) io_error(path, "corrupt: the origin is not finite");
  // A normal float whose inverse is finite: sampling divides by it.
  if (!(std::isnormal(field.cell) && field.cell > 0.0f && std::isfinite(1.0f / field.cell)))
    io_error(path, "corrupt: the cell is " + std::to_string(field.cell) + ", not a normal size > 0");
  if (!(field.cell >= kMinSdfCell && field.cell <= kMaxSdfCell))
    io_error(path, "corrupt: the cell is " + std::to_string(field.cell) + " m, not " + std::to_string(kMinSdfCell) +
                       " .. " + std::to_string(kMaxSdfCell) + " m as the fields this library makes");
  if (!is_finite(field.origin + Vec3{float(dims[0] - 1), float(dims[1] - 1), float(dims[2] - 1)} * field.cell))
    io_error(path, "corrupt: the grid reaches beyond float range");
  const double o[3] = {field.origin.x, field.origin.y, field.origin.z};
  for (int a = 0; a < 3; ++a)
    if (!(std::max(std::fabs(o[a]), std::fabs(o[a] + double(dims[a] - 1) * field.cell)) <=
          kMaxSdfCellsFromOrigin * field.cell))
      io_error(path, "corrupt: the grid reaches more than 2^20 cells from the origin along axis " + std::to_string(a));
  const double bound = sdf_distance_bound(dims, field.cell);
  field.values.resize(size_t(samples));
  for (size_t i = 0; i < field.values.size(); ++i) {
    field.values[i] = get_f32(bytes.data() + kHeaderBytes + 4 * i);
    if (!std::isfinite(field.values[i])) io_error(path, "corrupt: value " + std::to_string(i) + " is not finite");
    if (std::fabs(double(field.values[i])) > bound)
      io_error(path, "corrupt: value " + std::to_string(i) + " is " + std::to_string(field.values[i]) +
                         " m, farther than the grid's diagonal (" + std::to_string(bound) + " m) allows");
  }
  return field;
}

}  // namespace pbf
