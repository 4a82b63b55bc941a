// fuzz_mesh_loader - a libFuzzer target for mesh files.
//
// In this process, where libFuzzer sees the coverage: the checks of every
// accepted format (check_mesh_data) on the input, and the decoding of the
// input as an importer process's answer (decode_mesh_reply). Then the whole
// load, Assimp in its child process, of the input under the format the
// checks accepted it as (preferring STL, PLY and OFF to OBJ, which takes
// any text): libFuzzer does not see the child's coverage, but it sees this
// process fail if anything the child does reaches it. A process per input
// is slow, so inputs taken as OBJ (almost all of them) are loaded whole one
// time in eight, chosen by a hash of their bytes so that a run repeats.
//
// Fails the run: a crash or a sanitizer report in this process, an
// exception other than Error (Status::Io), or a loaded mesh whose triangles
// name missing vertices or whose vertices are not finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"
#include "geometry/mesh_format.h"
#include "geometry/mesh_import_process.h"
#include "geometry/mesh_loader.h"

namespace {

void expect_io(const pbf::Error& e) {
  if (e.status() == pbf::Status::Io) return;
  std::fprintf(stderr, "an error other than Status::Io: %s\n", e.what());
  std::abort();
}

void expect_clean(const pbf::TriangleMesh& m) {
  for (const auto& t : m.triangles)
    for (uint32_t v : t)
      if (v >= m.vertices.size()) {
        std::fprintf(stderr, "a triangle names vertex %u of %zu\n", v, m.vertices.size());
        std::abort();
      }
  for (const pbf::Vec3& v : m.vertices)
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) {
      std::fprintf(stderr, "a vertex is not finite\n");
      std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  const char* names[] = {"fuzz.obj", "fuzz.stl", "fuzz.ply", "fuzz.off"};
  const char* accepted = nullptr;
  for (const char* name : names) {
    try {
      pbf::check_mesh_data(name, bytes, size);
      if (accepted == nullptr || name != names[0]) accepted = name;
    } catch (const pbf::Error& e) {
      expect_io(e);
    }
  }
  try {
    expect_clean(pbf::decode_mesh_reply("fuzz.obj", bytes, size));
  } catch (const pbf::Error& e) {
    expect_io(e);
  }
  uint32_t hash = 2166136261u;  // FNV-1a
  for (size_t k = 0; k < size; ++k) hash = (hash ^ data[k]) * 16777619u;
  if (accepted != nullptr && (accepted != names[0] || hash % 8 == 0)) {
    pbf::MeshImportLimits limits = pbf::mesh_import_limits(size);
    limits.seconds = 10.0;
    try {
      expect_clean(pbf::load_mesh_data(accepted, bytes, size, pbf::MeshTransform{}, limits));
    } catch (const pbf::Error& e) {
      expect_io(e);
    }
  }
  return 0;
}
