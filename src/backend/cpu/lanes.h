// lanes.h - eight floats computed as one: the lane type with which the CPU
// runs the equations that are templated on it (core/sph_kernels.h and the
// methods' pair terms), eight neighbours of a particle at a time; or, where
// the including file names PBF_LANE_PARTICLES 2 (AVX-512), sixteen floats:
// eight neighbours of each of two particles, lanes 0-7 the first's and 8-15
// the second's, each particle's lanes computed exactly as in the eight-lane
// copies.
//
// Written with the vector extensions of GCC and Clang, so that the compiler
// chooses the instructions for the instruction set a file is compiled for:
// the library's baseline (x86-64: SSE2), or AVX2 in the files that a
// processor's features select at run time (backend/cpu/lane_targets.h). The
// width is always eight and every lane goes through the same IEEE operations
// in the same order (no fused multiply-adds), so results do not depend on
// the instruction set.
//
// Each instruction set's copy lives in a namespace of its own,
// pbf::PBF_LANE_TARGET, which the including file names: the types and inline
// functions of two copies must not meet at link time.
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "backend/cpu/lane_vector.h"  // PointValue
#include "core/hd.h"

#if !defined(PBF_LANE_TARGET) || !defined(PBF_LANE_BYTES)
#error "the file that includes lanes.h names its target: PBF_LANE_TARGET and PBF_LANE_BYTES"
#endif
#if !defined(PBF_LANE_PARTICLES)
#define PBF_LANE_PARTICLES 1
#endif

namespace pbf {
namespace PBF_LANE_TARGET {

// A group: eight neighbours of one particle.
constexpr uint32_t kGroup = 8;
// The particles whose groups are computed side by side: 1, or 2 (AVX-512).
constexpr uint32_t kParticles = PBF_LANE_PARTICLES;
static_assert(kParticles == 1 || kParticles == 2, "one particle's group of eight, or two particles'");
constexpr uint32_t kLanes = kGroup * kParticles;

// A value of kLanes lanes is held in vectors of the target's register width,
// PBF_LANE_BYTES (named by the including file with PBF_LANE_TARGET): one of
// 64 bytes for AVX-512 (sixteen lanes), one of 32 bytes for AVX, two of 16
// for SSE (GCC lowers a 32-byte vector without AVX through memory: slower
// than plain scalar code).
constexpr uint32_t kLaneParts = 4 * kLanes / PBF_LANE_BYTES;
constexpr uint32_t kLanesPerPart = kLanes / kLaneParts;
static_assert(kLaneParts * kLanesPerPart == kLanes && kLaneParts >= 1, "whole vectors");

struct LaneMask {
  typedef int32_t Part __attribute__((vector_size(4 * kLanesPerPart)));
  Part p[kLaneParts];  // -1 (all bits) where true, 0 where false

  int32_t operator[](uint32_t k) const { return p[k / kLanesPerPart][k % kLanesPerPart]; }

  // Every lane false.
  static LaneMask none() {
    LaneMask m;
    for (uint32_t q = 0; q < kLaneParts; ++q) m.p[q] = Part{};
    return m;
  }

  // Lane l true where first + l < end: the lanes of a group starting at item
  // `first` that hold one of `end` items.
  // (A constant 0, 1, 2, ... plus one broadcast value: set lane by lane,
  // GCC kept eight counters and inserted them one at a time.)
  static LaneMask below(uint32_t first, uint32_t end) {
    Part iota;
    for (uint32_t l = 0; l < kLanesPerPart; ++l) iota[l] = static_cast<int32_t>(l);
    LaneMask m;
    for (uint32_t q = 0; q < kLaneParts; ++q)
      m.p[q] = iota + static_cast<int32_t>(first + q * kLanesPerPart) < static_cast<int32_t>(end);
    return m;
  }

  // Each particle's count of items, end[p], in the lanes of its group (lane
  // p * 8 + l), for below_each(): set up once for a particle's groups.
  struct Ends {
    Part p[kLaneParts];
  };
  static Ends ends(const uint32_t* end) {
    Ends e;
    for (uint32_t q = 0; q < kLaneParts; ++q)
      for (uint32_t l = 0; l < kLanesPerPart; ++l)
        e.p[q][l] = static_cast<int32_t>(end[(q * kLanesPerPart + l) / kGroup]);
    return e;
  }

