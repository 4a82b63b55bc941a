// mesh_loader.h - triangle meshes from OBJ, STL, PLY and OFF files, placed
// in the world by a scale, a rotation and a translation. Files are checked
// (mesh_format.h) before Assimp parses them, and Assimp runs in a child
// process with the limits below (mesh_import_process.h), so that no file
// can crash, hang or exhaust the process that loads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/hd.h"
#include "geometry/mesh_import_process.h"
#include "geometry/triangle_mesh.h"

namespace pbf {

// x_world = R (S x_file) + t: S scales each axis (a negative factor mirrors),
// R is a unit quaternion (x, y, z, w; normalised here), t a translation [m].
struct MeshTransform {
  float scale[3] = {1.0f, 1.0f, 1.0f};
  float rotation[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  Vec3 translation{0.0f, 0.0f, 0.0f};
};

// The most triangles a loaded mesh may have.
constexpr size_t kMaxMeshTriangles = size_t(1) << 26;

// The largest mesh file read (a binary STL of 2^25 triangles takes 1.6 GiB).
constexpr uint64_t kMaxMeshFileBytes = uint64_t(2) << 30;

// The importer's limits grow with the file: kMeshImportSeconds plus
// kMeshImportSecondsPerMiB per MiB of file (Assimp reads a 1M-triangle OBJ,
// STL or PLY of 19-50 MB in 1-2 s), and kMeshImportMemoryBytes plus
// kMeshImportMemoryPerFileByte per byte of file of address space (Assimp
// needs 20 to 40 times the file's size for those files). Beyond them the
// import is stopped and reported; the process that loads goes on.
constexpr double kMeshImportSeconds = 30.0;
constexpr double kMeshImportSecondsPerMiB = 0.25;
constexpr uint64_t kMeshImportMemoryBytes = uint64_t(1) << 30;
constexpr uint64_t kMeshImportMemoryPerFileByte = 64;

// The limits for a file of `file_bytes` bytes, from the constants above.
MeshImportLimits mesh_import_limits(uint64_t file_bytes);

// Reads every mesh of the file's scene, triangulated, with the transforms of
// the scene's nodes applied, then `transform`, into one mesh. Points and
// lines are dropped; a transform that mirrors keeps triangles facing
// outwards. Throws Error (Status::Io) whose message names the file and the
// reason: missing, unreadable, larger than kMaxMeshFileBytes, not of an
// accepted format or failing its checks (check_mesh_data), a file Assimp
// cannot parse (with Assimp's message), crashes on, or takes longer or more
// memory than mesh_import_limits() allow for, an empty scene, no triangles,
// more than kMaxMeshTriangles triangles or coordinates that are not finite.
TriangleMesh load_mesh(const std::string& path, const MeshTransform& transform = MeshTransform{});

// load_mesh() for a file's `size` bytes at `data`; `path` names it in
// messages and its extension gives the format. `limits` as for
// run_mesh_import().
TriangleMesh load_mesh_data(const std::string& path, const char* data, size_t size, const MeshTransform& transform,
                            const MeshImportLimits& limits);

// Applies `transform` to every vertex (reversing the triangles when it mirrors).
void transform_mesh(TriangleMesh& mesh, const MeshTransform& transform);

}  // namespace pbf
