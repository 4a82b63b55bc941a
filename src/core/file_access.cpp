#include "core/file_access.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/error.h"

namespace pbf {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
  throw Error(Status::Io, "path: cannot " + what + " '" + path + "': " + std::strerror(error));
}

// What a file that is not a regular file is, for messages.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

// Closes a descriptor and unlinks a temporary file unless released.
class TemporaryFile {
 public:
  TemporaryFile(std::string name, int fd) : name_(std::move(name)), fd_(fd) {}
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!name_.empty()) ::unlink(name_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  // Closes the descriptor; returns close()'s result.
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }
  void keep() { name_.clear(); }

 private:
  std::string name_;
  int fd_;
};

// A new file beside `path` that no one else has opened: O_EXCL on names
// that differ from call to call, created with the usual 0666 & ~umask.
TemporaryFile create_temporary(const std::string& path) {
  uint64_t seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                  (static_cast<uint64_t>(::getpid()) << 40) ^ reinterpret_cast<uintptr_t>(&path);
  for (int attempt = 0; attempt < 64; ++attempt) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    static const char digits[] = "0123456789abcdef";
    std::string name = path + ".partial-";
    for (int d = 0; d < 8; ++d) name += digits[(seed >> (60 - 4 * d)) & 0xF];
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0) return TemporaryFile(std::move(name), fd);
    if (errno != EEXIST) fail("create", name, errno);
  }
  throw Error(Status::Io, "path: cannot create a temporary file beside '" + path + "': every name tried exists");
}

// Refuses to replace anything at `path` but a regular file (or nothing).
void require_replaceable(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    fail("inspect", path, errno);
  }
  if (!S_ISREG(st.st_mode))
    throw Error(Status::Io, "path: '" + path + "' is " + kind_of(st.st_mode) +
                                ", not a regular file; a save replaces only regular files");
}

}  // namespace

InputFile::InputFile(const std::string& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of
  // waiting; the descriptor is then refused below.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd_ < 0) fail("open", path, errno);
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    const int error = errno;
    ::close(fd_);
    fail("inspect", path, error);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw Error(Status::Io, "path: '" + path + "' is " + kind_of(st.st_mode) +
                                ", not a regular file; only regular files are read");
  }
  size_ = static_cast<uint64_t>(st.st_size);
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

InputFile::~InputFile() { ::close(fd_); }

void InputFile::read(void* out, size_t n) {
  unsigned char* at = static_cast<unsigned char*>(out);
  while (n > 0) {
    const ssize_t got = ::read(fd_, at, n);
    if (got < 0) {
      if (errno == EINTR) continue;
      fail("read", path_, errno);
    }
    if (got == 0) throw Error(Status::Io, "path: '" + path_ + "' ended early: it changed while it was read");
    at += got;
    n -= static_cast<size_t>(got);
  }
}

void save_atomically(const std::string& path, std::initializer_list<ByteSpan> parts) {
  require_replaceable(path);  // before anything is written
  TemporaryFile temp = create_temporary(path);
  for (const ByteSpan& part : parts) {
    const unsigned char* at = static_cast<const unsigned char*>(part.data);
    size_t left = part.size;
    while (left > 0) {
      const ssize_t put = ::write(temp.fd(), at, left);
      if (put < 0) {
        if (errno == EINTR) continue;
        fail("write", temp.name(), errno);
      }
      at += put;
      left -= static_cast<size_t>(put);
    }
  }
  if (::fsync(temp.fd()) != 0) fail("flush", temp.name(), errno);
  if (temp.close() != 0) fail("write", temp.name(), errno);
  require_replaceable(path);  // again, just before the rename: the target may have changed meanwhile
  if (::rename(temp.name().c_str(), path.c_str()) != 0) fail("rename a temporary file onto", path, errno);
  temp.keep();
  // The rename itself reaches the disk with the folder's entry.
  const size_t slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);  // best effort: the new file is in place either way
    ::close(dir);
  }
}

}  // namespace pbf
