// atomic_file.h - how pbf-sim replaces its output files: a new file under a
// unique temporary name beside the target, flushed to the disk and renamed
// onto it, and never onto anything but a regular file.
#ifndef PBF_SIM_ATOMIC_FILE_H
#define PBF_SIM_ATOMIC_FILE_H

#include <cstddef>
#include <cstdio>
#include <string>

namespace pbf_sim {

/**
 * A file written under a temporary name and renamed onto its path by
 * commit(); dropped unfinished, it removes the temporary file. The
 * temporary name is `path` + ".partial-" and 8 hex digits, created with
 * O_EXCL (a file of that name, or a link, is never opened or replaced).
 * Every failure throws std::runtime_error naming the path and the reason;
 * `path` then keeps its old contents.
 */
class AtomicFile {
 public:
  /** Creates the temporary file; throws when `path` exists and is not a regular file (a folder, a FIFO). */
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /** The open temporary file, for writers that take a FILE* (libpng). */
  std::FILE* stream() { return file_; }
  /** Appends `bytes` bytes. */
  void write(const void* data, size_t bytes);
  void write(const std::string& text) { write(text.data(), text.size()); }
  /** Flushes the file to the disk and renames it onto the path, checked again to be replaceable. */
  void commit();

 private:
  std::string path_;
  std::string temp_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

/**
 * Writes `text` to `path` through an AtomicFile, so that readers see the old
 * file or the new one, never a part. Throws std::runtime_error naming the
 * path and the system's reason.
 */
void write_text_atomically(const std::string& path, const std::string& text);

}  // namespace pbf_sim

#endif  // PBF_SIM_ATOMIC_FILE_H
