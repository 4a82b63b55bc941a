// neighbor_lists.h - how the equations reach a particle's neighbours. The
// equations (solver/*/..._equations.h) read neighbours only through these
// members, so that a backend may change how it stores them (compact offsets,
// cell ranges instead of lists) by changing this one struct. Today: a
// particle-major list per particle, the neighbours of i at
// index[i * stride + 0 .. count[i] - 1] in ascending order, self excluded.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"

namespace pbf {

struct NeighborLists {
  const uint32_t* index;
  const uint32_t* count;
  uint32_t stride;

  // The number of neighbours of i.
  PBF_HD uint32_t size(uint32_t i) const { return count[i]; }

  // f(j) for every neighbour j of i, in ascending order of j.
  template <class F>
  PBF_HD void for_each(uint32_t i, F&& f) const {
    const uint32_t* list = index + static_cast<size_t>(i) * stride;
    for (uint32_t k = 0, n = count[i]; k < n; ++k) f(list[k]);
  }

  // f(k, j) for the k-th neighbour j of i: for data kept per neighbour slot
  // (Projective Fluids' displacements of a constraint's members).
  template <class F>
  PBF_HD void for_each_slot(uint32_t i, F&& f) const {
    const uint32_t* list = index + static_cast<size_t>(i) * stride;
    for (uint32_t k = 0, n = count[i]; k < n; ++k) f(k, list[k]);
  }

  // Where data kept per neighbour slot (i, k) lives in an array of
  // slot_capacity(n) entries for n particles.
  PBF_HD size_t slot_index(uint32_t i, uint32_t k) const { return static_cast<size_t>(i) * stride + k; }
  PBF_HD size_t slot_capacity(size_t particles) const { return particles * stride; }

  // The k-th neighbour of i, k < size(i).
  PBF_HD uint32_t at(uint32_t i, uint32_t k) const { return index[static_cast<size_t>(i) * stride + k]; }

  // The slot of l among the neighbours of i, or UINT32_MAX when i's list
  // does not hold it (it overflowed).
  PBF_HD uint32_t slot_of(uint32_t i, uint32_t l) const {
    const uint32_t* list = index + static_cast<size_t>(i) * stride;
    uint32_t lo = 0, hi = count[i];
    while (lo < hi) {
      const uint32_t mid = (lo + hi) / 2;
      if (list[mid] < l) lo = mid + 1;
      else hi = mid;
    }
    return (lo < count[i] && list[lo] == l) ? lo : 0xFFFFFFFFu;
  }
};

}  // namespace pbf
