// mesh_loader.h - triangle meshes from files (every format Assimp reads),
// placed in the world by a scale, a rotation and a translation.
#pragma once

#include <string>

#include "core/hd.h"
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

// Reads every mesh of the file's scene, triangulated, with the transforms of
// the scene's nodes applied, then `transform`, into one mesh. Points and
// lines are dropped; a transform that mirrors keeps triangles facing
// outwards. Throws Error (Status::Io) whose message names the file and the
// reason: missing, unreadable, a format Assimp does not know or a file it
// cannot parse (with Assimp's message), an empty scene, no triangles, more
// than kMaxMeshTriangles triangles or coordinates that are not finite.
TriangleMesh load_mesh(const std::string& path, const MeshTransform& transform = MeshTransform{});

// Applies `transform` to every vertex (reversing the triangles when it mirrors).
void transform_mesh(TriangleMesh& mesh, const MeshTransform& transform);

}  // namespace pbf
