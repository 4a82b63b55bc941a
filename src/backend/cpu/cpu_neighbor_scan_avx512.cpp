// The AVX-512 copy of the CPU's neighbour scan (cpu_neighbor_scan.h): as the
// AVX2 copy (cpu_neighbor_scan_avx2.cpp), but sixteen candidates of a row of
// cells at a time, their squared distances by the scalar scan's operations
// (backend/cpu/lanes.h's sixteen lanes), the neighbours' lanes as a mask
// register, packed to the front with one compress and appended in order:
// the same lists, counts and overflows. The shared headers come first,
// compiled for the baseline; only the code below the target pragma is
// compiled for AVX-512.
#include "backend/cpu/cpu_neighbor_scan.h"

#include "core/neighbor_scan.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#include <cstring>

#pragma GCC push_options
#pragma GCC target("avx2,avx512f,avx512vl,avx512dq,avx512bw,popcnt")
// GCC 12's AVX-512 headers pass an undefined vector to the builtins of
// _mm512_unpacklo_ps() and kin, which -Wmaybe-uninitialized reports (GCC bug
// 105593, fixed in GCC 13); the lanes never read it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define PBF_LANE_BYTES 64
#define PBF_LANE_PARTICLES 2  // sixteen lanes: here sixteen candidates of one particle
#define PBF_LANE_TARGET avx512
#include "backend/cpu/lanes.h"
#include "backend/cpu/cpu_neighbor_scan_blocks.h"

namespace pbf {

namespace {

// The lists of the m particles first .. first + m - 1, which share the
// block of cells lo .. hi: each row's candidates are read once, sixteen at a
// time, and tested against every particle of the run that has room left.
// Returns the particles whose lists overflowed (bit p: particle first + p).
uint32_t scan_shared_block(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n, uint32_t first,
                           uint32_t m, const int lo[3], const int hi[3], float radius, uint32_t stride,
                           uint32_t* local, uint32_t step, uint32_t* count) {
  using avx512::kLanes;
  const __m512 r2 = _mm512_set1_ps(radius * radius);
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  uint32_t found[avx512::kScanShared] = {};
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
        // Candidates j .. j + 15; past the row's end their lanes are dropped
        // from the mask.
        const uint32_t filled = e - j < kLanes ? e - j : kLanes;
        avx512::Vec3Lanes xj;
        if (j + kLanes <= n) {
          xj = avx512::load_points(x + j);
        } else {
          uint32_t candidate[kLanes];
          for (uint32_t l = 0; l < kLanes; ++l) candidate[l] = j + (l < filled ? l : filled - 1);
          xj = avx512::gather(x, candidate);
        }
        const __m512i places = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(j)), lane);
        const __mmask16 in_row = static_cast<__mmask16>((1u << filled) - 1u);
        for (uint32_t p = 0; p < m; ++p) {
          if (!((open >> p) & 1u)) continue;
          const uint32_t i = first + p;
          const avx512::Lanes d2 = avx512::length_squared(x[i] - xj);
          __m512 d2v;
          std::memcpy(&d2v, &d2, sizeof d2v);
          // A neighbour where !(d2 >= r2), as the scalar scan decides (NaN included).
          uint32_t bits = _mm512_mask_cmp_ps_mask(in_row, d2v, r2, _CMP_NGE_UQ);
          if (i - j < kLanes) bits &= ~(1u << (i - j));
          const __m512i packed = _mm512_maskz_compress_epi32(static_cast<__mmask16>(bits), places);
          const uint32_t k = static_cast<uint32_t>(__builtin_popcount(bits));
          // Stored whole into the row on the stack (which has a group's room past
          // the stride), with no branch on where the list ends.
          uint32_t* row = local + p * step + found[p];
          _mm512_storeu_si512(row, packed);
          if (!avx512::take_group(k, stride, found[p])) {
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

uint32_t scan_neighbor_run_avx512(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n,
                                  uint32_t begin, uint32_t end, float radius, const ListRows& rows, uint32_t* count) {
  return avx512::scan_run_in_rows(
      spec, start, x, begin, end, radius, rows, count,
      [&](uint32_t first, uint32_t m, const int* lo, const int* hi, uint32_t stride, uint32_t* local, uint32_t step) {
        return scan_shared_block(spec, start, x, n, first, m, lo, hi, radius, stride, local, step, count);
      });
}

}  // namespace pbf

#pragma GCC diagnostic pop
#pragma GCC pop_options

#else

namespace pbf {

uint32_t scan_neighbor_run_avx512(const GridSpec& spec, const uint32_t* start, const Vec3* x, uint32_t n,
                                  uint32_t begin, uint32_t end, float radius, const ListRows& rows, uint32_t* count) {
  return scan_neighbor_run_avx2(spec, start, x, n, begin, end, radius, rows, count);
}

}  // namespace pbf

#endif
