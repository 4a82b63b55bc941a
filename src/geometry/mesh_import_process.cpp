#include "geometry/mesh_import_process.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include "core/error.h"
#include "geometry/mesh_format.h"
#include "geometry/mesh_loader.h"

#if defined(__unix__) || defined(__APPLE__)
#define PBF_MESH_IMPORT_FORK 1
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PBF_SANITIZED_MEMORY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define PBF_SANITIZED_MEMORY 1
#endif
#endif

namespace pbf {

namespace {

// Reply layout: magic, kind, two counts (vertices and triangles, or the
// message's length and 0), then the vertices and triangles or the message.
constexpr uint32_t kReplyMagic = 0x4853454d;  // "MESH"
constexpr uint32_t kReplyMesh = 1, kReplyError = 2;
constexpr size_t kReplyHeader = 24;
constexpr uint64_t kMaxReplyMessage = 1 << 16;

struct ReplyHeader {
  uint32_t magic = kReplyMagic, kind = 0;
  uint64_t a = 0, b = 0;
};

std::string encode_header(const ReplyHeader& h) {
  std::string out(kReplyHeader, '\0');
  std::memcpy(&out[0], &h.magic, 4);
  std::memcpy(&out[4], &h.kind, 4);
  std::memcpy(&out[8], &h.a, 8);
  std::memcpy(&out[16], &h.b, 8);
  return out;
}

}  // namespace

std::string encode_mesh_reply(const TriangleMesh& mesh) {
  ReplyHeader h;
  h.kind = kReplyMesh;
  h.a = mesh.vertices.size();
  h.b = mesh.triangles.size();
  std::string out = encode_header(h);
  const size_t vertex_bytes = mesh.vertices.size() * 12, triangle_bytes = mesh.triangles.size() * 12;
  out.resize(kReplyHeader + vertex_bytes + triangle_bytes);
  char* p = &out[kReplyHeader];
  for (const Vec3& v : mesh.vertices) {
    const float xyz[3] = {v.x, v.y, v.z};
    std::memcpy(p, xyz, 12);
    p += 12;
  }
  if (triangle_bytes != 0) std::memcpy(p, mesh.triangles.data(), triangle_bytes);
  return out;
}

std::string encode_error_reply(const std::string& message) {
  ReplyHeader h;
  h.kind = kReplyError;
  h.a = std::min<uint64_t>(message.size(), kMaxReplyMessage);
  return encode_header(h) + message.substr(0, size_t(h.a));
}

size_t mesh_reply_size(const std::string& path, const char* data, size_t size) {
  if (size < kReplyHeader) return 0;
  ReplyHeader h;
  std::memcpy(&h.magic, data, 4);
  std::memcpy(&h.kind, data + 4, 4);
  std::memcpy(&h.a, data + 8, 8);
  std::memcpy(&h.b, data + 16, 8);
  if (h.magic != kReplyMagic) mesh_file_error(path, "the importer process answered garbage");
  if (h.kind == kReplyError && h.a <= kMaxReplyMessage && h.b == 0) return kReplyHeader + size_t(h.a);
  // Every vertex belongs to a triangle: at most three per triangle.
  if (h.kind == kReplyMesh && h.b <= kMaxMeshTriangles && h.a <= 3 * h.b) return kReplyHeader + size_t(12 * (h.a + h.b));
  mesh_file_error(path, "the importer process answered garbage");
}

TriangleMesh decode_mesh_reply(const std::string& path, const char* data, size_t size) {
  const size_t expected = mesh_reply_size(path, data, size);
  if (expected == 0 || expected != size) mesh_file_error(path, "the importer process ended without a complete answer");
  uint32_t kind = 0;
  uint64_t a = 0, b = 0;
  std::memcpy(&kind, data + 4, 4);
  std::memcpy(&a, data + 8, 8);
  std::memcpy(&b, data + 16, 8);
  const char* p = data + kReplyHeader;
  if (kind == kReplyError) {
    // The child's message already names the path; anything else is framed here.
    const std::string message(p, size_t(a));
    const std::string prefix = "path: cannot load a mesh from '" + path + "': ";
    if (message.compare(0, prefix.size(), prefix) == 0 && message.size() > prefix.size())
      throw Error(Status::Io, message);
    mesh_file_error(path, "the importer process failed without a reason");
  }
  TriangleMesh mesh;
  mesh.vertices.resize(size_t(a));
  mesh.triangles.resize(size_t(b));
  for (Vec3& v : mesh.vertices) {
    float xyz[3];
    std::memcpy(xyz, p, 12);
    p += 12;
    v = Vec3{xyz[0], xyz[1], xyz[2]};
  }
  if (b != 0) std::memcpy(mesh.triangles.data(), p, size_t(b) * 12);
  for (const auto& t : mesh.triangles)
    for (uint32_t v : t)
      if (v >= a) mesh_file_error(path, "a face names a vertex that does not exist");
  return mesh;
}

bool mesh_import_memory_limited() {
#if defined(PBF_MESH_IMPORT_FORK) && !defined(PBF_SANITIZED_MEMORY)
  return true;
#else
  return false;
#endif
}

#if defined(PBF_MESH_IMPORT_FORK)

bool mesh_import_isolated() { return true; }

namespace {

// The child's address space now [bytes], from /proc (0 where unknown).
uint64_t address_space_now() {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[64] = {};
  const ssize_t n = ::read(fd, text, sizeof(text) - 1);
  ::close(fd);
  if (n <= 0) return 0;
  uint64_t pages = 0;
  for (ssize_t k = 0; k < n && text[k] >= '0' && text[k] <= '9'; ++k) pages = pages * 10 + uint64_t(text[k] - '0');
  return pages * uint64_t(::sysconf(_SC_PAGESIZE));
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

[[noreturn]] void child_main(int fd, pid_t parent, const std::string& path, const MeshImportLimits& limits,
                             const std::function<TriangleMesh()>& import) {
  // A fault must end the child, not run the host's handlers (a managed
  // runtime's, a crash reporter's) in a copy of the host.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGALRM,
                SIGXCPU, SIGXFSZ, SIGCHLD})
    ::sigaction(s, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
#if defined(__linux__)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // an orphaned importer ends with its parent
  if (::getppid() != parent) ::_exit(1);
#else
  (void)parent;
#endif
  struct rlimit no_core {0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);  // a crash leaves no core file behind
  uint64_t limit = 0;
  if (mesh_import_memory_limited() && limits.memory_bytes > 0) {
    const uint64_t now = address_space_now();
    if (now > 0) {
      limit = now + limits.memory_bytes;
      struct rlimit as {rlim_t(limit), rlim_t(limit)};
      ::setrlimit(RLIMIT_AS, &as);
    }
  }
  std::string reply;
  try {
    try {
      reply = encode_mesh_reply(import());
    } catch (const std::bad_alloc&) {
      reply = encode_error_reply("path: cannot load a mesh from '" + path + "': the importer ran out of memory" +
                                 (limit > 0 ? " (its limit is " + mib(limits.memory_bytes) + ")" : std::string()));
    } catch (const Error& e) {
      reply = encode_error_reply(e.what());
    } catch (const std::exception& e) {
      reply = encode_error_reply("path: cannot load a mesh from '" + path + "': " + e.what());
    } catch (...) {
      reply = encode_error_reply("path: cannot load a mesh from '" + path + "': the importer failed");
    }
  } catch (...) {
    ::_exit(3);  // not even the message fits in memory
  }
  ::_exit(write_all(fd, reply.data(), reply.size()) ? 0 : 2);
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Owns the child until it is reaped: an exception in the parent kills it.
struct Child {
  pid_t pid = -1;
  bool reaped = false;
  bool gone = false;  // reaped by someone else (SIGCHLD ignored or handled by the host)
  int status = 0;

  // Non-blocking: true once the child has ended.
  bool poll_exit() {
    if (reaped) return true;
    while (true) {
      const pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid) return reaped = true;
      if (r == 0) return false;
      if (errno == EINTR) continue;
      gone = true;
      return reaped = true;
    }
  }
  void kill_and_reap() {
    if (reaped) return;
    ::kill(pid, SIGKILL);
    while (true) {
      const pid_t r = ::waitpid(pid, &status, 0);
      if (r == pid) break;
      if (r < 0 && errno == EINTR) continue;
      gone = true;
      break;
    }
    reaped = true;
  }
  ~Child() {
    if (pid > 0) kill_and_reap();
  }
};

std::string signal_name(int s) {
  switch (s) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTRAP: return "SIGTRAP";
    default: return "";
  }
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", s);
  return text;
}

}  // namespace

