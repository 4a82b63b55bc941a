// Unit tests of the CPU backend's uniform-grid neighbour search
// (backend/cpu/cpu_neighbor_grid.h): the counting sort by cell and the
// fixed-capacity neighbour lists, checked against a brute-force O(n^2) search.
#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_neighbor_grid.h"
#include "backend/cpu/lane_vector.h"
#include "core/neighbor_lists.h"
#include "core/config.h"
#include "core/grid_spec.h"
#include "core/motion.h"
#include "core/neighbor_scan.h"

namespace {

using pbf::CpuNeighborGrid;
using pbf::GridSpec;
using pbf::LaneVector;
using pbf::Vec3;

// A grid over [origin, origin + dims * cell], built the way CpuBackend builds
// its grid: one cell per kernel radius, inv_cell = 1 / radius.
GridSpec make_spec(Vec3 origin, float cell, int nx, int ny, int nz) {
  GridSpec g{};
  g.origin = origin;
  g.inv_cell = 1.0f / cell;
  g.dim[0] = nx;
  g.dim[1] = ny;
  g.dim[2] = nz;
  return g;
}

struct Lists {
  std::vector<uint32_t> index;  // n * stride, in NeighborLists::particle_major_split()'s layout
  std::vector<uint32_t> count;  // n
  uint32_t stride = 0, head = 0;
  uint32_t overflows = 0;
  pbf::NeighborLists view() const {
    return pbf::NeighborLists::particle_major_split(index.data(), count.data(), stride, head, count.size());
  }
  std::vector<uint32_t> of(size_t i) const {
    std::vector<uint32_t> out;
    view().for_each(static_cast<uint32_t>(i), [&](uint32_t j) { out.push_back(j); });
    return out;
  }
};

std::vector<uint32_t> sort_in_arena(CpuNeighborGrid& grid, const LaneVector<Vec3>& x, int threads) {
  std::vector<uint32_t> order(x.size());
  tbb::task_arena arena(threads);
  arena.execute([&] { grid.sort(x.data(), x.size(), order.data()); });
  return order;
}

// The lists in head and tail rows where head < stride (a multiple of eight).
Lists find_in_arena(const CpuNeighborGrid& grid, const LaneVector<Vec3>& sorted, float radius, uint32_t stride,
                    int threads, uint32_t head = UINT32_MAX) {
  Lists l;
  l.stride = stride;
  l.head = std::min(head, stride);
  l.index.assign(sorted.size() * stride, UINT32_MAX);
  l.count.assign(sorted.size(), UINT32_MAX);
  tbb::task_arena arena(threads);
  arena.execute([&] {
    l.overflows = grid.find_neighbors(sorted.data(), sorted.size(), radius, stride, l.head, l.index.data(),
                                     l.count.data());
  });
  return l;
}

// The slots after each list's end, up to the next multiple of eight that
// the stride holds, name the particle itself (put_list()).
void expect_padded(const Lists& l, const std::string& what) {
  const pbf::NeighborLists nb = l.view();
  for (uint32_t i = 0; i < l.count.size(); ++i)
    for (uint32_t k = l.count[i]; k % pbf::kLaneGroup != 0 && k < l.stride; ++k)
      ASSERT_EQ(l.index[nb.slot_index(i, k)], i) << what << " particle " << i << " slot " << k;
}

LaneVector<Vec3> gather(const LaneVector<Vec3>& x, const std::vector<uint32_t>& order) {
  LaneVector<Vec3> out(order.size());
  for (size_t k = 0; k < order.size(); ++k) out[k] = x[order[k]];
  return out;
}

// Every j != i with |x_i - x_j| < radius, in ascending order; the distance is
// computed with the same float expression the grid uses, so that pairs at
// exactly the radius are decided the same way.
std::vector<std::vector<uint32_t>> brute_force(const LaneVector<Vec3>& x, float radius) {
  const float r2 = radius * radius;
  std::vector<std::vector<uint32_t>> out(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = i + 1; j < x.size(); ++j)
      if (pbf::length_squared(x[i] - x[j]) < r2) {  // the same value for (i, j) and (j, i): negation is exact
        out[i].push_back(static_cast<uint32_t>(j));
        out[j].push_back(static_cast<uint32_t>(i));
      }
  return out;  // each list ascends: j < i are appended in order of i, then j > i in order
}

size_t max_count(const std::vector<std::vector<uint32_t>>& lists) {
  size_t m = 0;
  for (const auto& l : lists) m = std::max(m, l.size());
  return m;
}

// A cloud that exercises the grid's corner cases: uniform points in the
// domain, coordinates exactly on cell boundaries, points outside the domain
// (clamped into the border cells), duplicates, and a dense clump.
LaneVector<Vec3> make_cloud(uint32_t seed, size_t n, const GridSpec& g, float cell) {
  std::mt19937 rng(seed);
  const float ext[3] = {g.dim[0] * cell, g.dim[1] * cell, g.dim[2] * cell};
  const float org[3] = {g.origin.x, g.origin.y, g.origin.z};
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::uniform_int_distribution<int> kind(0, 9);
  LaneVector<Vec3> x;
  x.reserve(n);
  while (x.size() < n) {
    float p[3];
    const int k = kind(rng);
    if (k <= 4 || x.empty()) {  // uniform inside the domain
      for (int a = 0; a < 3; ++a) p[a] = org[a] + unit(rng) * ext[a];
    } else if (k <= 6) {  // on cell boundaries: origin + multiples of the cell size, on 1-3 axes
      for (int a = 0; a < 3; ++a) {
        if (unit(rng) < 0.7f) {
          const int m = std::uniform_int_distribution<int>(0, g.dim[a])(rng);
          p[a] = org[a] + static_cast<float>(m) * cell;
        } else {
          p[a] = org[a] + unit(rng) * ext[a];
        }
      }
    } else if (k == 7) {  // outside the domain, up to 3 cells beyond a face
      for (int a = 0; a < 3; ++a) p[a] = org[a] - 3.0f * cell + unit(rng) * (ext[a] + 6.0f * cell);
      const int a = std::uniform_int_distribution<int>(0, 2)(rng);
      p[a] = unit(rng) < 0.5f ? org[a] - unit(rng) * 3.0f * cell : org[a] + ext[a] + unit(rng) * 3.0f * cell;
    } else if (k == 8) {  // a duplicate of an earlier point
      x.push_back(x[std::uniform_int_distribution<size_t>(0, x.size() - 1)(rng)]);
      continue;
    } else {  // near an earlier point (clumps with many neighbours)
      const Vec3 q = x[std::uniform_int_distribution<size_t>(0, x.size() - 1)(rng)];
      p[0] = q.x + (unit(rng) - 0.5f) * 0.3f * cell;
      p[1] = q.y + (unit(rng) - 0.5f) * 0.3f * cell;
      p[2] = q.z + (unit(rng) - 0.5f) * 0.3f * cell;
    }
    x.push_back(Vec3{p[0], p[1], p[2]});
  }
  return x;
}

void expect_sorted_by_cell(const GridSpec& g, const LaneVector<Vec3>& x, const std::vector<uint32_t>& order) {
  ASSERT_EQ(order.size(), x.size());
  std::vector<uint8_t> seen(x.size(), 0);
  for (uint32_t k : order) {
    ASSERT_LT(k, x.size());
    ASSERT_EQ(seen[k], 0) << "index " << k << " appears twice";
    seen[k] = 1;
  }
  for (size_t k = 1; k < order.size(); ++k) {
    const uint32_t a = g.cell_index(x[order[k - 1]]), b = g.cell_index(x[order[k]]);
    ASSERT_LE(a, b) << "place " << k;
    if (a == b) {
      ASSERT_LT(order[k - 1], order[k]) << "place " << k << ": indices must ascend within a cell";
    }
  }
}

// Compares the grid's lists with brute force, as sets; a missed pair is
// reported with its positions and cells.
void expect_lists_match(const Lists& l, const std::vector<std::vector<uint32_t>>& truth, const std::string& what,
                        const GridSpec& g, const LaneVector<Vec3>& x) {
  ASSERT_EQ(l.count.size(), truth.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < truth.size(); ++i) {
    std::vector<uint32_t> got = l.of(i);
    std::sort(got.begin(), got.end());
    if (got == truth[i] || ++mismatches > 3) continue;
    std::vector<uint32_t> missed, extra;
    std::set_difference(truth[i].begin(), truth[i].end(), got.begin(), got.end(), std::back_inserter(missed));
    std::set_difference(got.begin(), got.end(), truth[i].begin(), truth[i].end(), std::back_inserter(extra));
    std::ostringstream msg;
    msg.precision(9);
    msg << what << ": particle " << i << " misses " << missed.size() << " and has " << extra.size()
        << " extra neighbours";
    if (!missed.empty()) {
      const Vec3 a = x[i], b = x[missed[0]];
      int ax, ay, az, bx, by, bz;
      g.cell_of(a, ax, ay, az);
      g.cell_of(b, bx, by, bz);
      msg << "; e.g. x_i = (" << a.x << ", " << a.y << ", " << a.z << ") in cell (" << ax << ", " << ay << ", " << az
          << "), x_j = (" << b.x << ", " << b.y << ", " << b.z << ") in cell (" << bx << ", " << by << ", " << bz
          << "), |x_i - x_j| = " << pbf::length(a - b);
    }
    ADD_FAILURE() << msg.str();
  }
  EXPECT_EQ(mismatches, 0u) << what;
  EXPECT_EQ(l.overflows, 0u) << what;
}

TEST(CpuNeighborGrid, SortOrdersByCellWithAscendingIndicesWithinACell) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const float cell = 0.1f;
    const GridSpec g = make_spec(Vec3{0, 0, 0}, cell, 10, 8, 6);
    const LaneVector<Vec3> x = make_cloud(seed, 3000, g, cell);
    CpuNeighborGrid grid(g);
    expect_sorted_by_cell(g, x, sort_in_arena(grid, x, 2));
  }
}

