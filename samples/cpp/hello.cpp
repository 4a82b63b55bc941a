// hello.cpp - pbf from C++: the C API behind a small owning handle.
#include <pbf/pbf.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void check(pbf_status status) {
  if (status != PBF_OK) throw std::runtime_error(pbf_last_error());
}

struct SolverDeleter {
  void operator()(pbf_solver* s) const { pbf_solver_destroy(s); }
};
using SolverPtr = std::unique_ptr<pbf_solver, SolverDeleter>;

}  // namespace

int main() try {
  pbf_solver_desc desc = pbf_solver_desc_default();
  desc.particle_spacing = 0.05f;
  desc.domain_max[0] = 2.0f;
  pbf_solver* raw = nullptr;
  check(pbf_solver_create(&desc, &raw));
  SolverPtr solver(raw);

  const float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.5f, 0.8f, 1.0f};
  size_t count = 0;
  check(pbf_solver_fill_box(solver.get(), lo, hi, nullptr, &count));
  for (int frame = 0; frame < 60; ++frame) check(pbf_solver_step(solver.get(), 1.0f / 60.0f, 4));

  std::vector<float> positions(3 * count);
  check(pbf_solver_get_positions(solver.get(), positions.data(), positions.size()));
  float front = 0.0f;
  for (size_t i = 0; i < count; ++i) front = std::max(front, positions[3 * i]);
  std::printf("pbf %s: %zu particles, the front reached x = %.3f m after 1 s\n", pbf_version_string(), count, front);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "pbf error: %s\n", e.what());
  return 1;
}
