#include "geometry/mesh_loader.h"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "core/error.h"
#include "core/sdf_grid.h"

namespace pbf {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw Error(Status::Io, "path: cannot load a mesh from '" + path + "': " + reason);
}

// Deeper node hierarchies than this are refused rather than walked.
constexpr size_t kMaxNodes = size_t(1) << 20;

// OFF and PLY files announce their element counts before the elements, and
// Assimp reserves memory for them as announced: a file of a few bytes could
// ask for hundreds of gigabytes. Every element takes at least one byte, so
// counts beyond the file's size are refused before Assimp sees them.
void check_announced_counts(const std::string& path, uint64_t file_size) {
  std::ifstream in(path, std::ios::binary);
  std::string header(4096, '\0');
  in.read(&header[0], std::streamsize(header.size()));
  header.resize(size_t(in.gcount()));
  std::istringstream lines(header);
  std::string first;
  if (!(lines >> first)) return;
  uint64_t announced = 0;
  const bool off = first.size() >= 3 && first.size() <= 8 && first.compare(first.size() - 3, 3, "OFF") == 0;
  if (off) {
    // "OFF" then the vertex, face and edge counts, possibly after comments.
    std::string token;
    int counts = 0;
    while (counts < 2 && lines >> token) {
      if (token[0] == '#') {
        std::getline(lines, token);
        continue;
      }
      char* end = nullptr;
      const unsigned long long v = std::strtoull(token.c_str(), &end, 10);
      if (end == token.c_str() || *end != '\0') return;  // not a count: Assimp judges the file
      announced += v;
      ++counts;
    }
  } else if (first == "ply") {
    std::string line;
    while (std::getline(lines, line) && line.compare(0, 10, "end_header") != 0) {
      std::istringstream words(line);
      std::string keyword, name;
      unsigned long long count = 0;
      if (words >> keyword >> name >> count && keyword == "element") announced += count;
    }
  } else {
    return;
  }
  if (announced > file_size)
    fail(path, "its header announces " + std::to_string(announced) + " elements, more than its " +
                   std::to_string(file_size) + " bytes can hold");
}

}  // namespace

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

TriangleMesh load_mesh(const std::string& path, const MeshTransform& transform) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) fail(path, "no such file");
  if (!S_ISREG(info.st_mode)) fail(path, "not a regular file");
  check_announced_counts(path, uint64_t(info.st_size));

  Assimp::Importer importer;
  // Normals, texture coordinates and colours would keep vertices at the same
  // position apart; only positions matter here.
  importer.SetPropertyInteger(AI_CONFIG_PP_RVC_FLAGS, aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS |
                                                          aiComponent_COLORS | aiComponent_TEXCOORDS |
                                                          aiComponent_BONEWEIGHTS | aiComponent_ANIMATIONS |
                                                          aiComponent_TEXTURES | aiComponent_LIGHTS |
                                                          aiComponent_CAMERAS | aiComponent_MATERIALS);
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_RemoveComponent |
                aiProcess_ValidateDataStructure);
  if (scene == nullptr) fail(path, importer.GetErrorString());
  if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) != 0 || scene->mRootNode == nullptr || scene->mNumMeshes == 0)
    fail(path, "the file holds no mesh");

  // Every node's meshes with the node's accumulated transform, depth first.
  TriangleMesh mesh;
  std::vector<std::pair<const aiNode*, aiMatrix4x4>> stack{{scene->mRootNode, scene->mRootNode->mTransformation}};
  size_t visited = 0;
  while (!stack.empty()) {
    const auto [node, matrix] = stack.back();
    stack.pop_back();
    if (++visited > kMaxNodes) fail(path, "its scene has more than " + std::to_string(kMaxNodes) + " nodes");
    const double det = matrix.Determinant();
    for (unsigned m = 0; m < node->mNumMeshes; ++m) {
      if (node->mMeshes[m] >= scene->mNumMeshes) fail(path, "a node names a mesh that does not exist");
      const aiMesh* source = scene->mMeshes[node->mMeshes[m]];
      size_t triangles = 0;
      for (unsigned f = 0; f < source->mNumFaces; ++f) triangles += source->mFaces[f].mNumIndices == 3 ? 1 : 0;
      if (triangles == 0) continue;
      if (mesh.triangles.size() + triangles > kMaxMeshTriangles)
        fail(path, "it holds more than " + std::to_string(kMaxMeshTriangles) + " triangles");
      const uint32_t base = static_cast<uint32_t>(mesh.vertices.size());
      for (unsigned v = 0; v < source->mNumVertices; ++v) {
        const aiVector3D p = matrix * source->mVertices[v];
        mesh.vertices.push_back(Vec3{p.x, p.y, p.z});
      }
      for (unsigned f = 0; f < source->mNumFaces; ++f) {
        const aiFace& face = source->mFaces[f];
        if (face.mNumIndices != 3) continue;
        std::array<uint32_t, 3> t{base + face.mIndices[0], base + face.mIndices[1], base + face.mIndices[2]};
        for (int k = 0; k < 3; ++k)
          if (face.mIndices[k] >= source->mNumVertices) fail(path, "a face names a vertex that does not exist");
        if (det < 0.0) std::swap(t[1], t[2]);  // a mirroring node keeps faces outwards
        mesh.triangles.push_back(t);
      }
    }
    for (unsigned c = 0; c < node->mNumChildren; ++c)
      if (node->mChildren[c] != nullptr) stack.emplace_back(node->mChildren[c], matrix * node->mChildren[c]->mTransformation);
  }
  if (mesh.triangles.empty()) fail(path, "the file holds no triangles");

  transform_mesh(mesh, transform);
  for (const Vec3& v : mesh.vertices)
    if (!is_finite(v)) fail(path, "a vertex is not finite once placed (NaN or overflow)");
  return mesh;
}

}  // namespace pbf
