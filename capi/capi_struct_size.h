// capi_struct_size.h - every layout the public structs have had, and the
// reads and writes that honour a caller's struct_size: a program compiled
// against an older pbf.h passes a smaller struct, and the library reads only
// the fields it holds (defaults for the rest) and writes no byte past it.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "capi/capi_guard.h"
#include "pbf/pbf.h"

namespace pbf::capi {

// Layouts<T>::sizes lists the struct_size of every released layout of T, oldest
// first, the current sizeof(T) last. Each earlier entry is the offsetof of the
// first field appended after that layout. Appending a field to T adds one line:
// offsetof(T, the_new_field) just before sizeof(T).
template <class T>
struct Layouts;

template <>
struct Layouts<pbf_solver_desc> {
  static constexpr const char* type = "pbf_solver_desc";
  static constexpr size_t sizes[] = {
      offsetof(pbf_solver_desc, method),  // 0.1, PBF only: ends at max_neighbors
      sizeof(pbf_solver_desc),
  };
  static pbf_solver_desc defaults() { return pbf_solver_desc_default(); }
};

// The size of a layout of T that ended just before `offset`: with its tail
// padding, as sizeof gave it to the programs built against it.
template <class T>
constexpr size_t layout_end(size_t offset) {
  return (offset + alignof(T) - 1) / alignof(T) * alignof(T);
}

template <>
struct Layouts<pbf_params> {
  static constexpr const char* type = "pbf_params";
  static constexpr size_t sizes[] = {
      offsetof(pbf_params, projective_stiffness),  // 0.1, PBF only: ends at max_speed
      layout_end<pbf_params>(offsetof(pbf_params, reserved)),  // ends at projective_chebyshev_rho
      sizeof(pbf_params),
  };
  static pbf_params defaults() { return pbf_params_default(); }
};

template <>
struct Layouts<pbf_stats> {
  static constexpr const char* type = "pbf_stats";
  static constexpr size_t sizes[] = {
      offsetof(pbf_stats, local_global_iterations),  // 0.1, PBF only: ends at time_vorticity_viscosity_ms
      sizeof(pbf_stats),
  };
  static pbf_stats defaults() { return pbf_stats_default(); }
};

// pbf_surface_params as first released: its size with tail padding, which
// the fields appended after it (behind `reserved`) must not reuse.
struct SurfaceParamsV1 {
  size_t struct_size;
  float cell_size, smoothing_radius, iso_level;
};
static_assert(offsetof(pbf_surface_params, anisotropy) >= sizeof(SurfaceParamsV1),
              "no appended field of pbf_surface_params lies in the first layout's padding");

template <>
struct Layouts<pbf_surface_params> {
  static constexpr const char* type = "pbf_surface_params";
  static constexpr size_t sizes[] = {
      sizeof(SurfaceParamsV1),  // the first layout: ends at iso_level
      sizeof(pbf_surface_params),
  };
  static pbf_surface_params defaults() { return pbf_surface_params_default(); }
};

// Sizes grow, start past struct_size itself and end at sizeof(T).
template <class T>
constexpr bool layouts_well_formed() {
  constexpr size_t n = sizeof(Layouts<T>::sizes) / sizeof(size_t);
  if (Layouts<T>::sizes[0] < sizeof(size_t) || Layouts<T>::sizes[n - 1] != sizeof(T)) return false;
  for (size_t i = 1; i < n; ++i)
    if (Layouts<T>::sizes[i] <= Layouts<T>::sizes[i - 1]) return false;
  return true;
}
static_assert(layouts_well_formed<pbf_solver_desc>(), "Layouts<pbf_solver_desc>::sizes");
static_assert(layouts_well_formed<pbf_params>(), "Layouts<pbf_params>::sizes");
static_assert(layouts_well_formed<pbf_stats>(), "Layouts<pbf_stats>::sizes");
static_assert(layouts_well_formed<pbf_surface_params>(), "Layouts<pbf_surface_params>::sizes");

// A released size never changes: a field inserted before the end of an old layout fails here.
static_assert(sizeof(size_t) != 8 || Layouts<pbf_solver_desc>::sizes[0] == 64, "pbf_solver_desc 0.1 was 64 bytes");
static_assert(sizeof(size_t) != 8 || Layouts<pbf_params>::sizes[0] == 64, "pbf_params 0.1 was 64 bytes");
static_assert(sizeof(size_t) != 8 || Layouts<pbf_stats>::sizes[0] == 104, "pbf_stats 0.1 was 104 bytes");
static_assert(sizeof(size_t) != 8 || Layouts<pbf_params>::sizes[1] == 112, "pbf_params 0.2 was 112 bytes");
// pbf_stats.density_iterations went into the second layout's tail padding: that layout (128 bytes)
// has the size of this one, and the library writes the field there, where the caller never reads it.
static_assert(sizeof(size_t) != 8 ||
                  (sizeof(pbf_stats) == 128 &&
                   layout_end<pbf_stats>(offsetof(pbf_stats, density_iterations)) == sizeof(pbf_stats)),
              "pbf_stats 0.2 was 128 bytes, and density_iterations lies in its padding");
static_assert(sizeof(size_t) != 8 || Layouts<pbf_surface_params>::sizes[0] == 24, "pbf_surface_params was 24 bytes");

// `got` if it is the size of one of T's layouts; any other size is refused
// with a message naming `name` and the sizes this library accepts.
template <class T>
size_t require_known_size(size_t got, const char* name) {
  constexpr size_t n = sizeof(Layouts<T>::sizes) / sizeof(size_t);
  for (size_t size : Layouts<T>::sizes)
    if (got == size) return got;
  std::string known;
  for (size_t i = 0; i < n; ++i) known += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + describe(Layouts<T>::sizes[i]);
  reject(PBF_ERROR_VERSION_MISMATCH, std::string(name) + "->struct_size is " + describe(got) + ", not a size of " +
                                         Layouts<T>::type + " this library knows (" + known +
                                         "); initialise the struct with " + Layouts<T>::type + "_default()");
}

// The caller's struct_size, read as bytes: the struct may be smaller than T.
template <class T>
size_t struct_size_of(const T* s) {
  size_t size = 0;
  std::memcpy(&size, static_cast<const void*>(s), sizeof size);
  return size;
}

// The caller's struct in this version's layout: the fields its struct_size
// holds, and T's defaults for the fields appended after its layout.
template <class T>
T read_struct(const T* in, const char* name) {
  const size_t size = require_known_size<T>(struct_size_of(in), name);
  T full = Layouts<T>::defaults();
  std::memcpy(static_cast<void*>(&full), static_cast<const void*>(in), size);
  full.struct_size = sizeof(T);
  return full;
}

// Lets `fill` set the fields of a zeroed struct of this version, then copies
// it into the caller's struct up to its struct_size, which stays as it is.
template <class T, class Fill>
void write_struct(T* out, const char* name, Fill&& fill) {
  const size_t size = require_known_size<T>(struct_size_of(out), name);
  T full;
  std::memset(static_cast<void*>(&full), 0, sizeof full);  // no indeterminate padding reaches the caller
  fill(full);
  constexpr size_t head = sizeof(size_t);  // struct_size, the first field of every layout
  std::memcpy(static_cast<unsigned char*>(static_cast<void*>(out)) + head,
              static_cast<const unsigned char*>(static_cast<const void*>(&full)) + head, size - head);
}

}  // namespace pbf::capi
