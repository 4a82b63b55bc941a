// A hostile caller of the whole C API, seen only through <pbf/pbf.h>: seeded
// random sequences of calls over every function, with arguments drawn from
// valid values and poison (NULL, NaN, +-Inf, 0, negatives, denormals, FLT_MAX,
// wrong struct_size, enums and indices out of range, short buffers), on
// several solvers and threads, and mangled files. After every call:
//  - a refusal names its function in pbf_last_error() and leaves the solver's
//    observable state (particles, parameters, statistics, obstacle and
//    boundary counts, and now and then its whole checkpoint) as it was;
//  - an accepted call leaves every position, velocity, density and statistic
//    finite, and every particle inside the domain;
//  - a solver running an asynchronous step refuses everything but poll, wait
//    and destroy with PBF_ERROR_BUSY, and a mapped field stays readable and
//    unchanged until it is unmapped.
// The sanitizer build catches what these checks cannot see; ctest's TIMEOUT
// and a watchdog here turn a hang into a failure.
//
// PBF_HOSTILE_SEED=<n> with PBF_HOSTILE_CALLS=<n> (the number of random
// calls) replays a run (every failure prints both), and
// PBF_HOSTILE_KNOWN=1 also draws the inputs of the known issues listed in
// kKnownIssues below (PBF_HOSTILE_KNOWN=key,key... those of some).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pbf/pbf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// Known issues: inputs that break a promise today. The generator does not
// draw them (PBF_HOSTILE_KNOWN=1 draws them anyway); remove an entry once its
// fix is merged, and the program covers that input again.
// ---------------------------------------------------------------------------
struct KnownIssue {
  const char* key;
  const char* what;
};
// None is open: every input the generator draws is held to the promises.
const std::vector<KnownIssue> kKnownIssues = {};

// PBF_HOSTILE_KNOWN: "1" draws the inputs of every known issue, a comma-separated list of keys those of some.
std::string included_known() {
  const char* v = std::getenv("PBF_HOSTILE_KNOWN");
  return v == nullptr ? "" : v;
}

bool include_known() { return !included_known().empty(); }

// True when the generator must not draw the inputs of known issue `key`.
[[maybe_unused]] bool avoiding(const char* key) {
  static const std::string included = "," + included_known() + ",";
  if (included == ",1," || included.find("," + std::string(key) + ",") != std::string::npos) return false;
  for (const KnownIssue& k : kKnownIssues)
    if (std::strcmp(k.key, key) == 0) return true;
  return false;
}

// AddressSanitizer's allocator (GCC 12's runtime) takes no lock around fork(): the mesh importer's
// child, forked without exec, waits forever on an allocator lock another thread held at the fork,
// until the importer's 30 s limit refuses a valid mesh. Under it, meshes are imported only where no
// other thread allocates (Caller::fork_safe()).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kForkUnsafeAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kForkUnsafeAllocator = true;
#else
constexpr bool kForkUnsafeAllocator = false;
#endif
#else
constexpr bool kForkUnsafeAllocator = false;
#endif

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoull(v, nullptr, 0);
}

uint64_t base_seed() {
  static const uint64_t seed =
      env_u64("PBF_HOSTILE_SEED", uint64_t(std::random_device{}()) << 16 ^ uint64_t(::getpid()));
  return seed;
}

// Random calls of the single-threaded sequence; the three threads share half as many again.
uint64_t call_budget() { return env_u64("PBF_HOSTILE_CALLS", 10000); }

// The environment that draws the same calls again: the threads' shares of the budget, and so their
// sequences, depend on the call count as well as on the seed.
std::string replay_command() {
  return "PBF_HOSTILE_SEED=" + std::to_string(base_seed()) + " PBF_HOSTILE_CALLS=" + std::to_string(call_budget());
}

// ---------------------------------------------------------------------------
// Random values, valid and poisoned
// ---------------------------------------------------------------------------
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kDenormal = std::numeric_limits<float>::denorm_min();

struct Rng {
  std::mt19937_64 g;
  explicit Rng(uint64_t seed) : g(seed) {}
  uint64_t below(uint64_t n) { return n == 0 ? 0 : std::uniform_int_distribution<uint64_t>(0, n - 1)(g); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(g) < p; }
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(g); }
  template <class T>
  T pick(std::initializer_list<T> values) {
    return *(values.begin() + below(values.size()));
  }
};

// A float no argument check may let through unexamined.
float poison_float(Rng& r) {
  return r.pick<float>({kNaN, -kNaN, kInf, -kInf, 0.0f, -0.0f, -1.0f, FLT_MAX, -FLT_MAX, FLT_MIN, kDenormal, -kDenormal,
                        1e-30f, 1e30f, 1e10f, -1e10f});
}

// `valid` mostly, poison with probability p.
float maybe_poison(Rng& r, float valid, double p) { return r.chance(p) ? poison_float(r) : valid; }

uint32_t poison_u32(Rng& r) {
  return r.pick<uint32_t>({0u, 1u, 2u, 7u, 1001u, 4097u, 65u, 1u << 28, (1u << 28) + 1, UINT32_MAX, UINT32_MAX - 1});
}

int poison_enum(Rng& r) { return r.pick<int>({-1, 3, 2, 1000, INT_MIN, INT_MAX}); }

size_t poison_struct_size(Rng& r, size_t right) {
  return r.pick<size_t>({0, right - 4, right - 8, right + 4, right + 8, SIZE_MAX, 1});
}

template <class Enum>
Enum as_enum(int value) {
  Enum e;
  static_assert(sizeof e == sizeof value, "C enums are int-sized");
  std::memcpy(&e, &value, sizeof value);
  return e;
}

