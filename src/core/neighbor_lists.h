// neighbor_lists.h - how the equations reach a particle's neighbours. The
// equations (methods/*/..._equations.h) read neighbours only through these
// members, so that a backend may change how it stores them by changing this
// one struct. The neighbours of i, in ascending order and self excluded, are
// the first count[i] of its stride slots; slot k < head of particle i lies at
// index[i * particle_step + k * slot_step]. Three layouts:
//   particle_major: one row of stride slots per particle (particle_step =
//     stride, slot_step = 1, head = stride);
//   particle_major_split: one row of the first `head` slots per particle,
//     then, after every particle's head row, one row of the other stride -
//     head slots per particle (slot k >= head of particle i at index[tail +
//     i * (stride - head) + k - head]): a CPU thread walks its own rows
//     through the cache, and a pass over every particle streams the slots
//     that most lists fill, not the room kept for compressed water;
//   slot_major: one row of every particle's k-th slot per k (particle_step =
//     1, slot_step = the particles the buffer holds, head = stride): the 32
//     threads of a GPU warp, on 32 consecutive particles, read 32
//     consecutive words together.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"

namespace pbf {

struct NeighborLists {
  const uint32_t* index;
  const uint32_t* count;
  uint32_t stride;       // slots per particle: the most neighbours a list holds
  size_t particle_step;  // from slot k of particle i to slot k of particle i + 1 (k < head)
  size_t slot_step;      // from slot k of particle i to slot k + 1 of particle i (k + 1 < head)
  uint32_t head;         // the slots in the first row of each particle: stride but where split
  size_t tail;           // where the rows of the slots past head begin (split lists only)

  // Every member named: a list of fewer values does not compile.
  PBF_HD NeighborLists(const uint32_t* index_, const uint32_t* count_, uint32_t stride_, size_t particle_step_,
                       size_t slot_step_, uint32_t head_, size_t tail_)
      : index(index_),
        count(count_),
        stride(stride_),
        particle_step(particle_step_),
        slot_step(slot_step_),
        head(head_),
        tail(tail_) {}

  // Lists of `stride` slots, each particle's slots contiguous.
  static PBF_HD NeighborLists particle_major(const uint32_t* index, const uint32_t* count, uint32_t stride) {
    return NeighborLists{index, count, stride, stride, 1, stride, 0};
  }
  // Lists of `stride` slots for `particles` particles, the first `head`
  // (at most stride) of each particle contiguous, then the rest of each
  // particle's contiguous: index holds stride * particles entries.
  static PBF_HD NeighborLists particle_major_split(const uint32_t* index, const uint32_t* count, uint32_t stride,
                                                   uint32_t head, size_t particles) {
    return NeighborLists{index, count, stride, head, 1, head, particles * head};
  }
  // Lists of `stride` slots for up to `particles` particles, each slot's
  // particles contiguous: index holds stride * particles entries.
  static PBF_HD NeighborLists slot_major(const uint32_t* index, const uint32_t* count, uint32_t stride,
                                         size_t particles) {
    return NeighborLists{index, count, stride, 1, particles, stride, 0};
  }

  // The number of neighbours of i.
  PBF_HD uint32_t size(uint32_t i) const { return count[i]; }

  // The first slot of i's head row and of its row of slots past head.
  PBF_HD const uint32_t* head_row(uint32_t i) const { return index + i * particle_step; }
  PBF_HD const uint32_t* tail_row(uint32_t i) const {
    return index + tail + static_cast<size_t>(i) * (stride - head);
  }

  // f(j) for every neighbour j of i, in ascending order of j.
  template <class F>
  PBF_HD void for_each(uint32_t i, F&& f) const {
    for_each_slot(i, [&](uint32_t, uint32_t j) { f(j); });
  }

  // f(k, j) for the k-th neighbour j of i: for data kept per neighbour slot
  // (Projective Fluids' displacements of a constraint's members).
  template <class F>
  PBF_HD void for_each_slot(uint32_t i, F&& f) const {
    const uint32_t n = count[i], in_head = n < head ? n : head;
    const uint32_t* slot = head_row(i);
    uint32_t k = 0;
    for (; k < in_head; ++k, slot += slot_step) f(k, *slot);
    for (slot = tail_row(i); k < n; ++k, ++slot) f(k, *slot);
  }

  // Where data kept per neighbour slot (i, k) lives, in the lists' own
  // layout, in an array of slot_capacity(n) entries for the n particles the
  // lists were made for.
  PBF_HD size_t slot_index(uint32_t i, uint32_t k) const {
    return k < head ? i * particle_step + k * slot_step : tail + static_cast<size_t>(i) * (stride - head) + (k - head);
  }
  PBF_HD size_t slot_capacity(size_t particles) const {
    if (particles == 0 || stride == 0) return 0;
    if (head < stride) return tail + particles * (stride - head);
    return (particles - 1) * particle_step + (stride - 1) * slot_step + 1;
  }

  // The k-th neighbour of i, k < size(i).
  PBF_HD uint32_t at(uint32_t i, uint32_t k) const { return index[slot_index(i, k)]; }

  // The slot of l among the neighbours of i, or UINT32_MAX when i's list
  // does not hold it (it overflowed).
  PBF_HD uint32_t slot_of(uint32_t i, uint32_t l) const {
    uint32_t lo = 0, hi = count[i];
    while (lo < hi) {
      const uint32_t mid = (lo + hi) / 2;
      if (at(i, mid) < l) lo = mid + 1;
      else hi = mid;
    }
    return (lo < count[i] && at(i, lo) == l) ? lo : 0xFFFFFFFFu;
  }
};

}  // namespace pbf