TriangleMesh run_mesh_import(const std::string& path, const MeshImportLimits& limits,
                             const std::function<TriangleMesh()>& import) {
  // Close-on-exec from the start: a program another thread starts meanwhile must not hold the pipe.
  int fds[2];
#if defined(__linux__)
  const int made = ::pipe2(fds, O_CLOEXEC);
#else
  const int made = ::pipe(fds);
#endif
  if (made != 0) mesh_file_error(path, std::string("cannot start the importer process: ") + std::strerror(errno));
  Fd read_end{fds[0]}, write_end{fds[1]};
#if !defined(__linux__)
  ::fcntl(read_end.fd, F_SETFD, FD_CLOEXEC);
  ::fcntl(write_end.fd, F_SETFD, FD_CLOEXEC);
#endif
  ::fcntl(read_end.fd, F_SETFL, ::fcntl(read_end.fd, F_GETFL) | O_NONBLOCK);
  const pid_t parent = ::getpid();
  Child child;
  child.pid = ::fork();
  if (child.pid < 0) mesh_file_error(path, std::string("cannot start the importer process: ") + std::strerror(errno));
  if (child.pid == 0) {
    ::close(read_end.fd);
    child_main(write_end.fd, parent, path, limits, import);
  }
  ::close(write_end.fd);
  write_end.fd = -1;

  // Read while the child writes (a pipe holds only kilobytes). The reply
  // says its own length: another child forked meanwhile by this process may
  // hold a copy of the write end, so the end of the file may come late.
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(std::max(0.0, limits.seconds)));
  std::vector<char> reply;
  size_t expected = 0;
  bool ended = false;  // the child has exited, or closed its end
  auto stop_if_late = [&] {
    if (Clock::now() < deadline) return;
    child.kill_and_reap();
    mesh_file_error(path, "the importer took longer than " + seconds_text(limits.seconds) + " s");
  };
  while (expected == 0 || reply.size() < expected) {
    stop_if_late();
    const size_t want = expected == 0 ? kReplyHeader - reply.size() : expected - reply.size();
    const size_t at = reply.size();
    reply.resize(at + std::min<size_t>(want, 1 << 20));
    const ssize_t n = ::read(read_end.fd, reply.data() + at, reply.size() - at);
    reply.resize(at + size_t(std::max<ssize_t>(n, 0)));
    if (n > 0) {
      if (expected == 0) expected = mesh_reply_size(path, reply.data(), reply.size());
      continue;
    }
    if (n == 0) break;  // every write end closed
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) break;
    if (ended) break;  // drained after the child ended
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    struct pollfd pfd {read_end.fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, int(std::min<long long>(std::max<long long>(left, 1), 100)));
    if (ready == 0 && child.poll_exit()) ended = true;  // read once more, then stop
  }
  // The whole reply is here or the child has gone: it exits at once, which
  // closes its end of the pipe (the wait is short unless another child holds it).
  while (!child.poll_exit()) {
    stop_if_late();
    struct pollfd pfd {read_end.fd, POLLIN, 0};
    if (::poll(&pfd, 1, 5) <= 0) continue;
    char drain[256];
    if (::read(read_end.fd, drain, sizeof(drain)) <= 0) ::poll(nullptr, 0, 1);  // closed: the exit is near
  }
  if (!child.gone && WIFSIGNALED(child.status)) {
    const int s = WTERMSIG(child.status);
    const std::string name = signal_name(s);
    mesh_file_error(path, "the importer crashed on it (signal " + std::to_string(s) +
                              (name.empty() ? std::string() : ", " + name) + ")");
  }
  if (!child.gone && WIFEXITED(child.status) && WEXITSTATUS(child.status) != 0)
    mesh_file_error(path, "the importer process failed (exit status " + std::to_string(WEXITSTATUS(child.status)) + ")");
  return decode_mesh_reply(path, reply.data(), reply.size());
}

#else

bool mesh_import_isolated() { return false; }

TriangleMesh run_mesh_import(const std::string& path, const MeshImportLimits&, const std::function<TriangleMesh()>& import) {
  try {
    return import();
  } catch (const std::bad_alloc&) {
    mesh_file_error(path, "the importer ran out of memory");
  }
}

#endif

}  // namespace pbf
