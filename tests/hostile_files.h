// hostile_files.h - what the file tests of checkpoints and signed distance
// fields share: a private folder, FIFOs and devices to point loaders and
// saves at, and a child process that runs a call which might block or read
// without end, so that such a test fails instead of hanging or exhausting
// the machine.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__)
#define PBF_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PBF_TEST_UNDER_ASAN 1
#endif
#endif

namespace pbf_test {

// A new empty folder, removed with what is left in it when destroyed.
class TempFolder {
 public:
  TempFolder() {
    std::string pattern = ::testing::TempDir() + "pbf_files_XXXXXX";
    if (::mkdtemp(&pattern[0]) == nullptr) ADD_FAILURE() << "mkdtemp: " << std::strerror(errno);
    path_ = pattern;
  }
  ~TempFolder() {
    for (const std::string& name : names()) {
      const std::string p = path_ + "/" + name;
      if (::rmdir(p.c_str()) != 0) ::unlink(p.c_str());
    }
    ::rmdir(path_.c_str());
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

  // The names in the folder, "." and ".." left out.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    if (DIR* d = ::opendir(path_.c_str())) {
      while (const dirent* e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.push_back(e->d_name);
      ::closedir(d);
    }
    return out;
  }

 private:
  std::string path_;
};

// The file type bits of `path` itself (0 when it does not exist).
inline mode_t kind_of(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

// A character device like /dev/null at `path`; false where this process may
// not make device nodes.
inline bool make_null_device(const std::string& path) {
  return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
}

inline std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// How a call run in a child process ended.
struct ChildOutcome {
  bool finished = false;  // it returned within the limits
  int code = -1;          // what it returned, when it did
  std::string message;    // the message it reported
  std::string how;        // otherwise, the signal that ended it
};

// Runs `call` (which returns a small code and may set a message) in a forked
// child that is killed after `seconds` and, outside AddressSanitizer, may
// take at most 1 GiB more address space than this process holds now.
inline ChildOutcome run_in_child(const std::function<int(std::string&)>& call, unsigned seconds = 20) {
  ChildOutcome outcome;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return outcome;
  }
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    ::alarm(seconds);
#if !defined(PBF_TEST_UNDER_ASAN)
    long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    if (pages > 0) {
      const rlim_t limit = rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE)) + (rlim_t(1) << 30);
      const struct rlimit memory = {limit, limit};
      ::setrlimit(RLIMIT_AS, &memory);
    }
#endif
    std::string message;
    const int code = call(message);
    const ssize_t written = ::write(pipe_fds[1], message.data(), message.size());
    (void)written;  // a lost message shows in the test's own check
    ::_exit(code & 0xFF);
  }
  ::close(pipe_fds[1]);
  if (child < 0) {
    ::close(pipe_fds[0]);
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return outcome;
  }
  char buffer[512];
  ssize_t got;
  while ((got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) outcome.message.append(buffer, size_t(got));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFEXITED(status)) {
    outcome.finished = true;
    outcome.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.how = WTERMSIG(status) == SIGALRM ? "it ran past its time limit (blocked?)" : strsignal(WTERMSIG(status));
  }
  return outcome;
}

// Makes writes past `bytes` fail (EFBIG) in this process while it lives.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    previous_ = ::signal(SIGXFSZ, SIG_IGN);
    const struct rlimit limit = {bytes, saved_.rlim_max};
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, previous_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  struct rlimit saved_;
  void (*previous_)(int);
};

}  // namespace pbf_test
