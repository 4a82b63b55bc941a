#include "geometry/mesh_loader.h"

#include <assimp/Importer.hpp>
#include <assimp/MemoryIOWrapper.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "core/error.h"
#include "core/sdf_grid.h"
#include "geometry/mesh_format.h"

namespace pbf {

namespace {

// Deeper node hierarchies than this are refused rather than walked.
constexpr size_t kMaxNodes = size_t(1) << 20;

// Runs in the importer process: Assimp parses the checked bytes (never the
// file again, which may have changed since) with the importer of their
// format, and the scene's triangles are gathered into one mesh whose every
// vertex belongs to a triangle.
TriangleMesh import_with_assimp(const std::string& path, const char* data, size_t size, MeshFormat format) {
  Assimp::Importer importer;
  // Normals, texture coordinates and colours would keep vertices at the same
  // position apart; only positions matter here.
  importer.SetPropertyInteger(AI_CONFIG_PP_RVC_FLAGS, aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS |
                                                          aiComponent_COLORS | aiComponent_TEXCOORDS |
                                                          aiComponent_BONEWEIGHTS | aiComponent_ANIMATIONS |
                                                          aiComponent_TEXTURES | aiComponent_LIGHTS |
                                                          aiComponent_CAMERAS | aiComponent_MATERIALS);
  // Assimp sees only these bytes: no other file can be opened (an OBJ's
  // mtllib naming /dev/zero or a FIFO). The name's extension picks the
  // importer; only one claims each of the four extensions.
  importer.SetIOHandler(new Assimp::MemoryIOSystem(reinterpret_cast<const uint8_t*>(data), size, nullptr));
  const aiScene* scene = importer.ReadFile(
      std::string(AI_MEMORYIO_MAGIC_FILENAME) + "." + mesh_format_extension(format),
      aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_RemoveComponent |
          aiProcess_ValidateDataStructure);
  if (scene == nullptr) {
    const std::string reason = importer.GetErrorString();
    if (reason.find("bad_alloc") != std::string::npos) throw std::bad_alloc();  // Assimp caught it; its limit is told
    mesh_file_error(path, reason);
  }
  if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) != 0 || scene->mRootNode == nullptr || scene->mNumMeshes == 0)
    mesh_file_error(path, "the file holds no mesh");

  // Every node's meshes with the node's accumulated transform, depth first.
  TriangleMesh mesh;
  std::vector<uint32_t> index;  // a source vertex's index in `mesh`, or ~0 while unused
  std::vector<std::pair<const aiNode*, aiMatrix4x4>> stack{{scene->mRootNode, scene->mRootNode->mTransformation}};
  size_t visited = 0;
  while (!stack.empty()) {
    const auto [node, matrix] = stack.back();
    stack.pop_back();
    if (++visited > kMaxNodes) mesh_file_error(path, "its scene has more than " + std::to_string(kMaxNodes) + " nodes");
    const double det = matrix.Determinant();
    for (unsigned m = 0; m < node->mNumMeshes; ++m) {
      if (node->mMeshes[m] >= scene->mNumMeshes) mesh_file_error(path, "a node names a mesh that does not exist");
      const aiMesh* source = scene->mMeshes[node->mMeshes[m]];
      size_t triangles = 0;
      for (unsigned f = 0; f < source->mNumFaces; ++f) triangles += source->mFaces[f].mNumIndices == 3 ? 1 : 0;
      if (triangles == 0) continue;
      if (mesh.triangles.size() + triangles > kMaxMeshTriangles)
        mesh_file_error(path, "it holds more than " + std::to_string(kMaxMeshTriangles) + " triangles");
      index.assign(source->mNumVertices, ~uint32_t(0));
      for (unsigned f = 0; f < source->mNumFaces; ++f) {
        const aiFace& face = source->mFaces[f];
        if (face.mNumIndices != 3) continue;
        std::array<uint32_t, 3> t{};
        for (int k = 0; k < 3; ++k) {
          const unsigned v = face.mIndices[k];
          if (v >= source->mNumVertices) mesh_file_error(path, "a face names a vertex that does not exist");
          if (index[v] == ~uint32_t(0)) {
            index[v] = static_cast<uint32_t>(mesh.vertices.size());
            const aiVector3D p = matrix * source->mVertices[v];
            mesh.vertices.push_back(Vec3{p.x, p.y, p.z});
          }
          t[k] = index[v];
        }
        if (det < 0.0) std::swap(t[1], t[2]);  // a mirroring node keeps faces outwards
        mesh.triangles.push_back(t);
      }
    }
    for (unsigned c = 0; c < node->mNumChildren; ++c)
      if (node->mChildren[c] != nullptr) stack.emplace_back(node->mChildren[c], matrix * node->mChildren[c]->mTransformation);
  }
  if (mesh.triangles.empty()) mesh_file_error(path, "the file holds no triangles");
  return mesh;
}

}  // namespace