TEST(CpuNeighborGrid, FindsExactlyTheBruteForceNeighboursOnRandomClouds) {
  struct Case {
    Vec3 origin;
    float cell;
    int nx, ny, nz;
    float radius;
  };
  const Case cases[] = {
      {Vec3{0, 0, 0}, 0.1f, 10, 10, 10, 0.1f},         // the solver's default layout
      {Vec3{0, 0, 0}, 0.25f, 6, 4, 5, 0.25f},          // a cell size exact in binary
      {Vec3{0, 0, 0}, 0.1f, 10, 10, 10, 0.07f},        // radius smaller than the cell
      {Vec3{0, 0, 0}, 0.1f, 10, 10, 10, 0.17f},        // radius larger than the cell
      {Vec3{-0.37f, 0.11f, -1.0f}, 0.1f, 9, 7, 8, 0.1f},  // an origin off zero
      {Vec3{0, 0, 0}, 0.2f, 1, 7, 3, 0.2f},            // a single cell along x
  };
  for (const Case& c : cases) {
    for (uint32_t seed : {11u, 12u, 13u}) {
      const GridSpec g = make_spec(c.origin, c.cell, c.nx, c.ny, c.nz);
      const LaneVector<Vec3> x = make_cloud(seed, 2500, g, c.cell);
      CpuNeighborGrid grid(g);
      const std::vector<uint32_t> order = sort_in_arena(grid, x, 2);
      const LaneVector<Vec3> sorted = gather(x, order);
      const auto truth = brute_force(sorted, c.radius);
      const uint32_t stride = static_cast<uint32_t>(max_count(truth)) + 1;
      ASSERT_LE(stride, 1024u) << "the solver never asks for more than 1024 neighbours";
      const Lists l = find_in_arena(grid, sorted, c.radius, stride, 2);
      expect_lists_match(l, truth,
                         "cell " + std::to_string(c.cell) + " radius " + std::to_string(c.radius) + " seed " +
                             std::to_string(seed),
                         g, sorted);
    }
  }
}