  // Lane l of particle p's group true where first + l < end[p]: the lanes of
  // each particle's group starting at item `first` that hold one of its
  // items. With one particle, below(first, end[0]).
  static LaneMask below_each(uint32_t first, const Ends& end) {
    LaneMask m;
    for (uint32_t q = 0; q < kLaneParts; ++q) {
      Part at;  // each lane's place in its group
      for (uint32_t l = 0; l < kLanesPerPart; ++l) at[l] = static_cast<int32_t>((q * kLanesPerPart + l) % kGroup);
      m.p[q] = at + static_cast<int32_t>(first) < end.p[q];
    }
    return m;
  }

  // Every lane of particle p's group true where first < end[p].
  static LaneMask reaching(uint32_t first, const Ends& end) {
    LaneMask m;
    for (uint32_t q = 0; q < kLaneParts; ++q) m.p[q] = static_cast<int32_t>(first) < end.p[q];
    return m;
  }
};

struct Lanes {
  typedef float Part __attribute__((vector_size(4 * kLanesPerPart)));
  Part p[kLaneParts];

  Lanes() = default;
  // One value in every lane; implicit, so that the templated equations may
  // mix constants of the solver (floats) with lanes.
  Lanes(float s) {  // NOLINT(google-explicit-constructor)
    for (uint32_t q = 0; q < kLaneParts; ++q) p[q] = s - Part{};  // s in every lane (s + 0 would turn -0 into +0)
  }