MeshImportLimits mesh_import_limits(uint64_t file_bytes) {
  MeshImportLimits limits;
  limits.seconds = kMeshImportSeconds + kMeshImportSecondsPerMiB * double(file_bytes) / double(1 << 20);
  limits.memory_bytes = kMeshImportMemoryBytes + kMeshImportMemoryPerFileByte * file_bytes;
  return limits;
}

void transform_mesh(TriangleMesh& mesh, const MeshTransform& transform) {
  double norm = 0.0;
  for (float c : transform.rotation) norm += double(c) * c;
  norm = std::sqrt(norm);
  float q[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  if (norm > 0.0)
    for (int k = 0; k < 4; ++k) q[k] = float(transform.rotation[k] / norm);
  const RigidTransform x = rigid_transform(q, transform.translation);
  for (Vec3& v : mesh.vertices)
    v = to_world(x, Vec3{v.x * transform.scale[0], v.y * transform.scale[1], v.z * transform.scale[2]});
  if (transform.scale[0] * transform.scale[1] * transform.scale[2] < 0.0f)
    for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
}

TriangleMesh load_mesh_data(const std::string& path, const char* data, size_t size, const MeshTransform& transform,
                            const MeshImportLimits& limits) {
  const MeshFormat format = check_mesh_data(path, data, size);
  TriangleMesh mesh = run_mesh_import(path, limits, [&] { return import_with_assimp(path, data, size, format); });
  transform_mesh(mesh, transform);
  for (const Vec3& v : mesh.vertices)
    if (!is_finite(v)) mesh_file_error(path, "a vertex is not finite once placed (NaN or overflow)");
  return mesh;
}

TriangleMesh load_mesh(const std::string& path, const MeshTransform& transform) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) mesh_file_error(path, "no such file");
  if (!S_ISREG(info.st_mode)) mesh_file_error(path, "not a regular file");
  if (uint64_t(info.st_size) > kMaxMeshFileBytes)
    mesh_file_error(path, "it has " + std::to_string(uint64_t(info.st_size)) + " bytes, more than the " +
                              std::to_string(kMaxMeshFileBytes) + " a mesh file may have");
  // The bytes are read once: the checks and the importer see the same ones.
  std::ifstream in(path, std::ios::binary);
  if (!in) mesh_file_error(path, "cannot open it");
  std::vector<char> bytes;
  try {
    bytes.resize(size_t(info.st_size));
  } catch (const std::bad_alloc&) {
    mesh_file_error(path, "not enough memory to read its " + std::to_string(uint64_t(info.st_size)) + " bytes");
  }
  in.read(bytes.data(), std::streamsize(bytes.size()));
  if (size_t(in.gcount()) != bytes.size() || in.peek() != std::char_traits<char>::eof())
    mesh_file_error(path, "it changed size while being read");
  return load_mesh_data(path, bytes.data(), bytes.size(), transform, mesh_import_limits(bytes.size()));
}

}  // namespace pbf