TEST(CpuNeighborGrid, FindsNeighboursOfPointsFarOutsideTheDomain) {
  // Every point is beyond the domain's upper x face; all are clamped into the
  // border cells, where pairs must still be found by their true distance.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const GridSpec g = make_spec(Vec3{0, 0, 0}, 0.1f, 4, 4, 4);
  LaneVector<Vec3> x;
  for (int i = 0; i < 800; ++i) x.push_back(Vec3{5.0f + 0.5f * u(rng), -1.0f + 2.0f * u(rng), 0.4f * u(rng)});
  CpuNeighborGrid grid(g);
  const LaneVector<Vec3> sorted = gather(x, sort_in_arena(grid, x, 2));
  const auto truth = brute_force(sorted, 0.1f);
  const Lists l = find_in_arena(grid, sorted, 0.1f, static_cast<uint32_t>(max_count(truth)) + 1, 2);
  expect_lists_match(l, truth, "outside the domain", g, sorted);
}

TEST(CpuNeighborGrid, DuplicatePositionsAreNeighboursOfEachOtherButNotOfThemselves) {
  const GridSpec g = make_spec(Vec3{0, 0, 0}, 0.1f, 3, 3, 3);
  // Five copies of one point on a cell corner and three of another.
  LaneVector<Vec3> x(5, Vec3{0.1f, 0.1f, 0.1f});
  for (int i = 0; i < 3; ++i) x.push_back(Vec3{0.25f, 0.25f, 0.25f});
  CpuNeighborGrid grid(g);
  const LaneVector<Vec3> sorted = gather(x, sort_in_arena(grid, x, 1));
  const Lists l = find_in_arena(grid, sorted, 0.1f, 16, 1);
  for (size_t i = 0; i < sorted.size(); ++i) {
    const std::vector<uint32_t> got = l.of(i);
    EXPECT_EQ(std::count(got.begin(), got.end(), static_cast<uint32_t>(i)), 0) << "self in the list of " << i;
  }
  expect_lists_match(l, brute_force(sorted, 0.1f), "duplicates", g, sorted);
  std::vector<uint32_t> counts(l.count.begin(), l.count.end());
  std::sort(counts.begin(), counts.end());
  EXPECT_EQ(counts, (std::vector<uint32_t>{2, 2, 2, 4, 4, 4, 4, 4}));
}

