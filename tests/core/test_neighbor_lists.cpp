// Unit tests of the neighbour lists' layouts (core/neighbor_lists.h) and of
// the one neighbour scan that fills them (core/neighbor_scan.h): particle-
// major lists, the CPU backend's split ones and the CUDA backend's slot-major
// lists must hold the same neighbours, in the same order, and give the
// equations the same answers bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "core/grid_spec.h"
#include "core/neighbor_lists.h"
#include "core/neighbor_scan.h"

namespace {

using pbf::GridSpec;
using pbf::NeighborLists;
using pbf::Vec3;

constexpr float kCell = 0.1f;

GridSpec make_grid() {
  GridSpec g{};
  g.origin = Vec3{0.0f, 0.0f, 0.0f};
  g.inv_cell = 1.0f / kCell;
  g.dim[0] = 6;
  g.dim[1] = 5;
  g.dim[2] = 4;
  return g;
}

// A random cloud in the grid, sorted by cell, with where each cell starts.
struct SortedCloud {
  std::vector<Vec3> x;
  std::vector<uint32_t> start;
};

SortedCloud make_cloud(const GridSpec& g, uint32_t seed, size_t n) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<Vec3> x(n);
  for (Vec3& p : x) p = Vec3{u(rng) * g.dim[0] * kCell, u(rng) * g.dim[1] * kCell, u(rng) * g.dim[2] * kCell};
  std::stable_sort(x.begin(), x.end(), [&](Vec3 a, Vec3 b) { return g.cell_index(a) < g.cell_index(b); });
  const uint32_t cells = static_cast<uint32_t>(g.dim[0] * g.dim[1] * g.dim[2]);
  SortedCloud c{x, std::vector<uint32_t>(cells + 1, 0u)};
  for (const Vec3& p : x) ++c.start[g.cell_index(p) + 1];
  std::partial_sum(c.start.begin(), c.start.end(), c.start.begin());
  return c;
}

// Every particle's neighbours, scanned into one layout: list_step 1 and
// stride per particle (particle-major) or list_step n (slot-major).
struct Filled {
  std::vector<uint32_t> index, count;
  uint32_t overflows = 0;
};

Filled fill(const GridSpec& g, const SortedCloud& c, float radius, uint32_t stride, bool slot_major) {
  const size_t n = c.x.size();
  Filled f{std::vector<uint32_t>(n * stride, 0xDEADBEEFu), std::vector<uint32_t>(n, 0u), 0u};
  for (uint32_t i = 0; i < n; ++i) {
    bool overflow = false;
    uint32_t* list = slot_major ? f.index.data() + i : f.index.data() + static_cast<size_t>(i) * stride;
    f.count[i] = pbf::scan_neighbors(g, c.start.data(), c.x.data(), i, radius, stride, list,
                                     slot_major ? n : 1, &overflow);
    f.overflows += overflow ? 1u : 0u;
  }
  return f;
}

NeighborLists view(const Filled& f, uint32_t stride, bool slot_major) {
  return slot_major ? NeighborLists::slot_major(f.index.data(), f.count.data(), stride, f.count.size())
                    : NeighborLists::particle_major(f.index.data(), f.count.data(), stride);
}

std::vector<uint32_t> neighbours_of(const NeighborLists& nb, uint32_t i) {
  std::vector<uint32_t> out;
  nb.for_each(i, [&](uint32_t j) { out.push_back(j); });
  return out;
}

TEST(NeighborLists, BothLayoutsHoldTheBruteForceNeighboursInAscendingOrder) {
  const GridSpec g = make_grid();
  for (uint32_t seed : {1u, 2u}) {
    const SortedCloud c = make_cloud(g, seed, 1500);
    const float radius = kCell;
    const uint32_t stride = 200;  // more than any particle has here
    for (bool slot_major : {false, true}) {
      const Filled f = fill(g, c, radius, stride, slot_major);
      const NeighborLists nb = view(f, stride, slot_major);
      EXPECT_EQ(f.overflows, 0u);
      size_t pairs = 0;
      for (uint32_t i = 0; i < c.x.size(); ++i) {
        std::vector<uint32_t> truth;
        for (uint32_t j = 0; j < c.x.size(); ++j)
          if (j != i && pbf::length_squared(c.x[i] - c.x[j]) < radius * radius) truth.push_back(j);
        ASSERT_EQ(neighbours_of(nb, i), truth) << "seed " << seed << " slot_major " << slot_major << " i " << i;
        pairs += truth.size();
      }
      EXPECT_GT(pairs, 10u * c.x.size()) << "the cloud is dense enough to test";
    }
  }
}

// The particle-major lists with their first `head` slots apart from the rest
// (NeighborLists::particle_major_split()'s layout), copied slot by slot.
std::vector<uint32_t> split(const Filled& f, uint32_t stride, uint32_t head) {
  const size_t n = f.count.size();
  std::vector<uint32_t> out(n * stride, 0xDEADBEEFu);
  for (size_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < f.count[i]; ++k)
      out[k < head ? i * head + k : n * head + i * (stride - head) + (k - head)] = f.index[i * stride + k];
  return out;
}

TEST(NeighborLists, TheLayoutsAgreeOnEveryAccessorAndOverflowAlike) {
  const GridSpec g = make_grid();
  const SortedCloud c = make_cloud(g, 7, 1200);
  for (uint32_t stride : {8u, 200u}) {  // 8: most lists overflow and stop at 8
    const Filled a = fill(g, c, kCell, stride, false), b = fill(g, c, kCell, stride, true);
    const size_t n = c.x.size();
    const uint32_t head = stride == 8u ? 8u : 16u;  // most lists of stride 200 run past 16
    const std::vector<uint32_t> parted = split(a, stride, head);
    const NeighborLists pm = view(a, stride, false), sm = view(b, stride, true),
                        ps = NeighborLists::particle_major_split(parted.data(), a.count.data(), stride, head, n);
    EXPECT_EQ(a.overflows, b.overflows);
    if (stride == 8u) EXPECT_GT(a.overflows, 100u);
    size_t past_head = 0;
    for (const NeighborLists* nb : {&pm, &sm, &ps}) {
      const uint32_t* index = nb == &pm ? a.index.data() : nb == &sm ? b.index.data() : parted.data();
      EXPECT_EQ(nb->slot_capacity(n), n * stride);
      std::set<size_t> used;
      for (uint32_t i = 0; i < n; ++i) {
        ASSERT_EQ(nb->size(i), pm.size(i)) << "i " << i;
        ASSERT_EQ(neighbours_of(*nb, i), neighbours_of(pm, i)) << "i " << i;
        std::vector<uint32_t> slots;
        nb->for_each_slot(i, [&](uint32_t k, uint32_t j) {
          slots.push_back(k);
          EXPECT_EQ(nb->at(i, k), j);
          EXPECT_EQ(nb->slot_of(i, j), k);
          EXPECT_EQ(index[nb->slot_index(i, k)], j);
          EXPECT_LT(nb->slot_index(i, k), nb->slot_capacity(n));
          EXPECT_TRUE(used.insert(nb->slot_index(i, k)).second) << "slot (" << i << ", " << k << ") is another's";
          if (nb == &ps && k >= head) ++past_head;
        });
        for (uint32_t k = 0; k < slots.size(); ++k) ASSERT_EQ(slots[k], k);
        // i itself is never its own neighbour: no slot.
        EXPECT_EQ(nb->slot_of(i, i), 0xFFFFFFFFu);
      }
    }
    if (stride == 200u) EXPECT_GT(past_head, n) << "the split lists' tails are tested";
  }
}

}  // namespace
