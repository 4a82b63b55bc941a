// file_access.h - how the library reads and replaces its own files
// (checkpoints, signed distance fields): a loader opens regular files only,
// never blocks on a FIFO or a device, and reads a bounded header before the
// payload that header announces; a save writes a temporary file beside its
// target and renames it, and never replaces anything but a regular file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace pbf {

// A regular file open for reading, closed when destroyed.
class InputFile {
 public:
  // Opens `path` (following symbolic links) without blocking, then checks on
  // the opened descriptor that it is a regular file. Throws Error(Status::Io)
  // naming the path when it cannot be opened or is a directory, a FIFO, a
  // device or a socket.
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // The file's size in bytes when it was opened: what a loader checks a
  // header's announced sizes against before it allocates.
  uint64_t size() const { return size_; }

  // Reads the next `n` bytes into `out`. Throws Error(Status::Io) naming the
  // path when reading fails or the file ends before them (it changed since
  // it was opened).
  void read(void* out, size_t n);

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Bytes to write, one piece of a file.
struct ByteSpan {
  const void* data;
  size_t size;
};

// Writes `parts`, one after another, to a new temporary file beside `path`,
// flushes it to the disk and renames it onto `path`, so that `path` holds
// either its old contents or the complete new ones. Throws Error(Status::Io)
// naming the path when `path` exists and is not a regular file (a directory,
// a FIFO, a device: such a thing is never replaced), or when creating,
// writing, flushing or renaming fails; the temporary file is removed then,
// and a file at `path` keeps its contents.
void save_atomically(const std::string& path, std::initializer_list<ByteSpan> parts);

}  // namespace pbf