TEST(CpuNeighborGrid, FindsPairsThatStraddleACellBoundaryByRoundOff) {
  // Pairs (x_i, x_j) along x with x_i within a few ulps of a cell boundary
  // origin + k * cell and x_j a hair less than one radius further, so that
  // |x_i - x_j| < radius. The grid must find every such pair; neighbours two
  // cells apart after rounding are outside its 3x3x3 search block.
  for (float origin : {0.0f, -0.37f, 0.11f}) {
    for (float cell : {0.1f, 0.07f, 0.013f}) {
      const int nx = 32;
      const GridSpec g = make_spec(Vec3{origin, 0.0f, 0.0f}, cell, nx, 3, 3);
      LaneVector<Vec3> x;
      const float y = 1.5f * cell, z = 1.5f * cell;  // the centre of a row of cells
      for (int k = 0; k + 1 < nx; ++k) {
        float xi = origin + static_cast<float>(k) * cell;
        for (int u = 0; u < 3; ++u) xi = std::nextafter(xi, -1e9f);
        for (int u = -3; u <= 3; ++u, xi = std::nextafter(xi, 1e9f)) {
          float xj = xi + cell;
          for (int w = 0; w < 4; ++w, xj = std::nextafter(xj, -1e9f)) {
            if (pbf::length_squared(Vec3{xi - xj, 0, 0}) >= cell * cell) continue;
            x.push_back(Vec3{xi, y, z});
            x.push_back(Vec3{xj, y, z});
          }
        }
      }
      CpuNeighborGrid grid(g);
      const LaneVector<Vec3> sorted = gather(x, sort_in_arena(grid, x, 2));
      const auto truth = brute_force(sorted, cell);
      const Lists l = find_in_arena(grid, sorted, cell, static_cast<uint32_t>(max_count(truth)) + 1, 2);
      expect_lists_match(l, truth, "origin " + std::to_string(origin) + " cell " + std::to_string(cell), g, sorted);
    }
  }
}

TEST(CpuNeighborGrid, SortAndListsAreTheSameWithOneOrFourThreads) {
  // Let an arena have 4 threads even on a machine with fewer cores.
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);
  for (uint32_t seed : {21u, 22u}) {
    const float cell = 0.1f;
    const GridSpec g = make_spec(Vec3{0, 0, 0}, cell, 12, 12, 12);
    // Enough points for several parallel chunks (the sort's grain is 1024).
    const LaneVector<Vec3> x = make_cloud(seed, 6000, g, cell);
    CpuNeighborGrid grid1(g), grid4(g);
    const std::vector<uint32_t> order1 = sort_in_arena(grid1, x, 1);
    const std::vector<uint32_t> order4 = sort_in_arena(grid4, x, 4);
    ASSERT_EQ(order1, order4) << "seed " << seed;
    const LaneVector<Vec3> sorted = gather(x, order1);
    const Lists l1 = find_in_arena(grid1, sorted, cell, 96, 1);
    const Lists l4 = find_in_arena(grid4, sorted, cell, 96, 4);
    EXPECT_EQ(l1.count, l4.count) << "seed " << seed;
    EXPECT_EQ(l1.overflows, l4.overflows) << "seed " << seed;
    for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(l1.of(i), l4.of(i)) << "seed " << seed << " particle " << i;
    // The same grid object, sorted again with a different thread count, agrees too.
    EXPECT_EQ(sort_in_arena(grid1, x, 4), order1);
  }
}

