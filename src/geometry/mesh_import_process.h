// mesh_import_process.h - runs a mesh importer where its failures cannot
// reach the caller's process: on POSIX systems in a child process with a
// time and a memory limit, which sends the mesh back through a pipe. A
// crash, an abort, a hang or runaway memory in the importer becomes an Error
// (Status::Io) naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "geometry/triangle_mesh.h"

namespace pbf {

struct MeshImportLimits {
  double seconds = 60.0;      // wall-clock time the importer may take [s]
  uint64_t memory_bytes = 0;  // address space it may add to what it starts with [bytes]; 0: no limit
};

// True where imports run in a child process (fork is available); elsewhere
// run_mesh_import() calls `import` in this process, without limits.
bool mesh_import_isolated();

// True where the memory limit is applied (not under AddressSanitizer, whose
// shadow memory needs terabytes of address space).
bool mesh_import_memory_limited();

// Calls `import` in a child process and returns its mesh. The child only
// runs `import`, sends the mesh (or the message of the Error it threw) and
// ends. Throws Error (Status::Io) naming `path` when the child's Error
// says so, when it runs out of memory, takes longer than limits.seconds,
// crashes (signal N), or sends anything but a well-formed mesh whose
// triangles name existing vertices.
TriangleMesh run_mesh_import(const std::string& path, const MeshImportLimits& limits,
                             const std::function<TriangleMesh()>& import);

// The child's answers as bytes, and their decoding in the parent (which
// trusts nothing in them): exposed for tests and the fuzzer.
std::string encode_mesh_reply(const TriangleMesh& mesh);
std::string encode_error_reply(const std::string& message);
// The total size of a reply whose first bytes are `data` (0 while fewer than
// the header's bytes are there); throws Error (Status::Io) for a header
// announcing more than a mesh of kMaxMeshTriangles can take.
size_t mesh_reply_size(const std::string& path, const char* data, size_t size);
// Returns the mesh of a complete reply or throws the Error it carries.
TriangleMesh decode_mesh_reply(const std::string& path, const char* data, size_t size);

}  // namespace pbf
