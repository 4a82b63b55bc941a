// hash.h - the checksum of the library's files (checkpoints, signed
// distance fields): 64-bit FNV-1a over their bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pbf {

inline uint64_t fnv1a(const unsigned char* data, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= data[i];
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace pbf