// The other tests scan with the copy this processor runs best; every copy
// must give the baseline's (scalar) lists, counts and overflows exactly,
// also where a list overflows within a group of eight candidates (AVX2) or
// sixteen (AVX-512).
TEST(CpuNeighborGrid, EveryLaneTargetGivesTheBaselinesListsCountsAndOverflows) {
  const float cell = 0.1f;
  const GridSpec g = make_spec(Vec3{-0.05f, 0, 0.02f}, cell, 8, 7, 9);
  for (uint32_t seed : {41u, 42u}) {
    const LaneVector<Vec3> x = make_cloud(seed, 3000, g, cell);
    CpuNeighborGrid baseline(g, pbf::LaneTarget::Baseline);
    const LaneVector<Vec3> sorted = gather(x, sort_in_arena(baseline, x, 2));
    const auto truth = brute_force(sorted, cell);
    const uint32_t all = static_cast<uint32_t>(max_count(truth));
    for (pbf::LaneTarget target : pbf::lane_targets_here()) {
      CpuNeighborGrid grid(g, target);
      EXPECT_EQ(sort_in_arena(grid, x, 2), sort_in_arena(baseline, x, 2));
      for (uint32_t stride : {0u, 1u, 4u, 7u, 8u, 9u, 10u, 15u, 16u, 17u, 31u, all, all + 9}) {
        for (float radius : {cell, 0.7f * cell}) {
          // One row per particle, and (where the stride has room) the first
          // eight or sixteen slots apart from the rest.
          for (uint32_t head : {stride, 8u, 16u}) {
            if (head > stride) continue;
            const std::string what = std::string(pbf::lane_target_name(target)) + " seed " + std::to_string(seed) +
                                     " stride " + std::to_string(stride) + " head " + std::to_string(head) +
                                     " radius " + std::to_string(radius);
            const Lists want = find_in_arena(baseline, sorted, radius, stride, 2);
            const Lists got = find_in_arena(grid, sorted, radius, stride, 2, head);
            EXPECT_EQ(got.overflows, want.overflows) << what;
            ASSERT_EQ(got.count, want.count) << what;
            for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(got.of(i), want.of(i)) << what << " particle " << i;
            expect_padded(got, what);
          }
        }
      }
      if (target == pbf::LaneTarget::Baseline) continue;
      // The copy alone, against brute force.
      expect_lists_match(find_in_arena(grid, sorted, cell, all + 1, 2), truth,
                         std::string(pbf::lane_target_name(target)) + " seed " + std::to_string(seed), g, sorted);
    }
  }
}

// The cells of the sort come from each target's copy (cell_indices_for()):
// with points far outside the box (set aside), NaN and points on cell
// boundaries, every copy gives the baseline's order and cell starts.
TEST(CpuNeighborGrid, EveryLaneTargetSortsAndSetsAsideAsTheBaseline) {
  const float cell = 0.1f;
  const GridSpec g = make_spec(Vec3{-0.05f, 0, 0.02f}, cell, 8, 7, 9);
  LaneVector<Vec3> x = make_cloud(43u, 3000, g, cell);
  for (int k = 0; k < 40; ++k) x.push_back(Vec3{-5.0f + 0.25f * k, 0.3f, 50.0f - k});  // far on some axis
  x.push_back(Vec3{std::nanf(""), 0.1f, 0.1f});
  x.push_back(Vec3{0.1f, std::nanf(""), std::nanf("")});
  const size_t cells = static_cast<size_t>(g.cell_count());
  for (const bool set_aside : {false, true}) {
    CpuNeighborGrid baseline(g, pbf::LaneTarget::Baseline);
    std::vector<uint32_t> want(x.size());
    tbb::task_arena arena(2);
    arena.execute([&] {
      if (set_aside)
        baseline.sort_setting_aside(x.data(), x.size(), want.data());
      else
        baseline.sort(x.data(), x.size(), want.data());
    });
    const std::vector<uint32_t> want_start(baseline.cell_start(), baseline.cell_start() + cells + 2);
    for (pbf::LaneTarget target : pbf::lane_targets_here()) {
      SCOPED_TRACE(std::string(pbf::lane_target_name(target)) + (set_aside ? ", setting aside" : ""));
      CpuNeighborGrid grid(g, target);
      std::vector<uint32_t> got(x.size());
      arena.execute([&] {
        if (set_aside)
          grid.sort_setting_aside(x.data(), x.size(), got.data());
        else
          grid.sort(x.data(), x.size(), got.data());
      });
      EXPECT_EQ(got, want);
      EXPECT_EQ(std::vector<uint32_t>(grid.cell_start(), grid.cell_start() + cells + 2), want_start);
    }
  }
}