  float operator[](uint32_t k) const { return p[k / kLanesPerPart][k % kLanesPerPart]; }
  void set(uint32_t k, float v) { p[k / kLanesPerPart][k % kLanesPerPart] = v; }
};
static_assert(sizeof(Lanes) == kLanes * sizeof(float), "kLanes floats, packed");

// The operators, part by part.
#define PBF_LANES_BINARY(op)                                                         \
  inline Lanes operator op(Lanes a, Lanes b) {                                       \
    for (uint32_t q = 0; q < kLaneParts; ++q) a.p[q] = a.p[q] op b.p[q];             \
    return a;                                                                        \
  }
#define PBF_LANES_COMPARE(op)                                                        \
  inline LaneMask operator op(Lanes a, Lanes b) {                                    \
    LaneMask m;                                                                      \
    for (uint32_t q = 0; q < kLaneParts; ++q) m.p[q] = a.p[q] op b.p[q];             \
    return m;                                                                        \
  }
PBF_LANES_BINARY(+)
PBF_LANES_BINARY(-)
PBF_LANES_BINARY(*)
PBF_LANES_BINARY(/)
PBF_LANES_COMPARE(<)
PBF_LANES_COMPARE(<=)
PBF_LANES_COMPARE(>)
PBF_LANES_COMPARE(>=)
PBF_LANES_COMPARE(==)
PBF_LANES_COMPARE(!=)
#undef PBF_LANES_BINARY
#undef PBF_LANES_COMPARE

inline Lanes operator-(Lanes a) {
  for (uint32_t q = 0; q < kLaneParts; ++q) a.p[q] = -a.p[q];
  return a;
}
inline Lanes& operator+=(Lanes& a, Lanes b) { return a = a + b; }
inline LaneMask operator&(LaneMask a, LaneMask b) {
  for (uint32_t q = 0; q < kLaneParts; ++q) a.p[q] &= b.p[q];
  return a;
}
inline LaneMask operator|(LaneMask a, LaneMask b) {
  for (uint32_t q = 0; q < kLaneParts; ++q) a.p[q] |= b.p[q];
  return a;
}

// a where the mask is true, b elsewhere, lane by lane.
inline Lanes select(LaneMask take_a, Lanes a, Lanes b) {
  for (uint32_t q = 0; q < kLaneParts; ++q) a.p[q] = take_a.p[q] ? a.p[q] : b.p[q];
  return a;
}

// Whether any lane of the mask is true.
inline bool any(LaneMask m) {
#if defined(__x86_64__) && PBF_LANE_BYTES == 64
  __m512i v;
  __builtin_memcpy(&v, &m.p[0], sizeof v);
  return _mm512_test_epi32_mask(v, v) != 0;
#else
  LaneMask::Part bits = m.p[0];
  for (uint32_t q = 1; q < kLaneParts; ++q) bits |= m.p[q];
  int32_t any_bits = 0;
  for (uint32_t k = 0; k < kLanesPerPart; ++k) any_bits |= bits[k];
  return any_bits != 0;
#endif
}

// Lane by lane: the compiler turns the loop into vector square roots (the
// library compiles with -fno-math-errno).
inline Lanes square_root(Lanes a) {
  for (uint32_t q = 0; q < kLaneParts; ++q)
    for (uint32_t k = 0; k < kLanesPerPart; ++k) a.p[q][k] = __builtin_sqrtf(a.p[q][k]);
  return a;
}

// v^e lane by lane.
inline Lanes power(Lanes a, float e) {
  for (uint32_t q = 0; q < kLaneParts; ++q)
    for (uint32_t k = 0; k < kLanesPerPart; ++k) a.p[q][k] = __builtin_powf(a.p[q][k], e);
  return a;
}

// The sum of the eight lanes of particle p's group, always in the same order.
inline float lane_sum(Lanes a, uint32_t p = 0) {
  const uint32_t o = p * kGroup;
  return ((a[o + 0] + a[o + 4]) + (a[o + 1] + a[o + 5])) + ((a[o + 2] + a[o + 6]) + (a[o + 3] + a[o + 7]));
}

// Three coordinates of eight points.
struct Vec3Lanes {
  Lanes x, y, z;
};

inline Vec3Lanes operator-(Vec3 a, const Vec3Lanes& b) { return Vec3Lanes{a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3Lanes operator-(const Vec3Lanes& a, const Vec3Lanes& b) {
  return Vec3Lanes{a.x - b.x, a.y - b.y, a.z - b.z};
}
inline Vec3Lanes operator+(const Vec3Lanes& a, const Vec3Lanes& b) {
  return Vec3Lanes{a.x + b.x, a.y + b.y, a.z + b.z};
}
inline Vec3Lanes operator-(const Vec3Lanes& a, Vec3 b) { return Vec3Lanes{a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3Lanes operator*(const Vec3Lanes& a, Lanes s) { return Vec3Lanes{a.x * s, a.y * s, a.z * s}; }
inline Vec3Lanes cross(const Vec3Lanes& a, const Vec3Lanes& b) {
  return Vec3Lanes{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline Vec3Lanes& operator+=(Vec3Lanes& a, const Vec3Lanes& b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  return a;
}
inline Lanes length_squared(const Vec3Lanes& a) { return a.x * a.x + a.y * a.y + a.z * a.z; }

// Point l of the eight, read and written.
inline Vec3 lane(const Vec3Lanes& v, uint32_t l) { return Vec3{v.x[l], v.y[l], v.z[l]}; }
inline void set_lane(Vec3Lanes& v, uint32_t l, Vec3 a) {
  v.x.set(l, a.x);
  v.y.set(l, a.y);
  v.z.set(l, a.z);
}

#if defined(__x86_64__) && PBF_LANE_BYTES == 32
// Eight points from their coordinates in three vectors.
inline Vec3Lanes vec3_lanes(__m256 x, __m256 y, __m256 z) {
  Vec3Lanes g;
  __builtin_memcpy(&g.x, &x, sizeof x);
  __builtin_memcpy(&g.y, &y, sizeof y);
  __builtin_memcpy(&g.z, &z, sizeof z);
  return g;
}
#endif

// The sums of four values' lanes, each in lane_sum()'s order, particle p's
// four at out[4 p .. 4 p + 3]: on x86 the four reductions share their
// shuffles (the halves of each group added as one vector, then the four
// transposed and added as two), where four lane_sum()s took some sixty
// scalar instructions.
#if defined(__x86_64__) && (PBF_LANE_BYTES == 16 || PBF_LANE_BYTES == 32)
// a[k] + a[k + 4] for k = 0..3.
inline __m128 lane_halves(const Lanes& a) {
#if PBF_LANE_BYTES == 32
  __m256 v;
  __builtin_memcpy(&v, &a, sizeof v);
  return _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
#else
  __m128 lo, hi;
  __builtin_memcpy(&lo, &a.p[0], sizeof lo);
  __builtin_memcpy(&hi, &a.p[1], sizeof hi);
  return _mm_add_ps(lo, hi);
#endif
}

inline void lane_sums(const Lanes& a, const Lanes& b, const Lanes& c, const Lanes& d, float out[4 * kParticles]) {
  __m128 sa = lane_halves(a), sb = lane_halves(b), sc = lane_halves(c), sd = lane_halves(d);
  _MM_TRANSPOSE4_PS(sa, sb, sc, sd);  // sa: the four values' a[0] + a[4], sb: a[1] + a[5], ...
  _mm_storeu_ps(out, _mm_add_ps(_mm_add_ps(sa, sb), _mm_add_ps(sc, sd)));
}
#elif defined(__x86_64__) && PBF_LANE_BYTES == 64
// Each group's a[k] + a[k + 4], k = 0..3: the first particle's in the first
// 128 bits, the second's in the third.
inline __m512 lane_halves(const Lanes& a) {
  __m512 v;
  __builtin_memcpy(&v, &a, sizeof v);
  return _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
}

inline void lane_sums(const Lanes& a, const Lanes& b, const Lanes& c, const Lanes& d, float out[4 * kParticles]) {
  const __m512 sa = lane_halves(a), sb = lane_halves(b), sc = lane_halves(c), sd = lane_halves(d);
  // The transpose of _MM_TRANSPOSE4_PS within each 128 bits.
  const __m512 ab_lo = _mm512_unpacklo_ps(sa, sb), cd_lo = _mm512_unpacklo_ps(sc, sd);
  const __m512 ab_hi = _mm512_unpackhi_ps(sa, sb), cd_hi = _mm512_unpackhi_ps(sc, sd);
  const __m512 t0 = _mm512_shuffle_ps(ab_lo, cd_lo, _MM_SHUFFLE(1, 0, 1, 0));  // the values' a[0] + a[4]
  const __m512 t1 = _mm512_shuffle_ps(ab_lo, cd_lo, _MM_SHUFFLE(3, 2, 3, 2));  // a[1] + a[5]
  const __m512 t2 = _mm512_shuffle_ps(ab_hi, cd_hi, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 t3 = _mm512_shuffle_ps(ab_hi, cd_hi, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 sum = _mm512_add_ps(_mm512_add_ps(t0, t1), _mm512_add_ps(t2, t3));
  _mm_storeu_ps(out, _mm512_castps512_ps128(sum));
  _mm_storeu_ps(out + 4, _mm512_extractf32x4_ps(sum, 2));
}
#else
inline void lane_sums(const Lanes& a, const Lanes& b, const Lanes& c, const Lanes& d, float out[4 * kParticles]) {
  for (uint32_t p = 0; p < kParticles; ++p) {
    out[4 * p + 0] = lane_sum(a, p);
    out[4 * p + 1] = lane_sum(b, p);
    out[4 * p + 2] = lane_sum(c, p);
    out[4 * p + 3] = lane_sum(d, p);
  }
}
#endif

// The sums of a point's lanes, each particle's.
inline void lane_sums(const Vec3Lanes& a, Vec3 out[kParticles]) {
  float s[4 * kParticles];
  lane_sums(a.x, a.y, a.z, a.z, s);
  for (uint32_t p = 0; p < kParticles; ++p) out[p] = Vec3{s[4 * p], s[4 * p + 1], s[4 * p + 2]};
}

// The sum of a point's lanes: with two groups to a vector, the first
// group's (where fold() gathered one item's sums).
inline Vec3 lane_sum(const Vec3Lanes& a) {
  Vec3 s[kParticles];
  lane_sums(a, s);
  return s[0];
}

// Sums over the members of one item taken kLanes at a time (a Projective
// Fluids constraint's members, the boundary samples near a point): the
// eight-lane copies add each group of eight members' terms to an eight-lane
// sum, one group after the other. With two groups to a vector, fold() adds
// the first group's terms and then the second's to lanes 0-7 of the sum,
// in that order, so that lane_sum() of those lanes gives the eight-lane
// copies' bits; lanes 8-15 of the sum are never read. With one group it is
// the sum's own addition.
inline Lanes fold(Lanes sum, Lanes terms) {
#if PBF_LANE_PARTICLES == 1
  return sum + terms;
#else
  Lanes upper;  // lanes 8-15 of the terms in lanes 0-7
#if defined(__x86_64__) && PBF_LANE_BYTES == 64
  __m512 v;
  __builtin_memcpy(&v, &terms, sizeof v);
  v = _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(1, 0, 3, 2));
  __builtin_memcpy(&upper, &v, sizeof v);
#else
  for (uint32_t l = 0; l < kLanes; ++l) upper.set(l, terms[(l + kGroup) % kLanes]);
#endif
  return (sum + terms) + upper;
#endif
}
inline Vec3Lanes fold(const Vec3Lanes& sum, const Vec3Lanes& terms) {
  return Vec3Lanes{fold(sum.x, terms.x), fold(sum.y, terms.y), fold(sum.z, terms.z)};
}

// Where the neighbour indices of each particle's group are: j[p] points to
// particle p's eight.
struct LaneIndex {
  const uint32_t* j[kParticles];
};

// The points p[index[0..7]] (with two particles, lanes 8-15 from index[8..15]).
// On x86 each point is read as one vector of four floats (x, y, z and the
// next point's x, or the tail of a LaneVector after the last point:
// backend/cpu/lane_vector.h) and the points are transposed into x, y and z;
// built lane by lane, the compiler spends three scalar loads and three
// inserts per point. The same values land in the same lanes either way. So
// every array of points that the lanes gather from must be a LaneVector, or
// have 4 bytes more that may be read.
#if defined(__x86_64__) && (PBF_LANE_BYTES == 16 || PBF_LANE_BYTES == 32 || PBF_LANE_BYTES == 64)
inline __m128 load_point(const Vec3& q) {
  static_assert(sizeof(Vec3) == 3 * sizeof(float), "Vec3 is three packed floats");
  return _mm_loadu_ps(&q.x);  // the fourth float is the next point's x, or the LaneVector's tail
}
#endif

#if defined(__x86_64__) && PBF_LANE_BYTES == 64
// The points p[j.j[0][0..7]] in lanes 0-7 and p[j.j[1][0..7]] in lanes 8-15:
// 128 bits each, four to a vector (points k, k + 4, k + 8, k + 12), then
// the eight-lane copies' shuffles within each 128 bits.
inline Vec3Lanes gather(const Vec3* p, const LaneIndex& j) {
  __m512 q[4];
  for (uint32_t k = 0; k < 4; ++k) {
    __m512 v = _mm512_castps128_ps512(load_point(p[j.j[0][k]]));
    v = _mm512_insertf32x4(v, load_point(p[j.j[0][k + 4]]), 1);
    v = _mm512_insertf32x4(v, load_point(p[j.j[1][k]]), 2);
    q[k] = _mm512_insertf32x4(v, load_point(p[j.j[1][k + 4]]), 3);
  }
  const __m512 xy01 = _mm512_unpacklo_ps(q[0], q[1]), z01 = _mm512_unpackhi_ps(q[0], q[1]);
  const __m512 xy23 = _mm512_unpacklo_ps(q[2], q[3]), z23 = _mm512_unpackhi_ps(q[2], q[3]);
  const __m512 x = _mm512_shuffle_ps(xy01, xy23, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 y = _mm512_shuffle_ps(xy01, xy23, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 z = _mm512_shuffle_ps(z01, z23, _MM_SHUFFLE(1, 0, 1, 0));
  Vec3Lanes g;
  __builtin_memcpy(&g.x, &x, sizeof x);
  __builtin_memcpy(&g.y, &y, sizeof y);
  __builtin_memcpy(&g.z, &z, sizeof z);
  return g;
}

inline Vec3Lanes gather(const Vec3* p, const uint32_t* index) { return gather(p, LaneIndex{{index, index + kGroup}}); }
#else
inline Vec3Lanes gather(const Vec3* p, const uint32_t* index) {
#if defined(__x86_64__) && PBF_LANE_BYTES == 32
  __m256 q[4];
  for (uint32_t k = 0; k < 4; ++k)
    q[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(load_point(p[index[k]])), load_point(p[index[k + 4]]), 1);
  const __m256 xy01 = _mm256_unpacklo_ps(q[0], q[1]), z01 = _mm256_unpackhi_ps(q[0], q[1]);
  const __m256 xy23 = _mm256_unpacklo_ps(q[2], q[3]), z23 = _mm256_unpackhi_ps(q[2], q[3]);
  return vec3_lanes(_mm256_shuffle_ps(xy01, xy23, _MM_SHUFFLE(1, 0, 1, 0)),
                    _mm256_shuffle_ps(xy01, xy23, _MM_SHUFFLE(3, 2, 3, 2)),
                    _mm256_shuffle_ps(z01, z23, _MM_SHUFFLE(1, 0, 1, 0)));
#else
  Vec3Lanes g;
#if defined(__x86_64__) && PBF_LANE_BYTES == 16
  for (uint32_t half = 0; half < 2; ++half) {
    __m128 q0 = load_point(p[index[4 * half]]), q1 = load_point(p[index[4 * half + 1]]);
    __m128 q2 = load_point(p[index[4 * half + 2]]), q3 = load_point(p[index[4 * half + 3]]);
    _MM_TRANSPOSE4_PS(q0, q1, q2, q3);
    __builtin_memcpy(&g.x.p[half], &q0, sizeof q0);
    __builtin_memcpy(&g.y.p[half], &q1, sizeof q1);
    __builtin_memcpy(&g.z.p[half], &q2, sizeof q2);
  }
#else
  for (uint32_t k = 0; k < kLanes; ++k) set_lane(g, k, p[index[k]]);
#endif
  return g;
#endif
}

inline Vec3Lanes gather(const Vec3* p, const LaneIndex& j) {
  static_assert(kParticles == 1, "the two-particle copies gather above");
  return gather(p, j.j[0]);
}
#endif

// The points and values of q[j] (PointValue: one aligned load of four
// floats each, transposed into x, y, z and the value), in the lanes of
// gather(const Vec3*, ...).
struct Vec3ValueLanes {
  Vec3Lanes p;
  Lanes value;
};

inline Vec3ValueLanes gather(const PointValue* q, const LaneIndex& j) {
  Vec3ValueLanes g;
#if defined(__x86_64__) && PBF_LANE_BYTES == 64
  __m512 v[4];
  for (uint32_t k = 0; k < 4; ++k) {
    __m512 a = _mm512_castps128_ps512(_mm_load_ps(&q[j.j[0][k]].p.x));
    a = _mm512_insertf32x4(a, _mm_load_ps(&q[j.j[0][k + 4]].p.x), 1);
    a = _mm512_insertf32x4(a, _mm_load_ps(&q[j.j[1][k]].p.x), 2);
    v[k] = _mm512_insertf32x4(a, _mm_load_ps(&q[j.j[1][k + 4]].p.x), 3);
  }
  const __m512 xy01 = _mm512_unpacklo_ps(v[0], v[1]), zw01 = _mm512_unpackhi_ps(v[0], v[1]);
  const __m512 xy23 = _mm512_unpacklo_ps(v[2], v[3]), zw23 = _mm512_unpackhi_ps(v[2], v[3]);
  const __m512 x = _mm512_shuffle_ps(xy01, xy23, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 y = _mm512_shuffle_ps(xy01, xy23, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 z = _mm512_shuffle_ps(zw01, zw23, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 w = _mm512_shuffle_ps(zw01, zw23, _MM_SHUFFLE(3, 2, 3, 2));
  __builtin_memcpy(&g.p.x, &x, sizeof x);
  __builtin_memcpy(&g.p.y, &y, sizeof y);
  __builtin_memcpy(&g.p.z, &z, sizeof z);
  __builtin_memcpy(&g.value, &w, sizeof w);
#elif defined(__x86_64__) && PBF_LANE_BYTES == 32
  const uint32_t* index = j.j[0];
  __m256 v[4];
  for (uint32_t k = 0; k < 4; ++k)
    v[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(&q[index[k]].p.x)), _mm_load_ps(&q[index[k + 4]].p.x),
                                1);
  const __m256 xy01 = _mm256_unpacklo_ps(v[0], v[1]), zw01 = _mm256_unpackhi_ps(v[0], v[1]);
  const __m256 xy23 = _mm256_unpacklo_ps(v[2], v[3]), zw23 = _mm256_unpackhi_ps(v[2], v[3]);
  g.p = vec3_lanes(_mm256_shuffle_ps(xy01, xy23, _MM_SHUFFLE(1, 0, 1, 0)),
                   _mm256_shuffle_ps(xy01, xy23, _MM_SHUFFLE(3, 2, 3, 2)),
                   _mm256_shuffle_ps(zw01, zw23, _MM_SHUFFLE(1, 0, 1, 0)));
  const __m256 w = _mm256_shuffle_ps(zw01, zw23, _MM_SHUFFLE(3, 2, 3, 2));
  __builtin_memcpy(&g.value, &w, sizeof w);
#elif defined(__x86_64__) && PBF_LANE_BYTES == 16
  const uint32_t* index = j.j[0];
  for (uint32_t half = 0; half < 2; ++half) {
    __m128 q0 = _mm_load_ps(&q[index[4 * half]].p.x), q1 = _mm_load_ps(&q[index[4 * half + 1]].p.x);
    __m128 q2 = _mm_load_ps(&q[index[4 * half + 2]].p.x), q3 = _mm_load_ps(&q[index[4 * half + 3]].p.x);
    _MM_TRANSPOSE4_PS(q0, q1, q2, q3);
    __builtin_memcpy(&g.p.x.p[half], &q0, sizeof q0);
    __builtin_memcpy(&g.p.y.p[half], &q1, sizeof q1);
    __builtin_memcpy(&g.p.z.p[half], &q2, sizeof q2);
    __builtin_memcpy(&g.value.p[half], &q3, sizeof q3);
  }
#else
  for (uint32_t k = 0; k < kLanes; ++k) {
    const PointValue& a = q[j.j[k / kGroup][k % kGroup]];
    set_lane(g.p, k, a.p);
    g.value.set(k, a.value);
  }
#endif
  return g;
}

// The points p[0 .. kLanes - 1] (all their floats read).
inline Vec3Lanes load_points(const Vec3* p) {
#if defined(__x86_64__) && PBF_LANE_BYTES == 32
  // Three vectors of four points' worth of floats in each half, then five
  // in-lane shuffles (no lane crossing).
  const float* f = &p[0].x;
  const __m256 m03 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(f)), _mm_loadu_ps(f + 12), 1);
  const __m256 m14 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(f + 4)), _mm_loadu_ps(f + 16), 1);
  const __m256 m25 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(f + 8)), _mm_loadu_ps(f + 20), 1);
  const __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2));  // x2 y2 x3 y3 | x6 y6 x7 y7
  const __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1));  // y0 z0 y1 z1 | y4 z4 y5 z5
  return vec3_lanes(_mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0)),
                    _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0)),
                    _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1)));
