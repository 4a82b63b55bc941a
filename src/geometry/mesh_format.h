// mesh_format.h - the mesh file formats pbf reads, and the checks a file's
// bytes pass before any importer sees them: the format named by the
// extension and confirmed by the content, headers read to their end, every
// count the header announces present in the file and nothing more.
#pragma once

#include <cstddef>
#include <string>

namespace pbf {

enum class MeshFormat { Obj, Stl, Ply, Off };

// The accepted extensions, as error messages list them.
constexpr const char* kMeshFormatList = ".obj, .stl, .ply, .off";

// The most bytes a PLY header or an OFF header (with its comments) may take.
constexpr size_t kMaxMeshHeaderBytes = size_t(1) << 20;

// The lowercase extension Assimp knows the format by ("obj", "stl", ...).
const char* mesh_format_extension(MeshFormat format);

// Throws Error (Status::Io) "path: cannot load a mesh from '<path>': <reason>".
[[noreturn]] void mesh_file_error(const std::string& path, const std::string& reason);

// The format of the `size` bytes at `data` read from `path`: the extension
// (case-insensitive) picks it and the bytes must be such a file.
// - OBJ: text (no NUL byte).
// - STL: binary with exactly 84 + 50 n bytes (n at byte 80), or ASCII
//   "solid ... facet normal ... outer loop vertex x3 endloop endfacet ... endsolid".
// - PLY: "ply", a header reaching end_header within kMaxMeshHeaderBytes whose
//   elements all have properties and whose vertex element has x, y and z;
//   then exactly the announced elements: binary ones fill the file to its
//   last byte, ASCII ones are one per line with a number per property.
// - OFF: "[ST][C][N]OFF", vertex, face and edge counts, one vertex per line
//   of fewer than 4096 bytes, one face per line with 1 to 9 corners that
//   name existing vertices.
// Throws Error (Status::Io) naming `path` and the first thing that is wrong.
MeshFormat check_mesh_data(const std::string& path, const char* data, size_t size);

}  // namespace pbf