// The list a particle with more neighbours than `stride` keeps: the stride
// nearest (at equal distances the lower index) of the first
// (1 + kNearestScanExtra) x stride of its neighbours in ascending order (the
// scan's), in ascending order.
std::vector<uint32_t> nearest_kept(const std::vector<uint32_t>& truth, const LaneVector<Vec3>& x, size_t i,
                                   uint32_t stride) {
  std::vector<uint32_t> weighed(truth.begin(),
                                truth.begin() + std::min<size_t>(truth.size(), stride * (1 + pbf::kNearestScanExtra)));
  std::stable_sort(weighed.begin(), weighed.end(), [&](uint32_t a, uint32_t b) {
    return pbf::length_squared(x[i] - x[a]) < pbf::length_squared(x[i] - x[b]);
  });
  weighed.resize(std::min<size_t>(weighed.size(), stride));
  std::sort(weighed.begin(), weighed.end());
  return weighed;
}

// A cloud of n points (make_cloud(seed)) in a grid of dims^3 cells of 0.1
// m, its lists of each of `strides` slots (`head`: as find_in_arena()) in
// every lane target against brute force: each particle's count and its
// nearest (nearest_kept()), and the overflows counted; then, with room for
// everyone, no overflow. Returns the particles with more neighbours than
// the scan weighs, summed over targets and strides, in *past_the_weighed.
void expect_nearest_kept(uint32_t seed, size_t n, int dims, std::initializer_list<uint32_t> strides, uint32_t head,
                         size_t* past_the_weighed) {
  const float cell = 0.1f;
  const GridSpec g = make_spec(Vec3{0, 0, 0}, cell, dims, dims, dims);
  const LaneVector<Vec3> x = make_cloud(seed, n, g, cell);
  CpuNeighborGrid baseline(g, pbf::LaneTarget::Baseline);
  const LaneVector<Vec3> sorted = gather(x, sort_in_arena(baseline, x, 2));
  const auto truth = brute_force(sorted, cell);
  for (pbf::LaneTarget target : pbf::lane_targets_here()) {
    CpuNeighborGrid grid(g, target);
    ASSERT_EQ(sort_in_arena(grid, x, 2), sort_in_arena(baseline, x, 2));  // and its cells' starts
    for (uint32_t stride : strides) {
      const std::string what = std::string(pbf::lane_target_name(target)) + " stride " + std::to_string(stride);
      const Lists l = find_in_arena(grid, sorted, cell, stride, 2, head);
      uint32_t expected_overflows = 0;
      for (size_t i = 0; i < truth.size(); ++i) {
        const size_t want = truth[i].size();
        if (want > stride) ++expected_overflows;
        if (want > stride * (1 + pbf::kNearestScanExtra)) ++*past_the_weighed;
        ASSERT_EQ(l.count[i], std::min<size_t>(want, stride)) << what << " particle " << i;
        // The nearest (every neighbour where all fit), in ascending order.
        ASSERT_EQ(l.of(i), nearest_kept(truth[i], sorted, i, stride)) << what << " particle " << i;
      }
      EXPECT_GT(expected_overflows, 0u) << "the cloud must be dense enough to overflow " << what;
      EXPECT_EQ(l.overflows, expected_overflows) << what;
    }
    // With room for everyone there is no overflow.
    EXPECT_EQ(find_in_arena(grid, sorted, cell, static_cast<uint32_t>(max_count(truth)), 2).overflows, 0u);
  }
}

TEST(CpuNeighborGrid, CountsOverflowsWhenTheStrideIsTooSmallAndKeepsTheNearest) {
  size_t past_the_weighed = 0;
  ASSERT_NO_FATAL_FAILURE(expect_nearest_kept(31, 3000, 8, {0u, 1u, 4u, 10u, 24u}, UINT32_MAX, &past_the_weighed));
  EXPECT_GT(past_the_weighed, 0u) << "some particle must have more neighbours than the scan weighs";
}

// Lists of hundreds of slots keep the nearest too: up to 256 slots the
// scans collect the neighbours that the nearest are chosen from in their
// first pass, past it they scan an overflowing list again
// (cpu_neighbor_scan_blocks.h); both give the lists of brute force.
TEST(CpuNeighborGrid, LongListsThatOverflowKeepTheNearestOnEitherSideOf256Slots) {
  size_t past_the_weighed = 0;  // about 300 neighbours a particle inside the cloud
  ASSERT_NO_FATAL_FAILURE(expect_nearest_kept(7, 5000, 4, {200u, 256u, 257u, 300u}, 40, &past_the_weighed));
}