uint64_t fnv1a(const void* data, size_t size, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// A buffer of exactly `n` values on the heap, so that AddressSanitizer
// catches a read or write one past what the caller said it holds.
template <class T>
struct Exact {
  std::unique_ptr<T[]> data;
  size_t n = 0;
  explicit Exact(size_t count) : data(count ? new T[count]() : nullptr), n(count) {}
  T* get() { return data.get(); }
};

template <class T>
std::string describe(T v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

std::string fmt(float v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

std::string fmt3(const float* v) {
  if (v == nullptr) return "NULL";
  return "{" + fmt(v[0]) + ", " + fmt(v[1]) + ", " + fmt(v[2]) + "}";
}

std::string fmt4(const float* v) {
  if (v == nullptr) return "NULL";
  return "{" + fmt(v[0]) + ", " + fmt(v[1]) + ", " + fmt(v[2]) + ", " + fmt(v[3]) + "}";
}

// ---------------------------------------------------------------------------
// Failures: one entry per class (the broken promise and the function), with
// the first occurrence's call sequence as its reproduction.
// ---------------------------------------------------------------------------
struct Failure {
  size_t count = 0;
  std::string first;
};

std::mutex g_failures_mutex;
std::map<std::string, Failure> g_failures;

// Calls made and accepted, per function: the coverage a run reached.
std::map<std::string, std::pair<uint64_t, uint64_t>> g_tally;

void print_tally() {
  std::lock_guard<std::mutex> lock(g_failures_mutex);
  std::string line;
  for (const auto& [fn, t] : g_tally)
    line += "  " + fn + " " + std::to_string(t.second) + "/" + std::to_string(t.first) + "\n";
  std::printf("hostile_caller: accepted/made per function:\n%s", line.c_str());
  g_tally.clear();
}

void report_failures() {
  if (std::getenv("PBF_HOSTILE_TALLY") != nullptr) print_tally();
  std::lock_guard<std::mutex> lock(g_failures_mutex);
  for (const auto& [klass, f] : g_failures)
    ADD_FAILURE() << klass << " (" << f.count << " times; base seed " << base_seed() << ", replay with "
                  << replay_command() << ")\n"
                  << f.first;
  g_failures.clear();
}

// Calls each thread is in, for the watchdog.
struct Progress {
  std::atomic<int64_t> call_started_ms{0};  // 0: between calls
  std::mutex mutex;
  std::string current;
};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Aborts the process, naming the call, when one call runs past the limit: a
// hang becomes a report with its call instead of a silent ctest timeout.
class Watchdog {
 public:
  explicit Watchdog(std::vector<Progress*> threads) : threads_(std::move(threads)), thread_([this] { run(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void run() {
    const int64_t limit_ms = int64_t(env_u64("PBF_HOSTILE_HANG_S", 120)) * 1000;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) {
      for (Progress* p : threads_) {
        const int64_t started = p->call_started_ms.load();
        if (started != 0 && now_ms() - started > limit_ms) {
          std::lock_guard<std::mutex> plock(p->mutex);
          std::fprintf(stderr, "hostile_caller: a call has run for over %lld s (replay with %s):\n%s\n",
                       static_cast<long long>(limit_ms / 1000), replay_command().c_str(), p->current.c_str());
          std::abort();
        }
      }
    }
  }
  std::vector<Progress*> threads_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// ---------------------------------------------------------------------------
// A solver's observable state
// ---------------------------------------------------------------------------
struct Snapshot {
  bool taken = false;
  size_t count = 0;
  uint64_t positions = 0, velocities = 0, densities = 0, params = 0, stats = 0, desc = 0, checkpoint = 0;
  float mass = 0.0f;
  uint32_t obstacles = 0;
  size_t boundary = 0;
  std::string nonfinite;  // what is not finite, or empty
  std::string outside;    // a particle outside the domain, or empty
};

// Names the first part of the state that differs, or "".
std::string difference(const Snapshot& a, const Snapshot& b) {
  if (a.count != b.count) return "particle count " + std::to_string(a.count) + " -> " + std::to_string(b.count);
  if (a.positions != b.positions) return "positions";
  if (a.velocities != b.velocities) return "velocities";
  if (a.densities != b.densities) return "densities";
  if (a.params != b.params) return "parameters";
  if (a.stats != b.stats) return "statistics";
  if (a.desc != b.desc) return "description";
  if (std::memcmp(&a.mass, &b.mass, sizeof a.mass) != 0) return "particle mass";
  if (a.obstacles != b.obstacles)
    return "obstacle count " + std::to_string(a.obstacles) + " -> " + std::to_string(b.obstacles);
  if (a.boundary != b.boundary)
    return "boundary particle count " + std::to_string(a.boundary) + " -> " + std::to_string(b.boundary);
  if (a.checkpoint != 0 && b.checkpoint != 0 && a.checkpoint != b.checkpoint) return "checkpoint (planes?)";
  return "";
}

struct Slot {
  pbf_solver* solver = nullptr;
  pbf_solver_desc desc{};
  bool busy = false;  // an asynchronous step runs
  bool mapped[3] = {false, false, false};
  const float* map_data[3] = {nullptr, nullptr, nullptr};
  size_t map_count[3] = {0, 0, 0};
  uint64_t map_hash[3] = {0, 0, 0};
  uint32_t planes = 0;                 // as far as this caller knows
  std::string valid_checkpoint;        // a checkpoint this solver accepts, or ""
  Snapshot last;                       // the state after the last call on it
};

// ---------------------------------------------------------------------------
// One caller: its solvers, fields and files, and the checks of every call
// ---------------------------------------------------------------------------
class Caller {
 public:
  Caller(uint64_t seed, int id, const fs::path& dir, Progress& progress)
      : rng_(seed), seed_(seed), id_(id), dir_(dir), progress_(progress) {
    fs::create_directories(dir_);
  }
  ~Caller() {
    for (Slot& s : slots_) pbf_solver_destroy(s.solver);
    for (pbf_sdf* f : sdfs_) pbf_sdf_destroy(f);
  }

  void run(uint64_t calls) {
    for (int i = 0; i < 3; ++i) create_slot();
    for (int i = 0; i < 2; ++i) {
      pbf_sdf* f = nullptr;
      const float half[3] = {0.1f, 0.08f, 0.12f};
      if (pbf_sdf_box(half, 0.03f, &f) == PBF_OK) {
        sdfs_.push_back(f);
        made_[f] = "pbf_sdf_box({0.1, 0.08, 0.12}, 0.03)";
      }
    }
    for (uint64_t i = 0; i < calls; ++i) {
      call_index_ = i;
      one_random_call();
    }
    for (Slot& s : slots_) {
      if (s.busy) {
        Check c = begin("pbf_solver_wait", &s, "");
        end(c, pbf_solver_wait(s.solver));
      }
    }
  }

  // Loads and checks mangled checkpoints and fields, and special paths.
  void mangled_files();

  // Steps slots_[0] asynchronously over and over while other threads call.
  void async_stepper(uint64_t rounds, Caller& other);

 private:
  struct Check {
    const char* fn;
    Slot* slot;
    Snapshot before;
    bool expect_busy = false;
  };

  // ---- the log: the calls made, replayed in a failure's report ----
  void log(const std::string& line) {
    static const bool verbose = std::getenv("PBF_HOSTILE_VERBOSE") != nullptr;
    if (verbose)
      std::fprintf(stderr, "[%d] %llu: %s\n", id_, static_cast<unsigned long long>(call_index_), line.c_str());
    history_.push_back(std::to_string(call_index_) + ": " + line);
    if (history_.size() > 40) history_.pop_front();
  }
  std::string history() const {
    std::string s = "caller " + std::to_string(id_) + " (seed " + std::to_string(seed_) + "), last calls:\n";
    for (const std::string& h : history_) s += "  " + h + "\n";
    return s;
  }

  void failure(const std::string& klass, const std::string& detail) {
    std::lock_guard<std::mutex> lock(g_failures_mutex);
    Failure& f = g_failures[klass];
    if (f.count++ == 0) f.first = detail + "\n" + history();
  }

  std::string name(const Slot* s) const {
    if (s == nullptr) return "NULL";
    for (size_t i = 0; i < slots_.size(); ++i)
      if (&slots_[i] == s) return "s" + std::to_string(i);
    return "s?";
  }

  // ---- snapshots ----
  Snapshot snapshot(Slot& s, bool deep) {
    Snapshot n;
    pbf_solver* h = s.solver;
    if (pbf_solver_particle_count(h, &n.count) != PBF_OK) return note_getter("pbf_solver_particle_count", n);
    std::vector<float> pos(3 * n.count + 1), vel(3 * n.count + 1), den(n.count + 1);
    if (pbf_solver_get_positions(h, pos.data(), pos.size()) != PBF_OK)
      return note_getter("pbf_solver_get_positions", n);
    if (pbf_solver_get_velocities(h, vel.data(), vel.size()) != PBF_OK)
      return note_getter("pbf_solver_get_velocities", n);
    if (pbf_solver_get_densities(h, den.data(), den.size()) != PBF_OK)
      return note_getter("pbf_solver_get_densities", n);
    n.positions = fnv1a(pos.data(), 3 * n.count * sizeof(float));
    n.velocities = fnv1a(vel.data(), 3 * n.count * sizeof(float));
    n.densities = fnv1a(den.data(), n.count * sizeof(float));
    // Zeroed first: the hashes must not see padding.
    pbf_params p;
    std::memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    if (pbf_solver_get_params(h, &p) != PBF_OK) return note_getter("pbf_solver_get_params", n);
    n.params = fnv1a(&p, sizeof p);
    pbf_stats st;
    std::memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    if (pbf_solver_get_stats(h, &st) != PBF_OK) return note_getter("pbf_solver_get_stats", n);
    n.stats = fnv1a(&st, sizeof st);
    pbf_solver_desc d;
    std::memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    if (pbf_solver_get_desc(h, &d) != PBF_OK) return note_getter("pbf_solver_get_desc", n);
    n.desc = fnv1a(&d, sizeof d);
    if (pbf_solver_get_particle_mass(h, &n.mass) != PBF_OK) return note_getter("pbf_solver_get_particle_mass", n);
    if (pbf_solver_get_obstacle_count(h, &n.obstacles) != PBF_OK)
      return note_getter("pbf_solver_get_obstacle_count", n);
    if (pbf_solver_get_boundary_particle_count(h, &n.boundary) != PBF_OK)
      return note_getter("pbf_solver_get_boundary_particle_count", n);
    if (deep) {
      const fs::path file = dir_ / "snapshot.chk";
      if (pbf_solver_save_checkpoint(h, file.c_str()) != PBF_OK) return note_getter("pbf_solver_save_checkpoint", n);
      std::ifstream in(file, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      n.checkpoint = fnv1a(bytes.data(), bytes.size()) | 1;
    }
    n.taken = true;
    // What an accepted call must leave finite.
    auto first_bad = [](const std::vector<float>& v, size_t count, const char* what) -> std::string {
      for (size_t i = 0; i < count; ++i)
        if (!std::isfinite(v[i])) return std::string(what) + "[" + std::to_string(i) + "] = " + fmt(v[i]);
      return "";
    };
    n.nonfinite = first_bad(pos, 3 * n.count, "positions");
    if (n.nonfinite.empty()) n.nonfinite = first_bad(vel, 3 * n.count, "velocities");
    if (n.nonfinite.empty()) n.nonfinite = first_bad(den, n.count, "densities");
    if (n.nonfinite.empty()) {
      for (size_t i = 0; i < n.count; ++i)
        if (den[i] < 0.0f) {
          n.nonfinite = "densities[" + std::to_string(i) + "] = " + fmt(den[i]) + " < 0";
          break;
        }
    }
    if (n.nonfinite.empty()) {
      const float f[] = {st.avg_density_error, st.max_density_error, st.avg_neighbors, st.max_speed,
                         st.cg_residual,       st.min_substep_dt,    st.max_substep_dt};
      const double t[] = {st.time_total_ms,
                          st.time_predict_ms,
                          st.time_grid_ms,
                          st.time_neighbors_ms,
                          st.time_constraints_ms,
                          st.time_velocity_ms,
                          st.time_vorticity_viscosity_ms};
      for (size_t i = 0; i < std::size(f); ++i)
        if (!std::isfinite(f[i])) n.nonfinite = "stats float field " + std::to_string(i) + " = " + fmt(f[i]);
      for (size_t i = 0; i < std::size(t); ++i)
        if (!std::isfinite(t[i]) || t[i] < 0.0)
          n.nonfinite = "stats time field " + std::to_string(i) + " = " + std::to_string(t[i]);
      if (!std::isfinite(n.mass) || !(n.mass > 0.0f)) n.nonfinite = "particle mass = " + fmt(n.mass);
    }
    // Collisions keep particles in the domain; a hundredth of a spacing covers rounding.
    const float slack = 0.01f * d.particle_spacing;
    for (size_t i = 0; i < n.count && n.outside.empty(); ++i)
      for (int a = 0; a < 3; ++a) {
        const float v = pos[3 * i + a];
        if (v < d.domain_min[a] - slack || v > d.domain_max[a] + slack) {
          n.outside = "particle " + std::to_string(i) + " at " + fmt3(&pos[3 * i]) + " outside " + fmt3(d.domain_min) +
                      " .. " + fmt3(d.domain_max);
          break;
        }
      }
    return n;
  }

  Snapshot note_getter(const char* fn, Snapshot n) {
    failure(std::string("getter-failed-on-idle-solver:") + fn, std::string(fn) + ": " + pbf_last_error());
    return n;
  }

  // ---- before and after every call ----
  Check begin(const char* fn, Slot* slot, const std::string& args) {
    last_call_ = std::string(fn) + "(" + args + ")";
    log(last_call_);
    {
      std::lock_guard<std::mutex> lock(progress_.mutex);
      progress_.current = history();
    }
    progress_.call_started_ms = now_ms();
    Check c{fn, slot, {}};
    if (slot != nullptr && slot->solver != nullptr) {
      if (slot->busy) {
        const bool exempt = std::strcmp(fn, "pbf_solver_poll") == 0 || std::strcmp(fn, "pbf_solver_wait") == 0 ||
                            std::strcmp(fn, "pbf_solver_destroy") == 0;
        c.expect_busy = !exempt;
      } else {
        c.before = slot->last.taken ? slot->last : snapshot(*slot, false);
        if (rng_.chance(0.05)) c.before = snapshot(*slot, true);
      }
    }
    // A stale message from another function, so that a refusal cannot pass on it.
    if (std::strcmp(fn, "pbf_backend_available") == 0)
      pbf_solver_poll(nullptr, nullptr);
    else
      pbf_backend_available(as_enum<pbf_backend>(77), nullptr);
    return c;
  }

  // Checks the promises of a call that returned `status`. `prefix` is the
  // name a refusal's message starts with (that of wait's step is
  // pbf_solver_step_async's).
  void end(Check& c, pbf_status status, const char* prefix = nullptr) {
    const int64_t took_ms = now_ms() - progress_.call_started_ms.load();
    progress_.call_started_ms = 0;
    const std::string fn = c.fn;
    log("  -> " + std::string(pbf_status_string(status)) +
        (status != PBF_OK ? std::string(": ") + pbf_last_error() : "") +
        (took_ms >= 100 ? " (" + std::to_string(took_ms) + " ms)" : ""));
    {
      std::lock_guard<std::mutex> lock(g_failures_mutex);
      auto& t = g_tally[fn];
      ++t.first;
      if (status == PBF_OK) ++t.second;
    }
    if (int(status) < 0 || int(status) > 10) failure("unknown-status:" + fn, "status " + std::to_string(int(status)));
    if (status == PBF_ERROR_INTERNAL) failure("internal-error:" + fn, pbf_last_error());
    if (status != PBF_OK) {
      const std::string message = pbf_last_error();
      const std::string start = std::string(prefix ? prefix : c.fn) + ":";
      if (message.compare(0, start.size(), start) != 0)
        failure("message-not-naming-function:" + fn, "message \"" + message + "\"");
    }
    Slot* s = c.slot;
    if (s == nullptr || s->solver == nullptr) return;
    if (c.expect_busy) {
      if (status != PBF_ERROR_BUSY) failure("busy-solver-not-refused:" + fn, pbf_status_string(status));
      return;
    }
    if (s->busy) return;  // step_async just started
    Snapshot after = snapshot(*s, c.before.checkpoint != 0);
    if (!after.taken) return;
    if (status != PBF_OK && c.before.taken) {
      const std::string d = difference(c.before, after);
      if (!d.empty()) failure("refusal-changed-state:" + fn, "changed: " + d);
    }
    if (status == PBF_OK && c.before.taken) {
      if (!after.nonfinite.empty() && c.before.nonfinite.empty())
        failure("not-finite-after-accepted-call:" + fn, after.nonfinite);
      if (!after.outside.empty() && c.before.outside.empty())
        failure("particle-outside-domain-after-accepted-call:" + fn, after.outside);
    }
    check_mapped(*s, fn);
    s->last = after;
    // The next call compares whole checkpoints only when it draws its own 5 %: carried on, one deep
    // snapshot made every later call save two checkpoints (a third of all calls, each flushed to disk).
    s->last.checkpoint = 0;
    // A solver gone bad has been reported; replace it so that its state does not hide the next finding.
    if (!after.nonfinite.empty()) replace_slot(*s);
  }

  // A mapped field stays readable (AddressSanitizer checks the read) and unchanged.
  void check_mapped(Slot& s, const std::string& fn) {
    for (int f = 0; f < 3; ++f) {
      if (!s.mapped[f]) continue;
      const size_t n = (f == 2 ? 1 : 3) * s.map_count[f];
      if (fnv1a(s.map_data[f], n * sizeof(float)) != s.map_hash[f])
        failure("mapped-field-changed:" + fn, "field " + std::to_string(f));
    }
  }

  // Calls on a NULL solver must say so.
  void expect_null_solver(const char* fn, pbf_status status) {
    if (status != PBF_ERROR_NULL_POINTER)
      failure(std::string("null-solver-not-refused:") + fn, pbf_status_string(status));
  }

  // ---- solvers ----
  pbf_solver_desc random_valid_desc() {
    pbf_solver_desc d = pbf_solver_desc_default();
    d.backend = rng_.chance(0.5) ? PBF_BACKEND_CPU : PBF_BACKEND_AUTO;
    d.max_particles = uint32_t(rng_.pick<uint32_t>({1u, 8u, 64u, 300u, 1000u, 2500u}));
    d.particle_spacing = rng_.pick<float>({0.04f, 0.05f, 0.08f, 0.1f});
    d.kernel_radius = rng_.chance(0.7) ? 0.0f : d.particle_spacing * rng_.uniform(1.5f, 3.0f);
    d.rest_density = rng_.pick<float>({1000.0f, 1.0f, 13000.0f});
    const float shift = rng_.pick<float>({0.0f, -0.5f, 3.0f, -1000.0f});
    for (int a = 0; a < 3; ++a) {
      d.domain_min[a] = shift;
      d.domain_max[a] = shift + rng_.pick<float>({0.3f, 0.5f, 1.0f});
    }
    d.thread_count = rng_.pick<int32_t>({0, 1, 2});
    d.max_neighbors = rng_.chance(0.8) ? 0u : rng_.pick<uint32_t>({8u, 16u, 100u});
    d.method = rng_.chance(0.65) ? PBF_METHOD_PBF : PBF_METHOD_PROJECTIVE;
    return d;
  }

  static std::string describe_desc(const pbf_solver_desc& d) {
    return std::string("{") + pbf_method_name(d.method) + ", " + pbf_backend_name(d.backend) + ", max_particles " +
           std::to_string(d.max_particles) + ", spacing " + fmt(d.particle_spacing) + ", kernel_radius " +
           fmt(d.kernel_radius) + ", rest_density " + fmt(d.rest_density) + ", domain " + fmt3(d.domain_min) + " .. " +
           fmt3(d.domain_max) + ", threads " + std::to_string(d.thread_count) + ", max_neighbors " +
           std::to_string(d.max_neighbors) + "}";
  }

  static constexpr uint32_t kMaxDensityIterations = 8;  // PBF's max_iterations, see lighten()

  // Projective Fluids at its defaults runs 30 x 100 conjugate-gradient iterations per step, and the
  // CFL condition splits a step into up to 1000: seconds per call under the sanitizers. PBF's CFL
  // condition splits a step into up to 32 x its substeps, each of up to max_iterations (default 20)
  // density iterations: one step of 800 squeezed particles took two minutes under the sanitizers.
  // Valid parameters that keep the calls short; random_params() keeps them so.
  static void lighten(Slot& s) {
    if (s.solver == nullptr) return;
    pbf_params p = pbf_params_default();
    if (s.desc.method == PBF_METHOD_PROJECTIVE) {
      p.projective_iterations = 6;
      p.cg_max_iterations = 20;
      p.max_speed = 5.0f;
    } else {
      p.max_iterations = kMaxDensityIterations;
    }
    pbf_solver_set_params(s.solver, &p);
  }

  void create_slot() {
    Slot s;
    s.desc = random_valid_desc();
    log("s" + std::to_string(slots_.size()) + " = pbf_solver_create(" + describe_desc(s.desc) +
        ") and a fill_box of 40% of the domain");
    if (pbf_solver_create(&s.desc, &s.solver) != PBF_OK) {
      failure("valid-desc-refused:pbf_solver_create", pbf_last_error());
      return;
    }
    slots_.push_back(s);
    Slot& n = slots_.back();
    lighten(n);
    size_t added = 0;
    const float lo[3] = {n.desc.domain_min[0], n.desc.domain_min[1], n.desc.domain_min[2]};
    float hi[3];
    for (int a = 0; a < 3; ++a) hi[a] = lo[a] + 0.4f * (n.desc.domain_max[a] - n.desc.domain_min[a]);
    pbf_solver_fill_box(n.solver, lo, hi, nullptr, &added);  // may exceed a small capacity: then empty
    n.last = snapshot(n, false);
  }

  void replace_slot(Slot& s) {
    pbf_solver_destroy(s.solver);
    s = Slot{};
    s.desc = random_valid_desc();
    log(name(&s) + " = pbf_solver_create(" + describe_desc(s.desc) + ")");
    if (pbf_solver_create(&s.desc, &s.solver) != PBF_OK) {
      failure("valid-desc-refused:pbf_solver_create", pbf_last_error());
      s.solver = nullptr;
      return;
    }
    lighten(s);
    s.last = snapshot(s, false);
  }

  // Whether a mesh import may fork here: always with a fork-safe allocator; under AddressSanitizer only
  // on a single-threaded sequence (id 0) with no asynchronous step of its own in flight.
  bool fork_safe() const {
    if (!kForkUnsafeAllocator) return true;
    return id_ == 0 && std::none_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.busy; });
  }

  // A live solver, now and then a NULL one.
  Slot* pick_slot(double null_p = 0.04) {
    if (rng_.chance(null_p) || slots_.empty()) return nullptr;
    Slot* s = &slots_[rng_.below(slots_.size())];
    return s->solver ? s : nullptr;
  }

  // A field by the call that made it, for a failure's reproduction.
  std::string sdf_name(pbf_sdf* f) { return f ? "field of " + made_[f] : "NULL"; }

  pbf_sdf* pick_sdf(double null_p = 0.05) {
    if (rng_.chance(null_p) || sdfs_.empty()) return nullptr;
    return sdfs_[rng_.below(sdfs_.size())];
  }

  size_t count_of(Slot* s) { return s ? s->last.count : 0; }

  // A point inside the slot's domain, or poison.
  void random_point(Slot* s, float* out, double poison_p) {
    for (int a = 0; a < 3; ++a) {
      const float lo = s ? s->desc.domain_min[a] : 0.0f, hi = s ? s->desc.domain_max[a] : 1.0f;
      out[a] = maybe_poison(rng_, rng_.uniform(lo, hi), poison_p);
    }
  }

  // 3 x n floats: valid positions (or velocities), one of them poisoned now and then.
  Exact<float> particle_array(Slot* s, size_t n, bool velocities) {
    Exact<float> v(3 * n);
    for (size_t i = 0; i < n; ++i) {
      if (velocities)
        for (int a = 0; a < 3; ++a) v.get()[3 * i + a] = rng_.uniform(-3.0f, 3.0f);
      else
        random_point(s, v.get() + 3 * i, 0.0);
    }
    if (!velocities && s && n > 0 && rng_.chance(0.1))  // all stacked on one point
      for (size_t i = 1; i < n; ++i) std::memcpy(v.get() + 3 * i, v.get(), 3 * sizeof(float));
    if (!velocities && s && n > 0 && rng_.chance(0.1)) {  // on the domain's faces, or a float beyond them
      const size_t k = rng_.below(3 * n);
      const int a = int(k % 3);
      const bool up = rng_.chance(0.5);
      const float face = up ? s->desc.domain_max[a] : s->desc.domain_min[a];
      v.get()[k] = rng_.chance(0.5) ? face : std::nextafter(face, up ? FLT_MAX : -FLT_MAX);
    }
    if (n > 0 && rng_.chance(0.3)) v.get()[rng_.below(3 * n)] = poison_float(rng_);
    return v;
  }

  // A quaternion: none, a valid one, or poison.
  const float* random_rotation(float* q) {
    switch (rng_.below(6)) {
      case 0: return nullptr;
      case 1: {
        for (int k = 0; k < 4; ++k) q[k] = poison_float(rng_);
        return q;
      }
      case 2: {
        q[0] = q[1] = q[2] = q[3] = rng_.pick<float>({0.0f, kDenormal, 1e-20f, FLT_MAX, 1e30f});
        return q;
      }
      default:
        for (int k = 0; k < 4; ++k) q[k] = rng_.uniform(-1.0f, 1.0f);
        return q;
    }
  }

  const float* random_translation(Slot* s, float* t) {
    if (rng_.chance(0.15)) return nullptr;
    if (rng_.chance(0.15)) {
      for (int a = 0; a < 3; ++a) t[a] = poison_float(rng_);
      return t;
    }
    random_point(s, t, 0.0);
    return t;
  }

  // dt and substeps for a step: mostly sensible, now and then poison.
  void random_step(Slot* s, float& dt, uint32_t& substeps) {
    dt = rng_.pick<float>({1.0f / 60.0f, 1.0f / 240.0f, 0.001f, 0.03f});
    substeps = rng_.pick<uint32_t>({1u, 1u, 2u, 3u});
    if (rng_.chance(0.25)) dt = poison_float(rng_);
    if (rng_.chance(0.1)) substeps = poison_u32(rng_);
    // Poison includes dt in the denormal range and 1e-30 s: refused, dt / substeps must be at least 1e-9 s.
    // Long steps at many substeps are valid but slow: keep the budget.
    const bool projective = s && s->desc.method == PBF_METHOD_PROJECTIVE;
    if (std::isfinite(dt) && dt > 0.0f && dt <= 10.0f && substeps >= 1 && substeps <= 1000) {
      if (substeps > 4) substeps = 4;
      if (dt > (projective ? 0.02f : 1.0f)) dt = projective ? 0.02f : rng_.pick<float>({1.0f, 0.2f});
      // Projective Fluids' adaptive step may split each substep 32 times (valid, and slow under the sanitizers).
      if (projective) substeps = std::min<uint32_t>(substeps, 2);
    }
  }

  // Parameters with a few fields changed, valid or not; `changes` names them.
  pbf_params random_params(Slot* s, std::string& changes) {
    pbf_params p = pbf_params_default();
    if (s && s->last.taken) pbf_solver_get_params(s->solver, &p);
    const int k = rng_.chance(0.4) ? 0 : int(1 + rng_.below(4));
    for (int i = 0; i < k; ++i) {
      switch (rng_.below(26)) {
        case 0: p.gravity[rng_.below(3)] = maybe_poison(rng_, rng_.uniform(-30.0f, 30.0f), 0.4); break;
        case 1: p.iterations = rng_.chance(0.5) ? poison_u32(rng_) : uint32_t(1 + rng_.below(6)); break;
        case 2: p.relaxation = maybe_poison(rng_, rng_.uniform(0.0f, 100.0f), 0.5); break;
        case 3: p.unilateral = rng_.pick<int32_t>({0, 1, 2, -1, INT_MIN}); break;
        case 4: p.artificial_pressure_k = maybe_poison(rng_, rng_.uniform(0.0f, 1.0f), 0.5); break;
        case 5: p.artificial_pressure_n = maybe_poison(rng_, rng_.uniform(1.0f, 8.0f), 0.5); break;
        case 6: p.artificial_pressure_dq = maybe_poison(rng_, rng_.uniform(0.0f, 0.9f), 0.5); break;
        case 7: p.xsph_viscosity = maybe_poison(rng_, rng_.uniform(0.0f, 1.0f), 0.5); break;
        case 8: p.vorticity_epsilon = maybe_poison(rng_, rng_.uniform(0.0f, 10.0f), 0.5); break;
        case 9:
          p.restitution = maybe_poison(rng_, rng_.uniform(0.0f, 1.0f), 0.5);
          break;
        case 10: p.friction = maybe_poison(rng_, rng_.uniform(0.0f, 10.0f), 0.5); break;
        case 11:
          p.max_speed = maybe_poison(rng_, rng_.uniform(0.1f, 200.0f), 0.5);
          // Projective Fluids' CFL step shrinks with max_speed: keep its steps few.
          if (s && s->desc.method == PBF_METHOD_PROJECTIVE && p.max_speed > 5.0f && std::isfinite(p.max_speed))
            p.max_speed = 5.0f;
          break;
        case 12: p.projective_stiffness = maybe_poison(rng_, rng_.uniform(1.0f, 1e9f), 0.5); break;
        case 13: p.projective_iterations = rng_.chance(0.5) ? poison_u32(rng_) : uint32_t(1 + rng_.below(40)); break;
        case 14: p.projective_tolerance = maybe_poison(rng_, rng_.uniform(0.0f, 1.0f), 0.5); break;
        case 15: p.cg_max_iterations = rng_.chance(0.5) ? poison_u32(rng_) : uint32_t(1 + rng_.below(200)); break;
        case 16: p.cg_tolerance = maybe_poison(rng_, rng_.uniform(1e-6f, 1.0f), 0.5); break;
        case 17: p.newton_iterations = rng_.chance(0.5) ? poison_u32(rng_) : uint32_t(1 + rng_.below(10)); break;
        case 18: p.newton_tolerance = maybe_poison(rng_, rng_.uniform(0.0f, 1.0f), 0.5); break;
        case 19: p.adaptive_dt = rng_.pick<int32_t>({0, 1, 2, -1}); break;
        case 20: p.cfl_number = maybe_poison(rng_, rng_.uniform(0.01f, 1.0f), 0.5); break;
        case 21: p.max_dt = maybe_poison(rng_, rng_.uniform(1e-4f, 0.01f), 0.5); break;
        case 22: p.projective_chebyshev_rho = maybe_poison(rng_, rng_.uniform(0.0f, 0.98f), 0.5); break;
        case 23: p.density_tolerance = maybe_poison(rng_, rng_.uniform(0.0f, 0.01f), 0.5); break;
        case 24: p.max_iterations = rng_.chance(0.5) ? poison_u32(rng_) : uint32_t(1 + rng_.below(30)); break;
        default: p.struct_size = poison_struct_size(rng_, sizeof p); break;
      }
    }
    // Valid but slow: a projective solver at its largest iteration counts and a tiny max_dt.
    if (p.projective_iterations <= 1000 && p.projective_iterations > 6) p.projective_iterations = 6;
    if (p.cg_max_iterations <= 10000 && p.cg_max_iterations > 20) p.cg_max_iterations = 20;
    if (p.max_dt >= 1e-6f && p.max_dt < 1e-3f) p.max_dt = 1e-3f;
    if (p.iterations <= 100 && p.iterations > 10) p.iterations = 10;
    if (p.max_iterations <= 1000 && p.max_iterations > kMaxDensityIterations) p.max_iterations = kMaxDensityIterations;
    // Projective Fluids' CFL step counts gravity x max_dt as speed: huge gravity takes 32 pieces a substep (and
    // 1000 a step), and so does a tiny (valid) cfl_number such as FLT_MIN. Drawn from their whole ranges, they
    // made the run under the sanitizers up to 70 s against 17-31 s (eight runs each): kept moderate.
    if (s && s->desc.method == PBF_METHOD_PROJECTIVE) {
      for (float& g : p.gravity)
        if (std::isfinite(g) && std::fabs(g) > 100.0f) g = std::copysign(100.0f, g);
      if (p.cfl_number > 0.0f && p.cfl_number < 0.1f) p.cfl_number = 0.1f;
    }
    pbf_params before = pbf_params_default();
    if (s && s->last.taken) pbf_solver_get_params(s->solver, &before);
#define PBF_HOSTILE_DIFF(f)                          \
  if (std::memcmp(&before.f, &p.f, sizeof p.f) != 0) \
    changes += std::string(changes.empty() ? "" : ", ") + #f " " + describe(p.f);
    PBF_HOSTILE_DIFF(struct_size)
    PBF_HOSTILE_DIFF(gravity[0]) PBF_HOSTILE_DIFF(gravity[1]) PBF_HOSTILE_DIFF(gravity[2]) PBF_HOSTILE_DIFF(iterations)
        PBF_HOSTILE_DIFF(relaxation) PBF_HOSTILE_DIFF(unilateral) PBF_HOSTILE_DIFF(artificial_pressure_k)
            PBF_HOSTILE_DIFF(artificial_pressure_n) PBF_HOSTILE_DIFF(artificial_pressure_dq)
                PBF_HOSTILE_DIFF(xsph_viscosity) PBF_HOSTILE_DIFF(vorticity_epsilon) PBF_HOSTILE_DIFF(restitution)
                    PBF_HOSTILE_DIFF(friction) PBF_HOSTILE_DIFF(max_speed) PBF_HOSTILE_DIFF(projective_stiffness)
                        PBF_HOSTILE_DIFF(projective_iterations) PBF_HOSTILE_DIFF(projective_tolerance)
                            PBF_HOSTILE_DIFF(cg_max_iterations) PBF_HOSTILE_DIFF(cg_tolerance)
                                PBF_HOSTILE_DIFF(newton_iterations) PBF_HOSTILE_DIFF(newton_tolerance)
                                    PBF_HOSTILE_DIFF(adaptive_dt) PBF_HOSTILE_DIFF(cfl_number) PBF_HOSTILE_DIFF(max_dt)
                                        PBF_HOSTILE_DIFF(projective_chebyshev_rho)
                                            PBF_HOSTILE_DIFF(density_tolerance) PBF_HOSTILE_DIFF(max_iterations)
#undef PBF_HOSTILE_DIFF
                                            return p;
  }

  // ---- the calls ----
  void one_random_call();
  void call_create();
  void call_destroy();
  void call_getters(Slot* s);
  void call_set_params(Slot* s);
  void call_add_particles(Slot* s);
  void call_fill_box(Slot* s);
  void call_remove(Slot* s);
  void call_get_array(Slot* s);
  void call_set_array(Slot* s);
  void call_map(Slot* s);
  void call_planes(Slot* s);
  void call_obstacle_sdf(Slot* s);
  void call_obstacle_pose(Slot* s);
  // A dynamic body's calls: mass properties, velocities, pose and velocity readback.
  void call_obstacle_body(Slot* s, uint32_t index);
  void call_boundary(Slot* s);
  void call_step(Slot* s);
  void call_files(Slot* s);
  void call_sdf_make();
  void call_sdf_query();
  void call_sdf_use(Slot* s);
  void call_misc();

  Rng rng_;
  uint64_t seed_;
  int id_;
  fs::path dir_;
  Progress& progress_;
  std::deque<Slot> slots_;  // a deque: slots keep their addresses
  std::vector<pbf_sdf*> sdfs_;
  std::map<pbf_sdf*, std::string> made_;
  std::string last_call_;
  std::deque<std::string> history_;
  uint64_t call_index_ = 0;
  uint64_t file_counter_ = 0;

  friend void mangle_file(Caller&, const fs::path&, const fs::path&);
};

void Caller::one_random_call() {
  Slot* s = pick_slot();
  switch (rng_.below(40)) {
    case 0: call_create(); break;
    case 1: call_destroy(); break;
    case 2:
    case 3: call_getters(s); break;
    case 4:
    case 5: call_set_params(s); break;
    case 6:
    case 7: call_add_particles(s); break;
    case 8: call_fill_box(s); break;
    case 9: call_remove(s); break;
    case 10:
    case 11: call_get_array(s); break;
    case 12:
    case 13: call_set_array(s); break;
    case 14:
    case 15: call_map(s); break;
    case 16: call_planes(s); break;
    case 17:
    case 18: call_obstacle_sdf(s); break;
    case 19: call_obstacle_pose(s); break;
    case 20:
    case 21: call_boundary(s); break;
    case 22:
    case 23:
    case 24:
    case 25:
    case 26: call_step(s); break;
    case 27:
    case 28: call_files(s); break;
    case 29:
    case 30: call_sdf_make(); break;
    case 31:
    case 32: call_sdf_query(); break;
    case 33:
    case 34:
    case 35: call_sdf_use(s); break;
    default: call_misc(); break;
  }
}

void Caller::call_create() {
  pbf_solver_desc d = random_valid_desc();
  std::string what = "valid";
  switch (rng_.chance(0.4) ? 99 : rng_.below(16)) {
    case 0:
      d.struct_size = poison_struct_size(rng_, sizeof d);
      what = "struct_size";
      break;
    case 1:
      d.backend = as_enum<pbf_backend>(poison_enum(rng_));
      what = "backend";
      break;
    case 2:
      d.backend = PBF_BACKEND_CUDA;
      d.device_index = rng_.pick<int32_t>({0, 1, -1, INT_MAX});
      what = "cuda";
      break;
    case 3:
      d.max_particles = poison_u32(rng_);
      what = "max_particles";
      break;
    case 4:
      d.particle_spacing = poison_float(rng_);
      what = "particle_spacing";
      break;
    case 5:
      d.kernel_radius = poison_float(rng_);
      what = "kernel_radius";
      break;
    case 6:
      d.rest_density = poison_float(rng_);
      what = "rest_density";
      break;
    case 7:
      d.domain_min[rng_.below(3)] = poison_float(rng_);
      what = "domain_min";
      break;
    case 8:
      d.domain_max[rng_.below(3)] = poison_float(rng_);
      what = "domain_max";
      break;
    case 9:
      d.thread_count = rng_.pick<int32_t>({-1, 1025, INT_MIN, INT_MAX});
      what = "thread_count";
      break;
    case 10:
      d.max_neighbors = poison_u32(rng_);
      what = "max_neighbors";
      break;
    case 11:
      d.method = as_enum<pbf_method>(poison_enum(rng_));
      what = "method";
      break;
    case 12:  // a domain of far too many cells
      for (int a = 0; a < 3; ++a) {
        d.domain_min[a] = -FLT_MAX;
        d.domain_max[a] = FLT_MAX;
      }
      what = "huge domain";
      break;
    case 13:  // extreme in scale: refused (spacing 1e-4 .. 1e3 m, rest_density 1e-3 .. 1e5 kg/m^3)
      d.particle_spacing = rng_.pick<float>({1e30f, 1e15f});
      for (int a = 0; a < 3; ++a) {
        d.domain_min[a] = 0.0f;
        d.domain_max[a] = 10.0f * d.particle_spacing;
      }
      if (rng_.chance(0.5)) d.rest_density = 1e38f;
      what = "huge scale";
      break;
    case 14:  // tiny scale: 1e-4 m valid, finer refused
      d.particle_spacing = rng_.pick<float>({1e-6f, 1e-5f, 1e-4f});
      for (int a = 0; a < 3; ++a) {
        d.domain_min[a] = 0.0f;
        d.domain_max[a] = 6.0f * d.particle_spacing;
      }
      what = "tiny scale";
      break;
    default: break;
  }
  const bool null_desc = rng_.chance(0.03), null_out = rng_.chance(0.03);
  Check c = begin("pbf_solver_create", nullptr,
                  null_desc ? "NULL" : what + " " + describe_desc(d) + (null_out ? ", out NULL" : ""));
  pbf_solver* out = reinterpret_cast<pbf_solver*>(uintptr_t(0x1));  // must be overwritten
  const pbf_status st = pbf_solver_create(null_desc ? nullptr : &d, null_out ? nullptr : &out);
  end(c, st);
  if (what == "cuda" && !null_desc && !null_out && d.device_index >= 0) {
    int available = 1;
    pbf_backend_available(PBF_BACKEND_CUDA, &available);
    if (!available && st != PBF_ERROR_BACKEND_UNAVAILABLE)
      failure("cuda-request-not-unavailable:pbf_solver_create", pbf_status_string(st));
  }
  if (null_out) return;
  if (st != PBF_OK) {
    if (out != nullptr) failure("refused-create-left-handle:pbf_solver_create", "out_solver not NULL");
    return;
  }
  if (slots_.size() >= 5) {
    pbf_solver_destroy(out);
    return;
  }
  Slot n;
  n.solver = out;
  n.desc = d;
  slots_.push_back(n);
  Slot& made = slots_.back();
  lighten(made);
  made.last = snapshot(made, false);
  if (!made.last.nonfinite.empty()) {
    failure("not-finite-after-accepted-call:pbf_solver_create", made.last.nonfinite + " (" + what + ")");
    replace_slot(made);
  }
}

void Caller::call_destroy() {
  if (rng_.chance(0.3)) {
    Check c = begin("pbf_solver_destroy", nullptr, "NULL");
    end(c, pbf_solver_destroy(nullptr));
    c = begin("pbf_sdf_destroy", nullptr, "NULL");
    end(c, pbf_sdf_destroy(nullptr));
    return;
  }
  if (rng_.chance(0.5) && !sdfs_.empty()) {
    const size_t i = rng_.below(sdfs_.size());
    Check c = begin("pbf_sdf_destroy", nullptr, "f" + std::to_string(i));
    end(c, pbf_sdf_destroy(sdfs_[i]));
    sdfs_.erase(sdfs_.begin() + long(i));
    return;
  }
  Slot* s = pick_slot(0.0);
  if (s == nullptr) return;
  // Destroying a busy or mapped solver is allowed: it waits, and the loan ends.
  Check c = begin("pbf_solver_destroy", nullptr, name(s) + (s->busy ? " (busy)" : ""));
  end(c, pbf_solver_destroy(s->solver));
  s->solver = nullptr;
  replace_slot(*s);
}

void Caller::call_getters(Slot* s) {
  pbf_solver* h = s ? s->solver : nullptr;
  const bool null_out = rng_.chance(0.1);
  switch (rng_.below(11)) {
    case 0: {
      pbf_solver_desc d = pbf_solver_desc_default();
      if (rng_.chance(0.2)) d.struct_size = poison_struct_size(rng_, sizeof d);
      Check c = begin("pbf_solver_get_desc", s, name(s) + ", struct_size " + std::to_string(d.struct_size));
      const pbf_status st = pbf_solver_get_desc(h, null_out ? nullptr : &d);
      end(c, st);
      if (!h) expect_null_solver(c.fn, st);
      break;
    }
    case 1: {
      float m = 0;
      Check c = begin("pbf_solver_get_particle_mass", s, name(s));
      const pbf_status st = pbf_solver_get_particle_mass(h, null_out ? nullptr : &m);
      end(c, st);
      if (st == PBF_OK && !null_out && !(std::isfinite(m) && m > 0))
        failure("not-finite-output:pbf_solver_get_particle_mass", fmt(m));
      break;
    }
    case 2: {
      auto p = std::make_unique<pbf_params>(pbf_params_default());
      if (rng_.chance(0.2)) p->struct_size = poison_struct_size(rng_, sizeof *p);
      Check c = begin("pbf_solver_get_params", s, name(s) + ", struct_size " + std::to_string(p->struct_size));
      end(c, pbf_solver_get_params(h, null_out ? nullptr : p.get()));
      break;
    }
    case 3: {
      size_t n = 0;
      Check c = begin("pbf_solver_particle_count", s, name(s));
      end(c, pbf_solver_particle_count(h, null_out ? nullptr : &n));
      break;
    }
    case 4: {
      auto out = std::make_unique<pbf_stats>(pbf_stats_default());
      if (rng_.chance(0.2)) out->struct_size = poison_struct_size(rng_, sizeof *out);
      Check c = begin("pbf_solver_get_stats", s, name(s) + ", struct_size " + std::to_string(out->struct_size));
      end(c, pbf_solver_get_stats(h, null_out ? nullptr : out.get()));
      break;
    }
    case 5: {
      uint32_t n = 0;
      Check c = begin("pbf_solver_get_obstacle_count", s, name(s));
      end(c, pbf_solver_get_obstacle_count(h, null_out ? nullptr : &n));
      break;
    }
    case 6: {
      size_t n = 0;
      Check c = begin("pbf_solver_get_boundary_particle_count", s, name(s));
      end(c, pbf_solver_get_boundary_particle_count(h, null_out ? nullptr : &n));
      break;
    }
    case 7: {
      Check c = begin("pbf_solver_update_densities", s, name(s));
      end(c, pbf_solver_update_densities(h));
      break;
    }
    case 8: {
      // The liquid's surface with the defaults or one poisoned parameter (never a valid tiny
      // cell, whose grid could take gigabytes), then its getters with poisoned capacities.
      pbf_surface* mesh = nullptr;
      if (pbf_surface_create(&mesh) != PBF_OK) {
        failure("surface-create-failed", pbf_last_error());
        break;
      }
      pbf_surface_params p = pbf_surface_params_default();
      const float bad[] = {0.0f, -1.0f, 1e30f, std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity()};
      switch (rng_.below(5)) {
        case 0: p.cell_size = bad[rng_.below(5)]; break;
        case 1: p.smoothing_radius = bad[rng_.below(5)]; break;
        case 2: p.iso_level = rng_.chance(0.5) ? 1.0f : bad[rng_.below(5)]; break;
        case 3: p.struct_size = poison_struct_size(rng_, sizeof p); break;
        default: break;
      }
      Check c = begin("pbf_solver_build_surface", s, name(s));
      end(c, pbf_solver_build_surface(h, rng_.chance(0.2) ? nullptr : &p, null_out ? nullptr : mesh));
      size_t vertices = 0, triangles = 0;
      if (pbf_surface_get_counts(mesh, &vertices, &triangles) != PBF_OK) failure("surface-counts-failed", pbf_last_error());
      const size_t capacity = rng_.chance(0.5) ? 3 * vertices : rng_.below(64);
      std::vector<float> out(capacity + 1);
      std::vector<uint32_t> tris(3 * triangles + 1);
      const pbf_status got = pbf_surface_get_vertices(mesh, out.data(), capacity);
      if (got != PBF_OK && got != PBF_ERROR_BUFFER_TOO_SMALL) failure("surface-vertices", pbf_last_error());
      const pbf_status normals = pbf_surface_get_normals(mesh, out.data(), capacity);
      if (normals != got) failure("surface-normals", pbf_last_error());
      for (size_t k = 0; got == PBF_OK && k < 3 * vertices; ++k)
        if (!std::isfinite(out[k])) failure("surface-normal-not-finite", std::to_string(out[k]));
      if (pbf_surface_get_triangles(mesh, tris.data(), 3 * triangles) != PBF_OK)
        failure("surface-triangles", pbf_last_error());
      for (size_t k = 0; k < 3 * triangles; ++k)
        if (tris[k] >= vertices) failure("surface-triangle-index", std::to_string(tris[k]));
      pbf_surface_destroy(mesh);
      break;
    }
    case 9: {
      // Any index, the obstacles' own or none; either output may be absent.
      const uint32_t index = static_cast<uint32_t>(rng_.chance(0.7) ? rng_.below(3) : rng_.below(uint64_t(1) << 32));
      float force[3] = {0, 0, 0}, torque[3] = {0, 0, 0};
      Check c = begin("pbf_solver_get_obstacle_force", s, name(s) + ", index " + std::to_string(index));
      const pbf_status st = pbf_solver_get_obstacle_force(h, index, null_out ? nullptr : force,
                                                          rng_.chance(0.2) ? nullptr : torque);
      end(c, st);
      for (int a = 0; st == PBF_OK && a < 3; ++a)
        if (!std::isfinite(force[a]) || !std::isfinite(torque[a]))
          failure("not-finite-output:pbf_solver_get_obstacle_force", fmt(force[a]) + " " + fmt(torque[a]));
      break;
    }
    default: {
      int done = -1;
      Check c = begin("pbf_solver_poll", s, name(s));
      const pbf_status st = pbf_solver_poll(h, null_out ? nullptr : &done);
      end(c, st);
      if (st == PBF_OK && done != 0 && done != 1) failure("bad-output:pbf_solver_poll", std::to_string(done));
      break;
    }
  }
}

void Caller::call_set_params(Slot* s) {
  std::string changes;
  const pbf_params p = random_params(s, changes);
  const bool null_p = rng_.chance(0.05);
  Check c = begin("pbf_solver_set_params", s, name(s) + (null_p ? ", NULL" : ", {" + changes + "}"));
  end(c, pbf_solver_set_params(s ? s->solver : nullptr, null_p ? nullptr : &p));
}

void Caller::call_add_particles(Slot* s) {
  const size_t room = s ? s->desc.max_particles - std::min<size_t>(s->desc.max_particles, count_of(s)) : 10;
  size_t n = rng_.pick<size_t>({0, 1, 5, 50, 200});
  if (rng_.chance(0.1)) n = room + 1;  // one past the capacity
  if (n > 3000) n = 3000;
  Exact<float> pos = particle_array(s, n, false);
  Exact<float> vel = particle_array(s, n, true);
  const bool with_vel = rng_.chance(0.6), null_pos = rng_.chance(0.05);
  // A count far past the buffers is the caller's bug; a count past the capacity must be refused before any read.
  size_t count = n;
  if (rng_.chance(0.05)) count = rng_.pick<size_t>({SIZE_MAX, SIZE_MAX / 3, size_t(1) << 40});
  if (count != n && s && count <= room) count = n;
  Check c = begin("pbf_solver_add_particles", s,
                  name(s) + ", " + (null_pos ? "NULL" : std::to_string(n) + " positions") +
                      (with_vel ? ", velocities" : ", NULL") + ", count " + std::to_string(count));
  end(c, pbf_solver_add_particles(s ? s->solver : nullptr, null_pos ? nullptr : pos.get(),
                                  with_vel ? vel.get() : nullptr, count));
}

void Caller::call_fill_box(Slot* s) {
  float lo[3], hi[3], v[3];
  random_point(s, lo, 0.05);
  random_point(s, hi, 0.05);
  for (int a = 0; a < 3; ++a) {
    if (rng_.chance(0.8) && hi[a] < lo[a]) std::swap(lo[a], hi[a]);
    // Keep small fills (the capacity refuses large ones anyway).
    if (std::isfinite(lo[a]) && std::isfinite(hi[a]) && rng_.chance(0.7)) hi[a] = std::min(hi[a], lo[a] + 0.15f);
    v[a] = maybe_poison(rng_, rng_.uniform(-2.0f, 2.0f), 0.05);
  }
  if (rng_.chance(0.05)) {  // far outside: over 2^24 spacings
    lo[0] = -1e12f;
    hi[0] = 1e12f;
  }
  const bool with_v = rng_.chance(0.5);
  Check c =
      begin("pbf_solver_fill_box", s, name(s) + ", " + fmt3(lo) + ", " + fmt3(hi) + ", " + (with_v ? fmt3(v) : "NULL"));
  size_t added = 0;
  end(c,
      pbf_solver_fill_box(s ? s->solver : nullptr, rng_.chance(0.03) ? nullptr : lo, rng_.chance(0.03) ? nullptr : hi,
                          with_v ? v : nullptr, rng_.chance(0.3) ? nullptr : &added));
}

void Caller::call_remove(Slot* s) {
  const size_t n = count_of(s);
  if (rng_.chance(0.15)) {
    Check c = begin("pbf_solver_clear_particles", s, name(s));
    end(c, pbf_solver_clear_particles(s ? s->solver : nullptr));
    return;
  }
  size_t k = rng_.pick<size_t>({0, 1, 3, 20});
  k = std::min(k, n + 1);
  Exact<uint32_t> idx(k);
  for (size_t i = 0; i < k; ++i) idx.get()[i] = uint32_t(i * 7919 % std::max<size_t>(n, 1));
  if (k > 0 && rng_.chance(0.3))
    idx.get()[rng_.below(k)] = rng_.pick<uint32_t>({uint32_t(n), UINT32_MAX, uint32_t(n + 1)});
  if (k > 1 && rng_.chance(0.2)) idx.get()[1] = idx.get()[0];  // a duplicate
  const bool null_idx = rng_.chance(0.05);
  Check c = begin("pbf_solver_remove_particles", s,
                  name(s) + ", " + std::to_string(k) + " indices" + (null_idx ? " NULL" : ""));
  end(c, pbf_solver_remove_particles(s ? s->solver : nullptr, null_idx ? nullptr : idx.get(), k));
}

void Caller::call_get_array(Slot* s) {
  const size_t n = count_of(s);
  const int which = int(rng_.below(3));
  const size_t per = which == 2 ? 1 : 3;
  size_t cap = per * n;
  if (rng_.chance(0.3) && cap > 0) cap = rng_.below(cap);  // short by some
  Exact<float> out(cap);
  const bool null_out = rng_.chance(0.05);
  const char* fn = which == 0   ? "pbf_solver_get_positions"
                   : which == 1 ? "pbf_solver_get_velocities"
                                : "pbf_solver_get_densities";
  Check c = begin(fn, s, name(s) + ", capacity " + std::to_string(cap) + (null_out ? ", NULL" : ""));
  float* o = null_out ? nullptr : out.get();
  pbf_solver* h = s ? s->solver : nullptr;
  end(c, which == 0   ? pbf_solver_get_positions(h, o, cap)
         : which == 1 ? pbf_solver_get_velocities(h, o, cap)
                      : pbf_solver_get_densities(h, o, cap));
}

void Caller::call_set_array(Slot* s) {
  const size_t n = count_of(s);
  const bool velocities = rng_.chance(0.5);
  size_t len = 3 * n;
  if (rng_.chance(0.2)) len = rng_.pick<size_t>({len + 3, len ? len - 1 : 0, 0});
  Exact<float> in(len);
  for (size_t i = 0; i + 2 < len; i += 3) {
    if (velocities)
      for (int a = 0; a < 3; ++a) in.get()[i + a] = rng_.uniform(-2.0f, 2.0f);
    else
      random_point(s, in.get() + i, 0.0);
  }
  if (len > 0 && rng_.chance(0.3)) in.get()[rng_.below(len)] = poison_float(rng_);
  const bool null_in = rng_.chance(0.05);
  const char* fn = velocities ? "pbf_solver_set_velocities" : "pbf_solver_set_positions";
  Check c = begin(fn, s, name(s) + ", length " + std::to_string(len) + (null_in ? ", NULL" : ""));
  pbf_solver* h = s ? s->solver : nullptr;
  const float* p = null_in ? nullptr : in.get();
  end(c, velocities ? pbf_solver_set_velocities(h, p, len) : pbf_solver_set_positions(h, p, len));
}

void Caller::call_map(Slot* s) {
  int field = int(rng_.below(3));
  if (rng_.chance(0.1)) field = poison_enum(rng_);
  int memory = rng_.chance(0.9) ? PBF_MEMORY_HOST : rng_.chance(0.5) ? PBF_MEMORY_DEVICE : poison_enum(rng_);
  pbf_solver* h = s ? s->solver : nullptr;
  if (rng_.chance(0.5)) {
    const float* data = nullptr;
    size_t count = 0;
    const bool null_data = rng_.chance(0.05);
    Check c =
        begin("pbf_solver_map", s, name(s) + ", field " + std::to_string(field) + ", memory " + std::to_string(memory));
    const pbf_status st = pbf_solver_map(h, as_enum<pbf_field>(field), as_enum<pbf_memory>(memory),
                                         null_data ? nullptr : &data, rng_.chance(0.2) ? nullptr : &count);
    if (st == PBF_OK && s && field >= 0 && field < 3) {
      s->mapped[field] = true;
      s->map_data[field] = data;
      s->map_count[field] = s->last.count;
      s->map_hash[field] = fnv1a(data, (field == 2 ? 1 : 3) * s->last.count * sizeof(float));
    }
    end(c, st);
  } else {
    Check c = begin("pbf_solver_unmap", s, name(s) + ", field " + std::to_string(field));
    const pbf_status st = pbf_solver_unmap(h, as_enum<pbf_field>(field));
    end(c, st);
    if (st == PBF_OK && s && field >= 0 && field < 3) s->mapped[field] = false;
  }
}

void Caller::call_planes(Slot* s) {
  pbf_solver* h = s ? s->solver : nullptr;
  if (rng_.chance(0.2)) {
    Check c = begin("pbf_solver_clear_planes", s, name(s));
    const pbf_status st = pbf_solver_clear_planes(h);
    end(c, st);
    if (st == PBF_OK && s) s->planes = 0;
    return;
  }
  float n[3];
  for (int a = 0; a < 3; ++a) n[a] = maybe_poison(rng_, rng_.uniform(-1.0f, 1.0f), 0.15);
  if (rng_.chance(0.05)) n[0] = n[1] = n[2] = kDenormal;
  float offset = maybe_poison(rng_, rng_.uniform(-0.2f, 0.2f), 0.15);
  // Keep the fluid's side holding part of the domain: a plane that excludes it all is valid and pushes
  // every particle out of the domain at once; that is tested once, with offset FLT_MAX below.
  if (rng_.chance(0.03)) offset = FLT_MAX;
  Check c = begin("pbf_solver_add_plane", s, name(s) + ", " + fmt3(n) + ", " + fmt(offset));
  uint32_t index = 0;
  const pbf_status st =
      pbf_solver_add_plane(h, rng_.chance(0.03) ? nullptr : n, offset, rng_.chance(0.3) ? nullptr : &index);
  end(c, st);
  if (st == PBF_OK && s) ++s->planes;
}

void Caller::call_obstacle_sdf(Slot* s) {
  uint32_t dims[3];
  for (int a = 0; a < 3; ++a) dims[a] = rng_.chance(0.9) ? uint32_t(2 + rng_.below(10)) : poison_u32(rng_);
  const uint64_t count = uint64_t(dims[0]) * dims[1] * dims[2];
  size_t length = count <= 5000 ? size_t(count) : 8;
  if (rng_.chance(0.1)) length = rng_.pick<size_t>({0, length + 1, length ? length - 1 : 0, SIZE_MAX});
  const size_t alloc = length <= 5000 ? length : 0;  // beyond: the call must refuse before reading
  Exact<float> values(alloc);
  float cell = maybe_poison(rng_, rng_.uniform(0.01f, 0.1f), 0.15);
  float origin[3];
  for (int a = 0; a < 3; ++a) origin[a] = maybe_poison(rng_, rng_.uniform(-0.3f, 0.6f), 0.05);
  if (rng_.chance(0.05)) {
    origin[0] = FLT_MAX / 2;
    cell = FLT_MAX / 4;
  }
  // A sphere of radius 2 cells about the grid's centre.
  for (size_t k = 0; k < alloc && k < count; ++k) {
    const float i = float(k % dims[0]), j = float(k / dims[0] % dims[1]), l = float(k / (size_t(dims[0]) * dims[1]));
    const float c0 = 0.5f * float(dims[0] - 1), c1 = 0.5f * float(dims[1] - 1), c2 = 0.5f * float(dims[2] - 1);
    values.get()[k] = (std::sqrt((i - c0) * (i - c0) + (j - c1) * (j - c1) + (l - c2) * (l - c2)) - 2.0f) *
                      (std::isfinite(cell) ? cell : 0.05f);
  }
  if (alloc > 0 && rng_.chance(0.15)) values.get()[rng_.below(alloc)] = poison_float(rng_);
  if (alloc > 0 && rng_.chance(0.05))
    for (size_t k = 0; k < alloc; ++k) values.get()[k] = rng_.pick<float>({FLT_MAX, -FLT_MAX, kDenormal, -1e30f});
  float q[4], t[3];
  const float* rot = random_rotation(q);
  const float* tr = random_translation(s, t);
  const bool null_values = rng_.chance(0.03);
  if (length != alloc && !null_values) {
    // A length past what we hold: the dims must refuse it first, else it is our bug, not the library's.
    if (count == length) return;
  }
  Check c = begin("pbf_solver_add_obstacle_sdf", s,
                  name(s) + ", length " + std::to_string(length) + ", dims {" + std::to_string(dims[0]) + ", " +
                      std::to_string(dims[1]) + ", " + std::to_string(dims[2]) + "}, origin " + fmt3(origin) +
                      ", cell " + fmt(cell) + ", rotation " + fmt4(rot) + ", translation " + fmt3(tr));
  uint32_t index = 0;
  pbf_solver* h = s ? s->solver : nullptr;
  const pbf_status st = pbf_solver_add_obstacle_sdf(
      h, null_values ? nullptr : values.get(), length, rng_.chance(0.03) ? nullptr : dims,
      rng_.chance(0.03) ? nullptr : origin, cell, rot, tr, rng_.chance(0.3) ? nullptr : &index);
  end(c, st);
}

void Caller::call_obstacle_pose(Slot* s) {
  pbf_solver* h = s ? s->solver : nullptr;
  const uint32_t obstacles = s ? s->last.obstacles : 0;
  if (rng_.chance(0.1)) {
    Check c = begin("pbf_solver_clear_obstacles", s, name(s));
    end(c, pbf_solver_clear_obstacles(h));
    return;
  }
  uint32_t index = obstacles > 0 && rng_.chance(0.8) ? uint32_t(rng_.below(obstacles)) : poison_u32(rng_);
  if (rng_.chance(0.4)) {
    call_obstacle_body(s, index);
    return;
  }
  float q[4], t[3];
  const float* rot = random_rotation(q);
  const float* tr = random_translation(s, t);
  Check c = begin("pbf_solver_set_obstacle_pose", s,
                  name(s) + ", " + std::to_string(index) + ", " + fmt4(rot) + ", " + fmt3(tr));
  end(c, pbf_solver_set_obstacle_pose(h, index, rot, tr));
}

void Caller::call_obstacle_body(Slot* s, uint32_t index) {
  pbf_solver* h = s ? s->solver : nullptr;
  const float odd[] = {0.0f, -1.0f, 1e-30f, 1e30f, FLT_MAX, std::numeric_limits<float>::quiet_NaN(),
                       std::numeric_limits<float>::infinity(), kDenormal};
  const auto any = [&](float usual) { return rng_.chance(0.7) ? usual : odd[rng_.below(8)]; };
  switch (rng_.below(5)) {
    case 0: {
      // Mass properties, mostly plausible (a 0.1 m body of 100 .. 3000 kg/m^3), sometimes poisoned or kinematic.
      const float mass = rng_.chance(0.15) ? 0.0f : any(rng_.pick<float>({0.1f, 1.0f, 3.0f}));
      float centre[3], inertia[9] = {};
      for (float& c : centre) c = any(0.0f);
      for (int a = 0; a < 3; ++a) inertia[4 * a] = any(mass > 0.0f ? mass * 0.00167f : 0.001f);
      if (rng_.chance(0.2)) inertia[rng_.below(9)] = any(0.0005f);
      Check c = begin("pbf_solver_set_obstacle_dynamic", s,
                      name(s) + ", " + std::to_string(index) + ", " + fmt(mass) + ", " + fmt3(centre));
      end(c, pbf_solver_set_obstacle_dynamic(h, index, mass, rng_.chance(0.05) ? nullptr : centre,
                                             rng_.chance(0.05) ? nullptr : inertia));
      break;
    }
    case 1: {
      float v[3], w[3];
      for (float& x : v) x = any(rng_.pick<float>({0.0f, 1.0f, -5.0f, 999.0f}));
      for (float& x : w) x = any(rng_.pick<float>({0.0f, 3.0f, -20.0f}));
      Check c = begin("pbf_solver_set_obstacle_velocity", s,
                      name(s) + ", " + std::to_string(index) + ", " + fmt3(v) + ", " + fmt3(w));
      end(c, pbf_solver_set_obstacle_velocity(h, index, rng_.chance(0.2) ? nullptr : v,
                                              rng_.chance(0.2) ? nullptr : w));
      break;
    }
    case 2: {
      float v[3] = {0, 0, 0}, w[3] = {0, 0, 0};
      Check c = begin("pbf_solver_get_obstacle_velocity", s, name(s) + ", " + std::to_string(index));
      const pbf_status st = pbf_solver_get_obstacle_velocity(h, index, v, rng_.chance(0.2) ? nullptr : w);
      end(c, st);
      const double speed = std::sqrt(double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2]);
      if (st == PBF_OK && !(speed <= PBF_MAX_BODY_SPEED * 1.0001))
        failure("body-too-fast:pbf_solver_get_obstacle_velocity", fmt3(v));
      break;
    }
    case 3: {
      // A surface material (mostly in range), cleared now and then; what is read back must be in range.
      const float friction = any(rng_.pick<float>({0.0f, 0.3f, 2.0f, 10.0f})), restitution = any(0.5f);
      if (rng_.chance(0.2)) {
        Check c = begin("pbf_solver_clear_obstacle_material", s, name(s) + ", " + std::to_string(index));
        end(c, pbf_solver_clear_obstacle_material(h, index));
      } else {
        Check c = begin("pbf_solver_set_obstacle_material", s,
                        name(s) + ", " + std::to_string(index) + ", " + fmt(friction) + ", " + fmt(restitution));
        end(c, pbf_solver_set_obstacle_material(h, index, friction, restitution));
      }
      float f = -1.0f, e = -1.0f;
      Check c = begin("pbf_solver_get_obstacle_material", s, name(s) + ", " + std::to_string(index));
      const pbf_status st = pbf_solver_get_obstacle_material(h, index, &f, rng_.chance(0.2) ? nullptr : &e);
      end(c, st);
      if (st == PBF_OK && !(f >= 0.0f && f <= 10.0f && (e == -1.0f || (e >= 0.0f && e <= 1.0f))))
        failure("material-out-of-range:pbf_solver_get_obstacle_material", fmt(f) + ", " + fmt(e));
      break;
    }
    default: {
      float q[4] = {0, 0, 0, 0}, t[3] = {0, 0, 0};
      Check c = begin("pbf_solver_get_obstacle_pose", s, name(s) + ", " + std::to_string(index));
      const pbf_status st = pbf_solver_get_obstacle_pose(h, index, rng_.chance(0.2) ? nullptr : q, t);
      end(c, st);
      for (int a = 0; st == PBF_OK && a < 3; ++a)
        if (!std::isfinite(t[a])) failure("not-finite-output:pbf_solver_get_obstacle_pose", fmt3(t));
      break;
    }
  }
}

void Caller::call_boundary(Slot* s) {
  pbf_solver* h = s ? s->solver : nullptr;
  switch (rng_.below(6)) {
    case 0: {
      size_t n = rng_.pick<size_t>({0, 1, 10, 100});
      Exact<float> pos(3 * n);
      const float reach = s ? 2.0f * s->desc.particle_spacing : 0.1f;
      for (size_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) {
          const float lo = s ? s->desc.domain_min[a] : 0.0f, hi = s ? s->desc.domain_max[a] : 1.0f;
          pos.get()[3 * i + a] = rng_.uniform(lo - 0.9f * reach * 0.5f, hi + 0.9f * reach * 0.5f);
        }
      if (n > 0 && rng_.chance(0.3)) pos.get()[rng_.below(3 * n)] = poison_float(rng_);
      size_t count = n;
      if (rng_.chance(0.03)) count = size_t(PBF_MAX_BOUNDARY_PARTICLES) + 1;  // refused before any read
      const bool null_pos = rng_.chance(0.05);
      Check c = begin("pbf_solver_add_boundary_particles", s,
                      name(s) + ", count " + std::to_string(count) + (null_pos ? ", NULL" : ""));
      end(c, pbf_solver_add_boundary_particles(h, null_pos ? nullptr : pos.get(), count));
      break;
    }
    case 1: {
      if (s && s->last.boundary > 20000) break;  // the walls again and again: valid, but slow
      size_t added = 0;
      Check c = begin("pbf_solver_add_domain_boundary_particles", s, name(s));
      end(c, pbf_solver_add_domain_boundary_particles(h, rng_.chance(0.3) ? nullptr : &added));
      break;
    }
    case 2: {
      Check c = begin("pbf_solver_clear_boundary_particles", s, name(s));
      end(c, pbf_solver_clear_boundary_particles(h));
      break;
    }
    case 3: {
      size_t n = 0;
      Check c = begin("pbf_solver_get_boundary_particle_count", s, name(s));
      end(c, pbf_solver_get_boundary_particle_count(h, rng_.chance(0.1) ? nullptr : &n));
      break;
    }
    case 4: {
      const uint32_t obstacles = s ? s->last.obstacles : 0;
      const uint32_t index = obstacles > 0 && rng_.chance(0.8) ? uint32_t(rng_.below(obstacles)) : poison_u32(rng_);
      if (s && s->last.boundary > 20000) break;
      size_t added = 0;
      Check c = begin("pbf_solver_add_obstacle_boundary_particles", s, name(s) + ", " + std::to_string(index));
      end(c, pbf_solver_add_obstacle_boundary_particles(h, index, rng_.chance(0.3) ? nullptr : &added));
      break;
    }
    default: {
      const uint32_t obstacles = s ? s->last.obstacles : 0;
      const uint32_t index = obstacles > 0 && rng_.chance(0.8) ? uint32_t(rng_.below(obstacles)) : poison_u32(rng_);
      size_t removed = 0;
      Check c = begin("pbf_solver_remove_obstacle_boundary_particles", s, name(s) + ", " + std::to_string(index));
      end(c, pbf_solver_remove_obstacle_boundary_particles(h, index, rng_.chance(0.3) ? nullptr : &removed));
      break;
    }
  }
}

void Caller::call_step(Slot* s) {
  pbf_solver* h = s ? s->solver : nullptr;
  if (s && s->busy) {
    if (rng_.chance(0.6)) {
      Check c = begin("pbf_solver_wait", s, name(s));
      const pbf_status st = pbf_solver_wait(h);
      s->busy = false;
      end(c, st, "pbf_solver_step_async");
      if (st != PBF_OK) failure("async-step-failed:pbf_solver_wait", pbf_last_error());
      return;
    }
  }
  float dt;
  uint32_t substeps;
  random_step(s, dt, substeps);
  const bool async = rng_.chance(0.4);
  const char* fn = async ? "pbf_solver_step_async" : "pbf_solver_step";
  Check c = begin(fn, s, name(s) + ", dt " + fmt(dt) + ", substeps " + std::to_string(substeps));
  const pbf_status st = async ? pbf_solver_step_async(h, dt, substeps) : pbf_solver_step(h, dt, substeps);
  if (async && st == PBF_OK && s) s->busy = true;
  end(c, st);
  if (!h) expect_null_solver(fn, st);
}

void Caller::call_files(Slot* s) {
  pbf_solver* h = s ? s->solver : nullptr;
  const fs::path file = dir_ / ("f" + std::to_string(file_counter_++ % 8));
  // Paths: a fresh file, an empty one, a directory, a missing directory, and a name past NAME_MAX.
  std::string path = file.string();
  const char* p = path.c_str();
  switch (rng_.below(10)) {
    case 0: p = nullptr; break;
    case 1:
      path = "";
      p = path.c_str();
      break;
    case 2:
      path = dir_.string();
      p = path.c_str();
      break;
    case 3:
      path = (dir_ / "missing" / "x").string();
      p = path.c_str();
      break;
    case 4:
      path = (dir_ / std::string(300, 'n')).string();
      p = path.c_str();
      break;
    default: break;
  }
  switch (rng_.below(4)) {
    case 0: {
      Check c = begin("pbf_solver_write_ply", s, name(s) + ", " + (p ? path : "NULL"));
      end(c, pbf_solver_write_ply(h, p));
      break;
    }
    case 1: {
      Check c = begin("pbf_solver_save_checkpoint", s, name(s) + ", " + (p ? path : "NULL"));
      const pbf_status st = pbf_solver_save_checkpoint(h, p);
      end(c, st);
      if (st == PBF_OK && s && p && path == file.string()) {
        const fs::path keep = dir_ / ("own" + std::to_string(reinterpret_cast<uintptr_t>(s)) + ".chk");
        std::error_code ec;
        fs::copy_file(file, keep, fs::copy_options::overwrite_existing, ec);
        if (!ec) s->valid_checkpoint = keep.string();
      }
      break;
    }
    default: {
      // Its own checkpoint, another solver's (refused unless the descriptions match), or a bad path.
      std::string from = path;
      if (rng_.chance(0.3)) {
        Slot* other = pick_slot(0.0);
        if (other && !other->valid_checkpoint.empty()) from = other->valid_checkpoint;
      } else if (s && !s->valid_checkpoint.empty() && rng_.chance(0.8)) {
        from = s->valid_checkpoint;
      }
      const char* fp = p ? from.c_str() : nullptr;
      Check c = begin("pbf_solver_load_checkpoint", s, name(s) + ", " + (fp ? from : "NULL"));
      end(c, pbf_solver_load_checkpoint(h, fp));
      break;
    }
  }
}

void Caller::call_sdf_make() {
  pbf_sdf* out = reinterpret_cast<pbf_sdf*>(uintptr_t(0x1));
  const bool null_out = rng_.chance(0.03);
  pbf_status st;
  const char* fn;
  float cell = maybe_poison(rng_, rng_.uniform(0.01f, 0.08f), 0.2);
  // Too fine a cell for the solid: refused (over 2^27 samples) unless the solid is small. Poison covers the
  // cells out of range (1e-6 .. 1e6 m).
  if (rng_.chance(0.05)) cell = rng_.pick<float>({1e-6f, 1e-4f, 2e-4f});
  switch (rng_.below(4)) {
    case 0: {
      float half[3];
      for (int a = 0; a < 3; ++a) half[a] = maybe_poison(rng_, rng_.uniform(0.02f, 0.3f), 0.1);
      fn = "pbf_sdf_box";
      Check c = begin(fn, nullptr, fmt3(half) + ", cell " + fmt(cell));
      st = pbf_sdf_box(rng_.chance(0.03) ? nullptr : half, cell, null_out ? nullptr : &out);
      end(c, st);
      break;
    }
    case 1: {
      float r = maybe_poison(rng_, rng_.uniform(0.02f, 0.3f), 0.2);
      fn = "pbf_sdf_sphere";
      Check c = begin(fn, nullptr, fmt(r) + ", cell " + fmt(cell));
      st = pbf_sdf_sphere(r, cell, null_out ? nullptr : &out);
      end(c, st);
      break;
    }
    case 2: {
      // A small valid mesh, placed and scaled at random.
      if (!fork_safe()) return;
      const fs::path mesh = dir_ / "cube.obj";
      if (!fs::exists(mesh)) {
        std::ofstream o(mesh);
        o << "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
             "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
      }
      float scale[3], q[4], t[3];
      for (int a = 0; a < 3; ++a) scale[a] = maybe_poison(rng_, rng_.uniform(0.05f, 0.2f), 0.1);
      if (std::isfinite(cell) && cell > 0 && cell < 0.01f) cell = 0.01f;
      const float* rot = random_rotation(q);
      const float* tr = rng_.chance(0.5) ? nullptr : t;
      for (int a = 0; a < 3; ++a) t[a] = maybe_poison(rng_, rng_.uniform(-1.0f, 1.0f), 0.1);
      float band = rng_.pick<float>({0.0f, 3.0f * (std::isfinite(cell) ? cell : 0.05f), cell, -1.0f, kNaN, kDenormal});
      std::string path = mesh.string();
      switch (rng_.below(8)) {
        case 0: path = ""; break;
        case 1: path = (dir_ / "missing.obj").string(); break;
        case 2: {  // a file without triangles
          path = (dir_ / "points.obj").string();
          std::ofstream(path) << "v 0 0 0\nv 1 0 0\n";
          break;
        }
        default: break;
      }
      fn = "pbf_sdf_from_mesh_file";
      Check c = begin(fn, nullptr,
                      path + ", scale " + fmt3(scale) + ", rotation " + fmt4(rot) + ", translation " + fmt3(tr) +
                          ", cell " + fmt(cell) + ", band " + fmt(band));
      st = pbf_sdf_from_mesh_file(rng_.chance(0.03) ? nullptr : path.c_str(), rng_.chance(0.2) ? nullptr : scale, rot,
                                  tr, cell, band, null_out ? nullptr : &out);
      end(c, st);
      break;
    }
    default: {
      // Round trip through a file.
      pbf_sdf* f = pick_sdf(0.1);
      const fs::path file = dir_ / "field.sdf";
      Check c = begin("pbf_sdf_save", nullptr, sdf_name(f));
      end(c, pbf_sdf_save(f, file.c_str()));
      fn = "pbf_sdf_load";
      Check l = begin(fn, nullptr, file.string());
      st = pbf_sdf_load(file.c_str(), null_out ? nullptr : &out);
      end(l, st);
      break;
    }
  }
  if (null_out) return;
  if (st != PBF_OK) {
    if (out != nullptr) failure(std::string("refused-sdf-left-handle:") + fn, "out_sdf not NULL");
    return;
  }
  float volume = -1.0f;
  if (pbf_sdf_volume(out, &volume) != PBF_OK || !std::isfinite(volume) || volume < 0.0f)
    failure(std::string("not-finite-after-accepted-call:") + fn, "volume " + fmt(volume));
  if (sdfs_.size() < 6) {
    sdfs_.push_back(out);
    made_[out] = last_call_;
  } else {
    pbf_sdf_destroy(out);
  }
}

void Caller::call_sdf_query() {
  pbf_sdf* f = pick_sdf();
  switch (rng_.below(5)) {
    case 0: {
      uint32_t dims[3] = {0, 0, 0};
      float origin[3], cell = 0;
      Check c = begin("pbf_sdf_get_grid", nullptr, sdf_name(f));
      const pbf_status st = pbf_sdf_get_grid(f, rng_.chance(0.2) ? nullptr : dims, rng_.chance(0.2) ? nullptr : origin,
                                             rng_.chance(0.2) ? nullptr : &cell);
      end(c, st);
      break;
    }
    case 1: {
      uint32_t dims[3] = {0, 0, 0};
      size_t n = 0;
      if (f && pbf_sdf_get_grid(f, dims, nullptr, nullptr) == PBF_OK) n = size_t(dims[0]) * dims[1] * dims[2];
      if (n > 4000000) break;
      if (rng_.chance(0.3) && n > 0) n = rng_.below(n);
      Exact<float> out(n);
      Check c = begin("pbf_sdf_get_values", nullptr, std::string(sdf_name(f)) + ", length " + std::to_string(n));
      const pbf_status st = pbf_sdf_get_values(f, rng_.chance(0.05) ? nullptr : out.get(), n);
      end(c, st);
      if (st == PBF_OK)
        for (size_t i = 0; i < n; ++i)
          if (!std::isfinite(out.get()[i])) {
            failure("not-finite-output:pbf_sdf_get_values", "value " + std::to_string(i));
            break;
          }
      break;
    }
    case 2: {
      float p[3], d = 0;
      for (int a = 0; a < 3; ++a) p[a] = maybe_poison(rng_, rng_.uniform(-1.0f, 1.0f), 0.2);
      if (rng_.chance(0.1)) p[rng_.below(3)] = rng_.pick<float>({1e15f, -1e15f});
      if (rng_.chance(0.05)) p[rng_.below(3)] = rng_.pick<float>({FLT_MAX, -FLT_MAX, 1e20f});
      Check c = begin("pbf_sdf_distance", nullptr, sdf_name(f) + ", " + fmt3(p));
      const pbf_status st = pbf_sdf_distance(f, rng_.chance(0.03) ? nullptr : p, rng_.chance(0.05) ? nullptr : &d);
      end(c, st);
      if (st == PBF_OK && !std::isfinite(d)) failure("not-finite-output:pbf_sdf_distance", fmt3(p) + " -> " + fmt(d));
      break;
    }
    case 3: {
      const float density = maybe_poison(rng_, rng_.uniform(1.0f, 5000.0f), 0.3);
      float m = 0, c3[3] = {0, 0, 0}, inertia[9] = {};
      Check c = begin("pbf_sdf_mass_properties", nullptr, sdf_name(f) + ", density " + fmt(density));
      const pbf_status st = pbf_sdf_mass_properties(f, density, rng_.chance(0.05) ? nullptr : &m,
                                                    rng_.chance(0.1) ? nullptr : c3, rng_.chance(0.1) ? nullptr : inertia);
      end(c, st);
      if (st == PBF_OK && !(std::isfinite(m) && m >= 0.0f)) failure("not-finite-output:pbf_sdf_mass_properties", fmt(m));
      for (float v : inertia)
        if (st == PBF_OK && !std::isfinite(v)) failure("not-finite-output:pbf_sdf_mass_properties", "inertia " + fmt(v));
      break;
    }
    default: {
      float v = 0;
      Check c = begin("pbf_sdf_volume", nullptr, sdf_name(f));
      const pbf_status st = pbf_sdf_volume(f, rng_.chance(0.05) ? nullptr : &v);
      end(c, st);
      if (st == PBF_OK && !std::isfinite(v)) failure("not-finite-output:pbf_sdf_volume", fmt(v));
      break;
    }
  }
}

void Caller::call_sdf_use(Slot* s) {
  pbf_solver* h = s ? s->solver : nullptr;
  pbf_sdf* f = pick_sdf();
  float q[4], t[3], v[3];
  const float* rot = random_rotation(q);
  const float* tr = random_translation(s, t);
  switch (rng_.below(3)) {
    case 0: {
      uint32_t index = 0;
      Check c = begin("pbf_solver_add_obstacle", s,
                      name(s) + ", " + sdf_name(f) + ", rotation " + fmt4(rot) + ", translation " + fmt3(tr));
      end(c, pbf_solver_add_obstacle(h, f, rot, tr, rng_.chance(0.3) ? nullptr : &index));
      break;
    }
    case 1: {
      for (int a = 0; a < 3; ++a) v[a] = maybe_poison(rng_, rng_.uniform(-1.0f, 1.0f), 0.05);
      size_t added = 0;
      Check c = begin("pbf_solver_fill_sdf", s,
                      name(s) + ", " + sdf_name(f) + ", rotation " + fmt4(rot) + ", translation " + fmt3(tr));
      end(c, pbf_solver_fill_sdf(h, f, rot, tr, rng_.chance(0.5) ? nullptr : v, rng_.chance(0.3) ? nullptr : &added));
      break;
    }
    default: {
      if (s && s->last.boundary > 20000) break;
      size_t added = 0;
      Check c = begin("pbf_solver_add_sdf_boundary_particles", s,
                      name(s) + ", " + sdf_name(f) + ", rotation " + fmt4(rot) + ", translation " + fmt3(tr));
      end(c, pbf_solver_add_sdf_boundary_particles(h, f, rot, tr, rng_.chance(0.3) ? nullptr : &added));
      break;
    }
  }
}

void Caller::call_misc() {
  switch (rng_.below(6)) {
    case 0: {
      const int v = rng_.chance(0.5) ? int(rng_.below(11)) : poison_enum(rng_);
      if (pbf_status_string(as_enum<pbf_status>(v)) == nullptr)
        failure("null-string:pbf_status_string", std::to_string(v));
      break;
    }
    case 1: {
      const int v = rng_.chance(0.5) ? int(rng_.below(3)) : poison_enum(rng_);
      if (pbf_backend_name(as_enum<pbf_backend>(v)) == nullptr)
        failure("null-string:pbf_backend_name", std::to_string(v));
      if (pbf_method_name(as_enum<pbf_method>(v)) == nullptr) failure("null-string:pbf_method_name", std::to_string(v));
      break;
    }
    case 2: {
      const int v = rng_.chance(0.6) ? int(rng_.below(3)) : poison_enum(rng_);
      int available = -1;
      const bool null_out = rng_.chance(0.1);
      Check c = begin("pbf_backend_available", nullptr, std::to_string(v));
      const pbf_status st = pbf_backend_available(as_enum<pbf_backend>(v), null_out ? nullptr : &available);
      end(c, st);
      if (st == PBF_OK && available != 0 && available != 1)
        failure("bad-output:pbf_backend_available", std::to_string(available));
      break;
    }
    case 3: {
      if (pbf_version() != PBF_VERSION) failure("version-mismatch:pbf_version", std::to_string(pbf_version()));
      if (pbf_version_string() == nullptr) failure("null-string:pbf_version_string", "");
      if (pbf_last_error() == nullptr) failure("null-string:pbf_last_error", "");
      break;
    }
    default: call_step(pick_slot()); break;
  }
}

// ---------------------------------------------------------------------------
// Mangled files
// ---------------------------------------------------------------------------
std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_all(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// Mangled copies of `valid`: truncations, flipped bytes, a zeroed header, garbage.
std::vector<std::pair<std::string, std::string>> mangled_copies(Rng& rng, const std::string& valid) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("empty", "");
  for (size_t cut :
       {size_t(1), size_t(4), size_t(8), size_t(16), size_t(31), size_t(64), valid.size() / 2, valid.size() - 1})
    if (cut < valid.size()) out.emplace_back("truncated to " + std::to_string(cut), valid.substr(0, cut));
  for (int k = 0; k < 24; ++k) {
    std::string m = valid;
    const size_t at = k < 12 ? rng.below(std::min<size_t>(m.size(), 128)) : rng.below(m.size());
    m[at] = char(m[at] ^ (1 << rng.below(8)));
    out.emplace_back("bit flipped at " + std::to_string(at), m);
  }
  for (int k = 0; k < 6; ++k) {  // header words set to extremes
    std::string m = valid;
    const size_t at = 4 * rng.below(std::min<size_t>(m.size(), 96) / 4);
    const uint32_t v = rng.pick<uint32_t>({0u, UINT32_MAX, 0x7fc00000u, 0x7f800000u, 1u << 31});
    std::memcpy(&m[at], &v, std::min<size_t>(4, m.size() - at));
    out.emplace_back("word at " + std::to_string(at) + " set to " + std::to_string(v), m);
  }
  std::string garbage(valid.size(), '\0');
  for (char& c : garbage) c = char(rng.below(256));
  out.emplace_back("garbage", garbage);
  out.emplace_back("doubled", valid + valid);
  return out;
}

void Caller::mangled_files() {
  // A checkpoint, and a solver it fits.
  Slot& s = (create_slot(), slots_.back());
  const fs::path chk = dir_ / "valid.chk";
  {
    const float n[3] = {0.0f, 1.0f, 0.0f};
    pbf_solver_add_plane(s.solver, n, -0.01f, nullptr);
    pbf_solver_step(s.solver, 1.0f / 60.0f, 1);
    ASSERT_EQ(pbf_solver_save_checkpoint(s.solver, chk.c_str()), PBF_OK) << pbf_last_error();
    s.last = snapshot(s, false);
  }
  const fs::path sdf_file = dir_ / "valid.sdf";
  {
    pbf_sdf* f = nullptr;
    ASSERT_EQ(pbf_sdf_sphere(0.1f, 0.02f, &f), PBF_OK) << pbf_last_error();
    ASSERT_EQ(pbf_sdf_save(f, sdf_file.c_str()), PBF_OK) << pbf_last_error();
    pbf_sdf_destroy(f);
  }
  // Loads `path` into the solver and as a field: each is accepted whole or refused, changing nothing.
  auto load = [&](const std::string& what, const std::string& path, bool checkpoint, bool field) {
    if (checkpoint) {
      Check c = begin("pbf_solver_load_checkpoint", &s, name(&s) + ", " + what);
      const pbf_status st = pbf_solver_load_checkpoint(s.solver, path.c_str());
      end(c, st);
      if (st != PBF_OK && st != PBF_ERROR_IO && st != PBF_ERROR_INVALID_ARGUMENT && st != PBF_ERROR_CAPACITY_EXCEEDED)
        failure("mangled-file-status:pbf_solver_load_checkpoint", what + ": " + pbf_status_string(st));
      // Back to the valid state, for the next mangled copy.
      pbf_solver_load_checkpoint(s.solver, chk.c_str());
      s.last = snapshot(s, false);
    }
    if (field) {
      pbf_sdf* f = reinterpret_cast<pbf_sdf*>(uintptr_t(0x1));
      Check c = begin("pbf_sdf_load", nullptr, what);
      const pbf_status st = pbf_sdf_load(path.c_str(), &f);
      end(c, st);
      if (st == PBF_OK) {
        float v = 0;
        uint32_t dims[3];
        pbf_sdf_get_grid(f, dims, nullptr, nullptr);
        const size_t n = size_t(dims[0]) * dims[1] * dims[2];
        std::vector<float> values(n);
        pbf_sdf_get_values(f, values.data(), n);
        for (float x : values)
          if (!std::isfinite(x)) {
            failure("not-finite-after-accepted-call:pbf_sdf_load", what);
            break;
          }
        if (pbf_sdf_volume(f, &v) != PBF_OK || !std::isfinite(v))
          failure("not-finite-after-accepted-call:pbf_sdf_load", what);
        pbf_sdf_destroy(f);
      } else if (f != nullptr) {
        failure("refused-sdf-left-handle:pbf_sdf_load", what);
      }
    }
  };
  const fs::path copy = dir_ / "mangled";
  for (const auto& [what, bytes] : mangled_copies(rng_, read_all(chk))) {
    write_all(copy, bytes);
    load("checkpoint " + what, copy.string(), true, true);
  }
  for (const auto& [what, bytes] : mangled_copies(rng_, read_all(sdf_file))) {
    write_all(copy, bytes);
    load("field file " + what, copy.string(), true, true);
  }
  // A checkpoint loaded into solvers that differ in one part of the description: refused, and the
  // state kept whole (an accepted load must step to finite values).
  for (int variant = 0; variant < 4; ++variant) {
    pbf_solver_desc d = s.desc;
    const char* what = "";
    switch (variant) {
      case 0:
        d.method = d.method == PBF_METHOD_PBF ? PBF_METHOD_PROJECTIVE : PBF_METHOD_PBF;
        what = "other method";
        break;
      case 1:
        d.max_particles = 1;
        what = "max_particles 1";
        break;
      case 2:
        d.rest_density *= 2.0f;
        what = "twice the rest density";
        break;
      default:
        d.domain_max[1] += d.particle_spacing;
        what = "a taller domain";
        break;
    }
    Slot other;
    other.desc = d;
    if (pbf_solver_create(&d, &other.solver) != PBF_OK) continue;
    lighten(other);
    slots_.push_back(other);
    Slot& o = slots_.back();
    o.last = snapshot(o, false);
    Check c = begin("pbf_solver_load_checkpoint", &o, name(&o) + " (" + what + "), " + chk.string());
    const pbf_status st = pbf_solver_load_checkpoint(o.solver, chk.c_str());
    end(c, st);
    if (st == PBF_OK) {
      Check k = begin("pbf_solver_step", &o, name(&o) + ", 1/60, 1");
      end(k, pbf_solver_step(o.solver, 1.0f / 60.0f, 1));
    }
  }
  // Paths that are not regular files.
  load("a directory", dir_.string(), true, true);
  load("a missing file", (dir_ / "missing").string(), true, true);
  load("a name past NAME_MAX", (dir_ / std::string(300, 'x')).string(), true, true);
  const fs::path fifo = dir_ / "fifo";
  ::mkfifo(fifo.c_str(), 0600);
  load("/dev/zero", "/dev/zero", true, true);
  load("a FIFO", fifo.string(), true, true);
  load("/dev/null", "/dev/null", true, true);

  // Meshes: small valid files load; mangled ones and special paths are refused (Assimp runs isolated).
  const std::string cube_obj =
      "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
      "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
  const std::string tetra_off = "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
  const std::string tetra_stl =
      "solid t\nfacet normal 0 0 -1\nouter loop\nvertex 0 0 0\nvertex 0 1 0\nvertex 1 0 0\nendloop\nendfacet\n"
      "facet normal 0 -1 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 0 1\nendloop\nendfacet\n"
      "facet normal -1 0 0\nouter loop\nvertex 0 0 0\nvertex 0 0 1\nvertex 0 1 0\nendloop\nendfacet\n"
      "facet normal 1 1 1\nouter loop\nvertex 1 0 0\nvertex 0 1 0\nvertex 0 0 1\nendloop\nendfacet\nendsolid t\n";
  const std::string tetra_ply =
      "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 4\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
      "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
  const std::pair<const char*, const std::string*> meshes[] = {
      {"obj", &cube_obj}, {"off", &tetra_off}, {"stl", &tetra_stl}, {"ply", &tetra_ply}};
  const float scale[3] = {0.1f, 0.1f, 0.1f};
  auto load_mesh = [&](const std::string& what, const std::string& path) {
    pbf_sdf* f = reinterpret_cast<pbf_sdf*>(uintptr_t(0x1));
    Check c = begin("pbf_sdf_from_mesh_file", nullptr, what);
    const pbf_status st = pbf_sdf_from_mesh_file(path.c_str(), scale, nullptr, nullptr, 0.02f, 0.0f, &f);
    end(c, st);
    if (st == PBF_OK) {
      float v = 0;
      if (pbf_sdf_volume(f, &v) != PBF_OK || !std::isfinite(v))
        failure("not-finite-after-accepted-call:pbf_sdf_from_mesh_file", what);
      pbf_sdf_destroy(f);
    } else if (f != nullptr) {
      failure("refused-sdf-left-handle:pbf_sdf_from_mesh_file", what);
    }
    return st;
  };
  for (const auto& [ext, text] : meshes) {
    const fs::path file = dir_ / (std::string("mesh.") + ext);
    write_all(file, *text);
    if (load_mesh(std::string("valid .") + ext, file.string()) != PBF_OK)
      failure(std::string("valid-mesh-refused:pbf_sdf_from_mesh_file"),
              std::string(".") + ext + ": " + pbf_last_error());
    for (const auto& [what, bytes] : mangled_copies(rng_, *text)) {
      const fs::path m = dir_ / (std::string("mangled.") + ext);
      write_all(m, bytes);
      load_mesh(std::string(".") + ext + " " + what, m.string());
    }
  }
  load_mesh("a directory", dir_.string());
  load_mesh("/dev/null", "/dev/null");
  load_mesh("/dev/zero", "/dev/zero");
  load_mesh("a FIFO", fifo.string());
}

void Caller::async_stepper(uint64_t rounds, Caller& other) {
  (void)other;
  create_slot();
  Slot& a = slots_.back();
  const float lo[3] = {a.desc.domain_min[0], a.desc.domain_min[1], a.desc.domain_min[2]};
  float hi[3];
  for (int k = 0; k < 3; ++k) hi[k] = lo[k] + 0.3f * (a.desc.domain_max[k] - a.desc.domain_min[k]);
  pbf_solver_fill_box(a.solver, lo, hi, nullptr, nullptr);
  a.last = snapshot(a, false);
  for (uint64_t r = 0; r < rounds; ++r) {
    call_index_ = r;
    Check c = begin("pbf_solver_step_async", &a, name(&a) + ", dt 1/60, substeps 2");
    const pbf_status st = pbf_solver_step_async(a.solver, 1.0f / 60.0f, 2);
    if (st == PBF_OK) a.busy = true;
    end(c, st);
    // While it steps, this thread's other calls go to the same (busy) solver and must be refused.
    for (int k = 0; k < 4; ++k) {
      const size_t n = a.last.count;
      std::vector<float> out(3 * n + 1);
      Check g = begin("pbf_solver_get_positions", &a, name(&a) + " (busy)");
      end(g, pbf_solver_get_positions(a.solver, out.data(), out.size()));
    }
    int done = 0;
    while (pbf_solver_poll(a.solver, &done) == PBF_OK && !done) std::this_thread::yield();
    // Every other round the step is collected on another thread: a solver may change threads.
    Check w = begin("pbf_solver_wait", &a, name(&a) + (r % 2 ? " from another thread" : ""));
    pbf_status ws = PBF_OK;
    std::string message;
    if (r % 2) {
      std::thread([&] {
        ws = pbf_solver_wait(a.solver);
        message = pbf_last_error();
      }).join();
      if (ws != PBF_OK) failure("async-step-failed:pbf_solver_wait", message);
    } else {
      ws = pbf_solver_wait(a.solver);
    }
    a.busy = false;
    end(w, ws, "pbf_solver_step_async");
  }
}

fs::path scratch_dir(const std::string& what) {
  const fs::path d = fs::temp_directory_path() / ("pbf_hostile_" + std::to_string(::getpid()) + "_" + what);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// ---------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------
TEST(HostileCaller, RandomCallsOnOneThreadKeepEveryPromise) {
  std::printf("hostile_caller: seed %llu (PBF_HOSTILE_SEED), %llu calls (PBF_HOSTILE_CALLS)%s\n",
              static_cast<unsigned long long>(base_seed()), static_cast<unsigned long long>(call_budget()),
              include_known() ? (", known issues included: " + included_known()).c_str() : "");
  std::fflush(stdout);  // a sanitizer that stops the process must not take the seed with it
  const fs::path dir = scratch_dir("one");
  Progress progress;
  {
    Watchdog watchdog({&progress});
    Caller caller(base_seed(), 0, dir, progress);
    caller.run(call_budget());
  }
  fs::remove_all(dir);
  report_failures();
}

TEST(HostileCaller, MangledFilesAreRefusedAndChangeNothing) {
  const fs::path dir = scratch_dir("files");
  Progress progress;
  {
    Watchdog watchdog({&progress});
    Caller caller(base_seed() + 1, 0, dir, progress);
    caller.mangled_files();
  }
  fs::remove_all(dir);
  report_failures();
}

// Three callers with solvers of their own, and a fourth stepping one solver
// asynchronously, refused while busy, and waited for, all at once.
TEST(HostileCaller, SeveralCallersOnSeveralThreadsKeepEveryPromise) {
  constexpr int kThreads = 3;
  const fs::path dir = scratch_dir("threads");
  std::vector<std::unique_ptr<Progress>> progress;
  for (int t = 0; t <= kThreads; ++t) progress.push_back(std::make_unique<Progress>());
  std::vector<Progress*> watched;
  for (auto& p : progress) watched.push_back(p.get());
  {
    Watchdog watchdog(watched);
    std::vector<std::unique_ptr<Caller>> callers;
    for (int t = 0; t <= kThreads; ++t)
      callers.push_back(
          std::make_unique<Caller>(base_seed() + 100 + uint64_t(t), t + 1, dir / std::to_string(t), *progress[t]));
    std::vector<std::thread> threads;
    const uint64_t each = std::max<uint64_t>(1, call_budget() / (2 * kThreads));
    for (int t = 0; t < kThreads; ++t) threads.emplace_back([&, t] { callers[t]->run(each); });
    threads.emplace_back([&] { callers[kThreads]->async_stepper(std::max<uint64_t>(1, each / 20), *callers[0]); });
    for (std::thread& t : threads) t.join();
  }
  fs::remove_all(dir);
  report_failures();
}

}  // namespace
