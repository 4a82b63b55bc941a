#include "vdb_writer.h"

#include <stdexcept>

#ifdef PBF_SIM_WITH_OPENVDB
#include <openvdb/io/Stream.h>
#include <openvdb/openvdb.h>
#include <openvdb/tools/LevelSetUtil.h>
#include <openvdb/tools/MeshToVolume.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <sstream>
#include <vector>

#include "atomic_file.h"
#endif

namespace pbf_sim {

#ifdef PBF_SIM_WITH_OPENVDB

bool vdb_available() { return true; }

namespace {

// The file's bytes: the two grids of write_surface_vdb() and the description.
std::string vdb_bytes(const SurfaceMesh& mesh, float voxel_size, const std::string& description) {
  const openvdb::math::Transform::Ptr transform = openvdb::math::Transform::createLinearTransform(voxel_size);
  // World positions [m]: meshToLevelSet takes them to the transform's index space itself.
  std::vector<openvdb::Vec3s> points(mesh.vertex_count());
  for (size_t v = 0; v < points.size(); ++v)
    points[v] = openvdb::Vec3s(mesh.vertices[3 * v], mesh.vertices[3 * v + 1], mesh.vertices[3 * v + 2]);
  std::vector<openvdb::Vec3I> triangles(mesh.triangle_count());
  for (size_t t = 0; t < triangles.size(); ++t)
    triangles[t] = openvdb::Vec3I(mesh.triangles[3 * t], mesh.triangles[3 * t + 1], mesh.triangles[3 * t + 2]);
  const float half_width = 3.0f;  // voxels each side of the surface
  openvdb::FloatGrid::Ptr surface =
      openvdb::tools::meshToLevelSet<openvdb::FloatGrid>(*transform, points, triangles, half_width);
  surface->setName("surface");
  surface->setGridClass(openvdb::GRID_LEVEL_SET);
  // sdfToFogVolume makes the interior 1 and the exterior 0 (sparse), and ramps across the
  // band's inner half from the surface in; the band is then set to a ramp across two voxels
  // centred on the surface instead, so that the fog integrates to the volume it encloses.
  const float ramp = 2.0f * voxel_size;
  openvdb::FloatGrid::Ptr density = surface->deepCopy();
  openvdb::tools::sdfToFogVolume(*density);
  openvdb::FloatGrid::Accessor fog = density->getAccessor();
  for (openvdb::FloatGrid::ValueOnCIter it = surface->cbeginValueOn(); it; ++it) {
    const float value = std::clamp(0.5f - *it / ramp, 0.0f, 1.0f);
    if (value > 0.0f)
      fog.setValueOn(it.getCoord(), value);
    else
      fog.setValueOff(it.getCoord(), 0.0f);
  }
  density->setName("density");
  density->setGridClass(openvdb::GRID_FOG_VOLUME);

  openvdb::GridPtrVec grids{surface, density};
  openvdb::MetaMap meta;
  meta.insertMeta("description", openvdb::StringMetadata(description));
  std::ostringstream bytes(std::ios::binary);
  openvdb::io::Stream(bytes).write(grids, meta);
  return bytes.str();
}

}  // namespace

void write_surface_vdb(const std::string& path, const SurfaceMesh& mesh, float voxel_size,
                       const std::string& description) {
  static std::once_flag initialised;
  std::call_once(initialised, [] { openvdb::initialize(); });
  if (!(voxel_size > 0.0f)) throw std::runtime_error(path + ": the voxel size must be positive");
  std::string bytes;
  try {
    bytes = vdb_bytes(mesh, voxel_size, description);
  } catch (const openvdb::Exception& e) {
    throw std::runtime_error(path + ": OpenVDB: " + e.what());
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(path + ": OpenVDB: out of memory building the grids");
  }
  AtomicFile file(path);
  file.write(bytes);
  file.commit();
}

#else

bool vdb_available() { return false; }

void write_surface_vdb(const std::string& path, const SurfaceMesh&, float, const std::string&) {
  throw std::runtime_error(path + ": this pbf-sim was built without OpenVDB (Debian: libopenvdb-dev), so it "
                                  "cannot write .vdb files");
}

#endif

}  // namespace pbf_sim