// Where the lists overflow, the nearest neighbours are kept: in a lattice
// (which the lists' order and the cells' do not favour), every particle
// whose neighbours fill more than its list keeps those at the lattice's
// nearest distances and none farther than the ones it leaves out.
TEST(CpuNeighborGrid, AnOverflowingLatticeKeepsTheNearestShellsOnEverySide) {
  const float s = 0.05f, h = 2.0f * s;
  const GridSpec g = make_spec(Vec3{0, 0, 0}, h, 6, 6, 6);
  LaneVector<Vec3> x;
  for (int k = 0; k < 10; ++k)
    for (int j = 0; j < 10; ++j)
      for (int i = 0; i < 10; ++i) x.push_back(Vec3{(i + 1) * s, (j + 1) * s, (k + 1) * s});
  for (pbf::LaneTarget target : pbf::lane_targets_here()) {
    CpuNeighborGrid grid(g, target);
    const LaneVector<Vec3> sorted = gather(x, sort_in_arena(grid, x, 2));
    const auto truth = brute_force(sorted, h);
    // An inner particle has 26 neighbours closer than 2 s: 6 at s, 12 at s sqrt 2 and 8 at s sqrt 3
    // (those at 2 s are not: the radius is exclusive). In the scan's order the first 18 would be the
    // 9 below it, the 8 beside it and one above.
    const uint32_t stride = 18;  // room for the 6 nearest and the 12 next
    const Lists l = find_in_arena(grid, sorted, h, stride, 2);
    size_t inner = 0;
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (truth[i].size() <= stride) continue;
      const std::vector<uint32_t> kept = l.of(i);
      ASSERT_EQ(kept.size(), stride);
      float farthest_kept = 0.0f, nearest_left = INFINITY;
      for (uint32_t j : truth[i]) {
        const float d2 = pbf::length_squared(sorted[i] - sorted[j]);
        if (std::binary_search(kept.begin(), kept.end(), j))
          farthest_kept = std::max(farthest_kept, d2);
        else
          nearest_left = std::min(nearest_left, d2);
      }
      EXPECT_LE(farthest_kept, nearest_left) << pbf::lane_target_name(target) << " particle " << i;
      if (truth[i].size() == 26) {
        ++inner;
        // The 6 face and 12 edge neighbours: their sum is zero (no side left out).
        Vec3 sum{0, 0, 0};
        for (uint32_t j : kept) sum += sorted[j] - sorted[i];
        EXPECT_LT(pbf::length_squared(sum), 1e-10f) << pbf::lane_target_name(target) << " particle " << i;
      }
    }
    EXPECT_GT(inner, 0u);
  }
}

TEST(CpuNeighborGrid, AMillionParticlesAtOnePointFillTheirListsAndStopScanning) {
  // Every particle has 999,999 neighbours. A scan that went on past a full
  // list would make 10^12 pair tests (about an hour here); one that stops at
  // the first neighbour that does not fit makes stride + 1 per particle, and
  // the lists and the overflow count are the same.
  const GridSpec g = make_spec(Vec3{0, 0, 0}, 0.1f, 4, 4, 4);
  const size_t n = 1000000;
  const uint32_t stride = 8;
  const LaneVector<Vec3> x(n, Vec3{0.15f, 0.15f, 0.15f});
  CpuNeighborGrid grid(g);
  const LaneVector<Vec3> sorted = gather(x, sort_in_arena(grid, x, 2));
  const Lists l = find_in_arena(grid, sorted, 0.1f, stride, 2);
  EXPECT_EQ(l.overflows, n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(l.count[i], stride) << "particle " << i;
    // The first `stride` others in cell order, as a scan to the end keeps them.
    std::vector<uint32_t> want;
    for (uint32_t j = 0; want.size() < stride; ++j)
      if (j != i) want.push_back(j);
    ASSERT_EQ(l.of(i), want) << "particle " << i;
  }
}

