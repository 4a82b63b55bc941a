// lane_vector.h - the arrays the CPU backend's lanes read points from: a
// std::vector whose storage runs kLaneVectorTail bytes past its last element,
// so that a point of three floats may be read as one vector of four
// (load_point(), backend/cpu/lanes.h) wherever it lies, the last one
// included. The tail is never written; the float read from it lands in a
// lane that is dropped.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

#include "core/hd.h"
#include "core/point_value.h"  // PointValue: the lanes read one with one load (gather(), backend/cpu/lanes.h)

namespace pbf {

constexpr size_t kLaneVectorTail = 16;

// An allocator whose blocks are kLaneVectorTail bytes longer than the
// elements they hold.
template <class T>
struct LaneVectorAllocator {
  using value_type = T;

  LaneVectorAllocator() = default;
  template <class U>
  LaneVectorAllocator(const LaneVectorAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  T* allocate(size_t n) {
    if (n > (static_cast<size_t>(-1) - kLaneVectorTail) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(::operator new(n * sizeof(T) + kLaneVectorTail));
  }
  void deallocate(T* p, size_t) noexcept { ::operator delete(p); }

  template <class U>
  bool operator==(const LaneVectorAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const LaneVectorAllocator<U>&) const noexcept {
    return false;
  }
};

template <class T>
using LaneVector = std::vector<T, LaneVectorAllocator<T>>;

}  // namespace pbf
