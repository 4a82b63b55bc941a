// atomic_file.cpp - unique temporary files renamed onto regular files only.
#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace pbf_sim {

namespace {

[[noreturn]] void fail(const char* what, const std::string& path, int error) {
  throw std::runtime_error("cannot " + std::string(what) + " '" + path + "': " + std::strerror(error));
}

// Refuses to replace anything at `path` but a regular file (or nothing).
void require_replaceable(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    fail("inspect", path, errno);
  }
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error("cannot write '" + path + "': it exists and is not a regular file (" +
                             (S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a special file") +
                             "); only regular files are replaced");
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  require_replaceable(path_);
  uint64_t seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                  (static_cast<uint64_t>(::getpid()) << 40) ^ reinterpret_cast<uintptr_t>(this);
  int fd = -1;
  for (int attempt = 0; attempt < 64 && fd < 0; ++attempt) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    static const char digits[] = "0123456789abcdef";
    temp_ = path_ + ".partial-";
    for (int d = 0; d < 8; ++d) temp_ += digits[(seed >> (60 - 4 * d)) & 0xF];
    fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0 && errno != EEXIST) fail("create", temp_, errno);
  }
  if (fd < 0) throw std::runtime_error("cannot create a temporary file beside '" + path_ + "': every name tried exists");
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int error = errno;
    ::close(fd);
    ::unlink(temp_.c_str());
    fail("open", temp_, error);
  }
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::write(const void* data, size_t bytes) {
  if (bytes > 0 && std::fwrite(data, 1, bytes, file_) != bytes) fail("write", temp_, errno);
}

void AtomicFile::commit() {
  if (std::fflush(file_) != 0) fail("write", temp_, errno);
  if (::fsync(::fileno(file_)) != 0) fail("flush", temp_, errno);
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) fail("write", temp_, errno);
  require_replaceable(path_);  // again, just before the rename: the target may have changed meanwhile
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) fail("rename a temporary file onto", path_, errno);
  committed_ = true;
}

void write_text_atomically(const std::string& path, const std::string& text) {
  AtomicFile f(path);
  f.write(text);
  f.commit();
}

}  // namespace pbf_sim