TEST(CpuNeighborGrid, SettingAsideMovesPointsBeyondReachAfterTheLastCellInIndexOrder) {
  // A 4 x 3 x 2 grid of 0.1 m cells from the origin: points up to one cell
  // outside its box stay in the border cells; farther ones (on any axis, on
  // either side) go after the last cell, in ascending index order, where no
  // scan reads them. sort() still clamps every point into a cell.
  const float cell = 0.1f;
  const GridSpec g = make_spec(Vec3{0, 0, 0}, cell, 4, 3, 2);
  const LaneVector<Vec3> x = {
      {0.05f, 0.05f, 0.05f},  // 0: inside
      {-5.0f, 0.15f, 0.1f},   // 1: far below x
      {-0.09f, 0.15f, 0.1f},  // 2: within a cell below x
      {0.2f, 0.35f, 0.1f},    // 3: within a cell above y (box ends at 0.3)
      {0.2f, 0.15f, 0.45f},   // 4: far above z (box ends at 0.2)
      {0.35f, 0.25f, 0.15f},  // 5: inside, the last cell
      {0.2f, -0.11f, 0.1f},   // 6: just more than a cell below y
  };
  const uint32_t cells = static_cast<uint32_t>(g.cell_count());
  EXPECT_EQ(g.set_aside_bucket(), cells);
  for (uint32_t i : {1u, 4u, 6u}) EXPECT_TRUE(g.beyond_reach(x[i])) << "point " << i;
  for (uint32_t i : {0u, 2u, 3u, 5u}) EXPECT_FALSE(g.beyond_reach(x[i])) << "point " << i;
  EXPECT_FALSE(g.beyond_reach(Vec3{std::nanf(""), 0.0f, 0.0f})) << "NaN stays where cell_index() puts it";

  CpuNeighborGrid grid(g);
  std::vector<uint32_t> order(x.size());
  tbb::task_arena arena(2);
  arena.execute([&] { grid.sort_setting_aside(x.data(), x.size(), order.data()); });
  const uint32_t* start = grid.cell_start();
  EXPECT_EQ(start[cells], 4u) << "four points in cells";
  EXPECT_EQ(start[cells + 1], x.size());
  EXPECT_EQ(std::vector<uint32_t>(order.begin() + 4, order.end()), (std::vector<uint32_t>{1, 4, 6}));
  for (uint32_t k = 0; k < 4; ++k) {
    EXPECT_FALSE(g.beyond_reach(x[order[k]])) << "place " << k;
    const uint32_t c = g.cell_index(x[order[k]]);
    EXPECT_GE(k, start[c]) << "place " << k;
    EXPECT_LT(k, start[c + 1]) << "place " << k;
  }
  // The plain sort clamps them all into cells, as before.
  order = sort_in_arena(grid, x, 2);
  EXPECT_EQ(grid.cell_start()[cells], x.size());
}

// The CPU backend's own lists, split at its head of 40 slots (NeighborLists::
// particle_major_split()): water squeezed to 0.9 of the rest spacing gives
// lists past the head (about 46 neighbours inside), and each particle's list
// read through neighbor_lists() is the brute force's, in ascending order.
TEST(CpuNeighborGrid, TheBackendsListsRunPastTheirHeadInCompressedWater) {
  const float spacing = 0.02f;
  pbf::SolverConfig config;
  config.max_particles = 4096;
  config.particle_spacing = spacing;
  config.kernel_radius = 2.0f * spacing;
  config.rest_density = 1000.0f;
  config.domain_min = Vec3{-1.0f, -1.0f, -1.0f};
  config.domain_max = Vec3{1.0f, 1.0f, 1.0f};
  config.thread_count = 2;
  config.max_neighbors = 56;  // the automatic count at two spacings
  pbf::CpuBackend backend(config);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> jitter(-0.05f * spacing, 0.05f * spacing);
  std::vector<float> flat;
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < 12; ++b)
      for (int c = 0; c < 12; ++c)
        for (const int k : {a, b, c}) flat.push_back(0.9f * spacing * static_cast<float>(k) + jitter(rng));
  backend.append(flat.data(), nullptr, flat.size() / 3);
  pbf::PbfParams params;
  params.gravity = Vec3{0.0f, 0.0f, 0.0f};
  pbf::StepContext ctx{};
  ctx.motion = pbf::make_motion_constants(config, params, 1e-3f);
  backend.predict(ctx);
  backend.build_grid(ctx);
  backend.find_neighbors(ctx);
  const pbf::NeighborLists nb = backend.neighbor_lists();
  ASSERT_LT(nb.head, nb.stride);
  const LaneVector<Vec3> x = backend.predicted_positions();
  const auto truth = brute_force(x, config.kernel_radius);
  uint32_t past_head = 0;
  for (uint32_t i = 0; i < x.size(); ++i) {
    std::vector<uint32_t> got;
    nb.for_each(i, [&](uint32_t j) { got.push_back(j); });
    ASSERT_EQ(got, truth[i]) << "particle " << i;
    past_head += nb.size(i) > nb.head ? 1u : 0u;
  }
  EXPECT_GT(past_head, 100u) << "lists that run into their tails";
  EXPECT_LT(max_count(truth), nb.stride) << "no list overflows";
}

}  // namespace
