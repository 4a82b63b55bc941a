// capi_guard.h - what every C entry point wraps its body in: the thread-local
// last error, argument checks that name the argument, and the catch-all that
// turns any C++ exception into a status.
#pragma once

#include <cmath>
#include <new>
#include <sstream>
#include <string>

#include "core/error.h"
#include "pbf/pbf.h"

namespace pbf::capi {

// Records `message` as the thread's last error and returns `status`.
pbf_status fail(const char* function, pbf_status status, const std::string& message);

// Runs `body`; an exception becomes a status and a message that starts with
// the function's name.
template <class Body>
pbf_status guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    return PBF_OK;
  } catch (const Error& e) {
    return fail(function, static_cast<pbf_status>(e.status()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(function, PBF_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(function, PBF_ERROR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(function, PBF_ERROR_INTERNAL, "internal error: unknown exception");
  }
}

[[noreturn]] inline void reject(pbf_status status, const std::string& message) {
  throw Error(static_cast<Status>(status), message);
}

inline void require_not_null(const void* p, const char* name) {
  if (p == nullptr) reject(PBF_ERROR_NULL_POINTER, std::string(name) + " is NULL");
}

template <class T>
std::string describe(T value) {
  std::ostringstream s;
  s << value;
  return s.str();
}

inline void require_finite(float v, const std::string& name) {
  if (!std::isfinite(v)) reject(PBF_ERROR_INVALID_ARGUMENT, name + " must be finite, got " + describe(v));
}

// Finite and in [lo, hi].
inline void require_in_range(float v, float lo, float hi, const std::string& name) {
  require_finite(v, name);
  if (v < lo || v > hi)
    reject(PBF_ERROR_INVALID_ARGUMENT,
           name + " must be in [" + describe(lo) + ", " + describe(hi) + "], got " + describe(v));
}

// Finite and > 0.
inline void require_positive(float v, const std::string& name) {
  require_finite(v, name);
  if (!(v > 0.0f)) reject(PBF_ERROR_INVALID_ARGUMENT, name + " must be > 0, got " + describe(v));
}

}  // namespace pbf::capi
