// The AVX2 copy of the CPU's neighbour scan (cpu_neighbor_scan.h): the
// candidates of a row of cells eight at a time, their squared distances in
// lanes (backend/cpu/lanes.h, the same IEEE operations as the scalar scan,
// so pairs at the radius are decided alike), and the lanes that are
// neighbours packed to the front with one permutation and appended in order.
// The particles of a cell share their block of cells: each group of eight
// candidates is read once for all of them (up to kScanShared at a time),
// whose lists are collected in rows on the stack and then copied out to
// their head and tail rows (ListRows) whole.
// The shared headers come first, compiled for the baseline; only the code
// below the target pragma is compiled for AVX2.
#include "backend/cpu/cpu_neighbor_scan.h"

#include "boundary/boundary_equations.h"
#include "core/neighbor_scan.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#include <cstring>

#pragma GCC push_options
#pragma GCC target("avx2,popcnt")

#define PBF_LANE_BYTES 32
#define PBF_LANE_TARGET avx2
#include "backend/cpu/lanes.h"
#include "backend/cpu/cpu_neighbor_scan_blocks.h"

namespace pbf {

namespace {

// lanes[m]: the lanes set in the 8-bit mask m in ascending order, one per
// byte from the lowest (the bytes past them 0).
struct PackTable {
  uint64_t lanes[256];
  constexpr PackTable() : lanes() {
    for (uint32_t m = 0; m < 256; ++m) {
      uint64_t packed = 0;
      uint32_t k = 0;
      for (uint32_t l = 0; l < 8; ++l)
        if ((m >> l) & 1u) packed |= static_cast<uint64_t>(l) << (8 * k++);
      lanes[m] = packed;
    }
  }
};
constexpr PackTable kPack;

// The lists of the m particles first .. first + m - 1, which share the
// block of cells lo .. hi: each row's candidates are read once, eight at a
// time, and tested against every particle of the run that has room left.
// Returns the particles whose lists overflowed (bit p: particle first + p).
uint32_t scan_shared_block(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n, uint32_t first,
                           uint32_t m, const int lo[3], const int hi[3], float radius, uint32_t stride,
                           uint32_t* local, uint32_t step, uint32_t* count) {
  using avx2::kLanes;
  const __m256 r2 = _mm256_set1_ps(radius * radius);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  uint32_t found[avx2::kScanShared] = {};
  const uint32_t all = (1u << m) - 1u;
  uint32_t open = all;  // the particles whose lists have room (bit p: particle first + p)
  // The scan ends when every list is full, as the scalar scan stops at the
  // first neighbour that does not fit.
  for (int z = lo[2]; z <= hi[2] && open != 0; ++z) {
    for (int y = lo[1]; y <= hi[1] && open != 0; ++y) {
      // The cells of a row are contiguous in the sorted order.
      const uint32_t b = start[spec.linear(lo[0], y, z)];
      const uint32_t e = start[spec.linear(hi[0], y, z) + 1];
      for (uint32_t j = b; j < e && open != 0; j += kLanes) {
        // Candidates j .. j + 7; past the row's end their lanes are dropped
        // from the mask.
        const uint32_t filled = e - j < kLanes ? e - j : kLanes;
        avx2::Vec3Lanes xj;
        if (j + kLanes <= n) {
          xj = avx2::load_points(x + j);
        } else {
          uint32_t candidate[kLanes];
          for (uint32_t l = 0; l < kLanes; ++l) candidate[l] = j + (l < filled ? l : filled - 1);
          xj = avx2::gather(x, candidate);
        }
        const __m256i places = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(j)), lane);
        for (uint32_t p = 0; p < m; ++p) {
          if (!((open >> p) & 1u)) continue;
          const uint32_t i = first + p;
          const avx2::Lanes d2 = avx2::length_squared(x[i] - xj);
          __m256 d2v;
          std::memcpy(&d2v, &d2, sizeof d2v);
          // A neighbour where !(d2 >= r2), as the scalar scan decides (NaN included).
          uint32_t bits = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(d2v, r2, _CMP_NGE_UQ)));
          bits &= (1u << filled) - 1u;
          if (i - j < kLanes) bits &= ~(1u << (i - j));
          // No branch on whether the group holds a neighbour (most rows' last
          // groups hold none, unpredictably; the branch cost half the scan's
          // time): an empty mask packs nothing that counts (count 0).
          const __m256i order = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kPack.lanes[bits])));
          const __m256i packed = _mm256_permutevar8x32_epi32(places, order);
          const uint32_t k = static_cast<uint32_t>(__builtin_popcount(bits));
          // Stored whole into the row on the stack (which has a group's room past
          // the stride), with no branch on where the list ends.
          uint32_t* row = local + p * step + found[p];
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(row), packed);
          if (!avx2::take_group(k, stride, found[p])) {
            open &= ~(1u << p);
          }
        }
      }
    }
  }
  for (uint32_t p = 0; p < m; ++p) count[first + p] = found[p];
  return all & ~open;  // a list closes only where it overflows
}

}  // namespace

uint32_t scan_neighbor_run_avx2(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n,
                                uint32_t begin, uint32_t end, float radius, const ListRows& rows, uint32_t* count) {
  return avx2::scan_run_in_rows(
      spec, start, x, begin, end, radius, rows, count,
      [&](uint32_t first, uint32_t m, const int* lo, const int* hi, uint32_t stride, uint32_t* local, uint32_t step) {
        return scan_shared_block(spec, start, x, n, first, m, lo, hi, radius, stride, local, step, count);
      });
}

__attribute__((flatten)) void cell_indices_avx2(const GridSpec& spec, const Vec3* x, uint32_t begin, uint32_t end,
                                                bool set_aside, uint32_t* cell) {
  if (set_aside) {
    for (uint32_t i = begin; i < end; ++i) cell[i] = spec.bucket_index(x[i]);
  } else {
    for (uint32_t i = begin; i < end; ++i) cell[i] = spec.cell_index(x[i]);
  }
}

__attribute__((flatten)) void boundary_near_avx2(const BoundarySamples& b, const Vec3* x, uint32_t begin,
                                                 uint32_t end, float reach, uint8_t* near) {
  for (uint32_t i = begin; i < end; ++i) near[i] = boundary_near_mark(b, x[i], reach);
}

}  // namespace pbf

#pragma GCC pop_options

#else

namespace pbf {

uint32_t scan_neighbor_run_avx2(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n,
                                uint32_t begin, uint32_t end, float radius, const ListRows& rows, uint32_t* count) {
  return neighbor_scan_for(LaneTarget::Baseline)(spec, start, x, n, begin, end, radius, rows, count);
}

void cell_indices_avx2(const GridSpec& spec, const Vec3* x, uint32_t begin, uint32_t end, bool set_aside,
                       uint32_t* cell) {
  cell_indices_for(LaneTarget::Baseline)(spec, x, begin, end, set_aside, cell);
}

void boundary_near_avx2(const BoundarySamples& b, const Vec3* x, uint32_t begin, uint32_t end, float reach,
                        uint8_t* near) {
  boundary_near_for(LaneTarget::Baseline)(b, x, begin, end, reach, near);
}

}  // namespace pbf

#endif
