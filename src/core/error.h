// error.h - the one exception type the library throws internally. The C API
// turns it into a pbf_status and a message; nothing else crosses the ABI.
#pragma once

#include <stdexcept>
#include <string>

namespace pbf {

// Mirrors pbf_status in include/pbf/pbf.h value for value.
enum class Status : int {
  Ok = 0,
  InvalidArgument = 1,
  NullPointer = 2,
  BufferTooSmall = 3,
  CapacityExceeded = 4,
  BackendUnavailable = 5,
  OutOfMemory = 6,
  VersionMismatch = 7,
  Io = 8,
  Internal = 9,
  Busy = 10,
};

class Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  Status status() const { return status_; }

 private:
  Status status_;
};

}  // namespace pbf