#elif defined(__x86_64__) && PBF_LANE_BYTES == 64
  static constexpr uint32_t kIota[kLanes] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  return gather(p, kIota);  // the last point's fourth float is read: p + 16 must exist, or the tail
#else
  Vec3Lanes g;
  for (uint32_t k = 0; k < kLanes; ++k) set_lane(g, k, p[k]);
  return g;
#endif
}

// kLanes contiguous floats from p, and to p (no alignment needed).
inline Lanes load(const float* p) {
  Lanes a;
  __builtin_memcpy(&a, p, sizeof a);
  return a;
}
inline void store(float* p, Lanes a) { __builtin_memcpy(p, &a, sizeof a); }

// The values v[index[0 .. kLanes - 1]].
inline Lanes gather(const float* v, const uint32_t* index) {
  Lanes g;
  for (uint32_t k = 0; k < kLanes; ++k) g.set(k, v[index[k]]);
  return g;
}

// The values v[j.j[p][l]] in lane p * 8 + l.
inline Lanes gather(const float* v, const LaneIndex& j) {
  Lanes g;
#if defined(__x86_64__) && PBF_LANE_BYTES == 64
  // Four values to each 128 bits, one insert each: built lane by lane, GCC
  // spent a masked broadcast and a mask register per lane, and the gather
  // instruction was slower still.
  __m128 quarter[4];
  for (uint32_t h = 0; h < 4; ++h) {
    const uint32_t* q = j.j[h / 2] + 4 * (h % 2);
    __m128 a = _mm_load_ss(v + q[0]);
    a = _mm_insert_ps(a, _mm_load_ss(v + q[1]), 0x10);
    a = _mm_insert_ps(a, _mm_load_ss(v + q[2]), 0x20);
    quarter[h] = _mm_insert_ps(a, _mm_load_ss(v + q[3]), 0x30);
  }
  __m512 values = _mm512_castps128_ps512(quarter[0]);
  values = _mm512_insertf32x4(values, quarter[1], 1);
  values = _mm512_insertf32x4(values, quarter[2], 2);
  values = _mm512_insertf32x4(values, quarter[3], 3);
  __builtin_memcpy(&g, &values, sizeof g);
#else
  for (uint32_t k = 0; k < kLanes; ++k) g.set(k, v[j.j[k / kGroup][k % kGroup]]);
#endif
  return g;
}

}  // namespace PBF_LANE_TARGET
}  // namespace pbf
